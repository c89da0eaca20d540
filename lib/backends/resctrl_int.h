/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * resctrl backend (backends/resctrl*.c; this is their shared header): the kernel owns CAT (Documentation/arch/x86/resctrl.rst);
 * we drive its filesystem. Capabilities come from info/, not CPUID.
 *
 * The kernel gives one CLOSID per control group. Our groups share CLOSIDs
 * when their masks are equal, so here a *class* - the set of our groups
 * whose schemas are identical in every domain - is one control group that we
 * create, named rdtalloc-ID-<its oldest group> when made; the default group
 * is the root group. Control groups we did not create are never written,
 * moved or removed, and count against the CLOSIDs.
 *
 * Every write call is realised by comparing the kernel with the new state:
 * classes are matched to our directories (the one named after the class's
 * oldest group first, then the same schemata, then the one most of its
 * groups were in), then mkdir, schemata, cpus_list and task moves
 * are done with an undo log, and directories no class holds are removed. A
 * failure undoes the earlier steps, so the kernel and the state file agree.
 *
 * The kernel knows classes, not our groups: task membership per group is
 * kept in the state's table and answered from what the kernel lists (a dead
 * task is never listed; a child forked in a class is counted in its thread
 * group leader's group, else its nearest bound ancestor's, else the class's
 * oldest group).
 */
#ifndef RDT_RESCTRL_INT_H
#define RDT_RESCTRL_INT_H
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#ifndef FUSE_MAGIC
#define FUSE_MAGIC 0x65735546	/* <linux/magic.h>'s FUSE_SUPER_MAGIC */
#endif
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "config.h"
#include "errors.h"
#include "monitor/monitor.h"
#include "mounts.h"
#include "services.h"
#include "state.h"
#include "tasks.h"

/*
 * The backend holds the context as an opaque handle and reads what it needs
 * through lib/context.h's calls; these two, the call's state and the
 * machine, are read on nearly every line.
 */
static inline struct rdt_state *rc_st(const struct rdtalloc *r)
{
	return rdt_core_state(r);
}

static inline const struct rdt_machine *rc_m(const struct rdtalloc *r)
{
	return rdt_core_machine(r);
}

#define RC_PREFIX	"rdtalloc-"
#define RC_DIR_MAX	4096		/* top-level directories we look at */
#define RC_SMALL_MAX	(64 << 10)	/* schemata, cpus_list, info files */
#define RC_TASKS_MAX	(64 << 20)	/* a tasks file: a host's every thread id */
#define RC_ANCESTORS	64		/* PPid steps when attributing a forked child */
/* "DIR/mon_groups/NAME": a control group's name (64) and one of our group names */
#define RC_MON_DIR_MAX	(64 + sizeof("/mon_groups/") + RDTALLOC_NAME_MAX + 1)

struct rc_undo {
	enum { UNDO_RMDIR, UNDO_WRITE, UNDO_TASK, UNDO_MKDIR } op;
	char dir[RC_MON_DIR_MAX];	/* "" : the root group; or a MON group's */
	char file[16];
	char *text;			/* UNDO_WRITE: old content; UNDO_MKDIR: schemata */
	char *text2;			/* UNDO_MKDIR: cpus_list */
	pid_t tid;
	char mon[RDTALLOC_NAME_MAX + 1];	/* UNDO_TASK: then into dir's MON group */
};

