// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_rotation: counters shared in turns (mbm_event mode, AMD ABMC;
 * lib/monitor/rotation.c). The pure choice of a turn (pins first, a window
 * moving round the rest in creation order, every group the same share),
 * and through the public API on the simulator with mon.cntrs: which groups
 * hold counters turn by turn, Unassigned as a state, covered time, pins
 * and the settings kept in the state, and the errors of the calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"
#include <json-c/json.h>

#include "monitor/monitor.h"

/*
 * 6 counters per domain, both MBM events: the default group holds 2 (the
 * mount's), so 2 groups of ours at a time.
 */
#define MC "topology=package:2 l3:1 core:2 pu:1;tasks=virtual;mon.rmids=16;mon.scale=64;" \
	   "mon.width=44;mon.cntrs=6"

/* ---- The choice of a turn ------------------------------------------------------------ */

static void plan_all_fit(void **state)
{
	uint64_t seq[3] = { 10, 11, 12 }, cursor = 11;
	bool pinned[3] = { false, true, false }, want[3];

	(void)state;
	assert_int_equal(rdt_rot_plan(seq, pinned, 3, 3, true, &cursor, want), 0);
	assert_true(want[0] && want[1] && want[2]);
	assert_int_equal(cursor, 0);
}

/* 7 groups, room for 3: windows 0-2, 3-5, 6,0,1, 2-4 ... every group 3 turns of 7. */
static void plan_window_moves_round(void **state)
{
	uint64_t seq[7] = { 1, 2, 3, 4, 5, 6, 7 }, cursor = 0;
	bool pinned[7] = { false }, want[7];
	unsigned int turns[7] = { 0 }, t, i, held;
	static const char *const expect[] = { "1110000", "0001110", "1100001", "0011100",
					      "1000011", "0111000", "0000111" };

	(void)state;
	for (t = 0; t < 7; t++) {
		char got[8] = { 0 };

		assert_int_equal(rdt_rot_plan(seq, pinned, 7, 3, t > 0, &cursor, want), 7);
		for (i = 0, held = 0; i < 7; i++) {
			got[i] = want[i] ? '1' : '0';
			turns[i] += want[i];
			held += want[i];
		}
		assert_int_equal(held, 3);
		assert_string_equal(got, expect[t]);
	}
	for (i = 0; i < 7; i++)
		assert_int_equal(turns[i], 3);	/* the same share: 3 of 7 turns each */
}

/* Pins keep their counters; the others share what is left; pins beyond the room rotate. */
static void plan_pins(void **state)
{
	uint64_t seq[5] = { 1, 2, 3, 4, 5 }, cursor = 0;
	bool pinned[5] = { false, true, false, true, false }, want[5];

	(void)state;
	assert_int_equal(rdt_rot_plan(seq, pinned, 5, 3, false, &cursor, want), 3);
	assert_true(want[1] && want[3]);
	assert_true(want[0] && !want[2] && !want[4]);
	assert_int_equal(cursor, 1);
	assert_int_equal(rdt_rot_plan(seq, pinned, 5, 3, true, &cursor, want), 3);
	assert_true(want[1] && want[3] && want[2] && !want[0] && !want[4]);
	assert_int_equal(rdt_rot_plan(seq, pinned, 5, 3, true, &cursor, want), 3);
	assert_true(want[1] && want[3] && want[4] && !want[0] && !want[2]);
	/* room for one: the first pin only; the second pin takes turns with the rest */
	cursor = 0;
	assert_int_equal(rdt_rot_plan(seq, pinned, 5, 1, false, &cursor, want), 4);
	assert_true(want[1]);
	assert_false(want[0] || want[2] || want[3] || want[4]);
	/* no room at all: nobody */
	assert_int_equal(rdt_rot_plan(seq, pinned, 5, 0, true, &cursor, want), 5);
	assert_false(want[0] || want[1] || want[2] || want[3] || want[4]);
}

