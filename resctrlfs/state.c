// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * state: the model as a JSON file (--state), so that a daemon killed with
 * SIGKILL comes back with the same tree. Written whole after each change,
 * crash-safe: a temporary file in the same directory, fsync, rename over
 * the old one, fsync of the directory. Loading checks that the file was
 * written for the same machine and mount options before touching the model.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "rfs.h"

#define STATE_VERSION 1

static json_object *cpus_json(const struct rfs_model *md, const uint8_t *cpus)
{
	struct rfs_buf b = { 0 };
	json_object *o;

	rfs_bitmap_print_list(cpus, md->ncpus, &b);
	o = json_object_new_string(b.s ? b.s : "");
	rfs_buf_free(&b);
	return o;
}

static json_object *groups_json(const struct rfs_model *md)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < md->nclosid; i++) {
		const struct rfs_group *g = &md->grp[i];
		json_object *o;

		if (!g->used)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "closid", json_object_new_int((int)i));
		json_object_object_add(o, "name", json_object_new_string(g->name));
		json_object_object_add(o, "mode", json_object_new_string(
			g->mode == RFS_MODE_EXCLUSIVE ? "exclusive" : "shareable"));
		json_object_object_add(o, "cpus", cpus_json(md, g->cpus));
		json_object_object_add(o, "uid", json_object_new_int64(g->uid));
		json_object_object_add(o, "gid", json_object_new_int64(g->gid));
		if (md->nrmid)
			json_object_object_add(o, "rmid", json_object_new_int((int)g->rmid));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *mons_json(const struct rfs_model *md)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < md->nrmid; i++) {
		const struct rfs_mon *mg = &md->mon[i];
		json_object *o;

		if (!mg->used)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_int((int)i));
		json_object_object_add(o, "name", json_object_new_string(mg->name));
		json_object_object_add(o, "parent", json_object_new_int((int)mg->parent));
		json_object_object_add(o, "rmid", json_object_new_int((int)mg->rmid));
		json_object_object_add(o, "cpus", cpus_json(md, mg->cpus));
		json_object_object_add(o, "uid", json_object_new_int64(mg->uid));
		json_object_object_add(o, "gid", json_object_new_int64(mg->gid));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The counters of RMIDs in use that were planted or read as a state. */
static json_object *counters_json(const struct rfs_model *md)
{
	json_object *arr = json_object_new_array();
	unsigned int r, d, e;

	for (r = 0; r < md->nrmid; r++) {
		for (d = 0; md->rmid_used[r] && d < md->nmondom; d++) {
			for (e = 0; e < RFS_MON_EVENTS; e++) {
				const struct rfs_counter *c = rfs_mon_counter(md, r, d, e);
				json_object *o;

				if (c->state == RFS_CNT_FRESH)
					continue;
				o = json_object_new_object();
				json_object_object_add(o, "rmid", json_object_new_int((int)r));
				json_object_object_add(o, "cache_id",
						       json_object_new_int((int)md->mondom[d].cache_id));
				json_object_object_add(o, "event",
						       json_object_new_string(rfs_mon_event_name(e)));
				json_object_object_add(o, "value", c->state == RFS_CNT_VALUE ?
					json_object_new_int64((int64_t)c->value) :
					json_object_new_string(rfs_cnt_state_name(c->state)));
				json_object_array_add(arr, o);
			}
		}
	}
	return arr;
}

/* Every control value, of free CLOSIDs too: it is register state. */
static json_object *ctrl_json(const struct rfs_model *md)
{
	json_object *o = json_object_new_object();
	unsigned int i, n;
	char hex[24];

	for (i = 0; i < md->nsch; i++) {
		const struct rfs_schema *s = &md->sch[i];
		json_object *arr = json_object_new_array();

		for (n = 0; n < s->ndom * md->nclosid; n++) {
			/* Masks in hex, bandwidths in decimal: as the schemata shows them. */
			snprintf(hex, sizeof(hex), s->fmt == RFS_FMT_RANGE ? "%llu" : "%llx",
				 (unsigned long long)s->ctrl[n]);
			json_object_array_add(arr, json_object_new_string(hex));
		}
		json_object_object_add(o, s->name, arr);
	}
	return o;
}

