// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * share: what groups that fill the same ways do, from their curves alone.
 *
 * A group's curve says how fast it brings new lines into a set: holding c
 * of its lines there, the next access is one it does not hold with
 * probability mr(c) (mr(0) = 1), so it takes 1/mr(c) accesses to hold one
 * more - the footprint grows as fp'(t) = mr(fp(t)) (Xiang et al.'s
 * higher-order theory of locality, ASPLOS'13). Groups taking turns in a
 * shared LRU pool all run for the same time t; each holds fp_i(t) of a
 * set, and the pool is full when their footprints add up to its ways: the
 * t where sum fp_i(t) = ways is the natural partition, and each group then
 * misses as its curve says at fp_i(t) ways (linear between whole ways).
 *
 * A group never holds more than it has: its mask's ways, and the lines it
 * touches at all - per set the more of the trace's distinct lines (at
 * most its misses with every way, over the sets) and the fewest ways at
 * which its curve is flat (the fullest sets of a loop need that many).
 * Without the sets or the accesses, the latter alone (none for a curve
 * flat from one way: a stream holds whatever it is given).
 * Groups whose accesses end drop out; the others share what is left.
 * Assumed: accesses spread evenly over the sets, each group's rate one
 * access per turn. What it misses: sets fuller than the average (one group
 * of many lines in a set crowds the others there) - docs/plan.md has the
 * figures against replays.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

#define KNEE_EPS 1e-3		/* a curve within this of its last value is flat */
#define STEPS 100		/* bisection steps: well below a way's thousandth */

struct fill {
	double t[65];		/* t[j]: accesses (per set) to hold j lines of a set */
	double cap;		/* the most it holds */
	const double *mr;
	unsigned int ways;
};

/* The curve at c ways, c in 0..ways, mr(0) = 1, linear between. */
static double ratio_at(const struct fill *f, double c)
{
	unsigned int j = (unsigned int)c;
	double lo, hi;

	if (c <= 0)
		return 1;
	if (j >= f->ways)
		return f->mr[f->ways - 1];
	lo = j ? f->mr[j - 1] : 1;
	hi = f->mr[j];
	return lo + (hi - lo) * (c - j);
}

static void fill_init(struct fill *f, const struct rdt_share_member *m, unsigned int ways,
		      unsigned int sets, unsigned int pool)
{
	double data = INFINITY, cap;
	unsigned int j, knee;

	f->mr = m->mr;
	f->ways = ways;
	f->t[0] = 0;
	for (j = 0; j < ways; j++) {
		double r = j ? m->mr[j - 1] : 1;

		f->t[j + 1] = r > 0 ? f->t[j] + 1 / r : INFINITY;
	}
	for (knee = 1; knee < ways && m->mr[knee - 1] > m->mr[ways - 1] + KNEE_EPS; knee++)
		;
	if (sets)
		data = m->mr[ways - 1] * (double)m->accesses / sets;
	else if (knee > 1)
		data = knee;	/* its lines untold: as many as its fullest sets need */
	cap = data > knee ? data : knee;
	if (cap > m->cap)
		cap = m->cap;
	f->cap = cap < pool ? cap : pool;
}

/* Lines of a set it holds after time t: the inverse of t[], at most its cap. */
static double footprint(const struct fill *f, double t)
{
	unsigned int j;
	double c;

	for (j = 0; j < f->ways && f->t[j + 1] <= t; j++)
		;
	if (j == f->ways || isinf(f->t[j + 1]))
		c = j;
	else
		c = j + (t - f->t[j]) / (f->t[j + 1] - f->t[j]);
	return c < f->cap ? c : f->cap;
}

/* The natural partition of pool ways among the live members: their footprints into c[]. */
static void settle(const struct fill *f, const bool *live, size_t n, double pool, double *c)
{
	double lo = 0, hi = 0, sum = 0;
	unsigned int step;
	size_t i;

	for (i = 0; i < n; i++) {
		double t;
		unsigned int j = (unsigned int)ceil(f[i].cap);

		if (!live[i])
			continue;
		t = f[i].t[j <= f[i].ways ? j : f[i].ways];
		for (; isinf(t) && j > 0; j--)
			t = f[i].t[j - 1];
		if (t > hi)
			hi = t;
		sum += f[i].cap;
	}
	if (sum <= pool) {
		for (i = 0; i < n; i++)
			c[i] = live[i] ? f[i].cap : 0;
		return;
	}
	hi = hi * 2 + 1;
	for (step = 0; step < STEPS; step++) {
		double mid = (lo + hi) / 2;

		sum = 0;
		for (i = 0; i < n; i++)
			sum += live[i] ? footprint(&f[i], mid) : 0;
		if (sum < pool)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < n; i++)
		c[i] = live[i] ? footprint(&f[i], lo) : 0;
}

void rdt_share_predict(const struct rdt_share_member *m, size_t n, unsigned int curve_ways,
		       unsigned int sets, unsigned int pool_ways, double *out)
{
	struct fill *f = calloc(n ? n : 1, sizeof(*f));
	double *c = calloc(n ? n : 1, sizeof(*c)), *miss = calloc(n ? n : 1, sizeof(*miss));
	bool *live = calloc(n ? n : 1, sizeof(*live));
	uint64_t done = 0;
	size_t i;

	if (!f || !c || !miss || !live) {
		/* out of memory: each as if alone in the pool (no worse than before) */
		for (i = 0; i < n; i++)
			out[i] = m[i].mr[(pool_ways < m[i].cap ? pool_ways : m[i].cap) - 1];
		goto out;
	}
	for (i = 0; i < n; i++)
		fill_init(&f[i], &m[i], curve_ways, sets, pool_ways);
	/* phases: all run until the shortest ends, the rest until the next, ... */
	for (;;) {
		uint64_t next = UINT64_MAX;

		for (i = 0; i < n; i++) {
			live[i] = m[i].accesses > done;
			if (live[i] && m[i].accesses < next)
				next = m[i].accesses;
		}
		if (next == UINT64_MAX)
			break;
		settle(f, live, n, pool_ways, c);
		for (i = 0; i < n; i++)
			if (live[i])
				miss[i] += (double)(next - done) * ratio_at(&f[i], c[i]);
		done = next;
	}
	for (i = 0; i < n; i++)
		out[i] = m[i].accesses ? miss[i] / (double)m[i].accesses : ratio_at(&f[i], f[i].cap);
out:
	free(f);
	free(c);
	free(miss);
	free(live);
}
