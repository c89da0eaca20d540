# SPDX-License-Identifier: LGPL-2.1-or-later
# test_hook_faults: the switch hook's agent under faults, with the real BPF
# program on the sim backend. Tasks of three groups run and switch on CPU 1.
# - kill -9 of the agent: status says it is gone, a change made meanwhile
#   (a CPU bind) is applied within a second of `hook start`;
# - SIGSTOP for 2 s under the switch storm: events pile up behind the one in
#   flight (coalesced), and after SIGCONT a change made meanwhile is
#   applied within a second;
# - 8 processes binding tasks at once while the agent runs: the hook's task
#   storage and the state file agree afterwards, task by task.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/btf/vmlinux ] ||
	skip "loading the BPF program needs root and BTF"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "the tasks need a CPU 1"
need_free_hook
taskset -cp 0 $$ >/dev/null 2>&1 || skip "cannot pin this shell to CPU 0"

hk()
{
	"$RDTCTL" --backend sim --state-dir "$STATE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl $*"
}
hk hook status
if [ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "built without the switch hook"; then
	skip "this rdtctl was built without the switch hook"
fi
HOOK_STATE=$STATE

# field CPU KEY: a per-CPU field of hook status
field()
{
	hk -j hook status
	printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['cpus'][$1]['$2'])"
}
# applied_on CPU WANT [TRIES]: the agent made CPU's PQR_ASSOC hold WANT, polled every
# 20 ms, 150 times by default
applied_on()
{
	a_i=0
	while [ $a_i -lt "${3:-150}" ]; do
		[ "$(field "$1" applied)" = "$2" ] && return 0
		sleep 0.02
		a_i=$((a_i + 1))
	done
	return 1
}
closid()
{
	hk -j group show "$1"
	l3_closid_in "$D1"
}
agent_pid() { printf '%s' "$OUT" | sed 's/.*pid \([0-9]*\).*/\1/'; }

# CPU 1's L3 domain: one L3 for all CPUs, or one per CPU, as the host has it
D1=$(host_l3_of_cpu 1)
hk group create g1 --schema "L3:$D1=f"
hk group create g2 --schema "L3:$D1=f0"
hk group create g3 --schema "L3:$D1=f00"
expect_rc 0 "three groups"
C1=$(closid g1)
C2=$(closid g2)
C3=$(closid g3)

# three tasks on CPU 1, each a group's, switching every few hundred µs; each
# busy for half a millisecond at a wake, so that under load the sampled
# "applied" still catches each of them
SPIN='
import os, time
os.sched_setaffinity(0, {1})
os.nice(-20)  # holds CPU 1 against a loaded machine (root)
while True:
    t = time.monotonic() + 0.0005
    while time.monotonic() < t:
        pass
    time.sleep(0.0003)
'
T=""
for g in g1 g2 g3; do
	python3 -c "$SPIN" &
	T="$T $!"
	CHILDREN="$CHILDREN $!"
done
sleep 0.2
set -- $T
hk task bind g1 "$1"
hk task bind g2 "$2"
hk task bind g3 "$3"
expect_rc 0 "the tasks bound"

hk hook start
expect_rc 0 "hook start"
AGENT=$(agent_pid)

# The storm reaches CPU 1: it runs each group's CLOSID in turn.
seen=""
i=0
while [ $i -lt 100 ]; do
	seen="$seen $(field 1 applied)"
	i=$((i + 1))
done
n=0
for c in "$C1" "$C2" "$C3"; do
	case " $seen " in *" $c "*) n=$((n + 1)) ;; esac
done
if [ $n -ge 2 ]; then pass; else fail "CPU 1 did not follow the tasks' groups (saw$seen)"; fi

# ---- kill -9 -------------------------------------------------------------------
kill -9 "$AGENT"
wait_until 60 pid_gone "$AGENT"
hk -j hook status
json "after kill -9: loaded, no agent" "[d['loaded'], d['agent_running']]" '[true, false]'
hk hook status
expect_out_has "status says it is gone" "switch hook: loaded, no agent running (start one: rdtctl hook start)"
# a change while nobody applies it: CPU 1 to g3 (precedence=cpu: it wins over the tasks)
hk cpu bind g3 1
expect_rc 0 "cpu bind while the agent is dead"
hk hook start
expect_rc 0 "hook start after kill -9"
if [ "$(agent_pid)" != "$AGENT" ]; then pass; else fail "the new agent has the dead one's pid"; fi
AGENT=$(agent_pid)
if applied_on 1 "$C3"; then pass; else
	fail "within seconds of the restart CPU 1 does not hold g3's CLOSID $C3"; fi
