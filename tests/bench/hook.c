// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_hook: the four figures of issue 7 for the switch hook, from one run,
 * on the sim backend with the host's topology (root, kernel BTF):
 *
 *  1. ns per run of the hook's sched_switch program against an empty
 *     tp_btf/sched_switch program, by the kernel's run-time statistics
 *     (BPF_ENABLE_STATS), on the same ping-pong: no cgroup bound
 *     (target ratio <= 1.18, issue 19), a cgroup bound (<= 1.3), and with
 *     four and sixteen tasks taking turns (<= 1.3, issue 33)
 *  2. the cost of a context switch (pipe ping-pong of two processes pinned
 *     to one CPU) with the hook attached and without, median of alternating
 *     runs                                                target ratio <= 1.05
 *  3. PQR_ASSOC writes during 100,000 switches between two tasks of one
 *     group on one CPU, after warm-up                     target 0
 *  4. the lag from a task's switch-in to its PQR_ASSOC write by the agent,
 *     p50 and p99, two tasks of two groups taking turns   target p99 <= 200 us
 *
 * Prints figures; asserts nothing about time (DESIGN section 9). Arguments:
 * the figures to print (all by default).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include <rdtalloc/rdtalloc.h>

#include "cgroups.h"
#include "core.h"
#include "hook/hook.h"
#include "switch_hook.h"
#include "switch_hook.skel.h"


#define CPU 1
#define RUNS 7			/* alternating runs for figure 2 */
#define TRIPS 50000		/* round trips: 100,000 switches */
#define WARM 2000		/* round trips before the counters are read */
#define LAG_TRIPS 20000
#define LAG_SPIN_NS 50000	/* each side works this long per turn in figure 4 */

static rdtalloc_t *g_r;
static char g_dir[64];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_hook: %s: %s (%s)\n", what, strerror(err < 0 ? -err : err),
		g_r ? rdtalloc_errmsg(g_r) : rdtalloc_errmsg(NULL));
	if (g_r && rdt_hook_built())
		rdtalloc_hook_stop(g_r);
	exit(1);
}

static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		die("sched_setaffinity", errno);
}

static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/*
 * n processes on CPU in a ring, passing a byte from each to the next
 * through pipes, each working spin_ns per turn: warm round trips, then
 * (once the bench has read its counters) trips more. Two players are a
 * ping-pong; more than the hook's memo holds make every switch look up.
 */
#define PLAYERS_MAX 16

struct pingpong {
	int n;
	pid_t pid[PLAYERS_MAX];
	int start[PLAYERS_MAX];	/* a byte: this player starts */
	int go;		/* a byte per player: go on after the warm-up */
	int ready;	/* a byte per player: warmed up */
};

static void turns(int in, int out, int n, uint64_t spin_ns, bool first)
{
	char c = 'x';

	for (int i = 0; i < n; i++) {
		if (first && write(out, &c, 1) != 1)
			_exit(2);
		if (read(in, &c, 1) != 1)
			_exit(2);
		if (spin_ns)
			spin(spin_ns);
		if (!first && write(out, &c, 1) != 1)
			_exit(2);
	}
}

static void player(int in, int out, int start, int go, int ready, int warm, int trips,
		   uint64_t spin_ns, bool first)
{
	char c;

	if (read(start, &c, 1) != 1)
		_exit(2);
	turns(in, out, warm, spin_ns, first);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(2);
	turns(in, out, trips, spin_ns, first);
	_exit(0);
}

static void pp_start_n(struct pingpong *pp, int n, int warm, int trips, uint64_t spin_ns)
{
	int ring[PLAYERS_MAX][2], go[2], ready[2], st[PLAYERS_MAX][2];

	pp->n = n;
	if (pipe(go) || pipe(ready))
		die("pipe", errno);
	for (int i = 0; i < n; i++)
		if (pipe(ring[i]) || pipe(st[i]))
			die("pipe", errno);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", errno);
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pin(0, CPU);
			close(go[1]);
			close(ready[0]);
			/* player i reads ring i and writes ring i + 1 */
			player(ring[i][0], ring[(i + 1) % n][1], st[i][0], go[0], ready[1], warm,
			       trips, spin_ns, i == 0);
		}
		pp->pid[i] = pid;
	}
	for (int i = 0; i < n; i++) {
		close(st[i][0]);
		pp->start[i] = st[i][1];
		close(ring[i][0]);
		close(ring[i][1]);
	}
	close(go[0]);
	close(ready[1]);
	pp->go = go[1];
	pp->ready = ready[0];
}

