// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, counter assignment (Linux 6.18, AMD ABMC): the mode
 * (info/L3_MON/mbm_assign_mode), the counters per domain (num_mbm_cntrs,
 * available_mbm_cntrs), and our MON groups' mbm_L3_assignments. Only MON
 * groups of ours are ever written: another tool's counters stay its own.
 * A kernel out of counters (ENOSPC, "Failed to allocate counter for ...")
 * is a state the turns live with (monitor/rotation.c), not an error.
 */
#include "backends/resctrl_int.h"

#define L3_MON "info/L3_MON"

/* "0=32;1=32\n": the fewest of any domain; -EINVAL when it is not that. */
static int fewest(const char *text, unsigned int *out)
{
	unsigned long id, n, least = ULONG_MAX;
	const char *p = text;
	char *end;

	while (*p && *p != '\n') {
		errno = 0;
		id = strtoul(p, &end, 10);
		if (errno || end == p || *end != '=' || id > INT_MAX)
			return -EINVAL;
		p = end + 1;
		n = strtoul(p, &end, 10);
		if (errno || end == p || n > INT_MAX)
			return -EINVAL;
		least = n < least ? n : least;
		p = end;
		if (*p == ';')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	if (least == ULONG_MAX)
		return -EINVAL;
	*out = (unsigned int)least;
	return 0;
}

/* info/L3_MON/FILE's per-domain counts reduced to the fewest; -ENOENT (no message): none. */
static int info_count(struct rdtalloc *r, const char *file, unsigned int *out)
{
	char path[PATH_MAX], *text = NULL;
	int ret;

	rc_rel_path(ctx_of(r), L3_MON, file, path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret == -ENOENT)
		return ret;
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	ret = fewest(text, out);
	if (ret) {
		rc_trim(text);
		ret = rdt_fail(r, -EIO, "resctrl: %s: '%.40s' is not a count per domain", path,
			       text);
	}
	free(text);
	return ret;
}

int rc_mon_cntrs(struct rdtalloc *r, int *mode, unsigned int *total, unsigned int *free_cntrs)
{
	char path[PATH_MAX], *text = NULL;
	int ret;

	*mode = RDTALLOC_MON_ASSIGN_NONE;
	*total = *free_cntrs = 0;
	rc_rel_path(ctx_of(r), L3_MON, "mbm_assign_mode", path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret == -ENOENT)
		return 0;	/* before 6.18: every RMID counts */
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	if (strstr(text, "[mbm_event]"))
		*mode = RDTALLOC_MON_ASSIGN_EVENT;
	free(text);
	ret = info_count(r, "num_mbm_cntrs", total);
	if (ret == -ENOENT)
		return 0;	/* "[default]" alone: counters are not assignable here */
	if (ret)
		return ret;
	if (*mode != RDTALLOC_MON_ASSIGN_EVENT) {
		*mode = RDTALLOC_MON_ASSIGN_DEFAULT;
		return 0;	/* available_mbm_cntrs reads EINVAL in default mode */
	}
	ret = info_count(r, "available_mbm_cntrs", free_cntrs);
	return ret == -ENOENT ? rdt_fail(r, ret, "resctrl: %s/available_mbm_cntrs is missing in "
					 "mbm_event mode", L3_MON) : ret;
}

/* "mbm_total_bytes:0=S;1=S\nmbm_local_bytes:0=S;1=S\n" for the enabled MBM events. */
static void assignment_text(struct rdtalloc *r, char state, char *buf, size_t len)
{
	static const char *const events[] = { NULL, "mbm_total_bytes", "mbm_local_bytes" };
	size_t at = 0;
	unsigned int e, d;

	buf[0] = '\0';
	for (e = 1; e < 3; e++) {
		if (!(rc_m(r)->mon.events & (1u << e)))
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s:", events[e]);
		for (d = 0; d < rc_m(r)->ndom[RDT_L3] && at < len; d++)
			at += (size_t)snprintf(buf + at, len - at, "%s%u=%c", d ? ";" : "",
					       rc_m(r)->dom[RDT_L3][d].cache_id, state);
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "\n");
	}
}

/*
 * g is a group of ours with an RMID (the turns ask for no other): its MON
 * group is named after it, in its class's control group. Reached only
 * through the backend's table: this file calls nothing of the library's
 * core (tests/layers/linkgraph.py).
 */
