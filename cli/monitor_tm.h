/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor_tm: `rdtctl monitor`'s output of Sub-NUMA nodes and package
 * telemetry (read by tm_prom.h): JSON members and table rows, with rates
 * and watts from the previous sample of the same run.
 */
#ifndef RDTCTL_MONITOR_TM_H
#define RDTCTL_MONITOR_TM_H

#include <json-c/json.h>

#include "tm_prom.h"

/* Keep only the nodes of L3 cache id dom (-1: all). */
void tm_filter_domain(struct tm_data *d, int dom);
/* A domain's "nodes" array, NULL without SNC. */
json_object *tm_nodes_json(const struct tm_data *d, const struct tm_data *prev, const char *group,
			   unsigned int cache_id);
/* A group's "packages" array, NULL without PERF_PKG. */
json_object *tm_pkg_json(const struct tm_data *d, const struct tm_data *prev, const char *group);
/* Table rows: a domain's nodes under its row; then the packages' table. */
void tm_table_nodes(const struct tm_data *d, const struct tm_data *prev, const char *group,
		    unsigned int cache_id);
void tm_table_pkg(const struct tm_data *d, const struct tm_data *prev);

/*
 * info's monitoring member: "snc" {"nodes", "hw_rmids"} under SNC and
 * "package_telemetry" {"events", "rmids", "packages"} with PERF_PKG; and
 * their lines. Nonzero (said) when the library fails.
 */
int tm_info_json(rdtalloc_t *r, json_object *mon, unsigned int snc_nodes, unsigned int hw_rmids);
void tm_info_print(json_object *mon);

#endif
