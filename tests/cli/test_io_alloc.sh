# SPDX-License-Identifier: LGPL-2.1-or-later
# test_io_alloc: the ways that are not ours to give (issue 40, issue 44), on
# the resctrl emulator. io_alloc (Linux 6.19, AMD SDCIAE, preset amd-turin):
# rdtctl io-alloc shows it, turns it on and off and sets its masks, with
# our checks first and the kernel's refusal (its CLOSID held by a control
# group of ours) passed on; info and map show the I/O ways (bit_usage H/X);
# the controller and the plan leave the I/O ways and other owners'
# exclusive ways alone unless --shareable; nothing else touches io_alloc.
# Arm MPAM (preset arm-mpam, 7.1): sparse masks and MB in percent
# accepted, exclusive refused by name, shareable_bits not taken for I/O.
. "$(dirname "$0")/lib.sh"
need_python

NL='
'

# ---- the simulator (l3.io_alloc): the same rules, kept in the state -------------
STATE=$TMP/sim
mkdir -m 700 "$STATE"
MACHINE="preset=amd-turin;topology=package:1 l3:2(size=256KiB) core:2 pu:1;tasks=virtual"
run io-alloc show
expect_out "sim: off at first" "io_alloc: disabled (would take CLOSID 15)
L3 cache id 0: hardware's ways 0x0, other owners' ways 0x0
L3 cache id 1: hardware's ways 0x0, other owners' ways 0x0"
fails 1 "sim: a mask while off" "io_alloc is not enabled on L3 (rdtctl io-alloc enable)" \
	io-alloc set L3:0=3
i=1
while [ $i -le 15 ]; do
	ok "sim g$i" group create "g$i" --schema "L3:0=$(printf %x $((i + 16)))"
	i=$((i + 1))
done
snapshot "$TMP/before"
fails 1 "sim: enable while g15 holds CLOSID 15" \
	"CLOSID (ctrl_hw_id) 15 for io_alloc is used by g15 group" io-alloc enable
unchanged "sim: the refused enable changed nothing" "$TMP/before"
run -j io-alloc show
json "sim: still off" 'd["enabled"]' 'false'
ok "sim: g15 gone" group remove g15
ok "sim: enable" io-alloc enable
fails 1 "sim: one group fewer while on" "L3 cache id 0: no free CLOSID (15 in use)" \
	group create g15 --schema L3:0=1f
i=2
while [ $i -le 14 ]; do
	ok "sim: g$i gone" group remove "g$i"
	i=$((i + 1))
done
ok "sim: default off the lowest ways" schema set default 'L3:0=fff0;1=fff0'
ok "sim: g1 on the lowest ways" schema set g1 'L3:0=f;1=f'
fails 1 "sim: no exclusive group on io_alloc's ways (every way now)" \
	"group g1: exclusive on io_alloc's ways 0xf of L3 cache id 0, which I/O fills (resctrl refuses it: Schemata overlaps); narrow io_alloc's mask first (rdtctl io-alloc set)" \
	group mode g1 exclusive
ok "sim: off" io-alloc disable
ok "sim: g1 exclusive" group mode g1 exclusive
ok "sim: on again" io-alloc enable
run -j io-alloc show
json "sim: the first mask leaves exclusive ways out" \
	'[x["io_alloc_mask"] for x in d["domains"]]' '["0xfff0", "0xfff0"]'
fails 1 "sim: not on an exclusive group's ways" \
	"io_alloc mask 0x3 of L3 cache id 0 overlaps group g1's exclusive ways 0xf" \
	io-alloc set 'L3:0=3'
ok "sim: the I/O ways" io-alloc set 'L3:0=30'
# nor an exclusive group onto io_alloc's ways: the kernel's rule (Schemata overlaps)
ok "sim: default off 0x30" schema set default 'L3:0=ffc0;1=fff0'
fails 1 "sim: g1 exclusive onto io_alloc's ways" \
	"group g1: exclusive on io_alloc's ways 0x30 of L3 cache id 0, which I/O fills (resctrl refuses it: Schemata overlaps); narrow io_alloc's mask first (rdtctl io-alloc set)" \
	schema set g1 'L3:0=3f;1=f'
run schema show g1
expect_out "sim: g1 unchanged" "L3:0=000f;1=000f${NL}MB:0=2048;1=2048"
ok "sim: default back" schema set default 'L3:0=fff0;1=fff0'
run -j io-alloc show
json "sim: kept in the state" '[[x["io_alloc_mask"], x["io_ways"]] for x in d["domains"]]' \
	'[["0x30", "0x30"], ["0xfff0", "0xfff0"]]'
