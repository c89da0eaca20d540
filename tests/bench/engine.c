// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_engine: cost of the library's hot calls (issue 3 §6). For an
 * ephemeral context on a 2-socket simulated machine with virtual tasks it
 * prints the median ns of rdtalloc_set_schema, rdtalloc_bind_task,
 * rdtalloc_bind_cpu and rdtalloc_effective_closid at 10 and 10,000 groups
 * and at 0 and 100,000 bound tasks, the peak RSS of each case, and the
 * ratios against the targets. A benchmark, not a test: it prints figures
 * and asserts nothing (with -c it exits 1 when a target is missed).
 *
 * Each case runs in its own forked process, so that its peak RSS is its
 * own. Each figure is the median over RUNS batches of the per-call time
 * of a batch of BATCH calls (CLOCK_MONOTONIC).
 *
 * Cases at 10,000 groups with monitoring off and with 1,024 RMIDs beside the
 * machine's 128 (issue 33: monitoring made every write call walk and sort
 * the groups waiting for an RMID).
 *
 * A fifth case is the one exclusive groups made slow (issue 19): 10,000
 * groups over 7 shareable masks and one exclusive group, the schema changes
 * never touching the exclusive one; set_schema there must cost what it
 * costs without exclusive groups (target <= 2 us).
 *
 * Usage: bench_engine [-q] [-c]    -q: fewer runs   -c: exit 1 on a missed target
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#define MACHINE "topology=package:2 l3:1 core:8 pu:2;l3.closids=16;tasks=virtual"

#define TASK_BASE 100000	/* bound tasks are TASK_BASE .. TASK_BASE + n - 1 */
#define PROBE_BASE 900000	/* tids the bind_task figure moves around */
#define NPROBES 64

/*
 * With 16 CLOSIDs per domain, 10,000 groups must share masks: every group
 * gets one of these, per domain (4 distinct masks + default's all-ones).
 */
static const char *const pool[] = {
	"L3:0=f;1=f0",
	"L3:0=f0;1=f00",
	"L3:0=f00;1=f000",
	"L3:0=f000;1=f",
};
#define NPOOL (sizeof(pool) / sizeof(pool[0]))

/* The exclusive case: default and 7 masks in ways 0-15, one group alone in 16-19. */
#define EXCL_DEFAULT "L3:0=ffff;1=ffff"
#define EXCL_GROUP "L3:0=f0000;1=f0000"
static const char *const pool_x[] = {
	"L3:0=f;1=f0", "L3:0=f0;1=f00", "L3:0=f00;1=f000", "L3:0=f000;1=f",
	"L3:0=ff;1=ff00", "L3:0=ff00;1=ff", "L3:0=fff;1=fff0",
};
#define NPOOL_X (sizeof(pool_x) / sizeof(pool_x[0]))

enum op { OP_SCHEMA, OP_TASK, OP_CPU, OP_EFF, OP_EFF_ALL, NOPS };

static const char *const op_name[NOPS] = {
	"set_schema", "bind_task", "bind_cpu", "effective_closid", "effective (cold)",
};

struct result {
	int ok;
	double ns[NOPS];
	long rss_kib;
	double build_s;		/* time to create the groups and bind the tasks */
	char err[200];
};

struct bench_case {
	int groups;
	int tasks;
	int excl;		/* one exclusive group, 7 shareable masks */
	const char *mon;	/* appended to MACHINE: RMIDs (NULL: the machine's 128) */
};

/*
 * Cases 5-8 (issue 33): 10,000 groups with monitoring off and with 1,024
 * RMIDs, 0 and 100,000 tasks; cases 2/3 are the machine's 128 RMIDs.
 */
static const struct bench_case cases[] = {
	{ 10, 0, 0, NULL }, { 10, 100000, 0, NULL }, { 10000, 0, 0, NULL },
	{ 10000, 100000, 0, NULL }, { 10000, 0, 1, NULL },
	{ 10000, 0, 0, ";mon.rmids=0" }, { 10000, 100000, 0, ";mon.rmids=0" },
	{ 10000, 0, 0, ";mon.rmids=1024" }, { 10000, 100000, 0, ";mon.rmids=1024" },
};

