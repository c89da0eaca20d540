// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * engine: CLOSID tables per allocation domain, sharing by equal masks,
 * membership, precedence and the register image.
 *
 * Invariants kept by every call (and checked by rdt_state_rebuild):
 *  - in an allocation domain, a CLOSID is in use iff its refcount > 0, the
 *    refcount is the number of live groups holding it, and no two CLOSIDs in
 *    use have the same key: CLOSIDs in use == distinct keys (the lower bound);
 *  - every call validates before it changes anything, so a failure leaves
 *    the state as it was;
 *  - a register is written only when its value changes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "schema.h"

static int engine_fail(struct rdt_state *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int engine_fail(struct rdt_state *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
	return err;
}

/* A register write failed: say which, and append the register file's own detail. */
static int sink_fail(struct rdt_state *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int sink_fail(struct rdt_state *st, int err, const char *fmt, ...)
{
	const char *detail = st->sink->last_error ? st->sink->last_error(st->sink->ctx) : "";
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
	n = strlen(st->err);
	if (detail && *detail && n + 2 < sizeof(st->err))
		snprintf(st->err + n, sizeof(st->err) - n, " (%s)", detail);
	return err;
}

/* ---- Layout ---------------------------------------------------------- */

static unsigned int res_closids(const struct rdt_state *st, enum rdt_res res)
{
	unsigned int n = st->m->caps[res].closids;

	return st->cdp[res] ? n / 2 : n;
}

/* All-ones for a cache; for MB the unthrottled value. */
static uint64_t slot_full(const struct rdt_state *st, unsigned int s)
{
	const struct rdt_caps *c = &st->m->caps[st->slot[s].res];

	return st->slot[s].res == RDT_MB ? c->mb_max : rdt_cbm_full(c->cbm_len);
}

/*
 * The CLOSIDs of an allocation domain are its caches'. MBA may have fewer
 * (8 beside 16 on Skylake-SP): those above its count have no bandwidth
 * register and run unthrottled, so they serve groups that are not
 * throttled (lowest_free) rather than shrinking the whole table as
 * resctrl does.
 */
static void adom_update_nclos(struct rdt_state *st, struct rdt_adom *a)
{
	unsigned int i, n = UINT_MAX;

	for (i = 0; i < a->nslots; i++) {
		unsigned int c;

		if (st->slot[a->slots[i]].res == RDT_MB)
			continue;
		c = res_closids(st, st->slot[a->slots[i]].res);

		if (c < n)
			n = c;
	}
	a->nclos = n > st->reserved_top ? n - st->reserved_top : n;
}

static unsigned int adom_hw_closids(const struct rdt_state *st, const struct rdt_adom *a)
{
	unsigned int i, n = UINT_MAX;

	for (i = 0; i < a->nslots; i++) {
		unsigned int c = st->m->caps[st->slot[a->slots[i]].res].closids;

		if (st->slot[a->slots[i]].res != RDT_MB && c < n)
			n = c;
	}
	return n;
}

int rdt_reserve_top(struct rdt_state *st, unsigned int n, unsigned int *closid, int *group)
{
	unsigned int was = st->reserved_top, i, k;

	st->reserved_top = n;
	for (i = 0; i < st->nadom; i++) {
		struct rdt_adom *a = &st->adom[i];

		adom_update_nclos(st, a);
		for (k = a->nclos; k < adom_hw_closids(st, a) && k < a->nclos + n; k++) {
			if (!a->refcount[k])
				continue;
			*closid = k;
			for (*group = 0; *group < (int)st->ngroups; (*group)++)
				if (st->groups[*group].live && st->groups[*group].closid[i] == k)
					break;
			st->reserved_top = was;
			for (i = 0; i < st->nadom; i++)
				adom_update_nclos(st, &st->adom[i]);
			return -EBUSY;
		}
	}
	return 0;
}

/* CLOSIDs below this have bandwidth registers (all of them without MBA). */
static unsigned int mb_closids(const struct rdt_state *st, const struct rdt_adom *a)
{
	return st->m->caps[RDT_MB].present && st->m->caps[RDT_MB].closids < a->nclos ?
	       st->m->caps[RDT_MB].closids : a->nclos;
}

/* Do the masks (global-slot indexed) throttle bandwidth in allocation domain a? */
static bool throttled(const struct rdt_state *st, const struct rdt_adom *a, const uint64_t *masks)
{
	unsigned int i;

	for (i = 0; i < a->nslots; i++) {
		unsigned int s = a->slots[i];

		if (st->slot[s].res == RDT_MB && masks[s * 2] != slot_full(st, s))
			return true;
	}
	return false;
}

static uint64_t *key_of(const struct rdt_state *st, const struct rdt_adom *a, unsigned int k)
{
	(void)st;
	return &a->key[(size_t)k * a->nslots * 2];
}

/* Does CLOSID k of a hold the masks masks[] (global-slot indexed)? */
static bool key_eq(const struct rdt_state *st, const struct rdt_adom *a, unsigned int k,
		   const uint64_t *masks)
{
	const uint64_t *key = key_of(st, a, k);
	unsigned int i;

	for (i = 0; i < a->nslots; i++) {
		unsigned int s = a->slots[i];

		if (key[i * 2] != masks[s * 2] || key[i * 2 + 1] != masks[s * 2 + 1])
			return false;
	}
	return true;
}

static void key_set(struct rdt_state *st, struct rdt_adom *a, unsigned int k,
		    const uint64_t *masks)
{
	uint64_t *key = key_of(st, a, k);
	unsigned int i;

	for (i = 0; i < a->nslots; i++) {
		key[i * 2] = masks[a->slots[i] * 2];
		key[i * 2 + 1] = masks[a->slots[i] * 2 + 1];
	}
}

static int find_key(const struct rdt_state *st, const struct rdt_adom *a, const uint64_t *masks)
{
	unsigned int k;

	for (k = 0; k < a->nclos; k++)
		if (a->refcount[k] && key_eq(st, a, k, masks))
			return (int)k;
	return -1;
}

/*
 * A free CLOSID for the masks: a throttled key only below the MBA count;
 * an unthrottled one above it first, keeping the throttling ones for those
 * who need them; the lowest such. Without MBA: the lowest free.
 */
static int lowest_free(const struct rdt_state *st, const struct rdt_adom *a,
		       const uint64_t *masks)
{
	unsigned int k, mb = mb_closids(st, a);

	if (!throttled(st, a, masks))
		for (k = mb; k < a->nclos; k++)
			if (!a->refcount[k])
				return (int)k;
	for (k = 0; k < mb; k++)
		if (!a->refcount[k])
			return (int)k;
	return -1;
}

/* "L3 cache id 1": how a user names an allocation domain. */
static void adom_label(const struct rdt_state *st, unsigned int ai, char *buf, size_t len)
{
	const struct rdt_slot *s = &st->slot[st->adom[ai].slots[0]];

	snprintf(buf, len, "%s cache id %u", rdt_res_name(s->res),
		 st->m->dom[s->res][s->dom].cache_id);
}

/* ---- Registers ------------------------------------------------------- */

static int write_mask(struct rdt_state *st, unsigned int s, unsigned int reg, uint64_t val)
{
	uint64_t *cell = &st->regs.mask[(size_t)s * st->regs.nregs + reg];
	int err;

	/* CLOSIDs above MBA's have no bandwidth register (and hold unthrottled keys) */
	if (reg >= st->m->caps[st->slot[s].res].closids)
		return 0;
	if (*cell == val)
		return 0;
	if (st->sink) {
		err = st->sink->write_mask(st->sink->ctx, st->slot[s].res, st->slot[s].dom, reg, val);
		if (err)
			return sink_fail(st, err, "%s %s id %u: writing %s register %u failed",
				    rdt_res_name(st->slot[s].res),
				    st->slot[s].res == RDT_MB ? "domain" : "cache",
				    st->m->dom[st->slot[s].res][st->slot[s].dom].cache_id,
				    st->slot[s].res == RDT_MB ? "bandwidth" : "mask", reg);
	}
	*cell = val;
	if (st->regs.mask_writes < RDT_COUNTER_MAX)	/* a figure: it stays readable */
		st->regs.mask_writes++;
	return 0;
}

static int write_cfg(struct rdt_state *st, unsigned int s, bool on)
{
	int err;

	if (st->regs.cfg[s] == on)
		return 0;
	if (st->sink) {
		err = st->sink->write_cfg(st->sink->ctx, st->slot[s].res, st->slot[s].dom, on);
		if (err)
			return sink_fail(st, err, "%s cache id %u: writing the CDP setting failed",
				    rdt_res_name(st->slot[s].res),
				    st->m->dom[st->slot[s].res][st->slot[s].dom].cache_id);
	}
	st->regs.cfg[s] = on;
	if (st->regs.cfg_writes < RDT_COUNTER_MAX)
		st->regs.cfg_writes++;
	return 0;
}

static int write_pqr(struct rdt_state *st, int cpu, unsigned int closid, bool *written)
{
	int err;

	if (written)
		*written = false;
	if (st->regs.pqr[cpu] == closid)
		return 0;
	if (st->sink) {
		err = st->sink->write_pqr(st->sink->ctx, cpu, closid);
		if (err)
			return sink_fail(st, err, "CPU %d: writing IA32_PQR_ASSOC failed", cpu);
	}
	st->regs.pqr[cpu] = closid;
	if (st->regs.pqr_writes < RDT_COUNTER_MAX)
		st->regs.pqr_writes++;
	if (written)
		*written = true;
	return 0;
}

/* Make the mask registers of allocation domain ai hold every CLOSID in use. */
static int sync_adom(struct rdt_state *st, unsigned int ai)
{
	struct rdt_adom *a = &st->adom[ai];
	unsigned int k, i;
	int err;

	for (k = 0; k < a->nclos; k++) {
		const uint64_t *key;

		if (!a->refcount[k])
			continue;
		key = key_of(st, a, k);
		for (i = 0; i < a->nslots; i++) {
			unsigned int s = a->slots[i];

			if (st->cdp[st->slot[s].res]) {
				err = write_mask(st, s, 2 * k, key[i * 2]);
				if (!err)
					err = write_mask(st, s, 2 * k + 1, key[i * 2 + 1]);
			} else {
				err = write_mask(st, s, k, key[i * 2]);
			}
			if (err)
				return err;
		}
	}
	return 0;
}

static int refresh_cpu(struct rdt_state *st, int cpu)
{
	if (st->cpu_adom[cpu] == UINT_MAX)
		return 0;
	return write_pqr(st, cpu, rdt_effective_closid(st, cpu, st->regs.cur[cpu]), NULL);
}

static int refresh_adom_cpus(struct rdt_state *st, unsigned int ai)
{
	const struct rdt_adom *a = &st->adom[ai];
	unsigned int i;
	int err;

	for (i = 0; i < a->ncpus; i++) {
		err = refresh_cpu(st, a->cpus[i]);
		if (err)
			return err;
	}
	return 0;
}

static int refresh_all(struct rdt_state *st)
{
	unsigned int ai;
	int err;

	for (ai = 0; ai < st->nadom; ai++) {
		err = sync_adom(st, ai);
		if (!err)
			err = refresh_adom_cpus(st, ai);
		if (err)
			return err;
	}
	return 0;
}

/* ---- Construction ------------------------------------------------------ */

/*
 * Group sequence numbers name groups outside the state too (the switch
 * hook's task storage, which outlives a removed state file): a new state
 * starts them at the time in microseconds, so that its groups never take
 * the numbers of an older state's.
 */
static uint64_t first_seq(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return 1;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u + 1;
}

static int build_layout(struct rdt_state *st)
{
	const struct rdt_machine *m = st->m;
	enum rdt_res owner = m->caps[RDT_L3].present ? RDT_L3 : RDT_L2;
	unsigned int r, d, s = 0, ai;

	for (r = 0; r < RDT_NALL; r++)
		if (m->caps[r].present)
			st->nslots += m->ndom[r];
	st->nadom = m->ndom[owner];
	if (!st->nslots || !st->nadom)
		return -EINVAL;
	st->slot = calloc(st->nslots, sizeof(*st->slot));
	st->adom = calloc(st->nadom, sizeof(*st->adom));
	st->cpu_adom = malloc(m->ncpus * sizeof(*st->cpu_adom));
	if (!st->slot || !st->adom || !st->cpu_adom)
		return -ENOMEM;
	for (d = 0; d < m->ncpus; d++)
		st->cpu_adom[d] = UINT_MAX;

	for (r = 0; r < RDT_NALL; r++) {
		if (!m->caps[r].present)
			continue;
		st->slot_of[r] = calloc(m->ndom[r], sizeof(unsigned int));
		if (!st->slot_of[r])
			return -ENOMEM;
		for (d = 0; d < m->ndom[r]; d++, s++) {
			const struct rdt_domain *dom = &m->dom[r][d];
			int a = (int)d;

			if (r != owner) {
				a = dom->ncpus ? rdt_machine_cpu_domain(m, owner, dom->cpus[0]) : -1;
				if (a < 0)
					return -EINVAL;
			}
			st->slot[s].res = r;
			st->slot[s].dom = d;
			st->slot[s].adom = (unsigned int)a;
			st->slot[s].pos = st->adom[a].nslots++;
			st->slot_of[r][d] = s;
		}
	}

	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];
		const struct rdt_domain *dom = &m->dom[owner][ai];
		unsigned int hw;

		a->slots = calloc(a->nslots, sizeof(*a->slots));
		if (!a->slots)
			return -ENOMEM;
		a->nslots = 0;
		for (s = 0; s < st->nslots; s++)
			if (st->slot[s].adom == ai)
				a->slots[a->nslots++] = s;
		a->ncpus = dom->ncpus;
		a->cpus = malloc((dom->ncpus ? dom->ncpus : 1) * sizeof(int));
		if (!a->cpus)
			return -ENOMEM;
		memcpy(a->cpus, dom->cpus, dom->ncpus * sizeof(int));
		for (d = 0; d < dom->ncpus; d++)
			st->cpu_adom[dom->cpus[d]] = ai;
		hw = adom_hw_closids(st, a);
		a->refcount = calloc(hw, sizeof(*a->refcount));
		a->key = calloc((size_t)hw * a->nslots * 2, sizeof(uint64_t));
		if (!a->refcount || !a->key)
			return -ENOMEM;
		adom_update_nclos(st, a);
	}
	return 0;
}

