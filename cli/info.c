// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * info: what the machine offers and which backend drives it. The document
 * is built from a table of sections, each a collector (library -> JSON)
 * and a printer (JSON -> text), so that more facts (CPUID, presets) are
 * one more row, not edits all over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor_tm.h"
#include "rdtctl.h"

struct info_section {
	const char *key;			/* member of the JSON document */
	json_object *(*collect)(rdtalloc_t *r);	/* NULL: failed, reported */
	void (*print)(json_object *v);
};

static json_object *collect_backend(rdtalloc_t *r)
{
	struct rdtalloc_stats st = { .sz = sizeof(st) };
	struct rdtalloc_limits lim = { .sz = sizeof(lim) };
	json_object *o, *w, *l;
	unsigned int pqr;
	int ret, prec;

	ret = rdtalloc_get_stats(r, &st);
	if (ret) {
		fail_lib(r, ret);
		return NULL;
	}
	prec = rdtalloc_get_precedence(r);
	if (prec < 0) {
		fail_lib(r, prec);
		return NULL;
	}
	ret = rdtalloc_get_limits(r, &lim);
	if (ret) {
		fail_lib(r, ret);
		return NULL;
	}
	o = jobj();
	jset(o, "name", jstr(rdtalloc_backend(r)));
	jset(o, "reason", jstr(rdtalloc_backend_reason(r)));
	jset(o, "precedence", jstr(precedence_name(prec)));
	jset(o, "library", jstr(rdtalloc_version_string()));
	{
		const char *path = rdtalloc_state_path(r);
		char why[160];

		/*
		 * no state yet: the one shown is made up for the look, its id is not
		 * the one the state will be made with (chosen then)
		 */
		if (path && access(path, F_OK) && errno == ENOENT)
			jset_null(o, "state_id");
		else
			jset(o, "state_id", jstr(rdtalloc_state_id(r)));

		/* which state this is, and why that one: the hook, units and agent must agree */
		if (!path)
			snprintf(why, sizeof(why), "ephemeral: in this process only");
		else if (g_opts.state_from)
			snprintf(why, sizeof(why), "from %s", g_opts.state_from);
		else
			snprintf(why, sizeof(why), "the default for %s and backend %s; --state-dir "
				 "or $RDTALLOC_STATE_DIR for another", geteuid() ? "this user" : "root",
				 rdtalloc_backend(r));
		if (path)
			jset(o, "state", jstr(path));
		else
			jset_null(o, "state");
		jset(o, "state_from", jstr(why));
	}
	l = jobj();
	jset(l, "max_groups", jint(lim.max_groups));
	jset(l, "max_tasks", jint(lim.max_tasks));
	jset(l, "max_cgroups", jint(lim.max_cgroups));
	jset(l, "groups", jint(lim.groups));
	jset(l, "tasks", jint(lim.tasks));
	jset(l, "cgroups", jint(lim.cgroups));
	jset(o, "limits", l);
	/*
	 * Register writes over the life of the state: the engine writes only
	 * changes. Where the kernel owns the registers (resctrl) there are none.
	 */
	if (rdtalloc_read_pqr(r, 0, &pqr) == -EOPNOTSUPP)
		return o;
	w = jobj();
	jset(w, "mask", jint((long long)st.mask_writes));
	jset(w, "pqr", jint((long long)st.pqr_writes));
	jset(w, "cfg", jint((long long)st.cfg_writes));
	jset(o, "writes", w);
	return o;
}

static void print_backend(json_object *o)
{
	json_object *w = jget(o, "writes");

	printf("backend:  %s (%s)\n", jget_str(o, "name"), jget_str(o, "reason"));
	printf("library:  librdtalloc %s\n", jget_str(o, "library"));
	printf("rule:     precedence=%s (%s)\n", jget_str(o, "precedence"),
	       precedence_text(jget_str(o, "precedence")));
	printf("state:    %s (%s)\n", jget(o, "state") ? jget_str(o, "state") : "none",
	       jget_str(o, "state_from"));
	if (!jget(o, "state_id"))
		printf("state:    no id yet (chosen when the state is made, by the first "
		       "change)\n");
	else if (*jget_str(o, "state_id"))
		printf("state:    id %s (what it owns outside its file carries it: resctrl "
		       "control groups rdtalloc-%s-GROUP)\n", jget_str(o, "state_id"),
		       jget_str(o, "state_id"));
	else
		printf("state:    no id (made before ids: its resctrl control groups are "
		       "rdtalloc-N)\n");
	printf("holds:    %lld of %lld groups, %lld of %lld bound tasks, %lld of %lld bound "
	       "cgroups\n", jget_int(jget(o, "limits"), "groups"),
	       jget_int(jget(o, "limits"), "max_groups"), jget_int(jget(o, "limits"), "tasks"),
	       jget_int(jget(o, "limits"), "max_tasks"), jget_int(jget(o, "limits"), "cgroups"),
	       jget_int(jget(o, "limits"), "max_cgroups"));
	if (!w)
		return;
	printf("writes:   %lld mask, %lld PQR_ASSOC, %lld QOS_CFG (since the state was made)\n",
	       (long long)json_object_get_int64(jget(w, "mask")),
	       (long long)json_object_get_int64(jget(w, "pqr")),
	       (long long)json_object_get_int64(jget(w, "cfg")));
}

