// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, monitoring: each group of ours a MON group of its class, and the kernel's counters.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"
#include "monitor/telemetry.h"

/* ---- Monitoring groups: each group of ours a MON group of its class ------------ */

void rc_mons_free(struct rc_mons *m, unsigned int n)
{
	unsigned int k;
	size_t i;

	for (k = 0; m && k < n; k++) {
		for (i = 0; i < m[k].n; i++)
			free(m[k].names[i]);
		free(m[k].names);
	}
	free(m);
}

bool rc_mons_has(const struct rc_mons *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return true;
	return false;
}

/* The entries of dir/mon_groups, bounded; a directory without one (just made) has none. */
int rc_list_mons(struct rdtalloc *r, const char *dir, struct rc_mons *out)
{
	char path[PATH_MAX], md[RC_MON_DIR_MAX];
	struct dirent *e;
	char **v;
	DIR *dp;
	int ret = 0;

	mon_dir(dir, "", md, sizeof(md));
	rc_rel_path(ctx_of(r), md, "", path, sizeof(path));
	dp = opendir(path);
	if (!dp)
		return errno == ENOENT ? 0 : rdt_fail(r, -errno, "resctrl: cannot read %s: %s",
						      path, strerror(errno));
	while (!ret && (e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		if (out->n == RC_DIR_MAX) {
			ret = rdt_fail(r, -E2BIG, "resctrl: more than %d MON groups in %s",
				       RC_DIR_MAX, path);
			break;
		}
		v = realloc(out->names, (out->n + 1) * sizeof(*v));
		if (!v || !(v[out->n] = strdup(e->d_name))) {
			if (v)
				out->names = v;
			ret = rdt_fail(r, -ENOMEM, "out of memory");
			break;
		}
		out->names = v;
		out->n++;
	}
	closedir(dp);
	return ret;
}

/* The MON groups of every class (index k + 1; 0: the root's), as the kernel has them. */
static int read_mons(struct rdtalloc *r, const struct rc_view *v, struct rc_mons **out)
{
	struct rc_mons *m = calloc(v->ncls + 1, sizeof(*m));
	unsigned int k;
	int ret = 0;

	if (!m)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (k = 0; !ret && k <= v->ncls; k++) {
		int cls = (int)k - 1;

		if (cls >= 0 && v->dirs[v->cls[cls].dir].created)
			continue;	/* made by this call: empty */
		ret = rc_list_mons(r, rc_dir_name(v, cls), &m[k]);
	}
	if (ret) {
		rc_mons_free(m, v->ncls + 1);
		return ret;
	}
	*out = m;
	return 0;
}

/*
 * Every group of ours with an RMID gets its MON group in its class's
 * control group (the default group is the root's own RMID). A kernel out
 * of RMIDs refuses the mkdir: a named error, and the undo log takes back
 * what this call made.
 */
static int make_mons(struct rdtalloc *r, const struct rc_view *v, struct rc_mons *m)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX], status[256];
	int g;

	for (g = 1; g < (int)rc_st(r)->ngroups; g++) {
		const char *name = mon_of(r, rc_st(r), g);
		struct rc_undo u = { .op = UNDO_RMDIR };
		int k = v->cls_of[g], err;

		if (!rc_st(r)->groups[g].live || !*name || rc_mons_has(&m[k + 1], name))
			continue;
		mon_dir(rc_dir_name(v, k), name, u.dir, sizeof(u.dir));
		rc_rel_path(c, u.dir, "", path, sizeof(path));
		if (mkdir(path, 0755)) {
			err = -errno;
			rc_last_status(c, status, sizeof(status));
			if (err == -ENOSPC)
				return rdt_fail(r, err, "resctrl is out of RMIDs: no monitoring group "
						"for group '%s' (mkdir %s: %s); every control group "
						"and monitoring group holds one of its %u: remove a "
						"group, ours or another tool's", name, path,
						status[0] ? status : strerror(-err), c->m->mon.rmids);
			return rdt_fail(r, err, "resctrl: mkdir %s: %s", path,
					status[0] && strcmp(status, "ok") ? status : strerror(-err));
		}
		if (rc_undo_push(c, &u)) {
			rmdir(path);
			return rdt_fail(r, -ENOMEM, "out of memory");
		}
		c->mon_fresh[g] = true;
		c->changes++;
	}
	return 0;
}

