// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/schemas: the public calls on a group's schema - set (checked against the
 * machine, shareable ways warned of: lib/calls.c) and read back - and the
 * warnings the last call left. Each is one transaction of lib/core.c.
 */
#include <errno.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"

/* ---- Schemas --------------------------------------------------------------------- */

RDTALLOC_API const char *rdtalloc_warning(const rdtalloc_t *r)
{
	return r ? r->warning : "";
}

RDTALLOC_API int rdtalloc_set_schema(rdtalloc_t *r, const char *group, const char *schema)
{
	int ret, g;

	if (!r)
		return -EINVAL;
	ret = rdt_core_begin(r, true);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0)
		ret = g;
	else if (!schema)
		ret = rdt_fail(r, -EINVAL, "schema is NULL");
	else
		ret = rdt_core_set_schema(r, g, schema);
	return rdt_core_end(r, true, ret);
}

RDTALLOC_API int rdtalloc_get_schema(rdtalloc_t *r, const char *group, char *buf, size_t len)
{
	int ret, g;

	if (!r || (!buf && len))
		return -EINVAL;
	ret = rdt_core_begin(r, false);
	if (ret)
		return ret;
	g = rdt_core_find_group(r, group);
	if (g < 0) {
		ret = g;
	} else {
		ret = rdt_core_format_schema(r->st, g, buf, len);
		/* buf NULL, len 0: a question for the length, as snprintf answers it */
		if (ret >= 0 && !buf)
			;
		else if (ret >= 0 && (size_t)ret >= len)
			ret = rdt_fail(r, -ERANGE, "the schema needs %d bytes, the buffer has %zu",
				       ret + 1, len);
		else if (ret < 0)
			ret = rdt_fail(r, ret, "out of memory");
	}
	return rdt_core_end(r, false, ret);
}
