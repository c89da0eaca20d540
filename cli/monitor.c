// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor: who fills the cache and the memory bus. Samples the library's
 * counters (rdtalloc_mon_read) every interval and prints them as a table
 * (refreshed in place on a terminal, appended when piped), JSON Lines,
 * CSV (as pqos -u csv) or the Prometheus text format. A look: where resctrl
 * does not hold the state, each sample names the drift (rdtalloc_drift).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor_tm.h"
#include "rdtctl.h"

enum format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_PROM };
enum sort { SORT_NONE, SORT_OCC, SORT_TOTAL, SORT_LOCAL };

struct mon_opts {
	double interval;
	unsigned long count;	/* 0: until interrupted */
	int domain;		/* -1: all */
	enum sort sort;
	enum format fmt;
	const char *const *groups;
	size_t ngroups;
	const char *output;	/* prometheus: each sample replaces this file */
};

/* One row: a group in a domain, with its rates (NAN: not known). */
struct row {
	struct rdtalloc_mon_value v;
	double total_rate, local_rate;
	double coverage;	/* the interval's part counted (NAN: no interval yet) */
};

/* SNC nodes and package telemetry of this sample and the one before (monitor_tm.h). */
static struct tm_data g_tm, g_tm_prev;
/* Counters are assigned (mbm_event mode): rows say their coverage. */
static bool g_turns;

static const char *state_name(int st)
{
	static const char *const names[] = { "ok", "unavailable", "error", "unsupported",
					     "unassigned", "missing" };

	return st >= 0 && st <= RDTALLOC_MON_MISSING ? names[st] : "error";
}

/* Bytes over the covered time of the interval: extrapolated where that is not all of it. */
static double rate(uint64_t now, uint64_t prev, const struct rdtalloc_mon_value *v)
{
	if (!v->prev_time_ns || v->time_ns <= v->prev_time_ns || now < prev ||
	    v->covered_ns <= v->prev_covered_ns)
		return NAN;
	return (double)(now - prev) * 1e9 / (double)(v->covered_ns - v->prev_covered_ns);
}

/* Read every row once; *rows malloc'd. */
static int sample(rdtalloc_t *r, const struct mon_opts *o, struct row **rows, size_t *n)
{
	struct rdtalloc_mon_value *buf = NULL;
	size_t cap = 64, i, k = 0;
	int got;

	for (;;) {
		struct rdtalloc_mon_value *nb = realloc(buf, cap * sizeof(*buf));

		if (!nb) {
			free(buf);
			return fail_msg("out of memory");
		}
		buf = nb;
		buf[0].sz = sizeof(*buf);
		got = rdtalloc_mon_read(r, o->groups, o->ngroups, buf, cap);
		if (got < 0) {
			free(buf);
			return fail_lib(r, got);
		}
		if ((size_t)got <= cap)
			break;
		cap = (size_t)got;
	}
	*rows = calloc(got ? (size_t)got : 1, sizeof(**rows));
	if (!*rows) {
		free(buf);
		return fail_msg("out of memory");
	}
	for (i = 0; i < (size_t)got; i++) {
		struct row *w = &(*rows)[k];

		if (o->domain >= 0 && buf[i].cache_id != (unsigned int)o->domain)
			continue;
		w->v = buf[i];
		w->total_rate = w->local_rate = w->coverage = NAN;
		if (buf[i].valid & RDTALLOC_MON_EV_TOTAL)
			w->total_rate = rate(buf[i].mbm_total, buf[i].prev_mbm_total, &buf[i]);
		if (buf[i].valid & RDTALLOC_MON_EV_LOCAL)
			w->local_rate = rate(buf[i].mbm_local, buf[i].prev_mbm_local, &buf[i]);
		if (buf[i].prev_time_ns && buf[i].time_ns > buf[i].prev_time_ns)
			w->coverage = (double)(buf[i].covered_ns - buf[i].prev_covered_ns) /
				      (double)(buf[i].time_ns - buf[i].prev_time_ns);
		k++;
	}
	free(buf);
	if (o->domain >= 0 && got > 0 && !k) {
		free(*rows);
		*rows = NULL;
		return fail_msg("--domain %d: no such L3 cache id (rdtctl info)", o->domain);
	}
	*n = k;
	return 0;
}

static enum sort g_sort;

static double key_of(const struct row *w)
{
	double v = g_sort == SORT_OCC ? ((w->v.valid & RDTALLOC_MON_EV_OCCUPANCY) ?
					  (double)w->v.llc_occupancy : -1) :
		   g_sort == SORT_TOTAL ? w->total_rate : w->local_rate;

	return isnan(v) ? -1 : v;
}

