# SPDX-License-Identifier: LGPL-2.1-or-later
# The tree after mount: listing, info values, root files, the mount type,
# and the VFS-level refusals (read-only files, mkdir/rmdir/rename rules).
. "$(dirname "$0")/lib.sh"

# The default machine: broadwell-ep (2 L3 domains, 88 CPUs, 16 CLOSIDs).
start_fs
check "mount type" "resctrl $MNT fuse.resctrl" "$(grep " $MNT " /proc/mounts | cut -d' ' -f1-3)"
check "root listing" "cpus cpus_list info mode mon_data mon_groups schemata size tasks" "$(ls "$MNT" | tr '\n' ' ' | sed 's/ $//')"
check "info listing" "L3 L3_MON last_cmd_status" "$(ls "$MNT/info" | tr '\n' ' ' | sed 's/ $//')"
check "info/L3 listing" "bit_usage cbm_mask min_cbm_bits num_closids shareable_bits sparse_masks" \
	"$(ls "$MNT/info/L3" | tr '\n' ' ' | sed 's/ $//')"
check_file "$MNT/info/L3/cbm_mask" "fffff"
check_file "$MNT/info/L3/min_cbm_bits" "1"
check_file "$MNT/info/L3/num_closids" "16"
check_file "$MNT/info/L3/shareable_bits" "c0000"
check_file "$MNT/info/L3/sparse_masks" "0"
check_file "$MNT/info/L3/bit_usage" "0=XXSSSSSSSSSSSSSSSSSS;1=XXSSSSSSSSSSSSSSSSSS"
check_file "$MNT/info/last_cmd_status" "ok"
# CDP capable but off: the name is padded as if it were L3CODE.
check_file "$MNT/schemata" "    L3:0=fffff;1=fffff"
# broadwell-ep: 55 MiB / 20 bits * 20 bits
check_file "$MNT/size" "    L3:0=57671680;1=57671680"
check_file "$MNT/mode" "shareable"
check_file "$MNT/cpus" "ffffff,ffffffff,ffffffff"
check_file "$MNT/cpus_list" "0-87"
check "modes" "-rw-r--r-- -rw-r--r-- dr-xr-xr-x -rw-r--r-- drwxr-xr-x drwxr-xr-x -rw-r--r-- -r--r--r-- -rw-r--r--" \
	"$(ls -l "$MNT" | sed 1d | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
# Our own shell is somewhere in root's tasks.
grep -qx "$$" "$MNT/tasks" && pass || fail "root tasks lack the test shell $$"

# Read-only files refuse write opens, root included (kernfs).
bad_write "write size" "$MNT/size" "x" "Permission denied" "ok"
bad_write "write cbm_mask" "$MNT/info/L3/cbm_mask" "1" "Permission denied" "ok"
check "create file" "Permission denied" "$(errtext touch "$MNT/newfile")"
check "unlink" "Operation not permitted" "$(errtext rm -f "$MNT/tasks")"

# Directory rules.
check "mkdir in info" "Operation not permitted" "$(errtext mkdir "$MNT/info/x")"
check "rmdir info" "Operation not permitted" "$(errtext rmdir "$MNT/info")"
check "rmdir info/L3" "Operation not permitted" "$(errtext rmdir "$MNT/info/L3")"
check "mkdir g1" "" "$(errtext mkdir "$MNT/g1")"
check "g1 listing" "cpus cpus_list mode mon_data mon_groups schemata size tasks" "$(ls "$MNT/g1" | tr '\n' ' ' | sed 's/ $//')"
check "mkdir in a group" "Operation not permitted" "$(errtext mkdir "$MNT/g1/sub")"
check "mkdir existing" "File exists" "$(errtext mkdir "$MNT/g1")"
check "mkdir info" "File exists" "$(errtext mkdir "$MNT/info")"
check "mkdir newline" "Invalid argument" "$(errtext mkdir "$MNT/a
b")"
long=$(printf '%0256d' 0)
check "mkdir 256 chars" "File name too long" "$(errtext mkdir "$MNT/$long")"
long=$(printf '%0255d' 0)
check "mkdir 255 chars" "" "$(errtext mkdir "$MNT/$long")"
check "rmdir 255 chars" "" "$(errtext rmdir "$MNT/$long")"
check "rmdir a file" "Not a directory" "$(errtext rmdir "$MNT/g1/tasks")"
check "rmdir missing" "No such file or directory" "$(errtext rmdir "$MNT/nosuch")"
check "rename group" "Operation not permitted" "$(errtext mv "$MNT/g1" "$MNT/g2")"
check_file "$MNT/info/last_cmd_status" "Source must be a MON group"
check "g1 still there" "g1" "$(ls -d "$MNT"/g1 | sed 's|.*/||')"
check_file "$MNT/g1/mode" "shareable"
check_file "$MNT/g1/cpus_list" ""
check "g1 tasks" "" "$(cat "$MNT/g1/tasks")"
check "rmdir g1" "" "$(errtext rmdir "$MNT/g1")"
check "root listing after rmdir" "cpus cpus_list info mode mon_data mon_groups schemata size tasks" \
	"$(ls "$MNT" | tr '\n' ' ' | sed 's/ $//')"
# A write bigger than a page is refused as kernfs does.
big=$(printf '%05000d' 0)
bad_write "5000-byte write" "$MNT/tasks" "$big" "Argument list too long" "-"
stop_fs

# A literal machine: 4-bit CBM, min 2 bits, sparse masks, one domain of 7 CPUs
# of which 1, 3 and 5 do not exist.
start_fs --machine "topology=package:1 l3:1 core:4 pu:1(indexes=0,2,4,6);l3.closids=4;l3.cbm_len=8;l3.min_cbm_bits=2;l3.shareable_bits=0x80;l3.sparse=1;l3.cdp=0"
check_file "$MNT/info/L3/cbm_mask" "ff"
check_file "$MNT/info/L3/min_cbm_bits" "2"
check_file "$MNT/info/L3/num_closids" "4"
check_file "$MNT/info/L3/shareable_bits" "80"
check_file "$MNT/info/L3/sparse_masks" "1"
# Not CDP capable: no padding.
check_file "$MNT/schemata" "L3:0=ff"
check_file "$MNT/size" "L3:0=16777216"
check_file "$MNT/cpus" "55"
check_file "$MNT/cpus_list" "0,2,4,6"
stop_fs

# L2 and L3 together: the kernel lists schemas in reverse registration order.
start_fs --machine "topology=package:1 l3:1 l2:2 core:2 pu:1;l3.closids=8;l3.cbm_len=12;l3.cdp=0;l2.closids=4;l2.cbm_len=8;l2.cdp=0"
check "info listing L2+L3" "L2 L3 L3_MON last_cmd_status" "$(ls "$MNT/info" | tr '\n' ' ' | sed 's/ $//')"
check_file "$MNT/schemata" "L2:0=ff;1=ff
L3:0=fff"
check_file "$MNT/size" "L2:0=4194304;1=4194304
L3:0=16777212"
check_file "$MNT/info/L2/num_closids" "4"
check_file "$MNT/info/L3/num_closids" "8"
# CLOSIDs are limited by the smallest resource: 3 groups besides root.
mkdir "$MNT/a" "$MNT/b" "$MNT/c"
check "mkdir past L2 closids" "No space left on device" "$(errtext mkdir "$MNT/d")"
check_file "$MNT/info/last_cmd_status" "Out of CLOSIDs"
stop_fs

finish
