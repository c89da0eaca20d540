/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend: what a backend implements, at two levels (as the kernel splits
 * fs/resctrl from arch/x86):
 *
 * - The group level, struct rdt_group_ops: how the state's groups are made
 *   real and who owns task membership. The core (names, schemas, the
 *   transaction, the state file) calls only these. sim and msr share one
 *   implementation, lib/hw/ops.c: the engine's CLOSIDs written to a register
 *   file, tasks in the state's table or the switch hook's task storage.
 *   resctrl (lib/backends/resctrl.c) has its own: classes of groups as
 *   kernel control groups, tasks in the kernel's tasks files.
 * - The register level (sink, reconcile, digest, task_binding): used by
 *   lib/hw/ops.c only, for backends whose registers we write ourselves.
 *
 * Adding a backend is one file in lib/backends/ and one line in core.c's
 * table. docs/architecture.md draws the layers.
 */
#ifndef RDT_BACKEND_H
#define RDT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hw/engine.h"
#include "machine.h"

/* Settings a backend may need; each has a default when NULL. */
struct rdt_backend_env {
	const char *msr_root;	/* device root: <root>/<cpu>/msr; NULL: /dev/cpu */
	const char *mounts;	/* mount table to look for resctrl in; NULL: /proc/self/mounts */
	const char *resctrl_root;	/* where resctrl is mounted; NULL: from the mount table */
	bool machine_given;	/* the caller gave a machine description: trust it over CPUID */
};

/* reconcile flags */
#define RDT_RECONCILE_FIRST	(1u << 0)	/* a new state: write every register */
/*
 * Leave PQR_ASSOC alone: the switch hook's agent writes it, ahead of the
 * state's image, so a difference there is not a disagreement.
 */
#define RDT_RECONCILE_NO_PQR	(1u << 1)

struct rdtalloc;
struct rdtalloc_closid_info;
struct rdt_nodes;
struct rdtalloc_ways_info;
/* A bound task the kernel has elsewhere (rdtalloc_moved_tasks). */
struct rdt_moved {
	pid_t tid;
	int group;		/* its group in the state */
	char where[64];		/* the control group that lists it; "" the root, "?" none */
};

/*
 * The group level. Every call gets the context, under its lock, with r->st
 * the current state; failures set the errmsg (rdt_fail) and return a
 * negative errno. All are required.
 */
/* What a sync found and did. */
struct rdt_sync_out {
	unsigned int repairs;		/* changes that brought the backend back to the state */
	unsigned int moved;		/* tasks placed in their groups */
	unsigned int dropped;		/* bindings dropped: exited, removed, moved by others */
	bool state_changed;
	char what[512];			/* what was found and done; "" when nothing */
	unsigned int strays_left, strays_moved;	/* rdtalloc_sync_report's */
};

