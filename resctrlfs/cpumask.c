// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpumask: the kernel's text forms that resctrl files use - "%*pb" hex
 * bitmaps in 32-bit comma groups, "%*pbl" CPU lists, and the parsers behind
 * cpumask_parse()/cpulist_parse() and kstrtoul() - plus the output buffer.
 * The rules (what separates chunks, which errno each mistake gets) are the
 * kernel's lib/bitmap-str.c and lib/kstrtox.c, re-implemented here so that
 * a program sees the same errors it would see on real resctrl.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs.h"

static void buf_reserve(struct rfs_buf *b, size_t more)
{
	size_t cap;
	char *s;

	if (b->err || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->err = -ENOMEM;
		return;
	}
	b->s = s;
	b->cap = cap;
}

void rfs_buf_printf(struct rfs_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = -EINVAL;
		return;
	}
	buf_reserve(b, (size_t)n);
	if (b->err)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rfs_buf_putc(struct rfs_buf *b, char c)
{
	buf_reserve(b, 1);
	if (b->err)
		return;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void rfs_buf_free(struct rfs_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

/*
 * The kernel's isspace (lib/ctype.c): the C locale's blanks and also 0xa0,
 * which its Latin-1 table marks as a space. strim() trims with it.
 */
bool rfs_isspace(char c)
{
	return isspace((unsigned char)c) || (unsigned char)c == 0xa0;
}

char *rfs_strim(char *s)
{
	size_t n;

	while (rfs_isspace(*s))
		s++;
	n = strlen(s);
	while (n && rfs_isspace(s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 99;
}

/*
 * kstrtoull(): an optional '+', base 0 guesses 0x/0 prefixes, base 16 takes
 * an optional 0x; at least one digit; one trailing newline is allowed and
 * nothing else. -ERANGE on overflow, -EINVAL otherwise.
 */
int rfs_kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v = 0;
	const char *p;
	int d;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    digit_val(s[2]) < 16)
			base = 16, s += 2;
		else if (s[0] == '0')
			base = 8;
		else
			base = 10;
	} else if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x') {
		s += 2;
	}
	for (p = s; (d = digit_val(*p)) < (int)base; p++) {
		if (v > (ULLONG_MAX - (unsigned int)d) / base)
			return -ERANGE;
		v = v * base + (unsigned int)d;
	}
	if (p == s)
		return -EINVAL;
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*res = v;
	return 0;
}

int rfs_kstrtoint(const char *s, unsigned int base, int *res)
{
	unsigned long long v;
	bool neg = false;
	int ret;

	if (*s == '-') {
		neg = true;
		s++;
	}
	ret = rfs_kstrtoull(s, base, &v);
	if (ret)
		return ret;
	if (neg ? v > (unsigned long long)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*res = neg ? (int)(0 - v) : (int)v;
	return 0;
}

static bool region_sep(char c)
{
	return rfs_isspace(c) || c == ',';
}

static bool str_end(char c)
{
	return c == '\0' || c == '\n';
}

/*
 * cpumask_parse(): hex read from the right in chunks of at most 8 digits,
 * chunks separated by any run of commas and blanks; a ninth digit or a bit
 * beyond nbits is -EOVERFLOW, any other character -EINVAL.
 */
int rfs_bitmap_parse(const char *buf, uint8_t *bits, unsigned int nbits)
{
	const char *end = buf + strcspn(buf, "\n") - 1;
	unsigned int chunk = 0, nchunks = (nbits + 31) / 32;
	int i;

	memset(bits, 0, nbits);
	for (;;) {
		uint32_t val = 0;

		while (end >= buf && region_sep(*end))
			end--;
		if (end < buf)
			return 0;
		if (chunk >= nchunks)
			return -EOVERFLOW;
		for (i = 0; i < 32; i += 4) {
			int c = digit_val(*end--);

			if (c > 15)
				return -EINVAL;
			val |= (uint32_t)c << i;
			if (end < buf || region_sep(*end))
				break;
		}
		if (i == 32 && end >= buf && digit_val(*end) < 16)
			return -EOVERFLOW;
		for (i = 0; i < 32; i++) {
			unsigned int bit = chunk * 32 + (unsigned int)i;

			if (!(val & (1u << i)))
				continue;
			if (bit >= nbits)
				return -EOVERFLOW;
			bits[bit] = 1;
		}
		chunk++;
	}
}

static const char *get_num(const char *s, unsigned int *num, unsigned int last)
{
	unsigned long long v = 0;
	const char *p = s;

	if (*s == 'N') {
		*num = last;
		return s + 1;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned int)(*p - '0');
		if (v > UINT_MAX)
			return NULL;
	}
	if (p == s)
		return NULL;
	*num = (unsigned int)v;
	return p;
}

