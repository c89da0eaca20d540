/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * context: what the layers above the core call on a context - the
 * transaction (rdt_core_begin .. rdt_core_end), the checks and steps every
 * call shares, the state's bindings and cgroups - with the context opaque.
 * A file that includes only this header sees nothing of struct rdtalloc
 * (lib/core.h, for the core and the API files only). What the backends may
 * call on the context is in lib/services.h, which this includes.
 */
#ifndef RDT_CONTEXT_H
#define RDT_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "errors.h"
#include "hw/engine.h"
#include "machine.h"
#include "services.h"

struct rdt_backend;
struct rdt_backend_env;
struct rdt_hook;
struct rdt_hw_txn;
struct rdt_section;
struct rdt_sink;
struct rdt_store;
struct rdtalloc;
struct rdtalloc_opts;

/*
 * rdtalloc_open's work (lib/api/open.c hands over the tables of lib/tables.h):
 * the context with its backend, machine and state, each section's open hook
 * run. 0, or -errno with the error message set (*out NULL).
 */
int rdt_core_open(struct rdtalloc **out, const struct rdtalloc_opts *opts,
		  const struct rdt_section *const *sections, const struct rdt_backend *const *backends);

/*
 * Slots the context keeps for a layer above it, freed at close: the
 * monitoring's running totals when no file holds them (a json_object,
 * json_object_put at close); the cgroup2 mount, looked up once (cgbind.c;
 * "" until then), *len its size.
 */
void **rdt_core_mon_totals(struct rdtalloc *r);
char *rdt_core_cgroup_root_cache(struct rdtalloc *r, size_t *len);
/* RDTALLOC_F_FORCE: what another owner made is handed over rather than refused. */
bool rdt_core_force(const struct rdtalloc *r);
/* rdtalloc_warning()'s lines of this call dropped (a call that changed nothing has none). */
void rdt_core_clear_warnings(struct rdtalloc *r);
/* The lines rdt_core_warn added in this call ("" when none). */
const char *rdt_core_warnings(const struct rdtalloc *r);
#define RDT_CORE_WARNING_LEN 512
/* Lock and refresh the state / write back and unlock (returns ret or a write error). */
int rdt_core_begin(struct rdtalloc *r, bool write);
/* An engine's negative result as the call's error, its message set; ret when >= 0. */
int rdt_core_engine_err(struct rdtalloc *r, int ret);
/* The resource named name (RDT_L3, ...) present on the machine, or -EINVAL with errmsg set. */
int rdt_core_find_res(struct rdtalloc *r, const char *name);
/* A group's name into buf (buf NULL, len 0: its length); -ERANGE when it does not fit. */
int rdt_core_copy_name(struct rdtalloc *r, const char *name, char *buf, size_t len);
/* Drop the binding of task id tid when its task has exited (or was replaced). */
void rdt_core_drop_if_stale(struct rdtalloc *r, pid_t tid);
/* Inside a write call: a few bound tasks checked for exit, their bindings dropped. */
void rdt_core_gc_tasks(struct rdtalloc *r);
/*
 * A look that runs long (a replay, a curve of a big trace): the state file's
 * lock goes now, the state as read stays in r->st (the context's mutex is
 * still held), so that writers in other processes - a container starting -
 * do not wait for it. Only after rdt_core_begin(r, false).
 */
