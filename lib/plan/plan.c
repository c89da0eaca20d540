// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan: ways for groups from their miss curves (rdtalloc_plan), and what a
 * configuration would do (rdtalloc_plan_check).
 *
 * The goal is the fewest misses in total. The planner works on units: a
 * group alone, or a pool of groups that share one mask (and one CLOSID).
 * Ways go to units by utility-based cache partitioning with lookahead
 * (Qureshi & Patt, MICRO'06): every unit starts with the least it may
 * have (min_cbm_bits, at least one way); then, while ways are left, each
 * unit's best step is the number of more ways that saves the most misses
 * per way, and the unit whose best step saves most per way takes it.
 * Starting from every group alone, two units are pooled while that saves
 * misses by the shared-pool model (share.c), and while the CLOSIDs or the
 * ways do not go round otherwise: small footprints often fit better
 * shared than in whole ways of their own (KPart, HPCA'18). A group alone
 * is predicted by its curve at its ways, exactly as the model replays it;
 * a pool by the model. The assumptions are docs/plan.md's.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "context.h"
#include "errors.h"
#include "cache/cache.h"
#include "plan/plan.h"
#include "ways.h"

/* Past this many units a step of pooling tries neighbours (in the order given) only. */
#define PAIRS_ALL 16

struct unit {
	uint64_t members;		/* bit i: group i */
	unsigned int ways;
	bool fixed;			/* its ways are settled (the bound's group) */
	bool exclusive;
	double miss[65];		/* misses with k ways, k = least .. cache ways */
};

struct planner {
	size_t n;
	unsigned int ways, least, sets;	/* the cache's geometry */
	/*
	 * The ways the plan hands out: avail of them from way base (all of
	 * them but ways other groups hold exclusive: goal.avoid).
	 */
	unsigned int avail, base;
	const double *const *curves;
	const uint64_t *acc;
	uint64_t excl;
	uint64_t io;			/* ways I/O fills: exclusive units stay off them */
	/*
	 * Non-zero on a machine that takes sparse masks when the ways not
	 * avoided are not one run: the plan is made on 0..avail-1 (base 0,
	 * io gathered likewise) and its masks spread over these ways.
	 */
	uint64_t spread;
	unsigned int excl_room;		/* ways exclusive units may have together */
	bool apart;
	int spare;			/* the group spare ways go to; -1: the default group */
	unsigned int mode;		/* replays: 0, RDTALLOC_TRACE_CUT or _LOOP */
	struct unit *u;			/* [n] */
	size_t nu;
};

static int check_curves(rdtalloc_t *r, size_t n, const double *const *curves, unsigned int ways)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < n; i++) {
		if (!curves[i])
			return rdt_fail(r, -EINVAL, "curve %zu is NULL", i);
		for (k = 0; k < ways; k++)
			if (!isfinite(curves[i][k]) || curves[i][k] < 0 || curves[i][k] > 1)
				return rdt_fail(r, -EINVAL, "curve %zu: miss ratio %g at %u ways is "
						"not in 0..1", i, curves[i][k], k + 1);
	}
	return 0;
}

/*
 * The members of a pool of k ways (each may fill all of them), predicted
 * by the shared-pool model, into pred[] in member order; a group alone by
 * its curve.
 */
static void predict(const struct planner *p, uint64_t members, unsigned int k, double *pred)
{
	struct rdt_share_member m[RDTALLOC_REPLAY_MAX];
	size_t i, n = 0;

	for (i = 0; i < p->n; i++) {
		if (!(members >> i & 1))
			continue;
		m[n].mr = p->curves[i];
		m[n].accesses = p->acc[i];
		m[n].cap = k;
		n++;
	}
	if (n == 1)
		pred[0] = m[0].mr[k - 1];
	else
		rdt_share_predict(m, n, p->ways, p->sets, k, pred);
}

static void unit_init(const struct planner *p, struct unit *u, uint64_t members)
{
	double pred[RDTALLOC_REPLAY_MAX];
	unsigned int k;

	memset(u, 0, sizeof(*u));
	u->members = members;
	u->exclusive = (members & p->excl) != 0;
	for (k = p->least; k <= p->ways; k++) {
		size_t i, j = 0;

		predict(p, members, k, pred);
		u->miss[k] = 0;
		for (i = 0; i < p->n; i++)
			if (members >> i & 1)
				u->miss[k] += pred[j++] * (double)p->acc[i];
	}
}

/*
 * Ways the units need at the least: the least each, a fixed one its ways;
 * and when every unit is exclusive, the default group's least beside them
 * (otherwise it shares the ways of the units that are not).
 */
