# SPDX-License-Identifier: LGPL-2.1-or-later
# tasks: moves, the kernel's parsing (comma lists, 0 = the writer), errors,
# dead tasks leaving the listing, rmdir giving tasks back to root, the
# permission rule, and the fork-inheritance approximation.
. "$(dirname "$0")/lib.sh"

NL='
'
KIDS=
spawn_sleep() {
	sleep 100 &
	KIDS="$KIDS $!"
	LAST=$!
}
cleanup_tasks() {
	for k in $KIDS; do
		kill "$k" 2>/dev/null
	done
	cleanup
}
trap cleanup_tasks EXIT

# asc TID...: the tids as a tasks file lists them, ascending (pids wrap
# around: a later task may have the smaller id)
asc() {
	printf '%s\n' "$@" | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# has FILE TID: is TID listed in FILE?
has() {
	grep -qx "$2" "$1"
}
check_in() {
	if has "$2" "$3"; then pass; else fail "$1: $3 not in $2: $(tr '\n' ' ' < "$2")"; fi
}
check_not_in() {
	if has "$2" "$3"; then fail "$1: $3 is in $2"; else pass; fi
}
# wait_child PID: the pid of PID's first child, once it exists.
wait_child() {
	i=0
	while [ -z "$(pgrep -P "$1" | head -n 1)" ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	pgrep -P "$1" | head -n 1
}

start_fs --machine "topology=package:1 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.cdp=0"
chmod 755 "$TMP"
mkdir "$MNT/g1" "$MNT/g2"
T=$MNT/g1/tasks

spawn_sleep
P=$LAST
check_in "new task in root" "$MNT/tasks" "$P"
ok_write "move" "$T" "$P"
check "g1 tasks" "$P" "$(cat "$T")"
check_not_in "moved out of root" "$MNT/tasks" "$P"
ok_write "move again (no-op)" "$T" "$P$NL"
check "g1 tasks again" "$P" "$(cat "$T")"
kill "$P"
wait "$P" 2>/dev/null
check "dead task gone" "" "$(cat "$T")"
check_not_in "dead task not in root" "$MNT/tasks" "$P"

bad_write "no such task" "$T" "2147483647" "No such process" \
	"No task 2147483647${NL}Error while processing task 2147483647"
bad_write "not a number" "$T" "abc$NL" "Invalid argument" "Task list parsing error pid abc"
bad_write "negative" "$T" "-5$NL" "Invalid argument" "Invalid pid -5"
spawn_sleep
A=$LAST
spawn_sleep
B=$LAST
spawn_sleep
C=$LAST
# One id per line is not the kernel's list syntax: commas are.
bad_write "two lines" "$T" "$A$NL$B$NL" "Invalid argument" "Task list parsing error pid $A$NL$B"
check "nothing moved" "" "$(cat "$T")"
ok_write "comma list with blanks" "$T" "$A, $B$NL"
check "g1 has A and B" "$(asc "$A" "$B")" "$(tr '\n' ' ' < "$T" | sed 's/ $//')"
# Stops at the first bad id: what came before has moved.
bad_write "partial list" "$MNT/g2/tasks" "$A,2147483647,$C" "No such process" \
	"No task 2147483647${NL}Error while processing task 2147483647"
check "A moved to g2" "$A" "$(cat "$MNT/g2/tasks")"
check "B stays" "$B" "$(cat "$T")"
check_in "C untouched" "$MNT/tasks" "$C"
ok_write "hex id" "$MNT/g2/tasks" "$(printf '0x%x' "$C")"
check "g2 has A and C" "$(asc "$A" "$C")" "$(tr '\n' ' ' < "$MNT/g2/tasks" | sed 's/ $//')"

# 0 is the writing task itself.
sh -c 'echo 0 > "$1" && exec sleep 100' sh "$T" &
S=$!
KIDS="$KIDS $S"
wait_until 60 has "$T" "$S"
check "0 is the writer" "$(asc "$B" "$S")" "$(tr '\n' ' ' < "$T" | sed 's/ $//')"

# rmdir: every task goes back to root.
rmdir "$MNT/g2"
check_in "A back in root" "$MNT/tasks" "$A"
check_in "C back in root" "$MNT/tasks" "$C"
mkdir "$MNT/g2"
check "new g2 is empty" "" "$(cat "$MNT/g2/tasks")"

# Fork: a child started after its parent joined g1 is in g1 too ...
sh -c 'echo 0 > "$1"; sleep 100 & wait' sh "$T" &
F=$!
KIDS="$KIDS $F"
FC=$(wait_child "$F")
KIDS="$KIDS $FC"
check_in "parent in g1" "$T" "$F"
check_in "child inherits g1" "$T" "$FC"
check_not_in "child not in root" "$MNT/tasks" "$FC"
# ... and stays there when its parent goes elsewhere or dies.
ok_write "parent to g2" "$MNT/g2/tasks" "$F"
check_in "child stays in g1" "$T" "$FC"
kill "$F"
wait "$F" 2>/dev/null
check_in "orphan stays in g1" "$T" "$FC"
# A child started before its parent was moved stays where it was.
sh -c 'sleep 100 & wait' &
E=$!
KIDS="$KIDS $E"
EC=$(wait_child "$E")
KIDS="$KIDS $EC"
sleep 0.1
ok_write "old parent to g1" "$T" "$E"
check_in "old parent in g1" "$T" "$E"
check_not_in "older child not in g1" "$T" "$EC"
check_in "older child in root" "$MNT/tasks" "$EC"
# Threads started after their leader was placed follow it.
if command -v python3 >/dev/null; then
	python3 -c 'import sys, threading, time
open(sys.argv[1], "w").write("0")
t = threading.Thread(target=time.sleep, args=(100,), daemon=True)
t.start()
time.sleep(100)' "$MNT/g2/tasks" &
	Y=$!
	KIDS="$KIDS $Y"
	i=0
	while [ "$(ls /proc/$Y/task | wc -l)" -lt 2 ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "two threads" "2" "$(ls /proc/$Y/task | wc -l)"
	for t in $(ls /proc/$Y/task); do
		check_in "thread $t follows its leader" "$MNT/g2/tasks" "$t"
	done
fi

# Permissions: a user may move only its own tasks (root-owned files refuse
# it anyway; chown hands a group to the user, as on kernfs).
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
chown -R 65534:65534 "$MNT/g2"
check "chown" "65534 65534" "$(stat -c '%u %g' "$MNT/g2/tasks")"
$NOBODY sleep 100 &
N=$!
KIDS="$KIDS $N"
if printf '%s' "$C" | $NOBODY dd of="$MNT/g2/tasks" conv=notrunc status=none 2>"$TMP/err"; then
	fail "nobody moved root's task $C"
else
	check "other user's task" "Operation not permitted" "$(sed 's/.*: //' "$TMP/err")"
	check_file "$MNT/info/last_cmd_status" "No permission to move task $C${NL}Error while processing task $C"
fi
if printf '%s' "$N" | $NOBODY dd of="$MNT/g2/tasks" conv=notrunc status=none 2>"$TMP/err"; then
	check_in "own task moved" "$MNT/g2/tasks" "$N"
else
	fail "nobody could not move its own task: $(cat "$TMP/err")"
fi
if printf '%s' "$N" | $NOBODY dd of="$MNT/tasks" conv=notrunc status=none 2>"$TMP/err"; then
	fail "nobody wrote root's tasks file"
else
	check "root-owned tasks file" "Permission denied" "$(sed 's/.*: //' "$TMP/err")"
fi
stop_fs

finish
