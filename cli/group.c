// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * group: rdtctl group create|remove|list|show. Also the per-group document
 * (schema, CPUs, tasks, CLOSIDs) that `group show` prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static void print_change(json_object *doc)
{
	const char *schema = jget_str(doc, "schema");

	printf("%s group %s", jget_bool(doc, "created") ? "created" : "removed",
	       jget_str(doc, "group"));
	if (schema[0])
		printf(" with schema %s", schema);
	putchar('\n');
}

static int group_create(int argc, char **argv)
{
	static const char synopsis[] = "group create NAME [--schema SCHEMA] [--exclusive [--force]]";
	const char *schema = NULL;
	bool exclusive = false, force = false;
	const struct flag flags[] = {
		{ "--schema", NULL, &schema },
		{ "--exclusive", &exclusive, NULL },
		{ "--force", &force, NULL },
		{ NULL, NULL, NULL },
	};
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("group create", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_group_create(r, argv[0]);
	if (ret < 0)
		return fail_lib(r, ret);
	if (schema || exclusive) {
		ret = schema ? rdtalloc_set_schema(r, argv[0], schema) : 0;
		if (ret >= 0 && exclusive)
			keep_warning();	/* the schema's, before the mode call replaces it */
		if (ret >= 0 && exclusive)
			ret = rdtalloc_group_set_mode(r, argv[0], RDTALLOC_MODE_EXCLUSIVE |
						      (force ? RDTALLOC_MODE_FORCE : 0));
		if (ret < 0) {
			/* a group with the wrong schema or mode must not remain */
			char *msg = strdup(rdtalloc_errmsg(r));
			int rm = rdtalloc_group_remove(r, argv[0]);

			if (msg && msg[0])
				fail_msg("%s", msg);
			else
				fail_msg("%s", rdtalloc_strerror(ret));
			free(msg);
			if (rm < 0)
				fail_msg("and group %s could not be removed again: %s", argv[0],
					 rdtalloc_errmsg(r));
			return EXIT_FAIL;
		}
	}
	doc = jobj();
	jset(doc, "group", jstr(argv[0]));
	jset(doc, "created", jbool(true));
	if (schema) {
		char *text = group_schema(r, argv[0]);

		if (!text) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		jset(doc, "schema", jstr(text));
		free(text);
	}
	return emit_change(doc, print_change);
}

/* group mode NAME exclusive|shareable [--force] */
static void print_mode(json_object *o)
{
	printf("group %s is %s\n", jget_str(o, "group"), jget_str(o, "mode"));
}

static int group_mode(int argc, char **argv)
{
	static const char synopsis[] = "group mode NAME exclusive|shareable [--force]";
	bool force = false;
	const struct flag flags[] = {
		{ "--force", &force, NULL },
		{ NULL, NULL, NULL },
	};
	unsigned int mode;
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("group mode", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	if (!strcmp(argv[1], "exclusive"))
		mode = RDTALLOC_MODE_EXCLUSIVE | (force ? RDTALLOC_MODE_FORCE : 0);
	else if (!strcmp(argv[1], "shareable"))
		mode = RDTALLOC_MODE_SHAREABLE;
	else
		return usage_error("group mode: '%s' is neither exclusive nor shareable", argv[1]);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_group_set_mode(r, argv[0], mode);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "group", jstr(argv[0]));
	jset(doc, "mode", jstr(argv[1]));
	return emit_change(doc, print_mode);
}

static int group_remove(int argc, char **argv)
{
	static const char synopsis[] = "group remove NAME";
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("group remove", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_group_remove(r, argv[0]);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "group", jstr(argv[0]));
	jset(doc, "removed", jbool(true));
	return emit_change(doc, print_change);
}

static void print_list(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		puts(json_object_get_string(json_object_array_get_idx(a, i)));
}

static int group_list(int argc, char **argv)
{
	json_object *doc;
	char **names;
	rdtalloc_t *r;
	int n, ret;

	ret = parse_flags("group list", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "group list");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	n = list_groups(r, &names);
	if (n < 0)
		return EXIT_FAIL;
	doc = jarr();
	for (int i = 0; i < n; i++)
		jpush(doc, jstr(names[i]));
	free_names(names, n);
	return emit(doc, print_list);
}

/* The CBM length of a cache resource (0: unknown, or MB), asked once per resource. */
static unsigned int cbm_len_of(rdtalloc_t *r, const char *res)
{
	static struct {
		char name[8];
		unsigned int len;
	} known[4];
	static int nknown = -1;

	if (nknown < 0) {
		int n = rdtalloc_resource_count(r);

		nknown = 0;
		for (int i = 0; i < n && nknown < 4; i++) {
			struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };

			if (rdtalloc_get_resource_info(r, (unsigned int)i, &ri) < 0)
				continue;
			snprintf(known[nknown].name, sizeof(known[nknown].name), "%s", ri.name);
			known[nknown++].len = ri.cbm_len;
		}
	}
	for (int i = 0; i < nknown; i++)
		if (!strcmp(known[i].name, res))
			return known[i].len;
	return 0;
}

