/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * plan: choosing ways from miss curves (plan.c) and predicting what groups
 * that share ways do (share.c). Owns the model of a shared pool: groups
 * whose masks let them fill the same ways, known only by their curves
 * alone. docs/plan.md says what it assumes and how far it was from replays.
 */
#ifndef RDT_PLAN_H
#define RDT_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* A group of a pool: its curve (mr[k-1] alone with k ways, k = 1..ways). */
struct rdt_share_member {
	const double *mr;
	uint64_t accesses;
	unsigned int cap;	/* the most ways its mask lets it fill */
};

/*
 * The miss ratios of n groups that fill pool_ways ways of a cache of
 * curve_ways ways per set and sets sets (0: not known) together, one
 * access of each in turn (a group whose accesses end drops out) - the
 * natural partition of a shared LRU cache (docs/plan.md): each holds what
 * it touches in the time the pool takes to fill, and misses as its curve
 * says at that many ways. out[i] for member i.
 */
void rdt_share_predict(const struct rdt_share_member *m, size_t n, unsigned int curve_ways,
		       unsigned int sets, unsigned int pool_ways, double *out);

#endif
