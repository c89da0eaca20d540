// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, telemetry beside the L3 domains' counters: Sub-NUMA
 * Clustering's per-node files (mon_data/mon_L3_XX/mon_sub_L3_NN/, Linux
 * 6.11) and Intel AET's per-package ones (mon_data/mon_PERF_PKG_NN/, Linux
 * 7.0). A group's files are its MON group's; the default group's are the
 * root's less every MON group of the root's, as for the L3 counters
 * (resctrl_mon.c). Values are parsed by monitor/telemetry.h.
 */
#include "backends/resctrl_int.h"
#include "monitor/telemetry.h"

/* Where group g's files are: its directory in md, or the state all its values take. */
static int group_dir(struct rdtalloc *r, const struct rc_view *v, int g, char *md, size_t len)
{
	const char *name = mon_of(r, r->st, g);

	md[0] = '\0';
	if (g == 0)
		return RDTALLOC_MON_OK;
	if (!*name)
		return RDTALLOC_MON_UNSUPPORTED;	/* unmonitored */
	if (v->cls_of[g] >= 0 && v->cls[v->cls_of[g]].dir < 0)
		return RDTALLOC_MON_MISSING;
	mon_dir(rc_dir_name(v, v->cls_of[g]), name, md, len);
	return RDTALLOC_MON_OK;
}

/* dir/rel, one value file: its state, and its value when it has one. */
static int read_value(struct rdtalloc *r, const char *dir, const char *rel, bool fixed, int *state,
		      uint64_t *val)
{
	char path[PATH_MAX], *text;
	int ret;

	*val = 0;
	rc_rel_path(ctx_of(r), dir, rel, path, sizeof(path));
	ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret == -ENOENT) {
		/* removed behind our back: drift, not an error */
		*state = RDTALLOC_MON_MISSING;
		return 0;
	}
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	*state = rdt_tm_parse(text, fixed, val);
	if (*state < 0) {
		rc_trim(text);
		ret = rdt_fail(r, -EIO, "resctrl: %s: '%.40s' is not a value", path, text);
	}
	free(text);
	return ret;
}

/*
 * Group g's value of rel. The default group is the root's RMID: the
 * root's file less its MON groups' (root_mons), never below 0; a MON
 * group without a number leaves the default group none either.
 */
static int read_group(struct rdtalloc *r, const struct rc_view *v, const struct rc_mons *root_mons,
		      int g, const char *rel, bool fixed, int *state, uint64_t *val)
{
	char md[RC_MON_DIR_MAX];
	int st, ret;
	uint64_t x;
	size_t i;

	*state = group_dir(r, v, g, md, sizeof(md));
	*val = 0;
	if (*state != RDTALLOC_MON_OK)
		return 0;
	ret = read_value(r, md, rel, fixed, state, val);
	for (i = 0; !ret && g == 0 && i < root_mons->n; i++) {
		mon_dir("", root_mons->names[i], md, sizeof(md));
		ret = read_value(r, md, rel, fixed, &st, &x);
		if (ret || st == RDTALLOC_MON_MISSING)
			continue;	/* gone since listed: nothing to take away */
		if (st == RDTALLOC_MON_OK)
			*val = *val > x ? *val - x : 0;
		else if (*state == RDTALLOC_MON_OK)
			*state = st;
	}
	return ret;
}

static void free_mons(struct rc_mons *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
}

/* ---- Sub-NUMA nodes --------------------------------------------------------------- */

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The node ids under the root's mon_data/mon_L3_<cache id>, ascending (at most RDT_MAX_SNC). */
static int list_nodes(struct rdtalloc *r, unsigned int cache_id, unsigned int *ids,
		      unsigned int *n)
{
	char sub[64], path[PATH_MAX];
	struct dirent *e;
	unsigned int id;
	char end;
	DIR *dp;

	*n = 0;
	snprintf(sub, sizeof(sub), "mon_data/mon_L3_%02u", cache_id);
	rc_rel_path(ctx_of(r), "", sub, path, sizeof(path));
	dp = opendir(path);
	if (!dp)
		return rdt_fail(r, -errno, "resctrl: cannot read %s: %s", path, strerror(errno));
	while ((e = readdir(dp))) {
		if (sscanf(e->d_name, "mon_sub_L3_%u%c", &id, &end) != 1)
			continue;
		if (*n == RDT_MAX_SNC) {
			closedir(dp);
			return rdt_fail(r, -E2BIG, "resctrl: more than %d nodes in %s", RDT_MAX_SNC,
					path);
		}
		ids[(*n)++] = id;
	}
	closedir(dp);
	qsort(ids, *n, sizeof(*ids), cmp_uint);
	return 0;
}

