// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Engine tests below the API: the invariants of the CLOSID tables checked
 * after every step of long random operation sequences, against a model
 * computed independently from the groups alone; clone equality; CDP
 * layout; L2 + L3 allocation domains.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>

#include "hw/engine.h"
#include "machine.h"
#include "schema.h"

static struct rdt_machine *machine(const char *desc)
{
	struct rdt_machine *m = NULL;
	char err[256] = "";
	int ret = rdt_machine_build(desc, &m, err, sizeof(err));

	if (ret)
		fail_msg("machine '%s': %d %s", desc, ret, err);
	return m;
}

/* Everything the invariants say, recomputed from the groups. */
static void check_invariants(const struct rdt_state *st)
{
	unsigned int ai, k, g, s, c, sum;

	for (ai = 0; ai < st->nadom; ai++) {
		const struct rdt_adom *a = &st->adom[ai];
		unsigned int inuse = 0;

		for (k = 0; k < a->nclos; k++) {
			unsigned int holders = 0;

			for (g = 0; g < st->ngroups; g++)
				if (st->groups[g].live && st->groups[g].closid[ai] == k)
					holders++;
			assert_int_equal(a->refcount[k], holders);
			if (!holders)
				continue;
			inuse++;
			/* Every holder's masks are the key. */
			for (g = 0; g < st->ngroups; g++) {
				const struct rdt_group *grp = &st->groups[g];

				if (!grp->live || grp->closid[ai] != k)
					continue;
				for (s = 0; s < a->nslots; s++) {
					unsigned int sl = a->slots[s];

					assert_true(a->key[(k * a->nslots + s) * 2] ==
						    grp->mask[sl * 2]);
					assert_true(a->key[(k * a->nslots + s) * 2 + 1] ==
						    grp->mask[sl * 2 + 1]);
				}
			}
			/* The registers hold the key (data 2k / code 2k+1 under CDP). */
			for (s = 0; s < a->nslots; s++) {
				unsigned int sl = a->slots[s];
				const uint64_t *regs = &st->regs.mask[sl * st->regs.nregs];
				const uint64_t *key = &a->key[(k * a->nslots + s) * 2];

				if (st->cdp[st->slot[sl].res]) {
					assert_true(regs[2 * k] == key[0]);
					assert_true(regs[2 * k + 1] == key[1]);
				} else {
					assert_true(regs[k] == key[0]);
				}
			}
		}
		assert_int_equal(a->inuse, inuse);
		/* The lower bound: no two CLOSIDs in use share a key. */
		for (k = 0; k < a->nclos; k++)
			for (c = k + 1; c < a->nclos; c++)
				if (a->refcount[k] && a->refcount[c])
					assert_memory_not_equal(&a->key[k * a->nslots * 2],
								&a->key[c * a->nslots * 2],
								a->nslots * 2 * sizeof(uint64_t));
	}
	sum = 0;
	for (g = 0; g < st->ngroups; g++)
		sum += st->groups[g].live;
	assert_int_equal(sum, st->nlive);
	/* PQR_ASSOC of every CPU is the CLOSID in force for its current task. */
	for (c = 0; c < st->m->ncpus; c++)
		if (st->cpu_adom[c] != UINT_MAX)
			assert_int_equal(st->regs.pqr[c],
					 rdt_effective_closid(st, (int)c, st->regs.cur[c]));
}

static uint64_t contiguous(unsigned int len, unsigned int lo, unsigned int n)
{
	if (lo >= len)
		lo = len - 1;
	if (n == 0)
		n = 1;
	if (lo + n > len)
		n = len - lo;
	return rdt_cbm_full(n) << lo;
}

static void random_ops(const char *desc, unsigned int steps, unsigned int seed)
{
	struct rdt_machine *m = machine(desc);
	struct rdt_state *st;
	char name[16];
	unsigned int i;

	srand(seed);
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	check_invariants(st);
	for (i = 0; i < steps; i++) {
		int op = rand() % 6, g;

		snprintf(name, sizeof(name), "g%d", rand() % 24);
		g = rdt_group_find(st, name);
		switch (op) {
		case 0:
			if (g < 0) {
				int ret = rdt_group_add(st, name, &g);

				assert_true(ret == 0 || ret == -ENOSPC);
			}
			break;
		case 1:
			if (g > 0)
				assert_int_equal(rdt_group_del(st, g), 0);
			break;
		case 2:
		case 3: {
			uint64_t *want = calloc(st->nslots * 2, sizeof(uint64_t));
			bool *set = calloc(st->nslots, sizeof(bool));
			unsigned int s;
			int ret;

			if (g < 0)
				g = 0;
			for (s = 0; s < st->nslots; s++) {
				unsigned int len = m->caps[st->slot[s].res].cbm_len;

				set[s] = rand() % 2;
				/* Few distinct masks, so sharing happens often. */
				want[s * 2] = contiguous(len, rand() % 4, 1 + rand() % 3);
				want[s * 2 + 1] = contiguous(len, rand() % 4, 1 + rand() % 3);
			}
			ret = rdt_group_set_masks(st, g, want, set);
			assert_true(ret == 0 || ret == -ENOSPC);
			free(want);
			free(set);
			break;
		}
		case 4:
			assert_int_equal(rdt_bind_cpu(st, g < 0 ? 0 : g,
						      rand() % (int)m->ncpus), 0);
			break;
		case 5:
			if (rand() % 2)
				assert_int_equal(rdt_bind_task(st, g < 0 ? 0 : g,
							       1 + rand() % 50, 0), 0);
			else
				assert_int_equal(rdt_switch(st, rand() % (int)m->ncpus,
							    rand() % 51, NULL, NULL), 0);
			break;
		}
		check_invariants(st);
	}
	rdt_state_free(st);
	rdt_machine_free(m);
}

