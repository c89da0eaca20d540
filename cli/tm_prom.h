/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tm_prom: the telemetry beside the L3 domains' counters - Sub-NUMA nodes
 * (rdtalloc_mon_read_nodes) and package telemetry (rdtalloc_pkg_read) -
 * read where the machine has them, and their Prometheus families. Shared
 * by `rdtctl monitor` and the agent's /metrics, so both expose one set of
 * names; needs only the library (no rdtctl helpers).
 */
#ifndef RDTCTL_TM_PROM_H
#define RDTCTL_TM_PROM_H

#include <stdio.h>

#include <rdtalloc/rdtalloc.h>

struct tm_data {
	struct rdtalloc_mon_node *nodes;	/* none without SNC */
	size_t nnodes;
	struct rdtalloc_pkg_value *pkg;		/* none without PERF_PKG */
	size_t npkg;
};

/*
 * Read what the machine has of both; 0 (also where the backend reads neither),
 * or the library's negative errno.
 */
int tm_read(rdtalloc_t *r, const char *const *groups, size_t ngroups, struct tm_data *d);
void tm_free(struct tm_data *d);

/* Their families (HELP, TYPE, samples), each once; nothing for what is absent. */
void tm_prom(FILE *f, const struct tm_data *d);

#endif