static unsigned int need(const struct planner *p, const struct unit *u, size_t nu)
{
	unsigned int sum = 0;
	bool all_excl = true;
	size_t i;

	for (i = 0; i < nu; i++) {
		sum += u[i].fixed ? u[i].ways : p->least;
		all_excl &= u[i].exclusive;
	}
	return sum + (all_excl ? p->least : 0);
}

/*
 * UCP with lookahead over the units that are not fixed: each starts with
 * the least, then while ways are left the best step per way takes them.
 * Ways nobody gains from go to the first unit that is not fixed. Returns
 * the misses in total; units that do not fit in the ways: INFINITY.
 */
static unsigned int excl_ways(const struct planner *p, const struct unit *u, size_t nu,
			      bool least)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < nu; i++)
		if (u[i].exclusive)
			sum += u[i].fixed || !least ? u[i].ways : p->least;
	return sum;
}

static double allocate(const struct planner *p, struct unit *u, size_t nu)
{
	unsigned int left, excl;
	double total = 0;
	size_t i;

	if (need(p, u, nu) > p->avail || excl_ways(p, u, nu, true) > p->excl_room)
		return INFINITY;
	left = p->avail - need(p, u, nu);
	for (i = 0; i < nu; i++)
		if (!u[i].fixed)
			u[i].ways = p->least;
	excl = excl_ways(p, u, nu, false);
	while (left) {
		double best = 0;	/* a step must save misses: ways nobody gains from stay spare */
		unsigned int step = 0, k;
		size_t who = nu;

		for (i = 0; i < nu; i++) {
			for (k = 1; !u[i].fixed && k <= left &&
				    (!u[i].exclusive || excl + k <= p->excl_room); k++) {
				double mu = (u[i].miss[u[i].ways] - u[i].miss[u[i].ways + k]) / k;

				if (mu > best) {
					best = mu;
					step = k;
					who = i;
				}
			}
		}
		if (who == nu)
			break;	/* no unit gains from more: the rest is spare */
		u[who].ways += step;
		excl += u[who].exclusive ? step : 0;
		left -= step;
	}
	/* spare ways: to the group named, else with the default group alone */
	for (i = 0; left && p->spare >= 0 && i < nu; i++) {
		if (!(u[i].members >> p->spare & 1) || u[i].fixed ||
		    (u[i].exclusive && excl + left > p->excl_room))
			continue;
		u[i].ways += left;
		left = 0;
	}
	for (i = 0; i < nu; i++)
		total += u[i].miss[u[i].ways];
	return total;
}

static bool poolable(const struct unit *u)
{
	return !u->fixed && !u->exclusive;
}

static bool fits(const struct planner *p, const struct unit *u, size_t nu, unsigned int nclos)
{
	return need(p, u, nu) <= p->avail && excl_ways(p, u, nu, true) <= p->excl_room &&
	       nu + 1 <= nclos;
}

/*
 * A trial: units a and b pooled, the trial's units into t[]. Better than
 * another when it fits and the other does not, or by fewer misses; a
 * trial that does not fit counts its units' misses at their least.
 */
struct trial {
	bool fit;
	double v;
};

static struct trial try_pool(const struct planner *p, struct unit *t, size_t a, size_t b,
			     unsigned int nclos)
{
	struct trial x;
	size_t i, k = 0;

	for (i = 0; i < p->nu; i++)
		if (i != a && i != b)
			t[k++] = p->u[i];
	unit_init(p, &t[k++], p->u[a].members | p->u[b].members);
	x.fit = fits(p, t, k, nclos);
	if (x.fit)
		return (struct trial){ true, allocate(p, t, k) };
	x.v = 0;
	for (i = 0; i < k; i++)
		x.v += t[i].miss[t[i].fixed ? t[i].ways : p->least];
	return x;
}

static bool better(struct trial x, struct trial y)
{
	return (x.fit && !y.fit) || (x.fit == y.fit && x.v < y.v);
}

static int cmp_first(const void *x, const void *y)
{
	uint64_t a = ((const struct unit *)x)->members, b = ((const struct unit *)y)->members;

	return __builtin_ctzll(a) - __builtin_ctzll(b);
}

/*
 * The plans to weigh, into cand[] (n units each; *ncand of them, nus[c]
 * units in plan c): every group apart first, then each pooling of two
 * units the model rates best (a plan that fits before one that does not),
 * down to one pool of every poolable group. Past PAIRS_ALL units a step
 * tries neighbours in the order given only.
 */
