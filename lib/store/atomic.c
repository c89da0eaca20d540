// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * atomic: lock files and the crash-safe replacement of a file (atomic.h).
 *
 * Each file we persist used to have its own discipline (one fsync'ed the
 * directory, one not even the file); here is the one they share, so that
 * a crash or a full disk leaves every one of them as it was or as it is
 * meant to be, and a failure says which file and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "atomic.h"

#define TMP_SUFFIX ".tmp"

static int fail(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return code;
}

int rdt_atomic_flock(int fd, int exclusive)
{
	while (flock(fd, exclusive ? LOCK_EX : LOCK_SH)) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int rdt_atomic_lock(const char *path, char *err, size_t len)
{
	int fd, ret;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(err, len, -errno, "cannot lock %s: %s", path, strerror(errno));
	ret = rdt_atomic_flock(fd, 1);
	if (ret) {
		close(fd);
		return fail(err, len, ret, "cannot lock %s: %s", path, strerror(-ret));
	}
	return fd;
}

void rdt_atomic_unlock(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}

/* All of iov, resuming after short writes and signals. */
static int write_iov(int fd, const struct iovec *iov, int iovcnt)
{
	for (int i = 0; i < iovcnt; i++) {
		const char *p = iov[i].iov_base;
		size_t n = iov[i].iov_len;

		while (n) {
			ssize_t w = write(fd, p, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			p += w;
			n -= (size_t)w;
		}
	}
	return 0;
}

/* The temporary: written whole and on disk, or removed. */
static int write_tmp(int dirfd, const char *tmp, const struct iovec *iov, int iovcnt,
		     mode_t mode, struct stat *sb)
{
	int fd, ret;

	/* The caller holds the lock: a leftover temporary is a dead writer's. */
	unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	ret = write_iov(fd, iov, iovcnt);
	if (!ret && fsync(fd))
		ret = -errno;
	if (!ret && sb && fstat(fd, sb))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	return ret;
}

int rdt_atomic_write(int dirfd, const char *path, const struct iovec *iov, int iovcnt,
		     mode_t mode, struct stat *sb, char *err, size_t len)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	int own = -1, ret;

	if (!name[0])
		return fail(err, len, -EISDIR, "cannot write %s: not a file name", path);
	if (strlen(name) + sizeof(TMP_SUFFIX) > sizeof(tmp) ||
	    strlen(path) + sizeof(TMP_SUFFIX) > sizeof(dir))
		return fail(err, len, -ENAMETOOLONG, "cannot write %s: %s", path,
			    strerror(ENAMETOOLONG));
	snprintf(tmp, sizeof(tmp), "%s" TMP_SUFFIX, name);
	if (dirfd < 0) {
		if (!slash || slash == path)
			snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		own = dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return fail(err, len, -errno, "cannot write %s: directory %s: %s", path,
				    dir, strerror(errno));
	}
	ret = write_tmp(dirfd, tmp, iov, iovcnt, mode, sb);
	if (!ret && renameat(dirfd, tmp, dirfd, name)) {
		ret = -errno;
		unlinkat(dirfd, tmp, 0);
	}
	if (ret) {
		fail(err, len, ret, "cannot write %s: %s", path, strerror(-ret));
	} else {
		/*
		 * The rename is what the next reader sees; a failed fsync of the
		 * directory cannot take it back, so the call has succeeded.
		 */
		fsync(dirfd);
	}
	if (own >= 0)
		close(own);
	return ret;
}
