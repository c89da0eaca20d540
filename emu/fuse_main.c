// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * emu_main: the options, checks and libfuse loop that rdtalloc-resctrlfs
 * and rdtalloc-msrfs share (fuse_main.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse_main.h"

/* fuse_parse_cmdline() and struct fuse_cmdline_opts live here. */
#include <fuse_lowlevel.h>

int emu_opt_value(const struct emu_opts *o, int argc, char **argv, int *i, const char **val)
{
	if (*i + 1 == argc) {
		fprintf(stderr, "%s: %s needs a value\n", o->prog, argv[*i]);
		return -EINVAL;
	}
	*val = argv[++*i];
	return 0;
}

int emu_parse_arg(struct emu_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	int ret;

	if (!strcmp(a, "--machine")) {
		ret = emu_opt_value(o, argc, argv, i, &o->machine);
		return ret ? ret : 1;
	}
	if (!strcmp(a, "--state")) {
		ret = emu_opt_value(o, argc, argv, i, &o->state);
		return ret ? ret : 1;
	}
	if (!strncmp(a, "--machine=", 10))
		o->machine = a + 10;
	else if (!strncmp(a, "--state=", 8))
		o->state = a + 8;
	else if (!strcmp(a, "-f"))
		o->foreground = true;
	else if (!strcmp(a, "-d"))
		o->debug = true;
	else if (a[0] != '-' && !o->mountpoint)
		o->mountpoint = a;
	else
		return 0;
	return 1;
}

int emu_unknown_arg(const struct emu_opts *o, const char *arg)
{
	fprintf(stderr, "%s: unknown argument '%s'\n", o->prog, arg);
	return -EINVAL;
}

int emu_parse_end(const struct emu_opts *o)
{
	if (o->mountpoint)
		return 0;
	fprintf(stderr, "%s: no MOUNTPOINT given\n", o->prog);
	return -EINVAL;
}

/*
 * A daemon killed with SIGKILL leaves its mount behind: say how to clear it.
 * FORCE_SYNC: a plain stat() answers from the attributes FUSE cached (for
 * attr_timeout) without asking the dead daemon, and we would mount over it.
 */
static int check_mountpoint(const struct emu_opts *o)
{
	const char *mp = o->mountpoint;
	struct statx st;

	if (!statx(AT_FDCWD, mp, AT_STATX_FORCE_SYNC, STATX_TYPE, &st)) {
		if (S_ISDIR(st.stx_mode))
			return 0;
		fprintf(stderr, "%s: %s: not a directory\n", o->prog, mp);
		return -ENOTDIR;
	}
	if (errno == ENOTCONN)
		fprintf(stderr, "%s: %s: stale mount of a dead daemon; "
			"run 'fusermount3 -u -z %s' and start again\n", o->prog, mp, mp);
	else
		fprintf(stderr, "%s: %s: %s\n", o->prog, mp, strerror(errno));
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

int emu_prepare(struct emu_opts *o)
{
	int ret;

	ret = check_mountpoint(o);
	if (ret || !o->state)
		return ret;
	o->state_buf = absolute(o->state);
	if (!o->state_buf) {
		ret = -errno;
		fprintf(stderr, "%s: --state %s: %s\n", o->prog, o->state, strerror(errno));
		return ret;
	}
	o->state = o->state_buf;
	return 0;
}

/*
 * fuse_main() without its one flaw for us: it reports an exit by SIGTERM as
 * a failure (status 8), and a clean stop must exit 0.
 */
static int run_fuse(const char *prog, int argc, char **argv, const struct fuse_operations *ops)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts co = { 0 };
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	if (fuse_parse_cmdline(&args, &co))
		goto out_args;
	fuse = fuse_new(&args, ops, sizeof(*ops), NULL);
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
		fprintf(stderr, "%s: FUSE loop failed: %s\n", prog, strerror(-ret));
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

int emu_run(const struct emu_opts *o, const char *argv0, const char *fsname,
	    const char *subtype, const struct fuse_operations *ops)
{
	char *fargv[8], mntopts[160];
	int fargc = 0;

	fargv[fargc++] = (char *)argv0;
	fargv[fargc++] = (char *)o->mountpoint;
	fargv[fargc++] = "-o";
	/*
	 * default_permissions: the kernel checks the modes the model gives, as
	 * on the real files; allow_other lets other users reach them at all,
	 * and only root may ask for it (without fuse.conf's user_allow_other).
	 */
	snprintf(mntopts, sizeof(mntopts), "fsname=%s,subtype=%s,default_permissions%s",
		 fsname, subtype, geteuid() == 0 ? ",allow_other" : "");
	fargv[fargc++] = mntopts;
	/* One thread: no model takes a finer lock than its fs.c's (msrfs none). */
	fargv[fargc++] = "-s";
	if (o->foreground)
		fargv[fargc++] = "-f";
	if (o->debug)
		fargv[fargc++] = "-d";
	fargv[fargc] = NULL;
	return run_fuse(o->prog, fargc, fargv, ops);
}

void emu_opts_free(struct emu_opts *o)
{
	free(o->state_buf);
	o->state_buf = NULL;
}
