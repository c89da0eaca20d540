// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * abmc: counter assignment, resctrl's "mbm_event" mode (Linux 6.18, AMD
 * ABMC). Each L3 domain has mon.cntrs counters; an MBM event of an RMID
 * counts in a domain only while a counter is assigned to it there, and
 * reads "Unassigned" otherwise. Files: info/L3_MON/mbm_assign_mode,
 * num_mbm_cntrs, available_mbm_cntrs, mbm_assign_on_mkdir,
 * event_configs/<event>/event_filter and every group's mbm_L3_assignments.
 *
 * Texts, errors and order are those of fs/resctrl/monitor.c (torvalds/linux
 * 8f6b6ad6, 7.0 window) as the survey in docs/resctrlfs.md cites them. An
 * assignment to all domains stops at the first domain without a free
 * counter, as 6.18-7.1 do; with mon.abmc=7.2 it goes on to the others
 * (3aec86e4, "Continue counter allocation after failure": the survey infers
 * it from the subject) and reports the first failure. mon.abmc=7.2-ro: the
 * counters' filters are not configurable, event_filter is read-only
 * (94a12065, read).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

/* The memory transactions of event_filter, bits 0..6 (the BMEC table). */
static const char *const transactions[] = {
	"local_reads", "remote_reads", "local_non_temporal_writes",
	"remote_non_temporal_writes", "local_reads_slow_memory", "remote_reads_slow_memory",
	"dirty_victim_writes_all",
};
#define NTRANS (sizeof(transactions) / sizeof(transactions[0]))
#define FILTER_ALL 0x7fu		/* AMD's mbm_cfg_mask: every type */
#define FILTER_LOCAL 0x15u		/* local_reads, local_non_temporal_writes, local slow */

static bool mbm_event(unsigned int event)
{
	return event == 1 || event == 2;
}

static bool event_enabled(const struct rfs_model *md, unsigned int event)
{
	return md->m->mon.events & (1u << event);
}

static uint8_t *slot(const struct rfs_model *md, unsigned int rmid, unsigned int dom,
		     unsigned int event)
{
	return &md->assigned[((size_t)rmid * md->nmondom + dom) * 2 + event - 1];
}

static void reset_filters(struct rfs_model *md)
{
	md->filter[0] = FILTER_ALL;
	md->filter[1] = FILTER_ALL & FILTER_LOCAL;
}

bool rfs_abmc_is_assigned(const struct rfs_model *md, unsigned int rmid, unsigned int dom,
			  unsigned int event)
{
	if (!md->assigned || !md->assign || !mbm_event(event))
		return true;
	return *slot(md, rmid, dom, event);
}

/* A counter that starts: as a fresh RMID's, the root's from 0. */
static void counter_restart(struct rfs_model *md, unsigned int rmid, unsigned int dom,
			    unsigned int event)
{
	*rfs_mon_counter(md, rmid, dom, event) = (struct rfs_counter){
		.state = rmid ? RFS_CNT_FRESH : RFS_CNT_VALUE };
}

int rfs_abmc_set(struct rfs_model *md, unsigned int rmid, unsigned int dom, unsigned int event,
		 bool on)
{
	uint8_t *a = slot(md, rmid, dom, event);

	if (*a == on)
		return 0;
	if (on && md->cntr_used[dom] >= md->m->mon.cntrs) {
		rfs_status_printf(md, "Failed to allocate counter for %s in domain %u\n",
				  rfs_mon_event_name(event), md->mondom[dom].cache_id);
		return -ENOSPC;
	}
	*a = on;
	md->cntr_used[dom] += on ? 1 : -1u;
	counter_restart(md, rmid, dom, event);
	md->dirty = true;
	return 0;
}

/*
 * rdtgroup_assign_cntr_event(NULL, ...): every domain; up to the first
 * failure before 7.2, past it from 7.2 (the first failure returned).
 */
static int assign_all(struct rfs_model *md, unsigned int rmid, unsigned int event, bool on)
{
	bool go_on = md->m->mon.abmc != RDT_ABMC_6_18;
	unsigned int d;
	int ret, first = 0;

	for (d = 0; d < md->nmondom; d++) {
		ret = rfs_abmc_set(md, rmid, d, event, on);
		if (ret && !go_on)
			return ret;
		if (ret && !first)
			first = ret;
	}
	return first;
}

bool rfs_abmc_filter_configurable(const struct rfs_model *md)
{
	return md->m->mon.abmc != RDT_ABMC_7_2_RO;
}

int rfs_abmc_init(struct rfs_model *md)
{
	const struct rdt_mon *mon = &md->m->mon;

	if (!mon->cntrs || !md->nrmid)
		return 0;
	md->assigned = calloc((size_t)md->nrmid * md->nmondom * 2, 1);
	md->cntr_used = calloc(md->nmondom ? md->nmondom : 1, sizeof(*md->cntr_used));
	if (!md->assigned || !md->cntr_used)
		return -ENOMEM;
	md->assign = mon->assign;
	md->assign_on_mkdir = mon->assign_on_mkdir;
	reset_filters(md);
	/* rdt_get_tree(): the default group's counters, then a clean status */
	rfs_abmc_mkdir(md, 0);
	rfs_status_clear(md);
	return 0;
}

