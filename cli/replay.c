// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay: rdtctl sim replay - traces through the cache model of one L3
 * domain with the groups' masks, per group accesses, hits, misses and
 * occupancy. docs/plan.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sim_replay(int argc, char **argv)
{
	static const char synopsis[] =
		"sim replay [--domain ID] [--instr] [--no-count] [--cut | --loop] GROUP=TRACE...";
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	bool instr = false, no_count = false, cut = false, loop = false;
	const char *dom = NULL;
	const struct flag flags[] = {
		{ "--domain", NULL, &dom }, { "--instr", &instr, NULL },
		{ "--no-count", &no_count, NULL }, { "--cut", &cut, NULL },
		{ "--loop", &loop, NULL }, { NULL, NULL, NULL },
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
	if (cut && loop)
		return usage_error("sim replay: --cut or --loop, not both");
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
	fl = (instr ? RDTALLOC_TRACE_INSTR : 0) | (cut ? RDTALLOC_TRACE_CUT : 0) |
	     (loop ? RDTALLOC_TRACE_LOOP : 0);
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
