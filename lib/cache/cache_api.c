// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache_api: the public calls of the cache model (rdtalloc_sim_replay,
 * rdtalloc_trace_curve, rdtalloc_trace_convert). The geometry comes from
 * the machine (the L3's size from hwloc, the CBM length as the ways), the
 * masks from the state; nothing in the state changes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "backend.h"
#include "context.h"
#include "errors.h"
#include "monitor/monitor.h"

/*
 * An L3 that is not whole sets of its ways (32 MiB of 20 ways: 26214.4
 * sets) cannot be modelled: said with the machine to model instead, the
 * nearest size below that is whole sets and whole KiB (hwloc's unit).
 */
static int whole_sets_fail(rdtalloc_t *r, const struct rdt_domain *d, unsigned int min_bits,
			   unsigned int ways)
{
	uint64_t set = (uint64_t)ways * RDT_LINE, unit = set, kib;

	if (ways > 64)
		return rdt_fail(r, -EINVAL, "L3 cache id %u: %u ways, the model has at most 64",
				d->cache_id, ways);
	while (unit % 1024)
		unit += set;
	kib = d->cache_size / unit * unit / 1024;
	if (!kib)
		kib = unit / 1024;
	return rdt_fail(r, -EINVAL, "L3 cache id %u: %llu bytes are not %u ways of whole 64-byte "
			"sets, which the model needs; model the nearest size below that is: "
			"--machine 'topology=package:1 l3:1(size=%lluKiB) core:1 pu:1;"
			"l3.cbm_len=%u;l3.min_cbm_bits=%u'", d->cache_id,
			(unsigned long long)d->cache_size, ways, (unsigned long long)kib, ways,
			min_bits);
}

int rdt_cache_geometry(rdtalloc_t *r, int cache_id, struct rdtalloc_cache_geometry *g, int *dom)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	const struct rdt_domain *d;
	unsigned int ways = m->caps[RDT_L3].cbm_len;
	int i;

	if (!m->caps[RDT_L3].present || !m->ndom[RDT_L3])
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation to model");
	i = cache_id < 0 ? 0 : rdt_machine_domain(m, RDT_L3, (unsigned int)cache_id);
	if (i < 0)
		return rdt_fail(r, -ENOENT, "no L3 cache id %d (rdtctl info)", cache_id);
	d = &m->dom[RDT_L3][i];
	if (!d->cache_size)
		return rdt_fail(r, -ENODATA, "the size of L3 cache id %u is not known: give it in "
				"the machine description (topology=...l3:1(size=2MiB)...)",
				d->cache_id);
	if (ways > 64 || d->cache_size % ((uint64_t)ways * RDT_LINE) ||
	    d->cache_size / ((uint64_t)ways * RDT_LINE) > UINT32_MAX)
		return whole_sets_fail(r, d, m->caps[RDT_L3].min_cbm_bits, ways);
	g->cache_id = d->cache_id;
	g->ways = ways;
	g->sets = (unsigned int)(d->cache_size / ((uint64_t)ways * RDT_LINE));
	*dom = i;
	return 0;
}

static size_t sized(size_t sz, size_t full)
{
	return sz < full ? sz : full;
}

#define AHEAD 16			/* accesses read ahead per trace (a power of two) */

struct stream {
	struct rdt_trace *t;
	const char *path;		/* to start it again (RDTALLOC_TRACE_LOOP) */
	bool instr;
	bool ended;			/* it ended once: a loop's pass is over */
	uint64_t pass;			/* accesses of this pass */
	uint64_t data, code;		/* the group's fill masks */
	struct rdtalloc_replay_group res;
	bool eof;			/* the trace gave its last access */
	bool over;			/* and every access was replayed */
	unsigned int head, count;	/* the accesses read ahead, in ring[] */
	uint64_t ring[AHEAD];
	unsigned char kind[AHEAD];
};

/*
 * Keep AHEAD accesses of s read and their sets prefetched: the model's
 * sets are far bigger than a CPU's caches, so the set an access needs is
 * fetched while the accesses before it are replayed.
 */
