// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_threads: one context shared by threads (issue 3 §2): four threads
 * creating, removing, binding and setting schemas at once end in a state
 * that is consistent and holds exactly what each thread left; and
 * rdtalloc_errmsg is per thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "test_api_util.h"

#define NTHREADS 4
#define NROUNDS 60

struct worker {
	rdtalloc_t *r;
	int id;
	int failures;
	bool alive[NROUNDS];	/* groups this thread left in place */
	char firstfail[256];
};

static void note_fail(struct worker *w, const char *what, int rc)
{
	if (!w->failures++)
		snprintf(w->firstfail, sizeof(w->firstfail), "thread %d: %s: %d (%s)", w->id,
			 what, rc, rdtalloc_errmsg(w->r));
}

static void *work(void *arg)
{
	static const char *const masks[] = { "L3:0=f", "L3:1=f0", "L3:0=ff;1=ff", "L3:0=fffff" };
	struct worker *w = arg;
	char name[32], other[32];
	int j, rc;

	for (j = 0; j < NROUNDS; j++) {
		snprintf(name, sizeof(name), "t%d_%d", w->id, j);
		rc = rdtalloc_group_create(w->r, name);
		if (rc) {
			note_fail(w, "create", rc);
			continue;
		}
		w->alive[j] = true;
		rc = rdtalloc_set_schema(w->r, name, masks[(w->id + j) % 4]);
		if (rc)
			note_fail(w, "set_schema", rc);
		rc = rdtalloc_bind_task(w->r, name, 10000 * (w->id + 1) + j);
		if (rc)
			note_fail(w, "bind_task", rc);
		rc = rdtalloc_bind_cpu(w->r, name, w->id);
		if (rc)
			note_fail(w, "bind_cpu", rc);
		/* Every third round, remove the group of two rounds before. */
		if (j % 3 == 2) {
			snprintf(other, sizeof(other), "t%d_%d", w->id, j - 2);
			rc = rdtalloc_group_remove(w->r, other);
			if (rc)
				note_fail(w, "remove", rc);
			w->alive[j - 2] = false;
		}
		/* Reads in between. */
		if (rdtalloc_group_count(w->r) < 2)
			note_fail(w, "count", 0);
	}
	return NULL;
}

