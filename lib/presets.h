/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * presets: named machine descriptions of real processors (`preset=NAME`),
 * each with the public source of its numbers. Plain data and lookups only;
 * the description grammar itself belongs to machine.c.
 */
#ifndef RDT_PRESETS_H
#define RDT_PRESETS_H

#include <stddef.h>

struct rdt_preset {
	const char *name;	/* "skylake-sp" */
	const char *vendor;	/* "GenuineIntel", "AuthenticAMD" */
	const char *part;	/* the SKU the topology models */
	const char *desc;	/* a machine description without `preset` or `tasks` */
	const char *source;	/* where the numbers come from */
};

/* The description a preset stands for, or NULL when there is no such preset. */
const char *rdt_preset_lookup(const char *name);
/* The whole entry, or NULL. */
const struct rdt_preset *rdt_preset_find(const char *name);
/* Entry i (0 .. rdt_preset_count() - 1), NULL past the end: the iterator. */
const struct rdt_preset *rdt_preset_at(unsigned int i);
unsigned int rdt_preset_count(void);
/* "haswell-ep, broadwell-ep, ..." for error messages; returns the length like snprintf. */
int rdt_preset_names(char *buf, size_t len);

#endif
