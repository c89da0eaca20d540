// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_hook: the switch hook for real (issue 7). The BPF program is loaded
 * into this kernel and the agent runs as a daemon, on the sim backend with
 * the host's topology (so real CPU numbers are valid) in a temporary state
 * directory: real scheduling drives the simulated PQR_ASSOC registers,
 * which this test reads back from the state file through its own context.
 *
 * A child pinned to CPU 1 sleeps and wakes in a loop. Bound to a group, CPU
 * 1's PQR_ASSOC shows the group's CLOSID within a second; bound back to
 * default, the group's CLOSID is never seen there again; a CPU bind
 * overrides the task's group; a forked child and a new thread are in the
 * group; exited tasks are in no group; restarting the agent keeps the
 * bindings; hook stop leaves nothing pinned and no agent. Plus the refusals.
 *
 * Skips (with the reason) when not root, without kernel BTF, without a
 * second CPU, or when this library was built without the hook.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include <linux/types.h>
#if RDT_TEST_BPF
#include <bpf/bpf.h>
#endif

#include "core.h"
#include "hook/hook.h"
#include "monitor/monitor.h"
#include "../../bpf/switch_hook.h"	/* the slots' layout (not on the include path) */


#define CPU 1			/* where the child runs */
/*
 * How long a change may take to reach the register: the agent does it
 * within milliseconds, but a loaded machine (other tests, a sanitizer
 * build) may not run it for seconds; waited for, so a pass costs nothing.
 */
#define WITHIN_MS 30000
#define SETTLE_MS 500		/* a switch-in and a flush of the agent, with margin */
#define WATCH_MS 300		/* how long a value must (not) be seen again */

struct fixture {
	char dir[64];		/* the state directory */
	rdtalloc_t *r;
	struct rdt_hook *h;
	unsigned int c_def, c1, c2;	/* CLOSIDs: default, g1, g2 (domain of CPU 1) */
	uint64_t seq1, seq2;
	pid_t child;
	int ctl[2];		/* to the child: 'f' = fork and make a thread */
	int rep[2];		/* from the child: the new tids */
};

static struct fixture fx;
static const char *skip_reason;
static void msrfs_unmount(void);

/* ---- Helpers ------------------------------------------------------------------ */

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned int pqr(int cpu)
{
	unsigned int k = ~0u;

	assert_int_equal(rdtalloc_read_pqr(fx.r, cpu, &k), 0);
	return k;
}

/* The CLOSID the agent last made cpu's PQR_ASSOC hold (the hook's live view). */
static unsigned int applied(int cpu)
{
	struct rdtalloc_hook_cpu v[2] = { { .sz = sizeof(v[0]) }, { .sz = sizeof(v[0]) } };

	assert_true(rdtalloc_hook_cpus(fx.r, v, 2) > cpu);
	return v[cpu].applied;
}

/*
 * PQR_ASSOC of cpu shows want at least once within ms: as the agent writes
 * it (sampled every 100 us), or in the state's image of the registers. The
 * image is a snapshot written every few milliseconds: when other programs
 * keep the CPU busy, the task with that CLOSID holds it for moments only,
 * which the image alone may never catch.
 */
static bool pqr_shows(int cpu, unsigned int want, unsigned int ms)
{
	uint64_t end = ms_now() + ms;
	unsigned int k, i = 0;

	do {
		if (applied(cpu) == want)
			return true;
		if (i++ % 20 == 0 && (k = pqr(cpu)) == want)
			return true;
		usleep(100);
	} while (ms_now() < end);
	k = pqr(cpu);
	print_message("CPU %d PQR_ASSOC: wanted CLOSID %u, last seen %u (agent: %u)\n", cpu, want,
		      k, applied(cpu));
	return false;
}

/* PQR_ASSOC of cpu never shows bad during ms. */
static bool pqr_never(int cpu, unsigned int bad, unsigned int ms)
{
	uint64_t end = ms_now() + ms;

	do {
		if (pqr(cpu) == bad)
			return false;
		usleep(2000);
	} while (ms_now() < end);
	return true;
}

/* PQR_ASSOC of cpu shows only want during ms. */
static bool pqr_always(int cpu, unsigned int want, unsigned int ms)
{
	uint64_t end = ms_now() + ms;

	do {
		if (pqr(cpu) != want)
			return false;
		usleep(2000);
	} while (ms_now() < end);
	return true;
}

static uint64_t group_seq(const char *name)
{
	uint64_t seq;
	int g;

	assert_int_equal(rdt_core_begin(fx.r, false), 0);
	g = rdt_group_find(fx.r->st, name);
	assert_true(g >= 0);
	seq = fx.r->st->groups[g].seq;
	assert_int_equal(rdt_core_end(fx.r, false, 0), 0);
	return seq;
}

/* The public calls alone keep the hook's maps in step. */
static void bind_task(const char *group, pid_t tid)
{
	assert_int_equal(rdtalloc_bind_task(fx.r, group, tid), 0);
}

static void bind_cpu(const char *group, int cpu)
{
	assert_int_equal(rdtalloc_bind_cpu(fx.r, group, cpu), 0);
}

static const char *seq_name(uint64_t seq)
{
	if (seq == 0)
		return NULL;
	assert_true(seq == fx.seq1 || seq == fx.seq2);
	return seq == fx.seq1 ? "g1" : "g2";
}

/*
 * The live tasks of group seq, as the hook lists them; a non-default group
 * lists exactly the same through the public call (default's list is every
 * thread of the system, which changes from one moment to the next).
 */
