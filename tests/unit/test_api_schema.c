// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_api_schema: rdtalloc_set_schema / rdtalloc_get_schema through the
 * public API: the output form, partial updates, -ERANGE, every CBM rule and
 * text error with its message, and that a rejected schema changes nothing
 * (masks, CLOSIDs, registers, counters).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_api_util.h"

static void fresh_schema_text(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	const char *want = "L3:0=fffff;1=fffff\n";
	char buf[64];

	assert_int_equal(rdtalloc_get_schema(r, NULL, buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
	/* Exactly enough room: length + NUL. */
	assert_int_equal(rdtalloc_get_schema(r, NULL, buf, strlen(want) + 1), strlen(want));
	assert_string_equal(buf, want);
	assert_err(r, rdtalloc_get_schema(r, NULL, buf, strlen(want)), -ERANGE);
	assert_err(r, rdtalloc_get_schema(r, NULL, buf, 1), -ERANGE);
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_schema(r, "g", want);
	rdtalloc_close(r);
}

static void zero_padded_to_cbm_width(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	rdtalloc_t *r11 = tu_eph(M2V ";l3.cbm_len=11");
	rdtalloc_t *r8 = tu_eph(M2V ";l3.cbm_len=8");

	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3ff"));
	assert_schema(r, NULL, "L3:0=003ff;1=fffff\n");
	assert_schema(r11, NULL, "L3:0=7ff;1=7ff\n");
	assert_ok(r11, rdtalloc_set_schema(r11, NULL, "L3:1=1"));
	assert_schema(r11, NULL, "L3:0=7ff;1=001\n");
	assert_schema(r8, NULL, "L3:0=ff;1=ff\n");
	rdtalloc_close(r);
	rdtalloc_close(r11);
	rdtalloc_close(r8);
}

static void partial_updates_keep_other_domains(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=3ff"));
	assert_schema(r, "g", "L3:0=003ff;1=fffff\n");
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:1=ff"));
	assert_schema(r, "g", "L3:0=003ff;1=000ff\n");
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:1=f0000;0=1"));
	assert_schema(r, "g", "L3:0=00001;1=f0000\n");
	/* The default group is another group: untouched. */
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void accepted_spellings(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "L3:0=0x3ff", "L3:0=003ff;1=fffff\n" },
		{ "L3:0=0X3Ff", "L3:0=003ff;1=fffff\n" },
		{ "L3:0=FF;1=F0", "L3:0=000ff;1=000f0\n" },
		{ "L3:0=ff\n", "L3:0=000ff;1=fffff\n" },
		{ "L3 : 0 = ff ; 1 = f0", "L3:0=000ff;1=000f0\n" },
		{ "  L3:0=ff;1=f0  \n", "L3:0=000ff;1=000f0\n" },
		{ "\tL3:\t1=3\t", "L3:0=fffff;1=00003\n" },
		{ "L3:0=00000000000ff", "L3:0=000ff;1=fffff\n" },
		{ "L3:0=ff\nL3:1=f0\n", "L3:0=000ff;1=000f0\n" },
		{ "l3:0=ff", "L3:0=000ff;1=fffff\n" },
		{ "L3:0=ff;", "L3:0=000ff;1=fffff\n" },
		{ "\nL3:0=ff\n\n", "L3:0=000ff;1=fffff\n" },
		{ "L3:0=ff\r\n", "L3:0=000ff;1=fffff\n" },
		{ "L3:0=fffff;1=fffff", "L3:0=fffff;1=fffff\n" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rdtalloc_t *r = tu_eph(M2V);
		int rc = rdtalloc_set_schema(r, NULL, cases[i].in);
		char *s;

		if (rc)
			print_error("schema \"%s\": %d (%s)\n", cases[i].in, rc,
				    rdtalloc_errmsg(r));
		assert_int_equal(rc, 0);
		s = tu_schema(r, NULL);
		if (strcmp(s, cases[i].out))
			print_error("schema \"%s\"\n", cases[i].in);
		assert_string_equal(s, cases[i].out);
		free(s);
		rdtalloc_close(r);
	}
}

struct bad_case {
	const char *text;
	const char *msg;	/* a part of the message that must be there; NULL: any */
};

/* Each text is rejected with -EINVAL, a message, and no change at all. */
static void check_bad(const char *machine, const struct bad_case *cases, unsigned int n)
{
	rdtalloc_t *r = tu_eph(machine);
	unsigned int i;

	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=f0"));
	for (i = 0; i < n; i++) {
		char *before = tu_dump(r, true);
		int rc = rdtalloc_set_schema(r, "g", cases[i].text);

		if (rc != -EINVAL)
			print_error("schema \"%s\": %d (%s)\n", cases[i].text, rc,
				    rdtalloc_errmsg(r));
		assert_int_equal(rc, -EINVAL);
		assert_true(rdtalloc_errmsg(r)[0] != '\0');
		if (cases[i].msg)
			assert_errmsg_has(r, cases[i].msg);
		assert_unchanged(r, before, true);
	}
	rdtalloc_close(r);
}

static void bad_masks(void **state)
{
	static const struct bad_case cases[] = {
		{ "L3:2=ff", "L3 cache id 2 does not exist (have 0,1)" },
		{ "L3:0=5", "L3 cache id 0: mask 0x5 is not contiguous" },
		{ "L3:1=f0f", "L3 cache id 1: mask 0xf0f is not contiguous" },
		{ "L3:0=0", "L3 cache id 0" },
		{ "L3:1=00", "L3 cache id 1" },
		{ "L3:0=100000", "L3 cache id 0" },
		{ "L3:0=1fffff", "L3 cache id 0" },
		{ "L3:0=ffffffffffffffff", "L3 cache id 0" },
		{ "L3:0=1ffffffffffffffff", NULL },
		{ "L3:0=ff;0=f0", "L3 cache id 0" },
		{ "L3:0=ff\nL3:0=f0", "L3 cache id 0" },
		{ "L3:4294967296=ff", NULL },
		{ "L3:-1=ff", NULL },
	};

	check_bad(M2V, cases, sizeof(cases) / sizeof(cases[0]));
}

static void bad_text(void **state)
{
	static const struct bad_case cases[] = {
		{ "", NULL },
		{ "   ", NULL },
		{ "\n\n", NULL },
		{ "L4:0=ff", "L4" },
		{ "MB:0=50", "MB" },
		{ "L2:0=ff", "L2" },
		{ "L3", NULL },
		{ "L3:", NULL },
		{ "L3:0", NULL },
		{ "L3:0=", NULL },
		{ "L3:=ff", NULL },
		{ "L3:x=ff", NULL },
		{ "L3:0ff", NULL },
		{ "L3:0=fg", NULL },
		{ "L3:0=0x", NULL },
		{ "L3:0=ff 1=ff", NULL },
		{ ":0=ff", NULL },
		{ "L3:0=ff,f0", NULL },
		{ "L3DATA:0=ff", NULL },
		{ "L3CODE:0=ff", NULL },
		{ "L3:0=ff\nL4:0=1", NULL },
		{ "L3:0=ff;1=5", "L3 cache id 1" },
		{ "L3:0=\x01" "f", NULL },
	};

	check_bad(M2V, cases, sizeof(cases) / sizeof(cases[0]));
}

static void null_schema_rejected(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);
	char *before = tu_dump(r, true);

	assert_err(r, rdtalloc_set_schema(r, NULL, NULL), -EINVAL);
	assert_unchanged(r, before, true);
	rdtalloc_close(r);
}

static void min_cbm_bits(void **state)
{
	static const struct bad_case cases[] = {
		{ "L3:0=1", "L3 cache id 0" },
		{ "L3:1=80000", "L3 cache id 1" },
	};
	rdtalloc_t *r = tu_eph(M2V ";l3.min_cbm_bits=2");

	check_bad(M2V ";l3.min_cbm_bits=2", cases, 2);
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=3;1=c0000"));
	assert_schema(r, NULL, "L3:0=00003;1=c0000\n");
	rdtalloc_close(r);
}

static void sparse_masks(void **state)
{
	rdtalloc_t *r = tu_eph(M2V ";l3.sparse=1");

	assert_int_equal(tu_res(r, 0).sparse_masks, 1);
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=5;1=f0f0f"));
	assert_schema(r, NULL, "L3:0=00005;1=f0f0f\n");
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=0"), -EINVAL);
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=100000"), -EINVAL);
	assert_schema(r, NULL, "L3:0=00005;1=f0f0f\n");
	rdtalloc_close(r);
}

static void full_64bit_cbm(void **state)
{
	rdtalloc_t *r = tu_eph(M2V ";l3.cbm_len=64");

	assert_schema(r, NULL, "L3:0=ffffffffffffffff;1=ffffffffffffffff\n");
	assert_ok(r, rdtalloc_set_schema(r, NULL, "L3:0=8000000000000000;1=ffffffff00000000"));
	assert_schema(r, NULL, "L3:0=8000000000000000;1=ffffffff00000000\n");
	assert_err(r, rdtalloc_set_schema(r, NULL, "L3:0=10000000000000000"), -EINVAL);
	tu_check_invariants(r);
	rdtalloc_close(r);
}

/* Inputs up to the 64 KiB bound are parsed; one byte more is -E2BIG, unread. */
static void huge_inputs(void **state)
{
	const size_t max = 64 << 10, n = max - 16;
	rdtalloc_t *r = tu_eph(M2V);
	char *text = malloc(max + 64);
	char *before;
	size_t i;

	assert_non_null(text);
	/* 64 KiB of garbage. */
	for (i = 0; i < n; i++)
		text[i] = 'A' + (char)(i * 7 % 26);
	text[n] = '\0';
	before = tu_dump(r, true);
	assert_err(r, rdtalloc_set_schema(r, NULL, text), -EINVAL);
	/* One line repeating a domain: the given-twice error. */
	strcpy(text, "L3:");
	for (i = 3; i + 6 < n; i += 5)
		memcpy(text + i, "0=ff;", 5);
	text[i] = '\0';
	assert_err(r, rdtalloc_set_schema(r, NULL, text), -EINVAL);
	/* One byte past the bound, valid or not: refused before it is parsed. */
	memset(text, ' ', max + 1);
	memcpy(text + max / 2, "L3:0=ff", 7);
	text[max + 1] = '\0';
	assert_err(r, rdtalloc_set_schema(r, NULL, text), -E2BIG);
	tu_msg_has(rdtalloc_errmsg(r), "schema text is longer than 65536 bytes (64 KiB)");
	assert_unchanged(r, before, true);
	/* A valid line inside 64 KiB of spaces. */
	memset(text, ' ', n);
	memcpy(text + n / 2, "L3:0=ff", 7);
	text[n] = '\0';
	assert_ok(r, rdtalloc_set_schema(r, NULL, text));
	assert_schema(r, NULL, "L3:0=000ff;1=fffff\n");
	free(text);
	rdtalloc_close(r);
}

static void l2_resource(void **state)
{
	rdtalloc_t *r = tu_eph(ML2);
	struct rdtalloc_resource_info l2;
	unsigned int ids[4];
	int cpus[4];

	assert_int_equal(rdtalloc_resource_count(r), 2);
	l2 = tu_res(r, 1);
	assert_string_equal(tu_res(r, 0).name, "L3");
	assert_string_equal(l2.name, "L2");
	assert_int_equal(l2.hw_closids, 8);
	assert_int_equal(l2.cbm_len, 8);
	assert_int_equal(l2.num_domains, 2);
	assert_int_equal(rdtalloc_domains(r, "L2", ids, 4), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 1);
	assert_int_equal(rdtalloc_domain_cpus(r, "L2", 1, cpus, 4), 2);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[1], 3);

	assert_schema(r, NULL, "L3:0=fffff\nL2:0=ff;1=ff\n");
	assert_ok(r, rdtalloc_group_create(r, "g"));
	assert_ok(r, rdtalloc_set_schema(r, "g", "L2:1=f"));
	assert_schema(r, "g", "L3:0=fffff\nL2:0=ff;1=0f\n");
	assert_ok(r, rdtalloc_set_schema(r, "g", "L3:0=3ff\nL2:0=3"));
	assert_schema(r, "g", "L3:0=003ff\nL2:0=03;1=0f\n");
	assert_schema(r, NULL, "L3:0=fffff\nL2:0=ff;1=ff\n");
	assert_err(r, rdtalloc_set_schema(r, "g", "L2:2=f"), -EINVAL);
	assert_errmsg_has(r, "L2 cache id 2 does not exist (have 0,1)");
	assert_err(r, rdtalloc_set_schema(r, "g", "L2:0=100"), -EINVAL);
	assert_err(r, rdtalloc_set_schema(r, "g", "L3:0=ff\nL2:0=5"), -EINVAL);
	assert_errmsg_has(r, "L2 cache id 0: mask 0x5 is not contiguous");
	assert_schema(r, "g", "L3:0=003ff\nL2:0=03;1=0f\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

static void schema_per_group(void **state)
{
	rdtalloc_t *r = tu_eph(M2V);

	assert_ok(r, rdtalloc_group_create(r, "a"));
	assert_ok(r, rdtalloc_group_create(r, "b"));
	assert_ok(r, rdtalloc_set_schema(r, "a", "L3:0=f"));
	assert_ok(r, rdtalloc_set_schema(r, "b", "L3:1=f00"));
	assert_schema(r, "a", "L3:0=0000f;1=fffff\n");
	assert_schema(r, "b", "L3:0=fffff;1=00f00\n");
	assert_schema(r, NULL, "L3:0=fffff;1=fffff\n");
	tu_check_invariants(r);
	rdtalloc_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_schema_text),
		cmocka_unit_test(zero_padded_to_cbm_width),
		cmocka_unit_test(partial_updates_keep_other_domains),
		cmocka_unit_test(accepted_spellings),
		cmocka_unit_test(bad_masks),
		cmocka_unit_test(bad_text),
		cmocka_unit_test(null_schema_rejected),
		cmocka_unit_test(min_cbm_bits),
		cmocka_unit_test(sparse_masks),
		cmocka_unit_test(full_64bit_cbm),
		cmocka_unit_test(huge_inputs),
		cmocka_unit_test(l2_resource),
		cmocka_unit_test(schema_per_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
