// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/machine_state: what the machine and the state hold beyond groups - resources,
 * domains, CLOSIDs and who shares them, the effective CLOSID and the
 * simulated switch, CDP, the precedence rule, limits, reset, the register
 * file of the simulator and msr.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "cgroups.h"
#include "core.h"
#include "errors.h"

/* ---- Machine and CLOSIDs --------------------------------------------------------- */

/* Resource idx-th present resource. */
static int nth_res(const struct rdt_machine *m, unsigned int idx)
{
	unsigned int res, k = 0;

	for (res = 0; res < RDT_NALL; res++)
		if (m->caps[res].present && k++ == idx)
			return (int)res;
	return -1;
}

RDTALLOC_API int rdtalloc_resource_count(rdtalloc_t *r)
{
	int n = 0;

	if (!r)
		return -EINVAL;
	while (nth_res(r->m, (unsigned int)n) >= 0)
		n++;
	return n;
}

RDTALLOC_API int rdtalloc_get_resource_info(rdtalloc_t *r, unsigned int idx,
					struct rdtalloc_resource_info *info)
{
	struct rdtalloc_resource_info v = { 0 };
	const struct rdt_caps *c;
	int ret, res;

	if (!r || !info || info->sz < sizeof(size_t))
		return r ? rdt_fail(r, -EINVAL, "info is NULL or info->sz is not set") : -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	res = nth_res(r->m, idx);
	if (res < 0)
		return rdt_core_end(r, false, rdt_fail(r, -EINVAL, "no resource %u (have %d)", idx,
					      rdtalloc_resource_count(r)));
	c = &r->m->caps[res];
	v.sz = info->sz < sizeof(v) ? info->sz : sizeof(v);
	snprintf(v.name, sizeof(v.name), "%s", rdt_res_name(res));
	v.hw_closids = c->closids;
	v.num_closids = r->st->cdp[res] ? c->closids / 2 : c->closids;
	v.cbm_len = c->cbm_len;
	v.min_cbm_bits = c->min_cbm_bits;
	v.shareable_bits = c->shareable_bits;
	v.cdp_supported = c->cdp;
	v.cdp_enabled = r->st->cdp[res];
	v.sparse_masks = c->sparse;
	v.num_domains = r->m->ndom[res];
	if (res == RDT_MB) {
		v.min_bandwidth = c->mb_min;
		v.bandwidth_gran = c->mb_gran;
		v.max_bandwidth = c->mb_max;
		v.bandwidth_amd = c->mb_amd;
		v.bandwidth_mbps = c->mb_mbps;
	}
	memcpy(info, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

RDTALLOC_API int rdtalloc_domains(rdtalloc_t *r, const char *resource, unsigned int *ids,
				  size_t max)
{
	unsigned int d;
	int res;

	if (!r || (!ids && max))
		return -EINVAL;
	rdt_clear_err(r);
	res = rdt_core_find_res(r, resource);
	if (res < 0)
		return res;
	for (d = 0; d < r->m->ndom[res] && d < max; d++)
		ids[d] = r->m->dom[res][d].cache_id;
	return (int)r->m->ndom[res];
}

static int find_dom(rdtalloc_t *r, const char *resource, unsigned int cache_id, int *res)
{
	char have[256] = "";
	size_t off = 0;
	unsigned int d;
	int dom;

	*res = rdt_core_find_res(r, resource);
	if (*res < 0)
		return *res;
	dom = rdt_machine_domain(r->m, *res, cache_id);
	if (dom >= 0)
		return dom;
	for (d = 0; d < r->m->ndom[*res] && off < sizeof(have) - 12; d++)
		off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%u", d ? "," : "",
					r->m->dom[*res][d].cache_id);
	return rdt_fail(r, -EINVAL, "%s cache id %u does not exist (have %s)",
			rdt_res_name(*res), cache_id, have);
}

RDTALLOC_API int rdtalloc_domain_cpus(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				      int *cpus, size_t max)
{
	const struct rdt_domain *dom;
	int res, d;

	if (!r || (!cpus && max))
		return -EINVAL;
	rdt_clear_err(r);
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return d;
	dom = &r->m->dom[res][d];
	if (max && dom->ncpus)
		memcpy(cpus, dom->cpus, (dom->ncpus < max ? dom->ncpus : max) * sizeof(int));
	return (int)dom->ncpus;
}

RDTALLOC_API int rdtalloc_domain_cache(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				       uint64_t *size, unsigned int *ways)
{
	int res, d;

	if (!r || !size || !ways)
		return -EINVAL;
	rdt_clear_err(r);
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return d;
	*size = r->m->dom[res][d].cache_size;
	*ways = r->m->dom[res][d].ways;
	return 0;
}

RDTALLOC_API int rdtalloc_cpu_count(rdtalloc_t *r)
{
	return r ? (int)r->m->ncpus : -EINVAL;
}

RDTALLOC_API int rdtalloc_closids(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				  struct rdtalloc_closid_info *out, size_t max)
{
	int ret, res, d;

	if (!r || (!out && max))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return rdt_core_end(r, false, d);
	return rdt_core_end(r, false, r->be->ops->closids(r, res, d, out, max));
}

/* Append the names of the groups holding closid in allocation domain adom to *o. */
static int closid_names(rdtalloc_t *r, unsigned int adom, unsigned int closid, char *names,
			size_t len, size_t *o, const int *order, unsigned int n)
{
	bool first = true;
	unsigned int i, k;
	int ret;

	for (i = 0; i < n; i++) {
		const char *name = r->st->groups[order[i]].name;
		size_t l = strlen(name) + !first;

		ret = r->be->ops->group_closid(r, order[i], adom, &k);
		if (ret == -ESTALE) {
			rdt_clear_err(r);
			continue;	/* its control group is missing: it holds no CLOSID now */
		}
		if (ret)
			return ret;
		if (k != closid)
			continue;
		if (*o + l < len)
			snprintf(names + *o, len - *o, "%s%s", first ? "" : ",", name);
		*o += l;
		first = false;
	}
	if (*o < len)
		names[*o] = '\0';
	(*o)++;
	return 0;
}

RDTALLOC_API int rdtalloc_closid_entries(rdtalloc_t *r, const char *resource,
					 unsigned int cache_id, struct rdtalloc_closid_entry *out,
					 size_t max, char *names, size_t names_len)
{
	struct rdtalloc_closid_info *cl = NULL;
	size_t sz = max ? out[0].sz : 0, o = 0, i;
	unsigned int ngroups = 0;
	int *order = NULL, ret, res, d, n;

	if (!r || (!out && max) || (!names && names_len))
		return -EINVAL;
	if (max && (sz < sizeof(size_t) || sz > (1u << 16)))
		return rdt_fail(r, -EINVAL, "rdtalloc_closid_entry.sz is %zu: set it to "
				"sizeof(struct rdtalloc_closid_entry)", sz);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		return rdt_core_end(r, false, d);
	n = r->be->ops->closids(r, res, d, NULL, 0);
	if (n > 0 && !(cl = calloc((size_t)n, sizeof(*cl))))
		return rdt_core_end(r, false, rdt_fail(r, -ENOMEM, "out of memory"));
	if (n > 0)
		n = r->be->ops->closids(r, res, d, cl, (size_t)n);
	if (n > 0 && names && !(order = rdt_core_groups_in_order(r->st, &ngroups)))
		n = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		struct rdtalloc_closid_entry v = { 0 };
		size_t at = o;

		if (names) {
			ret = closid_names(r, r->st->slot[r->st->slot_of[res][d]].adom, cl[i].closid,
					   names, names_len, &o, order, ngroups);
			if (ret) {
				n = ret;
				break;
			}
		}
		if (i >= max)
			continue;
		v.sz = sz < sizeof(v) ? sz : sizeof(v);
		v.closid = cl[i].closid;
		v.mask = cl[i].mask;
		v.code_mask = cl[i].code_mask;
		v.refcount = cl[i].refcount;
		v.groups = names && at < names_len ? names + at : NULL;
		memcpy((char *)out + i * sz, &v, v.sz);
	}
	if (n > 0 && names && o > names_len)
		n = rdt_fail(r, -ERANGE, "the group names need %zu bytes, the buffer has %zu", o,
			     names_len);
	free(cl);
	free(order);
	return rdt_core_end(r, false, n);
}

