// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/rmid: the RMIDs of a state - who holds which, limbo - and the
 * simulator's running counters, in memory and in the state file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#include "backends/msr.h"
#include "backend.h"
#include "context.h"
#include "errors.h"
#include "monitor.h"

#define BAD(...) (snprintf(err, len, __VA_ARGS__), -EINVAL)

static size_t cells(const struct rdt_mon_state *ms)
{
	return (size_t)ms->nrmids * ms->ndom;
}

/* ---- The state's part (hw/section.h) ------------------------------------------ */

static void mon_free(void *part);

/* Size the tables for st->m (nothing without monitoring). -ENOMEM. */
static int mon_init(struct rdt_state *st, void *part)
{
	struct rdt_mon_state *ms = part;
	unsigned int i;

	memset(ms, 0, sizeof(*ms));
	if (!st->m->mon.rmids || !st->m->ndom[RDT_L3])
		return 0;
	ms->nrmids = st->m->mon.rmids;
	/* the kernel gives groups the lesser of L3's and PERF_PKG's RMIDs (Linux 7.0) */
	if (st->m->pkg.groups && st->m->pkg.rmids < ms->nrmids)
		ms->nrmids = st->m->pkg.rmids;
	ms->ndom = st->m->ndom[RDT_L3];
	ms->owner = malloc(ms->nrmids * sizeof(*ms->owner));
	ms->in_limbo = calloc(ms->nrmids, sizeof(*ms->in_limbo));
	ms->limbo = calloc(cells(ms), sizeof(uint64_t));
	ms->occ = calloc(cells(ms), sizeof(uint64_t));
	ms->total = calloc(cells(ms), sizeof(uint64_t));
	ms->local = calloc(cells(ms), sizeof(uint64_t));
	ms->kept = calloc(cells(ms), sizeof(uint64_t));
	ms->owner_g = malloc(ms->nrmids * sizeof(*ms->owner_g));
	if (!ms->owner || !ms->in_limbo || !ms->limbo || !ms->occ || !ms->total || !ms->local ||
	    !ms->kept || !ms->owner_g) {
		mon_free(ms);
		return -ENOMEM;
	}
	for (i = 0; i < ms->nrmids; i++)
		ms->owner[i] = -1;
	ms->owner[0] = 0;	/* the default group's, whose seq is 0 */
	return 0;
}

static void mon_free(void *part)
{
	struct rdt_mon_state *ms = part;

	free(ms->owner);
	free(ms->in_limbo);
	free(ms->limbo);
	free(ms->occ);
	free(ms->total);
	free(ms->local);
	free(ms->kept);
	free(ms->load);
	free(ms->owner_g);
	rdt_rot_cfg_free(&ms->rot);
	memset(ms, 0, sizeof(*ms));
}

static void *dup_n(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	if (q && n)
		memcpy(q, p, n);
	return q;
}

static int mon_copy(void *to, const void *from)
{
	const struct rdt_mon_state *s = from;
	struct rdt_mon_state *d = to;
	size_t n = cells(s);

	memset(d, 0, sizeof(*d));
	if (!s->nrmids)
		return 0;
	*d = *s;
	d->owner = dup_n(s->owner, s->nrmids * sizeof(*s->owner));
	d->in_limbo = dup_n(s->in_limbo, s->nrmids * sizeof(*s->in_limbo));
	d->limbo = dup_n(s->limbo, n * sizeof(uint64_t));
	d->occ = dup_n(s->occ, n * sizeof(uint64_t));
	d->total = dup_n(s->total, n * sizeof(uint64_t));
	d->local = dup_n(s->local, n * sizeof(uint64_t));
	d->kept = dup_n(s->kept, n * sizeof(uint64_t));
	d->load = dup_n(s->load, s->nload * sizeof(*s->load));
	d->owner_g = dup_n(s->owner_g, s->nrmids * sizeof(*s->owner_g));
	if (rdt_rot_cfg_copy(&d->rot, &s->rot) || !d->owner || !d->in_limbo || !d->limbo ||
	    !d->occ || !d->total || !d->local || !d->kept || !d->load || !d->owner_g) {
		mon_free(d);
		return -ENOMEM;
	}
	return 0;
}

int rdt_mon_group_rmid(const struct rdt_state *st, int g)
{
	if (!rdt_mon(st)->nrmids)
		return -1;
	if (g == 0)
		return 0;
	return st->groups[g].rmid ? (int)st->groups[g].rmid : -1;
}

