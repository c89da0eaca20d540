# SPDX-License-Identifier: LGPL-2.1-or-later
# test_agent_node: rdtalloc-agent as one node of a fleet sees it (issues 40
# and 41), on the simulator named as such:
# - no backend given on a host where nothing allocates (no resctrl, no msr
#   device): it refuses to start, saying why, and writes nothing; the
#   backend in use is on /healthz and /metrics;
# - agent.json is valid JSON for a state directory named q"x\y;
# - /metrics answers 503 once the state was replaced (reset --machine);
# - rdtctl agent status: exit 3 without an agent, times for people, the
#   agent's answer when this rdtctl cannot open the backend, each
#   controller with its domain, groups and last decision;
# - SIGHUP reloads --config and the state instead of stopping;
# - a second agent for another state on the port in use is told --listen;
# - the open files limit raised to the hard limit; descriptors past 1024
#   served (epoll, not select);
# - 16 slow clients (a header line a second) do not lock /healthz out, each
#   is cut off after 5 s of headers, one address holds at most 32
#   connections, and malformed requests do not flood the log.
# Every client here is bounded, stops by itself and talks to 127.0.0.1 only.
. "$(dirname "$0")/lib.sh"
need_python
[ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ] || skip "no rdtalloc-agent (a build without libmicrohttpd)"

MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"
PORT=$((20000 + ($$ + 13) % 20000))
APID=
A2=
node_cleanup()
{
	[ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null
	[ -n "$A2" ] && kill -KILL "$A2" 2>/dev/null
}
CLEANUP=node_cleanup

# start_agent DIR ARGS: the agent on the simulator for state DIR; APID; waits for agent.json
start_agent()
{
	sa_dir=$1
	shift
	"$RDTALLOC_AGENT" --backend sim --state-dir "$sa_dir" --machine "$MACHINE" --no-bpf \
		--listen "127.0.0.1:$PORT" "$@" 2>>"$TMP/agent.log" &
	APID=$!
	i=0
	while [ ! -s "$sa_dir/agent.json" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s "$sa_dir/agent.json" ] || fail "the agent did not start: $(cat "$TMP/agent.log")"
}

# until the agent takes SIGTERM through its signalfd (30 s at most): a TERM
# sent before that can reach the forked shell before its exec, whose trap
# swallows it, and the agent then never stops
agent_takes_term()
{
	t_i=0
	while [ $t_i -lt 600 ]; do
		t_blk=$(awk '/^SigBlk:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 0
		[ -z "$t_blk" ] && return 0
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(readlink -f "$RDTALLOC_AGENT")" ] &&
			[ $((0x$t_blk & 0x4000)) -ne 0 ] && return 0
		sleep 0.05
		t_i=$((t_i + 1))
	done
	return 1
}

stop_agent()
{
	agent_takes_term "$APID"
	kill -TERM "$APID" 2>/dev/null
	wait "$APID" 2>/dev/null
	APID=
}

# get PATH: "CODE BODY" of GET http://127.0.0.1:$PORT/PATH (1 s to answer)
get()
{
	python3 - "$PORT" "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2]), timeout=1)
    print(r.status, r.read().decode(), end="")
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode(), end="")
except Exception as e:
    print("ERROR", e)
PY
}

# ---- no backend where nothing allocates: refused, nothing written --------------
mkdir "$TMP/noresctrl" "$TMP/nomsr" "$TMP/auto"
env -u RDTALLOC_BACKEND timeout 5 "$RDTALLOC_AGENT" --state-dir "$TMP/auto" \
	--resctrl-root "$TMP/noresctrl" --msr-root "$TMP/nomsr" --listen none \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 1 ] && pass || fail "no backend on a host without allocation: exit $RC, want 1"
grep -q "^rdtalloc-agent: no backend allocates on this host (.*): the agent keeps a state on resctrl or msr, and on the simulator only when asked by name (--backend sim)$" \
	"$TMP/err" && pass || fail "the refusal does not say why: $(cat "$TMP/err")"
