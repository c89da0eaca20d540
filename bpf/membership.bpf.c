// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * membership: the agent's eyes on cgroup membership. A task that joins a
 * cgroup of the unified hierarchy (a write to cgroup.procs or
 * cgroup.threads, runc exec, a service restart) - or is made in one (a
 * fork inside it, or clone3(CLONE_INTO_CGROUP) from outside) - is one ring
 * buffer event when that cgroup or one of its ancestors is in the
 * watched map (the cgroups bound to groups, filled by the agent), so that
 * the agent places it in its group within milliseconds. Owns no policy:
 * which group a task belongs in is the library's (rdtalloc_place_tasks).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "membership.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* cgroup id (kernfs node id) -> 1: a bound cgroup. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RDT_MEMB_WATCHED);
	__type(key, __u64);
	__type(value, __u8);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Events the ring buffer had no room for: the agent then scans. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void emit(__u64 cg, __s32 pid, __s32 tgid, __u32 kind, __u32 tg)
{
	struct rdt_memb_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 zero = 0;
	__u64 *n;

	if (!e) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
		return;
	}
	e->cgroup = cg;
	e->time_ns = bpf_ktime_get_ns();
	e->pid = pid;
	e->tgid = tgid;
	e->kind = kind;
	e->threadgroup = tg;
	bpf_ringbuf_submit(e, 0);
}

/* Is cgrp, or one of its ancestors, watched? */
static __always_inline bool is_watched(struct cgroup *cgrp)
{
	int i;

	for (i = 0; i < RDT_MEMB_DEPTH && cgrp; i++) {
		__u64 id = BPF_CORE_READ(cgrp, kn, id);

		if (bpf_map_lookup_elem(&watched, &id))
			return true;
		cgrp = container_of(BPF_CORE_READ(cgrp, self.parent), struct cgroup, self);
	}
	return false;
}

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_attach, struct cgroup *dst_cgrp, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	/* the unified hierarchy only: a v1 controller's ids are another numbering */
	if (BPF_CORE_READ(dst_cgrp, root, hierarchy_id) != 0)
		return 0;
	if (!is_watched(dst_cgrp))
		return 0;
	emit(BPF_CORE_READ(dst_cgrp, kn, id), BPF_CORE_READ(task, pid), BPF_CORE_READ(task, tgid),
	     RDT_MEMB_ATTACH, threadgroup);
	return 0;
}

/*
 * A new task, in the cgroup it was made in. That is its own cgroup, not the
 * current task's: clone3(CLONE_INTO_CGROUP) - how systemd starts services,
 * and crun and newer runc containers - puts the child straight into another
 * cgroup, and it never joins one (no cgroup_attach_task). The tracepoint
 * fires after cgroup_post_fork, so child->cgroups is the child's.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct cgroup *cgrp = child->cgroups->dfl_cgrp;

	if (!cgrp || !is_watched(cgrp))
		return 0;
	emit(cgrp->kn->id, child->pid, child->tgid, RDT_MEMB_FORK, 0);
	return 0;
}
