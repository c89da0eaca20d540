// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hw ops: the group level of the backends whose registers we write
 * ourselves (sim, msr). The engine's CLOSIDs and register image are the
 * truth; the backend's sink writes them through, reconcile re-applies them
 * at open, and a failed call puts the registers back from a copy of the
 * state taken when it began. Task membership lives in the state's table,
 * or, while the switch hook serves the state, in the hook's task storage
 * (which also sees forks), with the maps mirroring the state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "errors.h"
#include "hook/hook.h"
#include "hw/txn.h"
#include "services.h"
#include "state.h"
#include "tasks.h"
#include "ways.h"

/* ---- The switch hook ------------------------------------------------------ */

static void hook_drop(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);

	rdt_hook_close(tx->hook);
	tx->hook = NULL;
	tx->hook_serves = false;
}

/*
 * A stat of the pin directory per call: the hook is loaded and unloaded by
 * other processes, and a new load is a new directory (a new inode). Pins we
 * may not open (they are root's) count as no hook.
 */
struct rdt_hook *rdt_hw_hook(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);
	char err[RDT_ERRMSG_MAX];
	struct rdt_hook *h;
	struct stat sb;

	/* a snapshot looks for the hook once, as it reads the state once */
	if ((rdt_core_flags(r) & RDTALLOC_F_SNAPSHOT) && tx->hook_checked)
		return tx->hook_serves ? tx->hook : NULL;
	tx->hook_checked = true;
	if (!rdt_core_backend(r)->hook || !rdt_core_store(r) ||
	    rdt_core_machine(r)->virtual_tasks || !rdt_hook_built() || stat(RDT_HOOK_DIR, &sb)) {
		hook_drop(r);
		return NULL;
	}
	if (!tx->hook || tx->hook_ino != (unsigned long)sb.st_ino) {
		hook_drop(r);
		if (rdt_hook_open(&h, err, sizeof(err)))
			return NULL;
		tx->hook = h;
		tx->hook_ino = (unsigned long)sb.st_ino;
		tx->hook_serves = rdt_hook_serves(h, r);
	}
	return tx->hook_serves ? tx->hook : NULL;
}

static unsigned int reconcile_flags(struct rdtalloc *r, bool first)
{
	unsigned int flags = first ? RDT_RECONCILE_FIRST : 0;

	/* the agent writes PQR_ASSOC ahead of the state's image */
	if (!first && rdt_hw_hook(r))
		flags |= RDT_RECONCILE_NO_PQR;
	return flags;
}

/*
 * The register file's digest for the state, where the backend has one and
 * the switch hook is not loaded (its agent writes PQR_ASSOC without one);
 * 0 when not known.
 */
static uint64_t regs_digest(struct rdtalloc *r)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	char err[RDT_ERRMSG_MAX];
	uint64_t d;

	if (!be->digest || rdt_hw_hook(r) ||
	    be->digest(rdt_core_backend_ctx(r), rdt_core_state(r), 0, &d, err, sizeof(err)))
		return 0;
	return d;
}

/* After a failed call: the maps back to the state in the file (best effort). */
static void hook_resync(struct rdtalloc *r)
{
	struct rdt_hook *h = rdt_hw_hook(r);
	struct rdt_state *st;
	char err[RDT_ERRMSG_MAX];

	if (!h || rdt_store_read(rdt_core_store(r), rdt_core_machine(r),
				 rdt_core_backend(r)->name, &st, err, sizeof(err)))
		return;
	rdt_hook_sync(h, st, NULL);
	rdt_state_free(st);
}

/* The live group with sequence number seq, else the default group. */
static int group_of_seq(const struct rdt_state *st, uint64_t seq)
{
	int g = seq ? rdt_group_by_seq(st, seq) : -1;

	return g < 0 ? 0 : g;
}

static uint64_t seq_of(const struct rdt_state *st, int g)
{
	return g > 0 ? st->groups[g].seq : 0;
}

/* The group of a live task from the hook's task storage, which also knows forks. */
static int hook_task_group(struct rdtalloc *r, struct rdt_hook *h, pid_t tid)
{
	uint64_t seq = 0;
	int g;

	if (rdt_hook_task_group(h, tid, &seq))
		return 0;
	g = group_of_seq(rdt_core_state(r), seq);
	/* no binding of its own: its cgroup's, as the BPF program finds it */
	return g ? g : rdt_core_cgroup_task_group(r, tid);
}

/*
 * One task's binding in the hook's task storage, remembered with what it was
 * so that abort can put it back when the call fails after all (the state
 * file not written): the storage and the file never disagree.
 */