static size_t tasks_of(uint64_t seq, pid_t **v)
{
	pid_t pub[256];
	size_t n = 0, i;
	int np;

	assert_int_equal(rdt_hook_tasks(fx.h, seq, v, &n), 0);
	if (seq) {
		np = rdtalloc_group_tasks(fx.r, seq_name(seq), pub, 256);
		assert_int_equal(np, (int)n);
		for (i = 0; i < n; i++)
			assert_int_equal(pub[i], (*v)[i]);
	}
	return n;
}

/* The group of tid by the public call. */
static void assert_group_of(pid_t tid, const char *want)
{
	char name[64];

	assert_int_equal(rdtalloc_task_group(fx.r, tid, name, sizeof(name)), 0);
	assert_string_equal(name, want);
}

static bool lists(uint64_t seq, pid_t tid)
{
	pid_t *v;
	size_t n = tasks_of(seq, &v), i;
	bool found = false;

	for (i = 0; i < n; i++)
		found |= v[i] == tid;
	free(v);
	return found;
}

static void assert_tasks(uint64_t seq, const pid_t *want, size_t nwant)
{
	pid_t *v;
	size_t n = tasks_of(seq, &v), i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i], want[i]);
	free(v);
}

static struct rdtalloc_hook_status status(void)
{
	struct rdtalloc_hook_status st = { .sz = sizeof(st) };

	assert_int_equal(rdtalloc_hook_get_status(fx.r, &st), 0);
	return st;
}

static bool dir_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/* The process exists and has not exited (a zombie waiting for init has). */
static bool proc_exists(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static void remove_dir(const char *dir)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* ---- The child on CPU 1 ------------------------------------------------------------ */

static void *sleeper_thread(void *arg)
{
	int fd = *(int *)arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	if (write(fd, &tid, sizeof(tid)) != sizeof(tid))
		_exit(3);
	for (;;)
		usleep(500);
	return NULL;
}

/* Forks a grandchild and starts a thread, reports their tids. */
static void spawn_offspring(int rep)
{
	static int fd;
	pthread_t t;
	pid_t pid;

	fd = rep;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			usleep(500);
	}
	if (pid < 0 || write(rep, &pid, sizeof(pid)) != sizeof(pid))
		_exit(3);
	if (pthread_create(&t, NULL, sleeper_thread, &fd))
		_exit(3);
}

/* Sleeps and wakes on CPU 1 until killed; on 'f' it forks and starts a thread. */
static void child_main(int ctl, int rep)
{
	cpu_set_t set;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(CPU, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    fcntl(ctl, F_SETFL, fcntl(ctl, F_GETFL) | O_NONBLOCK))
		_exit(2);
	/*
	 * Busy for 1 to 2 ms, then asleep for half of one: each time it
	 * runs it holds the CPU far longer than the agent takes to write its
	 * CLOSID (tens of microseconds), also when other programs keep the CPU
	 * busy - a task that ran only for moments would have its CLOSID written
	 * after it left, or never (the agent writes the latest wish). Niced to
	 * -20 (we are root), so that a loaded CPU 1 (stress-ng, other tests)
	 * hands it the CPU at each wake rather than a share of it.
	 */
	setpriority(PRIO_PROCESS, 0, -20);
	for (;;) {
		uint64_t until = ms_now() + 2;	/* 1 to 2 ms */

		while (ms_now() < until)
			;
		usleep(500);
		if (read(ctl, &c, 1) == 1 && c == 'f')
			spawn_offspring(rep);
	}
}

static pid_t start_child(void)
{
	pid_t pid;

	assert_int_equal(pipe(fx.ctl), 0);
	assert_int_equal(pipe(fx.rep), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fx.ctl[1]);
		close(fx.rep[0]);
		child_main(fx.ctl[0], fx.rep[1]);
	}
	close(fx.ctl[0]);
	close(fx.rep[1]);
	return pid;
}

static void stop_child(void)
{
	if (fx.child > 0) {
		kill(fx.child, SIGKILL);
		waitpid(fx.child, NULL, 0);
		fx.child = 0;
		close(fx.ctl[1]);
		close(fx.rep[0]);
	}
}

/* ---- Fixture ---------------------------------------------------------------------- */

/*
 * A hook serving one of the tests' own temporary states was left by a test
 * run that was killed (the hook tests run one at a time: RUN_SERIAL), and
 * group_setup takes it down; a hook serving anything else is not ours.
 */
static bool test_leftover(const char *dir)
{
	const char *p = NULL;
	char *end;
	long pid;

	if (!strncmp(dir, "/tmp/rdt-test-hook-", 19))
		p = dir + 19;
	else if (!strncmp(dir, "/tmp/rdtctl-test.", 17))
		p = dir + 17;
	if (!p)
		return false;
	/* the test that made it names itself (PID) in it: a live one is in use, not left */
	pid = strtol(p, &end, 10);
	if (end == p || (*end != '-' && *end != '.') || pid <= 0)
		return true;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* A test's temporary directory, named after this process (see test_leftover). */
static void test_dir(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "/tmp/rdt-test-hook-%d-%sXXXXXX", (int)getpid(), what);
	assert_non_null(mkdtemp(buf));
}

static const char *why_skip(void)
{
	struct rdt_hook *h;
	char err[256];
	int ret;

	if (!rdt_hook_built())
		return "this librdtalloc was built without the switch hook (RDTALLOC_BPF=OFF)";
	if (geteuid() != 0)
		return "loading the BPF program needs root";
	if (!dir_exists("/sys/kernel/btf/vmlinux"))
		return "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return "the child needs a CPU 1";
	ret = rdt_hook_open(&h, err, sizeof(err));
	if (ret == 0) {
		const char *dir = rdt_hook_ctl(h)->serve_dir;
		bool busy = dir_exists(dir) && !test_leftover(dir);

		rdt_hook_close(h);
		if (busy)
			return "the switch hook is loaded and in use (rdtctl hook status); "
			       "stop it to run this test";
	}
	return NULL;
}

