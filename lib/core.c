// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core: opening a context and the transaction every call runs in. Checks
 * the options, chooses the backend and the machine, opens or makes the
 * state; each call of the API (lib/api/: groups, schemas, tasks, CPUs,
 * cgroups, the machine; and the modules' own) is one transaction on it:
 * lock (a mutex for the threads of this context, flock for other
 * processes), bring the cached state up to date, let the engine change it,
 * let the backend commit it, write it back - or undo it all. Also the input
 * checks every call shares (names, resources, CPUs, task ids). Knows
 * nothing of registers (the engine) nor of file formats (state, config,
 * schema).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>


#include "config.h"
#include "core.h"
#include "detect/detect.h"
#include "errors.h"
#include "state.h"
#include "tasks.h"

#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(typeof(*(opts)), field) + sizeof((opts)->field))
#define OPTS_GET(opts, field, def) (OPTS_HAS(opts, field) ? (opts)->field : (def))

#define KNOWN_FLAGS (RDTALLOC_F_EPHEMERAL | RDTALLOC_F_NO_CREATE | RDTALLOC_F_REPLACE_MACHINE | \
		     RDTALLOC_F_SNAPSHOT | RDTALLOC_F_READ_ONLY | RDTALLOC_F_MON_TOTALS | \
		     RDTALLOC_F_FORCE)

/* errors.c reads a context's message key through the context's pointer. */
_Static_assert(offsetof(struct rdtalloc, err_key) == 0, "err_key must come first");

/* Bound tasks checked for exit per write, so stale bindings go away gradually. */
#define GC_BATCH 32

RDTALLOC_API unsigned int rdtalloc_version(void)
{
	return RDTALLOC_VERSION_CODE;
}

RDTALLOC_API const char *rdtalloc_version_string(void)
{
	return RDTALLOC_VERSION_STRING;
}

/* ---- Transactions --------------------------------------------------------- */

/*
 * A section's member this version could not load (damaged, or a newer
 * version's form of it) is kept aside and the rest of the state works
 * (lib/state.c); every call that reads such a state says so, once.
 */
static void warn_kept_aside(rdtalloc_t *r)
{
	char names[256];
	size_t n = rdt_state_kept_aside(r->st, names, sizeof(names));

	if (!n || strstr(r->warning, "kept aside"))
		return;
	rdt_core_warn(r, "state file %s: member%s %s could not be read (damaged, or written by "
		      "a newer version): kept aside as %s, the rest of the state works; "
		      "rdtctl reset (or the module's own clear, e.g. control clear) replaces %s",
		      r->store ? rdt_store_path(r->store) : "(memory)", n == 1 ? "" : "s", names,
		      n == 1 ? "it was" : "they were", n == 1 ? "it" : "them");
}

enum section_step { SECTION_OPEN, SECTION_BEGIN, SECTION_SETTLE };

/*
 * The modules' hooks at one step of a call (hw/section.h), in the table's
 * order: monitoring brings its counters and limbo up to now when a write
 * begins and hands out RMIDs before the commit; leases go back at open.
 */
static void section_hooks(rdtalloc_t *r, enum section_step step)
{
	size_t i;

	for (i = 0; r->sections && r->sections[i]; i++) {
		const struct rdt_section *sec = r->sections[i];
		void (*fn)(struct rdtalloc *r) = step == SECTION_OPEN ? sec->open :
						 step == SECTION_BEGIN ? sec->begin : sec->settle;

		if (fn)
			fn(r);
	}
}

