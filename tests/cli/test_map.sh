# SPDX-License-Identifier: LGPL-2.1-or-later
# test_map: rdtctl map - the way map of fixed states as text and JSON
# against golden files (tests/data/map/), colour only when asked for or on
# a terminal without NO_COLOR, the SVG through a real XML parser, CDP rows,
# exclusive groups, the errors, and that a look at a missing state creates
# nothing.
# RDTCTL_UPDATE_GOLDEN=1 rewrites the golden files from this rdtctl instead
# of comparing (review the diff before committing it).
. "$(dirname "$0")/lib.sh"

GOLDEN=$(cd "$(dirname "$0")/../data/map" && pwd) || exit 1
ESC=$(printf '\033')

# golden DESC FILE: stdout of the last command is exactly tests/data/map/FILE
golden()
{
	printf '%s\n' "$OUT" >"$TMP/got"
	if [ "${RDTCTL_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$TMP/got" "$GOLDEN/$2"
		pass
	elif cmp -s "$GOLDEN/$2" "$TMP/got"; then
		pass
	else
		fail "$1: stdout differs from tests/data/map/$2 (diff golden got below;" \
			"if the change is intended, rerun with RDTCTL_UPDATE_GOLDEN=1)"
		diff -u "$GOLDEN/$2" "$TMP/got" | head -40 >&2
	fi
}

# no_escapes DESC / has_escapes DESC: ANSI colour in stdout of the last command
no_escapes()
{
	case $OUT in
	*"$ESC"*) fail "$1: ANSI escapes in stdout" ;;
	*) pass ;;
	esac
}

has_escapes()
{
	case $OUT in
	*"$ESC["*m*) pass ;;
	*) fail "$1: no ANSI escapes in stdout" ;;
	esac
}

# run_tty VAR=VALUE... -- ARGS: rdt ARGS with stdout on a pseudo-terminal
run_tty()
{
	OUT=$(python3 - "$@" <<'EOF' 2>"$TMP/err"
import os, subprocess, sys
args = sys.argv[1:]
sep = args.index("--")
env = dict(os.environ)
env.pop("NO_COLOR", None)
for a in args[:sep]:
    k, v = a.split("=", 1)
    env[k] = v
master, slave = os.openpty()
p = subprocess.Popen(args[sep + 1:], stdout=slave, env=env)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
p.wait()
sys.stdout.write(out.decode())
sys.exit(p.returncode)
EOF
)
	RC=$?
	ERR=$(cat "$TMP/err")
	LAST="(on a terminal) $*"
}

need_python

# ---- a look creates nothing --------------------------------------------------

ok "map of a state that does not exist yet" map
if [ -z "$(ls -A "$STATE")" ]; then pass; else
	fail "map created files in the state directory"; fi
golden "fresh: all-ones default" fresh.txt

# ---- a fixed state: text and JSON ---------------------------------------------

ok "default" schema set default 'L3:0=3ff;1=ff000'
ok "p1" group create p1 --schema 'L3:0=f8000;1=f0000'
ok "p2" group create p2 --schema 'L3:0=7c00;1=ff'
ok "p3 shares p2's CLOSID" group create p3 --schema 'L3:0=7c00;1=ff'
ok "map" map
golden "text map (auto, not a terminal)" map.txt
no_escapes "stdout is a file"
ok "map --color=never" map --color=never
golden "text map --color=never" map.txt
ok "map -j" -j map
golden "JSON map" map.json
valid_json "map -j"
json "groups in creation order" '[g["name"] for g in d[0]["groups"]]' '["default", "p1", "p2", "p3"]'
json "p1's ways on cache 0" 'd[0]["groups"][1]["ways"]' '[15, 16, 17, 18, 19]'
json "unused ways on cache 1" 'd[1]["unused"]' '[8, 9, 10, 11]'
json "summary of cache 1" 'd[1]["summary"]' '{"exclusive": 0, "free": 4, "shared": 0, "used": 16}'
json "no code_mask without CDP" '"code_mask" in d[0]["groups"][0]' 'false'
json "bytes: size / cbm_len * ways, dividing first as the kernel does" 'd[0]["groups"][0]["bytes"]' '8388600'
ok "map L3 --domain 1" map L3 --domain 1
golden "one domain" domain1.txt
ok "resource name in any case, --domain=N" map l3 --domain=1
golden "map l3 --domain=1" domain1.txt
ok "map --domain 1 (every cache resource)" map --domain 1
golden "map --domain 1" domain1.txt
ok "-j after the command" map --domain 1 -j
json "only cache id 1" '[x["cache_id"] for x in d]' '[1]'

