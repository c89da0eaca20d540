// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * calls: the steps of a call that the API files and the modules above the
 * context share inside one transaction (lib/core.c's rdt_core_begin ..
 * rdt_core_end) - a schema applied to a group, read back, a task or CPU
 * bound, a cgroup checked, the groups in order. They are
 * the context's (core.h), not the API files', so that a module (leases,
 * monitoring, containers, the controller) calls down into the core and
 * never into a file of public calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups.h"
#include "core.h"
#include "errors.h"
#include "schema.h"

/* ---- Schemas ------------------------------------------------------------------------ */

static void free_parsed(struct rdt_schema_mask *parsed[RDT_NALL])
{
	unsigned int res;

	for (res = 0; res < RDT_NALL; res++)
		free(parsed[res]);
}

/*
 * Turn schema text into the engine's per-slot request for group g:
 * want[slot*2 + 0/1] and set[slot]. Only the given halves change.
 */
static int schema_request(struct rdtalloc *r, struct rdt_state *st, int g, const char *text,
			  uint64_t **want, bool **set)
{
	struct rdt_schema_mask *parsed[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int res, d;
	int ret = -ENOMEM;

	*want = calloc((size_t)st->nslots * 2, sizeof(uint64_t));
	*set = calloc(st->nslots, sizeof(bool));
	if (!*want || !*set)
		goto fail;
	for (res = 0; res < RDT_NALL; res++)
		if (r->m->caps[res].present &&
		    !(parsed[res] = calloc(r->m->ndom[res], sizeof(**parsed))))
			goto fail;
	ret = rdt_schema_parse(r->m, st->cdp, text, parsed, err, sizeof(err));
	if (ret) {
		rdt_fail(r, ret, "%s", err[0] ? err : "invalid schema");
		goto fail;
	}
	for (res = 0; res < RDT_NALL; res++) {
		for (d = 0; parsed[res] && d < r->m->ndom[res]; d++) {
			const struct rdt_schema_mask *p = &parsed[res][d];
			unsigned int s = st->slot_of[res][d];

			if (!p->data_set && !p->code_set)
				continue;
			(*set)[s] = true;
			(*want)[s * 2] = p->data_set ? p->data : grp->mask[s * 2];
			(*want)[s * 2 + 1] = p->code_set ? p->code : grp->mask[s * 2 + 1];
		}
	}
	free_parsed(parsed);
	return 0;
fail:
	free_parsed(parsed);
	free(*want);
	free(*set);
	*want = NULL;
	*set = NULL;
	return ret == -ENOMEM ? rdt_fail(r, ret, "out of memory") : ret;
}

/*
 * A mask the call set that uses shareable ways: accepted, with a warning -
 * other agents (I/O through DDIO on Intel) fill those ways too, so the
 * group does not have them to itself. Not for the default group's
 * all-ones mask, which every saved configuration sets again.
 */
static void warn_shareable(struct rdtalloc *r, const struct rdt_state *st, int g, const bool *set)
{
	unsigned int s, h;

	for (s = 0; s < st->nslots; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		/* MPAM shows every way shareable: no I/O fills them */
		uint64_t shared = st->m->mpam ? 0 : st->m->caps[sl->res].shareable_bits;

		if (!set[s] || sl->res == RDT_MB || !shared)
			continue;
		for (h = 0; h < (st->cdp[sl->res] ? 2u : 1u); h++) {
			uint64_t m = st->groups[g].mask[s * 2 + h];

			/* the default group's every way: what reset gives it, no one's choice */
			if (g == 0 && m == rdt_cbm_full(st->m->caps[sl->res].cbm_len))
				continue;
			if (m & shared)
				rdt_core_warn(r, "%s cache id %u: %smask 0x%llx uses the shareable ways 0x%llx, "
				     "which other agents (such as I/O) fill too: group %s does not "
				     "have them to itself", rdt_res_name(sl->res),
				     st->m->dom[sl->res][sl->dom].cache_id,
				     st->cdp[sl->res] ? (h ? "code " : "data ") : "",
				     (unsigned long long)m, (unsigned long long)(m & shared),
				     st->groups[g].name);
		}
	}
}

/* Apply schema text to group g of st (r->st or a working copy). */
int rdt_core_apply_schema(struct rdtalloc *r, struct rdt_state *st, int g, const char *text,
			bool *changed)
{
	uint64_t *want, *before;
	bool *set;
	int ret;

	ret = schema_request(r, st, g, text, &want, &set);
	if (ret)
		return ret;
	before = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	if (!before) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(before, st->groups[g].mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
	ret = rdt_group_set_masks(st, g, want, set);
	if (ret)
		ret = rdt_fail(r, ret, "%s", st->err);
	else
		warn_shareable(r, st, g, set);
	if (!ret && changed)
		*changed = memcmp(before, st->groups[g].mask,
				  (size_t)st->nslots * 2 * sizeof(uint64_t)) != 0;
	free(before);
out:
	free(want);
	free(set);
	return ret;
}

int rdt_core_set_schema(struct rdtalloc *r, int g, const char *schema)
{
	bool changed = false;
	int ret = rdt_core_apply_schema(r, r->st, g, schema, &changed);

	if (!ret && changed)
		r->dirty = r->groups_changed = true;
	return ret;
}

/* Format group g's schema; returns the length. */
int rdt_core_format_schema(const struct rdt_state *st, int g, char *buf, size_t len)
{
	uint64_t *data[RDT_NALL] = { 0 }, *code[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	unsigned int res, d;
	int ret = -ENOMEM;

	for (res = 0; res < RDT_NALL; res++) {
		if (!st->m->caps[res].present)
			continue;
		data[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		code[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		if (!data[res] || !code[res])
			goto out;
		for (d = 0; d < st->m->ndom[res]; d++) {
			unsigned int s = st->slot_of[res][d];

			data[res][d] = grp->mask[s * 2];
			code[res][d] = grp->mask[s * 2 + 1];
		}
	}
	ret = rdt_schema_format(st->m, st->cdp, data, code, buf, len);
out:
	for (res = 0; res < RDT_NALL; res++) {
		free(data[res]);
		free(code[res]);
	}
	return ret;
}

/* ---- Bindings ----------------------------------------------------------------------- */

/* Inside a write call: task tid to group g (lib/batch.c binds many this way). */
int rdt_core_bind_task(struct rdtalloc *r, int g, pid_t tid)
{
	uint64_t start;
	int ret;

	ret = rdt_core_check_task(r, &tid, &start);
	if (ret)
		return ret;
	ret = r->be->ops->tasks_allowed(r);
	if (ret)
		return ret;
	rdt_core_gc_tasks(r);
	/* at the limit, every exited task's binding goes before the answer is no */
	if (r->st->tasks.len >= r->st->max_tasks && !rdt_task_map_get(&r->st->tasks, tid) &&
	    rdt_core_sweep_tasks(r, r->st))
		r->dirty = true;
	ret = rdt_core_engine_err(r, rdt_bind_task(r->st, g, tid, start));
	/* the state's table, then the backend's owner of membership; rdt_core_end() undoes both */
	if (!ret)
		ret = r->be->ops->bind_task(r, g, tid, start);
	if (!ret)
		r->dirty = true;
	return ret;
}

/* Inside a write call: CPU cpu to group g. */
int rdt_core_bind_cpu(struct rdtalloc *r, int g, int cpu)
{
	int ret = rdt_core_check_cpu(r, cpu);

	if (!ret)
		ret = rdt_core_engine_err(r, rdt_bind_cpu(r->st, g, cpu));
	if (!ret)
		r->dirty = r->groups_changed = true;
	return ret;
}

/* The cgroup a caller names, normalised, with its id; errmsg names what is wrong. */
int rdt_core_check_cgroup(struct rdtalloc *r, const char *path, char *rel, size_t len, uint64_t *id)
{
	char err[RDT_ERRMSG_MAX];
	const char *root;
	int ret;

	if (r->m->virtual_tasks)
		return rdt_fail(r, -EOPNOTSUPP, "this machine's tasks are virtual (tasks=virtual): "
				"it has no cgroups to bind");
	root = rdt_core_cgroup_root(r);
	if (!root)
		return -ENOENT;
	ret = rdt_cgroup_resolve(root, path, rel, len, id, err, sizeof(err));
	return ret ? rdt_fail(r, ret, "%s", err) : 0;
}

/* ---- Groups -------------------------------------------------------------------------- */

static int cmp_seq(const void *a, const void *b, void *arg)
{
	const struct rdt_state *st = arg;
	uint64_t x = st->groups[*(const int *)a].seq, y = st->groups[*(const int *)b].seq;

	return (x > y) - (x < y);
}

/* Live groups in creation order (default first); caller frees. */
int *rdt_core_groups_in_order(const struct rdt_state *st, unsigned int *n)
{
	int *order = malloc((st->ngroups ? st->ngroups : 1) * sizeof(int));
	unsigned int i, k = 0;

	if (!order)
		return NULL;
	for (i = 0; i < st->ngroups; i++)
		if (st->groups[i].live)
			order[k++] = (int)i;
	if (k > 1)
		qsort_r(order + 1, k - 1, sizeof(int), cmp_seq, (void *)st);
	*n = k;
	return order;
}

/* The binding of the cgroup a caller names, itself (NULL: it is not bound itself). */
int rdt_core_cgroup_binding(struct rdtalloc *r, const char *path, const struct rdt_cgroup **c)
{
	char rel[RDT_CGROUP_PATH_MAX];
	uint64_t id;
	int ret = rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);

	*c = ret ? NULL : rdt_cgroup_find(r->st, rel);
	return ret;
}
