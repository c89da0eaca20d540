// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * drift: bound tasks the kernel has elsewhere than their group, where the
 * kernel owns membership (resctrl) and another tool moved them. Reported
 * here; a writable open drops their bindings (the backend's rule, in
 * docs/resctrl.md), a read-only one leaves that to the next change.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "context.h"
#include "errors.h"

RDTALLOC_API int rdtalloc_moved_tasks(rdtalloc_t *r, struct rdtalloc_moved_task *out,
				      size_t max)
{
	struct rdt_moved *mv = NULL;
	size_t n = 0, i;
	int ret;

	if (!r)
		return -EINVAL;
	if (max && !out)
		return rdt_fail(r, -EINVAL, "out is NULL but max is %zu", max);
	for (i = 0; i < max; i++)
		if (out[i].sz < sizeof(out[i]))
			return rdt_fail(r, -EINVAL, "rdtalloc_moved_task.sz of entry %zu is %zu: set "
					"it to sizeof(struct rdtalloc_moved_task)", i, out[i].sz);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (rdt_core_backend(r)->ops->moved_tasks)
		ret = rdt_core_backend(r)->ops->moved_tasks(r, &mv, &n);
	for (i = 0; !ret && i < n && i < max; i++) {
		out[i].tid = mv[i].tid;
		snprintf(out[i].group, sizeof(out[i].group), "%s",
			 rdt_core_state(r)->groups[mv[i].group].name);
		snprintf(out[i].where, sizeof(out[i].where), "%s", mv[i].where);
	}
	free(mv);
	if (!ret)
		ret = n > INT32_MAX ? INT32_MAX : (int)n;
	return rdt_core_end(r, false, ret);
}