/* The cursor is a seq: a group removed before it does not shift the window. */
static void plan_cursor_survives_removal(void **state)
{
	uint64_t seq[4] = { 1, 2, 3, 4 }, less[3] = { 1, 3, 4 }, cursor = 0;
	bool pinned[4] = { false }, want[4];

	(void)state;
	rdt_rot_plan(seq, pinned, 4, 2, false, &cursor, want);	/* 1, 2 */
	rdt_rot_plan(seq, pinned, 4, 2, true, &cursor, want);	/* 3, 4 */
	assert_int_equal(cursor, 3);
	/* group 2 goes: the window stays at 3 and 4 */
	rdt_rot_plan(less, pinned, 3, 2, false, &cursor, want);
	assert_true(!want[0] && want[1] && want[2]);
	/* a cursor past every seq starts again at the first */
	cursor = 99;
	rdt_rot_plan(less, pinned, 3, 2, false, &cursor, want);
	assert_true(want[0] && want[1] && !want[2]);
	assert_int_equal(cursor, 1);
}

/* ---- A turn through its callbacks: what the machine says, faked ---------------------------- */

/* A machine of 4 counters a domain, 2 a group: fake[i] holds counters; refuse: ENOSPC for it. */
struct fake {
	bool held[4];
	int refuse;		/* candidate the "kernel" has no counter for (-1: none) */
	unsigned int reads, baseline_reads, reclaims;
	char log[64];
};

static int fake_cntrs(struct rdt_rot_io *io, struct rdt_cntrs *c)
{
	struct fake *f = io->arg;
	unsigned int i, used = 0;

	for (i = 0; i < io->n; i++)
		used += 2 * f->held[i];
	c->mode = RDTALLOC_MON_ASSIGN_EVENT;
	c->total = 4;
	c->events = 2;
	c->free = 4 - used;
	return 0;
}

static int fake_read(struct rdt_rot_io *io, const unsigned int *idx, unsigned int k,
		     bool baseline, bool *held)
{
	struct fake *f = io->arg;
	unsigned int j;

	f->reads++;
	f->baseline_reads += baseline;
	for (j = 0; j < k; j++)
		held[j] = f->held[idx[j]];
	return 0;
}

static int fake_assign(struct rdt_rot_io *io, unsigned int i, bool on, bool *got)
{
	struct fake *f = io->arg;
	size_t n = strlen(f->log);

	snprintf(f->log + n, sizeof(f->log) - n, "%s%c%u", n ? " " : "", on ? '+' : '-', i);
	*got = on && (int)i != f->refuse;
	f->held[i] = *got;
	return 0;
}

static int fake_reclaim(struct rdt_rot_io *io)
{
	((struct fake *)io->arg)->reclaims++;
	return 0;
}

/*
 * The kernel out of counters for an entering group (ENOSPC, "Failed to
 * allocate counter"): no error, the group stays without, no baseline read
 * of it; a turn not yet over moves nothing; reclaim comes before the room.
 */
static void turn_callbacks(void **state)
{
	struct fake f = { .held = { true, false, false, false }, .refuse = 1 };
	uint64_t seq[4] = { 5, 6, 7, 8 };
	bool pinned[4] = { false };
	json_object *map = json_object_new_object();
	struct rdt_rot_io io = {
		.map = map, .n = 4, .seq = seq, .pinned = pinned, .period_ms = 1000,
		.cntrs = fake_cntrs, .read = fake_read, .assign = fake_assign,
		.reclaim = fake_reclaim, .arg = &f,
	};
	char dir[64];
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MC, 0);

	(void)state;
	io.r = r;	/* a simulator: nothing read through it but the backend's kind */
	/* first turn: room for 2 (2 free + a's 2); window 5, 6: 6 refused */
	assert_int_equal(rdt_rot_turn(&io, 1000000000ull), 0);
	assert_string_equal(f.log, "+1");
	assert_true(f.held[0] && !f.held[1]);
	assert_int_equal(f.reclaims, 1);
	assert_int_equal(f.reads, 1);		/* no baseline: nobody entered */
	assert_int_equal(f.baseline_reads, 0);
	/* within the turn: nothing moves */
	f.log[0] = '\0';
	assert_int_equal(rdt_rot_turn(&io, 1500000000ull), 0);
	assert_string_equal(f.log, "");
	assert_int_equal(f.reads, 1);
	/* the turn is over: the window moves to 7, 8 */
	f.refuse = -1;
	assert_int_equal(rdt_rot_turn(&io, 2000000000ull), 0);
	assert_string_equal(f.log, "-0 +2 +3");
	assert_true(!f.held[0] && !f.held[1] && f.held[2] && f.held[3]);
	assert_int_equal(f.baseline_reads, 1);
	json_object_put(map);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* ---- Through the API on the simulator ------------------------------------------------- */

