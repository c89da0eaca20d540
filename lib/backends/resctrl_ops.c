// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, the group operations the core calls (open, sync, drift, task and CPU answers).
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

/* ---- Group ops ----------------------------------------------------------------- */

/*
 * Bindings of tasks that have exited: the kernel dropped them from its
 * tasks files; the state drops them too. Returns how many.
 */
static unsigned int drop_exited(struct rdtalloc *r)
{
	struct rdt_task_map *tm = &rc_st(r)->tasks;
	unsigned int dropped = 0;
	size_t i = 0;

	while (i < tm->cap) {
		struct rdt_task *t = &tm->slots[i];

		if (t->tid && !rdt_core_binding_alive(r, t)) {
			rdt_forget_task(rc_st(r), t->tid);	/* shifts a later entry here */
			dropped++;
			continue;
		}
		i++;
	}
	return dropped;
}

/*
 * The reason line's resctrl part: the CLOSIDs in use as the open left them
 * (c->ours, c->foreign), then what the open found. ro: found, not acted on.
 */
static void say_open(struct rdtalloc *r, bool adopted, unsigned int exited, unsigned int gone,
		     unsigned int moved, const char *moved_where, const char *kernel)
{
	struct rc_ctx *c = ctx_of(r);
	bool ro = rdt_core_read_only(r);
	unsigned int free_ids;

	free_ids = c->num_closids > c->ours + 1 + c->foreign ?
		   c->num_closids - c->ours - 1 - c->foreign : 0;
	rdt_core_reason_add(r, "; resctrl at %s%s%s: CLOSIDs in use: the root, %u group%s of "
			    "ours, %u not ours%s; %u free of %u%s", c->root,
			    c->cdp[RDT_L3] ? " (CDP on)" : "",
			    c->mba_mbps ? " (mba_MBps: MB in MBps)" : "", c->ours,
			    c->ours == 1 ? "" : "s", c->foreign, c->foreign_names, free_ids,
			    c->num_closids, kernel);
	if (adopted)
		rdt_core_reason_add(r, "%s", ro ?
				    "; the root group's schemata were set outside this state "
				    "(shown as the default group's; the next change adopts them)" :
				    "; the root group's schemata, set outside this state, were "
				    "adopted as the default group's schema");
	if (exited)
		rdt_core_reason_add(r, "; %u bound task%s had exited and %s", exited,
				    exited == 1 ? "" : "s",
				    ro ? "is not shown (read only: the next change drops it)" :
				    exited == 1 ? "was dropped" : "were dropped");
	if (gone)
		rdt_core_reason_add(r, "; %u bound cgroup%s had been removed and %s", gone,
				    gone == 1 ? "" : "s",
				    ro ? "is not shown (read only: the next change drops it)" :
				    gone == 1 ? "was dropped" : "were dropped");
	if (moved)
		rdt_core_reason_add(r, "; %u bound task%s had been moved by another tool%s and %s",
				    moved, moved == 1 ? "" : "s", moved_where,
				    ro ? (moved == 1 ? "its binding goes at the next change" :
					  "their bindings go at the next change") :
				    (moved == 1 ? "its binding was dropped" :
				     "their bindings were dropped"));
}

/*
 * Read only: where does the kernel differ from the state? Our control
 * groups missing, left over, or holding other schemata or CPUs. Nothing
 * is written; a kernel that cannot hold the state at all says why.
 */
