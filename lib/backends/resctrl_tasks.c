// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, tasks as the kernel lists them: whose group a listed task is in, bound tasks
 * another tool moved, tasks of bound cgroups in a control group not ours (strays).
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
	const struct rdt_task_map *tm = &rc_st(r)->tasks;
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
	ret = rc_list_dirs(r, rc_st(r), &v);
	if (!ret)
		ret = rc_make_classes(r, rc_st(r), &v);
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
		if (!rdt_core_read_only(r))
			rdt_forget_task(rc_st(r), mv[i].tid);
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

/*
 * ---- Strays: tasks of bound cgroups that the kernel lists in a control
 * group not ours - another tool (a runtime's RDT class, pqos, an
 * administrator's echo) moved them there. One rule for every path that
 * looks: only a sync acts; a binding that enforces has them moved back by
 * its realise, one that yields (the default) leaves them; both are noted
 * with the control group they were found in and reported by the sync
 * (docs/resctrl.md, "Tasks and CPUs").
 */

#define STRAYS_MAX 1024		/* noted per context between two syncs; more are counted */
#define STRAYS_SAID 3		/* in a report's what, the rest counted */

void rc_foreign_free(struct rc_foreign *f)
{
	unsigned int d;

	for (d = 0; f->tids && d < f->ndirs; d++)
		free(f->tids[d]);
	free(f->tids);
	free(f->n);
	memset(f, 0, sizeof(*f));
}

/* The tasks of every control group not ours in v, each list read once and sorted. */
static int foreign_read(struct rdtalloc *r, const struct rc_view *v, struct rc_foreign *f)
{
	unsigned int d;
	int ret;

	if (f->read)
		return 0;
	f->ndirs = v->ndirs;
	f->tids = calloc(v->ndirs + 1, sizeof(*f->tids));
	f->n = calloc(v->ndirs + 1, sizeof(*f->n));
	if (!f->tids || !f->n)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (d = 0; d < v->ndirs; d++) {
		if (v->dirs[d].ours)
			continue;
		ret = rc_read_tasks(r, v->dirs[d].name, &f->tids[d], &f->n[d]);
		if (ret == -ENOENT) {
			rdt_clear_err(r);	/* removed by its tool meanwhile: holds nobody */
			continue;
		}
		if (ret)
			return ret;
		qsort(f->tids[d], f->n[d], sizeof(pid_t), cmp_pid_t);
		f->total += f->n[d];
	}
	f->read = true;
	return 0;
}

/* The control group not ours that lists tid (a name in v), or NULL: none does. */
int rc_foreign_of(struct rdtalloc *r, const struct rc_view *v, struct rc_foreign *f, pid_t tid,
		  const char **from)
{
	unsigned int d;
	int ret = foreign_read(r, v, f);

	*from = NULL;
	for (d = 0; !ret && d < f->ndirs; d++)
		if (f->n[d] && bsearch(&tid, f->tids[d], f->n[d], sizeof(pid_t), cmp_pid_t)) {
			*from = v->dirs[d].name;
			break;
		}
	return ret;
}

/* Note a stray once per control group it was found in; moved: it was moved back. */
int rc_stray_note(struct rdtalloc *r, pid_t tid, const struct rdt_cgroup *b, const char *from,
		  bool moved)
{
	struct rc_ctx *c = ctx_of(r);
	size_t i, pl = strlen(b->path);
	struct rc_stray *s;

	for (i = 0; i < c->nstrays; i++) {
		s = &c->strays[i];
		if (s->tid == tid && !strcmp(s->from, from)) {
			s->moved |= moved;
			return 0;
		}
	}
	if (c->nstrays == STRAYS_MAX) {
		c->strays_over++;
		return 0;
	}
	if (c->nstrays == c->cap_strays) {
		size_t cap = c->cap_strays ? c->cap_strays * 2 : 8;
		void *nv = realloc(c->strays, cap * sizeof(*c->strays));

		if (!nv)
			return rdt_fail(r, -ENOMEM, "out of memory");
		c->strays = nv;
		c->cap_strays = cap;
	}
	s = &c->strays[c->nstrays++];
	*s = (struct rc_stray){ .tid = tid, .group = b->group, .moved = moved };
	snprintf(s->from, sizeof(s->from), "%s", from);
	/* a long path is shortened at its start: its end names the cgroup */
	if (pl < sizeof(s->cgroup))
		memcpy(s->cgroup, b->path, pl + 1);
	else
		snprintf(s->cgroup, sizeof(s->cgroup), "...%s",
			 b->path + pl - (sizeof(s->cgroup) - 4));
	return 0;
}