static json_object *tasks_json(const struct rfs_model *md)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < md->ntasks; i++) {
		const struct rfs_task *t = &md->tasks[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int(t->tid));
		json_object_object_add(o, "start", json_object_new_int64((int64_t)t->start));
		json_object_object_add(o, "since", json_object_new_int64((int64_t)t->since));
		json_object_object_add(o, "closid", json_object_new_int((int)t->closid));
		if (t->mon != RFS_NO_MON)
			json_object_object_add(o, "mon", json_object_new_int(t->mon));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* [a, b, c]: a small array of ints */
static json_object *ints(int a, int b, int c)
{
	json_object *t = json_object_new_array();

	json_object_array_add(t, json_object_new_int(a));
	json_object_array_add(t, json_object_new_int(b));
	json_object_array_add(t, json_object_new_int(c));
	return t;
}

/* Counter assignment: the mode, auto-assignment, filters and each counter held. */
static json_object *abmc_json(const struct rfs_model *md)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	unsigned int r, d, e;

	json_object_object_add(o, "mbm_event", json_object_new_boolean(md->assign));
	json_object_object_add(o, "on_mkdir", json_object_new_boolean(md->assign_on_mkdir));
	json_object_object_add(o, "filters", ints((int)md->filter[0], (int)md->filter[1], 0));
	for (r = 0; r < md->nrmid; r++)
		for (d = 0; md->rmid_used[r] && d < md->nmondom; d++)
			for (e = 1; e <= 2; e++)
				if (md->assign && rfs_abmc_is_assigned(md, r, d, e))
					json_object_array_add(arr, ints((int)r,
						(int)md->mondom[d].cache_id, (int)e));
	json_object_object_add(o, "assigned", arr);
	return o;
}

static json_object *pkg_counters_json(const struct rfs_model *md)
{
	json_object *arr = json_object_new_array();
	unsigned int r, p, e;

	for (r = 0; r < md->nrmid; r++) {
		for (p = 0; md->rmid_used[r] && p < md->m->npkg; p++) {
			for (e = 0; e < RDT_PKG_NEVENTS; e++) {
				const struct rfs_counter *c = rfs_pkg_counter(md, r, p, e);
				json_object *o;

				if (c->state == RFS_CNT_FRESH)
					continue;
				o = json_object_new_object();
				json_object_object_add(o, "rmid", json_object_new_int((int)r));
				json_object_object_add(o, "package",
					json_object_new_int((int)md->m->pkgdom[p].cache_id));
				json_object_object_add(o, "event", json_object_new_string(
					rdt_machine_pkg_event_name(e)));
				json_object_object_add(o, "value", c->state == RFS_CNT_VALUE ?
					json_object_new_int64((int64_t)c->value) :
					json_object_new_string(rfs_cnt_state_name(c->state)));
				json_object_array_add(arr, o);
			}
		}
	}
	return arr;
}

/* What 6.14-7.2 added; every key optional, so files from before still load. */
static void x_json(const struct rfs_model *md, json_object *o)
{
	json_object *ev = json_object_new_array();
	unsigned int i;

	if (md->assigned)
		json_object_object_add(o, "abmc", abmc_json(md));
	if (md->m->caps[RDT_L3].io_alloc)
		json_object_object_add(o, "io_alloc", json_object_new_boolean(md->io_closid >= 0));
	if (md->pkgcnt)
		json_object_object_add(o, "pkg_counters", pkg_counters_json(md));
	for (i = 0; md->mba_mbps && i < md->nclosid; i++)
		if (md->grp[i].used && md->grp[i].mbps_event)
			json_object_array_add(ev, ints((int)i, (int)md->grp[i].mbps_event, 0));
	json_object_object_add(o, "mba_mbps_events", ev);
}

