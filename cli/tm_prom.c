// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tm_prom: read SNC nodes and package telemetry where the machine has
 * them, and expose them to Prometheus (tm_prom.h). Units are in the names
 * (bytes, joules, farads), counters end in _total; a value the kernel has
 * not (Unavailable, Error, ...) is no sample, and its _ok gauge says 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tm_prom.h"

#define TM_MAX (1u << 20)	/* entries at most in a read: far above any machine */

/* Nodes (pkg false) or packages into *buf, grown until all fit; *n of them. */
static int read_all(rdtalloc_t *r, const char *const *groups, size_t ngroups, bool pkg,
		    void **buf, size_t *count)
{
	size_t elem = pkg ? sizeof(struct rdtalloc_pkg_value) : sizeof(struct rdtalloc_mon_node);
	size_t cap = 64;
	int n;

	for (;;) {
		void *nb = realloc(*buf, cap * elem);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*(size_t *)nb = elem;	/* both structs begin with sz */
		n = pkg ? rdtalloc_pkg_read(r, groups, ngroups, nb, cap) :
			  rdtalloc_mon_read_nodes(r, groups, ngroups, nb, cap);
		if (n < 0 || (size_t)n <= cap)
			break;
		if ((size_t)n > TM_MAX)
			return -E2BIG;
		cap = (size_t)n;
	}
	if (n < 0)
		return n;
	*count = (size_t)n;
	return 0;
}

int tm_read(rdtalloc_t *r, const char *const *groups, size_t ngroups, struct tm_data *d)
{
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct rdtalloc_pkg_info pi = { .sz = sizeof(pi) };
	void *nodes = NULL, *pkg = NULL;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = rdtalloc_mon_get_info(r, &mi);
	if (!ret && mi.rmids && mi.snc_nodes > 1)
		ret = read_all(r, groups, ngroups, false, &nodes, &d->nnodes);
	d->nodes = nodes;
	/* a backend that does not read them (msr): the L3 domains are all there is */
	if (ret == -EOPNOTSUPP)
		ret = 0;
	if (!ret)
		ret = rdtalloc_pkg_get_info(r, &pi);
	if (!ret && pi.events)
		ret = read_all(r, groups, ngroups, true, &pkg, &d->npkg);
	d->pkg = pkg;
	if (ret == -EOPNOTSUPP) {
		free(d->pkg);
		d->pkg = NULL;
		d->npkg = 0;
		ret = 0;
	}
	if (ret)
		tm_free(d);
	return ret;
}

void tm_free(struct tm_data *d)
{
	free(d->nodes);
	free(d->pkg);
	memset(d, 0, sizeof(*d));
}

static void node_family(FILE *f, const struct tm_data *d, const char *name, const char *help,
			const char *type, unsigned int ev)
{
	size_t i;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < d->nnodes; i++) {
		const struct rdtalloc_mon_node *v = &d->nodes[i];
		uint64_t x = ev == RDTALLOC_MON_EV_OCCUPANCY ? v->llc_occupancy :
			     ev == RDTALLOC_MON_EV_TOTAL ? v->mbm_total : v->mbm_local;

		if (v->valid & ev)
			fprintf(f, "%s{group=\"%s\",cache_id=\"%u\",node=\"%u\"} %" PRIu64 "\n", name,
				v->group, v->cache_id, v->node, x);
	}
}

static void nodes_prom(FILE *f, const struct tm_data *d)
{
	if (!d->nnodes)
		return;
	node_family(f, d, "rdtalloc_node_llc_occupancy_bytes",
		    "Bytes of the L3 cache held by the group in the sub-NUMA node (SNC).", "gauge",
		    RDTALLOC_MON_EV_OCCUPANCY);
	node_family(f, d, "rdtalloc_node_mbm_total_bytes_total",
		    "Bytes of memory traffic of the group in the sub-NUMA node (SNC).", "counter",
		    RDTALLOC_MON_EV_TOTAL);
	node_family(f, d, "rdtalloc_node_mbm_local_bytes_total",
		    "Bytes of memory traffic of the group to local memory in the sub-NUMA node.",
		    "counter", RDTALLOC_MON_EV_LOCAL);
}

/* The family of PERF_PKG event e: its name with its unit, and its help. */
static void pkg_name(unsigned int e, char *name, size_t len, const char **help)
{
	const char *ev = rdtalloc_pkg_event_name(e);

	if (e == RDTALLOC_PKG_CORE_ENERGY) {
		snprintf(name, len, "rdtalloc_group_core_energy_joules_total");
		*help = "Energy the group's cores used in the package (Intel AET core_energy).";
	} else if (e == RDTALLOC_PKG_ACTIVITY) {
		snprintf(name, len, "rdtalloc_group_activity_farads_total");
		*help = "Capacitance the group's cores switched in the package (Intel AET "
			"activity).";
	} else {
		snprintf(name, len, "rdtalloc_group_%s_total", ev);
		*help = "Count of the Intel AET perf event (its resctrl name) for the group in "
			"the package.";
	}
}

static void pkg_prom(FILE *f, const struct tm_data *d)
{
	unsigned int e, events = d->npkg ? d->pkg[0].events : 0;
	const char *help;
	char name[96];
	size_t i;

	for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++) {
		if (!(events & (1u << e)))
			continue;
		pkg_name(e, name, sizeof(name), &help);
		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
		for (i = 0; i < d->npkg; i++) {
			const struct rdtalloc_pkg_value *v = &d->pkg[i];

			if (!(v->valid & (1u << e)))
				continue;
			fprintf(f, "%s{group=\"%s\",package=\"%u\"} ", name, v->group, v->package);
			if (e <= RDTALLOC_PKG_ACTIVITY)	/* millionths */
				fprintf(f, "%" PRIu64 ".%06" PRIu64 "\n", v->value[e] / 1000000u,
					v->value[e] % 1000000u);
			else
				fprintf(f, "%" PRIu64 "\n", v->value[e]);
		}
	}
	if (!events)
		return;
	fprintf(f, "# HELP rdtalloc_group_package_event_ok Whether the group's telemetry event "
		"in the package read (1) or not (0: unavailable, error, missing).\n"
		"# TYPE rdtalloc_group_package_event_ok gauge\n");
	for (i = 0; i < d->npkg; i++)
		for (e = 0; e < RDTALLOC_PKG_NEVENTS; e++)
			if ((d->pkg[i].events & (1u << e)) &&
			    d->pkg[i].state[e] != RDTALLOC_MON_UNSUPPORTED)
				fprintf(f, "rdtalloc_group_package_event_ok{group=\"%s\",package="
					"\"%u\",event=\"%s\"} %d\n", d->pkg[i].group,
					d->pkg[i].package, rdtalloc_pkg_event_name(e),
					!!(d->pkg[i].valid & (1u << e)));
}

void tm_prom(FILE *f, const struct tm_data *d)
{
	nodes_prom(f, d);
	pkg_prom(f, d);
}
