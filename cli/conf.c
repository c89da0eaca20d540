// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conf: whole configurations - rdtctl save, apply FILE|- [--prune]
 * [--dry-run], and reset. The format (docs/config.md) and every check are
 * the library's; rdtctl reads the file and reports the count of changes.
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

int do_save(int argc, char **argv)
{
	json_object *doc;
	rdtalloc_t *r;
	size_t len = 4096;
	char *buf = NULL;
	int ret;

	ret = parse_flags("save", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "save");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	for (;;) {
		char *nb = realloc(buf, len);

		if (!nb) {
			free(buf);
			return fail_msg("out of memory");
		}
		buf = nb;
		ret = rdtalloc_save_config(r, buf, len);
		if (ret >= 0 && (size_t)ret < len)
			break;
		if (ret < 0 && ret != -ERANGE) {
			free(buf);
			return fail_lib(r, ret);
		}
		len = ret > 0 ? (size_t)ret + 1 : len * 4;
	}
	doc = jobj();
	jset(doc, "config", jstr(buf));
	free(buf);
	return emit(doc, print_text);
}

/* Grow buf to hold the whole stream; NULL (reported) on error. */
static char *slurp(FILE *f, const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);

	while (buf) {
		len += fread(buf + len, 1, cap - len - 1, f);
		if (ferror(f)) {
			fail_msg("cannot read %s: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		if (feof(f)) {
			buf[len] = '\0';
			if (strlen(buf) != len) {
				fail_msg("%s holds a NUL byte: it is not a configuration", path);
				free(buf);
				return NULL;
			}
			return buf;
		}
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	fail_msg("out of memory reading %s", path);
	return NULL;
}

/* The whole of a file, or of stdin for "-" (malloc'd, NUL-terminated). */
static char *read_all(const char *path)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	char *buf;

	if (!f) {
		fail_msg("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = slurp(f, is_stdin ? "standard input" : path);
	if (!is_stdin)
		fclose(f);
	return buf;
}

static void print_applied(json_object *o)
{
	long long n = jget_int(o, "changes");

	if (jget_bool(o, "dry_run"))
		printf("%s is valid: applying it would make %lld change%s\n",
		       jget_str(o, "file"), n, n == 1 ? "" : "s");
	else
		printf("applied %s: %lld change%s\n", jget_str(o, "file"), n, n == 1 ? "" : "s");
}

int do_apply(int argc, char **argv)
{
	static const char synopsis[] = "apply FILE|- [--prune] [--dry-run]";
	bool prune = false, dry = false;
	const struct flag flags[] = {
		{ "--prune", &prune, NULL },
		{ "--dry-run", &dry, NULL },
		{ NULL, NULL, NULL },
	};
	unsigned int fl = 0;
	json_object *doc;
	rdtalloc_t *r;
	char *text;
	int ret;

	ret = parse_flags("apply", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	text = read_all(argv[0]);
	if (!text)
		return EXIT_FAIL;
	r = ctx();
	if (!r) {
		free(text);
		return EXIT_FAIL;
	}
	if (prune)
		fl |= RDTALLOC_APPLY_PRUNE;
	if (dry)
		fl |= RDTALLOC_APPLY_DRY_RUN;
	ret = rdtalloc_apply_config(r, text, fl);
	free(text);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "file", jstr(strcmp(argv[0], "-") ? argv[0] : "(stdin)"));
	jset(doc, "changes", jint(ret));
	jset(doc, "dry_run", jbool(dry));
	jset(doc, "prune", jbool(prune));
	/* a dry run changes nothing: its verdict is the output, even with -q */
	return dry ? emit(doc, print_applied) : emit_change(doc, print_applied);
}

static void print_reset(json_object *o)
{
	printf("reset: only the default group is left, every mask is all-ones, CDP is off\n");
}

int do_reset(int argc, char **argv)
{
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("reset", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "reset");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_reset(r);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "reset", jbool(true));
	return emit_change(doc, print_reset);
}