if [ -z "$(ls -A "$TMP/auto")" ]; then pass; else fail "a refused agent wrote $(ls -A "$TMP/auto")"; fi
# auto, said, is no backend given either
env RDTALLOC_BACKEND=auto timeout 5 "$RDTALLOC_AGENT" --state-dir "$TMP/auto" \
	--resctrl-root "$TMP/noresctrl" --msr-root "$TMP/nomsr" --listen none >/dev/null 2>&1
RC=$?
[ $RC -eq 1 ] && pass || fail "RDTALLOC_BACKEND=auto on a host without allocation: exit $RC"

# ---- the simulator, named: said on /healthz and /metrics -------------------------
ok "group a" group create a
ok "group b" group create b
run agent status
expect_rc 3 "agent status without an agent (LSB: not running)"
expect_out "no agent" "no agent serves $STATE/state.json (start one: rdtctl agent, or the rdtalloc-agent service)"
run -j agent status
expect_rc 3 "agent status -j without an agent"
json "-j: not running" "d['running']" false
start_agent "$STATE"
case $(get /healthz) in
"200 last sync "*" s ago; backend sim (simulated: nothing is partitioned)") pass ;;
*) fail "/healthz does not name the simulator: $(get /healthz)" ;;
esac
get /metrics >"$TMP/metrics"
grep -qxF 'rdtalloc_agent_backend{backend="sim"} 1' "$TMP/metrics" && pass ||
	fail "/metrics has no rdtalloc_agent_backend: $(head -c 300 "$TMP/metrics")"
grep -qxF 'rdtalloc_groups 3' "$TMP/metrics" && pass || fail "/metrics: rdtalloc_groups"

# ---- agent status: times for people, the agent's own answer ---------------------
sleep 1.2
run agent status
expect_rc 0 "agent status with an agent"
expect_out_has "status names pid, state, version and backend" \
	"agent: pid $APID serving $STATE/state.json (rdtalloc-agent $("$RDTALLOC_AGENT" --version | cut -d' ' -f2), backend sim: simulated, nothing is partitioned)"
printf '%s\n' "$OUT" | grep -qx "last sync [0-9]*\.[0-9] s ago; started [0-9]*\.[0-9] s ago" && pass ||
	fail "status: no time for people: $OUT"
expect_out_has "no controllers" "controllers: none configured (rdtctl control set)"
# this rdtctl cannot open the state's backend; the agent still answers
run_raw --backend resctrl --resctrl-root "$TMP/noresctrl" --state-dir "$STATE" agent status
expect_rc 0 "agent status where rdtctl's backend fails"
expect_out_contains "the agent's answer" "agent: pid $APID serving $STATE/state.json"
expect_err_has "the backend's failure only a warning" "rdtctl: warning: "

# ---- a second agent, another state, the same port: told to give --listen ---------
mkdir -m 700 "$TMP/other"
"$RDTALLOC_AGENT" --backend sim --state-dir "$TMP/other" --machine "$MACHINE" --no-bpf \
	--listen "127.0.0.1:$PORT" >"$TMP/out" 2>"$TMP/err" &
A2=$!
i=0
while kill -0 "$A2" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
wait "$A2" 2>/dev/null
RC=$?
A2=
[ $RC -eq 1 ] && pass || fail "a second agent on the port in use: exit $RC"
grep -qF "rdtalloc-agent: cannot listen on 127.0.0.1:$PORT: the address is in use (another agent, for another state, serves there?): give this one --listen ADDRESS:PORT, or --listen none" \
	"$TMP/err" && pass || fail "the second agent was not told --listen: $(cat "$TMP/err")"
[ -e "$TMP/other/agent.json" ] && fail "the refused agent left agent.json" || pass