/* Give group the mask on every L3 domain, whatever the host's layout. */
static void schema_on(rdtalloc_t *r, const char *group, const char *mask)
{
	unsigned int ids[64];
	char text[1024];
	size_t off;
	int n, i;

	n = rdtalloc_domains(r, "L3", ids, 64);
	assert_true(n > 0 && n <= 64);
	off = (size_t)snprintf(text, sizeof(text), "L3:");
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s%u=%s", i ? ";" : "",
					ids[i], mask);
	assert_int_equal(rdtalloc_set_schema(r, group, text), 0);
}

static void schema_all(const char *group, const char *mask)
{
	schema_on(fx.r, group, mask);
}

/* group's CLOSID in the L3 domain of CPU (the host may have one L3 per CPU). */
static unsigned int closid_of(rdtalloc_t *r, const char *group)
{
	unsigned int ids[64], k = ~0u;
	int n, i, cpus[256], nc;

	n = rdtalloc_domains(r, "L3", ids, 64);
	for (i = 0; i < n; i++) {
		nc = rdtalloc_domain_cpus(r, "L3", ids[i], cpus, 256);
		for (int c = 0; c < nc; c++)
			if (cpus[c] == CPU)
				assert_int_equal(rdtalloc_group_closid(r, group, "L3", ids[i],
								       &k), 0);
	}
	assert_int_not_equal(k, ~0u);
	return k;
}

/* The CLOSID part of what the program would choose (the RMID rides along). */
static int hook_closid_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *k)
{
	int ret = rdt_hook_pqr_for(h, cpu, tid, k);

	if (!ret)
		*k = RDT_HOOK_PQR_CLOSID(*k);
	return ret;
}

static unsigned int closid_on_cpu(const char *group)
{
	return closid_of(fx.r, group);
}

static int group_setup(void **state)
{
	char err[256] = "";
	struct rdt_hook *stale;
	int ret;

	cpu_set_t set;

	skip_reason = why_skip();
	if (skip_reason)
		return 0;
	/* this process stays off CPU 1: there, only the child and strangers switch in */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	/*
	 * A hook left by a test run that died (why_skip said so): agent and
	 * pins. Looked at again here: another test run on this machine may have
	 * loaded its own since, and that one is not ours to take down.
	 */
	if (rdt_hook_open(&stale, err, sizeof(err)) == 0) {
		struct rdt_hook_agent_info info;
		const char *dir = rdt_hook_ctl(stale)->serve_dir;

		if (dir_exists(dir) && !test_leftover(dir)) {
			rdt_hook_close(stale);
			skip_reason = "the switch hook is loaded and in use (rdtctl hook status); "
				      "stop it to run this test";
			return 0;
		}
		rdt_hook_agent(stale, &info);
		if (info.running)
			kill(info.pid, SIGKILL);
		rdt_hook_close(stale);
		rdt_hook_unload(err, sizeof(err));
	}
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/rdt-test-hook-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(fx.dir))
		return -1;
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = fx.dir);
	ret = rdtalloc_open(&fx.r, &o);
	if (ret) {
		print_error("rdtalloc_open: %s\n", rdtalloc_errmsg(NULL));
		return -1;
	}
	ret = rdtalloc_hook_start(fx.r);
	if (ret) {
		print_error("rdtalloc_hook_start: %s\n", rdtalloc_errmsg(fx.r));
		return -1;
	}
	ret = rdt_hook_open(&fx.h, err, sizeof(err));
	if (ret) {
		print_error("rdt_hook_open: %s\n", err);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	char err[256];

	if (skip_reason)
		return 0;
	stop_child();
	rdt_hook_close(fx.h);
	if (dir_exists(RDT_HOOK_DIR) && rdtalloc_hook_stop(fx.r))
		rdt_hook_unload(err, sizeof(err));
	rdtalloc_close(fx.r);
	remove_dir(fx.dir);
	/* an msr test that failed half-way leaves its emulator mounted */
	msrfs_unmount();
	return 0;
}

/* scripts/test.sh sets it where the machine can run every test: a skip fails. */
static bool strict(void)
{
	const char *s = getenv("RDTALLOC_TEST_STRICT");

	return s && *s;
}

#define SKIP_IF_NEEDED()							\
	do {									\
		if (skip_reason) {						\
			print_message("[  SKIPPED ] %s\n", skip_reason);	\
			if (strict())						\
				fail_msg("RDTALLOC_TEST_STRICT: this test may not skip");	\
			skip();							\
		}								\
	} while (0)

/* ---- Tests ----------------------------------------------------------------------- */

static void groups_and_maps(void **state)
{
	unsigned int k;

	SKIP_IF_NEEDED();
	assert_int_equal(rdtalloc_group_create(fx.r, "g1"), 0);
	assert_int_equal(rdtalloc_group_create(fx.r, "g2"), 0);
	schema_all("g1", "f");
	schema_all("g2", "f0");
	fx.c_def = closid_on_cpu(NULL);
	fx.c1 = closid_on_cpu("g1");
	fx.c2 = closid_on_cpu("g2");
	/* distinct masks: the lowest free CLOSIDs after default's 0 */
	assert_int_equal(fx.c_def, 0);
	assert_int_equal(fx.c1, 1);
	assert_int_equal(fx.c2, 2);
	fx.seq1 = group_seq("g1");
	fx.seq2 = group_seq("g2");
	assert_int_not_equal(fx.seq1, 0);
	assert_int_not_equal(fx.seq2, fx.seq1);
	/* the maps say what the engine says: no task, no CPU group: default */
	assert_int_equal(hook_closid_for(fx.h, CPU, 0, &k), 0);
	assert_int_equal(k, fx.c_def);
	fx.child = start_child();
	/* unbound, the child is listed in default and in no group */
	assert_true(lists(0, fx.child));
	assert_false(lists(fx.seq1, fx.child));
	assert_int_equal(hook_closid_for(fx.h, CPU, fx.child, &k), 0);
	assert_int_equal(k, fx.c_def);
}

