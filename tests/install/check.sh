#!/bin/sh
# Install a build into a temporary prefix and build the examples against it
# the way a user would: pkg-config (shared and --static), C and C++, and
# check what the library exports. Usage: check.sh BUILD_DIR
set -eu

build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
export PKG_CONFIG_PATH="$libdir/pkgconfig"

fail() { echo "install check: $*" >&2; exit 1; }

[ -f "$prefix/include/rdtalloc/rdtalloc.h" ] || fail "rdtalloc.h not installed"
[ -f "$prefix/include/rdtalloc/version.h" ] || fail "version.h not installed"
[ -f "$libdir/librdtalloc.a" ] || fail "static library not installed"
soname=$(readelf -d "$libdir/librdtalloc.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "librdtalloc.so.0" ] || fail "SONAME is '$soname', not librdtalloc.so.0"
bad=$(nm -D --defined-only "$libdir/librdtalloc.so" | awk '{print $3}' |
	grep -v '^rdtalloc_' | grep -v '^RDTALLOC_' || true)
[ -z "$bad" ] || fail "exports other than rdtalloc_*: $bad"

cc -Wall -Werror -o "$work/c" "$src/examples/quickstart.c" \
	$(pkg-config --cflags --libs rdtalloc)
c++ -Wall -Werror -o "$work/cxx" "$src/examples/quickstart.cpp" \
	$(pkg-config --cflags --libs rdtalloc)
# --static: librdtalloc.a itself, its private dependencies from pkg-config.
cc -Wall -Werror -o "$work/c_static" "$src/examples/quickstart.c" \
	$(pkg-config --cflags rdtalloc) -Wl,-Bstatic -lrdtalloc -Wl,-Bdynamic \
	$(pkg-config --static --libs rdtalloc | sed 's/-lrdtalloc//')
c++ -Wall -Werror -o "$work/cxx_static" "$src/examples/quickstart.cpp" \
	$(pkg-config --cflags rdtalloc) -Wl,-Bstatic -lrdtalloc -Wl,-Bdynamic \
	$(pkg-config --static --libs rdtalloc | sed 's/-lrdtalloc//')
LD_LIBRARY_PATH="$libdir" "$work/c" >/dev/null || fail "C example failed"
LD_LIBRARY_PATH="$libdir" "$work/cxx" >/dev/null || fail "C++ example failed"
"$work/c_static" >/dev/null || fail "static C example failed"
"$work/cxx_static" >/dev/null || fail "static C++ example failed"
! ldd "$work/c_static" | grep -q librdtalloc || fail "static example links librdtalloc.so"

mkdir "$work/pkg"
cat >"$work/pkg/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(user C)
find_package(rdtalloc REQUIRED)
add_executable(user main.c)
target_link_libraries(user PRIVATE rdtalloc::rdtalloc)
CM
cp "$src/examples/quickstart.c" "$work/pkg/main.c"
cmake -S "$work/pkg" -B "$work/pkg/b" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
	fail "find_package(rdtalloc) failed"
cmake --build "$work/pkg/b" >/dev/null || fail "building with find_package failed"
LD_LIBRARY_PATH="$libdir" "$work/pkg/b/user" >/dev/null || fail "find_package example failed"
echo "install check: headers, SONAME, exports, pkg-config (C, C++, static), find_package: ok"
