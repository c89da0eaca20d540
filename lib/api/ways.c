// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/ways: the ways of a cache domain that are not the state's to
 * give (rdtalloc_domain_ways; lib/ways.h says what they are) and L3 I/O
 * allocation (resctrl's io_alloc, Linux 6.19): turned on or off and its
 * masks set, checked here, done by the backend (resctrl: the kernel's
 * files; the simulator: the state). Owns no state.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"
#include "ways.h"

#define IO_MASKS_MAX 4096	/* bytes of an io_alloc mask text */

/* The simulator keeps io_alloc in the state: its changes are write calls. */
static bool io_in_state(const struct rdtalloc *r)
{
	return r->be->simulated;
}

/* ---- The API ------------------------------------------------------------------ */

RDTALLOC_API int rdtalloc_domain_ways(rdtalloc_t *r, const char *resource, unsigned int cache_id,
				      struct rdtalloc_ways_info *info)
{
	struct rdtalloc_ways_info w;
	int ret, res, dom;

	if (!r || !info || info->sz < sizeof(size_t))
		return r ? rdt_fail(r, -EINVAL, "info is NULL or info->sz is not set") : -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	res = rdt_core_find_res(r, resource);
	if (res < 0)
		return rdt_core_end(r, false, res);
	if (res == RDT_MB)
		return rdt_core_end(r, false, rdt_fail(r, -EINVAL, "MB has no ways"));
	dom = rdt_machine_domain(r->m, res, cache_id);
	if (dom < 0)
		return rdt_core_end(r, false, rdt_fail(r, -EINVAL, "%s cache id %u does not exist",
						       rdt_res_name(res), cache_id));
	ret = rdt_ways_get(r, res, (unsigned int)dom, &w);
	if (!ret) {
		w.sz = info->sz < sizeof(w) ? info->sz : sizeof(w);
		memcpy(info, &w, w.sz);
	}
	return rdt_core_end(r, false, ret);
}

/*
 * Can io_alloc be changed here? 0, or -EOPNOTSUPP saying why. On resctrl
 * the kernel says whether it has it (info/L3/io_alloc), not the machine
 * description: a state's recorded machine stays what it was.
 */
static int io_alloc_here(struct rdtalloc *r)
{
	struct rdtalloc_ways_info w;
	int ret;

	if (!r->m->caps[RDT_L3].present || !r->m->ndom[RDT_L3])
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 allocation, so no io_alloc");
	ret = rdt_ways_get(r, RDT_L3, 0, &w);
	if (ret)
		return ret;
	if (!w.io_alloc_supported)
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 I/O allocation (io_alloc: "
				"Linux 6.19, AMD SDCIAE; machine key l3.io_alloc)");
	if (!r->be->io_alloc)
		return rdt_fail(r, -EOPNOTSUPP, "the %s backend cannot change io_alloc: the "
				"kernel's resctrl holds it (--backend resctrl)", r->be->name);
	return 0;
}

RDTALLOC_API int rdtalloc_io_alloc_enable(rdtalloc_t *r, int on)
{
	int ret;

	if (!r)
		return -EINVAL;
	if (on != 0 && on != 1)
		return rdt_fail(r, -EINVAL, "io_alloc: on must be 0 or 1, not %d", on);
	ret = rdt_core_begin(r, io_in_state(r));
	if (ret)
		return ret;
	ret = io_alloc_here(r);
	if (!ret)
		ret = r->be->io_alloc(r, on, NULL, NULL);
	return rdt_core_end(r, io_in_state(r), ret);
}

/* One "ID=MASK" (or "*=MASK") item checked into the masks by domain index. */
static int io_item(struct rdtalloc *r, char *item, uint64_t *mask, bool *have)
{
	const struct rdt_caps *c = &r->m->caps[RDT_L3];
	char *eq = strchr(item, '='), *end;
	unsigned long long id = 0, v;
	unsigned int d, from, to;
	uint64_t low;

	if (!eq || eq == item)
		return rdt_fail(r, -EINVAL, "io_alloc mask '%s': not ID=MASK", item);
	/* blanks around '=' too, as the library's schemas allow */
	for (end = eq; end > item && isspace((unsigned char)end[-1]); end--)
		end[-1] = '\0';
	*eq = '\0';
	while (isspace((unsigned char)eq[1]))
		eq++;
	if (strcmp(item, "*")) {
		errno = 0;
		id = strtoull(item, &end, 10);
		if (errno || *end || !isdigit((unsigned char)*item))
			return rdt_fail(r, -EINVAL, "io_alloc mask: domain '%s' is not a number",
					item);
	}
	errno = 0;
	v = strtoull(eq + 1, &end, 16);
	if (errno || *end || !isxdigit((unsigned char)eq[1]))
		return rdt_fail(r, -EINVAL, "io_alloc mask '%s' is not hexadecimal", eq + 1);
	if (c->cbm_len < 64 && v >> c->cbm_len)
		return rdt_fail(r, -EINVAL, "io_alloc mask 0x%llx: bits beyond the %u-bit CBM", v,
				c->cbm_len);
	low = v & -v;
	if (!c->sparse && v && ((v + low) & v))
		return rdt_fail(r, -EINVAL, "io_alloc mask 0x%llx is not contiguous", v);
	from = 0;
	to = r->m->ndom[RDT_L3];
	if (strcmp(item, "*")) {
		int dom = rdt_machine_domain(r->m, RDT_L3, (unsigned int)id);

		if (id > UINT32_MAX || dom < 0)
			return rdt_fail(r, -EINVAL, "io_alloc mask: L3 cache id %llu does not exist",
					id);
		from = (unsigned int)dom;
		to = from + 1;
	}
	for (d = from; d < to; d++) {
		if (have[d])
			return rdt_fail(r, -EINVAL, "io_alloc mask: L3 cache id %u given twice",
					r->m->dom[RDT_L3][d].cache_id);
		have[d] = true;
		mask[d] = v;
	}
	return 0;
}

/* Our exclusive groups' ways are theirs alone: I/O may not fill them. */
static int io_clear_of_exclusive(struct rdtalloc *r, const uint64_t *mask, const bool *have)
{
	const struct rdt_state *st = r->st;
	unsigned int d, k;

	for (d = 0; d < r->m->ndom[RDT_L3]; d++) {
		unsigned int s = st->slot_of[RDT_L3][d];

		for (k = 0; have[d] && k < st->ngroups; k++) {
			const struct rdt_group *g = &st->groups[k];
			uint64_t e = g->mask[s * 2] | g->mask[s * 2 + 1];

			if (g->live && g->exclusive && (e & mask[d]))
				return rdt_fail(r, -EBUSY, "io_alloc mask 0x%llx of L3 cache id %u "
						"overlaps group %s's exclusive ways 0x%llx",
						(unsigned long long)mask[d],
						r->m->dom[RDT_L3][d].cache_id, g->name,
						(unsigned long long)e);
		}
	}
	return 0;
}

/* masks ("L3:ID=MASK;..." or without "L3:") checked into mask[], have[] by domain index. */
static int io_masks_parse(struct rdtalloc *r, const char *masks, uint64_t *mask, bool *have)
{
	char *buf, *p, *item, *save = NULL;
	bool any = false;
	int ret = 0;

	if (strnlen(masks, IO_MASKS_MAX + 1) > IO_MASKS_MAX)
		return rdt_fail(r, -EINVAL, "io_alloc mask: longer than %d bytes", IO_MASKS_MAX);
	buf = strdup(masks);
	if (!buf)
		return rdt_fail(r, -ENOMEM, "out of memory");
	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (!strncasecmp(p, "L3:", 3))
		p += 3;
	for (item = strtok_r(p, ";", &save); item && !ret; item = strtok_r(NULL, ";", &save)) {
		char *e = item + strlen(item);

		while (isspace((unsigned char)*item))
			item++;
		while (e > item && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*item)
			continue;
		ret = io_item(r, item, mask, have);
		any = true;
	}
	free(buf);
	if (!ret && !any)
		ret = rdt_fail(r, -EINVAL, "io_alloc mask: no ID=MASK given (e.g. L3:0=3)");
	if (!ret)
		ret = io_clear_of_exclusive(r, mask, have);
	return ret;
}

RDTALLOC_API int rdtalloc_io_alloc_set_mask(rdtalloc_t *r, const char *masks)
{
	uint64_t *mask = NULL;
	bool *have = NULL;
	int ret;

	if (!r)
		return -EINVAL;
	if (!masks)
		return rdt_fail(r, -EINVAL, "io_alloc mask is NULL");
	ret = rdt_core_begin(r, io_in_state(r));
	if (ret)
		return ret;
	ret = io_alloc_here(r);
	if (!ret) {
		mask = calloc(r->m->ndom[RDT_L3], sizeof(*mask));
		have = calloc(r->m->ndom[RDT_L3], sizeof(*have));
		if (!mask || !have)
			ret = rdt_fail(r, -ENOMEM, "out of memory");
	}
	if (!ret)
		ret = io_masks_parse(r, masks, mask, have);
	if (!ret)
		ret = r->be->io_alloc(r, -1, mask, have);
	free(mask);
	free(have);
	return rdt_core_end(r, io_in_state(r), ret);
}
