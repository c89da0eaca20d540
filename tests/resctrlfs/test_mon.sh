# SPDX-License-Identifier: LGPL-2.1-or-later
# Monitoring: mon_groups and mon_data in every control group, MON groups
# with their own RMID (mkdir refused with "Out of RMIDs" when none is
# free, control groups included), tasks and CPUs of a MON group (only its
# parent's), counters planted in the state file, a control group's files
# summing its MON groups, and the states printed instead of numbers.
. "$(dirname "$0")/lib.sh"

NL='
'
# 4 RMIDs: the root's 0 and three more; two L3 domains (cache ids 0 and 1)
M="topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.cdp=0;mon.rmids=4;mon.events=llc_occupancy,mbm_total_bytes"
ST=$TMP/state.json
start_fs --machine "$M" --state "$ST"
check "root listing" "cpus cpus_list info mode mon_data mon_groups schemata size tasks" \
	"$(ls "$MNT" | tr '\n' ' ' | sed 's/ $//')"
check "mon_data" "mon_L3_00 mon_L3_01" "$(ls "$MNT/mon_data" | tr '\n' ' ' | sed 's/ $//')"
# only the events the machine has
check "events" "llc_occupancy mbm_total_bytes" \
	"$(ls "$MNT/mon_data/mon_L3_01" | tr '\n' ' ' | sed 's/ $//')"
check_file "$MNT/mon_data/mon_L3_00/llc_occupancy" "0"
check "no local" "No such file or directory" "$(errtext cat "$MNT/mon_data/mon_L3_00/mbm_local_bytes")"

check "mkdir a" "" "$(errtext mkdir "$MNT/a")"
check "mkdir a/mon_groups/w" "" "$(errtext mkdir "$MNT/a/mon_groups/w")"
check "MON group listing" "cpus cpus_list mon_data tasks" \
	"$(ls "$MNT/a/mon_groups/w" | tr '\n' ' ' | sed 's/ $//')"
# a fresh RMID has no value yet
check_file "$MNT/a/mon_groups/w/mon_data/mon_L3_00/llc_occupancy" "Unavailable"
check "mkdir in mon_data" "Operation not permitted" "$(errtext mkdir "$MNT/a/mon_data/x")"
check "mkdir in a MON group" "Operation not permitted" "$(errtext mkdir "$MNT/a/mon_groups/w/x")"
check "mkdir w again" "File exists" "$(errtext mkdir "$MNT/a/mon_groups/w")"
check "a control group called mon_groups" "File exists" "$(errtext mkdir "$MNT/mon_groups")"
# RMIDs 0 (root), 1 (a), 2 (w): one left
check "mkdir root MON group" "" "$(errtext mkdir "$MNT/mon_groups/r")"
check "mkdir b: no RMID" "No space left on device" "$(errtext mkdir "$MNT/b")"
check_file "$MNT/info/last_cmd_status" "Out of RMIDs"
check "b not made" "No such file or directory" "$(errtext ls "$MNT/b")"
check "mkdir a/mon_groups/v: no RMID" "No space left on device" \
	"$(errtext mkdir "$MNT/a/mon_groups/v")"
check "rmdir r" "" "$(errtext rmdir "$MNT/mon_groups/r")"
check "mkdir b" "" "$(errtext mkdir "$MNT/b")"

# tasks: a MON group takes only tasks of its control group
sleep 60 &
T=$!
bad_write "task to w from root" "$MNT/a/mon_groups/w/tasks" "$T" "Invalid argument" \
	"Can't move task to different control group${NL}Error while processing task $T"
ok_write "task to a" "$MNT/a/tasks" "$T"
ok_write "task to w" "$MNT/a/mon_groups/w/tasks" "$T"
check_file "$MNT/a/mon_groups/w/tasks" "$T"
# the control group lists its MON groups' tasks too
check_file "$MNT/a/tasks" "$T"
ok_write "task back to a's own RMID" "$MNT/a/tasks" "$T"
check "w empty" "" "$(cat "$MNT/a/mon_groups/w/tasks")"
ok_write "task to w again" "$MNT/a/mon_groups/w/tasks" "$T"