static int regs_init(struct rdt_state *st)
{
	const struct rdt_machine *m = st->m;
	unsigned int r, s, i;

	st->regs.nregs = 0;
	for (r = 0; r < RDT_NALL; r++)
		if (m->caps[r].present && m->caps[r].closids > st->regs.nregs)
			st->regs.nregs = m->caps[r].closids;
	st->regs.mask = malloc((size_t)st->nslots * st->regs.nregs * sizeof(uint64_t));
	st->regs.cfg = calloc(st->nslots, sizeof(bool));
	st->regs.pqr = calloc(m->ncpus, sizeof(unsigned int));
	st->regs.cur = calloc(m->ncpus, sizeof(pid_t));
	if (!st->regs.mask || !st->regs.cfg || !st->regs.pqr || !st->regs.cur)
		return -ENOMEM;
	/* Mask registers come out of reset all-ones (SDM 17.19.4.2). */
	for (s = 0; s < st->nslots; s++)
		for (i = 0; i < st->regs.nregs; i++)
			st->regs.mask[(size_t)s * st->regs.nregs + i] = slot_full(st, s);
	return 0;
}

static void group_free_arrays(struct rdt_group *g)
{
	free(g->mask);
	free(g->closid);
	free(g->mask_owner);
	g->mask = NULL;
	g->closid = NULL;
	g->mask_owner = NULL;
}

