# shellcheck shell=bash
# Reports, statistics, claims, events and the paper, from fixture and
# synthetic runs.

# The report, compare and paper of a small committed run (real records of
# the reference run, four cells left out on purpose) against golden files.
# Python with analysis/tables.py imported as tables: tables_py CODE [ARG...]
tables_py() {
	(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c "import sys, tables
$1" "${@:2}")
}

# Python with analysis/claims.py imported as claims: claims_py CODE [ARG...]
claims_py() {
	(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c "import json, sys, claims
$1" "${@:2}")
}

small_run() {
	local tmp
	tmp=$(mktemp -d)
	cp -r "$TEST_FIXTURES/run-small" "$tmp/"
	printf '%s\n' "$tmp/run-small"
}

t_unit_report_matches_golden() {
	local run
	run=$(small_run)
	"$LAB_ROOT/analysis/report" "$run" --no-figures --json >"$run/sections.json" || fail "report failed"
	diff -u "$TEST_FIXTURES/golden/report.md" "$run/report.md" || fail "report.md differs from the golden file"
	# --json: the same sections, made once, as JSON beside report.md
	jq -e 'keys == (["survival", "fp", "collateral", "kills", "acted", "victims", "overhead", "errors"] | sort)' \
		"$run/sections.json" >/dev/null || fail "--json does not give every section"
	[ "$(jq -r .survival "$run/sections.json")" = "$("$LAB_ROOT/analysis/report" "$run" --section survival)" ] ||
		fail "--json's survival section is not --section's"
	expect_exit 2 'usage: analysis/report' "$LAB_ROOT/analysis/report" "$run" --json --section survival
	grep -qxF '| build | 1/1 collateral (2.5–100%) | 1/1 killed (2.5–100%) |' "$run/report.md" || fail "build's row"
	grep -qxF '| build | missing | missing |' "$run/report.md" || fail "missing cells are not marked"
	grep -qF '| a | no conclusive run (1 inconclusive) |' "$run/report.md" ||
		fail "a cell without a conclusive run is not said to be one"
	# a column the plan has no cell in is left out, not printed as a column of "–"
	jq -c 'select(.swap == "off" or .kernel.column == "lca")' "$run/plan.jsonl" >"$run/plan.new"
	jq -c 'select(.cell.swap == "off" or .cell.kernel.column == "lca")' "$run/runs.jsonl" >"$run/runs.new"
	mv "$run/plan.new" "$run/plan.jsonl" && mv "$run/runs.new" "$run/runs.jsonl"
	"$LAB_ROOT/analysis/report" "$run" --no-figures || fail "report of a plan without stock swap=on failed"
	grep -A2 -xF '*flat, swap on*' "$run/report.md" | grep -qxF '| workload | lca |' ||
		fail "a column with no planned cell is in the tables, or one that has cells is not"
}

# Records the committed runs do not have: a bomb gone without its time, a
# first victim without a name; the report, the claims and the
# paper's facts live through them, and a damaged channel log is named.
t_unit_report_survives_odd_records() {
	local run
	run=$(small_run)
	jq -c 'if .cell.workload.kind == "bomb" then .gone = true | .t_gone_s = null
		| .first_victim = {probe: null} else . end' "$TEST_FIXTURES/run-small/runs.jsonl" >"$run/runs.jsonl"
	"$LAB_ROOT/analysis/report" "$run" --no-figures || fail "the report failed on odd records"
	"$LAB_ROOT/analysis/claims.py" "$run" >/dev/null || fail "the claims failed on odd records"
	"$LAB_ROOT/analysis/tables.py" facts "$run" >/dev/null || fail "the facts failed on odd records"
	expect_exit 1 'claims: error: .*/nowhere/meta.json is missing' "$LAB_ROOT/analysis/claims.py" "$run/nowhere"
	[ "$(tables_py 'print(tables.jround(0.49999999999999994), tables.jround(2.5), tables.jround(-2.5))')" = \
		"0.0 3.0 -3.0" ] || fail "jround is not C's round"
	printf 'not gzip' >"$run/$(jq -r 'select(.cell.rep == 1) | .cell_dir' "$run/runs.jsonl" | head -1)/channel.log.gz"
	expect_exit 1 'damaged channel log' "$LAB_ROOT/analysis/report" "$run"
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
	# the panels share their axes: one time range, to the latest sample of any
	# panel, with at most 5 ticks (more overprinted at the panels' width)
	local gp=$run/figures/data/a-swap-off.gp tmax
	tmax=$(cat "$run"/figures/data/a-swap-off-*.dat | awk '$1 > t { t = $1 } END { print t }')
	[ "$(grep -c '^set xrange' "$gp")" -eq 1 ] || fail "the panels do not share one time axis"
	grep -qx "set xrange \[0:$tmax\]" "$gp" || fail "the time axis does not end at the latest sample, $tmax s"
	awk -v t="$tmax" '$1 == "set" && $2 == "xtics" { exit !(t / $3 <= 5) }' "$gp" || fail "more than 5 time ticks"
	[ "$(grep -c '^set ylabel' "$gp")" -eq 2 ] || fail "a y label on every panel, not one a row"
	# a column's name is text (lca@6.12: in enhanced text @ overprints), and
	# two columns leave the four legend entries room
	! grep '^set title' "$gp" | grep -qv noenhanced || fail "a panel title in enhanced text"
	file "$run/figures/a-swap-off.png" | grep -q ', 900 x 760,' || fail "not 900 pixels wide: $(file "$run/figures/a-swap-off.png")"
}

# The summary joins the runs of one build and clock, leaves another clock's
# out naming why, answers per desktop, and draws a panel per desktop.
t_unit_summary_joins_runs_of_one_build() {
	local a b c out text
	a=$(small_run)
	b=$(dirname "$a")/run-b c=$(dirname "$a")/run-c out=$(dirname "$a")/summary
	cp -r "$a" "$b"
	cp -r "$a" "$c"
	jq -c 'if .id == "1-a-off-lca" then .outcome = "clean" else . end' "$a/runs.jsonl" >"$b/runs.jsonl"
	jq -c '.clock = "icount"' "$a/runs.jsonl" >"$c/runs.jsonl"
	text=$("$LAB_ROOT/analysis/summary" "$out" "$a" "$b" "$c") || fail "the summary failed"
	printf '%s\n' "$text"
	grep -qF "From \`$a\`, \`$b\`: 16 runs, clock wall" <<<"$text" || fail "the runs of one build were not joined"
	grep -qF "\`$c\`: another clock (icount, not wall)" <<<"$text" || fail "the other clock's run was not left out with its reason"
	grep -qF -- "- Desktop flat: the bombs were ended cleanly on lca in 1/1 runs (2.5–100.0%); the false-positive loads were killed on lca in 2/2 runs (15.8–100.0%), never on stock." <<<"$text" ||
		fail "the desktop's answer is not the runs'"
	[ "$(grep -c '^| flat | ' <<<"$text")" -eq 4 ] || fail "expected a row per column in each table"
	grep -qF '| flat | lca | 1/1 (2.5–100.0%) | 0/1 (0.0–97.5%) | 0/1 (0.0–97.5%) | 3 |' <<<"$text" ||
		fail "lca's bombs row is not the runs' counts"
	grep -qF '| flat | stock | 0/2 (0.0–84.2%) | 2/2 (15.8–100.0%) | 0/2 (0.0–84.2%) | 2 | – |' <<<"$text" ||
		fail "stock's false-positive row is not the runs' counts"
	# each column against stock (Fisher, Holm), and what the test could see
	grep -qF '| flat | lca | 0/2 (0.0–84.2%) | 0/2 (0.0–84.2%) | 2/2 (15.8–100.0%) | 2 | p = 0.33, Holm 0.33 |' <<<"$text" ||
		fail "lca's false positives are not tested against stock's"
	grep -qF '1 comparison with stock without a defence' <<<"$text" || fail "no sentence on the tests against stock"
	grep -qF 'none of stock'"'"'s, or the reverse), 0 of 1 would have reached' <<<"$text" || fail "the test's power is not stated"
	grep -qF 'No column against stock: no desktop has conclusive runs of stock' <<<"$text" ||
		fail "stock's bombs, all inconclusive, were compared"
	# killed: stock 0/6, lca 6/6, lca-2005 2/2, lca-kill2005 3/6. Raw p
	# 0.0022, 0.036, 0.18; after Holm over 3 only lca's is below 0.05. At
	# their extremes (6/6, 2/2, 6/6 against 0/6) all 3 would be.
	a=$(synthetic_run survived survived survived survived survived survived killed killed killed killed killed killed \
		killed killed killed killed killed survived survived survived)
	for f in runs plan; do
		jq -c --arg f "$f" '(if $f == "runs" then .cell else . end) as $c
			| ([$c.rep] | if .[0] > 14 then "lca-kill2005" elif .[0] > 12 then "lca-2005" elif .[0] > 6 then "lca"
			   else "stock" end) as $k
			| if $f == "runs" then .cell.kernel.column = $k else .kernel.column = $k end' "$a/$f.jsonl" >"$a/x" &&
			mv "$a/x" "$a/$f.jsonl"
	done
	jq '.matrix.kernels = ["stock", "lca", "lca-2005", "lca-kill2005"]' "$a/meta.json" >"$a/m" && mv "$a/m" "$a/meta.json"
	text=$("$LAB_ROOT/analysis/summary" "$out" "$a") || fail "the summary of 3 columns against stock failed"
	grep -qF '| flat | lca | 0/6 (0.0–45.9%) | 0/6 (0.0–45.9%) | 6/6 (54.1–100.0%) | 0 | p = 0.0022, Holm 0.0065 **more often** |' \
		<<<"$text" || fail "6 of 6 killed against 0 of 6 is not more often: $(grep '^| flat | lca |' <<<"$text")"
	grep -qF '| flat | lca-2005 | 0/2 (0.0–84.2%) | 0/2 (0.0–84.2%) | 2/2 (15.8–100.0%) | 0 | p = 0.036, Holm 0.071 |' \
		<<<"$text" || fail "Holm does not keep 2 of 2 from differing: $(grep '^| flat | lca-2005' <<<"$text")"
	grep -qF '| 3/6 (11.8–88.2%) | 0 | p = 0.18, Holm 0.18 |' <<<"$text" || fail "3 of 6 against 0 of 6"
	grep -qF '3 of 3 would have reached p < 0.05 after Holm' <<<"$text" || fail "not what each could have shown"
	[ "$(head -c 4 "$out/summary.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG summary"
	[ "$(grep -c '^set title "desktop' "$out/data/summary.gp")" -eq 1 ] || fail "expected one panel, for the one desktop"
	expect_exit 1 "is not a survival run" "$LAB_ROOT/analysis/summary" "$out" "$LAB_ROOT/results/overhead-chain"
	expect_exit 2 "usage" "$LAB_ROOT/analysis/summary" "$out"
}

t_unit_report_names_bad_line() {
	local run
	run=$(small_run)
	sed -i '3s/"outcome":"[a-z-]*"/"outcome":"great"/' "$run/runs.jsonl"
	expect_exit 1 "runs.jsonl:3: record.outcome: 'great' is not one of" "$LAB_ROOT/analysis/report" "$run" --no-figures
	[ ! -e "$run/report.md" ] || fail "a report was written from a damaged run"
	jq '.schema = 9' "$TEST_FIXTURES/run-small/meta.json" >"$run/meta.json"
	expect_exit 1 'written by schema 9; this lab reads 3' "$LAB_ROOT/analysis/report" "$run" --no-figures
}

# A run of one cell (prefork, swap off, stock), one repetition per
# outcome given, from the survived fixture's evidence.
synthetic_run() {
	local dir rec i=0 outcome
	dir=$(mktemp -d)/synthetic
	mkdir -p "$dir"
	rec=$("$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/survived")
	for outcome in "$@"; do
		i=$((i + 1))
		jq -c --argjson i "$i" --arg o "$outcome" '.cell | .rep = $i | .id = "\($i)-prefork-off-stock"' <<<"$rec" >>"$dir/plan.jsonl"
		jq -c --argjson i "$i" --arg o "$outcome" '.cell.rep = $i | .cell.id = "\($i)-prefork-off-stock"
			| .id = .cell.id | .outcome = $o | .cell_dir = "cells/\(.id)"' <<<"$rec" >>"$dir/runs.jsonl"
	done
	jq --argjson reps "$#" '.matrix = {type: "survival", kernels: ["stock"], swap: ["off"], workloads: ["prefork"],
		defences: ["none"], desktops: ["flat"], reps: $reps, seed: 0}' "$TEST_FIXTURES/run-small/meta.json" >"$dir/meta.json"
	printf '%s\n' "$dir"
}

# The paper's clock threat, from the records' clocks: each branch.
t_unit_clock_threat_names_each_clock() {
	# says CLOCK:ICOUNT... PATTERN: the threat of records of those clocks
	# contains PATTERN (read whole: grep -q in a pipe can stop its writer)
	says() {
		local text
		text=$(tables_py 'print(tables.clock_threat([{"cell": {"guest": {"clock": a.split(":")[0], "icount": a.split(":")[1]}}}
			for a in sys.argv[1:-1]]))' "$@") || fail "clock_threat failed"
		grep -qF -- "${*: -1}" <<<"$text"
	}
	says wall: wall: "It was the host's" || fail "the wall clock is not named"
	says icount:shift=2,sleep=on 'swap-on times within one run only.' || fail "sleep=on without its swap caveat"
	says icount:shift=2,sleep=off '-icount shift=2,sleep=off' || fail "the counted clock is not named"
	! says icount:shift=2,sleep=off 'sleep=on' || fail "sleep=off given the sleep=on caveat"
	says wall: icount:shift=2,sleep=on 'several clocks; their times are not on one scale' ||
		fail "mixed clocks are not named"
}

t_unit_paper_builds_from_results() {
	local run debug line
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
	grep -qF 'Not run for this paper (a run per line' "$run/paper.md" || fail "no line compared, and the paper did not say so"
	grep -qFx -- '- build, swap off, 1 run: killed 1/1; first OOM victim: a desktop probe (which one not recorded) 1/1; an LCA decision killed the subtree of: a process that is no desktop probe 1/1.' \
		"$run/paper.md" || fail "no discussion of the verdicts' mechanism"
	grep -qF "**The guest's clock.** It was the host's" "$run/paper.md" || fail "the wall clock's threat is not named"
	# shellcheck disable=SC2016 # the backticks are markdown
	grep -qE '^\*Conditions \(`\.`\): builds lca-[0-9a-f]{16} \(config [0-9a-f]{16}, Linux 6\.1\.[0-9]+\), stock-[0-9a-z]+ .*; desktops flat; 1 repetition; deadlines \[a .*\]; clock wall, 2 vCPUs under tcg\.\*$' \
		"$run/paper.md" || fail "the results do not state their conditions"
	# a debug run: one splat in one cell, one in its stress boot, counted
	# with the reference's boots: 2 in 4 + 1 + 8
	debug=$(synthetic_run survived survived survived survived)
	jq -c 'if .cell.rep == 2 then .kernel_splats = [{kind: "lockdep", line: "WARNING: possible recursive locking detected"}]
		else . end | if .cell.rep <= 2 then .lca_decisions = [{t: 5, victim: 9, prev: 0, lca: 0, killed: 0, anchor: 8}] else . end' \
		"$debug/runs.jsonl" >"$debug/r" && mv "$debug/r" "$debug/runs.jsonl"
	mkdir -p "$debug/stress/swap-0"
	jq -n -c '{seconds: 300, cpus: 4, swap: "0", outcome: "splats", stress: {counts: {vfork: 9}, oom_kills: 5,
		memcg_oom_kills: 2, lca_decisions: 1}, watchdogs: {soft_watchdog: 1, nmi_watchdog: 0, hung_task_timeout_secs: 120,
		hard_lockup_note: "[    0.9] NMI watchdog: Perf NMI watchdog permanently disabled"},
		splats: [{kind: "kasan", line: "BUG: KASAN: use-after-free in x"}]}' >"$debug/stress/swap-0/stress.json"
	# and the same runs on the counted clock
	counted='.clock = "icount" | .icount = "shift=2,sleep=on" | .cpus = 1'
	jq -c ".guest |= ($counted)" "$run/plan.jsonl" >"$run/p" && mv "$run/p" "$run/plan.jsonl"
	jq -c ".cell.guest |= ($counted)" "$run/runs.jsonl" >"$run/r" && mv "$run/r" "$run/runs.jsonl"
	# and the same runs again as another kernel line's (lca@6.12), compared
	line=$(dirname "$run")/on-6.12
	mkdir "$line" && cp "$run/meta.json" "$line/"
	jq -c '.kernel.column += "@6.12"' "$run/plan.jsonl" >"$line/plan.jsonl"
	jq -c '.cell.kernel.column += "@6.12" | .kernel_version = "6.12.118"' "$run/runs.jsonl" >"$line/runs.jsonl"
	expect_exit 2 "--lines needs 2 directories" "$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" --lines "$run"
	expect_exit 2 "--overhead needs a directory, not '--debug'" "$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" \
		--overhead --debug "$debug"
	expect_exit 2 "unknown argument '$debug'" "$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" "$debug"
	expect_exit 2 "$debug/stress/meta.json is missing: not a run directory" "$LAB_ROOT/analysis/paper" "$run" \
		"$run/paper.md" --lines "$run" "$debug/stress"
	"$LAB_ROOT/analysis/paper" "$run" "$run/paper.md" --debug "$debug" --lines "$run" "$line" ||
		fail "paper with a debug run and a line failed"
	sed -n '/^### One kernel line against another/,/^### Kernel splats/p' "$run/paper.md" >"$line/section"
	grep -qF "BASE ran kernel line 6.1, NEW 6.12: each cell is matched" "$line/section" || fail "the lines are not compared"
	grep -qF '**Time to bomb gone' "$line/section" || fail "the compare's sections are not in the paper"
	! grep -q '^# Compare' "$line/section" || fail "the compare's title is in the paper"
	grep -qF ', 1 vCPU;' "$run/report.md" || fail "the report does not say '1 vCPU'"
	[ "$(grep -c '^\*Conditions (' "$line/section")" -eq 2 ] || fail "not each line's conditions"
	grep -qF 'It counted instructions (QEMU' "$run/paper.md" || fail "the counted clock is not named"
	grep -qF '; clock icount (shift=2,sleep=on), 1 vCPU under tcg.*' "$run/paper.md" || fail "the conditions do not name the counted clock"
	[ "$(sed '/^### One kernel line/,/^### Kernel splats/d' "$run/paper.md" | grep -c '^\*Conditions (')" -eq 2 ] ||
		fail "not 2 conditions lines beside the lines': the run's and the debug run's"
	grep -qF 'swap-on times within one run only.' "$run/paper.md" || fail "the swap-on caveat of sleep=on is missing"
	grep -F 'Kernel splats: 2 in 13 boots (1 kasan, 1 lockdep).' "$run/paper.md" || fail "the splats are not counted"
	grep -F '| debug build: lineage stress, 300 s on 4 vCPUs, swap 0 | 1 | 1 | 1 kasan |' "$run/paper.md" ||
		fail "no row for the stress"
	grep -F 'NMI (hard) 0 (NMI watchdog: Perf NMI watchdog permanently disabled)' "$run/paper.md" ||
		fail "the lockup detectors are not reported"
	grep -Fx 'Debug cells that made an LCA decision: 2 of 4 (2 decisions); none in 3-prefork-off-stock, 4-prefork-off-stock.' \
		"$run/paper.md" || fail "the debug cells without an LCA decision are not named"
}

