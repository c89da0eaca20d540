# SPDX-License-Identifier: LGPL-2.1-or-later
# test_monitor_telemetry: Sub-NUMA Clustering and package telemetry
# (PERF_PKG) through rdtctl - info's RMIDs as the kernel divides them,
# monitor's per-node rows and "nodes" members, the packages' energy (joules,
# watts), activity and perf events with Unavailable as a state, the
# Prometheus families through promtool - on the simulator with exact values
# (a replay of known cold misses makes every count known), then on the
# resctrl emulator with the presets intel-gnr-snc3 and intel-cwf, values
# planted in its state, and the agent's /metrics.
. "$(dirname "$0")/lib.sh"
need_python

# TRACE N FILE: a lackey trace of N distinct 64-byte lines (N cold misses)
trace()
{
	python3 - "$1" "$2" <<'PY'
import sys
with open(sys.argv[2], "w") as f:
    for i in range(int(sys.argv[1])):
        f.write(" L %x,8\n" % (0x100000 + i * 64))
PY
}

# promcheck DESC: stdout passes promtool check metrics
promcheck()
{
	printf '%s\n' "$OUT" >"$TMP/prom"
	if ! command -v promtool >/dev/null 2>&1; then
		fail "$1: promtool is missing (Debian package prometheus; scripts/deps.sh installs it)"
	elif promtool check metrics <"$TMP/prom" >"$TMP/promcheck" 2>&1; then pass; else
		fail "$1: promtool check metrics: $(cat "$TMP/promcheck")"; fi
}

# ---- SNC on the simulator --------------------------------------------------------
# 15 ways of 1 MiB per L3; SNC-3: nodes 0-2 share L3 0, nodes 3-5 L3 1
MACHINE="preset=intel-gnr-snc3;topology=package:2 l3:1(size=15MiB) core:3 pu:1;tasks=virtual"
ok "-j info" -j info
json "the RMIDs divided by the nodes" 'd["monitoring"]["rmids"], d["monitoring"]["scale"], d["monitoring"]["snc"]' \
	'[170, 35498, {"hw_rmids": 512, "nodes": 3}]'
ok "info" info
expect_out_has "info's SNC line" "  Sub-NUMA Clustering: 3 nodes per L3 domain, counted apart; the 512 RMIDs of the hardware divided by them, as the kernel does"
ok "group db" group create db
# 100400 lines: 6425600 bytes, 181 counts of 35498 bytes: 61, 60, 60 per node
trace 100400 "$TMP/snc.trace"
ok "replay" sim replay --domain 0 "db=$TMP/snc.trace"
ok "-j monitor" -j monitor --count 1 db
json "L3 0: the domain and its nodes" '[(x["cache_id"], x["llc_occupancy_bytes"], x["mbm_total_bytes"]) for x in d["groups"][0]["domains"]]' \
	'[[0, 6425138, 6425138], [1, 0, 0]]'
json "the nodes of L3 0 sum to it" '[[n["node"], n["state"], n["llc_occupancy_bytes"], n["mbm_total_bytes"], n["mbm_local_bytes"]] for n in d["groups"][0]["domains"][0]["nodes"]]' \
	'[[0, "ok", 2165378, 2165378, 2165378], [1, "ok", 2129880, 2129880, 2129880], [2, "ok", 2129880, 2129880, 2129880]]'
json "L3 1's nodes" '[n["node"] for n in d["groups"][0]["domains"][1]["nodes"]]' '[3, 4, 5]'
json "a node's keys" 'sorted(d["groups"][0]["domains"][0]["nodes"][0])' \
	'["llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "node", "state"]'
json "no rate in a first sample" 'd["groups"][0]["domains"][0]["nodes"][0]["mbm_total_bytes_per_second"]' 'null'
# a second sample: the replay made no traffic since, so 0 bytes/s
ok "-j monitor, two samples" -j monitor --count 2 --interval 0.1 --domain 0 db
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "--domain 0: its nodes only, rates of the second sample" '[(n["node"], n["mbm_total_bytes_per_second"]) for x in d["groups"][0]["domains"] for n in x["nodes"]]' \
	'[[0, 0.0], [1, 0.0], [2, 0.0]]'