run -j map L3 --domain 0
json "sim: map -j" '[d[0]["io_ways"], d[0]["io_alloc_mask"]]' '["0x30", "0x30"]'
# the controller: neither the I/O ways nor g1's
ok "sim: db" group create db
ok "sim: bulk" group create bulk
ok "sim: db's load" sim load db --footprint 128K --rate 4G/s
ok "sim: bulk's load" sim load bulk --footprint 100M --rate 4G/s
run -j profile db --interval 0.01
json "sim: the profile sweeps off io_alloc's 0x30 and g1's 0xf" \
	'[d["first_way"], d["sweep_ways"], d["exclusive_left_out"]]' '[6, 10, "g1"]'
ok "sim: control set" control set db bulk --bound db=1M/s --interval-ms 20
run -j control run --count 6
expect_rc 0 "sim: a bounded run beside io_alloc's 0x30 and g1's 0xf"
bounded_clear_of "sim: no mask of the controller's on I/O's or g1's ways" 3f
ok "sim: clear" control clear
# AMD takes sparse masks: I/O's ways in the middle leave the controller both ends
ok "sim: g1 gone" group remove g1
ok "sim: I/O in the middle" io-alloc set 'L3:0=ff0'
ok "sim: control set around them" control set db bulk --bound db=1M/s --interval-ms 20
run -j control run --count 6
expect_rc 0 "sim: a bounded run around io_alloc's 0xff0"
bounded_clear_of "sim: no mask of the controller's on 0xff0" ff0
expect_out_contains "sim: all shared is both ends, one sparse mask" '"schema":"L3:0=f00f"'
ok "sim: clear" control clear
# io_alloc's mask set while the controller runs: followed at its next interval
ok "sim: I/O on the low ways" io-alloc set 'L3:0=3'
ok "sim: control set" control set db bulk --bound db=1M/s --interval-ms 50
rdt -j control run --count 60 >"$TMP/run.out" 2>&1 &
RUNPID=$!
CHILDREN="$CHILDREN $RUNPID"
wait_until 60 grep -q '"interval":3,' "$TMP/run.out" || fail "sim: the run did not start"
ok "sim: I/O moved to the top while it runs" io-alloc set 'L3:0=f000'
wait "$RUNPID"
RC=$?
expect_rc 0 "sim: the run around a moving io_alloc"
python3 - "$TMP/run.out" <<'PY' >"$TMP/verdict" 2>&1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ivs = [[int(g["schema"].split("=")[1], 16) for g in d["groups"]] for d in recs if "groups" in d]
assert all(m & 0x3 == 0 for m in ivs[0] + ivs[1] + ivs[2]), ivs[:3]
assert all(m & 0xf000 == 0 for iv in ivs[-10:] for m in iv), ivs[-10:]
print("ok")
PY
expect_file_text "sim: off 0x3 first, off 0xf000 at the end" "$TMP/verdict" ok
ok "sim: clear" control clear
ok "sim: off" io-alloc disable
run -j io-alloc show
json "sim: off again" '[d["enabled"], ["io_alloc_mask" in x for x in d["domains"]]]' \
	'[false, [false, false]]'

# Arm MPAM on the simulator: sparse masks, MB in percent, no exclusive mode,
# and its whole-mask shareable_bits is not I/O's
STATE=$TMP/mpam
mkdir -m 700 "$STATE"
MACHINE="preset=arm-mpam;topology=package:1 l3:1 core:2 pu:1;tasks=virtual"
ok "mpam: a sparse mask and MB in percent" group create a --schema "L3:0=f0f${NL}MB:0=37"
if [ -z "$ERR" ]; then pass; else fail "mpam: no shareable-ways warning: $ERR"; fi
run schema show a
expect_out "mpam: as given" "L3:0=0f0f${NL}MB:0=37"
fails 1 "mpam: exclusive refused by name" \
	"group a: Arm MPAM has no exclusive mode (resctrl shows every way as shareable and refuses 'exclusive' with \"Schemata overlaps\"): leave it shareable" \
	group mode a exclusive --force
run -j io-alloc show
json "mpam: no I/O ways" '[d["supported"], d["domains"][0]["io_ways"]]' '[false, "0x0"]'
ok "mpam: the controller has every way" control set a --interval-ms 20
run -j control show
json "mpam: nothing avoided" 'd["controllers"][0]["avoid"]' '0'
ok "mpam: clear" control clear

