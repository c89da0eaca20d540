/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * services: what a backend (lib/hw/ops.c, lib/backends/, the hook's maps)
 * may call on the context it is handed - an opaque pointer, as the kernel's
 * resctrl_arch_update_one(r, d, closid, type, val) never sees an rdtgroup.
 * The context's members it reads and marks (lib/context.c, layer 1: it
 * calls nothing of the library), the reason line of its open, the group
 * level's transaction slot (lib/hw/txn.h), and the state's bindings as the
 * backends resolve them (lib/bindings.c, lib/cgbind.c, layer 3). A backend
 * includes this header, not lib/context.h: the transaction, the schemas and
 * the checks of a call (lib/core.c, lib/calls.c) are not its to call, and
 * layers.linkgraph fails if it links to them.
 */
#ifndef RDT_SERVICES_H
#define RDT_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw/engine.h"
#include "machine.h"

struct rdt_backend;
struct rdt_backend_env;
struct rdt_cgroup;
struct rdt_hook;
struct rdt_hw_txn;
struct rdt_sink;
struct rdt_store;
struct rdtalloc;

/* ---- The context's members ------------------------------------------------ */

/*
 * Read and marked through lib/context.c, which calls nothing of the library
 * (the modules and monitor/rmid.c call it too): the only way a file outside
 * the core and the API files reaches them (layers.linkgraph fails for any
 * other object that has the definition of struct rdtalloc).
 */
/* The state a call works on, between rdt_core_begin and rdt_core_end. */
struct rdt_state *rdt_core_state(const struct rdtalloc *r);
/* The machine the context was opened on. */
const struct rdt_machine *rdt_core_machine(const struct rdtalloc *r);
/* The backend picked at open, and its private data (backend.h). */
const struct rdt_backend *rdt_core_backend(const struct rdtalloc *r);
void *rdt_core_backend_ctx(const struct rdtalloc *r);
/* Where the state is kept; NULL: an ephemeral context (no file). */
struct rdt_store *rdt_core_store(const struct rdtalloc *r);
/* The register level's sink of the backend (sim, msr), or NULL. */
const struct rdt_sink *rdt_core_sink(const struct rdtalloc *r);
/* The RDTALLOC_F_* flags the context was opened with. */
unsigned int rdt_core_flags(const struct rdtalloc *r);
/* What the backend was opened on (its roots, the mount table to read). */
const struct rdt_backend_env *rdt_core_env(const struct rdtalloc *r);
/* RDTALLOC_F_READ_ONLY: nothing is written, ever. */
bool rdt_core_read_only(const struct rdtalloc *r);
/* The state was created by this open (the backend's open programs it all). */
bool rdt_core_fresh(const struct rdtalloc *r);
/* RDTALLOC_F_NO_CREATE found no state: the context only looks. */
bool rdt_core_peek(const struct rdtalloc *r);
/*
 * Bumped whenever the call's state is replaced or changed: what a backend
 * derived from it (resctrl's placement map) is current while this is the same.
 */
uint64_t rdt_core_state_gen(const struct rdtalloc *r);
/*
 * Hand the context another state for the call (apply's working copy, the
 * group level's undo copy after a failed write); returns the one it held,
 * which the caller now owns. Nothing else changes: the caller marks what
 * the call changed.
 */
struct rdt_state *rdt_core_swap_state(struct rdtalloc *r, struct rdt_state *st);
/*
 * The line of why this backend (rdtalloc_backend_reason) at open: a
 * backend's open adds what it found ("; 3 registers ... re-applied").
 */
void rdt_core_reason_add(struct rdtalloc *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * What the context keeps for the group level of sim and msr (lib/hw/txn.h:
 * the hook it opened, the undo copies of a call); its close op frees it.
 */
struct rdt_hw_txn *rdt_core_hw_txn(struct rdtalloc *r);
/* This call changed groups, masks or CPUs / cgroup bindings (see the marks below). */
bool rdt_core_groups_changed(const struct rdtalloc *r);
bool rdt_core_cgroups_changed(const struct rdtalloc *r);
/*
 * This call changed the state (rdt_core_end writes it back); its groups,
 * masks or CPUs; its cgroup bindings (the backend and the hook follow).
 */
void rdt_core_mark_dirty(struct rdtalloc *r);
void rdt_core_mark_groups_changed(struct rdtalloc *r);
void rdt_core_mark_cgroups_changed(struct rdtalloc *r);

/* ---- The state's task and cgroup bindings (bindings.c, cgbind.c; ops.c) --- */

/*
 * The switch hook when one is loaded for this context's backend and state
 * directory (lib/hook/), else NULL: then tasks are the state's alone.
 * lib/hw/ops.c.
 */
struct rdt_hook *rdt_hw_hook(struct rdtalloc *r);
/* Does the state's binding t still name a live task (the same one)? */
bool rdt_core_binding_alive(const struct rdtalloc *r, const struct rdt_task *t);
/* From the state's table alone: live tasks of group g (g 0: every other live task). */
int rdt_core_table_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n);
/* From the state's table alone: the group of live task tid started at start. */
int rdt_core_table_group(struct rdtalloc *r, pid_t tid, uint64_t start);
/*
 * The group of a task through its cgroup (0: none), the threads of g's
 * cgroups (g -1: of any bound cgroup), the binding that puts tid in its
 * group through its cgroup (NULL: none), against the call's state or
 * another one (resctrl's state before a call); the bindings whose cgroup
 * was removed dropped from the call's state (how many).
 */
int rdt_core_cgroup_task_group(struct rdtalloc *r, pid_t tid);
const struct rdt_cgroup *rdt_core_cgroup_task_binding(struct rdtalloc *r, pid_t tid);
int rdt_core_cgroup_members(struct rdtalloc *r, int g, pid_t **out, size_t *n);
unsigned int rdt_core_cgroup_gc(struct rdtalloc *r);
int rdt_core_cgroup_task_group_in(struct rdtalloc *r, const struct rdt_state *st, pid_t tid);
int rdt_core_cgroup_members_in(struct rdtalloc *r, const struct rdt_state *st, int g,
			       pid_t **out, size_t *n);

#endif
