// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, realising a state: control groups made, written, removed, tasks and CPUs moved, with the undo log.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

/* ---- Realising a state ------------------------------------------------------------ */

/* The class of st's group g in view v of st, by the group's name and seq; -1: default or gone. */
int rc_class_in(const struct rdt_state *st, const struct rc_view *v,
		    const struct rdt_state *other, int og)
{
	int g;

	if (og <= 0)
		return -1;
	g = rdt_group_find(st, other->groups[og].name);
	if (g <= 0 || st->groups[g].seq != other->groups[og].seq)
		return -1;
	return v->cls_of[g];
}

/*
 * A class keeps the directory named after its oldest group, the name a
 * remount would give it (rc_dir_name_for), wherever that one is ours and
 * free: so a name says whose it is, and stays so across a remount. It
 * costs no CLOSID - every directory of ours is used before one is made -
 * only, when a class's oldest group leaves it, the moves of the others'
 * tasks rather than its own. A state made before ids is numbered: no name.
 */
static void keep_named(const struct rc_ctx *c, const struct rdt_state *st, struct rc_view *v)
{
	char name[sizeof(v->dirs[0].name)];
	unsigned int k;
	int d;

	for (k = 0; !c->numbered && k < v->ncls; k++) {
		rc_dir_name_try(c, st, v, (int)k, 1, name, sizeof(name));
		d = rc_dir_named(v, name);
		if (d >= 0 && v->dirs[d].ours && v->dirs[d].cls < 0) {
			v->cls[k].dir = d;
			v->dirs[d].cls = (int)k;
		}
	}
}

/*
 * Choose a directory for every class: the one named after it (keep_named);
 * else the one with its schemata already; else the one most of its groups
 * were in before (so their tasks and children stay put); else any of ours
 * no class wants; else a new one.
 */
static void assign_dirs(const struct rc_ctx *c, const struct rdt_state *st, struct rc_view *v,
			const struct rdt_state *before, struct rc_view *bv)
{
	unsigned int k, i, d;

	keep_named(c, st, v);
	for (k = 0; k < v->ncls; k++) {
		int hit = v->cls[k].dir >= 0 ? -1 : rc_dir_with_key(v, v->cls[k].key);

		if (hit >= 0) {
			v->cls[k].dir = hit;
			v->dirs[hit].cls = (int)k;
		}
	}
	for (k = 0; bv && k < v->ncls; k++) {
		unsigned int best = 0;
		int pick = -1;

		if (v->cls[k].dir >= 0)
			continue;
		for (d = 0; d < v->ndirs; d++) {
			unsigned int votes = 0;

			if (!v->dirs[d].ours || v->dirs[d].cls >= 0 || v->dirs[d].was < 0)
				continue;
			for (i = 0; i < v->cls[k].ngroups; i++) {
				int g = v->cls[k].groups[i];

				if (rc_class_in(before, bv, st, g) == v->dirs[d].was)
					votes++;
			}
			if (votes > best) {
				best = votes;
				pick = (int)d;
			}
		}
		if (pick >= 0) {
			v->cls[k].dir = pick;
			v->dirs[pick].cls = (int)k;
		}
	}
	for (k = 0, d = 0; k < v->ncls; k++) {
		if (v->cls[k].dir >= 0)
			continue;
		while (d < v->ndirs && (!v->dirs[d].ours || v->dirs[d].cls >= 0))
			d++;
		if (d == v->ndirs)
			break;
		v->cls[k].dir = (int)d;
		v->dirs[d].cls = (int)k;
	}
	for (d = 0; d < v->ndirs; d++)
		v->dirs[d].remove = v->dirs[d].ours && v->dirs[d].cls < 0;
}

/* Which class of the state before each of our directories held (by its schemata). */
static void mark_was(struct rc_view *v, const struct rc_view *bv)
{
	unsigned int d, k;

	for (d = 0; bv && d < v->ndirs; d++)
		for (k = 0; v->dirs[d].ours && v->dirs[d].key_ok && k < bv->ncls; k++)
			if (!memcmp(v->dirs[d].key, bv->cls[k].key, v->nkey * sizeof(uint64_t))) {
				v->dirs[d].was = (int)k;
				break;
			}
}

