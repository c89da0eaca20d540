# SPDX-License-Identifier: LGPL-2.1-or-later
# test_whatif: profile --trace and plan model the machine they are given
# (--machine), on any host: a state made for another machine is not in the
# way and stays as it was, none is made where there is none; an L3 that is
# not whole sets of its ways is refused with the --machine to give instead,
# which then works.
. "$(dirname "$0")/lib.sh"

need_python
python3 - "$TMP" <<'PY'
import sys
with open(f"{sys.argv[1]}/loop.trace", "w") as f:
    for _ in range(4):
        for a in range(0, 64 * 1024, 64):
            f.write(" L %x,8\n" % (0x10000000 + a))
PY
MODEL='topology=package:1 l3:1(size=1MiB) core:1 pu:1;l3.cbm_len=16'
CURVE_LINE="4096 accesses, a cache of 1024 sets; miss ratio alone with k ways:"

# a state made for the test's machine, with a group
ok "a state for another machine" group create web
snapshot "$TMP/before"
cp "$STATE/state.json" "$TMP/state.before"
whatif()
{
	"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MODEL" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err") LAST="rdtctl --machine '$MODEL' $*"
}
whatif profile --trace "$TMP/loop.trace"
expect_rc 0 "profile --trace of the machine given, beside another machine's state"
expect_out_has "its geometry: 1024 sets" "$CURVE_LINE"
whatif -j profile --trace "$TMP/loop.trace"
json "16 ways, 4096 accesses" "(d['sets'], d['ways'], d['accesses'])" '[1024, 16, 4096]'
whatif plan --trace a="$TMP/loop.trace" --trace b="$TMP/loop.trace"
expect_rc 0 "plan on the machine given"
expect_out_has "16 ways" "# rdtctl plan: L3 cache id 0, 16 ways, the fewest misses, by replay of the traces"
if cmp -s "$STATE/state.json" "$TMP/state.before"; then pass; else
	fail "the other machine's state file changed"; fi
unchanged "nothing changed" "$TMP/before"

# where there is no state, none is made
STATE=$TMP/nostate
whatif profile --trace "$TMP/loop.trace"
expect_rc 0 "profile --trace without a state"
whatif plan --trace a="$TMP/loop.trace" --trace b="$TMP/loop.trace"
expect_rc 0 "plan without a state"
if [ -e "$STATE" ]; then fail "a state directory was made: $(ls -A "$STATE")"; else pass; fi

# an L3 of 32 MiB and 20 ways is 26214.4 sets: the machine to give instead
MODEL='topology=package:1 l3:1(size=32MiB) core:1 pu:1;l3.cbm_len=20'
whatif profile --trace "$TMP/loop.trace"
expect_rc 1 "32 MiB of 20 ways"
expect_err_has "what --machine to give" "rdtctl: L3 cache id 0: 33554432 bytes are not 20 ways of whole 64-byte sets, which the model needs; model the nearest size below that is: --machine 'topology=package:1 l3:1(size=32765KiB) core:1 pu:1;l3.cbm_len=20;l3.min_cbm_bits=1'"
MODEL='topology=package:1 l3:1(size=32765KiB) core:1 pu:1;l3.cbm_len=20;l3.min_cbm_bits=1'
whatif profile --trace "$TMP/loop.trace"
expect_rc 0 "the machine it said"
expect_out_has "26212 sets" "4096 accesses, a cache of 26212 sets; miss ratio alone with k ways:"
if [ -e "$STATE" ]; then fail "a state directory was made"; else pass; fi

finish
