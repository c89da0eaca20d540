// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_state: libFuzzer target over the state reader (rdt_store_read). Any
 * input is refused with a message, or reads into a state that
 *  - writes back and reads again into the very same text (read, write,
 *    read: identical), and
 *  - still writes and reads back after what the next call would do to it:
 *    every counter and the next sequence number one further.
 * The second is issue 21's finding: a counter of INT64_MAX read, and the
 * next write made the state unreadable for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/engine.h"
#include "machine.h"
#include "state.h"
#include "tables.h"

#define MACHINE "topology=package:2 l3:1 core:2 pu:1;l3.cdp=1;mb.closids=8;mb.units=percent;" \
		"mb.min=10;mb.gran=10;tasks=virtual"

static struct rdt_machine *g_m;
static struct rdt_store *g_s;
static char g_dir[64], g_path[96];

static void setup(void)
{
	char err[512];

	snprintf(g_dir, sizeof(g_dir), "/tmp/rdt-fuzz-state-XXXXXX");
	if (!mkdtemp(g_dir) || rdt_machine_build(MACHINE, &g_m, err, sizeof(err)) ||
	    rdt_store_open(g_dir, false, rdt_sections, &g_s, err, sizeof(err)))
		abort();
	snprintf(g_path, sizeof(g_path), "%s/state.json", g_dir);
}

static void put(const uint8_t *data, size_t size)
{
	int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd))
		abort();
}

/* The file's text (malloc'd). */
static char *get(void)
{
	FILE *f = fopen(g_path, "r");
	char *buf = malloc(1 << 20);
	size_t n;

	if (!f || !buf)
		abort();
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static struct rdt_state *read_state(bool must)
{
	struct rdt_state *st = NULL;
	char err[512] = "";
	int ret = rdt_store_read(g_s, g_m, "sim", &st, err, sizeof(err));

	if (ret) {
		/* a refusal says why, and hands out nothing */
		if (must || !err[0] || st)
			abort();
		return NULL;
	}
	return st;
}

static void write_state(const struct rdt_state *st)
{
	char err[512];

	if (rdt_store_write(g_s, st, "sim", err, sizeof(err)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdt_state *st, *again;
	char *first, *second;

	if (!g_m)
		setup();
	put(data, size);
	st = read_state(false);
	if (!st)
		return 0;
	write_state(st);
	first = get();
	again = read_state(true);
	write_state(again);
	second = get();
	if (strcmp(first, second))
		abort();
	/*
	 * what the next calls do: counters and sequence numbers go on, the
	 * counters stopping at their largest, no group made past the last
	 * sequence number (the engine's rules; beyond them a state could not
	 * be read back)
	 */
	again->regs.mask_writes += again->regs.mask_writes < RDT_COUNTER_MAX;
	again->regs.pqr_writes += again->regs.pqr_writes < RDT_COUNTER_MAX;
	again->regs.cfg_writes += again->regs.cfg_writes < RDT_COUNTER_MAX;
	again->next_seq += again->next_seq < RDT_SEQ_MAX;
	write_state(again);
	rdt_state_free(read_state(true));
	free(first);
	free(second);
	rdt_state_free(st);
	rdt_state_free(again);
	return 0;
}
