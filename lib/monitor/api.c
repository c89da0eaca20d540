// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor/api: the public monitoring calls, and the running totals.
 *
 * The hardware's bandwidth counters are width bits wide and wrap; what a
 * caller gets is a 64-bit total that keeps counting. The last raw value
 * and the total so far of every (RMID, its holder, domain) are kept in
 * counters.json beside the state file, under a lock of their own, so that
 * two runs of `rdtctl monitor` continue each other (a context opened read
 * only, or without a state directory, keeps them in memory). An RMID given
 * to another group starts a new total: the key holds the holder's sequence
 * number.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "json.h"
#include "monitor.h"
#include "telemetry.h"
#include "state.h"
#include "store/atomic.h"
#include "backends/msr.h"

#define COUNTERS_FILE "counters.json"
#define COUNTERS_LOCK "counters.lock"
/* A counters file is a few hundred bytes per RMID and domain: refuse anything far larger. */
#define COUNTERS_MAX (64u << 20)

int rdt_mon_check_sized(rdtalloc_t *r, size_t sz, const char *what)
{
	if (sz < sizeof(size_t) || sz > (1u << 16))
		return rdt_fail(r, -EINVAL, "%s.sz is %zu: set it to sizeof(struct %s)", what, sz,
				what);
	return 0;
}

int rdt_mon_need(rdtalloc_t *r)
{
	if (!rdt_mon(rdt_core_state(r))->nrmids)
		return rdt_fail(r, -EOPNOTSUPP, "this machine has no L3 monitoring (rdtctl info: "
				"\"monitoring\": null)");
	return 0;
}

RDTALLOC_API int rdtalloc_mon_get_info(rdtalloc_t *r, struct rdtalloc_mon_info *info)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	struct rdtalloc_mon_info v = { 0 };
	const struct rdt_mon_state *ms;
	unsigned int i;
	int ret;

	if (!r || !info)
		return -EINVAL;
	ret = rdt_mon_check_sized(r, info->sz, "rdtalloc_mon_info");
	if (ret)
		return ret;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ms = rdt_mon(rdt_core_state(r));
	v.sz = info->sz < sizeof(v) ? info->sz : sizeof(v);
	if (ms->nrmids) {
		v.rmids = m->mon.rmids;
		v.scale = m->mon.scale;
		v.width = m->mon.width;
		v.events = m->mon.events;
		v.threshold = m->mon.threshold;
		{
			unsigned int th;
			uint32_t cf;

			if (m->mon.mbm_cf && !strcmp(rdt_core_backend(r)->name, "msr") &&
			    rdt_mbm_cf(m->mon.rmids, &th, &cf)) {
				v.mbm_cf_threshold = th;
				v.mbm_cf = (double)cf / (1 << 20);
			}
		}
		for (i = 0; i < ms->nrmids; i++) {
			v.in_use += ms->owner[i] >= 0;
			v.in_limbo += ms->owner[i] < 0 && ms->in_limbo[i];
		}
		for (i = 1; i < rdt_core_state(r)->ngroups; i++) {
			const struct rdt_group *gr = &rdt_core_state(r)->groups[i];

			v.unmonitored += gr->live && !gr->rmid;
		}
		v.snc_nodes = m->mon.snc > 1 ? m->mon.snc : 1;
		v.hw_rmids = m->mon.snc > 1 ? m->mon.hw_rmids : m->mon.rmids;
	}
	memcpy(info, &v, v.sz);
	return rdt_core_end(r, false, 0);
}

/* Counters this backend can read: the simulator's, or registers through mon_counter. */
static int need_counters(rdtalloc_t *r)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	int ret = rdt_mon_need(r);

	if (!ret && !be->simulated && !be->mon_counter && !be->mon_read)
		ret = rdt_fail(r, -EOPNOTSUPP, "monitoring groups on backend %s are not built "
			       "yet (docs/monitoring.md)", be->name);
	return ret;
}

RDTALLOC_API int rdtalloc_group_rmid(rdtalloc_t *r, const char *group, int *rmid)
{
	int ret, g;

	if (!r || !rmid)
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : need_counters(r);
	if (!ret)
		*rmid = rdt_mon_group_rmid(rdt_core_state(r), g);
	return rdt_core_end(r, false, ret);
}

/* ---- Workloads (sim) ------------------------------------------------------------- */

