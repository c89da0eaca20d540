// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply: whole configurations (rdtctl save / apply, docs/config.md). Save
 * writes the state as configuration text; apply makes the state match one,
 * all or nothing: every step runs on a working copy of the state, which
 * replaces the real one only when every step succeeded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "core.h"
#include "errors.h"
#include "schema.h"

/* ---- Save ---------------------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	size_t pos;		/* bytes wanted so far, may exceed len */
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
		      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

static int save_schema(struct out *o, const struct rdt_state *st, int g)
{
	char *text, *line, *save = NULL;
	int n = rdt_core_format_schema(st, g, NULL, 0);

	if (n < 0)
		return n;
	text = malloc((size_t)n + 1);
	if (!text)
		return -ENOMEM;
	rdt_core_format_schema(st, g, text, (size_t)n + 1);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		outf(o, "\tschema %s\n", line);
	free(text);
	return 0;
}

static int save_cpus(struct out *o, const struct rdt_state *st, int g)
{
	int *cpus = malloc((st->m->ncpus ? st->m->ncpus : 1) * sizeof(int));
	unsigned int c, n = 0;
	char *list;
	int len;

	if (!cpus)
		return -ENOMEM;
	for (c = 0; c < st->m->ncpus; c++)
		if (st->cpu_group[c] == g)
			cpus[n++] = (int)c;
	if (n) {
		len = rdt_cpulist_format(cpus, n, NULL, 0);
		list = malloc((size_t)len + 1);
		if (!list) {
			free(cpus);
			return -ENOMEM;
		}
		rdt_cpulist_format(cpus, n, list, (size_t)len + 1);
		outf(o, "\tcpus %s\n", list);
		free(list);
	}
	free(cpus);
	return 0;
}

static int save_tasks(struct out *o, rdtalloc_t *r, int g)
{
	pid_t *tids;
	size_t n, i;
	int ret = rdt_core_collect_tasks(r, g, &tids, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (i % 16 == 0)
			outf(o, i ? "\n\ttasks" : "\ttasks");
		outf(o, " %d", (int)tids[i]);
	}
	if (n)
		outf(o, "\n");
	free(tids);
	return 0;
}

RDTALLOC_API int rdtalloc_save_config(rdtalloc_t *r, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	const struct rdt_state *st;
	unsigned int i, n, res;
	int *order, ret;

	if (!r || (!buf && len))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	st = r->st;
	order = rdt_core_groups_in_order(st, &n);
	if (!order)
		return rdt_core_end(r, false, rdt_fail(r, -ENOMEM, "out of memory"));
	outf(&o, "# rdtalloc configuration (rdtctl save, librdtalloc %s)\n",
	     RDTALLOC_VERSION_STRING);
	outf(&o, "# machine: %s\n", st->m->desc[0] ? st->m->desc : "host");
	for (res = 0; res < RDT_NRES; res++)
		if (st->m->caps[res].present && st->m->caps[res].cdp)
			outf(&o, "cdp %s %s\n", rdt_res_name(res), st->cdp[res] ? "on" : "off");
	for (i = 0; !ret && i < n; i++) {
		outf(&o, "\ngroup %s\n", st->groups[order[i]].name);
		ret = save_schema(&o, st, order[i]);
		if (!ret && order[i] != 0)
			ret = save_cpus(&o, st, order[i]);
		if (!ret && order[i] != 0)
			ret = save_tasks(&o, r, order[i]);
	}
	free(order);
	if (ret)
		ret = rdt_errmsg_is_set(r) ? ret : rdt_fail(r, ret, "%s", rdtalloc_strerror(ret));
	else if (o.pos >= len)
		ret = rdt_fail(r, -ERANGE, "the configuration needs %zu bytes, the buffer has %zu",
			       o.pos + 1, len);
	else
		ret = (int)o.pos;
	return rdt_core_end(r, false, ret);
}

/* ---- Apply ----------------------------------------------------------------- */

struct apply {
	rdtalloc_t *r;
	struct rdt_state *work;
	const struct rdt_config *cfg;
	int changes;
};

/* Prefix the message of the failure with the line it came from. */
static int at_line(struct apply *a, unsigned int line, int ret)
{
	char msg[RDT_ERRMSG_MAX];

	snprintf(msg, sizeof(msg), "%s", rdtalloc_errmsg(a->r));
	return rdt_fail(a->r, ret, "line %u: %s", line, msg[0] ? msg : rdtalloc_strerror(ret));
}

