// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profile: rdtctl profile - GROUP's mask swept over 1..N ways with the
 * counters read at each (its schema leased, so a kill puts it back), or
 * --trace FILE: a miss curve from one pass. docs/plan.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdtctl.h"

static void print_sweep(json_object *doc)
{
	json_object *st = jget(doc, "steps");
	size_t i;

	printf("group %s, L3 cache id %lld", jget_str(doc, "group"), jget_int(doc, "cache_id"));
	if (*jget_str(doc, "exclusive_left_out"))
		printf(", ways %lld-%lld (the others are exclusive group %s's)",
		       jget_int(doc, "first_way"),
		       jget_int(doc, "first_way") + jget_int(doc, "sweep_ways") - 1,
		       jget_str(doc, "exclusive_left_out"));
	printf(":\n%5s %16s %18s\n", "WAYS", "OCCUPANCY KiB", "BANDWIDTH MB/s");
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

	json_object *smp = jget(doc, "sample");

	printf("%lld accesses, a cache of %lld sets; miss ratio alone with k ways:\n",
	       jget_int(doc, "accesses"), jget_int(doc, "sets"));
	if (smp)
		printf("(sampled: %lld of the %lld sets, about 1 in %lld, with %lld of the "
		       "accesses)\n", jget_int(smp, "sets"), jget_int(doc, "sets"),
		       jget_int(smp, "one_in"), jget_int(smp, "accesses"));
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
 * The ways group may take in L3 domain id: all of them but another group's
 * exclusive ones (the kernel, and the library, refuse a mask over those).
 * The sweep runs over the longest run of them (the lowest such run): masks
 * must be contiguous on most parts. *base and *len say where; names gets
 * the exclusive groups left out, "" if none.
 */
static int sweep_ways(rdtalloc_t *r, const char *group, int id, unsigned int ways,
		      unsigned int *base, unsigned int *len, char *names, size_t nlen)
{
	struct rdtalloc_ways_info wi = { .sz = sizeof(wi) };
	uint64_t taken = 0;
	unsigned int w, run = 0;
	char **list;
	int n, i;

	names[0] = '\0';
	n = list_groups(r, &list);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct rdtalloc_mask_info m;
		int mode;

		if (!strcmp(list[i], group))
			continue;
		mode = rdtalloc_group_get_mode(r, list[i]);
		if (mode < 0 || !(mode & RDTALLOC_MODE_EXCLUSIVE))
			continue;
		if (group_mask(r, list[i], "L3", (unsigned int)id, &m))
			break;
		taken |= m.mask | m.code_mask;
		snprintf(names + strlen(names), nlen - strlen(names), "%s%s", names[0] ? ", " : "",
			 list[i]);
	}
	free_names(list, n);
	if (i < n)
		return -1;
	/* the ways I/O fills (shareable_bits, io_alloc) and other tools' exclusive ones */
	n = rdtalloc_domain_ways(r, "L3", (unsigned int)id, &wi);
	if (n) {
		fail_lib(r, n);
		return -1;
	}
	taken |= wi.io_ways | wi.foreign_ways;
	*len = 0;
	for (w = 0; w <= ways; w++) {
		if (w < ways && !(taken >> w & 1)) {
			run++;
			continue;
		}
		if (run > *len) {
			*len = run;
			*base = w - run;
		}
		run = 0;
	}
	return 0;
}

/*
 * Sweep group's mask in one L3 domain over min..N ways (the lowest ways it
 * may take), interval seconds each, reading its occupancy and bandwidth at
 * each step; its schema goes back as it was at the end, whatever happens
 * (an error, a signal: SIGINT, SIGTERM, SIGHUP end the sweep and still
 * restore).
 */
