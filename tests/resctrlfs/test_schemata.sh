# SPDX-License-Identifier: LGPL-2.1-or-later
# schemata writes: the kernel's grammar, whitespace rules, every validation
# error with its errno and last_cmd_status text, and all-or-nothing writes.
. "$(dirname "$0")/lib.sh"

start_fs --machine "topology=package:2 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.min_cbm_bits=2;l3.shareable_bits=0;l3.cdp=1;l3.sparse=0"
mkdir "$MNT/g1"
S=$MNT/g1/schemata
NL='
'
check_file "$S" "    L3:0=ff;1=ff"

# Shells truncate on `>`: that must work.
if echo "L3:0=f0" > "$S"; then pass; else fail "echo > schemata"; fi
check_file "$S" "    L3:0=f0;1=ff"
ok_write "one domain" "$S" "L3:0=f$NL"
check_file "$S" "    L3:0=f;1=ff"
ok_write "the other domain only" "$S" "L3:1=3c$NL"
check_file "$S" "    L3:0=f;1=3c"
ok_write "two lines" "$S" "L3:0=3${NL}L3:1=c0$NL"
check_file "$S" "    L3:0=3;1=c0"
ok_write "blanks around name and masks" "$S" " L3 :0=f0 ;1=0f $NL"
check_file "$S" "    L3:0=f0;1=f"
ok_write "0x prefix, upper case" "$S" "L3:0=0xFF;1=+3$NL"
check_file "$S" "    L3:0=ff;1=3"
ok_write "trailing ;" "$S" "L3:0=f;$NL"
check_file "$S" "    L3:0=f;1=3"

bad_write "blank before id" "$S" "L3: 0=f$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "blank before =" "$S" "L3:0 =f$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "lower-case resource" "$S" "l3:0=f$NL" "Invalid argument" "Unknown or unsupported resource name 'l3'"
bad_write "unknown resource" "$S" "L2:0=f$NL" "Invalid argument" "Unknown or unsupported resource name 'L2'"
bad_write "CDP names without CDP" "$S" "L3CODE:0=f$NL" "Invalid argument" "Unknown or unsupported resource name 'L3CODE'"
bad_write "no colon" "$S" "L3$NL" "Invalid argument" "Missing ':'"
bad_write "no value" "$S" "L3:$NL" "Invalid argument" "Missing 'L3' value"
bad_write "no =" "$S" "L3:0$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "non-numeric id" "$S" "L3:x=f$NL" "Invalid argument" "Missing '=' or non-numeric domain"
bad_write "non-hex" "$S" "L3:0=fg$NL" "Invalid argument" "Non-hex character in the mask fg"
bad_write "empty mask" "$S" "L3:0=$NL" "Invalid argument" "Non-hex character in the mask "
bad_write "zero mask" "$S" "L3:0=0$NL" "Invalid argument" "Mask out of range"
bad_write "mask too wide" "$S" "L3:0=1ff$NL" "Invalid argument" "Mask out of range"
bad_write "non-contiguous" "$S" "L3:0=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
bad_write "non-contiguous 0x" "$S" "L3:1=0x81$NL" "Invalid argument" "The mask 81 has non-consecutive 1-bits"
bad_write "too few bits" "$S" "L3:0=1$NL" "Invalid argument" "Need at least 2 bits in the mask"
bad_write "duplicate domain" "$S" "L3:0=f;0=f0$NL" "Invalid argument" "Duplicate domain 0"
bad_write "duplicate over lines" "$S" "L3:1=f${NL}L3:1=f0$NL" "Invalid argument" "Duplicate domain 1"
bad_write "empty line" "$S" "L3:0=f${NL}${NL}L3:1=f$NL" "Invalid argument" "Missing ':'"
bad_write "just a newline" "$S" "$NL" "Invalid argument" "Missing ':'"
# The kernel has no message for an unknown domain: the status reads ok.
bad_write "unknown domain" "$S" "L3:2=f$NL" "Invalid argument" "ok"
# Without the trailing newline the write fails before the status is cleared.
bad_write "set a status" "$S" "L3:0=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
bad_write "no trailing newline" "$S" "L3:0=f" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
# None of that changed anything.
check_file "$S" "    L3:0=f;1=3"

# All or nothing: a bad domain or line anywhere leaves every mask alone.
bad_write "good then bad domain" "$S" "L3:0=3;1=5$NL" "Invalid argument" "The mask 5 has non-consecutive 1-bits"
bad_write "good then bad line" "$S" "L3:0=3;1=c${NL}XX:0=1$NL" "Invalid argument" "Unknown or unsupported resource name 'XX'"
bad_write "good then unknown domain" "$S" "L3:0=3;7=c$NL" "Invalid argument" "ok"
check_file "$S" "    L3:0=f;1=3"
check_file "$MNT/g1/size" "    L3:0=8388608;1=4194304"

# The root group takes the same writes.
ok_write "root schemata" "$MNT/schemata" "L3:1=f0$NL"
check_file "$MNT/schemata" "    L3:0=ff;1=f0"
check_file "$MNT/info/L3/bit_usage" "0=SSSSSSSS;1=SSSS00SS"
stop_fs

# Sparse masks: allowed, and only the first run counts for min_cbm_bits.
start_fs --machine "topology=package:1 l3:1 core:2 pu:1;l3.closids=4;l3.cbm_len=8;l3.min_cbm_bits=2;l3.sparse=1;l3.cdp=0"
mkdir "$MNT/g1"
ok_write "sparse mask" "$MNT/g1/schemata" "L3:0=cc$NL"
check_file "$MNT/g1/schemata" "L3:0=cc"
bad_write "sparse, short first run" "$MNT/g1/schemata" "L3:0=c4$NL" "Invalid argument" "Need at least 2 bits in the mask"
check_file "$MNT/g1/schemata" "L3:0=cc"
stop_fs

finish
