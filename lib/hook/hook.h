/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hook: the user side of the switch hook (bpf/switch_hook.bpf.c). Loads and
 * pins it under /sys/fs/bpf/rdtalloc, keeps its maps in step with the
 * engine's state (groups, CLOSIDs, CPU bindings), binds tasks in its task
 * storage, lists the live tasks of a group, and runs the agent that writes
 * PQR_ASSOC. It never decides a CLOSID itself: the engine does, the BPF
 * program applies the precedence rule on every switch.
 */
#ifndef RDT_HOOK_H
#define RDT_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdtalloc/rdtalloc.h>

struct rdt_hook;
struct rdt_state;
struct rdtalloc;

/* Where maps, programs and links are pinned. */
#define RDT_HOOK_DIR "/sys/fs/bpf/rdtalloc"

/* ---- The interface core.c uses ------------------------------------------- */

/* Whether this library was built with the hook (RDTALLOC_BPF). */
bool rdt_hook_built(void);

/*
 * Open the pinned maps of a loaded hook. -ENOENT when nothing is pinned
 * (the core then works as without the hook), -EOPNOTSUPP when not built,
 * else a negative errno with err saying what failed.
 */
int rdt_hook_open(struct rdt_hook **out, char *err, size_t len);
void rdt_hook_close(struct rdt_hook *h);

/*
 * Whether the hook serves r's state: it was loaded for r's backend and
 * state directory. There is one hook per machine; contexts on other state
 * directories (or ephemeral ones) must leave it alone.
 */
bool rdt_hook_serves(const struct rdt_hook *h, const struct rdtalloc *r);

/*
 * Push the state into the maps: group -> CLOSID per allocation domain (live
 * groups only), CPU -> group, CPU -> domain; then tell the agent, which
 * re-applies every CPU (a running task needs no switch to get its new
 * CLOSID). Call it after every change of schemas, CPU bindings, groups,
 * CDP or a reset, under the state's lock. before: a snapshot of the state
 * the maps hold now (taken when the call began), so that only what differs
 * is written; NULL: read the maps and write what differs from them.
 */
struct rdt_hook_snap;
int rdt_hook_sync(struct rdt_hook *h, const struct rdt_state *st,
		  const struct rdt_hook_snap *before);
int rdt_hook_snap_take(const struct rdt_state *st, struct rdt_hook_snap **out);
/* The agent's own check: the maps made equal to st as a whole, no wake-up. */
int rdt_hook_sync_quiet(struct rdt_hook *h, const struct rdt_state *st);
void rdt_hook_snap_free(struct rdt_hook_snap *sn);

/*
 * Put thread tid in the group with sequence number group_seq (0: back to
 * the default group) in the hook's task storage, keyed by a pidfd of the
 * thread, so the binding dies with the thread. start: the thread's start
 * time (0: not checked), so that a reused id is refused. -ESRCH: no such
 * thread (any more).
 */
int rdt_hook_bind_task(struct rdt_hook *h, pid_t tid, uint64_t start, uint64_t group_seq);

/* The group (seq) of thread tid in the task storage, 0: none; -ESRCH: no such thread. */
int rdt_hook_task_group(struct rdt_hook *h, pid_t tid, uint64_t *seq);

/*
 * The live threads of a group, ascending (malloc'd, *n entries), from the
 * BPF task iterator: exited and exiting threads are never listed. For
 * group_seq 0: every live thread not in a live group.
 */
int rdt_hook_tasks(struct rdt_hook *h, uint64_t group_seq, pid_t **out, size_t *n);

/* What the last failed call on h was about ("" when none). */
const char *rdt_hook_errmsg(const struct rdt_hook *h);

/* ---- Between the files of lib/hook/ ---------------------------------------- */

/* The agent of a hook as its control map records it. */
struct rdt_hook_agent_info {
	pid_t pid;		/* 0: none recorded */
	bool running;		/* that process still exists (same start time) */
};

/* load.c: load the BPF object, fill the maps from st, attach, pin (-EEXIST: pinned). */
int rdt_hook_load(struct rdtalloc *r, const struct rdt_state *st, char *err, size_t len);
/* load.c: remove every pin (the programs detach once nothing holds them). */
int rdt_hook_unload(char *err, size_t len);

/* bpf_maps.c: open the pins in another directory (load.c fills a new hook there). */
int rdt_hook_open_at(const char *dir, struct rdt_hook **out, char *err, size_t len);
/* bpf_maps.c: the names pinned in the directory, i = 0, 1, ... until NULL (links aside). */
const char *rdt_hook_pin_name(unsigned int i);

/* bpf_maps.c: the per-CPU slots and the control block (mmap'ed), and map lookups. */
unsigned int rdt_hook_ncpus(const struct rdt_hook *h);
struct rdt_hook_slot *rdt_hook_slot(struct rdt_hook *h, unsigned int cpu);
struct rdt_hook_ctl *rdt_hook_ctl(struct rdt_hook *h);
int rdt_hook_events_fd(const struct rdt_hook *h);
/* Record r's backend and state directory as the one the hook serves. */
int rdt_hook_set_served(struct rdt_hook *h, const struct rdtalloc *r);
/* What the BPF program would choose on cpu for the thread tid now: RDT_HOOK_PQR. */
int rdt_hook_pqr_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *pqr);
/* Bump the generation and wake the agent (it re-applies every CPU). */
void rdt_hook_kick(struct rdt_hook *h);
void rdt_hook_agent(struct rdt_hook *h, struct rdt_hook_agent_info *info);
/* Start time of a process (clock ticks after boot), 0 when it does not exist. */
uint64_t rdt_hook_proc_start(pid_t pid);

/* agent.c: the agent loop on r until *stop, SIGTERM or SIGINT; notify_fd gets the
 * start-up result (struct rdt_hook_ready) when >= 0. */
struct rdt_hook_ready {
	int ret;
	pid_t pid;		/* the agent's */
	char msg[480];
};
int rdt_hook_agent_run(struct rdtalloc *r, volatile int *stop, int notify_fd);


#endif
