# SPDX-License-Identifier: LGPL-2.1-or-later
# Memory bandwidth allocation (--mb, --mba-mbps): info/MB, the MB line of
# schemata and size, parse_bw()'s validation and rounding with the kernel's
# texts, all-or-nothing writes mixed with L3, the CLOSIDs limited by MB,
# AMD units, --state and mba_MBps.
. "$(dirname "$0")/lib.sh"

NL='
'
M="topology=package:2 l3:1 core:2 pu:1;l3.closids=16;l3.cbm_len=8;l3.shareable_bits=0;l3.cdp=1"
lsw() {
	ls "$1" | tr '\n' ' ' | sed 's/ $//'
}

# Without MB nothing changes: no info/MB, no MB line, the plain source.
start_fs --machine "$M"
check "no MB: info" "L3 L3_MON last_cmd_status" "$(lsw "$MNT/info")"
check_file "$MNT/schemata" "    L3:0=ff;1=ff"
stop_fs

# Intel, Skylake-SP like: 8 MB CLOSIDs (L3 has 16), min 10, steps of 10.
start_fs --machine "$M" --mb 8:10:10
check "source" "resctrl" "$(grep " $MNT fuse.resctrl " /proc/mounts | cut -d' ' -f1)"
check "info" "L3 L3_MON MB last_cmd_status" "$(lsw "$MNT/info")"
check "info/MB" "bandwidth_gran delay_linear min_bandwidth num_closids thread_throttle_mode" "$(lsw "$MNT/info/MB")"
check_file "$MNT/info/MB/bandwidth_gran" "10"
check_file "$MNT/info/MB/delay_linear" "1"
check_file "$MNT/info/MB/min_bandwidth" "10"
check_file "$MNT/info/MB/num_closids" "8"
check_file "$MNT/info/MB/thread_throttle_mode" "max"
check_file "$MNT/info/L3/num_closids" "16"
check "info/MB read-only" "Permission denied" "$(errtext sh -c "echo 1 > $MNT/info/MB/min_bandwidth")"
# MB was registered after L3, so it is listed first; names right-aligned.
check_file "$MNT/schemata" "    MB:0=100;1=100
    L3:0=ff;1=ff"
check_file "$MNT/size" "    MB:0=100;1=100
    L3:0=16777216;1=16777216"

mkdir "$MNT/g1"
S=$MNT/g1/schemata
check_file "$S" "    MB:0=100;1=100
    L3:0=ff;1=ff"
ok_write "rounded up to the granularity" "$S" "MB:0=15$NL"
check_file "$S" "    MB:0=20;1=100
    L3:0=ff;1=ff"
ok_write "partial: domain 1 only" "$S" "MB:1=50$NL"
check_file "$S" "    MB:0=20;1=50
    L3:0=ff;1=ff"
ok_write "minimum and maximum" "$S" "MB:0=10;1=100$NL"
check_file "$S" "    MB:0=10;1=100
    L3:0=ff;1=ff"
ok_write "blanks around name and value, leading +" "$S" " MB :0= 70 ;1=+81 $NL"
check_file "$S" "    MB:0=70;1=90
    L3:0=ff;1=ff"
ok_write "MB and L3 in one write" "$S" "L3:0=f;1=f0${NL}MB:0=30$NL"
check_file "$S" "    MB:0=30;1=90
    L3:0=f;1=f0"
check_file "$MNT/g1/size" "    MB:0=30;1=90
    L3:0=8388608;1=8388608"

