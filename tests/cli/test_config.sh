# SPDX-License-Identifier: LGPL-2.1-or-later
# test_config: save and apply - the round trip, applying twice changes
# nothing, all-or-nothing apply naming the line (syntax, masks, CLOSIDs,
# CPUs, tasks), --prune, --dry-run, standard input, -q. Issue 13: save
# leaves task ids out unless --tasks, apply prints each change on a line,
# --missing-tasks=skip.
. "$(dirname "$0")/lib.sh"

# a state with a bit of everything
ok "default schema" schema set default 'L3:0=3ff;1=fffff'
ok "p1" group create p1 --schema 'L3:0=f8000'
ok "p2" group create p2 --schema 'L3:0=7c00;1=ff'
ok "p1 tasks" task bind p1 1234 1235
ok "p2 tasks" task bind p2 5678
ok "p1 cpus" cpu bind p1 2-3
i=0
TIDS=""
while [ $i -lt 20 ]; do
	TIDS="$TIDS $((3000 + i))"
	i=$((i + 1))
done
ok "many tasks in p3" group create p3
# shellcheck disable=SC2086
ok "bind 20 tasks" task bind p3 $TIDS

# save: no task ids (they do not survive a reboot) unless --tasks
ok "save" save
printf '%s\n' "$OUT" >"$TMP/durable.conf"
if grep -q '^group p1$' "$TMP/durable.conf" && grep -q '^	cpus 2-3$' "$TMP/durable.conf"
then pass; else fail "save lists p1 and its CPUs"; fi
if grep -q '^	tasks' "$TMP/durable.conf"; then fail "save without --tasks has no task line"
else pass; fi
ok "save --tasks" save --tasks
printf '%s\n' "$OUT" >"$TMP/saved.conf"
snapshot "$TMP/before"
if grep -q '^group p1$' "$TMP/saved.conf" && grep -q 'tasks 1234 1235' "$TMP/saved.conf"; then
	pass; else fail "save --tasks lists p1 and its tasks"; fi
if [ "$(grep -v -e '^	tasks ' -e '^end ' "$TMP/saved.conf")" = "$(grep -v '^end ' "$TMP/durable.conf")" ]; then
	pass; else fail "save is save --tasks without the task lines"; fi
usage "save --tasks takes no value" "save: option '--tasks' takes no value" save --tasks=1

ok "applying the saved state changes nothing" apply "$TMP/saved.conf"
expect_out "0 changes" "applied $TMP/saved.conf: 0 changes"
unchanged "apply of the saved state" "$TMP/before"

# round trip through a reset
ok "reset" reset
ok "apply after reset" apply "$TMP/saved.conf"
N=$(printf '%s\n' "$OUT" | sed -n 's/^applied .*: \([0-9]*\) changes*$/\1/p')
if [ -n "$N" ] && [ "$N" -gt 0 ]; then pass; else fail "apply after reset counts changes"; fi
ok "save after round trip" save --tasks
if [ "$OUT" = "$(cat "$TMP/saved.conf")" ]; then pass; else
	fail "save | reset | apply | save differs"; fi
ok "schemas after round trip" schema show
expect_out "schemas after round trip" "default  L3:0=003ff;1=fffff
p1       L3:0=f8000;1=fffff
p2       L3:0=07c00;1=000ff
p3       L3:0=fffff;1=fffff"
ok "apply twice" apply "$TMP/saved.conf"
expect_out "the second apply changes nothing" "applied $TMP/saved.conf: 0 changes"

# standard input
run save --tasks
printf '%s\n' "$OUT" | rdt apply - >"$TMP/out" 2>"$TMP/err"
RC=$?
OUT=$(cat "$TMP/out")
LAST="rdtctl save | rdtctl apply -"
expect_rc 0 "save | apply -"
expect_out "save | apply -" "applied (stdin): 0 changes"

# exact semantics: a block gets exactly its CPUs and tasks; omitted = none
cat >"$TMP/exact.conf" <<'EOF'
group p1
	cpus 3
	tasks 1235
