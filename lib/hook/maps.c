// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook maps: the user side of the pinned maps under /sys/fs/bpf/rdtalloc.
 * Opens them (and mmaps the per-CPU slots and the control block), pushes
 * the engine's state into them, binds tasks in the task storage through a
 * pidfd, lists a group's live tasks with the BPF task iterator, and wakes
 * the agent. Loading and pinning are load.c's, the agent is agent.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "errors.h"
#include "hook/hook.h"
#include "state.h"
#include "tasks.h"

#if RDTALLOC_HAVE_BPF

#include <bpf/bpf.h>
#include <linux/types.h>

#include "switch_hook.h"

/* <linux/pidfd.h> of kernels before 6.9 lacks it: a pidfd of one thread. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

enum { M_TASK, M_GCLOS, M_CGRP, M_CDOM, M_STATE, M_CTL, M_EVENTS, P_TASKS, P_KICK, NFDS };

/* Pin names under the hook's directory, in the order above. */
static const char *const pin_names[NFDS] = {
	"task_group", "group_closid", "cpu_group", "cpu_domain", "cpu_state", "control",
	"events", "prog_tasks", "prog_kick",
};

struct rdt_hook {
	int fd[NFDS];
	unsigned int ncpus;
	struct rdt_hook_slot *slots;
	size_t slots_len;
	struct rdt_hook_ctl *ctl;
	size_t ctl_len;
	char err[RDT_ERRMSG_MAX];
};

static int hook_fail(struct rdt_hook *h, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int hook_fail(struct rdt_hook *h, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	return ret;
}

const char *rdt_hook_pin_name(unsigned int i)
{
	return i < NFDS ? pin_names[i] : NULL;
}

bool rdt_hook_built(void)
{
	return true;
}

const char *rdt_hook_errmsg(const struct rdt_hook *h)
{
	return h ? h->err : "";
}

void rdt_hook_close(struct rdt_hook *h)
{
	unsigned int i;

	if (!h)
		return;
	if (h->slots)
		munmap(h->slots, h->slots_len);
	if (h->ctl)
		munmap(h->ctl, h->ctl_len);
	for (i = 0; i < NFDS; i++)
		if (h->fd[i] >= 0)
			close(h->fd[i]);
	free(h);
}

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* mmap an array map whose values must be vsize bytes; *n gets max_entries. */
static void *map_array(struct rdt_hook *h, int i, size_t vsize, unsigned int *n, size_t *len)
{
	struct bpf_map_info info = { 0 };
	__u32 ilen = sizeof(info);
	void *p;

	if (bpf_obj_get_info_by_fd(h->fd[i], &info, &ilen)) {
		hook_fail(h, -errno, "%s/%s: cannot read the map's info: %s", RDT_HOOK_DIR,
			  pin_names[i], strerror(errno));
		return NULL;
	}
	if (info.value_size != vsize || !info.max_entries) {
		hook_fail(h, -EPROTO, "%s/%s holds %u-byte values, this librdtalloc expects %zu: "
			  "the pinned hook comes from another version; stop it (rdtctl hook stop) "
			  "and start it again", RDT_HOOK_DIR, pin_names[i], info.value_size, vsize);
		return NULL;
	}
	*n = info.max_entries;
	*len = page_round((size_t)info.max_entries * vsize);
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd[i], 0);
	if (p == MAP_FAILED) {
		hook_fail(h, -errno, "%s/%s: cannot map it: %s", RDT_HOOK_DIR, pin_names[i],
			  strerror(errno));
		return NULL;
	}
	return p;
}

int rdt_hook_open_at(const char *dir, struct rdt_hook **out, char *err, size_t len)
{
	struct rdt_hook *h;
	unsigned int i, one;
	char path[PATH_MAX];
	struct stat sb;
	int ret;

	*out = NULL;
	if (stat(dir, &sb)) {
		ret = -errno;
		snprintf(err, len, "the switch hook is not loaded (%s: %s)", dir, strerror(errno));
		return ret;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < NFDS; i++)
		h->fd[i] = -1;
	for (i = 0; i < NFDS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pin_names[i]);
		h->fd[i] = bpf_obj_get(path);
		if (h->fd[i] < 0) {
			ret = -errno;
			if (ret == -EPERM || ret == -EACCES)
				hook_fail(h, ret, "%s: the switch hook's pins are root's (%s)",
					  path, strerror(-ret));
			else
				hook_fail(h, ret == -ENOENT ? -EPROTO : ret,
					  "%s: %s: the pinned hook is incomplete; stop it (rdtctl "
					  "hook stop) and start it again", path, strerror(-ret));
			ret = ret == -ENOENT ? -EPROTO : ret;
			goto fail;
		}
	}
	ret = -EPROTO;
	h->slots = map_array(h, M_STATE, sizeof(struct rdt_hook_slot), &h->ncpus, &h->slots_len);
	if (!h->slots)
		goto fail_set;
	h->ctl = map_array(h, M_CTL, sizeof(struct rdt_hook_ctl), &one, &h->ctl_len);
	if (!h->ctl)
		goto fail_set;
	*out = h;
	return 0;