/* ---- The state file -------------------------------------------------------- */

static json_object *u64(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

/*
 * "monitoring": {"t0": NS, "rmids": [[RMID, SEQ], ...] (held, but the
 * default's), "limbo": [[RMID, BYTES per domain...], ...], "sim": [[RMID,
 * TOTAL per domain..., LOCAL per domain...], ...] (non-zero only),
 * "loads": [[SEQ, DOM, FOOTPRINT, RATE, LOCAL_PCT, FAULT], ...], "kept": [[RMID,
 * BYTES per domain...], ...] (what replays left, held RMIDs, non-zero only; absent in
 * states from before replays)}
 */
static json_object *mon_save(const struct rdt_state *st, const void *part)
{
	const struct rdt_mon_state *ms = part;
	json_object *o, *held, *limbo, *sim, *loads, *kept;
	unsigned int r, d, i;

	if (!ms->nrmids)
		return NULL;
	o = json_object_new_object();
	kept = json_object_new_array();
	held = json_object_new_array();
	limbo = json_object_new_array();
	sim = json_object_new_array();
	loads = json_object_new_array();
	for (r = 1; r < ms->nrmids; r++) {
		const uint64_t *lb = &ms->limbo[(size_t)r * ms->ndom];
		const uint64_t *t = &ms->total[(size_t)r * ms->ndom];
		const uint64_t *l = &ms->local[(size_t)r * ms->ndom];
		const uint64_t *kp = &ms->kept[(size_t)r * ms->ndom];
		bool any_limbo = false, any_sim = false, any_kept = false;

		if (ms->owner[r] >= 0) {
			json_object *e = json_object_new_array();

			json_object_array_add(e, json_object_new_int((int)r));
			json_object_array_add(e, u64((uint64_t)ms->owner[r]));
			json_object_array_add(held, e);
		}
		for (d = 0; d < ms->ndom; d++) {
			any_limbo |= lb[d] != 0;
			any_sim |= t[d] || l[d];
			any_kept |= kp[d] != 0;
		}
		if (any_kept && ms->owner[r] >= 0) {
			json_object *e = json_object_new_array();

			json_object_array_add(e, json_object_new_int((int)r));
			for (d = 0; d < ms->ndom; d++)
				json_object_array_add(e, u64(kp[d]));
			json_object_array_add(kept, e);
		}
		if (any_limbo && ms->owner[r] < 0) {
			json_object *e = json_object_new_array();

			json_object_array_add(e, json_object_new_int((int)r));
			for (d = 0; d < ms->ndom; d++)
				json_object_array_add(e, u64(lb[d]));
			json_object_array_add(limbo, e);
		}
		if (any_sim && ms->owner[r] >= 0) {
			json_object *e = json_object_new_array();

			json_object_array_add(e, json_object_new_int((int)r));
			for (d = 0; d < ms->ndom; d++)
				json_object_array_add(e, u64(t[d]));
			for (d = 0; d < ms->ndom; d++)
				json_object_array_add(e, u64(l[d]));
			json_object_array_add(sim, e);
		}
	}
	/* the default group's counters, RMID 0, are always there */
	{
		json_object *e = json_object_new_array();

		json_object_array_add(e, json_object_new_int(0));
		for (d = 0; d < ms->ndom; d++)
			json_object_array_add(e, u64(ms->total[d]));
		for (d = 0; d < ms->ndom; d++)
			json_object_array_add(e, u64(ms->local[d]));
		json_object_array_add(sim, e);
		for (d = 0; d < ms->ndom && !ms->kept[d]; d++)
			;
		if (d < ms->ndom) {
			e = json_object_new_array();
			json_object_array_add(e, json_object_new_int(0));
			for (d = 0; d < ms->ndom; d++)
				json_object_array_add(e, u64(ms->kept[d]));
			json_object_array_add(kept, e);
		}
	}
	for (i = 0; i < ms->nload; i++) {
		const struct rdt_load *ld = &ms->load[i];
		json_object *e = json_object_new_array();

		json_object_array_add(e, u64(ld->seq));
		json_object_array_add(e, json_object_new_int((int)ld->dom));
		json_object_array_add(e, u64(ld->footprint));
		json_object_array_add(e, u64(ld->rate));
		json_object_array_add(e, json_object_new_int((int)ld->local_pct));
		json_object_array_add(e, json_object_new_int(ld->fault));
		json_object_array_add(loads, e);
	}
	json_object_object_add(o, "t0", u64(ms->t0));
	json_object_object_add(o, "rmids", held);
	json_object_object_add(o, "limbo", limbo);
	json_object_object_add(o, "sim", sim);
	json_object_object_add(o, "loads", loads);
	if (json_object_array_length(kept))
		json_object_object_add(o, "kept", kept);
	else
		json_object_put(kept);
	rdt_rot_cfg_save(st, &ms->rot, o);
	return o;
}

/* Element i of array a as an integer within [lo, hi]. */
static bool elem(json_object *a, size_t i, int64_t lo, int64_t hi, int64_t *v)
{
	json_object *e = json_object_array_get_idx(a, i);

	if (!e || !json_object_is_type(e, json_type_int))
		return false;
	errno = 0;
	*v = json_object_get_int64(e);
	return !errno && *v >= lo && *v <= hi;
}

static json_object *member_array(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}


static int read_held(struct rdt_state *st, json_object *a, const char *path, char *err,
		     size_t len)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	size_t i;

	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		int64_t r, seq;
		int g;

		if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 2 ||
		    !elem(e, 0, 1, (int64_t)ms->nrmids - 1, &r) ||
		    !elem(e, 1, 1, (int64_t)RDT_SEQ_MAX, &seq))
			return BAD("state file %s: monitoring: RMID entry %zu is malformed", path, i);
		g = rdt_group_by_seq(st, (uint64_t)seq);
		if (g <= 0 || ms->owner[r] >= 0 || st->groups[g].rmid)
			return BAD("state file %s: monitoring: RMID %" PRId64 " is held twice or "
				   "by no group", path, r);
		ms->owner[r] = seq;
		st->groups[g].rmid = (unsigned int)r;
	}
	return 0;
}

