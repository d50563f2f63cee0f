#!/bin/bash
# leak.sh - one large leaking process, run three times (false positive).
#
#   leak.sh [-n RUNS] [-r MB_PER_S]
#     RUNS [3] times in a row, a single process leaks memory at MB_PER_S
#     [100] until the OOM killer ends it, as LTP's oom01 does; the harness
#     (this shell) then starts the next run.
#
# The right answer is to kill each leaker; a tree-killing policy that sees
# two OOMs close together may kill the harness too.
set -uo pipefail

here=.
[[ $0 != */* ]] || here=${0%/*}
# shellcheck source=workloads/guard.sh
. "$here/guard.sh"

runs=3 rate=100
while getopts n:r: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) rate=$OPTARG ;;
	*) echo "usage: leak.sh [-n RUNS] [-r MB_PER_S]" >&2; exit 2 ;;
	esac
done
for v in "$runs" "$rate"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "leak.sh: options want positive whole numbers, not '$v'" >&2; exit 2; }
done

for i in $(seq "$runs"); do
	memhog -m 0 -r "$rate"
	echo "leak.sh: run $i ended with status $?" >&2
done
