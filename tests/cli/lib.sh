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

# named after this shell: a hook left serving it is a leftover only once it is gone
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdtctl-test.$$.XXXXXX") || exit 1
STATE=$TMP/state
mkdir -m 700 "$STATE" || exit 1
# Every exit path runs cleanup_all: the test's own cleanup (CLEANUP, a
# command a test may set), its children, a switch hook it loaded, emulators
# it mounted; then the temporary directory goes. Tests never replace the
# trap, so that a failing test cannot leave a hook or a mount behind to
# poison the tests after it.
CLEANUP=
trap 'cleanup_all' EXIT
trap 'exit 1' INT TERM HUP

NPASS=0
NFAIL=0
CHILDREN=""

cleanup_all()
{
	[ -n "$CLEANUP" ] && eval "$CLEANUP"
	cleanup_children
	hook_teardown
	msrfs_stop_all
	resctrlfs_stop_all
	rm -rf "$TMP"
}

# skip REASON: this test cannot run here: exit 77 (ctest: skipped). Under
# RDTALLOC_TEST_STRICT, which scripts/test.sh sets where the machine can run
# every test (root, BTF, /dev/fuse, 2 CPUs), a skip is a failure instead:
# a suite that skips the hook there would report green without testing it.
skip()
{
	if [ -n "${RDTALLOC_TEST_STRICT:-}" ]; then
		echo "FAIL: this machine can run $(basename "$0"), but it would skip: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# skip_part REASON: a part of this test cannot run here: said, and under
# RDTALLOC_TEST_STRICT counted as a failure, as skip is.
skip_part()
{
	if [ -n "${RDTALLOC_TEST_STRICT:-}" ]; then
		fail "this machine can run every part of $(basename "$0"), but one would skip: $*"
	else
		echo "note: $*: that part is skipped" >&2
	fi
}

# need_free_hook: no switch hook is loaded (one per machine: ours would
# take it over). A test that loads one sets HOOK_STATE to the state
# directory it serves, and hook_teardown takes it down at exit.
HOOK_STATE=
need_free_hook()
{
	hook_leftover_down
	if [ -e /sys/fs/bpf/rdtalloc ]; then
		skip "a switch hook is loaded (rdtctl hook status); stop it to run this test"
	fi
}

# hook_leftover_down: a hook that serves a test's own temporary state was
# left by a test run that was killed (the hook tests run one at a time:
# RUN_SERIAL); take it down, agent included, so that it cannot turn every
# later run into a skip. A hook serving anything else is not ours to touch.
hook_leftover_down()
{
	[ -e /sys/fs/bpf/rdtalloc ] || return 0
	hl_doc=$("$RDTCTL" --backend sim --state-dir "$TMP/hook-probe" -j hook status 2>/dev/null)
	hl_dir=$(printf '%s' "$hl_doc" | sed -n 's/.*"served_dir":"\([^"]*\)".*/\1/p')
	case "$hl_dir" in
	"${TMPDIR:-/tmp}"/rdtctl-test.*|/tmp/rdtctl-test.*|/tmp/rdt-test-hook-*) ;;
	*) return 0 ;;
	esac
	# the test that made it (its PID is in the name) still runs: in use, not
	# left. It is another test run's (ours run under a lock of the machine,
	# see tests/CMakeLists.txt, but a run of other sources may not): wait for
	# it to end, 10 minutes at most; then the caller finds the hook free.
	hl_owner=$(printf '%s' "$hl_dir" |
		sed -n 's|.*/rdtctl-test\.\([0-9][0-9]*\)\..*|\1|p; s|.*/rdt-test-hook-\([0-9][0-9]*\)-.*|\1|p')
	if [ -n "$hl_owner" ] && kill -0 "$hl_owner" 2>/dev/null; then
		hl_i=0
		while [ $hl_i -lt 6000 ] && kill -0 "$hl_owner" 2>/dev/null && [ -e /sys/fs/bpf/rdtalloc ]; do
			sleep 0.1
			hl_i=$((hl_i + 1))
		done
		kill -0 "$hl_owner" 2>/dev/null && return 0
		# its test ended: a hook it left is a leftover now
		[ -e /sys/fs/bpf/rdtalloc ] && hook_leftover_down
		return 0
	fi
	hl_pid=$(printf '%s' "$hl_doc" | sed -n 's/.*"agent_pid":\([0-9][0-9]*\).*/\1/p')
	[ -n "$hl_pid" ] && [ "$hl_pid" != 0 ] && kill -9 "$hl_pid" 2>/dev/null
	rm -rf /sys/fs/bpf/rdtalloc
	echo "note: took down a switch hook left by a killed test run (it served $hl_dir)" >&2
}

