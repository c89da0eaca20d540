/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * oci: the OCI runtime hook (runtime-spec config.md, "POSIX-platform
 * Hooks"). A runtime (runc, crun, podman, CRI-O) runs it with the
 * container's state JSON on standard input; a container annotated
 * rdtalloc.group lands in that group at createRuntime (or prestart) - its
 * cgroup when it has one of its own, else its init process - and leaves it
 * at poststop. Owns the parsing and checking of the state JSON, the
 * placement in one transaction, and the record of the containers it placed
 * (the "containers" member of the state file: which group, and whether the
 * hook made the group for it, so that poststop removes only that).
 * docs/containers.md.
 */
#ifndef RDT_OCI_H
#define RDT_OCI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "hw/engine.h"

struct rdtalloc;

#define RDT_OCI_ID_MAX 256		/* bytes of a container id */
#define RDT_OCI_CONTAINERS_MAX 4096u	/* containers placed at once, per state */

/* A container the hook placed. */
struct rdt_oci_ctr {
	char id[RDT_OCI_ID_MAX + 1];
	uint64_t group_seq;		/* its group (names may be reused) */
	bool created;			/* the hook made the group for it */
	char *cgroup;			/* its cgroup, in its group (relative), or NULL */
	uint64_t cgroup_id;		/* that cgroup's id (inode); 0: not recorded (0.5.0) */
	bool bound;			/* the hook bound that cgroup for it (else it was) */
	pid_t pid;			/* its init process; 0: not recorded (0.5.0) */
	uint64_t start;			/* and that process's start time */
};

struct rdt_oci_state {
	struct rdt_oci_ctr *v;
	unsigned int n;
};

/*
 * The containers' part of a state (hw/section.h): copied, freed, saved
 * ("containers") and loaded by the engine and lib/state.c through this
 * description, which knows nothing of its insides.
 */
extern const struct rdt_section rdt_oci_section;

static inline struct rdt_oci_state *rdt_oci(const struct rdt_state *st)
{
	return rdt_state_part(st, &rdt_oci_section);
}
/* Records whose group is gone (removed by hand) go too. */
void rdt_oci_state_gc(struct rdt_state *st);
/*
 * Inside a write call: release, as poststop would, every container that is
 * gone without its poststop (its runtime killed) - its cgroup removed and
 * its init process dead; a record without a cgroup once its init is dead;
 * one of 0.5.0 (no pid recorded) only once its cgroup is gone. Returns how
 * many were released, or a negative errno.
 */
int rdt_oci_gc(struct rdtalloc *r);

/* What the state JSON says, checked (rdt_oci_read). */
struct rdt_oci_in {
	char id[RDT_OCI_ID_MAX + 1];
	pid_t pid;			/* 0: none given (poststop) */
	const char *group;		/* the annotations' values, or NULL */
	const char *schema;
	bool from_class;		/* the group is a CRI annotation's RDT class */
	const char *root_class;		/* the default class the annotations gave, or NULL */
	const char *key;		/* the annotation the group came from */
	char class_key[256];		/* the pod's per-container key, when it was that */
};

/* What a stage asks for: place the container, release it, nothing. */
enum rdt_oci_stage { RDT_OCI_PLACE, RDT_OCI_RELEASE, RDT_OCI_NONE };

/*
 * rdtalloc_oci_hook's steps; lib/oci/entry.c (the public call) opens and
 * closes the contexts, so that this module never opens one itself. The
 * stage and, for a stage that acts, the state JSON, checked (*root to
 * free); the default class's kubernetes options checked on r (a read
 * call); the stage done on r (one write call: containers gone without
 * poststop released, then this one placed or released, *what said).
 */
int rdt_oci_read(const char *stage, const char *state, size_t len, enum rdt_oci_stage *sg,
		 json_object **root, struct rdt_oci_in *in);
int rdt_oci_root_allowed(struct rdtalloc *r, const struct rdt_oci_in *in);
int rdt_oci_act(struct rdtalloc *r, enum rdt_oci_stage sg, const struct rdt_oci_in *in,
		int *what);

#endif
