// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * task: rdtctl task bind|show. Binding several tasks is several library
 * calls; when one fails, the ones already moved are moved back, so that a
 * failed command leaves the groups as they were.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

struct tid_list {
	pid_t *v;
	size_t n, cap;
};

static int push_tid(struct tid_list *l, pid_t tid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		pid_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = tid;
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Drop repeats from a sorted array; returns the new length. */
static size_t unique(pid_t *v, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		if (out == 0 || v[i] != v[out - 1])
			v[out++] = v[i];
	}
	return out;
}

/* Every thread of process pid, from /proc/PID/task. */
static int add_threads(struct tid_list *l, pid_t pid)
{
	char path[64];
	struct dirent *de;
	size_t first = l->n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return fail_msg("no process %d (%s: %s)", (int)pid, path, strerror(errno));
	while ((de = readdir(d))) {
		pid_t tid;

		if (!parse_tid(de->d_name, &tid))
			continue;
		if (push_tid(l, tid)) {
			closedir(d);
			return fail_msg("out of memory");
		}
	}
	closedir(d);
	return l->n > first ? 0 : fail_msg("process %d has no threads left", (int)pid);
}

/* Every task in one transaction: all of them bound, or none (the library's promise). */
static int bind_all(rdtalloc_t *r, const char *group, const struct tid_list *l)
{
	int ret = rdtalloc_bind_tasks(r, group, l->v, l->n);

	return ret < 0 ? fail_lib(r, ret) : EXIT_OK;
}

static void print_bound(json_object *o)
{
	size_t n = json_object_array_length(jget(o, "tasks"));

	printf("bound %zu task%s to group %s\n", n, n == 1 ? "" : "s", jget_str(o, "group"));
}

static int task_bind(int argc, char **argv)
{
	static const char synopsis[] = "task bind GROUP TID... [--process]";
	struct tid_list l = { 0 };
	bool process = false;
	const struct flag flags[] = {
		{ "--process", &process, NULL },
		{ NULL, NULL, NULL },
	};
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("task bind", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	for (int i = 1; i < argc; i++) {
		pid_t tid;

		if (!parse_tid(argv[i], &tid)) {
			free(l.v);
			return usage_error("task bind: '%s' is not a task id (a number > 0)",
					   argv[i]);
		}
		ret = process ? add_threads(&l, tid) : push_tid(&l, tid);
		if (ret) {
			free(l.v);
			return ret < 0 ? fail_msg("out of memory") : EXIT_FAIL;
		}
	}
	/* ascending, each task once: "task bind g 5 5" binds one task */
	qsort(l.v, l.n, sizeof(*l.v), cmp_tid);
	l.n = unique(l.v, l.n);
	r = ctx();
	if (!r) {
		free(l.v);
		return EXIT_FAIL;
	}
	ret = bind_all(r, argv[0], &l);
	if (ret) {
		free(l.v);
		return ret;
	}
	doc = jobj();
	jset(doc, "group", jstr(argv[0]));
	jset(doc, "tasks", jtids(l.v, (int)l.n));
	free(l.v);
	return emit_change(doc, print_bound);
}

/* Bound tasks of the group that another tool moved: a note each, on stderr. */
static void note_moved(json_object *o)
{
	json_object *m = jget(o, "moved");

	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		json_object *e = json_object_array_get_idx(m, i);
		const char *where = jget_str(e, "where");

		fprintf(stderr, "rdtctl: note: task %lld of group %s is in %s%s%s now, moved by "
			"another tool: the next change drops its binding\n",
			jget_int(e, "tid"), jget_str(o, "group"), *where ? "control group '" :
			"the root group", where, *where ? "'" : "");
	}
}

/* One group's tasks, one a line (for scripts): past TASKS_SHOWN, the count on stderr. */
static void print_tasks_one(json_object *o)
{
	json_object *t = jget(o, "tasks");
	size_t n = json_object_array_length(t), shown = g_all_tasks || n <= TASKS_SHOWN ? n :
								   TASKS_SHOWN;

	for (size_t i = 0; i < shown; i++)
		printf("%lld\n", (long long)json_object_get_int64(json_object_array_get_idx(t, i)));
	if (shown < n)
		fprintf(stderr, "rdtctl: note: the first %zu of the %zu tasks of group %s; --all "
			"lists them all\n", shown, n, jget_str(o, "group"));
	note_moved(o);
}

