# shellcheck shell=bash
# Common helpers for the lab's scripts. Source it; it sources lab.conf.
set -euo pipefail

# a failure inside $(...) fails the substitution, as outside it
shopt -s inherit_errexit
# (parameter expansions, not dirname and basename: every script sources it)
LAB_ROOT=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
# shellcheck source=lab/lab.conf
. "$LAB_ROOT/lab/lab.conf"

PROG=${0##*/}
# the helpers analysis shares with the lab: die, log, check_run_dir, ...
# shellcheck source=analysis/lib.sh
. "$LAB_ROOT/analysis/lib.sh"

# The linux-source tarball of kernel line LINE (default: LINUX_SOURCE).
linux_tarball() {
	local line=${1:-$LINUX_SOURCE}
	known_line "$line" || die "unknown kernel line '$line' (LINUX_LINES: $LINUX_LINES)"
	[ -e "$LINUX_SOURCE_DIR/linux-source-$line.tar.xz" ] ||
		die "no kernel source $LINUX_SOURCE_DIR/linux-source-$line.tar.xz: run 'make deps' (installs linux-source-$line)"
	printf '%s\n' "$LINUX_SOURCE_DIR/linux-source-$line.tar.xz"
}

# Debian version of the package that installed LINE's tarball, e.g. 6.1.192-3;
# the one LINUX_VERSIONS pins for LINE, or it fails.
linux_package_version() {
	local tarball pkg version pin
	tarball=$(linux_tarball "${1:-}")
	pkg=$(dpkg-query -S "$tarball" 2>/dev/null | cut -d: -f1) ||
		die "$tarball belongs to no Debian package: install it with 'make deps'"
	version=$(dpkg-query -W -f='${Version}' "$pkg")
	pin=$(pinned_version "${1:-$LINUX_SOURCE}")
	[ -z "$pin" ] || [ "$pin" = "$version" ] ||
		die "$pkg $version is installed, LINUX_VERSIONS pins $pin: run 'make deps'"
	printf '%s\n' "$version"
}

# The version LINUX_VERSIONS pins for LINE, empty when none.
pinned_version() {
	local w
	for w in $LINUX_VERSIONS; do
		[[ $w =~ ^[0-9.]+=[0-9][A-Za-z0-9.+~:-]*$ ]] ||
			die "LINUX_VERSIONS wants LINE=VERSION words (6.12=6.12.117-1~deb12u1), not '$w'"
		known_line "${w%%=*}" || die "LINUX_VERSIONS pins '${w%%=*}', not a line of LINUX_LINES ($LINUX_LINES)"
		[ "${w%%=*}" != "$1" ] || printf '%s\n' "${w#*=}"
	done
}

# Upstream kernel version of LINE's source, e.g. 6.1.192: what uname -r starts with.
kernel_version() {
	local v
	v=$(linux_package_version "${1:-}")
	printf '%s\n' "${v%%-*}"
}

# The config fragments every kernel of LINE gets on top of tinyconfig:
# kernel-patch/lab.config, then kernel-patch/LINE/lab.config where a line's
# tinyconfig needs more (6.12's sets SLUB_TINY, which excludes SLUB_DEBUG).
line_fragments() {
	printf '%s\n' "$LAB_ROOT/kernel-patch/lab.config"
	[ ! -f "$LAB_ROOT/kernel-patch/$1/lab.config" ] || printf '%s\n' "$LAB_ROOT/kernel-patch/$1/lab.config"
}

known_line() {
	[[ " $LINUX_LINES " == *" $1 "* ]]
}

# A build: VARIANT (one of lab/builds.tab's, KNOWN_VARIANTS) on the default line, or
# VARIANT@LINE on another line of LINUX_LINES.
build_variant() {
	printf '%s\n' "${1%%@*}"
}

build_line() {
	if [[ $1 == *@* ]]; then printf '%s\n' "${1#*@}"; else printf '%s\n' "$LINUX_SOURCE"; fi
}

known_variant() {
	local v
	if [[ $1 == *@* ]]; then
		[ "${1#*@}" != "$LINUX_SOURCE" ] || return 1
		known_line "${1#*@}" || return 1
	fi
	for v in $KNOWN_VARIANTS; do
		[ "$v" = "${1%%@*}" ] && return 0
	done
	return 1
}

check_variant() {
	known_variant "$1" ||
		die "unknown kernel build '$1' (known: $KNOWN_VARIANTS on the default line $LINUX_SOURCE, and VARIANT@LINE for the lines of LINUX_LINES: $LINUX_LINES)"
}

# The rows of a registry (a .tab file): "LINE<TAB>row" for each line that
# is not blank or a comment.
registry_rows() {
	local n=0 line
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] || printf '%s\t%s\n' "$n" "$line"
	done <"$1"
}