static int candidates(rdtalloc_t *r, struct planner *p, unsigned int nclos, struct unit *cand,
		      size_t *nus, size_t *ncand)
{
	struct unit *t = malloc(p->n * sizeof(*t));
	size_t nu = p->n, c = 0;

	if (!t)
		return rdt_fail(r, -ENOMEM, "out of memory");
	memcpy(cand, p->u, nu * sizeof(*t));
	nus[c++] = nu;
	while (nu > 1 && !p->apart) {
		struct unit *cur = cand + (c - 1) * p->n, *next = cand + c * p->n;
		struct trial top = { false, INFINITY };
		bool any = false;
		size_t a, b;

		p->u = cur;
		p->nu = nu;
		for (a = 0; a < nu; a++) {
			for (b = a + 1; b < nu; b++) {
				struct trial x;

				if (!poolable(&cur[a]) || !poolable(&cur[b]) ||
				    (nu > PAIRS_ALL && b != a + 1))
					continue;
				x = try_pool(p, t, a, b, nclos);
				if (!any || better(x, top)) {
					top = x;
					any = true;
					memcpy(next, t, (nu - 1) * sizeof(*t));
				}
			}
		}
		if (!any)
			break;
		nus[c++] = --nu;
	}
	*ncand = c;
	free(t);
	return 0;
}

static uint64_t block(unsigned int ways, unsigned int lsb)
{
	return (ways >= 64 ? UINT64_MAX : (UINT64_C(1) << ways) - 1) << lsb;
}

/* The exclusive units' block: the low end, else the high end, off the shareable ways. */
static int excl_base(rdtalloc_t *r, const struct planner *p, uint64_t shareable,
		     unsigned int *base)
{
	unsigned int e = 0;
	size_t i;

	for (i = 0; i < p->nu; i++)
		e += p->u[i].exclusive ? p->u[i].ways : 0;
	*base = 0;
	if (!e)
		return 0;
	if (e + p->least > p->avail)
		return rdt_fail(r, -ENOSPC, "exclusive groups of %u ways leave the default group "
				"fewer than %u", e, p->least);
	/* allocate() kept e within excl_room: one end is free of shareable ways */
	if (!(block(e, p->base) & shareable))
		return 0;
	*base = p->avail - e;
	if (!(block(e, p->base + *base) & shareable))
		return 0;
	return rdt_fail(r, -ENOSPC, "exclusive groups of %u ways fit at neither end of the L3 "
			"apart from its shareable ways 0x%llx", e, (unsigned long long)shareable);
}

/* out[i], entries out[0].sz apart (as the caller built them) */
static struct rdtalloc_plan_group *entry(struct rdtalloc_plan_group *out, size_t i)
{
	return (struct rdtalloc_plan_group *)((char *)out + i * out[0].sz);
}

static void put(struct rdtalloc_plan_group *out, size_t i, const struct rdtalloc_plan_group *v)
{
	struct rdtalloc_plan_group *o = entry(out, i);
	size_t sz = out[0].sz < sizeof(*v) ? out[0].sz : sizeof(*v);

	memcpy(o, v, sz);
	o->sz = sz;
}

/* Masks laid out, predictions, into out. */
static int lay_out(rdtalloc_t *r, const struct planner *p, uint64_t shareable,
		   struct rdtalloc_plan_group *out)
{
	unsigned int ebase, lsb, elsb;
	double pred[RDTALLOC_REPLAY_MAX];
	size_t i, j;
	int ret;

	ret = excl_base(r, p, shareable, &ebase);
	if (ret)
		return ret;
	elsb = ebase;
	lsb = 0;
	for (i = 0; !ebase && i < p->nu; i++)
		lsb += p->u[i].exclusive ? p->u[i].ways : 0;
	for (i = 0; i < p->nu; i++) {
		const struct unit *u = &p->u[i];
		uint64_t mask = block(u->ways, p->base + (u->exclusive ? elsb : lsb));

		if (p->spread)
			mask = rdt_ways_spread(mask, p->spread);
		unsigned int first = (unsigned int)__builtin_ctzll(u->members), k = 0;

		if (u->exclusive)
			elsb += u->ways;
		else
			lsb += u->ways;
		predict(p, u->members, u->ways, pred);
		for (j = 0; j < p->n; j++) {
			struct rdtalloc_plan_group v = { .sz = sizeof(v) };

			if (!(u->members >> j & 1))
				continue;
			v.ways = u->ways;
			v.mask = mask;
			v.predicted_miss_ratio = pred[k++];
			v.shared = __builtin_popcountll(u->members) > 1;
			v.exclusive = u->exclusive;
			v.pool = first;
			put(out, j, &v);
		}
	}
	return 0;
}

static int check_goal(rdtalloc_t *r, const struct rdtalloc_plan_goal *goal, size_t n,
		      struct rdtalloc_plan_goal *gl)
{
	size_t head = offsetof(struct rdtalloc_plan_goal, bound) + sizeof(double);

