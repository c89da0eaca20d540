// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pkg: the PERF_PKG resource of Intel AET telemetry (Linux 7.0): one
 * monitoring domain per package, mon_data/mon_PERF_PKG_XX/<event> in every
 * group, info/PERF_PKG_MON/{num_rmids,mon_features}. As the L3 counters
 * (mon.c), values are not measured but planted in the --state file; a
 * fresh RMID reads "Unavailable" (no aggregator has valid data), the root's
 * reads 0. core_energy (Joules) and activity (Farads) are fixed point with
 * 18 fractional bits, printed with 6 decimals; the others are counts.
 * Semantics: arch/x86/kernel/cpu/resctrl/intel_aet.c and fs/resctrl/
 * ctrlmondata.c (torvalds/linux dcb49710), through the survey.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

#define PKG_FRAC_BITS 18		/* intel_aet.c: energy and activity */
#define PKG_DECIMALS 6			/* decimal places for 18 binary ones */

struct rfs_counter *rfs_pkg_counter(const struct rfs_model *md, unsigned int rmid,
				    unsigned int pkg, unsigned int event)
{
	return &md->pkgcnt[((size_t)rmid * md->m->npkg + pkg) * RDT_PKG_NEVENTS + event];
}

void rfs_pkg_reset(struct rfs_model *md, unsigned int rmid, enum rfs_cnt_state s)
{
	unsigned int p, e;

	if (!md->pkgcnt)
		return;
	for (p = 0; p < md->m->npkg; p++)
		for (e = 0; e < RDT_PKG_NEVENTS; e++)
			*rfs_pkg_counter(md, rmid, p, e) = (struct rfs_counter){ .state = s };
}

int rfs_pkg_init(struct rfs_model *md)
{
	const struct rdt_machine *m = md->m;

	if (!m->pkg.groups || !md->nrmid)
		return 0;
	md->pkgcnt = calloc((size_t)md->nrmid * (m->npkg ? m->npkg : 1) * RDT_PKG_NEVENTS,
			    sizeof(*md->pkgcnt));
	if (!md->pkgcnt)
		return -ENOMEM;
	rfs_pkg_reset(md, 0, RFS_CNT_VALUE);
	return 0;
}

/* The index of an enabled event called name, or -1. */
int rfs_pkg_event_find(const struct rfs_model *md, const char *name)
{
	unsigned int e;

	for (e = 0; e < RDT_PKG_NEVENTS; e++)
		if ((md->m->pkg.groups & rdt_machine_pkg_event_group(e)) &&
		    !strcmp(rdt_machine_pkg_event_name(e), name))
			return (int)e;
	return -1;
}

/* print_event_value(): integer part, then the fraction rounded to 6 places. */
static void print_fixed(uint64_t v, struct rfs_buf *b)
{
	unsigned long long frac = v & ((1ULL << PKG_FRAC_BITS) - 1);

	frac = (frac * 1000000ULL + (1ULL << (PKG_FRAC_BITS - 1))) >> PKG_FRAC_BITS;
	rfs_buf_printf(b, "%llu.%0*llu\n", (unsigned long long)(v >> PKG_FRAC_BITS),
		       PKG_DECIMALS, frac);
}

struct pkg_sum {
	uint64_t sum;
	bool ok;
	enum rfs_cnt_state bad;
};

static void pkg_add(const struct rfs_counter *c, struct pkg_sum *s)
{
	if (c->state == RFS_CNT_VALUE) {
		s->sum += c->value;
		s->ok = true;
	} else if (s->bad == RFS_CNT_VALUE) {
		s->bad = c->state == RFS_CNT_FRESH ? RFS_CNT_UNAVAILABLE : c->state;
	}
}

/*
 * A control group sums its own RMID and its MON groups'; reads that fail
 * are dropped when any succeeds (mon_event_count()), else the first
 * failure is what it prints.
 */
void rfs_pkg_data_show(const struct rfs_model *md, unsigned int closid, int mon,
		       unsigned int pkg, unsigned int event, struct rfs_buf *b)
{
	struct pkg_sum s = { .bad = RFS_CNT_VALUE };
	unsigned int i;

	if (mon >= 0) {
		pkg_add(rfs_pkg_counter(md, md->mon[mon].rmid, pkg, event), &s);
	} else {
		pkg_add(rfs_pkg_counter(md, md->grp[closid].rmid, pkg, event), &s);
		for (i = 0; i < md->nrmid; i++)
			if (md->mon[i].used && md->mon[i].parent == closid)
				pkg_add(rfs_pkg_counter(md, md->mon[i].rmid, pkg, event), &s);
	}
	if (!s.ok)
		rfs_buf_printf(b, "%s\n", rfs_cnt_state_name(s.bad));
	else if (rdt_machine_pkg_event_fixed(event))
		print_fixed(s.sum, b);
	else
		rfs_buf_printf(b, "%llu\n", (unsigned long long)s.sum);
}
