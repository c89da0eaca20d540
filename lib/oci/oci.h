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

#endif
