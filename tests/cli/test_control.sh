# SPDX-License-Identifier: LGPL-2.1-or-later
# test_control: the controller from the command line (docs/control.md).
# control sim-run: the exact JSON Lines of a small run (schema in force
# during the interval, the interval's own counts, a group that ran out
# holding its lines), the same run twice printing the same, decisions as
# other objects, --no-control and --static as baselines, "control
# --sim-run" as the same command, every bad input refused by name with the
# state unchanged. control set/show/clear/run: the configuration kept in
# the state and run live on the simulator's monitoring model; a miss-ratio
# bound live counts the group's cgroup with perf events (without a PMU:
# refused by name; RDTALLOC_CONTROL_PERF=software runs the same plumbing).
. "$(dirname "$0")/lib.sh"
need_python

MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"

# binary traces: a loop over LINES lines from BASE, N accesses (LINES 0: a stream)
mktrace()
{
	python3 - "$@" <<'PY'
import struct, sys
path, base, lines, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "wb") as f:
    f.write(b"RDTTRC01" + struct.pack("<Q", n))
    f.write(b"".join(struct.pack("<Q", (base + (i % lines if lines else i)) << 2) for i in range(n)))
PY
}
mktrace "$TMP/a1" 1048576 512 600
mktrace "$TMP/a2" 1048576 512 400
mktrace "$TMP/b" 16777216 0 700
mktrace "$TMP/loop" 1048576 3000 60000
mktrace "$TMP/stream" 16777216 0 60000

ok "a group" group create keep
snapshot "$TMP/before"

# --- the exact records (worked by hand in test_control.c) ---
run -j control sim-run --interval-accesses 300 --no-control a="$TMP/a1,$TMP/a2" b="$TMP/b"
expect_rc 0 "sim-run --no-control"
expect_out "exact JSON Lines" '{"interval":0,"groups":[{"group":"a","schema":"L3:0=ffff","accesses":300,"misses":300,"llc_occupancy_bytes":19200,"mbm_total_bytes":19200},{"group":"b","schema":"L3:0=ffff","accesses":300,"misses":300,"llc_occupancy_bytes":19200,"mbm_total_bytes":19200}]}
{"interval":1,"groups":[{"group":"a","schema":"L3:0=ffff","accesses":300,"misses":212,"llc_occupancy_bytes":32768,"mbm_total_bytes":13568},{"group":"b","schema":"L3:0=ffff","accesses":300,"misses":300,"llc_occupancy_bytes":38400,"mbm_total_bytes":19200}]}
{"interval":2,"groups":[{"group":"a","schema":"L3:0=ffff","accesses":300,"misses":0,"llc_occupancy_bytes":32768,"mbm_total_bytes":0},{"group":"b","schema":"L3:0=ffff","accesses":100,"misses":100,"llc_occupancy_bytes":44800,"mbm_total_bytes":6400}]}
{"interval":3,"groups":[{"group":"a","schema":"L3:0=ffff","accesses":100,"misses":0,"llc_occupancy_bytes":32768,"mbm_total_bytes":0},{"group":"b","schema":"L3:0=ffff","accesses":0,"misses":0,"llc_occupancy_bytes":44800,"mbm_total_bytes":0}]}'
# the issue's spelling is the same command
run -j control --sim-run --interval-accesses 300 --no-control a="$TMP/a1,$TMP/a2" b="$TMP/b"
expect_out_contains "control --sim-run" '{"interval":3,'
# a static configuration: its masks in every record
run -j control sim-run --interval-accesses 300 --static a=ff00 --static b=ff a="$TMP/a1,$TMP/a2" b="$TMP/b"
expect_out_contains "--static" '{"group":"a","schema":"L3:0=ff00"'
expect_out_contains "--static" '{"group":"b","schema":"L3:0=ff"'

# --- controlled: decisions between the records, deterministic, the stream confined ---
run -j control sim-run --interval-accesses 3000 a="$TMP/loop" b="$TMP/stream"
expect_rc 0 "controlled sim-run"
printf '%s\n' "$OUT" >"$TMP/run1"
run -j control sim-run --interval-accesses 3000 a="$TMP/loop" b="$TMP/stream"
if cmp -s "$TMP/run1" "$TMP/out"; then pass; else fail "two runs print differently"; fi
python3 - "$TMP/run1" >"$TMP/verdict" <<'PY'
import json, sys
iv, dec, schema_of_b = [], [], []
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "interval" in d:
        assert sorted(d) == ["groups", "interval"], d
        assert d["interval"] == len(iv), d
        iv.append(d)
        schema_of_b.append(d["groups"][1]["schema"])
    else:
        assert {"decision", "after_interval", "reason"} <= set(d), d
        dec.append(d)
