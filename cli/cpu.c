// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpu: rdtctl cpu bind|show. `cpu bind GROUP LIST` moves the listed CPUs
 * into GROUP (others stay where they are; `cpu bind default LIST` unbinds).
 * When one CPU fails, those already moved go back to their groups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

/* Parse a CPU list argument through the library: 0, or the exit code. */
static int parse_list(const char *verb, const char *s, int **out, int *count)
{
	int n = rdtalloc_parse_cpulist(s, NULL, 0);
	int *cpus;

	*out = NULL;
	if (n < 0)
		return usage_error("%s: %s", verb, rdtalloc_errmsg(NULL));
	cpus = malloc(((size_t)n + 1) * sizeof(*cpus));
	if (!cpus)
		return fail_msg("out of memory");
	rdtalloc_parse_cpulist(s, cpus, (size_t)n);
	*out = cpus;
	*count = n;
	return 0;
}

/* Every CPU in one transaction: all of them bound, or none. */
static int bind_all(rdtalloc_t *r, const char *group, const int *cpus, int n)
{
	int ret = rdtalloc_bind_cpus(r, group, cpus, (size_t)n);

	return ret < 0 ? fail_lib(r, ret) : EXIT_OK;
}

static json_object *cpus_doc(rdtalloc_t *r, const char *group)
{
	json_object *o;
	char *list;
	int *cpus;
	int n = cli_group_cpus(r, group, &cpus);

	if (n < 0)
		return NULL;
	list = cpulist_text(cpus, (size_t)n);
	if (!list) {
		free(cpus);
		return NULL;
	}
	o = jobj();
	jset(o, "group", jstr(group));
	jset(o, "cpus", jcpus(cpus, n));
	jset(o, "cpulist", jstr(list));
	free(cpus);
	free(list);
	return o;
}

static void print_bound(json_object *o)
{
	const char *list = jget_str(o, "cpulist");

	printf("group %s now holds CPUs %s\n", jget_str(o, "group"), list[0] ? list : "(none)");
}

static int cpu_bind(int argc, char **argv)
{
	static const char synopsis[] = "cpu bind GROUP CPULIST";
	json_object *doc;
	rdtalloc_t *r;
	int *cpus, n = 0, ret;

	ret = parse_flags("cpu bind", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	ret = parse_list("cpu bind", argv[1], &cpus, &n);
	if (ret)
		return ret;
	/* "" parses as no CPU: binding nothing is a mistake in the caller's list */
	if (n == 0) {
		free(cpus);
		return usage_error("cpu bind: the CPU list '%s' names no CPU (e.g. 0-3,8)",
				   argv[1]);
	}
	r = ctx();
	if (!r) {
		free(cpus);
		return EXIT_FAIL;
	}
	ret = bind_all(r, argv[0], cpus, n);
	free(cpus);
	if (ret)
		return ret;
	if (g_opts.quiet)
		return EXIT_OK;
	doc = cpus_doc(r, argv[0]);
	return doc ? emit_change(doc, print_bound) : EXIT_FAIL;
}

static void print_one(json_object *o)
{
	puts(jget_str(o, "cpulist"));
}

static void print_all(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		const char *list = jget_str(o, "cpulist");

		printf("%s: %s\n", jget_str(o, "group"), list[0] ? list : "(none)");
	}
}

static int cpu_show(int argc, char **argv)
{
	return show_groups("cpu show", argc, argv, NULL, cpus_doc, print_one, print_all);
}

/* One CPU: its group and the CLOSID its IA32_PQR_ASSOC holds now. NULL: reported. */
static json_object *assoc_doc(rdtalloc_t *r, int cpu)
{
	char group[RDTALLOC_NAME_MAX + 1];
	unsigned int closid;
	json_object *o;
	int ret, prec = 0;

	ret = rdtalloc_cpu_group(r, cpu, group, sizeof(group));
	/* where the kernel owns the registers: the CLOSID of the group in force */
	if (!ret && (ret = rdtalloc_read_pqr(r, cpu, &closid)) == -EOPNOTSUPP)
		ret = rdtalloc_effective_closid(r, cpu, 0, &closid);
	if (!ret && (ret = rdtalloc_get_precedence(r)) > 0)
		prec = ret, ret = 0;
	if (ret < 0) {
		fail_lib(r, ret);
		return NULL;
	}
	o = jobj();
	jset(o, "cpu", jint(cpu));
	jset(o, "group", jstr(group));
	jset(o, "closid", jint(closid));
	jset(o, "precedence", jstr(precedence_name(prec)));
	return o;
}

static void print_assoc(json_object *a)
{
	if (json_object_array_length(a)) {
		const char *p = jget_str(json_object_array_get_idx(a, 0), "precedence");

		printf("precedence=%s: %s\n", p, precedence_text(p));
	}
	printf("%4s %-20s %s\n", "CPU", "bound to", "CLOSID (IA32_PQR_ASSOC)");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		printf("%4lld %-20s %lld\n", jget_int(o, "cpu"), jget_str(o, "group"),
		       jget_int(o, "closid"));
	}
}

/*
 * cpu assoc [CPULIST]: per CPU, the group it is bound to and the CLOSID in
 * force there now - the CPU's group's, or (with the switch hook) that of the
 * task switched in. Without a list: every usable CPU.
 */
static int cpu_assoc(int argc, char **argv)
{
	static const char synopsis[] = "cpu assoc [CPULIST]";
	int *cpus = NULL, n = 0, ret, i;
	json_object *a, *o;
	rdtalloc_t *r;

	ret = parse_flags("cpu assoc", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(1, synopsis);
	if (argc == 1 && (ret = parse_list("cpu assoc", argv[0], &cpus, &n)))
		return ret;
	r = ctx_ro();
	if (!r) {
		free(cpus);
		return EXIT_FAIL;
	}
	if (!cpus) {
		/* every usable CPU (an offline one has no group to report) */
		int total = rdtalloc_cpu_count(r);
		char g[RDTALLOC_NAME_MAX + 1];

		cpus = malloc(((size_t)(total > 0 ? total : 0) + 1) * sizeof(*cpus));
		if (!cpus)
			return fail_msg("out of memory");
		for (i = 0; i < total; i++)
			if (rdtalloc_cpu_group(r, i, g, sizeof(g)) == 0)
				cpus[n++] = i;
	}
	a = jarr();
	for (i = 0; i < n; i++) {
		o = assoc_doc(r, cpus[i]);
		if (!o) {
			json_object_put(a);
			free(cpus);
			return EXIT_FAIL;
		}
		jpush(a, o);
	}
	free(cpus);
	return emit(a, print_assoc);
}

static int cpu_help(int argc, char **argv)
{
	printf("Usage: rdtctl cpu bind GROUP CPULIST   e.g. 0-3,8,10-11\n"
	       "       rdtctl cpu show [GROUP]\n"
	       "       rdtctl cpu assoc [CPULIST]      group and CLOSID in force per CPU\n");
	return EXIT_OK;
}

int do_cpu(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "bind", cpu_bind },
		{ "show", cpu_show },
		{ "assoc", cpu_assoc },
		{ "help", cpu_help },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "cpu", argc, argv);
}
