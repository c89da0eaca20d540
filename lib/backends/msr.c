// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * msr: the register file of real hardware, through the Linux msr driver
 * (<root>/<cpu>/msr, 8-byte pread/pwrite at offset = MSR address). The
 * engine decides every value; this file only says whether the backend may
 * run here, which machine it drives (CPUID, or the Haswell-EP probe), and
 * moves values to and from the registers: mask and CDP registers on the
 * first CPU of their domain, PQR_ASSOC on every CPU, keeping the RMID.
 * It owns no state: reconcile makes the hardware hold the state's image.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "backends/msr.h"
#include "detect/detect.h"
#include "hook/hook.h"
#include "monitor/monitor.h"
#include "mounts.h"

#define CAP_SYS_RAWIO_BIT 17
#define PQR_CLOSID_FIELD UINT64_C(0xffffffff00000000)
#define CFG_CDP_FIELD UINT64_C(1)
#define WHOLE_REG UINT64_MAX

struct msr_ctx {
	const struct rdt_machine *m;	/* not owned */
	char *root;
	int *fd;			/* [ncpus]; -1: CPU absent */
	struct rdt_sink sink;
	char err[RDT_ERR_LEN];		/* why the last access failed */
};

static const char *root_of(const struct rdt_backend_env *env)
{
	return env && env->msr_root && *env->msr_root ? env->msr_root : RDT_MSR_DEFAULT_ROOT;
}

static bool root_is_default(const char *root)
{
	return !strcmp(root, RDT_MSR_DEFAULT_ROOT);
}

static void device_path(char *buf, size_t len, const char *root, int cpu)
{
	snprintf(buf, len, "%s/%d/msr", root, cpu);
}

/* ---- Register access ---------------------------------------------------- */

/* One 8-byte access: 0, -errno, or -EIO for a short transfer (*short_io set). */
static int msr_io(int fd, bool write, uint32_t addr, uint64_t *val, bool *short_io)
{
	ssize_t n;

	*short_io = false;
	do {
		if (write)
			n = pwrite(fd, val, sizeof(*val), addr);
		else
			n = pread(fd, val, sizeof(*val), addr);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != sizeof(*val)) {
		*short_io = true;
		return -EIO;
	}
	return 0;
}

static int reg_access(struct msr_ctx *c, int cpu, bool write, uint32_t addr, uint64_t *val)
{
	const char *verb = write ? "writing" : "reading";
	bool short_io;
	int ret;

	if (cpu < 0 || (unsigned int)cpu >= c->m->ncpus || c->fd[cpu] < 0) {
		snprintf(c->err, sizeof(c->err), "CPU %d: %s MSR 0x%x: the CPU has no msr "
			 "device open", cpu, verb, addr);
		return -EINVAL;
	}
	ret = msr_io(c->fd[cpu], write, addr, val, &short_io);
	if (!ret)
		return 0;
	if (short_io)
		snprintf(c->err, sizeof(c->err), "CPU %d: %s MSR 0x%x failed: short %s of "
			 "%s/%d/msr", cpu, verb, addr, write ? "write" : "read", c->root, cpu);
	else if (ret == -EIO)
		/* What the msr driver returns when the CPU raises #GP on the access. */
		snprintf(c->err, sizeof(c->err), "CPU %d: %s MSR 0x%x failed: %s (the CPU "
			 "rejected the access)", cpu, verb, addr, strerror(-ret));
	else
		snprintf(c->err, sizeof(c->err), "CPU %d: %s MSR 0x%x failed: %s", cpu, verb,
			 addr, strerror(-ret));
	return ret;
}

static int reg_read(struct msr_ctx *c, int cpu, uint32_t addr, uint64_t *val)
{
	return reg_access(c, cpu, false, addr, val);
}

static int reg_write(struct msr_ctx *c, int cpu, uint32_t addr, uint64_t val)
{
	return reg_access(c, cpu, true, addr, &val);
}