static int check_load(rdtalloc_t *r, const struct rdtalloc_sim_load *ld)
{
	const uint64_t most = UINT64_C(1) << 50;	/* 1 PiB, 1 PB/s */
	int ret = rdt_mon_check_sized(r, ld->sz, "rdtalloc_sim_load");

	if (ret)
		return ret;
	if (ld->sz < offsetof(struct rdtalloc_sim_load, fault) + sizeof(ld->fault))
		return rdt_fail(r, -EINVAL, "rdtalloc_sim_load.sz is %zu: too small", ld->sz);
	if (ld->footprint > most)
		return rdt_fail(r, -ERANGE, "footprint %" PRIu64 " bytes: at most 2^50 (1 PiB)",
				ld->footprint);
	if (ld->rate > most)
		return rdt_fail(r, -ERANGE, "rate %" PRIu64 " bytes/s: at most 2^50 (1 PB/s)",
				ld->rate);
	if (ld->local_pct > 100)
		return rdt_fail(r, -ERANGE, "local share %u%%: must be 0..100", ld->local_pct);
	if (ld->fault != 0 && ld->fault != RDTALLOC_MON_UNAVAILABLE &&
	    ld->fault != RDTALLOC_MON_ERROR)
		return rdt_fail(r, -EINVAL, "fault %d: must be 0, RDTALLOC_MON_UNAVAILABLE or "
				"RDTALLOC_MON_ERROR", ld->fault);
	return 0;
}

/* Set (or, all zero, remove) group g's workload in domain d. */
static int put_load(rdtalloc_t *r, int g, unsigned int d, const struct rdtalloc_sim_load *in)
{
	struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	uint64_t seq = rdt_core_state(r)->groups[g].seq;
	bool none = !in->footprint && !in->rate && !in->fault;
	struct rdt_load *ld = NULL, *grown;
	unsigned int i;

	/* a workload runs here now: what a replay left is the model's to say */
	for (i = 0; i < ms->nrmids; i++)
		ms->kept[(size_t)i * ms->ndom + d] = 0;
	ms->occ_is_kept = false;
	for (i = 0; i < ms->nload; i++)
		if (ms->load[i].seq == seq && ms->load[i].dom == d)
			ld = &ms->load[i];
	if (none) {
		if (ld)
			*ld = ms->load[--ms->nload];
		return 0;
	}
	if (!ld) {
		if (ms->nload >= RDT_LOADS_MAX)
			return rdt_fail(r, -ENOSPC, "%u workloads already: the most a state holds",
					RDT_LOADS_MAX);
		grown = realloc(ms->load, (ms->nload + 1) * sizeof(*ms->load));
		if (!grown)
			return rdt_fail(r, -ENOMEM, "out of memory");
		ms->load = grown;
		ld = &ms->load[ms->nload++];
	}
	ld->seq = seq;
	ld->dom = d;
	ld->footprint = in->footprint;
	ld->rate = in->rate;
	ld->local_pct = in->local_pct;
	ld->fault = in->fault;
	return 0;
}

RDTALLOC_API int rdtalloc_sim_set_load(rdtalloc_t *r, const char *group, int cache_id,
				       const struct rdtalloc_sim_load *load)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	unsigned int d;
	int ret, g, dom = -1;

	if (!r || !load)
		return -EINVAL;
	ret = check_load(r, load);
	if (ret)
		return ret;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (!be->simulated)
		return rdt_core_end(r, true, rdt_fail(r, -EOPNOTSUPP, "workloads are the "
					"simulator's: backend %s measures real ones", be->name));
	g = rdt_core_find_group(r, group);
	ret = g < 0 ? g : rdt_mon_need(r);
	if (!ret && cache_id >= 0) {
		dom = rdt_machine_domain(rdt_core_machine(r), RDT_L3, (unsigned int)cache_id);
		if (dom < 0)
			ret = rdt_fail(r, -ENOENT, "no L3 cache id %d on this machine", cache_id);
	} else if (!ret && cache_id != -1) {
		ret = rdt_fail(r, -EINVAL, "cache id %d: give an L3 cache id, or -1 for all",
			       cache_id);
	}
	for (d = 0; !ret && d < rdt_mon(rdt_core_state(r))->ndom; d++)
		if (dom < 0 || d == (unsigned int)dom)
			ret = put_load(r, g, d, load);
	if (!ret)
		rdt_core_mark_dirty(r);
	return rdt_core_end(r, true, ret);
}

/* ---- Raw counters ------------------------------------------------------------------ */

struct raw {
	int state[3];		/* per event: enum rdtalloc_mon_state */
	uint64_t val[3];	/* occupancy, total, local: counter units */
	bool read;		/* registers: read in this call already */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The simulator's counters of every RMID in domain d at time now: the
 * model's totals as of t0 and its rates since, in counter units, wrapped
 * at the counter's width as the hardware's are.
 */
static int sim_raw(rdtalloc_t *r, json_object *map, unsigned int d, uint64_t now,
		   struct raw *out)
{
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	const struct rdt_mon *mon = &rdt_core_machine(r)->mon;
	struct rdt_mon_rates *rt = malloc(ms->nrmids * sizeof(*rt));
	double dt = ms->t0 && now > ms->t0 ? (double)(now - ms->t0) / 1e9 : 0;
	uint64_t wrap = mon->width >= 64 ? UINT64_MAX : (UINT64_C(1) << mon->width) - 1;
	unsigned int rm, e;

