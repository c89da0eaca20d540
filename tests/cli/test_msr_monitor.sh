# SPDX-License-Identifier: LGPL-2.1-or-later
# test_msr_monitor: monitoring on the msr backend against the msr driver's
# emulator (rdtalloc-msrfs), whose IA32_QM_CTR answers for the last
# IA32_QM_EVTSEL written on the same CPU, in that CPU's L3 domain. Counter
# values are planted in the emulator's state file; checked: a CPU bound to a
# group runs with the group's RMID in PQR_ASSOC (two groups sharing a CLOSID
# have two RMIDs), exact bytes from planted counts, Error and Unavailable as
# states, a wrap folded into the running total, and the rate from it.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "the msr backend needs root (CAP_SYS_RAWIO)"

ROOT=$TMP/dev
MSTATE=$TMP/msrfs.state
MOUNTS=$TMP/mounts
MACHINE="$MACHINE_REAL;mon.rmids=8;mon.scale=64;mon.width=24"
echo "proc /proc proc rw 0 0" >"$MOUNTS"
msrfs_start "$ROOT" "$MACHINE" --state "$MSTATE"

msr()
{
	RDTALLOC_MOUNTS=$MOUNTS "$RDTCTL" --backend msr --msr-root "$ROOT" --machine "$MACHINE" \
		--state-dir "$STATE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl --backend msr $*"
}

# reg CPU ADDR: MSR ADDR of CPU, as hex
reg()
{
	python3 -c '
import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(hex(struct.unpack("<Q", os.pread(fd, 8, int(sys.argv[2], 16)))[0]))
' "$ROOT/$1/msr" "$2"
}

# plant LINE...: the emulator stopped, counter lines added to its state, restarted
plant()
{
	fusermount3 -u "$ROOT" || fail "cannot unmount the emulator"
	grep -v '^qm ' "$MSTATE" >"$MSTATE.new"
	for l in "$@"; do echo "$l" >>"$MSTATE.new"; done
	mv "$MSTATE.new" "$MSTATE"
	"$RDTALLOC_TEST_MSRFS" "$ROOT" --machine "$MACHINE" --state "$MSTATE" ||
		fail "the emulator did not restart with the planted counters"
}

msr group create a
expect_rc 0 "group a"
msr group create b
expect_rc 0 "group b, the same schema: the same CLOSID"
msr cpu bind a 1
expect_rc 0 "cpu bind a 1"
msr cpu bind b 3
expect_rc 0 "cpu bind b 3"
# PQR_ASSOC: CLOSID 0 (a and b share the default masks), RMIDs 1 and 2
if [ "$(reg 1 0xc8f)" = "0x1" ]; then pass; else fail "CPU 1's PQR_ASSOC is $(reg 1 0xc8f), wanted RMID 1"; fi
if [ "$(reg 3 0xc8f)" = "0x2" ]; then pass; else fail "CPU 3's PQR_ASSOC is $(reg 3 0xc8f), wanted RMID 2"; fi
if [ "$(reg 0 0xc8f)" = "0x0" ]; then pass; else fail "CPU 0 should run with RMID 0"; fi
msr schema set a 'L3:0=f;1=f'
expect_rc 0 "a gets masks of its own"
if [ "$(reg 1 0xc8f)" = "0x100000001" ]; then pass; else
	fail "CPU 1's PQR_ASSOC is $(reg 1 0xc8f), wanted CLOSID 1 and RMID 1"; fi
msr cpu bind default 3
expect_rc 0 "CPU 3 back to default"
if [ "$(reg 3 0xc8f)" = "0x0" ]; then pass; else fail "CPU 3 kept RMID 2: $(reg 3 0xc8f)"; fi

# a's counters: L3 0 occupancy 0x100 units, total near the wrap, local unavailable;
# L3 1: occupancy in error
plant "qm 0 0x10001 0x100" "qm 0 0x20001 0xfffff0" "qm 0 0x30001 0x4000000000000000" \
	"qm 1 0x10001 0x8000000000000000" "qm 1 0x20001 0x5" "qm 1 0x30001 0x5"
