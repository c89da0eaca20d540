# SPDX-License-Identifier: LGPL-2.1-or-later
# test_resctrl: rdtctl on the resctrl backend, against the resctrl emulator
# (rdtalloc-resctrlfs, a FUSE filesystem; $RDTALLOC_TEST_RESCTRLFS names it).
# What is checked is what the kernel would hold: one control group per
# distinct schema (rdtalloc-ID-GROUP), whatever the number of our groups; groups
# split and merged with their tasks; control groups not ours never touched;
# no free CLOSID as a named error that changes nothing; the kernel's own
# refusals quoted; the kernel brought back to the state at open.
. "$(dirname "$0")/lib.sh"
need_python

FS=${RDTALLOC_TEST_RESCTRLFS:-}
[ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || skip "the resctrl emulator needs root and /dev/fuse"
if [ -z "$FS" ] || [ ! -x "$FS" ]; then
	echo "FAIL: RDTALLOC_TEST_RESCTRLFS is not the emulator ('$FS')" >&2
	exit 1
fi

MNT=$TMP/resctrl
MACHINE=$MACHINE_REAL
FSPID=

mounted()
{
	grep -q " $MNT fuse.resctrl " /proc/mounts
}

# mount_fs ARGS: the emulator on $MNT for this test's machine
mount_fs()
{
	mkdir -p "$MNT"
	"$FS" "$MNT" -f --machine "$MACHINE" "$@" 2>"$TMP/fs.log" &
	FSPID=$!
	i=0
	while ! mounted; do
		i=$((i + 1))
		if [ $i -gt 1200 ]; then
			echo "FATAL: the emulator did not mount: $(cat "$TMP/fs.log")" >&2
			exit 1
		fi
		sleep 0.05
	done
}

umount_fs()
{
	if mounted; then
		fusermount3 -u -z "$MNT" 2>/dev/null
	fi
	[ -n "$FSPID" ] && wait "$FSPID" 2>/dev/null
	FSPID=
}
CLEANUP=umount_fs

rdt()
{
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE" \
		--machine "$MACHINE" "$@"
}

# ours: our control groups, one per line
ours()
{
	(cd "$MNT" && ls -d rdtalloc-* 2>/dev/null)
}

# expect_file DESC FILE TEXT: the kernel file holds exactly TEXT
expect_file()
{
	e_got=$(cat "$2" 2>&1)
	if [ "$e_got" = "$3" ]; then pass; else
		fail "$1: $2 holds '$e_got', wanted '$3'"; fi
}

# expect_tasks DESC DIR PID...: the kernel lists exactly these tasks in DIR
expect_lists()
{
	l_desc=$1 l_file=$2
	shift 2
	for p in "$@"; do
		if grep -qx "$p" "$l_file"; then pass; else
			fail "$l_desc: $p is not in $l_file"; fi
	done
}

expect_not_lists()
{
	if grep -qx "$3" "$2"; then fail "$1: $3 is in $2"; else pass; fi
}

mount_fs

# ---- capabilities from the kernel, the rule, the refusals ----------------
ok "a look: nothing made" info
expect_out_has "info: no state yet" "backend:  resctrl (backend 'resctrl' requested by the caller; no state in $STATE yet: a new one is shown, nothing is written)"
ok "the first change makes the state" reset
# our control groups carry the state's id: rdtalloc-ID-N
ID=$(rdt -j info | python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')
case $ID in
[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) pass ;;
*) fail "info -j: state_id '$ID' is not 8 hex digits" ;;
esac
P=rdtalloc-$ID-
ok "info: the id" info
expect_out_has "info: the id" "state:    id $ID (what it owns outside its file carries it: resctrl control groups rdtalloc-$ID-GROUP)"
ok "info" info
expect_out_has "info: backend" "backend:  resctrl (backend 'resctrl' requested by the caller; resctrl at $MNT: CLOSIDs in use: the root, 0 groups of ours, 0 not ours; 15 free of 16)"
expect_out_has "info: rule" "rule:     precedence=task (a task of a non-default group runs with its group's allocation on every CPU; other tasks with the CPU's group's)"
ok "info -j" -j info
json "info -j: the kernel's CLOSIDs" "[[r['name'], r['closids'], r['cbm_len']] for r in d['resources']]" '[["L3", 16, 20]]'
json "info -j: precedence" "d['backend']['precedence']" "task"

STATE2=$TMP/state2
mkdir -m 700 "$STATE2"
run_raw --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE2" --precedence cpu info
expect_rc 1 "precedence=cpu refused"
expect_err_has "precedence=cpu: why" "backend resctrl cannot honour precedence=cpu: the kernel's resctrl runs a task of a non-default group with that group's allocation on every CPU"
run_raw --backend resctrl --resctrl-root "$TMP/nowhere" --state-dir "$STATE2" info
expect_rc 1 "a root that is not resctrl"
expect_err_has "no resctrl there" "no resctrl at $TMP/nowhere"
run_env RDTALLOC_MOUNTS=/dev/null "$RDTCTL" --backend resctrl --state-dir "$STATE2" info
expect_rc 1 "resctrl not mounted"
expect_err_has "not mounted" "resctrl is not mounted: mount -t resctrl resctrl /sys/fs/resctrl"
run cdp L3 on
expect_rc 1 "CDP is the mount's"
expect_err_has "CDP: remount" "CDP is how resctrl was mounted (off now); remount it"

# ---- a control group we did not create ------------------------------------
mkdir "$MNT/runtime-x"
echo "L3:0=c0000;1=c0000" >"$MNT/runtime-x/schemata"
echo 3 >"$MNT/runtime-x/cpus_list"

# ---- 40 groups, 5 schemas: 5 control groups ---------------------------------
i=0
while [ $i -lt 40 ]; do
	k=$((i % 5))
	m=$(printf %x $((1 << k)))
	rdt -q group create "g$i" --schema "L3:0=$m;1=$m" || fail "create g$i"
	i=$((i + 1))
done
expect_file "5 distinct schemas, 5 control groups" /dev/stdin "$(printf "${P}%s\n" g0 g1 g2 g3 g4)" <<EOF
$(ours)
EOF
got=$(cat "$MNT"/"$P"*/schemata | sort | tr -d ' ' | tr '\n' ' ')
want="L3:0=10;1=10 L3:0=1;1=1 L3:0=2;1=2 L3:0=4;1=4 L3:0=8;1=8 "
if [ "$got" = "$want" ]; then pass; else fail "schemata of the 5: '$got', wanted '$want'"; fi
expect_file "the runtime's group untouched" "$MNT/runtime-x/schemata" "    L3:0=c0000;1=c0000"
ok "info" info
expect_out_has "info counts" "backend:  resctrl (backend 'resctrl' requested by the caller; resctrl at $MNT: CLOSIDs in use: the root, 5 groups of ours, 1 not ours (runtime-x); 9 free of 16)"
ok "closids" -j closids L3
json "closids: one per class, with its groups" "[(c['closid'], c['refcount']) for c in d[0]['closids']]" '[[0, 1], [1, 8], [2, 8], [3, 8], [4, 8], [5, 8]]'

# ---- no free CLOSID: named, all or nothing ------------------------------------
# 1 root + 5 + 1 foreign = 7 in use: 9 more distinct schemas fit, the 10th not
i=0
while [ $i -lt 9 ]; do
	rdt -q schema set "g$i" "L3:0=$(printf %x $((0x300 << i)));1=3" || fail "schema set g$i"
	i=$((i + 1))
done
snapshot "$TMP/before"
ls -R "$MNT" >"$TMP/tree.before"
failure "the 16th CLOSID" "resctrl has no free CLOSID: 16 in use, 1 of them not ours (15 distinct schemas need 15 control groups beside the root; 16 CLOSIDs in all)" \
	schema set g9 "L3:0=3;1=3"
unchanged "no CLOSID: state unchanged" "$TMP/before"
ls -R "$MNT" >"$TMP/tree.after"
if cmp -s "$TMP/tree.before" "$TMP/tree.after"; then pass; else
	fail "no CLOSID: the kernel's tree changed"; fi
# the same schema as another group: it shares that group's control group
ok "an existing schema still fits" schema set g9 "L3:0=300;1=3"
if [ "$(ours | wc -l)" -eq 14 ]; then pass; else fail "14 of ours: $(ours | wc -l)"; fi
ok "reset" reset
if [ -z "$(ours)" ]; then pass; else fail "reset leaves no group of ours: $(ours)"; fi
expect_file "reset: root all-ones" "$MNT/schemata" "    L3:0=fffff;1=fffff"
expect_file "reset: the runtime's group untouched" "$MNT/runtime-x/schemata" "    L3:0=c0000;1=c0000"

# ---- tasks: split and merge move them in the kernel ----------------------------
ok "a" group create a --schema "L3:0=f;1=f"
ok "b" group create b --schema "L3:0=f;1=f"
spawn sleep 300
T1=$SPAWNED
spawn sleep 300
T2=$SPAWNED
ok "bind T1 to a" task bind a "$T1"
ok "bind T2 to b" task bind b "$T2"
expect_file "a and b share one control group, named after a" /dev/stdin "${P}a" <<EOF
$(ours)
EOF
expect_lists "both in it" "$MNT/${P}a/tasks" "$T1" "$T2"
ok "task show a" -j task show a
json "a's tasks" "d['tasks']" "[$T1]"
ok "task show b" -j task show b
json "b's tasks" "d['tasks']" "[$T2]"
ok "split b off" schema set b "L3:0=f0;1=f0"
expect_file "split: two control groups" /dev/stdin "$(printf '%sa\n%sb' "$P" "$P")" <<EOF
$(ours)
EOF
expect_lists "split: T1 stays" "$MNT/${P}a/tasks" "$T1"
expect_lists "split: T2 moved" "$MNT/${P}b/tasks" "$T2"
expect_not_lists "split: T2 left" "$MNT/${P}a/tasks" "$T2"
expect_file "split: b's schemata" "$MNT/${P}b/schemata" "    L3:0=f0;1=f0"
ok "task group of T2" -j task show b
json "T2 is b's" "d['tasks']" "[$T2]"
ok "merge a into b's schema" schema set a "L3:0=f0;1=f0"
# a merge keeps the control group named after the class's oldest group (a)
expect_file "merge: one control group, a's" /dev/stdin "${P}a" <<EOF
$(ours)
EOF
expect_lists "merge: T2 moved" "$MNT/${P}a/tasks" "$T1" "$T2"
expect_file "merge: a's control group rewritten" "$MNT/${P}a/schemata" "    L3:0=f0;1=f0"
ok "cpu bind a 1" cpu bind a 1
expect_file "cpus_list" "$MNT/${P}a/cpus_list" "1"
ok "cpu assoc" -j cpu assoc
json "cpu assoc: class numbers, the rule" "[(c['cpu'], c['group'], c['closid'], c['precedence']) for c in d]" \
	'[[0, "default", 0, "task"], [1, "a", 1, "task"], [2, "default", 0, "task"], [3, "default", 0, "task"]]'
ok "unbind T2" task bind default "$T2"
expect_not_lists "unbound: T2 left" "$MNT/${P}a/tasks" "$T2"
expect_lists "unbound: T2 in the root" "$MNT/tasks" "$T2"
kill "$T1"
wait "$T1" 2>/dev/null
ok "info after T1 exited" info
case $OUT in
*"; 1 bound task had exited and is not shown (read only: the next change drops it))"*) pass ;;
*) fail "info does not say the exited task is gone: $OUT" ;;
esac
ok "task show a after T1 exited" -j task show a
json "a's tasks: the dead one is not listed" "d['tasks']" "[]"
ok "group remove a" group remove a
ok "group remove b" group remove b
if [ -z "$(ours)" ]; then pass; else fail "groups removed, no control group left: $(ours)"; fi
expect_file "CPU 1 back to the root" "$MNT/cpus_list" "0-2"

