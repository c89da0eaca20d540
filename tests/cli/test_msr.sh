# SPDX-License-Identifier: LGPL-2.1-or-later
# test_msr: rdtctl on the msr backend, against the msr driver's emulator
# (rdtalloc-msrfs, $RDTALLOC_TEST_MSRFS) given with --msr-root: every MSR its
# own register, scoped as on hardware, and a write the CPU would refuse
# answered with EIO. Checked: the registers written, the write counters of
# `info -j` (each equal to the values that changed), and the refusals the
# backend gives with the option's value.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "the msr backend needs root (CAP_SYS_RAWIO)"

ROOT=$TMP/dev
MOUNTS=$TMP/mounts
# no L3 monitoring: the RMID field is another tool's, and kept (test_msr_monitor)
MACHINE="$MACHINE_REAL;mon.rmids=0"
msrfs_start "$ROOT" "$MACHINE"
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

# reg CPU ADDR: MSR ADDR of CPU, as hex (an 8-byte pread, as rdmsr does)
reg()
{
	python3 -c '
import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(hex(struct.unpack("<Q", os.pread(fd, 8, int(sys.argv[2], 16)))[0]))
' "$ROOT/$1/msr" "$2"
}

# wreg CPU ADDR VALUE: wrmsr, as an administrator's script would
wreg()
{
	python3 -c '
import os, struct, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, struct.pack("<Q", int(sys.argv[3], 16)), int(sys.argv[2], 16))
' "$ROOT/$1/msr" "$2" "$3"
}

# dump: every register the backend may write, of every CPU
dump()
{
	python3 -c '
import os, struct, sys
for cpu in range(4):
    fd = os.open("%s/%d/msr" % (sys.argv[1], cpu), os.O_RDONLY)
    for a in [0xc81, 0xc8f] + list(range(0xc90, 0xca0)):
        print(cpu, hex(a), hex(struct.unpack("<Q", os.pread(fd, 8, a))[0]))
    os.close(fd)
' "$ROOT"
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

# The emulator refuses what the CPU refuses (#GP -> EIO), and keeps the value.
wreg 2 0xc9f 0x3
if wreg 2 0xc9f 0x5 2>/dev/null; then fail "a non-contiguous mask was accepted"; else pass; fi
if wreg 1 0xc8f 0x1000000000 2>/dev/null; then fail "CLOSID 16 was accepted"; else pass; fi
expect_reg "refused writes change nothing" 2 0xc9f 0x3

# First use: every mask all-ones, every CPU on CLOSID 0, the RMID kept.
wreg 3 0xc8f 0x2a
msr --machine "$MACHINE" info
expect_rc 0 "a look before first use"
expect_reg "a look writes no register" 2 0xc9f 0x3
msr --machine "$MACHINE" reset
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

# Reopening after our own writes: the registers read back as the last call
# left them, so nothing is rewritten and nothing is said.
dump >"$TMP/regs.before"
msr info
expect_rc 0 "reopen"
case $OUT in
*disagreed*) fail "a reopen without outside writes re-applied registers: $OUT" ;;
*) pass ;;
esac
dump >"$TMP/regs.after"
if cmp -s "$TMP/regs.before" "$TMP/regs.after"; then pass; else
	fail "a reopen without outside writes changed registers"; fi

# Someone else's write: a look says so and writes nothing; the next change
# re-applies it, and then nothing differs.
wreg 1 0xc8f 0x2a
msr info
case $OUT in
*"the registers differ from the state (read only: the next change re-applies them)"*) pass ;;
*) fail "an outside write to CPU 1's PQR_ASSOC was not reported: $OUT" ;;
esac
expect_reg "a look writes no register" 1 0xc8f 0x2a
msr group create later
expect_rc 0 "a change after the outside write"
expect_reg "CPU 1's CLOSID is back, the RMID written meanwhile kept" 1 0xc8f 0x10000002a
msr info
case $OUT in
*differ*|*disagreed*) fail "still reported after the re-apply: $OUT" ;;
*) pass ;;
esac
msr group remove later
expect_rc 0 "remove the group again"

# A task cannot be bound without the switch hook, and nothing changes.
msr save
before=$OUT
msr task bind a $$
expect_rc 1 "task bind on msr without the hook"
expect_err_has "task bind names the hook" "needs the switch hook"
msr save
if [ "$OUT" = "$before" ]; then pass; else fail "a refused task bind changed the state"; fi

# A device that cannot be opened (a directory: root ignores file modes): the
# error names the CPU and the device, and nothing changes. The device root
# is a copy of the emulator's with CPU 2's device a directory. (A write
# failing half-way through a call, and the rollback of the domains already
# written, are tested in tests/unit/test_msr.c.)
msr save
before=$OUT
BAD=$TMP/dev-bad
mkdir -p "$BAD/2/msr"
for c in 0 1 3; do ln -s "$ROOT/$c" "$BAD/$c"; done
SAVED_ROOT=$ROOT
ROOT=$BAD
msr schema set a 'L3:0=3;1=3'
ROOT=$SAVED_ROOT
expect_rc 1 "schema set with CPU 2's device a directory"
expect_err_has "names the CPU and the device" "CPU 2: cannot open $BAD/2/msr: Is a directory"
msr save
if [ "$OUT" = "$before" ]; then pass; else fail "a refused open changed the state"; fi

