/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tasks: what /proc says about tasks - whether a thread id is alive, when it
 * started (so a reused id is told apart from the task that had it), who owns
 * it, and every live thread of the host. Owns no state.
 */
#ifndef RDT_TASKS_H
#define RDT_TASKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Start time (clock ticks after boot, /proc/TID/stat field 22) and owner of
 * a live thread. -ESRCH when there is no such thread, or it has exited and
 * is a zombie waiting to be reaped.
 */
int rdt_task_info(pid_t tid, uint64_t *start, uid_t *uid);
/* The thread is alive and started at `start`. */
int rdt_task_alive(pid_t tid, uint64_t start);
/* Every live thread id of the host, ascending. */
int rdt_host_tids(pid_t **out, size_t *n);

#endif
