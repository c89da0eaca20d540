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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The whole stream, read as it comes (a pipe, /dev/zero) and stopped at
 * max bytes or at the first NUL byte - not after reading it all; NULL
 * (reported) on error.
 */
static char *slurp(FILE *f, const char *path, const char *what, size_t max)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *nb;

	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		if (memchr(buf + len, '\0', n)) {
			fail_msg("%s holds a NUL byte (at offset %zu): it is not a %s", path,
				 len + (size_t)((char *)memchr(buf + len, '\0', n) - (buf + len)), what);
			free(buf);
			return NULL;
		}
		len += n;
		if (ferror(f)) {
			fail_msg("cannot read %s: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		if (len > max) {
			fail_msg("%s is larger than %zu MiB, the most a %s may be", path, max >> 20,
				 what);
			free(buf);
			return NULL;
		}
		if (feof(f)) {
			buf[len] = '\0';
			return buf;
		}
		if (len + 1 == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	fail_msg("out of memory reading %s", path);
	return NULL;
}

char *read_input(const char *path, const char *what, size_t max)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = open_input(path, what);
	char *buf;

	if (!f)
		return NULL;
	buf = slurp(f, is_stdin ? "standard input" : path, what, max);
	if (!is_stdin)
		fclose(f);
	return buf;
}
