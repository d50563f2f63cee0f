# shellcheck shell=bash
# Plans and the matrix runner: lab/plan, lab/run (cells faked, or one
# real cell), resuming, JOBS, shards, the matrix dimensions.

# lab/run's plan for a throw-away results dir.
run_matrix() {
	RESULTS=$results DRY_RUN=1 "$LAB_ROOT/lab/run"
}

t_unit_run_order_is_complete_and_interleaved() {
	local results cells
	results=$(mktemp -d)
	cells=$(KERNELS="stock lca" SWAP="off on" WORKLOADS="a b folkert prefork build leak" REPS=3 DEFENCES=none run_matrix)
	[ "$(wc -l <<<"$cells")" -eq 72 ] || fail "$(wc -l <<<"$cells") cells, expected 72"
	[ -z "$(sort <<<"$cells" | uniq -d)" ] || fail "a cell is listed twice"
	# each (rep, workload, swap) block runs both kernels back to back, and
	# the kernel that goes first alternates between blocks
	awk 'NR % 2 == 1 { b = $1 $2 $3; first[NR] = $4 } NR % 2 == 0 && $1 $2 $3 != b { exit 1 }' <<<"$cells" ||
		fail "a block's kernels are not adjacent"
	[ "$(awk 'NR % 2 == 1 { print $4 }' <<<"$cells" | sort | uniq -c | awk '{ print $1 }' | xargs)" = "18 18" ] ||
		fail "the kernel that runs first does not alternate"
	[ "$(sed -n 1p <<<"$cells" | cut -d' ' -f2-3)" != "$(sed -n 3p <<<"$cells" | cut -d' ' -f2-3)" ] ||
		fail "blocks are not shuffled"
}

# The reference experiment crosses everything without swap and keeps only
# the bombs on stock, lca and lca-2005 without a large process with swap
# (CELLS_WHERE); the quick matrix is a subset of it.
t_unit_reference_and_quick_matrix() {
	local results cells quick on w
	results=$(mktemp -d)
	cells=$(EXPERIMENT=reference "$LAB_ROOT/lab/plan")
	[ "$(wc -l <<<"$cells")" -eq 345 ] || fail "$(wc -l <<<"$cells") reference cells, expected 345"
	# the swap-on deadlines are the registry's
	on=$(for w in a b folkert; do workload_json "$w"; done | jq -s -c 'map({(.name): .swap_deadline_s}) | add')
	jq -e -s --argjson on "$on" 'map(select(.swap == "on")) | length == 45 and all(.workload.kind == "bomb"
		and .desktop.name == "article-nobig" and .workload.deadline_s == $on[.workload.name]
		and (.kernel.column | IN("stock", "lca", "lca-2005")))' <<<"$cells" >/dev/null ||
		fail "the reference's swap-on cells are not the 45 bomb cells it names, with the registry's deadlines"
	jq -e -s 'map(select(.swap == "off")) | length == 300 and (map(.kernel.column) | unique | length) == 5' \
		<<<"$cells" >/dev/null || fail "the reference does not cross every policy without swap"
	quick=$("$LAB_ROOT/lab/plan" | jq -c 'del(.experiment, .rep)' | sort -u)
	[ -z "$(comm -23 <(printf '%s\n' "$quick") <(jq -c 'del(.experiment, .rep)' <<<"$cells" | sort -u))" ] ||
		fail "a cell of the quick matrix is not in the reference experiment"
	expect_exit 2 "CELLS_WHERE is not a jq condition on a cell: '.swap =='" \
		env CELLS_WHERE=".swap ==" RESULTS="$results" "$LAB_ROOT/lab/plan"
	[ "$(CELLS_WHERE='.kernel.column == "lca"' KERNELS=stock,lca SWAP=off WORKLOADS=a REPS=1 DESKTOPS=flat run_matrix)" = "1 a off lca none" ] ||
		fail "CELLS_WHERE did not keep only the lca cell"
}

