// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_machine: machine descriptions -> struct rdt_machine. Exact domains,
 * cache ids and CPU lists of synthetic topologies, defaults, overrides,
 * presets with overrides, the canonical form, every error with its exact
 * message, the O(1) CPU -> domain table, and the host checked against what
 * hwloc itself reports here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hwloc.h>

#include "machine.h"

#define ERRLEN 512

static struct rdt_machine *build_ok(const char *desc)
{
	struct rdt_machine *m = (void *)1;
	char err[ERRLEN] = "x";
	int ret = rdt_machine_build(desc, &m, err, sizeof(err));

	if (ret)
		fail_msg("'%s' failed: %d %s", desc ? desc : "(null)", ret, err);
	assert_non_null(m);
	assert_string_equal(err, "");
	return m;
}

static void expect_err(const char *desc, int want, const char *msg)
{
	struct rdt_machine *m = (void *)1;
	char err[ERRLEN] = "";
	int ret = rdt_machine_build(desc, &m, err, sizeof(err));

	if (ret != want || strcmp(err, msg))
		fail_msg("'%s': got %d '%s', want %d '%s'", desc, ret, err, want, msg);
	assert_null(m);
}

/* Domain i of res has cache id `id` and exactly the CPUs in list (terminated by -1). */
static void check_dom(const struct rdt_machine *m, enum rdt_res r, unsigned int i,
		      unsigned int id, const int *cpus)
{
	const struct rdt_domain *d;
	unsigned int n = 0;

	assert_true(i < m->ndom[r]);
	d = &m->dom[r][i];
	assert_int_equal(d->cache_id, id);
	while (cpus[n] >= 0)
		n++;
	assert_int_equal(d->ncpus, n);
	for (n = 0; n < d->ncpus; n++) {
		assert_int_equal(d->cpus[n], cpus[n]);
		assert_int_equal(rdt_machine_cpu_domain(m, r, cpus[n]), (int)i);
	}
	assert_int_equal(rdt_machine_domain(m, r, id), (int)i);
}

static void check_caps(const struct rdt_caps *c, unsigned int closids, unsigned int len,
		       unsigned int min, uint64_t shareable, bool cdp, bool sparse)
{
	assert_true(c->present);
	assert_int_equal(c->closids, closids);
	assert_int_equal(c->cbm_len, len);
	assert_int_equal(c->min_cbm_bits, min);
	assert_int_equal(c->shareable_bits, shareable);
	assert_int_equal(c->cdp, cdp);
	assert_int_equal(c->sparse, sparse);
}

static void test_two_sockets(void **state)
{
	struct rdt_machine *m = build_ok("topology=package:2 l3:1 core:2 pu:1");
	const int d0[] = { 0, 1, -1 }, d1[] = { 2, 3, -1 };
	unsigned int c;

	assert_int_equal(m->ncpus, 4);
	for (c = 0; c < 4; c++)
		assert_true(m->cpu_present[c]);
	assert_int_equal(m->ndom[RDT_L3], 2);
	check_dom(m, RDT_L3, 0, 0, d0);
	check_dom(m, RDT_L3, 1, 1, d1);
	check_caps(&m->caps[RDT_L3], 16, 20, 1, 0, true, false);
	assert_false(m->caps[RDT_L2].present);
	assert_int_equal(m->ndom[RDT_L2], 0);
	assert_null(m->dom[RDT_L2]);
	assert_false(m->virtual_tasks);
	assert_string_equal(m->vendor, "sim");
	assert_string_equal(m->model, "synthetic");
	assert_string_equal(m->desc, "topology=package:2 l3:1 core:2 pu:1;l3.closids=16;"
			    "l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;"
			    "l3.sparse=0;tasks=real");
	assert_int_equal(m->dom[RDT_L3][0].cache_size, 16 * 1024 * 1024);
	/* lookups outside the machine */
	assert_int_equal(rdt_machine_domain(m, RDT_L3, 2), -1);
	assert_int_equal(rdt_machine_domain(m, RDT_L2, 0), -1);
	assert_int_equal(rdt_machine_cpu_domain(m, RDT_L3, 4), -1);
	assert_int_equal(rdt_machine_cpu_domain(m, RDT_L3, -1), -1);
	assert_int_equal(rdt_machine_cpu_domain(m, RDT_L2, 0), -1);
	assert_int_equal(rdt_machine_cpu_domain(m, RDT_NRES, 0), -1);
	rdt_machine_free(m);
}