ok "monitor" monitor --count 1 --domain 0 db
# the domain's rates come from the last reading of any run (counters.json), a node's
# from this run's previous sample: none in a first one
expect_out_has "the domain row" "db                       1      0       6274.5          0.0          0.0          0.0  ok"
expect_out_has "node 0's row" "  node 0                                2114.6          ...          ...          ...  ok"
expect_out_has "node 2's row" "  node 2                                2080.0          ...          ...          ...  ok"
ok "prometheus" monitor --format prometheus db
promcheck "the nodes' exposition"
expect_out_has "node 0's occupancy" 'rdtalloc_node_llc_occupancy_bytes{group="db",cache_id="0",node="0"} 2165378'
expect_out_has "node 1's traffic" 'rdtalloc_node_mbm_total_bytes_total{group="db",cache_id="0",node="1"} 2129880'
expect_out_has "node 5's local traffic" 'rdtalloc_node_mbm_local_bytes_total{group="db",cache_id="1",node="5"} 0'
ok "fault" sim load db --footprint 1M --rate 1M --fault error --domain 0
ok "-j monitor, a fault" -j monitor --count 1 db
json "a node in error: a state, no numbers" '[(n["state"], n["llc_occupancy_bytes"]) for n in d["groups"][0]["domains"][0]["nodes"]]' \
	'[["error", null], ["error", null], ["error", null]]'
# no SNC: no "nodes" member, no node family
MACHINE=$MACHINE_VIRT
STATE=$TMP/plain
mkdir -m 700 "$STATE"
ok "-j monitor without SNC" -j monitor --count 1
json "no nodes member" '"nodes" in d["groups"][0]["domains"][0]' 'false'
json "no snc in info" '"snc" in d' 'false'
ok "-j info without SNC" -j info
json "no snc in info" '"snc" in d["monitoring"] or "package_telemetry" in d["monitoring"]' 'false'

# ---- PERF_PKG on the simulator -----------------------------------------------------
MACHINE="preset=intel-cwf;topology=package:2 l3:1(size=12MiB) core:2 pu:1;tasks=virtual"
STATE=$TMP/cwf
mkdir -m 700 "$STATE"
ok "-j info, cwf" -j info
json "info's package telemetry" 'd["monitoring"]["package_telemetry"]' \
	'{"events": ["core_energy", "activity", "stalls_llc_hit", "c1_res", "unhalted_core_cycles", "stalls_llc_miss", "c6_res", "unhalted_ref_cycles", "uops_retired"], "packages": 2, "rmids": 576}'
ok "group db" group create db
ok "group idle" group create idle
# 100000 missed lines: 6400000 bytes at 1 nJ a byte = 0.0064 J, / 0.64 V^2 = 0.01 F
trace 100000 "$TMP/cwf.trace"
ok "replay" sim replay --domain 0 "db=$TMP/cwf.trace"
ok "-j monitor, two samples" -j monitor --count 2 --interval 0.1 db idle
FIRST=$(printf '%s\n' "$OUT" | head -1)
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "db in package 0" 'd["groups"][0]["packages"][0]["package"], d["groups"][0]["packages"][0]["core_energy"], d["groups"][0]["packages"][0]["activity"], d["groups"][0]["packages"][0]["stalls_llc_miss"]' \
	'[0, {"joules": 0.0064, "state": "ok", "watts": 0.0}, {"farads": 0.01, "state": "ok"}, {"count": 100000, "per_second": 0.0, "state": "ok"}]'
json "what the model does not count" 'd["groups"][0]["packages"][0]["uops_retired"]' \
	'{"count": null, "per_second": null, "state": "unsupported"}'
json "no traffic in package 1: Unavailable, not 0" 'd["groups"][0]["packages"][1]["core_energy"]' \
	'{"joules": null, "state": "unavailable", "watts": null}'