/* Replace the bits of field with want (already in place), keep the others. */
static int reg_update(struct msr_ctx *c, int cpu, uint32_t addr, uint64_t field, uint64_t want)
{
	uint64_t cur;
	int ret = reg_read(c, cpu, addr, &cur);

	if (ret)
		return ret;
	return reg_write(c, cpu, addr, (cur & ~field) | want);
}

static uint32_t mask_addr(const struct rdt_machine *m, enum rdt_res res, unsigned int reg)
{
	if (res == RDT_MB)
		return (m->caps[RDT_MB].mb_amd ? RDT_MSR_AMD_BW_BASE : RDT_MSR_MBA_THRTL_BASE) + reg;
	return (res == RDT_L3 ? RDT_MSR_L3_MASK_BASE : RDT_MSR_L2_MASK_BASE) + reg;
}

/* What the register holds for a value of the image: Intel's MB register is a delay. */
static uint64_t reg_value(const struct rdt_machine *m, enum rdt_res res, uint64_t val)
{
	if (res == RDT_MB && !m->caps[RDT_MB].mb_amd)
		return val >= m->caps[RDT_MB].mb_max ? 0 : m->caps[RDT_MB].mb_max - val;
	return val;
}

static uint32_t cfg_addr(enum rdt_res res)
{
	return res == RDT_L3 ? RDT_MSR_L3_QOS_CFG : RDT_MSR_L2_QOS_CFG;
}

/* The CPU that programs a domain's registers: its first one with a device. */
static int dom_cpu(struct msr_ctx *c, enum rdt_res res, unsigned int dom)
{
	const struct rdt_domain *d;
	unsigned int i;

	if (dom >= c->m->ndom[res]) {
		snprintf(c->err, sizeof(c->err), "%s domain index %u does not exist",
			 rdt_res_name(res), dom);
		return -EINVAL;
	}
	d = &c->m->dom[res][dom];
	for (i = 0; i < d->ncpus; i++)
		if ((unsigned int)d->cpus[i] < c->m->ncpus && c->fd[d->cpus[i]] >= 0)
			return d->cpus[i];
	snprintf(c->err, sizeof(c->err), "%s cache id %u: no CPU of the domain has an msr "
		 "device open", rdt_res_name(res), d->cache_id);
	return -ENODEV;
}

/* ---- Sink: the engine's writes ------------------------------------------ */

static int sink_mask(void *ctx, enum rdt_res res, unsigned int dom, unsigned int reg,
		     uint64_t val)
{
	struct msr_ctx *c = ctx;
	int cpu;

	c->err[0] = '\0';
	cpu = dom_cpu(c, res, dom);
	if (cpu < 0)
		return cpu;
	return reg_write(c, cpu, mask_addr(c->m, res, reg), reg_value(c->m, res, val));
}

static int sink_cfg(void *ctx, enum rdt_res res, unsigned int dom, bool on)
{
	struct msr_ctx *c = ctx;
	int cpu;

	c->err[0] = '\0';
	cpu = dom_cpu(c, res, dom);
	if (cpu < 0)
		return cpu;
	return reg_update(c, cpu, cfg_addr(res), CFG_CDP_FIELD, on ? CFG_CDP_FIELD : 0);
}

static int sink_assoc(void *ctx, int cpu, unsigned int closid, unsigned int rmid)
{
	struct msr_ctx *c = ctx;

	return reg_update(c, cpu, RDT_MSR_PQR_ASSOC, PQR_CLOSID_FIELD | RDT_PQR_RMID_FIELD,
			  (uint64_t)closid << 32 | (rmid & RDT_PQR_RMID_FIELD));
}

static int sink_pqr(void *ctx, int cpu, unsigned int closid)
{
	struct msr_ctx *c = ctx;

	c->err[0] = '\0';
	return reg_update(c, cpu, RDT_MSR_PQR_ASSOC, PQR_CLOSID_FIELD, (uint64_t)closid << 32);
}

/* ---- Reconcile: make the hardware hold a register image -------------------- */

