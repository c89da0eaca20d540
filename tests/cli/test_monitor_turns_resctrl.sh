# SPDX-License-Identifier: LGPL-2.1-or-later
# test_monitor_turns_resctrl: counters shared in turns on resctrl, against
# the resctrl emulator on the amd-turin preset (Zen 5 EPYC: ABMC, mbm_event
# mode at mount, a counter per MBM event and domain for every new group
# while one is free). info's mode and counters as the kernel counts them;
# our MON groups' mbm_L3_assignments moving turn by turn; another tool's
# MON group and its counters never touched; a group made with no counter
# left (the kernel's "Failed to allocate counter") is no error; pins; and
# in default mode no turns at all.
. "$(dirname "$0")/lib.sh"
need_python

FS=${RDTALLOC_TEST_RESCTRLFS:-}
[ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || skip "the resctrl emulator needs root and /dev/fuse"
if [ -z "$FS" ] || [ ! -x "$FS" ]; then
	echo "FAIL: RDTALLOC_TEST_RESCTRLFS is not the emulator ('$FS')" >&2
	exit 1
fi

MNT=$TMP/resctrl
# 6 counters per domain: the root holds 2 (both events), another tool's group 2, ours share 2
MACHINE="preset=amd-turin;topology=package:1 l3:2 core:2 pu:1;mon.cntrs=6"
NL='
'
rdt()
{
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE" \
		--machine "$MACHINE" "$@"
}

# file_is DESC FILE TEXT: FILE reads exactly TEXT
file_is()
{
	fi_got=$(cat "$2" 2>&1)
	if [ "$fi_got" = "$3" ]; then pass; else fail "$1: $2 reads '$fi_got', wanted '$3'"; fi
}

E="mbm_total_bytes:0=e;1=e${NL}mbm_local_bytes:0=e;1=e"
U="mbm_total_bytes:0=_;1=_${NL}mbm_local_bytes:0=_;1=_"
I=$MNT/info/L3_MON

resctrlfs_start "$MNT" "$MACHINE"
file_is "counters at mount" "$I/available_mbm_cntrs" "0=4;1=4"
# another tool's MON group: it gets its counters at mkdir, as the kernel gives them
mkdir "$MNT/mon_groups/other"
file_is "the other tool's counters" "$MNT/mon_groups/other/mbm_L3_assignments" "$E"

ok "-j info" -j info
json "info's counters" 'd["monitoring"]["counters"]' \
	'{"counters": 0, "free": 2, "groups": 1, "mode": "mbm_event", "per_group": 2, "period_ms": 1000, "pinned": 0, "total": 6}'
ok "info" info
expect_out_has "info says them" \
	"  counters: mbm_event mode, 6 per L3 domain, 2 free; a group takes 2; our 1 monitored groups take turns of 1000 ms (0 pinned)"

for g in a b c; do ok "group $g" group create $g; done
# each group of ours is a MON group of its class's control group
# (one control group, a's class, holds all three: they share a schema)
CTL=$(ls -d "$MNT"/rdtalloc-*/mon_groups/a | sed 's,/mon_groups/a$,,')
mg() { echo "$CTL/mon_groups/$1/mbm_L3_assignments"; }
# the control group took the last two at its mkdir; a, b and c were made all the
# same, with no counter ("Failed to allocate counter": a state, not an error)
file_is "the control group's counters from mkdir" "$CTL/mbm_L3_assignments" "$E"
file_is "a's MON group has none" "$(mg a)" "$U"
file_is "c's MON group has none" "$(mg c)" "$U"
ok "turns of 0.1 s" monitor turns --period 0.1

mon_samples 3 && pass || fail "3 samples"
S=$(mon_states 1)
# a counter just given reads Unavailable until the hardware has a value (the emulator's have none)
W="default:unavailable a:unassigned b:unassigned c:unassigned
default:unavailable a:unavailable b:unassigned c:unassigned
default:unavailable a:unassigned b:unavailable c:unassigned"
if [ "$S" = "$W" ]; then pass; else fail "the turns: got
$S"; fi
# our control groups' own counters went back at the first turn (they count nothing of ours)
file_is "the control group gave its back" "$CTL/mbm_L3_assignments" "$U"
# the third sample's turn gave c the counters b had
file_is "a's given back" "$(mg a)" "$U"
file_is "b's given back" "$(mg b)" "$U"
file_is "c's turn" "$(mg c)" "$E"
file_is "the other tool's untouched" "$MNT/mon_groups/other/mbm_L3_assignments" "$E"
file_is "the root's untouched" "$MNT/mbm_L3_assignments" "$E"
file_is "every counter in use" "$I/available_mbm_cntrs" "0=0;1=0"

ok "pin b" monitor pin b
mon_samples 2 && pass || fail "2 samples"
file_is "b, pinned, holds the counters" "$(mg b)" "$E"
file_is "c gave them back" "$(mg c)" "$U"
mon_samples 2 && pass || fail "2 samples"
file_is "b keeps them" "$(mg b)" "$E"
file_is "a has none" "$(mg a)" "$U"
file_is "the other tool's still untouched" "$MNT/mon_groups/other/mbm_L3_assignments" "$E"
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "b counted, pinned" 'd["groups"][2]["domains"][0]["state"], d["groups"][2]["domains"][0]["pinned"]' '["unavailable", true]'

# the agent's /metrics: the covered seconds beside the byte counters
if [ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ]; then
	PORT=$(free_port)
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" \
		--state-dir "$STATE" agent --listen "127.0.0.1:$PORT" 2>>"$TMP/agent.log" &
	APID=$!
	CHILDREN="$CHILDREN $APID"
	wait_until 60 test -s "$STATE/agent.json" || fail "the agent did not start: $(cat "$TMP/agent.log")"
	OUT=$(python3 -c 'import sys, time, urllib.request
for i in range(100):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode(), end="")
        break
    except OSError:
        time.sleep(0.1)' "$PORT")
	expect_out_has "the covered family" "# TYPE rdtalloc_mbm_covered_seconds_total counter"
	if printf '%s\n' "$OUT" | grep -q '^rdtalloc_mbm_covered_seconds_total{group="b",cache_id="1"} [0-9.]*$'; then
		pass; else fail "b's covered seconds on /metrics"; fi
	kill -TERM "$APID"
	wait "$APID" 2>/dev/null
fi

# default mode: every RMID counts; no turns, no assignments written
printf 'default\n' > "$I/mbm_assign_mode"
ok "-j info in default mode" -j info
json "default mode" 'd["monitoring"]["counters"]["mode"], d["monitoring"]["counters"]["free"]' '["default", null]'
ok "-j monitor in default mode" -j monitor --count 2 --interval 0.3
OUT=$(printf '%s\n' "$OUT" | tail -1)
json "no coverage keys" '"coverage" in d["groups"][1]["domains"][0]' 'false'
json "nothing unassigned" 'sorted(set(x["state"] for g in d["groups"] for x in g["domains"]))' '["unavailable"]'

resctrlfs_stop_all
# Linux 7.2 (the emulator's mon.abmc=7.2): mkdir's assignment goes on past a
# domain without a counter, so a MON group of ours can be made holding
# counters in some domains only. The turns give a group all or none: that
# part goes back at the first turn, and the group's turn gives it all.
MNT=$TMP/resctrl72
STATE=$TMP/state72
mkdir -m 700 "$STATE"
MACHINE="preset=amd-turin;topology=package:1 l3:2 core:2 pu:1;mon.cntrs=6;mon.abmc=7.2"
I=$MNT/info/L3_MON
P="mbm_total_bytes:0=_;1=e${NL}mbm_local_bytes:0=_;1=e"
resctrlfs_start "$MNT" "$MACHINE"
mkdir "$MNT/mon_groups/other"
printf 'mbm_total_bytes:1=_\nmbm_local_bytes:1=_\n' >"$MNT/mon_groups/other/mbm_L3_assignments"
file_is "domain 0 short, domain 1 not" "$I/available_mbm_cntrs" "0=2;1=4"
ok "group a (7.2)" group create a
CTL=$(ls -d "$MNT"/rdtalloc-*/mon_groups/a | sed 's,/mon_groups/a$,,')
file_is "the control group took domain 0's last" "$CTL/mbm_L3_assignments" "$E"
file_is "a made with domain 1's only" "$(mg a)" "$P"
ok "turns of 0.1 s (7.2)" monitor turns --period 0.1
mon_samples 1 && pass || fail "1 sample (7.2)"
file_is "a holds all its counters" "$(mg a)" "$E"
file_is "the control group gave its back (7.2)" "$CTL/mbm_L3_assignments" "$U"
file_is "the counters left (7.2)" "$I/available_mbm_cntrs" "0=0;1=2"
file_is "the other tool's part untouched" "$MNT/mon_groups/other/mbm_L3_assignments" \
	"mbm_total_bytes:0=e;1=_${NL}mbm_local_bytes:0=e;1=_"
resctrlfs_stop_all
finish