/* One "a[-b[:used/group]]" of a CPU list; NULL and *ret set on error. */
static const char *parse_region(const char *s, unsigned int nbits, unsigned int r[4], int *ret)
{
	unsigned int last = nbits - 1;
	const char *p;

	*ret = -EINVAL;
	if (!strncasecmp(s, "all", 3)) {
		r[0] = 0;
		r[1] = last;
		s += 3;
	} else {
		p = get_num(s, &r[0], last);
		if (!p)
			return NULL;
		s = p;
		r[1] = r[0];
		if (*s == '-') {
			p = get_num(s + 1, &r[1], last);
			if (!p)
				return NULL;
			s = p;
		} else if (!region_sep(*s) && !str_end(*s)) {
			return NULL;
		}
	}
	r[2] = r[3] = r[1] + 1;
	if (*s == ':') {
		p = get_num(s + 1, &r[2], last);
		if (!p || *p != '/')
			return NULL;
		p = get_num(p + 1, &r[3], last);
		if (!p)
			return NULL;
		s = p;
	} else if (!region_sep(*s) && !str_end(*s)) {
		return NULL;
	}
	if (r[0] > r[1] || r[3] == 0 || r[2] > r[3])
		return NULL;
	if (r[1] >= nbits) {
		*ret = -ERANGE;
		return NULL;
	}
	*ret = 0;
	return s;
}

/* cpulist_parse(): "0-3,8,10-15:2/4,N"; -EINVAL, or -ERANGE past nbits. */
int rfs_bitmap_parselist(const char *buf, uint8_t *bits, unsigned int nbits)
{
	unsigned int r[4], a, i;
	int ret;

	memset(bits, 0, nbits);
	for (;;) {
		while (region_sep(*buf))
			buf++;
		if (str_end(*buf))
			return 0;
		buf = parse_region(buf, nbits, r, &ret);
		if (!buf)
			return ret;
		for (a = r[0]; a <= r[1]; a += r[3])
			for (i = 0; i < r[2] && a + i <= r[1]; i++)
				bits[a + i] = 1;
	}
}

/* "%*pb": 32-bit groups, most significant first, the first padded to its width. */
void rfs_bitmap_print(const uint8_t *bits, unsigned int nbits, struct rfs_buf *b)
{
	unsigned int chunksz = nbits % 32 ? nbits % 32 : 32;
	int i = (int)((nbits + 31) / 32 * 32) - 32;
	bool first = true;

	for (; i >= 0; i -= 32) {
		uint32_t val = 0;
		unsigned int j;

		for (j = 0; j < chunksz; j++)
			if (bits[(unsigned int)i + j])
				val |= 1u << j;
		rfs_buf_printf(b, "%s%0*x", first ? "" : ",", (int)((chunksz + 3) / 4), val);
		first = false;
		chunksz = 32;
	}
}

/* "%*pbl": ascending ranges "0-3,8"; an empty set prints nothing. */
void rfs_bitmap_print_list(const uint8_t *bits, unsigned int nbits, struct rfs_buf *b)
{
	unsigned int a = 0, e;
	bool first = true;

	while (a < nbits) {
		if (!bits[a]) {
			a++;
			continue;
		}
		for (e = a; e + 1 < nbits && bits[e + 1]; e++)
			;
		if (e == a)
			rfs_buf_printf(b, "%s%u", first ? "" : ",", a);
		else
			rfs_buf_printf(b, "%s%u-%u", first ? "" : ",", a, e);
		first = false;
		a = e + 1;
	}
}
