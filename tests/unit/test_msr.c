// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * msr backend tests, no hardware: a device root of plain files DIR/<cpu>/msr.
 *
 * The msr driver gives every MSR address its own 8 bytes, but in a plain
 * file the 8 bytes at offset 0xc90 and those at 0xc91 overlap. So this
 * program interposes pread/pwrite for the files of its fake roots (a
 * register model: MSR address a is stored at byte 8 * a), and the backend
 * sees independent registers exactly as on hardware. test_raw_offsets turns
 * the model off to show that the backend really uses offset = MSR address.
 *
 * Every register a backend may touch is seeded with garbage (and an RMID
 * 0x2a in every PQR_ASSOC); after each call every register of every CPU is
 * compared with the expected image, and the write counters with the number
 * of registers whose value changed. Owns: tests of lib/backends/msr.c, both
 * directly (backend vtable + engine) and through the public API.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdtalloc/rdtalloc.h>

#include "backend.h"
#include "backends/msr.h"
#include "hook/hook.h"
#include "detect/detect.h"
#include "hw/engine.h"
#include "machine.h"
#include "tables.h"

/* ---- The register model ------------------------------------------------ */

#define REG_LO 0xc80u		/* first register compared (below the CFGs) */
#define REG_HI 0xd60u		/* past the last L2 mask register */
#define NREG (REG_HI - REG_LO)
#define FILE_REGS 0xe18u	/* registers a device file holds */
#define MAX_CPUS 8
#define RMID 0x2aull

static struct { dev_t dev; ino_t ino; } model_files[4 * MAX_CPUS];
static unsigned int nmodel;
static bool model_on = true;

static bool is_model(int fd)
{
	struct stat sb;
	unsigned int i;

	if (!model_on || fstat(fd, &sb))
		return false;
	for (i = 0; i < nmodel; i++)
		if (model_files[i].dev == sb.st_dev && model_files[i].ino == sb.st_ino)
			return true;
	return false;
}

static void model_add(int fd)
{
	struct stat sb;

	assert_int_equal(fstat(fd, &sb), 0);
	assert_true(nmodel < sizeof(model_files) / sizeof(model_files[0]));
	model_files[nmodel].dev = sb.st_dev;
	model_files[nmodel].ino = sb.st_ino;
	nmodel++;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (is_model(fd))
		off *= 8;
	return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (is_model(fd))
		off *= 8;
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

/* ---- Fixture: a fake device root ---------------------------------------- */

struct fx {
	char dir[64];
	char mounts[128];
	unsigned int ncpus;
	int memfd[MAX_CPUS];		/* -1: the CPU's device is a plain file */
	uint64_t exp[MAX_CPUS][NREG];	/* the registers as they must be */
};

static struct fx F;

static uint64_t garbage(unsigned int addr)
{
	return 0x5a5a000000000000ull | ((uint64_t)addr << 8) | 0x5;
}

static uint64_t seed_of(unsigned int addr)
{
	if (addr == RDT_MSR_PQR_ASSOC)
		return (5ull << 32) | RMID;	/* CLOSID 5, RMID 0x2a */
	if (addr == RDT_MSR_L3_QOS_CFG || addr == RDT_MSR_L2_QOS_CFG)
		return 0x5;			/* CDP on, and bit 2 to keep */
	return garbage(addr);
}

static void cpu_path(char *buf, size_t len, unsigned int cpu)
{
	snprintf(buf, len, "%s/%u/msr", F.dir, cpu);
}

static uint64_t rd(unsigned int cpu, unsigned int addr)
{
	char path[PATH_MAX];
	uint64_t v = 0;
	int fd;

	cpu_path(path, sizeof(path), cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, 8, addr), 8);
	close(fd);
	return v;
}

static void wr(unsigned int cpu, unsigned int addr, uint64_t v)
{
	char path[PATH_MAX];
	int fd;

	cpu_path(path, sizeof(path), cpu);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, 8, addr), 8);
	close(fd);
}

static void seed_fd(int fd, unsigned int cpu)
{
	unsigned int a;

	assert_int_equal(ftruncate(fd, (off_t)FILE_REGS * 8), 0);
	if (!model_on) {
		/* Plain layout: neighbouring registers overlap, seed PQR_ASSOC alone. */
		uint64_t v = seed_of(RDT_MSR_PQR_ASSOC);

		assert_int_equal(pwrite(fd, &v, 8, RDT_MSR_PQR_ASSOC), 8);
		return;
	}
	for (a = REG_LO; a < REG_HI; a++) {
		uint64_t v = seed_of(a);

		assert_int_equal(pwrite(fd, &v, 8, a), 8);
		F.exp[cpu][a - REG_LO] = v;
	}
}

static void make_cpu(unsigned int cpu)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%u", F.dir, cpu);
	assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
	cpu_path(path, sizeof(path), cpu);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	model_add(fd);
	seed_fd(fd, cpu);
	close(fd);
}