static int check_closids(struct rdtalloc *r, const struct rc_view *v)
{
	struct rc_ctx *c = ctx_of(r);
	unsigned int k, need = 0, io;

	for (k = 0; k < v->ncls; k++)
		need += v->cls[k].dir < 0;
	if (!need)
		return 0;
	/* io_alloc (6.19) holds the highest CLOSID while it is on */
	io = rc_io_alloc_on(c);
	if (1 + v->nours + v->nforeign + io + need <= c->num_closids)
		return 0;
	return rdt_fail(r, -ENOSPC, "resctrl has no free CLOSID: %u in use, %u of them not ours%s "
			"(%u distinct schemas need %u control groups beside the root; %u CLOSIDs "
			"in all)", 1 + v->nours + v->nforeign + io, v->nforeign + io,
			io ? " (io_alloc holds one)" : "", v->ncls, v->ncls, c->num_closids);
}

int rc_new_dir(struct rdtalloc *r, struct rc_view *v, int k)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_RMDIR };
	char path[PATH_MAX], status[256];
	struct rc_dir *d;

	if (v->ndirs == RC_DIR_MAX)
		return rdt_fail(r, -E2BIG, "resctrl: too many control groups");
	d = &v->dirs[v->ndirs];
	memset(d, 0, sizeof(*d));
	if (rc_dir_name_for(c, rc_st(r), v, k, d->name, sizeof(d->name)))
		return rdt_fail(r, -E2BIG, "resctrl: too many control groups");
	rc_rel_path(c, d->name, "", path, sizeof(path));
	if (mkdir(path, 0755)) {
		int err = -errno;

		rc_last_status(c, status, sizeof(status));
		if (err == -ENOSPC && strstr(status, "RMID"))
			return rdt_fail(r, err, "resctrl is out of RMIDs: no control group for a "
					"new class (mkdir %s: %s); every control group and "
					"monitoring group holds one of its %u: remove a group, ours "
					"or another tool's", path, status, c->m->mon.rmids);
		if (err == -ENOSPC)
			return rdt_fail(r, err, "resctrl has no free CLOSID: %u in use, %u of them "
					"not ours (mkdir %s: %s)", 1 + v->nours + v->nforeign,
					v->nforeign, path, status[0] ? status : strerror(-err));
		return rdt_fail(r, err, "resctrl: mkdir %s: %s", path,
				status[0] && strcmp(status, "ok") ? status : strerror(-err));
	}
	snprintf(u.dir, sizeof(u.dir), "%s", d->name);
	if (rc_undo_push(c, &u)) {
		rmdir(path);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	d->ours = true;
	d->cls = k;
	d->was = -1;
	d->created = true;
	v->ndirs++;
	v->nours++;
	v->cls[k].dir = (int)(d - v->dirs);
	c->changes++;
	return 0;
}

/* Write a file, remembering what it held for the undo log; no write when equal. */
int rc_write_logged(struct rdtalloc *r, const char *dir, const char *file, const char *text,
			bool (*same)(const char *a, const char *b))
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_WRITE };
	char *old = NULL;
	int ret;

	ret = rc_read_small(r, dir, file, &old);
	if (ret)
		return ret;
	if (same(old, text)) {
		free(old);
		return 0;
	}
	ret = rc_write_file(r, dir, file, text);
	if (ret) {
		free(old);
		return ret;
	}
	snprintf(u.dir, sizeof(u.dir), "%s", dir);
	snprintf(u.file, sizeof(u.file), "%s", file);
	u.text = old;
	if (rc_undo_push(c, &u)) {
		free(old);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	c->changes++;
	return 0;
}

static const struct rdt_state *same_st;

static bool same_schemata(const char *a, const char *b)
{
	size_t n = rc_key_len(same_st);
	uint64_t *ka = calloc(n + 1, sizeof(uint64_t)), *kb = calloc(n + 1, sizeof(uint64_t));
	char *ca = strdup(a), *cb = strdup(b);
	bool same = ka && kb && ca && cb && !rc_parse_schemata(same_st, ca, ka) &&
		    !rc_parse_schemata(same_st, cb, kb) && !memcmp(ka, kb, n * sizeof(uint64_t));

	free(ka);
	free(kb);
	free(ca);
	free(cb);
	return same;
}

/* An empty cpus_list reads as a blank line; our parser wants at least one CPU. */
static int parse_cpus(const char *text, int **cpus, unsigned int *n)
{
	char err[64], *line;
	int ret;

	*cpus = NULL;
	*n = 0;
	if (!text[strspn(text, " \t\n")])
		return 0;
	line = strdup(text);
	if (!line)
		return -ENOMEM;
	rc_trim(line);	/* the kernel ends it with a newline */
	ret = rdt_cpulist_parse(line, cpus, n, err, sizeof(err));
	free(line);
	return ret;
}

