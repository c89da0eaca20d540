/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librdtalloc - partition a shared cache (Intel RDT CAT / AMD L3 allocation)
 * between groups of tasks and CPUs, from user space.
 *
 * This header is the whole public contract. Every call returns 0 (or a count)
 * on success and a negative errno on failure; rdtalloc_errmsg() then says
 * exactly what was wrong. Nothing here prints or exits.
 *
 * ABI rules: structs that cross this API carry their size in their first
 * field (.sz); new fields are only ever appended. Fill input structs with
 * RDTALLOC_OPTS(); for output structs set .sz = sizeof(the struct) and the
 * library fills at most that many bytes.
 */
#ifndef RDTALLOC_RDTALLOC_H
#define RDTALLOC_RDTALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <rdtalloc/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(RDTALLOC_API)
#define RDTALLOC_API __attribute__((visibility("default")))
#elif !defined(RDTALLOC_API)
#define RDTALLOC_API
#endif

typedef struct rdtalloc rdtalloc_t;

/* Keep nothing on disk: state lives in this context only. */
#define RDTALLOC_F_EPHEMERAL (1u << 0)
/*
 * Look without creating (0.3): when the state directory holds no state
 * yet, the context shows a new state in memory, touches neither the disk
 * nor the hardware, and refuses changes (-EROFS). An existing state opens
 * as usual. For read-only tools (rdtctl info, show, closids, cpu assoc).
 */
#define RDTALLOC_F_NO_CREATE (1u << 1)
/*
 * A state recorded for another machine than opts.machine is replaced by a
 * new one for opts.machine instead of refused (-EBUSY) (0.3): its groups
 * and bindings are dropped. rdtctl reset --machine uses it.
 */
#define RDTALLOC_F_REPLACE_MACHINE (1u << 2)
/*
 * One snapshot (0.3): calls that only look are answered from the state as
 * this context last read it, without taking the state's lock or looking
 * at the file again (nor at whether the switch hook was loaded since), so a
 * tool that asks many questions (rdtctl group show of 10,000 groups) sees
 * one consistent state, fast. A call that changes something reads the
 * current state first, as always, and so does the look after it.
 */
#define RDTALLOC_F_SNAPSHOT (1u << 3)
/*
 * Read only (0.4): the context changes nothing, at open or later - no
 * state file, lock file or register write, no repair of what drifted
 * from the state (the backend's reason line says what differs; the next
 * change made without the flag brings it back) - and every call that
 * would change something is -EROFS. Implies RDTALLOC_F_NO_CREATE. A state
 * that exists but cannot be read is an error, never an empty state. For
 * tools that only look (rdtctl info, show, save, closids, map).
 */
#define RDTALLOC_F_READ_ONLY (1u << 4)
/*
 * (0.6) With RDTALLOC_F_READ_ONLY: the monitoring counters' running totals
 * are still kept in counters.json beside the state (their own file and
 * lock), so that two monitor runs continue each other; nothing else is
 * written, the kernel included.
 */
#define RDTALLOC_F_MON_TOTALS (1u << 5)
/*
 * (0.8) Changes of this context may change what another owner made (a
 * group, a mask, a binding): it is handed over to this context's owner
 * instead of the call being refused with -EBUSY.
 */
#define RDTALLOC_F_FORCE (1u << 6)

struct rdtalloc_opts {
	size_t sz;		/* sizeof(struct rdtalloc_opts) of the caller */
	const char *backend;	/* "sim", "msr", "resctrl"; NULL or "auto": $RDTALLOC_BACKEND, else best */
	const char *state_dir;	/* NULL: the backend's default directory */
	const char *machine;	/* machine description; NULL: recorded one, else host */
	unsigned int flags;	/* RDTALLOC_F_* */
	/* msr backend: device root, <root>/<cpu>/msr; NULL: $RDTALLOC_MSR_ROOT, else /dev/cpu */
	const char *msr_root;
	/*
	 * resctrl backend: where resctrl is mounted; NULL: $RDTALLOC_RESCTRL_ROOT,
	 * else the first resctrl entry of the mount table.
	 */
	const char *resctrl_root;
	/*
	 * Which group's allocation wins on a CPU bound to a group while a task of
	 * another group runs there (RDTALLOC_PRECEDENCE_*). Chosen when the state
	 * is created; 0: the backend's default (cpu on sim and msr, task on
	 * resctrl). Reopening a state with the other rule is refused (-EBUSY).
	 */
	unsigned int precedence;
	/*
	 * What the state may hold, chosen when it is created (0: the default):
	 * groups, the default one included (16384; at most 262144), and bound
	 * tasks (1048576; at most 4194304). Past a limit a call fails with
	 * -ENOSPC naming it. Reopening with other limits is refused (-EBUSY).
	 */
	unsigned int max_groups;
	unsigned int max_tasks;
	/*
	 * (0.8) Who this context's changes are by (docs/guide.md, "Who owns
	 * what"): "KIND:NAME" with KIND user, config, oci or control, at most
	 * RDTALLOC_OWNER_MAX bytes of printable ASCII without spaces; a bare
	 * NAME means "user:NAME". NULL: "user:admin". Every group, mask and
	 * binding records who made it; changing what another owner made is
	 * refused with -EBUSY naming the owner, unless RDTALLOC_F_FORCE.
	 */
	const char *owner;
	/* new fields go here, at the end */
};

/* The longest owner text (rdtalloc_opts.owner), NUL excluded. */
#define RDTALLOC_OWNER_MAX 128

/* The CPU's group wins (the rule of the 2016 resctrl patch set (then named rscctrl); sim and msr default). */
#define RDTALLOC_PRECEDENCE_CPU 1
/* A task's non-default group wins (the kernel's resctrl rule, the only one it has). */
#define RDTALLOC_PRECEDENCE_TASK 2

/*
 * Declare and initialise an options struct: zeroed, .sz set, the named
 * fields assigned.  RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim");
 * A GNU statement expression (gcc, clang; C and C++), marked __extension__
 * so that -Wpedantic accepts it; the fields left out are zero on purpose,
 * so C++'s -Wmissing-field-initializers is silenced for this one line.
 */
#define RDTALLOC_OPTS(TYPE, NAME, ...)						\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")	\
	struct TYPE NAME = __extension__ ({					\
		memset(&NAME, 0, sizeof(struct TYPE));				\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };	\
	});									\
	_Pragma("GCC diagnostic pop")

/* The longest group name (without the terminating NUL). */
#define RDTALLOC_NAME_MAX 63

/* Version of the library actually loaded: (major << 16) | (minor << 8) | patch. */
RDTALLOC_API unsigned int rdtalloc_version(void);
RDTALLOC_API const char *rdtalloc_version_string(void);

/* ---- Context -------------------------------------------------------- */

/*
 * Open a context on a backend. opts may be NULL. On success *out is set and
 * 0 returned. On failure *out is NULL; the reason is in rdtalloc_errmsg(NULL)
 * for the calling thread.
 */
RDTALLOC_API int rdtalloc_open(rdtalloc_t **out, const struct rdtalloc_opts *opts);
RDTALLOC_API void rdtalloc_close(rdtalloc_t *r);

/*
 * What exactly went wrong in this thread's last failed call on r (NULL: the
 * last failed rdtalloc_open). "" when there was none. Valid until the next
 * call on r from this thread.
 */
RDTALLOC_API const char *rdtalloc_errmsg(const rdtalloc_t *r);
/* Text for a negative errno returned by this library. */
RDTALLOC_API const char *rdtalloc_strerror(int err);
/*
 * What the last call on r that changed something wants its caller to know
 * although it did what was asked (0.3), e.g. that a schema uses ways the
 * hardware shares with I/O; lines separated by '\n', "" when none (or when
 * that call failed). Calls that only look leave it as it is; valid until
 * the next call that changes something.
 */
RDTALLOC_API const char *rdtalloc_warning(const rdtalloc_t *r);

/* The backend in use ("sim", "msr", "resctrl") and why it was chosen (one line). */
RDTALLOC_API const char *rdtalloc_backend(const rdtalloc_t *r);
RDTALLOC_API const char *rdtalloc_backend_reason(const rdtalloc_t *r);
/*
 * The id of r's state (0.4): eight lowercase hex digits chosen when the
 * state was created, "" for a state made before ids. What the state owns
 * outside its file carries it (resctrl: the control groups rdtalloc-ID-...).
 */
RDTALLOC_API const char *rdtalloc_state_id(const rdtalloc_t *r);
/*
 * (0.6) The path of r's state file ("/run/rdtalloc/resctrl/state.json");
 * NULL for an ephemeral context. Files beside it belong to the same state
 * (counters.json, leases.json, the agent's agent.pid and agent.json). A
 * context that looks at a state not made yet (RDTALLOC_F_NO_CREATE,
 * RDTALLOC_F_READ_ONLY) has the path it will be made at (0.7).
 */
RDTALLOC_API const char *rdtalloc_state_path(const rdtalloc_t *r);
/*
 * (0.8) The directory a context of backend ("resctrl", "msr", "sim") keeps
 * its state in when rdtalloc_opts.state_dir is NULL: /run/rdtalloc/BACKEND
 * for root, else $XDG_RUNTIME_DIR/rdtalloc/BACKEND or
 * ~/.local/state/rdtalloc/BACKEND. Written into buf like snprintf (buf
 * NULL, len 0: the length only); -EINVAL for another name, -ENOENT when
 * there is none (not root, neither variable absolute).
 */
RDTALLOC_API int rdtalloc_default_state_dir(const char *backend, char *buf, size_t len);
/* The precedence rule of r's state: RDTALLOC_PRECEDENCE_CPU or _TASK. */
RDTALLOC_API int rdtalloc_get_precedence(rdtalloc_t *r);

/* What the state may hold and holds now (rdtalloc_get_limits). */
struct rdtalloc_limits {
	size_t sz;			/* sizeof(struct rdtalloc_limits) of the caller */
	unsigned int max_groups;	/* the default group included */
	unsigned int max_tasks;		/* bound tasks (their own bindings) */
	unsigned int max_cgroups;	/* bound cgroups (4096) */
	unsigned int groups, tasks, cgroups;	/* in the state now */
};
RDTALLOC_API int rdtalloc_get_limits(rdtalloc_t *r, struct rdtalloc_limits *out);

