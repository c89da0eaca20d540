// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_cgroup: rdtalloc_bind_cgroup and friends on the simulator with
 * real tasks and real cgroup v2 cgroups (root; skipped without cgroup2).
 * The CLOSID a task runs with follows its cgroup (rdtalloc_effective_closid
 * and the simulated switch), task > cgroup > default, both precedence
 * rules, bad input refused with nothing changed, the bindings kept across
 * reopening, and a removed cgroup dropping out.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "test_api_util.h"

static char cgroot[PATH_MAX];
static char cgname[64], cgdir[PATH_MAX + 64], subdir[PATH_MAX + 72];

/* The first cgroup2 mount, as the library finds it. */
static bool find_cgroup2(void)
{
	char line[4096], mnt[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", mnt, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(cgroot, sizeof(cgroot), "%s", mnt);
			found = true;
		}
	fclose(f);
	return found;
}

static void write_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)pid);
	assert_int_equal(fclose(f), 0);
}

/* A child that sleeps in cgroup dir until killed. */
static pid_t start_in(const char *dir)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	write_pid(dir, pid);
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int setup(void **s)
{
	(void)s;
	if (geteuid() != 0 || !find_cgroup2())
		return 0;
	snprintf(cgname, sizeof(cgname), "rdtalloc-unit-%d", (int)getpid());
	snprintf(cgdir, sizeof(cgdir), "%s/%s", cgroot, cgname);
	snprintf(subdir, sizeof(subdir), "%s/sub", cgdir);
	if (mkdir(cgdir, 0755) || mkdir(subdir, 0755))
		cgroot[0] = '\0';
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	if (cgroot[0]) {
		rmdir(subdir);
		rmdir(cgdir);
	}
	return 0;
}

#define NEED_CGROUPS()							\
	do {								\
		if (!cgroot[0])						\
			skip();						\
	} while (0)

static rdtalloc_t *open_real(const char *dir, unsigned int prec)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2,
		      .precedence = prec);
	rdtalloc_t *r = NULL;
	int rc = rdtalloc_open(&r, &o);

	if (rc)
		print_error("open: %s\n", rdtalloc_errmsg(NULL));
	assert_int_equal(rc, 0);
	return r;
}

static char sub_rel[sizeof(subdir)];

static void groups(rdtalloc_t *r)
{
	assert_ok(r, rdtalloc_group_create(r, "rt"));
	assert_ok(r, rdtalloc_group_create(r, "other"));
	assert_ok(r, rdtalloc_set_schema(r, "rt", "L3:0=f;1=f"));
	assert_ok(r, rdtalloc_set_schema(r, "other", "L3:0=f0;1=f0"));
	snprintf(sub_rel, sizeof(sub_rel), "%s/sub", cgname);
}

/* A new state in dir (64 bytes) with the groups, and the test's cgroup bound to rt. */
static rdtalloc_t *open_bound(char *dir)
{
	rdtalloc_t *r = open_real(tu_mkdtemp(dir), 0);

	groups(r);
	assert_ok(r, rdtalloc_bind_cgroup(r, "rt", cgname));
	return r;
}

