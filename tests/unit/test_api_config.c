// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_config: rdtalloc_save_config / rdtalloc_apply_config through the
 * public API (issue 4, docs/config.md): save then apply rebuilds the same
 * state, a second apply makes no change, errors name the line and change
 * nothing (syntax, masks, CLOSIDs, tasks, CPUs), --prune, --dry-run, and
 * -ERANGE from save.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>

#include "test_api_util.h"

static char *save(rdtalloc_t *r)
{
	int n = rdtalloc_save_config(r, NULL, 0);
	char *buf;

	/* Either the length (snprintf style) or -ERANGE for an empty buffer. */
	if (n == -ERANGE)
		n = 1 << 16;
	assert_ok(r, n);
	buf = malloc(n + 1);
	assert_non_null(buf);
	n = rdtalloc_save_config(r, buf, n + 1);
	assert_ok(r, n);
	assert_int_equal(strlen(buf), n);
	return buf;
}

/* A state with a bit of everything. */
static void populate(rdtalloc_t *r)
{
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff"));
	assert_ok(r, rdtalloc_group_create(r, "p1"));
	assert_ok(r, rdtalloc_group_create(r, "p2"));
	assert_ok(r, rdtalloc_group_create(r, "idle"));
	assert_ok(r, rdtalloc_set_schema(r, "p1", "L3:0=f8000;1=ff"));
	assert_ok(r, rdtalloc_set_schema(r, "p2", "L3:0=7c00"));
	assert_ok(r, rdtalloc_bind_task(r, "p1", 1234));
	assert_ok(r, rdtalloc_bind_task(r, "p2", 5678));
	assert_ok(r, rdtalloc_bind_task(r, "p2", 5679));
	assert_ok(r, rdtalloc_bind_cpu(r, "p2", 1));
	assert_ok(r, rdtalloc_bind_cpu(r, "p2", 3));
	assert_ok(r, rdtalloc_bind_cpu(r, "p1", 2));
}

/*
 * What a configuration describes: groups in order, schemas, CPUs, tasks,
 * CDP. Registers and counters are not part of it (a fresh machine reaches
 * the same masks with its own write history).
 */
static char *config_view(rdtalloc_t *r)
{
	struct tu_groups *g = tu_groups(r);
	struct tu_buf b = { 0 };
	int i, j, n;

	tu_printf(&b, "cdp %d\n", rdtalloc_get_cdp(r, "L3"));
	for (i = 0; i < g->n; i++) {
		char *s = tu_schema(r, g->name[i]);
		int cpus[64];
		pid_t *t = tu_tasks(r, g->name[i], &n);

		tu_printf(&b, "%s: %s tasks", g->name[i], s);
		for (j = 0; j < n; j++)
			tu_printf(&b, " %d", (int)t[j]);
		n = rdtalloc_group_cpus(r, g->name[i], cpus, 64);
		tu_printf(&b, " cpus");
		for (j = 0; j < n; j++)
			tu_printf(&b, " %d", cpus[j]);
		tu_printf(&b, "\n");
		free(t);
		free(s);
	}
	free(g);
	return b.s;
}

static void round_trip(void **state)
{
	rdtalloc_t *a = tu_eph(M2V), *b = tu_eph(M2V);
	char *text, *va, *vb;

	populate(a);
	text = save(a);
	assert_true(rdtalloc_apply_config(b, text, 0) > 0);
	va = config_view(a);
	vb = config_view(b);
	assert_string_equal(va, vb);
	tu_check_invariants(b);
	/* Applying it again, or to the original, changes nothing. */
	assert_int_equal(rdtalloc_apply_config(b, text, 0), 0);
	assert_int_equal(rdtalloc_apply_config(a, text, 0), 0);
	free(text);
	/* And the copy saves to the same text. */
	text = save(a);
	{
		char *tb = save(b);

		assert_string_equal(text, tb);
		free(tb);
	}
	free(va);
	free(vb);
	free(text);
	rdtalloc_close(a);
	rdtalloc_close(b);
}

