/* SPDX-License-Identifier: (LGPL-2.1-or-later OR BSD-2-Clause) */
/*
 * switch_hook.h: the layout shared by the BPF program (switch_hook.bpf.c)
 * and its user side (lib/hook/) - map values, the event record and the
 * names under which everything is pinned. Only fixed-width kernel types
 * (__u32, __u64), so that it compiles against vmlinux.h and <linux/types.h>.
 */
#ifndef RDT_SWITCH_HOOK_H
#define RDT_SWITCH_HOOK_H

/* A CPU's domain when the machine does not have the CPU (or it has no CAT). */
#define RDT_HOOK_NO_DOMAIN 0xffffffffu

/*
 * Lag histogram: log-linear buckets, RDT_HOOK_SUB_BITS bits of precision
 * (about 3%) over the whole 64-bit range of nanoseconds.
 */
#define RDT_HOOK_SUB_BITS 5
#define RDT_HOOK_LAG_BUCKETS ((64 - RDT_HOOK_SUB_BITS + 1) << RDT_HOOK_SUB_BITS)

/*
 * Levels the program walks up from a task's cgroup to find a bound one: a
 * bound cgroup is at most 32 levels deep and its tasks at most 32 below it
 * (RDT_CGROUP_DEPTH in lib/cgroups.h).
 */
#define RDT_HOOK_CGROUP_DEPTH 64
#define RDT_HOOK_CGROUPS 4096	/* entries of cgroup_group (RDT_CGROUPS_MAX) */

/* task_group and cgroup_group value: the group (its sequence number, stable across processes). */
struct rdt_hook_task {
	__u64 seq;
};

/* group_closid key: one group in one allocation domain. */
struct rdt_hook_gkey {
	__u64 seq;
	__u32 adom;
	__u32 pad;
};

/* One remembered answer of the program: this task gets this CLOSID here. */
struct rdt_hook_memo {
	__u64 start;		/* the task's start_time: a reused PID is another task */
	__u32 tid;		/* 0: empty */
	__u32 closid;
};

/*
 * The memo is direct-mapped by the task id's low bits: one compare finds
 * an answer, and the tasks taking turns on a CPU (a pinned worker pool,
 * a handful of threads) rarely collide - consecutive ids never do, up to
 * 16. A round-robin memo of three missed on every switch once four tasks
 * took turns (bench_hook: 1.67x the empty program, docs/hook.md).
 */
#define RDT_HOOK_MEMOS 16	/* a power of two */
#define RDT_HOOK_MEMO_OF(tid) ((tid) & (RDT_HOOK_MEMOS - 1))

/*
 * The program's per-CPU caches behind the memo, valid like it while the
 * maps keep their generation: a group's CLOSID in the CPU's domain (seq 0,
 * the default group, included), and the group a cgroup's tasks get through
 * cgroups (the walk's answer, 0 for none). A CPU runs the tasks of few
 * groups and cgroups, so a memo miss rarely looks anything up in a map.
 */
#define RDT_HOOK_GCACHE 4
#define RDT_HOOK_CGCACHE 4

struct rdt_hook_gcache {
	__u64 seq;
	__u32 closid;
	__u32 valid;
};

struct rdt_hook_cgcache {
	__u64 cgid;		/* 0: empty (no cgroup has id 0) */
	__u64 seq;
};

/*
 * cpu_state value, one per CPU, nine cache lines each. The BPF program on
 * CPU c is the only kernel writer of entry c; the agent writes applied and
 * pending (and its own counter), through an mmap of the map.
 */
struct rdt_hook_slot {
	/*
	 * (tid << 32) | CLOSID wanted: the last task switched in that is not
	 * transparent, and the CLOSID in force for it. One word, so that the
	 * agent can replace the CLOSID only if no switch came in between.
	 */
	__u64 cur;
	__u32 applied;		/* CLOSID the agent last made PQR_ASSOC hold */
	__u32 pending;		/* 1: an event for this CPU is in flight */
	__u64 switches;		/* every sched_switch seen */
	__u64 transparent;	/* of which to the idle task or the agent */
	__u64 events;		/* "wants CLOSID k" events sent */
	__u64 coalesced;	/* changes while an event was in flight */
	__u64 dropped;		/* events the ring buffer had no room for */
	__u64 pqr_writes;	/* PQR_ASSOC writes by the agent */
	/*
	 * The program's memo of its last answers on this CPU, valid while the
	 * maps keep generation memo_gen (every change from user space bumps
	 * it): a CPU switching among a few tasks then looks nothing up.
	 */
	__u64 memo_gen;
	struct rdt_hook_memo memo[RDT_HOOK_MEMOS];
	__u32 gcache_next;
	__u32 cgcache_next;
	struct rdt_hook_gcache gcache[RDT_HOOK_GCACHE];
	struct rdt_hook_cgcache cgcache[RDT_HOOK_CGCACHE];
} __attribute__((aligned(64)));

/*
 * What a CPU's PQR_ASSOC should hold, as one 32-bit value: the CLOSID in bits
 * 15:0 and the RMID (L3 monitoring; 0 without) in bits 31:16. group_closid's
 * values, cur's low half, applied, memo and caches all hold it: the program
 * compares and passes it on, the agent splits it when it writes the register.
 */
#define RDT_HOOK_PQR(closid, rmid) ((__u32)(rmid) << 16 | (__u32)(closid))
#define RDT_HOOK_PQR_CLOSID(v) ((__u32)(v) & 0xffffu)
#define RDT_HOOK_PQR_RMID(v) ((__u32)(v) >> 16)

#define RDT_HOOK_CUR(tid, closid) (((__u64)(tid) << 32) | (__u32)(closid))
#define RDT_HOOK_CUR_TID(cur) ((__u32)((cur) >> 32))
#define RDT_HOOK_CUR_CLOSID(cur) ((__u32)(cur))

/* control value (one entry): who the agent is, and what it measured. */
struct rdt_hook_ctl {
	__u32 agent_tgid;	/* its threads are transparent; 0: no agent */
	__u32 ncpus;		/* entries of the per-CPU maps */
	__u64 agent_start;	/* its start time (clock ticks after boot) */
	__u64 gen;		/* bumped by every change of the maps from user space */
	__u64 serve_dev;	/* the state directory the hook serves (st_dev, st_ino) */
	__u64 serve_ino;
	char serve_backend[16];
	char serve_dir[256];	/* for messages */
	__u64 lag_samples;
	__u64 lag_max_ns;
	__u64 lag_hist[RDT_HOOK_LAG_BUCKETS];
	__u32 precedence;	/* the served state's rule: RDT_HOOK_PREC_* */
	__u32 ncgroups;		/* entries in cgroup_group: 0, no cgroup is walked */
};

/* The precedence rules (the values of RDTALLOC_PRECEDENCE_*). */
#define RDT_HOOK_PREC_CPU 1	/* the CPU's group, else the task's */
#define RDT_HOOK_PREC_TASK 2	/* the task's non-default group, else the CPU's */

/* The cpu of an event that only wakes the agent (the maps changed). */
#define RDT_HOOK_KICK 0xffffffffu

/* One ring buffer record. */
struct rdt_hook_event {
	__u32 cpu;
	__u32 closid;
	__u64 ts;		/* bpf_ktime_get_ns() at the switch-in (CLOCK_MONOTONIC) */
};

/* iter/task output: one record per live task. */
struct rdt_hook_task_rec {
	__u32 tid;
	__u32 own;		/* 1: seq is its own binding, 0: its cgroup's (or none) */
	__u64 seq;		/* 0: no binding */
};

#endif
