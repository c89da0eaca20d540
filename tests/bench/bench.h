/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h: what the whole-process benchmarks share (bench_cli,
 * bench_resctrl): a monotonic clock, running one rdtctl with its output
 * discarded, the median of a series and the removal of a scratch tree.
 */
#ifndef RDT_BENCH_H
#define RDT_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run argv (argv[0] the program) with stdout to /dev/null; seconds. Exits on failure. */
static inline double bench_spawn(char *const *argv, const char *stdin_file)
{
	posix_spawn_file_actions_t fa;
	int status;
	double t0, t;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (stdin_file)
		posix_spawn_file_actions_addopen(&fa, 0, stdin_file, O_RDONLY, 0);
	t0 = bench_now();
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
		exit(1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench: '%s %s' failed\n", argv[0], argv[1] ? argv[1] : "");
		exit(1);
	}
	t = bench_now() - t0;
	posix_spawn_file_actions_destroy(&fa);
	return t;
}

/*
 * Run rdtctl with the bench's common options (NULL-terminated; NULL: none,
 * as --version takes none) and then args; stdout to /dev/null. Seconds.
 */
static inline double bench_rdtctl(const char *rdtctl, char *const *common, char *const *args,
				  const char *stdin_file)
{
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)rdtctl;
	for (int i = 0; common && common[i] && n < 31; i++)
		argv[n++] = common[i];
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return bench_spawn(argv, stdin_file);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline int bench_remove_entry(const char *path, const struct stat *st, int type,
				     struct FTW *ftw)
{
	return remove(path);
}

/* A scratch directory of the bench's and all that was put in it: 0 or -1. */
static inline int bench_remove_tree(const char *dir)
{
	return nftw(dir, bench_remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

#endif