static int load_state(rdtalloc_t *r)
{
	struct rdt_state *st;
	char err[RDT_ERRMSG_MAX] = "";
	int ret;

	ret = rdt_store_read(r->store, r->m, r->be->name, &st, err, sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	st->sink = r->sink;
	rdt_state_free(r->st);
	r->st = st;
	r->st_gen++;
	warn_kept_aside(r);
	return 0;
}

/* Lock and bring r->st up to date. */
/* The state's writer for this call (until rdt_core_end): owner, with force or not. */
static void writer_on(rdtalloc_t *r, const char *owner, bool force)
{
	if (!r->st)
		return;
	r->st->writer = owner;
	r->st->writer_idx = 0;
	r->st->force = force;
}

int rdt_core_begin(rdtalloc_t *r, bool write)
{
	bool exists, changed;
	int ret;

	pthread_mutex_lock(&r->mu);
	rdt_clear_err(r);
	if (write)	/* calls that only look leave the last change's warning */
		r->warning[0] = '\0';
	if (write && r->ro) {
		pthread_mutex_unlock(&r->mu);
		return rdt_fail(r, -EROFS, "this context was opened read only "
				"(RDTALLOC_F_READ_ONLY): reopen without the flag to change anything");
	}
	if (write && r->peek) {
		pthread_mutex_unlock(&r->mu);
		return rdt_fail(r, -EROFS, "this context was opened to look (RDTALLOC_F_NO_CREATE) "
				"and there is no state yet: reopen without the flag to make one");
	}
	if (!r->store) {
		ret = r->be->ops->begin(r, write);
		if (ret) {
			r->be->ops->finish(r);
			pthread_mutex_unlock(&r->mu);
		} else if (write) {
			section_hooks(r, SECTION_BEGIN);
			writer_on(r, r->owner, r->force);
		}
		return ret;
	}
	/* RDTALLOC_F_SNAPSHOT: a look is answered from the state last read */
	if (!write && (r->flags & RDTALLOC_F_SNAPSHOT) && r->st && r->snap_valid) {
		ret = r->be->ops->begin(r, false);
		if (!ret) {
			r->unlocked = true;
			return 0;
		}
		r->be->ops->finish(r);
		pthread_mutex_unlock(&r->mu);
		return ret;
	}
	ret = rdt_store_lock(r->store, write);
	if (ret) {
		rdt_fail(r, ret, "cannot lock %s: %s", rdt_store_path(r->store), strerror(-ret));
		goto fail;
	}
	ret = rdt_store_probe(r->store, &exists, &changed);
	if (!ret && !exists)
		ret = rdt_fail(r, -ENOENT, "state file %s was removed; reopen to start afresh",
			       rdt_store_path(r->store));
	if (!ret && (changed || !r->st))
		ret = load_state(r);
	if (!ret) {
		ret = r->be->ops->begin(r, write);
		if (!ret) {
			r->snap_valid = true;
			/* counters and limbo up to now, before the change counts */
			if (write) {
				section_hooks(r, SECTION_BEGIN);
				writer_on(r, r->owner, r->force);
			}
			return 0;
		}
		r->be->ops->finish(r);
	}
	rdt_store_unlock(r->store);
fail:
	pthread_mutex_unlock(&r->mu);
	return ret;
}

/*
 * Unlock; a successful change is made real by the backend (commit) and then
 * written to the state file, a failed one undone in the backend (abort).
 */
int rdt_core_end(rdtalloc_t *r, bool write, int ret)
{
	char err[RDT_ERRMSG_MAX];
	bool committed = false;
	int wret;

	err[0] = '\0';		/* not "= \"\"": that clears 1 KiB on every call */

	if (write && ret >= 0 && r->dirty) {
		section_hooks(r, SECTION_SETTLE);
		wret = r->be->ops->commit(r);
		committed = !wret;
		if (!wret && r->store)
			wret = rdt_store_write(r->store, r->st, r->be->name, err, sizeof(err));
		if (wret)
			ret = err[0] ? rdt_fail(r, wret, "%s", err) : wret;
	}
	if (write)
		r->st_gen++;	/* whatever it did: what was derived from r->st is stale */
	if (write && ret < 0) {
		r->be->ops->abort(r, committed);
		/* Whatever the engine did in memory, the file is the truth. */
		if (r->store) {
			rdt_state_free(r->st);
			r->st = NULL;
		}
	}
	/* between calls, and for whatever looks at r->st, nobody writes */
	writer_on(r, NULL, false);
	r->be->ops->finish(r);
	r->groups_changed = r->cgroups_changed = false;
	if (write && ret < 0)	/* only a change that was made has something to add */
		r->warning[0] = '\0';
	if (r->store && !r->unlocked)
		rdt_store_unlock(r->store);
	r->unlocked = false;
	/* the file is the truth after a failed write: the next look reads it */
	if (!r->st)
		r->snap_valid = false;
	r->dirty = false;
	pthread_mutex_unlock(&r->mu);
	return ret;
}

int rdt_core_engine_err(rdtalloc_t *r, int ret)
{
	if (ret >= 0)
		return ret;
	if (ret == -ENOMEM)
		return rdt_fail(r, ret, "out of memory");
	return rdt_fail(r, ret, "%s", r->st->err[0] ? r->st->err : rdtalloc_strerror(ret));
}

/* ---- Input checks --------------------------------------------------------- */

/* The group named name: NULL, "" and "default" are the default group. */
int rdt_core_find_group(rdtalloc_t *r, const char *name)
{
	int g;

	if (name && *name && strcmp(name, "default") && !rdt_name_valid(name))
		return rdt_fail(r, -EINVAL, "invalid group name '%.80s': use 1 to %d of "
				"[A-Za-z0-9_.-], not starting with '.'", name, RDTALLOC_NAME_MAX);
	g = rdt_group_find(r->st, name);
	if (g < 0)
		return rdt_fail(r, -ENOENT, "no group named '%s'", name);
	return g;
}

int rdt_core_find_res(rdtalloc_t *r, const char *name)
{
	int res = name ? rdt_res_parse(name) : -1;

	if (res < 0 || !r->m->caps[res].present)
		return rdt_fail(r, -EINVAL, "resource '%.16s' is not available on this machine "
				"(have %s)", name ? name : "(null)",
				r->m->caps[RDT_L3].present ? (r->m->caps[RDT_L2].present ?
							      "L3,L2" : "L3") : "L2");
	return res;
}

static void present_cpus(const struct rdt_machine *m, char *buf, size_t len)
{
	int *cpus = malloc(m->ncpus * sizeof(int));
	unsigned int i, n = 0;

	buf[0] = '\0';
	if (!cpus)
		return;
	for (i = 0; i < m->ncpus; i++)
		if (m->cpu_present[i])
			cpus[n++] = (int)i;
	rdt_cpulist_format(cpus, n, buf, len);
	free(cpus);
}

int rdt_core_check_cpu(rdtalloc_t *r, int cpu)
{
	char have[256];

	if (cpu >= 0 && (unsigned int)cpu < r->m->ncpus && r->m->cpu_present[cpu]) {
		if (r->st && r->st->cpu_adom[cpu] == UINT_MAX)
			return rdt_fail(r, -ENODEV, "CPU %d is in no cache allocation domain",
					cpu);
		return 0;
	}
	present_cpus(r->m, have, sizeof(have));
	return rdt_fail(r, -EINVAL, "CPU %d does not exist or is not usable (have %s)", cpu, have);
}

static pid_t self_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * A task the caller names: it must exist, and the caller must be allowed to
 * act on it (root or its owner), as resctrl requires. *start gets its start
 * time (0 for virtual tasks).
 */
int rdt_core_check_task(rdtalloc_t *r, pid_t *tid, uint64_t *start)
{
	uid_t uid;
	int ret;

	if (*tid < 0)
		return rdt_fail(r, -EINVAL, "invalid task id %d", (int)*tid);
	if (*tid == 0)
		*tid = self_tid();
	*start = 0;
	if (r->m->virtual_tasks)
		return 0;
	ret = rdt_task_info(*tid, start, &uid);
	if (ret == -ESRCH)
		return rdt_fail(r, -ESRCH, "task %d does not exist", (int)*tid);
	if (ret)
		return rdt_fail(r, ret, "task %d: cannot read /proc: %s", (int)*tid,
				strerror(-ret));
	if (geteuid() != 0 && uid != geteuid())
		return rdt_fail(r, -EPERM, "not allowed to move task %d: it belongs to uid %u",
				(int)*tid, (unsigned int)uid);
	return 0;
}

/* Live tasks of group g as the backend sees them (hw/ops.c: the table, lib/bindings.c). */
int rdt_core_collect_tasks(rdtalloc_t *r, int g, pid_t **out, size_t *n)
{
	return r->be->ops->group_tasks(r, g, out, n);
}

/* Add a line to the call's warning (cut where the buffer ends). */
void rdt_core_warn(rdtalloc_t *r, const char *fmt, ...)
{
	size_t n = strlen(r->warning);
	va_list ap;

	if (n && n + 1 < sizeof(r->warning))
		r->warning[n++] = '\n';
	va_start(ap, fmt);
	vsnprintf(r->warning + n, sizeof(r->warning) - n, fmt, ap);
	va_end(ap);
}

/* Drop the binding of a task id whose task has exited (or was replaced). */
void rdt_core_drop_if_stale(rdtalloc_t *r, pid_t tid)
{
	struct rdt_task *t = rdt_task_map_get(&r->st->tasks, tid);

	if (t && !rdt_core_binding_alive(r, t)) {
		rdt_forget_task(r->st, tid);
		r->dirty = true;
	}
}

/*
 * Check a few bindings for exited tasks on every write: GC_BATCH bindings,
 * looking at no more than 8 times as many slots of the table. Each process
 * starts somewhere else in it (rdtctl is one call per process).
 */
void rdt_core_gc_tasks(rdtalloc_t *r)
{
	struct rdt_task_map *m = &r->st->tasks;
	unsigned int checked = 0, slots = 0;

	if (r->m->virtual_tasks || !m->len)
		return;
	if (!r->gc_cursor)
		r->gc_cursor = (size_t)getpid() * 2654435761u;
	while (checked < GC_BATCH && slots < 8 * GC_BATCH && slots < m->cap) {
		struct rdt_task *t;

		r->gc_cursor %= m->cap;
		t = &m->slots[r->gc_cursor];
		slots++;
		if (!t->tid) {
			r->gc_cursor++;
			continue;
		}
		checked++;
		if (!rdt_core_binding_alive(r, t)) {
			rdt_forget_task(r->st, t->tid);	/* shifts a later entry here */
			r->dirty = true;
			continue;
		}
		r->gc_cursor++;
	}
}

unsigned int rdt_core_sweep_tasks(rdtalloc_t *r, struct rdt_state *st)
{
	unsigned int n = 0;
	size_t i = 0;

	if (r->m->virtual_tasks)
		return 0;
	while (i < st->tasks.cap) {
		const struct rdt_task *t = &st->tasks.slots[i];

		if (t->tid && !rdt_core_binding_alive(r, t)) {
			rdt_forget_task(st, t->tid);	/* shifts a later entry here */
			n++;
			continue;
		}
		i++;
	}
	return n;
}

/* ---- Open and close ---------------------------------------------------------- */

static int opts_check(const struct rdtalloc_opts *opts)
{
	const unsigned char *p;
	size_t i;

	if (!opts)
		return 0;
	if (opts->sz < sizeof(size_t))
		return rdt_fail(NULL, -EINVAL, "rdtalloc_opts.sz is %zu: set it to "
				"sizeof(struct rdtalloc_opts) (use RDTALLOC_OPTS)", opts->sz);
	/* A newer caller's fields that this library does not know must be zero. */
	p = (const unsigned char *)opts;
	for (i = sizeof(struct rdtalloc_opts); i < opts->sz; i++)
		if (p[i])
			return rdt_fail(NULL, -EINVAL, "rdtalloc_opts has options this library "
					"(%s) does not know (byte %zu is set)",
					RDTALLOC_VERSION_STRING, i);
	if (OPTS_GET(opts, flags, 0) & ~KNOWN_FLAGS)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_opts.flags has unknown bits 0x%x",
				OPTS_GET(opts, flags, 0) & ~KNOWN_FLAGS);
	return 0;
}