# contiguous masks only: the ways left must be one run
STATE=$TMP/contig
mkdir -m 700 "$STATE"
MACHINE="preset=amd-turin;topology=package:1 l3:1 core:2 pu:1;l3.sparse=0;tasks=virtual"
ok "contig: db" group create db
ok "contig: on" io-alloc enable
fails 1 "contig: a sparse I/O mask" "io_alloc mask 0xf0f is not contiguous" io-alloc set L3:0=f0f
ok "contig: I/O in the middle" io-alloc set L3:0=ff0
fails 1 "contig: the controller cannot go around it" \
	"the ways left to the controller (0xf00f) are not one contiguous run: a mask must be contiguous" \
	control set db --interval-ms 20

# the plan puts an exclusive group off the I/O ways (the low end, else the high end)
STATE=$TMP/plan
mkdir -m 700 "$STATE"
MACHINE="topology=package:1 l3:1(size=1MiB) core:1 pu:1;l3.cbm_len=16;tasks=virtual;mon.rmids=0;l3.io_alloc=1"
write_traces "$TMP"
run -j plan --exclusive a --trace a="$TMP/loop.trace" --trace b="$TMP/walk.trace"
json "plan: io_alloc off, the exclusive block at the low end" \
	"[g['schema'] for g in d['groups']]" '["L3:0=f", "L3:0=fff0"]'
ok "plan: io_alloc on" io-alloc enable
ok "plan: I/O on the low ways" io-alloc set L3:0=f
run -j plan --exclusive a --trace a="$TMP/loop.trace" --trace b="$TMP/walk.trace"
json "plan: the exclusive block off the I/O ways" \
	"[g['schema'] for g in d['groups']]" '["L3:0=f000", "L3:0=fff"]'

# sparse masks: the plan spreads over the ways left around another group's
STATE=$TMP/plan-sparse
mkdir -m 700 "$STATE"
MACHINE="topology=package:1 l3:1(size=1MiB) core:1 pu:1;l3.cbm_len=16;tasks=virtual;mon.rmids=0;l3.sparse=1"
ok "plan: default around x" schema set default L3:0=f00f
ok "plan: x exclusive in the middle" group create x --schema L3:0=ff0 --exclusive
run -j plan --trace a="$TMP/loop.trace" --trace b="$TMP/walk.trace"
json "plan: both ends of x, one sparse mask" "[g['schema'] for g in d['groups']]" \
	'["L3:0=f00f", "L3:0=f00f"]'
run -j plan --exclusive a --trace a="$TMP/loop.trace" --trace b="$TMP/walk.trace"
json "plan: an exclusive block, the default group off x's ways" \
	"[g['schema'] for g in d['groups']] + [d['config'].split('group default')[1].split(chr(10))[1]]" \
	'["L3:0=f", "L3:0=f000", "\tschema L3:0=f000"]'

# ---- the resctrl emulator ----------------------------------------------------------
FS=${RDTALLOC_TEST_RESCTRLFS:-}
if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ] || [ -z "$FS" ] || [ ! -x "$FS" ]; then
	skip_part "the resctrl emulator needs root, /dev/fuse and RDTALLOC_TEST_RESCTRLFS"
	finish
fi
MNT=$TMP/resctrl

umount_fs()
{
	rfs_umount "$MNT"
}
CLEANUP=umount_fs

# mount_fs DESC: the emulator serving machine DESC on $MNT, a fresh state dir
mount_fs()
{
	if ! rfs_mount "$MNT" "$1"; then
		fail "the emulator did not mount: $(cat "$TMP/fs.log")"
		finish
	fi
	MACHINE=$1
	STATE=$(mktemp -d "$TMP/state.XXXXXX")
}

rdt()
{
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE" \
		--machine "$MACHINE" "$@"
}

# kfile DESC FILE TEXT: the emulator's file reads TEXT
kfile()
{
	expect_file_text "$1" "$MNT/$2" "$3"
}

# ---- io_alloc on AMD Turin -------------------------------------------------------
mount_fs "preset=amd-turin;topology=package:1 l3:2 core:2 pu:1"
run io-alloc show
expect_out "off at first" "io_alloc: disabled (would take CLOSID 15)
L3 cache id 0: hardware's ways 0x0, other owners' ways 0x0 (bit_usage)
L3 cache id 1: hardware's ways 0x0, other owners' ways 0x0 (bit_usage)"
ok "groups" group create db
ok "bulk" group create bulk --schema "L3:0=f;1=f"
kfile "making groups leaves io_alloc alone" info/L3/io_alloc disabled
fails 1 "a mask while off" "resctrl: info/L3/io_alloc_cbm: '0=3': io_alloc is not enabled on L3" \
	io-alloc set L3:0=3