struct fixer {
	struct msr_ctx *c;
	bool first;		/* write everything, read only what must be kept */
	bool digest;		/* write nothing, hash what is read */
	uint64_t hash;
	unsigned int fixed;
	int ret;		/* the first failure; the others are still tried */
	char err[RDT_ERR_LEN];
};

static void fixer_fail(struct fixer *f, int ret)
{
	if (f->ret)
		return;
	f->ret = ret;
	snprintf(f->err, sizeof(f->err), "%s", f->c->err);
}

/* Make the bits of field hold want on cpu's register addr; count a write. */
/* FNV-1a, 64 bits, over a value's 8 bytes. */
static uint64_t fnv(uint64_t h, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static void fix_reg(struct fixer *f, int cpu, uint32_t addr, uint64_t field, uint64_t want)
{
	uint64_t cur = 0;
	int ret;

	if (f->digest) {
		ret = reg_read(f->c, cpu, addr, &cur);
		if (ret)
			fixer_fail(f, ret);
		f->hash = fnv(fnv(fnv(f->hash, (uint64_t)cpu), addr), cur);
		return;
	}
	if (field != WHOLE_REG || !f->first) {
		ret = reg_read(f->c, cpu, addr, &cur);
		if (ret) {
			fixer_fail(f, ret);
			return;
		}
		if (!f->first && (cur & field) == want)
			return;
	}
	ret = reg_write(f->c, cpu, addr, (cur & ~field) | want);
	if (ret) {
		fixer_fail(f, ret);
		return;
	}
	f->fixed++;
}

/* The CDP settings that are on (on: true) or off in the image. */
static void fix_cfgs(struct fixer *f, const struct rdt_state *st, bool on)
{
	unsigned int s;
	int cpu;

	for (s = 0; s < st->nslots; s++) {
		enum rdt_res res = st->slot[s].res;

		/* Without CDP support the register may not exist (#GP). */
		if (!st->m->caps[res].cdp || st->regs.cfg[s] != on)
			continue;
		cpu = dom_cpu(f->c, res, st->slot[s].dom);
		if (cpu < 0) {
			fixer_fail(f, cpu);
			continue;
		}
		fix_reg(f, cpu, cfg_addr(res), CFG_CDP_FIELD, on ? CFG_CDP_FIELD : 0);
	}
}

/*
 * The RMID a CPU runs with: its own group's when it is bound to one (CPU
 * monitoring, as resctrl's for CPUs of a group), else the default group's.
 * Tasks served by the switch hook count with the RMID of the CPU they run on.
 */
static uint64_t cpu_rmid(const struct rdt_state *st, unsigned int cpu)
{
	int g = st->cpu_group[cpu], rmid = g >= 0 ? rdt_mon_group_rmid(st, g) : 0;

	return rmid > 0 ? (uint64_t)rmid : 0;
}

static void fix_rmids(struct fixer *f, const struct rdt_state *st)
{
	unsigned int cpu;

	if (!rdt_mon(st)->nrmids)
		return;
	for (cpu = 0; cpu < st->m->ncpus; cpu++)
		if (st->m->cpu_present[cpu])
			fix_reg(f, (int)cpu, RDT_MSR_PQR_ASSOC, RDT_PQR_RMID_FIELD,
				cpu_rmid(st, cpu));
}

static void fix_pqrs(struct fixer *f, const struct rdt_state *st)
{
	unsigned int cpu;

	for (cpu = 0; cpu < st->m->ncpus; cpu++)
		if (st->m->cpu_present[cpu])
			fix_reg(f, (int)cpu, RDT_MSR_PQR_ASSOC, PQR_CLOSID_FIELD,
				(uint64_t)st->regs.pqr[cpu] << 32);
	fix_rmids(f, st);
}

/* After a change: every CPU's RMID field as its group's (the CLOSIDs went through the sink). */
static int msr_sync_rmids(void *ctx, const struct rdt_state *st, char *err, size_t len)
{
	struct fixer f = { .c = ctx };

	fix_rmids(&f, st);
	if (f.ret)
		snprintf(err, len, "%s", f.err);
	return f.ret;
}

/* One counter: QM_EVTSEL then QM_CTR, on a CPU of the L3 domain. */
static int msr_mon_counter(void *ctx, unsigned int dom, unsigned int rmid, unsigned int event,
			   uint64_t *val, char *err, size_t len)
{
	struct msr_ctx *c = ctx;
	int cpu = dom_cpu(c, RDT_L3, dom), ret;

	ret = cpu < 0 ? cpu : reg_write(c, cpu, RDT_MSR_QM_EVTSEL,
				       (uint64_t)rmid << 32 | event);
	if (!ret)
		ret = reg_read(c, cpu, RDT_MSR_QM_CTR, val);
	if (ret)
		snprintf(err, len, "%s", c->err);
	return ret;
}

static void fix_masks(struct fixer *f, const struct rdt_state *st)
{
	unsigned int s, reg, n;
	int cpu;

	for (s = 0; s < st->nslots; s++) {
		enum rdt_res res = st->slot[s].res;

		cpu = dom_cpu(f->c, res, st->slot[s].dom);
		if (cpu < 0) {
			fixer_fail(f, cpu);
			continue;
		}
		n = st->m->caps[res].closids;
		if (n > st->regs.nregs)
			n = st->regs.nregs;
		for (reg = 0; reg < n; reg++)
			fix_reg(f, cpu, mask_addr(st->m, res, reg), WHOLE_REG,
				reg_value(st->m, res,
					  st->regs.mask[(size_t)s * st->regs.nregs + reg]));
	}
}

/*
 * Order matters on hardware: while CDP is on, a CLOSID at or above half the
 * hardware's count is out of range for PQR_ASSOC. So CDP goes off before the
 * CLOSIDs are written and on after them; masks come last, when the CDP
 * setting that gives them their meaning is in place.
 */
/* Visit every register the image covers, in the order that is safe to write them. */
static void fix_all(struct fixer *f, const struct rdt_state *st, unsigned int flags)
{
	fix_cfgs(f, st, false);
	if (!(flags & RDT_RECONCILE_NO_PQR))
		fix_pqrs(f, st);
	fix_cfgs(f, st, true);
	fix_masks(f, st);
}

static int msr_digest(void *ctx, const struct rdt_state *st, unsigned int flags,
		      uint64_t *out, char *err, size_t len)
{
	struct fixer f = { .c = ctx, .digest = true, .hash = UINT64_C(0xcbf29ce484222325) };

	f.c->err[0] = '\0';
	fix_all(&f, st, flags);
	if (f.ret) {
		snprintf(err, len, "%s", f.err);
		return f.ret;
	}
	*out = f.hash ? f.hash : 1;
	return 0;
}

static int msr_reconcile(void *ctx, const struct rdt_state *st, unsigned int flags,
			 unsigned int *fixed, char *err, size_t len)
{
	struct fixer f = { .c = ctx, .first = flags & RDT_RECONCILE_FIRST };

	f.c->err[0] = '\0';
	*fixed = 0;
	if (st->m->ncpus != f.c->m->ncpus) {
		snprintf(err, len, "the state is for a machine of %u CPUs, the devices are open "
			 "for %u", st->m->ncpus, f.c->m->ncpus);
		return -EINVAL;
	}
	fix_all(&f, st, flags);
	*fixed = f.fixed;
	if (f.ret)
		snprintf(err, len, "%s", f.err);
	return f.ret;
}

/* ---- Can it run here? ----------------------------------------------------- */

/* CAP_SYS_RAWIO in the effective set (what the msr driver checks on open). */
static bool has_rawio(void)
{
	char line[256];
	int found = -1;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapEff:", 7))
			continue;
		found = (int)((strtoull(line + 7, NULL, 16) >> CAP_SYS_RAWIO_BIT) & 1);
		break;
	}
	fclose(f);
	return found < 0 ? geteuid() == 0 : found == 1;
}

