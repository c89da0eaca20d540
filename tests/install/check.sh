#!/bin/sh
# tests/install/check.sh: what a user of the installed library gets (issue 3
# section 1). Installs a build into a temporary prefix with
# `cmake --install BUILD --prefix P`, then checks: the files (headers, both
# libraries, rdtalloc.pc, the CMake package), the SONAME librdtalloc.so.0,
# that the shared library exports only rdtalloc_* (and every RDTALLOC_API
# function of the header), that the header is clean C99 and C++, and that
# the C and the C++ example build and run through `pkg-config rdtalloc`
# (shared and --static) and through find_package(rdtalloc) from a tiny
# CMake project.
#
# Usage: tests/install/check.sh BUILD_DIR     (KEEP=1 keeps the prefix)
# Exit status: 0 all checks passed, 1 some failed, 2 usage error.
#
# Compiler flags from pkg-config are split into words on purpose:
# shellcheck disable=SC2086,SC2013
set -u

if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
	echo "usage: $0 BUILD_DIR (a configured and built CMake build directory)" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
cxx=${CXX:-c++}
failures=0

tmp=$(mktemp -d /tmp/rdtalloc-install-XXXXXX)
prefix=$tmp/prefix
work=$tmp/work
mkdir -p "$work"
if [ "${KEEP:-0}" = 1 ]; then
	echo "check.sh: keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

pass() {
	echo "check.sh: ok: $*"
}

fail() {
	echo "check.sh: FAILED: $*" >&2
	failures=$((failures + 1))
}

# Run a command quietly; on failure show its output and count it.
try() {
	what=$1
	shift
	if "$@" >"$work/out.log" 2>&1; then
		pass "$what"
		return 0
	fi
	fail "$what"
	sed 's/^/    /' "$work/out.log" >&2
	return 1
}

# An ASan build's library needs the sanitizer runtimes in the programs too.
san=""
if grep -q '^RDTALLOC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
	san="-fsanitize=address,undefined"
fi

# ---- install ---------------------------------------------------------------
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
	fail "cmake --install $build --prefix $prefix"
	sed 's/^/    /' "$work/install.log" >&2
	exit 1
fi
pass "cmake --install into $prefix"

# The OCI hook's definitions for podman and CRI-O: valid oci-hooks(5) 1.0.0,
# the installed rdtctl as hook.path, one stage each, matching the annotation.
for stage in create:createRuntime poststop:poststop; do
	f=$prefix/share/containers/oci/hooks.d/rdtalloc-${stage%%:*}.json
	try "hooks.d/rdtalloc-${stage%%:*}.json is a hook for ${stage#*:}" python3 - "$f" \
		"$prefix/bin/rdtctl" "${stage#*:}" <<'EOF2'
import json, os, re, sys
path, rdtctl, stage = sys.argv[1:]
h = json.load(open(path))
assert h["version"] == "1.0.0", h["version"]
assert h["hook"]["path"] == rdtctl and os.access(rdtctl, os.X_OK), h["hook"]["path"]
assert h["hook"]["args"] == ["rdtctl", "oci-hook", stage], h["hook"]["args"]
assert h["stages"] == [stage], h["stages"]
(k, v), = h["when"]["annotations"].items()
assert re.search(k, "rdtalloc.group") and not re.search(k, "rdtalloc.groupx"), k
assert not re.search(k, "xrdtalloc.group") and re.search(v, "web"), v
# the CRI's RDT class annotations run it too (goresctrl's keys)
for key in ("io.kubernetes.cri.rdt-class", "rdt.resources.beta.kubernetes.io/pod",
            "rdt.resources.beta.kubernetes.io/container.app"):
    assert re.search(k, key), key
assert not re.search(k, "io.kubernetes.cri.rdt-classes"), k
EOF2
done

