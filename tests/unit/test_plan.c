// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_plan: rdtalloc_plan and the shared-pool model behind it. Curves
 * made by hand (loops: flat after the ways they need; a stream: flat at 1)
 * give known answers: UCP's ways, a bound's fewest ways, pools where the
 * CLOSIDs or the ways do not go round (and -ENOSPC with
 * RDTALLOC_PLAN_APART), exclusive groups off the shareable ways, entries
 * of a caller built before the appended fields written at its stride, and
 * every bad goal named. The model: a group alone is its curve; loops that
 * fit together keep what they need; a stream crowds a loop out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

#include "plan/plan.h"

#define W 16
#define M16 "topology=package:1 l3:1(size=1MiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual;" \
	    "mon.rmids=0"

/* A loop over `need` ways of every set: misses all below, cold misses (1 %) from there. */
static void loop_curve(double *mr, unsigned int need)
{
	unsigned int k;

	for (k = 1; k <= W; k++)
		mr[k - 1] = k < need ? 1.0 : 0.01;
}

static void stream_curve(double *mr)
{
	unsigned int k;

	for (k = 1; k <= W; k++)
		mr[k - 1] = 1.0;
}

static double c_big[W], c_mid[W], c_small[W], c_stream[W];
static const double *curves[] = { c_big, c_mid, c_small, c_stream };
static const uint64_t acc[] = { 100000, 100000, 100000, 100000 };

static int setup(void **state)
{
	loop_curve(c_big, 9);
	loop_curve(c_mid, 4);
	loop_curve(c_small, 2);
	stream_curve(c_stream);
	return 0;
}

static void outs(struct rdtalloc_plan_group *out, size_t n)
{
	size_t i;

	memset(out, 0, n * sizeof(*out));
	for (i = 0; i < n; i++)
		out[i].sz = sizeof(out[i]);
}

/* UCP: each loop gets what it needs, the stream the least, the rest to the first. */
static void fewest_misses(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[4];

	outs(out, 4);
	assert_ok(r, rdtalloc_plan(r, -1, 4, curves, W, acc, NULL, &geo, out));
	assert_int_equal(geo.sets, 1024);
	assert_int_equal(out[0].ways, 9);
	assert_int_equal(out[1].ways, 4);
	assert_int_equal(out[2].ways, 2);
	assert_int_equal(out[3].ways, 1);
	assert_int_equal(out[0].mask, 0x01ff);
	assert_int_equal(out[1].mask, 0x1e00);
	assert_int_equal(out[2].mask, 0x6000);
	assert_int_equal(out[3].mask, 0x8000);
	assert_true(out[0].predicted_miss_ratio == 0.01);
	assert_true(out[3].predicted_miss_ratio == 1.0);
	assert_false(out[0].shared);
	assert_int_equal(out[2].pool, 2);
	rdtalloc_close(r);
}

/* A caller built before the appended fields: its entries, at its stride, and no more. */
struct old_entry {
	size_t sz;
	unsigned int ways;
	uint64_t mask;
	double predicted_miss_ratio;
	int shared;
};

static void old_stride(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct old_entry old[5];

	memset(old, 0xa5, sizeof(old));
	old[0].sz = sizeof(old[0]);
	assert_ok(r, rdtalloc_plan(r, -1, 4, curves, W, acc, NULL, &geo,
				   (struct rdtalloc_plan_group *)old));
	assert_int_equal(old[1].ways, 4);
	assert_int_equal(old[1].mask, 0x1e00);
	assert_int_equal(old[3].mask, 0x8000);
	assert_int_equal(old[3].sz, sizeof(old[0]));
	assert_int_equal(old[4].sz, (size_t)0xa5a5a5a5a5a5a5a5ull);	/* untouched */
	rdtalloc_close(r);
}

static void bound(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[4];
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .kind = RDTALLOC_PLAN_BOUND,
					   .group = 1, .bound = 0.5 };

	outs(out, 4);
	assert_ok(r, rdtalloc_plan(r, -1, 4, curves, W, acc, &goal, &geo, out));
	assert_int_equal(out[1].ways, 4);	/* the fewest at or under 0.5 */
	goal.group = 3;
	assert_int_equal(rdtalloc_plan(r, -1, 4, curves, W, acc, &goal, &geo, out), -ERANGE);
	assert_string_equal(rdtalloc_errmsg(r), "the group of curve 3 cannot keep its miss ratio "
			    "at 0.5: with the 15 ways it could have it misses 1");
	rdtalloc_close(r);
}

