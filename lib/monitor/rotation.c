// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/rotation: counters shared in turns (resctrl's mbm_event mode, AMD
 * ABMC, Linux 6.18; the simulator's mon.cntrs).
 *
 * In mbm_event mode a group's bandwidth counts only while it holds a
 * counter per MBM event in a domain, and a machine has a few dozen per
 * domain: pqos shows 0 for every group beyond them. Here the groups of
 * ours take turns instead: pinned groups keep their counters, the others
 * hold them one period at a time, a window moving round them in creation
 * order, so that each gets the same share of the time (room / rotating
 * groups). A group's count starts when it gets its counter (the read right
 * after the assignment is its baseline) and its covered time grows only
 * between two readings that both found it counted (api.c's fold), so a
 * rate is taken from covered time alone and never from a guess.
 *
 * The turns move at reads (rdtalloc_mon_read, a monitor sample, an agent
 * scrape) whose turn is due; their record - when the turn began, where the
 * window starts, and on the simulator which groups hold counters - lives in
 * the running totals (counters.json, under its lock) as "@rotation". The
 * settings (period, counters, pins) are the state's. docs/monitoring.md.
 *
 * This file calls nothing of the library's core, so that it stays out of
 * the link loop (tests/layers/linkgraph.py): a turn reads, assigns and
 * counts through the callbacks of struct rdt_rot_io (monitor/api.c), and
 * the public calls are in rotation_api.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "monitor.h"

#define BAD(...) (snprintf(err, len, __VA_ARGS__), -EINVAL)
#define ROT_KEY "@rotation"

/* ---- Settings: the state's "monitoring"."rotation" --------------------------------- */

int rdt_rot_cfg_copy(struct rdt_rot_cfg *to, const struct rdt_rot_cfg *from)
{
	*to = *from;
	to->pinned = NULL;
	if (!from->npinned)
		return 0;
	to->pinned = malloc(from->npinned * sizeof(*to->pinned));
	if (!to->pinned) {
		to->npinned = 0;
		return -ENOMEM;
	}
	memcpy(to->pinned, from->pinned, from->npinned * sizeof(*to->pinned));
	return 0;
}

void rdt_rot_cfg_free(struct rdt_rot_cfg *cfg)
{
	free(cfg->pinned);
	memset(cfg, 0, sizeof(*cfg));
}

static bool group_alive(const struct rdt_state *st, uint64_t seq)
{
	unsigned int g;

	for (g = 1; g < st->ngroups; g++)
		if (st->groups[g].seq == seq)
			return st->groups[g].live;
	return false;
}

/* "rotation": {"period_ms": N, "counters": N, "pinned": [SEQ, ...]}: only what is not default. */
void rdt_rot_cfg_save(const struct rdt_state *st, const struct rdt_rot_cfg *cfg, json_object *o)
{
	json_object *rot, *pins;
	unsigned int i;

	pins = json_object_new_array();
	for (i = 0; i < cfg->npinned; i++)
		if (group_alive(st, cfg->pinned[i]))	/* a group removed loses its pin */
			json_object_array_add(pins, json_object_new_int64((int64_t)cfg->pinned[i]));
	if (!cfg->period_ms && !cfg->counters && !json_object_array_length(pins)) {
		json_object_put(pins);
		return;
	}
	rot = json_object_new_object();
	json_object_object_add(rot, "period_ms", json_object_new_int((int)cfg->period_ms));
	json_object_object_add(rot, "counters", json_object_new_int((int)cfg->counters));
	json_object_object_add(rot, "pinned", pins);
	json_object_object_add(o, "rotation", rot);
}

static bool get_uint(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
		return false;
	errno = 0;
	*v = json_object_get_int64(x);
	return !errno && *v >= lo && *v <= hi;
}

int rdt_rot_cfg_load(const struct rdt_state *st, struct rdt_rot_cfg *cfg, json_object *o,
		     const char *path, char *err, size_t len)
{
	json_object *rot, *pins;
	int64_t period, counters, seq;
	size_t i, n;

	if (!json_object_object_get_ex(o, "rotation", &rot))
		return 0;	/* the defaults, no pins */
	if (!json_object_is_type(rot, json_type_object) ||
	    !get_uint(rot, "period_ms", 0, RDT_ROT_PERIOD_MAX, &period) ||
	    (period && period < RDT_ROT_PERIOD_MIN) ||
	    !get_uint(rot, "counters", 0, RDT_ROT_COUNTERS_MAX, &counters) ||
	    !json_object_object_get_ex(rot, "pinned", &pins) ||
	    !json_object_is_type(pins, json_type_array))
		return BAD("state file %s: monitoring: rotation is malformed", path);
	n = json_object_array_length(pins);
	if (n > RDT_GROUPS_LIMIT)
		return BAD("state file %s: monitoring: more than %u pinned groups", path,
			   RDT_GROUPS_LIMIT);
	cfg->period_ms = (unsigned int)period;
	cfg->counters = (unsigned int)counters;
	cfg->pinned = calloc(n ? n : 1, sizeof(*cfg->pinned));
	if (!cfg->pinned)
		return BAD("out of memory");
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(pins, i);

		errno = 0;
		seq = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;
		if (errno || seq < 1 || (uint64_t)seq > RDT_SEQ_MAX ||
		    !group_alive(st, (uint64_t)seq))
			return BAD("state file %s: monitoring: pinned entry %zu is no group", path,
				   i);
		cfg->pinned[cfg->npinned++] = (uint64_t)seq;
	}
	return 0;
}