	if (!rt || rdt_mon_model(rdt_core_state(r), d, rt) < 0) {
		free(rt);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	for (rm = 0; rm < ms->nrmids; rm++) {
		size_t c = (size_t)rm * ms->ndom + d;
		double bytes[3] = { rt[rm].occ, (double)ms->total[c] + rt[rm].total * dt,
				    (double)ms->local[c] + rt[rm].local * dt };

		for (e = 0; e < 3; e++) {
			out[rm].state[e] = rt[rm].fault;
			out[rm].val[e] = (uint64_t)(bytes[e] / mon->scale) & wrap;
			if (!(mon->events & (1u << e)))
				out[rm].state[e] = RDTALLOC_MON_UNSUPPORTED;
			else if (e && ms->owner[rm] >= 0 &&
				 !rdt_rot_sim_counted(r, map, rm, (uint64_t)ms->owner[rm]))
				/* mbm_event mode: counted only while it holds a counter */
				out[rm].state[e] = RDTALLOC_MON_UNASSIGNED;
		}
	}
	free(rt);
	return 0;
}

/*
 * A counter from the hardware (msr): QM_CTR's Error and Unavailable bits are
 * states, never numbers; the count is cut to the counter's width. An RMID
 * read already (asked for twice) is not read again.
 */
static int hw_raw(rdtalloc_t *r, unsigned int d, unsigned int rm, struct raw *out)
{
	const struct rdt_mon *mon = &rdt_core_machine(r)->mon;
	uint64_t wrap = mon->width >= 64 ? UINT64_MAX : (UINT64_C(1) << mon->width) - 1;
	char err[RDT_ERRMSG_MAX] = "";
	unsigned int e;
	uint64_t v;
	int ret;

	if (out->read)
		return 0;
	out->read = true;
	for (e = 0; e < 3; e++) {
		if (!(mon->events & (1u << e))) {
			out->state[e] = RDTALLOC_MON_UNSUPPORTED;
			continue;
		}
		ret = rdt_core_backend(r)->mon_counter(rdt_core_backend_ctx(r), d, rm, e + 1, &v,
						       err, sizeof(err));
		if (ret)
			return rdt_fail(r, ret, "reading the counters of RMID %u: %s", rm, err);
		out->state[e] = v & RDT_QM_CTR_ERROR ? RDTALLOC_MON_ERROR :
				v & RDT_QM_CTR_UNAVAILABLE ? RDTALLOC_MON_UNAVAILABLE :
				RDTALLOC_MON_OK;
		out->val[e] = out->state[e] ? 0 : (v & RDT_QM_CTR_COUNT) & wrap;
	}
	return 0;
}

/*
 * Counters a kernel keeps (resctrl): bytes, running totals already, each
 * group's at its RMID's place in raw (scale 1 on such a machine).
 */
static int kernel_raw(rdtalloc_t *r, const int *gs, unsigned int n, struct raw *raw)
{
	unsigned int ndom = rdt_mon(rdt_core_state(r))->ndom, i, d, e;
	int *state = calloc((size_t)n * ndom * 3 + 1, sizeof(int));
	uint64_t *val = calloc((size_t)n * ndom * 3 + 1, sizeof(uint64_t));
	int ret = 0;

	if (!state || !val)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (!ret)
		ret = rdt_core_backend(r)->mon_read(r, gs, n, state, val);
	for (i = 0; !ret && i < n; i++) {
		int rm = rdt_mon_group_rmid(rdt_core_state(r), gs[i]);

		for (d = 0; rm >= 0 && d < ndom; d++) {
			struct raw *x = &raw[(size_t)d * rdt_mon(rdt_core_state(r))->nrmids +
					     (unsigned int)rm];

			for (e = 0; e < 3; e++) {
				x->state[e] = state[((size_t)i * ndom + d) * 3 + e];
				x->val[e] = val[((size_t)i * ndom + d) * 3 + e];
			}
		}
	}
	free(state);
	free(val);
	return ret;
}

/* ---- Running totals ------------------------------------------------------------------ */

struct counters {
	json_object *map;	/* "RMID/SEQ/DOM" -> [raw_total, total, raw_local, local, time] */
	int lock_fd;		/* -1: in memory only */
	char *path;
	bool changed;
};

/*
 * The saved totals, or empty ones when the file is missing or another
 * state's. A file that cannot be read as totals at all is not silently
 * replaced: it is kept aside as FILE.damaged and the call warns that the
 * running totals start again from now.
 */
static json_object *read_counters(rdtalloc_t *r, const char *path, const char *id)
{
	json_object *o = NULL, *v, *map = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	const char *damage = NULL;
	char why[128], aside[PATH_MAX];
	struct stat sb;
	char *buf = NULL;
	size_t at;

	if (fd < 0) {
		if (errno != ENOENT)
			damage = strerror(errno);
	} else if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		damage = "not a regular file of ours";
	} else if (!sb.st_size || (uint64_t)sb.st_size > COUNTERS_MAX) {
		damage = sb.st_size ? "larger than 64 MiB" : "empty";
	} else if (!(buf = malloc((size_t)sb.st_size + 1))) {
		damage = "out of memory";
	} else if (read(fd, buf, (size_t)sb.st_size) != sb.st_size) {
		damage = "short read";
	} else if (rdt_json_parse(buf, (size_t)sb.st_size, 8, &o, why, sizeof(why), &at)) {
		damage = why;
	} else if (!json_object_is_type(o, json_type_object) ||
		   !json_object_object_get_ex(o, "id", &v) ||
		   !json_object_is_type(v, json_type_string) ||
		   !json_object_object_get_ex(o, "counters", &map) ||
		   !json_object_is_type(map, json_type_object)) {
		damage = "not the running totals";
		map = NULL;
	} else if (!strcmp(json_object_get_string(v), id)) {
		map = json_object_get(map);
	} else {
		map = NULL;	/* another state's, made before ours: ours start now */
	}
	json_object_put(o);
	free(buf);
	if (fd >= 0)
		close(fd);
	if (damage && snprintf(aside, sizeof(aside), "%s.damaged", path) < (int)sizeof(aside)) {
		bool kept = !rename(path, aside);

		rdt_core_warn(r, "the running totals in %s could not be read (%s): %s; the totals "
			     "start again from this reading", path, damage,
			     kept ? "kept aside as .damaged" : "it will be replaced");
	}
	return map ? map : json_object_new_object();
}

static int counters_open(rdtalloc_t *r, struct counters *c)
{
	char *lock;

	memset(c, 0, sizeof(*c));
	c->lock_fd = -1;
	/* read only keeps no totals, unless asked to (a monitor that writes nothing else) */
	if (!rdt_core_store(r) || rdt_core_peek(r) ||
	    (rdt_core_read_only(r) && !(rdt_core_flags(r) & RDTALLOC_F_MON_TOTALS))) {
		void **held = rdt_core_mon_totals(r);

		if (!*held)
			*held = json_object_new_object();
		c->map = *held;
		return c->map ? 0 : rdt_fail(r, -ENOMEM, "out of memory");
	}
	lock = rdt_store_sibling(rdt_core_store(r), COUNTERS_LOCK);
	c->path = rdt_store_sibling(rdt_core_store(r), COUNTERS_FILE);
	if (!lock || !c->path) {
		free(lock);
		free(c->path);
		return rdt_fail(r, -ENOMEM, "out of memory");
	}
	c->lock_fd = rdt_atomic_lock(lock, NULL, 0);
	free(lock);
	if (c->lock_fd < 0) {
		free(c->path);
		return rdt_fail(r, c->lock_fd, "cannot lock the running totals beside %s: %s",
				rdt_store_path(rdt_core_store(r)), strerror(-c->lock_fd));
	}
	c->map = read_counters(r, c->path, rdtalloc_state_id(r));
	return 0;
}

/* Write the totals back (new file, renamed into place) and unlock. */
static int counters_close(rdtalloc_t *r, struct counters *c, int ret)
{
	struct iovec iov;
	json_object *o;
	const char *text;

	if (c->lock_fd < 0)
		return ret;	/* in memory: the context holds them (rdt_core_mon_totals) */
	if (!ret && c->changed) {
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_string(rdtalloc_state_id(r)));
		json_object_object_add(o, "counters", json_object_get(c->map));
		text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
		iov.iov_base = (void *)text;
		iov.iov_len = strlen(text);
		/* failed: the totals of this read stand; the next one starts from the older file */
		rdt_atomic_write(-1, c->path, &iov, 1, 0600, NULL, NULL, 0);
		json_object_put(o);
	}
	json_object_put(c->map);
	rdt_atomic_unlock(c->lock_fd);
	free(c->path);
	return ret;
}

