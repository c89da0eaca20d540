// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_agent: the agent's figures (issue 32), on the resctrl emulator with
 * real cgroups, 1,000 groups and 100 bound cgroups:
 *  - membership lag: a task written into a bound cgroup's cgroup.procs
 *    until the kernel lists it in its group's MON group (the emulator's
 *    tasks file polled), p50/p99/max over JOINS joins (target p99 <= 20 ms);
 *  - the agent's CPU time while idle over IDLE seconds (target <= 0.5 %
 *    of one core) and its RSS (target <= 32 MiB);
 *  - one scrape of /metrics (its time, and its size).
 * A target missed is printed as MISSED. Needs root, /dev/fuse, cgroup v2.
 *
 *  - CYCLES containers killed with their runtime (no poststop): no group,
 *    record or CLOSID left (the agent releases them).
 *
 * Usage: bench_agent [JOINS [IDLE_SECONDS [CYCLES]]]
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define GROUPS 1000
#define CGROUPS 100
#define PORT 29431
#define MACHINE "topology=package:2 l3:1 core:2 pu:1"

static char tmp[] = "/tmp/rdtctl-bench-agent.XXXXXX";
static char mnt[256], state[256], cgr[256], base[512];
static pid_t agent_pid;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd)) {
		fprintf(stderr, "bench_agent: '%s' failed\n", cmd);
		exit(1);
	}
}

static void cleanup(void)
{
	if (agent_pid > 0) {
		kill(agent_pid, SIGTERM);
		waitpid(agent_pid, NULL, 0);
	}
	if (base[0])
		system("for d in $(ls -d /sys/fs/cgroup/unified/rdtalloc-bench-agent-* "
		       "/sys/fs/cgroup/rdtalloc-bench-agent-* 2>/dev/null); do "
		       "for c in $d/cg*; do [ -d $c ] && { cat $c/cgroup.procs | while read p; "
		       "do kill -9 $p 2>/dev/null; done; sleep 0.05; rmdir $c; }; done; "
		       "rmdir $d; done 2>/dev/null");
	if (mnt[0]) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "fusermount3 -u -z %s 2>/dev/null; rm -rf %s", mnt, tmp);
		system(cmd);
	}
}

static int cgroup2(char *buf, size_t len)
{
	char dev[256], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int ret = -1;

	while (f && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			ret = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/* Is pid listed in the tasks file? */
static int listed(const char *path, pid_t pid)
{
	char line[32];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = atoi(line) == pid;
	fclose(f);
	return found;
}

/* The MON group tasks file of group gN, as the agent's state made it. */
static void mon_tasks(int g, char *buf, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(mnt);
	struct stat sb;

	buf[0] = '\0';
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "rdtalloc-", 9))
			continue;
		if (snprintf(buf, len, "%.200s/%.64s/mon_groups/g%d/tasks", mnt, e->d_name, g) > 0 &&
		    !stat(buf, &sb))
			break;
		buf[0] = '\0';
	}
	if (d)
		closedir(d);
}

static double ticks_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		exit(1);
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
			 &st) != 2)
		exit(1);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

static char g_body[1 << 20];

/* GET /metrics: seconds, and the bytes in *size; the body kept in g_body. */
static double scrape(size_t *size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	char buf[65536];
	double t0 = bench_now();
	ssize_t n;
	int fd;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		fprintf(stderr, "bench_agent: cannot scrape\n");
		exit(1);
	}
	*size = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (*size + (size_t)n < sizeof(g_body))
			memcpy(g_body + *size, buf, (size_t)n);
		*size += (size_t)n;
	}
	g_body[*size < sizeof(g_body) ? *size : sizeof(g_body) - 1] = '\0';
	close(fd);
	return bench_now() - t0;
}