total = sum(g["misses"] for d in iv for g in d["groups"])
# every interval a full K of each, both groups
assert all(g["accesses"] == 3000 for d in iv for g in d["groups"]), "accesses"
assert len(iv) == 20, len(iv)
# the stream ends confined to one way; the loop then hits
assert schema_of_b[-1] == "L3:0=1", schema_of_b[-1]
assert iv[-1]["groups"][0]["misses"] == 0, iv[-1]
assert any(d["decision"] == "keep" for d in dec), dec
print("ok", total)
PY
case "$(cat "$TMP/verdict")" in
ok*) pass ;;
*) fail "controlled run: $(cat "$TMP/verdict")" ;;
esac
run -j control sim-run --interval-accesses 3000 --no-control a="$TMP/loop" b="$TMP/stream"
off=$(printf '%s\n' "$OUT" | python3 -c 'import json, sys; print(sum(g["misses"] for l in sys.stdin for g in json.loads(l)["groups"]))')
ctl=$(cut -d' ' -f2 "$TMP/verdict")
if [ "$ctl" -lt "$off" ]; then pass; else fail "controlled $ctl misses, not fewer than $off"; fi
# a bound: the bounded group gets ways of its own
run -j control sim-run --interval-accesses 3000 --bound a=0.05 a="$TMP/loop" b="$TMP/stream"
expect_out_contains "--bound" '"decision":"bound"'
# the text form: one line an interval, the totals at the end
run control sim-run --interval-accesses 300 --no-control a="$TMP/a1,$TMP/a2" b="$TMP/b"
expect_out_has "text form" "interval 1: a L3:0=ffff 212/300 missed, b L3:0=ffff 300/300 missed"
expect_out_has "text totals" "4 intervals; misses: a 512, b 700, in all 1212"

# --- refused, naming what was wrong; nothing changes ---
usage "no K" "control sim-run needs --interval-accesses K: usage: rdtctl control sim-run --interval-accesses K [--intervals N] [--domain ID] [--instr] [--avoid MASK] [--writes-per-minute N] [--interval-ms MS] [--bound GROUP=RATIO|GROUP=BYTES/s]... [--exclusive GROUP]... [--no-control | --static GROUP=MASK...] GROUP=TRACE[,TRACE...]..." \
	control sim-run a="$TMP/b"
usage "K 0" "--interval-accesses '0': give a number from 1 to 1099511627776" \
	control sim-run --interval-accesses 0 a="$TMP/b"
usage "not GROUP=TRACE" "control sim-run: 'a' is not GROUP=TRACE[,TRACE...]" \
	control sim-run --interval-accesses 10 a
usage "twice" "control sim-run: group a is given twice" \
	control sim-run --interval-accesses 10 a="$TMP/b" a="$TMP/b"
usage "bad bound" "control: --bound 'a=2': a miss ratio above 0 and below 1 (or BYTES/s)" \
	control sim-run --interval-accesses 10 --bound a=2 a="$TMP/b"
usage "bound of no group" "control: --bound 'z=0.1': give GROUP=RATIO or GROUP=BYTES/s, a group of the controller" \
	control sim-run --interval-accesses 10 --bound z=0.1 a="$TMP/b"
usage "both baselines" "control sim-run: --no-control or --static, not both" \
	control sim-run --interval-accesses 10 --no-control --static a=1 a="$TMP/b"
failure "missing trace" "group a: trace $TMP/nope: No such file or directory" \
	control sim-run --interval-accesses 10 a="$TMP/nope"
failure "static past the ways" "group a: mask 0x10000 has bits past the 16 ways" \
	control sim-run --interval-accesses 10 --static a=10000 a="$TMP/b"
failure "avoid splits" "the ways left to the controller (0xff0f) are not one contiguous run: a mask must be contiguous" \
	control sim-run --interval-accesses 10 --avoid f0 a="$TMP/b"
unchanged "refused runs change nothing" "$TMP/before"

# --- the kept configuration ---
ok "group web" group create web
ok "group batch" group create batch
ok "control set" control set web batch --bound web=100M/s --interval-ms 20 --writes-per-minute 600
run -j control show
json "show" "[(g['group'], g.get('bound_bytes_per_sec'), g['exclusive']) for g in d['controllers'][0]['groups']]" \
	'[["web", 104857600, false], ["batch", null, false]]'