/* Rows of [RMID, n values per domain...]: into dst (and dst2 for the second n). */
static int read_rows(struct rdt_mon_state *ms, json_object *a, unsigned int per, uint64_t *dst,
		     uint64_t *dst2, bool held, const char *what, const char *path, char *err,
		     size_t len)
{
	size_t i;
	unsigned int d;

	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		int64_t r, v;

		if (!json_object_is_type(e, json_type_array) ||
		    json_object_array_length(e) != 1 + (size_t)per * ms->ndom ||
		    !elem(e, 0, 0, (int64_t)ms->nrmids - 1, &r) || held != (ms->owner[r] >= 0))
			return BAD("state file %s: monitoring: %s entry %zu is malformed", path,
				   what, i);
		for (d = 0; d < per * ms->ndom; d++) {
			if (!elem(e, 1 + d, 0, (int64_t)RDT_COUNTER_MAX, &v))
				return BAD("state file %s: monitoring: %s of RMID %" PRId64
					   " out of range", path, what, r);
			if (d < ms->ndom)
				dst[(size_t)r * ms->ndom + d] = (uint64_t)v;
			else
				dst2[(size_t)r * ms->ndom + d - ms->ndom] = (uint64_t)v;
		}
	}
	return 0;
}

static int read_loads(struct rdt_state *st, json_object *a, const char *path, char *err,
		      size_t len)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	size_t i, n = json_object_array_length(a);

	if (n > RDT_LOADS_MAX)
		return BAD("state file %s: monitoring: more than %u workloads", path,
			   RDT_LOADS_MAX);
	ms->load = calloc(n ? n : 1, sizeof(*ms->load));
	if (!ms->load)
		return BAD("out of memory");
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct rdt_load *ld = &ms->load[i];
		int64_t v[6];
		unsigned int k;
		static const int64_t hi[6] = { RDT_SEQ_MAX, 0, INT64_C(1) << 50,
					       INT64_C(1) << 50, 100, RDTALLOC_MON_ERROR };

		if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 6)
			return BAD("state file %s: monitoring: workload %zu is malformed", path, i);
		for (k = 0; k < 6; k++)
			if (!elem(e, k, 0, k == 1 ? (int64_t)ms->ndom - 1 : hi[k], &v[k]))
				return BAD("state file %s: monitoring: workload %zu is malformed",
					   path, i);
		if (rdt_group_by_seq(st, (uint64_t)v[0]) < 0)
			return BAD("state file %s: monitoring: workload %zu of no group", path, i);
		ld->seq = (uint64_t)v[0];
		ld->dom = (unsigned int)v[1];
		ld->footprint = (uint64_t)v[2];
		ld->rate = (uint64_t)v[3];
		ld->local_pct = (unsigned int)v[4];
		ld->fault = (int)v[5];
		ms->nload++;
	}
	return 0;
}