static void describe_drift(struct rdtalloc *r, char *buf, size_t len)
{
	struct rc_view v = { 0 }, bv = { 0 };
	unsigned int k, d, missing = 0, stale = 0, changed = 0, nomon = 0;
	char *text = NULL, *cpus = NULL, monpart[48] = "";
	struct rc_mons *mons = NULL;
	int g;

	buf[0] = '\0';
	if (rc_plan(r, rc_st(r), NULL, &v, &bv)) {
		snprintf(buf, len, "the kernel cannot hold the state now: %s",
			 rdtalloc_errmsg(r));
		goto out;
	}
	for (k = 0; k < v.ncls; k++) {
		const struct rc_dir *dir;

		if (v.cls[k].dir < 0) {
			missing++;
			continue;
		}
		dir = &v.dirs[v.cls[k].dir];
		if (!dir->key_ok || memcmp(dir->key, v.cls[k].key, v.nkey * sizeof(uint64_t))) {
			changed++;
			continue;
		}
		if (rc_class_cpus(r, &v, (int)k, &cpus) || rc_read_small(r, dir->name, "cpus_list", &text)) {
			changed++;
		} else if (!rc_same_cpus(text, cpus)) {
			changed++;
		}
		free(text);
		free(cpus);
		text = cpus = NULL;
	}
	for (d = 0; d < v.ndirs; d++)
		stale += v.dirs[d].ours && v.dirs[d].remove;
	/* a MON group of ours removed (a monitoring tool's cleanup, an rmdir) */
	if (ctx_of(r)->mon && (mons = calloc(v.ncls + 1, sizeof(*mons)))) {
		for (k = 0; k <= v.ncls; k++)
			if ((k == 0 || v.cls[k - 1].dir >= 0) &&
			    rc_list_mons(r, rc_dir_name(&v, (int)k - 1), &mons[k]))
				break;
		for (g = 1; k > v.ncls && g < (int)rc_st(r)->ngroups; g++) {
			const char *name = mon_of(r, rc_st(r), g);
			int kc = v.cls_of[g];

			if (rc_st(r)->groups[g].live && *name && (kc < 0 || v.cls[kc].dir >= 0) &&
			    !rc_mons_has(&mons[kc + 1], name))
				nomon++;
		}
	}
	/* the CLOSIDs in use as the kernel has them */
	ctx_of(r)->ours = v.nours;
	ctx_of(r)->foreign = v.nforeign;
	rc_names_not_ours(&v, ctx_of(r)->foreign_names, sizeof(ctx_of(r)->foreign_names));
	if (nomon)
		snprintf(monpart, sizeof(monpart), ", %u monitoring group%s missing", nomon,
			 nomon == 1 ? "" : "s");
	if (missing || stale || changed || nomon)
		snprintf(buf, len, "the kernel disagrees with the state (%u control group%s of ours "
			 "missing, %u left over, %u with other schemata or CPUs%s%s)", missing,
			 missing == 1 ? "" : "s", stale, changed, monpart, rdt_core_read_only(r) ?
			 "; read only: the next change brings it back" : "");
out:
	rdt_clear_err(r);
	rc_mons_free(mons, v.ncls + 1);
	rc_view_free(&v);
	rc_view_free(&bv);
}

/*
 * A read-only open (RDTALLOC_F_READ_ONLY): the state as the kernel would
 * show it - the root's schemata as the default group's, exited tasks and
 * removed cgroups gone - in memory only, and what differs said.
 */
static int rc_open_ro(struct rdtalloc *r)
{
	char drift[384] = "; ", where[192];
	unsigned int exited, gone, moved = 0;
	bool adopted = false;
	int ret;

	exited = drop_exited(r);
	gone = rdt_core_cgroup_gc(r);
	ret = rc_adopt_root(r, &adopted);
	if (!ret)
		ret = rc_drop_moved(r, &moved, where, sizeof(where));
	if (ret)
		return rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
	describe_drift(r, drift + 2, sizeof(drift) - 2);
	say_open(r, adopted, exited, gone, moved, where, drift[2] ? drift : "");
	return 0;
}

