# SPDX-License-Identifier: LGPL-2.1-or-later
# test_docs: the error texts the documentation quotes are the ones rdtctl
# prints. docs/machine.md's "Errors" block and docs/config.md's "Errors"
# block, line by line, each against the input that makes it (in the
# block's order); "..." in a quoted text stands for a part left out.
. "$(dirname "$0")/lib.sh"

DOCS=$(cd "$(dirname "$0")/../../docs" && pwd)

# doc_block FILE HEADING: the lines of the first ``` block after HEADING
doc_block()
{
	awk -v h="$2" '
		$0 == h { seen = 1; next }
		seen && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }
	' "$1"
}

# same DESC QUOTED GOT: the quoted text is what was printed; "..." in a quote
# stands for a part left out (what comes before and after it must match)
same()
{
	case $2 in
	*...*)
		s_pre=${2%%...*}
		s_post=${2#*...}
		case $3 in
		"$s_pre"*"$s_post") pass ;;
		*) fail "$1: the docs quote '$2', rdtctl printed '$3'" ;;
		esac ;;
	*)
		if [ "$2" = "$3" ]; then pass; else
			fail "$1: the docs quote '$2', rdtctl printed '$3'"; fi ;;
	esac
}

# ---- docs/machine.md, "### Errors" -----------------------------------------------
T='topology=package:1 l3:1 core:2 pu:1'
cat >"$TMP/machines" <<EOF
$T;l3.foo=1
$T;l3.closids
$T;l3.closids=4;l3.closids=4
$T;l3.closids=abc
$T;l3.cbm_len=70
$T;l3.closids=5000
$T;l3.cbm_len=20;l3.min_cbm_bits=21
$T;l3.cbm_len=20;l3.shareable_bits=0x100000
$T;l3.closids=15;l3.cdp=1
$T;tasks=maybe
preset=pentium
topology=xx
topology=pu:5000
$T;l2.closids=4
topology=package:1 l3:1 l2:2 core:1 pu:1;l2.cbm_len=8
topology=package:1 core:2 pu:1
$T;mb.min=10
$T;l3.closids=16;mb.closids=32
$T;mb.closids=8;mb.units=percent;mb.max=200
topology=package:1 l2:1 l3:2 core:1 pu:1;l2.closids=4
$T;mon.assign=on
$T;mon.assign=mbm_event
$T;mon.cntrs=4;mon.events=llc_occupancy
$T;mon.cntrs=4;mon.snc=2
$T;mon.abmc=7.2
$T;mon.cntrs=4;mon.abmc=7.2;mb.closids=8;mb.units=mbps
$T;mon.snc=3
$T;mon.snc=2;mon.rmids=1
topology=package:1 l2:1 core:2 pu:1;l3.closids=0;l2.closids=4;l3.io_alloc=1
$T;pkg.events=power
$T;pkg.rmids=8
topology=l3:1 core:2 pu:1;pkg.events=energy
$T;arch=mpam
$T;arch=mpam;l3.cdp=0;l3.sparse=1
$T;arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff
$T;arch=mpam;l3.cdp=0;l3.sparse=1;l3.shareable_bits=0xfffff;mon.events=llc_occupancy;l3.io_alloc=1
EOF
doc_block "$DOCS/machine.md" "### Errors" >"$TMP/machine.quoted"
if [ "$(wc -l <"$TMP/machine.quoted")" -eq "$(wc -l <"$TMP/machines")" ]; then pass; else
	fail "machine.md quotes $(wc -l <"$TMP/machine.quoted") errors, this test makes" \
		"$(wc -l <"$TMP/machines")"; fi
n=0
while IFS= read -r desc; do
	n=$((n + 1))
	quoted=$(sed -n "${n}p" "$TMP/machine.quoted")
	mkdir -m 700 "$TMP/m$n"
	run_raw --backend sim --state-dir "$TMP/m$n" --machine "$desc" info
	expect_rc 1 "machine.md error $n"
	same "machine.md error $n" "$quoted" "$(printf '%s\n' "$ERR" | head -n 1 | sed 's/^rdtctl: //')"
