/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emu_main: what the main() of both FUSE emulators (rdtalloc-resctrlfs,
 * rdtalloc-msrfs) does alike - the options they share, the checks of
 * MOUNTPOINT and --state, and the libfuse loop - kept in one place so that
 * a fix to a stale mount or to the exit status reaches both. Each emulator
 * keeps its usage text, its own options and the building of its model.
 */
#ifndef EMU_FUSE_MAIN_H
#define EMU_FUSE_MAIN_H

#include <stdbool.h>

#define FUSE_USE_VERSION 31
#include <fuse.h>

struct emu_opts {
	const char *prog;	/* "rdtalloc-msrfs": the start of every message */
	const char *mountpoint;
	const char *machine;	/* --machine, or NULL for the emulator's default */
	const char *state;	/* --state, absolute after emu_prepare() */
	bool foreground, debug;
	char *state_buf;	/* what emu_prepare() allocated: emu_opts_free() */
};

/*
 * Takes argv[*i] if it is a shared option (--machine, --state, -f, -d) or
 * the MOUNTPOINT, moving *i past a value: 1 taken, 0 not ours, -EINVAL
 * (said on standard error) for an option without its value.
 */
int emu_parse_arg(struct emu_opts *o, int argc, char **argv, int *i);
/* The value of the option argv[*i] into *val, for an emulator's own options. */
int emu_opt_value(const struct emu_opts *o, int argc, char **argv, int *i, const char **val);
/* Says that arg is no option of the emulator's: -EINVAL. */
int emu_unknown_arg(const struct emu_opts *o, const char *arg);
/* After the last argument: -EINVAL (said) without a MOUNTPOINT. */
int emu_parse_end(const struct emu_opts *o);

/* MOUNTPOINT a directory, no dead mount, --state absolute: 0 or -errno (said). */
int emu_prepare(struct emu_opts *o);
/*
 * Mounts ops on MOUNTPOINT as fsname/subtype and serves until unmounted or
 * signalled: the exit status, 0 for a clean stop.
 */
int emu_run(const struct emu_opts *o, const char *argv0, const char *fsname,
	    const char *subtype, const struct fuse_operations *ops);
void emu_opts_free(struct emu_opts *o);

#endif
