// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_store_atomic: lib/store/atomic.c, the one way a file we persist is
 * replaced. After every call the file is whole (the old bytes or the new
 * ones), no temporary is left, and a failure is the exact -errno with a
 * message naming the file: a read-only directory, a full file system, a name
 * too long, a temporary that cannot be made, a rename that cannot happen.
 * The read-only directory and the full file system are made in a child's
 * own mount namespace (a read-only bind mount, a 16 KiB tmpfs): root ignores
 * a directory's mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_api_util.h"
#include "store/atomic.h"

static char dir[64];

/* room for a path and a message around it */
#define MSG (PATH_MAX + 512)

static int setup(void **state)
{
	(void)state;
	umask(022);
	tu_mkdtemp(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_rf(dir);
	return 0;
}

static char *path_of(const char *name)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* The whole content of path, or "<errno text>" when it cannot be read. */
static const char *content(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(buf, sizeof(buf), "<%s>", strerror(errno));
		return buf;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Replace path with s through the store; the call's return. */
static int put(const char *path, const char *s, mode_t mode, char *err, size_t len)
{
	struct iovec iov = { .iov_base = (void *)s, .iov_len = strlen(s) };

	return rdt_atomic_write(-1, path, &iov, 1, mode, NULL, err, len);
}

/* How many entries the test directory holds (no temporary: only the files written). */
static int entries(const char *d)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void replaces_whole(void **state)
{
	char *path = strdup(path_of("state.json")), err[256] = "";
	struct iovec iov[2] = { { .iov_base = "{\"a\": 1}", .iov_len = 8 },
				{ .iov_base = "\n", .iov_len = 1 } };
	struct stat sb, now;

	(void)state;
	assert_int_equal(put(path, "first", 0600, err, sizeof(err)), 0);
	assert_string_equal(content(path), "first");
	assert_int_equal(rdt_atomic_write(-1, path, iov, 2, 0600, &sb, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(content(path), "{\"a\": 1}\n");
	/* the stat handed back is the file's in place (the state file's identity) */
	assert_int_equal(stat(path, &now), 0);
	assert_int_equal(sb.st_ino, now.st_ino);
	assert_int_equal(sb.st_size, 9);
	assert_int_equal(now.st_mode & 07777, 0600);
	assert_int_equal(entries(dir), 1);
	free(path);
}

/* mode is a new file's, less the umask, as fopen's 0666 was for agent.json */
static void mode_and_umask(void **state)
{
	struct stat sb;

	(void)state;
	assert_int_equal(put(path_of("agent.json"), "{}\n", 0666, NULL, 0), 0);
	assert_int_equal(stat(path_of("agent.json"), &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0644);
}

/* A dead writer's temporary is replaced, not appended to, and gone after. */
static void leftover_temporary(void **state)
{
	int fd;

	(void)state;
	fd = open(path_of("leases.json.tmp"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half a file, much longer than the new", 37), 37);
	close(fd);
	assert_int_equal(put(path_of("leases.json"), "new", 0600, NULL, 0), 0);
	assert_string_equal(content(path_of("leases.json")), "new");
	assert_int_equal(access(path_of("leases.json.tmp"), F_OK), -1);
	assert_int_equal(entries(dir), 1);
}

static void name_too_long(void **state)
{
	char name[NAME_MAX + 1], path[PATH_MAX], err[MSG], want[MSG];

	(void)state;
	/* the name itself fits, NAME.tmp does not */
	memset(name, 'n', NAME_MAX - 2);
	name[NAME_MAX - 2] = '\0';
	assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path));
	assert_int_equal(put(path, "x", 0600, err, sizeof(err)), -ENAMETOOLONG);
	snprintf(want, sizeof(want), "cannot write %s: File name too long", path);
	assert_string_equal(err, want);
	assert_int_equal(entries(dir), 0);
}

static void missing_directory(void **state)
{
	char path[PATH_MAX], err[MSG], want[MSG];

	(void)state;
	assert_true(snprintf(path, sizeof(path), "%s/none/counters.json", dir) < (int)sizeof(path));
	assert_int_equal(put(path, "x", 0600, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "cannot write %s: directory %s/none: No such file or "
		 "directory", path, dir);
	assert_string_equal(err, want);
}

/* A temporary that cannot be made (a directory in its place): the file as it was. */
static void temporary_blocked(void **state)
{
	char *path = strdup(path_of("state.json")), err[MSG], want[MSG];

	(void)state;
	assert_int_equal(put(path, "old", 0600, NULL, 0), 0);
	assert_int_equal(mkdir(path_of("state.json.tmp"), 0700), 0);
	assert_int_equal(put(path, "new", 0600, err, sizeof(err)), -EEXIST);
	snprintf(want, sizeof(want), "cannot write %s: File exists", path);
	assert_string_equal(err, want);
	assert_string_equal(content(path), "old");
	free(path);
}

/* A rename that cannot happen (a directory named as the file): no temporary left. */
static void rename_fails(void **state)
{
	char *path = strdup(path_of("counters.json")), err[MSG], want[MSG];

	(void)state;
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(mkdir(path_of("counters.json/x"), 0700), 0);
	assert_int_equal(put(path, "new", 0600, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "cannot write %s: Is a directory", path);
	assert_string_equal(err, want);
	assert_int_equal(access(path_of("counters.json.tmp"), F_OK), -1);
	assert_int_equal(entries(dir), 1);
	free(path);
}

/*
 * In a child with its own mount namespace: dir made read-only (ro) or a
 * 16 KiB tmpfs (!ro), "old" written first when the mount allows it, then
 * big (or "new") written; the child prints what it saw into out.
 */
static void in_mount(bool ro, size_t big, char *out, size_t len)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char *path = path_of("state.json"), err[256] = "", *buf = malloc(big + 1);
		int ret = -1;
		FILE *f = fdopen(pipefd[1], "w");

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			fprintf(f, "no namespace: %s", strerror(errno));
			_exit(0);
		}
		if (ro) {
			put(path, "old", 0600, NULL, 0);
			if (mount(dir, dir, NULL, MS_BIND, NULL) ||
			    mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
				_exit(2);
		} else {
			if (mount("tmpfs", dir, "tmpfs", 0, "size=16k,mode=0700"))
				_exit(2);
			put(path, "old", 0600, NULL, 0);
		}
		memset(buf, 'x', big);
		buf[big] = '\0';
		ret = put(path, big ? buf : "new", 0600, err, sizeof(err));
		fprintf(f, "%d|%s|%s|%d", ret, err, content(path), entries(dir));
		fclose(f);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	if (!strncmp(out, "no namespace", 12)) {
		print_message("[  SKIPPED ] %s\n", out);
		skip();
	}
}

static void read_only_directory(void **state)
{
	char out[MSG], want[MSG];

	(void)state;
	in_mount(true, 0, out, sizeof(out));
	snprintf(want, sizeof(want), "%d|cannot write %s: Read-only file system|old|1", -EROFS,
		 path_of("state.json"));
	assert_string_equal(out, want);
	assert_string_equal(content(path_of("state.json")), "old");
}

static void no_space(void **state)
{
	char out[MSG], want[MSG];

	(void)state;
	in_mount(false, 64 << 10, out, sizeof(out));
	snprintf(want, sizeof(want), "%d|cannot write %s: No space left on device|old|1",
		 -ENOSPC, path_of("state.json"));
	assert_string_equal(out, want);
}

/* The lock is exclusive while held, made 0600, never taken through a symlink. */
static void lock_exclusive(void **state)
{
	char *path = strdup(path_of("leases.lock")), err[MSG], want[MSG];
	struct stat sb;
	int fd, other;

	(void)state;
	fd = rdt_atomic_lock(path, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	other = open(path, O_RDWR | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	rdt_atomic_unlock(fd);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
	assert_int_equal(symlink(path, path_of("link.lock")), 0);
	assert_int_equal(rdt_atomic_lock(path_of("link.lock"), err, sizeof(err)), -ELOOP);
	snprintf(want, sizeof(want), "cannot lock %s: Too many levels of symbolic links",
		 path_of("link.lock"));
	assert_string_equal(err, want);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(replaces_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(mode_and_umask, setup, teardown),
		cmocka_unit_test_setup_teardown(leftover_temporary, setup, teardown),
		cmocka_unit_test_setup_teardown(name_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(temporary_blocked, setup, teardown),
		cmocka_unit_test_setup_teardown(rename_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(read_only_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(no_space, setup, teardown),
		cmocka_unit_test_setup_teardown(lock_exclusive, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