static void bind_task_sets_pqr(void **state)
{
	struct rdt_hook_slot *s;
	uint64_t end;
	unsigned int k;
	bool seen = false;

	SKIP_IF_NEEDED();
	bind_task("g1", fx.child);
	assert_tasks(fx.seq1, &fx.child, 1);
	assert_false(lists(0, fx.child));
	assert_int_equal(hook_closid_for(fx.h, CPU, fx.child, &k), 0);
	assert_int_equal(k, fx.c1);
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
	/* and it is the child's switch-ins that want it */
	s = rdt_hook_slot(fx.h, CPU);
	for (end = ms_now() + WITHIN_MS; !seen && ms_now() < end; usleep(1000)) {
		uint64_t cur = __atomic_load_n(&s->cur, __ATOMIC_SEQ_CST);

		seen = RDT_HOOK_CUR_TID(cur) == (uint32_t)fx.child &&
		       RDT_HOOK_PQR_CLOSID(RDT_HOOK_CUR_CLOSID(cur)) == fx.c1;
	}
	assert_true(seen);

	assert_group_of(fx.child, "g1");
	bind_task(NULL, fx.child);
	assert_group_of(fx.child, "default");
	assert_tasks(fx.seq1, NULL, 0);
	assert_true(lists(0, fx.child));
	assert_true(pqr_shows(CPU, fx.c_def, WITHIN_MS));
	usleep(SETTLE_MS * 1000);
	/* nobody else is in g1: its CLOSID must not come back */
	assert_true(pqr_never(CPU, fx.c1, WATCH_MS));
}

static void cpu_bind_overrides(void **state)
{
	SKIP_IF_NEEDED();
	bind_task("g1", fx.child);
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
	bind_cpu("g2", CPU);
	assert_true(pqr_shows(CPU, fx.c2, WITHIN_MS));
	usleep(SETTLE_MS * 1000);
	/* every task on CPU 1 now runs with g2's CLOSID, the child included */
	assert_true(pqr_always(CPU, fx.c2, WATCH_MS));
	bind_cpu(NULL, CPU);
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
	usleep(SETTLE_MS * 1000);
	assert_true(pqr_never(CPU, fx.c2, WATCH_MS));
	/* the binding itself was never touched */
	assert_tasks(fx.seq1, &fx.child, 1);
}

static void fork_and_thread_inherit(void **state)
{
	pid_t got[2], want[3];
	size_t i, j;

	SKIP_IF_NEEDED();
	assert_true(lists(fx.seq1, fx.child));
	assert_int_equal(write(fx.ctl[1], "f", 1), 1);
	/* the grandchild's pid, then the thread's tid */
	for (i = 0; i < 2; i++)
		assert_int_equal(read(fx.rep[0], &got[i], sizeof(got[i])), sizeof(got[i]));
	want[0] = fx.child;
	want[1] = got[0];
	want[2] = got[1];
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (want[j] < want[i]) {
				pid_t t = want[i];

				want[i] = want[j];
				want[j] = t;
			}
	assert_tasks(fx.seq1, want, 3);
	assert_group_of(got[0], "g1");
	assert_group_of(got[1], "g1");
	assert_false(lists(0, got[0]));
	assert_false(lists(0, got[1]));
	assert_false(lists(fx.seq2, got[0]));
}

static void exited_tasks_in_no_group(void **state)
{
	pid_t gone[3];
	pid_t *v;
	size_t n, i;

	SKIP_IF_NEEDED();
	n = tasks_of(fx.seq1, &v);
	assert_int_equal(n, 3);
	memcpy(gone, v, sizeof(gone));
	free(v);
	stop_child();	/* the grandchild dies with it (PR_SET_PDEATHSIG) */
	/* which takes its own time: a minute at most (a loaded machine) */
	for (i = 0; i < 6000; i++) {
		n = tasks_of(fx.seq1, &v);
		free(v);
		if (!n)
			break;
		usleep(10000);
	}
	assert_tasks(fx.seq1, NULL, 0);
	assert_tasks(fx.seq2, NULL, 0);
	for (i = 0; i < 3; i++)
		assert_false(lists(0, gone[i]));
	fx.child = start_child();
}

static void agent_restart_keeps_bindings(void **state)
{
	struct rdtalloc_hook_status st;
	pid_t old;
	int i;

	SKIP_IF_NEEDED();
	bind_task("g1", fx.child);
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
	st = status();
	assert_int_equal(st.loaded, 1);
	assert_int_equal(st.agent_running, 1);
	old = st.agent_pid;
	assert_true(old > 0);
	assert_int_equal(kill(old, SIGTERM), 0);
	for (i = 0; i < 500 && proc_exists(old); i++)
		usleep(10000);
	assert_false(proc_exists(old));
	st = status();
	assert_int_equal(st.loaded, 1);
	assert_int_equal(st.agent_running, 0);
	assert_int_equal(st.agent_pid, 0);
	/* the binding lives in the pinned task storage, not in the agent */
	assert_tasks(fx.seq1, &fx.child, 1);
	assert_int_equal(rdtalloc_hook_start(fx.r), 0);
	st = status();
	assert_int_equal(st.agent_running, 1);
	assert_int_not_equal(st.agent_pid, old);
	assert_tasks(fx.seq1, &fx.child, 1);
	/* CPU 1 went on with other tasks meanwhile; the new agent catches up */
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
}

