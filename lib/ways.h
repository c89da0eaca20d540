/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ways: the ways of a cache domain the state may not give - the hardware's
 * (I/O, DDIO, io_alloc) and other owners' exclusive ones. The machine says
 * what it can (shareable_bits); a backend that knows more fills in the rest
 * through its ways callback (resctrl: bit_usage, io_alloc; the simulator:
 * its io_alloc). Inline, so that the plan and the controller reach it
 * linking only lib/context.c, which calls nothing (tests/layers/
 * linkgraph.py); the API (rdtalloc_domain_ways, rdtalloc_io_alloc_*) is
 * lib/api/ways.c.
 */
#ifndef RDT_WAYS_H
#define RDT_WAYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "errors.h"
#include "machine.h"
#include "services.h"

/* Inside a call: w for domain index dom of res (a cache); -errno with errmsg set. */
static inline int rdt_ways_get(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
			       struct rdtalloc_ways_info *w)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	const struct rdt_backend *be = rdt_core_backend(r);
	const struct rdt_caps *c = &m->caps[res];

	memset(w, 0, sizeof(*w));
	w->sz = sizeof(*w);
	/* MPAM shows every way as shareable: a formality, no I/O fills them */
	w->io_ways = m->mpam ? 0 : c->shareable_bits;
	w->io_alloc_supported = res == RDT_L3 && c->io_alloc;
	if (w->io_alloc_supported)
		w->io_alloc_closid = (rdt_core_state(r)->cdp[res] ? c->closids / 2 :
							     c->closids) - 1;
	return be->ways ? be->ways(r, res, dom, w) : 0;
}

/*
 * Inside a call: the ways of domain index dom a plan, a profile or the
 * controller leaves alone - the I/O ways unless shareable, and other
 * owners' exclusive ways always. When they cannot be read, shareable_bits.
 */
static inline uint64_t rdt_ways_left_alone(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
					   bool shareable)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	struct rdtalloc_ways_info w;

	if (rdt_ways_get(r, res, dom, &w)) {
		rdt_clear_err(r);
		return shareable || m->mpam ? 0 : m->caps[res].shareable_bits;
	}
	return (shareable ? 0 : w.io_ways) | w.foreign_ways;
}

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

#endif
