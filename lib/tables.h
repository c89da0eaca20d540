/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tables: what this build of the library is made of - the modules that keep
 * a part of the state (lib/sections.c) and the backends (lib/backends.c).
 * Only the context (lib/core.c) reads them and hands them down, so that no
 * layer below names a module or a backend: adding one is its folder and
 * one line in its table (the way hwloc registers components).
 */
#ifndef RDT_TABLES_H
#define RDT_TABLES_H

#include "hw/section.h"

/* The sections of this version, NULL-terminated, at most RDT_SECTIONS_MAX. */
extern const struct rdt_section *const rdt_sections[];

#endif