static const char *pool_mask(const struct bench_case *c, uint32_t k)
{
	return c->excl ? pool_x[k % NPOOL_X] : pool[k % NPOOL];
}
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int runs = 31;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A cheap deterministic sequence, so that every run does the same work. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void group_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "g%d", i);
}

static int fail(struct result *res, rdtalloc_t *r, const char *what, int rc)
{
	snprintf(res->err, sizeof(res->err), "%s: %d (%s)", what, rc,
		 r ? rdtalloc_errmsg(r) : rdtalloc_errmsg(NULL));
	return rc;
}

static int build(rdtalloc_t *r, const struct bench_case *c, struct result *res)
{
	char name[32];
	int i, rc;

	if (c->excl) {
		rc = rdtalloc_set_schema(r, "default", EXCL_DEFAULT);
		if (!rc)
			rc = rdtalloc_group_create(r, "x");
		if (!rc)
			rc = rdtalloc_set_schema(r, "x", EXCL_GROUP);
		if (!rc)
			rc = rdtalloc_group_set_mode(r, "x", RDTALLOC_MODE_EXCLUSIVE);
		if (rc)
			return fail(res, r, "the exclusive group", rc);
	}
	for (i = 0; i < c->groups; i++) {
		group_name(name, sizeof(name), i);
		rc = rdtalloc_group_create(r, name);
		if (!rc)
			rc = rdtalloc_set_schema(r, name, pool_mask(c, (uint32_t)i));
		if (rc)
			return fail(res, r, name, rc);
	}
	for (i = 0; i < c->tasks; i++) {
		group_name(name, sizeof(name), i % c->groups);
		rc = rdtalloc_bind_task(r, name, TASK_BASE + i);
		if (rc)
			return fail(res, r, "bind_task", rc);
	}
	return 0;
}

/*
 * One batch of calls of op; returns the mean ns per call, or a negative
 * errno. Every call does real work: set_schema moves a group to another
 * mask of the pool, bind_task / bind_cpu alternately bind to a group and
 * back to default (so the number of bound tasks stays put).
 * effective_closid looks up the NPROBES probe tasks, bound to groups in
 * every case: the same work whatever else is bound, so that growth with the
 * number of bound tasks shows. "effective (cold)" looks up any of the bound
 * tasks at random (an unbound one when there are none): with 100,000 tasks
 * that is mostly cache misses, shown for information.
 */
static double batch(rdtalloc_t *r, const struct bench_case *c, enum op op, int n, uint32_t *seed,
		    char (*names)[32], int ncpus)
{
	uint64_t t0, t1;
	unsigned int closid;
	int i, rc = 0;

	t0 = now_ns();
	for (i = 0; i < n && !rc; i++) {
		uint32_t x = next_rand(seed);
		int g = x % c->groups;

		switch (op) {
		case OP_SCHEMA:
			rc = rdtalloc_set_schema(r, names[g], pool_mask(c, x >> 16));
			break;
		case OP_TASK:
			rc = rdtalloc_bind_task(r, i & 1 ? NULL : names[g],
						PROBE_BASE + (i >> 1) % NPROBES);
			break;
		case OP_CPU:
			rc = rdtalloc_bind_cpu(r, i & 1 ? NULL : names[g], (i >> 1) % ncpus);
			break;
		case OP_EFF:
			rc = rdtalloc_effective_closid(r, (x >> 8) % ncpus,
						       PROBE_BASE + (int)(x % NPROBES), &closid);
			break;
		default:
			rc = rdtalloc_effective_closid(r, (x >> 8) % ncpus,
						       c->tasks ? TASK_BASE + (int)(x % c->tasks)
								: PROBE_BASE + NPROBES, &closid);
			break;
		}
	}
	t1 = now_ns();
	if (rc)
		return rc;
	return (double)(t1 - t0) / n;
}

