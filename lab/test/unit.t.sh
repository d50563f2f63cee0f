# shellcheck shell=bash
# Host-side unit tests: configuration and bad input. Nothing here boots.

t_unit_conf_reads_and_overrides() {
	[ "$("$LAB_ROOT/lab/conf" GUEST_MEM)" = 256M ] || fail "default GUEST_MEM is not 256M"
	[ "$(GUEST_MEM=1G "$LAB_ROOT/lab/conf" GUEST_MEM)" = 1G ] || fail "environment does not override"
	expect_exit 1 "unknown configuration key 'NO_SUCH'" "$LAB_ROOT/lab/conf" NO_SUCH
}

t_unit_kernel_version_is_derived() {
	local v pkg
	v=$(kernel_version)
	pkg=$(dpkg-query -W -f='${Version}' "$(dpkg-query -S "$(linux_tarball)" | cut -d: -f1)")
	[ "$v" = "${pkg%%-*}" ] || fail "kernel_version $v is not the package's upstream version $pkg"
	if [ -f "$LAB_BUILD/sources/$LINUX_SOURCE/Makefile" ]; then
		local mk
		mk=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3} END {print v "." p "." s}' \
			"$LAB_BUILD/sources/$LINUX_SOURCE/Makefile")
		[ "$mk" = "$v" ] || fail "tree Makefile says $mk, package says $v"
	fi
	! grep -rqE '6\.(1|12)\.[0-9]+' "$LAB_ROOT/lab/lab.conf" "$LAB_ROOT/Makefile" ||
		fail "a kernel version is typed into the configuration"
}

t_unit_unknown_variant_is_refused() {
	expect_exit 1 "unknown kernel build 'nosuch'" "$LAB_ROOT/lab/build-kernel" nosuch
	expect_exit 1 "unknown kernel build 'nosuch'" "$LAB_ROOT/lab/boot" --kernel nosuch -- true
	expect_exit 2 "usage" "$LAB_ROOT/lab/build-kernel"
}

# Builds name their kernel line: VARIANT on the default line, VARIANT@LINE
# on another; columns follow (COLUMN@LINE, COLUMN@FLAVOUR@LINE).
t_unit_builds_name_their_line() {
	expect_exit 1 "unknown kernel build 'lca@$LINUX_SOURCE'" "$LAB_ROOT/lab/build-kernel" "lca@$LINUX_SOURCE"
	expect_exit 1 "unknown kernel build 'lca@9.9'" "$LAB_ROOT/lab/build-kernel" lca@9.9
	expect_exit 1 "unknown kernel build 'lca@6.12'" env LINUX_LINES="$LINUX_SOURCE" "$LAB_ROOT/lab/build-kernel" lca@6.12
	[ "$(kernel_column_json lca-2005@6.12 | jq -c '[.column, .build, .sysctls[0]]')" = \
		'["lca-2005@6.12","lca@6.12","vm.oom_kill_lca=2"]' ] || fail "lca-2005@6.12: $(kernel_column_json lca-2005@6.12)"
	[ "$(kernel_column_json lca@lca-debug@6.12 | jq -c '[.column, .build, .time_scale]')" = \
		"[\"lca@lca-debug@6.12\",\"lca-debug@6.12\",$DEBUG_TIME_SCALE]" ] ||
		fail "lca@lca-debug@6.12: $(kernel_column_json lca@lca-debug@6.12)"
	expect_exit 2 "'9.9' is not another kernel line .*LINUX_LINES .*make deps' \\(linux-source-9.9\\)" bash -c ". '$LAB_ROOT/lab/lib.sh'; kernel_column_json lca@9.9"
	# the overhead experiment times a line's column on that line's -trace build
	EXPERIMENT=overhead OOMCOST_KERNELS="lca@6.12" OOMCOST_SHAPES=tree:1000 "$LAB_ROOT/lab/plan" |
		jq -e -s 'map(select(.type == "oomcost")) | length == 1 and .[0].kernel.build == "lca-trace@6.12"' >/dev/null ||
		fail "lca@6.12's OOM cost is not timed on lca-trace@6.12"
}

# A series applies exactly or not at all: a hunk that needs fuzz is named,
# with its file, before anything is built.
t_unit_series_applies_exactly() {
	local t
	t=$(mktemp -d)
	mkdir -p "$t/a/mm" "$t/b/mm"
	printf '%s\n' one two three four five six seven >"$t/a/mm/x.c"
	sed 's/four/FOUR/' "$t/a/mm/x.c" >"$t/b/mm/x.c"
	(cd "$t" && diff -u a/mm/x.c b/mm/x.c | sed 's/^ three$/ THREE/' >p.patch) || true
	expect_exit 1 'p.patch does not apply to the test tree exactly:.*|mm/x.c: Hunk #1 FAILED at 1' \
		bash -c ". '$LAB_ROOT/lab/lib.sh'; apply_patch_exactly '$t/a' '$t/p.patch' 'the test tree'"
	grep -qx four "$t/a/mm/x.c" || fail "a patch that needed fuzz was applied"
}

t_unit_missing_source_says_what_to_do() {
	expect_exit 1 "run 'make deps'" env LINUX_SOURCE_DIR=/nonexistent \
		LAB_BUILD="$(mktemp -d)" "$LAB_ROOT/lab/build-kernel" stock
	# a kernel line that is not installed: the package that installs it
	expect_exit 1 "installs linux-source-6\\.99\\)" env LINUX_SOURCE=6.99 LINUX_LINES="6.1 6.99" \
		LAB_BUILD="$(mktemp -d)" "$LAB_ROOT/lab/build-kernel" stock
}