/* ---- Groups --------------------------------------------------------- */
/*
 * The default group is addressed as NULL, "" or "default". It always exists,
 * cannot be removed, starts with all-ones masks and holds every task and CPU
 * that no other group holds. Names: 1 to 63 of [A-Za-z0-9_.-], not starting
 * with '.'.
 */
RDTALLOC_API int rdtalloc_group_create(rdtalloc_t *r, const char *name);
RDTALLOC_API int rdtalloc_group_remove(rdtalloc_t *r, const char *name);

/* Number of groups, the default one included. */
RDTALLOC_API int rdtalloc_group_count(rdtalloc_t *r);
/*
 * Call cb for every group, "default" first, then in creation order, on a
 * snapshot taken under the lock (cb may call back into the library). A
 * non-zero return from cb stops the walk and is returned.
 */
RDTALLOC_API int rdtalloc_group_foreach(rdtalloc_t *r,
					int (*cb)(const char *name, void *arg),
					void *arg);

/*
 * Schema text, one line per resource: "L3:0=ff;1=c0\nL2:0=f\n". Input may
 * omit domains and resources (they keep their masks), may use the CDP forms
 * "L3:0=<data>,<code>" or "L3DATA:"/"L3CODE:" lines when CDP is on.
 * All or nothing: -EINVAL bad text, -ENOSPC no free CLOSID in a domain.
 */
RDTALLOC_API int rdtalloc_set_schema(rdtalloc_t *r, const char *group, const char *schema);
/*
 * Every domain of every resource, one line per resource, resctrl form.
 * Returns the length of the full text (like snprintf); buf NULL with len 0
 * asks for that length alone. -ERANGE when it does not fit in a buffer of
 * len (buf then holds nothing useful).
 */
RDTALLOC_API int rdtalloc_get_schema(rdtalloc_t *r, const char *group, char *buf, size_t len);
/*
 * (0.6) Lease a group's schema: this process is about to change it for a
 * while and put it back (rdtctl profile GROUP sweeps its mask). The schema
 * as it is now is recorded beside the state (leases.json) with this
 * process's pid and start time; if the process dies before
 * rdtalloc_schema_restore - SIGKILL, the OOM killer - the next writable
 * rdtalloc_open of the state puts the schema back, and says so in
 * rdtalloc_warning(). -EBUSY when another process holds a lease on the
 * group, -EOPNOTSUPP on an ephemeral context, -EINVAL for the default group.
 */
RDTALLOC_API int rdtalloc_schema_lease(rdtalloc_t *r, const char *group);
/* (0.6) Put back the schema this process leased and drop the lease; -ENOENT: none. */
RDTALLOC_API int rdtalloc_schema_restore(rdtalloc_t *r, const char *group);

/*
 * (0.6) Keeping the state true between commands (the agent, docs/agent.md).
 *
 * rdtalloc_sync: one write call that brings the backend back to the state
 * as an open does, and reports it - on resctrl our control and monitoring
 * groups, schemata and CPUs back where another tool, an rmdir or a remount
 * changed them, the root's schemata adopted, bindings of exited tasks,
 * removed cgroups and tasks another tool moved dropped; with
 * RDTALLOC_SYNC_FULL (or when anything differed) every bound cgroup's
 * tasks placed; on msr registers that read back otherwise re-applied; on
 * every backend containers gone without their poststop released (their
 * cgroup removed and their init dead), with a group made for them alone.
 * On resctrl, every sync (full or not) also finds the tasks of bound cgroups
 * that a control group not ours holds, and moves them back or leaves them
 * by their binding's policy (rdtalloc_bind_cgroup_flags): strays_left,
 * strays_moved, and in what a line for each (one this context said at its
 * previous sync and still left is counted, not said again).
 * rep may be NULL; rep->sz must be set.
 */
#define RDTALLOC_SYNC_FULL (1u << 0)

struct rdtalloc_sync_report {
	size_t sz;
	unsigned int repairs;		/* changes that brought the backend back */
	unsigned int tasks_moved;	/* tasks placed in their groups */
	unsigned int dropped;		/* bindings dropped (exited, removed, moved by others) */
	unsigned int containers_released;
	char what[512];			/* what was found and done; "" when nothing */
	/* (0.8) tasks of bound cgroups found in a resctrl control group not ours */
	unsigned int strays_left;	/* left there: their binding yields */
	unsigned int strays_moved;	/* moved back: it enforces (in tasks_moved too) */
};

RDTALLOC_API int rdtalloc_sync(rdtalloc_t *r, unsigned int flags,
			       struct rdtalloc_sync_report *rep);
/*
 * (0.6) Tasks that just joined a cgroup (a write to cgroup.procs, runc
 * exec, a service restart): each placed now in the group the state puts it
 * in (its own binding, else its cgroup's), where the kernel owns membership
 * (resctrl). The state is only read. A task the state leaves to the default
 * group, or that has exited, is left to the next rdtalloc_sync. *moved: how
 * many were written. At most 65536 tasks a call.
 */
RDTALLOC_API int rdtalloc_place_tasks(rdtalloc_t *r, const pid_t *tids, size_t n,
				      unsigned int *moved);
/*
 * (0.6) Where the backend does not hold the state now (drift): on resctrl a
 * control group or monitoring group of ours missing, one holding other
 * schemata or CPUs, one left over. Up to max items into out (stride
 * out[0].sz); returns how many there are. A look, on any context: what a
 * read-only command marks, and what the next change (or the agent)
 * repairs. group is "" for an item about no group of ours.
 */
struct rdtalloc_drift_item {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	char what[192];
};

RDTALLOC_API int rdtalloc_drift(rdtalloc_t *r, struct rdtalloc_drift_item *out, size_t max);

/*
 * Group modes (0.3). Shareable (the default): masks may overlap other
 * groups'. Exclusive: no other group's mask - the default group's included
 * - may overlap this group's in any cache domain, now or later (data and
 * code masks alike with CDP); schemas that would are refused naming the
 * domain, the group and the bits ("L3 cache id 0: 0xf00 overlaps exclusive
 * group rt (0xf80)"), and new groups start on the ways no exclusive group
 * holds. An exclusive group on the resource's shareable ways is refused
 * unless RDTALLOC_MODE_FORCE is or-ed in. -EINVAL when the group overlaps
 * another already.
 */
#define RDTALLOC_MODE_SHAREABLE 0u
#define RDTALLOC_MODE_EXCLUSIVE 1u
#define RDTALLOC_MODE_FORCE (1u << 8)
RDTALLOC_API int rdtalloc_group_set_mode(rdtalloc_t *r, const char *group, unsigned int mode);
/* RDTALLOC_MODE_SHAREABLE or _EXCLUSIVE (| _FORCE when forced), or a negative errno. */
RDTALLOC_API int rdtalloc_group_get_mode(rdtalloc_t *r, const char *group);

/* ---- Membership ----------------------------------------------------- */

/*
 * Move a task (thread id; 0: the calling thread) into group. -ESRCH: no such
 * task. A launcher binds itself (tid 0) and then execs the program: exec
 * keeps the thread's id and start time, so the program runs in the group
 * from its first instruction (rdtctl exec does this).
 */
RDTALLOC_API int rdtalloc_bind_task(rdtalloc_t *r, const char *group, pid_t tid);
/* Move a CPU into group (the default group: unbind it). */
RDTALLOC_API int rdtalloc_bind_cpu(rdtalloc_t *r, const char *group, int cpu);
/*
 * Bound tasks the kernel has elsewhere than their group (0.4): on resctrl,
 * tasks another tool moved (`echo TID > /sys/fs/resctrl/tasks`). where is
 * the control group that lists the task now ("" the root, "?" none we could
 * read). The next change through a writable context drops their bindings
 * (docs/resctrl.md); a read-only one (RDTALLOC_F_READ_ONLY) still sees them.
 * Up to max entries into out (each with sz set); returns how many there
 * are. 0 on backends where the library owns membership.
 */
struct rdtalloc_moved_task {
	size_t sz;			/* sizeof(struct rdtalloc_moved_task) of the caller */
	pid_t tid;
	char group[RDTALLOC_NAME_MAX + 1];	/* its group in the state */
	char where[64];
};
RDTALLOC_API int rdtalloc_moved_tasks(rdtalloc_t *r, struct rdtalloc_moved_task *out,
				      size_t max);

/* The most items rdtalloc_bind_cpus / _tasks take in one call (-E2BIG past it). */
#define RDTALLOC_BATCH_MAX (1u << 20)
/*
 * Move n CPUs / n tasks into group in one step (0.4): one lock and one
 * state write, all or nothing - an item that cannot be bound (a CPU the
 * machine lacks, a task that does not exist or is not the caller's) fails
 * the call, the message names it, and nothing changes; a kill -9 during
 * the call leaves all or none of them bound. Duplicates are bound once; n
 * 0 changes nothing. rdtctl cpu bind / task bind (and --process) use them.
 */
RDTALLOC_API int rdtalloc_bind_cpus(rdtalloc_t *r, const char *group, const int *cpus,
				    size_t n);
RDTALLOC_API int rdtalloc_bind_tasks(rdtalloc_t *r, const char *group, const pid_t *tids,
				     size_t n);

/*
 * The live tasks / bound CPUs of a group, ascending. Fills up to max entries
 * and returns how many there are (which may exceed max). For the default
 * group: every live task of the host that no other group holds (none with
 * tasks=virtual), and the CPUs no group holds.
 */
RDTALLOC_API int rdtalloc_group_tasks(rdtalloc_t *r, const char *group, pid_t *tids, size_t max);
RDTALLOC_API int rdtalloc_group_cpus(rdtalloc_t *r, const char *group, int *cpus, size_t max);

/*
 * The group of a task / CPU, copied into buf ("default" when none): 0, or
 * -ERANGE when it does not fit. buf NULL with len 0 returns the name's
 * length instead (the buffer then needs one byte more).
 */
RDTALLOC_API int rdtalloc_task_group(rdtalloc_t *r, pid_t tid, char *buf, size_t len);
RDTALLOC_API int rdtalloc_cpu_group(rdtalloc_t *r, int cpu, char *buf, size_t len);

