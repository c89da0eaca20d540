# SPDX-License-Identifier: LGPL-2.1-or-later
# test_plan: the cache model end to end through rdtctl. Synthetic lackey
# traces (two loops and a stream) on a 1 MiB, 16-way L3 (1024 sets):
# profile --trace gives each trace's curve (-j: exactly sets, ways,
# accesses, miss_ratio), plan picks ways from the curves, its
# configuration applies, and by replay (sim replay -j) its total misses
# are no more than an even split's and no more than sharing every way's,
# and its predicted miss ratios are within 2 points of the replay's.
# Malformed traces and curves are refused with messages that name them.
. "$(dirname "$0")/lib.sh"
need_python

MACHINE="topology=package:1 l3:1(size=1MiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual;mon.scale=64"
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
def loop(name, kib, reps, base):
    with open(f"{d}/{name}.trace", "w") as f:
        for _ in range(reps):
            for a in range(0, kib * 1024, 64):
                f.write(" L %x,8\n" % (base + a))
loop("db", 600, 12, 0x10000000)
loop("web", 200, 30, 0x20000000)
with open(f"{d}/stream.trace", "w") as f:
    for a in range(0, 120000 * 64, 64):
        f.write(" S %x,8\n" % (0x40000000 + a))
PY
for g in db web stream; do
	run -j profile --trace "$TMP/$g.trace"
	expect_rc 0 "profile $g"
	printf '%s' "$OUT" >"$TMP/$g.curve"
done
json "the curve document" "(sorted(d), d['sets'], d['ways'], d['accesses'], len(d['miss_ratio']), d['sample'])" \
	'[["accesses", "miss_ratio", "sample", "sets", "ways"], 1024, 16, 120000, 16, null]'
# sampled: one set in 16 asked, but 1024 / 16 is under the floor of 256 sets: one in 4
run -j profile --trace "$TMP/stream.trace" --sample 16
expect_rc 0 "profile --sample 16"
json "a sampled curve says its sample" \
	"(d['sample']['one_in'], 128 < d['sample']['sets'] < 384, d['accesses'], round(d['miss_ratio'][15], 4))" \
	'[4, true, 120000, 1.0]'
run profile --trace "$TMP/stream.trace" --sample 4
expect_out_contains "the text says it too" "(sampled: "
for bad in 3 1 8192 x 16k; do
	run profile --trace "$TMP/stream.trace" --sample "$bad"
	expect_rc 2 "--sample $bad"
	expect_err_has "--sample $bad named" "profile: --sample '$bad': give N, a power of two from 2 to 4096"
done
run -j profile --trace "$TMP/db.trace"
# 9600 lines over 1024 sets: 384 sets of 10 lines, 640 of 9; 12 rounds. With 9
# ways the sets of 10 always miss: (384*10*12 + 640*9) / 115200 = 0.45; with
# 10 only the first round misses: 9600 / 115200
json "db: 600 KiB over 1024 sets, held by 10 ways" \
	"[round(d['miss_ratio'][k], 4) for k in (8, 9)]" '[0.45, 0.0833]'

run -j plan db="$TMP/db.curve" web="$TMP/web.curve" stream="$TMP/stream.curve"
expect_rc 0 "plan"
printf '%s' "$OUT" >"$TMP/plan.json"
json "the plan's shape" "[sorted(g) for g in d['groups']][0]" \
	'["group", "predicted_miss_ratio", "schema", "ways"]'
# db needs 10 ways, web 4 (3.1 lines a set), the stream gains from none: it
# keeps the least (1), and the way nobody gains from stays with the default
# group (no mask of the plan holds it)
json "the ways: db and web held whole, the stream the least" "[g['ways'] for g in d['groups']]" \
	'[10, 4, 1]'
json "the spare way is nobody's in the plan: ways 0-9, 10-13, 14" \
	"sorted(int(g['schema'].split('=')[1], 16) for g in d['groups'])" "[1023, 15360, 16384]"
printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"], end="")' \
	>"$TMP/plan.conf"
for g in db web stream; do run group create "$g"; done