struct rdt_group_ops {
	/* Open: make the backend hold r->st (r->fresh: the state is new); the
	 * reason line may be extended with what had to be repaired. */
	int (*open)(struct rdtalloc *r);
	void (*close)(struct rdtalloc *r);
	/* A call begins (r->st is current); write: it may change the state. */
	int (*begin)(struct rdtalloc *r, bool write);
	/*
	 * A write call succeeded and changed r->st: make the backend hold it,
	 * before the state file is written. All or nothing: on failure what it
	 * did is undone.
	 */
	int (*commit)(struct rdtalloc *r);
	/*
	 * The call failed (committed: after a successful commit, the state file
	 * could not be written): undo whatever this call did to the backend.
	 * r->st may be replaced; the core drops it afterwards when it has a file.
	 */
	void (*abort)(struct rdtalloc *r, bool committed);
	/* Every call ends here, after commit or abort. */
	void (*finish)(struct rdtalloc *r);
	/* May tasks be bound now? 0, or -EOPNOTSUPP saying what to do. */
	int (*tasks_allowed)(struct rdtalloc *r);
	/* The engine moved tid to group g in r->st; the backend's owner follows. */
	int (*bind_task)(struct rdtalloc *r, int g, pid_t tid, uint64_t start);
	/* r->st replaced a whole state old (apply): carry its task bindings over. */
	int (*carry_tasks)(struct rdtalloc *r, const struct rdt_state *old);
	/* The live tasks of group g, ascending (malloc'd). */
	int (*group_tasks)(struct rdtalloc *r, int g, pid_t **out, size_t *n);
	/* The group of a live task (start: its start time, 0 for virtual ones). */
	int (*task_group)(struct rdtalloc *r, pid_t tid, uint64_t start, int *g);
	/*
	 * The CLOSID in force on cpu while tid (0: none) runs there; stale: the
	 * state's table binds another task that had this id.
	 */
	int (*effective_closid)(struct rdtalloc *r, int cpu, pid_t tid, bool stale,
				unsigned int *closid);
	/* The CLOSID group g holds in allocation domain a (the one its CPUs run with). */
	int (*group_closid)(struct rdtalloc *r, int g, unsigned int adom, unsigned int *closid);
	/*
	 * The CLOSIDs in use in domain dom of resource res, ascending, at most
	 * max of them into out; returns how many there are.
	 */
	int (*closids)(struct rdtalloc *r, int res, int dom, struct rdtalloc_closid_info *out,
		       size_t max);
	/* May a context switch be simulated now (rdtalloc_sim_switch)? */
	int (*sim_switch_allowed)(struct rdtalloc *r);
	/*
	 * Optional, for a dry run: would commit take st now, from r->st? The
	 * checks it makes before its first change, against the backend as it
	 * is (another tool's exclusive groups, free CLOSIDs, ...). On failure
	 * *group: the group of st the refusal is about, -1 when none is.
	 */
	int (*check)(struct rdtalloc *r, const struct rdt_state *st, int *group);
	/*
	 * Optional, where the kernel owns membership (resctrl): the bound tasks
	 * of r->st that it lists elsewhere than their group - moved by another
	 * tool. *out malloc'd, *n of them.
	 */
	int (*moved_tasks)(struct rdtalloc *r, struct rdt_moved **out, size_t *n);
	/*
	 * Optional, inside a write call (rdtalloc_sync): bring the backend back
	 * to r->st as an open does - what changed behind our back repaired, a
	 * bound cgroup's newcomers placed (always when full). out->state_changed:
	 * r->st itself changed (exited tasks, removed cgroups, an adopted root).
	 */
	int (*sync)(struct rdtalloc *r, bool full, struct rdt_sync_out *out);
	/*
	 * Optional, inside a read call: each object of r->st the backend does
	 * not hold as it says (cb's group "" for one about no group); cb
	 * returning non-zero stops the walk and is returned.
	 */
	int (*drift)(struct rdtalloc *r, int (*cb)(const char *group, const char *what, void *arg),
		     void *arg);
	/* Optional: put these tasks where r->st says, now (they just joined a cgroup). */
	int (*place_tasks)(struct rdtalloc *r, const pid_t *tids, size_t n, unsigned int *moved);
};



extern const struct rdt_group_ops rdt_hw_group_ops;	/* lib/hw/ops.c */

