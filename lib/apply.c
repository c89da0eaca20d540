// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply: whole configurations (rdtctl save / apply, docs/config.md). Save
 * writes the state as configuration text; apply makes the state match one,
 * all or nothing: every step runs on a working copy of the state, which
 * replaces the real one only when every step succeeded.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "cgroups.h"
#include "config.h"
#include "context.h"
#include "errors.h"
#include "schema.h"

/* ---- Save ---------------------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	size_t pos;		/* bytes wanted so far, may exceed len */
	uint64_t sum;		/* the end line's checksum of every byte so far */
	bool nomem;
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Formatted text onto o, and into its checksum (also past the end of a short buffer). */
static void outf(struct out *o, const char *fmt, ...)
{
	char small[256], *text = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		text = malloc((size_t)n + 1);
		if (!text) {
			o->nomem = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	o->sum = rdt_config_checksum_add(o->sum, text, (size_t)n);
	if (o->pos < o->len)
		snprintf(o->buf + o->pos, o->len - o->pos, "%s", text);
	o->pos += (size_t)n;
	if (text != small)
		free(text);
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

/*
 * The tasks of g with a binding of their own: not those it holds only
 * through a bound cgroup, which the `cgroup` lines carry (written as task
 * ids they would become bindings of their own, and outlive the cgroup's).
 */
static int save_tasks(struct out *o, rdtalloc_t *r, int g)
{
	pid_t *tids;
	size_t n, i, k = 0;
	int ret = rdt_core_collect_tasks(r, g, &tids, &n);

	if (ret)
		return ret;
	for (i = 0; rdt_core_state(r)->ncgroups && i < n; i++) {
		const struct rdt_task *t = rdt_task_map_get(&rdt_core_state(r)->tasks, tids[i]);

		if (t || rdt_core_cgroup_task_group(r, tids[i]) != g)
			tids[k++] = tids[i];
	}
	if (rdt_core_state(r)->ncgroups)
		n = k;
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

/* The live cgroups bound to g, one `cgroup` line each. */
static void save_cgroups(struct out *o, rdtalloc_t *r, int g)
{
	const struct rdt_state *st = rdt_core_state(r);
	const char *root = st->ncgroups ? rdt_core_cgroup_root(r) : NULL;
	unsigned int i;

	for (i = 0; root && i < st->ncgroups; i++) {
		uint64_t id;

		if (st->cgroups[i].group == g && !rdt_cgroup_id(root, st->cgroups[i].path, &id) &&
		    id == st->cgroups[i].id)
			outf(o, "\tcgroup%s %s\n", st->cgroups[i].enforce ? "-enforce" : "",
			     st->cgroups[i].path);
	}
	rdt_clear_err(r);	/* no cgroup2 mount: nothing to write */
}

/* A resource's domain ids as a list: "0-1", "0,2-3". */
static void ids_text(const struct rdt_machine *m, enum rdt_res res, char *buf, size_t len)
{
	int *ids = malloc((m->ndom[res] + 1) * sizeof(*ids));
	unsigned int d;

	buf[0] = '\0';
	if (!ids)
		return;
	for (d = 0; d < m->ndom[res]; d++)
		ids[d] = (int)m->dom[res][d].cache_id;
	if (rdt_cpulist_format(ids, m->ndom[res], buf, len) < 0)
		buf[0] = '\0';
	free(ids);
}

/* MB's units as the config's machine line numbers them: 0 percent, 1 amd, 2 mbps. */
static int mb_units(const struct rdt_caps *c)
{
	return c->mb_amd ? 1 : c->mb_mbps ? 2 : 0;
}

static const char *units_text(int units)
{
	return units == 1 ? "1/8 GB/s (AMD)" : units == 2 ? "MBps (mba_MBps)" : "percent";
}

/*
 * The first way the machine differs from the one the file was saved on
 * (its `machine` lines), as "line N: ..."; 0 when none does.
 */
static int machine_differs(const struct rdt_config *cfg, const struct rdt_machine *m,
			   char *why, size_t len)
{
	char here[512], there[512];
	unsigned int res, d;

	for (res = 0; res < RDT_NALL; res++) {
		const struct rdt_config_machine *f = &cfg->machine[res];
		const struct rdt_caps *c = &m->caps[res];
		bool same = true;

		if (!f->line)
			continue;
		if (!c->present) {
			snprintf(why, len, "line %u: the file was saved on a machine with %s; this "
				 "one has none", f->line, rdt_res_name(res));
			return (int)f->line;
		}
		same = f->nids == m->ndom[res];
		for (d = 0; same && d < f->nids; d++)
			same = (unsigned int)f->ids[d] == m->dom[res][d].cache_id;
		if (!same) {
			ids_text(m, (enum rdt_res)res, here, sizeof(here));
			if (rdt_cpulist_format(f->ids, f->nids, there, sizeof(there)) < 0)
				there[0] = '\0';
			snprintf(why, len, "line %u: %s %s ids here are %s, the file's machine had %s",
				 f->line, rdt_res_name(res), res == RDT_MB ? "domain" : "cache", here,
				 there);
			return (int)f->line;
		}
		if (f->cbm_len && f->cbm_len != c->cbm_len) {
			snprintf(why, len, "line %u: %s masks here are %u bits, the file's machine "
				 "had %u", f->line, rdt_res_name(res), c->cbm_len, f->cbm_len);
			return (int)f->line;
		}
		if (f->units >= 0 && f->units != mb_units(c)) {
			snprintf(why, len, "line %u: MB values here are %s, the file's machine had %s",
				 f->line, units_text(mb_units(c)), units_text(f->units));
			return (int)f->line;
		}
		if (f->max && f->max != c->mb_max) {
			snprintf(why, len, "line %u: MB's maximum here is %u, the file's machine had "
				 "%u", f->line, c->mb_max, f->max);
			return (int)f->line;
		}
	}
	return 0;
}

/* `machine` lines: the facts a file's schemas depend on (docs/config.md). */
static void save_machine(struct out *o, const struct rdt_machine *m)
{
	char ids[512];
	unsigned int res;

	for (res = 0; res < RDT_NALL; res++) {
		if (!m->caps[res].present)
			continue;
		ids_text(m, (enum rdt_res)res, ids, sizeof(ids));
		if (res == RDT_MB)
			outf(o, "machine MB ids=%s units=%s max=%u\n", ids,
			     m->caps[res].mb_amd ? "amd" : m->caps[res].mb_mbps ? "mbps" : "percent",
			     m->caps[res].mb_max);
		else
			outf(o, "machine %s ids=%s cbm_len=%u\n", rdt_res_name(res), ids,
			     m->caps[res].cbm_len);
	}
}

/* The configuration text of r's state into o; errmsg set on failure. */
static int save_text(rdtalloc_t *r, unsigned int flags, struct out *o)
{
	const struct rdt_state *st = rdt_core_state(r);
	unsigned int i, n, res;
	int *order, ret = 0;

	order = rdt_core_groups_in_order(st, &n);
	if (!order)
		return rdt_fail(r, -ENOMEM, "out of memory");
	outf(o, "# rdtalloc configuration (rdtctl save, librdtalloc %s)\n",
	     RDTALLOC_VERSION_STRING);
	outf(o, "# machine: %s\n", st->m->desc[0] ? st->m->desc : "host");
	save_machine(o, st->m);
	for (res = 0; res < RDT_NRES; res++)
		if (st->m->caps[res].present && st->m->caps[res].cdp)
			outf(o, "cdp %s %s\n", rdt_res_name(res), st->cdp[res] ? "on" : "off");
	for (i = 0; !ret && i < n; i++) {
		outf(o, "\ngroup %s\n", st->groups[order[i]].name);
		ret = save_schema(o, st, order[i]);
		if (!ret && st->groups[order[i]].exclusive)
			outf(o, "\tmode exclusive%s\n", st->groups[order[i]].forced ? " force" : "");
		if (!ret && order[i] != 0)
			ret = save_cpus(o, st, order[i]);
		if (!ret && order[i] != 0)
			save_cgroups(o, r, order[i]);
		/* task ids name processes of this boot only: written when asked for */
		if (!ret && order[i] != 0 && (flags & RDTALLOC_SAVE_TASKS))
			ret = save_tasks(o, r, order[i]);
	}
	free(order);
	if (ret && !rdt_errmsg_is_set(r))
		ret = rdt_fail(r, ret, "%s", rdtalloc_strerror(ret));
	return ret;
}

RDTALLOC_API int rdtalloc_save_config_flags(rdtalloc_t *r, unsigned int flags, char *buf,
					    size_t len)
{
	struct out o = { .buf = buf, .len = len, .sum = RDT_CONFIG_CHECKSUM_INIT };
	int ret;

	if (!r)
		return -EINVAL;
	if (!buf && len)
		return rdt_fail(r, -EINVAL, "the buffer is NULL but its length is %zu", len);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (flags & ~RDTALLOC_SAVE_TASKS)
		ret = rdt_fail(r, -EINVAL, "unknown save flags 0x%x", flags);
	else
		ret = save_text(r, flags, &o);
	/* the last line: what a file cut short lacks, with the checksum of the rest */
	if (!ret) {
		outf(&o, "\n");
		outf(&o, "end fnv1a64=%016llx\n", (unsigned long long)o.sum);
	}
	if (!ret && o.nomem)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (!ret && o.pos > INT_MAX)
		ret = rdt_fail(r, -EOVERFLOW, "the configuration needs %zu bytes, more than an int",
			       o.pos + 1);
	else if (!ret)
		ret = (int)o.pos;
	return rdt_core_end(r, false, ret);
}

/*
 * The promise of 0.1: tasks included, and -ERANGE when the text does not
 * fit; buf NULL with len 0 asks for the length, as snprintf answers it.
 */
RDTALLOC_API int rdtalloc_save_config(rdtalloc_t *r, char *buf, size_t len)
{
	int ret = rdtalloc_save_config_flags(r, RDTALLOC_SAVE_TASKS, buf, len);

	if (ret >= 0 && buf && (size_t)ret >= len)
		ret = rdt_fail(r, -ERANGE, "the configuration needs %zu bytes, the buffer has %zu",
			       (size_t)ret + 1, len);
	return ret;
}

/* ---- Apply ----------------------------------------------------------------- */

/* What apply did, one line per change (docs/config.md, "The report"). */
struct report {
	char *s;
	size_t len;
	size_t cap;
	bool nomem;		/* a line was lost: the apply fails */
};

struct apply {
	rdtalloc_t *r;
	struct rdt_state *work;
	const struct rdt_config *cfg;
	unsigned int flags;
	int changes;
	struct report *rep;	/* NULL: nobody reads it, nothing is written */
	unsigned int nmodes;	/* groups of the working copy when modes were put aside */
	int *created;		/* the groups this file created, in order */
	unsigned int ncreated, cap_created;
	const char *name;	/* the caller's name for the configuration; NULL: none */
	char owner[RDT_OWNER_MAX + 1];	/* "config:NAME": who this apply's changes are by */
	unsigned int own;	/* owner's index in work's owners */
	bool all;		/* RDTALLOC_APPLY_PRUNE_ALL: the state becomes the file, whoever's */
};

/* Was group owner o (of a->work) made by this configuration (or is all of it ours)? */
static bool mine(const struct apply *a, unsigned int o)
{
	return a->all || (o && o == a->own);
}

/*
 * May the file's list of a group's members drop a binding of owner o? It
 * is an administrator's list: what a person, a configuration or a version
 * before owners bound goes when not listed; what the OCI hook or the
 * controller bound stays.
 */
static bool listed_by_admin(const struct apply *a, unsigned int o)
{
	const char *name = rdt_owner_name(a->work, o);

	return a->all || !name || rdt_owner_admin(name);
}

static void report(struct apply *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(struct apply *a, const char *fmt, ...)
{
	struct report *rep = a->rep;
	va_list ap;
	int n;

	if (!rep || rep->nomem)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		rep->nomem = true;
		return;
	}
	if (rep->len + (size_t)n + 2 > rep->cap) {
		size_t cap = (rep->len + (size_t)n + 2) * 2;
		char *s = realloc(rep->s, cap);

		if (!s) {
			rep->nomem = true;
			return;
		}
		rep->s = s;
		rep->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(rep->s + rep->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rep->len += (size_t)n;
	rep->s[rep->len++] = '\n';
	rep->s[rep->len] = '\0';
}

/* Group g's schema on one line: its resource lines joined by a space. */
static char *schema_words(const struct rdt_state *st, int g)
{
	int n = rdt_core_format_schema(st, g, NULL, 0);
	char *text, *p;

	if (n < 0)
		return NULL;
	text = malloc((size_t)n + 1);
	if (!text)
		return NULL;
	rdt_core_format_schema(st, g, text, (size_t)n + 1);
	while (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return text;
}

static const char *group_name(const struct apply *a, int g)
{
	return a->work->groups[g].name;
}

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

/*
 * The groups the file does not name go: those earlier applies of this
 * configuration made (RDTALLOC_APPLY_PRUNE), or every one (_PRUNE_ALL).
 * Another owner's group stays, and so does one of ours that holds what
 * another owner bound (a container the hook placed): both are reported.
 */
static int prune(struct apply *a)
{
	struct rdt_state *w = a->work;
	unsigned int i;
	int ret;

	for (i = 1; i < w->ngroups; i++) {
		const char *o = rdt_owner_name(w, w->groups[i].owner);

		if (!w->groups[i].live || named(a->cfg, w->groups[i].name))
			continue;
		if (!mine(a, w->groups[i].owner)) {
			report(a, "keep group %s: not managed by this configuration (owner %s)",
			       w->groups[i].name, o ? o : "unknown");
			continue;
		}
		ret = rdt_group_del(w, (int)i);
		if (ret == -EBUSY) {
			report(a, "keep group %s: %s", w->groups[i].name, w->err);
			continue;
		}
		if (ret)
			return rdt_fail(a->r, ret, "removing group '%s': %s", w->groups[i].name,
					w->err);
		report(a, "remove group %s", w->groups[i].name);
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
		report(a, "cdp %s %s", rdt_res_name(res), want ? "on" : "off");
		a->changes++;
	}
	return 0;
}

static int bind_cpu(struct apply *a, int g, int cpu, unsigned int line)
{
	int ret = rdt_bind_cpu(a->work, g, cpu);

	if (ret)
		return at_line(a, line, rdt_fail(a->r, ret, "%s", a->work->err));
	report(a, "cpu %d -> %s", cpu, group_name(a, g));
	a->changes++;
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

		if (w->cpu_group[c] != g || !listed_by_admin(a, w->cpu_owner[c]))
			continue;
		for (i = 0; i < cg->ncpus && !listed; i++)
			listed = cg->cpus[i] == (int)c;
		if (listed)
			continue;
		ret = bind_cpu(a, 0, (int)c, cg->cpus_line);
		if (ret)
			return ret;
	}
	for (i = 0; i < cg->ncpus; i++) {
		if (w->cpu_group[cg->cpus[i]] == g)
			continue;
		ret = bind_cpu(a, g, cg->cpus[i], cg->cpu_lines[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Tasks group g holds that the file does not list go back to default. */
static int drop_tasks(struct apply *a, const struct rdt_config_group *cg, int g)
{
	struct rdt_state *w = a->work;
	pid_t *drop = malloc((w->tasks.len ? w->tasks.len : 1) * sizeof(pid_t));
	size_t i, ndrop = 0;
	unsigned int j;
	int ret = 0;

	if (!drop)
		return rdt_fail(a->r, -ENOMEM, "out of memory");
	for (i = 0; i < w->tasks.cap; i++) {
		const struct rdt_task *t = &w->tasks.slots[i];
		bool listed = false;

		if (!t->tid || t->group != g || !listed_by_admin(a, t->owner))
			continue;
		for (j = 0; j < cg->ntasks && !listed; j++)
			listed = cg->tasks[j] == t->tid;
		if (!listed)
			drop[ndrop++] = t->tid;
	}
	for (i = 0; i < ndrop && !ret; i++) {
		ret = rdt_bind_task(w, 0, drop[i], 0);
		if (!ret)
			report(a, "task %d -> %s", (int)drop[i], group_name(a, 0));
		a->changes++;
	}
	free(drop);
	if (ret)
		return at_line(a, cg->tasks_line, rdt_fail(a->r, ret, "%s", w->err));
	return 0;
}

/*
 * With RDTALLOC_APPLY_SKIP_MISSING_TASKS a task that does not exist (after
 * a reboot: most saved ids) is reported and left out, not a failure.
 */
static int check_task(struct apply *a, pid_t *tid, uint64_t *start, unsigned int line,
		      bool *skip)
{
	pid_t asked = *tid;
	int ret = rdt_core_check_task(a->r, tid, start);

	*skip = false;
	if (ret == -ESRCH && (a->flags & RDTALLOC_APPLY_SKIP_MISSING_TASKS)) {
		report(a, "skip task %d (line %u): no such task", (int)asked, line);
		*skip = true;
		return 0;
	}
	return ret ? at_line(a, line, ret) : 0;
}

static int apply_tasks(struct apply *a, const struct rdt_config_group *cg, int g)
{
	struct rdt_state *w = a->work;
	unsigned int j;
	bool skip;
	int ret;

	if (g != 0) {
		ret = drop_tasks(a, cg, g);
		if (ret)
			return ret;
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

		ret = check_task(a, &tid, &start, cg->task_lines[j], &skip);
		if (ret)
			return ret;
		if (skip)
			continue;
		t = rdt_task_map_get(&w->tasks, tid);
		if ((t ? t->group : 0) == g && (!t || t->start == start))
			continue;
		ret = rdt_bind_task(w, g, tid, start);
		if (ret)
			return at_line(a, cg->task_lines[j], rdt_fail(a->r, ret, "%s", w->err));
		report(a, "task %d -> %s", (int)tid, group_name(a, g));
		a->changes++;
	}
	return 0;
}

/*
 * Bind the i-th cgroup of cg (rel, id) to g with the line's policy. A new
 * policy is a change of the binding, under the owner rules: reported as
 * "policy PATH -> enforce|yield" (a new binding that yields, the default,
 * needs no such line).
 */
static int bind_listed(struct apply *a, const struct rdt_config_group *cg, unsigned int i, int g,
		       const char *rel, uint64_t id)
{
	struct rdt_state *w = a->work;
	const struct rdt_cgroup *c = rdt_cgroup_find(w, rel);
	bool enforce = cg->cgroup_enforce[i];
	int ret;

	if (!(c && c->group == g && c->id == id)) {
		ret = rdt_bind_cgroup(w, g, rel, id);
		if (ret)
			return at_line(a, cg->cgroup_lines[i], rdt_fail(a->r, ret, "%s", w->err));
		report(a, "cgroup %s -> %s", rel, group_name(a, g));
		a->changes++;
		c = rdt_cgroup_find(w, rel);
	}
	if (c->enforce == enforce)
		return 0;
	ret = rdt_cgroup_set_enforce(w, rel, enforce);
	if (ret)
		return at_line(a, cg->cgroup_lines[i], rdt_fail(a->r, ret, "%s", w->err));
	report(a, "policy %s -> %s", rel, enforce ? "enforce" : "yield");
	a->changes++;
	return 0;
}

/*
 * The cgroups of cg are group g's: those bound to g that the file does not
 * list are unbound, the listed ones bound. A cgroup that does not exist
 * fails the line, or with RDTALLOC_APPLY_SKIP_MISSING_TASKS is reported
 * and left out (a service's cgroup exists only while it runs).
 */
static int apply_cgroups(struct apply *a, const struct rdt_config_group *cg, int g)
{
	struct rdt_state *w = a->work;
	char (*rel)[RDT_CGROUP_PATH_MAX] = NULL;
	uint64_t *ids = NULL;
	bool *have = NULL;
	unsigned int i, j;
	int ret = 0;

	if (g == 0)
		return 0;
	if (cg->ncgroups && (ret = rdt_core_tasks_allowed(a->r)))
		return at_line(a, cg->cgroup_lines[0], ret);
	rel = calloc(cg->ncgroups + 1, sizeof(*rel));
	ids = calloc(cg->ncgroups + 1, sizeof(*ids));
	have = calloc(cg->ncgroups + 1, sizeof(*have));
	if (!rel || !ids || !have) {
		ret = rdt_fail(a->r, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < cg->ncgroups && !ret; i++) {
		ret = rdt_core_check_cgroup(a->r, cg->cgroups[i], rel[i], sizeof(rel[i]), &ids[i]);
		if (ret == -ENOENT && (a->flags & RDTALLOC_APPLY_SKIP_MISSING_TASKS) &&
		    rdt_core_cgroup_root(a->r)) {
			report(a, "skip cgroup %s (line %u): no such cgroup", cg->cgroups[i],
			       cg->cgroup_lines[i]);
			rdt_clear_err(a->r);
			ret = 0;
			continue;
		}
		if (ret) {
			ret = at_line(a, cg->cgroup_lines[i], ret);
			goto out;
		}
		have[i] = true;
		for (j = 0; j < i; j++)
			if (have[j] && !strcmp(rel[j], rel[i])) {
				ret = at_line(a, cg->cgroup_lines[i], rdt_fail(a->r, -EINVAL,
					"cgroup %s is listed twice (line %u)", rel[i],
					cg->cgroup_lines[j]));
				goto out;
			}
	}
	/* bound to g and not listed: back to default (the list is short) */
	for (j = 0; j < w->ncgroups;) {
		bool listed = false;

		for (i = 0; i < cg->ncgroups && !listed; i++)
			listed = have[i] && !strcmp(rel[i], w->cgroups[j].path);
		/* what the hook or a person bound into the group is theirs */
		if (w->cgroups[j].group != g || listed ||
		    !listed_by_admin(a, w->cgroups[j].owner)) {
			j++;
			continue;
		}
		report(a, "cgroup %s -> %s", w->cgroups[j].path, group_name(a, 0));
		rdt_bind_cgroup(w, 0, w->cgroups[j].path, 0);	/* shifts the next one here */
		a->changes++;
	}
	for (i = 0; i < cg->ncgroups && !ret; i++)
		ret = have[i] ? bind_listed(a, cg, i, g, rel[i], ids[i]) : 0;
out:
	free(rel);
	free(ids);
	free(have);
	return ret;
}

/* The schema of cg onto group g, reported as "schema G OLD -> NEW". */
static int group_schema(struct apply *a, const struct rdt_config_group *cg, int g)
{
	char *old = NULL, *now;
	bool changed = false;
	int ret;

	if (a->rep) {
		old = schema_words(a->work, g);
		if (!old)
			return rdt_fail(a->r, -ENOMEM, "out of memory");
	}
	ret = rdt_core_apply_schema(a->r, a->work, g, cg->schema, &changed);
	if (ret) {
		free(old);
		return at_line(a, cg->schema_line, ret);
	}
	if (changed && a->rep) {
		now = schema_words(a->work, g);
		if (!now)
			a->rep->nomem = true;
		else
			report(a, "schema %s %s -> %s", group_name(a, g), old, now);
		free(now);
	}
	free(old);
	a->changes += changed;
	return 0;
}

/*
 * Create the group and give it its schema. -ENOSPC is left to the caller
 * (it may pass once other groups have freed CLOSIDs); *g is the group
 * once it exists.
 */
static int group_masks(struct apply *a, const struct rdt_config_group *cg, int *g)
{
	int ret;

	*g = rdt_group_find(a->work, cg->name);
	if (*g < 0) {
		ret = rdt_group_add(a->work, cg->name, g);
		if (ret) {
			rdt_fail(a->r, ret, "%s", a->work->err);
			return at_line(a, cg->line, ret);
		}
		if (a->ncreated == a->cap_created) {
			unsigned int cap = a->cap_created ? a->cap_created * 2 : 16;
			int *v = realloc(a->created, cap * sizeof(*v));

			if (!v)
				return rdt_fail(a->r, -ENOMEM, "out of memory");
			a->created = v;
			a->cap_created = cap;
		}
		a->created[a->ncreated++] = *g;
		report(a, "create group %s", cg->name);
		a->changes++;
	}
	if (!cg->schema)
		return 0;
	return group_schema(a, cg, *g);
}

static int group_members(struct apply *a, const struct rdt_config_group *cg, int g)
{
	int ret;

	if (g != 0) {
		ret = apply_cpus(a, cg, g);
		if (!ret)
			ret = apply_cgroups(a, cg, g);
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

/* The mode group g takes: the file's, else the one it had. */
static bool wants_exclusive(struct apply *a, const bool *was, const bool *was_forced,
			    unsigned int g, bool *forced, unsigned int *line)
{
	const struct rdt_config_group *cg = named(a->cfg, a->work->groups[g].name);
	bool excl = g < a->nmodes ? was[g] : false;

	*forced = g < a->nmodes ? was_forced[g] : false;
	*line = 0;
	if (cg && cg->mode >= 0) {
		excl = cg->mode == 1;
		*forced = cg->mode_force;
		*line = cg->mode_line;
	}
	return excl;
}

/*
 * A group this file creates without a schema starts where
 * rdtalloc_group_create would start it: on the ways no exclusive group (as
 * the file leaves them) holds, not on all of them.
 */
static int place_new_groups(struct apply *a, const bool *was, const bool *was_forced)
{
	struct rdt_state *w = a->work;
	unsigned int g, i, line;
	bool forced, any = false;
	int ret = 0;

	for (i = 0; i < a->ncreated; i++)
		any |= !named(a->cfg, w->groups[a->created[i]].name)->schema;
	if (!any)
		return 0;
	for (g = 0; g < w->ngroups && !ret; g++)
		if (w->groups[g].live && wants_exclusive(a, was, was_forced, g, &forced, &line))
			ret = rdt_group_mark_exclusive(w, (int)g, true, forced);
	for (i = 0; i < a->ncreated && !ret; i++) {
		const struct rdt_config_group *cg;

		g = (unsigned int)a->created[i];
		cg = named(a->cfg, w->groups[g].name);
		if (cg->schema)
			continue;
		ret = rdt_group_fit_exclusive(w, (int)g);
		if (ret)
			ret = at_line(a, cg->line, rdt_fail(a->r, ret, "%s", w->err));
	}
	for (g = 0; g < w->ngroups; g++)
		if (w->groups[g].live && w->groups[g].exclusive &&
		    rdt_group_mark_exclusive(w, (int)g, false, false) && !ret)
			ret = rdt_fail(a->r, -ENOMEM, "out of memory");
	return ret;
}

/*
 * The line that set a schema overlapping group g's ways (the schema line of
 * the first such group in the file, else its block's), 0 when no group of
 * the file does: where an exclusive mode the file does not give fails.
 */
static unsigned int overlap_line(struct apply *a, unsigned int g)
{
	const struct rdt_state *w = a->work;
	unsigned int h, s;

	for (h = 0; h < w->ngroups; h++) {
		const struct rdt_config_group *cg;
		bool meet = false;

		if (h == g || !w->groups[h].live)
			continue;
		cg = named(a->cfg, w->groups[h].name);
		if (!cg)
			continue;
		for (s = 0; s < w->nslots && !meet; s++)
			meet = w->slot[s].res != RDT_MB &&
			       ((w->groups[g].mask[s * 2] | w->groups[g].mask[s * 2 + 1]) &
				(w->groups[h].mask[s * 2] | w->groups[h].mask[s * 2 + 1]));
		if (meet)
			return cg->schema ? cg->schema_line : cg->line;
	}
	return 0;
}

/*
 * Modes go last: while the file's schemas are set every group is
 * shareable, so their order does not matter; then each group takes the
 * mode the file gives it, else the one it had, and an exclusive one that
 * overlaps another is refused naming the line: its mode line, else the
 * line that put the other group on its ways.
 */
static int apply_modes(struct apply *a, const bool *was, const bool *was_forced)
{
	struct rdt_state *w = a->work;
	unsigned int g;
	int ret = place_new_groups(a, was, was_forced);

	for (g = 0; g < w->ngroups && !ret; g++) {
		const struct rdt_config_group *cg;
		bool excl, forced;
		unsigned int line = 0;

		if (!w->groups[g].live)
			continue;
		excl = wants_exclusive(a, was, was_forced, g, &forced, &line);
		if (!excl)
			continue;
		ret = rdt_group_set_exclusive(w, (int)g, true, forced);
		if (ret) {
			rdt_fail(a->r, ret, "%s", w->err);
			if (!line)
				line = overlap_line(a, g);
			if (!line && (cg = named(a->cfg, w->groups[g].name)))
				line = cg->line;
			ret = line ? at_line(a, line, ret) : ret;
			break;
		}
		if (g >= a->nmodes || !was[g]) {
			a->changes++;
			report(a, "mode %s exclusive", w->groups[g].name);
		}
	}
	for (g = 0; g < a->nmodes && g < w->ngroups && !ret; g++)
		if (was[g] && w->groups[g].live && !w->groups[g].exclusive) {
			a->changes++;
			report(a, "mode %s shareable", w->groups[g].name);
		}
	return ret;
}

static int apply_all(struct apply *a)
{
	bool *was = NULL, *was_forced = NULL;
	unsigned int g;
	int ret = 0;

	if (a->flags & (RDTALLOC_APPLY_PRUNE | RDTALLOC_APPLY_PRUNE_ALL))
		ret = prune(a);
	if (!ret)
		ret = apply_cdp(a);
	a->nmodes = a->work->ngroups;
	was = calloc(a->nmodes + 1, sizeof(bool));
	was_forced = calloc(a->nmodes + 1, sizeof(bool));
	if (!ret && (!was || !was_forced))
		ret = rdt_fail(a->r, -ENOMEM, "out of memory");
	for (g = 0; !ret && g < a->nmodes; g++) {
		was[g] = a->work->groups[g].live && a->work->groups[g].exclusive;
		was_forced[g] = was[g] && a->work->groups[g].forced;
		if (!ret && a->work->groups[g].live)
			ret = rdt_group_mark_exclusive(a->work, (int)g, false, false);
	}
	if (!ret)
		ret = apply_groups(a);
	if (!ret)
		ret = apply_modes(a, was, was_forced);
	free(was);
	free(was_forced);
	if (!ret && a->rep && a->rep->nomem)
		ret = rdt_fail(a->r, -ENOMEM, "out of memory writing the report");
	return ret;
}

/*
 * Whose this apply's changes are: "config:NAME", the file's `name` line,
 * else the caller's name for it, else "default". The working copy writes
 * as that owner; --force (RDTALLOC_F_FORCE) or _PRUNE_ALL take over what
 * others made.
 */
static int apply_owner(struct apply *a)
{
	const char *name = a->cfg->name[0] ? a->cfg->name : a->name ? a->name : "default";
	char why[RDT_ERR_LEN], text[RDT_OWNER_MAX + 8];
	int ret;

	if (strlen(name) > RDT_CONFIG_NAME_MAX)
		return rdt_fail(a->r, -EINVAL, "configuration name '%.64s...' is longer than %d "
				"bytes", name, RDT_CONFIG_NAME_MAX);
	snprintf(text, sizeof(text), "config:%s", name);
	ret = rdt_core_owner_text(text, a->owner, sizeof(a->owner), why, sizeof(why));
	if (ret)
		return rdt_fail(a->r, ret, "configuration name '%.64s': %s", name, why);
	a->all = (a->flags & RDTALLOC_APPLY_PRUNE_ALL) != 0;
	a->work->writer = a->owner;
	a->work->writer_idx = 0;
	a->work->force = rdt_core_force(a->r) || a->all;
	if (rdt_owner_writer(a->work, &a->own))
		return rdt_fail(a->r, -ENOMEM, "out of memory");
	return 0;
}

/* Parse text and run it on a working copy; the copy replaces r->st unless dry. */
static int apply_text(struct apply *a, const char *text)
{
	rdtalloc_t *r = a->r;
	struct rdt_config *cfg = NULL;
	char err[RDT_ERRMSG_MAX] = "";
	int ret;

	ret = rdt_config_parse(text, &cfg, err, sizeof(err));
	if (ret) {
		rdt_fail(r, ret, "%s", err[0] ? err : "invalid configuration");
		goto out;
	}
	ret = rdt_state_clone(rdt_core_state(r), &a->work);
	if (ret) {
		rdt_fail(r, ret, "out of memory");
		goto out;
	}
	/*
	 * A dry run works on a copy without the sink: it writes no register.
	 * A real apply writes as it goes; a refusal later in the file is
	 * undone by the backend's abort, which puts back every register.
	 */
	if (!(a->flags & RDTALLOC_APPLY_DRY_RUN))
		a->work->sink = rdt_core_sink(r);
	a->cfg = cfg;
	ret = apply_owner(a);
	if (ret)
		goto out;
	{
		char why[RDT_ERRMSG_MAX - 128];

		if (machine_differs(cfg, a->work->m, why, sizeof(why))) {
			if (!(a->flags & RDTALLOC_APPLY_FORCE_MACHINE)) {
				ret = rdt_fail(r, -EXDEV, "%s: the file was made for another "
					       "machine (apply it anyway with --force-machine, "
					       "RDTALLOC_APPLY_FORCE_MACHINE)", why);
				goto out;
			}
			report(a, "machine differs, applied anyway (--force-machine): %s", why);
		}
	}
	{
		size_t listed = 0;

		for (unsigned int i = 0; i < cfg->ngroups; i++)
			listed += cfg->groups[i].ntasks;
		/* room for the file's tasks: bindings of exited ones go first */
		if (a->work->tasks.len + listed > a->work->max_tasks)
			rdt_core_sweep_tasks(r, a->work);
	}
	ret = apply_all(a);
	if (ret)
		goto out;
	/*
	 * The backend's checks before anything is written, for a dry run and a
	 * real apply alike: a refusal names the line of the group it is about.
	 */
	if (a->changes && rdt_core_backend(r)->ops->check) {
		int g = -1;

		ret = rdt_core_backend(r)->ops->check(r, a->work, &g);
		if (ret) {
			/* the line of the group the refusal is about, as for every error */
			const struct rdt_config_group *cg =
				g >= 0 ? named(cfg, a->work->groups[g].name) : NULL;

			if (cg)
				ret = at_line(a, cg->schema ? cg->schema_line : cg->line, ret);
			goto out;
		}
	}
	ret = a->changes;
	/* a warning belongs to a change: a file that changes nothing has none */
	if (!a->changes)
		rdt_core_clear_warnings(r);
	if (!(a->flags & RDTALLOC_APPLY_DRY_RUN) && a->changes) {
		struct rdt_state *old = rdt_core_swap_state(r, a->work);

		a->work = old;	/* freed below */
		rdt_core_mark_dirty(r);
		rdt_core_mark_groups_changed(r);
		rdt_core_mark_cgroups_changed(r);
		/* a failure here is undone by rdt_core_end like any other */
		if ((ret = rdt_core_carry_tasks(r, old)) == 0)
			ret = a->changes;
	}
out:
	rdt_state_free(a->work);
	a->work = NULL;
	free(a->created);
	a->created = NULL;
	rdt_config_free(cfg);
	return ret;
}

#define APPLY_FLAGS \
	(RDTALLOC_APPLY_PRUNE | RDTALLOC_APPLY_DRY_RUN | RDTALLOC_APPLY_SKIP_MISSING_TASKS | \
	 RDTALLOC_APPLY_FORCE_MACHINE | RDTALLOC_APPLY_PRUNE_ALL)

int rdt_apply_in_call(rdtalloc_t *r, const char *text, const char *name, unsigned int flags,
		      char *buf, size_t len, size_t *report_len)
{
	struct report rep = { 0 };
	struct apply a = { .r = r, .flags = flags, .name = name && *name ? name : NULL };
	int ret = 0;

	if (report_len)
		*report_len = 0;
	if (len)
		buf[0] = '\0';
	if (!text)
		ret = rdt_fail(r, -EINVAL, "configuration text is NULL");
	else if (strnlen(text, RDTALLOC_CONFIG_MAX + 1) > RDTALLOC_CONFIG_MAX)
		ret = rdt_fail(r, -E2BIG, "the configuration is larger than %u MiB, the most one "
			       "may be", RDTALLOC_CONFIG_MAX >> 20);
	else if (flags & ~APPLY_FLAGS)
		ret = rdt_fail(r, -EINVAL, "unknown apply flags 0x%x", flags);
	if (ret)
		return ret;
	/* a report nobody asked for is not written */
	if (buf || report_len)
		a.rep = &rep;
	ret = apply_text(&a, text);
	/* nothing changed on failure: the report is empty */
	if (ret >= 0 && rep.len) {
		if (len)
			snprintf(buf, len, "%s", rep.s);
		if (report_len)
			*report_len = rep.len;
	}
	free(rep.s);
	return ret;
}

RDTALLOC_API int rdtalloc_apply_config_report(rdtalloc_t *r, const char *text, unsigned int flags,
					      char *buf, size_t len, size_t *report_len)
{
	return rdtalloc_apply_config_as(r, text, NULL, flags, buf, len, report_len);
}

RDTALLOC_API int rdtalloc_apply_config_as(rdtalloc_t *r, const char *text, const char *name,
					  unsigned int flags, char *buf, size_t len,
					  size_t *report_len)
{
	bool write;
	int ret;

	if (!r)
		return -EINVAL;
	if (!buf && len)
		return rdt_fail(r, -EINVAL, "the report buffer is NULL but its length is %zu", len);
	if (report_len)
		*report_len = 0;
	if (len)
		buf[0] = '\0';
	/* a dry run only looks: it works on a copy, on a read-only context too */
	write = !(flags & RDTALLOC_APPLY_DRY_RUN);
	ret = rdt_core_begin(r, write);
	if (ret)
		return ret;
	ret = rdt_apply_in_call(r, text, name, flags, buf, len, report_len);
	return rdt_core_end(r, write, ret);
}

RDTALLOC_API int rdtalloc_apply_config(rdtalloc_t *r, const char *text, unsigned int flags)
{
	return rdtalloc_apply_config_report(r, text, flags, NULL, 0, NULL);
}
