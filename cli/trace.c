// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace: the cache model's commands - sim replay (traces through the L3
 * with the groups' masks), profile --trace (a miss curve from one pass),
 * trace convert (lackey text into the binary form). docs/plan.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdtctl.h"

static void print_replay(json_object *doc)
{
	json_object *gs = jget(doc, "groups");
	size_t i;

	printf("L3 cache id %lld: %lld sets x %lld ways\n", jget_int(doc, "cache_id"),
	       jget_int(doc, "sets"), jget_int(doc, "ways"));
	printf("%-20s %12s %12s %12s %10s %14s\n", "GROUP", "ACCESSES", "HITS", "MISSES",
	       "MISS RATIO", "OCCUPANCY KiB");
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);

		printf("%-20s %12lld %12lld %12lld %10.4f %14.1f\n", jget_str(g, "group"),
		       jget_int(g, "accesses"), jget_int(g, "hits"), jget_int(g, "misses"),
		       json_object_get_double(jget(g, "miss_ratio")),
		       (double)jget_int(g, "llc_occupancy_bytes") / 1024);
	}
}

static double ratio(uint64_t part, uint64_t all)
{
	return all ? (double)part / (double)all : 0;
}

int sim_replay(int argc, char **argv)
{
	static const char synopsis[] =
		"sim replay [--domain ID] [--instr] [--no-count] GROUP=TRACE...";
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	bool instr = false, no_count = false;
	const char *dom = NULL;
	const struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--instr", &instr, NULL },
		{ "--no-count", &no_count, NULL }, { NULL, NULL, NULL },
	};
	unsigned int fl;
	const char *groups[RDTALLOC_REPLAY_MAX], *traces[RDTALLOC_REPLAY_MAX];
	struct rdtalloc_replay_group out[RDTALLOC_REPLAY_MAX];
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	json_object *doc, *gs;
	rdtalloc_t *r;
	int ret, id, i;

	ret = parse_flags("sim replay", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	if (argc > RDTALLOC_REPLAY_MAX)
		return usage_error("sim replay: %d traces, at most %d", argc, RDTALLOC_REPLAY_MAX);
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || !eq[1])
			return usage_error("sim replay: '%s' is not GROUP=TRACE", argv[i]);
		*eq = '\0';
		groups[i] = argv[i];
		traces[i] = eq + 1;
		out[i].sz = sizeof(out[i]);
	}
	/* on the simulator the monitoring counters take what the replay did */
	r = no_count ? ctx_ro() : ctx();
	if (!r)
		return EXIT_FAIL;
	fl = instr ? RDTALLOC_TRACE_INSTR : 0;
	if (!no_count && !strcmp(rdtalloc_backend(r), "sim") &&
	    !rdtalloc_mon_get_info(r, &mi) && mi.rmids)
		fl |= RDTALLOC_REPLAY_COUNT;
	ret = rdtalloc_sim_replay(r, id, (size_t)argc, groups, traces, fl, &geo, out);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "cache_id", jint(geo.cache_id));
	jset(doc, "sets", jint(geo.sets));
	jset(doc, "ways", jint(geo.ways));
	gs = jarr();
	for (i = 0; i < argc; i++) {
		json_object *g = jobj();

		jset(g, "group", jstr(out[i].group));
		jset(g, "accesses", jint((long long)out[i].accesses));
		jset(g, "hits", jint((long long)out[i].hits));
		jset(g, "misses", jint((long long)out[i].misses));
		jset(g, "miss_ratio", json_object_new_double(ratio(out[i].misses,
								     out[i].accesses)));
		jset(g, "llc_occupancy_bytes", jint((long long)out[i].llc_occupancy));
		json_object_array_add(gs, g);
	}
	jset(doc, "groups", gs);
	return emit(doc, print_replay);
}

static void print_sweep(json_object *doc)
{
	json_object *st = jget(doc, "steps");
	size_t i;

	printf("group %s, L3 cache id %lld:\n%5s %16s %18s\n", jget_str(doc, "group"),
	       jget_int(doc, "cache_id"), "WAYS", "OCCUPANCY KiB", "BANDWIDTH MB/s");
	for (i = 0; i < json_object_array_length(st); i++) {
		json_object *x = json_object_array_get_idx(st, i), *o, *b;

		o = jget(x, "llc_occupancy_bytes");
		b = jget(x, "mbm_total_bytes_per_second");
		printf("%5lld", jget_int(x, "ways"));
		if (o)
			printf(" %16.1f", (double)json_object_get_int64(o) / 1024);
		else
			printf(" %16s", "-");
		if (b)
			printf(" %18.1f\n", json_object_get_double(b) / 1e6);
		else
			printf(" %18s\n", "-");
	}
}

