// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * model: the set-associative cache and the miss curves - see cache.h.
 * A set is a row of ways: a lookup compares every way's tag (a hit may be
 * in any way, as CAT limits allocation, not lookup), a fill takes an empty
 * way of the filler's mask, else the least recently used one of its mask.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
 */
int rdt_cache_curve(const char *path, bool instr, unsigned int sets, unsigned int ways,
		    uint64_t *misses, uint64_t *accesses, char *err, size_t len)
{
	uint64_t *stack = NULL, *hist = NULL, line, n = 0, cold = 0, minv = UINT64_MAX / (sets ? sets : 1);
	unsigned int *depth = NULL, d, k;
	struct rdt_trace *t = NULL;
	enum rdt_acc_kind kind;
	int ret;

	if (!sets || !ways || ways > 64) {
		snprintf(err, len, "a cache of %u sets and %u ways cannot be modelled", sets, ways);
		return -EINVAL;
	}
	stack = calloc((size_t)sets * ways, sizeof(*stack));
	depth = calloc(sets, sizeof(*depth));
	hist = calloc(ways, sizeof(*hist));
	if (!stack || !depth || !hist) {
		ret = -ENOMEM;
		snprintf(err, len, "out of memory");
		goto out;
	}
	ret = rdt_trace_open(path, instr, &t, err, len);
	while (!ret && (ret = rdt_trace_next(t, &line, &kind, err, len)) == 1) {
		unsigned int set = rdt_mod(line, sets, minv);
		uint64_t *s = stack + (size_t)set * ways;

		n++;
		for (d = 0; d < depth[set] && s[d] != line; d++)
			;
		if (d < depth[set])
			hist[d]++;
		else
			cold++;
		if (d == depth[set] && depth[set] < ways)
			depth[set]++;
		if (d == depth[set])
			d--;	/* not found in a full stack: the last one drops out */
		memmove(s + 1, s, d * sizeof(*s));
		s[0] = line;
		ret = 0;
	}
	if (ret < 0)
		goto out;
	ret = 0;
	*accesses = n;
	for (k = 1; k <= ways; k++) {
		uint64_t hits = 0;

		for (d = 0; d < k; d++)
			hits += hist[d];
		misses[k - 1] = n - hits;
	}
out:
	rdt_trace_close(t);
	free(stack);
	free(depth);
	free(hist);
	return ret;
}
