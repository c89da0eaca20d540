// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * demo: example 7.2 of the 2016 resctrl patch set (then named rscctrl) ("allocating L3 cache for real-time apps"),
 * told step by step on an ephemeral simulated two-socket machine: after each
 * step the schemas, the CLOSID table of each domain, and simulated context
 * switches on CPUs 0 and 1 with the CLOSID in force. Every figure shown
 * comes from the library; the script below only says what to do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

#define DEMO_MACHINE "topology=package:2 l3:1 core:2 pu:1;tasks=virtual;" \
	"mb.closids=16;mb.units=percent;mb.min=10;mb.gran=10"

enum demo_op { OP_CREATE, OP_SCHEMA, OP_BIND };

struct demo_action {
	enum demo_op op;
	const char *group;
	const char *arg;	/* schema text */
	pid_t tid;
};

struct demo_step {
	const char *title;
	const char *note;
	struct demo_action act[3];
	int nact;
};

/* Task 1234 runs on CPU 0, task 5678 on CPU 1 (taskset in the original). */
static const struct {
	int cpu;
	pid_t tid;
} switches[] = {
	{ 0, 1234 }, { 0, 4321 }, { 1, 5678 }, { 1, 4321 },
};

static const struct demo_step steps[] = {
	{
		"a two-socket machine, nothing configured yet",
		"Each socket has its own L3 cache with its own table of CLOSIDs. Every task "
		"runs in the default group, whose masks are all-ones. Tasks 1234 and 5678 are "
		"real-time tasks pinned to CPU 0 and CPU 1 (socket 0); task 4321 is anyone "
		"else.",
		{ { 0 } }, 0,
	},
	{
		"everyone else keeps half of socket 0's L3",
		"The default group gets the low 10 bits of cache 0 and all of cache 1. A "
		"mask register is written only where a mask changes.",
		{ { OP_SCHEMA, "default", "L3:0=3ff;1=fffff", 0 } }, 1,
	},
	{
		"two groups for the real-time tasks",
		"New groups start with all-ones masks. Groups with equal masks in a domain "
		"share one CLOSID there: see the REFS column.",
		{ { OP_CREATE, "p1", NULL, 0 }, { OP_CREATE, "p2", NULL, 0 } }, 2,
	},
	{
		"task 1234 gets a quarter of cache 0 to itself",
		"p1 asks for the top 5 bits of cache 0 (0xf8000) and keeps all of cache 1. "
		"Since 1234 runs on CPU 0, only its socket-0 mask matters in practice.",
		{ { OP_BIND, "p1", NULL, 1234 }, { OP_SCHEMA, "p1", "L3:0=f8000", 0 } }, 2,
	},
	{
		"task 5678 gets another quarter",
		"p2 takes the next 5 bits (0x7c00). The three masks on cache 0 do not overlap: "
		"no noisy neighbour can evict the real-time tasks' lines.",
		{ { OP_BIND, "p2", NULL, 5678 }, { OP_SCHEMA, "p2", "L3:0=7c00", 0 } }, 2,
	},
	{
		"the streaming neighbour is throttled",
		"Cache ways do not stop a streaming job from saturating memory bandwidth. "
		"The default group, where task 4321 runs, gets at most half of socket 0's "
		"(MBA, an MB line beside the masks); the real-time groups stay unthrottled. "
		"CLOSID 0 of cache 0 now stands for the mask and the bandwidth together.",
		{ { OP_SCHEMA, "default", "MB:0=50", 0 } }, 1,
	},
};

#define NSTEPS (sizeof(steps) / sizeof(steps[0]))
#define NSWITCHES (sizeof(switches) / sizeof(switches[0]))

static void command_text(const struct demo_action *a, char *buf, size_t len)
{
	switch (a->op) {
	case OP_CREATE:
		snprintf(buf, len, "rdtctl group create %s", a->group);
		break;
	case OP_SCHEMA:
		snprintf(buf, len, "rdtctl schema set %s '%s'", a->group, a->arg);
		break;
	case OP_BIND:
		snprintf(buf, len, "rdtctl task bind %s %d", a->group, (int)a->tid);
		break;
	}
}

