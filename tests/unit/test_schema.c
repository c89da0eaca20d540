// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_schema: the schema grammar, its exact error messages, the CBM rules,
 * formatting and the parse-format-parse round trip, on machines built by
 * hand (struct rdt_machine is plain data), so nothing here needs machine.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "schema.h"

#define MAXDOM 8
#define ERRLEN 512
/* Big inputs just inside the bound on schema text, with room for a head and a tail. */
#define NEAR (RDT_SCHEMA_TEXT_MAX - 32)

/* A hand-built machine: L3 on two sockets (cache ids 0, 1), optional L2. */
struct spec {
	unsigned int l3_len, l3_min;
	bool l3_sparse;
	unsigned int l2_ndom;		/* 0: no L2 CAT; else ids 0, 2, 4, 6 ... */
	unsigned int l2_len, l2_min;
	bool l2_sparse;
};

struct tm {
	struct rdt_machine m;
	struct rdt_domain dom[RDT_NALL][MAXDOM];
	struct rdt_schema_mask outm[RDT_NALL][MAXDOM];
	struct rdt_schema_mask *out[RDT_NALL];
	bool cdp[RDT_NALL];
	char err[ERRLEN];
};

static const struct spec SPEC_STD = { .l3_len = 20, .l3_min = 1 };
static const struct spec SPEC_HSW = { .l3_len = 20, .l3_min = 2 };
static const struct spec SPEC_L2 = { .l3_len = 11, .l3_min = 1, .l3_sparse = true,
				     .l2_ndom = 4, .l2_len = 8, .l2_min = 1 };
static const struct spec SPEC_WIDE = { .l3_len = 64, .l3_min = 1,
				       .l2_ndom = 2, .l2_len = 16, .l2_min = 2 };

static void tm_init(struct tm *t, const struct spec *s)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	strcpy(t->m.vendor, "sim");
	t->m.caps[RDT_L3] = (struct rdt_caps){ .present = true, .closids = 16,
		.cbm_len = s->l3_len, .min_cbm_bits = s->l3_min, .cdp = true,
		.sparse = s->l3_sparse };
	t->m.ndom[RDT_L3] = 2;
	for (i = 0; i < 2; i++)
		t->dom[RDT_L3][i].cache_id = i;
	if (s->l2_ndom) {
		t->m.caps[RDT_L2] = (struct rdt_caps){ .present = true, .closids = 8,
			.cbm_len = s->l2_len, .min_cbm_bits = s->l2_min, .cdp = true,
			.sparse = s->l2_sparse };
		t->m.ndom[RDT_L2] = s->l2_ndom;
		for (i = 0; i < s->l2_ndom; i++)
			t->dom[RDT_L2][i].cache_id = 2 * i;
	}
	for (i = 0; i < RDT_NRES; i++) {
		t->m.dom[i] = t->dom[i];
		t->out[i] = t->m.caps[i].present ? t->outm[i] : NULL;
	}
}

/* Parse, and check that the machine (const, but plain data) is untouched. */
static int tm_parse(struct tm *t, const char *text)
{
	struct rdt_machine before = t->m;
	struct rdt_domain dom_before[RDT_NALL][MAXDOM];
	int ret;

	memcpy(dom_before, t->dom, sizeof(dom_before));
	memset(t->err, 'x', sizeof(t->err));
	ret = rdt_schema_parse(&t->m, t->cdp, text, t->out, t->err, sizeof(t->err));
	assert_memory_equal(&before, &t->m, sizeof(before));
	assert_memory_equal(dom_before, t->dom, sizeof(dom_before));
	assert_non_null(memchr(t->err, '\0', sizeof(t->err)));
	if (ret == 0)
		assert_string_equal(t->err, "");
	return ret;
}

static void expect_ok(struct tm *t, const char *text)
{
	int ret = tm_parse(t, text);

	if (ret)
		fail_msg("\"%.60s\": %d %s", text, ret, t->err);
}

static void expect_err(struct tm *t, const char *text, const char *msg)
{
	assert_int_equal(tm_parse(t, text), -EINVAL);
	assert_string_equal(t->err, msg);
}

static void expect_mask(const struct tm *t, enum rdt_res res, unsigned int i, bool ds,
			uint64_t d, bool cs, uint64_t c)
{
	const struct rdt_schema_mask *sm = &t->out[res][i];

	assert_int_equal(sm->data_set, ds);
	assert_int_equal(sm->code_set, cs);
	assert_int_equal(sm->data, d);
	assert_int_equal(sm->code, c);
}

static void expect_unset(const struct tm *t, enum rdt_res res, unsigned int i)
{
	expect_mask(t, res, i, false, 0, false, 0);
}

/* ---- grammar ---------------------------------------------------------- */

static void test_basic(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_ok(&t, "L3:0=fffff;1=c0");
	expect_mask(&t, RDT_L3, 0, true, 0xfffff, true, 0xfffff);
	expect_mask(&t, RDT_L3, 1, true, 0xc0, true, 0xc0);
}

static void test_partial_update(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	expect_ok(&t, "L3:1=3");
	expect_unset(&t, RDT_L3, 0);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 3);
	for (unsigned int i = 0; i < 4; i++)
		expect_unset(&t, RDT_L2, i);

	expect_ok(&t, "L2:4=f0");
	expect_unset(&t, RDT_L3, 0);
	expect_unset(&t, RDT_L3, 1);
	expect_unset(&t, RDT_L2, 0);
	expect_unset(&t, RDT_L2, 1);
	expect_mask(&t, RDT_L2, 2, true, 0xf0, true, 0xf0);
	expect_unset(&t, RDT_L2, 3);
}

/* Flags left in out by an earlier call must not leak into the next one. */
static void test_out_reset(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	memset(t.outm, 0xa5, sizeof(t.outm));
	expect_ok(&t, "L2:6=1");
	expect_unset(&t, RDT_L3, 0);
	expect_unset(&t, RDT_L3, 1);
	expect_unset(&t, RDT_L2, 0);
	expect_mask(&t, RDT_L2, 3, true, 1, true, 1);
}

static void test_whitespace_and_lines(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	expect_ok(&t, " \t L3 \t: 0 = 0x7ff ;\t1=\t0X00F ; \r\n\r\n \t\n  l2:0=Ff;6 =0x1\n\n");
	expect_mask(&t, RDT_L3, 0, true, 0x7ff, true, 0x7ff);
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);
	expect_mask(&t, RDT_L2, 0, true, 0xff, true, 0xff);
	expect_unset(&t, RDT_L2, 1);
	expect_unset(&t, RDT_L2, 2);
	expect_mask(&t, RDT_L2, 3, true, 1, true, 1);

	/* one resource over several lines; a trailing ';'; CRLF on the last line */
	expect_ok(&t, "L3:1=f;\nL3:0=3;\r\n");
	expect_mask(&t, RDT_L3, 0, true, 3, true, 3);
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);

	/* leading zeros in ids and masks; a final line without '\n' but with '\r' */
	expect_ok(&t, "L3:00=0000000000000001;01=0x0000000000000ff\r");
	expect_mask(&t, RDT_L3, 0, true, 1, true, 1);
	expect_mask(&t, RDT_L3, 1, true, 0xff, true, 0xff);
}

