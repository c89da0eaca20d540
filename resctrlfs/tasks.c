// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tasks: which group each thread of the host is in. The kernel keeps a
 * CLOSID in every task_struct and copies it at fork; we only see writes to
 * tasks files, so we keep records (tid, start time, since, closid) and
 * derive the rest from /proc when a tasks file is read or written:
 *
 *  - a record whose tid is gone, or now has another start time (the tid
 *    was reused), is dropped: dead tasks are never listed;
 *  - a live thread without a record inherits, as the kernel's fork would,
 *    from its thread-group leader's record, else from the nearest recorded
 *    ancestor on the PPid chain - but only if it started at or after the
 *    moment that record was made (it was forked while the ancestor was in
 *    the group). What it inherits is then recorded, so it stays when its
 *    parent dies or moves. docs/resctrlfs.md says where this is wrong.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rfs.h"

struct live {
	pid_t tid, tgid, ppid;
	unsigned long long start;
};

struct scan {
	struct live *t;
	size_t n, cap;
};

static unsigned long long now_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	/* /proc's start times count clock ticks of CLOCK_BOOTTIME. */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)hz);
}

/* PPid (field 4) and start time (field 22) from a stat file. */
static int read_stat(const char *path, pid_t *ppid, unsigned long long *start)
{
	char buf[1024], *p;
	unsigned long long v;
	size_t n;
	FILE *f;
	int field;

	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and ')': fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -ESRCH;
	p++;
	for (field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (field == 4 || field == 22) {
			v = strtoull(p, &p, 10);
			if (field == 4)
				*ppid = (pid_t)v;
			else
				*start = v;
		} else {
			while (*p && *p != ' ')
				p++;
		}
	}
	return 0;
}

static int tid_stat(pid_t tid, pid_t *ppid, unsigned long long *start)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	return read_stat(path, ppid, start);
}

/* Real and saved uid of a task, from the Uid: line of its status file. */
static int tid_uids(pid_t tid, uid_t *ruid, uid_t *suid)
{
	char path[64], line[256];
	unsigned int r, e, s;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u %u", &r, &e, &s) == 3) {
			*ruid = r;
			*suid = s;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int scan_add(struct scan *sc, const struct live *l)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 1024;
		struct live *t = realloc(sc->t, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		sc->t = t;
		sc->cap = cap;
	}
	sc->t[sc->n++] = *l;
	return 0;
}

static void scan_process(struct scan *sc, const char *pid)
{
	char path[300];
	struct dirent *de;
	struct live l;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return;	/* gone meanwhile */
	l.tgid = (pid_t)atoi(pid);
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, de->d_name);
		if (read_stat(path, &l.ppid, &l.start))
			continue;
		l.tid = (pid_t)atoi(de->d_name);
		if (scan_add(sc, &l))
			break;
	}
	closedir(d);
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Every live thread of the host, sorted by tid. */
static int scan_all(struct scan *sc)
{
	struct dirent *de;
	DIR *d;

	memset(sc, 0, sizeof(*sc));
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (all_digits(de->d_name))
			scan_process(sc, de->d_name);
	closedir(d);
	qsort(sc->t, sc->n, sizeof(*sc->t), cmp_live);
	return 0;
}

static const struct live *scan_find(const struct scan *sc, pid_t tid)
{
	struct live key = { .tid = tid };

	return sc->n ? bsearch(&key, sc->t, sc->n, sizeof(key), cmp_live) : NULL;
}

