// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/cpus: the public calls on CPUs - bind, the CPUs of a group, the group of
 * a CPU.
 */
#include <errno.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"

RDTALLOC_API int rdtalloc_bind_cpu(rdtalloc_t *r, const char *group, int cpu)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_core_bind_cpu(r, g, cpu);
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_group_cpus(rdtalloc_t *r, const char *group, int *cpus, size_t max)
{
	unsigned int c;
	int ret, g, n = 0;

	if (!r || (!cpus && max))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0)
		return rdt_core_end(r, false, g);
	for (c = 0; c < r->m->ncpus; c++) {
		int cg = r->st->cpu_group[c];

		if (!r->m->cpu_present[c] || (g == 0 ? cg >= 0 : cg != g))
			continue;
		if ((size_t)n < max)
			cpus[n] = (int)c;
		n++;
	}
	return rdt_core_end(r, false, n);
}

RDTALLOC_API int rdtalloc_cpu_group(rdtalloc_t *r, int cpu, char *buf, size_t len)
{
	int ret;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_check_cpu(r, cpu);
	if (!ret) {
		int g = r->st->cpu_group[cpu];

		ret = rdt_core_copy_name(r, g < 0 ? "default" : r->st->groups[g].name, buf, len);
	}
	return rdt_core_end(r, false, ret);
}
