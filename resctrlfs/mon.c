// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mon: the monitoring half of the emulated resctrl - RMIDs, MON groups
 * (<group>/mon_groups/<name>) and the counters behind mon_data. Every
 * control group holds an RMID of its own (the root RMID 0), every MON group
 * one more; when none is free, mkdir fails with ENOSPC and "Out of RMIDs",
 * as the kernel's alloc_rmid() does. A freed RMID is free at once: the
 * kernel's limbo (an RMID kept until its occupancy drops) is not emulated.
 *
 * Counters are not measured: there is no cache here. Each (RMID, L3 domain,
 * event) holds a value planted in the --state file, or a state the kernel
 * prints instead of a number ("Unavailable", "Error", "Unassigned"). An RMID
 * never planted reads "Unavailable", as a freshly allocated one can on real
 * parts; the root's RMID 0 reads 0 until planted. A control group's files
 * sum its own RMID and those of its MON groups (resctrl.rst, "mon_data").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

static const char *const event_names[RFS_MON_EVENTS] = {
	"llc_occupancy", "mbm_total_bytes", "mbm_local_bytes",
};

const char *rfs_mon_event_name(unsigned int event)
{
	return event < RFS_MON_EVENTS ? event_names[event] : "";
}

int rfs_mon_event_find(const char *name)
{
	unsigned int e;

	for (e = 0; e < RFS_MON_EVENTS; e++)
		if (!strcmp(event_names[e], name))
			return (int)e;
	return -1;
}

const char *rfs_cnt_state_name(enum rfs_cnt_state s)
{
	switch (s) {
	case RFS_CNT_ERROR:
		return "Error";
	case RFS_CNT_UNASSIGNED:
		return "Unassigned";
	case RFS_CNT_VALUE:
		return "";
	default:
		return "Unavailable";
	}
}

struct rfs_counter *rfs_mon_counter(const struct rfs_model *md, unsigned int rmid,
				    unsigned int dom, unsigned int event)
{
	return &md->cnt[((size_t)rmid * md->nmondom + dom) * RFS_MON_EVENTS + event];
}

/* A fresh RMID: every counter unread. */
static void counters_reset(struct rfs_model *md, unsigned int rmid, enum rfs_cnt_state s)
{
	unsigned int d, e;

	for (d = 0; d < md->nmondom; d++)
		for (e = 0; e < RFS_MON_EVENTS; e++)
			*rfs_mon_counter(md, rmid, d, e) = (struct rfs_counter){ .state = s };
}

/*
 * SNC: the monitoring domains are the nodes, snc per L3 domain, each with
 * its CPUs (rdt_machine_snc_node()) and its node id as the id.
 */
static int snc_domains(struct rfs_model *md)
{
	const struct rdt_machine *m = md->m;
	unsigned int n = m->ndom[RDT_L3] * md->snc, i, c;
	struct rdt_domain *nd = calloc(n ? n : 1, sizeof(*nd));

	if (!nd)
		return -ENOMEM;
	md->snc_dom = nd;
	md->mondom = nd;
	md->nmondom = n;
	for (i = 0; i < n; i++) {
		const struct rdt_domain *l3 = &m->dom[RDT_L3][i / md->snc];

		nd[i].cache_id = i;
		nd[i].cache_size = l3->cache_size / md->snc;
		nd[i].cpus = malloc((l3->ncpus ? l3->ncpus : 1) * sizeof(int));
		if (!nd[i].cpus)
			return -ENOMEM;
		for (c = 0; c < l3->ncpus; c++)
			if (rdt_machine_snc_node(m, l3->cpus[c]) == (int)i)
				nd[i].cpus[nd[i].ncpus++] = l3->cpus[c];
	}
	return 0;
}

int rfs_mon_init(struct rfs_model *md)
{
	const struct rdt_machine *m = md->m;
	unsigned int i;
	int ret;

	if (!m->mon.rmids)
		return 0;
	md->nrmid = m->mon.rmids;
	/* AET: groups that monitor are limited by both resources' RMIDs */
	if (m->pkg.groups && m->pkg.rmids < md->nrmid)
		md->nrmid = m->pkg.rmids;
	md->snc = m->mon.snc > 1 ? m->mon.snc : 1;
	md->nmondom = m->ndom[RDT_L3];
	md->mondom = m->dom[RDT_L3];
	if (md->snc > 1 && snc_domains(md))
		return -ENOMEM;
	md->rmid_used = calloc(md->nrmid, 1);
	md->mon = calloc(md->nrmid, sizeof(*md->mon));
	md->cnt = calloc((size_t)md->nrmid * (md->nmondom ? md->nmondom : 1) * RFS_MON_EVENTS,
			 sizeof(*md->cnt));
	if (!md->rmid_used || !md->mon || !md->cnt)
		return -ENOMEM;
	for (i = 0; i < md->nrmid; i++) {
		md->mon[i].cpus = calloc(md->ncpus ? md->ncpus : 1, 1);
		if (!md->mon[i].cpus)
			return -ENOMEM;
	}
	md->rmid_used[0] = 1;
	counters_reset(md, 0, RFS_CNT_VALUE);
	ret = rfs_pkg_init(md);
	return ret ? ret : rfs_abmc_init(md);
}