static int hook_bind(struct rdtalloc *r, struct rdt_hook *h, pid_t tid, uint64_t start,
		     uint64_t seq)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);
	struct rdt_hook_undo *u;
	uint64_t was = 0;
	int ret;

	if (tx->nhook_undo == tx->hook_undo_cap) {
		size_t cap = tx->hook_undo_cap ? tx->hook_undo_cap * 2 : 8;

		u = realloc(tx->hook_undo, cap * sizeof(*u));
		if (!u)
			return rdt_fail(r, -ENOMEM, "out of memory");
		tx->hook_undo = u;
		tx->hook_undo_cap = cap;
	}
	ret = rdt_hook_task_group(h, tid, &was);
	if (!ret)
		ret = rdt_hook_bind_task(h, tid, start, seq);
	/* exited meanwhile: the kernel freed its storage, nothing to carry */
	if (ret == -ESRCH)
		return 0;
	if (ret)
		return rdt_fail(r, ret, "%s", rdt_hook_errmsg(h));
	tx->hook_undo[tx->nhook_undo++] = (struct rdt_hook_undo){ tid, start, was };
	return 0;
}

/* The call failed: the task storage back as it was, newest change first. */
static void hook_undo_tasks(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);
	struct rdt_hook *h = tx->nhook_undo ? rdt_hw_hook(r) : NULL;

	while (h && tx->nhook_undo) {
		const struct rdt_hook_undo *u = &tx->hook_undo[--tx->nhook_undo];

		rdt_hook_bind_task(h, u->tid, u->start, u->seq);
	}
	tx->nhook_undo = 0;
}

/* ---- The transaction ------------------------------------------------------ */

/*
 * Hardware is a function of the state: a new state programs every register
 * (all-ones, CLOSID 0); an existing one is re-applied where the registers
 * disagree with it (a crash between the two, a reboot, someone else's
 * writes), and the reason line says so once.
 */
static int hw_open(struct rdtalloc *r)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	struct rdt_store *store = rdt_core_store(r);
	struct rdt_state *st = rdt_core_state(r);
	bool fresh = rdt_core_fresh(r);
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int fixed = 0;
	uint64_t d = 0;
	int ret;

	if (!be->reconcile || rdt_core_peek(r))
		return 0;
	/* read only: the registers are read, not repaired; what differs is said */
	if (rdt_core_read_only(r)) {
		if (st->regs.digest && regs_digest(r) != st->regs.digest)
			rdt_core_reason_add(r, "; the registers differ from the state (read only: "
					    "the next change re-applies them)");
		return 0;
	}
	if (store) {
		/* exclusive: a new digest is written back */
		ret = rdt_store_lock(store, true);
		if (ret)
			return rdt_fail(NULL, ret, "cannot lock %s", rdt_store_path(store));
		/* reads back as the last call left it: nothing changed behind our back */
		if (!fresh && st->regs.digest && (d = regs_digest(r)) == st->regs.digest) {
			rdt_store_unlock(store);
			return 0;
		}
	}
	ret = be->reconcile(rdt_core_backend_ctx(r), st, reconcile_flags(r, fresh), &fixed, err,
			    sizeof(err));
	if (!ret && store && (fixed || d != st->regs.digest)) {
		st->regs.digest = regs_digest(r);
		ret = rdt_store_write(store, st, be->name, err, sizeof(err));
		if (ret) {
			rdt_store_unlock(store);
			return rdt_fail(NULL, ret, "%s", err);
		}
	}
	if (store)
		rdt_store_unlock(store);
	if (ret)
		return rdt_fail(NULL, ret, "backend %s: %s", be->name, err);
	if (fixed && !fresh)
		rdt_core_reason_add(r, "; %u registers disagreed with the state and were "
				    "re-applied", fixed);
	return 0;
}

/*
 * The agent's sync on registers we write ourselves: where they no longer
 * read back as the state left them (another tool's wrmsr), the image is
 * written again - what an open does, inside a write call.
 */
static int hw_sync(struct rdtalloc *r, bool full, struct rdt_sync_out *out)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	struct rdt_state *st = rdt_core_state(r);
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int fixed = 0;
	int ret;

	if (!be->reconcile || !rdt_core_sink(r))
		return 0;
	if (!full && st->regs.digest && regs_digest(r) == st->regs.digest)
		return 0;
	ret = be->reconcile(rdt_core_backend_ctx(r), st, reconcile_flags(r, false), &fixed, err,
			    sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "backend %s: %s", be->name, err);
	out->repairs = fixed;
	if (fixed)
		snprintf(out->what, sizeof(out->what), "%u register%s disagreed with the state "
			 "and %s re-applied", fixed, fixed == 1 ? "" : "s",
			 fixed == 1 ? "was" : "were");
	if (rdt_core_store(r) && regs_digest(r) != st->regs.digest)
		out->state_changed = true;	/* the new digest is written with the state */
	return 0;
}

