# SPDX-License-Identifier: LGPL-2.1-or-later
# test_demo: `rdtctl demo` runs with no set-up, keeps nothing on disk, tells
# example 7.2 of the 2016 resctrl patch set (then named rscctrl) and ends in the state the document describes.
. "$(dirname "$0")/lib.sh"

# no state directory, no machine: the demo brings its own
run_raw --state-dir "$TMP/never" demo
expect_rc 0 "demo"
if [ -e "$TMP/never" ]; then fail "demo wrote a state directory"; else pass; fi
expect_out_has "demo: the machine" "  L3 cache id 0: CPUs 0-1"
expect_out_has "demo: step 1 command" "\$ rdtctl schema set default 'L3:0=3ff;1=fffff'"
expect_out_has "demo: step 3 command" "\$ rdtctl schema set p1 'L3:0=f8000'"
expect_out_has "demo: step 4 command" "\$ rdtctl task bind p2 5678"
expect_out_has "demo: step 5 command" "\$ rdtctl schema set default 'MB:0=50'"
expect_out_has "demo: final register of cache 0" \
	"  L3 cache id 0: IA32_L3_QOS_MASK_0 = 0x3ff (refcount 1)"
expect_out_has "demo: cache 1 shared by three" \
	"  L3 cache id 1: IA32_L3_QOS_MASK_0 = 0xfffff (refcount 3)"
expect_out_has "demo: verdict" \
	"As in the patch set's document: three CLOSIDs with one reference each on cache 0,"
expect_out_has "demo: 1234 runs with p1's CLOSID" \
	"    CPU 0 <- task 1234 (p1)       runs with CLOSID 2, PQR_ASSOC written"
expect_out_has "demo: the same CLOSID again writes nothing" \
	"    CPU 1 <- task 4321 (default)  runs with CLOSID 0, PQR_ASSOC unchanged (no write)"
expect_out_has "demo: the schema's MB line under its L3 line" \
	"             MB:0=100;1=100"
expect_out_has "demo: a map after each step" "  the ways (rdtctl map):"
if [ "$(printf "%s\n" "$OUT" | grep -c '^  the ways (rdtctl map):$')" = 6 ]; then pass; else
	fail "demo: not six maps"; fi
expect_out_has "demo: the final map of cache 0, p1's row" \
	"      p1              |#####...............|  0xf8000   5 ways  4.0 MiB"
expect_out_has "demo: the final map of cache 0, its summary" \
	"      used 20, shared with I/O 0, free 0, exclusive 0"

if have_python; then
	run_raw -j demo
	expect_rc 0 "demo -j"
	json "demo: six steps" 'len(d["steps"])' '6'
	json "demo: the last step throttles the default group on socket 0" \
		'[c["closids"] for c in d["steps"][5]["closids"] if c["resource"] == "MB" and c["cache_id"] == 0][0][0]["mask"]' '50'
	json "demo: the last step's switches" \
		'[(s["cpu"], s["task"], s["group"], s["closid"]) for s in d["steps"][4]["switches"]]' \
		'[[0, 1234, "p1", 2], [0, 4321, "default", 0], [1, 5678, "p2", 1], [1, 4321, "default", 0]]'
	json "demo: nothing written before anything changed" \
		'[s["pqr_written"] for s in d["steps"][0]["switches"]]' '[false, false, false, false]'
	json "demo: cache 0 at the end" \
		'[(c["mask"], c["refcount"]) for c in d["steps"][4]["closids"][0]["closids"]]' \
		'[["0x3ff", 1], ["0x7c00", 1], ["0xf8000", 1]]'
	json "demo: step 1's map of cache 0, the default group's ways" \
		'[(r["name"], r["mask"]) for r in d["steps"][1]["map"][0]["groups"]]' \
		'[["default", "0x3ff"]]'
fi

finish
