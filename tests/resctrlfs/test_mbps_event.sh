# SPDX-License-Identifier: LGPL-2.1-or-later
# mbps_event: mba_MBps_event (Linux 6.14) in every control group when
# mounted with mba_MBps, its default, its errors, kept in --state; with
# 6.15's unpadded schemata, and writes without a trailing newline refused
# with last_cmd_status left as the command before left it.
. "$(dirname "$0")/lib.sh"

NL='
'
M="topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=12;l3.cdp=0;mb.closids=4"
ST=$TMP/state.json
start_fs --machine "$M" --mba-mbps --state "$ST"
mkdir "$MNT/g"
mkdir "$MNT/g/mon_groups/m"
check_file "$MNT/mba_MBps_event" "mbm_local_bytes"
check_file "$MNT/g/mba_MBps_event" "mbm_local_bytes"
[ -e "$MNT/g/mon_groups/m/mba_MBps_event" ] && fail "a MON group has mba_MBps_event"
ok_write "total" "$MNT/g/mba_MBps_event" "mbm_total_bytes$NL"
check_file "$MNT/g/mba_MBps_event" "mbm_total_bytes"
bad_write "occupancy" "$MNT/g/mba_MBps_event" "llc_occupancy$NL" "Invalid argument" "Unsupported event id 'llc_occupancy'"
bad_write "bogus" "$MNT/g/mba_MBps_event" "bogus$NL" "Invalid argument" "Unsupported event id 'bogus'"
bad_write "no newline" "$MNT/g/mba_MBps_event" "mbm_local_bytes" "Invalid argument" "Unsupported event id 'bogus'"
check_file "$MNT/g/mba_MBps_event" "mbm_total_bytes"
# 6.15: values unpadded (a 12-bit mask is "ff", not "0ff")
ok_write "schemata" "$MNT/g/schemata" "L3:0=ff;1=3$NL"
check_file "$MNT/g/schemata" "MB:0=4294967295;1=4294967295${NL}L3:0=ff;1=3"
bad_write "schemata no newline" "$MNT/g/schemata" "L3:0=f" "Invalid argument" "ok"
stop_fs
start_fs --machine "$M" --mba-mbps --state "$ST"
check_file "$MNT/g/mba_MBps_event" "mbm_total_bytes"
check_file "$MNT/mba_MBps_event" "mbm_local_bytes"
stop_fs
# only total counted: total is the default and local refused
start_fs --machine "$M;mon.events=llc_occupancy,mbm_total_bytes" --mba-mbps
check_file "$MNT/mba_MBps_event" "mbm_total_bytes"
bad_write "local not counted" "$MNT/mba_MBps_event" "mbm_local_bytes$NL" "Invalid argument" "Unsupported event id 'mbm_local_bytes'"
stop_fs
# without mba_MBps there is no such file
start_fs --machine "$M"
[ -e "$MNT/mba_MBps_event" ] && fail "mba_MBps_event without mba_MBps"
stop_fs

finish