# The intervals are scipy's exact binomial test's (analysis/tables.py's
# interval, beta quantiles): 3 of 3 is 29.2-100% (1 - 0.975^(1/3) =
# 0.2924), 0 of 1 is 0-97.5%; and every one up to 60 runs agrees.
t_unit_stats_gives_exact_intervals() {
	[ "$(tables_py 'print(tables.interval(3, 3), tables.interval(0, 1), tables.interval(1, 2))')" = \
		"(29.2, 100.0) (0.0, 97.5) (1.3, 98.7)" ] || fail "unexpected intervals"
	[ "$(tables_py 'print(tables.share_of(2, 3))')" = "2/3 (9.4–99.2%)" ] || fail "share_of of 2/3"
	tables_py 'from scipy.stats import binomtest
for n in range(1, 61):
    for k in range(n + 1):
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
        want = (round(ci.low * 100, 1), round(ci.high * 100, 1))
        assert tables.interval(k, n) == want, (k, n, tables.interval(k, n), want)' ||
		fail "tables.py's intervals are not binomtest's"
	expect_exit 2 "usage: analysis/stats ratios" "$LAB_ROOT/analysis/stats" ci 3
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
	local cases=() recs got want i=0
	# check WANT N RECORDS...: claim N's verdict, for the policy column
	# $column (lca), is WANT for records given as "[Kx] kernel workload kind
	# outcome [swap [gap_ms|-]]" words (K copies; a collateral run lost the
	# browser; - : no probes' report). The cases are decided together below.
	check() {
		cases+=("$(jq -n -c --arg want "$1" --argjson n "$2" --arg c "${column:-lca}" \
			'{want: $want, n: $n, column: $c, words: $ARGS.positional}' --args "${@:3}")")
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
	# every case's records
	recs=$(printf '%s\n' "${cases[@]}" | jq -s -c 'map(.records = [.words[] | split(" ")
		| if .[0] | test("^[0-9]+x$") then .[1:] as $w | range(.[0][:-1] | tonumber) | $w else . end
		| (.[4] // "off") as $swap
		| {cell: {workload: {name: .[1], kind: .[2], deadline_s: (if $swap == "on" then 600 else 90 end)},
		          swap: $swap, kernel: {column: .[0]}, defence: {name: "none"}, desktop: {name: "flat"}},
		   outcome: .[3], max_probe_gap_ms: (.[5] // "100" | if . == "-" then null else tonumber end), oom_kills: 1,
		   probes_lost: (if .[3] == "collateral" then ["browser"] else [] end),
		   gone: (.[3] | IN("clean", "collateral")), lca_killed: 0}
		| .t_gone_s = (if .gone then 10 else null end)])')
	# the exact tests of claims 4 and 5, each case a family of its own, then
	# every verdict, in one Python (scipy takes a second to load)
	while IFS=$'\t' read -r want got; do
		printf '%-16s %s\n' "$got" "${cases[$i]}"
		[ "$got" = "$want" ] || fail "case $i, ${cases[$i]}: $got, expected $want"
		i=$((i + 1))
	done < <(claims_py 'from lcastats import fisher
for i, case in enumerate(json.load(sys.stdin)):
    rs = claims.Records(case["records"], claims.tables.silent(claims.tables.outcome_classes()))
    c = case["column"]
    tests = {k: fisher([dict(counts(rs, c), family=k)])[0]
             for k, counts in (("fp", claims.fp_counts), ("swap", claims.swap_counts))}
    print(case["want"], claims.claims(rs, ["off", "on"], tests, c)[case["n"] - 1]["verdict"], sep="\t")' <<<"$recs")
	[ "$i" -eq ${#cases[@]} ] || fail "$i verdicts for ${#cases[@]} cases"
	# claim 4 with one swap setting only: its runs are counted against
	# their own deadline (a missing side once made every run "not gone")
	local counts
	counts=$(claims_py 'run = {"cell": {"workload": {"name": "folkert", "deadline_s": 120}, "kernel": {"column": "lca"},
    "swap": "off", "defence": {"name": "none"}, "desktop": {"name": "flat"}}, "outcome": "clean", "gone": True, "t_gone_s": 30}
print(json.dumps(claims.swap_counts(claims.Records([run] * 3, set()), "lca"), separators=(",", ":")))')
	[ "$counts" = '{"base":[0,3],"new":[0,0]}' ] || fail "claim 4, swap off alone: $counts"
}

# The time-to-event table the deadlines are set from: in how many runs each
# event came, its median and latest time; older records are counted out.
t_unit_events_table_from_records() {
	local run out
	# lcastats' Kaplan-Meier curve and median of runs [[t, came], ...]
	km() {
		(cd "$LAB_ROOT/analysis" && /usr/bin/python3 -c 'import json, sys
from lcastats import kaplan_meier
print(*kaplan_meier(json.loads(sys.argv[1])))' "$1")
	}
	run=$(synthetic_run survived survived)
	out=$("$LAB_ROOT/analysis/events" "$run")
	printf '%s\n' "$out"
	grep -qxF '*flat, swap off*' <<<"$out" || fail "no table for the flat desktop without swap"
	grep -qF '| prefork | stock | 2 | 15 | 2/2 (15.8–100%): median 15 s, latest 15 s | 0/2 (0–84.2%) | 0/2 (0–84.2%) |' <<<"$out" ||
		fail "the events of two survived runs"
	# Kaplan-Meier, by hand: events at 10, 20, 30 s, runs censored at 15 and
	# 40 s: at risk 5, 3, 2, so 1 - S = 0.2, 1 - 0.8 * 2/3, 1 - 0.8 * 2/3 / 2
	out=$(km '[[10, true], [20, true], [15, false], [30, true], [40, false]]')
	[ "$out" = "[[10, 0.2], [20, 0.4667], [30, 0.7333]] 30" ] || fail "Kaplan-Meier of five runs, two censored: $out"
	out=$(km '[[180, false], [60, true], [180, false]]')
	[ "$out" = "[[60, 0.3333]] None" ] || fail "1 of 3 has no median: $out"
	expect_exit 1 'results/overhead-6.12 is not a survival run' "$LAB_ROOT/analysis/events" "$LAB_ROOT/results/overhead-6.12"
	out=$("$LAB_ROOT/analysis/events" "$(small_run)")
	grep -q '^8 records predate the event times' <<<"$out" || fail "older records are not counted out"
	# one row per defence: the defences' runs of one cell are not mixed
	out=$("$LAB_ROOT/analysis/events" "$LAB_ROOT/results/defences")
	[ "$(grep -cE '^\| b \| stock(\+[a-z]+)? \| ' <<<"$out")" = "$(jq -r -s 'map(.defence.name) | unique | length' \
		"$LAB_ROOT/results/defences/plan.jsonl")" ] || fail "the defences' rows of b on stock: $(grep '^| b | stock' <<<"$out")"
}

# The subtree kill's cost per member, from a committed run's medians: kill
# 2's rest on lca less stock's, over the members that went; none for the
# base column or for the first kill.
# The overhead section concludes per variant: how many process-path
# ratios are distinguishable, the range their intervals allow, and the OOM
# decisions' ratios (synthetic ratio lines).
t_unit_overhead_conclusion() {
	local got
	got=$(tables_py 'def r(v, mode, lo, ratio, hi, d):
    return {"variant": v, "base": "stock", "clock": "icount", "mode": mode,
            "ci_low": lo, "ratio": ratio, "ci_high": hi, "distinguishable": d}
print("\n".join(tables.overhead_conclusion([
    r("lca", "fork", 0.98, 1.001, 1.012, False), r("lca", "exec", 0.995, 1.02, 1.031, True),
    r("lca", "oom-tree:10000#1", 1.1, 1.1185, 1.12, True), r("lca", "oom-tree:10000#2", 13, 13.0459, 13.1, True),
    r("lca-noshare", "oom-tree:10000#2", 12.9, 13.0086, 13.1, False),
    r("lca-off", "fork", None, 0.99, None, False)])))') ||
		fail "overhead_conclusion failed"
	printf '%s\n' "$got"
	[ "$got" = "- lca against stock (icount): on the paths every process takes (exec, fork), 1 of 2 ratios are distinguishable from 1; their 95% intervals run from -2% to 3.1%, so the series costs these paths at most 3.1%; its OOM decisions take 1.12x to 13.05x the base's time (2 of 2 distinguishable).
- lca-noshare against stock (icount): no process-path figure measured; its OOM decisions take 13.01x to 13.01x the base's time (0 of 1 distinguishable).
- lca-off against stock (icount): on the paths every process takes (fork), 0 of 1 ratios are distinguishable from 1; none has an interval (too few boots)." ] ||
		fail "not the conclusion of the ratios"
}

t_unit_overhead_member_cost() {
	local run out want got
	# its chain:1000 cells only (the bootstrap of the other figures' ratios
	# takes seconds)
	run=$(mktemp -d)/overhead-chain
	cp -r "$LAB_ROOT/results/overhead-chain" "$run"
	jq -c 'select(.type == "oomcost" and any(.lines[]; .shape == "chain" and .size == 1000))' \
		"$LAB_ROOT/results/overhead-chain/runs.jsonl" >"$run/runs.jsonl"
	out=$("$LAB_ROOT/analysis/overhead" "$run") || fail "analysis/overhead failed"
	want=$(jq -r -s 'map(select(.type == "oom_cost" and .shape == "chain" and .size == 1000 and .oom == 2))
		| (map(select(.variant == "lca")) | first) as $l | (map(select(.variant == "stock")) | first) as $s
		| "\($l.rest_us) \($s.rest_us) \($l.gone)"' <<<"$out" | awk '{ printf "%.3f\n", ($1 - $2) / $3 }')
	got=$(jq -r 'select(.type == "member_cost" and .shape == "chain" and .size == 1000 and .variant == "lca")
		| .per_member_us' <<<"$out" | awk '{ printf "%.3f\n", $1 }')
	[ -n "$want" ] || fail "no chain:1000 medians"
	[ "$got" = "$want" ] || fail "chain:1000 lca per member: $got us, expected $want"
	jq -e -s 'map(select(.type == "member_cost")) | length > 0 and all(.variant != "stock")' <<<"$out" >/dev/null ||
		fail "a member cost for the base column, or none at all"
	# a median of whole numbers is printed whole, as jq prints it
	! grep -qE '"(tasks|gone)":[0-9]+\.0[,}]' <<<"$out" || fail "a whole median printed with .0"
}

# analysis/discussion, on synthetic records of one desktop and bomb. stock
# and lca lose the browser as their first OOM victim (on lca the desktop's
# design, though its LCA took the session's subtree); lca-2005 loses it to
# a later OOM kill and the editor to its subtree kill (the policy's own),
# its LCA the editor's parent; lca-kill2005 loses the terminal as its first
# victim, which stock never did (not the design); lca@6.12 has no stock of
# its line to be set beside.
t_unit_discussion_names_each_loss() {
	local dir out
	# a function of the records: equal counts in the same order whatever
	# order Python's string hashing gives its sets
	[ "$(PYTHONHASHSEED=1 "$LAB_ROOT/analysis/discussion" "$LAB_ROOT/results/reference")" = \
		"$(PYTHONHASHSEED=2 "$LAB_ROOT/analysis/discussion" "$LAB_ROOT/results/reference")" ] ||
		fail "the discussion depends on the hash seed"
	dir=$(synthetic_run survived survived)
	jq -c 'def decision($lca; $killed): {t: 1, victim: 70, prev: 70, lca: $lca, killed: $killed, anchor: $lca};
		def victim($probe): {pid: 70, comm: "probe", anon_rss_kb: 9, probe: $probe, bomb_member: ($probe == null)};
		def column($c): .cell.kernel.column = $c | .id += "-\($c)" | .cell.id = .id;
		.cell.workload |= (.name = "a" | .kind = "bomb") | .outcome = "collateral"
		| .probe_pids = {session: 68, editor: 69, browser: 70, terminal: 72} | .probe_ppids = {editor: 68, terminal: 98}
		| .lca_decisions = [] | .first_victim = victim("browser") | .probe_deaths = [{name: "browser", cause: "oom-kill"}]
		| ., (column("lca") | .lca_decisions = [decision(68; 9), decision(70; 0)]),
		  (column("lca-2005") | .lca_decisions = [decision(68; 3)]
		   | .probe_deaths += [{name: "editor", cause: "lca subtree of 68"}]
		   | if .cell.rep == 1 then .first_victim = victim(null) else .first_victim = null end),
		  (column("lca-kill2005") | .lca_decisions = [decision(99; 3)] | .first_victim = victim("terminal")
		   | .probe_deaths = [{name: "terminal", cause: "oom-kill"}]),
		  (column("lca@6.12") | .lca_decisions = [decision(98; 3)])' \
		"$dir/runs.jsonl" >"$dir/r" && mv "$dir/r" "$dir/runs.jsonl"
	jq -c .cell "$dir/runs.jsonl" >"$dir/plan.jsonl"
	out=$("$LAB_ROOT/analysis/discussion" "$dir") || fail "analysis/discussion failed: $out"
	printf '%s\n' "$out"
	line() { grep -A2 -x "\*\*$1\*\*" <<<"$out" | sed -n 3p; }
	[ "$(line stock)" = '- a, swap off, 2 runs: collateral 2/2; first OOM victim: browser 2/2; lost to the first OOM kill: browser 2/2.' ] ||
		fail "stock's line: $(line stock)"
	[ "$(line lca)" = "- a, swap off, 2 runs: collateral 2/2; first OOM victim: browser 2/2; an LCA decision killed the subtree of: session 2/2; lost to the first OOM kill: browser 2/2 (stock: browser 2/2). The desktop's design: stock's first OOM kill takes the same." ] ||
		fail "lca's line does not name the desktop's design: $(line lca)"
	[ "$(line lca-2005)" = "- a, swap off, 2 runs: collateral 2/2; first OOM victim: a bomb member 1/2, none 1/2; an LCA decision killed the subtree of: session 2/2; lost to a later OOM kill: browser 2/2; lost to an LCA subtree: editor 2/2." ] ||
		fail "lca-2005's losses are not the policy's own: $(line lca-2005)"
	[ "$(line lca-kill2005)" = "- a, swap off, 2 runs: collateral 2/2; first OOM victim: terminal 2/2; an LCA decision killed the subtree of: a process that is no desktop probe 2/2; lost to the first OOM kill: terminal 2/2 (stock: terminal 0/2)." ] ||
		fail "lca-kill2005's terminal, which stock never lost, is the design: $(line lca-kill2005)"
	[ "$(line 'lca@6\.12')" = "- a, swap off, 2 runs: collateral 2/2; first OOM victim: browser 2/2; an LCA decision killed the subtree of: the parent of terminal 2/2; lost to the first OOM kill: browser 2/2." ] ||
		fail "lca@6.12 is set beside another line's stock: $(line 'lca@6\.12')"
	expect_exit 1 'is not a survival run' "$LAB_ROOT/analysis/discussion" "$LAB_ROOT/results/overhead"
}

# A table has at most 6 columns: one per desktop and swap setting, split
# by defence where wider (titled with it, "no defence" for none), in
# pieces where one defence is still wider.
t_unit_report_tables_fit_a_page() {
	local out
	out=$(tables_py 'def cols(ks, ds):
    return [("off", k, d, "flat") for d in ds for k in ks]
for c in (cols(["stock", "lca"], ["none", "nproc"]), cols(["stock", "lca", "a", "b"], ["none", "nproc"]),
          cols(["k1", "k2", "k3", "k4", "k5", "k6", "k7"], ["none"])):
    print("; ".join(tables.table_title(t, d) + " " + ",".join(map(tables.col_label, t))
                    for t, d in tables.column_tables(c)))')
	printf '%s\n' "$out"
	[ "$(sed -n 1p <<<"$out")" = '*flat, swap off* stock,lca,stock+nproc,lca+nproc' ] || fail "4 columns were split"
	[ "$(sed -n 2p <<<"$out")" = '*flat, swap off, no defence* stock,lca,a,b; *flat, swap off, nproc* stock+nproc,lca+nproc,a+nproc,b+nproc' ] ||
		fail "8 columns are not a table per defence"
	[ "$(sed -n 3p <<<"$out")" = '*flat, swap off, no defence* k1,k2,k3,k4,k5,k6; *flat, swap off, no defence* k7' ] ||
		fail "7 columns of one defence are not in pieces of 6"
}

# analysis/herd: each bomb run's time from its mass kill (the last LCA
# decision that killed more than 100; else, where memory.oom.group acted,
# the first OOM kill) to the bomb gone, the runs over --over S or never
# ended counted with the runnable tasks sampled meanwhile, and one side
# tested against another. Synthetic runs made from run-small's a cell; a
# run without a mass kill, a lab-error and a false-positive load are left
# out.
herd_run() {
	local dir=$1 spec id decisions oom gone acted outcome samples i=0
	mkdir -p "$dir/cells"
	cp "$TEST_FIXTURES/run-small/meta.json" "$dir/"
	: >"$dir/runs.jsonl"
	for spec in "${@:2}"; do
		IFS=';' read -r decisions oom gone acted outcome samples <<<"$spec"
		i=$((i + 1)) id=$i-a-off-lca
		jq -c --arg id "$id" --arg decisions "$decisions" --argjson oom "$oom" --argjson gone "$gone" \
			--arg acted "$acted" --arg outcome "$outcome" 'select(.id == "1-a-off-lca")
			| .id = $id | .cell.id = $id | .cell.rep = ($id | split("-")[0] | tonumber) | .cell_dir = "cells/\($id)"
			| .lca_decisions = [$decisions | splits(",") | select(. != "") | split("/") | map(tonumber)
				| {t: .[0], victim: 2, prev: 1, lca: 1, killed: .[1], anchor: 1}]
			| .t_first_oom_s = $oom | .t_gone_s = $gone | .gone = ($gone != null)
			| .acted = ["oom-killer"] + ($acted | split(",")) | .outcome = $outcome' \
			"$TEST_FIXTURES/run-small/runs.jsonl" >>"$dir/runs.jsonl" || fail "bad spec $spec"
		mkdir -p "$dir/cells/$id"
		jq -n -c --arg samples "$samples" --argjson i "$i" '($samples | splits(",") | select(. != "") | split("/")
			| map(tonumber) | {type: "sample", t: .[0], workload_tasks: .[1], running: .[2]}),
			{type: "result", oom_reaped: $i, oom_unreapable: 0}' >"$dir/cells/$id/channel.log" || fail "bad spec $spec"
	done
	jq -c .cell "$dir/runs.jsonl" >"$dir/plan.jsonl"
}

t_unit_herd_from_the_mass_kill() {
	local tmp out fp
	tmp=$(mktemp -d)
	# LCA decisions t/killed; first OOM kill; gone; acted; class; samples t/tasks/running
	herd_run "$tmp/before" "10/500;8;11.2;;collateral;10/600/12" \
		"3/200,10/500;2;20;;collateral;2/600/5,11/600/700,12/30/900" \
		"10/100;8;11;;clean;" "10/500;8;null;;persists;" ";5;6;oom-group;clean;" "10/500;8;11;;lab-error;"
	herd_run "$tmp/after" "10/500;8;11;;clean;10/600/12" "10/500;8;11.5;;clean;" "10/500;8;12;;clean;" \
		"10/500;8;13;;clean;"
	fp=$(jq -c 'select(.cell.rep == 1) | .id = "9-build-off-lca" | .cell.id = .id | .cell.rep = 9
		| .cell.workload.kind = "false-positive" | .t_gone_s = 60' "$tmp/before/runs.jsonl")
	printf '%s\n' "$fp" >>"$tmp/before/runs.jsonl"
	jq -c .cell "$tmp/before/runs.jsonl" >"$tmp/before/plan.jsonl"
	out=$("$LAB_ROOT/analysis/herd" --runs "$tmp/before" --against "$tmp/after") || fail "herd failed: $out"
	printf '%s\n' "$out"
	grep -qxF -- "- First ($tmp/before): 2 of 4 runs took more than 4 s from the mass kill to the bomb gone or never ended (6.8–93.2%); median 5.6 s, longest never; the median of the runnable tasks meanwhile, in the 1 of them sampled: 700 to 700." \
		<<<"$out" || fail "the first side's line"
	grep -qxF -- "- Second ($tmp/after): 0 of 4 runs took more than 4 s from the mass kill to the bomb gone or never ended (0.0–60.2%); median 1.75 s, longest 3 s." \
		<<<"$out" || fail "the second side's line"
	grep -qxF -- "- Against the first: the second side's long runs are not fewer at p < 0.05 (p = 0.21, one-sided Fisher, 2 of 4 against 0 of 4); its times shorter, p = 0.39 (one-sided Mann-Whitney, a run that never ended the longest)." \
		<<<"$out" || fail "the tests against the first side"
	grep -qxF -- "- With 0 of 4, a rate of 52.7% or more would have shown with 95% probability (one-sided)." <<<"$out" ||
		fail "what the second side could have shown"
	grep -qF "| $tmp/before | 2-a-off-lca | 10 s | 10 s | 700 | 2 | 0 |" <<<"$out" ||
		fail "the last mass decision, or the samples after it of more than 50 bomb tasks"
	grep -qF "| $tmp/before | 4-a-off-lca | 10 s | never (persists) |" <<<"$out" || fail "a run that never ended"
	grep -qF "| $tmp/before | 5-a-off-lca | 5 s | 1 s | - | 5 | 0 |" <<<"$out" ||
		fail "memory.oom.group's kill is not a mass kill"
	! grep -qF -e "$tmp/before | 3-a-off-lca " -e "$tmp/before | 6-a-off-lca " -e 9-build <<<"$out" ||
		fail "a decision of 100, a lab-error or a false-positive load is counted"
	out=$("$LAB_ROOT/analysis/herd" --over 10 "$tmp/before") || fail "--over 10 failed"
	grep -qF "1 of 4 runs took more than 10 s" <<<"$out" || fail "--over 10 counts a run of 10 s: $out"
	expect_exit 2 "usage: analysis/herd" "$LAB_ROOT/analysis/herd" --against "$tmp/after"
	expect_exit 2 "--over takes seconds" "$LAB_ROOT/analysis/herd" --over x "$tmp/before"
	expect_exit 2 "--over takes seconds" "$LAB_ROOT/analysis/herd" --over -1 "$tmp/before"
	expect_exit 1 "is not a survival run" "$LAB_ROOT/analysis/herd" "$LAB_ROOT/results/overhead"
	rm -rf "$tmp"
}
