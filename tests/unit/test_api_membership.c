// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_membership: tasks and CPUs in groups through the public API
 * (DESIGN §4): one group per task and per CPU, moving, unbinding through
 * the default group, listings, removal returning members to default, real
 * task checks (-ESRCH, exited tasks), the CPU-over-task precedence rule in
 * rdtalloc_effective_closid, and the simulated context switch with minimal
 * PQR_ASSOC writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "test_api_util.h"

/* A child process that waits to be killed: a real task id for the tests. */
static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void virtual_task_binding_and_moves(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const pid_t t1[] = { 1000 };
	const pid_t t3[] = { 10, 20, 30 };

	assert_ok(r, rdtalloc_group_create(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g2"));
	assert_task_group(r, 1000, "default");
	assert_ok(r, rdtalloc_bind_task(r, "g1", 1000));
	assert_tasks(r, "g1", t1, 1);
	assert_task_group(r, 1000, "g1");
	/* Binding elsewhere moves it. */
	assert_ok(r, rdtalloc_bind_task(r, "g2", 1000));
	assert_tasks(r, "g1", NULL, 0);
	assert_tasks(r, "g2", t1, 1);
	assert_task_group(r, 1000, "g2");
	/* Binding it twice to the same group keeps one entry. */
	assert_ok(r, rdtalloc_bind_task(r, "g2", 1000));
	assert_tasks(r, "g2", t1, 1);
	/* Binding to the default group unbinds; with virtual tasks default lists none. */
	assert_ok(r, rdtalloc_bind_task(r, NULL, 1000));
	assert_tasks(r, "g2", NULL, 0);
	assert_task_group(r, 1000, "default");
	assert_tasks(r, NULL, NULL, 0);
	/* Ascending whatever the order of binding. */
	assert_ok(r, rdtalloc_bind_task(r, "g1", 30));
	assert_ok(r, rdtalloc_bind_task(r, "g1", 10));
	assert_ok(r, rdtalloc_bind_task(r, "g1", 20));
	assert_tasks(r, "g1", t3, 3);
	rdtalloc_close(r);
}

static void task_list_max(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	pid_t t[4] = { -1, -1, -1, -1 };
	int i;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	for (i = 5; i >= 1; i--)
		assert_ok(r, rdtalloc_bind_task(r, "g", i * 100));
	assert_int_equal(rdtalloc_group_tasks(r, "g", t, 2), 5);
	assert_int_equal(t[0], 100);
	assert_int_equal(t[1], 200);
	assert_int_equal(t[2], -1);
	assert_int_equal(rdtalloc_group_tasks(r, "g", NULL, 0), 5);
	rdtalloc_close(r);
}

static void bad_task_ids(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	rdtalloc_t *rr = tu_eph(M2);
	pid_t dead = fork();
	char *before;

	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(rr, rdtalloc_group_create(rr, "g"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_bind_task(r, "g", -1), -EINVAL);
	assert_err(r, rdtalloc_bind_task(r, "g", INT_MIN), -EINVAL);
	assert_unchanged(r, before, true);
	before = tu_dump(rr, false);
	assert_err(rr, rdtalloc_bind_task(rr, "g", -5), -EINVAL);
	/* Real tasks: one that does not exist is -ESRCH. */
	assert_err(rr, rdtalloc_bind_task(rr, "g", dead), -ESRCH);
	assert_err(rr, rdtalloc_bind_task(rr, "g", INT_MAX), -ESRCH);
	assert_unchanged(rr, before, false);
	rdtalloc_close(r);
	rdtalloc_close(rr);
}

static void real_calling_thread(void **state)
{
	rdtalloc_t *r = tu_eph(M2);
	pid_t me = gettid();
	char buf[64];

	assert_ok(r, rdtalloc_group_create(r, "g"));
	/* The default group lists the live tasks no group holds: this one too. */
	assert_true(tu_has_task(r, NULL, me));
	assert_ok(r, rdtalloc_bind_task(r, "g", 0));
	assert_tasks(r, "g", &me, 1);
	assert_false(tu_has_task(r, NULL, me));
	assert_ok(r, rdtalloc_task_group(r, me, buf, sizeof(buf)));
	assert_string_equal(buf, "g");
	assert_ok(r, rdtalloc_bind_task(r, NULL, me));
	assert_tasks(r, "g", NULL, 0);
	assert_true(tu_has_task(r, NULL, me));
	rdtalloc_close(r);
}

static void exited_task_leaves(void **state)
{
	rdtalloc_t *r = tu_eph(M2);
	pid_t a = spawn_sleeper(), b = spawn_sleeper();
	pid_t lo = a < b ? a : b, hi = a < b ? b : a;
	const pid_t both[] = { lo, hi };

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", a));
	assert_ok(r, rdtalloc_bind_task(r, "g", b));
	assert_tasks(r, "g", both, 2);
	assert_false(tu_has_task(r, NULL, a));
	reap(a);
	assert_tasks(r, "g", &b, 1);
	assert_false(tu_has_task(r, NULL, a));
	reap(b);
	assert_tasks(r, "g", NULL, 0);
	assert_int_equal(rdtalloc_group_tasks(r, "g", NULL, 0), 0);
	/* A dead task cannot be bound again. */
	assert_err(r, rdtalloc_bind_task(r, "g", a), -ESRCH);
	rdtalloc_close(r);
}

struct tid_arg {
	pthread_barrier_t bar;
	pid_t tid;
};

static void *thread_report(void *arg)
{
	struct tid_arg *ta = arg;

	ta->tid = gettid();
	pthread_barrier_wait(&ta->bar);
	pthread_barrier_wait(&ta->bar);
	return NULL;
}

static void threads_are_tasks(void **state)
{
	rdtalloc_t *r = tu_eph(M2);
	struct tid_arg ta;
	pthread_t th;
	int i;

	pthread_barrier_init(&ta.bar, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, thread_report, &ta), 0);
	pthread_barrier_wait(&ta.bar);
	assert_ok(r, rdtalloc_group_create(r, "g"));
	/* Another thread of this process, by its tid. */
	assert_ok(r, rdtalloc_bind_task(r, "g", ta.tid));
	assert_tasks(r, "g", &ta.tid, 1);
	assert_task_group(r, ta.tid, "g");
	assert_task_group(r, gettid(), "default");
	pthread_barrier_wait(&ta.bar);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&ta.bar);
	/*
	 * The kernel may release a joined thread's task a moment after the
	 * join returns: allow it a minute (a loaded machine) to disappear.
	 */
	for (i = 0; i < 6000 && rdtalloc_group_tasks(r, "g", NULL, 0) > 0; i++)
		usleep(10000);
	assert_tasks(r, "g", NULL, 0);
	rdtalloc_close(r);
}

static void cpu_binding(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const int all[] = { 0, 1, 2, 3 }, rest[] = { 0, 2, 3 }, one[] = { 1 };
	const int g1b[] = { 1, 3 }, def2[] = { 0, 2 };

	assert_int_equal(rdtalloc_cpu_count(r), 4);
	assert_ok(r, rdtalloc_group_create(r, "g1"));
	assert_ok(r, rdtalloc_group_create(r, "g2"));
	assert_cpus(r, NULL, all, 4);
	assert_cpus(r, "g1", NULL, 0);
	assert_ok(r, rdtalloc_bind_cpu(r, "g1", 1));
	assert_cpus(r, "g1", one, 1);
	assert_cpus(r, "", rest, 3);
	assert_cpu_group(r, 1, "g1");
	assert_cpu_group(r, 0, "default");
	/* Moves. */
	assert_ok(r, rdtalloc_bind_cpu(r, "g2", 1));
	assert_cpus(r, "g1", NULL, 0);
	assert_cpus(r, "g2", one, 1);
	assert_cpu_group(r, 1, "g2");
	/* Unbinds. */
	assert_ok(r, rdtalloc_bind_cpu(r, "default", 1));
	assert_cpus(r, "g2", NULL, 0);
	assert_cpus(r, NULL, all, 4);
	assert_cpu_group(r, 1, "default");
	/* Ascending whatever the order. */
	assert_ok(r, rdtalloc_bind_cpu(r, "g1", 3));
	assert_ok(r, rdtalloc_bind_cpu(r, "g1", 1));
	assert_cpus(r, "g1", g1b, 2);
	assert_cpus(r, NULL, def2, 2);
	rdtalloc_close(r);
}

static void bad_cpus(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	unsigned int c;
	char buf[64];
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_bind_cpu(r, "g", -1), -EINVAL);
	assert_err(r, rdtalloc_bind_cpu(r, "g", 4), -EINVAL);
	assert_err(r, rdtalloc_bind_cpu(r, "g", INT_MAX), -EINVAL);
	assert_err(r, rdtalloc_bind_cpu(r, NULL, 4), -EINVAL);
	assert_err(r, rdtalloc_cpu_group(r, 4, buf, sizeof(buf)), -EINVAL);
	assert_err(r, rdtalloc_effective_closid(r, 4, 0, &c), -EINVAL);
	assert_err(r, rdtalloc_effective_closid(r, -1, 0, &c), -EINVAL);
	assert_err(r, rdtalloc_effective_closid(r, 0, -1, &c), -EINVAL);
	assert_err(r, rdtalloc_read_pqr(r, 4, &c), -EINVAL);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void removal_returns_members(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const int all[] = { 0, 1, 2, 3 };
	const pid_t t[] = { 7 };

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_group_create(r, "h"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 5));
	assert_ok(r, rdtalloc_bind_task(r, "g", 6));
	assert_ok(r, rdtalloc_bind_task(r, "h", 7));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 0));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 3));
	assert_int_equal(tu_eff(r, 0, 7), 1);
	assert_ok(r, rdtalloc_group_remove(r, "g"));
	assert_cpus(r, NULL, all, 4);
	assert_task_group(r, 5, "default");
	assert_task_group(r, 6, "default");
	assert_cpu_group(r, 3, "default");
	assert_tasks(r, "h", t, 1);
	assert_int_equal(tu_eff(r, 0, 5), 0);
	assert_int_equal(tu_eff(r, 3, 0), 0);
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 1);
	/* A new group of the old name has none of the old members. */
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_tasks(r, "g", NULL, 0);
	assert_cpus(r, "g", NULL, 0);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