	if (goal) {
		if (goal->sz < head || goal->sz > (1u << 16))
			return rdt_fail(r, -EINVAL, "rdtalloc_plan_goal.sz is %zu: set it to "
					"sizeof(struct rdtalloc_plan_goal)", goal->sz);
		memcpy(gl, goal, goal->sz < sizeof(*gl) ? goal->sz : sizeof(*gl));
	}
	if (gl->kind != RDTALLOC_PLAN_MISSES && gl->kind != RDTALLOC_PLAN_BOUND)
		return rdt_fail(r, -EINVAL, "plan goal %u: not RDTALLOC_PLAN_MISSES or _BOUND",
				gl->kind);
	if (gl->kind == RDTALLOC_PLAN_BOUND &&
	    (gl->group >= n || !isfinite(gl->bound) || gl->bound < 0 || gl->bound > 1))
		return rdt_fail(r, -EINVAL, "plan goal: group %u of %zu, bound %g: a group given "
				"and a miss ratio 0..1", gl->group, n, gl->bound);
	if (gl->flags & ~(RDTALLOC_PLAN_APART | RDTALLOC_PLAN_SPARE))
		return rdt_fail(r, -EINVAL, "plan goal: unknown flags %#x", gl->flags);
	if ((gl->flags & RDTALLOC_PLAN_SPARE) && gl->spare >= n)
		return rdt_fail(r, -EINVAL, "plan goal: spare ways to group %u: there are %zu groups",
				gl->spare, n);
	if (n < 64 && (gl->exclusive >> n))
		return rdt_fail(r, -EINVAL, "plan goal: exclusive groups %#llx: there are %zu "
				"groups", (unsigned long long)gl->exclusive, n);
	return 0;
}

/* The bound's group: the fewest ways that keep it at its bound, alone. */
static int fix_bound(rdtalloc_t *r, struct planner *p, const struct rdtalloc_plan_goal *gl)
{
	unsigned int b = gl->group, others = 0, most, k;
	bool pooled = false;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (i == b)
			continue;
		if ((p->excl >> i & 1) || p->apart)
			others += p->least;
		else
			pooled = true;
	}
	others += pooled ? p->least : 0;
	if (p->excl == (p->n >= 64 ? UINT64_MAX : (UINT64_C(1) << p->n) - 1))
		others += p->least;	/* the default group's, beside exclusive ones alone */
	most = p->avail > others ? p->avail - others : 0;
	for (k = p->least; k <= most && p->curves[b][k - 1] > gl->bound; k++)
		;
	if (k > most)
		return rdt_fail(r, -ERANGE, "the group of curve %u cannot keep its miss ratio at %g: "
				"with the %u ways it could have it misses %g", b, gl->bound, most,
				most ? p->curves[b][most - 1] : 1.0);
	for (i = 0; i < p->nu; i++) {
		if (p->u[i].members == UINT64_C(1) << b) {
			p->u[i].ways = k;
			p->u[i].fixed = true;
		}
	}
	return 0;
}

/* Masks of plan c laid out (tmp: n entries) and replayed: its misses in total. */
static int replay_plan(rdtalloc_t *r, struct planner *p, const struct rdtalloc_plan_group *tmp,
		       const char *const *traces, bool instr, uint64_t *misses, uint64_t *total)
{
	uint64_t masks[RDTALLOC_REPLAY_MAX], acc[RDTALLOC_REPLAY_MAX];
	size_t i;
	int ret;

	for (i = 0; i < p->n; i++)
		masks[i] = tmp[i].mask;
	ret = rdt_cache_replay_masks(r, p->n, traces, masks, instr, p->mode, p->sets, p->ways,
				     misses, acc);
	*total = 0;
	for (i = 0; !ret && i < p->n; i++)
		*total += misses[i];
	return ret;
}

/*
 * The plan: the candidates, and of them the first that fits (curves alone:
 * groups apart unless they do not go round), or with traces the one with
 * the fewest misses by replay, whose miss ratios are then the replay's.
 */
static int plan_core(rdtalloc_t *r, struct planner *p, const struct rdtalloc_plan_goal *gl,
		     unsigned int nclos, uint64_t shareable, const char *const *traces, bool instr,
		     struct rdtalloc_plan_group *out, struct rdtalloc_plan_report *rep)
{
	struct rdtalloc_plan_group tmp[RDTALLOC_REPLAY_MAX];
	uint64_t mis[RDTALLOC_REPLAY_MAX], best_mis[RDTALLOC_REPLAY_MAX], total, best = UINT64_MAX;
	struct unit *single = p->u, *cand = NULL;
	size_t nus[RDTALLOC_REPLAY_MAX], ncand = 0, c, i, pick = SIZE_MAX;
	int ret = 0;

