// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtalloc-agent: see agent.h. One loop over epoll: signals (signalfd),
 * the BPF program's events, the state file changing (inotify on its
 * directory: the watched cgroups follow at once), and a timer - a drift
 * check every --interval, a full sync every --scan (the pace of the
 * fallback when there is no BPF). The status file agent.json beside the
 * state says what it does; agent.pid, flock'ed, keeps it one per state.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#ifdef RDTALLOC_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "agent.h"
#include "atomic.h"	/* lib/store/ */

const double agent_lag_le[AGENT_LAG_BUCKETS] = {
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 5,
};

static const char usage_text[] =
"Usage: rdtalloc-agent [--backend resctrl|msr|sim] [--state-dir DIR] [--machine DESC]\n"
"                      [--resctrl-root DIR] [--msr-root DIR] [--listen ADDR:PORT|none]\n"
"                      [--interval S] [--scan S] [--no-bpf] [--config FILE] [--control]\n"
"Keeps one state true between commands: tasks joining bound cgroups placed,\n"
"drift repaired, containers gone without poststop released; serves /metrics.\n"
"  --backend NAME      resctrl or msr; without it, the one that allocates on this\n"
"                      host, or none (it refuses to start); sim only by name\n"
"  --listen ADDR:PORT  where /metrics and /healthz are served (default\n"
"                      127.0.0.1:9431, loopback only; none: no HTTP)\n"
"  --interval S        seconds between drift checks (default 1)\n"
"  --scan S            seconds between full syncs (default 30; 1 without BPF)\n"
"  --no-bpf            no BPF program: scan every --scan seconds instead\n"
"  --config FILE       a configuration (docs/config.md) applied with --prune at\n"
"                      start and whenever the file changes (a ConfigMap)\n"
"  --control           run the controller the state keeps (rdtctl control set;\n"
"                      docs/control.md), its decisions logged\n"
"SIGHUP reloads --config and the state; SIGTERM stops it.\n"
"See rdtalloc-agent(8), docs/agent.md and rdtctl(1), rdtctl agent.\n";

static bool g_quiet_log;

void agent_log(const char *fmt, ...)
{
	va_list ap;

	if (g_quiet_log)
		return;
	fputs("rdtalloc-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double agent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double agent_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void agent_count_lag(struct agent *a, double s)
{
	int i;

	if (s < 0)
		s = 0;
	pthread_mutex_lock(&a->st.mu);
	for (i = 0; i < AGENT_LAG_BUCKETS && s > agent_lag_le[i]; i++)
		;
	if (i < AGENT_LAG_BUCKETS)
		a->st.lag_bucket[i]++;
	a->st.lag_count++;
	a->st.lag_sum += s;
	pthread_mutex_unlock(&a->st.mu);
}

static int parse_seconds(const char *opt, const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !(*out >= 0.05) || *out > 3600) {
		fprintf(stderr, "rdtalloc-agent: %s %s: seconds, 0.05 to 3600\n", opt, v);
		return -1;
	}
	return 0;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int parse_args(struct agent *a, int argc, char **argv)
{
	enum { O_BACKEND = 256, O_STATE, O_MACHINE, O_RESCTRL, O_MSR, O_LISTEN, O_INTERVAL,
	       O_SCAN, O_NOBPF, O_VERSION, O_CONFIG, O_CONTROL };
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, O_BACKEND },
		{ "state-dir", required_argument, NULL, O_STATE },
		{ "machine", required_argument, NULL, O_MACHINE },
		{ "resctrl-root", required_argument, NULL, O_RESCTRL },
		{ "msr-root", required_argument, NULL, O_MSR },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "no-bpf", no_argument, NULL, O_NOBPF },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "control", no_argument, NULL, O_CONTROL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	bool scan_given = false;
	int c;

	a->opts.sz = sizeof(a->opts);
	a->opts.backend = env("RDTALLOC_BACKEND");
	a->opts.state_dir = env("RDTALLOC_STATE_DIR");
	a->opts.machine = env("RDTALLOC_MACHINE");
	a->listen = "127.0.0.1:9431";
	a->interval = 1;
	a->scan = 30;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_BACKEND:
			a->opts.backend = optarg;
			break;
		case O_STATE:
			a->opts.state_dir = optarg;
			break;
		case O_MACHINE:
			a->opts.machine = optarg;
			break;
		case O_RESCTRL:
			a->opts.resctrl_root = optarg;
			break;
		case O_MSR:
			a->opts.msr_root = optarg;
			break;
		case O_LISTEN:
			a->listen = strcmp(optarg, "none") ? optarg : NULL;
			break;
		case O_INTERVAL:
			if (parse_seconds("--interval", optarg, &a->interval))
				return 2;
			break;
		case O_SCAN:
			if (parse_seconds("--scan", optarg, &a->scan))
				return 2;
			scan_given = true;
			break;
		case O_NOBPF:
			a->no_bpf = true;
			break;
		case O_CONFIG:
			a->config = optarg;
			break;
		case O_CONTROL:
			a->control = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case O_VERSION:
			printf("rdtalloc-agent %s\n", rdtalloc_version_string());
			return 0;
		default:
			fprintf(stderr, "rdtalloc-agent: unknown option '%s'\n%s", argv[optind - 1],
				usage_text);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rdtalloc-agent: unexpected argument '%s'\n%s", argv[optind],
			usage_text);
		return 2;
	}
	if (!scan_given && a->no_bpf)
		a->scan = 1;
	return -1;
}

