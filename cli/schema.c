// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * schema: rdtctl schema set|show. The text is the library's to parse; set
 * joins several SCHEMA arguments with newlines ("L3:0=ff" "L2:0=f").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

/* argv[0..argc-1] joined by '\n' (malloc'd). */
static char *join_lines(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		memcpy(p, argv[i], n);
		p += n;
		if (i + 1 < argc)
			*p++ = '\n';
	}
	*p = '\0';
	return s;
}

static void print_one(json_object *o)
{
	puts(jget_str(o, "schema"));
}

static void print_set(json_object *o)
{
	const char *s = jget_str(o, "schema");

	if (!s[0]) {
		printf("schema of %s set\n", jget_str(o, "group"));
		return;
	}
	printf("%s: ", jget_str(o, "group"));
	for (; *s; s++) {
		putchar(*s);
		if (*s == '\n')
			printf("%*s", (int)strlen(jget_str(o, "group")) + 2, "");
	}
	putchar('\n');
}

static int schema_set(int argc, char **argv)
{
	static const char synopsis[] = "schema set GROUP SCHEMA...";
	json_object *doc;
	char *text;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("schema set", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	text = join_lines(argc - 1, argv + 1);
	if (!text)
		return fail_msg("out of memory");
	r = ctx();
	if (!r) {
		free(text);
		return EXIT_FAIL;
	}
	ret = rdtalloc_set_schema(r, argv[0], text);
	free(text);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "group", jstr(argv[0]));
	/* read back what the library holds now; -q skips the extra call */
	if (!g_opts.quiet) {
		char *now = group_schema(r, argv[0]);

		if (!now) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		jset(doc, "schema", jstr(now));
		free(now);
	}
	return emit_change(doc, print_set);
}

static void print_all(json_object *a)
{
	size_t w = 0, n = json_object_array_length(a);

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(jget_str(json_object_array_get_idx(a, i), "group"));

		if (l > w)
			w = l;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		const char *s = jget_str(o, "schema");

		printf("%-*s  ", (int)w, jget_str(o, "group"));
		for (; *s; s++) {
			putchar(*s);
			if (*s == '\n')
				printf("%*s", (int)w + 2, "");
		}
		putchar('\n');
	}
}

static json_object *schema_doc(rdtalloc_t *r, const char *group)
{
	char *text = group_schema(r, group);
	json_object *o;

	if (!text)
		return NULL;
	o = jobj();
	jset(o, "group", jstr(group));
	jset(o, "schema", jstr(text));
	free(text);
	return o;
}

static int schema_show(int argc, char **argv)
{
	return show_groups("schema show", argc, argv, NULL, schema_doc, print_one, print_all);
}

static int schema_help(int argc, char **argv)
{
	printf("Usage: rdtctl schema set GROUP SCHEMA...   e.g. 'L3:0=f8000;1=fffff'\n"
	       "       rdtctl schema show [GROUP]\n");
	return EXIT_OK;
}

int do_schema(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "set", schema_set },
		{ "show", schema_show },
		{ "help", schema_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "schema", argc, argv);
}
