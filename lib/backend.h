/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend: the small vtable a backend implements. The core owns groups,
 * schemas, CLOSIDs and state; a backend says whether it can run here,
 * which machine it drives, and where register writes go. Adding a backend
 * is one file in lib/backends/ and one line in core.c's table.
 */
#ifndef RDT_BACKEND_H
#define RDT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/engine.h"
#include "machine.h"

/* Settings a backend may need; each has a default when NULL. */
struct rdt_backend_env {
	const char *msr_root;	/* device root: <root>/<cpu>/msr; NULL: /dev/cpu */
	const char *mounts;	/* mount table to look for resctrl in; NULL: /proc/self/mounts */
	bool machine_given;	/* the caller gave a machine description: trust it over CPUID */
};

/* reconcile flags */
#define RDT_RECONCILE_FIRST	(1u << 0)	/* a new state: write every register */
/*
 * Leave PQR_ASSOC alone: the switch hook's agent writes it, ahead of the
 * state's image, so a difference there is not a disagreement.
 */
#define RDT_RECONCILE_NO_PQR	(1u << 1)

/* Every callback is optional: NULL means the backend needs nothing there. */
struct rdt_backend {
	const char *name;
	/* Registers live in the state; rdtalloc_sim_switch() is available. */
	bool simulated;
	/*
	 * Can it run here? 0, or a negative errno with a one-line reason the
	 * user can act on. Called first.
	 */
	int (*usable)(const struct rdt_backend_env *env, char *reason, size_t len);
	/*
	 * The machine description to use when the caller gives none and no
	 * state records one (e.g. the host's detected capabilities). NULL
	 * callback: the host topology with simulated defaults ("").
	 * *desc is malloc'ed.
	 */
	int (*host_machine)(const struct rdt_backend_env *env, char **desc, char *err, size_t len);
	/* Attach to the machine; *ctx is the backend's own. */
	int (*open)(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		    char *err, size_t len);
	void (*close)(void *ctx);
	/* Where register writes go besides the state's image; NULL: nowhere. */
	const struct rdt_sink *(*sink)(void *ctx);
	/*
	 * Make the hardware hold the register image st->regs: read every
	 * register the image covers, write those that differ (all of them with
	 * RDT_RECONCILE_FIRST: the state is new). *fixed: how many were
	 * rewritten.
	 */
	int (*reconcile)(void *ctx, const struct rdt_state *st, unsigned int flags,
			 unsigned int *fixed, char *err, size_t len);
	/*
	 * Read back every register reconcile covers (flags: RDT_RECONCILE_NO_PQR)
	 * and hash what was read: *out, never 0. It tells whether the register
	 * file still reads as the last call left it, also where the values read
	 * back are not the values written (device roots of plain files, whose
	 * registers overlap byte-wise).
	 */
	int (*digest)(void *ctx, const struct rdt_state *st, unsigned int flags, uint64_t *out,
		      char *err, size_t len);
	/* Can tasks be bound now? 0 or -EOPNOTSUPP with what to do. */
	int (*task_binding)(void *ctx, char *err, size_t len);
};

extern const struct rdt_backend rdt_backend_sim;
extern const struct rdt_backend rdt_backend_msr;

#endif
