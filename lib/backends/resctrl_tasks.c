// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, tasks as the kernel lists them: whose group a listed task is in, bound tasks another tool moved.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

/* ---- Tasks as the kernel lists them ------------------------------------------- */

int rc_read_tasks(struct rdtalloc *r, const char *dir, pid_t **out, size_t *n)
{
	char path[PATH_MAX], *text, *p, *end;
	size_t cap = 64, k = 0;
	pid_t *v;
	int ret;

	rc_rel_path(ctx_of(r), dir, "tasks", path, sizeof(path));
	ret = rc_read_all(path, RC_TASKS_MAX, &text, NULL);
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	v = malloc(cap * sizeof(*v));
	for (p = text; v && *p; p = end) {
		long t = strtol(p, &end, 10);

		if (end == p) {
			end = p + 1;
			continue;
		}
		if (t <= 0 || t > INT32_MAX)
			continue;
		if (k == cap) {
			pid_t *w = realloc(v, cap * 2 * sizeof(*v));

			if (!w) {
				free(v);
				v = NULL;
				break;
			}
			v = w;
			cap *= 2;
		}
		v[k++] = (pid_t)t;
	}
	free(text);
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	*out = v;
	*n = k;
	return 0;
}

bool rc_listed(const pid_t *v, size_t n, pid_t tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == tid)
			return true;
	return false;
}

static int cmp_pid_t(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

struct listing {
	pid_t *tids;		/* sorted */
	size_t n;
	bool read;
};

static bool in_listing(const struct listing *l, pid_t tid)
{
	return l->tids && bsearch(&tid, l->tids, l->n, sizeof(pid_t), cmp_pid_t);
}

/* The kernel's list of directory d's tasks (-1, ls the root's), read once, sorted. */
static int listing_of(struct rdtalloc *r, const struct rc_view *v, struct listing *ls, int d)
{
	struct listing *l = d < 0 ? ls : &ls[d];
	int ret;

	if (l->read)
		return 0;
	ret = rc_read_tasks(r, d < 0 ? "" : v->dirs[d].name, &l->tids, &l->n);
	if (ret)
		return ret;
	qsort(l->tids, l->n, sizeof(pid_t), cmp_pid_t);
	l->read = true;
	return 0;
}

/*
 * The bound tasks of r->st that the kernel lists elsewhere than in their
 * class's control group: another tool (or an administrator's echo into a
 * tasks file) moved them. A class whose control group is missing is left to
 * the repair at open, which makes it again and puts its tasks back.
 */
static int find_moved(struct rdtalloc *r, struct rdt_moved **out, size_t *nout)
{
	const struct rdt_task_map *tm = &r->st->tasks;
	struct rc_view v = { 0 };
	struct listing *ls = NULL, root = { 0 };
	struct rdt_moved *mv = NULL;
	size_t n = 0, cap = 0, i;
	unsigned int d, k;
	int ret;

	*out = NULL;
	*nout = 0;
	if (!tm->len)
		return 0;
	ret = rc_list_dirs(r, r->st, &v);
	if (!ret)
		ret = rc_make_classes(r, r->st, &v);
	for (k = 0; !ret && k < v.ncls; k++) {
		int dd = rc_dir_with_key(&v, v.cls[k].key);

		v.cls[k].dir = dd;
		if (dd >= 0)
			v.dirs[dd].cls = (int)k;
	}
	if (!ret && !(ls = calloc(v.ndirs + 1, sizeof(*ls))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < tm->cap; i++) {
		const struct rdt_task *t = &tm->slots[i];
		int cls, dir, where = -2;

		if (!t->tid || !rdt_core_binding_alive(r, t))
			continue;
		cls = v.cls_of[t->group];
		dir = cls < 0 ? -1 : v.cls[cls].dir;
		if (cls >= 0 && dir < 0)
			continue;	/* our control group is gone: the repair's */
		/*
		 * Its own directory's list first: only a task not there makes
		 * the others be read (a tasks file costs a walk of every
		 * thread in the kernel, and far more in the emulator).
		 */
		ret = dir >= 0 ? listing_of(r, &v, ls, dir) : listing_of(r, &v, &root, -1);
		if (ret)
			break;
		if (dir >= 0 ? in_listing(&ls[dir], t->tid) : in_listing(&root, t->tid))
			continue;
		if (dir >= 0 && !(ret = listing_of(r, &v, &root, -1)) && in_listing(&root, t->tid))
			where = -1;
		for (d = 0; !ret && where == -2 && d < v.ndirs; d++)
			if (!(ret = listing_of(r, &v, ls, (int)d)) && in_listing(&ls[d], t->tid))
				where = (int)d;
		if (ret)
			break;
		if (n == cap) {
			struct rdt_moved *nv = realloc(mv, (cap ? cap * 2 : 8) * sizeof(*nv));

			if (!nv) {
				ret = rdt_fail(r, -ENOMEM, "out of memory");
				break;
			}
			mv = nv;
			cap = cap ? cap * 2 : 8;
		}
		mv[n].tid = t->tid;
		mv[n].group = t->group;
		snprintf(mv[n].where, sizeof(mv[n].where), "%s",
			 where == -1 ? "" : where == -2 ? "?" : v.dirs[where].name);
		n++;
	}
	for (d = 0; ls && d < v.ndirs; d++)
		free(ls[d].tids);
	free(ls);
	free(root.tids);
	rc_view_free(&v);
	if (ret) {
		free(mv);
		return ret;
	}
	*out = mv;
	*nout = n;
	return 0;
}

int rc_moved_tasks(struct rdtalloc *r, struct rdt_moved **out, size_t *n)
{
	return find_moved(r, out, n);
}

/*
 * At a writable open: the bindings of tasks another tool moved are dropped
 * - what another tool did to a task is its business, as the root's schemata
 * are - and said. *moved: how many; where: the first few, for the reason.
 */
int rc_drop_moved(struct rdtalloc *r, unsigned int *moved, char *where, size_t len)
{
	struct rdt_moved *mv;
	size_t n, i, off = 0;
	int ret = find_moved(r, &mv, &n);

	*moved = 0;
	where[0] = '\0';
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (i < 3 && off < len)
			off += (size_t)snprintf(where + off, len - off, "%s%d to %s%s%s",
						i ? ", " : " (", (int)mv[i].tid,
						mv[i].where[0] ? "'" : "the root",
						mv[i].where[0] ? mv[i].where : "",
						mv[i].where[0] ? "'" : "");
		if (!r->ro)
			rdt_forget_task(r->st, mv[i].tid);
	}
	if (n && off < len)
		snprintf(where + off, len - off, "%s)", n > 3 ? ", ..." : "");
	*moved = (unsigned int)n;
	free(mv);
	return 0;
}

/* Tgid and PPid of a live thread, from /proc/TID/status. */
static int task_parents(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*tgid = *ppid = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5))
			*tgid = (pid_t)atoi(line + 5);
		else if (!strncmp(line, "PPid:", 5))
			*ppid = (pid_t)atoi(line + 5);
	}
	fclose(f);
	return 0;
}

