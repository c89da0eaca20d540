// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/counter_model: the simulator's cache and memory bus, in steady state. It
 * is deterministic and coarse on purpose: enough to show who is noisy and
 * what a partition changes, not a cache simulator (docs/monitoring.md).
 *
 * - Occupancy. Each way of the L3 (size / CBM length bytes) is shared by the
 *   groups with a workload whose mask holds it, in proportion to their
 *   access rates; a group never holds more than its footprint, and what it
 *   does not need goes back to the others on the same ways (water-filling).
 *   So occupancy is bounded by the ways a group may fill, and the whole by
 *   the cache's size.
 * - Misses. Accesses are spread evenly over the footprint: the hit ratio is
 *   occupancy / footprint, and each missed byte is a byte of memory traffic.
 * - Bandwidth. A group's traffic is capped by its MB value in the domain
 *   (a percentage of the bus, or 1/8 GB/s units on AMD); the domain's sum by
 *   the bus itself (mon.bw), every group scaled down alike.
 * Groups without an RMID of their own count with RMID 0, as their tasks do.
 */
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "hw/engine.h"
#include "monitor.h"

/* When the description gives the L3 no size: 1 MiB per way. */
#define WAY_DEFAULT (1u << 20)

uint64_t rdt_mon_cache_size(const struct rdt_state *st, unsigned int d)
{
	uint64_t size = st->m->dom[RDT_L3][d].cache_size;

	return size ? size : (uint64_t)st->m->caps[RDT_L3].cbm_len * WAY_DEFAULT;
}

struct active {
	int g;
	const struct rdt_load *ld;
	uint64_t mask;
	double occ;
	double traffic;
	bool full;
};

/* Water-filling of the ways among the active groups (see the top). */
static void share_ways(struct active *a, unsigned int n, unsigned int ways, double way_bytes)
{
	double *room = malloc(ways * sizeof(double));
	double *got = calloc((size_t)ways * (n ? n : 1), sizeof(double));
	unsigned int w, i, round;

	if (!room || !got)
		goto out;
	for (w = 0; w < ways; w++)
		room[w] = way_bytes;
	for (round = 0; round <= n; round++) {
		bool settled = false;

		for (w = 0; w < ways; w++) {
			double weight = 0;

			for (i = 0; i < n; i++)
				if (!a[i].full && (a[i].mask >> w & 1))
					weight += (double)a[i].ld->rate;
			if (weight <= 0 || room[w] <= 0)
				continue;
			for (i = 0; i < n; i++)
				if (!a[i].full && (a[i].mask >> w & 1))
					got[(size_t)w * n + i] += room[w] * (double)a[i].ld->rate /
								  weight;
			room[w] = 0;
		}
		for (i = 0; i < n; i++) {
			double sum = 0, f = (double)a[i].ld->footprint;

			if (a[i].full)
				continue;
			for (w = 0; w < ways; w++)
				sum += got[(size_t)w * n + i];
			a[i].occ = sum;
			if (sum < f)
				continue;
			/* more than it needs: give the rest back, way by way */
			for (w = 0; w < ways; w++) {
				double keep = got[(size_t)w * n + i] * f / sum;

				room[w] += got[(size_t)w * n + i] - keep;
				got[(size_t)w * n + i] = keep;
			}
			a[i].occ = f;
			a[i].full = true;
			settled = true;
		}
		if (!settled)
			break;
	}
out:
	free(room);
	free(got);
}

/* The most traffic group g may make in domain d under its MB value (bytes/s). */
static double mb_cap(const struct rdt_state *st, int g, unsigned int d)
{
	const struct rdt_caps *c = &st->m->caps[RDT_MB];
	double bus = (double)st->m->mon.bw;
	uint64_t v;

	if (!c->present)
		return bus;
	v = st->groups[g].mask[(size_t)st->slot_of[RDT_MB][d] * 2];
	if (v >= c->mb_max)
		return bus;
	if (c->mb_mbps)
		return (double)v * 1e6;	/* mba_MBps: the controller's aim, in MB/s */
	return c->mb_amd ? (double)v * 125e6 : bus * (double)v / 100.0;
}

double rdt_mon_model(const struct rdt_state *st, unsigned int d, struct rdt_mon_rates *out)
{
	const struct rdt_mon_state *ms = rdt_mon(st);
	unsigned int ways = st->m->caps[RDT_L3].cbm_len, s = st->slot_of[RDT_L3][d];
	double size = (double)rdt_mon_cache_size(st, d), sum = 0, scale = 1;
	struct active *a = calloc(ms->nload ? ms->nload : 1, sizeof(*a));
	unsigned int i, n = 0;

	memset(out, 0, ms->nrmids * sizeof(*out));
	if (!a)
		return -1;
	for (i = 0; i < ms->nload; i++) {
		const struct rdt_load *ld = &ms->load[i];
		int g;

		if (ld->dom != d)
			continue;
		for (g = 0; g < (int)st->ngroups; g++)
			if (st->groups[g].live && st->groups[g].seq == ld->seq)
				break;
		if (g == (int)st->ngroups)
			continue;
		if (ld->fault) {
			int rm = rdt_mon_group_rmid(st, g);

			out[rm < 0 ? 0 : rm].fault = ld->fault;
		}
		if (!ld->footprint || !ld->rate)
			continue;
		a[n].g = g;
		a[n].ld = ld;
		a[n].mask = st->groups[g].mask[(size_t)s * 2];
		n++;
	}
	if (!n) {
		/* no workload runs here: the cache holds what a replay left */
		for (i = 0; i < ms->nrmids; i++)
			out[i].occ = (double)ms->kept[(size_t)i * ms->ndom + d];
		free(a);
		return 0;
	}
	share_ways(a, n, ways, size / ways);
	for (i = 0; i < n; i++) {
		double hit = a[i].occ / (double)a[i].ld->footprint;
		double miss = (double)a[i].ld->rate * (1 - (hit > 1 ? 1 : hit));
		double cap = mb_cap(st, a[i].g, d);

		a[i].traffic = miss < cap ? miss : cap;
		sum += a[i].traffic;
	}
	if (sum > (double)st->m->mon.bw)
		scale = (double)st->m->mon.bw / sum;
	for (i = 0; i < n; i++) {
		int rm = rdt_mon_group_rmid(st, a[i].g);
		struct rdt_mon_rates *o = &out[rm < 0 ? 0 : rm];
		double traffic = a[i].traffic * scale;

		o->occ += a[i].occ;
		o->total += traffic;
		o->local += traffic * a[i].ld->local_pct / 100.0;
	}
	free(a);
	return sum * scale;
}
