// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/snc: Sub-NUMA Clustering (Intel SNC, resctrl since Linux 6.11).
 * The L3 monitoring scope is then a NUMA node: the kernel counts per node
 * (mon_data/mon_L3_XX/mon_sub_L3_NN/) and its mon_L3_XX files are their
 * sum, which rdtalloc_mon_read already reads. rdtalloc_mon_read_nodes gives
 * the nodes: on resctrl the kernel's files; on the simulator, whose model
 * is per L3 domain, each domain's counts split evenly over its nodes in
 * counter units (the lower nodes take the remainder), so that the nodes sum
 * to exactly what rdtalloc_mon_read says of the domain.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "monitor.h"
#include "telemetry.h"

static unsigned int snc_of(const rdtalloc_t *r)
{
	return rdt_core_machine(r)->mon.snc > 1 ? rdt_core_machine(r)->mon.snc : 1;
}

/* Monitoring, and more than one node per L3 domain. */
static int need_snc(rdtalloc_t *r)
{
	if (!rdt_mon(rdt_core_state(r))->nrmids)
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 monitoring (rdtctl info: "
				"\"monitoring\": null)");
	if (snc_of(r) < 2)
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no Sub-NUMA Clustering: its "
				"L3 domains are its monitoring domains (rdtalloc_mon_read)");
	if (!rdt_core_backend(r)->simulated && !rdt_core_backend(r)->mon_read_nodes)
		return rdt_fail(r, -EOPNOTSUPP, "per-node counters on backend %s are not built "
				"(docs/monitoring.md)", rdt_core_backend(r)->name);
	return 0;
}

/* Part k of n parts of units, the lower parts taking the remainder. */
static uint64_t share(uint64_t units, unsigned int k, unsigned int n)
{
	return units / n + (k < units % n);
}

/* The worst state of a node's events, as a domain's (unsupported only when nothing read). */
static int node_state(const int *state, unsigned int events, unsigned int *valid)
{
	static const int rank[] = { 0, 2, 4, 1, 3, 5 };	/* by enum rdtalloc_mon_state */
	int st = RDTALLOC_MON_OK;
	unsigned int e;

	*valid = 0;
	for (e = 0; e < 3; e++) {
		int s = state[e];

		if (!(events & (1u << e)))
			continue;
		if (s < 0 || s > RDTALLOC_MON_MISSING)
			s = RDTALLOC_MON_ERROR;
		if (s == RDTALLOC_MON_OK)
			*valid |= 1u << e;
		else if (rank[s] > rank[st])
			st = s;
	}
	return st == RDTALLOC_MON_UNSUPPORTED && *valid ? RDTALLOC_MON_OK : st;
}

/* Entry k of out (stride out[0].sz): one group's node. */
static void put_node(rdtalloc_t *r, struct rdtalloc_mon_node *out, size_t k, const char *group,
		     int rm, const struct rdt_node_raw *x, uint64_t now)
{
	size_t sz = out[0].sz;
	struct rdtalloc_mon_node v = { 0 };

	v.sz = sz < sizeof(v) ? sz : sizeof(v);
	snprintf(v.group, sizeof(v.group), "%s", group);
	v.rmid = rm < 0 ? RDTALLOC_RMID_NONE : rm;
	v.cache_id = rdt_core_machine(r)->dom[RDT_L3][x->dom].cache_id;
	v.node = x->node;
	v.time_ns = now;
	v.state = rm < 0 ? RDTALLOC_MON_UNSUPPORTED :
			   node_state(x->state, rdt_core_machine(r)->mon.events, &v.valid);
	if (v.valid & RDTALLOC_MON_EV_OCCUPANCY)
		v.llc_occupancy = x->val[0];
	if (v.valid & RDTALLOC_MON_EV_TOTAL)
		v.mbm_total = x->val[1];
	if (v.valid & RDTALLOC_MON_EV_LOCAL)
		v.mbm_local = x->val[2];
	memcpy((char *)out + k * sz, &v, v.sz);
}

/*
 * The simulator: rdtalloc_mon_read's domains (its own call: running totals
 * and wraps as it keeps them), each split over its nodes in counter units.
 */
static int sim_nodes(rdtalloc_t *r, const char *const *groups, size_t ngroups,
		     struct rdtalloc_mon_node *out, size_t max)
{
	unsigned int snc = snc_of(r), scale = rdt_core_machine(r)->mon.scale, k, e;
	struct rdtalloc_mon_value *v = NULL;
	size_t cap = 64, i, at = 0;
	int n;

	for (;;) {
		struct rdtalloc_mon_value *nv = realloc(v, cap * sizeof(*v));

		if (!nv) {
			free(v);
			return rdt_fail(r, -ENOMEM, "out of memory");
		}
		v = nv;
		v[0].sz = sizeof(*v);
		n = rdtalloc_mon_read(r, groups, ngroups, v, cap);
		if (n < 0 || (size_t)n <= cap)
			break;
		cap = (size_t)n;
	}
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		const uint64_t bytes[3] = { v[i].llc_occupancy, v[i].mbm_total, v[i].mbm_local };
		int d = rdt_machine_domain(rdt_core_machine(r), RDT_L3, v[i].cache_id);

		for (k = 0; k < snc; k++, at++) {
			struct rdt_node_raw x = { .dom = (unsigned int)d,
						  .node = (unsigned int)d * snc + k };

			if (at >= max)
				continue;
			for (e = 0; e < 3; e++) {
				bool ok = v[i].valid & (1u << e);

				x.state[e] = ok ? RDTALLOC_MON_OK : v[i].state;
				x.val[e] = ok ? share(bytes[e] / scale, k, snc) * scale : 0;
			}
			put_node(r, out, at, v[i].group, v[i].rmid, &x, v[i].time_ns);
		}
	}
	free(v);
	return n < 0 ? n : (int)at;
}

uint64_t rdt_tm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A kernel's nodes (resctrl), in one pass under the read lock. */
static int kernel_nodes(rdtalloc_t *r, const char *const *groups, size_t ngroups,
			struct rdtalloc_mon_node *out, size_t max)
{
	struct rdt_nodes nodes = { 0 };
	unsigned int n = 0;
	int *gs = NULL, ret;
	uint64_t now = rdt_tm_now_ns();
	size_t k;

	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = need_snc(r);
	if (!ret)
		ret = rdt_mon_pick_groups(r, groups, ngroups, &gs, &n);
	if (!ret)
		ret = rdt_core_backend(r)->mon_read_nodes(r, gs, n, &nodes);
	for (k = 0; !ret && k < nodes.n && k < max; k++) {
		int g = gs[nodes.v[k].gi];

		put_node(r, out, k, rdt_core_state(r)->groups[g].name,
			 rdt_mon_group_rmid(rdt_core_state(r), g), &nodes.v[k], now);
	}
	if (!ret)
		ret = (int)nodes.n;
	free(nodes.v);
	free(gs);
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_mon_read_nodes(rdtalloc_t *r, const char *const *groups, size_t ngroups,
					 struct rdtalloc_mon_node *out, size_t max)
{
	int ret;

	if (!r || (!out && max) || (!groups && ngroups))
		return -EINVAL;
	if (max && (ret = rdt_mon_check_sized(r, out[0].sz, "rdtalloc_mon_node")))
		return ret;
	if (!rdt_core_backend(r)->simulated)
		return kernel_nodes(r, groups, ngroups, out, max);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_end(r, false, need_snc(r));
	return ret ? ret : sim_nodes(r, groups, ngroups, out, max);
}
