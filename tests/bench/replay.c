// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_replay: the cache model's speed (issue 24). Two binary traces of
 * ACCESSES each (a loop over 12 MiB and a random walk over 64 MiB) replayed
 * together through a 20-way, 16 MiB L3 (rdtalloc_sim_replay, in process),
 * against a loop that only reads the same two files through the same
 * reader; and one miss curve (rdtalloc_trace_curve) of one of them.
 * Prints accesses per second and the ratios (target: at least 20 million
 * accesses per second for the 2-way interleave); then the same for working
 * sets that fit their ways (mostly hits); then the time to profile and to
 * plan 8 groups on the 20-way L3. Asserts nothing.
 *
 * Usage: bench_replay [MILLIONS_OF_ACCESSES_PER_TRACE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include "cache/cache.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put64(FILE *f, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++, v >>= 8)
		b[i] = (unsigned char)v;
	fwrite(b, 1, 8, f);
}

/* n accesses: a loop over lines lines, or a random walk over them */
static void write_trace(const char *path, uint64_t n, int random_walk, uint64_t lines)
{
	FILE *f = fopen(path, "w");
	uint64_t x = 88172645463325252ull;

	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(RDT_TRACE_MAGIC, 1, 8, f);
	put64(f, n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t line;

		if (random_walk) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			line = (1ull << 30) + x % lines;
		} else {
			line = i % lines;
		}
		put64(f, line << 2);
	}
	fclose(f);
}

/*
 * Profile and plan for 8 groups on the 20-way L3: each trace's curve
 * (rdtalloc_trace_curve), the plan from the curves (rdtalloc_plan), and
 * the plan from the traces, every candidate replayed (rdtalloc_plan_traces).
 */
