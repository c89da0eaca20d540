# SPDX-License-Identifier: LGPL-2.1-or-later
# test_control_agent: the controller inside the agent (rdtalloc-agent
# --control, docs/control.md) on the simulator's monitoring model: without
# a configuration it waits and says so; once `rdtctl control set` keeps
# one, it runs it - intervals and decisions counted on /metrics (promtool
# checks them), decisions logged with their reasons, masks written into the
# state; `rdtctl control clear` ends the run, killed with -9 nothing is
# lost and a new agent goes on.
. "$(dirname "$0")/lib.sh"
need_python
[ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ] || skip "no rdtalloc-agent (a build without libmicrohttpd)"

MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"
PORT=$(free_port)
APID=
ctl_cleanup() { [ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null; }
CLEANUP=ctl_cleanup

start_agent()
{
	"$RDTALLOC_AGENT" --backend sim --state-dir "$STATE" --machine "$MACHINE" --no-bpf \
		--listen "127.0.0.1:$PORT" --control 2>>"$TMP/agent.log" &
	APID=$!
}

metric()
{
	python3 - "$PORT" "$1" <<'PY' 2>/dev/null
import sys, urllib.request
t = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
for l in t.splitlines():
    if l.startswith(sys.argv[2] + " "):
        print(int(float(l.split()[1])))
PY
}

# wait_metric NAME MIN: up to 60 s (a loaded machine) for NAME to reach MIN
wait_metric()
{
	i=0
	while [ "$(metric "$1")" -lt "$2" ] 2>/dev/null || [ -z "$(metric "$1")" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && return 1
		sleep 0.1
	done
	return 0
}

ok "group a" group create a
ok "group b" group create b
ok "a's load" sim load a --footprint 96K --rate 1G/s
ok "b's load" sim load b --footprint 100M --rate 4G/s
start_agent
# no configuration yet: it waits, says so once, counts nothing
i=0
while ! grep -q "control: no controller is configured" "$TMP/agent.log" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 600 ] && break; sleep 0.1
done
grep -q "control: no controller is configured in this state (rdtctl control set): looking again every 5 s" \
	"$TMP/agent.log" && pass || fail "the agent did not say it waits: $(cat "$TMP/agent.log")"
if [ "$(metric rdtalloc_agent_control_intervals_total)" = 0 ]; then pass; else
	fail "intervals counted without a configuration"; fi
ok "control set" control set a b --interval-ms 50
# picked up within its 5 s look; intervals and decisions follow
wait_metric rdtalloc_agent_control_intervals_total 5 && pass ||
	fail "no controller intervals on /metrics: $(cat "$TMP/agent.log")"
wait_metric rdtalloc_agent_control_decisions_total 1 && pass ||
	fail "no controller decisions on /metrics"
if within 10 grep -q "control: after interval [0-9]*: probe [a-z]*: " "$TMP/agent.log"; then
	pass; else fail "no decision logged: $(cat "$TMP/agent.log")"; fi
python3 - "$PORT" >"$TMP/metrics" <<'PY'
import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode(), end="")
PY
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <"$TMP/metrics" >"$TMP/prom" 2>&1; then pass; else
		fail "promtool check metrics: $(cat "$TMP/prom")"; fi
fi
# killed with -9: the state is whole, a new agent goes on from the layout kept
kill -KILL "$APID"
wait "$APID" 2>/dev/null
APID=
run -j control show
json "configuration kept" "[g['group'] for g in d['controllers'][0]['groups']]" '["a", "b"]'
run schema show
expect_rc 0 "the state reads after kill -9"
before=$(metric rdtalloc_agent_control_intervals_total)
start_agent
wait_metric rdtalloc_agent_control_intervals_total 3 && pass || fail "a new agent does not go on"
# cleared: the run ends, and it waits again
ok "clear" control clear
i=0
while [ "$(grep -c "control: no controller is configured" "$TMP/agent.log")" -lt 2 ]; do
	i=$((i + 1)); [ $i -gt 600 ] && break; sleep 0.1
done
[ "$(grep -c "control: no controller is configured" "$TMP/agent.log")" -ge 2 ] && pass ||
	fail "clear did not end the run: $(tail -5 "$TMP/agent.log")"
kill -TERM "$APID"
wait "$APID" 2>/dev/null
APID=
finish