static int run_action(rdtalloc_t *r, const struct demo_action *a)
{
	int ret = 0;

	switch (a->op) {
	case OP_CREATE:
		ret = rdtalloc_group_create(r, a->group);
		break;
	case OP_SCHEMA:
		ret = rdtalloc_set_schema(r, a->group, a->arg);
		break;
	case OP_BIND:
		ret = rdtalloc_bind_task(r, a->group, a->tid);
		break;
	}
	return ret < 0 ? fail_lib(r, ret) : 0;
}

static json_object *schemas(rdtalloc_t *r, char **names, int n)
{
	json_object *a = jarr();

	for (int i = 0; i < n; i++) {
		char *text = group_schema(r, names[i]);
		json_object *o;

		if (!text) {
			json_object_put(a);
			return NULL;
		}
		o = jobj();
		jset(o, "group", jstr(names[i]));
		jset(o, "schema", jstr(text));
		free(text);
		jpush(a, o);
	}
	return a;
}

static json_object *tables(rdtalloc_t *r, char **names, int n)
{
	json_object *a = jarr();
	struct domref *doms;
	int nd = list_domains(r, NULL, &doms);

	if (nd < 0) {
		json_object_put(a);
		return NULL;
	}
	for (int i = 0; i < nd; i++) {
		json_object *t = closid_table(r, doms[i].res, doms[i].id, names, n, doms[i].cdp);

		if (!t) {
			json_object_put(a);
			free(doms);
			return NULL;
		}
		jpush(a, t);
	}
	free(doms);
	return a;
}

static json_object *simulate(rdtalloc_t *r)
{
	json_object *a = jarr();

	for (size_t i = 0; i < NSWITCHES; i++) {
		struct rdtalloc_switch sw = { .sz = sizeof(sw) };
		char group[RDTALLOC_NAME_MAX + 1];
		json_object *o;
		int ret;

		ret = rdtalloc_task_group(r, switches[i].tid, group, sizeof(group));
		if (ret >= 0)
			ret = rdtalloc_sim_switch(r, switches[i].cpu, switches[i].tid, &sw);
		if (ret < 0) {
			fail_lib(r, ret);
			json_object_put(a);
			return NULL;
		}
		o = jobj();
		jset(o, "cpu", jint(switches[i].cpu));
		jset(o, "task", jint(switches[i].tid));
		jset(o, "group", jstr(group));
		jset(o, "closid", jint(sw.closid));
		jset(o, "pqr_written", jbool(sw.pqr_written));
		jpush(a, o);
	}
	return a;
}

static json_object *stats(rdtalloc_t *r)
{
	struct rdtalloc_stats st = { .sz = sizeof(st) };
	json_object *o;
	int ret = rdtalloc_get_stats(r, &st);

	if (ret < 0) {
		fail_lib(r, ret);
		return NULL;
	}
	o = jobj();
	jset(o, "mask_writes", jint((long long)st.mask_writes));
	jset(o, "pqr_writes", jint((long long)st.pqr_writes));
	return o;
}

/* Run one step and describe the state after it. */
static json_object *run_step(rdtalloc_t *r, const struct demo_step *s)
{
	json_object *o = jobj(), *cmds = jarr(), *v;
	char **names;
	int n;

	for (int i = 0; i < s->nact; i++) {
		char text[160];

		command_text(&s->act[i], text, sizeof(text));
		jpush(cmds, jstr(text));
		if (run_action(r, &s->act[i])) {
			json_object_put(cmds);
			json_object_put(o);
			return NULL;
		}
	}
	jset(o, "title", jstr(s->title));
	jset(o, "note", jstr(s->note));
	jset(o, "commands", cmds);
	n = list_groups(r, &names);
	if (n < 0)
		goto fail;
	v = schemas(r, names, n);
	if (!v)
		goto fail_names;
	jset(o, "schemas", v);
	v = tables(r, names, n);
	if (!v)
		goto fail_names;
	jset(o, "closids", v);
	free_names(names, n);
	v = simulate(r);
	if (!v)
		goto fail;
	jset(o, "switches", v);
	v = stats(r);
	if (!v)
		goto fail;
	jset(o, "registers_written", v);
	v = map_document(r);
	if (!v)
		goto fail;
	jset(o, "map", v);
	return o;

fail_names:
	free_names(names, n);
fail:
	json_object_put(o);
	return NULL;
}