/* Does class k hold a group of ours whose MON group is called name? */
static bool mon_wanted(struct rdtalloc *r, const struct rc_view *v, int k, const char *name)
{
	int g = rdt_group_find(rc_st(r), name);

	return g > 0 && rc_st(r)->groups[g].live && v->cls_of[g] == k && *mon_of(r, rc_st(r), g);
}

/*
 * MON groups no group of ours wants there any more go, once the tasks have
 * moved. In our control groups every MON group is ours; in the root only
 * those named after a group of ours (another tool's are not touched).
 */
static int remove_mons(struct rdtalloc *r, const struct rc_view *v, const struct rdt_state *before,
		       const struct rc_mons *m)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX];
	unsigned int k;
	size_t i;

	for (k = 0; k <= v->ncls; k++) {
		int cls = (int)k - 1;

		for (i = 0; i < m[k].n; i++) {
			const char *name = m[k].names[i];
			struct rc_undo u = { .op = UNDO_MKDIR };

			if (mon_wanted(r, v, cls, name))
				continue;
			if (cls < 0 && rdt_group_find(rc_st(r), name) < 0 &&
			    !(before && rdt_group_find(before, name) >= 0))
				continue;
			mon_dir(rc_dir_name(v, cls), name, u.dir, sizeof(u.dir));
			rc_rel_path(c, u.dir, "", path, sizeof(path));
			if (rmdir(path))
				return rdt_fail(r, -errno, "resctrl: rmdir %s: %s", path,
						strerror(errno));
			if (rc_undo_push(c, &u))
				return rdt_fail(r, -ENOMEM, "out of memory");
			c->changes++;
		}
	}
	return 0;
}