static void set_load(rdtalloc_t *r, const char *g)
{
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .footprint = 1ull << 40,
					.rate = 100000000, .local_pct = 100 };

	assert_ok(r, rdtalloc_sim_set_load(r, g, -1, &ld));
}

/* One read of every group: which hold counters (state ok in domain 0). */
static void held(rdtalloc_t *r, char *out, struct rdtalloc_mon_value *v)
{
	int n = rdtalloc_mon_read(r, NULL, 0, v, 16), i;

	assert_ok(r, n);
	assert_int_equal(n, 10);	/* 5 groups x 2 domains */
	for (i = 0; i < 5; i++) {
		assert_int_equal(v[2 * i].state, v[2 * i + 1].state);
		out[i] = v[2 * i].state == RDTALLOC_MON_OK ? 'c' :
			 v[2 * i].state == RDTALLOC_MON_UNASSIGNED ? 'u' : '?';
	}
	out[5] = '\0';
}

static rdtalloc_t *four_groups(char *dir)
{
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MC, 0);
	static const char *const names[] = { "a", "b", "c", "d" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		assert_ok(r, rdtalloc_group_create(r, names[i]));
		set_load(r, names[i]);
	}
	return r;
}

static void turns_on_sim(void **state)
{
	char dir[64], h[6];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_value v[16] = { { .sz = sizeof(v[0]) } };
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	static const char *const expect[] = { "cuuuu", "cccuu", "cuucc", "cccuu", "cuucc" };
	unsigned int t;

	(void)state;
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.mode, RDTALLOC_MON_ASSIGN_EVENT);
	assert_int_equal(c.total, 6);
	assert_int_equal(c.free, 4);
	assert_int_equal(c.events, 2);
	assert_int_equal(c.groups, 5);
	assert_int_equal(c.period_ms, 1000);
	assert_ok(r, rdtalloc_mon_set_rotation(r, 100, 0));
	/* the first read finds none of ours counted, then gives a and b their turn */
	for (t = 0; t < 5; t++) {
		held(r, h, v);
		assert_string_equal(h, expect[t]);
		usleep(120000);
	}
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.free, 0);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/*
 * Covered time grows only while counted, and the rate over covered time
 * is the load's (a footprint far beyond the cache: every access misses).
 */