/*
 * Groups with different CLOSIDs in the two domains, so that a CLOSID taken
 * from the wrong domain shows: tg (task group) 1 on domain 0, 2 on domain 1;
 * cg (CPU group) 2 on domain 0, 3 on domain 1.
 */
static rdtalloc_t *precedence_setup(void)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "pad"));
	assert_ok(r, rdtalloc_set_schema(r, "pad", "L3:1=1"));
	assert_ok(r, rdtalloc_group_create(r, "tg"));
	assert_ok(r, rdtalloc_set_schema(r, "tg", "L3:0=ff;1=ff"));
	assert_ok(r, rdtalloc_group_create(r, "cg"));
	assert_ok(r, rdtalloc_set_schema(r, "cg", "L3:0=f00;1=f00"));
	assert_int_equal(tu_closid(r, "tg", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "tg", "L3", 1), 2);
	assert_int_equal(tu_closid(r, "cg", "L3", 0), 2);
	assert_int_equal(tu_closid(r, "cg", "L3", 1), 3);
	assert_ok(r, rdtalloc_bind_task(r, "tg", 100));
	return r;
}

static void precedence(void **state)
{
	rdtalloc_t *r = precedence_setup();

	/* CPU unbound: the task's group, else default, in the CPU's domain. */
	assert_int_equal(tu_eff(r, 0, 100), 1);
	assert_int_equal(tu_eff(r, 1, 100), 1);
	assert_int_equal(tu_eff(r, 2, 100), 2);
	assert_int_equal(tu_eff(r, 3, 100), 2);
	assert_int_equal(tu_eff(r, 0, 200), 0);
	assert_int_equal(tu_eff(r, 3, 200), 0);
	assert_int_equal(tu_eff(r, 0, 0), 0);
	/* CPU bound: its group wins over the task's. */
	assert_ok(r, rdtalloc_bind_cpu(r, "cg", 1));
	assert_ok(r, rdtalloc_bind_cpu(r, "cg", 3));
	assert_int_equal(tu_eff(r, 1, 100), 2);
	assert_int_equal(tu_eff(r, 3, 100), 3);
	assert_int_equal(tu_eff(r, 1, 200), 2);
	assert_int_equal(tu_eff(r, 3, 0), 3);
	assert_int_equal(tu_eff(r, 0, 100), 1);
	assert_int_equal(tu_eff(r, 2, 100), 2);
	/* A CPU bound to the task's own group. */
	assert_ok(r, rdtalloc_bind_cpu(r, "tg", 2));
	assert_int_equal(tu_eff(r, 2, 200), 2);
	/* Unbinding the CPU brings the task's group back. */
	assert_ok(r, rdtalloc_bind_cpu(r, NULL, 3));
	assert_int_equal(tu_eff(r, 3, 100), 2);
	assert_int_equal(tu_eff(r, 3, 200), 0);
	/* A CPU bound to the default group explicitly is unbound: the task's group wins. */
	assert_ok(r, rdtalloc_bind_cpu(r, "default", 1));
	assert_int_equal(tu_eff(r, 1, 100), 1);
	rdtalloc_close(r);
}