/* The backends this context was handed (rdt_core_open): by name, the fallback, their names. */
static const struct rdt_backend *backend_named(const rdtalloc_t *r, const char *name)
{
	size_t i;

	for (i = 0; r->backends[i]; i++)
		if (!strcmp(r->backends[i]->name, name))
			return r->backends[i];
	return NULL;
}

static const struct rdt_backend *backend_simulator(const rdtalloc_t *r)
{
	size_t i;

	for (i = 0; r->backends[i]; i++)
		if (r->backends[i]->simulated)
			return r->backends[i];
	return NULL;
}

static void backend_names(const rdtalloc_t *r, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; r->backends[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					r->backends[i]->name);
}

/*
 * The `auto` choice: the best backend that can run here - msr where the CPU
 * has CAT, the device is usable and resctrl is not mounted - else the
 * simulator, with the reason in one line.
 */
static void choose_auto(rdtalloc_t *r)
{
	struct rdtalloc_cpu_caps caps = { .sz = sizeof(caps) };
	char why[160] = "", detect[160] = "";
	size_t i;

	rdt_detect_host(&caps, detect, sizeof(detect));
	for (i = 0; r->backends[i]; i++) {
		const struct rdt_backend *be = r->backends[i];

		if (be->simulated)
			continue;
		if (!be->usable || be->usable(&r->env, why, sizeof(why)) == 0) {
			r->be = be;
			snprintf(r->reason, sizeof(r->reason), "%s; using the %s backend",
				 caps.summary[0] ? caps.summary : detect, be->name);
			return;
		}
	}
	r->be = backend_simulator(r);
	if (why[0] && (caps.rdt_alloc || caps.probe_needed))
		snprintf(r->reason, sizeof(r->reason), "%s; using the simulator", why);
	else
		snprintf(r->reason, sizeof(r->reason), "%s", detect);
}