static json_object *model_json(const struct rfs_model *md)
{
	json_object *o = json_object_new_object();
	char mb[96];

	json_object_object_add(o, "version", json_object_new_int(STATE_VERSION));
	json_object_object_add(o, "machine", json_object_new_string(md->m->desc));
	json_object_object_add(o, "cdp", json_object_new_boolean(md->cdp[RDT_L3]));
	json_object_object_add(o, "cdpl2", json_object_new_boolean(md->cdp[RDT_L2]));
	/* --mb may override the description: the MB capabilities are recorded too. */
	rfs_mb_describe(md->m, mb, sizeof(mb));
	json_object_object_add(o, "mb", json_object_new_string(mb));
	json_object_object_add(o, "mba_mbps", json_object_new_boolean(md->mba_mbps));
	json_object_object_add(o, "last_cmd_status", json_object_new_string(md->status));
	json_object_object_add(o, "groups", groups_json(md));
	json_object_object_add(o, "ctrl", ctrl_json(md));
	json_object_object_add(o, "tasks", tasks_json(md));
	if (md->nrmid) {
		json_object_object_add(o, "mon_groups", mons_json(md));
		json_object_object_add(o, "counters", counters_json(md));
	}
	x_json(md, o);
	return o;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return ret;
}

int rfs_state_save(struct rfs_model *md, const char *path, char *err, size_t errlen)
{
	json_object *o = model_json(md);
	const char *text;
	char tmp[4096];
	int fd, ret;

	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		snprintf(err, errlen, "state %s: path too long", path);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "state %s: cannot create %s: %s", path, tmp, strerror(-ret));
		goto out;
	}
	ret = write_all(fd, text, strlen(text));
	if (!ret)
		ret = write_all(fd, "\n", 1);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "state %s: cannot write: %s", path, strerror(-ret));
		unlink(tmp);
		goto out;
	}
	ret = fsync_dir_of(path);
	if (ret)
		snprintf(err, errlen, "state %s: cannot sync its directory: %s", path,
			 strerror(-ret));
	else
		md->dirty = false;
out:
	json_object_put(o);
	return ret;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static bool c_root(const char *name)
{
	return !*name;
}

static int load_rmid(struct rfs_model *md, json_object *v, unsigned int *rmid,
		     const char *name, char *err, size_t errlen);

static int load_group(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *name = get(o, "name", json_type_string), *cl = get(o, "closid", json_type_int);
	json_object *mode = get(o, "mode", json_type_string), *cpus = get(o, "cpus", json_type_string);
	json_object *uid = get(o, "uid", json_type_int), *gid = get(o, "gid", json_type_int);
	struct rfs_group *g;
	int c;

	if (!name || !cl || !mode || !cpus || !uid || !gid) {
		snprintf(err, errlen, "a group lacks name, closid, mode, cpus, uid or gid");
		return -EINVAL;
	}
	c = json_object_get_int(cl);
	if (c < 0 || (unsigned int)c >= md->nclosid || strlen(json_object_get_string(name)) >
	    RFS_NAME_MAX || (c == 0) != (json_object_get_string(name)[0] == '\0')) {
		snprintf(err, errlen, "group '%s': bad closid %d", json_object_get_string(name), c);
		return -EINVAL;
	}
	g = &md->grp[c];
	if (g->used || (c && rfs_group_find(md, json_object_get_string(name)) >= 0)) {
		snprintf(err, errlen, "group '%s' (closid %d) given twice",
			 json_object_get_string(name), c);
		return -EINVAL;
	}
	g->used = true;
	snprintf(g->name, sizeof(g->name), "%s", json_object_get_string(name));
	g->mode = strcmp(json_object_get_string(mode), "exclusive") ? RFS_MODE_SHAREABLE :
		  RFS_MODE_EXCLUSIVE;
	g->uid = (uid_t)json_object_get_int64(uid);
	g->gid = (gid_t)json_object_get_int64(gid);
	if (rfs_bitmap_parselist(json_object_get_string(cpus), g->cpus, md->ncpus)) {
		snprintf(err, errlen, "group '%s': bad cpus", g->name);
		return -EINVAL;
	}
	return load_rmid(md, get(o, "rmid", json_type_int), &g->rmid, g->name, err, errlen);
}

