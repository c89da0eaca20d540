// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sync: what the agent does between commands, done once (rdtalloc_sync) -
 * the kernel or the registers brought back to the state where they drifted,
 * bound cgroups' newcomers placed (--full: all of them, whether or not
 * anything else differed), containers gone without poststop released.
 * docs/agent.md.
 */
#include <stdio.h>

#include "rdtctl.h"

static void print_sync(json_object *doc)
{
	const char *what = jget_str(doc, "what");

	printf("%s\n", what && *what ? what : "the backend holds the state: nothing to do");
}

int do_sync(int argc, char **argv)
{
	static const char synopsis[] = "sync [--full]";
	struct rdtalloc_sync_report rep = { .sz = sizeof(rep) };
	bool full = false;
	const struct flag flags[] = { { "--full", &full, NULL }, { NULL, NULL, NULL } };
	json_object *doc;
	rdtalloc_t *r;
	int ret;

	ret = parse_flags("sync", &argc, argv, flags);
	if (ret)
		return ret;
	MAX_ARGS(0, synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	ret = rdtalloc_sync(r, full ? RDTALLOC_SYNC_FULL : 0, &rep);
	if (ret)
		return fail_lib(r, ret);
	doc = jobj();
	jset(doc, "repairs", jint(rep.repairs));
	jset(doc, "tasks_moved", jint(rep.tasks_moved));
	jset(doc, "dropped", jint(rep.dropped));
	jset(doc, "containers_released", jint(rep.containers_released));
	jset(doc, "strays_left", jint(rep.strays_left));
	jset(doc, "strays_moved", jint(rep.strays_moved));
	jset(doc, "what", jstr(rep.what));
	return emit_change(doc, print_sync);
}