ok "enable" io-alloc enable
kfile "the kernel's io_alloc" info/L3/io_alloc enabled
run -j io-alloc show
json "on, CLOSID 15" '[d["enabled"], d["closid"]]' '[true, 15]'
json "the kernel's first mask: every way" '[x["io_alloc_mask"] for x in d["domains"]]' \
	'["0xffff", "0xffff"]'
# every way is I/O's now: the controller has none of its own to give
fails 1 "control set with every way I/O's" "no way is left for the controller to use: it leaves 0xffff alone (--avoid, other groups' exclusive ways, and the hardware's I/O ways - shareable_bits, io_alloc: rdtctl io-alloc show - unless --shareable)" \
	control set db bulk --bound db=1M/s
ok "--shareable uses them" control set db bulk --shareable
ok "clear" control clear
# our checks first: nothing reaches the kernel
fails 1 "beyond the CBM" "io_alloc mask 0x10000: bits beyond the 16-bit CBM" io-alloc set 'L3:*=10000'
fails 1 "unknown domain" "io_alloc mask: L3 cache id 5 does not exist" io-alloc set 'L3:5=1'
fails 1 "twice" "io_alloc mask: L3 cache id 0 given twice" io-alloc set 'L3:0=1;0=2'
fails 1 "'*' and a domain" "io_alloc mask: L3 cache id 0 given twice" io-alloc set 'L3:*=1;0=2'
fails 1 "not hex" "io_alloc mask 'x' is not hexadecimal" io-alloc set 'L3:0=x'
fails 1 "no domain" "io_alloc mask '=3': not ID=MASK" io-alloc set 'L3:=3'
fails 1 "nothing" "io_alloc mask: no ID=MASK given (e.g. L3:0=3)" io-alloc set 'L3:'
kfile "refused masks change nothing" info/L3/io_alloc_cbm "0=ffff;1=ffff"
ok "one domain" io-alloc set 'L3:0=3'
kfile "written as the kernel takes it" info/L3/io_alloc_cbm "0=3;1=ffff"
ok "every domain, no L3: prefix" io-alloc set '*=3'
kfile "every domain" info/L3/io_alloc_cbm "0=3;1=3"
kfile "bit_usage: the I/O ways are the hardware's" info/L3/bit_usage \
	"0=SSSSSSSSSSSSSSXX;1=SSSSSSSSSSSSSSXX"
# info and map show them
run -j info
json "info: the I/O ways and io_alloc per domain" \
	'[(x["io_ways"], x["io_alloc"], x["io_alloc_mask"], x["io_alloc_closid"]) for x in d["resources"][0]["domains"]]' \
	'[["0x3", "enabled", "0x3", 15], ["0x3", "enabled", "0x3", 15]]'
run info
expect_out_has "info: io_alloc" "  io_alloc:       enabled, holds CLOSID 15 (rdtctl io-alloc)"
expect_out_has "info: domain 0" "  cache id 0: I/O ways 0x3 (io_alloc 0x3), other owners' exclusive ways 0x0"
run map L3 --domain 0 --color=never
expect_out_has "map: the I/O row" "  shareable (I/O) |..............ss|  0x0003"
run -j map L3 --domain 0
json "map -j" '[d[0]["shareable_bits"], d[0]["io_ways"], d[0]["io_alloc_mask"]]' \
	'["0x0", "0x3", "0x3"]'
# the controller leaves the I/O ways alone: all shared is every other way
ok "control set" control set db bulk --bound db=1M/s --interval-ms 50
kfile "control set writes nothing to io_alloc" info/L3/io_alloc_cbm "0=3;1=3"
ok "control run" control run --count 1
expect_file_text "the controller's all shared: every way but I/O's" \
	"$(ls -d "$MNT"/rdtalloc-*-db)/schemata" "    MB:0=2048;1=2048${NL}    L3:0=fffc;1=ffff"
