// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_curve: miss curves at scale (issue 33). The time of
 * rdtalloc_trace_curve over a binary trace of 100 M accesses (half a loop
 * over 12 MiB, half a random walk over 64 MiB, in runs of 1,000), exact and
 * sampled, on two L3s (Skylake-SP's 11 ways x 49,152 sets and a 20-way
 * 15 MiB one); then, on six traces of a fifth of that length (a loop, a
 * random walk, the mix, a stream that always misses, a hot set with a cold
 * tail, a walk with a stride of two lines), the largest difference of a
 * sampled curve's miss ratio from the exact one at any way count.
 * Targets: 100 M accesses in <= 1 s; error <= 0.01. Prints MISSED for a
 * target missed; asserts nothing.
 *
 * Usage: bench_curve [MILLIONS_OF_ACCESSES]   (default 100)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#define MIB_LINES (1ull << 14)	/* 64-byte lines in a MiB */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum shape { LOOP, RANDOM, MIX, STREAM, HOTCOLD, STRIDE2, NSHAPES };

static const char *const shape_name[NSHAPES] = {
	"loop 12 MiB", "random 64 MiB", "mix (loop / random)", "stream (all miss)",
	"hot 2 MiB 90 % / cold 256 MiB", "stride 2 lines, 32 MiB",
};

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t line_of(enum shape s, uint64_t i, uint64_t *x)
{
	switch (s) {
	case LOOP:
		return i % (12 * MIB_LINES);
	case RANDOM:
		return (1ull << 30) + xorshift(x) % (64 * MIB_LINES);
	case MIX:
		return (i / 1000) % 2 ? (1ull << 30) + xorshift(x) % (64 * MIB_LINES) :
					i % (12 * MIB_LINES);
	case STREAM:
		return i;
	case HOTCOLD:
		return xorshift(x) % 10 ? xorshift(x) % (2 * MIB_LINES) :
					  (1ull << 32) + xorshift(x) % (256 * MIB_LINES);
	default:
		return 2 * (i % (16 * MIB_LINES));
	}
}

static void write_trace(const char *path, uint64_t n, enum shape s)
{
	static uint64_t buf[1 << 16];
	uint64_t x = 88172645463325252ull, i;
	FILE *f = fopen(path, "w");
	size_t k = 0;

	if (!f) {
		perror(path);
		exit(1);
	}
	/* the binary form: magic, count, records (line << 2 | kind), little-endian */
	fwrite("RDTTRC01", 1, 8, f);
	fwrite(&n, 8, 1, f);
	for (i = 0; i < n; i++) {
		buf[k++] = line_of(s, i, &x) << 2;
		if (k == sizeof(buf) / sizeof(buf[0])) {
			fwrite(buf, 8, k, f);
			k = 0;
		}
	}
	fwrite(buf, 8, k, f);
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

static rdtalloc_t *open_machine(const char *machine)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL,
		      .machine = machine);
	rdtalloc_t *r;

	if (rdtalloc_open(&r, &o)) {
		fprintf(stderr, "bench_curve: %s\n", rdtalloc_errmsg(NULL));
		exit(1);
	}
	return r;
}

static double curve(rdtalloc_t *r, const char *path, unsigned int sample,
		    struct rdtalloc_curve *c)
{
	double t0 = now();

	c->sz = sizeof(*c);
	if (rdtalloc_trace_curve(r, -1, path, RDTALLOC_CURVE_SAMPLE(sample), c)) {
		fprintf(stderr, "bench_curve: %s\n", rdtalloc_errmsg(r));
		exit(1);
	}
	return now() - t0;
}

/* Largest |sampled - exact| miss ratio over the way counts. */
static double max_error(const struct rdtalloc_curve *e, const struct rdtalloc_curve *s)
{
	double worst = 0;

	for (unsigned int k = 0; k < e->geo.ways; k++) {
		double d = fabs((double)e->misses[k] / (double)e->accesses -
				(double)s->misses[k] / (double)s->accesses);

		worst = d > worst ? d : worst;
	}
	return worst;
}

static const char *const machines[2] = {
	"preset=skylake-sp",
	"topology=package:1 l3:1(size=15MiB) core:2 pu:1;l3.cbm_len=20;tasks=virtual",
};

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 100) * 1000000ull;
	static const unsigned int samples[] = { 4, 6 };
	char dir[] = "/tmp/rdt-bench-curve-XXXXXX", path[96];
	struct rdtalloc_curve e, s;
	int missed = 0;

	if (!n || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench_curve [MILLIONS_OF_ACCESSES]\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/mix.bin", dir);
	write_trace(path, n, MIX);
	printf("miss curves of one binary trace of %llu accesses (%s), from the page cache:\n",
	       (unsigned long long)n, shape_name[MIX]);
	for (int m = 0; m < 2; m++) {
		rdtalloc_t *r = open_machine(machines[m]);
		double te, ts[2];

		curve(r, path, 0, &e);	/* a first pass: the file in the page cache */
		te = curve(r, path, 0, &e);
		for (int k = 0; k < 2; k++)
			ts[k] = curve(r, path, samples[k], &s);
		printf("  L3 of %u sets x %u ways: exact %.3f s (target <= 1 s) %s; sampled 1 in "
		       "%u sets %.3f s, 1 in %u %.3f s\n", e.geo.sets, e.geo.ways, te,
		       te <= 1.0 ? "met" : "MISSED", 1u << samples[0], ts[0], 1u << samples[1],
		       ts[1]);
		missed += te > 1.0;
		rdtalloc_close(r);
	}
	unlink(path);
	printf("largest error of a sampled miss ratio at any way count, traces of %llu "
	       "accesses (target <= 0.01):\n", (unsigned long long)(n / 5));
	for (int m = 0; m < 2; m++) {
		rdtalloc_t *r = open_machine(machines[m]);
		double worst[2] = { 0, 0 };

		for (int sh = 0; sh < NSHAPES; sh++) {
			double err[2];

			write_trace(path, n / 5, (enum shape)sh);
			curve(r, path, 0, &e);
			if (!sh)
				printf("  L3 of %u sets x %u ways:\n", e.geo.sets, e.geo.ways);
			for (int k = 0; k < 2; k++) {
				curve(r, path, samples[k], &s);
				err[k] = max_error(&e, &s);
				worst[k] = err[k] > worst[k] ? err[k] : worst[k];
			}
			printf("    %-32s 1 in %u: %.4f   1 in %u: %.4f   (exact miss ratio at "
			       "%u ways %.4f)\n", shape_name[sh], 1u << samples[0], err[0],
			       1u << samples[1], err[1], e.geo.ways,
			       (double)e.misses[e.geo.ways - 1] / (double)e.accesses);
			unlink(path);
		}
		for (int k = 0; k < 2; k++) {
			printf("    worst, 1 in %u sets: %.4f %s\n", 1u << samples[k], worst[k],
			       worst[k] <= 0.01 ? "met" : "MISSED");
			missed += worst[k] > 0.01;
		}
		rdtalloc_close(r);
	}
	rmdir(dir);
	printf("%d target(s) missed\n", missed);
	return 0;
}
