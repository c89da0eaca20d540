# SPDX-License-Identifier: LGPL-2.1-or-later
# test_agent: rdtctl agent (rdtalloc-agent) keeping a state true between
# commands, on the resctrl emulator with real cgroup v2 cgroups:
# - a task written into a bound cgroup (and into a cgroup below it) lands in
#   its group's control and MON group with no command run; a cgroup bound
#   elsewhere below it wins; a task of an unbound cgroup is never touched;
# - drift (a MON group removed, schemata rewritten, a control group of ours
#   removed) is repaired (allowed 30 s: a loaded machine), and logged;
# - one agent per state (the second names the first's pid); SIGTERM stops it
#   cleanly; kill -9 loses nothing: what happened meanwhile is done at restart;
# - the fallback without BPF (--no-bpf) places by its scan and says so;
# - /metrics passes promtool check metrics, /healthz answers 200;
# - a container gone without poststop (its process killed, its cgroup
#   removed) is released, with the group made for it, by the agent, and
#   without an agent by rdtctl sync.
. "$(dirname "$0")/lib.sh"
need_python

FS=${RDTALLOC_TEST_RESCTRLFS:-}
[ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || skip "the agent's tests need root and /dev/fuse"
[ -n "$FS" ] && [ -x "$FS" ] || skip "no resctrl emulator (RDTALLOC_TEST_RESCTRLFS)"
[ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ] || skip "no rdtalloc-agent (a build without libmicrohttpd)"
CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGR" ] || skip "cgroup v2 is not mounted"

MACHINE=$MACHINE_REAL
MNT=$TMP/resctrl
NAME=rdtalloc-agent-test-$$
CG=$CGR/$NAME
PORT=$(free_port)
FSPID=
APID=

mounted() { grep -q " $MNT fuse.resctrl " /proc/mounts; }

agent_cleanup()
{
	[ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null
	cleanup_children
	for d in "$CG/sub/deep" "$CG/sub" "$CG/other" "$CG/c1" "$CG"; do
		[ -d "$d" ] || continue
		while read -r p; do echo "$p" >"$CGR/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null
	done
	if mounted; then fusermount3 -u -z "$MNT" 2>/dev/null; fi
	[ -n "$FSPID" ] && wait "$FSPID" 2>/dev/null
}
CLEANUP=agent_cleanup

mkdir -p "$MNT"
"$FS" "$MNT" -f --machine "$MACHINE" 2>"$TMP/fs.log" &
FSPID=$!
i=0
while ! mounted; do
	i=$((i + 1))
	[ $i -gt 1200 ] && { echo "FATAL: the emulator did not mount" >&2; exit 1; }
	sleep 0.05
done

rc() { run_raw --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" --state-dir "$STATE" "$@"; }

# start_agent ARGS: the agent in the background; APID its pid; waits until it serves
start_agent()
{
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" \
		--state-dir "$STATE" agent --listen "127.0.0.1:$PORT" "$@" 2>>"$TMP/agent.log" &
	APID=$!
	i=0
	while [ ! -s "$STATE/agent.json" ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s "$STATE/agent.json" ] || fail "the agent did not start: $(cat "$TMP/agent.log")"
}

in_tasks() { grep -qx "$2" "$1" 2>/dev/null; }
dir_of() { rc -j group show "$1" >/dev/null; ls -d "$MNT"/rdtalloc-*/mon_groups/"$1" 2>/dev/null | sed 's|/mon_groups/.*||'; }

mkdir "$CG" "$CG/sub" "$CG/other" "$CG/c1" || fail "mkdir cgroups"
rc group create batch --schema 'L3:0=3'
expect_rc 0 "group batch"
rc group create db --schema 'L3:0=c'
expect_rc 0 "group db"
rc cgroup bind batch "$NAME"
expect_rc 0 "bind the cgroup to batch"
rc cgroup bind db "$NAME/other"
expect_rc 0 "bind the cgroup below it to db"
BATCH=$(dir_of batch)
DB=$(dir_of db)
[ -n "$BATCH" ] && [ -n "$DB" ] && [ "$BATCH" != "$DB" ] && pass || fail "control groups of batch and db: '$BATCH' '$DB'"

rc agent status
expect_rc 3 "agent status without an agent (LSB: not running)"
expect_out "no agent" "no agent serves $STATE/state.json (start one: rdtctl agent, or the rdtalloc-agent service)"

# a build without BPF (RDTALLOC_BPF=OFF) has an agent that scans: it must say so
MEMB=bpf
"$RDTCTL" --backend sim --state-dir "$TMP/hk" hook status 2>&1 |
	grep -q "built without the switch hook" && MEMB=scan

start_agent
rc -j agent status
json "status: running, joins seen by $MEMB" "[d['running'], d['membership'], d['pid']]" "[true, \"$MEMB\", $APID]"
rc agent --listen none
expect_rc 1 "a second agent for the same state"
expect_err_has "the first one named" "rdtalloc-agent: an agent serves $STATE/state.json already (pid $APID): one agent per state"

# joins, placed with no command run
start_in "$CG"
if within 30 in_tasks "$BATCH/mon_groups/batch/tasks" "$P"; then pass; else
	fail "a task joining the bound cgroup was not placed in batch's MON group"; fi
in_tasks "$BATCH/tasks" "$P" && pass || fail "not in batch's control group"
start_in "$CG/sub"
if within 30 in_tasks "$BATCH/mon_groups/batch/tasks" "$P"; then pass; else
	fail "a task joining a cgroup below the bound one was not placed"; fi
start_in "$CG/other"
if within 30 in_tasks "$DB/mon_groups/db/tasks" "$P"; then pass; else
	fail "a task joining the cgroup bound to db below batch's was not placed in db"; fi
mkdir "$CGR/$NAME-unbound" 2>/dev/null
start_in "$CGR/$NAME-unbound"
UNB=$P
sleep 0.5
if grep -qx "$UNB" "$MNT"/rdtalloc-*/tasks 2>/dev/null; then fail "a task of an unbound cgroup was moved"; else pass; fi
kill "$UNB" 2>/dev/null
wait "$UNB" 2>/dev/null
rmdir "$CGR/$NAME-unbound" 2>/dev/null

# drift: repaired (the test allows 30 s: a loaded machine), and said
rmdir "$BATCH/mon_groups/batch"
echo "L3:0=f;1=f" >"$BATCH/schemata"
if within 30 sh -c "[ -d '$BATCH/mon_groups/batch' ] && grep -q 'L3:0=3;' '$BATCH/schemata'"; then
	pass; else fail "drift not repaired within 30 s: $(cat "$BATCH/schemata")"; fi
# (the check may run between the rmdir and the write: one or two repairs, each logged)
if within 30 grep -q "rdtalloc-agent: the kernel disagrees with the state (0 control groups of ours missing, 0 left over, [01] with other schemata or CPUs, 1 monitoring group missing): .*made .*/mon_groups/batch" "$TMP/agent.log"; then
	pass; else fail "the repair was not logged: $(cat "$TMP/agent.log")"; fi

# metrics and health
agent_metrics "$PORT"
BPF1=1
[ $MEMB = scan ] && BPF1=0
for m in 'rdtalloc_groups 3' "rdtalloc_agent_bpf $BPF1" 'rdtalloc_closids_in_use{resource="L3",cache_id="0"} 3'; do
	grep -qxF "$m" "$TMP/metrics" && pass || fail "/metrics has no line '$m'"; done
grep -q '^rdtalloc_agent_repairs_total [1-9]' "$TMP/metrics" && pass || fail "no repairs counted"
if [ $MEMB = bpf ]; then
	grep -q '^rdtalloc_agent_membership_lag_seconds_count [3-9]' "$TMP/metrics" && pass ||
		fail "the lag histogram did not count the joins"
fi
python3 - "$PORT" >"$TMP/health" 2>&1 <<'PY'
import sys, urllib.request
r = urllib.request.urlopen("http://127.0.0.1:%s/healthz" % sys.argv[1], timeout=5)
print(r.status, r.read().decode().split(";")[0].strip())
PY
case $(cat "$TMP/health") in "200 last sync "*) pass ;; *) fail "/healthz: $(cat "$TMP/health")" ;; esac

# kill -9: nothing lost - a join while no agent runs is placed at restart
kill -KILL "$APID"
wait "$APID" 2>/dev/null
rc agent status
expect_rc 3 "agent status after kill -9"
expect_out "killed: not running" "no agent serves $STATE/state.json (start one: rdtctl agent, or the rdtalloc-agent service)"
start_in "$CG"
LATE=$P
sleep 0.3
in_tasks "$BATCH/tasks" "$LATE" && fail "placed with no agent running?" || pass
: >"$TMP/agent.log"
start_agent
if within 30 in_tasks "$BATCH/mon_groups/batch/tasks" "$LATE"; then pass; else
	fail "the join made while the agent was dead was not placed at its restart"; fi
# ... counted and said
caught="caught up with what happened while no agent ran: [1-9][0-9]* tasks\{0,1\} placed"
# the task is placed before the sync's report is logged: wait for the line
if within 10 grep -q "^rdtalloc-agent: $caught" "$TMP/agent.log"; then pass; else
	fail "the catch-up was not logged: $(cat "$TMP/agent.log")"; fi
rc -j agent status
json "the catch-up counted in tasks_moved" "d['tasks_moved'] >= 1" true

# SIGTERM: a clean stop
kill -TERM "$APID"
wait "$APID"
[ $? -eq 0 ] && pass || fail "SIGTERM: the agent did not exit 0"
[ -e "$STATE/agent.json" ] && fail "agent.json left after a clean stop" || pass
APID=

# the fallback: no BPF, a scan every second, and it says so
start_agent --no-bpf --scan 1
rc -j agent status
json "status: the fallback" "d['membership']" scan
rc agent status
expect_out_has "status says it is the fallback" "joins: the fallback: a full sync at a fixed interval (no BPF)"
start_in "$CG/sub"
if within 30 in_tasks "$BATCH/mon_groups/batch/tasks" "$P"; then pass; else
	fail "the fallback's scan did not place a join"; fi
# its lag, bounded by the time since the scan before, in the histogram too
sleep 0.2
python3 - "$PORT" >"$TMP/metrics" 2>&1 <<'PY'
import sys, urllib.request
url = "http://127.0.0.1:%s/metrics" % sys.argv[1]
print(urllib.request.urlopen(url, timeout=5).read().decode(), end="")
PY
grep -q '^rdtalloc_agent_membership_lag_seconds_count [1-9]' "$TMP/metrics" && pass ||
	fail "--no-bpf: the lag histogram is empty: $(grep lag_seconds_count "$TMP/metrics")"
grep -q '^rdtalloc_agent_membership_lag_seconds_bucket{le="5"} [1-9]' "$TMP/metrics" && pass ||
	fail "--no-bpf: a join found by a 1 s scan not within 5 s: $(grep lag_seconds "$TMP/metrics")"

# a container gone without poststop: released by the agent
start_in "$CG/c1"
CP=$P
printf '{"ociVersion": "1.0.2", "id": "leak1", "status": "creating", "pid": %d, "bundle": "/b", "annotations": {"rdtalloc.group": "made1", "rdtalloc.schema": "L3:0=30"}}' "$CP" >"$TMP/ctr.json"
rc oci-hook createRuntime <"$TMP/ctr.json"
expect_rc 0 "a container placed, its group made"
rc group list
expect_out_has "made1 exists" "made1"
kill -KILL "$CP"
wait "$CP" 2>/dev/null
rmdir "$CG/c1"
if within 30 sh -c "! '$RDTCTL' --backend resctrl --resctrl-root '$MNT' --state-dir '$STATE' group list | grep -qx made1"; then
	pass; else fail "the dead container's group was not released within 30 s"; fi
rc save
case $OUT in *leak1*) fail "its record stayed" ;; *) pass ;; esac
# a soak: containers killed with their runtime, one after another in a
# cgroup of the same name (each a new cgroup): none left behind. CI runs
# 100 cycles; tests/bench/bench_agent runs 10,000.
rc group list
G0=$(printf '%s\n' "$OUT" | wc -l)
C0=$(ls -d "$MNT"/rdtalloc-* | wc -l)
k=0
while [ $k -lt 100 ]; do
	mkdir "$CG/c1"
	start_in "$CG/c1"
	CP=$P
	printf '{"ociVersion": "1.0.2", "id": "soak%d", "status": "creating", "pid": %d, "bundle": "/b", "annotations": {"rdtalloc.group": "soak%d", "rdtalloc.schema": "L3:0=%x"}}' \
		"$k" "$CP" "$k" $((1 << (k % 16))) >"$TMP/ctr.json"
	rc oci-hook createRuntime <"$TMP/ctr.json"
	[ "$RC" -eq 0 ] || { fail "soak cycle $k: $ERR"; break; }
	kill -KILL "$CP"
	wait "$CP" 2>/dev/null
	while ! rmdir "$CG/c1" 2>/dev/null; do sleep 0.01; done
	k=$((k + 1))
