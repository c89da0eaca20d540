// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_presets: every preset builds and gives the numbers its source states;
 * the lookups, the iterator and rdtalloc_preset_foreach; and, where a
 * recording of the part (or its core) exists in tests/data/cpuid, that the
 * preset agrees with what CPUID enumerates there.
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

#include <rdtalloc/rdtalloc.h>

#include "machine.h"
#include "presets.h"

struct want_res {
	unsigned int closids, cbm_len, min, ndom, cpus_per_dom;
	uint64_t shareable;
	bool cdp, sparse;
};

struct want {
	const char *name, *vendor;
	unsigned int ncpus;
	struct want_res res[RDT_NRES];	/* closids 0: absent */
	const char *dump;		/* recording to agree with, or NULL */
};

static const struct want wants[] = {
	{ "haswell-ep", "GenuineIntel", 72, { { 4, 20, 2, 2, 36, 0xc0000, false, false } }, NULL },
	{ "broadwell-ep", "GenuineIntel", 88, { { 16, 20, 1, 2, 44, 0xc0000, true, false } },
	  "intel-i7-6900k-broadwell-e.txt" },
	{ "skylake-sp", "GenuineIntel", 96, { { 16, 11, 1, 2, 48, 0x600, true, false } },
	  "intel-xeon-8160-skylake-sp.txt" },
	{ "cascadelake-sp", "GenuineIntel", 112, { { 16, 11, 1, 2, 56, 0x600, true, false } },
	  "constructed-intel-xeon-8280-cascadelake.txt" },
	{ "icelake-sp", "GenuineIntel", 160, { { 16, 12, 1, 2, 80, 0, true, false } },
	  "constructed-intel-xeon-8380-icelake-sp.txt" },
	{ "sapphirerapids-sp", "GenuineIntel", 224,
	  { { 15, 15, 1, 2, 112, 0x6000, false, false }, { 8, 16, 1, 112, 2, 0, false, false } },
	  NULL },
	{ "atom-c3000", "GenuineIntel", 16, { { 0 }, { 4, 8, 1, 8, 2, 0, false, false } },
	  "intel-atom-c3958-denverton.txt" },
	{ "amd-milan", "AuthenticAMD", 256, { { 16, 16, 0, 16, 16, 0, true, true } },
	  "amd-ryzen-5800x-zen3.txt" },
	{ "amd-genoa", "AuthenticAMD", 384, { { 16, 16, 0, 24, 16, 0, true, true } },
	  "amd-threadripper-7995wx-zen4.txt" },
	{ "amd-turin", "AuthenticAMD", 512, { { 16, 16, 0, 32, 16, 0, true, true } }, NULL },
	{ "intel-gnr-snc3", "GenuineIntel", 512, { { 15, 15, 1, 2, 256, 0x6000, false, false } },
	  NULL },
	{ "intel-cwf", "GenuineIntel", 576, { { 16, 12, 1, 2, 288, 0, true, false } }, NULL },
	{ "arm-mpam", "ARM", 72, { { 64, 16, 1, 1, 72, 0xffff, false, true } }, NULL },
};

#define NWANT (sizeof(wants) / sizeof(wants[0]))

static struct rdt_machine *build(const char *desc)
{
	struct rdt_machine *m = NULL;
	char err[512];
	int ret = rdt_machine_build(desc, &m, err, sizeof(err));

	if (ret)
		fail_msg("'%s': %d %s", desc, ret, err);
	return m;
}

static void check_res(const struct rdt_machine *m, enum rdt_res r, const struct want_res *w)
{
	const struct rdt_caps *c = &m->caps[r];
	unsigned int i;

	if (!w->closids) {
		assert_false(c->present);
		assert_int_equal(m->ndom[r], 0);
		return;
	}
	assert_true(c->present);
	assert_int_equal(c->closids, w->closids);
	assert_int_equal(c->cbm_len, w->cbm_len);
	assert_int_equal(c->min_cbm_bits, w->min);
	assert_int_equal(c->shareable_bits, w->shareable);
	assert_int_equal(c->cdp, w->cdp);
	assert_int_equal(c->sparse, w->sparse);
	assert_int_equal(m->ndom[r], w->ndom);
	for (i = 0; i < m->ndom[r]; i++) {
		assert_int_equal(m->dom[r][i].cache_id, i);
		assert_int_equal(m->dom[r][i].ncpus, w->cpus_per_dom);
	}
}

