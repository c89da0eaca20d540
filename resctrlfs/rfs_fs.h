/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfs_fs: the FUSE operations over one model (fs.c). main.c builds the
 * model, hands it over with rfs_fs_setup() and runs fuse_main().
 */
#ifndef RFS_FS_H
#define RFS_FS_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

#include "rfs.h"

/* state: the --state file to save after each change, or NULL. */
void rfs_fs_setup(struct rfs_model *model, const char *state);

extern const struct fuse_operations rfs_fuse_ops;

#endif