# ---- another tool's exclusive group: what the kernel would refuse, said first ----------
# (an exclusive group may overlap no other, the root included)
ok "default off the runtime's ways" schema set default "L3:0=ffff;1=ffff"
ok "x" group create x --schema "L3:0=f;1=f"
echo exclusive >"$MNT/runtime-x/mode" || fail "runtime-x exclusive"
failure "overlapping an exclusive group" \
	"resctrl: group x would overlap 'runtime-x', an exclusive group librdtalloc did not create (L3 cache id 0: 0xf0000 and 0xc0000); the kernel refuses that: nothing was changed" \
	schema set x "L3:0=f0000;1=f0000"
expect_file "refused: x's control group as before" "$MNT/${P}x/schemata" "    L3:0=f;1=f"
ok "x's schema as before" schema show x
expect_out "x's schema as before" "L3:0=0000f;1=0000f"
echo shareable >"$MNT/runtime-x/mode"

# ---- an exclusive group of ours: the kernel's mode file says so ----------------------
echo shareable >"$MNT/runtime-x/mode"
# (default holds 0xffff, runtime-x 0xc0000: 0x30000 is free)
ok "rt exclusive" group create rt --schema "L3:0=30000;1=30000" --exclusive
dir=$(for d in $(ours); do grep -q "L3:0=30000" "$MNT/$d/schemata" && echo "$d"; done)
expect_file "rt's control group is exclusive" "$MNT/$dir/mode" "exclusive"
failure "our own check first" "L3 cache id 0: 0x10000 overlaps exclusive group rt (0x30000)" \
	schema set x "L3:0=10000"
ok "rt shareable" group mode rt shareable
expect_file "and in the kernel" "$MNT/$dir/mode" "shareable"
ok "remove rt" group remove rt

# ---- a CPU of a control group not ours is not taken ----------------------------
failure "CPU 3 is the runtime's" "CPU 3 is in resctrl group 'runtime-x', which librdtalloc did not create: it will not take it (x wants it)" \
	cpu bind x 3
expect_file "CPU 3 still the runtime's" "$MNT/runtime-x/cpus_list" "3"

