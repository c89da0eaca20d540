# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for rdtctl (installed as .../bash-completion/completions/rdtctl).
# Group names come from `rdtctl group list`, run with the global options already
# on the command line so that it looks at the same state directory and machine.

_rdtctl_globals()
{
	local i out=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--backend | --state-dir | --machine | --msr-root | --resctrl-root | --precedence | --owner)
			out+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}")
			((i++))
			;;
		--backend=* | --state-dir=* | --machine=* | --msr-root=* | --resctrl-root=* | --precedence=* | --owner=*)
			out+=("${COMP_WORDS[i]}")
			;;
		esac
	done
	printf '%s\n' "${out[@]}"
}

_rdtctl_groups()
{
	local -a opts
	mapfile -t opts < <(_rdtctl_globals)
	"${COMP_WORDS[0]}" "${opts[@]}" group list 2>/dev/null
}

_rdtctl_resources()
{
	local -a opts
	mapfile -t opts < <(_rdtctl_globals)
	"${COMP_WORDS[0]}" "${opts[@]}" -j info 2>/dev/null |
		grep -o '"name": *"L[0-9]"' | grep -o 'L[0-9]'
}

# COMPREPLY = the words of $1 that start with $cur (the caller's)
_rdtctl_reply()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

# file or (-d) directory names, through bash-completion when it is there
_rdtctl_files()
{
	if declare -F _filedir >/dev/null; then
		if [[ $1 == -d ]]; then _filedir -d; else _filedir; fi
	else
		mapfile -t COMPREPLY < <(compgen "$1" -- "$cur")
	fi
}

