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

# The record schema this lab writes and reads (analysis/outcome.jq).
schema_version() {
	jq -n -L "$LAB_ROOT/analysis" 'include "outcome"; schema_version'
}

# Fail, naming the problem, unless $1 is a run directory whose meta.json
# has this lab's schema and whose runs.jsonl records all follow it.
check_run_dir() {
	local dir=$1 want have
	[ -f "$dir/meta.json" ] || die "$dir/meta.json is missing: not a run directory"
	[ -f "$dir/runs.jsonl" ] || die "$dir/runs.jsonl is missing: the run has no records yet"
	want=$(schema_version)
	have=$(jq -r .schema "$dir/meta.json")
	[ "$have" = "$want" ] || die "$dir was written by schema $have; this lab reads $want (lab/migrate $dir)"
	[ -f "$dir/plan.jsonl" ] || die "$dir/plan.jsonl is missing: not a run directory of this schema"
	if [ "$(jq -r .matrix.type "$dir/meta.json")" = overhead ]; then
		have=$(jq -R -r 'input_line_number as $n | (try fromjson catch null)
			| if . == null then "\($n): not JSON"
			  elif (.type | IN("pahole", "forkbench", "oomcost")) | not then "\($n): not an overhead record"
			  else empty end' "$dir/runs.jsonl" | awk 'NR == 1')
		[ -z "$have" ] || die "$dir/runs.jsonl:$have"
	else
		"$LAB_ROOT/analysis/validate" "$LAB_ROOT/analysis/record.schema.json" "$dir/runs.jsonl" >&2 ||
			die "$dir/runs.jsonl has records that do not follow the schema (above)"
	fi
	# every record ran a cell of this run's plan, exactly as planned
	have=$(jq -r -n --slurpfile plan "$dir/plan.jsonl" '($plan | map({(.id): .}) | add) as $p
		| inputs | select($p[.id] != .cell)
		| "\(input_line_number): record \(.id) \(if $p[.id] == null then "is not in the plan" else "ran another cell than the plan has" end)"' \
		"$dir/runs.jsonl" | awk 'NR == 1')
	[ -z "$have" ] || die "$dir/runs.jsonl:$have (records of another plan)"
}
