// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_cache: the cache model against a reference simulator written here
 * (a plain LRU list per set, no stamps, no arrays of ways): identical hits,
 * misses and occupancy per RMID for partitioned and shared masks over a
 * few thousand accesses of mixed traces; the miss curve of one pass equal
 * to replays at every way count (loops, streams, random over a working
 * set); traces in lackey text and in the binary form read the same; a
 * malformed line named by its number; rdtalloc_sim_replay through the API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#include "cache/cache.h"

#define SETS 16
#define WAYS 8

/* ---- the reference: per set a list of (line, owner), most recent first ---- */

struct ref_line {
	uint64_t line;
	unsigned int owner;
	unsigned int way;
};

struct ref {
	struct ref_line l[SETS][WAYS];
	unsigned int n[SETS];
};

/* CAT: hit anywhere; fill an empty way of the mask (lowest), else the LRU line in the mask. */
static bool ref_access(struct ref *r, uint64_t line, uint64_t mask, unsigned int owner)
{
	unsigned int s = (unsigned int)(line % SETS), i, w;
	struct ref_line x;

	for (i = 0; i < r->n[s]; i++) {
		if (r->l[s][i].line == line) {
			x = r->l[s][i];
			memmove(&r->l[s][1], &r->l[s][0], i * sizeof(x));
			r->l[s][0] = x;
			return true;
		}
	}
	for (w = 0; w < WAYS; w++) {
		bool used = false;

		if (!(mask >> w & 1))
			continue;
		for (i = 0; i < r->n[s]; i++)
			used |= r->l[s][i].way == w;
		if (!used) {
			memmove(&r->l[s][1], &r->l[s][0], r->n[s] * sizeof(x));
			r->l[s][0] = (struct ref_line){ line, owner, w };
			r->n[s]++;
			return false;
		}
	}
	for (i = r->n[s]; i-- > 0;) {
		if (mask >> r->l[s][i].way & 1) {
			x = (struct ref_line){ line, owner, r->l[s][i].way };
			memmove(&r->l[s][1], &r->l[s][0], i * sizeof(x));
			r->l[s][0] = x;
			return false;
		}
	}
	return false;
}

/* ---- traces ------------------------------------------------------------------- */

static char dir[64];

