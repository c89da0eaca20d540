# SPDX-License-Identifier: LGPL-2.1-or-later
# test_control_hand: the controller takes over and hands back (docs/control.md,
# "Taking over and handing back"). control set records each group's masks as
# declared; control clear, and a group dropped from the configuration, put
# them back (--keep-layout: the layout last verified instead); a run stopped
# by a signal mid-probe leaves the layout last verified in force and kept, and
# the next run starts from it; a mask someone else sets while it runs is theirs
# (the group leaves the controller, said by name); the shareable ways are left
# alone unless --shareable; a write limit by default; --advisory writes
# nothing; interval numbers and --count go on across a configuration changed
# mid-run; sim-run and show create no state; a "control" member that cannot be
# read is kept aside and locks nobody out.
. "$(dirname "$0")/lib.sh"
need_python

MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"

# mask GROUP: the group's L3 mask in domain 0, as schema show prints it
mask()
{
	rdt schema show | awk -v g="$1" '$1 == g { sub("L3:0=", "", $2); print $2 }'
}

# expect_mask DESC GROUP MASK
expect_mask()
{
	m=$(mask "$2")
	if [ "$m" = "$3" ]; then pass; else fail "$1: $2's mask is '$m', wanted '$3'"; fi
}

# bg_run FILE ARGS: control run -j in the background, its JSON Lines into FILE
bg_run()
{
	bg_out=$1
	shift
	"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" -j control run "$@" \
		>"$bg_out" 2>"$bg_out.err" &
	BG=$!
	CHILDREN="$CHILDREN $BG"
}

# bg_stop: SIGTERM to the run in the background, and its exit status in RC
bg_stop()
{
	kill -TERM "$BG" 2>/dev/null
	wait "$BG"
	RC=$?
}

# wait_for FILE PATTERN: until a line of FILE has PATTERN (10 s at most)
wait_for()
{
	i=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 200 ] && return 1
		sleep 0.05
	done
	return 0
}

ok "web" group create web --schema L3:0=ff
ok "batch" group create batch
ok "web's load" sim load web --footprint 96K --rate 1G/s
ok "batch's load" sim load batch --footprint 100M --rate 4G/s

# --- declared masks back after clear, and after a group leaves the configuration ---
ok "control set" control set web batch --interval-ms 20
ok "a run" control run --count 3
expect_mask "the controller wrote all shared" web ffff
ok "clear" control clear
expect_out "clear says it" "controller: none; its groups have their declared masks back"
expect_mask "web's declared mask back" web 00ff
expect_mask "batch's declared mask back" batch ffff
ok "control set again" control set web batch --interval-ms 20
ok "a run" control run --count 3
ok "web leaves the configuration" control set batch --interval-ms 20
expect_mask "web's declared mask back when it leaves" web 00ff
ok "clear" control clear
ok "web's mask" schema set web L3:0=ff
ok "control set" control set web batch --interval-ms 20
ok "a run" control run --count 3
ok "clear --keep-layout" control clear --keep-layout
expect_mask "--keep-layout keeps the layout last verified" web ffff
ok "web's mask" schema set web L3:0=ff

# --- a run stopped by SIGTERM mid-probe: the layout last verified, not the probe ---
# (intervals of 200 ms: a probe of two or more outlasts the look for it)
ok "control set" control set web batch --interval-ms 200
bg_run "$TMP/term"
if wait_for "$TMP/term" '"decision":"probe"'; then
	bg_stop
	LAST="control run, SIGTERM after a probe"
	OUT=$(cat "$TMP/term")
	ERR=$(cat "$TMP/term.err")
	expect_rc 0 "SIGTERM ends the run cleanly"
	python3 - "$TMP/term" >"$TMP/verdict" 2>&1 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
dec = [r for r in recs if "decision" in r]
# the signal came during the first probe; the stop rolled it back
first = [r["decision"] for r in dec].index("probe")
after = [r["decision"] for r in dec[first + 1:]]
assert after == ["rollback"], after
assert dec[-1]["reason"] == "the run stops during a probe: back to the layout last verified", dec
assert all("group" in r for r in dec), dec
print("ok")
PY
	expect_file_text "the probe rolled back at the stop" "$TMP/verdict" ok
else
	fail "no probe within 10 s: $(cat "$TMP/term.err")"
	bg_stop