/* ---- cgroups (v2) ---------------------------------------------------- */

/*
 * Bind a cgroup to group (the default group: unbind it). Every task in the
 * cgroup or below it, now and later, runs in group unless it has a binding
 * of its own (which wins), or a deeper bound cgroup holds it. path: under
 * the cgroup2 mount ("/sys/fs/cgroup/system.slice/x.service"), as
 * /proc/PID/cgroup writes it ("/system.slice/x.service"), or relative to the
 * mount ("system.slice/x.service"); not the root. A cgroup that is removed
 * drops out. -ENOENT: no such cgroup; -EINVAL: a bad path (named);
 * -ENOSPC: the state holds 4096 bindings already; -EOPNOTSUPP: the backend
 * cannot bind tasks now (msr without the switch hook) or tasks are virtual.
 */
RDTALLOC_API int rdtalloc_bind_cgroup(rdtalloc_t *r, const char *group, const char *path);
/*
 * The group the tasks of cgroup path get through cgroups: the group it or
 * its nearest bound ancestor is bound to, "default" when none is. Buffer
 * rules as rdtalloc_task_group().
 */
RDTALLOC_API int rdtalloc_cgroup_group(rdtalloc_t *r, const char *path, char *buf, size_t len);
/*
 * (0.8) A binding's policy for a task of its cgroup that the kernel lists
 * in a resctrl control group not ours (another tool moved it there):
 * RDTALLOC_CGROUP_ENFORCE moves it back whenever the library brings the
 * kernel to the state (every sync, every change); without it the binding
 * yields - the task is left there, and rdtalloc_sync reports it. Both say
 * where the task was found (docs/resctrl.md, "Tasks and CPUs").
 * rdtalloc_bind_cgroup_flags binds as rdtalloc_bind_cgroup and sets the
 * policy (flags 0: yield); rdtalloc_bind_cgroup keeps an existing binding's
 * policy and makes a new one yield. A new policy is a change of the binding:
 * -EBUSY when the binding is the OCI hook's or the controller's (docs/guide.md,
 * "Who owns what"); -EINVAL for unknown flags or flags with the default group.
 * rdtalloc_cgroup_policy: the flags of path's own binding (0 or
 * RDTALLOC_CGROUP_ENFORCE); -ENOENT when path itself is not bound.
 */
#define RDTALLOC_CGROUP_ENFORCE 1u
RDTALLOC_API int rdtalloc_bind_cgroup_flags(rdtalloc_t *r, const char *group, const char *path,
					    unsigned int flags);
RDTALLOC_API int rdtalloc_cgroup_policy(rdtalloc_t *r, const char *path);

/*
 * Who owns what (0.8; docs/guide.md, "Who owns what"): the owner
 * ("KIND:NAME") of a group, of its mask (one owner, or per cache domain
 * "L3:0=OWNER;1=OWNER" when they differ), and of the binding of a task,
 * CPU or cgroup, written into buf like snprintf would (buf NULL, len 0:
 * only the length). "" when unknown (made before 0.8) or nothing is bound.
 * Returns the length; -ENOENT (no such group), -ERANGE (does not fit), or
 * what the object's own lookup returns (-ESRCH for a task, ...).
 */
RDTALLOC_API int rdtalloc_group_owner(rdtalloc_t *r, const char *group, char *buf, size_t len);
RDTALLOC_API int rdtalloc_schema_owner(rdtalloc_t *r, const char *group, char *buf, size_t len);
RDTALLOC_API int rdtalloc_task_owner(rdtalloc_t *r, pid_t tid, char *buf, size_t len);
RDTALLOC_API int rdtalloc_cpu_owner(rdtalloc_t *r, int cpu, char *buf, size_t len);
RDTALLOC_API int rdtalloc_cgroup_owner(rdtalloc_t *r, const char *path, char *buf, size_t len);
/*
 * Call cb for every bound cgroup (path relative to the cgroup2 mount, the
 * group), ascending by path, on a snapshot (cb may call back into the
 * library). A non-zero return from cb stops the walk and is returned.
 */
RDTALLOC_API int rdtalloc_cgroup_foreach(rdtalloc_t *r,
					 int (*cb)(const char *path, const char *group, void *arg),
					 void *arg);

/* ---- Machine and CLOSIDs --------------------------------------------- */

struct rdtalloc_resource_info {
	size_t sz;
	char name[8];			/* "L3", "L2", "MB" */
	unsigned int num_closids;	/* usable now: halved while CDP is on */
	unsigned int hw_closids;	/* the hardware's, CDP off */
	unsigned int cbm_len;
	unsigned int min_cbm_bits;
	uint64_t shareable_bits;
	int cdp_supported;
	int cdp_enabled;
	int sparse_masks;		/* non-contiguous masks allowed */
	unsigned int num_domains;
	/*
	 * MB only (appended in 0.3; cbm_len and the mask fields are 0 there):
	 * values run min_bandwidth .. max_bandwidth (unthrottled), rounded up
	 * to bandwidth_gran; percent of the bandwidth, or with bandwidth_amd
	 * the bandwidth in 1/8 GB/s. num_closids is MBA's own count, which may
	 * be below the caches' (throttled groups use only those).
	 */
	unsigned int min_bandwidth;
	unsigned int bandwidth_gran;
	unsigned int max_bandwidth;
	int bandwidth_amd;
	/*
	 * Appended in 0.7: resctrl mounted with -o mba_MBps - values are MBps
	 * the kernel's software controller keeps each group under
	 * (max_bandwidth, 2^32 - 1: unthrottled).
	 */
	int bandwidth_mbps;
};

/* Number of resources with allocation (L3, L2, MB). */
RDTALLOC_API int rdtalloc_resource_count(rdtalloc_t *r);
/* Resource idx (0 .. count-1). */
RDTALLOC_API int rdtalloc_get_resource_info(rdtalloc_t *r, unsigned int idx,
					struct rdtalloc_resource_info *info);

/* Cache ids of the domains of a resource, ascending; returns the count. */
RDTALLOC_API int rdtalloc_domains(rdtalloc_t *r, const char *resource,
				  unsigned int *cache_ids, size_t max);
/* CPUs (OS indexes) of one domain; returns the count. */
RDTALLOC_API int rdtalloc_domain_cpus(rdtalloc_t *r, const char *resource,
				      unsigned int cache_id, int *cpus, size_t max);
/* Size in bytes and ways of one domain's cache, as hwloc reports them (0: unknown). */
RDTALLOC_API int rdtalloc_domain_cache(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				       uint64_t *size, unsigned int *ways);
/* Number of CPU slots: CPU numbers run 0 .. count-1 (some may be absent). */
RDTALLOC_API int rdtalloc_cpu_count(rdtalloc_t *r);

/*
 * (0.8) The ways of one cache domain that are not the state's to give:
 * those the hardware fills for I/O and those other owners hold. On resctrl
 * they come from the kernel's info/<res>/bit_usage (H and X: the hardware's,
 * shareable_bits and io_alloc's mask; E and P of control groups not of this
 * state: another owner's exclusive or pseudo-locked ways); elsewhere
 * io_ways is shareable_bits. On Arm MPAM shareable_bits is every way and
 * means no I/O: io_ways is 0 there. The plan, the profile and the
 * controller leave io_ways and foreign_ways alone unless told otherwise.
 */
struct rdtalloc_ways_info {
	size_t sz;
	uint64_t io_ways;		/* the hardware (I/O, DDIO, io_alloc) fills them */
	uint64_t foreign_ways;		/* exclusive or pseudo-locked by groups not ours */
	int from_bit_usage;		/* 1: read from the kernel's bit_usage */
	/*
	 * L3 I/O allocation (resctrl's io_alloc, Linux 6.19, AMD SDCIAE): the
	 * machine has it, it is on, the ways I/O may fill in this domain
	 * while it is on (io_alloc_cbm), and the hardware CLOSID it takes
	 * (the highest; while on, groups cannot have it).
	 */
	int io_alloc_supported;
	int io_alloc_enabled;
	uint64_t io_alloc_mask;
	unsigned int io_alloc_closid;
};

RDTALLOC_API int rdtalloc_domain_ways(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				      struct rdtalloc_ways_info *info);
/*
 * (0.8) Turn L3 I/O allocation on (on 1) or off (0). Turning it on takes the
 * highest CLOSID: refused (-ENOSPC, the kernel's message) while a control
 * group holds it, ours included. -EOPNOTSUPP where the machine has none.
 */
RDTALLOC_API int rdtalloc_io_alloc_enable(rdtalloc_t *r, int on);
/*
 * (0.8) The ways I/O may fill while io_alloc is on: "L3:ID=MASK;ID=MASK",
 * the "L3:" optional, "*=MASK" for every domain; domains not named keep
 * theirs. Checked first (domain ids, mask width, contiguity where the
 * machine needs it, our exclusive groups' ways), then written; the
 * kernel's refusal is returned with its last_cmd_status.
 */
RDTALLOC_API int rdtalloc_io_alloc_set_mask(rdtalloc_t *r, const char *masks);

struct rdtalloc_closid_info {	/* one CLOSID in use in one domain */
	unsigned int closid;
	uint64_t mask;		/* CBM; the data mask when CDP is on */
	uint64_t code_mask;	/* the code mask when CDP is on, else equal to mask */
	unsigned int refcount;	/* groups using it */
};

/*
 * CLOSIDs in use in one domain of a resource ("L3", "L2"), by the domain's
 * cache id: fills up to max entries, ascending by CLOSID, returns how many
 * are in use, or a negative errno.
 */
RDTALLOC_API int rdtalloc_closids(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				  struct rdtalloc_closid_info *out, size_t max);

/*
 * The sized successor of struct rdtalloc_closid_info (0.3), with the names
 * of the groups holding the CLOSID. Set sz in out[0] (every entry has that
 * size); fields past a caller's sz are not written.
 */
struct rdtalloc_closid_entry {
	size_t sz;
	unsigned int closid;
	uint64_t mask;		/* CBM (MB: the bandwidth); the data mask when CDP is on */
	uint64_t code_mask;	/* the code mask when CDP is on, else equal to mask */
	unsigned int refcount;	/* groups using it */
	const char *groups;	/* "default,p1": in creation order, within names; NULL: not asked */
};

