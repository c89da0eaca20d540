// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core: the public API. Checks every input, chooses the backend, and runs
 * each call as one transaction on the state: lock (a mutex for the threads
 * of this context, flock for other processes), bring the cached state up to
 * date, let the engine change it, write it back. Knows nothing of registers
 * (the engine) nor of file formats (state, config, schema).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "cgroups.h"
#include "config.h"
#include "core.h"
#include "monitor/monitor.h"
#include "detect/detect.h"
#include "errors.h"
#include "lease.h"
#include "schema.h"
#include "state.h"
#include "tasks.h"

static const struct rdt_backend *const backends[] = {
	&rdt_backend_sim,
	&rdt_backend_msr,
	&rdt_backend_resctrl,
};

#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(typeof(*(opts)), field) + sizeof((opts)->field))
#define OPTS_GET(opts, field, def) (OPTS_HAS(opts, field) ? (opts)->field : (def))

#define KNOWN_FLAGS (RDTALLOC_F_EPHEMERAL | RDTALLOC_F_NO_CREATE | RDTALLOC_F_REPLACE_MACHINE | \
		     RDTALLOC_F_SNAPSHOT | RDTALLOC_F_READ_ONLY | RDTALLOC_F_MON_TOTALS)

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
	return 0;
}

/* Lock and bring r->st up to date. */
static int begin(rdtalloc_t *r, bool write)
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
			rdt_mon_advance(r);
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
			if (write)
				rdt_mon_advance(r);
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
static int end(rdtalloc_t *r, bool write, int ret)
{
	char err[RDT_ERRMSG_MAX];
	bool committed = false;
	int wret;

	err[0] = '\0';		/* not "= \"\"": that clears 1 KiB on every call */

	if (write && ret >= 0 && r->dirty) {
		rdt_mon_settle(r);
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

static int engine_err(rdtalloc_t *r, int ret)
{
	if (ret >= 0)
		return ret;
	if (ret == -ENOMEM)
		return rdt_fail(r, ret, "out of memory");
	return rdt_fail(r, ret, "%s", r->st->err[0] ? r->st->err : rdtalloc_strerror(ret));
}

/* ---- Input checks --------------------------------------------------------- */

/* The group named name: NULL, "" and "default" are the default group. */
static int find_group(rdtalloc_t *r, const char *name)
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

static int find_res(rdtalloc_t *r, const char *name)
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

static int check_cpu(rdtalloc_t *r, int cpu)
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
static int check_task(rdtalloc_t *r, pid_t *tid, uint64_t *start)
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

/* A binding is live when its task still runs and is the same task. */
bool rdt_core_binding_alive(const rdtalloc_t *r, const struct rdt_task *t)
{
	return r->m->virtual_tasks || rdt_task_alive(t->tid, t->start);
}

/* Drop the binding of a task id whose task has exited (or was replaced). */
static void drop_if_stale(rdtalloc_t *r, pid_t tid)
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
static void gc_tasks(rdtalloc_t *r)
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

static const struct rdt_backend *backend_named(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

static void backend_names(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					backends[i]->name);
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
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct rdt_backend *be = backends[i];

		if (be->simulated)
			continue;
		if (!be->usable || be->usable(&r->env, why, sizeof(why)) == 0) {
			r->be = be;
			snprintf(r->reason, sizeof(r->reason), "%s; using the %s backend",
				 caps.summary[0] ? caps.summary : detect, be->name);
			return;
		}
	}
	r->be = &rdt_backend_sim;
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
	r->be = backend_named(name);
	if (!r->be) {
		backend_names(have, sizeof(have));
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
	if (!ret && (ret = rdt_state_new(r->m, &r->st)))
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
	char err[RDT_ERRMSG_MAX] = "", path[PATH_MAX];
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
	ret = rdt_store_open(dir, r->ro, &r->store, err, sizeof(err));
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
				ret = rdt_fail(NULL, -EBUSY, "the state in %s was made for machine "
					       "'%s', not '%s'; to replace it with a new state for "
					       "that machine (its groups are dropped): rdtctl reset "
					       "--machine '%s' (RDTALLOC_F_REPLACE_MACHINE), or use "
					       "another state directory", dir,
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
				ret = rdt_fail(NULL, -EBUSY, "the state in %s was made for machine "
					       "'%s', but backend %s now reports '%s' (remounted?); "
					       "remove %s to start afresh", dir, recorded,
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
	return 0;
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

RDTALLOC_API int rdtalloc_open(rdtalloc_t **out, const struct rdtalloc_opts *opts)
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
	r->err_id = rdt_err_new_id();
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
	/* schemas leased by processes killed since (a profile's sweep) go back */
	rdt_lease_recover(r);
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
	rdt_mon_close(r);
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

/* ---- Groups ------------------------------------------------------------------- */

RDTALLOC_API int rdtalloc_group_create(rdtalloc_t *r, const char *name)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	if (!name || !*name)
		ret = rdt_fail(r, -EINVAL, "a group needs a name");
	else if (!strcmp(name, "default"))
		ret = rdt_fail(r, -EEXIST, "the default group always exists");
	else if (!rdt_name_valid(name))
		ret = find_group(r, name);	/* reports the invalid name */
	else {
		int idx = -1;

		gc_tasks(r);
		ret = engine_err(r, rdt_group_add(r->st, name, &idx));
		/* where exclusive groups hold ways, the new group starts beside them */
		if (!ret && (ret = engine_err(r, rdt_group_fit_exclusive(r->st, idx))))
			rdt_group_del(r->st, idx);	/* no group rather than half a one */
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_remove(rdtalloc_t *r, const char *name)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, name);
	if (g == 0)
		ret = rdt_fail(r, -EBUSY, "the default group cannot be removed");
	else if (g < 0)
		ret = g;
	else {
		gc_tasks(r);
		ret = engine_err(r, rdt_group_del(r->st, g));
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_set_mode(rdtalloc_t *r, const char *group, unsigned int mode)
{
	unsigned int kind = mode & ~RDTALLOC_MODE_FORCE;
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, group);
	if (g < 0)
		ret = g;
	else if (kind != RDTALLOC_MODE_SHAREABLE && kind != RDTALLOC_MODE_EXCLUSIVE)
		ret = rdt_fail(r, -EINVAL, "mode 0x%x: use RDTALLOC_MODE_SHAREABLE or "
			       "RDTALLOC_MODE_EXCLUSIVE (| RDTALLOC_MODE_FORCE)", mode);
	else if (r->st->groups[g].exclusive != (kind == RDTALLOC_MODE_EXCLUSIVE) ||
		 r->st->groups[g].forced != ((mode & RDTALLOC_MODE_FORCE) &&
					     kind == RDTALLOC_MODE_EXCLUSIVE)) {
		ret = engine_err(r, rdt_group_set_exclusive(r->st, g,
							    kind == RDTALLOC_MODE_EXCLUSIVE,
							    mode & RDTALLOC_MODE_FORCE));
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_get_mode(rdtalloc_t *r, const char *group)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	g = find_group(r, group);
	if (g >= 0)
		ret = !r->st->groups[g].exclusive ? (int)RDTALLOC_MODE_SHAREABLE :
		      (int)(RDTALLOC_MODE_EXCLUSIVE |
			    (r->st->groups[g].forced ? RDTALLOC_MODE_FORCE : 0));
	else
		ret = g;
	return end(r, false, ret);
}

RDTALLOC_API int rdtalloc_group_count(rdtalloc_t *r)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	return end(r, false, (int)r->st->nlive);
}

static int cmp_seq(const void *a, const void *b, void *arg)
{
	const struct rdt_state *st = arg;
	uint64_t x = st->groups[*(const int *)a].seq, y = st->groups[*(const int *)b].seq;

	return (x > y) - (x < y);
}

/* Live groups in creation order (default first); caller frees. */
static int *groups_in_order(const struct rdt_state *st, unsigned int *n)
{
	int *order = malloc((st->ngroups ? st->ngroups : 1) * sizeof(int));
	unsigned int i, k = 0;

	if (!order)
		return NULL;
	for (i = 0; i < st->ngroups; i++)
		if (st->groups[i].live)
			order[k++] = (int)i;
	if (k > 1)
		qsort_r(order + 1, k - 1, sizeof(int), cmp_seq, (void *)st);
	*n = k;
	return order;
}

RDTALLOC_API int rdtalloc_group_foreach(rdtalloc_t *r, int (*cb)(const char *name, void *arg),
					void *arg)
{
	char (*names)[RDT_NAME_LEN] = NULL;
	unsigned int i, n = 0;
	int *order, ret;

	if (!r || !cb)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	order = groups_in_order(r->st, &n);
	names = order ? malloc(n * sizeof(*names)) : NULL;
	if (names)
		for (i = 0; i < n; i++)
			memcpy(names[i], r->st->groups[order[i]].name, RDT_NAME_LEN);
	free(order);
	ret = end(r, false, names ? 0 : rdt_fail(r, -ENOMEM, "out of memory"));
	/* Callbacks run unlocked, on the snapshot: they may call us again. */
	for (i = 0; !ret && i < n; i++)
		ret = cb(names[i], arg);
	free(names);
	return ret;
}

/* ---- Schemas --------------------------------------------------------------------- */

static void free_parsed(struct rdt_schema_mask *parsed[RDT_NALL])
{
	unsigned int res;

	for (res = 0; res < RDT_NALL; res++)
		free(parsed[res]);
}

/*
 * Turn schema text into the engine's per-slot request for group g:
 * want[slot*2 + 0/1] and set[slot]. Only the given halves change.
 */
static int schema_request(rdtalloc_t *r, struct rdt_state *st, int g, const char *text,
			  uint64_t **want, bool **set)
{
	struct rdt_schema_mask *parsed[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int res, d;
	int ret = -ENOMEM;

	*want = calloc((size_t)st->nslots * 2, sizeof(uint64_t));
	*set = calloc(st->nslots, sizeof(bool));
	if (!*want || !*set)
		goto fail;
	for (res = 0; res < RDT_NALL; res++)
		if (r->m->caps[res].present &&
		    !(parsed[res] = calloc(r->m->ndom[res], sizeof(**parsed))))
			goto fail;
	ret = rdt_schema_parse(r->m, st->cdp, text, parsed, err, sizeof(err));
	if (ret) {
		rdt_fail(r, ret, "%s", err[0] ? err : "invalid schema");
		goto fail;
	}
	for (res = 0; res < RDT_NALL; res++) {
		for (d = 0; parsed[res] && d < r->m->ndom[res]; d++) {
			const struct rdt_schema_mask *p = &parsed[res][d];
			unsigned int s = st->slot_of[res][d];

			if (!p->data_set && !p->code_set)
				continue;
			(*set)[s] = true;
			(*want)[s * 2] = p->data_set ? p->data : grp->mask[s * 2];
			(*want)[s * 2 + 1] = p->code_set ? p->code : grp->mask[s * 2 + 1];
		}
	}
	free_parsed(parsed);
	return 0;
fail:
	free_parsed(parsed);
	free(*want);
	free(*set);
	*want = NULL;
	*set = NULL;
	return ret == -ENOMEM ? rdt_fail(r, ret, "out of memory") : ret;
}

RDTALLOC_API const char *rdtalloc_warning(const rdtalloc_t *r)
{
	return r ? r->warning : "";
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

/*
 * A mask the call set that uses shareable ways: accepted, with a warning -
 * other agents (I/O through DDIO on Intel) fill those ways too, so the
 * group does not have them to itself.
 */
static void warn_shareable(rdtalloc_t *r, const struct rdt_state *st, int g, const bool *set)
{
	unsigned int s, h;

	for (s = 0; s < st->nslots; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		uint64_t shared = st->m->caps[sl->res].shareable_bits;

		if (!set[s] || sl->res == RDT_MB || !shared)
			continue;
		for (h = 0; h < (st->cdp[sl->res] ? 2u : 1u); h++) {
			uint64_t m = st->groups[g].mask[s * 2 + h];

			if (m & shared)
				rdt_core_warn(r, "%s cache id %u: %smask 0x%llx uses the shareable ways 0x%llx, "
				     "which other agents (such as I/O) fill too: group %s does not "
				     "have them to itself", rdt_res_name(sl->res),
				     st->m->dom[sl->res][sl->dom].cache_id,
				     st->cdp[sl->res] ? (h ? "code " : "data ") : "",
				     (unsigned long long)m, (unsigned long long)(m & shared),
				     st->groups[g].name);
		}
	}
}

/* Apply schema text to group g of st (r->st or a working copy). */
static int apply_schema(rdtalloc_t *r, struct rdt_state *st, int g, const char *text,
			bool *changed)
{
	uint64_t *want, *before;
	bool *set;
	int ret;

	ret = schema_request(r, st, g, text, &want, &set);
	if (ret)
		return ret;
	before = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	if (!before) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(before, st->groups[g].mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
	ret = rdt_group_set_masks(st, g, want, set);
	if (ret)
		ret = rdt_fail(r, ret, "%s", st->err);
	else
		warn_shareable(r, st, g, set);
	if (!ret && changed)
		*changed = memcmp(before, st->groups[g].mask,
				  (size_t)st->nslots * 2 * sizeof(uint64_t)) != 0;
	free(before);
out:
	free(want);
	free(set);
	return ret;
}

int rdt_core_set_schema(rdtalloc_t *r, int g, const char *schema)
{
	bool changed = false;
	int ret = apply_schema(r, r->st, g, schema, &changed);

	if (!ret && changed)
		r->dirty = r->groups_changed = true;
	return ret;
}

RDTALLOC_API int rdtalloc_set_schema(rdtalloc_t *r, const char *group, const char *schema)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, group);
	if (g < 0)
		ret = g;
	else if (!schema)
		ret = rdt_fail(r, -EINVAL, "schema is NULL");
	else
		ret = rdt_core_set_schema(r, g, schema);
	return end(r, true, ret);
}

/* Format group g's schema; returns the length. */
static int format_schema(const struct rdt_state *st, int g, char *buf, size_t len)
{
	uint64_t *data[RDT_NALL] = { 0 }, *code[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	unsigned int res, d;
	int ret = -ENOMEM;

	for (res = 0; res < RDT_NALL; res++) {
		if (!st->m->caps[res].present)
			continue;
		data[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		code[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		if (!data[res] || !code[res])
			goto out;
		for (d = 0; d < st->m->ndom[res]; d++) {
			unsigned int s = st->slot_of[res][d];

			data[res][d] = grp->mask[s * 2];
			code[res][d] = grp->mask[s * 2 + 1];
		}
	}
	ret = rdt_schema_format(st->m, st->cdp, data, code, buf, len);
out:
	for (res = 0; res < RDT_NALL; res++) {
		free(data[res]);
		free(code[res]);
	}
	return ret;
}

RDTALLOC_API int rdtalloc_get_schema(rdtalloc_t *r, const char *group, char *buf, size_t len)
{
	int ret, g;

	if (!r || (!buf && len))
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	g = find_group(r, group);
	if (g < 0) {
		ret = g;
	} else {
		ret = format_schema(r->st, g, buf, len);
		/* buf NULL, len 0: a question for the length, as snprintf answers it */
		if (ret >= 0 && !buf)
			;
		else if (ret >= 0 && (size_t)ret >= len)
			ret = rdt_fail(r, -ERANGE, "the schema needs %d bytes, the buffer has %zu",
				       ret + 1, len);
		else if (ret < 0)
			ret = rdt_fail(r, ret, "out of memory");
	}
	return end(r, false, ret);
}

/* ---- Membership ------------------------------------------------------------------- */

/* Inside a write call: task tid to group g (lib/batch.c binds many this way). */
int rdt_core_bind_task(rdtalloc_t *r, int g, pid_t tid)
{
	uint64_t start;
	int ret;

	ret = check_task(r, &tid, &start);
	if (ret)
		return ret;
	ret = r->be->ops->tasks_allowed(r);
	if (ret)
		return ret;
	gc_tasks(r);
	/* at the limit, every exited task's binding goes before the answer is no */
	if (r->st->tasks.len >= r->st->max_tasks && !rdt_task_map_get(&r->st->tasks, tid) &&
	    rdt_core_sweep_tasks(r, r->st))
		r->dirty = true;
	ret = engine_err(r, rdt_bind_task(r->st, g, tid, start));
	/* the state's table, then the backend's owner of membership; end() undoes both */
	if (!ret)
		ret = r->be->ops->bind_task(r, g, tid, start);
	if (!ret)
		r->dirty = true;
	return ret;
}

/* Inside a write call: CPU cpu to group g. */
int rdt_core_bind_cpu(rdtalloc_t *r, int g, int cpu)
{
	int ret = check_cpu(r, cpu);

	if (!ret)
		ret = engine_err(r, rdt_bind_cpu(r->st, g, cpu));
	if (!ret)
		r->dirty = r->groups_changed = true;
	return ret;
}

int rdt_core_find_group(rdtalloc_t *r, const char *name)
{
	return find_group(r, name);
}

RDTALLOC_API int rdtalloc_bind_task(rdtalloc_t *r, const char *group, pid_t tid)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, group);
	ret = g < 0 ? g : rdt_core_bind_task(r, g, tid);
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_bind_cpu(rdtalloc_t *r, const char *group, int cpu)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, group);
	ret = g < 0 ? g : rdt_core_bind_cpu(r, g, cpu);
	return end(r, true, ret);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void rdt_core_task_index_free(rdtalloc_t *r)
{
	free(r->tix_off);
	free(r->tix_tid);
	r->tix_off = NULL;
	r->tix_tid = NULL;
	r->tix_gen = 0;
}

/*
 * The bound tasks by group, rebuilt only when the table changed: asking
 * every group for its tasks (group show of 10,000 groups) is then linear
 * in the tasks, not their square.
 */
static int task_index(rdtalloc_t *r)
{
	const struct rdt_task_map *m = &r->st->tasks;
	unsigned int ng = r->st->ngroups, g;
	size_t i, *pos;

	if (r->tix_off && r->tix_gen == m->gen && r->tix_ngroups == ng)
		return 0;
	rdt_core_task_index_free(r);
	r->tix_off = calloc((size_t)ng + 2, sizeof(size_t));
	r->tix_tid = malloc((m->len ? m->len : 1) * sizeof(pid_t));
	pos = malloc(((size_t)ng + 1) * sizeof(size_t));
	if (!r->tix_off || !r->tix_tid || !pos) {
		free(pos);
		rdt_core_task_index_free(r);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && (unsigned int)m->slots[i].group < ng)
			r->tix_off[m->slots[i].group + 1]++;
	for (g = 0; g < ng; g++)
		r->tix_off[g + 1] += r->tix_off[g];
	memcpy(pos, r->tix_off, ((size_t)ng + 1) * sizeof(size_t));
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && (unsigned int)m->slots[i].group < ng)
			r->tix_tid[pos[m->slots[i].group]++] = m->slots[i].tid;
	for (g = 0; g < ng; g++)
		qsort(r->tix_tid + r->tix_off[g], r->tix_off[g + 1] - r->tix_off[g], sizeof(pid_t),
		      cmp_pid);
	free(pos);
	r->tix_gen = m->gen;
	r->tix_ngroups = ng;
	return 0;
}

/* v minus the tids of drop (both ascending), in place. */
static size_t subtract(pid_t *v, size_t n, const pid_t *drop, size_t nd)
{
	size_t i, j = 0, k = 0;

	for (i = 0; i < n; i++) {
		while (j < nd && drop[j] < v[i])
			j++;
		if (j < nd && drop[j] == v[i])
			continue;
		v[k++] = v[i];
	}
	return k;
}

/* a and b (ascending) merged into a new array, each tid once. */
static int merge(const pid_t *a, size_t na, const pid_t *b, size_t nb, pid_t **out, size_t *n)
{
	pid_t *v = malloc((na + nb + 1) * sizeof(pid_t));
	size_t i = 0, j = 0, k = 0;

	if (!v)
		return -ENOMEM;
	while (i < na || j < nb) {
		pid_t x = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];

		if (i < na && a[i] == x)
			i++;
		if (j < nb && b[j] == x)
			j++;
		v[k++] = x;
	}
	*out = v;
	*n = k;
	return 0;
}

/* The tids the state's table binds to a live task, ascending. */
static int table_bound(rdtalloc_t *r, pid_t **out, size_t *n)
{
	const struct rdt_task_map *m = &r->st->tasks;
	pid_t *v = malloc((m->len + 1) * sizeof(pid_t));
	size_t i, k = 0;

	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && rdt_core_binding_alive(r, &m->slots[i]))
			v[k++] = m->slots[i].tid;
	qsort(v, k, sizeof(pid_t), cmp_pid);
	*out = v;
	*n = k;
	return 0;
}

/*
 * Tasks of g through its cgroups (or, for g 0, of any bound cgroup), less
 * those bound by the table: out of out/n (ascending) for g 0, into it else.
 */
static int with_cgroups(rdtalloc_t *r, int g, pid_t **out, size_t *n)
{
	pid_t *cg = NULL, *own = NULL, *v;
	size_t ncg = 0, nown = 0, nv;
	int ret;

	if (!r->st->ncgroups || r->m->virtual_tasks)
		return 0;
	ret = rdt_core_cgroup_members(r, g ? g : -1, &cg, &ncg);
	if (!ret && ncg && g)
		ret = table_bound(r, &own, &nown);
	if (ret || !ncg)
		goto out;
	if (g == 0) {
		*n = subtract(*out, *n, cg, ncg);
		goto out;
	}
	ncg = subtract(cg, ncg, own, nown);
	ret = merge(*out, *n, cg, ncg, &v, &nv);
	if (ret) {
		ret = rdt_fail(r, ret, "out of memory");
		goto out;
	}
	free(*out);
	*out = v;
	*n = nv;
out:
	free(cg);
	free(own);
	return ret;
}

/* Live tasks of group g by the state's table and its cgroups, ascending, into a new array. */
int rdt_core_table_tasks(rdtalloc_t *r, int g, pid_t **out, size_t *n)
{
	const struct rdt_task_map *m = &r->st->tasks;
	pid_t *v;
	size_t i, k = 0;
	int ret;

	if (g == 0 && !r->m->virtual_tasks) {
		pid_t *all;
		size_t na;

		ret = rdt_host_tids(&all, &na);

		if (ret)
			return rdt_fail(r, ret, "cannot list the tasks in /proc: %s",
					strerror(-ret));
		for (i = 0; i < na; i++) {
			const struct rdt_task *t = rdt_task_map_get(m, all[i]);

			if (!t || !rdt_core_binding_alive(r, t))
				all[k++] = all[i];
		}
		*out = all;
		*n = k;
		ret = with_cgroups(r, 0, out, n);
		if (ret) {
			free(*out);
			*out = NULL;
		}
		return ret;
	}
	if (g != 0 && (ret = task_index(r)))
		return ret;
	i = g ? r->tix_off[g] : 0;
	v = malloc(((g ? r->tix_off[g + 1] : i) - i + 1) * sizeof(pid_t));
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (; g != 0 && i < r->tix_off[g + 1]; i++) {
		const struct rdt_task *t = rdt_task_map_get(m, r->tix_tid[i]);

		if (t && t->group == g && rdt_core_binding_alive(r, t))
			v[k++] = t->tid;
	}
	*out = v;
	*n = k;
	if (g != 0 && (ret = with_cgroups(r, g, out, n))) {
		free(*out);
		*out = NULL;
		return ret;
	}
	return 0;
}

static int collect_tasks(rdtalloc_t *r, int g, pid_t **out, size_t *n)
{
	return r->be->ops->group_tasks(r, g, out, n);
}

int rdt_core_table_group(rdtalloc_t *r, pid_t tid, uint64_t start)
{
	const struct rdt_task *t = rdt_task_map_get(&r->st->tasks, tid);

	if (t && (r->m->virtual_tasks || t->start == start))
		return t->group;
	return rdt_core_cgroup_task_group(r, tid);
}

RDTALLOC_API int rdtalloc_group_tasks(rdtalloc_t *r, const char *group, pid_t *tids, size_t max)
{
	pid_t *v = NULL;
	size_t n = 0;
	int ret, g;

	if (!r || (!tids && max))
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	g = find_group(r, group);
	ret = g < 0 ? g : collect_tasks(r, g, &v, &n);
	if (!ret) {
		if (max && n)
			memcpy(tids, v, (n < max ? n : max) * sizeof(pid_t));
		ret = n > INT_MAX ? INT_MAX : (int)n;
	}
	free(v);
	return end(r, false, ret);
}

RDTALLOC_API int rdtalloc_group_cpus(rdtalloc_t *r, const char *group, int *cpus, size_t max)
{
	unsigned int c;
	int ret, g, n = 0;

	if (!r || (!cpus && max))
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	g = find_group(r, group);
	if (g < 0)
		return end(r, false, g);
	for (c = 0; c < r->m->ncpus; c++) {
		int cg = r->st->cpu_group[c];

		if (!r->m->cpu_present[c] || (g == 0 ? cg >= 0 : cg != g))
			continue;
		if ((size_t)n < max)
			cpus[n] = (int)c;
		n++;
	}
	return end(r, false, n);
}

/* 0, or with buf NULL and len 0 the length of the name (the question for the size). */
static int copy_name(rdtalloc_t *r, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (!buf && !len)
		return (int)n;
	if (!buf || n >= len)
		return rdt_fail(r, -ERANGE, "the group name needs %zu bytes", n + 1);
	memcpy(buf, name, n + 1);
	return 0;
}

RDTALLOC_API int rdtalloc_task_group(rdtalloc_t *r, pid_t tid, char *buf, size_t len)
{
	uint64_t start;
	int ret, g = 0;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = check_task(r, &tid, &start);
	if (!ret)
		ret = r->be->ops->task_group(r, tid, start, &g);
	if (!ret)
		ret = copy_name(r, r->st->groups[g].name, buf, len);
	return end(r, false, ret);
}

RDTALLOC_API int rdtalloc_cpu_group(rdtalloc_t *r, int cpu, char *buf, size_t len)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = check_cpu(r, cpu);
	if (!ret) {
		int g = r->st->cpu_group[cpu];

		ret = copy_name(r, g < 0 ? "default" : r->st->groups[g].name, buf, len);
	}
	return end(r, false, ret);
}

/* ---- cgroups ------------------------------------------------------------------------ */

/* The cgroup a caller names, normalised, with its id; errmsg names what is wrong. */
int rdt_core_check_cgroup(rdtalloc_t *r, const char *path, char *rel, size_t len, uint64_t *id)
{
	char err[RDT_ERRMSG_MAX];
	const char *root;
	int ret;

	if (r->m->virtual_tasks)
		return rdt_fail(r, -EOPNOTSUPP, "this machine's tasks are virtual (tasks=virtual): "
				"it has no cgroups to bind");
	root = rdt_core_cgroup_root(r);
	if (!root)
		return -ENOENT;
	ret = rdt_cgroup_resolve(root, path, rel, len, id, err, sizeof(err));
	return ret ? rdt_fail(r, ret, "%s", err) : 0;
}

RDTALLOC_API int rdtalloc_bind_cgroup(rdtalloc_t *r, const char *group, const char *path)
{
	char rel[RDT_CGROUP_PATH_MAX];
	const struct rdt_cgroup *c;
	uint64_t id;
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	g = find_group(r, group);
	ret = g < 0 ? g : rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);
	if (!ret)
		ret = rdt_core_cgroup_may_bind(r, rel);
	if (!ret)
		ret = r->be->ops->tasks_allowed(r);
	if (ret)
		goto out;
	if (rdt_core_cgroup_gc(r))
		r->dirty = r->cgroups_changed = true;
	c = rdt_cgroup_find(r->st, rel);
	if (c ? c->group == g && c->id == id : g == 0)
		goto out;	/* as asked already */
	ret = engine_err(r, rdt_bind_cgroup(r->st, g, rel, id));
	if (!ret)
		r->dirty = r->cgroups_changed = true;
out:
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_cgroup_group(rdtalloc_t *r, const char *path, char *buf, size_t len)
{
	char rel[RDT_CGROUP_PATH_MAX];
	uint64_t id;
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);
	if (!ret)
		ret = copy_name(r, r->st->groups[rdt_core_cgroup_path_group(r, rel)].name, buf, len);
	return end(r, false, ret);
}

/* One live binding, copied out for a callback that runs unlocked. */
struct cg_snap {
	char *path;
	char group[RDT_NAME_LEN];
};

static int cgroup_snapshot(rdtalloc_t *r, struct cg_snap **out, unsigned int *n)
{
	const char *root = rdt_core_cgroup_root(r);
	struct cg_snap *v;
	unsigned int i;

	*n = 0;
	*out = v = calloc(r->st->ncgroups + 1, sizeof(*v));
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; root && i < r->st->ncgroups; i++) {
		const struct rdt_cgroup *c = &r->st->cgroups[i];
		uint64_t id;

		/* a cgroup removed since drops out, as an exited task does */
		if (rdt_cgroup_id(root, c->path, &id) || id != c->id)
			continue;
		v[*n].path = strdup(c->path);
		if (!v[*n].path)
			return rdt_fail(r, -ENOMEM, "out of memory");
		memcpy(v[(*n)++].group, r->st->groups[c->group].name, RDT_NAME_LEN);
	}
	return 0;
}

RDTALLOC_API int rdtalloc_cgroup_foreach(rdtalloc_t *r,
					 int (*cb)(const char *path, const char *group, void *arg),
					 void *arg)
{
	struct cg_snap *snap = NULL;
	unsigned int i, n = 0;
	int ret;

	if (!r || !cb)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = r->st->ncgroups ? cgroup_snapshot(r, &snap, &n) : 0;
	ret = end(r, false, ret);
	/* callbacks run unlocked, on the snapshot: they may call us again */
	for (i = 0; !ret && i < n; i++)
		ret = cb(snap[i].path, snap[i].group, arg);
	for (i = 0; snap && snap[i].path; i++)
		free(snap[i].path);
	free(snap);
	return ret;
}

/* ---- Machine and CLOSIDs --------------------------------------------------------- */

/* Resource idx-th present resource. */
static int nth_res(const struct rdt_machine *m, unsigned int idx)
{
	unsigned int res, k = 0;

	for (res = 0; res < RDT_NALL; res++)
		if (m->caps[res].present && k++ == idx)
			return (int)res;
	return -1;
}

RDTALLOC_API int rdtalloc_resource_count(rdtalloc_t *r)
{
	int n = 0;

	if (!r)
		return -EINVAL;
	while (nth_res(r->m, (unsigned int)n) >= 0)
		n++;
	return n;
}

RDTALLOC_API int rdtalloc_get_resource_info(rdtalloc_t *r, unsigned int idx,
					struct rdtalloc_resource_info *info)
{
	struct rdtalloc_resource_info v = { 0 };
	const struct rdt_caps *c;
	int ret, res;

	if (!r || !info || info->sz < sizeof(size_t))
		return r ? rdt_fail(r, -EINVAL, "info is NULL or info->sz is not set") : -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	res = nth_res(r->m, idx);
	if (res < 0)
		return end(r, false, rdt_fail(r, -EINVAL, "no resource %u (have %d)", idx,
					      rdtalloc_resource_count(r)));
	c = &r->m->caps[res];
	v.sz = info->sz < sizeof(v) ? info->sz : sizeof(v);
	snprintf(v.name, sizeof(v.name), "%s", rdt_res_name(res));
	v.hw_closids = c->closids;
	v.num_closids = r->st->cdp[res] ? c->closids / 2 : c->closids;
	v.cbm_len = c->cbm_len;
	v.min_cbm_bits = c->min_cbm_bits;
	v.shareable_bits = c->shareable_bits;
	v.cdp_supported = c->cdp;
	v.cdp_enabled = r->st->cdp[res];
	v.sparse_masks = c->sparse;
	v.num_domains = r->m->ndom[res];
	if (res == RDT_MB) {
		v.min_bandwidth = c->mb_min;
		v.bandwidth_gran = c->mb_gran;
		v.max_bandwidth = c->mb_max;
		v.bandwidth_amd = c->mb_amd;
		v.bandwidth_mbps = c->mb_mbps;
	}
	memcpy(info, &v, v.sz);
	return end(r, false, 0);
}

RDTALLOC_API int rdtalloc_domains(rdtalloc_t *r, const char *resource, unsigned int *ids,
				  size_t max)
{
	unsigned int d;
	int res;

	if (!r || (!ids && max))
		return -EINVAL;
	rdt_clear_err(r);
	res = find_res(r, resource);
	if (res < 0)
		return res;
	for (d = 0; d < r->m->ndom[res] && d < max; d++)
		ids[d] = r->m->dom[res][d].cache_id;
	return (int)r->m->ndom[res];
}

static int find_dom(rdtalloc_t *r, const char *resource, unsigned int cache_id, int *res)
{
	char have[256] = "";
	size_t off = 0;
	unsigned int d;
	int dom;

	*res = find_res(r, resource);
	if (*res < 0)
		return *res;
	dom = rdt_machine_domain(r->m, *res, cache_id);
	if (dom >= 0)
		return dom;
	for (d = 0; d < r->m->ndom[*res] && off < sizeof(have) - 12; d++)
		off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%u", d ? "," : "",
					r->m->dom[*res][d].cache_id);
	return rdt_fail(r, -EINVAL, "%s cache id %u does not exist (have %s)",
			rdt_res_name(*res), cache_id, have);
}

