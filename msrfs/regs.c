// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * regs: the registers of an emulated machine and the rules by which its
 * CPUs refuse a write. The rules are those of the Intel SDM, vol. 3B,
 * "Intel Resource Director Technology", and of AMD's "Platform Quality of
 * Service Extensions": a write the CPU refuses raises #GP(0), and the msr
 * driver answers the write with EIO. What is modelled:
 *
 *   IA32_L3_QOS_CFG 0xc81, IA32_L2_QOS_CFG 0xc82   per cache domain; bit 0
 *       (CDP) only where CDP is supported, every other bit reserved;
 *   IA32_PQR_ASSOC 0xc8f                           per CPU; bits 31:10
 *       reserved, a CLOSID past the machine's count refused (half the count
 *       of a resource while its CDP is on);
 *   IA32_L3_QOS_MASK_n 0xc90+n, IA32_L2_QOS_MASK_n 0xd10+n  per domain; n
 *       below the resource's CLOSID count, no bit past the CBM length, not
 *       empty (Intel), contiguous unless the machine has sparse masks;
 *   IA32_L2_QOS_EXT_BW_THRTL_n 0xd50+n (Intel MBA)  per L3 domain; a delay
 *       of at most 100 - the minimum bandwidth;
 *   L3QOS_BW_CONTROL_n 0xc0000200+n (AMD)          per L3 domain; at most
 *       the unlimited value.
 *
 * The registers of a resource the machine lacks raise #GP, as the absent
 * MSRs of a real part do. Any other address reads as 0 and keeps what is
 * written, per CPU: the emulator does not know every MSR of every part.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msrfs.h"

#define L3_CFG		0xc81u
#define L2_CFG		0xc82u
#define PQR_ASSOC	0xc8fu
#define QM_EVTSEL	0xc8du
#define QM_CTR		0xc8eu
/* QM_EVTSEL: event id 7:0, RMID 41:32 (10 bits, as PQR_ASSOC's field); the rest reserved */
#define EVTSEL_VALID	(UINT64_C(0xff) | UINT64_C(0x3ff) << 32)
#define CTR_ERROR	(UINT64_C(1) << 63)
#define L3_MASK		0xc90u
#define L2_MASK		0xd10u
#define MBA_THRTL	0xd50u
#define MBA_END		0xd90u
#define AMD_BW		0xc0000200u
#define AMD_BW_END	0xc0000300u
#define PQR_RESERVED	UINT64_C(0x00000000fffffc00)

/* Bounds of the state file: a line, and the whole file. */
#define STATE_LINE_MAX	128
#define STATE_FILE_MAX	(4u << 20)
#define STATE_MAGIC	"rdtalloc-msrfs-state 1"

enum kind { K_OTHER, K_CFG, K_PQR, K_MASK, K_MBA, K_AMD_BW, K_EVTSEL, K_CTR };

/* What an address is: its kind, resource and register index. */
struct reg_id {
	enum kind kind;
	enum rdt_res res;
	unsigned int n;
};

static struct reg_id classify(uint32_t addr)
{
	struct reg_id id = { K_OTHER, RDT_L3, 0 };

	if (addr == L3_CFG || addr == L2_CFG) {
		id.kind = K_CFG;
		id.res = addr == L3_CFG ? RDT_L3 : RDT_L2;
	} else if (addr == PQR_ASSOC) {
		id.kind = K_PQR;
	} else if (addr == QM_EVTSEL) {
		id.kind = K_EVTSEL;
	} else if (addr == QM_CTR) {
		id.kind = K_CTR;
	} else if (addr >= L3_MASK && addr < L2_MASK) {
		id.kind = K_MASK;
		id.n = addr - L3_MASK;
	} else if (addr >= L2_MASK && addr < MBA_THRTL) {
		id.kind = K_MASK;
		id.res = RDT_L2;
		id.n = addr - L2_MASK;
	} else if (addr >= MBA_THRTL && addr < MBA_END) {
		id.kind = K_MBA;
		id.res = RDT_MB;
		id.n = addr - MBA_THRTL;
	} else if (addr >= AMD_BW && addr < AMD_BW_END) {
		id.kind = K_AMD_BW;
		id.res = RDT_MB;
		id.n = addr - AMD_BW;
	}
	return id;
}

