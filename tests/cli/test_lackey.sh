# SPDX-License-Identifier: LGPL-2.1-or-later
# test_lackey: real memory traces. valgrind's lackey records /bin/true and
# /bin/echo (Debian's coreutils; small: some 40 000 data accesses each);
# the miss curve of one pass (profile --trace) equals a replay alone with a
# mask of k ways, for every k, on each; the binary form gives the same;
# instruction fetches count only when asked.
. "$(dirname "$0")/lib.sh"
need_python
command -v valgrind >/dev/null 2>&1 || skip "no valgrind (scripts/deps.sh installs it)"

MACHINE="topology=package:1 l3:1(size=256KiB) core:2 pu:1;l3.cbm_len=16;tasks=virtual"
for p in true echo; do
	valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/$p.lackey" "/bin/$p" hi >/dev/null 2>&1 ||
		fail "valgrind --tool=lackey /bin/$p"
done
run group create g
for p in true echo; do
	run -j profile --trace "$TMP/$p.lackey"
	expect_rc 0 "profile $p"
	printf '%s' "$OUT" >"$TMP/$p.curve"
	k=1
	while [ $k -le 16 ]; do
		run schema set g "L3:0=$(printf '%x' $(((1 << k) - 1)))"
		run -j sim replay g="$TMP/$p.lackey"
		printf '%s' "$OUT" >"$TMP/$p.$k.replay"
		k=$((k + 1))
	done
	python3 - "$TMP" "$p" >"$TMP/$p.verdict" <<'PY'
import json, sys
d, p = sys.argv[1:]
c = json.load(open(f"{d}/{p}.curve"))
bad = []
for k in range(1, 17):
    r = json.load(open(f"{d}/{p}.{k}.replay"))["groups"][0]
    if r["accesses"] != c["accesses"] or round(c["miss_ratio"][k - 1] * c["accesses"]) != r["misses"]:
        bad.append((k, r["misses"], c["miss_ratio"][k - 1] * c["accesses"]))
print("ok" if not bad and c["accesses"] > 10000 else f"{c['accesses']} accesses, differ: {bad}")
PY
	if [ "$(cat "$TMP/$p.verdict")" = ok ]; then pass; else
		fail "$p: the curve and the replays: $(cat "$TMP/$p.verdict")"; fi
done
run trace convert "$TMP/echo.lackey" "$TMP/echo.bin"
expect_rc 0 "convert"
run -j profile --trace "$TMP/echo.bin"
if [ "$OUT" = "$(cat "$TMP/echo.curve")" ]; then pass; else fail "the binary form's curve differs"; fi
run -j profile --trace "$TMP/echo.lackey" --instr
json "with instruction fetches, more accesses" "d['accesses'] > $(python3 -c "import json; print(json.load(open('$TMP/echo.curve'))['accesses'])")" 'true'

finish
