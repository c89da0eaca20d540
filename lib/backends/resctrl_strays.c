// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, strays: tasks of bound cgroups that the kernel lists in
 * a control group not ours - another tool (a runtime's RDT class, pqos, an
 * administrator's echo) moved them there. One rule for every path that
 * looks: a binding that enforces has them moved back by the realise (every
 * sync, full or not, and every change), one that yields (the default)
 * leaves them; both are noted with the control group they were found in,
 * and the next sync reports them (docs/resctrl.md, "Tasks and CPUs").
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

#define STRAYS_MAX 1024		/* noted per context between two syncs; more are counted */
#define STRAYS_SAID 3		/* in a report's what, the rest counted */

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

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
		qsort(f->tids[d], f->n[d], sizeof(pid_t), cmp_tid);
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
		if (f->n[d] && bsearch(&tid, f->tids[d], f->n[d], sizeof(pid_t), cmp_tid)) {
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
	if (!r->st->ncgroups)
		return 0;
	ret = rc_list_dirs(r, r->st, &v);
	if (!ret && v.nforeign)
		ret = foreign_read(r, &v, &f);
	if (!ret && f.total)
		ret = rdt_core_cgroup_members(r, -1, &members, &n);
	for (i = 0; !ret && i < n; i++) {
		const struct rdt_cgroup *b;
		const char *from;

		if (rc_bound_group(r, r->st, members[i]) >= 0)
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
		if (k++ == STRAYS_SAID || n >= len) {
			unsaid++;
			continue;
		}
		n += (size_t)snprintf(what + n, len - n, s->moved ?
				      "%stask %d of cgroup %s was in resctrl group %s (not ours): "
				      "moved back to %s (binding enforces)" :
				      "%stask %d of cgroup %s is in resctrl group %s (not ours): "
				      "left there (binding yields)", n ? "; " : "", (int)s->tid,
				      s->cgroup, s->from, !s->moved ? "" :
				      s->group < (int)r->st->ngroups ? r->st->groups[s->group].name :
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
