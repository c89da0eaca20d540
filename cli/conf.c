// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conf: whole configurations - rdtctl save [--tasks], apply FILE|- [--prune]
 * [--dry-run] [--missing-tasks=fail|skip], and reset. The format
 * (docs/config.md) and every check are the library's; rdtctl reads the file
 * and prints the library's report of the changes, and their count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static void print_text(json_object *o)
{
	fputs(jget_str(o, "config"), stdout);
}

/* The configuration text (malloc'd); NULL when reported. */
static char *save_text(rdtalloc_t *r, unsigned int fl)
{
	size_t len = 4096;
	char *buf = NULL;
	int ret;

	for (;;) {
		char *nb = realloc(buf, len);

		if (!nb) {
			free(buf);
			fail_msg("out of memory");
			return NULL;
		}
		buf = nb;
		ret = rdtalloc_save_config_flags(r, fl, buf, len);
		if (ret < 0) {
			free(buf);
			fail_lib(r, ret);
			return NULL;
		}
		if ((size_t)ret < len)
			return buf;
		/* the state may grow between two calls: ask again */
		len = (size_t)ret + 1;
	}
}

/* One resource's masks of a group as goresctrl's cache-id map: {"ID": "0xM" | {code, data}}. */
static int gore_cat(FILE *f, rdtalloc_t *r, const char *group, const struct domref *doms,
		    int nd, const char *res, const char *key)
{
	struct rdtalloc_mask_info m;
	bool first = true;

	for (int i = 0; i < nd; i++) {
		if (strcmp(doms[i].res, res))
			continue;
		if (group_mask(r, group, res, doms[i].id, &m))
			return -1;
		if (first)
			fprintf(f, "        %s:\n", key);
		first = false;
		if (doms[i].cdp)
			/* goresctrl wants unified too: what the data gets, were CDP off */
			fprintf(f, "          \"%u\":\n            unified: \"0x%llx\"\n"
				"            code: \"0x%llx\"\n            data: \"0x%llx\"\n",
				doms[i].id, (unsigned long long)m.mask,
				(unsigned long long)m.code_mask, (unsigned long long)m.mask);
		else
			fprintf(f, "          \"%u\": \"0x%llx\"\n", doms[i].id,
				(unsigned long long)m.mask);
	}
	return 0;
}

/* A group's MB: {"ID": ["N%"]} (percent machines only: AMD's 1/8 GB/s has no percentage). */
static int gore_mb(FILE *f, rdtalloc_t *r, const char *group, const struct domref *doms, int nd)
{
	struct rdtalloc_mask_info m;
	bool first = true;

	for (int i = 0; i < nd; i++) {
		if (strcmp(doms[i].res, "MB"))
			continue;
		if (group_mask(r, group, "MB", doms[i].id, &m))
			return -1;
		if (first)
			fprintf(f, "        mbAllocation:\n");
		first = false;
		fprintf(f, "          \"%u\": [\"%llu%%\"]\n", doms[i].id,
			(unsigned long long)m.mask);
	}
	return 0;
}

/* A class's kubernetes options, as the last goresctrl configuration applied gave them. */
static void gore_policy(FILE *f, rdtalloc_t *r, const char *group)
{
	int deny = rdtalloc_goresctrl_policy(r, group);

	if (deny <= 0)
		return;
	fprintf(f, "        kubernetes:\n");
	if (deny & RDTALLOC_GORESCTRL_DENY_POD)
		fprintf(f, "          denyPodAnnotation: true\n");
	if (deny & RDTALLOC_GORESCTRL_DENY_CONTAINER)
		fprintf(f, "          denyContainerAnnotation: true\n");
}

/*
 * The state as a goresctrl configuration (containerd's and CRI-O's
 * rdt_config_file): one partition of every way, each group a class with
 * its masks as they are (a class's mask is relative to its partition's
 * first bit: here bit 0) and its MB in percent. Our import reads it back
 * to the same schemas. What goresctrl cannot say is said in comments:
 * exclusive modes, and MB on AMD (1/8 GB/s).
 */