group p2
EOF
ok "apply exact" apply "$TMP/exact.conf"
ok "task show after exact" task show
expect_out "tasks not listed go back to default" "default: (none)
p1: 1235
p2: (none)
p3: 3000 3001 3002 3003 3004 3005 3006 3007 3008 3009 3010 3011 3012 3013 3014 3015 3016 3017 3018 3019"
ok "cpu show after exact" cpu show
expect_out "CPUs not listed go back to default" "default: 0-2
p1: 3
p2: (none)
p3: (none)"
ok "schema kept when not given" schema show p2
expect_out "schema kept" "L3:0=07c00;1=000ff"

# --dry-run and --prune
cat >"$TMP/prune.conf" <<'EOF'
# only p1 and a new group
group p1
	schema L3:0=f8000
	cpus 3
	tasks 1235
group fresh
	schema L3:1=f
EOF
snapshot "$TMP/before"
# --prune removes only what this configuration (prune, the file's base name)
# made: p2 and p3 are saved.conf's (issue 40)
ok "dry run: --prune" apply "$TMP/prune.conf" --prune --dry-run
expect_out "dry run: another configuration's groups are kept" "keep group p2: not managed by this configuration (owner config:saved)
keep group p3: not managed by this configuration (owner config:saved)
create group fresh
schema fresh L3:0=fffff;1=fffff -> L3:0=fffff;1=0000f
$TMP/prune.conf is valid: applying it would make 2 changes"
ok "dry run" apply "$TMP/prune.conf" --prune-all --dry-run
expect_out "dry run: each change, then the count" "remove group p2
remove group p3
create group fresh
schema fresh L3:0=fffff;1=fffff -> L3:0=fffff;1=0000f
$TMP/prune.conf is valid: applying it would make 4 changes"
unchanged "dry run changes nothing" "$TMP/before"
ok "dry run with -q still reports" -q apply --dry-run "$TMP/prune.conf"
expect_out "dry run -q" "$TMP/prune.conf is valid: applying it would make 2 changes"
ok "prune" apply --prune-all "$TMP/prune.conf"
expect_out "prune" "remove group p2
remove group p3
create group fresh
schema fresh L3:0=fffff;1=fffff -> L3:0=fffff;1=0000f
applied $TMP/prune.conf: 4 changes"
ok "groups after prune" group list
expect_out "prune removed p2 and p3" "default
p1
fresh"
ok "-q apply" -q apply "$TMP/prune.conf"
expect_empty_out "-q apply prints nothing"

# the report: CPUs and tasks, to the group and back to default
cat >"$TMP/moves.conf" <<'EOF'
group p1
	schema L3:0=f8000
	cpus 2
	tasks 1236
EOF
ok "dry run of moves" apply --dry-run "$TMP/moves.conf"
expect_out "dry run of moves" "cpu 3 -> default
cpu 2 -> p1
task 1235 -> default
task 1236 -> p1
$TMP/moves.conf is valid: applying it would make 4 changes"
ok "-j dry run of moves" -j apply --dry-run "$TMP/moves.conf"
expect_out "-j: the lines in the document" \
	'{"file":"'"$TMP"'/moves.conf","changes":4,"dry_run":true,"prune":false,"lines":["cpu 3 -> default","cpu 2 -> p1","task 1235 -> default","task 1236 -> p1"]}'
ok "moves" apply "$TMP/moves.conf"
expect_out "moves" "cpu 3 -> default
cpu 2 -> p1
task 1235 -> default
task 1236 -> p1
applied $TMP/moves.conf: 4 changes"
ok "moves again" apply "$TMP/moves.conf"
expect_out "moves again: nothing to say but the count" "applied $TMP/moves.conf: 0 changes"
ok "-j moves again" -j apply "$TMP/moves.conf"
expect_out "-j moves again" \
	'{"file":"'"$TMP"'/moves.conf","changes":0,"dry_run":false,"prune":false,"lines":[]}'
usage "--missing-tasks takes fail or skip" "apply: --missing-tasks 'maybe': use fail or skip" \
	apply --missing-tasks=maybe "$TMP/moves.conf"
usage "--missing-tasks needs a value" "apply: option '--missing-tasks' needs a value" \
	apply "$TMP/moves.conf" --missing-tasks