/* A group's RMID, where the machine monitors. */
static int load_rmid(struct rfs_model *md, json_object *v, unsigned int *rmid,
		     const char *name, char *err, size_t errlen)
{
	int r;

	if (!md->nrmid)
		return 0;
	if (!v) {
		snprintf(err, errlen, "group '%s' has no rmid: written without monitoring; start "
			 "with that --machine or remove the file", name);
		return -EINVAL;
	}
	r = json_object_get_int(v);
	if (r < 0 || (unsigned int)r >= md->nrmid || (r == 0) != c_root(name) ||
	    (r && md->rmid_used[r])) {
		snprintf(err, errlen, "group '%s': bad or reused rmid %d", name, r);
		return -EINVAL;
	}
	md->rmid_used[r] = 1;
	*rmid = (unsigned int)r;
	return 0;
}

static int load_mon(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *idx = get(o, "index", json_type_int), *name = get(o, "name", json_type_string);
	json_object *par = get(o, "parent", json_type_int), *rmid = get(o, "rmid", json_type_int);
	json_object *cpus = get(o, "cpus", json_type_string);
	json_object *uid = get(o, "uid", json_type_int), *gid = get(o, "gid", json_type_int);
	struct rfs_mon *mg;
	unsigned int c;
	int i, p;

	if (!idx || !name || !par || !rmid || !cpus || !uid || !gid) {
		snprintf(err, errlen, "a MON group lacks index, name, parent, rmid, cpus, uid "
			 "or gid");
		return -EINVAL;
	}
	i = json_object_get_int(idx);
	p = json_object_get_int(par);
	if (i < 0 || (unsigned int)i >= md->nrmid || md->mon[i].used || p < 0 ||
	    (unsigned int)p >= md->nclosid || !md->grp[p].used ||
	    !*json_object_get_string(name) || strlen(json_object_get_string(name)) > RFS_NAME_MAX ||
	    rfs_mon_find(md, (unsigned int)p, json_object_get_string(name)) >= 0) {
		snprintf(err, errlen, "MON group '%s': bad index, parent or name",
			 json_object_get_string(name));
		return -EINVAL;
	}
	mg = &md->mon[i];
	snprintf(mg->name, sizeof(mg->name), "%s", json_object_get_string(name));
	mg->parent = (unsigned int)p;
	mg->uid = (uid_t)json_object_get_int64(uid);
	mg->gid = (gid_t)json_object_get_int64(gid);
	if (rfs_bitmap_parselist(json_object_get_string(cpus), mg->cpus, md->ncpus)) {
		snprintf(err, errlen, "MON group '%s': bad cpus", mg->name);
		return -EINVAL;
	}
	for (c = 0; c < md->ncpus; c++)
		mg->cpus[c] &= md->grp[p].cpus[c];
	if (load_rmid(md, rmid, &mg->rmid, mg->name, err, errlen))
		return -EINVAL;
	mg->used = true;
	return 0;
}

/* A count, or one of the n states the kernel prints instead; -EINVAL if neither. */
static int counter_value(json_object *val, const enum rfs_cnt_state *states, size_t n,
			 struct rfs_counter *c)
{
	size_t k;

	if (json_object_is_type(val, json_type_int) && json_object_get_int64(val) >= 0) {
		*c = (struct rfs_counter){ .state = RFS_CNT_VALUE,
					   .value = (uint64_t)json_object_get_int64(val) };
		return 0;
	}
	for (k = 0; k < n; k++) {
		if (json_object_is_type(val, json_type_string) &&
		    !strcmp(json_object_get_string(val), rfs_cnt_state_name(states[k]))) {
			*c = (struct rfs_counter){ .state = states[k] };
			return 0;
		}
	}
	return -EINVAL;
}