static char *save_goresctrl(rdtalloc_t *r)
{
	struct rdtalloc_resource_info ri;
	struct domref *doms;
	char **names, *text = NULL;
	bool amd = false, mb = false;
	size_t len = 0;
	FILE *f;
	int nd, n, i;

	nd = list_domains(r, NULL, &doms);
	if (nd < 0)
		return NULL;
	n = list_groups(r, &names);
	if (n < 0) {
		free(doms);
		return NULL;
	}
	for (i = 0; i < rdtalloc_resource_count(r); i++) {
		ri = (struct rdtalloc_resource_info){ .sz = sizeof(ri) };
		if (!rdtalloc_get_resource_info(r, (unsigned int)i, &ri) && !strcmp(ri.name, "MB")) {
			mb = true;
			amd = ri.bandwidth_amd;
		}
	}
	f = open_memstream(&text, &len);
	if (!f)
		goto out;
	fprintf(f, "# rdtctl save --format goresctrl: the groups of this state as goresctrl\n"
		"# classes (rdt_config_file of containerd and CRI-O)\n");
	if (mb && amd)
		fprintf(f, "# MB is in 1/8 GB/s here (AMD): goresctrl has no such value, so the\n"
			"# groups' MB is not written\n");
	fprintf(f, "options:\n  l2:\n    optional: true\n  l3:\n    optional: true\n"
		"  mb:\n    optional: true\npartitions:\n  rdtalloc:\n"
		"    l3Allocation: \"100%%\"\n");
	for (i = 0; i < nd; i++)
		if (!strcmp(doms[i].res, "L2")) {
			fprintf(f, "    l2Allocation: \"100%%\"\n");
			break;
		}
	if (mb && !amd)
		fprintf(f, "    mbAllocation: [\"100%%\"]\n");
	fprintf(f, "    classes:\n");
	for (i = 0; i < n; i++) {
		int mode = rdtalloc_group_get_mode(r, names[i]);

		if (mode > 0 && (mode & RDTALLOC_MODE_EXCLUSIVE))
			fprintf(f, "      # %s is exclusive here: goresctrl has no exclusive mode\n",
				names[i]);
		fprintf(f, "      %s:\n", strcmp(names[i], "default") ? names[i] : "system/default");
		if (gore_cat(f, r, names[i], doms, nd, "L3", "l3Allocation") ||
		    gore_cat(f, r, names[i], doms, nd, "L2", "l2Allocation") ||
		    (mb && !amd && gore_mb(f, r, names[i], doms, nd))) {
			fclose(f);
			free(text);
			text = NULL;
			goto out;
		}
		gore_policy(f, r, names[i]);
	}
	if (fclose(f)) {
		free(text);
		text = NULL;
	}
out:
	if (!text)
		fail_msg("out of memory");
	free_names(names, n);
	free(doms);
	return text;
}

int do_save(int argc, char **argv)
{
	static const char synopsis[] = "save [--tasks] [--format rdtalloc|goresctrl]";
	const char *format = "rdtalloc";
	bool tasks = false;
	const struct flag flags[] = {
		{ "--tasks", &tasks, NULL },
		{ "--format", NULL, &format },
		{ NULL, NULL, NULL },
	};
	json_object *doc;
	rdtalloc_t *r;
	char *buf;
	int ret;

	ret = parse_flags("save", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, synopsis);
	if (strcmp(format, "rdtalloc") && strcmp(format, "goresctrl"))
		return usage_error("save: --format '%s': use rdtalloc or goresctrl", format);
	if (tasks && !strcmp(format, "goresctrl"))
		return usage_error("save: --tasks and --format goresctrl: a goresctrl "
				   "configuration has no tasks (the runtime places them)");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	buf = !strcmp(format, "goresctrl") ? save_goresctrl(r) :
	      save_text(r, tasks ? RDTALLOC_SAVE_TASKS : 0);
	if (!buf)
		return EXIT_FAIL;
	doc = jobj();
	jset(doc, "config", jstr(buf));
	free(buf);
	return emit(doc, print_text);
}

/* The whole of a file, or of stdin for "-" (malloc'd, NUL-terminated). */
static char *read_all(const char *path)
{
	return read_input(path, "configuration", RDTALLOC_CONFIG_MAX);
}

/* A goresctrl configuration resolved into ours (rdtalloc_goresctrl_config); NULL: said why. */
static char *from_goresctrl(rdtalloc_t *r, const char *yaml)
{
	/* room for what 1,024 classes resolve to: the file is read once, not sized first */
	size_t cap = 256 << 10;
	char *out = malloc(cap), *more;
	int n;

	if (!out) {
		fail_msg("out of memory");
		return NULL;
	}
	n = rdtalloc_goresctrl_config(r, yaml, strlen(yaml), out, cap);
	if (n >= 0 && (size_t)n >= cap) {
		more = realloc(out, (size_t)n + 1);
		if (!more) {
			free(out);
			fail_msg("out of memory");
			return NULL;
		}
		out = more;
		n = rdtalloc_goresctrl_config(r, yaml, strlen(yaml), out, (size_t)n + 1);
	}
	if (n < 0) {
		free(out);
		fail_lib(r, n);
		return NULL;
	}
	return out;
}

static bool is_skip(const char *line)
{
	return !strncmp(line, "skip ", 5);
}

