// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace: memory traces, read streaming through a 1 MiB buffer. valgrind's
 * lackey (--trace-mem=yes) writes " L addr,size", " S addr,size",
 * " M addr,size" and "I  addr,size" (hex address, decimal size); an access
 * that crosses a line boundary is one access to each line it touches; a
 * modify is one access (its write hits the line its read brought). Lines
 * valgrind itself prints ("==PID== ...") are skipped. Our binary form is
 * RDT_TRACE_MAGIC, a little-endian u64 count of records, then that many
 * u64 records, each line << 2 | kind.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cache/cache.h"

#define BUF (1u << 20)
#define LINE_MAX_LEN 256		/* a lackey line is ~30 bytes */

struct rdt_trace {
	int fd;
	char *path;
	bool binary, instr;
	uint64_t left;			/* binary: records to come */
	char *buf;
	size_t len, pos;
	bool eof;
	uint64_t lineno;
	uint64_t pending, npending;	/* text: lines of an access left to give */
	enum rdt_acc_kind pkind;
};

static int fill(struct rdt_trace *t)
{
	ssize_t n;

	if (t->pos < t->len)
		memmove(t->buf, t->buf + t->pos, t->len - t->pos);
	t->len -= t->pos;
	t->pos = 0;
	while (!t->eof && t->len < BUF) {
		n = read(t->fd, t->buf + t->len, BUF - t->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			t->eof = true;
		t->len += (size_t)n;
		if (n > 0)
			break;
	}
	return 0;
}

/* A little-endian u64: one load (a byte loop was most of a binary trace's reading). */
static inline uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

int rdt_trace_open(const char *path, bool instr, struct rdt_trace **out, char *err, size_t len)
{
	struct rdt_trace *t = calloc(1, sizeof(*t));
	struct stat sb;
	int ret;

	*out = NULL;
	if (t)
		t->fd = -1;
	if (!t || !(t->buf = malloc(BUF)) || !(t->path = strdup(path))) {
		ret = -ENOMEM;
		snprintf(err, len, "out of memory");
		goto fail;
	}
	t->instr = instr;
	t->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		ret = -errno;
		snprintf(err, len, "trace %s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(t->fd, &sb) || !S_ISREG(sb.st_mode)) {
		ret = -EINVAL;
		snprintf(err, len, "trace %s: not a regular file", path);
		goto fail;
	}
	fcntl(t->fd, F_SETFL, 0);
	ret = fill(t);
	if (ret) {
		snprintf(err, len, "trace %s: %s", path, strerror(-ret));
		goto fail;
	}
	if (t->len >= 8 && !memcmp(t->buf, RDT_TRACE_MAGIC, 8)) {
		if (t->len < 16 || (uint64_t)sb.st_size != 16 + le64((unsigned char *)t->buf + 8) * 8) {
			ret = -EINVAL;
			snprintf(err, len, "trace %s: a binary trace whose size does not match its "
				 "count of records: cut short?", path);
			goto fail;
		}
		t->binary = true;
		t->left = le64((unsigned char *)t->buf + 8);
		t->pos = 16;
	}
	*out = t;
	return 0;
fail:
	rdt_trace_close(t);
	return ret;
}

void rdt_trace_close(struct rdt_trace *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->buf);
	free(t->path);
	free(t);
}

static int next_binary(struct rdt_trace *t, uint64_t *line, enum rdt_acc_kind *kind, char *err,
		       size_t len)
{
	uint64_t v;
	int ret;

	for (;;) {
		if (!t->left)
			return 0;
		if (t->len - t->pos < 8) {
			ret = fill(t);
			if (ret || t->len - t->pos < 8) {
				snprintf(err, len, "trace %s: %s", t->path,
					 ret ? strerror(-ret) : "ends before its last record");
				return ret ? ret : -EINVAL;
			}
		}
		v = le64((unsigned char *)t->buf + t->pos);
		t->pos += 8;
		t->left--;
		*kind = (enum rdt_acc_kind)(v & 3);
		*line = v >> 2;
		if (*kind != RDT_ACC_INSTR || t->instr)
			return 1;
	}
}

