// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/open: rdtalloc_open, the one place that names what this build is made
 * of (lib/tables.h: the sections, the backends) and hands it to the context
 * (rdt_core_open). Below the API files nothing names a module or a backend.
 */
#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "tables.h"

RDTALLOC_API int rdtalloc_open(rdtalloc_t **out, const struct rdtalloc_opts *opts)
{
	return rdt_core_open(out, opts, rdt_sections, rdt_backends);
}
