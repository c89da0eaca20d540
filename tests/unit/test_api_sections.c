// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_sections: the state file's sections (hw/section.h) through the
 * API. A state written by the landed 0.6 rdtctl (tests/data/state/0.6.json:
 * three groups, one made by the OCI hook for a container, monitoring with
 * RMIDs and a simulator workload) is read by this version - its groups,
 * RMIDs, workload and container record all there - and written back with
 * the same members. A member that no section of this version knows (a
 * newer version's) is kept as it was read, through changes and an undo,
 * not dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "test_api_util.h"

static char dir[64];

static int setup(void **state)
{
	tu_mkdtemp(dir);
	return 0;
}

static int teardown(void **state)
{
	tu_rm_rf(dir);
	return 0;
}

/* The landed version's file as this test's state, with extra members merged in (NULL: none). */
static void put_state(const char *extra)
{
	char src[512], dst[128];
	json_object *o = json_object_from_file(
		(snprintf(src, sizeof(src), "%s/state/0.6.json", RDT_TEST_DATA), src));

	assert_non_null(o);
	if (extra) {
		json_object *x = json_tokener_parse(extra);
		json_object_iter it;

		assert_non_null(x);
		json_object_object_foreachC(x, it)
			json_object_object_add(o, it.key, json_object_get(it.val));
		json_object_put(x);
	}
	snprintf(dst, sizeof(dst), "%s/state.json", dir);
	assert_int_equal(json_object_to_file(dst, o), 0);
	chmod(dst, 0600);
	json_object_put(o);
}

static json_object *read_state(void)
{
	char p[128];
	json_object *o;

	snprintf(p, sizeof(p), "%s/state.json", dir);
	o = json_object_from_file(p);
	assert_non_null(o);
	return o;
}

static rdtalloc_t *open_it(void)
{
	return tu_open(dir, NULL, 0);
}

/* 0.6's state: every part read, and written back with the same members. */
static void landed_state(void **state)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	json_object *o, *mon, *ctrs;
	rdtalloc_t *r;
	int rm = -2, what = -1;
	char buf[256];

	put_state(NULL);
	r = open_it();
	assert_int_equal(rdtalloc_group_count(r), 4);
	assert_ok(r, rdtalloc_get_schema(r, "db", buf, sizeof(buf)));
	assert_string_equal(buf, "L3:0=000ff;1=000ff\n");
	assert_ok(r, rdtalloc_get_schema(r, "batch", buf, sizeof(buf)));
	assert_string_equal(buf, "L3:0=00003;1=00003\n");
	/* monitoring: the RMIDs the file gave, in creation order */
	assert_ok(r, rdtalloc_group_rmid(r, "db", &rm));
	assert_int_equal(rm, 1);
	assert_ok(r, rdtalloc_group_rmid(r, "batch", &rm));
	assert_int_equal(rm, 3);
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_use, 4);
	/*
	 * a change writes the file again: the same members as 0.6 wrote, and
	 * "owners" (0.8: web's mask is now user:admin's), which 0.6 does not
	 * read and 0.7 keeps as a member it does not know
	 */
	assert_ok(r, rdtalloc_set_schema(r, "web", "L3:0=f0"));
	rdtalloc_close(r);
	o = read_state();
	assert_true(json_object_object_get_ex(o, "monitoring", &mon));
	assert_int_equal(json_object_array_length(json_object_object_get(mon, "loads")), 1);
	assert_true(json_object_object_get_ex(o, "containers", &ctrs));
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(ctrs, 0), "id")), "ctr-1");
	{
		static const char *const members[] = { "backend", "cdp", "containers", "cpus",
			"format", "groups", "id", "limits", "machine", "monitoring", "next_seq",
			"owners", "precedence", "regs", "tasks", "version" };
		json_object_iter it;
		size_t n = 0, i;

		json_object_object_foreachC(o, it) {
			for (i = 0; i < sizeof(members) / sizeof(members[0]); i++)
				if (!strcmp(it.key, members[i]))
					break;
			assert_true(i < sizeof(members) / sizeof(members[0]));
			n++;
		}
		assert_int_equal(n, sizeof(members) / sizeof(members[0]));
	}
	json_object_put(o);
	/*
	 * The container record was read: its init (a pid of the machine that
	 * wrote the file) is gone, so the hook releases it before anything else,
	 * with the group it made - its poststop then has nothing left to do.
	 * Without the record, batch would stay.
	 */
	{
		RDTALLOC_OPTS(rdtalloc_opts, opts, .backend = "sim", .state_dir = dir);
		const char *j = "{\"ociVersion\": \"1.0.2\", \"id\": \"ctr-1\", \"status\": "
				"\"stopped\", \"bundle\": \"/b\", \"annotations\": "
				"{\"rdtalloc.group\": \"batch\"}}";

		assert_int_equal(rdtalloc_oci_hook(&opts, "poststop", j, strlen(j), &what), 0);
		assert_int_equal(what, RDTALLOC_OCI_IGNORED);
	}
	r = open_it();
	assert_int_equal(rdtalloc_group_count(r), 3);
	assert_int_equal(rdtalloc_get_schema(r, "batch", buf, sizeof(buf)), -ENOENT);
	rdtalloc_close(r);
}

/* A member this version does not know stays, through changes, as it was. */
static void unknown_member_kept(void **state)
{
	json_object *o, *f;
	rdtalloc_t *r;

	put_state("{\"future\": {\"kind\": \"controller\", \"knobs\": [1, 2.5, \"x\"]}}");
	r = open_it();
	assert_ok(r, rdtalloc_group_create(r, "z"));
	/* a refused change (its undo) leaves it too */
	assert_int_equal(rdtalloc_set_schema(r, "z", "L3:0=0"), -EINVAL);
	assert_ok(r, rdtalloc_group_remove(r, "web"));
	rdtalloc_close(r);
	o = read_state();
	assert_true(json_object_object_get_ex(o, "future", &f));
	assert_string_equal(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN),
			    "{\"kind\":\"controller\",\"knobs\":[1,2.5,\"x\"]}");
	assert_true(json_object_object_get_ex(o, "monitoring", NULL));
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(landed_state, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_member_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
