// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_config: lib/config.c - the save/apply text parsed into struct
 * rdt_config (exact fields and lines), every syntax error with its exact
 * "line N: ..." message, linear time on large files, and rdt_name_valid.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "machine.h"

static struct rdt_config *parse_ok(const char *text)
{
	struct rdt_config *c = NULL;
	char err[512] = "";

	assert_int_equal(rdt_config_parse(text, &c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_non_null(c);
	return c;
}

static void expect_error(const char *text, const char *msg)
{
	struct rdt_config *c = (struct rdt_config *)&c;	/* must be reset to NULL */
	char err[512] = "";

	assert_int_equal(rdt_config_parse(text, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
	assert_null(c);
}

static void test_example(void **state)
{
	const char *text =
		"# rdtalloc configuration\n"
		"cdp L3 off                 # optional; cdp RES on|off\n"
		"group default              # the default group's schema (and tasks)\n"
		"\tschema L3:0=3ff;1=fffff\n"
		"group p1\n"
		"\tschema L3:0=f8000;1=fffff\n"
		"\tschema L2:0=f              # joined with a newline\n"
		"\tcpus 2-3\n"
		"\ttasks 1234 5678\n";
	struct rdt_config *c = parse_ok(text);
	struct rdt_config_group *g;

	assert_int_equal(c->cdp[RDT_L3], 0);
	assert_int_equal(c->cdp_line[RDT_L3], 2);
	assert_int_equal(c->cdp[RDT_L2], -1);
	assert_int_equal(c->ngroups, 2);

	g = &c->groups[0];
	assert_string_equal(g->name, "default");
	assert_int_equal(g->line, 3);
	assert_string_equal(g->schema, "L3:0=3ff;1=fffff");
	assert_int_equal(g->schema_line, 4);
	assert_false(g->cpus_set);
	assert_int_equal(g->ncpus, 0);
	assert_null(g->cpus);
	assert_false(g->tasks_set);
	assert_int_equal(g->ntasks, 0);
	assert_null(g->tasks);

	g = &c->groups[1];
	assert_string_equal(g->name, "p1");
	assert_int_equal(g->line, 5);
	assert_string_equal(g->schema, "L3:0=f8000;1=fffff\nL2:0=f");
	assert_int_equal(g->schema_line, 6);
	assert_true(g->cpus_set);
	assert_int_equal(g->cpus_line, 8);
	assert_int_equal(g->ncpus, 2);
	assert_int_equal(g->cpus[0], 2);
	assert_int_equal(g->cpus[1], 3);
	assert_true(g->tasks_set);
	assert_int_equal(g->tasks_line, 9);
	assert_int_equal(g->ntasks, 2);
	assert_int_equal(g->tasks[0], 1234);
	assert_int_equal(g->tasks[1], 5678);
	rdt_config_free(c);
}

static void test_empty_and_comments(void **state)
{
	struct rdt_config *c;

	c = parse_ok("");
	assert_int_equal(c->ngroups, 0);
	assert_null(c->groups);
	assert_int_equal(c->cdp[RDT_L3], -1);
	assert_int_equal(c->cdp[RDT_L2], -1);
	rdt_config_free(c);

	c = parse_ok("\n\n   \n\t# only a comment\n#group x\n   # group y\n");
	assert_int_equal(c->ngroups, 0);
	rdt_config_free(c);
}

static void test_layout_is_free(void **state)
{
	/* no indentation, CRLF line ends, blanks around words, no final newline */
	struct rdt_config *c = parse_ok("group a\r\nschema   L3:0=1 \r\n"
					"  tasks\t7   3 \t7\r\n"
					"group b#comment right after the name\n"
					"cpus 1,0");
	struct rdt_config_group *g = &c->groups[0];

	assert_int_equal(c->ngroups, 2);
	assert_string_equal(g->name, "a");
	assert_string_equal(g->schema, "L3:0=1");
	assert_int_equal(g->ntasks, 2);		/* sorted, the duplicate merged */
	assert_int_equal(g->tasks[0], 3);
	assert_int_equal(g->tasks[1], 7);
	assert_int_equal(g->tasks_line, 3);
	g = &c->groups[1];
	assert_string_equal(g->name, "b");
	assert_int_equal(g->line, 4);
	assert_int_equal(g->ncpus, 2);
	assert_int_equal(g->cpus[0], 0);
	assert_int_equal(g->cpus[1], 1);
	assert_int_equal(g->cpus_line, 5);
	rdt_config_free(c);
}

static void test_empty_lists_mean_none(void **state)
{
	struct rdt_config *c = parse_ok("group a\n cpus\n tasks   # none\n");
	struct rdt_config_group *g = &c->groups[0];

	assert_true(g->cpus_set);
	assert_int_equal(g->ncpus, 0);
	assert_true(g->tasks_set);
	assert_int_equal(g->ntasks, 0);
	assert_null(g->schema);
	assert_int_equal(g->schema_line, 0);
	rdt_config_free(c);
}

static void test_cdp(void **state)
{
	struct rdt_config *c = parse_ok("cdp l2 on\ncdp L3 off\n");

	assert_int_equal(c->cdp[RDT_L2], 1);
	assert_int_equal(c->cdp_line[RDT_L2], 1);
	assert_int_equal(c->cdp[RDT_L3], 0);
	assert_int_equal(c->cdp_line[RDT_L3], 2);
	rdt_config_free(c);

	expect_error("group a\ncdp L3 on\n", "line 2: 'cdp' must come before the first group");
	expect_error("cdp L3 on\ncdp L3 off\n", "line 2: cdp L3 is already set at line 1");
	expect_error("cdp L4 on\n", "line 1: cdp: unknown resource 'L4' (L3 or L2)");
	/* MB is a resource, but not one with CDP (an index past the cdp array once) */
	expect_error("cdp MB on\n", "line 1: cdp: unknown resource 'MB' (L3 or L2)");
	expect_error("cdp mb off\n", "line 1: cdp: unknown resource 'mb' (L3 or L2)");
	expect_error("cdp L3AAAAAAAAAAAAAAAAAAA on\n",
		     "line 1: cdp: unknown resource 'L3AAAAAAAAAAAAAAAAAAA' (L3 or L2)");
	expect_error("cdp L3 yes\n", "line 1: cdp L3: 'yes' is not on or off");
	expect_error("cdp L3 ON\n", "line 1: cdp L3: 'ON' is not on or off");
	expect_error("cdp L3\n", "line 1: 'cdp' takes a resource and on or off, e.g. 'cdp L3 on'");
	expect_error("cdp\n", "line 1: 'cdp' takes a resource and on or off, e.g. 'cdp L3 on'");
	expect_error("cdp L3 on off\n",
		     "line 1: 'cdp' takes a resource and on or off, e.g. 'cdp L3 on'");
}

static void test_machine(void **state)
{
	struct rdt_config *c;
	char err[256];

	(void)state;
	assert_int_equal(rdt_config_parse("machine L3 ids=0-1 cbm_len=11\n"
					  "machine mb ids=0,2 units=amd max=2048\n"
					  "group a\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c->machine[RDT_L3].line, 1);
	assert_int_equal(c->machine[RDT_L3].nids, 2);
	assert_int_equal(c->machine[RDT_L3].ids[1], 1);
	assert_int_equal(c->machine[RDT_L3].cbm_len, 11);
	assert_int_equal(c->machine[RDT_L3].units, -1);
	assert_int_equal(c->machine[RDT_L2].line, 0);
	assert_int_equal(c->machine[RDT_MB].line, 2);
	assert_int_equal(c->machine[RDT_MB].ids[1], 2);
	assert_int_equal(c->machine[RDT_MB].units, 1);
	assert_int_equal(c->machine[RDT_MB].max, 2048);
	rdt_config_free(c);

	expect_error("group a\nmachine L3 ids=0\n",
		     "line 2: 'machine' must come before the first group");
	expect_error("machine L3 ids=0\nmachine L3 ids=0\n",
		     "line 2: machine L3 is already given at line 1");
	expect_error("machine L4 ids=0\n", "line 1: machine: unknown resource 'L4' (L3, L2 or MB)");
	expect_error("machine\n", "line 1: 'machine' takes a resource and its facts, e.g. "
		     "'machine L3 ids=0-1 cbm_len=11'");
	expect_error("machine L3 cbm_len=11\n", "line 1: machine L3: ids=LIST is missing");
	expect_error("machine L3 ids\n", "line 1: machine L3: 'ids' is not KEY=VALUE");
	expect_error("machine L3 ids=\n", "line 1: machine L3: 'ids=' is not KEY=VALUE");
	expect_error("machine L3 ids=3-1\n",
		     "line 1: machine L3: ids '3-1': CPU list '3-1': range is reversed");
	expect_error("machine L3 ids=0 ids=1\n", "line 1: machine L3: ids given twice");
	expect_error("machine L3 ids=0 cbm_len=65\n",
		     "line 1: machine L3: cbm_len '65' is not 1..64");
	expect_error("machine L3 ids=0 cbm_len=0x10\n",
		     "line 1: machine L3: cbm_len '0x10' is not 1..64");
	expect_error("machine L3 ids=0 units=amd\n",
		     "line 1: machine L3: unknown key 'units' (expected ids, or cbm_len)");
	expect_error("machine MB ids=0 cbm_len=8\n",
		     "line 1: machine MB: unknown key 'cbm_len' (expected ids, units or max)");
	expect_error("machine MB ids=0 units=gbps\n",
		     "line 1: machine MB: units 'gbps' is not percent, amd or mbps");
	expect_error("machine MB ids=0 max=99999999999\n",
		     "line 1: machine MB: max '99999999999' is not 1..4294967295");
}

/* The end line: a saved file must have it, with the checksum of the bytes above. */
static void test_end_line(void **state)
{
	static const char body[] = "# rdtalloc configuration (rdtctl save, librdtalloc 0.4.0)\n"
				   "group a\n\tschema L3:0=f\n\n";
	char text[512], err[256];
	struct rdt_config *c;
	uint64_t sum = rdt_config_checksum_add(RDT_CONFIG_CHECKSUM_INIT, body, strlen(body));

	(void)state;
	snprintf(text, sizeof(text), "%send fnv1a64=%016llx\n", body, (unsigned long long)sum);
	c = parse_ok(text);
	assert_int_equal(c->end_line, 5);
	rdt_config_free(c);
	/* CRLF and trailing blank lines after it change nothing */
	snprintf(text, sizeof(text), "%send fnv1a64=%016llx\r\n\n# done\n", body,
		 (unsigned long long)sum);
	rdt_config_free(parse_ok(text));
	/* cut at a line boundary: the end line is gone */
	expect_error(body, "line 5: the file ends without the 'end' line rdtctl save writes: it "
		     "was cut short (or, edited by hand, lost it: then delete the first line too)");
	/* a line changed above it */
	snprintf(text, sizeof(text), "%send fnv1a64=%016llx\n", body, (unsigned long long)sum + 1);
	expect_error(text, "line 5: the checksum of the lines above does not match (the file was "
		     "changed after rdtctl save wrote it, or damaged): to apply an edited file, "
		     "delete its first line (the save header) and its 'end' line");
	snprintf(text, sizeof(text), "%send fnv1a64=%016llx\ngroup b\n", body,
		 (unsigned long long)sum);
	expect_error(text, "line 6: nothing may follow the 'end' line (line 5)");
	expect_error("end\n", "line 1: 'end' takes the checksum save wrote, 'end fnv1a64=' and 16 "
		     "hex digits; got 'end '");
	expect_error("end fnv1a64=0123456789ABCDEF\n",
		     "line 1: 'end': '0123456789ABCDEF' is not 16 lowercase hex digits");
	/* hand-written (no save header): no end line needed */
	rdt_config_free(parse_ok("group a\n\tschema L3:0=f\n"));
	assert_int_equal(rdt_config_parse("group a\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c->end_line, 0);
	rdt_config_free(c);
}

static void test_keyword_errors(void **state)
{
	expect_error("\n# x\n\nfoo bar\n",
		     "line 4: unknown keyword 'foo' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)");
	expect_error("groupp1\n",
		     "line 1: unknown keyword 'groupp1' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)");
	expect_error("Group p1\n",
		     "line 1: unknown keyword 'Group' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)");
	expect_error("group a\n\x01tasks 1\n",
		     "line 2: unknown keyword '?tasks' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)");
	expect_error("schema L3:0=f\n",
		     "line 1: 'schema' outside a group: open one with 'group NAME' first");
	expect_error("# c\ncpus 1\n",
		     "line 2: 'cpus' outside a group: open one with 'group NAME' first");
	expect_error("tasks 1\n",
		     "line 1: 'tasks' outside a group: open one with 'group NAME' first");
	expect_error("group a\n schema\n",
		     "line 2: 'schema' needs the schema text, e.g. 'schema L3:0=ff'");
	expect_error("group a\n schema # nothing\n",
		     "line 2: 'schema' needs the schema text, e.g. 'schema L3:0=ff'");
}

static void test_group_errors(void **state)
{
	char text[128], msg[256];

	expect_error("group\n", "line 1: 'group' needs a name, e.g. 'group p1'");
	expect_error("group a b\n", "line 1: 'group' takes one name, got 'a b'");
	expect_error("group a/b\n", "line 1: invalid group name 'a/b': use 1 to 63 of "
		     "[A-Za-z0-9_.-], not starting with '.'");
	expect_error("group .x\n", "line 1: invalid group name '.x': use 1 to 63 of "
		     "[A-Za-z0-9_.-], not starting with '.'");
	expect_error("group \xc3\xa9t\xc3\xa9\n", "line 1: invalid group name '?" "?t?" "?': use 1 to 63 "
		     "of [A-Za-z0-9_.-], not starting with '.'");
	expect_error("group a\ngroup b\n  group a\n", "line 3: group a is already defined at line 1");
	expect_error("group default\ngroup default\n",
		     "line 2: group default is already defined at line 1");

	/* 63 characters are fine, 64 are not */
	memset(text, 'n', sizeof(text));
	memcpy(text, "group ", 6);
	text[6 + 63] = '\0';
	rdt_config_free(parse_ok(text));
	text[6 + 63] = 'n';
	text[6 + 64] = '\0';
	snprintf(msg, sizeof(msg), "line 1: group name '%.40s...' is longer than 63 characters",
		 text + 6);
	expect_error(text, msg);
}

/* `cgroup PATH` yields, `cgroup-enforce PATH` enforces; a path keeps its blanks. */
static void test_cgroup_policy(void **state)
{
	struct rdt_config *c = parse_ok("group p1\n"
					"\tcgroup system.slice/a.service\n"
					"\tcgroup-enforce  system.slice/b c.service  # a blank in it\n"
					"\tcgroup enforce\n");
	struct rdt_config_group *g = &c->groups[0];

	(void)state;
	assert_int_equal(g->ncgroups, 3);
	assert_string_equal(g->cgroups[0], "system.slice/a.service");
	assert_false(g->cgroup_enforce[0]);
	assert_string_equal(g->cgroups[1], "system.slice/b c.service");
	assert_true(g->cgroup_enforce[1]);
	assert_int_equal(g->cgroup_lines[1], 3);
	assert_string_equal(g->cgroups[2], "enforce");	/* a cgroup named so, yielding */
	assert_false(g->cgroup_enforce[2]);
	rdt_config_free(c);
	expect_error("group p1\n\tcgroup-enforce\n",
		     "line 2: 'cgroup-enforce' takes a cgroup path, e.g. "
		     "'cgroup-enforce system.slice/myservice.service'");
	expect_error("group default\n\tcgroup-enforce x\n",
		     "line 2: the default group takes no 'cgroup-enforce' line: the cgroups no "
		     "other group holds are its already");
	expect_error("group p1\n\tcgroup x\ngroup p2\n\tcgroup-enforce x\n",
		     "line 4: cgroup x is already in group p1 (line 2)");
	expect_error("\tcgroup-enforce x\n",
		     "line 1: 'cgroup-enforce' outside a group: open one with 'group NAME' first");
}

static void test_cpus_errors(void **state)
{
	expect_error("group default\n cpus 1\n", "line 2: the default group takes no 'cpus' "
		     "line: its CPUs are those no other group holds");
	expect_error("group a\n cpus 3-1\n", "line 2: CPU list '3-1': range is reversed");
	expect_error("group a\n cpus 1,,2\n", "line 2: CPU list '1,,2': empty entry");
	expect_error("group a\n cpus 5000\n",
		     "line 2: CPU list '5000': CPU numbers must be below 4096");
	expect_error("group a\n cpus 0-3\ngroup b\n cpus 4,3\n",
		     "line 4: CPU 3 is already in group a (line 2)");
	expect_error("group a\n cpus 0\n cpus 7\ngroup b\n cpus 4-8\n",
		     "line 5: CPU 7 is already in group a (line 3)");
}

static void test_tasks_errors(void **state)
{
	expect_error("group a\n tasks 1 abc\n", "line 2: task id 'abc' is not a decimal number");
	expect_error("group a\n tasks 12a\n", "line 2: task id '12a' is not a decimal number");
	expect_error("group a\n tasks -1\n", "line 2: task id '-1' is not a decimal number");
	expect_error("group a\n tasks +1\n", "line 2: task id '+1' is not a decimal number");
	expect_error("group a\n tasks 1,2\n", "line 2: task id '1,2' is not a decimal number");
	expect_error("group a\n tasks 0\n", "line 2: task id '0' is out of range (1 to 2147483647)");
	expect_error("group a\n tasks 2147483648\n",
		     "line 2: task id '2147483648' is out of range (1 to 2147483647)");
	expect_error("group a\n tasks 99999999999999999999999\n",
		     "line 2: task id '99999999999999999999999' is out of range (1 to 2147483647)");
	expect_error("group default\n tasks 5 6\ngroup b\n\n tasks 7 6\n",
		     "line 5: task 6 is already in group default (line 2)");
	/* the line named is the one that listed the task, not the first tasks line */
	expect_error("group a\n tasks 1\n tasks 2\ngroup b\n tasks 2\n",
		     "line 5: task 2 is already in group a (line 3)");
}

/* Several cpus / tasks lines in a block add up: save wraps long task lists. */
static void test_lines_add_up(void **state)
{
	struct rdt_config *c = parse_ok("group a\n cpus 5,1\n tasks 30 10\n cpus 3,1\n"
					" tasks 20 10\n tasks\n cpus\n");
	struct rdt_config_group *g = &c->groups[0];

	assert_int_equal(g->cpus_line, 2);
	assert_int_equal(g->ncpus, 3);
	assert_int_equal(g->cpus[0], 1);
	assert_int_equal(g->cpus[1], 3);
	assert_int_equal(g->cpus[2], 5);
	assert_int_equal(g->tasks_line, 3);
	assert_int_equal(g->ntasks, 3);
	assert_int_equal(g->tasks[0], 10);
	assert_int_equal(g->tasks[1], 20);
	assert_int_equal(g->tasks[2], 30);
	rdt_config_free(c);
}

static void test_task_limits(void **state)
{
	struct rdt_config *c = parse_ok("group a\n tasks 2147483647 0001\n");

	assert_int_equal(c->groups[0].ntasks, 2);
	assert_int_equal(c->groups[0].tasks[0], 1);
	assert_int_equal(c->groups[0].tasks[1], 2147483647);
	rdt_config_free(c);
}

static void test_first_error_wins(void **state)
{
	expect_error("group a\n tasks 1\nbogus\ngroup a\n",
		     "line 3: unknown keyword 'bogus' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)");
}

static void test_small_error_buffer(void **state)
{
	struct rdt_config *c;
	char err[8];

	memset(err, 'x', sizeof(err));
	assert_int_equal(rdt_config_parse("nonsense\n", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 1:");
	assert_int_equal(rdt_config_parse("nonsense\n", &c, NULL, 0), -EINVAL);
	assert_null(c);
	assert_int_equal(rdt_config_parse(NULL, &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
}

/*
 * The CPU time this process used: what a linear bound is about, and unlike
 * the wall clock not stretched by other work on a loaded machine.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10,000 groups with tasks and CPUs parse in linear time, exactly. */
static void test_large(void **state)
{
	size_t cap = 4 << 20, len = 0;
	char *text = malloc(cap);
	struct rdt_config *c;
	double t0;

	assert_non_null(text);
	for (int i = 0; i < 10000; i++) {
		len += (size_t)snprintf(text + len, cap - len,
					"group g%d\n schema L3:0=%x\n tasks %d %d\n", i,
					1 << (i % 20), 2 * i + 1, 2 * i + 2);
		if (i < 4096)
			len += (size_t)snprintf(text + len, cap - len, " cpus %d\n", i);
	}
	/* and one schema grown to 1 MiB by many lines */
	len += (size_t)snprintf(text + len, cap - len, "group big\n");
	while (len < (3u << 20))
		len += (size_t)snprintf(text + len, cap - len, " schema L3:0=ff\n");
	t0 = now();
	c = parse_ok(text);
	assert_true(now() - t0 < 3.0);
	assert_int_equal(c->ngroups, 10001);
	for (unsigned int i = 0; i < 10000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "g%u", i);
		assert_string_equal(c->groups[i].name, name);
		assert_int_equal(c->groups[i].ntasks, 2);
		assert_int_equal(c->groups[i].tasks[0], 2 * i + 1);
		assert_int_equal(c->groups[i].ncpus, i < 4096 ? 1 : 0);
		assert_int_equal(c->groups[i].cpus_set, i < 4096);
	}
	assert_int_equal(c->groups[4095].cpus[0], 4095);
	assert_true(strlen(c->groups[10000].schema) > (1u << 20));
	assert_int_equal(c->groups[10000].schema_line, 4096 * 4 + 5904 * 3 + 2);
	rdt_config_free(c);

	/* the same groups with a duplicate at the end: found without a quadratic scan */
	len = (size_t)(strstr(text, "group big") - text);
	snprintf(text + len, cap - len, "group g5000\n");
	t0 = now();
	expect_error(text, "line 34097: group g5000 is already defined at line 19097");
	assert_true(now() - t0 < 3.0);
	free(text);
}

static void test_name_valid(void **state)
{
	char name[80];

	assert_true(rdt_name_valid("a"));
	assert_true(rdt_name_valid("default"));
	assert_true(rdt_name_valid("p1.rt-x_Y"));
	assert_true(rdt_name_valid("-x"));
	assert_true(rdt_name_valid("9"));
	assert_false(rdt_name_valid(NULL));
	assert_false(rdt_name_valid(""));
	assert_false(rdt_name_valid(".x"));
	assert_false(rdt_name_valid("."));
	assert_false(rdt_name_valid("a/b"));
	assert_false(rdt_name_valid("a b"));
	assert_false(rdt_name_valid("a\n"));
	assert_false(rdt_name_valid("\xc3\xa9"));
	assert_false(rdt_name_valid("a:b"));
	memset(name, 'x', sizeof(name));
	name[63] = '\0';
	assert_true(rdt_name_valid(name));
	name[63] = 'x';
	name[64] = '\0';
	assert_false(rdt_name_valid(name));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_empty_and_comments),
		cmocka_unit_test(test_layout_is_free),
		cmocka_unit_test(test_empty_lists_mean_none),
		cmocka_unit_test(test_cdp),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_end_line),
		cmocka_unit_test(test_keyword_errors),
		cmocka_unit_test(test_group_errors),
		cmocka_unit_test(test_cgroup_policy),
		cmocka_unit_test(test_cpus_errors),
		cmocka_unit_test(test_tasks_errors),
		cmocka_unit_test(test_lines_add_up),
		cmocka_unit_test(test_task_limits),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_small_error_buffer),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_name_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
