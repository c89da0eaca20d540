# SPDX-License-Identifier: LGPL-2.1-or-later
# test_cgroup: rdtctl cgroup bind|unbind|show with real cgroup v2 cgroups.
# On the simulator: membership through the cgroup (and below it), a task's
# own binding winning, the deepest bound cgroup winning, tasks that join
# later, save/apply of cgroup lines (and a missing cgroup: failed, or
# skipped and reported), a removed cgroup dropping out, bad paths refused
# with nothing changed. On the resctrl emulator: the cgroup's threads in
# the class's tasks file, newcomers moved at the next call, unbinding
# moving them back. With the real BPF program: a task that joins the cgroup
# after the bind runs with the group's CLOSID on its CPU; task > cgroup >
# default; a move out of the cgroup is followed.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "making cgroups needs root"
# /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1 controllers (hybrid)
CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGR" ] || skip "cgroup v2 is not mounted"
NAME=rdtalloc-test-$$
CG=$CGR/$NAME
MACHINE=$MACHINE_REAL

# every process of ours back to the root cgroup, then the cgroups away
cg_cleanup()
{
	cleanup_children
	for d in "$CG/sub/deep" "$CG/sub" "$CG/sub2" "$CG"; do
		[ -d "$d" ] || continue
		while read -r p; do echo "$p" >"$CGR/cgroup.procs" 2>/dev/null; done \
			<"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null
	done
}
CLEANUP='cg_cleanup; [ -n "${FSPID:-}" ] && { fusermount3 -u -z "$MNT" 2>/dev/null;
	wait "$FSPID" 2>/dev/null; }'


sorted() { printf '%s\n' "$@" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
shown() { printf '%s' "$OUT" | tr '\n' ' ' | sed 's/ $//'; }

# ---- the simulator ---------------------------------------------------------

run group create rt
run group create other
expect_rc 0 "group other"

# Bad paths: refused, named, nothing changed.
run cgroup bind rt /
expect_rc 1 "bind the root"
expect_err_has "the root is refused" "the root cgroup holds every task"
run cgroup bind rt "$CGR"
expect_rc 1 "bind the mount point"
expect_err_has "the mount point is the root" "the root cgroup holds every task"
run cgroup bind rt "$NAME/../x"
expect_rc 1 "bind a path with .."
expect_err_has "'..' named" "cgroup path: '..' is not allowed; name the cgroup itself"
run cgroup bind rt "nosuch-$$"
expect_rc 1 "bind a missing cgroup"
expect_err_has "the missing cgroup named" "no cgroup nosuch-$$ under $CGR"
run cgroup bind rt "/tmp/nosuch-$$"
expect_rc 1 "bind a path outside the mount"
expect_err_has "outside the mount: how it was read" \
	"no cgroup tmp/nosuch-$$ under $CGR (a path starting with '/' is read as /proc/PID/cgroup writes it, relative to the cgroup2 mount)"
LONG=$(python3 -c 'print("a/" * 2500)')
run cgroup bind rt "$LONG"
expect_rc 1 "bind a 5000-byte path"
expect_err_has "the length named" "cgroup path is longer than 4095 bytes"
DEEP=$(python3 -c 'print("a/" * 40)')
run cgroup bind rt "$DEEP"
expect_rc 1 "bind a path 40 levels deep"
expect_err_has "the depth named" "cgroup path is more than 32 levels deep"
run cgroup bind rt "$(printf 'a\tb')"
expect_rc 1 "bind a path with a tab"
expect_err_has "the control character named" "cgroup path has a control character at byte 1"
run cgroup bind nogroup "$NAME"
expect_rc 1 "bind to a missing group"
expect_err_has "the group named" "no group named 'nogroup'"
run cgroup bind rt
expect_rc 2 "bind without a path"
run cgroup bind rt "$NAME#x"
expect_rc 1 "bind a path with a '#'"
expect_err_has "the '#' refused, and why" "cgroup path: '$NAME#x' holds a '#', which a configuration file cannot hold"
run cgroup bind rt "$NAME/sub "
expect_rc 1 "bind a path ending in a blank"
expect_err_has "the blank refused" "cgroup path: 'sub ' begins or ends with a blank"
run -j cgroup show
expect_out "nothing was bound by the refusals" "[]"

mkdir "$CG" "$CG/sub"
start_in "$CG"
A=$P
start_in "$CG/sub"
B=$P

run cgroup bind rt "$NAME"
expect_rc 0 "cgroup bind rt"
expect_out "bind says so" "cgroup $NAME -> group rt"
run task show rt
[ "$(shown)" = "$(sorted "$A" "$B")" ] && pass ||
	fail "the cgroup's tasks and those below it are not rt's: '$(shown)'"
run task show default
case " $(shown) " in
*" $A "* | *" $B "*) fail "a task of the cgroup is still listed in default" ;;
*) pass ;;
esac
run cgroup show
expect_out "show lists the binding" "$(printf 'rt\t%s\tyield' "$NAME")"
run cgroup show "$NAME/sub"
expect_out "a cgroup below answers its ancestor's group" "rt"
run -j cgroup show "$CG/sub"
json "-j show of an absolute path" "[d['cgroup'], d['group']]" "[\"$CG/sub\", \"rt\"]"

