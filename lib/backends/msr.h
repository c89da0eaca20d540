/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * msr: the parts of the msr backend (msr.c) that are worth calling on their
 * own - the register addresses, the Haswell-EP probe and the description of
 * the host's capabilities - so that tests can run them against a device root
 * of plain files. The backend itself is rdt_backend_msr (backend.h).
 */
#ifndef RDT_BACKENDS_MSR_H
#define RDT_BACKENDS_MSR_H

#include <stddef.h>
#include <stdint.h>

#include <rdtalloc/rdtalloc.h>

/* Intel SDM vol. 3B, "Intel Resource Director Technology" (DESIGN §10). */
#define RDT_MSR_L3_QOS_CFG	0xc81u	/* bit 0: L3 CDP on */
#define RDT_MSR_L2_QOS_CFG	0xc82u	/* bit 0: L2 CDP on */
#define RDT_MSR_PQR_ASSOC	0xc8fu	/* 63:32 CLOSID, 9:0 RMID */
/*
 * Monitoring (SDM vol. 3B, "Intel RDT Monitoring"): write the event id (7:0;
 * 1 occupancy, 2 total, 3 local bandwidth) and the RMID (from bit 32) into
 * IA32_QM_EVTSEL, then IA32_QM_CTR holds the count (61:0), Unavailable (62)
 * or Error (63), for the L3 domain of the CPU that reads it.
 */
#define RDT_MSR_QM_EVTSEL	0xc8du
#define RDT_MSR_QM_CTR		0xc8eu
#define RDT_QM_CTR_ERROR	(UINT64_C(1) << 63)
#define RDT_QM_CTR_UNAVAILABLE	(UINT64_C(1) << 62)
#define RDT_QM_CTR_COUNT	((UINT64_C(1) << 62) - 1)
#define RDT_PQR_RMID_FIELD	UINT64_C(0x3ff)
#define RDT_MSR_L3_MASK_BASE	0xc90u	/* IA32_L3_QOS_MASK_n = base + n */
#define RDT_MSR_L2_MASK_BASE	0xd10u	/* IA32_L2_QOS_MASK_n = base + n */
/*
 * How many mask registers fit before the next block: the L3 masks end where
 * the L2 masks start, the L2 masks where the MBA throttling registers start
 * (0xd50). A machine claiming more CLOSIDs is refused rather than written.
 */
#define RDT_MSR_L3_MASK_MAX	128u
#define RDT_MSR_L2_MASK_MAX	64u
/*
 * Memory bandwidth, one register per CLOSID. Intel (SDM vol. 3B, "Memory
 * Bandwidth Allocation"): IA32_L2_QOS_EXT_BW_THRTL_n = 0xd50 + n holds the
 * delay, 100 - the bandwidth percentage (0: unthrottled). AMD (AMD64
 * Technology Platform Quality of Service Extensions, "L3 external bandwidth
 * enforcement"): L3QOS_BW_CONTROL_n = 0xc0000200 + n holds the bandwidth in
 * 1/8 GB/s, and the value 1 << width (the bit above the field) is unlimited.
 */
#define RDT_MSR_MBA_THRTL_BASE	0xd50u
#define RDT_MSR_MBA_THRTL_MAX	64u
#define RDT_MSR_AMD_BW_BASE	0xc0000200u
#define RDT_MSR_AMD_BW_MAX	256u

#define RDT_MSR_DEFAULT_ROOT	"/dev/cpu"

/*
 * The Haswell-EP probe on one CPU of device root root (NULL: /dev/cpu):
 * write CLOSID 1 into IA32_PQR_ASSOC, read it back, put the original value
 * back. Returns 1 when the CLOSID held (the part has CAT), 0 when it did not
 * (or the write was refused with EIO: the MSR driver's answer to a #GP),
 * or a negative errno when the device cannot be opened or read.
 */
int rdt_msr_probe_haswell(const char *root, int cpu);

/*
 * The machine description of a host whose CPU enumerates caps: capability
 * keys only ("the host's topology with these capabilities"). For a Haswell-EP
 * part (caps->probe_needed) the probe runs on CPU 0 of root. *desc is
 * malloc'ed. -ENODEV with err set when there is no cache allocation.
 */
int rdt_msr_describe_host(const struct rdtalloc_cpu_caps *caps, const char *root, char **desc,
			  char *err, size_t len);

/*
 * Why the last register access of a backend context failed, naming the CPU
 * and the MSR ("CPU 2: writing MSR 0xc91 failed: Input/output error"); ""
 * when none failed. ctx is the one the backend's open() returned.
 */
const char *rdt_msr_last_error(const void *ctx);

#endif