/* Three CLOSIDs: the default group's and two units; three groups pool. */
static void closids_pool(void **state)
{
	rdtalloc_t *r = tu_eph(M16 ";l3.closids=3;l3.cdp=0");
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[3];
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .flags = RDTALLOC_PLAN_APART };
	const double *cv[] = { c_mid, c_small, c_stream };

	outs(out, 3);
	assert_ok(r, rdtalloc_plan(r, -1, 3, cv, W, acc, NULL, &geo, out));
	/* the stream crowds whichever loop it joins: the two loops pool (6 lines of 16) */
	assert_int_equal(out[0].mask, out[1].mask);
	assert_true(out[0].shared && out[1].shared && !out[2].shared);
	assert_int_equal(out[0].pool, 0);
	assert_int_equal(out[1].pool, 0);
	assert_int_equal(out[2].pool, 2);
	assert_true(out[0].predicted_miss_ratio == 0.01);
	assert_true(out[1].predicted_miss_ratio == 0.01);
	assert_int_equal(rdtalloc_plan(r, -1, 3, cv, W, acc, &goal, &geo, out), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "3 groups do not go round: 3 of them apart need 3 "
			    "CLOSIDs beside the default group's and 3 ways; L3 has 2 and 16");
	rdtalloc_close(r);
}

/* Exclusive ways: a block at an end off the shareable ways, the default group's least left. */
static void exclusive(void **state)
{
	rdtalloc_t *r = tu_eph(M16 ";l3.shareable_bits=3");
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[2];
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .exclusive = 1 };
	const double *cv[] = { c_big, c_mid };

	outs(out, 2);
	assert_ok(r, rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out));
	assert_true(out[0].exclusive && !out[1].exclusive);
	/* the 9 ways it needs at the high end (0x3 is shareable); the 3 nobody gains from spare */
	assert_int_equal(out[0].mask, 0xff80);
	assert_int_equal(out[1].mask, 0x000f);
	goal.exclusive = 3;			/* both: off 0x3, which the default keeps */
	assert_ok(r, rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out));
	assert_int_equal(__builtin_popcountll(out[0].mask), 9);
	assert_int_equal(__builtin_popcountll(out[1].mask), 4);
	assert_int_equal((out[0].mask | out[1].mask) & 0x3, 0);
	assert_int_equal(out[0].mask & out[1].mask, 0);
	goal.exclusive = 4;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "plan goal: exclusive groups 0x4: there are 2 "
			    "groups");
	rdtalloc_close(r);
}

/*
 * Ways other groups hold exclusive (goal.avoid): the plan lays out in the
 * longest run of the others - here ways 4-15 of 16, UCP's answer in 12 -
 * and fewer than the least left is -ENOSPC, named.
 */
static void avoid_ways(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[4];
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal), .avoid = 0x000f };
	size_t i;

	outs(out, 4);
	assert_ok(r, rdtalloc_plan(r, -1, 4, curves, W, acc, &goal, &geo, out));
	for (i = 0; i < 4; i++)
		assert_int_equal(out[i].mask & 0x000f, 0);
	/* 12 ways: mid 4, small 2, stream 1; big gains nothing short of 9: its least */
	assert_int_equal(out[0].ways, 1);
	assert_int_equal(out[1].ways, 4);
	assert_int_equal(out[2].ways, 2);
	assert_int_equal(out[0].mask, 0x0010);
	/* a hole in the middle: the longer side is taken */
	goal.avoid = 0x0f00;
	assert_ok(r, rdtalloc_plan(r, -1, 4, curves, W, acc, &goal, &geo, out));
	for (i = 0; i < 4; i++)
		assert_true((out[i].mask & ~(uint64_t)0x00ff) == 0);
	goal.avoid = 0xffff;
	assert_int_equal(rdtalloc_plan(r, -1, 4, curves, W, acc, &goal, &geo, out), -ENOSPC);
	assert_string_equal(rdtalloc_errmsg(r), "no 1 ways in a row are left to plan over: ways "
			    "0xffff are held exclusive by groups outside the plan");
	rdtalloc_close(r);
}

