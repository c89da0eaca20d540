// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs: the FUSE face of the model - paths to nodes, the file tables of a
 * group and of info/, and the operations. Every operation runs under one
 * mutex and, when --state is given, saves the model after a change. Errors
 * the VFS would give on real resctrl (EACCES on a read-only file, EPERM for
 * mkdir outside the root, ...) are given here so that programs see them.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rfs_fs.h"

enum node_kind {
	N_ROOT, N_GROUP, N_INFO, N_INFO_RES, N_INFO_MON, N_FILE,
	N_MON_GROUPS,		/* <group>/mon_groups */
	N_MON,			/* <group>/mon_groups/<name> */
	N_MON_DATA,		/* <group or MON group>/mon_data */
	N_MON_DOM,		/* .../mon_data/mon_L3_XX */
	N_MON_SUB,		/* .../mon_L3_XX/mon_sub_L3_YY (SNC) */
	N_PKG_DOM,		/* .../mon_data/mon_PERF_PKG_XX */
	N_INFO_PKG,		/* info/PERF_PKG_MON */
	N_EVCFG,		/* info/L3_MON/event_configs */
	N_EVCFG_EV,		/* info/L3_MON/event_configs/<event> */
};

enum file_id {
	F_CPUS, F_CPUS_LIST, F_MODE, F_SCHEMATA, F_SIZE, F_TASKS,
	F_LAST_CMD_STATUS,
	F_CBM_MASK, F_MIN_CBM_BITS, F_NUM_CLOSIDS, F_SHAREABLE_BITS, F_BIT_USAGE,
	F_SPARSE_MASKS, F_MIN_BANDWIDTH, F_BANDWIDTH_GRAN, F_DELAY_LINEAR,
	F_THREAD_THROTTLE_MODE,
	F_NUM_RMIDS, F_MON_FEATURES, F_MAX_THRESHOLD,
	F_MON_EVENT,
	F_MBM_ASSIGN_MODE, F_NUM_MBM_CNTRS, F_AVAIL_MBM_CNTRS, F_ASSIGN_ON_MKDIR,
	F_EVENT_FILTER, F_MBM_ASSIGNMENTS, F_MBPS_EVENT, F_IO_ALLOC, F_IO_ALLOC_CBM,
	F_PKG_EVENT,
};

struct rfs_file {
	const char *name;
	enum file_id id;
	unsigned int mode;
};

/* The files of every control group, the root group included. */
static const struct rfs_file group_files[] = {
	{ "cpus", F_CPUS, 0644 },
	{ "cpus_list", F_CPUS_LIST, 0644 },
	{ "mode", F_MODE, 0644 },
	{ "schemata", F_SCHEMATA, 0644 },
	{ "size", F_SIZE, 0444 },
	{ "tasks", F_TASKS, 0644 },
};

/* info/<schema>/ of a cache (bitmap) schema ... */
static const struct rfs_file cache_files[] = {
	{ "bit_usage", F_BIT_USAGE, 0444 },
	{ "cbm_mask", F_CBM_MASK, 0444 },
	{ "min_cbm_bits", F_MIN_CBM_BITS, 0444 },
	{ "num_closids", F_NUM_CLOSIDS, 0444 },
	{ "shareable_bits", F_SHAREABLE_BITS, 0444 },
	{ "sparse_masks", F_SPARSE_MASKS, 0444 },
};

/*
 * ... and of the memory bandwidth (range) schema. thread_throttle_mode is
 * last so that AMD, which has no throttle mode and no such file
 * (thread_throttle_mode_init()), sees the table without its last entry.
 */
static const struct rfs_file mb_files[] = {
	{ "bandwidth_gran", F_BANDWIDTH_GRAN, 0444 },
	{ "delay_linear", F_DELAY_LINEAR, 0444 },
	{ "min_bandwidth", F_MIN_BANDWIDTH, 0444 },
	{ "num_closids", F_NUM_CLOSIDS, 0444 },
	{ "thread_throttle_mode", F_THREAD_THROTTLE_MODE, 0444 },
};

/* The files of a MON group (and its mon_data directory). */
static const struct rfs_file mon_group_files[] = {
	{ "cpus", F_CPUS, 0644 },
	{ "cpus_list", F_CPUS_LIST, 0644 },
	{ "tasks", F_TASKS, 0644 },
};

/* mon_data/mon_L3_XX/: one file per event, in the order of rfs_mon_event_name(). */
static const struct rfs_file event_files[RFS_MON_EVENTS] = {
	{ "llc_occupancy", F_MON_EVENT, 0444 },
	{ "mbm_total_bytes", F_MON_EVENT, 0444 },
	{ "mbm_local_bytes", F_MON_EVENT, 0444 },
};