/* The bound group of tid in st's table, when it names this very task; else -1. */
int rc_bound_group(struct rdtalloc *r, const struct rdt_state *st, pid_t tid)
{
	const struct rdt_task *t = rdt_task_map_get(&st->tasks, tid);

	return t && rdt_core_binding_alive(r, t) ? t->group : -1;
}

/*
 * Which of class k's groups a task the kernel lists in k's directory belongs
 * to: its own binding; else its thread group leader's, else its nearest
 * bound ancestor's (the kernel put it there at fork) when in this class;
 * else the class's oldest group.
 */
int rc_attribute(struct rdtalloc *r, const struct rdt_state *st, const struct rc_view *v,
		     int k, pid_t tid)
{
	pid_t tgid, ppid, cur = tid;
	int g, step;

	g = rc_bound_group(r, st, tid);
	if (g > 0 && v->cls_of[g] == k)
		return g;
	g = rdt_core_cgroup_task_group_in(r, st, tid);
	if (g > 0 && v->cls_of[g] == k)
		return g;
	if (!task_parents(tid, &tgid, &ppid) && tgid != tid) {
		g = rc_bound_group(r, st, tgid);
		if (g > 0 && v->cls_of[g] == k)
			return g;
	}
	for (step = 0; step < RC_ANCESTORS && !task_parents(cur, &tgid, &ppid) && ppid > 1;
	     step++) {
		g = rc_bound_group(r, st, ppid);
		if (g > 0 && v->cls_of[g] == k)
			return g;
		cur = ppid;
	}
	return v->cls[k].groups[0];
}

