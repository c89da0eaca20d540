// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live: the controller on a backend (rdtalloc_control_set, _get, _run) and
 * its part of the state - the state file's member "control": the groups
 * it may change (by sequence number: a group removed drops out), their
 * goals, the domain, the ways it leaves alone, the interval and the write
 * limit, and the layout in force, so that a controller started again (a
 * new `rdtctl control run`, the agent restarted) goes on from it instead
 * of from all shared. This file and one line of lib/sections.c are all
 * the controller adds to the state: the engine and lib/state.c know
 * nothing of it (hw/section.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "control/control.h"
#include "core.h"
#include "errors.h"
#include "hw/section.h"

struct ctl_group {
	uint64_t seq;
	double bound_ratio;
	uint64_t bound_bps;
	bool exclusive;
	unsigned char kind, w;		/* the layout in force (enum rdt_ctl_kind) */
};

struct rdt_control_state {
	size_t n;			/* 0: no controller */
	int cache_id;
	uint64_t avoid;
	unsigned int interval_ms, writes_per_minute;
	struct ctl_group g[RDTALLOC_CONTROL_MAX];
};

extern const struct rdt_section rdt_control_section;

static struct rdt_control_state *ctl_part(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_control_section);
}

static int ctl_copy(void *to, const void *from)
{
	memcpy(to, from, sizeof(struct rdt_control_state));
	return 0;
}

static const char *const kind_name[] = { "shared", "confined", "reserved" };

static json_object *ctl_save(const struct rdt_state *st, const void *part)
{
	const struct rdt_control_state *c = part;
	json_object *o, *arr;

	(void)st;
	if (!c->n)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "cache_id", json_object_new_int(c->cache_id));
	json_object_object_add(o, "avoid", json_object_new_int64((int64_t)c->avoid));
	json_object_object_add(o, "interval_ms", json_object_new_int((int)c->interval_ms));
	json_object_object_add(o, "writes_per_minute",
			       json_object_new_int((int)c->writes_per_minute));
	for (size_t i = 0; i < c->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "group", json_object_new_int64((int64_t)c->g[i].seq));
		if (c->g[i].bound_ratio > 0)
			json_object_object_add(e, "bound_miss_ratio",
					       json_object_new_double(c->g[i].bound_ratio));
		if (c->g[i].bound_bps)
			json_object_object_add(e, "bound_bytes_per_sec",
					       json_object_new_int64((int64_t)c->g[i].bound_bps));
		if (c->g[i].exclusive)
			json_object_object_add(e, "exclusive", json_object_new_boolean(1));
		json_object_object_add(e, "kind", json_object_new_string(kind_name[c->g[i].kind]));
		json_object_object_add(e, "ways", json_object_new_int(c->g[i].w));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "groups", arr);
	return o;
}

static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x))
		return 0;
	if (!json_object_is_type(x, json_type_int))
		return -EINVAL;
	*v = json_object_get_int64(x);
	return *v < lo || *v > hi ? -EINVAL : 1;
}

static int load_group(struct rdt_state *st, struct ctl_group *g, json_object *e)
{
	int64_t seq = 0, bps = 0, w = 0;
	json_object *x;
	unsigned int k;

	if (!json_object_is_type(e, json_type_object) ||
	    get_int(e, "group", 1, INT64_MAX - 1, &seq) != 1 ||
	    get_int(e, "bound_bytes_per_sec", 1, INT64_MAX, &bps) < 0 ||
	    get_int(e, "ways", 0, 64, &w) < 0)
		return -EINVAL;
	g->seq = (uint64_t)seq;
	g->bound_bps = (uint64_t)bps;
	g->w = (unsigned char)w;
	if (json_object_object_get_ex(e, "bound_miss_ratio", &x)) {
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int))
			return -EINVAL;
		g->bound_ratio = json_object_get_double(x);
		if (!(g->bound_ratio > 0 && g->bound_ratio < 1))
			return -EINVAL;
	}
	if (json_object_object_get_ex(e, "exclusive", &x)) {
		if (!json_object_is_type(x, json_type_boolean))
			return -EINVAL;
		g->exclusive = json_object_get_boolean(x);
	}
	if (!json_object_object_get_ex(e, "kind", &x) || !json_object_is_type(x, json_type_string))
		return -EINVAL;
	for (k = 0; k < 3 && strcmp(kind_name[k], json_object_get_string(x)); k++)
		;
	if (k == 3 || (k != RDT_CTL_SHARED && !g->w))
		return -EINVAL;
	g->kind = (unsigned char)k;
	/* a group removed since drops out */
	return rdt_group_by_seq(st, g->seq) < 0 ? 1 : 0;
}