fi
expect_mask "web after the stop" web ffff
expect_mask "batch after the stop: all shared, not the probe" batch ffff
python3 - "$STATE/state.json" >"$TMP/kinds" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["control"]["domains"][0]
print(sorted(g["kind"] for g in d["groups"]))
PY
expect_file_text "the layout kept is all shared" "$TMP/kinds" "['shared', 'shared']"
# the next run starts from the layout kept, never from a probe
run -j control run --count 1
json "the next run's first interval" "[g['schema'] for g in d['groups']]" \
	'["L3:0=ffff", "L3:0=ffff"]'

# --- the controller's masks are its own: the administrator's change is refused by name ---
# (taking one over with force, and the controller letting the group go, is in
# tests/unit/test_control_api.c: rdtctl has no --force for schema set yet)
bg_run "$TMP/take"
if wait_for "$TMP/take" '^{"interval"'; then
	failure "the administrator's mask, refused" \
		"group web: its mask is the controller's (domain 0); --force takes it back" \
		schema set web L3:0=3
	bg_stop
	expect_rc 0 "the run went on"
	if grep -q '"decision":"taken"' "$TMP/take"; then fail "a group taken"; else pass; fi
else
	fail "the run printed no interval: $(cat "$TMP/take.err")"
	bg_stop
fi
expect_mask "the controller's mask stays" web ffff
run -j control show
json "web is still the controller's" "[g['group'] for g in d['controllers'][0]['groups']]" \
	'["web", "batch"]'
ok "clear" control clear
expect_mask "clear puts web's declared mask back" web 00ff

# --- interval numbers and --count go on across a configuration changed mid-run ---
ok "control set" control set web batch --interval-ms 100
bg_run "$TMP/count" --count 8
if wait_for "$TMP/count" '^{"interval"'; then
	ok "changed mid-run" control set web batch --interval-ms 100 --writes-per-minute 30
	wait "$BG"
	python3 - "$TMP/count" >"$TMP/verdict" 2>&1 <<'PY'
import json, sys
iv = [json.loads(l)["interval"] for l in open(sys.argv[1]) if l.startswith('{"interval"')]
assert iv == sorted(set(iv)) and len(iv) <= 8 and iv[-1] <= 7, iv
print("ok")
PY
	expect_file_text "--count 8 across a change: at most 8 intervals, numbered on" \
		"$TMP/verdict" ok
else
	fail "the run printed no interval: $(cat "$TMP/count.err")"
	bg_stop
fi
# the same when a group is removed and made again mid-run (it drops out of the configuration)
bg_run "$TMP/remade" --count 8
if wait_for "$TMP/remade" '^{"interval"'; then
	ok "batch removed mid-run" group remove batch
	ok "and made again" group create batch
	wait "$BG"
	RC=$?
	expect_rc 0 "the run went on with web"
	python3 - "$TMP/remade" >"$TMP/verdict" 2>&1 <<'PY'
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"interval"')]
n = [d["interval"] for d in iv]
assert n == sorted(set(n)) and len(n) <= 8 and n[-1] <= 7, n
assert [g["group"] for g in iv[-1]["groups"]] == ["web"], iv[-1]
print("ok")
PY
	expect_file_text "--count 8 across a group re-made: numbered on, web alone after" \
		"$TMP/verdict" ok
else
	fail "the run printed no interval: $(cat "$TMP/remade.err")"
	bg_stop
fi
ok "clear" control clear
ok "batch's load again" sim load batch --footprint 100M --rate 4G/s

# --- a write limit by default; 0 asks for none ---
ok "control set" control set web batch
run -j control show
json "60 writes a minute by default" "d['controllers'][0]['writes_per_minute']" 60
ok "control set, no limit" control set web batch --writes-per-minute 0
run -j control show
json "--writes-per-minute 0: no limit" "d['controllers'][0]['writes_per_minute']" 0
ok "clear" control clear

# --- advisory: decisions logged, no mask written ---
ok "advisory" control set web batch --interval-ms 20 --advisory
run -j control show
json "show says advisory" "d['controllers'][0]['advisory']" true
# 100 intervals: on a loaded machine the first 30 once made no decision (their lengths vary)
run -j control run --count 100
expect_rc 0 "an advisory run"
printf '%s\n' "$OUT" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
dec = [r for r in recs if "decision" in r]
assert dec and all(r["reason"].startswith("advisory, nothing written: ") for r in dec), dec
assert all(g["schema"] == {"web": "L3:0=ff", "batch": "L3:0=ffff"}[g["group"]]
           for r in recs if "interval" in r for g in r["groups"]), recs