# The names (first fields) of a registry.
registry_names() {
	local names=() _n name
	while read -r _n name _; do names+=("$name"); done < <(registry_rows "$1")
	printf '%s\n' "${names[*]}"
}

# The registry's path as a user sees it, with the line when there is one:
# workloads/workloads.tab:7
where() {
	printf '%s%s' "${1#"$LAB_ROOT"/}" "${2:+:$2}"
}

# The builds of lab/builds.tab, checked: one "variant of series fragments
# role" line each, the fragments' files joined with commas.
BUILDS_TAB=$LAB_ROOT/lab/builds.tab
build_rows() {
	local n row variant of series fragments role f
	while IFS=$'\t' read -r n row; do
		read -r variant of series fragments role <<<"$row"
		[ -n "$role" ] || usage_error "$(where "$BUILDS_TAB" "$n"): a build line wants variant, of, series, fragments and role"
		[[ $series =~ ^(yes|no)$ ]] || usage_error "$(where "$BUILDS_TAB" "$n"): series is yes or no, not '$series'"
		[[ $role =~ ^(debug|trace|-)$ ]] || usage_error "$(where "$BUILDS_TAB" "$n"): role is debug, trace or -, not '$role'"
		for f in ${fragments//,/ }; do
			[ "$f" = - ] || [ -f "$LAB_ROOT/kernel-patch/$f" ] ||
				usage_error "$(where "$BUILDS_TAB" "$n"): no fragment kernel-patch/$f"
		done
		printf '%s %s %s %s %s\n' "$variant" "$of" "$series" "$fragments" "$role"
	done < <(registry_rows "$BUILDS_TAB")
}

# Field $2 (of, series, fragments, role) of build $1's variant, from the
# rows checked once (BUILD_ROWS, below).
build_field() {
	local variant of series fragments role
	while read -r variant of series fragments role; do
		[ "$variant" = "${1%%@*}" ] || continue
		case $2 in of) echo "$of" ;; series) echo "$series" ;; fragments) echo "$fragments" ;; role) echo "$role" ;; esac
		return 0
	done <<<"$BUILD_ROWS"
	return 1
}

# The patches build $1 applies, in order: its line's series (lab/builds.tab's
# series column), each checked to exist.
build_patches() {
	local line dir=$LAB_ROOT/kernel-patch p
	[ "$(build_field "$1" series)" = yes ] || return 0
	line=$(build_line "$1")
	[ -f "$dir/$line/series" ] || die "kernel-patch/$line/series is missing: the series is not ported to $line"
	{ grep -vE '^[[:space:]]*(#|$)' "$dir/$line/series" || true; } | while read -r p; do
		[ -f "$dir/$line/$p" ] || die "kernel-patch/$line/series names $p, which does not exist"
		printf '%s\n' "$dir/$line/$p"
	done
}

# The series hash of build $1 (kernel.json's and every record's series_hash):
# BUILD-HASH of its line's series file and patches, BUILD-none for stock.
build_series_hash() {
	local patches
	patches=$(build_patches "$1")
	if [ -z "$patches" ]; then
		printf '%s-none\n' "$1"
		return
	fi
	# shellcheck disable=SC2086 # one patch per word
	printf '%s-%s\n' "$1" "$(hash_files "$LAB_ROOT/kernel-patch/$(build_line "$1")/series" $patches)"
}

