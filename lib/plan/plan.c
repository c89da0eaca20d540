// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan: ways for groups from their miss curves (rdtalloc_plan). The goal
 * is the fewest misses in total: utility-based cache partitioning with
 * lookahead (Qureshi & Patt, MICRO'06) - every group starts with the
 * least it may have (min_cbm_bits, at least one way); then, while ways are
 * left, each group's best step is the number of more ways that saves the
 * most misses per way, and the group whose best step saves most per way
 * takes it. Masks are one block each, laid out from bit 0 in the order
 * given; the prediction is the curve at the ways granted, as a group alone
 * in its ways sees (apart from the others, as the masks are). The
 * assumptions are docs/plan.md's.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "core.h"
#include "errors.h"

static double misses(const double *curve, const uint64_t *acc, size_t i, unsigned int k)
{
	return curve[k - 1] * (double)acc[i];
}

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
 * UCP with lookahead over the groups not fixed: while ways are left, each
 * group's best step is the number of more ways that saves the most misses
 * per way, and the group whose best step saves most per way takes it.
 */
static void lookahead(size_t n, const double *const *curves, const uint64_t *accesses,
		      const bool *fixed, unsigned int *alloc, unsigned int left)
{
	size_t i;

	while (left) {
		double best = -1;
		unsigned int step = 0, k;
		size_t who = n;

		for (i = 0; i < n; i++) {
			for (k = 1; !fixed[i] && k <= left; k++) {
				double mu = (misses(curves[i], accesses, i, alloc[i]) -
					     misses(curves[i], accesses, i, alloc[i] + k)) / k;

				if (mu > best) {
					best = mu;
					step = k;
					who = i;
				}
			}
		}
		if (who == n)
			return;	/* every group fixed: the rest stays unused */
		alloc[who] += step;
		left -= step;
	}
}

RDTALLOC_API int rdtalloc_plan(rdtalloc_t *r, int cache_id, size_t n, const double *const *curves,
			       unsigned int curve_ways, const uint64_t *accesses,
			       const struct rdtalloc_plan_goal *goal,
			       struct rdtalloc_cache_geometry *geo, struct rdtalloc_plan_group *out)
{
	struct rdtalloc_plan_goal gl = { .kind = RDTALLOC_PLAN_MISSES };
	bool fixed[RDTALLOC_REPLAY_MAX] = { false };
	struct rdtalloc_cache_geometry g = { .sz = sizeof(g) };
	unsigned int ways, min, alloc[RDTALLOC_REPLAY_MAX], left, lsb = 0, nclos;
	const struct rdt_machine *m;
	size_t i;
	int ret, dom;

	if (!r || !n || !curves || !accesses || !geo || !out)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	m = r->m;
	if (goal) {
		if (goal->sz < offsetof(struct rdtalloc_plan_goal, bound) + sizeof(double))
			ret = rdt_fail(r, -EINVAL, "rdtalloc_plan_goal.sz is %zu: too small",
				       goal->sz);
		else
			gl = *goal;
	}
	if (ret)
		;
	else if (gl.kind != RDTALLOC_PLAN_MISSES && gl.kind != RDTALLOC_PLAN_BOUND)
		ret = rdt_fail(r, -EINVAL, "plan goal %u: not RDTALLOC_PLAN_MISSES or _BOUND",
			       gl.kind);
	else if (gl.kind == RDTALLOC_PLAN_BOUND &&
		 (gl.group >= n || !isfinite(gl.bound) || gl.bound < 0 || gl.bound > 1))
		ret = rdt_fail(r, -EINVAL, "plan goal: group %u of %zu, bound %g: a group given "
			       "and a miss ratio 0..1", gl.group, n, gl.bound);
	else if (n > RDTALLOC_REPLAY_MAX)
		ret = rdt_fail(r, -E2BIG, "%zu groups: at most %d", n, RDTALLOC_REPLAY_MAX);
	else if (!m->caps[RDT_L3].present || !m->ndom[RDT_L3])
		ret = rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation to plan");
	if (ret)
		return rdt_core_end(r, false, ret);
	dom = cache_id < 0 ? 0 : rdt_machine_domain(m, RDT_L3, (unsigned int)cache_id);
	if (dom < 0)
		return rdt_core_end(r, false, rdt_fail(r, -ENOENT, "no L3 cache id %d (rdtctl info)",
						       cache_id));
	ways = m->caps[RDT_L3].cbm_len;
	min = m->caps[RDT_L3].min_cbm_bits ? m->caps[RDT_L3].min_cbm_bits : 1;
	/* each planned group its own CLOSID, beside the default group's */
	nclos = m->caps[RDT_L3].closids / (r->st->cdp[RDT_L3] ? 2 : 1);
	if (curve_ways != ways)
		return rdt_core_end(r, false, rdt_fail(r, -EINVAL, "the curves are for %u ways; L3 "
						       "has %u: profile on this machine", curve_ways,
						       ways));
	ret = check_curves(r, n, curves, ways);
	if (!ret && n * min > ways)
		ret = rdt_fail(r, -ENOSPC, "%zu groups of at least %u ways each do not fit in %u ways",
			       n, min, ways);
	if (!ret && n + 1 > nclos)
		ret = rdt_fail(r, -ENOSPC, "%zu groups need %zu CLOSIDs beside the default group's; "
			       "L3 has %u", n, n, nclos);
	if (ret)
		return rdt_core_end(r, false, ret);
	left = ways;
	for (i = 0; i < n; i++) {
		alloc[i] = min;
		left -= min;
	}
	if (gl.kind == RDTALLOC_PLAN_BOUND) {
		unsigned int b = gl.group, most = min + left, k;

		for (k = min; k <= most && curves[b][k - 1] > gl.bound; k++)
			;
		if (k > most)
			return rdt_core_end(r, false, rdt_fail(r, -ERANGE, "the group of curve %u "
				"cannot keep its miss ratio at %g: with the %u ways it could have it "
				"misses %g", b, gl.bound, most, curves[b][most - 1]));
		left -= k - alloc[b];
		alloc[b] = k;
		fixed[b] = true;
	}
	/* ways nobody gains from go to the first group that is not fixed */
	lookahead(n, curves, accesses, fixed, alloc, left);
	for (i = 0; i < n; i++) {
		struct rdtalloc_plan_group v = { .sz = out[i].sz < sizeof(v) ? out[i].sz : sizeof(v) };

		v.ways = alloc[i];
		v.mask = (alloc[i] >= 64 ? UINT64_MAX : (UINT64_C(1) << alloc[i]) - 1) << lsb;
		v.predicted_miss_ratio = curves[i][alloc[i] - 1];
		lsb += alloc[i];
		memcpy(&out[i], &v, v.sz);
	}
	g.cache_id = m->dom[RDT_L3][dom].cache_id;
	g.ways = ways;
	g.sets = m->dom[RDT_L3][dom].cache_size ?
		 (unsigned int)(m->dom[RDT_L3][dom].cache_size / ((uint64_t)ways * 64)) : 0;
	g.sz = geo->sz < sizeof(g) ? geo->sz : sizeof(g);
	memcpy(geo, &g, g.sz);
	return rdt_core_end(r, false, 0);
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
	if (rdt_state_clone(r->st, &cp))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	else
		cp->sink = NULL;	/* a copy to look at: no register is ever written */
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

RDTALLOC_API int rdtalloc_plan_check(rdtalloc_t *r, int cache_id, const char *config, size_t n,
				     const char *const *groups, const double *const *curves,
				     unsigned int curve_ways, struct rdtalloc_plan_group *out)
{
	uint64_t masks[RDTALLOC_REPLAY_MAX];
	struct rdt_state *cp = NULL;
	size_t i, j;
	int ret, dom;

	if (!r || !config || !n || !groups || !curves || !out)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (n > RDTALLOC_REPLAY_MAX)
		ret = rdt_fail(r, -E2BIG, "%zu groups: at most %d", n, RDTALLOC_REPLAY_MAX);
	else if (!r->m->caps[RDT_L3].present || !r->m->ndom[RDT_L3])
		ret = rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation to plan");
	else if (curve_ways != r->m->caps[RDT_L3].cbm_len)
		ret = rdt_fail(r, -EINVAL, "the curves are for %u ways; L3 has %u: profile on this "
			       "machine", curve_ways, r->m->caps[RDT_L3].cbm_len);
	if (!ret)
		ret = check_curves(r, n, curves, curve_ways);
	if (ret)
		return rdt_core_end(r, false, ret);
	dom = cache_id < 0 ? 0 : rdt_machine_domain(r->m, RDT_L3, (unsigned int)cache_id);
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
	for (i = 0; !ret && i < n; i++) {
		struct rdtalloc_plan_group v = { .sz = out[i].sz < sizeof(v) ? out[i].sz : sizeof(v) };

		v.mask = masks[i];
		v.ways = (unsigned int)__builtin_popcountll(masks[i]);
		v.predicted_miss_ratio = v.ways ? curves[i][v.ways - 1] : 1;
		for (j = 0; j < n; j++)
			v.shared |= j != i && (masks[j] & masks[i]);
		memcpy(&out[i], &v, v.sz);
	}
	rdt_state_free(cp);
	return rdt_core_end(r, false, ret);
}
