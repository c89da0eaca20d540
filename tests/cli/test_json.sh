# SPDX-License-Identifier: LGPL-2.1-or-later
# test_json: every command with -j prints one JSON document that parses
# back with the right values; -p is JSON too; a failed command prints no
# JSON at all; -q prints nothing for changes.
. "$(dirname "$0")/lib.sh"
need_python

ok "-j group create" -j group create p1
valid_json "group create"
json "group create" 'd' '{"created": true, "group": "p1"}'
ok "-j group create --schema" -j group create p2 --schema 'L3:0=f0'
json "group create --schema" 'd["schema"]' 'L3:0=000f0;1=fffff'
ok "-j schema set" -j schema set p1 'L3:0=f8000'
json "schema set" 'd' '{"group": "p1", "schema": "L3:0=f8000;1=fffff"}'
ok "-j task bind" -j task bind p1 1234 99
json "task bind: the tasks ascending" 'd' '{"group": "p1", "tasks": [99, 1234]}'
ok "-j cpu bind" -j cpu bind p2 1-2
json "cpu bind" 'd' '{"cpulist": "1-2", "cpus": [1, 2], "group": "p2"}'

ok "-j group list" -j group list
json "group list" 'd' '["default", "p1", "p2"]'
ok "-j group show p1" -j group show p1
# bytes: the cache (16 MiB here) / CBM length (20) x set bits, as resctrl's size (the kernel divides first)
json "group show p1" 'd' '{"closids": [{"bytes": 4194300, "cache_id": 0, "closid": 2, "resource": "L3"}, {"bytes": 16777200, "cache_id": 1, "closid": 0, "resource": "L3"}], "cpulist": "", "cpus": [], "mask_owner": "user:admin", "mode": "shareable", "monitored": true, "name": "p1", "ntasks": 2, "owner": "user:admin", "rmid": 1, "schema": "L3:0=f8000;1=fffff", "tasks": [99, 1234]}'
ok "-j group show" -j group show
json "group show: every group" '[g["name"] for g in d]' '["default", "p1", "p2"]'
json "group show: default CPUs" 'd[0]["cpulist"]' '0,3'
ok "-j schema show" -j schema show
json "schema show" 'd[2]' '{"group": "p2", "schema": "L3:0=000f0;1=fffff"}'
ok "-j schema show p2" -j schema show p2
json "schema show p2" 'd["schema"]' 'L3:0=000f0;1=fffff'
ok "-j task show" -j task show
json "task show" 'd' '[{"group": "default", "ntasks": 0, "tasks": []}, {"group": "p1", "ntasks": 2, "owners": {"1234": "user:admin", "99": "user:admin"}, "tasks": [99, 1234]}, {"group": "p2", "ntasks": 0, "tasks": []}]'
ok "-j task show p1" -j task show p1
json "task show p1" 'd["tasks"]' '[99, 1234]'
ok "-j cpu show" -j cpu show
json "cpu show" '[(g["group"], g["cpulist"]) for g in d]' '[["default", "0,3"], ["p1", ""], ["p2", "1-2"]]'
ok "-j cpu show p2" -j cpu show p2
json "cpu show p2" 'd["cpus"]' '[1, 2]'
ok "-j closids" -j closids
json "closids domains" '[(t["resource"], t["cache_id"]) for t in d]' '[["L3", 0], ["L3", 1]]'
json "closids cache 0" 'd[0]["closids"]' '[{"closid": 0, "groups": ["default"], "mask": "0xfffff", "refcount": 1}, {"closid": 1, "groups": ["p2"], "mask": "0xf0", "refcount": 1}, {"closid": 2, "groups": ["p1"], "mask": "0xf8000", "refcount": 1}]'
json "closids cache 1" 'd[1]["closids"]' '[{"closid": 0, "groups": ["default", "p1", "p2"], "mask": "0xfffff", "refcount": 3}]'
ok "-j closids L3" -j closids L3
json "closids L3" 'len(d)' '2'