static int profile_group(const char *group, const char *dom, double interval)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	unsigned int ways = 0, min = 1, k, base = 0, run = 0;
	char text[64], excl[256], why[1400] = "";
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
	if (sweep_ways(r, group, id, ways, &base, &run, excl, sizeof(excl)))
		return EXIT_FAIL;
	if (run < min && !excl[0])
		return fail_msg("profile %s: no %u free way%s in a row in L3 cache id %d to sweep "
				"over: the others are I/O's or another tool's (rdtctl io-alloc show)",
				group, min, min == 1 ? "" : "s", id);
	if (run < min)
		return fail_msg("profile %s: no %u free way%s in a row in L3 cache id %d to sweep "
				"over: exclusive group%s %s hold%s the others", group, min,
				min == 1 ? "" : "s", id, strchr(excl, ',') ? "s" : "", excl,
				strchr(excl, ',') ? "" : "s");
	/*
	 * The schema is leased before the sweep: if this process is killed
	 * (SIGKILL, the OOM killer), the next rdtctl puts it back.
	 */
	n = rdtalloc_schema_lease(r, group);
	if (n < 0)
		return fail_lib(r, n);
	stop_signal = 0;
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	doc = jobj();
	steps = jarr();
	for (k = min; k <= run && !stop_signal && ret == 0; k++) {
		struct rdtalloc_mon_value a, b;
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };
		json_object *st;
		double dt;

		snprintf(text, sizeof(text), "L3:%d=%llx", id,
			 (unsigned long long)((k >= 64 ? UINT64_MAX : (UINT64_C(1) << k) - 1) << base));
		ret = rdtalloc_set_schema(r, group, text);
		if (!ret)
			ret = read_one(r, group, (unsigned int)id, &a);
		if (ret) {
			/* said before the restore, whose own message would take its place */
			snprintf(why, sizeof(why), "profile %s at %u ways (%s): %s", group, k, text,
				 rdtalloc_errmsg(r));
			break;
		}
		if (nanosleep(&ts, NULL) && stop_signal)
			break;
		ret = read_one(r, group, (unsigned int)id, &b);
		if (ret) {
			snprintf(why, sizeof(why), "profile %s: %s", group, rdtalloc_errmsg(r));
			break;
		}
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
	n = rdtalloc_schema_restore(r, group);
	if (n && !ret) {
		ret = n;
		snprintf(why, sizeof(why), "profile %s: its schema could not be put back: %s",
			 group, rdtalloc_errmsg(r));
	}
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (ret || stop_signal) {
		json_object_put(doc);
		json_object_put(steps);
		if (stop_signal)
			return fail_msg("profile %s: stopped by signal %d; its schema is back",
					group, (int)stop_signal);
		return fail_msg("%s", why);
	}
	jset(doc, "group", jstr(group));
	jset(doc, "cache_id", jint(id));
	jset(doc, "ways", jint(ways));
	jset(doc, "first_way", jint(base));
	jset(doc, "sweep_ways", jint(run));
	jset(doc, "exclusive_left_out", jstr(excl));
	jset(doc, "steps", steps);
	return emit(doc, print_sweep);
}

/* --sample N: one set in N modelled, N a power of two from 2 to 4096. */
static int parse_sample(const char *v, unsigned int *shift)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n < 2 || n > (1ul << RDTALLOC_CURVE_SAMPLE_MAX) ||
	    (n & (n - 1)))
		return usage_error("profile: --sample '%.40s': give N, a power of two from 2 to "
				   "%lu (one set in N is modelled)", v,
				   1ul << RDTALLOC_CURVE_SAMPLE_MAX);
	*shift = (unsigned int)__builtin_ctzl(n);
	return 0;
}

int do_profile(int argc, char **argv)
{
	static const char synopsis[] =
		"profile --trace FILE [--domain ID] [--instr] [--sample N] | profile GROUP "
		"[--domain ID] [--interval S]";
	const char *trace = NULL, *dom = NULL, *ival = "2", *sample = NULL;
	unsigned int shift = 0;
	bool instr = false;
	const struct flag flags[] = {
		{ "--trace", NULL, &trace }, { "--domain", NULL, &dom },
		{ "--instr", &instr, NULL }, { "--interval", NULL, &ival },
		{ "--sample", NULL, &sample }, { NULL, NULL, NULL },
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
	if (sample) {
		ret = parse_sample(sample, &shift);
		if (ret)
			return ret;
	}
	ret = parse_domain(dom, &id);
	if (ret)
		return ret;
	r = ctx_whatif();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_trace_curve(r, id, trace, (instr ? RDTALLOC_TRACE_INSTR : 0) |
				   RDTALLOC_CURVE_SAMPLE(shift), &c);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "sets", jint(c.geo.sets));
	jset(doc, "ways", jint(c.geo.ways));
	jset(doc, "accesses", jint((long long)c.accesses));
	if (c.sample_shift) {
		json_object *smp = jobj();

		jset(smp, "one_in", jint(1ll << c.sample_shift));
		jset(smp, "sets", jint(c.sample_sets));
		jset(smp, "accesses", jint((long long)c.sample_accesses));
		jset(doc, "sample", smp);
	} else {
		jset_null(doc, "sample");
	}
	mr = jarr();
	for (k = 0; k < c.geo.ways; k++)
		json_object_array_add(mr, json_object_new_double(ratio(c.misses[k], c.accesses)));
	jset(doc, "miss_ratio", mr);
	return emit(doc, print_curve);
}
