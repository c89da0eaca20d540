// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_telemetry: Sub-NUMA nodes and package telemetry (monitor/snc.c,
 * monitor/pkg.c). The parsing of the kernel's value files (fixed point with
 * 6 decimals, counts, the states, what is refused); on the simulator, after
 * a replay of a known number of distinct lines (so that every count is
 * exact): the nodes of a domain summing to the domain, the remainder on the
 * lower nodes, the package's energy, activity and LLC-miss stalls from the
 * model's traffic, Unavailable where an RMID made none; the RMIDs the
 * lesser of L3's and PERF_PKG's; the errors of the calls.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_api_util.h"
#include "backends/resctrl_int.h"

#define SNC "preset=intel-gnr-snc3;topology=package:2 l3:1(size=15MiB) core:3 pu:1;tasks=virtual"
#define CWF "preset=intel-cwf;topology=package:2 l3:1(size=12MiB) core:2 pu:1;tasks=virtual"

static void parse_values(void **state)
{
	uint64_t v = 7;

	assert_int_equal(rc_parse_value("12.750000\n", true, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 12750000);
	assert_int_equal(rc_parse_value("0.000004\n", true, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 4);
	/* fewer places are millionths too; more are cut off */
	assert_int_equal(rc_parse_value("3.5\n", true, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 3500000);
	assert_int_equal(rc_parse_value("1.2345679\n", true, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 1234567);
	assert_int_equal(rc_parse_value("42\n", true, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 42000000);
	assert_int_equal(rc_parse_value("123456789\n", false, &v), RDTALLOC_MON_OK);
	assert_int_equal(v, 123456789);
	assert_int_equal(rc_parse_value("18446744073709551615\n", false, &v), RDTALLOC_MON_OK);
	assert_true(v == UINT64_MAX);
	v = 9;
	assert_int_equal(rc_parse_value("Unavailable\n", true, &v), RDTALLOC_MON_UNAVAILABLE);
	assert_int_equal(rc_parse_value("Error\n", false, &v), RDTALLOC_MON_ERROR);
	assert_int_equal(rc_parse_value("Unassigned\n", false, &v), RDTALLOC_MON_UNASSIGNED);
	assert_int_equal(v, 9);	/* a state leaves the value alone */
	/* refused: no newline, a sign, a fraction where a count is, overflow, junk */
	assert_int_equal(rc_parse_value("12.5", true, &v), -EINVAL);
	assert_int_equal(rc_parse_value("-1\n", false, &v), -EINVAL);
	assert_int_equal(rc_parse_value("1.5\n", false, &v), -EINVAL);
	assert_int_equal(rc_parse_value("1.\n", true, &v), -EINVAL);
	assert_int_equal(rc_parse_value("18446744073709551616\n", false, &v), -EINVAL);
	assert_int_equal(rc_parse_value("18446744073710.0\n", true, &v), -EINVAL);
	assert_int_equal(rc_parse_value("unavailable\n", false, &v), -EINVAL);
	assert_int_equal(rc_parse_value("\n", false, &v), -EINVAL);
	assert_int_equal(v, 9);
}

/* A lackey trace of n distinct 64-byte lines: n cold misses from an empty cache. */
static char *trace_of(unsigned int n)
{
	char *path = strdup("/tmp/rdt-tm-trace.XXXXXX");
	unsigned int i;
	FILE *f;
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		fprintf(f, " L %x,8\n", 0x100000 + i * 64);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void replay(rdtalloc_t *r, const char *group, int dom, unsigned int lines)
{
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_replay_group out = { .sz = sizeof(out) };
	const char *groups[1] = { group };
	char *path = trace_of(lines);
	const char *traces[1] = { path };

	assert_ok(r, rdtalloc_sim_replay(r, dom, 1, groups, traces, RDTALLOC_REPLAY_COUNT, &geo,
					 &out));
	assert_int_equal(out.misses, lines);
	unlink(path);
	free(path);
}

static void snc_nodes(void **state)
{
	rdtalloc_t *r = tu_eph(SNC);
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct rdtalloc_mon_node nd[12] = { { .sz = sizeof(nd[0]) } };
	struct rdtalloc_mon_value dv[2] = { { .sz = sizeof(dv[0]) } };
	const char *db[1] = { "db" };
	const uint64_t unit = 106496 / 3;	/* the scale, divided by the nodes */
	int n, k;

	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.snc_nodes, 3);
	assert_int_equal(mi.hw_rmids, 512);
	assert_int_equal(mi.rmids, 170);
	assert_int_equal(mi.scale, unit);
	assert_ok(r, rdtalloc_group_create(r, "db"));
	/* 100400 lines of 64 bytes: 6425600 bytes, 181 counts of 35498 bytes */
	replay(r, "db", 0, 100400);
	n = rdtalloc_mon_read(r, db, 1, dv, 2);
	assert_int_equal(n, 2);
	assert_int_equal(dv[0].llc_occupancy, 181 * unit);
	assert_int_equal(dv[0].mbm_total, 181 * unit);
	n = rdtalloc_mon_read_nodes(r, db, 1, nd, 12);
	assert_int_equal(n, 6);
	/* L3 0's nodes 0, 1, 2 (61, 60, 60 counts: the remainder on the lowest), L3 1's 3..5 */
	for (k = 0; k < 6; k++) {
		uint64_t want = k == 0 ? 61 * unit : k < 3 ? 60 * unit : 0;

		assert_string_equal(nd[k].group, "db");
		assert_int_equal(nd[k].rmid, 1);
		assert_int_equal(nd[k].cache_id, k < 3 ? 0 : 1);
		assert_int_equal(nd[k].node, k);
		assert_int_equal(nd[k].state, RDTALLOC_MON_OK);
		assert_int_equal(nd[k].valid, 7);
		assert_int_equal(nd[k].llc_occupancy, want);
		assert_int_equal(nd[k].mbm_total, want);
		assert_int_equal(nd[k].mbm_local, want);
	}
	assert_int_equal(nd[0].llc_occupancy + nd[1].llc_occupancy + nd[2].llc_occupancy,
			 dv[0].llc_occupancy);
	/* all groups: the default first; a short buffer still says how many */
	assert_int_equal(rdtalloc_mon_read_nodes(r, NULL, 0, nd, 2), 12);
	assert_string_equal(nd[0].group, "default");
	/* a fault of the model: the nodes take the domain's state, no numbers */
	{
		struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .fault = RDTALLOC_MON_ERROR };

		assert_ok(r, rdtalloc_sim_set_load(r, "db", 0, &ld));
	}
	assert_int_equal(rdtalloc_mon_read_nodes(r, db, 1, nd, 12), 6);
	assert_int_equal(nd[1].state, RDTALLOC_MON_ERROR);
	assert_int_equal(nd[1].valid, 0);
	assert_int_equal(nd[1].llc_occupancy, 0);
	assert_int_equal(nd[4].state, RDTALLOC_MON_OK);
	/* errors */
	{
		const char *nope[1] = { "nope" };

		assert_int_equal(rdtalloc_mon_read_nodes(r, nope, 1, nd, 12), -ENOENT);
		nd[0].sz = 2;
		assert_int_equal(rdtalloc_mon_read_nodes(r, db, 1, nd, 12), -EINVAL);
		tu_msg_has(rdtalloc_errmsg(r), "rdtalloc_mon_node.sz is 2");
		assert_int_equal(rdtalloc_mon_read_nodes(r, db, 1, NULL, 1), -EINVAL);
	}
	rdtalloc_close(r);
	/* no SNC: the domains are the nodes' whole story */
	r = tu_eph("topology=package:2 l3:1 core:2 pu:1;tasks=virtual");
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.snc_nodes, 1);
	assert_int_equal(mi.hw_rmids, mi.rmids);
	nd[0].sz = sizeof(nd[0]);
	assert_int_equal(rdtalloc_mon_read_nodes(r, NULL, 0, nd, 12), -EOPNOTSUPP);
	tu_msg_has(rdtalloc_errmsg(r), "no Sub-NUMA Clustering");
	rdtalloc_close(r);
}

static void pkg_energy(void **state)
{
	rdtalloc_t *r = tu_eph(CWF);
	struct rdtalloc_pkg_info pi = { .sz = sizeof(pi) };
	struct rdtalloc_pkg_value pv[8] = { { .sz = sizeof(pv[0]) } };
	const char *gs[2] = { "db", "idle" };
	unsigned int e;

	assert_ok(r, rdtalloc_pkg_get_info(r, &pi));
	assert_int_equal(pi.events, 0x1ff);
	assert_int_equal(pi.rmids, 576);
	assert_int_equal(pi.packages, 2);
	assert_string_equal(rdtalloc_pkg_event_name(RDTALLOC_PKG_CORE_ENERGY), "core_energy");
	assert_string_equal(rdtalloc_pkg_event_name(RDTALLOC_PKG_UOPS_RETIRED), "uops_retired");
	assert_null(rdtalloc_pkg_event_name(RDTALLOC_PKG_NEVENTS));
	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_ok(r, rdtalloc_group_create(r, "idle"));
	/* 100000 missed lines: 6400000 bytes at 1 nJ each, over (0.8 V)^2 */
	replay(r, "db", 0, 100000);
	assert_int_equal(rdtalloc_pkg_read(r, gs, 2, pv, 8), 4);
	assert_string_equal(pv[0].group, "db");
	assert_int_equal(pv[0].rmid, 1);
	assert_int_equal(pv[0].package, 0);
	assert_int_equal(pv[0].events, 0x1ff);
	assert_int_equal(pv[0].state[RDTALLOC_PKG_CORE_ENERGY], RDTALLOC_MON_OK);
	assert_int_equal(pv[0].value[RDTALLOC_PKG_CORE_ENERGY], 6400);	/* microjoules */
	assert_int_equal(pv[0].value[RDTALLOC_PKG_ACTIVITY], 10000);	/* microfarads */
	assert_int_equal(pv[0].value[RDTALLOC_PKG_STALLS_LLC_MISS], 100000);
	assert_int_equal(pv[0].valid, (1u << RDTALLOC_PKG_CORE_ENERGY) |
			 (1u << RDTALLOC_PKG_ACTIVITY) | (1u << RDTALLOC_PKG_STALLS_LLC_MISS));
	/* the model has no cycles, uops, hits or C-states */
	assert_int_equal(pv[0].state[RDTALLOC_PKG_UOPS_RETIRED], RDTALLOC_MON_UNSUPPORTED);
	assert_int_equal(pv[0].state[RDTALLOC_PKG_C6_RES], RDTALLOC_MON_UNSUPPORTED);
	/* no traffic in package 1, none at all for idle: Unavailable, never 0 */
	assert_int_equal(pv[1].package, 1);
	assert_int_equal(pv[1].state[RDTALLOC_PKG_CORE_ENERGY], RDTALLOC_MON_UNAVAILABLE);
	assert_int_equal(pv[1].valid, 0);
	for (e = 0; e < 2; e++) {
		assert_string_equal(pv[2 + e].group, "idle");
		assert_int_equal(pv[2 + e].state[RDTALLOC_PKG_ACTIVITY], RDTALLOC_MON_UNAVAILABLE);
		assert_int_equal(pv[2 + e].value[RDTALLOC_PKG_ACTIVITY], 0);
	}
	/* errors */
	pv[0].sz = 0;
	assert_int_equal(rdtalloc_pkg_read(r, gs, 2, pv, 8), -EINVAL);
	tu_msg_has(rdtalloc_errmsg(r), "rdtalloc_pkg_value.sz is 0");
	pv[0].sz = sizeof(pv[0]);
	{
		const char *nope[1] = { "nope" };

		assert_int_equal(rdtalloc_pkg_read(r, nope, 1, pv, 8), -ENOENT);
	}
	rdtalloc_close(r);
	r = tu_eph("topology=package:2 l3:1 core:2 pu:1;tasks=virtual");
	assert_ok(r, rdtalloc_pkg_get_info(r, &pi));
	assert_int_equal(pi.events, 0);
	assert_int_equal(pi.rmids, 0);
	assert_int_equal(rdtalloc_pkg_read(r, NULL, 0, pv, 8), -EOPNOTSUPP);
	tu_msg_has(rdtalloc_errmsg(r), "no package telemetry");
	rdtalloc_close(r);
}

/* The kernel gives groups the lesser of L3's and PERF_PKG's RMIDs. */
static void pkg_rmids(void **state)
{
	rdtalloc_t *r = tu_eph(CWF ";pkg.rmids=3");
	struct rdtalloc_pkg_value pv[2] = { { .sz = sizeof(pv[0]) } };
	const char *c[1] = { "c" };
	int rm = 0;

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_group_rmid(r, "b", &rm));
	assert_int_equal(rm, 2);
	assert_ok(r, rdtalloc_group_rmid(r, "c", &rm));
	assert_int_equal(rm, RDTALLOC_RMID_NONE);
	assert_int_equal(rdtalloc_pkg_read(r, c, 1, pv, 2), 2);
	assert_int_equal(pv[0].rmid, RDTALLOC_RMID_NONE);
	assert_int_equal(pv[0].state[RDTALLOC_PKG_CORE_ENERGY], RDTALLOC_MON_UNSUPPORTED);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_values),
		cmocka_unit_test(snc_nodes),
		cmocka_unit_test(pkg_energy),
		cmocka_unit_test(pkg_rmids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
