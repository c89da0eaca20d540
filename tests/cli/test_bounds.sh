# SPDX-License-Identifier: LGPL-2.1-or-later
# test_bounds: every reader rdtctl hands user text to has a bound, refused
# with a message naming it and changing nothing: schema text (64 KiB), CPU
# lists (64 KiB; numbers of any size), cpuid dumps (64 MiB, lines of 4096
# bytes, no byte that is not text); a dump that is a FIFO or a device
# (/dev/zero) is refused at once, without waiting for an end that never comes.
. "$(dirname "$0")/lib.sh"

# N bytes of character C
bytes()
{
	head -c "$1" /dev/zero | tr '\0' "$2"
}

# pad TEXT N: TEXT followed by blanks up to N bytes
pad()
{
	printf '%s' "$1"
	bytes $(($2 - ${#1})) ' '
}

ok "group create g" group create g
ok "cpu bind g 1" cpu bind g 1
ok "schema set g" schema set g "L3:0=ff;1=f0"
snapshot "$TMP/before"

# ---- schema text: 64 KiB -------------------------------------------------

SCHEMA_MSG="schema text is longer than 65536 bytes (64 KiB), the most a schema may be: give each domain once, one line per resource"
failure "100,000 bytes of 'f' as a schema" "$SCHEMA_MSG" \
	schema set g "$(bytes 100000 f)"
unchanged "the refused schema changed nothing" "$TMP/before"
failure "a valid schema one byte past the bound" "$SCHEMA_MSG" \
	schema set g "$(pad 'L3:0=f' 65537)"
unchanged "the refused schema changed nothing" "$TMP/before"
# two arguments are joined with a newline: the bound is on the joined text
failure "two SCHEMA arguments, 65,537 bytes joined" "$SCHEMA_MSG" \
	schema set g "$(pad 'L3:0=f' 32768)" "$(pad 'L3:1=f' 32768)"
unchanged "the refused schema changed nothing" "$TMP/before"
jfails 1 "-j: a schema past the bound fails, the message names the limit" "$SCHEMA_MSG" \
	E2BIG schema set g "$(bytes 100000 f)"
unchanged "the refused schema changed nothing" "$TMP/before"

ok "a schema of exactly 65,536 bytes is read" schema set g "$(pad 'L3:0=3' 65536)"
ok "schema show g" schema show g
expect_out "the schema at the bound was applied" "L3:0=00003;1=000f0"
ok "two SCHEMA arguments, 65,536 bytes joined" \
	schema set g "$(pad 'L3:0=ff' 32768)" "$(pad 'L3:1=f0' 32767)"
ok "schema show g" schema show g
expect_out "both lines applied" "L3:0=000ff;1=000f0"
snapshot "$TMP/before"

# an apply whose schema line is past the bound (blanks inside it, as a config
# trims the ends of a line): refused, nothing changes
{
	echo "group g"
	echo "schema $(pad 'L3:0=1' 65533);1=1"
} >"$TMP/long-schema.conf"
run apply "$TMP/long-schema.conf"
expect_rc 1 "apply of a schema past the bound"
expect_err_has "apply names the schema bound" "$SCHEMA_MSG"
unchanged "the refused apply changed nothing" "$TMP/before"

# ---- CPU lists: 64 KiB, numbers of any size -----------------------------

CPULIST_TAIL="is longer than 65536 bytes (64 KiB), the most a CPU list may be: give runs of CPUs as ranges (0-4095)"
usage "100,000 zeros as a CPU list" \
	"cpu bind: CPU list '$(bytes 47 0)...' $CPULIST_TAIL" \
	cpu bind g "$(bytes 100000 0)"
unchanged "the refused CPU list changed nothing" "$TMP/before"
usage "a valid CPU list one byte past the bound" \
	"cpu bind: CPU list '0-1$(bytes 44 ' ')...' $CPULIST_TAIL" \
	cpu bind g "$(pad '0-1' 65537)"
unchanged "the refused CPU list changed nothing" "$TMP/before"
usage "a range to 2^32-1" "cpu bind: CPU list '0-4294967295': CPU numbers must be below 4096" \
	cpu bind g 0-4294967295
usage "a number of 30 digits" \
	"cpu bind: CPU list '$(bytes 30 9)': CPU numbers must be below 4096" \
	cpu bind g "$(bytes 30 9)"
unchanged "the refused CPU lists changed nothing" "$TMP/before"
ok "a CPU list of exactly 65,536 bytes is read" cpu bind g "$(pad '2' 65536)"
ok "cpu show" -j cpu show
snapshot "$TMP/before"

# a config's cpus line goes through the same reader
{
	echo "group g"
	echo "cpus $(pad '1' 65535),2"
} >"$TMP/long-cpus.conf"
run apply "$TMP/long-cpus.conf"
expect_rc 1 "apply of a CPU list past the bound"
expect_err_has "apply names the CPU list bound" "$CPULIST_TAIL"
unchanged "the refused apply changed nothing" "$TMP/before"

# ---- cpuid dumps: 64 MiB, 4096 bytes a line, text only -------------------

LEAF0='   0x00000000 0x00: eax=0x0000000d ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69'
NOTTEXT='is not text (give the output of `cpuid -r`)'
BIGMSG='the most a dump may be (`cpuid -r` is about 7 KiB a CPU): give the dump of one machine'

# Every cpuid case runs under timeout(1): an endless input must be stopped by
# the reader, not by the end of the input.
if command -v timeout >/dev/null 2>&1; then T="timeout 30"; else T=""; fi

cpuid()
{
	$T "$RDTCTL" info --cpuid "$1" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	LAST="rdtctl info --cpuid $1"
}

# cpuid_fails DESC MESSAGE FILE: exit 1, exactly MESSAGE, nothing on stdout
cpuid_fails()
{
	cpuid "$3"
	expect_rc 1 "$1"
	if [ "$ERR" = "rdtctl: $2" ]; then pass; else fail "$1: stderr is not 'rdtctl: $2'"; fi
	if [ -z "$OUT" ]; then pass; else fail "$1: a failed command printed on stdout"; fi
}

cpuid_fails "cpuid of /dev/zero, refused as a device" \
	"cpuid dump /dev/zero is a device, not a regular file" /dev/zero

# a regular file past 64 MiB is refused on its size, unread (sparse, so cheap)
: >"$TMP/big.txt"
if truncate -s $((64 * 1024 * 1024 + 1)) "$TMP/big.txt" 2>/dev/null; then
	cpuid_fails "cpuid of a file of 64 MiB + 1" \
		"cpuid dump $TMP/big.txt is larger than 64 MiB, $BIGMSG" "$TMP/big.txt"
else
	pass
fi

# a FIFO whose writer never stops, and one without a writer: refused at once
mkfifo "$TMP/fifo"
spawn sh -c "{ echo 'CPU 0:'; echo '$LEAF0'; yes '# more'; } >'$TMP/fifo'"
cpuid_fails "cpuid of an endless FIFO of comments" \
	"cpuid dump $TMP/fifo is a FIFO (named pipe), not a regular file" "$TMP/fifo"
cleanup_children
mkfifo "$TMP/fifo2"
cpuid_fails "cpuid of a FIFO without a writer" \
	"cpuid dump $TMP/fifo2 is a FIFO (named pipe), not a regular file" "$TMP/fifo2"

# a control byte on line 3: refused, line named
{ echo 'CPU 0:'; echo "$LEAF0"; printf '   0x1\001\n'; } >"$TMP/ctl.txt"
cpuid_fails "cpuid of a dump with a control byte on line 3" \
	"cpuid dump $TMP/ctl.txt line 3: byte 0x01 at offset $((7 + ${#LEAF0} + 1 + 6)) $NOTTEXT" \
	"$TMP/ctl.txt"

# one line of 5000 bytes: refused after 4096
{ echo 'CPU 0:'; bytes 5000 f; echo; } >"$TMP/long.txt"
cpuid_fails "cpuid of a dump with a line of 5000 bytes" \
	"cpuid dump $TMP/long.txt line 2 is longer than 4096 bytes, the most a line may be: it is no line of \`cpuid -r\`" \
	"$TMP/long.txt"

printf 'CPU 0:\n\033[31mred\n' >"$TMP/esc.txt"
cpuid_fails "cpuid of a dump with an escape sequence" \
	"cpuid dump $TMP/esc.txt line 2: byte 0x1b at offset 7 $NOTTEXT" "$TMP/esc.txt"
# random bytes in a file: refused at the first control byte, or as no dump
head -c 100000 /dev/urandom >"$TMP/random.txt"
cpuid "$TMP/random.txt"
expect_rc 1 "cpuid of random bytes"
if printf '%s\n' "$ERR" | grep -Eq "^rdtctl: cpuid dump $TMP/random.txt line [0-9]+(: byte 0x[0-9a-f]{2} at offset [0-9]+ is not text| is longer than 4096 bytes|: cannot parse)"; then
	pass
else
	fail "random bytes: not refused as no text or no dump: $ERR"
fi

# a real dump still reads, from a file and as /dev/stdin redirected from one
DATA=$(cd "$(dirname "$0")/../data/cpuid" && pwd)
cpuid "$DATA/intel-xeon-8160-skylake-sp.txt"
expect_rc 0 "a recorded dump reads"
$T "$RDTCTL" info --cpuid /dev/stdin <"$DATA/intel-xeon-8160-skylake-sp.txt" >"$TMP/pipe.out" 2>&1
RC=$?
expect_rc 0 "a recorded dump reads as /dev/stdin"
if cmp -s "$TMP/out" "$TMP/pipe.out"; then pass; else fail "/dev/stdin decoded otherwise"; fi

finish