RDTALLOC_API int rdtalloc_domain_cpus(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				      int *cpus, size_t max)
{
	const struct rdt_domain *dom;
	int res, d;

	if (!r || (!cpus && max))
		return -EINVAL;
	rdt_clear_err(r);
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return d;
	dom = &r->m->dom[res][d];
	if (max && dom->ncpus)
		memcpy(cpus, dom->cpus, (dom->ncpus < max ? dom->ncpus : max) * sizeof(int));
	return (int)dom->ncpus;
}

RDTALLOC_API int rdtalloc_domain_cache(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				       uint64_t *size, unsigned int *ways)
{
	int res, d;

	if (!r || !size || !ways)
		return -EINVAL;
	rdt_clear_err(r);
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return d;
	*size = r->m->dom[res][d].cache_size;
	*ways = r->m->dom[res][d].ways;
	return 0;
}

RDTALLOC_API int rdtalloc_cpu_count(rdtalloc_t *r)
{
	return r ? (int)r->m->ncpus : -EINVAL;
}

RDTALLOC_API int rdtalloc_closids(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				  struct rdtalloc_closid_info *out, size_t max)
{
	int ret, res, d;

	if (!r || (!out && max))
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return end(r, false, d);
	return end(r, false, r->be->ops->closids(r, res, d, out, max));
}

