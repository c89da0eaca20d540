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
#include <sys/types.h>

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
/*
 * The next up to max accesses' lines at once (the kinds dropped: a curve
 * needs none); how many, 0 at the end, -errno with err set.
 */
ssize_t rdt_trace_read(struct rdt_trace *t, uint64_t *lines, size_t max, char *err, size_t len);
void rdt_trace_close(struct rdt_trace *t);
/* Every access of in (lackey or binary) into out in the binary form; how many. */
int rdt_trace_convert(const char *in, const char *out, bool instr, uint64_t *n, char *err,
		      size_t len);

/*
 * One L3 domain: sets x ways lines. A set is one row of memory: the tags
 * of its ways (line + 1; 0: empty), their last use (0: never) and who
 * filled each, stride (ways rounded up to 4) of each so that tags and
 * stamps are compared four ways at a time; the ways past `ways` stay empty
 * and unfillable. One row, not three arrays: an access touches one place.
 */
struct rdt_cache {
	unsigned int sets, ways, stride;
	size_t row;			/* bytes of a set, a multiple of 64 */
	uint64_t minv;			/* floor((2^64 - 1) / sets), for rdt_cache_set */
	bool simd;			/* the CPU has AVX2 */
	unsigned char *mem;		/* [sets * row] */
	uint64_t now;
};

static inline uint64_t *rdt_cache_tags(const struct rdt_cache *c, unsigned int set)
{
	return (uint64_t *)(void *)(c->mem + (size_t)set * c->row);
}

static inline uint64_t *rdt_cache_stamps(const struct rdt_cache *c, unsigned int set)
{
	return rdt_cache_tags(c, set) + c->stride;
}

static inline uint16_t *rdt_cache_owners(const struct rdt_cache *c, unsigned int set)
{
	return (uint16_t *)(void *)(rdt_cache_tags(c, set) + 2 * c->stride);
}

/*
 * line mod sets, exactly, without a division: the high half of line times
 * minv = floor((2^64 - 1) / sets) is the quotient or one below it (for
 * every 64-bit line), and the remainder says which. Integer only: no
 * floating point in the replay's loop (whose SSE code beside the AVX2 of
 * rdt_cache_access would cost a state change per access).
 */
static inline unsigned int rdt_mod(uint64_t line, unsigned int sets, uint64_t minv)
{
	uint64_t q = (uint64_t)(((unsigned __int128)line * minv) >> 64);
	uint64_t r = line - q * sets;

	return (unsigned int)(r >= sets ? r - sets : r);
}

static inline unsigned int rdt_cache_set(const struct rdt_cache *c, uint64_t line)
{
	return rdt_mod(line, c->sets, c->minv);
}

/* Fetch the set of line into the CPU's caches ahead of its access: its whole row. */
static inline void rdt_cache_prefetch(const struct rdt_cache *c, uint64_t line)
{
	const char *p = (const char *)rdt_cache_tags(c, rdt_cache_set(c, line));
	size_t off;

	for (off = 0; off < c->row; off += 64)
		__builtin_prefetch(p + off, 1);
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

/*
 * The same from a sample of the sets (as UCP's monitors and SHARDS do):
 * about one set in 2^shift, picked by a hash of its index, modelled
 * exactly; misses[] is the sample's miss ratio times every access. shift
 * is lowered until at least 256 sets are in the sample; what was used goes
 * to *smp (may be NULL). shift 0: exact, as rdt_cache_curve.
 */
#define RDT_CURVE_SHIFT_MAX 12
struct rdt_curve_sample {
	unsigned int shift;	/* 1 set in 2^shift */
	unsigned int sets;	/* sets in the sample */
	uint64_t accesses;	/* accesses to them */
};
int rdt_cache_curve_sampled(const char *path, bool instr, unsigned int sets, unsigned int ways,
			    unsigned int shift, uint64_t *misses, uint64_t *accesses,
			    struct rdt_curve_sample *smp, char *err, size_t len);

/* ---- for the planner (cache_api.c) ---- */

struct rdtalloc;
struct rdtalloc_cache_geometry;

/* Domain index of cache_id (-1: the first) and its geometry; errors named in r. */
int rdt_cache_geometry(struct rdtalloc *r, int cache_id, struct rdtalloc_cache_geometry *g,
		       int *dom);
/*
 * Replay n traces together (one access of each in turn, from an empty
 * cache of sets x ways) with fill masks[i]: misses[i], accesses[i]. mode:
 * 0, RDTALLOC_TRACE_CUT or RDTALLOC_TRACE_LOOP (unequal lengths).
 */
int rdt_cache_replay_masks(struct rdtalloc *r, size_t n, const char *const *traces,
			   const uint64_t *masks, bool instr, unsigned int mode, unsigned int sets,
			   unsigned int ways, uint64_t *misses, uint64_t *accesses);

#endif
