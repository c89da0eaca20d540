/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ways: the ways of a cache domain the state may not give (the hardware's
 * I/O ways, other owners' exclusive ones) and io_alloc; lib/ways.c.
 */
#ifndef RDT_WAYS_H
#define RDT_WAYS_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"

struct rdtalloc;
struct rdtalloc_ways_info;

/*
 * Sparse masks over the ways left (a machine that takes them, io_alloc's
 * ways in the middle): m, laid out as if those ways were 0..n-1, spread
 * over the ways of to, lowest first; and back (the bits of m in ways, gathered).
 */
static inline uint64_t rdt_ways_spread(uint64_t m, uint64_t to)
{
	uint64_t out = 0;

	for (; m && to; m >>= 1, to &= to - 1)
		if (m & 1)
			out |= to & -to;
	return out;
}

static inline uint64_t rdt_ways_gather(uint64_t m, uint64_t ways)
{
	uint64_t out = 0;
	unsigned int k;

	for (k = 0; ways; ways &= ways - 1, k++)
		if (m & ways & -ways)
			out |= 1ull << k;
	return out;
}

/* Inside a call: w for domain index dom of res (cache); -errno with errmsg set. */
int rdt_ways_get(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
		 struct rdtalloc_ways_info *w);
/*
 * Inside a call: the ways of domain index dom a plan or the controller
 * leaves alone - the I/O ways unless shareable, and other owners'
 * exclusive ways always. When they cannot be read, shareable_bits.
 */
uint64_t rdt_ways_left_alone(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
			     bool shareable);

/*
 * lib/io_sim.c, the simulator's io_alloc kept in the state: its part of w
 * (domain index dom); on or off, masks (by domain index, have[d]: given)
 * inside a write call; -errno with errmsg set.
 */
void rdt_io_sim_ways(struct rdtalloc *r, unsigned int dom, struct rdtalloc_ways_info *w);
int rdt_io_sim_enable(struct rdtalloc *r, int on);
int rdt_io_sim_masks(struct rdtalloc *r, const uint64_t *mask, const bool *have);

#endif