json "show interval" "[(c['cache_id'], c['interval_ms']) for c in d['controllers']]" "[[0, 20]]"
run control show
expect_out_has "show text" "  web: bound, 104857600 bytes/s"
failure "set: no such group" "no group named 'nope'" control set web nope
failure "set: the default group" "the default group is not the controller's to change: give it the groups it may" control set default web
usage "set: --static" "control set: --static is a simulated run's" control set web --static web=1
run -j control show
json "unchanged after refusals" "[g['group'] for g in d['controllers'][0]['groups']]" '["web", "batch"]'
# live on the simulator's monitoring model: records every interval, masks written
ok "web's load" sim load web --footprint 96K --rate 1G/s
ok "batch's load" sim load batch --footprint 100M --rate 4G/s
run -j control run --count 6
expect_rc 0 "control run"
n=$(printf '%s\n' "$OUT" | grep -c '^{"interval"')
if [ "$n" -eq 6 ]; then pass; else fail "control run --count 6 printed $n intervals"; fi
# the layout it leaves is kept in the state, and the masks are the groups' schemata
grep -q '"control":{' "$STATE/state.json" && pass || fail "no control member in the state file"
# a counter that cannot be read: its intervals are skipped, the run goes on
ok "batch unavailable" sim load batch --footprint 100M --rate 4G/s --fault unavailable
run -j control run --count 2
expect_rc 0 "control run with a counter unavailable"
n=$(printf '%s\n' "$OUT" | grep -c '^{"interval"')
if [ "$n" -eq 0 ]; then pass; else fail "$n intervals recorded while a counter was unavailable"; fi
ok "batch back" sim load batch --footprint 100M --rate 4G/s
run -j control run --count 2
n=$(printf '%s\n' "$OUT" | grep -c '^{"interval"')
if [ "$n" -eq 2 ]; then pass; else fail "$n intervals recorded once the counter is back"; fi
# the group removed drops out of the configuration
ok "remove batch" group remove batch
run -j control show
json "batch dropped" "[g['group'] for g in d['controllers'][0]['groups']]" '["web"]'
ok "clear" control clear
run control show
expect_out "cleared" "no controller"
failure "run without a configuration" "no controller is configured in this state (rdtctl control set)" control run --count 1

# --- one controller per L3 domain ---
STATE=$TMP/twodom
mkdir -m 700 "$STATE"
MACHINE="topology=package:2 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"
for g in a b c; do ok "group $g" group create $g; done
ok "a's load" sim load a --footprint 96K --rate 1G/s
ok "b's load" sim load b --footprint 100M --rate 4G/s --domain 0
ok "c's load" sim load c --footprint 100M --rate 4G/s --domain 1
ok "domain 0" control set a b --domain 0 --interval-ms 20
ok "domain 1" control set a c --domain 1 --interval-ms 30 --writes-per-minute 600
run -j control show
json "two controllers" "[(c['cache_id'], c['interval_ms'], [g['group'] for g in c['groups']]) for c in d['controllers']]" \
	'[[0, 20, ["a", "b"]], [1, 30, ["a", "c"]]]'
run -j control run --count 4
expect_rc 0 "both domains run"
printf '%s\n' "$OUT" | python3 -c '
import json, sys
n = {}
for l in sys.stdin:
    d = json.loads(l)
    if "interval" in d:
        ids = {g["schema"].split(":")[1].split("=")[0] for g in d["groups"]}
        key = (ids.pop() if len(ids) == 1 else "mixed",) + tuple(g["group"] for g in d["groups"])
        n[key] = n.get(key, 0) + 1
print(sorted(n.items()))' >"$TMP/doms" 2>&1
expect_file_text "four intervals of each, each in its domain" "$TMP/doms" "[(('0', 'a', 'b'), 4), (('1', 'a', 'c'), 4)]"
ok "clear domain 1" control clear --domain 1
run -j control show
json "domain 0 left" "[c['cache_id'] for c in d['controllers']]" '[0]'
ok "clear all" control clear
run control show
expect_out "none left" "no controller"

# --- live, another group's exclusive ways are left alone ---
MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"
STATE=$TMP/exclstate
mkdir -m 700 "$STATE"
ok "default off the top" schema set default "L3:0=fff"
ok "rt" group create rt --schema "L3:0=f000"
ok "rt exclusive" group mode rt exclusive
ok "a" group create a
ok "b" group create b --schema "L3:0=fff"
ok "a's load" sim load a --footprint 96K --rate 1G/s
ok "b's load" sim load b --footprint 100M --rate 4G/s
ok "control set" control set a b --interval-ms 20
run -j control run --count 6
expect_rc 0 "control run beside an exclusive group"
printf '%s\n' "$OUT" | python3 -c '
import json, sys
seen = set()
for l in sys.stdin:
    d = json.loads(l)
    for g in d.get("groups", []):
        m = int(g["schema"].split("=")[1], 16)
        assert m & 0xf000 == 0, g
        seen.add(g["schema"])
