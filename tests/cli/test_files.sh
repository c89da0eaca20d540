# SPDX-License-Identifier: LGPL-2.1-or-later
# test_files: files named on the command line. What rdtctl writes (map
# --svg) is never written through a symlink, into another user's file, a
# file with other links or something that is not a regular file, and the
# target is left as it was; what it reads (apply, info --cpuid) is refused
# at once when it is a FIFO, a directory or a device, never waited on.
. "$(dirname "$0")/lib.sh"

ok "a group" group create g --schema "L3:0=f;1=f"

# ---- map --svg: a symlink planted where it writes -------------------------------
printf 'precious\n' >"$TMP/target"
chmod 600 "$TMP/target"
ln -s "$TMP/target" "$TMP/map.svg"
failure "map --svg through a symlink" \
	"map: SVG file $TMP/map.svg is a symlink: rdtctl does not write through one" \
	map --svg "$TMP/map.svg"
expect_file_is() { if [ "$(cat "$2")" = "$3" ]; then pass; else fail "$1: $2 holds '$(head -c 80 "$2")'"; fi; }
expect_file_is "the symlink's target untouched" "$TMP/target" "precious"
# a hard link to someone's file
ln "$TMP/target" "$TMP/hard.svg"
failure "map --svg onto a file with another link" \
	"map: SVG file $TMP/hard.svg has other hard links: rdtctl overwrites only files of its own user with one link" \
	map --svg "$TMP/hard.svg"
expect_file_is "the linked file untouched" "$TMP/target" "precious"
# another user's file
if [ "$(id -u)" -eq 0 ]; then
	printf 'theirs\n' >"$TMP/theirs.svg"
	chown 65534 "$TMP/theirs.svg"
	failure "map --svg onto another user's file" \
		"map: SVG file $TMP/theirs.svg belongs to another user: rdtctl overwrites only files of its own user with one link" \
		map --svg "$TMP/theirs.svg"
	expect_file_is "their file untouched" "$TMP/theirs.svg" "theirs"
else
	skip_part "another user's file needs root to make"
fi
# a directory, a FIFO
mkdir "$TMP/dir.svg"
failure "map --svg onto a directory" "map: SVG file $TMP/dir.svg is a directory: rdtctl writes only regular files" \
	map --svg "$TMP/dir.svg"
mkfifo "$TMP/fifo.svg"
run_env timeout 10 "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	map --svg "$TMP/fifo.svg"
expect_rc 1 "map --svg onto a FIFO: refused, not blocked"
expect_err_has "map --svg onto a FIFO: said" "map: SVG file $TMP/fifo.svg is a FIFO (named pipe): rdtctl writes only regular files"
# a file of our own: written, and written again
ok "map --svg to a new file" map --svg "$TMP/new.svg"
if head -n 1 "$TMP/new.svg" | grep -q '^<?xml'; then pass; else fail "no SVG in $TMP/new.svg"; fi
printf 'old content that is longer than nothing\n' >"$TMP/own.svg"
ok "map --svg over an own file" map --svg "$TMP/own.svg"
if head -n 1 "$TMP/own.svg" | grep -q '^<?xml' && ! grep -q "old content" "$TMP/own.svg"; then
	pass; else fail "$TMP/own.svg was not replaced"; fi

# ---- reading: a FIFO without a writer, a directory, a device ----------------------
mkfifo "$TMP/fifo"
start=$(date +%s)
run_env timeout 10 "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	apply "$TMP/fifo"
expect_rc 1 "apply FIFO: refused"
expect_err_has "apply FIFO: said" "configuration $TMP/fifo is a FIFO (named pipe): give a regular file, or - and the data on standard input"
run_env timeout 10 "$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" \
	info --cpuid "$TMP/fifo"
expect_rc 1 "info --cpuid FIFO: refused"
expect_err_has "info --cpuid FIFO: said" "cpuid dump $TMP/fifo is a FIFO (named pipe), not a regular file"
# bounded below one timeout (10 s), so that a blocked read fails it, and far above
# what two refusals take on a loaded machine
if [ $(( $(date +%s) - start )) -le 8 ]; then pass; else fail "the FIFOs took $(( $(date +%s) - start )) s to refuse"; fi
failure "apply a directory" \
	"configuration $TMP is a directory: give a regular file, or - and the data on standard input" \
	apply "$TMP"
failure "apply a device" \
	"configuration /dev/zero is a device: give a regular file, or - and the data on standard input" \
	apply /dev/zero
failure "info --cpuid a directory" "cpuid dump $TMP is a directory, not a regular file" info --cpuid "$TMP"
# standard input stays: a pipe on -
run save
printf '%s\n' "$OUT" >"$TMP/conf"
run_env sh -c "cat '$TMP/conf' | '$RDTCTL' --backend sim --state-dir '$STATE' --machine '$MACHINE' apply -"
expect_rc 0 "apply - from a pipe"
finish