/* A group's bound CPUs are its MON group's too, so that they count with it. */
static int mon_cpus(struct rdtalloc *r, const struct rc_view *v, const struct rdt_state *before)
{
	const struct rdt_state *st = rc_st(r);
	char md[RC_MON_DIR_MAX], *text;
	int *cpus, g, ret = 0;
	size_t len = (size_t)st->m->ncpus * 12 + 2;
	unsigned int c, n;

	cpus = malloc(((size_t)st->m->ncpus + 1) * sizeof(int));
	text = malloc(len);
	if (!cpus || !text) {
		free(cpus);
		free(text);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (g = 1; !ret && g < (int)st->ngroups; g++) {
		bool had = false;

		if (!st->groups[g].live || !*mon_of(r, st, g))
			continue;
		for (c = 0, n = 0; c < st->m->ncpus; c++) {
			if (st->cpu_group[c] == g)
				cpus[n++] = (int)c;
			had |= before && c < before->m->ncpus && before->cpu_group[c] == g;
		}
		if (!n && !had && !rc_mon_fresh(r, g))
			continue;	/* none then, none now */
		rdt_cpulist_format(cpus, n, text, len - 1);
		strcat(text, "\n");
		mon_dir(rc_dir_name(v, v->cls_of[g]), st->groups[g].name, md, sizeof(md));
		ret = rc_write_logged(r, md, "cpus_list", text, rc_same_cpus);
	}
	free(cpus);
	free(text);
	return ret;
}

int rc_realise(struct rdtalloc *r, const struct rdt_state *before)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_view v = { 0 }, bv = { 0 };
	const char **was_dir = NULL;
	struct rc_mons *mons = NULL;
	unsigned int k, d;
	int ret;
	char *text = NULL;

	c->changes = 0;
	c->moved = 0;
	ret = rc_plan(r, rc_st(r), before, &v, &bv);
	if (ret)
		goto out;
	/* where each class of the state before is now, for the task moves */
	was_dir = calloc(bv.ncls + 1, sizeof(*was_dir));
	if (!was_dir) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	for (d = 0; d < v.ndirs; d++)
		if (v.dirs[d].was >= 0)
			was_dir[v.dirs[d].was] = v.dirs[d].name;
	for (k = 0; !ret && k < v.ncls; k++)
		if (v.cls[k].dir < 0)
			ret = rc_new_dir(r, &v, (int)k);
	/* shareable first, so that no schema below meets a mode on its way out */
	if (!ret)
		ret = rc_write_modes(r, &v, before, &bv, false);
	/*
	 * The root's schemata are written only when the default group's schema
	 * was changed by this call: at open they were adopted (adopt_root).
	 */
	if (!ret && before && memcmp(v.keys, bv.keys, v.nkey * sizeof(*v.keys)))
		ret = rc_write_schemata(r, "", v.keys, NULL);
	for (k = 0; !ret && k < v.ncls; k++) {
		const struct rc_dir *dir = &v.dirs[v.cls[k].dir];

		ret = rc_write_schemata(r, dir->name, v.cls[k].key,
				     dir->key_ok && !dir->created ? dir->key : NULL);
	}
	/* exclusive last, when every schema is in place */
	if (!ret)
		ret = rc_write_modes(r, &v, before, &bv, true);
	for (k = 0; !ret && k < v.ncls; k++) {
		ret = rc_class_cpus(r, &v, (int)k, &text);
		if (!ret)
			ret = rc_write_logged(r, v.dirs[v.cls[k].dir].name, "cpus_list", text,
					   rc_same_cpus);
		free(text);
		text = NULL;
	}
	/* the MON groups, before any task moves into one */
	if (!ret && c->mon) {
		c->mon_fresh = calloc(rc_st(r)->ngroups ? rc_st(r)->ngroups : 1, sizeof(bool));
		ret = c->mon_fresh ? read_mons(r, &v, &mons) : rdt_fail(r, -ENOMEM, "out of memory");
		if (!ret)
			ret = make_mons(r, &v, mons);
		if (!ret)
			ret = mon_cpus(r, &v, before);
	}
	for (d = 0; !ret && before && d < v.ndirs; d++) {
		struct rc_dir *dir = &v.dirs[d];
		bool same;

		if (!dir->ours || dir->created || dir->was < 0)
			continue;
		/* the same groups as before: its children stay where they are */
		same = !dir->remove && bv.cls[dir->was].ngroups == v.cls[dir->cls].ngroups;
		for (k = 0; same && k < bv.cls[dir->was].ngroups; k++)
			same = rc_class_in(rc_st(r), &v, before,
					   bv.cls[dir->was].groups[k]) == dir->cls;
		if (!same)
			ret = rc_move_unbound(r, &v, before, &bv, d);
	}
	/*
	 * At open (no state before) the bound tasks are placed again only when
	 * a control group of ours had to be made (a reboot, a remount): tasks
	 * files are the dearest to read, and nobody but us moves our tasks.
	 */
	if (!ret && (before || rc_created_any(&v) || rc_any_fresh(r)))
		ret = rc_move_bound(r, &v, before, &bv, was_dir);
	if (!ret)
		ret = rc_move_cgroups(r, &v, before);
	if (!ret && mons)
		ret = remove_mons(r, &v, before, mons);
	/* remove the directories no class holds: their CPUs and tasks go to the root */
	for (d = 0; !ret && d < v.ndirs; d++)
		if (v.dirs[d].remove)
			ret = rc_remove_dir(r, &v, d);
	if (ret) {
		rc_undo_replay(r);
	} else {
		c->ours = v.nours;
		c->foreign = v.nforeign;
		for (d = 0; d < v.ndirs; d++)
			c->ours -= v.dirs[d].remove;
		rc_names_not_ours(&v, c->foreign_names, sizeof(c->foreign_names));
	}
out:
	rc_mons_free(mons, v.ncls + 1);
	free(c->mon_fresh);
	c->mon_fresh = NULL;
	free(was_dir);
	rc_view_free(&v);
	rc_view_free(&bv);
	return ret;
}

