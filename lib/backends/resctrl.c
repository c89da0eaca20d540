// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend: the kernel owns CAT (Documentation/arch/x86/resctrl.rst);
 * we drive its filesystem. Capabilities come from info/, not CPUID.
 *
 * The kernel gives one CLOSID per control group. Our groups share CLOSIDs
 * when their masks are equal, so here a *class* - the set of our groups
 * whose schemas are identical in every domain - is one control group that we
 * create, named rdtalloc-<n>; the default group is the root group. Control
 * groups we did not create are never written, moved or removed, and count
 * against the CLOSIDs.
 *
 * Every write call is realised by comparing the kernel with the new state:
 * classes are matched to our directories (same schemata first, then the one
 * most of its groups were in), then mkdir, schemata, cpus_list and task moves
 * are done with an undo log, and directories no class holds are removed. A
 * failure undoes the earlier steps, so the kernel and the state file agree.
 *
 * The kernel knows classes, not our groups: task membership per group is
 * kept in the state's table and answered from what the kernel lists (a dead
 * task is never listed; a child forked in a class is counted in its thread
 * group leader's group, else its nearest bound ancestor's, else the class's
 * oldest group).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#ifndef FUSE_MAGIC
#define FUSE_MAGIC 0x65735546	/* <linux/magic.h>'s FUSE_SUPER_MAGIC */
#endif
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "config.h"
#include "core.h"
#include "errors.h"
#include "monitor/monitor.h"
#include "mounts.h"
#include "state.h"
#include "tasks.h"

#define RC_PREFIX	"rdtalloc-"
#define RC_DIR_MAX	4096		/* top-level directories we look at */
#define RC_SMALL_MAX	(64 << 10)	/* schemata, cpus_list, info files */
#define RC_TASKS_MAX	(64 << 20)	/* a tasks file: a host's every thread id */
#define RC_ANCESTORS	64		/* PPid steps when attributing a forked child */
/* "DIR/mon_groups/NAME": a control group's name (64) and one of our group names */
#define RC_MON_DIR_MAX	(64 + sizeof("/mon_groups/") + RDTALLOC_NAME_MAX + 1)

struct rc_undo {
	enum { UNDO_RMDIR, UNDO_WRITE, UNDO_TASK, UNDO_MKDIR } op;
	char dir[RC_MON_DIR_MAX];	/* "" : the root group; or a MON group's */
	char file[16];
	char *text;			/* UNDO_WRITE: old content; UNDO_MKDIR: schemata */
	char *text2;			/* UNDO_MKDIR: cpus_list */
	pid_t tid;
	char mon[RDTALLOC_NAME_MAX + 1];	/* UNDO_TASK: then into dir's MON group */
};

struct rc_ctx {
	char root[PATH_MAX];
	/*
	 * Our control groups are PREFIXN: rdtalloc-ID-N for a state with an id,
	 * rdtalloc-N for one made before ids. Another state's are not ours.
	 */
	char prefix[32];
	int lock_fd;			/* the root, flock'ed around every change; -1 */
	int fail_group;			/* the group the last check refused, -1: none */
	unsigned int lock_depth;
	const struct rdt_machine *m;
	unsigned int num_closids;	/* the smallest of the resources' */
	bool cdp[RDT_NALL];		/* as mounted */
	bool mba_mbps;			/* mounted with -o mba_MBps */
	struct rdt_state *before;	/* the state when this write call began */
	struct rc_undo *undo;
	size_t nundo, cap_undo;
	unsigned int changes;		/* kernel files written by the last realise */
	unsigned int moved;		/* of them, tasks moved */
	/* what the open repaired, reported by the first sync of this context */
	char open_what[448];
	unsigned int open_repairs, open_moved;
	unsigned int ours, foreign;	/* control groups after the last realise */
	char foreign_names[192];	/* " (a, b, ...)" of those not ours, for info */
	bool mon;			/* L3 monitoring: each group a MON group of its own */
	/* where each group's tasks go, as the last plan said, while r->st_gen is place_gen */
	char (*place_dir)[64];
	unsigned int place_n;
	uint64_t place_gen;
	bool place_ok;
	bool *mon_fresh;		/* [ngroups]: its MON group was made by this realise */
};

/* One top-level control group of the kernel's. */
struct rc_dir {
	char name[64];
	int n;				/* rdtalloc-<n>; -1: not ours */
	uint64_t *key;			/* ours: its schemata in our key layout */
	bool key_ok;
	int cls;			/* the class it holds after the change; -1: none */
	int was;			/* the class of the state before it held; -1 */
	bool created, remove;
};

/* A class: our groups (ascending seq) with one key. */
struct rc_class {
	const uint64_t *key;
	int *groups;
	unsigned int ngroups;
	int dir;			/* index into the dir list; -1: to be created */
};

struct rc_view {
	struct rc_dir *dirs;
	unsigned int ndirs, nours, nforeign;
	struct rc_class *cls;
	unsigned int ncls;
	int *cls_of;			/* [st->ngroups]: class of each group; -1 default */
	uint64_t *keys;			/* [ngroups][nkey] */
	size_t nkey;
};

static struct rc_ctx *ctx_of(struct rdtalloc *r)
{
	return r->be_ctx;
}

/* dir/mon_groups/name: a MON group of control group dir ("": the root). */
static void mon_dir(const char *dir, const char *name, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s%smon_groups/%s", dir, *dir ? "/" : "", name) >= (int)len)
		buf[0] = '\0';	/* names are bounded: not reached */
}

/*
 * The MON group of group g in st: its name, where the machine monitors and
 * g holds an RMID of ours; "" for the default group (the root's own RMID)
 * and for a group without an RMID (counted with its control group).
 */
static const char *mon_of(struct rdtalloc *r, const struct rdt_state *st, int g)
{
	return ctx_of(r)->mon && g > 0 && rdt_mon_group_rmid(st, g) > 0 ? st->groups[g].name : "";
}

/* ---- Files ------------------------------------------------------------------ */

/* root/dir/file; the root is bounded (settings) and names are short, so it fits. */
static void rel_path(const struct rc_ctx *c, const char *dir, const char *file, char *buf,
		     size_t len)
{
	if (snprintf(buf, len, "%s%s%s%s%s", c->root, *dir ? "/" : "", dir, *file ? "/" : "",
		     file) >= (int)len)
		buf[0] = '\0';
}

/* A whole file, bounded; *out is NUL-terminated and malloc'ed. */
static int read_all(const char *path, size_t max, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1), *p;
	ssize_t got;
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				ret = -EFBIG;
				break;
			}
			cap = cap * 2 > max ? max : cap * 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			break;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* info/last_cmd_status, one line; "" when it cannot be read. */
static void last_status(const struct rc_ctx *c, char *buf, size_t len)
{
	char path[PATH_MAX], *text = NULL, *nl;

	buf[0] = '\0';
	rel_path(c, "info", "last_cmd_status", path, sizeof(path));
	if (read_all(path, RC_SMALL_MAX, &text, NULL))
		return;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
}

static int read_small(struct rdtalloc *r, const char *dir, const char *file, char **out)
{
	char path[PATH_MAX];
	int ret;

	rel_path(ctx_of(r), dir, file, path, sizeof(path));
	ret = read_all(path, RC_SMALL_MAX, out, NULL);
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	return 0;
}

/*
 * One write(2) of text to a control group's file, as the kernel wants it;
 * its refusal is reported with what info/last_cmd_status says.
 */
static int write_file(struct rdtalloc *r, const char *dir, const char *file, const char *text)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX], status[256], shown[96];
	size_t n = strlen(text);
	ssize_t w;
	int fd, ret = 0;

	rel_path(c, dir, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return rdt_fail(r, -errno, "resctrl: cannot open %s: %s", path, strerror(errno));
	w = write(fd, text, n);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	close(fd);
	if (!ret)
		return 0;
	last_status(c, status, sizeof(status));
	snprintf(shown, sizeof(shown), "%s", text);
	trim(shown);
	for (char *p = shown; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (ret == -ESRCH && !strcmp(file, "tasks"))
		return ret;	/* the caller decides: the task exited */
	return rdt_fail(r, ret, "resctrl: %s%s%s: '%s': %s", dir, *dir ? "/" : "", file, shown,
			status[0] && strcmp(status, "ok") ? status : strerror(-ret));
}

static bool mon_fresh(struct rdtalloc *r, int g)
{
	return ctx_of(r)->mon_fresh && ctx_of(r)->mon_fresh[g];
}

static bool any_fresh(struct rdtalloc *r)
{
	unsigned int g;

	for (g = 0; ctx_of(r)->mon_fresh && g < r->st->ngroups; g++)
		if (ctx_of(r)->mon_fresh[g])
			return true;
	return false;
}

/* ---- Undo log ---------------------------------------------------------------- */

static int undo_push(struct rc_ctx *c, const struct rc_undo *u)
{
	if (c->nundo == c->cap_undo) {
		size_t cap = c->cap_undo ? c->cap_undo * 2 : 16;
		struct rc_undo *v = realloc(c->undo, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->undo = v;
		c->cap_undo = cap;
	}
	c->undo[c->nundo++] = *u;
	return 0;
}

static void undo_free(struct rc_ctx *c)
{
	while (c->nundo) {
		struct rc_undo *u = &c->undo[--c->nundo];

		free(u->text);
		free(u->text2);
	}
}

static void undo_write(struct rdtalloc *r, const char *dir, const char *file, const char *text)
{
	if (text)
		write_file(r, dir, file, text);
}

/*
 * What the undo log says was done - made, rewritten, removed, tasks placed
 * - as one line for the agent's log and rdtctl sync ("" when nothing).
 */
static void describe_done(const struct rc_ctx *c, char *buf, size_t len)
{
	static const char *const verb[] = { [UNDO_RMDIR] = "made", [UNDO_WRITE] = "rewrote",
					    [UNDO_MKDIR] = "removed" };
	unsigned int tasks = 0, shown = 0;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nundo && n + 1 < len; i++) {
		const struct rc_undo *u = &c->undo[i];

		if (u->op == UNDO_TASK) {
			tasks++;
			continue;
		}
		if (++shown > 6)
			continue;	/* the count below says the rest */
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s%s%s", n ? ", " : "", verb[u->op],
				      u->dir[0] ? u->dir : "the root",
				      u->op == UNDO_WRITE ? "/" : "", u->op == UNDO_WRITE ? u->file : "");
	}
	if (shown > 6 && n + 1 < len)
		n += (size_t)snprintf(buf + n, len - n, " and %u more", shown - 6);
	if (tasks && n + 1 < len)
		snprintf(buf + n, len - n, "%s%u task%s placed", n ? "; " : "", tasks,
			 tasks == 1 ? "" : "s");
}

/* Put the kernel back as it was, newest step first; best effort. */
static void undo_replay(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	char path[PATH_MAX], tid[24], saved[RDT_ERRMSG_MAX];

	snprintf(saved, sizeof(saved), "%s", rdtalloc_errmsg(r));
	while (c->nundo) {
		struct rc_undo *u = &c->undo[--c->nundo];

		switch (u->op) {
		case UNDO_RMDIR:
			rel_path(c, u->dir, "", path, sizeof(path));
			rmdir(path);
			break;
		case UNDO_WRITE:
			undo_write(r, u->dir, u->file, u->text);
			break;
		case UNDO_TASK:
			snprintf(tid, sizeof(tid), "%d\n", (int)u->tid);
			write_file(r, u->dir, "tasks", tid);
			if (u->mon[0]) {
				char md[RC_MON_DIR_MAX];

				mon_dir(u->dir, u->mon, md, sizeof(md));
				write_file(r, md, "tasks", tid);
			}
			break;
		case UNDO_MKDIR:
			rel_path(c, u->dir, "", path, sizeof(path));
			if (!mkdir(path, 0755)) {
				undo_write(r, u->dir, "schemata", u->text);
				undo_write(r, u->dir, "cpus_list", u->text2);
			}
			break;
		}
		free(u->text);
		free(u->text2);
	}
	if (saved[0])
		rdt_fail(r, -EIO, "%s", saved);	/* the first failure is the one to report */
}

/* ---- Keys: a group's masks in every domain, as the kernel sees them ---------- */

static size_t key_len(const struct rdt_state *st)
{
	return (size_t)st->nslots * 2;
}

/* The masks of group g; the code half only where CDP is on. */
static void group_key(const struct rdt_state *st, int g, uint64_t *key)
{
	unsigned int s;

	for (s = 0; s < st->nslots; s++) {
		key[s * 2] = st->groups[g].mask[s * 2];
		key[s * 2 + 1] = st->cdp[st->slot[s].res] ? st->groups[g].mask[s * 2 + 1] : 0;
	}
}

static int parse_res(const char *name, enum rdt_res *res, int *half)
{
	static const struct {
		const char *name;
		enum rdt_res res;
		int half;	/* 0 data (or both), 1 code, 2 both halves of a CDP-off line */
	} names[] = {
		{ "L3", RDT_L3, 2 }, { "L3DATA", RDT_L3, 0 }, { "L3CODE", RDT_L3, 1 },
		{ "L2", RDT_L2, 2 }, { "L2DATA", RDT_L2, 0 }, { "L2CODE", RDT_L2, 1 },
		{ "MB", RDT_MB, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name)) {
			*res = names[i].res;
			*half = names[i].half;
			return 0;
		}
	return -ENOENT;
}

/*
 * One line of a schemata file ("    L3:0=7ff;1=7ff"): its resource and half
 * (parse_res), and the "id=mask;..." part; NULL for a line of a resource
 * the machine does not allocate (MB) or no resource line at all.
 */
static char *schemata_line(char *line, const struct rdt_machine *m, enum rdt_res *res,
			   int *half)
{
	char *colon;

	while (isspace((unsigned char)*line))
		line++;
	colon = strchr(line, ':');
	if (!colon)
		return NULL;
	*colon = '\0';
	if (parse_res(line, res, half) || !m->caps[*res].present)
		return NULL;
	return colon + 1;
}

/*
 * A schemata file as the kernel prints it ("    L3:0=7ff;1=7ff") into our
 * key layout. Lines of resources we do not allocate (MB) are skipped.
 */