static json_object *collect_cpus(rdtalloc_t *r)
{
	int n = rdtalloc_cpu_count(r);

	if (n < 0) {
		fail_lib(r, n);
		return NULL;
	}
	return jint(n);
}

static void print_cpus(json_object *v)
{
	printf("CPUs:     %lld (numbered 0-%lld)\n", (long long)json_object_get_int64(v),
	       (long long)json_object_get_int64(v) - 1);
}

/*
 * The ways of a cache domain not ours to give (bit_usage on resctrl) and
 * io_alloc's mask there: "io_ways", "foreign_ways", "io_alloc" (enabled,
 * disabled; absent where the machine has none), "io_alloc_mask". 0, or
 * non-zero with the error printed.
 */
static int domain_ways(rdtalloc_t *r, const char *res, unsigned int id, json_object *o)
{
	struct rdtalloc_ways_info w = { .sz = sizeof(w) };
	int ret = rdtalloc_domain_ways(r, res, id, &w);

	if (ret)
		return fail_lib(r, ret);
	jset(o, "io_ways", jhex(w.io_ways));
	jset(o, "foreign_ways", jhex(w.foreign_ways));
	if (w.io_alloc_supported) {
		jset(o, "io_alloc", jstr(w.io_alloc_enabled ? "enabled" : "disabled"));
		jset(o, "io_alloc_closid", jint(w.io_alloc_closid));
	}
	if (w.io_alloc_enabled)
		jset(o, "io_alloc_mask", jhex(w.io_alloc_mask));
	return 0;
}

static json_object *collect_domain(rdtalloc_t *r, const char *res, unsigned int id)
{
	struct rdtalloc_closid_info *cl;
	json_object *o;
	int *cpus, n, ncl;
	char *list;

	n = domain_cpus(r, res, id, &cpus);
	if (n < 0)
		return NULL;
	list = cpulist_text(cpus, (size_t)n);
	free(cpus);
	if (!list)
		return NULL;
	ncl = domain_closids(r, res, id, &cl);
	if (ncl < 0) {
		free(list);
		return NULL;
	}
	free(cl);
	o = jobj();
	jset(o, "cache_id", jint(id));
	jset(o, "cpus", jstr(list));
	jset(o, "closids_in_use", jint(ncl));
	if (strcmp(res, "MB") && domain_ways(r, res, id, o)) {
		free(list);
		json_object_put(o);
		return NULL;
	}
	{
		uint64_t size = 0;
		unsigned int ways = 0;

		if (!rdtalloc_domain_cache(r, res, id, &size, &ways)) {
			jset(o, "cache_size", jint((long long)size));
			jset(o, "ways", jint(ways));
		}
	}
	free(list);
	return o;
}