/*
 * The root group's schemata belong to whoever set them (an administrator,
 * another tool, us through the default group): at open, what the kernel's
 * root holds becomes the default group's schema, never the other way round.
 * *adopted: the state changed. A root the state cannot hold (an exclusive
 * group of ours on its ways) is an error that changes nothing.
 */
int rc_adopt_root(struct rdtalloc *r, bool *adopted)
{
	struct rdt_state *st = rc_st(r);
	size_t n = rc_key_len(st);
	uint64_t *key = calloc(n, sizeof(*key)), *cur = calloc(n, sizeof(*cur));
	bool *seen = calloc(st->nslots + 1, sizeof(*seen));
	char *text = NULL, *shown;
	unsigned int s;
	int ret;

	*adopted = false;
	if (!key || !cur || !seen) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	ret = rc_read_small(r, "", "schemata", &text);
	if (ret)
		goto out;
	shown = strdup(text);
	if (rc_parse_schemata_seen(st, text, key, seen)) {
		ret = rdt_fail(r, -EPROTO, "resctrl: the root group's schemata cannot be read: "
			       "'%.200s'", shown ? shown : "");
		free(shown);
		goto out;
	}
	free(shown);
	rc_group_key(st, 0, cur);
	for (s = 0; s < st->nslots; s++) {
		if (!seen[s])
			continue;	/* a resource the kernel does not list: ours stays */
		if (!st->cdp[st->slot[s].res])
			key[s * 2 + 1] = key[s * 2];
		seen[s] = key[s * 2] != cur[s * 2] ||
			  (st->cdp[st->slot[s].res] && key[s * 2 + 1] != cur[s * 2 + 1]);
		*adopted |= seen[s];
	}
	if (*adopted && rdt_group_set_masks(st, 0, key, seen))
		ret = rdt_fail(r, -EBUSY, "resctrl: the root group's schemata, set outside this "
			       "state, cannot be the default group's: %s", st->err);
out:
	free(text);
	free(key);
	free(cur);
	free(seen);
	return ret;
}

/* ---- Beside the L3 domains: SNC nodes and PERF_PKG ------------------------------- */

/*
 * Sub-NUMA Clustering's per-node files (mon_data/mon_L3_XX/mon_sub_L3_NN/,
 * Linux 6.11) and Intel AET's per-package ones (mon_data/mon_PERF_PKG_NN/,
 * Linux 7.0), for monitor/snc.c and pkg.c. A group's files are its MON
 * group's; the default group's are the root's less every MON group of the
 * root's, as for the L3 counters below.
 */

#define RC_MILLION 1000000ull

int rc_parse_value(const char *text, bool fixed, uint64_t *v)
{
	unsigned long long ip = 0, frac = 0;
	unsigned int places = 0;
	const char *p = text;

	if (!strcmp(text, "Unavailable\n"))
		return RDTALLOC_MON_UNAVAILABLE;
	if (!strcmp(text, "Error\n"))
		return RDTALLOC_MON_ERROR;
	if (!strcmp(text, "Unassigned\n"))
		return RDTALLOC_MON_UNASSIGNED;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int dg = (unsigned int)(*p - '0');

		if (ip > (ULLONG_MAX - dg) / 10)
			return -EINVAL;
		ip = ip * 10 + dg;
	}
	if (fixed && *p == '.') {
		if (!isdigit((unsigned char)p[1]))
			return -EINVAL;
		for (p++; isdigit((unsigned char)*p); p++, places++)
			if (places < 6)
				frac = frac * 10 + (unsigned int)(*p - '0');
		for (; places < 6; places++)
			frac *= 10;
		if (ip > (ULLONG_MAX - frac) / RC_MILLION)
			return -EINVAL;
		ip = ip * RC_MILLION + frac;
	} else if (fixed) {
		if (ip > ULLONG_MAX / RC_MILLION)
			return -EINVAL;
		ip *= RC_MILLION;
	}
	if (strcmp(p, "\n"))
		return -EINVAL;
	*v = ip;
	return RDTALLOC_MON_OK;
}