/* Lines of out matching what (a fixed string), from a shell command. */
static long count_of(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	long n = -1;

	if (p && fscanf(p, "%ld", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/*
 * Containers killed with their runtime: each cycle makes a cgroup, starts
 * a process in it, runs the OCI hook's createRuntime for it (a group made
 * for it), then kills the process with SIGKILL and removes the cgroup -
 * no poststop ever runs. The agent releases them: afterwards no group, no
 * record and no CLOSID beyond the start.
 */
static void leak(int cycles)
{
	char cg[4096], procs[4200], json[512], st[300], *argv_[8];
	long g0, c0, g1, c1, r1;
	double t0 = bench_now();
	int k, w;

	snprintf(st, sizeof(st), "%s/state.json", state);
	snprintf(json, sizeof(json), "%s/ctr.json", tmp);
	snprintf(cg, sizeof(cg), "%s --backend resctrl --resctrl-root %s --state-dir %s group list "
		 "| wc -l", RDTCTL_PATH, mnt, state);
	g0 = count_of(cg);
	snprintf(cg, sizeof(cg), "ls -d %s/rdtalloc-* | wc -l", mnt);
	c0 = count_of(cg);
	argv_[0] = RDTCTL_PATH;
	argv_[1] = "--backend";
	argv_[2] = "resctrl";
	argv_[3] = "--resctrl-root";
	argv_[4] = mnt;
	argv_[5] = "--state-dir";
	argv_[6] = state;
	argv_[7] = NULL;
	for (k = 0; k < cycles; k++) {
		char *av[] = { argv_[0], argv_[1], argv_[2], argv_[3], argv_[4], argv_[5], argv_[6],
			       "oci-hook", "createRuntime", NULL };
		pid_t child;
		FILE *f;

		snprintf(cg, sizeof(cg), "%s/leak", base);
		mkdir(cg, 0755);
		child = fork();
		if (!child) {
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
			f = fopen(procs, "w");
			if (f) {
				fprintf(f, "%d\n", (int)getpid());
				fclose(f);
			}
			pause();
			_exit(0);
		}
		/* the child in its cgroup before the hook looks */
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
		for (w = 0; w < 1000 && !listed(procs, child); w++)
			usleep(100);
		f = fopen(json, "w");
		fprintf(f, "{\"ociVersion\": \"1.0.2\", \"id\": \"leak%d\", \"status\": "
			"\"creating\", \"pid\": %d, \"bundle\": \"/b\", \"annotations\": "
			"{\"rdtalloc.group\": \"leak%d\", \"rdtalloc.schema\": \"L3:0=%x\"}}", k,
			(int)child, k, 1u << (k % 16));
		fclose(f);
		bench_spawn(av, json);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		while (rmdir(cg) && errno == EBUSY)
			usleep(100);
	}
	t0 = bench_now() - t0;
	/* the agent checks every second: give it two */
	sleep(2);
	snprintf(cg, sizeof(cg), "%s --backend resctrl --resctrl-root %s --state-dir %s group list "
		 "| wc -l", RDTCTL_PATH, mnt, state);
	g1 = count_of(cg);
	snprintf(cg, sizeof(cg), "ls -d %s/rdtalloc-* | wc -l", mnt);
	c1 = count_of(cg);
	snprintf(cg, sizeof(cg), "grep -o '\"id\":\"leak' %s | wc -l", st);
	r1 = count_of(cg);
	printf("%d containers killed without poststop (%.1f s): groups %ld -> %ld, container "
	       "records %ld, control groups (CLOSIDs) %ld -> %ld; target no leak: %s\n", cycles,
	       t0, g0, g1, r1, c0, c1, g1 == g0 && r1 == 0 && c1 == c0 ? "met" : "MISSED");
}

int main(int argc, char **argv)
{
	int joins = argc > 1 ? atoi(argv[1]) : 1000, idle = argc > 2 ? atoi(argv[2]) : 60;
	int cycles = argc > 3 ? atoi(argv[3]) : 10000;
	double *lag = calloc((size_t)joins, sizeof(double)), t0, c0, s[20];
	char path[1024], tasks[CGROUPS][512], json[512];
	struct stat sb;
	size_t bytes = 0;
	FILE *f;
	int i, k;

	if (geteuid() || !lag || joins < 10 || idle < 1 || cgroup2(cgr, sizeof(cgr))) {
		fprintf(stderr, "usage: bench_agent [JOINS>=10 [IDLE_SECONDS]] (as root, cgroup v2)\n");
		return 2;
	}
	if (!mkdtemp(tmp))
		return 1;
	atexit(cleanup);
	snprintf(mnt, sizeof(mnt), "%s/resctrl", tmp);
	snprintf(state, sizeof(state), "%s/state", tmp);
	snprintf(base, sizeof(base), "%s/rdtalloc-bench-agent-%d", cgr, (int)getpid());
	sh("mkdir -p %s %s && %s %s --machine '%s'", mnt, state, RESCTRLFS_PATH, mnt, MACHINE);
	/* 1,000 groups on 4 schemas; g1..g100 (the oldest: they hold RMIDs) bound to cgroups */
	snprintf(path, sizeof(path), "%s/groups.conf", tmp);
	f = fopen(path, "w");
	sh("mkdir %s", base);
	for (i = 0; i < CGROUPS; i++)
		sh("mkdir %s/cg%d", base, i);
	for (i = 1; i <= GROUPS; i++) {
		fprintf(f, "group g%d\n  schema L3:0=%s\n", i, (const char *[]){ "1", "3", "f",
										  "ff" }[i % 4]);
		if (i <= CGROUPS)
			fprintf(f, "  cgroup %s/cg%d\n", base + strlen(cgr) + 1, i - 1);
	}
	fclose(f);
	sh("%s --backend resctrl --resctrl-root %s --state-dir %s --machine '%s' -q apply %s",
	   RDTCTL_PATH, mnt, state, MACHINE, path);
	for (i = 0; i < CGROUPS; i++) {
		mon_tasks(i + 1, tasks[i], sizeof(tasks[i]));
		if (!tasks[i][0]) {
			fprintf(stderr, "bench_agent: group g%d has no MON group\n", i + 1);
			return 1;
		}
	}
	agent_pid = fork();
	if (!agent_pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		execl(AGENT_PATH, AGENT_PATH, "--backend", "resctrl", "--resctrl-root", mnt,
		      "--state-dir", state, "--listen", "127.0.0.1:29431", (char *)NULL);
		_exit(127);
	}
	snprintf(json, sizeof(json), "%s/agent.json", state);
	for (i = 0; i < 400 && stat(json, &sb); i++)
		usleep(25000);
	if (stat(json, &sb)) {
		fprintf(stderr, "bench_agent: the agent did not start\n");
		return 1;
	}

	/* membership lag */
	for (k = 0; k < joins; k++) {
		int cg = k % CGROUPS;
		pid_t child = fork();

		if (!child) {
			pause();
			_exit(0);
		}
		snprintf(path, sizeof(path), "%s/cg%d/cgroup.procs", base, cg);
		f = fopen(path, "w");
		t0 = bench_now();
		fprintf(f, "%d\n", (int)child);
		fclose(f);
		/* polled every ms: a busy loop would take the CPU the agent and the emulator need */
		while (!listed(tasks[cg], child) && bench_now() - t0 < 5)
			usleep(1000);
		lag[k] = bench_now() - t0;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	qsort(lag, (size_t)joins, sizeof(*lag), bench_cmp_double);
	printf("membership lag over %d joins (cgroup.procs write -> in the group's MON group): "
	       "p50 %.2f ms, p99 %.2f ms, max %.2f ms; target p99 <= 20 ms: %s\n", joins,
	       lag[joins / 2] * 1e3, lag[joins * 99 / 100] * 1e3, lag[joins - 1] * 1e3,
	       lag[joins * 99 / 100] <= 0.020 ? "met" : "MISSED");

	/*
	 * The agent's own view: from the kernel's join (the BPF event's time)
	 * to the write into the group, its histogram's buckets.
	 */
	scrape(&bytes);
	{
		const char *p = g_body, *key = "rdtalloc_agent_membership_lag_seconds_bucket{le=\"";
		double le, total = 0, within20 = 0, p50 = -1, p99 = -1;
		double les[16], cnt[16];
		int nb = 0;

		while ((p = strstr(p, key)) && nb < 16) {
			p += strlen(key);
			le = !strncmp(p, "+Inf", 4) ? 1e9 : strtod(p, NULL);
			les[nb] = le;
			cnt[nb++] = strtod(strchr(p, ' ') + 1, NULL);
		}
		total = nb ? cnt[nb - 1] : 0;
		for (i = 0; i < nb; i++) {
			if (les[i] <= 0.020)
				within20 = cnt[i];
			if (p50 < 0 && cnt[i] >= total * 0.5)
				p50 = les[i];
			if (p99 < 0 && cnt[i] >= total * 0.99)
				p99 = les[i];
		}
		printf("membership lag as the agent measures it (the kernel's join -> the write), "
		       "%.0f joins: p50 <= %g ms, p99 <= %g ms (histogram bounds), %.1f %% within "
		       "20 ms\n", total, p50 * 1e3, p99 * 1e3,
		       total ? 100 * within20 / total : 0);
	}

	/* idle */
	sleep(2);
	c0 = ticks_of(agent_pid);
	t0 = bench_now();
	sleep((unsigned int)idle);
	c0 = ticks_of(agent_pid) - c0;
	t0 = bench_now() - t0;
	printf("agent idle over %.0f s with %d groups and %d bound cgroups: %.3f %% of one core; "
	       "target <= 0.5 %%: %s\n", t0, GROUPS, CGROUPS, 100 * c0 / t0,
	       100 * c0 / t0 <= 0.5 ? "met" : "MISSED");
	printf("agent RSS: %.1f MiB; target <= 32 MiB: %s\n", rss_kib(agent_pid) / 1024.0,
	       rss_kib(agent_pid) <= 32 * 1024 ? "met" : "MISSED");

	for (i = 0; i < 20; i++)
		s[i] = scrape(&bytes);
	printf("one scrape of /metrics at %d groups: median %.2f ms (%zu bytes)\n", GROUPS,
	       bench_median(s, 20) * 1e3, bytes);
	leak(cycles);
	return 0;
}
