// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * metrics: GET /metrics (the Prometheus text exposition, one consistent
 * sample a scrape) and GET /healthz, served by libmicrohttpd on its own
 * thread (epoll: the controller's perf events take descriptors past
 * FD_SETSIZE) with a context of its own opened for each scrape, read only,
 * so that a scrape never waits on, nor holds up, the loop that places
 * tasks, and never answers from a state replaced since (reset --machine).
 * The monitoring families carry the names `rdtctl monitor --format
 * prometheus` uses.
 *
 * The DaemonSet listens on the pod's address: a client may be hostile.
 * Each address holds at most PER_IP_MAX connections, all of them
 * CONN_MAX, and a request's headers must be complete HEADERS_S seconds
 * after the connection opened (or the last response ended) - a client
 * sending a header line every few seconds is cut off, so that probes
 * always find room. What the server has to say about clients is logged at
 * most LOG_BURST lines a minute.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "agent.h"
#include "tm_prom.h"

#define SCRAPE_MAX (64u << 20)		/* bytes of one exposition */
#define CONN_MAX 256u			/* connections at once */
#define PER_IP_MAX 32u			/* of them from one address */
#define HEADERS_S 5.0			/* seconds a request's headers may take in all */
#define IDLE_S 10u			/* seconds without a byte moving (a response too) */
#define LOG_BURST 10u			/* the server's lines a minute, at most */

/* One client connection: how long its request's headers have taken. */
struct conn {
	struct conn *prev, *next;
	int fd;
	double since;			/* CLOCK_MONOTONIC: opened, or last response ended */
	bool busy;			/* headers complete: a request is being answered */
	bool cut;			/* shut down for its headers' deadline */
};

struct metrics {
	struct agent *a;
	struct MHD_Daemon *d;
	rdtalloc_t *r;			/* the scrape's own context, opened for it */
	pthread_mutex_t mu;		/* one scrape at a time */
	pthread_mutex_t cmu;		/* conns, and the log's budget */
	struct conn *conns;
	pthread_t reaper;
	bool reaping;
	volatile int stop;
	double log_window;		/* CLOCK_MONOTONIC start of this minute's budget */
	unsigned int logged, suppressed;
};

/* Text grown as it is written; NULL s: out of memory. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->s && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t want = t->cap ? t->cap * 2 : 16384;
		char *ns;

		while (want < t->len + (size_t)n + 1)
			want *= 2;
		if (want > SCRAPE_MAX || !(ns = realloc(t->s, want))) {
			t->failed = true;
			return;
		}
		t->s = ns;
		t->cap = want;
	}
}

static void family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* SNC nodes and package telemetry (Intel AET), as rdtctl monitor prints them (tm_prom.h). */
static void telemetry(struct metrics *m, struct text *t)
{
	struct tm_data d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (tm_read(m->r, NULL, 0, &d))
		return;	/* as the L3 families: absent when they cannot be read */
	f = open_memstream(&buf, &len);
	if (!f) {
		t->failed = true;
	} else {
		tm_prom(f, &d);
		if (fclose(f))
			t->failed = true;
		else if (len)
			put(t, "%s", buf);
	}
	free(buf);
	tm_free(&d);
}

/* The monitoring counters, as rdtctl monitor --format prometheus prints them. */
/*
 * Counters shared in turns (mbm_event mode, docs/monitoring.md): a group's
 * byte counters grow only while it holds counters, so its bandwidth is
 * rate(bytes) / rate(covered seconds), never rate(bytes) alone.
 */
static void covered(struct metrics *m, struct text *t, const struct rdtalloc_mon_value *v,
		    size_t n)
{
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	size_t i;

	if (rdtalloc_mon_get_counters(m->r, &c) || c.mode != RDTALLOC_MON_ASSIGN_EVENT)
		return;
	family(t, "rdtalloc_mbm_covered_seconds_total", "counter",
	       "Seconds the group's bandwidth was counted in the domain: it holds counters in "
	       "turns (mbm_event mode); its bandwidth is the bytes' rate over this one's.");
	for (i = 0; i < n; i++)
		if (v[i].rmid != RDTALLOC_RMID_NONE)
			put(t, "rdtalloc_mbm_covered_seconds_total{group=\"%s\",cache_id=\"%u\"} "
			    "%.3f\n", v[i].group, v[i].cache_id, (double)v[i].covered_ns / 1e9);
}