static int mon_load(struct rdt_state *st, void *part, json_object *o, const char *path,
		    char *err, size_t len)
{
	struct rdt_mon_state *ms = part;
	json_object *held, *limbo, *sim, *loads, *t0, *kept = NULL;
	unsigned int r;
	int ret;

	if (!ms->nrmids || !o)
		return 0;	/* no monitoring, or a state from before it: all free */
	held = member_array(o, "rmids");
	limbo = member_array(o, "limbo");
	sim = member_array(o, "sim");
	loads = member_array(o, "loads");
	if (!json_object_object_get_ex(o, "t0", &t0) || !json_object_is_type(t0, json_type_int) ||
	    json_object_get_int64(t0) < 0 || !held || !limbo || !sim || !loads ||
	    (json_object_object_get_ex(o, "kept", NULL) && !(kept = member_array(o, "kept"))))
		return BAD("state file %s: monitoring is malformed", path);
	ms->t0 = (uint64_t)json_object_get_int64(t0);
	ret = read_held(st, held, path, err, len);
	if (!ret)
		ret = read_rows(ms, limbo, 1, ms->limbo, NULL, false, "limbo", path, err, len);
	if (!ret)
		ret = read_rows(ms, sim, 2, ms->total, ms->local, true, "counter", path, err,
				len);
	if (!ret)
		ret = read_loads(st, loads, path, err, len);
	if (!ret && kept)
		ret = read_rows(ms, kept, 1, ms->kept, NULL, true, "kept", path, err, len);
	if (!ret)
		ret = rdt_rot_cfg_load(st, &ms->rot, o, path, err, len);
	for (r = 0; !ret && r < ms->nrmids; r++) {
		unsigned int d;

		for (d = 0; d < ms->ndom; d++)
			ms->in_limbo[r] |= ms->limbo[(size_t)r * ms->ndom + d] >
					   st->m->mon.threshold;
	}
	return ret;
}

/* The state file's "monitoring": RMIDs, limbo, the simulator's totals and workloads. */
const struct rdt_section rdt_mon_section = {
	.name = "monitoring",
	.size = sizeof(struct rdt_mon_state),
	.init = mon_init,
	.copy = mon_copy,
	.free = mon_free,
	.save = mon_save,
	.load = mon_load,
	.begin = rdt_mon_advance,
	.settle = rdt_mon_settle,
};

/* ---- Advance and settle ------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t add_sat(uint64_t a, double b)
{
	if (b <= 0)
		return a;
	if (b >= (double)(RDT_COUNTER_MAX - a))
		return RDT_COUNTER_MAX;
	return a + (uint64_t)b;
}

/*
 * The simulator: the model's traffic since t0 into the totals, the limbo
 * decayed (every fill in the domain evicts a line; a freed RMID's share of
 * the victims is its share of the cache), the occupancy as of now.
 */
static int advance_sim(struct rdt_state *st, uint64_t now)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	double dt = now > ms->t0 && ms->t0 ? (double)(now - ms->t0) / 1e9 : 0;
	struct rdt_mon_rates *rt;
	unsigned int d, r;

	/*
	 * No workload anywhere: no traffic, no fills (the limbo keeps what it
	 * holds), and the cache holds what a replay left - what the model
	 * below computes then, without a pass over every RMID's rates.
	 */
	if (!ms->nload) {
		if (!ms->occ_is_kept)
			memcpy(ms->occ, ms->kept, cells(ms) * sizeof(uint64_t));
		ms->occ_is_kept = true;
		return 0;
	}
	ms->occ_is_kept = false;
	rt = malloc(ms->nrmids * sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	for (d = 0; d < ms->ndom; d++) {
		double fill = rdt_mon_model(st, d, rt);
		double size = (double)rdt_mon_cache_size(st, d);
		double keep = exp(-(fill > 0 ? fill : 0) * dt / size);

		for (r = 0; r < ms->nrmids; r++) {
			size_t c = (size_t)r * ms->ndom + d;

			ms->total[c] = add_sat(ms->total[c], rt[r].total * dt);
			ms->local[c] = add_sat(ms->local[c], rt[r].local * dt);
			ms->occ[c] = (uint64_t)rt[r].occ;
			if (ms->owner[r] < 0)
				ms->limbo[c] = (uint64_t)((double)ms->limbo[c] * keep);
		}
	}
	free(rt);
	return 0;
}

