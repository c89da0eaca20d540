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
# (its cc1), sed, zstd, diffutils (diff), grep and coreutils (sort,
# sha256sum); run by hand only: the benchmark reads the recorded windows.
# Session 5 recorded xz -d, bzip2 -d, diff, python3 on a heap and grep
# with this script as it is (ONLY="unxz bunzip2 diff pyheap grep") and
# left the windows recorded before as they were. A rerun records windows
# of the same character (rdtctl profile --trace agrees from 2 ways;
# checked for perl and zstd), not the same bytes: addresses differ
# between runs, also with the same environment.
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
# session 5 (set 4): a second text for diff (one line in 40 changed, one
# in 200 dropped), a heap workload for python3, 5,000 of the words as fixed
# patterns for grep; a generator of their own, so that the inputs above
# stay as they were
q = random.Random(11)
with open(f"{d}/text") as f, open(f"{d}/text2", "w") as g:
    for line in f:
        k = q.random()
        if k < 0.025:
            g.write(" ".join(q.choice(words) for _ in range(8)) + "\n")
        elif k > 0.995:
            continue
        else:
            g.write(line)
with open(f"{d}/heap.py", "w") as f:
    f.write("""
import heapq, random
r = random.Random(3)
h = []
names = ["".join(r.choice("abcdefghij") for _ in range(6)) for _ in range(5000)]
for i in range(300000):
    heapq.heappush(h, (r.getrandbits(32), names[i % 5000]))
    if len(h) > 60000:
        heapq.heappop(h)
t = {}
while h:
    k, n = heapq.heappop(h)
    t[n] = t.get(n, 0) + k
print(len(t))
""")
with open(f"{d}/words", "w") as f:
    f.write("\n".join(words[:5000]) + "\n")
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
# session 5 (set 4, written against the controller's rules): decompressors
# of xz and bzip2, diff of two texts, python3 on a heap, grep of 5,000 fixed
# words (bc's long division was tried and dropped: no misses in 64 KiB)
xz -6 -c "$tmp/text" >"$tmp/text.xz"
bzip2 -9 -c "$tmp/text" >"$tmp/text.bz2"
record unxz xz -d -c "$tmp/text.xz"
record bunzip2 bzip2 -d -c "$tmp/text.bz2"
record diff diff "$tmp/text" "$tmp/text2"
record pyheap /usr/bin/python3 "$tmp/heap.py"
record grep grep -c -F -w -f "$tmp/words" "$tmp/text"