static void monitoring(struct metrics *m, struct text *t)
{
	struct rdtalloc_mon_value *v = NULL;
	size_t cap = 256, i;
	unsigned int nomon = 0;
	int n;

	for (;;) {
		struct rdtalloc_mon_value *nv = realloc(v, cap * sizeof(*v));

		if (!nv) {
			t->failed = true;
			free(v);
			return;
		}
		v = nv;
		v[0].sz = sizeof(*v);
		n = rdtalloc_mon_read(m->r, NULL, 0, v, cap);
		if (n < 0 || (size_t)n <= cap)
			break;
		cap = (size_t)n;
	}
	if (n < 0) {
		free(v);
		return;	/* no monitoring here: those families are simply absent */
	}
	family(t, "rdtalloc_llc_occupancy_bytes", "gauge",
	       "Bytes of the L3 cache domain held by the group (its RMID).");
	for (i = 0; i < (size_t)n; i++)
		if (v[i].valid & RDTALLOC_MON_EV_OCCUPANCY)
			put(t, "rdtalloc_llc_occupancy_bytes{group=\"%s\",cache_id=\"%u\"} %" PRIu64
			    "\n", v[i].group, v[i].cache_id, v[i].llc_occupancy);
	family(t, "rdtalloc_mbm_total_bytes_total", "counter",
	       "Bytes of memory traffic of the group in the L3 domain, local and remote.");
	for (i = 0; i < (size_t)n; i++)
		if (v[i].valid & RDTALLOC_MON_EV_TOTAL)
			put(t, "rdtalloc_mbm_total_bytes_total{group=\"%s\",cache_id=\"%u\"} %" PRIu64
			    "\n", v[i].group, v[i].cache_id, v[i].mbm_total);
	family(t, "rdtalloc_mbm_local_bytes_total", "counter",
	       "Bytes of memory traffic of the group to its local memory node.");
	for (i = 0; i < (size_t)n; i++)
		if (v[i].valid & RDTALLOC_MON_EV_LOCAL)
			put(t, "rdtalloc_mbm_local_bytes_total{group=\"%s\",cache_id=\"%u\"} %" PRIu64
			    "\n", v[i].group, v[i].cache_id, v[i].mbm_local);
	family(t, "rdtalloc_monitor_ok", "gauge", "Whether the group's counters in the domain "
	       "read (1) or not (0: unavailable, error, unsupported).");
	for (i = 0; i < (size_t)n; i++)
		put(t, "rdtalloc_monitor_ok{group=\"%s\",cache_id=\"%u\"} %d\n", v[i].group,
		    v[i].cache_id, v[i].state == RDTALLOC_MON_OK);
	covered(m, t, v, (size_t)n);
	for (i = 0; i < (size_t)n; i++)
		nomon += v[i].rmid == RDTALLOC_RMID_NONE &&
			 (i == 0 || strcmp(v[i].group, v[i - 1].group));
	family(t, "rdtalloc_groups_without_rmid", "gauge",
	       "Groups counted with the default group: no RMID was free for them.");
	put(t, "rdtalloc_groups_without_rmid %u\n", nomon);
	free(v);
	telemetry(m, t);
}

/* CLOSIDs in use per resource and domain. */
static void closids(struct metrics *m, struct text *t)
{
	static const char *const res[] = { "L3", "L2", "MB" };
	unsigned int ids[256];
	size_t r;
	int nd, d, n;

	family(t, "rdtalloc_closids_in_use", "gauge",
	       "CLOSIDs in use in the domain (ours and the default group's; on resctrl the "
	       "classes of our groups).");
	for (r = 0; r < sizeof(res) / sizeof(res[0]); r++) {
		nd = rdtalloc_domains(m->r, res[r], ids, 256);
		for (d = 0; d < nd && d < 256; d++) {
			n = rdtalloc_closids(m->r, res[r], ids[d], NULL, 0);
			if (n >= 0)
				put(t, "rdtalloc_closids_in_use{resource=\"%s\",cache_id=\"%u\"} %d\n",
				    res[r], ids[d], n);
		}
	}
	n = rdtalloc_group_count(m->r);
	family(t, "rdtalloc_groups", "gauge", "Groups in the state, the default group included.");
	put(t, "rdtalloc_groups %d\n", n < 0 ? 0 : n);
}

static void counter(struct text *t, const char *name, const char *help, uint64_t v)
{
	family(t, name, "counter", help);
	put(t, "%s %" PRIu64 "\n", name, v);
}