/* The caller's choice, else RDTALLOC_BACKEND, else auto. */
static int choose_backend(rdtalloc_t *r, const char *name)
{
	const char *env = getenv("RDTALLOC_BACKEND");
	char why[RDT_ERRMSG_MAX] = "", have[64];
	int ret;

	if (name && *name && strcmp(name, "auto")) {
		snprintf(r->reason, sizeof(r->reason), "backend '%.32s' requested by the caller",
			 name);
	} else if (env && *env && strcmp(env, "auto")) {
		name = env;
		snprintf(r->reason, sizeof(r->reason), "RDTALLOC_BACKEND=%.32s", env);
	} else {
		choose_auto(r);
		return 0;
	}
	r->be = backend_named(r, name);
	if (!r->be) {
		backend_names(r, have, sizeof(have));
		return rdt_fail(NULL, -EINVAL, "unknown backend '%.32s' (have: %s)", name, have);
	}
	if (r->be->usable) {
		ret = r->be->usable(&r->env, why, sizeof(why));
		/*
		 * No CAT by CPUID, and no description given: a state recorded for
		 * a described machine still counts as given (it was, at first
		 * use). Decided once the state is read (no_cat_check).
		 */
		if (ret == -ENODEV && !(r->flags & RDTALLOC_F_EPHEMERAL)) {
			snprintf(r->no_cat, sizeof(r->no_cat), "%.159s", why);
			return 0;
		}
		if (ret)
			return rdt_fail(NULL, ret, "backend %s cannot run here: %s", r->be->name,
					why);
	}
	return 0;
}

/* The deferred CPUID refusal: it stands unless the state records a described machine. */
static int no_cat_check(rdtalloc_t *r)
{
	if (!r->no_cat[0] || r->m->desc[0])
		return 0;
	return rdt_fail(NULL, -ENODEV, "backend %s cannot run here: %s", r->be->name, r->no_cat);
}

static const char *prec_name(unsigned int p)
{
	return p == RDT_PREC_TASK ? "task" : "cpu";
}

/* The rule asked for must be one the backend honours. */
static int precedence_check(rdtalloc_t *r)
{
	if (!r->precedence || (r->be->precedences & (1u << r->precedence)))
		return 0;
	return rdt_fail(NULL, -EINVAL, "backend %s cannot honour precedence=%s: %s", r->be->name,
			prec_name(r->precedence), r->be->precedence_why);
}

/* A new state takes the rule and the limits asked for, else the defaults. */
static void precedence_new(rdtalloc_t *r, struct rdt_state *st)
{
	st->precedence = r->precedence ? (enum rdt_precedence)r->precedence
				       : r->be->default_precedence;
	if (r->max_groups)
		st->max_groups = r->max_groups;
	if (r->max_tasks)
		st->max_tasks = r->max_tasks;
}

/* Limits asked for of an existing state must be the ones it was made with. */
static int limits_existing(rdtalloc_t *r, const char *dir)
{
	if (r->max_groups && r->max_groups != r->st->max_groups)
		return rdt_fail(NULL, -EBUSY, "the state in %s was made with max_groups=%u, not %u: "
				"limits are chosen when a state is created; use another state "
				"directory, or remove %s to start afresh", dir, r->st->max_groups,
				r->max_groups, rdt_store_path(r->store));
	if (r->max_tasks && r->max_tasks != r->st->max_tasks)
		return rdt_fail(NULL, -EBUSY, "the state in %s was made with max_tasks=%u, not %u: "
				"limits are chosen when a state is created; use another state "
				"directory, or remove %s to start afresh", dir, r->st->max_tasks,
				r->max_tasks, rdt_store_path(r->store));
	return 0;
}

/* An existing state keeps its rule: another one asked for is refused. */
static int precedence_existing(rdtalloc_t *r, const char *dir)
{
	if (!(r->be->precedences & (1u << r->st->precedence)))
		return rdt_fail(NULL, -EBUSY, "the state in %s has precedence=%s, which backend "
				"%s cannot honour (%s); use another state directory", dir,
				prec_name(r->st->precedence), r->be->name, r->be->precedence_why);
	if (!r->precedence || r->precedence == r->st->precedence)
		return 0;
	return rdt_fail(NULL, -EBUSY, "the state in %s was made with precedence=%s, not %s: the "
			"rule is chosen when a state is created; use another state directory, or "
			"remove %s to start afresh", dir, prec_name(r->st->precedence),
			prec_name(r->precedence), rdt_store_path(r->store));
}