static int parse_schemata_seen(const struct rdt_state *st, char *text, uint64_t *key,
			       bool *slot_seen)
{
	char *line, *save = NULL;
	unsigned int seen = 0;

	memset(key, 0, key_len(st) * sizeof(*key));
	if (slot_seen)
		memset(slot_seen, 0, st->nslots * sizeof(*slot_seen));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *items, *item, *isave = NULL;
		enum rdt_res res;
		int half;

		items = schemata_line(line, st->m, &res, &half);
		if (!items)
			continue;
		for (item = strtok_r(items, ";", &isave); item;
		     item = strtok_r(NULL, ";", &isave)) {
			char *end;
			unsigned long id = strtoul(item, &end, 10);
			uint64_t mask;
			int d;

			if (*end != '=')
				return -EINVAL;
			/* bandwidths are decimal, masks hex */
			mask = strtoull(end + 1, &end, res == RDT_MB ? 10 : 16);
			d = rdt_machine_domain(st->m, res, (unsigned int)id);
			if (d < 0)
				return -EINVAL;
			if (half == 1 && st->cdp[res])
				key[st->slot_of[res][d] * 2 + 1] = mask;
			else if (half != 1)
				key[st->slot_of[res][d] * 2] = mask;
			if (slot_seen)
				slot_seen[st->slot_of[res][d]] = true;
			seen++;
		}
	}
	return seen ? 0 : -EINVAL;
}

static int parse_schemata(const struct rdt_state *st, char *text, uint64_t *key)
{
	return parse_schemata_seen(st, text, key, NULL);
}

/* Our key as schemata lines, every domain of every resource. */
static char *format_schemata(const struct rdt_state *st, const uint64_t *key)
{
	size_t cap = 64 + (size_t)st->nslots * 2 * 32, off = 0;
	char *buf = malloc(cap);
	unsigned int res, half, d;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (res = 0; res < RDT_NALL; res++) {
		if (!st->m->caps[res].present)
			continue;
		for (half = 0; half < (st->cdp[res] ? 2u : 1u); half++) {
			off += (size_t)snprintf(buf + off, cap - off, "%s%s:", rdt_res_name(res),
						!st->cdp[res] ? "" : half ? "CODE" : "DATA");
			for (d = 0; d < st->m->ndom[res]; d++)
				off += (size_t)snprintf(buf + off, cap - off,
							res == RDT_MB ? "%s%u=%llu" : "%s%u=%llx",
							d ? ";" : "",
							st->m->dom[res][d].cache_id,
							(unsigned long long)key[st->slot_of[res][d] * 2 + half]);
			off += (size_t)snprintf(buf + off, cap - off, "\n");
		}
	}
	return buf;
}

/* ---- The lock cooperating tools take (resctrl.rst, "Lock") ------------------ */

#define RC_LOCK_WAIT_MS 10000	/* a holder this slow is stuck, not busy */

/*
 * flock(LOCK_EX) on the resctrl root for a whole change: another tool that
 * takes it (pqos, a runtime, a script following the kernel's advice) never
 * sees half of it, nor changes the directories under us. Nested: the
 * outermost call locks. Waits at most RC_LOCK_WAIT_MS.
 */
static int rc_lock(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	int fd, waited = 0;

	if (c->lock_depth++)
		return 0;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		c->lock_depth = 0;
		return rdt_fail(r, -errno, "resctrl: cannot open %s to lock it: %s", c->root,
				strerror(errno));
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		if (err == EINTR)
			continue;
		if (err != EWOULDBLOCK || waited >= RC_LOCK_WAIT_MS) {
			close(fd);
			c->lock_depth = 0;
			if (err == EWOULDBLOCK)
				return rdt_fail(r, -EBUSY, "resctrl: another tool has held the lock "
						"on %s (flock) for %d s; nothing was changed",
						c->root, RC_LOCK_WAIT_MS / 1000);
			return rdt_fail(r, -err, "resctrl: cannot lock %s: %s", c->root,
					strerror(err));
		}
		usleep(10000);
		waited += 10;
	}
	c->lock_fd = fd;
	return 0;
}

static void rc_unlock(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	if (!c->lock_depth || --c->lock_depth)
		return;
	close(c->lock_fd);	/* drops the lock */
	c->lock_fd = -1;
}

/* ---- The view: the kernel's directories and the state's classes ------------ */

static bool is_ours(const struct rc_ctx *c, const char *name, int *n)
{
	size_t plen = strlen(c->prefix);
	const char *p = name + plen;
	char *end;
	long v;

	if (!plen || strncmp(name, c->prefix, plen) || !isdigit((unsigned char)*p) ||
	    (*p == '0' && p[1]))
		return false;
	v = strtol(p, &end, 10);
	if (*end || v < 1 || v > RC_DIR_MAX)
		return false;
	*n = (int)v;
	return true;
}

/* A top-level directory but info/ and the monitoring ones is a control group. */
static bool is_control_group(const struct rc_ctx *c, const struct dirent *e)
{
	char path[PATH_MAX];
	struct stat sb;

	if (e->d_name[0] == '.' || !strcmp(e->d_name, "info") ||
	    !strcmp(e->d_name, "mon_groups") || !strcmp(e->d_name, "mon_data") ||
	    strlen(e->d_name) >= sizeof(((struct rc_dir *)0)->name))
		return false;
	if (e->d_type == DT_DIR)
		return true;
	if (e->d_type != DT_UNKNOWN)
		return false;
	rel_path(c, e->d_name, "", path, sizeof(path));
	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

static void view_free(struct rc_view *v)
{
	unsigned int i;

	for (i = 0; i < v->ndirs; i++)
		free(v->dirs[i].key);
	for (i = 0; i < v->ncls; i++)
		free(v->cls[i].groups);
	free(v->dirs);
	free(v->cls);
	free(v->cls_of);
	free(v->keys);
	memset(v, 0, sizeof(*v));
}

/* Every top-level control group, ours with their schemata parsed. */
static int list_dirs(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v)
{
	struct rc_ctx *c = ctx_of(r);
	struct dirent *e;
	DIR *dir;
	int ret = 0;

	dir = opendir(c->root);
	if (!dir)
		return rdt_fail(r, -errno, "resctrl: cannot list %s: %s", c->root, strerror(errno));
	v->dirs = calloc(RC_DIR_MAX, sizeof(*v->dirs));
	if (!v->dirs)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	while (!ret && (e = readdir(dir))) {
		struct rc_dir *d;
		char *text;

		if (!is_control_group(c, e))
			continue;
		if (v->ndirs == RC_DIR_MAX) {
			ret = rdt_fail(r, -E2BIG, "resctrl: more than %d control groups in %s",
				       RC_DIR_MAX, c->root);
			break;
		}
		d = &v->dirs[v->ndirs++];
		memcpy(d->name, e->d_name, strlen(e->d_name) + 1);	/* length checked */
		d->cls = d->was = -1;
		if (!is_ours(c, d->name, &d->n)) {
			d->n = -1;
			v->nforeign++;
			continue;
		}
		v->nours++;
		d->key = calloc(key_len(st), sizeof(*d->key));
		if (!d->key) {
			ret = rdt_fail(r, -ENOMEM, "out of memory");
			break;
		}
		ret = read_small(r, d->name, "schemata", &text);
		if (ret)
			break;
		d->key_ok = parse_schemata(st, text, d->key) == 0;
		free(text);
	}
	closedir(dir);
	return ret;
}

static const struct rdt_state *cmp_st;
static size_t cmp_nkey;
static const uint64_t *cmp_keys;

static int cmp_group_key(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int k = memcmp(cmp_keys + (size_t)x * cmp_nkey, cmp_keys + (size_t)y * cmp_nkey,
		       cmp_nkey * sizeof(uint64_t));

	if (k)
		return k;
	return (cmp_st->groups[x].seq > cmp_st->groups[y].seq) -
	       (cmp_st->groups[x].seq < cmp_st->groups[y].seq);
}

/* The classes of st: live non-default groups by identical key, oldest group first. */
static int make_classes(struct rdtalloc *r, const struct rdt_state *st, struct rc_view *v)
{
	unsigned int g, n = 0, i, j;
	int *order;

	v->nkey = key_len(st);
	v->keys = malloc(((size_t)st->ngroups * v->nkey + 1) * sizeof(uint64_t));
	v->cls_of = malloc(((size_t)st->ngroups + 1) * sizeof(int));
	order = malloc(((size_t)st->ngroups + 1) * sizeof(int));
	v->cls = calloc((size_t)st->ngroups + 1, sizeof(*v->cls));
	if (!v->keys || !v->cls_of || !order || !v->cls) {
		free(order);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (g = 0; g < st->ngroups; g++) {
		v->cls_of[g] = -1;
		if (!st->groups[g].live)
			continue;
		group_key(st, (int)g, v->keys + (size_t)g * v->nkey);
		if (g)
			order[n++] = (int)g;
	}
	/* qsort has no argument: the calls are under the context's lock, one at a time */
	cmp_st = st;
	cmp_nkey = v->nkey;
	cmp_keys = v->keys;
	qsort(order, n, sizeof(int), cmp_group_key);
	for (i = 0; i < n; i = j) {
		struct rc_class *k = &v->cls[v->ncls];

		for (j = i + 1; j < n && !memcmp(v->keys + (size_t)order[i] * v->nkey,
						 v->keys + (size_t)order[j] * v->nkey,
						 v->nkey * sizeof(uint64_t)); j++)
			;
		k->key = v->keys + (size_t)order[i] * v->nkey;
		k->groups = malloc((j - i) * sizeof(int));
		if (!k->groups) {
			free(order);
			return rdt_fail(r, -ENOMEM, "out of memory");
		}
		memcpy(k->groups, order + i, (j - i) * sizeof(int));
		/* by creation order, so groups[0] is the oldest */
		cmp_keys = NULL;
		k->ngroups = j - i;
		for (unsigned int a = 1; a < k->ngroups; a++)
			for (unsigned int b = a; b > 0 && st->groups[k->groups[b]].seq <
						       st->groups[k->groups[b - 1]].seq; b--) {
				int t = k->groups[b];

				k->groups[b] = k->groups[b - 1];
				k->groups[b - 1] = t;
			}
		cmp_keys = v->keys;
		k->dir = -1;
		for (unsigned int a = 0; a < k->ngroups; a++)
			v->cls_of[k->groups[a]] = (int)v->ncls;
		v->ncls++;
	}
	free(order);
	return 0;
}

/* Our directory holding exactly this key, not yet claimed; -1 when none. */
static int dir_with_key(const struct rc_view *v, const uint64_t *key)
{
	unsigned int i;

	for (i = 0; i < v->ndirs; i++)
		if (v->dirs[i].n > 0 && v->dirs[i].key_ok && v->dirs[i].cls < 0 &&
		    !memcmp(v->dirs[i].key, key, v->nkey * sizeof(uint64_t)))
			return (int)i;
	return -1;
}

/* Our directory that no class holds and whose schemata no class has; -1 when none. */
static int dir_drifted(const struct rc_view *v)
{
	unsigned int i, k;

	for (i = 0; i < v->ndirs; i++) {
		if (v->dirs[i].n <= 0 || v->dirs[i].cls >= 0)
			continue;
		for (k = 0; v->dirs[i].key_ok && k < v->ncls; k++)
			if (!memcmp(v->dirs[i].key, v->cls[k].key, v->nkey * sizeof(uint64_t)))
				break;
		if (!v->dirs[i].key_ok || k == v->ncls)
			return (int)i;
	}
	return -1;
}

/*
 * The view of r->st as the kernel holds it now: every class with its
 * directory. The kernel may have changed behind our back: a class whose
 * schemata were rewritten is answered from the directory of ours they were
 * rewritten in (the next change puts them back there); a class with no
 * directory at all keeps dir -1, and looks answer around it.
 */
static int view_current(struct rdtalloc *r, struct rc_view *v)
{
	unsigned int k;
	int ret;

	memset(v, 0, sizeof(*v));
	ret = list_dirs(r, r->st, v);
	if (!ret)
		ret = make_classes(r, r->st, v);
	for (k = 0; !ret && k < v->ncls; k++) {
		int d = dir_with_key(v, v->cls[k].key);

		v->cls[k].dir = d;
		if (d >= 0)
			v->dirs[d].cls = (int)k;
	}
	/*
	 * A class whose control group is missing (removed, a remount) keeps
	 * dir -1: looks answer from what exists and mark the rest as drift
	 * (rdtalloc_drift); a class whose directory holds other schemata is
	 * the drifted directory of ours, as a read-only open shows it.
	 */
	for (k = 0; !ret && k < v->ncls; k++) {
		int d = v->cls[k].dir;

		if (d < 0 && (d = dir_drifted(v)) >= 0) {
			v->cls[k].dir = d;
			v->dirs[d].cls = (int)k;
		}
	}
	if (ret)
		view_free(v);
	return ret;
}

/*
 * The class number the API reports for group g: n of rdtalloc-<n>, 0 for
 * the root; -ESTALE (said) when its control group is missing: drift.
 */
static int class_number(struct rdtalloc *r, const struct rc_view *v, int g, unsigned int *n)
{
	int k = v->cls_of[g];

	if (k >= 0 && v->cls[k].dir < 0)
		return rdt_fail(r, -ESTALE, "group %s: its control group is missing in %s (drift: "
				"the next change, or the agent, makes it again)",
				r->st->groups[g].name, ctx_of(r)->root);
	*n = k < 0 ? 0 : (unsigned int)v->dirs[v->cls[k].dir].n;
	return 0;
}

/* ---- Tasks as the kernel lists them ------------------------------------------- */

static int read_tasks(struct rdtalloc *r, const char *dir, pid_t **out, size_t *n)
{
	char path[PATH_MAX], *text, *p, *end;
	size_t cap = 64, k = 0;
	pid_t *v;
	int ret;

	rel_path(ctx_of(r), dir, "tasks", path, sizeof(path));
	ret = read_all(path, RC_TASKS_MAX, &text, NULL);
	if (ret)
		return rdt_fail(r, ret, "resctrl: cannot read %s: %s", path, strerror(-ret));
	v = malloc(cap * sizeof(*v));
	for (p = text; v && *p; p = end) {
		long t = strtol(p, &end, 10);

		if (end == p) {
			end = p + 1;
			continue;
		}
		if (t <= 0 || t > INT32_MAX)
			continue;
		if (k == cap) {
			pid_t *w = realloc(v, cap * 2 * sizeof(*v));

			if (!w) {
				free(v);
				v = NULL;
				break;
			}
			v = w;
			cap *= 2;
		}
		v[k++] = (pid_t)t;
	}
	free(text);
	if (!v)
		return rdt_fail(r, -ENOMEM, "out of memory");
	*out = v;
	*n = k;
	return 0;
}

static bool listed(const pid_t *v, size_t n, pid_t tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == tid)
			return true;
	return false;
}

static int cmp_pid_t(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

struct listing {
	pid_t *tids;		/* sorted */
	size_t n;
	bool read;
};

static bool in_listing(const struct listing *l, pid_t tid)
{
	return l->tids && bsearch(&tid, l->tids, l->n, sizeof(pid_t), cmp_pid_t);
}

/* The kernel's list of directory d's tasks (-1, ls the root's), read once, sorted. */
static int listing_of(struct rdtalloc *r, const struct rc_view *v, struct listing *ls, int d)
{
	struct listing *l = d < 0 ? ls : &ls[d];
	int ret;

	if (l->read)
		return 0;
	ret = read_tasks(r, d < 0 ? "" : v->dirs[d].name, &l->tids, &l->n);
	if (ret)
		return ret;
	qsort(l->tids, l->n, sizeof(pid_t), cmp_pid_t);
	l->read = true;
	return 0;
}

/*
 * The bound tasks of r->st that the kernel lists elsewhere than in their
 * class's control group: another tool (or an administrator's echo into a
 * tasks file) moved them. A class whose control group is missing is left to
 * the repair at open, which makes it again and puts its tasks back.
 */
static int find_moved(struct rdtalloc *r, struct rdt_moved **out, size_t *nout)
{
	const struct rdt_task_map *tm = &r->st->tasks;
	struct rc_view v = { 0 };
	struct listing *ls = NULL, root = { 0 };
	struct rdt_moved *mv = NULL;
	size_t n = 0, cap = 0, i;
	unsigned int d, k;
	int ret;

	*out = NULL;
	*nout = 0;
	if (!tm->len)
		return 0;
	ret = list_dirs(r, r->st, &v);
	if (!ret)
		ret = make_classes(r, r->st, &v);
	for (k = 0; !ret && k < v.ncls; k++) {
		int dd = dir_with_key(&v, v.cls[k].key);

		v.cls[k].dir = dd;
		if (dd >= 0)
			v.dirs[dd].cls = (int)k;
	}
	if (!ret && !(ls = calloc(v.ndirs + 1, sizeof(*ls))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < tm->cap; i++) {
		const struct rdt_task *t = &tm->slots[i];
		int cls, dir, where = -2;

		if (!t->tid || !rdt_core_binding_alive(r, t))
			continue;
		cls = v.cls_of[t->group];
		dir = cls < 0 ? -1 : v.cls[cls].dir;
		if (cls >= 0 && dir < 0)
			continue;	/* our control group is gone: the repair's */
		/*
		 * Its own directory's list first: only a task not there makes
		 * the others be read (a tasks file costs a walk of every
		 * thread in the kernel, and far more in the emulator).
		 */
		ret = dir >= 0 ? listing_of(r, &v, ls, dir) : listing_of(r, &v, &root, -1);
		if (ret)
			break;
		if (dir >= 0 ? in_listing(&ls[dir], t->tid) : in_listing(&root, t->tid))
			continue;
		if (dir >= 0 && !(ret = listing_of(r, &v, &root, -1)) && in_listing(&root, t->tid))
			where = -1;
		for (d = 0; !ret && where == -2 && d < v.ndirs; d++)
			if (!(ret = listing_of(r, &v, ls, (int)d)) && in_listing(&ls[d], t->tid))
				where = (int)d;
		if (ret)
			break;
		if (n == cap) {
			struct rdt_moved *nv = realloc(mv, (cap ? cap * 2 : 8) * sizeof(*nv));

			if (!nv) {
				ret = rdt_fail(r, -ENOMEM, "out of memory");
				break;
			}
			mv = nv;
			cap = cap ? cap * 2 : 8;
		}
		mv[n].tid = t->tid;
		mv[n].group = t->group;
		snprintf(mv[n].where, sizeof(mv[n].where), "%s",
			 where == -1 ? "" : where == -2 ? "?" : v.dirs[where].name);
		n++;
	}
	for (d = 0; ls && d < v.ndirs; d++)
		free(ls[d].tids);
	free(ls);
	free(root.tids);
	view_free(&v);
	if (ret) {
		free(mv);
		return ret;
	}
	*out = mv;
	*nout = n;
	return 0;
}

static int rc_moved_tasks(struct rdtalloc *r, struct rdt_moved **out, size_t *n)
{
	return find_moved(r, out, n);
}

/*
 * At a writable open: the bindings of tasks another tool moved are dropped
 * - what another tool did to a task is its business, as the root's schemata
 * are - and said. *moved: how many; where: the first few, for the reason.
 */
static int drop_moved(struct rdtalloc *r, unsigned int *moved, char *where, size_t len)
{
	struct rdt_moved *mv;
	size_t n, i, off = 0;
	int ret = find_moved(r, &mv, &n);

	*moved = 0;
	where[0] = '\0';
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (i < 3 && off < len)
			off += (size_t)snprintf(where + off, len - off, "%s%d to %s%s%s",
						i ? ", " : " (", (int)mv[i].tid,
						mv[i].where[0] ? "'" : "the root",
						mv[i].where[0] ? mv[i].where : "",
						mv[i].where[0] ? "'" : "");
		if (!r->ro)
			rdt_forget_task(r->st, mv[i].tid);
	}
	if (n && off < len)
		snprintf(where + off, len - off, "%s)", n > 3 ? ", ..." : "");
	*moved = (unsigned int)n;
	free(mv);
	return 0;
}

/* Tgid and PPid of a live thread, from /proc/TID/status. */
static int task_parents(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*tgid = *ppid = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5))
			*tgid = (pid_t)atoi(line + 5);
		else if (!strncmp(line, "PPid:", 5))
			*ppid = (pid_t)atoi(line + 5);
	}
	fclose(f);
	return 0;
}

