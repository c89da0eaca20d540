// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * plan: rdtctl plan - ways chosen from miss curves (or traces replayed),
 * the groups' exclusive ways and MB kept, printed as a configuration that
 * `apply` takes, or checked against the masks in force. docs/plan.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

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
	json_object *gs = jget(doc, "groups"), *rep = NULL;
	size_t i;

	fputs(jget_str(doc, "config"), stdout);
	json_object_object_get_ex(doc, "replay", &rep);
	printf("# prediction (%s):\n", rep ? "by replay of the traces" :
	       "from the curves: a group alone by its curve, a pool by the shared-pool model");
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);

		printf("#   %-20s %2lld ways  miss ratio %.4f%s\n", jget_str(g, "group"),
		       jget_int(g, "ways"), json_object_get_double(jget(g, "predicted_miss_ratio")),
		       jget_bool(g, "shared") ? "  (shared)" : "");
	}
	if (rep) {
		json_object *ap = jget(rep, "misses_apart"), *sh = jget(rep, "misses_shared");

		printf("# misses by replay: this plan %lld", jget_int(rep, "misses"));
		if (ap)
			printf(", every group apart %lld", (long long)json_object_get_int64(ap));
		if (sh)
			printf(", all in one pool %lld", (long long)json_object_get_int64(sh));
		printf(" (%lld plans weighed; traces of %lld to %lld accesses, %s)\n",
		       jget_int(rep, "plans"), jget_int(rep, "shortest"), jget_int(rep, "longest"),
		       jget_str(rep, "lengths"));
	}
}

static void print_check(json_object *doc)
{
	json_object *gs = jget(doc, "groups");
	size_t i;

	printf("# prediction of %s from the curves (a group alone by its curve, groups "
	       "sharing ways by the shared-pool model):\n", jget_str(doc, "check"));
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *g = json_object_array_get_idx(gs, i);

		printf("%-20s %-16s %2lld ways  miss ratio %.4f%s\n", jget_str(g, "group"),
		       jget_str(g, "schema"), jget_int(g, "ways"),
		       json_object_get_double(jget(g, "predicted_miss_ratio")),
		       jget_bool(g, "shared") ? "  (shares ways)" : "");
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

/* ---- plan: the options, the inputs, the configuration --------------------------- */

struct plan_args {
	const char *inputs[RDTALLOC_REPLAY_MAX];	/* GROUP=FILE */
	int ninputs;
	bool traces;				/* --trace: the inputs are traces */
	bool curves;				/* --curve or positional: curves */
	const char *exclusive[RDTALLOC_REPLAY_MAX];
	int nexclusive;
	const char *mb[RDTALLOC_REPLAY_MAX];	/* GROUP=VALUE */
	int nmb;
};

static int add(const char **list, int *n, const char *what, const char *v)
{
	if (!*v)
		return usage_error("plan: %s needs a value", what);
	if (*n >= RDTALLOC_REPLAY_MAX)
		return usage_error("plan: more than %d %s", RDTALLOC_REPLAY_MAX, what);
	list[(*n)++] = v;
	return 0;
}

/*
 * The options that may repeat (--curve, --trace, --exclusive, --mb) out of
 * argv; what is left is for parse_flags.
 */
static int plan_repeated(int *argc, char **argv, struct plan_args *pa)
{
	int i, out = 0, ret = 0;
	const char *v;

	const char *taking = NULL;	/* "--curve", "--trace": it takes the GROUP=FILEs after it */

	for (i = 0; i < *argc && !ret; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (taking && argv[i][0] != '-' && strchr(argv[i], '=')) {
			/* "--trace a=A b=B c=C": each GROUP=FILE after --trace is a trace */
			ret = add(pa->inputs, &pa->ninputs, taking, argv[i]);
			continue;
		}
		taking = NULL;
		if ((v = flag_repeated("--curve", *argc, argv, &i))) {
			pa->curves = true;
			taking = "--curve";
			ret = add(pa->inputs, &pa->ninputs, "--curve", v);
		} else if ((v = flag_repeated("--trace", *argc, argv, &i))) {
			pa->traces = true;
			taking = "--trace";
			ret = add(pa->inputs, &pa->ninputs, "--trace", v);
		} else if ((v = flag_repeated("--exclusive", *argc, argv, &i))) {
			ret = add(pa->exclusive, &pa->nexclusive, "--exclusive", v);
		} else if ((v = flag_repeated("--mb", *argc, argv, &i))) {
			ret = add(pa->mb, &pa->nmb, "--mb", v);
		} else {
			argv[out++] = argv[i];
		}
	}
	*argc = out;
	return ret;
}

/* The index of group name (len bytes) among the inputs, or -1. */
static int input_of(const struct curve_file *cf, int n, const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(cf[i].group) == len && !strncmp(cf[i].group, name, len))
			return i;
	return -1;
}

