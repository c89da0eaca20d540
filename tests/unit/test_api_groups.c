// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_groups: black-box tests of group creation, removal, naming and
 * listing through the public API (issue 3 §2): the default group's three
 * names, the name rules, -EEXIST / -ENOENT / -EBUSY, and that a failed call
 * changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static const char *const default_names[] = { NULL, "", "default" };

static void default_group_has_three_names(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	unsigned int i;

	assert_int_equal(rdtalloc_group_count(r), 1);
	for (i = 0; i < 3; i++) {
		assert_schema(r, default_names[i], "L3:0=fffff;1=fffff\n");
		assert_int_equal(tu_closid(r, default_names[i], "L3", 0), 0);
		assert_int_equal(tu_closid(r, default_names[i], "L3", 1), 0);
	}
	/* A schema set through one name is seen through the others. */
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff"));
	assert_schema(r, "", "L3:0=000ff;1=fffff\n");
	assert_ok(r, rdtalloc_set_schema(r, "", "L3:1=f"));
	assert_schema(r, "default", "L3:0=000ff;1=0000f\n");
	assert_ok(r, rdtalloc_set_schema(r, "default", "L3:0=fffff"));
	assert_schema(r, NULL, "L3:0=fffff;1=0000f\n");
	rdtalloc_close(r);
}

