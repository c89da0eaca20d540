/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tables: what this build of the library is made of - the modules that keep
 * a part of the state or hook the context's calls (lib/sections.c) and the
 * backends (lib/backends/table.c). Only rdtalloc_open (lib/api/open.c) names
 * them: it hands them to the context (rdt_core_open), which hands the
 * sections down to the engine and the store, so that no layer below the
 * API files names a module or a backend. Adding one is its folder and one
 * line in its table (the way hwloc registers components).
 */
#ifndef RDT_TABLES_H
#define RDT_TABLES_H

#include "backend.h"
#include "hw/section.h"

/* The sections of this version, NULL-terminated, at most RDT_SECTIONS_MAX. */
extern const struct rdt_section *const rdt_sections[];
/* The backends, NULL-terminated; the first simulated one is the fallback. */
extern const struct rdt_backend *const rdt_backends[];

#endif
