// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * oci-hook: the OCI runtime hook (rdtalloc_oci_hook). A runtime runs it
 * with the container's state JSON on standard input; it says nothing on
 * success (with -j, what it did), and on failure exits 1 with the
 * library's message on standard error, so that the runtime refuses to start
 * the container. docs/containers.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdtctl.h"

/* Standard input, whole, bounded: one byte more than allowed says "too long". */
static int read_state(char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t got;

	while (buf) {
		if (n == cap) {
			if (cap > RDTALLOC_OCI_STATE_MAX)
				break;
			cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
		}
		got = read(STDIN_FILENO, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return fail_msg("oci-hook: cannot read the container's state from standard "
					"input: %s", strerror(errno));
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (!buf)
		return fail_msg("out of memory");
	*out = buf;
	*len = n;
	return EXIT_OK;
}

static bool noop_stage(const char *stage)
{
	return !strcmp(stage, "createContainer") || !strcmp(stage, "startContainer") ||
	       !strcmp(stage, "poststart");
}

static const char *action_name(int what)
{
	static const char *const names[] = { "none", "cgroup", "process", "released",
					     "removed-group" };

	return what >= 0 && what <= RDTALLOC_OCI_REMOVED_GROUP ? names[what] : "none";
}

int do_oci_hook(int argc, char **argv)
{
	static const char synopsis[] = "oci-hook createRuntime|prestart|poststop < STATE";
	struct rdtalloc_opts o;
	json_object *doc;
	char *state = NULL;
	size_t len = 0;
	int ret, what = 0;

	ret = parse_flags("oci-hook", &argc, argv, NULL);
	if (ret)
		return ret;
	REQ_ARGS(1, synopsis);
	MAX_ARGS(1, synopsis);
	/* createContainer, startContainer, poststart do nothing, whatever the input */
	if (noop_stage(argv[0])) {
		char sink[4096];

		while (read(STDIN_FILENO, sink, sizeof(sink)) > 0)
			;
	} else {
		ret = read_state(&state, &len);
		if (ret)
			return ret;
	}
	ctx_opts(&o, 0);
	ret = rdtalloc_oci_hook(&o, argv[0], state, len, &what);
	free(state);
	if (ret)
		return fail_msg("oci-hook %s: %s", argv[0], rdtalloc_errmsg(NULL));
	if (!g_opts.json)
		return EXIT_OK;
	doc = jobj();
	jset(doc, "stage", jstr(argv[0]));
	jset(doc, "action", jstr(action_name(what)));
	return emit(doc, NULL);
}
