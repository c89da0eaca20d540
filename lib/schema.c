// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * schema: the schema text grammar (DESIGN §4) and the CBM rules.
 *
 *   text  := line ('\n' line)*          "\r\n" accepted, blank lines ignored
 *   line  := RES ':' entry (';' entry)* [';']
 *   entry := ids '=' value [',' value]   the pair only with CDP on
 *   ids   := '*' | idr (',' idr)*        idr := id ['-' id]
 *   RES   := L3 | L2 | L3DATA | L3CODE | L2DATA | L2CODE | MB   (any case)
 *
 * Values (masks, ids, bandwidths) follow the kernel's rules exactly
 * (fs/resctrl/ctrlmondata.c: parse_line, cbm_validate, bw_validate; and
 * kstrtoul: one leading '+', any number of leading zeros, "0x" before a
 * mask). The grammar is a superset in syntax only: blanks (the kernel's
 * isspace, 0xa0 included) around every token, names in any case, blank
 * lines, an L3 line on a CDP machine meaning both halves, and id lists,
 * ranges and '*' (docs/guide.md, "Schema grammar", lists each).
 *
 * At most RDT_SCHEMA_TEXT_MAX bytes (-E2BIG beyond, checked first). One
 * pass over the text, no recursion, no allocation: the output arrays double
 * as the record of which domain halves were already given, so a duplicate
 * is found in O(1). Owns the messages of every schema error; knows nothing
 * of groups.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "schema.h"

/* Which half of a domain's masks a line sets. */
enum rdt_half { HALF_BOTH, HALF_DATA, HALF_CODE };

struct res_name {
	const char *name;
	enum rdt_res res;
	enum rdt_half half;
};

static const struct res_name res_names[] = {
	{ "L3", RDT_L3, HALF_BOTH },
	{ "L3DATA", RDT_L3, HALF_DATA },
	{ "L3CODE", RDT_L3, HALF_CODE },
	{ "L2", RDT_L2, HALF_BOTH },
	{ "L2DATA", RDT_L2, HALF_DATA },
	{ "L2CODE", RDT_L2, HALF_CODE },
	{ "MB", RDT_MB, HALF_BOTH },
};

static const char *const base_names[RDT_NALL] = { "L3", "L2", "MB" };

/* Longest piece of user text quoted in a message, in input bytes. */
#define QUOTE_MAX 24
/* Room for a quoted piece: every byte may become \xNN, plus quotes and "...". */
#define QUOTE_BUF (QUOTE_MAX * 4 + 8)
/* At most 16 hex digits make a 64-bit mask. */
#define MASK_DIGITS_MAX 16

struct parser {
	const struct rdt_machine *m;
	const bool *cdp;
	struct rdt_schema_mask *const *out;
	char *err;
	size_t errlen;
	bool multi;		/* more than one non-blank line: name the line */
	unsigned long line;	/* 1-based physical line number */
};

/* One line of text without its '\n' and an optional '\r' before it. */
struct span {
	const char *p;
	const char *end;
};

/* The kernel's isspace (lib/ctype.c): 0xa0 is a blank in its Latin-1 table. */
static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' ||
	       (unsigned char)c == 0xa0;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

/* Does c end a word (a resource name, a cache id, a mask)? */
static bool ends_word(char c)
{
	return is_ws(c) || c == ':' || c == '=' || c == ';' || c == ',';
}

static const char *word_end(const char *p, const char *end)
{
	while (p < end && !ends_word(*p))
		p++;
	return p;
}

/*
 * Quote user text for a message: at most QUOTE_MAX bytes, anything not
 * printable as \xNN so that control bytes never reach a terminal raw.
 */