bad_write "below the minimum" "$S" "MB:0=9$NL" "Invalid argument" "MB value 9 out of range [10,100]"
bad_write "zero" "$S" "MB:1=0$NL" "Invalid argument" "MB value 0 out of range [10,100]"
bad_write "above the maximum" "$S" "MB:0=101$NL" "Invalid argument" "MB value 101 out of range [10,100]"
bad_write "hex" "$S" "MB:0=0x20$NL" "Invalid argument" "Invalid MB value 0x20"
bad_write "not a number" "$S" "MB:0=fast$NL" "Invalid argument" "Invalid MB value fast"
bad_write "negative" "$S" "MB:0=-50$NL" "Invalid argument" "Invalid MB value -50"
bad_write "fraction" "$S" "MB:0=50.5$NL" "Invalid argument" "Invalid MB value 50.5"
bad_write "past u32" "$S" "MB:0=4294967296$NL" "Invalid argument" "Invalid MB value 4294967296"
bad_write "empty value" "$S" "MB:0=$NL" "Invalid argument" "Invalid MB value "
bad_write "no value" "$S" "MB:$NL" "Invalid argument" "Missing 'MB' value"
bad_write "lower-case name" "$S" "mb:0=50$NL" "Invalid argument" "Unknown or unsupported resource name 'mb'"
bad_write "duplicate domain" "$S" "MB:0=50;0=60$NL" "Invalid argument" "Duplicate domain 0"
bad_write "unknown domain" "$S" "MB:2=50$NL" "Invalid argument" "ok"
bad_write "blank before id" "$S" "MB: 0=50$NL" "Invalid argument" "Missing '=' or non-numeric domain"
# All or nothing across resources: a bad MB value undoes the L3 change and
# a bad mask the MB change.
bad_write "good L3, bad MB" "$S" "L3:0=3;1=3${NL}MB:0=50;1=5$NL" "Invalid argument" "MB value 5 out of range [10,100]"
bad_write "good MB, bad L3" "$S" "MB:0=50;1=50${NL}L3:0=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
check_file "$S" "    MB:0=30;1=90
    L3:0=f;1=f0"

# The root group takes MB writes; a new group starts at full bandwidth
# (rdtgroup_init_mba), whatever the others have.
ok_write "root MB" "$MNT/schemata" "MB:0=40;1=60${NL}L3:0=f0;1=f$NL"
check_file "$MNT/schemata" "    MB:0=40;1=60
    L3:0=f0;1=f"
# Exclusive mode looks at the caches only.
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
ok_write "g1 shareable" "$MNT/g1/mode" "shareable$NL"
mkdir "$MNT/g2"
check_file "$MNT/g2/schemata" "    MB:0=100;1=100
    L3:0=ff;1=ff"
ok_write "g2 MB" "$MNT/g2/schemata" "MB:0=10$NL"
rmdir "$MNT/g2"
mkdir "$MNT/g2"
check_file "$MNT/g2/schemata" "    MB:0=100;1=100
    L3:0=ff;1=ff"

# CLOSIDs: the least num_closids (MB's 8) is what mkdir has: root + 7.
for g in g3 g4 g5 g6 g7; do
	check "mkdir $g" "" "$(errtext mkdir "$MNT/$g")"
done
check "8th mkdir after the root" "No space left on device" "$(errtext mkdir "$MNT/g8")"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
rmdir "$MNT/g7"
check "mkdir after rmdir" "" "$(errtext mkdir "$MNT/g8")"
check_file "$MNT/g8/schemata" "    MB:0=100;1=100
    L3:0=ff;1=ff"
stop_fs

# --cdp: MB keeps one line; CODE/DATA halve L3 to 8, the same as MB.
start_fs --machine "$M" --mb 8:10:10 --cdp
check_file "$MNT/schemata" "    MB:0=100;1=100
L3DATA:0=ff;1=ff
L3CODE:0=ff;1=ff"
check_file "$MNT/info/L3DATA/num_closids" "8"
ok_write "MB with CDP" "$MNT/schemata" "L3CODE:0=f${NL}MB:1=20$NL"
check_file "$MNT/schemata" "    MB:0=100;1=20
L3DATA:0=ff;1=ff
L3CODE:0=f;1=ff"
stop_fs

