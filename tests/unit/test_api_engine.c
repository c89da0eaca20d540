// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_engine: the CLOSID engine seen through the public API (issue 3
 * §3, DESIGN §4): the fresh state, sharing of identical masks, rewrite in
 * place, lowest free CLOSID, freeing at refcount 0, exhaustion with nothing
 * changed, the examples 7.1 and 7.2 of the 2016 resctrl patch set (then named rscctrl) exactly, and minimal mask
 * register writes (every write changes a register, and the counter says
 * exactly how many).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#define FULL 0xfffffULL

/* Register image + write counter before an operation. */
struct snap {
	uint64_t regs[512];
	int n;
	uint64_t mask_writes;
};

static void snap_take(rdtalloc_t *r, struct snap *s)
{
	s->n = tu_regs(r, s->regs, 512);
	s->mask_writes = tu_stats(r).mask_writes;
}

/*
 * Since the snapshot, the write counter grew by exactly the number of mask
 * registers whose value changed (each write changed one), and that is want
 * (want < 0: only the first check).
 */
static void check_writes(rdtalloc_t *r, const struct snap *s, int want)
{
	uint64_t now[512];
	int n = tu_regs(r, now, 512), i, changed = 0;
	uint64_t writes = tu_stats(r).mask_writes - s->mask_writes;

	assert_int_equal(n, s->n);
	for (i = 0; i < n; i++)
		changed += now[i] != s->regs[i];
	if (writes != (uint64_t)changed)
		print_error("%" PRIu64 " mask writes for %d changed registers\n", writes, changed);
	assert_int_equal(writes, changed);
	if (want >= 0)
		assert_int_equal(writes, want);
}