static void make_mounts(const char *text)
{
	FILE *f = fopen(F.mounts, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#define NO_RESCTRL "proc /proc proc rw 0 0\nsysfs /sys sysfs rw 0 0\n" \
		   "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"

static void make_root_as(unsigned int ncpus, bool model)
{
	unsigned int c;

	nmodel = 0;
	model_on = model;
	memset(&F, 0, sizeof(F));
	snprintf(F.dir, sizeof(F.dir), "/tmp/rdt-msr-XXXXXX");
	assert_non_null(mkdtemp(F.dir));
	snprintf(F.mounts, sizeof(F.mounts), "%s/mounts", F.dir);
	make_mounts(NO_RESCTRL);
	F.ncpus = ncpus;
	for (c = 0; c < MAX_CPUS; c++)
		F.memfd[c] = -1;
	for (c = 0; c < ncpus; c++)
		make_cpu(c);
	setenv("RDTALLOC_MSR_ROOT", F.dir, 1);
	setenv("RDTALLOC_MOUNTS", F.mounts, 1);
}

static void make_root(unsigned int ncpus)
{
	make_root_as(ncpus, true);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **unused)
{
	unsigned int c;

	(void)unused;
	for (c = 0; c < MAX_CPUS; c++)
		if (F.memfd[c] >= 0)
			close(F.memfd[c]);
	nftw(F.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("RDTALLOC_MSR_ROOT");
	unsetenv("RDTALLOC_MOUNTS");
	return 0;
}

static int setup4(void **unused)
{
	(void)unused;
	make_root(4);
	return 0;
}

/*
 * Replace cpu's device with a symlink to a memfd holding the same
 * registers, so that writes can be made to fail later (seal_cpu) on the
 * file the backend already has open.
 */
static void make_sealable(unsigned int cpu)
{
	char path[PATH_MAX], link[64];
	int fd = memfd_create("msr", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	model_add(fd);
	seed_fd(fd, cpu);
	F.memfd[cpu] = fd;
	cpu_path(path, sizeof(path), cpu);
	assert_int_equal(unlink(path), 0);
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)getpid(), fd);
	assert_int_equal(symlink(link, path), 0);
}

static void seal_cpu(unsigned int cpu)
{
	assert_int_equal(fcntl(F.memfd[cpu], F_ADD_SEALS, F_SEAL_WRITE), 0);
}

/* ---- Expectations ------------------------------------------------------- */

static unsigned int mask_addr(enum rdt_res res, unsigned int reg)
{
	return (res == RDT_L3 ? RDT_MSR_L3_MASK_BASE : RDT_MSR_L2_MASK_BASE) + reg;
}

static void exp_mask(unsigned int cpu, enum rdt_res res, unsigned int reg, uint64_t v)
{
	F.exp[cpu][mask_addr(res, reg) - REG_LO] = v;
}

static void exp_pqr(unsigned int cpu, unsigned int closid)
{
	uint64_t *p = &F.exp[cpu][RDT_MSR_PQR_ASSOC - REG_LO];

	*p = (*p & 0xffffffffull) | ((uint64_t)closid << 32);
}

static void exp_cfg(unsigned int cpu, enum rdt_res res, bool on)
{
	uint64_t *p = &F.exp[cpu][(res == RDT_L3 ? RDT_MSR_L3_QOS_CFG : RDT_MSR_L2_QOS_CFG) -
				  REG_LO];

	*p = on ? *p | 1 : *p & ~1ull;
}

/* First use: every mask of every domain all-ones, CDP off, CLOSID 0. */
static void exp_first_use(const struct rdt_machine *m)
{
	unsigned int r, d, i;

	for (r = 0; r < RDT_NRES; r++) {
		const struct rdt_caps *c = &m->caps[r];

		if (!c->present)
			continue;
		for (d = 0; d < m->ndom[r]; d++) {
			unsigned int cpu = (unsigned int)m->dom[r][d].cpus[0];

			for (i = 0; i < c->closids; i++)
				exp_mask(cpu, r, i, (1ull << c->cbm_len) - 1);
			if (c->cdp)
				exp_cfg(cpu, r, false);
		}
	}
	for (i = 0; i < m->ncpus; i++)
		exp_pqr(i, 0);
}

struct snap {
	uint64_t v[MAX_CPUS][NREG];
};

static void take(struct snap *s)
{
	unsigned int c, a;

	for (c = 0; c < F.ncpus; c++)
		for (a = REG_LO; a < REG_HI; a++)
			s->v[c][a - REG_LO] = rd(c, a);
}

/* Every register of every CPU holds exactly what is expected. */
static void check_all(void)
{
	struct snap now;
	unsigned int c, a;

	take(&now);
	for (c = 0; c < F.ncpus; c++)
		for (a = REG_LO; a < REG_HI; a++)
			if (now.v[c][a - REG_LO] != F.exp[c][a - REG_LO])
				fail_msg("CPU %u MSR 0x%x: 0x%llx, expected 0x%llx", c, a,
					 (unsigned long long)now.v[c][a - REG_LO],
					 (unsigned long long)F.exp[c][a - REG_LO]);
}

struct counts {
	uint64_t mask, pqr, cfg;
};

/* How many registers of each kind differ between two snapshots. */
static struct counts diff(const struct snap *a, const struct snap *b)
{
	struct counts n = { 0 };
	unsigned int c, r;

	for (c = 0; c < F.ncpus; c++)
		for (r = REG_LO; r < REG_HI; r++) {
			if (a->v[c][r - REG_LO] == b->v[c][r - REG_LO])
				continue;
			if (r == RDT_MSR_PQR_ASSOC)
				n.pqr++;
			else if (r == RDT_MSR_L3_QOS_CFG || r == RDT_MSR_L2_QOS_CFG)
				n.cfg++;
			else
				n.mask++;
		}
	return n;
}

static struct rdt_machine *machine(const char *desc)
{
	struct rdt_machine *m = NULL;
	char err[256] = "";
	int ret = rdt_machine_build(desc, &m, err, sizeof(err));

	if (ret)
		fail_msg("machine '%s': %d %s", desc, ret, err);
	return m;
}

/*
 * 2 sockets: L3 ids 0 (CPUs 0-1) and 1 (CPUs 2-3); 16 CLOSIDs, 20-bit CBM,
 * CDP. No L3 monitoring: the RMID field of PQR_ASSOC is someone else's and
 * kept (with monitoring it holds the groups' RMIDs: test_msr_monitor.sh).
 */
#define M2 "topology=package:2 l3:1 core:2 pu:1;mon.rmids=0"
#define M2_FULL 0xfffffull
/* A CDP part with fewer, shorter masks. */
#define MCDP M2 ";l3.closids=8;l3.cbm_len=11;l3.cdp=1"
/* One L3 (CPUs 0-3) over two L2 domains (CPUs 0-1, 2-3) with L2 CAT. */
#define ML2 "topology=package:1 l3:1 l2:2 core:1 pu:2;l2.closids=8;l2.cbm_len=8;mon.rmids=0"

/* ---- Direct: the backend with the engine -------------------------------- */

static const struct rdt_backend_env *env_of(struct rdt_backend_env *e, bool given)
{
	e->msr_root = F.dir;
	e->mounts = F.mounts;
	e->machine_given = given;
	return e;
}

struct direct {
	struct rdt_machine *m;
	struct rdt_state *st;
	void *ctx;
};

/* Open the backend on a new state and do the first-use programming. */
static void direct_open(struct direct *d, const char *desc, unsigned int *fixed)
{
	struct rdt_backend_env e;
	char err[256] = "";
	int ret;

	d->m = machine(desc);
	assert_int_equal(rdt_state_new(d->m, rdt_sections, &d->st), 0);
	ret = rdt_backend_msr.open(&d->ctx, d->m, env_of(&e, true), err, sizeof(err));
	if (ret)
		fail_msg("open: %d %s", ret, err);
	d->st->sink = rdt_backend_msr.sink(d->ctx);
	ret = rdt_backend_msr.reconcile(d->ctx, d->st, true, fixed, err, sizeof(err));
	if (ret)
		fail_msg("reconcile: %d %s", ret, err);
}

static void direct_close(struct direct *d)
{
	rdt_backend_msr.close(d->ctx);
	rdt_state_free(d->st);
	rdt_machine_free(d->m);
}

static unsigned int reconcile(struct direct *d, const struct rdt_state *st, bool first, int want)
{
	char err[256] = "";
	unsigned int fixed = 12345;

	assert_int_equal(rdt_backend_msr.reconcile(d->ctx, st, first, &fixed, err, sizeof(err)),
			 want);
	return fixed;
}

static void test_first_use(void **unused)
{
	struct direct d;
	unsigned int fixed;

	(void)unused;
	/* Registers that happen to hold their reset value are written all the same. */
	wr(1, RDT_MSR_PQR_ASSOC, RMID);
	wr(0, 0xc90, M2_FULL);
	direct_open(&d, M2, &fixed);
	/* 16 masks + CDP config on CPUs 0 and 2, PQR_ASSOC on all four. */
	assert_int_equal(fixed, 2 * 16 + 2 + 4);
	exp_first_use(d.m);
	check_all();
	/* The masks of CPUs 1 and 3 are the domain's: not written there. */
	assert_int_equal(rd(1, 0xc90), garbage(0xc90));
	assert_int_equal(rd(3, 0xc9f), garbage(0xc9f));
	/* The CLOSID went to 0, the RMID and the other CDP bits stayed. */
	assert_int_equal(rd(2, RDT_MSR_PQR_ASSOC), RMID);
	assert_int_equal(rd(0, RDT_MSR_L3_QOS_CFG), 0x4);
	/* Past the 16 CLOSIDs nothing is touched. */
	assert_int_equal(rd(0, 0xca0), garbage(0xca0));
	/* Agreeing hardware needs no write. */
	assert_int_equal(reconcile(&d, d.st, false, 0), 0);
	check_all();
	/* The register counters are the engine's: reconcile adds nothing. */
	assert_int_equal(d.st->regs.mask_writes + d.st->regs.pqr_writes + d.st->regs.cfg_writes,
			 0);
	direct_close(&d);
}

/* Without CDP support the CDP registers may not exist: never touched. */
static void test_no_cdp(void **unused)
{
	struct direct d;
	unsigned int fixed;

	(void)unused;
	direct_open(&d, M2 ";l3.cdp=0", &fixed);
	assert_int_equal(fixed, 2 * 16 + 4);
	exp_first_use(d.m);
	check_all();
	assert_int_equal(rd(0, RDT_MSR_L3_QOS_CFG), 0x5);
	assert_int_equal(reconcile(&d, d.st, false, 0), 0);
	assert_int_equal(rdt_set_cdp(d.st, RDT_L3, true), -EINVAL);
	check_all();
	direct_close(&d);
}

static void test_reconcile_fixes(void **unused)
{
	struct direct d;
	unsigned int fixed;

	(void)unused;
	direct_open(&d, M2, &fixed);
	exp_first_use(d.m);
	/* Someone else's writes: a mask, a CLOSID, the CDP bit. */
	wr(2, 0xc95, 0x3);
	wr(3, RDT_MSR_PQR_ASSOC, (7ull << 32) | RMID);
	wr(0, RDT_MSR_L3_QOS_CFG, 0x5);
	/* A changed RMID is not ours to fix, and must survive the fix of the CLOSID. */
	wr(1, RDT_MSR_PQR_ASSOC, 0x11);
	F.exp[1][RDT_MSR_PQR_ASSOC - REG_LO] = 0x11;
	/* A register of a non-programming CPU is not a register of the domain. */
	wr(1, 0xc91, 0x1);
	F.exp[1][0xc91 - REG_LO] = 0x1;
	assert_int_equal(reconcile(&d, d.st, false, 0), 3);
	check_all();
	assert_int_equal(reconcile(&d, d.st, false, 0), 0);
	direct_close(&d);
}

static void test_sink_writes(void **unused)
{
	uint64_t want[4] = { 0xf, 0xf, 0xf0, 0xf0 };
	bool set[2] = { true, true };
	struct direct d;
	unsigned int fixed;
	int g;

	(void)unused;
	direct_open(&d, M2, &fixed);
	exp_first_use(d.m);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	exp_mask(0, RDT_L3, 1, 0xf);
	exp_mask(2, RDT_L3, 1, 0xf0);
	check_all();
	assert_int_equal(rdt_bind_cpu(d.st, g, 3), 0);
	exp_pqr(3, 1);
	check_all();
	assert_int_equal(rd(3, RDT_MSR_PQR_ASSOC), (1ull << 32) | RMID);
	assert_int_equal(d.st->regs.mask_writes, 2);
	assert_int_equal(d.st->regs.pqr_writes, 1);
	assert_string_equal(rdt_msr_last_error(d.ctx), "");
	/* The image and the hardware agree. */
	assert_int_equal(reconcile(&d, d.st, false, 0), 0);
	assert_int_equal(rdt_reset(d.st), 0);
	exp_first_use(d.m);
	check_all();
	direct_close(&d);
}

static void test_cdp(void **unused)
{
	uint64_t want[4] = { 0x3, 0x7f0, 0x7c0, 0x1f };
	bool set[2] = { true, true };
	struct direct d;
	unsigned int fixed;
	int g;

	(void)unused;
	direct_open(&d, MCDP, &fixed);
	assert_int_equal(fixed, 2 * 8 + 2 + 4);
	exp_first_use(d.m);
	check_all();
	assert_int_equal(rdt_set_cdp(d.st, RDT_L3, true), 0);
	/* Bit 0 on every L3 domain, bit 2 kept; the masks were all-ones already. */
	exp_cfg(0, RDT_L3, true);
	exp_cfg(2, RDT_L3, true);
	check_all();
	assert_int_equal(rd(2, RDT_MSR_L3_QOS_CFG), 0x5);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	/* CLOSID 1: data in mask 2, code in mask 3. */
	exp_mask(0, RDT_L3, 2, 0x3);
	exp_mask(0, RDT_L3, 3, 0x7f0);
	exp_mask(2, RDT_L3, 2, 0x7c0);
	exp_mask(2, RDT_L3, 3, 0x1f);
	check_all();
	assert_int_equal(rdt_bind_cpu(d.st, g, 1), 0);
	exp_pqr(1, 1);
	check_all();
	assert_int_equal(d.st->regs.cfg_writes, 2);
	assert_int_equal(d.st->regs.mask_writes, 4);
	assert_int_equal(d.st->regs.pqr_writes, 1);
	/* Behind our back CDP goes off on one domain; reconcile puts it back. */
	wr(2, RDT_MSR_L3_QOS_CFG, 0x4);
	assert_int_equal(reconcile(&d, d.st, false, 0), 1);
	check_all();
	assert_int_equal(rdt_reset(d.st), 0);
	exp_first_use(d.m);
	check_all();
	direct_close(&d);
}

static void test_l2(void **unused)
{
	struct direct d;
	unsigned int fixed, slot;
	uint64_t *want;
	bool *set;
	int g;

	(void)unused;
	direct_open(&d, ML2, &fixed);
	/* CPU 0: 16 L3 + 8 L2 masks, both CFGs; CPU 2: 8 L2 masks and its CFG; 4 PQRs. */
	assert_int_equal(fixed, 16 + 8 + 8 + 3 + 4);
	exp_first_use(d.m);
	check_all();
	assert_int_equal(rd(0, 0xd17), 0xff);
	assert_int_equal(rd(0, 0xd18), garbage(0xd18));
	assert_int_equal(rd(2, 0xc90), garbage(0xc90));
	want = calloc(d.st->nslots * 2, sizeof(*want));
	set = calloc(d.st->nslots, sizeof(*set));
	assert_non_null(want);
	assert_non_null(set);
	slot = d.st->slot_of[RDT_L2][1];
	want[slot * 2] = want[slot * 2 + 1] = 0x3c;
	set[slot] = true;
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	/* A new CLOSID for the allocation domain: the L3 mask 1 and both L2 masks 1. */
	exp_mask(0, RDT_L3, 1, M2_FULL);
	exp_mask(0, RDT_L2, 1, 0xff);
	exp_mask(2, RDT_L2, 1, 0x3c);
	check_all();
	assert_int_equal(rdt_bind_cpu(d.st, g, 2), 0);
	exp_pqr(2, 1);
	check_all();
	/* The L3 and L2 0 masks of CLOSID 1 were all-ones already. */
	assert_int_equal(d.st->regs.mask_writes, 1);
	free(want);
	free(set);
	direct_close(&d);
}

/*
 * A write fails half-way (the device of one domain's CPU stops accepting
 * writes): the sink says which CPU and MSR, and reconciling to the image
 * from before the call (what the core does) puts back what was written.
 */
static void fail_half_way(unsigned int sealed, const char *msg)
{
	uint64_t want[4] = { 0xf, 0xf, 0xf0, 0xf0 };
	bool set[2] = { true, true };
	struct rdt_state *undo;
	struct snap before, after;
	struct direct d;
	unsigned int fixed, c, s, reg;
	int g;

	make_sealable(sealed);
	direct_open(&d, M2, &fixed);
	exp_first_use(d.m);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_state_clone(d.st, &undo), 0);
	seal_cpu(sealed);
	take(&before);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), -EPERM);
	assert_string_equal(rdt_msr_last_error(d.ctx), msg);
	take(&after);
	fixed = reconcile(&d, undo, false, 0);
	assert_int_equal(fixed, diff(&before, &after).mask);
	check_all();
	/* Hardware holds the image from before the call, register by register. */
	for (s = 0; s < undo->nslots; s++) {
		c = (unsigned int)d.m->dom[RDT_L3][undo->slot[s].dom].cpus[0];
		for (reg = 0; reg < 16; reg++)
			assert_int_equal(rd(c, mask_addr(RDT_L3, reg)),
					 undo->regs.mask[s * undo->regs.nregs + reg]);
	}
	/* Reconciled: a second pass finds nothing to do. */
	assert_int_equal(reconcile(&d, undo, false, 0), 0);
	rdt_state_free(undo);
	direct_close(&d);
}

