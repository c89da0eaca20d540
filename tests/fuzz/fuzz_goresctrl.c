// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_goresctrl: libFuzzer target over rdtalloc_goresctrl_config (the YAML
 * reader of lib/goresctrl/yaml.c and goresctrl's rules). Any input must
 * either be refused with a message, or resolve into configuration text that
 * the library takes whole (a dry run of it succeeds): what a goresctrl file
 * resolves to is always applicable on the machine it was resolved for, and
 * rdtalloc_goresctrl_apply (resolved, applied and the classes' kubernetes
 * options read, in one call) makes the same changes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#define CHECK(cond)				\
	do {					\
		if (!(cond))			\
			__builtin_trap();	\
	} while (0)

static rdtalloc_t *ctx(void)
{
	static rdtalloc_t *r;

	if (!r) {
		RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL,
			      .machine = "topology=package:2 l3:1 core:2 pu:1;tasks=virtual;"
					 "mb.closids=8;mb.min=10;mb.gran=10");
		CHECK(rdtalloc_open(&r, &o) == 0);
	}
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[1 << 16];
	rdtalloc_t *r = ctx();
	int n = rdtalloc_goresctrl_config(r, (const char *)data, size, out, sizeof(out));

	if (n < 0) {
		CHECK(rdtalloc_errmsg(r)[0]);
		return 0;
	}
	if ((size_t)n >= sizeof(out))
		return 0;	/* a long result: its dry run is too slow to fuzz */
	CHECK(strlen(out) == (size_t)n);
	n = rdtalloc_apply_config(r, out, RDTALLOC_APPLY_DRY_RUN);
	CHECK(n >= 0);
	/* resolved and applied in one call (with the classes' policy): the same changes */
	CHECK(rdtalloc_goresctrl_apply(r, (const char *)data, size, NULL, RDTALLOC_APPLY_DRY_RUN,
				       NULL, 0, NULL) == n);
	return 0;
}
