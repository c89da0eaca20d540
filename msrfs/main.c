// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtalloc-msrfs: mount an emulation of the Linux msr driver on
 * MOUNTPOINT (MOUNTPOINT/N/msr for every CPU of a machine description), so
 * that msr users - rdtctl --backend msr --msr-root MOUNTPOINT, the switch
 * hook's agent, an administrator's wrmsr scripts - are tested without CAT
 * hardware. This file parses the command line, builds the machine and the
 * model, loads --state and runs the libfuse loop (emu/fuse_main.c, shared
 * with rdtalloc-resctrlfs) until SIGTERM, SIGINT, SIGHUP or fusermount3 -u.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msrfs_fs.h"
#include "fuse_main.h"

#define DEFAULT_MACHINE "preset=broadwell-ep"

struct opts {
	struct emu_opts emu;
	bool verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdtalloc-msrfs MOUNTPOINT [--machine DESC] [--state FILE] [-v] [-f] [-d]\n"
		"  --machine DESC  machine description as for rdtctl --machine\n"
		"                  (default: %s)\n"
		"  --state FILE    keep the registers in FILE across restarts\n"
		"  -v              log every refused access (#GP) to standard error\n"
		"  -f              stay in the foreground\n"
		"  -d              foreground with FUSE debug output\n"
		"MOUNTPOINT/N/msr behaves as /dev/cpu/N/msr. See rdtalloc-msrfs(1).\n",
		DEFAULT_MACHINE);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		ret = emu_parse_arg(&o->emu, argc, argv, &i);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		if (!strcmp(a, "-v"))
			o->verbose = true;
		else
			return emu_unknown_arg(&o->emu, a);
	}
	return emu_parse_end(&o->emu);
}

static int setup_model(const struct opts *o, struct rdt_machine **m, struct mfs_model *md)
{
	const char *state = o->emu.state;
	char err[1024];
	int ret;

	ret = rdt_machine_build(o->emu.machine ? o->emu.machine : DEFAULT_MACHINE, m,
				err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdtalloc-msrfs: --machine: %s\n", err);
		return ret;
	}
	ret = mfs_model_init(md, *m, err, sizeof(err));
	if (!ret && state)
		ret = mfs_state_load(md, state, err, sizeof(err));
	if (!ret && state)
		ret = mfs_state_save(md, state, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rdtalloc-msrfs: %s\n", err);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdt_machine *m = NULL;
	struct mfs_model md;
	struct opts o = { .emu.prog = "rdtalloc-msrfs" };
	int ret;

	memset(&md, 0, sizeof(md));
	if (parse_args(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	if (emu_prepare(&o.emu))
		return 1;
	if (setup_model(&o, &m, &md)) {
		ret = 1;
		goto out;
	}
	mfs_fs_setup(&md, o.emu.state, o.verbose || o.emu.debug);
	/* fuse.msrfs in /proc/mounts; other users may not open, as with the driver. */
	ret = emu_run(&o.emu, argv[0], "msrfs", "msrfs", &mfs_fuse_ops);
out:
	mfs_model_free(&md);
	if (m)
		rdt_machine_free(m);
	emu_opts_free(&o.emu);
	return ret;
}
