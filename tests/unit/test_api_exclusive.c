// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_exclusive: exclusive groups through the public API. No other
 * group's mask - the default group's included - may overlap an exclusive
 * group's in any cache domain, now or later; data and code masks count
 * alike with CDP; new groups start beside the exclusive ways; shareable
 * ways only when forced; every refusal names the domain, the group and the
 * bits and changes nothing; the mode is kept in the state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

/* default on the low ways of both domains, rt alone on 0xf80 / 0xf0000 */
static rdtalloc_t *with_rt(const char *dir, const char *machine)
{
	rdtalloc_t *r = dir ? tu_open(dir, machine, 0) : tu_eph(machine);

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=7f;1=ffff"));
	assert_ok(r, rdtalloc_group_create(r, "rt"));
	assert_ok(r, rdtalloc_set_schema(r, "rt", "L3:0=f80;1=f0000"));
	assert_ok(r, rdtalloc_group_set_mode(r, "rt", RDTALLOC_MODE_EXCLUSIVE));
	return r;
}

static void overlaps_refused(void **state)
{
	rdtalloc_t *r = with_rt(NULL, M2V);
	char *before;

	assert_int_equal(rdtalloc_group_get_mode(r, "rt"), RDTALLOC_MODE_EXCLUSIVE);
	assert_int_equal(rdtalloc_group_get_mode(r, NULL), RDTALLOC_MODE_SHAREABLE);
	before = tu_dump(r, false);
	/* the default group may not take rt's ways back */
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r),
			    "L3 cache id 0: 0x000ff overlaps exclusive group rt (0x00f80)");
	assert_unchanged(r, before, false);
	/* nor may rt reach into another group's ways */
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_set_schema(r, "rt", "L3:1=1f000"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 1: exclusive group rt (0x1f000) "
			    "overlaps group default (0x0ffff)");
	assert_unchanged(r, before, false);
	/* a partial update elsewhere is fine */
	assert_ok(r, rdtalloc_set_schema(r, "rt", "L3:0=780"));
	assert_schema(r, "rt", "L3:0=00780;1=f0000\n");
	rdtalloc_close(r);
}

static void new_groups_start_beside(void **state)
{
	rdtalloc_t *r = with_rt(NULL, M2V);

	/* the ways no exclusive group holds: the lowest run of them */
	assert_ok(r, rdtalloc_group_create(r, "other"));
	assert_schema(r, "other", "L3:0=0007f;1=0ffff\n");
	/* making a group exclusive that overlaps another is refused, and changes nothing */
	assert_err(r, rdtalloc_group_set_mode(r, "other", RDTALLOC_MODE_EXCLUSIVE), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 0: exclusive group other (0x0007f) "
			    "overlaps group default (0x0007f)");
	assert_int_equal(rdtalloc_group_get_mode(r, "other"), RDTALLOC_MODE_SHAREABLE);
	/* shareable again: the default group may take the ways back */
	assert_ok(r, rdtalloc_group_set_mode(r, "rt", RDTALLOC_MODE_SHAREABLE));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=fffff"));
	assert_err(r, rdtalloc_group_set_mode(r, "rt", 7), -EINVAL);
	rdtalloc_close(r);
}

/* Every way of a domain exclusive: a new group has none, and is not made. */
static void no_ways_left(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before;

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=1;1=1"));
	assert_ok(r, rdtalloc_group_create(r, "all"));
	assert_ok(r, rdtalloc_set_schema(r, "all", "L3:0=ffffe;1=ffffe"));
	assert_ok(r, rdtalloc_group_set_mode(r, "all", RDTALLOC_MODE_EXCLUSIVE));
	assert_ok(r, rdtalloc_group_set_mode(r, NULL, RDTALLOC_MODE_EXCLUSIVE));
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_group_create(r, "late"), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 0: exclusive groups hold the ways "
			    "a new group would need (0xfffff taken)");
	assert_unchanged(r, before, false);
	rdtalloc_close(r);
}

