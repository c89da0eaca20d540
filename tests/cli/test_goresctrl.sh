# SPDX-License-Identifier: LGPL-2.1-or-later
# test_goresctrl: rdtctl apply --format goresctrl. The example of
# goresctrl's documentation resolved (--dry-run prints the groups and
# schemas, and changes nothing), applied as one configuration (-j shows
# the configuration it resolved to), applied again (no change); a bad file
# is refused with a message naming the partition and the value, and
# changes nothing; a bad --format is a usage error.
. "$(dirname "$0")/lib.sh"
need_python

# expect_out_block DESC TEXT: TEXT, lines and all, is a part of stdout
# (expect_out_contains gives grep -F a pattern per line: any one line passes)
expect_out_block()
{
	case "$OUT" in
	*"$2"*) pass ;;
	*) fail "$1: this block is not on stdout: $2" ;;
	esac
}

MACHINE="$MACHINE_VIRT;mb.closids=8;mb.min=10;mb.gran=10"
cat >"$TMP/rdt.yaml" <<'YAML'
options:
  l2:
    optional: true
  l3:
    optional: true
  mb:
    optional: true
partitions:
  exclusive:
    l3Allocation: "60%"
    mbAllocation: ["100%"]
    classes:
      Guaranteed:
        l3Allocation: "100%"
  shared:
    l3Allocation: "40%"
    mbAllocation: ["50%"]
    classes:
      Burstable:
        l3Allocation: "100%"
        mbAllocation: ["100%"]
      BestEffort:
        l3Allocation: "50%"
        mbAllocation: ["50%"]
YAML

run apply --format goresctrl --dry-run "$TMP/rdt.yaml"
expect_rc 0 "dry run"
expect_out_block "the resolved groups" "$(printf 'group BestEffort\t# partition shared\n\tschema L3:0=f000;1=f000\n\tschema MB:0=25;1=25')"
expect_out_contains "the verdict" "$TMP/rdt.yaml is valid: applying it would make 6 changes"
run group list
expect_out "a dry run changes nothing" "default"
run -j apply --format goresctrl "$TMP/rdt.yaml"
expect_rc 0 "apply"
json "the configuration it resolved to" "d['configuration'].count('\\ngroup ')" '3'
json "six changes" "d['changes']" '6'
run schema show Guaranteed
expect_out "Guaranteed: exclusive's 12 bits" "$(printf 'L3:0=00fff;1=00fff\nMB:0=100;1=100')"
run schema show BestEffort
expect_out "BestEffort: half of shared's, MB rounded up to the step" "$(printf 'L3:0=0f000;1=0f000\nMB:0=30;1=30')"
run apply --format goresctrl "$TMP/rdt.yaml"
expect_out "applied again: nothing to do" "applied $TMP/rdt.yaml: 0 changes"

# export: the state as a goresctrl configuration, which reads back to the same schemas
run schema set Burstable "L3:1=ff0"
run save --format goresctrl
expect_rc 0 "save --format goresctrl"
printf '%s\n' "$OUT" >"$TMP/saved.yaml"
expect_out_block "a class per group, its masks as they are" "$(printf '      Burstable:\n        l3Allocation:\n          "0": "0xff000"\n          "1": "0xff0"')"
expect_out_contains "the default group is the root class" "      system/default:"
run apply --format goresctrl "$TMP/saved.yaml"
expect_out "read back: the same schemas" "applied $TMP/saved.yaml: 0 changes"
run schema set Burstable "L3:1=ff000"
fails 2 "save --tasks as goresctrl" "save: --tasks and --format goresctrl: a goresctrl configuration has no tasks (the runtime places them)" \
	save --tasks --format goresctrl
fails 2 "save --format unknown" "save: --format 'yaml': use rdtalloc or goresctrl" save --format yaml

sed 's/"40%"/"50%"/' "$TMP/rdt.yaml" >"$TMP/bad.yaml"
fails 1 "over 100%" "goresctrl configuration: accumulated L3 \"unified\" partition allocation requests for cache id 0 exceed 100% (110%)" \
	apply --format goresctrl "$TMP/bad.yaml"
sed 's/l3Allocation: "50%"/l3Allocation: "0xf0f"/' "$TMP/rdt.yaml" >"$TMP/bad2.yaml"
fails 1 "a mask with a hole" "goresctrl configuration: class BestEffort, l3Allocation: invalid cache bitmask \"0xf0f\": more than one continuous block of ones" \
	apply --format goresctrl "$TMP/bad2.yaml"
run group list
expect_out "refused files change nothing" "$(printf 'default\nGuaranteed\nBurstable\nBestEffort')"
fails 2 "unknown format" "apply: --format 'json': use rdtalloc or goresctrl" \
	apply --format json "$TMP/rdt.yaml"

# goresctrl's own doc/rdt.md: an empty class is every default (not "not a map");
# DEFAULT is an ordinary class (goresctrl's root class is "system/default" or ""
# alone), so a file with both is one goresctrl takes, and DEFAULT is a group
cat >"$TMP/doc.yaml" <<'YAML'
partitions:
  default:
    l3Allocation: "100%"
    classes:
      guaranteed:
      DEFAULT:
        l3Allocation: "50%"
      system/default:
        l3Allocation: "100%"
