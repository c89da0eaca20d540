// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * detect/cpuid: raw CPUID leaves (live through libcpuid) and their pure
 * decode into struct rdtalloc_cpu_caps; rdt_detect_host() for the auto
 * backend and the public rdtalloc_cpuid_host / _decode_file.
 *
 * Encoding (Intel SDM vol. 3B, "Intel Resource Director Technology"; Linux
 * arch/x86/kernel/cpu/resctrl/core.c and scattered.c for AMD):
 *   0x7.0  EBX[15]  RDT allocation (Intel RDT-A, AMD PQE)
 *   0x10.0 EBX[1] L3 allocation, EBX[2] L2 allocation, EBX[3] Intel MBA
 *   0x10.ResID (1: L3, 2: L2): EAX[4:0] CBM length - 1, EBX shareable bits,
 *          ECX[2] CDP, ECX[3] non-contiguous CBMs (Intel; SDM "CPUID.(EAX=10H,
 *          ECX=ResID):ECX[bit 3]", Linux union cpuid_0x10_x_ecx.noncont),
 *          EDX[15:0] highest CLOSID
 *   0x10.3 (Intel MBA; SDM vol. 2A, CPUID leaf 10H, ResID 3): EAX[11:0] the
 *          maximum throttling (delay) value, minus one; ECX[2] the delay
 *          values are linear; EDX[15:0] highest CLOSID
 *   AMD enumerates L3 allocation through the same leaf 0x10 (Linux reads it
 *   for both vendors) and always accepts non-contiguous masks; its leaf
 *   0x80000020 describes memory bandwidth enforcement (AMD64 Technology
 *   Platform Quality of Service Extensions, "L3 external bandwidth
 *   enforcement": subleaf 0 EBX[1] supported; subleaf 1 EAX the width of
 *   the bandwidth field of L3QOS_BW_CONTROL_n, EDX the highest COS),
 *   reported here as MBA together with 0x80000008 EBX[6], not as a cache
 *   CBM.
 *   Monitoring (SDM vol. 3B "Intel RDT Monitoring"; both vendors):
 *   0x7.0  EBX[12] RDT monitoring (PQM)
 *   0xF.0  EDX[1] L3 monitoring
 *   0xF.1  EAX[7:0] counter width - 24, EBX bytes per count, ECX highest
 *          RMID, EDX[0] occupancy, EDX[1] total and EDX[2] local bandwidth
 *   Linux (resctrl_cpu_detect) takes the width offset only up to 62 - 24 and
 *   an AMD part's 0 as 20: those count with 44-bit counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcpuid/libcpuid.h>

#include "detect.h"
#include "errors.h"

#define EXT_BASE 0x80000000u

int rdt_cpuid_add(struct rdt_cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
		  const uint32_t regs[4])
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (d->leaf[i].leaf == leaf && d->leaf[i].subleaf == subleaf)
			return -EEXIST;
	if (d->n == RDT_CPUID_MAX_LEAVES)
		return -ENOSPC;
	d->leaf[d->n].leaf = leaf;
	d->leaf[d->n].subleaf = subleaf;
	memcpy(d->leaf[d->n].regs, regs, sizeof(d->leaf[d->n].regs));
	d->n++;
	return 0;
}

static const struct rdt_cpuid_leaf *find(const struct rdt_cpuid_dump *d, uint32_t leaf,
					 uint32_t subleaf)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (d->leaf[i].leaf == leaf && d->leaf[i].subleaf == subleaf)
			return &d->leaf[i];
	return NULL;
}

/* Whether the leaf is within the maximum its range (basic or extended) reports. */
static bool in_range(const struct rdt_cpuid_dump *d, uint32_t leaf)
{
	const struct rdt_cpuid_leaf *top;

	if (leaf == 0 || leaf == EXT_BASE)
		return true;
	if (leaf < 0x40000000u) {
		top = find(d, 0, 0);
		return top && leaf <= top->regs[0];
	}
	if (leaf > EXT_BASE && leaf <= 0x8fffffffu) {
		top = find(d, EXT_BASE, 0);
		return top && top->regs[0] > EXT_BASE && top->regs[0] <= 0x8000ffffu &&
		       leaf <= top->regs[0];
	}
	return true;		/* hypervisor and vendor ranges: as recorded */
}

void rdt_cpuid_get(const struct rdt_cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
		   uint32_t regs[4])
{
	const struct rdt_cpuid_leaf *l = in_range(d, leaf) ? find(d, leaf, subleaf) : NULL;

	if (l)
		memcpy(regs, l->regs, sizeof(l->regs));
	else
		memset(regs, 0, 4 * sizeof(uint32_t));
}

