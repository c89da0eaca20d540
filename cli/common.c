// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * common: the machinery every rdtctl command uses - verb dispatch, flags,
 * error reporting and exit codes, the context, JSON or human output, and
 * snapshots of library data into plain arrays. No command logic here.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdtctl.h"

struct rdtctl_opts g_opts;
bool g_all_tasks;

static rdtalloc_t *g_ctx;

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

static int fail_errno(int err, const char *fmt, ...)
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

/* ---- the context ---------------------------------------------------------- */

/* Each line of a warning on stderr, unless -q. */
/*
 * Each line once per run: a warning the open gave (a state's section kept
 * aside) is given again by the call that reads the state.
 */
static void print_warning_lines(const char *w)
{
	static char said[4096];
	size_t used = strlen(said);

	if (g_opts.quiet)
		return;
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "\n");
		bool dup = false;

		for (const char *q = said; *q && !dup; q += strcspn(q, "\n") + 1)
			dup = strcspn(q, "\n") == n && !strncmp(q, p, n);
		if (!dup) {
			fprintf(stderr, "rdtctl: warning: %.*s\n", (int)n, p);
			if (used + n + 1 < sizeof(said)) {
				memcpy(said + used, p, n);
				used += n;
				said[used++] = '\n';
				said[used] = '\0';
			}
		}
		p += n + (p[n] == '\n');
	}
}

void jset_str_or_null(json_object *o, const char *key, const char *s)
{
	if (s && s[0])
		jset(o, key, jstr(s));
	else
		jset_null(o, key);
}

