# SPDX-License-Identifier: LGPL-2.1-or-later
# abmc: counter assignment, resctrl's mbm_event mode (Linux 6.18, AMD ABMC),
# byte for byte as fs/resctrl/monitor.c serves it: info/L3_MON's
# mbm_assign_mode, num_mbm_cntrs, available_mbm_cntrs, mbm_assign_on_mkdir,
# event_configs/*/event_filter, each group's mbm_L3_assignments with its
# grammar and errors, "Unassigned" reads, counters that count only while
# assigned, the mode switch, and all of it kept in --state.
. "$(dirname "$0")/lib.sh"

NL='
'
M="preset=amd-turin;topology=package:1 l3:2 core:2 pu:1;mon.cntrs=4"
ST=$TMP/state.json
I=$MNT/info/L3_MON
start_fs --machine "$M" --state "$ST"
check "L3_MON" "available_mbm_cntrs event_configs max_threshold_occupancy mbm_assign_mode mbm_assign_on_mkdir mon_features num_mbm_cntrs num_rmids" "$(names "$I")"
check_file "$I/mbm_assign_mode" "[mbm_event]${NL}default"
check_file "$I/num_mbm_cntrs" "0=4;1=4"
# the default group took a counter per event and domain at mount
check_file "$I/available_mbm_cntrs" "0=2;1=2"
check_file "$I/mbm_assign_on_mkdir" "1"
check "event_configs" "mbm_local_bytes mbm_total_bytes" "$(names "$I/event_configs")"
check_file "$I/event_configs/mbm_total_bytes/event_filter" "local_reads,remote_reads,local_non_temporal_writes,remote_non_temporal_writes,local_reads_slow_memory,remote_reads_slow_memory,dirty_victim_writes_all"
check_file "$I/event_configs/mbm_local_bytes/event_filter" "local_reads,local_non_temporal_writes,local_reads_slow_memory"
check_file "$MNT/mbm_L3_assignments" "mbm_total_bytes:0=e;1=e${NL}mbm_local_bytes:0=e;1=e"
check_file "$MNT/info/last_cmd_status" "ok"

# mkdir takes the last two counters of each domain; the next finds none
# and is made all the same, its status saying what it lacks
mkdir "$MNT/g1"
check_file "$MNT/info/last_cmd_status" "ok"
check_file "$I/available_mbm_cntrs" "0=0;1=0"
mkdir "$MNT/g2" || fail "mkdir without counters failed"
check_file "$MNT/info/last_cmd_status" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Failed to allocate counter for mbm_local_bytes in domain 0"
check_file "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
check_file "$MNT/g2/mon_data/mon_L3_00/mbm_total_bytes" "Unassigned"
check_file "$MNT/g2/mon_data/mon_L3_01/mbm_local_bytes" "Unassigned"
check_file "$MNT/g2/mon_data/mon_L3_00/llc_occupancy" "Unavailable"
check_file "$MNT/g1/mon_data/mon_L3_00/mbm_total_bytes" "Unavailable"

