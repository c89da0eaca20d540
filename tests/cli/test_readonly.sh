# SPDX-License-Identifier: LGPL-2.1-or-later
# test_readonly: commands that only look write nothing - no state made where
# there is none, no byte of an existing state, lock or directory changed -
# and a state that exists but cannot be read is an error, never an empty
# state (as another user, pointed at root's 0700 state directory).
. "$(dirname "$0")/lib.sh"

# Every command that only looks, one per line (words split by the shell).
LOOKS='info
info --presets
group list
group show
schema show
task show default
cpu assoc
closids L3
cgroup show
save
save --tasks
map
map L3 --domain 0
hook status
apply --dry-run CONF
apply --dry-run --prune CONF'

printf 'group g\n\tschema L3:0=3\n' >"$TMP/conf"

# listing DIR: every file with its size, mode and modification time
listing()
{
	if [ -d "$1" ]; then
		find "$1" -printf '%p %s %m %T@\n' | sort
	else
		echo "no $1"
	fi
}

# each_look DESC: run every look on $STATE; the directory must not change
each_look()
{
	printf '%s\n' "$LOOKS" | while IFS= read -r look; do
		listing "$STATE" >"$TMP/before"
		# shellcheck disable=SC2086
		run $(printf '%s' "$look" | sed "s|CONF|$TMP/conf|")
		listing "$STATE" >"$TMP/after"
		if cmp -s "$TMP/before" "$TMP/after"; then pass; else
			fail "$1: '$look' changed $STATE: $(diff "$TMP/before" "$TMP/after" | tr '\n' ' ')"
		fi
	done
}

# ---- no state yet: a look makes none --------------------------------------------
STATE=$TMP/none
each_look "no state directory"
if [ ! -e "$STATE" ]; then pass; else fail "a look made $STATE"; fi
STATE=$TMP/empty
mkdir -m 700 "$STATE"
each_look "an empty state directory"
if [ -z "$(ls -A "$STATE")" ]; then pass; else fail "a look left $(ls -A "$STATE") in $STATE"; fi
run info
expect_out_has "info says there is none" "backend:  sim (backend 'sim' requested by the caller; no state in $STATE yet: a new one is shown, nothing is written)"
run apply --dry-run "$TMP/conf"
expect_rc 0 "a dry run without a state"
expect_out "a dry run without a state: what it would do" "create group g
schema g L3:0=fffff;1=fffff -> L3:0=00003;1=fffff
$TMP/conf is valid: applying it would make 2 changes"

# ---- an existing state: not a byte changes -------------------------------------
STATE=$TMP/state
ok "a state" group create a --schema "L3:0=f;1=f0"
ok "a bound CPU" cpu bind a 1
each_look "an existing state"
run group create b
expect_rc 0 "a change still works after the looks"

# ---- a state that cannot be read is an error ------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip_part "another user's view needs root and setpriv"
else
	chmod 755 "$TMP"
	STATE=$TMP/state
	chmod 700 "$STATE"
	for look in "info" "group list" "schema show" "save" "cgroup show" "task show a" "map"; do
		# shellcheck disable=SC2086
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" $look \
			>"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc -eq 1 ]; then pass; else
			fail "another user's '$look' of root's state: exit $rc, wanted 1"; fi
		if [ ! -s "$TMP/out" ]; then pass; else
			fail "another user's '$look' printed a state: $(head -c 200 "$TMP/out")"; fi
		case $(cat "$TMP/err") in
		*"cannot read the state in $STATE (owned by uid 0, mode 0700): Permission denied"* | \
		*"state directory $STATE is owned by uid 0, not by the caller (uid 65534)"*) pass ;;
		*) fail "another user's '$look': $(cat "$TMP/err")" ;;
		esac
	done
fi

finish