bool rc_same_cpus(const char *a, const char *b)
{
	int *ca = NULL, *cb = NULL;
	unsigned int na = 0, nb = 0;
	bool same;

	if (parse_cpus(a, &ca, &na) || parse_cpus(b, &cb, &nb))
		same = false;
	else
		same = na == nb && (!na || !memcmp(ca, cb, na * sizeof(int)));
	free(ca);
	free(cb);
	return same;
}

/* cur: what the directory holds, parsed by rc_list_dirs (NULL: read it). */
int rc_write_schemata(struct rdtalloc *r, const char *dir, const uint64_t *key,
			  const uint64_t *cur)
{
	char *text;
	int ret;

	if (cur && !memcmp(cur, key, rc_key_len(rc_st(r)) * sizeof(*key)))
		return 0;
	text = rc_format_schemata(rc_st(r), key);
	if (!text)
		return rdt_fail(r, -ENOMEM, "out of memory");
	same_st = rc_st(r);
	ret = rc_write_logged(r, dir, "schemata", text, same_schemata);
	free(text);
	return ret;
}

/* The CPUs bound to class k's groups, as a cpus_list line. */
int rc_class_cpus(struct rdtalloc *r, const struct rc_view *v, int k, char **out)
{
	const struct rdt_state *st = rc_st(r);
	int *cpus = malloc(((size_t)st->m->ncpus + 1) * sizeof(int));
	size_t n = 0, len = (size_t)st->m->ncpus * 12 + 2;
	unsigned int c;

	*out = malloc(len);
	if (!cpus || !*out) {
		free(cpus);
		free(*out);
		*out = NULL;
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (c = 0; c < st->m->ncpus; c++)
		if (st->cpu_group[c] > 0 && v->cls_of[st->cpu_group[c]] == k)
			cpus[n++] = (int)c;
	rdt_cpulist_format(cpus, n, *out, len - 1);
	strcat(*out, "\n");
	free(cpus);
	return 0;
}

/* A CPU of ours must not be taken from a control group we did not create. */
static int check_foreign_cpus(struct rdtalloc *r, const struct rdt_state *st,
			      const struct rc_view *v)
{
	unsigned int d, i;
	int ret = 0;

	for (d = 0; d < v->ndirs && !ret; d++) {
		int *cpus = NULL;
		unsigned int n = 0;
		char *text;

		if (v->dirs[d].ours)
			continue;
		ret = rc_read_small(r, v->dirs[d].name, "cpus_list", &text);
		if (ret)
			break;
		if (parse_cpus(text, &cpus, &n))
			n = 0;
		free(text);
		for (i = 0; i < n; i++) {
			int c = cpus[i];

			if (c >= 0 && (unsigned int)c < rc_m(r)->ncpus && st->cpu_group[c] > 0) {
				ctx_of(r)->fail_group = st->cpu_group[c];
				ret = rdt_fail(r, -EBUSY, "CPU %d is in resctrl group '%s', which "
					       "librdtalloc did not create: it will not take it (%s "
					       "wants it)", c, v->dirs[d].name,
					       st->groups[st->cpu_group[c]].name);
				break;
			}
		}
		free(cpus);
	}
	return ret;
}

static bool same_word(const char *a, const char *b)
{
	size_t na = strcspn(a, " \n"), nb = strcspn(b, " \n");

	return na == nb && !strncmp(a, b, na);
}

/* The first cache way key a and b share, as "L3 cache id 1: 0x30 and 0xf0"; false if none. */
static bool keys_overlap(const struct rdt_state *st, const uint64_t *a, const uint64_t *b,
			 char *where, size_t len)
{
	unsigned int s;

	for (s = 0; s < st->nslots; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		uint64_t x, y;

		if (sl->res == RDT_MB)
			continue;
		x = a[s * 2] | (st->cdp[sl->res] ? a[s * 2 + 1] : 0);
		y = b[s * 2] | (st->cdp[sl->res] ? b[s * 2 + 1] : 0);
		if (x & y) {
			snprintf(where, len, "%s cache id %u: 0x%llx and 0x%llx",
				 rdt_res_name(sl->res), st->m->dom[sl->res][sl->dom].cache_id,
				 (unsigned long long)x, (unsigned long long)y);
			return true;
		}
	}
	return false;
}

/*
 * A control group not ours in exclusive mode: the kernel refuses any other
 * group's schemata on its ways, the root's included. Checked before the
 * first write, and by a dry run, so that both say what the kernel would.
 */
static int check_foreign_exclusive(struct rdtalloc *r, const struct rdt_state *st,
				   const struct rc_view *v)
{
	uint64_t *theirs = calloc(v->nkey + 1, sizeof(*theirs));
	char where[128], *text = NULL;
	unsigned int d;
	int k, ret = 0;

	if (!theirs)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (d = 0; d < v->ndirs && !ret; d++) {
		if (v->dirs[d].ours)
			continue;
		ret = rc_read_small(r, v->dirs[d].name, "mode", &text);
		if (ret)
			break;
		if (!same_word(text, "exclusive")) {
			free(text);
			text = NULL;
			continue;
		}
		free(text);
		text = NULL;
		ret = rc_read_small(r, v->dirs[d].name, "schemata", &text);
		if (ret)
			break;
		if (rc_parse_schemata(st, text, theirs)) {
			free(text);
			text = NULL;
			continue;	/* nothing we know of: nothing of ours to meet */
		}
		free(text);
		text = NULL;
		for (k = -1; k < (int)v->ncls && !ret; k++) {
			const uint64_t *key = k < 0 ? v->keys : v->cls[k].key;

			if (keys_overlap(st, key, theirs, where, sizeof(where)) &&
			    (ctx_of(r)->fail_group = k < 0 ? 0 : v->cls[k].groups[0]) >= 0)
				ret = rdt_fail(r, -EBUSY, "resctrl: group %s would overlap '%s', "
					       "an exclusive group librdtalloc did not create (%s); "
					       "the kernel refuses that: nothing was changed",
					       k < 0 ? "default" : st->groups[v->cls[k].groups[0]].name,
					       v->dirs[d].name, where);
		}
	}
	free(text);
	free(theirs);
	return ret;
}

/* Move one task to dir, logging where it was; an exited task is no error. */
/*
 * tid to control group to and there to its MON group to_mon ("": the
 * control group's own RMID); from and from_mon say where it was, for the
 * undo, which puts it back in that order (a MON group takes only tasks of
 * its own control group).
 */
static int move_task(struct rdtalloc *r, pid_t tid, const char *to, const char *to_mon,
		     const char *from, const char *from_mon)
{
	struct rc_undo u = { .op = UNDO_TASK, .tid = tid };
	char text[24], md[RC_MON_DIR_MAX];
	int ret = 0;

	snprintf(text, sizeof(text), "%d\n", (int)tid);
	if (strcmp(to, from) || !*to_mon)
		ret = rc_write_file(r, to, "tasks", text);
	if (!ret && *to_mon) {
		mon_dir(to, to_mon, md, sizeof(md));
		ret = rc_write_file(r, md, "tasks", text);
	}
	if (ret == -ESRCH)
		return 0;
	if (ret)
		return ret;
	snprintf(u.dir, sizeof(u.dir), "%s", from);
	snprintf(u.mon, sizeof(u.mon), "%s", from_mon);
	if (rc_undo_push(ctx_of(r), &u))
		return rdt_fail(r, -ENOMEM, "out of memory");
	ctx_of(r)->changes++;
	ctx_of(r)->moved++;
	return 0;
}

const char *rc_dir_name(const struct rc_view *v, int k)
{
	return k < 0 || v->cls[k].dir < 0 ? "" : v->dirs[v->cls[k].dir].name;
}

/*
 * Tasks the kernel lists in a directory whose class changed (or that goes):
 * bound ones move with their binding below; the others (children forked in
 * it) follow the group they are counted in.
 */
int rc_move_unbound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
			const struct rc_view *bv, unsigned int d)
{
	const struct rdt_state *st = rc_st(r);
	const char *from = v->dirs[d].name;
	pid_t *tids = NULL;
	size_t n = 0, i;
	int ret;

	ret = rc_read_tasks(r, from, &tids, &n);
	for (i = 0; !ret && i < n; i++) {
		int og, g, k;

		if (rc_bound_group(r, st, tids[i]) >= 0 || rc_bound_group(r, before, tids[i]) >= 0)
			continue;
		og = rc_attribute(r, before, bv, v->dirs[d].was, tids[i]);
		g = rdt_group_find(st, before->groups[og].name);
		if (g > 0 && st->groups[g].seq != before->groups[og].seq)
			g = -1;
		k = g > 0 ? v->cls_of[g] : -1;
		if (strcmp(rc_dir_name(v, k), from))
			ret = move_task(r, tids[i], rc_dir_name(v, k),
					g > 0 ? mon_of(r, st, g) : "", from, "");
	}
	free(tids);
	return ret;
}