/* The bound group of tid in st's table, when it names this very task; else -1. */
static int bound_group(struct rdtalloc *r, const struct rdt_state *st, pid_t tid)
{
	const struct rdt_task *t = rdt_task_map_get(&st->tasks, tid);

	return t && rdt_core_binding_alive(r, t) ? t->group : -1;
}

/*
 * Which of class k's groups a task the kernel lists in k's directory belongs
 * to: its own binding; else its thread group leader's, else its nearest
 * bound ancestor's (the kernel put it there at fork) when in this class;
 * else the class's oldest group.
 */
static int attribute(struct rdtalloc *r, const struct rdt_state *st, const struct rc_view *v,
		     int k, pid_t tid)
{
	pid_t tgid, ppid, cur = tid;
	int g, step;

	g = bound_group(r, st, tid);
	if (g > 0 && v->cls_of[g] == k)
		return g;
	g = rdt_core_cgroup_task_group_in(r, st, tid);
	if (g > 0 && v->cls_of[g] == k)
		return g;
	if (!task_parents(tid, &tgid, &ppid) && tgid != tid) {
		g = bound_group(r, st, tgid);
		if (g > 0 && v->cls_of[g] == k)
			return g;
	}
	for (step = 0; step < RC_ANCESTORS && !task_parents(cur, &tgid, &ppid) && ppid > 1;
	     step++) {
		g = bound_group(r, st, ppid);
		if (g > 0 && v->cls_of[g] == k)
			return g;
		cur = ppid;
	}
	return v->cls[k].groups[0];
}

/* ---- Realising a state ------------------------------------------------------------ */

/* The class of st's group g in view v of st, by the group's name and seq; -1: default or gone. */
static int class_in(const struct rdt_state *st, const struct rc_view *v,
		    const struct rdt_state *other, int og)
{
	int g;

	if (og <= 0)
		return -1;
	g = rdt_group_find(st, other->groups[og].name);
	if (g <= 0 || st->groups[g].seq != other->groups[og].seq)
		return -1;
	return v->cls_of[g];
}

/*
 * Choose a directory for every class: the one with its schemata already;
 * else the one most of its groups were in before (so their tasks and
 * children stay put); else any of ours no class wants; else a new one.
 */
static void assign_dirs(const struct rdt_state *st, struct rc_view *v,
			const struct rdt_state *before, struct rc_view *bv)
{
	unsigned int k, i, d;

	for (k = 0; k < v->ncls; k++) {
		int hit = dir_with_key(v, v->cls[k].key);

		if (hit >= 0) {
			v->cls[k].dir = hit;
			v->dirs[hit].cls = (int)k;
		}
	}
	for (k = 0; bv && k < v->ncls; k++) {
		unsigned int best = 0;
		int pick = -1;

		if (v->cls[k].dir >= 0)
			continue;
		for (d = 0; d < v->ndirs; d++) {
			unsigned int votes = 0;

			if (v->dirs[d].n < 0 || v->dirs[d].cls >= 0 || v->dirs[d].was < 0)
				continue;
			for (i = 0; i < v->cls[k].ngroups; i++) {
				int g = v->cls[k].groups[i];

				if (class_in(before, bv, st, g) == v->dirs[d].was)
					votes++;
			}
			if (votes > best) {
				best = votes;
				pick = (int)d;
			}
		}
		if (pick >= 0) {
			v->cls[k].dir = pick;
			v->dirs[pick].cls = (int)k;
		}
	}
	for (k = 0, d = 0; k < v->ncls; k++) {
		if (v->cls[k].dir >= 0)
			continue;
		while (d < v->ndirs && (v->dirs[d].n < 0 || v->dirs[d].cls >= 0))
			d++;
		if (d == v->ndirs)
			break;
		v->cls[k].dir = (int)d;
		v->dirs[d].cls = (int)k;
	}
	for (d = 0; d < v->ndirs; d++)
		v->dirs[d].remove = v->dirs[d].n > 0 && v->dirs[d].cls < 0;
}

/* Which class of the state before each of our directories held (by its schemata). */
static void mark_was(struct rc_view *v, const struct rc_view *bv)
{
	unsigned int d, k;

	for (d = 0; bv && d < v->ndirs; d++)
		for (k = 0; v->dirs[d].n > 0 && v->dirs[d].key_ok && k < bv->ncls; k++)
			if (!memcmp(v->dirs[d].key, bv->cls[k].key, v->nkey * sizeof(uint64_t))) {
				v->dirs[d].was = (int)k;
				break;
			}
}

static int check_closids(struct rdtalloc *r, const struct rc_view *v)
{
	struct rc_ctx *c = ctx_of(r);
	unsigned int k, need = 0;

	for (k = 0; k < v->ncls; k++)
		need += v->cls[k].dir < 0;
	if (!need || 1 + v->nours + v->nforeign + need <= c->num_closids)
		return 0;
	return rdt_fail(r, -ENOSPC, "resctrl has no free CLOSID: %u in use, %u of them not ours "
			"(%u distinct schemas need %u control groups beside the root; %u CLOSIDs "
			"in all)", 1 + v->nours + v->nforeign, v->nforeign, v->ncls, v->ncls,
			c->num_closids);
}

static int new_dir(struct rdtalloc *r, struct rc_view *v, int k)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_RMDIR };
	char path[PATH_MAX], status[256];
	unsigned int i;
	struct rc_dir *d;
	int n;

	for (n = 1; n <= RC_DIR_MAX; n++) {
		for (i = 0; i < v->ndirs && v->dirs[i].n != n; i++)
			;
		if (i == v->ndirs)
			break;
	}
	if (n > RC_DIR_MAX || v->ndirs == RC_DIR_MAX)
		return rdt_fail(r, -E2BIG, "resctrl: too many control groups");
	d = &v->dirs[v->ndirs];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s%d", c->prefix, n);
	rel_path(c, d->name, "", path, sizeof(path));
	if (mkdir(path, 0755)) {
		int err = -errno;

		last_status(c, status, sizeof(status));
		if (err == -ENOSPC && strstr(status, "RMID"))
			return rdt_fail(r, err, "resctrl is out of RMIDs: no control group for a "
					"new class (mkdir %s: %s); every control group and "
					"monitoring group holds one of its %u: remove a group, ours "
					"or another tool's", path, status, c->m->mon.rmids);
		if (err == -ENOSPC)
			return rdt_fail(r, err, "resctrl has no free CLOSID: %u in use, %u of them "
					"not ours (mkdir %s: %s)", 1 + v->nours + v->nforeign,
					v->nforeign, path, status[0] ? status : strerror(-err));
		return rdt_fail(r, err, "resctrl: mkdir %s: %s", path,
				status[0] && strcmp(status, "ok") ? status : strerror(-err));
	}
	snprintf(u.dir, sizeof(u.dir), "%s", d->name);
	if (undo_push(c, &u)) {
		rmdir(path);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	d->n = n;
	d->cls = k;
	d->was = -1;
	d->created = true;
	v->ndirs++;
	v->nours++;
	v->cls[k].dir = (int)(d - v->dirs);
	c->changes++;
	return 0;
}

/* Write a file, remembering what it held for the undo log; no write when equal. */
static int write_logged(struct rdtalloc *r, const char *dir, const char *file, const char *text,
			bool (*same)(const char *a, const char *b))
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_WRITE };
	char *old = NULL;
	int ret;

	ret = read_small(r, dir, file, &old);
	if (ret)
		return ret;
	if (same(old, text)) {
		free(old);
		return 0;
	}
	ret = write_file(r, dir, file, text);
	if (ret) {
		free(old);
		return ret;
	}
	snprintf(u.dir, sizeof(u.dir), "%s", dir);
	snprintf(u.file, sizeof(u.file), "%s", file);
	u.text = old;
	if (undo_push(c, &u)) {
		free(old);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	c->changes++;
	return 0;
}

static const struct rdt_state *same_st;

static bool same_schemata(const char *a, const char *b)
{
	size_t n = key_len(same_st);
	uint64_t *ka = calloc(n + 1, sizeof(uint64_t)), *kb = calloc(n + 1, sizeof(uint64_t));
	char *ca = strdup(a), *cb = strdup(b);
	bool same = ka && kb && ca && cb && !parse_schemata(same_st, ca, ka) &&
		    !parse_schemata(same_st, cb, kb) && !memcmp(ka, kb, n * sizeof(uint64_t));

	free(ka);
	free(kb);
	free(ca);
	free(cb);
	return same;
}

/* An empty cpus_list reads as a blank line; our parser wants at least one CPU. */
static int parse_cpus(const char *text, int **cpus, unsigned int *n)
{
	char err[64], *line;
	int ret;

	*cpus = NULL;
	*n = 0;
	if (!text[strspn(text, " \t\n")])
		return 0;
	line = strdup(text);
	if (!line)
		return -ENOMEM;
	trim(line);	/* the kernel ends it with a newline */
	ret = rdt_cpulist_parse(line, cpus, n, err, sizeof(err));
	free(line);
	return ret;
}

