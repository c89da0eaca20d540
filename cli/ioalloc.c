// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * io-alloc: L3 I/O allocation (resctrl's io_alloc, Linux 6.19, AMD SDCIAE)
 * - show it with the ways not ours to give per L3 domain (bit_usage's
 * hardware and other owners' ways), turn it on or off, set its masks.
 * Nothing here runs unless asked: no other command changes io_alloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

/* {"supported", "enabled", "closid", "domains": [{cache_id, io_alloc_mask, io_ways, foreign_ways}]} */
json_object *io_alloc_doc(rdtalloc_t *r)
{
	struct rdtalloc_ways_info w = { .sz = sizeof(w) };
	json_object *doc, *doms;
	unsigned int ids[256];
	int n, ret;

	n = rdtalloc_domains(r, "L3", ids, sizeof(ids) / sizeof(ids[0]));
	if (n < 0) {
		fail_lib(r, n);
		return NULL;
	}
	doc = jobj();
	doms = jarr();
	for (int i = 0; i < n && i < 256; i++) {
		json_object *d = jobj();

		ret = rdtalloc_domain_ways(r, "L3", ids[i], &w);
		if (ret) {
			json_object_put(doc);
			json_object_put(doms);
			json_object_put(d);
			fail_lib(r, ret);
			return NULL;
		}
		jset(d, "cache_id", jint(ids[i]));
		if (w.io_alloc_enabled)
			jset(d, "io_alloc_mask", jhex(w.io_alloc_mask));
		jset(d, "io_ways", jhex(w.io_ways));
		jset(d, "foreign_ways", jhex(w.foreign_ways));
		jset(d, "from_bit_usage", jbool(w.from_bit_usage));
		jpush(doms, d);
	}
	jset(doc, "supported", jbool(w.io_alloc_supported));
	jset(doc, "enabled", jbool(w.io_alloc_enabled));
	if (w.io_alloc_supported)
		jset(doc, "closid", jint(w.io_alloc_closid));
	jset(doc, "domains", doms);
	return doc;
}

static void print_io_alloc(json_object *doc)
{
	json_object *doms = jget(doc, "domains");
	bool on = jget_bool(doc, "enabled");

	if (!jget_bool(doc, "supported"))
		printf("io_alloc: not supported on this machine\n");
	else
		printf("io_alloc: %s%s%lld%s\n", on ? "enabled" : "disabled",
		       on ? " (holds CLOSID " : " (would take CLOSID ", jget_int(doc, "closid"),
		       ")");
	for (size_t i = 0; doms && i < json_object_array_length(doms); i++) {
		json_object *d = json_object_array_get_idx(doms, i);

		printf("L3 cache id %lld:", jget_int(d, "cache_id"));
		if (on)
			printf(" I/O mask %s,", jget_str(d, "io_alloc_mask"));
		printf(" hardware's ways %s, other owners' ways %s%s\n", jget_str(d, "io_ways"),
		       jget_str(d, "foreign_ways"),
		       jget_bool(d, "from_bit_usage") ? " (bit_usage)" : "");
	}
}

static int io_show(int argc, char **argv)
{
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("io-alloc show", &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, "io-alloc show");
	r = ctx_ro();
	if (!r)
		return EXIT_FAIL;
	doc = io_alloc_doc(r);
	return doc ? emit(doc, print_io_alloc) : EXIT_FAIL;
}

static int io_switch(int argc, char **argv, int on)
{
	const char *synopsis = on ? "io-alloc enable" : "io-alloc disable";
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags(synopsis, &argc, argv, NULL);
	if (ret)
		return ret;
	MAX_ARGS(0, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_io_alloc_enable(r, on);
	if (ret)
		return fail_lib(r, ret);
	doc = io_alloc_doc(r);
	return doc ? emit_change(doc, print_io_alloc) : EXIT_FAIL;
}

static int io_enable(int argc, char **argv)
{
	return io_switch(argc, argv, 1);
}

static int io_disable(int argc, char **argv)
{
	return io_switch(argc, argv, 0);
}

static int io_set(int argc, char **argv)
{
	static const char synopsis[] = "io-alloc set L3:ID=MASK[;ID=MASK...]|L3:*=MASK";
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("io-alloc set", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_io_alloc_set_mask(r, argv[0]);
	if (ret)
		return fail_lib(r, ret);
	doc = io_alloc_doc(r);
	return doc ? emit_change(doc, print_io_alloc) : EXIT_FAIL;
}

int do_io_alloc(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "show", io_show },
		{ "enable", io_enable },
		{ "disable", io_disable },
		{ "set", io_set },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "io-alloc", argc, argv);
}
