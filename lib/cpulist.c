// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpulist: the text form of CPU sets ("0-3,8,10-11"), both ways. Owns the
 * internal rdt_cpulist_parse/_format (lib/config.h) and the public
 * rdtalloc_parse_cpulist/_format_cpulist. Knows nothing of machines: whether
 * a CPU exists is for the core to say.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "config.h"
#include "errors.h"
#include "machine.h"

/*
 * The longest CPU list text read, in bytes. Every CPU below RDT_MAX_CPUS
 * listed one by one with a blank after each comma ("0, 1, 2, ..., 4095")
 * is 23 KiB; a list is linear to parse, but text past this is no CPU list
 * a person or a script means, and it is never measured further (strnlen).
 */
#define CPULIST_TEXT_MAX (64u << 10)
/* Most of the list quoted in a message, in bytes. */
#define CPULIST_QUOTE 47

/* A parsed list is a bitmap: ascending order and merged duplicates for free. */
#define CPU_WORDS ((RDT_MAX_CPUS + 63) / 64)
#define STR_(x) #x
#define STR(x) STR_(x)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

/*
 * Read a decimal CPU number at *p (no sign), advancing *p past its digits.
 * Returns the number, -1 when there is no digit, -2 when it is not below
 * RDT_MAX_CPUS (however many digits: no overflow).
 */
static long read_cpu(const char **p, const char *end)
{
	const char *s = *p;
	long v = 0;

	if (s >= end || !is_digit(*s))
		return -1;
	for (; s < end && is_digit(*s); s++) {
		if (v < RDT_MAX_CPUS)
			v = v * 10 + (*s - '0');
	}
	*p = s;
	return v < RDT_MAX_CPUS ? v : -2;
}

/* Copy the token [start, end) without surrounding blanks, for messages. */
static void token_text(const char *start, const char *end, char *out, size_t outlen)
{
	size_t n;

	start = skip_blanks(start, end);
	while (end > start && is_blank(end[-1]))
		end--;
	n = (size_t)(end - start);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, start, n);
	out[n] = '\0';
}

/* Set bits a..b (inclusive) a word at a time, so that long ranges cost little. */
static void set_range(uint64_t *bits, long a, long b)
{
	long wa = a / 64, wb = b / 64;
	uint64_t lo = ~0ULL << (a % 64);
	uint64_t hi = ~0ULL >> (63 - b % 64);

	if (wa == wb) {
		bits[wa] |= lo & hi;
		return;
	}
	bits[wa] |= lo;
	for (long w = wa + 1; w < wb; w++)
		bits[w] = ~0ULL;
	bits[wb] |= hi;
}

/*
 * Parse one comma-separated token [start, end) ("8", "10-11", " 2 - 3 ")
 * into the bitmap. Returns 0 or -EINVAL with err naming the token.
 */
static int parse_token(const char *start, const char *end, uint64_t *bits,
		       char *err, size_t errlen)
{
	const char *p = skip_blanks(start, end);
	const char *why = NULL;
	char tok[48];
	long a, b;

	a = read_cpu(&p, end);
	p = skip_blanks(p, end);
	b = a;
	if (a != -1 && p < end && *p == '-') {
		p = skip_blanks(p + 1, end);
		b = read_cpu(&p, end);
		p = skip_blanks(p, end);
	}
	if (a == -1 || b == -1 || p != end)
		why = "not a CPU number or a range a-b";
	else if (a == -2 || b == -2)
		why = "CPU numbers must be below " STR(RDT_MAX_CPUS);
	else if (a > b)
		why = "range is reversed";
	if (why) {
		token_text(start, end, tok, sizeof(tok));
		snprintf(err, errlen, "CPU list '%s': %s", tok, why);
		return -EINVAL;
	}
	set_range(bits, a, b);
	return 0;
}

/*
 * Parse s into a bitmap of RDT_MAX_CPUS bits. Returns the number of CPUs,
 * -E2BIG when s is longer than CPULIST_TEXT_MAX (checked before a byte is
 * parsed), or -EINVAL. Linear in the length of s.
 */
static int parse_bits(const char *s, uint64_t *bits, char *err, size_t errlen)
{
	size_t len = strnlen(s, CPULIST_TEXT_MAX + 1);
	const char *end = s + len;
	const char *tok = s;
	int n = 0;

	memset(bits, 0, CPU_WORDS * sizeof(*bits));
	if (len > CPULIST_TEXT_MAX) {
		snprintf(err, errlen, "CPU list '%.*s...' is longer than %u bytes (%u KiB), the "
			 "most a CPU list may be: give runs of CPUs as ranges (0-%d)",
			 CPULIST_QUOTE, s, CPULIST_TEXT_MAX, CPULIST_TEXT_MAX >> 10,
			 RDT_MAX_CPUS - 1);
		return -E2BIG;
	}
	if (skip_blanks(s, end) == end)
		return 0;		/* "" and "  ": no CPU */
	for (;;) {
		const char *comma = memchr(tok, ',', (size_t)(end - tok));
		const char *tok_end = comma ? comma : end;
		int ret;

		if (skip_blanks(tok, tok_end) == tok_end) {
			snprintf(err, errlen, "CPU list '%.*s%s': empty entry", CPULIST_QUOTE, s,
				 len > CPULIST_QUOTE ? "..." : "");
			return -EINVAL;
		}
		ret = parse_token(tok, tok_end, bits, err, errlen);
		if (ret)
			return ret;
		if (!comma)
			break;
		tok = comma + 1;
	}
	for (unsigned int w = 0; w < CPU_WORDS; w++)
		n += __builtin_popcountll(bits[w]);
	return n;
}

