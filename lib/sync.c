// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sync: keeping a declared state true between commands (rdtalloc_sync,
 * rdtalloc_place_tasks; the agent's two calls, docs/agent.md). Each is one
 * transaction of the core; what it does to the backend is the backend's
 * own sync and place_tasks ops, and containers gone without poststop are
 * lib/oci's. Owns no state of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "context.h"
#include "errors.h"
#include "oci/oci.h"

#define PLACE_MAX 65536		/* tasks placed by one call */

static size_t sized(size_t asked, size_t ours)
{
	return asked < ours ? asked : ours;
}

RDTALLOC_API int rdtalloc_sync(rdtalloc_t *r, unsigned int flags, struct rdtalloc_sync_report *rep)
{
	struct rdtalloc_sync_report out = { .sz = sizeof(out) };
	struct rdt_sync_out so = { 0 };
	int ret, released;

	if (!r)
		return -EINVAL;
	if (rep && rep->sz < sizeof(size_t))
		return rdt_fail(r, -EINVAL, "rdtalloc_sync_report.sz is not set");
	if (flags & ~RDTALLOC_SYNC_FULL)
		return rdt_fail(r, -EINVAL, "rdtalloc_sync: unknown flags %#x", flags);
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	if (rdt_core_backend(r)->ops->sync)
		ret = rdt_core_backend(r)->ops->sync(r, flags & RDTALLOC_SYNC_FULL, &so);
	released = ret ? 0 : rdt_oci_gc(r);
	if (released < 0)
		ret = released;
	if (!ret && (so.state_changed || released))
		rdt_core_mark_dirty(r);
	if (!ret && so.state_changed) {
		rdt_core_mark_groups_changed(r);
		rdt_core_mark_cgroups_changed(r);
	}
	ret = rdt_core_end(r, true, ret);
	if (ret)
		return ret;
	out.repairs = so.repairs;
	out.tasks_moved = so.moved;
	out.dropped = so.dropped;
	out.containers_released = (unsigned int)released;
	out.strays_left = so.strays_left;
	out.strays_moved = so.strays_moved;
	snprintf(out.what, sizeof(out.what), "%s", so.what);
	if (released) {
		size_t n = strlen(out.what);

		snprintf(out.what + n, sizeof(out.what) - n, "%s%d container%s gone without "
			 "poststop released", n ? "; " : "", released, released == 1 ? "" : "s");
	}
	if (rep) {
		out.sz = sized(rep->sz, sizeof(out));
		memcpy(rep, &out, out.sz);
	}
	return 0;
}

RDTALLOC_API int rdtalloc_place_tasks(rdtalloc_t *r, const pid_t *tids, size_t n,
				      unsigned int *moved)
{
	unsigned int m = 0;
	size_t i;
	int ret;

	if (!r)
		return -EINVAL;
	if (moved)
		*moved = 0;
	if (n && !tids)
		return rdt_fail(r, -EINVAL, "rdtalloc_place_tasks: tids is NULL");
	if (n > PLACE_MAX)
		return rdt_fail(r, -E2BIG, "%zu tasks: at most %d at once", n, PLACE_MAX);
	for (i = 0; i < n; i++)
		if (tids[i] <= 0)
			return rdt_fail(r, -EINVAL, "task id %d: not a task", (int)tids[i]);
	if (!n || !rdt_core_backend(r)->ops->place_tasks)
		return 0;	/* membership follows by itself (the switch hook), or not at all */
	/* the state is only read: its lock shared, so commands and containers never wait */
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	ret = rdt_core_backend(r)->ops->place_tasks(r, tids, n, &m);
	ret = rdt_core_end(r, false, ret);
	if (!ret && moved)
		*moved = m;
	return ret;
}

struct drift_walk {
	struct rdtalloc_drift_item *out;
	size_t max, n, stride;
};

static int drift_one(const char *group, const char *what, void *arg)
{
	struct drift_walk *w = arg;

	if (w->n < w->max) {
		struct rdtalloc_drift_item d = { .sz = w->stride < sizeof(d) ? w->stride : sizeof(d) };
		char *at = (char *)w->out + w->n * w->stride;

		snprintf(d.group, sizeof(d.group), "%s", group);
		snprintf(d.what, sizeof(d.what), "%s", what);
		memcpy(at, &d, d.sz);
	}
	w->n++;
	return w->n > 65536;	/* enough to say something is badly wrong */
}

RDTALLOC_API int rdtalloc_drift(rdtalloc_t *r, struct rdtalloc_drift_item *out, size_t max)
{
	struct drift_walk w = { .out = out, .max = max };
	int ret;

	if (!r)
		return -EINVAL;
	if (max && (!out || out[0].sz < sizeof(size_t)))
		return rdt_fail(r, -EINVAL, "rdtalloc_drift: out is NULL or out[0].sz is not set");
	if (max)
		w.stride = out[0].sz;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	if (rdt_core_backend(r)->ops->drift && !rdt_core_peek(r))
		ret = rdt_core_backend(r)->ops->drift(r, drift_one, &w);
	ret = rdt_core_end(r, false, ret < 0 ? ret : 0);
	if (ret)
		return ret;
	return w.n > (size_t)INT32_MAX ? INT32_MAX : (int)w.n;
}