/* info/L3_MON/, where the machine has L3 monitoring */
static const struct rfs_file mon_files[] = {
	{ "max_threshold_occupancy", F_MAX_THRESHOLD, 0444 },	/* 0644 in the kernel */
	{ "mon_features", F_MON_FEATURES, 0444 },
	{ "num_rmids", F_NUM_RMIDS, 0444 },
};

/* info/L3_MON/ where counters are assignable (6.18); mbm_assign_mode is always there */
static const struct rfs_file cntr_files[] = {
	{ "available_mbm_cntrs", F_AVAIL_MBM_CNTRS, 0444 },
	{ "mbm_assign_on_mkdir", F_ASSIGN_ON_MKDIR, 0644 },
	{ "num_mbm_cntrs", F_NUM_MBM_CNTRS, 0444 },
};
static const struct rfs_file assign_mode_file = { "mbm_assign_mode", F_MBM_ASSIGN_MODE, 0644 };
static const struct rfs_file event_filter_file = { "event_filter", F_EVENT_FILTER, 0644 };
/* 7.2 where the filters are not configurable (94a12065): kernfs then refuses write opens */
static const struct rfs_file event_filter_ro_file = { "event_filter", F_EVENT_FILTER, 0444 };
/* every CTRL_MON and MON group's, where counters are assignable */
static const struct rfs_file assignments_file = { "mbm_L3_assignments", F_MBM_ASSIGNMENTS,
						  0644 };
/* a CTRL_MON group's when mounted with mba_MBps (6.14) */
static const struct rfs_file mbps_event_file = { "mba_MBps_event", F_MBPS_EVENT, 0644 };
/* every cache schema's info directory when L3 has io_alloc (6.19) */
static const struct rfs_file io_files[] = {
	{ "io_alloc", F_IO_ALLOC, 0644 },
	{ "io_alloc_cbm", F_IO_ALLOC_CBM, 0644 },
};
/* info/PERF_PKG_MON/ (7.0) */
static const struct rfs_file pkg_info_files[] = {
	{ "mon_features", F_MON_FEATURES, 0444 },
	{ "num_rmids", F_NUM_RMIDS, 0444 },
};
static struct rfs_file pkg_event_files[RDT_PKG_NEVENTS];

