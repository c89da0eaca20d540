// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_precedence: the precedence rule is a setting of the state
 * (rdtalloc_opts.precedence): cpu (the CPU's group wins, the default) or
 * task (a task's non-default group wins, resctrl's rule). Checked through
 * rdtalloc_effective_closid and the simulated context switch, kept across
 * reopening, and refused when asked to change or when out of range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static rdtalloc_t *open_prec(const char *dir, unsigned int prec, int *rc)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2V,
		      .precedence = prec, .flags = dir ? 0 : RDTALLOC_F_EPHEMERAL);
	rdtalloc_t *r = NULL;

	*rc = rdtalloc_open(&r, &o);
	return r;
}

/*
 * g1 has CPU 1 and task 100, g2 task 200; g1 and g2 have their own masks,
 * so CLOSIDs 1 and 2 (in the domain of CPUs 0-1).
 */
static void setup_groups(rdtalloc_t *r)
{
	assert_ok(r, rdtalloc_group_create(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g2"));
	assert_ok(r, rdtalloc_set_schema(r, "g1", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "g2", "L3:0=f0;1=f0"));
	assert_ok(r, rdtalloc_bind_cpu(r, "g1", 1));
	assert_ok(r, rdtalloc_bind_task(r, "g1", 100));
	assert_ok(r, rdtalloc_bind_task(r, "g2", 200));
}

static unsigned int eff(rdtalloc_t *r, int cpu, pid_t tid)
{
	unsigned int c = 99;

	assert_ok(r, rdtalloc_effective_closid(r, cpu, tid, &c));
	return c;
}

static void cpu_rule_is_the_default(void **state)
{
	int rc;
	rdtalloc_t *r = open_prec(NULL, 0, &rc);

	assert_int_equal(rc, 0);
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_CPU);
	setup_groups(r);
	/* CPU 1 is g1's: every task runs with CLOSID 1 there */
	assert_int_equal(eff(r, 1, 200), 1);
	assert_int_equal(eff(r, 1, 0), 1);
	assert_int_equal(eff(r, 1, 300), 1);
	/* CPU 0 is default's: the task's group */
	assert_int_equal(eff(r, 0, 200), 2);
	assert_int_equal(eff(r, 0, 100), 1);
	assert_int_equal(eff(r, 0, 300), 0);
	rdtalloc_close(r);
}

static void task_rule(void **state)
{
	struct rdtalloc_switch sw = { .sz = sizeof(sw) };
	int rc;
	rdtalloc_t *r = open_prec(NULL, RDTALLOC_PRECEDENCE_TASK, &rc);

	assert_int_equal(rc, 0);
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_TASK);
	setup_groups(r);
	/* on g1's CPU a task of g2 keeps g2's allocation; others get g1's */
	assert_int_equal(eff(r, 1, 200), 2);
	assert_int_equal(eff(r, 1, 100), 1);
	assert_int_equal(eff(r, 1, 300), 1);
	assert_int_equal(eff(r, 1, 0), 1);
	assert_int_equal(eff(r, 0, 200), 2);
	assert_int_equal(eff(r, 0, 300), 0);
	/* the simulated context switch follows the same rule */
	assert_ok(r, rdtalloc_sim_switch(r, 1, 200, &sw));
	assert_int_equal(sw.closid, 2);
	assert_ok(r, rdtalloc_sim_switch(r, 1, 300, &sw));
	assert_int_equal(sw.closid, 1);
	/* a task bound back to default is governed by the CPU again */
	assert_ok(r, rdtalloc_bind_task(r, "default", 200));
	assert_int_equal(eff(r, 1, 200), 1);
	rdtalloc_close(r);
}

static void rule_is_kept_and_not_changed(void **state)
{
	char dir[64];
	int rc;
	rdtalloc_t *r;

	tu_mkdtemp(dir);
	r = open_prec(dir, RDTALLOC_PRECEDENCE_TASK, &rc);
	assert_int_equal(rc, 0);
	setup_groups(r);
	rdtalloc_close(r);
	/* 0: whatever the state has */
	r = open_prec(dir, 0, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_TASK);
	assert_int_equal(eff(r, 1, 200), 2);
	rdtalloc_close(r);
	r = open_prec(dir, RDTALLOC_PRECEDENCE_TASK, &rc);
	assert_int_equal(rc, 0);
	/* a reset keeps the rule: it is the state's, chosen at creation */
	assert_ok(r, rdtalloc_reset(r));
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_TASK);
	rdtalloc_close(r);
	r = open_prec(dir, RDTALLOC_PRECEDENCE_CPU, &rc);
	assert_null(r);
	assert_int_equal(rc, -EBUSY);
	tu_msg_has(rdtalloc_errmsg(NULL), "was made with precedence=task, not cpu");
	tu_rm_rf(dir);
}

static void bad_values(void **state)
{
	int rc;
	rdtalloc_t *r = open_prec(NULL, 3, &rc);

	assert_null(r);
	assert_int_equal(rc, -EINVAL);
	tu_msg_has(rdtalloc_errmsg(NULL), "rdtalloc_opts.precedence is 3");
	r = open_prec(NULL, UINT32_MAX, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(rdtalloc_get_precedence(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_rule_is_the_default),
		cmocka_unit_test(task_rule),
		cmocka_unit_test(rule_is_kept_and_not_changed),
		cmocka_unit_test(bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
