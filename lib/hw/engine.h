/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine: the hardware model. Groups and their masks, the CLOSID table of
 * every allocation domain (sharing, reference counts, freeing), task and CPU
 * membership, the precedence rule, and the register image with minimal
 * writes. Knows nothing of files, processes or text: callers hand it parsed
 * masks and checked task ids.
 *
 * Allocation domains: PQR_ASSOC holds one CLOSID for every resource, so a
 * CLOSID must mean the same group in the L3 and in the L2 domains of a CPU.
 * A CLOSID table therefore belongs to an allocation domain: an L3 domain
 * (with the L2 domains inside it) when L3 allocation exists, else an L2
 * domain. Its key is the masks of every resource domain in it; with L3 only
 * (the usual case) that is one mask per table, exactly the model of the 2016
 * resctrl patch set (then named rscctrl).
 */
#ifndef RDT_ENGINE_H
#define RDT_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw/section.h"
#include "machine.h"
#include "maps.h"

#define RDT_NAME_LEN 64		/* RDTALLOC_NAME_MAX + 1 */

/*
 * What a state may hold, fixed when it is created: groups (the default one
 * included) and bound tasks; the defaults, and the most either may be set
 * to. They bound the state file too (about 250 bytes a group, 40 a task).
 */
#define RDT_GROUPS_DEFAULT 16384u
#define RDT_GROUPS_LIMIT 262144u
#define RDT_TASKS_DEFAULT 1048576u
#define RDT_TASKS_LIMIT 4194304u	/* the kernel's largest pid_max */
#define RDT_ERR_LEN 256

/* One resource domain (an L3 or L2 cache), numbered globally. */
struct rdt_slot {
	enum rdt_res res;
	unsigned int dom;	/* index into m->dom[res] */
	unsigned int adom;	/* allocation domain it belongs to */
	unsigned int pos;	/* its position within the allocation domain's key */
};

struct rdt_adom {
	unsigned int nslots;
	unsigned int *slots;	/* global slot numbers; slots[0] is the owner domain */
	unsigned int ncpus;
	int *cpus;
	unsigned int nclos;	/* usable CLOSIDs now (CDP halves them) */
	unsigned int inuse;
	unsigned int *refcount;	/* [hw CLOSIDs] 0: free */
	uint64_t *key;		/* [hw CLOSIDs][nslots][2]: data, code */
};

struct rdt_group {
	char name[RDT_NAME_LEN];
	bool live;
	uint64_t seq;		/* creation order */
	uint64_t *mask;		/* [nslots][2]: data, code */
	unsigned int *closid;	/* [nadom] */
	unsigned int ntasks;
	unsigned int ncpus;
	/*
	 * Exclusive: no other group's mask may overlap this group's, in any
	 * cache domain (data and code halves alike). forced: it may hold
	 * shareable ways all the same.
	 */
	bool exclusive, forced;
	unsigned int rmid;	/* its RMID; 0 (but for the default group): none */
	/*
	 * Who made it, and who set its mask in each cache domain: indexes
	 * into the state's owners (0: unknown - a state from before owners).
	 * The default group is nobody's.
	 */
	unsigned int owner;
	unsigned int *mask_owner;	/* [nslots] */
};

/*
 * A cgroup (v2) bound to a group: every task in it or below it that has no
 * binding of its own runs in the group; the deepest bound cgroup wins.
 */
#define RDT_CGROUPS_MAX 4096		/* bindings a state may hold */
#define RDT_CGROUP_PATH_MAX 4096	/* bytes of a path, NUL included */

struct rdt_cgroup {
	char *path;		/* relative to the cgroup2 mount: "a/b", never "" */
	uint64_t id;		/* the kernel's cgroup id (its directory's inode) */
	int group;		/* never 0 */
	unsigned int owner;	/* who bound it (the state's owners; 0: unknown) */
	bool enforce;		/* a task of it in another tool's control group is moved back */
};

/* Register image as last written (the simulator's registers, or the
 * shadow of the hardware's). */
struct rdt_regs {
	unsigned int nregs;	/* mask registers per slot: hw CLOSIDs */
	uint64_t *mask;		/* [nslots][nregs] */
	bool *cfg;		/* [nslots] QOS_CFG bit 0 (CDP on) */
	unsigned int *pqr;	/* [ncpus] CLOSID field of PQR_ASSOC */
	pid_t *cur;		/* [ncpus] task last switched in, 0: none */
	uint64_t mask_writes;
	uint64_t pqr_writes;
	uint64_t cfg_writes;
	/*
	 * What the register file read back as after the last call that wrote it
	 * (the backend's digest), 0: not known. An open that reads back the same
	 * finds nothing changed behind our back and rewrites nothing.
	 */
	uint64_t digest;
};