static json_object *collect_resource(rdtalloc_t *r, unsigned int idx)
{
	struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };
	json_object *o, *doms;
	unsigned int *ids;
	int ret, n;

	ret = rdtalloc_get_resource_info(r, idx, &ri);
	if (ret < 0) {
		fail_lib(r, ret);
		return NULL;
	}
	n = domain_ids(r, ri.name, &ids);
	if (n < 0)
		return NULL;
	o = jobj();
	jset(o, "name", jstr(ri.name));
	jset(o, "closids", jint(ri.num_closids));
	jset(o, "hw_closids", jint(ri.hw_closids));
	jset(o, "cbm_len", jint(ri.cbm_len));
	jset(o, "min_cbm_bits", jint(ri.min_cbm_bits));
	jset(o, "shareable_bits", jhex(ri.shareable_bits));
	jset(o, "cdp_supported", jbool(ri.cdp_supported));
	jset(o, "cdp", jbool(ri.cdp_enabled));
	jset(o, "sparse", jbool(ri.sparse_masks));
	if (!strcmp(ri.name, "MB")) {
		jset(o, "min_bandwidth", jint(ri.min_bandwidth));
		jset(o, "bandwidth_gran", jint(ri.bandwidth_gran));
		jset(o, "max_bandwidth", jint(ri.max_bandwidth));
		jset(o, "units", jstr(ri.bandwidth_amd ? "1/8 GB/s" : ri.bandwidth_mbps ? "MBps" :
				      "percent"));
	}
	doms = jarr();
	for (int i = 0; i < n; i++) {
		json_object *d = collect_domain(r, ri.name, ids[i]);

		if (!d) {
			json_object_put(doms);
			json_object_put(o);
			free(ids);
			return NULL;
		}
		jpush(doms, d);
	}
	free(ids);
	jset(o, "domains", doms);
	return o;
}

/*
 * On resctrl every control group takes a CLOSID of every resource (the
 * kernel uses the least count of them all): a cache may have 16 while MB's
 * 8 limit the groups to 8. Each resource then says so ("usable_closids",
 * and the resource that limits it); elsewhere a resource's own count holds.
 */
static void usable_closids(rdtalloc_t *r, json_object *a)
{
	long long least = -1;
	const char *by = NULL;
	size_t i;

	if (strcmp(rdtalloc_backend(r), "resctrl"))
		return;
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		if (least < 0 || jget_int(o, "closids") < least) {
			least = jget_int(o, "closids");
			by = jget_str(o, "name");
		}
	}
	for (i = 0; by && i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		jset(o, "usable_closids", jint(least));
		if (least < jget_int(o, "closids"))
			jset(o, "limited_by", jstr(by));
	}
}

static json_object *collect_resources(rdtalloc_t *r)
{
	int n = rdtalloc_resource_count(r);
	json_object *a;

	if (n < 0) {
		fail_lib(r, n);
		return NULL;
	}
	a = jarr();
	for (int i = 0; i < n; i++) {
		json_object *o = collect_resource(r, (unsigned int)i);

		if (!o) {
			json_object_put(a);
			return NULL;
		}
		jpush(a, o);
	}
	usable_closids(r, a);
	return a;
}

/* "; 8 usable: resctrl gives ..." when another resource limits this one's CLOSIDs. */
static void print_limited(json_object *o)
{
	if (jget(o, "limited_by"))
		printf("; %lld usable: resctrl gives each control group a CLOSID of every "
		       "resource, and %s has %lld", jget_int(o, "usable_closids"),
		       jget_str(o, "limited_by"), jget_int(o, "usable_closids"));
}

/* MB: values, not masks; its domains are the L3 domains. */
static void print_mb(json_object *o)
{
	json_object *doms = jget(o, "domains");

	printf("\nMB memory bandwidth allocation\n");
	printf("  CLOSIDs:        %lld (throttled groups use only these)", jget_int(o, "closids"));
	print_limited(o);
	putchar('\n');
	printf("  values:         %lld .. %lld %s, in steps of %lld (rounded up)\n",
	       jget_int(o, "min_bandwidth"), jget_int(o, "max_bandwidth"),
	       jget_str(o, "units"), jget_int(o, "bandwidth_gran"));
	printf("  %-10s %-16s %s\n", "domain", "CPUs", "CLOSIDs in use");
	for (size_t i = 0; i < json_object_array_length(doms); i++) {
		json_object *d = json_object_array_get_idx(doms, i);

		printf("  %-10lld %-16s %lld\n", jget_int(d, "cache_id"), jget_str(d, "cpus"),
		       jget_int(d, "closids_in_use"));
	}
}

/*
 * io_alloc (resctrl, 6.19) and, where they differ from shareable_bits, the
 * ways of each domain that the hardware fills or another owner holds.
 */
