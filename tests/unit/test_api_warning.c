// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_warning: rdtalloc_warning(), the channel for what a call that
 * did what was asked wants its caller to know: a schema on the ways a
 * machine shares with I/O (Skylake-SP's 0x600). Exact text, only the
 * domains the call set, data and code halves with CDP, cleared by the next
 * change, kept by calls that only look, empty after a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#define SKX "preset=skylake-sp;tasks=virtual"

static void shareable_ways_warn(void **state)
{
	rdtalloc_t *r = tu_eph(SKX);
	char buf[256];

	assert_ok(r, rdtalloc_group_create(r, "io"));
	assert_string_equal(rdtalloc_warning(r), "");
	assert_ok(r, rdtalloc_set_schema(r, "io", "L3:0=700"));
	assert_string_equal(rdtalloc_warning(r), "L3 cache id 0: mask 0x700 uses the shareable "
			    "ways 0x600, which other agents (such as I/O) fill too: group io does "
			    "not have them to itself");
	/* a look keeps it */
	assert_ok(r, rdtalloc_get_schema(r, "io", buf, sizeof(buf)));
	assert_true(rdtalloc_warning(r)[0] != '\0');
	/* two domains set, both on shared ways: two lines */
	assert_ok(r, rdtalloc_set_schema(r, "io", "L3:0=600;1=7ff"));
	assert_string_equal(rdtalloc_warning(r), "L3 cache id 0: mask 0x600 uses the shareable "
			    "ways 0x600, which other agents (such as I/O) fill too: group io does "
			    "not have them to itself\nL3 cache id 1: mask 0x7ff uses the shareable "
			    "ways 0x600, which other agents (such as I/O) fill too: group io does "
			    "not have them to itself");
	/* off the shared ways: nothing to say (domain 1, not set, is not looked at) */
	assert_ok(r, rdtalloc_set_schema(r, "io", "L3:0=f"));
	assert_string_equal(rdtalloc_warning(r), "");
	/* a failed change says nothing */
	assert_ok(r, rdtalloc_set_schema(r, "io", "L3:0=600"));
	assert_err(r, rdtalloc_set_schema(r, "io", "L3:0=5"), -EINVAL);
	assert_string_equal(rdtalloc_warning(r), "");
	rdtalloc_close(r);
}

static void no_shareable_no_warning(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=fffff;1=fffff"));
	assert_string_equal(rdtalloc_warning(r), "");
	assert_string_equal(rdtalloc_warning(NULL), "");
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shareable_ways_warn),
		cmocka_unit_test(no_shareable_no_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
