// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * model: the set-associative cache and the miss curves - see cache.h.
 * A set is a row of ways: a lookup compares every way's tag (a hit may be
 * in any way, as CAT limits allocation, not lookup), a fill takes an empty
 * way of the filler's mask, else the least recently used one of its mask.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

#include "cache/cache.h"

#define HUGE_PAGE (2u << 20)

/*
 * Zeroed memory for the model's arrays: a big one in huge pages where the
 * kernel gives them (madvise), as its accesses are random over megabytes
 * and a TLB miss per access would cost as much as the access itself.
 */
static void *zalloc(size_t n)
{
	void *p;

	if (n < HUGE_PAGE)
		return calloc(1, n ? n : 1);
	n = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	if (posix_memalign(&p, HUGE_PAGE, n))
		return NULL;
	madvise(p, n, MADV_HUGEPAGE);	/* a hint: without it, 4 KiB pages */
	memset(p, 0, n);
	return p;
}

int rdt_cache_init(struct rdt_cache *c, unsigned int sets, unsigned int ways)
{
	memset(c, 0, sizeof(*c));
	if (!sets || !ways || ways > 64)
		return -EINVAL;
	c->sets = sets;
	c->ways = ways;
	c->stride = (ways + 3) & ~3u;
	c->row = ((size_t)c->stride * 18 + 63) & ~(size_t)63;
	c->minv = UINT64_MAX / sets;
#ifdef HAVE_AVX2_PATH
	c->simd = __builtin_cpu_supports("avx2") && !getenv("RDTALLOC_NO_SIMD");
#endif
	c->mem = zalloc((size_t)sets * c->row);
	if (!c->mem) {
		rdt_cache_free(c);
		return -ENOMEM;
	}
	return 0;
}

void rdt_cache_free(struct rdt_cache *c)
{
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

static inline __attribute__((always_inline)) void fill(struct rdt_cache *c, uint64_t *tag,
							 unsigned int w, uint64_t t,
							 uint16_t owner)
{
	tag[w] = t;
	tag[c->stride + w] = c->now;
	((uint16_t *)(void *)(tag + 2 * c->stride))[w] = owner;
}

/*
 * Without AVX2: a hit ends the first pass over the set. On a miss the
 * second picks the victim among the mask's ways without a branch on the
 * stamps (they are as good as random to a branch predictor): a way outside
 * the mask weighs 2^63 more, an empty way has stamp 0, below every used
 * one, and the lowest such way wins the tie as the comparison is strict -
 * the first empty way of the mask, else its least recently used.
 */
static bool access_scalar(struct rdt_cache *c, unsigned int set, uint64_t t, uint64_t mask,
			  uint16_t owner)
{
	uint64_t *tag = rdt_cache_tags(c, set), *stamp = tag + c->stride, best = UINT64_MAX;
	unsigned int w, victim = 0;

	for (w = 0; w < c->ways; w++) {
		if (tag[w] == t) {
			stamp[w] = c->now;
			return true;
		}
	}
	for (w = 0; w < c->ways; w++) {
		uint64_t v = stamp[w] | ((~mask >> w & 1) << 63);
		bool lt = v < best;

		best = lt ? v : best;
		victim = lt ? w : victim;
	}
	if (best >> 63)
		return false;	/* an empty mask fills nothing */
	fill(c, tag, victim, t, owner);
	return false;
}

#ifdef HAVE_AVX2_PATH
/*
 * The same with AVX2, four ways at a time: the tags compared at once; on a
 * miss the least stamp of the mask's ways per lane (ways outside it count
 * as INT64_MAX; stamps stay below 2^63, so signed compares do), then the
 * least of the four lanes, the lowest way on a tie.
 */
__attribute__((target("avx2")))
static bool access_avx2(struct rdt_cache *c, unsigned int set, uint64_t t, uint64_t mask,
			uint16_t owner)
{
	uint64_t *tag = rdt_cache_tags(c, set), *stamp = tag + c->stride;
	const __m256i key = _mm256_set1_epi64x((long long)t), one = _mm256_set1_epi64x(1);
	const __m256i top = _mm256_set1_epi64x(INT64_MAX), four = _mm256_set1_epi64x(4);
	const __m256i mk = _mm256_set1_epi64x((long long)mask);
	__m256i best = top, at = _mm256_setzero_si256(), idx = _mm256_setr_epi64x(0, 1, 2, 3);
	long long b[4], bi[4];
	unsigned int w, l, victim;
	int hit;

	for (w = 0; w < c->stride; w += 4) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(tag + w));

		hit = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, key)));
		if (hit) {
			stamp[w + (unsigned int)__builtin_ctz((unsigned int)hit)] = c->now;
			return true;
		}
	}
	for (w = 0; w < c->stride; w += 4) {
		__m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(stamp + w));
		__m256i in = _mm256_and_si256(_mm256_srlv_epi64(mk, idx), one);
		__m256i lt;

		s = _mm256_blendv_epi8(top, s, _mm256_cmpeq_epi64(in, one));
		lt = _mm256_cmpgt_epi64(best, s);
		best = _mm256_blendv_epi8(best, s, lt);
		at = _mm256_blendv_epi8(at, idx, lt);
		idx = _mm256_add_epi64(idx, four);
	}
	_mm256_storeu_si256((__m256i *)(void *)b, best);
	_mm256_storeu_si256((__m256i *)(void *)bi, at);
	/*
	 * The upper halves clean before the SSE code that follows (the set of
	 * the next line is found with doubles): GCC leaves them dirty on this
	 * path, and every SSE instruction after would pay for it.
	 */
	_mm256_zeroupper();
	for (victim = 0, l = 1; l < 4; l++)
		if (b[l] < b[victim] || (b[l] == b[victim] && bi[l] < bi[victim]))
			victim = l;
	if (b[victim] == INT64_MAX)
		return false;	/* an empty mask fills nothing */
	fill(c, tag, (unsigned int)bi[victim], t, owner);
	return false;
}
#endif