/* Drop the totals of RMIDs that changed hands (their key's holder is gone). */
static void counters_prune(rdtalloc_t *r, struct counters *c)
{
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	json_object_iter it;
	char **gone = NULL;
	size_t n = 0, i;

	json_object_object_foreachC(c->map, it) {
		unsigned int rm, d;
		uint64_t seq;
		char **g;

		if (it.key[0] == '@')
			continue;	/* not a counter: the turns' record (rotation.c) */
		if (sscanf(it.key, "%u/%" SCNu64 "/%u", &rm, &seq, &d) == 3 && rm < ms->nrmids &&
		    ms->owner[rm] >= 0 && (uint64_t)ms->owner[rm] == seq && d < ms->ndom)
			continue;
		g = realloc(gone, (n + 1) * sizeof(*gone));
		if (!g)
			break;
		gone = g;
		gone[n++] = strdup(it.key);
	}
	for (i = 0; i < n; i++) {
		if (gone[i])
			json_object_object_del(c->map, gone[i]);
		free(gone[i]);
	}
	free(gone);
	c->changed |= n > 0;
}

/*
 * An entry: [raw_total, total, raw_local, local, time, covered_ns, counting,
 * since] (0.8: the last three). time is the last reading's (a rate's
 * interval starts there), since when the raw values were taken (covered
 * time grows from there: a counter given between two readings starts
 * counting after the first).
 */
