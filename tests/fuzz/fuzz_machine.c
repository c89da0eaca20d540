// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_machine: libFuzzer target over rdt_machine_build(). Any input either
 * fails with -EINVAL (-E2BIG past 64 KiB) and a message (and no machine), or builds a machine
 * whose canonical description rebuilds the very same machine.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "machine.h"

/* Inputs that hwloc would take long to build, or that mean the (slow) host. */
static int skip(const char *s)
{
	int run = 0;

	if (!strcasestr(s, "topology") && !strcasestr(s, "preset"))
		return 1;
	for (; *s; s++) {
		run = *s >= '0' && *s <= '9' ? run + 1 : 0;
		if (run >= 4)
			return 1;
	}
	return 0;
}

static void same_machine(const struct rdt_machine *a, const struct rdt_machine *b)
{
	unsigned int r, i;

	if (strcmp(a->desc, b->desc) || a->ncpus != b->ncpus ||
	    a->virtual_tasks != b->virtual_tasks)
		abort();
	for (r = 0; r < RDT_NRES; r++) {
		if (memcmp(&a->caps[r], &b->caps[r], sizeof(a->caps[r])) || a->ndom[r] != b->ndom[r])
			abort();
		for (i = 0; i < a->ndom[r]; i++)
			if (a->dom[r][i].cache_id != b->dom[r][i].cache_id ||
			    a->dom[r][i].ncpus != b->dom[r][i].ncpus ||
			    memcmp(a->dom[r][i].cpus, b->dom[r][i].cpus,
				   a->dom[r][i].ncpus * sizeof(int)))
				abort();
	}
	for (i = 0; i < a->ncpus; i++)
		for (r = 0; r < RDT_NRES; r++)
			if (rdt_machine_cpu_domain(a, r, (int)i) !=
			    rdt_machine_cpu_domain(b, r, (int)i))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdt_machine *m = NULL, *again = NULL;
	char *text = malloc(size + 1), err[512];
	int ret;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (strlen(text) != size || skip(text)) {
		free(text);
		return 0;
	}
	ret = rdt_machine_build(text, &m, err, sizeof(err));
	if (ret) {
		if (m || !err[0] || (ret != -EINVAL && ret != -E2BIG && ret != -ENOMEM && ret != -ENODEV))
			abort();
	} else {
		if (!m || err[0])
			abort();
		if (rdt_machine_build(m->desc, &again, err, sizeof(err)))
			abort();
		same_machine(m, again);
	}
	rdt_machine_free(again);
	rdt_machine_free(m);
	free(text);
	return 0;
}
