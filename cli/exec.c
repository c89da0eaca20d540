// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * exec: rdtctl exec GROUP [--] CMD [ARGS...]. Binds itself to GROUP, then
 * becomes CMD (execvp): CMD runs in the group from its first instruction,
 * as taskset runs a program on its CPUs, and its exit status is rdtctl's.
 * Children inherit the group where the backend follows forks (resctrl, the
 * switch hook); the simulator's table holds CMD's process alone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdtctl.h"

/* What a shell says for a command it cannot run. */
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

int do_exec(int argc, char **argv)
{
	static const char synopsis[] = "exec GROUP [--] CMD [ARGS...]";
	const char *group;
	rdtalloc_t *r;
	int ret;

	REQ_ARGS(1, synopsis);
	group = argv[0];
	NEXT_ARG();
	if (argc && !strcmp(argv[0], "--"))
		NEXT_ARG();
	if (!argc)
		return usage_error("missing command: usage: rdtctl %s", synopsis);
	r = ctx();
	if (!r)
		return EXIT_FAIL;
	/* tid 0: this thread, which exec keeps (same id, same start time) */
	ret = rdtalloc_bind_task(r, group, 0);
	if (ret < 0)
		return fail_lib(r, ret);
	ctx_close();
	fflush(NULL);
	execvp(argv[0], argv);
	ret = errno;
	fail_msg("cannot run %s: %s", argv[0], strerror(ret));
	return ret == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}
