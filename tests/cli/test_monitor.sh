# SPDX-License-Identifier: LGPL-2.1-or-later
# test_monitor: rdtctl monitor and sim load on the simulator - the JSON
# Lines shape exactly, the noisy neighbour made visible and a partition
# that helps, rates across two runs, Unavailable and Error as states, CSV,
# the Prometheus format through promtool, info's monitoring member, the
# usage errors, and that a monitor of a missing state creates nothing.
. "$(dirname "$0")/lib.sh"
need_python

# 20 MiB L3 of 10 ways per socket; 8 RMIDs counting 64 bytes; MB in percent
MACHINE="topology=package:2 l3:1(size=20MiB) core:2 pu:1;l3.cbm_len=10;tasks=virtual;mon.rmids=8;mon.scale=64;mon.width=44;mb.closids=8"

# ---- info -----------------------------------------------------------------------
ok "-j info" -j info
json "info's monitoring member" 'd["monitoring"]["rmids"], d["monitoring"]["scale"], d["monitoring"]["width"], d["monitoring"]["events"]' \
	'[8, 64, 44, ["llc_occupancy", "mbm_total_bytes", "mbm_local_bytes"]]'
run_raw --backend sim --state-dir "$TMP/none" --machine "topology=package:2 l3:1 core:2 pu:1;mon.rmids=0" -j info
json "no monitoring: null" 'd["monitoring"]' 'null'
run_raw -j info --cpuid "$(dirname "$0")/../data/cpuid/intel-xeon-8160-skylake-sp.txt"
json "the 8160's CPUID 0xF" 'd["monitoring"]' \
	'{"events": ["llc_occupancy", "mbm_total_bytes", "mbm_local_bytes"], "rmids": 192, "scale": 98304, "width": 24}'

# ---- a monitor that finds no state creates none ------------------------------------
run_raw --backend sim --state-dir "$TMP/fresh" --machine "$MACHINE" -j monitor --count 1
expect_rc 0 "monitor without a state"
if [ ! -e "$TMP/fresh/state.json" ]; then pass; else fail "monitor created a state"; fi

# ---- the JSON Lines shape -------------------------------------------------------------
ok "group db" group create db
ok "group stream" group create stream
ok "load db" sim load db --footprint 12M --rate 1G --domain 0
expect_out "sim load says what it set" \
	"group db: footprint 12582912 bytes, 1073741824 bytes/s, 100% local, one L3 domain"
ok "load stream" sim load stream --footprint 4GiB --rate 10GB/s --local 50 --domain 0
ok "-j monitor --count 2" -j monitor --count 2 --interval 0.2
n=$(printf '%s\n' "$OUT" | wc -l)
if [ "$n" -eq 2 ]; then pass; else fail "two samples, one line each: got $n lines"; fi
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "the top-level keys" 'sorted(d)' '["groups", "interval", "time"]'
json "the group keys" 'sorted(d["groups"][0])' '["domains", "group", "rmid"]'
json "the domain keys" 'sorted(d["groups"][0]["domains"][0])' \
	'["cache_id", "llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "state"]'
json "groups in creation order, with their RMIDs" '[(g["group"], g["rmid"]) for g in d["groups"]]' \
	'[["default", 0], ["db", 1], ["stream", 2]]'
json "interval" 'd["interval"]' '0.2'
# every way shared, by rate: db gets 2^30 / (2^30 + 10^10) of 20 MiB (64-byte units)
json "db's occupancy, shared ways" 'd["groups"][1]["domains"][0]["llc_occupancy_bytes"]' \
	"$(python3 -c 'print(int(20 * 2**20 * 2**30 / (2**30 + 10**10)) // 64 * 64)')"
# misses: db's rate times the share of its footprint it does not hold; the
# streamer misses nearly everything (20 MiB of 4 GiB cached)
json "db's traffic" 'round(d["groups"][1]["domains"][0]["mbm_total_bytes_per_second"] / 1e9, 2)' \
	"$(python3 -c 'print(round(2**30 * (1 - 2033408 / (12 * 2**20)) / 1e9, 2))')"
json "the stream's traffic" 'round(d["groups"][2]["domains"][0]["mbm_total_bytes_per_second"] / 1e9, 1)' '10.0'
json "half of the stream's is local" \
	'round(d["groups"][2]["domains"][0]["mbm_local_bytes_per_second"] / d["groups"][2]["domains"][0]["mbm_total_bytes_per_second"], 3)' '0.5'
json "domain 1 idle" 'd["groups"][2]["domains"][1]["mbm_total_bytes_per_second"]' '0.0'
BEFORE=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][1]["domains"][0]["llc_occupancy_bytes"])')

