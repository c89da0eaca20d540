# SPDX-License-Identifier: LGPL-2.1-or-later
# test_monitor_turns: counters shared in turns on the simulator (mon.cntrs,
# mbm_event mode, AMD ABMC): info's counters, monitor turns / pin / unpin
# and their errors, the turns sample by sample (who is counted, who is
# unassigned), covered time and the rate over it in -j, the table, CSV and
# Prometheus, pins kept in the state, and no turns in default mode.
. "$(dirname "$0")/lib.sh"
need_python

# 6 counters per domain, both MBM events: the default group holds 2, so two of ours at a time
MACHINE="topology=package:2 l3:1 core:2 pu:1;tasks=virtual;mon.rmids=16;mon.scale=64;mon.width=44;mon.cntrs=6"

for g in a b c d; do
	ok "group $g" group create $g
	ok "load $g" sim load $g --footprint 1T --rate 100MB/s --domain 0
done

# ---- info and monitor turns ------------------------------------------------------------
ok "-j info" -j info
json "info's counters" 'd["monitoring"]["counters"]' \
	'{"counters": 0, "free": 4, "groups": 5, "mode": "mbm_event", "per_group": 2, "period_ms": 1000, "pinned": 0, "total": 6}'
ok "info" info
expect_out_has "info says the counters" \
	"  counters: mbm_event mode, 6 per L3 domain, 4 free; a group takes 2; our 5 monitored groups take turns of 1000 ms (0 pinned)"
ok "turns --period" monitor turns --period 0.1
expect_out "the period set" \
	"  counters: mbm_event mode, 6 per L3 domain, 4 free; a group takes 2; our 5 monitored groups take turns of 100 ms (0 pinned)"
usage "period too short" "--period 0.05: seconds, 0.1 to 3600 (or 'default')" monitor turns --period 0.05
usage "counters too many" "--counters 5000: counters per L3 domain, 0 (all free) to 4096" monitor turns --counters 5000
usage "turns takes no group" "unexpected argument 'a': usage: rdtctl monitor turns [--period SECONDS] [--counters N]" monitor turns a
failure "pin of no group" "no group named 'nosuch'" monitor pin nosuch
failure "pin of the default group" "group 'default' keeps the counters the kernel gave it at mount: nothing to pin" monitor pin default
ok "-j turns" -j monitor turns
json "nothing changed by the failures" 'd["counters"]["period_ms"], d["counters"]["pinned"], d["counters"]["counters"]' '[100, 0, 0]'

# ---- the turns, sample by sample ----------------------------------------------------------
mon_samples 4 && pass || fail "4 samples"
S=$(mon_states 0)
W="default:ok a:unassigned b:unassigned c:unassigned d:unassigned
default:ok a:ok b:ok c:unassigned d:unassigned
default:ok a:unassigned b:unassigned c:ok d:ok
default:ok a:ok b:ok c:unassigned d:unassigned"
if [ "$S" = "$W" ]; then pass; else fail "the turns: got
$S"; fi
PREV=$(printf '%s\n' "$OUT" | tail -2 | head -1)
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "the domain keys in mbm_event mode" 'sorted(d["groups"][1]["domains"][0])' \
	'["cache_id", "coverage", "covered_seconds", "extrapolated", "llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "pinned", "state"]'
# a was counted from its baseline (just after the last turn moved): nearly all of the interval
json "a's coverage" '0.9 < d["groups"][1]["domains"][0]["coverage"] < 1' 'true'
json "a's rate extrapolated" 'd["groups"][1]["domains"][0]["extrapolated"]' 'true'
json "a's rate: 100 MB/s over covered time" 'round(d["groups"][1]["domains"][0]["mbm_total_bytes_per_second"] / 1e6)' '100'
json "c unassigned: no rate, no coverage" \
	'[d["groups"][3]["domains"][0][k] for k in ("mbm_total_bytes", "mbm_total_bytes_per_second", "coverage")]' '[null, null, 0.0]'