/*
 * rdtalloc_closids with names: up to max entries into out (stride
 * out[0].sz), ascending by CLOSID; each entry's groups points into names,
 * a buffer of names_len bytes the caller owns (names NULL, names_len 0:
 * groups stay NULL). Returns how many CLOSIDs are in use; -ERANGE when
 * names is too small (errmsg says how many bytes are needed).
 */
RDTALLOC_API int rdtalloc_closid_entries(rdtalloc_t *r, const char *resource,
					 unsigned int cache_id, struct rdtalloc_closid_entry *out,
					 size_t max, char *names, size_t names_len);
/*
 * The CLOSID a group holds in one domain. -ESTALE (0.6) where the backend
 * does not hold the group now (resctrl: its control group is missing,
 * rdtalloc_drift says so): it holds no CLOSID until the next change.
 */
RDTALLOC_API int rdtalloc_group_closid(rdtalloc_t *r, const char *group, const char *resource,
				       unsigned int cache_id, unsigned int *closid);

/*
 * (0.8) A group's masks in one domain, as the state holds them: what
 * rdtalloc_get_schema prints for that domain, read without parsing text.
 * Set sz; fields past a caller's sz are not written.
 */
struct rdtalloc_mask_info {
	size_t sz;		/* sizeof(struct rdtalloc_mask_info) of the caller */
	uint64_t mask;		/* CBM (MB: the bandwidth); the data mask when CDP is on */
	uint64_t code_mask;	/* the code mask when CDP is on, else equal to mask */
	int cdp;		/* 1: CDP is on for the resource, else 0 */
};

/*
 * The masks of group in the domain cache_id of resource ("L3", "L2",
 * "MB") into *out. 0; -EINVAL: out NULL or out->sz too small, an unknown
 * resource or cache id; -ENOENT: no such group (errmsg names what).
 */
RDTALLOC_API int rdtalloc_group_mask(rdtalloc_t *r, const char *group, const char *resource,
				     unsigned int cache_id, struct rdtalloc_mask_info *out);
/* The CLOSID in force on cpu while task tid runs there (0: no task/idle). */
RDTALLOC_API int rdtalloc_effective_closid(rdtalloc_t *r, int cpu, pid_t tid,
					   unsigned int *closid);

/* CDP: only while the default group is the only group (-EBUSY otherwise). */
RDTALLOC_API int rdtalloc_set_cdp(rdtalloc_t *r, const char *resource, int on);
/* 1 on, 0 off, negative errno. */
RDTALLOC_API int rdtalloc_get_cdp(rdtalloc_t *r, const char *resource);

/* Remove every group but default, all masks back to all-ones, CDP off. */
RDTALLOC_API int rdtalloc_reset(rdtalloc_t *r);

/* ---- Register file --------------------------------------------------- */

struct rdtalloc_switch {
	size_t sz;
	unsigned int closid;	/* the CLOSID in force after the switch */
	int pqr_written;	/* 1 when PQR_ASSOC had to be written */
};

/*
 * Simulate a context switch: task tid (0: idle) is switched in on cpu. Applies
 * the precedence rule, writes PQR_ASSOC only when the CLOSID changes.
 * -EOPNOTSUPP on backends that do not simulate.
 */
RDTALLOC_API int rdtalloc_sim_switch(rdtalloc_t *r, int cpu, pid_t tid,
				     struct rdtalloc_switch *out);

struct rdtalloc_stats {
	size_t sz;
	uint64_t mask_writes;	/* IA32_L3/L2_QOS_MASK_n writes */
	uint64_t pqr_writes;	/* IA32_PQR_ASSOC writes */
	uint64_t cfg_writes;	/* IA32_L3/L2_QOS_CFG writes */
};
RDTALLOC_API int rdtalloc_get_stats(rdtalloc_t *r, struct rdtalloc_stats *st);

/* Value of mask register reg (0xC90 + reg for L3) of one domain, as written. */
RDTALLOC_API int rdtalloc_read_mask(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				    unsigned int reg, uint64_t *val);
/* CLOSID field of one CPU's IA32_PQR_ASSOC, as written. */
RDTALLOC_API int rdtalloc_read_pqr(rdtalloc_t *r, int cpu, unsigned int *closid);

/* ---- Monitoring: occupancy and bandwidth per group (0.5; docs/monitoring.md) ---- */

/*
 * The machine's L3 monitoring (CMT, MBM) and the RMIDs in use. rmids 0:
 * none (rdtalloc_mon_read is -EOPNOTSUPP). A group removed leaves its RMID
 * in limbo while the lines it filled stay above threshold bytes in some
 * domain; it is not given to a new group until they fall under it.
 */
struct rdtalloc_mon_info {
	size_t sz;
	unsigned int rmids;		/* RMIDs of the machine, 0 the default group's */
	unsigned int scale;		/* bytes per counter unit */
	unsigned int width;		/* counter bits: bandwidth counters wrap at 2^width units */
	unsigned int events;		/* RDTALLOC_MON_EV_* */
	uint64_t threshold;		/* limbo threshold, bytes */
	unsigned int in_use;		/* RMIDs groups hold now, the default group's included */
	unsigned int in_limbo;		/* freed, not yet reusable */
	unsigned int unmonitored;	/* groups that got none: counted with the default group */
	/*
	 * Appended in 0.7: the MBM correction of Broadwell-EP and Skylake-SP
	 * (errata BDF102, SKX99) on the msr backend: total and local counts of
	 * RMIDs above mbm_cf_threshold are multiplied by mbm_cf (0: none here).
	 */
	unsigned int mbm_cf_threshold;
	double mbm_cf;
	/*
	 * Appended in 0.8: Sub-NUMA Clustering. snc_nodes NUMA nodes share each
	 * L3 domain (1: no SNC); rmids above is then the kernel's count, the
	 * hardware's (hw_rmids) divided by the nodes (docs/monitoring.md).
	 */
	unsigned int snc_nodes;
	unsigned int hw_rmids;
};
RDTALLOC_API int rdtalloc_mon_get_info(rdtalloc_t *r, struct rdtalloc_mon_info *info);

/*
 * A group's RMID (0 for the default group). Every group gets an RMID of its
 * own, also where groups share a CLOSID. When none is free (all in use or
 * in limbo) a new group is still made but unmonitored: its tasks and CPUs
 * count with the default group's RMID and *rmid is RDTALLOC_RMID_NONE;
 * it gets one of its own when a later change finds one free. -EOPNOTSUPP:
 * no L3 monitoring.
 */
#define RDTALLOC_RMID_NONE (-1)
RDTALLOC_API int rdtalloc_group_rmid(rdtalloc_t *r, const char *group, int *rmid);

/* What a counter read gave, per group and domain. */
enum rdtalloc_mon_state {
	RDTALLOC_MON_OK = 0,
	RDTALLOC_MON_UNAVAILABLE = 1,	/* the hardware has no value (yet) for this RMID */
	RDTALLOC_MON_ERROR = 2,		/* the hardware refused the read */
	RDTALLOC_MON_UNSUPPORTED = 3,	/* no such event here, or an unmonitored group */
	RDTALLOC_MON_UNASSIGNED = 4,	/* resctrl's mbm_assign_mode gave it no counter */
	RDTALLOC_MON_MISSING = 5,	/* (0.6) its monitoring group is not in the kernel: drift */
};

/*
 * One group in one L3 domain. occupancy is bytes in the cache now; total and
 * local are bytes of memory traffic since the RMID was first read through
 * this state directory, 64-bit, the counters' wraps folded in (a reading
 * more than one wrap after the last one cannot be told apart: read at least
 * once per wrap period). state is the domain's worst event state; valid
 * has a RDTALLOC_MON_EV_* bit for each field that holds a number. Rates:
 * (mbm_total - prev_mbm_total) * 1e9 / (time_ns - prev_time_ns).
 */
struct rdtalloc_mon_value {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	int rmid;			/* RDTALLOC_RMID_NONE: unmonitored */
	unsigned int cache_id;
	int state;			/* enum rdtalloc_mon_state */
	unsigned int valid;
	uint64_t llc_occupancy;
	uint64_t mbm_total;
	uint64_t mbm_local;
	uint64_t time_ns;		/* CLOCK_REALTIME of the read */
	/*
	 * The previous read of this group's RMID in this domain through the
	 * same state directory (another process's included): prev_time_ns 0
	 * when there was none. Rates from one call.
	 */
	uint64_t prev_mbm_total;
	uint64_t prev_mbm_local;
	uint64_t prev_time_ns;
	/*
	 * Appended in 0.8, counter assignment (resctrl's mbm_event mode, AMD
	 * ABMC, Linux 6.18; machine mon.cntrs): where groups outnumber the
	 * counters they take turns (docs/monitoring.md). covered_ns: running
	 * total of the time the group's bandwidth was counted in this domain,
	 * beside mbm_total; prev_covered_ns as of the previous read. The
	 * interval's covered part is (covered_ns - prev_covered_ns) / (time_ns
	 * - prev_time_ns), and its rate, extrapolated from covered time only,
	 * (mbm_total - prev_mbm_total) * 1e9 / (covered_ns - prev_covered_ns).
	 * Without counter assignment every read interval is covered whole.
	 * flags: RDTALLOC_MON_F_*.
	 */
	uint64_t covered_ns;
	uint64_t prev_covered_ns;
	unsigned int flags;
};
#define RDTALLOC_MON_F_PINNED	(1u << 0)	/* pinned: keeps its counters (rdtalloc_mon_pin) */

/*
 * Read the counters of groups (ngroups names; NULL/0: every group, the
 * default first, in creation order) in one pass: group by group, every L3
 * domain of each in ascending cache id, up to max entries into out (stride out[0].sz; each
 * entry's sz is kept). Returns how many entries there are (more than max:
 * read again with a larger buffer). -ENOENT names an unknown group,
 * -EOPNOTSUPP: no L3 monitoring.
 */
RDTALLOC_API int rdtalloc_mon_read(rdtalloc_t *r, const char *const *groups, size_t ngroups,
				   struct rdtalloc_mon_value *out, size_t max);