bool rc_created_any(const struct rc_view *v)
{
	unsigned int d;

	for (d = 0; d < v->ndirs; d++)
		if (v->dirs[d].created)
			return true;
	return false;
}

/* Every bound task whose class changed goes to its class's directory. */
int rc_move_bound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		      const struct rc_view *bv, const char **was_dir)
{
	const struct rdt_task_map *tm = &rc_st(r)->tasks;
	size_t i;
	int ret = 0;

	for (i = 0; i < tm->cap && !ret; i++) {
		const struct rdt_task *t = &tm->slots[i];
		const char *to, *to_mon, *from = NULL, *from_mon = "";
		int bg;

		if (!t->tid || !rdt_core_binding_alive(r, t))
			continue;
		to = rc_dir_name(v, v->cls_of[t->group]);
		to_mon = mon_of(r, rc_st(r), t->group);
		bg = before ? rc_bound_group(r, before, t->tid) : -1;
		if (bg >= 0) {
			int bk = bv->cls_of[bg];

			from = bk < 0 ? "" : was_dir[bk];
			from_mon = from ? mon_of(r, before, bg) : "";
			if (from && !strcmp(from, to) && !strcmp(from_mon, to_mon) &&
			    !rc_mon_fresh(r, t->group))
				continue;
		}
		ret = move_task(r, t->tid, to, to_mon, from ? from : "", from_mon);
	}
	/* tasks bound before and not now are the default group's */
	for (i = 0; before && i < before->tasks.cap && !ret; i++) {
		const struct rdt_task *t = &before->tasks.slots[i];
		int bk;

		if (!t->tid || rdt_task_map_get(tm, t->tid) || !rdt_core_binding_alive(r, t))
			continue;
		bk = bv->cls_of[t->group];
		if (bk < 0 && *mon_of(r, before, t->group))	/* from a MON group of the root's */
			ret = move_task(r, t->tid, "", "", "", mon_of(r, before, t->group));
		else if (bk >= 0 && was_dir[bk])
			ret = move_task(r, t->tid, "", "", was_dir[bk], mon_of(r, before, t->group));
	}
	return ret;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Tasks of bound cgroups into their group's class, and those of cgroups
 * unbound by this call back to the root. The kernel knows no cgroups: a
 * child forked in a class stays there by itself, but a task that enters a
 * bound cgroup from outside (systemd starting a service's process, a
 * container's exec) is moved only here - at the next realise, which every
 * open of the state and every write call does.
 */
/* The tasks of our groups' MON groups, each read once when first asked. */
struct rc_seen {
	pid_t **tids;		/* [ngroups], sorted; NULL: not read yet */
	size_t *n;
	unsigned int ngroups;
};

static void seen_free(struct rc_seen *sn)
{
	unsigned int g;

	for (g = 0; sn->tids && g < sn->ngroups; g++)
		free(sn->tids[g]);
	free(sn->tids);
	free(sn->n);
}

/* Is tid in group g's MON group (in control group dir)? 1, 0, or -errno. */
static int in_mon(struct rdtalloc *r, struct rc_seen *sn, const char *dir, int g, pid_t tid)
{
	char md[RC_MON_DIR_MAX];
	int ret;

	if (!sn->tids) {
		sn->ngroups = rc_st(r)->ngroups;
		sn->tids = calloc(sn->ngroups, sizeof(*sn->tids));
		sn->n = calloc(sn->ngroups, sizeof(*sn->n));
		if (!sn->tids || !sn->n)
			return rdt_fail(r, -ENOMEM, "out of memory");
	}
	if (!sn->tids[g]) {
		mon_dir(dir, rc_st(r)->groups[g].name, md, sizeof(md));
		ret = rc_read_tasks(r, md, &sn->tids[g], &sn->n[g]);
		if (ret)
			return ret;
		if (!sn->tids[g] && !(sn->tids[g] = malloc(sizeof(pid_t))))
			return rdt_fail(r, -ENOMEM, "out of memory");
		qsort(sn->tids[g], sn->n[g], sizeof(pid_t), cmp_tid);
	}
	return sn->n[g] && bsearch(&tid, sn->tids[g], sn->n[g], sizeof(pid_t), cmp_tid);
}

/*
 * A task of a bound cgroup listed in none of our control groups: is it in
 * a control group not ours (a stray)? 1: leave it there - its binding
 * yields, or this realise is not a sync's (only a sync moves a stray back,
 * so that every move is reported); 0: move it (*from set to where it is,
 * for the undo). A sync notes it either way for its report.
 */
static int stray_or_not(struct rdtalloc *r, struct rc_view *v, struct rc_foreign *f, pid_t tid,
			const char **from)
{
	const struct rdt_cgroup *b;
	const char *in;
	int ret = rc_foreign_of(r, v, f, tid, &in);

	if (ret || !in)
		return ret;	/* in the root: placed like any newcomer */
	b = rdt_core_cgroup_task_binding(r, tid);
	if (!b || !ctx_of(r)->syncing)
		return 1;
	ret = rc_stray_note(r, tid, b, in, b->enforce);
	if (ret)
		return ret;
	*from = in;
	return !b->enforce;
}

int rc_move_cgroups(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before)
{
	pid_t *now = NULL, *old = NULL, **lists = NULL;
	size_t nnow = 0, nold = 0, *nl = NULL, i;
	struct rc_foreign foreign = { 0 };
	struct rc_seen seen = { 0 };
	const char *to_mon;
	unsigned int d;
	int ret;

	if (!rc_st(r)->ncgroups && !(before && before->ncgroups))
		return 0;
	ret = rdt_core_cgroup_members_in(r, rc_st(r), -1, &now, &nnow);
	if (!ret && before)
		ret = rdt_core_cgroup_members_in(r, before, -1, &old, &nold);
	lists = calloc(v->ndirs + 1, sizeof(*lists));
	nl = calloc(v->ndirs + 1, sizeof(*nl));
	if (!ret && (!lists || !nl))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	/* where the kernel has each task now, in our directories */
	for (d = 0; !ret && d < v->ndirs; d++) {
		if (!v->dirs[d].ours || v->dirs[d].remove)
			continue;
		ret = rc_read_tasks(r, v->dirs[d].name, &lists[d], &nl[d]);
		if (!ret && nl[d])
			qsort(lists[d], nl[d], sizeof(pid_t), cmp_tid);
	}
	for (i = 0; !ret && i < nnow + nold; i++) {
		pid_t tid = i < nnow ? now[i] : old[i - nnow];
		const char *to, *from = NULL;
		int g;

		if (i >= nnow && nnow && bsearch(&tid, now, nnow, sizeof(pid_t), cmp_tid))
			continue;	/* seen already */
		if (rc_bound_group(r, rc_st(r), tid) >= 0)
			continue;	/* its own binding, placed by move_bound */
		g = rdt_core_cgroup_task_group(r, tid);
		to = rc_dir_name(v, g > 0 ? v->cls_of[g] : -1);
		to_mon = g > 0 ? mon_of(r, rc_st(r), g) : "";
		for (d = 0; !from && d < v->ndirs; d++)
			if (nl[d] && bsearch(&tid, lists[d], nl[d], sizeof(pid_t), cmp_tid))
				from = v->dirs[d].name;
		if (!from && g > 0 && v->nforeign) {
			ret = stray_or_not(r, v, &foreign, tid, &from);
			if (ret < 0)
				break;
			if (ret) {
				ret = 0;
				continue;	/* it yields, or it is a sync's to move */
			}
		}
		if (!from && *to_mon && !*to)
			from = "";	/* the root, where a group sharing its CLOSID is too */
		/* in its control group already, and in its MON group where it has one */
		if (from && !strcmp(from, to)) {
			int in = *to_mon ? in_mon(r, &seen, to, g, tid) : 1;

			if (in < 0) {
				ret = in;
				break;
			}
			if (in)
				continue;
		}
		/* in the root or a control group not ours, and the default wanted: stay */
		if (!from && !*to)
			continue;
		ret = move_task(r, tid, to, to_mon, from ? from : "", "");
	}
	for (d = 0; lists && d < v->ndirs; d++)
		free(lists[d]);
	rc_foreign_free(&foreign);
	seen_free(&seen);
	free(lists);
	free(nl);
	free(now);
	free(old);
	return ret;
}

int rc_remove_dir(struct rdtalloc *r, struct rc_view *v, unsigned int d)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_MKDIR };
	char path[PATH_MAX];
	int ret;

	snprintf(u.dir, sizeof(u.dir), "%s", v->dirs[d].name);
	ret = rc_read_small(r, u.dir, "schemata", &u.text);
	if (!ret)
		ret = rc_read_small(r, u.dir, "cpus_list", &u.text2);
	if (ret)
		goto fail;
	rc_rel_path(c, u.dir, "", path, sizeof(path));
	if (rmdir(path)) {
		ret = rdt_fail(r, -errno, "resctrl: rmdir %s: %s", path, strerror(errno));
		goto fail;
	}
	if (rc_undo_push(c, &u)) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto fail;
	}
	c->changes++;
	return 0;
