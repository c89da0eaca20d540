/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * txn: what the group level of sim and msr (lib/hw/ops.c) keeps in a
 * context from one call to the next - the switch hook it opened, and the
 * copies a write call takes to undo itself. The context holds it (lib/core.h)
 * and hands it out with rdt_core_hw_txn (lib/context.h), so that ops.c works
 * on this and on the context's calls, never on struct rdtalloc's members.
 */
#ifndef RDT_HW_TXN_H
#define RDT_HW_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rdt_hook;
struct rdt_hook_snap;
struct rdt_state;

struct rdt_hw_txn {
	struct rdt_hook *hook;		/* the pinned switch hook, cached (see rdt_hw_hook) */
	unsigned long hook_ino;		/* inode of the pin directory it was opened from */
	bool hook_serves;		/* it serves this context's backend and state */
	bool hook_checked;		/* RDTALLOC_F_SNAPSHOT: the hook was looked for */
	bool hook_synced;		/* this call pushed the state into the hook's maps */
	struct rdt_hook_snap *hook_before;	/* the state the maps held when the call began */
	/* the state before this call, when writes reach hardware */
	struct rdt_state *undo;
	struct rdt_hook_undo {		/* task storage changes of this call, to undo */
		pid_t tid;
		uint64_t start;
		uint64_t seq;		/* what it was */
	} *hook_undo;
	size_t nhook_undo, hook_undo_cap;
};

#endif