/* Where register writes go besides the image (real hardware); NULL: none. */
struct rdt_sink {
	void *ctx;
	int (*write_mask)(void *ctx, enum rdt_res res, unsigned int dom, unsigned int reg,
			  uint64_t val);
	int (*write_cfg)(void *ctx, enum rdt_res res, unsigned int dom, bool on);
	int (*write_pqr)(void *ctx, int cpu, unsigned int closid);
	/* Optional: the CLOSID and the RMID fields at once (the switch hook's agent). */
	int (*write_assoc)(void *ctx, int cpu, unsigned int closid, unsigned int rmid);
	/* Why the last write failed, naming CPU and MSR; NULL callback or "": no detail. */
	const char *(*last_error)(const void *ctx);
};

/*
 * Which group wins on a CPU bound to a group while a task of another group
 * runs there. The values are the API's RDTALLOC_PRECEDENCE_*.
 */
enum rdt_precedence {
	RDT_PREC_CPU = 1,	/* the CPU's group, else the task's (the 2016 patch set's rule) */
	RDT_PREC_TASK = 2,	/* the task's non-default group, else the CPU's (resctrl's) */
};

/*
 * The largest sequence number and write counter a state holds: far beyond
 * what a machine reaches (2^62 microseconds, 2^62 writes), and still
 * incremented and written back as a JSON int64 without overflow.
 */
#define RDT_SEQ_MAX (1ull << 62)
#define RDT_COUNTER_MAX (1ull << 62)

/* A state's id: 8 lowercase hex digits, chosen at creation; "" in older states. */
#define RDT_STATE_ID_LEN 8

struct rdt_state {
	const struct rdt_machine *m;	/* not owned */
	/*
	 * Names what this state owns outside its file, where the owner must be
	 * told from other states' (resctrl control groups: rdtalloc-ID-...).
	 */
	char id[RDT_STATE_ID_LEN + 1];
	enum rdt_precedence precedence;	/* fixed when the state is created */
	unsigned int max_groups;	/* so are these: RDT_GROUPS_DEFAULT, ... */
	unsigned int max_tasks;
	unsigned int nslots;
	struct rdt_slot *slot;
	unsigned int *slot_of[RDT_NALL];	/* [ndom] -> global slot */
	unsigned int nadom;
	struct rdt_adom *adom;
	unsigned int *cpu_adom;		/* [ncpus]; UINT_MAX when the CPU is absent */
	bool cdp[RDT_NALL];			/* MB: always false */
	/* CLOSIDs at the top kept from every group (io_alloc's, lib/api/ways.c): 0 or 1 */
	unsigned int reserved_top;

	unsigned int ngroups;		/* slots used in groups[], live or not */
	unsigned int cap_groups;
	struct rdt_group *groups;	/* [0] is the default group */
	unsigned int nlive;
	uint64_t next_seq;
	int *free_groups;		/* stack of dead group slots */
	unsigned int nfree_groups;
	struct rdt_name_map names;

	int *cpu_group;			/* [ncpus]; -1: not bound (default) */
	unsigned int *cpu_owner;	/* [ncpus] who bound it (0: unknown, or not bound) */
	struct rdt_task_map tasks;	/* explicitly bound tasks (never default) */
	unsigned int ncgroups;
	struct rdt_cgroup *cgroups;	/* bound cgroups, ascending by path */
	/*
	 * The live exclusive groups, unordered: a schema change of a group
	 * that is not exclusive is checked against these alone, so its cost
	 * does not grow with the number of groups. Changed only through
	 * rdt_group_mark_exclusive() (and rdt_group_del, rdt_reset).
	 */
	int *excl;
	unsigned int nexcl, cap_excl;

