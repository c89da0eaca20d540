// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdtalloc-msrfs: mount an emulation of the Linux msr driver on
 * MOUNTPOINT (MOUNTPOINT/N/msr for every CPU of a machine description), so
 * that msr users - rdtctl --backend msr --msr-root MOUNTPOINT, the switch
 * hook's agent, an administrator's wrmsr scripts - are tested without CAT
 * hardware. This file parses the command line, builds the machine and the
 * model, loads --state and runs the libfuse loop until SIGTERM, SIGINT,
 * SIGHUP or fusermount3 -u.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msrfs_fs.h"

#include <fuse_lowlevel.h>

#define DEFAULT_MACHINE "preset=broadwell-ep"

struct opts {
	const char *mountpoint;
	const char *machine;
	const char *state;
	bool foreground, debug, verbose;
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
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--machine") || !strcmp(a, "--state")) {
			if (i + 1 == argc) {
				fprintf(stderr, "rdtalloc-msrfs: %s needs a value\n", a);
				return -EINVAL;
			}
			*(a[2] == 's' ? &o->state : &o->machine) = argv[++i];
		} else if (!strncmp(a, "--machine=", 10)) {
			o->machine = a + 10;
		} else if (!strncmp(a, "--state=", 8)) {
			o->state = a + 8;
		} else if (!strcmp(a, "-v")) {
			o->verbose = true;
		} else if (!strcmp(a, "-f")) {
			o->foreground = true;
		} else if (!strcmp(a, "-d")) {
			o->debug = true;
		} else if (a[0] == '-' || o->mountpoint) {
			fprintf(stderr, "rdtalloc-msrfs: unknown argument '%s'\n", a);
			return -EINVAL;
		} else {
			o->mountpoint = a;
		}
	}
	if (!o->mountpoint) {
		fprintf(stderr, "rdtalloc-msrfs: no MOUNTPOINT given\n");
		return -EINVAL;
	}
	return 0;
}

/* As in resctrlfs: FORCE_SYNC, as cached attributes hide a dead daemon's mount. */
static int check_mountpoint(const char *mp)
{
	struct statx st;

	if (!statx(AT_FDCWD, mp, AT_STATX_FORCE_SYNC, STATX_TYPE, &st)) {
		if (S_ISDIR(st.stx_mode))
			return 0;
		fprintf(stderr, "rdtalloc-msrfs: %s: not a directory\n", mp);
		return -ENOTDIR;
	}
	if (errno == ENOTCONN)
		fprintf(stderr, "rdtalloc-msrfs: %s: stale mount of a dead daemon; "
			"run 'fusermount3 -u -z %s' and start again\n", mp, mp);
	else
		fprintf(stderr, "rdtalloc-msrfs: %s: %s\n", mp, strerror(errno));
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

static int setup_model(const struct opts *o, struct rdt_machine **m, struct mfs_model *md)
{
	char err[1024];
	int ret;

	ret = rdt_machine_build(o->machine ? o->machine : DEFAULT_MACHINE, m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdtalloc-msrfs: --machine: %s\n", err);
		return ret;
	}
	ret = mfs_model_init(md, *m, err, sizeof(err));
	if (!ret && o->state)
		ret = mfs_state_load(md, o->state, err, sizeof(err));
	if (!ret && o->state)
		ret = mfs_state_save(md, o->state, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rdtalloc-msrfs: %s\n", err);
	return ret;
}

/* A clean stop (SIGTERM, SIGINT, SIGHUP) exits 0, as fuse_main() would not. */
static int run_fuse(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts co = { 0 };
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	if (fuse_parse_cmdline(&args, &co))
		goto out_args;
	fuse = fuse_new(&args, &mfs_fuse_ops, sizeof(mfs_fuse_ops), NULL);
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
		fprintf(stderr, "rdtalloc-msrfs: FUSE loop failed: %s\n", strerror(-ret));
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
	struct mfs_model md;
	struct opts o = { 0 };
	char *fargv[16], *state = NULL, mntopts[128];
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
			fprintf(stderr, "rdtalloc-msrfs: --state %s: %s\n", o.state,
				strerror(errno));
			return 1;
		}
		o.state = state;
	}
	if (setup_model(&o, &m, &md)) {
		ret = 1;
		goto out;
	}
	mfs_fs_setup(&md, o.state, o.verbose || o.debug);
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)o.mountpoint;
	fargv[fargc++] = "-o";
	/* fuse.msrfs in /proc/mounts; other users may not open, as with the driver. */
	snprintf(mntopts, sizeof(mntopts), "fsname=msrfs,subtype=msrfs,default_permissions%s",
		 geteuid() == 0 ? ",allow_other" : "");
	fargv[fargc++] = mntopts;
	fargv[fargc++] = "-s";
	if (o.foreground)
		fargv[fargc++] = "-f";
	if (o.debug)
		fargv[fargc++] = "-d";
	fargv[fargc] = NULL;
	ret = run_fuse(fargc, fargv);
out:
	mfs_model_free(&md);
	if (m)
		rdt_machine_free(m);
	free(state);
	return ret;
}
