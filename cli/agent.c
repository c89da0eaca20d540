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
#include <unistd.h>

#include "rdtctl.h"

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

static int agent_status(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], buf[4096], pid[32] = "";
	const char *sp;
	json_object *doc;
	rdtalloc_t *r;
	ssize_t n;
	bool running;
	int fd;

	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	sp = rdtalloc_state_path(r);
	if (!sp)
		return fail_msg("agent status: this state is ephemeral");
	snprintf(dir, sizeof(dir), "%s", sp);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
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
	doc = NULL;
	if (running) {
		snprintf(path, sizeof(path), "%s/agent.json", dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			buf[n > 0 ? n : 0] = '\0';
			close(fd);
			doc = json_tokener_parse(buf);
		}
	}
	if (!doc)
		doc = jobj();
	jset(doc, "running", json_object_new_boolean(running));
	if (running && !jget(doc, "pid"))
		jset(doc, "pid", jint(atoll(pid)));
	if (g_opts.json)
		return emit(doc, NULL);
	if (!running) {
		json_object_put(doc);
		printf("no agent serves %s (start one: rdtctl agent, or the rdtalloc-agent "
		       "service)\n", sp);
		return EXIT_OK;
	}
	printf("agent: pid %lld serving %s\n", jget_int(doc, "pid"), sp);
	if (jget(doc, "membership"))
		printf("joins: %s\nmetrics: %s\nsyncs: %lld (last at %.0f), repairs %lld, tasks "
		       "moved %lld, containers released %lld, errors %lld\n",
		       !strcmp(jget_str(doc, "membership"), "bpf") ?
		       "seen by the BPF program as they happen" :
		       "the fallback: a full sync at a fixed interval (no BPF)",
		       jget_str(doc, "listen") ? jget_str(doc, "listen") : "not served",
		       jget_int(doc, "syncs"), json_object_get_double(jget(doc, "last_sync")),
		       jget_int(doc, "repairs"), jget_int(doc, "tasks_moved"),
		       jget_int(doc, "containers_released"), jget_int(doc, "errors"));
	json_object_put(doc);
	return EXIT_OK;
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
