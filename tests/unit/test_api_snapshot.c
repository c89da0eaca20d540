// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_snapshot: RDTALLOC_F_SNAPSHOT. A context that looks answers
 * from the state it last read - another process's change is not seen -
 * until it makes a change itself, which reads the current state first;
 * without the flag every look sees the latest state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static void snapshot_looks(void **s)
{
	char dir[64], buf[64];
	rdtalloc_t *w, *snap, *live;

	(void)s;
	w = tu_open(tu_mkdtemp(dir), M2V, 0);
	assert_ok(w, rdtalloc_group_create(w, "a"));
	snap = tu_open(dir, M2V, RDTALLOC_F_SNAPSHOT);
	live = tu_open(dir, M2V, 0);
	assert_int_equal(rdtalloc_group_count(snap), 2);
	assert_int_equal(rdtalloc_group_count(live), 2);
	/* another context changes the state */
	assert_ok(w, rdtalloc_group_create(w, "b"));
	assert_ok(w, rdtalloc_set_schema(w, "a", "L3:0=f"));
	assert_int_equal(rdtalloc_group_count(live), 3);
	/* the snapshot still answers from what it read, consistently */
	assert_int_equal(rdtalloc_group_count(snap), 2);
	assert_err(snap, rdtalloc_get_schema(snap, "b", buf, sizeof(buf)), -ENOENT);
	assert_ok(snap, rdtalloc_get_schema(snap, "a", buf, sizeof(buf)));
	assert_string_equal(buf, "L3:0=fffff;1=fffff\n");
	/* a change reads the current state first, and later looks see it */
	assert_ok(snap, rdtalloc_group_create(snap, "c"));
	assert_int_equal(rdtalloc_group_count(snap), 4);
	assert_ok(snap, rdtalloc_get_schema(snap, "a", buf, sizeof(buf)));
	assert_string_equal(buf, "L3:0=0000f;1=fffff\n");
	/* a failed change leaves looks on the file's state */
	assert_err(snap, rdtalloc_group_create(snap, "a"), -EEXIST);
	assert_int_equal(rdtalloc_group_count(snap), 4);
	assert_int_equal(rdtalloc_group_count(live), 4);
	rdtalloc_close(w);
	rdtalloc_close(snap);
	rdtalloc_close(live);
	tu_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_looks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