hook_teardown()
{
	[ -n "$HOOK_STATE" ] || return 0
	h_doc=$("$RDTCTL" --backend sim --state-dir "$HOOK_STATE" -j hook status 2>/dev/null)
	h_dir=$(printf '%s' "$h_doc" | sed -n 's/.*"served_dir":"\([^"]*\)".*/\1/p')
	# The hook loaded now is another run's (this test's was taken down, and
	# another test run on the machine loaded its own): not ours to touch.
	if [ "$h_dir" != "$HOOK_STATE" ] && [ "$h_dir" != "$(realpath -m "$HOOK_STATE")" ]; then
		HOOK_STATE=
		return 0
	fi
	h_pid=$(printf '%s' "$h_doc" | sed -n 's/.*"agent_pid":\([0-9][0-9]*\).*/\1/p')
	# a stopped agent (SIGSTOP tests) cannot act on SIGTERM
	[ -n "$h_pid" ] && kill -CONT "$h_pid" 2>/dev/null
	"$RDTCTL" --backend sim --state-dir "$HOOK_STATE" hook stop >/dev/null 2>&1
	if [ -e /sys/fs/bpf/rdtalloc ]; then
		# the state or the agent is gone: take down what this test loaded
		[ -n "$h_pid" ] && kill -9 "$h_pid" 2>/dev/null
		rm -rf /sys/fs/bpf/rdtalloc
		echo "note: the switch hook had to be unloaded by hand" >&2
	fi
	HOOK_STATE=
}

