// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/schemas: the public calls on a group's schema - set (checked against the
 * machine, shareable ways warned of) and read back - and the warnings a
 * call leaves. Each is one transaction of lib/core.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"
#include "schema.h"

/* ---- Schemas --------------------------------------------------------------------- */

static void free_parsed(struct rdt_schema_mask *parsed[RDT_NALL])
{
	unsigned int res;

	for (res = 0; res < RDT_NALL; res++)
		free(parsed[res]);
}

/*
 * Turn schema text into the engine's per-slot request for group g:
 * want[slot*2 + 0/1] and set[slot]. Only the given halves change.
 */
static int schema_request(rdtalloc_t *r, struct rdt_state *st, int g, const char *text,
			  uint64_t **want, bool **set)
{
	struct rdt_schema_mask *parsed[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int res, d;
	int ret = -ENOMEM;

	*want = calloc((size_t)st->nslots * 2, sizeof(uint64_t));
	*set = calloc(st->nslots, sizeof(bool));
	if (!*want || !*set)
		goto fail;
	for (res = 0; res < RDT_NALL; res++)
		if (r->m->caps[res].present &&
		    !(parsed[res] = calloc(r->m->ndom[res], sizeof(**parsed))))
			goto fail;
	ret = rdt_schema_parse(r->m, st->cdp, text, parsed, err, sizeof(err));
	if (ret) {
		rdt_fail(r, ret, "%s", err[0] ? err : "invalid schema");
		goto fail;
	}
	for (res = 0; res < RDT_NALL; res++) {
		for (d = 0; parsed[res] && d < r->m->ndom[res]; d++) {
			const struct rdt_schema_mask *p = &parsed[res][d];
			unsigned int s = st->slot_of[res][d];

			if (!p->data_set && !p->code_set)
				continue;
			(*set)[s] = true;
			(*want)[s * 2] = p->data_set ? p->data : grp->mask[s * 2];
			(*want)[s * 2 + 1] = p->code_set ? p->code : grp->mask[s * 2 + 1];
		}
	}
	free_parsed(parsed);
	return 0;
fail:
	free_parsed(parsed);
	free(*want);
	free(*set);
	*want = NULL;
	*set = NULL;
	return ret == -ENOMEM ? rdt_fail(r, ret, "out of memory") : ret;
}

RDTALLOC_API const char *rdtalloc_warning(const rdtalloc_t *r)
{
	return r ? r->warning : "";
}

/* Add a line to the call's warning (cut where the buffer ends). */
void rdt_core_warn(rdtalloc_t *r, const char *fmt, ...)
{
	size_t n = strlen(r->warning);
	va_list ap;

	if (n && n + 1 < sizeof(r->warning))
		r->warning[n++] = '\n';
	va_start(ap, fmt);
	vsnprintf(r->warning + n, sizeof(r->warning) - n, fmt, ap);
	va_end(ap);
}

/*
 * A mask the call set that uses shareable ways: accepted, with a warning -
 * other agents (I/O through DDIO on Intel) fill those ways too, so the
 * group does not have them to itself. Not for the default group's
 * all-ones mask, which every saved configuration sets again.
 */
static void warn_shareable(rdtalloc_t *r, const struct rdt_state *st, int g, const bool *set)
{
	unsigned int s, h;

	for (s = 0; s < st->nslots; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		/* MPAM shows every way shareable: no I/O fills them */
		uint64_t shared = st->m->mpam ? 0 : st->m->caps[sl->res].shareable_bits;

		if (!set[s] || sl->res == RDT_MB || !shared)
			continue;
		for (h = 0; h < (st->cdp[sl->res] ? 2u : 1u); h++) {
			uint64_t m = st->groups[g].mask[s * 2 + h];

			/* the default group's every way: what reset gives it, no one's choice */
			if (g == 0 && m == rdt_cbm_full(st->m->caps[sl->res].cbm_len))
				continue;
			if (m & shared)
				rdt_core_warn(r, "%s cache id %u: %smask 0x%llx uses the shareable ways 0x%llx, "
				     "which other agents (such as I/O) fill too: group %s does not "
				     "have them to itself", rdt_res_name(sl->res),
				     st->m->dom[sl->res][sl->dom].cache_id,
				     st->cdp[sl->res] ? (h ? "code " : "data ") : "",
				     (unsigned long long)m, (unsigned long long)(m & shared),
				     st->groups[g].name);
		}
	}
}

/* Apply schema text to group g of st (r->st or a working copy). */
int rdt_core_apply_schema(rdtalloc_t *r, struct rdt_state *st, int g, const char *text,
			bool *changed)
{
	uint64_t *want, *before;
	bool *set;
	int ret;

	ret = schema_request(r, st, g, text, &want, &set);
	if (ret)
		return ret;
	before = malloc((size_t)st->nslots * 2 * sizeof(uint64_t));
	if (!before) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(before, st->groups[g].mask, (size_t)st->nslots * 2 * sizeof(uint64_t));
	ret = rdt_group_set_masks(st, g, want, set);
	if (ret)
		ret = rdt_fail(r, ret, "%s", st->err);
	else
		warn_shareable(r, st, g, set);
	if (!ret && changed)
		*changed = memcmp(before, st->groups[g].mask,
				  (size_t)st->nslots * 2 * sizeof(uint64_t)) != 0;
	free(before);
out:
	free(want);
	free(set);
	return ret;
}

int rdt_core_set_schema(rdtalloc_t *r, int g, const char *schema)
{
	bool changed = false;
	int ret = rdt_core_apply_schema(r, r->st, g, schema, &changed);

	if (!ret && changed)
		r->dirty = r->groups_changed = true;
	return ret;
}

RDTALLOC_API int rdtalloc_set_schema(rdtalloc_t *r, const char *group, const char *schema)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0)
		ret = g;
	else if (!schema)
		ret = rdt_fail(r, -EINVAL, "schema is NULL");
	else
		ret = rdt_core_set_schema(r, g, schema);
	return rdt_core_end(r, true, ret);
}

