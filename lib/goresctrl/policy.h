/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy: the annotations a goresctrl class allows (its kubernetes:
 * denyPodAnnotation, denyContainerAnnotation), recorded in the state when
 * a goresctrl configuration is applied, so that the OCI hook refuses a pod
 * that picks a class its administrator reserved, as goresctrl's
 * ContainerClassFromAnnotations does. The "class_policy" member of the
 * state file: a group (by sequence number: names are reused) and what it
 * denies; only groups that deny something are listed.
 */
#ifndef RDT_GORESCTRL_POLICY_H
#define RDT_GORESCTRL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/engine.h"

#include <rdtalloc/rdtalloc.h>

/* the public flags: what rdtalloc_goresctrl_policy returns */
#define RDT_POLICY_DENY_POD RDTALLOC_GORESCTRL_DENY_POD
#define RDT_POLICY_DENY_CONTAINER RDTALLOC_GORESCTRL_DENY_CONTAINER

struct rdt_policy_rule {
	uint64_t seq;			/* the group's sequence number (the default's: 0) */
	unsigned int deny;		/* RDT_POLICY_DENY_* */
};

struct rdt_policy_state {
	struct rdt_policy_rule *v;
	unsigned int n;
};

extern const struct rdt_section rdt_policy_section;

/* What group g denies (RDT_POLICY_DENY_*); 0 for a group no configuration restricted. */
unsigned int rdt_policy_of(const struct rdt_state *st, int g);
/*
 * The rules of a configuration applied, in place of the last one's: deny[i]
 * for the live group names[i] (a name no group has is skipped). 1 when
 * that changed the part, 0 when it did not, -ENOMEM (the part unchanged).
 */
int rdt_policy_replace(struct rdt_state *st, const char *const *names, const unsigned int *deny,
		       unsigned int n);

#endif