static void test_resource_names(void **state)
{
	static const char *const names[] = { "L3", "l3", "L3data", "l3Code", "L2", "l2DATA",
					      "L2code" };
	struct tm t;
	char buf[64];

	tm_init(&t, &SPEC_L2);
	t.cdp[RDT_L3] = t.cdp[RDT_L2] = true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(buf, sizeof(buf), "%s:0=1", names[i]);
		expect_ok(&t, buf);
	}
	expect_err(&t, "L4:0=1", "unknown resource \"L4\" (known: L3, L3DATA, L3CODE, L2, "
		   "L2DATA, L2CODE, MB)");
	/* a resource the grammar knows, on a machine without MBA */
	expect_err(&t, "MB:0=10", "resource MB is not available on this machine (have L3,L2)");
	expect_err(&t, "L3DAT:0=1", "unknown resource \"L3DAT\" (known: L3, L3DATA, L3CODE, "
		   "L2, L2DATA, L2CODE, MB)");
	expect_err(&t, "=0", "unknown resource \"=\" (known: L3, L3DATA, L3CODE, L2, "
		   "L2DATA, L2CODE, MB)");
	expect_err(&t, ":0=1", "missing resource name before ':'");
	expect_err(&t, "  :0=1", "missing resource name before ':'");
	expect_err(&t, "L3 0=1", "expected ':' after L3, found \"0\"");
	expect_err(&t, "L3=0=1", "expected ':' after L3, found \"=0\"");
	expect_err(&t, "l3", "expected ':' after L3");
	expect_err(&t, "L3  ", "expected ':' after L3");
}

static void test_resource_absent(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "L2:0=1", "resource L2 is not available on this machine (have L3)");
	expect_err(&t, "l2:0=1", "resource L2 is not available on this machine (have L3)");
	t.cdp[RDT_L2] = true;
	expect_err(&t, "L2CODE:0=1", "resource L2 is not available on this machine (have L3)");

	/* a machine where only L2 allocates */
	tm_init(&t, &SPEC_L2);
	t.m.caps[RDT_L3].present = false;
	t.out[RDT_L3] = NULL;
	expect_err(&t, "L3:0=1", "resource L3 is not available on this machine (have L2)");
	expect_ok(&t, "L2:2=1");
	expect_mask(&t, RDT_L2, 1, true, 1, true, 1);

	t.m.caps[RDT_L2].present = false;
	t.out[RDT_L2] = NULL;
	expect_err(&t, "L2:0=1", "resource L2 is not available on this machine (have none)");
}

static void test_cache_ids(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	expect_err(&t, "L3:2=ff", "L3 cache id 2 does not exist (have 0,1)");
	expect_err(&t, "L2:1=ff", "L2 cache id 1 does not exist (have 0,2,4,6)");
	expect_err(&t, "L2:7=ff", "L2 cache id 7 does not exist (have 0,2,4,6)");
	expect_err(&t, "L3:4294967295=1", "L3 cache id 4294967295 does not exist (have 0,1)");
	expect_err(&t, "L3:4294967296=1", "L3 cache id 4294967296 does not exist (have 0,1)");
	expect_err(&t, "L3:18446744073709551617=1",
		   "L3 cache id 18446744073709551617 does not exist (have 0,1)");
	expect_err(&t, "L3:x=1", "L3: cache id \"x\" is not a decimal number");
	expect_err(&t, "L3:-1=1", "L3: cache id \"-1\" is not a decimal number");
	/* kstrtoul: one leading '+' is part of a number */
	expect_ok(&t, "L3:+1=1");
	expect_err(&t, "L3:++1=1", "L3: cache id \"++1\" is not a decimal number");
	expect_err(&t, "L3:0x1=1", "L3: cache id \"0x1\" is not a decimal number");
	expect_err(&t, "L3:=1", "L3: missing cache id before '='");
	expect_err(&t, "L3: ,1", "L3: missing cache id before ','");
	expect_err(&t, "L3::1", "L3: missing cache id before ':'");
	expect_ok(&t, "L2:006=1");
	expect_mask(&t, RDT_L2, 3, true, 1, true, 1);

	/* a machine whose domain list does not fit the message */
	t.m.ndom[RDT_L2] = 0;
	expect_err(&t, "L2:0=1", "L2 cache id 0 does not exist (have none)");
}

/*
 * Id lists, ranges and '*' (an extension; goresctrl's "0,2-3", the kernel's
 * io_alloc_cbm "*"): the same value on each domain named, every domain
 * named once, ranges by cache id between two that exist.
 */
static void test_id_lists(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);	/* L2 cache ids 0, 2, 4, 6 */
	expect_ok(&t, "L3:*=f");
	expect_mask(&t, RDT_L3, 0, true, 0xf, true, 0xf);
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);
	expect_ok(&t, "L2:0-4=3;6=c");
	expect_mask(&t, RDT_L2, 0, true, 3, true, 3);
	expect_mask(&t, RDT_L2, 1, true, 3, true, 3);
	expect_mask(&t, RDT_L2, 2, true, 3, true, 3);
	expect_mask(&t, RDT_L2, 3, true, 0xc, true, 0xc);
	expect_ok(&t, "L2: 0 , 4 - 6 =1\nL3:+0,1=3");
	expect_mask(&t, RDT_L2, 0, true, 1, true, 1);
	expect_mask(&t, RDT_L2, 1, false, 0, false, 0);
	expect_mask(&t, RDT_L2, 3, true, 1, true, 1);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 3);
	expect_err(&t, "L2:4-2=1", "L2: range \"4-2\" runs backwards");
	expect_err(&t, "L2:0-3=1", "L2 cache id 3 does not exist (have 0,2,4,6)");
	expect_err(&t, "L2:0,0=1", "L2 cache id 0 given twice");
	expect_err(&t, "L2:*=1;6=2", "L2 cache id 6 given twice");
	expect_err(&t, "L2:0,=1", "L2: a ',' ends the list of cache ids");
	expect_err(&t, "L2:0-=1", "L2: a range of cache ids needs its last one");
	expect_err(&t, "L2:*,0=1", "L2: '*' names every cache id: give it alone");
	expect_err(&t, "L2:0,*=1", "L2: '*' names every cache id: give it alone");
	expect_err(&t, "L2:0-2=5", "L2 cache ids 0-2: mask 0x5 is not contiguous");
	expect_err(&t, "L2:*=100", "L2 cache ids *: mask 0x100 has bits beyond the 8-bit CBM");
	expect_err(&t, "L2:0,2 1=1", "L2: unexpected \"1\" in the cache ids");
}

static void test_many_domains_have_list(void **state)
{
	enum { N = 64 };
	struct rdt_domain dom[N];
	struct rdt_schema_mask out[N];
	struct rdt_schema_mask *outp[RDT_NALL] = { out, NULL };
	struct rdt_machine m = { 0 };
	char err[ERRLEN], want[ERRLEN], text[64];
	int ret;

	memset(dom, 0, sizeof(dom));
	m.caps[RDT_L3] = (struct rdt_caps){ .present = true, .cbm_len = 8, .min_cbm_bits = 1 };
	m.ndom[RDT_L3] = N;
	m.dom[RDT_L3] = dom;
	for (unsigned int i = 0; i < N; i++)
		dom[i].cache_id = 100 + 3 * i;
	/* every domain found through the (binary) search, none confused */
	for (unsigned int i = 0; i < N; i++) {
		snprintf(text, sizeof(text), "L3:%u=%x", 100 + 3 * i, 1u << (i % 8));
		ret = rdt_schema_parse(&m, NULL, text, outp, err, sizeof(err));
		assert_int_equal(ret, 0);
		for (unsigned int j = 0; j < N; j++)
			assert_int_equal(out[j].data_set, j == i);
		assert_int_equal(out[i].data, 1u << (i % 8));
	}
	ret = rdt_schema_parse(&m, NULL, "L3:101=1", outp, err, sizeof(err));
	assert_int_equal(ret, -EINVAL);
	/* "have" lists what fits, then ",..." */
	strcpy(want, "L3 cache id 101 does not exist (have 100,103,106,109,112,115,118,121,124,"
	       "127,130,133,136,139,142,145,148,151,154,157,160,163,166,...)");
	assert_string_equal(err, want);
}