/* Write the set bits of the bitmap, ascending, into cpus (up to max). */
static void bits_to_array(const uint64_t *bits, int *cpus, size_t max)
{
	size_t i = 0;

	for (unsigned int w = 0; w < CPU_WORDS && i < max; w++) {
		uint64_t word = bits[w];

		while (word && i < max) {
			cpus[i++] = (int)(w * 64 + (unsigned int)__builtin_ctzll(word));
			word &= word - 1;
		}
	}
}

int rdt_cpulist_parse(const char *s, int **cpus, unsigned int *n, char *err, size_t errlen)
{
	uint64_t bits[CPU_WORDS];
	int count;

	*cpus = NULL;
	*n = 0;
	if (!s) {
		snprintf(err, errlen, "CPU list is missing");
		return -EINVAL;
	}
	count = parse_bits(s, bits, err, errlen);
	if (count < 0)
		return count;
	if (count == 0)
		return 0;
	*cpus = malloc((size_t)count * sizeof(**cpus));
	if (!*cpus) {
		snprintf(err, errlen, "out of memory for a CPU list of %d CPUs", count);
		return -ENOMEM;
	}
	bits_to_array(bits, *cpus, (size_t)count);
	*n = (unsigned int)count;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool ascending(const int *cpus, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (cpus[i] < cpus[i - 1])
			return false;
	}
	return true;
}

/* Append to buf like snprintf, keeping the full length in *pos. */
static void put(char *buf, size_t len, size_t *pos, const char *fmt, int a, int b)
{
	int w;

	if (*pos < len)
		w = snprintf(buf + *pos, len - *pos, fmt, a, b);
	else
		w = snprintf(NULL, 0, fmt, a, b);
	*pos += (size_t)w;
}

/* Format sorted CPUs, merging runs and duplicates. */
static size_t format_sorted(const int *c, size_t n, char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;

		/* extend the run over duplicates and consecutive numbers */
		while (j + 1 < n && (c[j + 1] == c[j] || c[j + 1] == c[j] + 1))
			j++;
		if (c[j] == c[i])
			put(buf, len, &pos, i ? ",%d" : "%d", c[i], 0);
		else
			put(buf, len, &pos, i ? ",%d-%d" : "%d-%d", c[i], c[j]);
		i = j + 1;
	}
	return pos;
}

int rdt_cpulist_format(const int *cpus, size_t n, char *buf, size_t len)
{
	int *sorted = NULL;
	size_t out;

	for (size_t i = 0; i < n; i++) {
		if (cpus[i] < 0)
			return -EINVAL;
	}
	if (ascending(cpus, n)) {
		out = format_sorted(cpus, n, buf, len);
	} else {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, cpus, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_int);
		out = format_sorted(sorted, n, buf, len);
		free(sorted);
	}
	if (out > INT_MAX)
		return -ERANGE;
	return (int)out;
}

RDTALLOC_API int rdtalloc_parse_cpulist(const char *s, int *cpus, size_t max)
{
	uint64_t bits[CPU_WORDS];
	char err[RDT_ERRMSG_MAX];
	int count;

	rdt_clear_err(NULL);
	if (!s)
		return rdt_fail(NULL, -EINVAL, "CPU list is missing");
	if (max && !cpus)
		return rdt_fail(NULL, -EINVAL, "CPU list: no array for %zu CPUs", max);
	count = parse_bits(s, bits, err, sizeof(err));
	if (count < 0)
		return rdt_fail(NULL, count, "%s", err);
	bits_to_array(bits, cpus, max);
	return count;
}

RDTALLOC_API int rdtalloc_format_cpulist(const int *cpus, size_t n, char *buf, size_t len)
{
	int ret;

	rdt_clear_err(NULL);
	if ((n && !cpus) || (len && !buf))
		return rdt_fail(NULL, -EINVAL, "CPU list: NULL array or buffer");
	ret = rdt_cpulist_format(cpus, n, buf, len);
	if (ret == -EINVAL) {
		for (size_t i = 0; i < n; i++) {
			if (cpus[i] < 0)
				return rdt_fail(NULL, ret, "CPU list: CPU %d is negative", cpus[i]);
		}
	}
	if (ret < 0)
		return rdt_fail(NULL, ret, "CPU list: cannot format %zu CPUs", n);
	return ret;
}
