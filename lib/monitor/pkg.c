// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/pkg: package telemetry (Intel AET through resctrl's PERF_PKG
 * resource, Linux 7.0): per group and package, the cumulative core_energy
 * (joules) and activity (farads) - fixed point the kernel prints with 6
 * decimals, kept here in millionths so that no digit is lost - and the
 * perf events' counts. The kernel's files on resctrl; on the simulator a
 * documented model driven by the L3 model's memory traffic
 * (docs/monitoring.md, "Package telemetry"). Values are what the kernel
 * counts: no totals of ours are kept, as its counters do not wrap.
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

/*
 * The simulator's model: the core spends SIM_NJ_PER_BYTE nanojoules per
 * byte of memory traffic (1 GB/s of misses: 1 W), its activity is that
 * energy over the square of a nominal 0.8 V core voltage (E = C V^2), and
 * every missed 64-byte line is one stall on an LLC miss. It has no cycles,
 * retired uops, hits or C-states: those events are unsupported there.
 */
#define SIM_NJ_PER_BYTE 1u
#define SIM_V2_PERCENT 64u		/* (0.8 V)^2 = 0.64 V^2 */
#define SIM_LINE 64u


/* the public enum is the machine's table of events, in the kernel's order */
_Static_assert(RDTALLOC_PKG_NEVENTS == RDT_PKG_NEVENTS, "PERF_PKG events");

RDTALLOC_API const char *rdtalloc_pkg_event_name(unsigned int e)
{
	return rdt_machine_pkg_event_name(e);
}

/* The machine's events as bits 1u << RDTALLOC_PKG_*. */
static unsigned int pkg_events(const struct rdt_machine *m)
{
	unsigned int e, bits = 0;

	for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++)
		if (m->pkg.groups & rdt_machine_pkg_event_group(e))
			bits |= 1u << e;
	return bits;
}

RDTALLOC_API int rdtalloc_pkg_get_info(rdtalloc_t *r, struct rdtalloc_pkg_info *info)
{
	struct rdtalloc_pkg_info v = { 0 };
	int ret;

	if (!r || !info)
		return -EINVAL;
	ret = rdt_mon_check_sized(r, info->sz, "rdtalloc_pkg_info");
	if (ret)
		return ret;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	v.sz = info->sz < sizeof(v) ? info->sz : sizeof(v);
	v.events = pkg_events(rdt_core_machine(r));
	if (v.events) {
		v.rmids = rdt_core_machine(r)->pkg.rmids;
		v.packages = rdt_core_machine(r)->npkg;
	}
	memcpy(info, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

static int need_pkg(rdtalloc_t *r)
{
	if (!rdt_core_machine(r)->pkg.groups)
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no package telemetry (resctrl's "
				"PERF_PKG, Intel AET: rdtctl info)");
	if (!rdt_mon(rdt_core_state(r))->nrmids)
		return rdt_fail(r, -EOPNOTSUPP, "package telemetry counts per RMID, and this "
				"machine has no L3 monitoring to give groups one");
	if (!rdt_core_backend(r)->simulated && !rdt_core_backend(r)->pkg_read)
		return rdt_fail(r, -EOPNOTSUPP, "package telemetry on backend %s is not built "
				"(docs/monitoring.md)", rdt_core_backend(r)->name);
	return 0;
}

/* The package index of L3 domain d: the one holding its first CPU (-1: none). */
static int pkg_of_domain(const struct rdt_machine *m, unsigned int d)
{
	const struct rdt_domain *dom = &m->dom[RDT_L3][d];
	unsigned int p, c;

	for (p = 0; dom->ncpus && p < m->npkg; p++)
		for (c = 0; c < m->pkgdom[p].ncpus; c++)
			if (m->pkgdom[p].cpus[c] == dom->cpus[0])
				return (int)p;
	return -1;
}

/*
 * The simulator: each RMID's memory traffic up to now (the model's totals
 * as of t0 and its rates since), summed over the L3 domains of each
 * package, turned into the events the model has. A package where the RMID
 * made no traffic yet reads Unavailable, as a fresh RMID does on AET.
 */
static int sim_pkg(rdtalloc_t *r, uint64_t now, int *state, uint64_t *val)
{
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	unsigned int npkg = rdt_core_machine(r)->npkg, nrm = ms->nrmids, d, rm, p, e;
	double dt = ms->t0 && now > ms->t0 ? (double)(now - ms->t0) / 1e9 : 0;
	struct rdt_mon_rates *rt = malloc(nrm * sizeof(*rt));
	double *bytes = calloc((size_t)nrm * npkg, sizeof(*bytes));
	int *fault = calloc((size_t)nrm * npkg, sizeof(*fault));
	int ret = 0;

	if (!rt || !bytes || !fault) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	for (d = 0; d < ms->ndom; d++) {
		int pk = pkg_of_domain(rdt_core_machine(r), d);

		if (pk < 0)
			continue;
		if (rdt_mon_model(rdt_core_state(r), d, rt) < 0) {
			ret = rdt_fail(r, -ENOMEM, "out of memory");
			goto out;
		}
		for (rm = 0; rm < nrm; rm++) {
			size_t at = (size_t)rm * npkg + (unsigned int)pk;

			bytes[at] += (double)ms->total[(size_t)rm * ms->ndom + d] + rt[rm].total * dt;
			if (rt[rm].fault)
				fault[at] = rt[rm].fault;
		}
	}
	for (rm = 0; rm < nrm; rm++) {
		for (p = 0; p < npkg; p++) {
			size_t at = (size_t)rm * npkg + p;
			uint64_t b = (uint64_t)bytes[at];
			uint64_t uj = b / (1000u / SIM_NJ_PER_BYTE);
			const uint64_t v[RDTALLOC_PKG_NEVENTS] = {
				[RDTALLOC_PKG_CORE_ENERGY] = uj,
				[RDTALLOC_PKG_ACTIVITY] = uj * 100u / SIM_V2_PERCENT,
				[RDTALLOC_PKG_STALLS_LLC_MISS] = b / SIM_LINE,
			};

			for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++) {
				bool modelled = e == RDTALLOC_PKG_CORE_ENERGY ||
						e == RDTALLOC_PKG_ACTIVITY ||
						e == RDTALLOC_PKG_STALLS_LLC_MISS;
				size_t k = at * RDTALLOC_PKG_NEVENTS + e;

				val[k] = v[e];
				state[k] = !modelled ? RDTALLOC_MON_UNSUPPORTED :
					   fault[at] ? fault[at] :
					   !b ? RDTALLOC_MON_UNAVAILABLE : RDTALLOC_MON_OK;
			}
		}
	}
out:
	free(rt);
	free(bytes);
	free(fault);
	return ret;
}

/* Group gs[i]'s values in package p from the raw table (kernel: per group; sim: per RMID). */
static void put_pkg(rdtalloc_t *r, struct rdtalloc_pkg_value *out, size_t k, int g,
		    unsigned int p, const int *state, const uint64_t *val, uint64_t now)
{
	size_t sz = out[0].sz;
	struct rdtalloc_pkg_value v = { 0 };
	int rm = rdt_mon_group_rmid(rdt_core_state(r), g);
	unsigned int e;

	v.sz = sz < sizeof(v) ? sz : sizeof(v);
	snprintf(v.group, sizeof(v.group), "%s", rdt_core_state(r)->groups[g].name);
	v.rmid = rm < 0 ? RDTALLOC_RMID_NONE : rm;
	v.package = (unsigned int)rdt_core_machine(r)->pkgdom[p].cache_id;
	v.events = pkg_events(rdt_core_machine(r));
	v.time_ns = now;
	for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++) {
		v.state[e] = RDTALLOC_MON_UNSUPPORTED;
		if (!(v.events & (1u << e)) || rm < 0)
			continue;	/* unmonitored: counted with the default group */
		v.state[e] = state[e];
		if (state[e] == RDTALLOC_MON_OK) {
			v.valid |= 1u << e;
			v.value[e] = val[e];
		}
	}
	memcpy((char *)out + k * sz, &v, v.sz);
}