# AMD: 1/8 GB/s up to 2048, no rounding, no thread_throttle_mode.
start_fs --machine "$M" --mb 16:1:1:amd:2048
check "AMD info/MB" "bandwidth_gran delay_linear min_bandwidth num_closids" "$(lsw "$MNT/info/MB")"
check_file "$MNT/info/MB/bandwidth_gran" "1"
check_file "$MNT/info/MB/delay_linear" "0"
check_file "$MNT/info/MB/min_bandwidth" "1"
check_file "$MNT/info/MB/num_closids" "16"
check_file "$MNT/schemata" "    MB:0=2048;1=2048
    L3:0=ff;1=ff"
mkdir "$MNT/a"
check_file "$MNT/a/schemata" "    MB:0=2048;1=2048
    L3:0=ff;1=ff"
ok_write "AMD minimum" "$MNT/a/schemata" "MB:0=1;1=1023$NL"
check_file "$MNT/a/schemata" "    MB:0=1;1=1023
    L3:0=ff;1=ff"
bad_write "AMD above the maximum" "$MNT/a/schemata" "MB:0=2049$NL" "Invalid argument" "MB value 2049 out of range [1,2048]"
bad_write "AMD zero" "$MNT/a/schemata" "MB:0=0$NL" "Invalid argument" "MB value 0 out of range [1,2048]"
check_file "$MNT/a/size" "    MB:0=1;1=1023
    L3:0=16777216;1=16777216"
stop_fs

# The kernel's AMD minimum is 0; --mb=SPEC works too.
start_fs --machine "$M" --mb=16:0:1:amd:2048
check_file "$MNT/info/MB/min_bandwidth" "0"
ok_write "AMD zero" "$MNT/schemata" "MB:0=0$NL"
check_file "$MNT/schemata" "    MB:0=0;1=2048
    L3:0=ff;1=ff"
stop_fs

# --mba-mbps: MBps, no range and no rounding, U32_MAX the default, and
# mba_MBps in the mount source (a FUSE mount's options take no other).
start_fs --machine "$M" --mb 8:10:10 --mba-mbps
check "mba_MBps source" "resctrl,mba_MBps" "$(grep " $MNT fuse.resctrl " /proc/mounts | cut -d' ' -f1)"
check_file "$MNT/schemata" "    MB:0=4294967295;1=4294967295
    L3:0=ff;1=ff"
check_file "$MNT/info/MB/min_bandwidth" "10"
mkdir "$MNT/m"
ok_write "MBps, not rounded" "$MNT/m/schemata" "MB:0=15;1=5$NL"
check_file "$MNT/m/schemata" "    MB:0=15;1=5
    L3:0=ff;1=ff"
check_file "$MNT/m/size" "    MB:0=15;1=5
    L3:0=16777216;1=16777216"
ok_write "MBps zero and U32_MAX" "$MNT/m/schemata" "MB:0=0;1=4294967295$NL"
check_file "$MNT/m/schemata" "    MB:0=0;1=4294967295
    L3:0=ff;1=ff"
bad_write "MBps past u32" "$MNT/m/schemata" "MB:0=4294967296$NL" "Invalid argument" "Invalid MB value 4294967296"
# The kernel writes an MBps value at once (mbps_val[]), staging nothing: a
# domain named twice is no error, and a later failure does not undo it.
ok_write "MBps domain twice" "$MNT/m/schemata" "MB:0=7;0=8$NL"
check_file "$MNT/m/schemata" "    MB:0=8;1=4294967295
    L3:0=ff;1=ff"
bad_write "MBps then a bad mask" "$MNT/m/schemata" "L3:1=f${NL}MB:1=99${NL}L3:0=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
check_file "$MNT/m/schemata" "    MB:0=8;1=99
    L3:0=ff;1=ff"
mkdir "$MNT/n"
check_file "$MNT/n/schemata" "    MB:0=4294967295;1=4294967295
    L3:0=ff;1=ff"
stop_fs

