# SPDX-License-Identifier: LGPL-2.1-or-later
# io_alloc: L3 I/O allocation (Linux 6.19, AMD SDCIAE; '*' and "Invalid
# domain" 7.1) as fs/resctrl/ctrlmondata.c serves it: io_alloc and
# io_alloc_cbm in every cache schema's info directory, the highest CLOSID
# taken while enabled, its initial mask, the parse errors, CDP keeping CODE
# and DATA alike, bit_usage's X and H, and the state kept in --state.
. "$(dirname "$0")/lib.sh"

NL='
'
M="preset=amd-turin;topology=package:1 l3:2 core:2 pu:1"
ST=$TMP/state.json
I=$MNT/info/L3
start_fs --machine "$M" --state "$ST"
check "L3 info" "bit_usage cbm_mask io_alloc io_alloc_cbm min_cbm_bits num_closids shareable_bits sparse_masks" "$(names "$I")"
check_file "$I/io_alloc" "disabled"
check "cbm while disabled" "Invalid argument" "$(errtext cat "$I/io_alloc_cbm")"
check_file "$MNT/info/last_cmd_status" "io_alloc is not enabled on L3"
bad_write "cbm write while disabled" "$I/io_alloc_cbm" "0=f$NL" "Invalid argument" "io_alloc is not enabled on L3"
bad_write "not a bool" "$I/io_alloc" "x$NL" "Invalid argument" "io_alloc is not enabled on L3"
# the group on CLOSID 15 keeps io_alloc out
i=1
while [ $i -le 15 ]; do mkdir "$MNT/g$i"; i=$((i + 1)); done
bad_write "CLOSID taken" "$I/io_alloc" "1$NL" "No space left on device" "CLOSID (ctrl_hw_id) 15 for io_alloc is used by g15 group"
check_file "$I/io_alloc" "disabled"
i=3
while [ $i -le 15 ]; do rmdir "$MNT/g$i"; i=$((i + 1)); done
ok_write "g1 to ff00" "$MNT/g1/schemata" "L3:0=ff00;1=ff00$NL"
ok_write "g2 to 00ff" "$MNT/g2/schemata" "L3:0=ff;1=ff$NL"
ok_write "root to 00ff" "$MNT/schemata" "L3:0=ff;1=ff$NL"
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
# the initial mask: shareable groups' ways and the unused, not g1's exclusive ones
ok_write "enable" "$I/io_alloc" "y"
check_file "$I/io_alloc" "enabled"
check_file "$I/io_alloc_cbm" "0=ff;1=ff"
ok_write "enabled again (no-op)" "$I/io_alloc" "1$NL"
# CLOSID 15 is io_alloc's now: 14 groups at most
i=3
while [ $i -le 14 ]; do mkdir "$MNT/h$i"; i=$((i + 1)); done
mkdir "$MNT/g15" 2>/dev/null && fail "mkdir on the io_alloc CLOSID succeeded"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
i=3
while [ $i -le 14 ]; do rmdir "$MNT/h$i"; i=$((i + 1)); done
# bit_usage: its ways are the hardware's, X where a group shares them
check_file "$I/bit_usage" "0=EEEEEEEEXXXXXXXX;1=EEEEEEEEXXXXXXXX"
ok_write "one domain" "$I/io_alloc_cbm" "1=f0$NL"
check_file "$I/io_alloc_cbm" "0=ff;1=f0"
ok_write "all domains (7.1)" "$I/io_alloc_cbm" "*=3$NL"
check_file "$I/io_alloc_cbm" "0=3;1=3"
ok_write "root narrower" "$MNT/schemata" "L3:0=f0;1=f0$NL"
ok_write "g2 narrower" "$MNT/g2/schemata" "L3:0=f0;1=f0$NL"
check_file "$I/bit_usage" "0=EEEEEEEESSSS00HH;1=EEEEEEEESSSS00HH"
# AMD: sparse and empty masks are fine
ok_write "sparse" "$I/io_alloc_cbm" "0=5$NL"
ok_write "empty" "$I/io_alloc_cbm" "*=0$NL"
check_file "$I/io_alloc_cbm" "0=0;1=0"
bad_write "after '*'" "$I/io_alloc_cbm" "*=1;0=2$NL" "Invalid argument" "Configurations after global '*'"
bad_write "unknown domain (7.1)" "$I/io_alloc_cbm" "0=1;5=1$NL" "Invalid argument" "Invalid domain 5"
bad_write "no '='" "$I/io_alloc_cbm" "0$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "domain not a number" "$I/io_alloc_cbm" "x=1$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "not hex" "$I/io_alloc_cbm" "0=xyz$NL" "Invalid argument" "Non-hex character in the mask xyz"
bad_write "too wide" "$I/io_alloc_cbm" "0=10000$NL" "Invalid argument" "Mask out of range"
bad_write "twice" "$I/io_alloc_cbm" "0=1;0=2$NL" "Invalid argument" "Duplicate domain 0"
bad_write "exclusive ways" "$I/io_alloc_cbm" "0=100$NL" "Invalid argument" "Overlaps with exclusive group"
bad_write "no newline" "$I/io_alloc_cbm" "0=1" "Invalid argument" "Overlaps with exclusive group"
check_file "$I/io_alloc_cbm" "0=0;1=0"
# an exclusive group may not take io_alloc's ways
ok_write "io ways" "$I/io_alloc_cbm" "*=3$NL"
ok_write "g2 to 3" "$MNT/g2/schemata" "L3:0=3;1=3$NL"
bad_write "g2 exclusive over I/O" "$MNT/g2/mode" "exclusive$NL" "Invalid argument" "Schemata overlaps"
stop_fs
# kept across a restart
start_fs --machine "$M" --state "$ST"
check_file "$I/io_alloc" "enabled"
check_file "$I/io_alloc_cbm" "0=3;1=3"
ok_write "disable" "$I/io_alloc" "off"
check_file "$I/io_alloc" "disabled"
mkdir "$MNT/g15" || fail "CLOSID 15 not given back"
stop_fs