done
# the last one is the agent's to release (the others went at each next hook call)
within 30 sh -c "! grep -q '\"id\":\"soak' '$STATE/state.json'"
rc group list
G1=$(printf '%s\n' "$OUT" | wc -l)
C1=$(ls -d "$MNT"/rdtalloc-* | wc -l)
R1=$(grep -o '"id":"soak' "$STATE/state.json" | wc -l)
if [ "$G1" -eq "$G0" ] && [ "$C1" -eq "$C0" ] && [ "$R1" -eq 0 ]; then pass; else
	fail "100 containers killed without poststop left groups $G0 -> $G1, control groups $C0 -> $C1, records $R1"; fi
kill -TERM "$APID"
wait "$APID"
APID=

# ... and without an agent, by rdtctl sync; a live container is kept
mkdir "$CG/c1"
start_in "$CG/c1"
CP=$P
printf '{"ociVersion": "1.0.2", "id": "leak2", "status": "creating", "pid": %d, "bundle": "/b", "annotations": {"rdtalloc.group": "made2", "rdtalloc.schema": "L3:0=30"}}' "$CP" >"$TMP/ctr.json"
rc oci-hook createRuntime <"$TMP/ctr.json"
expect_rc 0 "a second container"
rc sync
expect_rc 0 "sync with the container alive"
rc group list
expect_out_has "a live container's group stays" "made2"
kill -KILL "$CP"
wait "$CP" 2>/dev/null
rmdir "$CG/c1"
rc sync
expect_rc 0 "sync after the container died"
expect_out_has "sync says so" "1 container gone without poststop released"
rc group list
case $OUT in *made2*) fail "made2 stayed" ;; *) pass ;; esac
rc group list
expect_out_has "a group a person made stays" "batch"

