// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_persist: the shared state directory (DESIGN §7): two contexts on
 * one directory see each other's changes, forked processes changing it at
 * once lose nothing, reopening keeps everything (registers and counters
 * too), the machine description is recorded, the state file is replaced by
 * rename, a stale *.tmp is harmless, and ephemeral contexts write nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_api_util.h"

struct dir_fixture {
	char dir[64];
};

static int setup_dir(void **state)
{
	struct dir_fixture *f = calloc(1, sizeof(*f));

	if (!f || !mkdtemp(strcpy(f->dir, "/tmp/rdtalloc-apitest-XXXXXX")))
		return -1;
	*state = f;
	return 0;
}

static int teardown_dir(void **state)
{
	struct dir_fixture *f = *state;

	tu_rm_rf(f->dir);
	free(f);
	return 0;
}

static const char *fdir(void **state)
{
	return ((struct dir_fixture *)*state)->dir;
}

/* Some state worth keeping: groups, schemas, CPUs, tasks, a switch. */
static void populate(rdtalloc_t *r)
{
	RDTALLOC_OPTS(rdtalloc_switch, sw);

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff"));
	assert_ok(r, rdtalloc_group_create(r, "p1"));
	assert_ok(r, rdtalloc_group_create(r, "p2"));
	assert_ok(r, rdtalloc_set_schema(r, "p1", "L3:0=f8000;1=ff"));
	assert_ok(r, rdtalloc_set_schema(r, "p2", "L3:0=7c00"));
	assert_ok(r, rdtalloc_bind_task(r, "p1", 1234));
	assert_ok(r, rdtalloc_bind_task(r, "p2", 5678));
	assert_ok(r, rdtalloc_bind_task(r, "p2", 5679));
	assert_ok(r, rdtalloc_bind_cpu(r, "p2", 3));
	assert_ok(r, rdtalloc_sim_switch(r, 0, 1234, &sw));
}

static void reopen_keeps_everything(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), M2V, 0);
	char *before;

	populate(r);
	before = tu_dump(r, true);
	rdtalloc_close(r);
	r = tu_open(fdir(state), M2V, 0);
	assert_unchanged(r, before, true);
	tu_check_invariants(r);
	assert_int_equal(tu_pqr(r, 0), 2);
	rdtalloc_close(r);
}

static void two_contexts_one_process(void **state)
{
	rdtalloc_t *a = tu_open(fdir(state), M2V, 0);
	rdtalloc_t *b = tu_open(fdir(state), M2V, 0);
	const pid_t t[] = { 99 };
	const int c[] = { 2 };

	assert_ok(a, rdtalloc_group_create(a, "g"));
	assert_int_equal(rdtalloc_group_count(b), 2);
	assert_ok(b, rdtalloc_set_schema(b, "g", "L3:1=f"));
	assert_schema(a, "g", "L3:0=fffff;1=0000f\n");
	assert_ok(a, rdtalloc_bind_task(a, "g", 99));
	assert_tasks(b, "g", t, 1);
	assert_ok(b, rdtalloc_bind_cpu(b, "g", 2));
	assert_cpus(a, "g", c, 1);
	assert_int_equal(tu_eff(a, 2, 0), 1);
	assert_err(b, rdtalloc_group_create(b, "g"), -EEXIST);
	assert_ok(b, rdtalloc_group_remove(b, "g"));
	assert_int_equal(rdtalloc_group_count(a), 1);
	assert_err(a, rdtalloc_set_schema(a, "g", "L3:0=f"), -ENOENT);
	tu_check_invariants(a);
	rdtalloc_close(a);
	rdtalloc_close(b);
}