fail_set:
	ret = -EPROTO;
fail:
	snprintf(err, len, "%s", h->err);
	rdt_hook_close(h);
	return ret;
}

int rdt_hook_open(struct rdt_hook **out, char *err, size_t len)
{
	return rdt_hook_open_at(RDT_HOOK_DIR, out, err, len);
}

unsigned int rdt_hook_ncpus(const struct rdt_hook *h)
{
	return h->ncpus;
}

struct rdt_hook_slot *rdt_hook_slot(struct rdt_hook *h, unsigned int cpu)
{
	return cpu < h->ncpus ? &h->slots[cpu] : NULL;
}

struct rdt_hook_ctl *rdt_hook_ctl(struct rdt_hook *h)
{
	return h->ctl;
}

int rdt_hook_events_fd(const struct rdt_hook *h)
{
	return h->fd[M_EVENTS];
}

/* ---- Which state the hook serves ------------------------------------------------- */

/* The state directory of r, from its state file's path. */
static int state_dir(const struct rdtalloc *r, char *buf, size_t len)
{
	const char *path, *slash;
	size_t n;

	if (!r->store)
		return -EINVAL;
	path = rdt_store_path(r->store);
	slash = strrchr(path, '/');
	n = slash ? (size_t)(slash - path) : 0;
	if (!n || n >= len || n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	/* absolute: the agent runs in /, and other callers elsewhere */
	if (buf[0] != '/') {
		char abs[PATH_MAX];

		if (!realpath(buf, abs) || strlen(abs) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, abs);
	}
	return 0;
}

int rdt_hook_set_served(struct rdt_hook *h, const struct rdtalloc *r)
{
	char dir[PATH_MAX];
	struct stat sb;

	if (state_dir(r, dir, sizeof(dir)) || stat(dir, &sb))
		return hook_fail(h, -EINVAL, "the switch hook needs a context with a state "
				 "directory");
	h->ctl->serve_dev = (uint64_t)sb.st_dev;
	h->ctl->serve_ino = (uint64_t)sb.st_ino;
	snprintf(h->ctl->serve_backend, sizeof(h->ctl->serve_backend), "%s", r->be->name);
	if ((size_t)snprintf(h->ctl->serve_dir, sizeof(h->ctl->serve_dir), "%s", dir) >=
	    sizeof(h->ctl->serve_dir))
		return hook_fail(h, -ENAMETOOLONG, "the state directory %.200s... is too long for "
				 "the switch hook (at most %zu bytes)", dir,
				 sizeof(h->ctl->serve_dir) - 1);
	return 0;
}

bool rdt_hook_serves(const struct rdt_hook *h, const struct rdtalloc *r)
{
	char dir[PATH_MAX];
	struct stat sb;

	if (!h || !r || state_dir(r, dir, sizeof(dir)) || stat(dir, &sb))
		return false;
	return h->ctl->serve_dev == (uint64_t)sb.st_dev &&
	       h->ctl->serve_ino == (uint64_t)sb.st_ino &&
	       strncmp(h->ctl->serve_backend, r->be->name, sizeof(h->ctl->serve_backend)) == 0;
}

/* ---- The agent --------------------------------------------------------------- */

uint64_t rdt_hook_proc_start(pid_t pid)
{
	uint64_t start = 0;

	if (pid <= 0 || rdt_task_info(pid, &start, NULL))
		return 0;
	return start;
}

void rdt_hook_agent(struct rdt_hook *h, struct rdt_hook_agent_info *info)
{
	pid_t pid = (pid_t)__atomic_load_n(&h->ctl->agent_tgid, __ATOMIC_ACQUIRE);
	uint64_t start = __atomic_load_n(&h->ctl->agent_start, __ATOMIC_ACQUIRE);

	info->pid = pid;
	info->running = pid > 0 && start && rdt_hook_proc_start(pid) == start;
}

/*
 * Wake the agent: run the kick program, which puts a marker in the ring
 * buffer (user space cannot write a BPF ring buffer itself). The agent
 * also compares the generation once a second, so a lost kick only delays.
 */
void rdt_hook_kick(struct rdt_hook *h)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	__atomic_add_fetch(&h->ctl->gen, 1, __ATOMIC_SEQ_CST);
	bpf_prog_test_run_opts(h->fd[P_KICK], &opts);
}