/* Is RMID r still in limbo: some domain's bytes above the threshold? */
static void recheck_one(struct rdt_state *st, unsigned int r)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	bool above = false;
	unsigned int d;

	for (d = 0; d < ms->ndom; d++) {
		uint64_t *lb = &ms->limbo[(size_t)r * ms->ndom + d];

		if (*lb <= st->m->mon.threshold)
			*lb = 0;	/* under the threshold: as good as empty */
		above |= *lb != 0;
	}
	if (ms->in_limbo[r] != above)
		ms->nfree_ok = false;
	ms->in_limbo[r] = above;
}

static void recheck_limbo(struct rdt_state *st)
{
	unsigned int r;

	for (r = 1; r < rdt_mon(st)->nrmids; r++)
		recheck_one(st, r);
}

/*
 * What an RMID holds in L3 domain d where registers count it (msr), in
 * bytes; a counter in error or without a value yet counts as empty (it
 * cannot be told, and an RMID must not stay in limbo for ever).
 */
static uint64_t hw_occupancy(struct rdtalloc *r, unsigned int rmid, unsigned int d)
{
	char err[RDT_ERRMSG_MAX];
	uint64_t v;

	if (!(rdt_core_machine(r)->mon.events & RDTALLOC_MON_EV_OCCUPANCY) ||
	    rdt_core_backend(r)->mon_counter(rdt_core_backend_ctx(r), d, rmid, 1, &v, err,
					     sizeof(err)) ||
	    (v & (RDT_QM_CTR_ERROR | RDT_QM_CTR_UNAVAILABLE)))
		return 0;
	return (v & RDT_QM_CTR_COUNT) * rdt_core_machine(r)->mon.scale;
}

/* Registers count for real: freed RMIDs' limbo is what they hold now. */
static bool hw_limbo(struct rdtalloc *r)
{
	const struct rdt_backend *be = rdt_core_backend(r);

	return !be->simulated && be->mon_counter && rdt_core_backend_ctx(r);
}

static void hw_limbo_read(struct rdtalloc *r, unsigned int rmid)
{
	struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	unsigned int d;

	for (d = 0; d < ms->ndom; d++)
		ms->limbo[(size_t)rmid * ms->ndom + d] = hw_occupancy(r, rmid, d);
}

/*
 * The registers of at most RDT_LIMBO_READS RMIDs in limbo are read per
 * call, round robin from where the last call stopped: each read is a
 * register access per domain, and a call must not pay for every freed
 * RMID. One that has drained is found within nrmids / RDT_LIMBO_READS
 * calls (the kernel's limbo worker, too, checks on its own time).
 */
#define RDT_LIMBO_READS 8u

static void hw_limbo_step(struct rdtalloc *r)
{
	struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	unsigned int n = ms->nrmids - 1, k, rm, done = 0;

	for (k = 0; k < n && done < RDT_LIMBO_READS; k++) {
		rm = 1 + (ms->limbo_cursor + k) % n;
		if (ms->owner[rm] >= 0 || !ms->in_limbo[rm])
			continue;
		hw_limbo_read(r, rm);
		recheck_one(rdt_core_state(r), rm);
		done++;
	}
	ms->limbo_cursor = (ms->limbo_cursor + k) % n;
}

void rdt_mon_advance(struct rdtalloc *r)
{
	struct rdt_state *st = rdt_core_state(r);
	uint64_t now = now_ns();

	if (!st || !rdt_mon(st)->nrmids)
		return;
	if (rdt_core_backend(r)->simulated && advance_sim(st, now))
		return;		/* out of memory: the counters stay as of t0 */
	rdt_mon(st)->t0 = now;
	if (hw_limbo(r) && rdt_mon(st)->nrmids > 1)
		hw_limbo_step(r);
	/* only fills (a workload) or the registers move the limbo: else it is as it was */
	else if (rdt_core_backend(r)->simulated && rdt_mon(st)->nload)
		recheck_limbo(st);
}

