// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor pin / unpin / turns: counters shared in turns (resctrl's
 * mbm_event mode, AMD ABMC; docs/monitoring.md). Where our groups
 * outnumber the counters they take turns at them; a pinned group keeps
 * its own; `turns` shows the counters and sets the turn's period and the
 * most counters the turns use. All kept in the state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

const char *mon_assign_mode_name(int mode)
{
	return mode == RDTALLOC_MON_ASSIGN_EVENT ? "mbm_event" :
	       mode == RDTALLOC_MON_ASSIGN_DEFAULT ? "default" : "none";
}

/* The "counters" object of info and `monitor turns`; NULL where counters are not assignable. */
json_object *mon_counters_json(rdtalloc_t *r, int *err)
{
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	json_object *o;

	*err = rdtalloc_mon_get_counters(r, &c);
	if (*err || c.mode == RDTALLOC_MON_ASSIGN_NONE)
		return NULL;
	o = jobj();
	jset(o, "mode", jstr(mon_assign_mode_name(c.mode)));
	jset(o, "total", jint(c.total));
	if (c.mode == RDTALLOC_MON_ASSIGN_EVENT)
		jset(o, "free", jint(c.free));
	else
		jset_null(o, "free");	/* the kernel counts none free outside mbm_event */
	jset(o, "per_group", jint(c.events));
	jset(o, "groups", jint(c.groups));
	jset(o, "pinned", jint(c.pinned));
	jset(o, "period_ms", jint(c.period_ms));
	jset(o, "counters", jint(c.counters));
	return o;
}

void mon_counters_print(json_object *o)
{
	if (!o)
		return;
	printf("  counters: %s mode, %lld per L3 domain", jget_str(o, "mode"),
	       jget_int(o, "total"));
	if (jget(o, "free"))
		printf(", %lld free", jget_int(o, "free"));
	printf("; a group takes %lld; our %lld monitored groups take turns of %lld ms "
	       "(%lld pinned%s", jget_int(o, "per_group"), jget_int(o, "groups"),
	       jget_int(o, "period_ms"), jget_int(o, "pinned"),
	       jget_int(o, "counters") ? "" : ")");
	if (jget_int(o, "counters"))
		printf(", turns use at most %lld counters per domain)", jget_int(o, "counters"));
	printf("\n");
}

static void print_turns(json_object *doc)
{
	json_object *o = jget(doc, "counters");

	if (!o)
		printf("counters: none assignable here (every RMID counts: no turns)\n");
	else
		mon_counters_print(o);
}

static int mon_pin_set(int argc, char **argv, int pinned, const char *verb)
{
	rdtalloc_t *r;
	int ret;

	REQ_ARGS(1, pinned ? "monitor pin GROUP" : "monitor unpin GROUP");
	MAX_ARGS(1, pinned ? "monitor pin GROUP" : "monitor unpin GROUP");
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_mon_pin(r, argv[0], pinned);
	if (ret)
		return fail_lib(r, ret);
	if (!g_opts.quiet && !g_opts.json)
		printf("group %s: %s\n", argv[0], verb);
	return EXIT_OK;
}

static int mon_pin(int argc, char **argv)
{
	return mon_pin_set(argc, argv, 1, "pinned: keeps its counters");
}

static int mon_unpin(int argc, char **argv)
{
	return mon_pin_set(argc, argv, 0, "unpinned: takes turns at the counters");
}

/* "2", "0.5": seconds to milliseconds, 0.1 to 3600; "default": 0. */
static int parse_period(const char *s, unsigned int *ms)
{
	char *end;
	double v;

	if (!strcmp(s, "default")) {
		*ms = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.1) || v > 3600)
		return usage_error("--period %s: seconds, 0.1 to 3600 (or 'default')", s);
	*ms = (unsigned int)(v * 1000 + 0.5);
	return 0;
}

static int mon_turns(int argc, char **argv)
{
	const char *period = NULL, *counters = NULL;
	struct flag flags[] = { { "--period", NULL, &period }, { "--counters", NULL, &counters },
				{ NULL } };
	struct rdtalloc_mon_counters c = { .sz = sizeof(c) };
	unsigned int ms = 0, most = 0;
	json_object *o, *doc;
	rdtalloc_t *r;
	char *end;
	int ret;

	ret = parse_flags("monitor turns", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, "monitor turns [--period SECONDS] [--counters N]");
	if (period && (ret = parse_period(period, &ms)))
		return ret;
	if (counters) {
		unsigned long v;

		errno = 0;
		v = strtoul(counters, &end, 10);
		if (errno || end == counters || *end || counters[0] == '-' || v > 4096)
			return usage_error("--counters %s: counters per L3 domain, 0 (all free) to "
					   "4096", counters);
		most = (unsigned int)v;
	}
	r = period || counters ? ctx() : ctx_ro();
	if (!r)
		return EXIT_FAIL;
	if (period || counters) {
		ret = rdtalloc_mon_get_counters(r, &c);
		if (!ret)
			ret = rdtalloc_mon_set_rotation(r, period ? ms : c.period_ms,
							counters ? most : c.counters);
		if (ret)
			return fail_lib(r, ret);
	}
	o = mon_counters_json(r, &ret);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	if (o)
		jset(doc, "counters", o);
	else
		jset_null(doc, "counters");
	return emit(doc, print_turns);
}

int mon_subcommand(int argc, char **argv, int *rc)
{
	static const struct cmd cmds[] = {
		{ "pin", mon_pin },
		{ "unpin", mon_unpin },
		{ "turns", mon_turns },
		{ NULL, NULL },
	};
	const struct cmd *c;

	/* exact words only: anything else is a group to monitor */
	for (c = cmds; argc > 0 && c->name; c++)
		if (!strcmp(argv[0], c->name)) {
			*rc = c->fn(argc - 1, argv + 1);
			return 1;
		}
	return 0;
}
