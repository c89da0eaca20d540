// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs: the FUSE face of the register model, laid out as the msr driver lays
 * out /dev/cpu: a directory per CPU holding "msr". A read or write of 8*k
 * bytes at offset A is k accesses to MSR A (the driver's rule: a count that
 * is not a multiple of 8 is EINVAL; the offset is the address, truncated to
 * 32 bits). A refused access is EIO, and the reason goes to the log. Files
 * are opened in direct I/O, so every access reaches the model whatever the
 * file's size; the operations run one at a time (-s).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "msrfs_fs.h"

static struct mfs_model *model;
static const char *state_path;
static bool log_refusals;

void mfs_fs_setup(struct mfs_model *md, const char *state, bool verbose)
{
	model = md;
	state_path = state;
	log_refusals = verbose;
}

/* "/", "/N" or "/N/msr": 0, 1 or 2, with the CPU; -ENOENT otherwise. */
static int parse_path(const char *path, unsigned int *cpu)
{
	unsigned long n;
	char *end;

	if (!strcmp(path, "/"))
		return 0;
	if (path[0] != '/' || path[1] < '0' || path[1] > '9' || (path[1] == '0' && path[2] &&
								  path[2] != '/'))
		return -ENOENT;
	errno = 0;
	n = strtoul(path + 1, &end, 10);
	if (errno || n >= model->m->ncpus || !model->m->cpu_present[n])
		return -ENOENT;
	*cpu = (unsigned int)n;
	if (*end == '\0')
		return 1;
	return strcmp(end, "/msr") ? -ENOENT : 2;
}

static int mfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	unsigned int cpu;
	int kind = parse_path(path, &cpu);

	if (kind < 0)
		return kind;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (kind < 2) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		/* The driver's device is crw------- root: only its owner may use it. */
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
	}
	return 0;
}

static int mfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	unsigned int cpu;
	char name[16];
	int kind = parse_path(path, &cpu);

	if (kind < 0)
		return kind;
	if (kind == 2)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (kind == 1)
		return fill(buf, "msr", NULL, 0, 0) ? -ENOMEM : 0;
	for (cpu = 0; cpu < model->m->ncpus; cpu++) {
		if (!model->m->cpu_present[cpu])
			continue;
		snprintf(name, sizeof(name), "%u", cpu);
		if (fill(buf, name, NULL, 0, 0))
			return -ENOMEM;
	}
	return 0;
}

static int mfs_open(const char *path, struct fuse_file_info *fi)
{
	unsigned int cpu;
	int kind = parse_path(path, &cpu);

	if (kind < 0)
		return kind;
	if (kind < 2)
		return -EISDIR;
	fi->direct_io = 1;
	fi->fh = cpu;
	return 0;
}

static void log_refused(unsigned int cpu, bool write, uint32_t addr, uint64_t val)
{
	if (!log_refusals)
		return;
	if (write)
		fprintf(stderr, "rdtalloc-msrfs: CPU %u: wrmsr 0x%x <- 0x%llx refused: %s\n", cpu,
			addr, (unsigned long long)val, model->why);
	else
		fprintf(stderr, "rdtalloc-msrfs: CPU %u: rdmsr 0x%x refused: %s\n", cpu, addr,
			model->why);
}

static int mfs_read_op(const char *path, char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	unsigned int cpu = (unsigned int)fi->fh;
	uint32_t addr = (uint32_t)off;
	size_t i;
	uint64_t v;
	int ret;

	if (size % 8)
		return -EINVAL;
	for (i = 0; i < size; i += 8) {
		ret = mfs_read(model, cpu, addr, &v);
		if (ret) {
			log_refused(cpu, false, addr, 0);
			return i ? (int)i : ret;
		}
		memcpy(buf + i, &v, 8);
	}
	return (int)size;
}

static int mfs_write_op(const char *path, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	unsigned int cpu = (unsigned int)fi->fh;
	uint32_t addr = (uint32_t)off;
	bool changed, any = false;
	char err[512];
	size_t i;
	uint64_t v;
	int ret = 0;

	if (size % 8)
		return -EINVAL;
	for (i = 0; i < size; i += 8) {
		memcpy(&v, buf + i, 8);
		ret = mfs_write(model, cpu, addr, v, &changed);
		if (ret) {
			log_refused(cpu, true, addr, v);
			break;
		}
		any |= changed;
	}
	if (any && state_path && mfs_state_save(model, state_path, err, sizeof(err)))
		fprintf(stderr, "rdtalloc-msrfs: %s\n", err);
	if (ret)
		return i ? (int)i : ret;
	return (int)size;
}

static int mfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	unsigned int cpu;
	int kind = parse_path(path, &cpu);

	/* O_TRUNC on the device is ignored, as the driver ignores it. */
	if (kind < 0)
		return kind;
	return kind == 2 ? 0 : -EISDIR;
}

static void *mfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Attributes never change: let the kernel keep them. */
	cfg->attr_timeout = 3600;
	cfg->entry_timeout = 3600;
	cfg->direct_io = 1;
	return NULL;
}

const struct fuse_operations mfs_fuse_ops = {
	.init = mfs_init,
	.getattr = mfs_getattr,
	.readdir = mfs_readdir,
	.open = mfs_open,
	.read = mfs_read_op,
	.write = mfs_write_op,
	.truncate = mfs_truncate,
};