/* ---- State -> maps ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int update(struct rdt_hook *h, int i, const void *key, const void *val)
{
	if (bpf_map_update_elem(h->fd[i], key, val, BPF_ANY))
		return hook_fail(h, -errno, "switch hook: updating map %s failed: %s",
				 pin_names[i], strerror(errno));
	return 0;
}

/* Drop the group_closid entries of groups that are gone (or domains that are). */
static int prune_groups(struct rdt_hook *h, const uint64_t *live, size_t nlive,
			unsigned int nadom)
{
	struct rdt_hook_gkey key, next, *dead = NULL, *nd;
	size_t ndead = 0, cap = 0, i;
	void *prev = NULL;
	int ret = 0;

	while (bpf_map_get_next_key(h->fd[M_GCLOS], prev, &next) == 0) {
		key = next;
		prev = &key;
		if (next.adom < nadom && bsearch(&next.seq, live, nlive, sizeof(*live), cmp_u64))
			continue;
		if (ndead == cap) {
			cap = cap ? cap * 2 : 32;
			nd = realloc(dead, cap * sizeof(*dead));
			if (!nd) {
				free(dead);
				return hook_fail(h, -ENOMEM, "out of memory");
			}
			dead = nd;
		}
		dead[ndead++] = next;
	}
	for (i = 0; i < ndead; i++) {
		if (bpf_map_delete_elem(h->fd[M_GCLOS], &dead[i]) && errno != ENOENT) {
			ret = hook_fail(h, -errno, "switch hook: removing a group from map "
					"group_closid failed: %s", strerror(errno));
			break;
		}
	}
	free(dead);
	return ret;
}

static int sync_groups(struct rdt_hook *h, const struct rdt_state *st)
{
	uint64_t *live = malloc((st->ngroups ? st->ngroups : 1) * sizeof(*live));
	size_t nlive = 0;
	unsigned int g, a;
	int ret = 0;

	if (!live)
		return hook_fail(h, -ENOMEM, "out of memory");
	for (g = 0; g < st->ngroups && !ret; g++) {
		const struct rdt_group *grp = &st->groups[g];

		if (!grp->live)
			continue;
		live[nlive++] = grp->seq;
		for (a = 0; a < st->nadom && !ret; a++) {
			struct rdt_hook_gkey key = { .seq = grp->seq, .adom = a };
			__u32 closid = grp->closid[a];

			ret = update(h, M_GCLOS, &key, &closid);
		}
	}
	if (!ret) {
		qsort(live, nlive, sizeof(*live), cmp_u64);
		ret = prune_groups(h, live, nlive, st->nadom);
	}
	free(live);
	return ret;
}

static int sync_cpus(struct rdt_hook *h, const struct rdt_state *st)
{
	const struct rdt_machine *m = st->m;
	unsigned int c;
	int ret = 0;

	for (c = 0; c < h->ncpus && !ret; c++) {
		bool have = c < m->ncpus && m->cpu_present[c] && st->cpu_adom[c] != UINT_MAX;
		__u32 adom = have ? st->cpu_adom[c] : RDT_HOOK_NO_DOMAIN;
		__u64 seq = have && st->cpu_group[c] >= 0 ? st->groups[st->cpu_group[c]].seq : 0;

		ret = update(h, M_CGRP, &c, &seq);
		if (!ret)
			ret = update(h, M_CDOM, &c, &adom);
	}
	return ret;
}

int rdt_hook_sync(struct rdt_hook *h, const struct rdt_state *st)
{
	int ret;

	if (!h || !st)
		return -EINVAL;
	h->err[0] = '\0';
	/* CLOSIDs first: a CPU or task pointed at a group finds its entries */
	ret = sync_groups(h, st);
	if (!ret)
		ret = sync_cpus(h, st);
	rdt_hook_kick(h);
	return ret;
}

/* ---- Tasks ---------------------------------------------------------------------- */

/* 0 when tid is a thread-group leader, -EOPNOTSUPP when another thread, -ESRCH. */
static int leader_of(pid_t tid)
{
	char path[64], line[128];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	if (tgid < 0)
		return -ESRCH;
	return tgid == (int)tid ? 0 : -EOPNOTSUPP;
}

