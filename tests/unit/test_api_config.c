// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_config: rdtalloc_save_config / rdtalloc_apply_config through the
 * public API (issue 4, docs/config.md): save then apply rebuilds the same
 * state, a second apply makes no change, errors name the line and change
 * nothing (syntax, masks, CLOSIDs, tasks, CPUs), --prune, --dry-run, and
 * -ERANGE from save. Issue 13: rdtalloc_save_config_flags (no task ids
 * unless asked), the report of rdtalloc_apply_config_report line for line,
 * and RDTALLOC_APPLY_SKIP_MISSING_TASKS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
	{
		char rep[4096], *p;
		int n = rdtalloc_apply_config_report(r, b.s, 0, rep, sizeof(rep), NULL), lines = 0;

		/* extra waits for a CLOSID: its schema comes last, one line per change */
		assert_int_equal(n, 17);
		for (p = rep; (p = strchr(p, '\n')); p++)
			lines++;
		assert_int_equal(lines, n);
		assert_non_null(strstr(rep, "create group extra\nschema g1 "));
		/* the last line */
		p = strstr(rep, "\nschema extra L3:0=fffff;1=fffff -> L3:0=c0000;1=fffff\n");
		assert_non_null(p);
		assert_int_equal(strlen(strchr(p + 1, '\n')), 1);
	}
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
	/* 0.8: --prune leaves groups made by hand; _PRUNE_ALL removes them */
	assert_int_equal(rdtalloc_apply_config(r, "group p1\n\tschema L3:0=f\n",
					       RDTALLOC_APPLY_PRUNE), 0);
	assert_int_equal(rdtalloc_group_count(r), 4);
	assert_true(rdtalloc_apply_config(r, "group p1\n\tschema L3:0=f\n",
					  RDTALLOC_APPLY_PRUNE_ALL) > 0);
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
	assert_true(rdtalloc_apply_config(r, "# nothing\n", RDTALLOC_APPLY_PRUNE_ALL) > 0);
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

/* ---- issue 13: save without tasks, the apply report ------------------------------ */

/* A task id above PID_MAX_LIMIT (2^22): no process can have it. */
#define NO_SUCH_TASK 4194305