/* The machine, as the library sees it: cache id -> CPUs. */
static json_object *machine(rdtalloc_t *r)
{
	json_object *a = jarr();
	struct domref *doms;
	int nd = list_domains(r, NULL, &doms);

	if (nd < 0) {
		json_object_put(a);
		return NULL;
	}
	for (int i = 0; i < nd; i++) {
		json_object *o;
		char *list;
		int *cpus, n = domain_cpus(r, doms[i].res, doms[i].id, &cpus);

		list = n < 0 ? NULL : cpulist_text(cpus, (size_t)n);
		if (n >= 0)
			free(cpus);
		if (!list) {
			free(doms);
			json_object_put(a);
			return NULL;
		}
		o = jobj();
		jset(o, "resource", jstr(doms[i].res));
		jset(o, "cache_id", jint(doms[i].id));
		jset(o, "cpus", jstr(list));
		free(list);
		jpush(a, o);
	}
	free(doms);
	return a;
}

/*
 * The end state against the patch set's document: on cache 0 three CLOSIDs
 * (0x3ff, 0xf8000, 0x7c00) with one reference each, on cache 1 one CLOSID
 * (0xfffff) shared by all three groups. The CLOSID numbers are the
 * engine's choice; the masks and counts are what the example promises.
 */
static json_object *check_outcome(rdtalloc_t *r, bool *ok)
{
	static const struct {
		unsigned int cache_id;
		uint64_t mask;
		unsigned int refcount;
	} want[] = {
		{ 0, 0x3ff, 1 }, { 0, 0xf8000, 1 }, { 0, 0x7c00, 1 }, { 1, 0xfffff, 3 },
	};
	unsigned int expect_in_use[2] = { 3, 1 };
	json_object *regs = jarr();

	*ok = true;
	for (unsigned int d = 0; d < 2; d++) {
		struct rdtalloc_closid_info *cl;
		int n = domain_closids(r, "L3", d, &cl);

		if (n < 0) {
			json_object_put(regs);
			return NULL;
		}
		if ((unsigned int)n != expect_in_use[d])
			*ok = false;
		for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
			bool found = false;

			for (int i = 0; i < n && want[w].cache_id == d; i++)
				found |= cl[i].mask == want[w].mask &&
					 cl[i].refcount == want[w].refcount;
			if (want[w].cache_id == d && !found)
				*ok = false;
		}
		for (int i = 0; i < n; i++) {
			uint64_t val = 0;
			json_object *o;
			int ret = rdtalloc_read_mask(r, "L3", d, cl[i].closid, &val);

			if (ret < 0) {
				fail_lib(r, ret);
				free(cl);
				json_object_put(regs);
				return NULL;
			}
			o = jobj();
			jset(o, "cache_id", jint(d));
			jset(o, "register", jint(cl[i].closid));
			jset(o, "value", jhex(val));
			jset(o, "refcount", jint(cl[i].refcount));
			jpush(regs, o);
		}
		free(cl);
	}
	return regs;
}

