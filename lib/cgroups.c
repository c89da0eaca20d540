// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cgroups: cgroup v2 as the kernel shows it (Documentation/admin-guide/
 * cgroup-v2.rst). A cgroup's id is the inode number of its directory, the
 * same number the BPF program reads as kernfs_node->id, so the library and
 * the switch hook name a cgroup alike. Every path that comes in is
 * normalised and bounded before it reaches a system call.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroups.h"
#include "hw/engine.h"
#include "mounts.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

int rdt_cgroup_root(const char *mounts, char *buf, size_t len, char *err, size_t errlen)
{
	int ret = rdt_fs_mounted_at(mounts ? mounts : "/proc/self/mounts", "cgroup2",
				    CGROUP2_SUPER_MAGIC, buf, len);

	if (ret < 0) {
		snprintf(err, errlen, "cannot read the mount table: %s", strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		snprintf(err, errlen, "cgroup v2 is not mounted (mount -t cgroup2 none "
			 "/sys/fs/cgroup); cgroups can be bound only there");
		return -ENOENT;
	}
	return 0;
}

/* given without the mount point or the leading '/', or NULL when it is not under it. */
static const char *strip_root(const char *root, const char *given)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!strncmp(given, root, n) && (given[n] == '/' || !given[n]))
		given += n;
	while (*given == '/')
		given++;
	return given;
}

/* Components of p, one '/' between them, into rel; the number of levels or -errno. */
static int normalise(const char *p, char *rel, size_t len, char *err, size_t errlen)
{
	size_t o = 0;
	int depth = 0;

	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(err, errlen, "cgroup path: '%.*s' is not allowed; name the cgroup "
				 "itself", (int)n, p);
			return -EINVAL;
		}
		/*
		 * A configuration line cannot hold what the file format takes for
		 * a comment or trims: refused here, so what is bound can be saved.
		 */
		if (n && (memchr(p, '#', n) || p[0] == ' ' || p[n - 1] == ' ')) {
			snprintf(err, errlen, "cgroup path: '%.*s' %s, which a configuration file "
				 "cannot hold; bind a cgroup whose name has neither", (int)n, p,
				 memchr(p, '#', n) ? "holds a '#'" : "begins or ends with a blank");
			return -EINVAL;
		}
		if (n) {
			if (++depth > RDT_CGROUP_DEPTH) {
				snprintf(err, errlen, "cgroup path is more than %d levels deep",
					 RDT_CGROUP_DEPTH);
				return -EINVAL;
			}
			if (o + n + 2 > len) {
				snprintf(err, errlen, "cgroup path is longer than %zu bytes", len - 1);
				return -ENAMETOOLONG;
			}
			if (o)
				rel[o++] = '/';
			memcpy(rel + o, p, n);
			o += n;
		}
		p += n + (e ? 1 : 0);
	}
	rel[o] = '\0';
	return depth;
}