/* The agent's own figures, copied under its lock: one consistent sample. */
static void agent_figures(struct metrics *m, struct text *t)
{
	struct agent_stats s;
	uint64_t cum = 0;
	int i;

	pthread_mutex_lock(&m->a->st.mu);
	s = m->a->st;
	pthread_mutex_unlock(&m->a->st.mu);
	counter(t, "rdtalloc_agent_syncs_total", "Syncs of the backend with the state.", s.syncs);
	counter(t, "rdtalloc_agent_repairs_total", "Changes that brought the backend back to the "
		"state (drift repaired).", s.repairs);
	counter(t, "rdtalloc_agent_tasks_moved_total", "Tasks placed in their groups (joins to "
		"bound cgroups, and by syncs).", s.tasks_moved + s.placed);
	counter(t, "rdtalloc_agent_bindings_dropped_total", "Bindings dropped: tasks exited, "
		"cgroups removed, tasks another tool moved.", s.dropped);
	counter(t, "rdtalloc_agent_containers_released_total", "Containers gone without poststop "
		"whose records and groups were released.", s.containers_released);
	counter(t, "rdtalloc_agent_strays_moved_total", "Tasks of bound cgroups that enforce moved "
		"back from other tools' resctrl groups.", s.strays_moved);
	counter(t, "rdtalloc_agent_membership_events_total", "Joins to bound cgroups seen.",
		s.events);
	counter(t, "rdtalloc_agent_membership_events_lost_total", "Joins the ring buffer had no "
		"room for (a full sync follows).", s.events_lost);
	counter(t, "rdtalloc_agent_errors_total", "Syncs and placements that failed.",
		s.sync_errors + s.place_errors);
	counter(t, "rdtalloc_agent_control_intervals_total", "Intervals the controller "
		"measured (--control).", s.control_intervals);
	counter(t, "rdtalloc_agent_control_decisions_total", "Decisions of the controller: "
		"probes, keeps, rollbacks, bound moves, phase changes.", s.control_decisions);
	counter(t, "rdtalloc_agent_control_errors_total", "Runs of the controller that failed "
		"(it starts again).", s.control_errors);
	family(t, "rdtalloc_agent_membership_lag_seconds", "histogram",
	       "From a task's join to a bound cgroup to its placement in the group.");
	for (i = 0; i < AGENT_LAG_BUCKETS; i++) {
		cum += s.lag_bucket[i];
		put(t, "rdtalloc_agent_membership_lag_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
		    agent_lag_le[i], cum);
	}
	put(t, "rdtalloc_agent_membership_lag_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
	    s.lag_count);
	put(t, "rdtalloc_agent_membership_lag_seconds_sum %.9f\n", s.lag_sum);
	put(t, "rdtalloc_agent_membership_lag_seconds_count %" PRIu64 "\n", s.lag_count);
	family(t, "rdtalloc_agent_backend", "gauge", "The backend the agent keeps the state on "
	       "(1; sim: simulated, nothing is partitioned).");
	put(t, "rdtalloc_agent_backend{backend=\"%s\"} 1\n", m->a->backend);
	family(t, "rdtalloc_agent_bpf", "gauge", "1: joins are seen by the BPF program; 0: the "
	       "agent scans (the fallback).");
	put(t, "rdtalloc_agent_bpf %d\n", s.bpf ? 1 : 0);
	family(t, "rdtalloc_agent_strays_left", "gauge", "Tasks of bound cgroups that yield left "
	       "in other tools' resctrl groups, at the last sync.");
	put(t, "rdtalloc_agent_strays_left %" PRIu64 "\n", s.strays_left);
	family(t, "rdtalloc_agent_last_sync_timestamp_seconds", "gauge",
	       "When the last sync succeeded (Unix time).");
	put(t, "rdtalloc_agent_last_sync_timestamp_seconds %.3f\n", s.last_sync);
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned int code, char *body,
			       size_t len, const char *type)
{
	struct MHD_Response *res = MHD_create_response_from_buffer(len, body,
								   MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!res) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(res, "Content-Type", type);
	ret = MHD_queue_response(conn, code, res);
	MHD_destroy_response(res);
	return ret;
}

static enum MHD_Result plain(struct MHD_Connection *conn, unsigned int code, const char *msg)
{
	char *body = strdup(msg);

	return body ? respond(conn, code, body, strlen(body), "text/plain; charset=utf-8") :
		      MHD_NO;
}

