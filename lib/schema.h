/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * schema: the schema text grammar (DESIGN §4) and the CBM rules. Parses text
 * into per-domain masks and formats masks back into text; pure functions of
 * the machine and the CDP setting. Knows nothing of groups or CLOSIDs.
 */
#ifndef RDT_SCHEMA_H
#define RDT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

/*
 * The longest schema text rdt_schema_parse() reads, in bytes. A schema is a
 * line per resource with an entry per domain: "L3:0=fffff;1=fffff" is 18
 * bytes, and with CDP a domain of a 20-bit CBM takes 16 ("12=fffff,fffff;"),
 * so what rdt_schema_format() prints for L3 and L2 of 2,000 domains each
 * fits (64-bit CBMs with CDP: 38 bytes a domain, 850 domains each). Longer
 * text is refused (-E2BIG) before a byte of it is parsed, and the text is
 * never measured past this bound (strnlen).
 */
#define RDT_SCHEMA_TEXT_MAX (64u << 10)

/* One domain's entry in a parsed schema. */
struct rdt_schema_mask {
	bool data_set;		/* data (or the only) mask was given */
	bool code_set;		/* code mask was given (CDP on) */
	uint64_t data;
	uint64_t code;
};

/*
 * Parse schema text. out[res] are caller-allocated, zeroed arrays of
 * m->ndom[res] entries (NULL where the resource is absent). With CDP off
 * for a resource, "L3:0=ff" sets data_set and code_set with data == code.
 * With CDP on: "L3:0=ff" sets both to ff, "L3:0=d,c" sets data d / code c,
 * "L3DATA:0=d" only data, "L3CODE:0=c" only code.
 * Every mask is checked with rdt_cbm_check(). An "MB:0=50;1=100" line
 * (where the machine has MB) gives decimal bandwidths, rounded up to the
 * granularity and checked against the minimum and maximum, as data ==
 * code. Returns 0, -E2BIG when text is longer than RDT_SCHEMA_TEXT_MAX
 * (out left as it was), or -EINVAL with err naming the field. Never
 * modifies anything but out and err.
 */
int rdt_schema_parse(const struct rdt_machine *m, const bool cdp[RDT_NALL], const char *text,
		     struct rdt_schema_mask *out[RDT_NALL], char *err, size_t errlen);

/*
 * Format the masks of every domain of every present resource:
 * "L3:0=fffff;1=000ff\n" (hex zero-padded to the CBM width; MB decimal), with CDP on
 * "L3:0=<data>,<code>;...". data[res][i]/code[res][i] indexed like m->dom.
 * Returns the full length like snprintf (buf may be NULL when len is 0).
 */
int rdt_schema_format(const struct rdt_machine *m, const bool cdp[RDT_NALL],
		      uint64_t *const data[RDT_NALL], uint64_t *const code[RDT_NALL],
		      char *buf, size_t len);

/*
 * CBM rules: not zero, no bit at or above cbm_len, contiguous unless
 * c->sparse, at least c->min_cbm_bits bits. Returns 0 or -EINVAL with why
 * set to the reason ("mask 0x5 is not contiguous").
 */
int rdt_cbm_check(const struct rdt_caps *c, uint64_t cbm, char *why, size_t whylen);

/* All-ones mask of a CBM length. */
static inline uint64_t rdt_cbm_full(unsigned int cbm_len)
{
	return cbm_len >= 64 ? ~0ULL : (1ULL << cbm_len) - 1;
}

#endif
