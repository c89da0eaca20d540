// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * switch_hook: on every context switch, the CLOSID that should be in force
 * on the CPU - the CPU's group, else the next task's group, else the default
 * group, in the CPU's allocation domain - and, when it differs from the one
 * the agent last applied, one "CPU c wants CLOSID k" event (at most one in
 * flight per CPU). BPF cannot write MSRs: the agent (lib/hook/agent.c) does.
 * Also: a child inherits its parent's group at fork (threads included), and
 * an iterator lists the live tasks with their groups. Owns no policy: the
 * maps are filled from user space (lib/hook/bpf_maps.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "switch_hook.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* include/linux/sched.h: the task is on its way out (set early in do_exit). */
#define PF_EXITING 0x00000004

/* task -> group; freed by the kernel with the task, so a reused PID starts clean. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rdt_hook_task);
} task_group SEC(".maps");

/* cgroup id (kernfs node id, the inode of its directory) -> group bound to it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RDT_HOOK_CGROUPS);
	__type(key, __u64);
	__type(value, struct rdt_hook_task);
} cgroup_group SEC(".maps");

/* (group, allocation domain) -> CLOSID; only live groups have entries. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct rdt_hook_gkey);
	__type(value, __u32);
} group_closid SEC(".maps");

/* CPU -> group it is bound to; 0 (the default group's seq): not bound. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set to the number of CPUs at load */
	__type(key, __u32);
	__type(value, __u64);
} cpu_group SEC(".maps");

/* CPU -> allocation domain, RDT_HOOK_NO_DOMAIN when the machine lacks it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cpu_domain SEC(".maps");

/* Per CPU: wanted, applied, in flight, counters (mmap'ed by the agent). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rdt_hook_slot);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rdt_hook_ctl);
} control SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);	/* raised at load to hold one event per CPU */
} events SEC(".maps");

static __always_inline __u32 closid_lookup(__u64 seq, __u32 adom)
{
	struct rdt_hook_gkey key = { .seq = seq, .adom = adom };
	__u32 *k = bpf_map_lookup_elem(&group_closid, &key);

	if (!k && seq) {
		/* a group removed meanwhile: its tasks are back in default */
		key.seq = 0;
		k = bpf_map_lookup_elem(&group_closid, &key);
	}
	return k ? *k : 0;
}

#define GCACHE_HIT(s, i, seq) ((s)->gcache[i].valid && (s)->gcache[i].seq == (seq))

/* A group's CLOSID in the CPU's domain: the CPU's cache, else the map. */
static __always_inline __u32 closid_of(struct rdt_hook_slot *s, __u64 seq, __u32 adom)
{
	__u32 closid, i;

	if (GCACHE_HIT(s, 0, seq))
		return s->gcache[0].closid;
	if (GCACHE_HIT(s, 1, seq))
		return s->gcache[1].closid;
	if (GCACHE_HIT(s, 2, seq))
		return s->gcache[2].closid;
	if (GCACHE_HIT(s, 3, seq))
		return s->gcache[3].closid;
	closid = closid_lookup(seq, adom);
	i = s->gcache_next;
	if (i >= RDT_HOOK_GCACHE)
		i = 0;
	s->gcache[i].seq = seq;
	s->gcache[i].closid = closid;
	s->gcache[i].valid = 1;
	s->gcache_next = i + 1;
	return closid;
}

/*
 * A cgroup's parent, NULL at the root: the parent css of a cgroup's own
 * css is its parent cgroup's own css. Direct loads through the task's BTF
 * pointers, not probe reads (a fault reads 0).
 */
static __always_inline struct cgroup *cgroup_parent(struct cgroup *cg)
{
	struct cgroup_subsys_state *css = cg->self.parent;

	return css ? css->cgroup : NULL;
}

/*
 * The group of a task without a binding of its own: its deepest bound
 * cgroup on the unified hierarchy, walking up from its own. A task that
 * joins a bound cgroup later is covered at its next switch, with no work
 * from user space.
 */
static __always_inline __u64 cgroup_walk(struct cgroup *cg)
{
	struct rdt_hook_task *v;
	__u64 id;
	int i;

	for (i = 0; i < RDT_HOOK_CGROUP_DEPTH && cg; i++) {
		id = cg->kn->id;
		v = bpf_map_lookup_elem(&cgroup_group, &id);
		if (v)
			return v->seq;
		cg = cgroup_parent(cg);
	}
	return 0;
}

