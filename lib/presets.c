// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * presets: the machine descriptions of real parts behind `preset=NAME`, and
 * the public rdtalloc_preset_foreach(). Every entry says where its numbers
 * come from; "constructed from" marks numbers inferred rather than read off
 * a recording. Topologies model one common 2-socket SKU of each family
 * (sub-NUMA clustering off, SMT on); override `topology` for other SKUs.
 * The recordings named here are in tests/data/cpuid/ (see SOURCES.md there).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdtalloc/rdtalloc.h>

#include "errors.h"
#include "presets.h"

static const struct rdt_preset presets[] = {
	/*
	 * Haswell-EP enumerates nothing in CPUID (max basic leaf 0xf): Linux
	 * probes it and then hard-codes 4 CLOSIDs, a 20-bit CBM, shareable bits
	 * 0xc0000 and a 2-bit minimum (cache_alloc_hsw_probe() in
	 * arch/x86/kernel/cpu/resctrl/core.c; reference/008 of the 2016 resctrl
	 * patches has the same 4/20). No CDP before Broadwell (Intel, "L2 Code
	 * and Data Prioritization" article: CDP starts with Xeon E5 v4).
	 * Topology: Xeon E5-2699 v3, 18 cores, 2 threads each. L3 45 MiB per
	 * socket: the 18-core Haswell-EP die has 45 MB LLC (Tech Report and
	 * AnandTech E5 v3 launch reviews), 2.5 MiB and 20 ways per core as the
	 * leaf 4 of the Haswell-EP recording (14 cores: 20 x 64 x 28672 = 35 MiB).
	 */
	{
		.name = "haswell-ep",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon E5-2699 v3 (Haswell-EP), 2 sockets",
		.desc = "topology=package:2 l3:1(size=46080KiB) core:18 pu:2;l3.closids=4;l3.cbm_len=20;"
			"l3.min_cbm_bits=2;l3.shareable_bits=0xc0000;l3.cdp=0;l3.sparse=0;"
			"mon.rmids=56;mon.scale=57344;mon.width=24;mon.events=llc_occupancy",
		.source = "Linux resctrl cache_alloc_hsw_probe() (4 CLOSIDs, 20-bit CBM, "
			  "shareable 0xc0000, min 2 bits); CPUID of a Haswell-EP enumerates "
			  "none of it (InstLatx64 GenuineIntel00306F2_HaswellEP_01_CPUID.txt); "
			  "L3 45 MiB: the 18-core die's 45 MB LLC (Tech Report, AnandTech)"
			  "; monitoring: CPUID 0xF of that Haswell-EP recording (56 RMIDs, 57344 bytes "
			  "per count, occupancy only)",
	},
	/*
	 * CPUID leaf 0x10.1 of a Broadwell-E i7-6900K (family 6 model 0x4f, the
	 * die family of Broadwell-EP): EAX=0x13 (20 bits) EBX=0xc0000 ECX=0x4
	 * (CDP) EDX=0xf (16 CLOSIDs); pqos on a Xeon E5-2690 v4 reports the same
	 * (intel-cmt-cat issue #59: #COS=8 with CDP on, 20 ways, 0xc0000).
	 * Topology: Xeon E5-2699 v4, 22 cores, 2 threads each. L3 55 MiB per
	 * socket: 22 x 2.5 MiB (HotHardware E5 v4 launch: "up to 55MB" LLC,
	 * 2.5MB per core); the i7-6900K's leaf 4 gives 20 ways x 64 x 16384 =
	 * 20 MiB for 8 cores, 2.5 MiB each.
	 */
	{
		.name = "broadwell-ep",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon E5-2699 v4 (Broadwell-EP), 2 sockets",
		.desc = "topology=package:2 l3:1(size=56320KiB) core:22 pu:2;l3.closids=16;l3.cbm_len=20;"
			"l3.min_cbm_bits=1;l3.shareable_bits=0xc0000;l3.cdp=1;l3.sparse=0;"
			"mon.rmids=64;mon.scale=32768;mon.width=24",
		.source = "CPUID 0x10.1 of an i7-6900K (Broadwell-E, model 0x4f) recorded in "
			  "shyla226/cassandra FileUtilsTest.java; intel-cmt-cat issue #59 "
			  "(Xeon E5-2690 v4: 20 ways, contention mask 0xc0000, CDP); L3 55 MiB = "
			  "22 x 2.5 MiB (HotHardware E5 v4 launch; i7-6900K CPUID leaf 4)"
			  "; monitoring: CPUID 0xF of the i7-6900K recording (64 RMIDs, 32768 bytes "
			  "per count, all three events)",
	},
	/*
	 * CPUID leaf 0x10.1 of a Xeon Platinum 8160: 0000000A-00000600-00000004-
	 * 0000000F, i.e. 11-bit CBM, shareable 0x600, CDP, 16 CLOSIDs.
	 * Topology: that part, 24 cores, 2 threads each. L3 33 MiB per socket:
	 * the same recording's leaf 4.3, EBX=0x0280003f ECX=0xbfff: 11 ways x 64
	 * bytes x 49152 sets (24 x 1.375 MiB).
	 */
	{
		.name = "skylake-sp",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon Platinum 8160 (Skylake-SP), 2 sockets",
		.desc = "topology=package:2 l3:1(size=33792KiB) core:24 pu:2;l3.closids=16;l3.cbm_len=11;"
			"l3.min_cbm_bits=1;l3.shareable_bits=0x600;l3.cdp=1;l3.sparse=0;"
			"mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10;"
			"mon.rmids=192;mon.scale=98304;mon.width=24",
		.source = "CPUID 0x10.1 of a Xeon Platinum 8160 (InstLatx64 "
			  "GenuineIntel0050654_SkylakeXeon_20_CPUID.txt); MBA 8 CLOSIDs, at most "
			  "90% throttled in 10% steps: pqos on Skylake-SP (intel-cmt-cat issues "
			  "#75: MBA COS0-7; #69, #115: 90% the most); L3 33 MiB: leaf 4.3 of that "
			  "recording (11 ways x 64 B x 49152 sets)"
			  "; monitoring: CPUID 0xF of the 8160 recording (192 RMIDs, 98304 bytes per "
			  "count, 24-bit counters, all three events)",
	},
	/*
	 * pqos on Cascade Lake Xeons: "CDP support=1, #COS=16, #ways=11, ways
	 * contention bit-mask 0x600" (intel-cmt-cat issue #187, Xeon Gold 6256;
	 * issue #252, Platinum 8280L). Topology: Xeon Platinum 8280, 28 cores.
	 * L3 38.5 MiB per socket, constructed: the 28-core Skylake-SP die has
	 * 38.5 MB (ComputerBase on the Platinum 8180: 1.375 MB per core), and
	 * Cascade Lake-SP is that die again; no source naming the 8280 was found.
	 */
	{
		.name = "cascadelake-sp",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon Platinum 8280 (Cascade Lake-SP), 2 sockets",
		.desc = "topology=package:2 l3:1(size=39424KiB) core:28 pu:2;l3.closids=16;l3.cbm_len=11;"
			"l3.min_cbm_bits=1;l3.shareable_bits=0x600;l3.cdp=1;l3.sparse=0;"
			"mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10;"
			"mon.rmids=192;mon.scale=98304;mon.width=24",
		.source = "pqos output on Cascade Lake Xeons (intel-cmt-cat issues #187 and "
			  "#252: 16 COS, 11 ways, contention mask 0x600, CDP; #222: MBA 8 COS); "
			  "L3 38.5 MiB constructed: 28 x 1.375 MiB of the 28-core die "
			  "(ComputerBase on the Platinum 8180)"
			  "; monitoring: CPUID 0xF of the Skylake-SP 8160 recording (same die), "
			  "constructed",
	},
	/*
	 * Constructed: no recording of Ice Lake-SP leaf 0x10 was found. The CBM
	 * length is the L3 associativity (12 ways, 1.5 MB per core; one CBM bit
	 * per way as pqos maintainers state in intel-cmt-cat issue #41); 16
	 * CLOSIDs and CDP as on the Xeon Scalable generations before it; no
	 * public shareable-bits value was found, 0 is assumed.
	 * Topology: Xeon Platinum 8380, 40 cores. L3 size: no source was found,
	 * so the synthetic default (hwloc's 16 MiB) stays.
	 */
	{
		.name = "icelake-sp",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon Platinum 8380 (Ice Lake-SP), 2 sockets",
		.desc = "topology=package:2 l3:1 core:40 pu:2;l3.closids=16;l3.cbm_len=12;"
			"l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;l3.sparse=0;"
			"mon.rmids=0",
		.source = "constructed from the 12-way L3 of Ice Lake-SP (1 CBM bit per way, "
			  "intel-cmt-cat issue #41) and the 16 CLOSIDs + CDP of earlier Xeon "
			  "Scalable parts; shareable bits not published, 0 assumed; L3 size not "
			  "sourced (synthetic 16 MiB)"
			  "; monitoring not described (no recording of CPUID 0xF found)",
	},
	/*
	 * Constructed from resctrl info/ published for a Sapphire Rapids host
	 * (unvariance/collector PR #93: L3 cbm_mask 0x7fff, shareable 0x6000;
	 * L2 cbm_mask 0xffff, one L2 per core) and intel/goresctrl PR #154 (L3
	 * and MBA 15 CLOSIDs, L2 8). The part enumerates L3 CDP, but our model
	 * needs an even CLOSID count for CDP, so l3.cdp=0 here.
	 * Topology: Xeon Platinum 8480+, 56 cores, one L2 per core. L3 105 MiB
	 * per socket and L2 2 MiB per core: the 56-core Sapphire Rapids-SP
	 * samples reported 105 MB L3 and 112 MB L2 (techlife.app, cheap5v.com
	 * leak reports), and /proc/cpuinfo of a Platinum 8488C says "cache size:
	 * 107520 KB" (gist jrahman/016e2620...). Constructed, not a recording.
	 */
	{
		.name = "sapphirerapids-sp",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon Platinum 8480+ (Sapphire Rapids-SP), 2 sockets",
		.desc = "topology=package:2 l3:1(size=107520KiB) l2:56(size=2048KiB) core:1 pu:2;l3.closids=15;"
			"l3.cbm_len=15;l3.min_cbm_bits=1;l3.shareable_bits=0x6000;l3.cdp=0;"
			"l3.sparse=0;l2.closids=8;l2.cbm_len=16;l2.min_cbm_bits=1;"
			"l2.shareable_bits=0;l2.cdp=0;l2.sparse=0;"
			"mon.rmids=0",
		.source = "constructed from resctrl info of Sapphire Rapids hosts "
			  "(unvariance/collector PR #93: L3 0x7fff/0x6000, L2 0xffff; "
			  "intel/goresctrl PR #154: 15 L3 and 8 L2 CLOSIDs); CDP off because "
			  "15 is odd; L3 105 MiB, L2 2 MiB per core: reports of the 56-core "
			  "part (105 MB L3, 112 MB L2), cpuinfo of a Platinum 8488C"
			  "; monitoring not described (no recording of CPUID 0xF found)",
	},
	/*
	 * Constructed: the Atom C3958 recording enumerates L2 CAT only (leaf
	 * 0x10.0 EBX=0x4) with a 2 MB L2 per 2-core module, but the recording
	 * tool did not dump subleaf 2. SDM vol. 3C table 35-12 (Goldmont MSRs)
	 * gives IA32_PQR_ASSOC COS bits 33:32 (4 classes) and
	 * IA32_L2_QOS_MASK_n CBM bits 7:0 (8 bits), module scope. intel-cmt-cat
	 * issue #39: Denverton (C3000) was their L2 CAT validation part, no L3.
	 * Topology: Atom C3958, 16 cores in 8 modules, no SMT, no L3. L2 2 MiB
	 * per module: the recording's leaf 4.2 (16 ways x 64 x 2048 sets) and
	 * leaf 0x80000006 ECX[31:16] = 2048 KB.
	 */
	{
		.name = "atom-c3000",
		.vendor = "GenuineIntel",
		.part = "Intel Atom C3958 (Denverton, Goldmont), 1 socket",
		.desc = "topology=package:1 l2:8(size=2048KiB) core:2 pu:1;l2.closids=4;l2.cbm_len=8;"
			"l2.min_cbm_bits=1;l2.shareable_bits=0;l2.cdp=0;l2.sparse=0",
		.source = "constructed from SDM vol. 3C table 35-12 (Goldmont: 2-bit COS "
			  "field, 8-bit IA32_L2_QOS_MASK_n per module) and the L2-CAT-only "
			  "CPUID of an Atom C3958 (InstLatx64 "
			  "GenuineIntel00506F1_Denverton_CPUID.txt); L2 2 MiB per module: its "
			  "leaf 4.2 and 0x80000006",
	},
	/*
	 * CPUID leaf 0x10.1 of a Zen 3 Ryzen 7 5800X (same Zen 3 CCD as EPYC
	 * 7003): 0000000F-00000000-00000004-0000000F, i.e. 16-bit CBM, CDP, 16
	 * CLOSIDs. Linux reads leaf 0x10 on AMD as on Intel and always allows
	 * sparse masks there (rdt_init_res_defs_amd()). One L3 domain per CCX.
	 * Topology: EPYC 7763, 64 cores = 8 CCDs x 8 cores, 32 MB L3 each: the
	 * 5800X's leaf 0x8000001d.3 (16 ways x 64 x 32768 sets = 32 MiB) and
	 * 0x80000006 EDX[31:18] = 64 x 512 KB; 256 MB for the 7763's 8 CCDs
	 * (Techgage EPYC 7003 launch table).
	 */
	{
		.name = "amd-milan",
		.vendor = "AuthenticAMD",
		.part = "AMD EPYC 7763 (Milan, Zen 3), 2 sockets",
		.desc = "topology=package:2 l3:8(size=32768KiB) core:8 pu:2;l3.closids=16;l3.cbm_len=16;"
			"l3.min_cbm_bits=0;l3.shareable_bits=0;l3.cdp=1;l3.sparse=1;"
			"mb.closids=16;mb.units=amd;mb.max=2048;"
			"mon.rmids=256;mon.scale=64;mon.width=44",
		.source = "CPUID 0x10.1 of a Zen 3 Ryzen 7 5800X (InstLatx64 "
			  "AuthenticAMD0A20F12_K19_Vermeer_03_CPUID.txt; L3 32 MiB per CCD: its "
			  "leaf 0x8000001d.3; 7763: 256 MB, Techgage); Linux resctrl: "
			  "AMD masks may be non-contiguous; its 0x80000020.1: 11-bit bandwidth "
			  "field (2048 = unlimited), 16 COS"
			  "; monitoring: CPUID 0xF of the Zen 3 5800X recording (256 RMIDs, 64 bytes "
			  "per count; width offset 0, which Linux takes as 20 on AMD: 44 bits)",
	},
	/*
	 * CPUID leaf 0x10.1 of a Zen 4 Threadripper PRO 7995WX (the Zen 4 CCD of
	 * EPYC 9004): 0000000F-00000000-00000004-0000000F. Topology: EPYC 9654,
	 * 96 cores = 12 CCDs x 8 cores, 32 MB L3 each: the 7995WX's leaf
	 * 0x8000001d.3 (16 ways x 64 x 32768 sets) and 0x80000006 EDX; 384 MB
	 * over the 9654's 12 CCDs (Tom's Hardware).
	 */
	{
		.name = "amd-genoa",
		.vendor = "AuthenticAMD",
		.part = "AMD EPYC 9654 (Genoa, Zen 4), 2 sockets",
		.desc = "topology=package:2 l3:12(size=32768KiB) core:8 pu:2;l3.closids=16;l3.cbm_len=16;"
			"l3.min_cbm_bits=0;l3.shareable_bits=0;l3.cdp=1;l3.sparse=1;"
			"mb.closids=16;mb.units=amd;mb.max=2048;"
			"mon.rmids=256;mon.scale=64;mon.width=44",
		.source = "CPUID 0x10.1 of a Zen 4 Threadripper PRO 7995WX (InstLatx64 "
			  "AuthenticAMD0A10F81_K19_StormPeak_01_CPUID.txt; L3 32 MiB per CCD: its "
			  "leaf 0x8000001d.3; 9654: 384 MB, Tom's Hardware); Linux resctrl: "
			  "AMD masks may be non-contiguous; its 0x80000020.1: 11-bit bandwidth "
			  "field (2048 = unlimited), 16 COS"
			  "; monitoring: CPUID 0xF of the Zen 4 7995WX recording (256 RMIDs, 64 bytes "
			  "per count, width offset 20: 44 bits)",
	},
	/*
	 * AMD EPYC 9755 (Turin, Zen 5), 128 cores = 16 CCDs x 8 cores. The
	 * allocation and MB numbers are the Zen 4 CCD's (amd-genoa): no Zen 5
	 * CPUID recording was found, so they are carried over, not read.
	 * What Linux 6.18 - 7.1 shows on ABMC hardware is from the resctrl
	 * survey (/work/shared/reference/resctrl-6.14-7.2.md, sources S1, S6):
	 * mbm_assign_mode "[mbm_event]" by default, num_mbm_cntrs "0=32;1=32"
	 * (resctrl.rst's example, and intel-cmt-cat#311 on AMD), auto-assign
	 * on mkdir; io_alloc from SDCIAE (tip 7923ae76, resctrl.rst io_alloc).
	 * L3 32 MB per CCD: 512 MB over 16 CCDs (AMD EPYC 9005 product page).
	 */
	{
		.name = "amd-turin",
		.vendor = "AuthenticAMD",
		.part = "AMD EPYC 9755 (Turin, Zen 5), 2 sockets",
		.desc = "topology=package:2 l3:16(size=32768KiB) core:8 pu:2;l3.closids=16;"
			"l3.cbm_len=16;l3.min_cbm_bits=0;l3.shareable_bits=0;l3.cdp=1;l3.sparse=1;"
			"mb.closids=16;mb.units=amd;mb.max=2048;"
			"mon.rmids=256;mon.scale=64;mon.width=44;"
			"mon.cntrs=32;mon.assign=mbm_event;mon.assign_on_mkdir=1;l3.io_alloc=1",
		.source = "constructed: allocation, MB and monitoring as amd-genoa (Zen 4 CCD "
			  "CPUID, no Zen 5 recording found); ABMC: resctrl.rst (Linux 6.18, "
			  "torvalds/linux cb9f145f Documentation/filesystems/resctrl.rst: "
			  "[mbm_event], num_mbm_cntrs 0=32;1=32) and intel-cmt-cat#311 (AMD, 32 "
			  "counters per domain); io_alloc: SDCIAE, tip 7923ae76 and resctrl.rst "
			  "@fabd5a8d (7.1); 512 MB L3 over 16 CCDs (AMD EPYC 9005 product page)",
	},
	/*
	 * Intel Xeon 6980P (Granite Rapids-AP), 128 cores, 2 threads each, 504
	 * MB L3 per socket, booted in SNC-3: three NUMA nodes share each L3, so
	 * resctrl's L3 monitoring is per node (mon_L3_XX/mon_sub_L3_YY) and
	 * num_rmids is the hardware's / 3 (the resctrl survey, section 6,
	 * from fs/resctrl/rdtgroup.c @0ecc988b and the SNC series). The CAT
	 * numbers are constructed: Sapphire Rapids' (sapphirerapids-sp); no
	 * Granite Rapids CPUID recording was found. 512 RMIDs: constructed.
	 */
	{
		.name = "intel-gnr-snc3",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon 6980P (Granite Rapids-AP) in SNC-3, 2 sockets",
		.desc = "topology=package:2 l3:1(size=516096KiB) core:128 pu:2;l3.closids=15;"
			"l3.cbm_len=15;l3.min_cbm_bits=1;l3.shareable_bits=0x6000;l3.cdp=0;"
			"l3.sparse=0;mon.rmids=512;mon.scale=106496;mon.width=24;mon.snc=3",
		.source = "constructed: CAT as sapphirerapids-sp, 512 RMIDs and the scale "
			  "assumed; SNC-3 layout and the RMIDs and scale divided by the nodes: "
			  "fs/resctrl/rdtgroup.c mkdir_mondata_subdir_snc (torvalds/linux "
			  "0ecc988b), arch/x86 snc_get_config (SNC series); 504 MB L3: Intel Xeon "
			  "6980P product page",
	},
	/*
	 * Intel Xeon 6+ (Clearwater Forest), 288 E-cores without SMT per
	 * socket: AET telemetry through resctrl's PERF_PKG resource (Linux
	 * 7.0): the energy group (core_energy, activity; GUID 0x26696143) and
	 * the perf group (seven events; GUID 0x26557651), 576 RMIDs each, per
	 * package (arch/x86/kernel/cpu/resctrl/intel_aet.c @dcb49710, the
	 * survey's section 5). CAT and L3 monitoring numbers constructed.
	 */
	{
		.name = "intel-cwf",
		.vendor = "GenuineIntel",
		.part = "Intel Xeon 6+ (Clearwater Forest), 288 cores, 2 sockets",
		.desc = "topology=package:2 l3:1(size=589824KiB) core:288 pu:1;l3.closids=16;"
			"l3.cbm_len=12;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;l3.sparse=0;"
			"mon.rmids=1024;mon.scale=65536;mon.width=24;"
			"pkg.events=energy,perf;pkg.rmids=576",
		.source = "PERF_PKG: arch/x86/kernel/cpu/resctrl/intel_aet.c and resctrl.rst "
			  "(torvalds/linux dcb49710, Linux 7.0): groups energy (0x26696143) and "
			  "perf (0x26557651), 576 RMIDs; constructed: CAT, L3 monitoring and "
			  "the 576 MB L3 (no recording found)",
	},
	/*
	 * A Neoverse V2-class MPAM system (72 cores, one socket, a 114 MiB
	 * system-level cache as L3) as Linux 7.1's drivers/resctrl/
	 * mpam_resctrl.c shows it: L3 from the cache portion bitmap (16 bits
	 * here) with sparse masks and shareable_bits the whole mask, no CDP,
	 * MB in percent from MBW_MAX (a 7-bit bwa_wd: granularity
	 * DIV_ROUND_UP(100, 128) = 1, minimum 100 / 128 rounded = 1),
	 * llc_occupancy the only event, num_rmids = PMGs x PARTIDs (2 x 64).
	 * The widths are constructed; the rules are the survey's section 7.
	 */
	{
		.name = "arm-mpam",
		.vendor = "ARM",
		.part = "Arm Neoverse V2-class MPAM system, 72 cores, 1 socket",
		.desc = "topology=package:1 l3:1(size=116736KiB) core:72 pu:1;l3.closids=64;"
			"l3.cbm_len=16;l3.min_cbm_bits=1;l3.shareable_bits=0xffff;l3.cdp=0;"
			"l3.sparse=1;mb.closids=64;mb.units=percent;mb.min=1;mb.gran=1;mb.max=100;"
			"mon.rmids=128;mon.scale=1;mon.width=62;mon.events=llc_occupancy;arch=mpam",
		.source = "drivers/resctrl/mpam_resctrl.c (torvalds/linux fb481ec0, Linux 7.1) "
			  "and Documentation/arch/arm64/mpam.rst (6b4ee752): sparse masks, "
			  "shareable_bits the whole mask, no CDP, MB percent from MBW_MAX, "
			  "llc_occupancy only, num_rmids = PMGs x PARTIDs; constructed: the "
			  "bitmap and bandwidth widths, 64 PARTIDs, 2 PMGs, the topology",
	},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const struct rdt_preset *rdt_preset_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < NPRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

const char *rdt_preset_lookup(const char *name)
{
	const struct rdt_preset *p = rdt_preset_find(name);

	return p ? p->desc : NULL;
}

const struct rdt_preset *rdt_preset_at(unsigned int i)
{
	return i < NPRESETS ? &presets[i] : NULL;
}

unsigned int rdt_preset_count(void)
{
	return NPRESETS;
}

int rdt_preset_names(char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < NPRESETS; i++) {
		int n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 "%s%s", i ? ", " : "", presets[i].name);

		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}

RDTALLOC_API int rdtalloc_preset_foreach(int (*cb)(const char *name, const char *desc,
						   const char *source, void *arg),
					 void *arg)
{
	unsigned int i;
	int ret;

	rdt_clear_err(NULL);
	if (!cb)
		return rdt_fail(NULL, -EINVAL, "rdtalloc_preset_foreach: callback is NULL");
	for (i = 0; i < NPRESETS; i++) {
		ret = cb(presets[i].name, presets[i].desc, presets[i].source, arg);
		if (ret)
			return ret;
	}
	return 0;
}