static int ctl_load(struct rdt_state *st, void *part, json_object *o, const char *path,
		    char *err, size_t len)
{
	struct rdt_control_state *c = part;
	int64_t cid = 0, avoid = 0, ms = 0, wpm = 0;
	json_object *arr;
	size_t i, n;
	int ret;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    get_int(o, "cache_id", -1, INT32_MAX, &cid) < 0 ||
	    get_int(o, "avoid", INT64_MIN, INT64_MAX, &avoid) < 0 ||
	    get_int(o, "interval_ms", 0, 3600000, &ms) < 0 ||
	    get_int(o, "writes_per_minute", 0, INT32_MAX, &wpm) < 0 ||
	    !json_object_object_get_ex(o, "groups", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    (n = json_object_array_length(arr)) > RDTALLOC_CONTROL_MAX)
		goto bad;
	c->cache_id = (int)cid;
	c->avoid = (uint64_t)avoid;
	c->interval_ms = (unsigned int)ms;
	c->writes_per_minute = (unsigned int)wpm;
	for (i = 0; i < n; i++) {
		ret = load_group(st, &c->g[c->n], json_object_array_get_idx(arr, i));
		if (ret < 0)
			goto bad;
		for (size_t j = 0; !ret && j < c->n; j++)
			if (c->g[j].seq == c->g[c->n].seq)
				goto bad;
		if (!ret)
			c->n++;
	}
	return 0;
bad:
	memset(c, 0, sizeof(*c));
	snprintf(err, len, "state file %s: \"control\" is malformed", path);
	return -EINVAL;
}

/* The state file's "control": the controller's configuration and the layout it keeps. */
const struct rdt_section rdt_control_section = {
	.name = "control",
	.size = sizeof(struct rdt_control_state),
	.copy = ctl_copy,
	.save = ctl_save,
	.load = ctl_load,
};

/*
 * The ways of L3 domain dom that groups the controller does not change hold
 * exclusively (rdtalloc_group_set_mode): left alone, as a plan leaves them.
 */
static uint64_t others_exclusive(rdtalloc_t *r, int dom, size_t n,
				 const struct rdtalloc_control_group *g)
{
	const struct rdt_state *st = r->st;
	unsigned int slot = st->slot_of[RDT_L3][dom];
	uint64_t ways = 0;

	for (unsigned int k = 0; k < st->ngroups; k++) {
		bool ours = false;

		if (!st->groups[k].live || !st->groups[k].exclusive)
			continue;
		for (size_t i = 0; i < n && !ours; i++)
			ours = !strcmp(g[i].group, st->groups[k].name);
		if (!ours)
			ways |= st->groups[k].mask[slot * 2] | st->groups[k].mask[slot * 2 + 1];
	}
	return ways;
}