# Refused command lines.
bad_start() {
	"$BIN" "$MNT" -f "$@" 2>"$TMP/log"
	check "$* (status)" "1" "$?"
}
bad_start --machine "$M" --mba-mbps
check "--mba-mbps without MB" "rdtalloc-resctrlfs: --mba-mbps: mba_MBps requires MBM and linear scale MBA at L3 scope (give an Intel --mb)" "$(cat "$TMP/log")"
bad_start --machine "$M" --mb 16:1:1:amd:2048 --mba-mbps
check "--mba-mbps on AMD" "yes" "$(grep -q 'mba_MBps requires MBM and linear scale MBA at L3 scope' "$TMP/log" && echo yes)"
for bad in 0:10:10 8:10 8:10:0 8:10:10: 8:10:10:amd 8:10:10:amd:0 8:10:10:intel:100 x:10:10 8:10:10:amd:2048:1; do
	bad_start --machine "$M" --mb "$bad"
done
check "--mb message" "rdtalloc-resctrlfs: --mb 8:10:10:amd:2048:1: expected CLOSIDS:MIN:GRAN or CLOSIDS:MIN:GRAN:amd:MAX (CLOSIDS 1..4096, GRAN and MAX at least 1)" "$(cat "$TMP/log")"
bad_start --machine "$M" --mb 8:200:10
check "--mb min above max" "rdtalloc-resctrlfs: --mb 8:200:10: the minimum is above the maximum 100" "$(cat "$TMP/log")"
if mounted; then fail "mounted after refused starts"; else pass; fi

# --state: MB values survive a restart; another --mb or mba_MBps is refused.
ST=$TMP/mb.json
start_fs --machine "$M" --mb 8:10:10 --state "$ST"
mkdir "$MNT/s1"
ok_write "s1 MB" "$MNT/s1/schemata" "MB:0=25;1=70${NL}L3:0=3c$NL"
ok_write "root MB" "$MNT/schemata" "MB:1=10$NL"
stop_fs
start_fs --machine "$M" --mb 8:10:10 --state "$ST"
check_file "$MNT/s1/schemata" "    MB:0=30;1=70
    L3:0=3c;1=ff"
check_file "$MNT/schemata" "    MB:0=100;1=10
    L3:0=ff;1=ff"
stop_fs
cp "$ST" "$TMP/saved"
bad_start --machine "$M" --state "$ST"
check "state without --mb" "rdtalloc-resctrlfs: state $ST: written with MB 8:10:10; start with --mb 8:10:10 or remove the file" "$(cat "$TMP/log")"
bad_start --machine "$M" --mb 8:10:5 --state "$ST"
bad_start --machine "$M" --mb 8:10:10 --mba-mbps --state "$ST"
check "state with --mba-mbps" "rdtalloc-resctrlfs: state $ST: written without --mba-mbps; start the same way or remove the file" "$(cat "$TMP/log")"
if cmp -s "$ST" "$TMP/saved"; then pass; else fail "state file changed by refused starts"; fi
# A file from before MB (no "mb", no "mba_mbps") reads as written without MB.
ST3=$TMP/old.json
start_fs --machine "$M" --state "$ST3"
ok_write "old-style state" "$MNT/schemata" "L3:0=3c$NL"
stop_fs
grep -v '"mb"\|"mba_mbps"' "$ST3" > "$TMP/old2.json" && mv "$TMP/old2.json" "$ST3"
check "keys removed" "" "$(grep '"mb"\|"mba_mbps"' "$ST3")"
start_fs --machine "$M" --state "$ST3"
check_file "$MNT/schemata" "    L3:0=3c;1=ff"
stop_fs
bad_start --machine "$M" --mb 8:10:10 --state "$ST3"
check "old state with --mb" "rdtalloc-resctrlfs: state $ST3: written without MB; start without --mb or remove the file" "$(cat "$TMP/log")"
# mba_MBps values are kept as well.
ST2=$TMP/mbps.json
start_fs --machine "$M" --mb 8:10:10 --mba-mbps --state "$ST2"
ok_write "MBps value" "$MNT/schemata" "MB:0=12345$NL"
stop_fs
start_fs --machine "$M" --mb 8:10:10 --mba-mbps --state "$ST2"
check_file "$MNT/schemata" "    MB:0=12345;1=4294967295
    L3:0=ff;1=ff"
stop_fs

finish