static void print_curve(json_object *doc)
{
	json_object *mr = jget(doc, "miss_ratio");
	size_t k;

	printf("%lld accesses, a cache of %lld sets; miss ratio alone with k ways:\n",
	       jget_int(doc, "accesses"), jget_int(doc, "sets"));
	for (k = 0; k < json_object_array_length(mr); k++)
		printf("%3zu %8.4f\n", k + 1,
		       json_object_get_double(json_object_array_get_idx(mr, k)));
}

/* ---- profile GROUP: the mask swept over 1..N ways, the counters read at each -------- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* group's counters in L3 cache id id, now; 0 or a library error. */
static int read_one(rdtalloc_t *r, const char *group, unsigned int id,
		    struct rdtalloc_mon_value *out)
{
	struct rdtalloc_mon_value v[64] = { { .sz = sizeof(v[0]) } };
	const char *names[1] = { group };
	int n = rdtalloc_mon_read(r, names, 1, v, 64), i;

	if (n < 0)
		return n;
	for (i = 0; i < n && i < 64; i++) {
		if (v[i].cache_id == id) {
			*out = v[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* The L3's ways and least mask; the first domain's id when id < 0. */
static int l3_facts(rdtalloc_t *r, int *id, unsigned int *ways, unsigned int *min)
{
	struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };
	unsigned int ids[1];
	int n = rdtalloc_resource_count(r), i;

	for (i = 0; i < n; i++) {
		if (rdtalloc_get_resource_info(r, (unsigned int)i, &ri) == 0 &&
		    !strcmp(ri.name, "L3")) {
			*ways = ri.cbm_len;
			*min = ri.min_cbm_bits ? ri.min_cbm_bits : 1;
			if (*id < 0 && rdtalloc_domains(r, "L3", ids, 1) > 0)
				*id = (int)ids[0];
			return *id < 0 ? -ENOENT : 0;
		}
	}
	return -EOPNOTSUPP;
}

/*
 * Sweep group's mask in one L3 domain over min..N ways (the lowest ways),
 * interval seconds each, reading its occupancy and bandwidth at each step;
 * its schema goes back as it was at the end, whatever happens (an error, a
 * signal: SIGINT, SIGTERM, SIGHUP end the sweep and still restore).
 */
static int profile_group(const char *group, const char *dom, double interval)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	char *saved = NULL, text[64];
	unsigned int ways = 0, min = 1, k;
	json_object *doc, *steps;
	int ret, id, n, i;
	rdtalloc_t *r;

	if (!(interval >= 0.01 && interval <= 3600))
		return usage_error("profile: --interval must be 0.01..3600 seconds");
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = l3_facts(r, &id, &ways, &min);
	if (ret)
		return fail_msg("profile: no L3 allocation to sweep here");
	n = rdtalloc_get_schema(r, group, NULL, 0);
	if (n < 0)
		return fail_lib(r, n);
	saved = malloc((size_t)n + 1);
	if (!saved || rdtalloc_get_schema(r, group, saved, (size_t)n + 1) < 0) {
		free(saved);
		return fail_msg("profile: cannot save %s's schema", group);
	}
	stop_signal = 0;
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	doc = jobj();
	steps = jarr();
	for (k = min; k <= ways && !stop_signal && ret == 0; k++) {
		struct rdtalloc_mon_value a, b;
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };
		json_object *st;
		double dt;

		snprintf(text, sizeof(text), "L3:%d=%llx", id,
			 (unsigned long long)(k >= 64 ? UINT64_MAX : (UINT64_C(1) << k) - 1));
		ret = rdtalloc_set_schema(r, group, text);
		if (!ret)
			ret = read_one(r, group, (unsigned int)id, &a);
		if (ret)
			break;
		if (nanosleep(&ts, NULL) && stop_signal)
			break;
		ret = read_one(r, group, (unsigned int)id, &b);
		if (ret)
			break;
		dt = (double)(b.time_ns - a.time_ns) / 1e9;
		st = jobj();
		jset(st, "ways", jint(k));
		jset(st, "state", jint(b.state));
		if (b.valid & RDTALLOC_MON_EV_OCCUPANCY)
			jset(st, "llc_occupancy_bytes", jint((long long)b.llc_occupancy));
		else
			jset_null(st, "llc_occupancy_bytes");
		if ((b.valid & RDTALLOC_MON_EV_TOTAL) && dt > 0 && b.mbm_total >= a.mbm_total)
			jset(st, "mbm_total_bytes_per_second",
			     json_object_new_double((double)(b.mbm_total - a.mbm_total) / dt));
		else
			jset_null(st, "mbm_total_bytes_per_second");
		json_object_array_add(steps, st);
	}
	/* whatever happened: the schema as it was */
	if (rdtalloc_set_schema(r, group, saved) && !ret)
		ret = -EIO;
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	free(saved);
	if (ret || stop_signal) {
		json_object_put(doc);
		json_object_put(steps);
		if (stop_signal)
			return fail_msg("profile %s: stopped by signal %d; its schema is back",
					group, (int)stop_signal);
		return fail_lib(r, ret);
	}
	jset(doc, "group", jstr(group));
	jset(doc, "cache_id", jint(id));
	jset(doc, "ways", jint(ways));
	jset(doc, "steps", steps);
	return emit(doc, print_sweep);
}

int do_profile(int argc, char **argv)
{
	static const char synopsis[] =
		"profile --trace FILE [--domain ID] [--instr] | profile GROUP [--domain ID] "
		"[--interval S]";
	const char *trace = NULL, *dom = NULL, *ival = "2";
	bool instr = false;
	const struct flag flags[] = {
		{ "--trace", NULL, &trace }, { "--domain", NULL, &dom },
		{ "--instr", &instr, NULL }, { "--interval", NULL, &ival }, { NULL, NULL, NULL },
	};
	struct rdtalloc_curve c = { .sz = sizeof(c) };
	json_object *doc, *mr;
	unsigned int k;
	rdtalloc_t *r;
	int ret, id;

	ret = parse_flags("profile", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(1, synopsis);
	if (argc == 1 && !trace) {
		char *end;
		double iv = strtod(ival, &end);

		if (end == ival || *end)
			return usage_error("profile: --interval '%s' is not a number of seconds",
					   ival);
		return profile_group(argv[0], dom, iv);
	}
	if (!trace || argc)
		return usage_error("profile: give --trace FILE or a GROUP: usage: rdtctl %s",
				   synopsis);
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_trace_curve(r, id, trace, instr ? RDTALLOC_TRACE_INSTR : 0, &c);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "sets", jint(c.geo.sets));
	jset(doc, "ways", jint(c.geo.ways));
	jset(doc, "accesses", jint((long long)c.accesses));
	mr = jarr();
	for (k = 0; k < c.geo.ways; k++)
		json_object_array_add(mr, json_object_new_double(ratio(c.misses[k], c.accesses)));
	jset(doc, "miss_ratio", mr);
	return emit(doc, print_curve);
}

static int trace_convert(int argc, char **argv)
{
	static const char synopsis[] = "trace convert IN OUT [--instr]";
	bool instr = false;
	const struct flag flags[] = { { "--instr", &instr, NULL }, { NULL, NULL, NULL } };
	json_object *doc;
	uint64_t n = 0;
	int ret;

	ret = parse_flags("trace convert", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	ret = rdtalloc_trace_convert(argv[0], argv[1], instr ? RDTALLOC_TRACE_INSTR : 0, &n);
	if (ret)
		return fail_lib(NULL, ret);
	if (g_opts.quiet)
		return EXIT_OK;
	doc = jobj();
	jset(doc, "accesses", jint((long long)n));
	jset(doc, "file", jstr(argv[1]));
	if (g_opts.json)
		return emit(doc, NULL);
	printf("%s: %llu accesses\n", argv[1], (unsigned long long)n);
	json_object_put(doc);
	return EXIT_OK;
}

int do_trace(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "convert", trace_convert },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "trace", argc, argv);
}