static bool same_cpus(const char *a, const char *b)
{
	int *ca = NULL, *cb = NULL;
	unsigned int na = 0, nb = 0;
	bool same;

	if (parse_cpus(a, &ca, &na) || parse_cpus(b, &cb, &nb))
		same = false;
	else
		same = na == nb && (!na || !memcmp(ca, cb, na * sizeof(int)));
	free(ca);
	free(cb);
	return same;
}

/* cur: what the directory holds, parsed by list_dirs (NULL: read it). */
static int write_schemata(struct rdtalloc *r, const char *dir, const uint64_t *key,
			  const uint64_t *cur)
{
	char *text;
	int ret;

	if (cur && !memcmp(cur, key, key_len(r->st) * sizeof(*key)))
		return 0;
	text = format_schemata(r->st, key);
	if (!text)
		return rdt_fail(r, -ENOMEM, "out of memory");
	same_st = r->st;
	ret = write_logged(r, dir, "schemata", text, same_schemata);
	free(text);
	return ret;
}

/* The CPUs bound to class k's groups, as a cpus_list line. */
static int class_cpus(struct rdtalloc *r, const struct rc_view *v, int k, char **out)
{
	const struct rdt_state *st = r->st;
	int *cpus = malloc(((size_t)st->m->ncpus + 1) * sizeof(int));
	size_t n = 0, len = (size_t)st->m->ncpus * 12 + 2;
	unsigned int c;

	*out = malloc(len);
	if (!cpus || !*out) {
		free(cpus);
		free(*out);
		*out = NULL;
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (c = 0; c < st->m->ncpus; c++)
		if (st->cpu_group[c] > 0 && v->cls_of[st->cpu_group[c]] == k)
			cpus[n++] = (int)c;
	rdt_cpulist_format(cpus, n, *out, len - 1);
	strcat(*out, "\n");
	free(cpus);
	return 0;
}

/* A CPU of ours must not be taken from a control group we did not create. */
static int check_foreign_cpus(struct rdtalloc *r, const struct rdt_state *st,
			      const struct rc_view *v)
{
	unsigned int d, i;
	int ret = 0;

	for (d = 0; d < v->ndirs && !ret; d++) {
		int *cpus = NULL;
		unsigned int n = 0;
		char *text;

		if (v->dirs[d].n > 0)
			continue;
		ret = read_small(r, v->dirs[d].name, "cpus_list", &text);
		if (ret)
			break;
		if (parse_cpus(text, &cpus, &n))
			n = 0;
		free(text);
		for (i = 0; i < n; i++) {
			int c = cpus[i];

			if (c >= 0 && (unsigned int)c < r->m->ncpus && st->cpu_group[c] > 0) {
				ctx_of(r)->fail_group = st->cpu_group[c];
				ret = rdt_fail(r, -EBUSY, "CPU %d is in resctrl group '%s', which "
					       "librdtalloc did not create: it will not take it (%s "
					       "wants it)", c, v->dirs[d].name,
					       st->groups[st->cpu_group[c]].name);
				break;
			}
		}
		free(cpus);
	}
	return ret;
}

static bool same_word(const char *a, const char *b)
{
	size_t na = strcspn(a, " \n"), nb = strcspn(b, " \n");

	return na == nb && !strncmp(a, b, na);
}

/* The first cache way key a and b share, as "L3 cache id 1: 0x30 and 0xf0"; false if none. */
static bool keys_overlap(const struct rdt_state *st, const uint64_t *a, const uint64_t *b,
			 char *where, size_t len)
{
	unsigned int s;

	for (s = 0; s < st->nslots; s++) {
		const struct rdt_slot *sl = &st->slot[s];
		uint64_t x, y;

		if (sl->res == RDT_MB)
			continue;
		x = a[s * 2] | (st->cdp[sl->res] ? a[s * 2 + 1] : 0);
		y = b[s * 2] | (st->cdp[sl->res] ? b[s * 2 + 1] : 0);
		if (x & y) {
			snprintf(where, len, "%s cache id %u: 0x%llx and 0x%llx",
				 rdt_res_name(sl->res), st->m->dom[sl->res][sl->dom].cache_id,
				 (unsigned long long)x, (unsigned long long)y);
			return true;
		}
	}
	return false;
}

/*
 * A control group not ours in exclusive mode: the kernel refuses any other
 * group's schemata on its ways, the root's included. Checked before the
 * first write, and by a dry run, so that both say what the kernel would.
 */
static int check_foreign_exclusive(struct rdtalloc *r, const struct rdt_state *st,
				   const struct rc_view *v)
{
	uint64_t *theirs = calloc(v->nkey + 1, sizeof(*theirs));
	char where[128], *text = NULL;
	unsigned int d;
	int k, ret = 0;

	if (!theirs)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (d = 0; d < v->ndirs && !ret; d++) {
		if (v->dirs[d].n > 0)
			continue;
		ret = read_small(r, v->dirs[d].name, "mode", &text);
		if (ret)
			break;
		if (!same_word(text, "exclusive")) {
			free(text);
			text = NULL;
			continue;
		}
		free(text);
		text = NULL;
		ret = read_small(r, v->dirs[d].name, "schemata", &text);
		if (ret)
			break;
		if (parse_schemata(st, text, theirs)) {
			free(text);
			text = NULL;
			continue;	/* nothing we know of: nothing of ours to meet */
		}
		free(text);
		text = NULL;
		for (k = -1; k < (int)v->ncls && !ret; k++) {
			const uint64_t *key = k < 0 ? v->keys : v->cls[k].key;

			if (keys_overlap(st, key, theirs, where, sizeof(where)) &&
			    (ctx_of(r)->fail_group = k < 0 ? 0 : v->cls[k].groups[0]) >= 0)
				ret = rdt_fail(r, -EBUSY, "resctrl: group %s would overlap '%s', "
					       "an exclusive group librdtalloc did not create (%s); "
					       "the kernel refuses that: nothing was changed",
					       k < 0 ? "default" : st->groups[v->cls[k].groups[0]].name,
					       v->dirs[d].name, where);
		}
	}
	free(text);
	free(theirs);
	return ret;
}

/* Move one task to dir, logging where it was; an exited task is no error. */
/*
 * tid to control group to and there to its MON group to_mon ("": the
 * control group's own RMID); from and from_mon say where it was, for the
 * undo, which puts it back in that order (a MON group takes only tasks of
 * its own control group).
 */
static int move_task(struct rdtalloc *r, pid_t tid, const char *to, const char *to_mon,
		     const char *from, const char *from_mon)
{
	struct rc_undo u = { .op = UNDO_TASK, .tid = tid };
	char text[24], md[RC_MON_DIR_MAX];
	int ret = 0;

	snprintf(text, sizeof(text), "%d\n", (int)tid);
	if (strcmp(to, from) || !*to_mon)
		ret = write_file(r, to, "tasks", text);
	if (!ret && *to_mon) {
		mon_dir(to, to_mon, md, sizeof(md));
		ret = write_file(r, md, "tasks", text);
	}
	if (ret == -ESRCH)
		return 0;
	if (ret)
		return ret;
	snprintf(u.dir, sizeof(u.dir), "%s", from);
	snprintf(u.mon, sizeof(u.mon), "%s", from_mon);
	if (undo_push(ctx_of(r), &u))
		return rdt_fail(r, -ENOMEM, "out of memory");
	ctx_of(r)->changes++;
	ctx_of(r)->moved++;
	return 0;
}

static const char *dir_name(const struct rc_view *v, int k)
{
	return k < 0 || v->cls[k].dir < 0 ? "" : v->dirs[v->cls[k].dir].name;
}

/*
 * Tasks the kernel lists in a directory whose class changed (or that goes):
 * bound ones move with their binding below; the others (children forked in
 * it) follow the group they are counted in.
 */
static int move_unbound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
			const struct rc_view *bv, unsigned int d)
{
	const char *from = v->dirs[d].name;
	pid_t *tids = NULL;
	size_t n = 0, i;
	int ret;

	ret = read_tasks(r, from, &tids, &n);
	for (i = 0; !ret && i < n; i++) {
		int og, g, k;

		if (bound_group(r, r->st, tids[i]) >= 0 || bound_group(r, before, tids[i]) >= 0)
			continue;
		og = attribute(r, before, bv, v->dirs[d].was, tids[i]);
		g = rdt_group_find(r->st, before->groups[og].name);
		if (g > 0 && r->st->groups[g].seq != before->groups[og].seq)
			g = -1;
		k = g > 0 ? v->cls_of[g] : -1;
		if (strcmp(dir_name(v, k), from))
			ret = move_task(r, tids[i], dir_name(v, k), g > 0 ? mon_of(r, r->st, g) : "",
					from, "");
	}
	free(tids);
	return ret;
}

static bool created_any(const struct rc_view *v)
{
	unsigned int d;

	for (d = 0; d < v->ndirs; d++)
		if (v->dirs[d].created)
			return true;
	return false;
}

