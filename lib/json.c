// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json: see json.h. The raw text is looked at once before json-c parses
 * it, because what json-c makes of "\u0000" (a C string cut short, a key
 * merged with another) can no longer be told apart afterwards; that look
 * knows strings only as JSON writes them, so what json-c reads beyond
 * JSON (comments, single-quoted strings) is refused there.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/*
 * The byte of the first thing this guard cannot vouch for, or len when there
 * is none: "\u0000" inside a string, or, outside one, a single quote or a
 * slash. json-c reads 'single-quoted' strings and // and slash-star
 * comments (in strict mode too, for the quotes), which JSON has not; a
 * double quote inside either would turn this scan's idea of what is a
 * string inside out, and hide a "\u0000" from it. *why: what was found.
 */
static size_t lex_guard(const char *s, size_t len, const char **why)
{
	bool in = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!in && (s[i] == '\'' || s[i] == '/')) {
			*why = s[i] == '/' ? "a slash outside a string (JSON has no comments)" :
					     "a single quote outside a string (JSON has no "
					     "single-quoted strings)";
			return i;
		}
		if (!in) {
			in = s[i] == '"';
			continue;
		}
		if (s[i] == '"') {
			in = false;
		} else if (s[i] == '\\' && i + 1 < len) {
			if (s[i + 1] == 'u' && i + 5 < len && !memcmp(s + i + 2, "0000", 4)) {
				*why = "a string holds \\u0000, which no name or value may";
				return i;
			}
			i++;	/* the escaped character, whatever it is */
		}
	}
	return len;
}

int rdt_json_parse(const char *text, size_t len, int depth, json_object **out, char *why,
		   size_t whylen, size_t *at)
{
	struct json_tokener *tok;
	enum json_tokener_error je;
	json_object *o;
	const char *nul, *what;
	size_t end, i;

	*out = NULL;
	*at = 0;
	if (len > (size_t)INT32_MAX - 1) {
		snprintf(why, whylen, "larger than 2 GiB");
		return -EINVAL;
	}
	if ((nul = memchr(text, '\0', len))) {
		*at = (size_t)(nul - text);
		snprintf(why, whylen, "it holds a NUL byte");
		return -EINVAL;
	}
	if ((end = lex_guard(text, len, &what)) < len) {
		*at = end;
		snprintf(why, whylen, "%s", what);
		return -EINVAL;
	}
	tok = depth > 0 ? json_tokener_new_ex(depth) : json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	/* a bare number or literal at the very end: the terminator ends it */
	if (json_tokener_get_error(tok) == json_tokener_continue) {
		o = json_tokener_parse_ex(tok, "", 1);
		end = len;
		/* anything but a scalar was cut short */
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_tokener_free(tok);
			json_object_put(o);
			*at = len;
			snprintf(why, whylen, "it ends early");
			return -EINVAL;
		}
	}
	je = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (je == json_tokener_success) {
		for (i = end; i < len; i++) {
			if (!isspace((unsigned char)text[i])) {
				json_object_put(o);
				*at = i;
				snprintf(why, whylen, "more after the end");
				return -EINVAL;
			}
		}
		*out = o;
		return 0;
	}
	json_object_put(o);
	*at = end < len ? end : len;
	snprintf(why, whylen, "%s", json_tokener_error_desc(je));
	return -EINVAL;
}