static void test_mask_syntax(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_WIDE);
	expect_err(&t, "L3:0=", "L3 cache id 0: missing mask after '='");
	expect_err(&t, "L3:0=  ;1=1", "L3 cache id 0: missing mask after '='");
	expect_err(&t, "L3:0=0x", "L3 cache id 0: missing mask after '='");
	expect_err(&t, "L3:0=0X;", "L3 cache id 0: missing mask after '='");
	expect_err(&t, "L3:0=fg", "L3 cache id 0: mask \"fg\" is not hex");
	expect_err(&t, "L3:0=x1", "L3 cache id 0: mask \"x1\" is not hex");
	expect_err(&t, "L3:0=0x0x1", "L3 cache id 0: mask \"0x0x1\" is not hex");
	expect_err(&t, "L3:1=-1", "L3 cache id 1: mask \"-1\" is not hex");
	expect_err(&t, "L3:0=0x1ffffffffffffffff",
		   "L3 cache id 0: mask \"0x1ffffffffffffffff\" has more than 16 hex digits");
	/* leading zeros are not digits that count: the kernel takes any number */
	expect_ok(&t, "L3:0=00000000000000000000000001;1=+0x000000000000000000003");
	expect_mask(&t, RDT_L3, 0, true, 1, true, 1);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 3);
	expect_err(&t, "L3:0=0x+1", "L3 cache id 0: mask \"0x+1\" is not hex");
	expect_err(&t, "L3:0=++1", "L3 cache id 0: mask \"++1\" is not hex");
	expect_ok(&t, "L3:0=ffffffffffffffff;1=0x8000000000000000");
	expect_mask(&t, RDT_L3, 0, true, UINT64_MAX, true, UINT64_MAX);
	expect_mask(&t, RDT_L3, 1, true, 1ULL << 63, true, 1ULL << 63);
	expect_ok(&t, "L3:0=0xFFFFFFFFFFFF0000");
	expect_mask(&t, RDT_L3, 0, true, 0xffffffffffff0000ULL, true, 0xffffffffffff0000ULL);
	expect_err(&t, "L3:1=0xFEDCBA9876543211",
		   "L3 cache id 1: mask 0xfedcba9876543211 is not contiguous");
}

static void test_entry_syntax(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "L3:", "L3: no <id>=<mask> given");
	expect_err(&t, "L3: \t ", "L3: no <id>=<mask> given");
	expect_err(&t, "L3:;", "L3: empty entry before ';'");
	expect_err(&t, "L3:0=f;;1=f", "L3: empty entry before ';'");
	expect_err(&t, "L3:0=f; ;", "L3: empty entry before ';'");
	expect_err(&t, "L3:0", "L3 cache id 0: expected '=' after the cache id");
	expect_err(&t, "L3:0 ff", "L3 cache id 0: expected '=' after the cache id, found \"ff\"");
	expect_err(&t, "L3:0:ff", "L3 cache id 0: expected '=' after the cache id, found \":ff\"");
	expect_err(&t, "L3:0;1=f", "L3 cache id 0: expected '=' after the cache id, found \";1\"");
	expect_err(&t, "L3:0=ff gg", "L3 cache id 0: unexpected \"gg\" after the mask");
	expect_err(&t, "L3:0=ff=1", "L3 cache id 0: unexpected \"=1\" after the mask");
	expect_err(&t, "L3:0=ff 1=f", "L3 cache id 0: unexpected \"1\" after the mask");
	expect_err(&t, "L3:0=f:", "L3 cache id 0: unexpected \":\" after the mask");
	/* the first entry is fine, the second is wrong: nothing of it counts */
	expect_err(&t, "L3:0=f;1=0", "L3 cache id 1: mask 0x0 is empty");
}

static void test_given_twice(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "L3:0=f;0=f", "L3 cache id 0 given twice");
	expect_err(&t, "L3:1=f;0=3;01=f", "L3 cache id 1 given twice");
	expect_err(&t, "L3:0=f\nL3:0=f", "line 2: L3 cache id 0 given twice");
	expect_err(&t, "L3:0=f\r\n\r\nl3 : 00 = 3", "line 3: L3 cache id 0 given twice");
	/* a duplicate is an error even where the second mask is bad too */
	expect_err(&t, "L3:0=f;0=5", "L3 cache id 0 given twice");

	/* with CDP on, L3 covers both halves, L3DATA/L3CODE one each */
	t.cdp[RDT_L3] = true;
	expect_err(&t, "L3:0=f\nL3DATA:0=f", "line 2: L3DATA cache id 0 given twice");
	expect_err(&t, "L3:0=f,3\nL3CODE:0=f", "line 2: L3CODE cache id 0 given twice");
	expect_err(&t, "L3CODE:1=f\nL3:1=f", "line 2: L3 cache id 1 given twice");
	expect_err(&t, "L3DATA:1=f\nL3:1=f,f", "line 2: L3 cache id 1 given twice");
	expect_err(&t, "L3DATA:0=f;0=3", "L3DATA cache id 0 given twice");
	expect_err(&t, "L3CODE:0=f\nL3DATA:1=3\nL3CODE:0=3",
		   "line 3: L3CODE cache id 0 given twice");
	expect_ok(&t, "L3DATA:0=f\nL3CODE:0=f0\nL3DATA:1=3");
	expect_mask(&t, RDT_L3, 0, true, 0xf, true, 0xf0);
	expect_mask(&t, RDT_L3, 1, true, 3, false, 0);
}

static void test_empty(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "", "schema is empty");
	expect_err(&t, " \t", "schema is empty");
	expect_err(&t, "\n", "schema is empty");
	expect_err(&t, " \t\n\r\n\n\t \r\n  \r", "schema is empty");
}

static void test_line_prefix(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	/* one non-blank line: no prefix, whatever the blank lines around it */
	expect_err(&t, "\n\n  \nL3:0=5\n\n", "L3 cache id 0: mask 0x5 is not contiguous");
	expect_err(&t, "\r\n\r\nL4:0=1\r\n", "unknown resource \"L4\" (known: L3, L3DATA, "
		   "L3CODE, L2, L2DATA, L2CODE, MB)");
	/* several: the physical line, blank lines counted */
	expect_err(&t, "L3:0=f\n\nL3:1=5", "line 3: L3 cache id 1: mask 0x5 is not contiguous");
	expect_err(&t, "L3:0=5\nL3:1=f", "line 1: L3 cache id 0: mask 0x5 is not contiguous");
	expect_err(&t, "\r\nL3:0=f\r\n \r\n\tL2:0=1\r\n",
		   "line 4: resource L2 is not available on this machine (have L3)");
	expect_err(&t, "L3:0=f\nL3:1=f\nbogus", "line 3: unknown resource \"bogus\" (known: "
		   "L3, L3DATA, L3CODE, L2, L2DATA, L2CODE, MB)");
}