void rdt_core_drop_lock(struct rdtalloc *r);
/* Add a line to the call's rdtalloc_warning(). */
void rdt_core_warn(struct rdtalloc *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rdt_core_end(struct rdtalloc *r, bool write, int ret);
/*
 * Inside a write call: its changes are by owner ("KIND:NAME", or a bare
 * NAME for "user:NAME") until rdt_core_end, e.g. the controller's live
 * loop ("control:0") before its rdt_core_set_schema calls; force: what
 * another owner made is handed over rather than refused (-EBUSY). NULL
 * owner: back to the context's own (rdtalloc_opts.owner, RDTALLOC_F_FORCE).
 * -EINVAL (errmsg set) for an owner that is not valid.
 */
int rdt_core_set_writer(struct rdtalloc *r, const char *owner, bool force);
/* owner ("KIND:NAME" or a bare NAME: "user:NAME") checked into buf; -EINVAL with why. */
int rdt_core_owner_text(const char *owner, char *buf, size_t len, char *why, size_t wlen);

/*
 * rdtalloc_apply_config_report's work inside a call already begun
 * (rdt_core_begin(r, !(flags & RDTALLOC_APPLY_DRY_RUN))), for a caller that
 * does more in the same call (goresctrl/: the classes' policy).
 */
int rdt_apply_in_call(struct rdtalloc *r, const char *text, const char *name, unsigned int flags,
		      char *buf, size_t len, size_t *report_len);
/* Schema text onto group g of st (r->st or a working copy); errmsg set on failure. */
int rdt_core_apply_schema(struct rdtalloc *r, struct rdt_state *st, int g, const char *text,
			  bool *changed);
int rdt_core_format_schema(const struct rdt_state *st, int g, char *buf, size_t len);
int rdt_core_check_task(struct rdtalloc *r, pid_t *tid, uint64_t *start);
int rdt_core_check_cpu(struct rdtalloc *r, int cpu);
/* The group named name (NULL, "", "default": 0), or -errno with errmsg set. */
int rdt_core_find_group(struct rdtalloc *r, const char *name);
/* Inside a write call: schema text applied to group g (rdtalloc_set_schema's rules). */
int rdt_core_set_schema(struct rdtalloc *r, int g, const char *schema);
/*
 * Inside a write call (between rdt_core_begin and rdt_core_end): bind one
 * task / CPU to group g, checked as rdtalloc_bind_task / _cpu check it. A
 * failure leaves the rest to rdt_core_end, which drops the whole call.
 */
int rdt_core_bind_task(struct rdtalloc *r, int g, pid_t tid);
int rdt_core_bind_cpu(struct rdtalloc *r, int g, int cpu);
/* Live groups, default first then creation order; caller frees. */
int *rdt_core_groups_in_order(const struct rdt_state *st, unsigned int *n);
/* The backend's answer: may tasks be bound on r now? 0, or -EOPNOTSUPP (errmsg set). */
int rdt_core_tasks_allowed(struct rdtalloc *r);
/*
 * A call replaced the state old by r->st: carry its task bindings over to
 * whoever owns task membership. All or nothing.
 */
int rdt_core_carry_tasks(struct rdtalloc *r, const struct rdt_state *old);
/* Drop every binding of an exited task from st (r: the machine); how many. */
unsigned int rdt_core_sweep_tasks(struct rdtalloc *r, struct rdt_state *st);
void rdt_core_task_index_free(struct rdtalloc *r);
/*
 * The state's bound tasks by group (a counting sort), which the context
 * keeps and lib/bindings.c builds: current while gen is the task map's and
 * ngroups the state's; the tasks of group g are tid[off[g]] .. tid[off[g + 1] - 1].
 */
struct rdt_task_index {
	uint64_t gen;
	unsigned int ngroups;
	size_t *off;			/* [ngroups + 1] */
	pid_t *tid;			/* ascending within a group */
};
struct rdt_task_index *rdt_core_task_index(struct rdtalloc *r);
/* Live tasks of group g of r->st, ascending; caller frees. */
int rdt_core_collect_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n);

/*
 * lib/cgbind.c: cgroup bindings where the library resolves them (sim, msr,
 * the hook's user side). The cgroup2 mount (NULL, errmsg set, when none);
 * the group of cgroup rel / of a task through its cgroup (0: none); the
 * threads of g's cgroups (g -1: of any bound cgroup); the bindings whose
 * cgroup was removed dropped from r->st (how many).
 */
const char *rdt_core_cgroup_root(struct rdtalloc *r);
/* A cgroup the caller names, normalised into rel, with its id (core.c); errmsg set. */
int rdt_core_check_cgroup(struct rdtalloc *r, const char *path, char *rel, size_t len,
			  uint64_t *id);
int rdt_core_cgroup_path_group(struct rdtalloc *r, const char *rel);
/* The binding of the cgroup path names, itself; NULL: not bound itself (calls.c). */
int rdt_core_cgroup_binding(struct rdtalloc *r, const char *path, const struct rdt_cgroup **c);
/* May the caller bind (or unbind) cgroup rel? 0, or -EPERM naming why (errmsg set). */
int rdt_core_cgroup_may_bind(struct rdtalloc *r, const char *rel);
/* The same against another state than r->st (resctrl's state before a call). */
int rdt_core_cgroup_path_group_in(struct rdtalloc *r, const struct rdt_state *st, const char *rel);

#endif