/* The example of the brief: 2 packages, 4 cores, 2 threads. */
static void test_smt_topology(void **state)
{
	struct rdt_machine *m = build_ok("topology=package:2 l3:1 core:4 pu:2");
	const int d0[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
	const int d1[] = { 8, 9, 10, 11, 12, 13, 14, 15, -1 };

	assert_int_equal(m->ncpus, 16);
	check_dom(m, RDT_L3, 0, 0, d0);
	check_dom(m, RDT_L3, 1, 1, d1);
	assert_string_equal(m->desc, "topology=package:2 l3:1 core:4 pu:2;l3.closids=16;"
			    "l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;"
			    "l3.sparse=0;tasks=real");
	rdt_machine_free(m);
}

/* Several L3 per package (AMD CCX, SNC): ids are logical across packages. */
static void test_l3_per_ccx(void **state)
{
	struct rdt_machine *m = build_ok("topology=package:2 l3:3 core:2 pu:1");
	const int d[6][3] = { { 0, 1, -1 }, { 2, 3, -1 }, { 4, 5, -1 },
			      { 6, 7, -1 }, { 8, 9, -1 }, { 10, 11, -1 } };
	unsigned int i;

	assert_int_equal(m->ndom[RDT_L3], 6);
	for (i = 0; i < 6; i++)
		check_dom(m, RDT_L3, i, i, d[i]);
	rdt_machine_free(m);
}

/* PU OS indexes interleaved: CPU lists follow os_index, not position. */
static void test_interleaved_pus(void **state)
{
	struct rdt_machine *m = build_ok("topology=package:2 l3:1 core:2 pu:1(indexes=0,2,1,3)");
	const int d0[] = { 0, 2, -1 }, d1[] = { 1, 3, -1 };

	check_dom(m, RDT_L3, 0, 0, d0);
	check_dom(m, RDT_L3, 1, 1, d1);
	rdt_machine_free(m);
}

static void test_l2(void **state)
{
	struct rdt_machine *m =
		build_ok("topology=package:1 l3:1 l2:2 core:1 pu:2;l2.closids=8;l2.cbm_len=8");
	const int l3[] = { 0, 1, 2, 3, -1 }, a[] = { 0, 1, -1 }, b[] = { 2, 3, -1 };

	check_dom(m, RDT_L3, 0, 0, l3);
	assert_int_equal(m->ndom[RDT_L2], 2);
	check_dom(m, RDT_L2, 0, 0, a);
	check_dom(m, RDT_L2, 1, 1, b);
	check_caps(&m->caps[RDT_L2], 8, 8, 1, 0, true, false);
	assert_string_equal(m->desc, "topology=package:1 l3:1 l2:2 core:1 pu:2;l3.closids=16;"
			    "l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;"
			    "l3.sparse=0;l2.closids=8;l2.cbm_len=8;l2.min_cbm_bits=1;"
			    "l2.shareable_bits=0;l2.cdp=1;l2.sparse=0;tasks=real");
	rdt_machine_free(m);
}

/* L2 only: no L3 in the topology, or L3 switched off. */
static void test_l2_only(void **state)
{
	struct rdt_machine *m = build_ok("topology=package:1 l2:2 core:2 pu:1;l2.closids=4;"
					 "l2.cdp=0");
	const int a[] = { 0, 1, -1 }, b[] = { 2, 3, -1 };

	assert_false(m->caps[RDT_L3].present);
	assert_int_equal(m->ndom[RDT_L3], 0);
	assert_int_equal(rdt_machine_cpu_domain(m, RDT_L3, 0), -1);
	check_dom(m, RDT_L2, 0, 0, a);
	check_dom(m, RDT_L2, 1, 1, b);
	check_caps(&m->caps[RDT_L2], 4, 20, 1, 0, false, false);
	assert_string_equal(m->desc, "topology=package:1 l2:2 core:2 pu:1;l3.closids=0;"
			    "l2.closids=4;l2.cbm_len=20;l2.min_cbm_bits=1;l2.shareable_bits=0;"
			    "l2.cdp=0;l2.sparse=0;tasks=real");
	rdt_machine_free(m);

	m = build_ok("topology=package:1 l3:1 l2:2 core:1 pu:1;l3.closids=0;l2.closids=2");
	assert_false(m->caps[RDT_L3].present);
	assert_int_equal(m->ndom[RDT_L2], 2);
	assert_string_equal(m->desc, "topology=package:1 l3:1 l2:2 core:1 pu:1;l3.closids=0;"
			    "l2.closids=2;l2.cbm_len=20;l2.min_cbm_bits=1;l2.shareable_bits=0;"
			    "l2.cdp=1;l2.sparse=0;tasks=real");
	rdt_machine_free(m);
}

static void test_overrides(void **state)
{
	struct rdt_machine *m = build_ok(" topology = package:2   l3:1 core:2 pu:1 ;;"
					 "l3.closids=7; l3.cdp=0 ;l3.cbm_len=11;"
					 "l3.min_cbm_bits=2;l3.shareable_bits=600;l3.sparse=1;"
					 "tasks=virtual;");

	check_caps(&m->caps[RDT_L3], 7, 11, 2, 0x600, false, true);
	assert_true(m->virtual_tasks);
	assert_string_equal(m->desc, "topology=package:2 l3:1 core:2 pu:1;l3.closids=7;"
			    "l3.cbm_len=11;l3.min_cbm_bits=2;l3.shareable_bits=0x600;l3.cdp=0;"
			    "l3.sparse=1;tasks=virtual");
	rdt_machine_free(m);

	/* 64-bit CBMs and the largest CLOSID count */
	m = build_ok("topology=package:1 l3:1 core:1 pu:1;l3.cbm_len=64;l3.closids=4096;"
		     "l3.shareable_bits=0xffffffffffffffff;l3.min_cbm_bits=64");
	check_caps(&m->caps[RDT_L3], 4096, 64, 64, UINT64_MAX, true, false);
	rdt_machine_free(m);
}

/* Descriptions of one machine give one canonical string, and it rebuilds itself. */
static void test_canonical(void **state)
{
	static const char *const same[] = {
		"topology=package:2 l3:1 core:2 pu:1",
		"topology=package:2 l3:1 core:2 pu:1;tasks=real",
		"l3.cdp=1; topology=  package:2 l3:1\tcore:2 pu:1  ;l3.closids=16",
		("l3.sparse=0;l3.shareable_bits=0x0;l3.min_cbm_bits=1;l3.cbm_len=20;"
		 "topology=package:2 l3:1 core:2 pu:1"),
		"TOPOLOGY=package:2 l3:1 core:2 pu:1;L3.CLOSIDS=16",
		/* hwloc's other names and abbreviations of the same levels */
		"topology=pack:2 l3:1 core:2 pu:1",
		"topology=Package:2 L3Cache:1 Core:2 PU:1",
		"topology=socket:2 l3cache:1 co:2 pu:1",
	};
	struct rdt_machine *m0 = build_ok(same[0]), *m;
	unsigned int i;

	for (i = 1; i < sizeof(same) / sizeof(same[0]); i++) {
		m = build_ok(same[i]);
		assert_string_equal(m->desc, m0->desc);
		rdt_machine_free(m);
	}
	m = build_ok(m0->desc);
	assert_string_equal(m->desc, m0->desc);
	rdt_machine_free(m);
	/* a different machine, a different string */
	m = build_ok("topology=package:2 l3:1 core:2 pu:1;l3.closids=14");
	assert_string_not_equal(m->desc, m0->desc);
	rdt_machine_free(m);
	rdt_machine_free(m0);

	/* a preset and its own expansion are the same machine */
	m0 = build_ok("preset=broadwell-ep");
	m = build_ok("topology=package:2 l3:1(size=56320KiB) core:22 pu:2;l3.closids=16;l3.cbm_len=20;"
		     "l3.min_cbm_bits=1;l3.shareable_bits=0xc0000;l3.cdp=1;l3.sparse=0;"
		     "mon.rmids=64;mon.scale=32768;mon.width=24");
	assert_string_equal(m->desc, m0->desc);
	rdt_machine_free(m);
	rdt_machine_free(m0);
}

static void test_preset_overrides(void **state)
{
	struct rdt_machine *a = build_ok("preset=skylake-sp;l3.closids=8;tasks=virtual");
	struct rdt_machine *b = build_ok("l3.closids=8 ; tasks=virtual;preset=skylake-sp");

	check_caps(&a->caps[RDT_L3], 8, 11, 1, 0x600, true, false);
	assert_true(a->virtual_tasks);
	assert_string_equal(a->desc, "topology=package:2 l3:1(size=33792KiB) core:24 pu:2;l3.closids=8;"
			    "l3.cbm_len=11;l3.min_cbm_bits=1;l3.shareable_bits=0x600;l3.cdp=1;"
			    "l3.sparse=0;mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10;"
			    "mb.max=100;mon.rmids=192;mon.scale=98304;mon.width=24;"
			    "mon.events=llc_occupancy,mbm_total_bytes,mbm_local_bytes;"
			    "mon.threshold=98304;mon.bw=20000000000;tasks=virtual");
	assert_string_equal(a->desc, b->desc);
	assert_string_equal(a->vendor, "GenuineIntel");
	assert_string_equal(a->model, "skylake-sp");
	rdt_machine_free(a);
	rdt_machine_free(b);

	/* the topology of a preset is a key like any other */
	a = build_ok("preset=amd-milan;topology=package:1 l3:2 core:2 pu:1");
	check_caps(&a->caps[RDT_L3], 16, 16, 0, 0, true, true);
	assert_int_equal(a->ndom[RDT_L3], 2);
	assert_int_equal(a->ncpus, 4);
	rdt_machine_free(a);

	/* a preset's L2 falls away with a topology that has none */
	a = build_ok("preset=sapphirerapids-sp;topology=package:1 l3:1 core:2 pu:1");
	assert_false(a->caps[RDT_L2].present);
	check_caps(&a->caps[RDT_L3], 15, 15, 1, 0x6000, false, false);
	rdt_machine_free(a);
}

/*
 * The keys of the 6.14-7.2 features: defaults, the canonical form (each key
 * only when it is not the default, so older descriptions keep theirs), and
 * every error with its message.
 */
static void test_feature_keys(void **state)
{
	struct rdt_machine *m;

	m = build_ok("topology=package:2 l3:1 core:2 pu:1;mon.cntrs=4");
	assert_int_equal(m->mon.cntrs, 4);
	assert_true(m->mon.assign);
	assert_true(m->mon.assign_on_mkdir);
	assert_int_equal(m->mon.abmc, RDT_ABMC_6_18);
	assert_string_equal(m->desc, "topology=package:2 l3:1 core:2 pu:1;l3.closids=16;"
			    "l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;"
			    "l3.sparse=0;mon.rmids=128;mon.scale=65536;mon.width=24;mon.events="
			    "llc_occupancy,mbm_total_bytes,mbm_local_bytes;mon.threshold=131072;"
			    "mon.bw=20000000000;mon.cntrs=4;mon.assign=mbm_event;"
			    "mon.assign_on_mkdir=1;tasks=real");
	rdt_machine_free(m);
	m = build_ok("topology=package:1 l3:1 core:2 pu:1;mon.cntrs=4;mon.assign=default;"
		     "mon.assign_on_mkdir=0;l3.io_alloc=1;pkg.events=perf;pkg.rmids=8");
	assert_false(m->mon.assign);
	assert_false(m->mon.assign_on_mkdir);
	assert_true(m->caps[RDT_L3].io_alloc);
	assert_int_equal(m->pkg.groups, RDT_PKG_PERF);
	assert_int_equal(m->pkg.rmids, 8);
	assert_int_equal(m->npkg, 1);
	assert_non_null(strstr(m->desc, ";mon.cntrs=4;mon.assign=default;mon.assign_on_mkdir=0;"
			       "l3.io_alloc=1;pkg.events=perf;pkg.rmids=8;tasks=real"));
	rdt_machine_free(m);
	/* Linux 7.2's follow-ups: said in the description, so a state keeps them */
	m = build_ok("topology=package:1 l3:1 core:2 pu:1;mon.cntrs=4;mon.abmc=7.2-ro");
	assert_int_equal(m->mon.abmc, RDT_ABMC_7_2_RO);
	assert_non_null(strstr(m->desc, ";mon.assign_on_mkdir=1;mon.abmc=7.2-ro;tasks=real"));
	rdt_machine_free(m);
	m = build_ok("topology=package:1 l3:2 core:3 pu:1;mon.snc=3;mon.rmids=100");
	assert_int_equal(m->mon.rmids, 33);
	assert_int_equal(m->mon.hw_rmids, 100);
	assert_int_equal(m->mon.scale, 21845);
	assert_int_equal(rdt_machine_snc_node(m, 2), 2);
	assert_int_equal(rdt_machine_snc_node(m, 3), 3);
	assert_non_null(strstr(m->desc, "mon.rmids=100;mon.scale=65536;"));
	assert_non_null(strstr(m->desc, ";mon.snc=3;tasks=real"));
	rdt_machine_free(m);
	/* the canonical form builds the same machine */
	m = build_ok("preset=arm-mpam");
	{
		struct rdt_machine *m2 = build_ok(m->desc);

		assert_string_equal(m2->desc, m->desc);
		assert_true(m2->mpam);
		rdt_machine_free(m2);
	}
	assert_non_null(strstr(m->desc, ";arch=mpam;tasks=real"));
	rdt_machine_free(m);
}

static void test_feature_key_errors(void **state)
{
	const char *t = "topology=package:1 l3:1 core:2 pu:1;";
	char d[256];
	static const struct {
		const char *keys, *msg;
	} c[] = {
		{ "mon.cntrs=2000", "mon.cntrs=2000: must be 0..1024" },
		{ "mon.assign=on", "mon.assign=on: must be 'mbm_event' or 'default'" },
		{ "mon.assign=mbm_event", "mon.assign=mbm_event: needs assignable counters "
		  "(mon.cntrs)" },
		{ "mon.assign_on_mkdir=1", "mon.assign_on_mkdir=1: needs assignable counters "
		  "(mon.cntrs)" },
		{ "mon.assign_on_mkdir=2", "mon.assign_on_mkdir=2: must be 0..1" },
		{ "mon.cntrs=4;mon.abmc=7.1", "mon.abmc=7.1: must be '6.18', '7.2' or '7.2-ro'" },
		{ "mon.abmc=7.2", "mon.abmc=7.2: needs assignable counters (mon.cntrs)" },
		{ "mon.cntrs=4;mon.abmc=7.2;mb.closids=8;mb.units=mbps", "mb.units=mbps: Linux 7.2 "
		  "(mon.abmc=7.2) refuses mba_MBps where MBM counters are assignable (mon.cntrs=4)" },
		{ "mon.cntrs=4;mon.events=llc_occupancy", "mon.cntrs=4: counters are assigned "
		  "to MBM events and mon.events has none" },
		{ "mon.cntrs=4;mon.snc=2", "mon.cntrs=4: assignable counters and SNC (mon.snc=2) "
		  "do not coexist (the kernel cannot sum them)" },
		{ "mon.snc=0", "mon.snc=0: must be 1..8" },
		{ "mon.snc=3", "mon.snc=3: L3 cache id 0 has 2 CPUs, fewer than its nodes" },
		{ "mon.snc=2;mon.rmids=1", "mon.snc=2: fewer RMIDs (mon.rmids=1) than nodes" },
		{ "mon.rmids=0;mon.cntrs=4", "mon.cntrs=4: L3 monitoring is off (mon.rmids=0)" },
		{ "l3.io_alloc=2", "l3.io_alloc=2: must be 0 or 1" },
		{ "l3.closids=0;l2.closids=4;l3.io_alloc=1", "l2.closids=4: the topology has no "
		  "L2 cache" },
		{ "pkg.events=power", "pkg.events=power: unknown group 'power' (known: energy, "
		  "perf, or none)" },
		{ "pkg.events=perf,perf", "pkg.events=perf,perf: group 'perf' given twice" },
		{ "pkg.rmids=8", "pkg.rmids=8: needs pkg.events" },
		{ "pkg.events=energy;pkg.rmids=0", "pkg.rmids=0: must be 1..1024" },
		{ "arch=riscv", "arch=riscv: must be 'x86' or 'mpam'" },
		{ "arch=mpam", "arch=mpam: l3.cdp=1: MPAM's resctrl has no CDP" },
		{ "arch=mpam;l3.cdp=0", "arch=mpam: l3.sparse=0: MPAM's portion bitmaps take "
		  "any mask" },
		{ "arch=mpam;l3.cdp=0;l3.sparse=1", "arch=mpam: l3.shareable_bits=0x0: MPAM shows "
		  "the whole mask (0xfffff) as shareable" },
		{ "arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff",
		  "arch=mpam: mon.events: 7.1's MPAM counts llc_occupancy only" },
		{ "arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff;mb.closids=4;"
		  "mb.units=amd", "arch=mpam: MB is in percent (mb.units=percent)" },
		{ "arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff;"
		  "mon.events=llc_occupancy;l3.io_alloc=1", "arch=mpam: l3.io_alloc is x86 only" },
		{ "arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff;"
		  "mon.events=llc_occupancy;pkg.events=energy", "arch=mpam: pkg.events is x86 only" },
	};
	char msg[512];
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(d, sizeof(d), "%s%s", t, c[i].keys);
		snprintf(msg, sizeof(msg), "machine description: %s", c[i].msg);
		expect_err(d, -EINVAL, msg);
	}
	expect_err("topology=l3:1 core:2 pu:1;pkg.events=energy", -EINVAL,
		   "machine description: pkg.events=energy: the topology has no package");
	expect_err("topology=package:1 l2:1 core:2 pu:1;l3.closids=0;l2.closids=4;l3.io_alloc=1",
		   -EINVAL, "machine description: l3.io_alloc=1: needs L3 allocation");
}

