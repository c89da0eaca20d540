# SPDX-License-Identifier: LGPL-2.1-or-later
# test_info: `rdtctl info` on this machine, `info --cpuid FILE` on recorded
# dumps (exact decoded capabilities) and `info --presets`.
. "$(dirname "$0")/lib.sh"
need_python

DATA=$(cd "$(dirname "$0")/../data/cpuid" && pwd)

# a look at a state directory that holds nothing creates nothing
rm -rf "$STATE"
for cmd in info "group list" "group show" "schema show" "task show default" "cpu show" \
	"cpu assoc" closids; do
	ok "$cmd on no state" $cmd
	if [ -e "$STATE" ]; then fail "$cmd created $STATE"; rm -rf "$STATE"; else pass; fi
done
ok "info on no state" info
expect_out_has "info says there is no state" "backend:  sim (backend 'sim' requested by the caller; no state in $STATE yet: a new one is shown, nothing is written)"
expect_out_has "info names the state it would use, and why" \
	"state:    $STATE/state.json (from --state-dir)"
run_env()
{
	env "$@" "$RDTCTL" --backend sim --machine "$MACHINE" info
}
OUT=$(run_env RDTALLOC_STATE_DIR="$STATE" 2>/dev/null)
expect_out_has "from the environment" "state:    $STATE/state.json (from \$RDTALLOC_STATE_DIR)"
OUT=$(env -u RDTALLOC_STATE_DIR "$RDTCTL" --backend sim --machine "$MACHINE" -j info 2>/dev/null)
# (root's default, where no state of the host's is: this look writes nothing)
if [ "$(id -u)" -eq 0 ] && [ ! -e /run/rdtalloc/sim/state.json ]; then
	json "the default, said so" "[d['backend']['state'], d['backend']['state_from']]" \
		'["/run/rdtalloc/sim/state.json", "the default for root and backend sim; --state-dir or $RDTALLOC_STATE_DIR for another"]'
fi
# no state: no id (the one of the state shown for the look is not the one it gets)
run info
expect_out_has "no id before the state is made" \
	"state:    no id yet (chosen when the state is made, by the first change)"
run -j info
json "-j: state_id null before the state is made" "d['backend']['state_id']" "null"
ok "the first change makes the state" group create first
if [ -f "$STATE/state.json" ]; then pass; else fail "no state after a change"; fi
run -j info
json "the id the state was made with" "d['backend']['state_id']" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$STATE/state.json")"
ok "group remove first" group remove first
# a state file cut short: what is wrong, where, and what to do - not json-c's "continue"
cp "$STATE/state.json" "$TMP/state.keep"
head -c 100 "$TMP/state.keep" >"$STATE/state.json"
failure "a damaged state file" "state file $STATE/state.json is damaged: it ends early at line 1 (byte 100 of 100); the library never writes such a file (a disk error, or an edit?): restore it, or remove it to start afresh (its groups are lost)" \
	info
# a document that is whole but no object, and a name that \u0000 would cut short
for doc in null 123 true; do
	printf '%s\n' "$doc" >"$STATE/state.json"
	failure "a state file of $doc" "state file $STATE/state.json is damaged: not a JSON object at line 1 (byte 0 of $((${#doc} + 1))); the library never writes such a file (a disk error, or an edit?): restore it, or remove it to start afresh (its groups are lost)" \
		info
done
sed 's/"rdtalloc-state"/"rdtalloc-state\\u0000x"/' "$TMP/state.keep" >"$STATE/state.json"
run info
expect_rc 1 "a state file with \\u0000 in a string"
expect_err_has "\\u0000 named" "a string holds \\u0000, which no name or value may at line"
cp "$TMP/state.keep" "$STATE/state.json"
# values the writer could not write back are refused on reading, naming the field
ok "a group for the reader's checks" group create seq
cp "$STATE/state.json" "$TMP/state.keep"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["regs"]["writes"] = [9223372036854775807, 0, 0]
json.dump(d, open(sys.argv[1], "w"))' "$STATE/state.json"
failure "a write counter of INT64_MAX" "state file $STATE/state.json: write counters are malformed" info
cp "$TMP/state.keep" "$STATE/state.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["next_seq"] = -1
json.dump(d, open(sys.argv[1], "w"))' "$STATE/state.json"
failure "next_seq -1" "state file $STATE/state.json: next_seq is malformed or not above every group's sequence number" \
	info
