// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim: the simulator backend. Its register file is the register image kept
 * in the state (mask tables per domain, CDP config, PQR_ASSOC per CPU, write
 * counters), so successive processes act on one simulated machine and an
 * ephemeral context on one in memory. Context switches are simulated by
 * rdtalloc_sim_switch(). It runs anywhere, as any user, needs no device and
 * no hook: every register-level callback is left out; the group level is
 * the engine's (lib/hw/ops.c).
 */
#include "backend.h"

const struct rdt_backend rdt_backend_sim = {
	.name = "sim",
	.simulated = true,
	.hook = true,
	.precedences = (1u << RDT_PREC_CPU) | (1u << RDT_PREC_TASK),
	.default_precedence = RDT_PREC_CPU,
	.ops = &rdt_hw_group_ops,
};
