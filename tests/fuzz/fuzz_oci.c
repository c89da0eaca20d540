// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_oci: libFuzzer target over the OCI hook's reading of a runtime's
 * state JSON (rdtalloc_oci_hook), at poststop on an ephemeral simulator so
 * that no state is made. Any input is refused with a message, or is a
 * container the hook then has nothing to undo (0): never a crash, a leak,
 * or a string cut at a \u0000 (issue 31).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim",
		      .machine = "topology=package:1 l3:1 core:2 pu:1;tasks=virtual",
		      .flags = RDTALLOC_F_EPHEMERAL);
	int what = -1, ret;

	ret = rdtalloc_oci_hook(&o, "poststop", (const char *)data, size, &what);
	if (ret && (ret > 0 || !rdtalloc_errmsg(NULL)[0]))
		abort();
	if (!ret && what != RDTALLOC_OCI_IGNORED && what != RDTALLOC_OCI_RELEASED)
		abort();
	/* a \u0000 escape inside a string is never accepted */
	if (!ret && size >= 6 && memmem(data, size, "\\u0000", 6) &&
	    !memmem(data, size, "\\\\u0000", 7))
		abort();
	return 0;
}