# misses by replay under a configuration: "db web stream" totals
replay_with()
{
	run apply "$1"
	expect_rc 0 "apply $(basename "$1")"
	run -j sim replay db="$TMP/db.trace" web="$TMP/web.trace" stream="$TMP/stream.trace"
	expect_rc 0 "replay under $(basename "$1")"
	printf '%s' "$OUT" >"$2"
}
replay_with "$TMP/plan.conf" "$TMP/r-plan.json"
printf 'group db\n\tschema L3:0=001f\ngroup web\n\tschema L3:0=03e0\ngroup stream\n\tschema L3:0=fc00\n' \
	>"$TMP/even.conf"
replay_with "$TMP/even.conf" "$TMP/r-even.json"
printf 'group db\n\tschema L3:0=ffff\ngroup web\n\tschema L3:0=ffff\ngroup stream\n\tschema L3:0=ffff\n' \
	>"$TMP/shared.conf"
replay_with "$TMP/shared.conf" "$TMP/r-shared.json"
python3 - "$TMP" >"$TMP/verdict" <<'PY'
import json, sys
d = sys.argv[1]
tot = lambda n: sum(g["misses"] for g in json.load(open(f"{d}/r-{n}.json"))["groups"])
plan = json.load(open(f"{d}/plan.json"))
rep = {g["group"]: g for g in json.load(open(f"{d}/r-plan.json"))["groups"]}
errs = [abs(g["predicted_miss_ratio"] - rep[g["group"]]["miss_ratio"]) for g in plan["groups"]]
print(tot("plan") <= tot("even"), tot("plan") <= tot("shared"), max(errs) <= 0.02)
PY
expect_file_text "plan beats an even split and sharing, predicted within 2 points" \
	"$TMP/verdict" "True True True"
run -j plan --spare web db="$TMP/db.curve" web="$TMP/web.curve" stream="$TMP/stream.curve"
json "--spare web: the spare way goes to web" "[g['ways'] for g in d['groups']]" '[10, 5, 1]'
usage "--spare of no group of the plan" "plan: --spare x: not a group of the plan" \
	plan --spare x db="$TMP/db.curve" web="$TMP/web.curve"

# the sim's monitoring counters read what the replays did: every group's
# traffic is its misses of the three replays x 64 bytes, its occupancy what
# the last one left; --no-count leaves them as they are
run -j monitor --count 1
printf '%s' "$OUT" >"$TMP/mon.json"
run -j sim replay --no-count db="$TMP/db.trace" web="$TMP/web.trace"
run -j monitor --count 1
printf '%s' "$OUT" >"$TMP/mon2.json"
python3 - "$TMP" >"$TMP/verdict" <<'PY'
import json, sys
d = sys.argv[1]
reps = [{g["group"]: g for g in json.load(open(f"{d}/r-{n}.json"))["groups"]}
        for n in ("plan", "even", "shared")]
mon = {g["group"]: g["domains"][0] for g in json.load(open(f"{d}/mon.json"))["groups"]}
ok = all(mon[n]["mbm_total_bytes"] == 64 * sum(r[n]["misses"] for r in reps) and
         mon[n]["mbm_local_bytes"] == mon[n]["mbm_total_bytes"] and
         mon[n]["llc_occupancy_bytes"] == reps[2][n]["llc_occupancy_bytes"]
         for n in ("db", "web", "stream"))
counts = lambda f: [[g["domains"][0][k] for k in ("llc_occupancy_bytes", "mbm_total_bytes")]
                    for g in json.load(open(f"{d}/{f}"))["groups"]]
print(ok, mon["default"]["llc_occupancy_bytes"], counts("mon.json") == counts("mon2.json"))
PY
expect_file_text "the counters hold the replays' traffic and the last one's occupancy" \
	"$TMP/verdict" "True 0 True"

# --check: what a configuration would do, by the curves (nothing changes)
run -j plan --check "$TMP/even.conf" db="$TMP/db.curve" web="$TMP/web.curve" stream="$TMP/stream.curve"
expect_rc 0 "plan --check"
json "the even split, predicted" "[(g['ways'], round(g['predicted_miss_ratio'], 4), g['shared']) for g in d['groups']]" \
	'[[5, 1.0, false], [5, 0.0333, false], [6, 1.0, false]]'
run -j plan --check "$TMP/shared.conf" db="$TMP/db.curve" web="$TMP/web.curve"
json "sharing: optimistic, and said so" "[(g['ways'], g['shared']) for g in d['groups']]" \
	'[[16, true], [16, true]]'
