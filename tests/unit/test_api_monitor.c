// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_monitor: monitoring through the public API on the simulator.
 * RMIDs per group (also where groups share a CLOSID), running out of them,
 * limbo; the model's properties (a streamer squeezed off the victim's ways
 * raises its occupancy and lowers its misses; occupancy within the ways a
 * group may fill and the cache's size; MB caps); the counters' states and
 * the running totals across a wrap, planted in counters.json; CPUID 0xF of
 * the recorded dumps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

/* 2 L3 domains of 20 MiB, 10 ways of 2 MiB; 8 RMIDs, counting in 64-byte units. */
#define MM "topology=package:2 l3:1(size=20MiB) core:2 pu:1;l3.cbm_len=10;tasks=virtual;" \
	   "mon.rmids=8;mon.scale=64;mon.width=24"
#define MIB (1ull << 20)

static void load(rdtalloc_t *r, const char *g, int dom, uint64_t fp, uint64_t rate,
		 unsigned int local, int fault)
{
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .footprint = fp, .rate = rate,
					.local_pct = local, .fault = fault };

	assert_ok(r, rdtalloc_sim_set_load(r, g, dom, &ld));
}

/* Domain dom's reading of group g. */
static struct rdtalloc_mon_value read1(rdtalloc_t *r, const char *g, unsigned int dom)
{
	struct rdtalloc_mon_value v[4] = { { .sz = sizeof(v[0]) } };
	const char *names[1] = { g };
	int n = rdtalloc_mon_read(r, names, 1, v, 4);

	assert_ok(r, n);
	assert_int_equal(n, 2);
	assert_string_equal(v[dom].group, g);
	assert_string_equal(v[1 - dom].group, g);
	assert_int_equal(v[dom].cache_id, dom);
	return v[dom];
}

static int rmid(rdtalloc_t *r, const char *g)
{
	int v = -2;

	assert_ok(r, rdtalloc_group_rmid(r, g, &v));
	return v;
}

static void info_and_rmids(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };

	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.rmids, 8);
	assert_int_equal(mi.scale, 64);
	assert_int_equal(mi.width, 24);
	assert_int_equal(mi.events, 7);
	/* 20 MiB / 8 RMIDs, a multiple of the scale */
	assert_int_equal(mi.threshold, 20 * MIB / 8);
	assert_int_equal(mi.in_use, 1);
	assert_int_equal(rmid(r, "default"), 0);
	/* two groups with one schema share a CLOSID, not an RMID */
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=3;1=3"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=3;1=3"));
	{
		unsigned int ca, cb;

		assert_ok(r, rdtalloc_group_closid(r, "a", "L3", 0, &ca));
		assert_ok(r, rdtalloc_group_closid(r, "b", "L3", 0, &cb));
		assert_int_equal(ca, cb);
	}
	assert_int_equal(rmid(r, "a"), 1);
	assert_int_equal(rmid(r, "b"), 2);
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_use, 3);
	rdtalloc_close(r);
}

/* Past the last RMID a group is made, unmonitored, and says so; a freed RMID is taken up. */
static void out_of_rmids(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	struct rdtalloc_mon_value v;
	char name[8];
	int i;

	for (i = 1; i <= 8; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_ok(r, rdtalloc_group_create(r, name));
	}
	assert_int_equal(rmid(r, "g7"), 7);
	assert_int_equal(rmid(r, "g8"), RDTALLOC_RMID_NONE);
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_use, 8);
	assert_int_equal(mi.unmonitored, 1);
	v = read1(r, "g8", 0);
	assert_int_equal(v.rmid, RDTALLOC_RMID_NONE);
	assert_int_equal(v.state, RDTALLOC_MON_UNSUPPORTED);
	assert_int_equal(v.valid, 0);
	/* g3 held nothing: its RMID is free at once, and g8 gets it at the next change */
	assert_ok(r, rdtalloc_group_remove(r, "g3"));
	assert_int_equal(rmid(r, "g8"), 3);
	rdtalloc_close(r);
}

/*
 * Several wait: a freed RMID goes to the oldest waiter; a call that frees
 * none hands out none; a reset frees every RMID.
 */