/*
 * The changes on stdout, one a line, then the count; the tasks skipped are
 * warnings on stderr. With -q (a dry run only gets here then) the count alone.
 */
static void print_applied(json_object *o)
{
	json_object *lines = jget(o, "lines");
	long long n = jget_int(o, "changes");
	size_t i, nl = lines ? json_object_array_length(lines) : 0;

	for (i = 0; i < nl && !g_opts.quiet; i++) {
		const char *l = json_object_get_string(json_object_array_get_idx(lines, i));

		if (is_skip(l))
			fprintf(stderr, "rdtctl: warning: %s\n", l);
		else
			printf("%s\n", l);
	}
	if (jget_bool(o, "dry_run"))
		printf("%s is valid: applying it would make %lld change%s\n",
		       jget_str(o, "file"), n, n == 1 ? "" : "s");
	else
		printf("applied %s: %lld change%s\n", jget_str(o, "file"), n, n == 1 ? "" : "s");
}

/* The report split into lines, as a JSON array. */
static json_object *report_lines(char *report)
{
	json_object *a = jarr();
	char *line, *save = NULL;

	for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		jpush(a, jstr(line));
	return a;
}

/*
 * Apply text: the count of changes in *changes, the report in *report
 * (malloc'd). Its length is learnt from a dry run first: a real apply
 * cannot be asked twice. EXIT_OK, or EXIT_FAIL (reported).
 */
/*
 * An error of a configuration made from a goresctrl file cites a line of
 * that configuration, which the user never saw: it is said of the class
 * (and partition) whose group block holds the line instead.
 */
static int fail_goresctrl(rdtalloc_t *r, int err, const char *text)
{
	const char *msg = rdtalloc_errmsg(r), *p = text, *rest;
	char cls[128] = "", part[128] = "";
	unsigned long line, n;

	if (strncmp(msg, "line ", 5) || !(line = strtoul(msg + 5, (char **)&rest, 10)) ||
	    strncmp(rest, ": ", 2))
		return fail_lib(r, err);
	for (n = 1; p && *p && n <= line; n++, p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "group %127s # partition %127s", cls, part) == 2 ||
		    sscanf(p, "group %127s\t# partition %127s", cls, part) == 2)
			continue;
	if (!cls[0])
		return fail_lib(r, err);
	return fail_msg("class %s (partition %s): %s", strcmp(cls, "default") ? cls :
			"system/default", part, rest + 2);
}

/*
 * The configuration's name when the file has no `name` line: its base name
 * without the extension (/etc/rdt/web.conf: web), so that each file prunes
 * only what it made; stdin has none ("default").
 */
static void config_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	char *dot;

	buf[0] = '\0';
	if (!strcmp(path, "-"))
		return;
	snprintf(buf, len, "%s", base ? base + 1 : path);
	dot = strchr(buf, '.');
	if (dot && dot != buf)
		*dot = '\0';
}

/*
 * The configuration applied as name's: text, or yaml when not NULL
 * (goresctrl's, text its resolution).
 */
static int apply_one(rdtalloc_t *r, const char *text, const char *yaml, const char *name,
		     unsigned int fl, char *report, size_t len, size_t *need)
{
	if (yaml)
		return rdtalloc_goresctrl_apply(r, yaml, strlen(yaml), name, fl, report, len, need);
	return rdtalloc_apply_config_as(r, text, name, fl, report, len, need);
}

static int apply_text(rdtalloc_t *r, const char *text, const char *yaml, const char *name,
		      unsigned int fl, int *changes, char **report)
{
	size_t need = 0, len;
	int ret;

	*report = NULL;
	ret = apply_one(r, text, yaml, name, fl | RDTALLOC_APPLY_DRY_RUN, NULL, 0, &need);
	if (ret < 0)
		return yaml ? fail_goresctrl(r, ret, text) : fail_lib(r, ret);
	/* room for what another process may change in between */
	len = need * 2 + 4096;
	*report = malloc(len);
	if (!*report)
		return fail_msg("out of memory");
	ret = apply_one(r, text, yaml, name, fl, *report, len, &need);
	if (ret < 0) {
		free(*report);
		*report = NULL;
		return yaml ? fail_goresctrl(r, ret, text) : fail_lib(r, ret);
	}
	if (need >= len)
		fprintf(stderr, "rdtctl: warning: the state changed during apply: "
			"the list of changes is cut short\n");
	*changes = ret;
	return EXIT_OK;
}

