// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quickstart: the README's API example. Create a group, give it a quarter
 * of socket 0's L3 cache, move the calling thread into it, and print the
 * CLOSID it runs with.
 *
 * It runs on an in-memory simulator of a two-socket machine, so it needs
 * neither root nor RDT hardware. Leave out .backend, .machine and .flags
 * to act on the machine's real, shared state instead.
 *
 * Build: cc quickstart.c $(pkg-config --cflags --libs rdtalloc)
 * Usage: quickstart [MACHINE-DESCRIPTION]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* gettid() */
#endif
#include <stdio.h>
#include <unistd.h>

#include <rdtalloc/rdtalloc.h>

static int report(rdtalloc_t *r, const char *what, int err)
{
	fprintf(stderr, "quickstart: %s: %s (%s)\n", what, rdtalloc_strerror(err),
		rdtalloc_errmsg(r));
	return 1;
}

int main(int argc, char **argv)
{
	RDTALLOC_OPTS(rdtalloc_opts, opts,
		      .backend = "sim",
		      .machine = argc > 1 ? argv[1] : "topology=package:2 l3:1 core:2 pu:1",
		      .flags = RDTALLOC_F_EPHEMERAL);
	char schema[256];
	unsigned int closid;
	rdtalloc_t *r;
	int err, ret = 1;

	err = rdtalloc_open(&r, &opts);
	if (err)
		return report(NULL, "open", err);

	/* Four of the twenty ways of socket 0's L3; all of socket 1's. */
	err = rdtalloc_group_create(r, "rt");
	if (!err)
		err = rdtalloc_set_schema(r, "rt", "L3:0=f8000");
	if (err) {
		report(r, "group rt", err);
		goto out;
	}
	/* tid 0: the calling thread. */
	err = rdtalloc_bind_task(r, "rt", 0);
	if (err) {
		report(r, "bind", err);
		goto out;
	}
	err = rdtalloc_get_schema(r, "rt", schema, sizeof(schema));
	if (err < 0) {
		report(r, "schema", err);
		goto out;
	}
	/* What CPU 0 (on socket 0) runs with while this thread is on it. */
	err = rdtalloc_effective_closid(r, 0, gettid(), &closid);
	if (err) {
		report(r, "closid", err);
		goto out;
	}
	printf("librdtalloc %s, backend %s\n", rdtalloc_version_string(), rdtalloc_backend(r));
	printf("group rt: %s", schema);
	printf("thread %d runs with CLOSID %u on CPU 0\n", (int)gettid(), closid);
	ret = 0;
out:
	rdtalloc_close(r);
	return ret;
}
