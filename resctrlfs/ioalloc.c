// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ioalloc: L3 I/O allocation, resctrl's io_alloc (Linux 6.19, AMD SDCIAE;
 * "*=" and "Invalid domain" since 7.1). Enabling takes the L3's highest
 * CLOSID (num_closids - 1, num_closids / 2 - 1 with CDP) away from the
 * groups; its mask is what I/O may fill, initialised as a new group's and
 * shown in bit_usage as the hardware's. When the machine has it, every
 * cache schema's info directory has io_alloc and io_alloc_cbm; on L2 they
 * say it is not supported. Texts: fs/resctrl/ctrlmondata.c (torvalds/linux
 * fabd5a8d and d06b8e7c) as the survey in docs/resctrlfs.md cites it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

static bool capable(const struct rfs_model *md, const struct rfs_schema *s)
{
	return s->res == RDT_L3 && md->m->caps[RDT_L3].io_alloc;
}

/* resctrl_io_alloc_closid(): the highest CLOSID of the resource. */
static unsigned int io_closid(const struct rfs_model *md, const struct rfs_schema *s)
{
	return s->num_closid - 1;	/* num_closid is already halved under CDP */
}

void rfs_io_alloc_show(const struct rfs_model *md, unsigned int si, struct rfs_buf *b)
{
	const struct rfs_schema *s = &md->sch[si];

	if (!capable(md, s))
		rfs_buf_printf(b, "not supported\n");
	else
		rfs_buf_printf(b, "%s\n", md->io_closid >= 0 ? "enabled" : "disabled");
}

static int enable(struct rfs_model *md, const struct rfs_schema *s, unsigned int closid)
{
	int ret;

	if (md->grp[closid].used) {
		rfs_status_printf(md, "CLOSID (ctrl_hw_id) %u for io_alloc is used by %s group\n",
				  closid, closid ? md->grp[closid].name : "another");
		return -ENOSPC;
	}
	ret = rfs_init_alloc(md, closid);
	if (ret) {
		rfs_status_printf(md, "Failed to initialize io_alloc allocations\n");
		return ret;
	}
	md->io_closid = (int)closid;
	return 0;
}

int rfs_io_alloc_write(struct rfs_model *md, unsigned int si, char *buf)
{
	const struct rfs_schema *s = &md->sch[si];
	unsigned int closid;
	bool on;
	int ret;

	if (rfs_kstrtobool(buf, &on))
		return -EINVAL;
	rfs_status_clear(md);
	if (!capable(md, s)) {
		rfs_status_printf(md, "io_alloc is not supported on %s\n", s->name);
		return -ENODEV;
	}
	if ((md->io_closid >= 0) == on)
		return 0;
	closid = io_closid(md, s);
	if (closid >= md->nclosid) {
		rfs_status_printf(md, "io_alloc CLOSID (ctrl_hw_id) %u is not available\n", closid);
		return -EINVAL;
	}
	ret = on ? enable(md, s, closid) : 0;
	if (!on)
		md->io_closid = -1;
	md->dirty = true;
	return ret;
}

/* Supported and enabled on s, or the kernel's error in last_cmd_status. */
static int usable(struct rfs_model *md, const struct rfs_schema *s)
{
	if (!capable(md, s)) {
		rfs_status_printf(md, "io_alloc is not supported on %s\n", s->name);
		return -ENODEV;
	}
	if (md->io_closid < 0) {
		rfs_status_printf(md, "io_alloc is not enabled on %s\n", s->name);
		return -EINVAL;
	}
	return 0;
}

/* "<id>=<cbm>;...", unpadded and without the schema's name: CODE's under CDP. */
void rfs_io_alloc_cbm_show(struct rfs_model *md, unsigned int si, struct rfs_buf *b)
{
	const struct rfs_schema *s = &md->sch[si];
	unsigned int d;

	rfs_status_clear(md);
	b->err = usable(md, s);
	if (b->err)
		return;
	for (d = 0; d < s->ndom; d++)
		rfs_buf_printf(b, "%s%u=%llx", d ? ";" : "", s->dom[d].cache_id,
			       (unsigned long long)*rfs_ctrl_at(md, s, d,
								(unsigned int)md->io_closid));
	rfs_buf_putc(b, '\n');
}

/* parse_cbm() in shareable mode: valid, and clear of exclusive groups. */
static int io_cbm(struct rfs_model *md, const struct rfs_schema *s, unsigned int d,
		  const char *val, bool *have, uint64_t *out)
{
	if (have[d]) {
		rfs_status_printf(md, "Duplicate domain %u\n", s->dom[d].cache_id);
		return -EINVAL;
	}
	if (rfs_cbm_validate(md, s, val, &out[d]))
		return -EINVAL;
	if (rfs_cbm_overlaps(md, s, d, out[d], (unsigned int)md->io_closid, true)) {
		rfs_status_printf(md, "Overlaps with exclusive group\n");
		return -EINVAL;
	}
	have[d] = true;
	return 0;
}

/* resctrl_io_alloc_parse_line() of 7.1. */
static int parse_io_line(struct rfs_model *md, const struct rfs_schema *s, char *line,
			 bool *have, uint64_t *val)
{
	unsigned long long id;
	char *dom, *ids;
	unsigned int d;

	line = rfs_strim(line);
	while (line && line[0] != '\0') {
		dom = strsep(&line, ";");
		ids = strsep(&dom, "=");
		if (ids && !strcmp(ids, "*") && dom) {
			for (d = 0; d < s->ndom; d++)
				if (io_cbm(md, s, d, dom, have, val))
					return -EINVAL;
			if (line && line[0] != '\0') {
				rfs_status_printf(md, "Configurations after global '*'\n");
				return -EINVAL;
			}
			return 0;
		}
		if (!dom || rfs_kstrtoull(ids, 10, &id)) {
			rfs_status_printf(md, "Missing '=' or non-numeric domain\n");
			return -EINVAL;
		}
		for (d = 0; d < s->ndom && s->dom[d].cache_id != id; d++)
			;
		if (d == s->ndom) {
			rfs_status_printf(md, "Invalid domain %llu\n", id);
			return -EINVAL;
		}
		if (io_cbm(md, s, d, dom, have, val))
			return -EINVAL;
	}
	return 0;
}

/* All or nothing; under CDP, CODE and DATA of the io_alloc CLOSID stay the same. */
int rfs_io_alloc_cbm_write(struct rfs_model *md, unsigned int si, char *buf, size_t len)
{
	const struct rfs_schema *s = &md->sch[si];
	bool *have = NULL;
	uint64_t *val = NULL;
	unsigned int d;
	int ret;

	if (rfs_cmd_begin(md, buf, len))
		return -EINVAL;
	ret = usable(md, s);
	if (ret)
		return ret;
	have = calloc(s->ndom + 1, sizeof(*have));
	val = calloc(s->ndom + 1, sizeof(*val));
	if (!have || !val) {
		ret = -ENOMEM;
		goto out;
	}
	ret = parse_io_line(md, s, buf, have, val);
	for (d = 0; d < s->ndom && !ret; d++) {
		if (!have[d])
			continue;
		*rfs_ctrl_at(md, s, d, (unsigned int)md->io_closid) = val[d];
		if (s->peer >= 0)
			*rfs_ctrl_at(md, &md->sch[s->peer], d, (unsigned int)md->io_closid) = val[d];
	}
	md->dirty = true;
out:
	free(have);
	free(val);
	return ret;
}