/* A planted counter: a count of bytes, or the state the kernel prints instead. */
static int load_counter(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	static const enum rfs_cnt_state states[] = { RFS_CNT_UNAVAILABLE, RFS_CNT_ERROR,
						     RFS_CNT_UNASSIGNED };
	json_object *rmid = get(o, "rmid", json_type_int), *cid = get(o, "cache_id", json_type_int);
	json_object *ev = get(o, "event", json_type_string), *val;
	struct rfs_counter *c;
	unsigned int d;
	int r, e;

	if (!rmid || !cid || !ev || !json_object_object_get_ex(o, "value", &val)) {
		snprintf(err, errlen, "a counter lacks rmid, cache_id, event or value");
		return -EINVAL;
	}
	r = json_object_get_int(rmid);
	e = rfs_mon_event_find(json_object_get_string(ev));
	for (d = 0; d < md->nmondom && md->mondom[d].cache_id != (unsigned int)
	     json_object_get_int(cid); d++)
		;
	if (r < 0 || (unsigned int)r >= md->nrmid || !md->rmid_used[r] || e < 0 ||
	    d == md->nmondom) {
		snprintf(err, errlen, "counter of rmid %d, cache_id %d, %s: no such RMID in use, "
			 "L3 domain or event", r, json_object_get_int(cid),
			 json_object_get_string(ev));
		return -EINVAL;
	}
	c = rfs_mon_counter(md, (unsigned int)r, d, (unsigned int)e);
	if (!counter_value(val, states, sizeof(states) / sizeof(states[0]), c))
		return 0;
	snprintf(err, errlen, "counter of rmid %d: value is neither a byte count nor "
		 "Unavailable, Error or Unassigned", r);
	return -EINVAL;
}

static int load_ctrl(struct rfs_model *md, json_object *ctrl, char *err, size_t errlen)
{
	unsigned int i, n;

	for (i = 0; i < md->nsch; i++) {
		struct rfs_schema *s = &md->sch[i];
		json_object *arr = get(ctrl, s->name, json_type_array);

		if (!arr || json_object_array_length(arr) != (size_t)s->ndom * md->nclosid) {
			snprintf(err, errlen, "ctrl.%s: missing or of the wrong length", s->name);
			return -EINVAL;
		}
		for (n = 0; n < s->ndom * md->nclosid; n++) {
			json_object *v = json_object_array_get_idx(arr, n);
			unsigned long long x;

			if (s->fmt == RFS_FMT_RANGE) {
				if (!json_object_is_type(v, json_type_string) ||
				    rfs_kstrtoull(json_object_get_string(v), 10, &x) ||
				    x > 0xffffffffULL) {
					snprintf(err, errlen, "ctrl.%s[%u]: not a bandwidth",
						 s->name, n);
					return -EINVAL;
				}
			} else if (!json_object_is_type(v, json_type_string) ||
				   rfs_kstrtoull(json_object_get_string(v), 16, &x) ||
				   x > s->cbm_mask) {
				snprintf(err, errlen, "ctrl.%s[%u]: not a mask", s->name, n);
				return -EINVAL;
			}
			s->ctrl[n] = x;
		}
	}
	return 0;
}

static int load_tasks(struct rfs_model *md, json_object *arr, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		json_object *tid = get(o, "tid", json_type_int), *st = get(o, "start", json_type_int);
		json_object *since = get(o, "since", json_type_int), *cl = get(o, "closid", json_type_int);
		json_object *mon = get(o, "mon", json_type_int);
		int c, m = mon ? json_object_get_int(mon) : RFS_NO_MON;

		if (!tid || !st || !since || !cl) {
			snprintf(err, errlen, "tasks[%zu]: lacks tid, start, since or closid", i);
			return -EINVAL;
		}
		c = json_object_get_int(cl);
		if (c < 0 || (unsigned int)c >= md->nclosid || !md->grp[c].used) {
			snprintf(err, errlen, "tasks[%zu]: closid %d is no group", i, c);
			return -EINVAL;
		}
		if (m != RFS_NO_MON && (m < 0 || (unsigned int)m >= md->nrmid || !md->mon[m].used ||
					md->mon[m].parent != (unsigned int)c)) {
			snprintf(err, errlen, "tasks[%zu]: mon %d is no MON group of closid %d",
				 i, m, c);
			return -EINVAL;
		}
		if (rfs_task_set(md, json_object_get_int(tid),
				 (unsigned long long)json_object_get_int64(st),
				 (unsigned long long)json_object_get_int64(since), (unsigned int)c, m))
			return -ENOMEM;
	}
	return 0;
}

