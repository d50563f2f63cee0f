#!/bin/bash
# Defence hook: RLIMIT_NPROC for the workload, as pam_limits would set it
# for the user (the terminal that starts the workload gets it; its
# children inherit it). The kernel counts no refusals, so the evidence is
# the limit and the registry's rule compares the bomb's peak with it.
#   nproc.sh apply|evidence LIMIT
set -euo pipefail
limit=${2:?usage: nproc.sh apply|evidence LIMIT}
case $1 in
apply) prlimit --pid "$LCALAB_TERMINAL_PID" --nproc="$limit:$limit" ;;
evidence) printf '{"nproc":%d}\n' "$limit" ;;
*) echo "nproc.sh: unknown step '$1'" >&2; exit 2 ;;
esac