static int refill(struct rdt_cache *c, struct stream *s, char *err, size_t len)
{
	enum rdt_acc_kind k;
	uint64_t line;
	int ret;

	while (!s->eof && s->count < AHEAD) {
		ret = rdt_trace_next(s->t, &line, &k, err, len);
		if (ret < 0)
			return ret;
		if (!ret) {
			s->eof = true;
			break;
		}
		s->ring[(s->head + s->count) & (AHEAD - 1)] = line;
		s->kind[(s->head + s->count) & (AHEAD - 1)] = (unsigned char)k;
		s->count++;
		rdt_cache_prefetch(c, line);
	}
	return 0;
}

/*
 * Stream s ended. Plain: it drops out. _CUT: every stream does (the
 * replay is over). _LOOP: it starts again while a stream has not ended
 * once (one that gave nothing is not started again: it would never end).
 */
static int stream_ended(rdtalloc_t *r, struct stream *s, size_t n, size_t i, unsigned int mode,
			size_t *live)
{
	char err[RDT_ERRMSG_MAX];
	size_t k, first = 0;

	s[i].ended = true;
	for (k = 0; k < n; k++)
		first += !s[k].ended;
	if (mode == RDTALLOC_TRACE_CUT || (mode == RDTALLOC_TRACE_LOOP && !first)) {
		for (k = 0; k < n; k++)
			s[k].over = true;
		*live = 0;
		return 0;
	}
	if (mode == RDTALLOC_TRACE_LOOP && s[i].pass) {
		rdt_trace_close(s[i].t);
		s[i].t = NULL;
		if (rdt_trace_open(s[i].path, s[i].instr, &s[i].t, err, sizeof(err)))
			return rdt_fail(r, -EINVAL, "%s", err);
		s[i].eof = false;
		s[i].pass = 0;
		return 0;
	}
	s[i].over = true;	/* it ended: it drops out */
	(*live)--;
	return 0;
}

static int replay(rdtalloc_t *r, struct stream *s, size_t n, unsigned int sets, unsigned int ways,
		  unsigned int mode)
{
	char err[RDT_ERRMSG_MAX];
	struct rdt_cache c;
	enum rdt_acc_kind kind;
	uint64_t line, *occ;
	size_t i, live = n;
	int ret;

	ret = rdt_cache_init(&c, sets, ways);
	if (ret)
		return rdt_fail(r, ret, "out of memory for a cache of %u sets", sets);
	while (live) {
		/* _CUT: a round starts only when every stream has an access for it */
		for (i = 0; mode == RDTALLOC_TRACE_CUT && i < n && live; i++) {
			if (s[i].count < AHEAD / 2 && (ret = refill(&c, &s[i], err, sizeof(err)))) {
				rdt_cache_free(&c);
				return rdt_fail(r, ret, "%s", err);
			}
			if (!s[i].count)
				stream_ended(r, s, n, i, mode, &live);
		}
		for (i = 0; i < n && live; i++) {
			if (s[i].over)
				continue;
again:
			if (s[i].count < AHEAD / 2 && (ret = refill(&c, &s[i], err, sizeof(err)))) {
				rdt_cache_free(&c);
				return rdt_fail(r, ret, "%s", err);
			}
			if (!s[i].count) {
				ret = stream_ended(r, s, n, i, mode, &live);
				if (ret) {
					rdt_cache_free(&c);
					return ret;
				}
				/* started again (_LOOP): its first access is this turn's */
				if (!s[i].over && live)
					goto again;
				continue;
			}
			s[i].pass++;
			line = s[i].ring[s[i].head];
			kind = (enum rdt_acc_kind)s[i].kind[s[i].head];
			s[i].head = (s[i].head + 1) & (AHEAD - 1);
			s[i].count--;
			s[i].res.accesses++;
			if (rdt_cache_access(&c, line, kind == RDT_ACC_INSTR ? s[i].code : s[i].data,
					     (uint16_t)i))
				s[i].res.hits++;
			else
				s[i].res.misses++;
		}
	}
	occ = calloc(n, sizeof(*occ));
	if (!occ) {
		rdt_cache_free(&c);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	rdt_cache_occupancy(&c, occ, (unsigned int)n);
	for (i = 0; i < n; i++)
		s[i].res.llc_occupancy = occ[i] * RDT_LINE;
	free(occ);
	rdt_cache_free(&c);
	return 0;
}

int rdt_cache_replay_masks(rdtalloc_t *r, size_t n, const char *const *traces,
			   const uint64_t *masks, bool instr, unsigned int mode, unsigned int sets,
			   unsigned int ways, uint64_t *misses, uint64_t *accesses)
{
	char err[RDT_ERRMSG_MAX];
	struct stream *s = calloc(n ? n : 1, sizeof(*s));
	size_t i;
	int ret = 0;

	if (!s)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < n; i++) {
		s[i].data = s[i].code = masks[i];
		s[i].path = traces[i];
		s[i].instr = instr;
		if (rdt_trace_open(traces[i], instr, &s[i].t, err, sizeof(err)))
			ret = rdt_fail(r, -EINVAL, "%s", err);
	}
	if (!ret)
		ret = replay(r, s, n, sets, ways, mode);
	for (i = 0; !ret && i < n; i++) {
		misses[i] = s[i].res.misses;
		accesses[i] = s[i].res.accesses;
	}
	for (i = 0; i < n; i++)
		rdt_trace_close(s[i].t);
	free(s);
	return ret;
}