bool rdt_cache_access(struct rdt_cache *c, uint64_t line, uint64_t mask, uint16_t owner)
{
	unsigned int set = rdt_cache_set(c, line);

	c->now++;
	mask &= c->ways >= 64 ? UINT64_MAX : (UINT64_C(1) << c->ways) - 1;
#ifdef HAVE_AVX2_PATH
	if (c->simd)
		return access_avx2(c, set, line + 1, mask, owner);
#endif
	return access_scalar(c, set, line + 1, mask, owner);
}

void rdt_cache_occupancy(const struct rdt_cache *c, uint64_t *occ, unsigned int n)
{
	unsigned int set, w;

	for (set = 0; set < c->sets; set++) {
		const uint64_t *tag = rdt_cache_tags(c, set);
		const uint16_t *own = rdt_cache_owners(c, set);

		for (w = 0; w < c->ways; w++)
			if (tag[w] && own[w] < n)
				occ[own[w]]++;
	}
}

/*
 * Mattson: per set, the lines in LRU order (most recent first), at most
 * ways deep. An access at stack depth d hits in every cache of more than d
 * ways per set; one deeper (or new) misses in all of them.
 *
 * A set's stack is one row with its depth in front ([0] depth, [1..ways]
 * lines), whole cache lines, so an access touches one place; the trace is
 * read in batches whose sets are computed first, and each set's row is
 * fetched CURVE_AHEAD accesses before its turn: the stacks of a 30 MiB
 * L3 are megabytes, and the walk waited on memory at every access.
 */
#define CURVE_BATCH 4096u
#define CURVE_AHEAD 16u
#define CURVE_MIN_SETS 256u	/* a sample keeps at least this many sets */

/* Zeroed whole cache lines, none shared with another allocation. */
static void *zalloc_lines(size_t n)
{
	void *p;

	n = (n + 63) & ~(size_t)63;
	if (posix_memalign(&p, 64, n ? n : 64))
		return NULL;
	memset(p, 0, n ? n : 64);
	return p;
}

struct curve {
	unsigned int sets, ways, words;	/* words: of a row */
	unsigned int shift, lo, hi;	/* which sets are this worker's: set_mine() */
	bool simd;			/* AVX2 (AVX-512's masked stores were slower on Zen 4) */
	uint64_t minv;
	uint64_t *rows;			/* a row per set; only the worker's are touched */
	uint64_t *hist, cold, seen;
};

/*
 * Which sets a worker models: in the sample when a multiplicative hash of
 * the set's index has its top shift bits clear - one in 2^shift sets,
 * spread over the index range whatever the trace's strides - and the
 * worker's when the index is in its share of the range [lo, hi): two
 * compares, where a second hash per access cost a tenth of the pass.
 */
static inline bool set_mine(const struct curve *cv, unsigned int set)
{
	uint32_t h = (uint32_t)set * 0x9e3779b1u;
	bool sampled = !cv->shift || !(h >> (32 - cv->shift));

	return sampled && set >= cv->lo && set < cv->hi;
}