int rdt_cgroup_resolve(const char *root, const char *given, char *rel, size_t len,
		       uint64_t *id, char *err, size_t errlen)
{
	char path[PATH_MAX + RDT_CGROUP_PATH_MAX];
	struct statfs fs;
	struct stat sb;
	size_t n, i;
	int ret;

	if (!given || !given[0]) {
		snprintf(err, errlen, "no cgroup path given");
		return -EINVAL;
	}
	n = strnlen(given, RDT_CGROUP_PATH_MAX);
	if (n >= RDT_CGROUP_PATH_MAX) {
		snprintf(err, errlen, "cgroup path is longer than %d bytes", RDT_CGROUP_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)given[i] < 0x20 || given[i] == 0x7f) {
			snprintf(err, errlen, "cgroup path has a control character at byte %zu", i);
			return -EINVAL;
		}
	ret = normalise(strip_root(root, given), rel, len, err, errlen);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		snprintf(err, errlen, "the root cgroup holds every task: give the default group "
			 "a schema instead of binding the root");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (stat(path, &sb)) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(err, errlen, "no cgroup %s under %s%s", rel, root,
				 given[0] == '/' && strip_root(root, given) == given + 1 ?
				 " (a path starting with '/' is read as /proc/PID/cgroup writes "
				 "it, relative to the cgroup2 mount)" : "");
		else
			snprintf(err, errlen, "cgroup %s under %s: %s", rel, root, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(sb.st_mode) || statfs(path, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, errlen, "%s is not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	*id = (uint64_t)sb.st_ino;
	return 0;
}

int rdt_cgroup_id(const char *root, const char *rel, uint64_t *id)
{
	char path[PATH_MAX + RDT_CGROUP_PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (stat(path, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOENT;
	*id = (uint64_t)sb.st_ino;
	return 0;
}

/* At most max bytes of a small kernel file, NUL-terminated; its length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t max)
{
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (used + 1 < max) {
		ssize_t r = read(fd, buf + used, max - 1 - used);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		used += (size_t)r;
	}
	close(fd);
	buf[used] = '\0';
	return (ssize_t)used;
}

int rdt_task_cgroup(pid_t tid, char *rel, size_t len)
{
	char path[64], buf[RDT_CGROUP_PATH_MAX + 256], *line, *nl;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	/* the unified hierarchy's line is "0::/path" */
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "0::/", 4))
			continue;
		line += 4;
		if (strlen(line) >= len)
			return -ENAMETOOLONG;
		strcpy(rel, line);
		return 0;
	}
	return -ENOENT;
}

static int add_tid(pid_t **out, size_t *n, size_t *cap, pid_t tid)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		pid_t *v;

		if (nc > RDT_CGROUP_THREADS_MAX)
			return -E2BIG;
		v = realloc(*out, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		*out = v;
		*cap = nc;
	}
	(*out)[(*n)++] = tid;
	return 0;
}

/* cgroup.threads of one cgroup, read in pieces (it lists a thread per line). */
static int read_threads(const char *dir, pid_t **out, size_t *n, size_t *cap)
{
	char path[PATH_MAX + RDT_CGROUP_PATH_MAX + 32], buf[4096];
	long v = 0;
	bool in = false;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;	/* removed meanwhile: no threads */
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = errno == ENODEV ? 0 : -errno;
			break;
		}
		if (r == 0)
			break;
		for (ssize_t i = 0; i < r && !ret; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' && v < INT_MAX / 10) {
				v = v * 10 + (buf[i] - '0');
				in = true;
			} else if (in) {
				ret = add_tid(out, n, cap, (pid_t)v);
				v = 0;
				in = false;
			}
		}
		if (ret)
			break;
	}
	if (!ret && in)
		ret = add_tid(out, n, cap, (pid_t)v);
	close(fd);
	return ret;
}

static int walk(const char *root, char *rel, size_t len, int depth,
		bool (*skip)(const char *rel, void *arg), void *arg,
		pid_t **out, size_t *n, size_t *cap)
{
	char dir[PATH_MAX + RDT_CGROUP_PATH_MAX];
	size_t base = strlen(rel);
	struct dirent *e;
	DIR *d;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	ret = read_threads(dir, out, n, cap);
	if (ret || depth >= RDT_CGROUP_DEPTH)
		return ret;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_type != DT_DIR || e->d_name[0] == '.' || base + l + 2 > len)
			continue;
		rel[base] = '/';
		memcpy(rel + base + 1, e->d_name, l + 1);
		if (!skip || !skip(rel, arg))
			ret = walk(root, rel, len, depth + 1, skip, arg, out, n, cap);
		rel[base] = '\0';
	}
	closedir(d);
	return ret;
}

int rdt_cgroup_threads(const char *root, const char *rel,
		       bool (*skip)(const char *rel, void *arg), void *arg,
		       pid_t **out, size_t *n, size_t *cap)
{
	char buf[RDT_CGROUP_PATH_MAX];

	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, rel);
	return walk(root, buf, sizeof(buf), 0, skip, arg, out, n, cap);
}