YAML
run apply --format goresctrl --dry-run "$TMP/doc.yaml"
expect_rc 0 "an empty class, DEFAULT and system/default"
expect_out_block "the empty class: its partition's ways" "$(printf 'group guaranteed	# partition default
	schema L3:0=fffff;1=fffff')"
expect_out_block "DEFAULT: a group of its own" "$(printf 'group DEFAULT	# partition default
	schema L3:0=3ff;1=3ff')"
expect_out_block "system/default: the default group" "$(printf 'group default	# partition default
	schema L3:0=fffff;1=fffff')"
# "" and system/default are one class: given twice
cat >"$TMP/twice.yaml" <<'YAML'
partitions:
  default:
    l3Allocation: "100%"
    classes:
      system/default:
      "":
YAML
fails 1 "the root class and its alias" \
	"goresctrl configuration: class names must be unique: \"\" is given twice" \
	apply --format goresctrl --dry-run "$TMP/twice.yaml"
# applied, it reads back, and the hook places a container of class DEFAULT in it
STATE=$TMP/state-default
mkdir -m 700 "$STATE"
ok "DEFAULT applied" apply --format goresctrl "$TMP/doc.yaml"
run save --format goresctrl
printf '%s\n' "$OUT" >"$TMP/default-saved.yaml"
expect_out_contains "DEFAULT saved as itself" "      DEFAULT:"
ok "DEFAULT read back" apply --format goresctrl "$TMP/default-saved.yaml"
expect_out "DEFAULT read back: no change" "applied $TMP/default-saved.yaml: 0 changes"
spawn sleep 60
printf '{"ociVersion": "1.0.2", "id": "d1", "pid": %d, "annotations": {"io.kubernetes.cri.rdt-class": "DEFAULT"}}' \
	"$SPAWNED" >"$TMP/d1.json"
rdt oci-hook createRuntime <"$TMP/d1.json" >"$TMP/out" 2>"$TMP/err"
RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err") LAST="rdtctl oci-hook createRuntime"
expect_rc 0 "a container of class DEFAULT placed"
run task show DEFAULT
expect_out "in the group DEFAULT" "$SPAWNED"
rdt oci-hook poststop <"$TMP/d1.json" >/dev/null 2>&1
# a class's kubernetes options: the hook refuses the class from the annotation
# kind it denies, and save writes them back
cat >"$TMP/deny.yaml" <<'YAML'
partitions:
  p:
    l3Allocation: "100%"
    classes:
      gold:
        l3Allocation: "50%"
        kubernetes:
          denyPodAnnotation: true
      silver:
        kubernetes:
          denyContainerAnnotation: true
YAML
ok "a file with kubernetes options applied" apply --format goresctrl --prune "$TMP/deny.yaml"
hook_run()
{
	printf '{"ociVersion": "1.0.2", "id": "%s", "pid": %d, "annotations": {%s}}' "$1" \
		"$SPAWNED" "$2" >"$TMP/k.json"
	rdt oci-hook createRuntime <"$TMP/k.json" >"$TMP/out" 2>"$TMP/err"
	RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err") LAST="rdtctl oci-hook createRuntime ($2)"
}
snapshot "$TMP/before-deny"
hook_run k1 '"rdt.resources.beta.kubernetes.io/pod": "gold"'
expect_rc 1 "gold from the pod's annotation"
expect_err_has "gold: denied, named" "container k1: RDT class 'gold' is not allowed from pod annotations (annotation rdt.resources.beta.kubernetes.io/pod): the goresctrl configuration applied gives the class kubernetes.denyPodAnnotation"
hook_run k2 '"io.kubernetes.cri.rdt-class": "silver"'
expect_rc 1 "silver from the container's annotation"
unchanged "refused containers change nothing" "$TMP/before-deny"
hook_run k3 '"io.kubernetes.cri.rdt-class": "gold"'
expect_rc 0 "gold from the container's annotation"
run task show gold
expect_out "k3 in gold" "$SPAWNED"
rdt oci-hook poststop <"$TMP/k.json" >/dev/null 2>&1
run save --format goresctrl
printf '%s\n' "$OUT" >"$TMP/deny-saved.yaml"
expect_out_block "the options saved" "$(printf '      gold:\n        l3Allocation:\n          "0": "0x3ff"\n          "1": "0x3ff"\n        mbAllocation:\n          "0": ["100%%"]\n          "1": ["100%%"]\n        kubernetes:\n          denyPodAnnotation: true')"
expect_out_block "silver's saved" "$(printf '        kubernetes:\n          denyContainerAnnotation: true')"
ok "the saved file read back" apply --format goresctrl "$TMP/deny-saved.yaml"
hook_run k4 '"rdt.resources.beta.kubernetes.io/pod": "gold"'
expect_rc 1 "read back, gold is still denied from the pod's annotation"
# the state file's record of them is checked when read
cp -a "$STATE" "$TMP/state-badpolicy"
sed -i 's/"deny_pod_annotation":true/"deny_pod_annotation":1/' "$TMP/state-badpolicy/state.json"
STATE=$TMP/state-badpolicy
# a damaged section is kept aside with a warning; the rest of the state works (issue 41.1)
ok "a malformed class_policy: the rest works" group list
expect_out_contains "a malformed class_policy: the groups listed" "gold"
expect_err_has "a malformed class_policy: named" "rdtctl: warning: state file \
$TMP/state-badpolicy/state.json: member \"class_policy\" could not be read (damaged, or \
written by a newer version): kept aside as it was, the rest of the state works"
STATE=$TMP/state
# an error found once the file is resolved names the class and partition, not a line of ours
for g in Guaranteed Burstable BestEffort; do run group remove "$g"; done
run schema set default "L3:0=0ffff;1=0ffff"
run group create rt --schema "L3:0=f0000;1=f0000" --exclusive
expect_rc 0 "an exclusive group"
cat >"$TMP/over.yaml" <<'YAML'
partitions:
  p:
    l3Allocation: "100%"
    classes:
      web:
        l3Allocation: "100%"
