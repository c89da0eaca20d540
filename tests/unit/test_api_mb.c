// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_mb: memory bandwidth allocation through the public API on the
 * simulator. The MB line of a schema (Intel percentages rounded up to the
 * step, AMD's 1/8 GB/s units), its errors with the state unchanged, the
 * simulated bandwidth registers, CLOSID sharing by the combination of masks
 * and bandwidth, and the rule that a throttled group never gets a CLOSID
 * the MBA hardware does not have (8 beside 16 on Skylake-SP).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

/* Two L3 domains (CPUs 0-1, 2-3), 16 CLOSIDs; MBA with 8, 10% steps. */
#define MI M2V ";mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10"
/* The same with AMD's units: 11-bit field, 2048 unlimited. */
#define MA M2V ";mb.closids=16;mb.units=amd;mb.max=2048"

static void default_schema_has_mb(void **state)
{
	rdtalloc_t *r = tu_eph(MI);
	struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };

	assert_int_equal(rdtalloc_resource_count(r), 2);
	assert_ok(r, rdtalloc_get_resource_info(r, 1, &ri));
	assert_string_equal(ri.name, "MB");
	assert_int_equal(ri.num_closids, 8);
	assert_int_equal(ri.min_bandwidth, 10);
	assert_int_equal(ri.bandwidth_gran, 10);
	assert_int_equal(ri.max_bandwidth, 100);
	assert_int_equal(ri.bandwidth_amd, 0);
	assert_int_equal(ri.num_domains, 2);
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\nMB:0=100;1=100\n");
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_schema(r, "g", "L3:0=fffff;1=fffff\nMB:0=100;1=100\n");
	rdtalloc_close(r);
}

static void mb_values_and_rounding(void **state)
{
	rdtalloc_t *r = tu_eph(MI);

	assert_ok(r, rdtalloc_group_create(r, "s"));
	/* partial: only domain 0 */
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=50"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=50;1=100\n");
	/* rounded up to the 10% step, as resctrl does */
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:1=15"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=50;1=20\n");
	assert_ok(r, rdtalloc_set_schema(r, "s", "L3:0=f\nMB:0=10;1=91"));
	assert_schema(r, "s", "L3:0=0000f;1=fffff\nMB:0=10;1=100\n");
	rdtalloc_close(r);
	/* a step that does not divide 100: range first, then rounding, at most 100 */
	r = tu_eph(M2V ";mb.closids=8;mb.units=percent;mb.min=30;mb.gran=30");
	assert_ok(r, rdtalloc_group_create(r, "s"));
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=100;1=95"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=100;1=100\n");
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=31;1=30"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=60;1=30\n");
	assert_err(r, rdtalloc_set_schema(r, "s", "MB:0=29"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "MB domain 0: 29 is below the minimum bandwidth 30");
	assert_err(r, rdtalloc_set_schema(r, "s", "MB:0=101"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "MB domain 0: 101 is above the maximum 100");
	rdtalloc_close(r);
}

static void bad_mb_changes_nothing(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "MB:1=5", "MB domain 1: 5 is below the minimum bandwidth 10" },
		{ "MB:0=0", "MB domain 0: 0 is below the minimum bandwidth 10" },
		{ "MB:0=101", "MB domain 0: 101 is above the maximum 100" },
		{ "MB:0=-5", "MB domain 0: bandwidth \"-5\" is not a decimal number" },
		{ "MB:0=0x32", "MB domain 0: bandwidth \"0x32\" is not a decimal number" },
		{ "MB:0=", "MB domain 0: missing bandwidth after '='" },
		{ "MB:2=50", "MB domain 2 does not exist (have 0,1)" },
		{ "MB:0=50;0=60", "MB domain 0 given twice" },
		{ "MB:0=50,60", "MB domain 0: unexpected \",60\" after the bandwidth" },
		/* all or nothing: the good L3 line is not applied either */
		{ "L3:0=ff\nMB:0=5", "line 2: MB domain 0: 5 is below the minimum bandwidth 10" },
	};
	rdtalloc_t *r = tu_eph(MI);
	char *before;
	size_t i;

	assert_ok(r, rdtalloc_group_create(r, "s"));
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=50"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		before = tu_dump(r, false);	/* assert_unchanged frees it */
		assert_err(r, rdtalloc_set_schema(r, "s", bad[i].text), -EINVAL);
		assert_string_equal(rdtalloc_errmsg(r), bad[i].msg);
		assert_unchanged(r, before, false);
	}
	rdtalloc_close(r);
}