void rfs_mon_free(struct rfs_model *md)
{
	unsigned int i;

	if (md->mon)
		for (i = 0; i < md->nrmid; i++)
			free(md->mon[i].cpus);
	free(md->mon);
	free(md->rmid_used);
	free(md->cnt);
	free(md->pkgcnt);
	rfs_abmc_free(md);
	if (md->snc_dom)
		for (i = 0; i < md->nmondom; i++)
			free(md->snc_dom[i].cpus);
	free(md->snc_dom);
}

int rfs_rmid_alloc(struct rfs_model *md, unsigned int *rmid)
{
	unsigned int r;

	*rmid = 0;
	if (!md->nrmid)
		return 0;
	for (r = 1; r < md->nrmid; r++) {
		if (!md->rmid_used[r]) {
			md->rmid_used[r] = 1;
			counters_reset(md, r, RFS_CNT_FRESH);
			rfs_pkg_reset(md, r, RFS_CNT_FRESH);
			*rmid = r;
			return 0;
		}
	}
	rfs_status_printf(md, "Out of RMIDs\n");
	return -ENOSPC;
}

void rfs_rmid_free(struct rfs_model *md, unsigned int rmid)
{
	if (md->nrmid && rmid && rmid < md->nrmid) {
		rfs_abmc_release(md, rmid);	/* counters go back at rmdir */
		md->rmid_used[rmid] = 0;
	}
}

int rfs_mon_find(const struct rfs_model *md, unsigned int parent, const char *name)
{
	unsigned int i;

	for (i = 0; i < md->nrmid; i++)
		if (md->mon[i].used && md->mon[i].parent == parent &&
		    !strcmp(md->mon[i].name, name))
			return (int)i;
	return -1;
}