static void forked_process_sees_changes(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), M2V, 0);
	int status;
	pid_t pid;

	assert_ok(r, rdtalloc_group_create(r, "parent"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		rdtalloc_t *c;
		char buf[64];
		int ok;

		if (tu_open_rc(&c, fdir(state), M2V, 0))
			_exit(10);
		ok = rdtalloc_get_schema(c, "parent", buf, sizeof(buf)) > 0 &&
		     rdtalloc_group_create(c, "child") == 0 &&
		     rdtalloc_set_schema(c, "child", "L3:0=3") == 0 &&
		     rdtalloc_bind_task(c, "child", 31337) == 0;
		rdtalloc_close(c);
		_exit(ok ? 0 : 11);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(rdtalloc_group_count(r), 3);
	assert_schema(r, "child", "L3:0=00003;1=fffff\n");
	assert_task_group(r, 31337, "child");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

#define NPROC 4
#define NPER 15

/* One of NPROC writers: its own groups, a shared mask pool, bindings. */
static int writer(const char *dir, int id)
{
	static const char *const masks[] = { "L3:0=f", "L3:1=f0", "L3:0=ff00;1=ff00" };
	char name[32];
	rdtalloc_t *r;
	int j;

	if (tu_open_rc(&r, dir, M2V, 0))
		return 10;
	for (j = 0; j < NPER; j++) {
		snprintf(name, sizeof(name), "w%d_%d", id, j);
		if (rdtalloc_group_create(r, name) ||
		    rdtalloc_set_schema(r, name, masks[(id + j) % 3]) ||
		    rdtalloc_bind_task(r, name, 1000 * (id + 1) + j))
			return 20 + j;
	}
	/* Everyone fights over CPU 0 as well; the last one wins, one group holds it. */
	snprintf(name, sizeof(name), "w%d_0", id);
	if (rdtalloc_bind_cpu(r, name, 0))
		return 40;
	rdtalloc_close(r);
	return 0;
}

static void concurrent_processes_lose_nothing(void **state)
{
	pid_t pids[NPROC];
	rdtalloc_t *r;
	char name[32];
	int i, j, status, holders = 0;

	/* Create the state first so that every child opens an existing one. */
	r = tu_open(fdir(state), M2V, 0);
	rdtalloc_close(r);
	for (i = 0; i < NPROC; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			_exit(writer(fdir(state), i));
	}
	for (i = 0; i < NPROC; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status))
			print_error("writer %d exited %d\n", i, WEXITSTATUS(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	r = tu_open(fdir(state), M2V, 0);
	assert_int_equal(rdtalloc_group_count(r), 1 + NPROC * NPER);
	for (i = 0; i < NPROC; i++) {
		for (j = 0; j < NPER; j++) {
			pid_t t = 1000 * (i + 1) + j;
			int cpus[4];

			snprintf(name, sizeof(name), "w%d_%d", i, j);
			assert_tasks(r, name, &t, 1);
			holders += rdtalloc_group_cpus(r, name, cpus, 4);
		}
	}
	assert_int_equal(holders, 1);
	/* Three masks in the pool plus all-ones: at most 3 CLOSIDs per domain. */
	assert_int_equal(rdtalloc_closids(r, "L3", 0, NULL, 0), 3);
	assert_int_equal(rdtalloc_closids(r, "L3", 1, NULL, 0), 3);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void other_machine_is_ebusy(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), M2V, 0), *r2;
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	before = tu_dump(r, true);
	rdtalloc_close(r);
	assert_int_equal(tu_open_rc(&r2, fdir(state), "topology=package:1 l3:1 core:4 pu:1;"
				    "tasks=virtual", 0), -EBUSY);
	assert_null(r2);
	tu_msg_has(rdtalloc_errmsg(NULL), "reset");
	assert_int_equal(tu_open_rc(&r2, fdir(state), M2V ";l3.closids=8", 0), -EBUSY);
	/* Nothing was lost: the recorded machine and its groups. */
	r = tu_open(fdir(state), M2V, 0);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void recorded_machine_used_when_null(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), "topology=package:3 l3:1 core:1 pu:2;l3.cbm_len=12;"
				"tasks=virtual", 0);
	unsigned int ids[4];
	char *before;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_bind_task(r, "g", 424242));
	before = tu_dump(r, true);
	rdtalloc_close(r);
	r = tu_open(fdir(state), NULL, 0);
	assert_int_equal(rdtalloc_cpu_count(r), 6);
	assert_int_equal(rdtalloc_domains(r, "L3", ids, 4), 3);
	assert_int_equal(tu_res(r, 0).cbm_len, 12);
	/* tasks=virtual was recorded too: a made-up tid is still accepted. */
	assert_ok(r, rdtalloc_bind_task(r, "g", 424243));
	assert_ok(r, rdtalloc_bind_task(r, NULL, 424243));
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

/* The one regular file in dir holding JSON: the state file. */
static void state_file(const char *dir, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	assert_non_null(d);
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
	if (found != 1)
		print_error("%s: %d JSON state files\n", dir, found);
	assert_int_equal(found, 1);
}

static void state_replaced_by_rename(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), M2V, 0);
	char path[512], tmp[600];
	struct stat a, b;
	char *before;
	int fd;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	state_file(fdir(state), path, sizeof(path));
	assert_int_equal(stat(path, &a), 0);
	assert_ok(r, rdtalloc_group_create(r, "h"));
	assert_int_equal(stat(path, &b), 0);
	/* A new file took the old one's place: never written in place. */
	assert_true(a.st_ino != b.st_ino);

	/* A crash left a half-written temporary file: it does not matter. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"gar", 5), 5);
	close(fd);
	before = tu_dump(r, true);
	rdtalloc_close(r);
	r = tu_open(fdir(state), M2V, 0);
	assert_unchanged(r, before, true);
	assert_ok(r, rdtalloc_group_create(r, "i"));
	rdtalloc_close(r);
	r = tu_open(fdir(state), M2V, 0);
	assert_int_equal(rdtalloc_group_count(r), 4);
	rdtalloc_close(r);
}

static void state_dir_created_private(void **state)
{
	char sub[128];
	struct stat sb;
	rdtalloc_t *r;

	snprintf(sub, sizeof(sub), "%s/a/b", fdir(state));
	r = tu_open(sub, M2V, 0);
	assert_ok(r, rdtalloc_group_create(r, "g"));
	rdtalloc_close(r);
	assert_int_equal(stat(sub, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0700);
}

static void ephemeral_writes_nothing(void **state)
{
	rdtalloc_t *a = tu_open(fdir(state), M2V, RDTALLOC_F_EPHEMERAL);
	rdtalloc_t *b = tu_open(fdir(state), M2V, RDTALLOC_F_EPHEMERAL);
	struct dirent *e;
	DIR *d;
	int n = 0;

	populate(a);
	/* Two ephemeral contexts are two machines. */
	assert_int_equal(rdtalloc_group_count(b), 1);
	rdtalloc_close(a);
	rdtalloc_close(b);
	d = opendir(fdir(state));
	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(n, 0);
}