int rc_open_ops(struct rdtalloc *r)
{
	struct rdt_store *store = rdt_core_store(r);
	bool fresh = rdt_core_fresh(r);
	struct rc_ctx *c = ctx_of(r);
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int res, exited = 0, gone = 0, moved = 0;
	char where[192] = "";
	bool adopted = false;
	int ret;

	snprintf(c->prefix, sizeof(c->prefix), "%s%s%s", RC_PREFIX, rc_st(r)->id,
		 rc_st(r)->id[0] ? "-" : "");
	c->numbered = !rc_st(r)->id[0];
	/* CDP is how resctrl was mounted: a new state has it as the kernel does */
	for (res = 0, ret = 0; fresh && !ret && res < RDT_NRES; res++)
		if (c->cdp[res] && !rc_st(r)->cdp[res] && rdt_set_cdp(rc_st(r), res, true))
			ret = rdt_fail(NULL, -EINVAL, "resctrl: %s", rc_st(r)->err);
	/* a look at a new state: the kernel is not ours to change */
	if (ret || rdt_core_peek(r))
		return ret;
	if (rdt_core_read_only(r))
		return rc_open_ro(r);
	if (store && (ret = rdt_store_lock(store, true))) {
		rdt_fail(NULL, ret, "cannot lock %s", rdt_store_path(store));
		return ret;
	}
	if (!ret)
		exited = drop_exited(r);
	if (!ret)
		gone = rdt_core_cgroup_gc(r);
	if (!ret)
		ret = rc_lock(r);
	if (!ret)
		ret = rc_adopt_root(r, &adopted);
	/* before realise: our own moves must not look like another tool's */
	if (!ret)
		ret = rc_drop_moved(r, &moved, where, sizeof(where));
	if (!ret)
		ret = rc_realise(r, NULL);
	/* what was done, from the undo log: said by the first sync (agent, rdtctl sync) */
	c->open_what[0] = '\0';
	c->open_repairs = c->open_moved = 0;
	/* tasks placed by the open alone (joins while no agent ran) are counted too */
	if (!ret && !fresh)
		c->open_moved = c->moved;
	if (!ret && !fresh && c->changes > c->moved) {
		char done[384];

		rc_describe_done(c, done, sizeof(done));
		c->open_repairs = c->changes - c->moved;
		snprintf(c->open_what, sizeof(c->open_what), "resctrl differed from the state: %s",
			 done);
	}
	if (ret)
		rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
	if (!ret && store && (fresh || c->changes || exited || gone || adopted || moved)) {
		ret = rdt_store_write(store, rc_st(r), rdt_core_backend(r)->name, err, sizeof(err));
		if (ret)
			rdt_fail(NULL, ret, "%s", err);
	}
	rc_undo_free(c);
	rc_unlock(r);
	if (store)
		rdt_store_unlock(store);
	if (ret)
		return ret;
	rdt_clear_err(r);
	say_open(r, adopted, exited, gone, moved, where, c->changes && !fresh ?
		 "; the kernel disagreed with the state and was brought back to it" : "");
	return 0;
}

void rc_close_ops(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	if (!c)
		return;
	rc_undo_free(c);
	free(c->undo);
	c->undo = NULL;
	c->cap_undo = 0;
	free(c->place_dir);
	c->place_dir = NULL;
	c->place_n = 0;
	c->place_ok = false;
	rdt_state_free(c->before);
	c->before = NULL;
	rc_strays_free(c);
}

int rc_begin(struct rdtalloc *r, bool write)
{
	struct rc_ctx *c = ctx_of(r);

	if (write && rdt_state_clone(rc_st(r), &c->before))
		return rdt_fail(r, -ENOMEM, "out of memory");
	return 0;
}

/* The lock is held until rc_finish: an undo after a failed state write is part of it. */
int rc_commit(struct rdtalloc *r)
{
	int ret = rc_lock(r);

	return ret ? ret : rc_realise(r, ctx_of(r)->before);
}

void rc_abort(struct rdtalloc *r, bool committed)
{
	if (committed)
		rc_undo_replay(r);
}