#define ENTRY_OLD 5
#define ENTRY_LEN 8

static void put_entry(struct counters *c, const char *key, const uint64_t *x)
{
	json_object *ne = json_object_new_array();
	int k;

	for (k = 0; k < ENTRY_LEN; k++)
		json_object_array_add(ne, json_object_new_int64((int64_t)x[k]));
	json_object_object_add(c->map, key, ne);
	c->changed = true;
}

/* Both MBM events without a counter (mbm_event mode): none of the interval is covered. */
static bool unassigned(const struct raw *raw, unsigned int events)
{
	bool any = false;
	int e;

	for (e = 1; e < 3; e++) {
		if (!(events & (1u << e)))
			continue;
		if (raw->state[e] != RDTALLOC_MON_UNASSIGNED)
			return false;
		any = true;
	}
	return any;
}

/*
 * Fold one reading of RMID rm (held by seq) in domain d into its running
 * totals. Covered time grows only between two readings that both counted
 * (counting: the entry's last raw values are a reading of the counter
 * the group holds now). An Unassigned reading ends that; the next counted
 * one, or the read right after the turns gave the group its counters
 * (baseline), starts it again from its own raw values, so that no byte of
 * a time without a counter is taken for one with.
 */
static void fold(rdtalloc_t *r, struct counters *c, unsigned int rm, uint64_t seq, unsigned int d,
		 const struct raw *raw, uint64_t now, bool baseline, struct rdtalloc_mon_value *v)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	const struct rdt_mon *mon = &rdt_core_machine(r)->mon;
	uint64_t wrap = mon->width >= 64 ? UINT64_MAX : (UINT64_C(1) << mon->width) - 1;
	uint64_t old[ENTRY_LEN] = { 0 }, tot[2], x[ENTRY_LEN];
	unsigned int cf_threshold = 0;
	size_t len = 0;
	json_object *e;
	uint32_t cf = 0;
	bool known, correct, counting;
	char key[64];
	int k;

	snprintf(key, sizeof(key), "%u/%" PRIu64 "/%u", rm, seq, d);
	if (json_object_object_get_ex(c->map, key, &e) && json_object_is_type(e, json_type_array))
		len = json_object_array_length(e);
	known = len == ENTRY_OLD || len == ENTRY_LEN;
	for (k = 0; known && k < (int)len; k++)
		old[k] = (uint64_t)json_object_get_int64(json_object_array_get_idx(e, (size_t)k));
	/* an entry from before 0.8 was counting all along, since its reading */
	counting = known && (len == ENTRY_OLD || old[6]);
	if (len == ENTRY_OLD)
		old[7] = old[4];
	v->covered_ns = old[5];
	if (known) {
		v->prev_covered_ns = old[5];
		if (unassigned(raw, mon->events)) {
			/* no counter: the totals stand, and the next count starts anew */
			v->mbm_total = v->prev_mbm_total = old[1];
			v->mbm_local = v->prev_mbm_local = old[3];
			v->prev_time_ns = old[4];
			memcpy(x, old, sizeof(x));
			x[4] = now;
			x[6] = 0;
			put_entry(c, key, x);
			return;
		}
	}
	if (raw->state[1] != RDTALLOC_MON_OK && raw->state[2] != RDTALLOC_MON_OK) {
		/*
		 * Nothing read (unavailable, an error): the totals stand and the
		 * last valid reading stays the one a rate is taken from - kept
		 * with its own time, and none made up: a rate against a reading
		 * that had no value was the whole counter over one interval.
		 */
		v->mbm_total = old[1];
		v->mbm_local = old[3];
		return;
	}
	/*
	 * The erratum's correction (BDF102, SKX99), where we read the registers
	 * ourselves (msr): the kernel's resctrl applies it to what it serves,
	 * and the simulator's counts are right. Applied to each reading's new
	 * counts, before the scale, as the kernel applies it to its chunks.
	 */
	correct = mon->mbm_cf && !be->simulated && !strcmp(be->name, "msr") &&
		  rdt_mbm_cf(mon->rmids, &cf_threshold, &cf) && rm > cf_threshold;
	for (k = 0; k < 2; k++) {
		uint64_t now_raw = raw->val[1 + k], units;

		if (raw->state[1 + k] != RDTALLOC_MON_OK) {
			tot[k] = old[1 + 2 * k];	/* nothing read: the total stands */
			continue;
		}
		if (baseline || (known && !counting))
			units = 0;	/* its counter's count starts here */
		else if (known && mon->width >= RDT_MON_WIDTH_NOWRAP && now_raw < old[2 * k])
			/* too wide to wrap: the kernel's count started again (a new RMID) */
			units = now_raw;
		else
			units = known ? (now_raw - old[2 * k]) & wrap : now_raw;
		if (correct)
			units = rdt_mbm_correct(units, cf);
		tot[k] = (known ? old[1 + 2 * k] : 0) + units * mon->scale;
		if (tot[k] > RDT_COUNTER_MAX)
			tot[k] = RDT_COUNTER_MAX;
	}
	v->mbm_total = tot[0];
	v->mbm_local = tot[1];
	if (known) {
		v->prev_mbm_total = old[1];
		v->prev_mbm_local = old[3];
		v->prev_time_ns = old[4];
	}
	x[0] = raw->state[1] ? old[0] : raw->val[1];
	x[1] = tot[0];
	x[2] = raw->state[2] ? old[2] : raw->val[2];
	x[3] = tot[1];
	x[4] = baseline && known ? old[4] : now;
	x[5] = old[5] + (counting && !baseline && now > old[7] ? now - old[7] : 0);
	x[6] = 1;
	x[7] = now;
	v->covered_ns = x[5];
	put_entry(c, key, x);
}