/* ---- CDP ---------------------------------------------------------------- */

static void test_cdp_forms(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	t.cdp[RDT_L3] = true;
	/* a single mask with CDP on sets both halves */
	expect_ok(&t, "L3:0=7ff");
	expect_mask(&t, RDT_L3, 0, true, 0x7ff, true, 0x7ff);
	expect_unset(&t, RDT_L3, 1);
	/* the data,code pair of the 2016 patch set (then named rscctrl) */
	expect_ok(&t, "L3:0=0x7f0 , 0x00f;1=3,c");
	expect_mask(&t, RDT_L3, 0, true, 0x7f0, true, 0xf);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 0xc);
	/* the resctrl lines, each one half */
	expect_ok(&t, "L3DATA:1=f0");
	expect_mask(&t, RDT_L3, 1, true, 0xf0, false, 0);
	expect_unset(&t, RDT_L3, 0);
	expect_ok(&t, "L3CODE:0=1;1=2");
	expect_mask(&t, RDT_L3, 0, false, 0, true, 1);
	expect_mask(&t, RDT_L3, 1, false, 0, true, 2);
	/* CDP per resource: L3 on, L2 off */
	expect_ok(&t, "L3:0=1,2\nL2:0=3");
	expect_mask(&t, RDT_L3, 0, true, 1, true, 2);
	expect_mask(&t, RDT_L2, 0, true, 3, true, 3);
	expect_err(&t, "L2:0=1,2", "L2 cache id 0: data,code pair given but CDP is off for L2");
	expect_err(&t, "L2DATA:0=1", "L2DATA: CDP is off for L2 (use L2:<id>=<mask>)");
	expect_err(&t, "L3DATA:0=1,2",
		   "L3DATA cache id 0: a data,code pair is only allowed on an L3 line");
	expect_err(&t, "L3CODE:0=1,2",
		   "L3CODE cache id 0: a data,code pair is only allowed on an L3 line");
	expect_err(&t, "L3:0=1,", "L3 cache id 0: missing code mask after ','");
	expect_err(&t, "L3:0=,1", "L3 cache id 0: missing data mask after '='");
	expect_err(&t, "L3:0=1,x", "L3 cache id 0: code mask \"x\" is not hex");
	expect_err(&t, "L3:0=x,1", "L3 cache id 0: data mask \"x\" is not hex");
	expect_err(&t, "L3:0=1,2,3", "L3 cache id 0: unexpected \",3\" after the mask");
	expect_err(&t, "L3:0=1,2 3", "L3 cache id 0: unexpected \"3\" after the mask");
	expect_ok(&t, "L3:0=1,00000000000000001");
	expect_err(&t, "L3:0=1,10000000000000001",
		   "L3 cache id 0: code mask \"10000000000000001\" has more than 16 hex digits");
}

static void test_cdp_off(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_L2);
	expect_err(&t, "L3:0=1,2", "L3 cache id 0: data,code pair given but CDP is off for L3");
	expect_err(&t, "L3:1=f;0=1 , 2",
		   "L3 cache id 0: data,code pair given but CDP is off for L3");
	expect_err(&t, "L3DATA:0=1", "L3DATA: CDP is off for L3 (use L3:<id>=<mask>)");
	expect_err(&t, "l3code:0=1", "L3CODE: CDP is off for L3 (use L3:<id>=<mask>)");
	expect_err(&t, "L2CODE:0=1", "L2CODE: CDP is off for L2 (use L2:<id>=<mask>)");
	/* cdp may be NULL: everything off */
	memset(t.err, 0, sizeof(t.err));
	assert_int_equal(rdt_schema_parse(&t.m, NULL, "L3DATA:0=1", t.out, t.err,
					  sizeof(t.err)), -EINVAL);
	assert_string_equal(t.err, "L3DATA: CDP is off for L3 (use L3:<id>=<mask>)");
	assert_int_equal(rdt_schema_parse(&t.m, NULL, "L3:0=1", t.out, t.err, sizeof(t.err)),
			 0);
	expect_mask(&t, RDT_L3, 0, true, 1, true, 1);
}

/* ---- CBM rules ---------------------------------------------------------- */

static void test_cbm_rules_in_schema(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "L3:0=0", "L3 cache id 0: mask 0x0 is empty");
	expect_err(&t, "L3:0=0x00", "L3 cache id 0: mask 0x0 is empty");
	expect_err(&t, "L3:0=1fffff",
		   "L3 cache id 0: mask 0x1fffff has bits beyond the 20-bit CBM");
	expect_err(&t, "L3:0=5", "L3 cache id 0: mask 0x5 is not contiguous");
	expect_err(&t, "L3:1=F0F", "L3 cache id 1: mask 0xf0f is not contiguous");
	expect_ok(&t, "L3:0=1;1=80000");
	expect_ok(&t, "L3:0=fffff;1=7fff8");

	tm_init(&t, &SPEC_HSW);
	expect_err(&t, "L3:0=3;1=1", "L3 cache id 1: mask 0x1 has 1 bit, at least 2 are needed");
	expect_err(&t, "L3:0=80000", "L3 cache id 0: mask 0x80000 has 1 bit, at least 2 are "
		   "needed");
	expect_ok(&t, "L3:0=3;1=c0000");
	t.cdp[RDT_L3] = true;
	expect_err(&t, "L3:0=3,1", "L3 cache id 0: code mask 0x1 has 1 bit, at least 2 are "
		   "needed");
	expect_err(&t, "L3:0=5,3", "L3 cache id 0: data mask 0x5 is not contiguous");
	expect_err(&t, "L3:1=3,0", "L3 cache id 1: code mask 0x0 is empty");
	expect_err(&t, "L3DATA:1=1", "L3DATA cache id 1: mask 0x1 has 1 bit, at least 2 are "
		   "needed");
	expect_err(&t, "L3CODE:0=100000", "L3CODE cache id 0: mask 0x100000 has bits beyond "
		   "the 20-bit CBM");

	/* sparse (AMD): holes allowed, the other rules still hold */
	tm_init(&t, &SPEC_L2);
	expect_ok(&t, "L3:0=5;1=0x401");
	expect_mask(&t, RDT_L3, 0, true, 5, true, 5);
	expect_mask(&t, RDT_L3, 1, true, 0x401, true, 0x401);
	expect_ok(&t, "L3:0=7ff");
	expect_err(&t, "L3:0=fff", "L3 cache id 0: mask 0xfff has bits beyond the 11-bit CBM");
	expect_err(&t, "L3:1=800", "L3 cache id 1: mask 0x800 has bits beyond the 11-bit CBM");
	expect_err(&t, "L2:0=100", "L2 cache id 0: mask 0x100 has bits beyond the 8-bit CBM");
	expect_err(&t, "L2:2=81", "L2 cache id 2: mask 0x81 is not contiguous");
	expect_ok(&t, "L2:0=ff;2=80");

	tm_init(&t, &SPEC_WIDE);
	expect_ok(&t, "L3:0=ffffffffffffffff;1=fffffffffffffffe");
	expect_err(&t, "L3:0=8000000000000001",
		   "L3 cache id 0: mask 0x8000000000000001 is not contiguous");
	expect_err(&t, "L2:2=8000", "L2 cache id 2: mask 0x8000 has 1 bit, at least 2 are needed");
	expect_err(&t, "L2:0=10000", "L2 cache id 0: mask 0x10000 has bits beyond the 16-bit CBM");
	expect_ok(&t, "L2:0=c000;2=ffff");
}

