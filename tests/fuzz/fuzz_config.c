// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_config: libFuzzer target over rdt_config_parse (lib/config.c). Any
 * input must either fail with a "line N: " message or yield a configuration
 * that keeps every promise of lib/config.h: valid unique names, ascending
 * duplicate-free CPU and task lists, no CPU or task in two groups, no CPUs
 * in the default group, lines inside the text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "machine.h"

#define CHECK(cond)				\
	do {					\
		if (!(cond))			\
			__builtin_trap();	\
	} while (0)

static unsigned int count_lines(const char *s)
{
	unsigned int n = 1;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void check_group(const struct rdt_config_group *g, unsigned int lines,
			unsigned char *cpu_seen)
{
	CHECK(rdt_name_valid(g->name));
	CHECK(g->line >= 1 && g->line <= lines);
	CHECK(!g->schema == !g->schema_line);
	if (g->schema)
		CHECK(g->schema[0] && g->schema_line > g->line && g->schema_line <= lines);
	CHECK(g->cpus_set || (g->ncpus == 0 && !g->cpus));
	CHECK(!g->cpus_set || strcmp(g->name, "default") != 0);
	for (unsigned int i = 0; i < g->ncpus; i++) {
		CHECK(g->cpus[i] >= 0 && g->cpus[i] < RDT_MAX_CPUS);
		CHECK(i == 0 || g->cpus[i] > g->cpus[i - 1]);
		CHECK(!cpu_seen[g->cpus[i]]);
		cpu_seen[g->cpus[i]] = 1;
	}
	CHECK(g->tasks_set || (g->ntasks == 0 && !g->tasks));
	for (unsigned int i = 0; i < g->ntasks; i++) {
		CHECK(g->tasks[i] > 0);
		CHECK(i == 0 || g->tasks[i] > g->tasks[i - 1]);
	}
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void check_config(const struct rdt_config *c, const char *text)
{
	static unsigned char cpu_seen[RDT_MAX_CPUS];
	unsigned int lines = count_lines(text);
	size_t ntasks = 0, k = 0;
	pid_t *all;

	memset(cpu_seen, 0, sizeof(cpu_seen));
	for (int r = 0; r < RDT_NRES; r++) {
		CHECK(c->cdp[r] >= -1 && c->cdp[r] <= 1);
		CHECK((c->cdp[r] < 0) == (c->cdp_line[r] == 0));
	}
	for (unsigned int i = 0; i < c->ngroups; i++) {
		check_group(&c->groups[i], lines, cpu_seen);
		ntasks += c->groups[i].ntasks;
		/* names are unique; the inputs are small, a quadratic check is fine here */
		for (unsigned int j = 0; j < i; j++)
			CHECK(strcmp(c->groups[i].name, c->groups[j].name) != 0);
		CHECK(i == 0 || c->groups[i].line > c->groups[i - 1].line);
	}
	all = malloc((ntasks + 1) * sizeof(*all));
	CHECK(all);
	for (unsigned int i = 0; i < c->ngroups; i++) {
		if (!c->groups[i].ntasks)
			continue;	/* tasks may be NULL then */
		memcpy(all + k, c->groups[i].tasks, c->groups[i].ntasks * sizeof(*all));
		k += c->groups[i].ntasks;
	}
	qsort(all, ntasks, sizeof(*all), cmp_pid);
	for (size_t i = 1; i < ntasks; i++)
		CHECK(all[i] != all[i - 1]);
	free(all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdt_config *c = NULL;
	char err[256];
	char *text;
	int ret;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';	/* the API takes C strings: cut at the first NUL */

	ret = rdt_config_parse(text, &c, err, sizeof(err));
	if (ret == 0) {
		CHECK(c);
		check_config(c, text);
		rdt_config_free(c);
	} else {
		/* -E2BIG: a cpus line past the CPU list's bound */
		CHECK(ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM);
		CHECK(!c);
		CHECK(strncmp(err, "line ", 5) == 0 || ret == -ENOMEM);
	}
	free(text);
	return 0;
}