/* Rows for the sets (this worker's are the only ones touched): 0 or -ENOMEM. */
static int curve_init(struct curve *cv, unsigned int sets, unsigned int ways, unsigned int shift,
		      unsigned int work, unsigned int nwork, unsigned int *nsets)
{
	unsigned int set;

	memset(cv, 0, sizeof(*cv));
	cv->sets = sets;
	cv->ways = ways;
	cv->shift = shift;
	cv->lo = (unsigned int)((uint64_t)sets * work / nwork);
	cv->hi = (unsigned int)((uint64_t)sets * (work + 1) / nwork);
	cv->words = (ways + 4 + 7) & ~7u;	/* the compare of four may read three past ways */
	cv->minv = UINT64_MAX / sets;
#ifdef HAVE_AVX2_PATH
	cv->simd = __builtin_cpu_supports("avx2") && !getenv("RDTALLOC_NO_SIMD");
#endif
	for (*nsets = 0, set = 0; set < sets; set++)
		*nsets += set_mine(cv, set);
	/* zalloc: huge pages, and untouched rows cost no memory */
	cv->rows = zalloc((size_t)sets * cv->words * sizeof(uint64_t));
	/* a cache line of its own: workers count into theirs at every access */
	cv->hist = zalloc_lines(ways * sizeof(*cv->hist));
	return cv->rows && cv->hist ? 0 : -ENOMEM;
}

static void curve_free(struct curve *cv)
{
	free(cv->rows);
	free(cv->hist);
	memset(cv, 0, sizeof(*cv));
}

/*
 * One access to a row: its stack distance counted, the line moved to the
 * top. Rows hold line + 1: 0 is an empty place.
 */
static inline void stack_access(struct curve *cv, uint64_t *row, uint64_t line)
{
	uint64_t *s = row + 1, depth = row[0];
	unsigned int d;

	for (d = 0; d < depth && s[d] != line; d++)
		;
	if (d < depth) {
		cv->hist[d]++;
	} else {
		cv->cold++;
		if (depth < cv->ways)
			row[0] = ++depth;
		else
			d--;	/* not found in a full stack: the last one drops out */
	}
	for (; d > 0; d--)
		s[d] = s[d - 1];
	s[0] = line;
}

#ifdef HAVE_AVX2_PATH
/*
 * The same with AVX2 and one branch (hit or miss): every place compared
 * four at a time into one bit mask, and the shift by one done over the
 * whole row from the top down, places above d blended back unchanged -
 * the scalar walk's exit and shift loops mispredicted at random depths.
 */
__attribute__((target("avx2"))) static inline __attribute__((always_inline))
void stack_access_avx2(struct curve *cv, uint64_t *row, uint64_t line)
{
	const __m256i key = _mm256_set1_epi64x((long long)line);
	uint64_t *s = row + 1, found = 0, depth = row[0];
	unsigned int w, d;
	__m256i idx, dv;

	for (w = 0; w < cv->ways; w += 4) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + w));
		unsigned int m = (unsigned int)_mm256_movemask_pd(
			_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, key)));

		found |= (uint64_t)m << w;
	}
	if (found) {
		d = (unsigned int)__builtin_ctzll(found);
		cv->hist[d]++;
	} else {
		cv->cold++;
		d = depth < cv->ways ? (unsigned int)depth : cv->ways - 1;
		if (depth < cv->ways)
			row[0] = depth + 1;
	}
	/* places 1..d take the one below them; from the top, so each reads the old value */
	dv = _mm256_set1_epi64x((long long)d);
	w = (cv->ways - 1) & ~3u;
	idx = _mm256_setr_epi64x(w, w + 1, w + 2, w + 3);
	for (;;) {
		__m256i old = _mm256_loadu_si256((const __m256i *)(const void *)(s + w));
		__m256i below = _mm256_loadu_si256((const __m256i *)(const void *)(s + w - 1));
		__m256i take = _mm256_andnot_si256(_mm256_cmpgt_epi64(idx, dv),
						   _mm256_cmpgt_epi64(idx, _mm256_setzero_si256()));

		_mm256_storeu_si256((__m256i *)(void *)(s + w), _mm256_blendv_epi8(old, below, take));
		if (!w)
			break;
		w -= 4;
		idx = _mm256_sub_epi64(idx, _mm256_set1_epi64x(4));
	}
	s[0] = line;
}
#endif

/*
 * The rows and lines of a batch that are this worker's (of its sample, of
 * its part of the sets), packed without a branch: a test per access on
 * whether a hashed set is ours mispredicted half the time.
 */