RDTALLOC_API int rdtalloc_sim_replay(rdtalloc_t *r, int cache_id, size_t n,
				     const char *const *groups, const char *const *traces,
				     unsigned int flags, struct rdtalloc_cache_geometry *geo,
				     struct rdtalloc_replay_group *out)
{
	struct rdtalloc_cache_geometry g = { .sz = sizeof(g) };
	bool count = flags & RDTALLOC_REPLAY_COUNT;
	int ret, dom = 0, gs[RDTALLOC_REPLAY_MAX];
	char err[RDT_ERRMSG_MAX];
	struct stream *s = NULL;
	size_t i;

	if (!r || !n || !groups || !traces || !geo || !out)
		return -EINVAL;
	if (flags & ~(RDTALLOC_TRACE_INSTR | RDTALLOC_REPLAY_COUNT | RDTALLOC_TRACE_CUT |
		      RDTALLOC_TRACE_LOOP))
		return rdt_fail(r, -EINVAL, "rdtalloc_sim_replay: unknown flags %#x", flags);
	if ((flags & RDTALLOC_TRACE_CUT) && (flags & RDTALLOC_TRACE_LOOP))
		return rdt_fail(r, -EINVAL, "rdtalloc_sim_replay: RDTALLOC_TRACE_CUT or "
				"RDTALLOC_TRACE_LOOP, not both");
	ret = rdt_core_begin(r, count);
	if (ret)
		return ret;
	if (count && (!rdt_core_backend(r)->simulated || !rdt_mon(rdt_core_state(r))->nrmids))
		ret = rdt_fail(r, -EOPNOTSUPP, "a replay counts into the simulator's monitoring "
			       "counters: backend %s%s has none", rdt_core_backend(r)->name,
			       rdt_core_backend(r)->simulated ?
			       " on a machine without L3 monitoring" : "");
	else if (n > RDTALLOC_REPLAY_MAX)
		ret = rdt_fail(r, -E2BIG, "%zu traces: at most %d at once", n, RDTALLOC_REPLAY_MAX);
	if (!ret && (geo->sz < sizeof(size_t) || out[0].sz < sizeof(size_t)))
		ret = rdt_fail(r, -EINVAL, "rdtalloc_sim_replay: sz is not set");
	if (!ret)
		ret = rdt_cache_geometry(r, cache_id, &g, &dom);
	if (!ret && !(s = calloc(n, sizeof(*s))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < n; i++) {
		int gi = rdt_core_find_group(r, groups[i]);
		unsigned int slot = rdt_core_state(r)->slot_of[RDT_L3][dom];

		if (gi < 0) {
			ret = gi;
			break;
		}
		gs[i] = gi;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s[j].res.group, rdt_core_state(r)->groups[gi].name))
				ret = rdt_fail(r, -EINVAL, "group %s is given twice: one trace a group",
					       groups[i]);
		s[i].data = rdt_core_state(r)->groups[gi].mask[slot * 2];
		s[i].code = rdt_core_state(r)->cdp[RDT_L3] ?
			    rdt_core_state(r)->groups[gi].mask[slot * 2 + 1] : s[i].data;
		snprintf(s[i].res.group, sizeof(s[i].res.group), "%s",
			 rdt_core_state(r)->groups[gi].name);
		s[i].path = traces[i];
		s[i].instr = flags & RDTALLOC_TRACE_INSTR;
		if (!ret && rdt_trace_open(traces[i], flags & RDTALLOC_TRACE_INSTR, &s[i].t, err,
					   sizeof(err)))
			ret = rdt_fail(r, -EINVAL, "%s", err);
	}
	/* a replay that only looks holds no lock while it runs: the masks are read */
	if (!count)
		rdt_core_drop_lock(r);
	if (!ret)
		ret = replay(r, s, n, g.sets, g.ways,
			     flags & (RDTALLOC_TRACE_CUT | RDTALLOC_TRACE_LOOP));
	if (!ret && count) {
		uint64_t misses[RDTALLOC_REPLAY_MAX], occ[RDTALLOC_REPLAY_MAX];

		for (i = 0; i < n; i++) {
			misses[i] = s[i].res.misses;
			occ[i] = s[i].res.llc_occupancy;
		}
		rdt_mon_replayed(r, (unsigned int)dom, n, gs, misses, occ);
	}
	for (i = 0; !ret && i < n; i++) {
		s[i].res.sz = sized(out[i].sz, sizeof(s[i].res));
		memcpy(&out[i], &s[i].res, s[i].res.sz);
	}
	if (!ret) {
		g.sz = sized(geo->sz, sizeof(g));
		memcpy(geo, &g, g.sz);
	}
	for (i = 0; s && i < n; i++)
		rdt_trace_close(s[i].t);
	free(s);
	return rdt_core_end(r, count, ret);
}