static const struct rfs_file info_files[] = {
	{ "last_cmd_status", F_LAST_CMD_STATUS, 0444 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct node {
	enum node_kind kind;
	unsigned int closid;		/* N_ROOT, N_GROUP, group files */
	int sch;			/* N_INFO_RES and its files, else -1 */
	bool mon;			/* N_INFO_MON and its files */
	int mg;				/* MON group (N_MON and below), else -1 */
	unsigned int dom;		/* N_MON_DOM: L3 domain index; N_MON_SUB: node index */
	bool l3sum;			/* an event of mon_L3_XX summing its SNC nodes */
	int pkg;			/* N_PKG_DOM and its files: package index, else -1 */
	unsigned int ev;		/* N_EVCFG_EV, F_PKG_EVENT: the event */
	bool info;			/* under info/ */
	const struct rfs_file *file;	/* N_FILE */
};

static struct rfs_model *md;
static const char *state_path;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static time_t mount_time;

void rfs_fs_setup(struct rfs_model *model, const char *state)
{
	unsigned int e;

	for (e = 0; e < RDT_PKG_NEVENTS; e++)
		pkg_event_files[e] = (struct rfs_file){ rdt_machine_pkg_event_name(e),
							F_PKG_EVENT, 0444 };
	md = model;
	state_path = state;
	mount_time = time(NULL);
}

static const struct rfs_file *find_file(const struct rfs_file *t, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static void res_files(int sch, const struct rfs_file **t, size_t *n)
{
	if (md->sch[sch].fmt == RFS_FMT_RANGE) {
		*t = mb_files;
		*n = N(mb_files) - (md->sch[sch].throttle_max ? 0 : 1);
	} else {
		*t = cache_files;
		*n = N(cache_files);
	}
}

static int find_schema(const char *name)
{
	unsigned int i;

	for (i = 0; i < md->nsch; i++)
		if (!strcmp(md->sch[i].name, name))
			return (int)i;
	return -1;
}

/* Next component of *p into out; 0 at the end, -ENAMETOOLONG if too long. */
static int next_comp(const char **p, char *out, size_t outlen)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	if (!*s)
		return 0;
	e = strchrnul(s, '/');
	if ((size_t)(e - s) >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = '\0';
	*p = e;
	return 1;
}

static int resolve_in_info(struct node *n, const char *name, bool in_res)
{
	const struct rfs_file *t;
	size_t cnt;

	if (in_res) {
		res_files(n->sch, &t, &cnt);
		n->file = find_file(t, cnt, name);
		if (!n->file && md->sch[n->sch].fmt == RFS_FMT_BITMAP && md->m->caps[RDT_L3].io_alloc)
			n->file = find_file(io_files, N(io_files), name);
		if (!n->file)
			return -ENOENT;
		n->kind = N_FILE;
		return 0;
	}
	n->file = find_file(info_files, N(info_files), name);
	if (n->file) {
		n->kind = N_FILE;
		return 0;
	}
	if (!strcmp(name, "L3_MON") && md->m->mon.rmids) {
		n->kind = N_INFO_MON;
		n->mon = true;
		return 0;
	}
	if (!strcmp(name, "PERF_PKG_MON") && md->pkgcnt) {
		n->kind = N_INFO_PKG;
		return 0;
	}
	n->sch = find_schema(name);
	if (n->sch < 0)
		return -ENOENT;
	n->kind = N_INFO_RES;
	return 0;
}

/* mon_groups and mon_data of a control group, where the machine monitors. */
static bool resolve_mon_dirs(struct node *n, const char *name)
{
	if (!md->nrmid)
		return false;
	if (!strcmp(name, "mon_groups"))
		n->kind = N_MON_GROUPS;
	else if (!strcmp(name, "mon_data"))
		n->kind = N_MON_DATA;
	else
		return false;
	return true;
}

/* mon_L3_XX: the L3 domain of cache id XX (two digits at least, as the kernel prints). */
static int resolve_mon_dom(struct node *n, const char *name)
{
	char want[32];
	unsigned int d;

	for (d = 0; d < md->m->ndom[RDT_L3]; d++) {
		snprintf(want, sizeof(want), "mon_L3_%02u", md->m->dom[RDT_L3][d].cache_id);
		if (!strcmp(want, name)) {
			n->kind = N_MON_DOM;
			n->dom = d;
			return 0;
		}
	}
	for (d = 0; md->pkgcnt && d < md->m->npkg; d++) {
		snprintf(want, sizeof(want), "mon_PERF_PKG_%02u", md->m->pkgdom[d].cache_id);
		if (!strcmp(want, name)) {
			n->kind = N_PKG_DOM;
			n->pkg = (int)d;
			return 0;
		}
	}
	return -ENOENT;
}

/* mon_sub_L3_YY in mon_L3_XX: one of its SNC nodes. */
static int resolve_mon_sub(struct node *n, const char *name)
{
	char want[32];
	unsigned int k, node;

	for (k = 0; md->snc > 1 && k < md->snc; k++) {
		node = n->dom * md->snc + k;
		snprintf(want, sizeof(want), "mon_sub_L3_%02u", md->mondom[node].cache_id);
		if (!strcmp(want, name)) {
			n->kind = N_MON_SUB;
			n->dom = node;
			return 0;
		}
	}
	return -ENOENT;
}

static int resolve_event(struct node *n, const char *name)
{
	int e = rfs_mon_event_find(name);

	if (e < 0 || !(md->m->mon.events & (1u << e)))
		return n->kind == N_MON_DOM ? resolve_mon_sub(n, name) : -ENOENT;
	n->l3sum = n->kind == N_MON_DOM && md->snc > 1;
	n->kind = N_FILE;
	n->file = &event_files[e];
	return 0;
}

static int resolve_pkg_event(struct node *n, const char *name)
{
	int e = rfs_pkg_event_find(md, name);

	if (e < 0)
		return -ENOENT;
	n->kind = N_FILE;
	n->ev = (unsigned int)e;
	n->file = &pkg_event_files[e];
	return 0;
}

/* The MBM events of event_configs/ (enabled ones, where counters are assignable). */
static int resolve_evcfg(struct node *n, const char *name)
{
	int e = rfs_mon_event_find(name);

	if (e < 1 || !(md->m->mon.events & (1u << e)))
		return -ENOENT;
	n->kind = N_EVCFG_EV;
	n->ev = (unsigned int)e;
	return 0;
}

/* Files of groups that came with 6.14-7.2: mbm_L3_assignments, mba_MBps_event. */
static const struct rfs_file *new_group_file(const struct node *n, const char *name)
{
	if (md->assigned && !strcmp(name, assignments_file.name))
		return &assignments_file;
	if (md->mba_mbps && n->kind != N_MON && !strcmp(name, mbps_event_file.name))
		return &mbps_event_file;
	return NULL;
}

static int resolve_info_mon(struct node *n, const char *name)
{
	n->file = find_file(mon_files, N(mon_files), name);
	if (!n->file && !strcmp(name, assign_mode_file.name))
		n->file = &assign_mode_file;
	if (!n->file && md->assigned)
		n->file = find_file(cntr_files, N(cntr_files), name);
	if (!n->file && md->assigned && !strcmp(name, "event_configs")) {
		n->kind = N_EVCFG;
		return 0;
	}
	if (!n->file)
		return -ENOENT;
	n->kind = N_FILE;
	return 0;
}

static int resolve_step(struct node *n, const char *name)
{
	int g;

	switch (n->kind) {
	case N_ROOT:
		if (!strcmp(name, "info")) {
			n->kind = N_INFO;
			n->info = true;
			return 0;
		}
		/* the root is a control group too */
		__attribute__((fallthrough));
	case N_GROUP:
		n->file = find_file(group_files, N(group_files), name);
		if (!n->file)
			n->file = new_group_file(n, name);
		if (n->file) {
			n->kind = N_FILE;
			return 0;
		}
		if (resolve_mon_dirs(n, name))
			return 0;
		if (n->kind == N_GROUP)
			return -ENOENT;
		g = rfs_group_find(md, name);
		if (g < 0)
			return -ENOENT;
		n->kind = N_GROUP;
		n->closid = (unsigned int)g;
		return 0;
	case N_MON_GROUPS:
		n->mg = rfs_mon_find(md, n->closid, name);
		if (n->mg < 0)
			return -ENOENT;
		n->kind = N_MON;
		return 0;
	case N_MON:
		if (!strcmp(name, "mon_data")) {
			n->kind = N_MON_DATA;
			return 0;
		}
		n->file = find_file(mon_group_files, N(mon_group_files), name);
		if (!n->file)
			n->file = new_group_file(n, name);
		if (!n->file)
			return -ENOENT;
		n->kind = N_FILE;
		return 0;
	case N_MON_DATA:
		return resolve_mon_dom(n, name);
	case N_MON_DOM:
	case N_MON_SUB:
		return resolve_event(n, name);
	case N_PKG_DOM:
		return resolve_pkg_event(n, name);
	case N_INFO:
		return resolve_in_info(n, name, false);
	case N_INFO_RES:
		return resolve_in_info(n, name, true);
	case N_INFO_MON:
		return resolve_info_mon(n, name);
	case N_INFO_PKG:
		n->file = find_file(pkg_info_files, N(pkg_info_files), name);
		if (!n->file)
			return -ENOENT;
		n->kind = N_FILE;
		return 0;
	case N_EVCFG:
		return resolve_evcfg(n, name);
	case N_EVCFG_EV:
		if (strcmp(name, event_filter_file.name))
			return -ENOENT;
		n->kind = N_FILE;
		n->file = rfs_abmc_filter_configurable(md) ? &event_filter_file :
			  &event_filter_ro_file;
		return 0;
	case N_FILE:
		return -ENOTDIR;
	}
	return -ENOENT;
}

static int resolve(const char *path, struct node *n)
{
	char name[RFS_NAME_MAX + 1];
	int ret;

	*n = (struct node){ .kind = N_ROOT, .sch = -1, .mg = -1, .pkg = -1 };
	while ((ret = next_comp(&path, name, sizeof(name))) > 0) {
		ret = resolve_step(n, name);
		if (ret)
			return ret;
	}
	return ret;
}

static bool in_info(const struct node *n)
{
	return n->info;
}

/* Save after a change; a failure is logged, the change itself stands. */
static void save(void)
{
	char err[512];

	if (!state_path || !md->dirty)
		return;
	if (rfs_state_save(md, state_path, err, sizeof(err)))
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/*
	 * Every read must see the model as it is now (direct_io). Names and
	 * attributes change only through this mount (mkdir, rmdir, chown), which
	 * updates the kernel's caches itself, so they may be cached: without
	 * that every path costs a LOOKUP and a GETATTR per component, ten times
	 * the requests a client makes. A name that does not exist is not
	 * cached, so a group made by another mount of the same --state is seen.
	 */
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->entry_timeout = 1.0;
	cfg->attr_timeout = 1.0;
	cfg->negative_timeout = 0;
	return NULL;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct node n;
	int ret;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (ret)
		goto out;
	st->st_atime = st->st_mtime = st->st_ctime = mount_time;
	if (n.mg >= 0) {
		st->st_uid = md->mon[n.mg].uid;
		st->st_gid = md->mon[n.mg].gid;
	} else if (!in_info(&n)) {
		st->st_uid = md->grp[n.closid].uid;
		st->st_gid = md->grp[n.closid].gid;
	}
	if (n.kind == N_FILE) {
		st->st_mode = S_IFREG | n.file->mode;
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFDIR | (in_info(&n) ? 0555 : 0755);
		st->st_nlink = 2;
	}
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Entries carry their type, as kernfs gives d_type: readers skip files without a stat. */
static const struct stat dir_type = { .st_mode = S_IFDIR };
static const struct stat file_type = { .st_mode = S_IFREG };

static void fill_files(void *buf, fuse_fill_dir_t fill, const struct rfs_file *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fill(buf, t[i].name, &file_type, 0, 0);
}

/* mon_data/: mon_L3_XX per L3 cache id, mon_PERF_PKG_XX per package. */
static void fill_mon_data(void *buf, fuse_fill_dir_t fill)
{
	char dn[32];
	unsigned int i;

	for (i = 0; i < md->m->ndom[RDT_L3]; i++) {
		snprintf(dn, sizeof(dn), "mon_L3_%02u", md->m->dom[RDT_L3][i].cache_id);
		fill(buf, dn, &dir_type, 0, 0);
	}
	for (i = 0; md->pkgcnt && i < md->m->npkg; i++) {
		snprintf(dn, sizeof(dn), "mon_PERF_PKG_%02u", md->m->pkgdom[i].cache_id);
		fill(buf, dn, &dir_type, 0, 0);
	}
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	const struct rfs_file *t;
	struct node n;
	unsigned int i;
	char dn[32];
	size_t cnt;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (ret)
		goto out;
	if (n.kind == N_FILE) {
		ret = -ENOTDIR;
		goto out;
	}
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	switch (n.kind) {
	case N_ROOT:
	case N_GROUP:
		fill_files(buf, fill, group_files, N(group_files));
		if (md->assigned)
			fill(buf, assignments_file.name, &file_type, 0, 0);
		if (md->mba_mbps)
			fill(buf, mbps_event_file.name, &file_type, 0, 0);
		if (md->nrmid) {
			fill(buf, "mon_groups", &dir_type, 0, 0);
			fill(buf, "mon_data", &dir_type, 0, 0);
		}
		if (n.kind == N_GROUP)
			break;
		fill(buf, "info", &dir_type, 0, 0);
		for (i = 1; i < md->nclosid; i++)
			if (md->grp[i].used)
				fill(buf, md->grp[i].name, &dir_type, 0, 0);
		break;
	case N_MON_GROUPS:
		for (i = 0; i < md->nrmid; i++)
			if (md->mon[i].used && md->mon[i].parent == n.closid)
				fill(buf, md->mon[i].name, &dir_type, 0, 0);
		break;
	case N_MON:
		fill_files(buf, fill, mon_group_files, N(mon_group_files));
		if (md->assigned)
			fill(buf, assignments_file.name, &file_type, 0, 0);
		fill(buf, "mon_data", &dir_type, 0, 0);
		break;
	case N_MON_DATA:
		fill_mon_data(buf, fill);
		break;
	case N_MON_DOM:
	case N_MON_SUB:
		for (i = 0; i < RFS_MON_EVENTS; i++)
			if (md->m->mon.events & (1u << i))
				fill(buf, event_files[i].name, &file_type, 0, 0);
		for (i = 0; n.kind == N_MON_DOM && md->snc > 1 && i < md->snc; i++) {
			snprintf(dn, sizeof(dn), "mon_sub_L3_%02u",
				 md->mondom[n.dom * md->snc + i].cache_id);
			fill(buf, dn, &dir_type, 0, 0);
		}
		break;
	case N_PKG_DOM:
		for (i = 0; i < RDT_PKG_NEVENTS; i++)
			if (md->m->pkg.groups & rdt_machine_pkg_event_group(i))
				fill(buf, pkg_event_files[i].name, &file_type, 0, 0);
		break;
	case N_INFO:
		fill_files(buf, fill, info_files, N(info_files));
		for (i = 0; i < md->nsch; i++)
			fill(buf, md->sch[i].name, &dir_type, 0, 0);
		if (md->m->mon.rmids)
			fill(buf, "L3_MON", &dir_type, 0, 0);
		if (md->pkgcnt)
			fill(buf, "PERF_PKG_MON", &dir_type, 0, 0);
		break;
	case N_INFO_MON:
		fill_files(buf, fill, mon_files, N(mon_files));
		fill(buf, assign_mode_file.name, &file_type, 0, 0);
		if (md->assigned) {
			fill_files(buf, fill, cntr_files, N(cntr_files));
			fill(buf, "event_configs", &dir_type, 0, 0);
		}
		break;
	case N_INFO_PKG:
		fill_files(buf, fill, pkg_info_files, N(pkg_info_files));
		break;
	case N_EVCFG:
		for (i = 1; i < RFS_MON_EVENTS; i++)
			if (md->m->mon.events & (1u << i))
				fill(buf, rfs_mon_event_name(i), &dir_type, 0, 0);
		break;
	case N_EVCFG_EV:
		fill(buf, event_filter_file.name, &file_type, 0, 0);
		break;
	case N_INFO_RES:
		res_files(n.sch, &t, &cnt);
		fill_files(buf, fill, t, cnt);
		if (md->sch[n.sch].fmt == RFS_FMT_BITMAP && md->m->caps[RDT_L3].io_alloc)
			fill_files(buf, fill, io_files, N(io_files));
		break;
	case N_FILE:
		break;
	}
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

static void show_info_res(const struct node *n, struct rfs_buf *b)
{
	const struct rfs_schema *s = &md->sch[n->sch];

	switch (n->file->id) {
	case F_CBM_MASK:
		rfs_buf_printf(b, "%llx\n", (unsigned long long)s->cbm_mask);
		break;
	case F_MIN_CBM_BITS:
		rfs_buf_printf(b, "%u\n", s->min_cbm_bits);
		break;
	case F_NUM_CLOSIDS:
		rfs_buf_printf(b, "%u\n", s->num_closid);
		break;
	case F_SHAREABLE_BITS:
		rfs_buf_printf(b, "%llx\n", (unsigned long long)s->shareable);
		break;
	case F_SPARSE_MASKS:
		rfs_buf_printf(b, "%u\n", s->sparse);
		break;
	case F_BIT_USAGE:
		rfs_bit_usage_show(md, (unsigned int)n->sch, b);
		break;
	case F_MIN_BANDWIDTH:
		rfs_buf_printf(b, "%u\n", s->min_bw);
		break;
	case F_BANDWIDTH_GRAN:
		rfs_buf_printf(b, "%u\n", s->bw_gran);
		break;
	case F_DELAY_LINEAR:
		rfs_buf_printf(b, "%u\n", s->delay_linear);
		break;
	case F_THREAD_THROTTLE_MODE:
		/* Per-core throttling; "per-thread" parts are not modelled. */
		rfs_buf_printf(b, "max\n");
		break;
	case F_IO_ALLOC:
		rfs_io_alloc_show(md, (unsigned int)n->sch, b);
		break;
	case F_IO_ALLOC_CBM:
		rfs_io_alloc_cbm_show(md, (unsigned int)n->sch, b);
		break;
	default:
		break;
	}
}

/* info/L3_MON: the machine's monitoring, as the kernel shows it. */
static void show_info_mon(const struct node *n, struct rfs_buf *b)
{
	static const char *const names[] = { "llc_occupancy", "mbm_total_bytes",
					     "mbm_local_bytes" };
	unsigned int i;

	switch (n->file->id) {
	case F_NUM_RMIDS:
		rfs_buf_printf(b, "%u\n", md->m->mon.rmids);
		break;
	case F_MON_FEATURES:
		for (i = 0; i < 3; i++)
			if (md->m->mon.events & (1u << i))
				rfs_buf_printf(b, "%s\n", names[i]);
		break;
	case F_MAX_THRESHOLD:
		rfs_buf_printf(b, "%llu\n", (unsigned long long)md->m->mon.threshold);
		break;
	case F_MBM_ASSIGN_MODE:
		rfs_abmc_mode_show(md, b);
		break;
	case F_NUM_MBM_CNTRS:
	case F_AVAIL_MBM_CNTRS:
		rfs_abmc_cntrs_show(md, n->file->id == F_AVAIL_MBM_CNTRS, b);
		break;
	case F_ASSIGN_ON_MKDIR:
		rfs_abmc_on_mkdir_show(md, b);
		break;
	case F_EVENT_FILTER:
		rfs_abmc_filter_show(md, n->ev, b);
		break;
	default:
		break;
	}
}

/* info/PERF_PKG_MON */
static void show_info_pkg(const struct node *n, struct rfs_buf *b)
{
	unsigned int e;

	if (n->file->id == F_NUM_RMIDS) {
		rfs_buf_printf(b, "%u\n", md->m->pkg.rmids);
		return;
	}
	for (e = 0; e < RDT_PKG_NEVENTS; e++)
		if (md->m->pkg.groups & rdt_machine_pkg_event_group(e))
			rfs_buf_printf(b, "%s\n", rdt_machine_pkg_event_name(e));
}

static unsigned int group_rmid(const struct node *n)
{
	return n->mg >= 0 ? md->mon[n->mg].rmid : md->grp[n->closid].rmid;
}

static void show(const struct node *n, struct rfs_buf *b)
{
	if (n->sch >= 0) {
		show_info_res(n, b);
		return;
	}
	if (n->mon) {
		show_info_mon(n, b);
		return;
	}
	if (n->info && n->file->id != F_LAST_CMD_STATUS) {
		show_info_pkg(n, b);
		return;
	}
	switch (n->file->id) {
	case F_CPUS:
	case F_CPUS_LIST:
		if (n->mg >= 0)
			rfs_mon_cpus_show(md, n->mg, n->file->id == F_CPUS_LIST, b);
		else
			rfs_cpus_show(md, n->closid, n->file->id == F_CPUS_LIST, b);
		break;
	case F_MON_EVENT:
		if (n->l3sum)
			rfs_mon_data_show_l3(md, n->closid, n->mg, n->dom,
					     (unsigned int)(n->file - event_files), b);
		else
			rfs_mon_data_show(md, n->closid, n->mg, n->dom,
					  (unsigned int)(n->file - event_files), b);
		break;
	case F_PKG_EVENT:
		rfs_pkg_data_show(md, n->closid, n->mg, (unsigned int)n->pkg, n->ev, b);
		break;
	case F_MBM_ASSIGNMENTS:
		rfs_abmc_assignments_show(md, group_rmid(n), b);
		break;
	case F_MBPS_EVENT:
		rfs_mbps_event_show(md, n->closid, b);
		break;
	case F_MODE:
		rfs_mode_show(md, n->closid, b);
		break;
	case F_SCHEMATA:
		rfs_schemata_show(md, n->closid, b);
		break;
	case F_SIZE:
		rfs_size_show(md, n->closid, b);
		break;
	case F_TASKS:
		rfs_tasks_show(md, n->closid, n->mg, b);
		break;
	case F_LAST_CMD_STATUS:
		rfs_status_show(md, b);
		break;
	default:
		break;
	}
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct rfs_buf *b;
	struct node n;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret && n.kind != N_FILE)
		ret = -EISDIR;
	/* kernfs refuses write opens of files without a write mode, root too. */
	if (!ret && (fi->flags & O_ACCMODE) != O_RDONLY && !(n.file->mode & 0222))
		ret = -EACCES;
	pthread_mutex_unlock(&lock);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	fi->fh = (uintptr_t)b;
	fi->direct_io = 1;
	fi->nonseekable = 0;
	return 0;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	struct rfs_buf *b = (struct rfs_buf *)(uintptr_t)fi->fh;

	if (b) {
		rfs_buf_free(b);
		free(b);
	}
	return 0;
}

/* Like seq_file: the text is made at offset 0, later offsets page through it. */
static int op_read(const char *path, char *out, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct rfs_buf *b = (struct rfs_buf *)(uintptr_t)fi->fh;
	struct node n;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret && n.kind != N_FILE)
		ret = -EISDIR;
	if (!ret && (off == 0 || !b->s)) {
		rfs_buf_free(b);
		show(&n, b);
		ret = b->err;
		save();
	}
	pthread_mutex_unlock(&lock);
	if (ret)
		return ret;
	if ((size_t)off >= b->len)
		return 0;
	if (size > b->len - (size_t)off)
		size = b->len - (size_t)off;
	memcpy(out, b->s + off, size);
	return (int)size;
}

static int dispatch_write(const struct node *n, char *buf, size_t len)
{
	struct fuse_context *ctx = fuse_get_context();

	switch (n->file->id) {
	case F_CPUS:
	case F_CPUS_LIST:
		if (n->mg >= 0)
			return rfs_mon_cpus_write(md, n->mg, n->file->id == F_CPUS_LIST, buf);
		return rfs_cpus_write(md, n->closid, n->file->id == F_CPUS_LIST, buf);
	case F_MODE:
		return rfs_mode_write(md, n->closid, buf, len);
	case F_SCHEMATA:
		return rfs_schemata_write(md, n->closid, buf, len);
	case F_TASKS:
		return rfs_tasks_write(md, n->closid, n->mg, buf, ctx->pid, ctx->uid);
	case F_MBM_ASSIGN_MODE:
		return rfs_abmc_mode_write(md, buf, len);
	case F_ASSIGN_ON_MKDIR:
		return rfs_abmc_on_mkdir_write(md, buf);
	case F_EVENT_FILTER:
		return rfs_abmc_filter_write(md, n->ev, buf, len);
	case F_MBM_ASSIGNMENTS:
		return rfs_abmc_assignments_write(md, group_rmid(n), buf, len);
	case F_MBPS_EVENT:
		return rfs_mbps_event_write(md, n->closid, buf, len);
	case F_IO_ALLOC:
		return rfs_io_alloc_write(md, (unsigned int)n->sch, buf);
	case F_IO_ALLOC_CBM:
		return rfs_io_alloc_cbm_write(md, (unsigned int)n->sch, buf, len);
	default:
		return -EINVAL;
	}
}

/* Each write() is one command, as kernfs makes it; offsets do not matter. */
static int op_write(const char *path, const char *data, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct node n;
	char *buf;
	int ret;

	if (size > RFS_WRITE_MAX)
		return -E2BIG;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, data, size);
	buf[size] = '\0';
	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret && n.kind != N_FILE)
		ret = -EISDIR;
	if (!ret)
		ret = dispatch_write(&n, buf, size);
	save();
	pthread_mutex_unlock(&lock);
	free(buf);
	return ret ? ret : (int)size;
}

/* `echo x > file` truncates first; resctrl files have nothing to cut. */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct node n;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret && n.kind != N_FILE)
		ret = -EISDIR;
	if (!ret && !(n.file->mode & 0222))
		ret = -EACCES;
	pthread_mutex_unlock(&lock);
	return ret;
}