	for (i = 0; i < p->n; i++)
		unit_init(p, &single[i], UINT64_C(1) << i);
	p->nu = p->n;
	if (gl->kind == RDTALLOC_PLAN_BOUND)
		ret = fix_bound(r, p, gl);
	if (!ret && !(cand = calloc(p->n * p->n, sizeof(*cand))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (!ret)
		ret = candidates(r, p, nclos, cand, nus, &ncand);
	for (c = 0; !ret && c < ncand; c++) {
		p->u = cand + c * p->n;
		p->nu = nus[c];
		if (!fits(p, p->u, p->nu, nclos))
			continue;
		allocate(p, p->u, p->nu);
		if (!traces) {
			pick = c;
			break;
		}
		qsort(p->u, p->nu, sizeof(*p->u), cmp_first);
		for (i = 0; i < p->n; i++)
			tmp[i].sz = sizeof(tmp[i]);
		ret = lay_out(r, p, shareable, tmp);
		if (!ret)
			ret = replay_plan(r, p, tmp, traces, instr, mis, &total);
		if (ret)
			break;
		if (rep && c == 0)
			rep->misses_apart = total;
		if (rep && c == ncand - 1 && c)
			rep->misses_shared = total;
		if (total < best) {
			best = total;
			pick = c;
			memcpy(best_mis, mis, sizeof(mis));
		}
	}
	if (!ret && pick == SIZE_MAX) {
		p->u = cand + (ncand - 1) * p->n;
		p->nu = nus[ncand - 1];
		ret = rdt_fail(r, -ENOSPC, "%zu groups do not go round: %zu of them %s need %zu "
			       "CLOSIDs beside the default group's and %u ways; L3 has %u and %u",
			       p->n, p->nu, p->apart ? "apart" : "(exclusive or bound ones alone)",
			       p->nu, need(p, p->u, p->nu), nclos - 1, p->avail);
	}
	if (!ret) {
		p->u = cand + pick * p->n;
		p->nu = nus[pick];
		qsort(p->u, p->nu, sizeof(*p->u), cmp_first);
		ret = lay_out(r, p, shareable, out);
	}
	for (i = 0; !ret && traces && i < p->n; i++)
		entry(out, i)->predicted_miss_ratio = p->acc[i] ?
			(double)best_mis[i] / (double)p->acc[i] : 0;
	if (!ret && rep) {
		rep->plans = (unsigned int)ncand;
		rep->misses = traces ? best : 0;
	}
	p->u = single;
	free(cand);
	return ret;
}

/*
 * Ways exclusive groups may have together: a block at either end of the
 * mask off the shareable ways, and the default group's least left over.
 */
static unsigned int excl_room(uint64_t shareable, unsigned int ways, unsigned int least)
{
	unsigned int low = 0, high = 0, room;

	while (low < ways && !(shareable >> low & 1))
		low++;
	while (high < ways && !(shareable >> (ways - 1 - high) & 1))
		high++;
	room = low > high ? low : high;
	return room < ways - least ? room : ways - least;
}

/*
 * The ways the plan may hand out: the longest run (the lowest of equal
 * ones) of ways not in avoid - other groups' exclusive ways, which no
 * group of the plan may fill; masks are contiguous on most parts.
 */
static int plan_ways(rdtalloc_t *r, struct planner *p, uint64_t avoid, bool sparse)
{
	uint64_t left = block(p->ways, 0) & ~avoid;
	unsigned int w, run = 0;

	p->avail = 0;
	p->base = 0;
	/* sparse masks: every way left, wherever it is */
	if (sparse && left && ((left + (left & -left)) & left)) {
		p->spread = left;
		p->avail = (unsigned int)__builtin_popcountll(left);
		return 0;
	}
	for (w = 0; w <= p->ways; w++) {
		if (w < p->ways && !(avoid >> w & 1)) {
			run++;
			continue;
		}
		if (run > p->avail) {
			p->avail = run;
			p->base = w - run;
		}
		run = 0;
	}
	if (p->avail < p->least)
		return rdt_fail(r, -ENOSPC, "no %u ways in a row are left to plan over: ways %#llx "
				"are held exclusive by groups outside the plan", p->least,
				(unsigned long long)avoid);
	return 0;
}

/* The domain, its ways, sets, least ways, CLOSIDs; the goal checked. */
static int plan_begin(rdtalloc_t *r, int cache_id, size_t n, const struct rdtalloc_plan_goal *goal,
		      struct rdtalloc_plan_group *out, struct planner *p,
		      struct rdtalloc_plan_goal *gl, unsigned int *nclos, int *dom)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	int ret = 0;

	if (n > RDTALLOC_REPLAY_MAX)
		ret = rdt_fail(r, -E2BIG, "%zu groups: at most %d", n, RDTALLOC_REPLAY_MAX);
	else if (out[0].sz < offsetof(struct rdtalloc_plan_group, shared) + sizeof(int) ||
		 out[0].sz > (1u << 16))
		ret = rdt_fail(r, -EINVAL, "rdtalloc_plan_group.sz is %zu: set it to "
			       "sizeof(struct rdtalloc_plan_group)", out[0].sz);
	if (!ret)
		ret = check_goal(r, goal, n, gl);
	if (!ret && (!m->caps[RDT_L3].present || !m->ndom[RDT_L3]))
		ret = rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation to plan");
	if (ret)
		return ret;
	*dom = cache_id < 0 ? 0 : rdt_machine_domain(m, RDT_L3, (unsigned int)cache_id);
	if (*dom < 0)
		return rdt_fail(r, -ENOENT, "no L3 cache id %d (rdtctl info)", cache_id);
	p->n = n;
	p->ways = m->caps[RDT_L3].cbm_len;
	p->least = m->caps[RDT_L3].min_cbm_bits ? m->caps[RDT_L3].min_cbm_bits : 1;
	p->excl = gl->exclusive;
	p->apart = gl->flags & RDTALLOC_PLAN_APART;
	p->spare = gl->flags & RDTALLOC_PLAN_SPARE ? (int)gl->spare : -1;
	/* other owners' exclusive ways are theirs; I/O fills the hardware's (lib/api/ways.c) */
	ret = plan_ways(r, p, gl->avoid | rdt_ways_left_alone(r, RDT_L3, (unsigned int)*dom, true),
			m->caps[RDT_L3].sparse);
	if (ret)
		return ret;
	p->io = rdt_ways_left_alone(r, RDT_L3, (unsigned int)*dom, false);
	if (p->spread)
		p->io = rdt_ways_gather(p->io, p->spread);
	p->excl_room = excl_room(p->io >> p->base, p->avail, p->least);
	if (m->dom[RDT_L3][*dom].cache_size)
		p->sets = (unsigned int)(m->dom[RDT_L3][*dom].cache_size / ((uint64_t)p->ways * 64));
	/* each unit its own CLOSID, beside the default group's */
	*nclos = m->caps[RDT_L3].closids / (rdt_core_state(r)->cdp[RDT_L3] ? 2 : 1);
	p->u = calloc(n, sizeof(*p->u));
	if (!p->u)
		return rdt_fail(r, -ENOMEM, "out of memory");
	return 0;
}

static void put_geometry(const rdtalloc_t *r, int dom, const struct planner *p,
			 struct rdtalloc_cache_geometry *geo)
{
	struct rdtalloc_cache_geometry g = { .sz = sizeof(g) };

