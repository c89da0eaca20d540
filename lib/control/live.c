// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live: the controllers the state keeps (section.c), run on a backend -
 * rdtalloc_control_run. One engine per L3 domain configured, each on its
 * own interval: the groups' counters read (rdtalloc_mon_read: MBM traffic
 * and occupancy; perf's LLC references and misses on their bound cgroups,
 * perf.c), a decision, and the new masks written with the layout kept, in
 * one write call (the core's schema rules). A configuration changed by
 * `rdtctl control set` is followed at the next interval, one cleared ends
 * the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "control/control.h"
#include "core.h"
#include "errors.h"

/* One domain's controller, running. */
struct live_dom {
	struct rdt_ctl_kept kept;	/* as the state kept it when it started */
	struct rdtalloc_control_conf conf;
	struct rdtalloc_control_group g[RDT_CTL_MAX];
	char names[RDT_CTL_MAX][RDT_CTL_NAME_LEN];
	size_t n;
	unsigned int cache_id;
	struct rdt_ctl ctl;
	bool have_ctl;
	struct rdtalloc_control_sample smp[RDT_CTL_MAX];
	uint64_t masks[RDT_CTL_MAX];	/* in force */
	uint64_t prev_total[RDT_CTL_MAX];
	bool prev_ok[RDT_CTL_MAX];	/* the last reading of the group was good */
	bool have_prev;
	struct rdt_ctl_perf *perf;	/* NULL: no perf events (accesses not known) */
	bool counted[RDT_CTL_MAX];
	uint64_t t;			/* its intervals so far */
	double due;			/* CLOCK_MONOTONIC seconds of its next interval's end */
};

struct live {
	rdtalloc_t *r;
	size_t ndom;
	struct live_dom *d;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned int interval_ms(const struct live_dom *ld)
{
	return ld->conf.interval_ms ? ld->conf.interval_ms : 1000;
}

/*
 * perf events on the groups' bound cgroups: needed by a miss-ratio bound
 * (then their failure is the run's), else taken where they open.
 */
static int live_perf(rdtalloc_t *r, struct live_dom *ld)
{
	int gi[RDT_CTL_MAX], ret = 0;
	bool need = false;

	for (size_t i = 0; !ret && i < ld->n; i++) {
		gi[i] = rdt_core_find_group(r, ld->g[i].group);
		ret = gi[i] < 0 ? gi[i] : 0;
		need |= ld->g[i].bound_miss_ratio > 0;
	}
	if (!ret)
		ret = rdt_ctl_perf_open(r, ld->n, gi, ld->counted, &ld->perf);
	if (ret && !need) {
		rdt_clear_err(r);
		memset(ld->counted, 0, sizeof(ld->counted));
		return 0;
	}
	for (size_t i = 0; !ret && i < ld->n; i++)
		if (ld->g[i].bound_miss_ratio > 0 && !ld->counted[i])
			ret = rdt_fail(r, -EINVAL, "group %s: a miss-ratio bound needs its LLC "
				       "references and misses, which perf counts per cgroup: bind "
				       "its cgroup (rdtctl cgroup bind %s PATH)", ld->g[i].group,
				       ld->g[i].group);
	return ret;
}

/* Inside a read call: domain k's controller from what the state keeps. */
static int dom_open(rdtalloc_t *r, struct live_dom *ld, const struct rdt_ctl_kept *k)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdt_ctl_layout l;
	int ret, dom;

	ld->kept = *k;
	ld->n = (size_t)rdt_control_conf_of(r, k, &ld->conf, ld->g, ld->names, &l);
	if (!ld->n)
		return 0;	/* every group of it removed: nothing to run */
	ret = rdt_cache_geometry(r, k->cache_id, &geo, &dom);
	if (!ret)
		ret = live_perf(r, ld);
	if (ret)
		return ret;
	/* the ways other groups now hold exclusive are left alone too */
	ld->conf.avoid |= rdt_control_others_exclusive(r, dom, ld->n, ld->g);
	ret = rdt_control_engine(r, &ld->conf, ld->n, ld->g, geo.ways,
				 (uint64_t)geo.sets * RDT_LINE, &ld->ctl);
	if (ret)
		return ret;
	ld->have_ctl = true;
	rdt_ctl_adopt(&ld->ctl, &l);	/* go on from the layout kept, when it still fits */
	rdt_ctl_masks(&ld->ctl, &ld->ctl.cur, ld->masks);
	ld->cache_id = geo.cache_id;
	return 0;
}

static void live_close(struct live *lv)
{
	for (size_t k = 0; k < lv->ndom; k++) {
		if (lv->d[k].have_ctl)
			rdt_ctl_free(&lv->d[k].ctl);
		rdt_ctl_perf_close(lv->d[k].perf);
	}
	free(lv->d);
	lv->d = NULL;
	lv->ndom = 0;
}

static int live_open(struct live *lv)
{
	const struct rdt_control_state *c;
	rdtalloc_t *r = lv->r;
	int ret;

	live_close(lv);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	c = rdt_control(r->st);
	if (!c->ndom)
		ret = rdt_fail(r, -ENOENT, "no controller is configured in this state "
			       "(rdtctl control set)");
	else if (!(lv->d = calloc(c->ndom, sizeof(*lv->d))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (size_t k = 0; !ret && k < c->ndom; k++) {
		ret = dom_open(r, &lv->d[lv->ndom], &c->d[k]);
		lv->ndom++;
	}
	return rdt_core_end(r, false, ret);
}

/*
 * The domain's counters since the last read: 0, 1 when some group's could
 * not be read this time (an RMID just given, a counter unavailable: the
 * interval is skipped, and its next one starts from this read), -errno.
 */
static int live_read(rdtalloc_t *r, struct live_dom *ld)
{
	struct rdtalloc_mon_value v[RDT_CTL_MAX * 8];
	const char *names[RDT_CTL_MAX];
	uint64_t refs[RDT_CTL_MAX], llc[RDT_CTL_MAX];
	bool missing = false;
	int ret;

	if (ld->perf)
		rdt_ctl_perf_read(ld->perf, refs, llc);
	for (size_t i = 0; i < ld->n; i++)
		names[i] = ld->g[i].group;
	v[0].sz = sizeof(v[0]);
	ret = rdtalloc_mon_read(r, names, ld->n, v, sizeof(v) / sizeof(v[0]));
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < ld->n; i++) {
		struct rdtalloc_control_sample *s = &ld->smp[i];

		memset(s, 0, sizeof(*s));
		s->sz = sizeof(*s);
		s->mask = ld->masks[i];
		snprintf(s->group, sizeof(s->group), "%s", ld->g[i].group);
		for (int k = 0; k < ret && (size_t)k < sizeof(v) / sizeof(v[0]); k++) {
			if (strcmp(v[k].group, s->group) || v[k].cache_id != ld->cache_id)
				continue;
			if (v[k].state != RDTALLOC_MON_OK) {
				missing = true;
				ld->prev_ok[i] = false;
				continue;
			}
			/* a traffic figure needs two good readings, this one and the last */
			if (!ld->have_prev || !ld->prev_ok[i] || v[k].mbm_total < ld->prev_total[i])
				missing |= ld->have_prev;
			else
				s->mbm_total = v[k].mbm_total - ld->prev_total[i];
			s->llc_occupancy = v[k].llc_occupancy;
			s->misses = s->mbm_total / RDT_LINE;
			ld->prev_total[i] = v[k].mbm_total;
			ld->prev_ok[i] = true;
		}
		/* perf's counts where the group's cgroups are counted */
		if (ld->perf && ld->counted[i]) {
			s->accesses = refs[i];
			s->misses = llc[i];
		}
	}
	ld->have_prev = true;
	return missing;
}

/* The domain's masks written, and its layout kept, in one call. */
static int live_apply(rdtalloc_t *r, struct live_dom *ld)
{
	struct rdt_ctl_kept *k;
	char text[96];
	int ret;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	k = rdt_control_find(r->st, (int)ld->cache_id);
	for (size_t i = 0; !ret && i < ld->n; i++) {
		int gi = rdt_core_find_group(r, ld->g[i].group);

		if (gi < 0) {
			ret = gi;
			break;
		}
		if (r->st->cdp[RDT_L3])
			snprintf(text, sizeof(text), "L3CODE:%u=%llx;L3DATA:%u=%llx", ld->cache_id,
				 (unsigned long long)ld->masks[i], ld->cache_id,
				 (unsigned long long)ld->masks[i]);
		else
			snprintf(text, sizeof(text), "L3:%u=%llx", ld->cache_id,
				 (unsigned long long)ld->masks[i]);
		ret = rdt_core_set_schema(r, gi, text);
		for (size_t j = 0; !ret && k && j < k->n; j++)
			if (k->g[j].seq == r->st->groups[gi].seq) {
				k->g[j].kind = ld->ctl.cur.kind[i];
				k->g[j].w = ld->ctl.cur.w[i];
			}
	}
	if (!ret)
		r->dirty = true;
	return rdt_core_end(r, true, ret);
}

/*
 * The configuration as the state keeps it now: 0 the same, 1 changed (the
 * run starts again from it), -ENOENT cleared (the run ends).
 */
static int live_check(struct live *lv)
{
	const struct rdt_control_state *c;
	rdtalloc_t *r = lv->r;
	int ret = rdt_core_begin(r, false);

	if (ret)
		return ret;
	c = rdt_control(r->st);
	if (!c->ndom)
		ret = rdt_fail(r, -ENOENT, "the controller's configuration was cleared "
			       "(rdtctl control clear)");
	else if (c->ndom != lv->ndom)
		ret = 1;
	for (size_t k = 0; !ret && k < c->ndom; k++)
		ret = !rdt_control_same(&c->d[k], &lv->d[k].kept);
	return rdt_core_end(r, false, ret);
}

/* Sleep until t (CLOCK_MONOTONIC seconds), in steps that look at *stop. */
static bool sleep_until(double t, volatile int *stop)
{
	for (;;) {
		double left = t - mono();
		struct timespec ts;

		if (stop && *stop)
			return true;
		if (left <= 0)
			return false;
		left = left > 0.1 ? 0.1 : left;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
}

/* One interval of domain ld: read, record, decide, write. */
static int dom_interval(rdtalloc_t *r, struct live_dom *ld, rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_control_record rec = {
		.sz = sizeof(rec), .kind = RDTALLOC_CONTROL_INTERVAL, .interval = ld->t,
		.cache_id = ld->cache_id, .ngroups = ld->n, .groups = ld->smp,
	};
	struct rdt_ctl_sample s[RDT_CTL_MAX];
	struct rdt_ctl_event ev;
	int ret = live_read(r, ld);

	if (ret) {
		/* an interval some counter could not be read in: no record, no decision */
		ld->t += ret > 0;
		return ret > 0 ? 0 : ret;
	}
	for (size_t i = 0; i < ld->n; i++) {
		s[i].accesses = ld->smp[i].accesses;
		s[i].misses = ld->smp[i].misses;
		s[i].occ_bytes = ld->smp[i].llc_occupancy;
		s[i].mbm_bytes = ld->smp[i].mbm_total;
	}
	if (cb && (ret = cb(&rec, arg)))
		return ret;
	rdt_ctl_step(&ld->ctl, s, &ev);
	if (ev.changed) {
		rdt_ctl_masks(&ld->ctl, &ld->ctl.cur, ld->masks);
		ret = live_apply(r, ld);
		if (ret)
			return ret;
	}
	if (ev.action && cb) {
		struct rdtalloc_control_record d = {
			.sz = sizeof(d), .kind = RDTALLOC_CONTROL_DECISION, .interval = ld->t,
			.cache_id = ld->cache_id, .action = ev.action, .reason = ev.why,
			.base = ev.base, .measured = ev.measured,
		};

		ret = cb(&d, arg);
	}
	ld->t++;
	return ret;
}

/* Every domain's layout written and its counters read: the base of its first interval. */
static int live_start(struct live *lv)
{
	double now = mono();
	int ret = 0;

	for (size_t k = 0; !ret && k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];

		if (!ld->n)
			continue;
		ld->have_prev = false;
		memset(ld->prev_ok, 0, sizeof(ld->prev_ok));
		ret = live_apply(lv->r, ld);
		if (!ret && (ret = live_read(lv->r, ld)) > 0)
			ret = 0;	/* the base of the first interval, as far as it goes */
		ld->due = now + interval_ms(ld) / 1000.0;
	}
	return ret;
}

/* The domain whose interval ends first (NULL: none has groups). */
static struct live_dom *next_due(struct live *lv, uint64_t count)
{
	struct live_dom *first = NULL;

	for (size_t k = 0; k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];

		if (!ld->n || (count && ld->t >= count))
			continue;
		if (!first || ld->due < first->due)
			first = ld;
	}
	return first;
}

static int live_loop(struct live *lv, uint64_t count, volatile int *stop,
		     rdtalloc_control_cb cb, void *arg)
{
	struct live_dom *ld;
	int ret = live_start(lv);

	while (!ret && (ld = next_due(lv, count))) {
		if (sleep_until(ld->due, stop))
			break;
		ret = live_check(lv);
		if (ret == 1) {
			/* changed by rdtctl control set: go on under the new one */
			ret = live_open(lv);
			if (!ret)
				ret = live_start(lv);
			continue;
		}
		if (!ret)
			ret = dom_interval(lv->r, ld, cb, arg);
		ld->due += interval_ms(ld) / 1000.0;
	}
	return ret;
}

RDTALLOC_API int rdtalloc_control_run(rdtalloc_t *r, uint64_t count, volatile int *stop,
				      rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct live lv = { .r = r };
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
	ret = live_open(&lv);
	if (!ret)
		ret = live_loop(&lv, count, stop, cb, arg);
	live_close(&lv);
	return ret;
}
