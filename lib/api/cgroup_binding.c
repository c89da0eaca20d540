// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/cgroup_binding: the public calls on cgroup bindings - bind, the group of a
 * cgroup, every binding. lib/cgbind.c resolves them where the library does.
 */
#include <errno.h>

#include <rdtalloc/rdtalloc.h>

#include "cgroups.h"
#include "core.h"
#include "errors.h"

/* ---- cgroups ------------------------------------------------------------------------ */

#define POLICY_KEEP (~0u)	/* rdtalloc_bind_cgroup: an existing binding's policy stays */

static int bind_cgroup(rdtalloc_t *r, const char *group, const char *path, unsigned int flags)
{
	char rel[RDT_CGROUP_PATH_MAX];
	const struct rdt_cgroup *c;
	uint64_t id;
	int ret, g;

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
	if (g && flags != POLICY_KEEP && (flags & ~RDTALLOC_CGROUP_ENFORCE)) {
		ret = rdt_fail(r, -EINVAL, "rdtalloc_bind_cgroup_flags: unknown flags %#x", flags);
		goto out;
	}
	if (!g && flags != POLICY_KEEP && flags) {
		ret = rdt_fail(r, -EINVAL, "unbinding cgroup %s (the default group) takes no "
			       "policy", rel);
		goto out;
	}
	c = rdt_cgroup_find(r->st, rel);
	if (!(c ? c->group == g && c->id == id : g == 0)) {
		ret = rdt_core_engine_err(r, rdt_bind_cgroup(r->st, g, rel, id));
		if (!ret)
			r->dirty = r->cgroups_changed = true;
	}
	c = rdt_cgroup_find(r->st, rel);
	if (!ret && g && flags != POLICY_KEEP && c->enforce != !!flags) {
		ret = rdt_core_engine_err(r, rdt_cgroup_set_enforce(r->st, rel, flags != 0));
		if (!ret)
			r->dirty = r->cgroups_changed = true;
	}
out:
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_bind_cgroup(rdtalloc_t *r, const char *group, const char *path)
{
	return r ? bind_cgroup(r, group, path, POLICY_KEEP) : -EINVAL;
}

RDTALLOC_API int rdtalloc_bind_cgroup_flags(rdtalloc_t *r, const char *group, const char *path,
					    unsigned int flags)
{
	if (!r)
		return -EINVAL;
	if (flags == POLICY_KEEP)	/* not a policy either: refused as unknown */
		return rdt_fail(r, -EINVAL, "rdtalloc_bind_cgroup_flags: unknown flags %#x",
				flags);
	return bind_cgroup(r, group, path, flags);
}

RDTALLOC_API int rdtalloc_cgroup_policy(rdtalloc_t *r, const char *path)
{
	const struct rdt_cgroup *c;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_cgroup_binding(r, path, &c);
	if (!ret && !c)
		ret = rdt_fail(r, -ENOENT, "cgroup %s is not bound itself", path);
	if (!ret)
		ret = c->enforce ? (int)RDTALLOC_CGROUP_ENFORCE : 0;
	return rdt_core_end(r, false, ret);
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
