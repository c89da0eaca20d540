// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/cgroups: the public calls on cgroup bindings - bind, the group of a
 * cgroup, every binding. lib/cgbind.c resolves them where the library does.
 */
#include <errno.h>

#include <rdtalloc/rdtalloc.h>

#include "cgroups.h"
#include "core.h"
#include "errors.h"

/* ---- cgroups ------------------------------------------------------------------------ */

RDTALLOC_API int rdtalloc_bind_cgroup(rdtalloc_t *r, const char *group, const char *path)
{
	char rel[RDT_CGROUP_PATH_MAX];
	const struct rdt_cgroup *c;
	uint64_t id;
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);
	if (!ret)
		ret = rdt_core_cgroup_may_bind(r, rel);
	if (!ret)
		ret = r->be->ops->tasks_allowed(r);
	if (ret)
		goto out;
	if (rdt_core_cgroup_gc(r))
		r->dirty = r->cgroups_changed = true;
	c = rdt_cgroup_find(r->st, rel);
	if (c ? c->group == g && c->id == id : g == 0)
		goto out;	/* as asked already */
	ret = rdt_core_engine_err(r, rdt_bind_cgroup(r->st, g, rel, id));
	if (!ret)
		r->dirty = r->cgroups_changed = true;
out:
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_cgroup_group(rdtalloc_t *r, const char *path, char *buf, size_t len)
{
	char rel[RDT_CGROUP_PATH_MAX];
	uint64_t id;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cgroup(r, path, rel, sizeof(rel), &id);
	if (!ret)
		ret = rdt_core_copy_name(r, r->st->groups[rdt_core_cgroup_path_group(r, rel)].name,
					 buf, len);
	return rdt_core_end(r, false, ret);
}

/* One live binding, copied out for a callback that runs unlocked. */
struct cg_snap {
	char *path;
	char group[RDT_NAME_LEN];
};

static int cgroup_snapshot(rdtalloc_t *r, struct cg_snap **out, unsigned int *n)
{
	const char *root = rdt_core_cgroup_root(r);
	struct cg_snap *v;
	unsigned int i;

	*n = 0;
	*out = v = calloc(r->st->ncgroups + 1, sizeof(*v));
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; root && i < r->st->ncgroups; i++) {
		const struct rdt_cgroup *c = &r->st->cgroups[i];
		uint64_t id;

		/* a cgroup removed since drops out, as an exited task does */
		if (rdt_cgroup_id(root, c->path, &id) || id != c->id)
			continue;
		v[*n].path = strdup(c->path);
		if (!v[*n].path)
			return rdt_fail(r, -ENOMEM, "out of memory");
		memcpy(v[(*n)++].group, r->st->groups[c->group].name, RDT_NAME_LEN);
	}
	return 0;
}

RDTALLOC_API int rdtalloc_cgroup_foreach(rdtalloc_t *r,
					 int (*cb)(const char *path, const char *group, void *arg),
					 void *arg)
{
	struct cg_snap *snap = NULL;
	unsigned int i, n = 0;
	int ret;

	if (!r || !cb)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = r->st->ncgroups ? cgroup_snapshot(r, &snap, &n) : 0;
	ret = rdt_core_end(r, false, ret);
	/* callbacks run unlocked, on the snapshot: they may call us again */
	for (i = 0; !ret && i < n; i++)
		ret = cb(snap[i].path, snap[i].group, arg);
	for (i = 0; snap && snap[i].path; i++)
		free(snap[i].path);
	free(snap);
	return ret;
}
