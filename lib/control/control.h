/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control: the closed-loop controller (docs/control.md). Owns the decision
 * engine (decide.c: a layout of the ways per group, moves tried one at a
 * time, measured against what they replaced, kept or rolled back), the
 * simulated run in time (simrun.c: phases of traces through one domain's
 * cache model, interval by interval, never flushed) and the live loop
 * with its part of the state (live.c: the configuration an agent or
 * `rdtctl control run` uses, and the layout in force, in the state file's
 * member "control").
 *
 * The engine sees only what a production host gives per group and
 * interval: accesses and misses (perf's LLC references and misses; on the
 * simulator the interval's own), memory traffic (MBM) and occupancy. It
 * never reads a trace.
 */
#ifndef RDT_CONTROL_H
#define RDT_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RDT_CTL_MAX 64			/* groups one controller changes */
#define RDT_CTL_NAME_LEN 64		/* RDTALLOC_NAME_MAX + 1 */

/* What a group does with the ways the controller may use (docs/control.md). */
enum rdt_ctl_kind {
	RDT_CTL_SHARED,			/* every way not reserved */
	RDT_CTL_CONFINED,		/* fills only the lowest w of them (a pool) */
	RDT_CTL_RESERVED,		/* a block of w ways of its own, at the top */
};

struct rdt_ctl_layout {
	unsigned char kind[RDT_CTL_MAX];
	unsigned char w[RDT_CTL_MAX];
};

/* A group's goals. */
struct rdt_ctl_goal {
	double bound_ratio;		/* misses / accesses at most; 0: none */
	uint64_t bound_bytes;		/* memory traffic per interval at most; 0: none */
	bool exclusive;			/* always a block of its own */
};

/* One interval of one group, as measured. */
struct rdt_ctl_sample {
	uint64_t accesses;		/* 0: not known (no perf events) */
	uint64_t misses;
	uint64_t occ_bytes;
	uint64_t mbm_bytes;
};

#define RDT_CTL_WHY 320

/* A decision, with its reason and the figures behind it. */
struct rdt_ctl_event {
	const char *action;		/* "probe", "keep", "rollback", "bound", ... */
	char why[RDT_CTL_WHY];
	bool changed;			/* the masks change for the next interval */
	uint64_t base, measured;	/* the figures compared (misses per interval) */
	int group;			/* the group it concerns, -1: none (all shared) */
	uint64_t margin;		/* keep/rollback: the margin it was judged by */
};

struct rdt_ctl {
	unsigned int n;
	uint64_t allowed;		/* the ways it may use: one contiguous run */
	unsigned int nallowed, low;	/* how many, and the lowest */
	/*
	 * Non-zero where the ways left are not one run and the machine takes
	 * sparse masks (AMD, MPAM): allowed is then 0..nallowed-1 and every
	 * mask is spread over these ways, lowest first (rdt_ways_spread).
	 */
	uint64_t spread;
	uint64_t way_bytes;		/* bytes of one way in the domain */
	unsigned int writes_per_window;	/* schemata writes per window at most; 0: no limit */
	unsigned int window;		/* intervals of that window (a minute) */
	struct rdt_ctl_goal goal[RDT_CTL_MAX];

	/* what runs, and what it replaced */
	struct rdt_ctl_layout cur, probe, prev;
	uint64_t t;			/* intervals seen */
	int phase;			/* steady, probing, settling */
	unsigned int probe_n;		/* intervals of the probe so far */
	unsigned int probe_len;		/* and in all: 2, 4 where the spread is wide */
	uint64_t probe_sum, probe_tail;	/* misses in it, and after its first interval */
	uint64_t hist[8];		/* the last totals under cur */
	unsigned int nhist;
	uint64_t base;			/* cur's misses per interval before the probe */
	uint64_t noise;			/* its interval-to-interval spread */
	/*
	 * The spread the run has shown: each interval's change under one
	 * layout, per mille of the interval before, averaged with a decay of
	 * an eighth. A spread read from two intervals is one draw of it.
	 */
	uint64_t run_spread;
	unsigned int run_spread_n;
	uint64_t next_probe;		/* no probe before this interval */
	uint64_t shared_due;		/* all-shared is measured again then */
	unsigned int shared_gap;
	/* moves tried and refused: not again before [g][m] */
	uint64_t backoff_until[RDT_CTL_MAX][12];
	unsigned int backoff_len[RDT_CTL_MAX][12];
	int probe_g, probe_m;
	/*
	 * What probing cost and what it may cost: 1 % of the misses seen, 25
	 * per group, and half of what the layouts kept saved against all
	 * shared as last measured (shared_rate misses per interval, 0: not
	 * known since the last phase change).
	 */
	uint64_t spent, seen, earned, shared_rate;
	/*
	 * What the layout in force was measured to save per interval against
	 * all shared, verdict by verdict: what it earns for the budget is no
	 * more (a level drifting after all shared was measured is no saving).
	 */
	uint64_t proven;
	/*
	 * All shared, measured again since the layout in force was kept, lost
	 * to it by the margin: a move back to all shared must then win as any
	 * move must, not be kept for being no worse.
	 */
	bool floor_beaten;
	/* a bound group's run of intervals within its bound with room */
	unsigned int met_run[RDT_CTL_MAX];
	uint64_t bound_hold;		/* no bound move before this interval */
	/*
	 * A phase boundary ended a probe without a verdict: the layout in
	 * force (cur) is the probe's, verified by nothing yet; what a run that
	 * stops now must leave is the last one verified before it.
	 */
	bool unverified;
	struct rdt_ctl_layout fallback;
	bool changed_last;		/* the interval now measured followed a change */
	/* the schemata writes of the last window */
	uint64_t *writes;		/* [window] groups changed per interval, a ring */
	struct rdt_ctl_sample last[RDT_CTL_MAX];
	struct rdt_ctl_sample before[RDT_CTL_MAX];	/* the interval before last */
	/* each group's misses in the last intervals under cur (phase changes per group) */
	uint64_t ghist[4][RDT_CTL_MAX];
	unsigned int gn;
	/* a rollback's cost in the interval after it, charged against the budget */
	bool after_rollback;
	uint64_t rb_base;
	/* a probe was just kept: its last interval alone is the history to see a phase by */
	bool kept_fresh;
	/* a phase change was just seen: its interval alone shows the roles the next one moves */
	bool phase_fresh;
	/* the probe is a stream confined: kept unless it is worse (no gain needed) */
	bool probe_lenient;
	/* started as a phase change was seen: its base is one interval */
	bool probe_at_once;
	/*
	 * A layout kept on a probe: each group's misses in its verdict, and
	 * for how many intervals running each has missed beyond them. The
	 * watch ends when it fires, or the layout is left.
	 */
	uint64_t kept_gm[RDT_CTL_MAX];
	unsigned char rise_run[RDT_CTL_MAX];
	bool kept_watch;
	/* a stream test started while the cache filled: judged by gain only on a stream's misses */
	bool probe_cold;
	/*
	 * Each group's misses in a probe's intervals after the first, summed:
	 * a stream test's group (the one that misses most, confined to 2
	 * ways) is kept as a stream when its own did not rise (it reuses
	 * nothing it lost); every group's are a kept layout's verdict.
	 */
	uint64_t probe_gt[RDT_CTL_MAX];
	uint64_t probe_gbase;		/* the group's own misses in the interval before the probe */
	/* groups found streaming by that test, kept confined while they miss as they did */
	bool streaming[RDT_CTL_MAX];
	/* the probe is the move a phase change's signals point to (built on all shared) */
	bool probe_likely;
	/*
	 * At the last phase change: misses jumped while occupancy fell
	 * (squeezed: a block of its own first) or rose (a new polluter:
	 * confined first).
	 */
	bool squeezed[RDT_CTL_MAX], polluter[RDT_CTL_MAX];
	uint64_t gocc[4][RDT_CTL_MAX];	/* each group's occupancy, as ghist */
	/* ghist and gocc before a probe rolled back, for the interval after it */
	uint64_t rb_ghist[4][RDT_CTL_MAX], rb_gocc[4][RDT_CTL_MAX];
	unsigned int rb_gn;
	/* that interval showed a smaller shift (pend_*): interval rb_second decides */
	uint64_t rb_second;
	/* a group's shift seen once: a phase when the next interval shows it too */
	signed char pend_sign[RDT_CTL_MAX];
	uint64_t pend_mean[RDT_CTL_MAX], pend_jump[RDT_CTL_MAX];
	/*
	 * The roles the last phase change showed (bit i: group i a new
	 * polluter; squeezed), and a small memory of the layouts kept under
	 * such roles: the same roles again, and the layout that won then is
	 * the likely winner - unless all shared, measured again under them,
	 * was kept against it (lost): its win was not there, and it is
	 * neither recalled nor probed at once under those roles again.
	 */
	uint64_t role_pol, role_sq;
	bool role_tried;		/* the memory's layout probed since that change */
	struct rdt_ctl_role {
		uint64_t pol, sq;
		struct rdt_ctl_layout l;
		bool lost;
	} roles[4];
	unsigned int nroles;
};

/*
 * A controller of n groups over the ways allowed (contiguous) of a domain
 * whose ways hold way_bytes each; writes: schemata writes per window
 * intervals at most (0: no limit). Starts with every group shared (or
 * reserved, for exclusive goals). -EINVAL with err set.
 */
int rdt_ctl_init(struct rdt_ctl *c, unsigned int n, uint64_t allowed, uint64_t way_bytes,
		 const struct rdt_ctl_goal *goals, unsigned int writes, unsigned int window,
		 char *err, size_t len);
void rdt_ctl_free(struct rdt_ctl *c);
/* The masks of a layout (masks[i] for group i). */
void rdt_ctl_masks(const struct rdt_ctl *c, const struct rdt_ctl_layout *l, uint64_t *masks);
/* Two layouts give every group the same mask. */
bool rdt_ctl_same_layout(const struct rdt_ctl *c, const struct rdt_ctl_layout *a,
			 const struct rdt_ctl_layout *b);
/*
 * The interval just measured (s[i] for group i, under the masks of
 * c->cur); decides what the next runs with (c->cur again, changed when
 * ev->changed). ev->action NULL: nothing to say.
 */
void rdt_ctl_step(struct rdt_ctl *c, const struct rdt_ctl_sample *s, struct rdt_ctl_event *ev);
/* Go on from layout l (one kept in the state); false when it does not fit. */
bool rdt_ctl_adopt(struct rdt_ctl *c, const struct rdt_ctl_layout *l);
/*
 * The layout last verified (all shared when none): what a run that stops
 * now must leave in force - never a probe.
 */
void rdt_ctl_kept_layout(const struct rdt_ctl *c, struct rdt_ctl_layout *out);

/* ---- for the API (simrun.c, section.c, live.c) ---- */

struct rdtalloc;
struct rdtalloc_control_conf;
struct rdtalloc_control_group;
struct rdt_state;

/*
 * section.c: the state's part, the state file's member "control" - one
 * controller per L3 domain (its groups by sequence number, their goals,
 * the ways it leaves alone, its interval and write limit, and the layout in
 * force, so that a controller started again goes on from it).
 */
#define RDT_CTL_DOMS_MAX 64
#define RDT_CTL_OWNER_LEN 129		/* RDT_OWNER_MAX + 1 */

struct rdt_ctl_kept_group {
	uint64_t seq;
	double bound_ratio;
	uint64_t bound_bps;
	bool exclusive;
	unsigned char kind, w;		/* the layout last verified (never a probe) */
	bool declared;			/* decl: its masks before the controller's writes */
	uint64_t decl[2];		/* data, code: put back when it leaves the controller */
	char decl_owner[RDT_CTL_OWNER_LEN];	/* whose they were ("": not known) */
};

struct rdt_ctl_kept {
	int cache_id;
	uint64_t avoid;
	unsigned int interval_ms, writes_per_minute;
	unsigned int flags;		/* RDTALLOC_CONTROL_ADVISORY, _SHAREABLE */
	size_t n;
	struct rdt_ctl_kept_group g[RDT_CTL_MAX];
};

struct rdt_control_state {
	size_t ndom;
	struct rdt_ctl_kept *d;		/* [ndom], in the order they were set */
};

struct rdt_control_state *rdt_control(const struct rdt_state *st);
/* The kept controller of cache_id, or NULL. */
struct rdt_ctl_kept *rdt_control_find(const struct rdt_state *st, int cache_id);
/*
 * k as the API gives it - groups removed since left out - and its layout
 * in l (may be NULL), in the same order; how many groups.
 */
int rdt_control_conf_of(struct rdtalloc *r, const struct rdt_ctl_kept *k,
			struct rdtalloc_control_conf *conf, struct rdtalloc_control_group *g,
			char (*names)[RDT_CTL_NAME_LEN], struct rdt_ctl_layout *l);
/*
 * The ways of domain dom the controller leaves alone beyond its --avoid:
 * those other groups of the state hold exclusively, and the machine's
 * shareable ways (I/O, DDIO) unless flags has RDTALLOC_CONTROL_SHAREABLE.
 */
uint64_t rdt_control_left_alone(struct rdtalloc *r, int dom, unsigned int flags, size_t n,
				const struct rdtalloc_control_group *g);
/* The L3 schema text of data and code masks d, c in cache_id (CDP or not). */
void rdt_control_schema_text(const struct rdt_state *st, unsigned int cache_id, uint64_t d,
			     uint64_t c, char *buf, size_t len);
/*
 * Inside a write call: group seq leaves cache_id's controller without its
 * declared masks back (someone else took its mask); the controller goes
 * with its last group.
 */
int rdt_control_drop(struct rdtalloc *r, int cache_id, uint64_t seq);
/* The owner text of cache_id's controller, "control:ID" (the writer of its masks). */
void rdt_control_owner(unsigned int cache_id, char *buf, size_t len);
/* A warning when the state kept a "control" member it could not read aside. */
void rdt_control_warn_aside(struct rdtalloc *r);
/* The goals and groups of two kept controllers alike (the layout aside)? */
bool rdt_control_same(const struct rdt_ctl_kept *a, const struct rdt_ctl_kept *b);

/* A configuration checked (sim: a simulated run's, with traces); errors named in r. */
int rdt_control_check(struct rdtalloc *r, const struct rdtalloc_control_conf *conf, size_t n,
		      const struct rdtalloc_control_group *g, bool sim);
/*
 * perf.c: LLC references and misses per group from perf events on its
 * bound cgroups. Opened inside a read call (gi: group indices in r->st;
 * counted[i]: group i has a bound cgroup, so it is counted); read: each
 * group's counts since the last read.
 */
struct rdt_ctl_perf;
int rdt_ctl_perf_open(struct rdtalloc *r, size_t n, const int *gi, bool *counted,
		      struct rdt_ctl_perf **out);
void rdt_ctl_perf_read(struct rdt_ctl_perf *p, uint64_t *refs, uint64_t *misses);
void rdt_ctl_perf_close(struct rdt_ctl_perf *p);

/* The engine of a configuration over a domain of ways ways of way_bytes each. */
int rdt_control_engine(struct rdtalloc *r, const struct rdtalloc_control_conf *conf, size_t n,
		       const struct rdtalloc_control_group *g, unsigned int ways,
		       uint64_t way_bytes, struct rdt_ctl *c);

#endif