static void print_io_ways(json_object *o)
{
	json_object *doms = jget(o, "domains"), *d0 = json_object_array_get_idx(doms, 0);

	if (d0 && jget(d0, "io_alloc"))
		printf("  io_alloc:       %s, %s CLOSID %lld (rdtctl io-alloc)\n",
		       jget_str(d0, "io_alloc"),
		       strcmp(jget_str(d0, "io_alloc"), "enabled") ? "would take" : "holds",
		       jget_int(d0, "io_alloc_closid"));
	for (size_t i = 0; i < json_object_array_length(doms); i++) {
		json_object *d = json_object_array_get_idx(doms, i);
		const char *io = jget_str(d, "io_ways"), *fw = jget_str(d, "foreign_ways");

		if (!strcmp(io, jget_str(o, "shareable_bits")) && !strcmp(fw, "0x0") &&
		    !jget(d, "io_alloc_mask"))
			continue;
		printf("  cache id %lld: I/O ways %s", jget_int(d, "cache_id"), io);
		if (jget(d, "io_alloc_mask"))
			printf(" (io_alloc %s)", jget_str(d, "io_alloc_mask"));
		printf(", other owners' exclusive ways %s\n", fw);
	}
}

static void print_resource(json_object *o)
{
	json_object *doms = jget(o, "domains");
	const char *cdp = !jget_bool(o, "cdp_supported") ? "not supported" :
			  jget_bool(o, "cdp") ? "on" : "off (supported)";

	if (!strcmp(jget_str(o, "name"), "MB")) {
		print_mb(o);
		return;
	}
	printf("\n%s cache allocation\n", jget_str(o, "name"));
	printf("  CLOSIDs:        %lld", jget_int(o, "closids"));
	if (jget_int(o, "closids") != jget_int(o, "hw_closids"))
		printf(" (%lld in hardware, halved by CDP)", jget_int(o, "hw_closids"));
	print_limited(o);
	printf("\n  CBM length:     %lld bits\n", jget_int(o, "cbm_len"));
	printf("  min CBM bits:   %lld\n", jget_int(o, "min_cbm_bits"));
	printf("  shareable bits: %s\n", jget_str(o, "shareable_bits"));
	printf("  masks:          %s\n", jget_bool(o, "sparse") ? "sparse allowed" :
	       "contiguous only");
	printf("  CDP:            %s\n", cdp);
	printf("  %-10s %-16s %-20s %s\n", "cache id", "CPUs", "cache", "CLOSIDs in use");
	for (size_t i = 0; i < json_object_array_length(doms); i++) {
		json_object *d = json_object_array_get_idx(doms, i);
		char cache[32] = "unknown";

		if (jget_int(d, "cache_size") && jget_int(d, "ways"))
			snprintf(cache, sizeof(cache), "%lld KiB, %lld ways",
				 jget_int(d, "cache_size") / 1024, jget_int(d, "ways"));
		else if (jget_int(d, "cache_size"))
			snprintf(cache, sizeof(cache), "%lld KiB", jget_int(d, "cache_size") / 1024);
		printf("  %-10lld %-16s %-20s %lld of %lld\n", jget_int(d, "cache_id"),
		       jget_str(d, "cpus"), cache, jget_int(d, "closids_in_use"),
		       jget_int(o, "closids"));
	}
	print_io_ways(o);
}

static void print_resources(json_object *a)
{
	if (json_object_array_length(a) == 0)
		printf("\nno cache allocation resource\n");
	for (size_t i = 0; i < json_object_array_length(a); i++)
		print_resource(json_object_array_get_idx(a, i));
}

static json_object *mon_events_json(unsigned int events)
{
	static const char *const names[] = { "llc_occupancy", "mbm_total_bytes",
					     "mbm_local_bytes" };
	json_object *a = jarr();

	for (unsigned int i = 0; i < 3; i++)
		if (events & (1u << i))
			jpush(a, jstr(names[i]));
	return a;
}

/* The "monitoring" member: null without L3 monitoring. */
static json_object *mon_json(unsigned int rmids, unsigned int scale, unsigned int width,
			     unsigned int events)
{
	json_object *o;

	if (!rmids)
		return NULL;
	o = jobj();
	jset(o, "rmids", jint(rmids));
	jset(o, "scale", jint(scale));
	jset(o, "width", jint(width));
	jset(o, "events", mon_events_json(events));
	return o;
}