# hook_unusable STATE_DIR: why the switch hook cannot be loaded here (empty:
# it can); a hook a killed test run left is taken down first. Pins this shell
# to CPU 0, as the hook tests need (their tasks run on CPU 1).
hook_unusable()
{
	[ -e /sys/kernel/btf/vmlinux ] || { echo "the kernel has no BTF"; return; }
	[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || { echo "the task needs a CPU 1"; return; }
	hook_leftover_down >&2
	[ -e /sys/fs/bpf/rdtalloc ] && { echo "a switch hook is loaded (rdtctl hook status)"; return; }
	"$RDTCTL" --backend sim --state-dir "$1" hook status 2>&1 |
		grep -q "built without the switch hook" &&
		{ echo "rdtctl was built without the switch hook"; return; }
	taskset -cp 0 $$ >/dev/null 2>&1 || echo "cannot pin this shell to CPU 0"
}

# hook_applied STATE_DIR CPU CLOSID: within 3 s, `hook status` of the hook
# serving STATE_DIR says CPU applies CLOSID; the last value read in APPLIED
hook_applied()
{
	h_i=0
	while [ $h_i -lt 150 ]; do
		APPLIED=$("$RDTCTL" --backend sim --state-dir "$1" -j hook status 2>/dev/null |
			python3 -c "import json,sys; print(json.load(sys.stdin)['cpus'][$2]['applied'])")
		[ "$APPLIED" = "$3" ] && return 0
		sleep 0.02
		h_i=$((h_i + 1))
	done
	return 1
}

# within SECONDS CMD...: CMD succeeds within SECONDS (polled every 20 ms)
within()
{
	w_n=$(python3 -c "print(int($1 * 50))")
	shift
	while [ "$w_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.02
		w_n=$((w_n - 1))
	done
	return 1
}

# host_l3_of_cpu CPU: the cache id of the host's L3 domain that holds CPU,
# as the library sees the host (HWLOC_SYNTHETIC included); host_cbm_len:
# the CBM length of that host's simulated L3.
host_l3_of_cpu()
{
	"$RDTCTL" --backend sim --state-dir "$TMP/host-info" -j info | python3 -c '
import json, sys
cpu = int(sys.argv[1])
def cpus(text):
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        yield from range(int(lo), int(hi or lo) + 1)
r = [r for r in json.load(sys.stdin)["resources"] if r["name"] == "L3"][0]
print([d["cache_id"] for d in r["domains"] if cpu in cpus(d["cpus"])][0])' "$1"
}

# l3_closid_in DOMAIN: the L3 CLOSID, in cache id DOMAIN, of the group the
# last `-j group show` printed
l3_closid_in()
{
	printf '%s' "$OUT" | python3 -c '
import json, sys
print([c["closid"] for c in json.load(sys.stdin)["closids"]
       if c["resource"] == "L3" and c["cache_id"] == int(sys.argv[1])][0])' "$1"
}

# msrfs_start DIR MACHINE [ARGS...]: the msr driver's emulator on DIR for
# MACHINE (RDTALLOC_TEST_MSRFS; skip without it); unmounted at exit.
MSRFS_MOUNTED=
msrfs_start()
{
	m_dir=$1
	m_machine=$2
	shift 2
	if [ -z "${RDTALLOC_TEST_MSRFS:-}" ] || [ ! -x "$RDTALLOC_TEST_MSRFS" ]; then
		skip "no msr emulator (RDTALLOC_TEST_MSRFS): this build has no libfuse3"
	fi
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	mkdir -p "$m_dir"
	if ! "$RDTALLOC_TEST_MSRFS" "$m_dir" --machine "$m_machine" "$@"; then
		fail "rdtalloc-msrfs $m_dir --machine $m_machine did not start"
		finish
	fi
	MSRFS_MOUNTED="$MSRFS_MOUNTED $m_dir"
}

# bounded_clear_of DESC MASK: the controller's records on stdout (control
# run -j) include a bound decision and no group's mask touches MASK (hex)
bounded_clear_of()
{
	printf '%s\n' "$OUT" | python3 -c '
import json, sys
bound = False
for l in sys.stdin:
    d = json.loads(l)
    bound |= d.get("decision") == "bound"
    for g in d.get("groups", []):
        assert int(g["schema"].split("=")[1], 16) & int(sys.argv[1], 16) == 0, g
assert bound, "no bound decision"
print("ok")' "$2" >"$TMP/verdict" 2>&1
	expect_file_text "$1" "$TMP/verdict" ok
}

# write_traces DIR: three synthetic lackey traces, loop (fits in a few ways),
# walk (random over more) and small (random over few), 120,000 loads each
write_traces()
{
	python3 - "$1" <<'PY'
import sys
def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield x >> 33
def write(name, lines, n, base, seed=None):
    g = lcg(seed) if seed is not None else None
    with open(f"{sys.argv[1]}/{name}.trace", "w") as f:
        for i in range(n):
            line = next(g) % lines if g else i % lines
            f.write(" L %x,8\n" % (base + line * 64))
write("loop", 200 * 16, 120000, 0x20000000)
write("walk", 800 * 16, 120000, 0x31000000, 2)
write("small", 150 * 16, 120000, 0x32000000, 5)
PY
}

# rfs_mount DIR MACHINE: the resctrl emulator (RDTALLOC_TEST_RESCTRLFS) serving
# MACHINE on DIR in the background (RFS_PID); 1 when it did not mount.
# rfs_umount DIR unmounts it and waits for it.
RFS_PID=
rfs_mount()
{
	mkdir -p "$1"
	"$RDTALLOC_TEST_RESCTRLFS" "$1" -f --machine "$2" 2>"$TMP/fs.log" &
	RFS_PID=$!
	r_i=0
	while ! grep -q " $1 fuse.resctrl " /proc/mounts; do
		r_i=$((r_i + 1))
		if [ $r_i -gt 1200 ] || ! kill -0 "$RFS_PID" 2>/dev/null; then
			return 1
		fi
		sleep 0.05
	done
	return 0
}

rfs_umount()
{
	if grep -q " $1 fuse.resctrl " /proc/mounts; then
		fusermount3 -u -z "$1" 2>/dev/null
	fi
	[ -n "$RFS_PID" ] && wait "$RFS_PID" 2>/dev/null
	RFS_PID=
}

msrfs_stop_all()
{
	for m_dir in $MSRFS_MOUNTED; do
		fusermount3 -u -z "$m_dir" 2>/dev/null
	done
	MSRFS_MOUNTED=
}

# resctrlfs_start DIR MACHINE: the resctrl emulator (RDTALLOC_TEST_RESCTRLFS;
# skip without it or /dev/fuse) on DIR for MACHINE, in the foreground of a
# child of ours; returns once it is mounted. Unmounted at exit.
RESCTRLFS_MOUNTED=
RESCTRLFS_PIDS=
resctrlfs_start()
{
	if [ -z "${RDTALLOC_TEST_RESCTRLFS:-}" ] || [ ! -x "$RDTALLOC_TEST_RESCTRLFS" ]; then
		skip "no resctrl emulator (RDTALLOC_TEST_RESCTRLFS)"
	fi
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	mkdir -p "$1"
	"$RDTALLOC_TEST_RESCTRLFS" "$1" -f --machine "$2" 2>>"$TMP/resctrlfs.log" &
	RESCTRLFS_PIDS="$RESCTRLFS_PIDS $!"
	RESCTRLFS_MOUNTED="$RESCTRLFS_MOUNTED $1"
	if ! wait_until 60 grep -q " $1 fuse.resctrl " /proc/mounts; then
		fail "rdtalloc-resctrlfs $1 did not mount: $(cat "$TMP/resctrlfs.log")"
		finish
	fi
}

resctrlfs_stop_all()
{
	for r_dir in $RESCTRLFS_MOUNTED; do
		fusermount3 -u -z "$r_dir" 2>/dev/null
	done
	for r_pid in $RESCTRLFS_PIDS; do
		wait "$r_pid" 2>/dev/null
	done
	RESCTRLFS_MOUNTED=
	RESCTRLFS_PIDS=
}

# need_cgroup2: root and a cgroup2 mount (its path in $CGR), or skip
need_cgroup2()
{
	[ "$(id -u)" -eq 0 ] || skip "real cgroups need root"
	CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$CGR" ] || skip "cgroup v2 is not mounted"
}

# start_in CGROUP: a sleeping process in CGROUP (a directory), once the
# cgroup lists it; its pid in $P
start_in()
{
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 300' sh "$1" &
	P=$!
	CHILDREN="$CHILDREN $P"
	wait_until 12 grep -qx "$P" "$1/cgroup.procs"
}

# mon_samples N: N runs of `rdt -j monitor --count 1`, 0.3 s apart, their
# JSON lines in OUT (one process a sample: a loaded machine that delays one
# never brings the next closer than the pause, as a late sample of one run
# would); 1 when one fails
mon_samples()
{
	ms_n=$1
	ms_all=
	while [ "$ms_n" -gt 0 ]; do
		run -j monitor --count 1
		[ "$RC" -eq 0 ] || return 1
		if [ -n "$ms_all" ]; then
			ms_all="$ms_all
$OUT"
		else
			ms_all=$OUT
		fi
		ms_n=$((ms_n - 1))
		[ "$ms_n" -gt 0 ] && sleep 0.3
	done
	OUT=$ms_all
	return 0
}

# mon_states DOMAIN: per line of JSON Lines on $OUT (rdtctl -j monitor), each
# group's state in the DOMAIN-th domain: "default:ok a:unassigned ..."
mon_states()
{
	printf '%s' "$OUT" | python3 -c '
import json, sys
for line in sys.stdin.read().splitlines():
    d = json.loads(line)
    print(" ".join("%s:%s" % (g["group"], g["domains"][int(sys.argv[1])]["state"])
                   for g in d["groups"]))' "$1"
}

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

# jfails RC DESC MESSAGE ERRNO ARGS: with -j, the error is one JSON object
# on stderr, exactly {"error": MESSAGE, "errno": ERRNO} (ERRNO null or a
# name), nothing on stdout, exit RC
jfails()
{
	jf_rc=$1 jf_desc=$2 jf_msg=$3 jf_errno=$4
	shift 4
	run -j "$@"
	expect_rc "$jf_rc" "$jf_desc"
	jf_got=$(printf '%s' "$ERR" | python3 -c '
import json, sys
lines = sys.stdin.read().split("\n")
lines = [l for l in lines if l]
assert len(lines) == 1, "%d lines" % len(lines)
d = json.loads(lines[0])
print(json.dumps([sorted(d), d["error"], d["errno"]]))' 2>&1)
	jf_want=$(python3 -c 'import json, sys; print(json.dumps([["errno", "error"], sys.argv[1],
None if sys.argv[2] == "null" else sys.argv[2]]))' "$jf_msg" "$jf_errno")
	if [ "$jf_got" = "$jf_want" ]; then pass; else
		fail "$jf_desc: stderr is '$ERR', wanted $jf_want"; fi
	if [ -z "$OUT" ]; then pass; else fail "$jf_desc: a failed command printed on stdout"; fi
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

# expect_file_text DESC FILE TEXT: FILE holds exactly TEXT
expect_file_text()
{
	if [ "$(cat "$2")" = "$3" ]; then pass; else fail "$1: $(cat "$2")"; fi
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

# expect_out_contains DESC TEXT: TEXT is somewhere on stdout
expect_out_contains()
{
	if printf '%s\n' "$OUT" | grep -Fq -- "$2"; then pass; else
		fail "$1: '$2' not on stdout"; fi
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
	have_python || skip "python3 is needed to parse JSON"
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

# wait_until SECONDS CMD...: poll CMD until it succeeds, for at most about
# SECONDS (more on a loaded machine: the count is of polls); its status. A
# check waits for what it needs this way, never for a guessed sleep.
wait_until()
{
	wu_n=$(($1 * 20))
	shift
	while ! "$@"; do
		wu_n=$((wu_n - 1))
		[ $wu_n -gt 0 ] || return 1
		sleep 0.05
	done
}

# pid_gone PID: PID has exited: no /proc entry, or a zombie (Z) or dead (X)
# one, as the library tells (lib/tasks.c)
pid_gone()
{
	pg_state=$(sed -n 's/.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
	case $pg_state in "" | Z | X) return 0 ;; esac
	return 1
}

# agent_metrics PORT: GET the agent's /metrics into $TMP/metrics, checked
# by promtool (its absence a failure only under RDTALLOC_TEST_STRICT)
agent_metrics()
{
	python3 - "$1" >"$TMP/metrics" 2>"$TMP/metrics.err" <<'PY'
import sys, urllib.request
url = "http://127.0.0.1:%s/metrics" % sys.argv[1]
print(urllib.request.urlopen(url, timeout=5).read().decode(), end="")
PY
	[ $? -eq 0 ] && pass || fail "GET /metrics: $(cat "$TMP/metrics.err")"
	if command -v promtool >/dev/null 2>&1; then
		if promtool check metrics <"$TMP/metrics" >"$TMP/prom" 2>&1; then pass; else
			fail "promtool check metrics: $(cat "$TMP/prom")"; fi
	elif [ -n "${RDTALLOC_TEST_STRICT:-}" ]; then
		fail "promtool is missing (Debian package prometheus; scripts/deps.sh installs it)"
	fi
}

# free_port: a TCP port of 127.0.0.1 free at this moment (the kernel picks
# it), for a server the test starts: a port made from the test's pid may be
# another run's, or a connection's (the ephemeral range)
free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
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