static size_t batch_rows(struct curve *cv, const uint64_t *lines, size_t n, uint64_t **row,
			 uint64_t *tag)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned int set = rdt_mod(lines[i], cv->sets, cv->minv);

		row[k] = cv->rows + (size_t)set * cv->words;
		tag[k] = lines[i] + 1;	/* rows hold line + 1: 0 is an empty place */
		k += set_mine(cv, set);
	}
	return k;
}

static inline __attribute__((always_inline)) void prefetch_row(const struct curve *cv,
							     const uint64_t *row)
{
	__builtin_prefetch(row, 1);
	if (cv->words > 8)
		__builtin_prefetch((const char *)row + 64, 1);
}

/* The walk of a batch, each row fetched CURVE_AHEAD accesses ahead. */
static void curve_batch(struct curve *cv, const uint64_t *lines, size_t n, uint64_t **row,
			uint64_t *tag)
{
	size_t i;

	n = batch_rows(cv, lines, n, row, tag);
	cv->seen += n;
	for (i = 0; i < n; i++) {
		if (i + CURVE_AHEAD < n)
			prefetch_row(cv, row[i + CURVE_AHEAD]);
		stack_access(cv, row[i], tag[i]);
	}
}

#ifdef HAVE_AVX2_PATH
/* The same, compiled for AVX2 as a whole: no call and no state change per access. */
__attribute__((target("avx2")))
static void curve_batch_avx2(struct curve *cv, const uint64_t *lines, size_t n, uint64_t **row,
			     uint64_t *tag)
{
	size_t i;

	n = batch_rows(cv, lines, n, row, tag);
	cv->seen += n;
	for (i = 0; i < n; i++) {
		if (i + CURVE_AHEAD < n)
			prefetch_row(cv, row[i + CURVE_AHEAD]);
		stack_access_avx2(cv, row[i], tag[i]);
	}
	_mm256_zeroupper();
}
#endif

/*
 * A worker of a curve: its own reader of the whole trace and its own part
 * of the sets. Every worker reads every access (reading is a tenth of the
 * work), so no access is handed between threads.
 */
struct curve_work {
	struct curve cv;	/* first: each worker's counters on lines of their own */
	const char *path;
	bool instr;
	unsigned int sets, ways, shift, work, nwork;
	unsigned int nsets;
	uint64_t n;
	int ret;
	char err[256];
	pthread_t thread;
} __attribute__((aligned(64)));

static void *curve_run(void *arg)
{
	struct curve_work *w = arg;
	uint64_t *lines = malloc(CURVE_BATCH * sizeof(*lines)), **row = malloc(
		CURVE_BATCH * sizeof(*row)), *tag = malloc(CURVE_BATCH * sizeof(*tag));
	struct rdt_trace *t = NULL;
	ssize_t got;

	w->ret = curve_init(&w->cv, w->sets, w->ways, w->shift, w->work, w->nwork, &w->nsets);
	if (w->ret || !lines || !row || !tag) {
		w->ret = -ENOMEM;
		snprintf(w->err, sizeof(w->err), "out of memory");
		goto out;
	}
	w->ret = rdt_trace_open(w->path, w->instr, &t, w->err, sizeof(w->err));
	while (!w->ret && (got = rdt_trace_read(t, lines, CURVE_BATCH, w->err,
						sizeof(w->err))) != 0) {
		if (got < 0) {
			w->ret = (int)got;
			break;
		}
#ifdef HAVE_AVX2_PATH
		if (w->cv.simd)
			curve_batch_avx2(&w->cv, lines, (size_t)got, row, tag);
		else
#endif
			curve_batch(&w->cv, lines, (size_t)got, row, tag);
		w->n += (uint64_t)got;
	}
out:
	rdt_trace_close(t);
	free(lines);
	free(row);
	free(tag);
	return NULL;
}

/*
 * Workers for a curve: one per CPU this process may run on, at most
 * CURVE_WORKERS, for a binary trace of CURVE_MT_RECORDS records or more
 * (each worker parses the whole trace: text is parsed once, by one).
 * RDTALLOC_CURVE_WORKERS=N (1-4) sets the count.
 */
#define CURVE_WORKERS 4u
#define CURVE_MT_RECORDS (8u << 20)