/*
 * Sub-NUMA Clustering (0.8, Linux 6.11): with snc_nodes > 1 every L3 domain's
 * counters exist per NUMA node too (resctrl's mon_sub_L3_NN); the domain's
 * (rdtalloc_mon_read) are their sum. One group in one node: llc_occupancy
 * in bytes, mbm_total and mbm_local the running byte counts of the node
 * (resctrl: the kernel's; simulator: its domain's split evenly over the
 * nodes, the lower nodes taking the remainder, so the nodes sum to the
 * domain). state and valid as in rdtalloc_mon_value.
 */
struct rdtalloc_mon_node {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	int rmid;			/* RDTALLOC_RMID_NONE: unmonitored */
	unsigned int cache_id;		/* the L3 domain the node shares */
	unsigned int node;		/* NUMA node id */
	int state;			/* enum rdtalloc_mon_state */
	unsigned int valid;		/* RDTALLOC_MON_EV_* */
	uint64_t llc_occupancy;
	uint64_t mbm_total;
	uint64_t mbm_local;
	uint64_t time_ns;		/* CLOCK_REALTIME of the read */
};

/*
 * The nodes of groups (as rdtalloc_mon_read: NULL/0 every group, the default
 * first): group by group, each L3 domain in ascending cache id, its nodes in
 * ascending id, up to max entries (stride out[0].sz). Returns how many there
 * are. -EOPNOTSUPP: no L3 monitoring, or no SNC (rdtalloc_mon_info.snc_nodes
 * 1); -ENOENT: an unknown group.
 */
RDTALLOC_API int rdtalloc_mon_read_nodes(rdtalloc_t *r, const char *const *groups, size_t ngroups,
					 struct rdtalloc_mon_node *out, size_t max);

/*
 * Package telemetry (0.8, Linux 7.0: Intel AET, resctrl's PERF_PKG
 * resource): per group and package, cumulative counts of the events the
 * kernel enables, in its order. core_energy (joules) and activity (farads)
 * are fixed point: values here are in millionths (the kernel prints 6
 * decimals); the perf events are counts.
 */
enum rdtalloc_pkg_event {
	RDTALLOC_PKG_CORE_ENERGY = 0,	/* microjoules */
	RDTALLOC_PKG_ACTIVITY,		/* microfarads */
	RDTALLOC_PKG_STALLS_LLC_HIT,
	RDTALLOC_PKG_C1_RES,
	RDTALLOC_PKG_UNHALTED_CORE_CYCLES,
	RDTALLOC_PKG_STALLS_LLC_MISS,
	RDTALLOC_PKG_C6_RES,
	RDTALLOC_PKG_UNHALTED_REF_CYCLES,
	RDTALLOC_PKG_UOPS_RETIRED,
	RDTALLOC_PKG_NEVENTS
};
/* resctrl's file name of event e ("core_energy", ...), NULL past the last. */
RDTALLOC_API const char *rdtalloc_pkg_event_name(unsigned int e);

/* The machine's telemetry: events 0 (no PERF_PKG) or bits 1u << RDTALLOC_PKG_*. */
struct rdtalloc_pkg_info {
	size_t sz;
	unsigned int events;
	unsigned int rmids;		/* info/PERF_PKG_MON/num_rmids */
	unsigned int packages;
};
RDTALLOC_API int rdtalloc_pkg_get_info(rdtalloc_t *r, struct rdtalloc_pkg_info *info);

/*
 * One group in one package: state[e] an enum rdtalloc_mon_state per event
 * (RDTALLOC_MON_UNAVAILABLE: no valid data yet, as a fresh RMID reads),
 * value[e] its count where valid has bit 1u << e.
 */
struct rdtalloc_pkg_value {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	int rmid;			/* RDTALLOC_RMID_NONE: unmonitored */
	unsigned int package;		/* physical package id */
	unsigned int events;		/* the machine's, as rdtalloc_pkg_info */
	unsigned int valid;
	int state[RDTALLOC_PKG_NEVENTS];
	uint64_t value[RDTALLOC_PKG_NEVENTS];
	uint64_t time_ns;		/* CLOCK_REALTIME of the read */
};

/*
 * The telemetry of groups (NULL/0: every group, the default first): group
 * by group, each package in ascending id, up to max entries (stride
 * out[0].sz). Returns how many there are. -EOPNOTSUPP: no PERF_PKG here;
 * -ENOENT: an unknown group.
 */
RDTALLOC_API int rdtalloc_pkg_read(rdtalloc_t *r, const char *const *groups, size_t ngroups,
				   struct rdtalloc_pkg_value *out, size_t max);

/*
 * Counter assignment (0.8; resctrl's info/L3_MON/mbm_assign_mode, AMD ABMC,
 * Linux 6.18; the simulator's mon.cntrs). In mbm_event mode a group's
 * bandwidth is counted only while it holds a counter per event and domain.
 * Where our groups outnumber the counters, each rdtalloc_mon_read whose
 * turn is due moves the counters on: the pinned groups keep theirs, the
 * others take turns of period_ms in creation order, as many at a time as
 * the free counters (at most `counters` per domain, 0: all) hold. The
 * default group keeps the counters the kernel gave it; counters of groups
 * not ours are never touched. docs/monitoring.md.
 */
enum rdtalloc_mon_assign_mode {
	RDTALLOC_MON_ASSIGN_NONE = 0,	/* no assignable counters: every RMID counts */
	RDTALLOC_MON_ASSIGN_DEFAULT = 1,	/* assignable, mode "default": every RMID counts */
	RDTALLOC_MON_ASSIGN_EVENT = 2,	/* mode "mbm_event": only groups holding counters count */
};
struct rdtalloc_mon_counters {
	size_t sz;
	int mode;			/* enum rdtalloc_mon_assign_mode */
	unsigned int total;		/* counters per L3 domain (the fewest of any domain) */
	unsigned int free;		/* not assigned now, in the domain with the fewest */
	unsigned int events;		/* counters a group takes per domain (one an event) */
	unsigned int groups;		/* our monitored groups (default included) */
	unsigned int pinned;		/* of them pinned */
	unsigned int period_ms;		/* a turn */
	unsigned int counters;		/* most counters per domain turns use; 0: all free */
};
RDTALLOC_API int rdtalloc_mon_get_counters(rdtalloc_t *r, struct rdtalloc_mon_counters *out);
/*
 * Set the turns: period_ms 100..3600000 (0: the default, 1000), counters
 * 0..4096 per domain (0: all free ones). Kept in the state. -EINVAL out of
 * range; -EOPNOTSUPP without L3 monitoring.
 */
RDTALLOC_API int rdtalloc_mon_set_rotation(rdtalloc_t *r, unsigned int period_ms,
					   unsigned int counters);
/*
 * Pin (pinned 1) or unpin (0) a group: a pinned group keeps its counters
 * for as long as it is pinned (pins beyond the counters take turns).
 * Kept in the state; a group removed loses its pin. -ENOENT: no such group;
 * -EINVAL: the default group (it keeps the kernel's counters) or an
 * unmonitored one.
 */
RDTALLOC_API int rdtalloc_mon_pin(rdtalloc_t *r, const char *group, int pinned);

/*
 * The simulator's workload of a group (sim backend only): the model that
 * produces its counters (docs/monitoring.md). footprint: bytes it touches
 * over and over; rate: bytes per second it accesses; local_pct: share of
 * its memory traffic that goes to its own node. fault: its counters read as
 * RDTALLOC_MON_UNAVAILABLE or _ERROR (to test what reads them); 0 normal.
 * cache_id -1: every domain. A zero footprint and rate remove the workload.
 */
struct rdtalloc_sim_load {
	size_t sz;
	uint64_t footprint;
	uint64_t rate;
	unsigned int local_pct;		/* 0..100 */
	int fault;
};
RDTALLOC_API int rdtalloc_sim_set_load(rdtalloc_t *r, const char *group, int cache_id,
				       const struct rdtalloc_sim_load *load);

/* ---- Whole configurations (rdtctl save / apply) ------------------------ */

/* The longest configuration text apply takes (-E2BIG past it): 4 MiB. */
#define RDTALLOC_CONFIG_MAX (4u << 20)

/*
 * Apply: also remove the groups the configuration does not name that
 * earlier applies of the same configuration made (0.8; before, every
 * group it did not name). Groups made by hand, by the OCI hook or by
 * another configuration stay (docs/config.md, "Who owns what").
 */
#define RDTALLOC_APPLY_PRUNE (1u << 0)
/* Apply: validate only, change nothing. */
#define RDTALLOC_APPLY_DRY_RUN (1u << 1)

/*
 * Write the current state as configuration text (docs/config.md) into buf.
 * Returns the full length; -ERANGE when it does not fit.
 */
RDTALLOC_API int rdtalloc_save_config(rdtalloc_t *r, char *buf, size_t len);
/*
 * Make the state match the configuration text, in one step: the whole text
 * is parsed and validated first; on any error nothing changes and errmsg
 * names the line. Returns the number of changes made (0: already matched).
 */
RDTALLOC_API int rdtalloc_apply_config(rdtalloc_t *r, const char *text, unsigned int flags);

/* Apply: a task line naming a task that does not exist is skipped (and reported). */
#define RDTALLOC_APPLY_SKIP_MISSING_TASKS (1u << 2)
/*
 * Apply (0.4): a file whose `machine` lines describe another machine (other
 * domain ids, mask length, MB scale) is applied anyway, and the report says
 * how it differs; without the flag it is -EXDEV naming the first difference.
 */
#define RDTALLOC_APPLY_FORCE_MACHINE (1u << 3)
/*
 * Apply (0.8): the state becomes exactly the file, whoever made what is in
 * it: every group it does not name is removed, every binding of a named
 * group it does not list goes, and what other owners made is taken over
 * (the meaning RDTALLOC_APPLY_PRUNE had before 0.8).
 */
#define RDTALLOC_APPLY_PRUNE_ALL (1u << 4)
/* Save: write the task bindings too (by default only durable ones: groups, schemas, CPUs). */
#define RDTALLOC_SAVE_TASKS (1u << 0)

