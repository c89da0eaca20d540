// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent: `rdtctl agent [ARGS]` runs rdtalloc-agent for this state (the
 * global options passed on), `rdtctl agent status` says whether one serves
 * it and what it has done (agent.json beside the state). The agent is a
 * program of its own (agent/): rdtctl, which every container start runs
 * as the OCI hook, stays free of an HTTP server and of libsystemd.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "rdtctl.h"

#define STATUS_MAX (1u << 20)	/* bytes of agent.json read */

/* $RDTALLOC_AGENT, else rdtalloc-agent beside rdtctl (or in a build tree's agent/), else PATH. */
static void agent_path(char *buf, size_t len)
{
	const char *env = getenv("RDTALLOC_AGENT");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(buf, len, "%.*s/rdtalloc-agent", (int)(len - 32), self) > 0 &&
			    !access(buf, X_OK))
				return;
			if (snprintf(buf, len, "%.*s/../agent/rdtalloc-agent", (int)(len - 32),
				     self) > 0 && !access(buf, X_OK))
				return;
		}
	}
	snprintf(buf, len, "rdtalloc-agent");
}

/* LSB: the program is not running (`rdtctl agent status` without an agent). */
#define EXIT_NOT_RUNNING 3

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "0.9 s", "4 min 12 s", "3 h 5 min", "2 d 7 h": how long ago, for people. */
static void ago(double t, char *buf, size_t len)
{
	double s = wall_now() - t;
	long long n = (long long)s;

	if (t <= 0)
		snprintf(buf, len, "never");
	else if (s < 60)
		snprintf(buf, len, "%.1f s ago", s < 0 ? 0 : s);
	else if (n < 3600)
		snprintf(buf, len, "%lld min %lld s ago", n / 60, n % 60);
	else if (n < 86400)
		snprintf(buf, len, "%lld h %lld min ago", n / 3600, n % 3600 / 60);
	else
		snprintf(buf, len, "%lld d %lld h ago", n / 86400, n % 86400 / 3600);
}

/*
 * Where the open would keep the state, when it failed: --state-dir, else
 * the named backend's default directory (with auto, the backend is the
 * open's choice, unknown after a failed open).
 */
static int dir_without_open(char *dir, size_t len)
{
	const char *be = g_opts.backend ? g_opts.backend : getenv("RDTALLOC_BACKEND");
	int n;

	if (g_opts.state_dir) {
		snprintf(dir, len, "%s", g_opts.state_dir);
		return 0;
	}
	if (!be || !*be || !strcmp(be, "auto"))
		return -ENOENT;
	n = rdtalloc_default_state_dir(be, dir, len);
	return n < 0 ? n : (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * The state's directory. A state this rdtctl cannot open (its backend
 * fails here, or is not the agent's) may still have an agent: its answer
 * is read where the state is kept (dir_without_open), and the open's error
 * is only a warning.
 */
static int state_dir_of(char *dir, size_t len)
{
	char why[512];
	struct rdtalloc_opts o;
	rdtalloc_t *r;
	const char *sp;
	int ret;

	ctx_opts(&o, RDTALLOC_F_READ_ONLY | RDTALLOC_F_SNAPSHOT);
	ret = rdtalloc_open(&r, &o);
	if (ret) {
		snprintf(why, sizeof(why), "%s", rdtalloc_errmsg(NULL));
		if (dir_without_open(dir, len))
			return fail_errno(-ret, "%s", why[0] ? why : rdtalloc_strerror(ret));
		if (!g_opts.quiet)
			fprintf(stderr, "rdtctl: warning: %s\n", why);
		return EXIT_OK;
	}
	sp = rdtalloc_state_path(r);
	if (!sp) {
		rdtalloc_close(r);
		return fail_msg("agent status: this state is ephemeral");
	}
	snprintf(dir, len, "%s", sp);
	rdtalloc_close(r);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	return EXIT_OK;
}

/* The agent's agent.json, NULL when none can be read. */
static json_object *read_status(const char *dir)
{
	char path[PATH_MAX + 16], *buf;
	size_t n = 0;
	ssize_t got;
	json_object *doc = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/agent.json", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	buf = malloc(STATUS_MAX + 1);
	while (buf && n < STATUS_MAX && (got = read(fd, buf + n, STATUS_MAX - n)) > 0)
		n += (size_t)got;
	close(fd);
	if (buf) {
		buf[n] = '\0';
		doc = json_tokener_parse(buf);
	}
	free(buf);
	return doc;
}

/* Each controller the agent reported: its domain, groups and last decision. */
static void print_controllers(json_object *doc)
{
	json_object *cs = jget(doc, "controllers");
	size_t n = cs ? json_object_array_length(cs) : 0;
	char when[64];

	if (!n) {
		printf("controllers: none configured (rdtctl control set)\n");
		return;
	}
	if (!json_object_get_boolean(jget(doc, "control")))
		printf("controllers: configured, not run by this agent (start it with "
		       "--control)\n");
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cs, i), *gs = jget(c, "groups");
		json_object *d = jget(c, "last_decision");

		printf("controller: domain %lld: groups ", jget_int(c, "domain"));
		for (size_t k = 0; gs && k < json_object_array_length(gs); k++)
			printf("%s%s", k ? ", " : "",
			       json_object_get_string(json_object_array_get_idx(gs, k)));
		if (!d) {
			printf("; no decision yet\n");
			continue;
		}
		ago(json_object_get_double(jget(d, "at")), when, sizeof(when));
		printf("; last decision %s (after interval %lld): %s: %s\n", when,
		       jget_int(d, "interval"), jget_str(d, "action"), jget_str(d, "reason"));
	}
}