/* ---- plan --------------------------------------------------------------------- */

#define CURVE_MAX (1u << 20)

struct curve_file {
	char group[RDTALLOC_NAME_MAX + 1];
	double mr[64];
	unsigned int ways;
	uint64_t accesses;
};

/* A profile document (rdtctl -j profile): {"ways", "accesses", "miss_ratio": [...]}. */
static int read_curve(const char *path, struct curve_file *c)
{
	char *buf = read_input(path, "curve", CURVE_MAX);
	json_object *doc, *mr, *v;
	unsigned int k;
	int ret = EXIT_OK;

	if (!buf)
		return EXIT_FAIL;
	doc = json_tokener_parse(buf);
	free(buf);
	if (!doc || !json_object_object_get_ex(doc, "miss_ratio", &mr) ||
	    !json_object_is_type(mr, json_type_array) || !json_object_array_length(mr) ||
	    json_object_array_length(mr) > 64 || !json_object_object_get_ex(doc, "accesses", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
		json_object_put(doc);
		return fail_msg("curve %s: not a profile document (rdtctl -j profile --trace: "
				"\"accesses\" and \"miss_ratio\")", path);
	}
	c->accesses = (uint64_t)json_object_get_int64(v);
	c->ways = (unsigned int)json_object_array_length(mr);
	for (k = 0; k < c->ways && ret == EXIT_OK; k++) {
		v = json_object_array_get_idx(mr, k);
		if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
			ret = fail_msg("curve %s: miss_ratio[%u] is not a number", path, k);
		else
			c->mr[k] = json_object_get_double(v);
	}
	json_object_put(doc);
	return ret;
}

static void print_plan(json_object *doc)
{
	json_object *gs = jget(doc, "groups");
	size_t i;

	fputs(jget_str(doc, "config"), stdout);
	printf("# prediction, each group alone in its ways:\n");
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);

		printf("#   %-20s %2lld ways  miss ratio %.4f\n", jget_str(g, "group"),
		       jget_int(g, "ways"), json_object_get_double(jget(g, "predicted_miss_ratio")));
	}
}