/*
 * rdtalloc_save_config with flags (RDTALLOC_SAVE_*): without
 * RDTALLOC_SAVE_TASKS the text holds what survives a reboot - groups,
 * schemas, CPUs - and no task ids. Returns the full length like snprintf
 * (buf may be NULL when len is 0); -ERANGE is never returned.
 */
RDTALLOC_API int rdtalloc_save_config_flags(rdtalloc_t *r, unsigned int flags, char *buf,
					    size_t len);
/*
 * rdtalloc_apply_config that also says what it did (or, with
 * RDTALLOC_APPLY_DRY_RUN, would do): one line per change, and per task
 * skipped with RDTALLOC_APPLY_SKIP_MISSING_TASKS, written into report like
 * snprintf (NULL with len 0: not wanted). *report_len (when not NULL) gets
 * the full length of the report. Returns the number of changes.
 */
RDTALLOC_API int rdtalloc_apply_config_report(rdtalloc_t *r, const char *text, unsigned int flags,
					      char *report, size_t len, size_t *report_len);
/*
 * (0.8) rdtalloc_apply_config_report for the configuration called name:
 * what it makes is owned by "config:NAME" (the file's own `name` line wins;
 * NULL or "": "default"), and RDTALLOC_APPLY_PRUNE removes only what
 * earlier applies of that name made. rdtctl passes the file's base name.
 * A change of what another owner made is -EBUSY naming the line and the
 * owner, unless the context was opened with RDTALLOC_F_FORCE.
 */
RDTALLOC_API int rdtalloc_apply_config_as(rdtalloc_t *r, const char *text, const char *name,
					  unsigned int flags, char *report, size_t len,
					  size_t *report_len);
/*
 * A goresctrl RDT configuration (YAML, len bytes, at most 1 MiB: the
 * rdt_config_file of containerd and CRI-O; 0.5) resolved for this machine
 * into configuration text (a group per class, its schema from its
 * partition's share; docs/containers.md), written into buf like snprintf;
 * returns the text's full length. Nothing changes: apply the text with
 * rdtalloc_apply_config. -EINVAL with a message naming the partition or
 * class and the value; -EOPNOTSUPP for a resource the machine lacks that
 * is not optional.
 */
RDTALLOC_API int rdtalloc_goresctrl_config(rdtalloc_t *r, const char *yaml, size_t len, char *buf,
					   size_t buflen);
/*
 * The same configuration resolved and applied in one call (0.8), as
 * rdtalloc_apply_config_report applies the text (flags, report and return
 * alike), and each class's kubernetes: {denyPodAnnotation,
 * denyContainerAnnotation} recorded for its group in place of the last
 * applied file's: the OCI hook then refuses a container whose class came
 * from an annotation its class denies, as goresctrl does. name: the
 * configuration's name, as rdtalloc_apply_config_as takes it (what it
 * makes is config:NAME's; NULL: "default").
 */
RDTALLOC_API int rdtalloc_goresctrl_apply(rdtalloc_t *r, const char *yaml, size_t len,
					  const char *name, unsigned int flags, char *report,
					  size_t rlen, size_t *report_len);
/*
 * What the last goresctrl configuration applied denies for group's class
 * (0.8): RDTALLOC_GORESCTRL_DENY_POD (kubernetes.denyPodAnnotation) and/or
 * _CONTAINER (denyContainerAnnotation), 0 for none; -ENOENT when there is
 * no such group.
 */
#define RDTALLOC_GORESCTRL_DENY_POD 1u
#define RDTALLOC_GORESCTRL_DENY_CONTAINER 2u
RDTALLOC_API int rdtalloc_goresctrl_policy(rdtalloc_t *r, const char *group);


/* ---- Utilities --------------------------------------------------------- */

/*
 * Parse a CPU list ("0-3,8,10-11"; also "" for none) into cpus, ascending,
 * duplicates merged. Returns the count (which may exceed max), or -EINVAL
 * with rdtalloc_errmsg(NULL) naming the bad part.
 */
RDTALLOC_API int rdtalloc_parse_cpulist(const char *s, int *cpus, size_t max);
/* Format n CPUs (any order) as a compact list; returns the length like snprintf. */
RDTALLOC_API int rdtalloc_format_cpulist(const int *cpus, size_t n, char *buf, size_t len);

/* ---- Detection (CPUID) --------------------------------------------------- */

struct rdtalloc_cpu_res {
	char name[8];			/* "L3", "L2" */
	unsigned int closids;
	unsigned int cbm_len;
	uint64_t shareable_bits;
	int cdp;
	int sparse;			/* non-contiguous masks allowed */
};

struct rdtalloc_cpu_caps {
	size_t sz;
	char vendor[16];		/* "GenuineIntel", "AuthenticAMD", ... */
	char brand[64];			/* processor brand string, "" when absent */
	unsigned int family, model, stepping;
	int rdt_alloc;			/* the CPU enumerates cache allocation */
	int mba;			/* memory bandwidth allocation enumerated */
	int probe_needed;		/* Haswell-EP: possibly CAT-capable, probe needed */
	unsigned int nres;		/* entries used in res[] */
	struct rdtalloc_cpu_res res[2];
	char summary[160];		/* one line for humans */
	/*
	 * Memory bandwidth allocation, when mba is set (appended in 0.3).
	 * Intel (CPUID 0x10.3): mba_closids, mba_max_throttle (the largest
	 * delay value, e.g. 90: at most 90% throttled), mba_linear (delay
	 * values are linear). AMD (0x80000020.1): mba_closids and mba_bw_len,
	 * the width in bits of the bandwidth field of its per-CLOSID MSRs
	 * (bandwidth in 1/8 GB/s). Zero where the vendor has no such field.
	 */
	unsigned int mba_closids;
	unsigned int mba_max_throttle;
	int mba_linear;
	unsigned int mba_bw_len;
	/*
	 * L3 monitoring, CMT and MBM (appended in 0.5), from CPUID 0xF: l3_mon
	 * set when leaf 7 EBX[12] and 0xF.0 EDX[1] say so; then mon_rmids
	 * (0xF.1 ECX + 1), mon_scale (bytes per count, 0xF.1 EBX), mon_width
	 * (counter bits: 24 + 0xF.1 EAX[7:0] as Linux takes it, 44 on AMD
	 * parts that report 0) and mon_events (RDTALLOC_MON_EV_* bits from
	 * 0xF.1 EDX[2:0]).
	 */
	int l3_mon;
	unsigned int mon_rmids;
	unsigned int mon_scale;
	unsigned int mon_width;
	unsigned int mon_events;
};

/* Monitoring events, as bits and by resctrl's names (0.5). */
#define RDTALLOC_MON_EV_OCCUPANCY	(1u << 0)	/* llc_occupancy */
#define RDTALLOC_MON_EV_TOTAL		(1u << 1)	/* mbm_total_bytes */
#define RDTALLOC_MON_EV_LOCAL		(1u << 2)	/* mbm_local_bytes */

/* Decode the CPU this process runs on (libcpuid). */
RDTALLOC_API int rdtalloc_cpuid_host(struct rdtalloc_cpu_caps *caps);
/*
 * Decode a recorded dump in the format of `cpuid -r` (one CPU's leaves are
 * used). -EINVAL / -ENOENT with rdtalloc_errmsg(NULL) saying what was wrong;
 * anything but a regular file (a FIFO, a device, a directory) is -EINVAL at
 * once, before a byte is read.
 */
RDTALLOC_API int rdtalloc_cpuid_decode_file(const char *path, struct rdtalloc_cpu_caps *caps);

/*
 * Walk the machine presets (`preset=NAME` in a description): name, the
 * description it stands for, and the public source of its numbers.
 */
RDTALLOC_API int rdtalloc_preset_foreach(int (*cb)(const char *name, const char *desc,
						   const char *source, void *arg),
					 void *arg);

/* ---- Containers: the OCI runtime hook (0.5; docs/containers.md) -------------- */

#define RDTALLOC_OCI_GROUP_KEY "rdtalloc.group"	/* annotation: the group */
#define RDTALLOC_OCI_SCHEMA_KEY "rdtalloc.schema"	/* annotation: make it with this */
/*
 * (0.7) The RDT class annotations containerd and CRI-O place pods by
 * (goresctrl's keys): the class names the group, "system/default" (or "")
 * the default group. Precedence: rdtalloc.group, then the container's
 * io.kubernetes.cri.rdt-class, then the pod's per-container
 * rdt.resources.beta.kubernetes.io/container.NAME (NAME from
 * io.kubernetes.cri.container-name or io.kubernetes.container.name), then
 * the pod's rdt.resources.beta.kubernetes.io/pod.
 */
#define RDTALLOC_OCI_CRI_CLASS_KEY "io.kubernetes.cri.rdt-class"
#define RDTALLOC_OCI_POD_CONTAINER_PREFIX "rdt.resources.beta.kubernetes.io/container."
#define RDTALLOC_OCI_POD_KEY "rdt.resources.beta.kubernetes.io/pod"
#define RDTALLOC_OCI_STATE_MAX (1u << 20)	/* bytes of a container's state JSON */

/* What rdtalloc_oci_hook did. */
#define RDTALLOC_OCI_IGNORED 0		/* not annotated, or a stage with nothing to do */
#define RDTALLOC_OCI_CGROUP 1		/* its cgroup bound to the group */
#define RDTALLOC_OCI_PROCESS 2		/* its init process bound (fork does the rest) */
#define RDTALLOC_OCI_RELEASED 3		/* poststop: its binding gone */
#define RDTALLOC_OCI_REMOVED_GROUP 4	/* poststop: and the group made for it */
/*
 * The hook a runtime runs with the container's state JSON (runtime-spec
 * "State": ociVersion, id, status, pid, bundle, annotations), len bytes at
 * most RDTALLOC_OCI_STATE_MAX. stage: "createRuntime" or "prestart" put an
 * annotated container in its group - its cgroup when it has one of its own,
 * else its init process - making the group when the annotation
 * rdtalloc.schema gives a schema and it does not exist; "poststop" undoes
 * that and removes a group made for that container alone;
 * "createContainer", "startContainer" and "poststart" do nothing. A
 * container without rdtalloc.group: 0 at once, no state opened or made.
 * Otherwise opts open the context. One transaction: on failure nothing
 * changed, and rdtalloc_errmsg(NULL) says why (the runtime then refuses to
 * start the container). *what (may be NULL): RDTALLOC_OCI_*.
 */
