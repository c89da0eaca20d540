// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtalloc-resctrlfs: mount an emulation of the Linux resctrl filesystem
 * (cache allocation) on MOUNTPOINT, for testing resctrl users on machines
 * without CAT. This file parses the command line, builds the machine and
 * the model, loads --state and runs the libfuse loop until SIGTERM, SIGINT,
 * SIGHUP or fusermount3 -u, then unmounts.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rfs_fs.h"

/* fuse_parse_cmdline() and struct fuse_cmdline_opts live here. */
#include <fuse_lowlevel.h>

/* broadwell-ep: L3 CAT, two L3 domains, 16 CLOSIDs, CDP capable. */
#define DEFAULT_MACHINE "preset=broadwell-ep"

struct opts {
	const char *mountpoint;
	const char *machine;
	const char *state;
	const char *mb;
	bool cdp, cdpl2, mba_mbps, foreground, debug;
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
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--machine") || !strcmp(a, "--state") || !strcmp(a, "--mb")) {
			if (i + 1 == argc) {
				fprintf(stderr, "rdtalloc-resctrlfs: %s needs a value\n", a);
				return -EINVAL;
			}
			*(a[2] == 's' ? &o->state : a[3] == 'a' ? &o->machine : &o->mb) = argv[++i];
		} else if (!strncmp(a, "--mb=", 5)) {
			o->mb = a + 5;
		} else if (!strcmp(a, "--mba-mbps")) {
			o->mba_mbps = true;
		} else if (!strncmp(a, "--machine=", 10)) {
			o->machine = a + 10;
		} else if (!strncmp(a, "--state=", 8)) {
			o->state = a + 8;
		} else if (!strcmp(a, "--cdp")) {
			o->cdp = true;
		} else if (!strcmp(a, "--cdpl2")) {
			o->cdpl2 = true;
		} else if (!strcmp(a, "-f")) {
			o->foreground = true;
		} else if (!strcmp(a, "-d")) {
			o->debug = true;
		} else if (a[0] == '-' || o->mountpoint) {
			fprintf(stderr, "rdtalloc-resctrlfs: unknown argument '%s'\n", a);
			return -EINVAL;
		} else {
			o->mountpoint = a;
		}
	}
	if (!o->mountpoint) {
		fprintf(stderr, "rdtalloc-resctrlfs: no MOUNTPOINT given\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * A daemon killed with SIGKILL leaves its mount behind: say how to clear it.
 * FORCE_SYNC: a plain stat() answers from the attributes FUSE cached (for
 * attr_timeout) without asking the dead daemon, and we would mount over it.
 */
static int check_mountpoint(const char *mp)
{
	struct statx st;

	if (!statx(AT_FDCWD, mp, AT_STATX_FORCE_SYNC, STATX_TYPE, &st)) {
		if (S_ISDIR(st.stx_mode))
			return 0;
		fprintf(stderr, "rdtalloc-resctrlfs: %s: not a directory\n", mp);
		return -ENOTDIR;
	}
	if (errno == ENOTCONN)
		fprintf(stderr, "rdtalloc-resctrlfs: %s: stale mount of a dead daemon; "
			"run 'fusermount3 -u -z %s' and start again\n", mp, mp);
	else
		fprintf(stderr, "rdtalloc-resctrlfs: %s: %s\n", mp, strerror(errno));
	return -errno;
}

/* The daemon moves to / when it detaches: keep a relative --state usable. */
static char *absolute(const char *path)
{
	char cwd[4096], *abs;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		return NULL;
	return abs;
}

static int setup_model(const struct opts *o, struct rdt_machine **m, struct rfs_model *md)
{
	char err[1024];
	int ret;

	ret = rdt_machine_build(o->machine ? o->machine : DEFAULT_MACHINE, m, err, sizeof(err));
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
	if (!o->state)
		return 0;
	ret = rfs_state_load(md, o->state, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
		return ret;
	}
	md->dirty = true;
	ret = rfs_state_save(md, o->state, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rdtalloc-resctrlfs: %s\n", err);
	return ret;
}

/*
 * fuse_main() without its one flaw for us: it reports an exit by SIGTERM as
 * a failure (status 8), and a clean stop must exit 0.
 */
static int run_fuse(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts co = { 0 };
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	if (fuse_parse_cmdline(&args, &co))
		goto out_args;
	fuse = fuse_new(&args, &rfs_fuse_ops, sizeof(rfs_fuse_ops), NULL);
	if (!fuse)
		goto out_args;
	if (fuse_mount(fuse, co.mountpoint))
		goto out_destroy;
	if (fuse_daemonize(co.foreground))
		goto out_unmount;
	se = fuse_get_session(fuse);
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	ret = fuse_loop(fuse);
	fuse_remove_signal_handlers(se);
	if (ret == SIGTERM || ret == SIGINT || ret == SIGHUP)
		ret = 0;
	else if (ret)
		fprintf(stderr, "rdtalloc-resctrlfs: FUSE loop failed: %s\n", strerror(-ret));
	ret = ret ? 1 : 0;
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
out_args:
	free(co.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdt_machine *m = NULL;
	struct rfs_model md;
	struct opts o = { 0 };
	char *fargv[16], *state = NULL, mntopts[160];
	int fargc = 0, ret;

	memset(&md, 0, sizeof(md));
	if (parse_args(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	if (check_mountpoint(o.mountpoint))
		return 1;
	if (o.state) {
		state = absolute(o.state);
		if (!state) {
			fprintf(stderr, "rdtalloc-resctrlfs: --state %s: %s\n", o.state,
				strerror(errno));
			return 1;
		}
		o.state = state;
	}
	if (setup_model(&o, &m, &md)) {
		ret = 1;
		goto out;
	}
	rfs_fs_setup(&md, o.state);
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)o.mountpoint;
	fargv[fargc++] = "-o";
	/*
	 * fuse.resctrl in /proc/mounts: never taken for the real resctrl. The
	 * kernel shows mba_MBps among the mount options; a FUSE mount's options
	 * are the fuse module's own and take nothing else, so it goes into the
	 * source instead: "resctrl,mba_MBps" (the comma escaped for libfuse).
	 */
	snprintf(mntopts, sizeof(mntopts), "fsname=resctrl%s,subtype=resctrl,"
		 "default_permissions%s", o.mba_mbps ? "\\,mba_MBps" : "",
		 geteuid() == 0 ? ",allow_other" : "");
	fargv[fargc++] = mntopts;
	/* One thread: the model needs no finer locking than fs.c's mutex. */
	fargv[fargc++] = "-s";
	if (o.foreground)
		fargv[fargc++] = "-f";
	if (o.debug)
		fargv[fargc++] = "-d";
	fargv[fargc] = NULL;
	ret = run_fuse(fargc, fargv);
out:
	rfs_model_free(&md);
	if (m)
		rdt_machine_free(m);
	free(state);
	return ret;
}