char *cli_owner(rdtalloc_t *r, int (*fn)(rdtalloc_t *, const char *, char *, size_t),
		const char *object)
{
	int n = fn(r, object, NULL, 0);
	char *buf;

	if (n < 0) {
		fail_lib(r, n);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (!buf) {
		fail_msg("out of memory");
		return NULL;
	}
	n = fn(r, object, buf, (size_t)n + 1);
	if (n < 0) {
		free(buf);
		fail_lib(r, n);
		return NULL;
	}
	return buf;
}

void ctx_opts(struct rdtalloc_opts *o, unsigned int flags)
{
	RDTALLOC_OPTS(rdtalloc_opts, v, .backend = g_opts.backend,
		      .state_dir = g_opts.state_dir, .machine = g_opts.machine,
		      .msr_root = g_opts.msr_root, .resctrl_root = g_opts.resctrl_root,
		      .precedence = g_opts.precedence, .max_groups = g_opts.max_groups,
		      .max_tasks = g_opts.max_tasks, .owner = g_opts.owner,
		      .flags = flags | (g_opts.force ? RDTALLOC_F_FORCE : 0));
	*o = v;
}

static rdtalloc_t *ctx_flags(unsigned int flags)
{
	struct rdtalloc_opts o;
	int ret;

	if (g_ctx)
		return g_ctx;
	ctx_opts(&o, flags);
	ret = rdtalloc_open(&g_ctx, &o);
	if (ret) {
		g_ctx = NULL;
		fail_lib(NULL, ret);
		return NULL;
	}
	/* what the open itself did (a killed profile's schema put back) */
	print_warning_lines(rdtalloc_warning(g_ctx));
	return g_ctx;
}

rdtalloc_t *ctx(void)
{
	return ctx_flags(0);
}

/*
 * Read-only commands: nothing created or written (not even a repair of the
 * kernel), and one snapshot of the state answers them.
 */
/* A look: what it prints is marked where the backend does not hold the state. */
static bool g_look;

rdtalloc_t *ctx_ro(void)
{
	g_look = true;
	return ctx_flags(RDTALLOC_F_READ_ONLY | RDTALLOC_F_SNAPSHOT);
}

/*
 * monitor: a look - nothing created or repaired, what is missing marked -
 * that keeps the running totals beside the state (counters.json), so that
 * two runs continue each other.
 */
rdtalloc_t *ctx_monitor(void)
{
	g_look = true;
	return ctx_flags(RDTALLOC_F_READ_ONLY | RDTALLOC_F_MON_TOTALS);
}

/*
 * What-if commands (profile --trace, plan): a machine given (--machine) is
 * the one modelled, on the simulator whatever the host's backend. Its state
 * is looked at when there is one for that machine (a plan keeps off its
 * exclusive groups' ways); a state made for another machine is not in the
 * way, and none is made: nothing is created or bound to the machine given.
 * Without --machine the host's state is looked at, as ctx_ro does.
 */
rdtalloc_t *ctx_whatif(void)
{
	struct rdtalloc_opts o;
	int ret;

	if (!g_opts.machine)
		return ctx_ro();
	if (g_ctx)
		return g_ctx;
	g_look = true;
	ctx_opts(&o, RDTALLOC_F_READ_ONLY | RDTALLOC_F_SNAPSHOT);
	o.backend = "sim";
	ret = rdtalloc_open(&g_ctx, &o);
	if (ret == -EBUSY) {
		/* the state is another machine's: the machine given alone */
		ctx_opts(&o, RDTALLOC_F_EPHEMERAL);
		o.backend = "sim";
		o.state_dir = NULL;
		ret = rdtalloc_open(&g_ctx, &o);
	}
	if (ret) {
		g_ctx = NULL;
		fail_lib(NULL, ret);
	}
	return g_ctx;
}

rdtalloc_t *ctx_replace(void)
{
	return ctx_flags(g_opts.machine ? RDTALLOC_F_REPLACE_MACHINE : 0);
}

void ctx_close(void)
{
	rdtalloc_close(g_ctx);
	g_ctx = NULL;
}

/* ---- output ----------------------------------------------------------------- */

static bool nomem;

static void out_of_memory(void)
{
	nomem = true;
}

/* ---- drift: what a look marks ------------------------------------------------ */

static struct rdtalloc_drift_item *g_drift;
static int g_ndrift = -1;

/* The context's drift (rdtalloc_drift), read once; none when it cannot be read. */
static void drift_load(void)
{
	int n;

	if (g_ndrift >= 0)
		return;
	g_ndrift = 0;
	if (!g_ctx || !g_look)
		return;
	n = rdtalloc_drift(g_ctx, NULL, 0);
	if (n <= 0)
		return;
	g_drift = calloc((size_t)n, sizeof(*g_drift));
	if (!g_drift)
		return;
	g_drift[0].sz = sizeof(*g_drift);
	n = rdtalloc_drift(g_ctx, g_drift, (size_t)n);
	g_ndrift = n > 0 ? n : 0;
}

/* "group db: its control group is missing", or the item alone when about no group */
static json_object *drift_text(const struct rdtalloc_drift_item *d, bool with_group)
{
	char buf[RDTALLOC_NAME_MAX + 256];

	snprintf(buf, sizeof(buf), "%s%s%s%s", with_group && d->group[0] ? "group " : "",
		 with_group ? d->group : "", with_group && d->group[0] ? ": " : "", d->what);
	return jstr(buf);
}

/* o["drift"]: the items of group (NULL: all of them), when there are any. */
static void drift_add(json_object *o, const char *group)
{
	json_object *a = NULL;
	int i;

	for (i = 0; i < g_ndrift; i++) {
		if (group && strcmp(g_drift[i].group, group))
			continue;
		if (!a)
			a = jarr();
		jpush(a, drift_text(&g_drift[i], !group));
	}
	if (a)
		jset(o, "drift", a);
}

/*
 * Mark a look's document: an object or array element about a group
 * ("group" or "name") gets that group's drift, any other object the whole
 * list (info, a domain of closids or map).
 */
void drift_mark(json_object *doc)
{
	json_object *v;
	size_t i;

	drift_load();
	if (!g_ndrift || !doc)
		return;
	if (json_object_is_type(doc, json_type_array)) {
		for (i = 0; i < json_object_array_length(doc); i++)
			drift_mark(json_object_array_get_idx(doc, i));
		return;
	}
	if (!json_object_is_type(doc, json_type_object))
		return;
	if ((json_object_object_get_ex(doc, "group", &v) ||
	     json_object_object_get_ex(doc, "name", &v)) && json_object_is_type(v, json_type_string))
		drift_add(doc, json_object_get_string(v));
	else
		drift_add(doc, NULL);
}

/* Text: a line each on f, each after lead, after what the look printed. */
void drift_fprint(FILE *f, const char *lead)
{
	int i;

	drift_load();
	for (i = 0; i < g_ndrift; i++)
		fprintf(f, "%sdrift: %s%s%s%s (the next change, or the agent, repairs it)\n", lead,
			g_drift[i].group[0] ? "group " : "", g_drift[i].group,
			g_drift[i].group[0] ? ": " : "", g_drift[i].what);
}

void drift_print(void)
{
	drift_fprint(stdout, "");
}

/* The drift read is dropped: a look that reads again (monitor) reads it anew. */
void drift_forget(void)
{
	free(g_drift);
	g_drift = NULL;
	g_ndrift = -1;
}

/*
 * The document printed last is kept, not freed: rdtctl exits right after,
 * and freeing the document of 10,000 groups took a sixth of `rdtctl map`.
 * It stays reachable, so leak checkers do not count it.
 */
static json_object *g_printed;

int emit(json_object *doc, void (*human)(json_object *doc))
{
	if (!doc || nomem) {
		json_object_put(doc);
		return fail_msg("out of memory");
	}
	if (g_look && g_opts.json)
		drift_mark(doc);
	if (g_opts.json) {
		int fl = JSON_C_TO_STRING_NOSLASHESCAPE |
			 (g_opts.pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN);

		puts(json_object_to_json_string_ext(doc, fl));
	} else {
		human(doc);
		if (g_look)
			drift_print();
	}
	/* what the look found about the state itself (a section kept aside) */
	if (g_look && g_ctx)
		print_warning_lines(rdtalloc_warning(g_ctx));
	json_object_put(g_printed);
	g_printed = doc;
	return EXIT_OK;
}

/*
 * The library's warnings of the change just made (rdtalloc_warning): in
 * the JSON document under "warnings", else each on stderr; -q silences them.
 */
static char g_kept[1024];

void keep_warning(void)
{
	const char *w = g_ctx ? rdtalloc_warning(g_ctx) : "";
	size_t n = strlen(g_kept);

	if (w[0])
		snprintf(g_kept + n, sizeof(g_kept) - n, "%s%s", n ? "\n" : "", w);
}

static void warnings(json_object *doc)
{
	char all[sizeof(g_kept) + 512];
	const char *w;
	json_object *a;

	keep_warning();
	snprintf(all, sizeof(all), "%s", g_kept);
	g_kept[0] = '\0';
	w = all;

	if (!w[0] || g_opts.quiet)
		return;
	if (!g_opts.json) {
		print_warning_lines(w);
		return;
	}
	if (!json_object_is_type(doc, json_type_object))
		return;
	a = jarr();
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "\n");
		json_object *line = json_object_new_string_len(p, (int)n);

		if (!line)
			out_of_memory();
		jpush(a, line);
		p += n + (p[n] == '\n');
	}
	jset(doc, "warnings", a);
}

