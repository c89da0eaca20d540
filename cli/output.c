// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output: what rdtctl prints - one JSON document (json-c) or its human
 * rendering, the drift a look marks, the library's warnings, the JSON
 * builders every command uses, and long lists streamed element by element.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

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

/* Each line of a warning on stderr, unless -q. */
/*
 * Each line once per run: a warning the open gave (a state's section kept
 * aside) is given again by the call that reads the state.
 */
void print_warning_lines(const char *w)
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

/* part / all, 0 when all is 0 (the ratios replays, profiles and plans print) */
double ratio(uint64_t part, uint64_t all)
{
	return all ? (double)part / (double)all : 0;
}
