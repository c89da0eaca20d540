// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook: rdtctl hook start|stop|status|run - the eBPF switch hook that gives
 * tasks their CLOSID on every context switch (docs/hook.md). start loads it
 * and starts its agent as a daemon, run is the agent in the foreground (for
 * systemd: docs/rdtalloc-hook.service), stop takes everything down, status
 * says whether it runs and, with -j, what every CPU saw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static void print_change(json_object *doc)
{
	if (jget_bool(doc, "started"))
		printf("switch hook started (agent pid %lld)\n", jget_int(doc, "agent_pid"));
	else
		printf("switch hook stopped\n");
}

static int hook_start(int argc, char **argv)
{
	struct rdtalloc_hook_status st = { .sz = sizeof(st) };
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("hook start", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "hook start");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_hook_start(r);
	if (ret < 0)
		return fail_lib(r, ret);
	ret = rdtalloc_hook_get_status(r, &st);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "started", jbool(true));
	jset(doc, "agent_pid", jint(st.agent_pid));
	return emit_change(doc, print_change);
}

static int hook_stop(int argc, char **argv)
{
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("hook stop", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "hook stop");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_hook_stop(r);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "stopped", jbool(true));
	return emit_change(doc, print_change);
}

static volatile int run_stop;

static int hook_run(int argc, char **argv)
{
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("hook run", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "hook run");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	/* SIGTERM (systemd's stop) and SIGINT end it; the library catches both */
	ret = rdtalloc_hook_run(r, &run_stop);
	if (ret < 0)
		return fail_lib(r, ret);
	return EXIT_OK;
}

static json_object *cpu_doc(const struct rdtalloc_hook_cpu *c)
{
	json_object *o = jobj();

	jset(o, "cpu", jint(c->cpu));
	jset(o, "wanted", jint(c->wanted));
	jset(o, "applied", jint(c->applied));
	jset(o, "switches", jint((long long)c->switches));
	jset(o, "events", jint((long long)c->events));
	jset(o, "coalesced", jint((long long)c->coalesced));
	jset(o, "dropped", jint((long long)c->dropped));
	jset(o, "pqr_writes", jint((long long)c->pqr_writes));
	return o;
}

/* Per CPU counters, as a JSON array; NULL on failure (reported). */
static json_object *cpus_doc(rdtalloc_t *r, unsigned int ncpus)
{
	struct rdtalloc_hook_cpu *v = calloc(ncpus + 1, sizeof(*v));
	json_object *a;
	int n;

	if (!v) {
		fail_msg("out of memory");
		return NULL;
	}
	v[0].sz = sizeof(*v);
	n = rdtalloc_hook_cpus(r, v, ncpus);
	if (n < 0) {
		fail_lib(r, n);
		free(v);
		return NULL;
	}
	a = jarr();
	for (int i = 0; i < n && (unsigned int)i < ncpus; i++)
		jpush(a, cpu_doc(&v[i]));
	free(v);
	return a;
}

static void print_ns(const char *what, long long ns)
{
	if (ns >= 1000000)
		printf("%s %.2f ms", what, ns / 1e6);
	else
		printf("%s %.1f us", what, ns / 1e3);
}

static void print_status(json_object *doc)
{
	json_object *lag = jget(doc, "lag"), *cpus = jget(doc, "cpus");

	if (!jget_bool(doc, "loaded")) {
		printf("switch hook: not loaded\n");
		return;
	}
	if (jget_bool(doc, "agent_running"))
		printf("switch hook: running (agent pid %lld)\n", jget_int(doc, "agent_pid"));
	else
		printf("switch hook: loaded, no agent running (start one: rdtctl hook start)\n");
	printf("serving: %s (backend %s)\n", jget_str(doc, "served_dir"),
	       jget_str(doc, "served_backend"));
	if (jget_int(lag, "samples")) {
		printf("lag from switch-in to PQR_ASSOC write:");
		print_ns(" p50", jget_int(lag, "p50_ns"));
		print_ns(", p99", jget_int(lag, "p99_ns"));
		print_ns(", max", jget_int(lag, "max_ns"));
		printf(" (%lld samples)\n", jget_int(lag, "samples"));
	}
	printf("%4s %7s %8s %12s %10s %10s %11s\n", "CPU", "wanted", "applied", "switches",
	       "events", "coalesced", "pqr_writes");
	for (size_t i = 0; i < json_object_array_length(cpus); i++) {
		json_object *c = json_object_array_get_idx(cpus, i);

		printf("%4lld %7lld %8lld %12lld %10lld %10lld %11lld\n", jget_int(c, "cpu"),
		       jget_int(c, "wanted"), jget_int(c, "applied"), jget_int(c, "switches"),
		       jget_int(c, "events"), jget_int(c, "coalesced"), jget_int(c, "pqr_writes"));
	}
}

static int hook_status(int argc, char **argv)
{
	struct rdtalloc_hook_status st = { .sz = sizeof(st) };
	json_object *doc, *lag, *cpus;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("hook status", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "hook status");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_hook_get_status(r, &st);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "built", jbool(st.built));
	jset(doc, "loaded", jbool(st.loaded));
	jset(doc, "agent_running", jbool(st.agent_running));
	jset(doc, "agent_pid", jint(st.agent_pid));
	jset(doc, "ncpus", jint(st.ncpus));
	if (st.loaded) {
		jset(doc, "served_dir", jstr(st.served_dir));
		jset(doc, "served_backend", jstr(st.served_backend));
	} else {
		jset_null(doc, "served_dir");
		jset_null(doc, "served_backend");
	}
	lag = jobj();
	jset(lag, "samples", jint((long long)st.lag_samples));
	jset(lag, "p50_ns", jint((long long)st.lag_p50_ns));
	jset(lag, "p99_ns", jint((long long)st.lag_p99_ns));
	jset(lag, "max_ns", jint((long long)st.lag_max_ns));
	jset(doc, "lag", lag);
	cpus = st.loaded ? cpus_doc(r, st.ncpus) : jarr();
	if (!cpus) {
		json_object_put(doc);
		return EXIT_FAIL;
	}
	jset(doc, "cpus", cpus);
	return emit(doc, print_status);
}

static int hook_help(int argc, char **argv)
{
	printf("Usage: rdtctl hook start    load the switch hook, start its agent (a daemon)\n"
	       "       rdtctl hook stop     stop the agent, restore PQR_ASSOC, unload\n"
	       "       rdtctl hook status   running or not; per CPU counters and lag\n"
	       "       rdtctl hook run      the agent in the foreground (for systemd)\n");
	return EXIT_OK;
}

int do_hook(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "start", hook_start },
		{ "stop", hook_stop },
		{ "status", hook_status },
		{ "run", hook_run },
		{ "help", hook_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "hook", argc, argv);
}
