// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor_tm: how `rdtctl monitor` shows Sub-NUMA nodes and package
 * telemetry (monitor_tm.h). The library gives running counts; a rate or a
 * power needs the previous sample of this run (none in the first: null,
 * "..."). A value the kernel has not is its state, never 0.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "monitor_tm.h"
#include "rdtctl.h"

static const char *tm_state(int st)
{
	static const char *const names[] = { "ok", "unavailable", "error", "unsupported",
					     "unassigned", "missing" };

	return st >= 0 && st <= RDTALLOC_MON_MISSING ? names[st] : "error";
}

void tm_filter_domain(struct tm_data *d, int dom)
{
	size_t i, k = 0;

	for (i = 0; dom >= 0 && i < d->nnodes; i++)
		if (d->nodes[i].cache_id == (unsigned int)dom)
			d->nodes[k++] = d->nodes[i];
	if (dom >= 0)
		d->nnodes = k;
}

static const struct rdtalloc_mon_node *prev_node(const struct tm_data *prev,
						 const struct rdtalloc_mon_node *v)
{
	size_t i;

	for (i = 0; prev && i < prev->nnodes; i++)
		if (prev->nodes[i].node == v->node && prev->nodes[i].rmid == v->rmid &&
		    !strcmp(prev->nodes[i].group, v->group))
			return &prev->nodes[i];
	return NULL;
}

static const struct rdtalloc_pkg_value *prev_pkg(const struct tm_data *prev,
						 const struct rdtalloc_pkg_value *v)
{
	size_t i;

	for (i = 0; prev && i < prev->npkg; i++)
		if (prev->pkg[i].package == v->package && prev->pkg[i].rmid == v->rmid &&
		    !strcmp(prev->pkg[i].group, v->group))
			return &prev->pkg[i];
	return NULL;
}

/* Per second between two readings of a running count; NAN when not known. */
static double per_s(bool ok, uint64_t now, uint64_t before, bool had, uint64_t t, uint64_t pt)
{
	if (!ok || !had || t <= pt || now < before)
		return NAN;
	return (double)(now - before) * 1e9 / (double)(t - pt);
}

static double node_rate(const struct rdtalloc_mon_node *v, const struct rdtalloc_mon_node *p,
			unsigned int ev)
{
	bool ok = (v->valid & ev) && p && (p->valid & ev);

	if (ev == RDTALLOC_MON_EV_TOTAL)
		return per_s(ok, v->mbm_total, p ? p->mbm_total : 0, ok, v->time_ns,
			     p ? p->time_ns : 0);
	return per_s(ok, v->mbm_local, p ? p->mbm_local : 0, ok, v->time_ns, p ? p->time_ns : 0);
}

/* Watts (joules per second: millionths per microsecond) of the energy since the last sample. */
static double pkg_rate(const struct rdtalloc_pkg_value *v, const struct rdtalloc_pkg_value *p,
		       unsigned int e)
{
	bool ok = (v->valid & (1u << e)) && p && (p->valid & (1u << e));

	return per_s(ok, v->value[e], p ? p->value[e] : 0, ok, v->time_ns, p ? p->time_ns : 0) /
	       (e <= RDTALLOC_PKG_ACTIVITY ? 1e6 : 1);
}

/* Millionths as a JSON number written with their 6 decimals (no binary rounding shown). */
static json_object *micro(uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 ".%06" PRIu64, v / 1000000u, v % 1000000u);
	return json_object_new_double_s((double)v / 1e6, text);
}