/* Group gs[i]'s node in L3 domain index d: its three events. */
static int read_node(struct rdtalloc *r, const struct rc_view *v, const struct rc_mons *root_mons,
		     int g, unsigned int d, struct rdt_node_raw *x)
{
	static const char *const events[] = { "llc_occupancy", "mbm_total_bytes",
					       "mbm_local_bytes" };
	char rel[128];
	unsigned int e;
	int ret = 0;

	for (e = 0; !ret && e < 3; e++) {
		x->state[e] = RDTALLOC_MON_UNSUPPORTED;
		if (!(r->m->mon.events & (1u << e)))
			continue;
		snprintf(rel, sizeof(rel), "mon_data/mon_L3_%02u/mon_sub_L3_%02u/%s",
			 r->m->dom[RDT_L3][d].cache_id, x->node, events[e]);
		ret = read_group(r, v, root_mons, g, rel, false, &x->state[e], &x->val[e]);
	}
	return ret;
}

int rc_mon_read_nodes(struct rdtalloc *r, const int *gs, unsigned int n, struct rdt_nodes *nodes)
{
	unsigned int ndom = r->m->ndom[RDT_L3], *ids, *nid, i, d, k;
	struct rc_mons root_mons = { 0 };
	struct rdt_node_raw *x;
	struct rc_view v;
	int ret;

	ids = calloc((size_t)ndom * RDT_MAX_SNC + 1, sizeof(*ids));
	nid = calloc((size_t)ndom + 1, sizeof(*nid));
	if (!ids || !nid) {
		free(ids);
		free(nid);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	ret = rc_view_current(r, &v);
	if (ret)
		goto out;
	ret = rc_list_mons(r, "", &root_mons);
	for (d = 0; !ret && d < ndom; d++)
		ret = list_nodes(r, r->m->dom[RDT_L3][d].cache_id, ids + d * RDT_MAX_SNC, &nid[d]);
	/* group by group, its domains ascending, their nodes ascending */
	for (i = 0; !ret && i < n; i++) {
		for (d = 0; !ret && d < ndom; d++) {
			for (k = 0; !ret && k < nid[d]; k++) {
				x = rdt_nodes_add(nodes);
				if (!x) {
					ret = rdt_fail(r, -ENOMEM, "out of memory");
					break;
				}
				x->gi = i;
				x->dom = d;
				x->node = ids[d * RDT_MAX_SNC + k];
				ret = read_node(r, &v, &root_mons, gs[i], d, x);
			}
		}
	}
	free_mons(&root_mons);
	rc_view_free(&v);
out:
	free(ids);
	free(nid);
	return ret;
}

/* ---- Package telemetry (PERF_PKG) ------------------------------------------------- */

int rc_pkg_read(struct rdtalloc *r, const int *gs, unsigned int n, int *state, uint64_t *val)
{
	const size_t nev = RDTALLOC_PKG_NEVENTS;
	struct rc_mons root_mons = { 0 };
	unsigned int npkg = r->m->npkg, i, p, e;
	char rel[96];
	struct rc_view v;
	int ret;

	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	ret = rc_list_mons(r, "", &root_mons);
	for (i = 0; !ret && i < n; i++) {
		for (p = 0; !ret && p < npkg; p++) {
			for (e = 0; !ret && e < nev; e++) {
				size_t at = ((size_t)i * npkg + p) * nev + e;

				state[at] = RDTALLOC_MON_UNSUPPORTED;
				if (!(r->m->pkg.groups & rdt_machine_pkg_event_group(e)))
					continue;
				snprintf(rel, sizeof(rel), "mon_data/mon_PERF_PKG_%02u/%s",
					 r->m->pkgdom[p].cache_id, rdt_machine_pkg_event_name(e));
				ret = read_group(r, &v, &root_mons, gs[i], rel,
						 rdt_machine_pkg_event_fixed(e), &state[at],
						 &val[at]);
			}
		}
	}
	free_mons(&root_mons);
	rc_view_free(&v);
	return ret;
}

/* ---- What the mount says of them (the machine's description) ---------------------- */

/*
 * SNC nodes per L3 domain: the mon_sub_L3_NN directories under the root's
 * first mon_data/mon_L3_XX (every L3 domain has as many); 1 without SNC.
 */
unsigned int rc_snc_nodes(const char *root)
{
	char path[PATH_MAX], first[NAME_MAX + 1] = "";
	unsigned int n = 0, id;
	struct dirent *e;
	char end;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/mon_data", root);
	dp = opendir(path);
	if (!dp)
		return 1;
	while ((e = readdir(dp)))
		if (sscanf(e->d_name, "mon_L3_%u%c", &id, &end) == 1 &&
		    (!first[0] || strcmp(e->d_name, first) < 0))
			snprintf(first, sizeof(first), "%s", e->d_name);
	closedir(dp);
	if (!first[0] || snprintf(path, sizeof(path), "%s/mon_data/%s", root, first) >=
	    (int)sizeof(path) || !(dp = opendir(path)))
		return 1;
	while ((e = readdir(dp)))
		n += sscanf(e->d_name, "mon_sub_L3_%u%c", &id, &end) == 1;
	closedir(dp);
	return n > 1 ? (n > RDT_MAX_SNC ? RDT_MAX_SNC : n) : 1;
}

/*
 * "pkg.events=GROUPS;pkg.rmids=N;" from info/PERF_PKG_MON (after the first
 * mount, as the kernel enumerates AET then): a group of events is there
 * when its first event is in mon_features; "" without PERF_PKG.
 */
size_t rc_describe_pkg(const char *root, char *out, size_t len)
{
	char path[PATH_MAX + 32], *text = NULL, *end;
	unsigned long long rmids;
	bool energy, perf, ok;
	size_t off;

	snprintf(path, sizeof(path), "%s/info/PERF_PKG_MON/num_rmids", root);
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return 0;
	errno = 0;
	rmids = strtoull(text, &end, 10);
	ok = !errno && rmids && *end == '\n';
	free(text);
	if (!ok)
		return 0;
	snprintf(path, sizeof(path), "%s/info/PERF_PKG_MON/mon_features", root);
	if (rc_read_all(path, RC_SMALL_MAX, &text, NULL))
		return 0;
	energy = !strncmp(text, "core_energy\n", 12) || strstr(text, "\ncore_energy\n");
	perf = !strncmp(text, "stalls_llc_hit\n", 15) || strstr(text, "\nstalls_llc_hit\n");
	free(text);
	if (!energy && !perf)
		return 0;
	off = (size_t)snprintf(out, len, "pkg.events=%s%s%s;pkg.rmids=%llu;",
			       energy ? "energy" : "", energy && perf ? "," : "", perf ? "perf" : "",
			       rmids > RDT_MAX_RMIDS ? RDT_MAX_RMIDS : rmids);
	return off < len ? off : len - 1;
}

/*
 * Is given a description this backend wrote (its monitoring is always
 * "mon.scale=1;mon.width=62", the kernel's byte counts) without key - a
 * state recorded before SNC (mon.snc) and PERF_PKG (pkg.*) were read? Such
 * a machine is described as it was, so that its state opens as before
 * (made afresh, it gets them).
 */
bool rc_recorded_before(const char *given, const char *key)
{
	return given && strstr(given, ";mon.scale=1;mon.width=62;") && !strstr(given, key);
}