/* GROUP=FILE inputs: names (each once), and the curves read unless they are traces. */
static int plan_inputs(const struct plan_args *pa, struct curve_file *cf)
{
	int i, ret = EXIT_OK;

	for (i = 0; i < pa->ninputs && ret == EXIT_OK; i++) {
		const char *arg = pa->inputs[i], *eq = strchr(arg, '=');

		if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) > RDTALLOC_NAME_MAX)
			return usage_error("plan: '%s' is not GROUP=%s", arg,
					   pa->traces ? "TRACE" : "CURVE");
		if (input_of(cf, i, arg, (size_t)(eq - arg)) >= 0)
			return usage_error("plan: group %.*s is given twice", (int)(eq - arg), arg);
		snprintf(cf[i].group, sizeof(cf[i].group), "%.*s", (int)(eq - arg), arg);
		if (pa->traces)
			continue;
		ret = read_curve(eq + 1, &cf[i]);
		if (ret == EXIT_OK && i && cf[i].ways != cf[0].ways)
			ret = fail_msg("curve of %s: %u ways, the first has %u", cf[i].group,
				       cf[i].ways, cf[0].ways);
	}
	return ret;
}

/* --bound GROUP=RATIO, --exclusive GROUP..., --apart into the goal. */
static int plan_goal(const char *goal_name, const char *bound, const char *spare, bool apart,
		     const struct plan_args *pa, const struct curve_file *cf,
		     struct rdtalloc_plan_goal *goal)
{
	int i, g;

	if (goal_name && strcmp(goal_name, "misses") && strcmp(goal_name, "bound"))
		return usage_error("plan: --goal %s: misses (the fewest in total) or bound "
				   "(with --bound GROUP=RATIO)", goal_name);
	if (goal_name && !strcmp(goal_name, "bound") && !bound)
		return usage_error("plan: --goal bound needs --bound GROUP=RATIO");
	if (goal_name && !strcmp(goal_name, "misses") && bound)
		return usage_error("plan: --goal misses and --bound: one goal");
	if (bound) {
		const char *eq = strchr(bound, '=');
		char *end = NULL;

		goal->kind = RDTALLOC_PLAN_BOUND;
		g = eq ? input_of(cf, pa->ninputs, bound, (size_t)(eq - bound)) : -1;
		goal->bound = eq ? strtod(eq + 1, &end) : -1;
		if (g < 0 || end == eq + 1 || *end || !(goal->bound >= 0 && goal->bound <= 1))
			return usage_error("plan: --bound '%s': give GROUP=RATIO, a group of the "
					   "plan and a miss ratio 0..1", bound);
		goal->group = (unsigned int)g;
	}
	for (i = 0; i < pa->nexclusive; i++) {
		g = input_of(cf, pa->ninputs, pa->exclusive[i], strlen(pa->exclusive[i]));
		if (g < 0)
			return usage_error("plan: --exclusive %s: not a group of the plan",
					   pa->exclusive[i]);
		goal->exclusive |= UINT64_C(1) << g;
	}
	if (apart)
		goal->flags |= RDTALLOC_PLAN_APART;
	if (spare) {
		g = input_of(cf, pa->ninputs, spare, strlen(spare));
		if (g < 0)
			return usage_error("plan: --spare %s: not a group of the plan", spare);
		goal->flags |= RDTALLOC_PLAN_SPARE;
		goal->spare = (unsigned int)g;
	}
	return 0;
}

/* "MB:ID=V;..." for the group's --mb, over the domains written; "" without one. */
static int mb_line(const struct plan_args *pa, const char *group, const unsigned int *ids,
		   int nids, char *buf, size_t len)
{
	size_t gl = strlen(group), off = 0;
	int i, d;

	buf[0] = '\0';
	for (i = 0; i < pa->nmb; i++) {
		const char *eq = strchr(pa->mb[i], '=');

		if (!eq || (size_t)(eq - pa->mb[i]) != gl || strncmp(pa->mb[i], group, gl))
			continue;
		for (d = 0; d < nids && off < len; d++)
			off += (size_t)snprintf(buf + off, len - off, "%s%u=%s", d ? ";" : "MB:",
						ids[d], eq + 1);
		return off < len ? 0 : -1;
	}
	return 0;
}