# ---- the kernel changed behind our back: open brings it back ----------------------
ok "y" group create y --schema "L3:0=ff;1=ff"
dir=$(ours | tail -1)
echo "L3:0=1" >"$MNT/$dir/schemata"
ok "info after a change behind our back" info
expect_out_has "info says so, and that it changed nothing" "backend:  resctrl (backend 'resctrl' requested by the caller; resctrl at $MNT: CLOSIDs in use: the root, 2 groups of ours, 1 not ours (runtime-x); 12 free of 16; the kernel disagrees with the state (0 control groups of ours missing, 0 left over, 1 with other schemata or CPUs; read only: the next change brings it back))"
expect_file "a look rewrites nothing" "$MNT/$dir/schemata" "    L3:0=1;1=ff"
ok "closids: y's class still answered" -j closids L3
ok "a change" group create later
expect_file "y's schemata re-applied by the next change" "$MNT/$dir/schemata" "    L3:0=ff;1=ff"
ok "info after the change" info
case $OUT in *disagree*) fail "still disagrees after the change: $OUT" ;; *) pass ;; esac
rmdir "$MNT/$dir"
ok "schema show after rmdir behind our back" schema show y
if [ ! -d "$MNT/$dir" ]; then pass; else fail "a look re-created the removed control group"; fi
ok "remove later: a change" group remove later
if [ -d "$MNT/$dir" ]; then pass; else fail "the removed control group was not re-created"; fi

# ---- save and apply ----------------------------------------------------------------
ok "save" save
printf '%s\n' "$OUT" >"$TMP/conf"
ok "reset" reset
ok "apply" apply "$TMP/conf"
ok "schema show y" schema show y
expect_out "apply: y back" "L3:0=000ff;1=000ff"
if [ "$(ours | wc -l)" -eq 2 ]; then pass; else fail "apply: 2 of ours: $(ours)"; fi

# ---- the simulator's verbs are refused ----------------------------------------------
failure "no switch hook" "backend resctrl has no switch hook: the kernel switches CLOSIDs itself, for tasks and CPUs alike" \
	hook start

umount_fs

# ---- the emulator's machine: given on both sides, else named -----------------------------
MACHINE_SAVED=$MACHINE
STATE_SAVED=$STATE
STATE=$TMP/state-emu
mkdir -m 700 "$STATE"
MACHINE="topology=package:4 l3:1 core:1 pu:1"
mount_fs
MACHINE=$MACHINE_SAVED
run info
expect_rc 1 "the emulator's machine is not rdtctl's"
expect_err_has "the message says to give rdtctl the emulator's --machine" \
	"give rdtctl the --machine the resctrl emulator there was started with (rdtalloc-resctrlfs --machine DESC: it serves that machine's domains, docs/resctrlfs.md)"
umount_fs
STATE=$STATE_SAVED

# ---- CDP, as mounted --------------------------------------------------------------------
STATE=$TMP/state-cdp
mkdir -m 700 "$STATE"
mount_fs --cdp
ok "reset on a CDP mount" reset
expect_out "reset says CDP stays" "reset: only the default group is left, with every way: L3:0=fffff,fffff;1=fffff,fffff; CDP stays on for L3"
ok "info with CDP" -j info
json "CDP on, CLOSIDs halved" "[(r['name'], r['cdp'], r['closids'], r['hw_closids']) for r in d['resources']]" '[["L3", true, 8, 16]]'
ok "cdp group" group create c --schema "L3DATA:0=f;1=f"
dir=$(ours)
expect_file "CDP schemata" "$MNT/$dir/schemata" "$(printf 'L3DATA:0=f;1=f\nL3CODE:0=fffff;1=fffff')"
run cdp L3 off
expect_rc 1 "CDP cannot be turned off here"
umount_fs

# ---- L2 beside L3 -------------------------------------------------------------------------
STATE=$TMP/state-l2
mkdir -m 700 "$STATE"
MACHINE_SAVED=$MACHINE
MACHINE="topology=package:1 l3:1 l2:2 core:1 pu:2;l2.closids=8;l2.cbm_len=8"
mount_fs
ok "info with L2" -j info
json "L3 and L2 from info/" "[(r['name'], r['closids'], r['cbm_len']) for r in d['resources']]" \
	'[["L3", 16, 20], ["L2", 8, 8]]'
ok "an L2 schema" group create l --schema "L2:0=f;1=f0"
dir=$(ours)
expect_file "the L2 line in the kernel" "$MNT/$dir/schemata" \
	"$(printf '    L2:0=f;1=f0\n    L3:0=fffff')"
ok "L2 partial update" schema set l "L2:1=3"
expect_file "L2 partial in the kernel" "$MNT/$dir/schemata" "$(printf '    L2:0=f;1=3\n    L3:0=fffff')"
umount_fs
MACHINE=$MACHINE_SAVED

# ---- memory bandwidth: info/MB and the MB line ---------------------------------------
STATE=$TMP/state-mb
mkdir -m 700 "$STATE"
MACHINE_FS="$MACHINE_REAL;mb.closids=8;mb.units=percent;mb.min=10;mb.gran=10"
MACHINE_SAVED=$MACHINE
MACHINE=$MACHINE_FS
mount_fs
MACHINE=$MACHINE_SAVED
ok "info with MB" -j info
json "MB from info/MB" "[(r['name'], r['closids'], r.get('min_bandwidth'), r.get('bandwidth_gran')) for r in d['resources']]" \
	'[["L3", 16, null, null], ["MB", 8, 10, 10]]'
ok "a throttled group" group create s --schema "MB:0=55"
dir=$(ours)
expect_file "the MB line, rounded up, in the kernel" "$MNT/$dir/schemata" \
	"$(printf '    MB:0=60;1=100\n    L3:0=fffff;1=fffff')"
failure "below the minimum: ours before the kernel's" "MB domain 1: 5 is below the minimum bandwidth 10" \
	schema set s "MB:1=5"
expect_file "refused: unchanged" "$MNT/$dir/schemata" "$(printf '    MB:0=60;1=100\n    L3:0=fffff;1=fffff')"
ok "same masks, other bandwidth: another control group" group create t --schema "MB:0=70"
if [ "$(ours | wc -l)" -eq 2 ]; then pass; else fail "2 of ours: $(ours)"; fi
ok "the same combination: shared" group create u --schema "MB:0=70"
if [ "$(ours | wc -l)" -eq 2 ]; then pass; else fail "still 2 of ours: $(ours)"; fi
ok "info: the kernel offers MB's 8 CLOSIDs" info
expect_out_has "info: 8 in all" "backend:  resctrl (backend 'resctrl' requested by the caller; resctrl at $MNT: CLOSIDs in use: the root, 2 groups of ours, 0 not ours; 5 free of 8)"
expect_out_has "info: L3's 16, and why 8 of them" \
	"  CLOSIDs:        16; 8 usable: resctrl gives each control group a CLOSID of every resource, and MB has 8"
ok "-j info" -j info
json "the usable count in the document" \
	"[(r['name'], r['closids'], r['usable_closids'], r.get('limited_by')) for r in d['resources']]" \
	'[["L3", 16, 8, "MB"], ["MB", 8, 8, null]]'
umount_fs

