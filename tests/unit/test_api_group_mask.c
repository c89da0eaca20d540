// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_group_mask: rdtalloc_group_mask (0.8), a group's masks in one
 * domain read from the state: the values rdtalloc_get_schema prints (CBM,
 * CDP's two halves, MB's bandwidth), what a caller's sz lets it write, and
 * each error with its message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

/* The masks of group in L3/L2/MB domain id, asserted to succeed. */
static struct rdtalloc_mask_info get(rdtalloc_t *r, const char *group, const char *res,
				      unsigned int id)
{
	struct rdtalloc_mask_info m = { .sz = sizeof(m), .mask = 1234, .code_mask = 5678,
					 .cdp = 9 };

	assert_ok(r, rdtalloc_group_mask(r, group, res, id, &m));
	assert_int_equal(m.sz, sizeof(m));
	return m;
}

static void masks_as_the_schema_says(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_mask_info m;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=3;1=f0"));
	assert_schema(r, "g", "L3:0=00003;1=000f0\n");
	m = get(r, "g", "L3", 0);
	assert_int_equal(m.mask, 0x3);
	assert_int_equal(m.code_mask, 0x3);
	assert_int_equal(m.cdp, 0);
	m = get(r, "g", "L3", 1);
	assert_int_equal(m.mask, 0xf0);
	assert_int_equal(m.code_mask, 0xf0);
	/* the default group (NULL or "default"): every way */
	assert_int_equal(get(r, NULL, "L3", 1).mask, 0xfffff);
	assert_int_equal(get(r, "default", "L3", 0).code_mask, 0xfffff);
	rdtalloc_close(r);
}

static void cdp_halves(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);
	struct rdtalloc_mask_info m;

	assert_ok(r, rdtalloc_set_cdp(r, "L3", 1));
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=ff,f0\nL3CODE:1=3"));
	m = get(r, "g", "L3", 0);
	assert_int_equal(m.mask, 0xff);
	assert_int_equal(m.code_mask, 0xf0);
	assert_int_equal(m.cdp, 1);
	m = get(r, "g", "L3", 1);
	assert_int_equal(m.mask, 0xfffff);
	assert_int_equal(m.code_mask, 0x3);
	assert_int_equal(m.cdp, 1);
	assert_schema(r, "g", "L3:0=000ff,000f0;1=fffff,00003\n");
	rdtalloc_close(r);
}

static void l2_and_mb(void **state)
{
	rdtalloc_t *r = tu_eph(ML2);
	rdtalloc_t *mb = tu_eph(M2V ";mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10");

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L2:1=c"));
	assert_int_equal(get(r, "g", "L2", 1).mask, 0xc);
	assert_int_equal(get(r, "g", "L2", 0).mask, 0xff);
	assert_ok(mb, rdtalloc_group_create(mb, "g"));
	assert_ok(mb, rdtalloc_set_schema(mb, "g", "MB:1=40"));
	assert_int_equal(get(mb, "g", "MB", 1).mask, 40);
	assert_int_equal(get(mb, "g", "MB", 0).mask, 100);
	rdtalloc_close(mb);
	rdtalloc_close(r);
}

/* An older caller's smaller struct gets only its fields; a newer one's tail is left alone. */
static void caller_sizes(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct {
		struct rdtalloc_mask_info m;
		uint64_t tail;
	} big = { .m.sz = sizeof(big), .tail = 0xdead };
	struct rdtalloc_mask_info small = { .sz = offsetof(struct rdtalloc_mask_info, code_mask),
					     .code_mask = 77, .cdp = 7 };

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=7ff"));
	assert_ok(r, rdtalloc_group_mask(r, NULL, "L3", 0, &small));
	assert_int_equal(small.sz, offsetof(struct rdtalloc_mask_info, code_mask));
	assert_int_equal(small.mask, 0x7ff);
	assert_int_equal(small.code_mask, 77);
	assert_int_equal(small.cdp, 7);
	assert_ok(r, rdtalloc_group_mask(r, NULL, "L3", 0, &big.m));
	assert_int_equal(big.m.sz, sizeof(struct rdtalloc_mask_info));
	assert_int_equal(big.m.mask, 0x7ff);
	assert_int_equal(big.m.code_mask, 0x7ff);
	assert_int_equal(big.tail, 0xdead);
	rdtalloc_close(r);
}

static void errors(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_mask_info m = { .sz = sizeof(m), .mask = 42, .code_mask = 43 };
	struct rdtalloc_mask_info bad = { .sz = sizeof(size_t) };

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_int_equal(rdtalloc_group_mask(NULL, "g", "L3", 0, &m), -EINVAL);
	assert_err(r, rdtalloc_group_mask(r, "g", "L3", 0, NULL), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_group_mask: out is NULL");
	assert_err(r, rdtalloc_group_mask(r, "g", "L3", 0, &bad), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_mask_info.sz is 8: set it to "
			    "sizeof(struct rdtalloc_mask_info)");
	assert_int_equal(bad.mask, 0);
	assert_err(r, rdtalloc_group_mask(r, "nope", "L3", 0, &m), -ENOENT);
	assert_string_equal(rdtalloc_errmsg(r), "no group named 'nope'");
	assert_err(r, rdtalloc_group_mask(r, "g", "L3", 7, &m), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 7 does not exist (have 0,1)");
	assert_err(r, rdtalloc_group_mask(r, "g", "L2", 0, &m), -EINVAL);
	assert_errmsg_has(r, "resource 'L2' is not available on this machine");
	/* nothing written on a failure */
	assert_int_equal(m.mask, 42);
	assert_int_equal(m.code_mask, 43);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(masks_as_the_schema_says),
		cmocka_unit_test(cdp_halves),
		cmocka_unit_test(l2_and_mb),
		cmocka_unit_test(caller_sizes),
		cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
