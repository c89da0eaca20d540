// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dispatch: how rdtctl reads its command line - the global options, verb
 * dispatch, flags, argument helpers (task ids, repeated flags) - and how it
 * fails: errors on stderr (or as JSON with -j) and the documented exit
 * codes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

struct rdtctl_opts g_opts;
bool g_all_tasks;

/* ---- errors ------------------------------------------------------------- */

/*
 * An error on stderr: "rdtctl: MESSAGE", or with -j one JSON object,
 * {"error": MESSAGE, "errno": NAME} - NAME the library's errno ("ENOENT")
 * when the library failed, "EINVAL" for a usage error, else null - so
 * that a script reading -j output reads its errors the same way. The
 * exit status is the same either way.
 */
static void emit_error(int err, const char *fmt, va_list ap)
{
	char msg[2048];
	const char *name = err > 0 ? strerrorname_np(err) : NULL;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (g_opts.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "error", json_object_new_string(msg));
		json_object_object_add(o, "errno", name ? json_object_new_string(name) : NULL);
		fprintf(stderr, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		return;
	}
	fprintf(stderr, "rdtctl: %s\n", msg);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_error(EINVAL, fmt, ap);
	va_end(ap);
	if (!g_opts.json)
		fputs("Try 'rdtctl --help'.\n", stderr);
	return EXIT_USAGE;
}

int fail_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_error(0, fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

int fail_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_error(err, fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

int fail_lib(rdtalloc_t *r, int err)
{
	const char *msg = rdtalloc_errmsg(r);

	if (!msg || !msg[0])
		msg = rdtalloc_strerror(err);
	return fail_errno(err < 0 ? -err : err, "%s", msg);
}

/* ---- dispatch ------------------------------------------------------------- */

static void list_verbs(const struct cmd *cmds, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (const struct cmd *c = cmds; c->name && pos < len; c++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", c == cmds ? "" : ", ",
					c->name);
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv)
{
	const struct cmd *found = NULL;
	const char *sep = object[0] ? " " : "";
	char verbs[256];
	size_t len;
	int matches = 0;

	list_verbs(cmds, verbs, sizeof(verbs));
	if (argc < 1)
		return usage_error("%s%smissing command (one of: %s)", object,
				   object[0] ? ": " : "", verbs);
	len = strlen(argv[0]);
	for (const struct cmd *c = cmds; c->name; c++) {
		if (strcmp(c->name, argv[0]) == 0) {
			found = c;
			matches = 1;
			break;
		}
		if (len && strncmp(c->name, argv[0], len) == 0) {
			found = c;
			matches++;
		}
	}
	if (matches == 0)
		return usage_error("unknown command '%s%s%s' (one of: %s)", object, sep,
				   argv[0], verbs);
	if (matches > 1)
		return usage_error("'%s%s%s' is ambiguous (one of: %s)", object, sep, argv[0],
				   verbs);
	if (argc > 1 && is_help(argv[1]))
		return object[0] ? cmd_help(object, found->name) : cmd_help(found->name, NULL);
	return found->fn(argc - 1, argv + 1);
}

/* "-12": a negative number, left to the verb to reject with a precise message. */
static bool is_negative_number(const char *s)
{
	if (s[0] != '-' || !s[1])
		return false;
	for (s++; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

static bool global_flag(const char *a)
{
	if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
		g_opts.json = true;
	} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
		g_opts.json = g_opts.pretty = true;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		g_opts.quiet = true;
	} else {
		return false;
	}
	return true;
}

/* Match a against flag f: 1 matched (value consumed as needed), 0 not, <0 usage error. */
static int match_flag(const char *verb, const struct flag *f, int *i, int argc, char **argv)
{
	const char *a = argv[*i];
	size_t n = strlen(f->name);

	if (strncmp(a, f->name, n) != 0 || (a[n] != '\0' && a[n] != '='))
		return 0;
	if (!f->value) {
		if (a[n] == '=')
			return -usage_error("%s: option '%s' takes no value", verb, f->name);
		*f->set = true;
		return 1;
	}
	if (a[n] == '=') {
		*f->value = a + n + 1;
	} else {
		if (*i + 1 >= argc)
			return -usage_error("%s: option '%s' needs a value", verb, f->name);
		*f->value = argv[++*i];
	}
	if (f->set)
		*f->set = true;
	return 1;
}

/*
 * A --help among a verb's flags: its help, and the command ends there (no
 * verb goes on after parse_flags with nothing done but a return of 0).
 */
static void __attribute__((noreturn)) help_exit(const char *verb)
{
	char object[64];
	const char *sp = strchr(verb, ' ');

	snprintf(object, sizeof(object), "%.*s", sp ? (int)(sp - verb) : (int)strlen(verb), verb);
	cmd_help(object, sp ? sp + 1 : NULL);
	fflush(stdout);
	exit(EXIT_OK);
}

int parse_flags(const char *verb, int *argc, char **argv, const struct flag *flags)
{
	bool help = false;
	int out = 0, i;

	for (i = 0; i < *argc; i++) {
		const char *a = argv[i];
		int m = 0;

		if (!strcmp(a, "--")) {
			for (i++; i < *argc; i++)
				argv[out++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1] || is_negative_number(a)) {
			argv[out++] = argv[i];
			continue;
		}
		if (global_flag(a))
			continue;
		if (is_help(a))
			help = true;
		if (help)
			continue;
		for (const struct flag *f = flags; f && f->name && !m; f++)
			m = match_flag(verb, f, &i, *argc, argv);
		if (m < 0)
			return EXIT_USAGE;
		if (!m)
			return usage_error("%s: unknown option '%s'", verb, a);
	}
	*argc = out;
	if (help)
		help_exit(verb);
	return 0;
}

const char *precedence_name(int prec)
{
	return prec == RDTALLOC_PRECEDENCE_TASK ? "task" : "cpu";
}

const char *precedence_text(const char *name)
{
	if (name && !strcmp(name, "task"))
		return "a task of a non-default group runs with its group's allocation on "
		       "every CPU; other tasks with the CPU's group's";
	return "a CPU bound to a group runs every task with that group's allocation; on "
	       "other CPUs a task runs with its own group's";
}

bool parse_tid(const char *s, pid_t *tid)
{
	long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	if (v == 0)
		return false;
	*tid = (pid_t)v;
	return true;
}

/* One option that may repeat: "--name V" or "--name=V" at argv[*i]; its value or NULL. */
const char *flag_repeated(const char *name, int argc, char **argv, int *i)
{
	size_t len = strlen(name);

	if (!strncmp(argv[*i], name, len) && argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}