/*
 * The description to build: the caller's (or the recorded one), completed
 * by the backend where it, not the description, knows the capabilities.
 */
static int backend_desc(rdtalloc_t *r, const char *given, char **out)
{
	char err[RDT_ERRMSG_MAX] = "";
	int ret;

	if (!r->be->machine_desc) {
		*out = strdup(given);
		return *out ? 0 : rdt_fail(NULL, -ENOMEM, "out of memory");
	}
	ret = r->be->machine_desc(&r->env, given, out, err, sizeof(err));
	if (ret)
		return rdt_fail(NULL, ret, "backend %s: %s", r->be->name, err);
	return 0;
}

static int build_machine(const char *desc, struct rdt_machine **m);

/* The machine when the caller names none and no state records one. */
static int default_machine(rdtalloc_t *r, char **desc)
{
	char err[RDT_ERRMSG_MAX] = "";
	char *host = NULL;
	int ret;

	if (!r->be->host_machine)
		return backend_desc(r, "", desc);
	ret = r->be->host_machine(&r->env, &host, err, sizeof(err));
	if (ret)
		return rdt_fail(NULL, ret, "backend %s: %s", r->be->name, err);
	ret = backend_desc(r, host, desc);
	free(host);
	return ret;
}

/* A machine from the caller's description, completed by the backend. */
static int given_machine(rdtalloc_t *r, const char *desc, struct rdt_machine **m)
{
	char *full = NULL;
	int ret = backend_desc(r, desc, &full);

	if (!ret)
		ret = build_machine(full, m);
	free(full);
	return ret;
}

static int build_machine(const char *desc, struct rdt_machine **m)
{
	char err[RDT_ERRMSG_MAX] = "";
	int ret = rdt_machine_build(desc, m, err, sizeof(err));

	if (ret)
		return rdt_fail(NULL, ret, "%s", err[0] ? err : rdtalloc_strerror(ret));
	return 0;
}

/*
 * A state recorded before memory bandwidth (or monitoring) was described has
 * no mb.* (mon.*) items: canon without them (malloc'ed), to compare; NULL
 * when recorded has them, canon has none, or out of memory. A state without
 * mon.* items runs with the monitoring the machine has now: monitoring adds
 * nothing the state must fit.
 */
static char *without_mb(const char *recorded, const char *canon)
{
	char *out, *o;
	const char *p;

	bool mb = !strstr(recorded, "mb.") && strstr(canon, "mb.");
	bool mon = !strstr(recorded, "mon.") && strstr(canon, "mon.");

	if (!mb && !mon)
		return NULL;
	out = malloc(strlen(canon) + 1);
	if (!out)
		return NULL;
	for (p = canon, o = out; *p;) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p + 1) : strlen(p);

		if (!(mb && !strncmp(p, "mb.", 3)) && !(mon && !strncmp(p, "mon.", 4))) {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	/* the host with nothing but MB or monitoring added is the plain host */
	if (!strcmp(out, "tasks=real") && !recorded[0])
		out[0] = '\0';
	return out;
}

/* MB's units in a description: NULL without MB (percent unless it says). */
static const char *mb_units_of(const char *desc)
{
	const char *u = strstr(desc, "mb.units=");

	if (!strstr(desc, "mb.closids="))
		return NULL;
	if (!u || !strncmp(u + 9, "percent", 7))
		return "percent";
	return !strncmp(u + 9, "mbps", 4) ? "MBps (resctrl mounted with -o mba_MBps)" :
	       "1/8 GB/s (AMD)";
}

/*
 * The reason first, when MB's units differ (resctrl remounted with or
 * without mba_MBps): the state's MB values would mean another thing.
 */
static void mb_units_change(const char *was, const char *now, char *buf, size_t len)
{
	const char *a = mb_units_of(was), *b = mb_units_of(now);

	buf[0] = '\0';
	if (a && b && strcmp(a, b))
		snprintf(buf, len, "MB's units changed: the state's MB values are in %s, the "
			 "machine's are in %s, and none is converted; ", a, b);
}

/* The state has no MB: keep it so, rather than a machine its file does not fit. */
static bool state_lacks_mb(const char *recorded, const struct rdt_machine *m)
{
	return m->caps[RDT_MB].present && !strstr(recorded, "mb.");
}

/*
 * A description recorded by an older version may spell the machine another
 * way (topology level names were not normalised): the same machine when it
 * builds to the same canonical string.
 */
static bool same_machine(const char *recorded, const char *canon)
{
	char err[RDT_ERRMSG_MAX], *plain = without_mb(recorded, canon);
	struct rdt_machine *m = NULL;
	bool same;

	if (plain && !strcmp(plain, recorded)) {
		free(plain);
		return true;
	}
	if (!recorded[0]) {
		free(plain);
		return false;	/* the host: its canonical form is "" already */
	}
	same = rdt_machine_build(recorded, &m, err, sizeof(err)) == 0 &&
	       (!strcmp(m->desc, canon) || (plain && !strcmp(m->desc, plain)));
	rdt_machine_free(m);
	free(plain);
	return same;
}

/* A new state, for the caller's machine or the default one, with its rule. */
/*
 * A new state's id: random, so that states made on one host (or on hosts
 * sharing nothing) are told apart; not a secret.
 */