/* Append the names of the groups holding closid in allocation domain adom to *o. */
static int closid_names(rdtalloc_t *r, unsigned int adom, unsigned int closid, char *names,
			size_t len, size_t *o, const int *order, unsigned int n)
{
	bool first = true;
	unsigned int i, k;
	int ret;

	for (i = 0; i < n; i++) {
		const char *name = r->st->groups[order[i]].name;
		size_t l = strlen(name) + !first;

		ret = r->be->ops->group_closid(r, order[i], adom, &k);
		if (ret == -ESTALE) {
			rdt_clear_err(r);
			continue;	/* its control group is missing: it holds no CLOSID now */
		}
		if (ret)
			return ret;
		if (k != closid)
			continue;
		if (*o + l < len)
			snprintf(names + *o, len - *o, "%s%s", first ? "" : ",", name);
		*o += l;
		first = false;
	}
	if (*o < len)
		names[*o] = '\0';
	(*o)++;
	return 0;
}

RDTALLOC_API int rdtalloc_closid_entries(rdtalloc_t *r, const char *resource,
					 unsigned int cache_id, struct rdtalloc_closid_entry *out,
					 size_t max, char *names, size_t names_len)
{
	struct rdtalloc_closid_info *cl = NULL;
	size_t sz = max ? out[0].sz : 0, o = 0, i;
	unsigned int ngroups = 0;
	int *order = NULL, ret, res, d, n;

	if (!r || (!out && max) || (!names && names_len))
		return -EINVAL;
	if (max && (sz < sizeof(size_t) || sz > (1u << 16)))
		return rdt_fail(r, -EINVAL, "rdtalloc_closid_entry.sz is %zu: set it to "
				"sizeof(struct rdtalloc_closid_entry)", sz);
	ret = begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return end(r, false, d);
	n = r->be->ops->closids(r, res, d, NULL, 0);
	if (n > 0 && !(cl = calloc((size_t)n, sizeof(*cl))))
		return end(r, false, rdt_fail(r, -ENOMEM, "out of memory"));
	if (n > 0)
		n = r->be->ops->closids(r, res, d, cl, (size_t)n);
	if (n > 0 && names && !(order = groups_in_order(r->st, &ngroups)))
		n = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		struct rdtalloc_closid_entry v = { 0 };
		size_t at = o;

		if (names) {
			ret = closid_names(r, r->st->slot[r->st->slot_of[res][d]].adom, cl[i].closid,
					   names, names_len, &o, order, ngroups);
			if (ret) {
				n = ret;
				break;
			}
		}
		if (i >= max)
			continue;
		v.sz = sz < sizeof(v) ? sz : sizeof(v);
		v.closid = cl[i].closid;
		v.mask = cl[i].mask;
		v.code_mask = cl[i].code_mask;
		v.refcount = cl[i].refcount;
		v.groups = names && at < names_len ? names + at : NULL;
		memcpy((char *)out + i * sz, &v, v.sz);
	}
	if (n > 0 && names && o > names_len)
		n = rdt_fail(r, -ERANGE, "the group names need %zu bytes, the buffer has %zu", o,
			     names_len);
	free(cl);
	free(order);
	return end(r, false, n);
}

