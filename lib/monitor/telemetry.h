/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor/telemetry: what the kernel counts beside an RMID's L3 domain
 * totals - per Sub-NUMA node (snc.c: resctrl's mon_sub_L3_NN, Linux 6.11)
 * and per package (pkg.c: Intel AET's PERF_PKG resource, Linux 7.0). The
 * shapes a backend fills for them, and the parsing of a kernel value, so
 * that backends do not parse on their own. docs/monitoring.md.
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

/* A backend's nodes: appended to a growing array, at most RDT_NODES_MAX in a read. */
#define RDT_NODES_MAX (1u << 20)
struct rdt_nodes {
	struct rdt_node_raw *v;
	size_t n, cap;
};
/* A slot at the end of nodes (zeroed); NULL out of memory or past RDT_NODES_MAX. */
struct rdt_node_raw *rdt_nodes_add(struct rdt_nodes *nodes);

/*
 * A value file the kernel wrote: "Unavailable\n", "Error\n", "Unassigned\n"
 * (their RDTALLOC_MON_* states), or a number and "\n" into *v: an integer,
 * or with fixed a decimal with up to 6 places (print_event_value()'s
 * fixed point), in millionths, further places cut off. -EINVAL for
 * anything else, an integer part that does not fit included.
 */
int rdt_tm_parse(const char *text, bool fixed, uint64_t *v);

/* A struct's sz from a caller: -EINVAL naming the struct unless plausible. api.c. */
int rdt_mon_check_sized(struct rdtalloc *r, size_t sz, const char *what);
/* CLOCK_REALTIME in ns, the time of a reading. snc.c. */
uint64_t rdt_tm_now_ns(void);

/* The groups asked for, as indexes (all: in creation order, the default first). api.c. */
int rdt_mon_pick_groups(struct rdtalloc *r, const char *const *names, size_t n, int **out,
			unsigned int *count);

#endif