static void default_group_cannot_be_removed(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	unsigned int i;
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	before = tu_dump(r, true);
	for (i = 0; i < 3; i++) {
		assert_err(r, rdtalloc_group_remove(r, default_names[i]), -EBUSY);
		assert_errmsg_has(r, "default group cannot be removed");
	}
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void create_default_is_eexist(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before = tu_dump(r, true);

	assert_err(r, rdtalloc_group_create(r, "default"), -EEXIST);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void valid_names(void **state)
{
	static const char *const names[] = {
		"a", "Z", "0", "_", "-", "a.b", "x.", "-a", "A-Z_0.9", "web-frontend_2.1", "a..b",
	};
	rdtalloc_t *r = tu_eph(M2V);
	char longest[RDTALLOC_NAME_MAX + 1];
	struct tu_groups *g;
	unsigned int i;

	memset(longest, 'n', RDTALLOC_NAME_MAX);
	longest[RDTALLOC_NAME_MAX] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_ok(r, rdtalloc_group_create(r, names[i]));
	assert_ok(r, rdtalloc_group_create(r, longest));
	assert_int_equal(rdtalloc_group_count(r), 1 + i + 1);
	g = tu_groups(r);
	assert_int_equal(g->n, 1 + i + 1);
	assert_string_equal(g->name[0], "default");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_string_equal(g->name[1 + i], names[i]);
	assert_string_equal(g->name[1 + i], longest);
	free(g);
	/* Each is addressable by its name. */
	assert_schema(r, longest, "L3:0=fffff;1=fffff\n");
	assert_ok(r, rdtalloc_group_remove(r, "a.b"));
	assert_ok(r, rdtalloc_group_remove(r, longest));
	assert_int_equal(rdtalloc_group_count(r), 1 + 10);
	rdtalloc_close(r);
}

static void invalid_names(void **state)
{
	static const char *const names[] = {
		"", ".x", ".", "..", "a/b", "a b", "\xc3\xa9", "caf\xc3\xa9", "a\n", "a\tb",
		"a:b", "a;b", "a=b", "a,b", "*", "a\\b", " a", "a ",
	};
	rdtalloc_t *r = tu_eph(M2V);
	char toolong[RDTALLOC_NAME_MAX + 2];
	unsigned int i;
	char *before;

	memset(toolong, 'n', RDTALLOC_NAME_MAX + 1);
	toolong[RDTALLOC_NAME_MAX + 1] = '\0';
	assert_ok(r, rdtalloc_group_create(r, "keep"));
	before = tu_dump(r, true);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int rc = rdtalloc_group_create(r, names[i]);

		if (rc != -EINVAL)
			print_error("create \"%s\": %d\n", names[i], rc);
		assert_int_equal(rc, -EINVAL);
		assert_true(rdtalloc_errmsg(r)[0] != '\0');
	}
	assert_err(r, rdtalloc_group_create(r, toolong), -EINVAL);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void create_null_fails(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before = tu_dump(r, true);
	int rc = rdtalloc_group_create(r, NULL);

	/* NULL names the default group (-EEXIST) or is no name at all (-EINVAL). */
	if (rc != -EINVAL && rc != -EEXIST)
		print_error("create(NULL): %d\n", rc);
	assert_true(rc == -EINVAL || rc == -EEXIST);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void create_twice_is_eexist(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_group_create(r, "g"), -EEXIST);
	assert_unchanged(r, before, true);
	/* Names are case-sensitive: "G" is another group. */
	assert_ok(r, rdtalloc_group_create(r, "G"));
	assert_int_equal(rdtalloc_group_count(r), 3);
	rdtalloc_close(r);
}

static void unknown_group_is_enoent(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char buf[256];
	pid_t tids[4];
	int cpus[4];
	unsigned int c;
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_group_remove(r, "g"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_group_remove(r, "nosuch"), -ENOENT);
	assert_err(r, rdtalloc_group_remove(r, "g"), -ENOENT);
	assert_err(r, rdtalloc_set_schema(r, "nosuch", "L3:0=f"), -ENOENT);
	assert_err(r, rdtalloc_get_schema(r, "nosuch", buf, sizeof(buf)), -ENOENT);
	assert_err(r, rdtalloc_bind_task(r, "nosuch", 1000), -ENOENT);
	assert_err(r, rdtalloc_bind_cpu(r, "nosuch", 0), -ENOENT);
	assert_err(r, rdtalloc_group_tasks(r, "nosuch", tids, 4), -ENOENT);
	assert_err(r, rdtalloc_group_cpus(r, "nosuch", cpus, 4), -ENOENT);
	assert_err(r, rdtalloc_group_closid(r, "nosuch", "L3", 0, &c), -ENOENT);
	/* "Default" is not "default": names are case-sensitive. */
	assert_err(r, rdtalloc_group_remove(r, "Default"), -ENOENT);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void remove_and_recreate(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f;1=f0"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 1000));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 3));
	assert_ok(r, rdtalloc_group_remove(r, "g"));
	assert_int_equal(rdtalloc_group_count(r), 1);
	/* A new group of the same name starts afresh. */
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_schema(r, "g", "L3:0=fffff;1=fffff\n");
	assert_tasks(r, "g", NULL, 0);
	assert_cpus(r, "g", NULL, 0);
	assert_int_equal(tu_closid(r, "g", "L3", 0), 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

struct walk {
	rdtalloc_t *r;
	int seen;
	int stop_at;
	int counts[8];
	char names[8][64];
};

static int walk_cb(const char *name, void *arg)
{
	struct walk *w = arg;

	/* The walk is on a snapshot: calling back into the library is allowed. */
	w->counts[w->seen] = rdtalloc_group_count(w->r);
	snprintf(w->names[w->seen], 64, "%s", name);
	w->seen++;
	if (w->seen == w->stop_at)
		return 42;
	return 0;
}

static int remove_cb(const char *name, void *arg)
{
	rdtalloc_t *r = arg;

	if (strcmp(name, "default"))
		return rdtalloc_group_remove(r, name);
	return 0;
}

static void foreach_order_and_stop(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct walk w = { .r = r };

	assert_ok(r, rdtalloc_group_create(r, "zeta"));
	assert_ok(r, rdtalloc_group_create(r, "alpha"));
	assert_ok(r, rdtalloc_group_create(r, "mid"));
	assert_int_equal(rdtalloc_group_foreach(r, walk_cb, &w), 0);
	assert_int_equal(w.seen, 4);
	assert_string_equal(w.names[0], "default");
	assert_string_equal(w.names[1], "zeta");
	assert_string_equal(w.names[2], "alpha");
	assert_string_equal(w.names[3], "mid");
	assert_int_equal(w.counts[3], 4);

	memset(&w, 0, sizeof(w));
	w.r = r;
	w.stop_at = 2;
	assert_int_equal(rdtalloc_group_foreach(r, walk_cb, &w), 42);
	assert_int_equal(w.seen, 2);

	/* Removing groups from inside the walk is safe. */
	assert_int_equal(rdtalloc_group_foreach(r, remove_cb, r), 0);
	assert_int_equal(rdtalloc_group_count(r), 1);
	rdtalloc_close(r);
}

static void count_follows_create_remove(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char name[16];
	int i;

	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_int_equal(rdtalloc_group_count(r), i + 2);
	}
	for (i = 0; i < 50; i += 2) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_ok(r, rdtalloc_group_remove(r, name));
	}
	assert_int_equal(rdtalloc_group_count(r), 26);
	tu_check_invariants(r);
	/* Creation order survives holes left by removal. */
	assert_ok(r, rdtalloc_group_create(r, "g0"));
	{
		struct tu_groups *g = tu_groups(r);

		assert_int_equal(g->n, 27);
		assert_string_equal(g->name[1], "g1");
		assert_string_equal(g->name[25], "g49");
		assert_string_equal(g->name[26], "g0");
		free(g);
	}
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_group_has_three_names),
		cmocka_unit_test(default_group_cannot_be_removed),
		cmocka_unit_test(create_default_is_eexist),
		cmocka_unit_test(valid_names),
		cmocka_unit_test(invalid_names),
		cmocka_unit_test(create_null_fails),
		cmocka_unit_test(create_twice_is_eexist),
		cmocka_unit_test(unknown_group_is_enoent),
		cmocka_unit_test(remove_and_recreate),
		cmocka_unit_test(foreach_order_and_stop),
		cmocka_unit_test(count_follows_create_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
