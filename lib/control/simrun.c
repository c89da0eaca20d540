// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * simrun: a simulated run in time (rdtalloc_control_sim_run). Each group's
 * traces are one stream of accesses (an interval may straddle two); in an
 * interval every group that has accesses left issues the next K of them,
 * one access of each in turn in the order given, through the model of one
 * L3 domain (cache/cache.h), filling only the ways of the mask in force at
 * the interval's start. The cache is never flushed: a group that ran out
 * still holds its lines, and lines outside a new mask stay until evicted,
 * as CAT does. Counters are the interval's own: traffic = misses x 64,
 * occupancy = the lines a group holds at the interval's end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "control/control.h"
#include "context.h"
#include "errors.h"

#define BATCH 1024u			/* accesses read at once per stream */
#define INTERVAL_ACCESSES_MAX (1ull << 40)

struct phase_stream {
	const struct rdtalloc_control_group *g;
	size_t next;			/* the trace to open when this one ends */
	struct rdt_trace *t;
	uint64_t buf[BATCH];
	size_t pos, len;
	bool done;			/* its last trace ended */
};

struct simrun {
	rdtalloc_t *r;
	const struct rdtalloc_control_conf *conf;
	size_t n;
	struct phase_stream *s;
	struct rdt_cache cache;
	struct rdtalloc_control_sample *smp;
	uint64_t *occ, *masks;
	bool instr;
};

/* The stream's next access: 1, 0 when its last trace has ended, -errno. */
static int stream_next(struct simrun *run, struct phase_stream *s, uint64_t *line)
{
	char err[RDT_ERRMSG_MAX];
	ssize_t got;

	while (s->pos == s->len) {
		if (s->done)
			return 0;
		if (!s->t) {
			if (s->next == s->g->ntraces) {
				s->done = true;
				return 0;
			}
			if (rdt_trace_open(s->g->traces[s->next], run->instr, &s->t, err,
					   sizeof(err)))
				return rdt_fail(run->r, -EINVAL, "group %s: %s", s->g->group, err);
			s->next++;
		}
		got = rdt_trace_read(s->t, s->buf, BATCH, err, sizeof(err));
		if (got < 0)
			return rdt_fail(run->r, (int)got, "group %s: %s", s->g->group, err);
		if (!got) {
			rdt_trace_close(s->t);
			s->t = NULL;
		}
		s->pos = 0;
		s->len = (size_t)got;
	}
	*line = s->buf[s->pos++];
	return 1;
}

/* One interval; how many groups issued an access in it (0: the run is over). */
static int one_interval(struct simrun *run, uint64_t k)
{
	uint64_t left[RDTALLOC_CONTROL_MAX], line = 0;
	size_t i, live = 0, active = 0;
	int ret;

	for (i = 0; i < run->n; i++) {
		memset(&run->smp[i].accesses, 0,
		       sizeof(run->smp[i]) - offsetof(struct rdtalloc_control_sample, accesses));
		run->smp[i].mask = run->masks[i];
		left[i] = run->s[i].done ? 0 : k;
		live += left[i] != 0;
	}
	while (live) {
		for (i = 0; i < run->n; i++) {
			if (!left[i])
				continue;
			ret = stream_next(run, &run->s[i], &line);
			if (ret < 0)
				return ret;
			if (!ret) {
				left[i] = 0;
				live--;
				continue;
			}
			if (!--left[i])
				live--;
			run->smp[i].accesses++;
			if (!rdt_cache_access(&run->cache, line, run->masks[i], (uint16_t)i))
				run->smp[i].misses++;
		}
	}
	memset(run->occ, 0, run->n * sizeof(*run->occ));
	rdt_cache_occupancy(&run->cache, run->occ, (unsigned int)run->n);
	for (i = 0; i < run->n; i++) {
		run->smp[i].llc_occupancy = run->occ[i] * RDT_LINE;
		run->smp[i].mbm_total = run->smp[i].misses * RDT_LINE;
		active += run->smp[i].accesses != 0;
	}
	return (int)active;
}