ok "clear" control clear
# another owner's exclusive group: E in bit_usage, left alone, never written
mkdir "$MNT/theirs"
printf 'L3:0=c000;1=c000\n' >"$MNT/theirs/schemata"
printf 'L3:0=3fff;1=3fff\n' >"$MNT/schemata"
ok "db narrower" schema set db 'L3:0=3fff;1=3fff'
ok "bulk narrower" schema set bulk 'L3:0=f'
printf 'exclusive\n' >"$MNT/theirs/mode"
run -j io-alloc show
json "theirs: other owners' ways" '[d["domains"][0]["io_ways"], d["domains"][0]["foreign_ways"]]' \
	'["0x3", "0xc000"]'
ok "control set beside them" control set db bulk --interval-ms 50
ok "control run beside them" control run --count 1
expect_file_text "neither I/O's nor theirs" \
	"$(ls -d "$MNT"/rdtalloc-*-db)/schemata" "    MB:0=2048;1=2048${NL}    L3:0=3ffc;1=3fff"
ok "clear" control clear
printf 'shareable\n' >"$MNT/theirs/mode"
rmdir "$MNT/theirs"
# turning it off: the kernel's io_alloc only
ok "disable" io-alloc disable
kfile "off" info/L3/io_alloc disabled
run -j io-alloc show
json "off: no mask" '["io_alloc_mask" in x for x in d["domains"]]' '[false, false]'
# the CLOSID io_alloc takes is one of ours: the kernel refuses, named
i=1
while [ $i -le 13 ]; do
	ok "g$i" group create "g$i" --schema "L3:0=$(printf %x $((i + 16)))"
	i=$((i + 1))
done
run -j io-alloc show
fails 1 "enable while our control group holds CLOSID 15" \
	"resctrl: info/L3/io_alloc: '1': CLOSID (ctrl_hw_id) 15 for io_alloc is used by $(ls "$MNT" | grep '^rdtalloc-.*-g13$') group" \
	io-alloc enable
kfile "still off" info/L3/io_alloc disabled
ok "g13 gone" group remove g13
ok "enable with CLOSID 15 free" io-alloc enable
# io_alloc holds CLOSID 15: the 14th control group is refused before any mkdir
fails 1 "one group fewer while io_alloc is on" \
	"resctrl has no free CLOSID: 16 in use, 1 of them not ours (io_alloc holds one) (15 distinct schemas need 15 control groups beside the root; 16 CLOSIDs in all)" \
	group create g13 --schema "L3:0=1d"
ok "disable" io-alloc disable
umount_fs

# ---- not on this machine: refused by name ----------------------------------------
mount_fs "topology=package:1 l3:1 core:2 pu:1;l3.cbm_len=11;l3.shareable_bits=0x600"
run -j io-alloc show
json "no io_alloc: the shareable ways are I/O's" \
	'[d["supported"], d["domains"][0]["io_ways"]]' '[false, "0x600"]'
fails 1 "enable" "this machine has no L3 I/O allocation (io_alloc: Linux 6.19, AMD SDCIAE; machine key l3.io_alloc)" \
	io-alloc enable
umount_fs

# ---- Arm MPAM (7.1) ---------------------------------------------------------------
mount_fs "preset=arm-mpam;topology=package:1 l3:1 core:2 pu:1"
ok "a sparse mask and MB in percent" group create a --schema "L3:0=f0f${NL}MB:0=37"
kfile "the kernel's schemata" "$(ls "$MNT" | grep '^rdtalloc-')/schemata" "MB:0=37${NL}L3:0=f0f"
if [ -z "$ERR" ]; then pass; else fail "no shareable-ways warning on MPAM: $ERR"; fi
fails 1 "exclusive refused by name" \
	"group a: Arm MPAM has no exclusive mode (resctrl shows every way as shareable and refuses 'exclusive' with \"Schemata overlaps\"): leave it shareable" \
	group mode a exclusive
fails 1 "forced too" \
	"group a: Arm MPAM has no exclusive mode (resctrl shows every way as shareable and refuses 'exclusive' with \"Schemata overlaps\"): leave it shareable" \
	group mode a exclusive --force
fails 1 "made exclusive" \
	"group b: Arm MPAM has no exclusive mode (resctrl shows every way as shareable and refuses 'exclusive' with \"Schemata overlaps\"): leave it shareable" \
	group create b --exclusive
run group list
expect_out "nothing made" "default${NL}a"
run -j io-alloc show
json "MPAM: bit_usage all X, none of it I/O" \
	'[d["supported"], d["domains"][0]["io_ways"], d["domains"][0]["foreign_ways"]]' \
	'[false, "0x0", "0x0"]'
kfile "bit_usage says X" info/L3/bit_usage "0=XXXXXXXXXXXXXXXX"
umount_fs

finish