static const char *quote(const char *s, size_t n, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < n && i < QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			o += snprintf(buf + o, len - o, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += snprintf(buf + o, len - o, "\\x%02x", c);
	}
	if (n > QUOTE_MAX) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

__attribute__((format(printf, 2, 3)))
static int schema_fail(const struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!ps->err || !ps->errlen)
		return -EINVAL;
	if (ps->multi)
		n = snprintf(ps->err, ps->errlen, "line %lu: ", ps->line);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Split off the line starting at p: fills l and returns the start of the
 * next line, or NULL when this was the last one.
 */
static const char *next_line(const char *p, struct span *l)
{
	const char *e = p;

	while (*e && *e != '\n')
		e++;
	l->p = p;
	l->end = e;
	if (e > p && e[-1] == '\r')
		l->end--;
	return *e ? e + 1 : NULL;
}

static bool line_blank(const struct span *l)
{
	return skip_ws(l->p, l->end) == l->end;
}

/* Count non-blank lines, stopping at 2: all the line prefix rule needs. */
static unsigned int count_lines(const char *text)
{
	const char *p = text;
	unsigned int n = 0;
	struct span l;

	while (p && n < 2) {
		p = next_line(p, &l);
		if (!line_blank(&l))
			n++;
	}
	return n;
}

static const struct res_name *find_res(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(res_names) / sizeof(res_names[0]); i++) {
		if (strlen(res_names[i].name) == n && !strncasecmp(res_names[i].name, p, n))
			return &res_names[i];
	}
	return NULL;
}