struct cbm_case {
	struct rdt_caps caps;
	uint64_t cbm;
	const char *why;	/* NULL: valid */
};

static void test_cbm_check(void **state)
{
	static const struct rdt_caps c20 = { .present = true, .cbm_len = 20, .min_cbm_bits = 1 };
	static const struct rdt_caps c20m2 = { .present = true, .cbm_len = 20, .min_cbm_bits = 2 };
	static const struct rdt_caps c8sp = { .present = true, .cbm_len = 8, .min_cbm_bits = 1,
					      .sparse = true };
	static const struct rdt_caps c11m4 = { .present = true, .cbm_len = 11, .min_cbm_bits = 4,
					       .sparse = true };
	static const struct rdt_caps c64 = { .present = true, .cbm_len = 64, .min_cbm_bits = 1 };
	static const struct rdt_caps c11m0 = { .present = true, .cbm_len = 11, .min_cbm_bits = 0,
					       .sparse = true };
	static const struct rdt_caps c63 = { .present = true, .cbm_len = 63, .min_cbm_bits = 1 };
	static const struct rdt_caps c1 = { .present = true, .cbm_len = 1, .min_cbm_bits = 1 };
	const struct cbm_case cases[] = {
		{ c20, 0, "mask 0x0 is empty" },
		{ c20, 1, NULL },
		{ c20, 0xfffff, NULL },
		{ c20, 0x80000, NULL },
		{ c20, 0x100000, "mask 0x100000 has bits beyond the 20-bit CBM" },
		{ c20, 0x1fffff, "mask 0x1fffff has bits beyond the 20-bit CBM" },
		{ c20, 0x5, "mask 0x5 is not contiguous" },
		{ c20, 0xff0ff, "mask 0xff0ff is not contiguous" },
		/* beyond wins over not contiguous */
		{ c20, 0x100001, "mask 0x100001 has bits beyond the 20-bit CBM" },
		{ c20m2, 1, "mask 0x1 has 1 bit, at least 2 are needed" },
		{ c20m2, 0x3, NULL },
		/* not contiguous wins over too few bits */
		{ c20m2, 0x5, "mask 0x5 is not contiguous" },
		{ c8sp, 0xa5, NULL },
		{ c8sp, 0x80, NULL },
		{ c8sp, 0x100, "mask 0x100 has bits beyond the 8-bit CBM" },
		/* cbm_validate counts the first run of ones, not all of them */
		{ c11m4, 0x421, "mask 0x421 begins with a run of 1 bit, at least 4 are needed" },
		{ c11m4, 0x78f, NULL },
		/* min_cbm_bits 0 (AMD): the empty mask is valid */
		{ c11m0, 0, NULL },
		{ c11m4, 0x4a1, "mask 0x4a1 begins with a run of 1 bit, at least 4 are needed" },
		{ c64, UINT64_MAX, NULL },
		{ c64, 1ULL << 63, NULL },
		{ c64, 0xc000000000000000ULL, NULL },
		{ c64, 0x8000000000000001ULL, "mask 0x8000000000000001 is not contiguous" },
		{ c63, 1ULL << 63, "mask 0x8000000000000000 has bits beyond the 63-bit CBM" },
		{ c63, UINT64_MAX >> 1, NULL },
		{ c1, 1, NULL },
		{ c1, 2, "mask 0x2 has bits beyond the 1-bit CBM" },
	};
	char why[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		memset(why, 'x', sizeof(why));
		why[sizeof(why) - 1] = '\0';
		ret = rdt_cbm_check(&cases[i].caps, cases[i].cbm, why, sizeof(why));
		if (!cases[i].why) {
			if (ret)
				fail_msg("case %zu: 0x%llx rejected: %s", i,
					 (unsigned long long)cases[i].cbm, why);
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		assert_string_equal(why, cases[i].why);
	}
	/* why may be NULL, or too small: truncated, still terminated */
	assert_int_equal(rdt_cbm_check(&c20, 5, NULL, 0), -EINVAL);
	assert_int_equal(rdt_cbm_check(&c20, 3, NULL, 0), 0);
	assert_int_equal(rdt_cbm_check(&c20, 5, why, 8), -EINVAL);
	assert_string_equal(why, "mask 0x");
}

/* ---- formatting and the round trip ------------------------------------- */

static int fmt(const struct tm *t, uint64_t *d3, uint64_t *c3, uint64_t *d2, uint64_t *c2,
	       char *buf, size_t len)
{
	uint64_t *const data[RDT_NALL] = { d3, d2 };
	uint64_t *const code[RDT_NALL] = { c3, c2 };

	return rdt_schema_format(&t->m, t->cdp, data, code, buf, len);
}

static void expect_format(const struct tm *t, uint64_t *d3, uint64_t *c3, uint64_t *d2,
			  uint64_t *c2, const char *want)
{
	char buf[512];
	int n;

	memset(buf, 'x', sizeof(buf));
	n = fmt(t, d3, c3, d2, c2, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(fmt(t, d3, c3, d2, c2, NULL, 0), n);
}

static void test_format(void **state)
{
	uint64_t d3[2] = { 0xfffff, 0xff }, c3[2] = { 0xf, 0xf0000 };
	uint64_t d2[4] = { 0xff, 0x1, 0xf0, 0x3 }, c2[4] = { 0x80, 0x40, 0x20, 0x10 };
	uint64_t w3[2] = { UINT64_MAX, 1 }, w2[2] = { 0xffff, 0x3 };
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_format(&t, d3, c3, NULL, NULL, "L3:0=fffff;1=000ff\n");
	t.cdp[RDT_L3] = true;
	expect_format(&t, d3, c3, NULL, NULL, "L3:0=fffff,0000f;1=000ff,f0000\n");
	/* code NULL with CDP on: the data masks stand for both */
	expect_format(&t, d3, NULL, NULL, NULL, "L3:0=fffff,fffff;1=000ff,000ff\n");

	tm_init(&t, &SPEC_L2);
	d3[0] = 0x7ff;
	d3[1] = 0x5;
	expect_format(&t, d3, c3, d2, c2, "L3:0=7ff;1=005\nL2:0=ff;2=01;4=f0;6=03\n");
	t.cdp[RDT_L2] = true;
	expect_format(&t, d3, c3, d2, c2,
		      "L3:0=7ff;1=005\nL2:0=ff,80;2=01,40;4=f0,20;6=03,10\n");

	tm_init(&t, &SPEC_WIDE);
	expect_format(&t, w3, NULL, w2, NULL,
		      "L3:0=ffffffffffffffff;1=0000000000000001\nL2:0=ffff;2=0003\n");

	/* a resource that is not present prints nothing, not even its name */
	t.m.caps[RDT_L2].present = false;
	expect_format(&t, w3, NULL, NULL, NULL, "L3:0=ffffffffffffffff;1=0000000000000001\n");

	/* a present resource without its data array is a caller bug */
	assert_int_equal(fmt(&t, NULL, NULL, NULL, NULL, NULL, 0), -EINVAL);
}

static void test_format_truncation(void **state)
{
	uint64_t d3[2] = { 0xfffff, 0x3 }, d2[4] = { 1, 2, 4, 8 };
	const char *want = "L3:0=7fffff;1=000003\nL2:0=01;2=02;4=04;6=08\n";
	char buf[128];
	struct tm t;

	tm_init(&t, &SPEC_L2);
	t.m.caps[RDT_L3].cbm_len = 24;
	d3[0] = 0x7fffff;
	for (size_t len = 1; len <= strlen(want) + 2; len++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(fmt(&t, d3, NULL, d2, NULL, buf, len), (int)strlen(want));
		/* exactly len - 1 bytes of the text, terminated, nothing past len */
		assert_int_equal(strlen(buf), len - 1 < strlen(want) ? len - 1 : strlen(want));
		assert_memory_equal(buf, want, strlen(buf));
		assert_int_equal(buf[len], 'x');
	}
	/* buf given but len 0: untouched */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(fmt(&t, d3, NULL, d2, NULL, buf, 0), (int)strlen(want));
	assert_int_equal(buf[0], 'x');
}

/* Format what was parsed (every domain present), parse it again, compare. */
static void round_trip(struct tm *t, const char *text)
{
	uint64_t d[RDT_NALL][MAXDOM], c[RDT_NALL][MAXDOM];
	char buf[1024];
	int n;

	expect_ok(t, text);
	for (int r = 0; r < RDT_NRES; r++) {
		for (unsigned int i = 0; i < t->m.ndom[r]; i++) {
			const struct rdt_schema_mask *sm = &t->out[r][i];
			uint64_t full = rdt_cbm_full(t->m.caps[r].cbm_len);

			d[r][i] = sm->data_set ? sm->data : full;
			c[r][i] = sm->code_set ? sm->code : full;
		}
	}
	n = fmt(t, d[0], c[0], d[1], c[1], buf, sizeof(buf));
	assert_true(n > 0 && n < (int)sizeof(buf));
	expect_ok(t, buf);
	for (int r = 0; r < RDT_NRES; r++) {
		for (unsigned int i = 0; i < t->m.ndom[r]; i++) {
			if (!t->m.caps[r].present)
				continue;
			expect_mask(t, r, i, true, d[r][i], true, c[r][i]);
		}
	}
}

static void test_round_trip(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	round_trip(&t, "L3:0=ff;1=c0");
	round_trip(&t, "L3:1=1");
	t.cdp[RDT_L3] = true;
	round_trip(&t, "L3:0=ff,f00;1=c0");
	round_trip(&t, "L3DATA:0=3\nL3CODE:1=80000");

	tm_init(&t, &SPEC_L2);
	round_trip(&t, "L3:0=5;1=401\nL2:6=80;0=1");
	t.cdp[RDT_L2] = true;
	round_trip(&t, "L2:0=f,f0;2=1;4=0x80,0x01\nL2DATA:6=3");

	tm_init(&t, &SPEC_WIDE);
	round_trip(&t, "L3:0=ffffffffffffffff;1=8000000000000000\nL2:2=c000");
	t.cdp[RDT_L3] = t.cdp[RDT_L2] = true;
	round_trip(&t, "L3:0=1,ffffffffffffffff\nL2CODE:0=3;2=ffff");
}

/* Random valid schemas: what format prints always parses back to itself. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t random_cbm(const struct rdt_caps *c)
{
	unsigned int len = c->cbm_len, min = c->min_cbm_bits;
	unsigned int n = min + (unsigned int)(rng() % (len - min + 1));
	unsigned int shift = (unsigned int)(rng() % (len - n + 1));

	return rdt_cbm_full(n) << shift;
}

static void test_round_trip_random(void **state)
{
	const struct spec *specs[] = { &SPEC_STD, &SPEC_HSW, &SPEC_L2, &SPEC_WIDE };
	struct tm t;

	for (int k = 0; k < 400; k++) {
		uint64_t d[RDT_NALL][MAXDOM], c[RDT_NALL][MAXDOM];
		char buf[1024];

		tm_init(&t, specs[k % 4]);
		t.cdp[RDT_L3] = rng() & 1;
		t.cdp[RDT_L2] = rng() & 1;
		for (int r = 0; r < RDT_NRES; r++) {
			for (unsigned int i = 0; i < t.m.ndom[r]; i++) {
				d[r][i] = random_cbm(&t.m.caps[r]);
				c[r][i] = t.cdp[r] ? random_cbm(&t.m.caps[r]) : d[r][i];
			}
		}
		assert_true(fmt(&t, d[0], c[0], d[1], c[1], buf, sizeof(buf)) > 0);
		expect_ok(&t, buf);
		for (int r = 0; r < RDT_NRES; r++)
			for (unsigned int i = 0; i < t.m.ndom[r]; i++)
				expect_mask(&t, r, i, true, d[r][i], true, c[r][i]);
	}
}

/* ---- big inputs --------------------------------------------------------- */

/* head, then unit count times, then tail: a fresh heap string. */
static char *big_repeat(const char *head, const char *unit, size_t count, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * count + tl + 1), *o;

	assert_non_null(s);
	memcpy(s, head, hl);
	o = s + hl;
	for (size_t i = 0; i < count; i++, o += ul)
		memcpy(o, unit, ul);
	memcpy(o, tail, tl + 1);
	return s;
}

static void test_big_inputs(void **state)
{
	struct tm t;
	char *s, want[ERRLEN];

	tm_init(&t, &SPEC_STD);

	/* one line repeating domains */
	s = big_repeat("L3:", "0=ff;1=ff;", NEAR / 10, "");
	expect_err(&t, s, "L3 cache id 0 given twice");
	free(s);

	/* 64 KiB of blanks around a valid line, within one line and as blank lines */
	s = big_repeat("", " \t", NEAR / 2, "L3 : 0 = f ; 1 = 3 ;");
	expect_ok(&t, s);
	expect_mask(&t, RDT_L3, 0, true, 0xf, true, 0xf);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 3);
	free(s);
	s = big_repeat("L3:0=3", " ", NEAR, ";1=f\t");
	expect_ok(&t, s);
	expect_mask(&t, RDT_L3, 0, true, 3, true, 3);
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);
	free(s);
	s = big_repeat("", "\r\n", NEAR / 2, "L3:1=f\n");
	expect_ok(&t, s);
	expect_unset(&t, RDT_L3, 0);
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);
	free(s);

	/* many lines: the error names the right one, far down */
	s = big_repeat("L3:0=f", "\n", NEAR, "L3:1=5\n\n");
	snprintf(want, sizeof(want), "line %d: L3 cache id 1: mask 0x5 is not contiguous",
		 NEAR + 1);
	expect_err(&t, s, want);
	free(s);
	s = big_repeat("", "L3:1=f\n", NEAR / 7, "");
	expect_err(&t, s, "line 2: L3 cache id 1 given twice");
	free(s);

	/* huge words: quoted short, never copied whole */
	s = big_repeat("L3:0=", "f", NEAR, "");
	expect_err(&t, s, "L3 cache id 0: mask \"ffffffffffffffffffffffff...\" has more than "
		   "16 hex digits");
	free(s);
	/* all zeros: as long as the kernel's, the value 0 (empty) */
	s = big_repeat("L3:0=", "0", NEAR, "");
	expect_err(&t, s, "L3 cache id 0: mask 0x0 is empty");
	free(s);
	s = big_repeat("L3:0=", "f", NEAR, "g");
	expect_err(&t, s, "L3 cache id 0: mask \"ffffffffffffffffffffffff...\" is not hex");
	free(s);
	s = big_repeat("L3:", "9", NEAR, "=1");
	expect_err(&t, s, "L3 cache id 999999999999999999999999... does not exist (have 0,1)");
	free(s);
	s = big_repeat("L3:", "0", NEAR, "=1");
	expect_ok(&t, s);
	expect_mask(&t, RDT_L3, 0, true, 1, true, 1);
	free(s);
	s = big_repeat("", "L", NEAR, ":0=1");
	expect_err(&t, s, "unknown resource \"LLLLLLLLLLLLLLLLLLLLLLLL...\" (known: L3, L3DATA, "
		   "L3CODE, L2, L2DATA, L2CODE, MB)");
	free(s);
	s = big_repeat("L3:0=f;", ";", NEAR, "");
	expect_err(&t, s, "L3: empty entry before ';'");
	free(s);
}

