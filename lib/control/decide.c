// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * decide: the controller's decisions (control.h, docs/control.md).
 *
 * A layout gives each group one of three places: shared (every way not
 * reserved), confined to the lowest w of those ways (groups confined pool
 * there with each other and with the shared ones), or a block of w ways
 * of its own at the top. It starts all shared - what a host without us
 * does - and changes one group at a time (PARTIES' single moves over
 * KPart's pools): a probe runs two intervals, the first of which is
 * transitional (CAT flushes nothing: a group's lines outside its new mask
 * stay until evicted), and is kept only when the second beats what the
 * layout it replaced measured just before by more than that layout's own
 * interval-to-interval spread. A probe that is plainly worse after its
 * first interval is rolled back at once. What probing loses is counted
 * as it happens (the interval after a rollback too: lines evicted stay
 * evicted), and a probe starts only with budget left for what it may
 * lose (1 % of the misses seen, 25 per group, half of what kept layouts
 * saved): the price of looking is bounded by what there is to gain.
 * All-shared is measured again now and then, and kept unless the layout
 * beats it. A stream (a group missing nearly all it touches) is confined
 * first and kept so without a gain: ways are wasted on it. A shift in
 * the misses of the layout in force, or of one group's, is taken for a
 * phase change: what was refused may be tried again, and the signals
 * name the likely winner (a group squeezed: a block of its own; a new
 * polluter: confined), which, built on all shared, tests the layout kept
 * before anything else is probed - at once, in the interval the change is
 * seen, judged on two intervals and kept unless worse (their mean, and the
 * last alone: a confined group's lines outside its ways go last; and not
 * when the group confined misses more of its own: hungry, no polluter). No
 * probe starts while the level falls beyond its margin (cold misses
 * passing would pass for its gain). A boundary is also seen inside a
 * probe (a group the probe leaves alone moving against what the probe
 * pushes), just after a rollback (each group against its history before
 * the probe) and in the interval after a phase change (one group's misses
 * rising as another's fall), and roles seen again bring back the layout
 * kept under them, kept unless worse - but not one that all shared,
 * measured again under them, was kept against: that one is not probed at
 * once under them again. A group missing more than all others together,
 * yet reusing some, is isolated in a small block; the group missing most,
 * though little of what it touches (a scan), is first tested for a stream
 * in a block of 2 ways: kept so when its own misses do not rise. A layout
 * kept that loses against all shared is charged as probing loss.
 *
 * A bound goes first: a group over its bound gets a block of its own, or
 * a larger one, at once (no probe: the bound is the goal), and one within
 * it with room gives a way back now and then, kept only while it holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "ways.h"

enum { STEADY, PROBING };

/* the single moves, by index into backoff_* */
enum {
	MV_CONFINE,		/* shared -> confined to one way */
	MV_GROW,		/* confined w -> 2w (shared when that is all) */
	MV_UNCONFINE,		/* confined -> shared */
	MV_RESERVE,		/* shared -> a block of its occupancy */
	MV_SHRINK,		/* block w -> w - 1 */
	MV_UNRESERVE,		/* block -> shared (exclusive: w + 1) */
	MV_SWAP,		/* shared -> confined in place of the confined group
				 * that misses least of what it touches */
	MV_ISOLATE,		/* shared -> a block of a quarter of the pool: the
				 * group that misses more than all others together */
	MV_STREAM,		/* shared -> a block of 2 ways: is the group that
				 * misses most a stream (touching lines once, some
				 * accesses to each)? */
	MV_N,
};

static const char *const mv_name[MV_N] = {
	"confine", "grow", "unconfine", "reserve", "shrink", "unreserve", "confine instead",
	"isolate", "test for a stream:",
};

#define BACKOFF_MIN 8u
#define BACKOFF_MAX 256u
#define SHARED_GAP_MIN 24u
#define SHARED_GAP_MAX 128u
/* a layout kept at once on a phase change rests on one interval: all shared is due sooner */
#define SHARED_AFTER_ONCE 8u
#define PROBE_GAP 3u		/* intervals between a change and the next probe */
#define PROBE_RISK 3u		/* margins of budget a probe needs left to start */

static unsigned int popcount64(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

static unsigned int reserved_ways(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	unsigned int i, r = 0;

	for (i = 0; i < c->n; i++)
		if (l->kind[i] == RDT_CTL_RESERVED)
			r += l->w[i];
	return r;
}

static bool has_pooled(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (l->kind[i] != RDT_CTL_RESERVED)
			return true;
	return false;
}

/* Every group has a way to fill, blocks fit, a confined group is inside the pool. */
static bool layout_ok(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	unsigned int i, r = reserved_ways(c, l);
	unsigned int pool = r <= c->nallowed ? c->nallowed - r : 0;

	if (r > c->nallowed || (has_pooled(c, l) && !pool))
		return false;
	for (i = 0; i < c->n; i++) {
		if (l->kind[i] != RDT_CTL_SHARED && !l->w[i])
			return false;
		if (l->kind[i] == RDT_CTL_CONFINED && l->w[i] >= pool)
			return false;
	}
	return true;
}

static uint64_t run(unsigned int from, unsigned int n)
{
	return n >= 64 ? ~0ull : ((1ull << n) - 1) << from;
}

void rdt_ctl_masks(const struct rdt_ctl *c, const struct rdt_ctl_layout *l, uint64_t *masks)
{
	unsigned int i, r = reserved_ways(c, l), top = c->low + c->nallowed;
	unsigned int pool = c->nallowed - r;

	for (i = 0; i < c->n; i++) {
		switch (l->kind[i]) {
		case RDT_CTL_RESERVED:
			top -= l->w[i];
			masks[i] = run(top, l->w[i]);
			break;
		case RDT_CTL_CONFINED:
			masks[i] = run(c->low, l->w[i]);
			break;
		default:
			masks[i] = run(c->low, pool);
		}
		if (c->spread)
			masks[i] = rdt_ways_spread(masks[i], c->spread);
	}
}

bool rdt_ctl_same_layout(const struct rdt_ctl *c, const struct rdt_ctl_layout *a,
			 const struct rdt_ctl_layout *b)
{
	uint64_t ma[RDT_CTL_MAX], mb[RDT_CTL_MAX];

	rdt_ctl_masks(c, a, ma);
	rdt_ctl_masks(c, b, mb);
	return !memcmp(ma, mb, c->n * sizeof(ma[0]));
}

/* Schemata writes going from a to b: groups whose mask changes. */
static unsigned int writes_between(const struct rdt_ctl *c, const struct rdt_ctl_layout *a,
				   const struct rdt_ctl_layout *b)
{
	uint64_t ma[RDT_CTL_MAX], mb[RDT_CTL_MAX];
	unsigned int i, k = 0;

	rdt_ctl_masks(c, a, ma);
	rdt_ctl_masks(c, b, mb);
	for (i = 0; i < c->n; i++)
		k += ma[i] != mb[i];
	return k;
}

static uint64_t writes_in_window(const struct rdt_ctl *c)
{
	uint64_t k = 0;

	for (unsigned int i = 0; c->writes && i < c->window; i++)
		k += c->writes[i];
	return k;
}

/* Room in the write limit for k writes now (and as many to undo them). */
static bool may_write(const struct rdt_ctl *c, unsigned int k, bool with_undo)
{
	if (!c->writes_per_window)
		return true;
	return writes_in_window(c) + k * (with_undo ? 2u : 1u) <= c->writes_per_window;
}

static void count_writes(struct rdt_ctl *c, unsigned int k)
{
	if (c->writes)
		c->writes[c->t % c->window] += k;
}

static void start_layout(struct rdt_ctl *c, struct rdt_ctl_layout *l)
{
	unsigned int i, nex = 0, w;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < c->n; i++)
		nex += c->goal[i].exclusive;
	if (!nex)
		return;
	/* exclusive groups: equal blocks, the rest of the ways pooled */
	w = c->nallowed / (c->n + (nex < c->n));
	if (!w)
		w = 1;
	for (i = 0; i < c->n; i++)
		if (c->goal[i].exclusive) {
			l->kind[i] = RDT_CTL_RESERVED;
			l->w[i] = (unsigned char)w;
		}
}

int rdt_ctl_init(struct rdt_ctl *c, unsigned int n, uint64_t allowed, uint64_t way_bytes,
		 const struct rdt_ctl_goal *goals, unsigned int writes, unsigned int window,
		 char *err, size_t len)
{
	unsigned int i, nex = 0;

	memset(c, 0, sizeof(*c));
	if (!n || n > RDT_CTL_MAX) {
		snprintf(err, len, "%u groups: a controller changes 1 to %d", n, RDT_CTL_MAX);
		return -EINVAL;
	}
	if (!allowed) {
		snprintf(err, len, "no way is left for the controller to use");
		return -EINVAL;
	}
	c->low = (unsigned int)__builtin_ctzll(allowed);
	c->nallowed = popcount64(allowed);
	if (run(c->low, c->nallowed) != allowed) {
		snprintf(err, len, "the ways left to the controller (%#llx) are not one contiguous "
			 "run: a mask must be contiguous", (unsigned long long)allowed);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		nex += goals[i].exclusive || goals[i].bound_ratio > 0 || goals[i].bound_bytes;
	if (nex >= c->nallowed + (nex == n)) {
		snprintf(err, len, "%u groups with a bound or exclusive need a block each, and "
			 "%u ways are all there is", nex, c->nallowed);
		return -EINVAL;
	}
	c->n = n;
	c->allowed = allowed;
	c->way_bytes = way_bytes ? way_bytes : 1;
	memcpy(c->goal, goals, n * sizeof(goals[0]));
	c->writes_per_window = writes;
	c->window = window ? window : 60;
	if (writes && !(c->writes = calloc(c->window, sizeof(*c->writes)))) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	start_layout(c, &c->cur);
	c->prev = c->cur;
	c->phase = STEADY;
	c->shared_gap = SHARED_GAP_MIN;
	c->shared_due = SHARED_GAP_MIN;
	c->next_probe = 1;
	c->probe_g = -1;
	c->changed_last = true;		/* interval 0 starts cold: not a baseline */
	return 0;
}

void rdt_ctl_free(struct rdt_ctl *c)
{
	free(c->writes);
	c->writes = NULL;
}

static uint64_t total(const struct rdt_ctl *c, const struct rdt_ctl_sample *s)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < c->n; i++)
		m += s[i].misses;
	return m;
}

static void hist_add(struct rdt_ctl *c, uint64_t v)
{
	unsigned int cap = sizeof(c->hist) / sizeof(c->hist[0]);

	if (c->nhist == cap) {
		memmove(c->hist, c->hist + 1, (cap - 1) * sizeof(c->hist[0]));
		c->nhist--;
	}
	c->hist[c->nhist++] = v;
}

static void hist_reset(struct rdt_ctl *c)
{
	c->nhist = 0;
	c->gn = 0;
	c->kept_fresh = false;
	memset(c->pend_sign, 0, sizeof(c->pend_sign));
}

/* the interval's total and each group's misses, under cur */
static void hist_push(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot)
{
	unsigned int cap = sizeof(c->ghist) / sizeof(c->ghist[0]);

	if (c->nhist) {
		uint64_t h = c->hist[c->nhist - 1], d = tot > h ? tot - h : h - tot;
		uint64_t pm = d * 1000 / (h ? h : 1);

		if (pm > 10000)		/* ten times the interval before: a bound for the sums */
			pm = 10000;
		c->run_spread = c->run_spread_n ? (7 * c->run_spread + pm) / 8 : pm;
		c->run_spread_n++;
	}
	hist_add(c, tot);
	if (c->gn == cap) {
		memmove(c->ghist, c->ghist + 1, (cap - 1) * sizeof(c->ghist[0]));
		memmove(c->gocc, c->gocc + 1, (cap - 1) * sizeof(c->gocc[0]));
		c->gn--;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		c->ghist[c->gn][i] = s[i].misses;
		c->gocc[c->gn][i] = s[i].occ_bytes;
	}
	c->gn++;
}

/* cur's misses per interval (the last four) and their spread */
static void baseline(struct rdt_ctl *c)
{
	unsigned int i, from = c->nhist > 4 ? c->nhist - 4 : 0, k = c->nhist - from;
	uint64_t sum = 0, d = 0;

	for (i = from; i < c->nhist; i++) {
		sum += c->hist[i];
		if (i > from)
			d += c->hist[i] > c->hist[i - 1] ? c->hist[i] - c->hist[i - 1] :
							   c->hist[i - 1] - c->hist[i];
	}
	c->base = k ? sum / k : 0;
	c->noise = k > 1 ? d / (k - 1) : c->base / 10;
}

/* the cache still fills: fewer misses so far than twice its lines */
static bool filling(const struct rdt_ctl *c)
{
	return c->t < 12 && c->seen < 2 * (c->way_bytes / 64) * c->nallowed;
}

static uint64_t margin(const struct rdt_ctl *c)
{
	uint64_t m = 2 * c->noise;

	if (m < c->base / 50)
		m = c->base / 50;
	return m < 16 ? 16 : m;
}

static bool bounded(const struct rdt_ctl *c, unsigned int g)
{
	return c->goal[g].bound_ratio > 0 || c->goal[g].bound_bytes;
}

/* The bound's figure: how far over (> 1) or under (< 1) a group is. */
static double bound_load(const struct rdt_ctl *c, unsigned int g, const struct rdt_ctl_sample *s)
{
	double v = 0;

	if (c->goal[g].bound_ratio > 0) {
		if (s[g].accesses)
			v = (double)s[g].misses / (double)s[g].accesses / c->goal[g].bound_ratio;
	} else if (c->goal[g].bound_bytes) {
		v = (double)s[g].mbm_bytes / (double)c->goal[g].bound_bytes;
	}
	return v;
}

static int over_bound(const struct rdt_ctl *c, const struct rdt_ctl_sample *s)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (bounded(c, i) && bound_load(c, i, s) > 1.0)
			return (int)i;
	return -1;
}

