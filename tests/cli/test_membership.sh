# SPDX-License-Identifier: LGPL-2.1-or-later
# test_membership: task bind|show and cpu bind|show - moving, unbinding,
# --process, a failed multi-task bind moved back, a task that exits
# disappearing, bad CPUs and task ids with the state unchanged.
. "$(dirname "$0")/lib.sh"

ok "create p1" group create p1
ok "create p2" group create p2

# ---- virtual tasks -------------------------------------------------------
ok "bind two tasks" task bind p1 5678 1234
expect_out "bind two tasks" "bound 2 tasks to group p1"
ok "task show p1" task show p1
expect_out "tasks ascending, one per line" "1234
5678"
ok "task show all" task show
expect_out "task show all" "default: (none)
p1: 1234 5678
p2: (none)"
ok "a task given twice is bound once" task bind p2 1234 1234
expect_out "a task given twice" "bound 1 task to group p2"
ok "move a task" task bind p2 1234
expect_out "move a task" "bound 1 task to group p2"
ok "after move" task show
expect_out "a task is in one group only" "default: (none)
p1: 5678
p2: 1234"
ok "bind to default" task bind default 5678
ok "after unbind" task show p1
expect_out "binding to default unbinds" ""
ok "remove p2" group remove p2
ok "after removing the group" task show
expect_out "a removed group's tasks return to default" "default: (none)
p1: (none)"
ok "create p2 again" group create p2

# ---- CPUs ------------------------------------------------------------------
ok "cpu bind" cpu bind p1 2-3
expect_out "cpu bind" "group p1 now holds CPUs 2-3"
ok "cpu show p1" cpu show p1
expect_out "cpu show p1" "2-3"
ok "cpu show default" cpu show default
expect_out "default holds the CPUs no group holds" "0-1"
ok "move one CPU" cpu bind p2 3
ok "cpu show all" cpu show
expect_out "cpu show all" "default: 0-1
p1: 2
p2: 3"
ok "cpu bind with blanks and duplicates" cpu bind p1 ' 0 , 0-1 '
ok "cpu show p1" cpu show p1
expect_out "CPUs merged" "0-2"
ok "cpu unbind" cpu bind default 0,2
ok "cpu show all" cpu show
expect_out "unbound CPUs return to default" "default: 0,2
p1: 1
p2: 3"
usage "an empty CPU list is refused" "cpu bind: the CPU list '' names no CPU (e.g. 0-3,8)" \
	cpu bind p1 ''
ok "cpu show p1" cpu show p1
expect_out "empty CPU list changed nothing" "1"

# cpu assoc: per CPU the group it is bound to and the CLOSID in force there
ok "p1 gets its own masks" schema set p1 'L3:0=f;1=f'
ok "cpu assoc" cpu assoc
expect_out "cpu assoc" "precedence=cpu: a CPU bound to a group runs every task with that group's allocation; on other CPUs a task runs with its own group's
 CPU bound to             CLOSID (IA32_PQR_ASSOC)
   0 default              0
   1 p1                   1
   2 default              0
   3 p2                   0"
ok "cpu assoc -j of a list" -j cpu assoc 1,3
json "cpu assoc -j" "[[e['cpu'], e['group'], e['closid'], e['precedence']] for e in d]" \
	'[[1, "p1", 1, "cpu"], [3, "p2", 0, "cpu"]]'
usage "cpu assoc of a bad list" "cpu assoc: CPU list 'x': not a CPU number or a range a-b" \
	cpu assoc x
failure "cpu assoc of a CPU that is not there" \
	"CPU 9 does not exist or is not usable (have 0-3)" cpu assoc 9
ok "p1 back to all-ones" schema set p1 'L3:0=fffff;1=fffff'

snapshot "$TMP/before"
failure "a CPU the machine lacks" "CPU 9 does not exist or is not usable (have 0-3)" cpu bind p1 9
failure "one bad CPU among good ones" "CPU 9 does not exist or is not usable (have 0-3)" cpu bind p1 0,2,9
failure "CPU into an unknown group" "no group named 'nope'" cpu bind nope 0
failure "task into an unknown group" "no group named 'nope'" task bind nope 1
unchanged "failed binds are moved back" "$TMP/before"

# ---- real tasks (another state: the machine is recorded per state) -----
STATE=$TMP/real
mkdir -m 700 "$STATE"
MACHINE=$MACHINE_REAL
ok "real: create p1" group create p1
spawn sleep 300
SLEEPER=$SPAWNED
ok "real: bind a live task" task bind p1 "$SLEEPER"
ok "real: task show p1" task show p1
expect_out "real: the live task is listed" "$SLEEPER"

run task show default --all
expect_rc 0 "real: task show default --all"
if printf '%s\n' "$OUT" | grep -qx "$$"; then pass; else
	fail "real: this shell ($$) is listed in the default group"; fi
# without --all: the first 32, and how many there are on stderr (stdout: task ids only)
ALL=$(printf '%s\n' "$OUT" | wc -l)
run task show default
if [ "$(printf '%s\n' "$OUT" | wc -l)" -eq 32 ] && [ "$ALL" -gt 32 ]; then pass; else
	fail "real: task show default shows 32 of $ALL: $(printf '%s\n' "$OUT" | wc -l)"; fi
expect_err_has "real: and says how many" "rdtctl: note: the first 32 of the "
run group show default
expect_out_contains "real: group show default says how many" " in all; --all lists them)"
if printf '%s\n' "$OUT" | grep -qx "$SLEEPER"; then
	fail "real: a bound task is not listed in default"; else pass; fi

snapshot "$TMP/before"
failure "real: no such task" "task 999999999 does not exist" task bind p1 999999999
failure "real: one missing task among live ones" "task 999999999 does not exist" \
	task bind p1 $$ 999999999
unchanged "real: a failed bind moved nothing" "$TMP/before"
ok "real: task show p1" task show p1
expect_out "real: only the sleeper" "$SLEEPER"

# --process: every thread of the process
spawn sleep 300
SLEEPER2=$SPAWNED
ok "real: --process" task bind p1 "$SLEEPER2" --process
expect_out "real: --process binds its one thread" "bound 1 task to group p1"
ok "real: task show p1" task show p1
expect_out "real: both listed" "$(printf '%s\n%s\n' "$SLEEPER" "$SLEEPER2" | sort -n)"
failure "real: --process of no process" \
	"no process 999999999 (/proc/999999999/task: No such file or directory)" \
	task bind p1 999999999 --process

# a task that exits leaves its group
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null
ok "real: after exit" task show p1
expect_out "real: the exited task is gone" "$SLEEPER2"
kill "$SLEEPER2"
wait "$SLEEPER2" 2>/dev/null
ok "real: after both exited" task show p1
expect_out "real: no task left" ""
ok "real: group show" group show p1
expect_out_has "real: group show lists no task" "  tasks:   (none)"

finish
