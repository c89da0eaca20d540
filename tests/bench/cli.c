// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_cli: wall time of whole rdtctl processes, as a deployment script
 * sees them. Median of `rdtctl schema set` and `rdtctl task bind` against a
 * persistent sim state holding 10 and 10,000 groups, next to
 * `rdtctl --version` (the cost of starting the process) measured in the same
 * rounds; and at 10,000 groups every read-only command against `schema set`
 * on the same state (issue 14: each within 3x). Prints figures and ratios;
 * it asserts nothing (a benchmark, not a test).
 *
 * Usage: bench_cli [RDTCTL] [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#ifndef RDTCTL_PATH
#define RDTCTL_PATH "rdtctl"
#endif

#define MACHINE "topology=package:2 l3:1 core:2 pu:1;tasks=virtual"

static const char *rdtctl = RDTCTL_PATH;
static char state_dir[] = "/tmp/rdtctl-bench.XXXXXX";

/* Run rdtctl with the common options + args; stdout to /dev/null. Returns seconds. */
static double run(char *const *args, const char *stdin_file)
{
	char *common[] = { "--backend", "sim", "--state-dir", state_dir, "--machine", MACHINE,
			   "-q", NULL };

	return bench_rdtctl(rdtctl, strcmp(args[0], "--version") ? common : NULL, args,
			    stdin_file);
}

/* A configuration with n groups g0..g(n-1) sharing a few masks. */
static void write_config(const char *path, int n)
{
	static const char *masks[] = { "fffff", "ffc00", "003ff", "fff00", "000ff" };
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "# bench_cli: %d groups\n", n);
	for (int i = 0; i < n; i++)
		fprintf(f, "group g%d\n\tschema L3:0=%s;1=fffff\n\ttasks %d\n", i, masks[i % 5],
			100000 + i);
	fclose(f);
}

/* The commands that only look, measured at 10,000 groups beside schema set. */
static const char *const looks[][4] = {
	{ "group", "show", NULL }, { "-j", "group", "show", NULL }, { "group", "list", NULL },
	{ "schema", "show", NULL }, { "task", "show", NULL }, { "cpu", "show", NULL },
	{ "cpu", "assoc", NULL }, { "closids", "L3", NULL }, { "map", NULL },
	{ "-j", "map", NULL }, { "info", NULL }, { "save", NULL },
};
#define NLOOKS (sizeof(looks) / sizeof(looks[0]))

struct figures {
	int groups;
	double setup, version, schema, bind;
	double look[NLOOKS];	/* 10,000 groups only */
};

static struct figures measure(int groups, int rounds)
{
	char conf[64], tid[16];
	double *v = calloc((size_t)rounds, sizeof(double));
	double *s = calloc((size_t)rounds, sizeof(double));
	double *b = calloc((size_t)rounds, sizeof(double));
	struct figures fig = { .groups = groups };
	char *reset[] = { "reset", NULL };
	char *apply[] = { "apply", "-", NULL };

	if (!v || !s || !b) {
		fprintf(stderr, "bench_cli: out of memory\n");
		exit(1);
	}
	snprintf(conf, sizeof(conf), "%s.conf", state_dir);
	write_config(conf, groups);
	run(reset, NULL);
	fig.setup = run(apply, conf);
	unlink(conf);
	/* one virtual task, moved between two groups */
	snprintf(tid, sizeof(tid), "%d", 7777);
	/* interleaved rounds, so that drift of the machine hits all three alike */
	for (int i = 0; i < rounds; i++) {
		char *version[] = { "--version", NULL };
		/* alternate masks and groups: every call is a real change */
		char *schema[] = { "schema", "set", "g1", i % 2 ? "L3:0=fc000" : "L3:0=3f000",
				   NULL };
		char *bind[] = { "task", "bind", i % 2 ? "g2" : "g3", tid, NULL };

		v[i] = run(version, NULL);
		s[i] = run(schema, NULL);
		b[i] = run(bind, NULL);
	}
	fig.version = bench_median(v, rounds);
	fig.schema = bench_median(s, rounds);
	fig.bind = bench_median(b, rounds);
	for (size_t k = 0; groups >= 10000 && k < NLOOKS; k++) {
		/* interleaved with schema set again: the ratio is of one run's machine */
		double *l = calloc((size_t)rounds, sizeof(double));

		for (int i = 0; l && i < rounds; i++) {
			char *schema[] = { "schema", "set", "g1", i % 2 ? "L3:0=fc000" : "L3:0=3f000",
					   NULL };

			s[i] = run(schema, NULL);
			l[i] = run((char *const *)looks[k], NULL);
		}
		fig.look[k] = l ? bench_median(l, rounds) / bench_median(s, rounds) : 0;
		free(l);
	}
	free(v);
	free(s);
	free(b);
	return fig;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	struct figures f[2];
	char *reset[] = { "reset", NULL };

	if (argc > 1)
		rdtctl = argv[1];
	if (rounds < 1)
		rounds = 1;
	if (!mkdtemp(state_dir)) {
		perror("mkdtemp");
		return 1;
	}
	f[0] = measure(10, rounds);
	f[1] = measure(10000, rounds);
	run(reset, NULL);

	printf("rdtctl benchmark: %s\n", rdtctl);
	printf("sim state in %s, machine \"%s\"\n", state_dir, MACHINE);
	printf("median wall time of %d runs per figure, whole processes, with -q\n\n", rounds);
	printf("%-8s %12s %12s %12s %10s %10s %14s\n", "groups", "--version", "schema set",
	       "task bind", "set/ver", "bind/ver", "apply (setup)");
	for (int i = 0; i < 2; i++)
		printf("%-8d %9.2f ms %9.2f ms %9.2f ms %9.2fx %9.2fx %11.1f ms\n", f[i].groups,
		       f[i].version * 1e3, f[i].schema * 1e3, f[i].bind * 1e3,
		       f[i].schema / f[i].version, f[i].bind / f[i].version, f[i].setup * 1e3);
	printf("\ntargets: at 10 groups within 3x of --version: schema set %s, task bind %s\n",
	       f[0].schema <= 3 * f[0].version ? "met" : "MISSED",
	       f[0].bind <= 3 * f[0].version ? "met" : "MISSED");
	printf("         at 10,000 groups <= 20 ms: schema set %s, task bind %s\n",
	       f[1].schema <= 0.020 ? "met" : "MISSED", f[1].bind <= 0.020 ? "met" : "MISSED");
	printf("\nat 10,000 groups, each command against schema set on the same state "
	       "(medians, interleaved):\n");
	for (size_t k = 0; k < NLOOKS; k++) {
		char name[48] = "";

		for (int i = 0; looks[k][i]; i++)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s%s",
				 i ? " " : "", looks[k][i]);
		printf("  %-16s %6.2fx  %s\n", name, f[1].look[k],
		       f[1].look[k] <= 3.0 ? "within 3x" : "MISSED 3x");
	}

	/* the state directory is ours: remove it and what the library put there */
	if (bench_remove_tree(state_dir))
		fprintf(stderr, "bench_cli: could not remove %s\n", state_dir);
	return 0;
}
