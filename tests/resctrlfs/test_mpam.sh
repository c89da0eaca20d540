# SPDX-License-Identifier: LGPL-2.1-or-later
# mpam: an Arm MPAM system as Linux 7.1's resctrl shows it (arm-mpam):
# non-contiguous masks, shareable_bits the whole mask so that no group can
# be exclusive and bit_usage shows only X and H, MB in percent without
# thread_throttle_mode, llc_occupancy the only event, no CDP, no mba_MBps.
. "$(dirname "$0")/lib.sh"

NL='
'
M="preset=arm-mpam;topology=package:1 l3:1 core:4 pu:1"
start_fs --machine "$M"
check_file "$MNT/info/L3/sparse_masks" "1"
check_file "$MNT/info/L3/shareable_bits" "ffff"
check_file "$MNT/info/L3/cbm_mask" "ffff"
check_file "$MNT/info/L3/num_closids" "64"
check "MB info" "bandwidth_gran delay_linear min_bandwidth num_closids" "$(names "$MNT/info/MB")"
check_file "$MNT/info/MB/min_bandwidth" "1"
check_file "$MNT/info/MB/bandwidth_gran" "1"
check_file "$MNT/info/L3_MON/mon_features" "llc_occupancy"
check_file "$MNT/info/L3_MON/num_rmids" "128"
check_file "$MNT/info/L3_MON/mbm_assign_mode" "[default]"
check "events" "llc_occupancy" "$(ls "$MNT/mon_data/mon_L3_00")"
mkdir "$MNT/g"
ok_write "sparse mask" "$MNT/g/schemata" "L3:0=f0f$NL"
ok_write "MB percent" "$MNT/g/schemata" "MB:0=55$NL"
check_file "$MNT/g/schemata" "MB:0=55${NL}L3:0=f0f"
bad_write "empty mask" "$MNT/g/schemata" "L3:0=0$NL" "Invalid argument" "Mask out of range"
bad_write "MB 0" "$MNT/g/schemata" "MB:0=0$NL" "Invalid argument" "MB value 0 out of range [1,100]"
# every way is shared with the hardware: exclusive is always refused
ok_write "one way" "$MNT/g/schemata" "L3:0=1$NL"
bad_write "exclusive" "$MNT/g/mode" "exclusive$NL" "Invalid argument" "Schemata overlaps"
check_file "$MNT/g/mode" "shareable"
ok_write "root to 3" "$MNT/schemata" "L3:0=3$NL"
check_file "$MNT/info/L3/bit_usage" "0=HHHHHHHHHHHHHHXX"
stop_fs

# no CDP, no mba_MBps (no MBM event)
refused_start "--cdp" - --machine "$M" --cdp
refused_start "mba_MBps" "rdtalloc-resctrlfs: --mba-mbps: mba_MBps requires MBM and linear scale MBA at L3 scope (give an Intel --mb)" --machine "$M" --mba-mbps

finish