static struct rdtalloc_switch sw(rdtalloc_t *r, int cpu, pid_t tid)
{
	RDTALLOC_OPTS(rdtalloc_switch, out);

	assert_ok(r, rdtalloc_sim_switch(r, cpu, tid, &out));
	return out;
}

static void sim_switch_minimal_pqr_writes(void **state)
{
	rdtalloc_t *r = precedence_setup();
	uint64_t w0 = tu_stats(r).pqr_writes;
	struct rdtalloc_switch s;

	s = sw(r, 0, 100);
	assert_int_equal(s.closid, 1);
	assert_int_equal(s.pqr_written, 1);
	assert_int_equal(tu_pqr(r, 0), 1);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* The same task again: nothing to write. */
	s = sw(r, 0, 100);
	assert_int_equal(s.closid, 1);
	assert_int_equal(s.pqr_written, 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* Idle: back to default's CLOSID. */
	s = sw(r, 0, 0);
	assert_int_equal(s.closid, 0);
	assert_int_equal(s.pqr_written, 1);
	/* An unbound task after idle: same CLOSID, no write. */
	s = sw(r, 0, 200);
	assert_int_equal(s.closid, 0);
	assert_int_equal(s.pqr_written, 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 2);
	/* Domain 1 gives the task its domain-1 CLOSID. */
	s = sw(r, 2, 100);
	assert_int_equal(s.closid, 2);
	assert_int_equal(s.pqr_written, 1);
	assert_int_equal(tu_pqr(r, 2), 2);
	/* Other CPUs were not touched. */
	assert_int_equal(tu_pqr(r, 1), 0);
	assert_int_equal(tu_pqr(r, 3), 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 3);
	/* Mask registers are not written by switches. */
	assert_int_equal(tu_stats(r).mask_writes, 5);
	rdtalloc_close(r);
}

static void bound_cpu_pqr(void **state)
{
	rdtalloc_t *r = precedence_setup();
	uint64_t w0 = tu_stats(r).pqr_writes;
	struct rdtalloc_switch s;

	/* Binding a CPU to a group changes its CLOSID: PQR_ASSOC is written. */
	assert_ok(r, rdtalloc_bind_cpu(r, "cg", 1));
	assert_int_equal(tu_pqr(r, 1), 2);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* Whatever runs there then, the CLOSID stays: no more writes. */
	s = sw(r, 1, 100);
	assert_int_equal(s.closid, 2);
	assert_int_equal(s.pqr_written, 0);
	s = sw(r, 1, 0);
	assert_int_equal(s.closid, 2);
	assert_int_equal(s.pqr_written, 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* Binding a CPU to a group on the CLOSID it already runs with: no write. */
	assert_ok(r, rdtalloc_group_create(r, "same"));
	assert_ok(r, rdtalloc_bind_cpu(r, "same", 0));
	assert_int_equal(tu_pqr(r, 0), 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	rdtalloc_close(r);
}

static void schema_move_rewrites_pqr_of_bound_cpu(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	uint64_t w0;

	/* g shares CLOSID 0 with default; CPU 1 bound to it stays on 0. */
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 1));
	assert_int_equal(tu_pqr(r, 1), 0);
	w0 = tu_stats(r).pqr_writes;
	/* g moves to CLOSID 1 in domain 0: CPU 1's PQR_ASSOC must follow. */
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f"));
	assert_int_equal(tu_closid(r, "g", "L3", 0), 1);
	assert_int_equal(tu_pqr(r, 1), 1);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* Rewriting in place keeps the CLOSID: no PQR write. */
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f0"));
	assert_int_equal(tu_pqr(r, 1), 1);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 1);
	/* Back to all-ones: shares CLOSID 0 again, PQR follows. */
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=fffff"));
	assert_int_equal(tu_pqr(r, 1), 0);
	assert_int_equal(tu_stats(r).pqr_writes, w0 + 2);
	assert_int_equal(tu_pqr(r, 0), 0);
	rdtalloc_close(r);
}