/* Records are kept sorted by tid. */
static size_t rec_pos(const struct rfs_model *md, pid_t tid)
{
	size_t lo = 0, hi = md->ntasks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (md->tasks[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct rfs_task *rec_find(const struct rfs_model *md, pid_t tid)
{
	size_t i = rec_pos(md, tid);

	return i < md->ntasks && md->tasks[i].tid == tid ? &md->tasks[i] : NULL;
}

int rfs_task_set(struct rfs_model *md, pid_t tid, unsigned long long start,
		 unsigned long long since, unsigned int closid, int mon)
{
	size_t i = rec_pos(md, tid);
	struct rfs_task *t;

	md->dirty = true;
	if (i < md->ntasks && md->tasks[i].tid == tid) {
		t = &md->tasks[i];
		if (t->start == start && t->closid == closid && t->mon == mon)
			return 0;	/* already there: the kernel does nothing */
		*t = (struct rfs_task){ tid, start, since, closid, mon };
		return 0;
	}
	if (md->ntasks == md->tasks_cap) {
		size_t cap = md->tasks_cap ? md->tasks_cap * 2 : 64;

		t = realloc(md->tasks, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		md->tasks = t;
		md->tasks_cap = cap;
	}
	memmove(&md->tasks[i + 1], &md->tasks[i], (md->ntasks - i) * sizeof(*md->tasks));
	md->tasks[i] = (struct rfs_task){ tid, start, since, closid, mon };
	md->ntasks++;
	return 0;
}

void rfs_tasks_release(struct rfs_model *md, unsigned int closid)
{
	size_t i;

	for (i = 0; i < md->ntasks; i++) {
		if (md->tasks[i].closid == closid) {
			md->tasks[i].closid = 0;
			md->tasks[i].mon = RFS_NO_MON;
		}
	}
	md->dirty = true;
}

void rfs_tasks_release_mon(struct rfs_model *md, int mon)
{
	size_t i;

	for (i = 0; i < md->ntasks; i++)
		if (md->tasks[i].mon == mon)
			md->tasks[i].mon = RFS_NO_MON;
	md->dirty = true;
}

/* Drop records of dead tasks and of tids that now name another task. */
static void prune(struct rfs_model *md, const struct scan *sc)
{
	size_t i, j = 0;

	for (i = 0; i < md->ntasks; i++) {
		const struct live *l = scan_find(sc, md->tasks[i].tid);

		if (l && l->start == md->tasks[i].start)
			md->tasks[j++] = md->tasks[i];
	}
	if (j != md->ntasks)
		md->dirty = true;
	md->ntasks = j;
}

/* The inheritance rule of the header comment: the record inherited, NULL for the root. */
static const struct rfs_task *inherited(const struct rfs_model *md, const struct scan *sc,
					const struct live *t)
{
	const struct rfs_task *r;
	const struct live *q;
	unsigned long long start = t->start;
	pid_t p = t->ppid;
	int depth;

	if (t->tid != t->tgid) {
		r = rec_find(md, t->tgid);
		if (r && t->start >= r->since)
			return r;
		q = scan_find(sc, t->tgid);
		if (q)
			start = q->start;
	}
	for (depth = 0; p > 0 && depth < 4096; depth++) {
		r = rec_find(md, p);
		if (r)
			return start >= r->since ? r : NULL;
		q = scan_find(sc, p);
		if (!q)
			break;
		start = q->start;
		p = q->ppid;
	}
	return NULL;
}

/* Where a thread is: its control group and MON group. */
struct place {
	unsigned int closid;
	int mon;
};

/*
 * Bring the records up to date with /proc: prune, then pin every thread
 * that inherits a group. Optionally fills place_of[i] for sc->t[i].
 */
static int refresh(struct rfs_model *md, struct scan *sc, struct place **place_of)
{
	struct place *pl;
	size_t i;
	int ret;

	ret = scan_all(sc);
	if (ret)
		return ret;
	prune(md, sc);
	pl = calloc(sc->n + 1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	for (i = 0; i < sc->n; i++) {
		const struct rfs_task *r = rec_find(md, sc->t[i].tid);
		bool own = r;

		if (!r)
			r = inherited(md, sc, &sc->t[i]);
		pl[i] = r ? (struct place){ r->closid, r->mon } : (struct place){ 0, RFS_NO_MON };
		/* r may move when a record is added: pl[i] holds its values */
		if (!own && (pl[i].closid || pl[i].mon != RFS_NO_MON))
			rfs_task_set(md, sc->t[i].tid, sc->t[i].start, sc->t[i].start,
				     pl[i].closid, pl[i].mon);
	}
	if (place_of)
		*place_of = pl;
	else
		free(pl);
	return 0;
}

/* A control group lists every task of its CLOSID, its MON groups' too (show_rdt_tasks()). */
void rfs_tasks_show(struct rfs_model *md, unsigned int closid, int mon, struct rfs_buf *b)
{
	struct place *pl = NULL;
	struct scan sc;
	size_t i;

	if (refresh(md, &sc, &pl)) {
		b->err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < sc.n; i++)
		if (mon >= 0 ? pl[i].mon == mon : pl[i].closid == closid)
			rfs_buf_printf(b, "%d\n", (int)sc.t[i].tid);
out:
	free(pl);
	free(sc.t);
}

static int move_task(struct rfs_model *md, unsigned int closid, int mon, pid_t pid,
		     uid_t caller_uid)
{
	const struct rfs_task *r;
	unsigned long long start;
	uid_t ruid, suid;
	pid_t ppid;

	if (tid_stat(pid, &ppid, &start)) {
		rfs_status_printf(md, "No task %d\n", (int)pid);
		return -ESRCH;
	}
	if (caller_uid != 0 &&
	    (tid_uids(pid, &ruid, &suid) || (caller_uid != ruid && caller_uid != suid))) {
		rfs_status_printf(md, "No permission to move task %d\n", (int)pid);
		return -EPERM;
	}
	/* __rdtgroup_move_task(): a MON group takes only its control group's tasks */
	r = rec_find(md, pid);
	if (mon >= 0 && (r && r->start == start ? r->closid : 0) != closid) {
		rfs_status_printf(md, "Can't move task to different control group\n");
		return -EINVAL;
	}
	return rfs_task_set(md, pid, start, now_ticks(), closid, mon);
}

/* rdtgroup_tasks_write(): comma-separated ids, stops at the first error. */
int rfs_tasks_write(struct rfs_model *md, unsigned int closid, int mon, char *buf,
		    pid_t caller, uid_t caller_uid)
{
	struct scan sc;
	char *s;
	int ret = 0, pid;

	rfs_status_clear(md);
	/* Pin inherited groups first: a move must not drag old children along. */
	ret = refresh(md, &sc, NULL);
	free(sc.t);
	if (ret)
		return ret;
	while (buf && buf[0] != '\0' && buf[0] != '\n') {
		s = rfs_strim(strsep(&buf, ","));
		if (rfs_kstrtoint(s, 0, &pid)) {
			rfs_status_printf(md, "Task list parsing error pid %s\n", s);
			return -EINVAL;
		}
		if (pid < 0) {
			rfs_status_printf(md, "Invalid pid %d\n", pid);
			return -EINVAL;
		}
		ret = move_task(md, closid, mon, pid ? pid : caller, caller_uid);
		if (ret) {
			rfs_status_printf(md, "Error while processing task %d\n", pid);
			return ret;
		}
	}
	return 0;
}
