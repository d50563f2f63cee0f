# shellcheck shell=bash
# The experiment model: registries, plans, extensions, workloads of one's own.

own=$LAB_ROOT/lab/test/fixtures/own

# A throw-away copy of the lab's files (what git has, and what it would
# add), to extend or break without touching the repository.
lab_copy() {
	local copy
	copy=$(mktemp -d)
	(cd "$LAB_ROOT" && git ls-files -z --cached --others --exclude-standard -- . ':!results') |
		(cd "$LAB_ROOT" && xargs -0 cp --parents -t "$copy")
	printf '%s\n' "$copy"
}

# A plan of the copy: lab/plan there, with the matrix given.
plan_of() {
	local copy=$1
	shift
	env EXPERIMENT=matrix SWAP=off REPS=1 DEFENCES=none "$@" "$copy/lab/plan"
}

# Each extension is one program or hook plus one registry line, a line
# alone (a kernel column, a desktop, a build flavour with its fragment) or
# a file alone (an experiment); the new thing is planned, runs through the
# runner (a fake cell) and appears in the report (and in compare).
t_unit_extend_with_one_line_each() {
	local copy results dir
	copy=$(lab_copy) results=$(mktemp -d)
	cat >"$copy/workloads/idle.sh" <<-'EOF'
		#!/bin/bash
		here=.
		[[ $0 != */* ]] || here=${0%/*}
		. "$here/guard.sh"
		sleep "${1:-5}"
	EOF
	echo "idle  false-positive  12  12  workloads/idle.sh  3" >>"$copy/workloads/workloads.tab"
	cat >"$copy/workloads/defences/renice.sh" <<-'EOF'
		#!/bin/bash
		set -euo pipefail
		case $1 in
		apply) renice -n "$2" -p "$LCALAB_TERMINAL_PID" >/dev/null ;;
		evidence) printf '{"niceness":%d}\n' "$2" ;;
		esac
	EOF
	echo "renice  renice  renice.sh  5  .defence_evidence.niceness > 0" >>"$copy/workloads/defences.tab"
	echo "lca-fast  lca  vm.oom_kill_lca=1 vm.oom_kill_lca_window_ms=5000" >>"$copy/lab/kernels.tab"

	plan_of "$copy" KERNELS=stock,lca-fast WORKLOADS=a,idle DEFENCES=none,renice >"$results/plan"
	[ "$(wc -l <"$results/plan")" -eq 8 ] || fail "expected 8 cells: $(cat "$results/plan")"
	jq -e -s 'any(.workload | .name == "idle" and .kind == "false-positive" and .deadline_s == 12
			and .guest_path == "/lab/workloads/idle.sh" and .args == ["3"])
		and any(.defence | .name == "renice" and .hook == "/lab/workloads/defences/renice.sh" and .param == "5")
		and any(.kernel | .column == "lca-fast" and .build == "lca"
			and .sysctls == ["vm.oom_kill_lca=1", "vm.oom_kill_lca_window_ms=5000"])' "$results/plan" >/dev/null ||
		fail "the plan does not resolve the new lines"

	KERNELS=stock,lca-fast WORKLOADS=a,idle DEFENCES=none,renice DESKTOPS=flat SWAP=off REPS=1 RUN_ID=x \
		RESULTS=$results RUN_CELL=$copy/lab/test/fixtures/fake-run-cell LAB_ACCEL=tcg "$copy/lab/run" >/dev/null 2>&1 ||
		fail "the run failed"
	dir=$results/x
	[ "$(wc -l <"$dir/runs.jsonl")" -eq 8 ] || fail "expected 8 records"
	jq -e -s 'any(.id == "1-idle-off-lca-fast-renice" and .cell.workload.kind == "false-positive" and .cell.defence.label == "renice")' \
		"$dir/runs.jsonl" >/dev/null || fail "no record of the new cell"
	"$copy/analysis/report" "$dir" --no-figures >/dev/null 2>&1 || fail "report failed"
	grep -q '^| workload | stock | lca-fast | stock+renice | lca-fast+renice |$' "$dir/report.md" ||
		fail "the report has no column for the new kernel and defence"
	grep -q '^| idle | ' "$dir/report.md" || fail "the report has no row for the new workload"
	grep -qF "renice: \`.defence_evidence.niceness > 0\`" "$dir/report.md" || fail "the report does not state the acted rule"
	# a report statistic: its entry in analysis/sections.json, its cell in tables.py
	jq '.sections |= .[:-2] + [{name: "peak", title: "Peak tasks", rows: "workloads", cell: "peak_cell",
		intro: "The most tasks of any run."}] + .[-2:]' "$copy/analysis/sections.json" >"$results/sections.json"
	mv "$results/sections.json" "$copy/analysis/sections.json"
	printf '\n\ndef peak_cell(records, reps, classes):\n    %s\n' \
		'return "max " + str(max(r["peak_tasks"] for r in records)) if records else "missing"' >>"$copy/analysis/tables.py"
	"$copy/analysis/report" "$dir" --no-figures >/dev/null 2>"$results/report.err" || fail "report with a new statistic failed: $(cat "$results/report.err")"
	grep -q '^## Peak tasks$' "$dir/report.md" || fail "the report has no section for the new statistic"
	grep -q '^| idle | max [0-9]* | ' "$dir/report.md" || fail "the new statistic has no row for the new workload"
	"$copy/analysis/compare" "$dir" "$dir" >"$results/compare" || fail "compare of a run with itself regressed"
	grep -q '^| idle swap=off lca-fast+renice | ' "$results/compare" || fail "compare lacks the new cell"
	# a build flavour: its line in lab/builds.tab and its fragment
	printf 'CONFIG_KASAN=y\n' >"$copy/kernel-patch/kasan.config"
	echo "lca-kasan  lca  yes  kasan.config  debug" >>"$copy/lab/builds.tab"
	plan_of "$copy" KERNELS=lca@lca-kasan WORKLOADS=a DESKTOPS=flat >"$results/plan" || fail "no plan with the flavour"
	jq -e -s --argjson s "$DEBUG_TIME_SCALE" 'length == 1 and .[0].kernel.build == "lca-kasan"
		and .[0].kernel.column == "lca@lca-kasan" and .[0].kernel.time_scale == $s' "$results/plan" >/dev/null ||
		fail "the plan does not boot the new flavour as a debug build: $(cat "$results/plan")"
	[ "$(cd "$copy" && lab/conf KNOWN_VARIANTS)" = "stock lca lca-debug stock-trace lca-trace lca-kasan" ] ||
		fail "the flavour is not a known build"
	# a desktop: its line in workloads/desktops.tab; an experiment: its file
	echo "article-small  article  16  lab  the patch notes' desktop, a 16 MB browser" >>"$copy/workloads/desktops.tab"
	cat >"$copy/lab/experiments/small.conf" <<-'EOF'
		: "${KERNELS:=stock lca-fast}"
		: "${SWAP:=off}"
		: "${WORKLOADS:=idle}"
		: "${DEFENCES:=none}"
		: "${DESKTOPS:=article-small}"
		: "${REPS:=2}"
	EOF
	EXPERIMENT=small "$copy/lab/plan" >"$results/plan" || fail "no plan of the new experiment"
	jq -e -s 'length == 4 and all(.experiment == "small" and .desktop.name == "article-small"
		and .desktop.shape == "article" and .desktop.browser_mb == 16)' "$results/plan" >/dev/null ||
		fail "the plan does not resolve the new desktop and experiment: $(cat "$results/plan")"
	EXPERIMENT=small RUN_ID=s RESULTS=$results RUN_CELL=$copy/lab/test/fixtures/fake-run-cell LAB_ACCEL=tcg \
		"$copy/lab/run" >/dev/null 2>&1 || fail "the run of the new experiment failed"
	"$copy/analysis/report" "$results/s" --no-figures >/dev/null 2>&1 || fail "report of the new experiment failed"
	grep -q 'article-small' "$results/s/report.md" || fail "the report does not name the new desktop"
	grep -q '^| idle | ' "$results/s/report.md" || fail "the report has no row for the new experiment's workload"
	rm -rf "$copy" "$results"
}

# A bad registry line is named by file and line; nothing is written.
t_unit_registry_rejects_bad_lines() {
	local copy results n
	copy=$(lab_copy) results=$(mktemp -d)
	check() {
		local file=$1 line=$2 pattern=$3 var=$4 out rc=0 n
		cp "$copy/$file" "$copy/$file.orig"
		printf '%s\n' "$line" >>"$copy/$file"
		n=$(wc -l <"$copy/$file")
		out=$(env EXPERIMENT=matrix SWAP=off REPS=1 WORKLOADS=a KERNELS=stock DEFENCES=none "$var=zap" \
			RESULTS="$results" "$copy/lab/run" 2>&1) || rc=$?
		mv "$copy/$file.orig" "$copy/$file"
		printf '%s\n' "$out"
		[ "$rc" -eq 2 ] || fail "'$line' in $file: exit $rc, expected 2"
		grep -qF -- "$file:$n: $pattern" <<<"$out" || fail "'$line' in $file: not named ($out)"
	}
	check workloads/workloads.tab "zap  bmb  10  10  workloads/a.sh" "unknown kind 'bmb' (bomb, false-positive)" WORKLOADS
	check workloads/workloads.tab "zap  bomb  soon  10  workloads/a.sh" "the deadline wants whole seconds, not 'soon'" WORKLOADS
	check workloads/workloads.tab "zap  bomb  10  later  workloads/a.sh" "the swap deadline wants whole seconds, not 'later'" WORKLOADS
	check workloads/workloads.tab "zap  bomb  10  10" "a workload line wants name, kind, two deadlines (off, on) and program" WORKLOADS
	check workloads/workloads.tab "zap  bomb  10  10  workloads/zap.c" "no file workloads/zap.c" WORKLOADS
	cp "$own/naked.sh" "$copy/workloads/naked.sh"
	check workloads/workloads.tab "zap  bomb  10  10  workloads/naked.sh" "workloads/naked.sh has no guest guard" WORKLOADS
	check workloads/defences.tab "zap  zap  zap.sh  -  true" "no hook workloads/defences/zap.sh" DEFENCES
	check workloads/defences.tab "zap  zap  -  -  .x >>> 1" "the acted rule is not a jq expression" DEFENCES
	check workloads/defences.tab "zap  zap  -" "a defence line wants name, label, hook, param and an acted rule" DEFENCES
	check lab/kernels.tab "zap  nobuild" "unknown build 'nobuild'" KERNELS
	check lab/kernels.tab "zap  lca  vm.oom_kill_lca" "'vm.oom_kill_lca' is not a sysctl setting" KERNELS
	check lab/builds.tab "zap  lca  maybe  -  -" "series is yes or no, not 'maybe'" KERNELS
	check lab/builds.tab "zap  lca  yes  nosuch.config  -" "no fragment kernel-patch/nosuch.config" KERNELS
	check lab/builds.tab "zap  lca  yes  -  fast" "role is debug, trace or -, not 'fast'" KERNELS
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	rm -rf "$copy" "$results"
}

# A mode value the build's vm.rst does not accept fails before the first
# boot and names the accepted values (the kernel would refuse it: EINVAL).
t_boot_unaccepted_sysctl_value_is_refused() {
	local copy results
	copy=$(lab_copy) results=$(mktemp -d)
	printf '%s\n' "lca-seven  lca  vm.oom_kill_lca=7" "lca-zero  lca  vm.oom_kill_lca_window_ms=0" \
		>>"$copy/lab/kernels.tab"
	expect_exit 1 "vm.oom_kill_lca=7 is not accepted by build 'lca' \(accepted: 0 1 2;" \
		env KERNELS=lca-seven WORKLOADS=a SWAP=off REPS=1 RESULTS="$results" "$copy/lab/run"
	expect_exit 1 "vm.oom_kill_lca_window_ms=0 is not accepted by build 'lca' \(accepted: 1000 to 3600000\)" \
		env KERNELS=lca-zero WORKLOADS=a SWAP=off REPS=1 RESULTS="$results" "$copy/lab/run"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	rm -rf "$copy" "$results"
}

# A workload of one's own: its kind and deadline from its header comments
# or the command line, its file and hash in the plan; without a guard it
# is refused before anything is built or shipped.
t_unit_own_workload_is_planned_or_refused() {
	local results line
	results=$(mktemp -d)
	line=$(EXPERIMENT=matrix KERNELS=lca SWAP=off WORKLOADS="$own/tinybomb.c" DEFENCES=none REPS=1 "$LAB_ROOT/lab/plan")
	jq -e --arg sha "$(sha256sum "$own/tinybomb.c" | cut -c1-16)" '.workload | .name == "tinybomb" and .kind == "bomb"
		and .deadline_s == 8 and .own and .program == "lab/test/fixtures/own/tinybomb.c" and .sha256 == $sha
		and .guest_path == "/lab/files/tinybomb"' <<<"$line" >/dev/null || fail "plan: $line"
	line=$(EXPERIMENT=matrix KERNELS=lca SWAP=off WORKLOADS="$own/tinybomb.c" DEFENCES=none REPS=1 \
		WORKLOAD_KIND=false-positive WORKLOAD_DEADLINE=7 "$LAB_ROOT/lab/plan")
	jq -e '.workload | .kind == "false-positive" and .deadline_s == 7' <<<"$line" >/dev/null ||
		fail "the command line does not override the header: $line"
	expect_exit 2 "naked.sh has no guest guard" env DRY_RUN=1 RESULTS="$results" \
		make -s -C "$LAB_ROOT" run WORKLOADS="$own/naked.sh" KERNELS=lca SWAP=off REPS=1
	expect_exit 2 "no workload file 'nothere.c'" env WORKLOADS=nothere.c RESULTS="$results" "$LAB_ROOT/lab/plan"
	expect_exit 2 "no kind: give WORKLOAD_KIND" env WORKLOADS="$LAB_ROOT/workloads/folkert.c" "$LAB_ROOT/lab/plan"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	# a guard that does not refuse on this host is caught when shipping
	expect_exit 1 "its guard did not refuse to run on this host \(exit 0" ship_own_workload "$own/fakeguard.c" "$(mktemp -d)"
	ship_own_workload "$own/tinybomb.c" "$results" || fail "the guarded bomb was not shipped"
	[ -x "$results/tinybomb" ] || fail "no static tinybomb built"
}

# rerecord rewrites every record it supersedes: runs.jsonl and each cell's
# record.json, keeping what lab/run measured on the host beside each cell.
t_unit_rerecord_rewrites_cell_records() {
	local results dir
	results=$(mktemp -d)
	KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 RUN_ID=r RESULTS=$results \
		RUN_CELL=$LAB_ROOT/lab/test/fixtures/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run" >/dev/null 2>&1 || fail "the run failed"
	dir=$results/r
	jq -c '.outcome = "clean"' "$dir/cells/1-a-off-stock/record.json" >"$dir/x" && mv "$dir/x" "$dir/cells/1-a-off-stock/record.json"
	"$LAB_ROOT/lab/rerecord" "$dir" || fail "rerecord failed"
	[ "$(jq -r .outcome "$dir/cells/1-a-off-stock/record.json")" = persists ] || fail "the cell's record.json is stale"
	diff <(jq -c . "$dir"/cells/*/record.json | sort) <(sort "$dir/runs.jsonl") || fail "runs.jsonl and the cells disagree"
	diff <(jq -c .host "$dir/runs.jsonl.old") <(jq -c .host "$dir/runs.jsonl") || fail "the host samples were lost"
	jq -e -s 'all(.host.jobs == 1)' "$dir/runs.jsonl" >/dev/null || fail "no host sample: $(jq -c .host "$dir/runs.jsonl")"
	[ -z "$(find "$results" -name '*.lock')" ] || fail "lock files in the run directory"
}

# Analysis reads the run, not the host: records that are not of the run's
# plan are refused.
t_unit_report_refuses_records_of_another_plan() {
	local run
	run=$(small_run)
	jq -c 'if .id == "1-a-off-lca" then .cell.workload.deadline_s = 99 else . end' "$run/runs.jsonl" >"$run/x"
	mv "$run/x" "$run/runs.jsonl"
	expect_exit 1 'record 1-a-off-lca ran another cell than the plan has' "$LAB_ROOT/analysis/report" "$run" --no-figures
	# as jq compares: true is not 1 (a time_scale of true ran another cell)
	jq -c 'if .id == "1-a-off-lca" then .kernel.time_scale = true else . end' \
		"$TEST_FIXTURES/run-small/plan.jsonl" >"$run/plan.jsonl"
	cp "$TEST_FIXTURES/run-small/runs.jsonl" "$run/"
	expect_exit 1 'record 1-a-off-lca ran another cell than the plan has' "$LAB_ROOT/analysis/report" "$run" --no-figures
	# a plan is read as jq reads it (a blank line is no cell); a meta.json
	# that is no object, a plan that is no JSON, an overhead record
	# without an id and one whose lines break their schema are refused with
	# their reason, never a traceback
	cp "$TEST_FIXTURES/run-small/plan.jsonl" "$run/"
	printf '\n' >>"$run/plan.jsonl"
	"$LAB_ROOT/analysis/report" "$run" --no-figures >/dev/null || fail "a blank line in the plan was refused"
	echo '{' >>"$run/plan.jsonl"
	expect_exit 1 'plan.jsonl is not JSON Lines' "$LAB_ROOT/analysis/report" "$run" --no-figures
	cp "$run/meta.json" "$run/meta"
	echo null >"$run/meta.json"
	expect_exit 1 "meta.json is not a run's meta" "$LAB_ROOT/analysis/report" "$run" --no-figures
	jq '.matrix.type = "overhead"' "$run/meta" >"$run/meta.json"
	cp "$TEST_FIXTURES/run-small/plan.jsonl" "$run/"
	echo '{"type": "pahole"}' >"$run/runs.jsonl"
	expect_exit 1 "runs.jsonl:1: record: 'id' is a required property" "$LAB_ROOT/analysis/report" "$run" --no-figures
	# an overhead program's line that breaks analysis/overhead.schema.json
	mkdir "$run/o"
	cp "$LAB_ROOT"/results/overhead-6.12/{meta.json,plan.jsonl} "$run/o/"
	jq -c 'if .type == "oomcost" then .lines[0].tasks = "many" else . end' \
		"$LAB_ROOT/results/overhead-6.12/runs.jsonl" >"$run/o/runs.jsonl"
	expect_exit 1 "tasks: 'many' is not of type 'integer'" "$LAB_ROOT/analysis/overhead" "$run/o"
}

# A workload of one's own runs end to end: built static, its guard proven,
# shipped on the job disk, run through the same desktop, sampler and
# classifier; the record names its file and hash.
t_boot_own_workload_runs() {
	local results out f
	results=$(mktemp -d "$LAB_BUILD/boots/test-own-XXXX")
	out=$(make -s -C "$LAB_ROOT" run WORKLOADS="$own/tinybomb.c" KERNELS=lca SWAP=off REPS=1 \
		RESULTS="$results" RUN_ID=own 2>&1) || fail "make run failed: $out"
	printf '%s\n' "$out"
	f=$results/own/runs.jsonl
	jq -c '{id, outcome, outcome_reason, peak_workload_tasks, program: .cell.workload.program, sha256: .cell.workload.sha256}' "$f"
	jq -e --arg sha "$(sha256sum "$own/tinybomb.c" | cut -c1-16)" '.cell.workload.name == "tinybomb" and .cell.workload.kind == "bomb"
		and .cell.workload.program == "lab/test/fixtures/own/tinybomb.c" and .cell.workload.sha256 == $sha
		and (.outcome | IN("clean", "collateral", "persists", "inconclusive")) and .peak_workload_tasks >= 10' "$f" >/dev/null ||
		fail "the record of the own workload: $(cat "$f")"
}

# A kernel column whose sysctl the build lacks fails before the first boot.
t_boot_unknown_sysctl_is_refused() {
	local copy results
	copy=$(lab_copy) results=$(mktemp -d)
	echo "lca-typo  lca  vm.oom_kill_lcaa=1" >>"$copy/lab/kernels.tab"
	expect_exit 1 "sysctl vm.oom_kill_lcaa does not exist in build 'lca'" env KERNELS=lca-typo WORKLOADS=a \
		SWAP=off REPS=1 RESULTS="$results" "$copy/lab/run"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	rm -rf "$copy" "$results"
}

# Every kind of workloads/splats.tab is named from its line of the fixture
# console, the first kind that matches wins, and an OOM report, a decision
# and lockdep turning itself off are no splat.
t_unit_splats_are_named_from_the_registry() {
	local fx=$LAB_ROOT/lab/test/fixtures/splats got kinds
	got=$(log_splats "$fx/console.log" | jq -r '.[] | "\(.kind)\t\(.line)"')
	printf '%s\n' "$got"
	diff <(printf '%s\n' "$got") "$fx/expected" || fail "log_splats differs from $fx/expected"
	kinds=$(registry_names "$LAB_ROOT/workloads/splats.tab" | tr ' ' '\n' | sort)
	[ "$kinds" = "$(cut -f1 "$fx/expected" | sort -u)" ] || fail "a kind of splats.tab has no line in the fixture"
	[ "$(log_splats /dev/null)" = "[]" ] || fail "an empty console has splats"
}

# COLUMN@BUILD runs a column's sysctls on another flavour of its build,
# scaled on a debug build (deadlines, the LCA pairing window); PAIRING=cyclic
# gives each kernel a block per swap setting (make run-debug: 11 cells, the
# five modes that make LCA decisions in each swap setting; build without
# swap only).
t_unit_column_on_another_build() {
	local plan
	plan=$(plan_of "$LAB_ROOT" KERNELS=lca-2005@lca-debug WORKLOADS=a)
	jq -e --argjson s "$DEBUG_TIME_SCALE" '.kernel == {column: "lca-2005@lca-debug", build: "lca-debug",
		sysctls: ["vm.oom_kill_lca=2", "vm.oom_kill_lca_score=2"], time_scale: $s}' <<<"$plan" >/dev/null ||
		fail "lca-2005@lca-debug: $(jq -c .kernel <<<"$plan")"
	jq -e '.kernel.time_scale == 1' <<<"$(plan_of "$LAB_ROOT" KERNELS=lca WORKLOADS=a)" \
		>/dev/null || fail "a build that is not a debug build got a time scale"
	plan=$(plan_of "$LAB_ROOT" KERNELS=lca@lca-debug,lca WORKLOADS=a)
	jq -e -s --argjson s "$DEBUG_TIME_SCALE" 'map(.kernel.sysctls[] | select(startswith("vm.oom_kill_lca_window_ms=")))
		| sort == (["vm.oom_kill_lca_window_ms=\(30000 * $s)", "vm.oom_kill_lca_window_ms=30000"] | sort)' \
		<<<"$plan" >/dev/null ||
		fail "the pairing window is not scaled on the debug build alone: $(jq -c .kernel.sysctls <<<"$plan")"
	expect_exit 2 "stock@lca-debug': lca-debug is not a flavour of stock's build stock" \
		env KERNELS=stock@lca-debug "$LAB_ROOT/lab/plan"
	expect_exit 2 "kernel 'lca@nope': unknown build 'nope'" env KERNELS=lca@nope "$LAB_ROOT/lab/plan"
	expect_exit 2 "unknown PAIRING 'zigzag' \(cross, cyclic\)" env PAIRING=zigzag "$LAB_ROOT/lab/plan"
	plan=$(EXPERIMENT=debug "$LAB_ROOT/lab/plan")
	[ "$(wc -l <<<"$plan")" -eq 11 ] || fail "the debug experiment has $(wc -l <<<"$plan") cells, not 11"
	jq -e -s '(group_by(.swap) | map([.[0].swap, (map(.kernel.column) | unique | length),
		(map(.workload.name) | unique | length)])) == [["off", 5, 6], ["on", 5, 5]]
		and all(.[]; .kernel.build == "lca-debug" and (.kernel.sysctls | index("vm.oom_kill_lca=0") | not))
		and (group_by(.kernel.column) | all(length >= 2))
		and all(.[]; .swap == "off" or .workload.name != "build")' \
		<<<"$plan" >/dev/null || fail "a policy mode or a workload is missing from a swap setting, or rule 0 is in"
}