/* Registers that no longer read back as the state left them (another tool's wrmsr). */
static int hw_drift(struct rdtalloc *r, int (*cb)(const char *group, const char *what, void *arg),
		    void *arg)
{
	const struct rdt_state *st = rdt_core_state(r);

	if (!rdt_core_backend(r)->reconcile || !rdt_core_sink(r) || !st->regs.digest ||
	    regs_digest(r) == st->regs.digest)
		return 0;
	return cb("", "the registers differ from the state (another tool wrote them): the next "
		  "change re-applies them", arg);
}

static void hw_close(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);

	hook_drop(r);
	free(tx->hook_undo);
	tx->hook_undo = NULL;
}

/*
 * Where writes reach real registers, keep the state as it was before the
 * call: if a register write fails half-way, the registers already written
 * are put back from it, so no domain is left half-programmed. And what the
 * hook's maps hold now: commit pushes only the difference.
 */
static int hw_begin(struct rdtalloc *r, bool write)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);

	if (!write)
		return 0;
	if (rdt_core_sink(r) && rdt_state_clone(rdt_core_state(r), &tx->undo))
		return rdt_fail(r, -ENOMEM, "out of memory");
	if (rdt_hw_hook(r))
		rdt_hook_snap_take(rdt_core_state(r), &tx->hook_before);
	return 0;
}

/* The maps first: a failure there still leaves the state file as it was. */
static int hw_commit(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);
	const struct rdt_backend *be = rdt_core_backend(r);
	struct rdt_state *st = rdt_core_state(r);
	bool groups = rdt_core_groups_changed(r);
	struct rdt_hook *h;
	int ret;

	/* the backend's own rule (the simulated io_alloc: no exclusive group on its ways) */
	if (groups && be->check_groups && (ret = be->check_groups(r)))
		return ret;
	if ((groups || rdt_core_cgroups_changed(r)) && (h = rdt_hw_hook(r))) {
		tx->hook_synced = true;
		ret = rdt_hook_sync(h, st, tx->hook_before);
		if (ret)
			return rdt_fail(r, ret, "%s", rdt_hook_errmsg(h));
	}
	/* where the switch hook serves, its agent writes the RMIDs with the CLOSIDs */
	if (groups && be->sync_rmids && !(reconcile_flags(r, false) & RDT_RECONCILE_NO_PQR)) {
		char err[RDT_ERRMSG_MAX] = "";

		ret = be->sync_rmids(rdt_core_backend_ctx(r), st, err, sizeof(err));
		if (ret)
			return rdt_fail(r, ret, "%s", err);
	}
	if (rdt_core_sink(r) && rdt_core_store(r))
		st->regs.digest = regs_digest(r);
	return 0;
}

/* A write failed: registers back to the undo image, the state back to it. */
static void hw_abort(struct rdtalloc *r, bool committed)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);
	const struct rdt_backend *be = rdt_core_backend(r);
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int fixed = 0;

	(void)committed;
	if (tx->undo) {
		if (be->reconcile)
			be->reconcile(rdt_core_backend_ctx(r), tx->undo, reconcile_flags(r, false),
				      &fixed, err, sizeof(err));
		tx->undo->sink = rdt_core_sink(r);
		rdt_state_free(rdt_core_swap_state(r, tx->undo));
		tx->undo = NULL;
	}
	if (tx->hook_synced && rdt_core_store(r))
		hook_resync(r);
	hook_undo_tasks(r);
}

static void hw_finish(struct rdtalloc *r)
{
	struct rdt_hw_txn *tx = rdt_core_hw_txn(r);

	tx->nhook_undo = 0;
	tx->hook_synced = false;
	rdt_hook_snap_free(tx->hook_before);
	tx->hook_before = NULL;
	rdt_state_free(tx->undo);
	tx->undo = NULL;
}

/* ---- Tasks ------------------------------------------------------------------ */

static int hw_tasks_allowed(struct rdtalloc *r)
{
	char why[RDT_ERRMSG_MAX] = "";
	int ret;

	if (!rdt_core_backend(r)->task_binding || rdt_hw_hook(r))
		return 0;
	ret = rdt_core_backend(r)->task_binding(rdt_core_backend_ctx(r), why, sizeof(why));
	return ret ? rdt_fail(r, ret, "%s", why) : 0;
}

/* The state's table has it already; the hook's task storage too, when it serves. */
static int hw_bind_task(struct rdtalloc *r, int g, pid_t tid, uint64_t start)
{
	struct rdt_hook *h = rdt_hw_hook(r);

	return h ? hook_bind(r, h, tid, start, seq_of(rdt_core_state(r), g)) : 0;
}

