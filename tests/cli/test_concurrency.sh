# SPDX-License-Identifier: LGPL-2.1-or-later
# test_concurrency: several rdtctl processes at once on one state
# directory lose nothing - group creation, task binding and schema writes.
. "$(dirname "$0")/lib.sh"

ok "the state exists" group list

# 8 parallel creates
pids=""
i=0
while [ $i -lt 8 ]; do
	rdt -q group create "g$i" >"$TMP/c$i.out" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
n=0
for p in $pids; do
	if wait "$p"; then n=$((n + 1)); fi
done
if [ $n -eq 8 ]; then pass; else fail "parallel creates: $n of 8 succeeded"; cat "$TMP"/c*.out >&2; fi
ok "list after parallel creates" group list
COUNT=$(printf '%s\n' "$OUT" | grep -c '^g[0-7]$')
if [ "$COUNT" -eq 8 ]; then pass; else fail "8 groups listed, got $COUNT"; fi

# 8 parallel binds, 4 tasks each, and schema writes on distinct groups
pids=""
i=0
while [ $i -lt 8 ]; do
	b=$((1000 + i * 10))
	( rdt -q task bind "g$i" $b $((b + 1)) $((b + 2)) $((b + 3)) &&
	  rdt -q schema set "g$i" "L3:1=$(printf '%x' $((3 << (i * 2))))" ) \
		>"$TMP/b$i.out" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
n=0
for p in $pids; do
	if wait "$p"; then n=$((n + 1)); fi
done
if [ $n -eq 8 ]; then pass; else fail "parallel binds: $n of 8 succeeded"; cat "$TMP"/b*.out >&2; fi
i=0
while [ $i -lt 8 ]; do
	b=$((1000 + i * 10))
	ok "task show g$i" task show "g$i"
	expect_out "g$i kept its 4 tasks" "$b
$((b + 1))
$((b + 2))
$((b + 3))"
	ok "schema show g$i" schema show "g$i"
	expect_out "g$i kept its schema" "L3:0=fffff;1=$(printf '%05x' $((3 << (i * 2))))"
	i=$((i + 1))
done
ok "closids" closids L3
expect_out_has "9 CLOSIDs on cache 1: 8 distinct masks and default's" "L3 cache id 1: 9 CLOSIDs in use"

# parallel removes
pids=""
i=0
while [ $i -lt 8 ]; do
	rdt -q group remove "g$i" >"$TMP/r$i.out" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p" || fail "a parallel remove failed"
done
ok "list after parallel removes" group list
expect_out "only default is left" "default"
ok "closids after removes" closids L3
expect_out_has "every CLOSID freed" "L3 cache id 1: 1 CLOSID in use"

finish