# The deepest bound cgroup wins.
run cgroup bind other "$CG/sub"
expect_rc 0 "bind the sub-cgroup by its absolute path"
run task show rt
expect_out "rt keeps the cgroup's own task" "$A"
run task show other
expect_out "the sub-cgroup's task is other's" "$B"

# A task's own binding wins over its cgroup's; bound to default it follows its cgroup again.
run task bind other "$A"
run task show other
[ "$(shown)" = "$(sorted "$A" "$B")" ] && pass || fail "task show other after task bind: '$(shown)'"
run task show rt
expect_out "rt has no task left" ""
run task bind default "$A"
run task show rt
expect_out "bound to default, the task follows its cgroup" "$A"

# A task that joins later is the group's with nothing done.
start_in "$CG"
C=$P
run task show rt
[ "$(shown)" = "$(sorted "$A" "$C")" ] && pass || fail "a newcomer is not rt's: '$(shown)'"

# save --tasks writes the tasks with a binding of their own, not the cgroups' members
run task bind other "$C"
run save --tasks
if printf '%s\n' "$OUT" | grep -q "^	tasks" && ! printf '%s\n' "$OUT" | grep -qw "$A" &&
	printf '%s\n' "$OUT" | grep -qx "$(printf '\ttasks %s' "$C")"; then pass; else
	fail "save --tasks: cgroup members written as task bindings: $OUT"; fi
run task bind default "$C"

# save writes cgroup lines; apply brings them back.
run save
expect_rc 0 "save"
printf '%s\n' "$OUT" >"$TMP/saved.conf"
if printf '%s\n' "$OUT" | grep -qx "$(printf '\tcgroup %s' "$NAME")" &&
	printf '%s\n' "$OUT" | grep -qx "$(printf '\tcgroup %s/sub' "$NAME")"; then pass; else
	fail "save lacks the cgroup lines: $OUT"; fi
run cgroup show
BEFORE=$OUT
run apply "$TMP/saved.conf"
expect_rc 0 "apply of the saved file"
run cgroup unbind "$NAME/sub"
run cgroup unbind "$NAME"
run cgroup show
expect_out "both unbound" "no cgroup is bound"
run apply "$TMP/saved.conf"
expect_rc 0 "apply brings the cgroups back"
run cgroup show
expect_out "the same bindings as saved" "$BEFORE"

# A missing cgroup fails the apply, naming the line; nothing changes.
printf 'group rt\n\tcgroup %s\n\ngroup other\n\tcgroup nosuch-%s\n' "$NAME" "$$" >"$TMP/missing.conf"
run apply "$TMP/missing.conf"
expect_rc 1 "apply with a missing cgroup"
expect_err_has "the line and the cgroup named" "line 5: no cgroup nosuch-$$ under $CGR"
run cgroup show
expect_out "nothing changed by the failed apply" "$BEFORE"
run apply --missing-tasks=skip "$TMP/missing.conf"
expect_rc 0 "apply --missing-tasks=skip"
expect_err_has "the skipped cgroup reported" "skip cgroup nosuch-$$ (line 5): no such cgroup"
run cgroup show
expect_out "other's cgroup unbound (not listed), rt's kept" "$(printf 'rt\t%s\tyield' "$NAME")"
printf 'group rt\n\tcgroup %s\n\tcgroup %s\n' "$NAME" "$NAME" >"$TMP/twice.conf"
run apply "$TMP/twice.conf"
expect_rc 1 "apply with a cgroup listed twice"
expect_err_has "listed twice" "line 3: cgroup $NAME is already in group rt (line 2)"
printf 'group default\n\tcgroup %s\n' "$NAME" >"$TMP/dflt.conf"
run apply "$TMP/dflt.conf"
expect_rc 1 "apply with a cgroup in the default group"
expect_err_has "the default group takes none" "line 2: the default group takes no 'cgroup' line"

