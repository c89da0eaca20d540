# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers of the rdtalloc-resctrlfs tests, sourced by every test_*.sh:
#   sh test_x.sh /path/to/rdtalloc-resctrlfs
# A test mounts the emulator on a fresh directory (always unmounted at exit),
# then checks exact file contents, errnos and info/last_cmd_status texts.
# It skips (77) only when not root or without /dev/fuse.

BIN=${1:?usage: sh $0 /path/to/rdtalloc-resctrlfs}
PASS=0
FAIL=0
DPID=
TMP=$(mktemp -d /tmp/rfs-test.XXXXXX)
MNT=$TMP/mnt
mkdir "$MNT"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (FUSE mount with allow_other)"
	exit 77
fi
if [ ! -c /dev/fuse ]; then
	echo "SKIP: no /dev/fuse"
	exit 77
fi

cleanup() {
	stop_fs
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mounted() {
	grep -q " $MNT fuse.resctrl " /proc/mounts
}

# wait_until SECONDS CMD...: poll CMD until it succeeds, for at most about
# SECONDS (more on a loaded machine: the count is of polls); its status.
# Waiting for what a check needs, not sleeping a guess, keeps a test
# independent of the machine's load.
wait_until() {
	wu_n=$(($1 * 20))
	shift
	while ! "$@"; do
		wu_n=$((wu_n - 1))
		[ $wu_n -gt 0 ] || return 1
		sleep 0.05
	done
}

# start_fs [ARGS...]: run the daemon in the foreground (so that we know its
# pid) and wait until the mount appears (60 s: a sanitizer build on a
# loaded machine starts slowly).
start_fs() {
	"$BIN" "$MNT" -f "$@" 2>"$TMP/daemon.log" &
	DPID=$!
	i=0
	while ! mounted; do
		i=$((i + 1))
		if [ $i -gt 1200 ] || ! kill -0 "$DPID" 2>/dev/null; then
			echo "FATAL: the daemon did not mount: $(cat "$TMP/daemon.log")"
			exit 1
		fi
		sleep 0.05
	done
}

stop_fs() {
	if mounted || [ -n "$(grep " $MNT " /proc/mounts)" ]; then
		fusermount3 -u -z "$MNT" 2>/dev/null
	fi
	if [ -n "$DPID" ]; then
		wait "$DPID" 2>/dev/null
		DPID=
	fi
}

pass() {
	PASS=$((PASS + 1))
}

fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		pass
	else
		fail "$1: expected [$2], got [$3]"
	fi
}

# check_file FILE EXPECTED: the whole content, EXPECTED plus one newline.
check_file() {
	if printf '%s\n' "$2" | cmp -s - "$1"; then
		pass
	else
		fail "$1: expected [$2], got [$(cat "$1" 2>&1)]"
	fi
}

# wr FILE DATA: one write() of DATA exactly; sets ERR to the errno text.
wr() {
	ERR=
	if printf '%s' "$2" | dd of="$1" bs=8192 conv=notrunc status=none 2>"$TMP/err"; then
		return 0
	fi
	ERR=$(sed -n 's/.*: //p' "$TMP/err" | tail -n 1)
	return 1
}

# ok_write NAME FILE DATA: the write succeeds and last_cmd_status is ok.
ok_write() {
	if wr "$2" "$3"; then
		check "$1 (status)" "ok" "$(cat "$MNT/info/last_cmd_status")"
	else
		fail "$1: write of [$3] to $2 failed: $ERR ($(cat "$MNT/info/last_cmd_status"))"
	fi
}

# bad_write NAME FILE DATA ERRNO-TEXT STATUS: the write fails with that errno
# and leaves STATUS in last_cmd_status ("-" to skip that check).
bad_write() {
	if wr "$2" "$3"; then
		fail "$1: write of [$3] to $2 succeeded"
		return
	fi
	check "$1 (errno)" "$4" "$ERR"
	if [ "$5" != "-" ]; then
		check "$1 (status)" "$5" "$(cat "$MNT/info/last_cmd_status")"
	fi
}

# errtext CMD...: run CMD, print the errno text of its failure ("" if none).
errtext() {
	if "$@" 2>"$TMP/err"; then
		echo ""
	else
		sed -n 's/.*: //p' "$TMP/err" | tail -n 1
	fi
}

# refused_start NAME MESSAGE ARGS...: the daemon refuses to start with ARGS
# and prints MESSAGE ("-" to skip); one that mounts after all is stopped
# (SIGTERM after 5 s) and counted as a failure rather than hanging.
refused_start() {
	rs_name=$1
	rs_msg=$2
	shift 2
	if timeout 5 "$BIN" "$MNT" -f "$@" 2>"$TMP/log"; then
		fail "$rs_name: it started"
		return
	fi
	if [ "$rs_msg" != "-" ]; then
		check "$rs_name" "$rs_msg" "$(cat "$TMP/log")"
	elif mounted; then
		fail "$rs_name: it mounted"
	else
		pass
	fi
}

# names DIR: the entries of DIR on one line, sorted, space-separated.
names() {
	ls "$1" | tr '\n' ' ' | sed 's/ $//'
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
}