/*
 * A pidfd naming exactly thread tid. PIDFD_THREAD (Linux 6.9) gives one for
 * any thread; before it a pidfd could only be had for a thread-group
 * leader, which is then exact too. Other threads there: -EOPNOTSUPP.
 */
static int thread_pidfd(struct rdt_hook *h, pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	int ret;

	if (fd >= 0)
		return fd;
	if (errno == ESRCH)
		return hook_fail(h, -ESRCH, "task %d does not exist", (int)tid);
	if (errno != EINVAL)
		return hook_fail(h, -errno, "task %d: pidfd_open failed: %s", (int)tid,
				 strerror(errno));
	ret = leader_of(tid);
	if (ret == -ESRCH)
		return hook_fail(h, -ESRCH, "task %d does not exist", (int)tid);
	if (ret)
		return hook_fail(h, -EOPNOTSUPP, "task %d is a thread that is not its process's "
				 "main thread: binding it through the switch hook needs a pidfd "
				 "of one thread (PIDFD_THREAD, Linux 6.9 or later)", (int)tid);
	fd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (fd < 0)
		return hook_fail(h, errno == ESRCH ? -ESRCH : -errno, "task %d: pidfd_open "
				 "failed: %s", (int)tid, strerror(errno));
	return fd;
}

int rdt_hook_bind_task(struct rdt_hook *h, pid_t tid, uint64_t group_seq)
{
	struct rdt_hook_task val = { .seq = group_seq };
	int fd, ret = 0;

	if (!h || tid <= 0)
		return -EINVAL;
	h->err[0] = '\0';
	fd = thread_pidfd(h, tid);
	if (fd < 0)
		return fd;
	if (group_seq) {
		if (bpf_map_update_elem(h->fd[M_TASK], &fd, &val, BPF_ANY))
			ret = hook_fail(h, errno == ESRCH ? -ESRCH : -errno, "task %d: setting its "
					"group in the switch hook failed: %s", (int)tid,
					strerror(errno));
	} else if (bpf_map_delete_elem(h->fd[M_TASK], &fd) && errno != ENOENT) {
		ret = hook_fail(h, errno == ESRCH ? -ESRCH : -errno, "task %d: clearing its group "
				"in the switch hook failed: %s", (int)tid, strerror(errno));
	}
	close(fd);
	/* the task may be running now and not switch for a while: re-apply */
	if (!ret)
		rdt_hook_kick(h);
	return ret;
}

int rdt_hook_task_group(struct rdt_hook *h, pid_t tid, uint64_t *seq)
{
	struct rdt_hook_task val;
	int fd = thread_pidfd(h, tid);
	int ret = 0;

	*seq = 0;
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(h->fd[M_TASK], &fd, &val) == 0)
		*seq = val.seq;
	else if (errno != ENOENT)
		ret = -errno;
	close(fd);
	return ret;
}

static __u32 closid_of(struct rdt_hook *h, uint64_t seq, __u32 adom)
{
	struct rdt_hook_gkey key = { .seq = seq, .adom = adom };
	__u32 k;

	if (bpf_map_lookup_elem(h->fd[M_GCLOS], &key, &k) == 0)
		return k;
	key.seq = 0;
	return bpf_map_lookup_elem(h->fd[M_GCLOS], &key, &k) == 0 ? k : 0;
}

/* The BPF program's rule, from user space: CPU's group, else the task's, else default. */
int rdt_hook_closid_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *closid)
{
	uint64_t seq;
	__u32 adom;

	if (cpu >= h->ncpus)
		return -EINVAL;
	if (bpf_map_lookup_elem(h->fd[M_CDOM], &cpu, &adom) ||
	    bpf_map_lookup_elem(h->fd[M_CGRP], &cpu, &seq))
		return -errno;
	if (adom == RDT_HOOK_NO_DOMAIN)
		return -ENODEV;
	if (!seq && tid > 0 && rdt_hook_task_group(h, tid, &seq))
		seq = 0;	/* exited: it no longer counts */
	*closid = closid_of(h, seq, adom);
	return 0;
}