/*
 * A bounded group over its bound, or above nine tenths of it two intervals
 * running (it is about to break it: a way more before it does); -1: none.
 */
static int bound_due(const struct rdt_ctl *c, const struct rdt_ctl_sample *s)
{
	int b = over_bound(c, s);

	for (unsigned int i = 0; b < 0 && i < c->n; i++)
		if (bounded(c, i) && bound_load(c, i, s) > 0.9 && bound_load(c, i, c->before) > 0.9)
			b = (int)i;
	return b;
}

static double miss_ratio(const struct rdt_ctl_sample *s)
{
	return s->accesses ? (double)s->misses / (double)s->accesses : 1.0;
}

/*
 * A stream: a group that misses nearly all it touches (counted references
 * needed) gains nothing from ways and pollutes what others reuse.
 */
static bool is_stream(const struct rdt_ctl_sample *s)
{
	return s->accesses && s->misses >= 64 && s->misses * 10 >= s->accesses * 9;
}

/* A move the signals of a phase change point to: it needs budget left,
 * not three margins of it (its gain, the margin, as any move's). */
static bool likely(const struct rdt_ctl *c, int g, int m)
{
	return (m == MV_RESERVE && c->squeezed[g]) || (m == MV_CONFINE && c->polluter[g]);
}

/*
 * Move m confines group g, a stream: alone, or in the place of the
 * confined group that misses least of what it touches (the last shared
 * group: has_shared).
 */
static bool stream_confined(const struct rdt_ctl *c, int g, int m)
{
	return (m == MV_CONFINE || m == MV_SWAP) && is_stream(&c->last[g]);
}

static unsigned int ceil_ways(const struct rdt_ctl *c, uint64_t bytes)
{
	return (unsigned int)((bytes + c->way_bytes - 1) / c->way_bytes);
}

/* g misses the most of all groups in the last interval */
static bool heaviest(const struct rdt_ctl *c, unsigned int g)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (c->last[i].misses > c->last[g].misses)
			return false;
	return true;
}

/*
 * The confined group a shared group g would take the place of: the one
 * that misses the least of what it touches, when g misses more; ~0u: none.
 */
static unsigned int swap_partner(const struct rdt_ctl *c, const struct rdt_ctl_layout *l,
				 unsigned int g)
{
	unsigned int i, best = ~0u;

	if (l->kind[g] != RDT_CTL_SHARED || bounded(c, g) || c->goal[g].exclusive)
		return ~0u;
	for (i = 0; i < c->n; i++)
		if (l->kind[i] == RDT_CTL_CONFINED &&
		    (best == ~0u || miss_ratio(&c->last[i]) < miss_ratio(&c->last[best])))
			best = i;
	if (best != ~0u && miss_ratio(&c->last[g]) <= miss_ratio(&c->last[best]))
		return ~0u;
	return best;
}

/*
 * Some group is shared: it fills the pool's ways above the confined
 * groups'. With every group confined (or in a block) those ways are no
 * one's: the lines there stay, hit by whoever left them, and age as the
 * programs move on - what a probe measures of such a layout lasts only
 * while they do. The last shared group is confined instead of one that
 * is (MV_SWAP).
 */
static bool has_shared(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (l->kind[i] == RDT_CTL_SHARED)
			return true;
	return false;
}

