// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sections: the modules that keep a part of the state or hook the context's
 * calls (hw/section.h). A new one adds its description here, one line, and
 * touches neither the engine, lib/state.c nor lib/core.c. The order is the
 * order their members are loaded in and their hooks run in.
 */
#include "tables.h"

extern const struct rdt_section rdt_mon_section;	/* monitor/rmid.c */
extern const struct rdt_section rdt_oci_section;	/* oci/oci.c */
extern const struct rdt_section rdt_control_section;	/* control/live.c */
extern const struct rdt_section rdt_policy_section;	/* goresctrl/policy.c */
extern const struct rdt_section rdt_lease_section;	/* lease.c: hooks only */
extern const struct rdt_section rdt_io_section;		/* backends/sim.c */

const struct rdt_section *const rdt_sections[] = {
	&rdt_mon_section,
	&rdt_oci_section,
	&rdt_control_section,
	&rdt_policy_section,
	&rdt_lease_section,
	&rdt_io_section,
	NULL,
};