/* Spare ways: with the default group, or to the group named (RDTALLOC_PLAN_SPARE). */
static void spare_ways(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[2];
	struct rdtalloc_plan_goal goal = { .sz = sizeof(goal) };
	const double *cv[] = { c_mid, c_small };

	outs(out, 2);
	assert_ok(r, rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out));
	assert_int_equal(out[0].ways, 4);	/* what they need, no more: 10 ways spare */
	assert_int_equal(out[1].ways, 2);
	goal.flags = RDTALLOC_PLAN_SPARE;
	goal.spare = 1;
	assert_ok(r, rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out));
	assert_int_equal(out[0].ways, 4);
	assert_int_equal(out[1].ways, 12);
	goal.spare = 2;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "plan goal: spare ways to group 2: there are 2 "
			    "groups");
	rdtalloc_close(r);
}

static void bad_goals(void **state)
{
	rdtalloc_t *r = tu_eph(M16);
	struct rdtalloc_cache_geometry geo = { .sz = sizeof(geo) };
	struct rdtalloc_plan_group out[2];
	struct rdtalloc_plan_goal goal = { .sz = 8 };
	const double *cv[] = { c_big, c_mid };
	double bad[W];

	outs(out, 2);
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_plan_goal.sz is 8: set it to "
			    "sizeof(struct rdtalloc_plan_goal)");
	goal.sz = sizeof(goal);
	goal.flags = 8;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "plan goal: unknown flags 0x8");
	goal.flags = 0;
	goal.kind = 7;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, &goal, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "plan goal 7: not RDTALLOC_PLAN_MISSES or _BOUND");
	out[0].sz = 4;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, NULL, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_plan_group.sz is 4: set it to "
			    "sizeof(struct rdtalloc_plan_group)");
	out[0].sz = sizeof(out[0]);
	memcpy(bad, c_mid, sizeof(bad));
	bad[3] = 1.5;
	cv[1] = bad;
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, W, acc, NULL, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "curve 1: miss ratio 1.5 at 4 ways is not in 0..1");
	assert_int_equal(rdtalloc_plan(r, -1, 2, cv, 8, acc, NULL, &geo, out), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "the curves are for 8 ways; L3 has 16: profile on "
			    "this machine");
	rdtalloc_close(r);
}

/* The shared-pool model on curves with known answers. */
static void share_model(void **state)
{
	struct rdt_share_member m[2] = {
		{ .mr = c_mid, .accesses = 1000, .cap = W },
		{ .mr = c_small, .accesses = 1000, .cap = W },
	};
	double out[2];

	/* alone: the curve at the pool's ways */
	rdt_share_predict(m, 1, W, 0, 3, out);
	assert_true(out[0] == 1.0);
	rdt_share_predict(m, 1, W, 0, 8, out);
	assert_true(out[0] == 0.01);
	/* two loops that fit together keep what they need */
	rdt_share_predict(m, 2, W, 0, 6, out);
	assert_true(out[0] == 0.01 && out[1] == 0.01);
	/* a stream takes whatever it is given: a loop beside it in 4 ways does not fit */
	m[1].mr = c_stream;
	rdt_share_predict(m, 2, W, 0, 4, out);
	assert_true(out[0] > 0.5);
	assert_true(out[1] == 1.0);
	/* with all 16 ways the loop keeps its 4 beside the stream */
	rdt_share_predict(m, 2, W, 0, W, out);
	assert_true(out[0] < 0.05);
	/* a group that ends early leaves the rest to the other */
	m[0].accesses = 100;
	m[1].accesses = 1000;
	rdt_share_predict(m, 2, W, 0, W, out);
	assert_true(out[1] == 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fewest_misses),
		cmocka_unit_test(old_stride),
		cmocka_unit_test(bound),
		cmocka_unit_test(closids_pool),
		cmocka_unit_test(exclusive),
		cmocka_unit_test(avoid_ways),
		cmocka_unit_test(spare_ways),
		cmocka_unit_test(bad_goals),
		cmocka_unit_test(share_model),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