# The agent, where the build has it: its unit names the installed agent,
# and the agent runs from the prefix against the installed library.
if [ -x "$build/agent/rdtalloc-agent" ]; then
	unit=$prefix/share/rdtalloc/rdtalloc-agent.service
	if grep -qx "ExecStart=$prefix/bin/rdtalloc-agent" "$unit" 2>/dev/null; then
		pass "rdtalloc-agent.service runs $prefix/bin/rdtalloc-agent"
	else
		fail "rdtalloc-agent.service: $(grep ExecStart= "$unit" 2>&1)"
	fi
	if grep -qx "RequiresMountsFor=/sys/fs/resctrl" "$unit"; then
		pass "rdtalloc-agent.service waits for /sys/fs/resctrl"
	else
		fail "rdtalloc-agent.service has no RequiresMountsFor=/sys/fs/resctrl"
	fi
	if [ -f "$prefix/share/rdtalloc/agent.md" ]; then pass "installed share/rdtalloc/agent.md"
	else fail "installed share/rdtalloc/agent.md"; fi
	try "the installed rdtalloc-agent runs" env LD_LIBRARY_PATH="$(dirname \
		"$(find "$prefix" -name 'librdtalloc.so.0' | head -n 1)")" \
		"$prefix/bin/rdtalloc-agent" --version
fi

# Every installed unit names the installed programs, not the default prefix's.
for unit in rdtalloc-hook rdtalloc; do
	f=$prefix/share/rdtalloc/$unit.service
	if grep -q "^ExecStart=$prefix/bin/rdtctl " "$f" 2>/dev/null &&
	   ! grep -q "^ExecStart=.*--state-dir" "$f"; then
		pass "$unit.service runs $prefix/bin/rdtctl"
	else
		fail "$unit.service: $(grep ExecStart= "$f" 2>&1)"
	fi
done

# The installed programs find the installed library by themselves: an empty
# environment, no LD_LIBRARY_PATH, no ldconfig (a hook that cannot start
# blocks every annotated container).
for prog in rdtctl:--version rdtalloc-agent:--version rdtalloc-resctrlfs:--help \
	rdtalloc-msrfs:--help; do
	[ -x "$prefix/bin/${prog%%:*}" ] || continue
	try "the installed ${prog%%:*} runs from an empty environment" \
		env -i "$prefix/bin/${prog%%:*}" "${prog#*:}"
done

# Every guide is installed beside the others.
for doc in "$src"/docs/*.md; do
	if [ -f "$prefix/share/rdtalloc/$(basename "$doc")" ]; then
		pass "installed share/rdtalloc/$(basename "$doc")"
	else
		fail "installed share/rdtalloc/$(basename "$doc")"
	fi
done

pc=$(find "$prefix" -name rdtalloc.pc | head -n 1)
so=$(find "$prefix" -name 'librdtalloc.so' | head -n 1)
if [ -z "$pc" ] || [ -z "$so" ]; then
	fail "rdtalloc.pc ('$pc') and librdtalloc.so ('$so') installed"
	exit 1
fi
libdir=$(dirname "$so")
pcdir=$(dirname "$pc")

for f in "$prefix/include/rdtalloc/rdtalloc.h" "$prefix/include/rdtalloc/version.h" \
	"$libdir/librdtalloc.a" "$libdir/librdtalloc.so.0" \
	"$libdir/cmake/rdtalloc/rdtallocConfig.cmake" \
	"$libdir/cmake/rdtalloc/rdtallocConfigVersion.cmake"; do
	if [ -e "$f" ]; then
		pass "installed ${f#"$prefix"/}"
	else
		fail "installed ${f#"$prefix"/}"
	fi
done

# ---- the shared library ------------------------------------------------------
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" = librdtalloc.so.0 ]; then
	pass "SONAME librdtalloc.so.0"
else
	fail "SONAME is '$soname', want librdtalloc.so.0"
fi
real=$(readlink -f "$so")
case $(basename "$real") in
librdtalloc.so.0.*) pass "librdtalloc.so -> $(basename "$real")" ;;
*) fail "librdtalloc.so resolves to $(basename "$real"), want librdtalloc.so.0.*" ;;
esac

# Exported: rdtalloc_* functions and the version nodes (absolute symbols) only.
nm -D --defined-only "$so" >"$work/nm.txt"
bad=$(awk '!($NF ~ /^rdtalloc_/) && !($2 == "A" && $NF ~ /^RDTALLOC_[0-9.]+$/) { print $NF }' \
	"$work/nm.txt")
if [ -z "$bad" ]; then
	pass "only rdtalloc_* exported ($(grep -c ' T rdtalloc_' "$work/nm.txt") functions)"
else
	fail "symbols exported besides rdtalloc_*: $(echo "$bad" | tr '\n' ' ')"
fi
# Every function the header promises is there.
sed -n 's/^RDTALLOC_API[^(]*[ *]\(rdtalloc_[a-z0-9_]*\)(.*/\1/p' \
	"$prefix/include/rdtalloc/rdtalloc.h" | sort -u >"$work/declared.txt"