# CDP: the highest CODE CLOSID (16 / 2 - 1 = 7); writing either keeps both the same
start_fs --machine "$M" --cdp
check "CDP dirs" "io_alloc io_alloc_cbm" "$(ls "$MNT/info/L3DATA" | grep io_ | tr '\n' ' ' | sed 's/ $//')"
ok_write "enable via DATA" "$MNT/info/L3DATA/io_alloc" "1"
check_file "$MNT/info/L3CODE/io_alloc" "enabled"
ok_write "DATA cbm" "$MNT/info/L3DATA/io_alloc_cbm" "0=f$NL"
check_file "$MNT/info/L3CODE/io_alloc_cbm" "0=f;1=ffff"
i=1
while [ $i -le 6 ]; do mkdir "$MNT/c$i"; i=$((i + 1)); done
mkdir "$MNT/c7" 2>/dev/null && fail "mkdir on the CDP io_alloc CLOSID succeeded"
stop_fs

# a machine without io_alloc has no such files
start_fs --machine "topology=package:1 l3:2 core:2 pu:1"
check "no io files" "" "$(ls "$MNT/info/L3" | grep io_ || true)"
stop_fs
# io_alloc CLOSID above what MB has: not available
start_fs --machine "$M;mb.closids=8"
bad_write "CLOSID beyond MB" "$I/io_alloc" "1" "Invalid argument" "io_alloc CLOSID (ctrl_hw_id) 15 is not available"
stop_fs
# L2 beside an io_alloc L3: the files are there and say no
start_fs --machine "preset=amd-turin;topology=package:1 l3:1 l2:2 core:1 pu:1;l2.closids=8;l2.cbm_len=8"
check_file "$MNT/info/L2/io_alloc" "not supported"
bad_write "L2 enable" "$MNT/info/L2/io_alloc" "1" "No such device" "io_alloc is not supported on L2"
check "L2 cbm" "No such device" "$(errtext cat "$MNT/info/L2/io_alloc_cbm")"
check_file "$MNT/info/last_cmd_status" "io_alloc is not supported on L2"
stop_fs

finish