int emit_change(json_object *doc, void (*human)(json_object *doc))
{
	if (g_opts.quiet) {
		json_object_put(doc);
		return EXIT_OK;
	}
	warnings(doc);
	return emit(doc, human);
}

json_object *jobj(void)
{
	json_object *o = json_object_new_object();

	if (!o)
		out_of_memory();
	return o;
}

json_object *jarr(void)
{
	json_object *o = json_object_new_array();

	if (!o)
		out_of_memory();
	return o;
}

void jset(json_object *o, const char *key, json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		out_of_memory();
	}
}

void jset_null(json_object *o, const char *key)
{
	if (!o || json_object_object_add(o, key, NULL))
		out_of_memory();
}

void jpush(json_object *a, json_object *v)
{
	if (!a || !v || json_object_array_add(a, v)) {
		json_object_put(v);
		out_of_memory();
	}
}

json_object *jstr(const char *s)
{
	json_object *o = json_object_new_string(s ? s : "");

	if (!o)
		out_of_memory();
	return o;
}

json_object *jint(long long v)
{
	json_object *o = json_object_new_int64(v);

	if (!o)
		out_of_memory();
	return o;
}

json_object *jbool(bool v)
{
	json_object *o = json_object_new_boolean(v);

	if (!o)
		out_of_memory();
	return o;
}

