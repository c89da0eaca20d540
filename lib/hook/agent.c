// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook agent: the process that turns the BPF program's "CPU c wants CLOSID
 * k" events into PQR_ASSOC writes, through the backend's register file: the
 * msr backend's sink on hardware, the simulator's register image otherwise.
 *
 * Per event it reads the latest CLOSID wanted on that CPU, writes it when
 * the register holds another, records the lag from the switch-in, and
 * re-arms the CPU (clears pending, then looks again: a change that came in
 * meanwhile was coalesced, so it is its job). That is the main thread's
 * job, at real-time priority. A second thread, the flusher, writes the
 * registers into the state at most FLUSH_NS after they change (the
 * simulator's file is that much behind the registers), under the state's
 * lock, and there it also takes over register writes made by other
 * processes (a CPU bind, a schema change) and re-applies every CPU when the
 * maps changed: the file's read, write and fsync never hold up an event.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "hook/hook.h"
#include "state.h"

#if RDTALLOC_HAVE_BPF

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "switch_hook.h"

#define MS 1000000ull
#define FLUSH_NS (10 * MS)	/* longest a register write waits for the state file */
#define IDLE_MS 100		/* how often *stop is looked at */
#define PASS_NS (1000 * MS)	/* a full pass at least this often (retries, lost kicks) */

struct agent {
	struct rdtalloc *r;
	struct rdt_hook *h;
	struct rdt_hook_ctl *ctl;
	struct ring_buffer *rb;
	unsigned int ncpus;	/* CPUs both the hook and the machine have */
	unsigned int *reg;	/* what each PQR_ASSOC holds, as this agent made it */
	pid_t *tid;		/* the task reg was chosen for (the state's "cur") */
	unsigned int *last;	/* the state's register image after our last pass */
	bool *have;		/* the machine has the CPU */
	uint64_t unflushed;	/* writes not yet counted in the state */
	uint64_t dirty_since;	/* first write not yet in the state, 0: none */
	uint64_t last_pass;
	uint64_t flusher_due;	/* when the waiting flusher wakes by itself; 0: not waiting */
	uint64_t since;		/* when this agent began taking events */
	uint64_t gen;
	bool kicked;
	/*
	 * Two threads: the main one (real-time) takes events and writes
	 * registers; the flusher (the caller's policy) does the passes, whose
	 * state file reads and writes take milliseconds, so that no event waits
	 * for a disk. mu guards everything above that both touch.
	 */
	pthread_mutex_t mu;		/* priority inheritance: the main thread is real-time */
	pthread_cond_t cv;		/* wakes the flusher */
	unsigned long pin_ino;		/* the pin directory we serve; another one: unloaded */
	bool want_pass;			/* the maps changed: a pass now */
	bool stopping;
	int fatal;			/* the flusher's reason to end the agent */
};

static volatile sig_atomic_t g_term;

static void on_term(int sig)
{
	g_term = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC: the clock of bpf_ktime_get_ns() */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Log-linear bucket of a lag (switch_hook.h). */
static unsigned int lag_bucket(uint64_t v)
{
	unsigned int e;

	if (v < (1u << RDT_HOOK_SUB_BITS))
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	return ((e - RDT_HOOK_SUB_BITS + 1) << RDT_HOOK_SUB_BITS) +
	       (unsigned int)((v >> (e - RDT_HOOK_SUB_BITS)) & ((1u << RDT_HOOK_SUB_BITS) - 1));
}

static void lag_add(struct agent *a, uint64_t ns)
{
	a->ctl->lag_hist[lag_bucket(ns)]++;
	a->ctl->lag_samples++;
	if (ns > a->ctl->lag_max_ns)
		a->ctl->lag_max_ns = ns;
}

static bool claim(struct rdt_hook_slot *s)
{
	__u32 idle = 0;

	return __atomic_compare_exchange_n(&s->pending, &idle, 1, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/*
 * PQR_ASSOC of cpu := v (CLOSID and RMID, RDT_HOOK_PQR), through the register
 * file. Without L3 monitoring the RMID field is another tool's: kept.
 */
static int write_reg(struct agent *a, unsigned int cpu, unsigned int v)
{
	const struct rdt_sink *sink = rdt_core_sink(a->r);
	int ret;

	if (sink) {
		if (sink->write_assoc && rdt_core_machine(a->r)->mon.rmids)
			ret = sink->write_assoc(sink->ctx, (int)cpu, RDT_HOOK_PQR_CLOSID(v),
						RDT_HOOK_PQR_RMID(v));
		else
			ret = sink->write_pqr(sink->ctx, (int)cpu, RDT_HOOK_PQR_CLOSID(v));
		if (ret)
			return ret;	/* applied is set anyway: the next pass retries */
	}
	a->reg[cpu] = v;
	rdt_hook_slot(a->h, cpu)->pqr_writes++;
	a->unflushed++;
	if (!a->dirty_since)
		a->dirty_since = now_ns();
	return 0;
}

/* Apply what cpu wants now; ts: the switch-in of the event (0: none). */
static void handle_cpu(struct agent *a, unsigned int cpu, uint64_t ts)
{
	struct rdt_hook_slot *s = rdt_hook_slot(a->h, cpu);
	unsigned int k;

	for (;;) {
		__u64 cur = __atomic_load_n(&s->cur, __ATOMIC_SEQ_CST);

		k = RDT_HOOK_CUR_CLOSID(cur);
		if (a->reg[cpu] == k || write_reg(a, cpu, k) == 0) {
			/* switches from before we ran measure our start-up, not our lag */
			if (ts && ts >= a->since && a->reg[cpu] == k)
				lag_add(a, now_ns() - ts);
			a->tid[cpu] = (pid_t)RDT_HOOK_CUR_TID(cur);
		}
		ts = 0;
		__atomic_store_n(&s->applied, k, __ATOMIC_SEQ_CST);
		/* clear, then look: either we see a newer wish or the program sees pending 0 */
		__atomic_exchange_n(&s->pending, 0, __ATOMIC_SEQ_CST);
		if (RDT_HOOK_CUR_CLOSID(__atomic_load_n(&s->cur, __ATOMIC_SEQ_CST)) == k)
			return;
		if (!claim(s))
			return;		/* an event is on its way */
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct rdt_hook_event *ev = data;
	struct agent *a = ctx;

	if (size < sizeof(*ev))
		return 0;
	if (ev->cpu == RDT_HOOK_KICK)
		a->kicked = true;
	else if (ev->cpu < a->ncpus && a->have[ev->cpu])
		handle_cpu(a, ev->cpu, ev->ts);
	return 0;
}

/*
 * The CLOSID wanted on cpu after the maps changed, for the task that runs
 * there (it may not switch for a while). Only when no switch came in since
 * we looked: the program's own answer is newer than ours.
 */
static void recompute(struct agent *a, unsigned int cpu)
{
	struct rdt_hook_slot *s = rdt_hook_slot(a->h, cpu);
	__u64 cur = __atomic_load_n(&s->cur, __ATOMIC_SEQ_CST);
	unsigned int k;

	if (rdt_hook_pqr_for(a->h, cpu, (pid_t)RDT_HOOK_CUR_TID(cur), &k))
		return;
	if (RDT_HOOK_CUR_CLOSID(cur) != k)
		__atomic_compare_exchange_n(&s->cur, &cur, RDT_HOOK_CUR(RDT_HOOK_CUR_TID(cur), k),
					    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/*
 * Under the state's lock: take over the register writes others made, bring
 * every CPU to what it wants, and put the registers into the state.
 */
static int pass(struct agent *a, bool maps_changed)
{
	struct rdtalloc *r = a->r;
	struct rdt_state *st;
	unsigned int c;
	int ret;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	st = rdt_core_state(r);
	/*
	 * Now and then the maps are compared with the state as a whole: a writer
	 * that crashed between the two, or one that could not open the pins,
	 * leaves them behind, and diff syncs alone would never notice.
	 */
	if (maps_changed && rdt_hook_sync_quiet(a->h, st))
		rdt_fail(r, -EIO, "switch hook agent: %s", rdt_hook_errmsg(a->h));
	pthread_mutex_lock(&a->mu);
	for (c = 0; c < a->ncpus; c++) {
		struct rdt_hook_slot *s = rdt_hook_slot(a->h, c);
		unsigned int cur;

		if (!a->have[c])
			continue;
		/*
		 * Another process wrote this PQR_ASSOC (a CPU bind), from maps that
		 * may be older than our last write: what the register holds is not
		 * known any more, so it is written again below.
		 */
		if (st->regs.pqr[c] != RDT_HOOK_PQR_CLOSID(a->last[c])) {
			a->reg[c] = UINT_MAX;
			a->tid[c] = st->regs.cur[c];
			__atomic_store_n(&s->applied, UINT_MAX, __ATOMIC_SEQ_CST);
		}
		if (maps_changed)
			recompute(a, c);
		cur = RDT_HOOK_CUR_CLOSID(__atomic_load_n(&s->cur, __ATOMIC_SEQ_CST));
		if ((cur != a->reg[c] || __atomic_load_n(&s->applied, __ATOMIC_SEQ_CST) != cur) &&
		    claim(s))
			handle_cpu(a, c, 0);
		/*
		 * The task goes in too: a state loaded from the file derives PQR_ASSOC
		 * from the CPU's group, the task on it and the task's binding.
		 */
		if (a->reg[c] == UINT_MAX) {
			/* an event is in flight and will write it: keep the state's value */
			a->last[c] = st->regs.pqr[c];
			continue;
		}
		/* the state's image holds the CLOSID field */
		if (st->regs.pqr[c] != RDT_HOOK_PQR_CLOSID(a->reg[c]) ||
		    st->regs.cur[c] != a->tid[c]) {
			st->regs.pqr[c] = RDT_HOOK_PQR_CLOSID(a->reg[c]);
			st->regs.cur[c] = a->tid[c];
			rdt_core_mark_dirty(r);
		}
		a->last[c] = a->reg[c];
	}
	if (a->unflushed) {
		st->regs.pqr_writes += a->unflushed;
		a->unflushed = 0;
		rdt_core_mark_dirty(r);
	}
	a->dirty_since = 0;
	a->last_pass = now_ns();
	pthread_mutex_unlock(&a->mu);
	/* the file write, without holding up events */
	return rdt_core_end(r, true, 0);
}

/* Become the agent: one per hook; our threads become transparent. */
static int take_over(struct agent *a)
{
	struct rdt_hook_agent_info info;
	struct rdtalloc *r = a->r;
	uint64_t start = rdt_hook_proc_start(getpid());
	unsigned int c;
	int ret;

	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	rdt_hook_agent(a->h, &info);
	if (info.running && info.pid != getpid()) {
		ret = rdt_fail(r, -EEXIST, "the switch hook is already running (agent pid %d)",
			       (int)info.pid);
		return rdt_core_end(r, true, ret);
	}
	__atomic_store_n(&a->ctl->agent_start, start, __ATOMIC_SEQ_CST);
	__atomic_store_n(&a->ctl->agent_tgid, (__u32)getpid(), __ATOMIC_SEQ_CST);
	for (c = 0; c < a->ncpus; c++) {
		struct rdt_hook_slot *s = rdt_hook_slot(a->h, c);

		if (!a->have[c])
			continue;
		a->reg[c] = a->last[c] = rdt_core_state(r)->regs.pqr[c];
		a->tid[c] = rdt_core_state(r)->regs.cur[c];
		__atomic_store_n(&s->applied, a->reg[c], __ATOMIC_SEQ_CST);
		/* a previous agent may have died with an event in flight */
		__atomic_store_n(&s->pending, 0, __ATOMIC_SEQ_CST);
	}
	return rdt_core_end(r, true, 0);
}

static void let_go(struct agent *a)
{
	__u32 me = (__u32)getpid();

	if (__atomic_compare_exchange_n(&a->ctl->agent_tgid, &me, 0, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		__atomic_store_n(&a->ctl->agent_start, 0, __ATOMIC_SEQ_CST);
}

/* The pins we serve are gone or replaced: rdtctl hook stop ran, or a newer hook. */
static bool unloaded(const struct agent *a)
{
	struct stat sb;

	return stat(RDT_HOOK_DIR, &sb) || (unsigned long)sb.st_ino != a->pin_ino;
}

static int setup(struct agent *a)
{
	struct rdtalloc *r = a->r;
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int c;
	int ret;

	struct stat sb;

	if (stat(RDT_HOOK_DIR, &sb))
		return rdt_fail(r, -ENOENT, "the switch hook is not loaded (%s: %s)", RDT_HOOK_DIR,
				strerror(errno));
	a->pin_ino = (unsigned long)sb.st_ino;
	ret = rdt_hook_open(&a->h, err, sizeof(err));
	if (ret)
		return rdt_fail(r, ret, "%s", err);
	a->ctl = rdt_hook_ctl(a->h);
	if (!rdt_hook_serves(a->h, r))
		return rdt_fail(r, -EBUSY, "the switch hook serves the %s backend with state "
				"directory %s, not this context's: stop it first (rdtctl hook "
				"stop)", a->ctl->serve_backend, a->ctl->serve_dir);
	a->ncpus = rdt_hook_ncpus(a->h);
	if (a->ncpus > rdt_core_machine(r)->ncpus)
		a->ncpus = rdt_core_machine(r)->ncpus;
	a->reg = calloc(a->ncpus + 1, sizeof(*a->reg));
	a->last = calloc(a->ncpus + 1, sizeof(*a->last));
	a->have = calloc(a->ncpus + 1, sizeof(*a->have));
	a->tid = calloc(a->ncpus + 1, sizeof(*a->tid));
	if (!a->reg || !a->last || !a->have || !a->tid)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (c = 0; c < a->ncpus; c++)
		a->have[c] = rdt_core_machine(r)->cpu_present[c];
	ret = take_over(a);
	if (ret)
		return ret;
	/* a hook stop between our open and take_over: nobody would stop us later */
	if (unloaded(a)) {
		let_go(a);
		return rdt_fail(r, -ENOENT, "the switch hook was unloaded while its agent started");
	}
	a->rb = ring_buffer__new(rdt_hook_events_fd(a->h), on_event, a, NULL);
	if (!a->rb) {
		ret = -errno;
		let_go(a);
		return rdt_fail(r, ret, "switch hook: cannot open its ring buffer: %s",
				strerror(-ret));
	}
	a->gen = __atomic_load_n(&a->ctl->gen, __ATOMIC_SEQ_CST);
	a->since = now_ns();
	return 0;
}

static void teardown(struct agent *a)
{
	if (a->rb)
		ring_buffer__free(a->rb);
	rdt_hook_close(a->h);
	free(a->reg);
	free(a->last);
	free(a->have);
	free(a->tid);
}

static void notify(int fd, int ret, const char *msg)
{
	struct rdt_hook_ready rd = { .ret = ret, .pid = getpid() };
	ssize_t n;

	if (fd < 0)
		return;
	snprintf(rd.msg, sizeof(rd.msg), "%s", msg ? msg : "");
	do {
		n = write(fd, &rd, sizeof(rd));
	} while (n < 0 && errno == EINTR);
	close(fd);
}

/* When the flusher's next pass is due (CLOCK_MONOTONIC ns); under mu. */
static uint64_t pass_due(const struct agent *a)
{
	uint64_t due = a->last_pass + PASS_NS;

	if (a->want_pass)
		return 0;
	if (a->dirty_since && a->dirty_since + FLUSH_NS < due)
		due = a->dirty_since + FLUSH_NS;
	return due;
}

/* The flusher: a pass when the maps changed, FLUSH_NS after a write, and every PASS_NS. */
static void *flusher(void *arg)
{
	struct agent *a = arg;
	struct timespec ts;
	uint64_t due, now;
	bool full;
	int ret;

	pthread_mutex_lock(&a->mu);
	while (!a->stopping) {
		due = pass_due(a);
		now = now_ns();
		if (now < due) {
			ts.tv_sec = (time_t)(due / 1000000000ull);
			ts.tv_nsec = (long)(due % 1000000000ull);
			a->flusher_due = due;
			pthread_cond_timedwait(&a->cv, &a->mu, &ts);
			continue;
		}
		a->flusher_due = 0;	/* busy: nobody to wake */
		full = a->want_pass || now - a->last_pass >= PASS_NS;
		a->want_pass = false;
		pthread_mutex_unlock(&a->mu);
		/* never write registers from maps nobody serves any more */
		ret = unloaded(a) ? -EIDRM : pass(a, full);
		pthread_mutex_lock(&a->mu);
		/* the state was removed, or the hook: there is nothing left to serve */
		if (ret == -ENOENT || ret == -EIDRM) {
			a->fatal = ret;
			break;
		}
		if (ret) {
			/* try again later, not at once: a state we cannot read stays so */
			a->last_pass = now_ns();
			if (a->dirty_since)
				a->dirty_since = a->last_pass;
		}
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* One round of the main thread: wait for events (signals only wake us here), take them. */
static int round_trip(struct agent *a, int efd, const sigset_t *waitmask)
{
	struct epoll_event ev;
	uint64_t gen;
	int n;

	n = epoll_pwait(efd, &ev, 1, IDLE_MS, waitmask);
	if (n < 0 && errno != EINTR)
		return rdt_fail(a->r, -errno, "switch hook agent: waiting for events failed: %s",
				strerror(errno));
	pthread_mutex_lock(&a->mu);
	n = ring_buffer__consume(a->rb);
	gen = __atomic_load_n(&a->ctl->gen, __ATOMIC_SEQ_CST);
	if (a->kicked || gen != a->gen) {
		a->kicked = false;
		a->gen = gen;
		a->want_pass = true;
	}
	/*
	 * Wake the flusher only when a kick or the first write since its last
	 * pass brings its due time forward: a wake-up per event cost a context
	 * switch on the agent's CPU for every event (seen with perf sched).
	 */
	if (a->flusher_due && pass_due(a) < a->flusher_due)
		pthread_cond_signal(&a->cv);
	if (a->fatal)
		n = a->fatal;
	pthread_mutex_unlock(&a->mu);
	if (!n && unloaded(a))
		n = -EIDRM;
	if (n == -ENOENT)	/* the flusher's finding: say it in the caller's thread */
		return rdt_fail(a->r, n, "switch hook agent: the state file %s was removed; "
				"there is nothing left to serve",
				rdt_store_path(rdt_core_store(a->r)));
	if (n == -EIDRM)
		return n;
	if (n < 0)
		return rdt_fail(a->r, n, "switch hook agent: reading events failed: %s",
				strerror(-n));
	return 0;
}

static int start_flusher(struct agent *a, pthread_t *t)
{
	pthread_condattr_t ca;
	int ret;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cv, &ca);
	pthread_condattr_destroy(&ca);
	a->last_pass = now_ns();
	a->want_pass = true;	/* the first pass re-applies everything */
	ret = pthread_create(t, NULL, flusher, a);
	if (ret)
		return rdt_fail(a->r, -ret, "switch hook agent: cannot start its flusher thread: "
				"%s", strerror(ret));
	return 0;
}

static void stop_flusher(struct agent *a, pthread_t t)
{
	pthread_mutex_lock(&a->mu);
	a->stopping = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(t, NULL);
}

/*
 * The lowest real-time priority (SCHED_FIFO 1): woken by an event, the agent
 * runs at once instead of waiting for a busy CPU's time slice, so a task
 * that runs only briefly still gets its CLOSID while it runs. Any real-time
 * task of the administrator's at a higher priority still comes first, and
 * the agent blocks between events. RDTALLOC_AGENT_RT=0 keeps the caller's
 * policy. Best effort: without the privilege the agent runs as it is.
 */
static bool go_realtime(int *old_policy, struct sched_param *old_param)
{
	struct sched_param sp = { .sched_priority = 1 };
	const char *env = getenv("RDTALLOC_AGENT_RT");

	if (env && !strcmp(env, "0"))
		return false;
	if (pthread_getschedparam(pthread_self(), old_policy, old_param))
		return false;
	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

int rdt_hook_agent_run(struct rdtalloc *r, volatile int *stop, int notify_fd)
{
	struct sigaction sa = { .sa_handler = on_term }, old_term, old_int;
	sigset_t block, oldmask, waitmask;
	struct agent a = { .r = r };
	struct sched_param old_param;
	pthread_mutexattr_t ma;
	pthread_t flush_thread;
	int ret, old_policy;
	bool rt = false;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	/* blocked but while waiting, so that a stop request is never missed */
	pthread_sigmask(SIG_BLOCK, &block, &oldmask);
	waitmask = oldmask;
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	g_term = 0;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&a.mu, &ma);
	pthread_mutexattr_destroy(&ma);
	ret = setup(&a);
	if (!ret)
		ret = start_flusher(&a, &flush_thread);
	if (ret && a.rb)
		let_go(&a);
	notify(notify_fd, ret, ret ? rdtalloc_errmsg(r) : "");
	if (ret)
		goto out;
	/* after the flusher started: it keeps the caller's policy */
	rt = go_realtime(&old_policy, &old_param);
	while (!g_term && !(stop && *stop)) {
		ret = round_trip(&a, ring_buffer__epoll_fd(a.rb), &waitmask);
		if (ret)
			break;
	}
	stop_flusher(&a, flush_thread);
	pthread_cond_destroy(&a.cv);
	if (ret != -ENOENT && ret != -EIDRM) {
		int fret = pass(&a, false);

		if (!ret)
			ret = fret;
	}
	let_go(&a);
	if (ret == -EIDRM)
		ret = 0;	/* rdtctl hook stop took it down: a normal end */
	if (rt)
		pthread_setschedparam(pthread_self(), old_policy, &old_param);
out:
	teardown(&a);
	pthread_mutex_destroy(&a.mu);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}

#endif /* RDTALLOC_HAVE_BPF */