/* With CDP, an exclusive group's code mask is its ways as much as its data mask. */
static void cdp_halves(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=f,f;1=f,f"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f0,f00;1=f0,f00"));
	assert_ok(r, rdtalloc_group_set_mode(r, "c", RDTALLOC_MODE_EXCLUSIVE));
	/* the default group's data mask on c's code ways */
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3DATA:0=300"), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r),
			    "L3 cache id 0: data mask 0x00300 overlaps exclusive group c (code mask 0x00f00)");
	rdtalloc_close(r);
}

/* Skylake-SP shares ways 0x600 with I/O: an exclusive group there only when forced. */
static void shareable_ways_need_force(void **state)
{
	rdtalloc_t *r = tu_eph("preset=skylake-sp;tasks=virtual");

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff;1=ff"));
	assert_ok(r, rdtalloc_group_create(r, "io"));
	assert_ok(r, rdtalloc_set_schema(r, "io", "L3:0=700;1=700"));
	assert_err(r, rdtalloc_group_set_mode(r, "io", RDTALLOC_MODE_EXCLUSIVE), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 0: exclusive group io would hold "
			    "the shareable ways 0x600, which other agents (such as I/O) fill too; "
			    "force it if that is meant");
	assert_ok(r, rdtalloc_group_set_mode(r, "io", RDTALLOC_MODE_EXCLUSIVE |
					     RDTALLOC_MODE_FORCE));
	assert_int_equal(rdtalloc_group_get_mode(r, "io"),
			 RDTALLOC_MODE_EXCLUSIVE | RDTALLOC_MODE_FORCE);
	rdtalloc_close(r);
}

static void kept_in_the_state(void **state)
{
	char dir[64];
	rdtalloc_t *r;

	tu_mkdtemp(dir);
	r = with_rt(dir, M2V);
	rdtalloc_close(r);
	r = tu_open(dir, NULL, 0);
	assert_int_equal(rdtalloc_group_get_mode(r, "rt"), RDTALLOC_MODE_EXCLUSIVE);
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"), -EINVAL);
	/* reset: every group gone, default shareable */
	assert_ok(r, rdtalloc_reset(r));
	assert_int_equal(rdtalloc_group_get_mode(r, NULL), RDTALLOC_MODE_SHAREABLE);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* save writes the mode, apply restores it; a conflicting mode names its line */
static void config_carries_mode(void **state)
{
	rdtalloc_t *r = with_rt(NULL, M2V);
	char *conf = malloc(65536);
	const char *bad = "group default\n\tschema L3:0=fffff;1=fffff\n"
			  "group rt\n\tschema L3:0=f80;1=f0000\n\tmode exclusive\n";
	char *before;

	assert_ok(r, rdtalloc_save_config(r, conf, 65536));
	assert_non_null(strstr(conf, "group rt\n\tschema L3:0=00f80;1=f0000\n\tmode exclusive\n"));
	assert_ok(r, rdtalloc_reset(r));
	assert_int_equal(rdtalloc_apply_config(r, conf, 0), 4);
	assert_int_equal(rdtalloc_group_get_mode(r, "rt"), RDTALLOC_MODE_EXCLUSIVE);
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"), -EINVAL);
	/* the same again: nothing to do */
	assert_int_equal(rdtalloc_apply_config(r, conf, 0), 0);
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_apply_config(r, bad, 0), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "line 5: L3 cache id 0: exclusive group rt "
			    "(0x00f80) overlaps group default (0xfffff)");
	assert_unchanged(r, before, false);
	free(conf);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlaps_refused),
		cmocka_unit_test(new_groups_start_beside),
		cmocka_unit_test(no_ways_left),
		cmocka_unit_test(cdp_halves),
		cmocka_unit_test(shareable_ways_need_force),
		cmocka_unit_test(kept_in_the_state),
		cmocka_unit_test(config_carries_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