/* The move m of group g applied to l; false when it does not apply. */
static bool apply_move(const struct rdt_ctl *c, struct rdt_ctl_layout *l, unsigned int g,
		       unsigned int m)
{
	unsigned int pool = c->nallowed - reserved_ways(c, l), w;
	unsigned int k = l->kind[g];

	switch (m) {
	case MV_CONFINE:
		if (k != RDT_CTL_SHARED || bounded(c, g) || c->goal[g].exclusive || pool < 2)
			return false;
		l->kind[g] = RDT_CTL_CONFINED;
		/* a new polluter that reuses some: a quarter of the pool, not one way */
		l->w[g] = (unsigned char)(c->polluter[g] && pool / 4 > 1 ? pool / 4 : 1);
		break;
	case MV_GROW:
		if (k != RDT_CTL_CONFINED)
			return false;
		w = 2u * l->w[g];
		if (w >= pool) {
			l->kind[g] = RDT_CTL_SHARED;
			l->w[g] = 0;
		} else {
			l->w[g] = (unsigned char)w;
		}
		break;
	case MV_UNCONFINE:
		if (k != RDT_CTL_CONFINED || l->w[g] * 2u >= pool)
			return false;	/* the same as growing */
		l->kind[g] = RDT_CTL_SHARED;
		l->w[g] = 0;
		break;
	case MV_RESERVE:
		if (k != RDT_CTL_SHARED || c->goal[g].exclusive)
			return false;
		w = ceil_ways(c, c->last[g].occ_bytes);
		/* squeezed by a phase change: what it holds is what it was left */
		if (c->squeezed[g] && w < pool / 2)
			w = pool / 2;
		if (w < 1)
			w = 1;
		if (w > pool - 1)
			w = pool - 1;
		if (!w)
			return false;
		l->kind[g] = RDT_CTL_RESERVED;
		l->w[g] = (unsigned char)w;
		break;
	case MV_SHRINK:
		if (k != RDT_CTL_RESERVED)
			return false;
		if (l->w[g] > 1) {
			l->w[g]--;
		} else if (!c->goal[g].exclusive && !bounded(c, g)) {
			l->kind[g] = RDT_CTL_SHARED;
			l->w[g] = 0;
		} else {
			return false;
		}
		break;
	case MV_UNRESERVE:
		if (k != RDT_CTL_RESERVED)
			return false;
		if (c->goal[g].exclusive || bounded(c, g)) {
			l->w[g]++;	/* a block stays a block: it grows */
		} else {
			l->kind[g] = RDT_CTL_SHARED;
			l->w[g] = 0;
		}
		break;
	case MV_ISOLATE:
		/* its lines kept from the others' ways: a small block, not what it holds */
		if (k != RDT_CTL_SHARED || c->goal[g].exclusive || bounded(c, g) || pool < 4)
			return false;
		l->kind[g] = RDT_CTL_RESERVED;
		l->w[g] = (unsigned char)(pool / 4);
		break;
	case MV_STREAM:
		if (k != RDT_CTL_SHARED || bounded(c, g) || c->goal[g].exclusive || pool < 4)
			return false;
		/* a block of its own: pooled, it would evict others' lines from those ways */
		l->kind[g] = RDT_CTL_RESERVED;
		l->w[g] = 2;
		break;
	case MV_SWAP:
		w = swap_partner(c, l, g);
		if (w == ~0u)
			return false;
		l->kind[g] = RDT_CTL_CONFINED;
		l->w[g] = l->w[w];
		l->kind[w] = RDT_CTL_SHARED;
		l->w[w] = 0;
		break;
	default:
		return false;
	}
	/* keep confined groups inside a pool that a block may have narrowed */
	pool = c->nallowed - reserved_ways(c, l);
	for (unsigned int i = 0; i < c->n; i++)
		if (l->kind[i] == RDT_CTL_CONFINED && l->w[i] >= pool) {
			l->kind[i] = RDT_CTL_SHARED;
			l->w[i] = 0;
		}
	return layout_ok(c, l);
}

static bool all_shared(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (l->kind[i] != RDT_CTL_SHARED && !c->goal[i].exclusive && !bounded(c, i))
			return false;
	return true;
}

/* cur with every group that has no goal shared (the blocks of goals kept) */
static void shared_of(const struct rdt_ctl *c, struct rdt_ctl_layout *l)
{
	*l = c->cur;
	for (unsigned int i = 0; i < c->n; i++)
		if (!c->goal[i].exclusive && !bounded(c, i) && l->kind[i] != RDT_CTL_SHARED &&
		    !(l->kind[i] == RDT_CTL_CONFINED && is_stream(&c->last[i])) &&
		    !(l->kind[i] != RDT_CTL_SHARED && c->streaming[i])) {
			l->kind[i] = RDT_CTL_SHARED;
			l->w[i] = 0;
		}
}

static int set_change(struct rdt_ctl *c, const struct rdt_ctl_layout *to)
{
	struct rdt_ctl_layout next = *to;	/* to may be &c->prev */
	unsigned int k = writes_between(c, &c->cur, &next);

	count_writes(c, k);
	c->prev = c->cur;
	c->cur = next;
	c->phase_fresh = false;
	return (int)k;
}

static void refuse(struct rdt_ctl *c, int g, int m, bool harmful)
{
	unsigned int *len;

	if (g < 0) {
		c->shared_gap = c->shared_gap * 2 > SHARED_GAP_MAX ? SHARED_GAP_MAX :
								      c->shared_gap * 2;
		c->shared_due = c->t + c->shared_gap;
		return;
	}
	len = &c->backoff_len[g][m];
	/* a move that was plainly worse waits longer than one that did nothing */
	*len = !*len ? BACKOFF_MIN * (harmful ? 4 : 1) :
		       (*len * 2 > BACKOFF_MAX ? BACKOFF_MAX : *len * 2);
	c->backoff_until[g][m] = c->t + *len;
}

/*
 * The next move worth a probe, best first: a group that misses much of
 * what it touches confined (it pollutes what others reuse), a confined
 * group given more, a group that reuses what it holds given a block of it,
 * a block given back. -1: none.
 */
static int pick(struct rdt_ctl *c, struct rdt_ctl_layout *out, int *pg, int *pm)
{
	double best = -1;
	int bg = -1, bm = -1;

	uint64_t all = total(c, c->last), mg = margin(c);

	for (unsigned int g = 0; g < c->n; g++) {
		const struct rdt_ctl_sample *s = &c->last[g];
		double mr = miss_ratio(s), score[MV_N] = { 0 };
		/* misses a move could save: a move that helps others needs others that miss */
		bool others = all - s->misses > mg, mine = s->misses > mg;
		/* a group that misses nearly all it touches gains nothing from more ways */
		bool reuses = mr < 0.97;

		/* a group pollutes by what it fills: its misses */
		score[MV_CONFINE] = mr >= 0.2 && others && mine ? 4.0 + (double)s->misses * mr : 0;
		/* a stream first: confining it costs it nothing */
		if (score[MV_CONFINE] && is_stream(s))
			score[MV_CONFINE] = 6.0 + (double)s->misses;
		/* a new polluter since the phase changed: the likely winner */
		if (c->polluter[g] && all - s->misses >= 64 && s->misses >= 64)
			score[MV_CONFINE] = 5.5 + (double)s->misses;
		score[MV_GROW] = reuses && mine ? 3.0 + (double)s->misses : 0;
		score[MV_UNCONFINE] = reuses && mine ? 2.5 + (double)s->misses : 0;
		score[MV_RESERVE] = mr < 0.5 && mine ? 2.0 + (double)s->misses * (1 - mr) : 0;
		/* squeezed by a phase change: the likely winner is a block of its own */
		if (c->squeezed[g] && mr < 0.5 && s->misses >= 64)
			score[MV_RESERVE] = 5.0 + (double)s->misses;
		score[MV_SHRINK] = others ? 1.0 + 1.0 / (1.0 + (double)s->misses) : 0;
		score[MV_UNRESERVE] = others || mine ? 0.5 : 0;
		score[MV_SWAP] = others && mine ? 4.5 + (double)s->misses * mr : 0;
		/*
		 * A group that misses more than all others together, and reuses
		 * some (too little to be confined for it): isolated in a small
		 * block, the others' ways kept from it.
		 */
		score[MV_ISOLATE] = others && mine && s->misses * 2 > all && mr >= 0.02 &&
				    mr < 0.2 ? 3.5 + (double)s->misses : 0;
		/*
		 * A stream that hits within its lines (a scan: several accesses
		 * to each line, none after) misses too little of what it
		 * touches to look like one: the group that misses most, and at
		 * least its share, is tested in a block of 2 ways - its own
		 * misses do not rise if it reuses nothing. Before isolating
		 * it: a test that fails is judged as isolation is (a gain).
		 */
		score[MV_STREAM] = mr < 0.2 && others && mine && s->misses * c->n >= all &&
				   heaviest(c, g) ? 4.2 + (double)s->misses : 0;
		for (unsigned int m = 0; m < MV_N; m++) {
			struct rdt_ctl_layout l = c->cur;
			/* a bound group changes by the bound's rules alone */
			if (!score[m] || bounded(c, g) || c->backoff_until[g][m] > c->t)
				continue;
			/* a stream found by test gains nothing from more ways */
			if (c->streaming[g] && (m == MV_UNRESERVE || m == MV_GROW ||
						m == MV_UNCONFINE))
				continue;
			if (!apply_move(c, &l, g, m) || rdt_ctl_same_layout(c, &l, &c->cur))
				continue;
			if (m == MV_CONFINE && !has_shared(c, &l))
				continue;
			/* compare scores of one kind across groups by misses */
			if (score[m] > best) {
				best = score[m];
				bg = (int)g;
				bm = (int)m;
				*out = l;
			}
		}
	}
	*pg = bg;
	*pm = bm;
	return bg;
}

static void say(struct rdt_ctl_event *ev, const char *action, bool changed, uint64_t base,
		uint64_t measured, int group, uint64_t margin)
{
	ev->group = group;
	ev->margin = margin;
	ev->action = action;
	ev->changed = changed;
	ev->base = base;
	ev->measured = measured;
}

static void describe(const struct rdt_ctl *c, const struct rdt_ctl_layout *l, char *buf,
		     size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < c->n && o < len; i++) {
		if (l->kind[i] == RDT_CTL_SHARED)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%u %s %u", o ? ", " : "", i,
				      l->kind[i] == RDT_CTL_CONFINED ? "confined to" : "block of",
				      l->w[i]);
	}
	if (!o)
		snprintf(buf, len, "all shared");
}

static void end_probe(struct rdt_ctl *c)
{
	/* a probe's verdict verifies what it was measured against */
	c->unverified = false;
	c->phase = STEADY;
	c->probe_n = 0;
	c->probe_sum = 0;
	c->probe_tail = 0;
	c->next_probe = c->t + PROBE_GAP;
}

/*
 * The layout remembered for the roles now seen was rolled back under
 * them: it won once, not now - recalled again it would be kept on the
 * lenience its one win earned. One remembered as lost stays so: the
 * rollback is more of the same evidence.
 */
static void forget(struct rdt_ctl *c)
{
	for (unsigned int i = 0; i < c->nroles; i++)
		if (c->roles[i].pol == c->role_pol && c->roles[i].sq == c->role_sq &&
		    !c->roles[i].lost && rdt_ctl_same_layout(c, &c->roles[i].l, &c->cur)) {
			memmove(c->roles + i, c->roles + i + 1,
				(c->nroles - i - 1) * sizeof(c->roles[0]));
			c->nroles--;
			return;
		}
}