static void no_mba_no_mb(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "s"));
	assert_err(r, rdtalloc_set_schema(r, "s", "MB:0=50"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r),
			    "resource MB is not available on this machine (have L3)");
	assert_schema(r, "s", "L3:0=fffff;1=fffff\n");
	rdtalloc_close(r);
}

/* The simulated registers: one bandwidth value per CLOSID and domain. */
static void registers_and_sharing(void **state)
{
	rdtalloc_t *r = tu_eph(MI);
	struct rdtalloc_stats before, after;

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f\nMB:0=50;1=50"));
	before = tu_stats(r);
	/* the same combination: a's CLOSID, no register written */
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f;1=f\nMB:0=50;1=50"));
	after = tu_stats(r);
	assert_int_equal(tu_closid(r, "a", "L3", 0), tu_closid(r, "b", "L3", 0));
	assert_int_equal(after.mask_writes, before.mask_writes);
	/* the same masks, another bandwidth: another CLOSID */
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f;1=f\nMB:0=70;1=50"));
	assert_int_not_equal(tu_closid(r, "c", "L3", 0), tu_closid(r, "a", "L3", 0));
	/* domain 1 has the same combination for a, b and c: one CLOSID there */
	assert_int_equal(tu_closid(r, "c", "L3", 1), tu_closid(r, "a", "L3", 1));
	assert_int_equal(tu_reg(r, "MB", 0, tu_closid(r, "a", "L3", 0)), 50);
	assert_int_equal(tu_reg(r, "MB", 0, tu_closid(r, "c", "L3", 0)), 70);
	assert_int_equal(tu_reg(r, "MB", 0, 0), 100);
	/* the MB domain's table is the L3 domain's */
	assert_int_equal(tu_closid(r, "c", "MB", 0), tu_closid(r, "c", "L3", 0));
	rdtalloc_close(r);
}

/*
 * MBA has 8 of the 16 CLOSIDs. Unthrottled groups take those above 8
 * first; throttled ones only those below, and the 8th throttled schema
 * beside the default is out of them.
 */
static void throttled_groups_stay_below_mba_closids(void **state)
{
	rdtalloc_t *r = tu_eph(MI);
	char name[16], text[64];
	char *before;
	int i;

	assert_ok(r, rdtalloc_group_create(r, "free"));
	assert_ok(r, rdtalloc_set_schema(r, "free", "L3:0=1;1=1"));
	assert_int_equal(tu_closid(r, "free", "L3", 0), 8);
	for (i = 1; i <= 7; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		snprintf(text, sizeof(text), "MB:0=%d;1=%d", 10 * i, 10 * i);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_ok(r, rdtalloc_set_schema(r, name, text));
		assert_true(tu_closid(r, name, "L3", 0) < 8);
	}
	assert_ok(r, rdtalloc_group_create(r, "t8"));
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_set_schema(r, "t8", "MB:0=80"), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 0: no free CLOSID with a bandwidth "
			    "register (MBA has 8 of the 16 CLOSIDs, all in use)");
	assert_unchanged(r, before, false);
	/* an unthrottled group still finds one */
	assert_ok(r, rdtalloc_set_schema(r, "t8", "L3:0=3;1=3"));
	assert_true(tu_closid(r, "t8", "L3", 0) > 8);
	/* a group moving from above 8 to throttled needs a CLOSID below: none */
	assert_err(r, rdtalloc_set_schema(r, "free", "MB:0=90"), -ENOSPC);
	/* one below is freed: then it moves there */
	assert_ok(r, rdtalloc_group_remove(r, "t1"));
	assert_ok(r, rdtalloc_set_schema(r, "free", "MB:0=90"));
	assert_true(tu_closid(r, "free", "L3", 0) < 8);
	rdtalloc_close(r);
}