unsigned int rdt_rot_period_ms(const struct rdt_rot_cfg *cfg)
{
	return cfg->period_ms ? cfg->period_ms : RDT_ROT_PERIOD_MS;
}

bool rdt_rot_is_pinned(const struct rdt_rot_cfg *cfg, uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < cfg->npinned; i++)
		if (cfg->pinned[i] == seq)
			return true;
	return false;
}

/* ---- The choice of a turn ------------------------------------------------------------ */

unsigned int rdt_rot_plan(const uint64_t *seq, const bool *pinned, unsigned int n,
			  unsigned int cap, bool advance, uint64_t *cursor, bool *want)
{
	unsigned int i, k, start, taken = 0, nrot = 0, room, first = n;

	/* pins first, in creation order, as long as there is room */
	for (i = 0; i < n; i++) {
		want[i] = pinned[i] && taken < cap;
		taken += want[i];
	}
	room = cap - taken;
	for (i = 0; i < n; i++)
		nrot += !want[i];
	if (nrot <= room) {
		for (i = 0; i < n; i++)
			want[i] = true;
		*cursor = 0;
		return 0;
	}
	/* the window starts at the first rotating group at or after the cursor, round */
	for (i = 0; i < n; i++) {
		if (want[i])
			continue;
		if (first == n)
			first = i;
		if (seq[i] >= *cursor)
			break;
	}
	start = i < n ? i : first;
	if (advance) {
		/* past the window's end: room rotating groups on */
		for (k = 0, i = start; k < room; i = (i + 1) % n)
			k += !want[i];
		while (want[i])
			i = (i + 1) % n;
		start = i;
	}
	*cursor = seq[start];
	for (k = 0, i = start; k < room; i = (i + 1) % n) {
		if (want[i])
			continue;
		want[i] = true;
		k++;
	}
	return nrot;
}

/* ---- The simulator's counters: which groups hold them, in "@rotation"."sim" ------------ */

static json_object *rot_record(json_object *map, bool make)
{
	json_object *rec;

	if (json_object_object_get_ex(map, ROT_KEY, &rec) &&
	    json_object_is_type(rec, json_type_object))
		return rec;
	if (!make)
		return NULL;
	rec = json_object_new_object();
	json_object_object_add(map, ROT_KEY, rec);
	return rec;
}

