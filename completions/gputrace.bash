# bash completion for gputrace(1). The lists below are checked against
# `gputrace --help` and each subcommand's --help by tests/e2e/test_install.py.

_gputrace_subcommands="report scan doctor diff retry inspect bundle"
_gputrace_trace_opts="-o --output --append -q --quiet --try-fixes --color -h --help -V --version"
_gputrace_report_opts="--json --tree --dot --svg --html --all --save-facts --prometheus --color -h --help"
_gputrace_scan_opts="--json --for --dot --arch --ask -o --output --prometheus --color -h --help"
_gputrace_doctor_opts="--json --python --color -h --help"
_gputrace_diff_opts="--json -h --help"
_gputrace_retry_opts="--fix --all-fixes -y --yes --json -o --output -h --help"
_gputrace_inspect_opts="--json --color -h --help"
_gputrace_bundle_opts="-o --output -h --help"

# Options matching $cur; a lone --color gets its '=' (its value is optional).
_gputrace_options()
{
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
	if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == --color ]]; then
		COMPREPLY=(--color=)
		compopt -o nospace
	fi
}

_gputrace()
{
	local cur prev words cword
	_init_completion -s || return

	case $prev in
	--color)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return
		;;
	-o | --output)
		_filedir -d
		return
		;;
	--for | --html)
		_filedir
		return
		;;
	--python)
		COMPREPLY=($(compgen -c -- "$cur"))
		return
		;;
	--arch)
		COMPREPLY=($(compgen -W "sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121" -- "$cur"))
		return
		;;
	esac

	local opts
	case ${words[1]} in
	report) opts=$_gputrace_report_opts ;;
	scan) opts=$_gputrace_scan_opts ;;
	doctor) opts=$_gputrace_doctor_opts ;;
	diff) opts=$_gputrace_diff_opts ;;
	retry) opts=$_gputrace_retry_opts ;;
	inspect) opts=$_gputrace_inspect_opts ;;
	bundle) opts=$_gputrace_bundle_opts ;;
	*)
		# Tracing: gputrace's options, then COMMAND, whose own words are its own.
		local i
		for ((i = 1; i < cword; i++)); do
			case ${words[i]} in
			-o | --output) ((i++)) ;;
			--) _command_offset $((i + 1)); return ;;
			-*) ;;
			*) _command_offset $i; return ;;
			esac
		done
		if [[ $cur == -* ]]; then
			_gputrace_options "$_gputrace_trace_opts"
		elif ((cword == 1)); then
			COMPREPLY=($(compgen -W "$_gputrace_subcommands" -- "$cur") $(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		_gputrace_options "$opts"
	elif [[ ${words[1]} == inspect ]]; then
		_pids
	elif [[ ${words[1]} != doctor ]]; then
		_filedir
	fi
} &&
	complete -F _gputrace gputrace