static void oldest_waiter_first(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	char name[8];
	int i;

	for (i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_ok(r, rdtalloc_group_create(r, name));
	}
	assert_int_equal(rmid(r, "g8"), RDTALLOC_RMID_NONE);
	assert_int_equal(rmid(r, "g10"), RDTALLOC_RMID_NONE);
	assert_ok(r, rdtalloc_group_remove(r, "g5"));
	assert_int_equal(rmid(r, "g8"), 5);
	assert_int_equal(rmid(r, "g9"), RDTALLOC_RMID_NONE);
	/* a call that changes no group moves nothing */
	assert_ok(r, rdtalloc_set_schema(r, "g9", "L3:0=3"));
	assert_int_equal(rmid(r, "g9"), RDTALLOC_RMID_NONE);
	assert_ok(r, rdtalloc_group_remove(r, "g2"));
	assert_int_equal(rmid(r, "g9"), 2);
	assert_int_equal(rmid(r, "g10"), RDTALLOC_RMID_NONE);
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_use, 8);
	assert_int_equal(mi.unmonitored, 1);
	assert_ok(r, rdtalloc_reset(r));
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_use, 1);
	assert_int_equal(mi.unmonitored, 0);
	assert_ok(r, rdtalloc_group_create(r, "again"));
	assert_int_equal(rmid(r, "again"), 1);
	rdtalloc_close(r);
}

/* A removed group's lines keep its RMID in limbo while they are above the threshold. */
static void limbo(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_info mi = { .sz = sizeof(mi) };
	char name[8];
	int i;

	assert_ok(r, rdtalloc_group_create(r, "big"));
	load(r, "big", 0, 8 * MIB, 1000000, 100, 0);	/* 8 MiB held, little traffic */
	assert_int_equal(rmid(r, "big"), 1);
	assert_ok(r, rdtalloc_group_remove(r, "big"));
	assert_ok(r, rdtalloc_mon_get_info(r, &mi));
	assert_int_equal(mi.in_limbo, 1);
	assert_int_equal(mi.in_use, 1);
	/* the next groups skip RMID 1 */
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_ok(r, rdtalloc_group_create(r, name));
		assert_int_equal(rmid(r, name), 2 + i);
	}
	assert_ok(r, rdtalloc_group_create(r, "late"));
	assert_int_equal(rmid(r, "late"), RDTALLOC_RMID_NONE);
	rdtalloc_close(r);
}

/* The noisy neighbour: squeezing the streamer off the victim's ways helps the victim. */
static void partition_helps_victim(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_value v1, v2, s1, s2;

	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_ok(r, rdtalloc_group_create(r, "stream"));
	load(r, "db", 0, 12 * MIB, 1000000000, 100, 0);
	load(r, "stream", 0, 4096 * MIB, 10000000000ull, 50, 0);
	/* both on every way: the streamer's rate takes most of the cache */
	v1 = read1(r, "db", 0);
	s1 = read1(r, "stream", 0);
	assert_int_equal(v1.state, RDTALLOC_MON_OK);
	assert_int_equal(v1.valid, 7);
	/* shares by rate: 1 to 10 of 20 MiB */
	assert_int_equal(v1.llc_occupancy, 20 * MIB / 11 / 64 * 64);
	assert_true(v1.llc_occupancy + s1.llc_occupancy <= 20 * MIB);
	assert_ok(r, rdtalloc_set_schema(r, "stream", "L3:0=3"));	/* 2 ways, 4 MiB */
	v2 = read1(r, "db", 0);
	s2 = read1(r, "stream", 0);
	assert_true(v2.llc_occupancy > v1.llc_occupancy);
	/* its footprint fits in the 8 ways it has alone: all of it */
	assert_int_equal(v2.llc_occupancy, 12 * MIB);
	/* the streamer: at most its 2 ways, and most of them (db, sated, gives back) */
	assert_true(s2.llc_occupancy <= 4 * MIB);
	assert_true(s2.llc_occupancy > 3 * MIB);
	/* the other domain saw nothing */
	assert_int_equal(read1(r, "db", 1).llc_occupancy, 0);
	rdtalloc_close(r);
}

/*
 * A rate needs two valid readings: after a reading without a value
 * (unavailable) the next valid one has no previous one, and the one after
 * that is taken against it, not against the reading that had no value.
 */
static void no_rate_from_unavailable(void **state)
{
	char dir[64];
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MM, 0);
	struct rdtalloc_mon_value a, b, c;

	assert_ok(r, rdtalloc_group_create(r, "db"));
	load(r, "db", 0, 4096 * MIB, 1000000000, 100, RDTALLOC_MON_UNAVAILABLE);
	a = read1(r, "db", 0);
	assert_int_equal(a.state, RDTALLOC_MON_UNAVAILABLE);
	assert_int_equal(a.valid & RDTALLOC_MON_EV_TOTAL, 0);
	load(r, "db", 0, 4096 * MIB, 1000000000, 100, 0);
	usleep(20000);
	b = read1(r, "db", 0);
	assert_int_equal(b.state, RDTALLOC_MON_OK);
	assert_true(b.valid & RDTALLOC_MON_EV_TOTAL);
	assert_int_equal(b.prev_time_ns, 0);	/* no rate yet */
	/* unavailable again: the last valid reading stays the previous one */
	load(r, "db", 0, 4096 * MIB, 1000000000, 100, RDTALLOC_MON_UNAVAILABLE);
	a = read1(r, "db", 0);
	assert_int_equal(a.valid & RDTALLOC_MON_EV_TOTAL, 0);
	load(r, "db", 0, 4096 * MIB, 1000000000, 100, 0);
	usleep(20000);
	c = read1(r, "db", 0);
	assert_int_equal(c.prev_time_ns, b.time_ns);
	assert_int_equal(c.prev_mbm_total, b.mbm_total);
	assert_true(c.mbm_total >= b.mbm_total);
	rdtalloc_close(r);
}

