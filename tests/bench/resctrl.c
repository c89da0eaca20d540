// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_resctrl: whole rdtctl processes on the resctrl backend, against the
 * resctrl emulator (rdtalloc-resctrlfs, mounted here; needs root and
 * /dev/fuse), next to the same commands on the sim backend and to
 * `rdtctl --version`, in the same interleaved rounds. States of 10 and 1,000
 * groups over 5 schemas (so 5 control groups of ours); every schema set is
 * a real change that splits a group off its class and merges it back, and
 * every task bind moves a real task between classes. Prints medians and
 * ratios; asserts nothing. The emulator's FUSE round trips cost more than
 * the kernel's resctrl files, so the resctrl figures are an upper bound.
 *
 * Usage: bench_resctrl [ROUNDS]
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/*
 * Monitoring off: with it on, every group of ours takes a MON group and
 * an RMID, and the state of 1,000 groups runs the emulator out of RMIDs
 * even at its most (mon.rmids=1024): the bench stopped at its setup. The
 * figures are those of CAT alone, as before monitoring per group came.
 */
#define MACHINE "topology=package:2 l3:1 core:2 pu:1;mon.rmids=0"

static char tmp[] = "/tmp/rdtctl-bench-resctrl.XXXXXX";
static char mnt[96], fs_log[96];
static pid_t fs_pid, sleeper;

static bool mounted(void)
{
	char line[512], want[128];
	FILE *f = fopen("/proc/mounts", "r");
	bool found = false;

	snprintf(want, sizeof(want), " %s fuse.resctrl ", mnt);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void mount_fs(void)
{
	char *argv[] = { RESCTRLFS_PATH, mnt, "-f", "--machine", MACHINE, NULL };
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, fs_log, O_WRONLY | O_CREAT, 0600);
	if (posix_spawn(&fs_pid, argv[0], &fa, NULL, argv, environ)) {
		perror(argv[0]);
		exit(1);
	}
	for (int i = 0; !mounted(); i++) {
		if (i > 200) {
			fprintf(stderr, "bench_resctrl: the emulator did not mount (%s)\n", fs_log);
			exit(1);
		}
		usleep(20000);
	}
}

static void umount_fs(void)
{
	char *argv[] = { "/bin/fusermount3", "-u", "-z", mnt, NULL };

	if (mounted())
		bench_spawn(argv, NULL);
	waitpid(fs_pid, NULL, 0);
}

/* rdtctl on backend be ("sim" or "resctrl") with its own state directory. */
static double run(const char *be, char *const *args, const char *stdin_file)
{
	char dir[128];
	char *common[] = { "--backend", (char *)be, "--state-dir", dir, "--machine", MACHINE,
			   "--resctrl-root", mnt, "-q", NULL };

	if (be)
		snprintf(dir, sizeof(dir), "%s/state-%s", tmp, be);
	return bench_rdtctl(RDTCTL_PATH, be ? common : NULL, args, stdin_file);
}

static void write_config(const char *path, int n)
{
	static const char *masks[] = { "fffff", "ffc00", "003ff", "fff00", "000ff" };
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "group g%d\n\tschema L3:0=%s;1=fffff\n", i, masks[i % 5]);
	fclose(f);
}

static void cleanup(void)
{
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
		sleeper = 0;
		if (mounted())
			umount_fs();
	}
}

struct figures {
	int groups;
	double version, set[2], bind[2];	/* [0] sim, [1] resctrl */
};

static struct figures measure(int groups, int rounds)
{
	static const char *const be[2] = { "sim", "resctrl" };
	struct figures fig = { .groups = groups };
	double *v = calloc((size_t)rounds, sizeof(double)), *s[2], *b[2];
	char conf[128], tid[16];
	char *reset[] = { "reset", NULL }, *apply[] = { "apply", "-", NULL };

