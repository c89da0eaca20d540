# SPDX-License-Identifier: LGPL-2.1-or-later
# test_groups: group create|remove|list|show and schema set|show through
# rdtctl, with exact output, and the bad inputs of issue 3 (names, masks,
# cache ids, resources) failing with exit 1 and the state unchanged.
. "$(dirname "$0")/lib.sh"

ok "fresh list" group list
expect_out "only default at first" "default"
ok "fresh schema" schema show default
expect_out "default starts all-ones" "L3:0=fffff;1=fffff"

ok "create p1" group create p1
expect_out "create p1" "created group p1"
ok "create with schema" group create p2 --schema 'L3:0=f0'
expect_out "create with schema" "created group p2 with schema L3:0=000f0;1=fffff"
ok "create with --schema=" group create p3 --schema='L3:1=3'
expect_out "create with --schema=" "created group p3 with schema L3:0=fffff;1=00003"
ok "list" group list
expect_out "list in creation order" "default
p1
p2
p3"

ok "schema set" schema set p1 'L3:0=ff'
expect_out "schema set prints the new schema" "p1: L3:0=000ff;1=fffff"
ok "schema set, two lines as two arguments" schema set p1 'L3:0=f00' 'L3:1=ff000'
expect_out "two arguments" "p1: L3:0=00f00;1=ff000"
ok "schema set, partial update" schema set p1 ' L3 : 1 = 0xf '
ok "schema show p1" schema show p1
expect_out "partial update kept domain 0" "L3:0=00f00;1=0000f"
ok "schema show all" schema show
expect_out "schema show all" "default  L3:0=fffff;1=fffff
p1       L3:0=00f00;1=0000f
p2       L3:0=000f0;1=fffff
p3       L3:0=fffff;1=00003"
ok "schema set default by name" schema set default 'L3:0=3ff'
ok "schema show default" schema show default
expect_out "default schema" "L3:0=003ff;1=fffff"

ok "group show p2" group show p2
expect_out "group show p2" "group p2
  owner:   user:admin
  schema:  L3:0=000f0;1=fffff
  cpus:    (none)
  tasks:   (none)
  closids: L3/0=1 L3/1=0
  rmid:    2
  size:    L3/0=3.2 MiB L3/1=16.0 MiB"

ok "remove p3" group remove p3
expect_out "remove p3" "removed group p3"
ok "list after remove" group list
expect_out "list after remove" "default
p1
p2"

# failures: exit 1, the library's message, nothing on stdout, nothing changed
snapshot "$TMP/before"
failure "create twice" "group 'p1' already exists" group create p1
failure "create default" "the default group always exists" group create default
NAMEMSG="use 1 to 63 of [A-Za-z0-9_.-], not starting with '.'"
failure "name with a slash" "invalid group name 'a/b': $NAMEMSG" group create a/b
failure "name starting with a dot" "invalid group name '.x': $NAMEMSG" group create .x
failure "name with a space" "invalid group name 'a b': $NAMEMSG" group create 'a b'
failure "empty name" "a group needs a name" group create ''
failure "non-ASCII name" "invalid group name 'été': $NAMEMSG" group create 'été'
LONG=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
failure "64-character name" "invalid group name '$LONG': $NAMEMSG" group create "$LONG"
failure "remove default" "the default group cannot be removed" group remove default
failure "remove unknown" "no group named 'nope'" group remove nope
failure "schema of unknown group" "no group named 'nope'" schema set nope 'L3:0=f'
failure "show unknown group" "no group named 'nope'" group show nope
failure "not contiguous" "L3 cache id 0: mask 0x5 is not contiguous" schema set p1 'L3:0=5'
failure "empty mask" "L3 cache id 0: mask 0x0 is empty" schema set p1 'L3:0=0'
failure "mask beyond the CBM" "L3 cache id 0: mask 0x1fffff has bits beyond the 20-bit CBM" \
	schema set p1 'L3:0=1fffff'