#define CGCACHE_HIT(s, i, id) ((s)->cgcache[i].cgid == (id))

/* cgroup_walk() from a task's own cgroup, through the CPU's cache. */
static __always_inline __u64 cgroup_seq(struct rdt_hook_slot *s, struct task_struct *t)
{
	struct cgroup *cg = t->cgroups->dfl_cgrp;
	__u64 id, seq;
	__u32 i;

	if (!cg)
		return 0;
	id = cg->kn->id;
	if (!id)
		return cgroup_walk(cg);
	if (CGCACHE_HIT(s, 0, id))
		return s->cgcache[0].seq;
	if (CGCACHE_HIT(s, 1, id))
		return s->cgcache[1].seq;
	if (CGCACHE_HIT(s, 2, id))
		return s->cgcache[2].seq;
	if (CGCACHE_HIT(s, 3, id))
		return s->cgcache[3].seq;
	seq = cgroup_walk(cg);
	i = s->cgcache_next;
	if (i >= RDT_HOOK_CGCACHE)
		i = 0;
	s->cgcache[i].cgid = id;
	s->cgcache[i].seq = seq;
	s->cgcache_next = i + 1;
	return seq;
}

/* A task's group: its own binding, else its cgroup's (when any is bound). */
static __always_inline __u64 task_seq(struct rdt_hook_slot *s, struct task_struct *t,
				      const struct rdt_hook_ctl *ctl)
{
	struct rdt_hook_task *v = bpf_task_storage_get(&task_group, t, 0, 0);
	__u64 seq = v ? v->seq : 0;

	if (!seq && ctl->ncgroups)
		seq = cgroup_seq(s, t);
	return seq;
}

/*
 * The rule, in the CPU's domain: with precedence=cpu the CPU's group, else
 * the task's; with precedence=task the task's non-default group, else the
 * CPU's; else default.
 */
static __always_inline int closid_for(struct rdt_hook_slot *s, __u32 cpu,
				      struct task_struct *next, const struct rdt_hook_ctl *ctl,
				      __u32 *closid)
{
	__u32 *adom;
	__u64 *cg, seq, tseq;

	adom = bpf_map_lookup_elem(&cpu_domain, &cpu);
	cg = bpf_map_lookup_elem(&cpu_group, &cpu);
	if (!adom || *adom == RDT_HOOK_NO_DOMAIN || !cg)
		return -1;
	seq = *cg;
	if (!seq || ctl->precedence == RDT_HOOK_PREC_TASK) {
		tseq = task_seq(s, next, ctl);
		if (tseq)
			seq = tseq;
	}
	*closid = closid_of(s, seq, *adom);
	return 0;
}

/* A new generation of the maps: everything the CPU remembered goes. */
static __always_inline void forget(struct rdt_hook_slot *s, __u64 gen)
{
	__u32 i;

	for (i = 0; i < RDT_HOOK_MEMOS; i++)
		s->memo[i].tid = 0;
	for (i = 0; i < RDT_HOOK_GCACHE; i++)
		s->gcache[i].valid = 0;
	for (i = 0; i < RDT_HOOK_CGCACHE; i++)
		s->cgcache[i].cgid = 0;
	s->memo_gen = gen;
}


