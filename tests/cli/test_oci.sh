# SPDX-License-Identifier: LGPL-2.1-or-later
# test_oci: rdtctl oci-hook run by a real runtime (Debian's runc) for
# containers whose root is busybox. In the host's cgroup layout and in a
# pure cgroup v2 layout (a mount namespace with cgroup2 on /sys/fs/cgroup):
# an annotated container lands in its group (its cgroup is bound) and
# leaves it at runc delete, a group the hook made for it goes with it; a
# container without the annotation is untouched (no state is even made);
# a bad annotation makes runc run fail with our message and changes
# nothing. On the host's layout also: with the real switch hook on the sim,
# the container's CPU applies its group's CLOSID; and on the resctrl
# emulator, its task is in its class's tasks.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "runc needs root"
command -v runc >/dev/null 2>&1 || skip "no runc (scripts/deps.sh installs Debian's)"
[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/deps.sh installs busybox-static)"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "the container needs a CPU 1"

MACHINE=$MACHINE_REAL
BE=sim			# rc's backend, and the hook's and the agent's in own_scenario
BE_ROOT=		# resctrl's root when BE is resctrl
RUNC_ROOT=$TMP/runc
LAYOUT=host
NS=$TMP/ns/mnt
CONTAINERS=""

# in_layout CMD...: CMD in this layout's mount namespace
in_layout()
{
	if [ "$LAYOUT" = v2 ]; then nsenter --mount="$NS" "$@"; else "$@"; fi
}

# rc ARGS: rdtctl on backend $BE's state $ST, in the layout
rc()
{
	# MACHINE empty: the host as the library sees it (HWLOC_SYNTHETIC included)
	in_layout "$RDTCTL" --backend "$BE" ${BE_ROOT:+--resctrl-root "$BE_ROOT"} \
		${MACHINE:+--machine "$MACHINE"} --state-dir "$ST" "$@" \
		>"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl $*"
}

# bundle DIR ANNOTATIONS_JSON ARGS_JSON HOOK_OPTS...: a busybox bundle whose
# createRuntime and poststop hooks are rdtctl with HOOK_OPTS (none: no hook)
bundle()
{
	b_dir=$1 b_ann=$2 b_args=$3
	shift 3
	mkdir -p "$b_dir/rootfs/bin" "$b_dir/rootfs/proc" "$b_dir/rootfs/dev" "$b_dir/rootfs/sys"
	cp /bin/busybox "$b_dir/rootfs/bin/busybox"
	for a in sh sleep true; do ln -sf busybox "$b_dir/rootfs/bin/$a"; done
	(cd "$b_dir" && rm -f config.json && runc spec) || fail "runc spec in $b_dir"
	python3 - "$b_dir/config.json" "$b_ann" "$b_args" "$RDTCTL" "$@" <<'EOF'
import json, sys
path, ann, args, rdtctl = sys.argv[1:5]
opts = sys.argv[5:]
c = json.load(open(path))
c["process"]["terminal"] = False
c["process"]["args"] = json.loads(args)
c["annotations"] = json.loads(ann)
if opts:
    c["hooks"] = {s: [{"path": rdtctl, "args": ["rdtctl"] + opts + ["oci-hook", s]}]
                  for s in ("createRuntime", "poststop")}
json.dump(c, open(path, "w"), indent=1)
EOF
}

