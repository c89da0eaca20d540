// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_perm: the safety checks on the state directory (DESIGN §7,
 * issue 3 §4): a symlinked directory or state file, a state file owned by
 * someone else or writable by group/others is refused with -EPERM and a
 * message naming the path; a state file with garbage or truncated JSON is
 * -EINVAL naming the file, and is left as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "test_api_util.h"

struct perm_fixture {
	char top[64];		/* removed at teardown */
	char dir[128];		/* a state directory with a state in it */
	char file[512];		/* its state file */
};

/* The one regular file in dir holding JSON: the state file. */
static int find_state_file(const char *dir, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p[512], c = 0;
		struct stat sb;
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &sb) || !S_ISREG(sb.st_mode) || !(f = fopen(p, "r")))
			continue;
		while (fread(&c, 1, 1, f) == 1 && (c == ' ' || c == '\n' || c == '\t'))
			;
		fclose(f);
		if (c == '{') {
			snprintf(path, len, "%s", p);
			found++;
		}
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

static int setup_state(void **state)
{
	struct perm_fixture *f = calloc(1, sizeof(*f));
	rdtalloc_t *r;

	if (!f || !mkdtemp(strcpy(f->top, "/tmp/rdtalloc-apitest-XXXXXX")))
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s/state", f->top);
	if (tu_open_rc(&r, f->dir, M2V, 0))
		return -1;
	if (rdtalloc_group_create(r, "g") || rdtalloc_set_schema(r, "g", "L3:0=f"))
		return -1;
	rdtalloc_close(r);
	if (find_state_file(f->dir, f->file, sizeof(f->file)))
		return -1;
	*state = f;
	return 0;
}

static int teardown_state(void **state)
{
	struct perm_fixture *f = *state;

	tu_rm_rf(f->top);
	free(f);
	return 0;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void write_all(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Opening dir fails with err and the message names want. */
static void open_refused(const char *dir, int err, const char *want)
{
	rdtalloc_t *r;
	int rc = tu_open_rc(&r, dir, M2V, 0);

	if (rc != err)
		print_error("open %s: %d, want %d (%s)\n", dir, rc, err, rdtalloc_errmsg(NULL));
	assert_int_equal(rc, err);
	assert_null(r);
	tu_msg_has(rdtalloc_errmsg(NULL), want);
}

/* After the cause is removed, the state is intact. */
static void open_intact(const char *dir)
{
	rdtalloc_t *r = tu_open(dir, M2V, 0);

	assert_int_equal(rdtalloc_group_count(r), 2);
	assert_schema(r, "g", "L3:0=0000f;1=fffff\n");
	rdtalloc_close(r);
}

static void symlinked_dir(void **state)
{
	struct perm_fixture *f = *state;
	char link[200];

	snprintf(link, sizeof(link), "%s/link", f->top);
	assert_int_equal(symlink(f->dir, link), 0);
	open_refused(link, -EPERM, link);
	open_intact(f->dir);
}

static void symlinked_state_file(void **state)
{
	struct perm_fixture *f = *state;
	char moved[600];

	/* The state file itself replaced by a symlink to a copy of it. */
	snprintf(moved, sizeof(moved), "%s/elsewhere.json", f->top);
	assert_int_equal(rename(f->file, moved), 0);
	assert_int_equal(symlink(moved, f->file), 0);
	open_refused(f->dir, -EPERM, f->dir);
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(rename(moved, f->file), 0);
	open_intact(f->dir);
}

static void writable_by_others(void **state)
{
	static const mode_t modes[] = { 0666, 0620, 0602, 0660 };
	struct perm_fixture *f = *state;
	unsigned int i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		assert_int_equal(chmod(f->file, modes[i]), 0);
		open_refused(f->dir, -EPERM, f->dir);
	}
	assert_int_equal(chmod(f->file, 0600), 0);
	open_intact(f->dir);
}

static void owned_by_another_user(void **state)
{
	struct perm_fixture *f = *state;

	if (geteuid() != 0) {
		print_message("not root: cannot give the state file away, skipped\n");
		skip();
	}
	assert_int_equal(chown(f->file, 65534, 65534), 0);
	open_refused(f->dir, -EPERM, f->dir);
	assert_int_equal(chown(f->file, 0, 0), 0);
	open_intact(f->dir);
}

static void dir_owned_by_another_user(void **state)
{
	struct perm_fixture *f = *state;

	if (geteuid() != 0) {
		print_message("not root: cannot give the state directory away, skipped\n");
		skip();
	}
	assert_int_equal(chown(f->dir, 65534, 65534), 0);
	open_refused(f->dir, -EPERM, f->dir);
	assert_int_equal(chown(f->dir, 0, 0), 0);
	open_intact(f->dir);
}

static void bad_content_untouched(const char *dir, const char *file, const char *content)
{
	size_t len;
	char *after;

	write_all(file, content, strlen(content));
	open_refused(dir, -EINVAL, file);
	/* A second try, and the file is still exactly what it was. */
	open_refused(dir, -EINVAL, file);
	after = read_all(file, &len);
	assert_int_equal(len, strlen(content));
	assert_memory_equal(after, content, len);
	free(after);
}

static void garbage_state(void **state)
{
	struct perm_fixture *f = *state;

	bad_content_untouched(f->dir, f->file, "this is not json at all\n");
	bad_content_untouched(f->dir, f->file, "{\"groups\": 42, \"nonsense\": true}\n");
	bad_content_untouched(f->dir, f->file, "[1, 2, 3]\n");
}

static void truncated_state(void **state)
{
	struct perm_fixture *f = *state;
	size_t len;
	char *good = read_all(f->file, &len);
	char *half = strndup(good, len / 2);

	assert_true(len > 10);
	bad_content_untouched(f->dir, f->file, half);
	/* Put the good state back: everything is there. */
	write_all(f->file, good, len);
	open_intact(f->dir);
	free(half);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(symlinked_dir, setup_state, teardown_state),
		cmocka_unit_test_setup_teardown(symlinked_state_file, setup_state, teardown_state),
		cmocka_unit_test_setup_teardown(writable_by_others, setup_state, teardown_state),
		cmocka_unit_test_setup_teardown(owned_by_another_user, setup_state,
						teardown_state),
		cmocka_unit_test_setup_teardown(dir_owned_by_another_user, setup_state,
						teardown_state),
		cmocka_unit_test_setup_teardown(garbage_state, setup_state, teardown_state),
		cmocka_unit_test_setup_teardown(truncated_state, setup_state, teardown_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