struct rc_ctx {
	char root[PATH_MAX];
	/*
	 * Our control groups start with prefix: rdtalloc-ID- for a state with
	 * an id (then a group's name, or a number an earlier version gave),
	 * rdtalloc- for one made before ids (then only a number: rdtalloc-<n>,
	 * as anything else there may be another state's). Another state's are
	 * not ours.
	 */
	char prefix[32];
	bool numbered;			/* a state made before ids: rdtalloc-<n> */
	int lock_fd;			/* the root, flock'ed around every change; -1 */
	int fail_group;			/* the group the last check refused, -1: none */
	unsigned int lock_depth;
	const struct rdt_machine *m;
	unsigned int num_closids;	/* the smallest of the resources' */
	bool cdp[RDT_NALL];		/* as mounted */
	bool mba_mbps;			/* mounted with -o mba_MBps */
	struct rdt_state *before;	/* the state when this write call began */
	struct rc_undo *undo;
	size_t nundo, cap_undo;
	unsigned int changes;		/* kernel files written by the last realise */
	unsigned int moved;		/* of them, tasks moved */
	/* what the open repaired, reported by the first sync of this context */
	char open_what[448];
	unsigned int open_repairs, open_moved;
	unsigned int ours, foreign;	/* control groups after the last realise */
	char foreign_names[192];	/* " (a, b, ...)" of those not ours, for info */
	bool mon;			/* L3 monitoring: each group a MON group of its own */
	/* where each group's tasks go, as the last plan said, while r->st_gen is place_gen */
	char (*place_dir)[64];
	unsigned int place_n;
	uint64_t place_gen;
	bool place_ok;
	bool *mon_fresh;		/* [ngroups]: its MON group was made by this realise */
	/* strays noted since the last sync's report, and those it found left (resctrl_tasks.c) */
	struct rc_stray *strays, *said;
	size_t nstrays, cap_strays, nsaid;
	unsigned int strays_over;	/* noted beyond the cap: counted only */
	bool syncing;			/* in rc_sync: strays are noted, and moved back */
};

/* A task of a bound cgroup found in a control group not ours (resctrl_tasks.c). */
struct rc_stray {
	pid_t tid;
	int group;			/* the group its cgroup's binding puts it in */
	bool moved;			/* moved back: the binding enforces */
	char from[64];			/* the control group not ours */
	char cgroup[128];		/* the bound cgroup ("..." and its end when longer) */
};

/* The tasks of the control groups not ours, read once when first asked. */
struct rc_foreign {
	pid_t **tids;			/* [ndirs], sorted; NULL for ours */
	size_t *n;
	unsigned int ndirs;
	size_t total;
	bool read;
};

/* One top-level control group of the kernel's. */
struct rc_dir {
	char name[64];
	bool ours;			/* named with our prefix (resctrl_view.c) */
	uint64_t *key;			/* ours: its schemata in our key layout */
	bool key_ok;
	int cls;			/* the class it holds after the change; -1: none */
	int was;			/* the class of the state before it held; -1 */
	bool created, remove;
};

/* A class: our groups (ascending seq) with one key; classes by their oldest group. */
struct rc_class {
	const uint64_t *key;
	int *groups;
	unsigned int ngroups;
	int dir;			/* index into the dir list; -1: to be created */
};

struct rc_view {
	struct rc_dir *dirs;
	unsigned int ndirs, nours, nforeign;
	struct rc_class *cls;
	unsigned int ncls;
	int *cls_of;			/* [st->ngroups]: class of each group; -1 default */
	uint64_t *keys;			/* [ngroups][nkey] */
	size_t nkey;
};

static inline struct rc_ctx *ctx_of(struct rdtalloc *r)
{
	return rdt_core_backend_ctx(r);
}

/* dir/mon_groups/name: a MON group of control group dir ("": the root). */
static inline void mon_dir(const char *dir, const char *name, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s%smon_groups/%s", dir, *dir ? "/" : "", name) >= (int)len)
		buf[0] = '\0';	/* names are bounded: not reached */
}

/*
 * The MON group of group g in st: its name, where the machine monitors and
 * g holds an RMID of ours; "" for the default group (the root's own RMID)
 * and for a group without an RMID (counted with its control group).
 */
static inline const char *mon_of(struct rdtalloc *r, const struct rdt_state *st, int g)
{
	return ctx_of(r)->mon && g > 0 && rdt_mon_group_rmid(st, g) > 0 ? st->groups[g].name : "";
}

/* The MON groups the kernel has in one control group: names, as read. */
struct rc_mons {
	char **names;
	size_t n;
};

/* ---- What the parts share (each defined in the file that says so) ---- */

int rc_adopt_root(struct rdtalloc *r, bool *adopted);
bool rc_any_fresh(struct rdtalloc *r);
int rc_attribute(struct rdtalloc *r, const struct rdt_state *st, const struct rc_view *v,
		     int k, pid_t tid);
int rc_bound_group(struct rdtalloc *r, const struct rdt_state *st, pid_t tid);
int rc_class_cpus(struct rdtalloc *r, const struct rc_view *v, int k, char **out);
int rc_class_in(const struct rdt_state *st, const struct rc_view *v,
		    const struct rdt_state *other, int og);