static void four_threads_one_context(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	int i, j, expect = 1;

	for (i = 0; i < NTHREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].r = r;
		w[i].id = i;
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (i = 0; i < NTHREADS; i++) {
		if (w[i].failures)
			print_error("%s (%d failures)\n", w[i].firstfail, w[i].failures);
		assert_int_equal(w[i].failures, 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		int last = -1;

		for (j = 0; j < NROUNDS; j++) {
			char name[32], buf[8];
			pid_t t = 10000 * (i + 1) + j;

			snprintf(name, sizeof(name), "t%d_%d", i, j);
			if (!w[i].alive[j]) {
				assert_err(r, rdtalloc_get_schema(r, name, buf, sizeof(buf)),
					   -ENOENT);
				assert_task_group(r, t, "default");
				continue;
			}
			expect++;
			last = j;
			assert_tasks(r, name, &t, 1);
		}
		/* CPU i ended in the last surviving group of thread i that took it. */
		{
			char name[32];

			snprintf(name, sizeof(name), "t%d_%d", i, NROUNDS - 1);
			assert_true(last == NROUNDS - 1);
			assert_cpu_group(r, i, name);
		}
	}
	assert_int_equal(rdtalloc_group_count(r), expect);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

struct errmsg_arg {
	rdtalloc_t *r;
	pthread_barrier_t *bar;
	int which;
	int ok;
	char before[512], after[512];
};

static void *errmsg_thread(void *arg)
{
	struct errmsg_arg *a = arg;
	int rc;

	if (a->which == 0)
		rc = rdtalloc_group_create(a->r, "bad/name");
	else if (a->which == 1)
		rc = rdtalloc_set_schema(a->r, NULL, "L3:0=5");
	else
		rc = rdtalloc_group_create(a->r, "fine");
	snprintf(a->before, sizeof(a->before), "%s", rdtalloc_errmsg(a->r));
	/* Everyone has made a call; now the messages must not have moved. */
	pthread_barrier_wait(a->bar);
	snprintf(a->after, sizeof(a->after), "%s", rdtalloc_errmsg(a->r));
	a->ok = a->which == 2 ? rc == 0 : rc == -EINVAL;
	return NULL;
}

static void errmsg_is_per_thread(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct errmsg_arg a[3];
	pthread_barrier_t bar;
	pthread_t th[3];
	int i;

	/* The main thread's own failure, before the others run. */
	assert_err(r, rdtalloc_group_remove(r, "nosuch"), -ENOENT);
	pthread_barrier_init(&bar, NULL, 3);
	for (i = 0; i < 3; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].r = r;
		a[i].bar = &bar;
		a[i].which = i;
		assert_int_equal(pthread_create(&th[i], NULL, errmsg_thread, &a[i]), 0);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&bar);
	for (i = 0; i < 3; i++) {
		assert_true(a[i].ok);
		assert_string_equal(a[i].before, a[i].after);
	}
	assert_true(a[0].before[0] != '\0');
	assert_true(a[1].before[0] != '\0');
	assert_string_not_equal(a[0].before, a[1].before);
	tu_msg_has(a[1].before, "not contiguous");
	/* The thread that succeeded has no message. */
	assert_string_equal(a[2].before, "");
	/* The main thread still sees its own. */
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_string_not_equal(rdtalloc_errmsg(r), a[0].before);
	assert_string_not_equal(rdtalloc_errmsg(r), a[1].before);
	rdtalloc_close(r);
}

/* Threads on separate contexts over one state directory. */
struct dir_arg {
	const char *dir;
	int id;
	int rc;
};

static void *dir_thread(void *arg)
{
	struct dir_arg *a = arg;
	rdtalloc_t *r;
	char name[32];
	int j;

	a->rc = tu_open_rc(&r, a->dir, M2V, 0);
	if (a->rc)
		return NULL;
	for (j = 0; j < 10 && !a->rc; j++) {
		snprintf(name, sizeof(name), "d%d_%d", a->id, j);
		a->rc = rdtalloc_group_create(r, name);
		if (!a->rc)
			a->rc = rdtalloc_bind_task(r, name, 500 * (a->id + 1) + j);
	}
	rdtalloc_close(r);
	return NULL;
}

/* A fresh state directory per test, removed even when the test fails. */
static int setup_dir(void **state)
{
	char *dir = malloc(64);

	if (!dir || !mkdtemp(strcpy(dir, "/tmp/rdtalloc-apitest-XXXXXX")))
		return -1;
	*state = dir;
	return 0;
}

static int teardown_dir(void **state)
{
	tu_rm_rf(*state);
	free(*state);
	return 0;
}

static void threads_with_own_contexts(void **state)
{
	struct dir_arg a[NTHREADS];
	pthread_t th[NTHREADS];
	const char *dir = *state;
	rdtalloc_t *r;
	int i;

	r = tu_open(dir, M2V, 0);
	rdtalloc_close(r);
	for (i = 0; i < NTHREADS; i++) {
		a[i].dir = dir;
		a[i].id = i;
		assert_int_equal(pthread_create(&th[i], NULL, dir_thread, &a[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(a[i].rc, 0);
	}
	r = tu_open(dir, M2V, 0);
	assert_int_equal(rdtalloc_group_count(r), 1 + NTHREADS * 10);
	assert_task_group(r, 500 * 4 + 9, "d3_9");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(four_threads_one_context),
		cmocka_unit_test(errmsg_is_per_thread),
		cmocka_unit_test_setup_teardown(threads_with_own_contexts, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