static int group_alloc_arrays(const struct rdt_state *st, struct rdt_group *g)
{
	g->mask = calloc((size_t)st->nslots * 2, sizeof(uint64_t));
	g->closid = calloc(st->nadom, sizeof(unsigned int));
	g->mask_owner = calloc(st->nslots ? st->nslots : 1, sizeof(unsigned int));
	if (!g->mask || !g->closid || !g->mask_owner) {
		group_free_arrays(g);
		return -ENOMEM;
	}
	return 0;
}

static void group_fill_full(const struct rdt_state *st, struct rdt_group *g)
{
	unsigned int s;

	for (s = 0; s < st->nslots; s++)
		g->mask[s * 2] = g->mask[s * 2 + 1] = slot_full(st, s);
}

static int rebuild_names(struct rdt_state *st)
{
	unsigned int i;
	int err;

	rdt_name_map_free(&st->names);
	for (i = 1; i < st->ngroups; i++) {
		if (!st->groups[i].live)
			continue;
		err = rdt_name_map_put(&st->names, st->groups[i].name, (int)i);
		if (err)
			return err;
	}
	return 0;
}


/* ---- The modules' parts (hw/section.h) ---------------------------------- */

static void parts_free(struct rdt_state *st)
{
	unsigned int i;

	for (i = 0; st->sections && st->sections[i]; i++) {
		if (st->parts[i] && st->sections[i]->free)
			st->sections[i]->free(st->parts[i]);
		free(st->parts[i]);
		st->parts[i] = NULL;
	}
	json_object_put(st->unknown);
	st->unknown = NULL;
}

static int parts_alloc(struct rdt_state *st)
{
	unsigned int i;

	for (i = 0; st->sections && st->sections[i]; i++)
		if (!(st->parts[i] = calloc(1, st->sections[i]->size ? st->sections[i]->size : 1)))
			return -ENOMEM;
	return 0;
}

/* A new state's parts, each made by its module. */
static int parts_new(struct rdt_state *st)
{
	unsigned int i;
	int err = parts_alloc(st);

	for (i = 0; !err && st->sections && st->sections[i]; i++)
		if (st->sections[i]->init)
			err = st->sections[i]->init(st, st->parts[i]);
	return err;
}

/* src's parts copied into st's (for the undo image, a dry run, a plan's trial). */
static int parts_copy(struct rdt_state *st, const struct rdt_state *src)
{
	unsigned int i;
	int err;

	st->sections = src->sections;
	err = parts_alloc(st);
	for (i = 0; !err && st->sections && st->sections[i]; i++) {
		if (st->sections[i]->copy)
			err = st->sections[i]->copy(st->parts[i], src->parts[i]);
		else
			memcpy(st->parts[i], src->parts[i], st->sections[i]->size);
	}
	/* what this version cannot read is shared, as it is never changed */
	st->unknown = src->unknown ? json_object_get(src->unknown) : NULL;
	return err;
}
int rdt_state_new(const struct rdt_machine *m, const struct rdt_section *const *sections,
		  struct rdt_state **out)
{
	struct rdt_state *st;
	struct rdt_group *def;
	unsigned int ai, c;
	int err;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->m = m;
	st->sections = sections;
	st->precedence = RDT_PREC_CPU;
	st->max_groups = RDT_GROUPS_DEFAULT;
	st->max_tasks = RDT_TASKS_DEFAULT;
	err = build_layout(st);
	if (!err)
		err = regs_init(st);
	if (err)
		goto fail;
	st->cap_groups = 16;
	st->groups = calloc(st->cap_groups, sizeof(*st->groups));
	st->free_groups = malloc(st->cap_groups * sizeof(int));
	st->cpu_group = malloc(m->ncpus * sizeof(int));
	st->cpu_owner = calloc(m->ncpus ? m->ncpus : 1, sizeof(unsigned int));
	if (!st->groups || !st->free_groups || !st->cpu_group || !st->cpu_owner) {
		err = -ENOMEM;
		goto fail;
	}
	for (c = 0; c < m->ncpus; c++)
		st->cpu_group[c] = -1;
	def = &st->groups[0];
	strcpy(def->name, "default");
	def->live = true;
	err = group_alloc_arrays(st, def);
	if (err)
		goto fail;
	group_fill_full(st, def);
	for (ai = 0; ai < st->nadom; ai++) {
		st->adom[ai].refcount[0] = 1;
		st->adom[ai].inuse = 1;
		key_set(st, &st->adom[ai], 0, def->mask);
	}
	st->ngroups = 1;
	st->nlive = 1;
	st->next_seq = first_seq();
	err = parts_new(st);
	if (err)
		goto fail;
	*out = st;
	return 0;
fail:
	rdt_state_free(st);
	return err;
}

static void cgroups_free(struct rdt_cgroup *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; v && i < n; i++)
		free(v[i].path);
	free(v);
}

static int cgroups_copy(struct rdt_state *st, const struct rdt_state *src)
{
	unsigned int i;

	st->ncgroups = 0;
	st->cgroups = calloc(src->ncgroups + 1, sizeof(*st->cgroups));
	if (!st->cgroups)
		return -ENOMEM;
	for (i = 0; i < src->ncgroups; i++) {
		st->cgroups[i] = src->cgroups[i];
		st->cgroups[i].path = strdup(src->cgroups[i].path);
		if (!st->cgroups[i].path)
			return -ENOMEM;
		st->ncgroups++;
	}
	return 0;
}

void rdt_state_free(struct rdt_state *st)
{
	unsigned int i;

	if (!st)
		return;
	for (i = 0; i < st->nadom && st->adom; i++) {
		free(st->adom[i].slots);
		free(st->adom[i].cpus);
		free(st->adom[i].refcount);
		free(st->adom[i].key);
	}
	for (i = 0; i < st->ngroups; i++)
		group_free_arrays(&st->groups[i]);
	for (i = 0; i < RDT_NALL; i++)
		free(st->slot_of[i]);
	free(st->groups);
	free(st->free_groups);
	free(st->excl);
	free(st->adom);
	free(st->slot);
	free(st->cpu_adom);
	free(st->cpu_group);
	free(st->cpu_owner);
	rdt_owners_free(st);
	rdt_name_map_free(&st->names);
	rdt_task_map_free(&st->tasks);
	cgroups_free(st->cgroups, st->ncgroups);
	free(st->regs.mask);
	free(st->regs.cfg);
	free(st->regs.pqr);
	free(st->regs.cur);
	parts_free(st);
	free(st);
}

static void *dup_mem(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	if (q && n)
		memcpy(q, p, n);
	return q;
}

