// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace: rdtctl trace convert - a lackey text trace into the compact
 * binary form the cache model reads. docs/plan.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

static int trace_convert(int argc, char **argv)
{
	static const char synopsis[] = "trace convert IN OUT [--instr]";
	bool instr = false;
	const struct flag flags[] = { { "--instr", &instr, NULL }, { NULL, NULL, NULL } };
	json_object *doc;
	uint64_t n = 0;
	int ret;

	ret = parse_flags("trace convert", &argc, argv, flags);
	if (ret)
		return ret;
	REQ_ARGS(2, synopsis);
	MAX_ARGS(2, synopsis);
	ret = rdtalloc_trace_convert(argv[0], argv[1], instr ? RDTALLOC_TRACE_INSTR : 0, &n);
	if (ret)
		return fail_lib(NULL, ret);
	if (g_opts.quiet)
		return EXIT_OK;
	doc = jobj();
	jset(doc, "accesses", jint((long long)n));
	jset(doc, "file", jstr(argv[1]));
	if (g_opts.json)
		return emit(doc, NULL);
	printf("%s: %llu accesses\n", argv[1], (unsigned long long)n);
	json_object_put(doc);
	return EXIT_OK;
}

int do_trace(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "convert", trace_convert },
		{ NULL, NULL },
	};

	return cmd_select(cmds, "trace", argc, argv);
}