# ---- the open files limit, raised --------------------------------------------------
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$APID/limits")
hard=$(awk '/^Max open files/ { print $5 }' "/proc/$APID/limits")
stop_agent
if command -v prlimit >/dev/null; then
	"$RDTALLOC_AGENT" --backend sim --state-dir "$STATE" --machine "$MACHINE" --no-bpf \
		--listen none 2>>"$TMP/agent.log" &
	APID=$!
	prlimit --pid "$APID" --nofile=256:"$hard" 2>/dev/null
	stop_agent
	prlimit --nofile=256:4096 "$RDTALLOC_AGENT" --backend sim --state-dir "$STATE" \
		--machine "$MACHINE" --no-bpf --listen none 2>>"$TMP/agent.log" &
	APID=$!
	i=0
	while [ ! -s "$STATE/agent.json" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	soft=$(awk '/^Max open files/ { print $4 }' "/proc/$APID/limits")
	[ "$soft" = 4096 ] && pass || fail "the soft limit 256 was not raised to the hard 4096: $soft"
	stop_agent
fi

# ---- descriptors past FD_SETSIZE: served (epoll) ----------------------------------
python3 - "$RDTALLOC_AGENT" "$STATE" "$MACHINE" "$PORT" >"$TMP/fds" 2>&1 <<'PY'
import os, resource, subprocess, sys, time, urllib.request
agent, state, machine, port = sys.argv[1:]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard < 2048:
    print("skip: hard limit", hard); sys.exit(0)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(1100)]
for fd in fds:
    os.set_inheritable(fd, True)
p = subprocess.Popen([agent, "--backend", "sim", "--state-dir", state, "--machine", machine,
                      "--no-bpf", "--listen", "127.0.0.1:" + port], pass_fds=fds,
                     stderr=subprocess.PIPE)
for fd in fds:
    os.close(fd)
ok = False
for _ in range(50):
    time.sleep(0.1)
    if p.poll() is not None:
        break
    try:
        r = urllib.request.urlopen("http://127.0.0.1:%s/healthz" % port, timeout=1)
        ok = r.status == 200
        break
    except Exception:
        pass
if p.poll() is None:
    p.terminate()
err = p.communicate(timeout=10)[1].decode()
print("ok" if ok else "failed: " + err)
PY
case $(cat "$TMP/fds") in
ok) pass ;;
skip*) echo "note: $(cat "$TMP/fds")" ;;
*) fail "a server whose descriptors are past 1024: $(cat "$TMP/fds")" ;;
esac

# ---- slow clients do not starve the probes --------------------------------------
: >"$TMP/agent.log"
start_agent "$STATE"
python3 - "$PORT" >"$TMP/slow" 2>&1 <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])
ADDR = ("127.0.0.1", port)	# loopback only, never another address
N, LINE_EVERY, LIMIT = 16, 1.0, 12.0
closed = [None] * N
socks = []
t0 = time.monotonic()
for i in range(N):
    s = socket.create_connection(ADDR, timeout=2)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    socks.append(s)

def slow(i, s):
    # a header line every second, never the blank line, until the server
    # closes the connection or LIMIT seconds pass
    s.settimeout(LINE_EVERY)
    while time.monotonic() - t0 < LIMIT:
        try:
            s.sendall(b"X-Slow: 1\r\n")
            if s.recv(1024) == b"":
                closed[i] = time.monotonic() - t0
                return
        except socket.timeout:
            continue
        except OSError:
            closed[i] = time.monotonic() - t0
            return

ts = [threading.Thread(target=slow, args=(i, s)) for i, s in enumerate(socks)]
for t in ts:
    t.start()
worst, failed = 0.0, 0
for k in range(12):		# a probe every half second while they hold on
    a = time.monotonic()
    try:
        c = socket.create_connection(ADDR, timeout=1)
        c.settimeout(1)
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = c.recv(64)
        c.close()
        if not got.startswith(b"HTTP/1.1 200"):
            failed += 1
    except OSError:
        failed += 1
    worst = max(worst, time.monotonic() - a)
    time.sleep(0.5)
for t in ts:
    t.join()
for s in socks:
    s.close()
late = [c for c in closed if c is None or c > 7.5]
print("probes failed %d, worst %.2f s; slow clients cut %d of %d, last at %s" %
      (failed, worst, N - len(late), N, max((c or 99) for c in closed)))
print("OK" if failed == 0 and worst < 1 and not late else "BAD")
PY
if tail -n 1 "$TMP/slow" | grep -qx OK; then pass; else fail "slow clients: $(cat "$TMP/slow")"; fi