static void counters_and_lag(void **state)
{
	struct rdtalloc_hook_cpu cpus[64];
	struct rdtalloc_hook_status st;
	int n;

	SKIP_IF_NEEDED();
	st = status();
	assert_int_equal(st.built, 1);
	assert_int_equal(st.ncpus, (unsigned int)rdt_hook_ncpus(fx.h));
	assert_true(st.lag_samples > 0);
	assert_true(st.lag_p50_ns > 0 && st.lag_p50_ns <= st.lag_p99_ns);
	assert_true(st.lag_p99_ns <= st.lag_max_ns);
	memset(cpus, 0, sizeof(cpus));
	cpus[0].sz = sizeof(cpus[0]);
	n = rdtalloc_hook_cpus(fx.r, cpus, 64);
	assert_int_equal(n, (int)st.ncpus);
	assert_int_equal(rdtalloc_hook_cpus(fx.r, NULL, 0), n);
	assert_int_equal(cpus[CPU].cpu, CPU);
	assert_true(cpus[CPU].switches > 0);
	assert_true(cpus[CPU].events > 0);
	assert_true(cpus[CPU].pqr_writes > 0);
	cpus[0].sz = 0;
	assert_int_equal(rdtalloc_hook_cpus(fx.r, cpus, 64), -EINVAL);
}

static void refusals(void **state)
{
	struct rdtalloc_hook_status before, after;
	char other[64] = "/tmp/rdt-test-hook2-XXXXXX";
	rdtalloc_t *eph, *r2;
	pid_t dead;

	SKIP_IF_NEEDED();
	before = status();
	assert_int_equal(rdtalloc_hook_start(fx.r), -EEXIST);
	assert_non_null(strstr(rdtalloc_errmsg(fx.r), "already running (agent pid"));
	assert_int_equal(rdtalloc_hook_run(fx.r, NULL), -EEXIST);

	RDTALLOC_OPTS(rdtalloc_opts, eo, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL);
	assert_int_equal(rdtalloc_open(&eph, &eo), 0);
	assert_int_equal(rdtalloc_hook_start(eph), -EINVAL);
	assert_non_null(strstr(rdtalloc_errmsg(eph), "ephemeral"));
	rdtalloc_close(eph);

	assert_non_null(mkdtemp(other));
	RDTALLOC_OPTS(rdtalloc_opts, o2, .backend = "sim", .state_dir = other);
	assert_int_equal(rdtalloc_open(&r2, &o2), 0);
	assert_false(rdt_hook_serves(fx.h, r2));
	assert_true(rdt_hook_serves(fx.h, fx.r));
	assert_int_equal(rdtalloc_hook_start(r2), -EBUSY);
	assert_non_null(strstr(rdtalloc_errmsg(r2), fx.dir));
	assert_int_equal(rdtalloc_hook_stop(r2), -EBUSY);
	rdtalloc_close(r2);
	remove_dir(other);

	dead = fork();
	if (dead == 0)
		_exit(0);
	assert_true(dead > 0);
	waitpid(dead, NULL, 0);
	assert_int_equal(rdt_hook_bind_task(fx.h, dead, 0, fx.seq1), -ESRCH);
	assert_non_null(strstr(rdt_hook_errmsg(fx.h), "does not exist"));
	assert_int_equal(rdtalloc_bind_task(fx.r, "g1", dead), -ESRCH);
	assert_non_null(strstr(rdtalloc_errmsg(fx.r), "does not exist"));
	/* simulated switches would fight the agent */
	assert_int_equal(rdtalloc_sim_switch(fx.r, CPU, fx.child, NULL), -EBUSY);
	assert_non_null(strstr(rdtalloc_errmsg(fx.r), "stop it first"));

	/* nothing changed */
	after = status();
	assert_int_equal(after.loaded, 1);
	assert_int_equal(after.agent_running, 1);
	assert_int_equal(after.agent_pid, before.agent_pid);
	assert_tasks(fx.seq1, &fx.child, 1);
}

/* Make dir immutable (on) or not: even root cannot write the state file then. */
static bool set_immutable(const char *dir, bool on)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0;
	bool ok;

	if (fd < 0)
		return false;
	ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	ok = ok && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	close(fd);
	return ok;
}

/* A call that fails after it changed the task storage puts the storage back. */
static void failed_write_undoes_binding(void **state)
{
	int ret;

	SKIP_IF_NEEDED();
	assert_group_of(fx.child, "g1");
	if (!set_immutable(fx.dir, true)) {
		print_message("[  SKIPPED ] %s cannot be made immutable here\n", fx.dir);
		skip();
	}
	ret = rdtalloc_bind_task(fx.r, "g2", fx.child);
	set_immutable(fx.dir, false);
	assert_true(ret < 0);
	assert_non_null(strstr(rdtalloc_errmsg(fx.r), "cannot write"));
	/* neither the state nor the hook took the new group */
	assert_group_of(fx.child, "g1");
	assert_tasks(fx.seq1, &fx.child, 1);
	assert_tasks(fx.seq2, NULL, 0);
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
}