/* Largest first; ties keep the library's order (group creation, then domain). */
static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double kx = key_of(x), ky = key_of(y);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* ---- Output ---------------------------------------------------------------------- */

static json_object *jnum_or_null(bool ok, double v)
{
	return ok && !isnan(v) ? json_object_new_double(v) : NULL;
}

static void jset_maybe(json_object *o, const char *key, json_object *v)
{
	if (v)
		jset(o, key, v);
	else
		jset_null(o, key);
}

static json_object *domain_json(const struct row *w)
{
	json_object *d = jobj();
	unsigned int ok = w->v.valid;

	jset(d, "cache_id", jint(w->v.cache_id));
	jset(d, "state", jstr(state_name(w->v.state)));
	jset_maybe(d, "llc_occupancy_bytes", ok & RDTALLOC_MON_EV_OCCUPANCY ?
		   jint((long long)w->v.llc_occupancy) : NULL);
	jset_maybe(d, "mbm_total_bytes", ok & RDTALLOC_MON_EV_TOTAL ?
		   jint((long long)w->v.mbm_total) : NULL);
	jset_maybe(d, "mbm_local_bytes", ok & RDTALLOC_MON_EV_LOCAL ?
		   jint((long long)w->v.mbm_local) : NULL);
	jset_maybe(d, "mbm_total_bytes_per_second", jnum_or_null(true, w->total_rate));
	jset_maybe(d, "mbm_local_bytes_per_second", jnum_or_null(true, w->local_rate));
	if (g_turns) {
		/* rates are bytes over the covered part: extrapolated when it is not all */
		jset_maybe(d, "coverage", jnum_or_null(true, w->coverage));
		jset(d, "covered_seconds", json_object_new_double((double)w->v.covered_ns / 1e9));
		jset(d, "extrapolated", jbool(!isnan(w->coverage) && w->coverage < 1 &&
					      w->coverage > 0));
		jset(d, "pinned", jbool(w->v.flags & RDTALLOC_MON_F_PINNED));
	}
	if (g_tm.nnodes)
		jset(d, "nodes", tm_nodes_json(&g_tm, &g_tm_prev, w->v.group, w->v.cache_id));
	return d;
}

/* One JSON line: the groups in the library's order, each with its domains. */
static int print_json(const struct mon_opts *o, const struct row *rows, size_t n,
		      uint64_t now_ns)
{
	json_object *doc = jobj(), *groups = jarr(), *g = NULL, *doms = NULL;
	const char *last = NULL;
	size_t i;

	jset(doc, "time", json_object_new_double((double)now_ns / 1e9));
	jset(doc, "interval", json_object_new_double(o->interval));
	for (i = 0; i < n; i++) {
		if (!last || strcmp(last, rows[i].v.group)) {
			g = jobj();
			doms = jarr();
			jset(g, "group", jstr(rows[i].v.group));
			jset_maybe(g, "rmid", rows[i].v.rmid >= 0 ? jint(rows[i].v.rmid) : NULL);
			jset(g, "domains", doms);
			if (g_tm.npkg)
				jset(g, "packages", tm_pkg_json(&g_tm, &g_tm_prev, rows[i].v.group));
			drift_mark(g);
			jpush(groups, g);
			last = rows[i].v.group;
		}
		jpush(doms, domain_json(&rows[i]));
	}
	jset(doc, "groups", groups);
	drift_mark(doc);	/* no "group": the whole list, groups not shown included */
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	return fflush(stdout) ? fail_msg("cannot write the output: %s", strerror(errno)) : 0;
}

static void csv_num(bool ok, uint64_t v)
{
	if (ok)
		printf(",%" PRIu64, v);
	else
		printf(",");
}

static void csv_rate(double v)
{
	if (isnan(v))
		printf(",");
	else
		printf(",%.1f", v);
}