static char *path_of(const char *name)
{
	static char p[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

enum pattern { LOOP, STREAM, RANDOM };

/* n accesses: a loop over ws lines, a stream, or random lines of ws. */
static void write_trace(const char *name, enum pattern pt, unsigned int n, unsigned int ws,
			uint64_t base, unsigned int seed)
{
	FILE *f = fopen(path_of(name), "w");
	unsigned int i;

	assert_non_null(f);
	srand(seed);
	for (i = 0; i < n; i++) {
		uint64_t line = pt == LOOP ? i % ws : pt == STREAM ? i : (uint64_t)rand() % ws;

		fprintf(f, "%s %llx,%d\n", i % 3 ? " L" : " S",
			(unsigned long long)((base + line) * 64 + 8), 4);
		if (i % 5 == 0)
			fprintf(f, "I  %llx,3\n", (unsigned long long)(0x400000 + i));
	}
	fclose(f);
}

static int setup(void **state)
{
	tu_mkdtemp(dir);
	write_trace("loop", LOOP, 3000, 60, 0, 1);
	write_trace("stream", STREAM, 3000, 0, 1 << 20, 2);
	write_trace("random", RANDOM, 3000, 100, 2 << 20, 3);
	write_trace("small", LOOP, 3000, 20, 3 << 20, 4);
	return 0;
}

static int teardown(void **state)
{
	tu_rm_rf(dir);
	return 0;
}

/* Replay traces with masks through the model and the reference; compare everything. */
static void compare(const char *const *names, const uint64_t *masks, unsigned int n)
{
	struct rdt_trace *t[4];
	struct rdt_cache c;
	struct ref *ref = calloc(1, sizeof(*ref));
	uint64_t hits[4] = { 0 }, rhits[4] = { 0 }, occ[4] = { 0 }, rocc[4] = { 0 }, line;
	enum rdt_acc_kind k;
	char err[256];
	bool done[4] = { false };
	unsigned int i, live = n, s, j;

	assert_non_null(ref);
	assert_int_equal(rdt_cache_init(&c, SETS, WAYS), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(rdt_trace_open(path_of(names[i]), false, &t[i], err, sizeof(err)), 0);
	while (live) {
		for (i = 0; i < n; i++) {
			int ret;

			if (done[i])
				continue;
			ret = rdt_trace_next(t[i], &line, &k, err, sizeof(err));
			assert_true(ret >= 0);
			if (!ret) {
				done[i] = true;
				live--;
				continue;
			}
			assert_int_not_equal(k, RDT_ACC_INSTR);	/* data only */
			hits[i] += rdt_cache_access(&c, line, masks[i], (uint16_t)i);
			rhits[i] += ref_access(ref, line, masks[i], i);
		}
	}
	rdt_cache_occupancy(&c, occ, n);
	for (s = 0; s < SETS; s++)
		for (j = 0; j < ref->n[s]; j++)
			rocc[ref->l[s][j].owner]++;
	for (i = 0; i < n; i++) {
		assert_int_equal(hits[i], rhits[i]);
		assert_int_equal(occ[i], rocc[i]);
		rdt_trace_close(t[i]);
	}
	rdt_cache_free(&c);
	free(ref);
}

static void against_reference(void **state)
{
	const char *mix[] = { "loop", "stream", "random", "small" };
	const uint64_t parted[] = { 0x0f, 0x30, 0xc0, 0x0f };
	const uint64_t shared[] = { 0xff, 0xff, 0xff, 0xff };
	const uint64_t overlap[] = { 0x3f, 0xfc, 0x1e, 0x01 };

	compare(mix, parted, 4);
	compare(mix, shared, 4);
	compare(mix, overlap, 4);
	compare(mix, shared, 1);
}

/* One pass equals a replay alone with k ways, for every k. */
static void curve_equals_replay(void **state)
{
	const char *names[] = { "loop", "stream", "random", "small" };
	uint64_t misses[WAYS], n, line;
	enum rdt_acc_kind kd;
	char err[256];
	unsigned int i, k;

	for (i = 0; i < 4; i++) {
		assert_int_equal(rdt_cache_curve(path_of(names[i]), false, SETS, WAYS, misses, &n, err,
						 sizeof(err)), 0);
		assert_int_equal(n, 3000);
		for (k = 1; k <= WAYS; k++) {
			struct rdt_trace *t;
			struct rdt_cache c;
			uint64_t m = 0;

			assert_int_equal(rdt_cache_init(&c, SETS, WAYS), 0);
			assert_int_equal(rdt_trace_open(path_of(names[i]), false, &t, err, sizeof(err)),
					 0);
			while (rdt_trace_next(t, &line, &kd, err, sizeof(err)) == 1)
				m += !rdt_cache_access(&c, line, (UINT64_C(1) << k) - 1, 0);
			rdt_trace_close(t);
			rdt_cache_free(&c);
			assert_int_equal(misses[k - 1], m);
		}
	}
	/*
	 * known shapes: a loop of 60 lines over 16 sets (12 sets of 4 lines, 4
	 * of 3), each line 50 times: 4 ways hold it (cold misses only); with 3
	 * the 48 lines of the full sets always miss, the others once each
	 */
	assert_int_equal(rdt_cache_curve(path_of("loop"), false, SETS, WAYS, misses, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(misses[3], 60);
	assert_int_equal(misses[2], 48 * 50 + 12);
	assert_int_equal(misses[WAYS - 1], 60);
}

/* Any split of the sets between workers gives the curve of one worker, exactly. */
static void curve_workers_agree(void **state)
{
	const char *names[] = { "loop", "random", "random.bin" };
	uint64_t one[WAYS], many[WAYS], n1, n2;
	char err[256], count[2] = "1";
	unsigned int i;

	for (i = 0; i < 3; i++) {
		setenv("RDTALLOC_CURVE_WORKERS", "1", 1);
		assert_int_equal(rdt_cache_curve(path_of(names[i]), false, SETS, WAYS, one, &n1, err,
						 sizeof(err)), 0);
		for (count[0] = '2'; count[0] <= '4'; count[0]++) {
			setenv("RDTALLOC_CURVE_WORKERS", count, 1);
			assert_int_equal(rdt_cache_curve(path_of(names[i]), false, SETS, WAYS, many,
							 &n2, err, sizeof(err)), 0);
			assert_int_equal(n1, n2);
			assert_memory_equal(one, many, sizeof(one));
		}
	}
	/* an error is the same from any worker: the first line that is not an access */
	setenv("RDTALLOC_CURVE_WORKERS", "3", 1);
	{
		FILE *f = fopen(path_of("bad3"), "w");

		fputs(" L 1000,4\n L 2000,4\nnot an access\n", f);
		fclose(f);
	}
	assert_int_equal(rdt_cache_curve(path_of("bad3"), false, SETS, WAYS, many, &n2, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3: 'not an access'"));
	unsetenv("RDTALLOC_CURVE_WORKERS");
}

/*
 * A sampled curve: one set in 16 of 4,096 modelled, within 0.01 of the
 * exact miss ratio at every way count on a random walk over 2.5 times the
 * cache; the sample reported; too few sets for the rate asked: a denser one.
 */
static void sampled_curve(void **state)
{
	const unsigned int sets = 4096, ways = 8;
	uint64_t exact[8], smp[8], n, ns, x = 88172645463325252ull, rec;
	struct rdt_curve_sample info;
	char err[256];
	FILE *f = fopen(path_of("walk.bin"), "w");
	unsigned int i, k;

	assert_non_null(f);
	n = 400000;
	fwrite(RDT_TRACE_MAGIC, 1, 8, f);
	fwrite(&n, 8, 1, f);
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		rec = (x % (sets * ways * 5 / 2)) << 2;
		fwrite(&rec, 8, 1, f);
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rdt_cache_curve(path_of("walk.bin"), false, sets, ways, exact, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(rdt_cache_curve_sampled(path_of("walk.bin"), false, sets, ways, 4, smp, &ns,
						 &info, err, sizeof(err)), 0);
	assert_int_equal(ns, n);
	assert_int_equal(info.shift, 4);
	assert_in_range(info.sets, 192, 320);
	assert_in_range(info.accesses, n / 32, n / 8);
	for (k = 0; k < ways; k++) {
		double d = ((double)smp[k] - (double)exact[k]) / (double)n;

		assert_true(d < 0.01 && d > -0.01);
	}
	/* 1,024 sets, one in 16 asked: 64 sets would be too few, one in 4 (256) is taken */
	assert_int_equal(rdt_cache_curve_sampled(path_of("walk.bin"), false, 1024, ways, 4, smp, &ns,
						 &info, err, sizeof(err)), 0);
	assert_int_equal(info.shift, 2);
	/* and a rate past the most */
	assert_int_equal(rdt_cache_curve_sampled(path_of("walk.bin"), false, sets, ways, 13, smp,
						 &ns, &info, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1 in 2^13 sets is out of range"));
}

static void binary_and_text_agree(void **state)
{
	uint64_t a[WAYS], b[WAYS], na, nb, n;
	char err[256];

	assert_int_equal(rdt_trace_convert(path_of("random"), path_of("random.bin"), false, &n, err,
					   sizeof(err)), 0);
	assert_int_equal(n, 3000);
	assert_int_equal(rdt_cache_curve(path_of("random"), false, SETS, WAYS, a, &na, err,
					 sizeof(err)), 0);
	assert_int_equal(rdt_cache_curve(path_of("random.bin"), false, SETS, WAYS, b, &nb, err,
					 sizeof(err)), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, sizeof(a));
	/*
	 * with instruction fetches: one more access every five, two where the
	 * 3-byte fetch at 0x400000 + i crosses a line (i % 64 of 62 or 63: 18)
	 */
	assert_int_equal(rdt_trace_convert(path_of("random"), path_of("random-i.bin"), true, &n,
					   err, sizeof(err)), 0);
	assert_int_equal(n, 3600 + 18);
}

static void malformed(void **state)
{
	FILE *f = fopen(path_of("bad"), "w");
	uint64_t m[WAYS], n;
	char err[256];

	assert_non_null(f);
	fputs(" L 1000,8\n S 2000,8\n L 12x4,8\n", f);
	fclose(f);
	assert_int_equal(rdt_cache_curve(path_of("bad"), false, SETS, WAYS, m, &n, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3: ' L 12x4,8' is not a lackey access"));
	/* a binary trace cut short */
	f = fopen(path_of("cut.bin"), "w");
	assert_non_null(f);
	fwrite("RDTTRC01\x05\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0", 1, 24, f);
	fclose(f);
	assert_int_equal(rdt_cache_curve(path_of("cut.bin"), false, SETS, WAYS, m, &n, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cut short?"));
	/* a directory is not a trace */
	assert_int_equal(rdt_cache_curve(dir, false, SETS, WAYS, m, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	/* an access whose end wraps past 2^64: an error at once, not 2^58 lines */
	f = fopen(path_of("wrap"), "w");
	assert_non_null(f);
	fputs(" L 1000,8\n L ffffffffffffffff,8\n", f);
	fclose(f);
	assert_int_equal(rdt_cache_curve(path_of("wrap"), false, SETS, WAYS, m, &n, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "wrap line 2: an access of 8 bytes at 0xffffffffffffffff "
			       "runs past the end of the address space"));
	assert_int_equal(rdt_trace_convert(path_of("wrap"), path_of("wrap.bin"), false, &n, err,
					   sizeof(err)), -EINVAL);
	assert_int_equal(access(path_of("wrap.bin"), F_OK), -1);
	/* the last byte of the address space is an access like any other */
	f = fopen(path_of("top"), "w");
	assert_non_null(f);
	fputs(" L ffffffffffffffc0,64\r\n L ffffffffffffffff,1\r\n", f);
	fclose(f);
	assert_int_equal(rdt_cache_curve(path_of("top"), false, SETS, WAYS, m, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(n, 2);		/* CRLF ends a line as LF does */
	/* an unprintable byte is shown, not printed */
	f = fopen(path_of("ctl"), "w");
	assert_non_null(f);
	fputs(" L 1000,8\x01\n", f);
	fclose(f);
	assert_int_equal(rdt_cache_curve(path_of("ctl"), false, SETS, WAYS, m, &n, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: ' L 1000,8\\x01' is not a lackey access"));
}

/*
 * A convert killed half-way leaves at most OUT.tmp.PID; the next convert to
 * OUT removes those of processes that are gone, and no others.
 */
static void convert_stale(void **state)
{
	char stale[512], live[512], other[512];
	uint64_t n;
	char err[256];
	FILE *f;

	(void)state;
	snprintf(stale, sizeof(stale), "%s.tmp.%d", path_of("conv.bin"), INT32_MAX - 1);
	snprintf(live, sizeof(live), "%s.tmp.%d", path_of("conv.bin"), (int)getppid());
	snprintf(other, sizeof(other), "%s.tmp.%d", path_of("convx.bin"), INT32_MAX - 1);
	for (const char *p = stale; p; p = p == stale ? live : p == live ? other : NULL) {
		f = fopen(p, "w");
		assert_non_null(f);
		fclose(f);
	}
	f = fopen(path_of("conv"), "w");
	assert_non_null(f);
	fputs(" L 1000,8\n", f);
	fclose(f);
	assert_int_equal(rdt_trace_convert(path_of("conv"), path_of("conv.bin"), false, &n, err,
					   sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(access(stale, F_OK), -1);	/* its process is gone */
	assert_int_equal(access(live, F_OK), 0);	/* a live process's is kept */
	assert_int_equal(access(other, F_OK), 0);	/* another output's is kept */
	unlink(live);
	unlink(other);
}

/* Through the API: the machine's geometry and the groups' masks. */
static void api_replay(void **state)
{
	rdtalloc_t *r = tu_eph("topology=package:1 l3:1(size=8KiB) core:2 pu:1;l3.cbm_len=8;"
			       "tasks=virtual");
	char loop[128], stream[128], none[128];
	const char *groups[] = { "a", "b" }, *traces[] = { loop, stream };
	struct rdtalloc_replay_group out[2] = { { .sz = sizeof(out[0]) }, { .sz = sizeof(out[0]) } };
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	const uint64_t masks[] = { 0x0f, 0xf0 };
	const char *names[] = { "loop", "stream" };

	/* path_of's buffers are reused: the API gets copies */
	snprintf(loop, sizeof(loop), "%s", path_of("loop"));
	snprintf(stream, sizeof(stream), "%s", path_of("stream"));
	snprintf(none, sizeof(none), "%s", path_of("nonesuch"));
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=0f"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f0"));
	assert_ok(r, rdtalloc_sim_replay(r, -1, 2, groups, traces, 0, &geo, out));
	assert_int_equal(geo.sets, SETS);	/* 8 KiB / (8 ways * 64 B) */
	assert_int_equal(geo.ways, WAYS);
	assert_string_equal(out[0].group, "a");
	assert_int_equal(out[0].accesses, 3000);
	/* the loop's 60 lines fit in its 4 ways: cold misses only */
	assert_int_equal(out[0].misses, 60);
	assert_int_equal(out[0].llc_occupancy, 60 * 64);
	assert_int_equal(out[1].misses, 3000);
	assert_int_equal(out[1].llc_occupancy, 64 * 64);
	compare(names, masks, 2);
	traces[1] = none;
	assert_int_equal(rdtalloc_sim_replay(r, -1, 2, groups, traces, 0, &geo, out), -EINVAL);
	assert_errmsg_has(r, "nonesuch: No such file or directory");
	rdtalloc_close(r);
	/* hwloc's synthetic default, 16 MiB, is no whole number of 20-way sets */
	r = tu_eph(M2V);
	assert_int_equal(rdtalloc_sim_replay(r, 1, 1, groups, traces, 0, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "L3 cache id 1: 16777216 bytes are not 20 ways of "
			    "whole 64-byte sets, which the model needs; model the nearest size "
			    "below that is: --machine 'topology=package:1 l3:1(size=16380KiB) "
			    "core:1 pu:1;l3.cbm_len=20;l3.min_cbm_bits=1'");
	assert_int_equal(rdtalloc_sim_replay(r, 7, 1, groups, traces, 0, &geo, out), -ENOENT);
	assert_string_equal(rdtalloc_errmsg(r), "no L3 cache id 7 (rdtctl info)");
	rdtalloc_close(r);
	r = tu_eph("topology=package:2 l3:1(size=10MiB) core:2 pu:1;tasks=virtual");
	groups[0] = "default";
	assert_ok(r, rdtalloc_sim_replay(r, 1, 1, groups, traces, 0, &geo, out));
	assert_int_equal(geo.cache_id, 1);
	assert_int_equal(geo.sets, 10 * 1024 * 1024 / (20 * 64));
	assert_int_equal(out[0].misses, 60);
	rdtalloc_close(r);
}

/*
 * RDTALLOC_REPLAY_COUNT: the sim's counters take the replay (traffic =
 * misses x 64, occupancy what it left, kept in the state file); without
 * monitoring, or with unknown flags, a named error and nothing changes.
 */
static void api_replay_counts(void **state)
{
	const char *m = "topology=package:1 l3:1(size=8KiB) core:2 pu:1;l3.cbm_len=8;"
			"tasks=virtual;mon.scale=64";
	struct rdtalloc_replay_group out[2] = { { .sz = sizeof(out[0]) }, { .sz = sizeof(out[0]) } };
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_mon_value v[3] = { { .sz = sizeof(v[0]) } };
	RDTALLOC_OPTS(rdtalloc_sim_load, ld, .footprint = 4096, .rate = 1);
	const char *groups[] = { "a", "b" }, *traces[2];
	char loop[128], stream[128], sd[160];
	rdtalloc_t *r;

	snprintf(loop, sizeof(loop), "%s", path_of("loop"));
	snprintf(stream, sizeof(stream), "%s", path_of("stream"));
	snprintf(sd, sizeof(sd), "%s", path_of("state"));
	traces[0] = loop;
	traces[1] = stream;
	r = tu_open(sd, m, 0);
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=0f"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f0"));
	assert_int_equal(rdtalloc_sim_replay(r, -1, 2, groups, traces, 1u << 7, &geo, out),
			 -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_sim_replay: unknown flags 0x80");
	assert_ok(r, rdtalloc_sim_replay(r, -1, 2, groups, traces, RDTALLOC_REPLAY_COUNT, &geo,
					 out));
	rdtalloc_close(r);
	r = tu_open(sd, m, 0);	/* another process reads them */
	v[1].sz = v[2].sz = sizeof(v[0]);
	assert_int_equal(rdtalloc_mon_read(r, NULL, 0, v, 3), 3);
	assert_string_equal(v[1].group, "a");
	assert_int_equal(v[1].mbm_total, 60 * 64);
	assert_int_equal(v[1].mbm_local, 60 * 64);
	assert_int_equal(v[1].llc_occupancy, 60 * 64);
	assert_int_equal(v[2].mbm_total, 3000 * 64);
	assert_int_equal(v[2].llc_occupancy, 64 * 64);
	assert_int_equal(v[0].llc_occupancy, 0);
	/* a workload set there: its model says what the cache holds now */
	assert_ok(r, rdtalloc_sim_set_load(r, "a", 0, &ld));
	assert_int_equal(rdtalloc_mon_read(r, NULL, 0, v, 3), 3);
	assert_int_equal(v[1].llc_occupancy, 4096);
	assert_int_equal(v[2].llc_occupancy, 0);
	assert_int_equal(v[2].mbm_total, 3000 * 64);
	rdtalloc_close(r);
	r = tu_eph("topology=package:1 l3:1(size=8KiB) core:2 pu:1;l3.cbm_len=8;"
		   "tasks=virtual;mon.rmids=0");
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_int_equal(rdtalloc_sim_replay(r, -1, 1, groups, traces, RDTALLOC_REPLAY_COUNT,
					     &geo, out), -EOPNOTSUPP);
	assert_string_equal(rdtalloc_errmsg(r), "a replay counts into the simulator's monitoring "
			    "counters: backend sim on a machine without L3 monitoring has none");
	rdtalloc_close(r);
}

/* The set of a line without a division: exactly line mod sets, at every size. */
static void set_of_line(void **state)
{
	static const unsigned int sets[] = { 1, 3, 1024, 12288, 16383, 4000037, 0x7fffffff };
	uint64_t x = 88172645463325252ull;
	unsigned int i, k;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct rdt_cache c;

		assert_int_equal(rdt_cache_init(&c, 1, 1), 0);
		c.sets = sets[i];
		c.minv = UINT64_MAX / sets[i];
		for (k = 0; k < 200000; k++) {
			uint64_t line;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			line = k % 3 == 0 ? x >> (k % 64) : k % 3 == 1 ? x >> 12 : (x % sets[i]) *
			       (uint64_t)sets[i] - (k & 1);
			assert_int_equal(rdt_cache_set(&c, line), line % sets[i]);
		}
		assert_int_equal(rdt_cache_set(&c, (UINT64_C(1) << 52) - 1),
				 ((UINT64_C(1) << 52) - 1) % sets[i]);
		assert_int_equal(rdt_cache_set(&c, UINT64_MAX), UINT64_MAX % sets[i]);
		assert_int_equal(rdt_cache_set(&c, UINT64_MAX - sets[i]),
				 (UINT64_MAX - sets[i]) % sets[i]);
		rdt_cache_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(set_of_line),
		cmocka_unit_test(against_reference),
		cmocka_unit_test(curve_equals_replay),
		cmocka_unit_test(binary_and_text_agree),
		cmocka_unit_test(curve_workers_agree),
		cmocka_unit_test(sampled_curve),
		cmocka_unit_test(malformed),
		cmocka_unit_test(convert_stale),
		cmocka_unit_test(api_replay),
		cmocka_unit_test(api_replay_counts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
