/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mounts: the resctrl and cgroup2 mount points from a mount table (lib/mounts.c). */
#ifndef RDT_MOUNTS_H
#define RDT_MOUNTS_H

#include <stddef.h>

/*
 * 1 with the first resctrl mount point in where, 0 when resctrl is not
 * mounted, -errno when the table cannot be read.
 */
int rdt_resctrl_mounted(const char *mounts, char *where, size_t len);
/* The same for the first mount of file system type fstype ("cgroup2"). */
int rdt_fs_mounted(const char *mounts, const char *fstype, char *where, size_t len);
/*
 * The same, where several are mounted: the last listed whose statfs says
 * magic (the one not hidden by a later mount), else the first listed.
 */
int rdt_fs_mounted_at(const char *mounts, const char *fstype, long magic, char *where,
		      size_t len);

/*
 * 1 when the mount at where lists opt among its options (or its source,
 * where a FUSE emulation has to put it), 0 when not, -errno when the table
 * cannot be read.
 */
int rdt_mount_has_option(const char *mounts, const char *where, const char *opt);

#endif