static void print_mon(json_object *o)
{
	json_object *ev = jget(o, "events");

	if (!o) {
		printf("monitoring: none (no L3 monitoring)\n");
		return;
	}
	printf("monitoring: L3, %lld RMIDs, %lld bytes per count, %lld-bit counters, events",
	       jget_int(o, "rmids"), jget_int(o, "scale"), jget_int(o, "width"));
	for (size_t i = 0; i < json_object_array_length(ev); i++)
		printf("%s %s", i ? "," : "",
		       json_object_get_string(json_object_array_get_idx(ev, i)));
	if (jget(o, "in_use"))
		printf("\n  RMIDs in use %lld, in limbo %lld (reused under %lld bytes), groups "
		       "without one %lld", jget_int(o, "in_use"), jget_int(o, "in_limbo"),
		       jget_int(o, "threshold"), jget_int(o, "unmonitored"));
	if (jget(o, "mbm_correction"))
		printf("\n  MBM counts of RMIDs above %lld x %.6f (the part's erratum, BDF102 or "
		       "SKX99, corrected as the kernel does)",
		       jget_int(jget(o, "mbm_correction"), "rmids_above"),
		       json_object_get_double(jget(jget(o, "mbm_correction"), "factor")));
	tm_info_print(o);
	printf("\n");
	mon_counters_print(jget(o, "counters"));
}

/* What CPUID says: a JSON object of struct rdtalloc_cpu_caps. */
static json_object *caps_json(const struct rdtalloc_cpu_caps *c)
{
	json_object *o = jobj(), *res = jarr();

	jset(o, "vendor", jstr(c->vendor));
	jset(o, "brand", jstr(c->brand));
	jset(o, "family", jint(c->family));
	jset(o, "model", jint(c->model));
	jset(o, "stepping", jint(c->stepping));
	jset(o, "rdt_alloc", jbool(c->rdt_alloc));
	jset(o, "mba", jbool(c->mba));
	if (c->mba_closids) {
		json_object *m = jobj();

		jset(m, "closids", jint(c->mba_closids));
		if (c->mba_bw_len) {
			jset(m, "bw_len", jint(c->mba_bw_len));
		} else {
			jset(m, "max_throttle", jint(c->mba_max_throttle));
			jset(m, "linear", jbool(c->mba_linear));
		}
		jset(o, "mba_caps", m);
	}
	jset(o, "probe_needed", jbool(c->probe_needed));
	for (unsigned int i = 0; i < c->nres && i < 2; i++) {
		json_object *e = jobj();

		jset(e, "name", jstr(c->res[i].name));
		jset(e, "closids", jint(c->res[i].closids));
		jset(e, "cbm_len", jint(c->res[i].cbm_len));
		jset(e, "shareable_bits", jhex(c->res[i].shareable_bits));
		jset(e, "cdp", jbool(c->res[i].cdp));
		jset(e, "sparse", jbool(c->res[i].sparse));
		/* Also keyed by name, for scripts: .L3.closids */
		jset(o, c->res[i].name, json_object_get(e));
		jpush(res, e);
	}
	jset(o, "resources", res);
	jset(o, "summary", jstr(c->summary));
	if (c->l3_mon)
		jset(o, "monitoring", mon_json(c->mon_rmids, c->mon_scale, c->mon_width,
					       c->mon_events));
	else
		jset_null(o, "monitoring");
	return o;
}

static void print_caps(json_object *o)
{
	json_object *res = jget(o, "resources"), *m;

	printf("cpu:      %s %s (family 0x%llx model 0x%llx stepping %lld)\n",
	       jget_str(o, "vendor"), jget_str(o, "brand"), jget_int(o, "family"),
	       jget_int(o, "model"), jget_int(o, "stepping"));
	printf("CPUID:    %s\n", jget_str(o, "summary"));
	for (size_t i = 0; res && i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i);

		printf("  %s: %lld CLOSIDs, %lld-bit CBM, shareable %s, CDP %s, %s masks\n",
		       jget_str(e, "name"), jget_int(e, "closids"), jget_int(e, "cbm_len"),
		       jget_str(e, "shareable_bits"), jget_bool(e, "cdp") ? "yes" : "no",
		       jget_bool(e, "sparse") ? "sparse" : "contiguous");
	}
	if ((m = jget(o, "mba_caps")) && jget(m, "bw_len"))
		printf("  MB: %lld CLOSIDs, %lld-bit bandwidth field (1/8 GB/s units)\n",
		       jget_int(m, "closids"), jget_int(m, "bw_len"));
	else if (m)
		printf("  MB: %lld CLOSIDs, max throttle %lld%%, %s delay\n", jget_int(m, "closids"),
		       jget_int(m, "max_throttle"), jget_bool(m, "linear") ? "linear" : "non-linear");
	printf("  ");
	print_mon(jget(o, "monitoring"));
	printf("\n");
}