static struct rdt_node_raw *nodes_add(struct rdt_nodes *nodes)
{
	struct rdt_node_raw *grown;

	if (nodes->n >= RDT_NODES_MAX)
		return NULL;
	if (nodes->n == nodes->cap) {
		size_t cap = nodes->cap ? nodes->cap * 2 : 64;

		grown = realloc(nodes->v, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		nodes->v = grown;
		nodes->cap = cap;
	}
	memset(&nodes->v[nodes->n], 0, sizeof(*nodes->v));
	return &nodes->v[nodes->n++];
}

/* Where group g's files are: its directory in md, or the state all its values take. */
static int group_dir(struct rdtalloc *r, const struct rc_view *v, int g, char *md, size_t len)
{
	const char *name = mon_of(r, rc_st(r), g);

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
	*state = rc_parse_value(text, fixed, val);
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
		if (!(rc_m(r)->mon.events & (1u << e)))
			continue;
		snprintf(rel, sizeof(rel), "mon_data/mon_L3_%02u/mon_sub_L3_%02u/%s",
			 rc_m(r)->dom[RDT_L3][d].cache_id, x->node, events[e]);
		ret = read_group(r, v, root_mons, g, rel, false, &x->state[e], &x->val[e]);
	}
	return ret;
}

int rc_mon_read_nodes(struct rdtalloc *r, const int *gs, unsigned int n, struct rdt_nodes *nodes)
{
	const struct rdt_machine *m = rc_m(r);
	unsigned int ndom = m->ndom[RDT_L3], *ids, *nid, i, d, k;
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
		ret = list_nodes(r, m->dom[RDT_L3][d].cache_id, ids + d * RDT_MAX_SNC, &nid[d]);
	/* group by group, its domains ascending, their nodes ascending */
	for (i = 0; !ret && i < n; i++) {
		for (d = 0; !ret && d < ndom; d++) {
			for (k = 0; !ret && k < nid[d]; k++) {
				x = nodes_add(nodes);
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
	const struct rdt_machine *m = rc_m(r);
	unsigned int npkg = m->npkg, i, p, e;
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
				if (!(m->pkg.groups & rdt_machine_pkg_event_group(e)))
					continue;
				snprintf(rel, sizeof(rel), "mon_data/mon_PERF_PKG_%02u/%s",
					 m->pkgdom[p].cache_id, rdt_machine_pkg_event_name(e));
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

/* ---- Monitoring: the kernel's counters ------------------------------------------- */

/* A counter file: a byte count, or the state the kernel prints instead. */
static int parse_counter(const char *text, uint64_t *v)
{
	return rc_parse_value(text, false, v);
}

/* dir's (a control or MON group's) three counters in L3 domain index d. */
static int read_counters(struct rdtalloc *r, const char *dir, unsigned int d, int *state,
			 uint64_t *val)
{
	static const char *const events[] = { "llc_occupancy", "mbm_total_bytes",
					       "mbm_local_bytes" };
	char sub[RC_MON_DIR_MAX + 32], path[PATH_MAX], *text;
	unsigned int e;
	int ret;

	snprintf(sub, sizeof(sub), "%s%smon_data/mon_L3_%02u", dir, *dir ? "/" : "",
		 rc_m(r)->dom[RDT_L3][d].cache_id);
	for (e = 0; e < 3; e++) {
		val[e] = 0;
		state[e] = RDTALLOC_MON_UNSUPPORTED;
		if (!(rc_m(r)->mon.events & (1u << e)))
			continue;
		rc_rel_path(ctx_of(r), sub, events[e], path, sizeof(path));
		ret = rc_read_all(path, RC_SMALL_MAX, &text, NULL);
		if (ret == -ENOENT) {
			/* the monitoring group removed behind our back: drift, not an error */
			state[0] = state[1] = state[2] = RDTALLOC_MON_MISSING;
			val[0] = val[1] = val[2] = 0;
			return 0;
		}
		if (ret)
			return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path,
					strerror(-ret));
		state[e] = parse_counter(text, &val[e]);
		if (state[e] < 0) {
			rc_trim(text);
			ret = rdt_fail(r, -EIO, "resctrl: %s: '%.40s' is not a counter", path, text);
		}
		free(text);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The default group is the root's own RMID: the root's files sum it and
 * every MON group of the root's (ours, for groups sharing its CLOSID, and
 * other tools'), so those are taken away. Occupancy moves both ways: a
 * difference below zero (read a moment apart) is 0.
 */
static int read_default(struct rdtalloc *r, unsigned int d, int *state, uint64_t *val)
{
	struct rc_mons m = { 0 };
	char md[RC_MON_DIR_MAX];
	int st[3], ret;
	uint64_t v[3];
	unsigned int e;
	size_t i;

	ret = read_counters(r, "", d, state, val);
	if (!ret)
		ret = rc_list_mons(r, "", &m);
	for (i = 0; !ret && i < m.n; i++) {
		mon_dir("", m.names[i], md, sizeof(md));
		ret = read_counters(r, md, d, st, v);
		for (e = 0; !ret && e < 3; e++) {
			if (st[e] == RDTALLOC_MON_OK)
				val[e] = val[e] > v[e] ? val[e] - v[e] : 0;
			else if (state[e] == RDTALLOC_MON_OK)
				state[e] = st[e];	/* no number to take away: none */
		}
	}
	for (i = 0; i < m.n; i++)
		free(m.names[i]);
	free(m.names);
	return ret;
}

/*
 * Every control group holds an RMID of the kernel's, the root and other
 * tools' too, and there are at most num_closids of them: those are kept
 * from our groups' MON groups, so that a new class never finds none.
 */
unsigned int rc_mon_reserved(void *ctx)
{
	const struct rc_ctx *c = ctx;

	return c->num_closids;
}

int rc_mon_read(struct rdtalloc *r, const int *gs, unsigned int n, int *state,
		       uint64_t *val)
{
	unsigned int ndom = rc_m(r)->ndom[RDT_L3], i, d;
	char md[RC_MON_DIR_MAX];
	struct rc_view v;
	int ret;

	ret = rc_view_current(r, &v);
	if (ret)
		return ret;
	for (i = 0; !ret && i < n; i++) {
		int g = gs[i];
		const char *name = mon_of(r, rc_st(r), g);

		for (d = 0; !ret && d < ndom; d++) {
			size_t at = ((size_t)i * ndom + d) * 3;

			if (g == 0) {
				ret = read_default(r, d, state + at, val + at);
			} else if (*name && v.cls_of[g] >= 0 && v.cls[v.cls_of[g]].dir < 0) {
				state[at] = state[at + 1] = state[at + 2] = RDTALLOC_MON_MISSING;
				val[at] = val[at + 1] = val[at + 2] = 0;
			} else if (*name) {
				mon_dir(rc_dir_name(&v, v.cls_of[g]), name, md, sizeof(md));
				ret = read_counters(r, md, d, state + at, val + at);
			} else {
				state[at] = state[at + 1] = state[at + 2] =
					RDTALLOC_MON_UNSUPPORTED;
			}
		}
	}
	rc_view_free(&v);
	return ret;
}