static void decode_vendor(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c)
{
	uint32_t r[4];

	rdt_cpuid_get(d, 0, 0, r);
	if (!r[1] && !r[2] && !r[3])
		return;
	memcpy(c->vendor, &r[1], 4);	/* EBX EDX ECX: "Genu" "ineI" "ntel" */
	memcpy(c->vendor + 4, &r[3], 4);
	memcpy(c->vendor + 8, &r[2], 4);
	c->vendor[12] = '\0';
}

/* Family, model, stepping with the extended fields (SDM vol. 2A, CPUID leaf 01H). */
static void decode_signature(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c)
{
	uint32_t r[4], fam, model;

	rdt_cpuid_get(d, 1, 0, r);
	fam = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	c->stepping = r[0] & 0xf;
	if (fam == 0x6 || fam == 0xf)
		model |= ((r[0] >> 16) & 0xf) << 4;
	if (fam == 0xf)
		fam += (r[0] >> 20) & 0xff;
	c->family = fam;
	c->model = model;
}

static void decode_brand(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c)
{
	char raw[49] = "";
	uint32_t r[4], i;
	char *s, *e;

	for (i = 0; i < 3; i++) {
		rdt_cpuid_get(d, EXT_BASE + 2 + i, 0, r);
		memcpy(raw + 16 * i, r, 16);
	}
	raw[48] = '\0';
	for (s = raw; *s == ' '; s++)
		;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		*--e = '\0';
	snprintf(c->brand, sizeof(c->brand), "%s", s);
}

static bool amd_like(const struct rdtalloc_cpu_caps *c)
{
	/* Linux resctrl treats Hygon as AMD. */
	return !strcmp(c->vendor, "AuthenticAMD") || !strcmp(c->vendor, "HygonGenuine");
}

static void decode_res(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c,
		       const char *name, uint32_t resid)
{
	struct rdtalloc_cpu_res *res;
	uint32_t r[4];

	rdt_cpuid_get(d, 0x10, resid, r);
	res = &c->res[c->nres];
	snprintf(res->name, sizeof(res->name), "%s", name);
	res->cbm_len = (r[0] & 0x1f) + 1;
	res->shareable_bits = r[1] & (uint32_t)((UINT64_C(1) << res->cbm_len) - 1);
	res->cdp = (r[2] >> 2) & 1;
	res->sparse = amd_like(c) ? 1 : (r[2] >> 3) & 1;
	res->closids = (r[3] & 0xffff) + 1;
	c->nres++;
}

static void decode_mba(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c,
		       uint32_t alloc_ebx)
{
	uint32_t r[4];

	if (!amd_like(c)) {
		c->mba = (alloc_ebx >> 3) & 1;
		if (!c->mba)
			return;
		rdt_cpuid_get(d, 0x10, 3, r);
		/* a recording without the subleaf (AIDA64's omit it): not known */
		if (!r[0] && !r[3])
			return;
		c->mba_max_throttle = (r[0] & 0xfff) + 1;
		c->mba_linear = (r[2] >> 2) & 1;
		c->mba_closids = (r[3] & 0xffff) + 1;
		return;
	}
	rdt_cpuid_get(d, EXT_BASE + 8, 0, r);
	c->mba = (r[1] >> 6) & 1;
	rdt_cpuid_get(d, EXT_BASE + 0x20, 0, r);
	c->mba |= (r[1] >> 1) & 1;
	if (!((r[1] >> 1) & 1))
		return;
	rdt_cpuid_get(d, EXT_BASE + 0x20, 1, r);
	c->mba_bw_len = r[0];
	c->mba_closids = r[3] + 1;
}

/* "; MBA 8 CLOSIDs, max throttle 90%, linear" or "; MBA 16 CLOSIDs, 11-bit bandwidth" */
static void summarize_mba(const struct rdtalloc_cpu_caps *c, char *p, size_t left)
{
	if (!c->mba_closids)
		snprintf(p, left, "; MBA");
	else if (c->mba_bw_len)
		snprintf(p, left, "; MBA %u CLOSIDs, %u-bit bandwidth", c->mba_closids,
			 c->mba_bw_len);
	else
		snprintf(p, left, "; MBA %u CLOSIDs, max throttle %u%%, %s", c->mba_closids,
			 c->mba_max_throttle, c->mba_linear ? "linear" : "non-linear");
}