/*
 * The bound on schema text: RDT_SCHEMA_TEXT_MAX bytes are parsed, one more
 * is -E2BIG with the limit named, before a byte is parsed (out untouched),
 * and the text is never read past the bound: it ends at a page that cannot
 * be read, without a NUL.
 */
static void test_text_bound(void **state)
{
	static const char msg[] = "schema text is longer than 65536 bytes (64 KiB), the most a "
				  "schema may be: give each domain once, one line per resource";
	long page = sysconf(_SC_PAGESIZE);
	size_t maplen = ((RDT_SCHEMA_TEXT_MAX + 1 + (size_t)page - 1) / (size_t)page + 1) *
			(size_t)page;
	struct rdt_schema_mask sentinel[MAXDOM];
	struct tm t;
	char *map, *s;

	assert_int_equal(RDT_SCHEMA_TEXT_MAX, 65536);
	tm_init(&t, &SPEC_STD);

	/* exactly at the bound: parsed (and a partial update) */
	s = big_repeat("L3:1=3", " ", RDT_SCHEMA_TEXT_MAX - 6, "");
	assert_int_equal(strlen(s), RDT_SCHEMA_TEXT_MAX);
	expect_ok(&t, s);
	expect_unset(&t, RDT_L3, 0);
	expect_mask(&t, RDT_L3, 1, true, 3, true, 3);
	free(s);

	/* one byte past it, even of a valid schema: refused, out as it was */
	s = big_repeat("L3:1=3", " ", RDT_SCHEMA_TEXT_MAX - 5, "");
	memset(sentinel, 0xa5, sizeof(sentinel));
	memcpy(t.outm[RDT_L3], sentinel, sizeof(sentinel));
	assert_int_equal(tm_parse(&t, s), -E2BIG);
	assert_string_equal(t.err, msg);
	assert_memory_equal(t.outm[RDT_L3], sentinel, sizeof(sentinel));
	free(s);

	/* 100,000 bytes of 'f' (what `rdtctl schema set g "$(... tr '\0' f)"` passes) */
	s = big_repeat("", "f", 100000, "");
	assert_int_equal(tm_parse(&t, s), -E2BIG);
	assert_string_equal(t.err, msg);
	free(s);

	/* bound + 1 bytes, no NUL, an unreadable page right after: strnlen, not strlen */
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + maplen - (size_t)page, (size_t)page, PROT_NONE), 0);
	s = map + maplen - (size_t)page - (RDT_SCHEMA_TEXT_MAX + 1);
	memset(s, 'f', RDT_SCHEMA_TEXT_MAX + 1);
	assert_int_equal(tm_parse(&t, s), -E2BIG);
	assert_string_equal(t.err, msg);
	/* no err buffer: the code alone */
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, s, t.out, NULL, 0), -E2BIG);
	munmap(map, maplen);
}