# the grammar and its errors
A=$MNT/g1/mbm_L3_assignments
ok_write "unassign one" "$A" "mbm_total_bytes:1=_$NL"
check_file "$A" "mbm_total_bytes:0=e;1=_${NL}mbm_local_bytes:0=e;1=e"
check_file "$I/available_mbm_cntrs" "0=0;1=1"
check_file "$MNT/g1/mon_data/mon_L3_01/mbm_total_bytes" "Unassigned"
ok_write "assigned again is a no-op" "$A" "mbm_total_bytes:0=e$NL"
bad_write "unknown event" "$A" "llc_occupancy:0=e$NL" "No such file or directory" "Invalid event llc_occupancy"
bad_write "bogus event" "$A" "mbm_bogus:0=e$NL" "No such file or directory" "Invalid event mbm_bogus"
bad_write "domain not a number" "$A" "mbm_total_bytes:x=e$NL" "Invalid argument" "Missing domain id"
bad_write "domain missing" "$A" "mbm_total_bytes:7=e$NL" "Invalid argument" "Invalid domain id 7"
bad_write "bad state" "$A" "mbm_total_bytes:0=ee$NL" "Invalid argument" "Assign operation 'mbm_total_bytes:0=ee' failed"
bad_write "no '='" "$A" "mbm_total_bytes:0$NL" "Invalid argument" "Assign operation 'mbm_total_bytes:0=(null)' failed"
bad_write "star, bad state" "$A" "mbm_total_bytes:*=x$NL" "Invalid argument" "Assign operation 'mbm_total_bytes:*=x' failed"
ok_write "no ':' changes nothing" "$A" "mbm_total_bytes$NL"
ok_write "nothing after ':'" "$A" "mbm_total_bytes:$NL"
check_file "$A" "mbm_total_bytes:0=e;1=_${NL}mbm_local_bytes:0=e;1=e"
# lines in order; the first failure stops, earlier lines stay applied
bad_write "second line fails" "$A" "mbm_local_bytes:1=_${NL}mbm_total_bytes:9=e$NL" "Invalid argument" "Invalid domain id 9"
check_file "$A" "mbm_total_bytes:0=e;1=_${NL}mbm_local_bytes:0=e;1=_"
# no free counter: ENOSPC and two lines
ok_write "g2 takes domain 1's two" "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:1=e;${NL}mbm_local_bytes:1=e$NL"
bad_write "domain 1 full" "$A" "mbm_total_bytes:1=e$NL" "No space left on device" "Failed to allocate counter for mbm_total_bytes in domain 1${NL}Assign operation 'mbm_total_bytes:1=e' failed"
# '*' stops at the first domain without a counter (6.18-7.1) and reads nothing after it
ok_write "g1 frees domain 0" "$A" "mbm_total_bytes:0=_$NL"
bad_write "star partly" "$A" "mbm_total_bytes:*=e;0=_$NL" "No space left on device" "Failed to allocate counter for mbm_total_bytes in domain 1${NL}Assign operation 'mbm_total_bytes:*=e' failed"
# a write without its newline: EINVAL, the status of the command before stays
bad_write "no newline" "$A" "mbm_total_bytes:0=_" "Invalid argument" "Failed to allocate counter for mbm_total_bytes in domain 1${NL}Assign operation 'mbm_total_bytes:*=e' failed"
check_file "$A" "mbm_total_bytes:0=e;1=_${NL}mbm_local_bytes:0=e;1=_"
# the same file in a MON group; rmdir gives its counters back
mkdir "$MNT/g2/mon_groups/m1"
check_file "$MNT/info/last_cmd_status" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Failed to allocate counter for mbm_local_bytes in domain 0"
check_file "$MNT/g2/mon_groups/m1/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
ok_write "g1 gives local 0" "$A" "mbm_local_bytes:0=_$NL"
ok_write "m1 takes it" "$MNT/g2/mon_groups/m1/mbm_L3_assignments" "mbm_local_bytes:0=e$NL"
check_file "$I/available_mbm_cntrs" "0=0;1=0"
# a control group reads Unassigned only when neither it nor a child has a counter
check_file "$MNT/g2/mon_data/mon_L3_00/mbm_local_bytes" "Unavailable"
check_file "$MNT/g2/mon_groups/m1/mon_data/mon_L3_00/mbm_local_bytes" "Unavailable"
check_file "$MNT/g2/mon_groups/m1/mon_data/mon_L3_01/mbm_local_bytes" "Unassigned"
rmdir "$MNT/g2/mon_groups/m1"
check_file "$I/available_mbm_cntrs" "0=1;1=0"
check_file "$MNT/g2/mon_data/mon_L3_00/mbm_local_bytes" "Unassigned"

# event_filter
F=$I/event_configs/mbm_local_bytes/event_filter
ok_write "filter" "$F" "local_reads, remote_reads$NL"
check_file "$F" "local_reads,remote_reads"
bad_write "bad type" "$F" "local_reads,bogus$NL" "Invalid argument" "Invalid memory transaction type bogus"
check_file "$F" "local_reads,remote_reads"
ok_write "empty filter" "$F" "$NL"
check_file "$F" ""
bad_write "filter no newline" "$F" "local_reads" "Invalid argument" "ok"

# on_mkdir
ok_write "on_mkdir off" "$I/mbm_assign_on_mkdir" "0"
check_file "$I/mbm_assign_on_mkdir" "0"
bad_write "on_mkdir bad" "$I/mbm_assign_on_mkdir" "x$NL" "Invalid argument" "ok"
rmdir "$MNT/g1"
mkdir "$MNT/g3"
check_file "$MNT/g3/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
ok_write "on_mkdir on" "$I/mbm_assign_on_mkdir" "on"