static void test_errors(void **state)
{
	const char *t = "topology=package:2 l3:1 core:2 pu:1;";
	char d[256];

	expect_err("l3.foo=1", -EINVAL, "machine description: unknown key 'l3.foo'");
	expect_err("topology=package:1 l3:1 pu:1;l3.cbm_len=70", -EINVAL,
		   "machine description: l3.cbm_len=70: must be 1..64");
	expect_err("l3.cbm_len=0", -EINVAL, "machine description: l3.cbm_len=0: must be 1..64");
	expect_err("topology=xx", -EINVAL, "machine description: topology 'xx': each level must be "
		   "TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')");
	/* Found by fuzz_machine: hwloc accepted this and allocated gigabytes. */
	expect_err("topology=pa\xff\xff" "c2 kage:3 l3:11", -EINVAL,
		   "machine description: topology: byte 0xff at offset 2 is not allowed (only "
		   "letters, digits, spaces and ':()[]=,*')");
	expect_err("topology=pac2 kage:3 l3:11", -EINVAL,
		   "machine description: topology 'pac2 kage:3 l3:11': each level must be "
		   "TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')");
	expect_err("topology=package:2 frob:3 pu:1", -EINVAL,
		   "machine description: topology 'package:2 frob:3 pu:1': hwloc rejects it");
	expect_err("topology=", -EINVAL, "machine description: topology '': hwloc rejects it");
	expect_err("topology=package:2 l3:1 core:2 pu:1;topology=package:1 l3:1 pu:1", -EINVAL,
		   "machine description: key 'topology' given twice");
	expect_err("l3.closids=4;l3.cdp=0;l3.closids=4", -EINVAL,
		   "machine description: key 'l3.closids' given twice");
	expect_err("preset=skylake-sp;preset=skylake-sp", -EINVAL,
		   "machine description: key 'preset' given twice");
	expect_err("topology=package:1 l3:1 pu:1;l3.closids", -EINVAL,
		   "machine description: item 'l3.closids' is not key=value");
	expect_err("l3.closids=abc", -EINVAL, "machine description: l3.closids=abc: not a number");
	expect_err("l3.closids=-1", -EINVAL, "machine description: l3.closids=-1: not a number");
	expect_err("l3.closids=", -EINVAL, "machine description: l3.closids=: not a number");
	expect_err("l3.shareable_bits=0xg", -EINVAL,
		   "machine description: l3.shareable_bits=0xg: not a hex number");
	expect_err("l3.closids=5000", -EINVAL,
		   "machine description: l3.closids=5000: must be 0..4096");
	expect_err("l3.cdp=2", -EINVAL, "machine description: l3.cdp=2: must be 0 or 1");
	expect_err("l2.sparse=yes", -EINVAL, "machine description: l2.sparse=yes: not a number");
	expect_err("tasks=maybe", -EINVAL,
		   "machine description: tasks=maybe: must be 'real' or 'virtual'");
	expect_err("preset=pentium", -EINVAL,
		   "machine description: unknown preset 'pentium' (known: haswell-ep, "
		   "broadwell-ep, skylake-sp, cascadelake-sp, icelake-sp, sapphirerapids-sp, "
		   "atom-c3000, amd-milan, amd-genoa, amd-turin, intel-gnr-snc3, intel-cwf, "
		   "arm-mpam)");
	expect_err("topology=pu:5000", -EINVAL,
		   "machine description: topology 'pu:5000' has more than 4096 PUs");
	expect_err("topology=package:64 l3:1 core:64 pu:2", -EINVAL,
		   "machine description: topology 'package:64 l3:1 core:64 pu:2' has more than "
		   "4096 PUs");
	expect_err("topology=package:2 core:2 pu:1", -EINVAL,
		   "machine description: no allocation resource: the topology has no L3 cache "
		   "and no l2.closids given");
	snprintf(d, sizeof(d), "%sl3.closids=0", t);
	expect_err(d, -EINVAL, "machine description: no allocation resource: l3.closids=0 and "
		   "no l2.closids given");
	snprintf(d, sizeof(d), "%sl2.closids=4", t);
	expect_err(d, -EINVAL, "machine description: l2.closids=4: the topology has no L2 cache");
	expect_err("topology=package:2 core:2 pu:1;l3.closids=16", -EINVAL,
		   "machine description: l3.closids=16: the topology has no L3 cache");
	expect_err("topology=package:1 l2:2 pu:1;l2.cbm_len=8", -EINVAL,
		   "machine description: l2.cbm_len=8: L2 allocation needs l2.closids");
	snprintf(d, sizeof(d), "%sl3.closids=0;l3.cbm_len=11", t);
	expect_err(d, -EINVAL,
		   "machine description: l3.cbm_len=11: L3 allocation is off (l3.closids=0)");
	expect_err("topology=package:1 l2:1 l3:2 core:1 pu:1;l2.closids=4", -EINVAL,
		   "machine description: L2 cache id 0 spans L3 cache ids 0 and 1 (an L2 domain "
		   "must lie inside one L3 domain)");
	snprintf(d, sizeof(d), "%sl3.cbm_len=8;l3.min_cbm_bits=9", t);
	expect_err(d, -EINVAL, "machine description: l3.min_cbm_bits=9: must be 0..8");
	/* 0: an empty mask is valid, as on AMD (the kernel's min_cbm_bits) */
	snprintf(d, sizeof(d), "%sl3.min_cbm_bits=0", t);
	{
		struct rdt_machine *m0 = build_ok(d);

		assert_int_equal(m0->caps[RDT_L3].min_cbm_bits, 0);
		rdt_machine_free(m0);
	}
	snprintf(d, sizeof(d), "%sl3.shareable_bits=0x100000", t);
	expect_err(d, -EINVAL, "machine description: l3.shareable_bits=0x100000: bits beyond "
		   "the 20-bit CBM");
	snprintf(d, sizeof(d), "%sl3.closids=15", t);
	expect_err(d, -EINVAL, "machine description: l3.closids=15: must be even and at least 2 "
		   "with l3.cdp=1 (CDP halves them)");
	snprintf(d, sizeof(d), "%sl3.closids=15;l3.cdp=0", t);
	rdt_machine_free(build_ok(d));
	/* a preset's keys are checked like the caller's */
	expect_err("preset=haswell-ep;l3.cdp=1;l3.closids=3", -EINVAL,
		   "machine description: l3.closids=3: must be even and at least 2 with l3.cdp=1 "
		   "(CDP halves them)");
}