# A binding's policy in a configuration: `cgroup-enforce PATH` enforces,
# `cgroup PATH` yields; a new policy is a change, saved and applied back.
printf 'group rt\n\tcgroup-enforce %s\n' "$NAME" >"$TMP/enforce.conf"
run apply --dry-run "$TMP/enforce.conf"
expect_rc 0 "apply --dry-run of a new policy"
expect_out "the dry run reports the policy" "policy $NAME -> enforce
$TMP/enforce.conf is valid: applying it would make 1 change"
run cgroup show
expect_out "the dry run changed nothing" "$(printf 'rt\t%s\tyield' "$NAME")"
run apply "$TMP/enforce.conf"
expect_rc 0 "apply of a new policy"
expect_out "the policy is one change" "policy $NAME -> enforce
applied $TMP/enforce.conf: 1 change"
run cgroup show
expect_out "the binding enforces" "$(printf 'rt\t%s\tenforce' "$NAME")"
run -j cgroup show "$NAME"
json "-j: the configuration's, enforcing" "[d['policy'], d['owner']]" '["enforce", "config:enforce"]'
run apply "$TMP/enforce.conf"
expect_out "applied again: no change" "applied $TMP/enforce.conf: 0 changes"
run save
expect_rc 0 "save of an enforcing binding"
printf '%s\n' "$OUT" >"$TMP/saved-enforce.conf"
if printf '%s\n' "$OUT" | grep -qx "$(printf '\tcgroup-enforce %s' "$NAME")" &&
	! printf '%s\n' "$OUT" | grep -qx "$(printf '\tcgroup %s' "$NAME")"; then pass; else
	fail "save lacks the cgroup-enforce line: $OUT"; fi
run cgroup bind --yield rt "$NAME"
run apply "$TMP/saved-enforce.conf"
expect_rc 0 "the saved file applied to a yielding binding"
expect_out "the saved policy comes back" "policy $NAME -> enforce
applied $TMP/saved-enforce.conf: 1 change"
printf 'group rt\n\tcgroup %s\n' "$NAME" >"$TMP/enforce.conf"
run apply "$TMP/enforce.conf"
expect_out "a cgroup line yields" "policy $NAME -> yield
applied $TMP/enforce.conf: 1 change"
# a new binding that enforces: two changes; the hook's binding is not the file's to change
run cgroup unbind "$NAME"
printf 'group other\n\tcgroup-enforce %s\n' "$NAME" >"$TMP/enforce.conf"
run apply "$TMP/enforce.conf"
expect_out "bound, then its policy" "cgroup $NAME -> other
policy $NAME -> enforce
applied $TMP/enforce.conf: 2 changes"
run --owner oci:c1 --force cgroup bind --yield rt "$NAME"
expect_rc 0 "the hook's binding (as a container would)"
printf 'group rt\n\tcgroup-enforce %s\n' "$NAME" >"$TMP/enforce.conf"
snapshot "$TMP/before-policy"
run apply "$TMP/enforce.conf"
expect_rc 1 "a configuration's policy for the hook's binding"
expect_err_has "refused, naming the owner" "line 2: cgroup $NAME: its binding is "
unchanged "the refused policy changed nothing" "$TMP/before-policy"
run --force apply "$TMP/enforce.conf"
expect_rc 0 "--force takes the binding over"
expect_out "forced: the policy changes" "policy $NAME -> enforce
applied $TMP/enforce.conf: 1 change"
printf 'group rt\n\tcgroup-enforce\n' >"$TMP/enforce.conf"
run apply "$TMP/enforce.conf"
expect_rc 1 "cgroup-enforce without a path"
expect_err_has "says what it takes" "line 2: 'cgroup-enforce' takes a cgroup path, e.g. 'cgroup-enforce system.slice/myservice.service'"
run cgroup bind --yield rt "$NAME"

