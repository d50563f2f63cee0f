#!/bin/bash
# b.sh - the second bomb of the 2005 LCA patch's notes ("harder than
# a.sh"), reconstructed: the original is lost.
#
# Built on the bash bomb :(){ :|:& };: from the 2005 LKML thread, made
# harder than a.sh in two ways: each member grabs and touches memory, so
# the OOM killer is hit sooner and each victim frees little, and no member
# ever exits - each keeps forking new members forever, so killing members
# one at a time (the stock policy) only makes room for more.
#
#   b.sh [-m KB] [-d SECONDS]
#     -m KB       memory each member holds and touches [64]
#     -d SECONDS  pause between a member's forks [0]
set -u

# no fork before the guard has spoken: ${0%/*}, not $(dirname "$0")
here=.
[[ $0 != */* ]] || here=${0%/*}
# shellcheck source=workloads/guard.sh
. "$here/guard.sh"
# shellcheck source=workloads/bomb-args.sh
. "$here/bomb-args.sh"
bomb_args 64 "$@"

member() {
	local hold
	# a fresh string per member: copy-on-write does not share it
	# shellcheck disable=SC2034 # held, never read: the memory is the point
	[ "$kb" -eq 0 ] || printf -v hold '%*s' $((kb * 1024)) ''
	while :; do
		member &
		[ "$delay" = 0 ] || sleep "$delay"
	done
}
member