/* "topology=" and `n` copies of level, then tail; the caller frees it. */
static char *topo_repeat(const char *head, const char *level, unsigned int n, const char *tail)
{
	size_t len = strlen("topology=") + strlen(head) + n * strlen(level) + strlen(tail) + 1;
	char *d = malloc(len);
	unsigned int i;

	assert_non_null(d);
	snprintf(d, len, "topology=%s", head);
	for (i = 0; i < n; i++)
		strcat(d, level);
	strcat(d, tail);
	return d;
}

/*
 * Found by fuzz_machine (tests/fuzz/corpus/fuzz_machine/err-hwloc-overflow):
 * 126 levels and no NUMA level made hwloc's NUMA insertion write past its
 * 128-entry level array, and glibc aborted the process. The first is the
 * smallest such topology; the fuzzer's was garbled tokens that hwloc read
 * as l2 and l3 levels; then tokens that hwloc would read as several levels.
 */
static void test_hwloc_level_overflow(void **state)
{
	char *d = topo_repeat("", "l2:1 ", 125, "pu:1");

	expect_err(d, -EINVAL, "machine description: topology 'l2:1 l2:1 l2:1 l2:1 l2:1 l2:1 "
		   "l2:1 l2:1 ...': 126 levels, at most 32");
	free(d);
	/* hwloc reads on after a ')': one token would be 124 levels to it */
	d = topo_repeat("package:1 ", "l2:1(size=1)", 124, " pu:1");
	expect_err(d, -EINVAL, "machine description: topology 'package:1 l2:1(size=1)l2:1(size="
		   "1)l2:1(s...': each level must be TYPE:COUNT (e.g. 'package:2 l3:1 core:4 "
		   "pu:2')");
	free(d);
	/* hwloc ends [numa at the first ']': l3, core and pu hidden in one */
	expect_err("topology=package:1 [numa(indexes=0]l3:1core:2pu:64[numa)]", -EINVAL,
		   "machine description: topology 'package:1 [numa(indexes=0]l3:1core:2pu:6...': "
		   "each level must be TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')");
	expect_err("topology=package:1 l3:1 core:2pu:1", -EINVAL,
		   "machine description: topology 'package:1 l3:1 core:2pu:1': each level must "
		   "be TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')");
	expect_err("topology=package:1 [numa l3:1 pu:2", -EINVAL,
		   "machine description: topology 'package:1 [numa l3:1 pu:2': each level must "
		   "be TYPE:COUNT (e.g. 'package:2 l3:1 core:4 pu:2')");
	expect_err("topology=pAckage:1 l2:1 l3\xdf\xdfpAckage:1 l2:1 l3:4 core:1 pu:1;"
		   "l2.closids=4", -EINVAL,
		   "machine description: topology: byte 0xdf at offset 17 is not allowed (only "
		   "letters, digits, spaces and ':()[]=,*')");
}

