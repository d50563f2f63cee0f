# shellcheck shell=bash
# make compare: regressions on the ordered scale, times, overhead ratios,
# across kernel lines, on synthetic runs.

# Python with analysis/compare loaded as the module compare: compare_py CODE
compare_py() {
	(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c "import importlib.machinery, importlib.util
loader = importlib.machinery.SourceFileLoader('compare', 'compare')
compare = importlib.util.module_from_spec(importlib.util.spec_from_loader('compare', loader))
loader.exec_module(compare)
$1")
}

# lcastats' Fisher exact tests of rows given as JSON, Holm over them all.
fisher() {
	(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c 'import json, sys
from lcastats import fisher
print(json.dumps(fisher(json.loads(sys.argv[1]))))' "$1")
}

t_unit_compare_flags_regressions() {
	local base new out
	base=$(small_run)
	# one run a side decides nothing, and says so
	expect_exit 0 '^No regression detected: 2 cells undecidable' "$LAB_ROOT/analysis/compare" "$base" "$base"
	# a side that is no run is bad input (2), never a regression (1)
	expect_exit 2 "$base/cells/meta.json is missing: not a run directory" "$LAB_ROOT/analysis/compare" "$base" "$base/cells"
	new=$(small_run)
	# build on stock without swap hung, prefork on lca went from
	# inconclusive to killed (not comparable), a cell goes missing: a hung
	# guest that BASE did not have is a regression whatever the counts
	jq -c '.cell as {workload: {name: $w}, $swap, kernel: {column: $k}}
		| if $w == "build" and $k == "stock" then .outcome = "hung"
		  elif $w == "prefork" and $k == "lca" then .outcome = "killed" else . end
		| select($w != "a" or $swap != "on" or $k != "stock")' \
		"$TEST_FIXTURES/run-small/runs.jsonl" >"$new/runs.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a new hung guest was not a regression: $out"
	printf '%s\n' "$out"
	diff -u "$TEST_FIXTURES/golden/compare.md" <(sed "s|$base|BASE_DIR|; s|$new|NEW_DIR|" <<<"$out") ||
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
	jq -c 'if .cell.rep == 2 then .kernel_splats = [{kind: "kasan", line: "BUG: KASAN: x"}] else . end' \
		"$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "a new kernel splat was not a regression: $out"
	grep -q 'WORSE: NEW has kernel splat kasan, BASE had not' <<<"$out" || fail "the splat is not named: $out"
	# a stall warning is counted: in one NEW run of six it is no
	# regression (p = 0.5), in six of six it is (p = 1/924)
	stall() {
		jq -c --argjson reps "$1" 'if .cell.rep <= $reps then .kernel_splats =
			[{kind: "rcu-stall", line: "rcu: INFO: rcu_sched self-detected stall on CPU"}] else . end' \
			"$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	}
	base=$(synthetic_run survived survived survived survived survived survived)
	new=$(synthetic_run survived survived survived survived survived survived)
	stall 1
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "one stall warning in six runs was a regression: $out"
	grep -qF '| prefork swap=off stock | 0/6 | 1/6 | no supported difference (p = 0.5 more often' <<<"$out" ||
		fail "the stall warning is not counted: $out"
	stall 6
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "stall warnings in six runs of six were no regression: $out"
	grep -qF '| prefork swap=off stock | 0/6 | 6/6 | WORSE (p = 0.00108' <<<"$out" || fail "the stall warnings' test: $out"
	# every run a panic, at the size of the small run
	new=$(small_run)
	jq -c '.outcome = "panic"' "$TEST_FIXTURES/run-small/runs.jsonl" >"$new/runs.jsonl"
	expect_exit 1 '^REGRESSION: ' "$LAB_ROOT/analysis/compare" "$(small_run)" "$new"
	# among three cells, 0 of 5 against 4 of 5 (p = 0.0238) is not enough
	# after Holm (0.0714): many cells are many tests; 0 of 6 against 6 of 6 is
	out=$(fisher '[{"base": [0, 5], "new": [4, 1]}, {"base": [1, 4], "new": [1, 4]}, {"base": [2, 3], "new": [2, 3]}]')
	jq -e '.[0].p_worse == 0.0238 and .[0].p_worse_holm == 0.0714' <<<"$out" >/dev/null ||
		fail "Holm's adjustment over three cells: $out"
	out=$(fisher '[{"base": [0, 6], "new": [6, 0]}, {"base": [1, 4], "new": [1, 4]}, {"base": [2, 3], "new": [2, 3]}]')
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
	set_times "$base" '10 + .cell.rep'
	set_times "$new" '30 + .cell.rep'
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") && fail "later OOM kills were not a regression: $out"
	printf '%s\n' "$out"
	grep -q '^| prefork swap=off stock | 6/6 (11, 12, 13, 14, 15, 16 s) | 6/6 (31, 32, 33, 34, 35, 36 s) | WORSE (p = 0.00108, 0.00108 after Holm) |$' <<<"$out" ||
		fail "the later first OOM kills are not flagged with their p-value"
	grep -q '^REGRESSION: 1 worse: first OOM kill: prefork swap=off stock$' <<<"$out" || fail "the regression is not named"
	set_times "$new" 'if .cell.rep <= 3 then null else 10 + .cell.rep end'
	expect_exit 1 'first OOM kill: prefork swap=off stock' "$LAB_ROOT/analysis/compare" "$base" "$new"
	set_times "$new" '17 - .cell.rep'
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
	jq -c '.kernel_version = "6.12.118" | .cell.kernel.column = "stock@6.12"' \
		"$new/runs.jsonl" >"$new/r" && mv "$new/r" "$new/runs.jsonl"
	jq -c '.kernel.column = "stock@6.12"' "$new/plan.jsonl" >"$new/p" && mv "$new/p" "$new/plan.jsonl"
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "compare across lines failed: $out"
	grep -q '^BASE ran kernel line 6.1, NEW 6.12' <<<"$out" || fail "the lines are not named: $out"
	grep -q '^| prefork swap=off stock | survived (2 survived) | killed (1 killed, 1 survived) | ' <<<"$out" ||
		fail "the cells were not matched across lines: $out"
	# and an overhead run's ratios by their columns without @LINE (they
	# matched none before 2026-12-07: "No overhead ratio is in both runs")
	compare_py '
import contextlib, io
def ratios(run):
    line = "@6.12" if run == "new" else ""
    return [{"type": "ratio", "figure": f"fork lca{line}/stock{line} (icount)", "mode": "fork", "variant": "lca" + line,
             "base": "stock" + line, "clock": "icount", "ratio": r, "ci_low": r - 0.01, "ci_high": r + 0.01, "n": 10}
            for r in ([1.0] if run == "base" else [1.2])]
compare.overhead_ratios = ratios
text = io.StringIO()
with contextlib.redirect_stdout(text):
    compare.overhead("base", "new", 0.02)
text = text.getvalue()
assert "BASE ran the default kernel line, NEW kernel line 6.12: each ratio is matched" in text, text
assert "| fork lca/stock (icount) | 1 (0.99-1.01) | 1.2 (1.19-1.21) | 1.2 | WORSE |" in text, text
' || fail "overhead ratios were not matched across kernel lines"
}

set_times() {
	jq -c "(.t_first_oom_s = ($2)) | .t_end_s = 90" "$1/runs.jsonl" >"$1/r" && mv "$1/r" "$1/runs.jsonl"
}

# The log-rank scores summed over a group are its expected less observed
# events (O - E, with ties), and the overhead verdict's every branch.
t_unit_compare_rules() {
	compare_py '
import random
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
' || fail "a compare rule is wrong (above)"
}

# A run of the a bomb on lca, REPS runs, into $results/ID, each cell's
# evidence the fixture the caller's FAKE_FIXTURES give it (RUN_CELL, which
# lab/confirm's runs inherit).
fake_lca_run() {
	KERNELS=lca SWAP=off WORKLOADS=a DESKTOPS=flat REPS=$2 SURVIVAL_CLOCK=icount RESULTS=$results RUN_ID=$1 \
		"$LAB_ROOT/lab/experiment" >/dev/null 2>&1 || fail "the run $1 failed"
}

# make compare CONFIRM=1 (lab/confirm): the cells that two runs a side
# cannot decide are rerun on each side with the runs it lacks, and then
# decided. A bomb clean on BASE and persisting on NEW is "No regression
# detected" at 2 runs a side (p = 0.167). The first confirmation's runs on
# NEW come out inconclusive, so it is still undecidable; a second call
# makes up only those, in NEW-confirm2, and it is a regression (p = 0.0143
# at 4 a side); a third call reruns nothing; a side made with another
# series is refused.
t_unit_compare_confirm() {
	local results out n
	results=$(mktemp -d)
	export FAKE_FIXTURES="*/base*=clean" RUN_CELL=$TEST_FIXTURES/fake-run-cell LAB_ACCEL=tcg
	fake_lca_run base 2
	fake_lca_run new 2
	out=$("$LAB_ROOT/analysis/compare" "$results/base" "$results/new") || fail "2 runs a side were decided: $out"
	grep -q '^No regression detected: 1 cells undecidable' <<<"$out" || fail "not undecidable: $(tail -1 <<<"$out")"
	out=$(cd "$LAB_ROOT" && FAKE_FIXTURES="*/base*=clean */new-confirm/*=inconclusive" \
		make -s compare BASE="$results/base" NEW="$results/new" CONFIRM=1 2>&1) ||
		fail "inconclusive confirmation runs decided something: $out"
	grep -q '^No regression detected: 1 cells undecidable' <<<"$out" || fail "not still undecidable: $(tail -1 <<<"$out")"
	[ "$(jq -s 'map(select(.outcome == "clean")) | length' "$results/base-confirm/runs.jsonl")" = 2 ] ||
		fail "not 2 more clean runs on BASE (4 a side decide one cell: p = 1/70)"
	out=$(cd "$LAB_ROOT" && make -s compare BASE="$results/base" NEW="$results/new" CONFIRM=1 2>&1) &&
		fail "the confirmed regression exited 0: $out"
	printf '%s\n' "$out"
	[ ! -e "$results/base-confirm2" ] || fail "BASE, which had its runs, was confirmed again"
	n=$(jq -s length "$results/new-confirm2/runs.jsonl")
	[ "$n" -eq 2 ] || fail "not the 2 missing runs on NEW in new-confirm2: $n"
	grep -q '^| a swap=off lca | clean (4 clean) | persists (2 inconclusive, 4 persists) | WORSE (p = 0.0143' \
		<<<"$out" || fail "the confirmed cell is not WORSE with 4 conclusive runs a side"
	out=$("$LAB_ROOT/lab/confirm" "$results/base" "$results/new" 2>&1) && fail "the third call exited 0"
	[ ! -e "$results/new-confirm3" ] || fail "the third call ran cells again"
	jq -c '.series_hash = "lca-0123456789abcdef"' "$results/new/runs.jsonl" >"$results/x" &&
		mv "$results/x" "$results/new/runs.jsonl"
	rm -rf "$results/new-confirm" "$results/new-confirm2"
	expect_exit 2 "ran lca with series lca-0123456789abcdef; this checkout builds lca-" \
		"$LAB_ROOT/lab/confirm" "$results/base" "$results/new"
	[ ! -e "$results/new-confirm" ] || fail "a refused confirmation ran"
	expect_exit 2 "an overhead ratio is decided by more repetitions" \
		"$LAB_ROOT/lab/confirm" "$LAB_ROOT/results/overhead-next" "$LAB_ROOT/results/overhead-oom-v8e"
}

# A cell with no conclusive run on a side is not comparable: beside a cell
# that compares with power, the last line is "No regression detected",
# never "No regression." (it was, before 2026-12-06).
t_unit_compare_incomparable_is_a_gap() {
	local base new out side outcome
	base=$(synthetic_run survived survived survived survived survived survived)
	new=$(synthetic_run survived survived survived survived survived survived)
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "the same runs were a regression: $out"
	[ "$(tail -1 <<<"$out")" = "No regression." ] || fail "six a side could decide, yet: $(tail -1 <<<"$out")"
	for side in base new; do
		outcome=inconclusive
		[ "$side" = base ] || outcome=killed
		jq -c --arg o "$outcome" 'select(.cell.rep == 1) | .cell.kernel.column = "lca"
			| .id = "1-prefork-off-lca" | .cell.id = .id | .outcome = $o' "${!side}/runs.jsonl" >"${!side}/more"
		cat "${!side}/more" >>"${!side}/runs.jsonl"
		jq -c .cell "${!side}/more" >>"${!side}/plan.jsonl"
	done
	out=$("$LAB_ROOT/analysis/compare" "$base" "$new") || fail "an incomparable cell was a regression: $out"
	grep -q '^| prefork swap=off lca | inconclusive (1 inconclusive) | killed (1 killed) | not comparable' <<<"$out" ||
		fail "the cell is not said to be not comparable: $out"
	[ "$(tail -1 <<<"$out")" = "No regression detected: 1 cells not comparable" ] ||
		fail "an incomparable cell is not a gap: $(tail -1 <<<"$out")"
}

# The committed runs: the quick matrix made twice on one build compares as
# "No regression." both ways (quick-icount-a's one RCU stall, on stock, is
# counted, not a regression), and the reference with every run turned into
# a panic is one at its own size (5 runs a cell).
t_unit_compare_committed_runs() {
	local a=$LAB_ROOT/results/quick-icount-a b=$LAB_ROOT/results/quick-icount-b ref
	expect_exit 0 '^No regression\.$' "$LAB_ROOT/analysis/compare" "$a" "$b"
	expect_exit 0 '^No regression\.$' "$LAB_ROOT/analysis/compare" "$b" "$a"
	ref=$(mktemp -d)/reference
	mkdir "$ref"
	cp "$LAB_ROOT/results/reference/meta.json" "$LAB_ROOT/results/reference/plan.jsonl" "$ref/"
	jq -c '.outcome = "panic"' "$LAB_ROOT/results/reference/runs.jsonl" >"$ref/runs.jsonl"
	expect_exit 1 '^REGRESSION: 70 worse: .*; the classes of all cells together$' \
		"$LAB_ROOT/analysis/compare" "$LAB_ROOT/results/reference" "$ref"
}