static void rollback(struct rdt_ctl *c, struct rdt_ctl_event *ev, uint64_t tot, const char *why,
		     uint64_t mk)
{
	char what[96];

	refuse(c, c->probe_g, c->probe_m, tot > c->base + 2 * margin(c));
	if (c->probe_g < 0)
		c->floor_beaten = true;
	/* lines it evicted stay evicted: the interval after costs too, and is charged */
	c->after_rollback = true;
	c->rb_base = c->base;
	forget(c);
	set_change(c, &c->prev);
	describe(c, &c->cur, what, sizeof(what));
	snprintf(ev->why, sizeof(ev->why), "%s: %llu misses per interval in %u of the probe "
		 "against %llu before (spread %llu); back to %s", why, (unsigned long long)tot,
		 c->probe_n, (unsigned long long)c->base, (unsigned long long)c->noise, what);
	say(ev, "rollback", true, c->base, tot, c->probe_g, mk);
	end_probe(c);
	/*
	 * cur's figures were before the probe: measure again, but keep each
	 * group's to see a phase boundary the probe's figures hid.
	 */
	memcpy(c->rb_ghist, c->ghist, sizeof(c->ghist));
	memcpy(c->rb_gocc, c->gocc, sizeof(c->gocc));
	c->rb_gn = c->gn;
	hist_reset(c);
}

/* The margin a mean of k intervals must beat: the spread shrinks with their root. */
static uint64_t margin_of(const struct rdt_ctl *c, unsigned int k)
{
	uint64_t m = k >= 3 ? (2 * c->noise * 10) / 17 : 2 * c->noise;	/* 2 / sqrt(3) */

	if (m < c->base / 50)
		m = c->base / 50;
	return m < 16 ? 16 : m;
}

static int probe_boundary(struct rdt_ctl *c, const struct rdt_ctl_sample *s, bool probe);

/*
 * The margin the likely winner a phase change's signals name must beat:
 * no less than the spread the run has shown, its first intervals
 * included (four changes of it at least). Probed an interval after the
 * change, its base is two intervals of the new phase and their spread
 * one draw - a lucky small one lets a noise-level lead pass for the gain
 * the signals promised, and the move stays for the phase (P few misses 3
 * groups 9 at 11 ways: 1.078 of no partition). A young run whose level
 * swung as its cache filled has not shown that two quiet intervals mean
 * a quiet level: without those first intervals that mix is lost again.
 * Only here: any move judged against the run's spread loses real gains
 * near the noise (sqlite3|xz|gzip's stream in a block of 2).
 */
static uint64_t likely_margin(const struct rdt_ctl *c, uint64_t mk)
{
	uint64_t f;

	if (c->run_spread_n < 4)
		return mk;
	f = 2 * (c->run_spread * c->base / 1000);
	if (c->probe_len - 1 >= 3)
		f = f * 10 / 17;	/* 2 / sqrt(3), as margin_of() */
	return f > mk ? f : mk;
}

/*
 * The layout kept under the roles the last phase change showed,
 * remembered (l: cur); or the one all shared was kept against under them,
 * remembered as lost.
 */
static void remember_as(struct rdt_ctl *c, const struct rdt_ctl_layout *l, bool lost)
{
	unsigned int i, cap = sizeof(c->roles) / sizeof(c->roles[0]);

	if (!c->role_pol && !c->role_sq)
		return;
	for (i = 0; i < c->nroles; i++)
		if (c->roles[i].pol == c->role_pol && c->roles[i].sq == c->role_sq)
			break;
	if (i == c->nroles) {
		if (c->nroles == cap) {	/* the oldest goes */
			memmove(c->roles, c->roles + 1, (cap - 1) * sizeof(c->roles[0]));
			c->nroles--;
		}
		i = c->nroles++;
	}
	c->roles[i].pol = c->role_pol;
	c->roles[i].sq = c->role_sq;
	c->roles[i].l = *l;
	c->roles[i].lost = lost;
}

static void remember(struct rdt_ctl *c)
{
	remember_as(c, &c->cur, false);
}

/* A layout all shared was kept against under the roles now seen. */
static bool lost_here(const struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	for (unsigned int i = 0; i < c->nroles; i++)
		if (c->roles[i].lost && c->roles[i].pol == c->role_pol &&
		    c->roles[i].sq == c->role_sq && rdt_ctl_same_layout(c, &c->roles[i].l, l))
			return true;
	return false;
}
static void phase(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot, int pg,
		  const struct rdt_ctl_layout *from, struct rdt_ctl_event *ev);
static void roles_at_once(struct rdt_ctl *c, struct rdt_ctl_event *ev);

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* A group's shift in one interval: beyond four of its spreads and a quarter (and 64). */
static uint64_t big_shift(uint64_t mean, uint64_t sp)
{
	uint64_t big = 4 * sp + mean / 4;

	return big < 64 ? 64 : big;
}

/* A shift two intervals running show: beyond two spreads and an eighth (and 32). */
static uint64_t small_shift(uint64_t mean, uint64_t sp)
{
	uint64_t small = 2 * sp + mean / 8;

	return small < 32 ? 32 : small;
}

/* Group g's shift seen once (pend_*) shown again: beyond its threshold, the same way. */
static bool pend_again(const struct rdt_ctl *c, unsigned int g, uint64_t misses)
{
	return c->pend_sign[g] && (misses > c->pend_mean[g] ? 1 : -1) == c->pend_sign[g] &&
	       absdiff(misses, c->pend_mean[g]) > c->pend_jump[g];
}

static void group_stats(const struct rdt_ctl *c, unsigned int g, uint64_t *mean,
			uint64_t *spread, uint64_t *occ);

/* Group g's misses per interval in a probe's intervals after the first. */
static uint64_t probe_gmean(const struct rdt_ctl *c, unsigned int g)
{
	return c->probe_gt[g] / (c->probe_len - 1);
}

/*
 * Group g (a stream test's) missing gm per interval misses no more than
 * before: within twice its spread, a sixteenth and 16 of its mean under
 * the layout the test replaced - it reuses nothing it lost.
 */
static bool no_rise(const struct rdt_ctl *c, unsigned int g, uint64_t gm)
{
	uint64_t mean, sp, occ, lim;

	group_stats(c, g, &mean, &sp, &occ);
	lim = 2 * sp > mean / 16 ? 2 * sp : mean / 16;
	return gm <= mean + (lim < 16 ? 16 : lim);
}

/*
 * A stream test passed: the group's misses in the intervals after the
 * first did not rise, and more than half of the lines it held outside its
 * block are gone (CAT flushes nothing: while they stay, it still hits
 * them, and its misses prove nothing).
 */
static bool stream_found(const struct rdt_ctl *c, const struct rdt_ctl_sample *s)
{
	uint64_t mean, sp, occ, blk, gm;
	unsigned int g = (unsigned int)c->probe_g;

	if (c->probe_m != MV_STREAM || c->probe_g < 0 || !c->gn || c->probe_len < 2)
		return false;
	group_stats(c, g, &mean, &sp, &occ);
	blk = 2 * c->way_bytes;
	if (s[g].occ_bytes > blk + (occ > blk ? (occ - blk) / 2 : 0))
		return false;
	gm = probe_gmean(c, g);
	/*
	 * Nor did they fall beyond four spreads and a quarter (and 64): a
	 * stream misses as it did in 2 ways. A fall is a phase boundary, or a
	 * loop hitting the lines it still holds outside the block - no stream
	 * either way; the move is judged by its gain.
	 */
	if (gm + big_shift(mean, sp) < mean)
		return false;
	return no_rise(c, g, gm);
}

/*
 * A stream test started while the cache filled: the group's own misses
 * after the first interval fell by less than a quarter of its mean
 * before. The others' fall proves nothing then (every group's cold misses
 * pass as the cache warms); a group held to 2 ways that misses no less is
 * what a stream does (or a loop that lost its room, which the verdict on
 * the gain refuses), and one whose misses fell was warming too.
 */
static bool misses_as_before(const struct rdt_ctl *c)
{
	uint64_t mean, sp, occ, gm;
	unsigned int g = (unsigned int)c->probe_g;

	if (c->probe_m != MV_STREAM || c->probe_g < 0 || !c->gn || c->probe_len < 2)
		return false;
	group_stats(c, g, &mean, &sp, &occ);
	gm = probe_gmean(c, g);
	return 4 * gm >= 3 * mean;
}

/*
 * A group confined at once on a phase change misses more of its own
 * than in the interval that showed the change (beyond a quarter and 32):
 * it reuses what it lost - a hungry group, not a polluter - and what the
 * others fall by is the new phase's cold misses passing, not its gain.
 */
static bool own_rise(const struct rdt_ctl *c)
{
	uint64_t gm, lim = c->probe_gbase / 4 > 32 ? c->probe_gbase / 4 : 32;

	if (c->probe_g < 0 || c->probe_m != MV_CONFINE || c->probe_len < 2)
		return false;
	gm = probe_gmean(c, (unsigned int)c->probe_g);
	return gm > c->probe_gbase + lim;
}

/*
 * A group confined at once on a phase change misses less than half of
 * what it did in the interval that showed the change, and the others no
 * less than then (within the margin mk): its new phase's cold misses
 * passed, what it fills now it reuses - a hungry group starting, not a
 * polluter - and the confinement saved the others nothing.
 */