/* At most 32 levels; [numa] is memory attached to a level, not one. */
static void test_topology_levels(void **state)
{
	struct rdt_machine *m;
	char *d;

	d = topo_repeat("package:1 l3:1 ", "group:1 ", 28, "core:2 pu:1");
	m = build_ok(d);
	assert_int_equal(m->ncpus, 2);
	assert_int_equal(m->ndom[RDT_L3], 1);
	rdt_machine_free(m);
	free(d);
	d = topo_repeat("package:1 [numa] l3:1 ", "group:1 [numa] ", 28, "core:2 pu:1");
	rdt_machine_free(build_ok(d));
	free(d);
	d = topo_repeat("package:1 l3:1 ", "group:1 ", 29, "core:2 pu:1");
	expect_err(d, -EINVAL, "machine description: topology 'package:1 l3:1 group:1 group:1 "
		   "group:1 g...': 33 levels, at most 32");
	free(d);
}

/* Only the characters of the grammar reach hwloc. */
static void test_topology_chars(void **state)
{
	struct rdt_machine *m;

	/* every allowed character, in the places the grammar puts them */
	m = build_ok("topology=package:2 [numa(memory=1GiB)] l3:1(size=32MiB) core:2 "
		     "pu:2(indexes=2*4:1*2)");
	assert_int_equal(m->ncpus, 8);
	assert_int_equal(m->ndom[RDT_L3], 2);
	rdt_machine_free(m);
	expect_err("topology=package:2 l3:1 core:2 pu:1.5", -EINVAL,
		   "machine description: topology: character '.' at offset 26 is not allowed "
		   "(only letters, digits, spaces and ':()[]=,*')");
	expect_err("topology=package:2 l3:1 core:2 pu:-1", -EINVAL,
		   "machine description: topology: character '-' at offset 25 is not allowed "
		   "(only letters, digits, spaces and ':()[]=,*')");
	expect_err("topology=package:2 l3:1 core:2 pu:1\x01", -EINVAL,
		   "machine description: topology: byte 0x01 at offset 26 is not allowed "
		   "(only letters, digits, spaces and ':()[]=,*')");
}

