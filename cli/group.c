// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * group: rdtctl group create|remove|list|show. Also the per-group document
 * (schema, CPUs, tasks, CLOSIDs) that `group show` prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static void print_change(json_object *doc)
{
	const char *schema = jget_str(doc, "schema");

	int width = printf("%s group %s", jget_bool(doc, "created") ? "created" : "removed",
			   jget_str(doc, "group"));

	/* a schema of several lines (L3 and MB): each under the first */
	if (schema[0]) {
		width += printf(" with schema ");
		for (const char *p = schema; *p; p++) {
			putchar(*p);
			if (*p == '\n' && p[1])
				printf("%*s", width, "");
		}
	}
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

/*
 * The allocation in bytes as resctrl's size: cache size / CBM length x set
 * bits, dividing first as the kernel does; -1: unknown.
 */
static long long alloc_bytes(uint64_t mask, const struct domref *d)
{
	if (!d->cbm_len || !d->cache_size)
		return -1;
	return (long long)(d->cache_size / d->cbm_len * (uint64_t)__builtin_popcountll(mask));
}

/*
 * What `group show` says of one group, read once: printed as text
 * straight from here, or made into the JSON document (-j). Text does
 * not go through JSON: at 10,000 groups building and freeing the
 * documents cost a quarter of the command.
 */
struct gshow_dom {
	bool stale;		/* its control group is missing (drift): no CLOSID now */
	unsigned int closid;
	long long bytes, code_bytes;	/* -1: unknown */
};

struct gshow {
	const char *name;
	int mode;
	char *schema, *cpulist;
	int *cpus, nc;
	pid_t *tids;
	int nt;
	struct gshow_dom *dom;	/* one per domref */
	int rmid_ret, rmid;
	char *owner, *mask_owner;	/* "": unknown */
};

static void gshow_free(struct gshow *g)
{
	free(g->schema);
	free(g->cpulist);
	free(g->cpus);
	free(g->tids);
	free(g->dom);
	free(g->owner);
	free(g->mask_owner);
	memset(g, 0, sizeof(*g));
}

/* The CLOSIDs the group holds, one per domain, with the bytes its masks give it. */
static int gshow_closids(rdtalloc_t *r, struct gshow *g, const struct domref *doms, int ndoms)
{
	g->dom = calloc((size_t)ndoms + 1, sizeof(*g->dom));
	if (!g->dom)
		return fail_msg("out of memory"), -ENOMEM;
	for (int i = 0; i < ndoms; i++) {
		struct gshow_dom *d = &g->dom[i];
		int ret = rdtalloc_group_closid(r, g->name, doms[i].res, doms[i].id, &d->closid);
		struct rdtalloc_mask_info m;

		if (ret < 0 && ret != -ESTALE)
			return fail_lib(r, ret), ret;
		d->stale = ret == -ESTALE;
		d->bytes = d->code_bytes = -1;
		if (!strcmp(doms[i].res, "MB"))
			continue;
		ret = group_mask(r, g->name, doms[i].res, doms[i].id, &m);
		if (ret)
			return ret;
		d->bytes = alloc_bytes(m.mask, &doms[i]);
		if (doms[i].cdp)
			d->code_bytes = alloc_bytes(m.code_mask, &doms[i]);
	}
	return 0;
}

/* 0, or -1 with the message printed and g freed. */
static int gshow_fill(rdtalloc_t *r, const char *name, const struct domref *doms, int ndoms,
		      struct gshow *g)
{
	memset(g, 0, sizeof(*g));
	g->name = name;
	g->schema = group_schema(r, name);
	if (!g->schema)
		goto fail;
	g->nc = cli_group_cpus(r, name, &g->cpus);
	if (g->nc < 0)
		goto fail;
	g->cpulist = cpulist_text(g->cpus, (size_t)g->nc);
	if (!g->cpulist) {
		fail_msg("out of memory");
		goto fail;
	}
	g->nt = cli_group_tasks(r, name, &g->tids);
	if (g->nt < 0)
		goto fail;
	if (gshow_closids(r, g, doms, ndoms))
		goto fail;
	g->mode = rdtalloc_group_get_mode(r, name);
	if (g->mode < 0) {
		fail_lib(r, g->mode);
		goto fail;
	}
	/* rmid_ret != 0: no L3 monitoring; rmid < 0: no RMID of its own (counted with default) */
	g->rmid_ret = rdtalloc_group_rmid(r, name, &g->rmid);
	g->owner = cli_owner(r, rdtalloc_group_owner, name);
	g->mask_owner = g->owner ? cli_owner(r, rdtalloc_schema_owner, name) : NULL;
	if (!g->mask_owner)
		goto fail;
	return 0;
fail:
	gshow_free(g);
	return -1;
}

static json_object *gshow_json(const struct gshow *g, const struct domref *doms, int ndoms)
{
	json_object *o = jobj(), *cl = jarr();

	for (int i = 0; i < ndoms; i++) {
		const struct gshow_dom *d = &g->dom[i];
		json_object *c = jobj();

		jset(c, "resource", jstr(doms[i].res));
		jset(c, "cache_id", jint(doms[i].id));
		if (d->stale)
			jset_null(c, "closid");
		else
			jset(c, "closid", jint(d->closid));
		if (strcmp(doms[i].res, "MB")) {
			jset(c, "bytes", d->bytes < 0 ? NULL : jint(d->bytes));
			if (doms[i].cdp)
				jset(c, "code_bytes", d->code_bytes < 0 ? NULL : jint(d->code_bytes));
		}
		jpush(cl, c);
	}
	jset(o, "name", jstr(g->name));
	jset(o, "mode", jstr(g->mode & RDTALLOC_MODE_EXCLUSIVE ? "exclusive" : "shareable"));
	if (g->mode & RDTALLOC_MODE_FORCE)
		jset(o, "forced", jbool(true));
	jset(o, "schema", jstr(g->schema));
	jset(o, "cpus", jcpus(g->cpus, g->nc));
	jset(o, "cpulist", jstr(g->cpulist));
	jset(o, "tasks", jtids(g->tids, g->nt));
	jset(o, "ntasks", jint(g->nt));
	jset(o, "closids", cl);
	if (g->rmid_ret || g->rmid < 0)
		jset_null(o, "rmid");
	else
		jset(o, "rmid", jint(g->rmid));
	if (!g->rmid_ret)
		jset(o, "monitored", jbool(g->rmid >= 0));
	jset_str_or_null(o, "owner", g->owner);
	jset_str_or_null(o, "mask_owner", g->mask_owner);
	return o;
}

static json_object *group_doc(rdtalloc_t *r, const char *name, const struct domref *doms,
			      int ndoms)
{
	struct gshow g;
	json_object *o;

	if (gshow_fill(r, name, doms, ndoms, &g))
		return NULL;
	o = gshow_json(&g, doms, ndoms);
	gshow_free(&g);
	return o;
}

/*
 * b / 2^shift to one decimal, rounded as printf's %.1f rounds (to nearest,
 * a tie to even): integer arithmetic, as a group show of 10,000 groups
 * prints 20,000 of these.
 */
static void put_tenths(uint64_t b, unsigned int shift, const char *unit)
{
	uint64_t x = b * 10, q = x >> shift, rem = x & ((1ull << shift) - 1);
	uint64_t half = 1ull << (shift - 1);

	if (rem > half || (rem == half && (q & 1)))
		q++;
	printf("%" PRIu64 ".%" PRIu64 " %s", q / 10, q % 10, unit);
}

/* 9.0 MiB, 512 KiB, 100 B */
static void print_bytes(long long b)
{
	if (b >= 1 << 20)
		put_tenths((uint64_t)b, 20, "MiB");
	else if (b >= 1 << 10)
		put_tenths((uint64_t)b, 10, "KiB");
	else
		printf("%lld B", b);
}

/* A number without printf's format parsing: task lists run to thousands. */
static void put_num(long long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	fputs(p, stdout);
}

static void put_dom(const struct domref *d)
{
	putchar(' ');
	fputs(d->res, stdout);
	putchar('/');
	put_num(d->id);
	putchar('=');
}

static void gshow_print(const struct gshow *g, const struct domref *doms, int ndoms)
{
	fputs("group ", stdout);
	fputs(g->name, stdout);
	fputs(g->mode & RDTALLOC_MODE_EXCLUSIVE ? " (exclusive)\n" : "\n", stdout);
	/* the default group is nobody's */
	if (strcmp(g->name, "default")) {
		fputs("  owner:   ", stdout);
		fputs(g->owner[0] ? g->owner : "unknown", stdout);
		if (strcmp(g->owner, g->mask_owner)) {
			fputs(" (mask: ", stdout);
			fputs(g->mask_owner[0] ? g->mask_owner : "unknown", stdout);
			putchar(')');
		}
		putchar('\n');
	}
	fputs("  schema:  ", stdout);
	for (const char *p = g->schema; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			fputs("           ", stdout);
	}
	fputs("\n  cpus:    ", stdout);
	fputs(g->cpulist[0] ? g->cpulist : "(none)", stdout);
	fputs("\n  tasks:   ", stdout);
	if (!g->nt)
		fputs("(none)", stdout);
	for (int i = 0; i < g->nt && (g_all_tasks || i < TASKS_SHOWN); i++) {
		if (i)
			putchar(' ');
		put_num(g->tids[i]);
	}
	if (!g_all_tasks && g->nt > TASKS_SHOWN)
		printf(" ... (%d in all; --all lists them)", g->nt);
	fputs("\n  closids:", stdout);
	for (int i = 0; i < ndoms; i++) {
		put_dom(&doms[i]);
		if (g->dom[i].stale)	/* its control group is missing: drift */
			putchar('-');
		else
			put_num(g->dom[i].closid);
	}
	if (!g->rmid_ret) {
		fputs("\n  rmid:    ", stdout);
		if (g->rmid >= 0)
			put_num(g->rmid);
		else
			fputs("none: out of RMIDs, its traffic counts with the default group's",
			      stdout);
	}
	fputs("\n  size:   ", stdout);
	for (int i = 0; i < ndoms; i++) {
		if (!strcmp(doms[i].res, "MB"))
			continue;
		put_dom(&doms[i]);
		if (g->dom[i].bytes < 0)
			putchar('?');
		else
			print_bytes(g->dom[i].bytes);
		if (doms[i].cdp) {
			putchar(',');
			if (g->dom[i].code_bytes < 0)
				putchar('?');
			else
				print_bytes(g->dom[i].code_bytes);
		}
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

/* Text: each group printed as it is read, no document made. */
static int show_text(rdtalloc_t *r, char **names, int n, const struct domref *doms, int nd)
{
	for (int i = 0; i < n; i++) {
		struct gshow g;

		if (gshow_fill(r, names[i], doms, nd, &g))
			return EXIT_FAIL;
		gshow_print(&g, doms, nd);
		gshow_free(&g);
	}
	drift_print();		/* for a look only: nothing otherwise */
	return EXIT_OK;
}

static int group_show(int argc, char **argv)
{
	const struct flag flags[] = { { "--all", &g_all_tasks, NULL }, { NULL, NULL, NULL } };
	struct domref *doms;
	char **names, *one[1];
	rdtalloc_t *r;
	int n, nd, ret;

	ret = parse_flags("group show", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(1, "group show [NAME] [--all]");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	nd = list_domains(r, NULL, &doms);
	if (nd < 0)
		return EXIT_FAIL;
	if (argc == 1) {
		one[0] = argv[0];
		if (!g_opts.json) {
			ret = show_text(r, one, 1, doms, nd);
		} else {
			json_object *doc = group_doc(r, argv[0], doms, nd);

			ret = doc ? emit(doc, NULL) : EXIT_FAIL;
		}
		free(doms);
		return ret;
	}
	n = list_groups(r, &names);
	if (n < 0) {
		free(doms);
		return EXIT_FAIL;
	}
	if (!g_opts.json) {
		ret = show_text(r, names, n, doms, nd);
	} else {
		struct show_arg a = { r, names, doms, nd };

		ret = emit_list(n, show_item, &a, NULL);
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
	       "       rdtctl group show [NAME] [--all]\n");
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