/* Every bound task whose class changed goes to its class's directory. */
static int move_bound(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		      const struct rc_view *bv, const char **was_dir)
{
	const struct rdt_task_map *tm = &r->st->tasks;
	size_t i;
	int ret = 0;

	for (i = 0; i < tm->cap && !ret; i++) {
		const struct rdt_task *t = &tm->slots[i];
		const char *to, *to_mon, *from = NULL, *from_mon = "";
		int bg;

		if (!t->tid || !rdt_core_binding_alive(r, t))
			continue;
		to = dir_name(v, v->cls_of[t->group]);
		to_mon = mon_of(r, r->st, t->group);
		bg = before ? bound_group(r, before, t->tid) : -1;
		if (bg >= 0) {
			int bk = bv->cls_of[bg];

			from = bk < 0 ? "" : was_dir[bk];
			from_mon = from ? mon_of(r, before, bg) : "";
			if (from && !strcmp(from, to) && !strcmp(from_mon, to_mon) &&
			    !mon_fresh(r, t->group))
				continue;
		}
		ret = move_task(r, t->tid, to, to_mon, from ? from : "", from_mon);
	}
	/* tasks bound before and not now are the default group's */
	for (i = 0; before && i < before->tasks.cap && !ret; i++) {
		const struct rdt_task *t = &before->tasks.slots[i];
		int bk;

		if (!t->tid || rdt_task_map_get(tm, t->tid) || !rdt_core_binding_alive(r, t))
			continue;
		bk = bv->cls_of[t->group];
		if (bk < 0 && *mon_of(r, before, t->group))	/* from a MON group of the root's */
			ret = move_task(r, t->tid, "", "", "", mon_of(r, before, t->group));
		else if (bk >= 0 && was_dir[bk])
			ret = move_task(r, t->tid, "", "", was_dir[bk], mon_of(r, before, t->group));
	}
	return ret;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Tasks of bound cgroups into their group's class, and those of cgroups
 * unbound by this call back to the root. The kernel knows no cgroups: a
 * child forked in a class stays there by itself, but a task that enters a
 * bound cgroup from outside (systemd starting a service's process, a
 * container's exec) is moved only here - at the next realise, which every
 * open of the state and every write call does.
 */
/* The tasks of our groups' MON groups, each read once when first asked. */
struct rc_seen {
	pid_t **tids;		/* [ngroups], sorted; NULL: not read yet */
	size_t *n;
	unsigned int ngroups;
};

static void seen_free(struct rc_seen *sn)
{
	unsigned int g;

	for (g = 0; sn->tids && g < sn->ngroups; g++)
		free(sn->tids[g]);
	free(sn->tids);
	free(sn->n);
}

/* Is tid in group g's MON group (in control group dir)? 1, 0, or -errno. */
static int in_mon(struct rdtalloc *r, struct rc_seen *sn, const char *dir, int g, pid_t tid)
{
	char md[RC_MON_DIR_MAX];
	int ret;

	if (!sn->tids) {
		sn->ngroups = r->st->ngroups;
		sn->tids = calloc(sn->ngroups, sizeof(*sn->tids));
		sn->n = calloc(sn->ngroups, sizeof(*sn->n));
		if (!sn->tids || !sn->n)
			return rdt_fail(r, -ENOMEM, "out of memory");
	}
	if (!sn->tids[g]) {
		mon_dir(dir, r->st->groups[g].name, md, sizeof(md));
		ret = read_tasks(r, md, &sn->tids[g], &sn->n[g]);
		if (ret)
			return ret;
		if (!sn->tids[g] && !(sn->tids[g] = malloc(sizeof(pid_t))))
			return rdt_fail(r, -ENOMEM, "out of memory");
		qsort(sn->tids[g], sn->n[g], sizeof(pid_t), cmp_tid);
	}
	return sn->n[g] && bsearch(&tid, sn->tids[g], sn->n[g], sizeof(pid_t), cmp_tid);
}

static int move_cgroups(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before)
{
	pid_t *now = NULL, *old = NULL, **lists = NULL;
	size_t nnow = 0, nold = 0, *nl = NULL, i;
	struct rc_seen seen = { 0 };
	const char *to_mon;
	unsigned int d;
	int ret;

	if (!r->st->ncgroups && !(before && before->ncgroups))
		return 0;
	ret = rdt_core_cgroup_members_in(r, r->st, -1, &now, &nnow);
	if (!ret && before)
		ret = rdt_core_cgroup_members_in(r, before, -1, &old, &nold);
	lists = calloc(v->ndirs + 1, sizeof(*lists));
	nl = calloc(v->ndirs + 1, sizeof(*nl));
	if (!ret && (!lists || !nl))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	/* where the kernel has each task now, in our directories */
	for (d = 0; !ret && d < v->ndirs; d++) {
		if (v->dirs[d].n < 0 || v->dirs[d].remove)
			continue;
		ret = read_tasks(r, v->dirs[d].name, &lists[d], &nl[d]);
		if (!ret && nl[d])
			qsort(lists[d], nl[d], sizeof(pid_t), cmp_tid);
	}
	for (i = 0; !ret && i < nnow + nold; i++) {
		pid_t tid = i < nnow ? now[i] : old[i - nnow];
		const char *to, *from = NULL;
		int g;

		if (i >= nnow && nnow && bsearch(&tid, now, nnow, sizeof(pid_t), cmp_tid))
			continue;	/* seen already */
		if (bound_group(r, r->st, tid) >= 0)
			continue;	/* its own binding, placed by move_bound */
		g = rdt_core_cgroup_task_group(r, tid);
		to = dir_name(v, g > 0 ? v->cls_of[g] : -1);
		to_mon = g > 0 ? mon_of(r, r->st, g) : "";
		for (d = 0; !from && d < v->ndirs; d++)
			if (nl[d] && bsearch(&tid, lists[d], nl[d], sizeof(pid_t), cmp_tid))
				from = v->dirs[d].name;
		if (!from && *to_mon && !*to)
			from = "";	/* the root, where a group sharing its CLOSID is too */
		/* in its control group already, and in its MON group where it has one */
		if (from && !strcmp(from, to)) {
			int in = *to_mon ? in_mon(r, &seen, to, g, tid) : 1;

			if (in < 0) {
				ret = in;
				break;
			}
			if (in)
				continue;
		}
		/* in the root or a control group not ours, and the default wanted: stay */
		if (!from && !*to)
			continue;
		ret = move_task(r, tid, to, to_mon, from ? from : "", "");
	}
	for (d = 0; lists && d < v->ndirs; d++)
		free(lists[d]);
	seen_free(&seen);
	free(lists);
	free(nl);
	free(now);
	free(old);
	return ret;
}

static int remove_dir(struct rdtalloc *r, struct rc_view *v, unsigned int d)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_undo u = { .op = UNDO_MKDIR };
	char path[PATH_MAX];
	int ret;

	snprintf(u.dir, sizeof(u.dir), "%s", v->dirs[d].name);
	ret = read_small(r, u.dir, "schemata", &u.text);
	if (!ret)
		ret = read_small(r, u.dir, "cpus_list", &u.text2);
	if (ret)
		goto fail;
	rel_path(c, u.dir, "", path, sizeof(path));
	if (rmdir(path)) {
		ret = rdt_fail(r, -errno, "resctrl: rmdir %s: %s", path, strerror(errno));
		goto fail;
	}
	if (undo_push(c, &u)) {
		ret = rdt_fail(r, -ENOMEM, "out of memory");
		goto fail;
	}
	c->changes++;
	return 0;
fail:
	free(u.text);
	free(u.text2);
	return ret;
}

/* " (a, b, c, ...)": the control groups not ours, for info */
static void names_not_ours(const struct rc_view *v, char *buf, size_t len)
{
	unsigned int d, k = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (d = 0; d < v->ndirs && off < len; d++) {
		if (v->dirs[d].n > 0)
			continue;
		if (k++ == 3) {
			off += (size_t)snprintf(buf + off, len - off, ", ...");
			break;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%.40s", k > 1 ? ", " : " (",
					v->dirs[d].name);
	}
	if (k && off < len)
		snprintf(buf + off, len - off, ")");
}

/* Is any group of class k (-1: the default group) of st exclusive? */
static bool class_exclusive(const struct rdt_state *st, const struct rc_view *v, int k)
{
	unsigned int i;

	if (k < 0)
		return st->groups[0].exclusive;
	for (i = 0; i < v->cls[k].ngroups; i++)
		if (st->groups[v->cls[k].groups[i]].exclusive)
			return true;
	return false;
}

/*
 * The mode file of the root and of each of our control groups, as the
 * groups' modes want it: the pass for `exclusive` (on) or for `shareable`.
 * Only where a mode may differ is the file read: a group exclusive now or
 * in the state before, or every one at open.
 */
static int write_modes(struct rdtalloc *r, struct rc_view *v, const struct rdt_state *before,
		       const struct rc_view *bv, bool on)
{
	int k, ret = 0;

	for (k = -1; !ret && k < (int)v->ncls; k++) {
		const char *dir = k < 0 ? "" : v->dirs[v->cls[k].dir].name;
		int was = k < 0 ? -1 : v->dirs[v->cls[k].dir].was;
		bool want = class_exclusive(r->st, v, k);
		bool had = !before || (k < 0 ? before->groups[0].exclusive :
				       was >= 0 && class_exclusive(before, bv, was));

		if (want != on || (!want && !had))
			continue;
		ret = write_logged(r, dir, "mode", on ? "exclusive\n" : "shareable\n", same_word);
	}
	/*
	 * A control group of ours on its way out may still be exclusive in the
	 * kernel (a reset, an apply --prune): shareable before any schema is
	 * widened onto its ways, as it is removed only at the end.
	 */
	for (unsigned int d = 0; !ret && !on && d < v->ndirs; d++)
		if (v->dirs[d].n > 0 && v->dirs[d].remove)
			ret = write_logged(r, v->dirs[d].name, "mode", "shareable\n", same_word);
	return ret;
}

/*
 * Make the kernel hold r->st. before: the state the kernel held (NULL at
 * open: not known, the kernel is read as it is). On failure the steps done
 * are undone.
 */
/*
 * What making the kernel hold st takes, from before (NULL: not known):
 * the view of the kernel's directories with a control group for every
 * class, and every check the kernel would make that can be made before
 * the first write. Used by realise() and by a dry run (rc_check).
 */
static int plan(struct rdtalloc *r, const struct rdt_state *st, const struct rdt_state *before,
		struct rc_view *v, struct rc_view *bv)
{
	int ret;

	ret = list_dirs(r, st, v);
	if (!ret)
		ret = make_classes(r, st, v);
	if (!ret && before)
		ret = make_classes(r, before, bv);
	if (ret)
		return ret;
	mark_was(v, before ? bv : NULL);
	assign_dirs(st, v, before, before ? bv : NULL);
	ret = check_closids(r, v);
	if (!ret)
		ret = check_foreign_cpus(r, st, v);
	if (!ret)
		ret = check_foreign_exclusive(r, st, v);
	return ret;
}

/* ---- Monitoring groups: each group of ours a MON group of its class ------------ */

/* The MON groups the kernel has in one control group: names, as read. */
struct rc_mons {
	char **names;
	size_t n;
};

static void mons_free(struct rc_mons *m, unsigned int n)
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

static bool mons_has(const struct rc_mons *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return true;
	return false;
}

/* The entries of dir/mon_groups, bounded; a directory without one (just made) has none. */
static int list_mons(struct rdtalloc *r, const char *dir, struct rc_mons *out)
{
	char path[PATH_MAX], md[RC_MON_DIR_MAX];
	struct dirent *e;
	char **v;
	DIR *dp;
	int ret = 0;

	mon_dir(dir, "", md, sizeof(md));
	rel_path(ctx_of(r), md, "", path, sizeof(path));
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
		ret = list_mons(r, dir_name(v, cls), &m[k]);
	}
	if (ret) {
		mons_free(m, v->ncls + 1);
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

	for (g = 1; g < (int)r->st->ngroups; g++) {
		const char *name = mon_of(r, r->st, g);
		struct rc_undo u = { .op = UNDO_RMDIR };
		int k = v->cls_of[g], err;

		if (!r->st->groups[g].live || !*name || mons_has(&m[k + 1], name))
			continue;
		mon_dir(dir_name(v, k), name, u.dir, sizeof(u.dir));
		rel_path(c, u.dir, "", path, sizeof(path));
		if (mkdir(path, 0755)) {
			err = -errno;
			last_status(c, status, sizeof(status));
			if (err == -ENOSPC)
				return rdt_fail(r, err, "resctrl is out of RMIDs: no monitoring group "
						"for group '%s' (mkdir %s: %s); every control group "
						"and monitoring group holds one of its %u: remove a "
						"group, ours or another tool's", name, path,
						status[0] ? status : strerror(-err), c->m->mon.rmids);
			return rdt_fail(r, err, "resctrl: mkdir %s: %s", path,
					status[0] && strcmp(status, "ok") ? status : strerror(-err));
		}
		if (undo_push(c, &u)) {
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
	int g = rdt_group_find(r->st, name);

	return g > 0 && r->st->groups[g].live && v->cls_of[g] == k && *mon_of(r, r->st, g);
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
			if (cls < 0 && rdt_group_find(r->st, name) < 0 &&
			    !(before && rdt_group_find(before, name) >= 0))
				continue;
			mon_dir(dir_name(v, cls), name, u.dir, sizeof(u.dir));
			rel_path(c, u.dir, "", path, sizeof(path));
			if (rmdir(path))
				return rdt_fail(r, -errno, "resctrl: rmdir %s: %s", path,
						strerror(errno));
			if (undo_push(c, &u))
				return rdt_fail(r, -ENOMEM, "out of memory");
			c->changes++;
		}
	}
	return 0;
}

/* A group's bound CPUs are its MON group's too, so that they count with it. */
static int mon_cpus(struct rdtalloc *r, const struct rc_view *v, const struct rdt_state *before)
{
	const struct rdt_state *st = r->st;
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
		if (!n && !had && !mon_fresh(r, g))
			continue;	/* none then, none now */
		rdt_cpulist_format(cpus, n, text, len - 1);
		strcat(text, "\n");
		mon_dir(dir_name(v, v->cls_of[g]), st->groups[g].name, md, sizeof(md));
		ret = write_logged(r, md, "cpus_list", text, same_cpus);
	}
	free(cpus);
	free(text);
	return ret;
}

static int realise(struct rdtalloc *r, const struct rdt_state *before)
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
	ret = plan(r, r->st, before, &v, &bv);
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
			ret = new_dir(r, &v, (int)k);
	/* shareable first, so that no schema below meets a mode on its way out */
	if (!ret)
		ret = write_modes(r, &v, before, &bv, false);
	/*
	 * The root's schemata are written only when the default group's schema
	 * was changed by this call: at open they were adopted (adopt_root).
	 */
	if (!ret && before && memcmp(v.keys, bv.keys, v.nkey * sizeof(*v.keys)))
		ret = write_schemata(r, "", v.keys, NULL);
	for (k = 0; !ret && k < v.ncls; k++) {
		const struct rc_dir *dir = &v.dirs[v.cls[k].dir];

		ret = write_schemata(r, dir->name, v.cls[k].key,
				     dir->key_ok && !dir->created ? dir->key : NULL);
	}
	/* exclusive last, when every schema is in place */
	if (!ret)
		ret = write_modes(r, &v, before, &bv, true);
	for (k = 0; !ret && k < v.ncls; k++) {
		ret = class_cpus(r, &v, (int)k, &text);
		if (!ret)
			ret = write_logged(r, v.dirs[v.cls[k].dir].name, "cpus_list", text,
					   same_cpus);
		free(text);
		text = NULL;
	}
	/* the MON groups, before any task moves into one */
	if (!ret && c->mon) {
		c->mon_fresh = calloc(r->st->ngroups ? r->st->ngroups : 1, sizeof(bool));
		ret = c->mon_fresh ? read_mons(r, &v, &mons) : rdt_fail(r, -ENOMEM, "out of memory");
		if (!ret)
			ret = make_mons(r, &v, mons);
		if (!ret)
			ret = mon_cpus(r, &v, before);
	}
	for (d = 0; !ret && before && d < v.ndirs; d++) {
		struct rc_dir *dir = &v.dirs[d];
		bool same;

		if (dir->n < 0 || dir->created || dir->was < 0)
			continue;
		/* the same groups as before: its children stay where they are */
		same = !dir->remove && bv.cls[dir->was].ngroups == v.cls[dir->cls].ngroups;
		for (k = 0; same && k < bv.cls[dir->was].ngroups; k++)
			same = class_in(r->st, &v, before, bv.cls[dir->was].groups[k]) == dir->cls;
		if (!same)
			ret = move_unbound(r, &v, before, &bv, d);
	}
	/*
	 * At open (no state before) the bound tasks are placed again only when
	 * a control group of ours had to be made (a reboot, a remount): tasks
	 * files are the dearest to read, and nobody but us moves our tasks.
	 */
	if (!ret && (before || created_any(&v) || any_fresh(r)))
		ret = move_bound(r, &v, before, &bv, was_dir);
	if (!ret)
		ret = move_cgroups(r, &v, before);
	if (!ret && mons)
		ret = remove_mons(r, &v, before, mons);
	/* remove the directories no class holds: their CPUs and tasks go to the root */
	for (d = 0; !ret && d < v.ndirs; d++)
		if (v.dirs[d].remove)
			ret = remove_dir(r, &v, d);
	if (ret) {
		undo_replay(r);
	} else {
		c->ours = v.nours;
		c->foreign = v.nforeign;
		for (d = 0; d < v.ndirs; d++)
			c->ours -= v.dirs[d].remove;
		names_not_ours(&v, c->foreign_names, sizeof(c->foreign_names));
	}
out:
	mons_free(mons, v.ncls + 1);
	free(c->mon_fresh);
	c->mon_fresh = NULL;
	free(was_dir);
	view_free(&v);
	view_free(&bv);
	return ret;
}

/*
 * The root group's schemata belong to whoever set them (an administrator,
 * another tool, us through the default group): at open, what the kernel's
 * root holds becomes the default group's schema, never the other way round.
 * *adopted: the state changed. A root the state cannot hold (an exclusive
 * group of ours on its ways) is an error that changes nothing.
 */
