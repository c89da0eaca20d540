// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errors: one message slot per thread, tagged with the context it belongs
 * to, so that rdtalloc_errmsg(r) reports this thread's last failure on r and
 * never another thread's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "errors.h"

static __thread struct {
	const struct rdtalloc *ctx;
	char msg[RDT_ERRMSG_MAX];
} last_err;

int rdt_fail(const struct rdtalloc *r, int err, const char *fmt, ...)
{
	va_list ap;

	last_err.ctx = r;
	va_start(ap, fmt);
	vsnprintf(last_err.msg, sizeof(last_err.msg), fmt, ap);
	va_end(ap);
	errno = -err;
	return err;
}

void rdt_clear_err(const struct rdtalloc *r)
{
	if (last_err.ctx == r)
		last_err.msg[0] = '\0';
}

RDTALLOC_API const char *rdtalloc_errmsg(const rdtalloc_t *r)
{
	if (last_err.ctx != r)
		return "";
	return last_err.msg;
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