t_unit_run_rejects_bad_input() {
	local results
	results=$(mktemp -d)
	expect_exit 2 "REPS must be a positive number, not '0'" env REPS=0 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown workload 'zz'" env WORKLOADS=a,zz RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown kernel 'nope'" env KERNELS=nope RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown swap setting 'maybe'" env SWAP=maybe RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown workload 'zz'" "$LAB_ROOT/lab/run-cell" stock off zz "$results/x"
	expect_exit 2 "unknown kernel 'nope'" "$LAB_ROOT/lab/run-cell" nope off a "$results/x"
	expect_exit 2 "unknown swap setting '1'" "$LAB_ROOT/lab/run-cell" stock 1 a "$results/x"
	# make checks the plan before it builds anything, dry or not
	expect_exit 2 "unknown kernel 'foo'" make -s -C "$LAB_ROOT" run KERNELS=foo RESULTS="$results"
	expect_exit 2 "unknown workload 'nosuch'" env DRY_RUN=1 make -s -C "$LAB_ROOT" run WORKLOADS=nosuch \
		LAB_BUILD="$results/build" RESULTS="$results"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results: $(ls -A "$results")"
}

# The matrix loop for real, each cell faked by a fixture's record.
# fake_run [COLUMN]: two cells of workload a on COLUMN (stock), run by
# fake-run-cell.
fake_run() {
	KERNELS=${1:-stock} SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 RUN_ID=r1 RESULTS=$results \
		RUN_CELL=$TEST_FIXTURES/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
}

t_unit_run_appends_and_resumes() {
	local results out wall
	results=$(mktemp -d)
	out=$(fake_run 2>&1) || fail "the run failed: $out"
	printf '%s\n' "$out"
	grep -q 'cell 2/2 .* persists in .*ETA' <<<"$out" || fail "no progress line for cell 2/2"
	[ "$(wc -l <"$results/r1/runs.jsonl")" -eq 2 ] || fail "expected 2 records"
	"$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$results/r1/runs.jsonl" || fail "records do not follow the schema"
	[ -f "$results/r1/cells/1-a-off-stock/console.log.gz" ] || fail "the raw log is not kept beside the record"
	# as if interrupted after the first cell: only the second one runs again
	sed -i 2d "$results/r1/runs.jsonl"
	[ "$(DRY_RUN=1 fake_run)" = "2 a off stock none" ] || fail "the resumed run would not run just rep 2"
	# without RUN_ID the newest unfinished run of the same matrix is resumed
	[ "$(KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 RESULTS=$results DRY_RUN=1 "$LAB_ROOT/lab/run")" = "2 a off stock none" ] ||
		fail "the unfinished run is not picked without RUN_ID"
	wall=$(jq -r '.wall_s | ceil' "$results/r1/runs.jsonl")
	out=$(fake_run 2>&1)
	grep -q '1 to run' <<<"$out" || fail "resume did not say 1 to run: $out"
	grep -q "ETA $((wall / 60)):$(printf %02d $((wall % 60)))\$" <<<"$out" ||
		fail "the resumed ETA is not the time of the finished cell of its kind ($wall s): $out"
	out=$(fake_run 2>&1)
	grep -q 'nothing to do' <<<"$out" || fail "a complete run is run again: $out"
	# a lab error is shown in the results but its cell runs again
	jq -c '.outcome = "lab-error"' "$results/r1/runs.jsonl" >"$results/x"
	mv "$results/x" "$results/r1/runs.jsonl"
	[ "$(DRY_RUN=1 fake_run | wc -l)" -eq 2 ] || fail "lab-error cells are not retried"
}

# counted_run: the matrix loop on the instruction-counting clock, cells
# faked, two columns of workload a twice (4 cells); JOBS, SHARD and
# RUN_ID from the caller.
counted_run() {
	KERNELS=stock,lca SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 SURVIVAL_CLOCK=icount RESULTS=$results \
		RUN_CELL=$TEST_FIXTURES/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
}