static void test_random_l3(void **s)
{
	(void)s;
	random_ops("topology=package:2 l3:1 core:2 pu:2;l3.closids=4;l3.cbm_len=8;tasks=virtual",
		   3000, 1);
	random_ops("topology=package:2 l3:1 core:2 pu:2;l3.closids=16;tasks=virtual", 3000, 2);
}

static void test_random_l2_l3(void **s)
{
	(void)s;
	random_ops("topology=package:2 l3:1 l2:2 core:1 pu:2;l3.closids=8;l2.closids=4;"
		   "l2.cbm_len=8;tasks=virtual", 3000, 3);
}

/* The same random walk with CDP on: data and code masks differ. */
static void test_random_cdp(void **s)
{
	struct rdt_machine *m = machine("topology=package:2 l3:1 core:2 pu:1;l3.closids=8;"
					"l3.cbm_len=8;tasks=virtual");
	struct rdt_state *st;
	uint64_t want[4];
	bool set[2] = { true, true };
	int g;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	assert_int_equal(rdt_set_cdp(st, RDT_L3, true), 0);
	assert_int_equal(st->adom[0].nclos, 4);
	assert_int_equal(st->regs.cfg_writes, 2);
	assert_int_equal(rdt_group_add(st, "a", &g), 0);
	want[0] = 0x0f; want[1] = 0xf0; want[2] = 0x3; want[3] = 0x3;
	assert_int_equal(rdt_group_set_masks(st, g, want, set), 0);
	/* Group a took CLOSID 1: data at register 2, code at register 3. */
	assert_int_equal(st->groups[g].closid[0], 1);
	assert_true(st->regs.mask[0 * st->regs.nregs + 2] == 0x0f);
	assert_true(st->regs.mask[0 * st->regs.nregs + 3] == 0xf0);
	check_invariants(st);
	assert_int_equal(rdt_set_cdp(st, RDT_L3, false), -EBUSY);
	assert_int_equal(rdt_group_del(st, g), 0);
	assert_int_equal(rdt_set_cdp(st, RDT_L3, false), 0);
	assert_int_equal(st->adom[0].nclos, 8);
	check_invariants(st);
	rdt_state_free(st);
	rdt_machine_free(m);
}

/* With L2 inside L3, one CLOSID covers both: the key is the pair of masks. */
static void test_l2_l3_shared_closid(void **s)
{
	struct rdt_machine *m = machine("topology=package:1 l3:1 l2:2 core:1 pu:2;"
					"l3.closids=8;l2.closids=4;l2.cbm_len=8;tasks=virtual");
	struct rdt_state *st;
	uint64_t want[6] = { 0 };
	bool set[3] = { false, true, false };
	int a, b;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	assert_int_equal(st->nadom, 1);
	assert_int_equal(st->nslots, 3);
	assert_int_equal(st->adom[0].nclos, 4);	/* the smaller of 8 and 4 */
	assert_int_equal(rdt_group_add(st, "a", &a), 0);
	assert_int_equal(rdt_group_add(st, "b", &b), 0);
	/* a and b share CLOSID 0 with default until a's L2 mask differs. */
	assert_int_equal(st->groups[a].closid[0], 0);
	want[2] = want[3] = 0x3;	/* slot 1 = L2 cache id 0 */
	assert_int_equal(rdt_group_set_masks(st, a, want, set), 0);
	assert_int_equal(st->groups[a].closid[0], 1);
	assert_int_equal(rdt_group_set_masks(st, b, want, set), 0);
	assert_int_equal(st->groups[b].closid[0], 1);
	assert_int_equal(st->adom[0].refcount[1], 2);
	check_invariants(st);
	rdt_state_free(st);
	rdt_machine_free(m);
}