/* Files from before MB have neither key: they were written without MB. */
static int check_mb(const struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *mb = get(o, "mb", json_type_string);
	json_object *mbps = get(o, "mba_mbps", json_type_boolean);
	const char *was = mb ? json_object_get_string(mb) : "";
	bool was_mbps = mbps && json_object_get_boolean(mbps);
	char now[96];

	rfs_mb_describe(md->m, now, sizeof(now));
	if (strcmp(was, now)) {
		if (*was)
			snprintf(err, errlen, "written with MB %s; start with --mb %s or "
				 "remove the file", was, was);
		else
			snprintf(err, errlen, "written without MB; start without --mb or "
				 "remove the file");
		return -EINVAL;
	}
	if (was_mbps != md->mba_mbps) {
		snprintf(err, errlen, "written with%s --mba-mbps; start the same way or "
			 "remove the file", was_mbps ? "" : "out");
		return -EINVAL;
	}
	return 0;
}

static int check_header(const struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *ver = get(o, "version", json_type_int), *mach = get(o, "machine", json_type_string);
	json_object *cdp = get(o, "cdp", json_type_boolean), *cdpl2 = get(o, "cdpl2", json_type_boolean);

	if (!ver || json_object_get_int(ver) != STATE_VERSION || !mach || !cdp || !cdpl2) {
		snprintf(err, errlen, "not a version %d state file", STATE_VERSION);
		return -EINVAL;
	}
	if (strcmp(json_object_get_string(mach), md->m->desc)) {
		snprintf(err, errlen, "written for machine '%s'; start with that --machine "
			 "or remove the file", json_object_get_string(mach));
		return -EINVAL;
	}
	if (json_object_get_boolean(cdp) != md->cdp[RDT_L3] ||
	    json_object_get_boolean(cdpl2) != md->cdp[RDT_L2]) {
		snprintf(err, errlen, "written with%s --cdp and with%s --cdpl2; start the same "
			 "way or remove the file", json_object_get_boolean(cdp) ? "" : "out",
			 json_object_get_boolean(cdpl2) ? "" : "out");
		return -EINVAL;
	}
	return check_mb(md, o, err, errlen);
}

static int load_abmc(struct rfs_model *md, json_object *o, char *err, size_t errlen);

/* MON groups, then their counters (abmc before them: an assignment restarts a counter) */
static int load_monitoring(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *abmc = get(o, "abmc", json_type_object);
	json_object *mons = get(o, "mon_groups", json_type_array);
	json_object *cnts = get(o, "counters", json_type_array);
	size_t k;
	int ret = 0;

	if (!md->nrmid)
		return 0;
	for (k = 0; mons && !ret && k < json_object_array_length(mons); k++)
		ret = load_mon(md, json_object_array_get_idx(mons, k), err, errlen);
	if (!ret && abmc)
		ret = load_abmc(md, abmc, err, errlen);
	for (k = 0; cnts && !ret && k < json_object_array_length(cnts); k++)
		ret = load_counter(md, json_object_array_get_idx(cnts, k), err, errlen);
	return ret;
}

/* An array of n ints into v, or false. */
static bool get_ints(json_object *a, int *v, size_t n)
{
	size_t i;

	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) != n)
		return false;
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(a, i);

		if (!json_object_is_type(x, json_type_int))
			return false;
		v[i] = json_object_get_int(x);
	}
	return true;
}

