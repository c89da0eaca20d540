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

#include "backend.h"
#include "cgroups.h"
#include "errors.h"
#include "hook/hook.h"
#include "monitor/monitor.h"
#include "services.h"
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

enum { M_TASK, M_GCLOS, M_CGRP, M_CDOM, M_STATE, M_CTL, M_EVENTS, M_CGBIND, P_TASKS, P_KICK,
       NFDS };

/* Pin names under the hook's directory, in the order above. */
static const char *const pin_names[NFDS] = {
	"task_group", "group_closid", "cpu_group", "cpu_domain", "cpu_state", "control",
	"events", "cgroup_group", "prog_tasks", "prog_kick",
};

struct rdt_hook {
	int fd[NFDS];
	unsigned int ncpus;
	struct rdt_hook_slot *slots;
	size_t slots_len;
	struct rdt_hook_ctl *ctl;
	size_t ctl_len;
	char cgroup_root[PATH_MAX];	/* the cgroup2 mount; "": none */
	int err_code;			/* of the last failure err describes */
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
	h->err_code = ret;
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
	if (rdt_cgroup_root(NULL, h->cgroup_root, sizeof(h->cgroup_root), path, sizeof(path)))
		h->cgroup_root[0] = '\0';
	*out = h;
	return 0;
fail_set:
	ret = h->err_code ? h->err_code : -EPROTO;
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

