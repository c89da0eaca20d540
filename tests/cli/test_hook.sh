# SPDX-License-Identifier: LGPL-2.1-or-later
# test_hook: `rdtctl hook start|status|stop` with the real BPF program, on
# the sim backend with the host's topology: a task pinned to CPU 1 bound
# with `task bind` makes the agent apply its group's CLOSID there; `task
# show` lists it; a CPU bind overrides it; stop leaves nothing behind; and
# the refusals. The library-level scenario is tests/unit/test_hook.c.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "loading the BPF program needs root"
[ -e /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "the task needs a CPU 1"
need_free_hook

# This shell and what it runs (rdtctl, python for the JSON) stay on CPU 0: on
# CPU 1 they would be tasks of the default group switching in between the
# watched task's runs.
taskset -cp 0 $$ >/dev/null 2>&1 || skip "cannot pin this shell to CPU 0"

# the host's topology: real CPU numbers, real tasks
hk()
{
	"$RDTCTL" --backend sim --state-dir "$STATE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl $*"
}

hk -j hook status
if [ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "built without the switch hook"; then
	skip "this rdtctl was built without the switch hook"
fi
expect_rc 0 "hook status before start"
json "not loaded" "[d['built'], d['loaded'], d['agent_running'], d['cpus']]" \
	'[true, false, false, []]'

HOOK_STATE=$STATE

# The L3 domain of CPU 1, where the task runs: the host may have one L3 for
# all CPUs or one per CPU (HWLOC_SYNTHETIC makes either).
D1=$(host_l3_of_cpu 1)
hk group create g1 --schema "L3:$D1=f"
expect_rc 0 "group g1"
hk group create g2 --schema "L3:$D1=f0"
expect_rc 0 "group g2"

# closid GROUP: its CLOSID in CPU 1's L3 domain
closid()
{
	hk -j group show "$1"
	l3_closid_in "$D1"
}
C1=$(closid g1)
C2=$(closid g2)
if [ "$C1" = 1 ] && [ "$C2" = 2 ]; then pass; else fail "CLOSIDs of g1, g2: $C1 $C2"; fi

hk hook start
expect_rc 0 "hook start"
case $OUT in
"switch hook started (agent pid "*")") pass ;;
*) fail "hook start says '$OUT'" ;;
esac
AGENT=$(printf '%s' "$OUT" | sed 's/.*pid \([0-9]*\).*/\1/')
if [ -d /sys/fs/bpf/rdtalloc ]; then pass; else fail "nothing pinned under /sys/fs/bpf/rdtalloc"; fi
if [ "$(stat -c %a /sys/fs/bpf/rdtalloc)" = 700 ]; then pass; else
	fail "/sys/fs/bpf/rdtalloc is not mode 0700"; fi

hk -j hook status
json "status: running with the agent started" \
	"[d['loaded'], d['agent_running'], d['agent_pid'] == $AGENT, len(d['cpus']) == d['ncpus']]" \
	'[true, true, true, true]'

hk hook start
expect_rc 1 "a second hook start"
expect_err_has "names the agent" "the switch hook is already running (agent pid $AGENT)"

# kill -9 of the agent: it is gone (a zombie, here, where init does not reap
# it), status says so, and a new start takes over
kill -9 "$AGENT"
wait_until 60 pid_gone "$AGENT"
hk -j hook status
json "status after kill -9: loaded, no agent" "[d['loaded'], d['agent_running']]" '[true, false]'
hk hook start
expect_rc 0 "hook start after the agent was killed"
AGENT2=$(printf '%s' "$OUT" | sed 's/.*pid \([0-9]*\).*/\1/')
if [ "$AGENT2" != "$AGENT" ]; then pass; else fail "the new agent has the dead one's pid"; fi
AGENT=$AGENT2

# A task pinned to CPU 1 that sleeps and wakes, busy for 2 ms at each wake:
# under load it holds the CPU long enough for the agent's write, and the
# sampled "applied" shows it (a task that ran for moments might never be seen). It says when it runs: bound
# before that, the helpers a launcher (a pyenv shim, say) forks on the way
# would inherit the group too, as children do.
python3 -c '
import os, sys, time
os.sched_setaffinity(0, {1})
os.nice(-20)  # holds CPU 1 against a loaded machine (root)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    t = time.monotonic() + 0.002
    while time.monotonic() < t:
        pass
    time.sleep(0.0005)