static bool same_state(const struct rdt_state *x, const struct rdt_state *y)
{
	unsigned int i;

	if (x->nlive != y->nlive || x->ngroups != y->ngroups || x->tasks.len != y->tasks.len)
		return false;
	for (i = 0; i < x->ngroups; i++) {
		if (x->groups[i].live != y->groups[i].live)
			return false;
		if (!x->groups[i].live)
			continue;
		if (strcmp(x->groups[i].name, y->groups[i].name) ||
		    memcmp(x->groups[i].mask, y->groups[i].mask, x->nslots * 2 * sizeof(uint64_t)) ||
		    memcmp(x->groups[i].closid, y->groups[i].closid, x->nadom * sizeof(unsigned)))
			return false;
	}
	return !memcmp(x->regs.mask, y->regs.mask,
		       x->nslots * x->regs.nregs * sizeof(uint64_t)) &&
	       !memcmp(x->regs.pqr, y->regs.pqr, x->m->ncpus * sizeof(unsigned int)) &&
	       !memcmp(x->cpu_group, y->cpu_group, x->m->ncpus * sizeof(int));
}

static void test_clone_is_deep(void **s)
{
	struct rdt_machine *m = machine("topology=package:2 l3:1 core:2 pu:1;tasks=virtual");
	struct rdt_state *st, *cl;
	uint64_t want[4] = { 0xff, 0xff, 0xf, 0xf };
	bool set[2] = { true, true };
	int g;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	assert_int_equal(rdt_group_add(st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(st, g, want, set), 0);
	assert_int_equal(rdt_bind_task(st, g, 42, 0), 0);
	assert_int_equal(rdt_bind_cpu(st, g, 3), 0);
	assert_int_equal(rdt_state_clone(st, &cl), 0);
	assert_true(same_state(st, cl));
	/* Changing the clone leaves the original alone. */
	assert_int_equal(rdt_group_del(cl, rdt_group_find(cl, "a")), 0);
	assert_false(same_state(st, cl));
	assert_int_equal(rdt_group_find(st, "a"), g);
	assert_int_equal(rdt_group_find(cl, "a"), -1);
	assert_non_null(rdt_task_map_get(&st->tasks, 42));
	assert_null(rdt_task_map_get(&cl->tasks, 42));
	check_invariants(st);
	check_invariants(cl);
	rdt_state_free(cl);
	rdt_state_free(st);
	rdt_machine_free(m);
}

/* Thousands of groups: names stay findable across reallocations and removals. */
static void test_many_groups(void **s)
{
	struct rdt_machine *m = machine("topology=package:2 l3:1 core:2 pu:1;tasks=virtual");
	struct rdt_state *st;
	char name[16];
	int i, g;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(rdt_group_add(st, name, &g), 0);
		assert_int_equal(rdt_bind_task(st, g, i + 1, 0), 0);
	}
	for (i = 0; i < 5000; i += 2) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(rdt_group_del(st, rdt_group_find(st, name)), 0);
		assert_null(rdt_task_map_get(&st->tasks, i + 1));
	}
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		g = rdt_group_find(st, name);
		if (i % 2 == 0) {
			assert_int_equal(g, -1);
		} else {
			assert_true(g > 0);
			assert_string_equal(st->groups[g].name, name);
			assert_int_equal(rdt_task_map_get(&st->tasks, i + 1)->group, g);
		}
	}
	assert_int_equal(st->nlive, 2501);
	assert_int_equal(st->tasks.len, 2500);
	assert_int_equal(st->adom[0].refcount[0], 2501);
	rdt_state_free(st);
	rdt_machine_free(m);
}

