// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_cdp: code/data prioritization through the public API (DESIGN
 * §4, §10): when it may be switched (-EBUSY with groups, -EINVAL where not
 * supported), the halved CLOSID count, both schema input forms and the
 * output form, code masks in the CLOSID table, the register layout (data
 * 2n, code 2n+1), exhaustion at the halved count, and persistence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#define FULL 0xfffffULL

static void enable_and_disable(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	const struct tu_closid one[] = { { 0, FULL, FULL, 1 } };
	struct rdtalloc_resource_info ri;

	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 0);
	assert_int_equal(tu_res(r, 0).cdp_supported, 1);
	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 1);
	ri = tu_res(r, 0);
	assert_int_equal(ri.cdp_enabled, 1);
	assert_int_equal(ri.num_closids, 8);
	assert_int_equal(ri.hw_closids, 16);
	/* IA32_L3_QOS_CFG is written in each of the two L3 domains. */
	assert_int_equal(tu_stats(r).cfg_writes, 2);
	assert_schema(r, NULL, "L3:0=fffff,fffff;1=fffff,fffff\n");
	assert_closids(r, "L3", 0, one, 1);
	assert_closids(r, "L3", 1, one, 1);
	assert_int_equal(tu_reg(r, "L3", 0, 0), FULL);
	assert_int_equal(tu_reg(r, "L3", 0, 1), FULL);
	tu_check_invariants(r);
	/* Setting it again changes nothing. */
	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 1);
	assert_int_equal(tu_stats(r).cfg_writes, 2);

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 0));
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 0);
	ri = tu_res(r, 0);
	assert_int_equal(ri.cdp_enabled, 0);
	assert_int_equal(ri.num_closids, 16);
	assert_int_equal(tu_stats(r).cfg_writes, 4);
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\n");
	assert_closids(r, "L3", 0, one, 1);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void only_with_default_alone(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_set_cdp(r, "L3", 1), -EBUSY);
	assert_unchanged(r, before, true);
	assert_ok(r, rdtalloc_group_remove(r, "g"));
	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_set_cdp(r, "L3", 0), -EBUSY);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void unsupported_resources(void **state)
{
	rdtalloc_t *r = tu_eph(M2V ";l3.cdp=0");
	rdtalloc_t *r2 = tu_eph(M2CDP);
	char *before = tu_dump(r, true);

	assert_int_equal(tu_res(r, 0).cdp_supported, 0);
	assert_err(r, rdtalloc_set_cdp(r, "L3", 1), -EINVAL);
	assert_unchanged(r, before, true);
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 0);
	assert_err(r2, rdtalloc_set_cdp(r2, "L2", 1), -EINVAL);
	assert_err(r2, rdtalloc_set_cdp(r2, "L4", 1), -EINVAL);
	assert_err(r2, rdtalloc_set_cdp(r2, NULL, 1), -EINVAL);
	assert_true(rdtalloc_get_cdp(r2, "L2") < 0);
	assert_int_equal(rdtalloc_get_cdp(r2, "L3"), 0);
	rdtalloc_close(r);
	rdtalloc_close(r2);
}

static void schema_forms_and_registers(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	const struct tu_closid d0[] = { { 0, 0xff, 0xf0, 1 }, { 1, 0xf, 0xf0, 1 } };

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	/* the 2016 patch set's form: data,code. */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff,f0"));
	assert_schema(r, NULL, "L3:0=000ff,000f0;1=fffff,fffff\n");
	assert_int_equal(tu_reg(r, "L3", 0, 0), 0xff);
	assert_int_equal(tu_reg(r, "L3", 0, 1), 0xf0);
	/* One mask with CDP on sets both. */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:1=3ff"));
	assert_schema(r, NULL, "L3:0=000ff,000f0;1=003ff,003ff\n");
	/* resctrl form: L3DATA / L3CODE lines, each only its half. */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3DATA:1=3"));
	assert_schema(r, NULL, "L3:0=000ff,000f0;1=00003,003ff\n");
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3CODE:1=c\nL3DATA:0=fffff"));
	assert_schema(r, NULL, "L3:0=fffff,000f0;1=00003,0000c\n");
	assert_int_equal(tu_reg(r, "L3", 1, 0), 0x3);
	assert_int_equal(tu_reg(r, "L3", 1, 1), 0xc);

	/* A group: CLOSID n uses registers 2n (data) and 2n+1 (code). */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff,f0"));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_int_equal(tu_closid(r, "g", "L3", 0), 1);
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f,f0"));
	assert_int_equal(tu_closid(r, "g", "L3", 0), 1);
	assert_int_equal(tu_reg(r, "L3", 0, 2), 0xf);
	assert_int_equal(tu_reg(r, "L3", 0, 3), 0xf0);
	assert_closids(r, "L3", 0, d0, 2);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void cdp_bad_text(void **state)
{
	static const char *const bad[] = {
		"L3:0=ff,5", "L3:0=ff,", "L3:0=,ff", "L3:0=ff,f0,f", "L3DATA:2=f",
		"L3CODE:0=0", "L3DATA:0=ff\nL3:0=f", "L3:0=ff\nL3CODE:0=f0,f",
	};
	rdtalloc_t *r = tu_eph(M2CDP);
	unsigned int i;

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *before = tu_dump(r, true);
		int rc = rdtalloc_set_schema(r, "g", bad[i]);

		if (rc != -EINVAL)
			print_error("schema \"%s\": %d\n", bad[i], rc);
		assert_int_equal(rc, -EINVAL);
		assert_true(rdtalloc_errmsg(r)[0] != '\0');
		assert_unchanged(r, before, true);
	}
	rdtalloc_close(r);
}