# ---- colour ----------------------------------------------------------------------

ok "map --color=always" map --color=always
has_escapes "--color=always to a file"
if [ "$(printf '%s\n' "$OUT" | sed "s/$ESC\\[[0-9;]*m//g")" = "$(cat "$GOLDEN/map.txt")" ]; then
	pass; else fail "--color=always without its escapes is not the plain map"; fi
run_env NO_COLOR=1 "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	map --color=always
has_escapes "--color=always wins over NO_COLOR"
run_env NO_COLOR=1 "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	map --color=auto
expect_rc 0 "NO_COLOR=1 --color=auto"
no_escapes "NO_COLOR=1 --color=auto"
run_tty -- "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" map
expect_rc 0 "map on a terminal"
has_escapes "auto on a terminal"
run_tty NO_COLOR=1 -- "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	map --color=auto
expect_rc 0 "NO_COLOR=1 on a terminal"
no_escapes "NO_COLOR=1 --color=auto on a terminal"
run_tty NO_COLOR= -- "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" map
has_escapes "an empty NO_COLOR is unset"
run_tty -- "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	map --color=never
no_escapes "--color=never on a terminal"

# ---- SVG -----------------------------------------------------------------------

# svg_check DESC FILE ROWS CBM_LEN: FILE parses as SVG with ROWS group rows of CBM_LEN ways
svg_check()
{
	s_got=$(python3 - "$2" <<'EOF' 2>&1
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg", root.tag
w, h = float(root.get("width")), float(root.get("height"))
rects = list(root.iter(ns + "rect"))
ways = [r for r in rects if r.get("class") == "way"]
for r in rects:
    assert float(r.get("x")) + float(r.get("width")) <= w, "rect right of the width"
    assert float(r.get("y")) + float(r.get("height")) <= h, "rect below the height"
texts = list(root.iter(ns + "text"))
legend = [t for t in texts if t.get("class") == "legend"]
print(len(ways), len([r for r in rects if r.get("class") == "legend"]) >= 2, len(legend) >= 2,
      " ".join(t.text for t in texts if t.get("class") == "group"))
EOF
)
	if [ "$s_got" = "$3" ]; then pass; else
		fail "$1: the SVG gives '$s_got', wanted '$3'"; fi
}

ok "map --svg" map --svg "$TMP/map.svg"
golden "--svg prints the text map too" map.txt
svg_check "SVG: 4 groups x 2 domains x 20 ways" "$TMP/map.svg" \
	"160 True True default p1 p2 p3 default p1 p2 p3"
if head -1 "$TMP/map.svg" | grep -q '^<?xml version="1.0"'; then pass; else
	fail "SVG: no XML declaration"; fi
ok "map -q --svg" -q map L3 --domain 0 --svg "$TMP/one.svg"
expect_empty_out "-q --svg prints nothing"
svg_check "SVG of one domain" "$TMP/one.svg" "80 True True default p1 p2 p3"
failure "--svg into a missing directory" \
	"cannot write map: SVG file $TMP/none/x.svg: No such file or directory" \
	map --svg "$TMP/none/x.svg"

# ---- errors ---------------------------------------------------------------------

failure "a resource the machine lacks" \
	"resource 'L2' is not available on this machine (have L3)" map L2
failure "--domain that does not exist" "L3 cache id 7 does not exist (have 0,1)" \
	map L3 --domain 7
failure "--domain that no cache has" "L3 cache id 7 does not exist (have 0,1)" \
	map --domain 7
usage "a bad --color" "map: --color 'blue': use auto, always or never" map --color=blue
usage "--color without a value" "map: option '--color' needs a value" map --color
usage "a bad --domain" "map: --domain 'x' is not a cache id" map --domain x
usage "a negative --domain" "map: --domain '-1' is not a cache id" map --domain -1
SYNOPSIS='map [RESOURCE] [--domain N] [--color=auto|always|never] [--svg FILE]'
usage "two resources" "unexpected argument 'L2': usage: rdtctl $SYNOPSIS" map L3 L2
usage "an unknown flag" "map: unknown option '--bogus'" map --bogus

# ---- exclusive groups: marked, and counted in the summary ----------------------

ok "reset" reset
ok "default off the exclusive ways" schema set default 'L3:0=ff;1=ff'
ok "rt exclusive" group create rt --schema 'L3:0=f00;1=f000' --exclusive
ok "batch shareable" group create batch --schema 'L3:0=f0;1=f0'
ok "map with an exclusive group" map --color=never
golden "text map with an exclusive group" exclusive.txt
expect_out_has "exclusive row" "  rt              |........####........|  0x00f00   4 ways  3.2 MiB  exclusive"
expect_out_has "exclusive summary" "  used 12, shared with I/O 0, free 8, exclusive 4"
ok "map -j with an exclusive group" -j map
json "exclusive flags" '[g["exclusive"] for g in d[0]["groups"]]' '[false, true, false]'
json "exclusive ways" 'd[1]["summary"]["exclusive"]' '4'

# ---- CDP: a data and a code row per group ---------------------------------------

ok "reset" reset
ok "cdp on" cdp L3 on
ok "CDP default" schema set default 'L3:0=ff,f0;1=30,30'
ok "CDP c1" group create c1 --schema 'L3:0=f00,ff000;1=3,c'
ok "map with CDP" map --color=never
golden "CDP text map" cdp.txt
expect_out_has "CDP: data row" "  c1 (data)       |........####........|  0x00f00   4 ways  3.2 MiB"
expect_out_has "CDP: code row" "  c1 (code)       |########............|  0xff000   8 ways  6.4 MiB"
ok "map -j with CDP" -j map
golden "CDP JSON map" cdp.json
json "code_mask" 'd[0]["groups"][1]["code_mask"]' '0xff000'
json "code_ways" 'd[1]["groups"][1]["code_ways"]' '[2, 3]'
json "data and code both count as used" 'd[1]["summary"]' '{"exclusive": 0, "free": 14, "shared": 0, "used": 6}'
ok "map --svg with CDP" -q map --svg "$TMP/cdp.svg"
svg_check "SVG with CDP: 2 rows per group" "$TMP/cdp.svg" \
	"160 True True default (data) default (code) c1 (data) c1 (code) default (data) default (code) c1 (data) c1 (code)"

# ---- a preset with a known cache size and shareable ways ------------------------

MACHINE='preset=skylake-sp;tasks=virtual'
STATE=$TMP/skylake
mkdir -m 700 "$STATE" || exit 1
ok "skylake-sp: L3 size" info
expect_out_has "skylake-sp: 33 MiB L3 per socket" "  0          0-47             33792 KiB            1 of 16"
expect_out_has "skylake-sp: shareable" "  shareable bits: 0x600"
ok "skylake default" schema set default 'L3:0=7;1=7ff'
ok "skylake db" group create db --schema 'L3:0=78;1=7f0'
ok "skylake web on the shareable ways" group create web --schema 'L3:0=600'
ok "skylake map" map
golden "skylake-sp text map" skylake.txt
expect_out_has "shareable row" "  shareable (I/O) |ss.........|  0x600"
expect_out_has "unused row" "  unused          |..uu.......|  0x180"
expect_out_has "summary" "  used 9, shared with I/O 2, free 2, exclusive 0"
ok "skylake map -j" -j map
golden "skylake-sp JSON map" skylake.json
json "shareable_bits" 'd[0]["shareable_bits"]' '0x600'
json "cache_size" 'd[0]["cache_size"]' '34603008'
json "bytes of 3 of 11 ways of 33 MiB" 'd[0]["groups"][0]["bytes"]' '9437184'
json "unused on cache 0" 'd[0]["unused"]' '[7, 8]'
json "MB is not drawn" '[x["resource"] for x in d]' '["L3", "L3"]'
failure "MB" "map: MB has no ways to draw" map MB
failure "mb, any case" "map: MB has no ways to draw" map mb

finish
