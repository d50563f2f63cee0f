#!/bin/bash
# Defence hook: pids.max on the workload's cgroup; the evidence is the
# number of forks it refused (pids.events "max").
#   pids.sh apply|evidence PIDS_MAX
set -euo pipefail
max=${2:?usage: pids.sh apply|evidence PIDS_MAX}
case $1 in
apply) echo "$max" >"$LCALAB_CGROUP/pids.max" ;;
evidence)
	refused=$(awk '$1 == "max" { print $2 }' "$LCALAB_CGROUP/pids.events")
	[ -n "$refused" ] || { echo "pids.sh: no max in pids.events" >&2; exit 1; }
	printf '{"pids_max":%d,"pids_max_refusals":%d}\n' "$max" "$refused"
	;;
*) echo "pids.sh: unknown step '$1'" >&2; exit 2 ;;
esac