static void pp_start(struct pingpong *pp, int warm, int trips, uint64_t spin_ns)
{
	pp_start_n(pp, 2, warm, trips, spin_ns);
}

/* Start the players and wait until all are warmed up. */
static void pp_warm(struct pingpong *pp)
{
	char c;

	for (int i = 0; i < pp->n; i++)
		if (write(pp->start[i], "s", 1) != 1)
			die("starting the ping-pong", errno ? errno : EIO);
	for (int i = 0; i < pp->n; i++)
		if (read(pp->ready, &c, 1) != 1)
			die("starting the ping-pong", errno ? errno : EIO);
	for (int i = 0; i < pp->n; i++)
		close(pp->start[i]);
}

/* The measured part; returns the elapsed ns. */
static uint64_t pp_run(struct pingpong *pp)
{
	char go[PLAYERS_MAX];
	uint64_t t0 = now_ns();
	int status;

	memset(go, 'g', sizeof(go));
	if (write(pp->go, go, (size_t)pp->n) != pp->n)
		die("write", errno);
	for (int i = 0; i < pp->n; i++) {
		if (waitpid(pp->pid[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("a ping-pong player failed", ECHILD);
	}
	close(pp->go);
	close(pp->ready);
	return now_ns() - t0;
}

static void bind(const char *group, pid_t tid)
{
	int ret = rdtalloc_bind_task(g_r, group, tid);

	if (ret)
		die("rdtalloc_bind_task", ret);
}

static void hook_start(void)
{
	int ret = rdtalloc_hook_start(g_r);

	if (ret)
		die("rdtalloc_hook_start", ret);
}

static void hook_stop(void)
{
	int ret = rdtalloc_hook_stop(g_r);

	if (ret)
		die("rdtalloc_hook_stop", ret);
}

/* Run-time statistics of a program: total ns and runs. */
static void prog_stats(int fd, uint64_t *ns, uint64_t *cnt)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("bpf_obj_get_info_by_fd", errno);
	*ns = info.run_time_ns;
	*cnt = info.run_cnt;
}

enum how { TASKS_GA, CGROUP_GA, TASKS_FLIP, UNBOUND };

/*
 * A cgroup of the bench's own under the cgroup2 mount, for the players of
 * the cgroup cases; removed when they are gone.
 */
static char g_cg[PATH_MAX + 64];

static void cg_make(void)
{
	char root[PATH_MAX], err[256];
	int ret = rdt_cgroup_root(NULL, root, sizeof(root), err, sizeof(err));

	if (ret)
		die(err, ret);
	snprintf(g_cg, sizeof(g_cg), "%s/rdt-bench-hook-%d", root, (int)getpid());
	if (mkdir(g_cg, 0755))
		die(g_cg, errno);
	ret = rdtalloc_bind_cgroup(g_r, "ga", g_cg);
	if (ret)
		die("rdtalloc_bind_cgroup", ret);
}

static void cg_enter(pid_t pid)
{
	char path[sizeof(g_cg) + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", g_cg);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)pid) < 0 || fclose(f))
		die(path, errno);
}

static void cg_remove(void)
{
	int ret = rdtalloc_bind_cgroup(g_r, NULL, g_cg);

	if (ret)
		die("unbinding the bench's cgroup", ret);
	if (rmdir(g_cg))
		die(g_cg, errno);
}

/*
 * ns per run of prog_fd over one ring of n players on CPU, bound as how
 * says: all to ga, all through a cgroup bound to ga, every other one to
 * ga and gb (every switch changes the CLOSID), or not at all.
 */
static double ns_per_run(int prog_fd, int n, enum how how)
{
	struct pingpong pp;
	uint64_t ns0, c0, ns1, c1;

	pp_start_n(&pp, n, WARM, TRIPS * 2 / n, 0);
	for (int i = 0; i < n; i++) {
		if (how == TASKS_GA)
			bind("ga", pp.pid[i]);
		else if (how == TASKS_FLIP)
			bind(i % 2 ? "gb" : "ga", pp.pid[i]);
		else if (how == CGROUP_GA)
			cg_enter(pp.pid[i]);
	}
	pp_warm(&pp);
	prog_stats(prog_fd, &ns0, &c0);
	pp_run(&pp);
	prog_stats(prog_fd, &ns1, &c1);
	return c1 > c0 ? (double)(ns1 - ns0) / (double)(c1 - c0) : 0;
}

/* The yardstick: the skeleton's empty program alone, attached to sched_switch. */
static struct switch_hook *attach_empty(struct bpf_link **link)
{
	struct switch_hook *skel = switch_hook__open();
	struct bpf_program *p;

	if (!skel)
		die("switch_hook__open", errno);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.rdt_empty_switch);
	if (switch_hook__load(skel))
		die("loading the empty program", errno);
	*link = bpf_program__attach(skel->progs.rdt_empty_switch);
	if (!*link)
		die("attaching the empty program", errno);
	return skel;
}

static double empty_ns_per_run(int n)
{
	struct bpf_link *link;
	struct switch_hook *skel = attach_empty(&link);
	double v;

	v = ns_per_run(bpf_program__fd(skel->progs.rdt_empty_switch), n, UNBOUND);
	bpf_link__destroy(link);
	switch_hook__destroy(skel);
	return v;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_dbl);
	return v[n / 2];
}

enum case1 { TASKS2, TASKS4, TASKS16, FLIP2, CG2, CG4, EMPTY2, EMPTY4, EMPTY16, NCASES };

/* One round of every case of figure 1: the hook's, then the empty program's. */
static void round1(double v[NCASES])
{
	char path[PATH_MAX];
	int fd;

	hook_start();
	snprintf(path, sizeof(path), "%s/prog_switch", RDT_HOOK_DIR);
	fd = bpf_obj_get(path);
	if (fd < 0)
		die(path, errno);
	v[TASKS2] = ns_per_run(fd, 2, TASKS_GA);
	v[TASKS4] = ns_per_run(fd, 4, TASKS_GA);
	v[TASKS16] = ns_per_run(fd, 16, TASKS_GA);
	v[FLIP2] = ns_per_run(fd, 2, TASKS_FLIP);
	cg_make();
	v[CG2] = ns_per_run(fd, 2, CGROUP_GA);
	v[CG4] = ns_per_run(fd, 4, CGROUP_GA);
	cg_remove();
	close(fd);
	hook_stop();
	v[EMPTY2] = empty_ns_per_run(2);
	v[EMPTY4] = empty_ns_per_run(4);
	v[EMPTY16] = empty_ns_per_run(16);
}

/*
 * The hook's cases, each against the empty program on the same number of
 * players: two, four and sixteen tasks (the per-CPU memo, direct-mapped by
 * task id, holds sixteen: it answers every switch unless two ids collide),
 * bound one by one with no cgroup bound, and bound through a cgroup. Medians of rounds that
 * alternate hook and empty program, as the machine is shared.
 */
static void figure1(void)
{
	double v[NCASES][RUNS], m[NCASES];
	int stats;

	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats < 0)
		die("bpf_enable_stats", errno);
	for (int i = 0; i < RUNS; i++) {
		double one[NCASES];

		round1(one);
		for (int c = 0; c < NCASES; c++)
			v[c][i] = one[c];
	}
	close(stats);
	for (int c = 0; c < NCASES; c++)
		m[c] = median(v[c], RUNS);
	printf("1. BPF run time per sched_switch (BPF_ENABLE_STATS, %d switches per case, "
	       "median of %d rounds):\n", 2 * TRIPS, RUNS);
	printf("   empty program: %.1f ns (2 tasks), %.1f ns (4 tasks), %.1f ns (16 tasks)\n",
	       m[EMPTY2], m[EMPTY4], m[EMPTY16]);
	printf("   no cgroup bound, tasks bound:  2 tasks %.1f ns, ratio %.2f (target <= 1.18); "
	       "4 tasks %.1f ns, ratio %.2f %s; 16 tasks %.1f ns, ratio %.2f %s "
	       "(target <= 1.3)\n", m[TASKS2], m[TASKS2] / m[EMPTY2], m[TASKS4],
	       m[TASKS4] / m[EMPTY4], m[TASKS4] / m[EMPTY4] <= 1.3 ? "met" : "MISSED",
	       m[TASKS16], m[TASKS16] / m[EMPTY16],
	       m[TASKS16] / m[EMPTY16] <= 1.3 ? "met" : "MISSED");
	printf("   a cgroup bound, tasks in it:   2 tasks %.1f ns, ratio %.2f (target <= 1.3);  "
	       "4 tasks %.1f ns, ratio %.2f (target <= 1.3)\n", m[CG2], m[CG2] / m[EMPTY2],
	       m[CG4], m[CG4] / m[EMPTY4]);
	printf("   CLOSID changes every switch (an event each): %.1f ns, ratio %.2f\n", m[FLIP2],
	       m[FLIP2] / m[EMPTY2]);
}