static void new_id(struct rdt_state *st)
{
	uint32_t v;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
		    (uint32_t)getpid() << 16;
	}
	snprintf(st->id, sizeof(st->id), "%08" PRIx32, v);
}

static int new_state(rdtalloc_t *r, const char *desc)
{
	char *host = NULL;
	int ret;

	ret = desc ? given_machine(r, desc, &r->m) : default_machine(r, &host);
	if (!ret && !desc)
		ret = build_machine(host, &r->m);
	free(host);
	if (!ret && (ret = rdt_state_new(r->m, r->sections, &r->st)))
		return rdt_fail(NULL, ret, "out of memory");
	if (!ret) {
		precedence_new(r, r->st);
		new_id(r->st);
	}
	return ret;
}

/* Persistent state: adopt the recorded machine, or record ours at first use. */
static int open_store(rdtalloc_t *r, const char *dir, const char *desc)
{
	char err[RDT_ERRMSG_MAX] = "", path[PATH_MAX], units[160];
	struct rdt_machine *want = NULL;
	bool exists, changed;
	char *recorded = NULL;
	int ret;

	if (!dir) {
		ret = rdt_store_default_dir(r->be->name, path, sizeof(path));
		if (ret)
			return rdt_fail(NULL, ret, "no default state directory: set "
					"XDG_RUNTIME_DIR or HOME, or give one");
		dir = path;
	}
	ret = rdt_store_open(dir, r->ro, r->sections, &r->store, err, sizeof(err));
	if (ret)
		return rdt_fail(NULL, ret, "%s", err[0] ? err : strerror(-ret));
	ret = rdt_store_lock(r->store, !r->ro);
	if (ret)
		return rdt_fail(NULL, ret, "cannot lock state in %s", dir);
	ret = rdt_store_probe(r->store, &exists, &changed);
	if (ret)
		goto out;
	if (exists) {
		ret = rdt_store_read_machine(r->store, &recorded, err, sizeof(err));
		if (ret) {
			rdt_fail(NULL, ret, "%s", err);
			goto out;
		}
		if (desc) {
			ret = given_machine(r, desc, &want);
			if (ret)
				goto out;
			if (strcmp(want->desc, recorded) && !same_machine(recorded, want->desc) &&
			    (r->flags & RDTALLOC_F_REPLACE_MACHINE)) {
				char id[RDT_STATE_ID_LEN + 1];

				/*
				 * replaced: a new state for the machine asked for, with the
				 * old one's id - what that one owns outside its file is this
				 * one's to clean up
				 */
				rdt_store_cached_id(r->store, id, sizeof(id));
				rdt_machine_free(want);
				want = NULL;
				ret = new_state(r, desc);
				if (!ret && id[0])
					memcpy(r->st->id, id, sizeof(id));
				if (!ret)
					ret = rdt_store_write(r->store, r->st, r->be->name, err,
							      sizeof(err));
				if (ret && !rdtalloc_errmsg(NULL)[0])
					rdt_fail(NULL, ret, "%s", err[0] ? err : strerror(-ret));
				r->fresh = !ret;
				goto out;
			}
			if (strcmp(want->desc, recorded) && !same_machine(recorded, want->desc)) {
				mb_units_change(recorded, want->desc, units, sizeof(units));
				ret = rdt_fail(NULL, -EBUSY, "%sthe state in %s was made for machine "
					       "'%s', not '%s'; to replace it with a new state for "
					       "that machine (its groups are dropped): rdtctl reset "
					       "--machine '%s' (RDTALLOC_F_REPLACE_MACHINE), or use "
					       "another state directory", units, dir,
					       recorded[0] ? recorded : "host", want->desc, desc);
				goto out;
			}
			if (state_lacks_mb(recorded, want)) {
				ret = build_machine(recorded, &r->m);
				if (ret)
					goto out;
			} else {
				r->m = want;
				want = NULL;
			}
		} else {
			ret = given_machine(r, recorded, &r->m);
			if (ret)
				goto out;
			if (r->be->machine_desc && strcmp(r->m->desc, recorded) &&
			    !same_machine(recorded, r->m->desc)) {
				mb_units_change(recorded, r->m->desc, units, sizeof(units));
				ret = rdt_fail(NULL, -EBUSY, "%sthe state in %s was made for machine "
					       "'%s', but backend %s now reports '%s' (remounted?); "
					       "remove %s to start afresh", units, dir, recorded,
					       r->be->name, r->m->desc, rdt_store_path(r->store));
				goto out;
			}
			if (state_lacks_mb(recorded, r->m)) {
				rdt_machine_free(r->m);
				r->m = NULL;
				ret = build_machine(recorded, &r->m);
				if (ret)
					goto out;
			}
		}
		/* the file names its machine as written then, maybe spelled otherwise */
		if (strcmp(r->m->desc, recorded)) {
			char *d = strdup(recorded);

			if (!d) {
				ret = rdt_fail(NULL, -ENOMEM, "out of memory");
				goto out;
			}
			free(r->m->desc);
			r->m->desc = d;
		}
		ret = rdt_store_read(r->store, r->m, r->be->name, &r->st, err, sizeof(err));
		if (ret)
			rdt_fail(NULL, ret, "%s", err);
		else
			warn_kept_aside(r);
		if (!ret)
			ret = precedence_existing(r, dir);
		if (!ret)
			ret = limits_existing(r, dir);
	} else {
		ret = new_state(r, desc);
		if (!ret)
			ret = rdt_store_write(r->store, r->st, r->be->name, err, sizeof(err));
		if (ret && !rdtalloc_errmsg(NULL)[0])
			rdt_fail(NULL, ret, "%s", err[0] ? err : strerror(-ret));
		r->fresh = !ret;
		if (ret) {
			rdt_state_free(r->st);
			r->st = NULL;
		}
	}
out:
	rdt_store_unlock(r->store);
	rdt_machine_free(want);
	free(recorded);
	return ret;
}