# One honest answer about drift, from every look: resctrl lost db's control
# group and batch's monitoring group; each look prints our state, marks
# what resctrl does not hold (text and -j), exits 0, and writes nothing -
# monitor included. Then rdtctl sync brings it back.
rc sync --full
expect_rc 0 "in order before the drift"
DB=$(dir_of db)
BATCH=$(dir_of batch)
rmdir "$DB/mon_groups/db" "$DB"
rmdir "$BATCH/mon_groups/batch"
snap=$(cd "$MNT" && find . -maxdepth 3 -name 'rdtalloc-*' -o -maxdepth 3 -path '*mon_groups/*' | sort)
for look in info "group show" "group show db" "task show" "task show db" map "schema show" closids \
	"cgroup show" "monitor --count 1"; do
	# shellcheck disable=SC2086
	rc $look
	expect_rc 0 "$look over drift"
	case $look in
	monitor*) expect_out_contains "$look: db marked missing" "missing" ;;
	*) expect_out_contains "$look: db's drift marked" "drift: group db: its control group is missing (the next change, or the agent, repairs it)" ;;
	esac
done
rc group show batch
expect_out_contains "batch's missing monitoring group marked" "drift: group batch: its monitoring group is missing"
rc -j group show db
json "-j: db's drift member" "d['drift']" '["its control group is missing"]'
json "-j: db holds no CLOSID now" "[c['closid'] for c in d['closids']]" '[null, null]'
rc -j info
json "-j info: every drifted object" "sorted(d['drift'])" '["group batch: its monitoring group is missing", "group db: its control group is missing"]'
rc -j monitor --count 1
json "-j monitor: db missing" "sorted(set(x['state'] for g in d['groups'] if g['group'] == 'db' for x in g['domains']))" '["missing"]'
now=$(cd "$MNT" && find . -maxdepth 3 -name 'rdtalloc-*' -o -maxdepth 3 -path '*mon_groups/*' | sort)
if [ "$now" = "$snap" ]; then pass; else fail "a look wrote to resctrl: '$snap' -> '$now'"; fi
rc sync
expect_rc 0 "sync over drift"
expect_out_contains "sync says what it found and did" "resctrl differed from the state: made "
rc info
case $OUT in *"drift:"*) fail "drift left after sync: $OUT" ;; *) pass ;; esac

# no backend given where resctrl is mounted: resctrl, the one that allocates
env -u RDTALLOC_BACKEND "$RDTALLOC_AGENT" --resctrl-root "$MNT" --machine "$MACHINE" \
	--state-dir "$STATE" --listen none 2>>"$TMP/agent.log" &
APID=$!
within 5 test -s "$STATE/agent.json"
rc -j agent status
json "no backend given: the agent takes resctrl" "d['backend']" resctrl
kill -TERM "$APID"
wait "$APID"
APID=

finish