static uint64_t rec_u64(json_object *rec, const char *key)
{
	json_object *v;

	if (!rec || !json_object_object_get_ex(rec, key, &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

static json_object *sim_held(json_object *map, bool make)
{
	json_object *rec = rot_record(map, make), *a;

	if (rec && json_object_object_get_ex(rec, "sim", &a) &&
	    json_object_is_type(a, json_type_array))
		return a;
	if (!make)
		return NULL;
	a = json_object_new_array();
	json_object_object_add(rec, "sim", a);
	return a;
}

/* Index of seq in the simulator's holders, or -1. */
static int sim_find(json_object *a, uint64_t seq)
{
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++)
		if ((uint64_t)json_object_get_int64(json_object_array_get_idx(a, i)) == seq)
			return (int)i;
	return -1;
}

/* The simulator's holders that are still groups of this state. */
static unsigned int sim_count(struct rdtalloc *r, json_object *a)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++)
		n += group_alive(rdt_core_state(r),
				 (uint64_t)json_object_get_int64(json_object_array_get_idx(a, i)));
	return n;
}

static unsigned int mbm_events(const struct rdtalloc *r)
{
	unsigned int ev = rdt_core_machine(r)->mon.events;

	return !!(ev & RDTALLOC_MON_EV_TOTAL) + !!(ev & RDTALLOC_MON_EV_LOCAL);
}

bool rdt_rot_sim_counted(struct rdtalloc *r, json_object *map, unsigned int rm, uint64_t seq)
{
	if (!rdt_core_machine(r)->mon.cntrs || !rdt_core_machine(r)->mon.assign || rm == 0)
		return true;	/* RMID 0, the default group's, holds counters from the mount */
	return sim_find(sim_held(map, false), seq) >= 0;
}

int rdt_rot_cntrs(struct rdtalloc *r, json_object *map, struct rdt_cntrs *c)
{
	unsigned int used;
	int ret;

	memset(c, 0, sizeof(*c));
	c->events = mbm_events(r);
	if (rdt_core_backend(r)->simulated) {
		if (!rdt_core_machine(r)->mon.cntrs)
			return 0;
		c->mode = rdt_core_machine(r)->mon.assign ? RDTALLOC_MON_ASSIGN_EVENT :
					     RDTALLOC_MON_ASSIGN_DEFAULT;
		c->total = rdt_core_machine(r)->mon.cntrs;
		if (c->mode != RDTALLOC_MON_ASSIGN_EVENT)
			return 0;
		used = c->events * (1 + sim_count(r, sim_held(map, false)));
		c->free = used < c->total ? c->total - used : 0;
		return 0;
	}
	if (!rdt_core_backend(r)->mon_cntrs)
		return 0;
	ret = rdt_core_backend(r)->mon_cntrs(r, &c->mode, &c->total, &c->free);
	return ret;
}

int rdt_rot_sim_assign(struct rdtalloc *r, json_object *map, uint64_t seq, bool on, bool *got)
{
	json_object *a = sim_held(map, true);
	int at = sim_find(a, seq), ret;
	struct rdt_cntrs c;

	*got = on;
	if (!on && at >= 0)
		return json_object_array_del_idx(a, (size_t)at, 1) ? -ENOMEM : 0;
	if (!on || at >= 0)
		return 0;
	ret = rdt_rot_cntrs(r, map, &c);
	if (ret)
		return ret;
	if (c.free < c.events) {
		*got = false;	/* as the kernel's ENOSPC: a state, no error */
		return 0;
	}
	return json_object_array_add(a, json_object_new_int64((int64_t)seq)) ? -ENOMEM : 0;
}

/* Drop holders that are no longer groups of ours (the kernel frees a removed group's). */
static void sim_prune(struct rdtalloc *r, json_object *map)
{
	json_object *a = sim_held(map, false);
	size_t i;

	for (i = a ? json_object_array_length(a) : 0; i-- > 0;)
		if (!group_alive(rdt_core_state(r),
				 (uint64_t)json_object_get_int64(json_object_array_get_idx(a, i))))
			json_object_array_del_idx(a, i, 1);
}

