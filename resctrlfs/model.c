// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * model: the schemas, CLOSIDs, control groups, masks, modes and CPU sets of
 * the emulated resctrl, and the text of the files that show them. Every
 * message written to last_cmd_status is the kernel's text (fs/resctrl/
 * rdtgroup.c, ctrlmondata.c), because programs and people match on it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

static uint64_t low_bits(unsigned int n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

static uint64_t *ctrl_at(const struct rfs_model *md, const struct rfs_schema *s,
			 unsigned int d, unsigned int closid)
{
	return &s->ctrl[(size_t)d * md->nclosid + closid];
}

uint64_t *rfs_ctrl_at(const struct rfs_model *md, const struct rfs_schema *s, unsigned int d,
		      unsigned int closid)
{
	return ctrl_at(md, s, d, closid);
}

/*
 * closid_allocated(): a group's, or io_alloc's while it is enabled. The
 * io_alloc CLOSID has no group, so its mode is neither shareable nor
 * exclusive (rdtgroup_mode_by_closid() finds none).
 */
static bool closid_taken(const struct rfs_model *md, unsigned int closid)
{
	return md->grp[closid].used || (int)closid == md->io_closid;
}

static bool closid_shareable(const struct rfs_model *md, unsigned int closid)
{
	return md->grp[closid].used && md->grp[closid].mode == RFS_MODE_SHAREABLE;
}

static bool closid_exclusive(const struct rfs_model *md, unsigned int closid)
{
	return md->grp[closid].used && md->grp[closid].mode == RFS_MODE_EXCLUSIVE;
}

/*
 * The start of a command written to a file that wants a trailing newline:
 * without it, -EINVAL with last_cmd_status left as it was; else the
 * newline is cut and the status cleared.
 */
int rfs_cmd_begin(struct rfs_model *md, char *buf, size_t len)
{
	if (len == 0 || buf[len - 1] != '\n')
		return -EINVAL;
	buf[len - 1] = '\0';
	rfs_status_clear(md);
	return 0;
}

void rfs_status_clear(struct rfs_model *md)
{
	md->status_len = 0;
	md->status[0] = '\0';
	md->dirty = true;
}

void rfs_status_printf(struct rfs_model *md, const char *fmt, ...)
{
	size_t room = sizeof(md->status) - md->status_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(md->status + md->status_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		md->status_len += (size_t)n < room ? (size_t)n : room - 1;
	md->dirty = true;
}

void rfs_status_show(const struct rfs_model *md, struct rfs_buf *b)
{
	if (md->status_len)
		rfs_buf_printf(b, "%s", md->status);
	else
		rfs_buf_printf(b, "ok\n");
}

/*
 * One schema per resource, or a CODE and a DATA schema when CDP is on. The
 * kernel adds each to the head of its list, so the file shows them in the
 * reverse order of registration (L3, L2, MB): we store them that way.
 */
static int add_schema(struct rfs_model *md, enum rdt_res res, enum rfs_conf conf)
{
	const struct rdt_caps *c = &md->m->caps[res];
	static const char *const suffix[] = { "", "CODE", "DATA" };
	struct rfs_schema *s;
	int width;

	if (md->nsch == RFS_MAX_SCHEMAS)
		return -E2BIG;
	memmove(&md->sch[1], &md->sch[0], md->nsch * sizeof(md->sch[0]));
	md->nsch++;
	s = &md->sch[0];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s%s", rdt_res_name(res), suffix[conf]);
	s->res = res;
	s->fmt = RFS_FMT_BITMAP;
	s->conf = conf;
	s->peer = -1;
	s->num_closid = md->cdp[res] ? c->closids / 2 : c->closids;
	s->cbm_len = c->cbm_len;
	s->cbm_mask = low_bits(c->cbm_len);
	s->shareable = c->shareable_bits;
	s->min_cbm_bits = c->min_cbm_bits;
	s->sparse = c->sparse;
	s->ndom = md->m->ndom[res];
	s->dom = md->m->dom[res];
	s->dflt = s->cbm_mask;
	/* CDP-capable names keep room for the suffix: the table never shifts. */
	width = (int)strlen(s->name) + (c->cdp && !md->cdp[res] ? 4 : 0);
	if (width > md->name_width)
		md->name_width = width;
	return 0;
}

static unsigned int mb_max(const struct rdt_caps *c)
{
	if (c->mb_max)
		return c->mb_max;
	return c->mb_amd ? RFS_MB_MAX_AMD : RFS_MB_MAX_INTEL;
}

/*
 * The MB schema, as __get_mem_config_intel() and __rdt_get_mem_config_amd()
 * describe it: Intel linear delay (min_bandwidth and bandwidth_gran from the
 * machine, 100 the maximum, thread_throttle_mode "max"), or AMD (bandwidth
 * in 1/8 GB/s up to 1 << bw_len, no delay, no thread_throttle_mode). Its
 * domains are the L3 domains, which the machine may or may not copy into
 * dom[RDT_MB].
 */
static int add_mb_schema(struct rfs_model *md, char *err, size_t errlen)
{
	const struct rdt_caps *c = &md->m->caps[RDT_MB];
	struct rfs_schema *s;

	if (!c->closids || (!c->mb_gran && !c->mb_amd)) {
		snprintf(err, errlen, "MB: the machine gives no CLOSIDs or a zero granularity");
		return -EINVAL;
	}
	if (md->nsch == RFS_MAX_SCHEMAS) {
		snprintf(err, errlen, "too many resources");
		return -E2BIG;
	}
	memmove(&md->sch[1], &md->sch[0], md->nsch * sizeof(md->sch[0]));
	md->nsch++;
	s = &md->sch[0];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "MB");
	s->res = RFS_RES_MB;
	s->fmt = RFS_FMT_RANGE;
	s->conf = RFS_CONF_NONE;
	s->peer = -1;
	s->num_closid = c->closids;
	/* AMD: the machine's mb.min, 0 unless given, as __rdt_get_mem_config_amd() sets it */
	s->min_bw = c->mb_min;
	s->bw_gran = c->mb_gran ? c->mb_gran : 1;	/* AMD's is always 1 */
	s->max_bw = mb_max(c);
	s->delay_linear = !c->mb_amd;
	/* MPAM has no throttle mode: thread_throttle_mode_init() makes no file */
	s->throttle_max = !c->mb_amd && !md->m->mpam;
	s->mbps = md->mba_mbps;
	/* rdtgroup_init_mba(): MBA_MAX_MBPS under mba_MBps, else the maximum. */
	s->dflt = s->mbps ? RFS_MBA_MAX_MBPS : s->max_bw;
	if (md->m->ndom[RDT_MB] && md->m->dom[RDT_MB]) {
		s->ndom = md->m->ndom[RDT_MB];
		s->dom = md->m->dom[RDT_MB];
	} else {
		s->ndom = md->m->ndom[RDT_L3];
		s->dom = md->m->dom[RDT_L3];
	}
	if (!s->ndom || !s->dom) {
		snprintf(err, errlen, "MB: the machine has no L3 domains");
		return -EINVAL;
	}
	if ((int)strlen(s->name) > md->name_width)
		md->name_width = (int)strlen(s->name);
	return 0;
}

static int build_schemas(struct rfs_model *md, char *err, size_t errlen)
{
	unsigned int r, i, j;
	int ret = 0;

	for (r = 0; r < RDT_NRES && !ret; r++) {
		if (!md->m->caps[r].present)
			continue;
		if (md->cdp[r]) {
			ret = add_schema(md, r, RFS_CONF_CODE);
			if (!ret)
				ret = add_schema(md, r, RFS_CONF_DATA);
		} else {
			ret = add_schema(md, r, RFS_CONF_NONE);
		}
	}
	if (ret) {
		snprintf(err, errlen, "too many resources");
		return ret;
	}
	/* Registered after the caches, so listed before them. */
	if (md->m->caps[RDT_MB].present) {
		ret = add_mb_schema(md, err, errlen);
		if (ret)
			return ret;
	}
	for (i = 0; i < md->nsch; i++)
		for (j = 0; j < md->nsch; j++)
			if (i != j && md->sch[i].res == md->sch[j].res &&
			    md->sch[i].conf != RFS_CONF_NONE)
				md->sch[i].peer = (int)j;
	return 0;
}

static int check_cdp(struct rfs_model *md, char *err, size_t errlen)
{
	unsigned int r;

	for (r = 0; r < RDT_NRES; r++) {
		if (!md->cdp[r])
			continue;
		if (!md->m->caps[r].present || !md->m->caps[r].cdp) {
			snprintf(err, errlen, "--%s: the machine has no %s CDP "
				 "(give a --machine with %s.cdp=1)",
				 r == RDT_L3 ? "cdp" : "cdpl2", rdt_res_name(r),
				 r == RDT_L3 ? "l3" : "l2");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * supports_mba_mbps(): an MBM event, MB with a linear scale, MB's scope the
 * L3 monitoring's (not under SNC, whose monitoring is per node). 7.2
 * (mon.abmc) also refuses it where counters are assignable (f52abe65); its
 * exact text was not read, so the same one is given. 6.18-7.1 allow it.
 */
static int check_mba_mbps(struct rfs_model *md, char *err, size_t errlen)
{
	const struct rdt_caps *c = &md->m->caps[RDT_MB];
	const struct rdt_mon *mon = &md->m->mon;
	bool mbm = mon->rmids && (mon->events & 6u);

	if (md->mba_mbps && (!c->present || c->mb_amd || !mbm || mon->snc > 1 ||
			       (mon->cntrs && mon->abmc != RDT_ABMC_6_18))) {
		snprintf(err, errlen, "--mba-mbps: mba_MBps requires MBM and linear scale "
			 "MBA at L3 scope (give an Intel --mb)");
		return -EINVAL;
	}
	return 0;
}

static int alloc_tables(struct rfs_model *md)
{
	unsigned int i, n;

	md->grp = calloc(md->nclosid, sizeof(*md->grp));
	if (!md->grp)
		return -ENOMEM;
	for (i = 0; i < md->nclosid; i++) {
		md->grp[i].cpus = calloc(md->ncpus, 1);
		if (!md->grp[i].cpus)
			return -ENOMEM;
	}
	for (i = 0; i < md->nsch; i++) {
		struct rfs_schema *s = &md->sch[i];

		s->ctrl = malloc((size_t)s->ndom * md->nclosid * sizeof(*s->ctrl));
		if (!s->ctrl)
			return -ENOMEM;
		/* Mounting resets every control to the default (all bits, full bandwidth). */
		for (n = 0; n < s->ndom * md->nclosid; n++)
			s->ctrl[n] = s->dflt;
	}
	return 0;
}

int rfs_model_init(struct rfs_model *md, struct rdt_machine *m, bool cdpl3, bool cdpl2,
		   bool mba_mbps, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	memset(md, 0, sizeof(*md));
	md->m = m;
	md->cdp[RDT_L3] = cdpl3;
	md->cdp[RDT_L2] = cdpl2;
	md->mba_mbps = mba_mbps;
	md->ncpus = m->ncpus;
	md->io_closid = -1;
	ret = check_cdp(md, err, errlen);
	if (!ret)
		ret = check_mba_mbps(md, err, errlen);
	if (ret)
		return ret;
	ret = build_schemas(md, err, errlen);
	if (ret)
		return ret;
	if (!md->nsch) {
		snprintf(err, errlen, "the machine has no cache or memory bandwidth allocation");
		return -ENODEV;
	}
	md->nclosid = md->sch[0].num_closid;
	for (i = 1; i < md->nsch; i++)
		if (md->sch[i].num_closid < md->nclosid)
			md->nclosid = md->sch[i].num_closid;
	if (!md->nclosid) {
		snprintf(err, errlen, "the machine has no CLOSIDs");
		return -ENODEV;
	}
	ret = alloc_tables(md);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = rfs_mon_init(md);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	md->grp[0].used = true;
	for (i = 0; i < md->ncpus; i++)
		md->grp[0].cpus[i] = m->cpu_present[i];
	return 0;
}

void rfs_model_free(struct rfs_model *md)
{
	unsigned int i;

	if (md->grp)
		for (i = 0; i < md->nclosid; i++)
			free(md->grp[i].cpus);
	free(md->grp);
	for (i = 0; i < md->nsch; i++)
		free(md->sch[i].ctrl);
	free(md->tasks);
	rfs_mon_free(md);
	memset(md, 0, sizeof(*md));
	md->io_closid = -1;
}

int rfs_group_find(const struct rfs_model *md, const char *name)
{
	unsigned int i;

	for (i = 1; i < md->nclosid; i++)
		if (md->grp[i].used && !strcmp(md->grp[i].name, name))
			return (int)i;
	return -1;
}

/* The first run of ones only, as the kernel's cbm_ensure_valid(). */
static uint64_t first_run(uint64_t v, unsigned int len)
{
	unsigned int first, zero;

	v &= low_bits(len);
	if (!v)
		return 0;
	first = (unsigned int)__builtin_ctzll(v);
	for (zero = first; zero < len && (v >> zero & 1); zero++)
		;
	return low_bits(zero) & ~low_bits(first);
}

/* rdtgroup_init_alloc(): shareable bits plus whatever nobody holds exclusively. */
static int init_domain(struct rfs_model *md, struct rfs_schema *s, unsigned int d,
		       unsigned int closid, uint64_t *out)
{
	const struct rfs_schema *peer = s->peer >= 0 ? &md->sch[s->peer] : NULL;
	uint64_t used = s->shareable, val = s->shareable, c;
	unsigned int i;

	if (s->fmt == RFS_FMT_RANGE) {
		*out = s->dflt;	/* rdtgroup_init_mba(): full bandwidth */
		return 0;
	}
	for (i = 0; i < md->nclosid; i++) {
		if (!closid_taken(md, i) || i == closid)
			continue;
		c = *ctrl_at(md, s, d, i) | (peer ? *ctrl_at(md, peer, d, i) : 0);
		used |= c;
		if (closid_shareable(md, i))
			val |= c;
	}
	val |= ~used & s->cbm_mask;
	val = first_run(val, s->cbm_len);
	if ((unsigned int)__builtin_popcountll(val) < s->min_cbm_bits) {
		rfs_status_printf(md, "No space on %s:%u\n", s->name, s->dom[d].cache_id);
		return -ENOSPC;
	}
	*out = val;
	return 0;
}

int rfs_init_alloc(struct rfs_model *md, unsigned int closid)
{
	unsigned int i, d, n = 0;
	uint64_t *vals;
	int ret = 0;

	for (i = 0; i < md->nsch; i++)
		n += md->sch[i].ndom;
	vals = calloc(n ? n : 1, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* Compute every value first: a failure leaves the registers alone. */
	for (i = 0, n = 0; i < md->nsch && !ret; i++)
		for (d = 0; d < md->sch[i].ndom && !ret; d++)
			ret = init_domain(md, &md->sch[i], d, closid, &vals[n++]);
	for (i = 0, n = 0; i < md->nsch && !ret; i++)
		for (d = 0; d < md->sch[i].ndom; d++)
			*ctrl_at(md, &md->sch[i], d, closid) = vals[n++];
	free(vals);
	return ret;
}

int rfs_mkdir(struct rfs_model *md, const char *name, uid_t uid, gid_t gid)
{
	struct rfs_group *g;
	unsigned int closid;
	int ret;

	if (strchr(name, '\n'))
		return -EINVAL;
	if (strlen(name) > RFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (rfs_group_find(md, name) >= 0 || !strcmp(name, "info") ||
	    (md->nrmid && (!strcmp(name, "mon_groups") || !strcmp(name, "mon_data"))))
		return -EEXIST;
	rfs_status_clear(md);
	for (closid = 1; closid < md->nclosid && closid_taken(md, closid); closid++)
		;
	if (closid == md->nclosid) {
		rfs_status_printf(md, "Out of CLOSIDs\n");
		return -ENOSPC;
	}
	g = &md->grp[closid];
	/* a CTRL_MON group: an RMID of its own, else nothing is made */
	ret = rfs_rmid_alloc(md, &g->rmid);
	if (ret)
		return ret;
	ret = rfs_init_alloc(md, closid);
	if (ret) {
		rfs_rmid_free(md, g->rmid);
		return ret;
	}
	g->used = true;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->mode = RFS_MODE_SHAREABLE;
	g->mbps_event = 0;
	memset(g->cpus, 0, md->ncpus);
	g->uid = uid;
	g->gid = gid;
	rfs_abmc_mkdir(md, g->rmid);
	md->dirty = true;
	return 0;
}

int rfs_rmdir(struct rfs_model *md, unsigned int closid)
{
	struct rfs_group *g = &md->grp[closid];
	unsigned int i;

	if (closid == 0 || !g->used)
		return -EPERM;
	rfs_mon_release(md, closid);
	rfs_tasks_release(md, closid);
	rfs_rmid_free(md, g->rmid);
	for (i = 0; i < md->ncpus; i++)
		if (g->cpus[i])
			md->grp[0].cpus[i] = 1;
	g->used = false;
	g->name[0] = '\0';
	md->dirty = true;
	return 0;
}

static void show_line(const struct rfs_model *md, const struct rfs_schema *s,
		      unsigned int closid, bool size, struct rfs_buf *b)
{
	unsigned int d;

	rfs_buf_printf(b, "%*s:", md->name_width, s->name);
	for (d = 0; d < s->ndom; d++) {
		uint64_t v = *ctrl_at(md, s, d, closid);

		if (d)
			rfs_buf_putc(b, ';');
		if (s->fmt == RFS_FMT_RANGE)	/* "%d=%u", in size too: the value as is */
			rfs_buf_printf(b, "%u=%llu", s->dom[d].cache_id, (unsigned long long)v);
		else if (!size)
			rfs_buf_printf(b, "%u=%llx", s->dom[d].cache_id, (unsigned long long)v);
		else	/* the kernel divides first: ci->size / cbm_len * bits */
			rfs_buf_printf(b, "%u=%u", s->dom[d].cache_id,
				       (unsigned int)(s->dom[d].cache_size / s->cbm_len) *
				       (unsigned int)__builtin_popcountll(v));
	}
	rfs_buf_putc(b, '\n');
}

void rfs_schemata_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b)
{
	unsigned int i;

	for (i = 0; i < md->nsch; i++)
		if (closid < md->sch[i].num_closid)
			show_line(md, &md->sch[i], closid, false, b);
}

void rfs_size_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b)
{
	unsigned int i;

	for (i = 0; i < md->nsch; i++)
		show_line(md, &md->sch[i], closid, true, b);
}

/* Does cbm overlap another allocated CLOSID (only exclusive ones if asked)? */
static bool overlaps_one(const struct rfs_model *md, const struct rfs_schema *s,
			 unsigned int d, uint64_t cbm, unsigned int closid, bool exclusive)
{
	unsigned int i;

	if (!exclusive && (cbm & s->shareable))
		return true;
	for (i = 0; i < md->nclosid; i++) {
		if (!closid_taken(md, i) || i == closid)
			continue;
		if (!(cbm & *ctrl_at(md, s, d, i)))
			continue;
		if (!exclusive || closid_exclusive(md, i))
			return true;
	}
	return false;
}

/* With CDP, CODE and DATA share the ways: check the sibling schema too. */
bool rfs_cbm_overlaps(const struct rfs_model *md, const struct rfs_schema *s, unsigned int d,
		      uint64_t cbm, unsigned int closid, bool exclusive)
{
	if (overlaps_one(md, s, d, cbm, closid, exclusive))
		return true;
	return s->peer >= 0 &&
	       overlaps_one(md, &md->sch[s->peer], d, cbm, closid, exclusive);
}

/* cbm_validate(): the checks and texts of the kernel, in its order. */
int rfs_cbm_validate(struct rfs_model *md, const struct rfs_schema *s, const char *buf,
		     uint64_t *out)
{
	unsigned long long val;
	unsigned int first, zero;
	int ret;

	ret = rfs_kstrtoull(buf, 16, &val);
	if (ret) {
		rfs_status_printf(md, "Non-hex character in the mask %s\n", buf);
		return -EINVAL;
	}
	if ((s->min_cbm_bits > 0 && val == 0) || val > s->cbm_mask) {
		rfs_status_printf(md, "Mask out of range\n");
		return -EINVAL;
	}
	first = val ? (unsigned int)__builtin_ctzll(val) : s->cbm_len;
	for (zero = first; zero < s->cbm_len && (val >> zero & 1); zero++)
		;
	if (!s->sparse && zero < s->cbm_len && (val >> zero)) {
		rfs_status_printf(md, "The mask %llx has non-consecutive 1-bits\n", val);
		return -EINVAL;
	}
	if (zero - first < s->min_cbm_bits) {
		rfs_status_printf(md, "Need at least %u bits in the mask\n", s->min_cbm_bits);
		return -EINVAL;
	}
	*out = val;
	return 0;
}

/* Staged values of one write: per schema and domain, like staged_config. */
struct staged {
	uint64_t *val[RFS_MAX_SCHEMAS];
	bool *have[RFS_MAX_SCHEMAS];
};

static void staged_free(struct staged *st, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(st->val[i]);
		free(st->have[i]);
	}
}

static int staged_alloc(const struct rfs_model *md, struct staged *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < md->nsch; i++) {
		st->val[i] = calloc(md->sch[i].ndom + 1, sizeof(*st->val[i]));
		st->have[i] = calloc(md->sch[i].ndom + 1, sizeof(*st->have[i]));
		if (!st->val[i] || !st->have[i]) {
			staged_free(st, md->nsch);
			return -ENOMEM;
		}
	}
	return 0;
}

static int parse_cbm(struct rfs_model *md, unsigned int si, unsigned int d, char *buf,
		     unsigned int closid, struct staged *st)
{
	const struct rfs_schema *s = &md->sch[si];
	enum rfs_mode mode = md->grp[closid].mode;
	uint64_t val;

	if (st->have[si][d]) {
		rfs_status_printf(md, "Duplicate domain %u\n", s->dom[d].cache_id);
		return -EINVAL;
	}
	if (rfs_cbm_validate(md, s, buf, &val))
		return -EINVAL;
	if (rfs_cbm_overlaps(md, s, d, val, closid, true)) {
		rfs_status_printf(md, "Overlaps with exclusive group\n");
		return -EINVAL;
	}
	if (mode == RFS_MODE_EXCLUSIVE && rfs_cbm_overlaps(md, s, d, val, closid, false)) {
		rfs_status_printf(md, "Overlaps with other group\n");
		return -EINVAL;
	}
	st->val[si][d] = val;
	st->have[si][d] = true;
	return 0;
}

/*
 * bw_validate(): a u32 in decimal; under mba_MBps taken as it is, else
 * refused outside [min_bandwidth, max] and rounded up to bandwidth_gran.
 * The texts are those of the kernel since it parses with kstrtou32()
 * (before, a non-number was "Non-decimal digit in MB value %s").
 */
static int bw_validate(struct rfs_model *md, const struct rfs_schema *s, const char *buf,
		       uint64_t *out)
{
	unsigned long long bw;

	if (rfs_kstrtoull(buf, 10, &bw) || bw > 0xffffffffULL) {
		rfs_status_printf(md, "Invalid MB value %s\n", buf);
		return -EINVAL;
	}
	if (s->mbps) {
		*out = bw;
		return 0;
	}
	if (bw < s->min_bw || bw > s->max_bw) {
		rfs_status_printf(md, "MB value %u out of range [%d,%d]\n", (unsigned int)bw,
				  (int)s->min_bw, (int)s->max_bw);
		return -EINVAL;
	}
	*out = (bw + s->bw_gran - 1) / s->bw_gran * s->bw_gran;	/* roundup() */
	return 0;
}

/*
 * Under mba_MBps the kernel stores the value in the software controller's
 * mbps_val[] at once and stages nothing: it stays even when a later part
 * of the write fails, and naming a domain twice is no error (the last one
 * wins). Both quirks are kept.
 */
static int parse_bw(struct rfs_model *md, unsigned int si, unsigned int d, char *buf,
		    unsigned int closid, struct staged *st)
{
	const struct rfs_schema *s = &md->sch[si];
	uint64_t val;

	if (st->have[si][d]) {
		rfs_status_printf(md, "Duplicate domain %u\n", s->dom[d].cache_id);
		return -EINVAL;
	}
	if (bw_validate(md, s, buf, &val))
		return -EINVAL;
	if (s->mbps) {
		*ctrl_at(md, s, d, closid) = val;
		return 0;
	}
	st->val[si][d] = val;
	st->have[si][d] = true;
	return 0;
}

/* parse_line(): "id=mask;id=mask"; an unknown id fails with no message. */
static int parse_line(struct rfs_model *md, unsigned int si, char *line, unsigned int closid,
		      struct staged *st)
{
	const struct rfs_schema *s = &md->sch[si];
	unsigned long long id;
	char *dom, *ids;
	unsigned int d;

	while (line && line[0] != '\0') {
		dom = strsep(&line, ";");
		ids = strsep(&dom, "=");
		if (!dom || rfs_kstrtoull(ids, 10, &id)) {
			rfs_status_printf(md, "Missing '=' or non-numeric domain\n");
			return -EINVAL;
		}
		dom = rfs_strim(dom);
		for (d = 0; d < s->ndom; d++)
			if (s->dom[d].cache_id == id)
				break;
		if (d == s->ndom)
			return -EINVAL;
		if (s->fmt == RFS_FMT_RANGE ? parse_bw(md, si, d, dom, closid, st) :
		    parse_cbm(md, si, d, dom, closid, st))
			return -EINVAL;
	}
	return 0;
}

static int parse_resource(struct rfs_model *md, const char *name, char *tok,
			  unsigned int closid, struct staged *st)
{
	unsigned int i;

	for (i = 0; i < md->nsch; i++)
		if (!strcmp(name, md->sch[i].name) && closid < md->sch[i].num_closid)
			return parse_line(md, i, tok, closid, st);
	rfs_status_printf(md, "Unknown or unsupported resource name '%s'\n", name);
	return -EINVAL;
}

int rfs_schemata_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len)
{
	struct staged stg, *st = &stg;
	char *tok, *name;
	unsigned int i, d;
	int ret;

	/* Valid input requires a trailing newline (and leaves the status alone). */
	if (len == 0 || buf[len - 1] != '\n')
		return -EINVAL;
	buf[len - 1] = '\0';
	rfs_status_clear(md);
	ret = staged_alloc(md, st);
	if (ret)
		return ret;
	while (!ret && (tok = strsep(&buf, "\n")) != NULL) {
		name = rfs_strim(strsep(&tok, ":"));
		if (!tok) {
			rfs_status_printf(md, "Missing ':'\n");
			ret = -EINVAL;
		} else if (tok[0] == '\0') {
			rfs_status_printf(md, "Missing '%s' value\n", name);
			ret = -EINVAL;
		} else {
			ret = parse_resource(md, name, tok, closid, st);
		}
	}
	/* All or nothing: nothing is written unless every line parsed. */
	for (i = 0; i < md->nsch && !ret; i++)
		for (d = 0; d < md->sch[i].ndom; d++)
			if (st->have[i][d])
				*ctrl_at(md, &md->sch[i], d, closid) = st->val[i][d];
	staged_free(st, md->nsch);
	md->dirty = true;
	return ret;
}

void rfs_mode_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b)
{
	rfs_buf_printf(b, "%s\n", md->grp[closid].mode == RFS_MODE_EXCLUSIVE ?
		       "exclusive" : "shareable");
}