static int check_driver(const char *root, char *reason, size_t len)
{
	char path[PATH_MAX];
	struct stat sb;

	device_path(path, sizeof(path), root, 0);
	if (!stat(path, &sb))
		return 0;
	if (root_is_default(root))
		snprintf(reason, len, "no %s: load the msr driver (modprobe msr)", path);
	else
		snprintf(reason, len, "no %s: load the msr driver (modprobe msr), or check the "
			 "device root %s (--msr-root, RDTALLOC_MSR_ROOT)", path, root);
	return -ENOENT;
}

static int check_resctrl(const struct rdt_backend_env *env, char *reason, size_t len)
{
	const char *mounts = env && env->mounts && *env->mounts ? env->mounts
								 : "/proc/self/mounts";
	char where[PATH_MAX] = "";
	int ret = rdt_resctrl_mounted(mounts, where, sizeof(where));

	if (ret < 0) {
		snprintf(reason, len, "cannot read the mount table %s to check that resctrl is "
			 "not mounted: %s", mounts, strerror(-ret));
		return ret;
	}
	if (ret) {
		snprintf(reason, len, "resctrl is mounted at %s: the kernel owns the CAT "
			 "registers; unmount it or use the resctrl backend", where);
		return -EBUSY;
	}
	return 0;
}

