// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cgroup: rdtctl cgroup bind GROUP PATH | unbind PATH | show [PATH]. A
 * systemd unit or a container is a cgroup: binding it puts every task in
 * it or below it, now and later, in the group (a task's own binding wins).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static void print_bound(json_object *o)
{
	printf("cgroup %s -> group %s\n", jget_str(o, "cgroup"), jget_str(o, "group"));
}

/* "enforce", "yield", or "" for a path not bound itself (what -j shows as null) */
static int policy_of(rdtalloc_t *r, const char *path, const char **out)
{
	int ret = rdtalloc_cgroup_policy(r, path);

	*out = ret == -ENOENT ? "" : ret == (int)RDTALLOC_CGROUP_ENFORCE ? "enforce" : "yield";
	return ret == -ENOENT ? 0 : ret;
}

/* --enforce or --yield set the policy; neither keeps a binding's (a new one yields) */
static int cgroup_bind(int argc, char **argv)
{
	static const char synopsis[] = "cgroup bind [--enforce | --yield] GROUP PATH";
	bool enforce = false, yield = false;
	const struct flag flags[] = {
		{ "--enforce", &enforce, NULL },
		{ "--yield", &yield, NULL },
		{ NULL, NULL, NULL },
	};
	const char *policy;
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("cgroup bind", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	if (enforce && yield)
		return usage_error("cgroup bind: --enforce and --yield exclude each other");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	if (enforce || yield)
		ret = rdtalloc_bind_cgroup_flags(r, argv[0], argv[1],
						 enforce ? RDTALLOC_CGROUP_ENFORCE : 0);
	else
		ret = rdtalloc_bind_cgroup(r, argv[0], argv[1]);
	if (ret < 0)
		return fail_lib(r, ret);
	ret = policy_of(r, argv[1], &policy);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "cgroup", jstr(argv[1]));
	jset(doc, "group", jstr(argv[0]));
	jset_str_or_null(doc, "policy", policy);
	return emit_change(doc, print_bound);
}

/*
 * Unbind, and say so only when it was bound: the group it answers before
 * and after differ (after: an ancestor's binding, or default).
 */
static int cgroup_unbind(int argc, char **argv)
{
	static const char synopsis[] = "cgroup unbind PATH";
	char group[RDTALLOC_NAME_MAX + 1], parent[RDTALLOC_NAME_MAX + 1];
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_cgroup_group(r, argv[0], group, sizeof(group));
	if (ret < 0)
		return fail_lib(r, ret);
	ret = rdtalloc_bind_cgroup(r, "default", argv[0]);
	if (ret < 0)
		return fail_lib(r, ret);
	ret = rdtalloc_cgroup_group(r, argv[0], parent, sizeof(parent));
	if (ret < 0)
		return fail_lib(r, ret);
	if (!strcmp(group, parent))
		return fail_msg("cgroup %s is not bound%s%s", argv[0],
				strcmp(group, "default") ? ": it is in group " : "",
				strcmp(group, "default") ? group : "");
	doc = jobj();
	jset(doc, "cgroup", jstr(argv[0]));
	jset(doc, "group", jstr(parent));
	return emit_change(doc, print_bound);
}

static int add_binding(const char *path, const char *group, void *arg)
{
	json_object *o = jobj();

	jset(o, "cgroup", jstr(path));
	jset(o, "group", jstr(group));
	jpush(arg, o);
	return 0;
}

static void print_bindings(json_object *a)
{
	size_t n = json_object_array_length(a);

	if (!n)
		printf("no cgroup is bound\n");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);

		/* tab-separated columns, as scripts read them: the owner is in -j */
		printf("%s\t%s\t%s\n", jget_str(o, "group"), jget_str(o, "cgroup"),
		       jget_str(o, "policy"));
	}
}

/*
 * A binding's owner and policy (null: unknown, not bound itself, or its
 * cgroup is gone and cannot be looked up).
 */
static int add_owner(rdtalloc_t *r, json_object *o)
{
	char owner[RDTALLOC_OWNER_MAX + 1];
	const char *policy;
	int ret = rdtalloc_cgroup_owner(r, jget_str(o, "cgroup"), owner, sizeof(owner));

	if (ret == -ENOMEM)
		return fail_lib(r, ret);
	jset_str_or_null(o, "owner", ret > 0 ? owner : "");
	ret = policy_of(r, jget_str(o, "cgroup"), &policy);
	if (ret == -ENOMEM)
		return fail_lib(r, ret);
	jset_str_or_null(o, "policy", ret < 0 ? "" : policy);
	return EXIT_OK;
}

/* Each binding's owner and policy, asked once the walk is over (it holds the lock). */
static int add_owners(rdtalloc_t *r, json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (add_owner(r, json_object_array_get_idx(a, i)))
			return EXIT_FAIL;
	return EXIT_OK;
}

static void print_one(json_object *o)
{
	printf("%s\n", jget_str(o, "group"));
}

static int cgroup_show(int argc, char **argv)
{
	static const char synopsis[] = "cgroup show [PATH]";
	char group[RDTALLOC_NAME_MAX + 1];
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	MAX_ARGS(1, synopsis);
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (argc == 1) {
		ret = rdtalloc_cgroup_group(r, argv[0], group, sizeof(group));
		if (ret < 0)
			return fail_lib(r, ret);
		doc = jobj();
		jset(doc, "cgroup", jstr(argv[0]));
		jset(doc, "group", jstr(group));
		if (add_owner(r, doc)) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		return emit(doc, print_one);
	}
	doc = jarr();
	ret = rdtalloc_cgroup_foreach(r, add_binding, doc);
	if (ret < 0) {
		json_object_put(doc);
		return fail_lib(r, ret);
	}
	if (add_owners(r, doc)) {
		json_object_put(doc);
		return EXIT_FAIL;
	}
	return emit(doc, print_bindings);
}

static int cgroup_help(int argc, char **argv)
{
	printf("Usage: rdtctl cgroup bind [--enforce | --yield] GROUP PATH\n"
	       "       rdtctl cgroup unbind PATH\n"
	       "       rdtctl cgroup show [PATH]\n"
	       "PATH: a cgroup v2 path, absolute (/sys/fs/cgroup/a/b) or relative to the\n"
	       "cgroup2 mount (system.slice/myservice.service).\n"
	       "--enforce: a task of the cgroup that another tool moved into its own\n"
	       "resctrl group is moved back; --yield (a new binding's default): it is\n"
	       "left there and reported.\n");
	return EXIT_OK;
}

int do_cgroup(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "bind", cgroup_bind },
		{ "unbind", cgroup_unbind },
		{ "show", cgroup_show },
		{ "help", cgroup_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "cgroup", argc, argv);
}
