/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * state: the engine's state on disk. One directory per backend instance,
 * holding `state.json` and `lock`. Every change: exclusive flock, read,
 * change, then the file replaced through store/atomic.h (temporary, fsync,
 * rename, fsync of the directory) - so a crash leaves the old state or the
 * new one, never a torn one. Readers take a
 * shared lock. Refuses directories and files that are symlinks, not owned
 * by the caller, or writable by others. Owns the file format (JSON, json-c).
 */
#ifndef RDT_STATE_H
#define RDT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "hw/engine.h"

struct rdt_store;

/* Default state directory of a backend: /run/rdtalloc/<b> for root, else per user. */
int rdt_store_default_dir(const char *backend, char *buf, size_t len);

/*
 * Open (creating it 0700 when missing) and check a state directory; ro:
 * create nothing (the directory and its lock file must exist). sections:
 * the modules' parts of the states read and written (hw/section.h), the
 * table the context was given (NULL-terminated; NULL: none).
 */
int rdt_store_open(const char *dir, bool ro, const struct rdt_section *const *sections,
		   struct rdt_store **out, char *err, size_t errlen);
/*
 * Is there a state file in dir (nothing is created)? 1 yes, 0 no (it or
 * the directory does not exist), else -errno: it cannot be known (EACCES).
 */
int rdt_store_exists(const char *dir);
void rdt_store_close(struct rdt_store *s);
const char *rdt_store_path(const struct rdt_store *s);
/* A file beside the state file (a module's own: counters, leases); malloc'd. */
char *rdt_store_sibling(const struct rdt_store *s, const char *name);

int rdt_store_lock(struct rdt_store *s, bool exclusive);
void rdt_store_unlock(struct rdt_store *s);

/*
 * Under the lock: whether the state file exists and whether it differs from
 * the one last read or written through this store.
 */
int rdt_store_probe(struct rdt_store *s, bool *exists, bool *changed);

/* Read the machine description recorded in the state file. */
int rdt_store_read_machine(struct rdt_store *s, char **desc, char *err, size_t errlen);
/* The id of the state just read by rdt_store_read_machine(), "" if none. */
void rdt_store_cached_id(struct rdt_store *s, char *id, size_t len);
/*
 * The sections' members st could not load and keeps aside (written back as
 * read until their section writes its own): their names, quoted and
 * comma-separated, into buf; how many.
 */
size_t rdt_state_kept_aside(const struct rdt_state *st, char *buf, size_t len);

/* Read the whole state for machine m (which must be the recorded one). */
int rdt_store_read(struct rdt_store *s, const struct rdt_machine *m, const char *backend,
		   struct rdt_state **out, char *err, size_t errlen);
/* Replace the state file with st, crash-safely. */
int rdt_store_write(struct rdt_store *s, const struct rdt_state *st, const char *backend,
		    char *err, size_t errlen);

#endif