/* Bandwidth in the model through the counters: a victim that fits misses nothing. */
static void misses_follow_occupancy(void **state)
{
	char dir[64];
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MM ";mb.closids=8", 0);
	struct rdtalloc_mon_value a, b;

	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_ok(r, rdtalloc_group_create(r, "stream"));
	load(r, "db", 0, 12 * MIB, 1000000000, 100, 0);
	load(r, "stream", 0, 4096 * MIB, 10000000000ull, 50, 0);
	assert_ok(r, rdtalloc_set_schema(r, "stream", "L3:0=3\nMB:0=10"));
	a = read1(r, "db", 0);
	usleep(20000);
	b = read1(r, "db", 0);
	/* all of it cached: no traffic */
	assert_int_equal(b.mbm_total, a.mbm_total);
	assert_int_equal(b.prev_mbm_total, a.mbm_total);
	assert_int_equal(b.prev_time_ns, a.time_ns);
	a = read1(r, "stream", 0);
	usleep(50000);
	b = read1(r, "stream", 0);
	{
		double rate = (double)(b.mbm_total - a.mbm_total) * 1e9 /
			      (double)(b.time_ns - a.time_ns);
		double local = (double)(b.mbm_local - a.mbm_local) * 1e9 /
			       (double)(b.time_ns - a.time_ns);

		/* MB 10%: a tenth of the 20 GB/s bus, whatever it asks; half of it local */
		assert_true(rate > 1.99e9 && rate < 2.01e9);
		assert_true(local > 0.99e9 && local < 1.01e9);
	}
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* Faults read as states, never as numbers. */
static void fault_states(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_mon_value v;

	assert_ok(r, rdtalloc_group_create(r, "u"));
	assert_ok(r, rdtalloc_group_create(r, "e"));
	load(r, "u", 0, MIB, 1000, 100, RDTALLOC_MON_UNAVAILABLE);
	load(r, "e", -1, MIB, 1000, 100, RDTALLOC_MON_ERROR);
	v = read1(r, "u", 0);
	assert_int_equal(v.state, RDTALLOC_MON_UNAVAILABLE);
	assert_int_equal(v.valid, 0);
	assert_int_equal(read1(r, "u", 1).state, RDTALLOC_MON_OK);
	assert_int_equal(read1(r, "e", 1).state, RDTALLOC_MON_ERROR);
	rdtalloc_close(r);
}

/* Bad workloads change nothing and say what was wrong. */
static void bad_loads(void **state)
{
	rdtalloc_t *r = tu_eph(MM);
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .footprint = MIB, .rate = 1 };

	assert_err(r, rdtalloc_sim_set_load(r, "nope", -1, &ld), -ENOENT);
	assert_err(r, rdtalloc_sim_set_load(r, NULL, 7, &ld), -ENOENT);
	assert_err(r, rdtalloc_sim_set_load(r, NULL, -2, &ld), -EINVAL);
	ld.local_pct = 101;
	assert_err(r, rdtalloc_sim_set_load(r, NULL, -1, &ld), -ERANGE);
	ld.local_pct = 0;
	ld.footprint = (1ull << 50) + 1;
	assert_err(r, rdtalloc_sim_set_load(r, NULL, -1, &ld), -ERANGE);
	ld.footprint = 1;
	ld.fault = 9;
	assert_err(r, rdtalloc_sim_set_load(r, NULL, -1, &ld), -EINVAL);
	assert_int_equal(read1(r, "default", 0).llc_occupancy, 0);
	rdtalloc_close(r);
	/* no monitoring on the machine */
	r = tu_eph(M2V ";mon.rmids=0");
	{
		struct rdtalloc_mon_value v = { .sz = sizeof(v) };
		int id;

		assert_err(r, rdtalloc_mon_read(r, NULL, 0, &v, 1), -EOPNOTSUPP);
		assert_err(r, rdtalloc_group_rmid(r, NULL, &id), -EOPNOTSUPP);
	}
	rdtalloc_close(r);
}