static int measure(rdtalloc_t *r, const struct bench_case *c, struct result *res)
{
	/* Calls per batch: the cheap lookup needs more to rise above the clock. */
	static const int per_batch[NOPS] = { 200, 500, 500, 20000, 20000 };
	double *v = calloc(runs, sizeof(*v));
	char (*names)[32] = calloc(c->groups, sizeof(*names));
	int ncpus = rdtalloc_cpu_count(r);
	uint32_t seed = 0x9e3779b9;
	int op, k, i;

	if (!v || !names)
		return fail(res, NULL, "calloc", -ENOMEM);
	for (i = 0; i < c->groups; i++)
		group_name(names[i], sizeof(names[i]), i);
	for (op = 0; op < NOPS; op++) {
		if (c->excl && op != OP_SCHEMA)
			continue;	/* the exclusive case is about set_schema */
		if (op == OP_EFF) {
			/* The probe tasks, left in default by OP_TASK, into groups. */
			for (i = 0; i < NPROBES; i++)
				if (rdtalloc_bind_task(r, names[i % c->groups], PROBE_BASE + i))
					return fail(res, r, "bind probe", -EIO);
		}
		/* One batch to warm caches, not counted. */
		if (batch(r, c, op, per_batch[op], &seed, names, ncpus) < 0)
			return fail(res, r, op_name[op], -EIO);
		for (k = 0; k < runs; k++) {
			v[k] = batch(r, c, op, per_batch[op], &seed, names, ncpus);
			if (v[k] < 0)
				return fail(res, r, op_name[op], (int)v[k]);
		}
		qsort(v, runs, sizeof(*v), cmp_double);
		res->ns[op] = v[runs / 2];
	}
	free(names);
	free(v);
	return 0;
}

/* In a child process: build the case, measure it, report through fd. */
static void run_case(const struct bench_case *c, int fd)
{
	char machine[256];
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .machine = machine,
		      .flags = RDTALLOC_F_EPHEMERAL);
	struct result res = { 0 };
	struct rusage ru;
	rdtalloc_t *r = NULL;
	uint64_t t0 = now_ns();
	int rc;

	snprintf(machine, sizeof(machine), "%s%s", MACHINE, c->mon ? c->mon : "");
	rc = rdtalloc_open(&r, &o);
	if (rc)
		fail(&res, NULL, "rdtalloc_open", rc);
	else if (!build(r, c, &res)) {
		res.build_s = (now_ns() - t0) / 1e9;
		res.ok = !measure(r, c, &res);
	}
	getrusage(RUSAGE_SELF, &ru);
	res.rss_kib = ru.ru_maxrss;
	rdtalloc_close(r);
	if (write(fd, &res, sizeof(res)) != sizeof(res))
		_exit(2);
	_exit(0);
}

static int fork_case(const struct bench_case *c, struct result *res)
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(fds[0]);
		run_case(c, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], res, sizeof(*res)) != sizeof(*res))
		res->ok = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return res->ok ? 0 : -1;
}

static int target(const char *what, double got, double limit, const char *unit)
{
	int ok = got <= limit;

	printf("  %-52s %10.2f %-4s (target <= %g)  %s\n", what, got, unit, limit,
	       ok ? "ok" : "MISSED");
	return ok;
}