/*
 * A domain's mask in a group's schema text: the data half (half 0) or the
 * code half (1) of "RES:id=m" / "RES:id=d,c" / "RESDATA:" / "RESCODE:" lines.
 */
static bool schema_mask(const char *schema, const char *res, unsigned int id, int half,
			uint64_t *mask)
{
	size_t rl = strlen(res);

	for (const char *line = schema; line && *line; line = strchr(line, '\n') ?
	     strchr(line, '\n') + 1 : NULL) {
		const char *p = line + rl;
		int h = -1;

		if (strncmp(line, res, rl))
			continue;
		if (*p == ':')
			h = 2;
		else if (!strncmp(p, "DATA:", 5))
			h = 0, p += 4;
		else if (!strncmp(p, "CODE:", 5))
			h = 1, p += 4;
		if (h < 0 || (h != 2 && h != half))
			continue;
		for (p++; *p && *p != '\n';) {
			char *end;
			unsigned long d = strtoul(p, &end, 10);
			uint64_t m = *end == '=' ? strtoull(end + 1, &end, 16) : 0;

			if (*end == ',') {
				uint64_t c = strtoull(end + 1, &end, 16);

				if (half == 1)
					m = c;
			}
			if (d == id) {
				*mask = m;
				return true;
			}
			p = *end == ';' ? end + 1 : end;
			if (*end != ';')
				break;
		}
	}
	return false;
}

/*
 * The allocation in bytes as resctrl's size: cache size / CBM length x set
 * bits, dividing first as the kernel does; -1: unknown.
 */
static long long alloc_bytes(rdtalloc_t *r, const char *schema, const struct domref *d, int half)
{
	unsigned int len = cbm_len_of(r, d->res), ways;
	uint64_t mask, size;

	if (!len || !schema_mask(schema, d->res, d->id, half, &mask) ||
	    rdtalloc_domain_cache(r, d->res, d->id, &size, &ways) || !size)
		return -1;
	return (long long)(size / len * (uint64_t)__builtin_popcountll(mask));
}

/* The CLOSIDs the group holds, one per domain, with the bytes its masks give it. */
static json_object *group_closids(rdtalloc_t *r, const char *name, const char *schema,
				  const struct domref *doms, int ndoms)
{
	json_object *a = jarr();

	for (int i = 0; i < ndoms; i++) {
		unsigned int closid;
		json_object *o;
		int ret = rdtalloc_group_closid(r, name, doms[i].res, doms[i].id, &closid);

		if (ret < 0 && ret != -ESTALE) {
			fail_lib(r, ret);
			json_object_put(a);
			return NULL;
		}
		o = jobj();
		jset(o, "resource", jstr(doms[i].res));
		jset(o, "cache_id", jint(doms[i].id));
		/* -ESTALE: its control group is missing (drift, marked): no CLOSID now */
		if (ret == -ESTALE)
			jset_null(o, "closid");
		else
			jset(o, "closid", jint(closid));
		if (strcmp(doms[i].res, "MB")) {
			long long b = alloc_bytes(r, schema, &doms[i], 0);

			jset(o, "bytes", b < 0 ? NULL : jint(b));
			if (doms[i].cdp) {
				b = alloc_bytes(r, schema, &doms[i], 1);
				jset(o, "code_bytes", b < 0 ? NULL : jint(b));
			}
		}
		jpush(a, o);
	}
	return a;
}

static json_object *group_doc(rdtalloc_t *r, const char *name, const struct domref *doms,
			      int ndoms)
{
	json_object *o, *cl;
	char *schema, *list;
	pid_t *tids;
	int *cpus, nc, nt, mode;

	schema = group_schema(r, name);
	if (!schema)
		return NULL;
	nc = group_cpus(r, name, &cpus);
	if (nc < 0) {
		free(schema);
		return NULL;
	}
	list = cpulist_text(cpus, (size_t)nc);
	nt = group_tasks(r, name, &tids);
	cl = nt < 0 || !list ? NULL : group_closids(r, name, schema, doms, ndoms);
	if (!cl) {
		free(schema);
		free(cpus);
		free(list);
		if (nt >= 0)
			free(tids);
		return NULL;
	}
	mode = rdtalloc_group_get_mode(r, name);
	if (mode < 0) {
		fail_lib(r, mode);
		json_object_put(cl);
		free(schema);
		free(cpus);
		free(list);
		free(tids);
		return NULL;
	}
	o = jobj();
	jset(o, "name", jstr(name));
	jset(o, "mode", jstr(mode & RDTALLOC_MODE_EXCLUSIVE ? "exclusive" : "shareable"));
	if (mode & RDTALLOC_MODE_FORCE)
		jset(o, "forced", jbool(true));
	jset(o, "schema", jstr(schema));
	jset(o, "cpus", jcpus(cpus, nc));
	jset(o, "cpulist", jstr(list));
	jset(o, "tasks", jtids(tids, nt));
	jset(o, "closids", cl);
	{
		int rmid, ret = rdtalloc_group_rmid(r, name, &rmid);

		/* null: no L3 monitoring, or no RMID of its own (counted with default) */
		if (ret || rmid < 0)
			jset_null(o, "rmid");
		else
			jset(o, "rmid", jint(rmid));
		if (!ret)
			jset(o, "monitored", jbool(rmid >= 0));
	}
	free(schema);
	free(cpus);
	free(list);
	free(tids);
	return o;
}