static void covered_time(void **state)
{
	char dir[64], h[6];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_value v[16] = { { .sz = sizeof(v[0]) } }, a1, a2;
	double rate;

	(void)state;
	assert_ok(r, rdtalloc_mon_set_rotation(r, 100, 0));
	held(r, h, v);		/* a and b get counters */
	usleep(50000);
	held(r, h, v);		/* within the turn: a counted since its baseline */
	assert_string_equal(h, "cccuu");
	a1 = v[2];
	assert_true(a1.covered_ns > a1.prev_covered_ns);
	assert_true(a1.covered_ns - a1.prev_covered_ns <= a1.time_ns - a1.prev_time_ns);
	rate = (double)(a1.mbm_total - a1.prev_mbm_total) * 1e9 /
	       (double)(a1.covered_ns - a1.prev_covered_ns);
	assert_true(rate > 0.999e8 && rate < 1.001e8);
	usleep(120000);
	held(r, h, v);		/* the turn ends: a and b read, then c and d take over */
	assert_string_equal(h, "cccuu");
	usleep(50000);
	held(r, h, v);
	assert_string_equal(h, "cuucc");
	a2 = v[2];
	/* unassigned for the interval: its totals and covered time stand */
	assert_int_equal(a2.state, RDTALLOC_MON_UNASSIGNED);
	assert_int_equal(a2.valid & RDTALLOC_MON_EV_TOTAL, 0);
	assert_int_equal(a2.covered_ns, a2.prev_covered_ns);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* Pins and settings are the state's: kept across opens; a removed group loses its pin. */
static void pins_kept(void **state)
{
	char dir[64], h[6];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_value v[16] = { { .sz = sizeof(v[0]) } };
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	unsigned int t;

	(void)state;
	assert_ok(r, rdtalloc_mon_pin(r, "d", 1));
	assert_ok(r, rdtalloc_mon_pin(r, "d", 1));	/* again: as asked already */
	assert_ok(r, rdtalloc_mon_set_rotation(r, 100, 0));
	rdtalloc_close(r);
	r = tu_open(dir, MC, 0);
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.pinned, 1);
	assert_int_equal(c.period_ms, 100);
	/* d always counted once it has its counters; a, b, c one at a time */
	held(r, h, v);
	for (t = 0; t < 4; t++) {
		usleep(120000);
		held(r, h, v);
		assert_int_equal(h[4], 'c');
		assert_int_equal((h[1] == 'c') + (h[2] == 'c') + (h[3] == 'c'), 1);
		assert_true(v[8].flags & RDTALLOC_MON_F_PINNED);
		assert_false(v[2].flags & RDTALLOC_MON_F_PINNED);
	}
	assert_ok(r, rdtalloc_group_remove(r, "d"));
	rdtalloc_close(r);
	r = tu_open(dir, MC, 0);
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.pinned, 0);
	assert_ok(r, rdtalloc_group_create(r, "d"));
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.pinned, 0);	/* a new d is not the old one */
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* Rewrite the state file's "monitoring"."rotation" member (NULL: print it into got). */
static void rotation_member(const char *dir, const char *text, char *got, size_t len)
{
	char path[128];
	json_object *o, *mon, *rot;

	snprintf(path, sizeof(path), "%s/state.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "monitoring", &mon));
	if (!text) {
		assert_true(json_object_object_get_ex(mon, "rotation", &rot));
		snprintf(got, len, "%s", json_object_to_json_string_ext(rot, JSON_C_TO_STRING_PLAIN));
	} else {
		json_object_object_add(mon, "rotation", json_tokener_parse(text));
		assert_int_equal(json_object_to_file(path, o), 0);
	}
	json_object_put(o);
}

/* The settings in the state file, exactly; a damaged member is no setting. */
static void state_file(void **state)
{
	char dir[64], got[256];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	uint64_t seq_b;

	(void)state;
	assert_ok(r, rdtalloc_mon_pin(r, "b", 1));
	assert_ok(r, rdtalloc_mon_set_rotation(r, 2500, 4));
	rdtalloc_close(r);
	rotation_member(dir, NULL, got, sizeof(got));
	seq_b = strtoull(strstr(got, "[") + 1, NULL, 10);
	assert_true(seq_b > 0);
	{
		char want[256];

		snprintf(want, sizeof(want), "{\"period_ms\":2500,\"counters\":4,\"pinned\":[%llu]}",
			 (unsigned long long)seq_b);
		assert_string_equal(got, want);
	}
	/* damaged: the monitoring member is kept aside as it was (lib/state.c), and said so */
	rotation_member(dir, "{\"period_ms\": 50, \"counters\": 0, \"pinned\": []}", NULL, 0);
	r = tu_open(dir, MC, 0);
	tu_msg_has(rdtalloc_warning(r), "member \"monitoring\" could not be read");
	rdtalloc_close(r);
	rotation_member(dir, NULL, got, sizeof(got));
	assert_string_equal(got, "{\"period_ms\":50,\"counters\":0,\"pinned\":[]}");
	rotation_member(dir, "{\"period_ms\": 0, \"counters\": 0, \"pinned\": [12345]}", NULL, 0);
	r = tu_open(dir, MC, 0);
	tu_msg_has(rdtalloc_warning(r), "member \"monitoring\" could not be read");
	rdtalloc_close(r);
	rotation_member(dir, "{\"period_ms\": 0, \"counters\": 4097, \"pinned\": []}", NULL, 0);
	r = tu_open(dir, MC, 0);
	tu_msg_has(rdtalloc_warning(r), "member \"monitoring\" could not be read");
	rdtalloc_close(r);
	/* a state from before the turns: the defaults */
	rotation_member(dir, "{\"period_ms\": 0, \"counters\": 0, \"pinned\": []}", NULL, 0);
	r = tu_open(dir, MC, 0);
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.period_ms, 1000);
	assert_int_equal(c.counters, 0);
	assert_int_equal(c.pinned, 0);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static void errors(void **state)
{
	char dir[64];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };

	(void)state;
	assert_err(r, rdtalloc_mon_set_rotation(r, 99, 0), -EINVAL);
	assert_errmsg_has(r, "turn period 99 ms: must be 100..3600000 ms");
	assert_err(r, rdtalloc_mon_set_rotation(r, 3600001, 0), -EINVAL);
	assert_err(r, rdtalloc_mon_set_rotation(r, 1000, 4097), -EINVAL);
	assert_errmsg_has(r, "counters 4097: at most 4096 per domain");
	assert_err(r, rdtalloc_mon_pin(r, "nosuch", 1), -ENOENT);
	assert_err(r, rdtalloc_mon_pin(r, "default", 1), -EINVAL);
	assert_errmsg_has(r, "group 'default' keeps the counters the kernel gave it");
	assert_err(r, rdtalloc_mon_pin(r, "a", 2), -EINVAL);
	c.sz = 2;
	assert_err(r, rdtalloc_mon_get_counters(r, &c), -EINVAL);
	/* nothing changed */
	c.sz = sizeof(c);
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.period_ms, 1000);
	assert_int_equal(c.counters, 0);
	assert_int_equal(c.pinned, 0);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* The settings' counters bound the turns: 2 counters, one group at a time. */