print("ok")' >"$TMP/verdict" 2>&1
expect_file_text "advisory decisions, the masks in force as they were" "$TMP/verdict" ok
expect_mask "advisory: web untouched" web 00ff
expect_mask "advisory: batch untouched" batch ffff
ok "clear" control clear

# --- sim-run and show are looks: no state made ---
# a lackey text trace: a loop over 64 lines, 600 loads
awk 'BEGIN { for (i = 0; i < 600; i++) printf " L %08x,8\n", 1048576 + (i % 64) * 64 }' \
	>"$TMP/t"
mkdir -m 700 "$TMP/fresh"
"$RDTCTL" --backend sim --state-dir "$TMP/fresh" --machine "$MACHINE" \
	control sim-run --interval-accesses 300 a="$TMP/t" >/dev/null 2>"$TMP/err"
RC=$?
expect_rc 0 "sim-run on a fresh directory"
"$RDTCTL" --backend sim --state-dir "$TMP/fresh" --machine "$MACHINE" control show \
	>/dev/null 2>>"$TMP/err"
RC=$?
expect_rc 0 "show on a fresh directory"
if [ -z "$(ls -A "$TMP/fresh")" ]; then pass; else
	fail "sim-run and show made: $(ls -A "$TMP/fresh")"; fi

# --- the shareable (I/O) ways are left alone unless --shareable ---
STATE=$TMP/shareable
mkdir -m 700 "$STATE"
M11="topology=package:1 l3:1(size=176KiB) core:2 pu:1;l3.cbm_len=11"
MACHINE="$M11;l3.shareable_bits=0x600;tasks=virtual"
ok "db" group create db
ok "bulk" group create bulk
ok "db's load" sim load db --footprint 128K --rate 4G/s
ok "bulk's load" sim load bulk --footprint 100M --rate 4G/s
ok "a bound" control set db bulk --bound db=1M/s --interval-ms 20
run -j control run --count 6
expect_rc 0 "a bounded run on an 11-way L3 with shareable ways 0x600"
bounded_clear_of "no mask of the controller's on the shareable ways" 600
ok "with --shareable" control set db bulk --interval-ms 20 --shareable
run -j control run --count 1
json "--shareable: all shared is every way" "[g['schema'] for g in d['groups']]" \
	'["L3:0=7ff", "L3:0=7ff"]'
ok "clear" control clear

# --- on the resctrl emulator: the kernel's shareable_bits, the kernel's schemata ---
FS=${RDTALLOC_TEST_RESCTRLFS:-}
if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ] || [ -z "$FS" ] || [ ! -x "$FS" ]; then
	skip_part "the resctrl emulator needs root, /dev/fuse and RDTALLOC_TEST_RESCTRLFS"