static int print_csv(const struct row *rows, size_t n, uint64_t now_ns, bool header)
{
	size_t i;

	if (header)
		printf("time,group,rmid,cache_id,state,llc_occupancy_bytes,mbm_total_bytes,"
		       "mbm_local_bytes,mbm_total_bytes_per_second,mbm_local_bytes_per_second,"
		       "mbm_remote_bytes_per_second%s\n",
		       g_turns ? ",coverage,covered_seconds" : "");
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];

		printf("%.3f,%s,", (double)now_ns / 1e9, w->v.group);
		if (w->v.rmid >= 0)
			printf("%d", w->v.rmid);
		printf(",%u,%s", w->v.cache_id, state_name(w->v.state));
		csv_num(w->v.valid & RDTALLOC_MON_EV_OCCUPANCY, w->v.llc_occupancy);
		csv_num(w->v.valid & RDTALLOC_MON_EV_TOTAL, w->v.mbm_total);
		csv_num(w->v.valid & RDTALLOC_MON_EV_LOCAL, w->v.mbm_local);
		csv_rate(w->total_rate);
		csv_rate(w->local_rate);
		csv_rate(w->total_rate - w->local_rate);
		if (g_turns && isnan(w->coverage))
			printf(",,%.3f", (double)w->v.covered_ns / 1e9);
		else if (g_turns)
			printf(",%.4f,%.3f", w->coverage, (double)w->v.covered_ns / 1e9);
		printf("\n");
	}
	/* the rows, not the drift, are the CSV: it goes beside them */
	drift_fprint(stderr, "rdtctl: ");
	return fflush(stdout) ? fail_msg("cannot write the output: %s", strerror(errno)) : 0;
}

/* Prometheus text exposition: names, help and types once, a sample per group and domain. */
static void prom_family(const struct row *rows, size_t n, const char *name, const char *help,
			const char *type, unsigned int ev)
{
	size_t i;

	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		uint64_t v = ev == RDTALLOC_MON_EV_OCCUPANCY ? w->v.llc_occupancy :
			     ev == RDTALLOC_MON_EV_TOTAL ? w->v.mbm_total : w->v.mbm_local;

		/* group names are [A-Za-z0-9_.-]: nothing to escape in a label */
		if (w->v.valid & ev)
			printf("%s{group=\"%s\",cache_id=\"%u\"} %" PRIu64 "\n", name, w->v.group,
			       w->v.cache_id, v);
	}
}

static int print_prom(const struct row *rows, size_t n)
{
	size_t i;

	/* HELP and TYPE of every family, then its samples: one exposition a call */
	prom_family(rows, n, "rdtalloc_llc_occupancy_bytes",
		    "Bytes of the L3 cache domain held by the group (its RMID).", "gauge",
		    RDTALLOC_MON_EV_OCCUPANCY);
	prom_family(rows, n, "rdtalloc_mbm_total_bytes_total",
		    "Bytes of memory traffic of the group in the L3 domain, local and remote.",
		    "counter", RDTALLOC_MON_EV_TOTAL);
	prom_family(rows, n, "rdtalloc_mbm_local_bytes_total",
		    "Bytes of memory traffic of the group to its local memory node.", "counter",
		    RDTALLOC_MON_EV_LOCAL);
	printf("# HELP rdtalloc_monitor_ok Whether the group's counters in the domain read "
	       "(1) or not (0: unavailable, error, unsupported).\n"
	       "# TYPE rdtalloc_monitor_ok gauge\n");
	for (i = 0; i < n; i++)
		printf("rdtalloc_monitor_ok{group=\"%s\",cache_id=\"%u\"} %d\n", rows[i].v.group,
		       rows[i].v.cache_id, rows[i].v.state == RDTALLOC_MON_OK);
	if (g_turns) {
		/* rate(bytes) / rate(covered seconds): bandwidth over the counted time only */
		printf("# HELP rdtalloc_mbm_covered_seconds_total Seconds the group's bandwidth was "
		       "counted in the domain (it holds counters in turns: mbm_event mode).\n"
		       "# TYPE rdtalloc_mbm_covered_seconds_total counter\n");
		for (i = 0; i < n; i++)
			printf("rdtalloc_mbm_covered_seconds_total{group=\"%s\",cache_id=\"%u\"} "
			       "%.3f\n", rows[i].v.group, rows[i].v.cache_id,
			       (double)rows[i].v.covered_ns / 1e9);
	}
	tm_prom(stdout, &g_tm);
	drift_fprint(stdout, "# ");	/* a comment: scrapers skip it, a reader sees it */
	return fflush(stdout) ? fail_msg("cannot write the output: %s", strerror(errno)) : 0;
}

/*
 * One exposition into path, whole or not at all (written beside it, then
 * renamed into place): what node_exporter's textfile collector reads, and
 * a scrape never sees half a sample.
 */