RDTALLOC_API int rdtalloc_group_closid(rdtalloc_t *r, const char *group, const char *resource,
				       unsigned int cache_id, unsigned int *closid)
{
	int ret, res, d, g;

	if (!r || !closid)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	g = find_group(r, group);
	d = g < 0 ? g : find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return end(r, false, d);
	ret = r->be->ops->group_closid(r, g, r->st->slot[r->st->slot_of[res][d]].adom, closid);
	return end(r, false, ret);
}

/*
 * The task as the engine should see it: a binding whose task exited or was
 * replaced by a new one with the same id no longer counts.
 */
static int resolve_task(rdtalloc_t *r, pid_t *tid, bool *stale)
{
	const struct rdt_task *t;
	uint64_t start;
	int ret;

	*stale = false;
	if (*tid == 0)
		return 0;
	ret = check_task(r, tid, &start);
	if (ret)
		return ret;
	t = rdt_task_map_get(&r->st->tasks, *tid);
	if (t && !r->m->virtual_tasks && t->start != start)
		*stale = true;
	return 0;
}

RDTALLOC_API int rdtalloc_effective_closid(rdtalloc_t *r, int cpu, pid_t tid,
					   unsigned int *closid)
{
	bool stale;
	int ret;

	if (!r || !closid)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = check_cpu(r, cpu);
	if (!ret)
		ret = resolve_task(r, &tid, &stale);
	if (!ret)
		ret = r->be->ops->effective_closid(r, cpu, tid, stale, closid);
	return end(r, false, ret);
}