static int hw_carry_tasks(struct rdtalloc *r, const struct rdt_state *old)
{
	const struct rdt_state *st = rdt_core_state(r);
	const struct rdt_task_map *nm = &st->tasks, *om = &old->tasks;
	struct rdt_hook *h = rdt_hw_hook(r);
	size_t i, k;
	int ret = 0;

	if (!h)
		return 0;
	/* pass 0: bindings of the new state that differ; pass 1: those it dropped */
	for (k = 0; k < 2 && !ret; k++) {
		const struct rdt_task_map *a = k ? om : nm, *b = k ? nm : om;

		for (i = 0; i < a->cap && !ret; i++) {
			const struct rdt_task *t = &a->slots[i], *u;

			if (!t->tid)
				continue;
			u = rdt_task_map_get(b, t->tid);
			if (k == 0 && u && seq_of(old, u->group) == seq_of(st, t->group))
				continue;
			if (k == 1 && u)
				continue;
			/* a failure is undone by abort, with the others */
			ret = hook_bind(r, h, t->tid, t->start, k ? 0 : seq_of(st, t->group));
		}
	}
	return ret;
}

static int hw_group_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	struct rdt_hook *h = rdt_hw_hook(r);
	int ret;

	/* the hook's iterator: live tasks only, forked children included */
	if (h) {
		ret = rdt_hook_tasks(h, seq_of(rdt_core_state(r), g), out, n);
		return ret ? rdt_fail(r, ret, "%s", rdt_hook_errmsg(h)) : 0;
	}
	return rdt_core_table_tasks(r, g, out, n);
}

static int hw_task_group(struct rdtalloc *r, pid_t tid, uint64_t start, int *g)
{
	struct rdt_hook *h = rdt_hw_hook(r);

	*g = h ? hook_task_group(r, h, tid) : rdt_core_table_group(r, tid, start);
	return 0;
}

static int hw_effective_closid(struct rdtalloc *r, int cpu, pid_t tid, bool stale,
			       unsigned int *closid)
{
	const struct rdt_state *st = rdt_core_state(r);
	struct rdt_hook *h = tid ? rdt_hw_hook(r) : NULL;
	int g;

	if (h) {
		/* the task storage knows forked children the state's table does not */
		g = rdt_precedence_group(st, cpu, hook_task_group(r, h, tid));
		*closid = st->groups[g].closid[st->cpu_adom[cpu]];
	} else {
		const struct rdt_task *t = tid && !stale ? rdt_task_map_get(&st->tasks, tid) : NULL;

		g = t ? t->group : tid ? rdt_core_cgroup_task_group(r, tid) : 0;
		g = rdt_precedence_group(st, cpu, g);
		*closid = st->groups[g].closid[st->cpu_adom[cpu]];
	}
	return 0;
}

static int hw_group_closid(struct rdtalloc *r, int g, unsigned int adom, unsigned int *closid)
{
	*closid = rdt_core_state(r)->groups[g].closid[adom];
	return 0;
}

/* The engine's CLOSID table of the domain's allocation domain. */
static int hw_closids(struct rdtalloc *r, int res, int dom, struct rdtalloc_closid_info *out,
		      size_t max)
{
	const struct rdt_slot *sl = &rdt_core_state(r)->slot[rdt_core_state(r)->slot_of[res][dom]];
	const struct rdt_adom *a = &rdt_core_state(r)->adom[sl->adom];
	unsigned int k;
	int n = 0;

	for (k = 0; k < a->nclos; k++) {
		const uint64_t *key = &a->key[((size_t)k * a->nslots + sl->pos) * 2];

		if (!a->refcount[k])
			continue;
		if ((size_t)n < max) {
			out[n].closid = k;
			out[n].mask = key[0];
			out[n].code_mask = key[1];
			out[n].refcount = a->refcount[k];
		}
		n++;
	}
	return n;
}

static int hw_sim_switch_allowed(struct rdtalloc *r)
{
	if (!rdt_core_backend(r)->simulated)
		return rdt_fail(r, -EOPNOTSUPP, "backend %s runs real tasks: context switches "
				"are simulated only by the sim backend", rdt_core_backend(r)->name);
	if (rdt_hw_hook(r))
		return rdt_fail(r, -EBUSY, "the switch hook follows the real context switches "
				"on this state (rdtctl hook status); simulated ones would fight "
				"its agent: stop it first (rdtctl hook stop)");
	return 0;
}

const struct rdt_group_ops rdt_hw_group_ops = {
	.open = hw_open,
	.close = hw_close,
	.begin = hw_begin,
	.sync = hw_sync,
	.drift = hw_drift,
	.commit = hw_commit,
	.abort = hw_abort,
	.finish = hw_finish,
	.tasks_allowed = hw_tasks_allowed,
	.bind_task = hw_bind_task,
	.carry_tasks = hw_carry_tasks,
	.group_tasks = hw_group_tasks,
	.task_group = hw_task_group,
	.effective_closid = hw_effective_closid,
	.group_closid = hw_group_closid,
	.closids = hw_closids,
	.sim_switch_allowed = hw_sim_switch_allowed,
};