/* docs/config.md, "The end line": FNV-1a, 64 bits, of every byte above it */
static uint64_t fnv1a64(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* save_config_flags' text, checked to start with the two comment lines; the rest. */
static char *save_body(rdtalloc_t *r, unsigned int flags)
{
	static const char head[] = "# rdtalloc configuration (rdtctl save, librdtalloc "
				   RDTALLOC_VERSION_STRING ")\n# machine: ";
	int n = rdtalloc_save_config_flags(r, flags, NULL, 0);
	char *buf, *body;

	assert_ok(r, n);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(rdtalloc_save_config_flags(r, flags, buf, n + 1), n);
	assert_int_equal(strlen(buf), n);
	assert_int_equal(strncmp(buf, head, strlen(head)), 0);
	body = strchr(buf + strlen(head), '\n');
	assert_non_null(body);
	body = strdup(body + 1);
	/* the end line: the checksum of everything above it, after a blank line */
	{
		char *end = strstr(body, "\n\nend fnv1a64=");
		char want[64];

		assert_non_null(end);
		snprintf(want, sizeof(want), "end fnv1a64=%016llx\n", (unsigned long long)
			 fnv1a64(buf, (size_t)(strstr(buf, "\nend fnv1a64=") - buf) + 1));
		assert_string_equal(end + 2, want);
		end[1] = '\0';
	}
	free(buf);
	return body;
}

static void save_without_tasks(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *body;

	populate(r);
	body = save_body(r, 0);
	assert_string_equal(body,
			    "machine L3 ids=0-1 cbm_len=20\n"
			    "cdp L3 off\n"
			    "\n"
			    "group default\n"
			    "\tschema L3:0=003ff;1=fffff\n"
			    "\n"
			    "group p1\n"
			    "\tschema L3:0=f8000;1=000ff\n"
			    "\tcpus 2\n"
			    "\n"
			    "group p2\n"
			    "\tschema L3:0=07c00;1=fffff\n"
			    "\tcpus 1,3\n"
			    "\n"
			    "group idle\n"
			    "\tschema L3:0=fffff;1=fffff\n");
	free(body);
	rdtalloc_close(r);
}

static void save_with_tasks(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *body, *old, *full;
	int n;

	populate(r);
	body = save_body(r, RDTALLOC_SAVE_TASKS);
	assert_string_equal(body,
			    "machine L3 ids=0-1 cbm_len=20\n"
			    "cdp L3 off\n"
			    "\n"
			    "group default\n"
			    "\tschema L3:0=003ff;1=fffff\n"
			    "\n"
			    "group p1\n"
			    "\tschema L3:0=f8000;1=000ff\n"
			    "\tcpus 2\n"
			    "\ttasks 1234\n"
			    "\n"
			    "group p2\n"
			    "\tschema L3:0=07c00;1=fffff\n"
			    "\tcpus 1,3\n"
			    "\ttasks 5678 5679\n"
			    "\n"
			    "group idle\n"
			    "\tschema L3:0=fffff;1=fffff\n");
	/* rdtalloc_save_config is the same text, tasks included, as before. */
	old = save(r);
	n = rdtalloc_save_config_flags(r, RDTALLOC_SAVE_TASKS, NULL, 0);
	full = malloc(n + 1);
	assert_int_equal(rdtalloc_save_config_flags(r, RDTALLOC_SAVE_TASKS, full, n + 1), n);
	assert_string_equal(old, full);
	free(full);
	free(old);
	free(body);
	rdtalloc_close(r);
}

static void save_flags_length(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char small[16], *full;
	int n;

	populate(r);
	n = rdtalloc_save_config_flags(r, 0, NULL, 0);
	assert_ok(r, n);
	full = malloc(n + 1);
	assert_int_equal(rdtalloc_save_config_flags(r, 0, full, n + 1), n);
	/* A short buffer: the full length, and a NUL-terminated prefix, not -ERANGE. */
	memset(small, 'x', sizeof(small));
	assert_int_equal(rdtalloc_save_config_flags(r, 0, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(strncmp(small, full, sizeof(small) - 1), 0);
	assert_int_equal(rdtalloc_save_config_flags(r, 0, full, n), n);
	assert_int_equal(strlen(full), n - 1);
	assert_err(r, rdtalloc_save_config_flags(r, 0, NULL, 1), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "the buffer is NULL but its length is 1");
	assert_err(r, rdtalloc_save_config_flags(r, 1u << 5, NULL, 0), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "unknown save flags 0x20");
	assert_int_equal(rdtalloc_save_config_flags(NULL, 0, NULL, 0), -EINVAL);
	free(full);
	rdtalloc_close(r);
}

/* Apply text with flags: the count must be want, the report exactly lines. */
static void apply_reports(rdtalloc_t *r, const char *text, unsigned int flags, int want,
			  const char *lines)
{
	size_t need = 12345, len;
	char *rep;
	int n;

	/* The length first, as a dry run: a real apply cannot be asked twice. */
	n = rdtalloc_apply_config_report(r, text, flags | RDTALLOC_APPLY_DRY_RUN, NULL, 0, &need);
	assert_ok(r, n);
	assert_int_equal(n, want);
	assert_int_equal(need, strlen(lines));
	len = need + 1;
	rep = malloc(len);
	n = rdtalloc_apply_config_report(r, text, flags, rep, len, &need);
	assert_ok(r, n);
	assert_int_equal(n, want);
	assert_string_equal(rep, lines);
	assert_int_equal(need, strlen(lines));
	free(rep);
}

static const char report_text[] =
	"group default\n"
	"\tschema L3:0=3ff\n"
	"group rt\n"
	"\tschema L3:0=f8000\n"
	"\tcpus 2-3\n"
	"\ttasks 1234 5678\n";

static void report_lines(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "old"));
	apply_reports(r, report_text, RDTALLOC_APPLY_PRUNE_ALL, 8,
		      "remove group old\n"
		      "schema default L3:0=fffff;1=fffff -> L3:0=003ff;1=fffff\n"
		      "create group rt\n"
		      "schema rt L3:0=fffff;1=fffff -> L3:0=f8000;1=fffff\n"
		      "cpu 2 -> rt\n"
		      "cpu 3 -> rt\n"
		      "task 1234 -> rt\n"
		      "task 5678 -> rt\n");
	/* The same again: nothing to do, nothing said. */
	apply_reports(r, report_text, RDTALLOC_APPLY_PRUNE_ALL, 0, "");
	/* What the file no longer lists goes back to default, and says so. */
	apply_reports(r, "group rt\n\tschema L3:1=3\n\tcpus 3\n\ttasks 5678 7\n", 0, 4,
		      "schema rt L3:0=f8000;1=fffff -> L3:0=f8000;1=00003\n"
		      "cpu 2 -> default\n"
		      "task 1234 -> default\n"
		      "task 7 -> rt\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void report_cdp(void **state)
{
	rdtalloc_t *r = tu_eph(M2CDP);

	apply_reports(r, "cdp L3 on\ngroup g\n\tschema L3:1=3,c\n", 0, 3,
		      "cdp L3 on\n"
		      "create group g\n"
		      "schema g L3:0=fffff,fffff;1=fffff,fffff"
		      " -> L3:0=fffff,fffff;1=00003,0000c\n");
	assert_int_equal(rdtalloc_get_cdp(r, "L3"), 1);
	rdtalloc_close(r);
}

static void report_buffer(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char small[8];
	size_t need = 0;

	/* A short report buffer: a NUL-terminated prefix; the apply is done all the same. */
	memset(small, 'x', sizeof(small));
	assert_int_equal(rdtalloc_apply_config_report(r, "group a\ngroup b\n", 0, small,
						      sizeof(small), &need), 2);
	assert_string_equal(small, "create ");
	assert_int_equal(need, strlen("create group a\ncreate group b\n"));
	assert_int_equal(rdtalloc_group_count(r), 3);
	/* No report wanted at all. */
	assert_int_equal(rdtalloc_apply_config_report(r, "group c\n", 0, NULL, 0, NULL), 1);
	assert_err(r, rdtalloc_apply_config_report(r, "group d\n", 0, NULL, 4, &need), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "the report buffer is NULL but its length is 4");
	assert_err(r, rdtalloc_apply_config_report(r, "group d\n", 1u << 7, NULL, 0, &need),
		   -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "unknown apply flags 0x80");
	assert_int_equal(rdtalloc_apply_config_report(NULL, "", 0, NULL, 0, &need), -EINVAL);
	assert_int_equal(rdtalloc_group_count(r), 4);
	rdtalloc_close(r);
}

static void report_dry_run(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char dry[512], real[512], *before;
	size_t nd, nr;
	int n;

	populate(r);
	before = tu_dump(r, true);
	n = rdtalloc_apply_config_report(r, report_text, RDTALLOC_APPLY_DRY_RUN, dry, sizeof(dry),
					 &nd);
	assert_int_equal(n, 6);
	assert_unchanged(r, before, true);
	/* default has its schema already: not a change */
	assert_string_equal(dry,
			    "create group rt\n"
			    "schema rt L3:0=fffff;1=fffff -> L3:0=f8000;1=fffff\n"
			    "cpu 2 -> rt\n"
			    "cpu 3 -> rt\n"
			    "task 1234 -> rt\n"
			    "task 5678 -> rt\n");
	/* The real apply does what the dry run said, line for line. */
	assert_int_equal(rdtalloc_apply_config_report(r, report_text, 0, real, sizeof(real), &nr),
			 n);
	assert_string_equal(real, dry);
	assert_int_equal(nr, nd);
	assert_task_group(r, 5678, "rt");
	rdtalloc_close(r);
}

static void missing_task_fails_by_default(void **state)
{
	rdtalloc_t *r = tu_eph(M2);
	char text[128], rep[64], want[64];
	size_t need = 99;
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "keep"));
	snprintf(text, sizeof(text), "group new\n\tschema L3:0=f\n\ttasks %d\n\ttasks %d\n",
		 (int)getpid(), NO_SUCH_TASK);
	before = tu_dump(r, false);
	memset(rep, 'x', sizeof(rep));
	assert_err(r, rdtalloc_apply_config_report(r, text, 0, rep, sizeof(rep), &need), -ESRCH);
	snprintf(want, sizeof(want), "line 4: task %d does not exist", NO_SUCH_TASK);
	assert_string_equal(rdtalloc_errmsg(r), want);
	/* Nothing changed, and nothing is reported as done. */
	assert_string_equal(rep, "");
	assert_int_equal(need, 0);
	assert_unchanged(r, before, false);
	assert_err(r, rdtalloc_apply_config(r, text, RDTALLOC_APPLY_DRY_RUN), -ESRCH);
	assert_string_equal(rdtalloc_errmsg(r), want);
	rdtalloc_close(r);
}

static void missing_task_skipped(void **state)
{
	const unsigned int skip = RDTALLOC_APPLY_SKIP_MISSING_TASKS;
	rdtalloc_t *r = tu_eph(M2);
	char text[128], lines[256];
	const pid_t me[] = { getpid() };
	char *before;

	snprintf(text, sizeof(text), "group new\n\tschema L3:0=f\n\ttasks %d %d\n\ttasks %d\n",
		 NO_SUCH_TASK + 1, (int)getpid(), NO_SUCH_TASK);
	snprintf(lines, sizeof(lines),
		 "create group new\n"
		 "schema new L3:0=fffff;1=fffff -> L3:0=0000f;1=fffff\n"
		 "task %d -> new\n"
		 "skip task %d (line 4): no such task\n"
		 "skip task %d (line 3): no such task\n",
		 (int)getpid(), NO_SUCH_TASK, NO_SUCH_TASK + 1);
	before = tu_dump(r, false);
	{
		unsigned int dry = skip | RDTALLOC_APPLY_DRY_RUN;
		char rep[256];
		size_t need;
		int n = rdtalloc_apply_config_report(r, text, dry, rep, sizeof(rep), &need);

		assert_int_equal(n, 3);
		assert_string_equal(rep, lines);
		assert_unchanged(r, before, false);
	}
	apply_reports(r, text, skip, 3, lines);
	assert_tasks(r, "new", me, 1);
	/* Again: only the skips are left to say. */
	snprintf(lines, sizeof(lines),
		 "skip task %d (line 4): no such task\n"
		 "skip task %d (line 3): no such task\n", NO_SUCH_TASK, NO_SUCH_TASK + 1);
	apply_reports(r, text, skip, 0, lines);
	/* The plain call takes the flag too, and says nothing. */
	assert_int_equal(rdtalloc_apply_config(r, text, skip), 0);
	tu_check_invariants(r);
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
		cmocka_unit_test(save_without_tasks),
		cmocka_unit_test(save_with_tasks),
		cmocka_unit_test(save_flags_length),
		cmocka_unit_test(report_lines),
		cmocka_unit_test(report_cdp),
		cmocka_unit_test(report_buffer),
		cmocka_unit_test(report_dry_run),
		cmocka_unit_test(missing_task_fails_by_default),
		cmocka_unit_test(missing_task_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