static json_object *num_or_null(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static void jmaybe(json_object *o, const char *key, json_object *v)
{
	if (v)
		jset(o, key, v);
	else
		jset_null(o, key);
}

json_object *tm_nodes_json(const struct tm_data *d, const struct tm_data *prev, const char *group,
			   unsigned int cache_id)
{
	json_object *a;
	size_t i;

	if (!d->nnodes)
		return NULL;
	a = jarr();
	for (i = 0; i < d->nnodes; i++) {
		const struct rdtalloc_mon_node *v = &d->nodes[i], *p = prev_node(prev, v);
		json_object *o;

		if (v->cache_id != cache_id || strcmp(v->group, group))
			continue;
		o = jobj();
		jset(o, "node", jint(v->node));
		jset(o, "state", jstr(tm_state(v->state)));
		jmaybe(o, "llc_occupancy_bytes", v->valid & RDTALLOC_MON_EV_OCCUPANCY ?
		       jint((long long)v->llc_occupancy) : NULL);
		jmaybe(o, "mbm_total_bytes", v->valid & RDTALLOC_MON_EV_TOTAL ?
		       jint((long long)v->mbm_total) : NULL);
		jmaybe(o, "mbm_local_bytes", v->valid & RDTALLOC_MON_EV_LOCAL ?
		       jint((long long)v->mbm_local) : NULL);
		jmaybe(o, "mbm_total_bytes_per_second",
		       num_or_null(node_rate(v, p, RDTALLOC_MON_EV_TOTAL)));
		jmaybe(o, "mbm_local_bytes_per_second",
		       num_or_null(node_rate(v, p, RDTALLOC_MON_EV_LOCAL)));
		jpush(a, o);
	}
	return a;
}

/* One event of a package: its state, value (in its unit) and, for energy, watts. */
static json_object *pkg_event_json(const struct rdtalloc_pkg_value *v,
				   const struct rdtalloc_pkg_value *p, unsigned int e)
{
	json_object *o = jobj();
	bool ok = v->valid & (1u << e);

	jset(o, "state", jstr(tm_state(v->state[e])));
	if (e == RDTALLOC_PKG_CORE_ENERGY) {
		jmaybe(o, "joules", ok ? micro(v->value[e]) : NULL);
		jmaybe(o, "watts", num_or_null(pkg_rate(v, p, e)));
	} else if (e == RDTALLOC_PKG_ACTIVITY) {
		jmaybe(o, "farads", ok ? micro(v->value[e]) : NULL);
	} else {
		jmaybe(o, "count", ok ? jint((long long)v->value[e]) : NULL);
		jmaybe(o, "per_second", num_or_null(pkg_rate(v, p, e)));
	}
	return o;
}

json_object *tm_pkg_json(const struct tm_data *d, const struct tm_data *prev, const char *group)
{
	json_object *a;
	unsigned int e;
	size_t i;

	if (!d->npkg)
		return NULL;
	a = jarr();
	for (i = 0; i < d->npkg; i++) {
		const struct rdtalloc_pkg_value *v = &d->pkg[i], *p = prev_pkg(prev, v);
		json_object *o;

		if (strcmp(v->group, group))
			continue;
		o = jobj();
		jset(o, "package", jint(v->package));
		for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++)
			if (v->events & (1u << e))
				jset(o, rdtalloc_pkg_event_name(e), pkg_event_json(v, p, e));
		jpush(a, o);
	}
	return a;
}

static void cell(bool ok, double v, double div, const char *fmt)
{
	if (!ok)
		printf(" %12s", "-");
	else if (isnan(v))
		printf(" %12s", "...");
	else
		printf(fmt, v / div);
}

void tm_table_nodes(const struct tm_data *d, const struct tm_data *prev, const char *group,
		    unsigned int cache_id)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++) {
		const struct rdtalloc_mon_node *v = &d->nodes[i], *p = prev_node(prev, v);
		bool tot = v->valid & RDTALLOC_MON_EV_TOTAL, loc = v->valid & RDTALLOC_MON_EV_LOCAL;
		double rt = node_rate(v, p, RDTALLOC_MON_EV_TOTAL);
		double rl = node_rate(v, p, RDTALLOC_MON_EV_LOCAL);
		char label[32];

		if (v->cache_id != cache_id || strcmp(v->group, group))
			continue;
		snprintf(label, sizeof(label), "  node %u", v->node);
		printf("%-20s %5s %6s", label, "", "");
		cell(v->valid & RDTALLOC_MON_EV_OCCUPANCY, (double)v->llc_occupancy, 1024.0,
		     " %12.1f");
		cell(tot, rt, 1e6, " %12.1f");
		cell(loc, rl, 1e6, " %12.1f");
		cell(tot && loc, rt - rl, 1e6, " %12.1f");
		printf("  %s\n", tm_state(v->state));
	}
}