	if (!rdt_core_store(r))
		return -EINVAL;
	path = rdt_store_path(rdt_core_store(r));
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
	snprintf(h->ctl->serve_backend, sizeof(h->ctl->serve_backend), "%s",
		 rdt_core_backend(r)->name);
	h->ctl->precedence = rdt_core_state(r) ? (__u32)rdt_core_state(r)->precedence :
			     RDT_HOOK_PREC_CPU;
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
	       strncmp(h->ctl->serve_backend, rdt_core_backend(r)->name,
		       sizeof(h->ctl->serve_backend)) == 0;
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

/* What group g runs with in allocation domain a: its CLOSID and RMID, packed. */
static __u32 pqr_value(const struct rdt_state *st, unsigned int g, unsigned int a)
{
	int rmid = rdt_mon_group_rmid(st, (int)g);

	return RDT_HOOK_PQR(st->groups[g].closid[a], rmid > 0 ? rmid : 0);
}

/* One (group, domain) -> CLOSID entry of group_closid. */
struct gentry {
	struct rdt_hook_gkey key;
	__u32 closid;
};

static int cmp_gentry(const void *a, const void *b)
{
	const struct rdt_hook_gkey *x = a, *y = b;

	if (x->seq != y->seq)
		return (x->seq > y->seq) - (x->seq < y->seq);
	return (x->adom > y->adom) - (x->adom < y->adom);
}

static int grow(struct rdt_hook *h, void **p, size_t *cap, size_t want, size_t size)
{
	void *np;

	if (want <= *cap)
		return 0;
	np = realloc(*p, want * size);
	if (!np)
		return hook_fail(h, -ENOMEM, "out of memory");
	*p = np;
	*cap = want;
	return 0;
}

#define DUMP_CHUNK 4096

/*
 * The whole of group_closid in a few syscalls (batch lookups), sorted by key:
 * a sync then writes only what differs, which keeps a call on a state of
 * 10,000 groups from costing 20,000 syscalls.
 */
static int dump_groups(struct rdt_hook *h, struct gentry **out, size_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct rdt_hook_gkey *keys = NULL;
	size_t used = 0, kcap = 0, vcap = 0, i;
	__u64 tok = 0;
	__u32 *vals = NULL, cnt;
	struct gentry *v;
	int ret = 0;

	for (;;) {
		if (grow(h, (void **)&keys, &kcap, used + DUMP_CHUNK, sizeof(*keys)) ||
		    grow(h, (void **)&vals, &vcap, used + DUMP_CHUNK, sizeof(*vals))) {
			ret = -ENOMEM;
			break;
		}
		cnt = DUMP_CHUNK;
		ret = bpf_map_lookup_batch(h->fd[M_GCLOS], used ? &tok : NULL, &tok, keys + used,
					   vals + used, &cnt, &opts);
		used += cnt;
		if (ret == -ENOENT) {	/* the end of the map */
			ret = 0;
			break;
		}
		if (ret) {
			hook_fail(h, ret, "switch hook: reading map group_closid failed: %s",
				  strerror(-ret));
			break;
		}
	}
	v = ret ? NULL : malloc((used ? used : 1) * sizeof(*v));
	if (!ret && !v)
		ret = hook_fail(h, -ENOMEM, "out of memory");
	for (i = 0; !ret && i < used; i++) {
		v[i].key = keys[i];
		v[i].closid = vals[i];
	}
	free(keys);
	free(vals);
	if (ret)
		return ret;
	qsort(v, used, sizeof(*v), cmp_gentry);
	*out = v;
	*n = used;
	return 0;
}

/* Write n entries of map i in one syscall (keys and values as the map lays them out). */
static int update_batch(struct rdt_hook *h, int i, const void *keys, const void *vals, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	__u32 cnt = n;
	int ret;

	if (!n)
		return 0;
	ret = bpf_map_update_batch(h->fd[i], keys, vals, &cnt, &opts);
	if (ret)
		return hook_fail(h, ret, "switch hook: updating map %s failed: %s",
				 pin_names[i], strerror(-ret));
	return 0;
}

/* The group_closid entries the state wants: every live group in every domain, sorted. */
static int wanted_groups(struct rdt_hook *h, const struct rdt_state *st, struct gentry **out,
			 size_t *n)
{
	struct gentry *v = malloc(((size_t)st->nlive * st->nadom + 1) * sizeof(*v));
	size_t k = 0;
	unsigned int g, a;

	if (!v)
		return hook_fail(h, -ENOMEM, "out of memory");
	for (g = 0; g < st->ngroups; g++) {
		const struct rdt_group *grp = &st->groups[g];

		if (!grp->live)
			continue;
		for (a = 0; a < st->nadom; a++) {
			v[k].key = (struct rdt_hook_gkey){ .seq = grp->seq, .adom = a };
			v[k++].closid = pqr_value(st, g, a);
		}
	}
	qsort(v, k, sizeof(*v), cmp_gentry);
	*out = v;
	*n = k;
	return 0;
}

/* group_closid := what the state wants: changed entries written, dead ones dropped. */
static int sync_groups(struct rdt_hook *h, const struct rdt_state *st)
{
	struct gentry *want = NULL, *have = NULL, *e;
	struct rdt_hook_gkey *keys = NULL;
	size_t nwant = 0, nhave = 0, i, k = 0;
	__u32 *vals = NULL;
	int ret;

	ret = wanted_groups(h, st, &want, &nwant);
	if (!ret)
		ret = dump_groups(h, &have, &nhave);
	if (ret)
		goto out;
	keys = malloc((nwant + nhave + 1) * sizeof(*keys));
	vals = malloc((nwant + 1) * sizeof(*vals));
	if (!keys || !vals) {
		ret = hook_fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	/* CLOSIDs first: a CPU or task pointed at a group finds its entries */
	for (i = 0; i < nwant; i++) {
		e = bsearch(&want[i], have, nhave, sizeof(*have), cmp_gentry);
		if (e && e->closid == want[i].closid)
			continue;
		keys[k] = want[i].key;
		vals[k++] = want[i].closid;
	}
	ret = update_batch(h, M_GCLOS, keys, vals, (__u32)k);
	for (i = 0, k = 0; !ret && i < nhave; i++)
		if (!bsearch(&have[i], want, nwant, sizeof(*want), cmp_gentry))
			keys[k++] = have[i].key;
	if (!ret && k) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		__u32 cnt = (__u32)k;

		ret = bpf_map_delete_batch(h->fd[M_GCLOS], keys, &cnt, &opts);
		if (ret)
			hook_fail(h, ret, "switch hook: removing groups from map group_closid "
				  "failed: %s", strerror(-ret));
	}
out:
	free(want);
	free(have);
	free(keys);
	free(vals);
	return ret;
}

static int sync_cpus(struct rdt_hook *h, const struct rdt_state *st)
{
	const struct rdt_machine *m = st->m;
	__u32 *keys = malloc((h->ncpus + 1) * sizeof(*keys));
	__u32 *adom = malloc((h->ncpus + 1) * sizeof(*adom));
	__u64 *seq = malloc((h->ncpus + 1) * sizeof(*seq));
	unsigned int c;
	int ret;

	if (!keys || !adom || !seq) {
		ret = hook_fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	for (c = 0; c < h->ncpus; c++) {
		bool have = c < m->ncpus && m->cpu_present[c] && st->cpu_adom[c] != UINT_MAX;

		keys[c] = c;
		adom[c] = have ? st->cpu_adom[c] : RDT_HOOK_NO_DOMAIN;
		seq[c] = have && st->cpu_group[c] >= 0 ? st->groups[st->cpu_group[c]].seq : 0;
	}
	ret = update_batch(h, M_CGRP, keys, seq, h->ncpus);
	if (!ret)
		ret = update_batch(h, M_CDOM, keys, adom, h->ncpus);
out:
	free(keys);
	free(adom);
	free(seq);
	return ret;
}

/* ---- Snapshots: what the maps hold, to sync by difference ---------------------- */

struct rdt_hook_snap {
	unsigned int ngroups, nadom;
	bool *live;		/* [ngroups] */
	uint64_t *seq;		/* [ngroups] */
	__u32 *closid;		/* [ngroups * nadom] */
};

void rdt_hook_snap_free(struct rdt_hook_snap *sn)
{
	if (!sn)
		return;
	free(sn->live);
	free(sn->seq);
	free(sn->closid);
	free(sn);
}

int rdt_hook_snap_take(const struct rdt_state *st, struct rdt_hook_snap **out)
{
	struct rdt_hook_snap *sn = calloc(1, sizeof(*sn));
	unsigned int g, a;

	*out = NULL;
	if (!sn)
		return -ENOMEM;
	sn->ngroups = st->ngroups;
	sn->nadom = st->nadom;
	sn->live = calloc(st->ngroups + 1, sizeof(*sn->live));
	sn->seq = calloc(st->ngroups + 1, sizeof(*sn->seq));
	sn->closid = calloc((size_t)st->ngroups * st->nadom + 1, sizeof(*sn->closid));
	if (!sn->live || !sn->seq || !sn->closid) {
		rdt_hook_snap_free(sn);
		return -ENOMEM;
	}
	for (g = 0; g < st->ngroups; g++) {
		sn->live[g] = st->groups[g].live;
		sn->seq[g] = st->groups[g].seq;
		/* a removed group has no CLOSIDs any more */
		for (a = 0; sn->live[g] && a < st->nadom; a++)
			sn->closid[(size_t)g * st->nadom + a] = pqr_value(st, g, a);
	}
	*out = sn;
	return 0;
}

static bool snap_same(const struct rdt_hook_snap *sn, const struct rdt_state *st, unsigned int g)
{
	unsigned int a;

	if (g >= sn->ngroups || !sn->live[g] || sn->seq[g] != st->groups[g].seq)
		return false;
	for (a = 0; a < st->nadom; a++)
		if (sn->closid[(size_t)g * sn->nadom + a] != pqr_value(st, g, a))
			return false;
	return true;
}

/*
 * group_closid from before (what the maps hold) to st, by group index: the
 * entries of groups gone or replaced are deleted first, then those that are
 * new or changed written, so a group that moved index ends up present.
 */
static int sync_groups_diff(struct rdt_hook *h, const struct rdt_hook_snap *before,
			    const struct rdt_state *st)
{
	size_t n = ((size_t)before->ngroups * before->nadom) +
		   ((size_t)st->ngroups * st->nadom) + 1, k = 0;
	struct rdt_hook_gkey *keys = malloc(n * sizeof(*keys));
	__u32 *vals = malloc(n * sizeof(*vals));
	unsigned int g, a;
	int ret = 0;

	if (!keys || !vals) {
		ret = hook_fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	for (g = 0; g < before->ngroups; g++) {
		bool kept = g < st->ngroups && st->groups[g].live &&
			    st->groups[g].seq == before->seq[g];

		if (!before->live[g] || (kept && st->nadom == before->nadom))
			continue;
		for (a = 0; a < before->nadom; a++)
			keys[k++] = (struct rdt_hook_gkey){ .seq = before->seq[g], .adom = a };
	}
	if (k) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		__u32 cnt = (__u32)k;

		/* some may be gone already (a reused index): delete one by one then */
		if (bpf_map_delete_batch(h->fd[M_GCLOS], keys, &cnt, &opts)) {
			size_t i;

			for (i = 0; i < k; i++)
				if (bpf_map_delete_elem(h->fd[M_GCLOS], &keys[i]) && errno != ENOENT) {
					ret = hook_fail(h, -errno, "switch hook: removing a group "
							"from map group_closid failed: %s",
							strerror(errno));
					goto out;
				}
		}
	}
	for (g = 0, k = 0; g < st->ngroups; g++) {
		if (!st->groups[g].live || snap_same(before, st, g))
			continue;
		for (a = 0; a < st->nadom; a++) {
			keys[k] = (struct rdt_hook_gkey){ .seq = st->groups[g].seq, .adom = a };
			vals[k++] = pqr_value(st, g, a);
		}
	}
	ret = update_batch(h, M_GCLOS, keys, vals, (__u32)k);
out:
	free(keys);
	free(vals);
	return ret;
}

/* cgroup_group := the state's bindings (cgroup id -> group), when either has any. */
static int sync_cgroups(struct rdt_hook *h, const struct rdt_state *st)
{
	__u64 *keys = NULL, *gone = NULL, key, next;
	struct rdt_hook_task *vals = NULL;
	size_t ngone = 0, i;
	int ret = 0;

	if (!st->ncgroups && !h->ctl->ncgroups)
		return 0;
	keys = malloc((st->ncgroups + 1) * sizeof(*keys));
	vals = malloc((st->ncgroups + 1) * sizeof(*vals));
	gone = malloc((RDT_HOOK_CGROUPS + 1) * sizeof(*gone));
	if (!keys || !vals || !gone) {
		ret = hook_fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < st->ncgroups; i++) {
		keys[i] = st->cgroups[i].id;
		vals[i].seq = st->groups[st->cgroups[i].group].seq;
	}
	/* entries first, then the count that makes the program look at them */
	ret = update_batch(h, M_CGBIND, keys, vals, st->ncgroups);
	if (ret)
		goto out;
	h->ctl->ncgroups = st->ncgroups;
	for (int more = !bpf_map_get_next_key(h->fd[M_CGBIND], NULL, &next);
	     more && ngone < RDT_HOOK_CGROUPS;
	     more = !bpf_map_get_next_key(h->fd[M_CGBIND], &key, &next)) {
		bool want = false;

		key = next;
		for (i = 0; i < st->ncgroups && !want; i++)
			want = keys[i] == key;
		if (!want)
			gone[ngone++] = key;
	}
	for (i = 0; i < ngone; i++)
		if (bpf_map_delete_elem(h->fd[M_CGBIND], &gone[i]) && errno != ENOENT) {
			ret = hook_fail(h, -errno, "switch hook: removing a cgroup from map "
					"cgroup_group failed: %s", strerror(errno));
			break;
		}
out:
	free(keys);
	free(vals);
	free(gone);
	return ret;
}

int rdt_hook_sync_quiet(struct rdt_hook *h, const struct rdt_state *st)
{
	int ret;

	if (!h || !st)
		return -EINVAL;
	h->err[0] = '\0';
	ret = sync_groups(h, st);
	if (!ret)
		ret = sync_cgroups(h, st);
	return ret ? ret : sync_cpus(h, st);
}

int rdt_hook_sync(struct rdt_hook *h, const struct rdt_state *st,
		  const struct rdt_hook_snap *before)
{
	int ret;

	if (!h || !st)
		return -EINVAL;
	h->err[0] = '\0';
	/* CLOSIDs first: a CPU or task pointed at a group finds its entries */
	ret = before ? sync_groups_diff(h, before, st) : sync_groups(h, st);
	if (!ret)
		ret = sync_cgroups(h, st);
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

int rdt_hook_bind_task(struct rdt_hook *h, pid_t tid, uint64_t start, uint64_t group_seq)
{
	struct rdt_hook_task val = { .seq = group_seq };
	int fd, ret = 0;

	if (!h || tid <= 0)
		return -EINVAL;
	h->err[0] = '\0';
	fd = thread_pidfd(h, tid);
	if (fd < 0)
		return fd;
	/* checked once the pidfd holds the task: the id cannot move on to another one */
	if (start && rdt_hook_proc_start(tid) != start) {
		close(fd);
		return hook_fail(h, -ESRCH, "task %d exited (the id is another task's now)",
				 (int)tid);
	}
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

static int dump_tasks(struct rdt_hook *h, struct rdt_hook_task_rec **out, size_t *n);

/* The group of tid as the task iterator sees it (no pidfd needed); -ESRCH: not live. */
static int iter_task_group(struct rdt_hook *h, pid_t tid, uint64_t *seq)
{
	struct rdt_hook_task_rec *rec;
	size_t n, i;
	int ret = dump_tasks(h, &rec, &n);

	if (ret)
		return ret;
	ret = -ESRCH;
	for (i = 0; i < n; i++)
		if (rec[i].tid == (__u32)tid) {
			*seq = rec[i].own ? rec[i].seq : 0;	/* its own binding only */
			ret = 0;
			break;
		}
	free(rec);
	return ret;
}

int rdt_hook_task_group(struct rdt_hook *h, pid_t tid, uint64_t *seq)
{
	struct rdt_hook_task val;
	int fd = thread_pidfd(h, tid);
	int ret = 0;

	*seq = 0;
	if (fd == -EOPNOTSUPP)
		return iter_task_group(h, tid, seq);
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(h->fd[M_TASK], &fd, &val) == 0)
		*seq = val.seq;
	else if (errno != ENOENT)
		ret = -errno;
	close(fd);
	return ret;
}

static __u32 pqr_of(struct rdt_hook *h, uint64_t seq, __u32 adom)
{
	struct rdt_hook_gkey key = { .seq = seq, .adom = adom };
	__u32 k;

	if (bpf_map_lookup_elem(h->fd[M_GCLOS], &key, &k) == 0)
		return k;
	key.seq = 0;
	return bpf_map_lookup_elem(h->fd[M_GCLOS], &key, &k) == 0 ? k : 0;
}

/*
 * The group of tid through its cgroup as the program finds it (cgroup_seq
 * in bpf/switch_hook.bpf.c): its cgroup and each ancestor looked up by id.
 */
static uint64_t cgroup_seq(struct rdt_hook *h, pid_t tid)
{
	char rel[RDT_CGROUP_PATH_MAX], *slash;
	struct rdt_hook_task v;
	uint64_t id;

	if (!h->ctl->ncgroups || !h->cgroup_root[0] || rdt_task_cgroup(tid, rel, sizeof(rel)))
		return 0;
	while (rel[0]) {
		if (!rdt_cgroup_id(h->cgroup_root, rel, &id) &&
		    !bpf_map_lookup_elem(h->fd[M_CGBIND], &id, &v))
			return v.seq;
		slash = strrchr(rel, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return 0;
}

/* The BPF program's rule, from user space (closid_for in bpf/switch_hook.bpf.c). */
int rdt_hook_pqr_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *pqr)
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
	if ((!seq || h->ctl->precedence == RDT_HOOK_PREC_TASK) && tid > 0) {
		uint64_t tseq = 0;
		int ret = rdt_hook_task_group(h, tid, &tseq);

		if (ret && ret != -ESRCH)
			return ret;	/* unknown: better no answer than default's */
		if (!ret && !tseq)
			tseq = cgroup_seq(h, tid);
		if (!ret && tseq)	/* -ESRCH: exited, it no longer counts */
			seq = tseq;
	}
	*pqr = pqr_of(h, seq, adom);
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
	struct gentry *e;
	size_t ne, i;
	uint64_t *v;
	int ret = dump_groups(h, &e, &ne);

	if (ret)
		return ret;
	v = malloc((ne ? ne : 1) * sizeof(*v));
	if (!v) {
		free(e);
		return hook_fail(h, -ENOMEM, "out of memory");
	}
	/* sorted by (seq, domain): each seq once */
	for (i = 0, *n = 0; i < ne; i++)
		if (!*n || v[*n - 1] != e[i].key.seq)
			v[(*n)++] = e[i].key.seq;
	free(e);
	*out = v;
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

int rdt_hook_sync(struct rdt_hook *h, const struct rdt_state *st,
		  const struct rdt_hook_snap *before)
{
	return -EOPNOTSUPP;
}

int rdt_hook_snap_take(const struct rdt_state *st, struct rdt_hook_snap **out)
{
	*out = NULL;
	return -EOPNOTSUPP;
}

void rdt_hook_snap_free(struct rdt_hook_snap *sn)
{
}

int rdt_hook_bind_task(struct rdt_hook *h, pid_t tid, uint64_t start, uint64_t group_seq)
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

int rdt_hook_pqr_for(struct rdt_hook *h, unsigned int cpu, pid_t tid, unsigned int *pqr)
{
	return -EOPNOTSUPP;
}

void rdt_hook_agent(struct rdt_hook *h, struct rdt_hook_agent_info *info)
{
	*info = (struct rdt_hook_agent_info){ 0 };
}

#endif /* RDTALLOC_HAVE_BPF */
