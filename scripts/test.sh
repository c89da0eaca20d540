#!/bin/sh
# Build librdtalloc and run every test: in a normal build, in one without
# the switch hook (RDTALLOC_BPF=OFF) and in an ASan+UBSan build; then the
# fuzz targets. Installs the Debian packages it needs when missing
# (scripts/deps.sh, root). Usage: scripts/test.sh [BUILD_ROOT]
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$src/out}
jobs=${JOBS:-2}

"$src/scripts/deps.sh"

# Where this machine can run every test (root, kernel BTF, /dev/fuse, two
# CPUs), a test that would skip fails instead (RDTALLOC_TEST_STRICT; see
# tests/cli/lib.sh, skip): a suite that skipped the hook here would report
# green without testing it. The build without the hook skips its tests.
strict=
if [ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/btf/vmlinux ] && [ -c /dev/fuse ] &&
	[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	strict=1
fi

# The tests that run on the host's own topology (the switch hook, cgroups,
# msr on the host's CPUs) run a second time under the other L3 layout:
# one L3 per CPU where the host has one for all CPUs, one shared L3 where
# it has several (AMD parts have one per CCX). hwloc's HWLOC_SYNTHETIC makes
# the library see that layout; the CPUs are the host's.
HOST_TESTS='^(unit\.test_hook|unit\.test_msr|cli\.test_hook|cli\.test_hook_faults|cli\.test_cgroup|cli\.test_msr|cli\.test_oci)$'
other_layout()
{
	ncpu=$(getconf _NPROCESSORS_ONLN)
	nl3=$(hwloc-calc --number-of L3cache machine:0 2>/dev/null || echo 1)
	if [ "$nl3" -le 1 ]; then
		echo "package:1 l3:$ncpu core:1 pu:1"
	else
		echo "package:1 l3:1 core:$ncpu pu:1"
	fi
}

run_build() {
	name=$1
	shift
	dir=$root/$name
	echo "== $name build: $dir"
	cmake -S "$src" -B "$dir" -DRDTALLOC_WERROR=ON "$@" >"$root/$name.cmake.log" 2>&1 ||
		{ cat "$root/$name.cmake.log"; exit 1; }
	cmake --build "$dir" -j "$jobs"
	echo "== $name tests"
	(cd "$dir" && RDTALLOC_TEST_STRICT=$run_strict ctest --output-on-failure -j "$jobs")
}

mkdir -p "$root"
run_strict=$strict
run_build normal -DCMAKE_BUILD_TYPE=RelWithDebInfo
layout=$(other_layout)
echo "== normal: the host's tests again, as on a host with HWLOC_SYNTHETIC=\"$layout\""
(cd "$root/normal" && HWLOC_SYNTHETIC="$layout" RDTALLOC_TEST_STRICT=$strict \
	ctest --output-on-failure -R "$HOST_TESTS")
if [ -x "$src/tests/install/check.sh" ] || [ -f "$src/tests/install/check.sh" ]; then
	echo "== install check"
	sh "$src/tests/install/check.sh" "$root/normal"
fi
# Without the switch hook (RDTALLOC_BPF=OFF): it must build, and say so.
run_strict=
run_build nohook -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDTALLOC_BPF=OFF
"$root/nohook/cli/rdtctl" hook status 2>&1 | grep -q "built without the switch hook" ||
	{ echo "RDTALLOC_BPF=OFF: rdtctl hook status does not say the hook is missing"; exit 1; }
run_strict=$strict
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	run_build sanitize -DCMAKE_BUILD_TYPE=Debug -DRDTALLOC_SANITIZE=ON
# The parsers' fuzz targets (libFuzzer needs clang): bounded runs on seeds.
if command -v clang >/dev/null 2>&1; then
	echo "== fuzz build (clang)"
	cmake -S "$src" -B "$root/fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DRDTALLOC_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >"$root/fuzz.cmake.log" 2>&1 ||
		{ cat "$root/fuzz.cmake.log"; exit 1; }
	cmake --build "$root/fuzz" -j "$jobs"
	(cd "$root/fuzz" && ctest --output-on-failure -R '^fuzz\.')
fi
echo "== all tests passed"
