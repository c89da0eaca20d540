// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/owner_lookup: who made a group, its mask, or the binding of a task, CPU or
 * cgroup (issue 40; docs/guide.md, "Who owns what"). Looks only: nothing
 * here writes an owner.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"

/* owner (NULL: unknown, or nothing to own: "") into buf; its length. */
static int copy_owner(rdtalloc_t *r, const char *owner, char *buf, size_t len)
{
	size_t n = owner ? strlen(owner) : 0;

	if (!buf && !len)
		return (int)n;
	if (!buf || n >= len)
		return rdt_fail(r, -ERANGE, "the owner needs %zu bytes", n + 1);
	memcpy(buf, owner ? owner : "", n + 1);
	return (int)n;
}

RDTALLOC_API int rdtalloc_group_owner(rdtalloc_t *r, const char *group, char *buf, size_t len)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = ret = rdt_core_find_group(r, group);
	if (ret >= 0)
		ret = copy_owner(r, rdt_group_owner(r->st, g), buf, len);
	return rdt_core_end(r, false, ret);
}

/*
 * One owner when every cache domain's mask has the same (or none is
 * known), else "RES:ID=OWNER;ID=OWNER" per resource, lines joined by ' '.
 */
static void mask_owners(const struct rdt_state *st, int g, char *out, size_t len)
{
	const char *first = rdt_group_mask_owner(st, g, 0), *o;
	unsigned int s;
	size_t n = 0;
	bool same = true;

	out[0] = '\0';
	for (s = 1; s < st->nslots; s++) {
		o = rdt_group_mask_owner(st, g, s);
		same &= (!o && !first) || (o && first && !strcmp(o, first));
	}
	if (same) {
		snprintf(out, len, "%s", first ? first : "");
		return;
	}
	for (s = 0; s < st->nslots && n < len; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		bool head = s == 0 || st->slot[s - 1].res != sl->res;

		o = rdt_group_mask_owner(st, g, s);
		n += (size_t)snprintf(out + n, len - n, "%s%s%s%u=%s", head && s ? " " : "",
				      head ? rdt_res_name(sl->res) : ";", head ? ":" : "",
				      st->m->dom[sl->res][sl->dom].cache_id, o ? o : "unknown");
	}
}

RDTALLOC_API int rdtalloc_schema_owner(rdtalloc_t *r, const char *group, char *buf, size_t len)
{
	char text[RDT_ERRMSG_MAX];
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = ret = rdt_core_find_group(r, group);
	if (ret >= 0) {
		mask_owners(r->st, g, text, sizeof(text));
		ret = copy_owner(r, text, buf, len);
	}
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_task_owner(rdtalloc_t *r, pid_t tid, char *buf, size_t len)
{
	const struct rdt_task *t;
	uint64_t start;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_task(r, &tid, &start);
	if (!ret) {
		t = rdt_task_map_get(&r->st->tasks, tid);
		ret = copy_owner(r, t && t->start == start ? rdt_owner_name(r->st, t->owner) : NULL,
				 buf, len);
	}
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_cpu_owner(rdtalloc_t *r, int cpu, char *buf, size_t len)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cpu(r, cpu);
	if (!ret)
		ret = copy_owner(r, r->st->cpu_group[cpu] > 0 ?
				 rdt_owner_name(r->st, r->st->cpu_owner[cpu]) : NULL, buf, len);
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_cgroup_owner(rdtalloc_t *r, const char *path, char *buf, size_t len)
{
	const struct rdt_cgroup *c;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_cgroup_binding(r, path, &c);
	if (!ret)
		ret = copy_owner(r, c ? rdt_owner_name(r->st, c->owner) : NULL, buf, len);
	return rdt_core_end(r, false, ret);
}