run schema show db
expect_out "--check changed nothing" "L3:0=ffff"
printf 'group db\n\tschema L3:0=zz\n' >"$TMP/badcheck.conf"
failure "a configuration that does not apply" "configuration line 2: L3 cache id 0: mask \"zz\" is not hex" \
	plan --check "$TMP/badcheck.conf" db="$TMP/db.curve"

# a bound: db at most 0.1 takes the fewest ways that do it (10, 0.0833); web
# and the stream share the rest for the fewest misses (web 4, the stream 1;
# the way nobody gains from stays spare)
run -j plan --bound db=0.1 db="$TMP/db.curve" web="$TMP/web.curve" stream="$TMP/stream.curve"
json "a bound on db" "[g['ways'] for g in d['groups']]" '[10, 4, 1]'
failure "a bound no allocation reaches" \
	"plan: db: the group of curve 0 cannot keep its miss ratio at 0.01: with the 15 ways it could have it misses 0.0833333" \
	plan --bound db=0.01 db="$TMP/db.curve" web="$TMP/web.curve" stream="$TMP/stream.curve"
fails 2 "a bound on no group of the plan" "plan: --bound 'x=0.1': give GROUP=RATIO, a group of the plan and a miss ratio 0..1" \
	plan --bound x=0.1 db="$TMP/db.curve"

# profile GROUP on the simulator: db's mask swept over 1..16 ways against
# a streaming default group; its occupancy grows and its traffic falls with
# its ways, and its schema is back at the end - also when a signal ends it
run schema set db "L3:0=0ff0"
run sim load db --footprint 700K --rate 1G
expect_rc 0 "a workload for db"
run sim load default --footprint 1G --rate 5G
run -j profile db --interval 0.05
expect_rc 0 "profile db"
json "a step per way count" "[s['ways'] for s in d['steps']]" "$(python3 -c 'print(list(range(1, 17)))')"
json "occupancy grows with the ways, traffic falls" \
	"all(a['llc_occupancy_bytes'] <= b['llc_occupancy_bytes'] and a['mbm_total_bytes_per_second'] >= b['mbm_total_bytes_per_second'] for a, b in zip(d['steps'], d['steps'][1:]))" 'true'
run schema show db
expect_out "db's schema is back" "L3:0=0ff0"
"$RDTCTL" --machine "$MACHINE" --state-dir "$STATE" profile db --interval 1 >/dev/null 2>"$TMP/sig.err" &
P=$!
# the sweep has started (its handlers are set before its first mask)
sweeping() { [ "$(rdt schema show db 2>/dev/null)" != "L3:0=0ff0" ]; }
wait_until 60 sweeping
kill -TERM $P
wait $P
if [ $? -eq 1 ]; then pass; else fail "a profile ended by SIGTERM did not exit 1"; fi
expect_file_text "it says so" "$TMP/sig.err" "rdtctl: profile db: stopped by signal 15; its schema is back"
run schema show db
expect_out "db's schema is back after the signal" "L3:0=0ff0"
if [ -e "$STATE/leases.json" ]; then fail "the lease outlived the profile"; else pass; fi
# SIGKILL (or the OOM killer): nothing runs in the profile, the lease it
# took before the sweep puts the schema back at the next open
"$RDTCTL" --machine "$MACHINE" --state-dir "$STATE" profile db --interval 1 >/dev/null 2>&1 &
P=$!
wait_until 60 sweeping
run schema show db
case $OUT in "L3:0=0ff0") fail "the sweep had not started: $OUT" ;; *) pass ;; esac
run profile db --interval 0.01
expect_rc 1 "a second profile of db while the first runs"
expect_err_has "the holder named" "group db's schema is leased by process $P already (a profile of it running?)"
kill -KILL $P
wait $P 2>/dev/null
run schema show db
expect_rc 0 "a look after SIGKILL"
expect_err_has "a look says what the next change does, and changes nothing" "rdtctl: warning: group db: process $P, which had leased its schema (a profile), is gone: the next change puts its schema L3:0=0ff0 back"
if [ -e "$STATE/leases.json" ]; then pass; else fail "a look dropped the lease"; fi
run group create after-kill
expect_rc 0 "the next change"
expect_err_has "it says so" "rdtctl: warning: group db: process $P, which had leased its schema (a profile), is gone: its schema L3:0=0ff0 is back"
run schema show db
expect_out "db's schema is back after SIGKILL" "L3:0=0ff0"
case $ERR in *warning*) fail "said twice: $ERR" ;; *) pass ;; esac
if [ -e "$STATE/leases.json" ]; then fail "the killed profile's lease stayed"; else pass; fi
run group remove after-kill
# beside an exclusive group: the sweep keeps off its ways, and says which it ran over
for g in default web stream; do run schema set "$g" "L3:0=0fff"; done
run group create ex --schema "L3:0=f000" --exclusive
expect_rc 0 "an exclusive group on ways 12-15"
run -j profile db --interval 0.01
expect_rc 0 "profile db beside it"
json "the ways it may take: 0-11" \
	"[d['first_way'], d['sweep_ways'], d['exclusive_left_out'], [s['ways'] for s in d['steps']]]" \
	'[0, 12, "ex", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]'
