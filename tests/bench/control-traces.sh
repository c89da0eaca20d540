#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# control-traces.sh: record the windows of real programs that bench_control
# replays (tests/data/traces/*.trc.xz, kept in the repository so that the
# benchmark needs no valgrind run). Each program of Debian runs under
# valgrind's lackey with address-space randomization off; its data accesses
# (instruction fetches dropped) after the first SKIP are cut into two
# windows of WINDOW accesses, the second GAP accesses after the first - two
# phases of one program - converted to our binary form and compressed.
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