static int adopt_root(struct rdtalloc *r, bool *adopted)
{
	struct rdt_state *st = r->st;
	size_t n = key_len(st);
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
	ret = read_small(r, "", "schemata", &text);
	if (ret)
		goto out;
	shown = strdup(text);
	if (parse_schemata_seen(st, text, key, seen)) {
		ret = rdt_fail(r, -EPROTO, "resctrl: the root group's schemata cannot be read: "
			       "'%.200s'", shown ? shown : "");
		free(shown);
		goto out;
	}
	free(shown);
	group_key(st, 0, cur);
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

/* ---- Group ops ----------------------------------------------------------------- */

/*
 * Bindings of tasks that have exited: the kernel dropped them from its
 * tasks files; the state drops them too. Returns how many.
 */
static unsigned int drop_exited(struct rdtalloc *r)
{
	struct rdt_task_map *tm = &r->st->tasks;
	unsigned int dropped = 0;
	size_t i = 0;

	while (i < tm->cap) {
		struct rdt_task *t = &tm->slots[i];

		if (t->tid && !rdt_core_binding_alive(r, t)) {
			rdt_forget_task(r->st, t->tid);	/* shifts a later entry here */
			dropped++;
			continue;
		}
		i++;
	}
	return dropped;
}

/*
 * The reason line's resctrl part: the CLOSIDs in use as the open left them
 * (c->ours, c->foreign), then what the open found. ro: found, not acted on.
 */
static void say_open(struct rdtalloc *r, bool adopted, unsigned int exited, unsigned int gone,
		     unsigned int moved, const char *moved_where, const char *kernel)
{
	struct rc_ctx *c = ctx_of(r);
	unsigned int free_ids;
	size_t n = strlen(r->reason);

	free_ids = c->num_closids > c->ours + 1 + c->foreign ?
		   c->num_closids - c->ours - 1 - c->foreign : 0;
	snprintf(r->reason + n, sizeof(r->reason) - n, "; resctrl at %s%s%s: CLOSIDs in use: the "
		 "root, %u group%s of ours, %u not ours%s; %u free of %u%s", c->root,
		 c->cdp[RDT_L3] ? " (CDP on)" : "",
		 c->mba_mbps ? " (mba_MBps: MB in MBps, left to the kernel)" : "", c->ours,
		 c->ours == 1 ? "" : "s", c->foreign, c->foreign_names, free_ids, c->num_closids,
		 kernel);
	n = strlen(r->reason);
	if (adopted)
		snprintf(r->reason + n, sizeof(r->reason) - n, r->ro ?
			 "; the root group's schemata were set outside this state (shown as the "
			 "default group's; the next change adopts them)" :
			 "; the root group's schemata, set outside this state, were adopted as the "
			 "default group's schema");
	n = strlen(r->reason);
	if (exited)
		snprintf(r->reason + n, sizeof(r->reason) - n, "; %u bound task%s had exited "
			 "and %s", exited, exited == 1 ? "" : "s", r->ro ?
			 "is not shown (read only: the next change drops it)" :
			 exited == 1 ? "was dropped" : "were dropped");
	n = strlen(r->reason);
	if (gone)
		snprintf(r->reason + n, sizeof(r->reason) - n, "; %u bound cgroup%s had been "
			 "removed and %s", gone, gone == 1 ? "" : "s", r->ro ?
			 "is not shown (read only: the next change drops it)" :
			 gone == 1 ? "was dropped" : "were dropped");
	n = strlen(r->reason);
	if (moved)
		snprintf(r->reason + n, sizeof(r->reason) - n, "; %u bound task%s had been moved "
			 "by another tool%s and %s", moved, moved == 1 ? "" : "s", moved_where,
			 r->ro ? (moved == 1 ? "its binding goes at the next change" :
				  "their bindings go at the next change") :
			 (moved == 1 ? "its binding was dropped" : "their bindings were dropped"));
}

/*
 * Read only: where does the kernel differ from the state? Our control
 * groups missing, left over, or holding other schemata or CPUs. Nothing
 * is written; a kernel that cannot hold the state at all says why.
 */
static void describe_drift(struct rdtalloc *r, char *buf, size_t len)
{
	struct rc_view v = { 0 }, bv = { 0 };
	unsigned int k, d, missing = 0, stale = 0, changed = 0, nomon = 0;
	char *text = NULL, *cpus = NULL, monpart[48] = "";
	struct rc_mons *mons = NULL;
	int g;

	buf[0] = '\0';
	if (plan(r, r->st, NULL, &v, &bv)) {
		snprintf(buf, len, "the kernel cannot hold the state now: %s",
			 rdtalloc_errmsg(r));
		goto out;
	}
	for (k = 0; k < v.ncls; k++) {
		const struct rc_dir *dir;

		if (v.cls[k].dir < 0) {
			missing++;
			continue;
		}
		dir = &v.dirs[v.cls[k].dir];
		if (!dir->key_ok || memcmp(dir->key, v.cls[k].key, v.nkey * sizeof(uint64_t))) {
			changed++;
			continue;
		}
		if (class_cpus(r, &v, (int)k, &cpus) || read_small(r, dir->name, "cpus_list", &text)) {
			changed++;
		} else if (!same_cpus(text, cpus)) {
			changed++;
		}
		free(text);
		free(cpus);
		text = cpus = NULL;
	}
	for (d = 0; d < v.ndirs; d++)
		stale += v.dirs[d].n > 0 && v.dirs[d].remove;
	/* a MON group of ours removed (a monitoring tool's cleanup, an rmdir) */
	if (ctx_of(r)->mon && (mons = calloc(v.ncls + 1, sizeof(*mons)))) {
		for (k = 0; k <= v.ncls; k++)
			if ((k == 0 || v.cls[k - 1].dir >= 0) &&
			    list_mons(r, dir_name(&v, (int)k - 1), &mons[k]))
				break;
		for (g = 1; k > v.ncls && g < (int)r->st->ngroups; g++) {
			const char *name = mon_of(r, r->st, g);
			int kc = v.cls_of[g];

			if (r->st->groups[g].live && *name && (kc < 0 || v.cls[kc].dir >= 0) &&
			    !mons_has(&mons[kc + 1], name))
				nomon++;
		}
	}
	/* the CLOSIDs in use as the kernel has them */
	ctx_of(r)->ours = v.nours;
	ctx_of(r)->foreign = v.nforeign;
	names_not_ours(&v, ctx_of(r)->foreign_names, sizeof(ctx_of(r)->foreign_names));
	if (nomon)
		snprintf(monpart, sizeof(monpart), ", %u monitoring group%s missing", nomon,
			 nomon == 1 ? "" : "s");
	if (missing || stale || changed || nomon)
		snprintf(buf, len, "the kernel disagrees with the state (%u control group%s of ours "
			 "missing, %u left over, %u with other schemata or CPUs%s%s)", missing,
			 missing == 1 ? "" : "s", stale, changed, monpart,
			 r->ro ? "; read only: the next change brings it back" : "");
out:
	rdt_clear_err(r);
	mons_free(mons, v.ncls + 1);
	view_free(&v);
	view_free(&bv);
}

/*
 * A read-only open (RDTALLOC_F_READ_ONLY): the state as the kernel would
 * show it - the root's schemata as the default group's, exited tasks and
 * removed cgroups gone - in memory only, and what differs said.
 */
static int rc_open_ro(struct rdtalloc *r)
{
	char drift[384] = "; ", where[192];
	unsigned int exited, gone, moved = 0;
	bool adopted = false;
	int ret;

	exited = drop_exited(r);
	gone = rdt_core_cgroup_gc(r);
	ret = adopt_root(r, &adopted);
	if (!ret)
		ret = drop_moved(r, &moved, where, sizeof(where));
	if (ret)
		return rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
	describe_drift(r, drift + 2, sizeof(drift) - 2);
	say_open(r, adopted, exited, gone, moved, where, drift[2] ? drift : "");
	return 0;
}

static int rc_open_ops(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int res, exited = 0, gone = 0, moved = 0;
	char where[192] = "";
	bool adopted = false;
	int ret;

	snprintf(c->prefix, sizeof(c->prefix), "%s%s%s", RC_PREFIX, r->st->id,
		 r->st->id[0] ? "-" : "");
	/* CDP is how resctrl was mounted: a new state has it as the kernel does */
	for (res = 0, ret = 0; r->fresh && !ret && res < RDT_NRES; res++)
		if (c->cdp[res] && !r->st->cdp[res] && rdt_set_cdp(r->st, res, true))
			ret = rdt_fail(NULL, -EINVAL, "resctrl: %s", r->st->err);
	if (ret || r->peek)	/* a look at a new state: the kernel is not ours to change */
		return ret;
	if (r->ro)
		return rc_open_ro(r);
	if (r->store && (ret = rdt_store_lock(r->store, true))) {
		rdt_fail(NULL, ret, "cannot lock %s", rdt_store_path(r->store));
		return ret;
	}
	if (!ret)
		exited = drop_exited(r);
	if (!ret)
		gone = rdt_core_cgroup_gc(r);
	if (!ret)
		ret = rc_lock(r);
	if (!ret)
		ret = adopt_root(r, &adopted);
	/* before realise: our own moves must not look like another tool's */
	if (!ret)
		ret = drop_moved(r, &moved, where, sizeof(where));
	if (!ret)
		ret = realise(r, NULL);
	/* what was done, from the undo log: said by the first sync (agent, rdtctl sync) */
	c->open_what[0] = '\0';
	if (!ret && !r->fresh && c->changes > c->moved) {
		char done[384];

		describe_done(c, done, sizeof(done));
		c->open_repairs = c->changes - c->moved;
		c->open_moved = c->moved;
		snprintf(c->open_what, sizeof(c->open_what), "resctrl differed from the state: %s",
			 done);
	}
	if (ret)
		rdt_fail(NULL, ret, "%s", rdtalloc_errmsg(r));
	if (!ret && r->store && (r->fresh || c->changes || exited || gone || adopted || moved)) {
		ret = rdt_store_write(r->store, r->st, r->be->name, err, sizeof(err));
		if (ret)
			rdt_fail(NULL, ret, "%s", err);
	}
	undo_free(c);
	rc_unlock(r);
	if (r->store)
		rdt_store_unlock(r->store);
	if (ret)
		return ret;
	rdt_clear_err(r);
	say_open(r, adopted, exited, gone, moved, where, c->changes && !r->fresh ?
		 "; the kernel disagreed with the state and was brought back to it" : "");
	return 0;
}

static void rc_close_ops(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	if (!c)
		return;
	undo_free(c);
	free(c->undo);
	c->undo = NULL;
	c->cap_undo = 0;
	free(c->place_dir);
	c->place_dir = NULL;
	c->place_n = 0;
	c->place_ok = false;
	rdt_state_free(c->before);
	c->before = NULL;
}

static int rc_begin(struct rdtalloc *r, bool write)
{
	struct rc_ctx *c = ctx_of(r);

	if (write && rdt_state_clone(r->st, &c->before))
		return rdt_fail(r, -ENOMEM, "out of memory");
	return 0;
}

/* The lock is held until rc_finish: an undo after a failed state write is part of it. */
static int rc_commit(struct rdtalloc *r)
{
	int ret = rc_lock(r);

	return ret ? ret : realise(r, ctx_of(r)->before);
}

static void rc_abort(struct rdtalloc *r, bool committed)
{
	if (committed)
		undo_replay(r);
}

static void rc_finish(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);

	/* a call may lock twice (a sync, then its commit): it ends with none */
	while (c->lock_depth)
		rc_unlock(r);
	undo_free(c);
	rdt_state_free(c->before);
	c->before = NULL;
}

/*
 * The agent's sync (rdtalloc_sync): what an open does to a kernel that
 * changed behind our back, inside a write call - exited tasks and removed
 * cgroups dropped, the root adopted, bindings another tool moved dropped,
 * and, when the kernel differs from the state or full is asked, realise:
 * our control and MON groups, schemata and CPUs back, every bound
 * cgroup's tasks placed. The resctrl lock is held until finish.
 */
static int rc_sync(struct rdtalloc *r, bool full, struct rdt_sync_out *out)
{
	struct rc_ctx *c = ctx_of(r);
	char drift[384] = "", where[192] = "";
	unsigned int exited, gone, moved = 0;
	bool adopted = false;
	size_t n;
	int ret;

	exited = drop_exited(r);
	gone = rdt_core_cgroup_gc(r);
	ret = rc_lock(r);
	if (!ret)
		ret = adopt_root(r, &adopted);
	if (!ret)
		ret = drop_moved(r, &moved, where, sizeof(where));
	if (ret)
		return ret;
	describe_drift(r, drift, sizeof(drift));
	out->dropped = exited + gone + moved;
	out->state_changed = exited || gone || adopted || moved;
	if (drift[0] || full || out->state_changed) {
		ret = realise(r, NULL);
		if (ret)
			return ret;
		out->moved = c->moved;
		out->repairs = c->changes - c->moved;
	}
	n = 0;
	/* what this context's open repaired, said once */
	if (c->open_what[0]) {
		n += (size_t)snprintf(out->what, sizeof(out->what), "%s", c->open_what);
		out->repairs += c->open_repairs;
		out->moved += c->open_moved;
		c->open_what[0] = '\0';
	}
	if (drift[0] && c->changes > c->moved && n < sizeof(out->what)) {
		char done[320];

		describe_done(c, done, sizeof(done));
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%s: %s",
				      n ? "; " : "", drift, done);
	}
	if (adopted && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%sthe root group's "
				      "schemata, set outside this state, were adopted",
				      n ? "; " : "");
	if (exited && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound task%s "
				      "had exited", n ? "; " : "", exited, exited == 1 ? "" : "s");
	if (gone && n < sizeof(out->what))
		n += (size_t)snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound cgroup%s "
				      "had been removed", n ? "; " : "", gone, gone == 1 ? "" : "s");
	if (moved && n < sizeof(out->what))
		snprintf(out->what + n, sizeof(out->what) - n, "%s%u bound task%s had been moved "
			 "by another tool%s: binding dropped", n ? "; " : "", moved,
			 moved == 1 ? "" : "s", where);
	return 0;
}

/*
 * Tasks that just joined a cgroup (the agent's events): each written into
 * its group's control group and MON group now, when the state puts it in a
 * group other than the default. A task the state leaves to the default
 * group is not moved here (the next sync does: where it is may be another
 * tool's group). Writes the kernel takes as they come: placing a task
 * twice is harmless, an exited one is skipped.
 */
/*
 * Where each group's tasks go - its class's control group, "" for none made
 * yet - from a plan of the kernel as it is, kept until the state changes:
 * joins come in bursts, and a plan reads every control group's schemata.
 */
static int place_map(struct rdtalloc *r)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_view v = { 0 }, bv = { 0 };
	unsigned int g;
	int ret;

	if (c->place_ok && c->place_gen == r->st_gen && c->place_n == r->st->ngroups)
		return 0;
	c->place_ok = false;
	ret = plan(r, r->st, NULL, &v, &bv);
	if (!ret && c->place_n != r->st->ngroups) {
		void *nd = realloc(c->place_dir, (r->st->ngroups + 1) * sizeof(*c->place_dir));

		if (!nd)
			ret = rdt_fail(r, -ENOMEM, "out of memory");
		else
			c->place_dir = nd;
	}
	for (g = 0; !ret && g < r->st->ngroups; g++) {
		int k = v.cls_of[g];

		snprintf(c->place_dir[g], sizeof(c->place_dir[g]), "%s",
			 g > 0 && k >= 0 && v.cls[k].dir >= 0 ? dir_name(&v, k) : "");
	}
	if (!ret) {
		c->place_n = r->st->ngroups;
		c->place_gen = r->st_gen;
		c->place_ok = true;
	}
	view_free(&v);
	view_free(&bv);
	return ret;
}

static int rc_place_tasks(struct rdtalloc *r, const pid_t *tids, size_t n, unsigned int *moved)
{
	struct rc_ctx *c = ctx_of(r);
	size_t i;
	int ret;

	*moved = 0;
	ret = rc_lock(r);
	if (!ret)
		ret = place_map(r);
	for (i = 0; !ret && i < n; i++) {
		char text[24], md[RC_MON_DIR_MAX];
		const char *to, *to_mon;
		int g = bound_group(r, r->st, tids[i]);

		if (g < 0)
			g = rdt_core_cgroup_task_group(r, tids[i]);
		if (g <= 0 || !c->place_dir[g][0])
			continue;	/* default, or its class not made yet: the sync's */
		to = c->place_dir[g];
		to_mon = mon_of(r, r->st, g);
		snprintf(text, sizeof(text), "%d\n", (int)tids[i]);
		/* a MON group takes only its control group's tasks: there first */
		ret = write_file(r, to, "tasks", text);
		if (!ret && *to_mon) {
			mon_dir(to, to_mon, md, sizeof(md));
			ret = write_file(r, md, "tasks", text);
		}
		if (ret == -ENOENT) {
			/* our directory gone behind our back: the next sync makes it again */
			c->place_ok = false;
			ret = 0;
			continue;
		}
		if (ret == -ESRCH) {
			ret = 0;	/* exited meanwhile */
			continue;
		}
		if (!ret)
			(*moved)++;
	}
	return ret;
}