/* Register-level callbacks are optional: NULL means the backend needs nothing there. */
struct rdt_backend {
	const char *name;
	/* Registers live in the state; rdtalloc_sim_switch() is available. */
	bool simulated;
	/* The switch hook may serve it (rdtalloc_hook_*). */
	bool hook;
	/* CDP is fixed outside the library (resctrl's mount options): set_cdp refused. */
	bool cdp_fixed;
	/* Precedence rules it can honour: bits (1u << RDT_PREC_*); and a new state's. */
	unsigned int precedences;
	enum rdt_precedence default_precedence;
	/* Why a rule it cannot honour is refused (for the error message). */
	const char *precedence_why;
	const struct rdt_group_ops *ops;
	/*
	 * Can it run here? 0, or a negative errno with a one-line reason the
	 * user can act on. Called first.
	 */
	int (*usable)(const struct rdt_backend_env *env, char *reason, size_t len);
	/*
	 * The machine description to use when the caller gives none and no
	 * state records one (e.g. the host's detected capabilities). NULL
	 * callback: the host topology with simulated defaults ("").
	 * *desc is malloc'ed.
	 */
	int (*host_machine)(const struct rdt_backend_env *env, char **desc, char *err, size_t len);
	/*
	 * Where the backend, not the description, knows the capabilities (the
	 * kernel's resctrl): the description to build from, given the caller's
	 * (or the recorded one; NULL: none). NULL callback: the given one as is.
	 * *desc is malloc'ed.
	 */
	int (*machine_desc)(const struct rdt_backend_env *env, const char *given, char **desc,
			    char *err, size_t len);
	/* Attach to the machine; *ctx is the backend's own. */
	int (*open)(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		    char *err, size_t len);
	void (*close)(void *ctx);
	/* Where register writes go besides the state's image; NULL: nowhere. */
	const struct rdt_sink *(*sink)(void *ctx);
	/*
	 * Make the hardware hold the register image st->regs: read every
	 * register the image covers, write those that differ (all of them with
	 * RDT_RECONCILE_FIRST: the state is new). *fixed: how many were
	 * rewritten.
	 */
	int (*reconcile)(void *ctx, const struct rdt_state *st, unsigned int flags,
			 unsigned int *fixed, char *err, size_t len);
	/*
	 * Read back every register reconcile covers (flags: RDT_RECONCILE_NO_PQR)
	 * and hash what was read: *out, never 0. It tells whether the register
	 * file still reads as the last call left it, also where the values read
	 * back are not the values written (device roots of plain files, whose
	 * registers overlap byte-wise).
	 */
	int (*digest)(void *ctx, const struct rdt_state *st, unsigned int flags, uint64_t *out,
		      char *err, size_t len);
	/* Can tasks be bound now? 0 or -EOPNOTSUPP with what to do. */
	int (*task_binding)(void *ctx, char *err, size_t len);
	/*
	 * Optional, L3 monitoring on registers we write: make every CPU's
	 * PQR_ASSOC RMID field hold its group's RMID (after a change).
	 */
	int (*sync_rmids)(void *ctx, const struct rdt_state *st, char *err, size_t len);
	/*
	 * Optional: the raw IA32_QM_CTR of event (1 occupancy, 2 total, 3 local)
	 * of rmid in L3 domain index dom, flag bits included.
	 */
	int (*mon_counter)(void *ctx, unsigned int dom, unsigned int rmid, unsigned int event,
			   uint64_t *val, char *err, size_t len);
	/*
	 * Optional, counters a kernel keeps (resctrl's mon_data): of each group
	 * gs[i] in each L3 domain index d, per event e (occupancy, total,
	 * local), bytes in val[(i * ndom + d) * 3 + e] and an enum
	 * rdtalloc_mon_state in state[] at the same index. Totals are the
	 * kernel's running counts (no wrap). Errors via rdt_fail on r.
	 */
	int (*mon_read)(struct rdtalloc *r, const int *gs, unsigned int n, int *state,
			uint64_t *val);
	/*
	 * Optional: RMIDs the backend keeps from our groups (resctrl: one for
	 * each control group the kernel may hold, as each holds one).
	 */
	unsigned int (*mon_reserved)(void *ctx);
	/*
	 * Optional, Sub-NUMA Clustering's per-node counters a kernel keeps
	 * (resctrl's mon_sub_L3_NN): each group gs[i]'s, appended to nodes
	 * (monitor/telemetry.h). Errors via rdt_fail on r.
	 */
	int (*mon_read_nodes)(struct rdtalloc *r, const int *gs, unsigned int n,
			      struct rdt_nodes *nodes);
	/*
	 * Optional, package telemetry a kernel keeps (resctrl's PERF_PKG): of
	 * each group gs[i] in each package index p, per event e, the value in
	 * val[(i * npkg + p) * RDTALLOC_PKG_NEVENTS + e] and its state at the
	 * same index in state[].
	 */
	int (*pkg_read)(struct rdtalloc *r, const int *gs, unsigned int n, int *state,
			uint64_t *val);
	/*
	 * Optional, counter assignment (resctrl's mbm_event mode): the mode
	 * (enum rdtalloc_mon_assign_mode) and counters per domain, total and
	 * free (the fewest of any domain); mon_assign gives our group g its
	 * counters in every domain (on) or takes them back; *got: it holds
	 * them now (a kernel out of counters is no error: false).
	 */
	int (*mon_cntrs)(struct rdtalloc *r, int *mode, unsigned int *total, unsigned int *free);
	int (*mon_assign)(struct rdtalloc *r, int g, bool on, bool *got);
	/*
	 * Optional: give back the counters of what is ours but read by none
	 * (resctrl: our control groups' own RMIDs).
	 */
	int (*mon_reclaim)(struct rdtalloc *r);
	/*
	 * Optional, where a kernel knows more of a cache domain's ways than
	 * shareable_bits (resctrl's bit_usage, io_alloc): fill w beyond what
	 * lib/api/ways.c set from the machine. Errors via rdt_fail on r.
	 */
	int (*ways)(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
		    struct rdtalloc_ways_info *w);
	/*
	 * Optional: io_alloc on or off (on < 0: leave it), then the masks of
	 * the L3 domains (by index) where have[d] (mask NULL: leave them),
	 * checked by lib/api/ways.c. A write call where the backend is simulated
	 * (the state keeps it), else a read call.
	 */
	int (*io_alloc)(struct rdtalloc *r, int on, const uint64_t *mask, const bool *have);
	/*
	 * Optional, at the end of a write call that changed groups (hw/ops.c,
	 * the group level of sim and msr): a rule of the backend's own that the
	 * groups must keep (the simulated io_alloc: no exclusive group on its
	 * ways). 0, or -errno with errmsg set: the call is undone.
	 */
	int (*check_groups)(struct rdtalloc *r);
};

extern const struct rdt_backend rdt_backend_sim;
extern const struct rdt_backend rdt_backend_msr;
extern const struct rdt_backend rdt_backend_resctrl;

#endif