# A register the CPU refuses (#GP, EIO from the driver): the error says so,
# and the domains already written are rolled back. A machine with 8 CLOSIDs
# behind a state that claims 16: CLOSID 8 does not exist on the CPU.
msrfs_start "$TMP/dev8" "$MACHINE;l3.closids=8"
ROOT=$TMP/dev8
STATE=$TMP/state8
mkdir -m 700 "$STATE"
msr --machine "$MACHINE" reset
expect_rc 1 "first use on a CPU with fewer CLOSIDs than the state says"
expect_err_has "the CPU's refusal named" "(the CPU rejected the access)"
ROOT=$SAVED_ROOT
STATE=$TMP/state

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
msrfs_start "$TMP/dev-mb" "$MB_INTEL"
ROOT=$TMP/dev-mb
msr --machine "$MB_INTEL" group create m --schema 'L3:0=ff;1=ff'
expect_rc 0 "MB: a group"
expect_reg "MB: CLOSID 1 unthrottled at first" 0 0xd51 0x0
msr schema set m 'MB:0=50;1=75'
expect_rc 0 "MB: schema set"
expect_reg "MB: domain 0, CLOSID 1: delay 50" 0 0xd51 0x32
expect_reg "MB: domain 1, CLOSID 1: 75 rounded up to 80, delay 20" 2 0xd51 0x14
expect_reg "MB: CLOSID 0 stays unthrottled" 0 0xd50 0x0
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
msrfs_start "$TMP/dev-mb-amd" "$MB_AMD"
ROOT=$TMP/dev-mb-amd
msr --machine "$MB_AMD" group create m --schema 'MB:0=1234'
expect_rc 0 "MB AMD: a group"
expect_reg "MB AMD: domain 0, CLOSID 1" 0 0xc0000201 0x4d2
expect_reg "MB AMD: domain 1, CLOSID 1 unlimited" 2 0xc0000201 0x800
expect_reg "MB AMD: domain 0, CLOSID 0 unlimited" 0 0xc0000200 0x800
msr schema set m 'MB:0=2049'
expect_rc 1 "MB AMD: past the unlimited value"
expect_reg "MB AMD: refused, the register unchanged" 0 0xc0000201 0x4d2
STATE=$TMP/state
ROOT=$SAVED_ROOT

# No harm from a dry run or a refused apply (issue 31): group base on
# CLOSID 1 with CPUs 0 and 2; a dry run writes no register, and an apply
# refused at a later line (a bad mask, CPU 99, an exclusive overlap) leaves
# every mask and every PQR_ASSOC as it was.
STATE=$TMP/state-noharm
mkdir -m 700 "$STATE"
msr --machine "$MACHINE" group create base --schema 'L3:0=3;1=3'
msr cpu bind base 0,2
expect_rc 0 "no harm: base on CPUs 0 and 2"
dump >"$TMP/noharm.before"
printf 'group base\n  schema L3:0=ff000;1=ff000\n' >"$TMP/noharm.dry"
msr apply --dry-run "$TMP/noharm.dry"
expect_rc 0 "no harm: a dry run"
dump >"$TMP/noharm.after"
if cmp -s "$TMP/noharm.before" "$TMP/noharm.after"; then pass; else
	fail "a dry run wrote registers: $(diff "$TMP/noharm.before" "$TMP/noharm.after")"; fi
n=0
for tail in 'group x\n  schema L3:0=5\n' '  cpus 0,99\n' \
	'group e\n  schema L3:0=ff\n  mode exclusive\n'; do
	n=$((n + 1))
	printf "group base\n  schema L3:0=ff000;1=ff000\n$tail" >"$TMP/noharm.$n"
	msr apply "$TMP/noharm.$n"
	expect_rc 1 "no harm: apply refused at a later line ($n)"
	dump >"$TMP/noharm.after"
	if cmp -s "$TMP/noharm.before" "$TMP/noharm.after"; then pass; else
		fail "refused apply $n left registers written: $(diff "$TMP/noharm.before" \
			"$TMP/noharm.after")"; fi
done
msr schema show base
expect_out "no harm: the schema unchanged" "L3:0=00003;1=00003"
STATE=$TMP/state

echo "resctrl /sys/fs/resctrl resctrl rw 0 0" >>"$MOUNTS"
msr info
expect_rc 1 "resctrl mounted"
expect_err_has "resctrl named" "resctrl is mounted at /sys/fs/resctrl"

finish