static int check_groups(rdtalloc_t *r, const struct rdtalloc_control_conf *conf, size_t n,
			const struct rdtalloc_control_group *g, bool sim)
{
	size_t i, j, t;

	if (!n || n > RDTALLOC_CONTROL_MAX)
		return rdt_fail(r, -EINVAL, "%zu groups: a controller takes 1 to %d", n,
				RDTALLOC_CONTROL_MAX);
	for (i = 0; i < n; i++) {
		if (g[i].sz < offsetof(struct rdtalloc_control_group, ntraces))
			return rdt_fail(r, -EINVAL, "group %zu: sz is not set", i);
		if (!g[i].group || !g[i].group[0] || strlen(g[i].group) > RDTALLOC_NAME_MAX)
			return rdt_fail(r, -EINVAL, "group %zu: a name of 1 to %d characters", i,
					RDTALLOC_NAME_MAX);
		for (j = 0; j < i; j++)
			if (!strcmp(g[j].group, g[i].group))
				return rdt_fail(r, -EINVAL, "group %s is given twice", g[i].group);
		if (g[i].bound_miss_ratio < 0 || g[i].bound_miss_ratio >= 1 ||
		    g[i].bound_miss_ratio != g[i].bound_miss_ratio)
			return rdt_fail(r, -EINVAL, "group %s: a miss-ratio bound is above 0 and "
					"below 1", g[i].group);
		if (g[i].bound_miss_ratio > 0 && g[i].bound_bytes_per_sec)
			return rdt_fail(r, -EINVAL, "group %s: one bound, a miss ratio or bytes "
					"per second", g[i].group);
		if ((g[i].bound_miss_ratio > 0 || g[i].bound_bytes_per_sec) && g[i].exclusive)
			return rdt_fail(r, -EINVAL, "group %s: a bound or exclusive, not both (a "
					"bound gets a block of its own)", g[i].group);
		if (!sim)
			continue;
		if (g[i].sz < sizeof(g[i]))
			return rdt_fail(r, -EINVAL, "group %s: sz is not set", g[i].group);
		if (!g[i].ntraces || !g[i].traces)
			return rdt_fail(r, -EINVAL, "group %s: no trace to run", g[i].group);
		if (g[i].ntraces > RDTALLOC_CONTROL_PHASES_MAX)
			return rdt_fail(r, -E2BIG, "group %s: %zu traces, at most %d", g[i].group,
					g[i].ntraces, RDTALLOC_CONTROL_PHASES_MAX);
		for (t = 0; t < g[i].ntraces; t++)
			if (!g[i].traces[t] || !g[i].traces[t][0])
				return rdt_fail(r, -EINVAL, "group %s: trace %zu has no name",
						g[i].group, t + 1);
	}
	if (conf->flags & ~(RDTALLOC_CONTROL_OFF | RDTALLOC_CONTROL_STATIC |
			    RDTALLOC_CONTROL_INSTR))
		return rdt_fail(r, -EINVAL, "unknown control flags %#x", conf->flags);
	if ((conf->flags & RDTALLOC_CONTROL_OFF) && (conf->flags & RDTALLOC_CONTROL_STATIC))
		return rdt_fail(r, -EINVAL, "RDTALLOC_CONTROL_OFF or _STATIC, not both");
	if (conf->interval_ms > 3600u * 1000u)
		return rdt_fail(r, -EINVAL, "an interval of %u ms: at most an hour",
				conf->interval_ms);
	return 0;
}

