# shellcheck shell=bash
# Records, outcome classes and the matrix runner: host-side tests on the
# committed fixture runs (lab/test/fixtures/cells/CLASS: real runs' files,
# the timeline trimmed), and one real cell.

fixtures=$LAB_ROOT/lab/test/fixtures
schema=$LAB_ROOT/analysis/record.schema.json

# Every fixture's record has the outcome its directory is named after,
# and follows the schema.
t_unit_record_classifies_each_fixture() {
	local d want got recs c n=0
	recs=$(mktemp)
	for d in "$fixtures"/cells/*/; do
		want=$(basename "$d")
		want=${want%%-[0-9]*}
		"$LAB_ROOT/analysis/record" "$d" >>"$recs"
		got=$(tail -1 "$recs" | jq -r .outcome)
		printf '%-28s %-11s %s\n' "$(basename "$d")" "$got" "$(tail -1 "$recs" | jq -r .outcome_reason)"
		[ "$got" = "$want" ] || fail "$(basename "$d"): outcome $got, expected $want"
		n=$((n + 1))
	done
	"$LAB_ROOT/analysis/validate" "$schema" "$recs" || fail "a fixture record does not follow the schema"
	# each record names the classifier that made it
	c=$(cd "$LAB_ROOT" && cat analysis/record analysis/outcome.jq workloads/splats.tab | sha256sum | cut -c1-16)
	jq -e -s --arg c "$c" 'all(.classifier == $c)' "$recs" >/dev/null || fail "a record does not name classifier $c"
	# the first OOM victim: a bomb member in the clean run, the 64 MB browser
	# probe in the collateral one, none where nothing was killed
	"$LAB_ROOT/analysis/record" "$fixtures/cells/clean" | jq -e '.first_victim | .comm == "b.sh" and .bomb_member' >/dev/null ||
		fail "clean: the first victim is not the bomb member"
	"$LAB_ROOT/analysis/record" "$fixtures/cells/collateral" |
		jq -e '.first_victim | .comm == "probe" and (.bomb_member | not) and .anon_rss_kb == 65412' >/dev/null ||
		fail "collateral: the first victim is not the browser probe"
	"$LAB_ROOT/analysis/record" "$fixtures/cells/inconclusive" | jq -e '.first_victim == null' >/dev/null ||
		fail "inconclusive: a first victim without an OOM kill"
	# a splat is not a panic: the KASAN report is recorded, the run is clean
	"$LAB_ROOT/analysis/record" "$fixtures/cells/clean-2" |
		jq -e '.kernel_splats == [{kind: "kasan", line: "BUG: KASAN: slab-use-after-free in oom_lca_credit+0x4c/0x120"}]' >/dev/null ||
		fail "clean-2: the KASAN report is not a kasan splat"
	for want in clean collateral persists survived killed inconclusive hung stalled panic lab-error; do
		ls -d "$fixtures/cells/$want"* >/dev/null 2>&1 || fail "no fixture for class $want"
	done
	echo "$n fixtures"
}

t_unit_validate_names_the_bad_line() {
	local f
	f=$(mktemp)
	"$LAB_ROOT/analysis/record" "$fixtures/cells/persists" >"$f"
	"$LAB_ROOT/analysis/record" "$fixtures/cells/persists" | jq -c '.rep = 0 | del(.outcome)' >>"$f"
	echo 'not json' >>"$f"
	expect_exit 1 ":2: record: 'outcome' is a required property" "$LAB_ROOT/analysis/validate" "$schema" "$f"
	expect_exit 1 ':2: record.rep: 0 is less than the minimum of 1' "$LAB_ROOT/analysis/validate" "$schema" "$f"
	expect_exit 1 ':3: not JSON' "$LAB_ROOT/analysis/validate" "$schema" "$f"
	"$LAB_ROOT/analysis/validate" "$schema" <(head -1 "$f") || fail "a good record was refused"
}

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
		RUN_CELL=$fixtures/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
}

t_unit_run_appends_and_resumes() {
	local results out wall
	results=$(mktemp -d)
	out=$(fake_run 2>&1) || fail "the run failed: $out"
	printf '%s\n' "$out"
	grep -q 'cell 2/2 .* persists in .*ETA' <<<"$out" || fail "no progress line for cell 2/2"
	[ "$(wc -l <"$results/r1/runs.jsonl")" -eq 2 ] || fail "expected 2 records"
	"$LAB_ROOT/analysis/validate" "$schema" "$results/r1/runs.jsonl" || fail "records do not follow the schema"
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
		RUN_CELL=$fixtures/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
}

# Two cells at once, and the same run in two shards run by GNU parallel's
# local workers (as on two hosts: README) and merged: the same plan and
# the same cells' records as the run made whole.
t_unit_run_jobs_and_shards() {
	local results out cells
	results=$(mktemp -d)
	out=$(JOBS=2 RUN_ID=whole counted_run 2>&1) || fail "JOBS=2 failed: $out"
	grep -q 'cell 4/4 .* persists in .*ETA' <<<"$out" || fail "no progress line for cell 4/4: $out"
	"$LAB_ROOT/analysis/validate" "$schema" "$results/whole/runs.jsonl" || fail "records do not follow the schema"
	jq -e -s 'length == 4 and all(.host.jobs == 2 and .host.cpus > 0)' "$results/whole/runs.jsonl" >/dev/null ||
		fail "not 4 records that say 2 cells ran at once"
	export results fixtures LAB_ROOT
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
	"$LAB_ROOT/analysis/report" "$results/merged" >/dev/null || fail "the merged run has no report"
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
		WORKLOADS=a DESKTOPS=flat REPS=2 SURVIVAL_CLOCK=icount RESULTS="$results" RUN_CELL="$fixtures/fake-run-cell" \
		LAB_ACCEL=tcg "$LAB_ROOT/lab/run"
	expect_exit 1 "shard 2/2 is missing" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1"
	expect_exit 1 "shard 1/2 is given twice" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1" "$results/p1"
	REPS=3 SHARD=2/2 RUN_ID=other KERNELS=stock,lca SWAP=off WORKLOADS=a DESKTOPS=flat SURVIVAL_CLOCK=icount \
		RESULTS=$results RUN_CELL=$fixtures/fake-run-cell LAB_ACCEL=tcg "$LAB_ROOT/lab/run" >/dev/null 2>&1 ||
		fail "the other plan's shard failed"
	expect_exit 1 "is a shard of another plan" "$LAB_ROOT/lab/merge" "$results/m" "$results/p1" "$results/other"
	expect_exit 2 "exists: name a new directory" "$LAB_ROOT/lab/merge" "$results/p1" "$results/p1"
	[ ! -e "$results/m" ] || fail "a refused merge left $results/m"
}

t_unit_run_refuses_damaged_results() {
	local results f sum
	results=$(mktemp -d) f=$results/r1/runs.jsonl
	fake_run >/dev/null 2>&1 || fail "the run failed"
	sed -i '2s/.*/{"schema":1,"rep":/' "$f"
	sum=$(sha256sum "$f")
	expect_exit 1 'runs.jsonl line 2: not a JSON object; nothing was changed' fake_run
	head -1 "$f" | jq -c '.schema = 0' >"$results/x"
	sed -i '2d' "$f" && cat "$results/x" >>"$f"
	sum=$(sha256sum "$f")
	expect_exit 1 'line 2: schema 0, this lab reads 2' fake_run
	[ "$(sha256sum "$f")" = "$sum" ] || fail "runs.jsonl was changed"
	expect_exit 1 'was planned otherwise \(cell 3-a-off-stock is new\)' env REPS=3 \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 1 'was planned otherwise \(cell 1-a-off-stock: workload.deadline_s 120 -> 21\)' env DEADLINES=a=21 REPS=2 \
		KERNELS=stock SWAP=off WORKLOADS=a DESKTOPS=flat RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
	[ "$(sha256sum "$f")" = "$sum" ] || fail "runs.jsonl was changed"
}

# A run resumed after its kernel changed (another patch or config between
# sessions) is refused before anything boots, naming both kernels.
# (a boot group test: it compares with the built stock kernel's identity)
t_boot_resume_refuses_another_kernel() {
	local results
	results=$(mktemp -d)
	DEADLINES=a=5 fake_run lca >/dev/null 2>&1 || fail "the fake run failed"
	sed -i 2d "$results/r1/runs.jsonl"
	jq -c '.series_hash = "lca-older"' "$results/r1/runs.jsonl" >"$results/x" && mv "$results/x" "$results/r1/runs.jsonl"
	expect_exit 1 "has records of build 'lca' with series lca-older, config .*; the one built now has series" \
		env DEADLINES=a=5 KERNELS=lca SWAP=off WORKLOADS=a DESKTOPS=flat REPS=2 RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
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
	"$LAB_ROOT/analysis/validate" "$schema" "$f" || fail "the record does not follow the schema"
	jq -e '.kernel == "lca" and .workload == "folkert" and .accel != null and (.lca_decisions | type) == "array"' "$f" >/dev/null ||
		fail "the record lacks what was asked: $(cat "$f")"
	jq -r '"outcome: \(.outcome) (\(.outcome_reason)); decisions \(.lca_decisions | length), killed \(.lca_killed)"' "$f"
	[ -f "$(dirname "$f")/$(jq -r .cell_dir "$f")/console.log.gz" ] || fail "no console log beside the record"
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

# The report, compare and paper of a small committed run (real records of
# the reference run, four cells left out on purpose) against golden files.
small_run() {
	local tmp
	tmp=$(mktemp -d)
	cp -r "$fixtures/run-small" "$tmp/"
	printf '%s\n' "$tmp/run-small"
}

t_unit_report_matches_golden() {
	local run
	run=$(small_run)
	"$LAB_ROOT/analysis/report" "$run" --no-figures || fail "report failed"
	diff -u "$fixtures/golden/report.md" "$run/report.md" || fail "report.md differs from the golden file"
	grep -qF '| build | 1/1 collateral (2.5–100%) | 1/1 killed (2.5–100%) | missing | missing |' "$run/report.md" ||
		fail "missing cells are not marked"
	grep -qF '| a | no conclusive run (1 inconclusive) |' "$run/report.md" ||
		fail "a cell without a conclusive run is not said to be one"
	# a column the plan has no cell in is left out, not printed as a column of "–"
	jq -c 'select(.swap == "off" or .kernel.column == "lca")' "$run/plan.jsonl" >"$run/plan.new"
	jq -c 'select(.cell.swap == "off" or .cell.kernel.column == "lca")' "$run/runs.jsonl" >"$run/runs.new"
	mv "$run/plan.new" "$run/plan.jsonl" && mv "$run/runs.new" "$run/runs.jsonl"
	"$LAB_ROOT/analysis/report" "$run" --no-figures || fail "report of a plan without stock swap=on failed"
	grep -q 'stock swap=on' "$run/report.md" && fail "a column with no planned cell is in the tables"
	grep -qxF '| workload | stock swap=off | lca swap=off | lca swap=on |' "$run/report.md" ||
		fail "the tables do not keep the columns that have cells"
}

t_unit_report_renders_figures() {
	local run
	run=$(small_run)
	"$LAB_ROOT/analysis/report" "$run" || fail "report failed"
	grep -q '<svg' "$run/figures/a-swap-off.svg" || fail "no SVG figure"
	[ "$(grep -c '<path' "$run/figures/a-swap-off.svg")" -gt 10 ] || fail "the SVG figure has no curves"
	[ "$(head -c 4 "$run/figures/a-swap-off.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG figure"
	grep -q '(figures/a-swap-off.svg)' "$run/report.md" || fail "the report does not show the figure"
	[ ! -e "$run/figures/build-swap-on.svg" ] || fail "a figure for a missing cell"
}

t_unit_report_names_bad_line() {
	local run
	run=$(small_run)
	sed -i '3s/"outcome":"[a-z-]*"/"outcome":"great"/' "$run/runs.jsonl"
	expect_exit 1 "runs.jsonl:3: record.outcome: 'great' is not one of" "$LAB_ROOT/analysis/report" "$run" --no-figures
	[ ! -e "$run/report.md" ] || fail "a report was written from a damaged run"
	jq '.schema = 9' "$fixtures/run-small/meta.json" >"$run/meta.json"
	expect_exit 1 'written by schema 9; this lab reads 2' "$LAB_ROOT/analysis/report" "$run" --no-figures
}

t_unit_compare_flags_regressions() {
	local base new out
	base=$(small_run)
	# one run a side decides nothing, and says so
	expect_exit 0 '^No regression detected: 2 cells undecidable' "$LAB_ROOT/analysis/compare" "$base" "$base"
	new=$(small_run)
	# build on stock without swap hung, prefork on lca went from
	# inconclusive to killed (not comparable), a cell goes missing: a hung
	# guest that BASE did not have is a regression whatever the counts
	jq -c 'if .workload == "build" and .kernel == "stock" then .outcome = "hung"
		elif .workload == "prefork" and .kernel == "lca" then .outcome = "killed" else . end
		| select(.workload != "a" or .swap != "on" or .kernel != "stock")' \
		"$fixtures/run-small/runs.jsonl" >"$new/runs.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a new hung guest was not a regression: $out"
	printf '%s\n' "$out"
	diff -u "$fixtures/golden/compare.md" <(sed "s|$base|BASE_DIR|; s|$new|NEW_DIR|" <<<"$out") ||
		fail "compare output differs from the golden file"
	# six runs a side: 0 of 6 bad against 6 of 6 is a regression (p = 0.00108),
	# 0 of 6 against 3 of 6 is not (p = 0.0909), and six a side could have
	# shown it
	base=$(synthetic_run survived survived survived survived survived survived)
	new=$(synthetic_run killed killed killed killed killed killed)
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a regression exited 0: $out"
	printf '%s\n' "$out"
	grep -q '^| prefork swap=off stock | survived (6 survived) | killed (6 killed) | WORSE (p = 0.00108, 0.00108 after Holm) |$' <<<"$out" ||
		fail "the regression is not flagged with its p-value"
	new=$(synthetic_run killed survived killed survived killed survived)
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "3 of 6 against 0 of 6 was called a regression"
	grep -q 'no supported difference (p = 0.0909 worse' <<<"$out" || fail "no p-value for 3 of 6 against 0 of 6: $out"
	[ "$(tail -1 <<<"$out")" = "No regression." ] || fail "six a side could decide, yet: $(tail -1 <<<"$out")"
	# collateral to panic in one run of five: always a regression
	base=$(synthetic_run collateral collateral collateral collateral collateral)
	new=$(synthetic_run collateral collateral panic collateral collateral)
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a new panic was not a regression: $out"
	grep -q 'WORSE: NEW has panic, BASE had not' <<<"$out" || fail "the panic is not named: $out"
	# a rerun with the same classes in another order is no regression
	base=$(synthetic_run survived killed survived survived killed)
	new=$(synthetic_run killed survived survived killed survived)
	"$LAB_ROOT/analysis/compare" "$base" "$new" >/dev/null || fail "a shuffled rerun was called a regression"
	# one splat where BASE had none is a regression
	jq -c 'if .rep == 2 then .kernel_splats = [{kind: "kasan", line: "BUG: KASAN: x"}] else . end' \
		"$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a new kernel splat was not a regression: $out"
	grep -q 'WORSE: NEW has kernel splat' <<<"$out" || fail "the splat is not named: $out"
	# every run a panic, at the size of the small run
	new=$(small_run)
	jq -c '.outcome = "panic"' "$fixtures/run-small/runs.jsonl" >"$new/runs.jsonl"
	expect_exit 1 '^REGRESSION: ' "$LAB_ROOT/analysis/compare" "$(small_run)" "$new"
	# among three cells, 0 of 5 against 4 of 5 (p = 0.0238) is not enough
	# after Holm (0.0714): many cells are many tests; 0 of 6 against 6 of 6 is
	out=$(jq -n -c '[{base: [0, 5], new: [4, 1]}, {base: [1, 4], new: [1, 4]}, {base: [2, 3], new: [2, 3]}]' |
		"$LAB_ROOT/analysis/stats" fisher)
	jq -e '.[0].p_worse == 0.0238 and .[0].p_worse_holm == 0.0714' <<<"$out" >/dev/null ||
		fail "Holm's adjustment over three cells: $out"
	out=$(jq -n -c '[{base: [0, 6], new: [6, 0]}, {base: [1, 4], new: [1, 4]}, {base: [2, 3], new: [2, 3]}]' |
		"$LAB_ROOT/analysis/stats" fisher)
	jq -e '.[0].p_worse_holm == 0.00325' <<<"$out" >/dev/null || fail "a real regression among three cells: $out"
}

# Times: NEW's first OOM kills all later than BASE's (six a side) are a
# regression (exact log-rank, p = 1/924); runs without a kill are censored
# at their end, so never killing is later still; the same times in
# another order are not; runs on another accelerator are refused.
t_unit_compare_times() {
	local base new out
	base=$(synthetic_run survived survived survived survived survived survived)
	new=$(synthetic_run survived survived survived survived survived survived)
	set_times "$base" '10 + .rep'
	set_times "$new" '30 + .rep'
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "later OOM kills were not a regression: $out"
	printf '%s\n' "$out"
	grep -q '^| prefork swap=off stock | 6/6 (11, 12, 13, 14, 15, 16 s) | 6/6 (31, 32, 33, 34, 35, 36 s) | WORSE (p = 0.00108, 0.00108 after Holm) |$' <<<"$out" ||
		fail "the later first OOM kills are not flagged with their p-value"
	grep -q '^REGRESSION: 1 worse: first OOM kill: prefork swap=off stock$' <<<"$out" || fail "the regression is not named"
	set_times "$new" 'if .rep <= 3 then null else 10 + .rep end'
	expect_exit 1 'first OOM kill: prefork swap=off stock' "$LAB_ROOT/analysis/compare" "$base" "$new"
	set_times "$new" '17 - .rep'
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "the same times in another order were a regression: $out"
	[ "$(tail -1 <<<"$out")" = "No regression." ] || fail "six a side could decide, yet: $(tail -1 <<<"$out")"
	jq -c '.accel = "kvm"' "$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	expect_exit 2 'BASE ran on tcg/wall and NEW on kvm/wall: their times are not on one scale' \
		"$LAB_ROOT/analysis/compare" "$base" "$new"
}

# A run on 6.12 against one on 6.1: cells match by column without @LINE.
t_unit_compare_across_lines() {
	local base new out
	base=$(synthetic_run survived survived)
	new=$(synthetic_run survived killed)
	jq -c '.kernel_version = "6.12.118" | .kernel = "stock@6.12" | .cell.kernel.column = "stock@6.12"' \
		"$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	jq -c '.kernel.column = "stock@6.12"' "$new/plan.jsonl" >"$new/p" && mv "$new/p" "$new/plan.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "compare across lines failed: $out"
	grep -q '^BASE ran kernel line 6.1, NEW 6.12' <<<"$out" || fail "the lines are not named: $out"
	grep -q '^| prefork swap=off stock | survived (2 survived) | killed (1 killed, 1 survived) | ' <<<"$out" ||
		fail "the cells were not matched across lines: $out"
}

set_times() {
	jq -c "(.t_first_oom_s = ($2)) | .t_end_s = 90" "$1/runs.jsonl" >"$1/r" && mv "$1/r" "$1/runs.jsonl"
}

# The log-rank scores summed over a group are its expected less observed
# events (O - E, with ties), and the overhead verdict's every branch.
t_unit_compare_rules() {
	(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c '
import random
import compare
from lcastats import logrank_scores
rng = random.Random(1)
for _ in range(200):
    runs = [(rng.randint(1, 6), rng.random() < 0.7) for _ in range(rng.randint(2, 12))]
    group = [rng.random() < 0.5 for _ in runs]
    o_minus_e = 0.0
    for t in sorted({t for t, _ in runs}):
        at_risk = [i for i, (u, _) in enumerate(runs) if u >= t]
        d = sum(1 for i in at_risk if runs[i][0] == t and runs[i][1])
        o_minus_e += sum(1 for i in at_risk if group[i] and runs[i][0] == t and runs[i][1])
        o_minus_e -= d * sum(1 for i in at_risk if group[i]) / len(at_risk)
    scores = sum(s for s, g in zip(logrank_scores(runs), group) if g)
    assert abs(scores + o_minus_e) < 1e-9, (runs, group, scores, o_minus_e)
def r(x, lo, hi):
    return {"ratio": x, "ci_low": lo, "ci_high": hi, "n": 10}
cases = [((1.10, 1.09, 1.11), (1.20, 1.19, 1.21), "WORSE"),
         ((1.10, 1.0, 1.2), (1.20, 1.1, 1.3), "undecidable"),
         ((1.10, None, None), (1.50, None, None), "undecidable"),
         ((1.10, 1.09, 1.11), (1.11, 1.10, 1.12), "ok"),
         ((1.20, 1.19, 1.21), (1.10, 1.09, 1.11), "better")]
for b, n, want in cases:
    got = compare.judge_ratio(r(*b), r(*n), 0.02)
    assert got.startswith(want), (b, n, got, want)
') || fail "a compare rule is wrong (above)"
}

# A run of one cell (prefork, swap off, stock), one repetition per
# outcome given, from the survived fixture's evidence.
synthetic_run() {
	local dir rec i=0 outcome
	dir=$(mktemp -d)/synthetic
	mkdir -p "$dir"
	rec=$("$LAB_ROOT/analysis/record" "$fixtures/cells/survived")
	for outcome in "$@"; do
		i=$((i + 1))
		jq -c --argjson i "$i" --arg o "$outcome" '.cell | .rep = $i | .id = "\($i)-prefork-off-stock"' <<<"$rec" >>"$dir/plan.jsonl"
		jq -c --argjson i "$i" --arg o "$outcome" '.cell.rep = $i | .cell.id = "\($i)-prefork-off-stock"
			| .rep = $i | .id = .cell.id | .outcome = $o | .cell_dir = "cells/\(.id)"' <<<"$rec" >>"$dir/runs.jsonl"
	done
	jq --argjson reps "$#" '.matrix = {type: "survival", kernels: ["stock"], swap: ["off"], workloads: ["prefork"],
		defences: ["none"], reps: $reps, seed: 0}' "$fixtures/run-small/meta.json" >"$dir/meta.json"
	printf '%s\n' "$dir"
}

t_unit_paper_builds_from_results() {
	local run debug
	run=$(small_run)
	"$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" || fail "paper failed"
	# rep 1 of a on stock never met the OOM killer, with or without swap
	grep -q '^| stock | flat | \*\*inconclusive\*\* | – | – | – | – |$' "$run/paper.md" ||
		fail "the verdicts' overview lacks stock's row"
	sed -n '/^### 1\. The stock OOM killer cannot handle a.sh\./,/^### 2/p' "$run/paper.md" |
		grep -q '^| stock | flat | \*\*inconclusive\*\* | stock, a: swap off: 1 inconclusive; swap on: 1 inconclusive' ||
		fail "the a.sh claim is not checked against the records"
	grep -q '^- 8 runs of 12 planned: 2 kernels x 2 swap settings x 3 workloads x 1 desktops x 1 repetitions' "$run/paper.md" ||
		fail "the method does not count the runs"
	grep -q '^Not run for this paper (make run-debug' "$run/paper.md" || fail "no debug run, and the paper did not say so"
	grep -qF 'does not model the search' "$run/paper.md" || fail "no section on what the 2005 code did"
	# a debug run: one splat in one cell, one in its stress boot, counted
	# with the reference's boots: 2 in 4 + 1 + 8
	debug=$(synthetic_run survived survived survived survived)
	jq -c 'if .rep == 2 then .kernel_splats = [{kind: "lockdep", line: "WARNING: possible recursive locking detected"}]
		else . end | if .rep <= 2 then .lca_decisions = [{victim: 9, prev: 0, lca: 0, killed: 0, anchor: 8}] else . end' \
		"$debug/runs.jsonl" >"$debug/r" && mv "$debug/r" "$debug/runs.jsonl"
	mkdir -p "$debug/stress/swap-0"
	jq -n -c '{seconds: 300, cpus: 4, swap: "0", outcome: "splats", stress: {counts: {vfork: 9}, oom_kills: 5,
		memcg_oom_kills: 2, lca_decisions: 1}, watchdogs: {soft_watchdog: 1, nmi_watchdog: 0, hung_task_timeout_secs: 120,
		hard_lockup_note: "[    0.9] NMI watchdog: Perf NMI watchdog permanently disabled"},
		splats: [{kind: "kasan", line: "BUG: KASAN: use-after-free in x"}]}' >"$debug/stress/swap-0/stress.json"
	"$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" "" "" "$debug" || fail "paper with a debug run failed"
	grep -F 'Kernel splats: 2 in 13 boots (1 kasan, 1 lockdep).' "$run/paper.md" || fail "the splats are not counted"
	grep -F '| debug build: lineage stress, 300 s on 4 vCPUs, swap 0 | 1 | 1 | 1 kasan |' "$run/paper.md" ||
		fail "no row for the stress"
	grep -F 'NMI (hard) 0 (NMI watchdog: Perf NMI watchdog permanently disabled)' "$run/paper.md" ||
		fail "the lockup detectors are not reported"
	grep -Fx 'Debug cells that made an LCA decision: 2 of 4 (2 decisions); none in 3-prefork-off-stock, 4-prefork-off-stock.' \
		"$run/paper.md" || fail "the debug cells without an LCA decision are not named"
}

# Desktops cross the matrix like defences: each cell names its desktop (the
# flat one, the lab's first, keeps the keys of runs older than desktops),
# the driver gets the desktop's shape and browser, and the tables get a
# column per desktop, named where there is more than one.
t_unit_desktops_are_a_matrix_dimension() {
	local results cells line dir
	results=$(mktemp -d)
	cells=$(KERNELS=lca SWAP=off WORKLOADS=a DESKTOPS="flat,article-nobig" REPS=1 run_matrix)
	[ "$(sort <<<"$cells" | xargs)" = "1 a off lca none 1 a off lca none article-nobig" ] || fail "unexpected plan: $cells"
	line=$(EXPERIMENT=matrix KERNELS=lca SWAP=off WORKLOADS=a DEFENCES=none DESKTOPS=article-nobig REPS=1 "$LAB_ROOT/lab/plan")
	jq -e '.key == "a off lca none article-nobig" and .id == "1-a-off-lca-article-nobig"
		and .desktop == {name: "article-nobig", shape: "article", browser_mb: 0,
		                 what: "the article'"'"'s tree with no large process (the browser holds nothing)"}' <<<"$line" >/dev/null ||
		fail "plan line: $line"
	expect_exit 2 "unknown desktop 'attic' \(workloads/desktops.tab has: flat article" \
		env DESKTOPS=attic RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown desktop 'attic'" "$LAB_ROOT/lab/run-cell" --desktop attic stock off a "$results/x"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	# two desktops in one run: a column each, and the records find theirs
	dir=$(small_run)
	jq -c '.matrix.desktops = ["flat", "article"]' "$dir/meta.json" >"$dir/m" && mv "$dir/m" "$dir/meta.json"
	jq -c 'def article: .desktop = {name: "article", shape: "article", browser_mb: 64, what: "t"}
			| .key += " article" | .id += "-article";
		if has("cell") then .cell |= article | .key = .cell.key | .id = .cell.id | .desktop = "article"
			| .cell_dir = "cells/\(.id)" | .outcome = "clean"
		else article end | select(.id | contains("-a-"))' "$dir/plan.jsonl" "$dir/runs.jsonl" >"$dir/more"
	grep -v '"schema"' "$dir/more" >>"$dir/plan.jsonl"
	grep '"schema"' "$dir/more" >>"$dir/runs.jsonl"
	"$LAB_ROOT/analysis/report" "$dir" --section survival | tee "$dir/survival"
	grep -qF '| workload | stock swap=off @flat | lca swap=off @flat | stock swap=on @flat |' "$dir/survival" || fail "no column per desktop"
	grep -qE '^\| a \| .*\| 1/1 clean \(2\.5–100%\) \| 1/1 clean' "$dir/survival" || fail "the article cells lost their records"
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
	jq -c '{outcome, defence, acted, defence_evidence, peak_workload_tasks}' "$d/out.json"
	jq -e '.defence == "pids" and .defence_evidence.pids_max_refusals > 0 and (.acted | index("pids.max"))
		and .peak_workload_tasks <= .defence_evidence.pids_max' "$d/out.json" >/dev/null || fail "pids.max did not act"
}

# earlyoom runs in the guest (the rootfs has it) and its kills are counted.
t_boot_defence_earlyoom_runs() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-earlyoom-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 8 --defence earlyoom lca-off off leak "$d" >"$d/out.json" ||
		fail "run-cell failed"
	jq -c '{outcome, defence, acted, defence_evidence, oom_kills}' "$d/out.json"
	jq -e '.defence == "earlyoom" and (.defence_evidence.earlyoom_kills | type) == "number"' "$d/out.json" >/dev/null ||
		fail "earlyoom did not run"
}

# Every branch of the outcome classes, on synthetic evidence: classify's
# arguments are a boot, the driver's result, the defence's evidence, the
# console's panic line, the driver's complaint, the cell and who acted.
# The first OOM kill's time: the kernel's own (the driver's event_clock
# "kernel": the first Killed process line or decision, from its mark), or,
# from a driver before it, the first sample that saw vmstat's count move.
t_unit_first_oom_kill_in_kernel_time() {
	local got
	got=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome";
		[{type: "sample", t: 4.0, oom_kill: 0}, {type: "sample", t: 9.5, oom_kill: 2}] as $lines
		| [{event_clock: "kernel", oom_kill_times_s: [3.25, 3.9], lca_decisions: [{t: 3.91}]},
		   {event_clock: "kernel", oom_kill_times_s: [], lca_decisions: [{t: 6.5}]},
		   {event_clock: "kernel", oom_kill_times_s: [], lca_decisions: []},
		   {lca_decisions: [{t: 11.0}]},
		   {lca_decisions: [{t: 8.0}]}]
		| map(. as $res | $lines | first_oom_at($res))')
	[ "$got" = '[3.25,6.5,null,9.5,8]' ] || fail "first OOM kill times: $got, expected [3.25,6.5,null,9.5,8]"
}

# The classes are listed once (outcome.jq's classes): the schema's enum
# names the same ones, and the report defines each.
t_unit_outcome_classes_in_one_place() {
	local classes run c
	classes=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome"; classes | map(.name) | sort')
	[ "$(jq -c '.properties.outcome.enum | sort' "$schema")" = "$classes" ] ||
		fail "the schema's outcome enum is not outcome.jq's classes ($classes)"
	run=$(small_run)
	"$LAB_ROOT/analysis/report" "$run" --no-figures >/dev/null || fail "report failed"
	for c in $(jq -r '.[]' <<<"$classes"); do
		tr '\n' ' ' <"$run/report.md" | grep -qF "$c = " || fail "the report does not define $c"
	done
}

t_unit_outcome_classes_on_synthetic_evidence() {
	local cases
	cases=$(cat <<-'CASES'
		panic         {}                                              "Oops"        bomb  ["oom-killer"]
		hung          {"status":"hung","timeout":110}                 ""            bomb  []
		lab-error     {"status":"crashed","qemu_exit":1}              ""            bomb  []
		lab-error     {"status":"finished","exit":1}                  ""            bomb  []
		inconclusive  {"status":"finished","exit":0,"r":"stays"}      ""            bomb  []
		persists      {"status":"finished","exit":0,"r":"stays"}      ""            bomb  ["oom-killer"]
		persists      {"status":"finished","exit":0,"r":"stays-lost"} ""            bomb  ["oom-killer"]
		collateral    {"status":"finished","exit":0,"r":"gone-lost"}  ""            bomb  ["lca"]
		clean         {"status":"finished","exit":0,"r":"gone"}       ""            bomb  ["lca"]
		inconclusive  {"status":"finished","exit":0,"r":"gone"}       ""            bomb  []
		killed        {"status":"finished","exit":0,"r":"status137"}  ""            fp    ["oom-killer"]
		killed        {"status":"finished","exit":0,"r":"rootdead"}   ""            fp    []
		collateral    {"status":"finished","exit":0,"r":"lost"}       ""            fp    []
		survived      {"status":"finished","exit":0,"r":"fine"}       ""            fp    ["oom-killer"]
		inconclusive  {"status":"finished","exit":0,"r":"fine"}       ""            fp    []
		inconclusive  {"status":"finished","exit":0,"r":"stopped"}    ""            bomb  ["lca"]
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            bomb  []
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            bomb  ["oom-killer"]
		persists      {"status":"finished","exit":0,"r":"stall29"}    ""            bomb  ["oom-killer"]
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            fp    []
	CASES
	)
	local want boot panic kind acted got n=0
	while read -r want boot panic kind acted; do
		panic=${panic//\"/}
		got=$(jq -n -r -L "$LAB_ROOT/analysis" --argjson boot "$boot" --arg panic "$panic" --arg kind "$kind" \
			--argjson acted "$acted" 'include "outcome";
			def probes($lost): [{name: "browser", alive: ($lost | not)}, {name: "terminal", alive: true}];
			({stays: {gone: false, leftover_tasks: 9, t_end_s: 20, probes: probes(false)},
			  "stays-lost": {gone: false, leftover_tasks: 9, t_end_s: 20, probes: probes(true)},
			  gone: {gone: true, t_gone_s: 7, probes: probes(false)},
			  "gone-lost": {gone: true, t_gone_s: 7, probes: probes(true)},
			  status137: {workload_status: 137, probes: probes(false)},
			  rootdead: {workload_status: null, workload_root_alive: false, probes: probes(false)},
			  lost: {workload_status: 0, probes: probes(true)},
			  fine: {workload_status: 0, probes: probes(false)},
			  stopped: {gone: false, stopped: true, leftover_tasks: 9, t_end_s: 12, probes: probes(true)},
			  stall: {gone: false, leftover_tasks: 9, t_end_s: 120, final_stall_s: 30, workload_status: 0, probes: probes(false)},
			  stall29: {gone: false, leftover_tasks: 9, t_end_s: 120, final_stall_s: 29.9, probes: probes(false)}}[$boot.r // ""])
			  as $result
			| {workload: {kind: (if $kind == "fp" then "false-positive" else "bomb" end)}, defence: {hook: null}} as $cell
			| classify($boot; $result; null; $panic; ""; $cell; $acted) | .[0]')
		printf '%-13s %-60s -> %s\n' "$want" "$boot $kind $acted" "$got"
		[ "$got" = "$want" ] || fail "$boot $kind $acted: $got, expected $want"
		n=$((n + 1))
	done <<<"$cases"
	[ "$n" -eq 20 ] || fail "$n cases ran"
	# a defence hook that reported nothing makes the run a lab error
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		classify({status: "finished", exit: 0}; {gone: true, probes: []}; null; ""; "";
			{workload: {kind: "bomb"}, defence: {hook: "/lab/workloads/defences/pids.sh"}}; ["oom-killer"]) | .[0]')
	[ "$got" = lab-error ] || fail "no evidence from a hook: $got"
	# a debug build's hung run says its deadlines were scaled
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		classify({status: "hung", timeout: 330}; null; null; ""; "";
			{workload: {kind: "bomb"}, defence: {hook: null}, kernel: {time_scale: 3}}; []) | .[1]')
	[ "$got" = "no end from the guest within 330 s; QEMU killed (a debug build: deadlines x3)" ] ||
		fail "a scaled hung run: $got"
}

# The intervals come from scipy's exact binomial test: 3 of 3 is 29.2-100%
# (1 - 0.975^(1/3) = 0.2924), 0 of 1 is 0-97.5%.
t_unit_stats_gives_exact_intervals() {
	local table
	table=$("$LAB_ROOT/analysis/stats" ci 3) || fail "analysis/stats failed"
	jq -e '.["3/3"] == [29.2, 100] and .["0/1"] == [0, 97.5] and .["1/2"] == [1.3, 98.7] and length == 9' \
		<<<"$table" >/dev/null || fail "unexpected intervals: $table"
	expect_exit 2 "usage: analysis/stats ci N" "$LAB_ROOT/analysis/stats" ci 0
	expect_exit 2 "usage: analysis/stats ci N" "$LAB_ROOT/analysis/stats" pi 3
	# a proportion the table does not cover is an error, never one printed without its interval
	jq -n -L "$LAB_ROOT/analysis" --argjson ci "$table" 'include "tables"; share_of(2; 3; $ci)' |
		grep -qx '"2/3 (9.4–99.2%)"' || fail "share_of does not print 2/3 with its interval"
	! jq -n -L "$LAB_ROOT/analysis" --argjson ci "$table" 'include "tables"; share_of(2; 4; $ci)' 2>/dev/null ||
		fail "share_of printed 2/4 without an interval"
}

# Overhead flags come only from adequate tests (analysis/stats ratios):
# synthetic per-boot medians for each branch of the rule.
t_unit_overhead_flags_need_adequate_tests() {
	local out
	boots() { # clock figure variant first step count
		local i
		for ((i = 0; i < $6; i++)); do echo "$1 $2 $3 $(($4 + i * $5))"; done
	}
	out=$({
		boots icount fork stock 1000 1 10; boots icount fork lca 1050 1 10	# 5% slower, 1% jitter
		boots icount exec stock 1000 1 3; boots icount exec lca 1050 1 3	# the same on 3 + 3 boots
		boots icount spawn stock 1000 3 10; boots icount spawn lca 1010 3 10	# 1% slower, 2.7% jitter
		boots icount thread stock 1000 1 10; boots icount thread lca 1000 1 10	# no difference
		boots icount vfork stock 1000 1 10; boots icount vfork lca 1050 1 1	# one boot
	} | "$LAB_ROOT/analysis/stats" ratios stock stock 500 10) || fail "analysis/stats ratios failed"
	printf '%s\n' "$out"
	flag() { jq -r --arg m "$1" 'select(.mode == $m) | "\(.distinguishable) \(.why)"' <<<"$out"; }
	[ "$(flag fork)" = "true null" ] || fail "5% on 10 + 10 boots, 1% jitter: $(flag fork)"
	[ "$(flag exec)" = "false fewer than 10 boots a side" ] || fail "3 + 3 boots were flagged: $(flag exec)"
	[ "$(flag spawn)" = "false inside the run-to-run jitter (2.7%)" ] || fail "a shift inside the jitter: $(flag spawn)"
	[[ "$(flag thread)" == "false p = "* ]] || fail "no difference was flagged: $(flag thread)"
	[ "$(flag vfork)" = "false one boot a side: no spread to test" ] || fail "one boot: $(flag vfork)"
	jq -e -s 'map(select(.mode == "exec")) | .[0].p == 0.1' <<<"$out" >/dev/null ||
		fail "the exact permutation test on 3 + 3 boots cannot go below p = 0.1"
}

# The claims' verdict rules on synthetic records, every branch of each
# claim: too few runs, none conclusive, a side without runs, and the
# exact tests of claims 4 and 5 with and without support.
t_unit_claims_verdicts_on_synthetic_records() {
	local ci
	ci=$("$LAB_ROOT/analysis/stats" ci 12)
	# claim N's verdict, for the policy column $column (lca), for records
	# given as "[Kx] kernel workload kind outcome [swap [gap_ms|-]]" words
	# (K copies; a collateral run lost the browser; - : no probes' report)
	verdict() {
		local n=$1 recs fisher
		shift
		recs=$(printf '%s\n' "$@" | jq -R -s -c 'split("\n") | map(select(. != "") | split(" ")
			| if .[0] | test("^[0-9]+x$") then .[1:] as $w | range(.[0][:-1] | tonumber) | $w else . end
			| {kernel: .[0], workload: .[1], kind: .[2], outcome: .[3], swap: (.[4] // "off"),
			   max_probe_gap_ms: (.[5] // "100" | if . == "-" then null else tonumber end), oom_kills: 1,
			   probes_lost: (if .[3] == "collateral" then ["browser"] else [] end),
			   gone: (.[3] | IN("clean", "collateral")), lca_killed: 0}
			| .deadline_s = (if .swap == "on" then 600 else 90 end) | .t_gone_s = (if .gone then 10 else null end))')
		# the exact tests are claims 4 and 5's alone (scipy takes a second to load)
		fisher='[null, null]'
		[ "$n" -lt 4 ] || fisher=$(jq -c -L "$LAB_ROOT/analysis" --arg c "${column:-lca}" \
			'include "claims"; [fp_counts($c) + {family: "fp"}, swap_counts($c) + {family: "swap"}]' <<<"$recs" |
			"$LAB_ROOT/analysis/stats" fisher)
		jq -r -L "$LAB_ROOT/analysis" --argjson ci "$ci" --argjson f "$fisher" --argjson n "$n" --arg c "${column:-lca}" \
			'include "claims"; claims(["off", "on"]; $ci; {fp: $f[0], swap: $f[1]}; $c)[$n - 1].verdict' <<<"$recs"
	}
	check() {
		local want=$1 got
		shift
		got=$(verdict "$@")
		printf '%-16s %s\n' "$got" "$*"
		[ "$got" = "$want" ] || fail "claim $1 on '$*': $got, expected $want"
	}
	check reproduced 1 "2x stock a bomb persists" "2x stock a bomb collateral"
	check "not reproduced" 1 "4x stock a bomb clean"
	check partly 1 "3x stock a bomb persists" "stock a bomb clean"
	check inconclusive 1 "2x stock a bomb inconclusive"
	check reproduced 1 "4x stock a bomb persists" "stock a bomb inconclusive"
	check "not shown" 1 "3x stock a bomb persists" "2x stock a bomb inconclusive"
	check "not reproduced" 2 "2x lca a bomb collateral" "2x lca b bomb persists"
	check reproduced 2 "2x lca a bomb clean" "2x lca b bomb clean" "lca a bomb inconclusive"
	check partly 2 "3x lca a bomb clean" "lca b bomb collateral"
	check inconclusive 2 "lca a bomb inconclusive" "4x stock a bomb clean"
	check "not shown" 2 "lca a bomb clean" "lca b bomb clean"
	check reproduced 3 "4x lca folkert bomb collateral"
	check "not reproduced" 3 "4x lca folkert bomb persists"
	check partly 3 "3x lca folkert bomb collateral" "lca folkert bomb clean"
	check partly 3 "4x lca folkert bomb clean"
	check partly 3 "2x lca folkert bomb persists" "2x lca folkert bomb clean"
	# claim 4, four runs a side: with swap the bomb stays (or nothing acts:
	# the claim's own evidence) and the desktop stalls, or neither
	local off="4x lca folkert bomb clean off 2000"
	check reproduced 4 "4x lca folkert bomb persists on 400000" "$off"
	check reproduced 4 "4x lca folkert bomb inconclusive on 300000" "$off"
	check reproduced 4 "4x lca folkert bomb persists on 300000" "$off"
	check reproduced 4 "4x lca folkert bomb hung on -" "$off"
	check partly 4 "4x lca folkert bomb persists on -" "$off"
	check partly 4 "4x lca folkert bomb clean on 300000" "$off"
	check partly 4 "4x lca folkert bomb persists on 299999" "$off"
	check "not reproduced" 4 "4x lca folkert bomb clean on 1000" "$off"
	check "not shown" 4 "3x lca folkert bomb persists on 300000" "$off"
	check "not measured" 4 "$off"
	check "not measured" 4 "4x lca folkert bomb persists on 300000"
	check "not measured" 4 "4x lca folkert bomb lab-error on 300000" "$off"
	check inconclusive 4 "4x lca a bomb clean"
	# another policy column: its own records, not lca's
	column=lca-2005 check reproduced 2 "4x lca-2005 a bomb clean" "lca a bomb persists"
	column=lca-2005 check inconclusive 3 "4x lca folkert bomb collateral"
	# claim 5: lca against stock
	check reproduced 5 "6x lca leak false-positive killed" "6x stock leak false-positive survived"
	check "not shown" 5 "2x lca leak false-positive killed" "2x lca leak false-positive survived" \
		"4x stock leak false-positive survived"
	check "not shown" 5 "lca leak false-positive killed" "stock leak false-positive survived"
	check "not measured" 5 "4x lca leak false-positive killed"
	check "not measured" 5 "4x stock leak false-positive survived"
	check inconclusive 5 "lca leak false-positive inconclusive" "stock leak false-positive inconclusive"
	check inconclusive 5 "4x lca-2005 leak false-positive killed"
	# claim 4 with one swap setting only: its runs are counted against
	# their own deadline (a missing side once made every run "not gone")
	local counts
	counts=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "claims";
		[range(3) | {workload: "folkert", kernel: "lca", swap: "off", outcome: "clean", gone: true,
		  t_gone_s: 30, deadline_s: 120}] | swap_counts("lca")')
	[ "$counts" = '{"base":[0,3],"new":[0,0]}' ] || fail "claim 4, swap off alone: $counts"
}

# The article's desktop is the tree lcalab-run documents: the session
# manager parents the editor, the browser and the terminal emulator, which
# parents the terminal shell that started the workload.
t_boot_article_desktop_is_a_tree() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-article-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 3 --desktop article-nobig lca off prefork "$d" >"$d/out.json" ||
		fail "run-cell failed ($d)"
	jq -c '{desktop, outcome, probe_pids, probe_ppids, settings}' "$d/out.json"
	jq -e '.desktop == "article-nobig" and .settings.browser_mb == 0 and .probe_pids as $p | .probe_ppids as $pp
		| $pp.editor == $p.session and $pp.browser == $p.session and $pp.emulator == $p.session
		  and $pp.terminal == $p.emulator and $pp.session != $p.daemon' "$d/out.json" >/dev/null ||
		fail "the desktop is not the article's tree ($d)"
	zcat -f "$d"/channel.log* | grep -q '"desktop_shape":"article"' || fail "the driver did not build the article's desktop"
}

# Each lost probe's cause, from the evidence: a kill line names it, an LCA
# decision killed its ancestor's subtree, only a defence acted, or unknown.
t_unit_probe_deaths_name_their_cause() {
	local got
	got=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome";
		{probe_pids: {daemon: 9, session: 10, editor: 11, browser: 12, terminal: 13},
		 probe_ppids: {daemon: 1, session: 5, editor: 5, browser: 5, terminal: 5},
		 probes_lost: ["session", "editor", "browser", "daemon"], terminal_lost: true, acted: ["oom-killer", "lca"],
		 lca_decisions: [{lca: 0, killed: 0}, {lca: 5, killed: 9}]} as $r
		| ($r | probe_deaths([12])),
		  ($r | .lca_decisions = [] | .acted = ["earlyoom"] | probe_deaths([])),
		  ($r | .probe_pids = null | probe_deaths([12]))')
	printf '%s\n' "$got"
	[ "$(sed -n 1p <<<"$got")" = '[{"name":"session","cause":"lca subtree of 5"},{"name":"editor","cause":"lca subtree of 5"},{"name":"browser","cause":"oom-kill"},{"name":"daemon","cause":"unknown"},{"name":"terminal","cause":"lca subtree of 5"}]' ] ||
		fail "kill lines and subtrees"
	[ "$(sed -n 2p <<<"$got" | jq -r 'map(.cause) | unique | join(",")')" = "defence earlyoom" ] || fail "a defence's kills"
	[ "$(sed -n 3p <<<"$got" | jq -r 'map(.cause) | unique | join(",")')" = "unknown" ] || fail "no pids, no cause"
}

# The time-to-event table the deadlines are set from: in how many runs each
# event came, its median and latest time; older records are counted out.
t_unit_events_table_from_records() {
	local run out
	run=$(synthetic_run survived survived)
	out=$("$LAB_ROOT/analysis/events" "$run")
	printf '%s\n' "$out"
	grep -qF '| prefork | off | stock | none | flat | 2 | 15 | 2/2 (15.8–100%): median 15 s, latest 15 s | 0/2 (0–84.2%) | 0/2 (0–84.2%) |' <<<"$out" ||
		fail "the events of two survived runs"
	# Kaplan-Meier, by hand: events at 10, 20, 30 s, runs censored at 15 and
	# 40 s: at risk 5, 3, 2, so 1 - S = 0.2, 1 - 0.8 * 2/3, 1 - 0.8 * 2/3 / 2
	out=$(jq -n -c '[{runs: [[10, true], [20, true], [15, false], [30, true], [40, false]]}]' |
		"$LAB_ROOT/analysis/stats" km)
	jq -e '.[0].curve == [[10, 0.2], [20, 0.4667], [30, 0.7333]] and .[0].median == 30' <<<"$out" >/dev/null ||
		fail "Kaplan-Meier of five runs, two censored: $out"
	out=$(jq -n -c '[{runs: [[180, false], [60, true], [180, false]]}]' | "$LAB_ROOT/analysis/stats" km)
	jq -e '.[0].median == null' <<<"$out" >/dev/null || fail "1 of 3 has no median: $out"
	out=$("$LAB_ROOT/analysis/events" "$(small_run)")
	grep -q '^8 records predate the event times' <<<"$out" || fail "older records are not counted out"
	# one row per defence: the defences' runs of one cell are not mixed
	out=$("$LAB_ROOT/analysis/events" "$LAB_ROOT/results/defences")
	[ "$(grep -c '^| b | off | stock | ' <<<"$out")" = "$(jq -r -s 'map(.defence.name) | unique | length' \
		"$LAB_ROOT/results/defences/plan.jsonl")" ] || fail "the defences' rows of b on stock: $(grep '^| b | off | stock' <<<"$out")"
}

# make -n prints the runs' recipes and starts nothing: no plan run, no
# build, no cell (the runs' recipes called $(MAKE), which GNU make runs
# even under -n, so make -n reference started the reference run).
t_unit_make_n_starts_nothing() {
	local results target
	results=$(mktemp -d)
	for target in run reference run-defences run-debug overhead; do
		RUN_CELL=$fixtures/fake-run-cell make -n -C "$LAB_ROOT" "$target" KERNELS=stock SWAP=off WORKLOADS=a \
			REPS=1 RESULTS="$results" LAB_BUILD="$results/build" >"$results.out" 2>&1 ||
			fail "make -n $target failed: $(cat "$results.out")"
		grep -q 'lab/experiment' "$results.out" || fail "make -n $target did not print lab/experiment"
		[ -z "$(ls -A "$results")" ] || fail "make -n $target wrote into $results: $(ls -A "$results")"
	done
}