/* /healthz: 200 while syncs succeed, 503 after three intervals (and 5 s) without one. */
static enum MHD_Result health(struct metrics *m, struct MHD_Connection *conn)
{
	struct agent *a = m->a;
	char msg[512];
	double age;

	pthread_mutex_lock(&a->st.mu);
	age = agent_now() - a->st.last_sync;
	snprintf(msg, sizeof(msg), "last sync %.1f s ago; backend %s%s%s%s\n", age, a->backend,
		 strcmp(a->backend, "sim") ? "" : " (simulated: nothing is partitioned)",
		 a->st.last_error[0] ? "; last error: " : "", a->st.last_error);
	pthread_mutex_unlock(&a->st.mu);
	if (age > 3 * a->interval + 5)
		return plain(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	return plain(conn, MHD_HTTP_OK, msg);
}

/*
 * A context for this scrape only, read only: the state as it is now (a
 * `reset --machine` or a state made anew since is what the scrape sees),
 * or 503 with why it cannot be read - never figures of a state gone.
 */
static enum MHD_Result scrape(struct metrics *m, struct MHD_Connection *conn)
{
	struct rdtalloc_opts o = m->a->opts;
	struct text t = { 0 };
	char msg[600];
	int ret;

	o.flags |= RDTALLOC_F_READ_ONLY | RDTALLOC_F_MON_TOTALS;
	pthread_mutex_lock(&m->mu);
	ret = rdtalloc_open(&m->r, &o);
	if (ret) {
		snprintf(msg, sizeof(msg), "the state cannot be read: %s\n", rdtalloc_errmsg(NULL));
		pthread_mutex_unlock(&m->mu);
		return plain(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	monitoring(m, &t);
	closids(m, &t);
	rdtalloc_close(m->r);
	m->r = NULL;
	pthread_mutex_unlock(&m->mu);
	agent_figures(m, &t);
	if (t.failed || !t.s) {
		free(t.s);
		return plain(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	return respond(conn, MHD_HTTP_OK, t.s, t.len, "text/plain; version=0.0.4; charset=utf-8");
}

static struct conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **state)
{
	struct metrics *m = cls;
	struct conn *c = conn_of(conn);

	(void)version;
	(void)data;
	(void)size;
	(void)state;
	if (c) {
		/* the headers are in: the deadline is the response's idle timeout now */
		pthread_mutex_lock(&m->cmu);
		c->busy = true;
		pthread_mutex_unlock(&m->cmu);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return plain(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (!strcmp(url, "/healthz"))
		return health(m, conn);
	if (strcmp(url, "/metrics"))
		return plain(conn, MHD_HTTP_NOT_FOUND, "not found: /metrics, /healthz\n");
	return scrape(m, conn);
}

/* A response sent (or a request abandoned): the next request's headers start their clock. */
static void completed(void *cls, struct MHD_Connection *conn, void **state,
		      enum MHD_RequestTerminationCode toe)
{
	struct metrics *m = cls;
	struct conn *c = conn_of(conn);

	(void)state;
	(void)toe;
	if (!c)
		return;
	pthread_mutex_lock(&m->cmu);
	c->busy = false;
	c->since = agent_mono();
	pthread_mutex_unlock(&m->cmu);
}

/*
 * Connections as they open and close. MHD tells of a close before it
 * closes the descriptor, under cmu here, so the reaper never shuts down a
 * descriptor that has become another's.
 */
static void notify(void *cls, struct MHD_Connection *conn, void **sock,
		   enum MHD_ConnectionNotificationCode toe)
{
	struct metrics *m = cls;
	const union MHD_ConnectionInfo *ci;
	struct conn *c;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		c = calloc(1, sizeof(*c));
		if (!c || !ci) {
			free(c);
			return;		/* not tracked: MHD's idle timeout still ends it */
		}
		c->fd = ci->connect_fd;
		c->since = agent_mono();
		pthread_mutex_lock(&m->cmu);
		c->next = m->conns;
		if (m->conns)
			m->conns->prev = c;
		m->conns = c;
		pthread_mutex_unlock(&m->cmu);
		*sock = c;
		return;
	}
	c = *sock;
	if (!c)
		return;
	pthread_mutex_lock(&m->cmu);
	if (c->prev)
		c->prev->next = c->next;
	else
		m->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&m->cmu);
	free(c);
	*sock = NULL;
}

/* A line of the server's about clients, LOG_BURST a minute at most (under cmu). */
static void log_limited(struct metrics *m, const char *fmt, va_list ap)
{
	char line[512];
	double now = agent_mono();
	size_t n;

	if (now - m->log_window >= 60) {
		if (m->suppressed)
			agent_log("http: %u more messages about clients in the last minute, not "
				  "logged", m->suppressed);
		m->log_window = now;
		m->logged = m->suppressed = 0;
	}
	if (m->logged >= LOG_BURST) {
		m->suppressed++;
		return;
	}
	m->logged++;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	agent_log("http: %s", line);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct metrics *m = cls;

	pthread_mutex_lock(&m->cmu);
	log_limited(m, fmt, ap);
	pthread_mutex_unlock(&m->cmu);
}

static void say(struct metrics *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_limited(m, fmt, ap);
	va_end(ap);
}

/* Every quarter second: connections whose headers took too long are shut down. */
static void *reap(void *arg)
{
	struct metrics *m = arg;

	while (!m->stop) {
		double now;

		nanosleep(&(struct timespec){ .tv_nsec = 250000000L }, NULL);
		now = agent_mono();
		pthread_mutex_lock(&m->cmu);
		for (struct conn *c = m->conns; c; c = c->next) {
			if (c->busy || c->cut || now - c->since <= HEADERS_S)
				continue;
			/* MHD then reads the end of the stream and closes it */
			shutdown(c->fd, SHUT_RDWR);
			c->cut = true;
			say(m, "a client's request headers took more than %g s: connection closed",
			    HEADERS_S);
		}
		pthread_mutex_unlock(&m->cmu);
	}
	return NULL;
}

/* "127.0.0.1:9431", "[::1]:9431", "0.0.0.0:9431": an address and a port. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *colon;
	char *end;
	long port;
	size_t n;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':' || (n = (size_t)(rb - s - 1)) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (n = (size_t)(colon - s)) >= sizeof(host) || !n)
			return -EINVAL;
		memcpy(host, s, n);
		host[n] = '\0';
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 1 || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -EINVAL;
}

/*
 * Whether the address can be bound: MHD's own failure says only that it
 * failed, and "in use" is the case an operator can act on (a second agent
 * for another state on the default port).
 */
static int listen_probe(const struct sockaddr_storage *ss, socklen_t sl)
{
	int one = 1, ret = 0, fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sl))
		ret = -errno;
	close(fd);
	return ret;
}

struct metrics *metrics_start(struct agent *a, char *why, size_t len)
{
	struct sockaddr_storage ss;
	struct metrics *m;
	socklen_t sl;
	int ret;