RDTALLOC_API int rdtalloc_oci_hook(const struct rdtalloc_opts *opts, const char *stage,
				   const char *state, size_t len, int *what);

/* ---- The cache model: memory traces replayed, miss curves (0.5; docs/plan.md) - */

#define RDTALLOC_TRACE_INSTR (1u << 0)	/* instruction fetches count too (off: data only) */
#define RDTALLOC_REPLAY_MAX 64		/* traces replayed together */
/*
 * Replay (0.5): the simulator's monitoring counters take the result - each
 * group's memory traffic grows by its misses x 64 bytes, and the domain's
 * occupancy reads what the replay left, until a workload is set there
 * (rdtalloc_sim_set_load). A write call; -EOPNOTSUPP but on the sim backend
 * with monitoring.
 */
#define RDTALLOC_REPLAY_COUNT (1u << 1)
/*
 * (0.7) Traces of unequal length, replayed together (rdtalloc_sim_replay,
 * rdtalloc_plan_traces): without these the longest runs alone at the end,
 * which weighs its misses more. _CUT ends the replay when the shortest
 * ends; _LOOP starts the shorter ones again until the longest ends. Not
 * both.
 */
#define RDTALLOC_TRACE_CUT (1u << 2)
#define RDTALLOC_TRACE_LOOP (1u << 3)

/* The L3 domain a replay or a curve modelled. */
struct rdtalloc_cache_geometry {
	size_t sz;
	unsigned int cache_id;
	unsigned int sets;		/* L3 size / (ways * 64) */
	unsigned int ways;		/* the CBM length */
};

struct rdtalloc_replay_group {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	uint64_t accesses, hits, misses;
	uint64_t llc_occupancy;		/* bytes it holds at the end */
};

/*
 * Replay traces[i] (valgrind lackey text or our binary form, read
 * streaming) as group groups[i], n of them, through a model of the L3
 * domain cache_id (-1: the first): set-associative, 64-byte lines placed by
 * address modulo the sets, LRU, a hit in any way and a fill only into the
 * ways of the group's mask now (CAT's rule), one access of each trace in
 * turn, from an empty cache. Results into out[0..n-1] (each with sz set),
 * the geometry into *geo. Nothing in the state changes, unless flags hold
 * RDTALLOC_REPLAY_COUNT (then on failure nothing does). -EINVAL naming the
 * trace and line of a malformed access; -ENODATA when the L3's size is not
 * known (give it: topology=...l3:1(size=2MiB)).
 */
RDTALLOC_API int rdtalloc_sim_replay(rdtalloc_t *r, int cache_id, size_t n,
				     const char *const *groups, const char *const *traces,
				     unsigned int flags, struct rdtalloc_cache_geometry *geo,
				     struct rdtalloc_replay_group *out);

/* A trace's misses alone in the domain's cache with 1..ways ways (misses[k-1]). */
struct rdtalloc_curve {
	size_t sz;
	struct rdtalloc_cache_geometry geo;
	uint64_t accesses;
	uint64_t misses[64];
	/*
	 * Appended in 0.7: the sample the curve came from. sample_shift 0:
	 * exact, every set modelled; n: about one set in 2^n, misses[] the
	 * sample's miss ratio times every access.
	 */
	unsigned int sample_shift;
	unsigned int sample_sets;	/* sets modelled */
	uint64_t sample_accesses;	/* accesses to them */
};
/*
 * A sampled curve (0.7, flags of rdtalloc_trace_curve): whole sets are
 * modelled, about one in 2^n (n 1..12), picked by a hash of the set index
 * as UCP's monitors and SHARDS sample; n is lowered until at least 256
 * sets are in the sample. Without it the curve is exact.
 */
#define RDTALLOC_CURVE_SAMPLE_MAX 12
#define RDTALLOC_CURVE_SAMPLE(n) (((unsigned int)(n) & 0xfu) << 8)
/*
 * One pass over the trace (LRU stack distances per set); a large binary
 * trace is read by one thread per CPU (at most 4), each modelling its part
 * of the sets. flags: RDTALLOC_TRACE_INSTR, RDTALLOC_CURVE_SAMPLE(n);
 * other bits: -EINVAL.
 */
RDTALLOC_API int rdtalloc_trace_curve(rdtalloc_t *r, int cache_id, const char *trace,
				      unsigned int flags, struct rdtalloc_curve *out);
/*
 * A trace into our binary form (a new file renamed into place: nothing is
 * followed or half written); *n gets the number of accesses. Errors in
 * rdtalloc_errmsg(NULL).
 */
RDTALLOC_API int rdtalloc_trace_convert(const char *in, const char *out, unsigned int flags,
					uint64_t *n);

/*
 * The planner (0.5): ways of one L3 domain for n groups from their miss
 * curves alone (curves[i][k-1]: group i's miss ratio with k ways, k =
 * 1..curve_ways, which must be the domain's ways; accesses[i] weighs it),
 * goal (NULL: RDTALLOC_PLAN_MISSES) RDTALLOC_PLAN_MISSES:
 * the fewest misses in total (utility-based partitioning with lookahead,
 * Qureshi & Patt, MICRO'06) over units that are single groups or pools of
 * groups sharing one mask. From curves alone groups stay apart unless the
 * CLOSIDs or the ways (min_cbm_bits each) do not go round; then the pools
 * that the shared-pool model (docs/plan.md) rates best are made, and
 * predicted by it (rdtalloc_plan_traces tells when sharing beats a
 * partition, by replay). Each unit at least
 * min_cbm_bits ways, one contiguous block each, apart, laid out from bit 0
 * (exclusive groups first, off the shareable ways). out[i] gets the mask,
 * the prediction, and its pool (entries out[0].sz apart, each sz kept; an
 * out[0].sz from before 0.5 gets the fields it has). Nothing changes: the result is to be
 * applied (rdtctl plan prints it as a configuration).
 */
#define RDTALLOC_PLAN_MISSES 0u
/*
 * RDTALLOC_PLAN_BOUND: group index `group` gets the fewest ways that keep
 * its miss ratio at or under `bound` alone in them (-ERANGE when even
 * every way it could have does not), the others share the rest for the
 * fewest misses.
 */
#define RDTALLOC_PLAN_BOUND 1u
/* goal flags: no pools - every group its own ways (-ENOSPC where they do not go round) */
#define RDTALLOC_PLAN_APART (1u << 0)
/*
 * (0.7) Ways no group's misses fall with (flat curves) go to group index
 * `spare`; without this flag they stay with the default group (no mask of
 * the plan holds them). Before 0.7 they went to the first group.
 */
#define RDTALLOC_PLAN_SPARE (1u << 1)
struct rdtalloc_plan_goal {
	size_t sz;
	unsigned int kind;		/* RDTALLOC_PLAN_* */
	unsigned int group;		/* _BOUND: the group held to the bound */
	double bound;			/* _BOUND: its highest miss ratio, 0..1 */
	/*
	 * Appended in 0.5 (read when sz covers them): bit i of exclusive: group
	 * i gets ways no other group fills, the default group's included
	 * (resctrl's exclusive mode); flags RDTALLOC_PLAN_APART.
	 */
	uint64_t exclusive;
	unsigned int flags;
	/*
	 * Appended in 0.7: ways of the domain the plan leaves alone (those
	 * other groups hold exclusive): it lays its masks out in the longest
	 * run of the others. -ENOSPC when fewer than min_cbm_bits are left.
	 */
	uint64_t avoid;
	unsigned int spare;		/* RDTALLOC_PLAN_SPARE: the group the spare ways go to */
};
struct rdtalloc_plan_group {
	size_t sz;
	unsigned int ways;
	uint64_t mask;
	double predicted_miss_ratio;
	int shared;			/* its ways are filled by another of the plan too: the
					 * prediction is the shared-pool model's (docs/plan.md) */
	/* appended in 0.5 */
	int exclusive;			/* the goal made it exclusive */
	unsigned int pool;		/* index of the first group with the same mask */
};
RDTALLOC_API int rdtalloc_plan(rdtalloc_t *r, int cache_id, size_t n, const double *const *curves,
			       unsigned int curve_ways, const uint64_t *accesses,
			       const struct rdtalloc_plan_goal *goal,
			       struct rdtalloc_cache_geometry *geo, struct rdtalloc_plan_group *out);

/*
 * The planner on traces (0.5): each trace's curve from one pass, then the
 * plans rdtalloc_plan weighs - every group apart, then pools of groups,
 * two at a time as the shared-pool model rates them, down to one pool of
 * every group that is neither exclusive nor bound - each replayed through
 * the model of the L3 (as rdtalloc_sim_replay, with the plan's masks), and
 * the one with the fewest misses is the plan: so it is never worse, by
 * replay, than groups apart or all in one pool, and out[i]'s predicted miss
 * ratio is the replay's. flags: RDTALLOC_TRACE_INSTR. report (may be NULL)
 * gets the misses of the plan and of those two.
 */
struct rdtalloc_plan_report {
	size_t sz;
	unsigned int plans;		/* plans weighed */
	uint64_t misses;		/* by replay: the plan's, in total */
	uint64_t misses_apart;		/* every group its own ways (UINT64_MAX: they do not go round) */
	uint64_t misses_shared;		/* one pool (UINT64_MAX: no such plan) */
	/* appended in 0.7: accesses of the shortest and the longest trace */
	uint64_t shortest, longest;
};
RDTALLOC_API int rdtalloc_plan_traces(rdtalloc_t *r, int cache_id, size_t n,
				      const char *const *traces, unsigned int flags,
				      const struct rdtalloc_plan_goal *goal,
				      struct rdtalloc_cache_geometry *geo,
				      struct rdtalloc_plan_group *out,
				      struct rdtalloc_plan_report *report);

/*
 * What a configuration (text, docs/config.md) would do to n groups with
 * their curves (as rdtalloc_plan takes them): the masks the configuration
 * gives them in the domain (applied to a copy of the state: nothing
 * changes), their ways, the predicted miss ratio and whether they share
 * ways (then groups whose masks overlap are predicted as one pool of the
 * ways of their masks together, each filling its own mask at most). A
 * group the configuration does not name keeps its mask of now.
 */
