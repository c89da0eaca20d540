#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# control-traces.sh: record the windows of real programs that bench_control
# replays (tests/data/traces/*.trc.xz, kept in the repository so that the
# benchmark needs no valgrind run). Each program of Debian runs under
# valgrind's lackey with address-space randomization off; its data accesses
# (instruction fetches dropped) after the first SKIP are cut into two
# windows of WINDOW accesses, the second GAP accesses after the first - two
# phases of one program - converted to our binary form and compressed.
# Besides valgrind: gzip, bzip2, xz, sqlite3, python3, mawk, perl, jq, gcc
# (its cc1), sed, zstd and coreutils (sort, sha256sum); run by hand only:
# the benchmark reads the recorded windows. A rerun records windows of the
# same character (rdtctl profile --trace agrees from 2 ways; checked for
# perl and zstd), not the same bytes: addresses differ between runs, also
# with the same environment.
#
# Usage: [ONLY="gzip xz"] tests/bench/control-traces.sh RDTCTL [OUTDIR]
set -eu
rdtctl=$1
out=${2:-$(dirname "$0")/../data/traces}
SKIP=${SKIP:-2000000}
WINDOW=${WINDOW:-150000}
GAP=${GAP:-1500000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# inputs made here, the same every time
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(7)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 12)))
         for _ in range(20000)]
with open(f"{d}/text", "w") as f:
    for _ in range(120000):
        f.write(" ".join(r.choice(words) for _ in range(8)) + "\n")
with open(f"{d}/lines", "w") as f:
    for _ in range(200000):
        f.write(f"{r.getrandbits(48):x} {r.choice(words)}\n")
with open(f"{d}/sql", "w") as f:
    f.write("create table t(a integer primary key, b text, c integer);\n")
    f.write("begin;\n")
    for i in range(60000):
        f.write(f"insert into t(b, c) values ('{r.choice(words)}', {r.getrandbits(30)});\n")
    f.write("commit;\ncreate index ic on t(c);\n")
    for i in range(3000):
        f.write(f"select count(*) from t where c < {r.getrandbits(30)};\n")
with open(f"{d}/py", "w") as f:
    f.write("""
import random
r = random.Random(1)
d = {}
for i in range(400000):
    d[r.getrandbits(40)] = [i, str(i)]
s = 0
for k in sorted(d)[:200000]:
    s += d[k][0]
print(s)
""")
# a JSON array for jq, a C file without includes for cc1 (gcc's compiler)
with open(f"{d}/json", "w") as f:
    f.write("[" + ",".join('{"k":"%s","v":%d,"t":[%d,%d]}' % (r.choice(words[:3000]),
            r.getrandbits(20), r.getrandbits(8), r.getrandbits(8)) for _ in range(60000)) + "]\n")
with open(f"{d}/prog.c", "w") as f:
    for i in range(400):
        a, b, c = (r.randint(1, 97) for _ in range(3))
        f.write(f"int f{i}(int *p, int n)\n{{\n\tint s = {a};\n"
                f"\tfor (int i = 0; i < n; i++) {{\n"
                f"\t\tif (p[i] % {b} == {c % b}) s += p[i] * {c};\n"
                f"\t\telse s ^= (s << {a % 7 + 1}) + p[(i * {b}) % n];\n\t}}\n"
                + (f"\treturn s + f{i - 1}(p + 1, n - 1);\n}}\n" if i else "\treturn s;\n}\n"))
PY

record() {
	name=$1
	shift
	case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	# the data accesses after SKIP, two windows GAP apart; lackey is stopped
	# once the second is whole (it does not stop when its log's reader goes)
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	setarch "$(uname -m)" -R valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$@" \
		9>"$tmp/fifo" >/dev/null 2>/dev/null </dev/null &
	vg=$!
	awk -v skip="$SKIP" -v w="$WINDOW" -v gap="$GAP" -v a="$tmp/$name.1" -v b="$tmp/$name.2" '
		/^ [LSM] / { n++
			if (n > skip && n <= skip + w) print > a
			else if (n > skip + gap && n <= skip + gap + w) print > b
			else if (n > skip + gap + w) exit }' <"$tmp/fifo" || true
	kill -9 "$vg" 2>/dev/null || true	# the program may catch TERM, slowly
	wait "$vg" 2>/dev/null || true
	for k in 1 2; do
		[ -s "$tmp/$name.$k" ] || { echo "control-traces: $name gave no window $k" >&2; exit 1; }
		"$rdtctl" trace convert "$tmp/$name.$k" "$tmp/$name.$k.trc" >/dev/null
		xz -9 -c "$tmp/$name.$k.trc" >"$out/$name.$k.trc.xz"
	done
	echo "control-traces: $name: $(ls -l "$out/$name".*.trc.xz | awk '{s += $5} END {print s}') bytes"
}

record gzip gzip -9 -c "$tmp/text"
record bzip2 bzip2 -9 -c "$tmp/text"
record xz xz -6 -c "$tmp/text"
record sort sort "$tmp/lines"
record sqlite3 sqlite3 :memory: -init "$tmp/sql" .quit
record python3 /usr/bin/python3 "$tmp/py"
# session 4 (issue 43's held-out set): other programs, each checked for its
# character with rdtctl profile --trace (docs/control.md, Figures)
record awk awk '{ for (i = 1; i <= NF; i++) c[$i]++ } END { for (w in c) n++; print n }' "$tmp/text"
record perl perl -0777 -ne 'my $n = () = /\b[aeiou]\w*[xyz]\b/g; print "$n\n"' "$tmp/text"
record jq jq -c 'group_by(.k) | map({k: .[0].k, n: length, s: (map(.v) | add)})' "$tmp/json"
record cc1 "$(gcc -print-prog-name=cc1)" -quiet -O2 "$tmp/prog.c" -o /dev/null
record sed sed -E 's/([aeiou])([a-z]*) ([a-z]+)/\3\2\1/g' "$tmp/text"
zstd -q -19 -c "$tmp/text" >"$tmp/text.zst"
record zstd zstd -d -c "$tmp/text.zst"
record sha256sum sha256sum "$tmp/text"
