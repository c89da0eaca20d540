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

run_build() {
	name=$1
	shift
	dir=$root/$name
	echo "== $name build: $dir"
	cmake -S "$src" -B "$dir" -DRDTALLOC_WERROR=ON "$@" >"$root/$name.cmake.log" 2>&1 ||
		{ cat "$root/$name.cmake.log"; exit 1; }
	cmake --build "$dir" -j "$jobs"
	echo "== $name tests"
	(cd "$dir" && ctest --output-on-failure -j "$jobs")
}

mkdir -p "$root"
run_build normal -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ -x "$src/tests/install/check.sh" ] || [ -f "$src/tests/install/check.sh" ]; then
	echo "== install check"
	sh "$src/tests/install/check.sh" "$root/normal"
fi
# Without the switch hook (RDTALLOC_BPF=OFF): it must build, and say so.
run_build nohook -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDTALLOC_BPF=OFF
"$root/nohook/cli/rdtctl" hook status 2>&1 | grep -q "built without the switch hook" ||
	{ echo "RDTALLOC_BPF=OFF: rdtctl hook status does not say the hook is missing"; exit 1; }
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