static void test_write_fails_second_domain(void **unused)
{
	(void)unused;
	fail_half_way(2, "CPU 2: writing MSR 0xc91 failed: Operation not permitted");
}

static void test_write_fails_first_domain(void **unused)
{
	(void)unused;
	fail_half_way(0, "CPU 0: writing MSR 0xc91 failed: Operation not permitted");
}

static void test_pqr_write_fails(void **unused)
{
	uint64_t want[4] = { 0xf, 0xf, 0xf, 0xf };
	bool set[2] = { true, true };
	struct direct d;
	unsigned int fixed;
	char err[256];
	int g;

	(void)unused;
	make_sealable(3);
	direct_open(&d, M2, &fixed);
	exp_first_use(d.m);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	exp_mask(0, RDT_L3, 1, 0xf);
	exp_mask(2, RDT_L3, 1, 0xf);
	seal_cpu(3);
	assert_int_equal(rdt_bind_cpu(d.st, g, 3), -EPERM);
	assert_string_equal(rdt_msr_last_error(d.ctx),
			    "CPU 3: writing MSR 0xc8f failed: Operation not permitted");
	assert_non_null(strstr(d.st->err, "CPU 3"));
	check_all();
	/* Reconcile reports the CPU and register it could not fix. */
	d.st->regs.pqr[3] = 1;
	assert_int_equal(rdt_backend_msr.reconcile(d.ctx, d.st, false, &fixed, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "CPU 3: writing MSR 0xc8f failed: Operation not permitted");
	assert_int_equal(fixed, 0);
	check_all();
	direct_close(&d);
}

static void test_open_errors(void **unused)
{
	struct rdt_backend_env e;
	struct rdt_machine *m = machine(M2);
	char path[256], err[512] = "", want[512];
	void *ctx = (void *)1;

	(void)unused;
	cpu_path(path, sizeof(path), 1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rdt_backend_msr.open(&ctx, m, env_of(&e, true), err, sizeof(err)),
			 -ENOENT);
	assert_null(ctx);
	snprintf(want, sizeof(want), "CPU 1: cannot open %s: No such file or directory (is the "
		 "CPU online and the msr driver loaded? modprobe msr)", path);
	assert_string_equal(err, want);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(rdt_backend_msr.open(&ctx, m, &e, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "CPU 1: cannot open %s: Is a directory", path);
	assert_string_equal(err, want);
	rdt_machine_free(m);
	assert_int_equal(rmdir(path), 0);
	make_cpu(1);

	/* More CLOSIDs than mask registers: refused before anything is written. */
	m = machine("topology=package:1 l3:1 core:1 pu:1;l3.closids=130");
	assert_int_equal(rdt_backend_msr.open(&ctx, m, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "L3 has 130 CLOSIDs, but only 128 mask registers exist "
			    "(0xc90-0xd0f)");
	rdt_machine_free(m);
	m = machine("topology=package:1 l3:1 l2:1 core:1 pu:1;l2.closids=66");
	assert_int_equal(rdt_backend_msr.open(&ctx, m, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "L2 has 66 CLOSIDs, but only 64 mask registers exist "
			    "(0xd10-0xd4f)");
	rdt_machine_free(m);
	check_all();
}

/* A device that cannot be read: the read of the read-modify-write names it. */
static void test_read_fails(void **unused)
{
	uint64_t want[4] = { 0xf, 0xf, 0xf, 0xf };
	bool set[2] = { true, true };
	char path[256], msg[512];
	struct direct d;
	unsigned int fixed;
	int g;

	(void)unused;
	direct_open(&d, M2, &fixed);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	/* Shrink CPU 1's file under the open descriptor: reads come back short. */
	cpu_path(path, sizeof(path), 1);
	assert_int_equal(truncate(path, 0x100), 0);
	assert_int_equal(rdt_bind_cpu(d.st, g, 1), -EIO);
	snprintf(msg, sizeof(msg), "CPU 1: reading MSR 0xc8f failed: short read of %s", path);
	assert_string_equal(rdt_msr_last_error(d.ctx), msg);
	/* Nothing was written: the image still says CLOSID 0. */
	assert_int_equal(d.st->regs.pqr[1], 0);
	direct_close(&d);
}

/* ---- usable(): the refusals, in order ----------------------------------- */

static int usable(bool given, char *why, size_t len)
{
	struct rdt_backend_env e;

	why[0] = '\0';
	return rdt_backend_msr.usable(env_of(&e, given), why, len);
}

static void test_usable(void **unused)
{
	char why[512], want[512], path[256];
	struct rdtalloc_cpu_caps caps = { .sz = sizeof(caps) };
	int ret;

	(void)unused;
	assert_int_equal(usable(true, why, sizeof(why)), 0);

	make_mounts(NO_RESCTRL "resctrl /sys/fs/resctrl resctrl rw,relatime 0 0\n");
	assert_int_equal(usable(true, why, sizeof(why)), -EBUSY);
	assert_string_equal(why, "resctrl is mounted at /sys/fs/resctrl: the kernel owns the "
			    "CAT registers; unmount it or use the resctrl backend");
	make_mounts("resctrl /mnt/my\\040rdt resctrl rw 0 0\n");
	assert_int_equal(usable(true, why, sizeof(why)), -EBUSY);
	assert_string_equal(why, "resctrl is mounted at /mnt/my rdt: the kernel owns the "
			    "CAT registers; unmount it or use the resctrl backend");
	/* A file system merely named resctrl, or mounted on a path of that name, is not it. */
	make_mounts("resctrl /resctrl tmpfs rw 0 0\n");
	assert_int_equal(usable(true, why, sizeof(why)), 0);

	/* The driver check comes before the resctrl one. */
	make_mounts("resctrl /sys/fs/resctrl resctrl rw 0 0\n");
	cpu_path(path, sizeof(path), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(usable(true, why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "no %s: load the msr driver (modprobe msr), or check the "
		 "device root %s (--msr-root, RDTALLOC_MSR_ROOT)", path, F.dir);
	assert_string_equal(why, want);
	make_cpu(0);
	assert_int_equal(usable(true, why, sizeof(why)), -EBUSY);

	/* No mount table: we cannot tell, so we do not run. */
	assert_int_equal(unlink(F.mounts), 0);
	assert_int_equal(usable(true, why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "cannot read the mount table %s to check that resctrl is "
		 "not mounted: No such file or directory", F.mounts);
	assert_string_equal(why, want);
	make_mounts(NO_RESCTRL);

	/* Without a machine description, the CPU must have CAT (or be a Haswell-EP). */
	rdt_detect_host(&caps, why, sizeof(why));
	ret = usable(false, why, sizeof(why));
	if (caps.rdt_alloc || caps.probe_needed) {
		assert_int_equal(ret, 0);
	} else {
		assert_int_equal(ret, -ENODEV);
		snprintf(want, sizeof(want), "CPUID: no cache allocation on this CPU (%s)",
			 caps.summary);
		assert_string_equal(why, want);
	}
}

/* Run fn in a child that has become nobody: exit status 0 when it agreed. */
static void as_nobody(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(fn());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int nobody_usable(void)
{
	char why[256];

	return usable(true, why, sizeof(why)) == -EPERM &&
	       !strcmp(why, "the msr backend needs root (CAP_SYS_RAWIO)") ? 0 : 1;
}

static void test_usable_not_root(void **unused)
{
	char path[PATH_MAX], why[256];

	(void)unused;
	if (geteuid() != 0)
		skip();		/* the test drops root itself */
	/* Before anything else: even with resctrl mounted and no CPU 0 device. */
	make_mounts("resctrl /sys/fs/resctrl resctrl rw 0 0\n");
	cpu_path(path, sizeof(path), 0);
	assert_int_equal(unlink(path), 0);
	as_nobody(nobody_usable);
	make_cpu(0);
	/* The child's refusal was not an accident of this fixture. */
	make_mounts(NO_RESCTRL);
	assert_int_equal(usable(true, why, sizeof(why)), 0);
}

static void test_task_binding(void **unused)
{
	char err[256];

	(void)unused;
	assert_int_equal(rdt_backend_msr.task_binding(NULL, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "switch hook"));
	if (rdt_hook_built())
		assert_non_null(strstr(err, "start it with `rdtctl --backend msr hook start`"));
	else
		assert_non_null(strstr(err, "built without it (RDTALLOC_BPF=OFF)"));
	assert_string_equal(rdt_backend_msr.name, "msr");
	assert_false(rdt_backend_msr.simulated);
}

/* ---- The machine: CPUID description and the Haswell-EP probe ------------- */

/* A device root DIR/name whose CPU 0 device is a link to target; its path in root. */
static void link_root(const char *name, const char *target, char *root, size_t len)
{
	char path[256];

	snprintf(root, len, "%s/%s", F.dir, name);
	assert_int_equal(mkdir(root, 0700), 0);
	snprintf(path, sizeof(path), "%s/0", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/0/msr", root);
	assert_int_equal(symlink(target, path), 0);
}

static void test_probe(void **unused)
{
	char zero[128], full[128];

	(void)unused;
	wr(1, RDT_MSR_PQR_ASSOC, (3ull << 32) | 0x3ff);
	/* A register that keeps CLOSID 1; the original value is put back. */
	assert_int_equal(rdt_msr_probe_haswell(F.dir, 0), 1);
	assert_int_equal(rdt_msr_probe_haswell(F.dir, 1), 1);
	assert_int_equal(rd(0, RDT_MSR_PQR_ASSOC), (5ull << 32) | RMID);
	assert_int_equal(rd(1, RDT_MSR_PQR_ASSOC), (3ull << 32) | 0x3ff);
	/* One that does not (reads as zero whatever is written). */
	link_root("z", "/dev/zero", zero, sizeof(zero));
	assert_int_equal(rdt_msr_probe_haswell(zero, 0), 0);
	/* One that cannot be written at all is an error, not an answer. */
	link_root("f", "/dev/full", full, sizeof(full));
	assert_int_equal(rdt_msr_probe_haswell(full, 0), -ENOSPC);
	assert_int_equal(rdt_msr_probe_haswell(F.dir, 7), -ENOENT);
	assert_int_equal(rdt_msr_probe_haswell(F.dir, -1), -EINVAL);
}

static struct rdtalloc_cpu_caps fake_caps(void)
{
	struct rdtalloc_cpu_caps c;

	memset(&c, 0, sizeof(c));
	c.sz = sizeof(c);
	snprintf(c.vendor, sizeof(c.vendor), "GenuineIntel");
	c.family = 6;
	return c;
}

static void test_describe_host(void **unused)
{
	struct rdtalloc_cpu_caps c = fake_caps();
	struct rdt_machine *m;
	char err[256] = "", zero[128], *desc = (char *)1;

	(void)unused;
	/* Broadwell-style L3 CAT with CDP. */
	c.rdt_alloc = 1;
	c.nres = 1;
	snprintf(c.res[0].name, sizeof(c.res[0].name), "L3");
	c.res[0].closids = 16;
	c.res[0].cbm_len = 11;
	c.res[0].shareable_bits = 0x600;
	c.res[0].cdp = 1;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=16;l3.cbm_len=11;l3.min_cbm_bits=1;"
			    "l3.shareable_bits=0x600;l3.cdp=1;l3.sparse=0;mon.rmids=0");
	m = machine(desc);
	assert_int_equal(m->caps[RDT_L3].closids, 16);
	assert_int_equal(m->caps[RDT_L3].shareable_bits, 0x600);
	rdt_machine_free(m);
	free(desc);

	/* L3 and L2 (Snow Ridge style, sparse L2 masks). */
	c.nres = 2;
	snprintf(c.res[1].name, sizeof(c.res[1].name), "L2");
	c.res[1].closids = 8;
	c.res[1].cbm_len = 12;
	c.res[1].sparse = 1;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=16;l3.cbm_len=11;l3.min_cbm_bits=1;"
			    "l3.shareable_bits=0x600;l3.cdp=1;l3.sparse=0;l2.closids=8;"
			    "l2.cbm_len=12;l2.min_cbm_bits=1;l2.shareable_bits=0x0;l2.cdp=0;"
			    "l2.sparse=1;mon.rmids=0");
	free(desc);

	/* L2 only: the L3 of the machine model must be switched off. */
	c.nres = 1;
	c.res[0] = c.res[1];
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=0;l2.closids=8;l2.cbm_len=12;l2.min_cbm_bits=1;"
			    "l2.shareable_bits=0x0;l2.cdp=0;l2.sparse=1");
	free(desc);

	/* An odd CLOSID count cannot be halved: CDP is not offered. */
	c.res[0] = c.res[1];
	snprintf(c.res[0].name, sizeof(c.res[0].name), "L3");
	c.res[0].closids = 15;
	c.res[0].cdp = 1;
	c.res[0].sparse = 0;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=15;l3.cbm_len=12;l3.min_cbm_bits=1;"
			    "l3.shareable_bits=0x0;l3.cdp=0;l3.sparse=0;mon.rmids=0");
	free(desc);
	/* with L3 monitoring: CPUID 0xF's RMIDs, scale, width and events */
	c.l3_mon = 1;
	c.mon_rmids = 192;
	c.mon_scale = 98304;
	c.mon_width = 24;
	c.mon_events = 5;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=15;l3.cbm_len=12;l3.min_cbm_bits=1;"
			    "l3.shareable_bits=0x0;l3.cdp=0;l3.sparse=0;mon.rmids=192;"
			    "mon.scale=98304;mon.width=24;mon.events=llc_occupancy,mbm_local_bytes");
	m = machine(desc);
	assert_int_equal(m->mon.rmids, 192);
	assert_int_equal(m->mon.events, 5);
	rdt_machine_free(m);
	free(desc);
	c.l3_mon = 0;

	/* No allocation. */
	c = fake_caps();
	snprintf(c.summary, sizeof(c.summary), "X: no RDT cache allocation enumerated");
	desc = (char *)1;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), -ENODEV);
	assert_null(desc);
	assert_string_equal(err, "CPUID: no cache allocation on this CPU (X: no RDT cache "
			    "allocation enumerated)");

	/* Haswell-EP: the probe on CPU 0 decides. */
	c.model = 0x3f;
	c.probe_needed = 1;
	assert_int_equal(rdt_msr_describe_host(&c, F.dir, &desc, err, sizeof(err)), 0);
	assert_string_equal(desc, "l3.closids=4;l3.cbm_len=20;l3.min_cbm_bits=2;"
			    "l3.shareable_bits=0;l3.cdp=0;l3.sparse=0");
	m = machine(desc);
	assert_int_equal(m->caps[RDT_L3].closids, 4);
	assert_int_equal(m->caps[RDT_L3].cbm_len, 20);
	assert_int_equal(m->caps[RDT_L3].min_cbm_bits, 2);
	assert_false(m->caps[RDT_L3].cdp);
	rdt_machine_free(m);
	free(desc);
	check_all();	/* the probe left PQR_ASSOC as it was */
	link_root("z", "/dev/zero", zero, sizeof(zero));
	assert_int_equal(rdt_msr_describe_host(&c, zero, &desc, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "Haswell-EP probe: PQR_ASSOC did not keep CLOSID 1: no CAT");
	snprintf(zero, sizeof(zero), "%s/none", F.dir);
	assert_int_equal(rdt_msr_describe_host(&c, zero, &desc, err, sizeof(err)), -ENOENT);
	assert_string_equal(err + strlen(err) - strlen(": No such file or directory"),
			    ": No such file or directory");
}

/* ---- Raw: offsets are MSR addresses ------------------------------------ */

static int setup_raw(void **unused)
{
	(void)unused;
	make_root_as(4, false);	/* plain files, as the issue describes them */
	return 0;
}

static uint64_t rd_raw(unsigned int cpu, off_t off)
{
	char path[PATH_MAX];
	uint64_t v = 0;
	int fd;

	cpu_path(path, sizeof(path), cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(syscall(SYS_pread64, fd, &v, 8, off), 8);
	close(fd);
	return v;
}

static void test_raw_offsets(void **unused)
{
	uint64_t want[4] = { 0xf, 0xf, 0xf0, 0xf0 };
	bool set[2] = { true, true };
	struct direct d;
	unsigned int fixed;
	int g;

	(void)unused;
	direct_open(&d, M2, &fixed);
	assert_int_equal(rdt_group_add(d.st, "a", &g), 0);
	assert_int_equal(rdt_group_set_masks(d.st, g, want, set), 0);
	/* The 8 bytes at offset 0xc91 of CPU 2's device are mask register 1. */
	assert_int_equal(rd_raw(2, 0xc91), 0xf0);
	assert_int_equal(rd_raw(0, 0xc91), 0xf);
	/* CPU 1 programs no domain: its only write is PQR_ASSOC at 0xc8f. */
	assert_int_equal(rdt_bind_cpu(d.st, g, 1), 0);
	assert_int_equal(rd_raw(1, 0xc8f), (1ull << 32) | RMID);
	direct_close(&d);
}

/* ---- Through the public API --------------------------------------------- */

static int api_open_rc(rdtalloc_t **r, const char *desc, const char *dir)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "msr", .machine = desc, .state_dir = dir,
		      .flags = dir ? 0 : RDTALLOC_F_EPHEMERAL);

	*r = NULL;
	return rdtalloc_open(r, &o);
}

/*
 * The core knows the msr backend (the lead wires it into core.c's table).
 * Asked with resctrl "mounted", so that the answer touches no register.
 */
static bool core_has_msr(void)
{
	char busy[160];
	rdtalloc_t *r;
	FILE *f;
	int ret;

	snprintf(busy, sizeof(busy), "%s/busy-mounts", F.dir);
	f = fopen(busy, "w");

	assert_non_null(f);
	fputs("resctrl /sys/fs/resctrl resctrl rw 0 0\n", f);
	fclose(f);
	setenv("RDTALLOC_MOUNTS", busy, 1);
	ret = api_open_rc(&r, M2, NULL);
	setenv("RDTALLOC_MOUNTS", F.mounts, 1);
	unlink(busy);
	rdtalloc_close(r);
	if (ret == -EINVAL && strstr(rdtalloc_errmsg(NULL), "unknown backend 'msr'"))
		return false;
	assert_int_equal(ret, -EBUSY);
	return true;
}

static rdtalloc_t *api_open(const char *desc, const char *dir)
{
	rdtalloc_t *r;
	int ret;

	if (!core_has_msr())
		skip();
	ret = api_open_rc(&r, desc, dir);
	if (ret)
		fail_msg("rdtalloc_open(msr, %s): %d %s", desc, ret, rdtalloc_errmsg(NULL));
	return r;
}

#define API_OK(r, expr)								\
	do {									\
		int ok_rc_ = (expr);						\
		if (ok_rc_ < 0)							\
			fail_msg("%s: %d %s", #expr, ok_rc_, rdtalloc_errmsg(r));	\
	} while (0)

struct step {
	rdtalloc_t *r;
	struct snap before;
	struct rdtalloc_stats stats;
};

static void step_begin(struct step *s, rdtalloc_t *r)
{
	s->r = r;
	take(&s->before);
	s->stats = (struct rdtalloc_stats){ .sz = sizeof(s->stats) };
	API_OK(r, rdtalloc_get_stats(r, &s->stats));
}

/* After a call: the registers are as expected, and counted once each. */
static void step_end(struct step *s)
{
	struct rdtalloc_stats now = { .sz = sizeof(now) };
	struct snap after;
	struct counts n;

	check_all();
	take(&after);
	n = diff(&s->before, &after);
	API_OK(s->r, rdtalloc_get_stats(s->r, &now));
	assert_int_equal(now.mask_writes - s->stats.mask_writes, n.mask);
	assert_int_equal(now.pqr_writes - s->stats.pqr_writes, n.pqr);
	assert_int_equal(now.cfg_writes - s->stats.cfg_writes, n.cfg);
}

/* What the library says it wrote is what the hardware holds. */
static void check_agree(rdtalloc_t *r, const struct rdt_machine *m)
{
	unsigned int res, d, reg, c, closid;
	uint64_t v;

	for (res = 0; res < RDT_NRES; res++) {
		if (!m->caps[res].present)
			continue;
		for (d = 0; d < m->ndom[res]; d++) {
			c = (unsigned int)m->dom[res][d].cpus[0];
			for (reg = 0; reg < m->caps[res].closids; reg++) {
				API_OK(r, rdtalloc_read_mask(r, rdt_res_name(res),
							     m->dom[res][d].cache_id, reg, &v));
				assert_int_equal(rd(c, mask_addr(res, reg)), v);
			}
			if (m->caps[res].cdp)
				assert_int_equal(rd(c, res == RDT_L3 ? RDT_MSR_L3_QOS_CFG
								     : RDT_MSR_L2_QOS_CFG) & 1,
						 rdtalloc_get_cdp(r, rdt_res_name(res)));
		}
	}
	for (c = 0; c < m->ncpus; c++) {
		API_OK(r, rdtalloc_read_pqr(r, (int)c, &closid));
		assert_int_equal(rd(c, RDT_MSR_PQR_ASSOC) >> 32, closid);
		assert_int_equal(rd(c, RDT_MSR_PQR_ASSOC) & 0x3ff, RMID);
	}
}

static void test_api_calls(void **unused)
{
	struct rdt_machine *m = machine(M2);
	struct step s;
	rdtalloc_t *r;
	unsigned int k;

	(void)unused;
	r = api_open(M2, NULL);
	assert_string_equal(rdtalloc_backend(r), "msr");
	exp_first_use(m);
	check_all();

	step_begin(&s, r);
	API_OK(r, rdtalloc_group_create(r, "a"));
	step_end(&s);			/* all-ones: shares CLOSID 0, nothing written */

	step_begin(&s, r);
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f0"));
	exp_mask(0, RDT_L3, 1, 0xf);
	exp_mask(2, RDT_L3, 1, 0xf0);
	step_end(&s);

	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, "a", 1));
	exp_pqr(1, 1);
	step_end(&s);

	step_begin(&s, r);
	API_OK(r, rdtalloc_group_create(r, "b"));
	API_OK(r, rdtalloc_set_schema(r, "b", "L3:0=f;1=f0"));
	step_end(&s);			/* same masks as a: shares CLOSID 1 */

	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, "b", 3));
	exp_pqr(3, 1);
	step_end(&s);

	/* a moves to a new CLOSID in domain 0: its CPU's PQR_ASSOC follows. */
	step_begin(&s, r);
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=3"));
	API_OK(r, rdtalloc_group_closid(r, "a", "L3", 0, &k));
	assert_int_equal(k, 2);
	exp_mask(0, RDT_L3, 2, 0x3);
	exp_pqr(1, 2);
	step_end(&s);

	/* b's mask changes in place (it alone holds CLOSID 1 in domain 0). */
	step_begin(&s, r);
	API_OK(r, rdtalloc_set_schema(r, "b", "L3:0=ff0"));
	exp_mask(0, RDT_L3, 1, 0xff0);
	step_end(&s);

	step_begin(&s, r);
	API_OK(r, rdtalloc_group_remove(r, "b"));
	exp_pqr(3, 0);
	step_end(&s);

	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, NULL, 1));
	exp_pqr(1, 0);
	step_end(&s);
	check_agree(r, m);

	/* Tasks need the switch hook. */
	step_begin(&s, r);
	assert_int_equal(rdtalloc_bind_task(r, "a", 0), -EOPNOTSUPP);
	assert_non_null(strstr(rdtalloc_errmsg(r), "needs the switch hook"));
	step_end(&s);

	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, "a", 2));
	exp_pqr(2, 1);
	step_end(&s);

	/* Reset: the hardware as at boot. */
	step_begin(&s, r);
	API_OK(r, rdtalloc_reset(r));
	exp_first_use(m);
	step_end(&s);
	check_agree(r, m);
	rdtalloc_close(r);
	rdt_machine_free(m);
}