static void test_follow_cgroup(void **s)
{
	char dir[64], buf[64];
	struct rdtalloc_switch sw = { .sz = sizeof(sw) };
	rdtalloc_t *r;
	pid_t a, b;

	(void)s;
	NEED_CGROUPS();
	r = open_real(tu_mkdtemp(dir), 0);
	groups(r);
	a = start_in(cgdir);
	b = start_in(subdir);
	assert_int_equal(tu_eff(r, 0, a), 0);
	assert_ok(r, rdtalloc_bind_cgroup(r, "rt", cgname));
	/* the cgroup and everything below it */
	assert_int_equal(tu_eff(r, 0, a), tu_closid(r, "rt", "L3", 0));
	assert_int_equal(tu_eff(r, 0, b), tu_closid(r, "rt", "L3", 0));
	assert_task_group(r, a, "rt");
	assert_task_group(r, b, "rt");
	assert_ok(r, rdtalloc_sim_switch(r, 0, b, &sw));
	assert_int_equal(sw.closid, tu_closid(r, "rt", "L3", 0));
	assert_int_equal(tu_pqr(r, 0), tu_closid(r, "rt", "L3", 0));
	/* the deepest bound cgroup wins */
	assert_ok(r, rdtalloc_bind_cgroup(r, "other", subdir));
	assert_task_group(r, b, "other");
	assert_int_equal(tu_eff(r, 2, b), tu_closid(r, "other", "L3", 1));
	/* a task's own binding wins over its cgroup's */
	assert_ok(r, rdtalloc_bind_task(r, "other", a));
	assert_task_group(r, a, "other");
	assert_ok(r, rdtalloc_bind_task(r, "default", a));
	assert_task_group(r, a, "rt");
	/* precedence=cpu: a bound CPU's group wins over the cgroup's */
	assert_ok(r, rdtalloc_bind_cpu(r, "other", 1));
	assert_int_equal(tu_eff(r, 1, a), tu_closid(r, "other", "L3", 0));
	/* the group of a cgroup, its own or through an ancestor */
	assert_ok(r, rdtalloc_cgroup_group(r, cgname, buf, sizeof(buf)));
	assert_string_equal(buf, "rt");
	assert_int_equal(rdtalloc_cgroup_group(r, cgname, NULL, 0), 2);
	assert_err(r, rdtalloc_cgroup_group(r, cgname, buf, 2), -ERANGE);
	/* kept across reopening */
	rdtalloc_close(r);
	r = open_real(dir, 0);
	assert_task_group(r, b, "other");
	assert_task_group(r, a, "rt");
	/* unbinding */
	assert_ok(r, rdtalloc_bind_cgroup(r, "default", subdir));
	assert_task_group(r, b, "rt");
	assert_ok(r, rdtalloc_bind_cgroup(r, NULL, cgname));
	assert_task_group(r, b, "default");
	assert_int_equal(tu_eff(r, 0, b), 0);
	stop(a);
	stop(b);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static void test_precedence_task(void **s)
{
	char dir[64];
	rdtalloc_t *r;
	pid_t a;

	(void)s;
	NEED_CGROUPS();
	r = open_real(tu_mkdtemp(dir), RDTALLOC_PRECEDENCE_TASK);
	groups(r);
	a = start_in(cgdir);
	assert_ok(r, rdtalloc_bind_cpu(r, "other", 1));
	assert_ok(r, rdtalloc_bind_cgroup(r, "rt", cgname));
	/* task rule: the task's group through its cgroup wins on a bound CPU */
	assert_int_equal(tu_eff(r, 1, a), tu_closid(r, "rt", "L3", 0));
	stop(a);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static int count_cb(const char *path, const char *group, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 256 - strlen(out), "%s=%s;", path, group);
	return 0;
}

static void test_refusals_and_removal(void **s)
{
	char dir[64], list[256] = "", want[256], *before;
	char longp[5000];
	rdtalloc_t *r;

	(void)s;
	NEED_CGROUPS();
	r = open_bound(dir);
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_bind_cgroup(r, "rt", "/"), -EINVAL);
	tu_msg_has(rdtalloc_errmsg(r), "the root cgroup holds every task");
	assert_err(r, rdtalloc_bind_cgroup(r, "rt", NULL), -EINVAL);
	assert_err(r, rdtalloc_bind_cgroup(r, "rt", "no-such-cgroup-here"), -ENOENT);
	tu_msg_has(rdtalloc_errmsg(r), "no cgroup no-such-cgroup-here under ");
	assert_err(r, rdtalloc_bind_cgroup(r, "nogroup", cgname), -ENOENT);
	assert_err(r, rdtalloc_bind_cgroup(r, "rt", "a/../b"), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	assert_err(r, rdtalloc_bind_cgroup(r, "rt", longp), -ENAMETOOLONG);
	assert_unchanged(r, before, false);
	assert_ok(r, rdtalloc_cgroup_foreach(r, count_cb, list));
	snprintf(want, sizeof(want), "%s=rt;", cgname);
	assert_string_equal(list, want);
	/* a removed cgroup drops out */
	assert_ok(r, rdtalloc_bind_cgroup(r, "other", sub_rel));
	assert_int_equal(rmdir(subdir), 0);
	list[0] = '\0';
	assert_ok(r, rdtalloc_cgroup_foreach(r, count_cb, list));
	assert_string_equal(list, want);
	/* made again under the same path, it is another cgroup: not other's */
	assert_int_equal(mkdir(subdir, 0755), 0);
	assert_ok(r, rdtalloc_cgroup_group(r, sub_rel, list, sizeof(list)));
	assert_string_equal(list, "rt");
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static rdtalloc_t *open_as(const char *dir, const char *owner)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .state_dir = dir, .machine = M2,
		      .owner = owner);
	rdtalloc_t *r = NULL;

	assert_int_equal(rdtalloc_open(&r, &o), 0);
	return r;
}

