/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cgroups: what the kernel says about cgroup v2 - where it is mounted, what
 * a path the user gives names, a cgroup's id, the cgroup of a task, the
 * threads of a subtree. Owns no state: bindings are the engine's
 * (struct rdt_cgroup). Paths in and out are relative to the cgroup2 mount
 * ("system.slice/x.service"; "" is the root).
 */
#ifndef RDT_CGROUPS_H
#define RDT_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Subtrees deeper than this below a bound cgroup are not walked (nor by the hook). */
#define RDT_CGROUP_DEPTH 32
/* Threads a subtree listing holds at most (a host's every thread). */
#define RDT_CGROUP_THREADS_MAX (4u << 20)

/* Where cgroup v2 is mounted (mounts: a mount table, NULL /proc/self/mounts). */
int rdt_cgroup_root(const char *mounts, char *buf, size_t len, char *err, size_t errlen);

/*
 * The cgroup a user names: "ROOT/a/b" (under the mount), "/a/b" (as
 * /proc/PID/cgroup writes it) or "a/b". Normalised into rel (no leading,
 * trailing or double '/'); ".", "..", control characters, the root itself,
 * over RDT_CGROUP_PATH_MAX bytes or RDT_CGROUP_DEPTH levels are refused.
 * It must exist and be a cgroup2 directory: *id gets its cgroup id.
 */
int rdt_cgroup_resolve(const char *root, const char *given, char *rel, size_t len,
		       uint64_t *id, char *err, size_t errlen);

/* The id of the cgroup at rel now; -ENOENT when it is gone. */
int rdt_cgroup_id(const char *root, const char *rel, uint64_t *id);

/* The cgroup v2 path of a thread (relative, "" the root); -ESRCH when it has exited. */
int rdt_task_cgroup(pid_t tid, char *rel, size_t len);

/*
 * The threads of cgroup rel and its descendants (cgroup.threads), skipping
 * each descendant for which skip(rel, arg) is true (bound elsewhere) with
 * everything below it. Appended to *out / *n (malloc'd, unsorted).
 */
int rdt_cgroup_threads(const char *root, const char *rel,
		       bool (*skip)(const char *rel, void *arg), void *arg,
		       pid_t **out, size_t *n, size_t *cap);

#endif