void rfs_abmc_free(struct rfs_model *md)
{
	free(md->assigned);
	free(md->cntr_used);
	md->assigned = NULL;
	md->cntr_used = NULL;
}

/* Best effort: a group is made even when no counter is left (its status says so). */
void rfs_abmc_mkdir(struct rfs_model *md, unsigned int rmid)
{
	unsigned int e;

	if (!md->assigned || !md->assign || !md->assign_on_mkdir)
		return;
	for (e = 1; e <= 2; e++)
		if (event_enabled(md, e))
			assign_all(md, rmid, e, true);
}

void rfs_abmc_release(struct rfs_model *md, unsigned int rmid)
{
	unsigned int d, e;

	if (!md->assigned)
		return;
	for (d = 0; d < md->nmondom; d++)
		for (e = 1; e <= 2; e++)
			rfs_abmc_set(md, rmid, d, e, false);
}

void rfs_abmc_mode_show(const struct rfs_model *md, struct rfs_buf *b)
{
	if (!md->assigned)
		rfs_buf_printf(b, "[default]\n");
	else if (md->assign)
		rfs_buf_printf(b, "[mbm_event]\ndefault\n");
	else
		rfs_buf_printf(b, "[default]\nmbm_event\n");
}

/*
 * A switch frees every counter, resets both filters and the MBM counts,
 * and (into mbm_event) turns auto-assignment on; groups made before it
 * read "Unassigned" until assigned again.
 */
static void switch_mode(struct rfs_model *md, bool on)
{
	unsigned int r, d;

	for (r = 0; r < md->nrmid; r++)
		if (md->rmid_used[r])
			rfs_abmc_release(md, r);
	for (r = 0; r < md->nrmid; r++)
		for (d = 0; d < md->nmondom && md->rmid_used[r]; d++) {
			counter_restart(md, r, d, 1);
			counter_restart(md, r, d, 2);
		}
	reset_filters(md);
	if (on)
		md->assign_on_mkdir = true;
	md->assign = on;
	md->dirty = true;
}

int rfs_abmc_mode_write(struct rfs_model *md, char *buf, size_t len)
{
	bool on;

	if (rfs_cmd_begin(md, buf, len))
		return -EINVAL;
	if (!strcmp(buf, "default")) {
		on = false;
	} else if (!strcmp(buf, "mbm_event")) {
		if (!md->assigned) {
			rfs_status_printf(md, "mbm_event mode is not supported\n");
			return -EINVAL;
		}
		on = true;
	} else {
		rfs_status_printf(md, "Unsupported assign mode\n");
		return -EINVAL;
	}
	if (md->assigned && on != md->assign)
		switch_mode(md, on);
	return 0;
}

/* num_mbm_cntrs (either mode) and available_mbm_cntrs (mbm_event mode only). */
void rfs_abmc_cntrs_show(struct rfs_model *md, bool available, struct rfs_buf *b)
{
	unsigned int d;

	if (available) {
		rfs_status_clear(md);
		if (!md->assign) {
			rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
			b->err = -EINVAL;
			return;
		}
	}
	for (d = 0; d < md->nmondom; d++)
		rfs_buf_printf(b, "%s%u=%u", d ? ";" : "", md->mondom[d].cache_id,
			       md->m->mon.cntrs - (available ? md->cntr_used[d] : 0));
	rfs_buf_putc(b, '\n');
}

void rfs_abmc_on_mkdir_show(struct rfs_model *md, struct rfs_buf *b)
{
	rfs_status_clear(md);
	if (!md->assign) {
		rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
		b->err = -EINVAL;
		return;
	}
	rfs_buf_printf(b, "%d\n", md->assign_on_mkdir);
}

/* kstrtobool(): the first character (two for "on"/"of"), the rest unread. */
int rfs_kstrtobool(const char *s, bool *out)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*out = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*out = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*out = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*out = false;
			return 0;
		}
		break;
	default:
		break;
	}
	return -EINVAL;
}

int rfs_abmc_on_mkdir_write(struct rfs_model *md, char *buf)
{
	bool v;

	if (rfs_kstrtobool(buf, &v))
		return -EINVAL;
	rfs_status_clear(md);
	if (!md->assign) {
		rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
		return -EINVAL;
	}
	md->assign_on_mkdir = v;
	md->dirty = true;
	return 0;
}

void rfs_abmc_filter_show(struct rfs_model *md, unsigned int event, struct rfs_buf *b)
{
	unsigned int i, n = 0;

	rfs_status_clear(md);
	if (!md->assign) {
		rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
		b->err = -EINVAL;
		return;
	}
	for (i = 0; i < NTRANS; i++)
		if (md->filter[event - 1] & (1u << i))
			rfs_buf_printf(b, "%s%s", n++ ? "," : "", transactions[i]);
	rfs_buf_putc(b, '\n');
}

