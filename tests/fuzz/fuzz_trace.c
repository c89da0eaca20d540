// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_trace: libFuzzer target over the trace reader (lib/cache/trace.c),
 * text and binary forms. Any input is refused with a message naming the
 * file, or read to its end; and the reader never yields more accesses than
 * the text can describe: a line of at most 256 bytes gives at most
 * ceil(999999 / 64) + 1 lines of cache, so a file of n lines at most
 * n * 15626 (issue 31: " L ffffffffffffffff,8" wrapped and gave ~2^64).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cache.h"

static char g_path[64];

static void setup(void)
{
	int fd;

	snprintf(g_path, sizeof(g_path), "/tmp/rdt-fuzz-trace-XXXXXX");
	fd = mkstemp(g_path);
	if (fd < 0)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdt_trace *t = NULL;
	uint64_t line, n = 0, lines = 1, limit;
	enum rdt_acc_kind kind;
	char err[512];
	int fd, ret;
	size_t i;

	if (!g_path[0])
		setup();
	fd = open(g_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd))
		abort();
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	/* binary: 16 bytes of header, 8 a record */
	limit = size >= 16 && !memcmp(data, RDT_TRACE_MAGIC, 8) ? size / 8 : lines * 15626;
	err[0] = '\0';
	ret = rdt_trace_open(g_path, size & 1, &t, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL || !strstr(err, g_path))
			abort();
		return 0;
	}
	while ((ret = rdt_trace_next(t, &line, &kind, err, sizeof(err))) == 1) {
		if (++n > limit || kind > RDT_ACC_INSTR)
			abort();
		if (n == (1u << 20))
			break;	/* enough of a long one: the next input */
	}
	if (ret < 0 && (!err[0] || !strstr(err, g_path)))
		abort();
	rdt_trace_close(t);
	return 0;
}