	struct rdt_regs regs;
	/*
	 * Owners (hw/owners.c): every group, group mask, and binding of a
	 * task, CPU or cgroup records who made it as an index into owners[]
	 * ("KIND:NAME" strings; [0] is unused: 0 means unknown). writer is who
	 * changes the state in the current call (NULL: the library's own
	 * housekeeping - nothing is checked, nothing recorded); a change of
	 * what another owner made is refused (-EBUSY) unless force, which
	 * hands it to the writer. A copy of a state has no writer.
	 */
	char **owners;
	unsigned int nowners, cap_owners;
	const char *writer;
	unsigned int writer_idx;	/* owners[] index of writer, 0: not interned yet */
	bool force;
	/*
	 * The modules' parts (hw/section.h), one per section of sections[]
	 * (NULL-terminated; NULL: none), the table the context handed
	 * rdt_state_new() - the engine names no module - in that order; what
	 * they are is theirs alone. unknown: the members
	 * of the state file read that no section of this version knows, kept
	 * to be written back as they were (NULL: none).
	 */
	const struct rdt_section *const *sections;
	void *parts[RDT_SECTIONS_MAX];
	json_object *unknown;
	const struct rdt_sink *sink;
	char err[RDT_ERR_LEN];		/* why the last engine call failed */
};

/* ---- Owners (hw/owners.c) ---------------------------------------------- */

/* The longest owner text, NUL excluded: KIND:NAME, printable, no spaces. */
#define RDT_OWNER_MAX 128

/* Is s an owner's text? 0, or -EINVAL with why (naming what is wrong). */
int rdt_owner_check(const char *s, char *why, size_t len);
/* The owner recorded as o; NULL when unknown. */
const char *rdt_owner_name(const struct rdt_state *st, unsigned int o);
/* o for the text name (added when new); -ENOMEM. */
int rdt_owner_intern(struct rdt_state *st, const char *name, unsigned int *o);
/* The writer's index (interned now when needed); 0 with no writer. -ENOMEM. */
int rdt_owner_writer(struct rdt_state *st, unsigned int *w);
/*
 * May the writer change what o owns? 0 (no writer, o unknown or the
 * writer's, both administrators (rdt_owner_admin), or force), else -EBUSY
 * with st->err: "<what>: <its part> is <owner described>; --force takes it
 * back". Where it may, the change hands the object to the writer.
 */
int rdt_owner_may(struct rdt_state *st, unsigned int o, const char *what, const char *part);
/*
 * Is owner an administrator's - a person's (user:) or a configuration's
 * (config:)? Between those a change takes over; what the OCI hook and the
 * controller made (oci:, control:) only a forced change may.
 */
bool rdt_owner_admin(const char *owner);
/* Owner text described for a person: "the controller's (domain 0)", "configuration web's". */
void rdt_owner_describe(const char *owner, char *buf, size_t len);
/* Copy src's owners into st (a fresh clone); free st's. */
int rdt_owners_copy(struct rdt_state *st, const struct rdt_state *src);
void rdt_owners_free(struct rdt_state *st);
/*
 * Lookups for modules (the controller polls them to learn that a group
 * was taken from it): the owner of group g, and of its mask in slot s
 * (a resource domain: st->slot_of[res][dom]); NULL when unknown.
 */
const char *rdt_group_owner(const struct rdt_state *st, int g);
const char *rdt_group_mask_owner(const struct rdt_state *st, int g, unsigned int s);
/*
 * The library's own housekeeping inside a call (bindings of removed
 * cgroups dropped): no writer until rdt_owner_resume(st, saved).
 */
static inline const char *rdt_owner_suspend(struct rdt_state *st)
{
	const char *w = st->writer;

	st->writer = NULL;
	return w;
}

static inline void rdt_owner_resume(struct rdt_state *st, const char *w)
{
	st->writer = w;
}

/* A module's part of st (hw/section.h); NULL when sec is not a section of this version. */
static inline void *rdt_state_part(const struct rdt_state *st, const struct rdt_section *sec)
{
	unsigned int i;

	for (i = 0; st->sections && st->sections[i]; i++)
		if (st->sections[i] == sec)
			return st->parts[i];
	return NULL;
}

/*
 * A new state for machine m: default group only, all-ones, registers at
 * their reset values; one part per section of sections (NULL-terminated,
 * at most RDT_SECTIONS_MAX; NULL: none), which its copies share.
 */
int rdt_state_new(const struct rdt_machine *m, const struct rdt_section *const *sections,
		  struct rdt_state **out);
void rdt_state_free(struct rdt_state *st);
int rdt_state_clone(const struct rdt_state *st, struct rdt_state **out);

/* Group index by name (NULL, "" and "default" are 0), or -1. */
int rdt_group_find(const struct rdt_state *st, const char *name);
/* The live group whose sequence number is seq, or -1. */
int rdt_group_by_seq(const struct rdt_state *st, uint64_t seq);

