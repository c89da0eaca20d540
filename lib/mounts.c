// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mounts: where resctrl is mounted, from a mount table in the
 * /proc/self/mounts format. The msr backend refuses to run where the kernel
 * owns CAT; the resctrl backend finds its root the same way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

#include "mounts.h"

/* Mount points in the mount table escape blanks and backslashes as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * 1 with the mount point in where when resctrl is mounted, 0 when not,
 * -errno when the table cannot be read: then we cannot tell, and two owners
 * of the same registers is the one thing to avoid.
 */
int rdt_resctrl_mounted(const char *mounts, char *where, size_t len)
{
	return rdt_fs_mounted(mounts, "resctrl", where, len);
}

int rdt_fs_mounted(const char *mounts, const char *fstype, char *where, size_t len)
{
	return rdt_fs_mounted_at(mounts, fstype, 0, where, len);
}

int rdt_fs_mounted_at(const char *mounts, const char *fstype, long magic, char *where,
		      size_t len)
{
	char line[4096], *save, *mnt, *type;
	bool reached = false;
	struct statfs sf;
	int ret = 0;
	FILE *f;

	f = fopen(mounts, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strtok_r(line, " \t\n", &save))
			continue;
		mnt = strtok_r(NULL, " \t\n", &save);
		type = strtok_r(NULL, " \t\n", &save);
		if (!mnt || !type || strcmp(type, fstype))
			continue;
		unescape_octal(mnt);
		/*
		 * The table lists mounts in the order they were made: a later one
		 * on a parent directory hides an earlier one (cgroup2 mounted on
		 * /sys/fs/cgroup over a hybrid layout's /sys/fs/cgroup/unified).
		 * The last one that is reachable as that filesystem wins; the
		 * first listed when none is (a mount table of a test).
		 */
		if (magic && !statfs(mnt, &sf) && sf.f_type == magic) {
			snprintf(where, len, "%s", mnt);
			reached = true;
		} else if (!ret && !reached) {
			snprintf(where, len, "%s", mnt);
		}
		ret = 1;
		if (!magic)
			break;
	}
	fclose(f);
	return ret;
}


/* Does a comma-separated list hold word? */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

int rdt_mount_has_option(const char *mounts, const char *where, const char *opt)
{
	char line[4096], *save, *src, *mnt, *opts;
	int ret = 0;
	FILE *f;

	f = fopen(mounts, "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		src = strtok_r(line, " \t\n", &save);
		mnt = strtok_r(NULL, " \t\n", &save);
		if (!src || !mnt || !strtok_r(NULL, " \t\n", &save))
			continue;
		opts = strtok_r(NULL, " \t\n", &save);
		unescape_octal(mnt);
		if (strcmp(mnt, where))
			continue;
		unescape_octal(src);
		ret = list_has(opts ? opts : "", opt) || list_has(src, opt);
	}
	fclose(f);
	return ret;
}
