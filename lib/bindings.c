// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bindings: the state's task bindings as the backends read them - whether
 * a binding still names its live task, the tasks of a group by the state's
 * table and its bound cgroups (a sorted index of the table, rebuilt only
 * when the table changed), the group of a task. Below the context's
 * transaction (lib/core.c) and the API files: the backends (lib/hw/ops.c,
 * lib/backends/resctrl_*.c) call these, so they must call nothing above.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "errors.h"
#include "tasks.h"

/* A binding is live when its task still runs and is the same task. */
bool rdt_core_binding_alive(const struct rdtalloc *r, const struct rdt_task *t)
{
	return rdt_core_machine(r)->virtual_tasks || rdt_task_alive(t->tid, t->start);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void rdt_core_task_index_free(struct rdtalloc *r)
{
	struct rdt_task_index *x = rdt_core_task_index(r);

	free(x->off);
	free(x->tid);
	x->off = NULL;
	x->tid = NULL;
	x->gen = 0;
}

/*
 * The bound tasks by group, rebuilt only when the table changed: asking
 * every group for its tasks (group show of 10,000 groups) is then linear
 * in the tasks, not their square.
 */
static int task_index(struct rdtalloc *r)
{
	struct rdt_task_index *x = rdt_core_task_index(r);
	const struct rdt_task_map *m = &rdt_core_state(r)->tasks;
	unsigned int ng = rdt_core_state(r)->ngroups, g;
	size_t i, *pos;

	if (x->off && x->gen == m->gen && x->ngroups == ng)
		return 0;
	rdt_core_task_index_free(r);
	x->off = calloc((size_t)ng + 2, sizeof(size_t));
	x->tid = malloc((m->len ? m->len : 1) * sizeof(pid_t));
	pos = malloc(((size_t)ng + 1) * sizeof(size_t));
	if (!x->off || !x->tid || !pos) {
		free(pos);
		rdt_core_task_index_free(r);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && (unsigned int)m->slots[i].group < ng)
			x->off[m->slots[i].group + 1]++;
	for (g = 0; g < ng; g++)
		x->off[g + 1] += x->off[g];
	memcpy(pos, x->off, ((size_t)ng + 1) * sizeof(size_t));
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && (unsigned int)m->slots[i].group < ng)
			x->tid[pos[m->slots[i].group]++] = m->slots[i].tid;
	for (g = 0; g < ng; g++)
		qsort(x->tid + x->off[g], x->off[g + 1] - x->off[g], sizeof(pid_t),
		      cmp_pid);
	free(pos);
	x->gen = m->gen;
	x->ngroups = ng;
	return 0;
}

/* v minus the tids of drop (both ascending), in place. */
static size_t subtract(pid_t *v, size_t n, const pid_t *drop, size_t nd)
{
	size_t i, j = 0, k = 0;

	for (i = 0; i < n; i++) {
		while (j < nd && drop[j] < v[i])
			j++;
		if (j < nd && drop[j] == v[i])
			continue;
		v[k++] = v[i];
	}
	return k;
}

/* a and b (ascending) merged into a new array, each tid once. */
static int merge(const pid_t *a, size_t na, const pid_t *b, size_t nb, pid_t **out, size_t *n)
{
	pid_t *v = malloc((na + nb + 1) * sizeof(pid_t));
	size_t i = 0, j = 0, k = 0;

	if (!v)
		return -ENOMEM;
	while (i < na || j < nb) {
		pid_t x = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];

		if (i < na && a[i] == x)
			i++;
		if (j < nb && b[j] == x)
			j++;
		v[k++] = x;
	}
	*out = v;
	*n = k;
	return 0;
}

/* The tids the state's table binds to a live task, ascending. */
static int table_bound(struct rdtalloc *r, pid_t **out, size_t *n)
{
	const struct rdt_task_map *m = &rdt_core_state(r)->tasks;
	pid_t *v = malloc((m->len + 1) * sizeof(pid_t));
	size_t i, k = 0;

	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].tid && rdt_core_binding_alive(r, &m->slots[i]))
			v[k++] = m->slots[i].tid;
	qsort(v, k, sizeof(pid_t), cmp_pid);
	*out = v;
	*n = k;
	return 0;
}

/*
 * Tasks of g through its cgroups (or, for g 0, of any bound cgroup), less
 * those bound by the table: out of out/n (ascending) for g 0, into it else.
 */
static int with_cgroups(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	pid_t *cg = NULL, *own = NULL, *v;
	size_t ncg = 0, nown = 0, nv;
	int ret;

	if (!rdt_core_state(r)->ncgroups || rdt_core_machine(r)->virtual_tasks)
		return 0;
	ret = rdt_core_cgroup_members(r, g ? g : -1, &cg, &ncg);
	if (!ret && ncg && g)
		ret = table_bound(r, &own, &nown);
	if (ret || !ncg)
		goto out;
	if (g == 0) {
		*n = subtract(*out, *n, cg, ncg);
		goto out;
	}
	ncg = subtract(cg, ncg, own, nown);
	ret = merge(*out, *n, cg, ncg, &v, &nv);
	if (ret) {
		ret = rdt_fail(r, ret, "out of memory");
		goto out;
	}
	free(*out);
	*out = v;
	*n = nv;
out:
	free(cg);
	free(own);
	return ret;
}

/* Live tasks of group g by the state's table and its cgroups, ascending, into a new array. */
int rdt_core_table_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	struct rdt_task_index *x = rdt_core_task_index(r);
	const struct rdt_task_map *m = &rdt_core_state(r)->tasks;
	pid_t *v;
	size_t i, k = 0;
	int ret;

	if (g == 0 && !rdt_core_machine(r)->virtual_tasks) {
		pid_t *all;
		size_t na;

		ret = rdt_host_tids(&all, &na);

		if (ret)
			return rdt_fail(r, ret, "cannot list the tasks in /proc: %s",
					strerror(-ret));
		for (i = 0; i < na; i++) {
			const struct rdt_task *t = rdt_task_map_get(m, all[i]);

			if (!t || !rdt_core_binding_alive(r, t))
				all[k++] = all[i];
		}
		*out = all;
		*n = k;
		ret = with_cgroups(r, 0, out, n);
		if (ret) {
			free(*out);
			*out = NULL;
		}
		return ret;
	}
	if (g != 0 && (ret = task_index(r)))
		return ret;
	i = g ? x->off[g] : 0;
	v = malloc(((g ? x->off[g + 1] : i) - i + 1) * sizeof(pid_t));
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (; g != 0 && i < x->off[g + 1]; i++) {
		const struct rdt_task *t = rdt_task_map_get(m, x->tid[i]);

		if (t && t->group == g && rdt_core_binding_alive(r, t))
			v[k++] = t->tid;
	}
	*out = v;
	*n = k;
	if (g != 0 && (ret = with_cgroups(r, g, out, n))) {
		free(*out);
		*out = NULL;
		return ret;
	}
	return 0;
}

int rdt_core_table_group(struct rdtalloc *r, pid_t tid, uint64_t start)
{
	const struct rdt_task *t = rdt_task_map_get(&rdt_core_state(r)->tasks, tid);

	if (t && (rdt_core_machine(r)->virtual_tasks || t->start == start))
		return t->group;
	return rdt_core_cgroup_task_group(r, tid);
}

