// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_resctrl: the resctrl backend through the public API, against the
 * resctrl emulator (rdtalloc-resctrlfs, mounted by this test; named by
 * $RDTALLOC_TEST_RESCTRLFS). Checks what the kernel holds after each call:
 * classes of groups as control groups and their numbers, task membership
 * answered from the kernel's lists (exited tasks, forked children),
 * precedence, and all-or-nothing: a kernel refusal in the middle of a split
 * and a state file that cannot be written after the kernel was changed both
 * leave the kernel and the state as they were.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_api_util.h"

#define MACHINE "topology=package:2 l3:1 core:2 pu:1"

static struct {
	const char *skip;
	char tmp[64], mnt[128], state[128];
	pid_t fs;
} fx;

static bool mounted(void)
{
	char line[512], want[192];
	FILE *f = fopen("/proc/mounts", "r");
	bool found = false;

	snprintf(want, sizeof(want), " %s fuse.resctrl ", fx.mnt);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return found;
}

static int setup(void **state)
{
	const char *fs = getenv("RDTALLOC_TEST_RESCTRLFS");

	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK)) {
		fx.skip = "needs root and /dev/fuse for the resctrl emulator";
		return 0;
	}
	if (!fs || access(fs, X_OK)) {
		print_error("RDTALLOC_TEST_RESCTRLFS is not the emulator\n");
		return -1;
	}
	tu_mkdtemp(fx.tmp);
	snprintf(fx.mnt, sizeof(fx.mnt), "%s/resctrl", fx.tmp);
	snprintf(fx.state, sizeof(fx.state), "%s/state", fx.tmp);
	if (mkdir(fx.mnt, 0755) || mkdir(fx.state, 0700))
		return -1;
	fx.fs = fork();
	if (fx.fs == 0) {
		execl(fs, fs, fx.mnt, "-f", "--machine", MACHINE, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; !mounted(); i++) {
		if (i > 200)
			return -1;
		usleep(20000);
	}
	return 0;
}

static int teardown(void **state)
{
	if (fx.skip)
		return 0;
	pid_t um = fork();

	if (um == 0) {
		execlp("fusermount3", "fusermount3", "-u", "-z", fx.mnt, (char *)NULL);
		_exit(127);
	}
	waitpid(um, NULL, 0);
	/* it exits once unmounted; a stuck one is stopped */
	for (int i = 0; i < 100 && waitpid(fx.fs, NULL, WNOHANG) == 0; i++)
		usleep(20000);
	if (kill(fx.fs, SIGTERM) == 0)
		waitpid(fx.fs, NULL, 0);
	tu_rm_rf(fx.tmp);
	return 0;
}

#define SKIP_IF_NEEDED()							\
	do {									\
		if (fx.skip) {							\
			print_message("[  SKIPPED ] %s\n", fx.skip);		\
			skip();							\
		}								\
	} while (0)

static rdtalloc_t *open_rc(void)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "resctrl", .state_dir = fx.state,
		      .machine = MACHINE, .resctrl_root = fx.mnt);
	rdtalloc_t *r = NULL;
	int rc = rdtalloc_open(&r, &o);

	if (rc)
		print_error("rdtalloc_open: %s\n", rdtalloc_errmsg(NULL));
	assert_int_equal(rc, 0);
	return r;
}

/* The text of a file of the emulator ("" when it cannot be read), trailing newline cut. */
static char *kfile(const char *rel)
{
	static char buf[8192];
	char path[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx.mnt, rel);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

/* Our control groups, "rdtalloc-1 rdtalloc-3" (ascending by name). */
static char *ours(void)
{
	static char buf[1024];
	struct dirent **v;
	int n, i;

	buf[0] = '\0';
	n = scandir(fx.mnt, &v, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (!strncmp(v[i]->d_name, "rdtalloc-", 9)) {
			strcat(buf, buf[0] ? " " : "");
			strcat(buf, v[i]->d_name);
		}
		free(v[i]);
	}
	free(v);
	return buf;
}

static const char *tu_path(const char *dir, const char *rel)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

/* One write(2) of text, as the kernel wants it; 0 or -errno. */
static int tu_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -errno;
	close(fd);
	return ret;
}

static bool klists(const char *dir, pid_t tid)
{
	char rel[96], want[24], *text, *line, *save = NULL;

	snprintf(rel, sizeof(rel), "%s/tasks", dir);
	snprintf(want, sizeof(want), "%d", (int)tid);
	text = kfile(rel);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strcmp(line, want))
			return true;
	return false;
}