SEC("tp_btf/sched_switch")
int BPF_PROG(rdt_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, closid;
	struct rdt_hook_memo *m;
	struct rdt_hook_event ev;
	struct rdt_hook_slot *s;
	struct rdt_hook_ctl *ctl;
	__u32 pid = next->pid;
	__u64 start, gen, cur, old;

	s = bpf_map_lookup_elem(&cpu_state, &cpu);
	ctl = bpf_map_lookup_elem(&control, &zero);
	if (!s || !ctl)
		return 0;
	s->switches++;
	/* Idle and the agent are transparent: the CPU keeps the CLOSID it has. */
	if (pid == 0 || (__u32)next->tgid == ctl->agent_tgid) {
		s->transparent++;
		return 0;
	}
	start = next->start_time;
	/*
	 * Read before the maps: user space bumps it after every change, so an
	 * answer remembered from older maps is dropped at the next switch.
	 */
	gen = *(volatile __u64 *)&ctl->gen;
	if (s->memo_gen != gen)
		forget(s, gen);
	m = &s->memo[RDT_HOOK_MEMO_OF(pid)];
	if (m->tid == pid && m->start == start) {
		closid = m->closid;
	} else {
		if (closid_for(s, cpu, next, ctl, &closid))
			return 0;
		m->tid = pid;
		m->start = start;
		m->closid = closid;
	}
	/*
	 * Publish the wish with an exchange (fully ordered) before reading
	 * applied: the agent stores applied, exchanges pending, then reads cur.
	 * Of the two, one sees the other's store - a plain store here could be
	 * passed by the load of applied, and then neither would act. Only a
	 * new CLOSID needs that; another task with the same one is a plain
	 * store (the agent's compare-exchange in recompute() still sees it).
	 */
	cur = RDT_HOOK_CUR(pid, closid);
	old = s->cur;
	if (RDT_HOOK_CUR_CLOSID(old) != closid)
		__sync_lock_test_and_set(&s->cur, cur);
	else if (old != cur)
		s->cur = cur;	/* the agent's view of the CLOSID is unchanged */
	if (closid == *(volatile __u32 *)&s->applied)
		return 0;
	if (__sync_val_compare_and_swap(&s->pending, 0, 1) != 0) {
		s->coalesced++;
		return 0;
	}
	ev.cpu = cpu;
	ev.closid = closid;
	ev.ts = bpf_ktime_get_ns();
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0)) {
		/* no room: the next switch here tries again */
		__sync_lock_test_and_set(&s->pending, 0);
		s->dropped++;
		return 0;
	}
	s->events++;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(rdt_fork, struct task_struct *parent, struct task_struct *child)
{
	struct rdt_hook_task *pt, *ct;

	/* parent is the creating thread: a new thread takes its creator's group */
	pt = bpf_task_storage_get(&task_group, parent, 0, 0);
	if (!pt)
		return 0;
	ct = bpf_task_storage_get(&task_group, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ct)
		ct->seq = pt->seq;
	return 0;
}

/*
 * A task moved into another cgroup: while cgroups are bound, what the
 * CPUs remembered may be wrong now. The generation drops every memo, and
 * the agent re-applies every CPU (the task may be running elsewhere).
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(rdt_attach, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	struct rdt_hook_event ev = { .cpu = RDT_HOOK_KICK };
	struct rdt_hook_ctl *ctl;
	__u32 zero = 0;

	ctl = bpf_map_lookup_elem(&control, &zero);
	if (!ctl || !ctl->ncgroups)
		return 0;
	__sync_fetch_and_add(&ctl->gen, 1);
	ev.ts = bpf_ktime_get_ns();
	bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* Every live task with its group, for `task show` (exiting tasks are left out). */
SEC("iter/task")
int rdt_tasks(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct rdt_hook_task_rec rec = { 0 };
	struct rdt_hook_task *t;
	struct rdt_hook_ctl *ctl;
	__u32 zero = 0;

	ctl = bpf_map_lookup_elem(&control, &zero);
	if (!task || !ctl || (task->flags & PF_EXITING))
		return 0;
	rec.tid = task->pid;
	t = bpf_task_storage_get(&task_group, task, 0, 0);
	rec.seq = t ? t->seq : 0;
	rec.own = rec.seq != 0;
	if (!rec.seq && ctl->ncgroups && task->cgroups->dfl_cgrp)
		rec.seq = cgroup_walk(task->cgroups->dfl_cgrp);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

/*
 * Run from user space (BPF_PROG_TEST_RUN) after it changed the maps: a
 * marker in the ring buffer wakes the agent, which re-applies every CPU.
 */
SEC("raw_tp")
int rdt_kick(void *ctx)
{
	struct rdt_hook_event ev = { .cpu = RDT_HOOK_KICK };

	ev.ts = bpf_ktime_get_ns();
	bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* The benchmark's yardstick: an empty program on the same tracepoint (not autoloaded). */
SEC("?tp_btf/sched_switch")
int BPF_PROG(rdt_empty_switch)
{
	return 0;
}
