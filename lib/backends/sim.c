// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim: the simulator backend. Its register file is the register image kept
 * in the state (mask tables per domain, CDP config, PQR_ASSOC per CPU, write
 * counters), so successive processes act on one simulated machine and an
 * ephemeral context on one in memory. Context switches are simulated by
 * rdtalloc_sim_switch(). It runs anywhere, as any user, needs no device and
 * no hook: every register-level callback is left out; the group level is
 * the engine's (lib/hw/ops.c).
 *
 * It simulates L3 I/O allocation too (machine key l3.io_alloc), as
 * resctrl's io_alloc behaves (Linux 6.19): on, it keeps the highest usable
 * CLOSID from every group (refused while one holds it, in the kernel's
 * words) and has a mask per L3 domain, first every way no exclusive group
 * holds; no exclusive group may then hold its ways. Kept in the state
 * file's member "io_alloc" (written only while on). Here rather than in a
 * module of its own: the simulated hardware is this file's, and a new
 * object would lengthen the library's link loop (tests/layers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "errors.h"
#include "schema.h"
#include "services.h"
#include "ways.h"

extern const struct rdt_section rdt_io_section;

struct io_part {
	bool on;
	unsigned int n;		/* L3 domains */
	uint64_t *mask;		/* [n] by domain index */
};

static struct io_part *part_of(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_io_section);
}

static void io_free(void *part)
{
	struct io_part *p = part;

	free(p->mask);
	memset(p, 0, sizeof(*p));
}

static int io_copy(void *to, const void *from)
{
	const struct io_part *src = from;
	struct io_part *dst = to;

	*dst = *src;
	dst->mask = NULL;
	if (!src->n)
		return 0;
	dst->mask = malloc(src->n * sizeof(*dst->mask));
	if (!dst->mask)
		return -ENOMEM;
	memcpy(dst->mask, src->mask, src->n * sizeof(*dst->mask));
	return 0;
}

/* {"masks": [{"cache_id": ID, "mask": N}, ...]} while on; nothing while off. */
static json_object *io_save(const struct rdt_state *st, const void *part)
{
	const struct io_part *p = part;
	json_object *o, *arr;
	unsigned int d;

	if (!p->on)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	for (d = 0; d < p->n; d++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "cache_id",
				       json_object_new_int64(st->m->dom[RDT_L3][d].cache_id));
		json_object_object_add(e, "mask", json_object_new_int64((int64_t)p->mask[d]));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "masks", arr);
	return o;
}

/* Read back (o NULL: off), every value checked; the CLOSID kept again. */
static int io_load(struct rdt_state *st, void *part, json_object *o, const char *path, char *err,
		   size_t len)
{
	const struct rdt_caps *c = &st->m->caps[RDT_L3];
	unsigned int n = st->m->ndom[RDT_L3], d;
	struct io_part *p = part;
	json_object *arr, *e, *id, *m;

	if (!o)
		return 0;
	if (!c->present || !c->io_alloc || !json_object_object_get_ex(o, "masks", &arr) ||
	    !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) != n)
		goto bad;
	p->mask = calloc(n, sizeof(*p->mask));
	if (!p->mask)
		return -ENOMEM;
	p->n = n;
	for (d = 0; d < n; d++) {
		e = json_object_array_get_idx(arr, d);
		if (!json_object_object_get_ex(e, "cache_id", &id) ||
		    !json_object_object_get_ex(e, "mask", &m) ||
		    !json_object_is_type(id, json_type_int) || !json_object_is_type(m, json_type_int) ||
		    json_object_get_int64(id) != st->m->dom[RDT_L3][d].cache_id ||
		    json_object_get_int64(m) < 0 ||
		    (uint64_t)json_object_get_int64(m) & ~rdt_cbm_full(c->cbm_len)) {
			io_free(p);
			goto bad;
		}
		p->mask[d] = (uint64_t)json_object_get_int64(m);
	}
	p->on = true;
	st->reserved_top = 1;	/* rdt_state_rebuild, next, checks no group has it */
	return 0;
bad:
	snprintf(err, len, "state file %s: \"io_alloc\" is malformed (or this machine has no "
		 "l3.io_alloc)", path);
	return -EINVAL;
}

/* The state file's "io_alloc": the simulator's, while on. */
const struct rdt_section rdt_io_section = {
	.name = "io_alloc",
	.size = sizeof(struct io_part),
	.copy = io_copy,
	.free = io_free,
	.save = io_save,
	.load = io_load,
};

static int sim_ways(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
		    struct rdtalloc_ways_info *w)
{
	const struct io_part *p = part_of(rdt_core_state(r));

