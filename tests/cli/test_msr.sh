# SPDX-License-Identifier: LGPL-2.1-or-later
# test_msr: rdtctl on the msr backend, against a device root of plain files
# given with --msr-root: the registers written at their MSR offsets, the
# write counters of `info -j` (each equal to the values that changed), and
# the refusals the backend gives with the option's value.
. "$(dirname "$0")/lib.sh"
need_python

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the msr backend needs root (CAP_SYS_RAWIO)" >&2
	exit 77
fi

ROOT=$TMP/dev
MOUNTS=$TMP/mounts
MACHINE=$MACHINE_REAL
for c in 0 1 2 3; do
	mkdir -p "$ROOT/$c"
	# room for every register up to the last L2 mask (0xd4f) and 8 bytes more
	truncate -s 4096 "$ROOT/$c/msr"
done
echo "proc /proc proc rw 0 0" >"$MOUNTS"

# msr ARGS: rdtctl on the msr backend, this test's devices and mount table
msr()
{
	RDTALLOC_MOUNTS=$MOUNTS "$RDTCTL" --backend msr --msr-root "$ROOT" \
		--state-dir "$STATE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl --backend msr $*"
}

# reg CPU ADDR: the 8 bytes at offset ADDR of CPU's device, as hex
reg()
{
	python3 -c '
import struct, sys
with open(sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 16))
    print(hex(struct.unpack("<Q", f.read(8))[0]))
' "$ROOT/$1/msr" "$2"
}

expect_reg()
{
	r_got=$(reg "$2" "$3")
	if [ "$r_got" = "$4" ]; then pass; else
		fail "$1: CPU $2 MSR $3 holds $r_got, wanted $4"; fi
}

# writes: "mask pqr cfg" counters from info -j
writes()
{
	msr -j info
	printf '%s' "$OUT" | python3 -c '
import json, sys
w = json.load(sys.stdin)["backend"]["writes"]
print(w["mask"], w["pqr"], w["cfg"])'
}

expect_writes()
{
	w_got=$(writes)
	if [ "$w_got" = "$2" ]; then pass; else
		fail "$1: write counters (mask pqr cfg) are '$w_got', wanted '$2'"; fi
}

# First use: every mask all-ones, every CPU on CLOSID 0, the RMID kept.
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0xc8f)
    f.write(struct.pack("<Q", 0x2a))
' "$ROOT/3/msr"
msr --machine "$MACHINE" info
expect_rc 0 "a look before first use"
expect_reg "a look writes no register" 2 0xc9f 0x0
msr --machine "$MACHINE" reset
expect_rc 0 "first use"
msr info
expect_out_has "info names the backend" "backend:  msr (backend 'msr' requested by the caller)"
expect_reg "first use: PQR_ASSOC of CPU 3 keeps its RMID" 3 0xc8f 0x2a
expect_reg "first use: last L3 mask of domain 1 is all-ones" 2 0xc9f 0xfffff
expect_writes "first use is not counted as engine writes" "0 0 0"

# Reopened without --machine: the state records it, so CPUID is not asked.
msr group create a
expect_rc 0 "group create without --machine"
expect_writes "a new group shares CLOSID 0" "0 0 0"
msr schema set a 'L3:0=f'
expect_rc 0 "schema set"
expect_reg "mask 1 of domain 0" 0 0xc91 0xf
expect_writes "one mask changed" "1 0 0"
msr cpu bind a 1
expect_rc 0 "cpu bind"
expect_reg "PQR_ASSOC of CPU 1 holds CLOSID 1" 1 0xc8f 0x100000000
expect_writes "one PQR_ASSOC changed" "1 1 0"
msr cpu bind a 1
expect_writes "binding again changes nothing" "1 1 0"
msr schema set a 'L3:0=f0'
expect_reg "the group's only CLOSID is rewritten in place" 0 0xc91 0xf0
expect_reg "CPU 1 stays on CLOSID 1" 1 0xc8f 0x100000000
expect_writes "one more mask, no PQR_ASSOC" "2 1 0"
msr cpu bind a 3
expect_reg "in domain 1 the group shares CLOSID 0: CPU 3 unchanged, RMID kept" 3 0xc8f 0x2a
expect_writes "CPU 3's CLOSID did not change" "2 1 0"
msr -j info
json "info -j: write counters are numbers" \
	"sorted(d['backend']['writes'].items())" '[["cfg", 0], ["mask", 2], ["pqr", 1]]'

# Reopening after our own writes: the files read back as the last call left
# them, so nothing is rewritten and nothing is said - although on plain files
# neighbouring registers overlap and do not read back as written.
for c in 0 1 2 3; do cp "$ROOT/$c/msr" "$TMP/dev$c.before"; done
msr info
expect_rc 0 "reopen"
case $OUT in
*disagreed*) fail "a reopen without outside writes re-applied registers: $OUT" ;;
*) pass ;;
esac
same=yes
for c in 0 1 2 3; do cmp -s "$ROOT/$c/msr" "$TMP/dev$c.before" || same=no; done
if [ $same = yes ]; then pass; else fail "a reopen without outside writes changed the devices"; fi

# Someone else's write: the next open re-applies and says so, once.
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0xc8f)
    f.write(struct.pack("<Q", 0x2a))