/* Each returns 0 or a negative errno with st->err set. Nothing changes on failure. */
int rdt_group_add(struct rdt_state *st, const char *name, int *idx);
/* Add a group with all-ones masks and no CLOSID accounting (loading a
 * state): rdt_state_rebuild() must follow. */
int rdt_group_load(struct rdt_state *st, const char *name, int *idx);
int rdt_group_del(struct rdt_state *st, int g);

/*
 * Give group g new masks: want[slot*2 + 0/1] (data, code) for every slot
 * where set[slot] is true. All or nothing: -ENOSPC names the domain.
 */
int rdt_group_set_masks(struct rdt_state *st, int g, const uint64_t *want, const bool *set);
/*
 * Make group g exclusive (forced: also on shareable ways) or shareable.
 * -EINVAL (st->err names the domain, the other group and the bits) when its
 * masks overlap another group's, or use shareable ways unforced.
 */
int rdt_group_set_exclusive(struct rdt_state *st, int g, bool exclusive, bool forced);
/* Set g's mode without the overlap checks (loading a state, apply's staging). */
int rdt_group_mark_exclusive(struct rdt_state *st, int g, bool exclusive, bool forced);
/*
 * A new group's masks where exclusive groups hold ways: in each cache
 * domain the ways no exclusive group holds (the lowest contiguous run of
 * them unless sparse masks are allowed). -ENOSPC when a domain has none.
 */
int rdt_group_fit_exclusive(struct rdt_state *st, int g);

int rdt_bind_cpu(struct rdt_state *st, int g, int cpu);
/* start: the task's start time (0 for virtual tasks). */
int rdt_bind_task(struct rdt_state *st, int g, pid_t tid, uint64_t start);
/*
 * Bind cgroup path (relative, normalised; id: its cgroup id) to group g;
 * g 0 removes the binding. -ENOSPC past RDT_CGROUPS_MAX.
 */
int rdt_bind_cgroup(struct rdt_state *st, int g, const char *path, uint64_t id);
/* The policy of path's binding (which must exist): a change is the binding's owner's to make. */
int rdt_cgroup_set_enforce(struct rdt_state *st, const char *path, bool enforce);
/* The binding of exactly this path, or NULL. */
const struct rdt_cgroup *rdt_cgroup_find(const struct rdt_state *st, const char *path);
/*
 * The group a task in cgroup path (relative, "" the root) gets through its
 * cgroup: the deepest bound cgroup that is path or one of its ancestors; 0
 * when none is.
 */
int rdt_cgroup_group(const struct rdt_state *st, const char *path);

/* Forget a task's binding (it exited): no register is touched until the next switch. */
void rdt_forget_task(struct rdt_state *st, pid_t tid);

/* The group in force on cpu for a task of group task_group (0: default), by st->precedence. */
int rdt_precedence_group(const struct rdt_state *st, int cpu, int task_group);
/* Group in force on cpu for task tid (st->precedence), and its CLOSID there. */
int rdt_effective_group(const struct rdt_state *st, int cpu, pid_t tid);
unsigned int rdt_effective_closid(const struct rdt_state *st, int cpu, pid_t tid);

/* A context switch of tid onto cpu: PQR_ASSOC written only when it changes. */
int rdt_switch(struct rdt_state *st, int cpu, pid_t tid, unsigned int *closid, bool *written);
/* The same for a task whose group the caller resolved (through its cgroup). */
int rdt_switch_group(struct rdt_state *st, int cpu, pid_t tid, int task_group,
		     unsigned int *closid, bool *written);

int rdt_set_cdp(struct rdt_state *st, enum rdt_res res, bool on);
/*
 * Keep the n highest usable CLOSIDs of every allocation domain from groups
 * (n 0: give them back). -EBUSY when a group holds one: *closid and *group
 * say which (in allocation domain 0 first).
 */
int rdt_reserve_top(struct rdt_state *st, unsigned int n, unsigned int *closid, int *group);
/* Everything back to the boot state: default only, all-ones, CDP off, CLOSID 0 everywhere. */
int rdt_reset(struct rdt_state *st);

/*
 * Recompute refcounts and keys from the groups and rewrite the registers
 * that disagree with them (used after loading a state). -EINVAL when the
 * groups' CLOSIDs are inconsistent (two keys on one CLOSID, out of range).
 */
int rdt_state_rebuild(struct rdt_state *st);

#endif
