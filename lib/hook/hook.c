// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook API: rdtalloc_hook_start/stop/run/status/cpus. Start loads and pins
 * the hook when it is not (load.c) and starts the agent (agent.c) as a
 * daemon; run is the same agent in the foreground; stop ends the agent,
 * unpins everything and puts every CPU's PQR_ASSOC back to the CLOSID of its
 * own group (or default); status and cpus read the pinned maps. Built
 * without the hook, every call says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "hook/hook.h"
#include "state.h"

#define NOT_BUILT "this librdtalloc was built without the switch hook (RDTALLOC_BPF=OFF)"

/* Whether or not the hook is built: the answer for backends that need none. */
static int no_hook(rdtalloc_t *r)
{
	return rdt_fail(r, -EOPNOTSUPP, "backend %s has no switch hook: the kernel switches "
			"CLOSIDs itself, for tasks and CPUs alike", rdt_core_backend(r)->name);
}

#if RDTALLOC_HAVE_BPF

#include <linux/types.h>

#include "switch_hook.h"

/* The CLOSID part of a packed PQR value; UINT_MAX (nothing applied yet) stays. */
static unsigned int pqr_closid(__u32 v)
{
	return v == UINT_MAX ? UINT_MAX : RDT_HOOK_PQR_CLOSID(v);
}

#define STOP_WAIT_MS 5000	/* SIGTERM, then this long before SIGKILL */

static int open_hook(rdtalloc_t *r, struct rdt_hook **h)
{
	char err[RDT_ERRMSG_MAX] = "";
	int ret = rdt_hook_open(h, err, sizeof(err));

	if (ret == -ENOENT)
		return rdt_fail(r, ret, "the switch hook is not loaded (nothing is pinned under "
				"%s): start it with rdtctl hook start", RDT_HOOK_DIR);
	return ret ? rdt_fail(r, ret, "%s", err) : 0;
}

static int need_store(rdtalloc_t *r)
{
	if (!rdt_core_backend(r)->hook)
		return no_hook(r);
	if (rdt_core_store(r))
		return 0;
	return rdt_fail(r, -EINVAL, "the switch hook cannot serve an ephemeral context: its "
			"agent runs in another process and shares the registers through the "
			"state directory; open the context with a state directory");
}

/* The served state directory still exists (else nobody could ever stop the hook). */
static bool served_dir_exists(struct rdt_hook *h)
{
	const struct rdt_hook_ctl *ctl = rdt_hook_ctl(h);
	struct stat sb;

	return stat(ctl->serve_dir, &sb) == 0 && (uint64_t)sb.st_ino == ctl->serve_ino &&
	       (uint64_t)sb.st_dev == ctl->serve_dev;
}

static int not_served(rdtalloc_t *r, struct rdt_hook *h)
{
	const struct rdt_hook_ctl *ctl = rdt_hook_ctl(h);

	return rdt_fail(r, -EBUSY, "the switch hook serves the %.16s backend with state "
			"directory %.256s, not this context's: use that backend and state "
			"directory (rdtctl --backend %.16s --state-dir %.256s hook ...)",
			ctl->serve_backend, ctl->serve_dir, ctl->serve_backend, ctl->serve_dir);
}

/*
 * Make sure the hook is loaded for r, with no agent running: load it when
 * nothing is pinned (*loaded = true), else check it serves r's state.
 */