ok "-j info" -j info
json "info backend" 'd["backend"]["name"]' 'sim'
json "info reason is a line" 'len(d["backend"]["reason"]) > 0' 'true'
json "info cpus" 'd["cpus"]' '4'
json "info L3" '{k: v for k, v in d["resources"][0].items() if k != "domains"}' '{"cbm_len": 20, "cdp": false, "cdp_supported": true, "closids": 16, "hw_closids": 16, "min_cbm_bits": 1, "name": "L3", "shareable_bits": "0x0", "sparse": false}'
json "info domains" 'd["resources"][0]["domains"]' '[{"cache_id": 0, "cache_size": 16777216, "closids_in_use": 3, "cpus": "0-1", "foreign_ways": "0x0", "io_ways": "0x0", "ways": 0}, {"cache_id": 1, "cache_size": 16777216, "closids_in_use": 1, "cpus": "2-3", "foreign_ways": "0x0", "io_ways": "0x0", "ways": 0}]'

ok "-j save" -j save --tasks
json "save holds the configuration" '"group p1" in d["config"].splitlines()' 'true'
printf '%s' "$OUT" | python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["config"])' \
	>"$TMP/saved.conf"
ok "-j apply" -j apply "$TMP/saved.conf"
json "apply" 'd' '{"changes": 0, "dry_run": false, "file": "'"$TMP"'/saved.conf", "lines": [], "prune": false}'
ok "-j apply --dry-run" -j apply --dry-run "$TMP/saved.conf"
json "apply --dry-run" 'd["dry_run"]' 'true'

ok "-j group remove" -j group remove p2
json "group remove" 'd' '{"group": "p2", "removed": true}'
ok "-j reset" -j reset
json "reset: what it restored" 'd' '{"cdp": "", "reset": true, "schema": "L3:0=fffff;1=fffff"}'
ok "-j cdp on" -j cdp L3 on
json "cdp on" 'd' '{"cdp": true, "closids": 8, "resource": "L3"}'
ok "-j schema set with CDP" -j schema set default 'L3:0=ff,f0'
ok "-j closids with CDP" -j closids L3
json "closids with CDP has the code mask" 'd[0]["closids"][0]' '{"closid": 0, "code_mask": "0xf0", "groups": ["default"], "mask": "0xff", "refcount": 1}'
ok "-j cdp off" -j cdp L3 off
json "cdp off" 'd["cdp"]' 'false'

ok "-j demo" -j demo
valid_json "demo"
json "demo matches the rscctrl example" 'd["matches_rscctrl"]' 'true'

# -p: pretty, still one document
ok "-p group list" -p group list
valid_json "pretty"
if [ "$(printf '%s\n' "$OUT" | wc -l)" -gt 1 ]; then pass; else fail "-p spreads over lines"; fi

# failures print no JSON; -q prints nothing
run -j group remove nope
expect_rc 1 "-j failure"
expect_empty_out "-j failure prints nothing on stdout"
run -j schema set default 'L3:0=5'
expect_rc 1 "-j bad schema"
expect_empty_out "-j bad schema prints nothing on stdout"
run -j frob
expect_rc 2 "-j usage error"
expect_empty_out "-j usage error prints nothing on stdout"
ok "-j -q change" -j -q group create quiet
expect_empty_out "-j -q change prints nothing"
ok "-q still prints queries" -q -j group list
json "-q query" 'd' '["default", "quiet"]'

# a failed command with -j: its error is one JSON object on stderr, the exit status as without
jfails 1 "-j: a library error names its errno" "no group named 'nope'" ENOENT group show nope
jfails 2 "-j: a usage error is EINVAL" \
	"unknown command 'group frob' (one of: create, remove, mode, list, show, help)" EINVAL \
	group frob
printf 'x\n' >"$TMP/notjson"
jfails 1 "-j: an error of rdtctl's own has no errno" \
	"curve $TMP/notjson: not a profile document (rdtctl -j profile --trace: \"accesses\" and \"miss_ratio\")" \
	null plan --curve a="$TMP/notjson" --curve b="$TMP/notjson"
failure "without -j the same error is text" "no group named 'nope'" group show nope

finish
