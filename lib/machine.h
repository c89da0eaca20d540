/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * machine: what a machine has for cache allocation - its resources (L3, L2),
 * their capabilities, their domains (cache id + CPUs) - built from a machine
 * description (DESIGN §5) or from the host (hwloc + CPUID detection).
 * Owns parsing of descriptions and presets; knows nothing of groups or state.
 */
#ifndef RDT_MACHINE_H
#define RDT_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Resources: the caches (RDT_NRES of them, what every cache loop covers) and
 * memory bandwidth, whose domains are the L3 domains. Arrays indexed by
 * resource that include MB are [RDT_NALL].
 */
enum rdt_res { RDT_L3 = 0, RDT_L2 = 1, RDT_NRES = 2, RDT_MB = 2, RDT_NALL = 3 };

/* Defaults of the simulation when a description says nothing (as the 2016 resctrl patch set, then named rscctrl, simulated). */
#define RDT_SIM_CLOSIDS 16
#define RDT_SIM_CBM_LEN 20
#define RDT_SIM_MIN_BITS 1
#define RDT_MAX_CBM_LEN 64
#define RDT_MAX_CLOSIDS 4096
#define RDT_MAX_CPUS 4096
/* Bytes of a whole machine description (its topology: 32 KiB of it at most). */
#define RDT_MACHINE_DESC_MAX (64 << 10)

struct rdt_caps {
	bool present;			/* this resource has allocation */
	unsigned int closids;		/* hardware CLOSIDs, CDP off */
	unsigned int cbm_len;		/* 1 .. 64 */
	unsigned int min_cbm_bits;	/* 0 (AMD: an empty mask is valid) .. cbm_len */
	uint64_t shareable_bits;
	bool cdp;			/* CDP supported */
	bool sparse;			/* non-contiguous masks allowed */
	/*
	 * MB only. A value is a percentage of the bandwidth (Intel: the
	 * register holds the delay, 100 - value) or, with mb_amd, the
	 * bandwidth in 1/8 GB/s (AMD). Values run mb_min .. mb_max in steps
	 * of mb_gran (resctrl rounds up to the step); mb_max means unthrottled.
	 */
	unsigned int mb_min, mb_gran, mb_max;
	bool mb_amd;
	/*
	 * (0.7) resctrl mounted with -o mba_MBps: values are MBps the kernel's
	 * software controller keeps each group under (0 .. 2^32 - 1, the most
	 * meaning unthrottled); no register holds them.
	 */
	bool mb_mbps;
	/*
	 * L3 only (6.19, AMD SDCIAE): io_alloc can be enabled; it takes the
	 * highest usable CLOSID (closids - 1, closids / 2 - 1 with CDP).
	 */
	bool io_alloc;
};

/*
 * L3 monitoring (CMT, MBM): per L3 domain, every RMID has an occupancy
 * counter and bandwidth counters of width bits, counting in units of scale
 * bytes. rmids 0: none. bw is the memory bus the simulator models per L3
 * domain; elsewhere it only scales MB percentages in the model.
 */
#define RDT_SIM_RMIDS 128
#define RDT_SIM_MON_SCALE 65536
#define RDT_SIM_MON_WIDTH 24
#define RDT_SIM_MON_BW 20000000000ull	/* 20 GB/s */
#define RDT_MAX_RMIDS 1024		/* PQR_ASSOC's RMID field is bits 9:0 */
#define RDT_MON_EVENTS_ALL 7u		/* RDTALLOC_MON_EV_* */
/*
 * Counters this wide never wrap in practice (resctrl's are 64-bit byte
 * counts, described as 62): a smaller reading is a counter that started
 * again, not a wrap.
 */
#define RDT_MON_WIDTH_NOWRAP 62

struct rdt_mon {
	unsigned int rmids;
	unsigned int scale;
	unsigned int width;		/* 24 .. 62 */
	unsigned int events;		/* RDTALLOC_MON_EV_* */
	uint64_t threshold;		/* a freed RMID is reused once it holds less (bytes) */
	uint64_t bw;			/* bytes per second */
	bool mbm_cf;			/* MBM counts need the erratum's correction (mbm_cf.c) */
	/*
	 * Sub-NUMA clustering: snc nodes share each L3 domain (0 or 1: none).
	 * rmids and scale above are what resctrl shows, the hardware's divided
	 * by snc as the kernel divides them; hw_rmids and hw_scale are the
	 * hardware's (the description's mon.rmids, mon.scale).
	 */
	unsigned int snc;
	unsigned int hw_rmids, hw_scale;
	/*
	 * Counter assignment (6.18, AMD ABMC): cntrs assignable counters per L3
	 * domain (0: none, MBM events count for every RMID); assign: the
	 * mbm_event mode is on at mount; assign_on_mkdir: a new group gets a
	 * counter per MBM event and domain.
	 */
	unsigned int cntrs;
	bool assign;
	bool assign_on_mkdir;
	/*
	 * The kernel whose counter assignment is served (mon.abmc): 6.18-7.1,
	 * or 7.2's follow-ups (an assignment to every domain goes on past a
	 * domain without a counter; mba_MBps refused), RO: also event_filter
	 * not configurable (read-only).
	 */
	unsigned int abmc;
};