/* rdtgroup_mode_test_exclusive(): no overlap with anyone, hardware included. */
static bool can_be_exclusive(struct rfs_model *md, unsigned int closid)
{
	unsigned int i, d;

	for (i = 0; i < md->nsch; i++) {
		const struct rfs_schema *s = &md->sch[i];

		if (s->fmt != RFS_FMT_BITMAP)
			continue;
		for (d = 0; d < s->ndom; d++) {
			if (rfs_cbm_overlaps(md, s, d, *ctrl_at(md, s, d, closid), closid, false)) {
				rfs_status_printf(md, "Schemata overlaps\n");
				return false;
			}
		}
	}
	return true;
}

/*
 * pseudo-locksetup is refused as on a kernel built without
 * CONFIG_RESCTRL_FS_PSEUDO_LOCK: this emulator has no pseudo-locking.
 */
int rfs_mode_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len)
{
	struct rfs_group *g = &md->grp[closid];

	if (len == 0 || buf[len - 1] != '\n')
		return -EINVAL;
	buf[len - 1] = '\0';
	rfs_status_clear(md);
	if (!strcmp(buf, "shareable")) {
		g->mode = RFS_MODE_SHAREABLE;
	} else if (!strcmp(buf, "exclusive")) {
		if (g->mode != RFS_MODE_EXCLUSIVE && !can_be_exclusive(md, closid))
			return -EINVAL;
		g->mode = RFS_MODE_EXCLUSIVE;
	} else {
		rfs_status_printf(md, "Unknown or unsupported mode\n");
		return -EINVAL;
	}
	md->dirty = true;
	return 0;
}