static void round_trip_fresh(void **state)
{
	rdtalloc_t *a = tu_eph(M2V), *b = tu_eph(M2V);
	char *text = save(a), *before = tu_dump(b, true);

	/* A fresh state saved and applied to a fresh state: nothing to do. */
	assert_int_equal(rdtalloc_apply_config(b, text, 0), 0);
	assert_unchanged(b, before, true);
	free(text);
	rdtalloc_close(a);
	rdtalloc_close(b);
}

static void round_trip_cdp(void **state)
{
	rdtalloc_t *a = tu_eph(M2CDP), *b = tu_eph(M2CDP);
	char *text, *va, *vb;

	assert_ok(a, rdtalloc_set_cdp(a, "L3", 1));
	assert_ok(a, rdtalloc_set_schema(a, NULL, "L3:0=ff,f0"));
	assert_ok(a, rdtalloc_group_create(a, "g"));
	assert_ok(a, rdtalloc_set_schema(a, "g", "L3:1=3,c"));
	text = save(a);
	assert_true(rdtalloc_apply_config(b, text, 0) > 0);
	assert_int_equal(rdtalloc_get_cdp(b, "L3"), 1);
	va = config_view(a);
	vb = config_view(b);
	assert_string_equal(va, vb);
	assert_int_equal(rdtalloc_apply_config(b, text, 0), 0);
	free(va);
	free(vb);
	free(text);
	rdtalloc_close(a);
	rdtalloc_close(b);
}

static void apply_hand_written(void **state)
{
	static const char *const text =
		"# two real-time tasks on socket 0\n"
		"cdp L3 off\n"
		"\n"
		"group default\n"
		"\tschema L3:0=3ff;1=fffff   # everyone else\n"
		"group p1\n"
		"\tschema L3:0=f8000\n"
		"\ttasks 1234\n"
		"\tcpus 0\n"
		"group p2\n"
		"    schema L3:0=7c00\n"
		"    tasks 5678 5679\n"
		"    cpus 1\n";
	rdtalloc_t *r = tu_eph(M2V);
	const pid_t t2[] = { 5678, 5679 };
	const int c1[] = { 1 }, cdef[] = { 2, 3 };
	int n;

	n = rdtalloc_apply_config(r, text, 0);
	assert_ok(r, n);
	assert_true(n > 0);
	assert_int_equal(rdtalloc_group_count(r), 3);
	assert_schema(r, NULL, "L3:0=003ff;1=fffff\n");
	assert_schema(r, "p1", "L3:0=f8000;1=fffff\n");
	assert_schema(r, "p2", "L3:0=07c00;1=fffff\n");
	assert_tasks(r, "p2", t2, 2);
	assert_cpus(r, "p2", c1, 1);
	assert_cpus(r, NULL, cdef, 2);
	assert_task_group(r, 1234, "p1");
	/* Three distinct masks on socket 0, all-ones shared on socket 1. */
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 3);
	assert_int_equal(rdtalloc_closids(r, "L3", 1, NULL, 0), 1);
	tu_check_invariants(r);
	assert_int_equal(rdtalloc_apply_config(r, text, 0), 0);
	rdtalloc_close(r);
}

static void exact_membership(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const pid_t t[] = { 3 };

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 1));
	assert_ok(r, rdtalloc_bind_task(r, "g", 2));
	assert_ok(r, rdtalloc_bind_cpu(r, "g", 0));
	/* The group gets exactly what the file says: 1, 2 and CPU 0 go back to default. */
	assert_true(rdtalloc_apply_config(r, "group g\n tasks 3\n", 0) > 0);
	assert_tasks(r, "g", t, 1);
	assert_task_group(r, 1, "default");
	assert_cpus(r, "g", NULL, 0);
	assert_cpu_group(r, 0, "default");
	rdtalloc_close(r);
}