RDTALLOC_API int rdtalloc_control_set(rdtalloc_t *r, const struct rdtalloc_control_conf *conf,
				      size_t n, const struct rdtalloc_control_group *groups)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdt_control_state next = { 0 };
	struct rdt_ctl ctl;
	int ret, dom;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (!n)
		goto store;
	ret = rdt_control_check(r, conf, n, groups, false);
	if (!ret && (conf->flags || conf->interval_accesses || conf->intervals))
		ret = rdt_fail(r, -EINVAL, "a kept configuration has no flags, accesses per "
			       "interval or intervals: those are a simulated run's");
	if (!ret)
		ret = rdt_cache_geometry(r, conf->cache_id, &geo, &dom);
	if (!ret) {
		struct rdtalloc_control_conf c = *conf;

		c.avoid |= others_exclusive(r, dom, n, groups);
		ret = rdt_control_engine(r, &c, n, groups, geo.ways,
					 (uint64_t)geo.sets * RDT_LINE, &ctl);
	}
	if (ret)
		goto out;
	next.n = n;
	next.cache_id = (int)geo.cache_id;
	next.avoid = conf->avoid;
	next.interval_ms = conf->interval_ms;
	next.writes_per_minute = conf->writes_per_minute;
	for (size_t i = 0; !ret && i < n; i++) {
		int gi = rdt_core_find_group(r, groups[i].group);

		if (gi < 0) {
			ret = gi;
			break;
		}
		if (!gi)
			ret = rdt_fail(r, -EINVAL, "the default group is not the controller's to "
				       "change: give it the groups it may");
		next.g[i].seq = r->st->groups[gi].seq;
		next.g[i].bound_ratio = groups[i].bound_miss_ratio;
		next.g[i].bound_bps = groups[i].bound_bytes_per_sec;
		next.g[i].exclusive = groups[i].exclusive;
		next.g[i].kind = ctl.cur.kind[i];
		next.g[i].w = ctl.cur.w[i];
	}
	rdt_ctl_free(&ctl);
	if (ret)
		goto out;
store:
	*ctl_part(r->st) = next;
	r->dirty = true;
out:
	return rdt_core_end(r, true, ret);
}

/* The kept configuration as the API gives it; names into r's buffer. */
static int conf_of(rdtalloc_t *r, const struct rdt_control_state *c,
		   struct rdtalloc_control_conf *conf, struct rdtalloc_control_group *g,
		   char (*names)[RDTALLOC_NAME_MAX + 1])
{
	size_t k = 0;

	memset(conf, 0, sizeof(*conf));
	conf->sz = sizeof(*conf);
	conf->cache_id = c->cache_id;
	conf->avoid = c->avoid;
	conf->interval_ms = c->interval_ms;
	conf->writes_per_minute = c->writes_per_minute;
	for (size_t i = 0; i < c->n; i++) {
		int gi = rdt_group_by_seq(r->st, c->g[i].seq);

		if (gi < 0)
			continue;
		memset(&g[k], 0, sizeof(g[k]));
		g[k].sz = sizeof(g[k]);
		snprintf(names[k], sizeof(names[k]), "%s", r->st->groups[gi].name);
		g[k].group = names[k];
		g[k].bound_miss_ratio = c->g[i].bound_ratio;
		g[k].bound_bytes_per_sec = c->g[i].bound_bps;
		g[k].exclusive = c->g[i].exclusive;
		k++;
	}
	return (int)k;
}

/* The names rdtalloc_control_get points to: the calling thread's, until its next call. */
static char (*name_buf(void))[RDTALLOC_NAME_MAX + 1]
{
	static __thread char names[RDTALLOC_CONTROL_MAX][RDTALLOC_NAME_MAX + 1];

	return names;
}

RDTALLOC_API int rdtalloc_control_get(rdtalloc_t *r, struct rdtalloc_control_conf *conf,
				      struct rdtalloc_control_group *groups, size_t max)
{
	struct rdtalloc_control_group g[RDTALLOC_CONTROL_MAX];
	struct rdtalloc_control_conf cf;
	int ret, n;

	if (!r || !conf || (max && !groups))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (conf->sz < sizeof(size_t) || (max && groups[0].sz < sizeof(size_t))) {
		ret = rdt_fail(r, -EINVAL, "rdtalloc_control_get: sz is not set");
		return rdt_core_end(r, false, ret);
	}
	n = conf_of(r, ctl_part(r->st), &cf, g, name_buf());
	cf.sz = conf->sz < sizeof(cf) ? conf->sz : sizeof(cf);
	memcpy(conf, &cf, cf.sz);
	for (size_t i = 0; i < (size_t)n && i < max; i++) {
		size_t sz = groups[i].sz ? groups[i].sz : groups[0].sz;

		g[i].sz = sz < sizeof(g[i]) ? sz : sizeof(g[i]);
		memcpy(&groups[i], &g[i], g[i].sz);
	}
	return rdt_core_end(r, false, n);
}