static void sharing_needs_both_halves(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	const struct tu_closid d0[] = {
		{ 0, FULL, FULL, 1 }, { 1, 0xff, 0xff, 2 }, { 2, 0xff, 0xf, 1 },
	};

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=ff"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=ff,ff"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=ff,f"));
	assert_closids(r, "L3", 0, d0, 3);
	assert_int_equal(tu_closid(r, "b", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "c", "L3", 0), 2);
	assert_int_equal(tu_reg(r, "L3", 0, 4), 0xff);
	assert_int_equal(tu_reg(r, "L3", 0, 5), 0xf);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void exhaustion_at_half(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	char name[8], schema[32];
	char *before;
	int i;

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	for (i = 1; i <= 7; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		snprintf(schema, sizeof(schema), "L3:0=%x,1", (1u << i) - 1);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_ok(r, rdtalloc_set_schema(r, name, schema));
		assert_int_equal(tu_closid(r, name, "L3", 0), i);
	}
	assert_ok(r, rdtalloc_group_create(r, "x"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_set_schema(r, "x", "L3:1=f;0=3,3"), -ENOSPC);
	assert_errmsg_has(r, "L3 cache id 0: no free CLOSID (8 in use)");
	assert_unchanged(r, before, true);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void switch_uses_cdp_closids(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	RDTALLOC_OPTS(rdtalloc_switch, sw);

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f,f0"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 42));
	assert_ok(r, rdtalloc_sim_switch(r, 1, 42, &sw));
	assert_int_equal(sw.closid, 1);
	assert_int_equal(sw.pqr_written, 1);
	assert_int_equal(tu_pqr(r, 1), 1);
	rdtalloc_close(r);
}

static void reset_turns_cdp_off(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f,f0"));
	assert_ok(r, rdtalloc_reset(r));
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 0);
	assert_int_equal(tu_res(r, 0).num_closids, 16);
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

/* A fresh state directory per test, removed even when the test fails. */
static int setup_dir(void **state)
{
	char *dir = malloc(64);

	if (!dir || !mkdtemp(strcpy(dir, "/tmp/rdtalloc-apitest-XXXXXX")))
		return -1;
	*state = dir;
	return 0;
}

static int teardown_dir(void **state)
{
	tu_rm_rf(*state);
	free(*state);
	return 0;
}

static void kept_across_reopen(void **state)
{
	const char *dir = *state;
	rdtalloc_t *r;
	char *before;

	r = tu_open(dir, M2CDP, 0);
	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff,f0"));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:1=3,c"));
	before = tu_dump(r, true);
	rdtalloc_close(r);
	r = tu_open(dir, M2CDP, 0);
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 1);
	assert_schema(r, NULL, "L3:0=000ff,000f0;1=fffff,fffff\n");
	assert_schema(r, "g", "L3:0=fffff,fffff;1=00003,0000c\n");
	assert_unchanged(r, before, true);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void l2_cdp(void **state)
{
	rdtalloc_t *r = tu_eph(ML2 ";l2.cdp=1");
	struct rdtalloc_resource_info l2;

	assert_ok(r, rdtalloc_set_cdp(r, "L2", 1));
	assert_int_equal(rdtalloc_get_cdp(r, "L2"), 1);
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 0);
	l2 = tu_res(r, 1);
	assert_int_equal(l2.num_closids, 4);
	assert_schema(r, NULL, "L3:0=fffff\nL2:0=ff,ff;1=ff,ff\n");
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L2CODE:1=f\nL2DATA:0=3"));
	assert_schema(r, NULL, "L3:0=fffff\nL2:0=03,ff;1=ff,0f\n");
	assert_int_equal(tu_reg(r, "L2", 0, 0), 0x3);
	assert_int_equal(tu_reg(r, "L2", 1, 1), 0xf);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enable_and_disable),
		cmocka_unit_test(only_with_default_alone),
		cmocka_unit_test(unsupported_resources),
		cmocka_unit_test(schema_forms_and_registers),
		cmocka_unit_test(cdp_bad_text),
		cmocka_unit_test(sharing_needs_both_halves),
		cmocka_unit_test(exhaustion_at_half),
		cmocka_unit_test(switch_uses_cdp_closids),
		cmocka_unit_test(reset_turns_cdp_off),
		cmocka_unit_test_setup_teardown(kept_across_reopen, setup_dir, teardown_dir),
		cmocka_unit_test(l2_cdp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