static unsigned int curve_workers(const char *path, unsigned int sets)
{
	const char *force = getenv("RDTALLOC_CURVE_WORKERS");
	unsigned char head[16];
	cpu_set_t cpus;
	unsigned int n;
	struct stat sb;
	FILE *f;

	/* a count chosen by hand (tests, measurements): 1..CURVE_WORKERS, at most one per set */
	if (force && force[0] >= '1' && force[0] <= '0' + (int)CURVE_WORKERS && !force[1])
		return (unsigned int)(force[0] - '0') < sets ? (unsigned int)(force[0] - '0') : 1;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < 16 +
	    (uint64_t)CURVE_MT_RECORDS * 8)
		return 1;
	f = fopen(path, "re");
	if (!f)
		return 1;
	n = fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, RDT_TRACE_MAGIC, 8);
	fclose(f);
	if (!n || sched_getaffinity(0, sizeof(cpus), &cpus))
		return 1;
	n = (unsigned int)CPU_COUNT(&cpus);
	n = n < CURVE_WORKERS ? n : CURVE_WORKERS;
	return n && sets >= n * CURVE_MIN_SETS ? n : 1;
}

int rdt_cache_curve_sampled(const char *path, bool instr, unsigned int sets, unsigned int ways,
			    unsigned int shift, uint64_t *misses, uint64_t *accesses,
			    struct rdt_curve_sample *smp, char *err, size_t len)
{
	struct curve_work *w = NULL;
	unsigned int k, i, nwork, nsets = 0, started = 0;
	uint64_t hits, seen = 0, *hist = NULL;
	int ret = 0;

	if (!sets || !ways || ways > 64) {
		snprintf(err, len, "a cache of %u sets and %u ways cannot be modelled", sets, ways);
		return -EINVAL;
	}
	if (shift > RDT_CURVE_SHIFT_MAX) {
		snprintf(err, len, "a sampling rate of 1 in 2^%u sets is out of range (at most 2^%u)",
			 shift, RDT_CURVE_SHIFT_MAX);
		return -EINVAL;
	}
	/* fewer sets than the floor: sample more densely, and say so */
	while (shift && (sets >> shift) < CURVE_MIN_SETS)
		shift--;
	/* a sample is small work: one worker */
	nwork = shift ? 1 : curve_workers(path, sets);
	w = zalloc_lines(nwork * sizeof(*w));
	hist = calloc(ways, sizeof(*hist));
	if (!w || !hist) {
		free(w);
		free(hist);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < nwork; i++) {
		w[i] = (struct curve_work){ .path = path, .instr = instr, .sets = sets,
					    .ways = ways, .shift = shift, .work = i,
					    .nwork = nwork };
		/* worker 0 runs here; a thread that cannot start leaves its sets to one rerun */
		if (i && pthread_create(&w[i].thread, NULL, curve_run, &w[i]))
			break;
		if (i)
			started++;
	}
	if (started + 1 < nwork) {
		/* not every thread started: do it in one worker instead */
		for (i = 1; i <= started; i++)
			pthread_join(w[i].thread, NULL);
		for (i = 1; i <= started; i++)
			curve_free(&w[i].cv);
		started = 0;
		nwork = 1;
		w[0].nwork = 1;
	}
	curve_run(&w[0]);
	for (i = 1; i <= started; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < nwork && !ret; i++) {
		if (w[i].ret) {
			ret = w[i].ret;
			snprintf(err, len, "%s", w[i].err);
		}
	}
	if (ret)
		goto out;
	for (i = 0; i < nwork; i++) {
		for (k = 0; k < ways; k++)
			hist[k] += w[i].cv.hist[k];
		seen += w[i].cv.seen;
		nsets += w[i].nsets;
	}
	*accesses = w[0].n;
	for (k = 1, hits = 0; k <= ways; k++) {
		uint64_t m;

		hits += hist[k - 1];
		m = seen - hits;
		/* sampled: the sample's miss ratio, of every access */
		if (shift)
			m = seen ? (uint64_t)((double)m / (double)seen * (double)w[0].n + 0.5) : 0;
		misses[k - 1] = m;
	}
	if (smp) {
		smp->shift = shift;
		smp->sets = nsets;
		smp->accesses = seen;
	}
out:
	for (i = 0; i < nwork; i++)
		curve_free(&w[i].cv);
	free(w);
	free(hist);
	return ret;
}

int rdt_cache_curve(const char *path, bool instr, unsigned int sets, unsigned int ways,
		    uint64_t *misses, uint64_t *accesses, char *err, size_t len)
{
	return rdt_cache_curve_sampled(path, instr, sets, ways, 0, misses, accesses, NULL, err,
				       len);
}