static int prom_to_file(const char *path, const struct row *rows, size_t n)
{
	char tmp[4096];
	FILE *saved = stdout, *f;
	int ret, fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return fail_msg("--output %s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = fail_msg("--output %s: cannot create %s: %s", path, tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	stdout = f;
	ret = print_prom(rows, n);
	stdout = saved;
	if (fclose(f) && !ret)
		ret = fail_msg("--output %s: cannot write %s: %s", path, tmp, strerror(errno));
	if (!ret && rename(tmp, path))
		ret = fail_msg("--output %s: cannot rename %s into place: %s", path, tmp,
			       strerror(errno));
	if (ret)
		unlink(tmp);
	return ret;
}

static void cell_rate(double v, bool ok)
{
	if (!ok)
		printf(" %12s", "-");
	else if (isnan(v))
		printf(" %12s", "...");
	else
		printf(" %12.1f", v / 1e6);
}

static int print_table(const struct row *rows, size_t n, uint64_t now_ns, bool tty)
{
	time_t t = (time_t)(now_ns / 1000000000u);
	char when[32];
	size_t i;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
	if (tty)
		printf("\033[H\033[J");
	printf("%s   occupancy in KiB, bandwidth in MB/s\n", when);
	printf("%-20s %5s %6s %12s %12s %12s %12s  %s%s\n", "GROUP", "RMID", "DOMAIN",
	       "OCCUPANCY", "TOTAL", "LOCAL", "REMOTE", g_turns ? "COVERED  " : "", "STATE");
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		bool occ = w->v.valid & RDTALLOC_MON_EV_OCCUPANCY;
		bool tot = w->v.valid & RDTALLOC_MON_EV_TOTAL;
		bool loc = w->v.valid & RDTALLOC_MON_EV_LOCAL;
		char rmid[16];

		if (w->v.rmid >= 0)
			snprintf(rmid, sizeof(rmid), "%d", w->v.rmid);
		else
			snprintf(rmid, sizeof(rmid), "none");
		printf("%-20s %5s %6u", w->v.group, rmid, w->v.cache_id);
		if (occ)
			printf(" %12.1f", (double)w->v.llc_occupancy / 1024.0);
		else
			printf(" %12s", "-");
		cell_rate(w->total_rate, tot);
		cell_rate(w->local_rate, loc);
		cell_rate(w->total_rate - w->local_rate, tot && loc);
		if (g_turns && isnan(w->coverage))
			printf("  %7s", "...");
		else if (g_turns)
			printf("  %6.1f%%", w->coverage * 100);
		printf("  %s%s%s%s\n", state_name(w->v.state),
		       w->v.rmid < 0 ? " (counted with default: out of RMIDs)" : "",
		       g_turns && w->coverage > 0 && w->coverage < 1 ? " (rates extrapolated)" : "",
		       w->v.flags & RDTALLOC_MON_F_PINNED ? " (pinned)" : "");
		tm_table_nodes(&g_tm, &g_tm_prev, w->v.group, w->v.cache_id);
	}
	tm_table_pkg(&g_tm, &g_tm_prev);
	drift_print();
	if (!tty)
		printf("\n");
	return fflush(stdout) ? fail_msg("cannot write the output: %s", strerror(errno)) : 0;
}

/* ---- The command ------------------------------------------------------------------ */

