// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_ways: rdtalloc_domain_ways and the io_alloc calls (0.8) on the
 * simulator, through the public header: the struct's size honoured (an
 * older caller's shorter struct gets only its fields), bad arguments
 * refused by name with nothing changed, io_alloc's CLOSID kept from groups
 * and its masks kept in a state that is opened again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#define TURIN "preset=amd-turin;topology=package:1 l3:2 core:2 pu:1;tasks=virtual"

static void ways_sizes(void **state)
{
	rdtalloc_t *r = tu_eph("preset=skylake-sp;tasks=virtual");
	struct rdtalloc_ways_info w = { .sz = sizeof(w) };
	unsigned char buf[sizeof(w) + 8];
	struct rdtalloc_ways_info *small = (struct rdtalloc_ways_info *)buf;

	(void)state;
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 1, &w));
	assert_int_equal(w.sz, sizeof(w));
	assert_int_equal(w.io_ways, 0x600);
	assert_int_equal(w.foreign_ways, 0);
	assert_int_equal(w.io_alloc_supported, 0);
	/* a caller that knows only sz and io_ways: nothing past them is written */
	memset(buf, 0xa5, sizeof(buf));
	small->sz = offsetof(struct rdtalloc_ways_info, foreign_ways);
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 0, small));
	assert_int_equal(small->sz, offsetof(struct rdtalloc_ways_info, foreign_ways));
	assert_int_equal(small->io_ways, 0x600);
	assert_int_equal(buf[offsetof(struct rdtalloc_ways_info, foreign_ways)], 0xa5);
	/* refused by name */
	w.sz = 0;
	assert_err(r, rdtalloc_domain_ways(r, "L3", 0, &w), -EINVAL);
	assert_errmsg_has(r, "info->sz is not set");
	w.sz = sizeof(w);
	assert_err(r, rdtalloc_domain_ways(r, "L3", 7, &w), -EINVAL);
	assert_errmsg_has(r, "L3 cache id 7 does not exist");
	assert_err(r, rdtalloc_domain_ways(r, "MB", 0, &w), -EINVAL);
	assert_errmsg_has(r, "MB has no ways");
	assert_err(r, rdtalloc_io_alloc_enable(r, 1), -EOPNOTSUPP);
	assert_errmsg_has(r, "this machine has no L3 I/O allocation");
	rdtalloc_close(r);
}

static void io_alloc_sim(void **state)
{
	char dir[64];
	rdtalloc_t *r;
	struct rdtalloc_ways_info w = { .sz = sizeof(w) };

	(void)state;
	tu_mkdtemp(dir);
	r = tu_open(dir, TURIN, 0);
	assert_err(r, rdtalloc_io_alloc_enable(r, 2), -EINVAL);
	assert_errmsg_has(r, "io_alloc: on must be 0 or 1, not 2");
	assert_err(r, rdtalloc_io_alloc_set_mask(r, NULL), -EINVAL);
	assert_err(r, rdtalloc_io_alloc_set_mask(r, "L3:0=3"), -EINVAL);
	assert_errmsg_has(r, "io_alloc is not enabled on L3");
	assert_ok(r, rdtalloc_io_alloc_enable(r, 1));
	assert_ok(r, rdtalloc_io_alloc_enable(r, 1));	/* as the kernel: no change */
	assert_ok(r, rdtalloc_io_alloc_set_mask(r, " L3:1 = 30 ; 0=0x3 "));
	rdtalloc_close(r);
	/* kept in the state */
	r = tu_open(dir, TURIN, 0);
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 0, &w));
	assert_int_equal(w.io_alloc_enabled, 1);
	assert_int_equal(w.io_alloc_closid, 15);
	assert_int_equal(w.io_alloc_mask, 0x3);
	assert_int_equal(w.io_ways, 0x3);
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 1, &w));
	assert_int_equal(w.io_alloc_mask, 0x30);
	/* a mask refused changes nothing */
	assert_err(r, rdtalloc_io_alloc_set_mask(r, "L3:0=1;9=1"), -EINVAL);
	assert_errmsg_has(r, "io_alloc mask: L3 cache id 9 does not exist");
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 0, &w));
	assert_int_equal(w.io_alloc_mask, 0x3);
	assert_ok(r, rdtalloc_io_alloc_enable(r, 0));
	assert_ok(r, rdtalloc_domain_ways(r, "L3", 0, &w));
	assert_int_equal(w.io_alloc_enabled, 0);
	assert_int_equal(w.io_ways, 0);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ways_sizes),
		cmocka_unit_test(io_alloc_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