void rdt_mon_replayed(struct rdtalloc *r, unsigned int d, size_t n, const int *gs,
		      const uint64_t *misses, const uint64_t *occ)
{
	struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	unsigned int rm;
	size_t i;

	if (!ms->nrmids || d >= ms->ndom)
		return;
	/* the replay started from an empty cache: nothing else is left in it */
	ms->occ_is_kept = false;
	for (rm = 0; rm < ms->nrmids; rm++) {
		size_t c = (size_t)rm * ms->ndom + d;

		ms->kept[c] = 0;
		ms->occ[c] = 0;
		if (ms->owner[rm] < 0)
			ms->limbo[c] = 0;
	}
	for (i = 0; i < n; i++) {
		int x = rdt_mon_group_rmid(rdt_core_state(r), gs[i]);
		size_t c = (size_t)(x < 0 ? 0 : x) * ms->ndom + d;
		double bytes = (double)misses[i] * RDT_LINE_BYTES;

		ms->kept[c] += occ[i];
		ms->occ[c] += occ[i];
		ms->total[c] = add_sat(ms->total[c], bytes);
		ms->local[c] = add_sat(ms->local[c], bytes);
	}
	recheck_limbo(rdt_core_state(r));
	rdt_core_mark_dirty(r);
}

/* A freed RMID: into limbo with what it holds now, its counters gone. */
static void release(struct rdt_state *st, unsigned int rmid)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	size_t c = (size_t)rmid * ms->ndom;

	ms->owner[rmid] = -1;
	ms->nfree_ok = false;
	memcpy(&ms->limbo[c], &ms->occ[c], ms->ndom * sizeof(uint64_t));
	memset(&ms->occ[c], 0, ms->ndom * sizeof(uint64_t));
	memset(&ms->total[c], 0, ms->ndom * sizeof(uint64_t));
	memset(&ms->local[c], 0, ms->ndom * sizeof(uint64_t));
	memset(&ms->kept[c], 0, ms->ndom * sizeof(uint64_t));
}

/* Workloads of groups that are gone go with them. */
static void drop_dead_loads(struct rdt_state *st)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	unsigned int i, k = 0;

	for (i = 0; i < ms->nload; i++)
		if (rdt_group_by_seq(st, ms->load[i].seq) >= 0)
			ms->load[k++] = ms->load[i];
	ms->nload = k;
}

/*
 * The owners' group indexes in one pass over the groups (at the first
 * settle after the state was read); a group that holds an RMID another
 * owns (a state edited by hand) loses it here and waits again.
 */
static void owners_rebuild(struct rdt_state *st)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	unsigned int i;

	for (i = 0; i < ms->nrmids; i++)
		ms->owner_g[i] = -1;
	ms->owner_g[0] = 0;
	ms->nwaiting = 0;
	for (i = 1; i < st->ngroups; i++) {
		struct rdt_group *g = &st->groups[i];

		if (!g->live)
			continue;
		if (g->rmid && (g->rmid >= ms->nrmids || ms->owner[g->rmid] != (int64_t)g->seq))
			g->rmid = 0;	/* a slot reused: that was another group's */
		if (g->rmid)
			ms->owner_g[g->rmid] = (int)i;
		else
			ms->nwaiting++;
	}
	ms->seen_next_seq = st->next_seq;
	ms->seen_nlive = st->nlive;
	ms->owner_g_ok = true;
	ms->nfree_ok = false;
}

/* Does RMID rm's owner still hold it? Its group looked up only when the index went stale. */
static bool owner_holds(struct rdt_state *st, unsigned int rm)
{
	struct rdt_mon_state *ms = rdt_mon(st);
	int g = ms->owner_g[rm];

	if (g > 0 && (unsigned int)g < st->ngroups && st->groups[g].live &&
	    st->groups[g].seq == (uint64_t)ms->owner[rm] && st->groups[g].rmid == rm)
		return true;
	g = rdt_group_by_seq(st, (uint64_t)ms->owner[rm]);
	ms->owner_g[rm] = g;
	return g >= 0 && st->groups[g].rmid == rm;
}

/* Were groups deleted (or the state reset) since the last settle? */
static bool groups_deleted(const struct rdt_state *st)
{
	const struct rdt_mon_state *ms = rdt_mon(st);
	uint64_t made = st->next_seq - ms->seen_next_seq;

	return (uint64_t)ms->seen_nlive + made != st->nlive;
}