# unbind: says where the cgroup's tasks go; an unbound cgroup is an error.
run cgroup bind other "$NAME/sub"
run cgroup unbind "$NAME/sub"
expect_rc 0 "unbind the sub-cgroup"
expect_out "unbind says where it goes" "cgroup $NAME/sub -> group rt"
run cgroup unbind "$NAME/sub"
expect_rc 1 "unbind it again"
expect_err_has "not bound, and through what" "cgroup $NAME/sub is not bound: it is in group rt"

# A removed cgroup drops out, as an exited task does.
mkdir "$CG/sub2"
run cgroup bind other "$NAME/sub2"
expect_rc 0 "bind sub2"
rmdir "$CG/sub2"
run cgroup show
expect_out "the removed cgroup is not listed" "$(printf 'rt\t%s\tyield' "$NAME")"
run info
expect_out_has "info counts it no more" "holds:    3 of 16384 groups, 0 of 1048576 bound tasks, 1 of 4096 bound cgroups"
mkdir "$CG/sub2"
run cgroup show "$NAME/sub2"
expect_out "made again under the same path it is another cgroup" "rt"
rmdir "$CG/sub2"

# A removed group takes its cgroups with it.
run group create tmp
mkdir "$CG/sub2"
run cgroup bind tmp "$NAME/sub2"
run group remove tmp
run cgroup show "$NAME/sub2"
expect_out "the group's cgroup is back under rt (its ancestor's)" "rt"
rmdir "$CG/sub2"

# Virtual tasks have no cgroups.
run_raw --backend sim --state-dir "$TMP/virt" --machine "$MACHINE_VIRT" group create g
run_raw --backend sim --state-dir "$TMP/virt" --machine "$MACHINE_VIRT" cgroup bind g "$NAME"
expect_rc 1 "cgroup bind with virtual tasks"
expect_err_has "says why" "this machine's tasks are virtual (tasks=virtual): it has no cgroups to bind"

kill "$A" "$B" "$C" 2>/dev/null
wait 2>/dev/null
CHILDREN=

# ---- who may bind a cgroup: root, or the owner of a delegated cgroup and of its tasks ----
U=rdtt$$
if command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 &&
	useradd --system --no-create-home --shell /usr/sbin/nologin "$U" 2>/dev/null; then
	CLEANUP="$CLEANUP; userdel '$U' 2>/dev/null"
	UID_U=$(id -u "$U")
	chmod 755 "$TMP"
	mkdir -m 700 "$TMP/ustate"
	chown "$U" "$TMP/ustate"
	mkdir "$CG/deleg"
	chown "$U" "$CG/deleg" "$CG/deleg/cgroup.procs"
	# as_user ARGS: rdtctl as the test's user, on its own sim state
	as_user()
	{
		setpriv --reuid="$UID_U" --regid="$(id -g "$U")" --clear-groups \
			"$RDTCTL" --backend sim --state-dir "$TMP/ustate" --machine "$MACHINE" "$@" \
			>"$TMP/out" 2>"$TMP/err"
		RC=$?
		OUT=$(cat "$TMP/out")
		ERR=$(cat "$TMP/err")
		LAST="(as $U) rdtctl $*"
	}
	as_user group create ug
	expect_rc 0 "user: a group of its own"
	start_in "$CG/deleg"
	ROOTS=$P
	as_user cgroup bind ug "$NAME/deleg"
	expect_rc 1 "user: a delegated cgroup holding root's task"
	expect_err_has "user: the task named" "not allowed to bind cgroup $NAME/deleg: it holds task $ROOTS, which belongs to uid 0"
	as_user task bind ug "$ROOTS"
	expect_rc 1 "user: root's task itself (the same rule)"
	expect_err_has "user: task bind says why" "not allowed to move task $ROOTS: it belongs to uid 0"
	as_user cgroup bind ug "$NAME"
	expect_rc 1 "user: a cgroup not delegated"
	expect_err_has "user: not delegated, said" "not allowed to bind cgroup $NAME: it belongs to uid 0 (only root, or the owner of a delegated cgroup, may)"
	as_user -j task show ug
	json "user: nothing captured" "d['tasks']" "[]"
	kill "$ROOTS" 2>/dev/null
	wait "$ROOTS" 2>/dev/null
	# the user's own task, moved in by root: the binding is the user's to make
	setpriv --reuid="$UID_U" --regid="$(id -g "$U")" --clear-groups sleep 300 &
	UP=$!
	CHILDREN="$CHILDREN $UP"
	# setpriv is root until it has changed its ids: under load the move could win
	i=0
	while [ $i -lt 1200 ] && [ "$(awk '/^Uid:/ { print $2 }' "/proc/$UP/status" 2>/dev/null)" != "$UID_U" ]; do
		sleep 0.01
		i=$((i + 1))
	done
	echo "$UP" >"$CG/deleg/cgroup.procs"
	as_user cgroup bind ug "$NAME/deleg"
	expect_rc 0 "user: its delegated cgroup with its own task"
	as_user -j task show ug
	json "user: its task through the cgroup" "d['tasks']" "[$UP]"
	as_user cgroup unbind "$NAME/deleg"
	expect_rc 0 "user: unbind"
	kill "$UP" 2>/dev/null
	wait "$UP" 2>/dev/null
	rmdir "$CG/deleg"
