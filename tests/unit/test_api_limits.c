// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_limits: what a state may hold (rdtalloc_opts.max_groups,
 * max_tasks; 4096 cgroups) is chosen when it is created, kept in the state,
 * reported by rdtalloc_get_limits, and enforced: past a limit the call
 * fails with -ENOSPC naming it and nothing changes; reopening with other
 * limits is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "test_api_util.h"

static rdtalloc_t *open_lim(const char *dir, unsigned int groups, unsigned int tasks, int *rc)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2V,
		      .max_groups = groups, .max_tasks = tasks,
		      .flags = dir ? 0 : RDTALLOC_F_EPHEMERAL);
	rdtalloc_t *r = NULL;

	*rc = rdtalloc_open(&r, &o);
	return r;
}

static void defaults(void **s)
{
	struct rdtalloc_limits l = { .sz = sizeof(l) };
	rdtalloc_t *r = tu_eph(M2V);

	(void)s;
	assert_ok(r, rdtalloc_get_limits(r, &l));
	assert_int_equal(l.max_groups, 16384);
	assert_int_equal(l.max_tasks, 1048576);
	assert_int_equal(l.max_cgroups, 4096);
	assert_int_equal(l.groups, 1);
	assert_int_equal(l.tasks, 0);
	assert_int_equal(l.cgroups, 0);
	l.sz = 0;
	assert_err(r, rdtalloc_get_limits(r, &l), -EINVAL);
	rdtalloc_close(r);
}

static void enforced(void **s)
{
	struct rdtalloc_limits l = { .sz = sizeof(l) };
	char dir[64], *before;
	rdtalloc_t *r;
	int rc;

	(void)s;
	r = open_lim(tu_mkdtemp(dir), 3, 2, &rc);
	assert_int_equal(rc, 0);
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_group_create(r, "c"), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "the state holds 3 groups, the most it may "
			    "(max_groups, set when the state is created)");
	assert_unchanged(r, before, false);
	assert_ok(r, rdtalloc_bind_task(r, "a", 10));
	assert_ok(r, rdtalloc_bind_task(r, "b", 11));
	/* moving a bound task is no new binding */
	assert_ok(r, rdtalloc_bind_task(r, "a", 11));
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_bind_task(r, "b", 12), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "2 tasks are bound already, the most the state "
			    "may hold (max_tasks, set when the state is created)");
	assert_unchanged(r, before, false);
	/* a config past the limit: named by its line, nothing changes */
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_apply_config(r, "group a\ngroup b\ngroup c\n", 0), -ENOSPC);
	tu_msg_has(rdtalloc_errmsg(r), "line 3: the state holds 3 groups");
	assert_unchanged(r, before, false);
	/* removing makes room */
	assert_ok(r, rdtalloc_group_remove(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	assert_ok(r, rdtalloc_get_limits(r, &l));
	assert_int_equal(l.max_groups, 3);
	assert_int_equal(l.max_tasks, 2);
	assert_int_equal(l.groups, 3);
	assert_int_equal(l.tasks, 2);
	rdtalloc_close(r);
	/* kept in the state; other limits on reopening are refused */
	r = open_lim(dir, 0, 0, &rc);
	assert_int_equal(rc, 0);
	assert_err(r, rdtalloc_group_create(r, "d"), -ENOSPC);
	rdtalloc_close(r);
	r = open_lim(dir, 4, 0, &rc);
	assert_int_equal(rc, -EBUSY);
	assert_null(r);
	tu_msg_has(rdtalloc_errmsg(NULL), "was made with max_groups=3, not 4");
	r = open_lim(dir, 3, 2, &rc);
	assert_int_equal(rc, 0);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Bindings of exited tasks do not keep the limit: they are swept before a no. */
static void exited_tasks_make_room(void **s)
{
	struct rdtalloc_limits l = { .sz = sizeof(l) };
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .machine = M2, .max_tasks = 2,
		      .flags = RDTALLOC_F_EPHEMERAL);
	pid_t a = sleeper(), b = sleeper(), c = sleeper();
	rdtalloc_t *r = NULL;

	(void)s;
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", a));
	assert_ok(r, rdtalloc_bind_task(r, "g", b));
	assert_err(r, rdtalloc_bind_task(r, "g", c), -ENOSPC);
	reap(a);
	reap(b);
	/* what the state holds now: no live binding */
	assert_ok(r, rdtalloc_get_limits(r, &l));
	assert_int_equal(l.tasks, 0);
	assert_ok(r, rdtalloc_bind_task(r, "g", c));
	assert_true(tu_has_task(r, "g", c));
	assert_ok(r, rdtalloc_get_limits(r, &l));
	assert_int_equal(l.tasks, 1);
	reap(c);
	rdtalloc_close(r);
}

static void bad_opts(void **s)
{
	rdtalloc_t *r;
	int rc;

	(void)s;
	r = open_lim(NULL, 262145, 0, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_null(r);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_opts.max_groups is 262145: at most "
			    "262144");
	r = open_lim(NULL, 0, 4194305, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "rdtalloc_opts.max_tasks is 4194305: at most "
			    "4194304");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(enforced),
		cmocka_unit_test(exited_tasks_make_room),
		cmocka_unit_test(bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
