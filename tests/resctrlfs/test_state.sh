# SPDX-License-Identifier: LGPL-2.1-or-later
# --state: the tree survives kill -9 of the daemon, a lazy unmount of the
# stale mount and a restart; the file is refused for another machine; a
# recorded tid that now names another task (start time differs) is dropped;
# SIGTERM unmounts and exits 0.
. "$(dirname "$0")/lib.sh"

NL='
'
M="topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.shareable_bits=0x80;l3.cdp=1"
ST=$TMP/state/resctrl.json
mkdir "$TMP/state"
S1=
cleanup_state() {
	[ -n "$S1" ] && kill "$S1" 2>/dev/null
	cleanup
}
trap cleanup_state EXIT

# refuse_start ARGS...: a start that must be refused at once. Bounded, so
# that a start that is wrongly accepted (and would serve in the foreground
# for ever) is a failure that says so, not a hung suite.
refuse_start() {
	timeout 60 "$BIN" "$MNT" -f "$@" 2>"$TMP/log"
	r_rc=$?
	if [ $r_rc -eq 124 ]; then
		echo "FAIL: started with $* instead of refusing" >>"$TMP/log"
		fusermount3 -u -z "$MNT" 2>/dev/null
	fi
	return $r_rc
}

# Every file but root's tasks (the host's threads come and go).
dump() {
	(cd "$MNT" && find . -type f | sort | while read -r f; do
		[ "$f" = ./tasks ] && continue
		echo "== $f"
		cat "$f"
	done)
}

start_fs --machine "$M" --state "$ST"
check "state written at start" "yes" "$([ -s "$ST" ] && echo yes)"
mkdir "$MNT/g1" "$MNT/g2" "$MNT/g3"
rmdir "$MNT/g2"
ok_write "root schemata" "$MNT/schemata" "L3:0=f;1=f$NL"
ok_write "g3 schemata" "$MNT/g3/schemata" "L3:0=f;1=f$NL"
ok_write "g1 schemata" "$MNT/g1/schemata" "L3:0=30;1=70$NL"
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
ok_write "g3 cpus" "$MNT/g3/cpus_list" "1-2$NL"
sleep 100 &
S1=$!
sleep 0.1
ok_write "g3 task" "$MNT/g3/tasks" "$S1"
bad_write "a failed write" "$MNT/g3/schemata" "L3:0=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
dump > "$TMP/before"
check "json" '"version":1,' "$(sed -n 2p "$ST" | tr -d ' ')"

# kill -9: the mount stays, dead. The stat just before it leaves the root's
# attributes in FUSE's cache (attr_timeout, 1 s), where a plain stat of the
# dead mount still finds a directory: the restart must ask the daemon.
stat "$MNT" >/dev/null
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
check "stale mount" "Transport endpoint is not connected" "$(errtext stat --cached=never "$MNT")"
refuse_start --machine "$M" --state "$ST"
check "restart on a stale mount" "1" "$?"
check "stale message" "rdtalloc-resctrlfs: $MNT: stale mount of a dead daemon; run 'fusermount3 -u -z $MNT' and start again" "$(cat "$TMP/log")"
fusermount3 -u -z "$MNT"
check "no temporary files" "resctrl.json" "$(ls "$TMP/state")"

start_fs --machine "$M" --state "$ST"
dump > "$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then
	pass
else
	fail "tree changed across kill -9 and restart: $(diff "$TMP/before" "$TMP/after")"
fi
check "g3 task after restart" "$S1" "$(cat "$MNT/g3/tasks")"
check "groups after restart" "g1 g3" "$(ls -d "$MNT"/g* | sed 's|.*/||' | tr '\n' ' ' | sed 's/ $//')"
# g2's CLOSID (2) is free again, the next one (none) is not.
mkdir "$MNT/g4"
check "CLOSIDs after restart" "No space left on device" "$(errtext mkdir "$MNT/g5")"
rmdir "$MNT/g4"

# SIGTERM: unmount and exit 0.
kill -TERM "$DPID"
# bounded: a daemon that ignores SIGTERM fails the check instead of hanging
w_i=0
while kill -0 "$DPID" 2>/dev/null && [ $w_i -lt 200 ]; do
	sleep 0.05
	w_i=$((w_i + 1))
done
if kill -0 "$DPID" 2>/dev/null; then
	fail "the daemon did not exit within 10 s of SIGTERM"
	kill -9 "$DPID"
fi
wait "$DPID"
check "SIGTERM exit status" "0" "$?"
DPID=
if mounted; then fail "still mounted after SIGTERM"; else pass; fi

# Another machine or other mount options: refused, the file untouched.
cp "$ST" "$TMP/saved"
refuse_start --machine "topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=9" --state "$ST"
check "other machine refused" "1" "$?"
check "other machine message" "yes" "$(grep -q "written for machine 'topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;" "$TMP/log" && echo yes)"
refuse_start --machine "$M" --cdp --state "$ST"
check "--cdp refused" "1" "$?"
check "--cdp message" "rdtalloc-resctrlfs: state $ST: written without --cdp and without --cdpl2; start the same way or remove the file" "$(cat "$TMP/log")"
if cmp -s "$ST" "$TMP/saved"; then pass; else fail "state file changed by refused starts"; fi
echo "{ not json" > "$TMP/bad.json"
refuse_start --machine "$M" --state "$TMP/bad.json"
check "bad JSON refused" "1" "$?"

# A record whose start time does not match is another task: not listed.
START=$(sed 's/.*) //' /proc/$S1/stat | cut -d' ' -f20)
sed "s/\"start\":$START,/\"start\":1,/" "$ST" > "$TMP/reused.json"
check "record edited" "yes" "$(grep -q '"start":1,' "$TMP/reused.json" && echo yes)"
mv "$TMP/reused.json" "$ST"
start_fs --machine "$M" --state "$ST"
check "reused tid not listed" "" "$(cat "$MNT/g3/tasks")"
grep -qx "$S1" "$MNT/tasks" && pass || fail "reused tid $S1 not back in root"
stop_fs

finish
