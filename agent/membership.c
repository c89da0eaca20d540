// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * membership: tasks joining bound cgroups, as it happens. The BPF program
 * (bpf/membership.bpf.c) sends one ring buffer event per task that joins,
 * or forks in, a cgroup below a bound one; the agent places each task with
 * rdtalloc_place_tasks and records the lag from the kernel's join to the
 * write. The watched map is the state's bound cgroups, refreshed whenever
 * the state file changes. Without BPF (no libbpf at build, or a kernel
 * that refuses the program) the agent scans instead (main.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#ifdef RDTALLOC_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "membership.h"
#include "membership.skel.h"

#define BATCH 256

struct membership {
	struct agent *a;
	struct memb_bpf *skel;
	struct ring_buffer *rb;
	char cgroot[4096];		/* the cgroup2 mount */
	pid_t tids[BATCH];
	double when[BATCH];		/* CLOCK_MONOTONIC seconds of each join */
	size_t n;
};

/* The cgroup2 mount: the first one listed that can be reached. */
static int cgroup2_root(char *buf, size_t len)
{
	char dev[256], dir[4096], type[64];
	struct stat sb;
	FILE *f = fopen("/proc/self/mounts", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") || stat(dir, &sb))
			continue;
		snprintf(buf, len, "%s", dir);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static int flush(struct membership *m)
{
	unsigned int moved = 0;
	double done;
	size_t i;
	int ret;

	if (!m->n)
		return 0;
	if (!m->a->r) {
		m->n = 0;	/* no context until the next sync opens one: it places them */
		return 0;
	}
	ret = rdtalloc_place_tasks(m->a->r, m->tids, m->n, &moved);
	done = agent_mono();
	pthread_mutex_lock(&m->a->st.mu);
	m->a->st.placed += moved;
	if (ret) {
		m->a->st.place_errors++;
		snprintf(m->a->st.last_error, sizeof(m->a->st.last_error), "%s",
			 rdtalloc_errmsg(m->a->r));
	}
	pthread_mutex_unlock(&m->a->st.mu);
	for (i = 0; !ret && i < m->n; i++)
		agent_count_lag(m->a, done - m->when[i]);
	if (ret)
		agent_log("placing %zu task%s failed: %s", m->n, m->n == 1 ? "" : "s",
			  rdtalloc_errmsg(m->a->r));
	m->n = 0;
	return ret;
}

static void add(struct membership *m, pid_t tid, double when)
{
	if (m->n == BATCH)
		flush(m);
	m->tids[m->n] = tid;
	m->when[m->n++] = when;
}

/* A whole process moved: each of its threads (/proc/PID/task). */
static void add_threads(struct membership *m, pid_t tgid, double when)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	d = opendir(path);
	if (!d)
		return;		/* gone already: nothing to place */
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		add(m, (pid_t)tid, when);
	}
	closedir(d);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct membership *m = ctx;
	const struct rdt_memb_event *e = data;
	double when;

	if (size < sizeof(*e))
		return 0;
	when = (double)e->time_ns / 1e9;	/* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	pthread_mutex_lock(&m->a->st.mu);
	m->a->st.events++;
	pthread_mutex_unlock(&m->a->st.mu);
	if (e->kind == RDT_MEMB_ATTACH && e->threadgroup)
		add_threads(m, e->tgid, when);
	else if (e->pid > 0)
		add(m, e->pid, when);
	return 0;
}

struct refresh {
	struct membership *m;
	int fd;
	unsigned int n;
	__u64 *ids;
	size_t nids;
};

static int watch_one(const char *path, const char *group, void *arg)
{
	struct refresh *rf = arg;
	char full[8192];
	struct stat sb;
	__u64 *v;

	(void)group;
	snprintf(full, sizeof(full), "%s/%s", rf->m->cgroot, path);
	if (stat(full, &sb))
		return 0;	/* removed: the next sync drops the binding */
	v = realloc(rf->ids, (rf->nids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rf->ids = v;
	rf->ids[rf->nids++] = (__u64)sb.st_ino;	/* cgroup2: the kernfs id is the inode */
	return 0;
}

int membership_refresh(struct membership *m)
{
	struct refresh rf = { .m = m, .fd = bpf_map__fd(m->skel->maps.watched) };
	__u64 key, next, *prev = NULL;
	__u8 one = 1;
	size_t i;
	int ret;

	if (!m->a->r)
		return 0;	/* the next sync opens the state again, and refreshes */
	ret = rdtalloc_cgroup_foreach(m->a->r, watch_one, &rf);
	if (ret) {
		free(rf.ids);
		return ret;
	}
	/* drop what is no longer bound, then add what is */
	while (!bpf_map_get_next_key(rf.fd, prev, &next)) {
		bool keep = false;

		for (i = 0; i < rf.nids && !keep; i++)
			keep = rf.ids[i] == next;
		if (!keep) {
			bpf_map_delete_elem(rf.fd, &next);
			prev = NULL;	/* the walk starts over after a delete */
			continue;
		}
		key = next;
		prev = &key;
	}
	for (i = 0; i < rf.nids; i++)
		if (bpf_map_update_elem(rf.fd, &rf.ids[i], &one, BPF_ANY))
			ret = -errno;
	free(rf.ids);
	return ret;
}

struct membership *membership_open(struct agent *a, char *why, size_t len)
{
	struct membership *m = calloc(1, sizeof(*m));
	int ret;

	if (!m) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	m->a = a;
	if (cgroup2_root(m->cgroot, sizeof(m->cgroot))) {
		snprintf(why, len, "no cgroup2 mount");
		goto fail;
	}
	m->skel = memb_bpf__open_and_load();
	if (!m->skel) {
		snprintf(why, len, "the BPF program did not load: %s", strerror(errno));
		goto fail;
	}
	ret = memb_bpf__attach(m->skel);
	if (ret) {
		snprintf(why, len, "the BPF program did not attach: %s", strerror(-ret));
		goto fail;
	}
	m->rb = ring_buffer__new(bpf_map__fd(m->skel->maps.events), on_event, m, NULL);
	if (!m->rb) {
		snprintf(why, len, "no ring buffer: %s", strerror(errno));
		goto fail;
	}
	ret = membership_refresh(m);
	if (ret) {
		snprintf(why, len, "the bound cgroups could not be read: %s", strerror(-ret));
		goto fail;
	}
	return m;
fail:
	membership_close(m);
	return NULL;
}

void membership_close(struct membership *m)
{
	if (!m)
		return;
	ring_buffer__free(m->rb);
	memb_bpf__destroy(m->skel);
	free(m);
}

int membership_fd(struct membership *m)
{
	return ring_buffer__epoll_fd(m->rb);
}

int membership_poll(struct membership *m)
{
	int ret = ring_buffer__consume(m->rb);

	if (ret < 0)
		return ret;
	return flush(m);
}

uint64_t membership_lost(struct membership *m)
{
	__u32 zero = 0;
	__u64 v = 0;

	bpf_map_lookup_elem(bpf_map__fd(m->skel->maps.lost), &zero, &v);
	return v;
}

#else /* !RDTALLOC_HAVE_BPF */

struct membership *membership_open(struct agent *a, char *why, size_t len)
{
	(void)a;
	snprintf(why, len, "built without BPF (libbpf, clang or bpftool missing at build)");
	return NULL;
}

void membership_close(struct membership *m)
{
	(void)m;
}

int membership_fd(struct membership *m)
{
	(void)m;
	return -1;
}

int membership_refresh(struct membership *m)
{
	(void)m;
	return 0;
}

int membership_poll(struct membership *m)
{
	(void)m;
	return 0;
}

uint64_t membership_lost(struct membership *m)
{
	(void)m;
	return 0;
}

#endif