/*
 * Who the context's changes are by: "user:admin" unless named. Only the
 * user owning a state directory can write it, so a uid would tell no
 * writer from another: the default says "a person, through the API".
 */
static int owner_setting(rdtalloc_t *r, const char *owner)
{
	char why[RDT_ERR_LEN];
	int ret;

	r->force = (r->flags & RDTALLOC_F_FORCE) != 0;
	ret = rdt_core_owner_text(owner ? owner : "admin", r->owner, sizeof(r->owner), why,
				  sizeof(why));
	if (ret)
		return rdt_fail(NULL, ret, "rdtalloc_opts.owner: %s", why);
	return 0;
}

int rdt_core_owner_text(const char *owner, char *buf, size_t len, char *why, size_t wlen)
{
	int n;

	if (owner && *owner && !strchr(owner, ':'))
		n = snprintf(buf, len, "user:%s", owner);
	else
		n = snprintf(buf, len, "%s", owner ? owner : "");
	if (n < 0 || (size_t)n >= len) {
		snprintf(why, wlen, "owner '%.32s...' is longer than %d bytes", owner,
			 RDT_OWNER_MAX);
		return -EINVAL;
	}
	return rdt_owner_check(buf, why, wlen);
}

int rdt_core_set_writer(rdtalloc_t *r, const char *owner, bool force)
{
	char why[RDT_ERR_LEN];
	int ret;

	if (!owner) {
		writer_on(r, r->owner, r->force);
		return 0;
	}
	ret = rdt_core_owner_text(owner, r->call_owner, sizeof(r->call_owner), why, sizeof(why));
	if (ret) {
		r->call_owner[0] = '\0';
		return rdt_fail(r, ret, "%s", why);
	}
	writer_on(r, r->call_owner, force);
	return 0;
}

/* Settings from the options, else the environment. */
static int settings(rdtalloc_t *r, const struct rdtalloc_opts *opts, const char *desc)
{
	const char *root = OPTS_GET(opts, msr_root, NULL);

	if (!root || !*root)
		root = getenv("RDTALLOC_MSR_ROOT");
	if (root && *root) {
		if (root[0] != '/')
			return rdt_fail(NULL, -EINVAL, "msr device root '%.200s' must be an "
					"absolute path", root);
		r->msr_root = strdup(root);
		if (!r->msr_root)
			return rdt_fail(NULL, -ENOMEM, "out of memory");
	}
	r->env.msr_root = r->msr_root;
	root = OPTS_GET(opts, resctrl_root, NULL);
	if (!root || !*root)
		root = getenv("RDTALLOC_RESCTRL_ROOT");
	if (root && *root) {
		if (root[0] != '/' || strlen(root) >= PATH_MAX - 64)
			return rdt_fail(NULL, -EINVAL, "resctrl root '%.200s' must be an absolute "
					"path shorter than %d bytes", root, PATH_MAX - 64);
		r->resctrl_root = strdup(root);
		if (!r->resctrl_root)
			return rdt_fail(NULL, -ENOMEM, "out of memory");
	}
	r->env.resctrl_root = r->resctrl_root;
	r->env.mounts = getenv("RDTALLOC_MOUNTS");
	r->env.machine_given = desc != NULL;
	r->precedence = OPTS_GET(opts, precedence, 0);
	if (r->precedence != 0 && r->precedence != RDTALLOC_PRECEDENCE_CPU &&
	    r->precedence != RDTALLOC_PRECEDENCE_TASK)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_opts.precedence is %u: use "
				"RDTALLOC_PRECEDENCE_CPU (1) or RDTALLOC_PRECEDENCE_TASK (2)",
				r->precedence);
	r->max_groups = OPTS_GET(opts, max_groups, 0);
	if (r->max_groups > RDT_GROUPS_LIMIT)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_opts.max_groups is %u: at most %u",
				r->max_groups, RDT_GROUPS_LIMIT);
	r->max_tasks = OPTS_GET(opts, max_tasks, 0);
	if (r->max_tasks > RDT_TASKS_LIMIT)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_opts.max_tasks is %u: at most %u",
				r->max_tasks, RDT_TASKS_LIMIT);
	return owner_setting(r, OPTS_GET(opts, owner, NULL));
}

/*
 * RDTALLOC_F_NO_CREATE: no state in the directory yet means a look at a new
 * one, in memory, that writes nothing (r->peek).
 */