/*
 * rdtalloc_drift: each object of ours the kernel does not hold as the state
 * says - the same comparison as describe_drift, item by item, for the
 * looks that mark it. cb returns non-zero to stop.
 */
static int rc_drift(struct rdtalloc *r, int (*cb)(const char *group, const char *what, void *arg),
		    void *arg)
{
	struct rc_ctx *c = ctx_of(r);
	struct rc_view v = { 0 }, bv = { 0 };
	struct rc_mons *mons = NULL;
	char what[192], *text = NULL, *cpus = NULL;
	unsigned int k, d, i;
	int ret, g;

	ret = plan(r, r->st, NULL, &v, &bv);
	if (ret) {
		snprintf(what, sizeof(what), "the kernel cannot hold the state now: %.150s",
			 rdtalloc_errmsg(r));
		rdt_clear_err(r);
		return cb("", what, arg);
	}
	for (k = 0; !ret && k < v.ncls; k++) {
		const struct rc_dir *dir = v.cls[k].dir >= 0 ? &v.dirs[v.cls[k].dir] : NULL;
		const char *why = NULL;

		if (!dir) {
			why = "its control group is missing";
		} else if (!dir->key_ok || memcmp(dir->key, v.cls[k].key, v.nkey * sizeof(uint64_t))) {
			why = "its control group holds other schemata";
		} else if (class_cpus(r, &v, (int)k, &cpus) ||
			   read_small(r, dir->name, "cpus_list", &text) || !same_cpus(text, cpus)) {
			why = "its control group holds other CPUs";
		}
		free(text);
		free(cpus);
		text = cpus = NULL;
		rdt_clear_err(r);
		for (i = 0; why && !ret && i < v.cls[k].ngroups; i++) {
			snprintf(what, sizeof(what), "%s%s%s", why, dir ? " (" : "",
				 dir ? dir->name : "");
			if (dir)
				snprintf(what + strlen(what), sizeof(what) - strlen(what), ")");
			ret = cb(r->st->groups[v.cls[k].groups[i]].name, what, arg);
		}
	}
	for (d = 0; !ret && d < v.ndirs; d++) {
		if (v.dirs[d].n > 0 && v.dirs[d].remove) {
			snprintf(what, sizeof(what), "control group %s is ours but no group has its "
				 "schemata: left over", v.dirs[d].name);
			ret = cb("", what, arg);
		}
	}
	if (!ret && c->mon && (mons = calloc(v.ncls + 1, sizeof(*mons)))) {
		for (k = 0; k <= v.ncls; k++)
			if ((k == 0 || v.cls[k - 1].dir >= 0) &&
			    list_mons(r, dir_name(&v, (int)k - 1), &mons[k]))
				break;
		rdt_clear_err(r);
		for (g = 1; k > v.ncls && !ret && g < (int)r->st->ngroups; g++) {
			const char *name = mon_of(r, r->st, g);
			int kc = v.cls_of[g];

			if (r->st->groups[g].live && *name && (kc < 0 || v.cls[kc].dir >= 0) &&
			    !mons_has(&mons[kc + 1], name))
				ret = cb(name, "its monitoring group is missing", arg);
		}
	}
	mons_free(mons, v.ncls + 1);
	view_free(&v);
	view_free(&bv);
	return ret;
}

/* A dry run: would the kernel take st now? The checks realise() makes before writing. */
static int rc_check(struct rdtalloc *r, const struct rdt_state *st, int *group)
{
	struct rc_view v = { 0 }, bv = { 0 };
	int ret;

	ctx_of(r)->fail_group = -1;
	ret = plan(r, st, r->st, &v, &bv);
	*group = ret ? ctx_of(r)->fail_group : -1;
	view_free(&v);
	view_free(&bv);
	return ret;
}

static int rc_tasks_allowed(struct rdtalloc *r)
{
	(void)r;
	return 0;
}

/* The binding is in the state's table; commit moves the task in the kernel. */
static int rc_bind_task(struct rdtalloc *r, int g, pid_t tid, uint64_t start)
{
	(void)r, (void)g, (void)tid, (void)start;
	return 0;
}