# a counter counts only while assigned: a value planted in the state reads
# while the counter is held, and is gone once it is given back
stop_fs
python3 - "$ST" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
rm = {g["name"]: g["rmid"] for g in st["groups"]}
st["counters"] = [c for c in st["counters"] if c["rmid"] != rm["g2"]]
st["counters"].append({"rmid": rm["g2"], "cache_id": 1, "event": "mbm_total_bytes", "value": 4096})
json.dump(st, open(sys.argv[1], "w"))
PY
start_fs --machine "$M" --state "$ST"
check_file "$MNT/g2/mon_data/mon_L3_01/mbm_total_bytes" "4096"
check_file "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=e${NL}mbm_local_bytes:0=_;1=e"
check_file "$I/mbm_assign_on_mkdir" "1"
check_file "$I/event_configs/mbm_local_bytes/event_filter" ""
ok_write "unassign" "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:1=_$NL"
check_file "$MNT/g2/mon_data/mon_L3_01/mbm_total_bytes" "Unassigned"
ok_write "assign again" "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:1=e$NL"
check_file "$MNT/g2/mon_data/mon_L3_01/mbm_total_bytes" "Unavailable"

# the mode switch frees every counter and resets the filters
bad_write "bad mode" "$I/mbm_assign_mode" "abmc$NL" "Invalid argument" "Unsupported assign mode"
bad_write "mode no newline" "$I/mbm_assign_mode" "default" "Invalid argument" "Unsupported assign mode"
ok_write "default mode" "$I/mbm_assign_mode" "default$NL"
check_file "$I/mbm_assign_mode" "[default]${NL}mbm_event"
check_file "$I/num_mbm_cntrs" "0=4;1=4"
check "available in default mode" "Invalid argument" "$(errtext cat "$I/available_mbm_cntrs")"
check_file "$MNT/info/last_cmd_status" "mbm_event counter assignment mode is not enabled"
check "assignments in default mode" "Invalid argument" "$(errtext cat "$MNT/g2/mbm_L3_assignments")"
check "on_mkdir in default mode" "Invalid argument" "$(errtext cat "$I/mbm_assign_on_mkdir")"
check "filter in default mode" "Invalid argument" "$(errtext cat "$F")"
bad_write "assign in default mode" "$MNT/g2/mbm_L3_assignments" "mbm_total_bytes:0=e$NL" "Invalid argument" "mbm_event mode is not enabled"
bad_write "on_mkdir write in default mode" "$I/mbm_assign_on_mkdir" "1" "Invalid argument" "mbm_event counter assignment mode is not enabled"
# every RMID counts in default mode
check_file "$MNT/g3/mon_data/mon_L3_00/mbm_total_bytes" "Unavailable"
check_file "$MNT/mon_data/mon_L3_00/mbm_total_bytes" "0"
ok_write "same mode again" "$I/mbm_assign_mode" "default$NL"
ok_write "mbm_event mode" "$I/mbm_assign_mode" "mbm_event$NL"
check_file "$I/available_mbm_cntrs" "0=4;1=4"
check_file "$MNT/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
check_file "$MNT/mon_data/mon_L3_00/mbm_total_bytes" "Unassigned"
check_file "$F" "local_reads,local_non_temporal_writes,local_reads_slow_memory"
check_file "$I/mbm_assign_on_mkdir" "1"
stop_fs

# a machine without assignable counters: the mode file alone, [default]
start_fs --machine "topology=package:1 l3:2 core:2 pu:1"
check_file "$I/mbm_assign_mode" "[default]"
check "no counter files" "max_threshold_occupancy mbm_assign_mode mon_features num_rmids" "$(names "$I")"
bad_write "mbm_event unsupported" "$I/mbm_assign_mode" "mbm_event$NL" "Invalid argument" "mbm_event mode is not supported"
check "no assignments file" "" "$(ls "$MNT" | grep mbm_L3 || true)"
stop_fs