/*
 * A type name is letters and digits, at most 16 (hwloc's longest has 8):
 * hwloc would read 'l3*x' as l3 and ignore the rest.
 */
static void test_topology_name(void **state)
{
	rdt_machine_free(build_ok("topology=package:1 [numa] l3:1 pu:2(indexes=1,0)"));
	/* levels without a type: hwloc names them (here down to an L3) */
	rdt_machine_free(build_ok("topology=1 1 1 1 1 1 2(indexes=1,0)"));
	expect_err("topology=package:1 l3*x:1 pu:2", -EINVAL,
		   "machine description: topology: level type 'l3*x' is not a name (letters "
		   "and digits only)");
	expect_err("topology=package:1 [numa=1] l3:1 pu:2", -EINVAL,
		   "machine description: topology: level type 'numa=1' is not a name (letters "
		   "and digits only)");
	expect_err("topology=package:1 :2 pu:2", -EINVAL,
		   "machine description: topology: level type '' is not a name (letters "
		   "and digits only)");
	/* 16 characters reach hwloc (which knows no such type), 17 do not */
	expect_err("topology=package:1 l3cachexxxxxxxxx:1 pu:2", -EINVAL,
		   "machine description: topology 'package:1 l3cachexxxxxxxxx:1 pu:2': hwloc "
		   "rejects it");
	expect_err("topology=package:1 l3cachexxxxxxxxxx:1 pu:2", -EINVAL,
		   "machine description: topology: level type 'l3cachexxxxxxxxx...' is longer "
		   "than 16 characters");
	expect_err("topology=package:1 [numaxxxxxxxxxxxxx] l3:1 pu:2", -EINVAL,
		   "machine description: topology: level type 'numaxxxxxxxxxxxx...' is longer "
		   "than 16 characters");
}