int main(int argc, char **argv)
{
	struct result res[NCASES];
	int check = 0, missed = 0, opt;
	double worst;
	unsigned int i;
	int op;

	while ((opt = getopt(argc, argv, "qch")) != -1) {
		if (opt == 'q')
			runs = 7;
		else if (opt == 'c')
			check = 1;
		else {
			fprintf(stderr, "usage: %s [-q] [-c]\n", argv[0]);
			return 2;
		}
	}
	printf("librdtalloc %s engine benchmark: median ns per call over %d batches\n",
	       rdtalloc_version_string(), runs);
	printf("machine: %s (ephemeral sim)\n\n", MACHINE);
	for (i = 0; i < NCASES; i++) {
		if (fork_case(&cases[i], &res[i])) {
			fprintf(stderr, "bench_engine: %d groups, %d tasks: %s\n", cases[i].groups,
				cases[i].tasks, res[i].err[0] ? res[i].err : "case failed");
			return 1;
		}
	}
	printf("%-18s", "groups / tasks");
	for (i = 0; i < NCASES; i++)
		printf("  %6d/%-6d%s", cases[i].groups, cases[i].tasks,
		       cases[i].excl ? "x" : !cases[i].mon ? " " :
		       strstr(cases[i].mon, "=0") ? "o" : "r");
	printf("\n");
	for (op = 0; op < NOPS; op++) {
		printf("%-18s", op_name[op]);
		for (i = 0; i < NCASES; i++)
			printf("  %11.1f ns", res[i].ns[op]);
		printf("\n");
	}
	printf("%-18s", "peak RSS");
	for (i = 0; i < NCASES; i++)
		printf("  %10.1f MiB", res[i].rss_kib / 1024.0);
	printf("\n%-18s", "set-up time");
	for (i = 0; i < NCASES; i++)
		printf("  %12.3f s", res[i].build_s);
	printf("\n\ntargets (issue 3 section 6):\n");
	for (op = 0; op < OP_EFF_ALL; op++) {
		char what[96];

		/* Cases 0/1 are 10 groups, 2/3 are 10,000: tasks 0 vs 100,000. */
		snprintf(what, sizeof(what), "%s: 100k tasks / 0 tasks, 10 groups", op_name[op]);
		missed += !target(what, res[1].ns[op] / res[0].ns[op], 1.2, "x");
		snprintf(what, sizeof(what), "%s: 100k tasks / 0 tasks, 10k groups", op_name[op]);
		missed += !target(what, res[3].ns[op] / res[2].ns[op], 1.2, "x");
	}
	worst = res[2].ns[OP_SCHEMA] > res[3].ns[OP_SCHEMA] ? res[2].ns[OP_SCHEMA]
							  : res[3].ns[OP_SCHEMA];
	missed += !target("set_schema at 10,000 groups (worst of 0 / 100k tasks)", worst / 1000,
			  10, "us");
	missed += !target("set_schema at 10,000 groups, one exclusive (x)",
			  res[4].ns[OP_SCHEMA] / 1000, 2, "us");
	printf("  (set_schema, one exclusive / none, 10,000 groups: %.2fx)\n",
	       res[4].ns[OP_SCHEMA] / res[2].ns[OP_SCHEMA]);
	missed += !target("effective_closid at 10,000 groups (worst of 0 / 100k)",
			  res[2].ns[OP_EFF] > res[3].ns[OP_EFF] ? res[2].ns[OP_EFF]
								: res[3].ns[OP_EFF], 200, "ns");
	missed += !target("peak RSS, 10,000 groups + 100,000 tasks", res[3].rss_kib / 1024.0, 64,
			  "MiB");
	printf("  (effective (cold), for information: 100k / 0 tasks %.2fx at 10 groups, "
	       "%.2fx at 10k groups)\n", res[1].ns[OP_EFF_ALL] / res[0].ns[OP_EFF_ALL],
	       res[3].ns[OP_EFF_ALL] / res[2].ns[OP_EFF_ALL]);
	printf("\nat 10,000 groups, worst of 0 / 100,000 tasks (issue 33: target <= 2 us, bar 10):\n");
	for (op = 0; op <= OP_CPU; op++) {
		static const struct { const char *what; int a, b; } mon[] = {
			{ "monitoring, 128 RMIDs", 2, 3 }, { "monitoring off (o)", 5, 6 },
			{ "monitoring, 1,024 RMIDs (r)", 7, 8 },
		};

		for (i = 0; i < sizeof(mon) / sizeof(mon[0]); i++) {
			char what[96];
			double w = res[mon[i].a].ns[op] > res[mon[i].b].ns[op] ? res[mon[i].a].ns[op]
									       : res[mon[i].b].ns[op];

			snprintf(what, sizeof(what), "%s, %s", op_name[op], mon[i].what);
			missed += !target(what, w / 1000, 2, "us");
		}
	}
	printf("\n%d target(s) missed\n", missed);
	return check && missed ? 1 : 0;
}