failure "unknown cache id" "L3 cache id 2 does not exist (have 0,1)" schema set p1 'L3:2=f'
failure "domain given twice" "L3 cache id 0 given twice" schema set p1 'L3:0=f;0=f0'
failure "resource the machine lacks" "resource L2 is not available on this machine (have L3)" \
	schema set p1 'L2:0=f'
failure "empty schema" "schema is empty" schema set p1 ' '
run schema set p1 'L3:0=xyz'
expect_rc 1 "non-hex mask"
expect_err_has "non-hex mask names the field" "L3 cache id 0"
run schema set p1 'L9:0=f'
expect_rc 1 "unknown resource"
expect_err_has "unknown resource names it" "L9"
failure "CDP form while CDP is off" "L3 cache id 0: data,code pair given but CDP is off for L3" schema set p1 'L3:0=f,f0'

# create --schema that fails: the group must not remain
failure "create with a bad schema" "L3 cache id 0: mask 0x5 is not contiguous" \
	group create p9 --schema 'L3:0=5'
unchanged "failures changed nothing" "$TMP/before"
ok "list after failed create" group list
expect_out "the failed group is gone" "default
p1
p2"

# a machine that needs at least 2 bits per mask (Haswell servers)
STATE=$TMP/minbits
mkdir -m 700 "$STATE"
MACHINE='topology=package:2 l3:1 core:2 pu:1;l3.min_cbm_bits=2;tasks=virtual'
ok "min bits: create" group create p1
snapshot "$TMP/before"
failure "fewer than min bits" "L3 cache id 1: mask 0x1 has 1 bit, at least 2 are needed" \
	schema set p1 'L3:1=1'
unchanged "min bits: nothing changed" "$TMP/before"
ok "min bits: 2 bits are fine" schema set p1 'L3:1=3'

# One machine, spelled two ways: the same state. Level names are normalised
# ("pack" is "package"), and a state recorded with another spelling (by an
# older version) is still that machine's.
STATE=$TMP/spelling
mkdir -m 700 "$STATE"
MACHINE='topology=pack:2 L3Cache:1 core:2 pu:1;tasks=virtual'
ok "spelling: a group" group create sp
MACHINE='topology=package:2 l3:1 core:2 pu:1;tasks=virtual'
ok "spelling: the canonical spelling opens it" group list
expect_out "spelling: the same state" "default
sp"
python3 -c '
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["machine"] = d["machine"].replace("package:2 l3:1", "pack:2 L3Cache:1")
json.dump(d, open(p, "w"))
' "$STATE/state.json"
ok "spelling: a state recorded another way opens with the canonical one" group list
expect_out "spelling: still the same state" "default
sp"
MACHINE='topology=package:4 l3:1 core:2 pu:1;tasks=virtual'
failure "spelling: another machine is still refused" \
	"the state in $STATE was made for machine 'topology=pack:2 L3Cache:1 core:2 pu:1;l3.closids=16;l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;l3.sparse=0;tasks=virtual', not 'topology=package:4 l3:1 core:2 pu:1;l3.closids=16;l3.cbm_len=20;l3.min_cbm_bits=1;l3.shareable_bits=0;l3.cdp=1;l3.sparse=0;tasks=virtual'; to replace it with a new state for that machine (its groups are dropped): rdtctl reset --machine '$MACHINE' (RDTALLOC_F_REPLACE_MACHINE), or use another state directory" \
	group list

# the lenient forms docs/guide.md documents (case, blanks, leading zeros), and what stays refused
STATE=$TMP/lenient
MACHINE=$MACHINE_VIRT
mkdir -m 700 "$STATE"
ok "lenient group" group create lenient
ok "lower case, blanks, leading zeros" schema set lenient 'l3: 0 = f ; 01=00f'
ok "schema show lenient" schema show lenient
expect_out "read back in the strict form" "L3:0=0000f;1=0000f"
failure "an empty list" "L3: no <id>=<mask> given" schema set lenient 'L3:'
failure "an empty entry" "L3: empty entry before ';'" schema set lenient 'L3:0=f;;1=f'
ok "a sign, as kstrtoul takes it" schema set lenient 'L3:+0=+0x0f;1=+f'
failure "two signs" 'L3 cache id 0: mask "++f" is not hex' schema set lenient 'L3:0=++f'
ok "remove lenient" group remove lenient