void rfs_cpus_show(const struct rfs_model *md, unsigned int closid, bool list,
		   struct rfs_buf *b)
{
	if (list)
		rfs_bitmap_print_list(md->grp[closid].cpus, md->ncpus, b);
	else
		rfs_bitmap_print(md->grp[closid].cpus, md->ncpus, b);
	rfs_buf_putc(b, '\n');
}

/* cpus_ctrl_write(): dropped CPUs go to root, added ones leave their group. */
static int cpus_apply(struct rfs_model *md, unsigned int closid, const uint8_t *want)
{
	struct rfs_group *g = &md->grp[closid];
	unsigned int c, i;

	for (c = 0; c < md->ncpus; c++) {
		if (g->cpus[c] && !want[c] && closid == 0) {
			rfs_status_printf(md, "Can't drop CPUs from default group\n");
			return -EINVAL;
		}
	}
	for (c = 0; c < md->ncpus; c++) {
		if (g->cpus[c] && !want[c])
			md->grp[0].cpus[c] = 1;
		if (!g->cpus[c] && want[c])
			for (i = 0; i < md->nclosid; i++)
				if (i != closid)
					md->grp[i].cpus[c] = 0;
		g->cpus[c] = want[c];
	}
	for (i = 0; i < md->nclosid; i++)
		if (md->grp[i].used)
			rfs_mon_cpus_trim(md, i);
	return 0;
}