/* text fails with err, errmsg starts with "line N:", and nothing changed. */
static void apply_fails(rdtalloc_t *r, const char *text, int err, unsigned int line)
{
	char *before = tu_dump(r, true);
	char want[32];
	int rc = rdtalloc_apply_config(r, text, 0);

	if (rc != err)
		print_error("apply:\n%s--> %d, want %d (%s)\n", text, rc, err, rdtalloc_errmsg(r));
	assert_int_equal(rc, err);
	snprintf(want, sizeof(want), "line %u:", line);
	if (strncmp(rdtalloc_errmsg(r), want, strlen(want)))
		print_error("errmsg \"%s\" does not begin with \"%s\"\n", rdtalloc_errmsg(r), want);
	assert_int_equal(strncmp(rdtalloc_errmsg(r), want, strlen(want)), 0);
	assert_unchanged(r, before, true);
	/* Dry run: the same verdict. */
	assert_int_equal(rdtalloc_apply_config(r, text, RDTALLOC_APPLY_DRY_RUN), err);
}

static void errors_name_the_line(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	populate(r);
	apply_fails(r, "group a\n\tcpu 1\n", -EINVAL, 2);
	apply_fails(r, "schema L3:0=f\n", -EINVAL, 1);
	apply_fails(r, "group a\ngroup a/b\n", -EINVAL, 2);
	apply_fails(r, "group a\ngroup b\ngroup a\n", -EINVAL, 3);
	apply_fails(r, "group default\n\tcpus 1\n", -EINVAL, 2);
	apply_fails(r, "group a\n\tcpus 3-1\n", -EINVAL, 2);
	apply_fails(r, "group a\n\ttasks abc\n", -EINVAL, 2);
	apply_fails(r, "group a\n\tcpus 1\ngroup b\n\tcpus 1\n", -EINVAL, 4);
	apply_fails(r, "group a\ncdp L3 on\n", -EINVAL, 2);
	/* Found when applied, still named by line: masks, cache ids, CPUs. */
	apply_fails(r, "# c\ngroup new\n\tschema L3:0=f\ngroup p1\n\tschema L3:0=5\n", -EINVAL, 5);
	apply_fails(r, "group a\n\n\tschema L3:2=f\n", -EINVAL, 3);
	apply_fails(r, "group a\n\tcpus 0-9\n", -EINVAL, 2);
	/* CDP cannot change while groups exist. */
	apply_fails(r, "cdp L3 on\n", -EBUSY, 1);
	rdtalloc_close(r);
}

static void unknown_task_changes_nothing(void **state)
{
	rdtalloc_t *r = tu_eph(M2);
	pid_t dead = fork();
	char text[128];

	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	assert_ok(r, rdtalloc_group_create(r, "keep"));
	snprintf(text, sizeof(text), "group new\n\tschema L3:0=f\n\ttasks %d %d\n", (int)getpid(),
		 (int)dead);
	{
		char *before = tu_dump(r, false);
		int rc = rdtalloc_apply_config(r, text, 0);

		assert_int_equal(rc, -ESRCH);
		assert_int_equal(strncmp(rdtalloc_errmsg(r), "line 3:", 7), 0);
		assert_unchanged(r, before, false);
	}
	rdtalloc_close(r);
}

static void too_many_closids(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct tu_buf b = { 0 };
	char *before;
	int i;

	assert_ok(r, rdtalloc_group_create(r, "keep"));
	assert_ok(r, rdtalloc_set_schema(r, "keep", "L3:1=1"));
	/* 16 new distinct masks on socket 0 plus default's: 17 > 16. */
	for (i = 1; i <= 16; i++)
		tu_printf(&b, "group n%d\n\tschema L3:0=%x\n", i, (1u << i) - 1);
	before = tu_dump(r, true);
	assert_int_equal(rdtalloc_apply_config(r, b.s, 0), -ENOSPC);
	assert_true(rdtalloc_errmsg(r)[0] != '\0');
	assert_unchanged(r, before, true);
	/* 15 fit. */
	free(b.s);
	memset(&b, 0, sizeof(b));
	for (i = 1; i <= 15; i++)
		tu_printf(&b, "group n%d\n\tschema L3:0=%x\n", i, (1u << i) - 1);
	assert_true(rdtalloc_apply_config(r, b.s, 0) > 0);
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 16);
	tu_check_invariants(r);
	free(b.s);
	rdtalloc_close(r);
}

