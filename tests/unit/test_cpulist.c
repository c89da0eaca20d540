// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_cpulist: lib/cpulist.c - parsing and formatting CPU lists, through the
 * internal rdt_cpulist_* and the public rdtalloc_parse/format_cpulist, with
 * every error message exact.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "machine.h"

/* Parse s with the internal call; fail the test unless it succeeds with want[]. */
static void expect_list(const char *s, const int *want, unsigned int nwant)
{
	char err[256] = "";
	unsigned int n = 99;
	int *cpus = (int *)&n;	/* must be overwritten */

	assert_int_equal(rdt_cpulist_parse(s, &cpus, &n, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(n, nwant);
	if (nwant == 0)
		assert_null(cpus);
	for (unsigned int i = 0; i < nwant; i++)
		assert_int_equal(cpus[i], want[i]);
	free(cpus);
}

/* Parse s expecting -EINVAL and exactly msg, both internally and publicly. */
static void expect_error(const char *s, const char *msg)
{
	char err[256] = "";
	unsigned int n = 99;
	int *cpus = (int *)&n;
	int buf[8] = { -7, -7, -7, -7, -7, -7, -7, -7 };

	assert_int_equal(rdt_cpulist_parse(s, &cpus, &n, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
	assert_null(cpus);
	assert_int_equal(n, 0);

	assert_int_equal(rdtalloc_parse_cpulist(s, buf, 8), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	for (int i = 0; i < 8; i++)
		assert_int_equal(buf[i], -7);	/* nothing written on failure */
}

static void test_parse_basic(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 8, 10, 11 };
	static const int b[] = { 5 };
	static const int c[] = { 0, 4095 };

	expect_list("0-3,8,10-11", a, 7);
	expect_list("5", b, 1);
	expect_list("0,4095", c, 2);
	expect_list("4095-4095", c + 1, 1);
}

static void test_parse_blanks(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 8, 10, 11 };
	static const int b[] = { 7 };

	expect_list(" 0 - 3 , 8,\t10-\t11 ", a, 7);
	expect_list("\t7\t", b, 1);
}

static void test_parse_empty(void **state)
{
	int buf[2] = { -7, -7 };

	expect_list("", NULL, 0);
	expect_list("   ", NULL, 0);
	expect_list("\t \t", NULL, 0);
	assert_int_equal(rdtalloc_parse_cpulist("", buf, 2), 0);
	assert_int_equal(buf[0], -7);
	assert_int_equal(rdtalloc_parse_cpulist("", NULL, 0), 0);
}

static void test_parse_merges_and_sorts(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 8 };
	static const int b[] = { 1, 2, 3, 4, 5, 6 };

	expect_list("8,0-3,2,3,8,0", a, 5);
	expect_list("3-6,1-4,2", b, 6);
}

static void test_parse_full_range(void **state)
{
	char err[64];
	unsigned int n;
	int *cpus;

	assert_int_equal(rdt_cpulist_parse("0-4095", &cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, RDT_MAX_CPUS);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(cpus[i], (int)i);
	free(cpus);
	/* ranges that start and end inside one 64-bit word, and across words */
	assert_int_equal(rdt_cpulist_parse("62-65,3-4,127-128", &cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 8);
	assert_int_equal(cpus[0], 3);
	assert_int_equal(cpus[1], 4);
	assert_int_equal(cpus[2], 62);
	assert_int_equal(cpus[5], 65);
	assert_int_equal(cpus[6], 127);
	assert_int_equal(cpus[7], 128);
	free(cpus);
}

static void test_parse_errors(void **state)
{
	expect_error("3-1", "CPU list '3-1': range is reversed");
	expect_error("0,7-2,9", "CPU list '7-2': range is reversed");
	expect_error("4096", "CPU list '4096': CPU numbers must be below 4096");
	expect_error("0-4096", "CPU list '0-4096': CPU numbers must be below 4096");
	expect_error("99999999999999999999999",
		     "CPU list '99999999999999999999999': CPU numbers must be below 4096");
	expect_error("0,,1", "CPU list '0,,1': empty entry");
	expect_error("0,", "CPU list '0,': empty entry");
	expect_error(",0", "CPU list ',0': empty entry");
	expect_error("1, ,2", "CPU list '1, ,2': empty entry");
	expect_error(",", "CPU list ',': empty entry");
	expect_error("a", "CPU list 'a': not a CPU number or a range a-b");
	expect_error("1,x-3", "CPU list 'x-3': not a CPU number or a range a-b");
	expect_error("1-", "CPU list '1-': not a CPU number or a range a-b");
	expect_error("-1", "CPU list '-1': not a CPU number or a range a-b");
	expect_error("1-2-3", "CPU list '1-2-3': not a CPU number or a range a-b");
	expect_error("0x3", "CPU list '0x3': not a CPU number or a range a-b");
	expect_error("+1", "CPU list '+1': not a CPU number or a range a-b");
	expect_error("1 2", "CPU list '1 2': not a CPU number or a range a-b");
	expect_error("0;1", "CPU list '0;1': not a CPU number or a range a-b");
	expect_error(" 2 , 5\x01 ", "CPU list '5\x01': not a CPU number or a range a-b");
}

static void test_parse_public_max(void **state)
{
	int buf[3] = { -7, -7, -7 };

	/* the count may exceed max; only max entries are written */
	assert_int_equal(rdtalloc_parse_cpulist("9,0-3", buf, 2), 5);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 1);
	assert_int_equal(buf[2], -7);
	assert_int_equal(rdtalloc_parse_cpulist("0-3", NULL, 0), 4);
}

static void test_parse_public_errmsg(void **state)
{
	int buf[4];

	assert_int_equal(rdtalloc_parse_cpulist("3-1", buf, 4), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "CPU list '3-1': range is reversed");
	/* a success forgets the last failure */
	assert_int_equal(rdtalloc_parse_cpulist("1", buf, 4), 1);
	assert_string_equal(rdtalloc_errmsg(NULL), "");
	assert_int_equal(rdtalloc_parse_cpulist(NULL, buf, 4), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "CPU list is missing");
	assert_int_equal(rdtalloc_parse_cpulist("1", NULL, 4), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "CPU list: no array for 4 CPUs");
}

static void expect_format(const int *cpus, size_t n, const char *want)
{
	char buf[256];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rdt_cpulist_format(cpus, n, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rdtalloc_format_cpulist(cpus, n, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(rdtalloc_format_cpulist(cpus, n, NULL, 0), (int)strlen(want));
}

static void test_format(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 8 };
	static const int b[] = { 8, 3, 2, 1, 0 };
	static const int c[] = { 1, 1, 2, 2, 3 };
	static const int d[] = { 0, 2, 4 };
	static const int e[] = { 5 };
	static const int f[] = { 3, 3 };
	static const int g[] = { 11, 10, 0, 8, 3, 1, 2 };
	static const int h[] = { 4095, 0, 4094 };

	expect_format(a, 5, "0-3,8");
	expect_format(b, 5, "0-3,8");
	expect_format(c, 5, "1-3");
	expect_format(d, 3, "0,2,4");
	expect_format(e, 1, "5");
	expect_format(f, 2, "3");
	expect_format(g, 7, "0-3,8,10-11");
	expect_format(h, 3, "0,4094-4095");
	expect_format(NULL, 0, "");
	/* not limited to RDT_MAX_CPUS: formatting is pure text */
	expect_format((const int[]){ 100000, 100001 }, 2, "100000-100001");
}

static void test_format_truncates_like_snprintf(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 8, 10, 11 };
	char buf[6];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rdtalloc_format_cpulist(a, 7, buf, sizeof(buf)), 11);
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(rdtalloc_format_cpulist(a, 7, buf, 1), 11);
	assert_string_equal(buf, "");
}

static void test_format_errors(void **state)
{
	static const int a[] = { 2, -1 };
	char buf[16];

	assert_int_equal(rdt_cpulist_format(a, 2, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rdtalloc_format_cpulist(a, 2, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "CPU list: CPU -1 is negative");
	assert_int_equal(rdtalloc_format_cpulist(NULL, 2, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(rdtalloc_errmsg(NULL), "CPU list: NULL array or buffer");
	assert_int_equal(rdtalloc_format_cpulist(a, 1, NULL, 4), -EINVAL);
}

/* format(parse(x)) and parse(format(x)) agree on pseudo-random sets. */
static void test_round_trip(void **state)
{
	unsigned int seed = 12345;

	for (int round = 0; round < 200; round++) {
		int set[300], n = 0, out[300];
		char text[2048], err[128];
		int *back;
		unsigned int nb;

		for (int c = 0; c < 300; c++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 3 == 0)
				set[n++] = c;
		}
		assert_in_range(rdtalloc_format_cpulist(set, (size_t)n, text, sizeof(text)),
				0, sizeof(text) - 1);
		assert_int_equal(rdt_cpulist_parse(text, &back, &nb, err, sizeof(err)), 0);
		assert_int_equal(nb, n);
		for (int i = 0; i < n; i++)
			assert_int_equal(back[i], set[i]);
		free(back);
		assert_int_equal(rdtalloc_parse_cpulist(text, out, 300), n);
		assert_memory_equal(out, set, (size_t)n * sizeof(int));
	}
}

/*
 * The CPU time this process used: what a linear bound is about, and unlike
 * the wall clock not stretched by other work on a loaded machine.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The bound on the text of a CPU list (CPULIST_TEXT_MAX in lib/cpulist.c). */
#define TEXT_MAX 65536

/* Lists at the bound parse in linear time: long ranges repeated, and blanks. */
static void test_parse_large(void **state)
{
	size_t len = TEXT_MAX - 5;	/* len % 7 == 4: the list ends "0-40,0-4095" */
	char *s = malloc(len + 1);
	char err[128];
	unsigned int n;
	int *cpus;
	double t0;

	assert_non_null(s);
	for (size_t i = 0; i < len; i += 7)
		memcpy(s + i, "0-4095,", len - i < 7 ? len - i : 7);
	memcpy(s + len - 7, ",0-4095", 7);
	s[len] = '\0';
	t0 = now();
	assert_int_equal(rdt_cpulist_parse(s, &cpus, &n, err, sizeof(err)), 0);
	assert_true(now() - t0 < 2.0);
	assert_int_equal(n, RDT_MAX_CPUS);
	free(cpus);

	memset(s, ' ', len);
	s[len / 2] = '7';
	t0 = now();
	assert_int_equal(rdtalloc_parse_cpulist(s, NULL, 0), 1);
	assert_true(now() - t0 < 2.0);
	free(s);
}

/* Parse s expecting -E2BIG and exactly msg, internally and publicly, nothing written. */
static void expect_too_long(const char *s, const char *msg)
{
	char err[512] = "";
	unsigned int n = 99;
	int *cpus = (int *)&n;
	int buf[8] = { -7, -7, -7, -7, -7, -7, -7, -7 };

	assert_int_equal(rdt_cpulist_parse(s, &cpus, &n, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, msg);
	assert_null(cpus);
	assert_int_equal(n, 0);
	assert_int_equal(rdtalloc_parse_cpulist(s, buf, 8), -E2BIG);
	assert_string_equal(rdtalloc_errmsg(NULL), msg);
	for (int i = 0; i < 8; i++)
		assert_int_equal(buf[i], -7);
	assert_int_equal(rdtalloc_parse_cpulist(s, NULL, 0), -E2BIG);
}

/*
 * Past the bound a list is refused before it is parsed, even a valid one,
 * and never read past it (the text ends at an unreadable page, no NUL).
 * Every CPU listed one by one with blanks is well inside it.
 */
static void test_parse_bound(void **state)
{
	static const char tail[] = "...' is longer than 65536 bytes (64 KiB), the most a CPU list "
				   "may be: give runs of CPUs as ranges (0-4095)";
	long page = sysconf(_SC_PAGESIZE);
	size_t maplen = ((TEXT_MAX + 1 + (size_t)page - 1) / (size_t)page + 1) * (size_t)page;
	char *s = malloc(TEXT_MAX + 2), *map, msg[512], *o;
	unsigned int n;
	int *cpus;

	assert_non_null(s);
	/* "0, 1, 2, ..., 4095": all of them, one by one */
	o = s;
	for (int c = 0; c < RDT_MAX_CPUS; c++)
		o += sprintf(o, c ? ", %d" : "%d", c);
	assert_true(o - s < TEXT_MAX / 2);
	assert_int_equal(rdt_cpulist_parse(s, &cpus, &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, RDT_MAX_CPUS);
	free(cpus);

	/* one byte past the bound: blanks around a valid list */
	memset(s, ' ', TEXT_MAX + 1);
	memcpy(s + 10, "0-3", 3);
	s[TEXT_MAX + 1] = '\0';
	snprintf(msg, sizeof(msg), "CPU list '%.47s%s", s, tail);
	expect_too_long(s, msg);

	/* 100,000 zeros, and the huge range of an unsigned 32-bit number repeated */
	free(s);
	s = malloc(100001);
	assert_non_null(s);
	memset(s, '0', 100000);
	s[100000] = '\0';
	snprintf(msg, sizeof(msg), "CPU list '%.47s%s", s, tail);
	expect_too_long(s, msg);
	for (size_t i = 0; i < 100000; i += 13)
		memcpy(s + i, "0-4294967295,", 100000 - i < 13 ? 100000 - i : 13);
	snprintf(msg, sizeof(msg), "CPU list '%.47s%s", s, tail);
	expect_too_long(s, msg);
	free(s);

	/* bound + 1 bytes, no NUL, an unreadable page right after */
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + maplen - (size_t)page, (size_t)page, PROT_NONE), 0);
	s = map + maplen - (size_t)page - (TEXT_MAX + 1);
	memset(s, '1', TEXT_MAX + 1);
	snprintf(msg, sizeof(msg), "CPU list '%.47s%s", s, tail);
	expect_too_long(s, msg);
	munmap(map, maplen);
}

/* A number of any size is refused without overflow, and a long list's message is cut. */
static void test_parse_huge_numbers(void **state)
{
	char s[200];

	expect_error("0-4294967295", "CPU list '0-4294967295': CPU numbers must be below 4096");
	expect_error("4294967296", "CPU list '4294967296': CPU numbers must be below 4096");
	expect_error("0-18446744073709551616",
		     "CPU list '0-18446744073709551616': CPU numbers must be below 4096");
	expect_error("4095-0", "CPU list '4095-0': range is reversed");
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 60; i++)
		memcpy(s + 2 * i, "1,", 2);
	strcat(s, ",2");
	expect_error(s, "CPU list '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1...': "
		     "empty entry");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_blanks),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_merges_and_sorts),
		cmocka_unit_test(test_parse_full_range),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_public_max),
		cmocka_unit_test(test_parse_public_errmsg),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_truncates_like_snprintf),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_large),
		cmocka_unit_test(test_parse_bound),
		cmocka_unit_test(test_parse_huge_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
