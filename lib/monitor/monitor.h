/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor: L3 monitoring (CMT, MBM) per group. Owns the RMIDs of a state
 * (who holds which, which freed ones still hold lines: limbo), the
 * simulator's model of the cache and the memory bus that produces its
 * counters, the running totals that fold the counters' wraps in (a file of
 * their own beside the state), and the public rdtalloc_mon_* calls.
 *
 * RMIDs are the machine's, one table for every L3 domain (as PQR_ASSOC
 * holds one RMID for all of them). RMID 0 is the default group's; every
 * other group gets the lowest free RMID that is not in limbo, in creation
 * order, at the end of each call that changed the state; a group that finds
 * none runs with RMID 0 and is reported unmonitored. docs/monitoring.md.
 */
#ifndef RDT_MONITOR_H
#define RDT_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "hw/engine.h"

struct rdtalloc;

/* A group's workload on the simulator, in one L3 domain. */
struct rdt_load {
	uint64_t seq;		/* the group's sequence number */
	unsigned int dom;	/* L3 domain index */
	uint64_t footprint;	/* bytes */
	uint64_t rate;		/* bytes accessed per second */
	unsigned int local_pct;
	int fault;		/* RDTALLOC_MON_* its counters read as; 0: normal */
};

/* Bound: a workload per group and domain, at most this many in a state. */
#define RDT_LOADS_MAX 65536u

/*
 * Counter turns' settings (rotation.c), kept in the state's "monitoring" as
 * "rotation" (absent: the defaults, no pins).
 */
struct rdt_rot_cfg {
	unsigned int period_ms;	/* a turn; 0: RDT_ROT_PERIOD_MS */
	unsigned int counters;	/* the most counters per domain turns use; 0: all free */
	uint64_t *pinned;	/* seqs of the pinned groups */
	unsigned int npinned;
};

struct rdt_mon_state {
	struct rdt_rot_cfg rot;
	unsigned int nrmids, ndom;	/* 0 RMIDs: no monitoring, nothing below */
	int64_t *owner;		/* [nrmids] seq of the group holding it, -1 free */
	uint64_t *limbo;	/* [nrmids * ndom] bytes a freed RMID still holds, as of t0 */
	bool *in_limbo;		/* [nrmids] some domain's limbo bytes above the threshold */
	uint64_t *occ;		/* [nrmids * ndom] occupancy as of t0 (not saved) */
	uint64_t t0;		/* CLOCK_REALTIME ns; the sim's totals are as of then */
	uint64_t *total;	/* [nrmids * ndom] sim: bytes of traffic by t0 */
	uint64_t *local;
	uint64_t *kept;		/* [nrmids * ndom] sim: bytes the last replay left in the
				 * cache, read where no workload runs (counter_model.c) */
	struct rdt_load *load;
	unsigned int nload;
	/*
	 * Not saved, rebuilt in one pass when missing: the group index of each
	 * RMID's owner (-1: none), so that a call finds whether an owner is
	 * gone without looking groups up; how many groups waited for an RMID
	 * after the last settle, and the state's next_seq then (a group made
	 * since may wait too). A call that frees no RMID and makes no group
	 * walks no groups.
	 */
	int *owner_g;
	bool owner_g_ok;
	unsigned int nwaiting;
	uint64_t seen_next_seq;
	/*
	 * Also not saved: the live groups at the last settle (a group deleted
	 * since shows as fewer than the groups made since, and only then are
	 * the owners checked), the count of RMIDs below nfree_limit that are
	 * free and out of limbo (nfree_ok false: count again), and where the
	 * next bounded limbo read on hardware starts.
	 */
	unsigned int seen_nlive;
	unsigned int nfree, nfree_limit;
	bool nfree_ok;
	unsigned int limbo_cursor;
	bool occ_is_kept;	/* occ[] is a copy of kept[]: no workload moved it since */
};

/*
 * The MBM correction factor of a part with the erratum (machine
 * mon.mbm_cf=1: Broadwell-EP, Skylake-SP past stepping 4) with rmids RMIDs:
 * true with the threshold (RMIDs above it are corrected) and the factor in
 * fixed point x 2^20; false when its row has none (or a factor of 1).
 * rdt_mbm_correct: count x factor, as the kernel rounds it (mbm_cf.c).
 */
bool rdt_mbm_cf(unsigned int rmids, unsigned int *threshold, uint32_t *cf);
uint64_t rdt_mbm_correct(uint64_t count, uint32_t cf);

/*
 * Monitoring's part of a state (hw/section.h): made, copied, freed, saved
 * ("monitoring") and loaded (absent: a state from before monitoring) by the
 * engine and lib/state.c through this description, which knows nothing of
 * its insides.
 */
extern const struct rdt_section rdt_mon_section;

static inline struct rdt_mon_state *rdt_mon(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_mon_section);
}

/*
 * A write call begins: bring the simulated counters and the limbo up to
 * now under the state as it is (sim: the model; elsewhere the hardware's
 * occupancy, read by the backend), so that the change to come counts from
 * here on.
 */
void rdt_mon_advance(struct rdtalloc *r);
/*
 * A write call changed the state: RMIDs of removed groups go to limbo (or
 * are free at once when they hold nothing), groups without one get one.
 */
void rdt_mon_settle(struct rdtalloc *r);