/* The key of the running totals of RMID 1 in domain 0 in counters.json ("1/SEQ/0"). */
static char *totals_key(const char *path)
{
	char *buf = NULL, *k, *e, *out;
	size_t n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(getdelim(&buf, &n, 0, f) > 0);
	fclose(f);
	k = strstr(buf, "\"1/");
	assert_non_null(k);
	e = strchr(k + 1, '"');
	assert_non_null(e);
	*e = '\0';
	out = strdup(k + 1);
	free(buf);
	return out;
}

/* A wrap between two reads is folded into the total: planted in the running totals. */
static void wrap_folded(void **state)
{
	char dir[64], path[128], id[16], *key;
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MM, 0);
	struct rdtalloc_mon_value v;
	FILE *f;

	assert_ok(r, rdtalloc_group_create(r, "idle"));	/* no workload: its counter stays 0 */
	v = read1(r, "idle", 0);
	assert_int_equal(v.mbm_total, 0);
	assert_int_equal(v.prev_time_ns, 0);
	snprintf(id, sizeof(id), "%s", rdtalloc_state_id(r));
	rdtalloc_close(r);
	snprintf(path, sizeof(path), "%s/counters.json", dir);
	key = totals_key(path);
	/* the last reading was 5 units below the wrap, with 1000 units counted before */
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"id\":\"%s\",\"counters\":{\"%s\":[%llu,64000,0,0,123]}}", id, key,
		(1ull << 24) - 5);
	fclose(f);
	free(key);
	r = tu_open(dir, NULL, 0);
	v = read1(r, "idle", 0);
	assert_int_equal(v.prev_mbm_total, 64000);
	assert_int_equal(v.prev_time_ns, 123);
	/* (0 - (2^24 - 5)) mod 2^24 = 5 units of 64 bytes */
	assert_int_equal(v.mbm_total, 64000 + 5 * 64);
	rdtalloc_close(r);
	/* a second process continues from there: no wrap, no step back */
	r = tu_open(dir, NULL, 0);
	v = read1(r, "idle", 0);
	assert_int_equal(v.prev_mbm_total, 64000 + 5 * 64);
	assert_int_equal(v.mbm_total, 64000 + 5 * 64);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* CPUID 0xF of the recordings, as Linux reads it. */
static void cpuid_monitoring(void **state)
{
	struct rdtalloc_cpu_caps c = { .sz = sizeof(c) };

	assert_int_equal(rdtalloc_cpuid_decode_file(RDT_TEST_DATA
						    "/cpuid/intel-xeon-8160-skylake-sp.txt", &c), 0);
	assert_true(c.l3_mon);
	assert_int_equal(c.mon_rmids, 192);
	assert_int_equal(c.mon_scale, 98304);
	assert_int_equal(c.mon_width, 24);
	assert_int_equal(c.mon_events, 7);
	assert_int_equal(rdtalloc_cpuid_decode_file(RDT_TEST_DATA
						    "/cpuid/intel-haswell-ep-es.txt", &c), 0);
	assert_int_equal(c.mon_rmids, 56);
	assert_int_equal(c.mon_events, RDTALLOC_MON_EV_OCCUPANCY);
	/* AMD reports a width offset of 0: Linux takes 20, 44-bit counters */
	assert_int_equal(rdtalloc_cpuid_decode_file(RDT_TEST_DATA
						    "/cpuid/amd-ryzen-5800x-zen3.txt", &c), 0);
	assert_int_equal(c.mon_rmids, 256);
	assert_int_equal(c.mon_scale, 64);
	assert_int_equal(c.mon_width, 44);
	assert_int_equal(rdtalloc_cpuid_decode_file(RDT_TEST_DATA
						    "/cpuid/amd-threadripper-7995wx-zen4.txt", &c),
			 0);
	assert_int_equal(c.mon_width, 44);
	assert_int_equal(rdtalloc_cpuid_decode_file(RDT_TEST_DATA "/cpuid/amd-zen4-vm.txt", &c),
			 0);
	assert_false(c.l3_mon);
	assert_int_equal(c.mon_rmids, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(info_and_rmids),
		cmocka_unit_test(out_of_rmids),
		cmocka_unit_test(oldest_waiter_first),
		cmocka_unit_test(no_rate_from_unavailable),
		cmocka_unit_test(limbo),
		cmocka_unit_test(partition_helps_victim),
		cmocka_unit_test(misses_follow_occupancy),
		cmocka_unit_test(fault_states),
		cmocka_unit_test(bad_loads),
		cmocka_unit_test(wrap_folded),
		cmocka_unit_test(cpuid_monitoring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