static void test_every_preset(void **state)
{
	char desc[64];
	unsigned int i;

	assert_int_equal(rdt_preset_count(), NWANT);
	for (i = 0; i < NWANT; i++) {
		const struct rdt_preset *p = rdt_preset_at(i);
		struct rdt_machine *m;

		assert_non_null(p);
		assert_string_equal(p->name, wants[i].name);
		assert_string_equal(p->vendor, wants[i].vendor);
		assert_true(strlen(p->source) > 20);
		assert_true(strlen(p->part) > 10);
		snprintf(desc, sizeof(desc), "preset=%s", p->name);
		m = build(desc);
		assert_int_equal(m->ncpus, wants[i].ncpus);
		check_res(m, RDT_L3, &wants[i].res[RDT_L3]);
		check_res(m, RDT_L2, &wants[i].res[RDT_L2]);
		assert_string_equal(m->vendor, wants[i].vendor);
		assert_string_equal(m->model, p->name);
		assert_false(m->virtual_tasks);
		rdt_machine_free(m);
		/* the expansion alone is the same machine */
		m = build(p->desc);
		check_res(m, RDT_L3, &wants[i].res[RDT_L3]);
		check_res(m, RDT_L2, &wants[i].res[RDT_L2]);
		rdt_machine_free(m);
	}
	assert_null(rdt_preset_at(NWANT));
}

/* Where the part (or its core) was recorded, the preset says what CPUID says. */
static void test_agrees_with_recordings(void **state)
{
	char path[512];
	unsigned int i, j, r;

	for (i = 0; i < NWANT; i++) {
		struct rdtalloc_cpu_caps caps = { .sz = sizeof(caps) };

		if (!wants[i].dump)
			continue;
		snprintf(path, sizeof(path), "%s/cpuid/%s", RDT_TEST_DATA, wants[i].dump);
		assert_int_equal(rdtalloc_cpuid_decode_file(path, &caps), 0);
		assert_string_equal(caps.vendor, wants[i].vendor);
		for (r = 0, j = 0; r < RDT_NRES; r++) {
			const struct want_res *w = &wants[i].res[r];

			if (!w->closids)
				continue;
			assert_true(j < caps.nres);
			assert_string_equal(caps.res[j].name, r == RDT_L3 ? "L3" : "L2");
			assert_int_equal(caps.res[j].closids, w->closids);
			assert_int_equal(caps.res[j].cbm_len, w->cbm_len);
			assert_int_equal(caps.res[j].shareable_bits, w->shareable);
			assert_int_equal(caps.res[j].cdp, w->cdp);
			assert_int_equal(caps.res[j].sparse, w->sparse);
			j++;
		}
		assert_int_equal(caps.nres, j);
	}
}

static void test_lookup(void **state)
{
	char names[256];
	int n;

	assert_string_equal(rdt_preset_lookup("skylake-sp"),
			    "topology=package:2 l3:1(size=33792KiB) core:24 pu:2;l3.closids=16;"
			    "l3.cbm_len=11;"
			    "l3.min_cbm_bits=1;l3.shareable_bits=0x600;l3.cdp=1;l3.sparse=0;"
			    "mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10;"
			    "mon.rmids=192;mon.scale=98304;mon.width=24");
	assert_null(rdt_preset_lookup("Skylake-SP"));
	assert_null(rdt_preset_lookup(""));
	assert_null(rdt_preset_lookup(NULL));
	assert_ptr_equal(rdt_preset_find("arm-mpam"), rdt_preset_at(NWANT - 1));
	n = rdt_preset_names(names, sizeof(names));
	assert_string_equal(names, "haswell-ep, broadwell-ep, skylake-sp, cascadelake-sp, "
			    "icelake-sp, sapphirerapids-sp, atom-c3000, amd-milan, amd-genoa, "
			    "amd-turin, intel-gnr-snc3, intel-cwf, arm-mpam");
	assert_int_equal(n, (int)strlen(names));
	/* like snprintf: the full length even when it is cut */
	assert_int_equal(rdt_preset_names(names, 5), n);
	assert_string_equal(names, "hasw");
	assert_int_equal(rdt_preset_names(NULL, 0), n);
}

/*
 * Cache size per domain, in bytes, as the sources in presets.c give it (0: not
 * sourced, hwloc's synthetic default of 16 MiB stays). Intel server parts:
 * one L3 per socket; AMD: one per CCD.
 */
static const struct {
	const char *name;
	uint64_t l3, l2;
} sizes[] = {
	{ "haswell-ep", 45ULL << 20, 0 },		/* 18 x 2.5 MiB */
	{ "broadwell-ep", 55ULL << 20, 0 },		/* 22 x 2.5 MiB */
	{ "skylake-sp", 33ULL << 20, 0 },		/* 24 x 1.375 MiB */
	{ "cascadelake-sp", 39424ULL << 10, 0 },	/* 28 x 1.375 MiB = 38.5 MiB */
	{ "icelake-sp", 0, 0 },				/* not sourced */
	{ "sapphirerapids-sp", 105ULL << 20, 2ULL << 20 },
	{ "atom-c3000", 0, 2ULL << 20 },		/* L2 per 2-core module */
	{ "amd-milan", 32ULL << 20, 0 },		/* per CCD */
	{ "amd-genoa", 32ULL << 20, 0 },
	{ "amd-turin", 32ULL << 20, 0 },		/* 512 MB over 16 CCDs */
	{ "intel-gnr-snc3", 504ULL << 20, 0 },
	{ "intel-cwf", 576ULL << 20, 0 },		/* constructed */
	{ "arm-mpam", 114ULL << 20, 0 },		/* constructed */
};