void rc_finish(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	/* a call may lock twice (a sync, then its commit): it ends with none */
	while (c->lock_depth)
		rc_unlock(r);
	rc_undo_free(c);
	rdt_state_free(c->before);
	c->before = NULL;
}

/*
 * The agent's sync (rdtalloc_sync): what an open does to a kernel that
 * changed behind our back, inside a write call - exited tasks and removed
 * cgroups dropped, the root adopted, bindings another tool moved dropped,
 * and, when the kernel differs from the state or full is asked, realise:
 * our control and MON groups, schemata and CPUs back, every bound
 * cgroup's tasks placed. The resctrl lock is held until finish.
 */
int rc_sync(struct rdtalloc *r, bool full, struct rdt_sync_out *out)
{
	struct rc_ctx *c = ctx_of(r);
	char drift[384] = "", where[192] = "";
	unsigned int exited, gone, moved = 0, enforced = 0;
	bool adopted = false;
	size_t n;
	int ret;

	exited = drop_exited(r);
	gone = rdt_core_cgroup_gc(r);
	ret = rc_lock(r);
	if (!ret)
		ret = rc_adopt_root(r, &adopted);
	if (!ret)
		ret = rc_drop_moved(r, &moved, where, sizeof(where));
	/* full or not, the same answer for tasks in another tool's control group */
	c->syncing = true;
	if (!ret)
		ret = rc_find_strays(r, &enforced);
	if (!ret)
		describe_drift(r, drift, sizeof(drift));
	out->dropped = exited + gone + moved;
	out->state_changed = exited || gone || adopted || moved;
	if (!ret && (drift[0] || full || out->state_changed || enforced))
		ret = rc_realise(r, NULL);
	c->syncing = false;
	if (ret) {
		rc_strays_free(c);	/* nothing is reported: the call fails, and is undone */
		return ret;
	}
	if (drift[0] || full || out->state_changed || enforced) {
		out->moved = c->moved;
		out->repairs = c->changes - c->moved;
	}
	n = 0;
	/* what this context's open repaired, said once */
	out->repairs += c->open_repairs;
	out->moved += c->open_moved;
	c->open_repairs = c->open_moved = 0;
	if (c->open_what[0]) {
		n += (size_t)snprintf(out->what, sizeof(out->what), "%s", c->open_what);
		c->open_what[0] = '\0';
	}
	if (drift[0] && c->changes > c->moved && n < sizeof(out->what)) {
		char done[320];

		rc_describe_done(c, done, sizeof(done));
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%s: %s",
				      n ? "; " : "", drift, done);
	}
	if (adopted && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%sthe root group's "
				      "schemata, set outside this state, were adopted",
				      n ? "; " : "");
	if (exited && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound task%s "
				      "had exited", n ? "; " : "", exited, exited == 1 ? "" : "s");
	if (gone && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound cgroup%s "
				      "had been removed", n ? "; " : "", gone, gone == 1 ? "" : "s");
	if (moved && n < sizeof(out->what))
		snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound task%s had been moved "
			 "by another tool%s: binding dropped", n ? "; " : "", moved,
			 moved == 1 ? "" : "s", where);
	rc_say_strays(r, out->what, sizeof(out->what), &out->strays_left, &out->strays_moved);
	return 0;
}

/*
 * Tasks that just joined a cgroup (the agent's events): each written into
 * its group's control group and MON group now, when the state puts it in a
 * group other than the default. A task the state leaves to the default
 * group is not moved here (the next sync does: where it is may be another
 * tool's group). Writes the kernel takes as they come: placing a task
 * twice is harmless, an exited one is skipped.
 */
/*
 * Where each group's tasks go - its class's control group, "" for none made
 * yet - from a plan of the kernel as it is, kept until the state changes:
 * joins come in bursts, and a plan reads every control group's schemata.
 */
