// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * context: the one library context of a run - opened as the command needs
 * it (a change, a look, a monitor, a what-if, a replacement of the machine),
 * with the global options, and closed at exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtctl.h"

rdtalloc_t *g_ctx;

void ctx_opts(struct rdtalloc_opts *o, unsigned int flags)
{
	RDTALLOC_OPTS(rdtalloc_opts, v, .backend = g_opts.backend,
		      .state_dir = g_opts.state_dir, .machine = g_opts.machine,
		      .msr_root = g_opts.msr_root, .resctrl_root = g_opts.resctrl_root,
		      .precedence = g_opts.precedence, .max_groups = g_opts.max_groups,
		      .max_tasks = g_opts.max_tasks, .owner = g_opts.owner,
		      .flags = flags | (g_opts.force ? RDTALLOC_F_FORCE : 0));
	*o = v;
}

static rdtalloc_t *ctx_flags(unsigned int flags)
{
	struct rdtalloc_opts o;
	int ret;

	if (g_ctx)
		return g_ctx;
	ctx_opts(&o, flags);
	ret = rdtalloc_open(&g_ctx, &o);
	if (ret) {
		g_ctx = NULL;
		fail_lib(NULL, ret);
		return NULL;
	}
	/* what the open itself did (a killed profile's schema put back) */
	print_warning_lines(rdtalloc_warning(g_ctx));
	return g_ctx;
}

rdtalloc_t *ctx(void)
{
	return ctx_flags(0);
}

/*
 * Read-only commands: nothing created or written (not even a repair of the
 * kernel), and one snapshot of the state answers them.
 */
/* A look: what it prints is marked where the backend does not hold the state. */
bool g_look;

rdtalloc_t *ctx_ro(void)
{
	g_look = true;
	return ctx_flags(RDTALLOC_F_READ_ONLY | RDTALLOC_F_SNAPSHOT);
}

/*
 * monitor: a look - nothing created or repaired, what is missing marked -
 * that keeps the running totals beside the state (counters.json), so that
 * two runs continue each other.
 */
rdtalloc_t *ctx_monitor(void)
{
	g_look = true;
	return ctx_flags(RDTALLOC_F_READ_ONLY | RDTALLOC_F_MON_TOTALS);
}

/*
 * What-if commands (profile --trace, plan): a machine given (--machine) is
 * the one modelled, on the simulator whatever the host's backend. Its state
 * is looked at when there is one for that machine (a plan keeps off its
 * exclusive groups' ways); a state made for another machine is not in the
 * way, and none is made: nothing is created or bound to the machine given.
 * Without --machine the host's state is looked at, as ctx_ro does.
 */
rdtalloc_t *ctx_whatif(void)
{
	struct rdtalloc_opts o;
	int ret;

	if (!g_opts.machine)
		return ctx_ro();
	if (g_ctx)
		return g_ctx;
	g_look = true;
	ctx_opts(&o, RDTALLOC_F_READ_ONLY | RDTALLOC_F_SNAPSHOT);
	o.backend = "sim";
	ret = rdtalloc_open(&g_ctx, &o);
	if (ret == -EBUSY) {
		/* the state is another machine's: the machine given alone */
		ctx_opts(&o, RDTALLOC_F_EPHEMERAL);
		o.backend = "sim";
		o.state_dir = NULL;
		ret = rdtalloc_open(&g_ctx, &o);
	}
	if (ret) {
		g_ctx = NULL;
		fail_lib(NULL, ret);
	}
	return g_ctx;
}

rdtalloc_t *ctx_replace(void)
{
	return ctx_flags(g_opts.machine ? RDTALLOC_F_REPLACE_MACHINE : 0);
}

void ctx_close(void)
{
	rdtalloc_close(g_ctx);
	g_ctx = NULL;
}