missing=""
for f in $(cat "$work/declared.txt"); do
	grep -q " T $f\$" "$work/nm.txt" || grep -q " T $f@" "$work/nm.txt" ||
		missing="$missing $f"
done
if [ ! -s "$work/declared.txt" ]; then
	fail "found no RDTALLOC_API declarations in the installed header"
elif [ -z "$missing" ]; then
	pass "all $(wc -l <"$work/declared.txt") RDTALLOC_API functions exported"
else
	fail "declared but not exported:$missing"
fi

# Symbol versions: the hook calls came in 0.2, the calls below in 0.3 (the
# resctrl backend and issue 13's), rdtalloc_state_id and the batch binds in
# 0.4, monitoring and the OCI hook in 0.5, leases and the agent's calls in
# 0.6, the controller in 0.7, goresctrl's apply and policy, the owners'
# calls, a binding's policy, a group's masks, SNC's nodes, package
# telemetry, the counter turns', the ways not ours, io_alloc and the
# default state directory in 0.8,
# everything else is 0.1.
vers=$(objdump -T "$so" | awk '$NF ~ /^rdtalloc_/ { print $(NF-1), $NF }')
wrong=$(printf '%s\n' "$vers" | awk '{
	want = "RDTALLOC_0.1"
	if ($2 ~ /^rdtalloc_hook_/) want = "RDTALLOC_0.2"
	if ($2 ~ /^rdtalloc_(get_precedence|save_config_flags|apply_config_report|closid_entries|warning|group_set_mode|group_get_mode|bind_cgroup|cgroup_group|cgroup_foreach|get_limits)$/)
		want = "RDTALLOC_0.3"
	if ($2 ~ /^rdtalloc_(state_id|bind_cpus|bind_tasks|moved_tasks)$/)
		want = "RDTALLOC_0.4"
	if ($2 ~ /^rdtalloc_(mon_get_info|group_rmid|mon_read|sim_set_load|oci_hook|goresctrl_config|sim_replay|trace_curve|trace_convert|plan|plan_check|plan_traces)$/)
		want = "RDTALLOC_0.5"
	if ($2 ~ /^rdtalloc_(schema_lease|schema_restore|sync|place_tasks|state_path|drift)$/)
		want = "RDTALLOC_0.6"
	if ($2 ~ /^rdtalloc_control_(sim_run|set|get|run)$/)
		want = "RDTALLOC_0.7"
	if ($2 ~ /^rdtalloc_(goresctrl_apply|goresctrl_policy|apply_config_as|group_owner|schema_owner|task_owner|cpu_owner|cgroup_owner)$/)
		want = "RDTALLOC_0.8"
	if ($2 ~ /^rdtalloc_(bind_cgroup_flags|cgroup_policy|group_mask|mon_read_nodes|pkg_event_name|pkg_get_info|pkg_read|default_state_dir)$/)
		want = "RDTALLOC_0.8"
	if ($2 ~ /^rdtalloc_mon_(get_counters|set_rotation|pin)$/)
		want = "RDTALLOC_0.8"
	if ($2 ~ /^rdtalloc_(domain_ways|io_alloc_enable|io_alloc_set_mask)$/)
		want = "RDTALLOC_0.8"
	if ($1 != want) print $2 "@" $1
}')
if [ -n "$vers" ] && [ -z "$wrong" ]; then
	pass "symbol versions: rdtalloc_hook_* at RDTALLOC_0.2, the 0.3 calls at RDTALLOC_0.3," \
		"the 0.4 calls at RDTALLOC_0.4, the 0.5 calls at RDTALLOC_0.5, the 0.6 calls at" \
		"RDTALLOC_0.6, the controller at RDTALLOC_0.7, goresctrl's apply and policy and" \
		"the 0.8 calls (owners, policies, masks, nodes, telemetry, counter turns, ways," \
		"io_alloc) at RDTALLOC_0.8, the rest at RDTALLOC_0.1"