static void masks_freed_by_the_file_count(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct tu_buf b = { 0 };
	char name[16], schema[32];
	int i;

	/* 15 groups with distinct masks: socket 0 full. */
	for (i = 1; i <= 15; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		snprintf(schema, sizeof(schema), "L3:0=%x", (1u << i) - 1);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_ok(r, rdtalloc_set_schema(r, name, schema));
	}
	/*
	 * The file first asks for a new mask (no CLOSID is free now), then
	 * gives all 15 groups one mask, which frees 14. The end state needs 3
	 * CLOSIDs: the file fits, whatever order its statements come in.
	 */
	tu_printf(&b, "group extra\n\tschema L3:0=c0000\n");
	for (i = 1; i <= 15; i++)
		tu_printf(&b, "group g%d\n\tschema L3:0=80000\n", i);
	assert_ok(r, rdtalloc_apply_config(r, b.s, 0));
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 3);
	tu_check_invariants(r);
	free(b.s);
	rdtalloc_close(r);
}

static void prune(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	struct tu_groups *g;

	populate(r);
	/* Without --prune, groups the file does not name stay. */
	assert_true(rdtalloc_apply_config(r, "group p1\n\tschema L3:0=f\n", 0) > 0);
	assert_int_equal(rdtalloc_group_count(r), 4);
	assert_true(rdtalloc_apply_config(r, "group p1\n\tschema L3:0=f\n",
					  RDTALLOC_APPLY_PRUNE) > 0);
	g = tu_groups(r);
	assert_int_equal(g->n, 2);
	assert_string_equal(g->name[0], "default");
	assert_string_equal(g->name[1], "p1");
	free(g);
	/* p2's tasks and CPUs went back to default. */
	assert_task_group(r, 5678, "default");
	assert_cpu_group(r, 3, "default");
	tu_check_invariants(r);
	/* Pruning to nothing but default. */
	assert_true(rdtalloc_apply_config(r, "# nothing\n", RDTALLOC_APPLY_PRUNE) > 0);
	assert_int_equal(rdtalloc_group_count(r), 1);
	rdtalloc_close(r);
}

static void dry_run(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const char *text = "group a\n\tschema L3:0=f\n\ttasks 7\ngroup b\n";
	char *before;
	int n;

	populate(r);
	before = tu_dump(r, true);
	n = rdtalloc_apply_config(r, text, RDTALLOC_APPLY_DRY_RUN);
	assert_true(n > 0);
	assert_unchanged(r, before, true);
	/* The real thing makes as many changes as the dry run announced. */
	assert_int_equal(rdtalloc_apply_config(r, text, 0), n);
	assert_int_equal(rdtalloc_apply_config(r, text, RDTALLOC_APPLY_DRY_RUN), 0);
	rdtalloc_close(r);
}

static void save_erange(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *full, small[16];
	int n;

	populate(r);
	full = save(r);
	n = strlen(full);
	assert_err(r, rdtalloc_save_config(r, small, sizeof(small)), -ERANGE);
	{
		char *exact = malloc(n + 1);

		assert_int_equal(rdtalloc_save_config(r, exact, n + 1), n);
		assert_string_equal(exact, full);
		assert_err(r, rdtalloc_save_config(r, exact, n), -ERANGE);
		free(exact);
	}
	free(full);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(round_trip_fresh),
		cmocka_unit_test(round_trip_cdp),
		cmocka_unit_test(apply_hand_written),
		cmocka_unit_test(exact_membership),
		cmocka_unit_test(errors_name_the_line),
		cmocka_unit_test(unknown_task_changes_nothing),
		cmocka_unit_test(too_many_closids),
		cmocka_unit_test(masks_freed_by_the_file_count),
		cmocka_unit_test(prune),
		cmocka_unit_test(dry_run),
		cmocka_unit_test(save_erange),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