static const struct rdt_config_group *named(const struct rdt_config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->ngroups; i++)
		if (!strcmp(cfg->groups[i].name, name))
			return &cfg->groups[i];
	return NULL;
}

static int prune(struct apply *a)
{
	struct rdt_state *w = a->work;
	unsigned int i;
	int ret;

	for (i = 1; i < w->ngroups; i++) {
		if (!w->groups[i].live || named(a->cfg, w->groups[i].name))
			continue;
		ret = rdt_group_del(w, (int)i);
		if (ret)
			return rdt_fail(a->r, ret, "removing group '%s': %s", w->groups[i].name,
					w->err);
		a->changes++;
	}
	return 0;
}

static int apply_cdp(struct apply *a)
{
	unsigned int res;
	int ret;

	for (res = 0; res < RDT_NRES; res++) {
		int want = a->cfg->cdp[res];

		if (want < 0 || (bool)want == a->work->cdp[res])
			continue;
		if (!a->work->m->caps[res].present) {
			rdt_fail(a->r, -EINVAL, "resource %s is not available on this machine",
				 rdt_res_name(res));
			return at_line(a, a->cfg->cdp_line[res], -EINVAL);
		}
		ret = rdt_set_cdp(a->work, res, want);
		if (ret) {
			rdt_fail(a->r, ret, "%s", a->work->err);
			return at_line(a, a->cfg->cdp_line[res], ret);
		}
		a->changes++;
	}
	return 0;
}

static int apply_cpus(struct apply *a, const struct rdt_config_group *cg, int g)
{
	struct rdt_state *w = a->work;
	unsigned int c, i;
	int ret;

	for (i = 0; i < cg->ncpus; i++) {
		ret = rdt_core_check_cpu(a->r, cg->cpus[i]);
		if (ret)
			return at_line(a, cg->cpu_lines[i], ret);
	}
	/* CPUs the group holds that the file does not list go back to default. */
	for (c = 0; c < w->m->ncpus; c++) {
		bool listed = false;

		if (w->cpu_group[c] != g)
			continue;
		for (i = 0; i < cg->ncpus && !listed; i++)
			listed = cg->cpus[i] == (int)c;
		if (listed)
			continue;
		ret = rdt_bind_cpu(w, 0, (int)c);
		if (ret)
			return at_line(a, cg->cpus_line, rdt_fail(a->r, ret, "%s", w->err));
		a->changes++;
	}
	for (i = 0; i < cg->ncpus; i++) {
		if (w->cpu_group[cg->cpus[i]] == g)
			continue;
		ret = rdt_bind_cpu(w, g, cg->cpus[i]);
		if (ret)
			return at_line(a, cg->cpu_lines[i], rdt_fail(a->r, ret, "%s", w->err));
		a->changes++;
	}
	return 0;
}

static int apply_tasks(struct apply *a, const struct rdt_config_group *cg, int g)
{
	struct rdt_state *w = a->work;
	pid_t *drop = NULL;
	size_t i, ndrop = 0;
	unsigned int j;
	int ret;

	if (g != 0) {
		drop = malloc((w->tasks.len ? w->tasks.len : 1) * sizeof(pid_t));
		if (!drop)
			return rdt_fail(a->r, -ENOMEM, "out of memory");
		for (i = 0; i < w->tasks.cap; i++) {
			const struct rdt_task *t = &w->tasks.slots[i];
			bool listed = false;

			if (!t->tid || t->group != g)
				continue;
			for (j = 0; j < cg->ntasks && !listed; j++)
				listed = cg->tasks[j] == t->tid;
			if (!listed)
				drop[ndrop++] = t->tid;
		}
		for (i = 0, ret = 0; i < ndrop && !ret; i++) {
			ret = rdt_bind_task(w, 0, drop[i], 0);
			a->changes++;
		}
		free(drop);
		if (ret)
			return at_line(a, cg->tasks_line, rdt_fail(a->r, ret, "%s", w->err));
	}
	if (cg->ntasks && g != 0) {
		ret = rdt_core_tasks_allowed(a->r);
		if (ret)
			return at_line(a, cg->tasks_line, ret);
	}
	for (j = 0; j < cg->ntasks; j++) {
		const struct rdt_task *t;
		pid_t tid = cg->tasks[j];
		uint64_t start;

		ret = rdt_core_check_task(a->r, &tid, &start);
		if (ret)
			return at_line(a, cg->task_lines[j], ret);
		t = rdt_task_map_get(&w->tasks, tid);
		if ((t ? t->group : 0) == g && (!t || t->start == start))
			continue;
		ret = rdt_bind_task(w, g, tid, start);
		if (ret)
			return at_line(a, cg->task_lines[j], rdt_fail(a->r, ret, "%s", w->err));
		a->changes++;
	}
	return 0;
}