static void amd_units(void **state)
{
	rdtalloc_t *r = tu_eph(MA);
	struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };

	assert_ok(r, rdtalloc_get_resource_info(r, 1, &ri));
	assert_int_equal(ri.bandwidth_amd, 1);
	assert_int_equal(ri.max_bandwidth, 2048);
	assert_int_equal(ri.min_bandwidth, 0);	/* the kernel's AMD minimum */
	assert_int_equal(ri.bandwidth_gran, 1);
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\nMB:0=2048;1=2048\n");
	assert_ok(r, rdtalloc_group_create(r, "s"));
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=1;1=1234"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=1;1=1234\n");
	assert_err(r, rdtalloc_set_schema(r, "s", "MB:0=2049"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "MB domain 0: 2049 is above the maximum 2048");
	/* 0: no bandwidth, which the kernel accepts on AMD */
	assert_ok(r, rdtalloc_set_schema(r, "s", "MB:0=0"));
	assert_schema(r, "s", "L3:0=fffff;1=fffff\nMB:0=0;1=1234\n");
	assert_int_equal(tu_reg(r, "MB", 1, tu_closid(r, "s", "L3", 1)), 1234);
	rdtalloc_close(r);
}

/* Save and apply carry MB values; a persistent state keeps them. */
static void config_and_state_keep_mb(void **state)
{
	char dir[64], *conf = malloc(65536);
	rdtalloc_t *r;

	tu_mkdtemp(dir);
	r = tu_open(dir, MI, 0);
	assert_ok(r, rdtalloc_group_create(r, "s"));
	assert_ok(r, rdtalloc_set_schema(r, "s", "L3:0=f0\nMB:0=30;1=60"));
	assert_ok(r, rdtalloc_save_config(r, conf, 65536));
	assert_non_null(strstr(conf, "\tschema L3:0=000f0;1=fffff\n\tschema MB:0=30;1=60\n"));
	rdtalloc_close(r);
	r = tu_open(dir, NULL, 0);
	assert_schema(r, "s", "L3:0=000f0;1=fffff\nMB:0=30;1=60\n");
	assert_ok(r, rdtalloc_reset(r));
	assert_ok(r, rdtalloc_apply_config(r, conf, 0));
	assert_schema(r, "s", "L3:0=000f0;1=fffff\nMB:0=30;1=60\n");
	rdtalloc_close(r);
	free(conf);
	tu_rm_rf(dir);
}

static void bad_mb_descriptions(void **state)
{
	static const struct {
		const char *desc, *msg;
	} bad[] = {
		{ M2V ";mb.min=10", "machine description: mb.min=10: memory bandwidth "
				    "allocation needs mb.closids" },
		{ M2V ";mb.closids=32", "machine description: mb.closids=32: more than the "
					"L3's 16 CLOSIDs" },
		{ M2V ";mb.closids=8;mb.units=gbps", "machine description: mb.units=gbps: must "
						     "be 'percent' (Intel), 'amd' (AMD, 1/8 GB/s) or "
						     "'mbps' (resctrl's mba_MBps)" },
		{ M2V ";mb.closids=8;mb.units=amd;mb.max=2000000", "machine description: "
						     "mb.max=2000000: with mb.units=amd at most 1048576" },
		{ M2V ";mb.closids=8;mb.max=200", "machine description: mb.max=200: with "
						  "mb.units=percent the maximum is 100" },
		{ M2V ";mb.closids=8;mb.units=amd;mb.max=100;mb.min=200",
		  "machine description: mb.min=200: above mb.max=100" },
		{ "topology=package:1 l3:1 l2:2 core:1 pu:2;l3.closids=0;l2.closids=8;"
		  "mb.closids=8", "machine description: mb.closids=8: MB domains are the L3 "
				  "domains, and there is no L3 allocation" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rdtalloc_t *r;

		assert_int_equal(tu_open_rc(&r, NULL, bad[i].desc, RDTALLOC_F_EPHEMERAL), -EINVAL);
		assert_null(r);
		assert_string_equal(rdtalloc_errmsg(NULL), bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_schema_has_mb),
		cmocka_unit_test(mb_values_and_rounding),
		cmocka_unit_test(bad_mb_changes_nothing),
		cmocka_unit_test(no_mba_no_mb),
		cmocka_unit_test(registers_and_sharing),
		cmocka_unit_test(throttled_groups_stay_below_mba_closids),
		cmocka_unit_test(amd_units),
		cmocka_unit_test(config_and_state_keep_mb),
		cmocka_unit_test(bad_mb_descriptions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