int rc_class_number(struct rdtalloc *r, const struct rc_view *v, int g, unsigned int *n);
bool rc_created_any(const struct rc_view *v);
void rc_describe_done(const struct rc_ctx *c, char *buf, size_t len);
const char *rc_dir_name(const struct rc_view *v, int k);
int rc_dir_name_for(const struct rc_ctx *c, const struct rdt_state *st, const struct rc_view *v,
		    int k, char *name, size_t len);
int rc_dir_named(const struct rc_view *v, const char *name);
void rc_dir_name_try(const struct rc_ctx *c, const struct rdt_state *st, const struct rc_view *v,
		     int k, unsigned int n, char *name, size_t len);
int rc_dir_with_key(const struct rc_view *v, const uint64_t *key);
int rc_drop_moved(struct rdtalloc *r, unsigned int *moved, char *where, size_t len);
int rc_find_strays(struct rdtalloc *r, unsigned int *enforced);
int rc_foreign_of(struct rdtalloc *r, const struct rc_view *v, struct rc_foreign *f, pid_t tid,
		  const char **from);
void rc_foreign_free(struct rc_foreign *f);
void rc_say_strays(struct rdtalloc *r, char *what, size_t len, unsigned int *left,
		   unsigned int *moved);
int rc_stray_note(struct rdtalloc *r, pid_t tid, const struct rdt_cgroup *b, const char *from,
		  bool moved);
void rc_strays_free(struct rc_ctx *c);
char *rc_format_schemata(const struct rdt_state *st, const uint64_t *key);
void rc_group_key(const struct rdt_state *st, int g, uint64_t *key);
size_t rc_key_len(const struct rdt_state *st);
void rc_last_status(const struct rc_ctx *c, char *buf, size_t len);
int rc_list_dirs(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v);
int rc_list_mons(struct rdtalloc *r, const char *dir, struct rc_mons *out);
bool rc_listed(const pid_t *v, size_t n, pid_t tid);
int rc_make_classes(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v);
bool rc_mon_fresh(struct rdtalloc *r, int g);
void rc_mons_free(struct rc_mons *m, unsigned int n);
bool rc_mons_has(const struct rc_mons *m, const char *name);
int rc_move_bound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		      const struct rc_view *bv, const char **was_dir);
int rc_move_cgroups(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before);
int rc_move_unbound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
			const struct rc_view *bv, unsigned int d);
void rc_names_not_ours(const struct rc_view *v, char *buf, size_t len);
int rc_new_dir(struct rdtalloc *r, struct rc_view *v, int k);
int rc_parse_schemata(const struct rdt_state *st, char *text, uint64_t *key);
int rc_parse_schemata_seen(const struct rdt_state *st, char *text, uint64_t *key,
			       bool *slot_seen);
int rc_plan(struct rdtalloc *r, const struct rdt_state *st, const struct rdt_state *before,
		struct rc_view *v, struct rc_view *bv);
void rc_abort(struct rdtalloc *r, bool committed);
int rc_begin(struct rdtalloc *r, bool write);
int rc_bind_task(struct rdtalloc *r, int g, pid_t tid, uint64_t start);
int rc_carry_tasks(struct rdtalloc *r, const struct rdt_state *old);
int rc_check(struct rdtalloc *r, const struct rdt_state *st, int *group);
void rc_close_ops(struct rdtalloc *r);
int rc_closids(struct rdtalloc *r, int res, int dom, struct rdtalloc_closid_info *out,
		      size_t max);
int rc_commit(struct rdtalloc *r);
int rc_drift(struct rdtalloc *r, int (*cb)(const char *group, const char *what, void *arg),
		    void *arg);
int rc_effective_closid(struct rdtalloc *r, int cpu, pid_t tid, bool stale,
			       unsigned int *closid);
void rc_finish(struct rdtalloc *r);
int rc_group_closid(struct rdtalloc *r, int g, unsigned int adom, unsigned int *closid);
int rc_group_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n);
int rc_lock(struct rdtalloc *r);
/* resctrl_caps.c: bit_usage and io_alloc (backend.h's ways, io_alloc); io_alloc is on. */
int rc_ways(struct rdtalloc *r, enum rdt_res res, unsigned int dom,
	    struct rdtalloc_ways_info *w);