' "$TMP/task.pid" &
TASK=$!
CHILDREN="$CHILDREN $TASK"
i=0
while [ ! -s "$TMP/task.pid" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
if [ "$(cat "$TMP/task.pid")" = "$TASK" ]; then pass; else
	fail "the pinned task did not start as pid $TASK"; fi

# applied_on CPU WANT: within 150 polls (3 s or more), the agent made CPU's PQR_ASSOC hold WANT
applied_on()
{
	a_i=0
	while [ $a_i -lt 150 ]; do
		hk -j hook status
		a_got=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['cpus'][$1]['applied'])")
		[ "$a_got" = "$2" ] && return 0
		sleep 0.02
		a_i=$((a_i + 1))
	done
	return 1
}

hk task bind g1 "$TASK"
expect_rc 0 "task bind g1"
hk task show g1
expect_out "task show lists exactly the task" "$TASK"
if applied_on 1 "$C1"; then pass; else fail "CPU 1 never ran with g1's CLOSID $C1"; fi
# the same, as the register reads back (cpu assoc: the simulated PQR_ASSOC)
a_i=0
while [ $a_i -lt 500 ]; do
	hk -j cpu assoc 1
	[ "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["closid"])')" = "$C1" ] && break
	sleep 0.02
	a_i=$((a_i + 1))
done
if [ $a_i -lt 500 ]; then pass; else fail "cpu assoc 1 never showed g1's CLOSID $C1"; fi

hk cpu bind g2 1
expect_rc 0 "cpu bind g2 1"
if applied_on 1 "$C2"; then pass; else fail "the CPU bind did not override the task's group"; fi
hk cpu bind default 1
if applied_on 1 "$C1"; then pass; else fail "CPU 1 did not go back to the task's group"; fi

# A schema change that moves g1 to another CLOSID reaches the running task.
hk schema set g1 "L3:$D1=f0"
C1B=$(closid g1)
if [ "$C1B" = "$C2" ]; then pass; else fail "g1 with g2's mask should share CLOSID $C2, has $C1B"; fi
if applied_on 1 "$C2"; then pass; else fail "the schema change did not reach CPU 1"; fi

hk task bind default "$TASK"
hk task show g1
expect_out "task show after unbinding" ""
if applied_on 1 0; then pass; else fail "CPU 1 did not go back to the default CLOSID"; fi

# An exited task is in no group.
hk task bind g1 "$TASK"
kill "$TASK"
wait "$TASK" 2>/dev/null
CHILDREN=""
hk task show g1
expect_out "an exited task is listed nowhere" ""

# Another state directory is refused, and changes nothing.
mkdir -m 700 "$TMP/other"
run_raw --backend sim --state-dir "$TMP/other" hook stop
expect_rc 1 "hook stop from another state directory"
expect_err_has "names the served directory" "state directory $STATE"
hk -j hook status
json "still running" "[d['agent_running'], d['agent_pid'] == $AGENT]" '[true, true]'

hk hook stop
expect_rc 0 "hook stop"
expect_out "hook stop says so" "switch hook stopped"
if [ ! -e /sys/fs/bpf/rdtalloc ]; then pass; else fail "pins left under /sys/fs/bpf/rdtalloc"; fi
# gone, or a zombie its reaper has not collected yet
a_state=$(sed 's/.*) \(.\).*/\1/' "/proc/$AGENT/stat" 2>/dev/null)
case $a_state in
"" | Z | X) pass ;;
*) fail "the agent $AGENT still runs (state $a_state)" ;;
esac
hk hook stop
expect_rc 1 "hook stop when not loaded"
expect_err_has "says it is not loaded" "the switch hook is not loaded"

# A machine of virtual tasks cannot be followed by the hook.
run_raw --backend sim --state-dir "$TMP/virt" --machine "$MACHINE_VIRT" hook start
expect_rc 1 "hook start on virtual tasks"
expect_err_has "says why" "the switch hook follows real tasks"
if [ ! -e /sys/fs/bpf/rdtalloc ]; then pass; else fail "a refused start left pins"; fi

usage "hook with no verb" "hook: missing command (one of: start, stop, status, run, help)" hook

finish