/* ---- A turn ------------------------------------------------------------------------ */

struct turn {
	bool *held, *want, *got;
	unsigned int *idx;
};

static void turn_free(struct turn *t)
{
	free(t->held);
	free(t->want);
	free(t->got);
	free(t->idx);
}

static int turn_init(struct rdtalloc *r, struct turn *t, unsigned int n)
{
	t->held = calloc(n + 1, sizeof(bool));
	t->want = calloc(n + 1, sizeof(bool));
	t->got = calloc(n + 1, sizeof(bool));
	t->idx = calloc(n + 1, sizeof(unsigned int));
	if (!t->held || !t->want || !t->got || !t->idx)
		return rdt_fail(r, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Room for groups this turn: the free counters and those our groups hold
 * now (ours to move), per MBM event, within the settings' counters.
 */
static unsigned int room(const struct rdt_rot_io *io, const struct rdt_cntrs *c,
			 const bool *held)
{
	unsigned int n = 0, i, cap;

	for (i = 0; i < io->n; i++)
		n += held[i];
	cap = c->events ? (c->free + n * c->events) / c->events : 0;
	if (io->counters && c->events && cap > io->counters / c->events)
		cap = io->counters / c->events;
	return cap;
}

/* Take back the leaving groups' counters, then give the entering theirs. */
static int move(struct rdt_rot_io *io, struct turn *t)
{
	unsigned int i;
	bool got;
	int ret = 0;

	for (i = 0; !ret && i < io->n; i++)
		if (t->held[i] && !t->want[i])
			ret = io->assign(io, i, false, &got);
	for (i = 0; !ret && i < io->n; i++)
		if (!t->held[i] && t->want[i])
			ret = io->assign(io, i, true, &t->got[i]);
	return ret;
}

int rdt_rot_turn(struct rdt_rot_io *io, uint64_t now)
{
	struct rdtalloc *r = io->r;
	json_object *rec;
	uint64_t at, cursor;
	struct rdt_cntrs c;
	struct turn t = { 0 };
	unsigned int i, k;
	int ret;

	ret = io->cntrs(io, &c);
	if (ret || c.mode != RDTALLOC_MON_ASSIGN_EVENT || !c.events)
		return ret;
	if (rdt_core_backend(r)->simulated)
		sim_prune(r, io->map);
	rec = rot_record(io->map, false);
	at = rec_u64(rec, "at");
	cursor = rec_u64(rec, "cursor");
	if (at && now >= at && now - at < (uint64_t)io->period_ms * 1000000u)
		return 0;	/* the turn goes on */
	if (io->reclaim && ((ret = io->reclaim(io)) || (ret = io->cntrs(io, &c))))
		return ret;
	ret = turn_init(r, &t, io->n);
	/* every group's count up to now, and who holds counters */
	for (i = 0; !ret && i < io->n; i++)
		t.idx[i] = i;
	if (!ret && io->n)
		ret = io->read(io, t.idx, io->n, false, t.held);
	if (!ret) {
		rdt_rot_plan(io->seq, io->pinned, io->n, room(io, &c, t.held), at != 0, &cursor,
			     t.want);
		ret = move(io, &t);
	}
	/* the entering groups' counts start here */
	for (i = k = 0; !ret && i < io->n; i++)
		if (t.got[i])
			t.idx[k++] = i;
	if (!ret && k)
		ret = io->read(io, t.idx, k, true, t.held);
	if (!ret) {
		rec = rot_record(io->map, true);
		json_object_object_add(rec, "at", json_object_new_int64((int64_t)now));
		json_object_object_add(rec, "cursor", json_object_new_int64((int64_t)cursor));
	}
	turn_free(&t);
	return ret;
}