static void print_check(json_object *doc)
{
	json_object *gs = jget(doc, "groups");
	size_t i;

	printf("# prediction of %s, each group alone in its ways:\n", jget_str(doc, "check"));
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);

		printf("%-20s %-16s %2lld ways  miss ratio %.4f%s\n", jget_str(g, "group"),
		       jget_str(g, "schema"), jget_int(g, "ways"),
		       json_object_get_double(jget(g, "predicted_miss_ratio")),
		       jget_bool(g, "shared") ? "  (shares ways: optimistic)" : "");
	}
}

/* plan --check CONFIG: what the configuration would do, by the curves. */
static int plan_check(rdtalloc_t *r, int id, const char *path, const struct curve_file *cf,
		      const double *const *curves, int n)
{
	struct rdtalloc_plan_group out[RDTALLOC_REPLAY_MAX];
	const char *names[RDTALLOC_REPLAY_MAX];
	unsigned int ids[1];
	json_object *doc, *gs;
	char *text = read_input(path, "configuration", RDTALLOC_CONFIG_MAX), line[96];
	int ret, i;

	if (!text)
		return EXIT_FAIL;
	for (i = 0; i < n; i++) {
		names[i] = cf[i].group;
		out[i].sz = sizeof(out[i]);
	}
	ret = rdtalloc_plan_check(r, id, text, (size_t)n, names, curves, cf[0].ways, out);
	free(text);
	if (ret)
		return fail_lib(r, ret);
	if (id < 0 && rdtalloc_domains(r, "L3", ids, 1) > 0)
		id = (int)ids[0];
	doc = jobj();
	gs = jarr();
	for (i = 0; i < n; i++) {
		json_object *g = jobj();

		snprintf(line, sizeof(line), "L3:%d=%llx", id, (unsigned long long)out[i].mask);
		jset(g, "group", jstr(cf[i].group));
		jset(g, "schema", jstr(line));
		jset(g, "ways", jint(out[i].ways));
		jset(g, "predicted_miss_ratio", json_object_new_double(out[i].predicted_miss_ratio));
		jset(g, "shared", jbool(out[i].shared));
		json_object_array_add(gs, g);
	}
	jset(doc, "check", jstr(path));
	jset(doc, "groups", gs);
	return emit(doc, print_check);
}

