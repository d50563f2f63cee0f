#!/bin/bash
# build.sh - a parallel build whose jobs are memory-hungry (false positive).
#
#   build.sh [-j JOBS] [-n TARGETS] [-m MB]
#     make -jJOBS [6] over TARGETS [12] jobs, each allocating MB [40] and
#     holding it for 2 s, like a compiler on a big file.
#
# The OOM killer should kill a job or two and let make carry on (or fail
# that target); killing make and every job is the wrong answer.
set -euo pipefail

here=.
[[ $0 != */* ]] || here=${0%/*}
# shellcheck source=workloads/guard.sh
. "$here/guard.sh"

jobs=6 targets=12 mb=40
while getopts j:n:m: opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	n) targets=$OPTARG ;;
	m) mb=$OPTARG ;;
	*) echo "usage: build.sh [-j JOBS] [-n TARGETS] [-m MB]" >&2; exit 2 ;;
	esac
done
for v in "$jobs" "$targets" "$mb"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "build.sh: options want positive whole numbers, not '$v'" >&2; exit 2; }
done

dir=$(mktemp -d)
{
	printf 'all:'
	for i in $(seq "$targets"); do printf ' t%d' "$i"; done
	printf '\n\nt%%:\n\tmemhog -m %d -r 200 -s 2\n\n.PHONY: all\n' "$mb"
} >"$dir/Makefile"
make -k -s -C "$dir" -j"$jobs"
