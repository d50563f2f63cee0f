# shellcheck shell=bash
# Common helpers for the lab's scripts. Source it; it sources lab.conf.
set -euo pipefail

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lab/lab.conf
. "$LAB_ROOT/lab/lab.conf"

PROG=$(basename "$0")

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

# The linux-source tarball; exactly one must be installed.
linux_tarball() {
	local matches
	# shellcheck disable=SC2206 # the glob is the point
	matches=($LINUX_SOURCE_GLOB)
	[ -e "${matches[0]}" ] || die "no kernel source matches $LINUX_SOURCE_GLOB: run 'make deps' (installs linux-source)"
	[ "${#matches[@]}" -eq 1 ] || die "several kernel sources match $LINUX_SOURCE_GLOB (${matches[*]}): set LINUX_SOURCE_GLOB to one"
	printf '%s\n' "${matches[0]}"
}

# Debian version of the package that installed the tarball, e.g. 6.1.192-3.
linux_package_version() {
	local tarball pkg
	tarball=$(linux_tarball)
	pkg=$(dpkg-query -S "$tarball" 2>/dev/null | cut -d: -f1) ||
		die "$tarball belongs to no Debian package: install linux-source with 'make deps'"
	dpkg-query -W -f='${Version}' "$pkg"
}

# Upstream kernel version of the source, e.g. 6.1.192: what uname -r starts with.
kernel_version() {
	local v
	v=$(linux_package_version)
	printf '%s\n' "${v%%-*}"
}

known_variant() {
	local v
	for v in $KNOWN_VARIANTS; do
		[ "$v" = "$1" ] && return 0
	done
	return 1
}

check_variant() {
	known_variant "$1" || die "unknown kernel variant '$1' (known: $KNOWN_VARIANTS)"
}

known_workload() {
	[[ " $KNOWN_WORKLOADS " == *" $1 "* ]]
}

# The workload phase deadline of workload $1, from DEADLINES.
workload_deadline() {
	local pair
	for pair in $DEADLINES; do
		[ "${pair%%=*}" = "$1" ] && { printf '%s\n' "${pair#*=}"; return; }
	done
	die "no deadline for workload '$1' in DEADLINES ($DEADLINES)"
}

# Path of a variant's built kernel image.
kernel_image() {
	printf '%s\n' "$LAB_BUILD/kernels/$1/bzImage"
}

rootfs_image() {
	printf '%s\n' "$LAB_BUILD/rootfs/rootfs.ext4"
}

# sha256 over the names and contents of the given files, short form.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$LAB_ROOT"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# Size with a K/M/G suffix to MiB.
size_mib() {
	numfmt --from=iec "$1" | awk '{ printf "%d\n", $1 / 1048576 }'
}

now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }'
}

# Fail, naming the problem, unless $1 is a run directory whose meta.json
# has this lab's schema and whose runs.jsonl records all follow it.
check_run_dir() {
	local dir=$1 want have
	[ -f "$dir/meta.json" ] || die "$dir/meta.json is missing: not a run directory"
	[ -f "$dir/runs.jsonl" ] || die "$dir/runs.jsonl is missing: the run has no records yet"
	want=$(jq -n -L "$LAB_ROOT/analysis" 'include "outcome"; schema_version')
	have=$(jq -r .schema "$dir/meta.json")
	[ "$have" = "$want" ] || die "$dir was written by schema $have; this lab reads $want"
	"$LAB_ROOT/analysis/validate" "$LAB_ROOT/analysis/record.schema.json" "$dir/runs.jsonl" >&2 ||
		die "$dir/runs.jsonl has records that do not follow the schema (above)"
}

# Exit 2 unless each clock in $2, the value of setting $1, is wall or icount.
check_clocks() {
	local clock
	for clock in $2; do
		case $clock in wall | icount) ;; *) usage_error "unknown clock '$clock' in $1 (wall, icount)" ;; esac
	done
}

# Fail unless each kernel variant named is built.
require_kernels() {
	local k
	for k in "$@"; do
		[ -f "$LAB_BUILD/kernels/$k/kernel.json" ] || die "kernel '$k' is not built: run 'make kernel-$k'"
	done
}