/* group_closid holds exactly the state's live groups in every domain, nothing else. */
static void assert_maps_match_state(void)
{
#if RDT_TEST_BPF
	struct rdt_hook_gkey key, next;
	size_t have = 0, want = 0;
	void *prev = NULL;
	unsigned int g, k;
	int fd = bpf_obj_get(RDT_HOOK_DIR "/group_closid");

	assert_true(fd >= 0);
	assert_int_equal(rdt_core_begin(fx.r, false), 0);
	for (g = 0; g < fx.r->st->ngroups; g++) {
		const struct rdt_group *grp = &fx.r->st->groups[g];

		if (!grp->live)
			continue;
		for (key.adom = 0; key.adom < fx.r->st->nadom; key.adom++) {
			key.seq = grp->seq;
			key.pad = 0;
			assert_int_equal(bpf_map_lookup_elem(fd, &key, &k), 0);
			assert_int_equal(RDT_HOOK_PQR_CLOSID(k), grp->closid[key.adom]);
			/* and the group's own RMID (the sim monitors) */
			assert_int_equal(RDT_HOOK_PQR_RMID(k), rdt_mon_group_rmid(fx.r->st, (int)g));
			want++;
		}
	}
	assert_int_equal(rdt_core_end(fx.r, false, 0), 0);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		have++;
	}
	close(fd);
	assert_int_equal(have, want);
#endif
}

static void maps_follow_every_change(void **state)
{
	char text[256];

	SKIP_IF_NEEDED();
	assert_maps_match_state();
	assert_int_equal(rdtalloc_group_create(fx.r, "g3"), 0);
	schema_all("g3", "3");
	assert_maps_match_state();
	assert_int_equal(rdtalloc_group_remove(fx.r, "g3"), 0);
	assert_maps_match_state();
	/* a new group in the freed slot: another sequence number */
	assert_int_equal(rdtalloc_group_create(fx.r, "g4"), 0);
	schema_all("g4", "f");	/* shares g1's CLOSID */
	assert_maps_match_state();
	assert_int_equal(closid_on_cpu("g4"), fx.c1);
	/* a whole configuration: g4 goes, g5 comes with g2's mask */
	snprintf(text, sizeof(text), "group g5\n\tschema L3:0=f0\n");
	assert_true(rdtalloc_apply_config(fx.r, text, 0) > 0);
	assert_int_equal(rdtalloc_group_remove(fx.r, "g4"), 0);
	assert_maps_match_state();
	assert_int_equal(rdtalloc_group_remove(fx.r, "g5"), 0);
	assert_maps_match_state();
	/* and the agent still gives the child its group's CLOSID */
	assert_true(pqr_shows(CPU, fx.c1, WITHIN_MS));
}

static void stop_leaves_nothing(void **state)
{
	struct rdtalloc_hook_status st;
	pid_t agent;
	int c, n;

	SKIP_IF_NEEDED();
	bind_cpu("g2", 0);
	agent = status().agent_pid;
	assert_true(agent > 0);
	assert_int_equal(rdtalloc_hook_stop(fx.r), 0);
	assert_false(dir_exists(RDT_HOOK_DIR));
	assert_false(proc_exists(agent));
	st = status();
	assert_int_equal(st.loaded, 0);
	assert_int_equal(st.agent_running, 0);
	/* every CPU back to its own group's CLOSID: CPU 0 is g2's, the others default */
	n = rdtalloc_cpu_count(fx.r);
	for (c = 0; c < n; c++)
		assert_int_equal(pqr(c), c == 0 ? fx.c2 : fx.c_def);
	assert_true(pqr_always(CPU, fx.c_def, WATCH_MS));
	assert_int_equal(rdtalloc_hook_stop(fx.r), -ENOENT);
	assert_non_null(strstr(rdtalloc_errmsg(fx.r), "not loaded"));
	assert_int_equal(rdtalloc_hook_cpus(fx.r, NULL, 0), -ENOENT);
}

/* ---- The msr backend, against the msr driver's emulator ----------------------- */

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The host's topology, with CAT the VM does not have; the emulator serves
 * the same description, so both see the same L3 domains however many the
 * host has (HWLOC_SYNTHETIC included). No L3 monitoring: the RMID field is
 * another tool's, and the agent keeps it.
 */
#define MSR_CAPS "l3.closids=16;l3.cbm_len=20;l3.min_cbm_bits=1;l3.cdp=0;mon.rmids=0"
/* the same with L3 monitoring: the agent writes the group's RMID too */
#define MSR_MON_CAPS "l3.closids=16;l3.cbm_len=20;l3.min_cbm_bits=1;l3.cdp=0;mon.rmids=16"
#define PQR_ASSOC 0xc8f
#define RMID 0x2a

/* Where the emulator is mounted, and what to unmount at the end. */
static char msr_mnt[128];

static uint64_t msr_read(const char *root, int cpu, off_t addr)
{
	char path[160];
	uint64_t v = ~0ull;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/msr", root, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, sizeof(v), addr), sizeof(v));
	close(fd);
	return v;
}

static void msr_write(const char *root, int cpu, off_t addr, uint64_t v)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/msr", root, cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof(v), addr), sizeof(v));
	close(fd);
}

static bool msr_shows(const char *root, int cpu, uint64_t want, unsigned int ms)
{
	uint64_t end = ms_now() + ms, v = 0;
	unsigned int n = 0;

	do {
		v = msr_read(root, cpu, PQR_ASSOC);
		n++;
		if (v == want)
			return true;
		usleep(200);
	} while (ms_now() < end);
	print_message("CPU %d PQR_ASSOC: wanted 0x%llx, last seen 0x%llx (%u reads)\n", cpu,
		      (unsigned long long)want, (unsigned long long)v, n);
	return false;
}

