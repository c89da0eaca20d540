// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * detect/dump: the reader of `cpuid -r` text (Debian's cpuid tool) into raw
 * leaves, so that decoding can be tested on recordings of real processors.
 * Lenient with blanks, comments and headers, strict with everything else:
 * a byte that is no text (a control byte other than tab, CR, LF) is refused
 * as soon as it is read, naming the line and the offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detect.h"

/*
 * A full `cpuid -r` is about 7 KiB a CPU, 28 MiB for RDT_MAX_CPUS (4096);
 * anything beyond 64 MiB is not a dump. A regular file is refused on its
 * size before it is read; a pipe or a device is read as it comes and
 * stopped at the bound, holding one line at a time, never the whole input.
 */
#define DUMP_MAX_BYTES (64u << 20)
/* A line of `cpuid -r` is some 80 bytes; a line past this is no line of one. */
#define DUMP_LINE_MAX 4096
/* What a stream is read in. */
#define DUMP_CHUNK 65536

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

/* Where a reader is in its input, and what it kept. */
struct reader {
	const char *name;
	struct rdt_cpuid_dump *d;
	char *err;
	size_t errlen;
	unsigned int line;		/* lines taken so far */
	unsigned int headers;
	bool keep;			/* still in the first CPU */
	bool leaves;			/* leaves before any header: the first CPU */
};