RDTALLOC_API int rdtalloc_plan_check(rdtalloc_t *r, int cache_id, const char *config, size_t n,
				     const char *const *groups, const double *const *curves,
				     unsigned int curve_ways, struct rdtalloc_plan_group *out);

/* ---- The controller: measure, decide, apply, verify (0.7; docs/control.md) --- */

#define RDTALLOC_CONTROL_MAX 64		/* groups one controller changes */
#define RDTALLOC_CONTROL_PHASES_MAX 64	/* traces of a group in a simulated run */

/* flags of struct rdtalloc_control_conf */
#define RDTALLOC_CONTROL_OFF (1u << 0)	/* measure only: the masks stay as they are */
#define RDTALLOC_CONTROL_STATIC (1u << 1) /* simulated: each group's .mask, fixed */
/* RDTALLOC_TRACE_INSTR (1u << 0 of the trace flags) is RDTALLOC_CONTROL_INSTR here */
#define RDTALLOC_CONTROL_INSTR (1u << 2)
/* (0.8) kept: measure and decide, log what it would do, write no mask */
#define RDTALLOC_CONTROL_ADVISORY (1u << 3)
/* (0.8) kept: it may use the machine's shareable (I/O) ways, left alone by default */
#define RDTALLOC_CONTROL_SHAREABLE (1u << 4)
/*
 * (0.8) rdtalloc_control_set: the groups that leave the controller keep the
 * masks of its last verified layout instead of getting their declared ones
 * back (not kept in the state)
 */
#define RDTALLOC_CONTROL_KEEP (1u << 5)
#define RDTALLOC_CONTROL_WPM_MAX 1000000u	/* writes_per_minute at most */

/* A group the controller may change, and its goals. */
struct rdtalloc_control_group {
	size_t sz;
	const char *group;
	double bound_miss_ratio;	/* keep misses / accesses at most this (0: none) */
	uint64_t bound_bytes_per_sec;	/* keep its memory traffic at most this (0: none) */
	int exclusive;			/* always a block of ways of its own */
	/* a simulated run: its phases, one stream of accesses, in order */
	size_t ntraces;
	const char *const *traces;
	uint64_t mask;			/* RDTALLOC_CONTROL_STATIC: its mask (0: every way) */
};

struct rdtalloc_control_conf {
	size_t sz;
	int cache_id;			/* the L3 domain (-1: the first) */
	uint64_t avoid;			/* ways it leaves alone (shareable, io, others') */
	unsigned int interval_ms;	/* 0: 1000; a simulated interval stands for it */
	unsigned int writes_per_minute;	/* schemata writes at most (0: no limit) */
	unsigned int flags;		/* RDTALLOC_CONTROL_* */
	uint64_t interval_accesses;	/* simulated: accesses of each group per interval */
	uint64_t intervals;		/* at most this many (0: until the traces end) */
};

/* One group in one interval: what was in force and what it did. */
struct rdtalloc_control_sample {
	size_t sz;
	char group[RDTALLOC_NAME_MAX + 1];
	uint64_t mask;			/* in force during the interval */
	uint64_t accesses, misses;	/* the interval's alone */
	uint64_t llc_occupancy;		/* bytes held at its end */
	uint64_t mbm_total;		/* bytes of memory traffic in it (misses x 64 simulated) */
};

enum rdtalloc_control_kind {
	RDTALLOC_CONTROL_INTERVAL = 1,	/* an interval measured: groups[] */
	RDTALLOC_CONTROL_DECISION = 2,	/* what the controller decided after it: action, reason */
};

struct rdtalloc_control_record {
	size_t sz;
	int kind;			/* enum rdtalloc_control_kind */
	uint64_t interval;		/* from 0 */
	unsigned int cache_id;
	size_t ngroups;
	const struct rdtalloc_control_sample *groups;	/* intervals: one per group, in order */
	const char *action;		/* decisions: probe, keep, rollback, bound, phase */
	const char *reason;		/* with the figures behind it */
	uint64_t base, measured;	/* misses per interval compared (0: none) */
	/* (0.8) decisions: the group it is about (NULL: none, or all of them) */
	const char *group;
	uint64_t margin;		/* (0.8) the margin it was judged by (0: none) */
};

/* Called for every record; a non-zero return ends the run with it. */
typedef int (*rdtalloc_control_cb)(const struct rdtalloc_control_record *rec, void *arg);

/*
 * A simulated run (docs/control.md): each of n groups runs its traces in
 * turn through the model of the L3 domain conf->cache_id, interval after
 * interval; in each, every group that has accesses left issues the next
 * conf->interval_accesses of them (one access of each in turn, in the
 * order given), with the masks in force at the interval's start; the
 * cache starts empty and is never flushed. After each interval cb gets its
 * record, then the controller's decision if it made one. Without
 * RDTALLOC_CONTROL_OFF or _STATIC the controller decides the masks; with
 * them they stay every way (OFF) or each group's .mask (STATIC): the
 * baselines. Group names are labels (they need not exist); nothing in the
 * state changes. Deterministic. -EINVAL naming what was wrong.
 */
RDTALLOC_API int rdtalloc_control_sim_run(rdtalloc_t *r, const struct rdtalloc_control_conf *conf,
					  size_t n, const struct rdtalloc_control_group *groups,
					  rdtalloc_control_cb cb, void *arg);

/*
 * The controller of L3 domain conf->cache_id (-1: the first), kept in the
 * state (its own member of the state file) for `rdtctl control run` and
 * the agent - one controller per domain, each replacing the domain's
 * before: groups that exist (not the default group), none twice, no trace
 * or static mask; writes_per_minute at most RDTALLOC_CONTROL_WPM_MAX (0:
 * no limit), interval_ms 0 or 10 to 3,600,000, bound_bytes_per_sec at
 * most INT64_MAX; flags RDTALLOC_CONTROL_ADVISORY, _SHAREABLE, _KEEP.
 * Each group's masks in the domain are recorded as declared when it
 * joins; a group that leaves (n 0: the domain's controller removed,
 * cache_id -1: every domain's) gets them back, or with
 * RDTALLOC_CONTROL_KEEP the masks of the last verified layout - never a
 * probe (0.8). A write call.
 */
RDTALLOC_API int rdtalloc_control_set(rdtalloc_t *r, const struct rdtalloc_control_conf *conf,
				      size_t n, const struct rdtalloc_control_group *groups);
/*
 * The controller kept for L3 domain conf->cache_id (-1: the first one
 * configured): *conf, up to max groups into groups[] (sz of each set;
 * .group points into a buffer of the calling thread's, valid until its
 * next rdtalloc_control_get). Returns how many groups there are (0: no
 * controller there).
 */
RDTALLOC_API int rdtalloc_control_get(rdtalloc_t *r, struct rdtalloc_control_conf *conf,
				      struct rdtalloc_control_group *groups, size_t max);
/*
 * The controllers kept, live, each on its own interval: the counters of
 * its groups (rdtalloc_mon_read: MBM traffic and occupancy; LLC references
 * and misses from perf events on the bound cgroups of groups with a
 * miss-ratio bound), a decision, the masks of its domain written
 * (rdtalloc_set_schema's rules, as owner "control:ID"), for count
 * intervals each (0: until *stop or cb says). A configuration changed is
 * followed; one cleared ends the run with -ENOENT. A group whose mask
 * another owner took leaves the configuration (a "taken" decision). (0.8)
 * Whatever ends the run, a probe not verified is rolled back first: the
 * layout last verified stays in force. -EOPNOTSUPP without monitoring;
 * -ENOENT without a configuration.
 */
RDTALLOC_API int rdtalloc_control_run(rdtalloc_t *r, uint64_t count, volatile int *stop,
				      rdtalloc_control_cb cb, void *arg);

/* ---- Switch hook (eBPF on sched_switch; docs/hook.md) ------------------------ */

struct rdtalloc_hook_status {
	size_t sz;
	int built;			/* this library was built with the hook */
	int loaded;			/* programs and maps pinned under /sys/fs/bpf/rdtalloc */
	int agent_running;
	pid_t agent_pid;		/* 0 when no agent runs */
	unsigned int ncpus;		/* entries rdtalloc_hook_cpus() returns */
	uint64_t lag_samples;		/* switch-in to PQR write, measured by the agent */
	uint64_t lag_p50_ns;
	uint64_t lag_p99_ns;
	uint64_t lag_max_ns;
	/* 0.5: the state the hook serves ("" when not loaded) */
	char served_dir[256];		/* its state directory */
	char served_backend[16];	/* and backend */
};

struct rdtalloc_hook_cpu {
	size_t sz;
	int cpu;
	unsigned int wanted;		/* CLOSID the hook wants on this CPU */
	unsigned int applied;		/* CLOSID the agent last wrote */
	uint64_t switches;		/* context switches seen */
	uint64_t events;		/* "wants CLOSID k" events sent */
	uint64_t coalesced;		/* changes folded into an event in flight */
	uint64_t pqr_writes;		/* PQR_ASSOC writes by the agent */
	uint64_t dropped;		/* events the ring buffer had no room for (0.3) */
};

/* Load and pin the hook, start the agent as a daemon. -EEXIST when running. */
RDTALLOC_API int rdtalloc_hook_start(rdtalloc_t *r);
/*
 * Stop the agent, put every CPU's PQR_ASSOC back to the CLOSID of the CPU's
 * own group (or default), unpin everything. -ENOENT when not loaded.
 */
RDTALLOC_API int rdtalloc_hook_stop(rdtalloc_t *r);
/* The agent in the foreground (for systemd), until *stop becomes non-zero or SIGTERM. */
RDTALLOC_API int rdtalloc_hook_run(rdtalloc_t *r, volatile int *stop);
RDTALLOC_API int rdtalloc_hook_get_status(rdtalloc_t *r, struct rdtalloc_hook_status *st);
/* Per CPU counters; set .sz of out[0] (the library reads it for all). */
RDTALLOC_API int rdtalloc_hook_cpus(rdtalloc_t *r, struct rdtalloc_hook_cpu *out, size_t max);


#ifdef __cplusplus
}
#endif

#endif /* RDTALLOC_RDTALLOC_H */