done <"$TMP/machines"

# ---- docs/config.md, "## Errors" ---------------------------------------------------
# one configuration per quoted error, lines separated by '|'
cat >"$TMP/configs" <<'EOF'
group p|	schema L3:0=f|cpu 3
#|#|#|#|schema L3:0=f
group p|group a/b
#|#|#|group p1|#|#|#|#|group p1
#|#|#|#|group default|	cpus 1
group p|#|#|#|#|#|#|	cpus 3-1
#|#|#|#|group p1|	cpus 3|#|#|#|group p2|	cpus 3
group p|#|#|#|#|#|#|#|#|#|#|	tasks abc
#|#|#|#|#|group p1|	tasks 1234|#|#|#|#|#|group p2|	tasks 1234
#|#|group p|cdp L3 on
EOF
doc_block "$DOCS/config.md" "## Errors" >"$TMP/config.quoted"
if [ "$(wc -l <"$TMP/config.quoted")" -eq "$(wc -l <"$TMP/configs")" ]; then pass; else
	fail "config.md quotes $(wc -l <"$TMP/config.quoted") errors, this test makes" \
		"$(wc -l <"$TMP/configs")"; fi
n=0
while IFS= read -r conf; do
	n=$((n + 1))
	quoted=$(sed -n "${n}p" "$TMP/config.quoted")
	printf '%s\n' "$conf" | tr '|' '\n' >"$TMP/c$n.conf"
	run apply --dry-run "$TMP/c$n.conf"
	expect_rc 1 "config.md error $n"
	same "config.md error $n" "$quoted" "$(printf '%s\n' "$ERR" | head -n 1 | sed 's/^rdtctl: //')"
done <"$TMP/configs"

# ---- every command of rdtctl --help in rdtctl(1) and in the README's synopsis -----
ROOT=$(cd "$DOCS/.." && pwd)
run --help
expect_rc 0 "--help"
# the commands: "  WORD [VERB|VERB...]" lines of the Commands: part, verbs split on |
printf '%s\n' "$OUT" | awk '
	/^Commands:/ { on = 1; next }
	on && /^$/ { exit }
	on && /^  [a-z]/ {
		cmd = $1
		# a verb is one space after the command; a description is further out
		verbs = ($0 ~ /^  [a-z-]+ [a-z][a-zA-Z|-]*( |$)/) ? $2 : ""
		if (verbs == "") { print cmd; next }
		n = split(verbs, v, "|")
		for (i = 1; i <= n; i++) print cmd " " v[i]
	}' | sort -u >"$TMP/commands"
if [ "$(wc -l <"$TMP/commands")" -ge 30 ]; then pass; else
	fail "--help lists $(wc -l <"$TMP/commands") commands: $(tr '\n' ' ' <"$TMP/commands")"; fi
# the man page as text: fonts and escapes out
sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/"//g' "$DOCS/rdtctl.1" \
	| tr -s ' ' >"$TMP/man.txt"
# the README's synopsis: the first ``` block after "## rdtctl"
doc_block "$ROOT/README.md" "## rdtctl" >"$TMP/synopsis"
while IFS= read -r c; do
	w1=${c%% *}
	w2=${c#"$w1"}
	w2=${w2# }
	if [ -z "$w2" ]; then
		grep -Eq "^\.BR? $w1( |\$)|^\.BR? $w1 " "$TMP/man.txt" ||
		grep -Eq "^\.B[RI]? $w1\b" "$TMP/man.txt"
	else
		grep -Eq "^\.B[RI]? $w1 ([^ ]*\|)?$w2([ |]|\$)" "$TMP/man.txt"
	fi && pass || fail "rdtctl(1) has no entry for '$c' (an item .BR \"$c ...\")"
	if [ -z "$w2" ]; then
		grep -Eq "(^| |\|)$w1( |\$|\|)" "$TMP/synopsis"
	else
		grep -E "(^| |\|)$w1 " "$TMP/synopsis" | grep -Eq "[ |]$w2([ |]|\$)"
	fi && pass || fail "the README's synopsis has no '$c'"
done <"$TMP/commands"

finish
