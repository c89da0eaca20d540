// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_control_api: the controller's calls keep only what the state can
 * read back (rdtalloc_control_set checks its own limits, not the CLI's: a
 * value the section could not load would lock every later call out), a
 * "control" member that cannot be read is kept aside and locks nobody out,
 * a run stopped by its callback mid-probe leaves the layout last verified
 * in force (never the probe), and the groups get their declared masks back
 * when the controller is cleared. The controller's masks are its own: a
 * change by another owner is refused unless forced, and a forced one takes
 * the group from the controller, which says who took it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "test_api_util.h"

#define M256 "topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	tu_mkdtemp(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_rf(dir);
	return 0;
}

static void two_groups(rdtalloc_t *r, struct rdtalloc_control_group *g)
{
	assert_ok(r, rdtalloc_group_create(r, "web"));
	assert_ok(r, rdtalloc_group_create(r, "batch"));
	g[0] = (struct rdtalloc_control_group){ .sz = sizeof(g[0]), .group = "web" };
	g[1] = (struct rdtalloc_control_group){ .sz = sizeof(g[1]), .group = "batch" };
}

/* Values past what the state file holds: refused by name, nothing kept, every call works. */
static void test_limits(void **state)
{
	RDTALLOC_OPTS(rdtalloc_control_conf, conf, .cache_id = -1);
	struct rdtalloc_control_group g[2], got[2];
	struct rdtalloc_control_conf gc = { .sz = sizeof(gc), .cache_id = -1 };
	rdtalloc_t *r = tu_open(dir, M256, 0);
	char buf[64];

	(void)state;
	two_groups(r, g);
	conf.writes_per_minute = 3000000000u;
	assert_err(r, rdtalloc_control_set(r, &conf, 2, g), -EINVAL);
	assert_errmsg_has(r, "writes_per_minute 3000000000: at most 1000000 (0: no limit)");
	conf.writes_per_minute = 30;
	g[0].bound_bytes_per_sec = UINT64_MAX;
	assert_err(r, rdtalloc_control_set(r, &conf, 2, g), -EINVAL);
	assert_errmsg_has(r, "group web: bound_bytes_per_sec 18446744073709551615: at most "
			  "9223372036854775807");
	g[0].bound_bytes_per_sec = 0;
	conf.interval_ms = 3600001;
	assert_err(r, rdtalloc_control_set(r, &conf, 2, g), -EINVAL);
	assert_errmsg_has(r, "interval_ms 3600001: 10 to 3600000 (0: 1000)");
	conf.interval_ms = 0;
	conf.flags = RDTALLOC_CONTROL_STATIC;
	assert_err(r, rdtalloc_control_set(r, &conf, 2, g), -EINVAL);
	assert_errmsg_has(r, "a kept configuration takes RDTALLOC_CONTROL_ADVISORY, _SHAREABLE "
			  "and _KEEP");
	rdtalloc_close(r);
	/* nothing was kept, and a new handle reads the state */
	r = tu_open(dir, NULL, 0);
	got[0].sz = sizeof(got[0]);
	assert_int_equal(rdtalloc_control_get(r, &gc, got, 2), 0);
	assert_ok(r, rdtalloc_get_schema(r, "web", buf, sizeof(buf)));
	/* the largest values the API takes load back */
	conf.flags = 0;
	conf.writes_per_minute = RDTALLOC_CONTROL_WPM_MAX;
	g[0].bound_bytes_per_sec = INT64_MAX;
	assert_ok(r, rdtalloc_control_set(r, &conf, 2, g));
	rdtalloc_close(r);
	r = tu_open(dir, NULL, 0);
	assert_int_equal(rdtalloc_control_get(r, &gc, got, 2), 2);
	assert_int_equal(gc.writes_per_minute, RDTALLOC_CONTROL_WPM_MAX);
	assert_int_equal(got[0].bound_bytes_per_sec, INT64_MAX);
	rdtalloc_close(r);
}

