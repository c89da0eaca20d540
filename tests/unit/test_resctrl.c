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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_api_util.h"

#define MACHINE "topology=package:2 l3:1 core:2 pu:1"

static struct {
	const char *skip;
	char tmp[64], mnt[128], state[128];
	pid_t fs;
	char prefix[32];	/* our control groups: rdtalloc-ID- of the state */
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
		if (i > 3000)	/* a minute: a sanitizer build on a loaded machine */
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
	assert_int_equal(strlen(rdtalloc_state_id(r)), 8);
	snprintf(fx.prefix, sizeof(fx.prefix), "rdtalloc-%s-", rdtalloc_state_id(r));
	return r;
}

/* Our control group named n ("rdtalloc-ID-n"), or a file in it: "rdtalloc-ID-n/file". */
static const char *D(const char *n, const char *file)
{
	static char buf[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s%s%s%s", fx.prefix, n, *file ? "/" : "", file);
	return buf[k];
}

/* "rdtalloc-ID-a rdtalloc-ID-b", as ours() lists them */
static const char *D2(const char *a, const char *b)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s%s %s%s", fx.prefix, a, fx.prefix, b);
	return buf;
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

/* The control groups of rdtalloc states, "rdtalloc-ID-1 rdtalloc-ID-3" (ascending). */
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
	/* a new group has the default's schema but its own control group, named after a */
	assert_string_equal(ours(), D("a", ""));
	/* a leaves and keeps its name: b and c get one of b's */
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f"));
	assert_string_equal(ours(), D2("a", "b"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "c", "L3:0=f0;1=f0"));
	/* c kept b's control group (it was alone there at the end), a and b share a's */
	assert_string_equal(ours(), D2("a", "b"));
	assert_string_equal(kfile(D("b", "schemata")), "    L3:0=f0;1=f0");
	assert_string_equal(kfile(D("a", "schemata")), "    L3:0=f;1=f");
	/* class numbers: by their oldest group */
	assert_int_equal(tu_closid(r, "a", "L3", 0), 1);
	assert_int_equal(tu_closid(r, "b", "L3", 1), 1);
	assert_int_equal(tu_closid(r, "c", "L3", 0), 2);
	assert_int_equal(tu_closid(r, NULL, "L3", 0), 0);
	n = rdtalloc_closids(r, "L3", 1, cl, 16);
	assert_int_equal(n, 3);
	assert_int_equal(cl[0].closid, 0);
	assert_int_equal(cl[0].mask, 0xfffff);
	assert_int_equal(cl[1].closid, 1);
	assert_int_equal(cl[1].mask, 0xf);
	assert_int_equal(cl[1].refcount, 2);
	assert_int_equal(cl[2].closid, 2);
	assert_int_equal(cl[2].mask, 0xf0);
	assert_int_equal(cl[2].refcount, 1);
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
	assert_string_equal(kfile(D("q", "cpus_list")), "1");
	t = spawn_sleeper();
	assert_ok(r, rdtalloc_bind_task(r, "p", t));
	assert_true(klists(D("p", ""), t));
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
	/* until the child has forked (a minute at most: a loaded machine) */
	for (int i = 0; i < 6000 && rdtalloc_group_tasks(r, "p", tids, 8) < 3; i++)
		usleep(10000);
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
 * A split onto ways another tool's exclusive group holds: the kernel would
 * refuse the new control group's schemata. Refused before the first write,
 * naming that group; the task stays, the kernel and the state are as they
 * were (no directory made and removed again).
 */
static void refused_split_changes_nothing(void **state)
{
	char *before, *after, *tree;
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
	tree = strdup(ours());
	assert_err(r, rdtalloc_set_schema(r, "q", "L3:0=30000;1=30000"), -EBUSY);
	assert_errmsg_has(r, "resctrl: group q would overlap 'runtime', an exclusive group "
			  "librdtalloc did not create (L3 cache id 0: 0x30000 and 0xf0000)");
	after = snapshot(r);
	assert_string_equal(after, before);
	assert_string_equal(ours(), tree);
	assert_true(klists(ours(), t));
	free(tree);
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
	assert_string_equal(ours(), D("p", ""));
	assert_true(klists(D("p", ""), t));
	free(after);
	free(before);
	reap(t);
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

/*
 * Someone removed our control group and changed the root: open re-makes
 * ours and adopts the root's schemata as the default group's (the root
 * belongs to whoever set it), writing nothing there.
 */
static void open_repairs_ours_adopts_the_root(void **state)
{
	char buf[256];
	rdtalloc_t *r;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=ff;1=ff"));
	assert_string_equal(kfile("schemata"), "    L3:0=ff;1=ff");
	assert_ok(r, rdtalloc_group_create(r, "p"));
	assert_ok(r, rdtalloc_set_schema(r, "p", "L3:0=f00;1=f00"));
	rdtalloc_close(r);
	assert_int_equal(rmdir(tu_path(fx.mnt, D("p", ""))), 0);
	assert_int_equal(tu_write(tu_path(fx.mnt, "schemata"), "L3:0=1\n"), 0);
	r = open_rc();
	tu_msg_has(rdtalloc_backend_reason(r), "the kernel disagreed with the state and was "
		   "brought back to it");
	tu_msg_has(rdtalloc_backend_reason(r), "the root group's schemata, set outside this "
		   "state, were adopted as the default group's schema");
	assert_string_equal(ours(), D("p", ""));
	assert_string_equal(kfile(D("p", "schemata")), "    L3:0=f00;1=f00");
	assert_string_equal(kfile("schemata"), "    L3:0=1;1=ff");
	assert_ok(r, rdtalloc_get_schema(r, NULL, buf, sizeof(buf)));
	tu_msg_has(buf, "L3:0=00001;1=000ff");
	rdtalloc_close(r);
	/* adopted once: the next open has nothing to say about the root */
	r = open_rc();
	assert_null(strstr(rdtalloc_backend_reason(r), "adopted"));
	assert_ok(r, rdtalloc_reset(r));
	assert_string_equal(kfile("schemata"), "    L3:0=fffff;1=fffff");
	rdtalloc_close(r);
}

/* A new state adopts the root's schemata at first use; it never widens them. */
static void new_state_adopts_the_root(void **state)
{
	char buf[256];
	rdtalloc_t *r;

	SKIP_IF_NEEDED();
	assert_int_equal(tu_write(tu_path(fx.mnt, "schemata"), "L3:0=ff0;1=ff0\n"), 0);
	tu_rm_rf(fx.state);
	assert_int_equal(mkdir(fx.state, 0700), 0);
	r = open_rc();
	tu_msg_has(rdtalloc_backend_reason(r), "were adopted as the default group's schema");
	assert_ok(r, rdtalloc_get_schema(r, NULL, buf, sizeof(buf)));
	tu_msg_has(buf, "L3:0=00ff0;1=00ff0");
	assert_ok(r, rdtalloc_group_create(r, "x"));
	assert_ok(r, rdtalloc_set_schema(r, "x", "L3:0=f;1=f"));
	assert_string_equal(kfile("schemata"), "    L3:0=ff0;1=ff0");
	/* reset is an explicit change of the default group: all ways again */
	assert_ok(r, rdtalloc_reset(r));
	assert_string_equal(kfile("schemata"), "    L3:0=fffff;1=fffff");
	assert_string_equal(ours(), "");
	rdtalloc_close(r);
}

/*
 * Two state directories on one mount: each owns the control groups with
 * its id and never writes the other's, nor the root when it changes only
 * its own groups. Neither undoes the other at open.
 */
static void two_states_share_a_mount(void **state)
{
	char other[160], pa[40], pb[40], buf[256];
	rdtalloc_t *a, *b;
	pid_t ta, tb;

	SKIP_IF_NEEDED();
	snprintf(other, sizeof(other), "%s/other", fx.tmp);
	assert_int_equal(mkdir(other, 0700), 0);
	a = open_rc();
	snprintf(pa, sizeof(pa), "%s", fx.prefix);
	assert_ok(a, rdtalloc_group_create(a, "x"));
	assert_ok(a, rdtalloc_set_schema(a, "x", "L3:0=3;1=3"));
	ta = spawn_sleeper();
	assert_ok(a, rdtalloc_bind_task(a, "x", ta));
	{
		RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "resctrl", .state_dir = other,
			      .machine = MACHINE, .resctrl_root = fx.mnt);

		assert_int_equal(rdtalloc_open(&b, &o), 0);
	}
	snprintf(pb, sizeof(pb), "rdtalloc-%s-", rdtalloc_state_id(b));
	assert_string_not_equal(pa, pb);
	tu_msg_has(rdtalloc_backend_reason(b), "1 not ours");
	assert_ok(b, rdtalloc_group_create(b, "y"));
	assert_ok(b, rdtalloc_set_schema(b, "y", "L3:0=c;1=c"));
	tb = spawn_sleeper();
	assert_ok(b, rdtalloc_bind_task(b, "y", tb));
	snprintf(buf, sizeof(buf), "%sx/schemata", pa);
	assert_string_equal(kfile(buf), "    L3:0=3;1=3");
	snprintf(buf, sizeof(buf), "%sx", pa);
	assert_true(klists(buf, ta));
	snprintf(buf, sizeof(buf), "%sy/schemata", pb);
	assert_string_equal(kfile(buf), "    L3:0=c;1=c");
	snprintf(buf, sizeof(buf), "%sy", pb);
	assert_true(klists(buf, tb));
	/* a reopened, and both again: nobody repairs the other */
	rdtalloc_close(a);
	rdtalloc_close(b);
	a = open_rc();
	assert_null(strstr(rdtalloc_backend_reason(a), "disagreed"));
	assert_int_equal(rdtalloc_group_tasks(a, "x", &ta, 1), 1);
	{
		RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "resctrl", .state_dir = other,
			      .machine = MACHINE, .resctrl_root = fx.mnt);

		assert_int_equal(rdtalloc_open(&b, &o), 0);
	}
	assert_null(strstr(rdtalloc_backend_reason(b), "disagreed"));
	snprintf(buf, sizeof(buf), "%sy", pb);
	assert_true(klists(buf, tb));
	/* b's reset removes b's groups only */
	assert_ok(b, rdtalloc_reset(b));
	snprintf(buf, sizeof(buf), "%sx/schemata", pa);
	assert_string_equal(kfile(buf), "    L3:0=3;1=3");
	snprintf(buf, sizeof(buf), "%sx", pa);
	assert_true(klists(buf, ta));
	assert_string_equal(ours(), buf);
	rdtalloc_close(b);
	reap(ta);
	reap(tb);
	assert_ok(a, rdtalloc_reset(a));
	rdtalloc_close(a);
	tu_rm_rf(other);
}

