/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * errors: the detailed message of this thread's last failure, per context
 * (rdtalloc_errmsg), and errno texts. Owns no other state.
 */
#ifndef RDT_ERRORS_H
#define RDT_ERRORS_H

#include <stdbool.h>
#include <stdint.h>

struct rdtalloc;

#define RDT_ERRMSG_MAX 1024

/*
 * Record a failure of a call on r (NULL: a context-less call or open) for
 * the calling thread and return err (a negative errno), so that callers can
 * write `return rdt_fail(r, -EINVAL, "L3 cache id %u: ...", id);`.
 */
int rdt_fail(const struct rdtalloc *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Forget this thread's message for r (at the start of each call). */
void rdt_clear_err(const struct rdtalloc *r);

/*
 * What errors.c reads of a context: the key of its messages. It is the first
 * member of struct rdtalloc (lib/core.h), so that a context's pointer is a
 * pointer to it and errors.c needs nothing else of the context.
 */
struct rdt_err_key {
	uint64_t id;
};

/* A fresh context id for message slots. */
uint64_t rdt_err_new_id(void);
/* Whether this thread has a message for r already. */
bool rdt_errmsg_is_set(const struct rdtalloc *r);

#endif