json "idle everywhere" '[p["activity"]["state"] for p in d["groups"][1]["packages"]]' '["unavailable", "unavailable"]'
OUT=$FIRST
json "the first sample: no watts yet" 'd["groups"][0]["packages"][0]["core_energy"]["watts"]' 'null'
if printf '%s' "$FIRST" | grep -q '"joules":0.006400,'; then pass; else
	fail "joules are written with their 6 decimals: $FIRST"; fi
ok "monitor" monitor --count 1 db
expect_out_has "the package table" "GROUP                 RMID PACKAGE       ENERGY J    POWER W     ACTIVITY F  STATE"
expect_out_has "db's energy" "db                       1       0       0.006400        ...       0.010000  ok"
expect_out_has "its perf events" "    stalls_llc_miss=100000"
expect_out_has "Unavailable as a state" "db                       1       1              -          -              -  unavailable"
ok "prometheus" monitor --format prometheus
promcheck "the telemetry's exposition"
expect_out_has "energy in joules" 'rdtalloc_group_core_energy_joules_total{group="db",package="0"} 0.006400'
expect_out_has "activity in farads" 'rdtalloc_group_activity_farads_total{group="db",package="0"} 0.010000'
expect_out_has "a perf event" 'rdtalloc_group_stalls_llc_miss_total{group="db",package="0"} 100000'
expect_out_has "the counter's type" '# TYPE rdtalloc_group_core_energy_joules_total counter'
expect_out_has "unavailable: no sample, ok 0" 'rdtalloc_group_package_event_ok{group="idle",package="0",event="core_energy"} 0'
if printf '%s\n' "$OUT" | grep -q 'rdtalloc_group_core_energy_joules_total{group="idle"'; then
	fail "an unavailable value became a sample"; else pass; fi
# the RMIDs: the lesser of L3's and PERF_PKG's (3: the default, a, b)
MACHINE="$MACHINE;pkg.rmids=3"
STATE=$TMP/few
mkdir -m 700 "$STATE"
ok "group a" group create a
ok "group b" group create b
ok "group c" group create c
ok "-j monitor c" -j monitor --count 1 c
json "c has no RMID: unsupported, counted with the default group" '[d["groups"][0]["rmid"], d["groups"][0]["packages"][0]["core_energy"]["state"]]' '[null, "unsupported"]'

# ---- the resctrl emulator ---------------------------------------------------------------
FS=${RDTALLOC_TEST_RESCTRLFS:-}
if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ]; then
	skip_part "the resctrl emulator needs root and /dev/fuse"
	finish
fi
if [ -z "$FS" ] || [ ! -x "$FS" ]; then
	fail "RDTALLOC_TEST_RESCTRLFS is not the emulator ('$FS')"
	finish