/* The group of the task switched in: its own binding, else its cgroup's. */
static int switch_group(rdtalloc_t *r, pid_t tid)
{
	const struct rdt_task *t = tid ? rdt_task_map_get(&r->st->tasks, tid) : NULL;

	if (t)
		return t->group;
	return tid ? rdt_core_cgroup_task_group(r, tid) : 0;
}

RDTALLOC_API int rdtalloc_sim_switch(rdtalloc_t *r, int cpu, pid_t tid,
				     struct rdtalloc_switch *out)
{
	struct rdtalloc_switch v = { 0 };
	unsigned int closid;
	bool written, stale;
	int ret;

	if (!r)
		return -EINVAL;
	if (out && out->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_switch.sz is not set");
	ret = begin(r, true);
	if (ret)
		return ret;
	ret = r->be->ops->sim_switch_allowed(r);
	if (ret)
		goto out;
	ret = check_cpu(r, cpu);
	if (!ret)
		ret = resolve_task(r, &tid, &stale);
	if (ret)
		goto out;
	if (stale)
		drop_if_stale(r, tid);
	ret = engine_err(r, rdt_switch_group(r->st, cpu, tid, switch_group(r, tid), &closid,
					     &written));
	if (ret)
		goto out;
	r->dirty = true;
	if (out) {
		v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
		v.closid = closid;
		v.pqr_written = written;
		memcpy(out, &v, v.sz);
	}
out:
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_set_cdp(rdtalloc_t *r, const char *resource, int on)
{
	int ret, res;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	res = find_res(r, resource);
	if (res < 0)
		ret = res;
	else if (on != 0 && on != 1)
		ret = rdt_fail(r, -EINVAL, "CDP setting must be 0 or 1, not %d", on);
	else if (r->st->cdp[res] != (bool)on && r->be->cdp_fixed)
		ret = rdt_fail(r, -EOPNOTSUPP, "backend %s: CDP is how resctrl was mounted (%s "
			       "now); remount it (umount, then mount -t resctrl -o %s resctrl "
			       "DIR) and start a new state", r->be->name,
			       r->st->cdp[res] ? "on" : "off",
			       res == RDT_L2 ? "cdpl2" : "cdp");
	else if (r->st->cdp[res] != (bool)on) {
		ret = engine_err(r, rdt_set_cdp(r->st, res, on));
		if (!ret)
			r->dirty = r->groups_changed = true;
	} else if (!r->m->caps[res].cdp) {
		ret = rdt_fail(r, -EINVAL, "%s does not support CDP on this machine",
			       rdt_res_name(res));
	}
	return end(r, true, ret);
}

RDTALLOC_API int rdtalloc_get_cdp(rdtalloc_t *r, const char *resource)
{
	int ret, res;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	res = find_res(r, resource);
	return end(r, false, res < 0 ? res : r->st->cdp[res]);
}

RDTALLOC_API int rdtalloc_get_precedence(rdtalloc_t *r)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	return end(r, false, (int)r->st->precedence);
}

/* What the state holds now: bindings of tasks and cgroups that still exist. */
static unsigned int live_bindings(rdtalloc_t *r)
{
	const struct rdt_task_map *m = &r->st->tasks;
	unsigned int n = 0;

	if (r->m->virtual_tasks)
		return (unsigned int)m->len;
	for (size_t i = 0; i < m->cap; i++)
		n += m->slots[i].tid && rdt_core_binding_alive(r, &m->slots[i]);
	return n;
}

static unsigned int live_cgroups(rdtalloc_t *r)
{
	const char *root = r->st->ncgroups ? rdt_core_cgroup_root(r) : NULL;
	unsigned int i, n = 0;

	for (i = 0; root && i < r->st->ncgroups; i++) {
		uint64_t id;

		n += !rdt_cgroup_id(root, r->st->cgroups[i].path, &id) &&
		     id == r->st->cgroups[i].id;
	}
	rdt_clear_err(r);
	return n;
}

RDTALLOC_API int rdtalloc_get_limits(rdtalloc_t *r, struct rdtalloc_limits *out)
{
	struct rdtalloc_limits v = { 0 };
	int ret;

	if (!r || !out)
		return -EINVAL;
	if (out->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_limits.sz is not set");
	ret = begin(r, false);
	if (ret)
		return ret;
	v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
	v.max_groups = r->st->max_groups;
	v.max_tasks = r->st->max_tasks;
	v.max_cgroups = RDT_CGROUPS_MAX;
	v.groups = r->st->nlive;
	v.tasks = live_bindings(r);
	v.cgroups = live_cgroups(r);
	memcpy(out, &v, v.sz);
	return end(r, false, 0);
}

RDTALLOC_API int rdtalloc_reset(rdtalloc_t *r)
{
	bool cdp[RDT_NRES];
	unsigned int res;
	int ret;

	if (!r)
		return -EINVAL;
	ret = begin(r, true);
	if (ret)
		return ret;
	memcpy(cdp, r->st->cdp, sizeof(cdp));
	ret = engine_err(r, rdt_reset(r->st));
	/* where CDP is how the kernel was mounted, a reset cannot change it */
	for (res = 0; !ret && r->be->cdp_fixed && res < RDT_NRES; res++)
		if (cdp[res])
			ret = engine_err(r, rdt_set_cdp(r->st, res, true));
	r->dirty = r->groups_changed = true;
	return end(r, true, ret);
}

/* ---- Register file --------------------------------------------------------------- */

/* Only where we write the registers do we know what they hold. */
static int no_registers(rdtalloc_t *r)
{
	if (r->be->ops == &rdt_hw_group_ops)
		return 0;
	return rdt_fail(r, -EOPNOTSUPP, "backend %s: the kernel owns the registers and does "
			"not show them; rdtalloc_effective_closid tells the CLOSID in force",
			r->be->name);
}

RDTALLOC_API int rdtalloc_get_stats(rdtalloc_t *r, struct rdtalloc_stats *st)
{
	struct rdtalloc_stats v = { 0 };
	int ret;

	if (!r || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	v.sz = st->sz < sizeof(v) ? st->sz : sizeof(v);
	v.mask_writes = r->st->regs.mask_writes;
	v.pqr_writes = r->st->regs.pqr_writes;
	v.cfg_writes = r->st->regs.cfg_writes;
	memcpy(st, &v, v.sz);
	return end(r, false, 0);
}

RDTALLOC_API int rdtalloc_read_mask(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				    unsigned int reg, uint64_t *val)
{
	int ret, res, d;

	if (!r || !val)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		ret = d;
	else if ((ret = no_registers(r)))
		;
	else if (reg >= r->m->caps[res].closids)
		ret = rdt_fail(r, -EINVAL, "%s has mask registers 0..%u, not %u",
			       rdt_res_name(res), r->m->caps[res].closids - 1, reg);
	else
		*val = r->st->regs.mask[(size_t)r->st->slot_of[res][d] * r->st->regs.nregs + reg];
	return end(r, false, ret);
}

RDTALLOC_API int rdtalloc_read_pqr(rdtalloc_t *r, int cpu, unsigned int *closid)
{
	int ret;

	if (!r || !closid)
		return -EINVAL;
	ret = begin(r, false);
	if (ret)
		return ret;
	ret = check_cpu(r, cpu);
	if (!ret)
		ret = no_registers(r);
	if (!ret)
		*closid = r->st->regs.pqr[cpu];
	return end(r, false, ret);
}

/* For apply.c's save/apply, which share the transaction machinery. */
int rdt_core_begin(rdtalloc_t *r, bool write)
{
	return begin(r, write);
}

int rdt_core_end(rdtalloc_t *r, bool write, int ret)
{
	return end(r, write, ret);
}

void rdt_core_drop_lock(rdtalloc_t *r)
{
	if (r->store && !r->unlocked) {
		rdt_store_unlock(r->store);
		r->unlocked = true;
	}
}

int rdt_core_apply_schema(rdtalloc_t *r, struct rdt_state *st, int g, const char *text,
			  bool *changed)
{
	return apply_schema(r, st, g, text, changed);
}

int rdt_core_format_schema(const struct rdt_state *st, int g, char *buf, size_t len)
{
	return format_schema(st, g, buf, len);
}

int rdt_core_check_task(rdtalloc_t *r, pid_t *tid, uint64_t *start)
{
	return check_task(r, tid, start);
}

int rdt_core_check_cpu(rdtalloc_t *r, int cpu)
{
	return check_cpu(r, cpu);
}

int *rdt_core_groups_in_order(const struct rdt_state *st, unsigned int *n)
{
	return groups_in_order(st, n);
}

int rdt_core_collect_tasks(rdtalloc_t *r, int g, pid_t **out, size_t *n)
{
	return collect_tasks(r, g, out, n);
}

int rdt_core_tasks_allowed(rdtalloc_t *r)
{
	return r->be->ops->tasks_allowed(r);
}

int rdt_core_carry_tasks(rdtalloc_t *r, const struct rdt_state *old)
{
	return r->be->ops->carry_tasks(r, old);
}