static int check_mb(const struct plan_args *pa, const struct curve_file *cf)
{
	int i;

	for (i = 0; i < pa->nmb; i++) {
		const char *eq = strchr(pa->mb[i], '=');

		if (!eq || !eq[1] || input_of(cf, pa->ninputs, pa->mb[i],
					      (size_t)(eq - pa->mb[i])) < 0)
			return usage_error("plan: --mb '%s': give GROUP=VALUE, a group of the plan "
					   "and its MB value", pa->mb[i]);
	}
	return 0;
}

/* "L3:ID=MASK;..." over the domains written. */
static void l3_line(uint64_t mask, const unsigned int *ids, int nids, char *buf, size_t len)
{
	size_t off = 0;
	int d;

	for (d = 0; d < nids && off < len; d++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u=%llx", d ? ";" : "L3:", ids[d],
					(unsigned long long)mask);
}

/*
 * The ways groups outside the plan hold exclusive, in any L3 domain (a plan
 * may be written to all of them): the plan leaves them alone (goal.avoid),
 * where before it planned over them and its configuration then failed to
 * apply, after the replays. names: those groups, for the report.
 */
static int plan_avoid(rdtalloc_t *r, const struct curve_file *cf, int n, uint64_t *avoid,
		      char *names, size_t len)
{
	unsigned int ids[256];
	int nids = rdtalloc_domains(r, "L3", ids, 256), ng, i, k;
	char **list;

	*avoid = 0;
	names[0] = '\0';
	if (nids < 0)
		return fail_lib(r, nids);
	ng = list_groups(r, &list);
	if (ng < 0)
		return EXIT_FAIL;
	for (i = 0; i < ng; i++) {
		int mode = rdtalloc_group_get_mode(r, list[i]);
		struct rdtalloc_mask_info m;

		for (k = 0; k < n && strcmp(cf[k].group, list[i]); k++)
			;
		if (k < n || mode < 0 || !(mode & RDTALLOC_MODE_EXCLUSIVE))
			continue;
		for (k = 0; k < nids && k < 256; k++) {
			if (group_mask(r, list[i], "L3", ids[k], &m)) {
				free_names(list, ng);
				return EXIT_FAIL;
			}
			*avoid |= m.mask | m.code_mask;
		}
		snprintf(names + strlen(names), len - strlen(names), "%s%s", names[0] ? ", " : "",
			 list[i]);
	}
	free_names(list, ng);
	return EXIT_OK;
}

/*
 * The configuration of the plan: each group's schema in the domain planned
 * (in every L3 domain with --all-domains, and always with exclusive groups:
 * exclusive is machine-wide), its MB, its mode; the default group off the
 * exclusive ways.
 */
static char *plan_config(rdtalloc_t *r, const struct plan_args *pa, const struct curve_file *cf,
			 const struct rdtalloc_plan_group *out, const struct rdtalloc_plan_goal *goal,
			 const struct rdtalloc_cache_geometry *geo, bool all, int n,
			 const char *avoided)
{
	unsigned int ids[256], mbids[256];
	int nids = 1, nmb = 1, i;
	uint64_t excl = 0, full = geo->ways >= 64 ? UINT64_MAX : (UINT64_C(1) << geo->ways) - 1;
	char *cfg = NULL, line[8192];
	size_t len = 0;
	FILE *mem = open_memstream(&cfg, &len);

	if (!mem)
		return NULL;
	ids[0] = mbids[0] = geo->cache_id;
	for (i = 0; i < n; i++)
		excl |= out[i].exclusive ? out[i].mask : 0;
	if (all || excl) {
		nids = rdtalloc_domains(r, "L3", ids, 256);
		nmb = rdtalloc_domains(r, "MB", mbids, 256);
		if (nids < 1 || nids > 256)
			nids = 1, ids[0] = geo->cache_id;
		if (nmb < 1 || nmb > 256)
			nmb = 1, mbids[0] = geo->cache_id;
	}
	fprintf(mem, "# rdtctl plan: L3 cache id %u, %u ways, ", geo->cache_id, geo->ways);
	if (goal->kind == RDTALLOC_PLAN_BOUND)
		fprintf(mem, "%s at most %g misses, the others the fewest", cf[goal->group].group,
			goal->bound);
	else
		fprintf(mem, "the fewest misses");
	fprintf(mem, "%s\n", pa->traces ? ", by replay of the traces" : ", from the curves");
	if (goal->avoid)
		fprintf(mem, "# ways %#llx left alone: exclusive group%s %s\n",
			(unsigned long long)goal->avoid, strchr(avoided, ',') ? "s" : "", avoided);
	if (nids > 1)
		fprintf(mem, "# the same masks in every L3 domain (%s)\n",
			excl ? "an exclusive group is exclusive in all of them" : "--all-domains");
	if (excl) {
		struct rdtalloc_ways_info w = { .sz = sizeof(w) };

		/* nor on the ways left alone: other groups' and other tools' exclusive ones */
		if (rdtalloc_domain_ways(r, "L3", geo->cache_id, &w))
			w.foreign_ways = 0;
		l3_line(full & ~excl & ~goal->avoid & ~w.foreign_ways, ids, nids, line,
			sizeof(line));
		fprintf(mem, "group default\n\tschema %s\n", line);
	}
	for (i = 0; i < n; i++) {
		fprintf(mem, "group %s\n", cf[i].group);
		l3_line(out[i].mask, ids, nids, line, sizeof(line));
		fprintf(mem, "\tschema %s\n", line);
		if (mb_line(pa, cf[i].group, mbids, nmb, line, sizeof(line)) == 0 && line[0])
			fprintf(mem, "\tschema %s\n", line);
		/* a group exclusive now but not in the plan must not stay so: said */
		if (out[i].exclusive)
			fprintf(mem, "\tmode exclusive\n");
		else if (rdtalloc_group_get_mode(r, cf[i].group) > 0 &&
			 (rdtalloc_group_get_mode(r, cf[i].group) & RDTALLOC_MODE_EXCLUSIVE))
			fprintf(mem, "\tmode shareable\n");
	}
	fclose(mem);
	return cfg;
}

