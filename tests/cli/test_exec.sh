# SPDX-License-Identifier: LGPL-2.1-or-later
# test_exec: rdtctl exec GROUP [--] CMD runs CMD bound to GROUP from its first
# instruction (the same process: exec keeps its id and start time), with
# CMD's exit status; refusals run nothing.
. "$(dirname "$0")/lib.sh"
need_python
MACHINE=$MACHINE_REAL

ok "group g" group create g
# CMD asks which group it is in: itself, right after exec
run exec g -- sh -c "exec \"$RDTCTL\" --backend sim --state-dir \"$STATE\" task show g"
expect_rc 0 "exec runs the command"
# the process rdtctl started as is the one bound, and it is CMD now
spawn "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" exec g -- sleep 30
me=$SPAWNED
is_sleep() { grep -q '^sleep' "/proc/$1/comm" 2>/dev/null; }
# rdtctl binds, then execs: once the process is sleep, both are done
if wait_until 60 is_sleep "$me"; then pass; else fail "exec: process $me is not sleep"; fi
ok "task show g" -j task show g
json "exec: the command's process is in g" "$me in d['tasks']" "true"
run exec g -- sh -c 'exit 7'
expect_rc 7 "exec: the command's exit status"
run exec g sh -c 'exit 0'
expect_rc 0 "exec without --"
failure "exec: no such group runs nothing" "no group named 'nope'" exec nope -- touch "$TMP/ran"
if [ -e "$TMP/ran" ]; then fail "exec ran the command although the bind failed"; else pass; fi
run exec g -- /nonexistent/cmd
expect_rc 127 "exec: 127 for a command not found"
expect_err_has "exec: no such command" "rdtctl: cannot run /nonexistent/cmd: No such file or directory"
usage "exec: no command" "missing command: usage: rdtctl exec GROUP [--] CMD [ARGS...]" exec g --
usage "exec: no group" "missing argument: usage: rdtctl exec GROUP [--] CMD [ARGS...]" exec
finish