# The settings lab/cells.py reads: lab.conf's and the experiment's.
CELLS_SETTINGS=(LAB_ROOT PROG BUILD_ROWS LINUX_SOURCE LINUX_LINES DEBUG_TIME_SCALE DEADLINES
	WORKLOAD_KIND WORKLOAD_DEADLINE EXPERIMENT_FILE TYPE KERNELS SWAP WORKLOADS DEFENCES DESKTOPS
	REPS RUN_SEED PAIRING CELLS_WHERE SURVIVAL_CLOCK SURVIVAL_ICOUNT GUEST_MEM GUEST_SWAP GUEST_CPUS
	RUN_THREADS_MAX RUN_NPROC QUIET_S RUN_MARGIN_S OVERHEAD_KERNELS OVERHEAD_ROUNDS
	OVERHEAD_ITERATIONS OVERHEAD_CLOCKS OVERHEAD_SPAWNS OVERHEAD_HYPERFINE_RUNS
	OVERHEAD_BOOT_TIMEOUT OVERHEAD_MIN_BOOTS OOMCOST_KERNELS OOMCOST_SHAPES OOMCOST_REPS
	OOMCOST_CLOCKS OOMCOST_MEM OOMCOST_BOOT_TIMEOUT OOMCOST_TARGET_US LCA_FIELDS_BYTES
	BOOTSTRAP_RESAMPLES)

# lab/cells.py, the cell model, with those settings.
cells_py() {
	(
		for v in "${CELLS_SETTINGS[@]}"; do export "$v=${!v-}"; done
		exec /usr/bin/python3 "$LAB_ROOT/lab/cells.py" "$@"
	)
}

# A workload, resolved: a name in workloads/workloads.tab, or a file of
# one's own (path/to/mybomb.c or .sh). One JSON object; lab/plan keeps
# the deadline of the cell's swap setting as deadline_s.
workload_json() {
	cells_py workload "$1"
}

# Run a workload program on this host the only way the lab ever does: to
# see its guard refuse. Belt and braces, in case a guard ever broke: as
# nobody, with RLIMIT_NPROC 1 (fork fails for a non-root user), 1 GiB of
# address space and 10 s.
run_jailed() {
	timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		prlimit --nproc=1 --as=1073741824 -- "$@"
}

# Build (a .c, static) or copy (a .sh, with guard.sh beside it) workload
# $1 of one's own into directory $2, then prove its guard: started on
# this host as nobody with RLIMIT_NPROC 1, it must refuse (exit 2).
ship_own_workload() {
	local src=$1 stage=$2 bin out rc=0
	case $src in
	*.c)
		bin=$stage/$(basename "$src" .c)
		# shellcheck disable=SC2086 # GUEST_CFLAGS is a list of flags
		gcc $GUEST_CFLAGS -I "$LAB_ROOT/workloads" -o "$bin" "$src" 2>"$stage/gcc.log" ||
			die "$src does not build: $(head -3 "$stage/gcc.log")"
		rm -f "$stage/gcc.log"
		;;
	*.sh)
		bin=$stage/$(basename "$src")
		install -m 755 "$src" "$bin"
		install -m 644 "$LAB_ROOT/workloads/guard.sh" "$stage/"
		;;
	esac
	chmod 755 "$stage"
	out=$(cd "$stage" && run_jailed "$bin" 2>&1) || rc=$?
	if [ $rc -ne 2 ] || ! grep -q 'refusing to run: not inside a lab guest' <<<"$out"; then
		die "$src: its guard did not refuse to run on this host (exit $rc: ${out:0:160}); not shipped"
	fi
}

# A kernel column of lab/kernels.tab (COLUMN[@BUILD][@LINE]): its build and
# sysctls, as a cell's JSON.
kernel_column_json() {
	cells_py kernel "$1"
}