/* The first 40 bytes of a line as a message can show them: others as \xNN. */
static void visible(const char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n && i < 40 && o + 5 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

/* One text line (without its newline) into an access; 0: skip it. */
static int parse_line(struct rdt_trace *t, const char *s, size_t n, char *err, size_t len)
{
	char shown[4 * 40 + 8];
	enum rdt_acc_kind k;
	uint64_t addr = 0, size = 0;
	size_t i = 0;
	int digits = 0;

	if (n >= 2 && s[0] == '=' && s[1] == '=')
		return 0;	/* valgrind's own messages */
	if (n >= 3 && s[0] == 'I' && s[1] == ' ' && s[2] == ' ') {
		k = RDT_ACC_INSTR;
		i = 3;
	} else if (n >= 3 && s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') &&
		   s[2] == ' ') {
		k = s[1] == 'L' ? RDT_ACC_LOAD : s[1] == 'S' ? RDT_ACC_STORE : RDT_ACC_MODIFY;
		i = 3;
	} else {
		goto bad;
	}
	for (; i < n && s[i] != ','; i++, digits++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
			s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 :
			s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;

		if (d < 0 || digits >= 16)
			goto bad;
		addr = addr << 4 | (uint64_t)d;
	}
	if (!digits || i >= n || s[i] != ',')
		goto bad;
	for (i++, digits = 0; i < n; i++, digits++) {
		if (s[i] < '0' || s[i] > '9' || digits >= 6)
			goto bad;
		size = size * 10 + (uint64_t)(s[i] - '0');
	}
	if (!digits || !size)
		goto bad;
	/* the last byte past the top of the address space: no access ends there */
	if (addr > UINT64_MAX - (size - 1)) {
		snprintf(err, len, "trace %s line %llu: an access of %llu bytes at 0x%llx runs "
			 "past the end of the address space", t->path,
			 (unsigned long long)t->lineno, (unsigned long long)size,
			 (unsigned long long)addr);
		return -EINVAL;
	}
	if (k == RDT_ACC_INSTR && !t->instr)
		return 0;
	t->pkind = k;
	t->pending = addr / RDT_LINE;
	t->npending = (addr + size - 1) / RDT_LINE - t->pending + 1;
	return 1;
bad:
	visible(s, n, shown, sizeof(shown));
	snprintf(err, len, "trace %s line %llu: '%s' is not a lackey access (\" L addr,size\", "
		 "\" S ...\", \" M ...\", \"I  ...\")", t->path, (unsigned long long)t->lineno,
		 shown);
	return -EINVAL;
}

static int next_text(struct rdt_trace *t, uint64_t *line, enum rdt_acc_kind *kind, char *err,
		     size_t len)
{
	int ret;

	while (!t->npending) {
		size_t n, body;
		char *nl;

		nl = memchr(t->buf + t->pos, '\n', t->len - t->pos);
		if (!nl && !t->eof) {
			ret = fill(t);
			if (ret) {
				snprintf(err, len, "trace %s: %s", t->path, strerror(-ret));
				return ret;
			}
			nl = memchr(t->buf + t->pos, '\n', t->len - t->pos);
		}
		if (!nl && t->pos == t->len)
			return 0;
		n = nl ? (size_t)(nl - (t->buf + t->pos)) : t->len - t->pos;
		t->lineno++;
		if (n > LINE_MAX_LEN) {
			snprintf(err, len, "trace %s line %llu: longer than %d bytes", t->path,
				 (unsigned long long)t->lineno, LINE_MAX_LEN);
			return -EINVAL;
		}
		/* a trace that went through a Windows editor: CRLF ends a line too */
		body = n && t->buf[t->pos + n - 1] == '\r' ? n - 1 : n;
		ret = body ? parse_line(t, t->buf + t->pos, body, err, len) : 0;
		t->pos += n + (nl ? 1 : 0);
		if (ret < 0)
			return ret;
	}
	*line = t->pending++;
	*kind = t->pkind;
	t->npending--;
	return 1;
}

int rdt_trace_next(struct rdt_trace *t, uint64_t *line, enum rdt_acc_kind *kind, char *err,
		   size_t len)
{
	return t->binary ? next_binary(t, line, kind, err, len) : next_text(t, line, kind, err, len);
}

/*
 * Up to max lines at once: the binary form decoded straight from the
 * buffer, a call per batch and not per access (the call and its checks
 * were a quarter of a miss curve's time).
 */
static ssize_t read_binary(struct rdt_trace *t, uint64_t *lines, size_t max, char *err,
			   size_t len)
{
	uint64_t any;
	size_t n = 0;
	int ret;

	while (n < max && t->left) {
		size_t have = (t->len - t->pos) / 8, i, take;
		const unsigned char *p;

		if (!have) {
			ret = fill(t);
			have = (t->len - t->pos) / 8;
			if (ret || !have) {
				snprintf(err, len, "trace %s: %s", t->path,
					 ret ? strerror(-ret) : "ends before its last record");
				return ret ? ret : -EINVAL;
			}
		}
		take = have < t->left ? have : (size_t)t->left;
		if (take > max - n)
			take = max - n;
		p = (const unsigned char *)t->buf + t->pos;
		/*
		 * Decoded in one vectorized pass that also tells whether any
		 * record is an instruction fetch (kind 3, the only one that
		 * carries into bit 2); only then a second pass drops them. A
		 * trace converted without --instr has none.
		 */
		for (i = 0, any = 0; i < take; i++) {
			uint64_t v = le64(p + 8 * i);

			lines[n + i] = v >> 2;
			any |= ((v & 3) + 1) & 4;
		}
		if (t->instr || !any) {
			n += take;
		} else {
			for (i = 0; i < take; i++) {
				uint64_t v = le64(p + 8 * i);

				lines[n] = v >> 2;
				n += (v & 3) != RDT_ACC_INSTR;
			}
		}
		t->pos += 8 * take;
		t->left -= take;
	}
	return (ssize_t)n;
}

ssize_t rdt_trace_read(struct rdt_trace *t, uint64_t *lines, size_t max, char *err, size_t len)
{
	enum rdt_acc_kind kind;
	size_t n = 0;
	int ret;

	if (t->binary)
		return read_binary(t, lines, max, err, len);
	while (n < max) {
		ret = next_text(t, &lines[n], &kind, err, len);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
		n++;
	}
	return (ssize_t)n;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * Temporary files of a convert killed half-way: "OUT.tmp.PID" of a process
 * that is gone. Where the file system has O_TMPFILE the output has no name
 * until it is whole, so only the instant between linkat and rename can
 * leave one; elsewhere the named file is all there is.
 */
static void clean_stale(const char *out)
{
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	size_t blen = strlen(base);
	char dir[4096];
	struct dirent *de;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - out) + 1 : 1,
		     slash ? out : ".") >= (int)sizeof(dir) || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, base, blen) || strncmp(de->d_name + blen, ".tmp.", 5))
			continue;
		errno = 0;
		pid = strtol(de->d_name + blen + 5, &end, 10);
		if (errno || *end || pid <= 0 || pid > INT32_MAX ||
		    !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* An unnamed file in out's directory (O_TMPFILE); -1 where there is none. */
static int open_unnamed(const char *out, bool *anon)
{
	const char *slash = strrchr(out, '/');
	char dir[4096];
	int fd;

	*anon = false;
	if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - out) + 1 : 1,
		     slash ? out : ".") >= (int)sizeof(dir))
		return -1;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	*anon = fd >= 0;
	return fd;
}