else
	fail "wrong symbol versions: $(echo "$wrong" | tr '\n' ' ')"
fi

# ---- pkg-config -------------------------------------------------------------------
PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
version=$(sed -n 's/^#define RDTALLOC_VERSION_STRING "\(.*\)"/\1/p' \
	"$prefix/include/rdtalloc/version.h")
if [ "$(pkg-config --modversion rdtalloc 2>&1)" = "$version" ]; then
	pass "pkg-config --modversion rdtalloc = $version"
else
	fail "pkg-config --modversion rdtalloc = '$(pkg-config --modversion rdtalloc 2>&1)'," \
		"header says $version"
fi
# One version: the newest node of lib/rdtalloc.map is the release, and the
# .pc, the header, rdtctl --version, rdtalloc-agent --version, the .so file's
# name and the DaemonSet's image (and the Dockerfile's tag) all say it.
node=$(sed -n 's/^RDTALLOC_\([0-9][0-9]*\.[0-9][0-9]*\)[ 	]*{.*/\1/p' "$src/lib/rdtalloc.map" |
	sort -t. -k1,1n -k2,2n | tail -n 1)
if [ -n "$node" ] && [ "$version" = "$node.0" ]; then
	pass "the version $version is lib/rdtalloc.map's newest node RDTALLOC_$node"
else
	fail "the header says $version, lib/rdtalloc.map's newest node is RDTALLOC_$node"
fi
if [ "$(env -i "$prefix/bin/rdtctl" --version)" = "rdtctl $node.0 (librdtalloc $node.0)" ]; then
	pass "rdtctl --version says $node.0"
else
	fail "rdtctl --version: '$(env -i "$prefix/bin/rdtctl" --version 2>&1)', want $node.0"
fi
if [ -x "$build/agent/rdtalloc-agent" ]; then
	if [ "$(env -i "$prefix/bin/rdtalloc-agent" --version)" = "rdtalloc-agent $node.0" ]; then
		pass "rdtalloc-agent --version says $node.0"
	else
		fail "rdtalloc-agent --version: '$(env -i "$prefix/bin/rdtalloc-agent" --version 2>&1)'"
	fi
fi
if [ "$(basename "$(readlink -f "$so")")" = "librdtalloc.so.$node.0" ]; then
	pass "the library file is librdtalloc.so.$node.0"
else
	fail "the library file is $(basename "$(readlink -f "$so")"), want librdtalloc.so.$node.0"
fi
image=$(sed -n 's/^ *image: *\(.*\)$/\1/p' "$src/deploy/kubernetes/rdtalloc.yaml")
if [ "$image" = "rdtalloc:$node" ] &&
   grep -q "docker build -t rdtalloc:$node " "$src/deploy/Dockerfile"; then
	pass "deploy/: the image is rdtalloc:$node"
else
	fail "deploy/: the DaemonSet's image is '$image' (and the Dockerfile's tag" \
		"'$(grep -o 'build -t [^ ]*' "$src/deploy/Dockerfile")'), want rdtalloc:$node"