/* Run the task iterator: every live task with its group. */
static int dump_tasks(struct rdt_hook *h, struct rdt_hook_task_rec **out, size_t *n)
{
	struct rdt_hook_task_rec *v = NULL;
	size_t cap = 0, used = 0;
	int link, it, ret = 0;
	ssize_t got;

	link = bpf_link_create(h->fd[P_TASKS], 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return hook_fail(h, -errno, "switch hook: cannot attach the task iterator: %s",
				 strerror(errno));
	it = bpf_iter_create(link);
	if (it < 0) {
		ret = hook_fail(h, -errno, "switch hook: cannot start the task iterator: %s",
				strerror(errno));
		goto out;
	}
	for (;;) {
		if (cap - used < 4096) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nv = realloc(v, ncap);

			if (!nv) {
				ret = hook_fail(h, -ENOMEM, "out of memory");
				break;
			}
			v = (struct rdt_hook_task_rec *)nv;
			cap = ncap;
		}
		got = read(it, (char *)v + used, cap - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = hook_fail(h, -errno, "switch hook: reading the task iterator failed: "
					"%s", strerror(errno));
			break;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	close(it);
out:
	close(link);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n = used / sizeof(*v);
	return 0;
}

/* The groups that have entries in group_closid (the live ones), sorted. */
static int live_seqs(struct rdt_hook *h, uint64_t **out, size_t *n)
{
	struct rdt_hook_gkey key, next;
	uint64_t *v = NULL, *nv;
	size_t k = 0, cap = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(h->fd[M_GCLOS], prev, &next) == 0) {
		key = next;
		prev = &key;
		if (k == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return hook_fail(h, -ENOMEM, "out of memory");
			}
			v = nv;
		}
		v[k++] = next.seq;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_u64);
	*out = v;
	*n = k;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int rdt_hook_tasks(struct rdt_hook *h, uint64_t group_seq, pid_t **out, size_t *n)
{
	struct rdt_hook_task_rec *rec = NULL;
	uint64_t *live = NULL;
	size_t nrec = 0, nlive = 0, i, k = 0;
	pid_t *v;
	int ret;

	if (!h || !out || !n)
		return -EINVAL;
	h->err[0] = '\0';
	ret = dump_tasks(h, &rec, &nrec);
	if (!ret && group_seq == 0)
		ret = live_seqs(h, &live, &nlive);
	if (ret)
		goto out;
	v = malloc((nrec ? nrec : 1) * sizeof(*v));
	if (!v) {
		ret = hook_fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nrec; i++) {
		uint64_t s = rec[i].seq;
		bool in;

		if (group_seq)
			in = s == group_seq;
		else	/* default: no binding, or one to a group removed since */
			in = !s || !bsearch(&s, live, nlive, sizeof(*live), cmp_u64);
		if (in)
			v[k++] = (pid_t)rec[i].tid;
	}
	qsort(v, k, sizeof(*v), cmp_pid);
	*out = v;
	*n = k;
out:
	free(rec);
	free(live);
	return ret;
}

#else /* !RDTALLOC_HAVE_BPF */

bool rdt_hook_built(void)
{
	return false;
}

int rdt_hook_open(struct rdt_hook **out, char *err, size_t len)
{
	*out = NULL;
	snprintf(err, len, "this librdtalloc was built without the switch hook (RDTALLOC_BPF=OFF)");
	return -EOPNOTSUPP;
}

void rdt_hook_close(struct rdt_hook *h)
{
}

bool rdt_hook_serves(const struct rdt_hook *h, const struct rdtalloc *r)
{
	return false;
}

int rdt_hook_sync(struct rdt_hook *h, const struct rdt_state *st)
{
	return -EOPNOTSUPP;
}

int rdt_hook_bind_task(struct rdt_hook *h, pid_t tid, uint64_t group_seq)
{
	return -EOPNOTSUPP;
}

int rdt_hook_tasks(struct rdt_hook *h, uint64_t group_seq, pid_t **out, size_t *n)
{
	return -EOPNOTSUPP;
}

int rdt_hook_task_group(struct rdt_hook *h, pid_t tid, uint64_t *seq)
{
	return -EOPNOTSUPP;
}

const char *rdt_hook_errmsg(const struct rdt_hook *h)
{
	return "this librdtalloc was built without the switch hook (RDTALLOC_BPF=OFF)";
}

/* What the unit test reaches besides the interface above: there is nothing to reach. */
unsigned int rdt_hook_ncpus(const struct rdt_hook *h)
{
	return 0;
}

struct rdt_hook_slot *rdt_hook_slot(struct rdt_hook *h, unsigned int cpu)
{
	return NULL;
}

struct rdt_hook_ctl *rdt_hook_ctl(struct rdt_hook *h)
{
	return NULL;
}

int rdt_hook_closid_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *closid)
{
	return -EOPNOTSUPP;
}

#endif /* RDTALLOC_HAVE_BPF */