	if (parse_listen(a->listen, &ss, &sl)) {
		snprintf(why, len, "--listen %s: give ADDRESS:PORT (127.0.0.1:9431, [::1]:9431)",
			 a->listen);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	m->a = a;
	m->log_window = agent_mono();
	pthread_mutex_init(&m->mu, NULL);
	pthread_mutex_init(&m->cmu, NULL);
	ret = listen_probe(&ss, sl);
	if (ret == -EADDRINUSE) {
		snprintf(why, len, "cannot listen on %s: the address is in use (another agent, for "
			 "another state, serves there?): give this one --listen ADDRESS:PORT, or "
			 "--listen none", a->listen);
		goto fail;
	}
	if (ret) {
		snprintf(why, len, "cannot listen on %s: %s", a->listen, strerror(-ret));
		goto fail;
	}
	m->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, handle, m,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, m,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, CONN_MAX,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, PER_IP_MAX,
				MHD_OPTION_CONNECTION_TIMEOUT, IDLE_S,
				MHD_OPTION_NOTIFY_CONNECTION, notify, m,
				MHD_OPTION_NOTIFY_COMPLETED, completed, m,
				MHD_OPTION_END);
	if (!m->d) {
		snprintf(why, len, "cannot listen on %s: %s", a->listen, strerror(errno));
		goto fail;
	}
	if (pthread_create(&m->reaper, NULL, reap, m)) {
		snprintf(why, len, "cannot start the HTTP server's reaper thread");
		MHD_stop_daemon(m->d);
		goto fail;
	}
	m->reaping = true;
	return m;
fail:
	pthread_mutex_destroy(&m->cmu);
	pthread_mutex_destroy(&m->mu);
	free(m);
	return NULL;
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	m->stop = 1;
	if (m->reaping)
		pthread_join(m->reaper, NULL);
	MHD_stop_daemon(m->d);
	pthread_mutex_destroy(&m->cmu);
	pthread_mutex_destroy(&m->mu);
	free(m);
}