static int op_mkdir(const char *path, mode_t mode)
{
	struct fuse_context *ctx = fuse_get_context();
	const char *slash = strrchr(path, '/');
	char parent[4096];
	struct node n;
	int ret;

	if (!slash || (size_t)(slash - path) >= sizeof(parent))
		return -EINVAL;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	pthread_mutex_lock(&lock);
	ret = resolve(parent, &n);
	if (!ret && n.kind == N_FILE)
		ret = -ENOTDIR;
	/* Control groups at the top, MON groups in a mon_groups; nothing else. */
	if (!ret && n.kind != N_ROOT && n.kind != N_MON_GROUPS)
		ret = strchr(slash + 1, '\n') ? -EINVAL : -EPERM;
	if (!ret && n.kind == N_MON_GROUPS)
		ret = rfs_mon_mkdir(md, n.closid, slash + 1, ctx->uid, ctx->gid);
	else if (!ret)
		ret = rfs_mkdir(md, slash + 1, ctx->uid, ctx->gid);
	save();
	pthread_mutex_unlock(&lock);
	return ret;
}

static int op_rmdir(const char *path)
{
	struct node n;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret) {
		switch (n.kind) {
		case N_GROUP:
			ret = rfs_rmdir(md, n.closid);
			break;
		case N_MON:
			ret = rfs_mon_rmdir(md, n.mg);
			break;
		case N_ROOT:
			ret = -EBUSY;
			break;
		case N_FILE:
			ret = -ENOTDIR;
			break;
		default:
			ret = -EPERM;	/* info/ has no rdtgroup */
			break;
		}
	}
	save();
	pthread_mutex_unlock(&lock);
	return ret;
}