enum attached { NOTHING, EMPTY, HOOK };

/* ns per switch of one ping-pong with nothing, the empty program or the hook attached. */
static double switch_cost(enum attached what)
{
	struct switch_hook *skel = NULL;
	struct bpf_link *link = NULL;
	struct pingpong pp;
	uint64_t ns;

	if (what == HOOK)
		hook_start();
	if (what == EMPTY)
		skel = attach_empty(&link);
	pp_start(&pp, WARM, TRIPS, 0);
	if (what == HOOK) {
		bind("ga", pp.pid[0]);
		bind("ga", pp.pid[1]);
	}
	pp_warm(&pp);
	ns = pp_run(&pp);
	if (what == HOOK)
		hook_stop();
	bpf_link__destroy(link);
	switch_hook__destroy(skel);
	return (double)ns / (2.0 * TRIPS);
}

static void figure2(void)
{
	double v[3][RUNS], med[3];

	for (int i = 0; i < RUNS; i++)
		for (int w = NOTHING; w <= HOOK; w++)
			v[w][i] = switch_cost(w);
	for (int w = NOTHING; w <= HOOK; w++)
		med[w] = median(v[w], RUNS);
	printf("2. context switch, pipe ping-pong of two processes on CPU %d (median of %d "
	       "alternating runs):\n", CPU, RUNS);
	printf("   without the hook %.0f ns, with it %.0f ns: ratio %.3f (target <= 1.05)\n",
	       med[NOTHING], med[HOOK], med[HOOK] / med[NOTHING]);
	printf("   (an empty tp_btf/sched_switch program alone: %.0f ns, ratio %.3f)\n",
	       med[EMPTY], med[EMPTY] / med[NOTHING]);
}

