# SPDX-License-Identifier: LGPL-2.1-or-later
# test_readme_api: the README's API example, compiled as it stands against
# the built library and run, does what its comments say: the calling
# thread, bound to rt, runs with rt's CLOSID on CPU 0 (tid 0 would ask for
# an idle CPU: the default group's 0).
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$RDTCTL")/.." && pwd)
command -v cc >/dev/null 2>&1 || skip "no C compiler"
[ -e "$BUILD/lib/librdtalloc.so" ] || skip "no shared library in $BUILD/lib"

# the block after "## The API in one example"
awk '/^## The API in one example/ { s = 1; next }
	s == 1 && /^```c$/ { s = 2; next }
	s == 2 && /^```$/ { exit }
	s == 2 { print }' "$ROOT/README.md" >"$TMP/snippet.c"
if [ -s "$TMP/snippet.c" ]; then pass; else fail "no C block in the README's API example"; fi
{
	printf '#define _GNU_SOURCE\n#include <err.h>\n#include <stdio.h>\n#include <unistd.h>\n'
	printf '#include <rdtalloc/rdtalloc.h>\n\nint main(void)\n{\n'
	cat "$TMP/snippet.c"
	printf 'printf("%%u %%u\\n", closid, rt);\nreturn 0;\n}\n'
} >"$TMP/readme.c"
# rt's CLOSID in cache id 0, read before the close, to compare with
sed -i 's/^rdtalloc_close(r);$/unsigned int rt = 99;\nrdtalloc_group_closid(r, "rt", "L3", 0, \&rt);\nrdtalloc_close(r);/' \
	"$TMP/readme.c"
# a sanitizer build's library needs its runtime first: the program is built with it too
san=
if readelf -d "$BUILD/lib/librdtalloc.so" 2>/dev/null | grep -q 'libasan'; then
	san="-fsanitize=address -fsanitize=undefined"
fi
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Werror $san -I"$ROOT/include" -I"$BUILD/include" "$TMP/readme.c" \
	-L"$BUILD/lib" -Wl,-rpath,"$BUILD/lib" -lrdtalloc -o "$TMP/readme" 2>"$TMP/cc.err"; then
	pass; else fail "the README's API example does not build: $(cat "$TMP/cc.err")"; fi
run_raw_prog()
{
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err") LAST="$*"
}
run_raw_prog "$TMP/readme"
expect_rc 0 "the README's API example runs"
expect_out "the calling thread runs with rt's CLOSID, 1" "1 1"

finish