print("ok", sorted(seen))' >"$TMP/excl" 2>&1
case "$(cat "$TMP/excl")" in ok*) pass ;; *) fail "rt's ways: $(cat "$TMP/excl")" ;; esac
run schema show
expect_out_has "rt untouched" "rt       L3:0=f000"

# --- a miss-ratio bound live: perf events on the group's bound cgroup ---
CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ "$(id -u)" -ne 0 ] || [ -z "$CGR" ]; then
	skip_part "perf events per cgroup need root and cgroup v2"
else
	CGN=rdtctl-control-test-$$
	BUSY=
	perf_cleanup()
	{
		[ -n "$BUSY" ] && kill -KILL "$BUSY" 2>/dev/null && wait "$BUSY" 2>/dev/null
		[ -d "$CGR/$CGN" ] && rmdir "$CGR/$CGN" 2>/dev/null
	}
	CLEANUP=perf_cleanup
	mkdir "$CGR/$CGN"
	MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16"
	STATE=$TMP/perfstate
	mkdir -m 700 "$STATE"
	ok "group lc" group create lc
	ok "group bulk" group create bulk
	ok "lc's load" sim load lc --footprint 96K --rate 1G/s
	ok "bulk's load" sim load bulk --footprint 100M --rate 4G/s
	ok "a miss-ratio bound kept" control set lc bulk --bound lc=0.5 --interval-ms 50
	failure "no cgroup to count" "group lc: a miss-ratio bound needs its LLC references and misses, which perf counts per cgroup: bind its cgroup (rdtctl cgroup bind lc PATH)" \
		control run --count 1
	ok "bind lc's cgroup" cgroup bind lc "$CGN"
	# a process busy in the cgroup, so that it has something to count. It
	# sleeps 0.5 ms every 2 ms: perf starts a cgroup's count on a CPU only
	# when a task of it is switched in there, and a loop that never sleeps,
	# alone on its CPU, might not be for the whole run (counted 0). Niced
	# up, so that on a loaded machine it still runs most of each 50 ms
	# interval (the software events' check wants 5 ms of task-clock).
	sh -c "echo \$\$ > '$CGR/$CGN/cgroup.procs'; exec nice -n -10 python3 -c '
import time
while True:
    t = time.monotonic() + 0.002
    while time.monotonic() < t:
        pass
    time.sleep(0.0005)
'" &
	BUSY=$!
	# in the cgroup, and spinning: python itself, with 100 ms of CPU used (a
	# launcher such as a pyenv shim may take seconds to get there, loaded)
	busy_spinning()
	{
		grep -qx "$BUSY" "$CGR/$CGN/cgroup.procs" && grep -q '^python' "/proc/$BUSY/comm" &&
			set -- $(sed 's/.*) //' "/proc/$BUSY/stat") && [ $((${12} + ${13})) -ge 10 ]
	}
	wait_until 60 busy_spinning || fail "the busy process did not join $CGN and spin"
	if [ -e /sys/bus/event_source/devices/cpu ]; then
		run -j control run --count 2
		expect_rc 0 "perf's LLC events on a PMU"
	else
		failure "no PMU" "perf events: the LLC references of cgroup $CGN on CPU 0: No such file or directory (this CPU has no such events: a VM without a PMU?)" \
			control run --count 1
	fi
	# the same cgroups, CPUs, reads and sums with software events: task-clock as references
	run_env RDTALLOC_CONTROL_PERF=software "$RDTCTL" --backend sim --state-dir "$STATE" -j \
		control run --count 3
	expect_rc 0 "software events"
	printf '%s\n' "$OUT" | python3 -c '
import json, sys
iv = [json.loads(l) for l in sys.stdin if l.startswith("{\"interval\"")]
assert len(iv) == 3, len(iv)
# a busy CPU for 3 x 50 ms: tens of millions of task-clock ns, at least 5 ms of
# them on a loaded machine (one interval may get none); bulk has no cgroup
assert sum(d["groups"][0]["accesses"] for d in iv) > 5000000, iv
assert all(d["groups"][1]["accesses"] == 0 for d in iv), iv
print("ok")' >"$TMP/perf" 2>&1
	[ "$(cat "$TMP/perf")" = ok ] && pass || fail "software events: $(cat "$TMP/perf")"
fi

finish