int do_apply(int argc, char **argv)
{
	static const char synopsis[] =
		"apply FILE|- [--prune|--prune-all] [--dry-run] [--missing-tasks=fail|skip] "
		"[--force-machine] [--format rdtalloc|goresctrl] [--name NAME]";
	bool prune = false, prune_all = false, dry = false, force_machine = false;
	const char *cname = NULL;
	char name[256];
	const char *missing = "fail", *format = "rdtalloc";
	const struct flag flags[] = {
		{ "--prune", &prune, NULL },
		{ "--prune-all", &prune_all, NULL },
		{ "--name", NULL, &cname },
		{ "--dry-run", &dry, NULL },
		{ "--force-machine", &force_machine, NULL },
		{ "--missing-tasks", NULL, &missing },
		{ "--format", NULL, &format },
		{ NULL, NULL, NULL },
	};
	char *converted = NULL;
	unsigned int fl = 0;
	json_object *doc;
	char *text, *report;
	rdtalloc_t *r;
	int ret, changes = 0;

	ret = parse_flags("apply", &argc, argv, flags);
	if (ret)
		return ret;
	if (strcmp(missing, "fail") && strcmp(missing, "skip"))
		return usage_error("apply: --missing-tasks '%s': use fail or skip", missing);
	if (strcmp(format, "rdtalloc") && strcmp(format, "goresctrl"))
		return usage_error("apply: --format '%s': use rdtalloc or goresctrl", format);
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	text = read_all(argv[0]);
	if (!text)
		return EXIT_FAIL;
	r = dry ? ctx_ro() : ctx();	/* a dry run writes nothing, nor makes a state */
	if (!r) {
		free(text);
		return EXIT_FAIL;
	}
	if (prune)
		fl |= RDTALLOC_APPLY_PRUNE;
	if (prune_all)
		fl |= RDTALLOC_APPLY_PRUNE_ALL;
	if (cname)
		snprintf(name, sizeof(name), "%s", cname);
	else
		config_name(argv[0], name, sizeof(name));
	if (dry)
		fl |= RDTALLOC_APPLY_DRY_RUN;
	if (force_machine)
		fl |= RDTALLOC_APPLY_FORCE_MACHINE;
	if (!strcmp(missing, "skip"))
		fl |= RDTALLOC_APPLY_SKIP_MISSING_TASKS;
	if (!strcmp(format, "goresctrl")) {
		converted = from_goresctrl(r, text);
		if (!converted) {
			free(text);
			return EXIT_FAIL;
		}
		/* a dry run shows the groups and schemas the file resolves to */
		if (dry && !g_opts.json && !g_opts.quiet)
			fputs(converted, stdout);
	}
	/* goresctrl's: applied from the file, so that its classes' policy is kept too */
	ret = apply_text(r, converted ? converted : text, converted ? text : NULL, name, fl,
			 &changes, &report);
	free(text);
	if (ret) {
		free(converted);
		return ret;
	}
	doc = jobj();
	if (converted)
		jset(doc, "configuration", jstr(converted));
	free(converted);
	jset(doc, "file", jstr(strcmp(argv[0], "-") ? argv[0] : "(stdin)"));
	jset(doc, "changes", jint(changes));
	jset(doc, "dry_run", jbool(dry));
	jset(doc, "prune", jbool(prune || prune_all));
	if (prune_all)
		jset(doc, "prune_all", jbool(true));
	jset(doc, "lines", report_lines(report));
	free(report);
	/* a dry run changes nothing: its verdict is the output, even with -q */
	return dry ? emit(doc, print_applied) : emit_change(doc, print_applied);
}

static void print_reset(json_object *o)
{
	const char *cdp = jget_str(o, "cdp");

	printf("reset: only the default group is left, with every way: %s%s%s\n",
	       jget_str(o, "schema"), *cdp ? "; CDP stays on for " : "", cdp);
}

int do_reset(int argc, char **argv)
{
	const struct flag flags[] = {
		/* the global option, also after the verb: reset --machine DESC */
		{ "--machine", NULL, &g_opts.machine },
		{ NULL, NULL, NULL },
	};
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("reset", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, "reset [--machine DESC]");
	/* with --machine: a state made for another machine is made anew for it */
	r = ctx_replace();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_reset(r);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "reset", jbool(true));
	/* what it restored: the default group's schema, and CDP where it cannot go off */
	{
		char *schema = group_schema(r, "default");
		char cdp[16] = "";

		if (!schema) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		for (char *p = schema; *p; p++)
			if (*p == '\n')
				*p = ' ';
		jset(doc, "schema", jstr(schema));
		free(schema);
		if (rdtalloc_get_cdp(r, "L3") == 1)
			strcat(cdp, "L3");
		if (rdtalloc_get_cdp(r, "L2") == 1)
			strcat(cdp, cdp[0] ? " and L2" : "L2");
		jset(doc, "cdp", jstr(cdp));
	}
	return emit_change(doc, print_reset);
}
