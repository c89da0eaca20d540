/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config: the text format of `rdtctl save` / `apply` (docs/config.md):
 * parsing it into a plain description, and nothing else. Whether a
 * configuration fits the machine is decided by the core when it applies it.
 */
#ifndef RDT_CONFIG_H
#define RDT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "machine.h"

struct rdt_config_group {
	char name[64];		/* "default" for the default group */
	unsigned int line;	/* line of its `group` statement */
	char *schema;		/* schema text, lines joined by '\n'; NULL: not given */
	unsigned int schema_line;
	bool cpus_set;		/* a `cpus` line was given */
	unsigned int cpus_line;
	unsigned int ncpus;
	int *cpus;		/* ascending, no duplicates */
	unsigned int *cpu_lines;	/* [ncpus]: the line that lists cpus[i] */
	bool tasks_set;
	unsigned int tasks_line;
	unsigned int ntasks;
	pid_t *tasks;		/* ascending, no duplicates */
	unsigned int *task_lines;	/* [ntasks]: the line that lists tasks[i] */
	unsigned int ncgroups;
	char **cgroups;		/* `cgroup PATH` lines, in file order, as written */
	unsigned int *cgroup_lines;
	bool *cgroup_enforce;	/* [ncgroups]: a `cgroup-enforce PATH` line (else yield) */
	int mode;		/* -1 not given, 0 shareable, 1 exclusive */
	bool mode_force;	/* `mode exclusive force`: also on shareable ways */
	unsigned int mode_line;
};

/*
 * `machine RES ...`: the facts of the machine the file was saved on, so
 * that apply can refuse a file made for another (docs/config.md).
 */
struct rdt_config_machine {
	unsigned int line;		/* 0: no such line */
	unsigned int nids;
	int *ids;			/* cache ids (MB: domain ids), ascending */
	unsigned int cbm_len;		/* L3, L2; 0: not given */
	int units;			/* MB: -1 not given, 0 percent, 1 AMD's 1/8 GB/s */
	unsigned int max;		/* MB: 0 not given */
};

/*
 * The first line rdtctl save writes: a file that starts with it must end
 * with the end line (else it was cut short).
 */
#define RDT_CONFIG_SAVED "# rdtalloc configuration (rdtctl save"

/* The longest configuration name (`name NAME`): the rest of "config:NAME" in an owner. */
#define RDT_CONFIG_NAME_MAX 120

struct rdt_config {
	unsigned int end_line;		/* the `end` line, 0: none (hand-written) */
	char name[RDT_CONFIG_NAME_MAX + 1];	/* `name NAME`; "": not given */
	unsigned int name_line;
	int cdp[RDT_NRES];		/* -1 not given, 0 off, 1 on */
	unsigned int cdp_line[RDT_NRES];
	struct rdt_config_machine machine[RDT_NALL];
	unsigned int ngroups;
	struct rdt_config_group *groups;	/* in file order */
};

/*
 * Parse configuration text. Syntax errors (unknown keyword, bad name, bad
 * CPU list or task id, a group named twice, `cpus` in the default group)
 * are -EINVAL with err saying "line N: ...". Group names are checked with
 * rdt_name_valid(); schema text is only collected, not checked.
 */
int rdt_config_parse(const char *text, struct rdt_config **out, char *err, size_t errlen);
void rdt_config_free(struct rdt_config *c);
/* The end line's checksum (FNV-1a, 64 bits): h so far, then n more bytes at s. */
#define RDT_CONFIG_CHECKSUM_INIT 0xcbf29ce484222325ull
uint64_t rdt_config_checksum_add(uint64_t h, const char *s, size_t n);

/* Group names: 1 to 63 of [A-Za-z0-9_.-], not starting with '.'. */
bool rdt_name_valid(const char *name);

/* CPU lists: internal forms of rdtalloc_parse_cpulist / _format_cpulist. */
int rdt_cpulist_parse(const char *s, int **cpus, unsigned int *n, char *err, size_t errlen);
int rdt_cpulist_format(const int *cpus, size_t n, char *buf, size_t len);

#endif