static void sum_cpu(unsigned int cpu, struct rdtalloc_hook_cpu *out)
{
	struct rdtalloc_hook_cpu v[256] = { { .sz = sizeof(v[0]) } };
	int n = rdtalloc_hook_cpus(g_r, v, 256);

	if (n < 0)
		die("rdtalloc_hook_cpus", n);
	if ((int)cpu >= n)
		die("no such CPU in the hook", EINVAL);
	*out = v[cpu];
}

static void figure3(void)
{
	struct rdtalloc_hook_cpu a, b;
	struct pingpong pp;

	hook_start();
	pp_start(&pp, WARM, TRIPS, 0);
	bind("ga", pp.pid[0]);
	bind("ga", pp.pid[1]);
	pp_warm(&pp);
	usleep(20000);
	sum_cpu(CPU, &a);
	pp_run(&pp);
	sum_cpu(CPU, &b);
	hook_stop();
	printf("3. two tasks of one group on CPU %d, %d round trips: %llu switches seen "
	       "(%lld beyond the pair's %d: other tasks on that CPU),\n   %llu events, %llu "
	       "PQR_ASSOC writes (target 0)\n", CPU, TRIPS,
	       (unsigned long long)(b.switches - a.switches),
	       (long long)(b.switches - a.switches) - 2LL * TRIPS, 2 * TRIPS,
	       (unsigned long long)(b.events - a.events),
	       (unsigned long long)(b.pqr_writes - a.pqr_writes));
}