fail:
	free(u.text);
	free(u.text2);
	return ret;
}

/* " (a, b, c, ...)": the control groups not ours, for info */
void rc_names_not_ours(const struct rc_view *v, char *buf, size_t len)
{
	unsigned int d, k = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (d = 0; d < v->ndirs && off < len; d++) {
		if (v->dirs[d].ours)
			continue;
		if (k++ == 3) {
			off += (size_t)snprintf(buf + off, len - off, ", ...");
			break;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%.40s", k > 1 ? ", " : " (",
					v->dirs[d].name);
	}
	if (k && off < len)
		snprintf(buf + off, len - off, ")");
}

/* Is any group of class k (-1: the default group) of st exclusive? */
static bool class_exclusive(const struct rdt_state *st, const struct rc_view *v, int k)
{
	unsigned int i;

	if (k < 0)
		return st->groups[0].exclusive;
	for (i = 0; i < v->cls[k].ngroups; i++)
		if (st->groups[v->cls[k].groups[i]].exclusive)
			return true;
	return false;
}

/*
 * The mode file of the root and of each of our control groups, as the
 * groups' modes want it: the pass for `exclusive` (on) or for `shareable`.
 * Only where a mode may differ is the file read: a group exclusive now or
 * in the state before, or every one at open.
 */
int rc_write_modes(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		       const struct rc_view *bv, bool on)
{
	int k, ret = 0;

	for (k = -1; !ret && k < (int)v->ncls; k++) {
		const char *dir = k < 0 ? "" : v->dirs[v->cls[k].dir].name;
		int was = k < 0 ? -1 : v->dirs[v->cls[k].dir].was;
		bool want = class_exclusive(rc_st(r), v, k);
		bool had = !before || (k < 0 ? before->groups[0].exclusive :
				       was >= 0 && class_exclusive(before, bv, was));

		if (want != on || (!want && !had))
			continue;
		ret = rc_write_logged(r, dir, "mode", on ? "exclusive\n" : "shareable\n", same_word);
	}
	/*
	 * A control group of ours on its way out may still be exclusive in the
	 * kernel (a reset, an apply --prune): shareable before any schema is
	 * widened onto its ways, as it is removed only at the end.
	 */
	for (unsigned int d = 0; !ret && !on && d < v->ndirs; d++)
		if (v->dirs[d].ours && v->dirs[d].remove)
			ret = rc_write_logged(r, v->dirs[d].name, "mode", "shareable\n", same_word);
	return ret;
}

/*
 * Make the kernel hold r->st. before: the state the kernel held (NULL at
 * open: not known, the kernel is read as it is). On failure the steps done
 * are undone.
 */
/*
 * What making the kernel hold st takes, from before (NULL: not known):
 * the view of the kernel's directories with a control group for every
 * class, and every check the kernel would make that can be made before
 * the first write. Used by rc_realise() and by a dry run (rc_check).
 */
int rc_plan(struct rdtalloc *r, const struct rdt_state *st, const struct rdt_state *before,
		struct rc_view *v, struct rc_view *bv)
{
	int ret;

	ret = rc_list_dirs(r, st, v);
	if (!ret)
		ret = rc_make_classes(r, st, v);
	if (!ret && before)
		ret = rc_make_classes(r, before, bv);
	if (ret)
		return ret;
	mark_was(v, before ? bv : NULL);
	assign_dirs(ctx_of(r), st, v, before, before ? bv : NULL);
	ret = check_closids(r, v);
	if (!ret)
		ret = check_foreign_cpus(r, st, v);
	if (!ret)
		ret = check_foreign_exclusive(r, st, v);
	return ret;
}

