// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live: the controllers the state keeps (section.c), run on a backend -
 * rdtalloc_control_run. One engine per L3 domain configured, each on its
 * own interval: the groups' counters read (rdtalloc_mon_read: MBM traffic
 * and occupancy; perf's LLC references and misses on the bound cgroups of
 * groups with a miss-ratio bound, perf.c), a decision, and the new masks
 * written in one write call (the core's schema rules) with the layout
 * last verified kept beside them - never a probe, so that a run killed
 * mid-probe is not taken up from it. A configuration changed by `rdtctl
 * control set` is followed at the next interval, one cleared ends the run;
 * a run that stops for any reason first puts the layout last verified
 * back in force. Its writes are its own (owner control:ID, never forced); a
 * controlled group whose mask someone else took (forced it to be theirs)
 * leaves the configuration, its mask as they set it, and the controller
 * says who took it. An advisory controller decides and writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"
#include "control/control.h"
#include "context.h"
#include "errors.h"

/* One domain's controller, running. */
struct live_dom {
	struct rdt_ctl_kept kept;	/* as the state kept it when it started */
	struct rdtalloc_control_conf conf;
	struct rdtalloc_control_group g[RDT_CTL_MAX];
	char names[RDT_CTL_MAX][RDT_CTL_NAME_LEN];
	uint64_t seq[RDT_CTL_MAX];	/* the groups' sequence numbers */
	size_t n;
	unsigned int cache_id;
	int dom;			/* its index among the L3 domains */
	bool advisory;			/* decides, writes nothing */
	bool written;			/* masks[] were written: the groups hold them */
	struct rdt_ctl ctl;
	bool have_ctl;
	struct rdtalloc_control_sample smp[RDT_CTL_MAX];
	uint64_t masks[RDT_CTL_MAX];	/* in force */
	uint64_t prev_total[RDT_CTL_MAX];
	bool prev_ok[RDT_CTL_MAX];	/* the last reading of the group was good */
	bool have_prev;
	struct rdtalloc_mon_value *v;	/* a reading: groups x L3 domains */
	size_t nv;
	struct rdt_ctl_perf *perf;	/* NULL: no perf events (accesses not known) */
	bool counted[RDT_CTL_MAX];
	uint64_t t;			/* its intervals so far */
	double due;			/* CLOCK_MONOTONIC seconds of its next interval's end */
};

struct live {
	rdtalloc_t *r;
	size_t ndom;
	struct live_dom *d;
	rdtalloc_control_cb cb;
	void *arg;
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
 * perf events on the bound cgroups of the groups with a miss-ratio bound,
 * which needs them (their failure is the run's); no other group's are
 * opened: each costs two events per CPU and cgroup.
 */
static int live_perf(rdtalloc_t *r, struct live_dom *ld)
{
	int gi[RDT_CTL_MAX], ret = 0;
	bool need = false;

	memset(ld->counted, 0, sizeof(ld->counted));
	for (size_t i = 0; !ret && i < ld->n; i++) {
		gi[i] = rdt_core_find_group(r, ld->g[i].group);
		ret = gi[i] < 0 ? gi[i] : 0;
		if (ld->g[i].bound_miss_ratio > 0)
			need = true;
		else
			gi[i] = -1;	/* no cgroup is bound to group -1: not counted */
	}
	if (!ret && need)
		ret = rdt_ctl_perf_open(r, ld->n, gi, ld->counted, &ld->perf);
	for (size_t i = 0; !ret && i < ld->n; i++)
		if (ld->g[i].bound_miss_ratio > 0 && !ld->counted[i])
			ret = rdt_fail(r, -EINVAL, "group %s: a miss-ratio bound needs its LLC "
				       "references and misses, which perf counts per cgroup: bind "
				       "its cgroup (rdtctl cgroup bind %s PATH)", ld->g[i].group,
				       ld->g[i].group);
	return ret;
}

/*
 * Group i's L3 data and code masks in the domain, as the state has them
 * now, and who set them (NULL: not known).
 */
static const char *state_masks(const struct rdt_state *st, const struct live_dom *ld, size_t i,
			       uint64_t *m)
{
	int gi = rdt_group_by_seq(st, ld->seq[i]);
	unsigned int slot = st->slot_of[RDT_L3][ld->dom];

	m[0] = m[1] = 0;
	if (gi < 0)
		return NULL;
	m[0] = st->groups[gi].mask[slot * 2];
	m[1] = st->groups[gi].mask[slot * 2 + 1];
	return rdt_group_mask_owner(st, gi, slot);
}

/* Inside a read call: domain k's controller from what the state keeps. */
static int dom_open(rdtalloc_t *r, struct live_dom *ld, const struct rdt_ctl_kept *k)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdt_ctl_layout l;
	int ret, dom;

	ld->kept = *k;
	ld->n = (size_t)rdt_control_conf_of(r, k, &ld->conf, ld->g, ld->names, &l);
	ld->cache_id = (unsigned int)k->cache_id;
	if (!ld->n)
		return 0;	/* every group of it removed: nothing to run */
	for (size_t i = 0, j = 0; i < k->n; i++)
		if (rdt_group_by_seq(rdt_core_state(r), k->g[i].seq) >= 0)
			ld->seq[j++] = k->g[i].seq;
	ld->advisory = k->flags & RDTALLOC_CONTROL_ADVISORY;
	ret = rdt_cache_geometry(r, k->cache_id, &geo, &dom);
	if (!ret)
		ret = live_perf(r, ld);
	if (ret)
		return ret;
	ld->dom = dom;
	ld->nv = ld->n * rdt_core_state(r)->m->ndom[RDT_L3];
	ld->v = calloc(ld->nv, sizeof(*ld->v));
	if (!ld->v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	/* the ways other groups now hold exclusive, and the shareable ones, are left alone */
	ld->conf.avoid |= rdt_control_left_alone(r, dom, k->flags, ld->n, ld->g);
	ret = rdt_control_engine(r, &ld->conf, ld->n, ld->g, geo.ways,
				 (uint64_t)geo.sets * RDT_LINE, &ld->ctl);
	if (ret)
		return ret;
	ld->have_ctl = true;
	rdt_ctl_adopt(&ld->ctl, &l);	/* go on from the layout kept, when it still fits */
	rdt_ctl_masks(&ld->ctl, &ld->ctl.cur, ld->masks);
	return 0;
}

static void dom_close(struct live_dom *ld)
{
	if (ld->have_ctl)
		rdt_ctl_free(&ld->ctl);
	rdt_ctl_perf_close(ld->perf);
	free(ld->v);
}

static void live_close(struct live *lv)
{
	for (size_t k = 0; k < lv->ndom; k++)
		dom_close(&lv->d[k]);
	free(lv->d);
	lv->d = NULL;
	lv->ndom = 0;
}

/* The intervals domain cache_id counted before a configuration changed: numbers go on. */
static uint64_t intervals_before(const struct live *lv, unsigned int cache_id)
{
	for (size_t k = 0; k < lv->ndom; k++)
		if (lv->d[k].cache_id == cache_id)
			return lv->d[k].t;
	return 0;
}

static int live_open(struct live *lv)
{
	const struct rdt_control_state *c;
	struct live next = *lv;
	rdtalloc_t *r = lv->r;
	int ret;

	next.d = NULL;
	next.ndom = 0;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	c = rdt_control(rdt_core_state(r));
	rdt_control_warn_aside(r);
	if (!c->ndom)
		ret = rdt_fail(r, -ENOENT, "no controller is configured in this state "
			       "(rdtctl control set)");
	else if (!(next.d = calloc(c->ndom, sizeof(*next.d))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (size_t k = 0; !ret && k < c->ndom; k++) {
		struct live_dom *ld = &next.d[next.ndom++];

		ret = dom_open(r, ld, &c->d[k]);
		ld->t = intervals_before(lv, ld->cache_id);
	}
	live_close(lv);
	*lv = next;
	return rdt_core_end(r, false, ret);
}

/*
 * The domain's counters since the last read: 0, 1 when some group's could
 * not be read this time (an RMID just given, a counter unavailable: the
 * interval is skipped, and its next one starts from this read), -errno.
 */
static int live_read(rdtalloc_t *r, struct live_dom *ld)
{
	const char *names[RDT_CTL_MAX];
	uint64_t refs[RDT_CTL_MAX], llc[RDT_CTL_MAX];
	bool missing = false;
	int ret;

	if (ld->perf)
		rdt_ctl_perf_read(ld->perf, refs, llc);
	for (size_t i = 0; i < ld->n; i++)
		names[i] = ld->g[i].group;
	ld->v[0].sz = sizeof(ld->v[0]);
	ret = rdtalloc_mon_read(r, names, ld->n, ld->v, ld->nv);
	if (ret > 0 && (size_t)ret > ld->nv) {
		/* more domains than when it started: read again into room for them */
		struct rdtalloc_mon_value *v = realloc(ld->v, (size_t)ret * sizeof(*v));

		if (!v)
			return rdt_fail(r, -ENOMEM, "out of memory");
		ld->v = v;
		ld->nv = (size_t)ret;
		ret = rdtalloc_mon_read(r, names, ld->n, ld->v, ld->nv);
	}
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < ld->n; i++) {
		struct rdtalloc_control_sample *s = &ld->smp[i];

		memset(s, 0, sizeof(*s));
		s->sz = sizeof(*s);
		s->mask = ld->masks[i];
		snprintf(s->group, sizeof(s->group), "%s", ld->g[i].group);
		for (size_t k = 0; k < (size_t)ret && k < ld->nv; k++) {
			const struct rdtalloc_mon_value *v = &ld->v[k];

			if (strcmp(v->group, s->group) || v->cache_id != ld->cache_id)
				continue;
			if (v->state != RDTALLOC_MON_OK) {
				missing = true;
				ld->prev_ok[i] = false;
				continue;
			}
			/* a traffic figure needs two good readings, this one and the last */
			if (!ld->have_prev || !ld->prev_ok[i] || v->mbm_total < ld->prev_total[i])
				missing |= ld->have_prev;
			else
				s->mbm_total = v->mbm_total - ld->prev_total[i];
			s->llc_occupancy = v->llc_occupancy;
			s->misses = s->mbm_total / RDT_LINE;
			ld->prev_total[i] = v->mbm_total;
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

/*
 * The domain's masks written, and its layout last verified kept, in one
 * call: 0; 1 when its configuration changed since the run read it (then
 * nothing is written: a group that left it is not the controller's to
 * write any more); -errno. An advisory controller writes nothing.
 */
static int live_apply(rdtalloc_t *r, struct live_dom *ld)
{
	char text[96], me[RDT_CTL_OWNER_LEN];
	struct rdt_ctl_layout kept;
	struct rdt_ctl_kept *k;
	int ret;

	if (ld->advisory)
		return 0;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	/* its writes are its own: control:ID, never forced over another owner's */
	rdt_control_owner(ld->cache_id, me, sizeof(me));
	ret = rdt_core_set_writer(r, me, false);
	if (ret)
		return rdt_core_end(r, true, ret);
	k = rdt_control_find(rdt_core_state(r), (int)ld->cache_id);
	if (!k || !rdt_control_same(k, &ld->kept))
		return rdt_core_end(r, true, 1);
	rdt_ctl_kept_layout(&ld->ctl, &kept);
	for (size_t i = 0; !ret && i < ld->n; i++) {
		int gi = rdt_group_by_seq(rdt_core_state(r), ld->seq[i]);

		if (gi < 0) {
			ret = 1;
			break;
		}
		rdt_control_schema_text(rdt_core_state(r), ld->cache_id, ld->masks[i], ld->masks[i],
					text, sizeof(text));
		ret = rdt_core_set_schema(r, gi, text);
		for (size_t j = 0; !ret && j < k->n; j++)
			if (k->g[j].seq == ld->seq[i]) {
				k->g[j].kind = kept.kind[i];
				k->g[j].w = kept.w[i];
			}
	}
	if (ret == -EBUSY) {
		/* a group taken since the last look: nothing written, the next look says by whom */
		rdt_core_end(r, true, ret);
		rdt_clear_err(r);
		return 2;
	}
	if (!ret)
		rdt_core_mark_dirty(r);
	ret = rdt_core_end(r, true, ret);
	ld->written |= !ret;
	return ret;
}

/*
 * Someone took group i: its mask is another owner's now (they forced it),
 * or - where owners are not known - not the one the controller wrote.
 */
static bool taken(const struct rdt_state *st, const struct live_dom *ld, size_t i)
{
	char me[RDT_CTL_OWNER_LEN];
	uint64_t m[2];
	const char *o;

	if (ld->advisory)
		return false;
	o = state_masks(st, ld, i, m);
	rdt_control_owner(ld->cache_id, me, sizeof(me));
	if (o && strcmp(o, me))
		return true;
	return ld->written && (m[0] != ld->masks[i] || (st->cdp[RDT_L3] && m[1] != ld->masks[i]));
}

/*
 * The configuration as the state keeps it now: 0 the same, 1 changed (the
 * run starts again from it), 2 a group's mask was changed by someone else,
 * -ENOENT cleared (the run ends). An advisory run takes the masks in force
 * as they are.
 */
static int live_check(struct live *lv)
{
	const struct rdt_control_state *c;
	rdtalloc_t *r = lv->r;
	int ret = rdt_core_begin(r, false);

	if (ret)
		return ret;
	c = rdt_control(rdt_core_state(r));
	if (!c->ndom)
		ret = rdt_fail(r, -ENOENT, "the controller's configuration was cleared "
			       "(rdtctl control clear)");
	else if (c->ndom != lv->ndom)
		ret = 1;
	for (size_t k = 0; !ret && k < c->ndom; k++)
		ret = !rdt_control_same(&c->d[k], &lv->d[k].kept);
	for (size_t k = 0; !ret && k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];

		/* the ways left alone moved (io_alloc turned on, its mask set): as a change */
		if (ld->n && (ld->kept.avoid | rdt_control_left_alone(r, ld->dom, ld->kept.flags,
								      ld->n, ld->g)) != ld->conf.avoid)
			ret = 1;

		for (size_t i = 0; !ret && i < ld->n; i++) {
			uint64_t m[2];

			if (ld->advisory) {
				state_masks(rdt_core_state(r), ld, i, m);
				ld->masks[i] = m[0];
			}
			ret = taken(rdt_core_state(r), ld, i) ? 2 : 0;
		}
	}
	return rdt_core_end(r, false, ret);
}

/* The name of group g of the domain's controller (g < 0: none). */
static const char *group_name(const struct live_dom *ld, int g)
{
	return g >= 0 && (size_t)g < ld->n ? ld->g[g].group : NULL;
}

/* A decision after the domain's last interval (g: the group it is about, -1 none). */
static int say(struct live *lv, const struct live_dom *ld, const char *action, int g,
	       const char *why, uint64_t base, uint64_t measured, uint64_t margin)
{
	struct rdtalloc_control_record d = {
		.sz = sizeof(d), .kind = RDTALLOC_CONTROL_DECISION,
		.interval = ld->t ? ld->t - 1 : 0,
		.cache_id = ld->cache_id, .action = action, .reason = why, .base = base,
		.measured = measured, .group = group_name(ld, g), .margin = margin,
	};

	return lv->cb ? lv->cb(&d, lv->arg) : 0;
}

/*
 * Someone else set the mask of a controlled group (rdtctl schema set, a
 * plan applied): the group is theirs now. It leaves the configuration with
 * the mask they set - not its declared one - and the controller says so.
 */
static int live_take(struct live *lv)
{
	char why[RDT_CTL_NAME_LEN + RDT_CTL_OWNER_LEN + 256];
	rdtalloc_t *r = lv->r;
	int ret = 0;

	for (size_t k = 0; !ret && k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];
		struct rdt_ctl_kept *kept;
		bool took[RDT_CTL_MAX] = { false };
		char texts[RDT_CTL_MAX][96], who[RDT_CTL_MAX][RDT_CTL_OWNER_LEN];
		uint64_t m[2];

		ret = rdt_core_begin(r, true);
		if (ret)
			return ret;
		kept = rdt_control_find(rdt_core_state(r), (int)ld->cache_id);
		for (size_t i = 0; kept && rdt_control_same(kept, &ld->kept) && i < ld->n; i++) {
			const char *o = state_masks(rdt_core_state(r), ld, i, m);

			took[i] = taken(rdt_core_state(r), ld, i);
			snprintf(who[i], sizeof(who[i]), "%s", o ? o : "someone else");
			rdt_control_schema_text(rdt_core_state(r), ld->cache_id, m[0], m[1],
						texts[i], sizeof(texts[i]));
		}
		for (size_t i = 0; i < ld->n; i++)
			if (took[i])
				rdt_control_drop(r, (int)ld->cache_id, ld->seq[i]);
		ret = rdt_core_end(r, true, 0);
		for (size_t i = 0; !ret && i < ld->n; i++) {
			if (!took[i])
				continue;
			snprintf(why, sizeof(why), "group %.64s: its mask was set to %.96s by %.129s: "
				 "it leaves the controller with that mask", ld->g[i].group,
				 texts[i], who[i]);
			ret = say(lv, ld, "taken", (int)i, why, 0, 0, 0);
		}
	}
	return ret;
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
static int dom_interval(struct live *lv, struct live_dom *ld)
{
	struct rdtalloc_control_record rec = {
		.sz = sizeof(rec), .kind = RDTALLOC_CONTROL_INTERVAL, .interval = ld->t,
		.cache_id = ld->cache_id, .ngroups = ld->n, .groups = ld->smp,
	};
	struct rdt_ctl_sample s[RDT_CTL_MAX];
	char why[RDT_CTL_WHY + 64];
	struct rdt_ctl_event ev;
	int ret = live_read(lv->r, ld);

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
	if (lv->cb && (ret = lv->cb(&rec, lv->arg)))
		return ret;
	rdt_ctl_step(&ld->ctl, s, &ev);
	if (ev.changed && !ld->advisory) {
		rdt_ctl_masks(&ld->ctl, &ld->ctl.cur, ld->masks);
		/* 1: the configuration changed meanwhile; the next check follows it */
		ret = live_apply(lv->r, ld);
		if (ret < 0)
			return ret;
	}
	ld->t++;
	if (!ev.action)
		return 0;
	snprintf(why, sizeof(why), "%s%s", ld->advisory ? "advisory, nothing written: " : "",
		 ev.why);
	return say(lv, ld, ev.action, ev.group, why, ev.base, ev.measured, ev.margin);
}

/* Every domain's layout written and its counters read: the base of its first interval. */
static int live_start(struct live *lv)
{
	double now = mono();
	int ret = 0;

	for (size_t k = 0; ret >= 0 && k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];

		if (!ld->n)
			continue;
		ld->have_prev = false;
		memset(ld->prev_ok, 0, sizeof(ld->prev_ok));
		ret = live_apply(lv->r, ld);
		if (ret >= 0)
			ret = live_read(lv->r, ld);	/* the base of the first interval */
		ld->due = now + interval_ms(ld) / 1000.0;
	}
	/* 1: a configuration changed, or a counter not read yet: the loop follows */
	return ret > 0 ? 0 : ret;
}

/*
 * The run stops (its count reached, *stop, the callback, an error): a
 * probe not verified yet is rolled back to the layout last verified, so
 * that what stays in force is a layout the controller kept.
 */
static int live_stop(struct live *lv)
{
	int ret = 0;

	for (size_t k = 0; k < lv->ndom; k++) {
		struct live_dom *ld = &lv->d[k];
		struct rdt_ctl_layout kept;
		uint64_t masks[RDT_CTL_MAX];
		int wret;

		if (!ld->have_ctl || ld->advisory || !ld->written)
			continue;
		rdt_ctl_kept_layout(&ld->ctl, &kept);
		rdt_ctl_masks(&ld->ctl, &kept, masks);
		if (!memcmp(masks, ld->masks, ld->n * sizeof(masks[0])))
			continue;
		memcpy(ld->masks, masks, ld->n * sizeof(masks[0]));
		wret = live_apply(lv->r, ld);
		if (!wret)
			wret = say(lv, ld, "rollback", -1, "the run stops during a probe: back to "
				   "the layout last verified", 0, 0, 0);
		if (wret < 0 && !ret)
			ret = wret;
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

static int live_loop(struct live *lv, uint64_t count, volatile int *stop)
{
	struct live_dom *ld;
	int ret = live_start(lv);

	while (!ret && (ld = next_due(lv, count))) {
		if (sleep_until(ld->due, stop))
			break;
		ret = live_check(lv);
		if (ret == 2)
			ret = live_take(lv) ? : 1;
		if (ret == 1) {
			/* changed by rdtctl control set, or a group taken: go on under the new one */
			ret = live_open(lv);
			if (!ret)
				ret = live_start(lv);
			continue;
		}
		if (!ret)
			ret = dom_interval(lv, ld);
		ld->due += interval_ms(ld) / 1000.0;
	}
	return ret;
}

RDTALLOC_API int rdtalloc_control_run(rdtalloc_t *r, uint64_t count, volatile int *stop,
				      rdtalloc_control_cb cb, void *arg)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct live lv = { .r = r, .cb = cb, .arg = arg };
	int ret, sret;

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
		ret = live_loop(&lv, count, stop);
	/* whatever ended it: no probe is left in force */
	sret = live_stop(&lv);
	if (!ret)
		ret = sret;
	live_close(&lv);
	return ret;
}