int rc_io_alloc(struct rdtalloc *r, int on, const uint64_t *mask, const bool *have);
bool rc_io_alloc_on(const struct rc_ctx *c);
int rc_machine_desc(const struct rdt_backend_env *env, const char *given, char **desc,
			   char *err, size_t len);
int rc_mon_read(struct rdtalloc *r, const int *gs, unsigned int n, int *state,
		       uint64_t *val);
unsigned int rc_mon_reserved(void *ctx);
/*
 * SNC's per-node files and PERF_PKG's (backend.h's mon_read_nodes, pkg_read;
 * resctrl_mon.c), a value file parsed (monitor/telemetry.h's rules), and
 * what the mount says of them (resctrl_caps.c).
 */
struct rdt_nodes;
int rc_mon_read_nodes(struct rdtalloc *r, const int *gs, unsigned int n, struct rdt_nodes *nodes);
int rc_pkg_read(struct rdtalloc *r, const int *gs, unsigned int n, int *state, uint64_t *val);
/*
 * A value file the kernel wrote: "Unavailable\n", "Error\n", "Unassigned\n"
 * (their RDTALLOC_MON_* states), or a number and "\n" into *v: an integer,
 * or with fixed a decimal with up to 6 places (print_event_value()'s fixed
 * point), in millionths, further places cut off. -EINVAL for anything else,
 * an integer part that does not fit included.
 */
int rc_parse_value(const char *text, bool fixed, uint64_t *v);
unsigned int rc_snc_nodes(const char *root);
size_t rc_describe_pkg(const char *root, char *out, size_t len);
bool rc_recorded_before(const char *given, const char *key);
int rc_mon_cntrs(struct rdtalloc *r, int *mode, unsigned int *total, unsigned int *free_cntrs);
int rc_mon_assign(struct rdtalloc *r, int g, bool on, bool *got);
int rc_mon_reclaim(struct rdtalloc *r);
int rc_moved_tasks(struct rdtalloc *r, struct rdt_moved **out, size_t *n);
int rc_open(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		   char *err, size_t len);
int rc_open_ops(struct rdtalloc *r);
int rc_place_tasks(struct rdtalloc *r, const pid_t *tids, size_t n, unsigned int *moved);
int rc_sim_switch_allowed(struct rdtalloc *r);
int rc_sync(struct rdtalloc *r, bool full, struct rdt_sync_out *out);
int rc_task_group(struct rdtalloc *r, pid_t tid, uint64_t start, int *g);
int rc_tasks_allowed(struct rdtalloc *r);
void rc_unlock(struct rdtalloc *r);
int rc_usable(const struct rdt_backend_env *env, char *reason, size_t len);
int rc_read_all(const char *path, size_t max, char **out, size_t *outlen);
int rc_read_small(struct rdtalloc *r, const char *dir, const char *file, char **out);
int rc_read_tasks(struct rdtalloc *r, const char *dir, pid_t **out, size_t *n);
int rc_realise(struct rdtalloc *r, const struct rdt_state *before);
void rc_rel_path(const struct rc_ctx *c, const char *dir, const char *file, char *buf,
		     size_t len);
int rc_remove_dir(struct rdtalloc *r, struct rc_view *v, unsigned int d);
bool rc_same_cpus(const char *a, const char *b);
char *rc_schemata_line(char *line, const struct rdt_machine *m, enum rdt_res *res,
			   int *half);
void rc_trim(char *s);
void rc_undo_free(struct rc_ctx *c);
int rc_undo_push(struct rc_ctx *c, const struct rc_undo *u);
void rc_undo_replay(struct rdtalloc *r);
int rc_view_current(struct rdtalloc *r, struct rc_view *v);
void rc_view_free(struct rc_view *v);
int rc_write_file(struct rdtalloc *r, const char *dir, const char *file, const char *text);
/* One write(2) of text to path (a file of resctrl's): 0 or -errno, no message; *opened. */
int rc_write_once(const char *path, const char *text, bool *opened);
int rc_write_logged(struct rdtalloc *r, const char *dir, const char *file, const char *text,
			bool (*same)(const char *a, const char *b));
int rc_write_modes(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		       const struct rc_view *bv, bool on);
int rc_write_schemata(struct rdtalloc *r, const char *dir, const uint64_t *key,
			  const uint64_t *cur);

#endif