# mba_MBps: MB values are MBps for the kernel's software controller; the
# machine's units follow the mount, and goresctrl's MBps values are written
STATE=$TMP/state-mbps
mkdir -m 700 "$STATE"
MACHINE=$MACHINE_FS
mount_fs --mba-mbps
MACHINE=$MACHINE_SAVED
ok "first use on mba_MBps" reset
ok "info on mba_MBps" info
expect_out_has "info: mba_MBps said" "backend:  resctrl (backend 'resctrl' requested by the caller; resctrl at $MNT (mba_MBps: MB in MBps): CLOSIDs in use: the root, 0 groups of ours, 0 not ours; 7 free of 8)"
ok "-j info on mba_MBps" -j info
json "MB in MBps, the kernel's 8 CLOSIDs" \
	"[(r['name'], r['closids'], r.get('units')) for r in d['resources']]" \
	'[["L3", 16, null], ["MB", 8, "MBps"]]'
cat >"$TMP/mbps.yaml" <<'YAML'
partitions:
  p:
    l3Allocation: "100%"
    mbAllocation: ["100%", "8000MBps"]
    classes:
      web:
        l3Allocation: "50%"
        mbAllocation: ["50%", "3000MBps"]
      batch:
        l3Allocation: "25%"
        mbAllocation: ["20%", "1200MBps"]
      idle:
        l3Allocation: "10%"
        mbAllocation: ["10%", "10MBps"]
      full:
        l3Allocation: "90%"
YAML
ok "goresctrl's MBps values applied" apply --format goresctrl "$TMP/mbps.yaml"
for g in web:3000 batch:1200 idle:10 full:8000; do
	d=$(ls -d "$MNT"/rdtalloc-*/mon_groups/"${g%%:*}" | sed 's|/mon_groups/.*||')
	if grep -qx "    MB:0=${g#*:};1=${g#*:}" "$d/schemata"; then pass; else
		fail "${g%%:*}: MB is not ${g#*:} MBps in the kernel: $(cat "$d/schemata")"; fi
done
ok "a group in MBps by hand" group create s --schema "MB:0=50000;1=4294967295"
d=$(ls -d "$MNT"/rdtalloc-*/mon_groups/s | sed 's|/mon_groups/.*||')
expect_file "MBps as given, U32_MAX unthrottled" "$d/schemata" \
	"$(printf '    MB:0=50000;1=4294967295\n    L3:0=fffff;1=fffff')"
failure "above U32_MAX" 'MB domain 0: "4294967296" is above the maximum 4294967295' \
	schema set s "MB:0=4294967296"
umount_fs

# a state made on one unit is refused on the other, by name, and unchanged
MACHINE=$MACHINE_FS
mount_fs
MACHINE=$MACHINE_SAVED
cp "$STATE/state.json" "$TMP/mbps-state.json"
run group create x --schema "MB:0=50"
expect_rc 1 "an MBps state on a percent mount"
expect_err_has "the units named" \
	"rdtctl: MB's units changed: the state's MB values are in MBps (resctrl mounted with -o mba_MBps), the machine's are in percent, and none is converted; the state in $STATE was made for machine"
cmp -s "$STATE/state.json" "$TMP/mbps-state.json" && pass || fail "the refused state changed"
[ -z "$(ours)" ] && pass || fail "a refused open made control groups: $(ours)"
umount_fs
STATE=$TMP/state-mb
MACHINE=$MACHINE_FS
mount_fs --mba-mbps
MACHINE=$MACHINE_SAVED
cp "$STATE/state.json" "$TMP/mb-state.json"
run group list
expect_rc 1 "a percent state on an mba_MBps mount"
expect_err_has "the units named the other way" \
	"rdtctl: MB's units changed: the state's MB values are in percent, the machine's are in MBps (resctrl mounted with -o mba_MBps), and none is converted; the state in $STATE was made for machine"
cmp -s "$STATE/state.json" "$TMP/mb-state.json" && pass || fail "the refused state changed"
umount_fs

# ---- beside other managers: the root's schemata, other states, exclusive modes ----------
STATE=$TMP/state-root
mkdir -m 700 "$STATE"
mount_fs
echo "L3:0=7f0;1=7f0" >"$MNT/schemata"
ok "a new state on an administrator's root" group create p --schema "L3:0=f;1=f"
expect_file "the root's schemata kept" "$MNT/schemata" "    L3:0=7f0;1=7f0"
ok "schema show default" schema show default
expect_out "adopted as the default group's" "L3:0=007f0;1=007f0"
echo "L3:0=7c0" >"$MNT/schemata"
ok "info after the root changed" info
expect_out_contains "info: the root's owner said" "the root group's schemata were set outside this state (shown as the default group's; the next change adopts them)"
ok "schema show default" schema show default
expect_out "a look shows the root's schemata" "L3:0=007c0;1=007f0"
expect_file "the root as its owner left it" "$MNT/schemata" "    L3:0=7c0;1=7f0"
ok "an explicit change of the default group" schema set default "L3:1=ff0"
expect_file "written to the root" "$MNT/schemata" "    L3:0=7c0;1=ff0"

# a second state directory on the same mount: both live side by side
STATE_A=$STATE
STATE_B=$TMP/state-root-b
mkdir -m 700 "$STATE_B"
PA=rdtalloc-$(rdt -j info | python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')-
STATE=$STATE_B
ok "state B: a group" group create q --schema "L3:0=3000;1=3000"
PB=rdtalloc-$(rdt -j info | python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')-
if [ "$PA" != "$PB" ]; then pass; else fail "two states with one id $PA"; fi
expect_file "B's control group" "$MNT/${PB}q/schemata" "    L3:0=3000;1=3000"
expect_file "A's control group untouched" "$MNT/${PA}p/schemata" "    L3:0=f;1=f"
spawn sleep 300
TB=$SPAWNED
ok "state B: a task" task bind q "$TB"
STATE=$STATE_A
ok "state A opens" info
expect_out_contains "A: B's group is not ours" "1 group of ours, 1 not ours (${PB}q)"
case $OUT in *"disagreed"*) fail "A repaired something of B's: $OUT" ;; *) pass ;; esac
expect_lists "B's task stays in B's group" "$MNT/${PB}q/tasks" "$TB"
ok "state A resets" reset
expect_file "B's group survives A's reset" "$MNT/${PB}q/schemata" "    L3:0=3000;1=3000"
expect_lists "and B's task" "$MNT/${PB}q/tasks" "$TB"
STATE=$STATE_B
ok "state B after A's reset" -j task show q
json "B still has its task" "d['tasks']" "[$TB]"
ok "state B resets" reset
kill "$TB" 2>/dev/null
wait "$TB" 2>/dev/null
STATE=$STATE_A

