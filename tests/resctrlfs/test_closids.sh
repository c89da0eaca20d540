# SPDX-License-Identifier: LGPL-2.1-or-later
# CLOSIDs: one per control group, num_closids - 1 groups besides root, the
# lowest free one reused, and the initial masks of a new group (kernel's
# rdtgroup_init_alloc: shareable bits plus bits nobody holds exclusively).
. "$(dirname "$0")/lib.sh"

NL='
'
# without monitoring: no mon_groups, no mon_data (test_mon.sh has those)
start_fs --machine "topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.shareable_bits=0xc0;l3.cdp=0;mon.rmids=0"
check_file "$MNT/info/L3/num_closids" "4"
for g in a b c; do
	check "mkdir $g" "" "$(errtext mkdir "$MNT/$g")"
done
check "mkdir past num_closids" "No space left on device" "$(errtext mkdir "$MNT/d")"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
check "no d" "a b c" "$(ls "$MNT" | grep -vx 'cpus\|cpus_list\|info\|mode\|schemata\|size\|tasks' | tr '\n' ' ' | sed 's/ $//')"
check "rmdir b" "" "$(errtext rmdir "$MNT/b")"
check "mkdir d reuses b's CLOSID" "" "$(errtext mkdir "$MNT/d")"
check_file "$MNT/info/last_cmd_status" "ok"
check "mkdir e" "No space left on device" "$(errtext mkdir "$MNT/e")"
check "rmdir removed group" "No such file or directory" "$(errtext rmdir "$MNT/b")"
for g in a c d; do
	rmdir "$MNT/$g"
done
check "all removed" "cpus cpus_list info mode schemata size tasks" "$(ls "$MNT" | tr '\n' ' ' | sed 's/ $//')"

# A new group starts with every bit that is not used exclusively.
check "mkdir a" "" "$(errtext mkdir "$MNT/a")"
check_file "$MNT/a/schemata" "L3:0=ff;1=ff"
ok_write "shrink root" "$MNT/schemata" "L3:0=f;1=f$NL"
ok_write "a to 30" "$MNT/a/schemata" "L3:0=30;1=30$NL"
ok_write "a exclusive" "$MNT/a/mode" "exclusive$NL"
check "mkdir b" "" "$(errtext mkdir "$MNT/b")"
# c0 shareable | f root | nothing unused = cf, cut to its first run of ones.
check_file "$MNT/b/schemata" "L3:0=f;1=f"
check_file "$MNT/info/L3/bit_usage" "0=HHEESSSS;1=HHEESSSS"
stop_fs

# When exclusive groups leave fewer than min_cbm_bits, mkdir fails and the
# CLOSID is not used up.
start_fs --machine "topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.min_cbm_bits=2;l3.cdp=0"
mkdir "$MNT/a"
ok_write "root to 3" "$MNT/schemata" "L3:0=3;1=3$NL"
ok_write "a to fc" "$MNT/a/schemata" "L3:0=fc;1=fc$NL"
ok_write "a exclusive" "$MNT/a/mode" "exclusive$NL"
# The kernel does not stop the root group from being exclusive.
ok_write "root exclusive" "$MNT/mode" "exclusive$NL"
check_file "$MNT/mode" "exclusive"
check "mkdir with no space" "No space left on device" "$(errtext mkdir "$MNT/b")"
check_file "$MNT/info/last_cmd_status" "No space on L3:0"
ok_write "root shareable" "$MNT/mode" "shareable$NL"
check "mkdir b" "" "$(errtext mkdir "$MNT/b")"
check_file "$MNT/b/schemata" "L3:0=3;1=3"
check "mkdir c" "" "$(errtext mkdir "$MNT/c")"
check "mkdir d" "No space left on device" "$(errtext mkdir "$MNT/d")"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
stop_fs

finish