/* ---- Reading ----------------------------------------------------------------------- */

/* How bad a state is: an error first, then no counter, then no value yet. */
static int state_rank(int st)
{
	static const int rank[] = {
		[RDTALLOC_MON_OK] = 0, [RDTALLOC_MON_UNSUPPORTED] = 1,
		[RDTALLOC_MON_UNAVAILABLE] = 2, [RDTALLOC_MON_UNASSIGNED] = 3,
		[RDTALLOC_MON_ERROR] = 4,
	};

	return st >= 0 && st <= RDTALLOC_MON_UNASSIGNED ? rank[st] : 4;
}

static int worst(const struct raw *raw, unsigned int events, unsigned int *valid)
{
	int st = RDTALLOC_MON_OK, e;

	*valid = 0;
	for (e = 0; e < 3; e++) {
		if (!(events & (1u << e)))
			continue;
		if (raw->state[e] == RDTALLOC_MON_OK)
			*valid |= 1u << e;
		else if (state_rank(raw->state[e]) > state_rank(st))
			st = raw->state[e];
	}
	/* unsupported only when no event gave anything */
	return st == RDTALLOC_MON_UNSUPPORTED && *valid ? RDTALLOC_MON_OK : st;
}

/* The groups asked for, as indexes (all: in creation order, the default first). */
int rdt_mon_pick_groups(rdtalloc_t *r, const char *const *names, size_t n, int **out,
		       unsigned int *count)
{
	size_t i;

	if (!n) {
		*out = rdt_core_groups_in_order(rdt_core_state(r), count);
		return *out ? 0 : rdt_fail(r, -ENOMEM, "out of memory");
	}
	if (n > RDT_GROUPS_LIMIT)
		return rdt_fail(r, -E2BIG, "%zu groups asked for: at most %u", n, RDT_GROUPS_LIMIT);
	*out = malloc(n * sizeof(int));
	if (!*out)
		return rdt_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		int g = rdt_core_find_group(r, names[i]);

		if (g < 0) {
			free(*out);
			*out = NULL;
			return g;
		}
		(*out)[i] = g;
	}
	*count = (unsigned int)n;
	return 0;
}

/* The raw counters of groups gs[n] at now: raw[d * nrmids + rmid]. */
static int read_raw(rdtalloc_t *r, json_object *map, const int *gs, unsigned int n, uint64_t now,
		    struct raw *raw)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	unsigned int d, i;
	int ret = 0;

	for (d = 0; !ret && be->simulated && d < ms->ndom; d++)
		ret = sim_raw(r, map, d, now, &raw[(size_t)d * ms->nrmids]);
	/* a kernel's files (resctrl): the groups asked for, in one pass */
	if (!ret && be->mon_read)
		ret = kernel_raw(r, gs, n, raw);
	/* registers: only the RMIDs asked for, each once */
	for (i = 0; !ret && !be->simulated && !be->mon_read && i < n; i++) {
		int rm = rdt_mon_group_rmid(rdt_core_state(r), gs[i]);

		for (d = 0; !ret && rm >= 0 && d < ms->ndom; d++)
			ret = hw_raw(r, d, (unsigned int)rm,
				     &raw[(size_t)d * ms->nrmids + (unsigned int)rm]);
	}
	return ret;
}

