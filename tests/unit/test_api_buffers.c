// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_buffers: every call that fills a caller's buffer answers the
 * question "how long?" as snprintf does - buf NULL and len 0 give the
 * length - and a buffer too small is refused without a partial answer
 * passed off as a whole one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static void schema_length(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const char *want = "L3:0=0000f;1=fffff\n";
	char buf[64];

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f"));
	assert_int_equal(rdtalloc_get_schema(r, "g", NULL, 0), strlen(want));
	assert_int_equal(rdtalloc_get_schema(r, "g", buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
	/* exactly the length: no room for the NUL */
	assert_err(r, rdtalloc_get_schema(r, "g", buf, strlen(want)), -ERANGE);
	assert_err(r, rdtalloc_get_schema(r, "g", NULL, 4), -EINVAL);
	rdtalloc_close(r);
}

static void group_name_length(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char buf[16];

	assert_ok(r, rdtalloc_group_create(r, "latency"));
	assert_ok(r, rdtalloc_bind_task(r, "latency", 42));
	assert_ok(r, rdtalloc_bind_cpu(r, "latency", 1));
	assert_int_equal(rdtalloc_task_group(r, 42, NULL, 0), 7);
	assert_int_equal(rdtalloc_cpu_group(r, 1, NULL, 0), 7);
	assert_int_equal(rdtalloc_cpu_group(r, 0, NULL, 0), 7);	/* "default" */
	assert_int_equal(rdtalloc_task_group(r, 42, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "latency");
	assert_err(r, rdtalloc_task_group(r, 42, buf, 7), -ERANGE);
	rdtalloc_close(r);
}

static void cpulist_length(void **state)
{
	const int cpus[] = { 0, 1, 2, 3, 8 };

	assert_int_equal(rdtalloc_format_cpulist(cpus, 5, NULL, 0), strlen("0-3,8"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_length),
		cmocka_unit_test(group_name_length),
		cmocka_unit_test(cpulist_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
