// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_rotation: how well counters shared in turns measure bandwidth
 * (issue 44; lib/monitor/rotation.c). On the simulator with 8 assignable
 * counters per L3 domain in mbm_event mode (mon.cntrs=8, both MBM events:
 * the default group holds 2, so 3 of our 64 groups are counted at a time)
 * and 64 groups with known traffic, one read a second (the turn's period,
 * 1 s) for SECONDS (60) of the simulator's time, which is real time. For
 * each group, the bandwidth the library reports over the whole run - bytes
 * counted over covered time, as `rdtctl monitor` extrapolates it - against
 * the traffic the group made, and the relative error's max and mean.
 *
 * Three cases run side by side, each on a context of its own:
 *  - steady: group i streams 10 + 5 i MB/s all along (goal: max error <= 5 %);
 *  - bursty: every second each group is on or off at random (p 1/2, seeded):
 *    a turn sees a few of its seconds, so the error is that of a small sample;
 *  - adversarial: a group is busy exactly while it has no counter - what any
 *    design that samples in turns cannot see (the error is near 100 %).
 * The truth of a group is its load's rate times the share of its footprint
 * it misses (1 TiB against a cache of MiBs: within 0.01 %), times the time
 * it was on. A group no turn ever covered counts as an error of 100 %.
 *
 * Usage: bench_rotation [SECONDS]
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdtalloc/rdtalloc.h>

#define MACHINE "topology=package:1 l3:1 core:4 pu:1;tasks=virtual;mon.rmids=128;" \
		"mon.cntrs=8;mon.assign=mbm_event"
#define NGROUPS 64
#define FOOTPRINT (1ull << 40)
#define GOAL 0.05

enum kind { STEADY, BURSTY, ADVERSARIAL, NKINDS };
static const char *const kind_name[] = { "steady", "bursty", "adversarial" };

struct bench_case {
	enum kind kind;
	rdtalloc_t *r;
	uint64_t t0;			/* ns: the loads began */
	bool on[NGROUPS];
	uint64_t since[NGROUPS];	/* ns: on since */
	double bytes[NGROUPS];		/* the truth: bytes made so far */
	struct rdtalloc_mon_value v[NGROUPS + 1];
};

static uint64_t rate_of(unsigned int i)
{
	return (10 + 5 * (uint64_t)i) * 1000000;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(rdtalloc_t *r, const char *what, int err)
{
	fprintf(stderr, "bench_rotation: %s: %d: %s\n", what, err, rdtalloc_errmsg(r));
	exit(1);
}

static void set_on(struct bench_case *c, unsigned int i, bool on)
{
	struct rdtalloc_sim_load ld = { .sz = sizeof(ld), .footprint = on ? FOOTPRINT : 0,
					.rate = on ? rate_of(i) : 0, .local_pct = 100 };
	char name[16];
	uint64_t t;
	int err;

	if (c->on[i] == on && c->since[i])
		return;
	snprintf(name, sizeof(name), "g%02u", i);
	err = rdtalloc_sim_set_load(c->r, name, 0, &ld);
	if (err)
		die(c->r, "sim load", err);
	t = now_ns();
	if (c->on[i] && c->since[i])
		c->bytes[i] += (double)rate_of(i) * (double)(t - c->since[i]) / 1e9;
	c->on[i] = on;
	c->since[i] = t;
}

/* Every group's reading in domain 0: v[0] the default group, v[1 + i] group i. */
static void read_all(struct bench_case *c)
{
	int n = rdtalloc_mon_read(c->r, NULL, 0, c->v, NGROUPS + 1);

	if (n != NGROUPS + 1)
		die(c->r, "mon read", n);
}

static void open_case(struct bench_case *c, enum kind k)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .machine = MACHINE,
		      .flags = RDTALLOC_F_EPHEMERAL);
	char name[16];
	int err;

	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->t0 = now_ns();
	err = rdtalloc_open(&c->r, &o);
	if (err)
		die(NULL, "open", err);
	err = rdtalloc_mon_set_rotation(c->r, 1000, 0);
	if (err)
		die(c->r, "set rotation", err);
	for (unsigned int i = 0; i < NGROUPS; i++) {
		snprintf(name, sizeof(name), "g%02u", i);
		err = rdtalloc_group_create(c->r, name);
		if (err)
			die(c->r, "group create", err);
		set_on(c, i, k != BURSTY || rand() % 2);
	}
	c->v[0].sz = sizeof(c->v[0]);
}

