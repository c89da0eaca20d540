# SPDX-License-Identifier: LGPL-2.1-or-later
# test_strays: a task of a bound cgroup that another tool moved into its own
# resctrl control group (docs/resctrl.md, "Tasks and CPUs"), on the resctrl
# emulator with real cgroup v2 cgroups. One rule, the same answer from
# rdtctl sync, sync --full and the agent: a binding that yields (the
# default) leaves the task there, one that enforces (cgroup bind --enforce)
# moves it back; each says so naming the control group the task was in
# (the agent says a task left there once, not at every sync, and counts
# both in agent status and /metrics, checked by promtool). A change
# other than a sync moves no stray. The policy is kept in the state and
# shown by cgroup show; bad input is refused and changes nothing.
. "$(dirname "$0")/lib.sh"
need_python

need_cgroup2

MACHINE=$MACHINE_REAL
MNT=$TMP/resctrl
NAME=rdtalloc-strays-test-$$
CG=$CGR/$NAME
APID=

strays_cleanup()
{
	[ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null
	cleanup_children
	if [ -d "$CG" ]; then
		while read -r p; do echo "$p" >"$CGR/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null
	fi
}
CLEANUP=strays_cleanup

resctrlfs_start "$MNT" "$MACHINE"
rc() { run_raw --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" --state-dir "$STATE" "$@"; }
in_dir() { grep -qx "$2" "$MNT/$1/tasks" 2>/dev/null; }

mkdir "$CG" "$MNT/other_tool" || fail "mkdir the cgroup and the other tool's control group"
rc group create db --schema 'L3:0=c'
expect_rc 0 "group db"
start_in "$CG"
T=$P
rc cgroup bind db "$NAME"
expect_rc 0 "bind the cgroup to db"
DB=$(cd "$MNT" && ls -d rdtalloc-* | head -n 1)
in_dir "$DB" "$T" && pass || fail "the cgroup's task $T is not in db's control group $DB"
rc -j cgroup show
json "a new binding yields" "[[b['cgroup'], b['group'], b['policy']] for b in d]" \
	"[[\"$NAME\", \"db\", \"yield\"]]"
rc cgroup show
expect_out "the policy is the third column" "$(printf 'db\t%s\tyield' "$NAME")"

# another tool moves the task into its own control group
echo "$T" >"$MNT/other_tool/tasks"
LEFT="task $T of cgroup $NAME is in resctrl group other_tool (not ours): left there (binding yields)"
for how in "" --full; do
	rc sync $how
	expect_rc 0 "sync $how, the binding yields"
	expect_out "sync $how: the task left where the other tool put it, said" "$LEFT"
	in_dir other_tool "$T" && pass || fail "sync $how moved the task out of other_tool"
done
rc -j sync
json "-j sync counts it as left" "[d['strays_left'], d['strays_moved'], d['tasks_moved']]" \
	"[1, 0, 0]"
# five strays: the first three said, the rest counted
X=
for i in 1 2 3 4; do
	start_in "$CG"
	X="$X $P"
	echo "$P" >"$MNT/other_tool/tasks"
done
set -- $(printf '%s\n' "$T" $X | sort -n)
rc sync
expect_out "five strays: three said, two counted" "$(for t in "$1" "$2" "$3"; do
	printf 'task %s of cgroup %s is in resctrl group other_tool (not ours): left there (binding yields); ' "$t" "$NAME"
done)2 more tasks of bound cgroups in resctrl groups not ours"
rc -j sync
json "-j sync counts all five" "d['strays_left']" 5
for p in $X; do
	kill "$p"
	wait "$p" 2>/dev/null
done
rc group create web --schema 'L3:0=30'
expect_rc 0 "a change that is not a sync"
in_dir other_tool "$T" && pass || fail "a change moved the yielding binding's task"

# bad input: refused, and nothing changed
snapshot "$TMP/before"
rc cgroup bind --enforce --yield db "$NAME"
expect_rc 2 "--enforce with --yield"
expect_err_has "the clash named" "cgroup bind: --enforce and --yield exclude each other"
rc cgroup bind --enforce default "$NAME"
expect_rc 1 "a policy for the default group"
expect_err_has "unbinding takes no policy" "unbinding cgroup $NAME (the default group) takes no policy"
unchanged "the refusals changed nothing" "$TMP/before"

# a binding that enforces: every sync moves the task back, and says from where
rc cgroup bind --enforce db "$NAME"
expect_rc 0 "cgroup bind --enforce"
in_dir other_tool "$T" && pass || fail "the bind itself moved the task (a sync's to do)"
rc -j cgroup show "$NAME"
json "show says it enforces" "[d['group'], d['policy']]" '["db", "enforce"]'
grep -q '"enforce": *true' "$STATE/state.json" && pass || fail "the policy is not in the state"
BACK="task $T of cgroup $NAME was in resctrl group other_tool (not ours): moved back to db (binding enforces)"
for how in "" --full; do
	echo "$T" >"$MNT/other_tool/tasks"
	rc sync $how
	expect_rc 0 "sync $how, the binding enforces"
	expect_out_has "sync $how: the move back said, with where from" "$BACK"
	in_dir "$DB" "$T" && pass || fail "sync $how did not move the task back to db"
	in_dir other_tool "$T" && fail "the task is still in other_tool" || pass
done
echo "$T" >"$MNT/other_tool/tasks"
rc -j sync
json "-j sync counts it as moved" "[d['strays_left'], d['strays_moved'], d['tasks_moved']]" \
	"[0, 1, 1]"
rc cgroup bind db "$NAME"
expect_rc 0 "bind again without a policy"
rc -j cgroup show "$NAME"
json "a bind without --enforce or --yield keeps the policy" "d['policy']" enforce

# the agent: the same answer, logged
if [ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ]; then
	start_agent()
	{
		: >"$TMP/agent.log"
		"$RDTALLOC_AGENT" --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" \
			--state-dir "$STATE" --listen "127.0.0.1:$PORT" --interval 0.2 --scan 1 \
			>/dev/null 2>>"$TMP/agent.log" &
		APID=$!
		wait_until 60 grep -q "caught up" "$TMP/agent.log" ||
			fail "the agent did not start: $(cat "$TMP/agent.log")"
	}
	logged() { grep -qxF "rdtalloc-agent: $1" "$TMP/agent.log"; }
	# counted() LEFT MOVED: agent status -j says so (agent.json is written after each sync)
	counted()
	{
		rc -j agent status
		[ "$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d.get("strays_left"), d.get("strays_moved"))')" = "$1 $2" ]
	}
	# metrics LEFT MOVED: /metrics passes promtool and has both figures
	metrics()
	{
		agent_metrics "$PORT"
		for m in "rdtalloc_agent_strays_left $1" "rdtalloc_agent_strays_moved_total $2"; do
			grep -qxF "$m" "$TMP/metrics" && pass ||
				fail "/metrics has no line '$m': $(grep strays "$TMP/metrics")"
		done
	}
	PORT=$(free_port)
	start_agent
	if wait_until 10 counted 0 0; then pass; else
		fail "agent status -j before a stray: $OUT"; fi
	echo "$T" >"$MNT/other_tool/tasks"
	if wait_until 30 logged "$BACK"; then pass; else
		fail "the agent's move back was not logged: $(cat "$TMP/agent.log")"; fi
	in_dir "$DB" "$T" && pass || fail "the agent did not move the task back to db"
	if wait_until 10 counted 0 1; then pass; else
		fail "agent status -j does not count the task moved back: $OUT"; fi
	metrics 0 1
	rc cgroup bind --yield db "$NAME"
	expect_rc 0 "cgroup bind --yield while the agent runs"
	echo "$T" >"$MNT/other_tool/tasks"
	if wait_until 30 logged "$LEFT"; then pass; else
		fail "the agent did not log the task it left: $(cat "$TMP/agent.log")"; fi
	# three full scans later: still there, and said once
	sleep 3.5
	in_dir other_tool "$T" && pass || fail "the agent moved a yielding binding's task"
	n=$(grep -cxF "rdtalloc-agent: $LEFT" "$TMP/agent.log")
	[ "$n" -eq 1 ] && pass || fail "the agent said the task it left $n times, not once"
	if counted 1 1; then pass; else fail "agent status -j does not count the task left: $OUT"; fi
	metrics 1 1
	rc agent status
	expect_out_has "agent status says both" "tasks of bound cgroups in other tools' resctrl groups: 1 left there (at the last sync), 1 moved back"
	# the other tool lets the task go: no longer left anywhere
	echo "$T" >"$MNT/$DB/tasks"
	if wait_until 10 counted 0 1; then pass; else
		fail "agent status -j still counts a task that came back: $OUT"; fi
	metrics 0 1
	kill "$APID"
	wait "$APID"
	APID=
else
	skip_part "no rdtalloc-agent (RDTALLOC_AGENT): the agent's answer"
fi

# a state written before policies: every binding yields
rc cgroup bind --enforce db "$NAME"
expect_rc 0 "enforce again"
python3 - "$STATE/state.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["cgroups"]:
    c.pop("enforce", None)
json.dump(s, open(sys.argv[1], "w"))
EOF
rc -j cgroup show
json "an older state's binding yields" "[b['policy'] for b in d]" '["yield"]'
finish