static void summarize(struct rdtalloc_cpu_caps *c)
{
	char who[96], *p = c->summary;
	size_t left = sizeof(c->summary);
	unsigned int i;
	int n;

	if (c->brand[0])
		snprintf(who, sizeof(who), "%s", c->brand);
	else if (c->vendor[0])
		snprintf(who, sizeof(who), "%s family 0x%x model 0x%x", c->vendor, c->family,
			 c->model);
	else
		snprintf(who, sizeof(who), "unknown CPU");
	if (c->probe_needed) {
		snprintf(p, left, "%s: possibly CAT-capable Haswell server, probe needed", who);
		return;
	}
	if (!c->rdt_alloc) {
		snprintf(p, left, "%s: no RDT cache allocation enumerated%s", who,
			 c->mba ? " (MBA only)" : "");
		return;
	}
	n = snprintf(p, left, "%s:", who);
	for (i = 0; i < c->nres && n >= 0 && (size_t)n < left; i++) {
		const struct rdtalloc_cpu_res *r = &c->res[i];

		p += n;
		left -= (size_t)n;
		n = snprintf(p, left, "%s %s CAT %u CLOSIDs, %u-bit CBM%s%s", i ? ";" : "",
			     r->name, r->closids, r->cbm_len, r->cdp ? ", CDP" : "",
			     r->sparse ? ", non-contiguous masks" : "");
	}
	if (c->mba && n >= 0 && (size_t)n < left)
		summarize_mba(c, p + n, left - (size_t)n);
}

#define MON_WIDTH_BASE 24
#define MON_WIDTH_OFFSET_MAX (62 - MON_WIDTH_BASE)
#define MON_WIDTH_OFFSET_AMD 20

static void decode_mon(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c)
{
	uint32_t r[4], off;

	rdt_cpuid_get(d, 7, 0, r);
	if (!((r[1] >> 12) & 1))
		return;
	rdt_cpuid_get(d, 0xf, 0, r);
	if (!((r[3] >> 1) & 1))
		return;
	rdt_cpuid_get(d, 0xf, 1, r);
	/* 0xF.1 EDX says which events; no event, no monitoring worth the name */
	if (!(r[3] & 7) || !r[1])
		return;
	c->l3_mon = 1;
	c->mon_rmids = r[2] + 1;
	c->mon_scale = r[1];
	c->mon_events = r[3] & 7;
	off = r[0] & 0xff;
	if (!off && !strcmp(c->vendor, "AuthenticAMD"))
		off = MON_WIDTH_OFFSET_AMD;
	c->mon_width = MON_WIDTH_BASE + (off <= MON_WIDTH_OFFSET_MAX ? off : 0);
}

void rdt_cpuid_decode(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *c)
{
	uint32_t r[4], alloc_ebx;

	memset(c, 0, sizeof(*c));
	c->sz = sizeof(*c);
	decode_vendor(d, c);
	decode_signature(d, c);
	decode_brand(d, c);
	rdt_cpuid_get(d, 7, 0, r);
	if ((r[1] >> 15) & 1) {
		rdt_cpuid_get(d, 0x10, 0, r);
		alloc_ebx = r[1];
		if ((alloc_ebx >> 1) & 1)
			decode_res(d, c, "L3", 1);
		if ((alloc_ebx >> 2) & 1)
			decode_res(d, c, "L2", 2);
		decode_mba(d, c, alloc_ebx);
	}
	c->rdt_alloc = c->nres > 0;
	decode_mon(d, c);
	/* Haswell-EP (06_3FH) has CAT on some SKUs but enumerates none: Linux probes it. */
	c->probe_needed = !c->rdt_alloc && !strcmp(c->vendor, "GenuineIntel") &&
			  c->family == 6 && c->model == 0x3f;
	summarize(c);
}

static void exec_leaf(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	regs[0] = leaf;
	regs[1] = 0;
	regs[2] = subleaf;
	regs[3] = 0;
	cpu_exec_cpuid_ext(regs);
}

int rdt_cpuid_read_host(struct rdt_cpuid_dump *d)
{
	static const uint32_t basic[][2] = { { 1, 0 }, { 7, 0 }, { 0xf, 0 }, { 0xf, 1 },
					     { 0x10, 0 }, { 0x10, 1 }, { 0x10, 2 }, { 0x10, 3 } };
	static const uint32_t ext[][2] = { { 2, 0 }, { 3, 0 }, { 4, 0 }, { 8, 0 },
					   { 0x20, 0 }, { 0x20, 1 } };
	uint32_t r[4], max;
	unsigned int i;

	d->n = 0;
	if (!cpuid_present())
		return -ENODEV;
	exec_leaf(0, 0, r);
	rdt_cpuid_add(d, 0, 0, r);
	max = r[0];
	for (i = 0; i < sizeof(basic) / sizeof(basic[0]); i++) {
		if (basic[i][0] > max)
			continue;
		exec_leaf(basic[i][0], basic[i][1], r);
		rdt_cpuid_add(d, basic[i][0], basic[i][1], r);
	}
	exec_leaf(EXT_BASE, 0, r);
	rdt_cpuid_add(d, EXT_BASE, 0, r);
	max = r[0];
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		if (max <= EXT_BASE || max > 0x8000ffffu || EXT_BASE + ext[i][0] > max)
			continue;
		exec_leaf(EXT_BASE + ext[i][0], ext[i][1], r);
		rdt_cpuid_add(d, EXT_BASE + ext[i][0], ext[i][1], r);
	}
	return 0;
}