/* ---- The live loop ------------------------------------------------------------ */

struct live {
	rdtalloc_t *r;
	struct rdt_control_state kept;
	struct rdtalloc_control_conf conf;
	struct rdtalloc_control_group g[RDTALLOC_CONTROL_MAX];
	char names[RDTALLOC_CONTROL_MAX][RDTALLOC_NAME_MAX + 1];
	size_t n;
	unsigned int cache_id;
	struct rdt_ctl ctl;
	struct rdtalloc_control_sample smp[RDTALLOC_CONTROL_MAX];
	uint64_t prev_total[RDTALLOC_CONTROL_MAX];
	bool have_prev;
	struct rdt_ctl_perf *perf;	/* NULL: no perf events (accesses not known) */
	bool counted[RDTALLOC_CONTROL_MAX];
};

/*
 * perf events on the groups' bound cgroups: needed by a miss-ratio bound
 * (then their failure is the run's), else taken where they open.
 */
static int live_perf(struct live *lv)
{
	rdtalloc_t *r = lv->r;
	int gi[RDTALLOC_CONTROL_MAX], ret = 0;
	bool need = false;

	rdt_ctl_perf_close(lv->perf);
	lv->perf = NULL;
	for (size_t i = 0; !ret && i < lv->n; i++) {
		gi[i] = rdt_core_find_group(r, lv->g[i].group);
		ret = gi[i] < 0 ? gi[i] : 0;
		need |= lv->g[i].bound_miss_ratio > 0;
	}
	if (!ret)
		ret = rdt_ctl_perf_open(r, lv->n, gi, lv->counted, &lv->perf);
	if (ret && !need) {
		rdt_clear_err(r);
		memset(lv->counted, 0, sizeof(lv->counted));
		return 0;
	}
	for (size_t i = 0; !ret && i < lv->n; i++)
		if (lv->g[i].bound_miss_ratio > 0 && !lv->counted[i])
			ret = rdt_fail(r, -EINVAL, "group %s: a miss-ratio bound needs its LLC "
				       "references and misses, which perf counts per cgroup: bind "
				       "its cgroup (rdtctl cgroup bind %s PATH)", lv->g[i].group,
				       lv->g[i].group);
	return ret;
}

static int live_open(struct live *lv)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	rdtalloc_t *r = lv->r;
	int ret, dom;

	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	lv->kept = *ctl_part(r->st);
	ret = conf_of(r, &lv->kept, &lv->conf, lv->g, lv->names);
	lv->n = (size_t)ret;
	if (!lv->n)
		ret = rdt_fail(r, -ENOENT, "no controller is configured in this state "
			       "(rdtctl control set)");
	else
		ret = rdt_cache_geometry(r, lv->kept.cache_id, &geo, &dom);
	if (!ret)
		ret = live_perf(lv);
	if (!ret) {
		/* the ways other groups now hold exclusive are left alone too */
		lv->conf.avoid |= others_exclusive(r, dom, lv->n, lv->g);
		ret = rdt_control_engine(r, &lv->conf, lv->n, lv->g, geo.ways,
					 (uint64_t)geo.sets * RDT_LINE, &lv->ctl);
	}
	if (!ret) {
		struct rdt_ctl_layout l = lv->ctl.cur;
		size_t k = 0;

		/* go on from the layout kept, when it still fits */
		for (size_t i = 0; i < lv->kept.n; i++) {
			if (rdt_group_by_seq(r->st, lv->kept.g[i].seq) < 0)
				continue;
			l.kind[k] = lv->kept.g[i].kind;
			l.w[k] = lv->kept.g[i].w;
			k++;
		}
		rdt_ctl_adopt(&lv->ctl, &l);
		lv->cache_id = geo.cache_id;
	}
	return rdt_core_end(r, false, ret);
}