/* One second's step: the read (the turn moves), then the loads for the coming second. */
static void step(struct bench_case *c)
{
	read_all(c);
	if (c->kind == BURSTY) {
		for (unsigned int i = 0; i < NGROUPS; i++)
			set_on(c, i, rand() % 2);
	} else if (c->kind == ADVERSARIAL) {
		read_all(c);	/* who holds counters now, after the turn moved */
		/* the counted go quiet first, then the others get busy */
		for (unsigned int i = 0; i < NGROUPS; i++)
			if (c->v[1 + i].state == RDTALLOC_MON_OK)
				set_on(c, i, false);
		for (unsigned int i = 0; i < NGROUPS; i++)
			if (c->v[1 + i].state != RDTALLOC_MON_OK)
				set_on(c, i, true);
	}
}

static void report(struct bench_case *c)
{
	double max = 0, sum = 0, cov = 0, seconds;
	unsigned int never = 0, i;
	uint64_t end;

	read_all(c);
	end = c->v[0].time_ns;
	seconds = (double)(end - c->t0) / 1e9;
	for (i = 0; i < NGROUPS; i++) {
		const struct rdtalloc_mon_value *v = &c->v[1 + i];
		double truth, got, err;

		if (c->on[i])
			c->bytes[i] += (double)rate_of(i) * (double)(end - c->since[i]) / 1e9;
		truth = c->bytes[i] / seconds;
		if (c->kind == STEADY)	/* the share of its footprint it hits */
			truth = rate_of(i) * (1 - (double)v->llc_occupancy / FOOTPRINT);
		if (!v->covered_ns) {
			never++;
			err = 1;
		} else {
			got = (double)v->mbm_total * 1e9 / (double)v->covered_ns;
			err = truth > 0 ? fabs(got - truth) / truth : (got > 0);
			cov += (double)v->covered_ns / 1e9;
		}
		max = err > max ? err : max;
		sum += err;
	}
	printf("%-12s max error %6.2f %%  mean %6.2f %%  covered %.1f s of %.0f s a group "
	       "on average, %u never", kind_name[c->kind], 100 * max, 100 * sum / NGROUPS,
	       cov / (NGROUPS - never ? NGROUPS - never : 1), seconds, never);
	if (c->kind == STEADY)
		printf("  (goal <= %.0f %%: %s)", 100 * GOAL, max <= GOAL ? "met" : "MISSED");
	printf("\n");
}

int main(int argc, char **argv)
{
	struct bench_case cs[NKINDS];
	struct rdtalloc_mon_counters cn = { .sz = sizeof(cn) };
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 60, t, k;
	struct timespec next;
	int err;

	if (seconds < 2 || seconds > 3600) {
		fprintf(stderr, "usage: bench_rotation [SECONDS 2..3600]\n");
		return 2;
	}
	srand(44);
	for (k = 0; k < NKINDS; k++)
		open_case(&cs[k], (enum kind)k);
	err = rdtalloc_mon_get_counters(cs[0].r, &cn);
	if (err)
		die(cs[0].r, "counters", err);
	printf("bench_rotation: %u groups, %u counters per domain (%u a group, %u free), turns of "
	       "%u ms, one read a second for %u s\n", NGROUPS, cn.total, cn.events, cn.free,
	       cn.period_ms, seconds);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (t = 0; t < seconds; t++) {
		for (k = 0; k < NKINDS; k++)
			step(&cs[k]);
		next.tv_sec++;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL))
			;
	}
	for (k = 0; k < NKINDS; k++) {
		report(&cs[k]);
		rdtalloc_close(cs[k].r);
	}
	return 0;
}
