# SPDX-License-Identifier: LGPL-2.1-or-later
# test_usage: rdtctl's own machinery - --version, --help, exit code 2 with a
# hint for every kind of usage error (and the state untouched), unique
# prefixes, flags after the command, "--", and the environment variables
# that stand in for the global options.
. "$(dirname "$0")/lib.sh"

run_raw --version
expect_rc 0 "--version"
if printf '%s\n' "$OUT" | grep -Eqx 'rdtctl [0-9]+\.[0-9]+\.[0-9]+ \(librdtalloc [0-9]+\.[0-9]+\.[0-9]+\)'; then
	pass; else fail "--version prints 'rdtctl <version> (librdtalloc <version>)'"; fi

run_raw --help
expect_rc 0 "--help"
expect_out_has "--help" "Usage: rdtctl [OPTIONS] COMMAND [ARGS]"
expect_out_has "--help lists apply" "  apply FILE|- [--prune] [--dry-run] [--missing-tasks=fail|skip] [--force-machine]"
run_raw -h
expect_rc 0 "-h"
expect_out_has "-h" "Usage: rdtctl [OPTIONS] COMMAND [ARGS]"
run_raw help
expect_rc 0 "help command"

ok "a first command creates the state" group create p1
snapshot "$TMP/before"

OBJS="info, group, schema, task, exec, cgroup, cpu, closids, cdp, save, apply, reset, hook, demo, map, monitor, sim, oci-hook, profile, trace, plan, control, sync, io-alloc, agent, help"
usage "no command" "no command given"
usage "unknown command" "unknown command 'frob' (one of: $OBJS)" frob
usage "ambiguous prefix" "'c' is ambiguous (one of: $OBJS)" c
usage "unknown long option" "unknown option '--frob'" --frob group list
usage "unknown short option" "unknown option '-x'" -x group list
run_raw --backend sim --state-dir
expect_rc 2 "--state-dir without a value"
expect_err_has "--state-dir without a value" "rdtctl: option '--state-dir' needs a value"

GV="create, remove, mode, list, show, help"
usage "object without verb" "group: missing command (one of: $GV)" group
usage "unknown verb" "unknown command 'group frob' (one of: $GV)" group frob
usage "ambiguous verb" "'schema s' is ambiguous (one of: set, show, help)" schema s
usage "missing name" "missing argument: usage: rdtctl group create NAME [--schema SCHEMA] [--exclusive [--force]]" \
	group create
usage "extra argument" "unexpected argument 'b': usage: rdtctl group create NAME [--schema SCHEMA] [--exclusive [--force]]" \
	group create a b
usage "flag without value" "group create: option '--schema' needs a value" \
	group create a --schema
usage "unknown verb flag" "group create: unknown option '--bogus'" group create a --bogus
usage "value on a plain flag" "task bind: option '--process' takes no value" \
	task bind p1 1 --process=1
usage "schema set needs a schema" "missing argument: usage: rdtctl schema set GROUP SCHEMA..." \
	schema set p1
usage "group show takes one name" "unexpected argument 'b': usage: rdtctl group show [NAME] [--all]" \
	group show a b
usage "info takes nothing" "unexpected argument 'x': usage: rdtctl info [--cpuid FILE | --presets]" info x
usage "save takes nothing" "unexpected argument 'x': usage: rdtctl save [--tasks] [--format rdtalloc|goresctrl]" save x
usage "reset takes nothing" "unexpected argument 'x': usage: rdtctl reset [--machine DESC]" reset x
usage "apply needs a file" \
	"missing argument: usage: rdtctl apply FILE|- [--prune|--prune-all] [--dry-run] [--missing-tasks=fail|skip] [--force-machine] [--format rdtalloc|goresctrl] [--name NAME]" apply

# malformed arguments rdtctl itself parses
usage "task id not a number" "task bind: 'abc' is not a task id (a number > 0)" task bind p1 abc
usage "task id 0" "task bind: '0' is not a task id (a number > 0)" task bind p1 0
usage "negative task id" "task bind: '-1' is not a task id (a number > 0)" task bind p1 -1
usage "task id too large" "task bind: '99999999999' is not a task id (a number > 0)" \
	task bind p1 5 99999999999
usage "task bind without tids" "missing argument: usage: rdtctl task bind GROUP TID... [--process]" \
	task bind p1
usage "reversed CPU range" "cpu bind: CPU list '3-1': range is reversed" cpu bind p1 3-1
usage "CPU list garbage" "cpu bind: CPU list 'x': not a CPU number or a range a-b" cpu bind p1 x
usage "CPU list empty entry" "cpu bind: CPU list '1,,2': empty entry" cpu bind p1 1,,2
usage "CPU number too large" "cpu bind: CPU list '5000': CPU numbers must be below 4096" \
	cpu bind p1 5000
usage "cdp value" "cdp: 'maybe' is not on or off" cdp L3 maybe
usage "cdp needs a value" "missing argument: usage: rdtctl cdp RESOURCE on|off" cdp L3

