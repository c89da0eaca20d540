// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, the ways the kernel says are not ours to give
 * (info/<res>/bit_usage) and L3 I/O allocation (info/L3/io_alloc,
 * io_alloc_cbm; Linux 6.19, AMD SDCIAE). The texts are the kernel's
 * (fs/resctrl/rdtgroup.c rdt_bit_usage_show, ctrlmondata.c).
 */
#include "backends/resctrl_int.h"
#include "ways.h"

/* info/<res> or, with CDP, info/<res>DATA (both list the same ways). */
static void info_dir(const struct rc_ctx *c, enum rdt_res res, char *buf, size_t len)
{
	snprintf(buf, len, "info/%s%s", rdt_res_name(res), c->cdp[res] ? "DATA" : "");
}

/* A file of info/<res>; -ENOENT quietly (an older kernel), else errmsg set. */
static int read_info(struct rdtalloc *r, const char *dir, const char *file, char **out)
{
	char path[PATH_MAX];
	int ret;

	rc_rel_path(ctx_of(r), dir, file, path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, out, NULL);
	if (ret && ret != -ENOENT)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	return ret;
}

/* The item of cache_id in "ID=VAL;ID=VAL"; NULL when absent. Cuts text. */
static char *domain_item(char *text, unsigned int cache_id)
{
	char *item, *save = NULL;

	rc_trim(text);
	for (item = strtok_r(text, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		char *end;
		unsigned long id = strtoul(item, &end, 10);

		if (end != item && *end == '=' && id == cache_id)
			return end + 1;
	}
	return NULL;
}

/* Our exclusive groups' ways in slot s: bit_usage's E there are ours. */
static uint64_t our_exclusive(const struct rdt_state *st, unsigned int s)
{
	uint64_t e = 0;
	unsigned int k;

	for (k = 0; k < st->ngroups; k++)
		if (st->groups[k].live && st->groups[k].exclusive)
			e |= st->groups[k].mask[s * 2] | st->groups[k].mask[s * 2 + 1];
	return e;
}

/*
 * bit_usage, most significant way first: 0 unused, H the hardware's only,
 * X the hardware's and a group's, S groups' (shareable), E a group's
 * exclusively, P pseudo-locked.
 */
static int bit_usage(struct rdtalloc *r, const char *dir, enum rdt_res res, unsigned int dom,
		     struct rdtalloc_ways_info *w)
{
	const struct rdt_machine *m = r->m;
	unsigned int id = m->dom[res][dom].cache_id, len = m->caps[res].cbm_len, i;
	uint64_t hw = 0, excl = 0;
	char *text = NULL, *v;
	int ret;

	ret = read_info(r, dir, "bit_usage", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	v = domain_item(text, id);
	if (!v || strlen(v) != len) {
		ret = rdt_fail(r, -EINVAL, "resctrl: %s/bit_usage has no %u ways for domain %u",
			       dir, len, id);
		goto out;
	}
	for (i = 0; i < len; i++) {
		uint64_t bit = 1ull << (len - 1 - i);

		if (v[i] == 'H' || v[i] == 'X')
			hw |= bit;
		else if (v[i] == 'E' || v[i] == 'P')
			excl |= bit;
	}
	/* MPAM: shareable_bits is every way, so every way used reads X; none is I/O */
	w->io_ways = m->mpam ? 0 : hw;
	w->foreign_ways = excl & ~our_exclusive(r->st, r->st->slot_of[res][dom]);
	w->from_bit_usage = 1;
out:
	free(text);
	return ret;
}

static int io_alloc_state(struct rdtalloc *r, const char *dir, unsigned int dom,
			  struct rdtalloc_ways_info *w)
{
	char *text = NULL, *v;
	int ret;

	ret = read_info(r, dir, "io_alloc", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	rc_trim(text);
	w->io_alloc_supported = strcmp(text, "not supported") != 0;
	w->io_alloc_enabled = !strcmp(text, "enabled");
	free(text);
	/* resctrl_io_alloc_closid(): the highest of L3's, halved under CDP */
	if (w->io_alloc_supported)
		w->io_alloc_closid = ctx_of(r)->m->caps[RDT_L3].closids /
				     (ctx_of(r)->cdp[RDT_L3] ? 2 : 1) - 1;
	text = NULL;
	if (!w->io_alloc_enabled)
		return 0;
	ret = read_info(r, dir, "io_alloc_cbm", &text);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	v = domain_item(text, r->m->dom[RDT_L3][dom].cache_id);
	w->io_alloc_mask = v ? strtoull(v, NULL, 16) : 0;
	free(text);
	return 0;
}

int rc_ways(struct rdtalloc *r, enum rdt_res res, unsigned int dom, struct rdtalloc_ways_info *w)
{
	char dir[32];
	int ret;

	info_dir(ctx_of(r), res, dir, sizeof(dir));
	ret = bit_usage(r, dir, res, dom, w);
	if (!ret && res == RDT_L3)
		ret = io_alloc_state(r, dir, dom, w);
	return ret;
}

int rc_io_alloc(struct rdtalloc *r, int on, const char *cbm)
{
	char dir[32];
	int ret;

	info_dir(ctx_of(r), RDT_L3, dir, sizeof(dir));
	ret = rc_lock(r);
	if (ret)
		return ret;
	if (on >= 0)
		ret = rc_write_file(r, dir, "io_alloc", on ? "1\n" : "0\n");
	if (!ret && cbm)
		ret = rc_write_file(r, dir, "io_alloc_cbm", cbm);
	rc_unlock(r);
	return ret;
}

bool rc_io_alloc_on(const struct rc_ctx *c)
{
	char path[PATH_MAX], dir[32], *text = NULL;
	bool on;

	if (!c->m->caps[RDT_L3].present)
		return false;
	info_dir(c, RDT_L3, dir, sizeof(dir));
	rc_rel_path(c, dir, "io_alloc", path, sizeof(path));
	if (!path[0] || rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return false;
	on = !strncmp(text, "enabled", 7);
	free(text);
	return on;
}