static int live_read(struct live *lv)
{
	struct rdtalloc_mon_value v[RDTALLOC_CONTROL_MAX * 8];
	const char *names[RDTALLOC_CONTROL_MAX];
	uint64_t refs[RDTALLOC_CONTROL_MAX], llc[RDTALLOC_CONTROL_MAX];
	int ret;

	if (lv->perf)
		rdt_ctl_perf_read(lv->perf, refs, llc);
	for (size_t i = 0; i < lv->n; i++)
		names[i] = lv->g[i].group;
	v[0].sz = sizeof(v[0]);
	ret = rdtalloc_mon_read(lv->r, names, lv->n, v, sizeof(v) / sizeof(v[0]));
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < lv->n; i++) {
		struct rdtalloc_control_sample *s = &lv->smp[i];

		memset(s, 0, sizeof(*s));
		s->sz = sizeof(*s);
		snprintf(s->group, sizeof(s->group), "%s", lv->g[i].group);
		for (int k = 0; k < ret && (size_t)k < sizeof(v) / sizeof(v[0]); k++) {
			if (strcmp(v[k].group, s->group) || v[k].cache_id != lv->cache_id)
				continue;
			if (v[k].state != RDTALLOC_MON_OK)
				return rdt_fail(lv->r, -EAGAIN, "group %s: its counters cannot be "
						"read now (unmonitored or unavailable)", s->group);
			s->llc_occupancy = v[k].llc_occupancy;
			s->mbm_total = lv->have_prev && v[k].mbm_total >= lv->prev_total[i] ?
					       v[k].mbm_total - lv->prev_total[i] : 0;
			s->misses = s->mbm_total / RDT_LINE;
			lv->prev_total[i] = v[k].mbm_total;
		}
		/* perf's counts where the group's cgroups are counted */
		if (lv->perf && lv->counted[i]) {
			s->accesses = refs[i];
			s->misses = llc[i];
		}
	}
	lv->have_prev = true;
	return 0;
}

/* The masks of the new layout written, and the layout kept, in one call. */
static int live_apply(struct live *lv, const uint64_t *masks)
{
	rdtalloc_t *r = lv->r;
	struct rdt_control_state *c;
	char text[96];
	int ret;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	c = ctl_part(r->st);
	for (size_t i = 0; !ret && i < lv->n; i++) {
		int gi = rdt_core_find_group(r, lv->g[i].group);
		bool cdp = r->st->cdp[RDT_L3];

		if (gi < 0) {
			ret = gi;
			break;
		}
		if (cdp)
			snprintf(text, sizeof(text), "L3CODE:%u=%llx;L3DATA:%u=%llx", lv->cache_id,
				 (unsigned long long)masks[i], lv->cache_id,
				 (unsigned long long)masks[i]);
		else
			snprintf(text, sizeof(text), "L3:%u=%llx", lv->cache_id,
				 (unsigned long long)masks[i]);
		ret = rdt_core_set_schema(r, gi, text);
		for (size_t k = 0; !ret && k < c->n; k++)
			if (c->g[k].seq == r->st->groups[gi].seq) {
				c->g[k].kind = lv->ctl.cur.kind[i];
				c->g[k].w = lv->ctl.cur.w[i];
			}
	}
	if (!ret)
		r->dirty = true;
	return rdt_core_end(r, true, ret);
}

static int sleep_ms(unsigned int ms, volatile int *stop)
{
	while (ms && !(stop && *stop)) {
		unsigned int step = ms > 100 ? 100 : ms;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step * 1000000L };

		nanosleep(&ts, NULL);
		ms -= step;
	}
	return stop && *stop;
}

/* The goals and groups of two configurations alike (the layout aside)? */
static bool same_conf(const struct rdt_control_state *a, const struct rdt_control_state *b)
{
	if (a->n != b->n || a->cache_id != b->cache_id || a->avoid != b->avoid ||
	    a->interval_ms != b->interval_ms || a->writes_per_minute != b->writes_per_minute)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].seq != b->g[i].seq || a->g[i].bound_ratio != b->g[i].bound_ratio ||
		    a->g[i].bound_bps != b->g[i].bound_bps || a->g[i].exclusive != b->g[i].exclusive)
			return false;
	return true;
}

/*
 * The configuration as the state keeps it now: 0 the same, 1 changed (the
 * loop starts again from it), -ENOENT cleared (the run ends).
 */
