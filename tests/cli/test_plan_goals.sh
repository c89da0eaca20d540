# SPDX-License-Identifier: LGPL-2.1-or-later
# test_plan_goals: the planner's goals and constraints through rdtctl, on a
# 1 MiB, 16-way L3 in two domains with memory bandwidth allocation and two
# shareable ways (0xc000). Traces: a 200 KiB loop, random walks over 800
# KiB and 150 KiB (a fixed generator, so the traces are the same everywhere).
# With traces the planner replays its candidate plans and takes the best:
# here sharing every way beats every partition, it says so, and its
# predictions are the replay's to the last digit. --exclusive gives ways
# no other group (the default's included) fills, off the shareable ways,
# written for every domain; --mb adds the MB dimension; --apart, the
# CLOSIDs that do not go round, and every bad option are named.
. "$(dirname "$0")/lib.sh"
need_python

MACHINE="topology=package:2 l3:1(size=1MiB) core:1 pu:1;l3.cbm_len=16;tasks=virtual;mon.rmids=0;mb.closids=8;l3.shareable_bits=c000"
write_traces "$TMP"
T="$TMP"

# replay_total CONFIG: apply it, replay loop and walk, print their misses in total
replay_total()
{
	rdt apply "$1" >/dev/null 2>&1 || echo "apply $1 failed"
	rdt -j sim replay a="$T/loop.trace" b="$T/walk.trace" | python3 -c '
import json, sys
print(sum(g["misses"] for g in json.load(sys.stdin)["groups"]))'
}
jconfig()
{
	printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"], end="")' >"$1"
}

# ---- traces: the plans replayed, the best taken
run -j plan --trace a="$T/loop.trace" --trace b="$T/walk.trace"
expect_rc 0 "plan --trace"
json "exactly groups and config" "sorted(d)" '["config", "groups"]'
json "each group: exactly group, schema, ways, predicted_miss_ratio" "[sorted(g) for g in d['groups']]" \
	'[["group", "predicted_miss_ratio", "schema", "ways"], ["group", "predicted_miss_ratio", "schema", "ways"]]'
json "sharing every way beats every partition here" "[g['schema'] for g in d['groups']]" \
	'["L3:0=ffff", "L3:0=ffff"]'
printf '%s' "$OUT" >"$T/plan.json"
# --trace takes every GROUP=FILE after it, as its help reads: the same plan
run -j plan --trace a="$T/loop.trace" b="$T/walk.trace"
expect_rc 0 "plan --trace a=A b=B"
if [ "$OUT" = "$(cat "$T/plan.json")" ]; then pass; else fail "plan --trace a=A b=B differs: $OUT"; fi
jconfig "$T/plan.conf"
rdt group create a >/dev/null
rdt group create b >/dev/null
rdt apply "$T/plan.conf" >/dev/null
run -j sim replay a="$T/loop.trace" b="$T/walk.trace"
printf '%s' "$OUT" >"$T/replay.json"
python3 - "$T" >"$T/verdict" <<'PY'
import json, sys
d = sys.argv[1]
plan = json.load(open(f"{d}/plan.json"))["groups"]
rep = json.load(open(f"{d}/replay.json"))["groups"]
print([p["predicted_miss_ratio"] == r["miss_ratio"] for p, r in zip(plan, rep)])
PY
expect_file_text "the predictions are the replay's" "$T/verdict" "[True, True]"

# the partition the curves alone give, and its misses: more than the plan's
for g in loop walk; do
	run -j profile --trace "$T/$g.trace"
	printf '%s' "$OUT" >"$T/$g.curve"
done
run -j plan --curve a="$T/loop.curve" --curve b="$T/walk.curve"
expect_rc 0 "plan --curve"
json "from curves alone: apart" "[g['schema'] for g in d['groups']]" '["L3:0=f", "L3:0=fff0"]'
jconfig "$T/apart.conf"
run -j plan a="$T/loop.curve" b="$T/walk.curve"
json "GROUP=CURVE is --curve" "[g['schema'] for g in d['groups']]" '["L3:0=f", "L3:0=fff0"]'
plan_misses=$(replay_total "$T/plan.conf")
apart_misses=$(replay_total "$T/apart.conf")
if [ "$plan_misses" -lt "$apart_misses" ]; then pass; else
	fail "sharing ($plan_misses misses) does not beat the partition ($apart_misses)"; fi
run plan --trace a="$T/loop.trace" --trace b="$T/walk.trace"
expect_out_has "the text says what was weighed" \
	"# misses by replay: this plan $plan_misses, every group apart $apart_misses, all in one pool $plan_misses (2 plans weighed; traces of 120000 to 120000 accesses, as they are)"
