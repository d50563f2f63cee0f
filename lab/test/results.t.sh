# shellcheck shell=bash
# Records, outcome classes and the matrix runner: host-side tests on the
# committed fixture runs (lab/test/fixtures/cells/CLASS: real runs' files,
# the timeline trimmed), and one real cell.

fixtures=$LAB_ROOT/lab/test/fixtures
schema=$LAB_ROOT/analysis/record.schema.json

# Every fixture's record has the outcome its directory is named after,
# and follows the schema.
t_unit_record_classifies_each_fixture() {
	local d want got recs n=0
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
	for want in clean collateral persists survived killed hung panic lab-error; do
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
	expect_exit 1 ':2: record: outcome is missing' "$LAB_ROOT/analysis/validate" "$schema" "$f"
	expect_exit 1 ':2: record.rep: 0 < 1' "$LAB_ROOT/analysis/validate" "$schema" "$f"
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
	cells=$(KERNELS="stock lca" SWAP="off on" WORKLOADS="a b folkert prefork build leak" REPS=3 run_matrix)
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

t_unit_run_rejects_bad_input() {
	local results
	results=$(mktemp -d)
	expect_exit 2 "REPS must be a positive number, not '0'" env REPS=0 RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown workload 'zz'" env WORKLOADS=a,zz RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown kernel 'nope'" env KERNELS=nope RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown swap setting 'maybe'" env SWAP=maybe RESULTS="$results" "$LAB_ROOT/lab/run"
	expect_exit 2 "unknown workload 'zz'" "$LAB_ROOT/lab/run-cell" stock off zz /tmp/x
	expect_exit 2 "unknown kernel 'nope'" "$LAB_ROOT/lab/run-cell" nope off a /tmp/x
	expect_exit 2 "swap must be off or on" "$LAB_ROOT/lab/run-cell" stock 1 a /tmp/x
	expect_exit 2 "unknown kernel 'foo'" make -s -C "$LAB_ROOT" run KERNELS=foo
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
}

# The matrix loop for real, each cell faked by a fixture's record.
fake_run() {
	KERNELS=stock SWAP=off WORKLOADS=a REPS=2 RUN_ID=r1 RESULTS=$results \
		RUN_CELL=$fixtures/fake-run-cell "$LAB_ROOT/lab/run"
}

t_unit_run_appends_and_resumes() {
	local results out
	results=$(mktemp -d)
	out=$(fake_run 2>&1) || fail "the run failed: $out"
	printf '%s\n' "$out"
	grep -q 'cell 2/2 .* persists in .*ETA' <<<"$out" || fail "no progress line for cell 2/2"
	[ "$(wc -l <"$results/r1/runs.jsonl")" -eq 2 ] || fail "expected 2 records"
	"$LAB_ROOT/analysis/validate" "$schema" "$results/r1/runs.jsonl" || fail "records do not follow the schema"
	[ -f "$results/r1/cells/1-a-off-stock/console.log.gz" ] || fail "the raw log is not kept beside the record"
	# as if interrupted after the first cell: only the second one runs again
	sed -i 2d "$results/r1/runs.jsonl"
	[ "$(DRY_RUN=1 fake_run)" = "2 a off stock" ] || fail "the resumed run would not run just rep 2"
	out=$(fake_run 2>&1)
	grep -q '1 to run' <<<"$out" || fail "resume did not say 1 to run: $out"
	out=$(fake_run 2>&1)
	grep -q 'nothing to do' <<<"$out" || fail "a complete run is run again: $out"
	# a lab error is shown in the results but its cell runs again
	jq -c '.outcome = "lab-error"' "$results/r1/runs.jsonl" >"$results/x"
	mv "$results/x" "$results/r1/runs.jsonl"
	[ "$(DRY_RUN=1 fake_run | wc -l)" -eq 2 ] || fail "lab-error cells are not retried"
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
	expect_exit 1 'line 2: schema 0, this lab reads 1' fake_run
	[ "$(sha256sum "$f")" = "$sum" ] || fail "runs.jsonl was changed"
	expect_exit 1 'was started with another matrix' env REPS=3 \
		KERNELS=stock SWAP=off WORKLOADS=a RUN_ID=r1 RESULTS="$results" "$LAB_ROOT/lab/run"
}

# One real cell through make run, then the same command again: it resumes
# (nothing left) and the record follows the schema.
t_boot_make_run_one_cell() {
	local results out
	results=$(mktemp -d "$LAB_BUILD/boots/test-run-XXXX")
	out=$(make -s -C "$LAB_ROOT" run KERNELS=lca SWAP=off WORKLOADS=folkert REPS=1 RESULTS="$results" 2>&1) ||
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
	out=$(make -s -C "$LAB_ROOT" run KERNELS=lca SWAP=off WORKLOADS=folkert REPS=1 RESULTS="$results" 2>&1)
	grep -q 'nothing to do' <<<"$out" || fail "the rerun did not resume: $out"
}
