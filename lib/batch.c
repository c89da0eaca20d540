// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * batch: many CPUs or tasks bound to a group in one call - one lock, one
 * state write, all or nothing. The per-item rules are the single calls'
 * (rdt_core_bind_cpu / _task); what this module owns is that a list is one
 * transaction: an item that cannot be bound fails the call, naming it, and
 * rdt_core_end drops everything the call did (the state in memory, the
 * backend's part: the hook's task storage, resctrl's task moves). A kill
 * at any point leaves the state as it was or as it is after the call, as
 * the state file is written once, by rename.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <rdtalloc/rdtalloc.h>

#include "context.h"
#include "errors.h"

static int check_batch(rdtalloc_t *r, const void *v, size_t n, const char *what)
{
	if (!r)
		return -EINVAL;
	if (n && !v)
		return rdt_fail(r, -EINVAL, "the list of %s is NULL but holds %zu", what, n);
	if (n > RDTALLOC_BATCH_MAX)
		return rdt_fail(r, -E2BIG, "%zu %s in one call: at most %u", n, what,
				RDTALLOC_BATCH_MAX);
	return 0;
}

RDTALLOC_API int rdtalloc_bind_cpus(rdtalloc_t *r, const char *group, const int *cpus, size_t n)
{
	int ret = check_batch(r, cpus, n, "CPUs"), g;

	if (ret)
		return ret;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : 0;
	for (size_t i = 0; !ret && i < n; i++)
		ret = rdt_core_bind_cpu(r, g, cpus[i]);
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_bind_tasks(rdtalloc_t *r, const char *group, const pid_t *tids,
				     size_t n)
{
	int ret = check_batch(r, tids, n, "tasks"), g;

	if (ret)
		return ret;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : 0;
	for (size_t i = 0; !ret && i < n; i++)
		ret = rdt_core_bind_task(r, g, tids[i]);
	return rdt_core_end(r, true, ret);
}