static void print_wrapped(const char *text, const char *indent, size_t width)
{
	const char *p = text;

	while (*p) {
		size_t n = strlen(p);

		if (n > width) {
			n = width;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = width;
		}
		printf("%s%.*s\n", indent, (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

static void print_step(json_object *s, size_t idx)
{
	json_object *cmds = jget(s, "commands"), *sch = jget(s, "schemas");
	json_object *cl = jget(s, "closids"), *sw = jget(s, "switches");
	json_object *st = jget(s, "registers_written");

	printf("\n== Step %zu: %s ==\n", idx, jget_str(s, "title"));
	for (size_t i = 0; i < json_object_array_length(cmds); i++)
		printf("$ %s\n", json_object_get_string(json_object_array_get_idx(cmds, i)));
	print_wrapped(jget_str(s, "note"), "  ", 76);
	printf("\n  schemas:\n");
	for (size_t i = 0; i < json_object_array_length(sch); i++) {
		json_object *o = json_object_array_get_idx(sch, i);

		const char *line = jget_str(o, "schema"), *nl;

		/* one line per resource, the later ones under the first */
		for (bool first = true; line && *line; line = nl ? nl + 1 : "", first = false) {
			nl = strchr(line, '\n');
			printf("    %-8s %.*s\n", first ? jget_str(o, "group") : "",
			       nl ? (int)(nl - line) : (int)strlen(line), line);
		}
	}
	printf("\n  CLOSID tables:\n");
	for (size_t i = 0; i < json_object_array_length(cl); i++)
		print_closid_table(json_object_array_get_idx(cl, i), "    ");
	printf("\n  context switches:\n");
	for (size_t i = 0; i < json_object_array_length(sw); i++) {
		json_object *o = json_object_array_get_idx(sw, i);
		char who[64];

		snprintf(who, sizeof(who), "task %lld (%s)", jget_int(o, "task"),
			 jget_str(o, "group"));
		printf("    CPU %lld <- %-20s runs with CLOSID %lld, PQR_ASSOC %s\n",
		       jget_int(o, "cpu"), who, jget_int(o, "closid"),
		       jget_bool(o, "pqr_written") ? "written" : "unchanged (no write)");
	}
	printf("  registers written so far: %lld mask, %lld PQR_ASSOC\n",
	       jget_int(st, "mask_writes"), jget_int(st, "pqr_writes"));
	printf("  the ways (rdtctl map):\n");
	map_print(jget(s, "map"), "    ");
}

static void print_demo(json_object *doc)
{
	json_object *m = jget(doc, "machine"), *s = jget(doc, "steps");
	json_object *regs = jget(doc, "mask_registers");

	printf("rdtctl demo: \"allocating L3 cache for real-time apps\", the example of the 2016\n"
	       "resctrl patch set (then named rscctrl)\n");
	printf("on a simulated machine (%s), nothing kept on disk.\n",
	       jget_str(doc, "machine_description"));
	for (size_t i = 0; i < json_object_array_length(m); i++) {
		json_object *o = json_object_array_get_idx(m, i);

		bool mb = !strcmp(jget_str(o, "resource"), "MB");

		printf("  %s %s %lld: CPUs %s\n", jget_str(o, "resource"),
		       mb ? "domain" : "cache id", jget_int(o, "cache_id"), jget_str(o, "cpus"));
	}
	for (size_t i = 0; i < json_object_array_length(s); i++)
		print_step(json_object_array_get_idx(s, i), i);
	printf("\n== In the registers ==\n");
	for (size_t i = 0; i < json_object_array_length(regs); i++) {
		json_object *o = json_object_array_get_idx(regs, i);

		printf("  L3 cache id %lld: IA32_L3_QOS_MASK_%lld = %s (refcount %lld)\n",
		       jget_int(o, "cache_id"), jget_int(o, "register"), jget_str(o, "value"),
		       jget_int(o, "refcount"));
	}
	if (jget_bool(doc, "matches_rscctrl"))
		printf("\nAs in the patch set's document: three CLOSIDs with one reference each on "
		       "cache 0,\none CLOSID shared by all three groups on cache 1.\n");
	else
		printf("\nThis does NOT match the patch set's document (three CLOSIDs with one "
		       "reference each on cache 0, one shared by three groups on cache 1).\n");
	printf("\nNext: rdtctl --help, or rdtctl(1).\n");
}

int do_demo(int argc, char **argv)
{
	rdtalloc_t *r = NULL;
	json_object *doc, *arr, *v;
	bool ok = false;
	int ret;

	ret = parse_flags("demo", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "demo");
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .machine = DEMO_MACHINE,
		      .flags = RDTALLOC_F_EPHEMERAL);
	ret = rdtalloc_open(&r, &o);
	if (ret < 0)
		return fail_lib(NULL, ret);
	doc = jobj();
	jset(doc, "machine_description", jstr(DEMO_MACHINE));
	v = machine(r);
	if (!v)
		goto fail;
	jset(doc, "machine", v);
	arr = jarr();
	jset(doc, "steps", arr);
	for (size_t i = 0; i < NSTEPS; i++) {
		v = run_step(r, &steps[i]);
		if (!v)
			goto fail;
		jpush(arr, v);
	}
	v = check_outcome(r, &ok);
	if (!v)
		goto fail;
	jset(doc, "mask_registers", v);
	jset(doc, "matches_rscctrl", jbool(ok));
	rdtalloc_close(r);
	ret = emit(doc, print_demo);
	return ret ? ret : ok ? EXIT_OK : EXIT_FAIL;

fail:
	json_object_put(doc);
	rdtalloc_close(r);
	return EXIT_FAIL;
}
