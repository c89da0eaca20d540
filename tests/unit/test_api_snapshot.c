// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_snapshot: RDTALLOC_F_SNAPSHOT. A context that looks answers
 * from the state it last read - another process's change is not seen -
 * until it makes a change itself, which reads the current state first;
 * without the flag every look sees the latest state. RDTALLOC_F_READ_ONLY:
 * every change is -EROFS and the state directory is left as it was; a
 * directory without a state reads as the defaults and stays empty.
 */
#include <dirent.h>
#include <sys/stat.h>
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

/*
 * The names and modification times in dir, one per line, in readdir order.
 * Not "..": it is the shared /tmp, which other tests change at any time.
 */
static char *listing(const char *dir)
{
	static char buf[2][4096];
	static int k;
	char path[512];
	struct dirent *e;
	struct stat sb;
	size_t off = 0;
	DIR *d = opendir(dir);

	k ^= 1;
	buf[k][0] = '\0';
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!stat(path, &sb))
			off += (size_t)snprintf(buf[k] + off, sizeof(buf[k]) - off, "%s %lld %ld.%09ld\n",
						e->d_name, (long long)sb.st_size,
						(long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
	}
	if (d)
		closedir(d);
	return buf[k];
}

static void read_only_changes_nothing(void **s)
{
	char dir[64], empty[64], buf[64], *before;
	rdtalloc_t *w, *ro;

	(void)s;
	w = tu_open(tu_mkdtemp(dir), M2V, 0);
	assert_ok(w, rdtalloc_group_create(w, "a"));
	rdtalloc_close(w);
	before = strdup(listing(dir));
	ro = tu_open(dir, M2V, RDTALLOC_F_READ_ONLY);
	assert_int_equal(rdtalloc_group_count(ro), 2);
	assert_ok(ro, rdtalloc_get_schema(ro, "a", buf, sizeof(buf)));
	assert_err(ro, rdtalloc_group_create(ro, "b"), -EROFS);
	assert_errmsg_has(ro, "opened read only (RDTALLOC_F_READ_ONLY)");
	assert_err(ro, rdtalloc_set_schema(ro, "a", "L3:0=f"), -EROFS);
	assert_err(ro, rdtalloc_reset(ro), -EROFS);
	assert_int_equal(rdtalloc_group_count(ro), 2);
	rdtalloc_close(ro);
	assert_string_equal(listing(dir), before);
	free(before);
	/* no state: the defaults, and nothing made */
	tu_mkdtemp(empty);
	before = strdup(listing(empty));
	ro = tu_open(empty, M2V, RDTALLOC_F_READ_ONLY);
	assert_int_equal(rdtalloc_group_count(ro), 1);
	assert_err(ro, rdtalloc_group_create(ro, "b"), -EROFS);
	rdtalloc_close(ro);
	assert_string_equal(listing(empty), before);
	free(before);
	tu_rm_rf(dir);
	tu_rm_rf(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_looks),
		cmocka_unit_test(read_only_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