static void counters_setting(void **state)
{
	char dir[64], h[6];
	rdtalloc_t *r = four_groups(dir);
	struct rdtalloc_mon_value v[16] = { { .sz = sizeof(v[0]) } };
	unsigned int t;

	(void)state;
	assert_ok(r, rdtalloc_mon_set_rotation(r, 100, 2));
	held(r, h, v);
	for (t = 0; t < 4; t++) {
		usleep(120000);
		held(r, h, v);
		assert_int_equal((h[1] == 'c') + (h[2] == 'c') + (h[3] == 'c') + (h[4] == 'c'), 1);
		assert_int_equal(h[t + 1], 'c');
	}
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

/* mon.assign=default: every RMID counts, no turns, every interval covered whole. */
static void default_mode(void **state)
{
	char dir[64], h[6];
	rdtalloc_t *r = tu_open(tu_mkdtemp(dir), MC ";mon.assign=default", 0);
	struct rdtalloc_mon_value v[16] = { { .sz = sizeof(v[0]) } };
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_ok(r, rdtalloc_group_create(r, (const char *[]){ "a", "b", "c", "d" }[i]));
	assert_ok(r, rdtalloc_mon_get_counters(r, &c));
	assert_int_equal(c.mode, RDTALLOC_MON_ASSIGN_DEFAULT);
	held(r, h, v);
	held(r, h, v);
	assert_string_equal(h, "ccccc");
	assert_int_equal(v[2].covered_ns - v[2].prev_covered_ns, v[2].time_ns - v[2].prev_time_ns);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_all_fit),
		cmocka_unit_test(plan_window_moves_round),
		cmocka_unit_test(plan_pins),
		cmocka_unit_test(plan_cursor_survives_removal),
		cmocka_unit_test(turn_callbacks),
		cmocka_unit_test(turns_on_sim),
		cmocka_unit_test(covered_time),
		cmocka_unit_test(pins_kept),
		cmocka_unit_test(state_file),
		cmocka_unit_test(errors),
		cmocka_unit_test(counters_setting),
		cmocka_unit_test(default_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