/*
 * A lease (what rdtctl profile takes before its sweep): a holder that dies
 * without putting the schema back has it put back by the next open, which
 * says so; a look only says so; a second holder is refused while the first
 * lives; restore without a lease is -ENOENT.
 */
static void lease_outlives_holder(void **state)
{
	rdtalloc_t *r = tu_open(fdir(state), M2V, 0), *ro;
	char buf[128];
	pid_t child;
	int status;

	assert_ok(r, rdtalloc_group_create(r, "db"));
	assert_ok(r, rdtalloc_set_schema(r, "db", "L3:0=ff0;1=ff"));
	assert_int_equal(rdtalloc_schema_lease(r, "default"), -EINVAL);
	assert_int_equal(rdtalloc_schema_lease(r, "nope"), -ENOENT);
	assert_int_equal(rdtalloc_schema_restore(r, "db"), -ENOENT);
	assert_string_equal(rdtalloc_errmsg(r), "group db's schema is not leased by this process");
	rdtalloc_close(r);

	child = fork();
	assert_true(child >= 0);
	if (!child) {
		rdtalloc_t *c = tu_open(fdir(state), M2V, 0);

		if (rdtalloc_schema_lease(c, "db") || rdtalloc_set_schema(c, "db", "L3:0=3"))
			_exit(1);
		_exit(0);	/* killed mid-sweep: no restore */
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(WEXITSTATUS(status), 0);

	ro = tu_open(fdir(state), M2V, RDTALLOC_F_READ_ONLY);
	assert_int_equal(rdtalloc_get_schema(ro, "db", buf, sizeof(buf)) > 0, 1);
	assert_string_equal(buf, "L3:0=00003;1=000ff\n");	/* a look changes nothing */
	snprintf(buf, sizeof(buf), "process %d, which had leased", (int)child);
	assert_non_null(strstr(rdtalloc_warning(ro), buf));
	assert_non_null(strstr(rdtalloc_warning(ro), "the next change puts its schema "
			       "L3:0=00ff0;1=000ff back"));
	rdtalloc_close(ro);

	r = tu_open(fdir(state), M2V, 0);
	assert_non_null(strstr(rdtalloc_warning(r), "its schema L3:0=00ff0;1=000ff is back"));
	assert_int_equal(rdtalloc_get_schema(r, "db", buf, sizeof(buf)) > 0, 1);
	assert_string_equal(buf, "L3:0=00ff0;1=000ff\n");
	/* held by a live process: a second holder is refused */
	assert_ok(r, rdtalloc_schema_lease(r, "db"));
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		rdtalloc_t *c = tu_open(fdir(state), M2V, 0);

		_exit(rdtalloc_schema_lease(c, "db") == -EBUSY ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_ok(r, rdtalloc_set_schema(r, "db", "L3:0=1"));
	assert_ok(r, rdtalloc_schema_restore(r, "db"));
	assert_int_equal(rdtalloc_get_schema(r, "db", buf, sizeof(buf)) > 0, 1);
	assert_string_equal(buf, "L3:0=00ff0;1=000ff\n");
	rdtalloc_close(r);
	snprintf(buf, sizeof(buf), "%s/leases.json", fdir(state));
	assert_int_equal(access(buf, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(reopen_keeps_everything, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(two_contexts_one_process, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(forked_process_sees_changes, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(concurrent_processes_lose_nothing, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(other_machine_is_ebusy, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(recorded_machine_used_when_null, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(state_replaced_by_rename, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(state_dir_created_private, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(ephemeral_writes_nothing, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(lease_outlives_holder, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