/* Inside a call: group's index in *g and a domain's index, or -errno. */
static int find_group_dom(rdtalloc_t *r, const char *group, const char *resource,
			  unsigned int cache_id, int *g, int *res)
{
	*g = rdt_core_find_group(r, group);
	return *g < 0 ? *g : find_dom(r, resource, cache_id, res);
}

RDTALLOC_API int rdtalloc_group_closid(rdtalloc_t *r, const char *group, const char *resource,
				       unsigned int cache_id, unsigned int *closid)
{
	int res, d, g;

	if (!r || !closid)
		return -EINVAL;
	d = rdt_core_begin(r, false);
	if (d)
		return d;
	d = find_group_dom(r, group, resource, cache_id, &g, &res);
	if (d >= 0)
		d = r->be->ops->group_closid(r, g, r->st->slot[r->st->slot_of[res][d]].adom,
					     closid);
	return rdt_core_end(r, false, d);
}

RDTALLOC_API int rdtalloc_group_mask(rdtalloc_t *r, const char *group, const char *resource,
				     unsigned int cache_id, struct rdtalloc_mask_info *out)
{
	struct rdtalloc_mask_info v = { 0 };
	int ret, res, d, g;
	unsigned int s;

	if (!r)
		return -EINVAL;
	if (!out)
		return rdt_fail(r, -EINVAL, "rdtalloc_group_mask: out is NULL");
	if (out->sz < offsetof(struct rdtalloc_mask_info, code_mask) || out->sz > (1u << 16))
		return rdt_fail(r, -EINVAL, "rdtalloc_mask_info.sz is %zu: set it to "
				"sizeof(struct rdtalloc_mask_info)", out->sz);
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	d = find_group_dom(r, group, resource, cache_id, &g, &res);
	if (d < 0)
		return rdt_core_end(r, false, d);
	s = r->st->slot_of[res][d];
	v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
	v.cdp = r->st->cdp[res];
	v.mask = r->st->groups[g].mask[s * 2];
	v.code_mask = v.cdp ? r->st->groups[g].mask[s * 2 + 1] : v.mask;
	memcpy(out, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

/*
 * The task as the engine should see it: a binding whose task exited or was
 * replaced by a new one with the same id no longer counts.
 */
static int resolve_task(rdtalloc_t *r, pid_t *tid, bool *stale)
{
	const struct rdt_task *t;
	uint64_t start;
	int ret;

	*stale = false;
	if (*tid == 0)
		return 0;
	ret = rdt_core_check_task(r, tid, &start);
	if (ret)
		return ret;
	t = rdt_task_map_get(&r->st->tasks, *tid);
	if (t && !r->m->virtual_tasks && t->start != start)
		*stale = true;
	return 0;
}

RDTALLOC_API int rdtalloc_effective_closid(rdtalloc_t *r, int cpu, pid_t tid,
					   unsigned int *closid)
{
	bool stale;
	int ret;

	if (!r || !closid)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cpu(r, cpu);
	if (!ret)
		ret = resolve_task(r, &tid, &stale);
	if (!ret)
		ret = r->be->ops->effective_closid(r, cpu, tid, stale, closid);
	return rdt_core_end(r, false, ret);
}

/* The group of the task switched in: its own binding, else its cgroup's. */
static int switch_group(rdtalloc_t *r, pid_t tid)
{
	const struct rdt_task *t = tid ? rdt_task_map_get(&r->st->tasks, tid) : NULL;

	if (t)
		return t->group;
	return tid ? rdt_core_cgroup_task_group(r, tid) : 0;
}

RDTALLOC_API int rdtalloc_sim_switch(rdtalloc_t *r, int cpu, pid_t tid,
				     struct rdtalloc_switch *out)
{
	struct rdtalloc_switch v = { 0 };
	unsigned int closid;
	bool written, stale;
	int ret;

	if (!r)
		return -EINVAL;
	if (out && out->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_switch.sz is not set");
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	ret = r->be->ops->sim_switch_allowed(r);
	if (ret)
		goto out;
	ret = rdt_core_check_cpu(r, cpu);
	if (!ret)
		ret = resolve_task(r, &tid, &stale);
	if (ret)
		goto out;
	if (stale)
		rdt_core_drop_if_stale(r, tid);
	ret = rdt_core_engine_err(r, rdt_switch_group(r->st, cpu, tid, switch_group(r, tid),
						      &closid, &written));
	if (ret)
		goto out;
	r->dirty = true;
	if (out) {
		v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
		v.closid = closid;
		v.pqr_written = written;
		memcpy(out, &v, v.sz);
	}
out:
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_set_cdp(rdtalloc_t *r, const char *resource, int on)
{
	int ret, res;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	res = rdt_core_find_res(r, resource);
	if (res < 0)
		ret = res;
	else if (on != 0 && on != 1)
		ret = rdt_fail(r, -EINVAL, "CDP setting must be 0 or 1, not %d", on);
	else if (r->st->cdp[res] != (bool)on && r->be->cdp_fixed)
		ret = rdt_fail(r, -EOPNOTSUPP, "backend %s: CDP is how resctrl was mounted (%s "
			       "now); remount it (umount, then mount -t resctrl -o %s resctrl "
			       "DIR) and start a new state", r->be->name,
			       r->st->cdp[res] ? "on" : "off",
			       res == RDT_L2 ? "cdpl2" : "cdp");
	else if (r->st->cdp[res] != (bool)on) {
		ret = rdt_core_engine_err(r, rdt_set_cdp(r->st, res, on));
		if (!ret)
			r->dirty = r->groups_changed = true;
	} else if (!r->m->caps[res].cdp) {
		ret = rdt_fail(r, -EINVAL, "%s does not support CDP on this machine",
			       rdt_res_name(res));
	}
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_get_cdp(rdtalloc_t *r, const char *resource)
{
	int ret, res;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	res = rdt_core_find_res(r, resource);
	return rdt_core_end(r, false, res < 0 ? res : r->st->cdp[res]);
}

RDTALLOC_API int rdtalloc_get_precedence(rdtalloc_t *r)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	return rdt_core_end(r, false, (int)r->st->precedence);
}

/* What the state holds now: bindings of tasks and cgroups that still exist. */
static unsigned int live_bindings(rdtalloc_t *r)
{
	const struct rdt_task_map *m = &r->st->tasks;
	unsigned int n = 0;

	if (r->m->virtual_tasks)
		return (unsigned int)m->len;
	for (size_t i = 0; i < m->cap; i++)
		n += m->slots[i].tid && rdt_core_binding_alive(r, &m->slots[i]);
	return n;
}

static unsigned int live_cgroups(rdtalloc_t *r)
{
	const char *root = r->st->ncgroups ? rdt_core_cgroup_root(r) : NULL;
	unsigned int i, n = 0;

	for (i = 0; root && i < r->st->ncgroups; i++) {
		uint64_t id;

		n += !rdt_cgroup_id(root, r->st->cgroups[i].path, &id) &&
		     id == r->st->cgroups[i].id;
	}
	rdt_clear_err(r);
	return n;
}

RDTALLOC_API int rdtalloc_get_limits(rdtalloc_t *r, struct rdtalloc_limits *out)
{
	struct rdtalloc_limits v = { 0 };
	int ret;

	if (!r || !out)
		return -EINVAL;
	if (out->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_limits.sz is not set");
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
	v.max_groups = r->st->max_groups;
	v.max_tasks = r->st->max_tasks;
	v.max_cgroups = RDT_CGROUPS_MAX;
	v.groups = r->st->nlive;
	v.tasks = live_bindings(r);
	v.cgroups = live_cgroups(r);
	memcpy(out, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

RDTALLOC_API int rdtalloc_reset(rdtalloc_t *r)
{
	bool cdp[RDT_NRES];
	unsigned int res;
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	memcpy(cdp, r->st->cdp, sizeof(cdp));
	ret = rdt_core_engine_err(r, rdt_reset(r->st));
	/* where CDP is how the kernel was mounted, a reset cannot change it */
	for (res = 0; !ret && r->be->cdp_fixed && res < RDT_NRES; res++)
		if (cdp[res])
			ret = rdt_core_engine_err(r, rdt_set_cdp(r->st, res, true));
	r->dirty = r->groups_changed = true;
	return rdt_core_end(r, true, ret);
}

/* ---- Register file --------------------------------------------------------------- */

/* Only where we write the registers do we know what they hold. */
static int no_registers(rdtalloc_t *r)
{
	if (r->be->ops == &rdt_hw_group_ops)
		return 0;
	return rdt_fail(r, -EOPNOTSUPP, "backend %s: the kernel owns the registers and does "
			"not show them; rdtalloc_effective_closid tells the CLOSID in force",
			r->be->name);
}

RDTALLOC_API int rdtalloc_get_stats(rdtalloc_t *r, struct rdtalloc_stats *st)
{
	struct rdtalloc_stats v = { 0 };
	int ret;

	if (!r || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	v.sz = st->sz < sizeof(v) ? st->sz : sizeof(v);
	v.mask_writes = r->st->regs.mask_writes;
	v.pqr_writes = r->st->regs.pqr_writes;
	v.cfg_writes = r->st->regs.cfg_writes;
	memcpy(st, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

RDTALLOC_API int rdtalloc_read_mask(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				    unsigned int reg, uint64_t *val)
{
	int ret, res, d;

	if (!r || !val)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	d = find_dom(r, resource, cache_id, &res);
	if (d < 0)
		ret = d;
	else if ((ret = no_registers(r)))
		;
	else if (reg >= r->m->caps[res].closids)
		ret = rdt_fail(r, -EINVAL, "%s has mask registers 0..%u, not %u",
			       rdt_res_name(res), r->m->caps[res].closids - 1, reg);
	else
		*val = r->st->regs.mask[(size_t)r->st->slot_of[res][d] * r->st->regs.nregs + reg];
	return rdt_core_end(r, false, ret);
}

RDTALLOC_API int rdtalloc_read_pqr(rdtalloc_t *r, int cpu, unsigned int *closid)
{
	int ret;

	if (!r || !closid)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cpu(r, cpu);
	if (!ret)
		ret = no_registers(r);
	if (!ret)
		*closid = r->st->regs.pqr[cpu];
	return rdt_core_end(r, false, ret);
}