# Two cells at once, and the same run in two shards run by GNU parallel's
# local workers (as on two hosts: README) and merged: the same plan and
# the same cells' records as the run made whole.
t_unit_run_jobs_and_shards() {
	local results out cells
	results=$(mktemp -d)
	out=$(JOBS=2 RUN_ID=whole counted_run 2>&1) || fail "JOBS=2 failed: $out"
	grep -q 'cell 4/4 .* persists in .*ETA' <<<"$out" || fail "no progress line for cell 4/4: $out"
	"$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$results/whole/runs.jsonl" || fail "records do not follow the schema"
	jq -e -s 'length == 4 and all(.host.jobs == 2 and .host.cpus > 0)' "$results/whole/runs.jsonl" >/dev/null ||
		fail "not 4 records that say 2 cells ran at once"
	export results LAB_ROOT
	export -f counted_run
	parallel --will-cite --sshlogin 2/: 'SHARD={}/2 RUN_ID=part{} counted_run' ::: 1 2 >/dev/null 2>&1 ||
		fail "a shard failed"
	[ "$(jq -s length "$results/part1/runs.jsonl")" = 2 ] || fail "shard 1/2 did not run half the cells"
	"$LAB_ROOT/lab/merge" "$results/merged" "$results/part2" "$results/part1" || fail "the merge failed"
	cmp -s "$results/whole/plan.jsonl" "$results/merged/plan.jsonl" || fail "the merged run has another plan"
	[ "$(jq -c -s 'map(.cell)' "$results/merged/runs.jsonl")" = "$(jq -c -s . "$results/whole/plan.jsonl")" ] ||
		fail "the merged records are not the plan's cells in its order"
	[ "$(jq -c -s 'map(.cell) | sort_by(.id)' "$results/merged/runs.jsonl")" = \
		"$(jq -c -s 'map(.cell) | sort_by(.id)' "$results/whole/runs.jsonl")" ] ||
		fail "the merged run's cells differ from the whole run's"
	[ -f "$results/merged/cells/2-a-off-lca/record.json" ] || fail "a shard's cell directory was not merged"
	jq -e '(.shards | length == 2) and (has("shard") | not)' "$results/merged/meta.json" >/dev/null ||
		fail "meta.json does not list the two shards"
	"$LAB_ROOT/analysis/report" "$results/merged" --no-figures >/dev/null || fail "the merged run has no report"
}

# What JOBS, SHARD and lab/merge refuse, with the reason.
t_unit_run_jobs_and_shards_refuse() {
	local results
	results=$(mktemp -d)
	expect_exit 2 "JOBS=2: cell 1-a-off-stock runs on the wall clock" env JOBS=2 SURVIVAL_CLOCK=wall \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=1 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "JOBS=$(($(nproc) + 1)): this host has $(nproc) cores" env JOBS=$(($(nproc) + 1)) \
		SURVIVAL_CLOCK=icount KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=1 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "JOBS=2 needs 2 x 4194304 MiB of guest memory" env JOBS=2 GUEST_MEM=4T SURVIVAL_CLOCK=icount \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=1 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "JOBS must be a positive number, not 'two'" env JOBS=two RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "SHARD is K/N with K from 1 to N" env SHARD=3/2 RUN_ID=x RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "SHARD=1/2 needs RUN_ID" env SHARD=1/2 RESULTS="$results" "$LAB_ROOT/lab/run"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results: $(ls -A "$results")"
	SHARD=1/2 RUN_ID=p1 counted_run >/dev/null 2>&1 || fail "shard 1/2 failed"
	expect_exit 1 "was run with SHARD='1/2', not '2/2'" env SHARD=2/2 RUN_ID=p1 KERNELS=stock,lca SWAP=off \
		WORKLOADS=a DESKTOPS=flat REPS=2 SURVIVAL_CLOCK=icount RESULTS="$results" RUN_CELL="$TEST_FIXTURES/fake-run-cell" \
		LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
	expect_exit 1 "shard 2/2 is missing" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1"
	expect_exit 1 "shard 1/2 is given twice" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1" "$results/p1"
	REPS=3 SHARD=2/2 RUN_ID=other KERNELS=stock,lca SWAP=off WORKLOADS=a DESKTOPS=flat SURVIVAL_CLOCK=icount \
		RESULTS=$results RUN_CELL=$TEST_FIXTURES/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run" >/dev/null 2>&1 ||
		fail "the other plan's shard failed"
	expect_exit 1 "is a shard of another plan" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1" "$results/other"
	expect_exit 2 "exists: name a new directory" "$LAB_ROOT/lab/merge" "$results/p1" "$results/p1"
	[ ! -e "$results/m" ] || fail "a refused merge left $results/m"
}

