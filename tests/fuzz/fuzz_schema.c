// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_schema: libFuzzer target over rdt_schema_parse on a fixed two-socket
 * machine (L3 on both sockets, L2 on four cores), with CDP off, on, and on
 * for L3 only. Beyond "no crash, no sanitizer report" it checks the
 * contract: -EINVAL with a printable message on failure; on success only
 * masks the CBM rules accept, and formatting them re-parses to the same masks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

#define NL3 2
#define NL2 4
#define ERRLEN 256

static struct rdt_domain l3_dom[NL3] = { { .cache_id = 0 }, { .cache_id = 1 } };
static struct rdt_domain l2_dom[NL2] = { { .cache_id = 0 }, { .cache_id = 2 },
					 { .cache_id = 4 }, { .cache_id = 6 } };

/* A 20-bit L3 like a Xeon's, and a small sparse L2 with 2-bit minimum. */
static const struct rdt_machine machine = {
	.vendor = "sim",
	.caps = {
		[RDT_L3] = { .present = true, .closids = 16, .cbm_len = 20,
			     .min_cbm_bits = 1, .cdp = true },
		[RDT_L2] = { .present = true, .closids = 8, .cbm_len = 8,
			     .min_cbm_bits = 2, .cdp = true, .sparse = true },
	},
	.ndom = { NL3, NL2 },
	.dom = { l3_dom, l2_dom },
};

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void check_err(const char *err)
{
	const char *end = memchr(err, '\0', ERRLEN);

	check(end && end != err);
	for (; err < end; err++)
		check((unsigned char)*err >= 0x20 && (unsigned char)*err < 0x7f);
}

/* Every mask the parser stored must pass the CBM rules. */
static void check_masks(const bool cdp[RDT_NRES], struct rdt_schema_mask *const out[RDT_NRES])
{
	for (int r = 0; r < RDT_NRES; r++) {
		const struct rdt_caps *c = &machine.caps[r];

		for (unsigned int i = 0; i < machine.ndom[r]; i++) {
			const struct rdt_schema_mask *sm = &out[r][i];

			check(!sm->data_set || !rdt_cbm_check(c, sm->data, NULL, 0));
			check(!sm->code_set || !rdt_cbm_check(c, sm->code, NULL, 0));
			if (!cdp[r])
				check(sm->data_set == sm->code_set && sm->data == sm->code);
		}
	}
}

/* Format the parsed masks (unset ones all-ones), parse again, compare. */
static void round_trip(const bool cdp[RDT_NRES], struct rdt_schema_mask *const out[RDT_NRES])
{
	uint64_t d3[NL3], c3[NL3], d2[NL2], c2[NL2];
	uint64_t *const data[RDT_NRES] = { d3, d2 }, *const code[RDT_NRES] = { c3, c2 };
	struct rdt_schema_mask again3[NL3], again2[NL2];
	struct rdt_schema_mask *again[RDT_NRES] = { again3, again2 };
	char err[ERRLEN], *text;
	int n;

	for (int r = 0; r < RDT_NRES; r++) {
		uint64_t full = rdt_cbm_full(machine.caps[r].cbm_len);

		for (unsigned int i = 0; i < machine.ndom[r]; i++) {
			data[r][i] = out[r][i].data_set ? out[r][i].data : full;
			code[r][i] = out[r][i].code_set ? out[r][i].code : full;
		}
	}
	n = rdt_schema_format(&machine, cdp, data, code, NULL, 0);
	check(n > 0);
	text = malloc((size_t)n + 1);
	check(text != NULL);
	check(rdt_schema_format(&machine, cdp, data, code, text, (size_t)n + 1) == n);
	check(strlen(text) == (size_t)n);

	memset(again3, 0, sizeof(again3));
	memset(again2, 0, sizeof(again2));
	check(rdt_schema_parse(&machine, cdp, text, again, err, sizeof(err)) == 0);
	for (int r = 0; r < RDT_NRES; r++) {
		for (unsigned int i = 0; i < machine.ndom[r]; i++) {
			check(again[r][i].data_set && again[r][i].code_set);
			check(again[r][i].data == data[r][i]);
			check(again[r][i].code == code[r][i]);
		}
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const bool cdps[][RDT_NRES] = { { false, false }, { true, true },
					       { true, false } };
	struct rdt_schema_mask o3[NL3], o2[NL2];
	struct rdt_schema_mask *out[RDT_NRES] = { o3, o2 };
	char err[ERRLEN];
	char *text = malloc(size + 1);

	check(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t k = 0; k < sizeof(cdps) / sizeof(cdps[0]); k++) {
		int ret;

		memset(o3, 0, sizeof(o3));
		memset(o2, 0, sizeof(o2));
		memset(err, 'x', sizeof(err));
		ret = rdt_schema_parse(&machine, cdps[k], text, out, err, sizeof(err));
		if (ret) {
			/* -E2BIG: past the schema text's bound */
			check(ret == -EINVAL || ret == -E2BIG);
			check_err(err);
			continue;
		}
		check(err[0] == '\0');
		check_masks(cdps[k], out);
		round_trip(cdps[k], out);
	}
	free(text);
	return 0;
}