fi
MNT=$TMP/resctrl
FSPID=
APID=
mounted() { grep -q " $MNT fuse.resctrl " /proc/mounts; }
fs_cleanup()
{
	[ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null
	if mounted; then fusermount3 -u -z "$MNT" 2>/dev/null; fi
	[ -n "$FSPID" ] && wait "$FSPID" 2>/dev/null
	FSPID=
}
CLEANUP=fs_cleanup
mkdir -p "$MNT"

# mount_fs MACHINE: the emulator on $MNT, its state in $TMP/fs.json
mount_fs()
{
	"$FS" "$MNT" -f --machine "$1" --state "$TMP/fs.json" 2>"$TMP/fs.log" &
	FSPID=$!
	i=0
	while ! mounted; do
		i=$((i + 1))
		if [ $i -gt 1200 ] || ! kill -0 "$FSPID" 2>/dev/null; then
			echo "FATAL: the emulator did not mount: $(cat "$TMP/fs.log")" >&2
			exit 1
		fi
		sleep 0.05
	done
}

# plant PYTHON: edit the emulator's state (st) while it is unmounted
plant()
{
	fs_cleanup
	python3 - "$TMP/fs.json" "$1" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
def rmid(name):
    return [x for x in st["mon_groups"] if x["name"] == name][0]["rmid"]
exec(sys.argv[2])
json.dump(st, open(sys.argv[1], "w"))
PY
	[ $? -eq 0 ] && pass || fail "planting the emulator's counters"
}

rc() { run_raw --backend resctrl --resctrl-root "$MNT" --machine "$FSM" --state-dir "$STATE" "$@"; }

# SNC-3: L3 0 holds nodes 0-2, L3 1 nodes 3-5; the emulator counts per node
FSM="preset=intel-gnr-snc3;topology=package:2 l3:1 core:3 pu:1"
STATE=$TMP/rc-snc
mkdir -m 700 "$STATE"
mount_fs "$FSM"
rc -j info
expect_rc 0 "info on the emulator"
json "the kernel's num_rmids, and the nodes found" 'd["monitoring"]["rmids"], d["monitoring"]["snc"]' \
	'[170, {"hw_rmids": 510, "nodes": 3}]'
rc group create db
expect_rc 0 "group db"
# another tool's MON group in the root: the default group is the root less it (where
# it has no number yet, neither has the default group)
mkdir "$MNT/mon_groups/other" && pass || fail "mkdir another tool's MON group"
# db's MON group: node 0 100 bytes and 5000 of traffic, node 1 23, node 2 Error,
# node 3's total Error, the rest never counted (Unavailable); the root's own
# RMID 1000 bytes in node 0
plant 'c = st["counters"]
c += [{"rmid": rmid("db"), "cache_id": 0, "event": "llc_occupancy", "value": 100},
      {"rmid": rmid("db"), "cache_id": 1, "event": "llc_occupancy", "value": 23},
      {"rmid": rmid("db"), "cache_id": 2, "event": "llc_occupancy", "value": "Error"},
      {"rmid": rmid("db"), "cache_id": 0, "event": "mbm_total_bytes", "value": 5000},
      {"rmid": rmid("db"), "cache_id": 3, "event": "mbm_total_bytes", "value": "Error"},
      {"rmid": rmid("other"), "cache_id": 0, "event": "llc_occupancy", "value": 300},
      {"rmid": rmid("other"), "cache_id": 2, "event": "llc_occupancy", "value": "Error"},
      {"rmid": 0, "cache_id": 0, "event": "llc_occupancy", "value": 1000}]'
mount_fs "$FSM"
rc -j monitor --count 1
expect_rc 0 "monitor on the emulator"
json "db in L3 0: the kernel's sum of the nodes that read" '[d["groups"][1]["group"], d["groups"][1]["domains"][0]["llc_occupancy_bytes"]]' '["db", 123]'
json "db's nodes in L3 0" '[[n["node"], n["state"], n["llc_occupancy_bytes"], n["mbm_total_bytes"]] for n in d["groups"][1]["domains"][0]["nodes"]]' \
	'[[0, "unavailable", 100, 5000], [1, "unavailable", 23, null], [2, "error", null, null]]'
json "other's MON group is not ours: not shown" '[g["group"] for g in d["groups"]]' '["default", "db"]'
json "db's nodes in L3 1" '[[n["node"], n["state"], n["mbm_total_bytes"]] for n in d["groups"][1]["domains"][1]["nodes"]]' \
	'[[3, "error", null], [4, "unavailable", null], [5, "unavailable", null]]'
check_root() { [ "$(cat "$MNT/mon_data/mon_L3_00/mon_sub_L3_00/llc_occupancy")" = 1300 ]; }
check_root && pass || fail "the root's node 0 sums its own RMID and other's"
json "the default group: the root less its MON groups, per node" '[[n["node"], n["llc_occupancy_bytes"]] for n in d["groups"][0]["domains"][0]["nodes"]]' \
	'[[0, 1000], [1, null], [2, null]]'
# a state recorded before SNC was read (its machine without mon.snc, with the
# kernel's 170 RMIDs) opens as it was, without the nodes, when no --machine says otherwise
python3 - "$STATE/state.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
st["machine"] = st["machine"].replace(";mon.snc=3", "").replace("mon.rmids=510;", "mon.rmids=170;")
json.dump(st, open(sys.argv[1], "w"))
PY
run_raw --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE" -j info
expect_rc 0 "a state from before SNC was read opens"
json "as it was made: the kernel's RMIDs, no nodes" '[d["monitoring"]["rmids"], "snc" in d["monitoring"]]' '[170, false]'
fs_cleanup

# PERF_PKG: two packages, both event groups
FSM="preset=intel-cwf;topology=package:2 l3:1 core:2 pu:1"
STATE=$TMP/rc-cwf
mkdir -m 700 "$STATE"
rm -f "$TMP/fs.json"
mount_fs "$FSM"
rc -j info
expect_rc 0 "info on the emulator, cwf"
json "PERF_PKG found in info/" 'd["monitoring"]["package_telemetry"]["rmids"], len(d["monitoring"]["package_telemetry"]["events"])' '[576, 9]'
rc group create db
expect_rc 0 "group db"
rc group create idle
expect_rc 0 "group idle"
mkdir "$MNT/mon_groups/other" && pass || fail "mkdir another tool's MON group"
# 12.5 J and 0.25 J in fixed point of 18 fractional bits
plant 'st["pkg_counters"] = [
    {"rmid": rmid("db"), "package": 0, "event": "core_energy", "value": 12 * 262144 + 131072},
    {"rmid": rmid("db"), "package": 0, "event": "activity", "value": 65536},
    {"rmid": rmid("db"), "package": 1, "event": "uops_retired", "value": 123456789},
    {"rmid": rmid("db"), "package": 1, "event": "c1_res", "value": "Error"},
    {"rmid": rmid("other"), "package": 0, "event": "core_energy", "value": 262144},
    {"rmid": 0, "package": 0, "event": "core_energy", "value": 3 * 262144}]'
