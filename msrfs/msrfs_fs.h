/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * msrfs_fs: the FUSE operations over one register model (fs.c). main.c
 * builds the model, hands it over with mfs_fs_setup() and runs the loop.
 */
#ifndef MSRFS_FS_H
#define MSRFS_FS_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

#include "msrfs.h"

/* state: the --state file to save after each change, or NULL; verbose: log refusals. */
void mfs_fs_setup(struct mfs_model *md, const char *state, bool verbose);

extern const struct fuse_operations mfs_fuse_ops;

#endif