/* ---- garbage ------------------------------------------------------------ */

static void expect_clean_err(const char *err)
{
	assert_true(err[0] != '\0');
	for (const char *p = err; *p; p++) {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			fail_msg("raw control byte 0x%02x in \"%s\"", (unsigned char)*p, err);
	}
}

static void test_control_chars(void **state)
{
	struct tm t;

	tm_init(&t, &SPEC_STD);
	expect_err(&t, "L3:0=f\x01", "L3 cache id 0: mask \"f\\x01\" is not hex");
	/* \r is a blank to the kernel's isspace: two words, as "f f" */
	expect_err(&t, "L3:0=f\rf", "L3 cache id 0: unexpected \"f\" after the mask");
	expect_err(&t, "L3:0=f\vf", "L3 cache id 0: unexpected \"f\" after the mask");
	expect_err(&t, "L3:0=\xff", "L3 cache id 0: mask \"\\xff\" is not hex");
	expect_err(&t, "L3\x7f:0=f", "unknown resource \"L3\\x7f\" (known: L3, L3DATA, L3CODE, "
		   "L2, L2DATA, L2CODE, MB)");
	expect_err(&t, "\x1b[31mL3:0=f", "unknown resource \"\\x1b[31mL3\" (known: L3, L3DATA, "
		   "L3CODE, L2, L2DATA, L2CODE, MB)");
	/* \f, \v, \r and 0xa0 are blanks to the kernel (strim), so to us */
	expect_ok(&t, "\fL3\v:\xa0" "0=f\xa0;\r1=+f\r");
	expect_mask(&t, RDT_L3, 1, true, 0xf, true, 0xf);
	expect_err(&t, "L3:\b0=f", "L3: cache id \"\\x080\" is not a decimal number");
	expect_err(&t, "L3:\"0\"=f", "L3: cache id \"\\\"0\\\"\" is not a decimal number");
	expect_err(&t, "L3:0=f\\", "L3 cache id 0: mask \"f\\\\\" is not hex");
	expect_err(&t, "L3:0=f \x01", "L3 cache id 0: unexpected \"\\x01\" after the mask");
	/* a lone '\r' inside a line is not a line end, but a blank */
	expect_ok(&t, "L3:0=f\r;1=f");
}

static void put_str(char *buf, size_t len, size_t *o, const char *str)
{
	for (; *str && *o + 1 < len; str++)
		buf[(*o)++] = *str;
	buf[*o] = '\0';
}

static const char *pick(const char *const *v, size_t n)
{
	return v[rng() % n];
}

#define PICK(v) pick(v, sizeof(v) / sizeof(v[0]))

/* Now and then (1 in 8) a choice is drawn from the invalid ones. */
static bool spoil(void)
{
	return rng() % 8 == 0;
}

static void put_mask(char *buf, size_t len, size_t *o, const struct rdt_caps *c)
{
	static const char *const bad[] = { "0", "5", "g", "", "0x", "fffff0000",
					   "00000000000000001", "-1" };
	char hex[32];

	if (spoil()) {
		put_str(buf, len, o, PICK(bad));
		return;
	}
	snprintf(hex, sizeof(hex), rng() % 2 ? "%s%" PRIx64 : "%s%" PRIX64,
		 rng() % 2 ? "0x" : "", random_cbm(c));
	put_str(buf, len, o, hex);
}