/* A child of the test dies with it and holds no pipe of the harness open. */
static void quiet_child(void)
{
	int fd = open("/dev/null", O_RDWR);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		quiet_child();
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Everything the API shows of a state, and the kernel's tree under it. */
static char *snapshot(rdtalloc_t *r)
{
	char *conf = malloc(65536), *out;
	int n = rdtalloc_save_config(r, conf, 65536);

	assert_ok(r, n);
	out = malloc(70000);
	snprintf(out, 70000, "%s\n--\n%s\n%s\n%s", conf, ours(), kfile("schemata"),
		 kfile("cpus_list"));
	free(conf);
	return out;
}

static void classes_and_numbers(void **state)
{
	struct rdtalloc_closid_info cl[16];
	rdtalloc_t *r;
	int n;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_string_equal(rdtalloc_backend(r), "resctrl");
	assert_int_equal(rdtalloc_get_precedence(r), RDTALLOC_PRECEDENCE_TASK);
	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_group_create(r, "c"));
	/* a new group has the default's schema but its own control group */
	assert_string_equal(ours(), "rdtalloc-1");
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f0;1=f0"));
	/* c kept rdtalloc-1 (it was alone there at the end), a and b share one */
	assert_string_equal(ours(), "rdtalloc-1 rdtalloc-2");
	assert_string_equal(kfile("rdtalloc-1/schemata"), "    L3:0=f0;1=f0");
	assert_string_equal(kfile("rdtalloc-2/schemata"), "    L3:0=f;1=f");
	assert_int_equal(tu_closid(r, "a", "L3", 0), 2);
	assert_int_equal(tu_closid(r, "b", "L3", 1), 2);
	assert_int_equal(tu_closid(r, "c", "L3", 0), 1);
	assert_int_equal(tu_closid(r, NULL, "L3", 0), 0);
	n = rdtalloc_closids(r, "L3", 1, cl, 16);
	assert_int_equal(n, 3);
	assert_int_equal(cl[0].closid, 0);
	assert_int_equal(cl[0].mask, 0xfffff);
	assert_int_equal(cl[1].closid, 1);
	assert_int_equal(cl[1].mask, 0xf0);
	assert_int_equal(cl[1].refcount, 1);
	assert_int_equal(cl[2].closid, 2);
	assert_int_equal(cl[2].refcount, 2);
	/* registers are the kernel's */
	assert_err(r, rdtalloc_read_pqr(r, 0, (unsigned int *)&n), -EOPNOTSUPP);
	assert_err(r, rdtalloc_sim_switch(r, 0, 0, NULL), -EOPNOTSUPP);
	assert_ok(r, rdtalloc_reset(r));
	assert_string_equal(ours(), "");
	rdtalloc_close(r);
}