# a round trip without tasks: what survives a reboot
ok "durable: groups and CPUs" save
printf '%s\n' "$OUT" >"$TMP/durable.conf"
ok "durable: reset" reset
ok "durable: apply" apply "$TMP/durable.conf"
expect_out "durable: apply" "schema default L3:0=fffff;1=fffff -> L3:0=003ff;1=fffff
create group p1
schema p1 L3:0=fffff;1=fffff -> L3:0=f8000;1=fffff
cpu 2 -> p1
create group fresh
schema fresh L3:0=fffff;1=fffff -> L3:0=fffff;1=0000f
applied $TMP/durable.conf: 6 changes"
ok "durable: save again" save
if [ "$OUT" = "$(cat "$TMP/durable.conf")" ]; then pass; else
	fail "save | reset | apply | save differs without tasks"; fi

# all or nothing, the line named
snapshot "$TMP/before"
cat >"$TMP/bad.conf" <<'EOF'
group p1
	schema L3:0=ff
group new1
	cpus 0
group new2
	# a mask that is not contiguous
	schema L3:0=5
EOF
failure "bad mask" "line 7: L3 cache id 0: mask 0x5 is not contiguous" apply "$TMP/bad.conf"
printf 'group a\n\tcpu 1\n' >"$TMP/bad.conf"
failure "syntax error" \
	"line 2: unknown keyword 'cpu' (expected group, schema, cpus, tasks, cgroup, cgroup-enforce, mode, cdp, machine, name or end)" \
	apply "$TMP/bad.conf"
printf 'group a\n\tschema L3:2=f\n' >"$TMP/bad.conf"
failure "bad cache id" "line 2: L3 cache id 2 does not exist (have 0,1)" apply "$TMP/bad.conf"
printf 'group a\ngroup b\n\tcpus 1\n\tcpus 9\n' >"$TMP/bad.conf"
failure "CPU the machine lacks: its own line" \
	"line 4: CPU 9 does not exist or is not usable (have 0-3)" apply "$TMP/bad.conf"
# a task on the third line of a block: that line is named, not the first tasks line
mkdir -m 700 "$TMP/real-lines"
printf 'group a\n\ttasks %s\n\ttasks 999999999\n' "$$" >"$TMP/bad.conf"
run_raw --backend sim --state-dir "$TMP/real-lines" --machine "$MACHINE_REAL" apply "$TMP/bad.conf"
expect_rc 1 "a task that does not exist"
expect_err_has "names the task's own line" "line 3: task 999999999 does not exist"
printf 'group a\n\tcpus 3-1\n' >"$TMP/bad.conf"
failure "bad CPU list" "line 2: CPU list '3-1': range is reversed" apply "$TMP/bad.conf"
printf 'group a\n\ttasks 12 x\n' >"$TMP/bad.conf"
failure "bad task id" "line 2: task id 'x' is not a decimal number" apply "$TMP/bad.conf"
printf 'group a/b\n' >"$TMP/bad.conf"
failure "bad name" \
	"line 1: invalid group name 'a/b': use 1 to 63 of [A-Za-z0-9_.-], not starting with '.'" \
	apply "$TMP/bad.conf"
printf 'group p1\n\ttasks 7\ngroup q\n\ttasks 7\n' >"$TMP/bad.conf"
failure "task in two groups" "line 4: task 7 is already in group p1 (line 2)" apply "$TMP/bad.conf"
printf 'group default\n\tcpus 1\n' >"$TMP/bad.conf"
failure "cpus in default" \
	"line 2: the default group takes no 'cpus' line: its CPUs are those no other group holds" \
	apply "$TMP/bad.conf"
# more distinct masks than CLOSIDs: 16 new groups with masks of their own
: >"$TMP/bad.conf"
i=0
while [ $i -lt 16 ]; do
	printf 'group x%d\n\tschema L3:0=%x\n' $i $((1 << i)) >>"$TMP/bad.conf"
	i=$((i + 1))
