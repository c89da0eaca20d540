# SPDX-License-Identifier: LGPL-2.1-or-later
# perf_pkg: Intel AET telemetry through resctrl's PERF_PKG resource (Linux
# 7.0, intel-cwf): info/PERF_PKG_MON, mon_data/mon_PERF_PKG_<package>/ in
# every group, energy and activity printed with 6 decimals from 18 binary
# ones, the perf events as counts, a control group summing its MON groups,
# and the RMIDs limited by the lesser of L3's and PERF_PKG's.
. "$(dirname "$0")/lib.sh"

NL='
'
M="preset=intel-cwf;topology=package:2 l3:1 core:2 pu:1"
ST=$TMP/state.json
start_fs --machine "$M" --state "$ST"
check "info" "L3 L3_MON PERF_PKG_MON last_cmd_status" "$(names "$MNT/info")"
check_file "$MNT/info/PERF_PKG_MON/num_rmids" "576"
check_file "$MNT/info/PERF_PKG_MON/mon_features" "core_energy${NL}activity${NL}stalls_llc_hit${NL}c1_res${NL}unhalted_core_cycles${NL}stalls_llc_miss${NL}c6_res${NL}unhalted_ref_cycles${NL}uops_retired"
check "mon_data" "mon_L3_00 mon_L3_01 mon_PERF_PKG_00 mon_PERF_PKG_01" "$(names "$MNT/mon_data")"
check "events" "activity c1_res c6_res core_energy stalls_llc_hit stalls_llc_miss unhalted_core_cycles unhalted_ref_cycles uops_retired" "$(names "$MNT/mon_data/mon_PERF_PKG_01")"
check_file "$MNT/mon_data/mon_PERF_PKG_00/core_energy" "0.000000"
check_file "$MNT/mon_data/mon_PERF_PKG_00/uops_retired" "0"
mkdir "$MNT/g"
mkdir "$MNT/g/mon_groups/m"
check_file "$MNT/g/mon_data/mon_PERF_PKG_00/core_energy" "Unavailable"
check_file "$MNT/g/mon_groups/m/mon_data/mon_PERF_PKG_01/c6_res" "Unavailable"
stop_fs
python3 - "$ST" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
g = [x for x in st["groups"] if x["name"] == "g"][0]["rmid"]
m = [x for x in st["mon_groups"] if x["name"] == "m"][0]["rmid"]
# 12.5 J and 0.25 J in fixed point with 18 fractional bits; 1 / 2^18 J
st["pkg_counters"] = [
    {"rmid": g, "package": 0, "event": "core_energy", "value": 12 * 262144 + 131072},
    {"rmid": m, "package": 0, "event": "core_energy", "value": 65536},
    {"rmid": g, "package": 1, "event": "activity", "value": 1},
    {"rmid": g, "package": 1, "event": "uops_retired", "value": 123456789},
    {"rmid": m, "package": 1, "event": "uops_retired", "value": "Error"},
    {"rmid": g, "package": 0, "event": "c1_res", "value": "Error"},
    {"rmid": m, "package": 0, "event": "c1_res", "value": "Unavailable"}]
json.dump(st, open(sys.argv[1], "w"))
PY
start_fs --machine "$M" --state "$ST"
check_file "$MNT/g/mon_groups/m/mon_data/mon_PERF_PKG_00/core_energy" "0.250000"
check_file "$MNT/g/mon_data/mon_PERF_PKG_00/core_energy" "12.750000"
check_file "$MNT/g/mon_data/mon_PERF_PKG_01/activity" "0.000004"
# a failed read of a child is dropped when any read of the group succeeds
check_file "$MNT/g/mon_data/mon_PERF_PKG_01/uops_retired" "123456789"
check_file "$MNT/g/mon_groups/m/mon_data/mon_PERF_PKG_01/uops_retired" "Error"
check_file "$MNT/g/mon_data/mon_PERF_PKG_00/c1_res" "Error"
stop_fs

# RMIDs: the lesser of L3's 1024 and PERF_PKG's 3 (2 groups beside the root)
start_fs --machine "$M;pkg.rmids=3"
check_file "$MNT/info/L3_MON/num_rmids" "1024"
check_file "$MNT/info/PERF_PKG_MON/num_rmids" "3"
mkdir "$MNT/a"
mkdir "$MNT/a/mon_groups/b"
check "third" "No space left on device" "$(errtext mkdir "$MNT/c")"
check_file "$MNT/info/last_cmd_status" "Out of RMIDs"
stop_fs
# energy only: the energy group's two files
start_fs --machine "$M;pkg.events=energy"
check_file "$MNT/info/PERF_PKG_MON/mon_features" "core_energy${NL}activity"
check "energy only" "activity core_energy" "$(names "$MNT/mon_data/mon_PERF_PKG_00")"
stop_fs
# no AET: no PERF_PKG anywhere
start_fs --machine "topology=package:2 l3:1 core:2 pu:1"
check "none" "" "$(ls "$MNT/info" "$MNT/mon_data" | grep PERF_PKG || true)"
stop_fs

finish