mount_fs "$FSM"
rc -j monitor --count 1
expect_rc 0 "monitor on the emulator, cwf"
json "db's energy and activity" '[d["groups"][1]["packages"][0]["core_energy"]["joules"], d["groups"][1]["packages"][0]["activity"]["farads"]]' '[12.5, 0.25]'
json "db's perf events in package 1" '[d["groups"][1]["packages"][1]["uops_retired"]["count"], d["groups"][1]["packages"][1]["c1_res"]["state"], d["groups"][1]["packages"][1]["c6_res"]["state"]]' \
	'[123456789, "error", "unavailable"]'
json "a fresh RMID: Unavailable" '[p["core_energy"]["state"] for p in d["groups"][2]["packages"]]' '["unavailable", "unavailable"]'
json "the default group: the root's less its MON groups" 'd["groups"][0]["packages"][0]["core_energy"]["joules"]' '3.0'
rc monitor --format prometheus
expect_rc 0 "prometheus on the emulator"
promcheck "the emulator's exposition"
expect_out_has "db's joules" 'rdtalloc_group_core_energy_joules_total{group="db",package="0"} 12.500000'
expect_out_has "db's uops" 'rdtalloc_group_uops_retired_total{group="db",package="1"} 123456789'
expect_out_has "an error is a 0 gauge" 'rdtalloc_group_package_event_ok{group="db",package="1",event="c1_res"} 0'

# the agent's /metrics: the same families
if [ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ]; then
	PORT=$(free_port)
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --machine "$FSM" --state-dir "$STATE" \
		agent --listen "127.0.0.1:$PORT" 2>>"$TMP/agent.log" &
	APID=$!
	i=0
	while [ ! -s "$STATE/agent.json" ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	OUT=$(python3 - "$PORT" 2>"$TMP/metrics.err" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode(), end="")
        break
    except OSError:
        time.sleep(0.1)
PY
)
	promcheck "the agent's /metrics"
	expect_out_has "the agent's joules" 'rdtalloc_group_core_energy_joules_total{group="db",package="0"} 12.500000'
	expect_out_has "the agent's farads" 'rdtalloc_group_activity_farads_total{group="db",package="0"} 0.250000'
	kill -TERM "$APID" 2>/dev/null
	wait "$APID" 2>/dev/null
	APID=
else
	skip_part "no rdtalloc-agent (a build without libmicrohttpd)"
fi

finish
