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

static void config_length(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char buf[4096];
	int n;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 42));
	n = rdtalloc_save_config(r, NULL, 0);
	assert_true(n > 0);
	assert_int_equal(rdtalloc_save_config(r, buf, sizeof(buf)), n);
	assert_int_equal(strlen(buf), n);
	assert_err(r, rdtalloc_save_config(r, buf, (size_t)n), -ERANGE);
	/* without tasks: shorter, and the same question answered */
	assert_true(rdtalloc_save_config_flags(r, 0, NULL, 0) < n);
	rdtalloc_close(r);
}

static void cpulist_length(void **state)
{
	const int cpus[] = { 0, 1, 2, 3, 8 };

	assert_int_equal(rdtalloc_format_cpulist(cpus, 5, NULL, 0), strlen("0-3,8"));
}

/* The sized CLOSID table, with the names of the groups holding each CLOSID. */
static void closid_entries_with_names(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_closid_entry e[4] = { { .sz = sizeof(e[0]) } };
	struct {
		struct rdtalloc_closid_entry e;
		uint64_t future;	/* a newer caller's larger entry */
	} big[4] = { { .e.sz = sizeof(big[0]), .future = 7 } };
	char names[64];
	int n;

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f"));
	n = rdtalloc_closid_entries(r, "L3", 0, e, 4, names, sizeof(names));
	assert_int_equal(n, 2);
	assert_int_equal(e[0].closid, 0);
	assert_int_equal(e[0].mask, 0xfffff);
	assert_int_equal(e[0].refcount, 2);
	assert_string_equal(e[0].groups, "default,b");
	assert_int_equal(e[1].closid, 1);
	assert_int_equal(e[1].mask, 0xf);
	assert_string_equal(e[1].groups, "a,c");
	/* the other domain: one CLOSID for all four */
	n = rdtalloc_closid_entries(r, "L3", 1, e, 4, names, sizeof(names));
	assert_int_equal(n, 1);
	assert_string_equal(e[0].groups, "default,a,b,c");
	/* without names; and counting only */
	assert_int_equal(rdtalloc_closid_entries(r, "L3", 0, e, 4, NULL, 0), 2);
	assert_null(e[0].groups);
	assert_int_equal(rdtalloc_closid_entries(r, "L3", 0, NULL, 0, NULL, 0), 2);
	/* too small for the names: how many bytes */
	assert_err(r, rdtalloc_closid_entries(r, "L3", 1, e, 4, names, 8), -ERANGE);
	assert_string_equal(rdtalloc_errmsg(r), "the group names need 14 bytes, the buffer has 8");
	/* a larger entry: the stride is its size, the unknown tail untouched */
	assert_int_equal(rdtalloc_closid_entries(r, "L3", 0, &big[0].e, 4, names, sizeof(names)), 2);
	assert_int_equal(big[1].e.closid, 1);
	assert_string_equal(big[1].e.groups, "a,c");
	assert_int_equal(big[0].future, 7);
	e[0].sz = 0;
	assert_err(r, rdtalloc_closid_entries(r, "L3", 0, e, 4, NULL, 0), -EINVAL);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_length),
		cmocka_unit_test(group_name_length),
		cmocka_unit_test(cpulist_length),
		cmocka_unit_test(config_length),
		cmocka_unit_test(closid_entries_with_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