/* Run the emulator (RDTALLOC_TEST_MSRFS) on mnt for the host with caps. */
static bool msrfs_mount(const char *mnt, const char *caps)
{
	const char *bin = getenv("RDTALLOC_TEST_MSRFS");
	char cmd[512];

	if (!bin || !*bin)
		return false;
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --machine '%s'", bin, mnt, caps);
	assert_int_equal(system(cmd), 0);
	snprintf(msr_mnt, sizeof(msr_mnt), "%s", mnt);
	return true;
}

static void msrfs_unmount(void)
{
	char cmd[256];

	if (!msr_mnt[0])
		return;
	snprintf(cmd, sizeof(cmd), "fusermount3 -u -z '%s' 2>/dev/null", msr_mnt);
	if (system(cmd) != 0)
		print_message("could not unmount %s\n", msr_mnt);
	msr_mnt[0] = '\0';
}

/*
 * The msr driver's emulator on root/dev, CPU 1's PQR_ASSOC holding an RMID
 * that must survive, a mount table without resctrl (the agent inherits
 * RDTALLOC_MOUNTS) and a state directory root/state. False when this build
 * has no emulator (no libfuse3): the test is skipped and says so.
 */
static bool msr_fixture(char *root, char *dev, char *dir, size_t len, const char *caps)
{
	char mounts[128];
	FILE *f;

	assert_false(dir_exists(RDT_HOOK_DIR));
	test_dir(root, 64, "msr-");
	snprintf(dev, len, "%s/dev", root);
	assert_int_equal(mkdir(dev, 0700), 0);
	if (!msrfs_mount(dev, caps)) {
		remove_tree(root);
		return false;
	}
	msr_write(dev, CPU, PQR_ASSOC, RMID);
	snprintf(mounts, sizeof(mounts), "%s/mounts", root);
	f = fopen(mounts, "w");
	assert_non_null(f);
	fputs("proc /proc proc rw 0 0\n", f);
	fclose(f);
	snprintf(dir, len, "%s/state", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("RDTALLOC_MOUNTS", mounts, 1);
	return true;
}

static void msr_fixture_end(const char *root)
{
	unsetenv("RDTALLOC_MOUNTS");
	msrfs_unmount();
	remove_tree(root);
}

#define MSR_FIXTURE(root, dev, dir, caps)						\
	do {										\
		if (!msr_fixture(root, dev, dir, sizeof(dir), caps)) {			\
			print_message("[  SKIPPED ] no msr emulator "			\
				      "(RDTALLOC_TEST_MSRFS): built without libfuse3\n");	\
			if (strict())							\
				fail_msg("RDTALLOC_TEST_STRICT: this test may not skip");	\
			skip();								\
		}									\
	} while (0)

static void msr_tasks_through_the_hook(void **state)
{
	char root[64] = "/tmp/rdt-test-hook-msr-XXXXXX", dev[128], dir[128], name[64];
	uint64_t closid;
	rdtalloc_t *r;
	pid_t tids[8];

	SKIP_IF_NEEDED();
	MSR_FIXTURE(root, dev, dir, MSR_CAPS);
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "msr", .state_dir = dir, .machine = MSR_CAPS,
		      .msr_root = dev);
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_int_equal(msr_read(dev, CPU, PQR_ASSOC), RMID);
	assert_int_equal(rdtalloc_group_create(r, "m1"), 0);
	schema_on(r, "m1", "f");
	closid = closid_of(r, "m1");
	assert_int_equal(closid, 1);

	/* without the hook, tasks cannot be bound here */
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), -EOPNOTSUPP);
	assert_non_null(strstr(rdtalloc_errmsg(r), "hook start"));

	assert_int_equal(rdtalloc_hook_start(r), 0);
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), 0);
	assert_true(msr_shows(dev, CPU, closid << 32 | RMID, WITHIN_MS));
	assert_int_equal(rdtalloc_group_tasks(r, "m1", tids, 8), 1);
	assert_int_equal(tids[0], fx.child);
	assert_int_equal(rdtalloc_task_group(r, fx.child, name, sizeof(name)), 0);
	assert_string_equal(name, "m1");
	assert_int_equal(rdtalloc_bind_task(r, NULL, fx.child), 0);
	assert_true(msr_shows(dev, CPU, RMID, WITHIN_MS));
	assert_int_equal(rdtalloc_group_tasks(r, "m1", tids, 8), 0);

	/* stop: CPU 1 back to its own group's CLOSID (default), the bindings go too */
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), 0);
	assert_true(msr_shows(dev, CPU, closid << 32 | RMID, WITHIN_MS));
	assert_int_equal(rdtalloc_hook_stop(r), 0);
	assert_false(dir_exists(RDT_HOOK_DIR));
	assert_int_equal(msr_read(dev, CPU, PQR_ASSOC), RMID);
	assert_int_equal(rdtalloc_group_tasks(r, "m1", tids, 8), 0);
	assert_int_equal(rdtalloc_task_group(r, fx.child, name, sizeof(name)), 0);
	assert_string_equal(name, "default");
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), -EOPNOTSUPP);
	rdtalloc_close(r);
	msr_fixture_end(root);
}

/*
 * Where the machine monitors, a task runs with its group's RMID as well as
 * its CLOSID: the agent writes both fields of PQR_ASSOC at its switch-ins,
 * so that occupancy and bandwidth are counted per group, task by task.
 */
