// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errors: one message slot per thread, tagged with the context it belongs
 * to, so that rdtalloc_errmsg(r) reports this thread's last failure on r and
 * never another thread's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stdint.h>

#include <rdtalloc/rdtalloc.h>

#include "errors.h"

/*
 * A few slots per thread, keyed by the context's id (not its address, which
 * a later context may reuse), the least recently written one recycled.
 */
#define ERR_SLOTS 8

struct err_slot {
	uint64_t id;		/* context id; 0: context-less calls and open */
	uint64_t stamp;
	char msg[RDT_ERRMSG_MAX];
};

static __thread struct err_slot slots[ERR_SLOTS];
static __thread uint64_t clock_now;
static __thread bool used[ERR_SLOTS];
static uint64_t next_id = 1;

uint64_t rdt_err_new_id(void)
{
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

/* The context's key: the first member of struct rdtalloc (errors.h). */
static uint64_t id_of(const struct rdtalloc *r)
{
	return r ? ((const struct rdt_err_key *)(const void *)r)->id : 0;
}

static struct err_slot *find(uint64_t id)
{
	unsigned int i;

	for (i = 0; i < ERR_SLOTS; i++)
		if (used[i] && slots[i].id == id)
			return &slots[i];
	return NULL;
}

static struct err_slot *claim(uint64_t id)
{
	struct err_slot *s = find(id);
	unsigned int i, old = 0;

	if (s)
		return s;
	for (i = 0; i < ERR_SLOTS; i++) {
		if (!used[i]) {
			old = i;
			break;
		}
		if (slots[i].stamp < slots[old].stamp)
			old = i;
	}
	used[old] = true;
	slots[old].id = id;
	return &slots[old];
}

int rdt_fail(const struct rdtalloc *r, int err, const char *fmt, ...)
{
	struct err_slot *s = claim(id_of(r));
	char tmp[RDT_ERRMSG_MAX];
	va_list ap;

	/* fmt's arguments may point into the slot itself: format aside first. */
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	memcpy(s->msg, tmp, sizeof(tmp));
	s->stamp = ++clock_now;
	errno = -err;
	return err;
}

void rdt_clear_err(const struct rdtalloc *r)
{
	struct err_slot *s = find(id_of(r));

	if (s)
		s->msg[0] = '\0';
}

bool rdt_errmsg_is_set(const struct rdtalloc *r)
{
	struct err_slot *s = find(id_of(r));

	return s && s->msg[0];
}

RDTALLOC_API const char *rdtalloc_errmsg(const rdtalloc_t *r)
{
	struct err_slot *s = find(id_of(r));

	return s ? s->msg : "";
}

RDTALLOC_API const char *rdtalloc_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument";
	case -ENOENT:
		return "no such group or object";
	case -EEXIST:
		return "already exists";
	case -ENOSPC:
		return "no free CLOSID";
	case -ESRCH:
		return "no such task";
	case -EBUSY:
		return "busy: the state does not allow this now";
	case -EPERM:
		return "operation not permitted";
	case -EACCES:
		return "permission denied";
	case -ENODEV:
		return "no usable backend";
	case -EOPNOTSUPP:
		return "not supported by this backend";
	case -ERANGE:
		return "buffer too small";
	case -ENOMEM:
		return "out of memory";
	case -EIO:
		return "input/output error";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