static int prepare(rdtalloc_t *r, bool *loaded)
{
	struct rdt_hook_agent_info info;
	char err[RDT_ERRMSG_MAX] = "";
	struct rdt_hook *h = NULL;
	int ret;

	*loaded = false;
	ret = need_store(r);
	if (ret)
		return ret;
	if (rdt_core_machine(r)->virtual_tasks)
		return rdt_fail(r, -EINVAL, "the switch hook follows real tasks, and this state's "
				"machine has virtual ones (tasks=virtual): use a state directory "
				"whose machine has real tasks");
	ret = rdt_hook_open(&h, err, sizeof(err));
	if (ret == -ENOENT) {
		ret = rdt_core_begin(r, false);
		if (ret)
			return ret;
		ret = rdt_hook_load(r, rdt_core_state(r), err, sizeof(err));
		if (ret)
			rdt_fail(r, ret, "%s", err);
		ret = rdt_core_end(r, false, ret);
		if (ret && ret != -EEXIST)
			return ret;
		*loaded = ret == 0;	/* -EEXIST: another process was quicker */
		ret = rdt_hook_open(&h, err, sizeof(err));
	}
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	rdt_hook_agent(h, &info);
	if (!rdt_hook_serves(h, r))
		ret = not_served(r, h);
	else if (info.running)
		ret = rdt_fail(r, -EEXIST, "the switch hook is already running (agent pid %d)",
			       (int)info.pid);
	rdt_hook_close(h);
	return ret;
}

/*
 * A start that failed takes down the hook it loaded - unless an agent serves
 * it after all (a concurrent start that won): that one must keep its pins.
 */
static void undo_load(bool loaded)
{
	struct rdt_hook_agent_info info = { 0 };
	char err[RDT_ERRMSG_MAX];
	struct rdt_hook *h;

	if (!loaded)
		return;
	if (rdt_hook_open(&h, err, sizeof(err)) == 0) {
		rdt_hook_agent(h, &info);
		rdt_hook_close(h);
		if (info.running)
			return;
	}
	rdt_hook_unload(err, sizeof(err));
}

/*
 * The daemon: a new context on the same state, opened as the caller's was
 * (never share r's lock with it). machine: the caller's description when it
 * gave one (it then overrides detection for the agent too), else NULL;
 * msr_root: the caller's device root (NULL: the environment's, inherited).
 */
static void daemon_main(const char *backend, const char *dir, const char *machine,
			const char *msr_root, int fd)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = backend, .state_dir = dir, .machine = machine,
		      .msr_root = msr_root);
	struct rdt_hook_ready rd = { 0 };
	rdtalloc_t *r2;
	int ret, devnull;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		close(devnull);
	}
	if (chdir("/"))
		_exit(1);
	prctl(PR_SET_NAME, "rdtalloc-agent", 0, 0, 0);
	/* the starter may be gone when we report: that must not kill us */
	signal(SIGPIPE, SIG_IGN);
	ret = rdtalloc_open(&r2, &o);
	if (ret) {
		rd.ret = ret;
		rd.pid = getpid();
		snprintf(rd.msg, sizeof(rd.msg), "switch hook agent: %s", rdtalloc_errmsg(NULL));
		if (write(fd, &rd, sizeof(rd)) < 0)
			_exit(1);
		_exit(1);
	}
	ret = rdt_hook_agent_run(r2, NULL, fd);
	rdtalloc_close(r2);
	_exit(ret ? 1 : 0);
}

/* Close every descriptor but keep; keep becomes 3. */
static int only_fd(int keep)
{
	if (keep != 3 && dup2(keep, 3) < 0)
		return -1;
	return (int)syscall(SYS_close_range, 4u, ~0u, 0u) == 0 ? 3 : -1;
}

/*
 * Double fork: the agent is nobody's child (no zombie for the caller), in
 * its own session, with nothing of ours open but the pipe that reports
 * whether it started.
 */