static int live_check(struct live *lv)
{
	rdtalloc_t *r = lv->r;
	int ret = rdt_core_begin(r, false);

	if (ret)
		return ret;
	if (!ctl_part(r->st)->n)
		ret = rdt_fail(r, -ENOENT, "the controller's configuration was cleared "
			       "(rdtctl control clear)");
	else
		ret = !same_conf(ctl_part(r->st), &lv->kept);
	return rdt_core_end(r, false, ret);
}

static int live_loop(struct live *lv, uint64_t count, volatile int *stop,
		     rdtalloc_control_cb cb, void *arg)
{
	unsigned int ms = lv->conf.interval_ms ? lv->conf.interval_ms : 1000;
	struct rdt_ctl_sample s[RDTALLOC_CONTROL_MAX];
	uint64_t masks[RDTALLOC_CONTROL_MAX];
	struct rdt_ctl_event ev;
	int ret;

	rdt_ctl_masks(&lv->ctl, &lv->ctl.cur, masks);
	ret = live_apply(lv, masks);
	if (!ret)
		ret = live_read(lv);
	for (uint64_t t = 0; !ret && (!count || t < count); t++) {
		struct rdtalloc_control_record rec = {
			.sz = sizeof(rec), .kind = RDTALLOC_CONTROL_INTERVAL, .interval = t,
			.cache_id = lv->cache_id, .ngroups = lv->n, .groups = lv->smp,
		};

		if (sleep_ms(ms, stop))
			break;
		ret = live_check(lv);
		if (ret == 1) {
			/* changed by rdtctl control set: go on under the new one */
			rdt_ctl_free(&lv->ctl);
			lv->have_prev = false;
			ret = live_open(lv);
			if (!ret)
				ret = live_read(lv);
			if (ret)
				break;
			ms = lv->conf.interval_ms ? lv->conf.interval_ms : 1000;
			rdt_ctl_masks(&lv->ctl, &lv->ctl.cur, masks);
			continue;
		}
		if (ret)
			break;
		ret = live_read(lv);
		if (ret)
			break;
		for (size_t i = 0; i < lv->n; i++) {
			lv->smp[i].mask = masks[i];
			s[i].accesses = lv->smp[i].accesses;
			s[i].misses = lv->smp[i].misses;
			s[i].occ_bytes = lv->smp[i].llc_occupancy;
			s[i].mbm_bytes = lv->smp[i].mbm_total;
		}
		if (cb && (ret = cb(&rec, arg)))
			break;
		rdt_ctl_step(&lv->ctl, s, &ev);
		if (ev.changed) {
			rdt_ctl_masks(&lv->ctl, &lv->ctl.cur, masks);
			ret = live_apply(lv, masks);
			if (ret)
				break;
		}
		if (ev.action && cb) {
			struct rdtalloc_control_record d = {
				.sz = sizeof(d), .kind = RDTALLOC_CONTROL_DECISION, .interval = t,
				.cache_id = lv->cache_id, .action = ev.action, .reason = ev.why,
				.base = ev.base, .measured = ev.measured,
			};

			ret = cb(&d, arg);
		}
	}
	return ret;
}

RDTALLOC_API int rdtalloc_control_run(rdtalloc_t *r, uint64_t count, volatile int *stop,
				      rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct live *lv;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdtalloc_mon_get_info(r, &mi);
	if (ret == -EOPNOTSUPP || (!ret && !mi.rmids))
		return rdt_fail(r, -EOPNOTSUPP, "the controller measures through the monitoring "
				"counters: backend %s has none here", rdtalloc_backend(r));
	if (ret)
		return ret;
	if (!(mi.events & RDTALLOC_MON_EV_TOTAL))
		return rdt_fail(r, -EOPNOTSUPP, "the controller needs memory bandwidth "
				"monitoring (MBM total): this machine has none");
	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return rdt_fail(r, -ENOMEM, "out of memory");
	lv->r = r;
	ret = live_open(lv);
	if (!ret) {
		ret = live_loop(lv, count, stop, cb, arg);
		rdt_ctl_free(&lv->ctl);
	}
	rdt_ctl_perf_close(lv->perf);
	free(lv);
	return ret;
}