# ---- a partition helps the victim ----------------------------------------------------
ok "squeeze the streamer" schema set stream 'L3:0=3'
ok "monitor db" -j monitor db --count 2 --interval 0.1
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "only db" '[g["group"] for g in d["groups"]]' '["db"]'
json "db holds its whole footprint now" 'd["groups"][0]["domains"][0]["llc_occupancy_bytes"]' "$((12 * 1048576))"
json "and misses nothing" 'd["groups"][0]["domains"][0]["mbm_total_bytes_per_second"]' '0.0'
AFTER=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][0]["domains"][0]["llc_occupancy_bytes"])')
if [ "$AFTER" -gt "$BEFORE" ]; then pass; else fail "occupancy did not rise: $BEFORE -> $AFTER"; fi
# a throttled streamer: MB 10% of the 20 GB/s bus
ok "throttle" schema set stream 'MB:0=10'
ok "monitor stream" -j monitor stream --count 2 --interval 0.1 --domain 0
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "MB caps the stream at 2 GB/s" 'round(d["groups"][0]["domains"][0]["mbm_total_bytes_per_second"] / 1e9, 2)' '2.0'
json "--domain 0: one domain" 'len(d["groups"][0]["domains"])' '1'

# ---- rates across runs: the running totals continue -----------------------------------
ok "a first run" -j monitor stream --count 1
T1=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][0]["domains"][0]["mbm_total_bytes"])')
ok "a second run" -j monitor stream --count 1
json "the second run has a rate at once, no wrap, no step back" \
	'd["groups"][0]["domains"][0]["mbm_total_bytes"] >= '"$T1"' and round(d["groups"][0]["domains"][0]["mbm_total_bytes_per_second"] / 1e9, 1) == 2.0' 'true'

# ---- states, not numbers --------------------------------------------------------------
ok "a fresh group" group create fresh
ok "unavailable" sim load fresh --footprint 1M --rate 1M --fault unavailable --domain 0
ok "error" sim load fresh --footprint 1M --rate 1M --fault error --domain 1
ok "monitor fresh" -j monitor fresh --count 1
json "Unavailable and Error are states with null values" \
	'[(x["state"], x["llc_occupancy_bytes"], x["mbm_total_bytes"]) for x in d["groups"][0]["domains"]]' \
	'[["unavailable", null, null], ["error", null, null]]'
ok "unload" sim unload fresh
ok "monitor fresh again" -j monitor fresh --count 1
json "ok again" '[x["state"] for x in d["groups"][0]["domains"]]' '["ok", "ok"]'

# ---- out of RMIDs: said, never someone else's number ------------------------------------
for i in 4 5 6 7 8; do rdt group create "g$i" >/dev/null 2>&1; done
ok "monitor the ninth group" -j monitor g8 --count 1
json "no RMID: null, unsupported" '(d["groups"][0]["rmid"], d["groups"][0]["domains"][0]["state"], d["groups"][0]["domains"][0]["llc_occupancy_bytes"])' \
	'[null, "unsupported", null]'
ok "group show g8" group show g8
expect_out_has "group show says so" "  rmid:    none: out of RMIDs, its traffic counts with the default group's"
ok "monitor table" monitor g8 --count 1
expect_out_contains "the table says so" "(counted with default: out of RMIDs)"

# ---- CSV -------------------------------------------------------------------------------
ok "csv" monitor db stream --count 1 --format csv --sort occupancy
expect_out_contains "csv header" "time,group,rmid,cache_id,state,llc_occupancy_bytes,mbm_total_bytes,mbm_local_bytes,mbm_total_bytes_per_second,mbm_local_bytes_per_second,mbm_remote_bytes_per_second"
n=$(printf '%s\n' "$OUT" | wc -l)
if [ "$n" -eq 5 ]; then pass; else fail "csv: a header and 4 rows, got $n lines"; fi
row=$(printf '%s\n' "$OUT" | sed -n 2p | cut -d, -f2-6)
if [ "$row" = "db,1,0,ok,12582912" ]; then pass; else fail "csv: sorted by occupancy, db first: '$row'"; fi

# ---- Prometheus --------------------------------------------------------------------------
ok "prometheus" monitor --count 1 --format prometheus
expect_out_has "a gauge" "# TYPE rdtalloc_llc_occupancy_bytes gauge"
expect_out_has "a counter" "# TYPE rdtalloc_mbm_total_bytes_total counter"
expect_out_has "db's occupancy" "rdtalloc_llc_occupancy_bytes{group=\"db\",cache_id=\"0\"} 12582912"
if command -v promtool >/dev/null 2>&1; then
	if printf '%s\n' "$OUT" | promtool check metrics >"$TMP/prom" 2>&1; then pass; else
		fail "promtool check metrics: $(cat "$TMP/prom")"; fi