RDTALLOC_API int rdtalloc_pkg_read(rdtalloc_t *r, const char *const *groups, size_t ngroups,
				   struct rdtalloc_pkg_value *out, size_t max)
{
	const size_t nev = RDTALLOC_PKG_NEVENTS;
	unsigned int n = 0, i, p, npkg;
	int *gs = NULL, *state = NULL, ret;
	uint64_t *val = NULL, now = rdt_tm_now_ns();
	size_t rows, k = 0;

	if (!r || (!out && max) || (!groups && ngroups))
		return -EINVAL;
	if (max && (ret = rdt_mon_check_sized(r, out[0].sz, "rdtalloc_pkg_value")))
		return ret;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = need_pkg(r);
	if (!ret)
		ret = rdt_mon_pick_groups(r, groups, ngroups, &gs, &n);
	if (ret)
		goto out;
	npkg = rdt_core_machine(r)->npkg;
	/* simulator: a row per RMID; kernel: a row per group asked for */
	rows = rdt_core_backend(r)->simulated ? rdt_mon(rdt_core_state(r))->nrmids : n;
	state = calloc(rows * npkg * nev + 1, sizeof(*state));
	val = calloc(rows * npkg * nev + 1, sizeof(*val));
	if (!state || !val) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	ret = rdt_core_backend(r)->simulated ? sim_pkg(r, now, state, val) :
					       rdt_core_backend(r)->pkg_read(r, gs, n, state, val);
	for (i = 0; !ret && i < n; i++) {
		int rm = rdt_mon_group_rmid(rdt_core_state(r), gs[i]);
		size_t row = rdt_core_backend(r)->simulated ? (size_t)(rm < 0 ? 0 : rm) : i;

		for (p = 0; p < npkg; p++, k++)
			if (k < max)
				put_pkg(r, out, k, gs[i], p, state + (row * npkg + p) * nev,
					val + (row * npkg + p) * nev, now);
	}
	if (!ret)
		ret = (int)k;
out:
	free(state);
	free(val);
	free(gs);
	return rdt_core_end(r, false, ret);
}