done
run apply "$TMP/bad.conf"
expect_rc 1 "too many masks"
if printf '%s\n' "$ERR" | grep -Eq '^rdtctl: line [0-9]+: L3 cache id 0: no free CLOSID \(16 in use\)$'
then pass; else fail "too many masks: the line and the domain are named"; fi
printf 'cdp L3 on\n' >"$TMP/bad.conf"
run apply "$TMP/bad.conf"
expect_rc 1 "CDP while groups exist"
expect_err_has "CDP while groups exist names the line" "rdtctl: line 1: "
unchanged "failed applies changed nothing" "$TMP/before"

# real tasks: a task that does not exist
STATE=$TMP/real
mkdir -m 700 "$STATE"
MACHINE=$MACHINE_REAL
ok "real: a group" group create r1
snapshot "$TMP/before"
printf 'group r1\n\ttasks %d\ngroup r2\n\ttasks 999999999\n' $$ >"$TMP/bad.conf"
failure "real: no such task" "line 4: task 999999999 does not exist" apply "$TMP/bad.conf"
unchanged "real: nothing bound" "$TMP/before"
printf 'group r1\n\ttasks %d\n' $$ >"$TMP/good.conf"
ok "real: live task" apply "$TMP/good.conf"
ok "real: task show" task show r1
expect_out "real: bound" "$$"

# real tasks after a reboot: ids that name no process (above PID_MAX_LIMIT, 2^22)
printf 'group r1\n\ttasks %d\ngroup r2\n\tschema L3:0=f\n\ttasks 4194305\n\ttasks 4194306\n' $$ \
	>"$TMP/reboot.conf"
snapshot "$TMP/before"
failure "real: missing tasks fail by default" "line 5: task 4194305 does not exist" \
	apply "$TMP/reboot.conf"
failure "real: --missing-tasks=fail" "line 5: task 4194305 does not exist" \
	apply --missing-tasks=fail "$TMP/reboot.conf"