static int check_cpuid(char *reason, size_t len)
{
	struct rdtalloc_cpu_caps caps = { .sz = sizeof(caps) };
	char why[160];

	if (rdt_detect_host(&caps, why, sizeof(why)) || (!caps.rdt_alloc && !caps.probe_needed)) {
		snprintf(reason, len, "CPUID: no cache allocation on this CPU (%s)", caps.summary);
		return -ENODEV;
	}
	return 0;
}

static int msr_usable(const struct rdt_backend_env *env, char *reason, size_t len)
{
	int ret;

	if (!has_rawio()) {
		snprintf(reason, len, "the msr backend needs root (CAP_SYS_RAWIO)");
		return -EPERM;
	}
	ret = check_driver(root_of(env), reason, len);
	if (!ret)
		ret = check_resctrl(env, reason, len);
	/* A machine description overrides detection; Haswell-EP is probed later. */
	if (!ret && !(env && env->machine_given))
		ret = check_cpuid(reason, len);
	return ret;
}

/* ---- The machine ---------------------------------------------------------- */

int rdt_msr_probe_haswell(const char *root, int cpu)
{
	uint64_t orig, probe, back = 0;
	char path[PATH_MAX];
	bool short_io;
	int fd, ret, rret;

	if (!root || !*root)
		root = RDT_MSR_DEFAULT_ROOT;
	if (cpu < 0)
		return -EINVAL;
	device_path(path, sizeof(path), root, cpu);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = msr_io(fd, false, RDT_MSR_PQR_ASSOC, &orig, &short_io);
	if (ret)
		goto out;
	probe = (orig & ~PQR_CLOSID_FIELD) | (UINT64_C(1) << 32);
	ret = msr_io(fd, true, RDT_MSR_PQR_ASSOC, &probe, &short_io);
	if (ret == -EIO && !short_io) {
		/* #GP: the CLOSID field does not exist, nothing was written. */
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	ret = msr_io(fd, false, RDT_MSR_PQR_ASSOC, &back, &short_io);
	rret = msr_io(fd, true, RDT_MSR_PQR_ASSOC, &orig, &short_io);
	if (!ret)
		ret = rret;
	if (!ret)
		ret = (back >> 32) == 1;
out:
	close(fd);
	return ret;
}

static const char *res_prefix(const char *name)
{
	return !strcmp(name, "L2") ? "l2" : !strcmp(name, "L3") ? "l3" : NULL;
}

static int describe_haswell(const char *root, char **desc, char *err, size_t len)
{
	char path[PATH_MAX];
	int ret;

	if (!root || !*root)
		root = RDT_MSR_DEFAULT_ROOT;
	ret = rdt_msr_probe_haswell(root, 0);
	if (ret < 0) {
		device_path(path, sizeof(path), root, 0);
		snprintf(err, len, "Haswell-EP probe: CPU 0 (%s): %s", path, strerror(-ret));
		return ret;
	}
	if (!ret) {
		snprintf(err, len, "Haswell-EP probe: PQR_ASSOC did not keep CLOSID 1: no CAT");
		return -ENODEV;
	}
	/* What the part has but cannot enumerate (Linux's cache_alloc_hsw_probe). */
	*desc = strdup("l3.closids=4;l3.cbm_len=20;l3.min_cbm_bits=2;l3.shareable_bits=0;"
		       "l3.cdp=0;l3.sparse=0");
	if (!*desc) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * MBA as CPUID enumerates it. Intel with linear delays: the smallest share is
 * 100 - the maximum throttle, and the step the same (as resctrl computes it;
 * non-linear delays it does not support, nor do we). AMD: the bandwidth
 * field's width; 1 << width is unlimited. Not more CLOSIDs than the L3 has.
 */
static void describe_mb(const struct rdtalloc_cpu_caps *caps, char *buf, size_t len,
			size_t *off)
{
	unsigned int closids = caps->mba_closids, l3 = caps->res[0].closids;

	if (!caps->mba || !closids || *off >= len)
		return;
	if (closids > l3)
		closids = l3;
	if (caps->mba_bw_len && caps->mba_bw_len < 20)
		*off += (size_t)snprintf(buf + *off, len - *off, ";mb.closids=%u;mb.units=amd;"
					 "mb.max=%u", closids, 1u << caps->mba_bw_len);
	else if (!caps->mba_bw_len && caps->mba_linear && caps->mba_max_throttle &&
		 caps->mba_max_throttle < 100)
		*off += (size_t)snprintf(buf + *off, len - *off, ";mb.closids=%u;"
					 "mb.units=percent;mb.min=%u;mb.gran=%u", closids,
					 100 - caps->mba_max_throttle,
					 100 - caps->mba_max_throttle);
}

/* L3 monitoring as CPUID says (mon.rmids=0 without it, or past PQR_ASSOC's 10 bits). */
static void describe_mon(const struct rdtalloc_cpu_caps *caps, char *buf, size_t len,
			 size_t *off)
{
	static const char *const names[] = { "llc_occupancy", "mbm_total_bytes",
					     "mbm_local_bytes" };
	unsigned int i, n = 0;

	if (*off >= len)
		return;
	if (!caps->l3_mon || caps->mon_rmids > RDT_MAX_RMIDS || !caps->mon_scale) {
		*off += (size_t)snprintf(buf + *off, len - *off, ";mon.rmids=0");
		return;
	}
	*off += (size_t)snprintf(buf + *off, len - *off, ";mon.rmids=%u;mon.scale=%u;"
				 "mon.width=%u;mon.events=", caps->mon_rmids, caps->mon_scale,
				 caps->mon_width);
	for (i = 0; i < 3 && *off < len; i++)
		if (caps->mon_events & (1u << i))
			*off += (size_t)snprintf(buf + *off, len - *off, "%s%s", n++ ? "," : "",
						 names[i]);
	/*
	 * The MBM erratum's parts (the kernel's __check_quirks_intel): Broadwell-EP,
	 * and Skylake-SP past stepping 4 (at or below it the kernel turns L3
	 * monitoring off altogether).
	 */
	if (*off < len && !strcmp(caps->vendor, "GenuineIntel") && caps->family == 6 &&
	    (caps->model == 0x4f || (caps->model == 0x55 && caps->stepping > 4)))
		*off += (size_t)snprintf(buf + *off, len - *off, ";mon.mbm_cf=1");
}

int rdt_msr_describe_host(const struct rdtalloc_cpu_caps *caps, const char *root, char **desc,
			  char *err, size_t len)
{
	char buf[512];
	size_t off = 0;
	bool l3 = false;
	unsigned int i;

	*desc = NULL;
	if (caps->probe_needed && !caps->rdt_alloc)
		return describe_haswell(root, desc, err, len);
	buf[0] = '\0';
	for (i = 0; i < caps->nres && i < 2; i++) {
		const struct rdtalloc_cpu_res *r = &caps->res[i];
		const char *p = res_prefix(r->name);
		/* The machine model needs an even count for CDP (it halves them). */
		bool cdp = r->cdp && r->closids >= 2 && r->closids % 2 == 0;

		if (!p || !r->closids || !r->cbm_len)
			continue;
		l3 |= !strcmp(p, "l3");
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					"%s%s.closids=%u;%s.cbm_len=%u;%s.min_cbm_bits=%d;"
					"%s.shareable_bits=0x%llx;%s.cdp=%d;%s.sparse=%d",
					off ? ";" : "", p, r->closids, p, r->cbm_len, p,
					/* AMD takes an empty mask (the kernel's min_cbm_bits 0) */
					strcmp(caps->vendor, "AuthenticAMD") ? 1 : 0, p,
					(unsigned long long)r->shareable_bits, p, cdp ? 1 : 0, p,
					r->sparse ? 1 : 0);
	}
	if (!off) {
		snprintf(err, len, "CPUID: no cache allocation on this CPU (%s)", caps->summary);
		return -ENODEV;
	}
	if (l3)
		describe_mb(caps, buf, sizeof(buf), &off);
	if (l3)
		describe_mon(caps, buf, sizeof(buf), &off);
	/* L2 only: say so, or the machine model would add its default L3. */
	if (asprintf(desc, "%s%s", l3 ? "" : "l3.closids=0;", buf) < 0) {
		*desc = NULL;
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int msr_host_machine(const struct rdt_backend_env *env, char **desc, char *err,
			    size_t len)
{
	struct rdtalloc_cpu_caps caps = { .sz = sizeof(caps) };
	char why[160];
	int ret;

	ret = rdt_detect_host(&caps, why, sizeof(why));
	if (ret) {
		*desc = NULL;
		snprintf(err, len, "CPUID: no cache allocation on this CPU (%s)", why);
		return -ENODEV;
	}
	return rdt_msr_describe_host(&caps, root_of(env), desc, err, len);
}

/* ---- Open and close ------------------------------------------------------- */

static void msr_close(void *ctx)
{
	struct msr_ctx *c = ctx;
	unsigned int i;

	if (!c)
		return;
	for (i = 0; c->fd && i < c->m->ncpus; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	free(c->fd);
	free(c->root);
	free(c);
}

static int check_register_space(const struct rdt_machine *m, char *err, size_t len)
{
	if (m->caps[RDT_L3].present && m->caps[RDT_L3].closids > RDT_MSR_L3_MASK_MAX) {
		snprintf(err, len, "L3 has %u CLOSIDs, but only %u mask registers exist "
			 "(0x%x-0x%x)", m->caps[RDT_L3].closids, RDT_MSR_L3_MASK_MAX,
			 RDT_MSR_L3_MASK_BASE, RDT_MSR_L3_MASK_BASE + RDT_MSR_L3_MASK_MAX - 1);
		return -EINVAL;
	}
	if (m->caps[RDT_L2].present && m->caps[RDT_L2].closids > RDT_MSR_L2_MASK_MAX) {
		snprintf(err, len, "L2 has %u CLOSIDs, but only %u mask registers exist "
			 "(0x%x-0x%x)", m->caps[RDT_L2].closids, RDT_MSR_L2_MASK_MAX,
			 RDT_MSR_L2_MASK_BASE, RDT_MSR_L2_MASK_BASE + RDT_MSR_L2_MASK_MAX - 1);
		return -EINVAL;
	}
	if (m->caps[RDT_MB].present) {
		bool amd = m->caps[RDT_MB].mb_amd;
		unsigned int max = amd ? RDT_MSR_AMD_BW_MAX : RDT_MSR_MBA_THRTL_MAX;
		uint32_t base = amd ? RDT_MSR_AMD_BW_BASE : RDT_MSR_MBA_THRTL_BASE;

		if (m->caps[RDT_MB].closids > max) {
			snprintf(err, len, "MB has %u CLOSIDs, but only %u bandwidth registers "
				 "exist (0x%x-0x%x)", m->caps[RDT_MB].closids, max, base,
				 base + max - 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int open_device(struct msr_ctx *c, int cpu, char *err, size_t len)
{
	char path[PATH_MAX];
	const char *hint = "";
	int ret;

	device_path(path, sizeof(path), c->root, cpu);
	c->fd[cpu] = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd[cpu] >= 0)
		return 0;
	ret = -errno;
	if (ret == -ENOENT || ret == -ENXIO)
		hint = " (is the CPU online and the msr driver loaded? modprobe msr)";
	else if (ret == -EACCES || ret == -EPERM)
		hint = " (the msr backend needs root with CAP_SYS_RAWIO)";
	snprintf(err, len, "CPU %d: cannot open %s: %s%s", cpu, path, strerror(-ret), hint);
	return ret;
}

static int msr_open(void **ctx, const struct rdt_machine *m, const struct rdt_backend_env *env,
		    char *err, size_t len)
{
	struct msr_ctx *c;
	unsigned int i;
	int ret;

	*ctx = NULL;
	ret = check_register_space(m, err, len);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->m = m;
	c->root = strdup(root_of(env));
	c->fd = malloc(m->ncpus * sizeof(*c->fd));
	for (i = 0; c->fd && i < m->ncpus; i++)
		c->fd[i] = -1;
	if (!c->root || !c->fd)
		goto nomem;
	for (i = 0; i < m->ncpus; i++) {
		if (!m->cpu_present[i])
			continue;
		ret = open_device(c, (int)i, err, len);
		if (ret) {
			msr_close(c);
			return ret;
		}
	}
	c->sink.ctx = c;
	c->sink.write_mask = sink_mask;
	c->sink.write_cfg = sink_cfg;
	c->sink.write_pqr = sink_pqr;
	c->sink.write_assoc = sink_assoc;
	c->sink.last_error = rdt_msr_last_error;
	*ctx = c;
	return 0;
nomem:
	msr_close(c);
	snprintf(err, len, "out of memory");
	return -ENOMEM;
}

static const struct rdt_sink *msr_sink(void *ctx)
{
	return &((struct msr_ctx *)ctx)->sink;
}

const char *rdt_msr_last_error(const void *ctx)
{
	return ctx ? ((const struct msr_ctx *)ctx)->err : "";
}

/* ---- Tasks ------------------------------------------------------------------ */

static int msr_task_binding(void *ctx, char *err, size_t len)
{
	(void)ctx;
	/* Only the switch hook knows when a task runs where; without it, CPUs only. */
	if (rdt_hook_built())
		snprintf(err, len, "binding tasks on the msr backend needs the switch hook: "
			 "start it with `rdtctl --backend msr hook start` (as root); CPUs can be "
			 "bound without it");
	else
		snprintf(err, len, "binding tasks on the msr backend needs the switch hook, and "
			 "this librdtalloc was built without it (RDTALLOC_BPF=OFF); CPUs can be "
			 "bound without it");
	return -EOPNOTSUPP;
}

const struct rdt_backend rdt_backend_msr = {
	.name = "msr",
	.simulated = false,
	.hook = true,
	/* the switch hook's BPF program applies either rule */
	.precedences = (1u << RDT_PREC_CPU) | (1u << RDT_PREC_TASK),
	.default_precedence = RDT_PREC_CPU,
	.ops = &rdt_hw_group_ops,
	.usable = msr_usable,
	.host_machine = msr_host_machine,
	.open = msr_open,
	.close = msr_close,
	.sink = msr_sink,
	.reconcile = msr_reconcile,
	.digest = msr_digest,
	.task_binding = msr_task_binding,
	.sync_rmids = msr_sync_rmids,
	.mon_counter = msr_mon_counter,
};