static int mon_dom_index(const struct rfs_model *md, int id)
{
	unsigned int d;

	for (d = 0; d < md->nmondom; d++)
		if ((int)md->mondom[d].cache_id == id)
			return (int)d;
	return -1;
}

static int load_abmc(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *on = get(o, "mbm_event", json_type_boolean);
	json_object *mk = get(o, "on_mkdir", json_type_boolean);
	json_object *f = get(o, "filters", json_type_array), *as = get(o, "assigned", json_type_array);
	int fv[3], v[3], d;
	size_t k;

	if (!md->assigned || !on || !mk || !get_ints(f, fv, 3) || !as || fv[0] < 0 || fv[0] > 0x7f ||
	    fv[1] < 0 || fv[1] > 0x7f) {
		snprintf(err, errlen, "abmc: lacks mbm_event, on_mkdir, filters or assigned, or "
			 "the machine has no assignable counters");
		return -EINVAL;
	}
	for (k = 0; k < md->nrmid; k++)
		rfs_abmc_release(md, (unsigned int)k);
	md->assign = true;	/* so that counters can be set; the mode follows */
	for (k = 0; k < json_object_array_length(as); k++) {
		if (!get_ints(json_object_array_get_idx(as, k), v, 3) || v[0] < 0 ||
		    (unsigned int)v[0] >= md->nrmid || !md->rmid_used[v[0]] ||
		    (d = mon_dom_index(md, v[1])) < 0 || v[2] < 1 || v[2] > 2 ||
		    rfs_abmc_set(md, (unsigned int)v[0], (unsigned int)d, (unsigned int)v[2], true)) {
			snprintf(err, errlen, "abmc.assigned[%zu]: no such RMID in use, domain or "
				 "event, or no counter left", k);
			return -EINVAL;
		}
	}
	md->assign = json_object_get_boolean(on);
	md->assign_on_mkdir = json_object_get_boolean(mk);
	md->filter[0] = (uint32_t)fv[0];
	md->filter[1] = (uint32_t)fv[1];
	return 0;
}

static int load_pkg_counter(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	static const enum rfs_cnt_state pkg_states[] = { RFS_CNT_UNAVAILABLE, RFS_CNT_ERROR };
	json_object *rmid = get(o, "rmid", json_type_int), *pk = get(o, "package", json_type_int);
	json_object *ev = get(o, "event", json_type_string), *val;
	struct rfs_counter *c;
	unsigned int p;
	int r, e;

	if (!rmid || !pk || !ev || !json_object_object_get_ex(o, "value", &val)) {
		snprintf(err, errlen, "a PERF_PKG counter lacks rmid, package, event or value");
		return -EINVAL;
	}
	r = json_object_get_int(rmid);
	e = rfs_pkg_event_find(md, json_object_get_string(ev));
	for (p = 0; p < md->m->npkg && (int)md->m->pkgdom[p].cache_id != json_object_get_int(pk);
	     p++)
		;
	if (r < 0 || (unsigned int)r >= md->nrmid || !md->rmid_used[r] || e < 0 ||
	    p == md->m->npkg) {
		snprintf(err, errlen, "PERF_PKG counter of rmid %d, package %d, %s: no such RMID in "
			 "use, package or event", r, json_object_get_int(pk),
			 json_object_get_string(ev));
		return -EINVAL;
	}
	c = rfs_pkg_counter(md, (unsigned int)r, p, (unsigned int)e);
	if (!counter_value(val, pkg_states, 2, c))
		return 0;
	snprintf(err, errlen, "PERF_PKG counter of rmid %d: value is neither a count nor "
		 "Unavailable or Error", r);
	return -EINVAL;
}