int rdt_detect_host(struct rdtalloc_cpu_caps *caps, char *reason, size_t len)
{
	struct rdt_cpuid_dump *d = malloc(sizeof(*d));
	int ret = d ? rdt_cpuid_read_host(d) : -ENOMEM;

	if (ret) {
		memset(caps, 0, sizeof(*caps));
		caps->sz = sizeof(*caps);
		snprintf(caps->summary, sizeof(caps->summary), "no CPUID on this CPU");
		snprintf(reason, len, "CPUID: %s; using the simulator",
			 ret == -ENOMEM ? "out of memory reading it" : "not available on this CPU");
		free(d);
		return ret;
	}
	rdt_cpuid_decode(d, caps);
	free(d);
	if (caps->rdt_alloc)
		snprintf(reason, len, "CPUID: RDT allocation on this CPU (%s)",
			 strchr(caps->summary, ':') ? strchr(caps->summary, ':') + 2
						    : caps->summary);
	else if (caps->probe_needed)
		snprintf(reason, len, "CPUID: possibly CAT-capable Haswell server, probe needed");
	else
		snprintf(reason, len, "CPUID: no RDT allocation on this CPU; using the simulator");
	return 0;
}

/* Copy out at most caps->sz bytes (ABI rule of the public header). */
static int copy_caps(struct rdtalloc_cpu_caps *dst, const struct rdtalloc_cpu_caps *src,
		     const char *fn)
{
	size_t sz;

	if (!dst)
		return rdt_fail(NULL, -EINVAL, "%s: caps is NULL", fn);
	sz = dst->sz;
	if (sz < sizeof(size_t))
		return rdt_fail(NULL, -EINVAL, "%s: caps->sz is %zu: set it to "
				"sizeof(struct rdtalloc_cpu_caps)", fn, sz);
	if (sz > sizeof(*src)) {
		memset((char *)dst + sizeof(*src), 0, sz - sizeof(*src));
		sz = sizeof(*src);
	}
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}

static int check_caps_arg(const struct rdtalloc_cpu_caps *caps, const char *fn)
{
	if (!caps)
		return rdt_fail(NULL, -EINVAL, "%s: caps is NULL", fn);
	if (caps->sz < sizeof(size_t))
		return rdt_fail(NULL, -EINVAL, "%s: caps->sz is %zu: set it to "
				"sizeof(struct rdtalloc_cpu_caps)", fn, caps->sz);
	return 0;
}

RDTALLOC_API int rdtalloc_cpuid_host(struct rdtalloc_cpu_caps *caps)
{
	struct rdtalloc_cpu_caps full;
	struct rdt_cpuid_dump *d;
	int ret;

	rdt_clear_err(NULL);
	ret = check_caps_arg(caps, "rdtalloc_cpuid_host");
	if (ret)
		return ret;
	d = malloc(sizeof(*d));
	if (!d)
		return rdt_fail(NULL, -ENOMEM, "rdtalloc_cpuid_host: out of memory");
	ret = rdt_cpuid_read_host(d);
	if (ret) {
		free(d);
		return rdt_fail(NULL, ret, "CPUID is not available on this CPU");
	}
	rdt_cpuid_decode(d, &full);
	free(d);
	return copy_caps(caps, &full, "rdtalloc_cpuid_host");
}

RDTALLOC_API int rdtalloc_cpuid_decode_file(const char *path, struct rdtalloc_cpu_caps *caps)
{
	struct rdtalloc_cpu_caps full;
	struct rdt_cpuid_dump *d;
	char err[RDT_ERRMSG_MAX];
	int ret;

	rdt_clear_err(NULL);
	if (!path)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_cpuid_decode_file: path is NULL");
	ret = check_caps_arg(caps, "rdtalloc_cpuid_decode_file");
	if (ret)
		return ret;
	d = malloc(sizeof(*d));
	if (!d)
		return rdt_fail(NULL, -ENOMEM, "rdtalloc_cpuid_decode_file: out of memory");
	ret = rdt_cpuid_read_file(path, d, err, sizeof(err));
	if (ret) {
		free(d);
		return rdt_fail(NULL, ret, "%s", err);
	}
	rdt_cpuid_decode(d, &full);
	free(d);
	return copy_caps(caps, &full, "rdtalloc_cpuid_decode_file");
}