/* Index of cache_id in m->dom[res] (ascending cache ids), or -1. */
static int find_domain(const struct rdt_machine *m, enum rdt_res res, unsigned long long id)
{
	unsigned int lo = 0, hi = m->ndom[res];

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		unsigned int cid = m->dom[res][mid].cache_id;

		if (cid == id)
			return (int)mid;
		if (cid < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* "0,1" - the cache ids of res, cut short with ",..." when they do not fit. */
static const char *have_ids(const struct rdt_machine *m, enum rdt_res res, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int i;

	if (!m->ndom[res])
		return "none";
	buf[0] = '\0';
	for (i = 0; i < m->ndom[res]; i++) {
		char one[16];
		int n = snprintf(one, sizeof(one), "%s%u", i ? "," : "", m->dom[res][i].cache_id);

		if (o + n + 4 >= len) {
			snprintf(buf + o, len - o, ",...");
			break;
		}
		memcpy(buf + o, one, n + 1);
		o += n;
	}
	return buf;
}

/* "L3" or "L3,L2" - the resources this machine can allocate. */
static const char *have_res(const struct rdt_machine *m, char *buf, size_t len)
{
	size_t o = 0;
	int r;

	buf[0] = '\0';
	for (r = 0; r < RDT_NALL; r++) {
		if (m->caps[r].present)
			o += snprintf(buf + o, len - o, "%s%s", o ? "," : "", base_names[r]);
	}
	return o ? buf : "none";
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Turn one mask word [p, end) into a value. what is "" or "data "/"code ",
 * after names the token the mask follows, for the message when it is empty.
 */
static int parse_mask(const struct parser *ps, const char *dom, const char *what,
		      const char *after, const char *p, const char *end, uint64_t *val)
{
	const char *digits = p, *d;
	uint64_t v = 0;
	char q[QUOTE_BUF];

	/* kstrtoul(buf, 16): one '+', then an optional "0x" */
	if (digits < end && *digits == '+')
		digits++;
	if (end - digits >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		digits += 2;
	if (digits == end)
		return schema_fail(ps, "%s: missing %smask after %s", dom, what, after);
	for (d = digits; d < end; d++) {
		if (hex_digit(*d) < 0)
			return schema_fail(ps, "%s: %smask %s is not hex", dom, what,
				    quote(p, end - p, q, sizeof(q)));
	}
	/* leading zeros never overflow: only the digits after them count */
	while (end - digits > 1 && *digits == '0')
		digits++;
	if (end - digits > MASK_DIGITS_MAX)
		return schema_fail(ps, "%s: %smask %s has more than %d hex digits", dom, what,
			    quote(p, end - p, q, sizeof(q)), MASK_DIGITS_MAX);
	for (d = digits; d < end; d++)
		v = v << 4 | (uint64_t)hex_digit(*d);
	*val = v;
	return 0;
}

static int check_cbm(const struct parser *ps, enum rdt_res res, const char *dom,
		     const char *what, uint64_t cbm)
{
	char why[128];

	if (!rdt_cbm_check(&ps->m->caps[res], cbm, why, sizeof(why)))
		return 0;
	return schema_fail(ps, "%s: %s%s", dom, what, why);
}

/* Store a checked entry; with CDP off a domain has one mask for both. */
static void store(struct rdt_schema_mask *sm, enum rdt_half half, bool pair,
		  uint64_t first, uint64_t second)
{
	if (half != HALF_CODE) {
		sm->data_set = true;
		sm->data = first;
	}
	if (half != HALF_DATA) {
		sm->code_set = true;
		sm->code = pair ? second : first;
	}
}

static bool already_given(const struct rdt_schema_mask *sm, enum rdt_half half)
{
	switch (half) {
	case HALF_DATA:
		return sm->data_set;
	case HALF_CODE:
		return sm->code_set;
	default:
		return sm->data_set || sm->code_set;
	}
}

/* MB domains are the L3 domains, but they are no cache: "MB domain 1". */
static const char *id_word(enum rdt_res res)
{
	return res == RDT_MB ? "domain" : "cache id";
}

/* One id [p, e) (kstrtoul, base 10: one '+', then digits) into a domain index. */
static int parse_id(const struct parser *ps, const struct res_name *rn, const char *p,
		    const char *e)
{
	unsigned long long id = 0;
	bool big = false;
	char q[QUOTE_BUF], have[96];
	const char *d, *digits = p;
	int idx;

	if (digits < e && *digits == '+')
		digits++;
	if (digits == e)
		return schema_fail(ps, "%s: %s %s is not a decimal number", rn->name,
			    id_word(rn->res), quote(p, e - p, q, sizeof(q)));
	for (d = digits; d < e; d++) {
		if (*d < '0' || *d > '9')
			return schema_fail(ps, "%s: %s %s is not a decimal number", rn->name,
				    id_word(rn->res), quote(p, e - p, q, sizeof(q)));
		id = id * 10 + (unsigned long long)(*d - '0');
		if (id > UINT_MAX) {
			big = true;
			id = UINT_MAX + 1ULL;	/* saturate: stays out of range */
		}
	}
	idx = big ? -1 : find_domain(ps->m, rn->res, id);
	if (idx < 0) {
		const char *ids = have_ids(ps->m, rn->res, have, sizeof(have));

		/* only digits here: print them as given, cut like a quote */
		if (big)
			return schema_fail(ps, "%s %s %.*s%s does not exist (have %s)", rn->name,
				    id_word(rn->res), e - p > QUOTE_MAX ? QUOTE_MAX : (int)(e - p),
				    p, e - p > QUOTE_MAX ? "..." : "", ids);
		return schema_fail(ps, "%s %s %llu does not exist (have %s)", rn->name,
			    id_word(rn->res), id, ids);
	}
	return idx;
}

/* End of an id inside a list: a blank, ',', '-', '=' or ';'. */
static const char *id_end(const char *p, const char *end)
{
	while (p < end && !ends_word(*p) && *p != '-')
		p++;
	return p;
}

/*
 * The next item of an id list at *pp, before e: "*" (every domain), an id,
 * or a range "A-B" (the domains whose cache ids lie from A to B, both of
 * which must exist). Fills the domain indices [*lo, *hi]; *pp moves past
 * the item and its ','. Returns 0, 1 at the end of the list, or the error.
 */
static int next_id_item(const struct parser *ps, const struct res_name *rn, const char **pp,
			const char *e, bool first, int *lo, int *hi)
{
	const char *p = skip_ws(*pp, e), *ae;
	char q[QUOTE_BUF];

	if (p == e)
		return 1;
	if (*p == '*') {
		if (!ps->m->ndom[rn->res])
			return schema_fail(ps, "%s: '*' but the machine has no domain", rn->name);
		*lo = 0;
		*hi = (int)ps->m->ndom[rn->res] - 1;
		p = skip_ws(p + 1, e);
		if (p < e || !first)
			return schema_fail(ps, "%s: '*' names every %s: give it alone", rn->name,
				    id_word(rn->res));
	} else {
		ae = id_end(p, e);
		if (ae == p && *p == '-')
			return schema_fail(ps, "%s: %s %s is not a decimal number", rn->name,
				    id_word(rn->res), quote(p, word_end(p + 1, e) - p, q, sizeof(q)));
		if (ae == p)
			return schema_fail(ps, "%s: missing %s before '%c'", rn->name, id_word(rn->res),
				    *p);
		*lo = *hi = parse_id(ps, rn, p, ae);
		if (*lo < 0)
			return *lo;
		p = skip_ws(ae, e);
		if (p < e && *p == '-') {
			p = skip_ws(p + 1, e);
			ae = id_end(p, e);
			if (ae == p)
				return schema_fail(ps, "%s: a range of %ss needs its last one",
					    rn->name, id_word(rn->res));
			*hi = parse_id(ps, rn, p, ae);
			if (*hi < 0)
				return *hi;
			if (*hi < *lo)
				return schema_fail(ps, "%s: range %s runs backwards", rn->name,
					    quote(*pp, ae - *pp, q, sizeof(q)));
			p = skip_ws(ae, e);
		}
	}
	if (p < e && *p != ',')
		return schema_fail(ps, "%s: unexpected %s in the %ss", rn->name,
			    quote(p, e - p, q, sizeof(q)), id_word(rn->res));
	*pp = p < e ? p + 1 : p;
	if (p < e && skip_ws(*pp, e) == e)
		return schema_fail(ps, "%s: a ',' ends the list of %ss", rn->name, id_word(rn->res));
	return 0;
}

/* What the ids [p, e) store into each of their domains. */
struct store_args {
	enum rdt_half half;
	bool pair;
	uint64_t first, second;
};

/*
 * Visit every domain the ids [p, e) name. Without st: check them (syntax,
 * domains that exist, halves not given before); with st: store into each,
 * where a domain named twice in one list is found.
 */
static int walk_ids(const struct parser *ps, const struct res_name *rn, const char *p,
		    const char *e, const struct store_args *st)
{
	struct rdt_schema_mask *sm;
	char name[QUOTE_BUF + 32];
	int lo = 0, hi = -1, i, ret;
	bool first = true;

	while (!(ret = next_id_item(ps, rn, &p, e, first, &lo, &hi))) {
		first = false;
		for (i = lo; i <= hi; i++) {
			sm = &ps->out[rn->res][i];
			if (already_given(sm, st ? st->half : rn->half)) {
				snprintf(name, sizeof(name), "%s %s %u", rn->name,
					 id_word(rn->res), ps->m->dom[rn->res][i].cache_id);
				return schema_fail(ps, "%s given twice", name);
			}
			if (st)
				store(sm, st->half, st->pair, st->first, st->second);
		}
	}
	return ret < 0 ? ret : 0;
}

/* How messages name the ids [p, e): "L3 cache id 1", "L3 cache ids 0-7". */
static void name_ids(const struct res_name *rn, const char *p, const char *e, char *dom,
		     size_t domlen)
{
	const char *d;
	char q[QUOTE_BUF];
	bool one = true;

	for (d = p; d < e; d++)
		if (*d == ',' || *d == '-' || *d == '*')
			one = false;
	if (one) {
		while (p < e && (*p == '+' || (*p == '0' && e - p > 1)))
			p++;
		snprintf(dom, domlen, "%s %s %.*s", rn->name, id_word(rn->res), (int)(e - p), p);
		return;
	}
	quote(p, e - p, q, sizeof(q));
	/* the quotes off: ids are digits, ',', '-' and '*' */
	q[strlen(q) - 1] = '\0';
	snprintf(dom, domlen, "%s %ss %s", rn->name, id_word(rn->res), q + 1);
}

/* ", found \"x\"" for a message about the text at p, or "" at the end of the line. */
static const char *found(const char *p, const char *end, char *buf, size_t len)
{
	char q[QUOTE_BUF];

	if (p == end)
		return "";
	snprintf(buf, len, ", found %s", quote(p, word_end(p + 1, end) - p, q, sizeof(q)));
	return buf;
}

/*
 * A bandwidth value [p, end): decimal, within min .. max, then rounded up
 * to the granularity as resctrl does (bw_validate), at most to the maximum.
 */
static int parse_bw(const struct parser *ps, const char *dom, const char *p, const char *end,
		    uint64_t *val)
{
	const struct rdt_caps *c = &ps->m->caps[RDT_MB];
	unsigned long long v = 0, r;
	char q[QUOTE_BUF];
	const char *d;

	if (p == end)
		return schema_fail(ps, "%s: missing bandwidth after '='", dom);
	/* kstrtou32(buf, 10): one '+' */
	d = p < end && *p == '+' ? p + 1 : p;
	if (d == end)
		return schema_fail(ps, "%s: bandwidth %s is not a decimal number", dom,
			    quote(p, end - p, q, sizeof(q)));
	for (; d < end; d++) {
		if (*d < '0' || *d > '9')
			return schema_fail(ps, "%s: bandwidth %s is not a decimal number", dom,
				    quote(p, end - p, q, sizeof(q)));
		v = v * 10 + (unsigned long long)(*d - '0');
		if (v > UINT_MAX)
			return schema_fail(ps, "%s: %s is above the maximum %u", dom,
				    quote(p, end - p, q, sizeof(q)), c->mb_max);
	}
	if (v < c->mb_min)
		return schema_fail(ps, "%s: %llu is below the minimum bandwidth %u", dom, v, c->mb_min);
	if (v > c->mb_max)
		return schema_fail(ps, "%s: %llu is above the maximum %u", dom, v, c->mb_max);
	/* a step that does not divide the maximum: the maximum is still a value */
	r = c->mb_gran > 1 ? (v + c->mb_gran - 1) / c->mb_gran * c->mb_gran : v;
	*val = r > c->mb_max ? c->mb_max : r;
	return 0;
}

/*
 * "<ids> =" of an entry at *pp: checked (every domain exists and was not
 * given before), named in dom, and kept in [*ids, *ids_end) for store_ids;
 * *pp is left after the '='. Returns 0 or the error.
 */
static int parse_entry_head(const struct parser *ps, const struct res_name *rn,
			    const char **pp, const char *end, char *dom, size_t domlen,
			    const char **ids, const char **ids_end)
{
	const char *p = *pp, *e = p, *t;
	char f[QUOTE_BUF + 16];
	int ret;

	while (e < end && *e != '=' && *e != ';')
		e++;
	t = e;
	while (t > p && is_ws(t[-1]))
		t--;
	if (t == p)
		return schema_fail(ps, "%s: missing %s before '%c'", rn->name,
			    rn->res == RDT_MB ? "domain" : "cache id", p < end ? *p : ';');
	if (e == end || *e != '=') {
		/* no '=' at all: say what follows the first id instead */
		if (id_end(p, end) != p)
			t = id_end(p, end);
		ret = walk_ids(ps, rn, p, t, NULL);
		if (ret)
			return ret;
		name_ids(rn, p, t, dom, domlen);
		return schema_fail(ps, "%s: expected '=' after the %s%s", dom,
			    rn->res == RDT_MB ? "domain" : "cache id",
			    found(skip_ws(t, end), end, f, sizeof(f)));
	}
	ret = walk_ids(ps, rn, p, t, NULL);
	if (ret)
		return ret;
	name_ids(rn, p, t, dom, domlen);
	*ids = p;
	*ids_end = t;
	*pp = e + 1;
	return 0;
}

/* One "<id>=<bandwidth>" entry of an MB line; see parse_entry. */
static int parse_mb_entry(const struct parser *ps, const struct res_name *rn, const char **pp,
			  const char *end)
{
	const char *p = *pp, *v, *ve, *ids, *ids_end;
	char dom[QUOTE_BUF + 32], q[QUOTE_BUF];
	struct store_args st = { HALF_BOTH, false, 0, 0 };
	uint64_t bw = 0;
	int ret;

	ret = parse_entry_head(ps, rn, &p, end, dom, sizeof(dom), &ids, &ids_end);
	if (ret)
		return ret;
	v = skip_ws(p, end);
	ve = word_end(v, end);
	p = skip_ws(ve, end);
	if (p < end && *p != ';')
		return schema_fail(ps, "%s: unexpected %s after the bandwidth", dom,
			    quote(p, word_end(p + 1, end) - p, q, sizeof(q)));
	ret = parse_bw(ps, dom, v, ve, &bw);
	if (ret)
		return ret;
	st.first = st.second = bw;
	ret = walk_ids(ps, rn, ids, ids_end, &st);
	if (ret)
		return ret;
	*pp = p;
	return 0;
}

/*
 * One "<id>=<mask>[,<mask>]" entry starting at *pp (not blank, not ';').
 * Syntax is checked left to right, then the CBM rules; only a fully valid
 * entry is stored. On success *pp points at the ';' or the end of the line.
 */
static int parse_entry(const struct parser *ps, const struct res_name *rn, const char **pp,
		       const char *end)
{
	const char *p = *pp, *m1, *m1e, *m2, *m2e, *ids, *ids_end;
	bool pair, cdp = ps->cdp && ps->cdp[rn->res];
	struct store_args st;
	uint64_t v1, v2 = 0;
	char dom[QUOTE_BUF + 32], q[QUOTE_BUF];
	int ret;

	if (rn->res == RDT_MB)
		return parse_mb_entry(ps, rn, pp, end);
	ret = parse_entry_head(ps, rn, &p, end, dom, sizeof(dom), &ids, &ids_end);
	if (ret)
		return ret;
	m1 = skip_ws(p, end);
	m1e = word_end(m1, end);
	p = skip_ws(m1e, end);
	pair = p < end && *p == ',';

	ret = parse_mask(ps, dom, pair && cdp ? "data " : "", "'='", m1, m1e, &v1);
	if (ret)
		return ret;
	if (pair) {
		if (!cdp)
			return schema_fail(ps, "%s: data,code pair given but CDP is off for %s", dom,
				    base_names[rn->res]);
		if (rn->half != HALF_BOTH)
			return schema_fail(ps, "%s: a data,code pair is only allowed on an %s line",
				    dom, base_names[rn->res]);
		m2 = skip_ws(p + 1, end);
		m2e = word_end(m2, end);
		p = skip_ws(m2e, end);
		ret = parse_mask(ps, dom, "code ", "','", m2, m2e, &v2);
		if (ret)
			return ret;
	}
	if (p < end && *p != ';')
		return schema_fail(ps, "%s: unexpected %s after the mask", dom,
			    quote(p, word_end(p + 1, end) - p, q, sizeof(q)));

	ret = check_cbm(ps, rn->res, dom, pair ? "data " : "", v1);
	if (!ret && pair)
		ret = check_cbm(ps, rn->res, dom, "code ", v2);
	if (ret)
		return ret;

	st = (struct store_args){ rn->half, pair, v1, v2 };
	ret = walk_ids(ps, rn, ids, ids_end, &st);
	if (ret)
		return ret;
	*pp = p;
	return 0;
}

/* The resource name up to ':', checked against the machine and CDP. */
static int parse_res(const struct parser *ps, const char **pp, const char *end,
		     const struct res_name **out)
{
	const char *p = *pp, *e = word_end(p, end);
	const struct res_name *rn;
	char q[QUOTE_BUF], f[QUOTE_BUF + 16], have[32];

	if (e == p && p < end && *p == ':')
		return schema_fail(ps, "missing resource name before ':'");
	rn = find_res(p, e - p);
	if (!rn)
		return schema_fail(ps, "unknown resource %s (known: L3, L3DATA, L3CODE, L2, L2DATA, "
			    "L2CODE, MB)", quote(p, (e > p ? e : p + 1) - p, q, sizeof(q)));
	if (!ps->m->caps[rn->res].present)
		return schema_fail(ps, "resource %s is not available on this machine (have %s)",
			    base_names[rn->res], have_res(ps->m, have, sizeof(have)));
	if (rn->half != HALF_BOTH && !(ps->cdp && ps->cdp[rn->res]))
		return schema_fail(ps, "%s: CDP is off for %s (use %s:<id>=<mask>)", rn->name,
			    base_names[rn->res], base_names[rn->res]);
	p = skip_ws(e, end);
	if (p == end || *p != ':')
		return schema_fail(ps, "expected ':' after %s%s", rn->name, found(p, end, f, sizeof(f)));
	*pp = p + 1;
	*out = rn;
	return 0;
}

static int parse_line(const struct parser *ps, const struct span *l)
{
	const char *p = skip_ws(l->p, l->end), *end = l->end;
	const struct res_name *rn = NULL;	/* set by parse_res on success */
	bool any = false;
	int ret;

	ret = parse_res(ps, &p, end, &rn);
	if (ret)
		return ret;
	for (;;) {
		p = skip_ws(p, end);
		if (p == end)
			break;
		if (*p == ';')
			return schema_fail(ps, "%s: empty entry before ';'", rn->name);
		ret = parse_entry(ps, rn, &p, end);
		if (ret)
			return ret;
		any = true;
		if (p == end)
			break;
		p++;		/* the ';' parse_entry stopped at */
	}
	if (!any)
		return schema_fail(ps, "%s: no <id>=<%s> given", rn->name,
			    rn->res == RDT_MB ? "bandwidth" : "mask");
	return 0;
}

int rdt_schema_parse(const struct rdt_machine *m, const bool cdp[RDT_NALL], const char *text,
		     struct rdt_schema_mask *out[RDT_NALL], char *err, size_t errlen)
{
	struct parser ps = { .m = m, .cdp = cdp, .out = out, .err = err, .errlen = errlen };
	const char *p = text;
	struct span l;
	unsigned int nlines;
	int r, ret;

	if (err && errlen)
		err[0] = '\0';
	if (!m || !out)
		return schema_fail(&ps, "schema: no machine or output given");
	if (!text)
		return schema_fail(&ps, "schema text is NULL");
	/* before anything else: out untouched, the text not read past the bound */
	if (strnlen(text, RDT_SCHEMA_TEXT_MAX + 1) > RDT_SCHEMA_TEXT_MAX) {
		if (err && errlen)
			snprintf(err, errlen, "schema text is longer than %u bytes (%u KiB), the "
				 "most a schema may be: give each domain once, one line per "
				 "resource", RDT_SCHEMA_TEXT_MAX, RDT_SCHEMA_TEXT_MAX >> 10);
		return -E2BIG;
	}
	for (r = 0; r < RDT_NALL; r++) {
		if (m->caps[r].present && m->ndom[r] && !out[r])
			return schema_fail(&ps, "schema: no output array for %s", base_names[r]);
		if (m->caps[r].present && m->ndom[r])
			memset(out[r], 0, m->ndom[r] * sizeof(*out[r]));
	}

	nlines = count_lines(text);
	if (!nlines)
		return schema_fail(&ps, "schema is empty");
	ps.multi = nlines > 1;

	while (p) {
		p = next_line(p, &l);
		ps.line++;
		if (line_blank(&l))
			continue;
		ret = parse_line(&ps, &l);
		if (ret)
			return ret;
	}
	return 0;
}

/* snprintf-like appender: counts everything, stores what fits. */
struct sink {
	char *buf;
	size_t len;
	size_t pos;
};

static void put(struct sink *s, const char *str)
{
	for (; *str; str++, s->pos++) {
		if (s->pos + 1 < s->len)
			s->buf[s->pos] = *str;
	}
}

static void put_hex(struct sink *s, uint64_t v, unsigned int width)
{
	char d[MASK_DIGITS_MAX + 1];
	unsigned int n = 0, i;

	do {
		d[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	while (n < width && n < MASK_DIGITS_MAX)
		d[n++] = '0';
	for (i = 0; i < n / 2; i++) {
		char t = d[i];

		d[i] = d[n - 1 - i];
		d[n - 1 - i] = t;
	}
	d[n] = '\0';
	put(s, d);
}

int rdt_schema_format(const struct rdt_machine *m, const bool cdp[RDT_NALL],
		      uint64_t *const data[RDT_NALL], uint64_t *const code[RDT_NALL],
		      char *buf, size_t len)
{
	struct sink s = { .buf = buf, .len = buf ? len : 0 };
	char id[16];
	unsigned int i;
	int r;

	for (r = 0; r < RDT_NALL; r++) {
		const struct rdt_caps *c = &m->caps[r];
		unsigned int width = (c->cbm_len + 3) / 4;
		bool pair = r != RDT_MB && cdp && cdp[r];

		if (!c->present || !m->ndom[r])
			continue;
		if (!data || !data[r])
			return -EINVAL;
		put(&s, base_names[r]);
		put(&s, ":");
		for (i = 0; i < m->ndom[r]; i++) {
			snprintf(id, sizeof(id), "%s%u=", i ? ";" : "", m->dom[r][i].cache_id);
			put(&s, id);
			if (r == RDT_MB) {
				snprintf(id, sizeof(id), "%llu", (unsigned long long)data[r][i]);
				put(&s, id);
				continue;
			}
			put_hex(&s, data[r][i], width);
			if (pair) {
				put(&s, ",");
				put_hex(&s, code && code[r] ? code[r][i] : data[r][i], width);
			}
		}
		put(&s, "\n");
	}
	if (s.len)
		s.buf[s.pos < s.len ? s.pos : s.len - 1] = '\0';
	if (s.pos > INT_MAX)
		return -EOVERFLOW;
	return (int)s.pos;
}

int rdt_cbm_check(const struct rdt_caps *c, uint64_t cbm, char *why, size_t whylen)
{
	unsigned int first;
	uint64_t run;

	if (!why)
		whylen = 0;
	/* cbm_validate: empty only where min_cbm_bits is 0 (AMD) */
	if (!cbm && !c->min_cbm_bits)
		return 0;
	if (!cbm) {
		snprintf(why, whylen, "mask 0x0 is empty");
		return -EINVAL;
	}
	if (cbm & ~rdt_cbm_full(c->cbm_len)) {
		snprintf(why, whylen, "mask 0x%" PRIx64 " has bits beyond the %u-bit CBM", cbm,
			 c->cbm_len);
		return -EINVAL;
	}
	/* Shifted down to bit 0, a contiguous run of ones plus one is a power of two. */
	run = cbm >> __builtin_ctzll(cbm);
	if (!c->sparse && (run & (run + 1))) {
		snprintf(why, whylen, "mask 0x%" PRIx64 " is not contiguous", cbm);
		return -EINVAL;
	}
	/* The kernel counts the first run of ones only, also in a sparse mask. */
	first = run == UINT64_MAX ? 64 : (unsigned int)__builtin_ctzll(~run);
	if (first < c->min_cbm_bits) {
		if (run & (run + 1))
			snprintf(why, whylen, "mask 0x%" PRIx64 " begins with a run of %u bit%s, "
				 "at least %u %s needed", cbm, first, first == 1 ? "" : "s",
				 c->min_cbm_bits, c->min_cbm_bits == 1 ? "is" : "are");
		else
			snprintf(why, whylen, "mask 0x%" PRIx64 " has %u bit%s, at least %u %s "
				 "needed", cbm, first, first == 1 ? "" : "s", c->min_cbm_bits,
				 c->min_cbm_bits == 1 ? "is" : "are");
		return -EINVAL;
	}
	return 0;
}
