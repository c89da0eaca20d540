// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * config: the parser of the `rdtctl save` / `apply` text (docs/config.md)
 * into struct rdt_config, and the group-name rule (rdt_name_valid). It
 * checks what can be checked from the text alone - keywords, names, CPU
 * lists, task ids, a group/task/CPU given twice - and leaves whether the
 * configuration fits the machine (schemas, CPUs that exist, CLOSIDs) to the
 * core, which applies it. Linear in the size of the text.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "errors.h"
#include "hw/engine.h"
#include "machine.h"

bool rdt_name_valid(const char *name)
{
	size_t n = 0;

	if (!name || name[0] == '\0' || name[0] == '.')
		return false;
	for (; name[n]; n++) {
		char c = name[n];

		if (n >= RDTALLOC_NAME_MAX)
			return false;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* ---- a small open-addressing hash: key -> group index ------------------- */

/*
 * Used to find a group named twice and a task listed in two groups without
 * quadratic scans (a saved configuration may hold 10,000 groups). Slots
 * hold index + 1; 0 is empty. Keys live elsewhere: the table only hashes.
 */
struct index_set {
	unsigned int *slot;
	size_t cap;		/* power of two */
	size_t used;
};

static uint64_t hash_bytes(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t hash_int(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void set_free(struct index_set *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->used = 0;
}

/* Insert (hash, value) without checking for an equal key. */
static void set_put(struct index_set *s, uint64_t h, unsigned int value)
{
	size_t i = h & (s->cap - 1);

	while (s->slot[i])
		i = (i + 1) & (s->cap - 1);
	s->slot[i] = value + 1;
	s->used++;
}

/* Make room for one more entry; rehash needs each entry's hash again. */
static int set_reserve(struct index_set *s, uint64_t (*rehash)(unsigned int v, void *arg),
		       void *arg)
{
	struct index_set n = { 0 };

	if (s->cap && (s->used + 1) * 2 <= s->cap)
		return 0;
	n.cap = s->cap ? s->cap * 2 : 64;
	n.slot = calloc(n.cap, sizeof(*n.slot));
	if (!n.slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		if (s->slot[i])
			set_put(&n, rehash(s->slot[i] - 1, arg), s->slot[i] - 1);
	}
	free(s->slot);
	*s = n;
	return 0;
}

/* ---- the parser ------------------------------------------------------- */

/* Where a task id was listed: its group and line, for "already in group" messages. */
struct task_ref {
	pid_t tid;
	unsigned int group;
	unsigned int line;
};

/* What the parser keeps per group besides the output: allocation sizes. */
struct group_room {
	size_t schema_cap, schema_len;	/* bytes of groups[i].schema */
	size_t cpus_cap, tasks_cap;	/* entries of groups[i].cpus / .tasks */
};

struct parser {
	struct rdt_config *c;
	size_t groups_cap;
	struct group_room *room;	/* [groups_cap] */
	long cur;			/* open block, -1 before the first `group` */
	unsigned int line;
	struct index_set names;		/* group names */
	struct task_ref *tasks;		/* every task listed, in file order */
	size_t ntasks, tasks_cap;
	struct index_set tids;		/* index into tasks */
	unsigned int ncgroups;		/* `cgroup` lines in all */
	const char *text;		/* the whole text, for the end line's checksum */
	size_t line_start;		/* offset of the current line in text */
	unsigned int cpu_owner[RDT_MAX_CPUS];	/* group index + 1; 0: none */
	unsigned int cpu_line[RDT_MAX_CPUS];	/* where it was listed */
	char *err;
	size_t errlen;
};

static int conf_fail(struct parser *p, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int conf_fail(struct parser *p, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errlen)
		return ret;
	n = snprintf(p->err, p->errlen, "line %u: ", p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

static int fail_nomem(struct parser *p)
{
	return conf_fail(p, -ENOMEM, "out of memory");
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * A token of the text, quoted into messages: at most 40 bytes, control
 * characters and non-ASCII bytes shown as '?', so that a message stays one
 * readable line whatever the input held.
 */
static const char *shown(const char *s, size_t n, char out[48])
{
	bool cut = n > 40;
	size_t i;

	if (cut)
		n = 40;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		out[i] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
	}
	if (cut) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}

static uint64_t rehash_name(unsigned int v, void *arg)
{
	struct parser *p = arg;

	return hash_bytes(p->c->groups[v].name);
}

static uint64_t rehash_task(unsigned int v, void *arg)
{
	struct parser *p = arg;

	return hash_int((uint64_t)p->tasks[v].tid);
}

/* The group called name, or -1. */
static long conf_find_group(struct parser *p, const char *name)
{
	struct index_set *s = &p->names;
	size_t i;

	if (!s->cap)
		return -1;
	for (i = hash_bytes(name) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1)) {
		unsigned int g = s->slot[i] - 1;

		if (strcmp(p->c->groups[g].name, name) == 0)
			return g;
	}
	return -1;
}

/* The earlier listing of tid, or NULL. */
static const struct task_ref *find_task(struct parser *p, pid_t tid)
{
	struct index_set *s = &p->tids;
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = hash_int((uint64_t)tid) & (s->cap - 1); s->slot[i];
	     i = (i + 1) & (s->cap - 1)) {
		const struct task_ref *t = &p->tasks[s->slot[i] - 1];

		if (t->tid == tid)
			return t;
	}
	return NULL;
}

static int grow_groups(struct parser *p)
{
	struct rdt_config *c = p->c;
	size_t cap = p->groups_cap ? p->groups_cap * 2 : 8;
	void *g, *room;

	g = realloc(c->groups, cap * sizeof(*c->groups));
	if (!g)
		return -ENOMEM;
	c->groups = g;
	room = realloc(p->room, cap * sizeof(*p->room));
	if (!room)
		return -ENOMEM;
	p->room = room;
	p->groups_cap = cap;
	return 0;
}

/* Make room for `more` entries in an array of `size`-byte items. */
static int reserve(void **arr, size_t *cap, size_t used, size_t more, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (used + more <= *cap)
		return 0;
	while (ncap < used + more)
		ncap *= 2;
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* `group NAME` */
static int stmt_group(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_group *g;
	char name[RDTALLOC_NAME_MAX + 2], q[48];
	long prev;

	if (len == 0)
		return conf_fail(p, -EINVAL, "'group' needs a name, e.g. 'group p1'");
	for (size_t i = 0; i < len; i++) {
		if (is_blank(arg[i]))
			return conf_fail(p, -EINVAL, "'group' takes one name, got '%s'",
				    shown(arg, len, q));
	}
	if (len > RDTALLOC_NAME_MAX)
		return conf_fail(p, -EINVAL, "group name '%s' is longer than %d characters",
			    shown(arg, len, q), RDTALLOC_NAME_MAX);
	memcpy(name, arg, len);
	name[len] = '\0';
	if (!rdt_name_valid(name))
		return conf_fail(p, -EINVAL, "invalid group name '%s': use 1 to %d of [A-Za-z0-9_.-], "
			    "not starting with '.'", shown(arg, len, q), RDTALLOC_NAME_MAX);
	prev = conf_find_group(p, name);
	if (prev >= 0)
		return conf_fail(p, -EINVAL, "group %s is already defined at line %u", name,
			    p->c->groups[prev].line);
	if (p->c->ngroups == p->groups_cap && grow_groups(p))
		return fail_nomem(p);
	if (set_reserve(&p->names, rehash_name, p))
		return fail_nomem(p);
	g = &p->c->groups[p->c->ngroups];
	memset(g, 0, sizeof(*g));
	g->mode = -1;
	memcpy(g->name, name, len + 1);
	g->line = p->line;
	memset(&p->room[p->c->ngroups], 0, sizeof(p->room[0]));
	set_put(&p->names, hash_bytes(name), p->c->ngroups);
	p->cur = p->c->ngroups++;
	return 0;
}

/* `schema TEXT`: several lines join with '\n'; the text is the core's to check. */
static int stmt_schema(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_group *g = &p->c->groups[p->cur];
	size_t *cap = &p->room[p->cur].schema_cap, *used = &p->room[p->cur].schema_len;
	size_t need;

	if (len == 0)
		return conf_fail(p, -EINVAL, "'schema' needs the schema text, e.g. 'schema L3:0=ff'");
	need = *used + (*used ? 1 : 0) + len + 1;
	if (need > *cap) {
		size_t ncap = *cap ? *cap : 64;
		char *s;

		while (ncap < need)
			ncap *= 2;
		s = realloc(g->schema, ncap);
		if (!s)
			return fail_nomem(p);
		g->schema = s;
		*cap = ncap;
	}
	if (*used)
		g->schema[(*used)++] = '\n';
	else
		g->schema_line = p->line;
	memcpy(g->schema + *used, arg, len);
	*used += len;
	g->schema[*used] = '\0';
	return 0;
}

/*
 * `cpus LIST`: not in the default block; several lines add up (sorted at
 * the end); a CPU may be in one group only.
 */
/* mode exclusive [force] | mode shareable */
static int stmt_mode(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_group *g = &p->c->groups[p->cur];
	char word[32];

	if (g->mode >= 0)
		return conf_fail(p, -EINVAL, "group %s: 'mode' given twice (first on line %u)", g->name,
			    g->mode_line);
	snprintf(word, sizeof(word), "%.*s", (int)(len < 31 ? len : 31), arg);
	if (!strcmp(word, "exclusive") || !strcmp(word, "exclusive force")) {
		g->mode = 1;
		g->mode_force = !strcmp(word, "exclusive force");
	} else if (!strcmp(word, "shareable")) {
		g->mode = 0;
	} else {
		return conf_fail(p, -EINVAL, "mode '%s': use exclusive, exclusive force or shareable",
			    word);
	}
	g->mode_line = p->line;
	return 0;
}

/*
 * `cgroup PATH` (the binding yields) or `cgroup-enforce PATH` (it enforces,
 * docs/guide.md "Tasks another tool moved"): one cgroup per line. A path
 * may hold blanks, not '#', so the policy is a keyword of its own rather
 * than a word after the path. The path is checked against the machine when
 * applied; here only that it is not given twice.
 */
static int add_cgroup(struct parser *p, const char *arg, size_t len, bool enforce)
{
	struct rdt_config_group *g = &p->c->groups[p->cur];
	const char *kw = enforce ? "cgroup-enforce" : "cgroup";
	unsigned int *lines;
	bool *pol;
	char **v;
	char q[48];

	if (strcmp(g->name, "default") == 0)
		return conf_fail(p, -EINVAL, "the default group takes no '%s' line: the cgroups "
			    "no other group holds are its already", kw);
	if (len == 0)
		return conf_fail(p, -EINVAL, "'%s' takes a cgroup path, e.g. "
			    "'%s system.slice/myservice.service'", kw, kw);
	if (len >= RDT_CGROUP_PATH_MAX)
		return conf_fail(p, -EINVAL, "cgroup path '%s' is longer than %d bytes",
			    shown(arg, len, q), RDT_CGROUP_PATH_MAX - 1);
	for (unsigned int i = 0; i < p->c->ngroups; i++)
		for (unsigned int k = 0; k < p->c->groups[i].ncgroups; k++)
			if (strlen(p->c->groups[i].cgroups[k]) == len &&
			    !memcmp(p->c->groups[i].cgroups[k], arg, len))
				return conf_fail(p, -EINVAL, "cgroup %s is already in group %s "
					    "(line %u)", shown(arg, len, q), p->c->groups[i].name,
					    p->c->groups[i].cgroup_lines[k]);
	if (p->ncgroups >= RDT_CGROUPS_MAX)
		return conf_fail(p, -EINVAL, "more than %d cgroups: the most a state holds",
			    RDT_CGROUPS_MAX);
	v = realloc(g->cgroups, (g->ncgroups + 1) * sizeof(*v));
	if (v)
		g->cgroups = v;
	lines = realloc(g->cgroup_lines, (g->ncgroups + 1) * sizeof(*lines));
	if (lines)
		g->cgroup_lines = lines;
	pol = realloc(g->cgroup_enforce, (g->ncgroups + 1) * sizeof(*pol));
	if (pol)
		g->cgroup_enforce = pol;
	if (!v || !lines || !pol || !(v[g->ncgroups] = strndup(arg, len)))
		return fail_nomem(p);
	pol[g->ncgroups] = enforce;
	lines[g->ncgroups++] = p->line;
	p->ncgroups++;
	return 0;
}

static int stmt_cgroup(struct parser *p, const char *arg, size_t len)
{
	return add_cgroup(p, arg, len, false);
}

static int stmt_cgroup_enforce(struct parser *p, const char *arg, size_t len)
{
	return add_cgroup(p, arg, len, true);
}

static int stmt_cpus(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_group *g = &p->c->groups[p->cur];
	char msg[RDT_ERRMSG_MAX];
	unsigned int n;
	char *list;
	int *cpus, ret;

	if (strcmp(g->name, "default") == 0)
		return conf_fail(p, -EINVAL, "the default group takes no 'cpus' line: its CPUs are "
			    "those no other group holds");
	list = strndup(arg, len);
	if (!list)
		return fail_nomem(p);
	ret = rdt_cpulist_parse(list, &cpus, &n, msg, sizeof(msg));
	free(list);
	if (ret)
		return conf_fail(p, ret, "%s", msg);
	if (!g->cpus_set)
		g->cpus_line = p->line;
	g->cpus_set = true;
	if (reserve((void **)&g->cpus, &p->room[p->cur].cpus_cap, g->ncpus, n, sizeof(int))) {
		free(cpus);
		return fail_nomem(p);
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned int owner = p->cpu_owner[cpus[i]];

		if (owner == (unsigned int)p->cur + 1)
			continue;	/* listed again in this group: merged */
		if (owner) {
			ret = conf_fail(p, -EINVAL, "CPU %d is already in group %s (line %u)", cpus[i],
				   p->c->groups[owner - 1].name, p->cpu_line[cpus[i]]);
			free(cpus);
			return ret;
		}
		p->cpu_owner[cpus[i]] = (unsigned int)p->cur + 1;
		p->cpu_line[cpus[i]] = p->line;
		g->cpus[g->ncpus++] = cpus[i];
	}
	free(cpus);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* One task id token: decimal, no sign, 1 .. INT_MAX. */
static int task_id(struct parser *p, const char *s, size_t n, pid_t *tid)
{
	long long v = 0;
	char q[48];

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return conf_fail(p, -EINVAL, "task id '%s' is not a decimal number",
				    shown(s, n, q));
		if (v <= INT_MAX)
			v = v * 10 + (s[i] - '0');
	}
	if (v == 0 || v > INT_MAX)
		return conf_fail(p, -EINVAL, "task id '%s' is out of range (1 to %d)",
			    shown(s, n, q), INT_MAX);
	*tid = (pid_t)v;
	return 0;
}

/* Record tid for the open group: 1 added, 0 already there (merged), <0 error. */
static int add_task_ref(struct parser *p, pid_t tid)
{
	const struct task_ref *prev = find_task(p, tid);

	if (prev) {
		if (prev->group == (unsigned int)p->cur)
			return 0;
		return conf_fail(p, -EINVAL, "task %d is already in group %s (line %u)", (int)tid,
			    p->c->groups[prev->group].name, prev->line);
	}
	if (reserve((void **)&p->tasks, &p->tasks_cap, p->ntasks, 1, sizeof(*p->tasks)))
		return fail_nomem(p);
	if (set_reserve(&p->tids, rehash_task, p))
		return fail_nomem(p);
	p->tasks[p->ntasks] = (struct task_ref){
		.tid = tid, .group = (unsigned int)p->cur, .line = p->line,
	};
	set_put(&p->tids, hash_int((uint64_t)tid), (unsigned int)p->ntasks);
	p->ntasks++;
	return 1;
}

/* `tasks TID...`: blank-separated; several lines add up (sorted at the end). */
static int stmt_tasks(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_group *g = &p->c->groups[p->cur];
	size_t count = 0, i = 0;
	int ret;

	if (!g->tasks_set)
		g->tasks_line = p->line;
	g->tasks_set = true;
	for (size_t k = 0; k < len; k++) {
		if (!is_blank(arg[k]) && (k == 0 || is_blank(arg[k - 1])))
			count++;
	}
	if (reserve((void **)&g->tasks, &p->room[p->cur].tasks_cap, g->ntasks, count,
		    sizeof(*g->tasks)))
		return fail_nomem(p);
	while (i < len) {
		size_t start;
		pid_t tid = 0;

		while (i < len && is_blank(arg[i]))
			i++;
		start = i;
		while (i < len && !is_blank(arg[i]))
			i++;
		if (i == start)
			break;
		ret = task_id(p, arg + start, i - start, &tid);
		if (ret)
			return ret;
		ret = add_task_ref(p, tid);
		if (ret < 0)
			return ret;
		if (ret)
			g->tasks[g->ntasks++] = tid;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* After the last line: CPU and task lists ascending (they hold no duplicates). */
static void sort_lists(struct rdt_config *c)
{
	for (unsigned int i = 0; i < c->ngroups; i++) {
		struct rdt_config_group *g = &c->groups[i];

		if (g->ncpus)
			qsort(g->cpus, g->ncpus, sizeof(int), cmp_int);
		if (g->ntasks)
			qsort(g->tasks, g->ntasks, sizeof(pid_t), cmp_pid);
	}
}

/*
 * The line of every listed CPU and task, once the lists are sorted (the
 * parser kept them by CPU and by task): errors in apply name the line of
 * the item, not of the block's first list.
 */
static int item_lines(struct parser *p, struct rdt_config *c)
{
	for (unsigned int i = 0; i < c->ngroups; i++) {
		struct rdt_config_group *g = &c->groups[i];
		unsigned int k;

		g->cpu_lines = calloc(g->ncpus + 1, sizeof(*g->cpu_lines));
		g->task_lines = calloc(g->ntasks + 1, sizeof(*g->task_lines));
		if (!g->cpu_lines || !g->task_lines)
			return fail_nomem(p);
		for (k = 0; k < g->ncpus; k++)
			g->cpu_lines[k] = p->cpu_line[g->cpus[k]];
		for (k = 0; k < g->ntasks; k++) {
			const struct task_ref *t = find_task(p, g->tasks[k]);

			g->task_lines[k] = t ? t->line : g->tasks_line;
		}
	}
	return 0;
}

/* `cdp RES on|off`, before the first group (it decides how schemas read). */
static int stmt_cdp(struct parser *p, const char *arg, size_t len)
{
	const char *usage = "'cdp' takes a resource and on or off, e.g. 'cdp L3 on'";
	char res[16], q[48];
	size_t rl = 0, i;
	const char *v;
	size_t vl;
	int r, on;

	if (p->cur >= 0)
		return conf_fail(p, -EINVAL, "'cdp' must come before the first group");
	while (rl < len && !is_blank(arg[rl]))
		rl++;
	for (i = rl; i < len && is_blank(arg[i]); i++)
		;
	v = arg + i;
	vl = len - i;
	if (rl == 0 || vl == 0)
		return conf_fail(p, -EINVAL, "%s", usage);
	for (i = 0; i < vl; i++) {
		if (is_blank(v[i]))
			return conf_fail(p, -EINVAL, "%s", usage);
	}
	if (rl >= sizeof(res))
		return conf_fail(p, -EINVAL, "cdp: unknown resource '%s' (L3 or L2)",
			    shown(arg, rl, q));
	memcpy(res, arg, rl);
	res[rl] = '\0';
	r = rdt_res_parse(res);
	/* MB parses as a resource but has no code/data halves */
	if (r < 0 || r >= RDT_NRES)
		return conf_fail(p, -EINVAL, "cdp: unknown resource '%s' (L3 or L2)", shown(res, rl, q));
	if (vl == 2 && memcmp(v, "on", 2) == 0)
		on = 1;
	else if (vl == 3 && memcmp(v, "off", 3) == 0)
		on = 0;
	else
		return conf_fail(p, -EINVAL, "cdp %s: '%s' is not on or off", rdt_res_name(r),
			    shown(v, vl, q));
	if (p->c->cdp[r] >= 0)
		return conf_fail(p, -EINVAL, "cdp %s is already set at line %u", rdt_res_name(r),
			    p->c->cdp_line[r]);
	p->c->cdp[r] = on;
	p->c->cdp_line[r] = p->line;
	return 0;
}

/* "KEY=VALUE" at arg: the key's and value's lengths; false when there is no '='. */
static bool key_value(const char *arg, size_t len, size_t *kl, const char **v, size_t *vl)
{
	const char *eq = memchr(arg, '=', len);

	if (!eq)
		return false;
	*kl = (size_t)(eq - arg);
	*v = eq + 1;
	*vl = len - *kl - 1;
	return true;
}

/* A decimal number 1..max of n bytes at s. */
static bool small_number(const char *s, size_t n, unsigned int max, unsigned int *out)
{
	unsigned long v = 0;

	if (n == 0 || n > 7)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > max)
		return false;
	*out = (unsigned int)v;
	return true;
}

/* One KEY=VALUE of `machine RES`. */
static int machine_item(struct parser *p, enum rdt_res r, struct rdt_config_machine *m,
			const char *w, size_t wl)
{
	char msg[RDT_ERRMSG_MAX], q[48], *list;
	const char *v;
	size_t kl, vl;
	int ret;

	if (!key_value(w, wl, &kl, &v, &vl) || !vl)
		return conf_fail(p, -EINVAL, "machine %s: '%s' is not KEY=VALUE", rdt_res_name(r),
			    shown(w, wl, q));
	if (kl == 3 && !memcmp(w, "ids", 3)) {
		if (m->ids)
			return conf_fail(p, -EINVAL, "machine %s: ids given twice", rdt_res_name(r));
		list = strndup(v, vl);
		if (!list)
			return fail_nomem(p);
		ret = rdt_cpulist_parse(list, &m->ids, &m->nids, msg, sizeof(msg));
		free(list);
		if (ret)
			return conf_fail(p, ret, "machine %s: ids '%s': %s", rdt_res_name(r),
				    shown(v, vl, q), msg);
		return 0;
	}
	if (r != RDT_MB && kl == 7 && !memcmp(w, "cbm_len", 7)) {
		if (!small_number(v, vl, RDT_MAX_CBM_LEN, &m->cbm_len))
			return conf_fail(p, -EINVAL, "machine %s: cbm_len '%s' is not 1..%d",
				    rdt_res_name(r), shown(v, vl, q), RDT_MAX_CBM_LEN);
		return 0;
	}
	if (r == RDT_MB && kl == 5 && !memcmp(w, "units", 5)) {
		if (vl == 7 && !memcmp(v, "percent", 7))
			m->units = 0;
		else if (vl == 3 && !memcmp(v, "amd", 3))
			m->units = 1;
		else if (vl == 4 && !memcmp(v, "mbps", 4))
			m->units = 2;
		else
			return conf_fail(p, -EINVAL, "machine MB: units '%s' is not percent, amd or mbps",
				    shown(v, vl, q));
		return 0;
	}
	if (r == RDT_MB && kl == 3 && !memcmp(w, "max", 3)) {
		if (!small_number(v, vl, UINT32_MAX, &m->max))
			return conf_fail(p, -EINVAL, "machine MB: max '%s' is not 1..%u",
				    shown(v, vl, q), UINT32_MAX);
		return 0;
	}
	return conf_fail(p, -EINVAL, "machine %s: unknown key '%s' (expected ids, %s)",
		    rdt_res_name(r), shown(w, kl, q), r == RDT_MB ? "units or max" : "or cbm_len");
}

/*
 * `machine RES ids=LIST [cbm_len=N | units=percent|amd max=N]`, before the
 * first group: what `save` knew of the machine. Checked when applied.
 */
static int stmt_machine(struct parser *p, const char *arg, size_t len)
{
	struct rdt_config_machine *m;
	char res[16], q[48];
	size_t rl = 0, i, wl;
	int r, ret;

	if (p->cur >= 0)
		return conf_fail(p, -EINVAL, "'machine' must come before the first group");
	while (rl < len && !is_blank(arg[rl]))
		rl++;
	if (rl == 0 || rl >= sizeof(res))
		return conf_fail(p, -EINVAL, "'machine' takes a resource and its facts, e.g. "
			    "'machine L3 ids=0-1 cbm_len=11'");
	memcpy(res, arg, rl);
	res[rl] = '\0';
	r = rdt_res_parse(res);
	if (r < 0)
		return conf_fail(p, -EINVAL, "machine: unknown resource '%s' (L3, L2 or MB)",
			    shown(res, rl, q));
	m = &p->c->machine[r];
	if (m->line)
		return conf_fail(p, -EINVAL, "machine %s is already given at line %u", rdt_res_name(r),
			    m->line);
	m->line = p->line;
	for (i = rl; i < len; i += wl) {
		while (i < len && is_blank(arg[i]))
			i++;
		for (wl = 0; i + wl < len && !is_blank(arg[i + wl]); wl++)
			;
		if (!wl)
			break;
		ret = machine_item(p, (enum rdt_res)r, m, arg + i, wl);
		if (ret)
			return ret;
	}
	if (!m->ids)
		return conf_fail(p, -EINVAL, "machine %s: ids=LIST is missing", rdt_res_name(r));
	return 0;
}

/* FNV-1a, 64 bits: the end line's checksum of the bytes above it. */
uint64_t rdt_config_checksum_add(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * `end fnv1a64=HEX`: the last statement of a saved file, with the checksum
 * of every byte above its line (docs/config.md, "The end line").
 */
static int stmt_end(struct parser *p, const char *arg, size_t len)
{
	static const char key[] = "fnv1a64=";
	uint64_t want = 0;
	char q[48];
	size_t i;

	if (len != strlen(key) + 16 || memcmp(arg, key, strlen(key)))
		return conf_fail(p, -EINVAL, "'end' takes the checksum save wrote, 'end fnv1a64=' and "
			    "16 hex digits; got 'end %s'", shown(arg, len, q));
	for (i = strlen(key); i < len; i++) {
		char c = arg[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return conf_fail(p, -EINVAL, "'end': '%s' is not 16 lowercase hex digits",
				    shown(arg + strlen(key), len - strlen(key), q));
		want = want << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (rdt_config_checksum_add(RDT_CONFIG_CHECKSUM_INIT, p->text, p->line_start) != want)
		return conf_fail(p, -EINVAL, "the checksum of the lines above does not match (the file "
			    "was changed after rdtctl save wrote it, or damaged): to apply an "
			    "edited file, delete its first line (the save header) and its 'end' "
			    "line");
	p->c->end_line = p->line;
	return 0;
}

/*
 * `name NAME`: whose the groups and bindings this file makes are
 * ("config:NAME", docs/config.md "Who owns what"); before the first group.
 */
static int stmt_name(struct parser *p, const char *arg, size_t len)
{
	char q[48];
	size_t i;

	if (p->cur >= 0 || p->c->name_line)
		return conf_fail(p, -EINVAL, "'name' comes once, before the first group");
	if (len == 0 || len > RDT_CONFIG_NAME_MAX)
		return conf_fail(p, -EINVAL, "'name' takes 1 to %d characters, e.g. 'name web'",
				 RDT_CONFIG_NAME_MAX);
	for (i = 0; i < len; i++)
		if (arg[i] <= ' ' || arg[i] > '~')
			return conf_fail(p, -EINVAL, "'name %s': a name is printable ASCII without "
					 "spaces", shown(arg, len, q));
	memcpy(p->c->name, arg, len);
	p->c->name[len] = '\0';
	p->c->name_line = p->line;
	return 0;
}

/* One line without its comment and surrounding blanks: [s, s + n). */
static int statement(struct parser *p, const char *s, size_t n)
{
	static const struct {
		const char *word;
		int (*fn)(struct parser *p, const char *arg, size_t len);
		bool in_group;
	} stmts[] = {
		{ "group", stmt_group, false },
		{ "schema", stmt_schema, true },
		{ "cpus", stmt_cpus, true },
		{ "tasks", stmt_tasks, true },
		{ "mode", stmt_mode, true },
		{ "cgroup", stmt_cgroup, true },
		{ "cgroup-enforce", stmt_cgroup_enforce, true },
		{ "cdp", stmt_cdp, false },
		{ "machine", stmt_machine, false },
		{ "end", stmt_end, false },
		{ "name", stmt_name, false },
	};
	size_t kl = 0, a;
	char q[48];

	while (kl < n && !is_blank(s[kl]))
		kl++;
	for (a = kl; a < n && is_blank(s[a]); a++)
		;
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++) {
		if (strlen(stmts[i].word) != kl || memcmp(stmts[i].word, s, kl) != 0)
			continue;
		if (stmts[i].in_group && p->cur < 0)
			return conf_fail(p, -EINVAL, "'%s' outside a group: open one with "
				    "'group NAME' first", stmts[i].word);
		return stmts[i].fn(p, s + a, n - a);
	}
	return conf_fail(p, -EINVAL, "unknown keyword '%s' (expected group, schema, cpus, tasks, "
		    "cgroup, cgroup-enforce, mode, cdp, machine, name or end)", shown(s, kl, q));
}

static int parse_lines(struct parser *p, const char *text)
{
	const char *s = text;

	p->text = text;
	for (p->line = 1;; p->line++) {
		const char *nl = strchr(s, '\n');
		const char *end = nl ? nl : s + strlen(s);
		const char *hash = memchr(s, '#', (size_t)(end - s));
		const char *b = s, *e = hash ? hash : end;
		int ret;

		if (!hash && e > b && e[-1] == '\r')
			e--;			/* CRLF files */
		while (b < e && is_blank(*b))
			b++;
		while (e > b && is_blank(e[-1]))
			e--;
		if (e > b) {
			if (p->c->end_line)
				return conf_fail(p, -EINVAL, "nothing may follow the 'end' line (line %u)",
					    p->c->end_line);
			p->line_start = (size_t)(s - text);
			ret = statement(p, b, (size_t)(e - b));
			if (ret)
				return ret;
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	/* what save wrote ends with its end line: a file cut short does not */
	if (!strncmp(text, RDT_CONFIG_SAVED, strlen(RDT_CONFIG_SAVED)) && !p->c->end_line)
		return conf_fail(p, -EINVAL, "the file ends without the 'end' line rdtctl save writes: it "
			    "was cut short (or, edited by hand, lost it: then delete the first line "
			    "too)");
	return 0;
}

int rdt_config_parse(const char *text, struct rdt_config **out, char *err, size_t errlen)
{
	struct parser *p;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!text) {
		snprintf(err, errlen, "configuration text is missing");
		return -EINVAL;
	}
	/* The parser holds a 16 KiB CPU table: keep it off the caller's stack. */
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->c = calloc(1, sizeof(*p->c));
	if (!p->c) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int r = 0; r < RDT_NRES; r++)
		p->c->cdp[r] = -1;
	for (int r = 0; r < RDT_NALL; r++)
		p->c->machine[r].units = -1;
	p->cur = -1;
	p->err = err;
	p->errlen = errlen;

	ret = parse_lines(p, text);
	if (!ret) {
		sort_lists(p->c);
		ret = item_lines(p, p->c);
	}
	if (ret)
		rdt_config_free(p->c);
	else
		*out = p->c;
	set_free(&p->names);
	set_free(&p->tids);
	free(p->tasks);
	free(p->room);
	free(p);
	return ret;
}

void rdt_config_free(struct rdt_config *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->ngroups; i++) {
		free(c->groups[i].schema);
		free(c->groups[i].cpus);
		free(c->groups[i].tasks);
		free(c->groups[i].cpu_lines);
		free(c->groups[i].task_lines);
		for (unsigned int k = 0; k < c->groups[i].ncgroups; k++)
			free(c->groups[i].cgroups[k]);
		free(c->groups[i].cgroups);
		free(c->groups[i].cgroup_lines);
		free(c->groups[i].cgroup_enforce);
	}
	for (int r = 0; r < RDT_NALL; r++)
		free(c->machine[r].ids);
	free(c->groups);
	free(c);
}
