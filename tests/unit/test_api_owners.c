// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who owns what (issue 40): every group, mask and binding records its
 * owner; a change of what the hook or the controller made is refused
 * (-EBUSY, the owner named) and the state stays as it was, unless forced,
 * which hands it over; apply --prune removes only what the same
 * configuration made; a state without owners (0.7) loads, its objects'
 * owners unknown.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "test_api_util.h"

static char dir[64];

static rdtalloc_t *as(const char *owner, unsigned int flags)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2V,
		      .owner = owner, .flags = flags);
	rdtalloc_t *r = NULL;
	int rc = rdtalloc_open(&r, &o);

	if (rc)
		print_error("open as %s: %d %s\n", owner ? owner : "(default)", rc,
			    rdtalloc_errmsg(NULL));
	assert_int_equal(rc, 0);
	return r;
}

static void want_owner(rdtalloc_t *r, int (*fn)(rdtalloc_t *, const char *, char *, size_t),
		       const char *object, const char *want)
{
	char buf[RDTALLOC_OWNER_MAX * 4];

	assert_int_equal(fn(r, object, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
}

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

static void recorded(void **state)
{
	rdtalloc_t *r = as(NULL, 0);
	char buf[64];

	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_ok(r, rdtalloc_bind_task(r, "db", 7));
	assert_ok(r, rdtalloc_bind_cpu(r, "db", 3));
	want_owner(r, rdtalloc_group_owner, "db", "user:admin");
	want_owner(r, rdtalloc_schema_owner, "db", "user:admin");
	/* the default group is nobody's */
	want_owner(r, rdtalloc_group_owner, "default", "");
	assert_int_equal(rdtalloc_task_owner(r, 7, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "user:admin");
	assert_int_equal(rdtalloc_cpu_owner(r, 3, buf, sizeof(buf)), 10);
	assert_int_equal(rdtalloc_cpu_owner(r, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(rdtalloc_group_owner(r, "db", NULL, 0), 10);
	assert_err(r, rdtalloc_group_owner(r, "db", buf, 10), -ERANGE);
	assert_err(r, rdtalloc_group_owner(r, "nosuch", buf, sizeof(buf)), -ENOENT);
	rdtalloc_close(r);
	/* a bare name is a person's */
	r = as("alice", 0);
	assert_ok(r, rdtalloc_group_create(r, "web"));
	want_owner(r, rdtalloc_group_owner, "web", "user:alice");
	rdtalloc_close(r);
}

static void bad_owner(void **state)
{
	char big[200];
	rdtalloc_t *r;

	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2V,
		      .owner = "robot:x");
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_opts.owner: owner 'robot:x' is not "
			    "KIND:NAME with KIND one of user, config, oci, control and a NAME");
	o.owner = "user:a b";
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_opts.owner: owner 'user:a b' has a "
			    "space or a character that is not printable ASCII at byte 6");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	o.owner = big;
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
	o.owner = "config:";
	assert_int_equal(rdtalloc_open(&r, &o), -EINVAL);
}

/* The controller's mask: refused to a person, the state unchanged; --force takes it back. */
static void mask_conflict(void **state)
{
	rdtalloc_t *u = as(NULL, 0), *c, *f;
	char before[128], after[128];

	assert_ok(u, rdtalloc_group_create(u, "db"));
	/* the controller takes a person's mask only when forced */
	c = as("control:0", 0);
	assert_err(c, rdtalloc_set_schema(c, "db", "L3:0=ff"), -EBUSY);
	assert_string_equal(rdtalloc_errmsg(c), "group db: its mask in L3 cache id 0 is user "
			    "admin's; --force takes it back");
	rdtalloc_close(c);
	c = as("control:0", RDTALLOC_F_FORCE);
	assert_ok(c, rdtalloc_set_schema(c, "db", "L3:0=ff"));
	rdtalloc_close(c);
	want_owner(u, rdtalloc_schema_owner, "db", "L3:0=control:0;1=user:admin");
	want_owner(u, rdtalloc_group_owner, "db", "user:admin");
	assert_ok(u, rdtalloc_get_schema(u, "db", before, sizeof(before)));
	assert_err(u, rdtalloc_set_schema(u, "db", "L3:0=f;1=f"), -EBUSY);
	assert_string_equal(rdtalloc_errmsg(u), "group db: its mask is the controller's "
			    "(domain 0); --force takes it back");
	assert_ok(u, rdtalloc_get_schema(u, "db", after, sizeof(after)));
	assert_string_equal(before, after);
	want_owner(u, rdtalloc_schema_owner, "db", "L3:0=control:0;1=user:admin");
	/* the same mask again changes nothing: no conflict, nobody takes it */
	assert_ok(u, rdtalloc_set_schema(u, "db", "L3:0=ff"));
	want_owner(u, rdtalloc_schema_owner, "db", "L3:0=control:0;1=user:admin");
	f = as(NULL, RDTALLOC_F_FORCE);
	assert_ok(f, rdtalloc_set_schema(f, "db", "L3:0=f;1=f"));
	want_owner(f, rdtalloc_schema_owner, "db", "user:admin");
	rdtalloc_close(f);
	rdtalloc_close(u);
}

/* What a container made: a person's removal is refused, naming it; forced, it goes. */
static void container_group(void **state)
{
	rdtalloc_t *h = as("oci:c1", 0), *u = as(NULL, 0), *f;

	assert_ok(h, rdtalloc_group_create(h, "web"));
	assert_ok(h, rdtalloc_bind_task(h, "web", 9));
	rdtalloc_close(h);
	assert_err(u, rdtalloc_group_remove(u, "web"), -EBUSY);
	assert_string_equal(rdtalloc_errmsg(u), "group web: it is container c1's; --force takes "
			    "it back");
	assert_err(u, rdtalloc_bind_task(u, "default", 9), -EBUSY);
	assert_string_equal(rdtalloc_errmsg(u), "task 9: its binding is container c1's; --force "
			    "takes it back");
	assert_int_equal(rdtalloc_group_count(u), 2);
	/* a person's group holding the container's binding: removing it undoes the binding */
	assert_ok(u, rdtalloc_group_create(u, "mine"));
	h = as("oci:c1", 0);
	assert_ok(h, rdtalloc_bind_task(h, "mine", 11));
	rdtalloc_close(h);
	assert_err(u, rdtalloc_group_remove(u, "mine"), -EBUSY);
	assert_string_equal(rdtalloc_errmsg(u), "group mine: it holds task 11, whose binding is "
			    "container c1's; --force takes it back");
	f = as(NULL, RDTALLOC_F_FORCE);
	assert_ok(f, rdtalloc_group_remove(f, "web"));
	assert_ok(f, rdtalloc_group_remove(f, "mine"));
	assert_int_equal(rdtalloc_group_count(f), 1);
	rdtalloc_close(f);
	rdtalloc_close(u);
}

static void prune_scoped(void **state)
{
	rdtalloc_t *r = as(NULL, 0);
	char rep[1024];

	assert_ok(r, rdtalloc_group_create(r, "hand"));
	assert_int_equal(rdtalloc_apply_config_as(r, "group a\n", "web", RDTALLOC_APPLY_PRUNE,
						  NULL, 0, NULL), 1);
	want_owner(r, rdtalloc_group_owner, "a", "config:web");
	assert_int_equal(rdtalloc_apply_config_as(r, "group b\n", "web", RDTALLOC_APPLY_PRUNE,
						  rep, sizeof(rep), NULL), 2);
	assert_string_equal(rep, "keep group hand: not managed by this configuration (owner "
			    "user:admin)\nremove group a\ncreate group b\n");
	/* the file's own name wins over the caller's; another configuration's b stays */
	assert_int_equal(rdtalloc_apply_config_as(r, "name db\ngroup c\n", "web",
						  RDTALLOC_APPLY_PRUNE, NULL, 0, NULL), 1);
	want_owner(r, rdtalloc_group_owner, "c", "config:db");
	assert_int_equal(rdtalloc_group_count(r), 4);
	/* the old meaning: the state becomes the file */
	assert_int_equal(rdtalloc_apply_config(r, "group c\n", RDTALLOC_APPLY_PRUNE_ALL), 2);
	assert_int_equal(rdtalloc_group_count(r), 2);
	assert_err(r, rdtalloc_apply_config(r, "name a b\n", 0), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "line 1: 'name a b': a name is printable ASCII "
			    "without spaces");
	rdtalloc_close(r);
}

/* A file's member lists drop what persons bound, never what a container bound. */
static void apply_keeps_container_bindings(void **state)
{
	rdtalloc_t *r = as(NULL, 0), *h;

	assert_ok(r, rdtalloc_apply_config_as(r, "group g\n\ttasks 5\n", "k", 0, NULL, 0, NULL));
	h = as("oci:c2", 0);
	assert_ok(h, rdtalloc_bind_task(h, "g", 6));
	rdtalloc_close(h);
	assert_ok(r, rdtalloc_bind_task(r, "g", 8));
	assert_int_equal(rdtalloc_apply_config_as(r, "group g\n\ttasks 5\n", "k", 0, NULL, 0,
						  NULL), 1);
	{
		pid_t t[8];

		assert_int_equal(rdtalloc_group_tasks(r, "g", t, 8), 2);
		assert_int_equal(t[0], 5);
		assert_int_equal(t[1], 6);
	}
	rdtalloc_close(r);
}

/* A state of 0.7 has no "owners": it loads, its objects' owners unknown, taken by a change. */
static void old_state(void **state)
{
	rdtalloc_t *r = as(NULL, 0);
	char path[128];
	json_object *o;

	assert_ok(r, rdtalloc_group_create(r, "old"));
	rdtalloc_close(r);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "owners", NULL));
	json_object_object_del(o, "owners");
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);
	r = as("oci:c3", 0);
	want_owner(r, rdtalloc_group_owner, "old", "");
	/* a config's prune leaves what nobody is known to have made */
	assert_int_equal(rdtalloc_apply_config_as(r, "group x\n", "n", RDTALLOC_APPLY_PRUNE,
						  NULL, 0, NULL), 1);
	assert_int_equal(rdtalloc_group_count(r), 3);
	/* anyone's change takes it */
	assert_ok(r, rdtalloc_set_schema(r, "old", "L3:0=f"));
	want_owner(r, rdtalloc_schema_owner, "old", "L3:0=oci:c3;1=unknown");
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(mask_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(container_group, setup, teardown),
		cmocka_unit_test_setup_teardown(prune_scoped, setup, teardown),
		cmocka_unit_test_setup_teardown(apply_keeps_container_bindings, setup, teardown),
		cmocka_unit_test_setup_teardown(old_state, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