/*
 * A tool that follows the kernel's advice holds flock(LOCK_EX) on the root:
 * a change made meanwhile (another process) waits for it - the holder sees
 * nothing of it while it holds the lock - and goes through once it is let go.
 */
static void changes_wait_for_the_resctrl_lock(void **state)
{
	int fd, p[2], status;
	pid_t holder, worker;
	rdtalloc_t *r;
	char c;

	SKIP_IF_NEEDED();
	r = open_rc();
	assert_int_equal(pipe(p), 0);
	holder = fork();
	if (holder == 0) {
		fd = open(fx.mnt, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(p[1], "l", 1) != 1)
			_exit(1);
		usleep(300000);	/* the worker's chance to get in the way */
		_exit(ours()[0] ? 2 : 0);	/* the lock goes with the process */
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	worker = fork();
	if (worker == 0) {
		RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "resctrl", .state_dir = fx.state,
			      .machine = MACHINE, .resctrl_root = fx.mnt);
		rdtalloc_t *w;

		quiet_child();
		_exit(rdtalloc_open(&w, &o) || rdtalloc_group_create(w, "w") ? 1 : 0);
	}
	assert_int_equal(waitpid(holder, &status, 0), holder);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(waitpid(worker, &status, 0), worker);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(ours(), D("w", ""));
	rdtalloc_close(r);
	r = open_rc();
	assert_ok(r, rdtalloc_reset(r));
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classes_and_numbers),
		cmocka_unit_test(tasks_and_precedence),
		cmocka_unit_test(refused_split_changes_nothing),
		cmocka_unit_test(unwritable_state_undoes_the_kernel),
		cmocka_unit_test(open_repairs_ours_adopts_the_root),
		cmocka_unit_test(new_state_adopts_the_root),
		cmocka_unit_test(two_states_share_a_mount),
		cmocka_unit_test(changes_wait_for_the_resctrl_lock),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