t_unit_run_refuses_damaged_results() {
	local results f sum off
	results=$(mktemp -d) f=$results/r1/runs.jsonl
	fake_run >/dev/null 2>&1 || fail "the run failed"
	sed -i '2s/.*/{"schema":1,"rep":/' "$f"
	sum=$(sha256sum "$f")
	expect_exit 1 'runs.jsonl line 2: not a JSON object; nothing was changed' fake_run
	head -1 "$f" | jq -c '.schema = 0' >"$results/x"
	sed -i '2d' "$f" && cat "$results/x" >>"$f"
	sum=$(sha256sum "$f")
	expect_exit 1 'line 2: schema 0, this lab reads 3' fake_run
	[ "$(sha256sum "$f")" = "$sum" ] || fail "runs.jsonl was changed"
	expect_exit 1 'was planned otherwise \(cell 3-a-off-stock is new\)' env REPS=3 \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
	off=$(awk '$1 == "a" { print $3 }' "$LAB_ROOT/workloads/workloads.tab")
	expect_exit 1 "was planned otherwise \\(cell 1-a-off-stock: workload.deadline_s $off -> 21\\)" env DEADLINES=a=21 REPS=2 \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
	[ "$(sha256sum "$f")" = "$sum" ] || fail "runs.jsonl was changed"
	# a runner that leaves no record stops the run and appends nothing
	# (an empty line was appended)
	# shellcheck disable=SC2016 # the runner's own $3
	printf '#!/bin/sh\nmkdir -p "$3" && echo junk >"$3/record.json"\n' >"$results/no-record"
	chmod +x "$results/no-record"
	expect_exit 1 "cell 1-a-off-stock: no-record left no record" env RUN_CELL="$results/no-record" LAB_ACCEL=tcg \
		SURVIVAL_CLOCK=icount KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat REPS=1 RUN_ID=r2 RESULTS="$results" \
		"$LAB_ROOT/lab/run"
	[ ! -s "$results/r2/runs.jsonl" ] || fail "a cell without a record wrote to runs.jsonl"
}

# A run resumed after its kernel changed (another patch or config, or
# another Debian linux-source, between sessions) is refused before anything
# boots, naming both kernels. Its cells are made the built kernel's but for
# the one field each case changes, records included (the old check read
# them). (a boot group test: it compares with the built lca kernel)
t_boot_resume_refuses_another_kernel() {
	local results built field value
	results=$(mktemp -d)
	DEADLINES=a=5 fake_run lca >/dev/null 2>&1 || fail "the fake run failed"
	sed -i 2d "$results/r1/runs.jsonl"
	built=$LAB_BUILD/kernels/lca/kernel.json
	jq -c --slurpfile k "$built" '.series_hash = $k[0].series_hash | .config_hash = $k[0].config_hash' \
		"$results/r1/runs.jsonl" >"$results/x" && mv "$results/x" "$results/r1/runs.jsonl"
	for field in series_hash package_version; do
		value=older-$field
		jq --slurpfile k "$built" --arg f "$field" --arg v "$value" '.build = ($k[0] | .[$f] = $v)' \
			"$results/r1/cells/1-a-off-lca/cell.json" >"$results/x" && mv "$results/x" "$results/r1/cells/1-a-off-lca/cell.json"
		expect_exit 1 "has cells of build 'lca' with .*$value.*; the one built now has package" \
			env DEADLINES=a=5 KERNELS=lca SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
	done
	[ "$(wc -l <"$results/r1/runs.jsonl")" -eq 1 ] || fail "the refused run added a record"
}