int rfs_cpus_write(struct rfs_model *md, unsigned int closid, bool list, char *buf)
{
	uint8_t *want;
	unsigned int c;
	int ret;

	rfs_status_clear(md);
	want = calloc(md->ncpus, 1);
	if (!want)
		return -ENOMEM;
	if (list)
		ret = rfs_bitmap_parselist(buf, want, md->ncpus);
	else
		ret = rfs_bitmap_parse(buf, want, md->ncpus);
	if (ret) {
		rfs_status_printf(md, "Bad CPU list/mask\n");
		goto out;
	}
	for (c = 0; c < md->ncpus; c++) {
		if (want[c] && !md->m->cpu_present[c]) {
			rfs_status_printf(md, "Can only assign online CPUs\n");
			ret = -EINVAL;
			goto out;
		}
	}
	ret = cpus_apply(md, closid, want);
	md->dirty = true;
out:
	free(want);
	return ret;
}

/* rdt_bit_usage_show(): X/H/S/E/0 per bit, most significant first. */
void rfs_bit_usage_show(const struct rfs_model *md, unsigned int si, struct rfs_buf *b)
{
	const struct rfs_schema *s = &md->sch[si];
	unsigned int d, i;
	int bit;

	for (d = 0; d < s->ndom; d++) {
		uint64_t sw = 0, excl = 0, hwio = 0;

		if (d)
			rfs_buf_putc(b, ';');
		rfs_buf_printf(b, "%u=", s->dom[d].cache_id);
		for (i = 0; i < md->nclosid; i++) {
			if (!md->grp[i].used)
				continue;
			if (md->grp[i].mode == RFS_MODE_EXCLUSIVE)
				excl |= *ctrl_at(md, s, d, i);
			else
				sw |= *ctrl_at(md, s, d, i);
		}
		/* 6.19: the io_alloc CLOSID's ways are the hardware's too */
		if (md->io_closid >= 0 && s->res == RDT_L3)
			hwio = *ctrl_at(md, s, d, (unsigned int)md->io_closid);
		for (bit = (int)s->cbm_len - 1; bit >= 0; bit--) {
			bool hw = (s->shareable | hwio) >> bit & 1, swb = sw >> bit & 1;

			if (hw && swb)
				rfs_buf_putc(b, 'X');
			else if (hw)
				rfs_buf_putc(b, 'H');
			else if (swb)
				rfs_buf_putc(b, 'S');
			else if (excl >> bit & 1)
				rfs_buf_putc(b, 'E');
			else
				rfs_buf_putc(b, '0');
		}
	}
	rfs_buf_putc(b, '\n');
}

