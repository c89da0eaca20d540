/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache: the exact cache model behind `rdtctl sim replay` and `rdtctl
 * profile --trace`. Owns memory traces (valgrind lackey's text and our
 * binary form, read streaming with bounded memory), a set-associative L3
 * of one domain with CAT's rule (a hit in any way, a fill only into the
 * ways of the filler's mask, LRU among those; every line remembers the
 * RMID that filled it), and miss-ratio curves from one pass (Mattson's
 * LRU stack distances per set). docs/plan.md.
 *
 * Placement is by line address modulo the number of sets. Real parts hash
 * physical addresses over slices; the traces hold virtual addresses.
 */
#ifndef RDT_CACHE_H
#define RDT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RDT_LINE 64u
#define RDT_TRACE_MAGIC "RDTTRC01"	/* 8 bytes, then a u64 record count */

/* An access of a trace: the line (address / 64) and its kind. */
enum rdt_acc_kind { RDT_ACC_LOAD, RDT_ACC_STORE, RDT_ACC_MODIFY, RDT_ACC_INSTR };

struct rdt_trace;

/*
 * Open a trace (lackey text, or our binary form, told by its first bytes);
 * instr: instruction fetches count too. A FIFO, a device or a directory is
 * refused at once. -errno with err set (naming the file).
 */
int rdt_trace_open(const char *path, bool instr, struct rdt_trace **out, char *err, size_t len);
/* The next access's line: 1, 0 at the end, -errno with err set (file and line number). */
int rdt_trace_next(struct rdt_trace *t, uint64_t *line, enum rdt_acc_kind *kind, char *err,
		   size_t len);
void rdt_trace_close(struct rdt_trace *t);
/* Every access of in (lackey or binary) into out in the binary form; how many. */
int rdt_trace_convert(const char *in, const char *out, bool instr, uint64_t *n, char *err,
		      size_t len);

/* A way of a set: tag and last use side by side, so that a set is a few cache lines. */
struct rdt_way {
	uint64_t tag;			/* line + 1; 0: empty */
	uint64_t stamp;			/* last use */
};

/* One L3 domain: sets x ways lines. */
struct rdt_cache {
	unsigned int sets, ways;
	double inv;			/* 1 / sets, for rdt_cache_set */
	struct rdt_way *way;		/* [sets * ways] */
	uint16_t *owner;		/* [sets * ways] who filled it */
	uint64_t now;
};

/*
 * line mod sets, exactly, without a 64-bit division: the quotient from a
 * floating-point reciprocal is off by at most one below 2^52, and the
 * remainder says which way.
 */
static inline unsigned int rdt_cache_set(const struct rdt_cache *c, uint64_t line)
{
	uint64_t q, r;

	if (line >= (UINT64_C(1) << 52))
		return (unsigned int)(line % c->sets);
	q = (uint64_t)((double)line * c->inv);
	r = line - q * c->sets;
	if ((int64_t)r < 0)
		r += c->sets;
	else if (r >= c->sets)
		r -= c->sets;
	return (unsigned int)r;
}

int rdt_cache_init(struct rdt_cache *c, unsigned int sets, unsigned int ways);
void rdt_cache_free(struct rdt_cache *c);
/* One access of owner with fill mask (bit w: way w may be filled): true on a hit. */
bool rdt_cache_access(struct rdt_cache *c, uint64_t line, uint64_t mask, uint16_t owner);
/* Lines each owner holds (occ[owner] += ...), for owners < n. */
void rdt_cache_occupancy(const struct rdt_cache *c, uint64_t *occ, unsigned int n);

/*
 * Miss counts of one trace alone for every allocation of 1..ways ways of a
 * cache of sets sets: misses[k-1] for k ways, *accesses the total.
 */
int rdt_cache_curve(const char *path, bool instr, unsigned int sets, unsigned int ways,
		    uint64_t *misses, uint64_t *accesses, char *err, size_t len);

/* ---- for the planner (api.c) ---- */

struct rdtalloc;
struct rdtalloc_cache_geometry;

/* Domain index of cache_id (-1: the first) and its geometry; errors named in r. */
int rdt_cache_geometry(struct rdtalloc *r, int cache_id, struct rdtalloc_cache_geometry *g,
		       int *dom);
/*
 * Replay n traces together (one access of each in turn, from an empty
 * cache of sets x ways) with fill masks[i]: misses[i], accesses[i].
 */
int rdt_cache_replay_masks(struct rdtalloc *r, size_t n, const char *const *traces,
			   const uint64_t *masks, bool instr, unsigned int sets, unsigned int ways,
			   uint64_t *misses, uint64_t *accesses);

#endif
