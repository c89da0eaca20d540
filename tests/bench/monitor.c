// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_monitor: one sample of `rdtctl -j monitor --count 1` at 10 and 200
 * groups, on the simulator and on the msr backend (a device root of plain
 * files: every MSR access is a pread/pwrite, the counters' values are
 * whatever the files hold), as a ratio to `rdtctl --version` measured in
 * the same rounds, interleaved. Prints figures; asserts nothing. The msr
 * rows need root (the backend checks CAP_SYS_RAWIO) and are skipped
 * otherwise.
 *
 * Usage: bench_monitor [ROUNDS]
 */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#ifndef RDTCTL_PATH
#define RDTCTL_PATH "rdtctl"
#endif

#define MACHINE "topology=package:2 l3:1 core:2 pu:1;tasks=virtual;mon.rmids=256"
#define NCPUS 4

static char dir[] = "/tmp/rdtctl-bench-mon.XXXXXX";
static char state[PATH_MAX], devroot[PATH_MAX], mounts[PATH_MAX];

static double run(const char *backend, char *const *args)
{
	char *argv[20];
	int n = 0;

	argv[n++] = RDTCTL_PATH;
	if (backend) {
		argv[n++] = "--backend";
		argv[n++] = (char *)backend;
		argv[n++] = "--state-dir";
		argv[n++] = state;
		argv[n++] = "--machine";
		argv[n++] = MACHINE;
		if (!strcmp(backend, "msr")) {
			argv[n++] = "--msr-root";
			argv[n++] = devroot;
		}
	}
	for (int i = 0; args[i] && n < 19; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return bench_spawn(argv, NULL);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A device root of plain files: <root>/<cpu>/msr, large enough for every MSR read. */
static void make_devroot(void)
{
	char p[PATH_MAX + 32];
	FILE *f;

	snprintf(devroot, sizeof(devroot), "%s/dev", dir);
	mkdir(devroot, 0700);
	for (int c = 0; c < NCPUS; c++) {
		snprintf(p, sizeof(p), "%s/%d", devroot, c);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/%d/msr", devroot, c);
		f = fopen(p, "w");
		if (!f || ftruncate(fileno(f), 0xe00 * 8) || fclose(f)) {
			perror(p);
			exit(1);
		}
	}
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);
	f = fopen(mounts, "w");
	if (!f || fputs("proc /proc proc rw 0 0\n", f) < 0 || fclose(f)) {
		perror(mounts);
		exit(1);
	}
	setenv("RDTALLOC_MOUNTS", mounts, 1);
}

/* A state of n groups (n - 1 besides default), every CPU bound to one of them. */
static void setup(const char *backend, int n)
{
	char name[16], cpus[8];

	snprintf(state, sizeof(state), "%s/state-%s-%d", dir, backend, n);
	for (int g = 1; g < n; g++) {
		snprintf(name, sizeof(name), "g%d", g);
		run(backend, (char *[]){ "-q", "group", "create", name, NULL });
	}
	for (int c = 0; c < NCPUS && c < n - 1; c++) {
		snprintf(name, sizeof(name), "g%d", c + 1);
		snprintf(cpus, sizeof(cpus), "%d", c);
		run(backend, (char *[]){ "-q", "cpu", "bind", name, cpus, NULL });
	}
}

static double ratio(const char *backend, int rounds, double *ver, double *mon)
{
	double *v = calloc((size_t)rounds, sizeof(double));
	double *m = calloc((size_t)rounds, sizeof(double));

	if (!v || !m)
		exit(1);
	for (int i = 0; i < rounds; i++) {
		v[i] = run(NULL, (char *[]){ "--version", NULL });
		m[i] = run(backend, (char *[]){ "-j", "monitor", "--count", "1", NULL });
	}
	*ver = bench_median(v, rounds);
	*mon = bench_median(m, rounds);
	free(v);
	free(m);
	return *mon / *ver;
}

int main(int argc, char **argv)
{
	static const char *const backends[] = { "sim", "msr" };
	static const int sizes[] = { 10, 200 };
	int rounds = argc > 1 ? atoi(argv[1]) : 21;

	if (rounds < 1 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench_monitor [ROUNDS]\n");
		return 2;
	}
	make_devroot();
	printf("one sample of rdtctl -j monitor --count 1, median of %d runs, against "
	       "rdtctl --version in the same rounds\n\n", rounds);
	printf("%-8s %8s %12s %12s %10s\n", "backend", "groups", "--version", "monitor", "ratio");
	for (size_t b = 0; b < 2; b++) {
		if (b == 1 && geteuid()) {
			printf("%-8s (not root: skipped)\n", backends[b]);
			continue;
		}
		for (size_t s = 0; s < 2; s++) {
			double ver, mon, r;

			setup(backends[b], sizes[s]);
			r = ratio(backends[b], rounds, &ver, &mon);
			printf("%-8s %8d %10.2f ms %10.2f ms %9.2fx\n", backends[b], sizes[s],
			       ver * 1e3, mon * 1e3, r);
		}
	}
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
