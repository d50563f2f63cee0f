# shellcheck shell=bash
# Common helpers of the analysis scripts. Source it. It reads nothing of
# the lab's configuration (lab/lab.conf) or of the host: an analysis is a
# function of the run directories it is given. lab/lib.sh sources it for
# the same helpers; analysis never sources lab/.
set -euo pipefail

# a failure inside $(...) fails the substitution, as outside it
shopt -s inherit_errexit
# (parameter expansions, not dirname and basename: every script sources it)
LAB_ROOT=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
PROG=${0##*/}

die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}

# A usage error: exit status 2, as for every lab command.
usage_error() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 2
}

warn() {
	printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

log() {
	printf '%s: %s\n' "$PROG" "$*" >&2
}

# Size with a K/M/G suffix to MiB.
size_mib() {
	numfmt --from=iec "$1" | awk '{ printf "%d\n", $1 / 1048576 }'
}

# The record schema this lab writes and reads: analysis/record.schema.json's.
schema_version() {
	jq '.properties.schema.const' "$LAB_ROOT/analysis/record.schema.json"
}

# Fail, naming the problem, unless each argument is a run directory whose
# meta.json has this lab's schema and whose runs.jsonl records all follow
# it and its plan (analysis/checkrun.py, one process for all of them).
check_run_dir() {
	"$LAB_ROOT/analysis/checkrun.py" "$PROG" "$@" || exit 1
}