/*
 * Text shaped like a schema for machine t - mostly valid resources, unused
 * cache ids and masks the rules accept, with invalid choices mixed in - then
 * now and then a byte overwritten by any byte but NUL. Reaches deep into the
 * grammar, both to success and to every error.
 */
static void gen_text(const struct tm *t, char *buf, size_t len)
{
	static const char *const badres[] = { "L4", "", "L3DATA", "L2CODE", "L2", "MB" };
	static const char *const badids[] = { "2", "7", "x", "", "4294967296" };
	static const char *const half[] = { "", "DATA", "CODE" };
	static const char *const ws[] = { "", "", "", " ", "\t", " \t " };
	static const char *const eol[] = { "\n", "\r\n", "\n\n", ";\n" };
	bool used[RDT_NALL][MAXDOM] = { { false } };
	unsigned int lines = 1 + (unsigned int)(rng() % 2);
	char num[16];
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int l = 0; l < lines; l++) {
		unsigned int entries = 1 + (unsigned int)(rng() % 2);
		int r = t->m.caps[RDT_L2].present ? (int)(rng() % 2) : RDT_L3;
		bool pairable = false;

		put_str(buf, len, &o, PICK(ws));
		if (spoil()) {
			put_str(buf, len, &o, PICK(badres));
		} else {
			const char *h = t->cdp[r] ? PICK(half) : "";

			put_str(buf, len, &o, rng() % 2 ? (r ? "L2" : "L3") : (r ? "l2" : "l3"));
			put_str(buf, len, &o, h);
			pairable = t->cdp[r] && !*h;
		}
		put_str(buf, len, &o, PICK(ws));
		put_str(buf, len, &o, ":");
		for (unsigned int e = 0; e < entries; e++) {
			unsigned int i = (unsigned int)(rng() % t->m.ndom[r]);

			put_str(buf, len, &o, e ? ";" : "");
			put_str(buf, len, &o, PICK(ws));
			if (spoil() || used[r][i]) {
				put_str(buf, len, &o, PICK(badids));
			} else {
				used[r][i] = true;
				snprintf(num, sizeof(num), "%u", t->m.dom[r][i].cache_id);
				put_str(buf, len, &o, num);
			}
			put_str(buf, len, &o, PICK(ws));
			put_str(buf, len, &o, "=");
			put_mask(buf, len, &o, &t->m.caps[r]);
			if ((pairable && rng() % 2) || spoil()) {
				put_str(buf, len, &o, ",");
				put_mask(buf, len, &o, &t->m.caps[r]);
			}
			put_str(buf, len, &o, PICK(ws));
		}
		put_str(buf, len, &o, PICK(eol));
	}
	if (o && rng() % 4 == 0)
		buf[rng() % o] = (char)(1 + rng() % 255);
}

static void check_success(const struct tm *t)
{
	for (int r = 0; r < RDT_NRES; r++) {
		for (unsigned int i = 0; i < t->m.ndom[r]; i++) {
			const struct rdt_schema_mask *sm = &t->out[r][i];

			if (sm->data_set)
				assert_int_equal(rdt_cbm_check(&t->m.caps[r], sm->data, NULL, 0),
						 0);
			if (sm->code_set)
				assert_int_equal(rdt_cbm_check(&t->m.caps[r], sm->code, NULL, 0),
						 0);
			if (!t->cdp[r])
				assert_true(sm->data_set == sm->code_set && sm->data == sm->code);
		}
	}
}

static void test_garbage(void **state)
{
	struct tm t;
	char text[256];
	int ok = 0, bad = 0;

	for (int k = 0; k < 20000; k++) {
		int ret;

		tm_init(&t, k % 3 ? &SPEC_L2 : &SPEC_HSW);
		t.cdp[RDT_L3] = k & 2;
		t.cdp[RDT_L2] = k & 4;
		if (k & 1) {
			gen_text(&t, text, sizeof(text));
		} else {
			/* plain random bytes, NUL excluded */
			size_t n = (size_t)(rng() % (sizeof(text) - 1));

			for (size_t i = 0; i < n; i++)
				text[i] = (char)(1 + rng() % 255);
			text[n] = '\0';
		}
		ret = tm_parse(&t, text);
		if (ret) {
			assert_int_equal(ret, -EINVAL);
			expect_clean_err(t.err);
			bad++;
			continue;
		}
		check_success(&t);
		ok++;
	}
	/* the generator reaches both outcomes, so the checks above ran */
	print_message("garbage: %d parsed, %d rejected\n", ok, bad);
	assert_true(ok > 1000);
	assert_true(bad > 1000);
}

/* ---- the err buffer and bad arguments ----------------------------------- */

static void test_err_buffer(void **state)
{
	struct tm t;
	char small[12];

	tm_init(&t, &SPEC_STD);
	memset(small, 'x', sizeof(small));
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=5", t.out, small, sizeof(small)),
			 -EINVAL);
	assert_string_equal(small, "L3 cache id");
	/* the line prefix alone fills a tiny buffer */
	memset(small, 'x', sizeof(small));
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=f\nL3:1=5", t.out, small, 6),
			 -EINVAL);
	assert_string_equal(small, "line ");
	assert_int_equal(small[6], 'x');
	/* no err buffer at all */
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=5", t.out, NULL, 0), -EINVAL);
	memset(small, 'x', sizeof(small));
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=5", t.out, small, 0), -EINVAL);
	assert_int_equal(small[0], 'x');
	/* success clears an old message */
	strcpy(small, "old");
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=3", t.out, small, sizeof(small)),
			 0);
	assert_string_equal(small, "");
}

static void test_bad_args(void **state)
{
	struct rdt_schema_mask *none[RDT_NALL] = { NULL, NULL };
	struct tm t;

	tm_init(&t, &SPEC_STD);
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, NULL, t.out, t.err, sizeof(t.err)),
			 -EINVAL);
	assert_string_equal(t.err, "schema text is NULL");
	assert_int_equal(rdt_schema_parse(NULL, t.cdp, "L3:0=1", t.out, t.err, sizeof(t.err)),
			 -EINVAL);
	assert_string_equal(t.err, "schema: no machine or output given");
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=1", NULL, t.err, sizeof(t.err)),
			 -EINVAL);
	assert_string_equal(t.err, "schema: no machine or output given");
	assert_int_equal(rdt_schema_parse(&t.m, t.cdp, "L3:0=1", none, t.err, sizeof(t.err)),
			 -EINVAL);
	assert_string_equal(t.err, "schema: no output array for L3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_partial_update),
		cmocka_unit_test(test_out_reset),
		cmocka_unit_test(test_whitespace_and_lines),
		cmocka_unit_test(test_resource_names),
		cmocka_unit_test(test_resource_absent),
		cmocka_unit_test(test_cache_ids),
		cmocka_unit_test(test_id_lists),
		cmocka_unit_test(test_many_domains_have_list),
		cmocka_unit_test(test_mask_syntax),
		cmocka_unit_test(test_entry_syntax),
		cmocka_unit_test(test_given_twice),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_line_prefix),
		cmocka_unit_test(test_cdp_forms),
		cmocka_unit_test(test_cdp_off),
		cmocka_unit_test(test_cbm_rules_in_schema),
		cmocka_unit_test(test_cbm_check),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_truncation),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_big_inputs),
		cmocka_unit_test(test_text_bound),
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_err_buffer),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