# CPUs: a subset of the parent's; a control group that loses one takes it from its MON groups
bad_write "CPU not a's" "$MNT/a/mon_groups/w/cpus_list" "1" "Invalid argument" \
	"Can only assign subset of parent's CPUs"
ok_write "CPUs 1-2 to a" "$MNT/a/cpus_list" "1-2"
ok_write "CPU 1 to w" "$MNT/a/mon_groups/w/cpus_list" "1"
check_file "$MNT/a/mon_groups/w/cpus_list" "1"
ok_write "a keeps only CPU 2" "$MNT/a/cpus_list" "2"
check_file "$MNT/a/mon_groups/w/cpus_list" ""

# counters: planted in the state file while the emulator is stopped
stop_fs
python3 - "$ST" <<'EOF'
import json, sys
st = json.load(open(sys.argv[1]))
rmid = {g["name"]: g["rmid"] for g in st["groups"]}
rmid.update({"a/" + m["name"]: m["rmid"] for m in st["mon_groups"]})
st["counters"] = [
    {"rmid": 0, "cache_id": 0, "event": "llc_occupancy", "value": 4096},
    {"rmid": rmid["a"], "cache_id": 0, "event": "llc_occupancy", "value": 1000},
    {"rmid": rmid["a/w"], "cache_id": 0, "event": "llc_occupancy", "value": 500},
    {"rmid": rmid["a"], "cache_id": 1, "event": "mbm_total_bytes", "value": 7},
    {"rmid": rmid["a/w"], "cache_id": 1, "event": "mbm_total_bytes", "value": "Error"},
    {"rmid": rmid["b"], "cache_id": 0, "event": "llc_occupancy", "value": "Unassigned"},
]
json.dump(st, open(sys.argv[1], "w"))
EOF
start_fs --machine "$M" --state "$ST"
check_file "$MNT/mon_data/mon_L3_00/llc_occupancy" "4096"
check_file "$MNT/a/mon_groups/w/mon_data/mon_L3_00/llc_occupancy" "500"
# a control group: its own RMID and its MON groups'
check_file "$MNT/a/mon_data/mon_L3_00/llc_occupancy" "1500"
check_file "$MNT/a/mon_data/mon_L3_01/mbm_total_bytes" "Error"
check_file "$MNT/a/mon_groups/w/mon_data/mon_L3_01/mbm_total_bytes" "Error"
check_file "$MNT/b/mon_data/mon_L3_00/llc_occupancy" "Unassigned"
check_file "$MNT/b/mon_data/mon_L3_01/llc_occupancy" "Unavailable"
# the placement survived the restart
check_file "$MNT/a/mon_groups/w/tasks" "$T"
# removing a MON group: its tasks go to the parent's own RMID, its RMID is free
check "rmdir w" "" "$(errtext rmdir "$MNT/a/mon_groups/w")"
check_file "$MNT/a/tasks" "$T"
check_file "$MNT/a/mon_data/mon_L3_00/llc_occupancy" "1000"
check "mkdir a/mon_groups/v" "" "$(errtext mkdir "$MNT/a/mon_groups/v")"
check_file "$MNT/a/mon_groups/v/mon_data/mon_L3_00/llc_occupancy" "Unavailable"
# removing a control group removes its MON groups and frees their RMIDs
check "rmdir a" "" "$(errtext rmdir "$MNT/a")"
check "mkdir c" "" "$(errtext mkdir "$MNT/c")"
check "mkdir c/mon_groups/x" "" "$(errtext mkdir "$MNT/c/mon_groups/x")"
stop_fs

# a planted counter of an RMID not in use is refused at start
python3 - "$ST" <<'EOF'
import json, sys
st = json.load(open(sys.argv[1]))
st["counters"].append({"rmid": 3, "cache_id": 9, "event": "llc_occupancy", "value": 1})
json.dump(st, open(sys.argv[1], "w"))
EOF
if "$BIN" "$MNT" --machine "$M" --state "$ST" 2>"$TMP/log"; then
	fail "a counter of a domain that does not exist was accepted"
	stop_fs
else
	check "bad counter" "rdtalloc-resctrlfs: state $ST: counter of rmid 3, cache_id 9, llc_occupancy: no such RMID in use, L3 domain or event" "$(cat "$TMP/log")"
fi
kill "$T" 2>/dev/null
finish
