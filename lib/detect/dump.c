// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * detect/dump: the reader of `cpuid -r` text (Debian's cpuid tool) into raw
 * leaves, so that decoding can be tested on recordings of real processors.
 * Lenient with blanks, comments and headers, strict with everything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect.h"

/* A dump of every leaf of 1024 CPUs is a few MiB; anything far beyond is not a dump. */
#define DUMP_MAX_BYTES (64u << 20)

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* "0x" and 1 to 8 hex digits. */
static bool hex32(const char **pp, const char *end, uint32_t *v)
{
	const char *p = *pp;
	uint32_t x = 0;
	int n = 0;

	if (end - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return false;
	for (p += 2; p < end; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n == 8)
			return false;
		x = x << 4 | (uint32_t)d;
	}
	if (!n)
		return false;
	*v = x;
	*pp = p;
	return true;
}

static bool literal(const char **pp, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *pp) < n || memcmp(*pp, lit, n))
		return false;
	*pp += n;
	return true;
}

/* "   0x00000010 0x01: eax=0x0000000a ebx=0x00000600 ecx=0x00000004 edx=0x0000000f" */
static bool leaf_line(const char *p, const char *end, uint32_t *leaf, uint32_t *sub,
		      uint32_t regs[4])
{
	static const char *const names[4] = { "eax=", "ebx=", "ecx=", "edx=" };
	const char *q;
	int i;

	p = skip_blanks(p, end);
	if (!hex32(&p, end, leaf))
		return false;
	q = skip_blanks(p, end);
	if (q == p || !hex32(&q, end, sub) || !literal(&q, end, ":"))
		return false;
	for (i = 0; i < 4; i++) {
		p = skip_blanks(q, end);
		if ((i && p == q) || !literal(&p, end, names[i]) || !hex32(&p, end, &regs[i]))
			return false;
		q = p;
	}
	return skip_blanks(q, end) == end;
}

/* "CPU:" (cpuid -1) or "CPU 12:" */
static bool cpu_header(const char *p, const char *end)
{
	const char *q;

	if (!literal(&p, end, "CPU"))
		return false;
	p = skip_blanks(p, end);
	for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
		;
	return literal(&q, end, ":") && skip_blanks(q, end) == end;
}

int rdt_cpuid_read_text(const char *text, const char *name, struct rdt_cpuid_dump *d,
			char *err, size_t errlen)
{
	const char *p = text;
	unsigned int line = 0, headers = 0;
	bool keep = true, leaves = false;	/* leaves before any header: the first CPU */

	d->n = 0;
	if (errlen)
		err[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *s = skip_blanks(p, end);
		uint32_t leaf, sub, regs[4];

		line++;
		if (s == end || *s == '#' || literal(&s, end, "Disclaimer:")) {
			/* blank, comment, or the tool's own remark */
		} else if (cpu_header(s, end)) {
			if (headers++ || leaves)
				keep = false;	/* a second CPU: its leaves are not ours */
		} else if (leaf_line(s, end, &leaf, &sub, regs)) {
			leaves = true;
			if (keep) {
				int ret = rdt_cpuid_add(d, leaf, sub, regs);

				if (ret == -EEXIST) {
					snprintf(err, errlen, "cpuid dump %s line %u: leaf 0x%08x "
						 "subleaf 0x%02x given twice", name, line, leaf, sub);
					return -EINVAL;
				}
				if (ret) {
					snprintf(err, errlen, "cpuid dump %s line %u: more than %u "
						 "leaves for one CPU", name, line, RDT_CPUID_MAX_LEAVES);
					return -EINVAL;
				}
			}
		} else {
			int n = (int)(end - s);

			if (n && s[n - 1] == '\r')
				n--;
			snprintf(err, errlen, "cpuid dump %s line %u: cannot parse '%.*s%s' "
				 "(expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')",
				 name, line, n > 48 ? 48 : n, s, n > 48 ? "..." : "");
			return -EINVAL;
		}
		p = nl ? nl + 1 : end;
	}
	if (!d->n) {
		snprintf(err, errlen, "cpuid dump %s: no CPUID leaves in it (is it the output of "
			 "`cpuid -r`?)", name);
		return -EINVAL;
	}
	return 0;
}

/* The whole file; pipes and process substitutions (<(cpuid -r)) work too. */
static int read_all(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
	size_t got = 0, cap = 0;
	char *buf = NULL;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (cap - got < 4096 + 1) {
			char *q;

			if (cap >= DUMP_MAX_BYTES) {
				snprintf(err, errlen, "cpuid dump %s: larger than %u MiB: not a "
					 "CPUID dump", path, DUMP_MAX_BYTES >> 20);
				free(buf);
				close(fd);
				return -EINVAL;
			}
			cap = cap ? cap * 2 : 65536;
			q = realloc(buf, cap);
			if (!q) {
				ret = -ENOMEM;
				goto fail;
			}
			buf = q;
		}
		n = read(fd, buf + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto fail;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	*out = buf;
	*len = got;
	return 0;
fail:
	snprintf(err, errlen, "cpuid dump %s: %s", path, strerror(-ret));
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

int rdt_cpuid_read_file(const char *path, struct rdt_cpuid_dump *d, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (errlen)
		err[0] = '\0';
	d->n = 0;
	ret = read_all(path, &text, &len, err, errlen);
	if (ret)
		return ret;
	if (strlen(text) != len) {
		snprintf(err, errlen, "cpuid dump %s: NUL byte at offset %zu: not a text dump",
			 path, strlen(text));
		free(text);
		return -EINVAL;
	}
	ret = rdt_cpuid_read_text(text, path, d, err, errlen);
	free(text);
	return ret;
}