# A defence of workloads/defences.tab: hook, parameter, acted rule.
defence_json() {
	cells_py defence "$1"
}

# Desktop NAME of workloads/desktops.tab, as a cell's JSON.
desktop_json() {
	cells_py desktop "$1"
}

# The kernel splats in log FILE (workloads/splats.tab names them), as a
# JSON array of {kind, line}, in the order they came; at most 100.
log_splats() {
	registry_rows "$LAB_ROOT/workloads/splats.tab" | cut -f2- |
		awk 'FNR == NR { kind[++n] = $1; sub(/^[^ ]+ +/, ""); re[n] = $0; next }
			{ sub(/\r$/, ""); sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
			  for (i = 1; i <= n; i++) if ($0 ~ re[i]) { print kind[i] "\t" substr($0, 1, 200); break } }' - "$1" |
		head -100 | jq -R -s -c 'split("\n") | map(select(. != "") | split("\t") | {kind: .[0], line: .[1]})'
}

# A debug build (lca-debug): its boots take DEBUG_TIME_SCALE times as long
# and get DEBUG_CMDLINE_APPEND (its console carries warnings).
is_debug_build() {
	[ "$(build_field "$1" role)" = debug ]
}

# Path of a variant's built kernel image.
kernel_image() {
	printf '%s\n' "$LAB_BUILD/kernels/$1/bzImage"
}

# A cell's OUTDIR/cell.json as it starts: the cell (a plan line), the build
# it runs on (BUILD's kernel.json) and EXTRA (a JSON object); then
# cell_json_ended adds when it ended.
cell_json_started() {
	local out=$1 cell=$2 build=$3 extra=${4:-"{}"} kjson=$LAB_BUILD/kernels/$3/kernel.json
	[ -f "$kjson" ] || die "no $build kernel: run 'make kernel-$build'"
	jq -n --argjson cell "$cell" --slurpfile build "$kjson" --arg started "$(date -u +%FT%TZ)" --argjson extra "$extra" \
		'{cell: $cell, build: $build[0], started: $started} + $extra' >"$out/cell.json"
}

cell_json_ended() {
	jq --arg ended "$(date -u +%FT%TZ)" '. + {ended: $ended}' "$1/cell.json" >"$1/cell.json.tmp" &&
		mv "$1/cell.json.tmp" "$1/cell.json"
}

rootfs_image() {
	printf '%s\n' "$LAB_BUILD/rootfs/rootfs.ext4"
}

# Apply patch $2 to tree $1 exactly (no fuzz), or stop naming each hunk
# that failed, with its file; $3 names the tree in the message.
apply_patch_exactly() {
	local out failed
	out=$(patch -d "$1" -p1 --batch --forward --fuzz=0 <"$2" 2>&1) && return 0
	failed=$(awk '/^patching file / { file = $3 }
		/FAILED|No file to patch/ { print "  " (file == "" ? "?" : file) ": " $0 }' <<<"$out")
	die "${2#"$LAB_ROOT"/} does not apply to $3 exactly:"$'\n'"${failed:-$out}"
}

# sha256 over the names and contents of the given files, short form.
hash_files() {
	local f content h
	# each file's bytes to its end (no NUL in them): read, not a cat each
	h=$(for f in "$@"; do
		printf '%s\n' "${f#"$LAB_ROOT"/}"
		IFS= read -r -d '' content <"$f" || true
		printf '%s' "$content"
	done | sha256sum)
	printf '%s\n' "${h:0:16}"
}

now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }'
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

# lab/builds.tab's rows, checked once here (a bad line stops every command
# with its file and line), and the build variants they name.
BUILD_ROWS=$(build_rows)
KNOWN_VARIANTS=""
while read -r _variant _; do KNOWN_VARIANTS+=${KNOWN_VARIANTS:+ }$_variant; done <<<"$BUILD_ROWS"
unset _variant