static void test_api_cdp_l2(void **unused)
{
	struct rdt_machine *m = machine(MCDP);
	struct step s;
	rdtalloc_t *r;

	(void)unused;
	r = api_open(MCDP, NULL);
	exp_first_use(m);
	check_all();
	step_begin(&s, r);
	API_OK(r, rdtalloc_set_cdp(r, "L3", 1));
	exp_cfg(0, RDT_L3, true);
	exp_cfg(2, RDT_L3, true);
	step_end(&s);
	step_begin(&s, r);
	API_OK(r, rdtalloc_group_create(r, "a"));
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=3,7f0;1=7c0,1f"));
	exp_mask(0, RDT_L3, 2, 0x3);
	exp_mask(0, RDT_L3, 3, 0x7f0);
	exp_mask(2, RDT_L3, 2, 0x7c0);
	exp_mask(2, RDT_L3, 3, 0x1f);
	step_end(&s);
	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, "a", 0));
	exp_pqr(0, 1);
	step_end(&s);
	check_agree(r, m);
	step_begin(&s, r);
	API_OK(r, rdtalloc_reset(r));
	exp_first_use(m);
	step_end(&s);
	rdtalloc_close(r);
	rdt_machine_free(m);

	/* L2: masks at 0xd10 + n on the first CPU of each L2 domain. */
	teardown(NULL);
	make_root(4);
	m = machine(ML2);
	r = api_open(ML2, NULL);
	exp_first_use(m);
	check_all();
	step_begin(&s, r);
	API_OK(r, rdtalloc_group_create(r, "a"));
	API_OK(r, rdtalloc_set_schema(r, "a", "L2:1=3c"));
	exp_mask(0, RDT_L3, 1, M2_FULL);
	exp_mask(0, RDT_L2, 1, 0xff);
	exp_mask(2, RDT_L2, 1, 0x3c);
	step_end(&s);
	step_begin(&s, r);
	API_OK(r, rdtalloc_bind_cpu(r, "a", 3));
	exp_pqr(3, 1);
	step_end(&s);
	check_agree(r, m);
	rdtalloc_close(r);
	rdt_machine_free(m);
}