# ---- one address holds at most 32 connections; malformed requests, logged little ------
python3 - "$PORT" >"$TMP/perip" 2>&1 <<'PY'
import socket, sys, time
ADDR = ("127.0.0.1", int(sys.argv[1]))
socks = [socket.create_connection(ADDR, timeout=2) for _ in range(40)]
time.sleep(0.5)
open_ = 0
for s in socks:
    s.setblocking(False)
    try:
        open_ += s.recv(1) != b""
    except BlockingIOError:
        open_ += 1
    except OSError:
        pass
for s in socks:
    s.close()
print(open_)
# 200 malformed requests, each a connection of its own
for _ in range(200):
    try:
        s = socket.create_connection(ADDR, timeout=2)
        s.sendall(b"\x01\x02 garbage\r\n\r\n")
        s.settimeout(2)
        s.recv(256)
        s.close()
    except OSError:
        pass
PY
[ "$(head -n 1 "$TMP/perip")" = 32 ] && pass ||
	fail "40 connections from one address, open: $(cat "$TMP/perip") (want 32)"
sleep 0.3
# 16 slow clients cut, 8 connections refused, 200 malformed requests: within a minute
n=$(grep -cv "^rdtalloc-agent: \(serving\|caught up\) " "$TMP/agent.log")
[ "$n" -le 11 ] && pass || fail "the HTTP server logged $n lines in a minute: $(head -n 20 "$TMP/agent.log")"
get /healthz | grep -q "^200 " && pass || fail "/healthz after the flood: $(get /healthz)"

# ---- SIGHUP reloads instead of stopping ----------------------------------------------
printf 'group a\n\tschema L3:0=3\ngroup b\n\tschema L3:0=c\ngroup c\n\tschema L3:0=f0\n' >"$TMP/conf"
stop_agent
start_agent "$STATE" --config "$TMP/conf"
i=0
while ! rdt group list 2>/dev/null | grep -qx c && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
ok "c removed behind the agent's back" group remove c
kill -HUP "$APID"
i=0
while ! rdt group list 2>/dev/null | grep -qx c && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$APID" 2>/dev/null && pass || fail "SIGHUP stopped the agent"
rdt group list | grep -qx c && pass || fail "SIGHUP did not apply --config again: $(rdt group list)"
grep -q "^rdtalloc-agent: SIGHUP: reloading --config and the state$" "$TMP/agent.log" && pass ||
	fail "the reload was not said: $(cat "$TMP/agent.log")"

# ---- agent.json is JSON whatever the state directory is called ----------------------
stop_agent
Q="$TMP/q\"x\\y"
mkdir -m 700 "$Q"
start_agent "$Q"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["state"] == sys.argv[2], d' \
	"$Q/agent.json" "$Q/state.json" 2>"$TMP/err" && pass ||
	fail "agent.json for a state in q\"x\\y: $(cat "$TMP/err")"
"$RDTCTL" -j --backend sim --state-dir "$Q" agent status >"$TMP/out" 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["running"] and d["listen"] == sys.argv[2], d' \
	"$TMP/out" "127.0.0.1:$PORT" && pass || fail "agent status -j there: $(cat "$TMP/out")"

# ---- the state replaced: /metrics says so (503), not figures of the old one ---------
"$RDTCTL" --backend sim --state-dir "$Q" reset --machine 'topology=package:1 l3:1 core:4 pu:1;tasks=virtual' \
	>/dev/null 2>&1
case $(get /metrics) in
"503 the state cannot be read: "*"was made for machine"*) pass ;;
*) fail "/metrics after reset --machine: $(get /metrics | head -n 3)" ;;
esac
stop_agent

# ---- each controller: domain, groups, last decision -------------------------------
ok "a's load" sim load a --footprint 96K --rate 1G/s
ok "b's load" sim load b --footprint 100M --rate 4G/s
ok "a controller" control set a b --interval-ms 100
start_agent "$STATE" --control
i=0
while ! grep -q '"last_decision": {' "$STATE/agent.json" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
run agent status
printf '%s\n' "$OUT" | grep -qx "controller: domain 0: groups a, b; last decision [0-9.]* s ago (after interval [0-9]*): [a-z]*: .*" &&
	pass || fail "status shows no controller with its last decision: $OUT"
stop_agent

finish