/* A damaged "control" member: the rest of the state works, clearing recovers. */
static void test_damaged_member(void **state)
{
	RDTALLOC_OPTS(rdtalloc_control_conf, conf, .cache_id = -1);
	struct rdtalloc_control_group g[2];
	json_object *o, *c;
	char path[128], buf[64];
	rdtalloc_t *r = tu_open(dir, M256, 0);

	(void)state;
	two_groups(r, g);
	assert_ok(r, rdtalloc_control_set(r, &conf, 2, g));
	rdtalloc_close(r);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "control", &c));
	json_object_object_add(c, "domains", json_object_new_string("from a newer version"));
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);

	r = tu_open(dir, NULL, 0);
	assert_ok(r, rdtalloc_group_create(r, "other"));
	assert_ok(r, rdtalloc_set_schema(r, "other", "L3:0=f"));
	assert_ok(r, rdtalloc_get_schema(r, "web", buf, sizeof(buf)));
	conf.sz = sizeof(conf);
	assert_int_equal(rdtalloc_control_get(r, &conf, NULL, 0), 0);
	assert_non_null(strstr(rdtalloc_warning(r), "\"control\" member could not be read"));
	rdtalloc_close(r);
	/* kept as it was read through that change */
	o = json_object_from_file(path);
	assert_true(json_object_object_get_ex(o, "control", &c));
	assert_string_equal(json_object_get_string(json_object_object_get(c, "domains")),
			    "from a newer version");
	json_object_put(o);
	/* clearing replaces it */
	r = tu_open(dir, NULL, 0);
	assert_ok(r, rdtalloc_control_set(r, &conf, 0, NULL));
	rdtalloc_close(r);
	o = json_object_from_file(path);
	assert_false(json_object_object_get_ex(o, "control", NULL));
	json_object_put(o);
}

struct stop_at_probe {
	int probes;
	char probe_reason[400];
};

static int stop_at_probe(const struct rdtalloc_control_record *rec, void *arg)
{
	struct stop_at_probe *s = arg;

	if (rec->kind != RDTALLOC_CONTROL_DECISION || strcmp(rec->action, "probe"))
		return 0;
	s->probes++;
	snprintf(s->probe_reason, sizeof(s->probe_reason), "%s", rec->reason);
	return 1;	/* the run ends here, the probe just written */
}

static void expect_schema(rdtalloc_t *r, const char *group, const char *want)
{
	char buf[64];

	assert_ok(r, rdtalloc_get_schema(r, group, buf, sizeof(buf)));
	buf[strcspn(buf, "\n")] = '\0';
	assert_string_equal(buf, want);
}

/*
 * A run that its callback ends just after a probe was written: the layout
 * last verified (all shared) is in force and kept; clearing then gives the
 * declared masks back.
 */
static void test_stop_mid_probe(void **state)
{
	RDTALLOC_OPTS(rdtalloc_control_conf, conf, .cache_id = -1, .interval_ms = 20);
	RDTALLOC_OPTS(rdtalloc_sim_load, big, .footprint = 100u << 20, .rate = 4ull << 30,
		      .local_pct = 100);
	RDTALLOC_OPTS(rdtalloc_sim_load, small, .footprint = 96u << 10, .rate = 1ull << 30,
		      .local_pct = 100);
	struct stop_at_probe s = { 0 };
	struct rdtalloc_control_group g[2];
	rdtalloc_t *r = tu_open(dir, M256, 0);

	(void)state;
	two_groups(r, g);
	assert_ok(r, rdtalloc_set_schema(r, "web", "L3:0=ff"));
	assert_ok(r, rdtalloc_sim_set_load(r, "web", -1, &small));
	assert_ok(r, rdtalloc_sim_set_load(r, "batch", -1, &big));
	assert_ok(r, rdtalloc_control_set(r, &conf, 2, g));
	assert_int_equal(rdtalloc_control_run(r, 200, NULL, stop_at_probe, &s), 1);
	assert_int_equal(s.probes, 1);
	assert_non_null(strstr(s.probe_reason, "confine group 1"));
	expect_schema(r, "web", "L3:0=ffff");
	expect_schema(r, "batch", "L3:0=ffff");
	rdtalloc_close(r);
	/* what the next run adopts: all shared, not the probe */
	r = tu_open(dir, NULL, 0);
	s.probes = 0;
	assert_int_equal(rdtalloc_control_run(r, 200, NULL, stop_at_probe, &s), 1);
	assert_int_equal(s.probes, 1);
	expect_schema(r, "batch", "L3:0=ffff");
	assert_ok(r, rdtalloc_control_set(r, &conf, 0, NULL));
	expect_schema(r, "web", "L3:0=00ff");
	expect_schema(r, "batch", "L3:0=ffff");
	rdtalloc_close(r);
}