/*
 * The strays of r->st now, without moving anything: those whose binding
 * yields are noted; *enforced counts those whose binding enforces (the
 * caller's realise moves and notes them). Costs one read of each control
 * group not ours' tasks while there are bound cgroups, and a listing of the
 * bound cgroups' threads only when such a control group holds tasks.
 */
int rc_find_strays(struct rdtalloc *r, unsigned int *enforced)
{
	struct rc_view v = { 0 };
	struct rc_foreign f = { 0 };
	pid_t *members = NULL;
	size_t n = 0, i;
	int ret;

	*enforced = 0;
	if (!rc_st(r)->ncgroups)
		return 0;
	ret = rc_list_dirs(r, rc_st(r), &v);
	if (!ret && v.nforeign)
		ret = foreign_read(r, &v, &f);
	if (!ret && f.total)
		ret = rdt_core_cgroup_members(r, -1, &members, &n);
	for (i = 0; !ret && i < n; i++) {
		const struct rdt_cgroup *b;
		const char *from;

		if (rc_bound_group(r, rc_st(r), members[i]) >= 0)
			continue;	/* its own binding: rc_drop_moved's */
		ret = rc_foreign_of(r, &v, &f, members[i], &from);
		if (ret || !from || !(b = rdt_core_cgroup_task_binding(r, members[i])))
			continue;
		if (b->enforce)
			(*enforced)++;
		else
			ret = rc_stray_note(r, members[i], b, from, false);
	}
	free(members);
	rc_foreign_free(&f);
	rc_view_free(&v);
	return ret;
}

static bool was_said(const struct rc_ctx *c, const struct rc_stray *s)
{
	size_t i;

	for (i = 0; i < c->nsaid; i++)
		if (c->said[i].tid == s->tid && !strcmp(c->said[i].from, s->from))
			return true;
	return false;
}

/*
 * Into what (appended after len's first n bytes): a line for each stray
 * noted since the previous report, the first few; left and moved count
 * them all. A stray left where this context's previous report found it
 * already is counted and not said again (the agent reports every second);
 * one that comes back after it was gone is said again. Drains the notes.
 */
void rc_say_strays(struct rdtalloc *r, char *what, size_t len, unsigned int *left,
		   unsigned int *moved)
{
	const struct rdt_state *st = rc_st(r);
	struct rc_ctx *c = ctx_of(r);
	size_t n = strlen(what), i, k = 0, unsaid = 0;

	*left = *moved = 0;
	for (i = 0; i < c->nstrays; i++) {
		const struct rc_stray *s = &c->strays[i];

		if (s->moved)
			(*moved)++;
		else
			(*left)++;
		if (!s->moved && was_said(c, s))
			continue;
		if (k++ >= STRAYS_SAID || n >= len) {
			unsaid++;
			continue;
		}
		n += (size_t)snprintf(what + n, len - n, s->moved ?
				      "%stask %d of cgroup %s was in resctrl group %s (not ours): "
				      "moved back to %s (binding enforces)" :
				      "%stask %d of cgroup %s is in resctrl group %s (not ours): "
				      "left there (binding yields)", n ? "; " : "", (int)s->tid,
				      s->cgroup, s->from, !s->moved ? "" :
				      s->group < (int)st->ngroups ? st->groups[s->group].name :
				      "its group");
	}
	unsaid += c->strays_over;
	*left += c->strays_over;	/* not noted: counted as left, the safe guess */
	if (unsaid && n < len)
		snprintf(what + n, len - n, "%s%zu more task%s of bound cgroups in resctrl groups "
			 "not ours", n ? "; " : "", unsaid, unsaid == 1 ? "" : "s");
	/* what is left now is what the next report does not say again */
	for (i = 0, c->nsaid = 0; i < c->nstrays; i++)
		if (!c->strays[i].moved)
			c->strays[c->nsaid++] = c->strays[i];
	free(c->said);
	c->said = c->strays;
	c->cap_strays = 0;
	c->strays = NULL;
	c->nstrays = 0;
	c->strays_over = 0;
}

void rc_strays_free(struct rc_ctx *c)
{
	free(c->strays);
	free(c->said);
	c->strays = c->said = NULL;
	c->nstrays = c->cap_strays = c->nsaid = 0;
	c->strays_over = 0;
}