RDTALLOC_API int rdtalloc_trace_curve(rdtalloc_t *r, int cache_id, const char *trace,
				      unsigned int flags, struct rdtalloc_curve *out)
{
	unsigned int shift = (flags >> 8) & 0xfu;
	struct rdtalloc_curve v = { .sz = sizeof(v) };
	struct rdt_curve_sample smp = { 0 };
	char err[RDT_ERRMSG_MAX];
	int ret, dom;

	if (!r || !trace || !out)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (out->sz < sizeof(size_t))
		ret = rdt_fail(r, -EINVAL, "rdtalloc_trace_curve: out->sz is not set");
	else if (flags & ~(RDTALLOC_TRACE_INSTR | RDTALLOC_CURVE_SAMPLE(0xf)))
		ret = rdt_fail(r, -EINVAL, "rdtalloc_trace_curve: unknown flags 0x%x",
			       flags & ~(RDTALLOC_TRACE_INSTR | RDTALLOC_CURVE_SAMPLE(0xf)));
	else if (shift > RDTALLOC_CURVE_SAMPLE_MAX)
		ret = rdt_fail(r, -EINVAL, "rdtalloc_trace_curve: a sample of one set in 2^%u is "
			       "out of range (RDTALLOC_CURVE_SAMPLE(1..%d))", shift,
			       RDTALLOC_CURVE_SAMPLE_MAX);
	if (!ret)
		ret = rdt_cache_geometry(r, cache_id, &v.geo, &dom);
	rdt_core_drop_lock(r);	/* the curve needs the geometry alone */
	v.geo.sz = sizeof(v.geo);
	if (!ret && (ret = rdt_cache_curve_sampled(trace, flags & RDTALLOC_TRACE_INSTR,
						   v.geo.sets, v.geo.ways, shift, v.misses,
						   &v.accesses, &smp, err, sizeof(err))))
		ret = rdt_fail(r, ret, "%s", err);
	v.sample_shift = smp.shift;
	v.sample_sets = smp.sets;
	v.sample_accesses = smp.accesses;
	if (!ret) {
		v.sz = sized(out->sz, sizeof(v));
		memcpy(out, &v, v.sz);
	}
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_trace_convert(const char *in, const char *out, unsigned int flags,
					uint64_t *n)
{
	char err[RDT_ERRMSG_MAX];
	uint64_t count = 0;
	int ret;

	rdt_clear_err(NULL);
	if (!in || !out)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_trace_convert: no file named");
	ret = rdt_trace_convert(in, out, flags & RDTALLOC_TRACE_INSTR, &count, err, sizeof(err));
	if (ret)
		return rdt_fail(NULL, ret, "%s", err);
	if (n)
		*n = count;
	return 0;
}
