// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * backends/table: the backends of this build, in the order `auto` tries
 * them (the simulator, which it never picks but falls back to, first). A
 * new backend adds its folder and one line here; the context (lib/core.c)
 * is handed this table at open (lib/api/open.c) and names none.
 */
#include "tables.h"

const struct rdt_backend *const rdt_backends[] = {
	&rdt_backend_sim,
	&rdt_backend_msr,
	&rdt_backend_resctrl,
	NULL,
};