static void print_tasks_all(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		json_object *t = jget(o, "tasks");
		size_t n = json_object_array_length(t);
		size_t shown = g_all_tasks || n <= TASKS_SHOWN ? n : TASKS_SHOWN;

		printf("%s:", jget_str(o, "group"));
		if (!n)
			printf(" (none)");
		for (size_t k = 0; k < shown; k++)
			printf(" %lld", (long long)json_object_get_int64(
				       json_object_array_get_idx(t, k)));
		if (shown < n)
			printf(" ... (%zu in all; --all lists them)", n);
		putchar('\n');
	}
	for (size_t i = 0; i < json_object_array_length(a); i++)
		note_moved(json_object_array_get_idx(a, i));
}

/* The moved tasks, asked once per command (it reads every tasks file). */
static int moved_tasks(rdtalloc_t *r, struct rdtalloc_moved_task **out)
{
	static struct rdtalloc_moved_task *v;
	static int n = -1;

	if (n < 0) {
		n = rdtalloc_moved_tasks(r, NULL, 0);
		if (n < 0)
			return n;
		v = calloc((size_t)n + 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (int i = 0; i < n; i++)
			v[i].sz = sizeof(v[i]);
		n = rdtalloc_moved_tasks(r, v, (size_t)n);
		if (n < 0)
			return n;
	}
	*out = v;
	return n;
}

/*
 * "owners": {"TID": "OWNER"} for the tasks bound one by one (a task in the
 * group through its cgroup has no binding of its own; unknown: null).
 */
static int task_owners(rdtalloc_t *r, json_object *o, const pid_t *tids, int n)
{
	char owner[RDTALLOC_OWNER_MAX + 1], key[16];
	json_object *m = NULL;
	int ret;

	for (int i = 0; i < n; i++) {
		ret = rdtalloc_task_owner(r, tids[i], owner, sizeof(owner));
		if (ret == -ESRCH)
			continue;	/* exited since it was listed */
		if (ret < 0)
			return fail_lib(r, ret);
		if (!m)
			m = jobj();
		snprintf(key, sizeof(key), "%d", (int)tids[i]);
		jset_str_or_null(m, key, owner);
	}
	if (m)
		jset(o, "owners", m);
	return 0;
}

static json_object *tasks_doc(rdtalloc_t *r, const char *group)
{
	json_object *o;
	pid_t *tids;
	int n = cli_group_tasks(r, group, &tids);

	if (n < 0)
		return NULL;
	o = jobj();
	jset(o, "group", jstr(group));
	jset(o, "tasks", jtids(tids, n));
	jset(o, "ntasks", jint(n));
	/* the default group's tasks are bound to nothing */
	if (strcmp(group, "default") && task_owners(r, o, tids, n)) {
		free(tids);
		json_object_put(o);
		return NULL;
	}
	free(tids);
	{
		struct rdtalloc_moved_task *mv;
		int nm = moved_tasks(r, &mv);
		json_object *a = NULL;

		if (nm < 0) {
			json_object_put(o);
			fail_lib(r, nm);
			return NULL;
		}
		for (int i = 0; i < nm; i++) {
			json_object *e;

			if (strcmp(mv[i].group, group))
				continue;
			if (!a)
				a = jarr();
			e = jobj();
			jset(e, "tid", jint(mv[i].tid));
			jset(e, "where", jstr(mv[i].where));
			jpush(a, e);
		}
		if (a)
			jset(o, "moved", a);
	}
	return o;
}

static int task_show(int argc, char **argv)
{
	const struct flag flags[] = { { "--all", &g_all_tasks, NULL }, { NULL, NULL, NULL } };

	return show_groups("task show", argc, argv, flags, tasks_doc, print_tasks_one,
			   print_tasks_all);
}

static int task_help(int argc, char **argv)
{
	printf("Usage: rdtctl task bind GROUP TID... [--process]\n"
	       "       rdtctl task show [GROUP] [--all]\n");
	return EXIT_OK;
}

int do_task(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "bind", task_bind },
		{ "show", task_show },
		{ "help", task_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "task", argc, argv);
}