unchanged "real: a failed apply changed nothing" "$TMP/before"
ok "real: skip, dry run" apply --dry-run --missing-tasks=skip "$TMP/reboot.conf"
expect_out "real: skip, dry run" "create group r2
schema r2 L3:0=fffff;1=fffff -> L3:0=0000f;1=fffff
$TMP/reboot.conf is valid: applying it would make 2 changes"
expect_err_has "real: skip warns" "rdtctl: warning: skip task 4194305 (line 5): no such task
rdtctl: warning: skip task 4194306 (line 6): no such task"
unchanged "real: dry run changed nothing" "$TMP/before"
ok "real: skip" apply --missing-tasks=skip "$TMP/reboot.conf"
expect_out "real: skip" "create group r2
schema r2 L3:0=fffff;1=fffff -> L3:0=0000f;1=fffff
applied $TMP/reboot.conf: 2 changes"
if [ "$ERR" = "rdtctl: warning: skip task 4194305 (line 5): no such task
rdtctl: warning: skip task 4194306 (line 6): no such task" ]; then pass; else
	fail "real: skip: exactly the warnings on stderr"; fi
ok "real: skip -q" -q apply --missing-tasks skip "$TMP/reboot.conf"
expect_empty_out "real: skip -q: nothing on stdout"
if [ -z "$ERR" ]; then pass; else fail "real: skip -q: nothing on stderr"; fi
ok "real: skip -j" -j apply --missing-tasks=skip "$TMP/reboot.conf"
expect_out "real: skip -j: the skips are lines" \
	'{"file":"'"$TMP"'/reboot.conf","changes":0,"dry_run":false,"prune":false,"lines":["skip task 4194305 (line 5): no such task","skip task 4194306 (line 6): no such task"]}'
if [ -z "$ERR" ]; then pass; else fail "real: skip -j: nothing on stderr"; fi

# bounded reading: a stream without end, NUL bytes, more than the limit
failure "/dev/zero is refused at once" "configuration /dev/zero is a device: give a regular file, or - and the data on standard input" \
	apply /dev/zero
run_env sh -c "head -c 100 /dev/zero | '$RDTCTL' --backend sim --state-dir '$STATE' --machine '$MACHINE' apply -"
expect_rc 1 "NUL bytes on standard input"
expect_err_has "NUL bytes: said" "standard input holds a NUL byte (at offset 0): it is not a configuration"
head -c 5000000 /dev/urandom | tr -d '\000' | tr '\000-\377' 'a' >"$TMP/big.conf"
failure "a 5 MB file is refused" "$TMP/big.conf is larger than 4 MiB, the most a configuration may be" \
	apply "$TMP/big.conf"
run_env sh -c "yes '# a comment' 2>/dev/null | '$RDTCTL' --backend sim --state-dir '$STATE' --machine '$MACHINE' apply -"
expect_rc 1 "an endless stream is refused"
expect_err_has "an endless stream: the limit named" "standard input is larger than 4 MiB"

# a warning belongs to a change: applying a file again warns no more
STATE=$TMP/warn
MACHINE='preset=skylake-sp;tasks=virtual'
mkdir -m 700 "$STATE"
printf 'group b\n\tschema L3:0=7ff;1=7ff\n' >"$TMP/shared.conf"
ok "apply on the shared ways" apply "$TMP/shared.conf"
expect_err_has "it warns" "rdtctl: warning: L3 cache id 0: mask 0x7ff uses the shareable ways 0x600"
ok "apply again" apply "$TMP/shared.conf"
expect_out "no change" "applied $TMP/shared.conf: 0 changes"
if [ -z "$ERR" ]; then pass; else fail "a file that changes nothing warned: $ERR"; fi
# the default group's every way (what reset gives it, in every saved file) is
# no choice to warn of, on the applies that change something else
printf 'group default\n\tschema L3:0=7ff;1=7ff\ngroup c\n\tschema L3:0=30;1=30\n' >"$TMP/dflt.conf"
ok "apply with the default group's all-ones mask" apply "$TMP/dflt.conf"
expect_out "it changed c" "$(printf 'create group c\nschema c L3:0=7ff;1=7ff MB:0=100;1=100 -> L3:0=030;1=030 MB:0=100;1=100\napplied %s: 2 changes' "$TMP/dflt.conf")"
if [ -z "$ERR" ]; then pass; else fail "the default group's all-ones mask warned: $ERR"; fi
# a new group without a schema starts where group create starts one: beside
# the exclusive groups; a mode that fails names the line that caused it
STATE=$TMP/place
MACHINE=$MACHINE_VIRT
mkdir -m 700 "$STATE"
ok "default off the low ways" schema set default 'L3:0=ffff0;1=ffff0'
ok "an exclusive group" group create rt --schema 'L3:0=f;1=f' --exclusive
ok "group create beside it" group create made
ok "made's schema" schema show made
expect_out "create: beside rt" "L3:0=ffff0;1=ffff0"
printf 'group rt\ngroup applied\n' >"$TMP/place.conf"
ok "apply: a new group, no schema" apply "$TMP/place.conf"
ok "applied's schema" schema show applied
expect_out "apply: where create puts it" "L3:0=ffff0;1=ffff0"
printf '# a comment\ngroup other\n\tcpus 1\n\tschema L3:0=3;1=3\n' >"$TMP/over.conf"
failure "an exclusive group kept: the line that overlaps it" \
	"line 4: L3 cache id 0: exclusive group rt (0x0000f) overlaps group other (0x00003)" \
	apply "$TMP/over.conf"
printf 'group rt\n\tmode exclusive\ngroup other\n\tschema L3:0=3;1=3\n' >"$TMP/over2.conf"
failure "the file's mode line" \
	"line 2: L3 cache id 0: exclusive group rt (0x0000f) overlaps group other (0x00003)" \
	apply --dry-run "$TMP/over2.conf"

# a file carries its machine: applied on another, it is refused naming the first difference
STATE=$TMP/machine-sky
MACHINE='preset=skylake-sp;tasks=virtual'
mkdir -m 700 "$STATE"
ok "a group on Skylake" group create db --schema 'L3:0=f;1=f' --schema 'MB:0=50'
ok "a group of two lines" group create db2 --schema 'L3:0=f;1=f
MB:0=50'
expect_out "its MB line under its L3 line" "created group db2 with schema L3:0=00f;1=00f
                              MB:0=50;1=100"
ok "and gone" group remove db2
ok "save on Skylake" save
printf '%s\n' "$OUT" >"$TMP/sky.conf"
expect_out_has "save: the L3 facts" "machine L3 ids=0-1 cbm_len=11"
expect_out_has "save: the MB facts" "machine MB ids=0-1 units=percent max=100"
STATE=$TMP/machine-milan
MACHINE='preset=amd-milan;tasks=virtual'
mkdir -m 700 "$STATE"
ok "a state on Milan" info
failure "a Skylake file on Milan" \
	"line 3: L3 cache ids here are 0-15, the file's machine had 0-1: the file was made for another machine (apply it anyway with --force-machine, RDTALLOC_APPLY_FORCE_MACHINE)" \
	apply "$TMP/sky.conf"
failure "and its dry run" \
	"line 3: L3 cache ids here are 0-15, the file's machine had 0-1: the file was made for another machine (apply it anyway with --force-machine, RDTALLOC_APPLY_FORCE_MACHINE)" \
	apply --dry-run "$TMP/sky.conf"
ok "group list: nothing applied" group list
expect_out "nothing applied" "default"
ok "--force-machine" apply --force-machine "$TMP/sky.conf"
expect_out_contains "the report says how it differs" "machine differs, applied anyway (--force-machine): line 3: L3 cache ids here are 0-15, the file's machine had 0-1"
# the same ids, another scale: the MB line differs
STATE=$TMP/machine-sky2
MACHINE='topology=package:2 l3:1 core:2 pu:1;l3.closids=16;l3.cbm_len=11;mb.closids=8;mb.units=amd;mb.min=0;mb.gran=1;mb.max=2048;tasks=virtual'
mkdir -m 700 "$STATE"
failure "Intel's MB percent on AMD's scale" \
	"line 4: MB values here are 1/8 GB/s (AMD), the file's machine had percent: the file was made for another machine (apply it anyway with --force-machine, RDTALLOC_APPLY_FORCE_MACHINE)" \
	apply "$TMP/sky.conf"
# a file without machine lines (hand-written, or from before 0.4) is taken as it is
printf 'group hand\n\tschema L3:0=3\n' >"$TMP/hand.conf"
ok "a file without machine lines" apply "$TMP/hand.conf"

# the end line: a saved file cut at a line boundary, or edited, is told from a whole one
STATE=$TMP/endline
MACHINE=$MACHINE_VIRT
mkdir -m 700 "$STATE"
ok "groups to save" group create e1 --schema 'L3:0=f'
ok "e2" group create e2 --schema 'L3:0=f0'
ok "save" save
printf '%s\n' "$OUT" >"$TMP/whole.conf"
expect_out_contains "save ends with its end line" "end fnv1a64="
ok "the whole file applies" apply "$TMP/whole.conf"
n=$(grep -n '^group e2' "$TMP/whole.conf" | cut -d: -f1)
head -n "$n" "$TMP/whole.conf" >"$TMP/cut.conf"
failure "cut short after 'group e2'" \
	"line $((n + 1)): the file ends without the 'end' line rdtctl save writes: it was cut short (or, edited by hand, lost it: then delete the first line too)" \
	apply "$TMP/cut.conf"
ok "e2 as before" schema show e2
expect_out "the cut file changed nothing" "L3:0=000f0;1=fffff"
sed 's/^	schema L3:0=000f0/	schema L3:0=00ff0/' "$TMP/whole.conf" >"$TMP/edited.conf"
e=$(grep -n '^end ' "$TMP/edited.conf" | cut -d: -f1)
failure "an edited saved file" \
	"line $e: the checksum of the lines above does not match (the file was changed after rdtctl save wrote it, or damaged): to apply an edited file, delete its first line (the save header) and its 'end' line" \
	apply "$TMP/edited.conf"
sed -e 1d -e '/^end /d' "$TMP/edited.conf" >"$TMP/hand.conf"
ok "the edit, without the header and the end line: hand-written" apply "$TMP/hand.conf"
ok "e2 changed" schema show e2
expect_out "the edit applied" "L3:0=00ff0;1=fffff"

finish
