// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cgbind: cgroup bindings as the backends without a kernel owner of
 * membership see them (sim, msr without the hook, and the hook's user
 * side): a task's group through its cgroup, the tasks a group holds
 * through its cgroups, and dropping bindings of cgroups that were removed.
 * The rule everywhere: a task's own binding, else its deepest bound cgroup
 * (itself or an ancestor), else the default group. A binding counts only
 * while its cgroup has the id it had when bound: a cgroup removed and made
 * again under the same path is another cgroup. And who may bind a cgroup:
 * root, or the owner of a delegated cgroup whose every task is theirs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cgroups.h"
#include "context.h"
#include "errors.h"
#include "tasks.h"

/* The cgroup2 mount, looked up once per context; NULL (errmsg set) when there is none. */
const char *rdt_core_cgroup_root(struct rdtalloc *r)
{
	char err[RDT_ERRMSG_MAX];
	size_t len;
	char *root = rdt_core_cgroup_root_cache(r, &len);
	int ret;

	if (root[0])
		return root;
	ret = rdt_cgroup_root(rdt_core_env(r)->mounts, root, len, err, sizeof(err));
	if (ret) {
		root[0] = '\0';
		rdt_fail(r, ret, "%s", err);
		return NULL;
	}
	return root;
}

/* Binding i still names the cgroup it was made for. */
static bool binding_alive(struct rdtalloc *r, const char *root, const struct rdt_cgroup *c)
{
	uint64_t id;

	(void)r;
	return !rdt_cgroup_id(root, c->path, &id) && id == c->id;
}

int rdt_core_cgroup_path_group(struct rdtalloc *r, const char *rel)
{
	return rdt_core_cgroup_path_group_in(r, rdt_core_state(r), rel);
}