static bool cold_passed(const struct rdt_ctl *c, uint64_t mk)
{
	uint64_t gm, others, before;

	if (c->probe_g < 0 || c->probe_m != MV_CONFINE || c->probe_len < 2 ||
	    c->base < c->probe_gbase)
		return false;
	gm = probe_gmean(c, (unsigned int)c->probe_g);
	others = c->probe_tail / (c->probe_len - 1);
	others = others > gm ? others - gm : 0;
	before = c->base - c->probe_gbase;
	return 2 * gm < c->probe_gbase && others + mk / 2 >= before;
}

static unsigned int ways_in(const struct rdt_ctl *c, const struct rdt_ctl_layout *l,
			    unsigned int g);

/* A layout other than all shared kept: each group's misses in its verdict are watched. */
static void watch_kept(struct rdt_ctl *c)
{
	c->kept_watch = !all_shared(c, &c->cur) && c->probe_len > 1;
	for (unsigned int i = 0; c->kept_watch && i < c->n; i++) {
		c->kept_gm[i] = probe_gmean(c, i);
		c->rise_run[i] = 0;
	}
}

/*
 * A group the kept layout holds to fewer ways than all shared would (a
 * bound's block is the bound's) has missed beyond its misses in the
 * layout's verdict, by a half and 32, for two intervals running - a
 * group's misses drift by less within a phase (a stream's, or a scan's
 * found by test, move with what it touches: not counted). The verdict
 * was of another phase: the group that rose, -1: none.
 */
static int kept_rise(struct rdt_ctl *c, const struct rdt_ctl_sample *s)
{
	struct rdt_ctl_layout sh;
	int g = -1;

	shared_of(c, &sh);
	for (unsigned int i = 0; i < c->n; i++) {
		uint64_t k = c->kept_gm[i], lim = k / 2 > 32 ? k / 2 : 32;

		if (ways_in(c, &c->cur, i) < ways_in(c, &sh, i) && !bounded(c, i) &&
		    !is_stream(&s[i]) && !c->streaming[i] && s[i].misses > k + lim) {
			if (++c->rise_run[i] >= 2 && g < 0)
				g = (int)i;
		} else {
			c->rise_run[i] = 0;
		}
	}
	return g;
}

static void probing(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot,
		    struct rdt_ctl_event *ev)
{
	uint64_t mg = margin(c), mean, mk;
	bool shared = c->probe_g < 0, found, floor;
	int b = over_bound(c, s), pb;

	c->probe_n++;
	c->probe_sum += tot;
	/* what probing costs is counted as it happens */
	if (tot > c->base)
		c->spent += tot - c->base;
	if (c->probe_n > 1) {
		c->probe_tail += tot;
		for (unsigned int i = 0; i < c->n; i++)
			c->probe_gt[i] += s[i].misses;
	}
	if (b >= 0 && c->probe_n > 1) {
		char why[64];

		snprintf(why, sizeof(why), "group %d over its bound (%.2f of it)", b,
			 bound_load(c, (unsigned int)b, s));
		rollback(c, ev, tot, why, mg);
		return;
	}
	/*
	 * A stream test's first interval: the others lose the lines they held
	 * in its block (transitional, charged); the group's own misses not
	 * rising, the next interval decides. So too a stream confined in a
	 * confined group's place: that group refills the ways it is given.
	 */
	if (c->probe_n < c->probe_len && tot > c->base + 2 * mg &&
	    !((c->probe_m == MV_STREAM || (c->probe_m == MV_SWAP && c->probe_lenient)) &&
	      c->probe_n == 1 && c->gn &&
	      no_rise(c, (unsigned int)c->probe_g, s[c->probe_g].misses))) {
		if (shared)
			c->shared_rate = tot;
		rollback(c, ev, tot, "worse at once", 2 * mg);
		return;
	}
	/*
	 * A phase boundary inside the probe (not plainly worse): a group's
	 * misses moved the way the probe cannot move them. Its figures are of
	 * two phases and prove nothing; the layout in force is verified
	 * afresh, as after any phase change, the roles read against each
	 * group's history before the probe.
	 */
	pb = probe_boundary(c, s, true);
	if (pb >= 0) {
		struct rdt_ctl_layout from = c->prev;
		bool was = c->unverified;

		end_probe(c);
		/* cur is the probe's, unverified until the next verdict */
		c->unverified = true;
		if (!was)
			c->fallback = from;
		phase(c, s, tot, pb, &from, ev);
		roles_at_once(c, ev);
		return;
	}
	if (c->probe_n < c->probe_len)
		return;
	/* the intervals after the first decide: their mean against what cur measured */
	mean = c->probe_tail / (c->probe_len - 1);
	mk = margin_of(c, c->probe_len - 1);
	if (c->probe_likely && !c->probe_lenient)
		mk = likely_margin(c, mk);
	/*
	 * A stream test: the group lost nothing held to 2 ways, and the
	 * others, who lost the lines they held there, are back to no worse
	 * by the last interval (the mean still carries that transition).
	 */
	found = stream_found(c, s) && tot <= c->base + mk;
	if (c->probe_cold && !found && !misses_as_before(c))
		mean = mean > c->base ? mean : c->base + mk;	/* cold misses passing: no verdict */
	/*
	 * A move is kept on a gain beyond the margin, the likely winner a
	 * phase change's signals name too (they named it; they are no
	 * evidence that it pays). All shared, the floor, is kept unless
	 * worse by the margin: a layout whose lead over it is within the
	 * noise is thin evidence, and thin evidence means all shared. A move
	 * back to all shared is the floor's test too - unless all shared,
	 * measured again since the layout in force was kept, lost to it:
	 * that lead was beyond the noise, and the move must win as any move.
	 */
	floor = shared || (all_shared(c, &c->cur) && !c->floor_beaten);
	if ((!floor && !c->probe_lenient && mean + mk < c->base) ||
	    ((floor || c->probe_lenient) &&
	     mean <= c->base + (c->probe_at_once || floor ? mk : mk / 2) &&
	     (!c->probe_at_once || (tot <= c->base + mk && !own_rise(c) &&
				    !cold_passed(c, mk)))) || found) {
		char what[96];

		describe(c, &c->cur, what, sizeof(what));
		snprintf(ev->why, sizeof(ev->why), "%s: %llu misses per interval against %llu "
			 "before (spread %llu, margin %llu)", what, (unsigned long long)mean,
			 (unsigned long long)c->base, (unsigned long long)c->noise,
			 (unsigned long long)mk);
		say(ev, "keep", false, c->base, mean, c->probe_g, mk);
		/*
		 * All shared kept against a layout: what that layout won under
		 * these roles was not there (a verdict at once, against one
		 * interval of the change's cold misses, may credit it with their
		 * passing). Under these roles again it is not the likely winner.
		 */
		if ((shared || all_shared(c, &c->cur)) && !all_shared(c, &c->prev))
			remember_as(c, &c->prev, true);
		if (shared)
			c->shared_rate = mean;
		else if (all_shared(c, &c->prev))
			c->shared_rate = c->base;
		/* what the kept layout saves against all shared, as measured */
		if (shared || all_shared(c, &c->prev))
			c->proven = 0;
		if (!shared)
			c->proven = c->base > mean ? c->proven + (c->base - mean) :
				    c->proven > mean - c->base ? c->proven - (mean - c->base) : 0;
		watch_kept(c);
		c->floor_beaten = false;
		if (shared) {
			c->shared_gap = SHARED_GAP_MIN;
			c->shared_due = c->t + c->shared_gap;
		} else if (c->probe_g >= 0) {
			if (c->probe_likely)	/* built on all shared: it was the floor's test */
				c->shared_due = c->t + (c->probe_at_once ? SHARED_AFTER_ONCE :
								   c->shared_gap);
			/*
			 * Recalled, a layout is kept again unless worse: it is
			 * remembered for these roles only when its verdict
			 * showed a gain beyond half the margin (or found a
			 * stream) - one kept for being no worse proved nothing.
			 */
			if (mean + mk / 2 < c->base || found)
				remember(c);
			if (found)	/* kept confined while it misses as it did */
				c->streaming[c->probe_g] = true;
			c->backoff_len[c->probe_g][c->probe_m] = 0;
			c->squeezed[c->probe_g] = false;
			c->polluter[c->probe_g] = false;
		}
		end_probe(c);
		c->next_probe = c->t + 1;	/* a move that paid: look on soon */
		hist_reset(c);
		hist_push(c, s, tot);
		c->kept_fresh = true;
		return;
	}
	if (shared) {
		c->shared_rate = mean;
		c->proven = mean > c->base ? mean - c->base : 0;
	}
	if (c->probe_at_once && cold_passed(c, mk)) {
		char why[96];

		snprintf(why, sizeof(why), "its cold misses passed (group %d misses %llu, %llu "
			 "as the phase began), the others no better", c->probe_g,
			 (unsigned long long)probe_gmean(c, (unsigned int)c->probe_g),
			 (unsigned long long)c->probe_gbase);
		rollback(c, ev, mean, why, mk);
		return;
	}
	rollback(c, ev, mean, shared ? "all shared is worse" : "no better", mk);
}

/* A bound broken: a block of its own for the group, or a larger one, now. */
static bool bound_move(struct rdt_ctl *c, unsigned int b, const struct rdt_ctl_sample *s,
		       struct rdt_ctl_event *ev)
{
	struct rdt_ctl_layout l = c->cur;
	unsigned int pool = c->nallowed - reserved_ways(c, &l), w, k;
	double load = bound_load(c, b, s);
	int heavy = -1;

