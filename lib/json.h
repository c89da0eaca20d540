/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json: one JSON document read whole, as every reader of ours needs it -
 * the state file, the counters, a container's state. json-c alone lets
 * through what C cannot hold ("\u0000" cuts a string, and merges keys) and
 * calls a bare scalar at the end of the input unfinished; this says what
 * is wrong in words a user can act on, and where.
 */
#ifndef RDT_JSON_H
#define RDT_JSON_H

#include <stddef.h>

#include <json-c/json.h>

/*
 * Parse text[0..len) as exactly one JSON document nested at most depth
 * deep (0: json-c's default). 0 and *out (NULL for a JSON null), or
 * -EINVAL with why ("it ends early", "a string holds \u0000", "a slash outside
 * a string (JSON has no comments)", ...)
 * and *at, the byte where it was found.
 */
int rdt_json_parse(const char *text, size_t len, int depth, json_object **out, char *why,
		   size_t whylen, size_t *at);

#endif
