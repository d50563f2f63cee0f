#!/bin/bash
# Defence hook: the memory controller on and memory.oom.group=1 on the
# workload's cgroup, so an OOM kill there takes the whole cgroup; the
# evidence is memory.events "oom_group_kill".
#   oomgroup.sh apply|evidence
set -euo pipefail
case $1 in
apply)
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	echo +memory >"$LCALAB_CGROUP_PARENT/cgroup.subtree_control"
	echo 1 >"$LCALAB_CGROUP/memory.oom.group"
	;;
evidence)
	kills=$(awk '$1 == "oom_group_kill" { print $2 }' "$LCALAB_CGROUP/memory.events")
	[ -n "$kills" ] || { echo "oomgroup.sh: no oom_group_kill in memory.events" >&2; exit 1; }
	printf '{"oom_group_kills":%d}\n' "$kills"
	;;
*) echo "oomgroup.sh: unknown step '$1'" >&2; exit 2 ;;
esac