	/*
	 * Sized by how far over it is, so that one move meets it where one
	 * can: a first block of what it holds, at least a quarter of the pool
	 * per unit of load (up to two); a block grown by half, or twice its
	 * excess, if that is more.
	 */
	if (l.kind[b] != RDT_CTL_RESERVED) {
		w = ceil_ways(c, s[b].occ_bytes);
		k = (unsigned int)((double)pool * (load < 2 ? load : 2) / 4 + 0.999);
		w = w < k ? k : w;
		w = w < 2 ? 2 : w;
		l.kind[b] = RDT_CTL_RESERVED;
		l.w[b] = 0;
		pool = c->nallowed - reserved_ways(c, &l);
	} else {
		/* under the bound (a move before it breaks): grown by half */
		k = load <= 1 ? 0 :
		    (unsigned int)((double)l.w[b] * 2 * (load < 2 ? load - 1 : 1) + 0.999);
		w = (l.w[b] + 1u) / 2u;
		w = l.w[b] + (w > k ? w : k);
		pool += l.w[b];
	}
	if (w > pool - (has_pooled(c, &l) ? 1 : 0) && has_pooled(c, &l))
		w = pool - 1;
	if (w > pool)
		w = pool;
	if (w && w != l.w[b]) {
		l.w[b] = (unsigned char)w;
	} else {
		/* no way left to give: the heaviest other group shrinks to one way */
		for (unsigned int i = 0; i < c->n; i++)
			if (i != b && l.kind[i] == RDT_CTL_SHARED && !bounded(c, i) &&
			    (heavy < 0 || s[i].misses > s[heavy].misses))
				heavy = (int)i;
		if (heavy < 0 || !apply_move(c, &l, (unsigned int)heavy, MV_CONFINE))
			return false;
	}
	for (unsigned int i = 0; i < c->n; i++)
		if (l.kind[i] == RDT_CTL_CONFINED && l.w[i] >= c->nallowed - reserved_ways(c, &l))
			l.kind[i] = RDT_CTL_SHARED, l.w[i] = 0;
	if (!layout_ok(c, &l) || rdt_ctl_same_layout(c, &l, &c->cur))
		return false;
	k = writes_between(c, &c->cur, &l);
	if (!may_write(c, k, false))
		return false;
	set_change(c, &l);
	snprintf(ev->why, sizeof(ev->why), "group %u at %.2f of its bound: %s %u ways of its own",
		 b, load, heavy >= 0 ? "keeps" : "gets", l.w[b]);
	if (heavy >= 0)
		snprintf(ev->why + strlen(ev->why), sizeof(ev->why) - strlen(ev->why),
			 ", group %d confined to one way", heavy);
	say(ev, "bound", true, 0, 0, (int)b, 0);
	c->bound_hold = c->t + 2;
	c->met_run[b] = 0;
	c->kept_watch = false;	/* the bound is the goal, not a verdict's gain */
	hist_reset(c);
	c->next_probe = c->t + PROBE_GAP;
	return true;
}

static bool start_probe(struct rdt_ctl *c, const struct rdt_ctl_layout *l, int g, int m,
			struct rdt_ctl_event *ev, const char *what)
{
	unsigned int k = writes_between(c, &c->cur, l);
	char to[96];

	if (!k || !may_write(c, k, true))
		return false;
	c->probe_g = g;
	c->probe_m = m;
	c->probe_lenient = g >= 0 && stream_confined(c, g, m);
	c->probe_likely = g >= 0 && likely(c, g, m);
	c->probe_at_once = false;
	c->probe_cold = m == MV_STREAM && filling(c);
	memset(c->probe_gt, 0, sizeof(c->probe_gt));
	c->probe_gbase = g >= 0 ? c->last[g].misses : 0;
	c->phase = PROBING;
	c->probe_n = 0;
	c->probe_sum = 0;
	c->probe_tail = 0;
	/* a spread over a tenth of the misses needs three intervals to see through */
	c->probe_len = c->noise * 10 > c->base ? 4 : 2;
	/* a block carved for a stream costs the others their lines there first */
	if (m == MV_STREAM)
		c->probe_len = 3;
	set_change(c, l);
	describe(c, l, to, sizeof(to));
	if (g >= 0)
		snprintf(ev->why, sizeof(ev->why), "%s group %d (%.3f of its accesses missed, "
			 "%llu misses): %s; against %llu misses per interval, spread %llu", what,
			 g, miss_ratio(&c->last[g]), (unsigned long long)c->last[g].misses, to,
			 (unsigned long long)c->base, (unsigned long long)c->noise);
	else
		snprintf(ev->why, sizeof(ev->why), "all shared measured again against %llu "
			 "misses per interval, spread %llu", (unsigned long long)c->base,
			 (unsigned long long)c->noise);
	say(ev, "probe", true, c->base, 0, g, margin(c));
	return true;
}

/* A bound group with room gives a way back, to be kept only while it holds. */
static bool bound_trim(struct rdt_ctl *c, const struct rdt_ctl_sample *s,
		       struct rdt_ctl_event *ev)
{
	for (unsigned int b = 0; b < c->n; b++) {
		struct rdt_ctl_layout l = c->cur;

		if (!bounded(c, b))
			continue;
		c->met_run[b] = bound_load(c, b, s) < 0.8 ? c->met_run[b] + 1 : 0;
		if (c->met_run[b] < 5 || l.kind[b] != RDT_CTL_RESERVED || l.w[b] < 2 ||
		    c->backoff_until[b][MV_SHRINK] > c->t)
			continue;
		l.w[b]--;
		if (!layout_ok(c, &l))
			continue;
		c->met_run[b] = 0;
		if (start_probe(c, &l, (int)b, MV_SHRINK, ev, "a way back from"))
			return true;
	}
	return false;
}

/* Group g's misses under cur: their mean and interval-to-interval spread. */
static void group_stats(const struct rdt_ctl *c, unsigned int g, uint64_t *mean, uint64_t *spread,
			uint64_t *occ)
{
	uint64_t sum = 0, d = 0, o = 0;

	for (unsigned int i = 0; i < c->gn; i++) {
		sum += c->ghist[i][g];
		o += c->gocc[i][g];
		if (i)
			d += c->ghist[i][g] > c->ghist[i - 1][g] ?
			     c->ghist[i][g] - c->ghist[i - 1][g] : c->ghist[i - 1][g] - c->ghist[i][g];
	}
	*mean = sum / c->gn;
	*occ = o / c->gn;
	*spread = c->gn > 1 ? d / (c->gn - 1) : *mean / 10;
}

/*
 * A phase change: the total beyond four spreads and a seventh (and 64);
 * one group's misses beyond four of its spreads and a quarter (and 64) in
 * one interval, or beyond two and an eighth (and 32) in two running, the
 * same way. The group that moved most (-1: the total alone), -2: none.
 *
 * fresh: the interval after a phase change, whose interval alone is the
 * history. The new phase may still settle there (cold misses passing,
 * the total moving), so only roles moving count: one group's misses
 * rising beyond its figure as another's fall beyond theirs (A swap
 * sqlite3/grep 8 swapped its groups' roles one interval after a phase
 * change and probed all shared on a base of the two phases). Nothing is
 * kept for a second interval of a shift.
 */
static int phase_change(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot,
			bool fresh)
{
	uint64_t jump = 4 * c->noise + c->base / 7, best = 0, mean, sp, occ, d, big, small;
	bool fell = false;
	int g = -2;

	jump = jump < 64 ? 64 : jump;
	if (absdiff(tot, c->base) > jump && !fresh)
		g = -1;
	for (unsigned int i = 0; c->gn >= 1 && i < c->n; i++) {
		signed char sign;

		group_stats(c, i, &mean, &sp, &occ);
		d = absdiff(s[i].misses, mean);
		sign = s[i].misses > mean ? 1 : -1;
		big = big_shift(mean, sp);
		small = small_shift(mean, sp);
		if (c->pend_sign[i] == sign && pend_again(c, i, s[i].misses))
			d = big + 1;	/* the second interval of a shift */
		fell |= d > big && sign < 0;
		if (d > big && d > best && (!fresh || sign > 0)) {
			best = d;
			g = (int)i;
		}
		if (fresh)
			continue;
		if (c->pend_sign[i] != sign && d > small) {
			c->pend_sign[i] = sign;
			c->pend_mean[i] = mean;
			c->pend_jump[i] = small;
		} else if (d <= small) {
			c->pend_sign[i] = 0;
		}
	}
	return fresh && !fell ? -2 : g;
}

static unsigned int ways_in(const struct rdt_ctl *c, const struct rdt_ctl_layout *l,
			    unsigned int g)
{
	uint64_t m[RDT_CTL_MAX];

	rdt_ctl_masks(c, l, m);
	return popcount64(m[g]);
}

/*
 * Which way a probe pushes the misses of a group whose mask it leaves
 * alone: up when the groups it moves gain ways in all (more pressure),
 * down when they lose them, 0 when they keep as many; 2: the probe moves
 * g itself, whose own figures say nothing of a phase (a loop confined may
 * miss less while it still holds its lines, more than its misses say).
 */
static int probe_pushes(const struct rdt_ctl *c, unsigned int g)
{
	uint64_t a[RDT_CTL_MAX], b[RDT_CTL_MAX];
	int net = 0;

	rdt_ctl_masks(c, &c->cur, a);
	rdt_ctl_masks(c, &c->prev, b);
	if (a[g] != b[g])
		return 2;
	/*
	 * No other group's mask changed inside g's ways: nobody fills them
	 * otherwise than before, and g's misses move only with its program.
	 */
	for (unsigned int i = 0; i < c->n; i++)
		if (i != g && ((a[i] ^ b[i]) & a[g]))
			net = 1;
	if (!net)
		return 0;
	net = 0;
	for (unsigned int i = 0; i < c->n; i++)
		net += (int)popcount64(a[i]) - (int)popcount64(b[i]);
	return net > 0 ? 1 : net < 0 ? -1 : 0;
}