enum { RDT_ABMC_6_18, RDT_ABMC_7_2, RDT_ABMC_7_2_RO, RDT_ABMC_NKERNELS };
extern const char *const rdt_abmc_kernel_names[RDT_ABMC_NKERNELS];

/*
 * Intel AET telemetry (7.0): the PERF_PKG resource, one domain per package.
 * Events come in the kernel's groups: energy (core_energy, activity) and
 * perf (the seven perf events), RDT_PKG_* bits.
 */
#define RDT_PKG_ENERGY 1u
#define RDT_PKG_PERF 2u
#define RDT_PKG_NEVENTS 9
#define RDT_PKG_RMIDS 576		/* RMIDs of both groups' XML descriptions */
#define RDT_MAX_CNTRS 1024		/* assignable counters per L3 domain, at most */
#define RDT_MAX_SNC 8			/* SNC nodes per L3 domain, at most */

struct rdt_pkg {
	unsigned int groups;		/* RDT_PKG_*; 0: no PERF_PKG */
	unsigned int rmids;		/* info/PERF_PKG_MON/num_rmids */
};

struct rdt_domain {
	unsigned int cache_id;
	unsigned int ncpus;
	int *cpus;			/* OS indexes, ascending */
	uint64_t cache_size;		/* bytes, 0 when unknown */
	unsigned int ways;		/* 0 when unknown */
};

struct rdt_machine {
	char *desc;			/* canonical description; "" = the host */
	char vendor[16];		/* "GenuineIntel", "AuthenticAMD", "sim" */
	char model[64];			/* processor name, or the preset's name */
	struct rdt_caps caps[RDT_NALL];
	struct rdt_mon mon;		/* its L3 domains are the monitoring domains */
	unsigned int ndom[RDT_NALL];
	struct rdt_domain *dom[RDT_NALL];	/* ascending cache id; MB: the L3 domains' */
	unsigned int ncpus;		/* CPU numbers run 0 .. ncpus-1 */
	bool *cpu_present;		/* [ncpus]: exists, online and usable */
	bool virtual_tasks;		/* tasks=virtual: any tid > 0 is accepted */
	char note[160];			/* detection remark for `info` ("" when none) */
	/* Arm MPAM as 7.1's resctrl shows it (docs/machine.md, "arch") */
	bool mpam;
	struct rdt_pkg pkg;
	unsigned int npkg;		/* PERF_PKG domains: the packages, ascending id */
	struct rdt_domain *pkgdom;
	/*
	 * Appended by machine.c: per resource, [ncpus] domain index of each CPU
	 * (-1: absent), so that rdt_machine_cpu_domain() is O(1). NULL in a
	 * hand-built machine: the lookup then scans the domains instead.
	 */
	int *cpu_dom[RDT_NALL];
};

/*
 * Build a machine from a description ("key=value; ..."; NULL or "" for the
 * host's topology with simulated CAT defaults). On error returns -EINVAL
 * (or -ENOMEM, -ENODEV) and writes a message naming the bad item into err.
 * The canonical form in m->desc compares equal for equal machines.
 */
int rdt_machine_build(const char *desc, struct rdt_machine **out, char *err, size_t errlen);
void rdt_machine_free(struct rdt_machine *m);

/* Index of a domain by cache id, or -1. */
int rdt_machine_domain(const struct rdt_machine *m, enum rdt_res res, unsigned int cache_id);
/* Domain index of cpu in res, or -1 (CPU absent, or res absent). */
int rdt_machine_cpu_domain(const struct rdt_machine *m, enum rdt_res res, int cpu);

/* resctrl's name of a monitoring event bit ("llc_occupancy", ...); and back (0: unknown). */
const char *rdt_machine_mon_event_name(unsigned int bit);
unsigned int rdt_machine_mon_event_parse(const char *name);

/*
 * PERF_PKG event i (0 .. RDT_PKG_NEVENTS - 1) in the kernel's order:
 * its file name and its group (RDT_PKG_*); fixed point (Joules, Farads)
 * or a count.
 */
const char *rdt_machine_pkg_event_name(unsigned int i);
unsigned int rdt_machine_pkg_event_group(unsigned int i);
bool rdt_machine_pkg_event_fixed(unsigned int i);

/*
 * SNC node of cpu (its NUMA node id, 0 .. ndom[L3] * snc - 1) or -1. The
 * CPUs of an L3 domain, ascending, are split into snc equal runs; node ids
 * count on across the domains.
 */
int rdt_machine_snc_node(const struct rdt_machine *m, int cpu);

/* "L3" / "L2" / "MB"; and back (-1 when unknown; case-insensitive). */
const char *rdt_res_name(enum rdt_res res);
int rdt_res_parse(const char *name);

#endif
