// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/rotation_api: the public calls of counters shared in turns
 * (rotation.c; docs/monitoring.md): the counters and the turns' settings,
 * setting them, pinning a group. Apart from rotation.c, which the read
 * path calls, because these call the core and nothing of the library calls
 * them back (tests/layers/linkgraph.py).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "context.h"
#include "errors.h"
#include "monitor.h"

static bool pinned(const struct rdt_state *st, int g)
{
	return g > 0 && rdt_rot_is_pinned(&rdt_mon(st)->rot, st->groups[g].seq);
}

/* ---- The public calls ------------------------------------------------------------------ */

static int counters_of(rdtalloc_t *r, json_object *map, void *arg)
{
	const struct rdt_state *st = rdt_core_state(r);
	struct rdtalloc_mon_counters *v = arg;
	struct rdt_cntrs c;
	unsigned int i;
	int ret;

	ret = rdt_rot_cntrs(r, map, &c);
	if (ret)
		return ret;
	v->mode = c.mode;
	v->total = c.total;
	v->free = c.free;
	v->events = c.events;
	v->period_ms = rdt_rot_period_ms(&rdt_mon(st)->rot);
	v->counters = rdt_mon(st)->rot.counters;
	for (i = 0; i < st->ngroups; i++) {
		if (!st->groups[i].live || rdt_mon_group_rmid(st, (int)i) < 0)
			continue;
		v->groups++;
		v->pinned += pinned(st, (int)i);
	}
	return 0;
}

RDTALLOC_API int rdtalloc_mon_get_counters(rdtalloc_t *r, struct rdtalloc_mon_counters *out)
{
	struct rdtalloc_mon_counters v = { 0 };
	int ret;

	if (!r || !out)
		return -EINVAL;
	if (out->sz < sizeof(size_t) || out->sz > (1u << 16))
		return rdt_fail(r, -EINVAL, "rdtalloc_mon_counters.sz is %zu: set it to "
				"sizeof(struct rdtalloc_mon_counters)", out->sz);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_mon_need(r);
	if (!ret)
		ret = rdt_mon_with_map(r, counters_of, &v);
	if (!ret) {
		v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
		memcpy(out, &v, v.sz);
	}
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_mon_set_rotation(rdtalloc_t *r, unsigned int period_ms,
					   unsigned int counters)
{
	struct rdt_rot_cfg *cfg;
	int ret;

	if (!r)
		return -EINVAL;
	if (period_ms && (period_ms < RDT_ROT_PERIOD_MIN || period_ms > RDT_ROT_PERIOD_MAX))
		return rdt_fail(r, -EINVAL, "turn period %u ms: must be %u..%u ms (0: the default, "
				"%u)", period_ms, RDT_ROT_PERIOD_MIN, RDT_ROT_PERIOD_MAX,
				RDT_ROT_PERIOD_MS);
	if (counters > RDT_ROT_COUNTERS_MAX)
		return rdt_fail(r, -EINVAL, "counters %u: at most %u per domain (0: all free)",
				counters, RDT_ROT_COUNTERS_MAX);
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	ret = rdt_mon_need(r);
	if (!ret) {
		cfg = &rdt_mon(rdt_core_state(r))->rot;
		cfg->period_ms = period_ms;
		cfg->counters = counters;
		rdt_core_mark_dirty(r);
	}
	return rdt_core_end(r, true, ret);
}

static int set_pin(rdtalloc_t *r, int g, bool on)
{
	struct rdt_rot_cfg *cfg = &rdt_mon(rdt_core_state(r))->rot;
	uint64_t seq = rdt_core_state(r)->groups[g].seq, *grown;
	unsigned int i;

	for (i = 0; i < cfg->npinned && cfg->pinned[i] != seq; i++)
		;
	if (on == (i < cfg->npinned))
		return 0;	/* as asked already */
	if (!on) {
		cfg->pinned[i] = cfg->pinned[--cfg->npinned];
		rdt_core_mark_dirty(r);
		return 0;
	}
	grown = realloc(cfg->pinned, (cfg->npinned + 1) * sizeof(*grown));
	if (!grown)
		return rdt_fail(r, -ENOMEM, "out of memory");
	cfg->pinned = grown;
	cfg->pinned[cfg->npinned++] = seq;
	rdt_core_mark_dirty(r);
	return 0;
}

RDTALLOC_API int rdtalloc_mon_pin(rdtalloc_t *r, const char *group, int pinned)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	if (pinned != 0 && pinned != 1)
		return rdt_fail(r, -EINVAL, "pinned %d: 1 to pin, 0 to unpin", pinned);
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_mon_need(r);
	if (!ret && g == 0)
		ret = rdt_fail(r, -EINVAL, "group 'default' keeps the counters the kernel gave it "
			       "at mount: nothing to pin");
	else if (!ret && rdt_mon_group_rmid(rdt_core_state(r), g) < 0)
		ret = rdt_fail(r, -EINVAL, "group '%s' has no RMID (out of RMIDs): it has no "
			       "counters to keep", rdt_core_state(r)->groups[g].name);
	if (!ret)
		ret = set_pin(r, g, pinned);
	return rdt_core_end(r, true, ret);
}