case $ERR in *"differ in length"*) fail "equal lengths said to differ: $ERR" ;; *) pass ;; esac

# ---- traces of unequal length: said, and cut or looped on request
head -n 30000 "$T/walk.trace" >"$T/short.trace"
run plan --trace a="$T/loop.trace" --trace b="$T/short.trace"
expect_rc 0 "plan with a trace a quarter as long"
expect_err_has "it says so, and what to do" \
	"rdtctl: warning: the traces differ in length (30000 to 120000 accesses): the longest runs alone after the others end, which weighs its misses more; --cut cuts them to the shortest, --loop repeats the shorter ones"
run plan --cut --trace a="$T/loop.trace" --trace b="$T/short.trace"
expect_out_contains "--cut: said in the report" "traces of 30000 to 120000 accesses, cut)"
case $ERR in *"differ in length"*) fail "--cut still warned" ;; *) pass ;; esac
run -j sim replay --cut a="$T/loop.trace" b="$T/short.trace"
json "--cut: both replayed as far as the shortest" "[g['accesses'] for g in d['groups']]" '[30000, 30000]'
run -j sim replay --loop a="$T/loop.trace" b="$T/short.trace"
json "--loop: the shorter one again until the longest ends" "[g['accesses'] for g in d['groups']]" '[120000, 120000]'
run -j sim replay a="$T/loop.trace" b="$T/short.trace"
json "neither: each as long as it is" "[g['accesses'] for g in d['groups']]" '[120000, 30000]'
usage "--cut and --loop" "sim replay: --cut or --loop, not both" \
	sim replay --cut --loop a="$T/loop.trace" b="$T/short.trace"
usage "--cut of curves" "plan: --cut is for traces" plan --cut a="$T/loop.curve" b="$T/walk.curve"
run -j plan --apart --trace a="$T/loop.trace" --trace b="$T/walk.trace"
json "--apart: the best partition, by replay" "[g['schema'] for g in d['groups']]" \
	'["L3:0=f", "L3:0=fff0"]'

# three groups: the walk over 150 KiB too; still never worse than apart or one pool
run plan --trace a="$T/loop.trace" --trace b="$T/walk.trace" --trace c="$T/small.trace"
expect_rc 0 "three traces"
printf '%s\n' "$OUT" | python3 -c '
import re, sys
m = re.search(r"this plan (\d+), every group apart (\d+), all in one pool (\d+) \((\d+) plans", sys.stdin.read())
p, a, s, n = map(int, m.groups())
print(p <= a and p <= s, n)' >"$T/verdict"
expect_file_text "three: no worse than apart and than one pool, 3 plans" "$T/verdict" "True 3"

# ---- exclusive ways: off the shareable ways, the default group beside, every domain
run -j plan --exclusive a --trace a="$T/loop.trace" --trace b="$T/walk.trace"
expect_rc 0 "plan --exclusive"
jconfig "$T/excl.conf"
expect_file_text "the configuration" "$T/excl.conf" "# rdtctl plan: L3 cache id 0, 16 ways, the fewest misses, by replay of the traces
# the same masks in every L3 domain (an exclusive group is exclusive in all of them)
group default
	schema L3:0=fff0;1=fff0
group a
	schema L3:0=f;1=f
	mode exclusive
group b
	schema L3:0=fff0;1=fff0"
run apply "$T/excl.conf"
expect_rc 0 "it applies"
run -j group show a
json "a is exclusive" "d['mode']" "exclusive"
run -j plan --exclusive a --exclusive b --trace a="$T/loop.trace" --trace b="$T/walk.trace"
json "both exclusive: 14 ways off 0xc000, the default group on the shareable ones" \
	"[g['schema'] for g in d['groups']] + [d['config'].split('group default')[1].split(chr(10))[1]]" \
	'["L3:0=f", "L3:0=3ff0", "\tschema L3:0=c000;1=c000"]'
run group mode a shareable
run schema set default "L3:0=ffff;1=ffff"
run group create other
run schema set other "L3:0=00ff"
run save
printf '%s\n' "$OUT" >"$T/before"
failure "an exclusive group over another group's ways" \
	"plan: the configuration would not apply: line 7: L3 cache id 0: exclusive group a (0x000f) overlaps group other (0x00ff)" \
	plan --exclusive a --trace a="$T/loop.trace" --trace b="$T/walk.trace"