int rfs_mon_mkdir(struct rfs_model *md, unsigned int parent, const char *name, uid_t uid,
		  gid_t gid)
{
	struct rfs_mon *mg;
	unsigned int i, rmid;
	int ret;

	if (strchr(name, '\n'))
		return -EINVAL;
	if (strlen(name) > RFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (rfs_mon_find(md, parent, name) >= 0)
		return -EEXIST;
	rfs_status_clear(md);
	ret = rfs_rmid_alloc(md, &rmid);
	if (ret)
		return ret;
	for (i = 0; md->mon[i].used; i++)
		;	/* there is a free slot: fewer MON groups than RMIDs */
	mg = &md->mon[i];
	mg->used = true;
	snprintf(mg->name, sizeof(mg->name), "%s", name);
	mg->parent = parent;
	mg->rmid = rmid;
	memset(mg->cpus, 0, md->ncpus);
	mg->uid = uid;
	mg->gid = gid;
	rfs_abmc_mkdir(md, rmid);
	md->dirty = true;
	return 0;
}

int rfs_mon_rmdir(struct rfs_model *md, int mon)
{
	struct rfs_mon *mg = &md->mon[mon];

	rfs_tasks_release_mon(md, mon);
	rfs_rmid_free(md, mg->rmid);
	mg->used = false;
	mg->name[0] = '\0';
	md->dirty = true;
	return 0;
}

void rfs_mon_release(struct rfs_model *md, unsigned int closid)
{
	unsigned int i;

	for (i = 0; i < md->nrmid; i++)
		if (md->mon[i].used && md->mon[i].parent == closid)
			rfs_mon_rmdir(md, (int)i);
}

void rfs_mon_cpus_trim(struct rfs_model *md, unsigned int closid)
{
	const uint8_t *own = md->grp[closid].cpus;
	unsigned int i, c;

	for (i = 0; i < md->nrmid; i++) {
		if (!md->mon[i].used || md->mon[i].parent != closid)
			continue;
		for (c = 0; c < md->ncpus; c++)
			md->mon[i].cpus[c] &= own[c];
	}
}

void rfs_mon_cpus_show(const struct rfs_model *md, int mon, bool list, struct rfs_buf *b)
{
	if (list)
		rfs_bitmap_print_list(md->mon[mon].cpus, md->ncpus, b);
	else
		rfs_bitmap_print(md->mon[mon].cpus, md->ncpus, b);
	rfs_buf_putc(b, '\n');
}

/* cpus_mon_write(): a subset of the parent's CPUs; one taken leaves its sibling. */
int rfs_mon_cpus_write(struct rfs_model *md, int mon, bool list, char *buf)
{
	struct rfs_mon *mg = &md->mon[mon];
	const uint8_t *own = md->grp[mg->parent].cpus;
	unsigned int c, i;
	uint8_t *want;
	int ret;

	rfs_status_clear(md);
	want = calloc(md->ncpus ? md->ncpus : 1, 1);
	if (!want)
		return -ENOMEM;
	ret = list ? rfs_bitmap_parselist(buf, want, md->ncpus) :
		     rfs_bitmap_parse(buf, want, md->ncpus);
	if (ret) {
		rfs_status_printf(md, "Bad CPU list/mask\n");
		goto out;
	}
	for (c = 0; c < md->ncpus && !ret; c++) {
		if (want[c] && !own[c]) {
			rfs_status_printf(md, "Can only assign subset of parent's CPUs\n");
			ret = -EINVAL;
		}
	}
	if (ret)
		goto out;
	for (c = 0; c < md->ncpus; c++) {
		if (want[c] && !mg->cpus[c])
			for (i = 0; i < md->nrmid; i++)
				if (md->mon[i].used && md->mon[i].parent == mg->parent)
					md->mon[i].cpus[c] = 0;
		mg->cpus[c] = want[c];
	}
	md->dirty = true;
out:
	free(want);
	return ret;
}

/*
 * One RMID's counter into *sum. A state other than a value wins, the worst
 * first, as the kernel stops summing at the first RMID it cannot read.
 */
static void add_counter(const struct rfs_counter *c, struct rfs_counter *sum)
{
	static const int rank[] = {
		[RFS_CNT_VALUE] = 0, [RFS_CNT_FRESH] = 1, [RFS_CNT_UNAVAILABLE] = 1,
		[RFS_CNT_UNASSIGNED] = 2, [RFS_CNT_ERROR] = 3,
	};

	if (c->state == RFS_CNT_VALUE && sum->state == RFS_CNT_VALUE)
		sum->value += c->value;
	else if (rank[c->state] > rank[sum->state])
		sum->state = c->state;
}

/*
 * One RMID's counter into the sum, unless in mbm_event mode the event has
 * no counter there: such RMIDs are left out, and a group none of whose
 * RMIDs has one reads "Unassigned" (its sum is of the assigned ones).
 */
static void add_rmid(const struct rfs_model *md, unsigned int rmid, unsigned int dom,
		     unsigned int event, struct rfs_counter *sum, unsigned int *n)
{
	if (!rfs_abmc_is_assigned(md, rmid, dom, event))
		return;
	(*n)++;
	add_counter(rfs_mon_counter(md, rmid, dom, event), sum);
}

static struct rfs_counter group_sum(const struct rfs_model *md, unsigned int closid, int mon,
				    unsigned int dom, unsigned int event)
{
	struct rfs_counter sum = { .state = RFS_CNT_VALUE };
	unsigned int i, n = 0;

	if (mon >= 0) {
		add_rmid(md, md->mon[mon].rmid, dom, event, &sum, &n);
	} else {
		add_rmid(md, md->grp[closid].rmid, dom, event, &sum, &n);
		for (i = 0; i < md->nrmid; i++)
			if (md->mon[i].used && md->mon[i].parent == closid)
				add_rmid(md, md->mon[i].rmid, dom, event, &sum, &n);
	}
	if (!n)
		sum.state = RFS_CNT_UNASSIGNED;
	return sum;
}

static void print_counter(const struct rfs_counter *c, struct rfs_buf *b)
{
	if (c->state == RFS_CNT_VALUE)
		rfs_buf_printf(b, "%llu\n", (unsigned long long)c->value);
	else
		rfs_buf_printf(b, "%s\n", rfs_cnt_state_name(c->state));
}

void rfs_mon_data_show(const struct rfs_model *md, unsigned int closid, int mon,
		       unsigned int dom, unsigned int event, struct rfs_buf *b)
{
	struct rfs_counter c = group_sum(md, closid, mon, dom, event);

	print_counter(&c, b);
}

/*
 * SNC: mon_L3_XX/<event> sums the nodes of L3 domain l3; it reads a value
 * when any node does (__l3_mon_event_count_sum()), else "Unavailable".
 */
void rfs_mon_data_show_l3(const struct rfs_model *md, unsigned int closid, int mon,
			  unsigned int l3, unsigned int event, struct rfs_buf *b)
{
	struct rfs_counter sum = { .state = RFS_CNT_UNAVAILABLE };
	unsigned int k;

	for (k = 0; k < md->snc; k++) {
		struct rfs_counter c = group_sum(md, closid, mon, l3 * md->snc + k, event);

		if (c.state != RFS_CNT_VALUE)
			continue;
		sum.value += c.value;
		sum.state = RFS_CNT_VALUE;
	}
	print_counter(&sum, b);
}