json_object *jhex(unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", v);
	return jstr(buf);
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *jget_str(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v ? json_object_get_string(v) : "";
}

long long jget_int(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v ? json_object_get_int64(v) : 0;
}

bool jget_bool(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v ? json_object_get_boolean(v) : false;
}

json_object *jcpus(const int *cpus, int n)
{
	json_object *a = jarr();

	for (int i = 0; i < n; i++)
		jpush(a, jint(cpus[i]));
	return a;
}

json_object *jtids(const pid_t *tids, int n)
{
	json_object *a = jarr();

	for (int i = 0; i < n; i++)
		jpush(a, jint(tids[i]));
	return a;
}

/* ---- snapshots ---------------------------------------------------------------- */

struct name_list {
	char **names;
	int n, cap;
};

static int add_name(const char *name, void *arg)
{
	struct name_list *l = arg;

	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **p = realloc(l->names, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->names = p;
		l->cap = cap;
	}
	l->names[l->n] = strdup(name);
	if (!l->names[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int list_groups(rdtalloc_t *r, char ***names)
{
	struct name_list l = { 0 };
	int ret = rdtalloc_group_foreach(r, add_name, &l);

	if (ret < 0) {
		free_names(l.names, l.n);
		*names = NULL;
		if (ret == -ENOMEM && !rdtalloc_errmsg(r)[0])
			fail_msg("out of memory");
		else
			fail_lib(r, ret);
		return ret;
	}
	*names = l.names;
	return l.n;
}

int group_mask(rdtalloc_t *r, const char *group, const char *res, unsigned int id,
	       struct rdtalloc_mask_info *m)
{
	int ret;

	*m = (struct rdtalloc_mask_info){ .sz = sizeof(*m) };
	ret = rdtalloc_group_mask(r, group, res, id, m);
	if (ret < 0)
		fail_lib(r, ret);
	return ret;
}

/*
 * The library's "fill up to max, return how many there are" calls, grown
 * until the whole list fits (it may change between two calls).
 */
#define SNAPSHOT(TYPE, CALL)							\
	({									\
		size_t cap = 64;						\
		TYPE *buf = NULL;						\
		int ret;							\
		for (;;) {							\
			TYPE *nb = realloc(buf, cap * sizeof(TYPE));		\
			if (!nb) {						\
				free(buf);					\
				fail_msg("out of memory");			\
				ret = -ENOMEM;					\
				buf = NULL;					\
				break;						\
			}							\
			buf = nb;						\
			ret = (CALL);						\
			if (ret < 0) {						\
				fail_lib(r, ret);				\
				free(buf);					\
				buf = NULL;					\
				break;						\
			}							\
			if ((size_t)ret <= cap)					\
				break;						\
			cap = (size_t)ret;					\
		}								\
		*out = buf;							\
		ret;								\
	})

int cli_group_tasks(rdtalloc_t *r, const char *group, pid_t **out)
{
	return SNAPSHOT(pid_t, rdtalloc_group_tasks(r, group, buf, cap));
}

int cli_group_cpus(rdtalloc_t *r, const char *group, int **out)
{
	return SNAPSHOT(int, rdtalloc_group_cpus(r, group, buf, cap));
}

int domain_ids(rdtalloc_t *r, const char *res, unsigned int **out)
{
	return SNAPSHOT(unsigned int, rdtalloc_domains(r, res, buf, cap));
}

int domain_cpus(rdtalloc_t *r, const char *res, unsigned int id, int **out)
{
	return SNAPSHOT(int, rdtalloc_domain_cpus(r, res, id, buf, cap));
}

int domain_closids(rdtalloc_t *r, const char *res, unsigned int id,
		   struct rdtalloc_closid_info **out)
{
	return SNAPSHOT(struct rdtalloc_closid_info, rdtalloc_closids(r, res, id, buf, cap));
}

int list_domains(rdtalloc_t *r, const char *res, struct domref **out)
{
	struct domref *list = NULL;
	int nres = rdtalloc_resource_count(r), n = 0;

	*out = NULL;
	if (nres < 0)
		return fail_lib(r, nres), nres;
	for (int i = 0; i < nres; i++) {
		struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };
		unsigned int *ids;
		struct domref *nl;
		int ret = rdtalloc_get_resource_info(r, (unsigned int)i, &ri);

		if (ret < 0) {
			free(list);
			return fail_lib(r, ret), ret;
		}
		if (res && strcasecmp(res, ri.name) != 0)
			continue;
		ret = domain_ids(r, ri.name, &ids);
		if (ret < 0) {
			free(list);
			return ret;
		}
		nl = realloc(list, ((size_t)n + (size_t)ret + 1) * sizeof(*list));
		if (!nl) {
			free(ids);
			free(list);
			fail_msg("out of memory");
			return -ENOMEM;
		}
		list = nl;
		for (int k = 0; k < ret; k++) {
			snprintf(list[n].res, sizeof(list[n].res), "%s", ri.name);
			list[n].id = ids[k];
			list[n].cdp = ri.cdp_enabled;
			list[n].cbm_len = ri.cbm_len;
			list[n].cache_size = 0;
			if (ri.cbm_len) {
				unsigned int ways;

				if (rdtalloc_domain_cache(r, ri.name, ids[k], &list[n].cache_size,
							  &ways))
					list[n].cache_size = 0;	/* unknown: shown as "?" */
			}
			n++;
		}
		free(ids);
	}
	*out = list;
	return n;
}

char *group_schema(rdtalloc_t *r, const char *group)
{
	size_t len = 1024;
	char *buf = NULL;

	for (;;) {
		char *nb = realloc(buf, len);
		int ret;

		if (!nb) {
			free(buf);
			fail_msg("out of memory");
			return NULL;
		}
		buf = nb;
		ret = rdtalloc_get_schema(r, group, buf, len);
		if (ret >= 0 && (size_t)ret < len) {
			while (ret > 0 && buf[ret - 1] == '\n')
				buf[--ret] = '\0';
			return buf;
		}
		if (ret < 0 && ret != -ERANGE) {
			fail_lib(r, ret);
			free(buf);
			return NULL;
		}
		len = ret > 0 ? (size_t)ret + 1 : len * 4;
	}
}

char *cpulist_text(const int *cpus, size_t n)
{
	int len = rdtalloc_format_cpulist(cpus, n, NULL, 0);
	char *s;

	if (len < 0) {
		fail_lib(NULL, len);
		return NULL;
	}
	s = malloc((size_t)len + 1);
	if (!s) {
		fail_msg("out of memory");
		return NULL;
	}
	rdtalloc_format_cpulist(cpus, n, s, (size_t)len + 1);
	return s;
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

/*
 * A list too long to hold as one document (group show of 10,000 groups):
 * each element is printed as soon as it is made and freed, as one JSON
 * array (-j) or element by element (human). -p pretty-prints the whole
 * array, so it is collected first.
 */
struct stream {
	void (*human)(json_object *o);
	json_object *all;	/* -p: the array being collected */
	bool first;
};

static void stream_begin(struct stream *s, void (*human)(json_object *o))
{
	s->human = human;
	s->first = true;
	s->all = g_opts.json && g_opts.pretty ? jarr() : NULL;
	if (g_opts.json && !s->all)
		fputc('[', stdout);
}

static int stream_item(struct stream *s, json_object *o)
{
	if (!o || nomem) {
		json_object_put(o);
		return fail_msg("out of memory");
	}
	if (g_look && g_opts.json)
		drift_mark(o);
	if (s->all) {
		jpush(s->all, o);
		return EXIT_OK;
	}
	if (g_opts.json)
		printf("%s%s", s->first ? "" : ",",
		       json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE |
							 JSON_C_TO_STRING_PLAIN));
	else
		s->human(o);
	s->first = false;
	json_object_put(o);
	return EXIT_OK;
}

static int stream_end(struct stream *s)
{
	if (s->all)
		return emit(s->all, NULL);
	if (g_opts.json)
		fputs("]\n", stdout);
	else if (g_look)
		drift_print();
	return EXIT_OK;
}

int emit_list(int n, json_object *(*item)(int i, void *arg), void *arg,
	      void (*human)(json_object *o))
{
	struct stream s;
	int ret = EXIT_OK;

	stream_begin(&s, human);
	for (int i = 0; i < n && ret == EXIT_OK; i++) {
		json_object *o = item(i, arg);

		if (!o) {
			if (s.all)
				json_object_put(s.all);
			else if (g_opts.json)
				fputs("]\n", stdout);
			return EXIT_FAIL;
		}
		ret = stream_item(&s, o);
	}
	return ret == EXIT_OK ? stream_end(&s) : ret;
}

int show_groups(const char *verb, int argc, char **argv, const struct flag *flags,
		json_object *(*one)(rdtalloc_t *r, const char *group),
		void (*print_one)(json_object *doc), void (*print_all)(json_object *doc))
{
	char synopsis[64], **names;
	json_object *doc;
	rdtalloc_t *r;
	int n, ret;

	ret = parse_flags(verb, &argc, argv, flags);
	if (ret)
		return ret;
	snprintf(synopsis, sizeof(synopsis), "%s [GROUP]", verb);
	MAX_ARGS(1, synopsis);
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (argc == 1) {
		doc = one(r, argv[0]);
		return doc ? emit(doc, print_one) : EXIT_FAIL;
	}
	n = list_groups(r, &names);
	if (n < 0)
		return EXIT_FAIL;
	doc = jarr();
	for (int i = 0; i < n; i++) {
		json_object *o = one(r, names[i]);

		if (!o) {
			json_object_put(doc);
			free_names(names, n);
			return EXIT_FAIL;
		}
		jpush(doc, o);
	}
	free_names(names, n);
	return emit(doc, print_all);
}