static void tasks_and_precedence(void **state)
{
	char name[64];
	unsigned int k;
	pid_t t, child, tids[8];
	rdtalloc_t *r;
	int pipefd[2];

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_ok(r, rdtalloc_group_create(r, "p"));
	assert_ok(r, rdtalloc_set_schema(r, "p", "L3:0=3;1=3"));
	assert_ok(r, rdtalloc_group_create(r, "q"));
	assert_ok(r, rdtalloc_set_schema(r, "q", "L3:0=c;1=c"));
	assert_ok(r, rdtalloc_bind_cpu(r, "q", 1));
	assert_string_equal(kfile("rdtalloc-2/cpus_list"), "1");
	t = spawn_sleeper();
	assert_ok(r, rdtalloc_bind_task(r, "p", t));
	assert_true(klists("rdtalloc-1", t));
	/* resctrl's rule: p's task keeps p's allocation on q's CPU */
	assert_ok(r, rdtalloc_effective_closid(r, 1, t, &k));
	assert_int_equal(k, 1);
	assert_ok(r, rdtalloc_effective_closid(r, 1, getpid(), &k));
	assert_int_equal(k, 2);
	assert_ok(r, rdtalloc_effective_closid(r, 0, getpid(), &k));
	assert_int_equal(k, 0);
	assert_int_equal(rdtalloc_group_tasks(r, "p", tids, 8), 1);
	assert_int_equal(tids[0], t);
	assert_ok(r, rdtalloc_task_group(r, t, name, sizeof(name)));
	assert_string_equal(name, "p");

	/* the kernel puts a child where its parent is: counted in the parent's group */
	assert_int_equal(pipe(pipefd), 0);
	child = fork();
	if (child == 0) {
		char c;

		close(pipefd[1]);
		quiet_child();
		setpgid(0, 0);	/* so that the test can kill its child too */
		/* bound to p before it forks its own child */
		read(pipefd[0], &c, 1);
		if (fork() == 0)
			for (;;)
				pause();
		for (;;)
			pause();
	}
	close(pipefd[0]);
	assert_ok(r, rdtalloc_bind_task(r, "p", child));
	assert_int_equal(write(pipefd[1], "g", 1), 1);
	close(pipefd[1]);
	usleep(100000);
	/* the grandchild was never bound by us; the kernel has it in p's control group */
	assert_int_equal(rdtalloc_group_tasks(r, "p", tids, 8), 3);
	assert_int_equal(tids[0], t < child ? t : child);

	reap(t);
	assert_int_equal(rdtalloc_group_tasks(r, "p", tids, 8), 2);
	assert_err(r, rdtalloc_task_group(r, t, name, sizeof(name)), -ESRCH);
	kill(-child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

/*
 * A split that the kernel refuses half-way: the new control group was made,
 * its schemata refused (an exclusive group not ours holds those ways). The
 * directory goes again, the task stays, the state is as it was.
 */
static void refused_split_is_undone(void **state)
{
	char *before, *after;
	rdtalloc_t *r;
	pid_t t;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ffff;1=ffff"));
	assert_ok(r, rdtalloc_group_create(r, "p"));
	assert_ok(r, rdtalloc_group_create(r, "q"));
	assert_ok(r, rdtalloc_set_schema(r, "p", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "q", "L3:0=f;1=f"));
	t = spawn_sleeper();
	assert_ok(r, rdtalloc_bind_task(r, "q", t));
	assert_int_equal(mkdir(tu_path(fx.mnt, "runtime"), 0755), 0);
	assert_int_equal(tu_write(tu_path(fx.mnt, "runtime/schemata"), "L3:0=f0000;1=f0000\n"), 0);
	assert_int_equal(tu_write(tu_path(fx.mnt, "runtime/mode"), "exclusive\n"), 0);
	before = snapshot(r);
	assert_err(r, rdtalloc_set_schema(r, "q", "L3:0=30000;1=30000"), -EINVAL);
	assert_errmsg_has(r, "Overlaps with exclusive group");
	after = snapshot(r);
	assert_string_equal(after, before);
	assert_true(klists(ours(), t));
	free(after);
	free(before);
	reap(t);
	assert_int_equal(rmdir(tu_path(fx.mnt, "runtime")), 0);
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

/*
 * The kernel took the change, then the state file could not be written (a
 * directory where its temporary file goes): the kernel is put back.
 */
static void unwritable_state_undoes_the_kernel(void **state)
{
	char tmp[192], *before, *after;
	rdtalloc_t *r;
	pid_t t;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_ok(r, rdtalloc_group_create(r, "p"));
	assert_ok(r, rdtalloc_group_create(r, "q"));
	t = spawn_sleeper();
	assert_ok(r, rdtalloc_bind_task(r, "q", t));
	before = snapshot(r);
	snprintf(tmp, sizeof(tmp), "%s/state.json.tmp", fx.state);
	assert_int_equal(mkdir(tmp, 0700), 0);
	/* a split (mkdir, schemata, a task move), then the failed write */
	assert_true(rdtalloc_set_schema(r, "q", "L3:0=3;1=3") < 0);
	assert_int_equal(rmdir(tmp), 0);
	after = snapshot(r);
	assert_string_equal(after, before);
	assert_string_equal(ours(), "rdtalloc-1");
	assert_true(klists("rdtalloc-1", t));
	free(after);
	free(before);
	reap(t);
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

/* Someone removed our control group and changed the root: open re-applies both. */
static void open_repairs_the_kernel(void **state)
{
	rdtalloc_t *r;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff;1=ff"));
	assert_ok(r, rdtalloc_group_create(r, "p"));
	assert_ok(r, rdtalloc_set_schema(r, "p", "L3:0=f00;1=f00"));
	rdtalloc_close(r);
	assert_int_equal(rmdir(tu_path(fx.mnt, "rdtalloc-1")), 0);
	assert_int_equal(tu_write(tu_path(fx.mnt, "schemata"), "L3:0=1\n"), 0);
	r = open_rc();
	tu_msg_has(rdtalloc_backend_reason(r), "the kernel disagreed with the state and was "
		   "brought back to it");
	assert_string_equal(ours(), "rdtalloc-1");
	assert_string_equal(kfile("rdtalloc-1/schemata"), "    L3:0=f00;1=f00");
	assert_string_equal(kfile("schemata"), "    L3:0=ff;1=ff");
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classes_and_numbers),
		cmocka_unit_test(tasks_and_precedence),
		cmocka_unit_test(refused_split_is_undone),
		cmocka_unit_test(unwritable_state_undoes_the_kernel),
		cmocka_unit_test(open_repairs_the_kernel),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
