# SPDX-License-Identifier: LGPL-2.1-or-later
# cpus and cpus_list: the kernel's formats (32-bit comma groups, ranges),
# moves between groups, the root group keeping what others drop, and the
# parse errors with their errnos.
. "$(dirname "$0")/lib.sh"

NL='
'
# 40 CPUs: two 32-bit groups in the hex form.
start_fs --machine "topology=package:2 l3:1 core:20 pu:1;l3.closids=4;l3.cbm_len=8;l3.cdp=0"
mkdir "$MNT/g1" "$MNT/g2"
check_file "$MNT/cpus" "ff,ffffffff"
check_file "$MNT/cpus_list" "0-39"
check_file "$MNT/g1/cpus" "00,00000000"
check_file "$MNT/g1/cpus_list" ""

ok_write "g1 list 0-3" "$MNT/g1/cpus_list" "0-3$NL"
check_file "$MNT/g1/cpus" "00,0000000f"
check_file "$MNT/g1/cpus_list" "0-3"
check_file "$MNT/cpus_list" "4-39"
check_file "$MNT/cpus" "ff,fffffff0"
ok_write "g2 mask 30" "$MNT/g2/cpus" "30$NL"
check_file "$MNT/g2/cpus_list" "4-5"
check_file "$MNT/cpus_list" "6-39"
ok_write "g2 takes 2-3 from g1" "$MNT/g2/cpus_list" "2-5$NL"
check_file "$MNT/g1/cpus_list" "0-1"
check_file "$MNT/g2/cpus_list" "2-5"
ok_write "g1 drops all" "$MNT/g1/cpus_list" "$NL"
check_file "$MNT/g1/cpus_list" ""
check_file "$MNT/cpus_list" "0-1,6-39"
ok_write "hex second group" "$MNT/g1/cpus" "1,00000000$NL"
check_file "$MNT/g1/cpus_list" "32"
ok_write "hex, empty group between" "$MNT/g1/cpus" "1,,00000001$NL"
check_file "$MNT/g1/cpus_list" "0,32"
check_file "$MNT/cpus_list" "1,6-31,33-39"
ok_write "list with stride" "$MNT/g1/cpus_list" "8-15:2/4$NL"
check_file "$MNT/g1/cpus_list" "8-9,12-13"
ok_write "list N, blanks" "$MNT/g1/cpus_list" " 7 , N$NL"
check_file "$MNT/g1/cpus_list" "7,39"
check_file "$MNT/g1/cpus" "80,00000080"

bad_write "list past the last CPU" "$MNT/g1/cpus_list" "40$NL" "Numerical result out of range" "Bad CPU list/mask"
bad_write "list reversed range" "$MNT/g1/cpus_list" "3-1$NL" "Invalid argument" "Bad CPU list/mask"
bad_write "list garbage" "$MNT/g1/cpus_list" "1x$NL" "Invalid argument" "Bad CPU list/mask"
bad_write "mask non-hex" "$MNT/g1/cpus" "g$NL" "Invalid argument" "Bad CPU list/mask"
bad_write "mask nine digits" "$MNT/g1/cpus" "123456789$NL" "Value too large for defined data type" "Bad CPU list/mask"
bad_write "mask bit 40" "$MNT/g1/cpus" "100,00000000$NL" "Value too large for defined data type" "Bad CPU list/mask"
bad_write "mask three groups" "$MNT/g1/cpus" "1,00000000,00000000$NL" "Value too large for defined data type" "Bad CPU list/mask"
bad_write "root drops CPU 0" "$MNT/cpus_list" "1-39$NL" "Invalid argument" "Can't drop CPUs from default group"
check_file "$MNT/g1/cpus_list" "7,39"
check_file "$MNT/g2/cpus_list" "2-5"

# Root may take CPUs back from groups.
ok_write "root takes all" "$MNT/cpus_list" "0-39$NL"
check_file "$MNT/g1/cpus_list" ""
check_file "$MNT/g2/cpus_list" ""
# rmdir gives a group's CPUs back to root.
ok_write "g2 10-12" "$MNT/g2/cpus_list" "10-12$NL"
check_file "$MNT/cpus_list" "0-9,13-39"
rmdir "$MNT/g2"
check_file "$MNT/cpus_list" "0-39"
stop_fs

# CPUs 1, 3 and 5 do not exist (are not online) on this machine.
start_fs --machine "topology=package:1 l3:1 core:4 pu:1(indexes=0,2,4,6);l3.closids=4;l3.cbm_len=8;l3.cdp=0"
mkdir "$MNT/g1"
bad_write "offline CPU" "$MNT/g1/cpus_list" "1$NL" "Invalid argument" "Can only assign online CPUs"
bad_write "offline CPU, mask" "$MNT/g1/cpus" "3$NL" "Invalid argument" "Can only assign online CPUs"
bad_write "past nr_cpu_ids" "$MNT/g1/cpus_list" "7$NL" "Numerical result out of range" "Bad CPU list/mask"
ok_write "online CPUs" "$MNT/g1/cpus_list" "2,6$NL"
check_file "$MNT/g1/cpus" "44"
check_file "$MNT/cpus_list" "0,4"
stop_fs

finish