/*
 * The event the software controller reads: local bandwidth where the
 * machine counts it, else total (resctrl_l3_mon_resource_init()).
 */
static unsigned int mbps_event(const struct rfs_model *md, unsigned int closid)
{
	if (md->grp[closid].mbps_event)
		return md->grp[closid].mbps_event;
	return md->m->mon.events & (1u << 2) ? 2 : 1;
}

void rfs_mbps_event_show(const struct rfs_model *md, unsigned int closid, struct rfs_buf *b)
{
	rfs_buf_printf(b, "%s\n", rfs_mon_event_name(mbps_event(md, closid)));
}

int rfs_mbps_event_write(struct rfs_model *md, unsigned int closid, char *buf, size_t len)
{
	int e;

	if (rfs_cmd_begin(md, buf, len))
		return -EINVAL;
	e = rfs_mon_event_find(buf);
	if (e < 1 || !(md->m->mon.events & (1u << e))) {
		rfs_status_printf(md, "Unsupported event id '%s'\n", buf);
		return -EINVAL;
	}
	md->grp[closid].mbps_event = (unsigned int)e;
	md->dirty = true;
	return 0;
}

/* One decimal field of --mb, up to the next ':' (or the end). */
static int mb_field(const char **p, unsigned long long max, unsigned int *out)
{
	const char *e = strchrnul(*p, ':');
	char num[24];
	unsigned long long v;

	if ((size_t)(e - *p) >= sizeof(num))
		return -EINVAL;
	memcpy(num, *p, (size_t)(e - *p));
	num[e - *p] = '\0';
	if (num[0] == '+' || rfs_kstrtoull(num, 10, &v) || v > max || strchr(num, '\n'))
		return -EINVAL;
	*out = (unsigned int)v;
	*p = *e ? e + 1 : e;
	return 0;
}