t_unit_boot_rejects_bad_options() {
	expect_exit 2 "no command given" "$LAB_ROOT/lab/boot" --kernel stock
	expect_exit 2 "unknown option --frobnicate" "$LAB_ROOT/lab/boot" --frobnicate -- true
	expect_exit 1 "not a size" "$LAB_ROOT/lab/boot" --mem lots -- true
	expect_exit 1 "not a size or 0" "$LAB_ROOT/lab/boot" --swap 12Q -- true
	expect_exit 1 "positive number" "$LAB_ROOT/lab/boot" --cpus 0 -- true
	expect_exit 1 "whole seconds" "$LAB_ROOT/lab/boot" --timeout 1.5 -- true
	expect_exit 1 "auto, kvm or tcg" "$LAB_ROOT/lab/boot" --accel xen -- true
}

t_unit_boot_without_kernel_says_make_kernels() {
	expect_exit 1 "run 'make kernels'" env LAB_BUILD="$(mktemp -d)" "$LAB_ROOT/lab/boot" -- true
}

# (a boot group test: the lock comes after the kernel and rootfs checks)
t_boot_refuses_busy_out_dir() {
	local out
	out=$(mktemp -d)
	exec 7>"$out/.lock"
	flock -n 7
	expect_exit 1 "in use by another boot" "$LAB_ROOT/lab/boot" --kernel "$(boot_build)" --out "$out" -- true
}

# Every workload of the registry, and every guest program, refuses to
# start on the host (run_jailed: as nobody, RLIMIT_NPROC 1).
t_unit_workloads_refuse_outside_guest() {
	local dir prog bin args n=0
	dir=$(mktemp -d)
	chmod 755 "$dir"
	install -m 644 "$LAB_ROOT/workloads/guard.sh" "$LAB_ROOT/workloads/bomb-args.sh" "$dir/"
	for prog in $(awk '!/^[[:space:]]*(#|$)/ { print $5 }' "$LAB_ROOT/workloads/workloads.tab") \
		workloads/lcalab-run.c workloads/oomcost.c workloads/forkbench.c workloads/memhog.c \
		workloads/climb.c workloads/lineage.c; do
		case $prog in
		*.c) bin=$LAB_BUILD/guest-bin/$(basename "$prog" .c) ;;
		*.sh) bin=$LAB_ROOT/$prog ;;
		esac
		[ -x "$bin" ] || fail "$bin is not built (make guest-bin)"
		install -m 755 "$bin" "$dir/"
		bin=$(basename "$bin") args=()
		case $bin in
		lcalab-run) args=(-t 1 -q 1 -m 1 /lab/bin/folkert) ;;
		oomcost) args=(tree 100) ;;
		forkbench) args=(fork) ;;
		memhog) args=(-m 1) ;;
		esac
		expect_exit 2 "refusing to run: not inside a lab guest" run_jailed "$dir/$bin" "${args[@]}"
		n=$((n + 1))
	done
	rm -rf "$dir"
	[ "$n" -ge 12 ] || fail "only $n programs checked"
}

# The driver checks its input before anything else, also on the host.
t_unit_driver_rejects_bad_input() {
	local run=$LAB_BUILD/guest-bin/lcalab-run
	expect_exit 2 "-t wants a whole number, not 'soon'" "$run" -t soon /lab/bin/folkert
	expect_exit 2 "-s wants KEY=VALUE" "$run" -s vm.oom_kill_lca /lab/bin/folkert
	expect_exit 2 "-P needs a hook" "$run" -P 5 /lab/bin/folkert
	expect_exit 2 "-U wants oom_kills=N, lca_decisions=N or lca_killed=N, not 'kills=2'" "$run" -U kills=2 /lab/bin/folkert
	expect_exit 2 "-U wants a count of at least 1" "$run" -U oom_kills=0 /lab/bin/folkert
	expect_exit 2 "--until: -U wants oom_kills=N" "$LAB_ROOT/lab/run-cell" --until lca=1 lca off folkert "$(mktemp -d)"
	expect_exit 2 "usage: lcalab-run" "$run"
	expect_exit 2 "usage: lcalab-run" "$run" -t 0 /lab/bin/folkert
	expect_exit 2 "-t, -q and -m are required" "$run" -t 10 -q 2 /lab/bin/folkert
}

# LINUX_VERSIONS pins a line's Debian point release: no kernel of that line
# is built from another version, and a bad pin is named, before any build.
t_unit_linux_versions_pin() {
	local have
	have=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	expect_exit 1 "linux-source-6.12 $have is installed, LINUX_VERSIONS pins 6.12.1-1: run 'make deps'" \
		env LINUX_VERSIONS=6.12=6.12.1-1 "$LAB_ROOT/lab/build-kernel" lca@6.12
	expect_exit 1 "LINUX_VERSIONS wants LINE=VERSION words" env LINUX_VERSIONS=6.12 "$LAB_ROOT/lab/build-kernel" lca@6.12
	expect_exit 1 "LINUX_VERSIONS pins '6.9', not a line of LINUX_LINES" \
		env LINUX_VERSIONS=6.9=1 "$LAB_ROOT/lab/build-kernel" lca@6.12
	[ "$(env LINUX_VERSIONS="6.12=$have" bash -c ". '$LAB_ROOT/lab/lib.sh'; linux_package_version 6.12")" = "$have" ] ||
		fail "the installed version pinned was refused"
}