# an exclusive group, then reset and apply --prune: the kernel takes every step
ok "default off the low ways" schema set default "L3:0=ffff0;1=ffff0"
ok "an exclusive group" group create ex --schema "L3:0=f;1=f" --exclusive
expect_file "ex exclusive in the kernel" "$MNT/${PA}ex/mode" "exclusive"
ok "reset with an exclusive group" reset
expect_file "reset: root all ways" "$MNT/schemata" "    L3:0=fffff;1=fffff"
if [ -z "$(ours)" ]; then pass; else fail "reset left $(ours)"; fi
ok "default off the low ways again" schema set default "L3:0=ffff0;1=ffff0"
ok "an exclusive group again" group create ex --schema "L3:0=f;1=f" --exclusive
printf 'group default\n\tschema L3:0=fffff;1=fffff\n' >"$TMP/wide.conf"
# ex was made by hand: only --prune-all (the state becomes the file) removes it
ok "apply --prune --dry-run" apply --prune-all --dry-run "$TMP/wide.conf"
expect_out_contains "dry run: valid" "is valid: applying it would make 2 changes"
expect_file "dry run: nothing written" "$MNT/${PA}ex/mode" "exclusive"
ok "apply --prune" apply --prune-all "$TMP/wide.conf"
expect_file "apply --prune: root all ways" "$MNT/schemata" "    L3:0=fffff;1=fffff"
if [ -z "$(ours)" ]; then pass; else fail "apply --prune left $(ours)"; fi

# another tool's exclusive group: the dry run says what the kernel would
ok "default off the high ways" schema set default "L3:0=fff;1=fff"
mkdir "$MNT/runtime-e"
echo "L3:0=f0000;1=f0000" >"$MNT/runtime-e/schemata"
echo exclusive >"$MNT/runtime-e/mode"
printf 'group w\n\tschema L3:0=ff000;1=ff000\n' >"$TMP/over.conf"
failure "dry run: the foreign exclusive group" \
	"line 2: resctrl: group w would overlap 'runtime-e', an exclusive group librdtalloc did not create (L3 cache id 0: 0xff000 and 0xf0000); the kernel refuses that: nothing was changed" \
	apply --dry-run "$TMP/over.conf"
failure "the real apply: the same, before any write" \
	"line 2: resctrl: group w would overlap 'runtime-e', an exclusive group librdtalloc did not create (L3 cache id 0: 0xff000 and 0xf0000); the kernel refuses that: nothing was changed" \
	apply "$TMP/over.conf"
if [ -z "$(ours)" ]; then pass; else fail "a refused apply left $(ours)"; fi
rmdir "$MNT/runtime-e"

# a foreign writer busy beside us: nothing of theirs or ours is lost
mkdir "$MNT/runtime-w"
spawn sleep 300
TW=$SPAWNED
(
	n=0
	while [ ! -e "$TMP/stop-writer" ]; do
		if [ $((n % 2)) -eq 0 ]; then m=3; else m=c; fi
		echo "L3:0=$m;1=$m" >"$MNT/runtime-w/schemata"
		if [ $((n % 2)) -eq 0 ]; then echo "$TW" >"$MNT/runtime-w/tasks"
		else echo "$TW" >"$MNT/tasks"; fi
		n=$((n + 1))
	done
	echo "$n" >"$TMP/writer-done"
) &
WRITER=$!
i=0
while [ $i -lt 20 ]; do
	rdt -q group create "f$i" --schema "L3:0=$(printf %x $((0x10 << (i % 6))));1=f0" ||
		fail "beside a writer: create f$i"
	i=$((i + 1))
done
i=0
while [ $i -lt 20 ]; do
	[ $((i % 2)) -eq 0 ] && { rdt -q group remove "f$i" || fail "beside a writer: remove f$i"; }
	i=$((i + 1))
done
touch "$TMP/stop-writer"
wait "$WRITER"
if [ "$(cat "$TMP/writer-done" 2>/dev/null || echo 0)" -gt 0 ]; then pass; else
	fail "the writer never wrote"; fi
# the writer's last write is what its group holds
n=$(cat "$TMP/writer-done")
if [ $(((n - 1) % 2)) -eq 0 ]; then m=3 where=runtime-w/tasks; else m=c where=tasks; fi
expect_file "beside a writer: its schemata as it left them" "$MNT/runtime-w/schemata" "    L3:0=$m;1=$m"
expect_lists "beside a writer: its task where it left it" "$MNT/$where" "$TW"
ok "beside a writer: our state" -j group list
json "beside a writer: our groups" "d" \
	'["default", "f1", "f3", "f5", "f7", "f9", "f11", "f13", "f15", "f17", "f19"]'
for d in $(ours); do
	case $(cat "$MNT/$d/schemata") in
	*"L3:0=3;1=3"*|*"L3:0=c;1=c"*) fail "beside a writer: $d holds the writer's schemata" ;;
	*) pass ;;
	esac
done
ok "beside a writer: nothing to repair" info
case $OUT in *"disagreed"*) fail "beside a writer: the kernel had drifted from our state" ;; *) pass ;; esac
kill "$TW" 2>/dev/null
wait "$TW" 2>/dev/null
rmdir "$MNT/runtime-w"
ok "reset" reset
umount_fs

# ---- a bound task another tool moved: reported, bound again for real, dropped by a change ----
STATE=$TMP/state-moved
mkdir -m 700 "$STATE"
mount_fs
ok "db" group create db --schema "L3:0=3;1=3"
PM=rdtalloc-$(rdt -j info | python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')-
spawn sleep 300
TM=$SPAWNED
ok "bind TM" task bind db "$TM"
expect_lists "TM in db's control group" "$MNT/${PM}db/tasks" "$TM"
echo "$TM" >"$MNT/tasks"
ok "task show db after another tool moved TM" task show db
expect_out "not listed: the kernel has it elsewhere" ""
expect_err_has "and said so" "rdtctl: note: task $TM of group db is in the root group now, moved by another tool: the next change drops its binding"
ok "-j task show db" -j task show db
json "moved, in the document" "d['moved']" "[{\"tid\": $TM, \"where\": \"\"}]"
ok "info" info
expect_out_contains "info reports it" "1 bound task had been moved by another tool ($TM to the root) and its binding goes at the next change"
ok "task bind db TM: where the task really is" task bind db "$TM"
expect_lists "TM back in db's control group" "$MNT/${PM}db/tasks" "$TM"
expect_not_lists "and out of the root" "$MNT/tasks" "$TM"
ok "info after the bind" info
case $OUT in *"moved by another tool"*) fail "still reported after the bind: $OUT" ;; *) pass ;; esac
mkdir "$MNT/other"
echo "$TM" >"$MNT/other/tasks"
ok "task show after a move into another tool's group" task show db
expect_err_has "the other group named" "rdtctl: note: task $TM of group db is in control group 'other' now, moved by another tool: the next change drops its binding"
ok "a change" group create later2
ok "-j task show db after the change" -j task show db
json "the binding was dropped" "d" '{"group": "db", "ntasks": 0, "tasks": []}'
expect_lists "the other tool's group keeps it" "$MNT/other/tasks" "$TM"
kill "$TM" 2>/dev/null
wait "$TM" 2>/dev/null
rmdir "$MNT/other"
ok "reset" reset
umount_fs