msr -j monitor a --count 1
expect_rc 0 "monitor a"
json "domain 0: occupancy and total read, local unavailable" \
	'[(x["state"], x["llc_occupancy_bytes"], x["mbm_total_bytes"], x["mbm_local_bytes"]) for x in d["groups"][0]["domains"]]' \
	"[[\"unavailable\", 16384, $((0xfffff0 * 64)), null], [\"error\", null, 320, 320]]"
json "the RMID" 'd["groups"][0]["rmid"]' '1'
# the counter wraps: 0xfffff0 -> 0x10 is 0x20 units later
plant "qm 0 0x10001 0x100" "qm 0 0x20001 0x10" "qm 0 0x30001 0x7"
msr -j monitor a --count 1
json "the wrap folded in" 'd["groups"][0]["domains"][0]["mbm_total_bytes"]' "$(((0xfffff0 + 0x20) * 64))"
json "a rate from the last reading" 'd["groups"][0]["domains"][0]["mbm_total_bytes_per_second"] > 0' 'true'
json "local: its first reading" 'd["groups"][0]["domains"][0]["mbm_local_bytes"]' "$((7 * 64))"
# limbo on registers: a freed RMID that still holds lines (read through
# QM_CTR when its group goes) is not given out until it holds under the
# threshold; then the lowest free RMID is its again
plant "qm 0 0x10002 0x100000000"
msr group remove b
expect_rc 0 "remove b: RMID 2 in limbo"
msr group create c
expect_rc 0 "group c"
msr -j group show c
json "c skips RMID 2, still full" 'd["rmid"]' '3'
msr -j info
json "one RMID in limbo" 'd["monitoring"]["in_limbo"]' '1'
plant "qm 0 0x10002 0x0"
msr group create e
expect_rc 0 "group e"
msr -j group show e
json "RMID 2, empty now, is e's" 'd["rmid"]' '2'
# no monitoring on the machine: QM_EVTSEL faults, and rdtctl says there is none
msr monitor --count 1 --format csv
expect_rc 0 "csv on msr"
msr info
expect_out_contains "info shows the RMIDs" "monitoring: L3, 8 RMIDs, 64 bytes per count, 24-bit counters"

# the MBM erratum of Broadwell-EP / Skylake-SP (mon.mbm_cf=1; the host's CPUID
# sets it there): with 24 RMIDs, those above 15 count x 0.969650 (fixed point
# 1016752 / 2^20, the kernel's rounding); RMID 15 and under are as read
ROOT=$TMP/dev-cf
MSTATE=$TMP/msrfs-cf.state
MACHINE="$MACHINE_REAL;mon.rmids=24;mon.scale=64;mon.width=24;mon.mbm_cf=1"
STATE=$TMP/state-cf
mkdir -m 700 "$STATE"
msrfs_start "$ROOT" "$MACHINE" --state "$MSTATE"
for i in $(seq 1 16); do msr group create "g$i"; done
msr -j group show g16
json "g16 holds RMID 16" 'd["rmid"]' '16'
plant "qm 0 0x20010 0x100000" "qm 0 0x2000f 0x100000"
msr -j monitor g16 g15 --count 1
json "RMID 16 corrected, RMID 15 not" \
	'[g["domains"][0]["mbm_total_bytes"] for g in d["groups"]]' \
	"[$(( (0x100000 * 1016752 >> 20) * 64 )), $(( 0x100000 * 64 ))]"
msr info
expect_out_contains "info says so" "MBM counts of RMIDs above 15 x 0.969650 (the part's erratum, BDF102 or SKX99, corrected as the kernel does)"

# a machine with SNC and package telemetry, which msr does not read: monitor
# shows the L3 domains as ever (it failed: "per-node counters on backend msr
# are not built")
MACHINE="$MACHINE_REAL;mon.rmids=8;mon.scale=64;mon.width=24;mon.snc=2;pkg.events=energy"
STATE=$TMP/state-snc
ROOT=$TMP/dev-snc
mkdir -m 700 "$STATE"
msrfs_start "$ROOT" "$MACHINE" --state "$TMP/msrfs-snc.state"
msr -j monitor --count 1
expect_rc 0 "monitor with SNC and PERF_PKG on msr"
json "the domains, no nodes, no packages" '[[sorted(x) for x in d["groups"][0]["domains"]], "packages" in d["groups"][0]]' \
	'[[["cache_id", "llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "state"], ["cache_id", "llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "state"]], false]'
finish