# Linux 7.2 (mon.abmc=7.2): an assignment to every domain - mkdir's, and
# "*=e" - goes on past a domain without a counter (3aec86e4); 6.18-7.1
# stop there. Domain 0 full, domain 1 with room for both events.
short_domain0() {
	start_fs --machine "$M;mon.abmc=$1"
	mkdir "$MNT/h1"
	ok_write "h1 frees domain 1 ($1)" "$MNT/h1/mbm_L3_assignments" "mbm_total_bytes:1=_${NL}mbm_local_bytes:1=_$NL"
	check_file "$I/available_mbm_cntrs" "0=0;1=2"
	mkdir "$MNT/h2" || fail "mkdir without counters in domain 0 failed ($1)"
	check_file "$MNT/info/last_cmd_status" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Failed to allocate counter for mbm_local_bytes in domain 0"
}
short_domain0 6.18
check_file "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
check_file "$I/available_mbm_cntrs" "0=0;1=2"
bad_write "star stops at domain 0 (6.18)" "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:*=e$NL" "No space left on device" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Assign operation 'mbm_total_bytes:*=e' failed"
check_file "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
check "event_filter writable (6.18)" "-rw-r--r--" "$(stat -c %A "$I/event_configs/mbm_total_bytes/event_filter")"
stop_fs
short_domain0 7.2
check_file "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=e${NL}mbm_local_bytes:0=_;1=e"
check_file "$I/available_mbm_cntrs" "0=0;1=0"
check_file "$MNT/h2/mon_data/mon_L3_00/mbm_total_bytes" "Unassigned"
check_file "$MNT/h2/mon_data/mon_L3_01/mbm_total_bytes" "Unavailable"
ok_write "h2 frees total in domain 1" "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:1=_$NL"
bad_write "star goes on past domain 0 (7.2)" "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:*=e$NL" "No space left on device" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Assign operation 'mbm_total_bytes:*=e' failed"
check_file "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=e${NL}mbm_local_bytes:0=_;1=e"
# explicit domains still stop at the first failure, in 7.2 as before
ok_write "h2 frees total in domain 1 again" "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:1=_$NL"
bad_write "explicit ids stop (7.2)" "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=e;1=e$NL" "No space left on device" "Failed to allocate counter for mbm_total_bytes in domain 0${NL}Assign operation 'mbm_total_bytes:0=e' failed"
check_file "$MNT/h2/mbm_L3_assignments" "mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=e"
# a configurable platform (AMD) keeps event_filter writable in 7.2
check "event_filter writable (7.2)" "-rw-r--r--" "$(stat -c %A "$I/event_configs/mbm_total_bytes/event_filter")"
ok_write "filter (7.2)" "$I/event_configs/mbm_total_bytes/event_filter" "local_reads$NL"
stop_fs

# 7.2 where the counters' filters are not configurable (94a12065): event_filter
# is 0444, so kernfs refuses to open it for writing (root too); it reads as before
start_fs --machine "$M;mon.abmc=7.2-ro"
F=$I/event_configs/mbm_total_bytes/event_filter
check "event_filter read-only" "-r--r--r--" "$(stat -c %A "$F")"
check "event_filter local read-only" "-r--r--r--" "$(stat -c %A "$I/event_configs/mbm_local_bytes/event_filter")"
bad_write "event_filter write refused" "$F" "local_reads$NL" "Permission denied" "ok"
check_file "$F" "local_reads,remote_reads,local_non_temporal_writes,remote_non_temporal_writes,local_reads_slow_memory,remote_reads_slow_memory,dirty_victim_writes_all"
# the mode switch still resets it (the filters are the hardware's defaults)
ok_write "default mode (7.2-ro)" "$I/mbm_assign_mode" "default$NL"
check "still read-only in default mode" "-r--r--r--" "$(stat -c %A "$F")"
stop_fs

# mba_MBps with assignable counters (an Intel-like, linear MB): 6.18-7.1
# mount it; 7.2 refuses it (f52abe65, its text not read: the older one)
MI="topology=package:1 l3:2 core:2 pu:1;mon.cntrs=4"
start_fs --machine "$MI" --mb 8:10:10 --mba-mbps
check_file "$I/mbm_assign_mode" "[mbm_event]${NL}default"
check_file "$MNT/mba_MBps_event" "mbm_local_bytes"
stop_fs
"$BIN" "$MNT" -f --machine "$MI;mon.abmc=7.2" --mb 8:10:10 --mba-mbps 2>"$TMP/log"
check "--mba-mbps on 7.2 (status)" "1" "$?"
check "--mba-mbps on 7.2" "rdtalloc-resctrlfs: --mba-mbps: mba_MBps requires MBM and linear scale MBA at L3 scope (give an Intel --mb)" "$(cat "$TMP/log")"
# a description saying mb.units=mbps on 7.2 is refused itself, naming why
"$BIN" "$MNT" -f --machine "$M;mon.abmc=7.2;mb.closids=8;mb.units=mbps" 2>"$TMP/log"
check "mba_MBps on 7.2 (status)" "1" "$?"
check "mba_MBps on 7.2" "yes" "$(grep -q 'mb.units=mbps: Linux 7.2 (mon.abmc=7.2) refuses mba_MBps where MBM counters are assignable (mon.cntrs=4)' "$TMP/log" && echo yes)"

finish