static int rc_carry_tasks(struct rdtalloc *r, const struct rdt_state *old)
{
	(void)r, (void)old;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int rc_group_tasks(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	struct rc_view v;
	size_t i, k = 0;
	pid_t *tids = NULL;
	int ret, cls;

	if (g == 0) {
		ret = read_tasks(r, "", out, n);
		if (!ret)
			qsort(*out, *n, sizeof(pid_t), cmp_pid);
		return ret;
	}
	ret = view_current(r, &v);
	if (ret)
		return ret;
	cls = v.cls_of[g];
	if (cls >= 0 && v.cls[cls].dir < 0) {
		view_free(&v);	/* its control group is missing: the kernel lists none */
		*out = NULL;
		*n = 0;
		return 0;
	}
	ret = read_tasks(r, v.dirs[v.cls[cls].dir].name, &tids, n);
	for (i = 0; !ret && i < *n; i++)
		if (attribute(r, r->st, &v, cls, tids[i]) == g)
			tids[k++] = tids[i];
	view_free(&v);
	if (ret)
		return ret;
	qsort(tids, k, sizeof(pid_t), cmp_pid);
	*out = tids;
	*n = k;
	return 0;
}

/* The directory the kernel lists tid in (index into v.dirs), -1: the root or not ours. */
static int find_listing(struct rdtalloc *r, const struct rc_view *v, pid_t tid, int first,
			int *where)
{
	unsigned int d;
	pid_t *tids;
	size_t n;
	int ret;

	*where = -1;
	for (d = 0; d < v->ndirs; d++) {
		int i = d == 0 ? first : (int)d - (d <= (unsigned int)first ? 1 : 0);

		if (first < 0)
			i = (int)d;
		if (i < 0 || v->dirs[i].n < 0 || v->dirs[i].cls < 0)
			continue;
		ret = read_tasks(r, v->dirs[i].name, &tids, &n);
		if (ret)
			return ret;
		if (listed(tids, n, tid))
			*where = i;
		free(tids);
		if (*where >= 0)
			return 0;
	}
	return 0;
}

static int rc_task_group(struct rdtalloc *r, pid_t tid, uint64_t start, int *g)
{
	struct rc_view v;
	int ret, bg, where;

	(void)start;
	*g = 0;
	ret = view_current(r, &v);
	if (ret)
		return ret;
	bg = bound_group(r, r->st, tid);
	ret = find_listing(r, &v, tid, bg > 0 && v.cls_of[bg] >= 0 ? v.cls[v.cls_of[bg]].dir : -1,
			   &where);
	if (!ret && where >= 0)
		*g = attribute(r, r->st, &v, v.dirs[where].cls, tid);
	view_free(&v);
	return ret;
}

static int rc_effective_closid(struct rdtalloc *r, int cpu, pid_t tid, bool stale,
			       unsigned int *closid)
{
	struct rc_view v;
	int ret, tg = 0;

	(void)stale;
	if (tid) {
		ret = rc_task_group(r, tid, 0, &tg);
		if (ret)
			return ret;
	}
	ret = view_current(r, &v);
	if (ret)
		return ret;
	ret = class_number(r, &v, rdt_precedence_group(r->st, cpu, tg), closid);
	view_free(&v);
	return ret;
}

static int rc_group_closid(struct rdtalloc *r, int g, unsigned int adom, unsigned int *closid)
{
	struct rc_view v;
	int ret;

	(void)adom;
	ret = view_current(r, &v);
	if (ret)
		return ret;
	ret = class_number(r, &v, g, closid);
	view_free(&v);
	return ret;
}

/* One control group per class: its number, its masks in this domain, its groups. */
static int rc_closids(struct rdtalloc *r, int res, int dom, struct rdtalloc_closid_info *out,
		      size_t max)
{
	unsigned int s = r->st->slot_of[res][dom], k;
	struct rc_view v;
	int ret, n = 0;

	ret = view_current(r, &v);
	if (ret)
		return ret;
	for (k = 0; k <= v.ncls; k++) {
		const uint64_t *key = k ? v.cls[k - 1].key : v.keys;

		if (k && v.cls[k - 1].dir < 0)
			continue;	/* no control group: no CLOSID in the kernel (drift) */
		if ((size_t)n < max) {
			out[n].closid = k ? (unsigned int)v.dirs[v.cls[k - 1].dir].n : 0;
			out[n].mask = key[s * 2];
			out[n].code_mask = r->st->cdp[res] ? key[s * 2 + 1] : key[s * 2];
			out[n].refcount = k ? v.cls[k - 1].ngroups : 1;
		}
		n++;
	}
	view_free(&v);
	/* ascending by number, as the other backends list CLOSIDs */
	for (int a = 1; a < n && (size_t)a < max; a++)
		for (int b = a; b > 0 && out[b].closid < out[b - 1].closid; b--) {
			struct rdtalloc_closid_info t = out[b];

			out[b] = out[b - 1];
			out[b - 1] = t;
		}
	return n;
}

static int rc_sim_switch_allowed(struct rdtalloc *r)
{
	return rdt_fail(r, -EOPNOTSUPP, "backend %s runs real tasks, and the kernel switches "
			"their CLOSIDs: context switches are simulated only by the sim backend",
			r->be->name);
}

static const struct rdt_group_ops resctrl_ops = {
	.sync = rc_sync,
	.drift = rc_drift,
	.place_tasks = rc_place_tasks,
	.open = rc_open_ops,
	.close = rc_close_ops,
	.begin = rc_begin,
	.commit = rc_commit,
	.abort = rc_abort,
	.finish = rc_finish,
	.tasks_allowed = rc_tasks_allowed,
	.bind_task = rc_bind_task,
	.carry_tasks = rc_carry_tasks,
	.group_tasks = rc_group_tasks,
	.task_group = rc_task_group,
	.effective_closid = rc_effective_closid,
	.group_closid = rc_group_closid,
	.closids = rc_closids,
	.sim_switch_allowed = rc_sim_switch_allowed,
	.check = rc_check,
	.moved_tasks = rc_moved_tasks,
};

/* ---- Monitoring: the kernel's counters ------------------------------------------- */

/* A counter file: a byte count, or the state the kernel prints instead. */
static int parse_counter(const char *text, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!strcmp(text, "Unavailable\n"))
		return RDTALLOC_MON_UNAVAILABLE;
	if (!strcmp(text, "Error\n"))
		return RDTALLOC_MON_ERROR;
	if (!strcmp(text, "Unassigned\n"))
		return RDTALLOC_MON_UNASSIGNED;
	errno = 0;
	x = strtoull(text, &end, 10);
	if (end == text || !isdigit((unsigned char)text[0]) || errno || strcmp(end, "\n"))
		return -EINVAL;
	*v = x;
	return RDTALLOC_MON_OK;
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
		 r->m->dom[RDT_L3][d].cache_id);
	for (e = 0; e < 3; e++) {
		val[e] = 0;
		state[e] = RDTALLOC_MON_UNSUPPORTED;
		if (!(r->m->mon.events & (1u << e)))
			continue;
		rel_path(ctx_of(r), sub, events[e], path, sizeof(path));
		ret = read_all(path, RC_SMALL_MAX, &text, NULL);
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
			trim(text);
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
		ret = list_mons(r, "", &m);
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
static unsigned int rc_mon_reserved(void *ctx)
{
	const struct rc_ctx *c = ctx;

	return c->num_closids;
}

static int rc_mon_read(struct rdtalloc *r, const int *gs, unsigned int n, int *state,
		       uint64_t *val)
{
	unsigned int ndom = r->m->ndom[RDT_L3], i, d;
	char md[RC_MON_DIR_MAX];
	struct rc_view v;
	int ret;

	ret = view_current(r, &v);
	if (ret)
		return ret;
	for (i = 0; !ret && i < n; i++) {
		int g = gs[i];
		const char *name = mon_of(r, r->st, g);

		for (d = 0; !ret && d < ndom; d++) {
			size_t at = ((size_t)i * ndom + d) * 3;

			if (g == 0) {
				ret = read_default(r, d, state + at, val + at);
			} else if (*name && v.cls_of[g] >= 0 && v.cls[v.cls_of[g]].dir < 0) {
				state[at] = state[at + 1] = state[at + 2] = RDTALLOC_MON_MISSING;
				val[at] = val[at + 1] = val[at + 2] = 0;
			} else if (*name) {
				mon_dir(dir_name(&v, v.cls_of[g]), name, md, sizeof(md));
				ret = read_counters(r, md, d, state + at, val + at);
			} else {
				state[at] = state[at + 1] = state[at + 2] =
					RDTALLOC_MON_UNSUPPORTED;
			}
		}
	}
	view_free(&v);
	return ret;
}

/* ---- The kernel's capabilities ------------------------------------------------------ */

/* Where resctrl is: the setting, else the mount table. */
static int find_root(const struct rdt_backend_env *env, char *root, size_t len, char *reason,
		     size_t rlen)
{
	const char *mounts = env && env->mounts && *env->mounts ? env->mounts
								 : "/proc/self/mounts";
	char path[PATH_MAX];
	struct stat sb;
	int ret;

	if (env && env->resctrl_root && *env->resctrl_root) {
		snprintf(root, len, "%s", env->resctrl_root);
		snprintf(path, sizeof(path), "%s/info/last_cmd_status", root);
		if (stat(path, &sb)) {
			snprintf(reason, rlen, "no resctrl at %s (no %s: %s); check --resctrl-root "
				 "or RDTALLOC_RESCTRL_ROOT", root, path, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	ret = rdt_resctrl_mounted(mounts, root, len);
	if (ret < 0) {
		snprintf(reason, rlen, "cannot read the mount table %s: %s", mounts,
			 strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		snprintf(reason, rlen, "resctrl is not mounted: mount -t resctrl resctrl "
			 "/sys/fs/resctrl");
		return -ENOENT;
	}
	return 0;
}

static int rc_usable(const struct rdt_backend_env *env, char *reason, size_t len)
{
	char root[PATH_MAX];

	return find_root(env, root, sizeof(root), reason, len);
}

struct rc_res_info {
	bool present, cdp;
	unsigned int closids, cbm_len, min_bits;
	uint64_t shareable;
	bool sparse;
};

static int info_num(const char *root, const char *dir, const char *file, int base,
		    uint64_t *val, bool *present)
{
	char path[PATH_MAX], *text, *end;
	int ret;

	snprintf(path, sizeof(path), "%s/info/%s/%s", root, dir, file);
	ret = read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret == -ENOENT && present) {
		*present = false;
		return 0;
	}
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(text, &end, base);
	ret = errno || end == text ? -EINVAL : 0;
	free(text);
	if (present)
		*present = !ret;
	return ret;
}

/* info/<L3|L3DATA>/... of one resource. */
static int read_res_info(const char *root, enum rdt_res res, struct rc_res_info *ri,
			 char *err, size_t len)
{
	static const char *const files[] = { "cbm_mask", "min_cbm_bits", "num_closids",
					     "shareable_bits" };
	char dir[16], path[PATH_MAX];
	uint64_t v[4] = { 0 }, sparse = 0;
	struct stat sb;
	bool have;
	unsigned int i;
	int ret;

	memset(ri, 0, sizeof(*ri));
	snprintf(dir, sizeof(dir), "%s", rdt_res_name(res));
	if (snprintf(path, sizeof(path), "%s/info/%s", root, dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &sb)) {
		snprintf(dir, sizeof(dir), "%sDATA", rdt_res_name(res));
		if (snprintf(path, sizeof(path), "%s/info/%s", root, dir) >= (int)sizeof(path) ||
		    stat(path, &sb))
			return 0;
		ri->cdp = true;
	}
	for (i = 0; i < 4; i++) {
		ret = info_num(root, dir, files[i], i == 0 || i == 3 ? 16 : 10, &v[i], NULL);
		if (ret) {
			snprintf(err, len, "cannot read %s/info/%s/%s: %s", root, dir, files[i],
				 strerror(-ret));
			return ret;
		}
	}
	ret = info_num(root, dir, "sparse_masks", 10, &sparse, &have);
	if (ret)
		sparse = 0;
	if (!v[0] || (v[0] & (v[0] + 1)) || v[2] < 1 || v[2] > 4096) {
		snprintf(err, len, "%s/info/%s: cbm_mask %llx or num_closids %llu out of range",
			 root, dir, (unsigned long long)v[0], (unsigned long long)v[2]);
		return -EINVAL;
	}
	ri->present = true;
	ri->cbm_len = (unsigned int)__builtin_popcountll(v[0]);
	/* Linux allows 0 on AMD; our masks are never empty (docs/machine.md) */
	ri->min_bits = v[1] < 1 ? 1 : v[1] > ri->cbm_len ? ri->cbm_len : (unsigned int)v[1];
	ri->closids = (unsigned int)v[2] * (ri->cdp ? 2 : 1);
	ri->shareable = v[3] & v[0];
	ri->sparse = sparse == 1;
	return 0;
}

/*
 * info/MB as mb.* items (docs/resctrl.md): num_closids, min_bandwidth,
 * bandwidth_gran. The kernel does not say its maximum: percent (100) on
 * Intel, and on AMD 1 << the field width, 2048 on every part so far unless
 * the description says otherwise. Returns the length written.
 */
/*
 * MB as the kernel describes it in info/MB, whatever the CPU the machine
 * description names: min_bandwidth 0 is AMD's scale (1/8 GB/s; the kernel
 * gives Intel's linear or non-linear delay a minimum of 100 less the
 * largest delay, never 0). AMD's maximum (1 << bw_len of CPUID
 * 0x80000020) is not in info/: the machine description's when it has
 * one, else 2048, every Zen part's.
 */
static size_t describe_mb(const char *root, unsigned int amd_max, char *out, size_t len)
{
	uint64_t closids, min, gran;
	bool have = false;

	if (info_num(root, "MB", "num_closids", 10, &closids, &have) || !have ||
	    info_num(root, "MB", "min_bandwidth", 10, &min, NULL) ||
	    info_num(root, "MB", "bandwidth_gran", 10, &gran, NULL) || !closids)
		return 0;
	if (!min)
		return (size_t)snprintf(out, len, "mb.closids=%llu;mb.units=amd;mb.min=0;"
					"mb.gran=%llu;mb.max=%u;", (unsigned long long)closids,
					(unsigned long long)(gran ? gran : 1),
					amd_max ? amd_max : 2048);
	return (size_t)snprintf(out, len, "mb.closids=%llu;mb.units=percent;mb.min=%llu;"
				"mb.gran=%llu;", (unsigned long long)closids,
				(unsigned long long)min, (unsigned long long)gran);
}

/*
 * L3 monitoring from info/L3_MON: num_rmids, mon_features (one event name a
 * line; names we do not know are left out) and max_threshold_occupancy.
 * The kernel's files give bytes, its wraps already folded in: a scale of 1
 * and the widest counter. "mon.rmids=0;" without L3_MON.
 */
static size_t describe_mon(const char *root, char *out, size_t len)
{
	static const char *const names[] = { "llc_occupancy", "mbm_total_bytes",
					     "mbm_local_bytes" };
	char path[PATH_MAX + 32], *text = NULL;
	uint64_t rmids, threshold = 0;
	bool have = false, thr = false;
	size_t off;
	unsigned int i, n = 0;

	if (info_num(root, "L3_MON", "num_rmids", 10, &rmids, &have) || !have || !rmids)
		return (size_t)snprintf(out, len, "mon.rmids=0;");
	if (info_num(root, "L3_MON", "max_threshold_occupancy", 10, &threshold, &thr))
		thr = false;
	snprintf(path, sizeof(path), "%s/info/L3_MON/mon_features", root);
	if (read_all(path, RC_SMALL_MAX, &text, NULL))
		text = NULL;
	/* PQR_ASSOC's field is 10 bits: more is a kernel's number we do not bookkeep */
	off = (size_t)snprintf(out, len, "mon.rmids=%llu;mon.scale=1;mon.width=62;mon.events=",
			       (unsigned long long)(rmids > RDT_MAX_RMIDS ? RDT_MAX_RMIDS : rmids));
	for (i = 0; i < 3 && off < len; i++) {
		const char *p = text ? strstr(text, names[i]) : NULL;
		size_t k = strlen(names[i]);

		/* a whole line: llc_occupancy, not llc_occupancy_foo */
		if (p && (p == text || p[-1] == '\n') && (p[k] == '\n' || !p[k]))
			off += (size_t)snprintf(out + off, len - off, "%s%s", n++ ? "," : "",
						names[i]);
	}
	if (off < len)
		off += (size_t)snprintf(out + off, len - off, "%s;", n ? "" : "none");
	if (thr && off < len)
		off += (size_t)snprintf(out + off, len - off, "mon.threshold=%llu;",
					(unsigned long long)threshold);
	free(text);
	return off;
}

/* The given description without its resource keys; then the kernel's. */
static int rc_machine_desc(const struct rdt_backend_env *env, const char *given, char **desc,
			   char *err, size_t len)
{
	char root[PATH_MAX], *canon = NULL, *out = NULL, *item, *save = NULL;
	struct rdt_machine *m = NULL;
	struct rc_res_info ri[RDT_NRES];
	size_t cap, off = 0;
	unsigned int res, amd_max;
	int ret;

	ret = find_root(env, root, sizeof(root), err, len);
	for (res = 0; !ret && res < RDT_NRES; res++)
		ret = read_res_info(root, res, &ri[res], err, len);
	if (ret)
		return ret;
	if (!ri[RDT_L3].present && !ri[RDT_L2].present) {
		snprintf(err, len, "resctrl at %s has no cache allocation (no info/L3, info/L2)",
			 root);
		return -ENODEV;
	}
	ret = rdt_machine_build(given ? given : "", &m, err, len);
	if (ret)
		return ret;
	if (m->virtual_tasks) {
		rdt_machine_free(m);
		snprintf(err, len, "resctrl binds real tasks: tasks=virtual is for the simulator");
		return -EINVAL;
	}
	amd_max = m->caps[RDT_MB].present && m->caps[RDT_MB].mb_amd ? m->caps[RDT_MB].mb_max : 0;
	canon = strdup(m->desc);
	rdt_machine_free(m);
	cap = (canon ? strlen(canon) : 0) + 512;
	out = malloc(cap);
	if (!canon || !out) {
		free(canon);
		free(out);
		return -ENOMEM;
	}
	out[0] = '\0';
	for (item = strtok_r(canon, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		while (*item == ' ')
			item++;
		if (!*item || !strncmp(item, "l3.", 3) || !strncmp(item, "l2.", 3) ||
		    !strncmp(item, "mb.", 3) || !strncmp(item, "mon.", 4) ||
		    !strncmp(item, "tasks=", 6))
			continue;
		off += (size_t)snprintf(out + off, cap - off, "%s;", item);
	}
	free(canon);
	for (res = 0; res < RDT_NRES; res++) {
		const char *p = res == RDT_L3 ? "l3" : "l2";

		if (!ri[res].present) {
			if (res == RDT_L3)
				off += (size_t)snprintf(out + off, cap - off, "l3.closids=0;");
			continue;
		}
		off += (size_t)snprintf(out + off, cap - off, "%s.closids=%u;%s.cbm_len=%u;"
					"%s.min_cbm_bits=%u;%s.shareable_bits=%llx;%s.cdp=%d;"
					"%s.sparse=%d;", p, ri[res].closids, p, ri[res].cbm_len,
					p, ri[res].min_bits, p,
					(unsigned long long)ri[res].shareable, p, ri[res].cdp, p,
					ri[res].sparse);
	}
	/*
	 * With mba_MBps the MB values are MBps that the kernel's software
	 * controller turns into percentages: not ours to drive. MB is left
	 * out of the machine (its lines are left to the kernel) and info says
	 * so in the reason line.
	 */
	if (rdt_mount_has_option(env && env->mounts && *env->mounts ? env->mounts :
				 "/proc/self/mounts", root, "mba_MBps") != 1)
		off += describe_mb(root, amd_max, out + off, cap - off);
	if (ri[RDT_L3].present)
		off += describe_mon(root, out + off, cap - off);
	snprintf(out + off, cap - off, "tasks=real");
	*desc = out;
	return 0;
}

/*
 * What to give --machine when resctrl's domains are not the machine's: the
 * host's topology for the kernel's resctrl (it comes from the host's caches);
 * for the emulator (a FUSE mount), the machine it serves, which only its
 * --machine says: a real mount has no file that names the CPUs of a domain.
 */
static const char *machine_hint(const struct rc_ctx *c)
{
	struct statfs sf;

	if (!statfs(c->root, &sf) && sf.f_type == FUSE_MAGIC)
		return "give rdtctl the --machine the resctrl emulator there was started with "
		       "(rdtalloc-resctrlfs --machine DESC: it serves that machine's domains, "
		       "docs/resctrlfs.md)";
	return "give --machine the host's topology";
}

/* The kernel's domain ids (root schemata) must be the machine's cache ids. */
static int check_domains(struct rc_ctx *c, const struct rdt_machine *m, char *err, size_t len)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	int ret;

	rel_path(c, "", "schemata", path, sizeof(path));
	ret = read_all(path, RC_SMALL_MAX, &text, NULL);
	if (ret) {
		snprintf(err, len, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	for (line = strtok_r(text, "\n", &save); !ret && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *items, *item, *isave = NULL;
		unsigned int nd = 0;
		enum rdt_res res;
		int half;

		items = schemata_line(line, m, &res, &half);
		if (!items)
			continue;
		for (item = strtok_r(items, ";", &isave); item;
		     item = strtok_r(NULL, ";", &isave), nd++) {
			unsigned int id = (unsigned int)strtoul(item, NULL, 10);

			if (rdt_machine_domain(m, res, id) < 0) {
				snprintf(err, len, "resctrl has %s domain %u, which the machine's "
					 "topology has no cache id for: %s", rdt_res_name(res), id,
					 machine_hint(c));
				ret = -EINVAL;
			}
		}
		if (!ret && nd != m->ndom[res]) {
			snprintf(err, len, "resctrl has %u %s domains, the machine %u: %s", nd,
				 rdt_res_name(res), m->ndom[res], machine_hint(c));
			ret = -EINVAL;
		}
	}
	free(text);
	return ret;
}

static int rc_open(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		   char *err, size_t len)
{
	struct rc_ctx *c;
	unsigned int res;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->m = m;
	c->lock_fd = -1;
	c->mon = m->mon.rmids > 0;
	ret = find_root(env, c->root, sizeof(c->root), err, len);
	/*
	 * m was built from info/ (rc_machine_desc): CDP as mounted, CLOSIDs
	 * doubled then. The kernel offers the fewest of every resource's,
	 * MB's included.
	 */
	for (res = 0; !ret && res < RDT_NALL; res++) {
		unsigned int n;

		if (!m->caps[res].present)
			continue;
		c->cdp[res] = res != RDT_MB && m->caps[res].cdp;
		n = m->caps[res].closids / (c->cdp[res] ? 2 : 1);
		if (!c->num_closids || n < c->num_closids)
			c->num_closids = n;
	}
	if (!ret)
		ret = check_domains(c, m, err, len);
	if (!ret)
		c->mba_mbps = rdt_mount_has_option(env && env->mounts && *env->mounts ? env->mounts :
						   "/proc/self/mounts", c->root, "mba_MBps") == 1;
	/* MB left to the kernel still limits its CLOSIDs */
	if (!ret && c->mba_mbps) {
		uint64_t n = 0;
		bool have = false;

		if (!info_num(c->root, "MB", "num_closids", 10, &n, &have) && have && n &&
		    n < c->num_closids)
			c->num_closids = (unsigned int)n;
	}
	if (ret) {
		free(c);
		return ret;
	}
	*ctx = c;
	return 0;
}

static void rc_close(void *ctx)
{
	free(ctx);
}

const struct rdt_backend rdt_backend_resctrl = {
	.name = "resctrl",
	.simulated = false,
	.hook = false,
	.cdp_fixed = true,
	.precedences = 1u << RDT_PREC_TASK,
	.default_precedence = RDT_PREC_TASK,
	.precedence_why = "the kernel's resctrl runs a task of a non-default group with that "
			  "group's allocation on every CPU (resctrl.rst, \"Resource allocation "
			  "rules\"), and has no other rule",
	.ops = &resctrl_ops,
	.usable = rc_usable,
	.machine_desc = rc_machine_desc,
	.open = rc_open,
	.close = rc_close,
	.mon_read = rc_mon_read,
	.mon_reserved = rc_mon_reserved,
};