static int spawn_agent(rdtalloc_t *r, pid_t *agent)
{
	struct rdt_hook_ready rd = { 0 };
	char dir[PATH_MAX], backend[32];
	const char *path = rdt_store_path(rdt_core_store(r)), *slash = strrchr(path, '/');
	const char *machine = rdt_core_env(r)->machine_given ? rdt_core_machine(r)->desc : NULL;
	int p[2], status, fd;
	ssize_t n, got = 0;
	pid_t pid;

	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%.*s", (int)(slash - path), path);
	/* the agent works in / */
	if (!realpath(rel, dir))
		return rdt_fail(r, -errno, "cannot start the agent: state directory %s: %s", rel,
				strerror(errno));
	snprintf(backend, sizeof(backend), "%s", rdt_core_backend(r)->name);
	if (pipe2(p, O_CLOEXEC))
		return rdt_fail(r, -errno, "cannot start the agent: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return rdt_fail(r, -errno, "cannot start the agent: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		fd = only_fd(p[1]);
		if (fd < 0)
			_exit(1);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		daemon_main(backend, dir, machine, rdt_core_env(r)->msr_root, fd);
	}
	close(p[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	while (got < (ssize_t)sizeof(rd)) {
		n = read(p[0], (char *)&rd + got, sizeof(rd) - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(p[0]);
	if (got != (ssize_t)sizeof(rd))
		return rdt_fail(r, -ECHILD, "the switch hook agent exited before it was ready");
	if (rd.ret)
		return rdt_fail(r, rd.ret, "%s", rd.msg);
	*agent = rd.pid;
	return 0;
}

/* Start (daemon) or run (stop: the caller's flag) the agent; undo a load that fails. */
static int start_agent(rdtalloc_t *r, bool daemon, volatile int *stop)
{
	bool loaded;
	pid_t pid;
	int ret;

	if (!r)
		return -EINVAL;
	rdt_clear_err(r);
	ret = prepare(r, &loaded);
	if (ret)
		return ret;
	ret = daemon ? spawn_agent(r, &pid) : rdt_hook_agent_run(r, stop, -1);
	/* a failed agent leaves no hook behind that this call loaded */
	if (ret)
		undo_load(loaded);
	return ret;
}

RDTALLOC_API int rdtalloc_hook_start(rdtalloc_t *r)
{
	return start_agent(r, true, NULL);
}

RDTALLOC_API int rdtalloc_hook_run(rdtalloc_t *r, volatile int *stop)
{
	return start_agent(r, false, stop);
}

static int pidfd_of(pid_t pid, uint64_t start)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	/* checked after opening: the pidfd cannot move to a reused PID */
	if (fd >= 0 && rdt_hook_proc_start(pid) != start) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool wait_exit(int pidfd, int ms)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n > 0;
}

/* SIGTERM the agent (it writes its last registers), SIGKILL if it does not go. */
static int stop_agent(rdtalloc_t *r, struct rdt_hook *h)
{
	struct rdt_hook_ctl *ctl = rdt_hook_ctl(h);
	struct rdt_hook_agent_info info;
	int fd;

	rdt_hook_agent(h, &info);
	if (!info.running)
		return 0;
	fd = pidfd_of(info.pid, ctl->agent_start);
	if (fd < 0)
		return 0;	/* gone meanwhile */
	if (syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) == 0 &&
	    wait_exit(fd, STOP_WAIT_MS)) {
		close(fd);
		return 0;
	}
	syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	if (!wait_exit(fd, STOP_WAIT_MS)) {
		close(fd);
		return rdt_fail(r, -ETIMEDOUT, "the switch hook agent (pid %d) does not stop",
				(int)info.pid);
	}
	close(fd);
	return 0;
}

/*
 * Every CPU back to the CLOSID of its own group, else default's. Where only
 * the hook could bind tasks (msr), their bindings go with it: kept, they
 * would be listed without being in force.
 */
static int restore_pqr(rdtalloc_t *r)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	struct rdt_state *st;
	unsigned int c, k;
	bool written;
	size_t i;
	int ret;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	st = rdt_core_state(r);
	if (rdt_core_backend(r)->task_binding && st->tasks.len) {
		/* ids first: forgetting one moves others within the table */
		size_t n = 0;
		pid_t *tids = malloc(st->tasks.len * sizeof(*tids));

		if (!tids)
			return rdt_core_end(r, true, rdt_fail(r, -ENOMEM, "out of memory"));
		for (i = 0; i < st->tasks.cap; i++)
			if (st->tasks.slots[i].tid)
				tids[n++] = st->tasks.slots[i].tid;
		for (i = 0; i < n; i++)
			rdt_forget_task(st, tids[i]);
		free(tids);
		rdt_core_mark_dirty(r);
	}
	for (c = 0; c < m->ncpus && !ret; c++) {
		if (!m->cpu_present[c] || st->cpu_adom[c] == UINT_MAX)
			continue;
		/* the agent's last writes may not be in the image: write them all */
		st->regs.pqr[c] = UINT_MAX;
		ret = rdt_switch(st, (int)c, 0, &k, &written);
		if (ret)
			ret = rdt_fail(r, ret, "%s", st->err);
		rdt_core_mark_dirty(r);
	}
	/* the agent wrote tasks' RMIDs too: each CPU's own group's go back at commit */
	rdt_core_mark_groups_changed(r);
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_hook_stop(rdtalloc_t *r)
{
	char err[RDT_ERRMSG_MAX] = "";
	struct rdt_hook *h;
	bool served;
	int ret;

	if (!r)
		return -EINVAL;
	rdt_clear_err(r);
	ret = open_hook(r, &h);
	if (ret)
		return ret;
	served = rdt_hook_serves(h, r);
	if (!served && served_dir_exists(h)) {
		ret = not_served(r, h);
		rdt_hook_close(h);
		return ret;
	}
	ret = stop_agent(r, h);
	rdt_hook_close(h);
	if (ret)
		return ret;
	ret = rdt_hook_unload(err, sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	return served ? restore_pqr(r) : 0;
}

/* The p-th percentile of the agent's lag histogram: the upper end of its bucket. */
static uint64_t percentile(const struct rdt_hook_ctl *ctl, unsigned int p)
{
	uint64_t rank, seen = 0;
	unsigned int b;

	if (!ctl->lag_samples)
		return 0;
	rank = (ctl->lag_samples * p + 99) / 100;
	for (b = 0; b < RDT_HOOK_LAG_BUCKETS; b++) {
		seen += ctl->lag_hist[b];
		if (seen >= rank && seen) {
			unsigned int e, sub;
			uint64_t low, top;

			if (b < (1u << RDT_HOOK_SUB_BITS))
				return b;
			e = (b >> RDT_HOOK_SUB_BITS) + RDT_HOOK_SUB_BITS - 1;
			sub = b & ((1u << RDT_HOOK_SUB_BITS) - 1);
			low = (uint64_t)((1u << RDT_HOOK_SUB_BITS) + sub)
			      << (e - RDT_HOOK_SUB_BITS);
			top = low + (1ull << (e - RDT_HOOK_SUB_BITS)) - 1;
			return top < ctl->lag_max_ns ? top : ctl->lag_max_ns;
		}
	}
	return ctl->lag_max_ns;
}

RDTALLOC_API int rdtalloc_hook_get_status(rdtalloc_t *r, struct rdtalloc_hook_status *st)
{
	struct rdtalloc_hook_status v = { .built = 1 };
	struct rdt_hook_agent_info info;
	char err[RDT_ERRMSG_MAX] = "";
	struct rdt_hook_ctl *ctl;
	struct rdt_hook *h;
	int ret;

	if (!r)
		return -EINVAL;
	rdt_clear_err(r);
	if (!st || st->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_hook_status: st is NULL or st->sz is not "
				"set");
	v.sz = st->sz < sizeof(v) ? st->sz : sizeof(v);
	ret = rdt_hook_open(&h, err, sizeof(err));
	if (ret == -ENOENT) {
		memcpy(st, &v, v.sz);
		return 0;
	}
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	ctl = rdt_hook_ctl(h);
	rdt_hook_agent(h, &info);
	v.loaded = 1;
	v.agent_running = info.running;
	v.agent_pid = info.running ? info.pid : 0;
	v.ncpus = rdt_hook_ncpus(h);
	v.lag_samples = ctl->lag_samples;
	v.lag_p50_ns = percentile(ctl, 50);
	v.lag_p99_ns = percentile(ctl, 99);
	v.lag_max_ns = ctl->lag_max_ns;
	snprintf(v.served_dir, sizeof(v.served_dir), "%.*s", (int)sizeof(ctl->serve_dir),
		 ctl->serve_dir);
	snprintf(v.served_backend, sizeof(v.served_backend), "%.*s",
		 (int)sizeof(ctl->serve_backend), ctl->serve_backend);
	rdt_hook_close(h);
	memcpy(st, &v, v.sz);
	return 0;
}

RDTALLOC_API int rdtalloc_hook_cpus(rdtalloc_t *r, struct rdtalloc_hook_cpu *out, size_t max)
{
	struct rdt_hook *h;
	unsigned int c, n;
	size_t stride;
	int ret;

	if (!r)
		return -EINVAL;
	rdt_clear_err(r);
	if (max && (!out || out[0].sz < sizeof(size_t)))
		return rdt_fail(r, -EINVAL, "rdtalloc_hook_cpus: out is NULL or out[0].sz is not "
				"set");
	stride = max ? out[0].sz : 0;
	ret = open_hook(r, &h);
	if (ret)
		return ret;
	n = rdt_hook_ncpus(h);
	for (c = 0; c < n && c < max; c++) {
		const struct rdt_hook_slot *s = rdt_hook_slot(h, c);
		struct rdtalloc_hook_cpu v = {
			.sz = stride < sizeof(v) ? stride : sizeof(v),
			.cpu = (int)c,
			.wanted = RDT_HOOK_PQR_CLOSID(RDT_HOOK_CUR_CLOSID(
				__atomic_load_n(&s->cur, __ATOMIC_RELAXED))),
			.applied = pqr_closid(__atomic_load_n(&s->applied, __ATOMIC_RELAXED)),
			.switches = s->switches,
			.events = s->events,
			.coalesced = s->coalesced,
			.pqr_writes = s->pqr_writes,
			.dropped = s->dropped,
		};

		memcpy((char *)out + (size_t)c * stride, &v, v.sz);
	}
	rdt_hook_close(h);
	return n > INT_MAX ? INT_MAX : (int)n;
}

#else /* !RDTALLOC_HAVE_BPF */

RDTALLOC_API int rdtalloc_hook_start(rdtalloc_t *r)
{
	if (r && !rdt_core_backend(r)->hook)
		return no_hook(r);
	return r ? rdt_fail(r, -EOPNOTSUPP, NOT_BUILT) : -EINVAL;
}

RDTALLOC_API int rdtalloc_hook_stop(rdtalloc_t *r)
{
	return r ? rdt_fail(r, -EOPNOTSUPP, NOT_BUILT) : -EINVAL;
}

RDTALLOC_API int rdtalloc_hook_run(rdtalloc_t *r, volatile int *stop)
{
	if (r && !rdt_core_backend(r)->hook)
		return no_hook(r);
	return r ? rdt_fail(r, -EOPNOTSUPP, NOT_BUILT) : -EINVAL;
}

RDTALLOC_API int rdtalloc_hook_get_status(rdtalloc_t *r, struct rdtalloc_hook_status *st)
{
	if (!r)
		return -EINVAL;
	/* the one fact there is: not built */
	if (st && st->sz >= sizeof(size_t)) {
		struct rdtalloc_hook_status v = { 0 };

		v.sz = st->sz < sizeof(v) ? st->sz : sizeof(v);
		memcpy(st, &v, v.sz);
	}
	return rdt_fail(r, -EOPNOTSUPP, NOT_BUILT);
}

RDTALLOC_API int rdtalloc_hook_cpus(rdtalloc_t *r, struct rdtalloc_hook_cpu *out, size_t max)
{
	return r ? rdt_fail(r, -EOPNOTSUPP, NOT_BUILT) : -EINVAL;
}

#endif /* RDTALLOC_HAVE_BPF */