# run_ctr ID BUNDLE: runc run -d; PID is its init (empty when it failed)
run_ctr()
{
	CONTAINERS="$CONTAINERS $LAYOUT:$1"
	in_layout runc --root "$RUNC_ROOT" run -d --bundle "$2" "$1" </dev/null \
		>"$TMP/runc.out" 2>"$TMP/runc.err"
	RUNC_RC=$?
	PID=
	[ $RUNC_RC -eq 0 ] && PID=$(in_layout runc --root "$RUNC_ROOT" state "$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
}

# del_ctr ID: kill and delete (the poststop hook runs)
del_ctr()
{
	in_layout runc --root "$RUNC_ROOT" kill "$1" KILL 2>/dev/null
	i=0
	while [ $i -lt 1500 ] && in_layout runc --root "$RUNC_ROOT" state "$1" 2>/dev/null |
		grep -q '"status": "running"'; do
		sleep 0.02
		i=$((i + 1))
	done
	in_layout runc --root "$RUNC_ROOT" delete "$1" >"$TMP/runc.out" 2>"$TMP/runc.err"
	DEL_RC=$?
}

cleanup_oci()
{
	for c in $CONTAINERS; do
		LAYOUT=${c%%:*}
		in_layout runc --root "$RUNC_ROOT" delete -f "${c#*:}" >/dev/null 2>&1
	done
	[ -e "$NS" ] && umount "$NS" 2>/dev/null
	umount "$TMP/ns" 2>/dev/null
	[ -n "$FSPID" ] && { fusermount3 -u -z "$TMP/resctrl" 2>/dev/null; wait "$FSPID"; }
}
CLEANUP=cleanup_oci
FSPID=

BUSY='["/bin/sh", "-c", "while :; do :; done"]'

# scenario: what a layout must do, on the sim backend
scenario()
{
	ST=$TMP/state-$LAYOUT
	mkdir -m 700 "$ST"
	D0=$(host_l3_of_cpu 0)
	B=$TMP/b-$LAYOUT

	# a group that exists
	rc group create db --schema "L3:$D0=f0"
	expect_rc 0 "$LAYOUT: group db"
	bundle "$B/db" '{"rdtalloc.group": "db"}' "$BUSY" --backend sim --machine "$MACHINE" \
		--state-dir "$ST"
	run_ctr "db-$LAYOUT" "$B/db"
	if [ $RUNC_RC -eq 0 ]; then pass; else
		fail "$LAYOUT: runc run of an annotated container: $(cat "$TMP/runc.err")"; fi
	rc task show db
	expect_out "$LAYOUT: the container's process is in db" "$PID"
	rc -j cgroup show
	json "$LAYOUT: its own cgroup is bound to db" "[b['group'] for b in d]" '["db"]'
	del_ctr "db-$LAYOUT"
	if [ $DEL_RC -eq 0 ]; then pass; else fail "$LAYOUT: runc delete: $(cat "$TMP/runc.err")"; fi
	rc task show db
	expect_out "$LAYOUT: after runc delete db holds nothing" ""
	rc -j cgroup show
	json "$LAYOUT: no cgroup bound" "d" '[]'
	rc group list
	expect_out "$LAYOUT: db stays (the hook did not make it)" "$(printf 'default\ndb')"

	# a group the hook makes, and removes
	bundle "$B/web" '{"rdtalloc.group": "web", "rdtalloc.schema": "L3:'"$D0"'=f"}' "$BUSY" \
		--backend sim --machine "$MACHINE" --state-dir "$ST"
	run_ctr "web-$LAYOUT" "$B/web"
	if [ $RUNC_RC -eq 0 ]; then pass; else
		fail "$LAYOUT: runc run, group made: $(cat "$TMP/runc.err")"; fi
	rc schema show web
	expect_out_contains "$LAYOUT: web made with the annotation's schema" "L3:"
	rc task show web
	expect_out "$LAYOUT: the container's process is in web" "$PID"
	del_ctr "web-$LAYOUT"
	rc group list
	expect_out "$LAYOUT: web went with its container" "$(printf 'default\ndb')"

	# not annotated: left alone, no state made
	bundle "$B/plain" '{}' "$BUSY" --backend sim --machine "$MACHINE" --state-dir "$TMP/none-$LAYOUT"
	run_ctr "plain-$LAYOUT" "$B/plain"
	if [ $RUNC_RC -eq 0 ]; then pass; else fail "$LAYOUT: a plain container failed"; fi
	del_ctr "plain-$LAYOUT"
	if [ ! -e "$TMP/none-$LAYOUT/state.json" ]; then pass; else
		fail "$LAYOUT: a container without the annotation made a state"; fi

	# a class its goresctrl configuration reserved: not from the pod's annotation
	cat >"$TMP/gold.yaml" <<'YAML'
partitions:
  p:
    l3Allocation: "100%"
    classes:
      gold:
        kubernetes:
          denyPodAnnotation: true
YAML
	rc apply --format goresctrl "$TMP/gold.yaml"
	expect_rc 0 "$LAYOUT: a goresctrl file with gold reserved"
	SUM=$(sha256sum "$ST/state.json")
	bundle "$B/pod" '{"rdt.resources.beta.kubernetes.io/pod": "gold"}' "$BUSY" --backend sim \
		--machine "$MACHINE" --state-dir "$ST"
	run_ctr "pod-$LAYOUT" "$B/pod"
	if [ $RUNC_RC -ne 0 ]; then pass; else fail "$LAYOUT: runc ran a pod's reserved class"; fi
	if grep -q "container pod-$LAYOUT: RDT class 'gold' is not allowed from pod annotations (annotation rdt.resources.beta.kubernetes.io/pod)" "$TMP/runc.err"; then pass; else
		fail "$LAYOUT: no message for a reserved class: $(cat "$TMP/runc.err")"; fi
	if [ "$(sha256sum "$ST/state.json")" = "$SUM" ]; then pass; else
		fail "$LAYOUT: a refused container changed the state"; fi
	bundle "$B/ctr" '{"io.kubernetes.cri.rdt-class": "gold"}' "$BUSY" --backend sim \
		--machine "$MACHINE" --state-dir "$ST"
	run_ctr "ctr-$LAYOUT" "$B/ctr"
	if [ $RUNC_RC -eq 0 ]; then pass; else
		fail "$LAYOUT: runc run, the container's own class: $(cat "$TMP/runc.err")"; fi
	rc task show gold
	expect_out "$LAYOUT: the container's class took it to gold" "$PID"
	del_ctr "ctr-$LAYOUT"
	rc group remove gold

	# bad annotations: runc run fails with our message, nothing changes
	SUM=$(sha256sum "$ST/state.json")
	bundle "$B/bad" '{"rdtalloc.group": "nosuch"}' "$BUSY" --backend sim --machine "$MACHINE" \
		--state-dir "$ST"
	run_ctr "bad-$LAYOUT" "$B/bad"
	if [ $RUNC_RC -ne 0 ]; then pass; else fail "$LAYOUT: runc ran a container of no group"; fi
	if grep -q "rdtctl: oci-hook createRuntime: container bad-$LAYOUT: no group 'nosuch' (annotation rdtalloc.group); give annotation rdtalloc.schema with a schema to have it made" "$TMP/runc.err"; then pass; else
		fail "$LAYOUT: runc did not pass our message on: $(cat "$TMP/runc.err")"; fi
	bundle "$B/bad2" '{"rdtalloc.group": "x", "rdtalloc.schema": "L3:0=zz"}' "$BUSY" \
		--backend sim --machine "$MACHINE" --state-dir "$ST"
	run_ctr "bad2-$LAYOUT" "$B/bad2"
	if [ $RUNC_RC -ne 0 ]; then pass; else fail "$LAYOUT: runc ran with a malformed schema"; fi
	if grep -q "rdtctl: oci-hook createRuntime: container bad2-$LAYOUT: annotation rdtalloc.schema: L3 cache id 0: mask \\\\\"zz\\\\\" is not hex" "$TMP/runc.err" ||
	   grep -q "annotation rdtalloc.schema: L3 cache id 0: mask" "$TMP/runc.err"; then pass; else
		fail "$LAYOUT: no message for a malformed schema: $(cat "$TMP/runc.err")"; fi
	if [ "$(sha256sum "$ST/state.json")" = "$SUM" ]; then pass; else
		fail "$LAYOUT: a refused container changed the state"; fi
}

scenario

# ---- who owns what (issue 40): the hook's placement survives apply --prune and the
# agent's restarts with --config; a group made by hand survives the prune; a
# person's change of the container's binding is refused naming the container,
# and --force takes it. On the sim here, on the resctrl emulator below -------------
# own_scenario TAG: the rules above, on state $TMP/state-TAG
own_scenario()
{
	ST=$TMP/state-$1
	mkdir -m 700 "$ST"
	D0=$(host_l3_of_cpu 0)
	[ "$BE" = resctrl ] && D0=0	# the emulator's machine, not the host's
	printf 'name fleet\ngroup gold\n\tschema L3:%s=f0\ngroup old\n' "$D0" >"$TMP/fleet.conf"
	: >"$TMP/own-agent.log"
	own_agent
	rc group list
	expect_out "$1: the agent applied the configuration" "$(printf 'default\ngold\nold')"
	rc group create hand
	expect_rc 0 "$1: a group made by hand"
	bundle "$TMP/b-$1" '{"rdtalloc.group": "gold"}' "$BUSY" --backend "$BE" \
		${BE_ROOT:+--resctrl-root "$BE_ROOT"} --machine "$MACHINE" --state-dir "$ST"
	run_ctr "$1-1" "$TMP/b-$1"
	if [ $RUNC_RC -eq 0 ]; then pass; else fail "$1: runc run: $(cat "$TMP/runc.err")"; fi
	rc -j cgroup show
	json "$1: the container's cgroup is bound to gold, the container's" \
		"[[b['group'], b['owner']] for b in d]" "[[\"gold\", \"oci:$1-1\"]]"
	CTR_CG=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["cgroup"])')
	rc apply --prune "$TMP/fleet.conf"
	expect_rc 0 "$1: apply --prune of the agent's configuration"
	rc -j cgroup show
	json "$1: the placement survives apply --prune" "[b['group'] for b in d]" '["gold"]'
	rc group list
	expect_out "$1: the hand-made group survives the prune" "$(printf 'default\ngold\nold\nhand')"
	kill "$AGENT"
	wait "$AGENT"
	printf 'name fleet\ngroup gold\n\tschema L3:%s=f0\n' "$D0" >"$TMP/fleet.conf"
	: >"$TMP/own-agent.log"
	own_agent
	rc group list
	expect_out "$1: the restarted agent pruned old, kept hand" "$(printf 'default\ngold\nhand')"
	rc -j cgroup show
	json "$1: the placement survives the agent's restart" "[b['group'] for b in d]" '["gold"]'
	rc task show gold
	expect_out "$1: the container's process is still in gold" "$PID"
	if [ "$BE" = resctrl ]; then
		IN=$(cd "$BE_ROOT" && grep -lx "$PID" rdtalloc-*/tasks)
		if [ -n "$IN" ] && grep -q "^ *L3:0=0*f0;" "$BE_ROOT/${IN%/tasks}/schemata"; then pass; else
			fail "$1: the container's task $PID is not in gold's control group ('$IN')"; fi
	fi
	rc group remove gold
	expect_rc 1 "$1: a person's removal of gold is refused"
	if printf '%s' "$ERR" | grep -q "^rdtctl: group gold: it holds cgroup .*, whose binding is container $1-1's; --force takes it back$"; then
		pass; else fail "$1: the refusal names the container"; fi
	SUM=$(sha256sum "$ST/state.json")
	rc cgroup bind hand "$CTR_CG"
	expect_rc 1 "$1: a person's rebinding of the container's cgroup is refused"
	expect_err_has "$1: the container named" "rdtctl: cgroup $CTR_CG: its binding is container $1-1's; --force takes it back"
	if [ "$(sha256sum "$ST/state.json")" = "$SUM" ]; then pass; else
		fail "$1: the refused rebinding changed the state"; fi
	rc --force cgroup bind hand "$CTR_CG"
	expect_rc 0 "$1: --force takes the container's binding"
	rc -j cgroup show
	json "$1: the binding is the person's now" "[[b['group'], b['owner']] for b in d]" \
		'[["hand", "user:admin"]]'
	rc task show hand
	expect_out "$1: the container's process is in hand" "$PID"
	del_ctr "$1-1"
	rc -j cgroup show
	json "$1: runc delete drops the binding of a cgroup gone" "d" '[]'
	kill "$AGENT"
	wait "$AGENT"
}
own_agent()
{
	"$RDTALLOC_AGENT" --backend "$BE" ${BE_ROOT:+--resctrl-root "$BE_ROOT"} --machine "$MACHINE" \
		--state-dir "$ST" --listen none --no-bpf --interval 0.2 --config "$TMP/fleet.conf" \
		>/dev/null 2>>"$TMP/own-agent.log" &
	AGENT=$!
	CHILDREN="$CHILDREN $AGENT"
	wait_until 5 grep -q "fleet.conf applied" "$TMP/own-agent.log"
}
HAVE_AGENT=
[ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ] && HAVE_AGENT=1
if [ -n "$HAVE_AGENT" ]; then
	own_scenario own