static void test_api_reopen_reconciles(void **unused)
{
	struct rdt_machine *m = machine(M2);
	char state[128];
	rdtalloc_t *r;

	(void)unused;
	snprintf(state, sizeof(state), "%s/state", F.dir);
	r = api_open(M2, state);
	exp_first_use(m);
	check_all();
	API_OK(r, rdtalloc_group_create(r, "a"));
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=f;1=f0"));
	API_OK(r, rdtalloc_bind_cpu(r, "a", 1));
	exp_mask(0, RDT_L3, 1, 0xf);
	exp_mask(2, RDT_L3, 1, 0xf0);
	exp_pqr(1, 1);
	rdtalloc_close(r);
	check_all();

	/* Agreeing hardware: reopening writes nothing and says nothing. */
	r = api_open(M2, state);
	assert_null(strstr(rdtalloc_backend_reason(r), "disagreed"));
	check_all();
	rdtalloc_close(r);

	/* A reboot or someone else's writes: three registers differ. */
	wr(2, 0xc91, 0xfffff);
	wr(1, RDT_MSR_PQR_ASSOC, RMID);
	wr(0, RDT_MSR_L3_QOS_CFG, 0x5);
	r = api_open(M2, state);
	assert_non_null(strstr(rdtalloc_backend_reason(r),
			       "3 registers disagreed with the state and were re-applied"));
	check_all();
	check_agree(r, m);
	rdtalloc_close(r);
	r = api_open(M2, state);
	assert_null(strstr(rdtalloc_backend_reason(r), "disagreed"));
	rdtalloc_close(r);

	/*
	 * Without a description: the state records one, so it counts as given
	 * and CPUID (no CAT on a test machine, maybe) is not asked; the groups
	 * are those of the state.
	 */
	r = api_open(NULL, state);
	assert_int_equal(rdtalloc_group_count(r), 2);
	assert_null(strstr(rdtalloc_backend_reason(r), "disagreed"));
	check_all();
	rdtalloc_close(r);
	rdt_machine_free(m);
}