#define SYNTHETIC (16ULL << 20)	/* hwloc's synthetic L3 size */

/* Bytes of a mask as resctrl's size file: cache size / CBM length, then x bits. */
static uint64_t alloc_bytes(uint64_t size, unsigned int cbm_len, uint64_t mask)
{
	return size / cbm_len * (uint64_t)__builtin_popcountll(mask);
}

static void check_size(rdtalloc_t *r, const char *res, uint64_t want, unsigned int ndom)
{
	unsigned int ids[128], i, ways = 99;
	uint64_t size = 0;
	int n = rdtalloc_domains(r, res, ids, 128);

	assert_int_equal(n, (int)ndom);
	for (i = 0; i < ndom; i++) {
		assert_int_equal(rdtalloc_domain_cache(r, res, ids[i], &size, &ways), 0);
		assert_int_equal(size, want);
		assert_int_equal(ways, 0);	/* a synthetic topology has no associativity */
	}
}

static void test_cache_sizes(void **state)
{
	char desc[64];
	unsigned int i;

	assert_int_equal(sizeof(sizes) / sizeof(sizes[0]), NWANT);
	for (i = 0; i < NWANT; i++) {
		const struct want *w = &wants[i];
		rdtalloc_t *r;
		struct rdt_machine *m;
		unsigned int d;
		RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL,
			      .machine = desc);

		assert_string_equal(sizes[i].name, w->name);
		snprintf(desc, sizeof(desc), "preset=%s;tasks=virtual", w->name);
		if (rdtalloc_open(&r, &o))
			fail_msg("%s: %s", desc, rdtalloc_errmsg(NULL));
		if (w->res[RDT_L3].closids)
			check_size(r, "L3", sizes[i].l3 ? sizes[i].l3 : SYNTHETIC,
				   w->res[RDT_L3].ndom);
		if (w->res[RDT_L2].closids)
			check_size(r, "L2", sizes[i].l2, w->res[RDT_L2].ndom);
		rdtalloc_close(r);
		/* the machine itself, and its expansion, say the same */
		m = build(rdt_preset_lookup(w->name));
		for (d = 0; d < m->ndom[RDT_L3]; d++)
			assert_int_equal(m->dom[RDT_L3][d].cache_size,
					 sizes[i].l3 ? sizes[i].l3 : SYNTHETIC);
		for (d = 0; d < m->ndom[RDT_L2]; d++)
			assert_int_equal(m->dom[RDT_L2][d].cache_size, sizes[i].l2);
		rdt_machine_free(m);
	}
}

/* Bytes of a group's mask per domain on presets with known sizes. */
static void test_alloc_bytes(void **state)
{
	/* Skylake-SP: 33 MiB over 11 ways is 3 MiB a way */
	assert_int_equal(alloc_bytes(34603008, 11, 0x78), 12582912);	/* 4 ways: 12 MiB */
	assert_int_equal(alloc_bytes(34603008, 11, 0x600), 6291456);	/* the I/O ways */
	assert_int_equal(alloc_bytes(34603008, 11, 0x7ff), 34603008);
	/* Cascade Lake-SP: 38.5 MiB / 11 = 3.5 MiB a way */
	assert_int_equal(alloc_bytes(40370176, 11, 0x7), 11010048);
	/* Haswell-EP: 45 MiB / 20 = 2.25 MiB; the 2-bit minimum is 4.5 MiB */
	assert_int_equal(alloc_bytes(47185920, 20, 0x3), 4718592);
	/* Broadwell-EP: 55 MiB / 20 = 2.75 MiB */
	assert_int_equal(alloc_bytes(57671680, 20, 0xff), 23068672);
	/* Sapphire Rapids: L3 105 MiB / 15 = 7 MiB; L2 2 MiB / 16 = 128 KiB */
	assert_int_equal(alloc_bytes(110100480, 15, 0x1f), 36700160);
	assert_int_equal(alloc_bytes(2097152, 16, 0xf), 524288);
	/* Atom C3958: 2 MiB / 8 = 256 KiB a bit */
	assert_int_equal(alloc_bytes(2097152, 8, 0x3), 524288);
	/* Zen 3 / Zen 4 CCD: 32 MiB / 16 = 2 MiB; a sparse mask counts its bits */
	assert_int_equal(alloc_bytes(33554432, 16, 0xf0f), 16777216);
	/*
	 * Ice Lake-SP keeps the synthetic 16 MiB: 16 MiB / 12 is not whole, and
	 * dividing first (as rdtgroup_cbm_to_size()) gives 1398101 a way, so 3
	 * ways are 4194303 bytes, not 4194304.
	 */
	assert_int_equal(alloc_bytes(SYNTHETIC, 12, 0x7), 4194303);
}

