// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control: the closed-loop controller (docs/control.md) - a simulated run
 * on traces (sim-run, also spelled --sim-run), the configuration kept in
 * the state (set, show, clear) and the live loop (run).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

#define MAX RDTALLOC_CONTROL_MAX

struct control_args {
	const char *bound[MAX], *exclusive[MAX], *statics[MAX];
	int nbound, nexclusive, nstatic;
};

static int add_arg(const char **list, int *n, const char *what, const char *v)
{
	if (!*v)
		return usage_error("control: %s needs a value", what);
	if (*n >= MAX)
		return usage_error("control: more than %d %s", MAX, what);
	list[(*n)++] = v;
	return 0;
}

/* --bound, --exclusive and --static may repeat: out of argv before parse_flags. */
static int take_repeated(int *argc, char **argv, struct control_args *ca)
{
	int i, out = 0, ret = 0;
	const char *v;

	for (i = 0; i < *argc && !ret; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if ((v = flag_repeated("--bound", *argc, argv, &i)))
			ret = add_arg(ca->bound, &ca->nbound, "--bound", v);
		else if ((v = flag_repeated("--exclusive", *argc, argv, &i)))
			ret = add_arg(ca->exclusive, &ca->nexclusive, "--exclusive", v);
		else if ((v = flag_repeated("--static", *argc, argv, &i)))
			ret = add_arg(ca->statics, &ca->nstatic, "--static", v);
		else
			argv[out++] = argv[i];
	}
	*argc = out;
	return ret;
}

static int parse_u64(const char *what, const char *text, int base, uint64_t lo, uint64_t hi,
		     uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!text || !*text || *text == '-')
		return usage_error("%s '%s': give a number from %" PRIu64 " to %" PRIu64, what,
				   text ? text : "", lo, hi);
	v = strtoull(text, &end, base);
	if (errno || end == text || *end || v < lo || v > hi)
		return usage_error("%s '%s': give a number from %" PRIu64 " to %" PRIu64, what,
				   text, lo, hi);
	*out = v;
	return 0;
}

static int ctl_group_index(struct rdtalloc_control_group *g, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(g[i].group) == len && !strncmp(g[i].group, name, len))
			return i;
	return -1;
}

/*
 * --bound GROUP=RATIO (a miss ratio, below 1) or GROUP=BYTES/s (memory
 * traffic, "200M/s"), --exclusive GROUP, --static GROUP=MASK on the groups.
 */