/* The controller of a configuration, over the domain's ways less those avoided. */
int rdt_control_engine(rdtalloc_t *r, const struct rdtalloc_control_conf *conf, size_t n,
		       const struct rdtalloc_control_group *g, unsigned int ways,
		       uint64_t way_bytes, struct rdt_ctl *c)
{
	struct rdt_ctl_goal goal[RDTALLOC_CONTROL_MAX];
	uint64_t full = ways >= 64 ? ~0ull : (1ull << ways) - 1, allowed, low, spread;
	unsigned int ms = conf->interval_ms ? conf->interval_ms : 1000, window, writes;
	char err[RDT_ERRMSG_MAX];
	int ret;

	if (conf->avoid & ~full)
		return rdt_fail(r, -EINVAL, "ways to leave alone %#llx: the domain has %u ways",
				(unsigned long long)conf->avoid, ways);
	if (!(full & ~conf->avoid))
		return rdt_fail(r, -EINVAL, "no way is left for the controller to use: it leaves "
				"%#llx alone (--avoid, other groups' exclusive ways, and the "
				"hardware's I/O ways - shareable_bits, io_alloc: rdtctl io-alloc "
				"show - unless --shareable)", (unsigned long long)conf->avoid);
	memset(goal, 0, sizeof(goal));
	for (size_t i = 0; i < n; i++) {
		goal[i].bound_ratio = g[i].bound_miss_ratio;
		goal[i].bound_bytes = (uint64_t)((double)g[i].bound_bytes_per_sec * ms / 1000.0);
		if (g[i].bound_bytes_per_sec && !goal[i].bound_bytes)
			goal[i].bound_bytes = 1;
		goal[i].exclusive = g[i].exclusive;
	}
	window = (60000u + ms - 1) / ms;
	writes = conf->writes_per_minute;
	allowed = full & ~conf->avoid;
	/* a sparse machine: the ways left need not be one run (io_alloc's in the middle) */
	low = allowed & -allowed;
	spread = rdt_core_state(r)->m->caps[RDT_L3].sparse && ((allowed + low) & allowed) ? allowed : 0;
	if (spread)
		allowed = (1ull << __builtin_popcountll(allowed)) - 1;
	ret = rdt_ctl_init(c, (unsigned int)n, allowed, way_bytes, goal, writes, window, err,
			   sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	c->spread = spread;
	return 0;
}

int rdt_control_check(rdtalloc_t *r, const struct rdtalloc_control_conf *conf, size_t n,
		      const struct rdtalloc_control_group *g, bool sim)
{
	if (!conf || conf->sz < offsetof(struct rdtalloc_control_conf, interval_accesses))
		return rdt_fail(r, -EINVAL, "the control configuration's sz is not set");
	if (n && !g)
		return rdt_fail(r, -EINVAL, "no groups");
	return check_groups(r, conf, n, g, sim);
}

static int emit_interval(struct simrun *run, uint64_t t, unsigned int cache_id,
			 rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_control_record rec = {
		.sz = sizeof(rec), .kind = RDTALLOC_CONTROL_INTERVAL, .interval = t,
		.cache_id = cache_id, .ngroups = run->n, .groups = run->smp,
	};

	return cb ? cb(&rec, arg) : 0;
}

static int emit_decision(const struct simrun *run, const struct rdt_ctl_event *ev, uint64_t t,
			 unsigned int cache_id, rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_control_record rec = {
		.sz = sizeof(rec), .kind = RDTALLOC_CONTROL_DECISION, .interval = t,
		.cache_id = cache_id, .action = ev->action, .reason = ev->why,
		.base = ev->base, .measured = ev->measured, .margin = ev->margin,
		.group = ev->group >= 0 && (size_t)ev->group < run->n ?
			 run->smp[ev->group].group : NULL,
	};

	return cb && ev->action ? cb(&rec, arg) : 0;
}

static int sim_loop(struct simrun *run, struct rdt_ctl *ctl, unsigned int cache_id,
		    rdtalloc_control_cb cb, void *arg)
{
	const struct rdtalloc_control_conf *conf = run->conf;
	struct rdt_ctl_sample s[RDTALLOC_CONTROL_MAX];
	struct rdt_ctl_event ev;
	uint64_t t;
	int ret;

	for (t = 0; !conf->intervals || t < conf->intervals; t++) {
		ret = one_interval(run, conf->interval_accesses);
		if (ret <= 0)
			return ret;
		ret = emit_interval(run, t, cache_id, cb, arg);
		if (ret)
			return ret;
		if (!ctl)
			continue;
		for (size_t i = 0; i < run->n; i++) {
			s[i].accesses = run->smp[i].accesses;
			s[i].misses = run->smp[i].misses;
			s[i].occ_bytes = run->smp[i].llc_occupancy;
			s[i].mbm_bytes = run->smp[i].mbm_total;
		}
		rdt_ctl_step(ctl, s, &ev);
		if (ev.changed)
			rdt_ctl_masks(ctl, &ctl->cur, run->masks);
		ret = emit_decision(run, &ev, t, cache_id, cb, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static void simrun_free(struct simrun *run)
{
	for (size_t i = 0; run->s && i < run->n; i++)
		rdt_trace_close(run->s[i].t);
	free(run->s);
	free(run->smp);
	free(run->occ);
	free(run->masks);
	rdt_cache_free(&run->cache);
}

static int simrun_setup(struct simrun *run, const struct rdtalloc_control_group *g,
			const struct rdtalloc_cache_geometry *geo)
{
	rdtalloc_t *r = run->r;
	uint64_t full = geo->ways >= 64 ? ~0ull : (1ull << geo->ways) - 1;
	size_t i;

	run->s = calloc(run->n, sizeof(*run->s));
	run->smp = calloc(run->n, sizeof(*run->smp));
	run->occ = calloc(run->n, sizeof(*run->occ));
	run->masks = calloc(run->n, sizeof(*run->masks));
	if (!run->s || !run->smp || !run->occ || !run->masks)
		return rdt_fail(r, -ENOMEM, "out of memory");
	if (rdt_cache_init(&run->cache, geo->sets, geo->ways))
		return rdt_fail(r, -ENOMEM, "out of memory for a cache of %u sets", geo->sets);
	for (i = 0; i < run->n; i++) {
		run->s[i].g = &g[i];
		run->smp[i].sz = sizeof(run->smp[i]);
		snprintf(run->smp[i].group, sizeof(run->smp[i].group), "%s", g[i].group);
		run->masks[i] = full;
		if (!(run->conf->flags & RDTALLOC_CONTROL_STATIC) || !g[i].mask)
			continue;
		if (g[i].mask & ~full)
			return rdt_fail(r, -EINVAL, "group %s: mask %#llx has bits past the %u "
					"ways", g[i].group, (unsigned long long)g[i].mask,
					geo->ways);
		run->masks[i] = g[i].mask;
	}
	return 0;
}

RDTALLOC_API int rdtalloc_control_sim_run(rdtalloc_t *r, const struct rdtalloc_control_conf *conf,
					  size_t n, const struct rdtalloc_control_group *groups,
					  rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct simrun run = { .r = r, .conf = conf, .n = n };
	struct rdt_ctl ctl;
	bool control = false;
	int ret, dom;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_control_check(r, conf, n, groups, true);
	if (!ret && (!conf->interval_accesses || conf->interval_accesses > INTERVAL_ACCESSES_MAX))
		ret = rdt_fail(r, -EINVAL, "%llu accesses per interval: 1 to 2^40",
			       (unsigned long long)conf->interval_accesses);
	if (!ret)
		ret = rdt_cache_geometry(r, conf->cache_id, &geo, &dom);
	/* what follows needs the geometry alone */
	rdt_core_drop_lock(r);
	run.instr = conf && (conf->flags & RDTALLOC_CONTROL_INSTR);
	if (!ret)
		ret = simrun_setup(&run, groups, &geo);
	if (!ret && !(conf->flags & (RDTALLOC_CONTROL_OFF | RDTALLOC_CONTROL_STATIC))) {
		ret = rdt_control_engine(r, conf, n, groups, geo.ways,
					 (uint64_t)geo.sets * RDT_LINE, &ctl);
		control = !ret;
		if (control)
			rdt_ctl_masks(&ctl, &ctl.cur, run.masks);
	}
	if (!ret)
		ret = sim_loop(&run, control ? &ctl : NULL, geo.cache_id, cb, arg);
	if (control)
		rdt_ctl_free(&ctl);
	simrun_free(&run);
	return rdt_core_end(r, false, ret);
}