	if (res != RDT_L3 || !p || !p->on || dom >= p->n)
		return 0;
	w->io_alloc_enabled = 1;
	w->io_alloc_mask = p->mask[dom];
	w->io_ways |= p->mask[dom];
	return 0;
}

/* The kernel's first mask (rdtgroup_init_cat): every way no exclusive group of ours holds. */
static uint64_t first_mask(const struct rdt_state *st, unsigned int d)
{
	const struct rdt_caps *c = &st->m->caps[RDT_L3];
	unsigned int s = st->slot_of[RDT_L3][d], k;
	uint64_t m = rdt_cbm_full(c->cbm_len);

	for (k = 0; k < st->ngroups; k++)
		if (st->groups[k].live && st->groups[k].exclusive)
			m &= ~(st->groups[k].mask[s * 2] | st->groups[k].mask[s * 2 + 1]);
	if (!c->sparse && m)
		m &= ~(m + (m & -m));	/* its lowest run */
	return m;
}

static int sim_io_enable(struct rdtalloc *r, int on)
{
	struct io_part *p = part_of(rdt_core_state(r));
	unsigned int closid = 0, d;
	int g = -1, ret;

	if (p->on == (on != 0))
		return 0;	/* as the kernel: the state it is in already */
	ret = rdt_reserve_top(rdt_core_state(r), on ? 1 : 0, &closid, &g);
	if (ret)
		return rdt_fail(r, -ENOSPC, "CLOSID (ctrl_hw_id) %u for io_alloc is used by %s group",
				closid, g >= 0 && g < (int)rdt_core_state(r)->ngroups ?
				rdt_core_state(r)->groups[g].name : "another");
	free(p->mask);
	p->mask = NULL;
	p->n = 0;
	p->on = on;
	if (on) {
		p->n = rdt_core_machine(r)->ndom[RDT_L3];
		p->mask = calloc(p->n, sizeof(*p->mask));
		if (!p->mask) {
			p->on = false;
			p->n = 0;
			rdt_reserve_top(rdt_core_state(r), 0, &closid, &g);
			return rdt_fail(r, -ENOMEM, "out of memory");
		}
		for (d = 0; d < p->n; d++)
			p->mask[d] = first_mask(rdt_core_state(r), d);
	}
	rdt_core_mark_dirty(r);
	return 0;
}

static int sim_io_masks(struct rdtalloc *r, const uint64_t *mask, const bool *have)
{
	struct io_part *p = part_of(rdt_core_state(r));
	unsigned int d;

	if (!p->on)
		return rdt_fail(r, -EINVAL, "io_alloc is not enabled on L3 (rdtctl io-alloc enable)");
	for (d = 0; d < p->n; d++)
		if (have[d])
			p->mask[d] = mask[d];
	rdt_core_mark_dirty(r);
	return 0;
}

/* backend.h's io_alloc, inside a write call: the state keeps it. */
static int sim_io_alloc(struct rdtalloc *r, int on, const uint64_t *mask, const bool *have)
{
	int ret = on >= 0 ? sim_io_enable(r, on) : 0;

	return !ret && mask ? sim_io_masks(r, mask, have) : ret;
}

/* backend.h check_groups: no exclusive group on io_alloc's ways (the kernel's rule). */
static int sim_check_groups(struct rdtalloc *r)
{
	const struct io_part *p = part_of(rdt_core_state(r));
	const struct rdt_state *st = rdt_core_state(r);
	unsigned int d, k;

	for (d = 0; p && p->on && d < p->n; d++) {
		unsigned int s = st->slot_of[RDT_L3][d];

		for (k = 0; k < st->ngroups; k++) {
			const struct rdt_group *g = &st->groups[k];
			uint64_t m;

			/* a removed group's slot has no masks */
			if (!g->live || !g->exclusive)
				continue;
			m = g->mask[s * 2] | g->mask[s * 2 + 1];
			if (m & p->mask[d])
				return rdt_fail(r, -EINVAL, "group %s: exclusive on io_alloc's ways "
						"0x%llx of L3 cache id %u, which I/O fills (resctrl "
						"refuses it: Schemata overlaps); narrow io_alloc's "
						"mask first (rdtctl io-alloc set)", g->name,
						(unsigned long long)(m & p->mask[d]),
						rdt_core_machine(r)->dom[RDT_L3][d].cache_id);
		}
	}
	return 0;
}

const struct rdt_backend rdt_backend_sim = {
	.name = "sim",
	.simulated = true,
	.hook = true,
	.precedences = (1u << RDT_PREC_CPU) | (1u << RDT_PREC_TASK),
	.default_precedence = RDT_PREC_CPU,
	.ops = &rdt_hw_group_ops,
	.ways = sim_ways,
	.io_alloc = sim_io_alloc,
	.check_groups = sim_check_groups,
};