	snprintf(conf, sizeof(conf), "%s/conf", tmp);
	write_config(conf, groups);
	snprintf(tid, sizeof(tid), "%d", (int)sleeper);
	for (int k = 0; k < 2; k++) {
		s[k] = calloc((size_t)rounds, sizeof(double));
		b[k] = calloc((size_t)rounds, sizeof(double));
		if (!v || !s[k] || !b[k]) {
			fprintf(stderr, "bench_resctrl: out of memory\n");
			exit(1);
		}
		run(be[k], reset, NULL);
		run(be[k], apply, conf);
	}
	for (int i = 0; i < rounds; i++) {
		char *version[] = { "--version", NULL };
		/* g1 leaves its class (a new control group) and comes back (merged) */
		char *schema[] = { "schema", "set", "g1", i % 2 ? "L3:0=ffc00" : "L3:0=3f000",
				   NULL };
		/* g2 and g3 are in different classes: a move in the kernel each time */
		char *bind[] = { "task", "bind", i % 2 ? "g2" : "g3", tid, NULL };

		v[i] = run(NULL, version, NULL);
		for (int k = 0; k < 2; k++) {
			s[k][i] = run(be[k], schema, NULL);
			b[k][i] = run(be[k], bind, NULL);
		}
	}
	fig.version = bench_median(v, rounds);
	for (int k = 0; k < 2; k++) {
		fig.set[k] = bench_median(s[k], rounds);
		fig.bind[k] = bench_median(b[k], rounds);
		free(s[k]);
		free(b[k]);
	}
	free(v);
	unlink(conf);
	return fig;
}

/* One open, read and close of the root's schemata: the emulator's round trips. */
static double file_op_cost(int n)
{
	char path[128], buf[256];
	double t0 = bench_now();

	snprintf(path, sizeof(path), "%s/schemata", mnt);
	for (int i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
	return (bench_now() - t0) / n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	struct figures f[2];
	char *reset[] = { "reset", NULL };
	double op;

	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK)) {
		fprintf(stderr, "bench_resctrl: needs root and /dev/fuse for the emulator\n");
		return 77;
	}
	if (rounds < 1)
		rounds = 1;
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(mnt, sizeof(mnt), "%s/resctrl", tmp);
	snprintf(fs_log, sizeof(fs_log), "%s.log", tmp);
	mkdir(mnt, 0755);
	mount_fs();
	sleeper = fork();
	if (sleeper == 0) {
		pause();
		_exit(0);
	}
	/* a failed command exits: the sleeper and the mount must not outlive us */
	atexit(cleanup);
	f[0] = measure(10, rounds);
	f[1] = measure(1000, rounds);
	op = file_op_cost(500);
	run("resctrl", reset, NULL);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	sleeper = 0;
	umount_fs();

	printf("rdtctl on resctrl (the emulator at %s) and on sim, machine \"%s\"\n", mnt, MACHINE);
	printf("median wall time of %d interleaved runs per figure, whole processes, -q\n\n",
	       rounds);
	printf("%-7s %10s | %11s %11s %8s | %11s %11s %8s\n", "groups", "--version",
	       "set sim", "set resctrl", "set/ver", "bind sim", "bind rsctl", "bind/ver");
	for (int i = 0; i < 2; i++)
		printf("%-7d %7.2f ms | %8.2f ms %8.2f ms %7.2fx | %8.2f ms %8.2f ms %7.2fx\n",
		       f[i].groups, f[i].version * 1e3, f[i].set[0] * 1e3, f[i].set[1] * 1e3,
		       f[i].set[1] / f[i].version, f[i].bind[0] * 1e3, f[i].bind[1] * 1e3,
		       f[i].bind[1] / f[i].version);
	printf("\nresctrl against sim: schema set %.2fx / %.2fx, task bind %.2fx / %.2fx "
	       "(10 / 1000 groups)\n", f[0].set[1] / f[0].set[0], f[1].set[1] / f[1].set[0],
	       f[0].bind[1] / f[0].bind[0], f[1].bind[1] / f[1].bind[0]);
	printf("one file read on the emulator (open, read, close): %.1f us; the resctrl - sim "
	       "difference is %.0f / %.0f such reads per schema set / task bind at 10 groups\n",
	       op * 1e6, (f[0].set[1] - f[0].set[0]) / op, (f[0].bind[1] - f[0].bind[0]) / op);
	printf("target: at 10 groups within 3x of --version: schema set %s, task bind %s\n",
	       f[0].set[1] <= 3 * f[0].version ? "met" : "MISSED",
	       f[0].bind[1] <= 3 * f[0].version ? "met" : "MISSED");
	if (bench_remove_tree(tmp))
		fprintf(stderr, "bench_resctrl: could not remove %s\n", tmp);
	unlink(fs_log);
	return 0;
}