_rdtctl()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n =: || return
	else
		# without the bash-completion package: the raw words
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi

	local globals="--backend --state-dir --machine --msr-root --resctrl-root --precedence --owner --force --json --pretty --quiet --help --version"
	local objects="info group schema task exec cgroup cpu closids cdp save apply reset hook demo map monitor sim oci-hook profile trace plan control sync io-alloc agent help"

	case $prev in
	--backend)
		_rdtctl_reply "sim msr resctrl auto"
		return
		;;
	--precedence)
		_rdtctl_reply "cpu task"
		return
		;;
	--state-dir | --msr-root | --resctrl-root)
		_rdtctl_files -d
		return
		;;
	--svg)
		_rdtctl_files -f
		return
		;;
	--machine | --schema | --domain | --interval | --count | --footprint | --rate | --local)
		return
		;;
	--sort)
		_rdtctl_reply "occupancy total local"
		return
		;;
	--fault)
		_rdtctl_reply "unavailable error"
		return
		;;
	esac

	# find the object and the verb, skipping global options and their values
	local i obj="" verb="" nargs=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--backend | --state-dir | --machine | --msr-root | --resctrl-root | --precedence | --owner) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $obj ]]; then
				obj=${words[i]}
			elif [[ -z $verb ]]; then
				verb=${words[i]}
			else
				((nargs++))
			fi
			;;
		esac
	done

	if [[ -z $obj ]]; then
		if [[ $cur == -* ]]; then
			_rdtctl_reply "$globals"
		else
			_rdtctl_reply "$objects"
		fi
		return
	fi

	# --format's values are the command's
	if [[ $prev == --format ]]; then
		case $obj in
		monitor) _rdtctl_reply "table csv prometheus" ;;
		save | apply) _rdtctl_reply "rdtalloc goresctrl" ;;
		esac
		return
	fi

	case $obj in
	group | schema | task | cpu | hook)
		if [[ -z $verb ]]; then
			local verbs
			case $obj in
			group) verbs="create remove list show" ;;
			schema) verbs="set show" ;;
			hook) verbs="start stop status run" ;;
			cpu) verbs="bind show assoc" ;;
			*) verbs="bind show" ;;
			esac
			_rdtctl_reply "$verbs help"
			return
		fi
		;;
	esac

	case $obj/$verb in
	group/create)
		[[ $cur == -* ]] && _rdtctl_reply "--schema"
		;;
	group/show | task/show)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--all"
		elif ((nargs == 0)); then
			_rdtctl_reply "$(_rdtctl_groups)"
		fi
		;;
	group/remove | schema/show | cpu/show)
		((nargs == 0)) && _rdtctl_reply "$(_rdtctl_groups)"
		;;
	schema/set | cpu/bind)
		((nargs == 0)) && _rdtctl_reply "$(_rdtctl_groups)"
		;;
	task/bind)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--process"
		elif ((nargs == 0)); then
			_rdtctl_reply "$(_rdtctl_groups)"
		else
			_rdtctl_reply "$(command ls /proc 2>/dev/null | grep -E '^[0-9]+$')"
		fi
		;;
	monitor/pin | monitor/unpin)
		# pin's and unpin's group
		_rdtctl_reply "$(_rdtctl_groups)"
		;;
	monitor/turns)
		[[ $cur == -* ]] && _rdtctl_reply "--period --counters"
		;;
	monitor/)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--interval --count --domain --sort --format"
		else
			_rdtctl_reply "pin unpin turns $(_rdtctl_groups)"
		fi
		;;
	monitor/*)
		# the "verb" slot holds the first group
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--interval --count --domain --sort --format"
		else
			_rdtctl_reply "$(_rdtctl_groups)"
		fi
		;;
	sim/)
		_rdtctl_reply "load unload replay"
		;;
	sim/replay)
		[[ $cur == -* ]] && _rdtctl_reply "--domain --instr --no-count"
		;;
	profile/*)
		if [[ $prev == --trace ]]; then
			_rdtctl_files -f
		else
			_rdtctl_reply "--trace --domain --instr --sample --interval $(_rdtctl_groups)"
		fi
		;;
	trace/)
		_rdtctl_reply "convert"
		;;
	trace/convert)
		if [[ $cur == -* ]]; then _rdtctl_reply "--instr"; else _rdtctl_files -f; fi
		;;
	plan/*)
		case $prev in
		--check) _rdtctl_files -f ;;
		--exclusive) ;;
		*) [[ $cur == -* ]] && _rdtctl_reply "--domain --goal --bound --exclusive --apart --mb --all-domains --curve --trace --instr --check" ;;
		esac
		;;
	control/)
		_rdtctl_reply "sim-run set show clear run"
		;;
	control/sim-run)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--interval-accesses --intervals --domain --instr --avoid --writes-per-minute --interval-ms --bound --exclusive --no-control --static"
		fi
		;;
	control/set)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--domain --avoid --shareable --interval-ms --writes-per-minute --advisory --keep-layout --bound --exclusive"
		elif [[ $prev != --domain && $prev != --avoid && $prev != --interval-ms &&
			$prev != --writes-per-minute && $prev != --bound ]]; then
			# the groups it controls, and --exclusive's group
			_rdtctl_reply "$(_rdtctl_groups)"
		fi
		;;
	control/run)
		_rdtctl_reply "--count"
		;;
	control/clear)
		_rdtctl_reply "--domain --keep-layout"
		;;
	oci-hook/)
		_rdtctl_reply "createRuntime prestart poststop"
		;;
	sync/*)
		_rdtctl_reply "--full"
		;;
	io-alloc/)
		_rdtctl_reply "show enable disable set"
		;;
	io-alloc/set)
		((nargs == 0)) && [[ $cur != -* ]] && _rdtctl_reply "L3:"
		;;
	agent/*)
		case $prev in
		--config) _rdtctl_files -f ;;
		--listen | --interval | --scan) ;;
		*)
			if [[ -z $verb && $cur != -* ]]; then
				_rdtctl_reply "status"
			else
				_rdtctl_reply "--listen --interval --scan --no-bpf --config
					--control"
			fi
			;;
		esac
		;;
	sim/load | sim/unload)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--footprint --rate --local --domain --fault"
		elif ((nargs == 0)); then
			_rdtctl_reply "$(_rdtctl_groups)"
		fi
		;;
	map/*)
		# the "verb" slot holds the resource
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--domain --color=auto --color=always --color=never --svg"
		elif [[ -z $verb ]]; then
			_rdtctl_reply "$(_rdtctl_resources)"
		fi
		;;
	closids/* | cdp/)
		# the "verb" slot holds the resource for these
		if [[ -z $verb ]]; then
			_rdtctl_reply "$(_rdtctl_resources)"
		elif [[ $obj == cdp ]]; then
			_rdtctl_reply "on off"
		fi
		;;
	cdp/*)
		((nargs == 0)) && _rdtctl_reply "on off"
		;;
	apply/*)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--prune --prune-all --name --dry-run --missing-tasks=fail --missing-tasks=skip --force-machine --format"
		elif [[ $prev == --format ]]; then
			_rdtctl_reply "rdtalloc goresctrl"
		elif [[ -z $verb ]]; then
			_rdtctl_files -f
		fi
		;;
	save/*)
		[[ $cur == -* ]] && _rdtctl_reply "--tasks --format"
		;;
	reset/*)
		[[ $cur == -* ]] && _rdtctl_reply "--machine"
		;;
	exec/)
		_rdtctl_reply "$(_rdtctl_groups)"
		;;
	cgroup/)
		_rdtctl_reply "bind unbind show help"
		;;
	cgroup/bind)
		if [[ $cur == -* ]]; then
			_rdtctl_reply "--enforce --yield"
		elif ((nargs == 0)); then
			_rdtctl_reply "$(_rdtctl_groups)"
		else
			_rdtctl_files -d
		fi
		;;
	cgroup/unbind | cgroup/show)
		_rdtctl_files -d
		;;
	esac
} &&
	complete -F _rdtctl rdtctl