# ---- MB's scale is the kernel's (info/MB), whatever CPU the description names ----------
MACHINE_SAVED=$MACHINE
STATE=$TMP/state-mb-amd
mkdir -m 700 "$STATE"
MACHINE=preset=skylake-sp
mount_fs --mb 16:0:1:amd:2048
ok "AMD's MB under an Intel description" -j info
json "MB in 1/8 GB/s, 0 the minimum" \
	"[(r['units'], r['min_bandwidth'], r['bandwidth_gran'], r['max_bandwidth']) for r in d['resources'] if r['name'] == 'MB']" \
	'[["1/8 GB/s", 0, 1, 2048]]'
ok "MB:0=0 where the minimum is 0" group create z --schema "MB:0=0;1=1024"
expect_file "MB 0 in the kernel" "$MNT/$(ours)/schemata" "$(printf '    MB:0=0;1=1024\n    L3:0=7ff;1=7ff')"
umount_fs
STATE=$TMP/state-mb-intel
mkdir -m 700 "$STATE"
MACHINE=preset=amd-milan
mount_fs --mb 8:10:10
ok "Intel's MB under an AMD description" -j info
json "MB in percent, 10 the minimum" \
	"[(r['units'], r['min_bandwidth'], r['bandwidth_gran'], r['max_bandwidth']) for r in d['resources'] if r['name'] == 'MB']" \
	'[["percent", 10, 10, 100]]'
umount_fs

# ---- monitoring facts from info/L3_MON ---------------------------------------------------
STATE=$TMP/state-mon
mkdir -m 700 "$STATE"
MACHINE=preset=skylake-sp
mount_fs
expect_file "the emulator's info/L3_MON/num_rmids" "$MNT/info/L3_MON/num_rmids" "192"
ok "info on resctrl" -j info
json "monitoring from info/L3_MON: RMIDs, bytes (scale 1), events, the threshold" \
	"(d['monitoring']['rmids'], d['monitoring']['scale'], d['monitoring']['events'], d['monitoring']['threshold'])" \
	'[192, 1, ["llc_occupancy", "mbm_total_bytes", "mbm_local_bytes"], 98304]'
umount_fs

# ---- monitoring groups and counters from mon_data ---------------------------------------
# web and db share a CLOSID (one control group), batch has its own; each
# is a MON group of its control group; runc-1 is another tool's MON group
# in the root. Counters are planted in the emulator's state file.
STATE=$TMP/state-mongroups
mkdir -m 700 "$STATE"
FSST=$TMP/fs-mon.json
MACHINE=preset=skylake-sp
mount_fs --state "$FSST"
mkdir "$MNT/mon_groups/runc-1"
ok "web" group create web --schema "L3:0=f;1=f"
ok "db, web's schema" group create db --schema "L3:0=f;1=f"
ok "batch" group create batch --schema "L3:0=7f0;1=7f0"
WD=$(cd "$MNT" && ls -d rdtalloc-*/mon_groups/web | cut -d/ -f1)
BD=$(cd "$MNT" && ls -d rdtalloc-*/mon_groups/batch | cut -d/ -f1)
if [ "$(ls "$MNT/$WD/mon_groups" | tr '\n' ' ')" = "db web " ]; then pass; else
	fail "MON groups of $WD: $(ls "$MNT/$WD/mon_groups" | tr '\n' ' ')"; fi
if [ "$WD" != "$BD" ]; then pass; else fail "batch shares web's control group"; fi
sleep 300 &
T1=$!
sleep 300 &
T2=$!
ok "bind T1 to web" task bind web $T1
ok "bind T2 to db" task bind db $T2
expect_file "web's MON group" "$MNT/$WD/mon_groups/web/tasks" "$T1"
expect_file "db's MON group" "$MNT/$WD/mon_groups/db/tasks" "$T2"
expect_lists "the control group lists both" "$MNT/$WD/tasks" $T1 $T2
ok "T1 to db, the same control group" task bind db $T1
expect_lists "db's MON group has both" "$MNT/$WD/mon_groups/db/tasks" $T1 $T2
expect_file "web's none" "$MNT/$WD/mon_groups/web/tasks" ""
ok "T1 back to web" task bind web $T1
ok "the CPU 1 to batch" cpu bind batch 1
expect_file "batch's MON group has its CPU" "$MNT/$BD/mon_groups/batch/cpus_list" "1"
umount_fs
python3 - "$FSST" "$WD" "$BD" <<'PY'
import json, sys
path, wd, bd = sys.argv[1:]
st = json.load(open(path))
closid = {g["name"]: g["closid"] for g in st["groups"]}
rmid = {(m["parent"], m["name"]): m["rmid"] for m in st["mon_groups"]}
web, db = rmid[(closid[wd], "web")], rmid[(closid[wd], "db")]
batch, runc = rmid[(closid[bd], "batch")], rmid[(0, "runc-1")]
def c(r, dom, ev, v):
    return {"rmid": r, "cache_id": dom, "event": ev, "value": v}
st["counters"] = [
    c(0, 0, "llc_occupancy", 10000), c(0, 0, "mbm_total_bytes", 900000),
    c(0, 0, "mbm_local_bytes", 600000),
    c(runc, 0, "llc_occupancy", 3000), c(runc, 0, "mbm_total_bytes", 100000),
    c(runc, 0, "mbm_local_bytes", 100000),
    c(web, 0, "llc_occupancy", 2048), c(web, 0, "mbm_total_bytes", 5000),
    c(web, 0, "mbm_local_bytes", 4000),
    c(db, 0, "llc_occupancy", 40960), c(db, 0, "mbm_total_bytes", 70000),
    c(db, 0, "mbm_local_bytes", 1000),
    c(batch, 0, "llc_occupancy", "Error"), c(batch, 0, "mbm_total_bytes", "Unavailable"),
    c(batch, 0, "mbm_local_bytes", "Unassigned"),
]
json.dump(st, open(path, "w"))
PY
mount_fs --state "$FSST"
ok "monitor on resctrl" -j monitor --count 1 --domain 0
mon_row()
{
	json "$1" "[(x['rmid'] > 0, [(y['state'], y['llc_occupancy_bytes'], y['mbm_total_bytes'], y['mbm_local_bytes']) for y in x['domains']]) for x in d['groups'] if x['group'] == '$2'][0]" "$3"
}
# the default group: the root's files (its own RMID's and runc-1's) less runc-1's
expect_file "the root's file sums its MON groups" "$MNT/mon_data/mon_L3_00/llc_occupancy" "13000"
json "default: RMID 0" "[x['rmid'] for x in d['groups'] if x['group'] == 'default'][0]" "0"
mon_row "default: the root less runc-1" default '[false, [["ok", 10000, 900000, 600000]]]'
mon_row "web, counted apart from db" web '[true, [["ok", 2048, 5000, 4000]]]'
mon_row "db" db '[true, [["ok", 40960, 70000, 1000]]]'
json "batch: Error before Unassigned and Unavailable, no numbers" \
	"[(y['state'], y['llc_occupancy_bytes'], y['mbm_total_bytes']) for x in d['groups'] if x['group'] == 'batch' for y in x['domains']]" \
	'[["error", null, null]]'