static int place_map(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_view v = { 0 }, bv = { 0 };
	unsigned int g;
	int ret;

	if (c->place_ok && c->place_gen == rdt_core_state_gen(r) && c->place_n == rc_st(r)->ngroups)
		return 0;
	c->place_ok = false;
	ret = rc_plan(r, rc_st(r), NULL, &v, &bv);
	if (!ret && c->place_n != rc_st(r)->ngroups) {
		void *nd = realloc(c->place_dir, (rc_st(r)->ngroups + 1) * sizeof(*c->place_dir));

		if (!nd)
			ret = rdt_fail(r, -ENOMEM, "out of memory");
		else
			c->place_dir = nd;
	}
	for (g = 0; !ret && g < rc_st(r)->ngroups; g++) {
		int k = v.cls_of[g];

		snprintf(c->place_dir[g], sizeof(c->place_dir[g]), "%s",
			 g > 0 && k >= 0 && v.cls[k].dir >= 0 ? rc_dir_name(&v, k) : "");
	}
	if (!ret) {
		c->place_n = rc_st(r)->ngroups;
		c->place_gen = rdt_core_state_gen(r);
		c->place_ok = true;
	}
	rc_view_free(&v);
	rc_view_free(&bv);
	return ret;
}

int rc_place_tasks(struct rdtalloc *r, const pid_t *tids, size_t n, unsigned int *moved)
{
	struct rc_ctx *c = ctx_of(r);
	size_t i;
	int ret;

	*moved = 0;
	ret = rc_lock(r);
	if (!ret)
		ret = place_map(r);
	for (i = 0; !ret && i < n; i++) {
		char text[24], md[RC_MON_DIR_MAX];
		const char *to, *to_mon;
		int g = rc_bound_group(r, rc_st(r), tids[i]);

		if (g < 0)
			g = rdt_core_cgroup_task_group(r, tids[i]);
		if (g <= 0 || !c->place_dir[g][0])
			continue;	/* default, or its class not made yet: the sync's */
		to = c->place_dir[g];
		to_mon = mon_of(r, rc_st(r), g);
		snprintf(text, sizeof(text), "%d\n", (int)tids[i]);
		/* a MON group takes only its control group's tasks: there first */
		ret = rc_write_file(r, to, "tasks", text);
		if (!ret && *to_mon) {
			mon_dir(to, to_mon, md, sizeof(md));
			ret = rc_write_file(r, md, "tasks", text);
		}
		if (ret == -ENOENT) {
			/* our directory gone behind our back: the next sync makes it again */
			c->place_ok = false;
			ret = 0;
			continue;
		}
		if (ret == -ESRCH) {
			ret = 0;	/* exited meanwhile */
			continue;
		}
		if (!ret)
			(*moved)++;
	}
	return ret;
}

/*
 * rdtalloc_drift: each object of ours the kernel does not hold as the state
 * says - the same comparison as describe_drift, item by item, for the
 * looks that mark it. cb returns non-zero to stop.
 */