unchanged "usage errors change nothing" "$TMP/before"

# unique prefixes, exact names, and output flags after the command
ok "prefixes" gr li
expect_out "prefixes" "default
p1"
ok "prefix of a verb" group sh p1
expect_out_has "prefix of a verb" "group p1"
if have_python; then
	ok "-j after the command" group list -j
	json "-j after the command" 'd' '["default", "p1"]'
fi
ok "-q after the command" group create p2 -q
expect_empty_out "-q after the command"

# "--" ends the options: a group named -x
ok "-- before a name starting with '-'" group create -- -x
ok "group list" group list
expect_out "group named -x" "default
p1
p2
-x"
ok "remove -x" group remove -- -x

# the environment stands in for the global options
run_env RDTALLOC_BACKEND=sim RDTALLOC_STATE_DIR="$STATE" RDTALLOC_MACHINE="$MACHINE" \
	"$RDTCTL" group create fromenv
expect_rc 0 "environment instead of flags"
ok "list after env" group list
expect_out_has "group created through the environment" "fromenv"
run_env RDTALLOC_STATE_DIR="$TMP/nowhere" "$RDTCTL" --backend sim --state-dir "$STATE" \
	--machine "$MACHINE" group list
expect_rc 0 "--state-dir wins over RDTALLOC_STATE_DIR"
expect_out_has "--state-dir wins over RDTALLOC_STATE_DIR" "fromenv"
if [ -e "$TMP/nowhere" ]; then fail "RDTALLOC_STATE_DIR used although --state-dir was given"
else pass; fi

# COMMAND --help for every command and subcommand of the tables (read from
# the "one of:" lists, so a new one is covered): exit 0, nothing on stderr,
# and its entry of the command list - the object's, naming the verb
snapshot "$TMP/before-help"
help_of()
{
	run "$@" --help </dev/null
	expect_rc 0 "rdtctl $* --help"
	if [ -n "$ERR" ]; then fail "rdtctl $* --help: stderr not empty"; else pass; fi
	[ "$1" = help ] && { expect_out_has "help --help" "Usage: rdtctl [OPTIONS] COMMAND [ARGS]"; return; }
	if printf '%s\n' "$OUT" | grep -q "^  $1 " &&
	   { [ $# -eq 1 ] || [ "$2" = help ] ||
	     printf '%s\n' "$OUT" | grep -Eq "(^| |\|)$2( |\||$)"; }; then pass; else
		fail "rdtctl $* --help: not its synopsis"; fi
}
for obj in $(echo "$OBJS" | tr -d ,); do
	help_of "$obj"
	run "$obj" --zzzq </dev/null
	verbs=$(printf '%s\n' "$ERR" | sed -n "s/^rdtctl: unknown command '$obj --zzzq' (one of: \(.*\))\$/\1/p")
	for verb in $(echo "$verbs" | tr -d ,); do
		help_of "$obj" "$verb"
	done
done
# --help among a verb's flags, and the subcommands that are no table's
help_of control run --count 3
help_of group create a
help_of agent status
run group list -h
expect_rc 0 "-h after the command words"
unchanged "--help changes nothing" "$TMP/before-help"

# bash completion (cli/rdtctl.bash, without the bash-completion package): what
# it offers after the words given, the last one being the word completed
complete_words()
{
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rdtctl
		printf "%s\n" "${COMPREPLY[@]}"' complete "$(dirname "$0")/../../cli/rdtctl.bash" \
		"$RDTCTL" --backend sim --state-dir "$STATE" --machine "$MACHINE" "$@" 2>&1
}
c=$(complete_words save --format "")
if [ "$c" = "$(printf 'rdtalloc\ngoresctrl')" ]; then pass; else
	fail "completion of save --format: '$c'"; fi
c=$(complete_words apply x.yaml --format g)
if [ "$c" = goresctrl ]; then pass; else fail "completion of apply --format g: '$c'"; fi
c=$(complete_words monitor --format "")
if [ "$c" = "$(printf 'table\ncsv\nprometheus')" ]; then pass; else
	fail "completion of monitor --format: '$c'"; fi
groups=$(rdt group list)
c=$(complete_words control set "")
if [ -n "$groups" ] && [ "$c" = "$groups" ]; then pass; else
	fail "completion of control set: the groups, not '$c'"; fi
c=$(complete_words control set p1 --exclusive "")
if [ -n "$groups" ] && [ "$c" = "$groups" ]; then pass; else
	fail "completion of control set --exclusive: the groups, not '$c'"; fi
c=$(complete_words io-alloc "")
if [ "$c" = "$(printf 'show\nenable\ndisable\nset')" ]; then pass; else
	fail "completion of io-alloc: '$c'"; fi
c=$(complete_words io-alloc set "")
if [ "$c" = "L3:" ]; then pass; else fail "completion of io-alloc set: '$c'"; fi

# an operation that fails is exit 1, not 2
failure "apply of a missing file" "cannot open configuration $TMP/none.conf: No such file or directory" \
	apply "$TMP/none.conf"

finish