/*
 * A replay (rdtalloc_sim_replay, RDTALLOC_REPLAY_COUNT) ran in domain d:
 * group gs[i] made misses[i] misses and holds occ[i] bytes at its end.
 * Their traffic grows by the missed lines, and the domain's cache holds
 * what the replay left (it started empty). Within a write call.
 */
#define RDT_LINE_BYTES 64u	/* a missed line is this much memory traffic */
void rdt_mon_replayed(struct rdtalloc *r, unsigned int d, size_t n, const int *gs,
		      const uint64_t *misses, const uint64_t *occ);

/* The RMID of group g: 0 for the default group, -1 unmonitored. */
int rdt_mon_group_rmid(const struct rdt_state *st, int g);

/* ---- Counter turns (rotation.c; docs/monitoring.md "Counters shared in turns") ---- */

#define RDT_ROT_PERIOD_MS 1000u
#define RDT_ROT_PERIOD_MIN 100u
#define RDT_ROT_PERIOD_MAX 3600000u
#define RDT_ROT_COUNTERS_MAX 4096u

/* The settings' part of the state file: copied, freed, saved into o, loaded from o. */
int rdt_rot_cfg_copy(struct rdt_rot_cfg *to, const struct rdt_rot_cfg *from);
void rdt_rot_cfg_free(struct rdt_rot_cfg *cfg);
void rdt_rot_cfg_save(const struct rdt_state *st, const struct rdt_rot_cfg *cfg, json_object *o);
int rdt_rot_cfg_load(const struct rdt_state *st, struct rdt_rot_cfg *cfg, json_object *o,
		     const char *path, char *err, size_t len);
bool rdt_rot_is_pinned(const struct rdt_rot_cfg *cfg, uint64_t seq);
unsigned int rdt_rot_period_ms(const struct rdt_rot_cfg *cfg);

/*
 * One turn's choice, pure: n candidates (our groups in creation order, seq
 * ascending), pinned[i], room for cap groups at a time; *cursor is the seq
 * the turns' window starts at (the first candidate at or after it, round).
 * advance: the turn is over, the window moves past its end. want[i]: group
 * i holds counters for the coming turn. Returns how many rotate (0: every
 * group fits).
 */
unsigned int rdt_rot_plan(const uint64_t *seq, const bool *pinned, unsigned int n,
			  unsigned int cap, bool advance, uint64_t *cursor, bool *want);

/* The machine's counter assignment now (enum rdtalloc_mon_assign_mode and counts). */
struct rdt_cntrs {
	int mode;
	unsigned int total, free, events;
};
/* The running totals' map holds the turns' own record under "@rotation". */
int rdt_rot_cntrs(struct rdtalloc *r, json_object *map, struct rdt_cntrs *c);
/* The simulator in mbm_event mode: does RMID rm's group (seq) hold counters? */
bool rdt_rot_sim_counted(struct rdtalloc *r, json_object *map, unsigned int rm, uint64_t seq);
/* The simulator: give (on) or take back group seq's counters; *got: it holds them. */
int rdt_rot_sim_assign(struct rdtalloc *r, json_object *map, uint64_t seq, bool on, bool *got);

/*
 * A turn as a read call (api.c) lets it happen: its n candidates (our
 * groups but the default, in creation order) by seq and pin, the settings,
 * and what it does through callbacks - cntrs: the machine's counters now;
 * reclaim (may be NULL): give back counters ours hold but none reads;
 * read: read candidates idx[k] now into the running totals (baseline: their
 * counters were just given, the reading starts their count), held[j]: the
 * j-th of them is counted in some domain; assign: give (on) or take back
 * candidate i's counters, *got: it holds them now.
 */
struct rdt_rot_io {
	struct rdtalloc *r;
	json_object *map;
	unsigned int n;
	const uint64_t *seq;
	const bool *pinned;
	unsigned int period_ms, counters;
	int (*cntrs)(struct rdt_rot_io *io, struct rdt_cntrs *c);
	int (*reclaim)(struct rdt_rot_io *io);
	int (*read)(struct rdt_rot_io *io, const unsigned int *idx, unsigned int k, bool baseline,
		    bool *held);
	int (*assign)(struct rdt_rot_io *io, unsigned int i, bool on, bool *got);
	void *arg;
};
/* After a read: move the counters on when the turn is over (mbm_event mode only). */
int rdt_rot_turn(struct rdt_rot_io *io, uint64_t now);

/* 0, or -EOPNOTSUPP with a message: the machine has no L3 monitoring (api.c). */
int rdt_mon_need(struct rdtalloc *r);
/* fn(r, the running totals' map, arg) under their lock (api.c). */
int rdt_mon_with_map(struct rdtalloc *r, int (*fn)(struct rdtalloc *r, json_object *map, void *arg),
		     void *arg);

/* ---- The simulator's model (counter_model.c) ---- */

/* Per RMID of one domain: bytes in the cache, bytes/s of memory traffic. */
struct rdt_mon_rates {
	double occ, total, local;
	int fault;
};

/*
 * The model's steady state in L3 domain d: out[nrmids], every RMID's
 * occupancy and traffic from the workloads of the groups that count with
 * it. Returns the domain's memory traffic (bytes/s), or -1 out of memory.
 */
double rdt_mon_model(const struct rdt_state *st, unsigned int d, struct rdt_mon_rates *out);
/* The cache's size the model takes for domain d (bytes). */
uint64_t rdt_mon_cache_size(const struct rdt_state *st, unsigned int d);

#endif