static int refuse(struct mfs_model *md, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(md->why, sizeof(md->why), fmt, ap);
	va_end(ap);
	md->refused++;
	return -EIO;
}

/* ---- Storage: a small map per scope instance ----------------------------- */

static int regs_find(const struct mfs_regs *r, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->addr[i] == addr)
			return (int)i;
	return -1;
}

static int regs_set(struct mfs_regs *r, uint32_t addr, uint64_t val)
{
	int i = regs_find(r, addr);

	if (i >= 0) {
		r->val[i] = val;
		return 0;
	}
	if (r->n == r->cap) {
		unsigned int cap = r->cap ? 2 * r->cap : 8;
		uint32_t *a = realloc(r->addr, cap * sizeof(*a));
		uint64_t *v;

		if (!a)
			return -ENOMEM;
		r->addr = a;
		v = realloc(r->val, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->val = v;
		r->cap = cap;
	}
	r->addr[r->n] = addr;
	r->val[r->n] = val;
	r->n++;
	return 0;
}

/* The instance that holds addr for cpu, or NULL (a domain the CPU is not in). */
static struct mfs_regs *instance(struct mfs_model *md, unsigned int cpu, struct reg_id id)
{
	int dom;

	switch (id.kind) {
	case K_CFG:
	case K_MASK:
	case K_MBA:
	case K_AMD_BW:
		dom = rdt_machine_cpu_domain(md->m, id.res == RDT_L2 ? RDT_L2 : RDT_L3,
					     (int)cpu);
		if (dom < 0)
			return NULL;
		return &md->regs[id.res == RDT_L2 ? MFS_L2 : MFS_L3][dom];
	default:
		return &md->regs[MFS_CPU][cpu];
	}
}

/* The value a register holds after reset. */
static uint64_t reset_value(const struct mfs_model *md, struct reg_id id)
{
	const struct rdt_caps *c = &md->m->caps[id.res];

	switch (id.kind) {
	case K_MASK:
		return c->cbm_len >= 64 ? UINT64_MAX : (UINT64_C(1) << c->cbm_len) - 1;
	case K_AMD_BW:
		return c->mb_max;	/* unlimited */
	default:
		return 0;
	}
}

/* ---- The rules -------------------------------------------------------- */

static bool cdp_on(struct mfs_model *md, unsigned int cpu, enum rdt_res res)
{
	struct reg_id cfg = { K_CFG, res, 0 };
	struct mfs_regs *r;
	int i;

	if (!md->m->caps[res].present || !md->m->caps[res].cdp)
		return false;
	r = instance(md, cpu, cfg);
	if (!r)
		return false;
	i = regs_find(r, res == RDT_L3 ? L3_CFG : L2_CFG);
	return i >= 0 && (r->val[i] & 1);
}

/* How many CLOSIDs PQR_ASSOC takes on cpu now: the largest of the resources'. */
static unsigned int pqr_closids(struct mfs_model *md, unsigned int cpu)
{
	unsigned int res, n, max = 1;

	for (res = 0; res < RDT_NALL; res++) {
		if (!md->m->caps[res].present)
			continue;
		n = md->m->caps[res].closids;
		if (res != RDT_MB && cdp_on(md, cpu, res))
			n /= 2;
		if (n > max)
			max = n;
	}
	return max;
}

static bool contiguous(uint64_t v)
{
	v >>= __builtin_ctzll(v);
	return (v & (v + 1)) == 0;
}

static int check_mask(struct mfs_model *md, struct reg_id id, uint64_t val)
{
	const struct rdt_caps *c = &md->m->caps[id.res];
	const char *name = rdt_res_name(id.res);

	if (c->cbm_len < 64 && (val >> c->cbm_len))
		return refuse(md, "%s mask 0x%llx: bits past the %u-bit CBM", name,
			      (unsigned long long)val, c->cbm_len);
	if (!val)
		return md->amd ? 0 : refuse(md, "%s mask 0: an empty CBM", name);
	if (!c->sparse && !contiguous(val))
		return refuse(md, "%s mask 0x%llx: not contiguous", name, (unsigned long long)val);
	return 0;
}

static int check_write(struct mfs_model *md, unsigned int cpu, struct reg_id id, uint64_t val)
{
	const struct rdt_caps *c = &md->m->caps[id.res];
	const char *name = rdt_res_name(id.res);
	unsigned int max;

	if (id.kind == K_OTHER)
		return 0;
	if (id.kind == K_EVTSEL || id.kind == K_CTR) {
		if (!md->m->mon.rmids)
			return refuse(md, "MSR 0x%x: the machine has no L3 monitoring",
				      id.kind == K_CTR ? QM_CTR : QM_EVTSEL);
		if (id.kind == K_CTR)
			return refuse(md, "IA32_QM_CTR is read-only");
		if (val & ~EVTSEL_VALID)
			return refuse(md, "QM_EVTSEL 0x%llx: reserved bits set",
				      (unsigned long long)val);
		return 0;
	}
	if (id.kind == K_PQR) {
		if (val & PQR_RESERVED)
			return refuse(md, "PQR_ASSOC 0x%llx: reserved bits 31:10 set",
				      (unsigned long long)val);
		max = pqr_closids(md, cpu);
		if ((val >> 32) >= max)
			return refuse(md, "PQR_ASSOC: CLOSID %llu, the CPU has %u now",
				      (unsigned long long)(val >> 32), max);
		return 0;
	}
	if (!c->present || (id.kind == K_MBA && c->mb_amd) ||
	    (id.kind == K_AMD_BW && !c->mb_amd))
		return refuse(md, "MSR of a %s resource the machine does not have", name);
	if (!instance(md, cpu, id))
		return refuse(md, "CPU %u is in no %s domain", cpu, name);
	switch (id.kind) {
	case K_CFG:
		if (val & ~UINT64_C(1))
			return refuse(md, "%s_QOS_CFG 0x%llx: reserved bits set", name,
				      (unsigned long long)val);
		if ((val & 1) && !c->cdp)
			return refuse(md, "%s_QOS_CFG: CDP is not supported", name);
		return 0;
	case K_MASK:
		if (id.n >= c->closids)
			return refuse(md, "%s mask register %u: the machine has %u", name, id.n,
				      c->closids);
		return check_mask(md, id, val);
	case K_MBA:
		if (id.n >= c->closids)
			return refuse(md, "MBA register %u: the machine has %u", id.n, c->closids);
		if (val > (uint64_t)(c->mb_max - c->mb_min))
			return refuse(md, "MBA delay %llu: the maximum is %u",
				      (unsigned long long)val, c->mb_max - c->mb_min);
		return 0;
	case K_AMD_BW:
		if (id.n >= c->closids)
			return refuse(md, "MB register %u: the machine has %u", id.n, c->closids);
		if (val > c->mb_max)
			return refuse(md, "MB value %llu: past the unlimited value %u",
				      (unsigned long long)val, c->mb_max);
		return 0;
	default:
		return 0;
	}
}

/* Reading a register of an absent resource faults as writing it does. */
static int check_read(struct mfs_model *md, unsigned int cpu, struct reg_id id)
{
	const struct rdt_caps *c = &md->m->caps[id.res];
	const char *name = rdt_res_name(id.res);

	if (id.kind == K_OTHER || id.kind == K_PQR)
		return 0;
	if (id.kind == K_EVTSEL || id.kind == K_CTR)
		return md->m->mon.rmids ? 0 : refuse(md, "MSR 0x%x: the machine has no L3 "
						     "monitoring", id.kind == K_CTR ? QM_CTR :
						     QM_EVTSEL);
	if (!c->present || (id.kind == K_MBA && c->mb_amd) ||
	    (id.kind == K_AMD_BW && !c->mb_amd))
		return refuse(md, "MSR of a %s resource the machine does not have", name);
	if (!instance(md, cpu, id))
		return refuse(md, "CPU %u is in no %s domain", cpu, name);
	if (id.kind == K_CFG)
		return 0;
	if (id.n >= c->closids)
		return refuse(md, "%s register %u: the machine has %u", name, id.n, c->closids);
	return 0;
}

/* ---- Access --------------------------------------------------------- */

static int check_cpu(struct mfs_model *md, unsigned int cpu)
{
	if (cpu >= md->m->ncpus || !md->m->cpu_present[cpu]) {
		snprintf(md->why, sizeof(md->why), "no CPU %u", cpu);
		return -ENXIO;
	}
	return 0;
}

static size_t ctr_index(const struct mfs_model *md, unsigned int dom, unsigned int event,
			unsigned int rmid)
{
	return ((size_t)dom * 3 + event - 1) * md->m->mon.rmids + rmid;
}

/*
 * IA32_QM_CTR answers for the last QM_EVTSEL written on this CPU, in the
 * CPU's L3 domain: Error for an event the machine does not count or an
 * RMID past the last one (SDM: "Error bit set ... invalid event or RMID").
 */
static uint64_t read_ctr(struct mfs_model *md, unsigned int cpu)
{
	struct mfs_regs *r = &md->regs[MFS_CPU][cpu];
	int i = regs_find(r, QM_EVTSEL), dom = rdt_machine_cpu_domain(md->m, RDT_L3, (int)cpu);
	uint64_t sel = i >= 0 ? r->val[i] : 0;
	unsigned int event = sel & 0xff, rmid = (unsigned int)(sel >> 32);

	if (dom < 0 || event < 1 || event > 3 || !(md->m->mon.events & (1u << (event - 1))) ||
	    rmid >= md->m->mon.rmids || !md->ctr)
		return CTR_ERROR;
	return md->ctr[ctr_index(md, (unsigned int)dom, event, rmid)];
}

int mfs_read(struct mfs_model *md, unsigned int cpu, uint32_t addr, uint64_t *val)
{
	struct reg_id id = classify(addr);
	struct mfs_regs *r;
	int ret, i;

	ret = check_cpu(md, cpu);
	if (!ret)
		ret = check_read(md, cpu, id);
	if (ret)
		return ret;
	if (id.kind == K_CTR) {
		*val = read_ctr(md, cpu);
		return 0;
	}
	r = instance(md, cpu, id);
	i = regs_find(r, addr);
	*val = i >= 0 ? r->val[i] : reset_value(md, id);
	return 0;
}

int mfs_write(struct mfs_model *md, unsigned int cpu, uint32_t addr, uint64_t val,
	      bool *changed)
{
	struct reg_id id = classify(addr);
	uint64_t old;
	int ret;

	*changed = false;
	ret = mfs_read(md, cpu, addr, &old);
	if (!ret)
		ret = check_write(md, cpu, id, val);
	if (ret)
		return ret;
	ret = regs_set(instance(md, cpu, id), addr, val);
	if (ret)
		return ret;
	md->writes++;
	*changed = old != val;
	return 0;
}

/* ---- Set-up ---------------------------------------------------------- */

int mfs_model_init(struct mfs_model *md, const struct rdt_machine *m, char *err, size_t len)
{
	unsigned int s;

	memset(md, 0, sizeof(*md));
	md->m = m;
	md->amd = !strcmp(m->vendor, "AuthenticAMD");
	md->nregs[MFS_CPU] = m->ncpus;
	md->nregs[MFS_L3] = m->ndom[RDT_L3];
	md->nregs[MFS_L2] = m->ndom[RDT_L2];
	if (m->mon.rmids) {
		md->ctr = calloc((size_t)m->ndom[RDT_L3] * 3 * m->mon.rmids, sizeof(uint64_t));
		if (!md->ctr) {
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
	}
	for (s = 0; s < MFS_NSCOPE; s++) {
		md->regs[s] = calloc(md->nregs[s] ? md->nregs[s] : 1, sizeof(*md->regs[s]));
		if (!md->regs[s]) {
			snprintf(err, len, "out of memory");
			mfs_model_free(md);
			return -ENOMEM;
		}
	}
	return 0;
}

void mfs_model_free(struct mfs_model *md)
{
	unsigned int s, i;

	for (s = 0; s < MFS_NSCOPE; s++) {
		for (i = 0; md->regs[s] && i < md->nregs[s]; i++) {
			free(md->regs[s][i].addr);
			free(md->regs[s][i].val);
		}
		free(md->regs[s]);
		md->regs[s] = NULL;
	}
	free(md->ctr);
	md->ctr = NULL;
}

/* ---- The state file -------------------------------------------------- */

static const char *const scope_names[MFS_NSCOPE] = { "cpu", "l3", "l2" };

/* The index a state line's "SCOPE ID" names: a CPU number or a cache id. */
static int scope_index(const struct mfs_model *md, enum mfs_scope s, unsigned long id)
{
	if (s == MFS_CPU)
		return id < md->m->ncpus && md->m->cpu_present[id] ? (int)id : -1;
	if (id > UINT_MAX)
		return -1;
	return rdt_machine_domain(md->m, s == MFS_L3 ? RDT_L3 : RDT_L2, (unsigned int)id);
}

static unsigned long scope_id(const struct mfs_model *md, enum mfs_scope s, unsigned int i)
{
	if (s == MFS_CPU)
		return i;
	return md->m->dom[s == MFS_L3 ? RDT_L3 : RDT_L2][i].cache_id;
}

int mfs_state_save(const struct mfs_model *md, const char *path, char *err, size_t len)
{
	char tmp[PATH_MAX];
	unsigned int s, i, k;
	FILE *f;
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		snprintf(err, len, "state %s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, len, "state %s: cannot create %s: %s", path, tmp, strerror(-ret));
		return ret;
	}
	fprintf(f, "%s\nmachine %s\n", STATE_MAGIC, md->m->desc);
	for (s = 0; s < MFS_NSCOPE; s++)
		for (i = 0; i < md->nregs[s]; i++)
			for (k = 0; k < md->regs[s][i].n; k++)
				fprintf(f, "%s %lu 0x%x 0x%llx\n", scope_names[s],
					scope_id(md, s, i), md->regs[s][i].addr[k],
					(unsigned long long)md->regs[s][i].val[k]);
	for (i = 0; md->ctr && i < md->m->ndom[RDT_L3]; i++)
		for (k = 0; k < 3 * md->m->mon.rmids; k++) {
			uint64_t v = md->ctr[(size_t)i * 3 * md->m->mon.rmids + k];

			if (v)
				fprintf(f, "qm %u 0x%x 0x%llx\n", md->m->dom[RDT_L3][i].cache_id,
					(k / md->m->mon.rmids + 1) << 16 | k % md->m->mon.rmids,
					(unsigned long long)v);
		}
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	/*
	 * No fsync: registers do not survive a power cut either. The rename
	 * makes a restart of the daemon see the old or the new file, whole.
	 */
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		snprintf(err, len, "state %s: cannot write: %s", path, strerror(-ret));
	}
	return ret;
}

/* "qm CACHE_ID 0xEVENT_RMID 0xVALUE": a planted monitoring counter. */
static int load_counter(struct mfs_model *md, unsigned long id, unsigned long long key,
			unsigned long long val, unsigned int lineno, char *err, size_t len)
{
	unsigned int event = (unsigned int)(key >> 16), rmid = key & 0xffff;
	int dom = id > UINT_MAX ? -1 : rdt_machine_domain(md->m, RDT_L3, (unsigned int)id);

	if (!md->ctr || dom < 0 || event < 1 || event > 3 || rmid >= md->m->mon.rmids ||
	    key >> 18) {
		snprintf(err, len, "line %u: no monitoring counter L3 %lu event %u RMID %u on "
			 "this machine", lineno, id, event, rmid);
		return -EINVAL;
	}
	md->ctr[ctr_index(md, (unsigned int)dom, event, rmid)] = val;
	return 0;
}

/* "SCOPE ID 0xADDR 0xVALUE": checked against the machine, stored in md. */
static int load_line(struct mfs_model *md, char *line, unsigned int lineno, char *err,
		     size_t len)
{
	char scope[8];
	unsigned long id;
	unsigned int cpu;
	unsigned long long addr, val;
	unsigned int s;
	int idx, n = 0;

	if (sscanf(line, "%7s %lu %llx %llx%n", scope, &id, &addr, &val, &n) != 4 ||
	    line[n] != '\0' || addr > UINT32_MAX || strchr(line, '-')) {
		snprintf(err, len, "line %u: expected 'SCOPE ID 0xADDRESS 0xVALUE'", lineno);
		return -EINVAL;
	}
	if (!strcmp(scope, "qm"))
		return load_counter(md, id, addr, val, lineno, err, len);
	for (s = 0; s < MFS_NSCOPE; s++)
		if (!strcmp(scope, scope_names[s]))
			break;
	if (s == MFS_NSCOPE) {
		snprintf(err, len, "line %u: unknown scope '%s' (cpu, l3 or l2)", lineno, scope);
		return -EINVAL;
	}
	idx = scope_index(md, s, id);
	if (idx < 0) {
		snprintf(err, len, "line %u: the machine has no %s %lu", lineno, scope, id);
		return -EINVAL;
	}
	/* A value the CPU would refuse is no state it can be in. */
	cpu = s == MFS_CPU ? (unsigned int)idx
			   : (unsigned int)md->m->dom[s == MFS_L3 ? RDT_L3 : RDT_L2][idx].cpus[0];
	if (check_write(md, cpu, classify((uint32_t)addr), val)) {
		snprintf(err, len, "line %u: %s", lineno, md->why);
		return -EINVAL;
	}
	if (instance(md, cpu, classify((uint32_t)addr)) != &md->regs[s][idx]) {
		snprintf(err, len, "line %u: MSR 0x%llx is not a %s register", lineno, addr,
			 scope);
		return -EINVAL;
	}
	if (regs_set(&md->regs[s][idx], (uint32_t)addr, val)) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The machine line holds a whole description; a register line is short. */
#define MACHINE_LINE_MAX (RDT_MACHINE_DESC_MAX + 8)

static int load_lines(struct mfs_model *md, FILE *f, char *line, char *err, size_t len)
{
	unsigned int lineno = 0;
	size_t total = 0, n;
	int ret;

	while (fgets(line, lineno == 1 ? MACHINE_LINE_MAX + 2 : STATE_LINE_MAX + 2, f)) {
		lineno++;
		n = strlen(line);
		total += n;
		if (total > STATE_FILE_MAX) {
			snprintf(err, len, "larger than %u bytes", STATE_FILE_MAX);
			return -E2BIG;
		}
		if (n == 0 || line[n - 1] != '\n') {
			snprintf(err, len, "line %u: longer than %d bytes or unterminated",
				 lineno, lineno == 2 ? MACHINE_LINE_MAX : STATE_LINE_MAX);
			return -EINVAL;
		}
		line[n - 1] = '\0';
		if (lineno == 1) {
			if (strcmp(line, STATE_MAGIC)) {
				snprintf(err, len, "line 1: not an rdtalloc-msrfs state");
				return -EINVAL;
			}
			continue;
		}
		if (lineno == 2) {
			if (strncmp(line, "machine ", 8) || strcmp(line + 8, md->m->desc)) {
				snprintf(err, len, "line 2: the state is of another machine "
					 "(start with that --machine, or remove the file)");
				return -EINVAL;
			}
			continue;
		}
		ret = load_line(md, line, lineno, err, len);
		if (ret)
			return ret;
	}
	if (lineno < 2) {
		snprintf(err, len, "truncated: no machine line");
		return -EINVAL;
	}
	return 0;
}

static int load_stream(struct mfs_model *md, FILE *f, char *err, size_t len)
{
	char *line = malloc(MACHINE_LINE_MAX + 2);
	int ret;

	if (!line) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = load_lines(md, f, line, err, len);
	free(line);
	return ret;
}

int mfs_state_load(struct mfs_model *md, const char *path, char *err, size_t len)
{
	struct mfs_model fresh;
	char why[256] = "";
	struct stat sb;
	FILE *f;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, len, "state %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(err, len, "state %s: not a regular file", path);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	/* Into a fresh model, so that a bad file changes nothing. */
	ret = mfs_model_init(&fresh, md->m, why, sizeof(why));
	if (!ret)
		ret = load_stream(&fresh, f, why, sizeof(why));
	fclose(f);
	if (ret) {
		snprintf(err, len, "state %s: %s", path, why);
		if (fresh.regs[0])
			mfs_model_free(&fresh);
		return ret;
	}
	mfs_model_free(md);
	*md = fresh;
	return 0;
}