else
	skip_part "no rdtalloc-agent (RDTALLOC_AGENT): the hook's placement and the agent's --config"
fi

# a pure cgroup v2 layout: a mount namespace of our own, kept in a file
mkdir -p "$TMP/ns"
mount --bind "$TMP/ns" "$TMP/ns" && mount --make-private "$TMP/ns" && touch "$NS" &&
	unshare --mount="$NS" --propagation private mount -t cgroup2 none /sys/fs/cgroup
if [ "$(nsenter --mount="$NS" stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
	LAYOUT=v2
	scenario
	LAYOUT=host
else
	skip_part "no mount namespace with cgroup2 on /sys/fs/cgroup could be made"
fi

# ---- the real switch hook on the sim: the container's CPU applies its CLOSID -----------
hook_leftover_down
hook_why=
[ -e /sys/kernel/btf/vmlinux ] || hook_why="the kernel has no BTF"
[ -e /sys/fs/bpf/rdtalloc ] && hook_why="a switch hook is loaded (rdtctl hook status)"
"$RDTCTL" --backend sim --state-dir "$TMP/hk" hook status 2>&1 |
	grep -q "built without the switch hook" && hook_why="rdtctl was built without the switch hook"
[ -z "$hook_why" ] && ! taskset -cp 0 $$ >/dev/null 2>&1 && hook_why="cannot pin this shell to CPU 0"
if [ -z "$hook_why" ]; then
	# the hook runs on the host's CPUs: the host's machine, its L3 of CPU 1
	SAVED_MACHINE=$MACHINE
	MACHINE=
	ST=$TMP/hk
	mkdir -m 700 "$ST"
	HOOK_STATE=$ST
	D1=$(host_l3_of_cpu 1)
	rc hook start
	expect_rc 0 "hook start"
	bundle "$TMP/b-hook" '{"rdtalloc.group": "hk", "rdtalloc.schema": "L3:'"$D1"'=f"}' "$BUSY" \
		--backend sim --state-dir "$ST"
	run_ctr hk "$TMP/b-hook"
	if [ $RUNC_RC -eq 0 ]; then pass; else fail "hook: runc run: $(cat "$TMP/runc.err")"; fi
	taskset -cp 1 "$PID" >/dev/null
	# on a loaded machine CPU 1 runs others' tasks too (CLOSID 0): the
	# container's spinner first in line, and a minute of samples at most
	renice -n -20 -p "$PID" >/dev/null 2>&1
	rc -j group show hk
	K=$(l3_closid_in "$D1")
	i=0
	got=
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$end" ]; do
		rc -j hook status
		got=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['cpus'][1]['applied'])")
		[ "$got" = "$K" ] && break
		sleep 0.02
		i=$((i + 1))
	done
	if [ "$got" = "$K" ]; then pass; else
		fail "hook: CPU 1 never applied hk's CLOSID $K for the container (applied $got)"; fi
	del_ctr hk
	rc group list
	expect_out "hook: hk went with its container" "default"
	rc hook stop
	expect_rc 0 "hook stop"
	MACHINE=$SAVED_MACHINE