fi
cflags=$(pkg-config --cflags rdtalloc)
libs=$(pkg-config --libs rdtalloc)
slibs=$(pkg-config --static --libs rdtalloc)
# The .pc must point into the prefix it was installed to, not the configure-time one.
has_dir() {	# has_dir FLAG DIR WORDS...: some FLAGpath among WORDS resolves to DIR
	flag=$1
	want=$(readlink -f "$2")
	shift 2
	for w in "$@"; do
		case $w in
		"$flag"*) [ "$(readlink -f "${w#"$flag"}")" = "$want" ] && return 0 ;;
		esac
	done
	return 1
}
if has_dir -I "$prefix/include" $cflags && has_dir -L "$libdir" $libs; then
	pass "rdtalloc.pc points into the install prefix"
else
	fail "rdtalloc.pc does not point into $prefix: cflags '$cflags', libs '$libs'"
fi

# The header alone: strict C99 and C++11, no warnings.
printf '#include <rdtalloc/rdtalloc.h>\nint main(void) { return rdtalloc_version() == 0; }\n' \
	>"$work/hdr.c"
cp "$work/hdr.c" "$work/hdr.cpp"
try "header compiles as C99 -Wall -Wextra -Wpedantic -Werror" \
	$cc -std=c99 -Wall -Wextra -Wpedantic -Werror $cflags -c "$work/hdr.c" -o "$work/hdr.o"
try "header compiles as C++11 -Wall -Wextra -Wpedantic -Werror" \
	$cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror $cflags -c "$work/hdr.cpp" \
	-o "$work/hdrpp.o"
# The RDTALLOC_OPTS() macro (a GNU statement expression) from C and C++, as
# strict as the header alone: no warning even with -Wextra -Wpedantic.
cat >"$work/opts.c" <<'EOF'
#include <rdtalloc/rdtalloc.h>
int main(void)
{
	RDTALLOC_OPTS(rdtalloc_opts, o, .backend = "sim", .flags = RDTALLOC_F_EPHEMERAL);
	int after = 1;	/* a declaration after it: the macro ends a declaration */

	return o.sz == sizeof(o) && !o.state_dir && after ? 0 : 1;
}
EOF
sed 's/int main(void)/int main()/' "$work/opts.c" >"$work/opts.cpp"
try "RDTALLOC_OPTS() in C11 -Wall -Wextra -Wpedantic -Werror" \
	$cc -std=c11 -Wall -Wextra -Wpedantic -Werror $cflags "$work/opts.c" -o "$work/opts_c"
try "RDTALLOC_OPTS() sets .sz and zeroes the rest (C)" "$work/opts_c"
try "RDTALLOC_OPTS() in C++17 -Wall -Wextra -Wpedantic -Werror" \
	$cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror $cflags "$work/opts.cpp" -o "$work/opts"
try "RDTALLOC_OPTS() sets .sz and zeroes the rest (C++)" "$work/opts"

# Run an example program; it must print the CLOSID line.
run_example() {
	what=$1
	shift
	if "$@" >"$work/run.log" 2>&1 && grep -q 'runs with CLOSID 1 on CPU 0' "$work/run.log"
	then
		pass "$what"
	else
		fail "$what"
		sed 's/^/    /' "$work/run.log" >&2
	fi
}

# The dynamic ones must resolve librdtalloc from the prefix.
check_needs() {
	what=$1
	exe=$2
	want=$3		# "prefix" or "none"
	got=$(LD_LIBRARY_PATH=$libdir ldd "$exe" 2>/dev/null |
		sed -n 's/.*librdtalloc\.so\.0 => \([^ ]*\).*/\1/p')
	if [ "$want" = none ]; then
		if readelf -d "$exe" | grep -q 'NEEDED.*librdtalloc'; then
			fail "$what: links librdtalloc.so although built --static"
		else
			pass "$what: no librdtalloc.so dependency"
		fi
	elif [ "$got" = "$libdir/librdtalloc.so.0" ]; then
		pass "$what: uses $got"
	else
		fail "$what: librdtalloc.so.0 resolves to '$got', want $libdir/librdtalloc.so.0"
	fi
}

# ---- the examples through pkg-config ---------------------------------------------
# --static: the archive instead of the shared library, plus the private dependencies.
slibs_a=$(echo " $slibs " | sed 's/ -lrdtalloc / -l:librdtalloc.a /')

if try "C example builds with pkg-config --cflags --libs rdtalloc" \
	$cc -std=c11 -Wall -Wextra -Werror $san "$src/examples/quickstart.c" $cflags $libs \
	-o "$work/qs"; then
	run_example "C example runs (shared)" env LD_LIBRARY_PATH="$libdir" "$work/qs"
	check_needs "C example" "$work/qs" prefix
fi
if try "C++ example builds with pkg-config --cflags --libs rdtalloc" \
	$cxx -std=c++17 -Wall -Wextra -Werror $san "$src/examples/quickstart.cpp" $cflags $libs \
	-o "$work/qspp"; then
	run_example "C++ example runs (shared)" env LD_LIBRARY_PATH="$libdir" "$work/qspp"
	check_needs "C++ example" "$work/qspp" prefix
fi
if try "C example builds with pkg-config --static" \
	$cc -std=c11 -Wall -Wextra -Werror $san "$src/examples/quickstart.c" $cflags $slibs_a \
	-o "$work/qs-static"; then
	run_example "C example runs (static)" "$work/qs-static"
	check_needs "C example (static)" "$work/qs-static" none
fi
if try "C++ example builds with pkg-config --static" \
	$cxx -std=c++17 -Wall -Wextra -Werror $san "$src/examples/quickstart.cpp" $cflags \
	$slibs_a -o "$work/qspp-static"; then
	run_example "C++ example runs (static)" "$work/qspp-static"
	check_needs "C++ example (static)" "$work/qspp-static" none
fi

# ---- find_package(rdtalloc) ---------------------------------------------------------
proj=$work/cmake-client
mkdir -p "$proj"
cp "$src/examples/quickstart.c" "$src/examples/quickstart.cpp" "$proj/"
cat >"$proj/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(rdtalloc_client C CXX)
find_package(rdtalloc $version REQUIRED)
set(CMAKE_CXX_STANDARD 17)
if("$san" STREQUAL "")
else()
	add_compile_options($san)
	add_link_options($san)
endif()
add_executable(qs quickstart.c)
target_link_libraries(qs PRIVATE rdtalloc::rdtalloc)
add_executable(qspp quickstart.cpp)
target_link_libraries(qspp PRIVATE rdtalloc::rdtalloc)
add_executable(qs_static quickstart.c)
target_link_libraries(qs_static PRIVATE rdtalloc::rdtalloc_static)
EOF
if try "find_package(rdtalloc) configures" \
	cmake -S "$proj" -B "$proj/build" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" &&
	try "find_package(rdtalloc) project builds" cmake --build "$proj/build"; then
	run_example "find_package: C example runs" env LD_LIBRARY_PATH="$libdir" "$proj/build/qs"
	run_example "find_package: C++ example runs" env LD_LIBRARY_PATH="$libdir" \
		"$proj/build/qspp"
	run_example "find_package: static C example runs" "$proj/build/qs_static"
	check_needs "find_package: C example" "$proj/build/qs" prefix
	check_needs "find_package: static C example" "$proj/build/qs_static" none
fi
# Every installed man page says which release it documents.
mm=${version%.*}
for page in $(find "$prefix" -path '*/man1/*.1' -o -path '*/man8/*.8'); do
	if grep -q "^\.TH [^ ]* [18] \"[0-9]*\" \"librdtalloc $mm\"" "$page"; then
		pass "man page ${page##*/} is for librdtalloc $mm"
	else
		fail "man page ${page##*/}: footer $(sed -n 's/^\.TH //p' "$page"), not librdtalloc $mm"
	fi
done
[ -n "$(find "$prefix" -path '*/man1/rdtctl.1')" ] || fail "rdtctl.1 not installed"
if [ -x "$build/agent/rdtalloc-agent" ] && [ -z "$(find "$prefix" -path '*/man8/rdtalloc-agent.8')" ]
then
	fail "rdtalloc-agent.8 not installed"
fi

# A version the package does not have is refused.
mkdir -p "$work/cmake-v"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(v C)\nfind_package(rdtalloc 99 REQUIRED)\n' \
	>"$work/cmake-v/CMakeLists.txt"
if cmake -S "$work/cmake-v" -B "$work/cmake-v/build" -DCMAKE_PREFIX_PATH="$prefix" \
	>/dev/null 2>&1; then
	fail "find_package(rdtalloc 99) should fail against $version"
else
	pass "find_package(rdtalloc 99) refused"
fi

if [ "$failures" -ne 0 ]; then
	echo "check.sh: $failures check(s) failed" >&2
	exit 1
fi
echo "check.sh: all install checks passed"