int rdt_state_clone(const struct rdt_state *src, struct rdt_state **out)
{
	const struct rdt_machine *m = src->m;
	struct rdt_state *st;
	unsigned int i;
	int err = -ENOMEM;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->m = m;
	memcpy(st->id, src->id, sizeof(st->id));
	st->precedence = src->precedence;
	st->max_groups = src->max_groups;
	st->max_tasks = src->max_tasks;
	err = build_layout(st);
	if (err)
		goto fail;
	err = -ENOMEM;
	memcpy(st->cdp, src->cdp, sizeof(st->cdp));
	st->reserved_top = src->reserved_top;
	for (i = 0; i < st->nadom; i++) {
		struct rdt_adom *a = &st->adom[i];
		unsigned int hw = adom_hw_closids(st, a);

		a->nclos = src->adom[i].nclos;
		a->inuse = src->adom[i].inuse;
		memcpy(a->refcount, src->adom[i].refcount, hw * sizeof(*a->refcount));
		memcpy(a->key, src->adom[i].key, (size_t)hw * a->nslots * 2 * sizeof(uint64_t));
	}
	st->ngroups = src->ngroups;
	st->cap_groups = src->cap_groups;
	st->nlive = src->nlive;
	st->next_seq = src->next_seq;
	st->groups = calloc(st->cap_groups, sizeof(*st->groups));
	st->free_groups = malloc(st->cap_groups * sizeof(int));
	if (st->free_groups)
		memcpy(st->free_groups, src->free_groups, src->nfree_groups * sizeof(int));
	st->nfree_groups = src->nfree_groups;
	st->cpu_group = dup_mem(src->cpu_group, m->ncpus * sizeof(int));
	st->cpu_owner = dup_mem(src->cpu_owner, m->ncpus * sizeof(unsigned int));
	if (!st->groups || !st->free_groups || !st->cpu_group || !st->cpu_owner ||
	    rdt_owners_copy(st, src))
		goto fail;
	for (i = 0; i < st->ngroups; i++) {
		const struct rdt_group *sg = &src->groups[i];
		struct rdt_group *g = &st->groups[i];

		*g = *sg;
		g->mask = NULL;
		g->closid = NULL;
		g->mask_owner = NULL;
		if (!sg->mask)
			continue;
		g->mask = dup_mem(sg->mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
		g->closid = dup_mem(sg->closid, st->nadom * sizeof(unsigned int));
		g->mask_owner = dup_mem(sg->mask_owner, st->nslots * sizeof(unsigned int));
		if (!g->mask || !g->closid || !g->mask_owner)
			goto fail;
	}
	if (rebuild_names(st) || rdt_task_map_copy(&st->tasks, &src->tasks) ||
	    cgroups_copy(st, src))
		goto fail;
	if (src->nexcl) {
		st->excl = dup_mem(src->excl, src->nexcl * sizeof(int));
		if (!st->excl)
			goto fail;
		st->nexcl = st->cap_excl = src->nexcl;
	}
	st->regs = src->regs;
	st->regs.mask = dup_mem(src->regs.mask,
				(size_t)st->nslots * st->regs.nregs * sizeof(uint64_t));
	st->regs.cfg = dup_mem(src->regs.cfg, st->nslots * sizeof(bool));
	st->regs.pqr = dup_mem(src->regs.pqr, m->ncpus * sizeof(unsigned int));
	st->regs.cur = dup_mem(src->regs.cur, m->ncpus * sizeof(pid_t));
	if (!st->regs.mask || !st->regs.cfg || !st->regs.pqr || !st->regs.cur)
		goto fail;
	if (parts_copy(st, src))
		goto fail;
	/*
	 * A copy writes no register: a dry run, a plan's trial or an undo
	 * image must never reach the hardware. Whoever makes a copy the live
	 * state gives it the sink.
	 */
	st->sink = NULL;
	*out = st;
	return 0;
fail:
	rdt_state_free(st);
	return err;
}

/* ---- Groups ------------------------------------------------------------ */

int rdt_group_by_seq(const struct rdt_state *st, uint64_t seq)
{
	unsigned int g;

	for (g = 0; g < st->ngroups; g++)
		if (st->groups[g].live && st->groups[g].seq == seq)
			return (int)g;
	return -1;
}

int rdt_group_find(const struct rdt_state *st, const char *name)
{
	if (!name || !*name || !strcmp(name, "default"))
		return 0;
	return rdt_name_map_get(&st->names, name);
}

static int group_slot(struct rdt_state *st, int *idx)
{
	struct rdt_group *ng;
	unsigned int cap;
	int *fg, err;

	/* free_groups always has room for cap_groups entries, so pushing never fails. */
	if (st->nfree_groups) {
		*idx = st->free_groups[--st->nfree_groups];
		return 0;
	}
	if (st->ngroups == st->cap_groups) {
		cap = st->cap_groups * 2;
		fg = realloc(st->free_groups, cap * sizeof(*fg));
		if (!fg)
			return -ENOMEM;
		st->free_groups = fg;
		ng = realloc(st->groups, cap * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		memset(ng + st->cap_groups, 0, (cap - st->cap_groups) * sizeof(*ng));
		st->groups = ng;
		st->cap_groups = cap;
		/* The name map points into groups[]: it moved. */
		err = rebuild_names(st);
		if (err)
			return err;
	}
	*idx = (int)st->ngroups++;
	return 0;
}

/* plan[ai]: the CLOSID holding all-ones masks in each domain, or -1 (a free one is needed). */
static int plan_new_group(struct rdt_state *st, int *plan)
{
	uint64_t *full = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	unsigned int s, ai;
	char label[64];
	int err = 0;

	if (!full)
		return -ENOMEM;
	for (s = 0; s < st->nslots; s++)
		full[s * 2] = full[s * 2 + 1] = slot_full(st, s);
	for (ai = 0; ai < st->nadom; ai++) {
		plan[ai] = find_key(st, &st->adom[ai], full);
		if (plan[ai] < 0 && lowest_free(st, &st->adom[ai], full) < 0) {
			adom_label(st, ai, label, sizeof(label));
			err = engine_fail(st, -ENOSPC, "%s: no free CLOSID for a new group (%u in use)",
				   label, st->adom[ai].inuse);
			break;
		}
	}
	free(full);
	return err;
}

int rdt_group_load(struct rdt_state *st, const char *name, int *idx)
{
	struct rdt_group *g;
	int gi, err;

	if (rdt_group_find(st, name) >= 0)
		return engine_fail(st, -EEXIST, "group '%s' already exists", name);
	if (st->nlive >= st->max_groups)
		return engine_fail(st, -ENOSPC, "the state holds %u group%s, the most it may (max_groups, "
			    "set when the state is created)", st->max_groups,
			    st->max_groups == 1 ? "" : "s");
	if (strlen(name) >= RDT_NAME_LEN)
		return engine_fail(st, -EINVAL, "group name is longer than %d characters",
			    RDT_NAME_LEN - 1);
	/* past it the state could not be read back */
	if (st->next_seq >= RDT_SEQ_MAX)
		return engine_fail(st, -EOVERFLOW, "the state's group sequence numbers are spent "
			    "(%llu): make a new state", (unsigned long long)st->next_seq);
	err = group_slot(st, &gi);
	if (err)
		return err;
	g = &st->groups[gi];
	memset(g, 0, sizeof(*g));
	strcpy(g->name, name);
	err = group_alloc_arrays(st, g);
	if (!err)
		err = rdt_name_map_put(&st->names, g->name, gi);
	if (err) {
		group_free_arrays(g);
		memset(g, 0, sizeof(*g));
		st->free_groups[st->nfree_groups++] = gi;
		return err;
	}
	g->live = true;
	g->seq = st->next_seq++;
	group_fill_full(st, g);
	st->nlive++;
	*idx = gi;
	return 0;
}

int rdt_group_add(struct rdt_state *st, const char *name, int *idx)
{
	struct rdt_group *g;
	unsigned int ai;
	unsigned int w, s;
	int *plan, gi, err;

	if (rdt_group_find(st, name) >= 0)
		return engine_fail(st, -EEXIST, "group '%s' already exists", name);
	if (st->nlive >= st->max_groups)
		return engine_fail(st, -ENOSPC, "the state holds %u group%s, the most it may (max_groups, "
			    "set when the state is created)", st->max_groups,
			    st->max_groups == 1 ? "" : "s");
	if (rdt_owner_writer(st, &w))
		return -ENOMEM;
	plan = malloc(st->nadom * sizeof(int));
	if (!plan)
		return -ENOMEM;
	err = plan_new_group(st, plan);
	if (!err)
		err = rdt_group_load(st, name, &gi);
	if (err)
		goto out;
	g = &st->groups[gi];
	g->owner = w;
	for (s = 0; s < st->nslots; s++)
		g->mask_owner[s] = w;
	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];
		int k = plan[ai];

		if (k < 0) {
			k = lowest_free(st, a, g->mask);
			key_set(st, a, (unsigned int)k, g->mask);
			a->inuse++;
		}
		a->refcount[k]++;
		g->closid[ai] = (unsigned int)k;
		err = sync_adom(st, ai);
		if (err)
			goto out;
	}
	if (idx)
		*idx = gi;
out:
	free(plan);
	return err;
}