	g.cache_id = rdt_core_machine(r)->dom[RDT_L3][dom].cache_id;
	g.ways = p->ways;
	g.sets = p->sets;
	g.sz = geo->sz < sizeof(g) ? geo->sz : sizeof(g);
	memcpy(geo, &g, g.sz);
}

RDTALLOC_API int rdtalloc_plan(rdtalloc_t *r, int cache_id, size_t n, const double *const *curves,
			       unsigned int curve_ways, const uint64_t *accesses,
			       const struct rdtalloc_plan_goal *goal,
			       struct rdtalloc_cache_geometry *geo, struct rdtalloc_plan_group *out)
{
	struct rdtalloc_plan_goal gl = { .sz = sizeof(gl), .kind = RDTALLOC_PLAN_MISSES };
	struct planner p = { .curves = curves, .acc = accesses };
	unsigned int nclos;
	int ret, dom;

	if (!r || !n || !curves || !accesses || !geo || !out)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = plan_begin(r, cache_id, n, goal, out, &p, &gl, &nclos, &dom);
	if (!ret && curve_ways != p.ways)
		ret = rdt_fail(r, -EINVAL, "the curves are for %u ways; L3 has %u: profile on this "
			       "machine", curve_ways, p.ways);
	if (!ret)
		ret = check_curves(r, n, curves, p.ways);
	if (!ret)
		ret = plan_core(r, &p, &gl, nclos, p.io, NULL, false,
				out, NULL);
	if (!ret)
		put_geometry(r, dom, &p, geo);
	free(p.u);
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_plan_traces(rdtalloc_t *r, int cache_id, size_t n,
				      const char *const *traces, unsigned int flags,
				      const struct rdtalloc_plan_goal *goal,
				      struct rdtalloc_cache_geometry *geo,
				      struct rdtalloc_plan_group *out,
				      struct rdtalloc_plan_report *report)
{
	struct rdtalloc_plan_goal gl = { .sz = sizeof(gl), .kind = RDTALLOC_PLAN_MISSES };
	struct rdtalloc_plan_report rep = { .sz = sizeof(rep), .misses_apart = UINT64_MAX,
					    .misses_shared = UINT64_MAX };
	struct rdtalloc_cache_geometry g = { .sz = sizeof(g) };
	double (*mr)[64] = NULL;
	const double *curves[RDTALLOC_REPLAY_MAX];
	uint64_t acc[RDTALLOC_REPLAY_MAX], miss[64];
	struct planner p = { .curves = curves, .acc = acc };
	char err[RDT_ERRMSG_MAX];
	unsigned int nclos, k;
	int ret, dom;
	size_t i;