/*
 * A phase boundary inside a probe: the misses of a group the probe leaves
 * alone beyond four of its own spreads and a quarter (and 64) of its
 * history before the probe, the other way than the probe pushes them
 * (probe false: the first interval after a rollback, any group either
 * way). The group that moved most, -1: none.
 */
static int probe_boundary(struct rdt_ctl *c, const struct rdt_ctl_sample *s, bool probe)
{
	uint64_t mean, sp, occ, d, big, best = 0;
	int g = -1;

	for (unsigned int i = 0; c->gn >= 2 && i < c->n; i++) {
		int sign, push = probe ? probe_pushes(c, i) : 0;

		/*
		 * A stream kept to two ways or fewer that starts to hit has
		 * stopped: what others leave of those ways holds too little
		 * for a loop that missed all it touched there to fit.
		 */
		if (push != 2 && is_stream(&c->before[i]) && !is_stream(&s[i]) &&
		    ways_in(c, &c->cur, i) <= 2)
			push = 0;
		group_stats(c, i, &mean, &sp, &occ);
		d = absdiff(s[i].misses, mean);
		sign = s[i].misses > mean ? 1 : -1;
		big = big_shift(mean, sp);
		if (push != 2 && sign != push && d > big && d > best) {
			best = d;
			g = (int)i;
		}
	}
	return g;
}

/*
 * Group g holds a block of its own in the layout in force and no more
 * than its ways (and half of one): what it holds rose inside the block,
 * taken from no one.
 */
static bool in_block(const struct rdt_ctl *c, unsigned int g, uint64_t occ_bytes)
{
	return c->cur.kind[g] == RDT_CTL_RESERVED &&
	       occ_bytes <= ways_in(c, &c->cur, g) * c->way_bytes + c->way_bytes / 2;
}

/*
 * After a phase change what was refused may be tried again, the layout
 * kept is measured against all shared before anything new is probed, and
 * each group's role is read from its signals: misses up while what it
 * holds fell, squeezed (a block of its own is the first move tried for
 * it); misses up while what it holds rose, a new polluter (confined
 * first, to a quarter of the pool) - unless it rose inside a block of
 * its own, filling what it was given.
 */
static void phase(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot, int pg,
		  const struct rdt_ctl_layout *from, struct rdt_ctl_event *ev)
{
	uint64_t mean, sp, occ, ref, half = c->way_bytes / 2;
	size_t o;

	snprintf(ev->why, sizeof(ev->why), "%llu misses against %llu per interval (spread "
		 "%llu): refused moves may be tried again", (unsigned long long)tot,
		 (unsigned long long)c->base, (unsigned long long)c->noise);
	for (unsigned int i = 0; i < c->n; i++) {
		group_stats(c, i, &mean, &sp, &occ);
		ref = c->pend_sign[i] > 0 ? c->pend_mean[i] : mean;
		/* inside a probe: what it holds fell because the probe took ways */
		c->squeezed[i] = s[i].misses > ref + 32 && s[i].misses > ref + ref / 4 &&
				 s[i].occ_bytes + half < occ &&
				 (!from || ways_in(c, &c->cur, i) >= ways_in(c, from, i));
		/*
		 * A stream found by test stays one while it misses as it did,
		 * and past a phase change only if it misses nearly all it
		 * touches: one that reuses some was found so in the phase
		 * before, and may be hungry in this one while it misses in its
		 * block as it did (S 4 groups roles move 8 at 11 ways kept
		 * such a group in 2 ways through the phase that made it
		 * hungry: 1.050 x no partition).
		 */
		if (absdiff(s[i].misses, mean) > (mean / 4 > 64 ? mean / 4 : 64) ||
		    !is_stream(&s[i]))
			c->streaming[i] = false;
		c->polluter[i] = s[i].misses > ref + 32 && s[i].misses > ref + ref / 4 &&
				 s[i].occ_bytes > occ + half && !is_stream(&s[i]) &&
				 !bounded(c, i) && !c->goal[i].exclusive &&
				 !in_block(c, i, s[i].occ_bytes);
		o = strlen(ev->why);
		if (c->squeezed[i] || c->polluter[i])
			snprintf(ev->why + o, sizeof(ev->why) - o, "; group %u %s (%llu misses, was "
				 "%llu)", i, c->squeezed[i] ? "squeezed" : "a new polluter",
				 (unsigned long long)s[i].misses, (unsigned long long)ref);
	}
	c->role_pol = 0;
	c->role_sq = 0;
	for (unsigned int i = 0; i < c->n; i++) {
		c->role_pol |= (uint64_t)c->polluter[i] << i;
		c->role_sq |= (uint64_t)c->squeezed[i] << i;
	}
	c->role_tried = false;
	c->floor_beaten = false;
	say(ev, "phase", false, c->base, tot, pg, 0);
	c->shared_rate = all_shared(c, &c->cur) ? tot : 0;
	memset(c->backoff_until, 0, sizeof(c->backoff_until));
	memset(c->backoff_len, 0, sizeof(c->backoff_len));
	c->shared_gap = SHARED_GAP_MIN;
	/* the kept layout is verified first (its watch has done its work) */
	c->kept_watch = false;
	c->shared_due = c->t + (all_shared(c, &c->cur) ? SHARED_GAP_MIN : 1);
	c->next_probe = c->t + 1;
	hist_reset(c);
	hist_push(c, s, tot);
	c->phase_fresh = true;
}

/*
 * The roles of the last phase change seen before, and a layout kept under
 * them: that layout is the likely winner, probed (once) before any other.
 */
static bool recalled(struct rdt_ctl *c, struct rdt_ctl_event *ev)
{
	int g = -1, m;

	if (c->role_tried || (!c->role_pol && !c->role_sq))
		return false;
	for (unsigned int i = 0; i < c->nroles; i++) {
		const struct rdt_ctl_layout *l = &c->roles[i].l;

		if (c->roles[i].pol != c->role_pol || c->roles[i].sq != c->role_sq ||
		    c->roles[i].lost || !layout_ok(c, l) || rdt_ctl_same_layout(c, l, &c->cur))
			continue;
		g = __builtin_ctzll(c->role_pol | c->role_sq);
		m = c->polluter[g] ? MV_CONFINE : MV_RESERVE;
		c->role_tried = true;
		if (!start_probe(c, l, g, m, ev, "the layout kept when these roles were seen "
				 "before, for"))
			return false;
		/* it won under these roles before: kept unless it is worse now */
		c->probe_lenient = true;
		return true;
	}
	return false;
}

/*
 * After a phase change whose signals name a group's role (a new polluter,
 * a group squeezed), the layout kept is put to the test by the likely
 * winner built on all shared - every placement of the layout kept
 * dropped but a stream's, that one move applied - rather than by all
 * shared alone: both answer whether the layout kept still pays.
 */
static bool likely_on_shared(struct rdt_ctl *c, struct rdt_ctl_event *ev)
{
	struct rdt_ctl_layout l;

	if (recalled(c, ev))
		return true;

	for (unsigned int g = 0; g < c->n; g++) {
		unsigned int m = c->polluter[g] ? MV_CONFINE : MV_RESERVE;

		if ((!c->polluter[g] && !c->squeezed[g]) || c->backoff_until[g][m] > c->t ||
		    c->last[g].misses < 64)
			continue;
		shared_of(c, &l);
		if (!apply_move(c, &l, g, m) || rdt_ctl_same_layout(c, &l, &c->cur) ||
		    lost_here(c, &l))
			continue;
		if (start_probe(c, &l, (int)g, (int)m, ev, c->polluter[g] ?
				"all shared but the new polluter confined:" :
				"all shared but a block for the squeezed"))
			return true;
	}
	return false;
}

/* ghist and gocc as they were before the probe rolled back */
static void rb_restore(struct rdt_ctl *c)
{
	memcpy(c->ghist, c->rb_ghist, sizeof(c->ghist));
	memcpy(c->gocc, c->rb_gocc, sizeof(c->gocc));
	c->gn = c->rb_gn;
}

/*
 * The first interval measured after a rollback, each group's misses
 * against its own before the probe: a shift beyond four of its spreads
 * and a quarter (and 64) is a phase boundary the probe's figures hid (it
 * was judged on figures of two phases), the roles read against that
 * history. A shift beyond two spreads and an eighth (and 32) waits for
 * the next interval (rollback_second).
 */
static bool rollback_hid_phase(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot,
			       struct rdt_ctl_event *ev)
{
	uint64_t mean, sp, occ, small;
	int g;

	rb_restore(c);
	g = probe_boundary(c, s, false);
	if (g >= 0) {
		c->rb_gn = 0;
		phase(c, s, tot, g, NULL, ev);
		roles_at_once(c, ev);
		return true;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		group_stats(c, i, &mean, &sp, &occ);
		small = small_shift(mean, sp);
		c->pend_sign[i] = 0;
		if (absdiff(s[i].misses, mean) > small) {
			c->pend_sign[i] = s[i].misses > mean ? 1 : -1;
			c->pend_mean[i] = mean;
			c->pend_jump[i] = small;
			c->rb_second = c->t + 1;
		}
	}
	if (c->rb_second != c->t + 1)
		c->rb_gn = 0;
	c->gn = 0;
	return false;
}

/*
 * The second interval measured after a rollback: a group whose misses
 * moved beyond the smaller threshold in the first, against its history
 * before the probe, and again the same way now, shifted with a phase the
 * probe hid - as phase_change() reads two intervals running. The history
 * since the rollback began with the shift, and cannot show it.
 */