static int nobody_open(void)
{
	rdtalloc_t *r;
	int ret = api_open_rc(&r, M2, NULL);

	rdtalloc_close(r);
	return ret == -EPERM && strstr(rdtalloc_errmsg(NULL), "needs root (CAP_SYS_RAWIO)") ?
	       0 : 1;
}

static void test_api_refusals(void **unused)
{
	char path[PATH_MAX];
	rdtalloc_t *r;

	(void)unused;
	if (!core_has_msr())
		skip();
	make_mounts(NO_RESCTRL "resctrl /sys/fs/resctrl resctrl rw 0 0\n");
	assert_int_equal(api_open_rc(&r, M2, NULL), -EBUSY);
	assert_null(r);
	assert_non_null(strstr(rdtalloc_errmsg(NULL), "resctrl is mounted at /sys/fs/resctrl: "
			       "the kernel owns the CAT registers"));
	make_mounts(NO_RESCTRL);

	cpu_path(path, sizeof(path), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(api_open_rc(&r, M2, NULL), -ENOENT);
	assert_non_null(strstr(rdtalloc_errmsg(NULL), "load the msr driver (modprobe msr)"));
	make_cpu(0);

	/* A device of a later CPU missing: the open names it, nothing is written. */
	cpu_path(path, sizeof(path), 3);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(api_open_rc(&r, M2, NULL), -ENOENT);
	assert_non_null(strstr(rdtalloc_errmsg(NULL), "CPU 3: cannot open"));
	assert_non_null(strstr(rdtalloc_errmsg(NULL), path));
	make_cpu(3);

	if (geteuid() == 0)
		as_nobody(nobody_open);
	/* None of the refused opens touched a register. */
	check_all();
}

static void test_api_write_fails(void **unused)
{
	struct rdt_machine *m = machine(M2);
	char before[256], after[256], group[64];
	struct step s;
	rdtalloc_t *r;

	(void)unused;
	make_sealable(2);
	r = api_open(M2, NULL);
	exp_first_use(m);
	API_OK(r, rdtalloc_group_create(r, "a"));
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=3"));
	API_OK(r, rdtalloc_bind_cpu(r, "a", 1));
	API_OK(r, rdtalloc_group_create(r, "b"));
	API_OK(r, rdtalloc_set_schema(r, "b", "L3:1=f"));
	exp_mask(0, RDT_L3, 1, 0x3);
	exp_mask(2, RDT_L3, 1, 0xf);
	exp_pqr(1, 1);
	check_all();
	seal_cpu(2);

	/* Domain 0 is written (in place), domain 1 fails: domain 0 is put back. */
	assert_int_equal(rdtalloc_get_schema(r, "a", before, sizeof(before)) > 0, 1);
	step_begin(&s, r);
	assert_int_equal(rdtalloc_set_schema(r, "a", "L3:0=f;1=f0"), -EPERM);
	assert_non_null(strstr(rdtalloc_errmsg(r), "L3 cache id 1"));
	assert_non_null(strstr(rdtalloc_errmsg(r), "mask register 2"));
	/* and the register file's own detail: the CPU it wrote on and the MSR */
	assert_non_null(strstr(rdtalloc_errmsg(r), "(CPU 2: writing MSR 0xc92 failed"));
	step_end(&s);
	assert_int_equal(rdtalloc_get_schema(r, "a", after, sizeof(after)) > 0, 1);
	assert_string_equal(after, before);
	check_agree(r, m);

	/* A PQR_ASSOC write that fails leaves the CPU where it was. */
	step_begin(&s, r);
	assert_int_equal(rdtalloc_bind_cpu(r, "b", 2), -EPERM);
	assert_non_null(strstr(rdtalloc_errmsg(r), "CPU 2: writing IA32_PQR_ASSOC failed (CPU 2: "
			       "writing MSR 0xc8f failed"));
	step_end(&s);
	API_OK(r, rdtalloc_cpu_group(r, 2, group, sizeof(group)));
	assert_string_equal(group, "default");
	check_agree(r, m);

	/* The other domains still work. */
	step_begin(&s, r);
	API_OK(r, rdtalloc_set_schema(r, "a", "L3:0=1f"));
	exp_mask(0, RDT_L3, 1, 0x1f);
	step_end(&s);
	rdtalloc_close(r);
	rdt_machine_free(m);
}

/*
 * A dry run writes no register; a real apply refused at a later line puts
 * back every register its earlier lines wrote (issue 31, item 2). Checked
 * through the API, so that no dry run of the CLI stands in front of it.
 */
static void test_api_apply_no_harm(void **unused)
{
	static const char *const refused[] = {
		"group base\n  schema L3:0=ff000;1=ff000\ngroup x\n  schema L3:0=5\n",
		"group base\n  schema L3:0=ff000;1=ff000\n  cpus 0,99\n",
		("group base\n  schema L3:0=ff000;1=ff000\ngroup e\n  schema L3:0=ff\n"
		 "  mode exclusive\n"),
	};
	struct rdt_machine *m = machine(M2);
	char before[256], after[256];
	struct step s;
	rdtalloc_t *r;
	size_t i;

	(void)unused;
	r = api_open(M2, NULL);
	exp_first_use(m);
	API_OK(r, rdtalloc_group_create(r, "base"));
	API_OK(r, rdtalloc_set_schema(r, "base", "L3:0=3;1=3"));
	API_OK(r, rdtalloc_bind_cpu(r, "base", 0));
	API_OK(r, rdtalloc_bind_cpu(r, "base", 2));
	exp_mask(0, RDT_L3, 1, 0x3);
	exp_mask(2, RDT_L3, 1, 0x3);
	exp_pqr(0, 1);
	exp_pqr(2, 1);
	check_all();
	assert_int_equal(rdtalloc_get_schema(r, "base", before, sizeof(before)) > 0, 1);

	step_begin(&s, r);
	assert_int_equal(rdtalloc_apply_config(r, "group base\n  schema L3:0=ff000;1=ff000\n"
					       "  cpus 1\n", RDTALLOC_APPLY_DRY_RUN), 4);
	step_end(&s);			/* every register as it was, none counted */
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		step_begin(&s, r);
		assert_true(rdtalloc_apply_config(r, refused[i], 0) < 0);
		step_end(&s);
		check_agree(r, m);
	}
	assert_int_equal(rdtalloc_get_schema(r, "base", after, sizeof(after)) > 0, 1);
	assert_string_equal(after, before);
	rdtalloc_close(r);
	rdt_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_use, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_no_cdp, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_reconcile_fixes, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_sink_writes, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_cdp, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_l2, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails_second_domain, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails_first_domain, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_pqr_write_fails, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_read_fails, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_usable, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_usable_not_root, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_task_binding, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_probe, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_describe_host, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_raw_offsets, setup_raw, teardown),
		cmocka_unit_test_setup_teardown(test_api_calls, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_api_cdp_l2, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_api_reopen_reconciles, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_api_refusals, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_api_write_fails, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_api_apply_no_harm, setup4, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