/*
 * hwloc leaks its [numa] objects when it then refuses the levels, so
 * those topologies are refused without it (fuzz_machine's leak check).
 */
static void test_topology_numa_attached(void **state)
{
	static const char *const refused[] = {
		"package:1 [numa]",			/* last level not a PU */
		"[numa]",				/* no level at all */
		"package:1 [numa] l3:1 pu:2 pu:1",	/* two PU levels */
		"package:1 [numa] package:1 l3:1 pu:2",
		"die:1 die:1 [numa] l3:1 pu:2",
		"package:1 l3:1 core:1 [numa] core:1 pu:2",
		"numa:1 [numa] l3:1 pu:2",		/* NUMA level and attached */
		"package:1 [numa] 1 l3:1 pu:2",		/* typed and untyped */
		"package:1 [numa(indexes=0:1core:re:6uma)]",
	};
	char d[128], msg[256];
	unsigned int i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(d, sizeof(d), "topology=%s", refused[i]);
		snprintf(msg, sizeof(msg), "machine description: topology '%s': hwloc rejects it",
			 refused[i]);
		expect_err(d, -EINVAL, msg);
	}
	rdt_machine_free(build_ok("topology=package:2 [numa] die:1 l3:1 core:2 pu:2"));
	rdt_machine_free(build_ok("topology=1 [numa] 1 1 1 1 1 2"));
	rdt_machine_free(build_ok("topology=package:1 l3:1 [numa] core:2 [numa] 2"));
}

/* At most 32768 characters: room for an explicit index of every PU. */
static void test_topology_length(void **state)
{
	static const char head[] = "topology=package:1 l3:1 pu:1(indexes=";
	size_t len = strlen("topology=") + 32768;
	char *d = malloc(len + 2);
	struct rdt_machine *m;

	assert_non_null(d);
	memset(d, '0', len + 1);
	memcpy(d, head, strlen(head));
	d[len - 1] = ')';	/* 0000...0: PU 0 */
	d[len] = '\0';
	m = build_ok(d);
	assert_int_equal(m->ncpus, 1);
	rdt_machine_free(m);
	d[len - 1] = '0';
	d[len] = ')';
	d[len + 1] = '\0';
	expect_err(d, -EINVAL, "machine description: topology 'package:1 l3:1 "
		   "pu:1(indexes=000000000000...': 32769 characters, at most 32768");
	free(d);
}

/* A failed build leaves *out NULL and needs no err buffer. */
static void test_error_no_buffer(void **state)
{
	struct rdt_machine *m = (void *)1;

	assert_int_equal(rdt_machine_build("l3.foo=1", &m, NULL, 0), -EINVAL);
	assert_null(m);
	assert_int_equal(rdt_machine_build("topology=package:1 l3:1 pu:1", NULL, NULL, 0),
			 -EINVAL);
}

/* The whole description is bounded (64 KiB), and never read past the bound. */
static void test_desc_bound(void **state)
{
	size_t max = RDT_MACHINE_DESC_MAX;
	char *d = malloc(max + 2);
	struct rdt_machine *m = NULL;
	char err[256];

	assert_non_null(d);
	/* 64 KiB + 1 of blanks, unterminated in reach: -E2BIG at once */
	memset(d, ' ', max + 1);
	d[max + 1] = '\0';
	assert_int_equal(rdt_machine_build(d, &m, err, sizeof(err)), -E2BIG);
	assert_null(m);
	assert_string_equal(err, "machine description is longer than 65536 bytes (64 KiB), "
			    "the most one may be: give each key once");
	/* at the bound it is parsed (blanks around one item) */
	memset(d, ' ', max);
	memcpy(d + max / 2, "tasks=virtual", 13);
	d[max] = '\0';
	assert_int_equal(rdt_machine_build(d, &m, err, sizeof(err)), 0);
	assert_true(m->virtual_tasks);
	rdt_machine_free(m);
	free(d);
}

