# SPDX-License-Identifier: LGPL-2.1-or-later
# test_hook_clone3: children made by clone3(CLONE_INTO_CGROUP) straight into
# a bound cgroup - how systemd starts services, and crun and newer runc
# containers. Such a child never joins its cgroup (no cgroup_attach_task),
# and at its fork it is not in its parent's cgroup. Both users of
# membership must see it:
# - the agent's membership program on the resctrl emulator: each child is
#   in its group's control and MON group within 2 s (the agent's full
#   sync is an hour away, so only the BPF event can have placed it); a
#   child made into an unbound cgroup is not touched;
# - the switch hook on the simulator: the child is in the cgroup's group
#   (task show, the hook's iterator) and CPU 1 runs it with that group's
#   CLOSID.
# The children are made with a real clone3 system call (python's ctypes:
# glibc has no wrapper).
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "making cgroups needs root"
CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGR" ] || skip "cgroup v2 is not mounted"
NAME=rdtalloc-clone3-$$
CG=$CGR/$NAME
MACHINE=$MACHINE_REAL
MNT=$TMP/resctrl
FSPID=
APID=

mounted() { grep -q " $MNT fuse.resctrl " /proc/mounts; }

c3_cleanup()
{
	[ -n "$APID" ] && kill -KILL "$APID" 2>/dev/null
	cleanup_children
	for d in "$CG/sub" "$CG" "$CGR/$NAME-unbound"; do
		[ -d "$d" ] || continue
		while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$d/cgroup.procs"
		i=0
		while [ -s "$d/cgroup.procs" ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
		rmdir "$d" 2>/dev/null
	done
	if mounted; then fusermount3 -u -z "$MNT" 2>/dev/null; fi
	[ -n "$FSPID" ] && wait "$FSPID" 2>/dev/null
}
CLEANUP=c3_cleanup

# clone3_into DIR CMD...: CMD run by a child that clone3(CLONE_INTO_CGROUP)
# made in cgroup DIR; its pid in P. The parent (python) exits at once: the
# child is nobody's but init's, as a service's is.
clone3_into()
{
	P=$(python3 - "$@" <<'PY'
import ctypes, os, struct, sys
CLONE_INTO_CGROUP = 0x200000000
SYS_clone3 = 435                # the same number on every architecture
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
# struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack,
# stack_size, tls, set_tid, set_tid_size, cgroup
args = struct.pack("=11Q", CLONE_INTO_CGROUP, 0, 0, 0, 17, 0, 0, 0, 0, 0, fd)
buf = ctypes.create_string_buffer(args, len(args))
pid = libc.syscall(SYS_clone3, buf, ctypes.c_size_t(len(args)))
if pid == 0:
    try:
        os.dup2(os.open("/dev/null", os.O_WRONLY), 1)  # not the shell's pipe
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
if pid < 0:
    sys.exit("clone3: " + os.strerror(ctypes.get_errno()))
print(pid)
PY
)
	[ -n "$P" ] || fail "clone3 into $1 failed"
}

in_tasks() { grep -qx "$2" "$1" 2>/dev/null; }
in_cgroup() { grep -qx "0::/$2" "/proc/$1/cgroup" 2>/dev/null; }

mkdir "$CG" "$CG/sub" "$CGR/$NAME-unbound" || fail "mkdir cgroups"

# ---- the agent's membership program, on the resctrl emulator ----------------

FS=${RDTALLOC_TEST_RESCTRLFS:-}
agent_why=
[ -c /dev/fuse ] || agent_why="no /dev/fuse"
[ -n "$FS" ] && [ -x "$FS" ] || agent_why="no resctrl emulator (RDTALLOC_TEST_RESCTRLFS)"
[ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ] ||
	agent_why="no rdtalloc-agent (a build without libmicrohttpd)"
"$RDTCTL" --backend sim --state-dir "$TMP/probe" hook status 2>&1 |
	grep -q "built without the switch hook" && agent_why="a build without BPF (the agent scans)"
if [ -z "$agent_why" ]; then
	mkdir -p "$MNT"
	"$FS" "$MNT" -f --machine "$MACHINE" 2>"$TMP/fs.log" &
	FSPID=$!
	within 5 mounted || fail "the emulator did not mount: $(cat "$TMP/fs.log")"
	rc() { run_raw --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" \
		--state-dir "$STATE" "$@"; }
	rc group create batch --schema 'L3:0=3'
	expect_rc 0 "group batch"
	rc cgroup bind batch "$NAME"
	expect_rc 0 "bind the cgroup to batch"
	BATCH=$(ls -d "$MNT"/rdtalloc-*/mon_groups/batch 2>/dev/null | sed 's|/mon_groups/.*||')
	[ -n "$BATCH" ] && pass || fail "no control group of batch"
	# --scan 3600: no full sync while the test looks; only a BPF event places
	"$RDTCTL" --backend resctrl --resctrl-root "$MNT" --machine "$MACHINE" \
		--state-dir "$STATE" agent --listen none --scan 3600 2>>"$TMP/agent.log" &
	APID=$!
	within 10 test -s "$STATE/agent.json" || fail "the agent did not start: $(cat "$TMP/agent.log")"
	rc -j agent status
	json "the agent sees joins by BPF" "d['membership']" bpf

	# ten children, as systemd starts services
	KIDS=
	n=0
	while [ $n -lt 10 ]; do
		clone3_into "$CG" sleep 300
		KIDS="$KIDS $P"
		n=$((n + 1))
	done
	clone3_into "$CG/sub" sleep 300
	KIDS="$KIDS $P"
	for k in $KIDS; do
		in_cgroup "$k" "$NAME" || in_cgroup "$k" "$NAME/sub" ||
			fail "child $k is not in the cgroup clone3 named: $(cat "/proc/$k/cgroup")"
	done
	placed=0
	for k in $KIDS; do
		if within 2 in_tasks "$BATCH/mon_groups/batch/tasks" "$k" &&
			in_tasks "$BATCH/tasks" "$k"; then
			placed=$((placed + 1))
		fi
	done
	[ $placed -eq 11 ] && pass ||
		fail "$placed of 11 children made into the bound cgroup were placed in batch within 2 s"
	clone3_into "$CGR/$NAME-unbound" sleep 300
	UNB=$P
	sleep 0.5
	if in_tasks "$MNT/tasks" "$UNB"; then pass; else
		fail "a child made into an unbound cgroup was moved"; fi
	for k in $KIDS $UNB; do kill "$k" 2>/dev/null; done
	kill -TERM "$APID"
	wait "$APID"
	[ $? -eq 0 ] && pass || fail "the agent did not stop cleanly: $(cat "$TMP/agent.log")"
	APID=
	fusermount3 -u -z "$MNT" 2>/dev/null
	wait "$FSPID" 2>/dev/null
	FSPID=
else
	skip_part "the agent cannot run here: $agent_why"
fi

# ---- the switch hook, on the simulator ----------------------------------------

hook_why=$(hook_unusable "$TMP/probe")
if [ -z "$hook_why" ]; then
	HOOK_STATE=$TMP/hk
	hk() { run_raw --backend sim --state-dir "$TMP/hk" "$@"; }
	D1=$(host_l3_of_cpu 1)
	hk group create g --schema "L3:$D1=f"
	hk -j group show g
	CG_G=$(l3_closid_in "$D1")
	hk cgroup bind g "$NAME"
	expect_rc 0 "hook: cgroup bind"
	hk hook start
	expect_rc 0 "hook start"
	# spins on CPU 1, 2 ms at each wake (see test_cgroup.sh)
	clone3_into "$CG" python3 -c "
import os, time
os.sched_setaffinity(0, {1})
while True:
    t = time.monotonic() + 0.002
    while time.monotonic() < t:
        pass
    time.sleep(0.0005)
"
	T=$P
	clone3_into "$CG/sub" sleep 300
	S=$P
	hk task show g
	expect_out "hook: task show g lists both children" "$(printf '%s\n' "$T" "$S" | sort -n)"
	hook_applied "$TMP/hk" 1 "$CG_G" && pass ||
		fail "hook: CPU 1 never ran the clone3 child with g's CLOSID $CG_G (applied $APPLIED)"
	kill "$T" "$S" 2>/dev/null
	hk hook stop
	expect_rc 0 "hook stop"
else
	skip_part "the switch hook cannot be loaded here: $hook_why"
fi

finish
