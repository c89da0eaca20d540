/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor/telemetry: what the kernel counts beside an RMID's L3 domain
 * totals - per Sub-NUMA node (snc.c: resctrl's mon_sub_L3_NN, Linux 6.11)
 * and per package (pkg.c: Intel AET's PERF_PKG resource, Linux 7.0): the
 * shapes a backend fills for them (resctrl: backends/resctrl_mon.c, whose
 * rc_parse_value reads the kernel's value files), and what snc.c and pkg.c
 * share with api.c. docs/monitoring.md.
 */
#ifndef RDT_MONITOR_TELEMETRY_H
#define RDT_MONITOR_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct rdtalloc;

/* Group gs[gi]'s three L3 events (occupancy, total, local) in one SNC node. */
struct rdt_node_raw {
	unsigned int gi;
	unsigned int dom;		/* L3 domain index */
	unsigned int node;		/* NUMA node id */
	int state[3];			/* enum rdtalloc_mon_state */
	uint64_t val[3];		/* bytes */
};

/* A backend's nodes, a growing array (at most RDT_NODES_MAX in a read). */
#define RDT_NODES_MAX (1u << 20)
struct rdt_nodes {
	struct rdt_node_raw *v;
	size_t n, cap;
};

/* A struct's sz from a caller: -EINVAL naming the struct unless plausible. api.c. */
int rdt_mon_check_sized(struct rdtalloc *r, size_t sz, const char *what);
/* CLOCK_REALTIME in ns, the time of a reading. snc.c. */
uint64_t rdt_tm_now_ns(void);

/* The groups asked for, as indexes (all: in creation order, the default first). api.c. */
int rdt_mon_pick_groups(struct rdtalloc *r, const char *const *names, size_t n, int **out,
			unsigned int *count);

#endif
