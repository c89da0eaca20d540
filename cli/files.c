// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * files: the files a user names on rdtctl's command line, opened so that
 * naming the wrong thing cannot hang rdtctl or hurt a file of someone
 * else's. Inputs: a FIFO, a device, a socket or a directory is refused at
 * once (opened non-blocking, its type checked before a byte is read);
 * standard input is "-". Outputs: never through a symlink, never into a
 * file that is not a regular file of the caller's with one link, never
 * truncated before those checks passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdtctl.h"

static const char *kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO (named pipe)";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Back to blocking I/O once the type is known to be a regular file. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

FILE *open_input(const char *path, const char *what)
{
	struct stat sb;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdin;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fail_msg("cannot open %s %s: %s", what, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb)) {
		fail_msg("cannot open %s %s: %s", what, path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		fail_msg("%s %s is %s: give a regular file, or - and the data on standard input",
			 what, path, kind(sb.st_mode));
		close(fd);
		return NULL;
	}
	if (blocking(fd) || !(f = fdopen(fd, "r"))) {
		fail_msg("cannot open %s %s: %s", what, path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

FILE *create_output(const char *path, const char *what)
{
	struct stat sb;
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		int e = errno;

		/* a FIFO without a reader (ENXIO), a directory (EISDIR): say which */
		if (e == ELOOP)
			fail_msg("%s %s is a symlink: rdtctl does not write through one", what,
				 path);
		else if (!lstat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
			fail_msg("%s %s is %s: rdtctl writes only regular files", what, path,
				 kind(sb.st_mode));
		else
			fail_msg("cannot write %s %s: %s", what, path, strerror(e));
		return NULL;
	}
	if (fstat(fd, &sb)) {
		fail_msg("cannot write %s %s: %s", what, path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		fail_msg("%s %s is %s: rdtctl writes only regular files", what, path,
			 kind(sb.st_mode));
		close(fd);
		return NULL;
	}
	if (sb.st_uid != geteuid() || sb.st_nlink != 1) {
		fail_msg("%s %s %s: rdtctl overwrites only files of its own user with one link",
			 what, path, sb.st_uid != geteuid() ? "belongs to another user" :
			 "has other hard links");
		close(fd);
		return NULL;
	}
	if (ftruncate(fd, 0) || blocking(fd) || !(f = fdopen(fd, "w"))) {
		fail_msg("cannot write %s %s: %s", what, path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}