static void drop_ref(struct rdt_adom *a, unsigned int k)
{
	if (--a->refcount[k] == 0)
		a->inuse--;
}

/* A removed group's cgroups go back to the default group, as its tasks do. */
static void drop_cgroups_of(struct rdt_state *st, int gi)
{
	unsigned int i, k = 0;

	for (i = 0; i < st->ncgroups; i++) {
		if (st->cgroups[i].group == gi)
			free(st->cgroups[i].path);
		else
			st->cgroups[k++] = st->cgroups[i];
	}
	st->ncgroups = k;
}

/*
 * Removing a group undoes its own making and every binding in it: each
 * must be the writer's (or unknown) unless forced.
 */
static int group_del_may(struct rdt_state *st, int gi)
{
	const struct rdt_group *g = &st->groups[gi];
	char what[RDT_NAME_LEN + 16], part[RDT_CGROUP_PATH_MAX / 16 + 64];
	unsigned int c;
	size_t i;
	int err;

	snprintf(what, sizeof(what), "group %s", g->name);
	err = rdt_owner_may(st, g->owner, what, "it is");
	if (err || !st->writer || st->force)
		return err;
	for (c = 0; !err && c < st->m->ncpus && g->ncpus; c++) {
		if (st->cpu_group[c] != gi)
			continue;
		snprintf(part, sizeof(part), "it holds CPU %u, whose binding is", c);
		err = rdt_owner_may(st, st->cpu_owner[c], what, part);
	}
	for (i = 0; !err && g->ntasks && i < st->tasks.cap; i++) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (!t->tid || t->group != gi)
			continue;
		snprintf(part, sizeof(part), "it holds task %d, whose binding is", (int)t->tid);
		err = rdt_owner_may(st, t->owner, what, part);
	}
	for (c = 0; !err && c < st->ncgroups; c++) {
		if (st->cgroups[c].group != gi)
			continue;
		snprintf(part, sizeof(part), "it holds cgroup %.200s, whose binding is",
			 st->cgroups[c].path);
		err = rdt_owner_may(st, st->cgroups[c].owner, what, part);
	}
	return err;
}

int rdt_group_del(struct rdt_state *st, int gi)
{
	struct rdt_group *g;
	unsigned int ai, c;
	int err;

	if (gi == 0)
		return engine_fail(st, -EBUSY, "the default group cannot be removed");
	if (gi < 0 || (unsigned int)gi >= st->ngroups || !st->groups[gi].live)
		return engine_fail(st, -ENOENT, "no such group");
	g = &st->groups[gi];
	err = group_del_may(st, gi);
	if (err)
		return err;
	rdt_group_mark_exclusive(st, gi, false, false);

	for (c = 0; c < st->m->ncpus && g->ncpus; c++) {
		if (st->cpu_group[c] == gi) {
			st->cpu_group[c] = -1;
			st->cpu_owner[c] = 0;
			g->ncpus--;
		}
	}
	if (g->ntasks) {
		size_t i = 0;

		/* Deleting shifts entries back into the current slot: re-check it. */
		while (i < st->tasks.cap) {
			struct rdt_task *t = &st->tasks.slots[i];

			if (t->tid && t->group == gi) {
				rdt_task_map_del(&st->tasks, t->tid);
				continue;
			}
			i++;
		}
		g->ntasks = 0;
	}
	drop_cgroups_of(st, gi);
	for (ai = 0; ai < st->nadom; ai++)
		drop_ref(&st->adom[ai], g->closid[ai]);
	rdt_name_map_del(&st->names, g->name);
	g->live = false;
	group_free_arrays(g);
	st->free_groups[st->nfree_groups++] = gi;
	st->nlive--;
	return refresh_all(st);
}

/* ---- Exclusive groups -------------------------------------------------- */

/* "L3 cache id 0" of a slot, for messages. */
static void slot_label(const struct rdt_state *st, unsigned int s, char *buf, size_t len)
{
	snprintf(buf, len, "%s cache id %u", rdt_res_name(st->slot[s].res),
		 st->m->dom[st->slot[s].res][st->slot[s].dom].cache_id);
}

static uint64_t half_mask(const struct rdt_state *st, const uint64_t *masks, unsigned int s,
			  unsigned int h)
{
	return st->cdp[st->slot[s].res] ? masks[s * 2 + h] : masks[s * 2];
}

/*
 * The overlap error, masks as wide as the CBM (as schemas show them); with
 * CDP, which of the data and code masks: "L3 cache id 0: 0x00f00 overlaps
 * exclusive group rt (0x00f80)".
 */
static int overlap(struct rdt_state *st, unsigned int s, int gi, uint64_t mine, unsigned int h,
		   const struct rdt_group *og, uint64_t theirs, unsigned int k)
{
	static const char *const half[2] = { "data mask ", "code mask " };
	enum rdt_res res = st->slot[s].res;
	int w = (int)(st->m->caps[res].cbm_len + 3) / 4;
	bool cdp = st->cdp[res];
	char label[64];

	slot_label(st, s, label, sizeof(label));
	if (og->exclusive)
		return engine_fail(st, -EINVAL, "%s: %s0x%0*llx overlaps exclusive group %s (%s0x%0*llx)",
			    label, cdp ? half[h] : "", w, (unsigned long long)mine, og->name,
			    cdp ? half[k] : "", w, (unsigned long long)theirs);
	return engine_fail(st, -EINVAL, "%s: exclusive group %s (%s0x%0*llx) overlaps group %s "
		    "(%s0x%0*llx)", label, st->groups[gi].name, cdp ? half[h] : "", w,
		    (unsigned long long)mine, og->name, cdp ? half[k] : "", w,
		    (unsigned long long)theirs);
}

/*
 * Masks nm for group gi (exclusive or not) against every other live group:
 * an exclusive one on either side may share no way with the other, its
 * data and code masks counted alike (they fill the same cache). Shareable
 * ways are refused to an exclusive group unless it was forced.
 */
static int check_exclusive(struct rdt_state *st, int gi, const uint64_t *nm, bool exclusive,
			   bool forced)
{
	unsigned int s, h, k, o;
	char label[64];

	for (s = 0; s < st->nslots; s++) {
		enum rdt_res res = st->slot[s].res;
		uint64_t shared = st->m->caps[res].shareable_bits, mine = 0;

		if (res == RDT_MB)
			continue;
		for (h = 0; h < 2; h++)
			mine |= half_mask(st, nm, s, h);
		slot_label(st, s, label, sizeof(label));
		if (exclusive && !forced && (mine & shared))
			return engine_fail(st, -EINVAL, "%s: exclusive group %s would hold the shareable "
				    "ways 0x%llx, which other agents (such as I/O) fill too; force it "
				    "if that is meant", label, st->groups[gi].name,
				    (unsigned long long)(mine & shared));
		/*
		 * Only an exclusive group must be checked against every group;
		 * any other against the exclusive ones alone.
		 */
		for (o = 0; o < (exclusive ? st->ngroups : st->nexcl); o++) {
			const struct rdt_group *og = &st->groups[exclusive ? (int)o : st->excl[o]];

			if (og == &st->groups[gi] || !og->live || !(exclusive || og->exclusive))
				continue;
			/* with CDP each half on its own, so the message names the masks given */
			for (h = 0; h < (st->cdp[res] ? 2u : 1u); h++)
				for (k = 0; k < (st->cdp[res] ? 2u : 1u); k++)
					if (half_mask(st, nm, s, h) & half_mask(st, og->mask, s, k))
						return overlap(st, s, gi, half_mask(st, nm, s, h), h,
							       og, half_mask(st, og->mask, s, k), k);
		}
	}
	return 0;
}