/* Traces whose lengths differ more than this are said to (docs/plan.md). */
#define LENGTH_FACTOR 2

int do_plan(int argc, char **argv)
{
	static const char synopsis[] =
		"plan [--domain ID] [--goal misses|bound] [--bound GROUP=RATIO] [--exclusive GROUP]... "
		"[--apart] [--spare GROUP] [--mb GROUP=VALUE]... [--all-domains] [--check CONFIG] "
		"(--curve GROUP=FILE... | --trace GROUP=FILE... [--instr] | GROUP=CURVE...)";
	const char *dom = NULL, *bound = NULL, *check = NULL, *goal_name = NULL, *spare = NULL;
	bool apart = false, all = false, instr = false, cut = false, loop = false;
	const struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--bound", NULL, &bound }, { "--check", NULL, &check },
		{ "--spare", NULL, &spare }, { "--cut", &cut, NULL }, { "--loop", &loop, NULL },
		{ "--goal", NULL, &goal_name }, { "--apart", &apart, NULL },
		{ "--all-domains", &all, NULL }, { "--instr", &instr, NULL },
		{ NULL, NULL, NULL },
	};
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .kind = RDTALLOC_PLAN_MISSES };
	struct rdtalloc_plan_report rep = { .sz = sizeof(rep) };
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[RDTALLOC_REPLAY_MAX];
	const double *curves[RDTALLOC_REPLAY_MAX];
	const char *paths[RDTALLOC_REPLAY_MAX];
	uint64_t acc[RDTALLOC_REPLAY_MAX];
	struct plan_args pa = { 0 };
	struct curve_file *cf = NULL;
	json_object *doc, *gs;
	char *cfg = NULL, line[8192], avoided[512] = "";
	rdtalloc_t *r = NULL;
	int ret, id, i;

	ret = plan_repeated(&argc, argv, &pa);
	if (!ret)
		ret = parse_flags("plan", &argc, argv, flags);
	if (ret)
		return ret;
	for (i = 0; i < argc && !ret; i++) {
		pa.curves = true;
		ret = add(pa.inputs, &pa.ninputs, "groups", argv[i]);
	}
	if (ret)
		return ret;
	if (!pa.ninputs)
		return usage_error("usage: rdtctl %s", synopsis);
	if (pa.traces && argc)
		return usage_error("plan: '%.80s' is taken as a curve (a GROUP=FILE before any "
				   "--trace is one) beside --trace: give curves or traces, not both",
				   argv[0]);
	if (pa.traces && pa.curves)
		return usage_error("plan: give curves (--curve) or traces (--trace), not both");
	if (check && (pa.traces || bound || goal_name || pa.nexclusive || apart || pa.nmb || all ||
		      spare))
		return usage_error("plan: --check predicts a configuration from curves; the "
				   "options that make one do not go with it");
	if ((instr || cut || loop) && !pa.traces)
		return usage_error("plan: --%s is for traces", instr ? "instr" : cut ? "cut" : "loop");
	if (cut && loop)
		return usage_error("plan: --cut or --loop, not both");
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	cf = calloc((size_t)pa.ninputs, sizeof(*cf));
	if (!cf)
		return fail_msg("out of memory");
	ret = plan_inputs(&pa, cf);
	if (ret == EXIT_OK)
		ret = plan_goal(goal_name, bound, spare, apart, &pa, cf, &goal);
	if (ret == EXIT_OK)
		ret = check_mb(&pa, cf);
	if (ret == EXIT_OK && !(r = ctx_whatif()))
		ret = EXIT_FAIL;
	for (i = 0; i < pa.ninputs; i++) {
		curves[i] = cf[i].mr;
		acc[i] = cf[i].accesses;
		paths[i] = strchr(pa.inputs[i], '=') + 1;
		out[i].sz = sizeof(out[i]);
	}
	if (ret == EXIT_OK && check) {
		ret = plan_check(r, id, check, cf, curves, pa.ninputs);
		goto out;
	}
	if (ret != EXIT_OK)
		goto out;
	/* checked before the replays, which take the time: other groups' exclusive ways */
	ret = plan_avoid(r, cf, pa.ninputs, &goal.avoid, avoided, sizeof(avoided));
	if (ret != EXIT_OK)
		goto out;
	if (pa.traces)
		ret = rdtalloc_plan_traces(r, id, (size_t)pa.ninputs, paths,
					   (instr ? RDTALLOC_TRACE_INSTR : 0) |
					   (cut ? RDTALLOC_TRACE_CUT : 0) |
					   (loop ? RDTALLOC_TRACE_LOOP : 0), &goal, &geo, out, &rep);
	else
		ret = rdtalloc_plan(r, id, (size_t)pa.ninputs, curves, cf[0].ways, acc, &goal, &geo,
				    out);
	if (ret == -ERANGE && goal.kind == RDTALLOC_PLAN_BOUND) {
		ret = fail_msg("plan: %s: %s", cf[goal.group].group, rdtalloc_errmsg(r));
		goto out;
	}
	if (ret) {
		ret = fail_lib(r, ret);
		goto out;
	}
	cfg = plan_config(r, &pa, cf, out, &goal, &geo, all, pa.ninputs, avoided);
	if (!cfg) {
		ret = fail_msg("out of memory");
		goto out;
	}
	/* what it prints applies: checked as apply --dry-run would */
	ret = rdtalloc_apply_config(r, cfg, RDTALLOC_APPLY_DRY_RUN);
	if (ret < 0) {
		ret = fail_msg("plan: the configuration would not apply: %s", rdtalloc_errmsg(r));
		goto out;
	}
	doc = jobj();
	gs = jarr();
	for (i = 0; i < pa.ninputs; i++) {
		json_object *g = jobj();

		snprintf(line, sizeof(line), "L3:%u=%llx", geo.cache_id,
			 (unsigned long long)out[i].mask);
		jset(g, "group", jstr(cf[i].group));
		jset(g, "schema", jstr(line));
		jset(g, "ways", jint(out[i].ways));
		jset(g, "predicted_miss_ratio", json_object_new_double(out[i].predicted_miss_ratio));
		if (!g_opts.json)
			jset(g, "shared", jbool(out[i].shared));
		json_object_array_add(gs, g);
	}
	jset(doc, "groups", gs);
	jset(doc, "config", jstr(cfg));
	if (pa.traces && !g_opts.json) {
		json_object *rp = jobj();

		jset(rp, "misses", jint((long long)rep.misses));
		if (rep.misses_apart != UINT64_MAX)
			jset(rp, "misses_apart", jint((long long)rep.misses_apart));
		if (rep.misses_shared != UINT64_MAX)
			jset(rp, "misses_shared", jint((long long)rep.misses_shared));
		jset(rp, "plans", jint(rep.plans));
		jset(rp, "shortest", jint((long long)rep.shortest));
		jset(rp, "longest", jint((long long)rep.longest));
		jset(rp, "lengths", jstr(cut ? "cut" : loop ? "loop" : "as they are"));
		jset(doc, "replay", rp);
	}
	/* lengths that differ: said, with what to do (the longest alone at the end weighs more) */
	if (pa.traces && !cut && !loop && rep.longest > LENGTH_FACTOR * rep.shortest)
		fprintf(stderr, "rdtctl: warning: the traces differ in length (%llu to %llu "
			"accesses): the longest runs alone after the others end, which weighs its "
			"misses more; --cut cuts them to the shortest, --loop repeats the shorter "
			"ones\n", (unsigned long long)rep.shortest, (unsigned long long)rep.longest);
	ret = emit(doc, print_plan);
out:
	free(cfg);
	free(cf);
	return ret;
}