static bool rollback_second(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot,
			    struct rdt_ctl_event *ev)
{
	uint64_t d, best = 0;
	int g = -1;

	for (unsigned int i = 0; i < c->n; i++) {
		d = absdiff(s[i].misses, c->pend_mean[i]);
		if (pend_again(c, i, s[i].misses) && d > best) {
			best = d;
			g = (int)i;
		}
	}
	if (g < 0)
		return false;
	c->rb_second = 0;
	/* the roles are read against that history */
	rb_restore(c);
	c->rb_gn = 0;
	phase(c, s, tot, g, NULL, ev);
	roles_at_once(c, ev);
	return true;
}

/* Back to all shared without a probe: nothing left to verify the layout kept with. */
static void floor_unverified(struct rdt_ctl *c, struct rdt_ctl_event *ev)
{
	struct rdt_ctl_layout l;

	shared_of(c, &l);
	if (rdt_ctl_same_layout(c, &l, &c->cur) ||
	    !may_write(c, writes_between(c, &c->cur, &l), false))
		return;
	set_change(c, &l);
	snprintf(ev->why, sizeof(ev->why), "the probing budget is spent (%llu misses lost): "
		 "all shared, the layout kept not verified since the phase changed",
		 (unsigned long long)c->spent);
	say(ev, "rollback", true, c->base, 0, -1, 0);
	c->shared_rate = 0;
	hist_reset(c);
}

static uint64_t budget_left(const struct rdt_ctl *c)
{
	uint64_t allowance = c->seen / 100 + 25ull * c->n + c->earned / 2;

	return c->spent < allowance ? allowance - c->spent : 0;
}

/*
 * A phase change whose signals name a role: the likely winner, built on
 * all shared (or recalled for these roles), is probed in the interval the
 * change is seen, not one later - in phases of a few intervals the one
 * lost is much of what there is. Its base is that one interval, a new
 * phase's level not known yet: it is kept unless worse by the margin.
 */
static void roles_at_once(struct rdt_ctl *c, struct rdt_ctl_event *ev)
{
	char seen[sizeof(ev->why)];

	if ((!c->role_pol && !c->role_sq) || !budget_left(c) || filling(c))
		return;
	baseline(c);
	memcpy(seen, ev->why, sizeof(seen));
	if (c->base < 64 || !likely_on_shared(c, ev))
		return;
	/* the event says both: the phase change and the probe it starts */
	snprintf(ev->why + strlen(ev->why), sizeof(ev->why) - strlen(ev->why), ", at once "
		 "on a phase change: %s", seen);
	/* judged over two intervals after the transitional one, kept unless worse */
	c->probe_lenient = true;
	c->probe_at_once = true;
	if (c->probe_len < 3)
		c->probe_len = 3;
}

static void steady(struct rdt_ctl *c, const struct rdt_ctl_sample *s, uint64_t tot,
		   struct rdt_ctl_event *ev)
{
	struct rdt_ctl_layout l;
	int b = over_bound(c, s), g, m;
	uint64_t left;
	int bg;
	bool fresh;

	if (c->t >= c->bound_hold && (bg = bound_due(c, s)) >= 0 &&
	    bound_move(c, (unsigned int)bg, s, ev))
		return;
	if (c->changed_last) {
		c->changed_last = false;	/* a transitional interval: not cur's figure */
		if (c->after_rollback && tot > c->rb_base)
			c->spent += tot - c->rb_base;
		c->after_rollback = false;
		return;
	}
	if (!c->nhist && c->rb_gn >= 2 && rollback_hid_phase(c, s, tot, ev))
		return;
	if (c->rb_second == c->t) {
		if (c->nhist == 1 && c->rb_gn >= 2 && rollback_second(c, s, tot, ev))
			return;
		/* its pend_* were against the history before the probe */
		c->rb_second = 0;
		memset(c->pend_sign, 0, sizeof(c->pend_sign));
	}
	if (c->rb_second != c->t + 1)
		c->rb_gn = 0;
	/*
	 * A kept layout's verdict outlived: a group it holds to fewer ways
	 * misses well beyond what it did in the verdict. A phase change the
	 * history since (which may have begun with the change) cannot show;
	 * the layout is verified against all shared first, as after any.
	 */
	if (c->kept_watch && c->gn && !all_shared(c, &c->cur) && (g = kept_rise(c, s)) >= 0) {
		phase(c, s, tot, g, NULL, ev);
		snprintf(ev->why + strlen(ev->why), sizeof(ev->why) - strlen(ev->why),
			 "; group %d misses %llu, %llu in the verdict that kept the layout", g,
			 (unsigned long long)s[g].misses, (unsigned long long)c->kept_gm[g]);
		roles_at_once(c, ev);
		return;
	}
	/* not while the cache fills: every group's misses move as it warms */
	fresh = c->phase_fresh && c->nhist == 1 && !filling(c);
	c->phase_fresh = false;
	if (c->nhist >= 2 || (c->nhist && (c->kept_fresh || fresh))) {
		int pg;

		c->kept_fresh = false;
		baseline(c);
		pg = phase_change(c, s, tot, fresh);
		if (pg >= -1) {
			phase(c, s, tot, pg, NULL, ev);
			roles_at_once(c, ev);
			return;
		}
	}
	hist_push(c, s, tot);
	if (all_shared(c, &c->cur))
		c->shared_rate = tot;
	else if (c->shared_rate > tot)
		c->earned += c->shared_rate - tot < c->proven ? c->shared_rate - tot : c->proven;
	else if (c->shared_rate && c->nhist > 2 && tot > c->shared_rate + margin(c))
		/*
		 * a layout kept that loses against all shared beyond its noise
		 * (its baseline measured before this interval): a loss too
		 */
		c->spent += tot - c->shared_rate - margin(c);
	if (c->nhist < 2 || c->t < c->next_probe)
		return;
	/*
	 * Not while the cache still fills (fewer misses so far than twice its
	 * lines, and falling): cold misses, which no layout saves, would pass
	 * for a gain.
	 */
	if (filling(c) && c->hist[c->nhist - 1] <= c->hist[c->nhist - 2])
		return;
	baseline(c);
	/*
	 * Nor while the level falls beyond its margin (a new phase's cold
	 * misses passing): the fall would pass for the probe's gain.
	 */
	if (c->hist[c->nhist - 1] + margin(c) < c->hist[c->nhist - 2])
		return;
	left = budget_left(c);
	if (!left) {
		/* no budget to verify what is kept: the floor, unverified */
		if (!all_shared(c, &c->cur) && c->t >= c->shared_due)
			floor_unverified(c, ev);
		return;
	}
	if (b < 0 && bound_trim(c, s, ev))
		return;
	/* all shared is measured again even where there is little to gain: it is the floor */
	if (!all_shared(c, &c->cur) && c->t >= c->shared_due) {
		if (likely_on_shared(c, ev))
			return;
		shared_of(c, &l);
		if (start_probe(c, &l, -1, 0, ev, "all shared"))
			return;
	}
	if (c->base >= 64 && recalled(c, ev))
		return;
	/* nothing to gain beyond the noise */
	if (c->base < 64 || pick(c, &l, &g, &m) < 0)
		return;
	/*
	 * While the cache fills every group's misses fall as it warms, and
	 * any move would pass for a gain: only a stream is confined then (it
	 * misses as much warm as cold), or tested for (judged by its gain
	 * only while its own misses hold: misses_as_before).
	 */
	if (filling(c) && m != MV_STREAM && !stream_confined(c, g, m))
		return;
	/*
	 * A probe may cost up to twice the margin in its first interval
	 * before it is rolled back, and the interval after: it starts only
	 * with that much budget left (some, for the move a phase change's
	 * signals point to). A stream confined costs the stream
	 * nothing.
	 */
	if (left >= (likely(c, g, m) ? 0 : PROBE_RISK) * margin(c) || stream_confined(c, g, m))
		start_probe(c, &l, g, m, ev, mv_name[m]);
}

void rdt_ctl_step(struct rdt_ctl *c, const struct rdt_ctl_sample *s, struct rdt_ctl_event *ev)
{
	uint64_t tot = total(c, s);
	int before = c->phase;

	memset(ev, 0, sizeof(*ev));
	ev->group = -1;
	memcpy(c->before, c->last, c->n * sizeof(*s));
	memcpy(c->last, s, c->n * sizeof(*s));
	c->seen += tot;
	/* the slot the next interval reuses */
	if (c->writes)
		c->writes[(c->t + 1) % c->window] = 0;
	if (c->phase == PROBING)
		probing(c, s, tot, ev);
	else
		steady(c, s, tot, ev);
	if (ev->changed && !(before == STEADY && c->phase == PROBING))
		c->changed_last = true;
	c->t++;
}

bool rdt_ctl_adopt(struct rdt_ctl *c, const struct rdt_ctl_layout *l)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (l->kind[i] > RDT_CTL_RESERVED ||
		    ((c->goal[i].exclusive || bounded(c, i)) && l->kind[i] == RDT_CTL_CONFINED) ||
		    (c->goal[i].exclusive && l->kind[i] != RDT_CTL_RESERVED))
			return false;
	if (!layout_ok(c, l))
		return false;
	c->cur = *l;
	c->prev = *l;
	c->kept_watch = false;
	return true;
}

/*
 * The layout last verified (all shared when none): what a run that stops
 * now must leave in force. A probe is not verified until kept; a bound
 * move is (the bound is the goal).
 */
void rdt_ctl_kept_layout(const struct rdt_ctl *c, struct rdt_ctl_layout *out)
{
	if (c->unverified)
		*out = c->fallback;
	else
		*out = c->phase == PROBING ? c->prev : c->cur;
}
