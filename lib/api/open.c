// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api/open: rdtalloc_open, the one place that names what this build is made
 * of (lib/tables.h: the sections, the backends) and hands it to the context
 * (rdt_core_open). Below the API files nothing names a module or a backend.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "core.h"
#include "errors.h"
#include "state.h"
#include "tables.h"

RDTALLOC_API int rdtalloc_open(rdtalloc_t **out, const struct rdtalloc_opts *opts)
{
	return rdt_core_open(out, opts, rdt_sections, rdt_backends);
}

/*
 * Where an open with this backend and no state_dir keeps its state: a tool
 * whose own open fails (rdtctl agent status, where the backend cannot open
 * here) still finds the agent beside it.
 */
RDTALLOC_API int rdtalloc_default_state_dir(const char *backend, char *buf, size_t len)
{
	char dir[PATH_MAX];
	unsigned int i;
	int ret;

	rdt_clear_err(NULL);
	if (!backend || (!buf && len))
		return rdt_fail(NULL, -EINVAL, "rdtalloc_default_state_dir: %s is NULL",
				backend ? "buf" : "backend");
	for (i = 0; rdt_backends[i] && strcmp(rdt_backends[i]->name, backend); i++)
		;
	if (!rdt_backends[i])
		return rdt_fail(NULL, -EINVAL, "rdtalloc_default_state_dir: no backend '%.32s' "
				"(a state's directory is its backend's: resctrl, msr or sim)",
				backend);
	ret = rdt_store_default_dir(backend, dir, sizeof(dir));
	if (ret == -ENOENT)
		return rdt_fail(NULL, ret, "no default state directory: not root, and neither "
				"XDG_RUNTIME_DIR nor HOME is an absolute path");
	if (ret)
		return rdt_fail(NULL, ret, "the default state directory is longer than %d bytes",
				PATH_MAX - 1);
	return snprintf(buf, len, "%s", dir);
}