static int peek_check(rdtalloc_t *r, const char *dir)
{
	char path[PATH_MAX];
	size_t n;
	int ret;

	if (!dir) {
		ret = rdt_store_default_dir(r->be->name, path, sizeof(path));
		if (ret)
			return rdt_fail(NULL, ret, "no default state directory: set "
					"XDG_RUNTIME_DIR or HOME, or give one");
		dir = path;
	}
	ret = rdt_store_exists(dir);
	if (ret > 0)
		return 0;
	/*
	 * Only a state that does not exist reads as the defaults: one that
	 * cannot be looked at (another user's 0700 directory) is an error, or
	 * a read would show an empty state where there is one.
	 */
	if (ret < 0) {
		struct stat sb;
		char owner[96] = "";

		if (!stat(dir, &sb))
			snprintf(owner, sizeof(owner), " (owned by uid %u, mode %04o)",
				 (unsigned int)sb.st_uid, (unsigned int)(sb.st_mode & 07777));
		return rdt_fail(NULL, ret, "cannot read the state in %.200s%s: %s; run as a user "
				"who may, or name a state directory of your own (--state-dir)", dir,
				owner, strerror(-ret));
	}
	r->peek = true;
	if (asprintf(&r->peek_path, "%s/state.json", dir) < 0)
		r->peek_path = NULL;	/* then it is not said where: no harm */
	n = strlen(r->reason);
	snprintf(r->reason + n, sizeof(r->reason) - n, "; no state in %.200s yet: a new one is "
		 "shown, nothing is written", dir);
	return 0;
}

int rdt_core_open(rdtalloc_t **out, const struct rdtalloc_opts *opts,
		  const struct rdt_section *const *sections, const struct rdt_backend *const *backends)
{
	const char *desc;
	rdtalloc_t *r;
	int ret;

	rdt_clear_err(NULL);
	if (!out)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_open: out is NULL");
	*out = NULL;
	ret = opts_check(opts);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return rdt_fail(NULL, -ENOMEM, "out of memory");
	pthread_mutex_init(&r->mu, NULL);
	r->sections = sections;
	r->backends = backends;
	r->err_key.id = rdt_err_new_id();
	r->flags = OPTS_GET(opts, flags, 0);
	desc = OPTS_GET(opts, machine, NULL);
	ret = settings(r, opts, desc);
	if (!ret)
		ret = choose_backend(r, OPTS_GET(opts, backend, NULL));
	if (ret)
		goto fail;
	if (!ret)
		ret = precedence_check(r);
	if (ret)
		goto fail;
	r->ro = (r->flags & RDTALLOC_F_READ_ONLY) != 0;
	if (!(r->flags & RDTALLOC_F_EPHEMERAL) &&
	    (r->flags & (RDTALLOC_F_NO_CREATE | RDTALLOC_F_READ_ONLY)))
		ret = peek_check(r, OPTS_GET(opts, state_dir, NULL));
	if (ret)
		goto fail;
	if ((r->flags & RDTALLOC_F_EPHEMERAL) || r->peek) {
		ret = new_state(r, desc);
		r->fresh = true;
	} else {
		ret = open_store(r, OPTS_GET(opts, state_dir, NULL), desc);
		if (!ret)
			ret = no_cat_check(r);
	}
	if (ret)
		goto fail;
	if (r->be->open) {
		char err[RDT_ERRMSG_MAX] = "";

		ret = r->be->open(&r->be_ctx, r->m, &r->env, err, sizeof(err));
		if (ret) {
			rdt_fail(NULL, ret, "backend %s: %s", r->be->name, err);
			goto fail;
		}
		r->be_open = true;
	}
	r->sink = r->be->sink ? r->be->sink(r->be_ctx) : NULL;
	r->st->sink = r->sink;
	ret = r->be->ops->open(r);
	if (ret)
		goto fail;
	/* the modules' steps at open: leases of processes killed since go back (lease.c) */
	section_hooks(r, SECTION_OPEN);
	*out = r;
	return 0;
fail:
	rdtalloc_close(r);
	return ret;
}

RDTALLOC_API void rdtalloc_close(rdtalloc_t *r)
{
	if (!r)
		return;
	/* the group level holds what it opened (the hook) even without a backend open */
	if (r->be)
		r->be->ops->close(r);
	if (r->be_open && r->be->close)
		r->be->close(r->be_ctx);
	json_object_put(r->mon_counters);	/* monitoring's totals, held for it */
	rdt_state_free(r->st);
	rdt_store_close(r->store);
	rdt_machine_free(r->m);
	rdt_core_task_index_free(r);
	free(r->msr_root);
	free(r->resctrl_root);
	free(r->peek_path);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

RDTALLOC_API const char *rdtalloc_backend(const rdtalloc_t *r)
{
	return r ? r->be->name : NULL;
}

RDTALLOC_API const char *rdtalloc_state_id(const rdtalloc_t *r)
{
	return r && r->st ? r->st->id : "";
}

RDTALLOC_API const char *rdtalloc_state_path(const rdtalloc_t *r)
{
	if (r && r->peek)
		return r->peek_path;
	return r && r->store ? rdt_store_path(r->store) : NULL;
}

RDTALLOC_API const char *rdtalloc_backend_reason(const rdtalloc_t *r)
{
	return r ? r->reason : NULL;
}

/* ---- For the api/ files and the modules ----------------------------------------- */

/* 0, or with buf NULL and len 0 the length of the name (the question for the size). */
int rdt_core_copy_name(rdtalloc_t *r, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (!buf && !len)
		return (int)n;
	if (!buf || n >= len)
		return rdt_fail(r, -ERANGE, "the group name needs %zu bytes", n + 1);
	memcpy(buf, name, n + 1);
	return 0;
}

void rdt_core_drop_lock(rdtalloc_t *r)
{
	if (r->store && !r->unlocked) {
		rdt_store_unlock(r->store);
		r->unlocked = true;
	}
}

int rdt_core_tasks_allowed(rdtalloc_t *r)
{
	return r->be->ops->tasks_allowed(r);
}

int rdt_core_carry_tasks(rdtalloc_t *r, const struct rdt_state *old)
{
	return r->be->ops->carry_tasks(r, old);
}