struct walk {
	unsigned int seen, stop_at;
	char names[NWANT][32];
};

static int walk_cb(const char *name, const char *desc, const char *source, void *arg)
{
	struct walk *w = arg;

	assert_string_equal(desc, rdt_preset_lookup(name));
	assert_string_equal(source, rdt_preset_find(name)->source);
	snprintf(w->names[w->seen], sizeof(w->names[0]), "%s", name);
	w->seen++;
	return w->seen == w->stop_at ? 42 : 0;
}

/* The 6.14-7.2 features of the four newest presets, as their sources give them. */
static void test_new_features(void **state)
{
	struct rdt_machine *m = build("preset=amd-turin");

	assert_int_equal(m->mon.cntrs, 32);
	assert_true(m->mon.assign);
	assert_true(m->mon.assign_on_mkdir);
	assert_true(m->caps[RDT_L3].io_alloc);
	assert_int_equal(m->mon.snc, 1);
	assert_false(m->mpam);
	assert_int_equal(m->pkg.groups, 0);
	rdt_machine_free(m);

	m = build("preset=intel-gnr-snc3");
	assert_int_equal(m->mon.snc, 3);
	assert_int_equal(m->mon.hw_rmids, 512);
	assert_int_equal(m->mon.rmids, 170);		/* 512 / 3, as the kernel divides */
	assert_int_equal(m->mon.hw_scale, 106496);
	assert_int_equal(m->mon.scale, 35498);
	assert_int_equal(m->mon.cntrs, 0);
	assert_false(m->caps[RDT_L3].io_alloc);
	/* nodes 0-2 on the first L3, 3-5 on the second; 256 CPUs each: 86, 85, 85 */
	assert_int_equal(rdt_machine_snc_node(m, 0), 0);
	assert_int_equal(rdt_machine_snc_node(m, 85), 0);
	assert_int_equal(rdt_machine_snc_node(m, 86), 1);
	assert_int_equal(rdt_machine_snc_node(m, 255), 2);
	assert_int_equal(rdt_machine_snc_node(m, 256), 3);
	assert_int_equal(rdt_machine_snc_node(m, 511), 5);
	assert_int_equal(rdt_machine_snc_node(m, 512), -1);
	rdt_machine_free(m);

	m = build("preset=intel-cwf");
	assert_int_equal(m->pkg.groups, RDT_PKG_ENERGY | RDT_PKG_PERF);
	assert_int_equal(m->pkg.rmids, 576);
	assert_int_equal(m->npkg, 2);
	assert_int_equal(m->pkgdom[1].cache_id, 1);
	assert_int_equal(m->pkgdom[1].ncpus, 288);
	assert_int_equal(m->pkgdom[1].cpus[0], 288);
	rdt_machine_free(m);

	m = build("preset=arm-mpam");
	assert_true(m->mpam);
	assert_false(m->caps[RDT_L3].cdp);
	assert_true(m->caps[RDT_MB].present);
	assert_false(m->caps[RDT_MB].mb_amd);
	assert_int_equal(m->caps[RDT_MB].mb_min, 1);	/* round(100 / 2^7) */
	assert_int_equal(m->caps[RDT_MB].mb_gran, 1);	/* DIV_ROUND_UP(100, 2^7) */
	assert_int_equal(m->mon.events, 1);		/* llc_occupancy */
	assert_int_equal(m->mon.rmids, 128);		/* 2 PMGs x 64 PARTIDs */
	rdt_machine_free(m);
}

static void test_foreach(void **state)
{
	struct walk w = { 0 };
	unsigned int i;

	assert_int_equal(rdtalloc_preset_foreach(walk_cb, &w), 0);
	assert_int_equal(w.seen, NWANT);
	for (i = 0; i < NWANT; i++)
		assert_string_equal(w.names[i], wants[i].name);
	memset(&w, 0, sizeof(w));
	w.stop_at = 3;
	assert_int_equal(rdtalloc_preset_foreach(walk_cb, &w), 42);
	assert_int_equal(w.seen, 3);
	assert_int_equal(rdtalloc_preset_foreach(NULL, NULL), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_preset_foreach: callback is NULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_preset),
		cmocka_unit_test(test_agrees_with_recordings),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_cache_sizes),
		cmocka_unit_test(test_alloc_bytes),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_new_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