/*
 * One agent per state: agent.pid beside it, flock'ed for the agent's life.
 * A second one is refused with the first one's pid.
 */
static int take_lock(struct agent *a)
{
	char path[PATH_MAX + 16], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/agent.pid", a->dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		agent_log("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		agent_log("an agent serves %s already (pid %s): one agent per state",
			  a->state_path, buf[0] ? buf : "unknown");
		close(fd);
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n) {
		agent_log("cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;	/* held until exit */
}

/* s as a JSON string: quotes, backslashes and control characters escaped. */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* The controllers the state keeps, each with its domain's last decision (--control). */
static void put_controllers(FILE *f, struct agent *a, const struct agent_stats *s)
{
	struct rdtalloc_control_group g[64];
	unsigned int ids[AGENT_DOMAINS_MAX];
	int nd = a->r ? rdtalloc_domains(a->r, "L3", ids, AGENT_DOMAINS_MAX) : 0;
	bool first = true;

	fputs(", \"controllers\": [", f);
	for (int d = 0; d < nd && d < AGENT_DOMAINS_MAX; d++) {
		struct rdtalloc_control_conf conf = { .sz = sizeof(conf), .cache_id = (int)ids[d] };
		const struct agent_decision *last = NULL;
		int n;

		for (size_t k = 0; k < 64; k++)
			g[k].sz = sizeof(g[k]);
		n = rdtalloc_control_get(a->r, &conf, g, 64);
		if (n <= 0 || conf.cache_id != (int)ids[d])
			continue;
		fprintf(f, "%s{\"domain\": %u, \"groups\": [", first ? "" : ", ", ids[d]);
		for (int k = 0; k < n && k < 64; k++) {
			fputs(k ? ", " : "", f);
			put_json_str(f, g[k].group);
		}
		fputs("], \"last_decision\": ", f);
		for (size_t k = 0; k < AGENT_DOMAINS_MAX; k++)
			if (s->decisions[k].at && s->decisions[k].cache_id == ids[d])
				last = &s->decisions[k];
		if (last) {
			fprintf(f, "{\"at\": %.3f, \"interval\": %llu, \"action\": ", last->at,
				(unsigned long long)last->interval);
			put_json_str(f, last->action);
			fputs(", \"reason\": ", f);
			put_json_str(f, last->reason);
			fputs("}}", f);
		} else {
			fputs("null}", f);
		}
		first = false;
	}
	fputc(']', f);
}

/* agent.json: what this agent is and has done, replaced whole. */
static void write_status(struct agent *a)
{
	char path[PATH_MAX + 16];
	struct agent_stats s;
	struct iovec iov;
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	pthread_mutex_lock(&a->st.mu);
	s = a->st;
	pthread_mutex_unlock(&a->st.mu);
	snprintf(path, sizeof(path), "%s/agent.json", a->dir);
	f = open_memstream(&buf, &n);
	if (!f)
		return;
	fprintf(f, "{\"pid\": %d, \"version\": ", (int)getpid());
	put_json_str(f, rdtalloc_version_string());
	fputs(", \"state\": ", f);
	put_json_str(f, a->state_path);
	fputs(", \"backend\": ", f);
	put_json_str(f, a->backend);
	fprintf(f, ", \"membership\": \"%s\", \"listen\": ", s.bpf ? "bpf" : "scan");
	if (a->listen)
		put_json_str(f, a->listen);
	else
		fputs("null", f);
	fprintf(f, ", \"interval\": %g, \"control\": %s, \"started\": %.3f, \"last_sync\": %.3f, "
		"\"syncs\": %llu, \"repairs\": %llu, \"tasks_moved\": %llu, \"dropped\": %llu, "
		"\"containers_released\": %llu, \"strays_left\": %llu, \"strays_moved\": %llu, "
		"\"events\": %llu, \"events_lost\": %llu, "
		"\"errors\": %llu, \"last_error\": ", a->interval, a->control ? "true" : "false",
		s.started, s.last_sync, (unsigned long long)s.syncs, (unsigned long long)s.repairs,
		(unsigned long long)(s.tasks_moved + s.placed), (unsigned long long)s.dropped,
		(unsigned long long)s.containers_released, (unsigned long long)s.strays_left,
		(unsigned long long)s.strays_moved, (unsigned long long)s.events,
		(unsigned long long)s.events_lost,
		(unsigned long long)(s.sync_errors + s.place_errors));
	put_json_str(f, s.last_error);
	put_controllers(f, a, &s);
	fputs("}\n", f);
	/* as fopen made it: 0666 less the umask; a failed write keeps the last one */
	if (!fclose(f)) {
		iov = (struct iovec){ .iov_base = buf, .iov_len = n };
		rdt_atomic_write(-1, path, &iov, 1, 0666, NULL, NULL, 0);
	}
	free(buf);
}

/*
 * The backend: the one named (--backend, RDTALLOC_BACKEND), else the one
 * that allocates on this host. The library's `auto` falls back to the
 * simulator where nothing allocates; an agent there would answer 200 on
 * /healthz and keep nothing, so it refuses instead, saying why. A look
 * (read only) finds auto's choice without making or touching a state.
 */
static int choose_backend(struct agent *a)
{
	struct rdtalloc_opts o = a->opts;
	rdtalloc_t *r;
	int ret;

	if (a->opts.backend && strcmp(a->opts.backend, "auto")) {
		snprintf(a->backend, sizeof(a->backend), "%s", a->opts.backend);
		return 0;
	}
	o.backend = "auto";
	o.flags |= RDTALLOC_F_READ_ONLY;
	ret = rdtalloc_open(&r, &o);
	if (ret) {
		agent_log("%s", rdtalloc_errmsg(NULL));
		return ret;
	}
	snprintf(a->backend, sizeof(a->backend), "%s", rdtalloc_backend(r));
	if (!strcmp(a->backend, "sim")) {
		agent_log("no backend allocates on this host (%s): the agent keeps a state on "
			  "resctrl or msr, and on the simulator only when asked by name "
			  "(--backend sim)", rdtalloc_backend_reason(r));
		rdtalloc_close(r);
		return -ENODEV;
	}
	rdtalloc_close(r);
	a->opts.backend = a->backend;	/* reopened later: the same backend, not a new guess */
	return 0;
}

/* The controller's perf events take descriptors: as many as this process may have. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		agent_log("cannot raise the open files limit to %llu: %s",
			  (unsigned long long)rl.rlim_max, strerror(errno));
}

static int open_ctx(struct agent *a, bool quiet)
{
	const char *p;
	char *slash;
	int ret = rdtalloc_open(&a->r, &a->opts);

	if (ret) {
		a->r = NULL;
		if (!quiet)
			agent_log("%s", rdtalloc_errmsg(NULL));
		return ret;
	}
	p = rdtalloc_state_path(a->r);
	if (!p) {
		agent_log("the state is ephemeral: nothing to keep");
		return -EINVAL;
	}
	snprintf(a->state_path, sizeof(a->state_path), "%s", p);
	snprintf(a->dir, sizeof(a->dir), "%s", p);
	slash = strrchr(a->dir, '/');
	if (slash)
		*slash = '\0';
	return 0;
}

/*
 * Without BPF a join is found by the next full sync: the time since the
 * previous one bounds its lag, and the histogram gets that bound (the
 * first sync's catch-up has none: its joins happened while no agent ran).
 */
static void count_scan_lag(struct agent *a, bool full, unsigned int moved)
{
	double now = agent_mono();

	if (!full)
		return;
	if (!a->st.bpf && a->last_full)
		for (unsigned int i = 0; i < moved; i++)
			agent_count_lag(a, now - a->last_full);
	a->last_full = now;
}

/* One sync; a context that fails is opened anew (a remount, CDP toggled) and tried once more. */
static void sync_now(struct agent *a, bool full)
{
	struct rdtalloc_sync_report rep = { .sz = sizeof(rep) };
	int ret = a->r ? rdtalloc_sync(a->r, full ? RDTALLOC_SYNC_FULL : 0, &rep) : -ENODEV;
	bool repeated = false, recovered = false;

	if (ret) {
		if (a->r && strcmp(rdtalloc_errmsg(a->r), a->st.last_error))
			agent_log("sync failed (%s): opening the state anew", rdtalloc_errmsg(a->r));
		rdtalloc_close(a->r);
		a->r = NULL;
		ret = open_ctx(a, true);
		if (!ret)
			ret = rdtalloc_sync(a->r, RDTALLOC_SYNC_FULL, &rep);
	}
	pthread_mutex_lock(&a->st.mu);
	if (ret) {
		char was[sizeof(a->st.last_error)];

		snprintf(was, sizeof(was), "%s", a->st.last_error);
		a->st.sync_errors++;
		snprintf(a->st.last_error, sizeof(a->st.last_error), "%s",
			 a->r ? rdtalloc_errmsg(a->r) : rdtalloc_errmsg(NULL));
		/* the same failure every second is said once, until it changes */
		repeated = !strcmp(was, a->st.last_error);
	} else {
		a->st.syncs++;
		a->st.repairs += rep.repairs;
		a->st.tasks_moved += rep.tasks_moved;
		a->st.dropped += rep.dropped;
		a->st.containers_released += rep.containers_released;
		a->st.strays_moved += rep.strays_moved;
		a->st.strays_left = rep.strays_left;	/* every sync looks at them all */
		a->st.last_sync = agent_now();
	}
	if (!ret && a->st.last_error[0]) {
		a->st.last_error[0] = '\0';
		recovered = true;
	}
	pthread_mutex_unlock(&a->st.mu);
	if (ret && !repeated)
		agent_log("sync failed: %s", a->st.last_error);
	if (recovered)
		agent_log("sync works again");
	if (!ret && rep.what[0])
		agent_log("%s", rep.what);
	if (!ret && !a->last_full)
		agent_log("caught up with what happened while no agent ran: %u task%s placed, "
			  "%u binding%s dropped, %u container%s released, %u repair%s",
			  rep.tasks_moved, rep.tasks_moved == 1 ? "" : "s", rep.dropped,
			  rep.dropped == 1 ? "" : "s", rep.containers_released,
			  rep.containers_released == 1 ? "" : "s", rep.repairs,
			  rep.repairs == 1 ? "" : "s");
	if (!ret)
		count_scan_lag(a, full || !a->last_full, rep.tasks_moved);
}

/*
 * --config: the file applied with --prune when its text differs from what
 * was applied last (a kubelet swaps a ConfigMap's file by symlinks; the
 * text is what counts). A file that does not apply is logged and tried
 * again at the next tick; the state stays as it was.
 */
static void apply_config(struct agent *a)
{
	char sum[65], name[256], *text, *dot;
	const char *base;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	long n;
	FILE *f;
	int ret;

	if (!a->config || !a->r)
		return;
	f = fopen(a->config, "re");
	if (!f) {
		snprintf(sum, sizeof(sum), "missing");
		if (strcmp(sum, a->config_sum))
			agent_log("--config %s: %s", a->config, strerror(errno));
		snprintf(a->config_sum, sizeof(a->config_sum), "%s", sum);
		return;
	}
	text = malloc(RDTALLOC_CONFIG_MAX + 1);
	n = text ? (long)fread(text, 1, RDTALLOC_CONFIG_MAX + 1, f) : -1;
	fclose(f);
	if (n < 0 || n > (long)RDTALLOC_CONFIG_MAX) {
		agent_log("--config %s: unreadable or larger than %u MiB", a->config,
			  RDTALLOC_CONFIG_MAX >> 20);
		free(text);
		return;
	}
	text[n] = '\0';
	for (long i = 0; i < n; i++)
		h = (h ^ (unsigned char)text[i]) * UINT64_C(0x100000001b3);
	snprintf(sum, sizeof(sum), "%016llx", (unsigned long long)h);
	if (!strcmp(sum, a->config_sum)) {
		free(text);
		return;
	}
	/*
	 * As config:NAME, NAME the file's base name without its extension (or
	 * the file's own `name` line), as `rdtctl apply FILE` names it: its
	 * prune removes only what this configuration made earlier, never what
	 * the OCI hook placed or a person made (docs/guide.md, who owns what).
	 */
	base = strrchr(a->config, '/');
	snprintf(name, sizeof(name), "%s", base ? base + 1 : a->config);
	dot = strchr(name, '.');
	if (dot && dot != name)
		*dot = '\0';
	ret = rdtalloc_apply_config_as(a->r, text, name, RDTALLOC_APPLY_PRUNE |
				       RDTALLOC_APPLY_SKIP_MISSING_TASKS, NULL, 0, NULL);
	free(text);
	if (ret < 0) {
		if (strcmp(sum, a->config_bad))
			agent_log("--config %s was not applied (tried again every %g s): %s",
				  a->config, a->interval, rdtalloc_errmsg(a->r));
		snprintf(a->config_bad, sizeof(a->config_bad), "%s", sum);
		pthread_mutex_lock(&a->st.mu);
		a->st.sync_errors++;
		snprintf(a->st.last_error, sizeof(a->st.last_error), "%s", rdtalloc_errmsg(a->r));
		pthread_mutex_unlock(&a->st.mu);
		return;
	}
	agent_log("--config %s applied: %d change%s", a->config, ret, ret == 1 ? "" : "s");
	snprintf(a->config_sum, sizeof(a->config_sum), "%s", sum);
}

/* SIGHUP: --config read and applied again, the state opened anew, the watched cgroups too. */
static void reload(struct agent *a, struct membership *memb)
{
	agent_log("SIGHUP: reloading --config and the state");
	rdtalloc_close(a->r);
	a->r = NULL;
	if (open_ctx(a, false))
		agent_log("the state cannot be opened now: the next sync tries again");
	a->config_sum[0] = a->config_bad[0] = '\0';
	apply_config(a);
	if (memb && membership_refresh(memb))
		agent_log("the bound cgroups could not be read");
	sync_now(a, true);
}

static volatile sig_atomic_t g_stop;

int main(int argc, char **argv)
{
	struct agent a = { 0 };
	struct membership *memb = NULL;
	struct metrics *met = NULL;
	struct control *ctl = NULL;
	struct epoll_event ev, evs[8];
	struct itimerspec its = { 0 };
	double next_full;
	uint64_t lost = 0;
	char why[512];
	sigset_t sigs;
	int ret, ep = -1, sfd = -1, tfd = -1, ifd = -1, lock = -1, i, n;

	ret = parse_args(&a, argc, argv);
	if (ret >= 0)
		return ret;
	pthread_mutex_init(&a.st.mu, NULL);
	if (choose_backend(&a) || open_ctx(&a, false))
		return 1;
	raise_nofile();
	lock = take_lock(&a);
	if (lock < 0) {
		rdtalloc_close(a.r);
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || ifd < 0 || ep < 0) {
		agent_log("cannot set up the loop: %s", strerror(errno));
		goto out;
	}
	a.st.started = agent_now();
	if (!a.no_bpf) {
		memb = membership_open(&a, why, sizeof(why));
		if (!memb)
			agent_log("membership: %s; falling back to a full sync every %g s", why,
				  a.scan = a.scan > 1 ? 1 : a.scan);
	}
	a.st.bpf = memb != NULL;
	if (a.listen) {
		met = metrics_start(&a, why, sizeof(why));
		if (!met) {
			agent_log("%s", why);
			goto out;
		}
	}
	if (a.control && !(ctl = control_start(&a, why, sizeof(why)))) {
		agent_log("%s", why);
		goto out;
	}
	inotify_add_watch(ifd, a.dir, IN_MOVED_TO | IN_CLOSE_WRITE);
	its.it_interval.tv_sec = (time_t)a.interval;
	its.it_interval.tv_nsec = (long)((a.interval - floor(a.interval)) * 1e9);
	its.it_value = its.it_interval;
	timerfd_settime(tfd, 0, &its, NULL);
	ev.events = EPOLLIN;
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.fd = ifd;
	epoll_ctl(ep, EPOLL_CTL_ADD, ifd, &ev);
	if (memb) {
		ev.data.fd = membership_fd(memb);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	/* what changed while no agent ran: all of it, once */
	apply_config(&a);
	sync_now(&a, true);
	next_full = agent_mono() + a.scan;
	write_status(&a);
	agent_log("serving %s (backend %s; joins seen by %s; drift checked every %g s%s%s)",
		  a.state_path, a.backend, memb ? "the BPF program" : "a scan",
		  a.interval, a.listen ? "; metrics on " : "", a.listen ? a.listen : "");
#ifdef RDTALLOC_HAVE_SYSTEMD
	sd_notifyf(0, "READY=1\nSTATUS=serving %s (%s)\nMAINPID=%d", a.state_path,
		   memb ? "bpf" : "scan", (int)getpid());
#endif
	while (!g_stop) {
		n = epoll_wait(ep, evs, 8, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			agent_log("epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGHUP) {
					reload(&a, memb);
					write_status(&a);
					continue;
				}
				agent_log("signal %u: stopping", si.ssi_signo);
				g_stop = 1;
			} else if (memb && fd == membership_fd(memb)) {
				membership_poll(memb);
			} else if (fd == ifd) {
				char buf[4096] __attribute__((aligned(8)));

				while (read(ifd, buf, sizeof(buf)) > 0)
					;
				/* the state changed: bound cgroups may have come or gone */
				if (memb && membership_refresh(memb))
					agent_log("the bound cgroups could not be read");
			} else if (fd == tfd) {
				uint64_t ticks;
				bool full;

				if (read(tfd, &ticks, sizeof(ticks)) != sizeof(ticks))
					continue;
				full = agent_mono() >= next_full;
				if (memb && membership_lost(memb) != lost) {
					uint64_t now_lost = membership_lost(memb);

					agent_log("%llu joins were lost (the ring buffer was full): "
						  "a full sync", (unsigned long long)(now_lost - lost));
					pthread_mutex_lock(&a.st.mu);
					a.st.events_lost += now_lost - lost;
					pthread_mutex_unlock(&a.st.mu);
					lost = now_lost;
					full = true;
				}
				apply_config(&a);
				sync_now(&a, full);
				if (full)
					next_full = agent_mono() + a.scan;
				write_status(&a);
			}
		}
	}
#ifdef RDTALLOC_HAVE_SYSTEMD
	sd_notify(0, "STOPPING=1");
#endif
	ret = 0;
out:
	control_stop(ctl);
	metrics_stop(met);
	membership_close(memb);
	if (a.dir[0]) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/agent.json", a.dir);
		unlink(path);
	}
	if (lock >= 0 && ftruncate(lock, 0) == 0)
		close(lock);
	rdtalloc_close(a.r);
	if (ep >= 0)
		close(ep);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	if (ifd >= 0)
		close(ifd);
	return ret ? 1 : 0;
}