else
	skip_part "who may bind a cgroup: needs useradd and setpriv as root"
fi

# ---- resctrl (the emulator) -------------------------------------------------

FS=${RDTALLOC_TEST_RESCTRLFS:-}
if [ -n "$FS" ] && [ -x "$FS" ] && [ -c /dev/fuse ]; then
	MNT=$TMP/resctrl
	mkdir -p "$MNT"
	"$FS" "$MNT" -f --machine "$MACHINE" 2>"$TMP/fs.log" &
	FSPID=$!
	i=0
	while ! grep -q " $MNT fuse.resctrl " /proc/mounts && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	rc() { run_raw --backend resctrl --resctrl-root "$MNT" --state-dir "$TMP/rc" \
		--machine "$MACHINE" "$@"; }
	# lists DIR: the tasks the kernel lists there, ascending, on one line
	lists() { sort -n "$MNT/$1/tasks" | tr '\n' ' ' | sed 's/ $//'; }

	start_in "$CG"
	A=$P
	rc group create rt --schema 'L3:0=f'
	expect_rc 0 "resctrl: group rt"
	# our control group: rdtalloc-ID-rt, ID the state's, rt its group's name
	rc -j info
	RG=rdtalloc-$(printf '%s' "$OUT" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["backend"]["state_id"])')-rt
	rc cgroup bind rt "$NAME"
	expect_rc 0 "resctrl: cgroup bind"
	if [ "$(lists "$RG")" = "$A" ]; then pass; else
		fail "resctrl: $RG/tasks holds '$(lists "$RG")', not $A"; fi
	rc task show rt
	expect_out "resctrl: task show rt" "$A"
	# a newcomer from outside: moved by the next change (any program's); a look moves nothing
	start_in "$CG"
	B=$P
	rc cgroup show
	expect_rc 0 "resctrl: a look"
	if [ "$(lists "$RG")" = "$A" ]; then pass; else
		fail "resctrl: a look moved a task: '$(lists "$RG")'"; fi
	rc group create later
	expect_rc 0 "resctrl: the next change"
	if [ "$(lists "$RG")" = "$(sorted "$A" "$B")" ]; then pass; else
		fail "resctrl: the newcomer was not moved: '$(lists "$RG")'"; fi
	rc save
	if printf '%s\n' "$OUT" | grep -qx "$(printf '\tcgroup %s' "$NAME")"; then pass; else
		fail "resctrl: save lacks the cgroup line"; fi
	rc cgroup unbind "$NAME"
	expect_rc 0 "resctrl: unbind"
	if [ ! -d "$MNT/$RG" ] || [ -z "$(lists "$RG")" ]; then pass; else
		fail "resctrl: tasks left in $RG after unbind: '$(lists "$RG")'"; fi
	if grep -qx "$A" "$MNT/tasks" && grep -qx "$B" "$MNT/tasks"; then pass; else
		fail "resctrl: the unbound cgroup's tasks $A $B are not back in the root:" \
			"$(grep -c . "$MNT/tasks") listed"; fi
	kill "$A" "$B" 2>/dev/null
	wait "$A" "$B" 2>/dev/null
	CHILDREN=
	fusermount3 -u -z "$MNT" 2>/dev/null
	wait "$FSPID" 2>/dev/null
	FSPID=