	if (!r || !n || !traces || !geo || !out)
		return -EINVAL;
	if (flags & ~(RDTALLOC_TRACE_INSTR | RDTALLOC_TRACE_CUT | RDTALLOC_TRACE_LOOP))
		return rdt_fail(r, -EINVAL, "rdtalloc_plan_traces: unknown flags %#x", flags);
	if ((flags & RDTALLOC_TRACE_CUT) && (flags & RDTALLOC_TRACE_LOOP))
		return rdt_fail(r, -EINVAL, "rdtalloc_plan_traces: RDTALLOC_TRACE_CUT or "
				"RDTALLOC_TRACE_LOOP, not both");
	p.mode = flags & (RDTALLOC_TRACE_CUT | RDTALLOC_TRACE_LOOP);
	if (report && (report->sz < sizeof(size_t) || report->sz > (1u << 16)))
		return rdt_fail(r, -EINVAL, "rdtalloc_plan_report.sz is %zu: set it to "
				"sizeof(struct rdtalloc_plan_report)", report->sz);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = plan_begin(r, cache_id, n, goal, out, &p, &gl, &nclos, &dom);
	if (!ret)
		ret = rdt_cache_geometry(r, cache_id, &g, &dom);
	/* curves and replays work on the state as read: writers need not wait */
	rdt_core_drop_lock(r);
	if (!ret && !(mr = calloc(n, sizeof(*mr))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	p.sets = g.sets;
	for (i = 0; !ret && i < n; i++) {
		if (!traces[i]) {
			ret = rdt_fail(r, -EINVAL, "trace %zu is NULL", i);
			break;
		}
		ret = rdt_cache_curve(traces[i], flags & RDTALLOC_TRACE_INSTR, g.sets, g.ways, miss,
				      &acc[i], err, sizeof(err));
		if (ret)
			ret = rdt_fail(r, ret, "%s", err);
		for (k = 0; !ret && k < g.ways; k++)
			mr[i][k] = acc[i] ? (double)miss[k] / (double)acc[i] : 0;
		curves[i] = mr[i];
		if (!ret && (!i || acc[i] < rep.shortest))
			rep.shortest = acc[i];
		if (!ret && acc[i] > rep.longest)
			rep.longest = acc[i];
	}
	if (!ret)
		ret = plan_core(r, &p, &gl, nclos, p.io, traces,
				flags & RDTALLOC_TRACE_INSTR, out, &rep);
	if (!ret)
		put_geometry(r, dom, &p, geo);
	if (!ret && report) {
		rep.sz = report->sz < sizeof(rep) ? report->sz : sizeof(rep);
		memcpy(report, &rep, rep.sz);
	}
	free(mr);
	free(p.u);
	return rdt_core_end(r, false, ret);
}

/* The masks of config applied to a copy of the state: group g of cp. */
static int apply_copy(rdtalloc_t *r, const char *config, struct rdt_state **out)
{
	char err[RDT_ERRMSG_MAX];
	struct rdt_config *cf = NULL;
	struct rdt_state *cp = NULL;
	unsigned int i;
	bool changed;
	int ret;

	ret = rdt_config_parse(config, &cf, err, sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "configuration: %s", err);
	if (rdt_state_clone(rdt_core_state(r), &cp))	/* a copy: it writes no register */
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < cf->ngroups; i++) {
		const struct rdt_config_group *cg = &cf->groups[i];
		int g = rdt_group_find(cp, cg->name);

		if (g < 0 && rdt_group_add(cp, cg->name, &g))
			ret = rdt_fail(r, -ENOSPC, "configuration line %u: group %s: %s", cg->line,
				       cg->name, cp->err);
		if (!ret && cg->schema && rdt_core_apply_schema(r, cp, g, cg->schema, &changed))
			ret = rdt_fail(r, -EINVAL, "configuration line %u: %s", cg->schema_line,
				       rdtalloc_errmsg(r));
	}
	rdt_config_free(cf);
	if (ret) {
		rdt_state_free(cp);
		return ret;
	}
	*out = cp;
	return 0;
}

/*
 * Each group's prediction under masks: alone in its ways by its curve;
 * groups whose masks overlap (through one another) as one pool of their
 * ways together, each filling its own mask at most.
 */
static void predict_masks(size_t n, const double *const *curves, unsigned int ways,
			  const uint64_t *acc, unsigned int sets, const uint64_t *masks,
			  struct rdtalloc_plan_group *out)
{
	size_t comp[RDTALLOC_REPLAY_MAX], i, j;
	bool grew = true;