YAML
fails 1 "an overlap named by class" \
	"class web (partition p): L3 cache id 0: exclusive group rt (0xf0000) overlaps group web (0xfffff)" \
	apply --format goresctrl "$TMP/over.yaml"
run group remove rt

# AMD: MB in 1/8 GB/s. goresctrl writes no MB line for its percentages there
# (a class without mbAllocation is not capped either), and refuses a class
# that asks for MB unless MB is optional
STATE=$TMP/state-amd
MACHINE='preset=amd-milan;tasks=virtual'
mkdir -m 700 "$STATE"
run apply --format goresctrl --dry-run "$TMP/rdt.yaml"
expect_rc 0 "AMD, MB optional"
case $OUT in *"schema MB:"*) fail "an MB line on AMD: $OUT" ;; *) pass ;; esac
sed '/^options:/,/^partitions:/{/^partitions:/!d}' "$TMP/rdt.yaml" >"$TMP/mb-needed.yaml"
# an mba_MBps machine (mb.units=mbps): goresctrl's MBps values, each capped at its
# partition's; a class without mbAllocation gets the partition's
STATE=$TMP/state-mbps
MACHINE="$MACHINE_VIRT;mb.closids=8;mb.units=mbps"
mkdir -m 700 "$STATE"
cat >"$TMP/mbps.yaml" <<'YAML'
partitions:
  p:
    l3Allocation: "100%"
    mbAllocation: ["100%", "2000MBps"]
    classes:
      fast:
        mbAllocation: ["50%", "5000MBps"]
      slow:
        mbAllocation: ["50%", "500MBps"]
      free:
YAML
run apply --format goresctrl --dry-run "$TMP/mbps.yaml"
expect_rc 0 "MBps resolved"
expect_out_block "capped at the partition's" "$(printf 'group fast\t# partition p\n\tschema L3:0=fffff;1=fffff\n\tschema MB:0=2000;1=2000')"
expect_out_block "its own under it" "$(printf 'group slow\t# partition p\n\tschema L3:0=fffff;1=fffff\n\tschema MB:0=500;1=500')"
expect_out_block "none: the partition's" "$(printf 'group free\t# partition p\n\tschema L3:0=fffff;1=fffff\n\tschema MB:0=2000;1=2000')"
sed 's/, "2000MBps"//' "$TMP/mbps.yaml" >"$TMP/pct-only.yaml"
fails 1 "percent only on mba_MBps" \
	"goresctrl configuration: partition p, mbAllocation: missing 'MBps' value; required because mba_MBps is what this machine has" \
	apply --format goresctrl --dry-run "$TMP/pct-only.yaml"

# export with CDP: code and data per cache id (and unified, which goresctrl wants), read back
STATE=$TMP/state-cdp
MACHINE='preset=skylake-sp;tasks=virtual'
mkdir -m 700 "$STATE"
run cdp L3 on
run group create db --schema "$(printf 'L3CODE:0=ff;1=f0\nL3DATA:0=f;1=3')"
run save --format goresctrl
printf '%s\n' "$OUT" >"$TMP/cdp.yaml"
expect_out_block "code and data" "$(printf '          "0":\n            unified: "0xf"\n            code: "0xff"\n            data: "0xf"')"
run apply --format goresctrl "$TMP/cdp.yaml"
expect_out "CDP read back: the same schemas" "applied $TMP/cdp.yaml: 0 changes"
STATE=$TMP/state-amd
MACHINE='preset=amd-milan;tasks=virtual'
fails 1 "AMD, MB asked and not optional" \
	"goresctrl configuration: memory bandwidth allocation for Guaranteed is in percent, and MB on this machine is in 1/8 GB/s (AMD): goresctrl writes no MB line there (options.mb.optional: true allows that)" \
	apply --format goresctrl --dry-run "$TMP/mb-needed.yaml"

finish
