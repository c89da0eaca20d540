// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tasks: reading /proc. /proc/TID/stat answers for any thread id, not only
 * for thread-group leaders, which is what binding threads needs.
 */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tasks.h"

int rdt_task_info(pid_t tid, uint64_t *start, uid_t *uid)
{
	char path[64], buf[1024], *p;
	struct stat sb;
	unsigned long long st = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	if (fstat(fd, &sb)) {
		close(fd);
		return -ESRCH;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields resume after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -ESRCH;
	p++;
	/*
	 * Field 3, the state: a zombie (Z) or dead (X) task has exited, though
	 * its /proc entry stays until it is reaped - which an init that does not
	 * reap (containers) may never do. An agent killed with -9 is gone.
	 */
	if (p[0] == ' ' && (p[1] == 'Z' || p[1] == 'X'))
		return -ESRCH;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p + 1, ' ');
	}
	if (!p || sscanf(p, " %llu", &st) != 1)
		return -ESRCH;
	if (start)
		*start = st;
	if (uid)
		*uid = sb.st_uid;
	return 0;
}

int rdt_task_alive(pid_t tid, uint64_t start)
{
	uint64_t now;

	return rdt_task_info(tid, &now, NULL) == 0 && now == start;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int push(pid_t **v, size_t *n, size_t *cap, pid_t tid)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		pid_t *nv = realloc(*v, nc * sizeof(pid_t));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = tid;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int rdt_host_tids(pid_t **out, size_t *count)
{
	DIR *proc, *task;
	struct dirent *pe, *te;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	char path[300];
	int err = 0;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (pe = readdir(proc))) {
		if (!all_digits(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		task = opendir(path);
		if (!task)
			continue;	/* exited meanwhile */
		while (!err && (te = readdir(task)))
			if (all_digits(te->d_name))
				err = push(&v, &n, &cap, (pid_t)atoi(te->d_name));
		closedir(task);
	}
	closedir(proc);
	if (err) {
		free(v);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(pid_t), cmp_pid);
	*out = v;
	*count = n;
	return 0;
}