# SURVIVAL_CLOCK=icount: each cell's guest counts instructions
# (SURVIVAL_ICOUNT) on one vCPU; under wall on GUEST_CPUS, no icount.
t_unit_survival_clock_in_plan() {
	local plan
	plan=$(plan_of "$LAB_ROOT" KERNELS=lca WORKLOADS=a SURVIVAL_CLOCK=icount SURVIVAL_ICOUNT=shift=3)
	jq -e '.guest | .clock == "icount" and .icount == "shift=3" and .cpus == 1' <<<"$plan" >/dev/null ||
		fail "icount: $(jq -c .guest <<<"$plan")"
	plan=$(plan_of "$LAB_ROOT" KERNELS=lca WORKLOADS=a SURVIVAL_CLOCK=wall)
	jq -e --argjson c "$GUEST_CPUS" '.guest | .clock == "wall" and (has("icount") | not) and .cpus == $c' \
		<<<"$plan" >/dev/null || fail "wall: $(jq -c .guest <<<"$plan")"
	expect_exit 2 "unknown clock 'sundial' in SURVIVAL_CLOCK" env SURVIVAL_CLOCK=sundial "$LAB_ROOT/lab/plan"
	expect_exit 2 "SURVIVAL_CLOCK is one clock" env SURVIVAL_CLOCK="wall icount" "$LAB_ROOT/lab/plan"
}