/* The perf events of a row: "name=count" each, or its state (none the machine cannot count). */
static void pkg_perf_line(const struct rdtalloc_pkg_value *v)
{
	unsigned int e;
	bool any = false;

	for (e = RDTALLOC_PKG_STALLS_LLC_HIT; e < RDTALLOC_PKG_NEVENTS; e++) {
		if (!(v->events & (1u << e)) || v->state[e] == RDTALLOC_MON_UNSUPPORTED)
			continue;
		printf("%s%s=", any ? " " : "    ", rdtalloc_pkg_event_name(e));
		if (v->valid & (1u << e))
			printf("%" PRIu64, v->value[e]);
		else
			printf("%s", tm_state(v->state[e]));
		any = true;
	}
	if (any)
		printf("\n");
}

void tm_table_pkg(const struct tm_data *d, const struct tm_data *prev)
{
	size_t i;

	if (!d->npkg)
		return;
	printf("\n%-20s %5s %7s %14s %10s %14s  %s\n", "GROUP", "RMID", "PACKAGE", "ENERGY J",
	       "POWER W", "ACTIVITY F", "STATE");
	for (i = 0; i < d->npkg; i++) {
		const struct rdtalloc_pkg_value *v = &d->pkg[i], *p = prev_pkg(prev, v);
		bool en = v->valid & (1u << RDTALLOC_PKG_CORE_ENERGY);
		bool act = v->valid & (1u << RDTALLOC_PKG_ACTIVITY);
		double w = pkg_rate(v, p, RDTALLOC_PKG_CORE_ENERGY);
		char rmid[16];

		if (v->rmid >= 0)
			snprintf(rmid, sizeof(rmid), "%d", v->rmid);
		else
			snprintf(rmid, sizeof(rmid), "none");
		printf("%-20s %5s %7u", v->group, rmid, v->package);
		if (en)
			printf(" %14.6f", (double)v->value[RDTALLOC_PKG_CORE_ENERGY] / 1e6);
		else
			printf(" %14s", "-");
		if (!en)
			printf(" %10s", "-");
		else if (isnan(w))
			printf(" %10s", "...");
		else
			printf(" %10.3f", w);
		if (act)
			printf(" %14.6f", (double)v->value[RDTALLOC_PKG_ACTIVITY] / 1e6);
		else
			printf(" %14s", "-");
		printf("  %s\n", tm_state(v->state[v->events & (1u << RDTALLOC_PKG_CORE_ENERGY) ?
					  RDTALLOC_PKG_CORE_ENERGY : RDTALLOC_PKG_STALLS_LLC_HIT]));
		pkg_perf_line(v);
	}
}

int tm_info_json(rdtalloc_t *r, json_object *mon, unsigned int snc_nodes, unsigned int hw_rmids)
{
	struct rdtalloc_pkg_info pi = { .sz = sizeof(pi) };
	json_object *o, *ev;
	unsigned int e;
	int ret;

	if (snc_nodes > 1) {
		o = jobj();
		jset(o, "nodes", jint(snc_nodes));
		jset(o, "hw_rmids", jint(hw_rmids));
		jset(mon, "snc", o);
	}
	ret = rdtalloc_pkg_get_info(r, &pi);
	if (ret)
		return fail_lib(r, ret);
	if (!pi.events)
		return 0;
	o = jobj();
	ev = jarr();
	for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++)
		if (pi.events & (1u << e))
			jpush(ev, jstr(rdtalloc_pkg_event_name(e)));
	jset(o, "events", ev);
	jset(o, "rmids", jint(pi.rmids));
	jset(o, "packages", jint(pi.packages));
	jset(mon, "package_telemetry", o);
	return 0;
}

void tm_info_print(json_object *mon)
{
	json_object *snc = jget(mon, "snc"), *pk = jget(mon, "package_telemetry"), *ev;
	size_t i;

	if (snc)
		printf("\n  Sub-NUMA Clustering: %lld nodes per L3 domain, counted apart; the "
		       "%lld RMIDs of the hardware divided by them, as the kernel does",
		       jget_int(snc, "nodes"), jget_int(snc, "hw_rmids"));
	if (!pk)
		return;
	printf("\n  package telemetry (PERF_PKG): %lld packages, %lld RMIDs, events",
	       jget_int(pk, "packages"), jget_int(pk, "rmids"));
	ev = jget(pk, "events");
	for (i = 0; i < json_object_array_length(ev); i++)
		printf("%s %s", i ? "," : "",
		       json_object_get_string(json_object_array_get_idx(ev, i)));
}
