// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/tasks: the public calls on tasks - bind, the tasks of a group (the
 * backend's view: lib/bindings.c for the state's table), the group of a
 * task.
 */
#include <errno.h>
#include <limits.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"
#include "tasks.h"

/* ---- Membership ------------------------------------------------------------------- */

/* Inside a write call: task tid to group g (lib/batch.c binds many this way). */
int rdt_core_bind_task(rdtalloc_t *r, int g, pid_t tid)
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

RDTALLOC_API int rdtalloc_bind_task(rdtalloc_t *r, const char *group, pid_t tid)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_core_bind_task(r, g, tid);
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_tasks(rdtalloc_t *r, const char *group, pid_t *tids, size_t max)
{
	pid_t *v = NULL;
	size_t n = 0;
	int ret, g;

	if (!r || (!tids && max))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_core_collect_tasks(r, g, &v, &n);
	if (!ret) {
		if (max && n)
			memcpy(tids, v, (n < max ? n : max) * sizeof(pid_t));
		ret = n > INT_MAX ? INT_MAX : (int)n;
	}
	free(v);
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_task_group(rdtalloc_t *r, pid_t tid, char *buf, size_t len)
{
	uint64_t start;
	int ret, g = 0;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_task(r, &tid, &start);
	if (!ret)
		ret = r->be->ops->task_group(r, tid, start, &g);
	if (!ret)
		ret = rdt_core_copy_name(r, r->st->groups[g].name, buf, len);
	return rdt_core_end(r, false, ret);
}