int rc_drift(struct rdtalloc *r, int (*cb)(const char *group, const char *what, void *arg),
		    void *arg)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_view v = { 0 }, bv = { 0 };
	struct rc_mons *mons = NULL;
	char what[192], *text = NULL, *cpus = NULL;
	unsigned int k, d, i;
	int ret, g;

	ret = rc_plan(r, rc_st(r), NULL, &v, &bv);
	if (ret) {
		snprintf(what, sizeof(what), "the kernel cannot hold the state now: %.150s",
			 rdtalloc_errmsg(r));
		rdt_clear_err(r);
		return cb("", what, arg);
	}
	for (k = 0; !ret && k < v.ncls; k++) {
		const struct rc_dir *dir = v.cls[k].dir >= 0 ? &v.dirs[v.cls[k].dir] : NULL;
		const char *why = NULL;

		if (!dir) {
			why = "its control group is missing";
		} else if (!dir->key_ok || memcmp(dir->key, v.cls[k].key, v.nkey * sizeof(uint64_t))) {
			why = "its control group holds other schemata";
		} else if (rc_class_cpus(r, &v, (int)k, &cpus) ||
			   rc_read_small(r, dir->name, "cpus_list", &text) || !rc_same_cpus(text, cpus)) {
			why = "its control group holds other CPUs";
		}
		free(text);
		free(cpus);
		text = cpus = NULL;
		rdt_clear_err(r);
		for (i = 0; why && !ret && i < v.cls[k].ngroups; i++) {
			snprintf(what, sizeof(what), "%s%s%s", why, dir ? " (" : "",
				 dir ? dir->name : "");
			if (dir)
				snprintf(what + strlen(what), sizeof(what) - strlen(what), ")");
			ret = cb(rc_st(r)->groups[v.cls[k].groups[i]].name, what, arg);
		}
	}
	for (d = 0; !ret && d < v.ndirs; d++) {
		if (v.dirs[d].ours && v.dirs[d].remove) {
			snprintf(what, sizeof(what), "control group %s is ours but no group has its "
				 "schemata: left over", v.dirs[d].name);
			ret = cb("", what, arg);
		}
	}
	if (!ret && c->mon && (mons = calloc(v.ncls + 1, sizeof(*mons)))) {
		for (k = 0; k <= v.ncls; k++)
			if ((k == 0 || v.cls[k - 1].dir >= 0) &&
			    rc_list_mons(r, rc_dir_name(&v, (int)k - 1), &mons[k]))
				break;
		rdt_clear_err(r);
		for (g = 1; k > v.ncls && !ret && g < (int)rc_st(r)->ngroups; g++) {
			const char *name = mon_of(r, rc_st(r), g);
			int kc = v.cls_of[g];

			if (rc_st(r)->groups[g].live && *name && (kc < 0 || v.cls[kc].dir >= 0) &&
			    !rc_mons_has(&mons[kc + 1], name))
				ret = cb(name, "its monitoring group is missing", arg);
		}
	}
	rc_mons_free(mons, v.ncls + 1);
	rc_view_free(&v);
	rc_view_free(&bv);
	return ret;
}

/* A dry run: would the kernel take st now? The checks rc_realise() makes before writing. */
int rc_check(struct rdtalloc *r, const struct rdt_state *st, int *group)
{
	struct rc_view v = { 0 }, bv = { 0 };
	int ret;

	ctx_of(r)->fail_group = -1;
	ret = rc_plan(r, st, rc_st(r), &v, &bv);
	*group = ret ? ctx_of(r)->fail_group : -1;
	rc_view_free(&v);
	rc_view_free(&bv);
	return ret;
}

int rc_tasks_allowed(struct rdtalloc *r)
{
	(void)r;
	return 0;
}

/* The binding is in the state's table; commit moves the task in the kernel. */
int rc_bind_task(struct rdtalloc *r, int g, pid_t tid, uint64_t start)
{
	(void)r, (void)g, (void)tid, (void)start;
	return 0;
}

int rc_carry_tasks(struct rdtalloc *r, const struct rdt_state *old)
{
	(void)r, (void)old;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int rc_group_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	struct rc_view v;
	size_t i, k = 0;
	pid_t *tids = NULL;
	int ret, cls;

	if (g == 0) {
		ret = rc_read_tasks(r, "", out, n);
		if (!ret)
			qsort(*out, *n, sizeof(pid_t), cmp_pid);
		return ret;
	}
	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	cls = v.cls_of[g];
	if (cls >= 0 && v.cls[cls].dir < 0) {
		rc_view_free(&v);	/* its control group is missing: the kernel lists none */
		*out = NULL;
		*n = 0;
		return 0;
	}
	ret = rc_read_tasks(r, v.dirs[v.cls[cls].dir].name, &tids, n);
	for (i = 0; !ret && i < *n; i++)
		if (rc_attribute(r, rc_st(r), &v, cls, tids[i]) == g)
			tids[k++] = tids[i];
	rc_view_free(&v);
	if (ret)
		return ret;
	qsort(tids, k, sizeof(pid_t), cmp_pid);
	*out = tids;
	*n = k;
	return 0;
}