' "$ROOT/1/msr"
msr info
case $OUT in
*"registers disagreed with the state and were re-applied"*) pass ;;
*) fail "an outside write to CPU 1's PQR_ASSOC was not reported: $OUT" ;;
esac
expect_reg "CPU 1's CLOSID is back, the RMID written meanwhile kept" 1 0xc8f 0x10000002a
msr info
case $OUT in
*disagreed*) fail "the re-apply was reported twice: $OUT" ;;
*) pass ;;
esac

# A task cannot be bound without the switch hook, and nothing changes.
msr save
before=$OUT
msr task bind a $$
expect_rc 1 "task bind on msr without the hook"
expect_err_has "task bind names the hook" "needs the switch hook"
msr save
if [ "$OUT" = "$before" ]; then pass; else fail "a refused task bind changed the state"; fi

# A device that cannot be opened (a directory: root ignores file modes): the
# error names the CPU and the device, and nothing changes. (A write failing
# half-way through a call, and the rollback of the domains already written,
# are tested in tests/unit/test_msr.c, which models the driver's layout.)
msr save
before=$OUT
mv "$ROOT/2/msr" "$TMP/cpu2.file"
mkdir "$ROOT/2/msr"
msr schema set a 'L3:0=3;1=3'
expect_rc 1 "schema set with CPU 2's device a directory"
expect_err_has "names the CPU and the device" "CPU 2: cannot open $ROOT/2/msr: Is a directory"
rmdir "$ROOT/2/msr"
mv "$TMP/cpu2.file" "$ROOT/2/msr"
msr save
if [ "$OUT" = "$before" ]; then pass; else fail "a refused open changed the state"; fi

# Refusals, each with what to do.
RDTALLOC_MOUNTS=$MOUNTS run_raw --backend msr --msr-root relative --state-dir "$STATE" info
expect_rc 1 "a relative --msr-root"
expect_err_has "says it must be absolute" "msr device root 'relative' must be an absolute path"
RDTALLOC_MOUNTS=$MOUNTS run_raw --backend msr --msr-root "$TMP/none" --state-dir "$TMP/s2" \
	--machine "$MACHINE" info
expect_rc 1 "a device root without devices"
expect_err_has "names the missing device and the option" \
	"no $TMP/none/0/msr: load the msr driver (modprobe msr), or check the device root $TMP/none (--msr-root, RDTALLOC_MSR_ROOT)"
# Memory bandwidth, Intel: IA32_L2_QOS_EXT_BW_THRTL_n (0xd50 + n) holds the
# delay, 100 - the percentage; 0 (unthrottled) at first use.
STATE=$TMP/state-mb
mkdir -m 700 "$STATE"
MB_INTEL="$MACHINE;mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10"
msr --machine "$MB_INTEL" group create m --schema 'L3:0=ff;1=ff'
expect_rc 0 "MB: a group"
expect_reg "MB: CLOSID 1 unthrottled at first" 0 0xd51 0x0
msr schema set m 'MB:0=50;1=75'
expect_rc 0 "MB: schema set"
expect_reg "MB: domain 0, CLOSID 1: delay 50" 0 0xd51 0x32
expect_reg "MB: domain 1, CLOSID 1: 75 rounded up to 80, delay 20" 2 0xd51 0x14
expect_reg "MB: CLOSID 0 stays unthrottled" 0 0xd50 0x3200
msr schema show m
expect_out "MB: the schema shows the rounded value" "L3:0=000ff;1=000ff
MB:0=50;1=80"
msr schema set m 'MB:0=5'
expect_rc 1 "MB: below the minimum"
expect_err_has "MB: the message" "MB domain 0: 5 is below the minimum bandwidth 10"
expect_reg "MB: refused, the register unchanged" 0 0xd51 0x32
msr -j closids MB
json "closids MB: bandwidths" "[(c['closid'], c['mask']) for c in d[0]['closids']]" \
	'[[0, 100], [1, 50]]'

# Memory bandwidth, AMD: L3QOS_BW_CONTROL_n (0xc0000200 + n) holds the
# bandwidth in 1/8 GB/s; 2048 (the bit above the 11-bit field) is unlimited.
STATE=$TMP/state-mb-amd
mkdir -m 700 "$STATE"
MB_AMD="$MACHINE;mb.closids=16;mb.units=amd;mb.max=2048"
msr --machine "$MB_AMD" group create m --schema 'MB:0=1234'
expect_rc 0 "MB AMD: a group"
# (Plain files overlap registers byte-wise: first use wrote 0x800 to the
# registers of CLOSIDs 0..15 in turn, each 8 bytes from its own address, so
# the byte at +k is 0x00 and only +16 holds the 0x08 of the last one.)
expect_reg "MB AMD: domain 0, CLOSID 1" 0 0xc0000201 0x4d2
expect_reg "MB AMD: domain 1, CLOSID 1 not written" 2 0xc0000201 0x0
expect_reg "MB AMD: domain 0, CLOSID 0's low byte not written" 0 0xc0000200 0x4d200
STATE=$TMP/state

echo "resctrl /sys/fs/resctrl resctrl rw 0 0" >>"$MOUNTS"
msr info
expect_rc 1 "resctrl mounted"
expect_err_has "resctrl named" "resctrl is mounted at /sys/fs/resctrl"

finish