# One real cell through make run, then the same command again: it resumes
# (nothing left) and the record follows the schema.
t_boot_make_run_one_cell() {
	local results out
	results=$(mktemp -d "$LAB_BUILD/boots/test-run-XXXX")
	out=$(make -s -C "$LAB_ROOT" run KERNELS=lca SWAP=off WORKLOADS=folkert DEADLINES=folkert=8 REPS=1 \
		RESULTS="$results" RUN_ID=one 2>&1) ||
		fail "make run failed: $out"
	printf '%s\n' "$out"
	grep -q 'cell 1/1 .*ETA' <<<"$out" || fail "no progress line"
	f=$(ls "$results"/*/runs.jsonl)
	[ "$(wc -l <"$f")" -eq 1 ] || fail "expected one record in $f"
	"$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$f" || fail "the record does not follow the schema"
	jq -e '.cell.kernel.column == "lca" and .cell.workload.name == "folkert" and .accel != null and (.lca_decisions | type) == "array"' "$f" >/dev/null ||
		fail "the record lacks what was asked: $(cat "$f")"
	jq -r '"outcome: \(.outcome) (\(.outcome_reason)); decisions \(.lca_decisions | length), killed \(.lca_killed)"' "$f"
	[ -f "$(dirname "$f")/$(jq -r .cell_dir "$f")/console.log.gz" ] || fail "no console log beside the record"
	# the guest's lines follow their schema, of the version the driver names
	zcat "$(dirname "$f")/$(jq -r .cell_dir "$f")/channel.log.gz" | jq -c -R 'fromjson? | objects' >"$results/channel.jsonl"
	jq -e -s 'map(select(.type == "settings")) | length == 1 and .[0].schema == 1' "$results/channel.jsonl" >/dev/null ||
		fail "the driver's settings do not name channel schema 1"
	"$LAB_ROOT/analysis/validate" "$LAB_ROOT/analysis/channel.schema.json" "$results/channel.jsonl" ||
		fail "the guest's channel lines do not follow analysis/channel.schema.json"
	out=$(make -s -C "$LAB_ROOT" run KERNELS=lca SWAP=off WORKLOADS=folkert DEADLINES=folkert=8 REPS=1 \
		RESULTS="$results" RUN_ID=one 2>&1)
	grep -q 'nothing to do' <<<"$out" || fail "the rerun did not resume: $out"
}

# Inside a guest, past the guard: each workload refuses a bad parameter
# with exit 2 and one line saying what is wrong.
t_boot_workloads_reject_bad_parameters() {
	local d line
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	# shellcheck disable=SC2016 # expands in the guest
	boot_guest "$d" --kernel "$(boot_build)" -- 'cd /lab/workloads
		for c in "./a.sh -m x" "./b.sh -d y" "folkert -s 0" "prefork -w 0" "./build.sh -j x" "./leak.sh -r 0" "lcalab-run -s nokey /bin/true"; do
			msg=$($c 2>&1 >/dev/null); rc=$?; echo "rc=$rc ${c%% *}: ${msg%%$'"'"'\n'"'"'*}"
		done'
	for want in "a.sh: -m wants whole KB, not 'x'" "b.sh: -d wants seconds, not 'y'" \
		"folkert: -s wants a positive byte count, not '0'" "prefork: -w wants a whole number >= 1, not '0'" \
		"build.sh: options want positive whole numbers, not 'x'" "leak.sh: options want positive whole numbers, not '0'" \
		"lcalab-run: -s wants KEY=VALUE (at most 16), not 'nokey'"; do
		grep -qF "$want" "$d/channel.log" || fail "no refusal: $want"
	done
	while read -r line; do
		[[ $line != rc=* ]] || [[ $line == "rc=2 "* ]] || fail "not exit 2: $line"
	done <"$d/channel.log"
}

# Desktops cross the matrix like defences: each cell names its desktop (the
# flat one, the lab's first, keeps the keys of runs older than desktops),
# the driver gets the desktop's shape and browser, and the tables get a
# table per desktop and swap setting, titled.
t_unit_desktops_are_a_matrix_dimension() {
	local results cells line dir
	results=$(mktemp -d)
	cells=$(KERNELS=lca SWAP=off WORKLOADS=a DESKTOPS="flat,article-nobig" REPS=1 run_matrix)
	[ "$(sort <<<"$cells" | xargs)" = "1 a off lca none 1 a off lca none article-nobig" ] || fail "unexpected plan: $cells"
	line=$(EXPERIMENT=matrix KERNELS=lca SWAP=off WORKLOADS=a DEFENCES=none DESKTOPS=article-nobig REPS=1 "$LAB_ROOT/lab/plan")
	jq -e '.key == "a off lca none article-nobig" and .id == "1-a-off-lca-article-nobig"
		and .desktop == {name: "article-nobig", shape: "article", browser_mb: 0, session: "lab",
		                 what: "the 2005 patch notes'"'"' desktop with no large process (the browser holds nothing)"}' <<<"$line" >/dev/null ||
		fail "plan line: $line"
	expect_exit 2 "unknown desktop 'attic' \(workloads/desktops.tab has: flat article" \
		env DESKTOPS=attic RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown desktop 'attic'" "$LAB_ROOT/lab/run-cell" --desktop attic stock off a "$results/x"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	# two desktops in one run: a column each, and the records find theirs
	dir=$(small_run)
	jq -c '.matrix.desktops = ["flat", "article"]' "$dir/meta.json" >"$dir/m" && mv "$dir/m" "$dir/meta.json"
	jq -c 'def article: .desktop = {name: "article", shape: "article", browser_mb: 64, session: "lab", what: "t"}
			| .key += " article" | .id += "-article";
		if has("cell") then .cell |= article | .key = .cell.key | .id = .cell.id
			| .cell_dir = "cells/\(.id)" | .outcome = "clean"
		else article end | select(.id | contains("-a-"))' "$dir/plan.jsonl" "$dir/runs.jsonl" >"$dir/more"
	grep -v '"schema"' "$dir/more" >>"$dir/plan.jsonl"
	grep '"schema"' "$dir/more" >>"$dir/runs.jsonl"
	"$LAB_ROOT/analysis/report" "$dir" --section survival | tee "$dir/survival"
	[ "$(grep -c '^\*\(flat\|article\), swap \(on\|off\)\*$' "$dir/survival")" -eq 4 ] ||
		fail "not a table per desktop and swap setting"
	grep -A2 -Fx '*flat, swap on*' "$dir/survival" | grep -qFx '| workload | stock | lca |' || fail "no column per kernel"
	grep -qE '^\| a \| 1/1 clean \(2\.5–100%\) \| 1/1 clean' "$dir/survival" || fail "the article cells lost their records"
}

t_unit_defences_are_a_matrix_dimension() {
	local results cells
	results=$(mktemp -d)
	cells=$(KERNELS="stock lca" SWAP=off WORKLOADS=a DEFENCES="none,pids" DESKTOPS=flat REPS=1 run_matrix)
	[ "$(sort <<<"$cells" | xargs)" = "$(printf '%s\n' "1 a off lca none" "1 a off lca pids" "1 a off stock none" "1 a off stock pids" | xargs)" ] ||
		fail "unexpected plan: $cells"
	expect_exit 2 "unknown defence 'moat' \(workloads/defences.tab has: none nproc" \
		env DEFENCES=moat RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown defence 'moat'" "$LAB_ROOT/lab/run-cell" --defence moat stock off a "$results/x"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
}

# pids.max refuses the bomb's forks, and the record says so.
t_boot_defence_pids_acts() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-pids-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 10 --defence pids lca-off off folkert "$d" >"$d/out.json" ||
		fail "run-cell failed"
	jq -c '{outcome, defence: .cell.defence.name, acted, defence_evidence, peak_workload_tasks}' "$d/out.json"
	jq -e '.cell.defence.name == "pids" and .defence_evidence.pids_max_refusals > 0 and (.acted | index("pids.max"))
		and .peak_workload_tasks <= .defence_evidence.pids_max' "$d/out.json" >/dev/null || fail "pids.max did not act"
}

# earlyoom runs in the guest (the rootfs has it) and its kills are counted.
t_boot_defence_earlyoom_runs() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-earlyoom-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 8 --defence earlyoom lca-off off leak "$d" >"$d/out.json" ||
		fail "run-cell failed"
	jq -c '{outcome, defence: .cell.defence.name, acted, defence_evidence, oom_kills}' "$d/out.json"
	jq -e '.cell.defence.name == "earlyoom" and (.defence_evidence.earlyoom_kills | type) == "number"' "$d/out.json" >/dev/null ||
		fail "earlyoom did not run"
}

# A leak with swap beside DEFENCE on lca-off, to its end, with run-cell's
# OPTIONs if any: prints the record's summary and the defence's console
# lines (LABEL: ...); sets $cell to the cell's directory.
#   leak_with_swap_beside DEFENCE LABEL [OPTION...]
leak_with_swap_beside() {
	cell=$(mktemp -d "$LAB_BUILD/boots/test-$1-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 120 --defence "$1" "${@:3}" lca-off on leak "$cell" >"$cell/out.json" ||
		fail "run-cell failed ($cell)"
	jq -c '{outcome, defence, acted, defence_evidence, oom_kills, t_end_s}' "$cell/out.json"
	grep -o "$2: .*" "$cell/console.log" || true
}

# nohang runs in the guest (the rootfs has it) as its desktop unit does,
# and acts: a leak with swap drives memory and swap under its thresholds,
# and it signals the leak before the kernel's OOM killer does.
t_boot_defence_nohang_acts() {
	local cell
	leak_with_swap_beside nohang nohang
	jq -e '.cell.defence.name == "nohang" and .defence_evidence.nohang_running == true
		and .defence_evidence.nohang_workload_actions > 0 and (.acted | index("nohang"))' "$cell/out.json" \
		>/dev/null || fail "nohang did not signal the workload ($cell)"
}

# systemd-oomd runs in the guest (the rootfs has it; oomd-pid1 plays PID
# 1's side of its subscription) and acts: a leak with swap fills it, and
# oomd kills the workload's cgroup before the kernel's OOM killer does
# (measured: at 25 s, no OOM kill), and is still monitoring at the end.
t_boot_defence_oomd_acts() {
	local cell
	leak_with_swap_beside oomd systemd-oomd
	jq -e '.cell.defence.name == "oomd" and .defence_evidence.oomd_running == true
		and .defence_evidence.oomd_workload_kills > 0 and (.acted | index("systemd-oomd"))' "$cell/out.json" \
		>/dev/null || fail "systemd-oomd did not kill the workload's cgroup ($cell)"
}

# A systemd desktop (debian12-nobig) runs in the lab's user's session:
# systemd is PID 1, the driver's cgroups are under user@1000.service's
# app.slice (SYSTEMD_SESSION_CGROUP), so the user slice's TasksMax (33%)
# bounds the bomb: folkert stops at about 600 tasks with no OOM kill, its
# forks refused (fork_refusals), and TasksMax is what acted.
t_boot_systemd_desktop_is_in_the_session() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-systemd-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 30 --desktop debian12-nobig lca off folkert "$d" >"$d/out.json" ||
		fail "run-cell failed ($d)"
	jq -c '{outcome, outcome_reason, oom_kills, peak_workload_tasks, desktop}' "$d/out.json"
	jq -e '.init == "systemd"' "$d/boot.json" >/dev/null || fail "not a systemd guest ($d)"
	grep '"type":"settings"' "$d/channel.log" | jq -e --arg cg "$SYSTEMD_SESSION_CGROUP" '.cgroup == $cg' \
		>/dev/null || fail "the desktop is not in $SYSTEMD_SESSION_CGROUP ($d)"
	jq -e '.outcome != "lab-error" and .outcome != "hung" and .cell.desktop.name == "debian12-nobig"' "$d/out.json" \
		>/dev/null || fail "the cell ended $(jq -r '.outcome + ": " + .outcome_reason' "$d/out.json") ($d)"
	# 33% of the guest's 1,844 threads-max, counted over the whole session
	jq -e '.peak_workload_tasks <= 608' "$d/out.json" >/dev/null ||
		fail "the bomb grew past the user slice's TasksMax: $(jq .peak_workload_tasks "$d/out.json") tasks ($d)"
	jq -e '.fork_refusals > 0 and (.acted | index("TasksMax"))' "$d/out.json" >/dev/null ||
		fail "TasksMax did not act: $(jq -c '{fork_refusals, acted}' "$d/out.json") ($d)"
}

# systemd-oomd as a Debian 12 desktop runs it: in the systemd guest, no
# stand-in for PID 1; a leak with swap in the user's session is killed by
# oomd (its swap rule on -.slice or its pressure rule on user@1000.service),
# which started with swap on. Nothing else acted: until 2026-12-06
# earlyoom also ran at boot, and in one run of make test its SIGTERM
# ended each leak before oomd acted ("inconclusive").
t_boot_defence_oomd_in_session_acts() {
	local cell
	leak_with_swap_beside oomd systemd-oomd --desktop debian12-nobig
	jq -e '.defence_evidence.oomd_running == true and .defence_evidence.oomd_workload_kills > 0
		and (.acted | index("systemd-oomd"))' "$cell/out.json" >/dev/null ||
		fail "systemd-oomd did not kill the workload's cgroup in the session ($cell)"
	! grep -q 'systemd-oomd: No swap' "$cell/console.log" || fail "systemd-oomd started without swap ($cell)"
	! grep -q '^Terminated' "$cell/console.log" || fail "something sent the leak SIGTERM ($cell)"
}

# The article shape is the tree lcalab-run documents (the 2005 patch notes'
# desktop): the session
# manager parents the editor, the browser and the terminal emulator, which
# parents the terminal shell that started the workload.
t_boot_article_desktop_is_a_tree() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-article-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 3 --desktop article-nobig lca off prefork "$d" >"$d/out.json" ||
		fail "run-cell failed ($d)"
	jq -c '{desktop: .cell.desktop.name, outcome, probe_pids, probe_ppids, settings}' "$d/out.json"
	jq -e '.cell.desktop.name == "article-nobig" and .settings.browser_mb == 0 and .probe_pids as $p | .probe_ppids as $pp
		| $pp.editor == $p.session and $pp.browser == $p.session and $pp.emulator == $p.session
		  and $pp.terminal == $p.emulator and $pp.session != $p.daemon' "$d/out.json" >/dev/null ||
		fail "the desktop is not the article shape's tree ($d)"
	zcat -f "$d"/channel.log* | grep -q '"desktop_shape":"article"' || fail "the driver did not build the article's desktop"
}

# make -n prints the runs' recipes and starts nothing: no plan run, no
# build, no cell (the runs' recipes called $(MAKE), which GNU make runs
# even under -n, so make -n reference started the reference run).
t_unit_make_n_starts_nothing() {
	local results target
	results=$(mktemp -d)
	for target in run reference run-defences run-debug overhead; do
		RUN_CELL=$TEST_FIXTURES/fake-run-cell make -n -C "$LAB_ROOT" "$target" KERNELS=stock SWAP=off WORKLOADS=a \
			REPS=1 RESULTS="$results" LAB_BUILD="$results/build" >"$results.out" 2>&1 ||
			fail "make -n $target failed: $(cat "$results.out")"
		grep -q 'lab/experiment' "$results.out" || fail "make -n $target did not print lab/experiment"
		[ -z "$(ls -A "$results")" ] || fail "make -n $target wrote into $results: $(ls -A "$results")"
	done
}

# make clock-check (lab/clock-check): per clock, the clock experiment on an
# idle host and beside busy loops, then the busy run compared with the
# idle one; the busy loops end with it, even when it fails.
t_unit_clock_check() {
	local results out
	results=$(mktemp -d)
	out=$(RESULTS=$results CLOCK_HOGS=1 REPS=1 KERNELS=lca,stock WORKLOADS=a RUN_CELL=$TEST_FIXTURES/fake-run-cell \
		LAB_ACCEL=tcg "$LAB_ROOT/lab/clock-check" icount 2>&1) || fail "clock-check failed: $out"
	printf '%s\n' "$out" | tail -5
	for load in idle busy; do
		jq -e -s 'map(select(.cell.guest.clock == "icount" and .cell.experiment == "clock")) | length == 2' \
			"$results/clock-check-icount-$load/runs.jsonl" >/dev/null ||
			fail "not the 2 cells of the clock experiment on the icount clock, host $load"
	done
	grep -q '^# Compare .*clock-check-icount-idle (BASE) with .*clock-check-icount-busy (NEW)' <<<"$out" ||
		fail "no compare of the busy run with the idle one"
	grep -q '^# Compare .*clock-check-icount-busy (BASE) with .*clock-check-icount-idle (NEW)' <<<"$out" ||
		fail "no compare the other way"
	grep -q '^icount clock: no difference detected' <<<"$out" || fail "no summary line for the icount clock"
	pgrep -f "clock-check-hog $results\$" >/dev/null && fail "a busy loop outlived clock-check"
	expect_exit 2 "unknown clock 'sundial'" env RESULTS="$results" "$LAB_ROOT/lab/clock-check" sundial
	expect_exit 2 "CLOCK_HOGS must be a number" env CLOCK_HOGS=many "$LAB_ROOT/lab/clock-check" icount
	expect_exit 2 "CLOCK_HOGS must be a number of busy loops \(1 or more\)" env CLOCK_HOGS=0 \
		"$LAB_ROOT/lab/clock-check" icount
	# a busy run that fails (its directory was planned otherwise) stops the
	# busy loops too
	mkdir "$results/again"
	cp -r "$results/clock-check-icount-busy" "$results/again/"
	RESULTS=$results/again CLOCK_HOGS=1 REPS=2 KERNELS=lca WORKLOADS=a RUN_CELL=$TEST_FIXTURES/fake-run-cell \
		LAB_ACCEL=tcg "$LAB_ROOT/lab/clock-check" icount >/dev/null 2>&1 && fail "a run planned otherwise did not fail"
	[ -s "$results/again/clock-check-icount-idle/runs.jsonl" ] || fail "the idle run did not come first"
	pgrep -f "clock-check-hog $results/again\$" >/dev/null && fail "a busy loop outlived a failed clock-check"
	true
}
