/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rdtalloc-agent: keeps one state true between commands (docs/agent.md).
 * It is a client of the public API like rdtctl: every decision is the
 * library's (rdtalloc_sync, rdtalloc_place_tasks); the agent adds only
 * timeliness - a task that joins a bound cgroup placed within
 * milliseconds, drift repaired within seconds, containers gone without
 * poststop released - and serves metrics. Its only memory is the state
 * file and the kernel: killed and restarted, it loses nothing.
 *
 * main.c: options, the one-agent-per-state lock, the loop, logging, status.
 * membership.c: the BPF program's events (or the fallback scan).
 * metrics.c: GET /metrics and /healthz (libmicrohttpd, its own thread).
 * control.c: --control, the state's controller (its own thread and context).
 */
#ifndef RDT_AGENT_H
#define RDT_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdtalloc/rdtalloc.h>

#define AGENT_LAG_BUCKETS 10
#define AGENT_DOMAINS_MAX 16	/* L3 domains whose controller agent status shows */

/* What the agent has done, for the status file and /metrics (under mu). */
struct agent_stats {
	pthread_mutex_t mu;
	uint64_t syncs, sync_errors, repairs, tasks_moved, dropped, containers_released;
	uint64_t events, events_lost, placed, place_errors;
	/* tasks of bound cgroups in other tools' resctrl groups: moved back, left (last sync) */
	uint64_t strays_moved, strays_left;
	uint64_t lag_count, lag_bucket[AGENT_LAG_BUCKETS];	/* cumulative at export */
	double lag_sum;
	double last_sync;		/* CLOCK_REALTIME seconds of the last good sync */
	double started;
	/* --control: the controller's intervals, decisions and failed runs */
	uint64_t control_intervals, control_decisions, control_errors;
	char last_error[256];
	bool bpf;			/* membership from the BPF program, else the scan */
	/* --control: each domain's last decision (control.c), for agent status */
	struct agent_decision {
		unsigned int cache_id;
		uint64_t interval;
		double at;		/* CLOCK_REALTIME seconds; 0: this slot is unused */
		char action[32];
		char reason[192];
	} decisions[AGENT_DOMAINS_MAX];
};

extern const double agent_lag_le[AGENT_LAG_BUCKETS];

struct agent {
	struct rdtalloc_opts opts;
	rdtalloc_t *r;			/* the loop's context */
	const char *listen;		/* "127.0.0.1:9431"; NULL: no HTTP */
	double interval;		/* seconds between drift checks */
	double scan;			/* seconds between full syncs (the fallback's pace) */
	bool no_bpf;
	bool control;			/* --control: run the state's controller */
	char backend[32];		/* the backend in use: named, or auto's choice */
	double last_full;		/* CLOCK_MONOTONIC end of the last full sync; 0: none */
	const char *config;		/* --config: applied (pruning) at start and when it changes */
	char config_sum[65];		/* what was applied last: its text's FNV-1a, hex */
	char config_bad[65];		/* what failed last (said once, tried each tick) */
	char state_path[4096];
	char dir[4096];			/* the state's directory */
	struct agent_stats st;
	volatile int stop;		/* a signal asked to stop */
};

void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double agent_now(void);		/* CLOCK_REALTIME seconds */
double agent_mono(void);	/* CLOCK_MONOTONIC seconds */
void agent_count_lag(struct agent *a, double seconds);

/* membership.c */
struct membership;
/* The BPF program loaded and attached, or NULL with why (the caller then scans). */
struct membership *membership_open(struct agent *a, char *why, size_t len);
void membership_close(struct membership *m);
int membership_fd(struct membership *m);
/* The watched map as the state's bound cgroups are now. */
int membership_refresh(struct membership *m);
/* Read the events that arrived and place their tasks; 0 or a negative errno. */
int membership_poll(struct membership *m);
uint64_t membership_lost(struct membership *m);

/* control.c: the controller's thread, or NULL with why */
struct control;
struct control *control_start(struct agent *a, char *why, size_t len);
void control_stop(struct control *c);

/* metrics.c */
struct metrics;
struct metrics *metrics_start(struct agent *a, char *why, size_t len);
void metrics_stop(struct metrics *m);

#endif