static int load_mbps_events(struct rfs_model *md, json_object *arr, char *err, size_t errlen)
{
	size_t k;
	int v[3];

	for (k = 0; k < json_object_array_length(arr); k++) {
		if (!md->mba_mbps || !get_ints(json_object_array_get_idx(arr, k), v, 3) ||
		    v[0] < 0 || (unsigned int)v[0] >= md->nclosid || !md->grp[v[0]].used ||
		    v[1] < 1 || v[1] > 2 || !(md->m->mon.events & (1u << v[1]))) {
			snprintf(err, errlen, "mba_mbps_events[%zu]: no such group or event", k);
			return -EINVAL;
		}
		md->grp[v[0]].mbps_event = (unsigned int)v[1];
	}
	return 0;
}

static int load_x(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *io = get(o, "io_alloc", json_type_boolean);
	json_object *pc = get(o, "pkg_counters", json_type_array);
	json_object *ev = get(o, "mba_mbps_events", json_type_array);
	unsigned int closid;
	size_t k;
	int ret = 0;

	for (k = 0; pc && md->pkgcnt && !ret && k < json_object_array_length(pc); k++)
		ret = load_pkg_counter(md, json_object_array_get_idx(pc, k), err, errlen);
	if (!ret && ev)
		ret = load_mbps_events(md, ev, err, errlen);
	if (ret || !io || !json_object_get_boolean(io))
		return ret;
	closid = md->sch[md->nsch - 1].num_closid - 1;
	for (k = 0; k < md->nsch; k++)
		if (md->sch[k].res == RDT_L3)
			closid = md->sch[k].num_closid - 1;
	if (!md->m->caps[RDT_L3].io_alloc || closid >= md->nclosid || md->grp[closid].used) {
		snprintf(err, errlen, "io_alloc: enabled on a machine without it, or its CLOSID "
			 "%u is a group's", closid);
		return -EINVAL;
	}
	md->io_closid = (int)closid;
	return 0;
}

static int load_json(struct rfs_model *md, json_object *o, char *err, size_t errlen)
{
	json_object *groups = get(o, "groups", json_type_array), *ctrl = get(o, "ctrl", json_type_object);
	json_object *tasks = get(o, "tasks", json_type_array);
	json_object *status = get(o, "last_cmd_status", json_type_string);
	unsigned int i;
	size_t k;
	int ret;

	ret = check_header(md, o, err, errlen);
	if (ret)
		return ret;
	if (!groups || !ctrl || !tasks || !status) {
		snprintf(err, errlen, "lacks groups, ctrl, tasks or last_cmd_status");
		return -EINVAL;
	}
	for (i = 0; i < md->nclosid; i++) {
		md->grp[i].used = false;
		memset(md->grp[i].cpus, 0, md->ncpus);
	}
	for (k = 0; k < json_object_array_length(groups); k++) {
		ret = load_group(md, json_object_array_get_idx(groups, k), err, errlen);
		if (ret)
			return ret;
	}
	if (!md->grp[0].used) {
		snprintf(err, errlen, "no root group (closid 0)");
		return -EINVAL;
	}
	ret = load_ctrl(md, ctrl, err, errlen);
	if (!ret)
		ret = load_monitoring(md, o, err, errlen);
	if (!ret)
		ret = load_tasks(md, tasks, err, errlen);
	if (!ret)
		ret = load_x(md, o, err, errlen);
	if (!ret) {
		snprintf(md->status, sizeof(md->status), "%s", json_object_get_string(status));
		md->status_len = strlen(md->status);
	}
	return ret;
}

/* 0 and the model loaded; 1 when there is no file yet; -errno on error. */
int rfs_state_load(struct rfs_model *md, const char *path, char *err, size_t errlen)
{
	char msg[512] = "";
	json_object *o;
	int ret;

	if (access(path, F_OK) && errno == ENOENT)
		return 1;
	o = json_object_from_file(path);
	if (!o) {
		snprintf(err, errlen, "state %s: not JSON (%s); remove it to start afresh",
			 path, json_util_get_last_err());
		return -EINVAL;
	}
	ret = load_json(md, o, msg, sizeof(msg));
	json_object_put(o);
	if (ret)
		snprintf(err, errlen, "state %s: %s", path, msg);
	return ret;
}
