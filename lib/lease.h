/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lease: a group's schema held by a process that changes it for a while
 * and puts it back (rdtctl profile GROUP sweeps the mask over 1..N ways),
 * so that a holder killed before it puts the schema back - SIGKILL, the
 * OOM killer - does not leave the group squeezed for good. Owns
 * `leases.json` beside the state file (its own lock, `leases.lock`): per
 * lease the group (name and sequence number), the schema to put back, and
 * the holder (pid and start time, so a reused pid is not taken for it).
 * The next writable open of the state puts back the schema of every lease
 * whose holder is gone; a read-only open only says so (rdtalloc_warning).
 * docs/monitoring.md ("profile GROUP").
 */
#ifndef RDT_LEASE_H
#define RDT_LEASE_H

struct rdtalloc;

#define RDT_LEASES_MAX 1024u		/* leases of one state at once */

/*
 * At open (with a state file; the open hook of rdt_lease_section, listed in
 * lib/sections.c): put back the schema of every lease whose
 * holder is gone, and drop those leases; read only: warn of them. Failures
 * are warnings: the open goes on, and the lease stays for the next open.
 */
void rdt_lease_recover(struct rdtalloc *r);

#endif