static void schema_move_rewrites_pqr_of_running_task(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct rdtalloc_switch s;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 100));
	s = sw(r, 2, 100);
	assert_int_equal(s.closid, 0);
	assert_int_equal(s.pqr_written, 0);
	/* CPU 2 runs task 100 of g; g moves to CLOSID 1 in domain 1. */
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:1=f"));
	assert_int_equal(tu_pqr(r, 2), 1);
	/* The switch-in that follows finds PQR_ASSOC right already. */
	s = sw(r, 2, 100);
	assert_int_equal(s.closid, 1);
	assert_int_equal(s.pqr_written, 0);
	/* CPU 0 (domain 0) was not concerned. */
	assert_int_equal(tu_pqr(r, 0), 0);
	rdtalloc_close(r);
}

static void removal_rewrites_pqr(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f"));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 1));
	assert_int_equal(tu_pqr(r, 1), 1);
	/* Its CPU goes back to default, and so does its CLOSID. */
	assert_ok(r, rdtalloc_group_remove(r, "g"));
	assert_int_equal(tu_pqr(r, 1), 0);
	assert_int_equal(tu_eff(r, 1, 0), 0);
	rdtalloc_close(r);
}

static void sim_switch_bad_args(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	RDTALLOC_OPTS(rdtalloc_switch, out);
	char *before = tu_dump(r, true);

	assert_err(r, rdtalloc_sim_switch(r, 4, 0, &out), -EINVAL);
	assert_err(r, rdtalloc_sim_switch(r, -1, 0, &out), -EINVAL);
	assert_err(r, rdtalloc_sim_switch(r, 0, -3, &out), -EINVAL);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void stats_and_read_bad_args(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	uint64_t v;

	assert_err(r, rdtalloc_read_mask(r, "L3", 0, 16, &v), -EINVAL);
	assert_err(r, rdtalloc_read_mask(r, "L3", 2, 0, &v), -EINVAL);
	assert_err(r, rdtalloc_read_mask(r, "L2", 0, 0, &v), -EINVAL);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(virtual_task_binding_and_moves),
		cmocka_unit_test(task_list_max),
		cmocka_unit_test(bad_task_ids),
		cmocka_unit_test(real_calling_thread),
		cmocka_unit_test(exited_task_leaves),
		cmocka_unit_test(threads_are_tasks),
		cmocka_unit_test(cpu_binding),
		cmocka_unit_test(bad_cpus),
		cmocka_unit_test(removal_returns_members),
		cmocka_unit_test(precedence),
		cmocka_unit_test(sim_switch_minimal_pqr_writes),
		cmocka_unit_test(bound_cpu_pqr),
		cmocka_unit_test(schema_move_rewrites_pqr_of_bound_cpu),
		cmocka_unit_test(schema_move_rewrites_pqr_of_running_task),
		cmocka_unit_test(removal_rewrites_pqr),
		cmocka_unit_test(sim_switch_bad_args),
		cmocka_unit_test(stats_and_read_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