/* Format group g's schema; returns the length. */
int rdt_core_format_schema(const struct rdt_state *st, int g, char *buf, size_t len)
{
	uint64_t *data[RDT_NALL] = { 0 }, *code[RDT_NALL] = { 0 };
	const struct rdt_group *grp = &st->groups[g];
	unsigned int res, d;
	int ret = -ENOMEM;

	for (res = 0; res < RDT_NALL; res++) {
		if (!st->m->caps[res].present)
			continue;
		data[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		code[res] = malloc(st->m->ndom[res] * sizeof(uint64_t));
		if (!data[res] || !code[res])
			goto out;
		for (d = 0; d < st->m->ndom[res]; d++) {
			unsigned int s = st->slot_of[res][d];

			data[res][d] = grp->mask[s * 2];
			code[res][d] = grp->mask[s * 2 + 1];
		}
	}
	ret = rdt_schema_format(st->m, st->cdp, data, code, buf, len);
out:
	for (res = 0; res < RDT_NALL; res++) {
		free(data[res]);
		free(code[res]);
	}
	return ret;
}

RDTALLOC_API int rdtalloc_get_schema(rdtalloc_t *r, const char *group, char *buf, size_t len)
{
	int ret, g;

	if (!r || (!buf && len))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0) {
		ret = g;
	} else {
		ret = rdt_core_format_schema(r->st, g, buf, len);
		/* buf NULL, len 0: a question for the length, as snprintf answers it */
		if (ret >= 0 && !buf)
			;
		else if (ret >= 0 && (size_t)ret >= len)
			ret = rdt_fail(r, -ERANGE, "the schema needs %d bytes, the buffer has %zu",
				       ret + 1, len);
		else if (ret < 0)
			ret = rdt_fail(r, ret, "out of memory");
	}
	return rdt_core_end(r, false, ret);
}