run profile db --interval 0.01
expect_out_contains "the text says so" "group db, L3 cache id 0, ways 0-11 (the others are exclusive group ex's):"
run schema show db
expect_out "db's schema is back" "L3:0=0ff0"
run group remove ex
run schema set default "L3:0=ffff"

printf ' L 1000,8\n Q 2000,8\n' >"$TMP/bad.trace"
failure "a malformed trace" "trace $TMP/bad.trace line 2: ' Q 2000,8' is not a lackey access (\" L addr,size\", \" S ...\", \" M ...\", \"I  ...\")" \
	profile --trace "$TMP/bad.trace"
# an access whose end wraps: refused at once by every command that reads it
printf ' L 1000,8\n L ffffffffffffffff,8\n' >"$TMP/wrap.trace"
WRAP="trace $TMP/wrap.trace line 2: an access of 8 bytes at 0xffffffffffffffff runs past the end of the address space"
failure "a wrapping access: profile" "$WRAP" profile --trace "$TMP/wrap.trace"
failure "a wrapping access: convert" "$WRAP" trace convert "$TMP/wrap.trace" "$TMP/wrap.bin"
failure "a wrapping access: sim replay" "$WRAP" sim replay db="$TMP/wrap.trace"
failure "a wrapping access: plan" "$WRAP" plan --trace db="$TMP/wrap.trace"
if ls "$TMP" | grep -q 'wrap.bin'; then fail "a refused convert left $(ls "$TMP" | grep wrap.bin)"
else pass; fi
# Commands that only read the state hold no lock while they replay: a
# writer (a container starting, here group create) does not wait for them.
# A trace of 40,000 lines of 999,999 bytes: 625 M accesses, many seconds.
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(40000):
        f.write(" L %x,999999\n" % (i * 1000000))' "$TMP/long.trace"
for cmd in "profile --trace $TMP/long.trace" "plan --trace db=$TMP/long.trace" \
	"sim replay --no-count db=$TMP/long.trace"; do
	# shellcheck disable=SC2086
	"$RDTCTL" --machine "$MACHINE" --state-dir "$STATE" $cmd >/dev/null 2>&1 &
	P=$!
	sleep 0.5
	if timeout 10 "$RDTCTL" --machine "$MACHINE" --state-dir "$STATE" group create beside \
		>/dev/null 2>"$TMP/beside.err"; then pass; else
		fail "group create beside '$cmd': $(cat "$TMP/beside.err")"; fi
	if kill -0 $P 2>/dev/null; then pass; else
		fail "'$cmd' ended before the writer: the test proves nothing"; fi
	kill $P 2>/dev/null
	wait $P 2>/dev/null
	run group remove beside
	expect_rc 0 "group remove beside"
done
printf '{"accesses": 5}' >"$TMP/bad.curve"
failure "a curve that is none" "curve $TMP/bad.curve: not a profile document (rdtctl -j profile --trace: \"accesses\" and \"miss_ratio\")" \
	plan db="$TMP/bad.curve"
printf '{"accesses": 5, "miss_ratio": [1, 0.5]}' >"$TMP/short.curve"
failure "a curve for another cache" "the curves are for 2 ways; L3 has 16: profile on this machine" \
	plan db="$TMP/short.curve"
run trace convert "$TMP/db.trace" "$TMP/db.bin"
expect_out "convert" "$TMP/db.bin: 115200 accesses"
run -j profile --trace "$TMP/db.bin"
expect_rc 0 "profile of the binary form"
json "the same curve" "[round(d['miss_ratio'][k], 4) for k in (8, 9)]" '[0.45, 0.0833]'

finish
