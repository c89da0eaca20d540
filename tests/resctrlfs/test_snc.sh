# SPDX-License-Identifier: LGPL-2.1-or-later
# snc: Sub-NUMA Clustering (intel-gnr-snc3): L3 monitoring per node, in
# mon_data/mon_L3_<cache id>/mon_sub_L3_<node>/, the mon_L3 files the sum
# of their nodes (a value when any node reads one), num_rmids the
# hardware's divided by the nodes; allocation stays per L3.
. "$(dirname "$0")/lib.sh"

NL='
'
M="preset=intel-gnr-snc3;topology=package:2 l3:1 core:3 pu:1"
ST=$TMP/state.json
start_fs --machine "$M" --state "$ST"
check_file "$MNT/info/L3_MON/num_rmids" "170"
check_file "$MNT/info/L3_MON/mbm_assign_mode" "[default]"
check "mon_data" "mon_L3_00 mon_L3_01" "$(names "$MNT/mon_data")"
check "mon_L3_01" "llc_occupancy mbm_local_bytes mbm_total_bytes mon_sub_L3_03 mon_sub_L3_04 mon_sub_L3_05" "$(names "$MNT/mon_data/mon_L3_01")"
check "a node" "llc_occupancy mbm_local_bytes mbm_total_bytes" "$(names "$MNT/mon_data/mon_L3_00/mon_sub_L3_02")"
[ -d "$MNT/mon_data/mon_L3_00/mon_sub_L3_03" ] && fail "node 3 is under L3 1, not 0"
check_file "$MNT/schemata" "L3:0=7fff;1=7fff"
mkdir "$MNT/g"
mkdir "$MNT/g/mon_groups/m"
check_file "$MNT/g/mon_data/mon_L3_00/llc_occupancy" "Unavailable"
stop_fs
python3 - "$ST" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
g = [x for x in st["groups"] if x["name"] == "g"][0]["rmid"]
m = [x for x in st["mon_groups"] if x["name"] == "m"][0]["rmid"]
c = st["counters"]
c += [{"rmid": g, "cache_id": 0, "event": "llc_occupancy", "value": 100},
      {"rmid": g, "cache_id": 1, "event": "llc_occupancy", "value": 20},
      {"rmid": m, "cache_id": 0, "event": "llc_occupancy", "value": 0},
      {"rmid": m, "cache_id": 1, "event": "llc_occupancy", "value": 3},
      {"rmid": g, "cache_id": 2, "event": "llc_occupancy", "value": "Error"},
      {"rmid": g, "cache_id": 3, "event": "mbm_total_bytes", "value": "Error"}]
json.dump(st, open(sys.argv[1], "w"))
PY
start_fs --machine "$M" --state "$ST"
D=$MNT/g/mon_data
check_file "$D/mon_L3_00/mon_sub_L3_00/llc_occupancy" "100"
check_file "$D/mon_L3_00/mon_sub_L3_01/llc_occupancy" "23"
check_file "$D/mon_L3_00/mon_sub_L3_02/llc_occupancy" "Error"
check_file "$MNT/g/mon_groups/m/mon_data/mon_L3_00/mon_sub_L3_01/llc_occupancy" "3"
# the L3 file: the nodes that read a value
check_file "$D/mon_L3_00/llc_occupancy" "123"
check_file "$MNT/g/mon_groups/m/mon_data/mon_L3_00/llc_occupancy" "3"
# none does: Unavailable, whatever the nodes say
check_file "$D/mon_L3_01/mon_sub_L3_03/mbm_total_bytes" "Error"
check_file "$D/mon_L3_01/mbm_total_bytes" "Unavailable"
stop_fs

# mba_MBps needs MB and MBM at one scope: never under SNC
refused_start "mba_MBps under SNC" "rdtalloc-resctrlfs: --mba-mbps: mba_MBps requires MBM and linear scale MBA at L3 scope (give an Intel --mb)" --machine "$M;mb.closids=8" --mba-mbps

finish