/* rdtgroup_rename() moves MON groups only; that is not emulated. */
static int op_rename(const char *from, const char *to, unsigned int flags)
{
	const char *slash = strrchr(to, '/');
	char parent[4096];
	struct node src, dst;
	int ret;

	if (!slash || (size_t)(slash - to) >= sizeof(parent))
		return -EINVAL;
	memcpy(parent, to, (size_t)(slash - to));
	parent[slash - to] = '\0';
	pthread_mutex_lock(&lock);
	ret = resolve(from, &src);
	if (!ret)
		ret = resolve(parent, &dst);
	if (!ret && (in_info(&src) || in_info(&dst)))
		ret = -ENOENT;
	if (!ret) {
		rfs_status_clear(md);
		if (src.kind == N_FILE || dst.kind == N_FILE)
			rfs_status_printf(md, "Source and destination must be directories");
		else if (src.kind == N_MON)
			rfs_status_printf(md, "moving MON groups is not emulated\n");
		else
			rfs_status_printf(md, "Source must be a MON group\n");
		ret = -EPERM;
	}
	save();
	pthread_mutex_unlock(&lock);
	return ret;
}

/* chown of a group's directory or files makes its user the owner (kernfs). */
static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct rfs_group *g;
	struct node n;
	int ret;

	pthread_mutex_lock(&lock);
	ret = resolve(path, &n);
	if (!ret && in_info(&n))
		ret = -EPERM;
	if (!ret && n.mg >= 0) {
		if (uid != (uid_t)-1)
			md->mon[n.mg].uid = uid;
		if (gid != (gid_t)-1)
			md->mon[n.mg].gid = gid;
		md->dirty = true;
	} else if (!ret) {
		g = &md->grp[n.closid];
		if (uid != (uid_t)-1)
			g->uid = uid;
		if (gid != (gid_t)-1)
			g->gid = gid;
		md->dirty = true;
	}
	save();
	pthread_mutex_unlock(&lock);
	return ret;
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	return 0;
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EACCES;
}

static int op_unlink(const char *path)
{
	return -EPERM;
}

const struct fuse_operations rfs_fuse_ops = {
	.init = op_init,
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.release = op_release,
	.read = op_read,
	.write = op_write,
	.truncate = op_truncate,
	.mkdir = op_mkdir,
	.rmdir = op_rmdir,
	.rename = op_rename,
	.chown = op_chown,
	.chmod = op_chmod,
	.utimens = op_utimens,
	.create = op_create,
	.unlink = op_unlink,
};
