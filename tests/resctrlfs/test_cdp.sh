# SPDX-License-Identifier: LGPL-2.1-or-later
# CDP mounts (--cdp, --cdpl2): CODE and DATA schemas, halved CLOSIDs, the
# schemata layout, and overlap checks across the CODE/DATA pair.
. "$(dirname "$0")/lib.sh"

NL='
'
M="topology=package:2 l3:1 core:2 pu:1;l3.closids=8;l3.cbm_len=8;l3.shareable_bits=0;l3.cdp=1"
start_fs --machine "$M" --cdp
check "info listing" "L3CODE L3DATA L3_MON last_cmd_status" "$(ls "$MNT/info" | tr '\n' ' ' | sed 's/ $//')"
check_file "$MNT/info/L3CODE/num_closids" "4"
check_file "$MNT/info/L3DATA/num_closids" "4"
check_file "$MNT/info/L3CODE/cbm_mask" "ff"
check_file "$MNT/schemata" "L3DATA:0=ff;1=ff
L3CODE:0=ff;1=ff"
check_file "$MNT/size" "L3DATA:0=16777216;1=16777216
L3CODE:0=16777216;1=16777216"
bad_write "plain L3 under CDP" "$MNT/schemata" "L3:0=f$NL" "Invalid argument" "Unknown or unsupported resource name 'L3'"
ok_write "root CODE and DATA" "$MNT/schemata" "L3CODE:0=f;1=f${NL}L3DATA:0=f;1=f$NL"
mkdir "$MNT/g1"
ok_write "g1 CODE only" "$MNT/g1/schemata" "L3CODE:0=f0;1=f0$NL"
check_file "$MNT/g1/schemata" "L3DATA:0=ff;1=ff
L3CODE:0=f0;1=f0"
ok_write "g1 DATA" "$MNT/g1/schemata" "L3DATA:0=30;1=30$NL"
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
mkdir "$MNT/g2"
check_file "$MNT/g2/schemata" "L3DATA:0=f;1=f
L3CODE:0=f;1=f"
# c0 misses g1's DATA mask (30) but hits its CODE mask (f0): refused.
bad_write "DATA over exclusive CODE" "$MNT/g2/schemata" "L3DATA:0=c0$NL" "Invalid argument" "Overlaps with exclusive group"
check_file "$MNT/info/L3CODE/bit_usage" "0=EEEESSSS;1=EEEESSSS"
check_file "$MNT/info/L3DATA/bit_usage" "0=00EESSSS;1=00EESSSS"
mkdir "$MNT/g3"
check "mkdir past halved closids" "No space left on device" "$(errtext mkdir "$MNT/g4")"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
stop_fs

# --cdp on a machine without CDP does not mount.
"$BIN" "$MNT" -f --cdp --machine "topology=package:1 l3:1 core:2 pu:1;l3.closids=4;l3.cdp=0" 2>"$TMP/log"
check "no CDP: exit status" "1" "$?"
check "no CDP: message" "rdtalloc-resctrlfs: --cdp: the machine has no L3 CDP (give a --machine with l3.cdp=1)" "$(cat "$TMP/log")"
if mounted; then fail "mounted without CDP"; else pass; fi

# --cdpl2 alone: L2 is split, L3 is not but keeps the CDP-wide column.
start_fs --cdpl2 --machine "topology=package:1 l3:1 l2:2 core:2 pu:1;l3.closids=8;l3.cbm_len=12;l3.cdp=1;l2.closids=8;l2.cbm_len=8;l2.cdp=1"
check "info listing L2 CDP" "L2CODE L2DATA L3 L3_MON last_cmd_status" "$(ls "$MNT/info" | tr '\n' ' ' | sed 's/ $//')"
check_file "$MNT/info/L2CODE/num_closids" "4"
check_file "$MNT/info/L3/num_closids" "8"
check_file "$MNT/schemata" "L2DATA:0=ff;1=ff
L2CODE:0=ff;1=ff
    L3:0=fff"
stop_fs

finish
