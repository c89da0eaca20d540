// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * resctrl backend, the resctrl backend's tables: the ops the core calls and the backend description.
 * backends/resctrl_int.h says what the parts share.
 */
#include "backends/resctrl_int.h"

static void rc_close(void *ctx)
{
	free(ctx);
}

static const struct rdt_group_ops resctrl_ops = {
	.sync = rc_sync,
	.drift = rc_drift,
	.place_tasks = rc_place_tasks,
	.open = rc_open_ops,
	.close = rc_close_ops,
	.begin = rc_begin,
	.commit = rc_commit,
	.abort = rc_abort,
	.finish = rc_finish,
	.tasks_allowed = rc_tasks_allowed,
	.bind_task = rc_bind_task,
	.carry_tasks = rc_carry_tasks,
	.group_tasks = rc_group_tasks,
	.task_group = rc_task_group,
	.effective_closid = rc_effective_closid,
	.group_closid = rc_group_closid,
	.closids = rc_closids,
	.sim_switch_allowed = rc_sim_switch_allowed,
	.check = rc_check,
	.moved_tasks = rc_moved_tasks,
};

const struct rdt_backend rdt_backend_resctrl = {
	.name = "resctrl",
	.simulated = false,
	.hook = false,
	.cdp_fixed = true,
	.precedences = 1u << RDT_PREC_TASK,
	.default_precedence = RDT_PREC_TASK,
	.precedence_why = "the kernel's resctrl runs a task of a non-default group with that "
			  "group's allocation on every CPU (resctrl.rst, \"Resource allocation "
			  "rules\"), and has no other rule",
	.ops = &resctrl_ops,
	.usable = rc_usable,
	.machine_desc = rc_machine_desc,
	.open = rc_open,
	.close = rc_close,
	.mon_read = rc_mon_read,
	.mon_reserved = rc_mon_reserved,
	.mon_read_nodes = rc_mon_read_nodes,
	.pkg_read = rc_pkg_read,
	.mon_cntrs = rc_mon_cntrs,
	.mon_assign = rc_mon_assign,
	.mon_reclaim = rc_mon_reclaim,
	.ways = rc_ways,
	.io_alloc = rc_io_alloc,
};