static int apply_goals(struct control_args *ca, struct rdtalloc_control_group *g, int n)
{
	int i, k;

	for (i = 0; i < ca->nbound; i++) {
		const char *eq = strchr(ca->bound[i], '=');
		char *end;
		double v;

		k = eq ? ctl_group_index(g, n, ca->bound[i], (size_t)(eq - ca->bound[i])) : -1;
		if (k < 0)
			return usage_error("control: --bound '%s': give GROUP=RATIO or "
					   "GROUP=BYTES/s, a group of the controller",
					   ca->bound[i]);
		if (strstr(eq + 1, "/s")) {
			if (parse_size(eq + 1, true, &g[k].bound_bytes_per_sec) ||
			    !g[k].bound_bytes_per_sec)
				return usage_error("control: --bound '%s': give bytes per second, "
						   "e.g. 200M/s", ca->bound[i]);
			continue;
		}
		errno = 0;
		v = strtod(eq + 1, &end);
		if (errno || end == eq + 1 || *end || !(v > 0 && v < 1))
			return usage_error("control: --bound '%s': a miss ratio above 0 and "
					   "below 1 (or BYTES/s)", ca->bound[i]);
		g[k].bound_miss_ratio = v;
	}
	for (i = 0; i < ca->nexclusive; i++) {
		k = ctl_group_index(g, n, ca->exclusive[i], strlen(ca->exclusive[i]));
		if (k < 0)
			return usage_error("control: --exclusive %s: not a group of the controller",
					   ca->exclusive[i]);
		g[k].exclusive = 1;
	}
	for (i = 0; i < ca->nstatic; i++) {
		const char *eq = strchr(ca->statics[i], '=');
		int ret;

		k = eq ? ctl_group_index(g, n, ca->statics[i], (size_t)(eq - ca->statics[i])) : -1;
		if (k < 0)
			return usage_error("control: --static '%s': give GROUP=MASK (hex), a group "
					   "of the run", ca->statics[i]);
		ret = parse_u64("--static mask", eq + 1, 16, 1, UINT64_MAX, &g[k].mask);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- sim-run ------------------------------------------------------------------ */

struct sim_out {
	bool json;
	uint64_t totals[MAX], intervals;
	size_t n;
};

static int print_record(const struct rdtalloc_control_record *rec, void *arg)
{
	struct sim_out *o = arg;
	char schema[64];

	if (rec->kind == RDTALLOC_CONTROL_DECISION) {
		json_object *d;

		if (!o->json) {
			printf("  after %" PRIu64 ": %s%s%s: %s\n", rec->interval, rec->action,
			       rec->group ? " " : "", rec->group ? rec->group : "", rec->reason);
			return 0;
		}
		d = jobj();
		jset(d, "decision", json_object_new_string(rec->action));
		jset(d, "after_interval", json_object_new_int64((int64_t)rec->interval));
		if (rec->group)
			jset(d, "group", json_object_new_string(rec->group));
		else
			jset_null(d, "group");
		jset(d, "reason", json_object_new_string(rec->reason));
		jset(d, "base_misses", json_object_new_int64((int64_t)rec->base));
		jset(d, "measured_misses", json_object_new_int64((int64_t)rec->measured));
		jset(d, "margin", json_object_new_int64((int64_t)rec->margin));
		puts(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(d);
		return 0;
	}
	o->intervals = rec->interval + 1;
	o->n = rec->ngroups;
	if (o->json) {
		json_object *doc = jobj(), *gs = json_object_new_array();

		jset(doc, "interval", json_object_new_int64((int64_t)rec->interval));
		for (size_t i = 0; i < rec->ngroups; i++) {
			const struct rdtalloc_control_sample *s = &rec->groups[i];
			json_object *g = jobj();

			snprintf(schema, sizeof(schema), "L3:%u=%" PRIx64, rec->cache_id, s->mask);
			jset(g, "group", json_object_new_string(s->group));
			jset(g, "schema", json_object_new_string(schema));
			jset(g, "accesses", json_object_new_int64((int64_t)s->accesses));
			jset(g, "misses", json_object_new_int64((int64_t)s->misses));
			jset(g, "llc_occupancy_bytes", json_object_new_int64((int64_t)s->llc_occupancy));
			jset(g, "mbm_total_bytes", json_object_new_int64((int64_t)s->mbm_total));
			json_object_array_add(gs, g);
		}
		jset(doc, "groups", gs);
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
		return 0;
	}
	printf("interval %" PRIu64 ":", rec->interval);
	for (size_t i = 0; i < rec->ngroups; i++) {
		const struct rdtalloc_control_sample *s = &rec->groups[i];

		o->totals[i] += s->misses;
		printf(" %s L3:%u=%" PRIx64 " %" PRIu64, s->group, rec->cache_id, s->mask,
		       s->misses);
		/* live, without perf events, the accesses are not known */
		if (s->accesses || !s->misses)
			printf("/%" PRIu64, s->accesses);
		printf(" missed%s", i + 1 < rec->ngroups ? "," : "\n");
	}
	return 0;
}

/* GROUP=TRACE[,TRACE...]: the group's phases, in order. */
static int parse_phases(char *arg, struct rdtalloc_control_group *g, const char **paths,
			size_t *used, size_t room)
{
	char *eq = strchr(arg, '='), *p, *save = NULL;

	if (!eq || eq == arg || !eq[1])
		return usage_error("control sim-run: '%s' is not GROUP=TRACE[,TRACE...]", arg);
	*eq = '\0';
	g->sz = sizeof(*g);
	g->group = arg;
	g->traces = &paths[*used];
	for (p = strtok_r(eq + 1, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (g->ntraces >= RDTALLOC_CONTROL_PHASES_MAX || *used >= room)
			return usage_error("control sim-run: group %s: at most %d traces", arg,
					   RDTALLOC_CONTROL_PHASES_MAX);
		paths[(*used)++] = p;
		g->ntraces++;
	}
	if (!g->ntraces)
		return usage_error("control sim-run: group %s: no trace", arg);
	return 0;
}

static int control_sim_run(int argc, char **argv)
{
	const char *k = NULL, *cnt = NULL, *dom = NULL, *avoid = NULL, *wpm = NULL, *ms = NULL;
	bool off = false, instr = false;
	struct flag flags[] = {
		{ "--interval-accesses", NULL, &k }, { "--intervals", NULL, &cnt },
		{ "--domain", NULL, &dom }, { "--avoid", NULL, &avoid },
		{ "--writes-per-minute", NULL, &wpm }, { "--interval-ms", NULL, &ms },
		{ "--no-control", &off, NULL }, { "--instr", &instr, NULL }, { NULL },
	};
	const char *syn = "control sim-run --interval-accesses K [--intervals N] [--domain ID] "
			  "[--instr] [--avoid MASK] [--writes-per-minute N] [--interval-ms MS] "
			  "[--bound GROUP=RATIO|GROUP=BYTES/s]... [--exclusive GROUP]... "
			  "[--no-control | --static GROUP=MASK...] GROUP=TRACE[,TRACE...]...";
	static const char *paths[MAX * RDTALLOC_CONTROL_PHASES_MAX];
	struct rdtalloc_control_conf conf = { .sz = sizeof(conf) };
	struct rdtalloc_control_group g[MAX];
	struct control_args ca = { 0 };
	struct sim_out out = { .json = g_opts.json };
	uint64_t v;
	size_t used = 0;
	rdtalloc_t *r;
	int ret, i;

	ret = take_repeated(&argc, argv, &ca);
	if (!ret)
		ret = parse_flags("control sim-run", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, syn);
	if (argc > MAX)
		return usage_error("control sim-run: %d groups, at most %d", argc, MAX);
	if (!k)
		return usage_error("control sim-run needs --interval-accesses K: usage: rdtctl %s",
				   syn);
	if ((ret = parse_u64("--interval-accesses", k, 10, 1, 1ull << 40,
			     &conf.interval_accesses)) ||
	    (cnt && (ret = parse_u64("--intervals", cnt, 10, 1, UINT32_MAX, &conf.intervals))) ||
	    (avoid && (ret = parse_u64("--avoid", avoid, 16, 0, UINT64_MAX, &conf.avoid))) ||
	    (wpm && (ret = parse_u64("--writes-per-minute", wpm, 10, 1, 1000000, &v))) ||
	    (ret = parse_domain(dom, &conf.cache_id)))
		return ret;
	conf.writes_per_minute = wpm ? (unsigned int)v : 0;
	if (ms && (ret = parse_u64("--interval-ms", ms, 10, 1, 3600000, &v)))
		return ret;
	conf.interval_ms = ms ? (unsigned int)v : 0;
	if (off && ca.nstatic)
		return usage_error("control sim-run: --no-control or --static, not both");
	conf.flags = (off ? RDTALLOC_CONTROL_OFF : 0) |
		     (ca.nstatic ? RDTALLOC_CONTROL_STATIC : 0) |
		     (instr ? RDTALLOC_CONTROL_INSTR : 0);
	memset(g, 0, sizeof(g));
	for (i = 0; i < argc; i++) {
		ret = parse_phases(argv[i], &g[i], paths, &used, sizeof(paths) / sizeof(paths[0]));
		if (ret)
			return ret;
		if (ctl_group_index(g, i, g[i].group, strlen(g[i].group)) >= 0)
			return usage_error("control sim-run: group %s is given twice", g[i].group);
	}
	ret = apply_goals(&ca, g, argc);
	if (ret)
		return ret;
	r = ctx_ro();	/* what-if: nothing created, bound or written */
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_control_sim_run(r, &conf, (size_t)argc, g, print_record, &out);
	if (ret)
		return fail_lib(r, ret);
	if (!out.json) {
		uint64_t sum = 0;

		printf("%" PRIu64 " intervals; misses:", out.intervals);
		for (i = 0; i < argc; i++) {
			printf(" %s %" PRIu64 ",", g[i].group, out.totals[i]);
			sum += out.totals[i];
		}
		printf(" in all %" PRIu64 "\n", sum);
	}
	return EXIT_OK;
}

/* ---- the kept configuration, and the live loop -------------------------------- */

/* schemata writes a minute at most when --writes-per-minute is not given (docs/control.md) */
#define WPM_DEFAULT 60

static int control_set(int argc, char **argv)
{
	const char *dom = NULL, *avoid = NULL, *wpm = NULL, *ms = NULL;
	bool advisory = false, shareable = false, keep = false;
	struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--avoid", NULL, &avoid },
		{ "--writes-per-minute", NULL, &wpm }, { "--interval-ms", NULL, &ms },
		{ "--advisory", &advisory, NULL }, { "--shareable", &shareable, NULL },
		{ "--keep-layout", &keep, NULL }, { NULL },
	};
	const char *syn = "control set GROUP... [--domain ID] [--avoid MASK] [--shareable] "
			  "[--interval-ms MS] [--writes-per-minute N] [--advisory] [--keep-layout] "
			  "[--bound GROUP=RATIO|GROUP=BYTES/s]... [--exclusive GROUP]...";
	struct rdtalloc_control_conf conf = { .sz = sizeof(conf) };
	struct rdtalloc_control_group g[MAX];
	struct control_args ca = { 0 };
	uint64_t v;
	rdtalloc_t *r;
	int ret, i;

	ret = take_repeated(&argc, argv, &ca);
	if (!ret)
		ret = parse_flags("control set", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, syn);
	if (argc > MAX)
		return usage_error("control set: %d groups, at most %d", argc, MAX);
	if (ca.nstatic)
		return usage_error("control set: --static is a simulated run's");
	if ((avoid && (ret = parse_u64("--avoid", avoid, 16, 0, UINT64_MAX, &conf.avoid))) ||
	    (ret = parse_domain(dom, &conf.cache_id)))
		return ret;
	/* 0: no limit, asked for by name */
	if (wpm && (ret = parse_u64("--writes-per-minute", wpm, 10, 0, RDTALLOC_CONTROL_WPM_MAX,
				    &v)))
		return ret;
	conf.writes_per_minute = wpm ? (unsigned int)v : WPM_DEFAULT;
	if (ms && (ret = parse_u64("--interval-ms", ms, 10, 10, 3600000, &v)))
		return ret;
	conf.interval_ms = ms ? (unsigned int)v : 0;
	conf.flags = (advisory ? RDTALLOC_CONTROL_ADVISORY : 0) |
		     (shareable ? RDTALLOC_CONTROL_SHAREABLE : 0) | (keep ? RDTALLOC_CONTROL_KEEP : 0);
	memset(g, 0, sizeof(g));
	for (i = 0; i < argc; i++) {
		g[i].sz = sizeof(g[i]);
		g[i].group = argv[i];
		if (ctl_group_index(g, i, argv[i], strlen(argv[i])) >= 0)
			return usage_error("control set: group %s is given twice", argv[i]);
	}
	ret = apply_goals(&ca, g, argc);
	if (ret)
		return ret;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_control_set(r, &conf, (size_t)argc, g);
	if (ret)
		return fail_lib(r, ret);
	if (!g_opts.quiet && !g_opts.json)
		printf("controller of %s: %d groups%s\n",
		       dom ? "that L3 domain" : "the first L3 domain", argc,
		       advisory ? " (advisory: it writes no mask)" : "");
	return EXIT_OK;
}

static void clear_human(json_object *doc)
{
	printf("controller: none%s; %s\n", jget_int(doc, "cache_id") >= 0 ? " in that domain" : "",
	       strcmp(jget_str(doc, "masks"), "kept") ? "its groups have their declared masks back"
						    : "its groups keep the layout last verified");
}

static int control_clear(int argc, char **argv)
{
	const char *dom = NULL;
	bool keep = false;
	struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--keep-layout", &keep, NULL }, { NULL },
	};
	struct rdtalloc_control_conf conf = { .sz = sizeof(conf) };
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("control clear", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, "control clear [--domain ID] [--keep-layout]");
	ret = parse_domain(dom, &conf.cache_id);
	if (ret)
		return ret;
	/* without it, every controlled group gets its declared masks back */
	conf.flags = keep ? RDTALLOC_CONTROL_KEEP : 0;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_control_set(r, &conf, 0, NULL);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "cache_id", json_object_new_int(conf.cache_id));
	jset(doc, "masks", json_object_new_string(keep ? "kept" : "declared"));
	return emit_change(doc, clear_human);
}

static void show_human(json_object *doc)
{
	json_object *cs = jget(doc, "controllers");

	if (!json_object_array_length(cs)) {
		printf("no controller\n");
		return;
	}
	for (size_t k = 0; k < json_object_array_length(cs); k++) {
		json_object *c = json_object_array_get_idx(cs, k), *gs = jget(c, "groups");

		printf("controller of L3 cache id %lld%s: interval %lld ms, ways left alone %#llx%s, "
		       "%lld schemata writes a minute at most (0: no limit)\n",
		       jget_int(c, "cache_id"), jget_bool(c, "advisory") ? " (advisory)" : "",
		       jget_int(c, "interval_ms"), (unsigned long long)jget_int(c, "avoid"),
		       jget_bool(c, "shareable") ? "" : " and the hardware's I/O ways",
		       jget_int(c, "writes_per_minute"));
		for (size_t i = 0; i < json_object_array_length(gs); i++) {
			json_object *e = json_object_array_get_idx(gs, i), *x;

			printf("  %s", jget_str(e, "group"));
			if (json_object_object_get_ex(e, "bound_miss_ratio", &x))
				printf(": bound, miss ratio %g", json_object_get_double(x));
			if (json_object_object_get_ex(e, "bound_bytes_per_sec", &x))
				printf(": bound, %lld bytes/s", (long long)json_object_get_int64(x));
			if (json_object_get_boolean(jget(e, "exclusive")))
				printf(": exclusive");
			printf("\n");
		}
	}
}

/* Domain id's controller, as a JSON object; NULL when it has none. */
static json_object *show_one(rdtalloc_t *r, unsigned int id, int *err)
{
	struct rdtalloc_control_conf conf = { .sz = sizeof(conf), .cache_id = (int)id };
	struct rdtalloc_control_group g[MAX] = { { .sz = sizeof(g[0]) } };
	json_object *c, *gs;
	int n = rdtalloc_control_get(r, &conf, g, MAX);

	*err = n < 0 ? n : 0;
	if (n <= 0)
		return NULL;
	c = jobj();
	gs = json_object_new_array();
	jset(c, "cache_id", json_object_new_int((int)id));
	jset(c, "interval_ms", json_object_new_int((int)(conf.interval_ms ? conf.interval_ms :
									  1000)));
	jset(c, "avoid", json_object_new_int64((int64_t)conf.avoid));
	jset(c, "writes_per_minute", json_object_new_int((int)conf.writes_per_minute));
	jset(c, "advisory", json_object_new_boolean(!!(conf.flags & RDTALLOC_CONTROL_ADVISORY)));
	jset(c, "shareable", json_object_new_boolean(!!(conf.flags & RDTALLOC_CONTROL_SHAREABLE)));
	for (int i = 0; i < n; i++) {
		json_object *e = jobj();

		jset(e, "group", json_object_new_string(g[i].group));
		if (g[i].bound_miss_ratio > 0)
			jset(e, "bound_miss_ratio", json_object_new_double(g[i].bound_miss_ratio));
		if (g[i].bound_bytes_per_sec)
			jset(e, "bound_bytes_per_sec",
			     json_object_new_int64((int64_t)g[i].bound_bytes_per_sec));
		jset(e, "exclusive", json_object_new_boolean(g[i].exclusive));
		json_object_array_add(gs, e);
	}
	jset(c, "groups", gs);
	return c;
}

static int control_show(int argc, char **argv)
{
	json_object *doc, *cs;
	unsigned int *ids;
	rdtalloc_t *r;
	int nd, err = 0;

	MAX_ARGS(0, "control show");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	nd = domain_ids(r, "L3", &ids);
	if (nd < 0)
		return fail_lib(r, nd);
	doc = jobj();
	cs = json_object_new_array();
	for (int d = 0; d < nd && !err; d++) {
		json_object *c = show_one(r, ids[d], &err);

		if (c)
			json_object_array_add(cs, c);
	}
	free(ids);
	if (err) {
		json_object_put(doc);
		json_object_put(cs);
		return fail_lib(r, err);
	}
	jset(doc, "controllers", cs);
	if (!g_opts.quiet && rdtalloc_warning(r)[0])
		fprintf(stderr, "rdtctl: warning: %s\n", rdtalloc_warning(r));
	return emit(doc, show_human);
}

static volatile int run_stop;

static void on_stop(int sig)
{
	(void)sig;
	run_stop = 1;
}

static int control_run(int argc, char **argv)
{
	const char *cnt = NULL;
	struct flag flags[] = { { "--count", NULL, &cnt }, { NULL } };
	struct sim_out out = { .json = g_opts.json };
	struct sigaction sa = { .sa_handler = on_stop };
	uint64_t count = 0;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("control run", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, "control run [--count N]");
	if (cnt && (ret = parse_u64("--count", cnt, 10, 1, UINT32_MAX, &count)))
		return ret;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* SIGTERM, SIGINT: the run stops, the layout last verified left in force */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = rdtalloc_control_run(r, count, &run_stop, print_record, &out);
	if (!g_opts.quiet && rdtalloc_warning(r)[0])
		fprintf(stderr, "rdtctl: warning: %s\n", rdtalloc_warning(r));
	if (ret)
		return fail_lib(r, ret);
	return EXIT_OK;
}

int do_control(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "sim-run", control_sim_run },
		{ "set", control_set },
		{ "show", control_show },
		{ "clear", control_clear },
		{ "run", control_run },
		{ NULL, NULL },
	};

	/* "control --sim-run ...": the spelling of the issue, the same command */
	if (argc > 0 && !strcmp(argv[0], "--sim-run"))
		return control_sim_run(argc - 1, argv + 1);
	return cmd_select(cmds, "control", argc, argv);
}