ok "every domain" -j monitor --count 1
json "a fresh RMID: unavailable" "[y['state'] for x in d['groups'] if x['group'] == 'web' for y in x['domains'] if y['cache_id'] == 1]" '["unavailable"]'
# removing a group removes its MON group; another tool's stays
ok "remove web" group remove web
if [ ! -e "$MNT/$WD/mon_groups/web" ] && [ -d "$MNT/$WD/mon_groups/db" ]; then pass; else
	fail "web's MON group left, or db's gone"; fi
if [ -d "$MNT/mon_groups/runc-1" ]; then pass; else fail "runc-1 was touched"; fi
expect_lists "T1 is default's again: the root" "$MNT/tasks" $T1
# db takes batch's schema: its MON group moves with its tasks
ok "db to batch's schema" schema set db "L3:0=7f0;1=7f0"
expect_lists "db's tasks in its new MON group" "$MNT/$BD/mon_groups/db/tasks" $T2
if [ ! -e "$MNT/$WD" ]; then pass; else fail "$WD stays without groups"; fi
umount_fs

# out of RMIDs: every control and MON group holds one, other tools' too.
# We keep num_closids (8: MB's, the fewest) of the 12 for control groups,
# so our groups get RMIDs 1-3; another tool's 9 MON groups leave the
# kernel 2 (10, 11).
STATE=$TMP/state-normids
mkdir -m 700 "$STATE"
MACHINE="preset=skylake-sp;mon.rmids=12"
mount_fs
for i in $(seq 1 9); do mkdir "$MNT/mon_groups/other-$i"; done
ok "a: a control group and a MON group" group create a --schema "L3:0=f;1=f"
ok "state before" -j group show a
BEFORE=$OUT
A_DIR=$(ours)
run group create b
expect_rc 1 "out of RMIDs for a new class"
case "$ERR" in
"rdtctl: resctrl is out of RMIDs: no control group for a new class (mkdir $MNT/rdtalloc-"*": Out of RMIDs); every control group and monitoring group holds one of its 12: remove a group, ours or another tool's") pass ;;
*) fail "out of RMIDs for a class: $ERR" ;;
esac
rmdir "$MNT/mon_groups/other-9"
run group create b
expect_rc 1 "out of RMIDs for a MON group"
case "$ERR" in
"rdtctl: resctrl is out of RMIDs: no monitoring group for group 'b' (mkdir $MNT/rdtalloc-"*"/mon_groups/b: Out of RMIDs); every control group and monitoring group holds one of its 12: remove a group, ours or another tool's") pass ;;
*) fail "out of RMIDs for a MON group: $ERR" ;;
esac
ok "state after" -j group show a
if [ "$OUT" = "$BEFORE" ]; then pass; else fail "a refused group changed the state: $BEFORE / $OUT"; fi
ok "groups after" -j group list
json "no b" "d" '["default", "a"]'
if [ "$(ours)" = "$A_DIR" ]; then pass; else fail "b's control group stays: $(ours)"; fi
if [ "$(ls "$MNT/mon_groups" | wc -l)" = 8 ]; then pass; else fail "another tool's MON groups touched"; fi
# our own count: 3 groups with RMIDs, the fourth unmonitored (no MON group)
rmdir "$MNT"/mon_groups/other-*
ok "b" group create b --schema "L3:0=f;1=f"
ok "c" group create c --schema "L3:0=f;1=f"
ok "d" group create d --schema "L3:0=f;1=f"
ok "d's RMID" -j group show d
json "d: unmonitored" "(d['rmid'], d['monitored'])" '[null, false]'
if [ "$(ls "$MNT/$(ours)/mon_groups" | tr '\n' ' ')" = "a b c " ]; then pass; else
	fail "MON groups: $(ls "$MNT/$(ours)/mon_groups" | tr '\n' ' ')"; fi
umount_fs
kill $T1 $T2 2>/dev/null
STATE=$TMP/state-nomon
mkdir -m 700 "$STATE"
MACHINE="preset=skylake-sp;mon.rmids=0"
mount_fs
ok "info without L3_MON" -j info
json "no monitoring: null" "d['monitoring']" 'null'
umount_fs
MACHINE=$MACHINE_SAVED

# ---- monitor during drift: every sample names it --------------------------------------
# db's control group removed behind our back: monitor marks it in every
# format, on each sample (read again: a sample after the repair has none),
# and writes nothing.
STATE=$TMP/state-mondrift
mkdir -m 700 "$STATE"
MACHINE="preset=skylake-sp"
mount_fs
ok "drift: db" group create db --schema "L3:0=f;1=f"
ok "drift: web" group create web --schema "L3:0=f0;1=f0"
DBD=$(ls -d "$MNT"/rdtalloc-*/mon_groups/db | sed 's|/mon_groups/db||')
rmdir "$DBD/mon_groups/db" "$DBD"
LOST="group db: its control group is missing"
snap=$(cd "$MNT" && find . -maxdepth 3 | sort)
ok "monitor during drift" monitor --count 1
expect_out_contains "monitor: the drift line" \
	"drift: $LOST (the next change, or the agent, repairs it)"
ok "-j monitor during drift" -j monitor --count 1
json "-j monitor: db's drift member, its counters missing" \
	"[(g['group'], g.get('drift'), sorted(set(x['state'] for x in g['domains'])) == ['missing'])
	  for g in d['groups']]" \
	'[["default", null, false], ["db", ["its control group is missing"], true], ["web", null, false]]'
json "-j monitor: the whole list on the sample" "d['drift']" "[\"$LOST\"]"
ok "-j monitor of web alone still names db's drift" -j monitor web --count 1
json "-j monitor web: the sample's list" "[d['drift'], [g['group'] for g in d['groups']]]" \
	"[[\"$LOST\"], [\"web\"]]"
ok "csv during drift" monitor --format csv --count 1
expect_err_has "csv: the drift on standard error" \
	"rdtctl: drift: $LOST (the next change, or the agent, repairs it)"
case $OUT in *drift*) fail "csv: drift among the rows: $OUT" ;; *) pass ;; esac
ok "prometheus during drift" monitor --format prometheus
expect_out_contains "prometheus: the drift as a comment" \
	"# drift: $LOST (the next change, or the agent, repairs it)"
if command -v promtool >/dev/null 2>&1; then
	printf '%s\n' "$OUT" >"$TMP/drift.prom"
	if promtool check metrics <"$TMP/drift.prom" >"$TMP/promtool" 2>&1; then pass; else
		fail "promtool check metrics with the drift comment: $(cat "$TMP/promtool")"; fi
fi
now=$(cd "$MNT" && find . -maxdepth 3 | sort)
if [ "$now" = "$snap" ]; then pass; else fail "monitor wrote to resctrl: '$snap' -> '$now'"; fi
# each sample reads the drift again: the one after the repair names none
rdt -j monitor --count 2 --interval 2 >"$TMP/mon2" 2>&1 &
MPID=$!
sleep 1
ok "the repair between two samples" sync
wait "$MPID"
python3 -c '
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if a.get("drift") and "drift" not in b and all("drift" not in g for g in b["groups"]) else 1)' \
	"$TMP/mon2" && pass || fail "drift not read again per sample: $(cat "$TMP/mon2")"
umount_fs
MACHINE=$MACHINE_SAVED

