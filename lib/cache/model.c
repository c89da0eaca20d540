// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * model: the set-associative cache and the miss curves - see cache.h.
 * A set is a row of ways: a lookup compares every way's tag (a hit may be
 * in any way, as CAT limits allocation, not lookup), a fill takes an empty
 * way of the filler's mask, else the least recently used one of its mask.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"

int rdt_cache_init(struct rdt_cache *c, unsigned int sets, unsigned int ways)
{
	size_t n = (size_t)sets * ways;

	memset(c, 0, sizeof(*c));
	if (!sets || !ways || ways > 64)
		return -EINVAL;
	c->sets = sets;
	c->ways = ways;
	c->inv = 1.0 / sets;
	c->way = calloc(n, sizeof(*c->way));
	c->owner = calloc(n, sizeof(*c->owner));
	if (!c->way || !c->owner) {
		rdt_cache_free(c);
		return -ENOMEM;
	}
	return 0;
}

void rdt_cache_free(struct rdt_cache *c)
{
	free(c->way);
	free(c->owner);
	memset(c, 0, sizeof(*c));
}

/*
 * One pass over the set: a hit ends it; meanwhile the victim is chosen
 * among the mask's ways - the first empty one, else the least recently
 * used (an empty way has stamp 0, below every used one, and the lowest
 * empty way wins the tie as the stamps compare strictly).
 */
bool rdt_cache_access(struct rdt_cache *c, uint64_t line, uint64_t mask, uint16_t owner)
{
	size_t base = (size_t)rdt_cache_set(c, line) * c->ways;
	struct rdt_way *set = c->way + base;
	uint64_t tag = line + 1, best = UINT64_MAX;
	unsigned int w, victim = c->ways;

	c->now++;
	for (w = 0; w < c->ways; w++) {
		if (set[w].tag == tag) {
			set[w].stamp = c->now;
			return true;
		}
		if ((mask >> w & 1) && set[w].stamp < best) {
			best = set[w].stamp;
			victim = w;
		}
	}
	if (victim == c->ways)
		return false;	/* an empty mask fills nothing */
	set[victim].tag = tag;
	set[victim].stamp = c->now;
	c->owner[base + victim] = owner;
	return false;
}

void rdt_cache_occupancy(const struct rdt_cache *c, uint64_t *occ, unsigned int n)
{
	size_t i, total = (size_t)c->sets * c->ways;

	for (i = 0; i < total; i++)
		if (c->way[i].tag && c->owner[i] < n)
			occ[c->owner[i]]++;
}

/*
 * Mattson: per set, the lines in LRU order (most recent first), at most
 * ways deep. An access at stack depth d hits in every cache of more than d
 * ways per set; one deeper (or new) misses in all of them.
 */
int rdt_cache_curve(const char *path, bool instr, unsigned int sets, unsigned int ways,
		    uint64_t *misses, uint64_t *accesses, char *err, size_t len)
{
	uint64_t *stack = NULL, *hist = NULL, line, n = 0, cold = 0;
	unsigned int *depth = NULL, d, k;
	struct rdt_trace *t = NULL;
	enum rdt_acc_kind kind;
	int ret;

	if (!sets || !ways || ways > 64) {
		snprintf(err, len, "a cache of %u sets and %u ways cannot be modelled", sets, ways);
		return -EINVAL;
	}
	stack = calloc((size_t)sets * ways, sizeof(*stack));
	depth = calloc(sets, sizeof(*depth));
	hist = calloc(ways, sizeof(*hist));
	if (!stack || !depth || !hist) {
		ret = -ENOMEM;
		snprintf(err, len, "out of memory");
		goto out;
	}
	ret = rdt_trace_open(path, instr, &t, err, len);
	while (!ret && (ret = rdt_trace_next(t, &line, &kind, err, len)) == 1) {
		unsigned int set = (unsigned int)(line % sets);
		uint64_t *s = stack + (size_t)set * ways;

		n++;
		for (d = 0; d < depth[set] && s[d] != line; d++)
			;
		if (d < depth[set])
			hist[d]++;
		else
			cold++;
		if (d == depth[set] && depth[set] < ways)
			depth[set]++;
		if (d == depth[set])
			d--;	/* not found in a full stack: the last one drops out */
		memmove(s + 1, s, d * sizeof(*s));
		s[0] = line;
		ret = 0;
	}
	if (ret < 0)
		goto out;
	ret = 0;
	*accesses = n;
	for (k = 1; k <= ways; k++) {
		uint64_t hits = 0;

		for (d = 0; d < k; d++)
			hits += hist[d];
		misses[k - 1] = n - hits;
	}
out:
	rdt_trace_close(t);
	free(stack);
	free(depth);
	free(hist);
	return ret;
}