/* RMIDs whose owner is gone (a deleted group) are freed into limbo. */
static void release_orphans(struct rdtalloc *r)
{
	struct rdt_state *st = rdt_core_state(r);
	struct rdt_mon_state *ms = rdt_mon(st);
	bool released = false;
	unsigned int rm;

	for (rm = 1; rm < ms->nrmids; rm++) {
		if (ms->owner[rm] >= 0 && !owner_holds(st, rm)) {
			release(st, rm);
			ms->owner_g[rm] = -1;
			released = true;
			if (hw_limbo(r))
				hw_limbo_read(r, rm);
		}
	}
	if (released)
		recheck_limbo(st);
	if (ms->nload)
		drop_dead_loads(st);
}

/* RMIDs below limit that are free and out of limbo, counted only when that may have changed. */
static unsigned int free_rmids(struct rdt_mon_state *ms, unsigned int limit)
{
	unsigned int rm;

	if (ms->nfree_ok && ms->nfree_limit == limit)
		return ms->nfree;
	ms->nfree = 0;
	for (rm = 1; rm < limit; rm++)
		ms->nfree += ms->owner[rm] < 0 && !ms->in_limbo[rm];
	ms->nfree_limit = limit;
	ms->nfree_ok = true;
	return ms->nfree;
}

/*
 * Up to k of the groups waiting for an RMID, oldest (lowest seq) first,
 * into pick; returns how many, and counts all waiters into *waiting. One
 * pass, with a sorted window of k: k is the count of free RMIDs, small.
 */
static unsigned int oldest_waiting(struct rdt_state *st, unsigned int k, int *pick,
				   unsigned int *waiting)
{
	unsigned int i, n = 0, j;

	*waiting = 0;
	for (i = 1; i < st->ngroups; i++) {
		const struct rdt_group *g = &st->groups[i];

		if (!g->live || g->rmid)
			continue;
		(*waiting)++;
		if (n == k && st->groups[pick[n - 1]].seq < g->seq)
			continue;
		j = n < k ? n++ : n - 1;
		while (j > 0 && st->groups[pick[j - 1]].seq > g->seq) {
			pick[j] = pick[j - 1];
			j--;
		}
		pick[j] = (int)i;
	}
	return n;
}

void rdt_mon_settle(struct rdtalloc *r)
{
	struct rdt_state *st = rdt_core_state(r);
	struct rdt_mon_state *ms;
	unsigned int i, n, next = 1, reserved, limit, nfree, waiting;
	int *pick;

	if (!st || !rdt_mon(st)->nrmids)
		return;
	ms = rdt_mon(st);
	/* owners are checked after a state was read and when groups went, else not */
	if (!ms->owner_g_ok) {
		owners_rebuild(st);
		release_orphans(r);
	} else if (groups_deleted(st)) {
		release_orphans(r);
	}
	reserved = rdt_core_backend(r)->mon_reserved && rdt_core_backend_ctx(r) ?
		   rdt_core_backend(r)->mon_reserved(rdt_core_backend_ctx(r)) : 0;
	limit = reserved < ms->nrmids ? ms->nrmids - reserved : 1;
	nfree = free_rmids(ms, limit);
	/* groups made since the last settle wait too; else only known waiters */
	ms->nwaiting += (unsigned int)(st->next_seq - ms->seen_next_seq);
	ms->seen_next_seq = st->next_seq;
	ms->seen_nlive = st->nlive;
	if (!nfree || !ms->nwaiting)
		return;		/* nothing to hand out, or nobody waiting: no walk */
	pick = malloc(nfree * sizeof(*pick));
	if (!pick)
		return;		/* out of memory: the waiters stay unmonitored for now */
	n = oldest_waiting(st, nfree, pick, &waiting);
	for (i = 0; i < n; i++) {
		while (next < limit && (ms->owner[next] >= 0 || ms->in_limbo[next]))
			next++;
		if (next >= limit)
			break;
		ms->owner[next] = (int64_t)st->groups[pick[i]].seq;
		ms->owner_g[next] = pick[i];
		st->groups[pick[i]].rmid = next;
		memset(&ms->limbo[(size_t)next * ms->ndom], 0, ms->ndom * sizeof(uint64_t));
		ms->nfree--;
	}
	ms->nwaiting = waiting - i;
	free(pick);
}