int rfs_mb_parse(const char *arg, struct rdt_caps *c, char *err, size_t errlen)
{
	struct rdt_caps mb = { .present = true };
	const char *p = arg;

	if (mb_field(&p, RDT_MAX_CLOSIDS, &mb.closids) || !mb.closids ||
	    mb_field(&p, 0xffffffffULL, &mb.mb_min) ||
	    mb_field(&p, 0xffffffffULL, &mb.mb_gran) || !mb.mb_gran)
		goto bad;
	mb.mb_max = RFS_MB_MAX_INTEL;
	if (*p) {
		if (!strncmp(p, "amd:", 4))
			mb.mb_amd = true;
		else if (strncmp(p, "percent:", 8))
			goto bad;
		p += mb.mb_amd ? 4 : 8;
		if (mb_field(&p, 0xffffffffULL, &mb.mb_max) || *p || !mb.mb_max)
			goto bad;
	} else if (p > arg && p[-1] == ':') {
		goto bad;
	}
	if (mb.mb_min > mb.mb_max) {
		snprintf(err, errlen, "--mb %s: the minimum is above the maximum %u", arg,
			 mb.mb_max);
		return -EINVAL;
	}
	*c = mb;
	return 0;
bad:
	snprintf(err, errlen, "--mb %s: expected CLOSIDS:MIN:GRAN or CLOSIDS:MIN:GRAN:amd:MAX "
		 "(CLOSIDS 1..%u, GRAN and MAX at least 1)", arg, RDT_MAX_CLOSIDS);
	return -EINVAL;
}

void rfs_mb_describe(const struct rdt_machine *m, char *buf, size_t len)
{
	const struct rdt_caps *c = &m->caps[RDT_MB];
	/* As add_mb_schema() takes it, so that the text works as a --mb. */
	unsigned int gran = c->mb_gran ? c->mb_gran : 1;

	if (!c->present)
		snprintf(buf, len, "%s", "");
	else if (!c->mb_amd && mb_max(c) == RFS_MB_MAX_INTEL)
		snprintf(buf, len, "%u:%u:%u", c->closids, c->mb_min, gran);
	else
		snprintf(buf, len, "%u:%u:%u:%s:%u", c->closids, c->mb_min, gran,
			 c->mb_amd ? "amd" : "percent", mb_max(c));
}
