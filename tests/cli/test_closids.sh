# SPDX-License-Identifier: LGPL-2.1-or-later
# test_closids: the CLOSID tables through rdtctl - example 7.2 of the 2016 resctrl patch set (then named rscctrl)
# step by step, CLOSID exhaustion with nothing changed, CDP on and off, and
# info.
. "$(dirname "$0")/lib.sh"

ok "fresh closids" closids
expect_out "fresh: one CLOSID per domain, held by default" "L3 cache id 0: 1 CLOSID in use
  CLOSID  MASK         REFS  GROUPS
  0       0xfffff      1     default
L3 cache id 1: 1 CLOSID in use
  CLOSID  MASK         REFS  GROUPS
  0       0xfffff      1     default"

# the patch set's 7.2
ok "7.2: default" schema set default 'L3:0=3ff;1=fffff'
ok "7.2: p1" group create p1
ok "7.2: p2" group create p2
ok "after creating p1 and p2" closids L3
expect_out "new groups share the all-ones CLOSID" "L3 cache id 0: 2 CLOSIDs in use
  CLOSID  MASK         REFS  GROUPS
  0       0x3ff        1     default
  1       0xfffff      2     p1,p2
L3 cache id 1: 1 CLOSID in use
  CLOSID  MASK         REFS  GROUPS
  0       0xfffff      3     default,p1,p2"
ok "7.2: bind 1234" task bind p1 1234
ok "7.2: p1 schema" schema set p1 'L3:0=f8000'
ok "7.2: bind 5678" task bind p2 5678
ok "7.2: p2 schema" schema set p2 'L3:0=7c00'
ok "7.2: closids" closids
expect_out "7.2: three CLOSIDs on cache 0, one shared on cache 1" "L3 cache id 0: 3 CLOSIDs in use
  CLOSID  MASK         REFS  GROUPS
  0       0x3ff        1     default
  1       0x7c00       1     p2
  2       0xf8000      1     p1
L3 cache id 1: 1 CLOSID in use
  CLOSID  MASK         REFS  GROUPS
  0       0xfffff      3     default,p1,p2"
ok "resource name in any case" closids l3
expect_out_has "closids l3" "L3 cache id 0: 3 CLOSIDs in use"
failure "closids of a resource the machine lacks" \
	"resource 'L2' is not available on this machine (have L3)" closids L2

# info reflects the machine and the CLOSIDs in use
ok "info" info
if printf '%s\n' "$OUT" | grep -q '^backend:  sim (.*)$'; then pass; else
	fail "info: backend line"; fi
expect_out_has "info: CLOSIDs" "  CLOSIDs:        16"
expect_out_has "info: CBM" "  CBM length:     20 bits"
expect_out_has "info: min bits" "  min CBM bits:   1"
expect_out_has "info: CDP" "  CDP:            off (supported)"
expect_out_has "info: domain 0" "  0          0-1              16384 KiB            3 of 16"
expect_out_has "info: domain 1" "  1          2-3              16384 KiB            1 of 16"

# exhaustion: 16 CLOSIDs; 14 more distinct masks on cache 0 fill them
ok "reset" reset
expect_out "reset: what it restored" "reset: only the default group is left, with every way: L3:0=fffff;1=fffff"
i=0
while [ $i -lt 15 ]; do
	run group create "g$i" --schema "L3:0=$(printf '%x' $((1 << i)))"
	expect_rc 0 "create g$i with its own mask"
	i=$((i + 1))
done
ok "full" closids L3
expect_out_has "16 CLOSIDs in use on cache 0" "L3 cache id 0: 16 CLOSIDs in use"
ok "sharing an existing mask needs no CLOSID" group create g15 --schema 'L3:0=4000'
ok "closids" closids L3
expect_out_has "g14 and g15 share" "  15      0x4000       2     g14,g15"
snapshot "$TMP/before"
failure "no free CLOSID" "L3 cache id 0: no free CLOSID (16 in use)" \
	group create g16 --schema 'L3:0=8000'
failure "no free CLOSID for a shared group's new mask" \
	"L3 cache id 0: no free CLOSID (16 in use)" schema set g15 'L3:0=8000;1=ff'
unchanged "exhaustion changed nothing" "$TMP/before"
ok "a group alone on its CLOSID rewrites it in place" schema set g0 'L3:0=8000'

# CDP
failure "CDP with groups" "CDP can be switched only while the default group is the only group (16 other groups exist)" cdp L3 on
ok "reset" reset
ok "cdp on" cdp L3 on
expect_out "cdp on" "L3 CDP is on (8 CLOSIDs)"
ok "info with CDP" info
expect_out_has "info: CDP on" "  CDP:            on"
expect_out_has "info: halved" "  CLOSIDs:        8 (16 in hardware, halved by CDP)"
ok "CDP schema, data,code form" schema set default 'L3:0=ff,f0'
ok "CDP schema, resctrl form" schema set default 'L3CODE:1=3'
ok "schema show" schema show default
expect_out "CDP schema" "L3:0=000ff,000f0;1=fffff,00003"
ok "closids with CDP" closids L3
expect_out "closids with CDP" "L3 cache id 0: 1 CLOSID in use
  CLOSID  MASK (data,code)         REFS  GROUPS
  0       0xff,0xf0                1     default
L3 cache id 1: 1 CLOSID in use
  CLOSID  MASK (data,code)         REFS  GROUPS
  0       0xfffff,0x3              1     default"
failure "cdp of a resource the machine lacks" \
	"resource 'L2' is not available on this machine (have L3)" cdp L2 on
ok "cdp off" cdp L3 off
expect_out "cdp off" "L3 CDP is off (16 CLOSIDs)"

finish