static int parse_opts(int *argc, char **argv, struct mon_opts *o)
{
	const char *interval = NULL, *count = NULL, *dom = NULL, *sort = NULL, *fmt = NULL;
	struct flag flags[] = {
		{ "--interval", NULL, &interval }, { "--count", NULL, &count },
		{ "--domain", NULL, &dom }, { "--sort", NULL, &sort },
		{ "--format", NULL, &fmt }, { "--output", NULL, &o->output }, { NULL },
	};
	char *end;
	int ret;

	ret = parse_flags("monitor", argc, argv, flags);
	if (ret)
		return ret;
	o->interval = 1;
	o->domain = -1;
	if (interval) {
		errno = 0;
		o->interval = strtod(interval, &end);
		if (errno || end == interval || *end || !(o->interval >= 0.01) ||
		    o->interval > 86400)
			return usage_error("--interval %s: seconds, 0.01 to 86400", interval);
	}
	if (count) {
		errno = 0;
		o->count = strtoul(count, &end, 10);
		if (errno || end == count || *end || count[0] == '-' || !o->count ||
		    o->count > 1000000000ul)
			return usage_error("--count %s: a number of samples, 1 to 1000000000", count);
	}
	if (dom) {
		long v;

		errno = 0;
		v = strtol(dom, &end, 10);
		if (errno || end == dom || *end || v < 0 || v > 1 << 20)
			return usage_error("--domain %s: give an L3 cache id (rdtctl info)", dom);
		o->domain = (int)v;
	}
	if (sort) {
		if (!strcmp(sort, "occupancy"))
			o->sort = SORT_OCC;
		else if (!strcmp(sort, "total"))
			o->sort = SORT_TOTAL;
		else if (!strcmp(sort, "local"))
			o->sort = SORT_LOCAL;
		else
			return usage_error("--sort %s: occupancy, total or local", sort);
	}
	o->fmt = g_opts.json ? FMT_JSON : FMT_TABLE;
	if (fmt) {
		if (g_opts.json)
			return usage_error("--format %s and -j: choose one", fmt);
		if (!strcmp(fmt, "table"))
			o->fmt = FMT_TABLE;
		else if (!strcmp(fmt, "csv"))
			o->fmt = FMT_CSV;
		else if (!strcmp(fmt, "prometheus"))
			o->fmt = FMT_PROM;
		else
			return usage_error("--format %s: table, csv or prometheus (-j: JSON Lines)",
					   fmt);
	}
	if (o->output && o->fmt != FMT_PROM)
		return usage_error("--output %s: only for --format prometheus (the others are "
				   "streams: redirect them)", o->output);
	if (o->output && !*o->output)
		return usage_error("--output: give a file");
	/*
	 * An exposition names each family once: several samples on one
	 * stream are no exposition promtool or Prometheus accepts. On
	 * standard output one sample, unless asked for more; a file is
	 * replaced by each sample, until interrupted unless --count says.
	 */
	if (o->fmt == FMT_PROM && !o->output && !count)
		o->count = 1;
	if (o->fmt == FMT_PROM && !o->output && o->count > 1)
		return usage_error("--format prometheus --count %lu: one exposition holds one "
				   "sample; give --output FILE (each sample replaces it, as "
				   "node_exporter's textfile collector reads it)", o->count);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / 1000000000u),
			       .tv_nsec = (long)(deadline % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int do_monitor(int argc, char **argv)
{
	struct mon_opts o = { 0 };
	bool tty = isatty(STDOUT_FILENO);
	size_t opened;
	uint64_t next;
	unsigned long i;
	rdtalloc_t *r;
	int ret;

	if (mon_subcommand(argc, argv, &ret))
		return ret;
	ret = parse_opts(&argc, argv, &o);
	if (ret)
		return ret;
	o.groups = (const char *const *)argv;
	o.ngroups = (size_t)argc;
	r = ctx_monitor();
	if (!r)
		return EXIT_FAIL;
	g_sort = o.sort;
	opened = strlen(rdtalloc_warning(r));
	next = mono_ns();
	for (i = 0; !o.count || i < o.count; i++) {
		struct row *rows = NULL;
		size_t n = 0;
		struct timespec now;
		uint64_t t;

		if (i)
			sleep_until(next);
		drift_forget();	/* every sample says the drift of its moment */
		ret = sample(r, &o, &rows, &n);
		if (!ret && (ret = tm_read(r, o.groups, o.ngroups, &g_tm)) < 0) {
			free(rows);
			return fail_lib(r, ret);
		}
		if (ret)
			return ret;
		tm_filter_domain(&g_tm, o.domain);
		/* the first read's own warning (the open's was said at the open) */
		if (!i && !g_opts.quiet && strlen(rdtalloc_warning(r)) > opened)
			fprintf(stderr, "rdtctl: warning: %s\n",
				rdtalloc_warning(r) + opened + (opened > 0));
		if (!i) {
			struct rdtalloc_mon_counters c = { .sz = sizeof(c) };

			/* after the first read: its warnings are said above */
			g_turns = !rdtalloc_mon_get_counters(r, &c) &&
				  c.mode == RDTALLOC_MON_ASSIGN_EVENT;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		t = n ? rows[0].v.time_ns : (uint64_t)now.tv_sec * 1000000000u +
					    (uint64_t)now.tv_nsec;
		/* JSON keeps the library's order: a group's domains together */
		if (o.sort != SORT_NONE && o.fmt != FMT_JSON)
			qsort(rows, n, sizeof(*rows), cmp_rows);

		switch (o.fmt) {
		case FMT_JSON:
			ret = print_json(&o, rows, n, t);
			break;
		case FMT_CSV:
			ret = print_csv(rows, n, t, i == 0);
			break;
		case FMT_PROM:
			ret = o.output ? prom_to_file(o.output, rows, n) : print_prom(rows, n);
			break;
		default:
			ret = print_table(rows, n, t, tty);
		}
		free(rows);
		tm_free(&g_tm_prev);
		g_tm_prev = g_tm;
		memset(&g_tm, 0, sizeof(g_tm));
		if (ret)
			return ret;
		next += (uint64_t)(o.interval * 1e9);
	}
	return EXIT_OK;
}