struct take {
	int intervals, taken;
	char reason[400], group[64];
};

/* At the second interval, user ops forces web's mask: web is theirs from then on. */
static int take_web(const struct rdtalloc_control_record *rec, void *arg)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .owner = "user:ops");
	struct take *t = arg;
	rdtalloc_t *ops;

	if (rec->kind == RDTALLOC_CONTROL_DECISION && !strcmp(rec->action, "taken")) {
		t->taken++;
		snprintf(t->reason, sizeof(t->reason), "%s", rec->reason);
		snprintf(t->group, sizeof(t->group), "%s", rec->group ? rec->group : "(none)");
	}
	if (rec->kind != RDTALLOC_CONTROL_INTERVAL || ++t->intervals != 2)
		return 0;
	assert_int_equal(rdtalloc_open(&ops, &o), 0);
	/* refused without force, naming the controller */
	assert_err(ops, rdtalloc_set_schema(ops, "web", "L3:0=3"), -EBUSY);
	assert_errmsg_has(ops, "group web: its mask is the controller's (domain 0); --force takes "
			  "it back");
	rdtalloc_close(ops);
	o.flags = RDTALLOC_F_FORCE;
	assert_int_equal(rdtalloc_open(&ops, &o), 0);
	assert_ok(ops, rdtalloc_set_schema(ops, "web", "L3:0=3"));
	rdtalloc_close(ops);
	return 0;
}

/*
 * The controller's masks are its own; one forced by another owner is
 * theirs: the group leaves the configuration with that mask, the
 * controller says who took it, and clearing does not put it back.
 */
static void test_taken(void **state)
{
	RDTALLOC_OPTS(rdtalloc_control_conf, conf, .cache_id = -1, .interval_ms = 20);
	struct rdtalloc_control_group g[2], got[2];
	struct rdtalloc_control_conf gc = { .sz = sizeof(gc), .cache_id = -1 };
	struct take t = { 0 };
	rdtalloc_t *r = tu_open(dir, M256, 0);

	(void)state;
	two_groups(r, g);
	assert_ok(r, rdtalloc_set_schema(r, "web", "L3:0=ff"));
	assert_ok(r, rdtalloc_control_set(r, &conf, 2, g));
	assert_ok(r, rdtalloc_control_run(r, 5, NULL, take_web, &t));
	assert_int_equal(t.taken, 1);
	assert_string_equal(t.group, "web");
	assert_string_equal(t.reason, "group web: its mask was set to L3:0=3 by user:ops: it "
			    "leaves the controller with that mask");
	got[0].sz = sizeof(got[0]);
	assert_int_equal(rdtalloc_control_get(r, &gc, got, 2), 1);
	assert_string_equal(got[0].group, "batch");
	expect_schema(r, "web", "L3:0=0003");
	assert_ok(r, rdtalloc_control_set(r, &conf, 0, NULL));
	expect_schema(r, "web", "L3:0=0003");
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_mid_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_taken, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