/*
 * Create the group and give it its schema. -ENOSPC is left to the caller
 * (it may pass once other groups have freed CLOSIDs); *g is the group
 * once it exists.
 */
static int group_masks(struct apply *a, const struct rdt_config_group *cg, int *g)
{
	bool changed = false;
	int ret;

	*g = rdt_group_find(a->work, cg->name);
	if (*g < 0) {
		ret = rdt_group_add(a->work, cg->name, g);
		if (ret) {
			rdt_fail(a->r, ret, "%s", a->work->err);
			return at_line(a, cg->line, ret);
		}
		a->changes++;
	}
	if (!cg->schema)
		return 0;
	ret = rdt_core_apply_schema(a->r, a->work, *g, cg->schema, &changed);
	if (ret)
		return at_line(a, cg->schema_line, ret);
	a->changes += changed;
	return 0;
}

static int group_members(struct apply *a, const struct rdt_config_group *cg, int g)
{
	int ret;

	if (g != 0) {
		ret = apply_cpus(a, cg, g);
		if (ret)
			return ret;
	}
	return apply_tasks(a, cg, g);
}

/*
 * The groups in file order; a group that finds no free CLOSID waits until
 * the others have had their turn, since they may free some: the result
 * does not depend on the order of the blocks when the end state fits.
 */
static int apply_groups(struct apply *a)
{
	unsigned int n = a->cfg->ngroups, i, left = n;
	bool *done = calloc(n ? n : 1, sizeof(bool)), progress = true;
	int ret = 0, g;

	if (!done)
		return rdt_fail(a->r, -ENOMEM, "out of memory");
	while (left && progress && !ret) {
		progress = false;
		for (i = 0; i < n && !ret; i++) {
			const struct rdt_config_group *cg = &a->cfg->groups[i];

			if (done[i])
				continue;
			ret = group_masks(a, cg, &g);
			if (ret == -ENOSPC) {
				ret = 0;
				continue;
			}
			if (!ret)
				ret = group_members(a, cg, g);
			done[i] = true;
			left--;
			progress = true;
		}
	}
	/* Still waiting: run the first again for its message. */
	for (i = 0; !ret && left && i < n; i++)
		if (!done[i])
			ret = group_masks(a, &a->cfg->groups[i], &g);
	free(done);
	return ret;
}

static int apply_all(struct apply *a, unsigned int flags)
{
	int ret = 0;

	if (flags & RDTALLOC_APPLY_PRUNE)
		ret = prune(a);
	if (!ret)
		ret = apply_cdp(a);
	if (!ret)
		ret = apply_groups(a);
	return ret;
}

RDTALLOC_API int rdtalloc_apply_config(rdtalloc_t *r, const char *text, unsigned int flags)
{
	struct apply a = { .r = r };
	struct rdt_config *cfg = NULL;
	char err[RDT_ERRMSG_MAX] = "";
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (!text) {
		ret = rdt_fail(r, -EINVAL, "configuration text is NULL");
		goto out;
	}
	if (flags & ~(RDTALLOC_APPLY_PRUNE | RDTALLOC_APPLY_DRY_RUN)) {
		ret = rdt_fail(r, -EINVAL, "unknown apply flags 0x%x", flags);
		goto out;
	}
	ret = rdt_config_parse(text, &cfg, err, sizeof(err));
	if (ret) {
		rdt_fail(r, ret, "%s", err[0] ? err : "invalid configuration");
		goto out;
	}
	ret = rdt_state_clone(r->st, &a.work);
	if (ret) {
		rdt_fail(r, ret, "out of memory");
		goto out;
	}
	a.cfg = cfg;
	ret = apply_all(&a, flags);
	if (ret)
		goto out;
	ret = a.changes;
	if (!(flags & RDTALLOC_APPLY_DRY_RUN) && a.changes) {
		struct rdt_state *old = r->st;

		r->st = a.work;
		a.work = old;	/* freed below */
		r->dirty = r->groups_changed = true;
		/* a failure here is undone by rdt_core_end like any other */
		if ((ret = rdt_core_carry_tasks(r, old)) == 0)
			ret = a.changes;
	}
out:
	rdt_state_free(a.work);
	rdt_config_free(cfg);
	return rdt_core_end(r, true, ret);
}
