/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * atomic: the one way a file we persist is replaced (state.json,
 * counters.json, leases.json, agent.json): under the caller's lock, a
 * temporary NAME.tmp in the same directory, written, fsync'ed, renamed over
 * NAME, the directory fsync'ed. A crash leaves the old file or the new one,
 * whole; a failure leaves the old one and no temporary. Owns no format and
 * no context: the agent links this file too.
 */
#ifndef RDT_STORE_ATOMIC_H
#define RDT_STORE_ATOMIC_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/uio.h>

/*
 * Open (created 0600 when missing, never through a symlink) the lock file
 * path and take its exclusive flock, waiting for it. The descriptor, or
 * -errno with a message naming path in err.
 */
int rdt_atomic_lock(const char *path, char *err, size_t errlen);
/* Take (exclusive) or share the flock of an open lock file, waiting; 0 or -errno. */
int rdt_atomic_flock(int fd, int exclusive);
/* Release and close a lock of rdt_atomic_lock (fd < 0: nothing). */
void rdt_atomic_unlock(int fd);

/*
 * Replace path with the bytes of iov[0..iovcnt), crash-safely, as above; the
 * caller holds the lock that keeps other writers of path out (a leftover
 * temporary is a dead writer's and is removed). dirfd: the open directory
 * of path, or -1 to open it here. mode: of a new file (umask applies). sb
 * (may be NULL): the new file's stat. 0, or -errno with a message naming
 * path in err (may be NULL).
 */
int rdt_atomic_write(int dirfd, const char *path, const struct iovec *iov, int iovcnt,
		     mode_t mode, struct stat *sb, char *err, size_t errlen);

#endif