else
	MNT=$TMP/resctrl
	mkdir "$MNT"
	RM="$M11;l3.shareable_bits=0x600"
	"$FS" "$MNT" -f --machine "$RM" 2>"$TMP/fs.log" &
	FSPID=$!
	CHILDREN="$CHILDREN $FSPID"
	rfs_down()
	{
		grep -q " $MNT fuse.resctrl " /proc/mounts && fusermount3 -u -z "$MNT"
		wait "$FSPID" 2>/dev/null
	}
	CLEANUP=rfs_down
	i=0
	while ! grep -q " $MNT fuse.resctrl " /proc/mounts && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	rrdt()
	{
		"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --state-dir "$TMP/rstate" \
			--machine "$RM" "$@" >"$TMP/out" 2>"$TMP/err"
		RC=$?
		OUT=$(cat "$TMP/out")
		ERR=$(cat "$TMP/err")
		LAST="rdtctl (resctrl) $*"
	}
	mkdir -m 700 "$TMP/rstate"
	rrdt group create db
	expect_rc 0 "resctrl: db"
	rrdt group create bulk --schema L3:0=f
	expect_rc 0 "resctrl: bulk"
	rrdt control set db bulk --bound db=1M/s --interval-ms 50
	expect_rc 0 "resctrl: control set"
	rrdt control run --count 1
	expect_rc 0 "resctrl: control run"
	expect_file_text "the kernel's schemata: every way but the shareable 0x600" \
		"$(ls -d "$MNT"/rdtalloc-* | head -1)/schemata" "    L3:0=1ff"
	rrdt control clear
	expect_rc 0 "resctrl: control clear"
	(cd "$MNT" && cat rdtalloc-*/schemata | sort) >"$TMP/rschemata"
	expect_file_text "the kernel's schemata: the declared masks back" "$TMP/rschemata" \
		"$(printf '    L3:0=7ff\n    L3:0=f')"
	# an administrator's change of a mask the controller holds: refused by
	# name, the kernel untouched; --force takes it, in the kernel too
	rrdt control set db bulk --bound db=1M/s --interval-ms 50
	expect_rc 0 "resctrl: control set again"
	rrdt control run --count 1
	expect_rc 0 "resctrl: a run: the controller holds the masks"
	(cd "$MNT" && cat rdtalloc-*/schemata | sort) >"$TMP/rheld"
	rrdt schema set db L3:0=3
	expect_rc 1 "resctrl: a person's schema set of the controller's mask"
	expect_err_has "resctrl: the owner named" \
		"rdtctl: group db: its mask is the controller's (domain 0); --force takes it back"
	(cd "$MNT" && cat rdtalloc-*/schemata | sort) >"$TMP/rnow"
	if cmp -s "$TMP/rheld" "$TMP/rnow"; then pass; else
		fail "resctrl: the refused change reached the kernel"; fi
	rrdt --force schema set db L3:0=3
	expect_rc 0 "resctrl: --force takes the mask"
	rrdt -j group show db
	json "resctrl: the mask is the person's" "d['mask_owner']" "user:admin"
	(cd "$MNT" && grep -l '^ *L3:0=3$' rdtalloc-*/schemata) >"$TMP/rforced"
	[ -s "$TMP/rforced" ] && pass || fail "resctrl: the forced mask L3:0=3 is not in the kernel"
	rrdt control clear
	expect_rc 0 "resctrl: control clear after the take-over"
	rfs_down
	CLEANUP=
fi

# --- a "control" member that cannot be read locks nobody out ---
ok "control set" control set db bulk --interval-ms 20
python3 - "$STATE/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["control"]["domains"][0]["writes_per_minute"] = -1294967296
json.dump(d, open(sys.argv[1], "w"))
PY
ok "group list beside a damaged control member" group list
ok "a group made beside it" group create other --schema L3:0=f
run control show
expect_rc 0 "control show beside it"
expect_out "no controller runs from it" "no controller"
expect_err_has "show says it was kept aside" 'the state'"'"'s "control" member could not be read'
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["control"]["domains"][0]
assert d["writes_per_minute"] == -1294967296, d
' "$STATE/state.json" && pass || fail "the damaged member was not kept as it was"
ok "control clear recovers" control clear
if grep -q '"control"' "$STATE/state.json"; then
	fail "clear left the damaged member"
else
	pass
fi
run control show
expect_out "clean" "no controller"
if [ -z "$ERR" ]; then pass; else fail "a warning after clear: $ERR"; fi
# damaged again: sync and reset work beside it too
ok "control set" control set db bulk --interval-ms 20
python3 - "$STATE/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["control"] = {"domains": "from a newer version"}
json.dump(d, open(sys.argv[1], "w"))
PY
ok "sync beside it" sync
ok "reset beside it" reset

# --- 64 groups on the ninth of 9 L3 domains: the last group's counters are read too ---
STATE=$TMP/nine
mkdir -m 700 "$STATE"
MACHINE="topology=package:9 l3:1(size=256KiB) core:1 pu:1;l3.cbm_len=16;tasks=virtual"
all=
for i in $(seq 1 64); do
	rdt group create "g$i" >/dev/null 2>&1 || fail "group g$i"
	all="$all g$i"
done
ok "g64's load" sim load g64 --footprint 100M --rate 4G/s --domain 8
# shellcheck disable=SC2086
ok "64 groups" control set $all --domain 8 --interval-ms 50
run -j control run --count 2
expect_rc 0 "a run of 64 groups"
printf '%s\n' "$OUT" | python3 -c '
import json, sys
iv = [json.loads(l) for l in sys.stdin if l.startswith("{\"interval\"")]
assert len(iv) == 2, iv
assert all(d["groups"][-1]["group"] == "g64" and d["groups"][-1]["mbm_total_bytes"] > 0
           for d in iv), [d["groups"][-1] for d in iv]
print("ok")' >"$TMP/verdict" 2>&1
expect_file_text "g64's traffic read (576 values, more than 512)" "$TMP/verdict" ok

finish