int do_plan(int argc, char **argv)
{
	static const char synopsis[] =
		"plan [--domain ID] [--bound GROUP=RATIO | --check CONFIG] GROUP=CURVE...";
	const char *dom = NULL, *bound = NULL, *check = NULL;
	const struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--bound", NULL, &bound }, { "--check", NULL, &check },
		{ NULL, NULL, NULL },
	};
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .kind = RDTALLOC_PLAN_MISSES };
	struct curve_file *cf;
	const double *curves[RDTALLOC_REPLAY_MAX];
	uint64_t acc[RDTALLOC_REPLAY_MAX];
	struct rdtalloc_plan_group out[RDTALLOC_REPLAY_MAX];
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	json_object *doc, *gs;
	char *cfg = NULL, line[256];
	size_t cfglen = 0;
	FILE *mem;
	rdtalloc_t *r;
	int ret, id, i;

	ret = parse_flags("plan", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	if (argc > RDTALLOC_REPLAY_MAX)
		return usage_error("plan: %d groups, at most %d", argc, RDTALLOC_REPLAY_MAX);
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	cf = calloc((size_t)argc, sizeof(*cf));
	if (!cf)
		return fail_msg("out of memory");
	for (i = 0; i < argc && ret == EXIT_OK; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || !eq[1] || (size_t)(eq - argv[i]) > RDTALLOC_NAME_MAX) {
			ret = usage_error("plan: '%s' is not GROUP=CURVE", argv[i]);
			break;
		}
		snprintf(cf[i].group, sizeof(cf[i].group), "%.*s", (int)(eq - argv[i]), argv[i]);
		ret = read_curve(eq + 1, &cf[i]);
		curves[i] = cf[i].mr;
		acc[i] = cf[i].accesses;
		out[i].sz = sizeof(out[i]);
		if (ret == EXIT_OK && i && cf[i].ways != cf[0].ways)
			ret = fail_msg("curve of %s: %u ways, the first has %u", cf[i].group,
				       cf[i].ways, cf[0].ways);
	}
	if (ret == EXIT_OK && bound) {
		const char *eq = strchr(bound, '=');
		char *end;

		goal.kind = RDTALLOC_PLAN_BOUND;
		goal.group = (unsigned int)argc;
		for (i = 0; eq && i < argc; i++)
			if (strlen(cf[i].group) == (size_t)(eq - bound) &&
			    !strncmp(cf[i].group, bound, (size_t)(eq - bound)))
				goal.group = (unsigned int)i;
		goal.bound = eq ? strtod(eq + 1, &end) : -1;
		if (!eq || goal.group == (unsigned int)argc || end == eq + 1 || *end ||
		    !(goal.bound >= 0 && goal.bound <= 1))
			ret = usage_error("plan: --bound '%s': give GROUP=RATIO, a group of the plan "
					  "and a miss ratio 0..1", bound);
	}
	if (ret == EXIT_OK && check && bound)
		ret = usage_error("plan: --check predicts a configuration, --bound makes one: "
				  "one of them");
	r = ret == EXIT_OK ? ctx_ro() : NULL;
	if (!r) {
		free(cf);
		return ret == EXIT_OK ? EXIT_FAIL : ret;
	}
	if (check) {
		ret = plan_check(r, id, check, cf, curves, argc);
		free(cf);
		return ret;
	}
	ret = rdtalloc_plan(r, id, (size_t)argc, curves, cf[0].ways, acc, &goal, &geo, out);
	if (ret == -ERANGE && goal.kind == RDTALLOC_PLAN_BOUND) {
		ret = fail_msg("plan: %s: %s", cf[goal.group].group, rdtalloc_errmsg(r));
		free(cf);
		return ret;
	}
	if (ret) {
		free(cf);
		return fail_lib(r, ret);
	}
	mem = open_memstream(&cfg, &cfglen);
	if (!mem) {
		free(cf);
		return fail_msg("out of memory");
	}
	if (goal.kind == RDTALLOC_PLAN_BOUND)
		fprintf(mem, "# rdtctl plan: L3 cache id %u, %u ways, %s at most %g misses, the "
			"others the fewest\n", geo.cache_id, geo.ways, cf[goal.group].group,
			goal.bound);
	else
		fprintf(mem, "# rdtctl plan: L3 cache id %u, %u ways, the fewest misses\n",
			geo.cache_id, geo.ways);
	doc = jobj();
	gs = jarr();
	for (i = 0; i < argc; i++) {
		json_object *g = jobj();

		snprintf(line, sizeof(line), "L3:%u=%llx", geo.cache_id,
			 (unsigned long long)out[i].mask);
		fprintf(mem, "group %s\n\tschema %s\n", cf[i].group, line);
		jset(g, "group", jstr(cf[i].group));
		jset(g, "schema", jstr(line));
		jset(g, "ways", jint(out[i].ways));
		jset(g, "predicted_miss_ratio", json_object_new_double(out[i].predicted_miss_ratio));
		json_object_array_add(gs, g);
	}
	fclose(mem);
	jset(doc, "groups", gs);
	jset(doc, "config", jstr(cfg ? cfg : ""));
	free(cfg);
	free(cf);
	return emit(doc, print_plan);
}
