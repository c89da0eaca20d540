// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/groups: the public calls on groups - create, remove, mode, count, walk in
 * creation order. Each is one transaction of lib/core.c.
 */
#include <errno.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "core.h"
#include "errors.h"

RDTALLOC_API int rdtalloc_group_create(rdtalloc_t *r, const char *name)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (!name || !*name)
		ret = rdt_fail(r, -EINVAL, "a group needs a name");
	else if (!strcmp(name, "default"))
		ret = rdt_fail(r, -EEXIST, "the default group always exists");
	else if (!rdt_name_valid(name))
		ret = rdt_core_find_group(r, name);	/* reports the invalid name */
	else {
		int idx = -1;

		rdt_core_gc_tasks(r);
		ret = rdt_core_engine_err(r, rdt_group_add(r->st, name, &idx));
		/* where exclusive groups hold ways, the new group starts beside them */
		if (!ret && (ret = rdt_core_engine_err(r, rdt_group_fit_exclusive(r->st, idx))))
			rdt_group_del(r->st, idx);	/* no group rather than half a one */
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_remove(rdtalloc_t *r, const char *name)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, name);
	if (g == 0)
		ret = rdt_fail(r, -EBUSY, "the default group cannot be removed");
	else if (g < 0)
		ret = g;
	else {
		rdt_core_gc_tasks(r);
		ret = rdt_core_engine_err(r, rdt_group_del(r->st, g));
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_set_mode(rdtalloc_t *r, const char *group, unsigned int mode)
{
	unsigned int kind = mode & ~RDTALLOC_MODE_FORCE;
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0)
		ret = g;
	else if (kind != RDTALLOC_MODE_SHAREABLE && kind != RDTALLOC_MODE_EXCLUSIVE)
		ret = rdt_fail(r, -EINVAL, "mode 0x%x: use RDTALLOC_MODE_SHAREABLE or "
			       "RDTALLOC_MODE_EXCLUSIVE (| RDTALLOC_MODE_FORCE)", mode);
	else if (r->st->groups[g].exclusive != (kind == RDTALLOC_MODE_EXCLUSIVE) ||
		 r->st->groups[g].forced != ((mode & RDTALLOC_MODE_FORCE) &&
					     kind == RDTALLOC_MODE_EXCLUSIVE)) {
		ret = rdt_core_engine_err(r, rdt_group_set_exclusive(r->st, g,
							    kind == RDTALLOC_MODE_EXCLUSIVE,
							    mode & RDTALLOC_MODE_FORCE));
		if (!ret)
			r->dirty = r->groups_changed = true;
	}
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_get_mode(rdtalloc_t *r, const char *group)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g >= 0)
		ret = !r->st->groups[g].exclusive ? (int)RDTALLOC_MODE_SHAREABLE :
		      (int)(RDTALLOC_MODE_EXCLUSIVE |
			    (r->st->groups[g].forced ? RDTALLOC_MODE_FORCE : 0));
	else
		ret = g;
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_group_count(rdtalloc_t *r)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	return rdt_core_end(r, false, (int)r->st->nlive);
}

RDTALLOC_API int rdtalloc_group_foreach(rdtalloc_t *r, int (*cb)(const char *name, void *arg),
					void *arg)
{
	char (*names)[RDT_NAME_LEN] = NULL;
	unsigned int i, n = 0;
	int *order, ret;

	if (!r || !cb)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	order = rdt_core_groups_in_order(r->st, &n);
	names = order ? malloc(n * sizeof(*names)) : NULL;
	if (names)
		for (i = 0; i < n; i++)
			memcpy(names[i], r->st->groups[order[i]].name, RDT_NAME_LEN);
	free(order);
	ret = rdt_core_end(r, false, names ? 0 : rdt_fail(r, -ENOMEM, "out of memory"));
	/* Callbacks run unlocked, on the snapshot: they may call us again. */
	for (i = 0; !ret && i < n; i++)
		ret = cb(names[i], arg);
	free(names);
	return ret;
}