else
	skip_part "the switch hook cannot be loaded here: $hook_why"
fi

# ---- the resctrl emulator: the container's task in its class's tasks ---------------
FS=${RDTALLOC_TEST_RESCTRLFS:-}
if [ -n "$FS" ] && [ -x "$FS" ] && [ -c /dev/fuse ]; then
	mkdir -p "$TMP/resctrl"
	"$FS" "$TMP/resctrl" -f --machine "$MACHINE" 2>"$TMP/fs.log" &
	FSPID=$!
	i=0
	while ! grep -q " $TMP/resctrl fuse.resctrl " /proc/mounts && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	ST=$TMP/rc
	mkdir -m 700 "$ST"
	bundle "$TMP/b-rc" '{"rdtalloc.group": "rcg", "rdtalloc.schema": "L3:0=f"}' "$BUSY" \
		--backend resctrl --resctrl-root "$TMP/resctrl" --machine "$MACHINE" --state-dir "$ST"
	run_ctr rcg "$TMP/b-rc"
	if [ $RUNC_RC -eq 0 ]; then pass; else fail "resctrl: runc run: $(cat "$TMP/runc.err")"; fi
	DIR=$(cd "$TMP/resctrl" && ls -d rdtalloc-* 2>/dev/null | head -n 1)
	if [ -n "$DIR" ] && grep -qx "$PID" "$TMP/resctrl/$DIR/tasks"; then pass; else
		fail "resctrl: the container's task $PID is not in its class's tasks ($DIR)"; fi
	del_ctr rcg
	if [ -z "$(cd "$TMP/resctrl" && ls -d rdtalloc-* 2>/dev/null)" ]; then pass; else
		fail "resctrl: the class's control group stays after runc delete"; fi

	# runc exec into an annotated container: the exec'd process is runc's
	# child, in the container's cgroup - the agent places it in the group
	# within moments, with no command run; in both layouts
	if [ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ]; then
		for LAYOUT in host v2; do
			[ $LAYOUT = v2 ] && [ ! -e "$NS" ] && continue
			ST=$TMP/rc-exec-$LAYOUT
			mkdir -m 700 "$ST"
			RR=$TMP/resctrl
			if [ $LAYOUT = v2 ]; then
				# the namespace does not see the host's FUSE mount: one of its own
				RR=$TMP/resctrl-v2
				mkdir -p "$RR"
				nsenter --mount="$NS" "$FS" "$RR" -f --machine "$MACHINE" >/dev/null \
					2>>"$TMP/fs.log" &
				FSV2=$!
				CHILDREN="$CHILDREN $FSV2"
				i=0
				while [ $i -lt 1200 ] && ! in_layout grep -q " $RR fuse.resctrl " /proc/mounts; do
					sleep 0.05
					i=$((i + 1))
				done
			fi
			# not through in_layout (a shell function): $! must be the agent itself
			# (nsenter with only --mount execs it in place)
			if [ $LAYOUT = v2 ]; then
				nsenter --mount="$NS" "$RDTALLOC_AGENT" --backend resctrl --resctrl-root "$RR" \
					--machine "$MACHINE" --state-dir "$ST" --listen none \
					>/dev/null 2>"$TMP/agent-$LAYOUT.log" &
			else
				"$RDTALLOC_AGENT" --backend resctrl --resctrl-root "$RR" \
					--machine "$MACHINE" --state-dir "$ST" --listen none \
					>/dev/null 2>"$TMP/agent-$LAYOUT.log" &
			fi
			AGENT=$!
			CHILDREN="$CHILDREN $AGENT"
			bundle "$TMP/b-ex-$LAYOUT" '{"rdtalloc.group": "ex", "rdtalloc.schema": "L3:0=f"}' \
				"$BUSY" --backend resctrl --resctrl-root "$RR" \
				--machine "$MACHINE" --state-dir "$ST"
			run_ctr "ex-$LAYOUT" "$TMP/b-ex-$LAYOUT"
			if [ $RUNC_RC -eq 0 ]; then pass; else
				fail "$LAYOUT: runc run for exec: $(cat "$TMP/runc.err")"; fi
			DIR=$(in_layout sh -c "cd '$RR' && ls -d rdtalloc-* 2>/dev/null | head -n 1")
			# a duration of its own, so that the exec'd process is told apart
			SECS=$((3000 + $$ % 1000))
			in_layout runc --root "$RUNC_ROOT" exec -d "ex-$LAYOUT" /bin/sleep $SECS \
				>/dev/null 2>"$TMP/exec.err" || fail "$LAYOUT: runc exec: $(cat "$TMP/exec.err")"
			i=0
			EXP=
			while [ $i -lt 1500 ] && [ -z "$EXP" ]; do
				EXP=$(pgrep -n -f "^/bin/sleep $SECS\$")
				[ -n "$EXP" ] || sleep 0.02
				i=$((i + 1))
			done
			i=0
			while [ $i -lt 1500 ] && ! in_layout grep -qx "$EXP" "$RR/$DIR/mon_groups/ex/tasks" 2>/dev/null; do
				sleep 0.02
				i=$((i + 1))
			done
			if [ -n "$EXP" ] && in_layout grep -qx "$EXP" "$RR/$DIR/mon_groups/ex/tasks"; then pass; else
				fail "$LAYOUT: the exec'd process $EXP was not placed in ex by the agent ($(cat "$TMP/agent-$LAYOUT.log"))"; fi
			del_ctr "ex-$LAYOUT"
			kill "$AGENT"
			wait "$AGENT"
			if [ $? -eq 0 ]; then pass; else
				fail "$LAYOUT: the agent did not stop cleanly on SIGTERM"; fi
			if kill -0 "$AGENT" 2>/dev/null; then
				fail "$LAYOUT: the agent outlived the test"; fi
			if [ $LAYOUT = v2 ]; then
				in_layout fusermount3 -u -z "$RR"
				wait "$FSV2" 2>/dev/null
			fi
		done
		LAYOUT=host
		BE=resctrl
		BE_ROOT=$TMP/resctrl
		own_scenario own-rc
		BE=sim
		BE_ROOT=
	else
		skip_part "no rdtalloc-agent (RDTALLOC_AGENT): runc exec with the agent"
	fi
	fusermount3 -u -z "$TMP/resctrl"
	wait "$FSPID"
	FSPID=
else
	skip_part "no resctrl emulator (RDTALLOC_TEST_RESCTRLFS)"
fi

finish