/* The directory the kernel lists tid in (index into v.dirs), -1: the root or not ours. */
static int find_listing(struct rdtalloc *r, const struct rc_view *v, pid_t tid, int first,
			int *where)
{
	unsigned int d;
	pid_t *tids;
	size_t n;
	int ret;

	*where = -1;
	for (d = 0; d < v->ndirs; d++) {
		int i = d == 0 ? first : (int)d - (d <= (unsigned int)first ? 1 : 0);

		if (first < 0)
			i = (int)d;
		if (i < 0 || !v->dirs[i].ours || v->dirs[i].cls < 0)
			continue;
		ret = rc_read_tasks(r, v->dirs[i].name, &tids, &n);
		if (ret)
			return ret;
		if (rc_listed(tids, n, tid))
			*where = i;
		free(tids);
		if (*where >= 0)
			return 0;
	}
	return 0;
}

int rc_task_group(struct rdtalloc *r, pid_t tid, uint64_t start, int *g)
{
	struct rc_view v;
	int ret, bg, where;

	(void)start;
	*g = 0;
	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	bg = rc_bound_group(r, rc_st(r), tid);
	ret = find_listing(r, &v, tid, bg > 0 && v.cls_of[bg] >= 0 ? v.cls[v.cls_of[bg]].dir : -1,
			   &where);
	if (!ret && where >= 0)
		*g = rc_attribute(r, rc_st(r), &v, v.dirs[where].cls, tid);
	rc_view_free(&v);
	return ret;
}

int rc_effective_closid(struct rdtalloc *r, int cpu, pid_t tid, bool stale,
			       unsigned int *closid)
{
	struct rc_view v;
	int ret, tg = 0;

	(void)stale;
	if (tid) {
		ret = rc_task_group(r, tid, 0, &tg);
		if (ret)
			return ret;
	}
	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	ret = rc_class_number(r, &v, rdt_precedence_group(rc_st(r), cpu, tg), closid);
	rc_view_free(&v);
	return ret;
}

int rc_group_closid(struct rdtalloc *r, int g, unsigned int adom, unsigned int *closid)
{
	struct rc_view v;
	int ret;

	(void)adom;
	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	ret = rc_class_number(r, &v, g, closid);
	rc_view_free(&v);
	return ret;
}

/* One control group per class: its number, its masks in this domain, its groups; by number. */
int rc_closids(struct rdtalloc *r, int res, int dom, struct rdtalloc_closid_info *out,
		      size_t max)
{
	unsigned int s = rc_st(r)->slot_of[res][dom], k;
	struct rc_view v;
	int ret, n = 0;

	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	for (k = 0; k <= v.ncls; k++) {
		const uint64_t *key = k ? v.cls[k - 1].key : v.keys;

		if (k && v.cls[k - 1].dir < 0)
			continue;	/* no control group: no CLOSID in the kernel (drift) */
		if ((size_t)n < max) {
			out[n].closid = k;	/* rc_class_number's */
			out[n].mask = key[s * 2];
			out[n].code_mask = rc_st(r)->cdp[res] ? key[s * 2 + 1] : key[s * 2];
			out[n].refcount = k ? v.cls[k - 1].ngroups : 1;
		}
		n++;
	}
	rc_view_free(&v);
	return n;	/* ascending by number, as the other backends list CLOSIDs */
}

int rc_sim_switch_allowed(struct rdtalloc *r)
{
	return rdt_fail(r, -EOPNOTSUPP, "backend %s runs real tasks, and the kernel switches "
			"their CLOSIDs: context switches are simulated only by the sim backend",
			rdt_core_backend(r)->name);
}