static void plan_eight(rdtalloc_t *r, const char *dir, uint64_t n)
{
	static const uint64_t lines[8] = { 1u << 12, 1u << 14, 3u << 14, 1u << 16, 1u << 13,
					   5u << 14, 1u << 20, 1u << 15 };
	struct rdtalloc_plan_report rep = { .sz = sizeof(rep) };
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[8];
	struct rdtalloc_curve c[8];
	const double *curves[8];
	const char *paths[8];
	double mr[8][64], t0, tc, tp, tt;
	char path[8][160];
	uint64_t acc[8];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/g%d.bin", dir, i);
		write_trace(path[i], n, i & 1, lines[i]);
		paths[i] = path[i];
		out[i].sz = sizeof(out[i]);
		c[i].sz = sizeof(c[i]);
	}
	t0 = now();
	for (i = 0; i < 8; i++) {
		if (rdtalloc_trace_curve(r, -1, paths[i], 0, &c[i])) {
			fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
			exit(1);
		}
		acc[i] = c[i].accesses;
		for (unsigned int k = 0; k < c[i].geo.ways; k++)
			mr[i][k] = (double)c[i].misses[k] / (double)acc[i];
		curves[i] = mr[i];
	}
	tc = now() - t0;
	t0 = now();
	if (rdtalloc_plan(r, -1, 8, curves, c[0].geo.ways, acc, NULL, &geo, out)) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
		exit(1);
	}
	tp = now() - t0;
	t0 = now();
	if (rdtalloc_plan_traces(r, -1, 8, paths, 0, NULL, &geo, out, &rep)) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
		exit(1);
	}
	tt = now() - t0;
	printf("8 groups on %u ways, traces of %llu accesses (loops and random walks, 256 KiB to "
	       "64 MiB):\n", geo.ways, (unsigned long long)n);
	printf("  profile (8 curves, one pass each): %.3f s\n", tc);
	printf("  plan from the curves:              %.4f s\n", tp);
	printf("  plan from the traces (%u plans replayed): %.3f s; misses %llu, apart %llu, "
	       "one pool %llu\n", rep.plans, tt, (unsigned long long)rep.misses,
	       (unsigned long long)rep.misses_apart, (unsigned long long)rep.misses_shared);
	for (i = 0; i < 8; i++)
		unlink(path[i]);
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 8) * 1000000ull, line;
	char a[] = "/tmp/rdt-bench-replay-XXXXXX", pa[128], pb[128], err[256];
	const char *groups[] = { "g1", "g2" }, *traces[] = { pa, pb };
	struct rdtalloc_replay_group out[2] = { { .sz = sizeof(out[0]) }, { .sz = sizeof(out[0]) } };
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_curve c = { .sz = sizeof(c) };
	enum rdt_acc_kind k;
	struct rdt_trace *t;
	double t0, parse, rep, curve;
	uint64_t sum = 0;
	rdtalloc_t *r;

	if (!mkdtemp(a)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(pa, sizeof(pa), "%s/loop.bin", a);
	snprintf(pb, sizeof(pb), "%s/random.bin", a);
	write_trace(pa, n, 0, 12ull << 14);	/* 12 MiB */
	write_trace(pb, n, 1, 64ull << 14);	/* 64 MiB */
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL,
		      .machine = "topology=package:1 l3:1(size=15MiB) core:2 pu:1;l3.cbm_len=20;"
				 "tasks=virtual");
	if (rdtalloc_open(&r, &o) || rdtalloc_group_create(r, "g1") ||
	    rdtalloc_group_create(r, "g2") || rdtalloc_set_schema(r, "g1", "L3:0=003ff") ||
	    rdtalloc_set_schema(r, "g2", "L3:0=ffc00")) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(NULL));
		return 1;
	}
	t0 = now();
	for (int i = 0; i < 2; i++) {
		if (rdt_trace_open(traces[i], false, &t, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		while (rdt_trace_next(t, &line, &k, err, sizeof(err)) == 1)
			sum += line;
		rdt_trace_close(t);
	}
	parse = now() - t0;
	t0 = now();
	if (rdtalloc_sim_replay(r, -1, 2, groups, traces, 0, &geo, out)) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
		return 1;
	}
	rep = now() - t0;
	t0 = now();
	if (rdtalloc_trace_curve(r, -1, pb, 0, &c)) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
		return 1;
	}
	curve = now() - t0;
	printf("L3 of %u sets x %u ways; two traces of %llu accesses (a 12 MiB loop in 10 ways, "
	       "a 64 MiB random walk in 10)\n", geo.sets, geo.ways, (unsigned long long)n);
	printf("  reading only:      %6.1f M accesses/s\n", 2 * n / parse / 1e6);
	printf("  replay, 2-way interleave: %6.1f M accesses/s (target >= 20), %.2fx the "
	       "reading alone\n", 2 * n / rep / 1e6, rep / parse);
	printf("  miss curve, one pass over one trace: %6.1f M accesses/s\n", n / curve / 1e6);
	printf("  (miss ratios: loop %.4f, random %.4f; checksum %llu)\n",
	       (double)out[0].misses / out[0].accesses, (double)out[1].misses / out[1].accesses,
	       (unsigned long long)(sum & 0xff));
	/* the same with working sets that fit their ways: mostly hits */
	write_trace(pa, n, 0, 4ull << 14);	/* 4 MiB in 7.5 */
	write_trace(pb, n, 1, 2ull << 14);	/* 2 MiB */
	t0 = now();
	if (rdtalloc_sim_replay(r, -1, 2, groups, traces, 0, &geo, out)) {
		fprintf(stderr, "bench_replay: %s\n", rdtalloc_errmsg(r));
		return 1;
	}
	rep = now() - t0;
	printf("  replay, working sets that fit (miss ratios %.4f, %.4f): %6.1f M accesses/s\n",
	       (double)out[0].misses / out[0].accesses, (double)out[1].misses / out[1].accesses,
	       2 * n / rep / 1e6);
	plan_eight(r, a, n / 8);
	rdtalloc_close(r);
	unlink(pa);
	unlink(pb);
	rmdir(a);
	return 0;
}
