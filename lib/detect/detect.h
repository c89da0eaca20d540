/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * detect: what the CPU enumerates for cache allocation. Raw CPUID leaves
 * (read live through libcpuid, or from a `cpuid -r` dump) and a pure decode
 * of them into struct rdtalloc_cpu_caps. Knows nothing of topology (hwloc,
 * machine.c) or of backends; the auto backend only asks rdt_detect_host().
 */
#ifndef RDT_DETECT_H
#define RDT_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include <rdtalloc/rdtalloc.h>

/* Enough for one CPU of a full `cpuid -r` dump of current parts. */
#define RDT_CPUID_MAX_LEAVES 512

struct rdt_cpuid_leaf {
	uint32_t leaf, subleaf;
	uint32_t regs[4];		/* eax, ebx, ecx, edx */
};

/* One CPU's CPUID leaves; a (leaf, subleaf) not in it reads as zeros. */
struct rdt_cpuid_dump {
	unsigned int n;
	struct rdt_cpuid_leaf leaf[RDT_CPUID_MAX_LEAVES];
};

/*
 * Record one leaf. -EEXIST when (leaf, subleaf) is already there, -ENOSPC
 * when the dump is full.
 */
int rdt_cpuid_add(struct rdt_cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
		  const uint32_t regs[4]);
/*
 * What CPUID(leaf, subleaf) returns according to the dump: zeros when the
 * leaf is missing, or lies above the maximum basic (leaf 0 EAX) or extended
 * (0x80000000 EAX) leaf - leaves past the maximum are not to be trusted.
 */
void rdt_cpuid_get(const struct rdt_cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
		   uint32_t regs[4]);

/*
 * Pure decode (SDM vol. 3B "Intel RDT", Linux resctrl for AMD): fills every
 * field of *caps (caps->sz is set to sizeof(*caps)). Never fails.
 */
void rdt_cpuid_decode(const struct rdt_cpuid_dump *d, struct rdtalloc_cpu_caps *caps);

/*
 * Read the text of `cpuid -r` (Debian's cpuid tool); name labels messages.
 * The leaves of the first CPU are kept; '#' lines, blank lines, "CPU N:" /
 * "CPU:" headers and the tool's "Disclaimer:" line are skipped, anything
 * else is -EINVAL with err = "cpuid dump NAME line N: cannot parse ...".
 * Bounds: at most 64 MiB (-E2BIG), lines of at most 4096 bytes, and no
 * byte that is not text (a control byte but tab, CR, LF: -EINVAL naming
 * the line and the offset).
 */
int rdt_cpuid_read_text(const char *text, const char *name, struct rdt_cpuid_dump *d,
			char *err, size_t errlen);
/*
 * The same from a file: -ENOENT (or another -errno) when it cannot be read.
 * A regular file over 64 MiB is refused on its size, unread; anything else
 * (a pipe, /dev/zero) is read as it comes, a line at a time, and stopped at
 * the first bad byte or over-long line, or after 64 MiB.
 */
int rdt_cpuid_read_file(const char *path, struct rdt_cpuid_dump *d, char *err, size_t errlen);

/* The leaves the decode needs, from the CPU this thread runs on (libcpuid). -ENODEV: no CPUID. */
int rdt_cpuid_read_host(struct rdt_cpuid_dump *d);

/*
 * Detect the host's cache allocation and say in one line what it means for
 * backend choice, e.g. "CPUID: no RDT allocation on this CPU; using the
 * simulator". Returns 0, or -ENODEV when there is no CPUID (caps zeroed,
 * reason still set).
 */
int rdt_detect_host(struct rdtalloc_cpu_caps *caps, char *reason, size_t len);

#endif