else
	skip_part "no resctrl emulator (RDTALLOC_TEST_RESCTRLFS)"
fi

# ---- the switch hook (the real BPF program) ----------------------------------

hook_why=
[ -e /sys/kernel/btf/vmlinux ] || hook_why="the kernel has no BTF"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || hook_why="the task needs a CPU 1"
hook_leftover_down
[ -e /sys/fs/bpf/rdtalloc ] && hook_why="a switch hook is loaded (rdtctl hook status)"
"$RDTCTL" --backend sim --state-dir "$TMP/hk" hook status 2>&1 |
	grep -q "built without the switch hook" && hook_why="rdtctl was built without the switch hook"
[ -z "$hook_why" ] && ! taskset -cp 0 $$ >/dev/null 2>&1 && hook_why="cannot pin this shell to CPU 0"
if [ -z "$hook_why" ]; then
	HOOK_STATE=$TMP/hk
	hk() { run_raw --backend sim --state-dir "$TMP/hk" "$@"; }
	# CPU 1's L3 domain, as the host has it (one L3 for all, or one per CPU)
	D1=$(host_l3_of_cpu 1)
	applied_on()
	{
		a_i=0
		while [ $a_i -lt 150 ]; do
			hk -j hook status
			a_got=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['cpus'][$1]['applied'])")
			[ "$a_got" = "$2" ] && return 0
			sleep 0.02
			a_i=$((a_i + 1))
		done
		return 1
	}
	hk group create g --schema "L3:$D1=f"
	hk group create o --schema "L3:$D1=f0"
	hk -j group show g
	CG_G=$(l3_closid_in "$D1")
	hk -j group show o
	CG_O=$(l3_closid_in "$D1")
	hk cgroup bind g "$NAME"
	expect_rc 0 "hook: cgroup bind before the start"
	hk hook start
	expect_rc 0 "hook start"
	# joins the cgroup after the bind, then spins on CPU 1: busy for 2 ms
	# at each wake, so that under load it holds the CPU long enough for the
	# agent's write, and the sampled "applied" shows it (see test_hook.c)
	sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "
import os, time
os.sched_setaffinity(0, {1})
os.nice(-20)  # holds CPU 1 against a loaded machine (root)
while True:
    t = time.monotonic() + 0.002
    while time.monotonic() < t:
        pass
    time.sleep(0.0005)
"' sh "$CG" &
	T=$!
	CHILDREN="$CHILDREN $T"
	if applied_on 1 "$CG_G"; then pass; else
		fail "hook: CPU 1 never ran the newcomer with g's CLOSID $CG_G"; fi
	hk task show g
	expect_out "hook: task show g lists it (the iterator walks cgroups)" "$T"
	hk task bind o "$T"
	if applied_on 1 "$CG_O"; then pass; else fail "hook: the task's own binding did not win"; fi
	hk task bind default "$T"
	if applied_on 1 "$CG_G"; then pass; else
		fail "hook: unbound, the task did not go back to its cgroup's group"; fi
	echo "$T" >"$CGR/cgroup.procs"
	if applied_on 1 0; then pass; else fail "hook: a move out of the cgroup was not followed"; fi
	echo "$T" >"$CG/cgroup.procs"
	if applied_on 1 "$CG_G"; then pass; else fail "hook: a move back in was not followed"; fi
	hk cgroup unbind "$NAME"
	if applied_on 1 0; then pass; else fail "hook: unbinding the cgroup was not followed"; fi
	hk hook stop
	expect_rc 0 "hook stop"
else
	skip_part "the switch hook cannot be loaded here: $hook_why"
fi

finish