static void figure4(void)
{
	struct rdtalloc_hook_status st = { .sz = sizeof(st) };
	struct rdtalloc_hook_cpu a, b;
	struct pingpong pp;
	int ret;

	hook_start();	/* a fresh hook: its histogram holds this run only */
	pp_start(&pp, 0, LAG_TRIPS, LAG_SPIN_NS);
	bind("ga", pp.pid[0]);
	bind("gb", pp.pid[1]);
	pp_warm(&pp);
	usleep(20000);
	sum_cpu(CPU, &a);
	pp_run(&pp);
	usleep(20000);
	sum_cpu(CPU, &b);
	ret = rdtalloc_hook_get_status(g_r, &st);
	if (ret)
		die("rdtalloc_hook_get_status", ret);
	hook_stop();
	printf("4. lag from switch-in to the agent's PQR_ASSOC write, two tasks of two groups "
	       "on CPU %d\n   taking turns every %d us (%d round trips): p50 %.1f us, p99 "
	       "%.1f us (target <= 200 us), max %.1f us\n", CPU, LAG_SPIN_NS / 1000,
	       LAG_TRIPS, st.lag_p50_ns / 1e3, st.lag_p99_ns / 1e3, st.lag_max_ns / 1e3);
	printf("   %llu samples, %llu events, %llu coalesced, %llu PQR_ASSOC writes\n",
	       (unsigned long long)st.lag_samples, (unsigned long long)(b.events - a.events),
	       (unsigned long long)(b.coalesced - a.coalesced),
	       (unsigned long long)(b.pqr_writes - a.pqr_writes));
}

/* group's mask in every L3 domain */
static int schema_all(const char *group, const char *mask)
{
	unsigned int ids[256];
	char text[4096];
	size_t off;
	int n = rdtalloc_domains(g_r, "L3", ids, 256);

	if (n <= 0 || n > 256)
		return n < 0 ? n : -ENODEV;
	off = (size_t)snprintf(text, sizeof(text), "L3:");
	for (int i = 0; i < n && off < sizeof(text); i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s%u=%s", i ? ";" : "",
					ids[i], mask);
	return rdtalloc_set_schema(g_r, group, text);
}

static void remove_state(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/state.json", g_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lock", g_dir);
	unlink(path);
	rmdir(g_dir);
}

int main(int argc, char **argv)
{
	bool want[5] = { false, argc < 2, argc < 2, argc < 2, argc < 2 };
	struct stat sb;
	int ret;

	for (int i = 1; i < argc; i++) {
		char *end;
		long f = strtol(argv[i], &end, 10);

		if (*end || end == argv[i] || f < 1 || f > 4) {
			fprintf(stderr, "usage: bench_hook [FIGURE 1-4]...\n");
			return 2;
		}
		want[f] = true;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!rdt_hook_built() || geteuid() != 0 || stat("/sys/kernel/btf/vmlinux", &sb) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("bench_hook: needs root, kernel BTF, two CPUs and a library built with the "
		       "hook: skipped\n");
		return 0;
	}
	if (stat(RDT_HOOK_DIR, &sb) == 0) {
		printf("bench_hook: the switch hook is loaded (%s); stop it first\n", RDT_HOOK_DIR);
		return 1;
	}
	snprintf(g_dir, sizeof(g_dir), "/tmp/rdt-bench-hook-XXXXXX");
	if (!mkdtemp(g_dir))
		die("mkdtemp", errno);
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = g_dir);
	ret = rdtalloc_open(&g_r, &o);
	if (ret)
		die("rdtalloc_open", ret);
	if ((ret = rdtalloc_group_create(g_r, "ga")) || (ret = rdtalloc_group_create(g_r, "gb")) ||
	    (ret = schema_all("ga", "f")) || (ret = schema_all("gb", "f0")))
		die("making the groups", ret);
	pin(0, 0);	/* the benchmark itself stays off CPU 1 */
	printf("bench_hook: sim backend, host topology, state in %s\n", g_dir);
	if (want[1])
		figure1();
	if (want[2])
		figure2();
	if (want[3])
		figure3();
	if (want[4])
		figure4();
	rdtalloc_close(g_r);
	remove_state();
	return 0;
}