static int failf(const struct reader *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(const struct reader *r, int ret, const char *fmt, ...)
{
	va_list ap;

	if (r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Tab, CR, LF and the printable bytes (UTF-8 in a comment too) are text. */
static bool is_text(unsigned char c)
{
	return c >= 0x20 ? c != 0x7f : c == '\t' || c == '\r' || c == '\n';
}

/*
 * Refuse the first byte of [p, end) that is no text; off is the offset of
 * p in the input, line the 1-based line it is on.
 */
static int check_bytes(const struct reader *r, const char *p, const char *end, size_t off,
		       unsigned int line)
{
	for (const char *q = p; q < end; q++) {
		if (!is_text((unsigned char)*q))
			return failf(r, -EINVAL, "cpuid dump %s line %u: byte 0x%02x at offset %zu "
				     "is not text (give the output of `cpuid -r`)", r->name, line,
				     (unsigned char)*q, off + (size_t)(q - p));
	}
	return 0;
}

static int line_too_long(const struct reader *r, unsigned int line)
{
	return failf(r, -EINVAL, "cpuid dump %s line %u is longer than %u bytes, the most a "
		     "line may be: it is no line of `cpuid -r`", r->name, line, DUMP_LINE_MAX);
}

/* One line [p, end) without its '\n', at offset off of the input. */
static int take_line(struct reader *r, const char *p, const char *end, size_t off)
{
	const char *s = skip_blanks(p, end);
	uint32_t leaf, sub, regs[4];
	int ret;

	r->line++;
	if (end - p > DUMP_LINE_MAX)
		return line_too_long(r, r->line);
	ret = check_bytes(r, p, end, off, r->line);
	if (ret)
		return ret;
	if (s == end || *s == '#' || literal(&s, end, "Disclaimer:")) {
		/* blank, comment, or the tool's own remark */
	} else if (cpu_header(s, end)) {
		if (r->headers++ || r->leaves)
			r->keep = false;	/* a second CPU: its leaves are not ours */
	} else if (leaf_line(s, end, &leaf, &sub, regs)) {
		r->leaves = true;
		if (r->keep) {
			ret = rdt_cpuid_add(r->d, leaf, sub, regs);
			if (ret == -EEXIST)
				return failf(r, -EINVAL, "cpuid dump %s line %u: leaf 0x%08x "
					     "subleaf 0x%02x given twice", r->name, r->line, leaf, sub);
			if (ret)
				return failf(r, -EINVAL, "cpuid dump %s line %u: more than %u "
					     "leaves for one CPU", r->name, r->line,
					     RDT_CPUID_MAX_LEAVES);
		}
	} else {
		int n = (int)(end - s);

		if (n && s[n - 1] == '\r')
			n--;
		return failf(r, -EINVAL, "cpuid dump %s line %u: cannot parse '%.*s%s' "
			     "(expected '0xLEAF 0xSUB: eax=0x... ebx=0x... ecx=0x... edx=0x...')",
			     r->name, r->line, n > 48 ? 48 : n, s, n > 48 ? "..." : "");
	}
	return 0;
}

static int dump_finish(const struct reader *r)
{
	if (!r->d->n)
		return failf(r, -EINVAL, "cpuid dump %s: no CPUID leaves in it (is it the output "
			     "of `cpuid -r`?)", r->name);
	return 0;
}

static int too_big(const struct reader *r)
{
	return failf(r, -E2BIG, "cpuid dump %s is larger than %u MiB, the most a dump may be "
		     "(`cpuid -r` is about 7 KiB a CPU): give the dump of one machine",
		     r->name, DUMP_MAX_BYTES >> 20);
}

int rdt_cpuid_read_text(const char *text, const char *name, struct rdt_cpuid_dump *d,
			char *err, size_t errlen)
{
	struct reader r = { .name = name, .d = d, .err = err, .errlen = errlen, .keep = true };
	size_t len;
	const char *p = text, *end;

	d->n = 0;
	if (errlen)
		err[0] = '\0';
	len = strnlen(text, DUMP_MAX_BYTES + 1);
	if (len > DUMP_MAX_BYTES)
		return too_big(&r);
	end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		int ret = take_line(&r, p, e, (size_t)(p - text));

		if (ret)
			return ret;
		p = nl ? nl + 1 : end;
	}
	return dump_finish(&r);
}

/*
 * Read fd as it comes (a file, a pipe, <(cpuid -r), a device), a line at a
 * time: bytes are checked as they arrive, a line is taken when its '\n'
 * (or the end) is seen, and reading stops at DUMP_MAX_BYTES.
 */
static int read_stream(struct reader *r, int fd)
{
	char *line = malloc(DUMP_LINE_MAX + 1), *chunk = malloc(DUMP_CHUNK);
	size_t have = 0, total = 0, line_off = 0;
	int ret = 0;

	if (!line || !chunk) {
		ret = failf(r, -ENOMEM, "cpuid dump %s: out of memory", r->name);
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, DUMP_CHUNK);
		const char *p, *end;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			ret = failf(r, -e, "cpuid dump %s: %s", r->name, strerror(e));
			goto out;
		}
		if (!n)
			break;
		for (p = chunk, end = chunk + n; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *e = nl ? nl : end;
			size_t seg = (size_t)(e - p);

			/* in input order: a bad byte within the line's room, else its length */
			ret = check_bytes(r, p, have + seg > DUMP_LINE_MAX ? p + (DUMP_LINE_MAX - have)
					  : e, total + (size_t)(p - chunk), r->line + 1);
			if (!ret && have + seg > DUMP_LINE_MAX)
				ret = line_too_long(r, r->line + 1);
			if (ret)
				goto out;
			memcpy(line + have, p, seg);
			have += seg;
			p = e;
			if (nl) {
				ret = take_line(r, line, line + have, line_off);
				if (ret)
					goto out;
				p = nl + 1;
				line_off = total + (size_t)(p - chunk);
				have = 0;
			}
		}
		total += (size_t)n;
		if (total > DUMP_MAX_BYTES) {
			ret = too_big(r);
			goto out;
		}
	}
	if (have)
		ret = take_line(r, line, line + have, line_off);
	if (!ret)
		ret = dump_finish(r);
out:
	free(line);
	free(chunk);
	return ret;
}

int rdt_cpuid_read_file(const char *path, struct rdt_cpuid_dump *d, char *err, size_t errlen)
{
	struct reader r = { .name = path, .d = d, .err = err, .errlen = errlen, .keep = true };
	struct stat sb;
	int fd, ret;

	if (errlen)
		err[0] = '\0';
	d->n = 0;
	/* non-blocking until its type is known: a FIFO without a writer would hang */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		return failf(&r, -e, "cpuid dump %s: %s", path, strerror(e));
	}
	if (fstat(fd, &sb)) {
		ret = failf(&r, -errno, "cpuid dump %s: %s", path, strerror(errno));
	} else if (!S_ISREG(sb.st_mode)) {
		/* a directory was -EISDIR before the type was checked: it stays so */
		ret = failf(&r, S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL,
			    "cpuid dump %s is %s, not a regular file", path,
			    S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ?
			    "a FIFO (named pipe)" : S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
	} else if ((uint64_t)sb.st_size > DUMP_MAX_BYTES) {
		/* a file too big is refused before a byte of it is read */
		ret = too_big(&r);
	} else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		ret = failf(&r, -errno, "cpuid dump %s: %s", path, strerror(errno));
	} else {
		ret = read_stream(&r, fd);
	}
	close(fd);
	return ret;
}