C=$(printf '%s' "$PREV" | python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][3]["domains"][0]["covered_seconds"])')
# counted up to the read that ended its turn (a moment after the sample), then no more
json "covered time stands while unassigned" 'abs(d["groups"][3]["domains"][0]["covered_seconds"] - '"$C"') < 0.05' 'true'
json "c had its turn" 'd["groups"][3]["domains"][0]["covered_seconds"] > 0.25' 'true'
json "the default group: all the interval" 'd["groups"][0]["domains"][0]["coverage"], d["groups"][0]["domains"][0]["extrapolated"]' '[1.0, false]'

# ---- pins ----------------------------------------------------------------------------------
ok "pin d" monitor pin d
expect_out "pin says so" "group d: pinned: keeps its counters"
mon_samples 4 && pass || fail "4 samples with d pinned"
S=$(mon_states 0 | tail -3)
W="default:ok a:ok b:unassigned c:unassigned d:ok
default:ok a:unassigned b:ok c:unassigned d:ok
default:ok a:unassigned b:unassigned c:ok d:ok"
if [ "$S" = "$W" ]; then pass; else fail "d keeps its counters, a b c take turns: got
$S"; fi
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "d says it is pinned" 'd["groups"][4]["domains"][0]["pinned"], d["groups"][1]["domains"][0]["pinned"]' '[true, false]'
ok "-j turns" -j monitor turns
json "one pinned, kept in the state" 'd["counters"]["pinned"]' '1'
ok "unpin d" monitor unpin d
expect_out "unpin says so" "group d: unpinned: takes turns at the counters"
ok "pin d again" monitor pin d
ok "remove d" group remove d
ok "-j turns" -j monitor turns
json "a removed group loses its pin" 'd["counters"]["pinned"], d["counters"]["groups"]' '[0, 4]'

# ---- the table, CSV and Prometheus ----------------------------------------------------------
ok "monitor table" monitor --count 2 --interval 0.5
expect_out_contains "the table's covered column" "GROUP                 RMID DOMAIN    OCCUPANCY        TOTAL        LOCAL       REMOTE  COVERED  STATE"
expect_out_contains "an unassigned row" "     0.0%  unassigned"
ok "monitor csv" monitor --format csv --count 1
expect_out_has "csv header with coverage" "time,group,rmid,cache_id,state,llc_occupancy_bytes,mbm_total_bytes,mbm_local_bytes,mbm_total_bytes_per_second,mbm_local_bytes_per_second,mbm_remote_bytes_per_second,coverage,covered_seconds"
ok "monitor prometheus" monitor --format prometheus
expect_out_has "covered seconds family" "# TYPE rdtalloc_mbm_covered_seconds_total counter"
if printf '%s\n' "$OUT" | grep -q '^rdtalloc_mbm_covered_seconds_total{group="a",cache_id="0"} [0-9.]*$'; then pass; else
	fail "a's covered seconds"; fi
if command -v promtool >/dev/null 2>&1; then
	if printf '%s\n' "$OUT" | promtool check metrics >/dev/null 2>&1; then pass; else fail "promtool refused it"; fi
fi

# ---- default mode: every RMID counts, no turns, nothing added to the output -------------------
MACHINE="$MACHINE;mon.assign=default"
STATE=$TMP/default-mode
mkdir -m 700 "$STATE"
ok "group x" group create x
ok "-j info" -j info
json "default mode" 'd["monitoring"]["counters"]["mode"], d["monitoring"]["counters"]["free"]' '["default", null]'
ok "-j monitor" -j monitor --count 2 --interval 0.5
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "counted, no coverage keys" 'd["groups"][1]["domains"][0]["state"], sorted(d["groups"][1]["domains"][0])' \
	'["ok", ["cache_id", "llc_occupancy_bytes", "mbm_local_bytes", "mbm_local_bytes_per_second", "mbm_total_bytes", "mbm_total_bytes_per_second", "state"]]'

# ---- no assignable counters: turns says so -----------------------------------------------------
MACHINE="topology=package:2 l3:1 core:2 pu:1;tasks=virtual"
STATE=$TMP/plain
mkdir -m 700 "$STATE"
ok "turns without counters" monitor turns
expect_out "none" "counters: none assignable here (every RMID counts: no turns)"
ok "-j info" -j info
json "no counters member" '"counters" in d["monitoring"]' 'false'

finish