python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
d["next_seq"] = 5
d["groups"] = re.sub(r"^seq [0-9]+ ", "seq 7 ", d["groups"], flags=re.M)
json.dump(d, open(sys.argv[1], "w"))' "$STATE/state.json"
failure "a group numbered above next_seq" "state file $STATE/state.json: next_seq is malformed or not above every group's sequence number" \
	info
cp "$TMP/state.keep" "$STATE/state.json"
ok "the kept state reads" group remove seq

# reset --machine: a state made for another machine is made anew
run_raw --backend sim --state-dir "$STATE" --machine "preset=skylake-sp;tasks=virtual" info
expect_rc 1 "another machine is refused"
expect_err_has "says so" "was made for machine"
run_raw --backend sim --state-dir "$STATE" reset --machine "preset=skylake-sp;tasks=virtual"
expect_rc 0 "reset --machine replaces the state"
run_raw --backend sim --state-dir "$STATE" -j info
json "now the preset's machine" "d['cpus']" "96"
run_raw --backend sim --state-dir "$STATE" reset --machine "$MACHINE"
expect_rc 0 "and back"
ok "info" info
expect_out_has "info names the backend" "backend:  sim (backend 'sim' requested by the caller)"
ok "info -j" -j info
valid_json "info -j"
json "info -j backend" "d['backend']['name']" "sim"
json "info -j has the CPU vendor" "d['cpu']['vendor'] != ''" "true"

ok "cpuid of a Skylake-SP dump" -j info --cpuid "$DATA/intel-xeon-8160-skylake-sp.txt"
json "Skylake-SP vendor" "d['vendor']" "GenuineIntel"
json "Skylake-SP L3 CLOSIDs" "d['L3']['closids']" "16"
json "Skylake-SP L3 CBM" "d['L3']['cbm_len']" "11"
json "Skylake-SP L3 shareable" "d['L3']['shareable_bits']" "0x600"
json "Skylake-SP L3 CDP" "d['L3']['cdp']" "true"
json "Skylake-SP L3 sparse" "d['L3']['sparse']" "false"
json "Skylake-SP has no L2 CAT" "'L2' in d" "false"

ok "cpuid of this machine's own dump (a VM hiding allocation)" -j info --cpuid "$DATA/amd-zen4-vm.txt"
json "VM vendor" "d['vendor']" "AuthenticAMD"
json "VM: no allocation" "d['rdt_alloc']" "false"
json "VM: no resources" "d['resources']" "[]"

ok "cpuid human output" info --cpuid "$DATA/intel-xeon-8160-skylake-sp.txt"
expect_out_has "human L3 line" "  L3: 16 CLOSIDs, 11-bit CBM, shareable 0x600, CDP yes, contiguous masks"

failure "cpuid of a missing file" "cpuid dump $TMP/none: No such file or directory" \
	info --cpuid "$TMP/none"
printf 'this is not a dump\n' >"$TMP/bad.txt"
run info --cpuid "$TMP/bad.txt"
expect_rc 1 "cpuid of garbage"
expect_err_has "garbage names the line" "line 1"
usage "--cpuid and --presets together" "info: --cpuid and --presets do not go together" \
	info --cpuid "$TMP/bad.txt" --presets

ok "presets" -j info --presets
for p in haswell-ep broadwell-ep skylake-sp cascadelake-sp icelake-sp sapphirerapids-sp \
	amd-milan amd-genoa; do
	json "preset $p listed" "any(e['name'] == '$p' and e['source'] for e in d['presets'])" "true"
done

finish
