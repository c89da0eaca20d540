# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/cli/lib.sh: helpers for the rdtctl tests (POSIX sh, sourced).
# A test is run as `sh tests/cli/test_x.sh /path/to/rdtctl`; it exits 0 when
# every check passed, 1 when one failed, 77 when it cannot run here.
#
# Every test works on its own temporary state directory with an explicit
# machine description, so tests never touch a real state and can run in
# parallel.

RDTCTL=${1:-}
if [ -z "$RDTCTL" ] || [ ! -x "$RDTCTL" ]; then
	echo "usage: sh $0 /path/to/rdtctl (got '$RDTCTL')" >&2
	exit 1
fi

# Two sockets, one L3 each (cache ids 0 and 1, CPUs 0-1 and 2-3), 16 CLOSIDs,
# a 20-bit CBM, CDP supported; virtual tasks unless a test needs real ones.
MACHINE_VIRT='topology=package:2 l3:1 core:2 pu:1;tasks=virtual'
MACHINE_REAL='topology=package:2 l3:1 core:2 pu:1'
MACHINE=$MACHINE_VIRT

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdtctl-test.XXXXXX") || exit 1
STATE=$TMP/state
mkdir -m 700 "$STATE" || exit 1
trap 'cleanup_children; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

NPASS=0
NFAIL=0
CHILDREN=""

cleanup_children()
{
	for c in $CHILDREN; do
		kill "$c" 2>/dev/null
	done
	CHILDREN=""
}

# rdt ARGS: rdtctl on this test's state and machine
rdt()
{
	"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" "$@"
}

# run ARGS: rdt ARGS, keeping RC, OUT (stdout) and ERR (stderr)
run()
{
	rdt "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl $*"
}

# run_raw ARGS: rdtctl ARGS without the common options
run_raw()
{
	"$RDTCTL" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl $*"
}

# run_env VAR=VALUE... COMMAND ARGS: like run_raw, through env(1)
run_env()
{
	env "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="env $*"
}

pass()
{
	NPASS=$((NPASS + 1))
}

fail()
{
	NFAIL=$((NFAIL + 1))
	echo "FAIL: $*" >&2
	echo "  command: $LAST" >&2
	echo "  exit:    $RC" >&2
	printf '  stdout:  %s\n' "$OUT" | head -20 >&2
	printf '  stderr:  %s\n' "$ERR" | head -20 >&2
}

# expect_rc N DESC: the last command exited with N
expect_rc()
{
	if [ "$RC" -eq "$1" ]; then pass; else fail "$2: exit $RC, wanted $1"; fi
}

# ok DESC ARGS: run ARGS, which must succeed
ok()
{
	ok_desc=$1
	shift
	run "$@"
	expect_rc 0 "$ok_desc"
}

# fails N DESC MESSAGE ARGS: run ARGS, which must exit N with exactly
# "rdtctl: MESSAGE" as the first line of stderr and nothing on stdout
fails()
{
	f_rc=$1 f_desc=$2 f_msg=$3
	shift 3
	run "$@"
	expect_rc "$f_rc" "$f_desc"
	f_first=$(printf '%s\n' "$ERR" | head -1)
	if [ "$f_first" = "rdtctl: $f_msg" ]; then pass; else
		fail "$f_desc: stderr starts '$f_first', wanted 'rdtctl: $f_msg'"; fi
	if [ -z "$OUT" ]; then pass; else fail "$f_desc: a failed command printed on stdout"; fi
	if [ "$f_rc" -eq 2 ]; then
		f_last=$(printf '%s\n' "$ERR" | tail -1)
		if [ "$f_last" = "Try 'rdtctl --help'." ]; then pass; else
			fail "$f_desc: no --help hint on stderr"; fi
	fi
}

# usage DESC MESSAGE ARGS / failure DESC MESSAGE ARGS
usage()
{
	u_desc=$1 u_msg=$2
	shift 2
	fails 2 "$u_desc" "$u_msg" "$@"
}

failure()
{
	x_desc=$1 x_msg=$2
	shift 2
	fails 1 "$x_desc" "$x_msg" "$@"
}

# expect_out DESC TEXT: stdout of the last command is exactly TEXT
expect_out()
{
	if [ "$OUT" = "$2" ]; then pass; else
		fail "$1: stdout differs; wanted:"
		printf '%s\n' "$2" | sed 's/^/    /' >&2
	fi
}

# expect_out_has DESC TEXT: stdout has a line that is exactly TEXT
expect_out_has()
{
	if printf '%s\n' "$OUT" | grep -Fqx -- "$2"; then pass; else
		fail "$1: no line '$2' on stdout"; fi
}

expect_err_has()
{
	if printf '%s\n' "$ERR" | grep -Fq -- "$2"; then pass; else
		fail "$1: '$2' not on stderr"; fi
}

expect_empty_out()
{
	if [ -z "$OUT" ]; then pass; else fail "$1: stdout should be empty"; fi
}

have_python()
{
	command -v python3 >/dev/null 2>&1
}

need_python()
{
	if ! have_python; then
		echo "SKIP: python3 is needed to parse JSON" >&2
		exit 77
	fi
}

# json DESC EXPR WANT: EXPR (Python, over the parsed stdout `d`) prints WANT
json()
{
	j_got=$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(json.dumps(v, sort_keys=True) if not isinstance(v, str) else v)
' "$2" 2>"$TMP/pyerr")
	if [ $? -eq 0 ] && [ "$j_got" = "$3" ]; then pass; else
		fail "$1: $2 is '$j_got', wanted '$3' $(cat "$TMP/pyerr")"; fi
}

# valid_json DESC: stdout is exactly one JSON document
valid_json()
{
	if printf '%s' "$OUT" | python3 -m json.tool >/dev/null 2>&1; then pass; else
		fail "$1: stdout is not valid JSON"; fi
}

# snapshot FILE: everything a command could change, as text (not the default
# group's task list: with real tasks that is every task of the system)
snapshot()
{
	{
		rdt save --tasks
		rdt closids
		rdt cpu show
		rdt schema show
		rdt info
	} >"$1" 2>&1
}

# unchanged DESC BEFORE: the state equals the snapshot in BEFORE
unchanged()
{
	snapshot "$TMP/after"
	if cmp -s "$2" "$TMP/after"; then pass; else
		fail "$1: the state changed"
		diff "$2" "$TMP/after" | head -20 >&2
	fi
}

# spawn CMD...: start a background process that the test owns; PID in $SPAWNED
spawn()
{
	"$@" >/dev/null 2>&1 </dev/null &
	SPAWNED=$!
	CHILDREN="$CHILDREN $SPAWNED"
}

finish()
{
	echo "$(basename "$0"): $NPASS checks passed, $NFAIL failed"
	[ "$NFAIL" -eq 0 ]
	exit $?
}