/* 9.0 MiB, 512 KiB, 100 B */
static void print_bytes(long long b)
{
	if (b >= 1 << 20)
		printf("%.1f MiB", b / 1048576.0);
	else if (b >= 1 << 10)
		printf("%.1f KiB", b / 1024.0);
	else
		printf("%lld B", b);
}

static void print_group(json_object *o)
{
	json_object *tasks = jget(o, "tasks"), *cl = jget(o, "closids");
	const char *schema = jget_str(o, "schema");
	const char *list = jget_str(o, "cpulist");
	size_t nt = json_object_array_length(tasks);

	printf("group %s%s\n", jget_str(o, "name"),
	       !strcmp(jget_str(o, "mode"), "exclusive") ? " (exclusive)" : "");
	printf("  schema:  ");
	for (const char *p = schema; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			printf("           ");
	}
	printf("\n  cpus:    %s\n", list[0] ? list : "(none)");
	printf("  tasks:   ");
	if (!nt)
		printf("(none)");
	for (size_t i = 0; i < nt; i++)
		printf("%s%lld", i ? " " : "",
		       (long long)json_object_get_int64(json_object_array_get_idx(tasks, i)));
	printf("\n  closids:");
	for (size_t i = 0; i < json_object_array_length(cl); i++) {
		json_object *c = json_object_array_get_idx(cl, i);

		if (jget(c, "closid"))
			printf(" %s/%lld=%lld", jget_str(c, "resource"), jget_int(c, "cache_id"),
			       jget_int(c, "closid"));
		else	/* its control group is missing: drift */
			printf(" %s/%lld=-", jget_str(c, "resource"), jget_int(c, "cache_id"));
	}
	if (jget(o, "monitored"))
		printf("\n  rmid:    %s", jget(o, "rmid") ? json_object_get_string(jget(o, "rmid")) :
		       "none: out of RMIDs, its traffic counts with the default group's");
	printf("\n  size:   ");
	for (size_t i = 0; i < json_object_array_length(cl); i++) {
		json_object *c = json_object_array_get_idx(cl, i), *b = jget(c, "bytes");

		if (!strcmp(jget_str(c, "resource"), "MB"))
			continue;
		printf(" %s/%lld=", jget_str(c, "resource"), jget_int(c, "cache_id"));
		if (!b)
			printf("?");
		else
			print_bytes(json_object_get_int64(b));
		if ((b = jget(c, "code_bytes")))
			putchar(','), print_bytes(json_object_get_int64(b));
	}
	putchar('\n');
}

struct show_arg {
	rdtalloc_t *r;
	char **names;
	const struct domref *doms;
	int nd;
};

static json_object *show_item(int i, void *arg)
{
	const struct show_arg *a = arg;

	return group_doc(a->r, a->names[i], a->doms, a->nd);
}

static int group_show(int argc, char **argv)
{
	struct domref *doms;
	json_object *doc;
	char **names;
	rdtalloc_t *r;
	int n, nd, ret;

	ret = parse_flags("group show", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(1, "group show [NAME]");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	nd = list_domains(r, NULL, &doms);
	if (nd < 0)
		return EXIT_FAIL;
	if (argc == 1) {
		doc = group_doc(r, argv[0], doms, nd);
		free(doms);
		return doc ? emit(doc, print_group) : EXIT_FAIL;
	}
	n = list_groups(r, &names);
	if (n < 0) {
		free(doms);
		return EXIT_FAIL;
	}
	{
		struct show_arg a = { r, names, doms, nd };

		ret = emit_list(n, show_item, &a, print_group);
	}
	free_names(names, n);
	free(doms);
	return ret;
}

static int group_help(int argc, char **argv)
{
	printf("Usage: rdtctl group create NAME [--schema SCHEMA] [--exclusive [--force]]\n"
	       "       rdtctl group mode NAME exclusive|shareable [--force]\n"
	       "       rdtctl group remove NAME\n"
	       "       rdtctl group list\n"
	       "       rdtctl group show [NAME]\n");
	return EXIT_OK;
}

int do_group(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "create", group_create },
		{ "remove", group_remove },
		{ "mode", group_mode },
		{ "list", group_list },
		{ "show", group_show },
		{ "help", group_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "group", argc, argv);
}
