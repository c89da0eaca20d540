/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * membership: what the agent's BPF program (membership.bpf.c) and the
 * agent (agent/membership.c) share - the event of a task joining a cgroup
 * the agent watches, and the map of watched cgroups.
 */
#ifndef RDT_MEMBERSHIP_H
#define RDT_MEMBERSHIP_H

#define RDT_MEMB_WATCHED 16384		/* cgroups watched: bound ones and their parents */
#define RDT_MEMB_DEPTH 16		/* ancestors looked at, the cgroup itself included */

enum rdt_memb_kind {
	RDT_MEMB_ATTACH = 1,		/* a task (threadgroup: its process) moved in */
	RDT_MEMB_FORK = 2,		/* a task forked inside a watched cgroup */
};

struct rdt_memb_event {
	__u64 cgroup;			/* the cgroup id it joined (kernfs id) */
	__u64 time_ns;			/* bpf_ktime_get_ns() at the join */
	__s32 pid;			/* the task (thread id) */
	__s32 tgid;			/* its process */
	__u32 kind;			/* enum rdt_memb_kind */
	__u32 threadgroup;		/* ATTACH: the whole process moved */
};

#endif