	for (i = 0; i < n; i++)
		comp[i] = i;
	while (grew) {		/* the lowest index of each overlapping chain */
		grew = false;
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if ((masks[i] & masks[j]) && comp[j] < comp[i]) {
					comp[i] = comp[j];
					grew = true;
				}
	}
	for (i = 0; i < n; i++) {
		struct rdt_share_member m[RDTALLOC_REPLAY_MAX];
		double pred[RDTALLOC_REPLAY_MAX];
		struct rdtalloc_plan_group v = { .sz = sizeof(v) };
		uint64_t all = 0;
		size_t k = 0, me = 0;

		v.mask = masks[i];
		v.ways = (unsigned int)__builtin_popcountll(masks[i]);
		v.pool = (unsigned int)comp[i];
		for (j = 0; j < n; j++) {
			if (comp[j] != comp[i] || !masks[j])
				continue;
			v.shared |= j != i;
			if (j == i)
				me = k;
			all |= masks[j];
			m[k].mr = curves[j];
			m[k].accesses = acc[j];
			m[k].cap = (unsigned int)__builtin_popcountll(masks[j]);
			k++;
		}
		if (!v.ways)
			v.predicted_miss_ratio = 1;
		else if (!v.shared)
			v.predicted_miss_ratio = curves[i][v.ways - 1];
		else {
			rdt_share_predict(m, k, ways, sets, (unsigned int)__builtin_popcountll(all),
					  pred);
			v.predicted_miss_ratio = pred[me];
		}
		put(out, i, &v);
	}
}

RDTALLOC_API int rdtalloc_plan_check(rdtalloc_t *r, int cache_id, const char *config, size_t n,
				     const char *const *groups, const double *const *curves,
				     unsigned int curve_ways, struct rdtalloc_plan_group *out)
{
	uint64_t masks[RDTALLOC_REPLAY_MAX], acc[RDTALLOC_REPLAY_MAX];
	struct rdt_state *cp = NULL;
	size_t i;
	int ret, dom;

	if (!r || !config || !n || !groups || !curves || !out)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (n > RDTALLOC_REPLAY_MAX)
		ret = rdt_fail(r, -E2BIG, "%zu groups: at most %d", n, RDTALLOC_REPLAY_MAX);
	else if (!rdt_core_machine(r)->caps[RDT_L3].present || !rdt_core_machine(r)->ndom[RDT_L3])
		ret = rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation to plan");
	else if (curve_ways != rdt_core_machine(r)->caps[RDT_L3].cbm_len)
		ret = rdt_fail(r, -EINVAL, "the curves are for %u ways; L3 has %u: profile on this "
			       "machine", curve_ways, rdt_core_machine(r)->caps[RDT_L3].cbm_len);
	if (!ret)
		ret = check_curves(r, n, curves, curve_ways);
	if (ret)
		return rdt_core_end(r, false, ret);
	dom = cache_id < 0 ? 0 :
	      rdt_machine_domain(rdt_core_machine(r), RDT_L3, (unsigned int)cache_id);
	if (dom < 0)
		return rdt_core_end(r, false, rdt_fail(r, -ENOENT, "no L3 cache id %d (rdtctl info)",
						       cache_id));
	ret = apply_copy(r, config, &cp);
	for (i = 0; !ret && i < n; i++) {
		int g = rdt_group_find(cp, groups[i]);

		if (g < 0)
			ret = rdt_fail(r, -ENOENT, "group %s is neither in the state nor in the "
				       "configuration", groups[i]);
		else
			masks[i] = cp->groups[g].mask[cp->slot_of[RDT_L3][dom] * 2];
	}
	/* the accesses are not known here: all run throughout, their lines untold */
	for (i = 0; !ret && i < n; i++)
		acc[i] = 1;
	if (!ret)
		predict_masks(n, curves, curve_ways, acc, 0, masks, out);
	rdt_state_free(cp);
	return rdt_core_end(r, false, ret);
}