static void fresh_context(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid one[] = { { 0, FULL, FULL, 1 } };
	struct rdtalloc_stats st = tu_stats(r);
	struct rdtalloc_resource_info ri = tu_res(r, 0);
	unsigned int reg;
	int cpu;

	assert_int_equal(ri.hw_closids, 16);
	assert_int_equal(ri.num_closids, 16);
	assert_closids(r, "L3", 0, one, 1);
	assert_closids(r, "L3", 1, one, 1);
	assert_int_equal(tu_closid(r, NULL, "L3", 0), 0);
	assert_int_equal(tu_closid(r, NULL, "L3", 1), 0);
	for (reg = 0; reg < 16; reg++) {
		assert_int_equal(tu_reg(r, "L3", 0, reg), FULL);
		assert_int_equal(tu_reg(r, "L3", 1, reg), FULL);
	}
	assert_int_equal(rdtalloc_cpu_count(r), 4);
	for (cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(tu_pqr(r, cpu), 0);
		assert_int_equal(tu_eff(r, cpu, 0), 0);
	}
	assert_int_equal(st.mask_writes, 0);
	assert_int_equal(st.pqr_writes, 0);
	assert_int_equal(st.cfg_writes, 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void new_group_shares_all_ones(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid shared[] = { { 0, FULL, FULL, 3 } };
	struct snap s;

	snap_take(r, &s);
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	check_writes(r, &s, 0);
	assert_closids(r, "L3", 0, shared, 1);
	assert_closids(r, "L3", 1, shared, 1);
	assert_int_equal(tu_closid(r, "b", "L3", 1), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void new_group_takes_lowest_free(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, 0xff, 0xff, 1 }, { 1, FULL, FULL, 2 } };
	const struct tu_closid d1[] = { { 0, FULL, FULL, 3 } };
	struct snap s;

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"));
	snap_take(r, &s);
	/* No CLOSID has all-ones in domain 0: the lowest free one is taken. */
	assert_ok(r, rdtalloc_group_create(r, "a"));
	/* Now CLOSID 1 has all-ones in domain 0: shared. */
	assert_ok(r, rdtalloc_group_create(r, "b"));
	/* Register 1 already held all-ones (reset value): nothing to write. */
	check_writes(r, &s, 0);
	assert_closids(r, "L3", 0, d0, 2);
	assert_closids(r, "L3", 1, d1, 1);
	assert_int_equal(tu_closid(r, "a", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "a", "L3", 1), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void rewrite_in_place(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, FULL, FULL, 1 }, { 1, 0xf0, 0xf0, 1 } };
	struct snap s;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f"));
	assert_int_equal(tu_closid(r, "g", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0xf);
	/* g alone holds CLOSID 1: its mask is rewritten, the number stays. */
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f0"));
	check_writes(r, &s, 1);
	assert_int_equal(tu_closid(r, "g", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0xf0);
	assert_closids(r, "L3", 0, d0, 2);
	/* The default group alone on CLOSID 0 of domain 0 is rewritten in place too. */
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff"));
	check_writes(r, &s, 1);
	assert_int_equal(tu_closid(r, NULL, "L3", 0), 0);
	assert_int_equal(tu_reg(r, "L3", 0, 0), 0x3ff);
	/* In domain 1 it shares CLOSID 0 with g: it moves to the lowest free one. */
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:1=3ff"));
	check_writes(r, &s, 1);
	assert_int_equal(tu_closid(r, NULL, "L3", 1), 1);
	assert_int_equal(tu_closid(r, "g", "L3", 1), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void same_schema_writes_nothing(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct snap s;
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f;1=f0"));
	before = tu_dump(r, true);
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f;1=f0"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=0xf"));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=fffff;1=fffff"));
	assert_unchanged(r, before, true);
	/* Changing one domain writes one register. */
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f;1=ff0"));
	check_writes(r, &s, 1);
	rdtalloc_close(r);
}

static void identical_masks_share(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, FULL, FULL, 1 }, { 1, 0xff, 0xff, 3 } };
	const struct tu_closid d0b[] = {
		{ 0, FULL, FULL, 1 }, { 1, 0xff, 0xff, 2 }, { 2, 0xf00, 0xf00, 1 },
	};
	struct snap s;

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=ff"));
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=ff"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=0xFF"));
	check_writes(r, &s, 0);
	assert_closids(r, "L3", 0, d0, 2);
	assert_int_equal(tu_closid(r, "c", "L3", 0), 1);
	/* c leaves the shared CLOSID (refcount 3 -> 2) for the lowest free one. */
	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f00"));
	check_writes(r, &s, 1);
	assert_closids(r, "L3", 0, d0b, 3);
	assert_int_equal(tu_closid(r, "c", "L3", 0), 2);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void sharing_frees_the_old_closid(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, FULL, FULL, 1 }, { 2, 0xf00, 0xf00, 2 } };
	const struct tu_closid d0b[] = {
		{ 0, FULL, FULL, 1 }, { 1, 0xff, 0xff, 1 }, { 2, 0xf00, 0xf00, 1 },
	};

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=ff"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f00"));
	/* a moves to b's mask: shares CLOSID 2, and CLOSID 1 (refcount 0) is free. */
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f00"));
	assert_closids(r, "L3", 0, d0, 2);
	assert_int_equal(tu_closid(r, "a", "L3", 0), 2);
	/* b (refcount 2) wants a new mask: the lowest free CLOSID is 1 again. */
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=ff"));
	assert_closids(r, "L3", 0, d0b, 3);
	assert_int_equal(tu_closid(r, "b", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0xff);
	/* Back to all-ones: shares CLOSID 0 with default. */
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=fffff"));
	assert_int_equal(tu_closid(r, "b", "L3", 0), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void lowest_free_after_holes(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = {
		{ 0, FULL, FULL, 1 }, { 1, 0x1, 0x1, 1 }, { 2, 0x3ff, 0x3ff, 1 },
		{ 3, 0x7, 0x7, 1 },
	};

	assert_ok(r, rdtalloc_group_create(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g2"));
	assert_ok(r, rdtalloc_group_create(r, "g3"));
	assert_ok(r, rdtalloc_set_schema(r, "g1", "L3:0=1"));
	assert_ok(r, rdtalloc_set_schema(r, "g2", "L3:0=3"));
	assert_ok(r, rdtalloc_set_schema(r, "g3", "L3:0=7"));
	/* Removing g2 frees CLOSID 2 (its refcount drops to 0). */
	assert_ok(r, rdtalloc_group_remove(r, "g2"));
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 3);
	assert_ok(r, rdtalloc_group_create(r, "g4"));
	assert_int_equal(tu_closid(r, "g4", "L3", 0), 0);
	assert_ok(r, rdtalloc_set_schema(r, "g4", "L3:0=3ff"));
	assert_closids(r, "L3", 0, d0, 4);
	assert_int_equal(tu_closid(r, "g4", "L3", 0), 2);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void free_closid_is_not_shared(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	/*
	 * A free CLOSID whose register still holds a mask is free, not "a
	 * CLOSID with that mask": the lowest free one is taken.
	 */
	assert_ok(r, rdtalloc_group_create(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g2"));
	assert_ok(r, rdtalloc_set_schema(r, "g1", "L3:0=1"));
	assert_ok(r, rdtalloc_set_schema(r, "g2", "L3:0=3"));
	assert_ok(r, rdtalloc_group_remove(r, "g2"));
	assert_ok(r, rdtalloc_group_remove(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g3"));
	assert_ok(r, rdtalloc_set_schema(r, "g3", "L3:0=3"));
	assert_int_equal(tu_closid(r, "g3", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0x3);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void closids_max_and_count(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_closid_info ci[2];
	unsigned int c;

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=1"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=3"));
	memset(ci, 0xa5, sizeof(ci));
	assert_int_equal(rdtalloc_closids(r, "L3", 0, ci, 1), 3);
	assert_int_equal(ci[0].closid, 0);
	assert_int_equal(ci[0].refcount, 1);
	/* Only max entries are filled. */
	assert_int_equal(ci[1].closid, 0xa5a5a5a5);
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 3);
	assert_int_equal(rdtalloc_closids(r, "L3", 1, NULL, 0), 1);
	/* Bad resource or cache id. */
	assert_true(rdtalloc_closids(r, "L4", 0, ci, 2) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_true(rdtalloc_closids(r, "L2", 0, ci, 2) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_true(rdtalloc_closids(r, "L3", 2, ci, 2) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_true(rdtalloc_group_closid(r, "a", "L3", 7, &c) < 0);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	rdtalloc_close(r);
}

static void example_7_1(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, FULL, FULL, 1 }, { 1, 0x3, 0x3, 2 } };
	const struct tu_closid d1[] = {
		{ 0, FULL, FULL, 1 }, { 1, 0xc, 0xc, 1 }, { 2, 0x3, 0x3, 1 },
	};
	struct snap s;

	snap_take(r, &s);
	assert_ok(r, rdtalloc_group_create(r, "p0"));
	assert_ok(r, rdtalloc_group_create(r, "p1"));
	assert_ok(r, rdtalloc_set_schema(r, "p0", "L3:0=3;1=c"));
	assert_int_equal(tu_closid(r, "p0", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "p0", "L3", 1), 1);
	assert_ok(r, rdtalloc_set_schema(r, "p1", "L3:0=3;1=3"));
	check_writes(r, &s, 3);
	assert_closids(r, "L3", 0, d0, 2);
	assert_closids(r, "L3", 1, d1, 3);
	assert_int_equal(tu_closid(r, "p1", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "p1", "L3", 1), 2);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0x3);
	assert_int_equal(tu_reg(r, "L3", 1, 1), 0xc);
	assert_int_equal(tu_reg(r, "L3", 1, 2), 0x3);
	assert_schema(r, "p0", "L3:0=00003;1=0000c\n");
	assert_schema(r, "p1", "L3:0=00003;1=00003\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void example_7_2(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = {
		{ 0, 0x3ff, 0x3ff, 1 }, { 1, 0x7c00, 0x7c00, 1 }, { 2, 0xf8000, 0xf8000, 1 },
	};
	const struct tu_closid d1[] = { { 0, FULL, FULL, 3 } };
	const struct tu_closid after_create[] = { { 0, 0x3ff, 0x3ff, 1 }, { 1, FULL, FULL, 2 } };
	struct snap s;

	snap_take(r, &s);
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff;1=fffff"));
	assert_ok(r, rdtalloc_group_create(r, "p1"));
	assert_ok(r, rdtalloc_group_create(r, "p2"));
	assert_closids(r, "L3", 0, after_create, 2);
	assert_ok(r, rdtalloc_bind_task(r, "p1", 1234));
	assert_ok(r, rdtalloc_set_schema(r, "p1", "L3:0=f8000;1=fffff"));
	assert_ok(r, rdtalloc_bind_task(r, "p2", 5678));
	assert_ok(r, rdtalloc_set_schema(r, "p2", "L3:0=7c00;1=fffff"));
	check_writes(r, &s, 3);
	assert_closids(r, "L3", 0, d0, 3);
	assert_closids(r, "L3", 1, d1, 1);
	assert_int_equal(tu_closid(r, "p1", "L3", 0), 2);
	assert_int_equal(tu_closid(r, "p2", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 0), 0x3ff);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0x7c00);
	assert_int_equal(tu_reg(r, "L3", 0, 2), 0xf8000);
	assert_schema(r, NULL, "L3:0=003ff;1=fffff\n");
	assert_schema(r, "p1", "L3:0=f8000;1=fffff\n");
	assert_schema(r, "p2", "L3:0=07c00;1=fffff\n");
	/* The real-time tasks on CPUs 0 and 1 of socket 0. */
	assert_int_equal(tu_eff(r, 0, 1234), 2);
	assert_int_equal(tu_eff(r, 1, 5678), 1);
	assert_int_equal(tu_eff(r, 1, 999), 0);
	assert_int_equal(tu_eff(r, 2, 1234), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

/* Fill domain 1: default + 15 groups with distinct masks there. */
static void fill_domain1(rdtalloc_t *r)
{
	char name[16], schema[32];
	int i;

	for (i = 1; i <= 15; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		snprintf(schema, sizeof(schema), "L3:1=%x", (1u << i) - 1);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_ok(r, rdtalloc_set_schema(r, name, schema));
	}
	assert_int_equal(rdtalloc_closids(r, "L3", 1, NULL, 0), 16);
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 1);
}

static void exhaustion_changes_nothing(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before;

	fill_domain1(r);
	/* A new group shares all-ones CLOSID 0 in both domains: fine. */
	assert_ok(r, rdtalloc_group_create(r, "x"));
	assert_ok(r, rdtalloc_bind_task(r, "x", 4321));
	assert_ok(r, rdtalloc_bind_cpu(r, "x", 0));
	before = tu_dump(r, true);
	/* Domain 0 could be had, domain 1 cannot: nothing may change, not even domain 0. */
	assert_err(r, rdtalloc_set_schema(r, "x", "L3:0=1;1=3ff00"), -ENOSPC);
	assert_errmsg_has(r, "L3 cache id 1: no free CLOSID (16 in use)");
	assert_unchanged(r, before, true);
	assert_err(r, rdtalloc_set_schema(r, "x", "L3:1=3ff00;0=1"), -ENOSPC);
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:1=3ff00"), -ENOSPC);
	before = tu_dump(r, true);
	assert_unchanged(r, before, true);
	tu_check_invariants(r);

	/* When full, sharing and rewriting in place still work. */
	assert_ok(r, rdtalloc_set_schema(r, "x", "L3:1=3"));
	assert_int_equal(tu_closid(r, "x", "L3", 1), 2);
	assert_ok(r, rdtalloc_set_schema(r, "g15", "L3:1=80000"));
	assert_int_equal(tu_closid(r, "g15", "L3", 1), 15);
	tu_check_invariants(r);

	/* Removing a group frees its CLOSID, and the schema fits then. */
	assert_ok(r, rdtalloc_group_remove(r, "g7"));
	assert_ok(r, rdtalloc_set_schema(r, "x", "L3:0=1;1=3ff00"));
	assert_int_equal(tu_closid(r, "x", "L3", 1), 7);
	assert_int_equal(tu_closid(r, "x", "L3", 0), 1);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void exhaustion_in_domain0(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char name[16], schema[32];
	char *before;
	int i;

	for (i = 1; i <= 15; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		snprintf(schema, sizeof(schema), "L3:0=%x", 0xfffffu >> i);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_ok(r, rdtalloc_set_schema(r, name, schema));
	}
	assert_ok(r, rdtalloc_group_create(r, "x"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_set_schema(r, "x", "L3:0=c0000;1=3"), -ENOSPC);
	assert_errmsg_has(r, "L3 cache id 0: no free CLOSID (16 in use)");
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void create_without_free_closid(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char buf[64];
	char *before;
	int i;

	/* 16 CLOSIDs in domain 1, none of them all-ones. */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:1=80000"));
	fill_domain1(r);
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_group_create(r, "x"), -ENOSPC);
	assert_errmsg_has(r, "L3 cache id 1");
	assert_unchanged(r, before, true);
	assert_err(r, rdtalloc_get_schema(r, "x", buf, sizeof(buf)), -ENOENT);
	for (i = 0; i < 3; i++)
		assert_err(r, rdtalloc_group_create(r, "x"), -ENOSPC);
	assert_int_equal(rdtalloc_group_count(r), 16);
	/* A freed CLOSID makes room. */
	assert_ok(r, rdtalloc_group_remove(r, "g3"));
	assert_ok(r, rdtalloc_group_create(r, "x"));
	assert_int_equal(tu_closid(r, "x", "L3", 1), 3);
	assert_int_equal(tu_closid(r, "x", "L3", 0), 0);
	assert_int_equal(tu_reg(r, "L3", 1, 3), FULL);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void removal_drops_references(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 0, FULL, FULL, 1 }, { 1, 0xf, 0xf, 1 } };
	const struct tu_closid one[] = { { 0, FULL, FULL, 1 } };

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f0"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f;1=f0"));
	assert_ok(r, rdtalloc_group_remove(r, "a"));
	assert_closids(r, "L3", 0, d0, 2);
	assert_ok(r, rdtalloc_group_remove(r, "b"));
	assert_closids(r, "L3", 0, one, 1);
	assert_closids(r, "L3", 1, one, 1);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void default_can_move(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid d0[] = { { 1, 0xff, 0xff, 2 } };

	/* The default group shares another group's CLOSID and frees CLOSID 0. */
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=ff"));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"));
	assert_closids(r, "L3", 0, d0, 1);
	assert_int_equal(tu_closid(r, NULL, "L3", 0), 1);
	assert_int_equal(tu_eff(r, 0, 0), 1);
	assert_int_equal(tu_eff(r, 2, 0), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void reset_restores_boot_state(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const struct tu_closid one[] = { { 0, FULL, FULL, 1 } };
	const int all[] = { 0, 1, 2, 3 };

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff"));
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_bind_cpu(r, "a", 1));
	assert_ok(r, rdtalloc_bind_task(r, "a", 77));
	assert_ok(r, rdtalloc_reset(r));
	assert_int_equal(rdtalloc_group_count(r), 1);
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\n");
	assert_closids(r, "L3", 0, one, 1);
	assert_closids(r, "L3", 1, one, 1);
	assert_cpus(r, NULL, all, 4);
	assert_task_group(r, 77, "default");
	assert_int_equal(tu_eff(r, 1, 77), 0);
	assert_int_equal(tu_reg(r, "L3", 0, 0), FULL);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

/* A long random walk of group operations: the invariants hold after each. */
static void random_walk_keeps_invariants(void **state)
{
	static const char *const masks[] = { "f", "f0", "ff", "3ff", "fffff", "f0000", "c", "1" };
	rdtalloc_t *r = tu_eph(M2V);
	unsigned int seed = 12345;
	int step;

	for (step = 0; step < 400; step++) {
		char name[8], schema[32];
		int op, rc;

		seed = seed * 1103515245 + 12345;
		op = (seed >> 16) % 4;
		snprintf(name, sizeof(name), "g%u", (seed >> 8) % 20);
		snprintf(schema, sizeof(schema), "L3:%u=%s", (seed >> 4) % 2,
			 masks[(seed >> 20) % 8]);
		if (op == 0)
			rc = rdtalloc_group_create(r, name);
		else if (op == 1)
			rc = rdtalloc_group_remove(r, name);
		else
			rc = rdtalloc_set_schema(r, name, schema);
		assert_true(rc == 0 || rc == -EEXIST || rc == -ENOENT);
		if (step % 10 == 0)
			tu_check_invariants(r);
	}
	tu_check_invariants(r);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_context),
		cmocka_unit_test(new_group_shares_all_ones),
		cmocka_unit_test(new_group_takes_lowest_free),
		cmocka_unit_test(rewrite_in_place),
		cmocka_unit_test(same_schema_writes_nothing),
		cmocka_unit_test(identical_masks_share),
		cmocka_unit_test(sharing_frees_the_old_closid),
		cmocka_unit_test(lowest_free_after_holes),
		cmocka_unit_test(free_closid_is_not_shared),
		cmocka_unit_test(closids_max_and_count),
		cmocka_unit_test(example_7_1),
		cmocka_unit_test(example_7_2),
		cmocka_unit_test(exhaustion_changes_nothing),
		cmocka_unit_test(exhaustion_in_domain0),
		cmocka_unit_test(create_without_free_closid),
		cmocka_unit_test(removal_drops_references),
		cmocka_unit_test(default_can_move),
		cmocka_unit_test(reset_restores_boot_state),
		cmocka_unit_test(random_walk_keeps_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