run save
expect_out "nothing changed" "$(cat "$T/before")"
run group remove other
# an exclusive group outside the plan: its ways are left alone before any replay
run schema set a "L3:0=fff0;1=fff0"
run schema set default "L3:0=fff0;1=fff0"
run group create x --schema "L3:0=f;1=f" --exclusive
expect_rc 0 "x exclusive on ways 0-3"
run -j plan --trace a="$T/loop.trace" --trace b="$T/walk.trace"
expect_rc 0 "plan beside x"
json "the plan keeps off x's ways" \
	"[all(int(g['schema'].split('=')[1], 16) & 0xf == 0 for g in d['groups']), d['config'].split(chr(10))[1]]" \
	'[true, "# ways 0xf left alone: exclusive group x"]'
jconfig "$T/beside.conf"
run apply "$T/beside.conf"
expect_rc 0 "and it applies"
# a group of the plan that is exclusive now, not asked to stay so: the configuration says so
run -j plan --trace x="$T/loop.trace" --trace b="$T/walk.trace"
expect_rc 0 "plan with x in it"
json "x made shareable by the configuration" "'mode shareable' in d['config'].split('group x')[1]" 'true'
jconfig "$T/x.conf"
run apply "$T/x.conf"
expect_rc 0 "it applies"
run -j group show x
json "x is shareable now" "d['mode']" "shareable"
run group remove x

# ---- MB where given
run plan --mb b=50 --curve a="$T/loop.curve" --curve b="$T/walk.curve"
expect_out_has "MB in b's schema" "	schema MB:0=50"
run plan --all-domains --mb b=50 --curve a="$T/loop.curve" --curve b="$T/walk.curve"
expect_out_has "--all-domains: every L3 domain" "	schema L3:0=fff0;1=fff0"
expect_out_has "and every MB domain" "	schema MB:0=50;1=50"
failure "an MB value the machine refuses" \
	"plan: the configuration would not apply: line 5: line 2: MB domain 0: 7 is below the minimum bandwidth 10" \
	plan --mb b=7 --curve a="$T/loop.curve" --curve b="$T/walk.curve"

# ---- CLOSIDs that do not go round: pooled, or named with --apart
MACHINE="topology=package:2 l3:1(size=1MiB) core:1 pu:1;l3.cbm_len=16;tasks=virtual;mon.rmids=0;l3.closids=3;l3.cdp=0"
STATE="$TMP/state3"
run -j plan --curve a="$T/loop.curve" --curve b="$T/walk.curve" --curve c="$T/loop.curve"
expect_rc 0 "three groups, two CLOSIDs beside the default's"
json "two of them pooled" "len(set(g['schema'] for g in d['groups']))" '2'
failure "--apart when they do not go round" \
	"3 groups do not go round: 3 of them apart need 3 CLOSIDs beside the default group's and 3 ways; L3 has 2 and 16" \
	plan --apart --curve a="$T/loop.curve" --curve b="$T/walk.curve" --curve c="$T/loop.curve"

# ---- bad options, named
usage "curves and traces" "plan: give curves (--curve) or traces (--trace), not both" \
	plan --curve a="$T/loop.curve" --trace b="$T/walk.trace"
usage "a bare curve before --trace, named" \
	"plan: 'a=$T/loop.curve' is taken as a curve (a GROUP=FILE before any --trace is one) beside --trace: give curves or traces, not both" \
	plan a="$T/loop.curve" --trace b="$T/walk.trace"
usage "a goal that is none" "plan: --goal cheap: misses (the fewest in total) or bound (with --bound GROUP=RATIO)" \
	plan --goal cheap a="$T/loop.curve"
usage "--goal bound alone" "plan: --goal bound needs --bound GROUP=RATIO" \
	plan --goal bound a="$T/loop.curve"
usage "--exclusive of no group of the plan" "plan: --exclusive x: not a group of the plan" \
	plan --exclusive x a="$T/loop.curve"
usage "--mb malformed" "plan: --mb 'b': give GROUP=VALUE, a group of the plan and its MB value" \
	plan --mb b a="$T/loop.curve" b="$T/walk.curve"
usage "a group twice" "plan: group a is given twice" \
	plan a="$T/loop.curve" a="$T/walk.curve"
usage "--check with a goal" "plan: --check predicts a configuration from curves; the options that make one do not go with it" \
	plan --check "$T/plan.conf" --exclusive a a="$T/loop.curve"
usage "--instr without traces" "plan: --instr is for traces" \
	plan --instr a="$T/loop.curve"
usage "--curve without a value" "plan: --curve needs a value" plan --curve
printf ' L 1000,8\n X\n' >"$T/bad.trace"
failure "a malformed trace" \
	"trace $T/bad.trace line 2: ' X' is not a lackey access (\" L addr,size\", \" S ...\", \" M ...\", \"I  ...\")" \
	plan --trace a="$T/bad.trace"

finish
