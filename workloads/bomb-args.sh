# shellcheck shell=bash
# Sourced by the shell bombs after guard.sh: their common options, into kb
# and delay.
#   bomb_args DEFAULT_KB "$@"
#     -m KB       memory each member holds and touches
#     -d SECONDS  a member's pause before it forks
bomb_args() {
	local prog opt
	prog=${0##*/}
	kb=$1 delay=0
	shift
	while getopts m:d: opt; do
		case $opt in
		m) kb=$OPTARG ;;
		d) delay=$OPTARG ;;
		*) echo "usage: $prog [-m KB] [-d SECONDS]" >&2; exit 2 ;;
		esac
	done
	[[ $kb =~ ^[0-9]+$ ]] || { echo "$prog: -m wants whole KB, not '$kb'" >&2; exit 2; }
	[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "$prog: -d wants seconds, not '$delay'" >&2; exit 2; }
}