/*
 * A binding's policy (0.8): yield unless asked; bad flags refused with
 * nothing changed; rdtalloc_bind_cgroup keeps it; kept across reopening;
 * a new policy of the hook's binding refused naming it; the sync report
 * copied up to the caller's size only.
 */
static void test_policy(void **s)
{
	struct {
		struct rdtalloc_sync_report rep;
		unsigned char past[8];
	} old;
	char dir[64], want[sizeof(sub_rel) + 80], *before;
	size_t old_sz = offsetof(struct rdtalloc_sync_report, strays_left);
	rdtalloc_t *r;

	(void)s;
	NEED_CGROUPS();
	r = open_bound(dir);
	assert_int_equal(rdtalloc_cgroup_policy(r, cgname), 0);
	assert_err(r, rdtalloc_cgroup_policy(r, sub_rel), -ENOENT);
	tu_msg_has(rdtalloc_errmsg(r), "is not bound itself");
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_bind_cgroup_flags(r, "rt", cgname, 2), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(r), "rdtalloc_bind_cgroup_flags: unknown flags 0x2");
	assert_err(r, rdtalloc_bind_cgroup_flags(r, "default", cgname, RDTALLOC_CGROUP_ENFORCE),
		   -EINVAL);
	tu_msg_has(rdtalloc_errmsg(r), "(the default group) takes no policy");
	assert_unchanged(r, before, false);
	assert_ok(r, rdtalloc_bind_cgroup_flags(r, "rt", cgname, RDTALLOC_CGROUP_ENFORCE));
	assert_int_equal(rdtalloc_cgroup_policy(r, cgname), (int)RDTALLOC_CGROUP_ENFORCE);
	assert_ok(r, rdtalloc_bind_cgroup(r, "other", cgname));
	assert_int_equal(rdtalloc_cgroup_policy(r, cgname), (int)RDTALLOC_CGROUP_ENFORCE);
	rdtalloc_close(r);
	r = open_real(dir, 0);
	assert_int_equal(rdtalloc_cgroup_policy(r, cgname), (int)RDTALLOC_CGROUP_ENFORCE);
	/* the sim has no control group not ours: nothing stray; an older caller's size */
	memset(&old, 0xa5, sizeof(old));
	old.rep.sz = old_sz;
	assert_ok(r, rdtalloc_sync(r, 0, &old.rep));
	assert_int_equal(old.rep.sz, old_sz);
	assert_int_equal(((unsigned char *)&old.rep)[old_sz], 0xa5);
	rdtalloc_close(r);
	/* the hook's binding: a person's new policy is refused, naming it */
	r = open_as(dir, "oci:c1");
	assert_ok(r, rdtalloc_bind_cgroup(r, "rt", sub_rel));
	rdtalloc_close(r);
	r = open_real(dir, 0);
	before = tu_dump(r, false);
	assert_err(r, rdtalloc_bind_cgroup_flags(r, "rt", sub_rel, RDTALLOC_CGROUP_ENFORCE), -EBUSY);
	snprintf(want, sizeof(want), "cgroup %s: its binding is container c1's; --force takes it "
		 "back", sub_rel);
	assert_string_equal(rdtalloc_errmsg(r), want);
	assert_unchanged(r, before, false);
	rdtalloc_close(r);
	tu_rm_rf(dir);
}

static void test_virtual_refused(void **s)
{
	rdtalloc_t *r = tu_eph(M2V);

	(void)s;
	NEED_CGROUPS();
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_err(r, rdtalloc_bind_cgroup(r, "g", cgname), -EOPNOTSUPP);
	tu_msg_has(rdtalloc_errmsg(r), "tasks are virtual");
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_cgroup),
		cmocka_unit_test(test_precedence_task),
		cmocka_unit_test(test_refusals_and_removal),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_virtual_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