int rdt_group_mark_exclusive(struct rdt_state *st, int gi, bool exclusive, bool forced)
{
	struct rdt_group *g = &st->groups[gi];
	unsigned int i;

	if (exclusive && !g->exclusive) {
		if (st->nexcl == st->cap_excl) {
			unsigned int cap = st->cap_excl ? 2 * st->cap_excl : 8;
			int *n = realloc(st->excl, cap * sizeof(*n));

			if (!n)
				return engine_fail(st, -ENOMEM, "out of memory");
			st->excl = n;
			st->cap_excl = cap;
		}
		st->excl[st->nexcl++] = gi;
	} else if (!exclusive && g->exclusive) {
		for (i = 0; i < st->nexcl; i++)
			if (st->excl[i] == gi) {
				st->excl[i] = st->excl[--st->nexcl];
				break;
			}
	}
	g->exclusive = exclusive;
	g->forced = exclusive && forced;
	return 0;
}

int rdt_group_set_exclusive(struct rdt_state *st, int gi, bool exclusive, bool forced)
{
	int err;

	/* MPAM's resctrl (7.1) shows every way shareable: the kernel refuses every one */
	if (exclusive && st->m->mpam)
		return engine_fail(st, -EOPNOTSUPP, "group %s: Arm MPAM has no exclusive mode "
				   "(resctrl shows every way as shareable and refuses 'exclusive' "
				   "with \"Schemata overlaps\"): leave it shareable",
				   st->groups[gi].name);
	if (exclusive) {
		err = check_exclusive(st, gi, st->groups[gi].mask, true, forced);
		if (err)
			return err;
	}
	return rdt_group_mark_exclusive(st, gi, exclusive, forced);
}

/* The lowest contiguous run of set bits of m. */
static uint64_t lowest_run(uint64_t m)
{
	uint64_t low = m & -m;

	return m & ~(m + low);
}

int rdt_group_fit_exclusive(struct rdt_state *st, int gi)
{
	uint64_t *want = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	bool *set = calloc(st->nslots, sizeof(bool)), any = false;
	unsigned int s, o;
	char label[64];
	int err = 0;

	if (!want || !set) {
		free(want);
		free(set);
		return -ENOMEM;
	}
	memcpy(want, st->groups[gi].mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
	for (s = 0; s < st->nslots && !err; s++) {
		enum rdt_res res = st->slot[s].res;
		uint64_t taken = 0, free_ways;

		if (res == RDT_MB)
			continue;
		for (o = 0; o < st->nexcl; o++)
			if (st->excl[o] != gi)
				taken |= st->groups[st->excl[o]].mask[s * 2] |
					 st->groups[st->excl[o]].mask[s * 2 + 1];
		if (!taken)
			continue;
		free_ways = slot_full(st, s) & ~taken;
		if (!st->m->caps[res].sparse)
			free_ways = lowest_run(free_ways);
		if ((unsigned int)__builtin_popcountll(free_ways) < st->m->caps[res].min_cbm_bits) {
			slot_label(st, s, label, sizeof(label));
			err = engine_fail(st, -ENOSPC, "%s: exclusive groups hold the ways a new group "
				   "would need (0x%llx taken)", label, (unsigned long long)taken);
			break;
		}
		want[s * 2] = want[s * 2 + 1] = free_ways;
		set[s] = any = true;
	}
	if (!err && any)
		err = rdt_group_set_masks(st, gi, want, set);
	free(want);
	free(set);
	return err;
}

enum plan_kind { PLAN_KEEP, PLAN_SHARE, PLAN_INPLACE, PLAN_NEW };

/* The masks of slots nm changes must be the writer's (w: its index); the default's are nobody's. */
static int masks_may(struct rdt_state *st, int gi, const uint64_t *nm, unsigned int *w)
{
	const struct rdt_group *g = &st->groups[gi];
	char what[RDT_NAME_LEN + 16], part[96];
	const char *o;
	unsigned int s;
	int err;

	*w = 0;
	if (gi == 0)
		return 0;
	if (rdt_owner_writer(st, w))
		return -ENOMEM;
	snprintf(what, sizeof(what), "group %s", g->name);
	for (s = 0; s < st->nslots; s++) {
		if (!memcmp(&nm[s * 2], &g->mask[s * 2], 2 * sizeof(uint64_t)))
			continue;
		o = rdt_owner_name(st, g->mask_owner[s]);
		/* the controller's owner names its domain already */
		if (st->m->ndom[st->slot[s].res] > 1 && !(o && !strncmp(o, "control:", 8)))
			snprintf(part, sizeof(part), "its mask in %s cache id %u is",
				 rdt_res_name(st->slot[s].res),
				 st->m->dom[st->slot[s].res][st->slot[s].dom].cache_id);
		else
			snprintf(part, sizeof(part), "its mask is");
		err = rdt_owner_may(st, g->mask_owner[s], what, part);
		if (err)
			return err;
	}
	return 0;
}

int rdt_group_set_masks(struct rdt_state *st, int gi, const uint64_t *want, const bool *set)
{
	struct rdt_group *g = &st->groups[gi];
	uint64_t *nm;
	int *plan, *target;
	unsigned int s, ai, w;
	char label[64];
	int err = 0;

	nm = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	plan = malloc(st->nadom * 2 * sizeof(int));
	if (!nm || !plan) {
		free(nm);
		free(plan);
		return -ENOMEM;
	}
	target = plan + st->nadom;
	memcpy(nm, g->mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
	for (s = 0; s < st->nslots; s++) {
		if (!set[s])
			continue;
		nm[s * 2] = want[s * 2];
		nm[s * 2 + 1] = st->cdp[st->slot[s].res] ? want[s * 2 + 1] : want[s * 2];
	}
	if (!memcmp(nm, g->mask, (size_t)st->nslots * 2 * sizeof(uint64_t)))
		goto out;	/* nothing changes: nothing to check, nobody takes it */
	err = masks_may(st, gi, nm, &w);
	if (!err)
		err = check_exclusive(st, gi, nm, g->exclusive, g->forced);
	if (err)
		goto out;

	for (s = 0; s < st->nslots && gi; s++)
		if (memcmp(&nm[s * 2], &g->mask[s * 2], 2 * sizeof(uint64_t)))
			g->mask_owner[s] = w;
	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];
		unsigned int old = g->closid[ai];
		int k;

		if (key_eq(st, a, old, nm)) {
			plan[ai] = PLAN_KEEP;
			continue;
		}
		k = find_key(st, a, nm);
		if (k >= 0) {
			plan[ai] = PLAN_SHARE;
			target[ai] = k;
		} else if (a->refcount[old] == 1 &&
			   (old < mb_closids(st, a) || !throttled(st, a, nm))) {
			plan[ai] = PLAN_INPLACE;
			target[ai] = (int)old;
		} else {
			k = lowest_free(st, a, nm);
			if (k < 0) {
				adom_label(st, ai, label, sizeof(label));
				if (throttled(st, a, nm) && mb_closids(st, a) < a->nclos)
					err = engine_fail(st, -ENOSPC, "%s: no free CLOSID with a bandwidth "
						   "register (MBA has %u of the %u CLOSIDs, all in "
						   "use)", label, mb_closids(st, a), a->nclos);
				else
					err = engine_fail(st, -ENOSPC, "%s: no free CLOSID (%u in use)",
						   label, a->inuse);
				goto out;
			}
			plan[ai] = PLAN_NEW;
			target[ai] = k;
		}
	}

	memcpy(g->mask, nm, (size_t)st->nslots * 2 * sizeof(uint64_t));
	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];
		unsigned int k = (unsigned int)target[ai];

		switch (plan[ai]) {
		case PLAN_KEEP:
			continue;
		case PLAN_SHARE:
			drop_ref(a, g->closid[ai]);
			a->refcount[k]++;
			break;
		case PLAN_INPLACE:
			key_set(st, a, k, nm);
			break;
		case PLAN_NEW:
			drop_ref(a, g->closid[ai]);
			key_set(st, a, k, nm);
			a->refcount[k] = 1;
			a->inuse++;
			break;
		}
		g->closid[ai] = k;
		err = sync_adom(st, ai);
		if (!err)
			err = refresh_adom_cpus(st, ai);
		if (err)
			goto out;
	}
out:
	free(nm);
	free(plan);
	return err;
}

