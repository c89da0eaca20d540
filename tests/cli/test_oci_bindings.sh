# SPDX-License-Identifier: LGPL-2.1-or-later
# test_oci_bindings: the OCI hook undoes at poststop only what that
# container's createRuntime did (issue 31). With real cgroup v2 cgroups and
# the container state JSON a runtime writes, on the simulator:
# - a cgroup an administrator bound to the container's group is used as it
#   is and stays bound after the container stops;
# - a cgroup bound to another group refuses the container, naming the group,
#   and changes nothing;
# - two containers of one group in one cgroup: the binding the first made
#   stays until the last of them stops.
. "$(dirname "$0")/lib.sh"
need_python

[ "$(id -u)" -eq 0 ] || skip "making cgroups needs root"
CGR=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGR" ] || skip "cgroup v2 is not mounted"
NAME=rdtalloc-ocib-$$
CG=$CGR/$NAME
MACHINE=$MACHINE_REAL

cg_cleanup()
{
	cleanup_children
	[ -d "$CG" ] || return 0
	while read -r p; do echo "$p" >"$CGR/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
	rmdir "$CG" 2>/dev/null
}
CLEANUP=cg_cleanup

mkdir "$CG" || fail "mkdir $CG"
sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 300' sh "$CG" &
P=$!
CHILDREN="$CHILDREN $P"
i=0
while ! grep -qx "$P" "$CG/cgroup.procs" 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.01
	i=$((i + 1))
done

# hook STAGE ID GROUP: rdtctl oci-hook STAGE with a runtime's state JSON
hook()
{
	printf '{"ociVersion": "1.0.2", "id": "%s", "status": "creating", "pid": %d, "bundle": "/b", "annotations": {"rdtalloc.group": "%s"}}' \
		"$2" "$P" "$3" >"$TMP/state.json"
	run oci-hook "$1" <"$TMP/state.json"
}

bound_to()
{
	run cgroup show "$NAME"
	expect_rc 0 "$1: cgroup show"
	expect_out "$1" "$2"
}

run group create web
run group create db
expect_rc 0 "groups web and db"
run cgroup show "$NAME"
UNBOUND=$OUT

# (a) an administrator's binding is theirs
run cgroup bind web "$NAME"
expect_rc 0 "the administrator binds the cgroup to web"
BOUND_WEB=$OUT
run cgroup show "$NAME"
BOUND_WEB=$OUT
hook createRuntime a1 web
expect_rc 0 "a container in the bound cgroup, annotated web"
hook poststop a1 web
expect_rc 0 "its poststop"
bound_to "the administrator's binding stays" "$BOUND_WEB"

# (b) bound to another group: refused, named, nothing changed
run save
before=$OUT
hook createRuntime b2 db
expect_rc 1 "a container annotated db in a cgroup bound to web"
expect_err_has "the group it is bound to named" "container b2: its cgroup $NAME is bound to group web, not db: unbind it (rdtctl cgroup unbind) or annotate the container rdtalloc.group=web"
run save
if [ "$OUT" = "$before" ]; then pass; else fail "a refused createRuntime changed the state"; fi
bound_to "still web after the refusal" "$BOUND_WEB"

# (c) the hook's own binding, shared by two containers of web
run cgroup unbind "$NAME"
expect_rc 0 "unbind"
bound_to "unbound" "$UNBOUND"
hook createRuntime c1 web
expect_rc 0 "c1 binds the cgroup"
bound_to "c1's binding" "$BOUND_WEB"
hook createRuntime c2 web
expect_rc 0 "c2 in the same cgroup and group"
hook createRuntime c3 db
expect_rc 1 "c3 of db in web's cgroup"
expect_err_has "c3 refused naming web" "is bound to group web, not db"
hook poststop c1 web
expect_rc 0 "c1 stops"
bound_to "c2 still runs: the binding stays" "$BOUND_WEB"
hook poststop c2 web
expect_rc 0 "c2 stops"
bound_to "the last one gone: unbound" "$UNBOUND"

# the stages that do nothing exit 0 whatever standard input is
for stage in createContainer startContainer poststart; do
	run oci-hook "$stage" </dev/null
	expect_rc 0 "$stage with nothing on standard input"
	run oci-hook "$stage" <"$TMP"
	expect_rc 0 "$stage with an unreadable standard input"
done

finish
