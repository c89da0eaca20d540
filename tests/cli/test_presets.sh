# SPDX-License-Identifier: LGPL-2.1-or-later
# test_presets: no writer of ours writes a state its reader refuses, on any
# machine we know. For every preset (rdtctl info --presets), on the sim
# backend and on the resctrl emulator serving that preset (where root and
# /dev/fuse let it mount): a group is made with a schema of every resource
# the machine has - each cache at its least mask, MB at its maximum - and
# every later command reads that state back (schema show, group show, save,
# apply of the saved file, which must change nothing). The emulator's
# files of 6.14-7.2 (mbm_assign_mode, mbm_L3_assignments, mon_sub_L3_XX,
# mon_PERF_PKG_XX, io_alloc) must not trip the resctrl backend. An AMD preset once
# left a state whose own reader refused it ("group 'default' has a bad
# bandwidth"): every command after the first failed.
. "$(dirname "$0")/lib.sh"
need_python

FS=${RDTALLOC_TEST_RESCTRLFS:-}
MNT=$TMP/resctrl

umount_fs()
{
	rfs_umount "$MNT"
}
CLEANUP=umount_fs

# mount_fs DESC: the emulator serving machine DESC on $MNT; 1 when it did not mount
mount_fs()
{
	rfs_mount "$MNT" "$1"
}

# schema_for: a schema naming every resource of the machine in $OUT (-j info)
schema_for()
{
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
lines = []
for r in d["resources"]:
    ids = [x["cache_id"] for x in r["domains"]]
    if r["name"] == "MB":
        v = r["max_bandwidth"]
        lines.append("MB:" + ";".join("%d=%d" % (i, v) for i in ids))
    else:
        least = max(1, r["min_cbm_bits"])
        m = "%x" % ((1 << least) - 1)
        if r["cdp"]:
            lines.append(r["name"] + "CODE:" + ";".join("%d=%s" % (i, m) for i in ids))
            lines.append(r["name"] + "DATA:" + ";".join("%d=%s" % (i, m) for i in ids))
        else:
            lines.append(r["name"] + ":" + ";".join("%d=%s" % (i, m) for i in ids))
print("\n".join(lines))'
}

# round_trip BACKEND-ARGS...: a group of every resource, read back by every command after
round_trip()
{
	rt_what=$1
	shift
	OUT=$("$RDTCTL" "$@" -j info 2>"$TMP/err") || { fail "$rt_what: info: $(cat "$TMP/err")"; return; }
	rt_schema=$(schema_for)
	if "$RDTCTL" "$@" group create g --schema "$rt_schema" >/dev/null 2>"$TMP/err"; then pass; else
		fail "$rt_what: group create g --schema '$rt_schema': $(cat "$TMP/err")"; return; fi
	for rt_cmd in "schema show g" "group show" "closids" "info"; do
		# shellcheck disable=SC2086
		if "$RDTCTL" "$@" $rt_cmd >/dev/null 2>"$TMP/err"; then pass; else
			fail "$rt_what: the state written is refused by '$rt_cmd': $(cat "$TMP/err")"; fi
	done
	if "$RDTCTL" "$@" save >"$TMP/saved.conf" 2>"$TMP/err" &&
	   rt_out=$("$RDTCTL" "$@" apply "$TMP/saved.conf" 2>"$TMP/err"); then
		case $rt_out in
		*": 0 changes") pass ;;
		*) fail "$rt_what: its own save applied back changed something: $rt_out" ;;
		esac
	else
		fail "$rt_what: save | apply: $(cat "$TMP/err")"
	fi
}

"$RDTCTL" info --presets >"$TMP/presets" || { echo "FATAL: info --presets" >&2; exit 1; }
PRESETS=$(grep -E '^[a-z0-9-]+$' "$TMP/presets")
if [ "$(printf '%s\n' "$PRESETS" | wc -l)" -ge 8 ]; then pass; else
	fail "info --presets lists few presets: $PRESETS"; fi
# the machines of resctrl 6.18-7.1 (ABMC, io_alloc, SNC, AET, MPAM) are among them
for p in amd-turin intel-gnr-snc3 intel-cwf arm-mpam; do
	if printf '%s\n' "$PRESETS" | grep -qx "$p"; then pass; else
		fail "info --presets lacks $p"; fi
done
resctrl=false
if [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] && [ -n "$FS" ] && [ -x "$FS" ]; then
	resctrl=true
fi
for p in $PRESETS; do
	rm -rf "$STATE" && mkdir -m 700 "$STATE"
	round_trip "$p on sim" --backend sim --state-dir "$STATE" --machine "preset=$p;tasks=virtual"
	$resctrl || continue
	rm -rf "$STATE" && mkdir -m 700 "$STATE"
	if ! mount_fs "preset=$p"; then
		fail "$p: the emulator did not mount: $(cat "$TMP/fs.log")"
		continue
	fi
	round_trip "$p on resctrl" --backend resctrl --resctrl-root "$MNT" --state-dir "$STATE" \
		--machine "preset=$p"
	umount_fs
done

finish
