#!/bin/bash
# a.sh - the first bomb of the 2005 LCA patch's notes ("the current stock
# oom-killer cannot handle"), reconstructed: the original is lost.
#
# The classic bomb whose generations exit: every member starts two new
# members and exits at once, so every living member is an orphan and no
# ordinary parent link holds the bomb together; only the biological tree
# does. Members are subshells (:(){ :&:& }), not "$0 & $0 &" re-execs: under
# TCG a re-exec of bash costs so much that the $0 form grew by ~8 tasks/s and
# never reached the OOM killer in 30 s; the subshell form does in ~5 s.
#
#   a.sh [-m KB] [-d SECONDS]
#     -m KB       memory each member holds and touches before forking [0]
#     -d SECONDS  pause before forking, to slow the bomb [0]
set -u

# no fork before the guard has spoken: ${0%/*}, not $(dirname "$0")
here=.
[[ $0 != */* ]] || here=${0%/*}
# shellcheck source=workloads/guard.sh
. "$here/guard.sh"
# shellcheck source=workloads/bomb-args.sh
. "$here/bomb-args.sh"
bomb_args 0 "$@"

# Each member holds its memory, forks two new members and exits: a
# subshell, as in :(){ :&:& }, so a fork costs no exec and the bomb grows
# as fast as fork() allows. printf -v fills the variable in bash itself:
# real, touched memory.
member() {
	# shellcheck disable=SC2034 # held, never read: the memory is the point
	[ "$kb" -eq 0 ] || printf -v hold '%*s' $((kb * 1024)) ''
	[ "$delay" = 0 ] || sleep "$delay"
	member &
	member &
}
member
