// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/task_binding: the public calls on tasks - bind, the tasks of a group (the
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
