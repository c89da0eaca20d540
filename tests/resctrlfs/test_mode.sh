# SPDX-License-Identifier: LGPL-2.1-or-later
# mode: shareable / exclusive and the overlap rules that go with them, the
# refused modes, and what bit_usage and size show meanwhile.
. "$(dirname "$0")/lib.sh"

NL='
'
start_fs --machine "topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.shareable_bits=0x80;l3.cdp=0"
mkdir "$MNT/g1"
check_file "$MNT/g1/mode" "shareable"
bad_write "exclusive over everything" "$MNT/g1/mode" "exclusive$NL" "Invalid argument" "Schemata overlaps"
check_file "$MNT/g1/mode" "shareable"
bad_write "unknown mode" "$MNT/g1/mode" "bogus$NL" "Invalid argument" "Unknown or unsupported mode"
bad_write "pseudo-locksetup" "$MNT/g1/mode" "pseudo-locksetup$NL" "Invalid argument" "Unknown or unsupported mode"
bad_write "no newline" "$MNT/g1/mode" "exclusive" "Invalid argument" "Unknown or unsupported mode"
ok_write "shareable again" "$MNT/g1/mode" "shareable$NL"

ok_write "root to f" "$MNT/schemata" "L3:0=f;1=f$NL"
ok_write "g1 to 30/70" "$MNT/g1/schemata" "L3:0=30;1=70$NL"
check_file "$MNT/info/L3/bit_usage" "0=H0SSSSSS;1=HSSSSSSS"
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
check_file "$MNT/g1/mode" "exclusive"
ok_write "exclusive again (no-op)" "$MNT/g1/mode" "exclusive$NL"
check_file "$MNT/info/L3/bit_usage" "0=H0EESSSS;1=HEEESSSS"
check_file "$MNT/g1/size" "L3:0=4194304;1=6291456"

# A new group gets what is not exclusive: 80 | f | unused 40 = cf -> f.
mkdir "$MNT/g2"
check_file "$MNT/g2/schemata" "L3:0=f;1=f"
bad_write "into an exclusive group" "$MNT/g2/schemata" "L3:0=10$NL" "Invalid argument" "Overlaps with exclusive group"
ok_write "unused bit" "$MNT/g2/schemata" "L3:0=40$NL"
check_file "$MNT/info/L3/bit_usage" "0=HSEESSSS;1=HEEESSSS"
bad_write "g2 exclusive over root" "$MNT/g2/mode" "exclusive$NL" "Invalid argument" "Schemata overlaps"
# An exclusive group may not overlap anything: hardware, shareable groups.
bad_write "exclusive over hardware" "$MNT/g1/schemata" "L3:0=c0$NL" "Invalid argument" "Overlaps with other group"
bad_write "exclusive over root" "$MNT/g1/schemata" "L3:0=38$NL" "Invalid argument" "Overlaps with other group"
ok_write "exclusive shrinks" "$MNT/g1/schemata" "L3:1=60$NL"
check_file "$MNT/g1/schemata" "L3:0=30;1=60"
check_file "$MNT/info/L3/bit_usage" "0=HSEESSSS;1=HEE0SSSS"
ok_write "g1 shareable" "$MNT/g1/mode" "shareable$NL"
check_file "$MNT/info/L3/bit_usage" "0=HSSSSSSS;1=HSS0SSSS"
ok_write "g1 exclusive" "$MNT/g1/mode" "exclusive$NL"
# rmdir frees the exclusive bits for the next group.
rmdir "$MNT/g1"
mkdir "$MNT/g3"
check_file "$MNT/g3/schemata" "L3:0=ff;1=ff"
check_file "$MNT/g3/size" "L3:0=16777216;1=16777216"
stop_fs

finish