# ---- control groups named after a group of their class, the same after a remount -----
STATE=$TMP/state-names
mkdir -m 700 "$STATE"
mount_fs
# mine: our control groups, sorted, on one line
mine() { (cd "$MNT" && ls -d "$P"* 2>/dev/null) | LC_ALL=C sort | tr '\n' ' '; }
# classes: (number, groups) of every class, from closids -j
classes() { rdt -j closids L3 | python3 -c 'import json, sys
print([(c["closid"], c["groups"]) for c in json.load(sys.stdin)[0]["closids"]])'; }
# made in this order, their schemas sort the other way (an earlier version numbered by schema)
ok "names: zz" group create zz --schema "L3:0=f0;1=f0"
ok "names: aa" group create aa --schema "L3:0=f;1=f"
ok "names: ab shares aa's" group create ab --schema "L3:0=f;1=f"
L1=$(printf 'l%.0s' $(seq 60))a01
L2=$(printf 'l%.0s' $(seq 60))b02
ok "names: a 63-byte group name" group create "$L1" --schema "L3:0=f00;1=f00"
ok "names: another, alike in its first 45 bytes" group create "$L2" --schema "L3:0=f000;1=f000"
ID=$(rdt -j info | python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')
P=rdtalloc-$ID-
# the prefix is 18 bytes: 45 of a name fit in 63; a collision gets "+2" (no group name has '+')
want=$(printf '%s\n' "${P}aa" "${P}zz" "${P}$(printf %.45s "$L1")" "${P}$(printf %.43s "$L2")+2" |
	LC_ALL=C sort | tr '\n' ' ')
got=$(mine)
if [ "$got" = "$want" ]; then pass; else
	fail "names: each class named after its oldest group: '$got', wanted '$want'"; fi
for d in $(mine); do
	if [ ${#d} -le 63 ]; then pass; else fail "names: $d is ${#d} bytes, over 63"; fi
done
expect_file "names: zz's control group holds zz's schema" "$MNT/${P}zz/schemata" "    L3:0=f0;1=f0"
expect_file "names: aa and ab share aa's" "$MNT/${P}aa/schemata" "    L3:0=f;1=f"
spawn sleep 300
TN=$SPAWNED
ok "names: bind a task to ab" task bind ab "$TN"
expect_lists "names: in aa's control group" "$MNT/${P}aa/tasks" "$TN"
before_cls=$(classes)
if [ "$before_cls" = "[(0, ['default']), (1, ['zz']), (2, ['aa', 'ab']), (3, ['$L1']), (4, ['$L2'])]" ]
then pass; else fail "names: class numbers by the oldest group: $before_cls"; fi
before_names=$(mine)
# a remount removes every control group: the state realised again makes the same names
umount_fs
mount_fs
if [ -z "$(mine)" ]; then pass; else fail "names: the remount left $(mine)"; fi
ok "names: the state realised again after a remount" sync
got=$(mine)
if [ "$got" = "$before_names" ]; then pass; else
	fail "names: changed with the remount: '$before_names' -> '$got'"; fi
expect_lists "names: ab's task placed again in aa's" "$MNT/${P}aa/tasks" "$TN"
got=$(classes)
if [ "$got" = "$before_cls" ]; then pass; else
	fail "names: class numbers changed with the remount: '$before_cls' -> '$got'"; fi
# an earlier version's numbered control group is adopted by its schemata, not made again
umount_fs
mount_fs
mkdir "$MNT/${P}7"
echo "L3:0=f;1=f" >"$MNT/${P}7/schemata"
echo "$TN" >"$MNT/${P}7/tasks"
# another tool's: under our prefix with a character no name of ours has, and its own
mkdir "$MNT/${P}x:y" "$MNT/runtime-n"
echo "L3:0=c0000;1=c0000" >"$MNT/${P}x:y/schemata"
echo "L3:0=30000;1=30000" >"$MNT/runtime-n/schemata"
ok "names: realised beside an earlier version's and another tool's" sync
want=$(printf '%s\n' "${P}7" "${P}zz" "${P}$(printf %.45s "$L1")" "${P}$(printf %.43s "$L2")+2" \
	"${P}x:y" | LC_ALL=C sort | tr '\n' ' ')
got=$(mine)
if [ "$got" = "$want" ]; then pass; else
	fail "names: ${P}7 not adopted for aa's class: '$got', wanted '$want'"; fi
expect_lists "names: the task stays in ${P}7" "$MNT/${P}7/tasks" "$TN"
ok "names: task show ab" -j task show ab
json "names: ab's task, in the adopted control group" "d['tasks']" "[$TN]"
ok "names: info" info
expect_out_contains "names: the other tools' counted as not ours" "4 groups of ours, 2 not ours ("
case $OUT in *disagree*) fail "names: the adopted one is drift: $OUT" ;; *) pass ;; esac
# a state made before ids owns only rdtalloc-<n>: not ours, nor another tool's
STATE_N=$STATE
STATE=$TMP/state-noid
mkdir -m 700 "$STATE"
ok "names: a second state" group create old --schema "L3:0=300;1=300"
rmdir "$MNT/rdtalloc-$(rdt -j info |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')-old"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); del d["id"]; json.dump(d, open(sys.argv[1], "w"))' "$STATE/state.json"
ok "names: the state without an id realised" sync
expect_file "names: its rdtalloc-1" "$MNT/rdtalloc-1/schemata" "    L3:0=300;1=300"
ok "names: the state without an id: info" info
expect_out_contains "names: ours are not its" "1 group of ours, 6 not ours ("
ok "names: it resets" reset
if [ ! -d "$MNT/rdtalloc-1" ]; then pass; else fail "names: its reset left rdtalloc-1"; fi
STATE=$STATE_N
got=$(mine)
if [ "$got" = "$want" ]; then pass; else fail "names: its reset touched ours: '$got'"; fi
ok "names: reset" reset
got=$(mine)
if [ "$got" = "${P}x:y " ]; then pass; else fail "names: our reset removed '$got'"; fi
expect_file "names: the other tool's schemata untouched" "$MNT/${P}x:y/schemata" "    L3:0=c0000;1=c0000"
expect_file "names: and runtime-n's" "$MNT/runtime-n/schemata" "    L3:0=30000;1=30000"
kill "$TN" 2>/dev/null
wait "$TN" 2>/dev/null
rmdir "$MNT/${P}x:y" "$MNT/runtime-n"
# a class whose oldest group is removed keeps its control group and name (nothing is
# renamed), until a remount names it after its oldest group again
ok "names: c1" group create c1 --schema "L3:0=3;1=3"
ok "names: c2 shares c1's" group create c2 --schema "L3:0=3;1=3"
ok "names: c1 removed" group remove c1
got=$(mine)
if [ "$got" = "${P}c1 " ]; then pass; else fail "names: c2's class left '$got'"; fi
umount_fs
mount_fs
ok "names: c2's class after a remount" sync
got=$(mine)
if [ "$got" = "${P}c2 " ]; then pass; else fail "names: after the remount '$got'"; fi
ok "names: reset at last" reset
umount_fs

finish