/* ---- Membership and precedence ---------------------------------------- */

int rdt_bind_cpu(struct rdt_state *st, int gi, int cpu)
{
	int old = st->cpu_group[cpu];
	int ng = gi == 0 ? -1 : gi;
	char what[32];
	unsigned int w;

	if (old == ng)
		return 0;
	snprintf(what, sizeof(what), "CPU %d", cpu);
	if (rdt_owner_writer(st, &w))
		return -ENOMEM;
	if (old >= 0 && rdt_owner_may(st, st->cpu_owner[cpu], what, "its binding is"))
		return -EBUSY;
	st->cpu_owner[cpu] = ng >= 0 ? w : 0;
	if (old >= 0)
		st->groups[old].ncpus--;
	if (ng >= 0)
		st->groups[ng].ncpus++;
	st->cpu_group[cpu] = ng;
	return refresh_cpu(st, cpu);
}

static int refresh_task_cpus(struct rdt_state *st, pid_t tid)
{
	unsigned int c;
	int err;

	for (c = 0; c < st->m->ncpus; c++) {
		if (st->regs.cur[c] != tid)
			continue;
		err = refresh_cpu(st, (int)c);
		if (err)
			return err;
	}
	return 0;
}

int rdt_bind_task(struct rdt_state *st, int gi, pid_t tid, uint64_t start)
{
	struct rdt_task *t = rdt_task_map_get(&st->tasks, tid);
	struct rdt_task nt = { .tid = tid, .group = gi, .start = start };
	char what[32];
	int err;

	/* a binding of an exited task whose id came again is nobody's to keep */
	if (t && t->start == start && t->group != gi) {
		snprintf(what, sizeof(what), "task %d", (int)tid);
		if (rdt_owner_may(st, t->owner, what, "its binding is"))
			return -EBUSY;
	}
	if (gi != 0 && rdt_owner_writer(st, &nt.owner))
		return -ENOMEM;
	if (gi == 0) {
		if (!t)
			return 0;
		st->groups[t->group].ntasks--;
		rdt_task_map_del(&st->tasks, tid);
		return refresh_task_cpus(st, tid);
	}
	if (t && t->group == gi && t->start == start)
		return 0;
	if (!t && st->tasks.len >= st->max_tasks)
		return engine_fail(st, -ENOSPC, "%u tasks are bound already, the most the state may hold "
			    "(max_tasks, set when the state is created)", st->max_tasks);
	if (!t) {
		err = rdt_task_map_put(&st->tasks, &nt);
		if (err)
			return err;
	} else {
		st->groups[t->group].ntasks--;
		/* through the map, not the slot: the map's generation must change */
		err = rdt_task_map_put(&st->tasks, &nt);
		if (err)
			return err;
	}
	st->groups[gi].ntasks++;
	return refresh_task_cpus(st, tid);
}

void rdt_forget_task(struct rdt_state *st, pid_t tid)
{
	struct rdt_task *t = rdt_task_map_get(&st->tasks, tid);

	if (!t)
		return;
	st->groups[t->group].ntasks--;
	rdt_task_map_del(&st->tasks, tid);
}

int rdt_precedence_group(const struct rdt_state *st, int cpu, int task_group)
{
	int g = st->cpu_group[cpu];

	if (st->precedence == RDT_PREC_TASK && task_group > 0)
		return task_group;
	if (g >= 0)
		return g;
	return task_group > 0 ? task_group : 0;
}

int rdt_effective_group(const struct rdt_state *st, int cpu, pid_t tid)
{
	const struct rdt_task *t = tid ? rdt_task_map_get(&st->tasks, tid) : NULL;

	return rdt_precedence_group(st, cpu, t ? t->group : 0);
}

unsigned int rdt_effective_closid(const struct rdt_state *st, int cpu, pid_t tid)
{
	return st->groups[rdt_effective_group(st, cpu, tid)].closid[st->cpu_adom[cpu]];
}

int rdt_switch(struct rdt_state *st, int cpu, pid_t tid, unsigned int *closid, bool *written)
{
	const struct rdt_task *t = tid ? rdt_task_map_get(&st->tasks, tid) : NULL;

	return rdt_switch_group(st, cpu, tid, t ? t->group : 0, closid, written);
}

int rdt_switch_group(struct rdt_state *st, int cpu, pid_t tid, int task_group,
		     unsigned int *closid, bool *written)
{
	unsigned int k = st->groups[rdt_precedence_group(st, cpu, task_group)]
				 .closid[st->cpu_adom[cpu]];

	st->regs.cur[cpu] = tid;
	if (closid)
		*closid = k;
	return write_pqr(st, cpu, k, written);
}

/* ---- cgroups ----------------------------------------------------------- */

/* Index of path in the sorted bindings, or where it would go (*found false). */
static unsigned int cgroup_pos(const struct rdt_state *st, const char *path, bool *found)
{
	unsigned int lo = 0, hi = st->ncgroups;

	*found = false;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = strcmp(st->cgroups[mid].path, path);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct rdt_cgroup *rdt_cgroup_find(const struct rdt_state *st, const char *path)
{
	bool found;
	unsigned int i = cgroup_pos(st, path, &found);

	return found ? &st->cgroups[i] : NULL;
}

int rdt_bind_cgroup(struct rdt_state *st, int g, const char *path, uint64_t id)
{
	struct rdt_cgroup *v;
	unsigned int i, w = 0;
	bool found;
	char *p;

	if (g < 0 || (unsigned int)g >= st->ngroups || !st->groups[g].live)
		return engine_fail(st, -ENOENT, "no such group");
	if (!path || !path[0] || strlen(path) >= RDT_CGROUP_PATH_MAX)
		return engine_fail(st, -EINVAL, "invalid cgroup path");
	i = cgroup_pos(st, path, &found);
	if (found && st->cgroups[i].group != g) {
		char what[RDT_CGROUP_PATH_MAX / 16 + 16];

		snprintf(what, sizeof(what), "cgroup %.240s", path);
		if (rdt_owner_may(st, st->cgroups[i].owner, what, "its binding is"))
			return -EBUSY;
	}
	if (g != 0 && rdt_owner_writer(st, &w))
		return -ENOMEM;
	if (found && g == 0) {
		free(st->cgroups[i].path);
		memmove(&st->cgroups[i], &st->cgroups[i + 1],
			(st->ncgroups - i - 1) * sizeof(*st->cgroups));
		st->ncgroups--;
		return 0;
	}
	if (found) {
		if (st->cgroups[i].group != g)
			st->cgroups[i].owner = w;
		st->cgroups[i].group = g;
		st->cgroups[i].id = id;
		return 0;
	}
	if (g == 0)
		return 0;
	if (st->ncgroups >= RDT_CGROUPS_MAX)
		return engine_fail(st, -ENOSPC, "%u cgroups are bound already, the most a state holds",
			    (unsigned int)RDT_CGROUPS_MAX);
	p = strdup(path);
	v = realloc(st->cgroups, (st->ncgroups + 1) * sizeof(*v));
	if (!p || !v) {
		free(p);
		if (v)
			st->cgroups = v;
		return engine_fail(st, -ENOMEM, "out of memory");
	}
	st->cgroups = v;
	memmove(&v[i + 1], &v[i], (st->ncgroups - i) * sizeof(*v));
	v[i] = (struct rdt_cgroup){ .path = p, .id = id, .group = g, .owner = w };
	st->ncgroups++;
	return 0;
}

int rdt_cgroup_set_enforce(struct rdt_state *st, const char *path, bool enforce)
{
	char what[RDT_CGROUP_PATH_MAX / 16 + 16];
	bool found;
	unsigned int i = cgroup_pos(st, path, &found), w = 0;

	if (!found)
		return engine_fail(st, -ENOENT, "cgroup %.240s is not bound", path);
	if (st->cgroups[i].enforce == enforce)
		return 0;	/* as asked already: nothing taken over */
	snprintf(what, sizeof(what), "cgroup %.240s", path);
	if (rdt_owner_may(st, st->cgroups[i].owner, what, "its binding is"))
		return -EBUSY;
	if (rdt_owner_writer(st, &w))
		return -ENOMEM;
	st->cgroups[i].enforce = enforce;
	st->cgroups[i].owner = w;
	return 0;
}

int rdt_cgroup_group(const struct rdt_state *st, const char *path)
{
	char buf[RDT_CGROUP_PATH_MAX];
	const struct rdt_cgroup *c;
	size_t n = strlen(path);
	char *slash;

	if (!st->ncgroups || !n || n >= sizeof(buf))
		return 0;
	memcpy(buf, path, n + 1);
	/* the path itself, then each ancestor, deepest first */
	for (;;) {
		c = rdt_cgroup_find(st, buf);
		if (c)
			return c->group;
		slash = strrchr(buf, '/');
		if (!slash)
			return 0;
		*slash = '\0';
	}
}

/* ---- CDP and reset ----------------------------------------------------- */

/* Only the default group is left: put it on CLOSID 0 everywhere. */
static void relayout_default(struct rdt_state *st)
{
	struct rdt_group *def = &st->groups[0];
	unsigned int ai, s;

	for (s = 0; s < st->nslots; s++)
		if (!st->cdp[st->slot[s].res])
			def->mask[s * 2 + 1] = def->mask[s * 2];
	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];

		memset(a->refcount, 0, adom_hw_closids(st, a) * sizeof(*a->refcount));
		adom_update_nclos(st, a);
		a->refcount[0] = 1;
		a->inuse = 1;
		key_set(st, a, 0, def->mask);
		def->closid[ai] = 0;
	}
}