/* The unnamed file whole: its name for the rename into place. */
static int link_unnamed(int fd, const char *tmp)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != EEXIST)
		return -1;
	/* one of a process gone that had our pid: ours now */
	unlink(tmp);
	return linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
}

int rdt_trace_convert(const char *in, const char *out, bool instr, uint64_t *n, char *err,
		      size_t len)
{
	static const size_t chunk = 8192;
	unsigned char *buf = malloc(chunk * 8), head[16];
	struct rdt_trace *t = NULL;
	char tmp[4096];
	enum rdt_acc_kind k;
	uint64_t line, count = 0;
	size_t used = 0;
	int fd = -1, ret;
	bool anon = false;

	*n = 0;
	if (!buf) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = rdt_trace_open(in, instr, &t, err, len);
	if (ret)
		goto out;
	/* a new file renamed into place: nothing is followed, nothing half written stays */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", out, (int)getpid()) >= (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		snprintf(err, len, "%s: path too long", out);
		goto out;
	}
	clean_stale(out);
	fd = open_unnamed(out, &anon);
	if (fd < 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	memcpy(head, RDT_TRACE_MAGIC, 8);
	put64(head + 8, 0);
	if (write(fd, head, 16) != 16)
		goto io;
	while ((ret = rdt_trace_next(t, &line, &k, err, len)) == 1) {
		put64(buf + used * 8, line << 2 | (uint64_t)k);
		count++;
		if (++used == chunk) {
			if (write(fd, buf, used * 8) != (ssize_t)(used * 8))
				goto io;
			used = 0;
		}
	}
	if (ret < 0)
		goto out;
	if (used && write(fd, buf, used * 8) != (ssize_t)(used * 8))
		goto io;
	put64(head + 8, count);
	if (pwrite(fd, head, 16, 0) != 16 || fsync(fd))
		goto io;
	if (anon && link_unnamed(fd, tmp))
		goto io;
	anon = false;
	if (close(fd))
		goto io_closed;
	fd = -1;
	if (rename(tmp, out)) {
		ret = -errno;
		snprintf(err, len, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
		unlink(tmp);
		goto out;
	}
	*n = count;
	ret = 0;
	goto out;
io:
	ret = errno ? -errno : -EIO;
	close(fd);
	goto io_failed;
io_closed:
	ret = errno ? -errno : -EIO;
io_failed:
	fd = -1;
	snprintf(err, len, "cannot write %s: %s", tmp, strerror(-ret));
	if (!anon)
		unlink(tmp);
out:
	if (fd >= 0) {
		close(fd);
		if (!anon)
			unlink(tmp);
	}
	rdt_trace_close(t);
	free(buf);
	return ret;
}