/* Read groups gs[n] now and fold them in (baseline: their count starts here); held[i]. */
static int read_fold(rdtalloc_t *r, struct counters *c, const int *gs, unsigned int n,
		     bool baseline, bool *held)
{
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	struct raw *raw = calloc((size_t)ms->nrmids * ms->ndom, sizeof(*raw));
	uint64_t now = now_ns();
	unsigned int i, d;
	int ret;

	if (!raw)
		return rdt_fail(r, -ENOMEM, "out of memory");
	ret = read_raw(r, c->map, gs, n, now, raw);
	for (i = 0; !ret && i < n; i++) {
		int rm = rdt_mon_group_rmid(rdt_core_state(r), gs[i]);

		held[i] = false;
		for (d = 0; rm > 0 && d < ms->ndom; d++) {
			const struct raw *x = &raw[(size_t)d * ms->nrmids + (unsigned int)rm];
			struct rdtalloc_mon_value v = { 0 };

			fold(r, c, (unsigned int)rm, (uint64_t)ms->owner[rm], d, x, now, baseline,
			     &v);
			held[i] |= !unassigned(x, rdt_core_machine(r)->mon.events) &&
				   x->state[0] != RDTALLOC_MON_MISSING;
		}
	}
	free(raw);
	return ret;
}

/* ---- Counter turns: what rotation.c does through (struct rdt_rot_io) ---------------- */

struct turn_ctx {
	struct counters *c;
	int *gs;		/* the candidates' group indexes */
};

static int turn_cntrs(struct rdt_rot_io *io, struct rdt_cntrs *c)
{
	return rdt_rot_cntrs(io->r, io->map, c);
}

static int turn_reclaim(struct rdt_rot_io *io)
{
	return rdt_core_backend(io->r)->mon_reclaim(io->r);
}

static int turn_read(struct rdt_rot_io *io, const unsigned int *idx, unsigned int k,
		     bool baseline, bool *held)
{
	struct turn_ctx *t = io->arg;
	int *gs = malloc((k + 1) * sizeof(int)), ret;
	unsigned int i;

	if (!gs)
		return rdt_fail(io->r, -ENOMEM, "out of memory");
	for (i = 0; i < k; i++)
		gs[i] = t->gs[idx[i]];
	ret = read_fold(io->r, t->c, gs, k, baseline, held);
	free(gs);
	return ret;
}

static int turn_assign(struct rdt_rot_io *io, unsigned int i, bool on, bool *got)
{
	struct turn_ctx *t = io->arg;
	int g = t->gs[i];

	if (rdt_core_backend(io->r)->simulated)
		return rdt_rot_sim_assign(io->r, io->map, io->seq[i], on, got);
	return rdt_core_backend(io->r)->mon_assign(io->r, g, on, got);
}

/* Where counters are assigned (mbm_event mode), the read whose turn is due moves them. */
static int turn(rdtalloc_t *r, struct counters *c, uint64_t now)
{
	const struct rdt_backend *be = rdt_core_backend(r);
	const struct rdt_rot_cfg *cfg = &rdt_mon(rdt_core_state(r))->rot;
	struct turn_ctx t = { .c = c };
	struct rdt_rot_io io = {
		.r = r, .map = c->map, .arg = &t, .cntrs = turn_cntrs, .read = turn_read,
		.assign = turn_assign, .reclaim = be->mon_reclaim ? turn_reclaim : NULL,
		.period_ms = rdt_rot_period_ms(cfg), .counters = cfg->counters,
	};
	unsigned int all, i;
	uint64_t *seq;
	bool *pin;
	int ret = 0;

	if (!be->simulated && !be->mon_assign)
		return 0;	/* no counters to assign here */
	t.gs = rdt_core_groups_in_order(rdt_core_state(r), &all);
	seq = calloc(all + 1, sizeof(*seq));
	pin = calloc(all + 1, sizeof(*pin));
	if (!t.gs || !seq || !pin)
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	/* our monitored groups but the default (it keeps the root's counters) */
	for (i = 0; !ret && i < all; i++) {
		int g = t.gs[i];

		if (g <= 0 || rdt_mon_group_rmid(rdt_core_state(r), g) <= 0)
			continue;
		t.gs[io.n] = g;
		seq[io.n] = rdt_core_state(r)->groups[g].seq;
		pin[io.n++] = rdt_rot_is_pinned(cfg, rdt_core_state(r)->groups[g].seq);
	}
	io.seq = seq;
	io.pinned = pin;
	if (!ret)
		ret = rdt_rot_turn(&io, now);
	c->changed = true;
	free(t.gs);
	free(seq);
	free(pin);
	return ret;
}