static json_object *collect_host_cpu(rdtalloc_t *r)
{
	struct rdtalloc_cpu_caps c = { .sz = sizeof(c) };
	int err = rdtalloc_cpuid_host(&c);

	(void)r;
	if (err) {
		fail_lib(NULL, err);
		return NULL;
	}
	return caps_json(&c);
}

/* A section may be null: collect returns this to say so. */
static char null_section;
#define NULL_SECTION ((json_object *)&null_section)

static json_object *collect_mon(rdtalloc_t *r)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	json_object *o;
	int ret = rdtalloc_mon_get_info(r, &mi);

	if (ret) {
		fail_lib(r, ret);
		return NULL;
	}
	o = mon_json(mi.rmids, mi.scale, mi.width, mi.events);
	if (!o)
		return NULL_SECTION;
	jset(o, "threshold", jint((long long)mi.threshold));
	jset(o, "in_use", jint(mi.in_use));
	jset(o, "in_limbo", jint(mi.in_limbo));
	jset(o, "unmonitored", jint(mi.unmonitored));
	{
		json_object *cn = mon_counters_json(r, &ret);

		if (ret) {
			fail_lib(r, ret);
			json_object_put(o);
			return NULL;
		}
		if (cn)
			jset(o, "counters", cn);
	}
	if (mi.mbm_cf > 0) {
		json_object *cf = jobj();

		jset(cf, "rmids_above", jint(mi.mbm_cf_threshold));
		jset(cf, "factor", json_object_new_double(mi.mbm_cf));
		jset(o, "mbm_correction", cf);
	}
	if (tm_info_json(r, o, mi.snc_nodes, mi.hw_rmids)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static const struct info_section sections[] = {
	{ "backend", collect_backend, print_backend },
	{ "cpu", collect_host_cpu, print_caps },
	{ "cpus", collect_cpus, print_cpus },
	{ "resources", collect_resources, print_resources },
	{ "monitoring", collect_mon, print_mon },
};

#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

static void print_info(json_object *doc)
{
	for (size_t i = 0; i < NSECTIONS; i++)
		sections[i].print(jget(doc, sections[i].key));
}

/* info --cpuid FILE: decode a recorded `cpuid -r` dump instead of the CPU. */
static int info_cpuid(const char *path)
{
	struct rdtalloc_cpu_caps c = { .sz = sizeof(c) };
	int err = rdtalloc_cpuid_decode_file(path, &c);

	if (err)
		return fail_lib(NULL, err);
	return emit(caps_json(&c), print_caps);
}

static int add_preset(const char *name, const char *desc, const char *source, void *arg)
{
	json_object *e = jobj();

	jset(e, "name", jstr(name));
	jset(e, "machine", jstr(desc));
	jset(e, "source", jstr(source));
	jpush(arg, e);
	return 0;
}

static void print_presets(json_object *doc)
{
	json_object *a = jget(doc, "presets");

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		printf("%s\n  machine: %s\n  source:  %s\n", jget_str(e, "name"),
		       jget_str(e, "machine"), jget_str(e, "source"));
	}
}

/* info --presets: the named real parts a machine description can use. */
static int info_presets(void)
{
	json_object *doc = jobj(), *a = jarr();
	int err = rdtalloc_preset_foreach(add_preset, a);

	jset(doc, "presets", a);
	if (err) {
		json_object_put(doc);
		return fail_lib(NULL, err);
	}
	return emit(doc, print_presets);
}

int do_info(int argc, char **argv)
{
	json_object *doc;
	rdtalloc_t *r;
	int ret;
	const char *dump = NULL;
	bool presets = false;
	const struct flag flags[] = {
		{ "--cpuid", NULL, &dump },
		{ "--presets", &presets, NULL },
		{ NULL, NULL, NULL },
	};

	ret = parse_flags("info", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, "info [--cpuid FILE | --presets]");
	if (dump && presets)
		return usage_error("info: --cpuid and --presets do not go together");
	if (dump)
		return info_cpuid(dump);
	if (presets)
		return info_presets();
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	doc = jobj();
	for (size_t i = 0; i < NSECTIONS; i++) {
		json_object *v = sections[i].collect(r);

		if (!v) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		if (v == NULL_SECTION)
			jset_null(doc, sections[i].key);
		else
			jset(doc, sections[i].key, v);
	}
	return emit(doc, print_info);
}