/* cgroup bindings: sorted, deepest wins, the limit, removal with the group, deep clones. */
static void test_cgroups(void **s)
{
	struct rdt_machine *m = machine("topology=package:2 l3:1 core:2 pu:1;tasks=virtual");
	struct rdt_state *st, *cl;
	char path[32];
	int a, b, i;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	assert_int_equal(rdt_group_add(st, "a", &a), 0);
	assert_int_equal(rdt_group_add(st, "b", &b), 0);
	assert_int_equal(rdt_bind_cgroup(st, a, "x/y", 7), 0);
	assert_int_equal(rdt_bind_cgroup(st, b, "x/y/z", 8), 0);
	assert_int_equal(rdt_bind_cgroup(st, a, "w", 9), 0);
	assert_int_equal(st->ncgroups, 3);
	assert_string_equal(st->cgroups[0].path, "w");
	assert_string_equal(st->cgroups[1].path, "x/y");
	assert_string_equal(st->cgroups[2].path, "x/y/z");
	/* the deepest bound cgroup that is the path or an ancestor of it */
	assert_int_equal(rdt_cgroup_group(st, "x/y"), a);
	assert_int_equal(rdt_cgroup_group(st, "x/y/q/r"), a);
	assert_int_equal(rdt_cgroup_group(st, "x/y/z"), b);
	assert_int_equal(rdt_cgroup_group(st, "x/y/z/deeper"), b);
	assert_int_equal(rdt_cgroup_group(st, "x/yy"), 0);
	assert_int_equal(rdt_cgroup_group(st, "x"), 0);
	assert_int_equal(rdt_cgroup_group(st, ""), 0);
	/* rebinding moves it; binding to default removes it, twice is no error */
	assert_int_equal(rdt_bind_cgroup(st, b, "w", 10), 0);
	assert_int_equal(rdt_cgroup_find(st, "w")->group, b);
	assert_int_equal(rdt_cgroup_find(st, "w")->id, 10);
	assert_int_equal(rdt_bind_cgroup(st, 0, "w", 0), 0);
	assert_int_equal(rdt_bind_cgroup(st, 0, "w", 0), 0);
	assert_null(rdt_cgroup_find(st, "w"));
	assert_int_equal(rdt_bind_cgroup(st, 99, "w", 1), -ENOENT);
	assert_int_equal(rdt_bind_cgroup(st, a, "", 1), -EINVAL);
	/* a clone is deep */
	assert_int_equal(rdt_state_clone(st, &cl), 0);
	assert_int_equal(rdt_bind_cgroup(cl, 0, "x/y", 0), 0);
	assert_non_null(rdt_cgroup_find(st, "x/y"));
	assert_null(rdt_cgroup_find(cl, "x/y"));
	rdt_state_free(cl);
	/* removing a group drops its cgroups, and only them */
	assert_int_equal(rdt_group_del(st, b), 0);
	assert_int_equal(st->ncgroups, 1);
	assert_int_equal(rdt_cgroup_group(st, "x/y/z"), a);
	/* at most RDT_CGROUPS_MAX: the next is -ENOSPC and changes nothing */
	for (i = 1; i < RDT_CGROUPS_MAX; i++) {
		snprintf(path, sizeof(path), "c/%d", i);
		assert_int_equal(rdt_bind_cgroup(st, a, path, (uint64_t)i + 100), 0);
	}
	assert_int_equal(st->ncgroups, RDT_CGROUPS_MAX);
	assert_int_equal(rdt_bind_cgroup(st, a, "one/more", 1), -ENOSPC);
	assert_string_equal(st->err, "4096 cgroups are bound already, the most a state holds");
	assert_int_equal(st->ncgroups, RDT_CGROUPS_MAX);
	assert_null(rdt_cgroup_find(st, "one/more"));
	/* rebinding one of them is not a new one */
	assert_int_equal(rdt_bind_cgroup(st, 0, "c/5", 0), 0);
	assert_int_equal(rdt_bind_cgroup(st, a, "one/more", 1), 0);
	assert_int_equal(rdt_reset(st), 0);
	assert_int_equal(st->ncgroups, 0);
	rdt_state_free(st);
	rdt_machine_free(m);
}

/*
 * A state's counters and sequence numbers stop where a state file still
 * holds them: a write counter at its largest stays there, and no group
 * is made past the last sequence number (refused, nothing changed).
 */
static void test_counters_bounded(void **s)
{
	struct rdt_machine *m = machine("topology=package:1 l3:1 core:2 pu:1;l3.closids=8;"
					"l3.cbm_len=8;tasks=virtual");
	struct rdt_state *st;
	int g;

	(void)s;
	assert_int_equal(rdt_state_new(m, NULL, &st), 0);
	st->regs.cfg_writes = RDT_COUNTER_MAX;
	assert_int_equal(rdt_set_cdp(st, RDT_L3, true), 0);
	assert_true(st->regs.cfg_writes == RDT_COUNTER_MAX);
	st->next_seq = RDT_SEQ_MAX;
	assert_int_equal(rdt_group_add(st, "a", &g), -EOVERFLOW);
	assert_int_equal(st->nlive, 1);
	assert_true(st->next_seq == RDT_SEQ_MAX);
	st->next_seq = RDT_SEQ_MAX - 1;
	assert_int_equal(rdt_group_add(st, "a", &g), 0);
	assert_true(st->next_seq == RDT_SEQ_MAX);
	check_invariants(st);
	rdt_state_free(st);
	rdt_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_l3),
		cmocka_unit_test(test_random_l2_l3),
		cmocka_unit_test(test_random_cdp),
		cmocka_unit_test(test_l2_l3_shared_closid),
		cmocka_unit_test(test_clone_is_deep),
		cmocka_unit_test(test_many_groups),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_counters_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