/* One row: group g in domain index d, from raw. */
static void row(rdtalloc_t *r, struct counters *c, int g, unsigned int d, const struct raw *raw,
		uint64_t now, struct rdtalloc_mon_value *v)
{
	const struct rdt_machine *m = rdt_core_machine(r);
	const struct rdt_mon_state *ms = rdt_mon(rdt_core_state(r));
	int rm = rdt_mon_group_rmid(rdt_core_state(r), g);
	const struct raw *x = &raw[(size_t)d * ms->nrmids + (rm < 0 ? 0 : rm)];

	snprintf(v->group, sizeof(v->group), "%s", rdt_core_state(r)->groups[g].name);
	v->rmid = rm < 0 ? RDTALLOC_RMID_NONE : rm;
	v->cache_id = m->dom[RDT_L3][d].cache_id;
	v->time_ns = now;
	if (g > 0 && rdt_rot_is_pinned(&ms->rot, rdt_core_state(r)->groups[g].seq))
		v->flags |= RDTALLOC_MON_F_PINNED;
	if (rm < 0) {
		/* its traffic is the default group's: no number of its own */
		v->state = RDTALLOC_MON_UNSUPPORTED;
		return;
	}
	v->state = worst(x, m->mon.events, &v->valid);
	if (v->valid & RDTALLOC_MON_EV_OCCUPANCY)
		v->llc_occupancy = x->val[0] * m->mon.scale;
	fold(r, c, (unsigned int)rm, (uint64_t)ms->owner[rm], d, x, now, false, v);
	/* counting again, but none of the interval was: it is unassigned for it */
	if (v->prev_time_ns && v->covered_ns == v->prev_covered_ns &&
	    (v->valid & (RDTALLOC_MON_EV_TOTAL | RDTALLOC_MON_EV_LOCAL))) {
		v->valid &= ~(unsigned int)(RDTALLOC_MON_EV_TOTAL | RDTALLOC_MON_EV_LOCAL);
		v->state = RDTALLOC_MON_UNASSIGNED;
	}
}

RDTALLOC_API int rdtalloc_mon_read(rdtalloc_t *r, const char *const *groups, size_t ngroups,
				   struct rdtalloc_mon_value *out, size_t max)
{
	size_t sz = max ? out[0].sz : 0, k = 0;
	struct raw *raw = NULL;
	struct counters c;
	unsigned int n = 0, d, i;
	int *gs = NULL, ret;
	uint64_t now = now_ns();

	if (!r || (!out && max) || (!groups && ngroups))
		return -EINVAL;
	if (max && (ret = rdt_mon_check_sized(r, sz, "rdtalloc_mon_value")))
		return ret;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = need_counters(r);
	if (!ret)
		ret = rdt_mon_pick_groups(r, groups, ngroups, &gs, &n);
	if (!ret && !(raw = calloc((size_t)rdt_mon(rdt_core_state(r))->nrmids *
				   rdt_mon(rdt_core_state(r))->ndom, sizeof(*raw))))
		ret = rdt_fail(r, -ENOMEM, "out of memory");
	if (!ret)
		ret = counters_open(r, &c);
	if (ret)
		goto out;
	ret = read_raw(r, c.map, gs, n, now, raw);
	/* group by group, each with its domains in ascending cache id */
	for (i = 0; !ret && i < n; i++) {
		for (d = 0; d < rdt_mon(rdt_core_state(r))->ndom; d++, k++) {
			struct rdtalloc_mon_value v = { 0 };

			if (k >= max)
				continue;
			v.sz = sz < sizeof(v) ? sz : sizeof(v);
			row(r, &c, gs[i], d, raw, now, &v);
			memcpy((char *)out + k * sz, &v, v.sz);
		}
	}
	/*
	 * Where counters are assigned, the read whose turn is due moves them
	 * on. A turn that could not move (the kernel refused a write) leaves
	 * the readings as they are, each with its covered time: the read says
	 * so and stands, and the next read tries again.
	 */
	if (!ret && turn(r, &c, now))
		rdt_core_warn(r, "the counters' turns did not move: %s", rdtalloc_errmsg(r));
	if (!ret)
		counters_prune(r, &c);
	ret = counters_close(r, &c, ret);
	if (!ret)
		ret = (int)(n * rdt_mon(rdt_core_state(r))->ndom);
out:
	free(raw);
	free(gs);
	return rdt_core_end(r, false, ret);
}

/* fn(r, the running totals' map, arg), under their lock. */
int rdt_mon_with_map(rdtalloc_t *r, int (*fn)(rdtalloc_t *r, json_object *map, void *arg),
		     void *arg)
{
	struct counters c;
	int ret = counters_open(r, &c);

	if (ret)
		return ret;
	ret = fn(r, c.map, arg);
	return counters_close(r, &c, ret);
}

