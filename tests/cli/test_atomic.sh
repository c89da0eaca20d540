# SPDX-License-Identifier: LGPL-2.1-or-later
# test_atomic: a command that takes a list is one transaction. Racing a
# failing bind of many CPUs against a succeeding one never loses the
# acknowledged update; kill -9 at any moment of a bind of 32 CPUs or of 300
# tasks leaves all of them bound or none.
. "$(dirname "$0")/lib.sh"

MACHINE='topology=package:2 l3:1 core:8 pu:2;tasks=virtual'	# CPUs 0-31

# delay N: a pause that differs from round to round, 0 to 6 ms: a whole bind
# takes a few milliseconds, so the kills land before, during and after it
delay()
{
	sleep "0.00$(( $1 % 7 ))$(( ($1 * 7) % 10 ))"
}

# ---- a failing list racing a single bind: no acknowledged update lost --------------
ok "g" group create g
ok "h" group create h
lost=0
round=0
while [ $round -lt 50 ]; do
	rdt -q cpu bind default 0-31 || fail "round $round: unbind"
	rdt -q cpu bind g 0-40 >/dev/null 2>"$TMP/g.err" &
	gp=$!
	rdt -q cpu bind h 5 2>"$TMP/h.err"
	hrc=$?
	wait "$gp"
	grc=$?
	if [ $grc -eq 0 ]; then fail "round $round: binding CPUs 0-40 of 32 succeeded"; fi
	grep -q "CPU 32" "$TMP/g.err" || fail "round $round: the failing bind did not name CPU 32:" \
		"$(cat "$TMP/g.err")"
	if [ $hrc -eq 0 ]; then
		run cpu show h
		[ "$OUT" = "5" ] || lost=$((lost + 1))
	fi
	round=$((round + 1))
done
if [ $lost -eq 0 ]; then pass; else fail "$lost of 50 acknowledged binds of CPU 5 were lost"; fi
run cpu show g
expect_out "the failing bind left g without CPUs" ""

# ---- kill -9 during a bind of 32 CPUs: all or nothing ------------------------------
ok "unbind all" cpu bind default 0-31
half=0
round=0
while [ $round -lt 30 ]; do
	# rdtctl itself, not the rdt function: kill -9 of a backgrounded
	# function's subshell leaves its rdtctl running, to bind later
	"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" -q cpu bind g 0-31 \
		2>/dev/null &
	p=$!
	delay $round
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	run cpu show g
	case $OUT in
	""|"0-31") ;;
	*) half=$((half + 1)); echo "round $round: g holds $OUT" >&2 ;;
	esac
	rdt -q cpu bind default 0-31 || fail "round $round: unbind"
	round=$((round + 1))
done
if [ $half -eq 0 ]; then pass; else fail "$half of 30 killed binds of 32 CPUs were half done"; fi

# ---- kill -9 during a bind of 300 tasks: all or nothing -----------------------------
TIDS=$(seq 1000 1299 | tr '\n' ' ')
half=0
round=0
while [ $round -lt 30 ]; do
	# shellcheck disable=SC2086
	"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" -q task bind g $TIDS \
		2>/dev/null &
	p=$!
	delay $round
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	run -j task show g
	n=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["tasks"]))')
	case $n in
	0|300) ;;
	*) half=$((half + 1)); echo "round $round: g holds $n of the 300 tasks" >&2 ;;
	esac
	# shellcheck disable=SC2086
	rdt -q task bind default $TIDS || fail "round $round: unbind the tasks"
	round=$((round + 1))
done
if [ $half -eq 0 ]; then pass; else fail "$half of 30 killed binds of 300 tasks were half done"; fi

# ---- a list with one bad item changes nothing, and names the item -------------------
ok "bind 3" cpu bind g 3
failure "CPUs with one the machine lacks" "CPU 99 does not exist or is not usable (have 0-31)" cpu bind h 1,2,99
run cpu show h
expect_out "h: nothing bound" ""
run cpu show g
expect_out "g: as before" "3"
finish