if applied_on 0 0; then pass; else fail "CPU 0 (default) lost its CLOSID 0"; fi
hk -j cpu assoc 1
json "the register image agrees" "d[0]['closid']" "$C3"
hk cpu bind default 1

# ---- SIGSTOP under the storm ----------------------------------------------------------
if applied_on 1 "$C1" 100 || applied_on 1 "$C2" 100; then pass; else
	fail "CPU 1 did not go back to following the tasks"; fi
before=$(field 1 coalesced)
kill -STOP "$AGENT"
sleep 0.5
# the change, in the background: a stopped agent may hold the state's lock
# (its flusher writes the registers into the state under it), and then every
# writer waits for SIGCONT - the lock is what keeps the state whole
"$RDTCTL" --backend sim --state-dir "$STATE" cpu bind g3 1 >"$TMP/bind3.out" 2>&1 &
BIND3=$!
sleep 1.5
# Nothing reads the state while the agent is stopped: it may hold the lock,
# and a read would wait for it as the bind does. The counters are
# cumulative, so what piled up while it was stopped is read after SIGCONT.
kill -CONT "$AGENT"
after=$(field 1 coalesced)
if [ "$after" -gt "$before" ]; then pass; else
	fail "no switch was coalesced while the agent was stopped ($before -> $after)"; fi
dropped=$(field 1 dropped)
wait "$BIND3"
if [ $? -eq 0 ]; then pass; else fail "cpu bind during SIGSTOP failed: $(cat "$TMP/bind3.out")"; fi
if applied_on 1 "$C3"; then pass; else
	fail "within a second of SIGCONT CPU 1 does not hold g3's CLOSID $C3"; fi
# one event in flight per CPU: the ring buffer cannot overflow, whatever the storm
if [ "$dropped" = 0 ]; then pass; else fail "$dropped events were dropped"; fi
hk -j hook status
json "the agent still runs" "[d['agent_running'], d['agent_pid'] == $AGENT]" '[true, true]'
hk cpu bind default 1

# ---- 8 processes binding at once ------------------------------------------------------
W=""
for k in 1 2 3 4 5 6 7 8; do
	sleep 300 &
	W="$W $!"
	CHILDREN="$CHILDREN $!"
done
k=0
for w in $W; do
	k=$((k + 1))
	(
		for j in 1 2 3 4 5 6; do
			g=g$(((k + j) % 3 + 1))
			"$RDTCTL" --backend sim --state-dir "$STATE" task bind "$g" "$w" \
				>/dev/null 2>>"$TMP/bind.err" || echo "bind $w $g failed" >>"$TMP/bind.err"
		done
	) &
	BINDERS="${BINDERS:-} $!"
done
wait $BINDERS
if [ ! -s "$TMP/bind.err" ]; then pass; else fail "concurrent binds failed: $(head -3 "$TMP/bind.err")"; fi
# the hook's view (task storage, via the iterator) against the state file's table
for g in g1 g2 g3; do
	hk task show "$g"
	printf '%s\n' "$OUT" | sed "s/^/$g /" >>"$TMP/hook.view"
done
python3 - "$STATE/state.json" "$TMP/hook.view" $W <<'EOF' >"$TMP/cmp.out"
import json, sys
st = json.load(open(sys.argv[1]))
names = [row.split()[0] for row in st["groups"].splitlines()]
table = {}
for row in st["tasks"].splitlines():
    tid, g, _ = row.split()
    table[int(tid)] = names[int(g)]
hook = {}
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 2:
        hook[int(parts[1])] = parts[0]
bad = [(w, table.get(w), hook.get(w)) for w in map(int, sys.argv[3:])
       if table.get(w) is None or table.get(w) != hook.get(w)]
print("ok" if not bad else "differ: %s" % bad)
EOF
expect_file_out()
{
	if [ "$(cat "$TMP/cmp.out")" = ok ]; then pass; else
		fail "task storage and state file: $(cat "$TMP/cmp.out")"; fi
}
expect_file_out
# and each task's last binding is the one its own binder made last: (k + 6) % 3 + 1
k=0
okk=true
for w in $W; do
	k=$((k + 1))
	want=g$(((k + 6) % 3 + 1))
	grep -qx "$want $w" "$TMP/hook.view" || okk=false
done
if $okk; then pass; else fail "a task is not in the group its binder bound it to last"; fi

hk hook stop
expect_rc 0 "hook stop"
finish