/* resctrl_parse_mem_transactions(): names separated by ',', blanks trimmed. */
static int parse_transactions(struct rfs_model *md, char *tok, uint32_t *val)
{
	uint32_t v = 0;
	unsigned int i;
	char *name;

	while (tok && tok[0] != '\0') {
		name = rfs_strim(strsep(&tok, ","));
		for (i = 0; i < NTRANS && strcmp(transactions[i], name); i++)
			;
		if (i == NTRANS) {
			rfs_status_printf(md, "Invalid memory transaction type %s\n", name);
			return -EINVAL;
		}
		v |= 1u << i;
	}
	*val = v;
	return 0;
}

/* A new filter applies to every assigned counter of the event, which starts again. */
int rfs_abmc_filter_write(struct rfs_model *md, unsigned int event, char *buf, size_t len)
{
	unsigned int r, d;
	uint32_t v;

	if (rfs_cmd_begin(md, buf, len))
		return -EINVAL;
	if (!md->assign) {
		rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
		return -EINVAL;
	}
	if (parse_transactions(md, buf, &v))
		return -EINVAL;
	if (v == md->filter[event - 1])
		return 0;
	md->filter[event - 1] = v;
	for (r = 0; r < md->nrmid; r++)
		for (d = 0; d < md->nmondom && md->rmid_used[r]; d++)
			if (*slot(md, r, d, event))
				counter_restart(md, r, d, event);
	md->dirty = true;
	return 0;
}

void rfs_abmc_assignments_show(struct rfs_model *md, unsigned int rmid, struct rfs_buf *b)
{
	unsigned int e, d;

	rfs_status_clear(md);
	if (!md->assign) {
		rfs_status_printf(md, RFS_CNTR_NOT_ENABLED);
		b->err = -EINVAL;
		return;
	}
	for (e = 1; e <= 2; e++) {
		if (!event_enabled(md, e))
			continue;
		rfs_buf_printf(b, "%s:", rfs_mon_event_name(e));
		for (d = 0; d < md->nmondom; d++)
			rfs_buf_printf(b, "%s%u=%c", d ? ";" : "", md->mondom[d].cache_id,
				       *slot(md, rmid, d, e) ? 'e' : '_');
		rfs_buf_putc(b, '\n');
	}
}

/* rdtgroup_modify_assign_state(): exactly one character, 'e' or '_'. */
static int modify(struct rfs_model *md, const char *state, int dom, unsigned int rmid,
		  unsigned int event)
{
	bool on;

	if (!state || strlen(state) != 1 || (state[0] != 'e' && state[0] != '_'))
		return -EINVAL;
	on = state[0] == 'e';
	if (dom < 0)
		return assign_all(md, rmid, event, on);
	return rfs_abmc_set(md, rmid, (unsigned int)dom, event, on);
}

/* resctrl_parse_mbm_assignment(): one line, "<event>:<id>=<state>[;...]" or "*=". */
static int parse_line(struct rfs_model *md, unsigned int rmid, char *event, char *tok)
{
	unsigned long long id;
	char *dom_str, *id_str;
	unsigned int d;
	int e = rfs_mon_event_find(event), ret;

	if (e < 0 || !mbm_event((unsigned int)e) || !event_enabled(md, (unsigned int)e)) {
		rfs_status_printf(md, "Invalid event %s\n", event);
		return -ENOENT;
	}
	while (tok && tok[0] != '\0') {
		dom_str = rfs_strim(strsep(&tok, ";"));
		id_str = strsep(&dom_str, "=");
		if (id_str && *id_str == '*') {
			/* whatever follows the '*' item is not looked at */
			ret = modify(md, dom_str, -1, rmid, (unsigned int)e);
			if (ret)
				rfs_status_printf(md, "Assign operation '%s:*=%s' failed\n", event,
						  dom_str ? dom_str : "(null)");
			return ret;
		}
		if (!id_str || rfs_kstrtoull(id_str, 10, &id)) {
			rfs_status_printf(md, "Missing domain id\n");
			return -EINVAL;
		}
		for (d = 0; d < md->nmondom && md->mondom[d].cache_id != id; d++)
			;
		if (d == md->nmondom) {
			rfs_status_printf(md, "Invalid domain id %s\n", id_str);
			return -EINVAL;
		}
		ret = modify(md, dom_str, (int)d, rmid, (unsigned int)e);
		if (ret) {
			rfs_status_printf(md, "Assign operation '%s:%llu=%s' failed\n", event, id,
					  dom_str ? dom_str : "(null)");
			return ret;
		}
	}
	return 0;
}

/* Lines in order; the first failure stops, the lines before it stay applied. */
int rfs_abmc_assignments_write(struct rfs_model *md, unsigned int rmid, char *buf, size_t len)
{
	char *line, *event;
	int ret = 0;

	if (rfs_cmd_begin(md, buf, len))
		return -EINVAL;
	if (!md->assign) {
		rfs_status_printf(md, "mbm_event mode is not enabled\n");
		return -EINVAL;
	}
	while (!ret && (line = strsep(&buf, "\n")) != NULL) {
		event = strsep(&line, ":");
		ret = parse_line(md, rmid, event, line);
	}
	return ret;
}
