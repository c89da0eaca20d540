// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtalloc-resctrlfs: mount an emulation of the Linux resctrl filesystem
 * (cache allocation) on MOUNTPOINT, for testing resctrl users on machines
 * without CAT. This file parses the command line, builds the machine and
 * the model, loads --state and runs the libfuse loop (emu/fuse_main.c,
 * shared with rdtalloc-msrfs) until SIGTERM, SIGINT, SIGHUP or fusermount3
 * -u, then unmounts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfs_fs.h"
#include "fuse_main.h"

/* broadwell-ep: L3 CAT, two L3 domains, 16 CLOSIDs, CDP capable. */
#define DEFAULT_MACHINE "preset=broadwell-ep"

struct opts {
	struct emu_opts emu;
	const char *mb;
	bool cdp, cdpl2, mba_mbps;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdtalloc-resctrlfs MOUNTPOINT [--machine DESC] [--cdp] [--cdpl2]\n"
		"                          [--mb CLOSIDS:MIN:GRAN[:amd:MAX]] [--mba-mbps]\n"
		"                          [--state FILE] [-f] [-d]\n"
		"  --machine DESC  machine description as for rdtctl --machine\n"
		"                  (default: %s)\n"
		"  --cdp, --cdpl2  mount with L3 / L2 code and data prioritization\n"
		"  --mb SPEC       memory bandwidth allocation, whatever the machine says:\n"
		"                  CLOSIDS:MIN:GRAN (Intel, percent) or\n"
		"                  CLOSIDS:MIN:GRAN:amd:MAX (AMD, 1/8 GB/s)\n"
		"  --mba-mbps      mount as with -o mba_MBps (MB values in MBps)\n"
		"  --state FILE    keep the tree in FILE (JSON) across restarts\n"
		"  -f              stay in the foreground\n"
		"  -d              foreground with FUSE debug output\n"
		"See rdtalloc-resctrlfs(1) and docs/resctrlfs.md.\n", DEFAULT_MACHINE);
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
		if (!strcmp(a, "--mb")) {
			ret = emu_opt_value(&o->emu, argc, argv, &i, &o->mb);
			if (ret)
				return ret;
		} else if (!strncmp(a, "--mb=", 5)) {
			o->mb = a + 5;
		} else if (!strcmp(a, "--mba-mbps")) {
			o->mba_mbps = true;
		} else if (!strcmp(a, "--cdp")) {
			o->cdp = true;
		} else if (!strcmp(a, "--cdpl2")) {
			o->cdpl2 = true;
		} else {
			return emu_unknown_arg(&o->emu, a);
		}
	}
	return emu_parse_end(&o->emu);
}

static int setup_model(const struct opts *o, struct rdt_machine **m, struct rfs_model *md)
{
	char err[1024];
	int ret;

	ret = rdt_machine_build(o->emu.machine ? o->emu.machine : DEFAULT_MACHINE, m,
				err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdtalloc-resctrlfs: --machine: %s\n", err);
		return ret;
	}
	if (o->mb) {
		ret = rfs_mb_parse(o->mb, &(*m)->caps[RDT_MB], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
			return ret;
		}
	}
	ret = rfs_model_init(md, *m, o->cdp, o->cdpl2, o->mba_mbps, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
		return ret;
	}
	if (!o->emu.state)
		return 0;
	ret = rfs_state_load(md, o->emu.state, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
		return ret;
	}
	md->dirty = true;
	ret = rfs_state_save(md, o->emu.state, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdt_machine *m = NULL;
	struct rfs_model md;
	struct opts o = { .emu.prog = "rdtalloc-resctrlfs" };
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
	rfs_fs_setup(&md, o.emu.state);
	/*
	 * fuse.resctrl in /proc/mounts: never taken for the real resctrl. The
	 * kernel shows mba_MBps among the mount options; a FUSE mount's options
	 * are the fuse module's own and take nothing else, so it goes into the
	 * source instead: "resctrl,mba_MBps" (the comma escaped for libfuse).
	 */
	ret = emu_run(&o.emu, argv[0], o.mba_mbps ? "resctrl\\,mba_MBps" : "resctrl",
		      "resctrl", &rfs_fuse_ops);
out:
	rfs_model_free(&md);
	if (m)
		rdt_machine_free(m);
	emu_opts_free(&o.emu);
	return ret;
}
