/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: the context behind rdtalloc_t, for the core and the API files only
 * (tests/layers/layers.txt's 'sees rdtalloc' lines: layers.linkgraph fails
 * for any other object that has this definition); the calls on it are in
 * lib/context.h, which keeps it opaque. Nothing outside lib/ sees this.
 */
#ifndef RDT_CORE_H
#define RDT_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "hw/engine.h"
#include "hw/txn.h"
#include "machine.h"

struct rdt_store;

struct rdtalloc {
	/* first: errors.c reads it through the context's pointer (errors.h) */
	struct rdt_err_key err_key;
	pthread_mutex_t mu;		/* one call at a time per context */
	/* what this build is made of, handed over at open (lib/tables.h), NULL-terminated */
	const struct rdt_section *const *sections;
	const struct rdt_backend *const *backends;
	unsigned int flags;
	const struct rdt_backend *be;
	void *be_ctx;
	bool be_open;
	const struct rdt_sink *sink;
	char reason[512];		/* why this backend */
	char warning[RDT_CORE_WARNING_LEN];	/* rdtalloc_warning() of the last call */
	char no_cat[160];		/* the backend's CPUID refusal, deferred until the state is read */
	struct rdt_machine *m;
	struct rdt_store *store;	/* NULL: ephemeral */
	struct rdt_state *st;		/* cached state; NULL: must be read */
	struct rdt_backend_env env;
	char *msr_root;
	bool dirty;			/* this call changed st */
	bool fresh;			/* the state was created by this open */
	bool peek;			/* RDTALLOC_F_NO_CREATE found no state: read only */
	char *peek_path;		/* peek: where its state file will be (malloc'd) */
	bool ro;			/* RDTALLOC_F_READ_ONLY: nothing is written, ever */
	bool snap_valid;		/* RDTALLOC_F_SNAPSHOT: r->st was read under the lock */
	bool unlocked;			/* this call took no store lock (a snapshot look) */
	size_t gc_cursor;		/* where the exited-task sweep resumes */
	/* The state's bound tasks by group (counting sort), current while tix_gen is the map's. */
	uint64_t st_gen;		/* bumped whenever r->st is replaced or changed */
	struct rdt_task_index tix;	/* lib/bindings.c builds it */
	char *resctrl_root;
	unsigned int precedence;	/* the rule asked for (RDT_PREC_*); 0: none */
	unsigned int max_groups, max_tasks;	/* the limits asked for; 0: none */
	bool groups_changed;		/* this call changed groups, masks or CPUs */
	bool cgroups_changed;		/* this call changed cgroup bindings */
	char cgroup_root[4096];		/* the cgroup2 mount, once looked up ("": not yet) */
	struct rdt_hw_txn hw;		/* the group level of sim and msr's (lib/hw/ops.c) */
	void *mon_counters;		/* running totals when there is no file for them (monitor/) */
	char owner[RDT_OWNER_MAX + 1];	/* who this context's changes are by (opts.owner) */
	bool force;			/* RDTALLOC_F_FORCE */
	char call_owner[RDT_OWNER_MAX + 1];	/* rdt_core_set_writer's, for one call */
};

#endif