int rc_mon_assign(struct rdtalloc *r, int g, bool on, bool *got)
{
	struct rc_ctx *c = ctx_of(r);
	const char *name = c->mon && g > 0 ? rc_st(r)->groups[g].name : "";
	char md[RC_MON_DIR_MAX], path[PATH_MAX], text[4096], undo[4096], status[256];
	struct rc_view v;
	bool opened;
	int ret, k;

	*got = false;
	if (!*name)
		return 0;	/* no MON group of ours: nothing of ours to give counters */
	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	k = v.cls_of[g];
	if (k >= 0 && v.cls[k].dir < 0) {
		rc_view_free(&v);
		return 0;	/* its control group is gone: drift, monitor says so */
	}
	mon_dir(k < 0 ? "" : v.dirs[v.cls[k].dir].name, name, md, sizeof(md));
	rc_view_free(&v);
	rc_rel_path(c, md, "mbm_L3_assignments", path, sizeof(path));
	assignment_text(r, on ? 'e' : '_', text, sizeof(text));
	ret = rc_write_once(path, text, &opened);
	if (!ret) {
		*got = on;
		return 0;
	}
	if (ret == -ENOENT)
		return 0;	/* the MON group removed behind our back: drift */
	if (on && ret == -ENOSPC) {
		/* out of counters: a state; what was taken before the refusal goes back */
		assignment_text(r, '_', undo, sizeof(undo));
		rc_write_once(path, undo, &opened);
		return 0;
	}
	rc_last_status(c, status, sizeof(status));
	return rdt_fail(r, ret, "resctrl: %s/mbm_L3_assignments: %s", md,
			status[0] && strcmp(status, "ok") ? status : strerror(-ret));
}

/*
 * dir's counters go back when it holds some and (partial) lacks others; a
 * directory gone meanwhile, or without the file, has nothing to give back.
 */
static int give_back(struct rdtalloc *r, const char *dir, bool partial, const char *undo,
		     const char *whose)
{
	char path[PATH_MAX], *now = NULL;
	bool opened;
	int ret = 0;

	rc_rel_path(ctx_of(r), dir, "mbm_L3_assignments", path, sizeof(path));
	if (rc_read_all(path, RC_SMALL_MAX, &now, NULL))
		return 0;
	if (strstr(now, "=e") && (!partial || strstr(now, "=_")))
		ret = rc_write_once(path, undo, &opened);
	free(now);
	if (ret && ret != -ENOENT)
		return rdt_fail(r, ret, "resctrl: %s/mbm_L3_assignments: giving back %s "
				"counters: %s", dir, whose, strerror(-ret));
	return 0;
}

/*
 * Our control groups hold counters too (the kernel gives a new control
 * group its own at mkdir), but their own RMIDs count nothing of ours: every
 * group of ours is a MON group, read as such. Those counters go back, for
 * the turns. Control groups not ours, and the root, keep theirs.
 *
 * A MON group of ours holds all its counters or none: the turns count a
 * group with any as holding them and never complete it. The kernel's mkdir
 * can leave it some: from Linux 7.2 it goes on past a domain without a
 * counter (3aec86e4), and before, it stops at that domain after the ones
 * before it. Such a part goes back, and the turn gives the group all or none.
 */
int rc_mon_reclaim(struct rdtalloc *r)
{
	char text[4096], md[RC_MON_DIR_MAX];
	struct rc_view v;
	unsigned int i;
	int ret, g;

	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	assignment_text(r, '_', text, sizeof(text));
	for (i = 0; !ret && i < v.ndirs; i++)
		if (v.dirs[i].ours)
			ret = give_back(r, v.dirs[i].name, false, text, "our control group's");
	for (g = 1; !ret && g < (int)rc_st(r)->ngroups; g++) {
		if (!rc_st(r)->groups[g].live || !*mon_of(r, rc_st(r), g) ||
		    (v.cls_of[g] >= 0 && v.cls[v.cls_of[g]].dir < 0))
			continue;	/* no MON group of ours, or its control group is gone */
		mon_dir(rc_dir_name(&v, v.cls_of[g]), rc_st(r)->groups[g].name, md, sizeof(md));
		ret = give_back(r, md, true, text, "a part of the");
	}
	rc_view_free(&v);
	return ret;
}