/* A machine built by hand has no CPU table: the lookup scans. */
static void test_hand_built(void **state)
{
	int c0[] = { 3, 1 }, c1[] = { 0 };
	struct rdt_domain dom[2] = { { .cache_id = 4, .ncpus = 2, .cpus = c0 },
				     { .cache_id = 9, .ncpus = 1, .cpus = c1 } };
	bool present[4] = { true, true, false, true };
	struct rdt_machine m = { .ncpus = 4, .cpu_present = present };

	m.caps[RDT_L3].present = true;
	m.ndom[RDT_L3] = 2;
	m.dom[RDT_L3] = dom;
	assert_int_equal(rdt_machine_cpu_domain(&m, RDT_L3, 3), 0);
	assert_int_equal(rdt_machine_cpu_domain(&m, RDT_L3, 1), 0);
	assert_int_equal(rdt_machine_cpu_domain(&m, RDT_L3, 0), 1);
	assert_int_equal(rdt_machine_cpu_domain(&m, RDT_L3, 2), -1);
	assert_int_equal(rdt_machine_domain(&m, RDT_L3, 9), 1);
	assert_int_equal(rdt_machine_domain(&m, RDT_L3, 5), -1);
	rdt_machine_free(NULL);
}

static void test_res_names(void **state)
{
	assert_string_equal(rdt_res_name(RDT_L3), "L3");
	assert_string_equal(rdt_res_name(RDT_L2), "L2");
	assert_int_equal(rdt_res_parse("L3"), RDT_L3);
	assert_int_equal(rdt_res_parse("l2"), RDT_L2);
	assert_int_equal(rdt_res_parse("L1"), -1);
	assert_int_equal(rdt_res_parse("L3DATA"), -1);
	assert_int_equal(rdt_res_parse(""), -1);
	assert_int_equal(rdt_res_parse(NULL), -1);
}

/* The host, checked against hwloc's own view of this machine (not against numbers). */
static void check_host(struct rdt_machine *m)
{
	hwloc_topology_t t;
	hwloc_const_cpuset_t online, allowed;
	unsigned int c, i, n = 0;
	int nobj;

	assert_int_equal(hwloc_topology_init(&t), 0);
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	assert_int_equal(hwloc_topology_load(t), 0);
	online = hwloc_topology_get_topology_cpuset(t);
	allowed = hwloc_topology_get_allowed_cpuset(t);
	assert_int_equal(m->ncpus,
			 (unsigned int)hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(t)) + 1);
	for (c = 0; c < m->ncpus; c++)
		assert_int_equal(m->cpu_present[c],
				 hwloc_bitmap_isset(online, c) && hwloc_bitmap_isset(allowed, c));
	nobj = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE);
	for (i = 0; i < (unsigned int)nobj; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_L3CACHE, i);
		unsigned int id = o->os_index != HWLOC_UNKNOWN_INDEX ? o->os_index
								     : o->logical_index;
		int di = rdt_machine_domain(m, RDT_L3, id);
		unsigned int k = 0;
		int cpu;

		if (!hwloc_bitmap_intersects(o->cpuset, allowed))
			continue;
		n++;
		assert_true(di >= 0);
		assert_int_equal(m->dom[RDT_L3][di].cache_size, o->attr->cache.size);
		hwloc_bitmap_foreach_begin(cpu, o->cpuset) {
			if (!m->cpu_present[cpu])
				continue;
			assert_int_equal(m->dom[RDT_L3][di].cpus[k++], cpu);
			assert_int_equal(rdt_machine_cpu_domain(m, RDT_L3, cpu), di);
		} hwloc_bitmap_foreach_end();
		assert_int_equal(m->dom[RDT_L3][di].ncpus, k);
	}
	assert_int_equal(m->ndom[RDT_L3], n);
	hwloc_topology_destroy(t);
}

static void test_host(void **state)
{
	struct rdt_machine *m = NULL;
	char err[ERRLEN];
	int ret = rdt_machine_build(NULL, &m, err, sizeof(err));
	hwloc_topology_t t;
	int nl3;

	hwloc_topology_init(&t);
	hwloc_topology_load(t);
	nl3 = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE);
	hwloc_topology_destroy(t);
	if (nl3 <= 0) {		/* nothing to simulate on: said so */
		assert_int_equal(ret, -ENODEV);
		assert_null(m);
		return;
	}
	assert_int_equal(ret, 0);
	assert_string_equal(m->desc, "");
	check_caps(&m->caps[RDT_L3], 16, 20, 1, 0, true, false);
	assert_false(m->caps[RDT_L2].present);
	assert_false(m->virtual_tasks);
	check_host(m);
	rdt_machine_free(m);

	/* "" and blanks are the host too; overrides keep the host topology */
	m = build_ok("  ;  ");
	assert_string_equal(m->desc, "");
	rdt_machine_free(m);
	m = build_ok("tasks=real;l3.closids=16");
	assert_string_equal(m->desc, "");
	rdt_machine_free(m);
	m = build_ok("l3.closids=4;l3.min_cbm_bits=2;l3.cdp=0");
	check_caps(&m->caps[RDT_L3], 4, 20, 2, 0, false, false);
	assert_string_equal(m->desc, "l3.closids=4;l3.cbm_len=20;l3.min_cbm_bits=2;"
			    "l3.shareable_bits=0;l3.cdp=0;l3.sparse=0;tasks=real");
	check_host(m);
	rdt_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets),
		cmocka_unit_test(test_smt_topology),
		cmocka_unit_test(test_l3_per_ccx),
		cmocka_unit_test(test_interleaved_pus),
		cmocka_unit_test(test_l2),
		cmocka_unit_test(test_l2_only),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_preset_overrides),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_feature_keys),
		cmocka_unit_test(test_feature_key_errors),
		cmocka_unit_test(test_hwloc_level_overflow),
		cmocka_unit_test(test_topology_levels),
		cmocka_unit_test(test_topology_chars),
		cmocka_unit_test(test_topology_name),
		cmocka_unit_test(test_topology_numa_attached),
		cmocka_unit_test(test_topology_length),
		cmocka_unit_test(test_error_no_buffer),
		cmocka_unit_test(test_desc_bound),
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_res_names),
		cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