int rdt_set_cdp(struct rdt_state *st, enum rdt_res res, bool on)
{
	unsigned int s;
	int err;

	if (!st->m->caps[res].present)
		return engine_fail(st, -EINVAL, "resource %s is not available on this machine",
			    rdt_res_name(res));
	if (!st->m->caps[res].cdp)
		return engine_fail(st, -EINVAL, "%s does not support CDP on this machine",
			    rdt_res_name(res));
	if (st->cdp[res] == on)
		return 0;
	if (st->nlive > 1)
		return engine_fail(st, -EBUSY,
			    "CDP can be switched only while the default group is the only group "
			    "(%u other group%s exist%s)", st->nlive - 1, st->nlive == 2 ? "" : "s",
			    st->nlive == 2 ? "s" : "");
	st->cdp[res] = on;
	relayout_default(st);
	for (s = 0; s < st->nslots; s++) {
		if (st->slot[s].res != res)
			continue;
		err = write_cfg(st, s, on);
		if (err)
			return err;
	}
	return refresh_all(st);
}

int rdt_reset(struct rdt_state *st)
{
	unsigned int i, s, c;
	int err;

	for (i = 1; i < st->ngroups; i++) {
		group_free_arrays(&st->groups[i]);
		memset(&st->groups[i], 0, sizeof(st->groups[i]));
	}
	st->ngroups = 1;
	st->nlive = 1;
	st->nfree_groups = 0;
	st->groups[0].ntasks = 0;
	st->groups[0].ncpus = 0;
	st->groups[0].exclusive = st->groups[0].forced = false;
	st->nexcl = 0;
	rdt_name_map_free(&st->names);
	rdt_task_map_free(&st->tasks);
	cgroups_free(st->cgroups, st->ncgroups);
	st->cgroups = NULL;
	st->ncgroups = 0;
	for (c = 0; c < st->m->ncpus; c++) {
		st->cpu_group[c] = -1;
		st->cpu_owner[c] = 0;
	}
	memset(st->cdp, 0, sizeof(st->cdp));
	group_fill_full(st, &st->groups[0]);
	relayout_default(st);

	for (s = 0; s < st->nslots; s++) {
		err = write_cfg(st, s, false);
		for (i = 0; !err && i < st->m->caps[st->slot[s].res].closids; i++)
			err = write_mask(st, s, i, slot_full(st, s));
		if (err)
			return err;
	}
	for (c = 0; c < st->m->ncpus; c++) {
		if (st->cpu_adom[c] == UINT_MAX)
			continue;
		err = write_pqr(st, (int)c, 0, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* ---- Rebuild after load ------------------------------------------------- */

/*
 * The masks follow from the groups; PQR_ASSOC is kept as recorded: it also
 * reflects what only the switch hook knows (a task that inherited its group
 * at fork), so deriving it here would undo the agent's writes. Only a
 * CLOSID the domain does not have is recomputed.
 */
static int rebuild_regs(struct rdt_state *st)
{
	unsigned int ai, c;
	int err;

	for (ai = 0; ai < st->nadom; ai++) {
		err = sync_adom(st, ai);
		if (err)
			return err;
	}
	for (c = 0; c < st->m->ncpus; c++) {
		unsigned int a = st->cpu_adom[c];

		if (a == UINT_MAX || st->regs.pqr[c] < st->adom[a].nclos)
			continue;
		err = refresh_cpu(st, (int)c);
		if (err)
			return err;
	}
	return 0;
}

int rdt_state_rebuild(struct rdt_state *st)
{
	unsigned int ai, i, k, c;
	int err;

	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];

		adom_update_nclos(st, a);
		memset(a->refcount, 0, adom_hw_closids(st, a) * sizeof(*a->refcount));
		a->inuse = 0;
	}
	for (i = 0; i < st->ngroups; i++) {
		struct rdt_group *g = &st->groups[i];

		if (!g->live)
			continue;
		g->ntasks = 0;
		g->ncpus = 0;
		for (ai = 0; ai < st->nadom; ai++) {
			struct rdt_adom *a = &st->adom[ai];

			k = g->closid[ai];
			if (k >= a->nclos)
				return engine_fail(st, -EINVAL, "group '%s' holds CLOSID %u of %u", g->name,
					    k, a->nclos);
			if (k >= mb_closids(st, a) && throttled(st, a, g->mask))
				return engine_fail(st, -EINVAL, "group '%s' throttles bandwidth on CLOSID "
					    "%u, which has no bandwidth register", g->name, k);
			if (!a->refcount[k]) {
				key_set(st, a, k, g->mask);
				a->inuse++;
			} else if (!key_eq(st, a, k, g->mask)) {
				return engine_fail(st, -EINVAL,
					    "group '%s' shares CLOSID %u with different masks",
					    g->name, k);
			}
			a->refcount[k]++;
		}
	}
	/* No two CLOSIDs of a domain may hold one key (the sharing rule). */
	for (ai = 0; ai < st->nadom; ai++) {
		struct rdt_adom *a = &st->adom[ai];

		for (k = 0; k < a->nclos; k++) {
			unsigned int j;

			if (!a->refcount[k])
				continue;
			for (j = k + 1; j < a->nclos; j++)
				if (a->refcount[j] &&
				    !memcmp(key_of(st, a, k), key_of(st, a, j),
					    a->nslots * 2 * sizeof(uint64_t)))
					return engine_fail(st, -EINVAL,
						    "CLOSIDs %u and %u hold the same masks", k, j);
		}
	}
	for (c = 0; c < st->m->ncpus; c++) {
		int g = st->cpu_group[c];

		if (g < 0)
			continue;
		if ((unsigned int)g >= st->ngroups || !st->groups[g].live || g == 0)
			return engine_fail(st, -EINVAL, "CPU %u is bound to a group that does not exist", c);
		st->groups[g].ncpus++;
	}
	for (i = 0; i < st->tasks.cap; i++) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (!t->tid)
			continue;
		if (t->group <= 0 || (unsigned int)t->group >= st->ngroups ||
		    !st->groups[t->group].live)
			return engine_fail(st, -EINVAL, "task %d is bound to a group that does not exist",
				    (int)t->tid);
		st->groups[t->group].ntasks++;
	}
	err = rebuild_names(st);
	if (err)
		return err;
	return rebuild_regs(st);
}