/* The live binding of rel or of its nearest bound ancestor; NULL: none. */
static const struct rdt_cgroup *path_binding(struct rdtalloc *r, const struct rdt_state *st,
					     const char *rel)
{
	char buf[RDT_CGROUP_PATH_MAX];
	const struct rdt_cgroup *c;
	const char *root;
	char *slash;

	if (!st->ncgroups || strlen(rel) >= sizeof(buf) || !(root = rdt_core_cgroup_root(r)))
		return NULL;
	strcpy(buf, rel);
	while (buf[0]) {
		c = rdt_cgroup_find(st, buf);
		if (c && binding_alive(r, root, c))
			return c;
		slash = strrchr(buf, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return NULL;
}

int rdt_core_cgroup_path_group_in(struct rdtalloc *r, const struct rdt_state *st, const char *rel)
{
	const struct rdt_cgroup *c = path_binding(r, st, rel);

	return c ? c->group : 0;
}

const struct rdt_cgroup *rdt_core_cgroup_task_binding(struct rdtalloc *r, pid_t tid)
{
	char rel[RDT_CGROUP_PATH_MAX];

	if (!rdt_core_state(r)->ncgroups || rdt_core_machine(r)->virtual_tasks ||
	    rdt_task_cgroup(tid, rel, sizeof(rel)))
		return NULL;
	return path_binding(r, rdt_core_state(r), rel);
}

int rdt_core_cgroup_task_group(struct rdtalloc *r, pid_t tid)
{
	return rdt_core_cgroup_task_group_in(r, rdt_core_state(r), tid);
}

int rdt_core_cgroup_task_group_in(struct rdtalloc *r, const struct rdt_state *st, pid_t tid)
{
	char rel[RDT_CGROUP_PATH_MAX];

	if (!st->ncgroups || rdt_core_machine(r)->virtual_tasks ||
	    rdt_task_cgroup(tid, rel, sizeof(rel)))
		return 0;
	return rdt_core_cgroup_path_group_in(r, st, rel);
}

struct skip_arg {
	const struct rdt_state *st;
	int g;
};

/* A cgroup below one of g's that is bound itself belongs to its own binding. */
static bool skip_bound(const char *rel, void *arg)
{
	const struct skip_arg *a = arg;
	const struct rdt_cgroup *c = rdt_cgroup_find(a->st, rel);

	return c && c->group != a->g;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * The threads of the live cgroups bound to g and below them (g -1: to any
 * group), ascending and each once. Below a cgroup of g, those bound to
 * another group are left out; tasks with a binding of their own are the
 * caller's to leave out.
 */
int rdt_core_cgroup_members(struct rdtalloc *r, int g, pid_t **out, size_t *n)
{
	return rdt_core_cgroup_members_in(r, rdt_core_state(r), g, out, n);
}

int rdt_core_cgroup_members_in(struct rdtalloc *r, const struct rdt_state *st, int g,
			       pid_t **out, size_t *n)
{
	struct skip_arg arg = { .st = st, .g = g };
	size_t cap = 0, i, k = 0;
	const char *root;
	unsigned int b;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!st->ncgroups || rdt_core_machine(r)->virtual_tasks)
		return 0;
	root = rdt_core_cgroup_root(r);
	if (!root)
		return -ENOENT;
	for (b = 0; !ret && b < st->ncgroups; b++) {
		const struct rdt_cgroup *c = &st->cgroups[b];

		if ((g >= 0 && c->group != g) || !binding_alive(r, root, c))
			continue;
		arg.g = g >= 0 ? g : -1;
		/* with g -1 every bound cgroup is walked on its own: skip them all below */
		ret = rdt_cgroup_threads(root, c->path, g >= 0 ? skip_bound : NULL, &arg, out, n,
					 &cap);
	}
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
		if (ret == -E2BIG)
			return rdt_fail(r, ret, "the bound cgroups hold more than %u threads",
					RDT_CGROUP_THREADS_MAX);
		return rdt_fail(r, ret, "cannot list the threads of the bound cgroups: %s",
				strerror(-ret));
	}
	if (*n)
		qsort(*out, *n, sizeof(pid_t), cmp_pid);
	for (i = 0; i < *n; i++)
		if (!k || (*out)[k - 1] != (*out)[i])
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}

unsigned int rdt_core_cgroup_gc(struct rdtalloc *r)
{
	unsigned int i = 0, dropped = 0;
	const char *root;

	if (!rdt_core_state(r)->ncgroups || !(root = rdt_core_cgroup_root(r))) {
		rdt_clear_err(r);
		return 0;
	}
	while (i < rdt_core_state(r)->ncgroups) {
		const struct rdt_cgroup *c = &rdt_core_state(r)->cgroups[i];

		if (!binding_alive(r, root, c)) {
			char path[RDT_CGROUP_PATH_MAX];

			const char *w = rdt_owner_suspend(rdt_core_state(r));

			/* a removed cgroup's binding is nobody's to keep: housekeeping */
			strcpy(path, c->path);
			/* shifts the next one here */
			rdt_bind_cgroup(rdt_core_state(r), 0, path, 0);
			rdt_owner_resume(rdt_core_state(r), w);
			dropped++;
			continue;
		}
		i++;
	}
	return dropped;
}

/*
 * May the caller bind cgroup rel (or unbind it)? Root may. Anyone else
 * only what they could arrange themselves: they own the cgroup's directory
 * and its cgroup.procs (a delegated subtree: the files that move tasks in),
 * and every thread the subtree holds now is theirs - the rule of task
 * binding, for every task the binding takes. The tasks that join later are
 * those the owner or root moves in.
 */
int rdt_core_cgroup_may_bind(struct rdtalloc *r, const char *rel)
{
	char path[PATH_MAX + 32];
	const char *root = rdt_core_cgroup_root(r);
	pid_t *tids = NULL;
	size_t n = 0, cap = 0, i;
	uid_t me = geteuid(), uid;
	uint64_t start;
	struct stat sb;
	int ret;

	if (!me)
		return 0;
	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (stat(path, &sb))
		return rdt_fail(r, -errno, "cgroup %s: %s", rel, strerror(errno));
	if (sb.st_uid != me)
		return rdt_fail(r, -EPERM, "not allowed to bind cgroup %s: it belongs to uid %u "
				"(only root, or the owner of a delegated cgroup, may)", rel,
				(unsigned int)sb.st_uid);
	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", root, rel);
	if (stat(path, &sb))
		return rdt_fail(r, -errno, "cgroup %s: %s: %s", rel, path, strerror(errno));
	if (sb.st_uid != me)
		return rdt_fail(r, -EPERM, "not allowed to bind cgroup %s: its cgroup.procs belongs "
				"to uid %u (it is not delegated to you)", rel,
				(unsigned int)sb.st_uid);
	ret = rdt_cgroup_threads(root, rel, NULL, NULL, &tids, &n, &cap);
	if (ret) {
		free(tids);
		return rdt_fail(r, ret, "cgroup %s: cannot list its threads: %s", rel,
				strerror(-ret));
	}
	for (i = 0, ret = 0; i < n && !ret; i++) {
		if (rdt_task_info(tids[i], &start, &uid))
			continue;	/* gone meanwhile */
		if (uid != me)
			ret = rdt_fail(r, -EPERM, "not allowed to bind cgroup %s: it holds task %d, "
				       "which belongs to uid %u", rel, (int)tids[i],
				       (unsigned int)uid);
	}
	free(tids);
	return ret;
}

