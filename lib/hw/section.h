/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * section: the parts of a state that modules own. A module that keeps
 * persistent data (monitoring's RMIDs, the containers the OCI hook placed,
 * whatever comes next) describes its part once - its member of the state
 * file, its size, how to make, copy, free, save and load it - and lists
 * that description in lib/sections.c. The context (lib/core.c) hands that
 * table to the engine (rdt_state_new: every state has one part per
 * section, copied with the state for the undo image) and to lib/state.c
 * (rdt_store_open: the member written and read); neither names a section,
 * includes a module's header or links with one. A member of the state file that no section
 * of this version knows is kept as it was read and written back as it is.
 */
#ifndef RDT_SECTION_H
#define RDT_SECTION_H

#include <stddef.h>

#include <json-c/json.h>

struct rdt_state;
struct rdtalloc;

struct rdt_section {
	/* its member of the state file; NULL: none (a module with hooks only) */
	const char *name;
	size_t size;			/* bytes of its part, zeroed when made */
	/* a new state's part (the machine is st->m); NULL: zeroed is right */
	int (*init)(struct rdt_state *st, void *part);
	/* a deep copy of from into to (zeroed); -ENOMEM */
	int (*copy)(void *to, const void *from);
	/* what the part holds (not the part itself) */
	void (*free)(void *part);
	/* the member to write; NULL: nothing to write */
	json_object *(*save)(const struct rdt_state *st, const void *part);
	/*
	 * The member as read (o NULL: absent, a state from before the
	 * section), every value checked; called after the engine's own
	 * members are read, in the order of lib/sections.c.
	 */
	int (*load)(struct rdt_state *st, void *part, json_object *o, const char *path, char *err,
		    size_t len);
	/*
	 * Hooks of the context's calls (lib/core.c), each optional, run in the
	 * order of the table, so that the core calls no module by name: open
	 * (a context was opened, its state read), begin (a write call starts,
	 * the state as it was) and settle (a write call changed the state,
	 * before the backend commits it).
	 */
	void (*open)(struct rdtalloc *r);
	void (*begin)(struct rdtalloc *r);
	void (*settle)(struct rdtalloc *r);
};

#define RDT_SECTIONS_MAX 8

#endif