elif [ -n "${RDTALLOC_TEST_STRICT:-}" ]; then
	fail "promtool is missing (Debian package prometheus; scripts/deps.sh installs it)"
fi
# one exposition a sample: on stdout one (the default count), a file replaced by each
ok "prometheus: one sample by default" monitor --format prometheus
n=$(printf '%s\n' "$OUT" | grep -c '^# HELP rdtalloc_llc_occupancy_bytes ')
if [ "$n" -eq 1 ]; then pass; else fail "prometheus: $n HELP lines of a family, wanted 1"; fi
usage "prometheus: a stream of samples" "--format prometheus --count 2: one exposition holds one sample; give --output FILE (each sample replaces it, as node_exporter's textfile collector reads it)" \
	monitor --format prometheus --count 2
usage "--output without prometheus" "--output $TMP/m.prom: only for --format prometheus (the others are streams: redirect them)" \
	monitor --output "$TMP/m.prom"
ok "prometheus: three samples into a file" monitor --format prometheus --count 3 --interval 0.01 --output "$TMP/m.prom"
expect_out "nothing on stdout" ""
n=$(grep -c '^# HELP rdtalloc_llc_occupancy_bytes ' "$TMP/m.prom")
if [ "$n" -eq 1 ]; then pass; else fail "prometheus file: $n HELP lines of a family, wanted 1"; fi
if ls "$TMP" | grep -q 'm.prom.tmp'; then fail "a temporary file was left"; else pass; fi
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <"$TMP/m.prom" >"$TMP/prom" 2>&1; then pass; else
		fail "promtool check metrics of the file: $(cat "$TMP/prom")"; fi
fi

# a damaged counters.json: kept aside, the totals restart, and the user is told
if [ -f "$STATE/counters.json" ]; then pass; else fail "no counters.json beside the state"; fi
printf '{"id": "x", "counters": ' >"$STATE/counters.json"
run monitor --count 1
expect_rc 0 "monitor over a damaged counters.json"
expect_err_has "the damage said" "rdtctl: warning: the running totals in $STATE/counters.json could not be read (it ends early): kept aside as .damaged; the totals start again from this reading"
if [ -f "$STATE/counters.json.damaged" ] && [ -f "$STATE/counters.json" ]; then pass; else
	fail "the damaged totals were not kept aside, or no new ones written"; fi
run monitor --count 1
case $ERR in *warning*) fail "the warning repeats: $ERR" ;; *) pass ;; esac

# ---- usage errors and bad input change nothing -------------------------------------------
snapshot "$TMP/before"
usage "interval" "--interval 0: seconds, 0.01 to 86400" monitor --interval 0
usage "count" "--count -1: a number of samples, 1 to 1000000000" monitor --count -1
usage "sort" "--sort size: occupancy, total or local" monitor --sort size
usage "format" "--format xml: table, csv or prometheus (-j: JSON Lines)" monitor --format xml
jfails 2 "format and -j" "--format csv and -j: choose one" EINVAL monitor --format csv
failure "unknown group" "no group named 'nope'" monitor nope --count 1
failure "unknown domain" "--domain 7: no such L3 cache id (rdtctl info)" monitor --domain 7 --count 1
usage "footprint" "--footprint 12Q: give bytes, e.g. 40M or 1.5GiB (at most 1 PiB)" sim load db --footprint 12Q --rate 1G
usage "rate" "--rate fast: give bytes per second, e.g. 2G or 500MB/s (at most 1 PB/s)" sim load db --footprint 1M --rate fast
usage "huge" "--footprint 2P: give bytes, e.g. 40M or 1.5GiB (at most 1 PiB)" sim load db --footprint 2P --rate 1G
usage "local" "--local 101: a percentage, 0 to 100" sim load db --footprint 1M --rate 1G --local 101
usage "fault" "--fault maybe: 'unavailable' or 'error'" sim load db --footprint 1M --rate 1G --fault maybe
usage "load needs both" "sim load needs --footprint and --rate: usage: rdtctl sim load GROUP --footprint SIZE --rate SIZE/s [--local PCT] [--domain ID] [--fault unavailable|error]" sim load db --rate 1G
failure "load of no group" "no group named 'nope'" sim load nope --footprint 1M --rate 1G
failure "load of no domain" "no L3 cache id 9 on this machine" sim load db --footprint 1M --rate 1G --domain 9
unchanged "bad input changed nothing" "$TMP/before"

finish
