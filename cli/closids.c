// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * closids: rdtctl closids [RESOURCE] - per domain, every CLOSID in use with
 * its mask(s), reference count and the groups holding it - and rdtctl cdp.
 * The CLOSID table is shared with `demo`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdtctl.h"

json_object *closid_table(rdtalloc_t *r, const char *res, unsigned int id,
			  char **groups, int ngroups, bool cdp)
{
	struct rdtalloc_closid_info *cl;
	unsigned int *held;
	json_object *dom, *rows;
	int n;

	held = calloc((size_t)ngroups + 1, sizeof(*held));
	if (!held) {
		fail_msg("out of memory");
		return NULL;
	}
	for (int g = 0; g < ngroups; g++) {
		int ret = rdtalloc_group_closid(r, groups[g], res, id, &held[g]);

		if (ret == -ESTALE) {
			held[g] = UINT_MAX;	/* no CLOSID in the kernel now: drift, marked */
			continue;
		}
		if (ret < 0) {
			fail_lib(r, ret);
			free(held);
			return NULL;
		}
	}
	n = domain_closids(r, res, id, &cl);
	if (n < 0) {
		free(held);
		return NULL;
	}
	rows = jarr();
	for (int i = 0; i < n; i++) {
		json_object *row = jobj(), *users = jarr();

		for (int g = 0; g < ngroups; g++) {
			if (held[g] == cl[i].closid)
				jpush(users, jstr(groups[g]));
		}
		jset(row, "closid", jint(cl[i].closid));
		/* MB: a bandwidth, not a mask */
		jset(row, "mask", strcmp(res, "MB") ? jhex(cl[i].mask) : jint((long long)cl[i].mask));
		if (cdp)
			jset(row, "code_mask", jhex(cl[i].code_mask));
		jset(row, "refcount", jint(cl[i].refcount));
		jset(row, "groups", users);
		jpush(rows, row);
	}
	free(cl);
	free(held);
	dom = jobj();
	jset(dom, "resource", jstr(res));
	jset(dom, "cache_id", jint(id));
	jset(dom, "cdp", jbool(cdp));
	jset(dom, "closids", rows);
	return dom;
}

void print_closid_table(json_object *dom, const char *indent)
{
	json_object *rows = jget(dom, "closids");
	size_t n = json_object_array_length(rows);
	bool cdp = jget_bool(dom, "cdp");

	bool mb = !strcmp(jget_str(dom, "resource"), "MB");

	printf("%s%s %s %lld: %zu CLOSID%s in use\n", indent, jget_str(dom, "resource"),
	       mb ? "domain" : "cache id", jget_int(dom, "cache_id"), n, n == 1 ? "" : "s");
	printf("%s  %-7s %-*s %-5s %s\n", indent, "CLOSID", cdp ? 24 : 12,
	       cdp ? "MASK (data,code)" : mb ? "BANDWIDTH" : "MASK", "REFS", "GROUPS");
	for (size_t i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(rows, i);
		json_object *users = jget(row, "groups");
		char mask[48];

		if (cdp)
			snprintf(mask, sizeof(mask), "%s,%s", jget_str(row, "mask"),
				 jget_str(row, "code_mask"));
		else if (json_object_is_type(jget(row, "mask"), json_type_int))
			snprintf(mask, sizeof(mask), "%lld", jget_int(row, "mask"));
		else
			snprintf(mask, sizeof(mask), "%s", jget_str(row, "mask"));
		printf("%s  %-7lld %-*s %-5lld", indent, jget_int(row, "closid"), cdp ? 24 : 12,
		       mask, jget_int(row, "refcount"));
		for (size_t k = 0; k < json_object_array_length(users); k++)
			printf("%s%s", k ? "," : " ",
			       json_object_get_string(json_object_array_get_idx(users, k)));
		putchar('\n');
	}
}

static void print_tables(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		print_closid_table(json_object_array_get_idx(a, i), "");
}

int do_closids(int argc, char **argv)
{
	struct domref *doms;
	json_object *doc;
	char **names;
	rdtalloc_t *r;
	int nd, ng, ret;

	ret = parse_flags("closids", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(1, "closids [RESOURCE]");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (argc == 1) {
		unsigned int *ids;

		/* let the library judge the name: its message lists what exists */
		ret = domain_ids(r, argv[0], &ids);
		if (ret < 0)
			return EXIT_FAIL;
		free(ids);
	}
	nd = list_domains(r, argc == 1 ? argv[0] : NULL, &doms);
	if (nd < 0)
		return EXIT_FAIL;
	ng = list_groups(r, &names);
	if (ng < 0) {
		free(doms);
		return EXIT_FAIL;
	}
	doc = jarr();
	for (int i = 0; i < nd; i++) {
		json_object *t = closid_table(r, doms[i].res, doms[i].id, names, ng, doms[i].cdp);

		if (!t) {
			json_object_put(doc);
			doc = NULL;
			break;
		}
		jpush(doc, t);
	}
	free_names(names, ng);
	free(doms);
	return doc ? emit(doc, print_tables) : EXIT_FAIL;
}

static void print_cdp(json_object *o)
{
	printf("%s CDP is %s", jget_str(o, "resource"), jget_bool(o, "cdp") ? "on" : "off");
	if (jget(o, "closids"))
		printf(" (%lld CLOSIDs)", jget_int(o, "closids"));
	putchar('\n');
}

int do_cdp(int argc, char **argv)
{
	static const char synopsis[] = "cdp RESOURCE on|off";
	struct rdtalloc_resource_info ri = { .sz = sizeof(ri) };
	json_object *doc;
	rdtalloc_t *r;
	int on, ret, nres;

	ret = parse_flags("cdp", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	if (!strcmp(argv[1], "on"))
		on = 1;
	else if (!strcmp(argv[1], "off"))
		on = 0;
	else
		return usage_error("cdp: '%s' is not on or off", argv[1]);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_set_cdp(r, argv[0], on);
	if (ret < 0)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "resource", jstr(argv[0]));
	/* the resource's own spelling and its CLOSID count now */
	nres = rdtalloc_resource_count(r);
	for (int i = 0; i < nres; i++) {
		if (rdtalloc_get_resource_info(r, (unsigned int)i, &ri) == 0 &&
		    !strcasecmp(ri.name, argv[0])) {
			jset(doc, "resource", jstr(ri.name));
			jset(doc, "closids", jint(ri.num_closids));
		}
	}
	jset(doc, "cdp", jbool(on));
	return emit_change(doc, print_cdp);
}