static void print_status(json_object *doc, const char *dir)
{
	char sync[64], started[64];

	ago(json_object_get_double(jget(doc, "last_sync")), sync, sizeof(sync));
	ago(json_object_get_double(jget(doc, "started")), started, sizeof(started));
	printf("agent: pid %lld serving %s (rdtalloc-agent %s, backend %s%s)\n",
	       jget_int(doc, "pid"), jget_str(doc, "state") ? jget_str(doc, "state") : dir,
	       jget_str(doc, "version") ? jget_str(doc, "version") : "before 0.7",
	       jget_str(doc, "backend") ? jget_str(doc, "backend") : "unknown",
	       jget_str(doc, "backend") && !strcmp(jget_str(doc, "backend"), "sim") ?
	       ": simulated, nothing is partitioned" : "");
	if (!jget(doc, "membership"))
		return;		/* started, its first agent.json not written yet */
	printf("joins: %s\nmetrics: %s\nlast sync %s; started %s\n"
	       "syncs %lld, repairs %lld, tasks moved %lld, bindings dropped %lld, containers "
	       "released %lld, errors %lld\n",
	       !strcmp(jget_str(doc, "membership"), "bpf") ?
	       "seen by the BPF program as they happen" :
	       "the fallback: a full sync at a fixed interval (no BPF)",
	       jget_str(doc, "listen") ? jget_str(doc, "listen") : "not served", sync, started,
	       jget_int(doc, "syncs"), jget_int(doc, "repairs"), jget_int(doc, "tasks_moved"),
	       jget_int(doc, "dropped"), jget_int(doc, "containers_released"),
	       jget_int(doc, "errors"));
	if (jget(doc, "strays_left"))	/* 0.8: an older agent does not count them */
		printf("tasks of bound cgroups in other tools' resctrl groups: %lld left there "
		       "(at the last sync), %lld moved back\n", jget_int(doc, "strays_left"),
		       jget_int(doc, "strays_moved"));
	if (jget_str(doc, "last_error") && *jget_str(doc, "last_error"))
		printf("last error: %s\n", jget_str(doc, "last_error"));
	print_controllers(doc);
}

static int agent_status(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], pid[32] = "";
	json_object *doc = NULL;
	ssize_t n;
	bool running;
	int fd, ret;

	ret = state_dir_of(dir, sizeof(dir));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/agent.pid", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* the agent holds the lock while it lives: a lock we can take means none runs */
	running = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (fd >= 0) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
	}
	if (running)
		doc = read_status(dir);
	if (!doc)
		doc = jobj();
	jset(doc, "running", json_object_new_boolean(running));
	if (running && !jget(doc, "pid"))
		jset(doc, "pid", jint(atoll(pid)));
	if (g_opts.json) {
		ret = emit(doc, NULL);
		return ret ? ret : running ? EXIT_OK : EXIT_NOT_RUNNING;
	}
	if (!running)
		printf("no agent serves %s/state.json (start one: rdtctl agent, or the "
		       "rdtalloc-agent service)\n", dir);
	else
		print_status(doc, dir);
	json_object_put(doc);
	return running ? EXIT_OK : EXIT_NOT_RUNNING;
}

int do_agent(int argc, char **argv)
{
	char prog[PATH_MAX], *args[64];
	int n = 0, i;

	if (argc >= 1 && !strcmp(argv[0], "status")) {
		if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
			return cmd_help("agent", "status");
		if (argc > 1)
			return usage_error("agent status takes no arguments");
		return agent_status();
	}
	agent_path(prog, sizeof(prog));
	args[n++] = prog;
	if (g_opts.backend) {
		args[n++] = "--backend";
		args[n++] = (char *)g_opts.backend;
	}
	if (g_opts.state_dir) {
		args[n++] = "--state-dir";
		args[n++] = (char *)g_opts.state_dir;
	}
	if (g_opts.machine) {
		args[n++] = "--machine";
		args[n++] = (char *)g_opts.machine;
	}
	if (g_opts.resctrl_root) {
		args[n++] = "--resctrl-root";
		args[n++] = (char *)g_opts.resctrl_root;
	}
	if (g_opts.msr_root) {
		args[n++] = "--msr-root";
		args[n++] = (char *)g_opts.msr_root;
	}
	for (i = 0; i < argc && n < 63; i++)
		args[n++] = argv[i];
	if (i < argc)
		return usage_error("agent: too many arguments");
	args[n] = NULL;
	execvp(prog, args);
	return fail_msg("agent: cannot run %s: %s (install rdtalloc-agent, or set "
			"RDTALLOC_AGENT)", prog, strerror(errno));
}