static void msr_task_rmids_through_the_hook(void **state)
{
	char root[64] = "/tmp/rdt-test-hook-msr-XXXXXX", dev[128], dir[128];
	int rmid1, rmid2, rmid0;
	uint64_t closid;
	rdtalloc_t *r;

	SKIP_IF_NEEDED();
	MSR_FIXTURE(root, dev, dir, MSR_MON_CAPS);
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "msr", .state_dir = dir,
		      .machine = MSR_MON_CAPS, .msr_root = dev);
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_int_equal(rdtalloc_group_create(r, "m1"), 0);
	assert_int_equal(rdtalloc_group_create(r, "m2"), 0);
	/* m2 shares default's CLOSID, and still has an RMID of its own */
	schema_on(r, "m1", "f");
	closid = closid_of(r, "m1");
	assert_int_equal(closid_of(r, "m2"), 0);
	assert_int_equal(rdtalloc_group_rmid(r, NULL, &rmid0), 0);
	assert_int_equal(rdtalloc_group_rmid(r, "m1", &rmid1), 0);
	assert_int_equal(rdtalloc_group_rmid(r, "m2", &rmid2), 0);
	assert_int_equal(rmid0, 0);
	assert_int_not_equal(rmid1, 0);
	assert_int_not_equal(rmid2, 0);
	assert_int_not_equal(rmid1, rmid2);
	/* CPU 1 belongs to default: its CLOSID 0 and RMID 0 */
	assert_int_equal(msr_read(dev, CPU, PQR_ASSOC), 0);

	assert_int_equal(rdtalloc_hook_start(r), 0);
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), 0);
	assert_true(msr_shows(dev, CPU, closid << 32 | rmid1, WITHIN_MS));
	assert_int_equal(rdtalloc_bind_task(r, "m2", fx.child), 0);
	assert_true(msr_shows(dev, CPU, rmid2, WITHIN_MS));
	assert_int_equal(rdtalloc_bind_task(r, NULL, fx.child), 0);
	assert_true(msr_shows(dev, CPU, 0, WITHIN_MS));
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), 0);
	assert_true(msr_shows(dev, CPU, closid << 32 | rmid1, WITHIN_MS));
	/* stop: CPU 1 back to its own group, both fields */
	assert_int_equal(rdtalloc_hook_stop(r), 0);
	assert_int_equal(msr_read(dev, CPU, PQR_ASSOC), 0);
	rdtalloc_close(r);
	msr_fixture_end(root);
}

/*
 * precedence=task: on a CPU bound to m2, the child (bound to m1) still runs
 * with m1's CLOSID, decided by the BPF program at each switch; a task with
 * no group of its own gets the CPU's.
 */
static void msr_task_precedence_through_the_hook(void **state)
{
	char root[64] = "/tmp/rdt-test-hook-prec-XXXXXX", dev[128], dir[128];
	char err[256] = "";
	struct rdt_hook *h;
	unsigned int k;
	rdtalloc_t *r;

	SKIP_IF_NEEDED();
	MSR_FIXTURE(root, dev, dir, MSR_CAPS);
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "msr", .state_dir = dir, .machine = MSR_CAPS,
		      .msr_root = dev, .precedence = RDTALLOC_PRECEDENCE_TASK);
	assert_int_equal(rdtalloc_open(&r, &o), 0);
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_TASK);
	assert_int_equal(rdtalloc_group_create(r, "m1"), 0);
	assert_int_equal(rdtalloc_group_create(r, "m2"), 0);
	schema_on(r, "m1", "f");
	schema_on(r, "m2", "f0");
	assert_int_equal(rdtalloc_hook_start(r), 0);
	assert_int_equal(rdt_hook_open(&h, err, sizeof(err)), 0);
	assert_int_equal(rdtalloc_bind_cpu(r, "m2", CPU), 0);
	assert_int_equal(rdtalloc_bind_task(r, "m1", fx.child), 0);
	/* the maps' answer, as the BPF program computes it */
	assert_int_equal(hook_closid_for(h, CPU, fx.child, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(hook_closid_for(h, CPU, getpid(), &k), 0);
	assert_int_equal(k, 2);
	assert_int_equal(rdtalloc_effective_closid(r, CPU, fx.child, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(rdtalloc_effective_closid(r, CPU, getpid(), &k), 0);
	assert_int_equal(k, 2);
	/* and the register: the child's switch-ins write m1's CLOSID on m2's CPU */
	assert_true(msr_shows(dev, CPU, 1ull << 32 | RMID, WITHIN_MS));
	/* back in default, the child runs with the CPU's group's */
	assert_int_equal(rdtalloc_bind_task(r, NULL, fx.child), 0);
	assert_true(msr_shows(dev, CPU, 2ull << 32 | RMID, WITHIN_MS));
	rdt_hook_close(h);
	assert_int_equal(rdtalloc_hook_stop(r), 0);
	rdtalloc_close(r);
	msr_fixture_end(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(groups_and_maps),
		cmocka_unit_test(bind_task_sets_pqr),
		cmocka_unit_test(cpu_bind_overrides),
		cmocka_unit_test(fork_and_thread_inherit),
		cmocka_unit_test(exited_tasks_in_no_group),
		cmocka_unit_test(agent_restart_keeps_bindings),
		cmocka_unit_test(counters_and_lag),
		cmocka_unit_test(refusals),
		cmocka_unit_test(failed_write_undoes_binding),
		cmocka_unit_test(maps_follow_every_change),
		cmocka_unit_test(stop_leaves_nothing),
		cmocka_unit_test(msr_tasks_through_the_hook),
		cmocka_unit_test(msr_task_precedence_through_the_hook),
		cmocka_unit_test(msr_task_rmids_through_the_hook),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