# a schema on the ways the hardware shares with I/O: done, with a warning on
# stderr (-q: none; -j: in the document)
STATE=$TMP/shareable
MACHINE='preset=skylake-sp;tasks=virtual'
mkdir -m 700 "$STATE"
ok "io" group create io
ok "on the shared ways" schema set io 'L3:0=700'
expect_err_has "the warning" "rdtctl: warning: L3 cache id 0: mask 0x700 uses the shareable ways 0x600, which other agents (such as I/O) fill too: group io does not have them to itself"
ok "-q" -q schema set io 'L3:0=600'
if [ -z "$ERR" ]; then pass; else fail "-q printed '$ERR'"; fi
ok "-j" -j schema set io 'L3:0=700'
json "-j warnings" "len(d['warnings'])" "1"
# a forced exclusive group created on them: the schema's warning is not lost
ok "io off the shared ways" schema set io 'L3:0=f0;1=f0'
ok "default off them" schema set default 'L3:0=ff;1=ff'
ok "create --exclusive --force --schema" -j group create iox --exclusive --force \
	--schema 'L3:0=400;1=400'
json "its warnings" "[w.split(':')[0] for w in d['warnings']]" '["L3 cache id 0", "L3 cache id 1"]'

# exclusive groups: nothing else on their ways, named refusals, the mode shown
STATE=$TMP/exclusive
MACHINE=$MACHINE_VIRT
mkdir -m 700 "$STATE"
ok "default off rt's ways" schema set default 'L3:0=7f;1=ffff'
ok "rt exclusive" group create rt --schema 'L3:0=f80;1=f0000' --exclusive
ok "group show rt" -j group show rt
json "rt is exclusive" "d['mode']" "exclusive"
failure "default on rt's ways" "L3 cache id 0: 0x000ff overlaps exclusive group rt (0x00f80)" \
	schema set default 'L3:0=ff'
ok "a new group beside rt" group create other
ok "schema show other" schema show other
expect_out "other on the free ways" "L3:0=0007f;1=0ffff"
failure "other exclusive overlaps default" \
	"L3 cache id 0: exclusive group other (0x0007f) overlaps group default (0x0007f)" \
	group mode other exclusive
failure "create --exclusive on taken ways: no group left" \
	"L3 cache id 0: exclusive group x (0x0007f) overlaps group default (0x0007f)" \
	group create x --exclusive
ok "group list" group list
case $OUT in *x*) fail "the refused exclusive group x remained" ;; *) pass ;; esac
ok "rt shareable" group mode rt shareable
expect_out "says so" "group rt is shareable"
usage "a bad mode" "group mode: 'open' is neither exclusive nor shareable" group mode rt open

# limits: chosen when the state is created, named when reached, shown by info
STATE=$TMP/limits
mkdir -m 700 "$STATE"
ok "a state of 3 groups, 2 tasks" --max-groups 3 --max-tasks 2 group create a
ok "group b" group create b
failure "the group limit" \
	"the state holds 3 groups, the most it may (max_groups, set when the state is created)" \
	group create c
ok "two tasks" task bind a 1 2
failure "the task limit" \
	"2 tasks are bound already, the most the state may hold (max_tasks, set when the state is created)" \
	task bind b 3
ok "info" info
expect_out_has "info shows them" "holds:    3 of 3 groups, 2 of 2 bound tasks, 0 of 4096 bound cgroups"
run --max-groups 5 info
expect_rc 1 "other limits on reopening"
expect_err_has "refused, named" "was made with max_groups=3, not 5: limits are chosen when a state is created"
usage "a limit of 0" "--max-groups '0': a number above 0" --max-groups 0 info
usage "a limit that is not a number" "--max-tasks 'x': a number above 0" --max-tasks x info

finish
