// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * context: the members of struct rdtalloc that the layers outside the core
 * read or mark, as calls (lib/context.h), so that only the core and the API
 * files include lib/core.h. Member reads and flags only: this file calls
 * nothing of the library (libc's string calls only), which is why the
 * backends and the model (monitor/rmid.c) may call it although the context
 * is the core's (tests/layers/layers.txt).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

struct rdt_state *rdt_core_state(const struct rdtalloc *r)
{
	return r->st;
}

const struct rdt_machine *rdt_core_machine(const struct rdtalloc *r)
{
	return r->m;
}

const struct rdt_backend *rdt_core_backend(const struct rdtalloc *r)
{
	return r->be;
}

void *rdt_core_backend_ctx(const struct rdtalloc *r)
{
	return r->be_ctx;
}

struct rdt_store *rdt_core_store(const struct rdtalloc *r)
{
	return r->store;
}

const struct rdt_sink *rdt_core_sink(const struct rdtalloc *r)
{
	return r->sink;
}

unsigned int rdt_core_flags(const struct rdtalloc *r)
{
	return r->flags;
}

const struct rdt_backend_env *rdt_core_env(const struct rdtalloc *r)
{
	return &r->env;
}

void **rdt_core_mon_totals(struct rdtalloc *r)
{
	return &r->mon_counters;
}

char *rdt_core_cgroup_root_cache(struct rdtalloc *r, size_t *len)
{
	*len = sizeof(r->cgroup_root);
	return r->cgroup_root;
}

struct rdt_task_index *rdt_core_task_index(struct rdtalloc *r)
{
	return &r->tix;
}

bool rdt_core_read_only(const struct rdtalloc *r)
{
	return r->ro;
}

bool rdt_core_fresh(const struct rdtalloc *r)
{
	return r->fresh;
}

bool rdt_core_force(const struct rdtalloc *r)
{
	return r->force;
}

uint64_t rdt_core_state_gen(const struct rdtalloc *r)
{
	return r->st_gen;
}

struct rdt_state *rdt_core_swap_state(struct rdtalloc *r, struct rdt_state *st)
{
	struct rdt_state *old = r->st;

	r->st = st;
	return old;
}

void rdt_core_reason_add(struct rdtalloc *r, const char *fmt, ...)
{
	size_t n = strlen(r->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason + n, sizeof(r->reason) - n, fmt, ap);
	va_end(ap);
}

struct rdt_hw_txn *rdt_core_hw_txn(struct rdtalloc *r)
{
	return &r->hw;
}

bool rdt_core_groups_changed(const struct rdtalloc *r)
{
	return r->groups_changed;
}

bool rdt_core_cgroups_changed(const struct rdtalloc *r)
{
	return r->cgroups_changed;
}

void rdt_core_clear_warnings(struct rdtalloc *r)
{
	r->warning[0] = '\0';
}

bool rdt_core_peek(const struct rdtalloc *r)
{
	return r->peek;
}

const char *rdt_core_warnings(const struct rdtalloc *r)
{
	return r->warning;
}

void rdt_core_mark_dirty(struct rdtalloc *r)
{
	r->dirty = true;
}

void rdt_core_mark_groups_changed(struct rdtalloc *r)
{
	r->groups_changed = true;
}

void rdt_core_mark_cgroups_changed(struct rdtalloc *r)
{
	r->cgroups_changed = true;
}
