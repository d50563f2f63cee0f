#!/usr/bin/python3
"""Compare two runs: analysis/compare.py BASE NEW SEVERITY SEVERE [--tolerance T]

Called by analysis/compare, which checks both run directories and passes
analysis/outcome.jq's severity (the outcome classes on an ordered scale)
and the classes that are a regression whatever the counts
(always_regression), both as JSON. Prints a markdown report and exits 1
when NEW regresses, 0 when it does not, 2 on bad input.

Survival runs. A NEW regression is any of:
  - a cell whose NEW runs have a class of SEVERE (hung, stalled, panic,
    lab-error) or a kind of kernel splat that its BASE runs did not have;
  - a cell whose runs print stall warnings (STALL_WARNINGS) more often:
    the runs with one against those without, the test below;
  - a cell whose conclusive runs got worse on the ordered scale: a
    one-sided exact permutation test of the classes' severities (every
    relabelling of the cell's runs; two classes make it Fisher's exact
    test), Holm-adjusted over the compared cells, at 5%;
  - a cell whose bomb went later, or whose first OOM kill came later: the
    same test of the runs' log-rank scores (an exact log-rank test; a run
    without the event is censored at its end), Holm-adjusted per time;
  - a shift spread over the cells: each statistic summed over the cells,
    its null distribution from relabelling the runs within each cell
    (20,000 random relabellings, a fixed seed), at 5%.
Runs whose records name different accelerators or clocks are refused: their
times are not on one scale. A side may be several run directories joined
by "+" (a run and its confirmation, lab/confirm): their records together.

Overhead runs. Each ratio (analysis/overhead) in both runs is worse when
NEW's exceeds BASE's by more than the tolerance (relative, default 2%) and
the 95% interval of the log of their quotient (from the two bootstrap
intervals) excludes 0.

A comparison that could not have shown the stated difference (NEW's runs
all worse than BASE's; a ratio grown by the tolerance) is undecidable, with
the repetitions that would decide it; "No regression." is printed only
when none was. With --undecided, no report: one JSON line per undecidable
cell instead, {need, base: {runs, cell}, new: {runs, cell}} (need: the
conclusive runs a side that would decide it; cell: a record's plan cell),
which lab/confirm reruns.
"""
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

from lcastats import (LEVEL, RESAMPLES, holm, logrank_scores, p_greater, pooled_p_greater,
                      pooled_smallest_p, reps_needed, smallest_p)
from runs import read_records

TOLERANCE = 0.02
# The kinds of splat (workloads/splats.tab) the kernel prints when a task
# or a CPU went without running for a while. A fork bomb on one vCPU makes
# them on stock too (an RCU stall in quick-icount-a, stock, folkert), so
# one is not a defect: they are counted and tested. Every other kind is a
# regression in one run.
STALL_WARNINGS = ("rcu-stall", "soft-lockup", "hung-task")
# the times compared, and the record field that holds each (null: never came)
TIMES = (("bomb gone", "t_gone_s"), ("first OOM kill", "t_first_oom_s"))


def fail(message):
    sys.stderr.write(f"analysis/compare: {message}\n")
    sys.exit(2)


def line_of(version):
    """The kernel line of a version: 6.12 of 6.12.118."""
    return ".".join(version.split(".")[:2])


def column_on(column, line):
    """The column without its @LINE suffix when it names LINE."""
    return column[:-len(line) - 1] if column.endswith("@" + line) else column


def cell_of(c, line=None):
    """A cell's identity (a plan line, a record's cell); on another kernel
    LINE its column without @LINE."""
    column = c["kernel"]["column"]
    return (c["workload"]["name"], c["swap"], column_on(column, line) if line else column,
            c["defence"]["name"], c["desktop"]["name"])


def planned_cells(side, line=None):
    cells = set()
    for run in side.split("+"):
        with open(f"{run}/plan.jsonl") as f:
            for text in f:
                c = json.loads(text)
                if c["type"] == "survival":
                    cells.add(cell_of(c, line))
    return cells


def single_lines(base, new):
    """When each run is on one kernel line and the lines differ, the two
    lines: cells are then matched by their columns with @LINE dropped."""
    lines = [{line_of(r["kernel_version"]) for r in records} for records in (base, new)]
    if all(len(ls) == 1 for ls in lines) and lines[0] != lines[1]:
        return lines[0].pop(), lines[1].pop()
    return None, None


def cell_name(c):
    workload, swap, kernel, defence, desktop = c
    return (f"{workload} swap={swap} {kernel}" + ("" if defence == "none" else f"+{defence}")
            + ("" if desktop == "flat" else f" @{desktop}"))


def clocks(records):
    return sorted({f"{r['accel']}/{r['clock']}" for r in records})


def worst(runs, severity):
    runs = [r for r in runs if r["outcome"] != "lab-error"]
    conclusive = [r for r in runs if r["outcome"] != "inconclusive"]
    if not runs:
        return "missing"
    if not conclusive:
        return "inconclusive"
    return max(conclusive, key=lambda r: severity.get(r["outcome"], 99))["outcome"]


def severe_kinds(runs, severe):
    return {r["outcome"] for r in runs if r["outcome"] in severe} | {
        f"kernel splat {s['kind']}" for r in runs for s in r["kernel_splats"]
        if s["kind"] not in STALL_WARNINGS}


def stall_warned(r):
    return int(any(s["kind"] in STALL_WARNINGS for s in r["kernel_splats"]))


def counts(runs):
    by = defaultdict(int)
    for r in runs:
        by[r["outcome"]] += 1
    return ", ".join(f"{n} {o}" for o, n in sorted(by.items())) or "none"


class Tests:
    """One family of one-sided tests, a (base, new) pair of score lists per
    cell: Holm-adjusted both ways, and what the sizes could not decide."""

    def __init__(self, pairs):
        self.pairs = pairs
        cells = list(pairs)
        self.m = len(cells)
        worse = [p_greater(*pairs[c]) for c in cells]
        better = [p_greater(pairs[c][1], pairs[c][0]) for c in cells]
        self.p = dict(zip(cells, zip(worse, holm(worse), better, holm(better))))
        self.pooled = pooled_p_greater(list(pairs.values())) if pairs else None
        self.pooled_decidable = bool(pairs) and pooled_smallest_p(
            [(len(b), len(n)) for b, n in pairs.values()]) < LEVEL

    def undecidable(self, c):
        b, n = self.pairs[c]
        return smallest_p(len(b), len(n)) >= LEVEL / self.m

    def verdict(self, c, what="worse"):
        pw, hw, pb, hb = self.p[c]
        if hw < LEVEL:
            return f"WORSE (p = {pw:.3g}, {hw:.3g} after Holm)"
        if hb < LEVEL:
            return f"better (p = {pb:.3g}, {hb:.3g} after Holm)"
        text = f"no supported difference (p = {pw:.3g} {what}, {pb:.3g} better; after Holm {hw:.3g}, {hb:.3g})"
        return text + ("; undecidable" if self.undecidable(c) else "")


def severity_tests(side, keys, severity):
    def scores(runs):
        return [severity[r["outcome"]] for r in runs if r["outcome"] in severity]
    pairs = {c: (scores(side["base"][c]), scores(side["new"][c])) for c in keys}
    return Tests({c: v for c, v in pairs.items() if v[0] and v[1]})


def conclusive(runs):
    return [r for r in runs if r["outcome"] not in ("lab-error", "inconclusive") and r.get("t_end_s") is not None]


def time_of(r, field):
    """(t, came): when the event came, else the run's end (censored)."""
    return (r[field], True) if r.get(field) is not None else (r["t_end_s"], False)


def time_tests(side, keys, field):
    """Log-rank scores per cell with an event on either side."""
    pairs = {}
    for c in keys:
        b = [time_of(r, field) for r in conclusive(side["base"][c])]
        n = [time_of(r, field) for r in conclusive(side["new"][c])]
        if b and n and any(came for _, came in b + n):
            scores = logrank_scores(b + n)
            pairs[c] = (scores[:len(b)], scores[len(b):])
    return Tests(pairs)


def times_text(runs, field):
    came = sorted(r[field] for r in conclusive(runs) if r.get(field) is not None)
    shown = ", ".join(f"{t:g}" for t in came[:6]) + (", ..." if len(came) > 6 else "")
    return f"{len(came)}/{len(conclusive(runs))}" + (f" ({shown} s)" if came else "")


def print_undecided(side, sev, cells):
    """One JSON line per undecidable cell, for lab/confirm."""
    for c in cells:
        print(json.dumps({"need": reps_needed(sev.m), **{
            name: {"runs": len(sev.pairs[c][i]), "cell": side[name][c][0]["cell"]}
            for i, name in enumerate(("base", "new"))}}))
    return 0


def survival(base_dir, new_dir, severity, severe, undecided_only=False):
    records = {"base": read_records(base_dir), "new": read_records(new_dir)}
    lines = dict(zip(("base", "new"), single_lines(records["base"], records["new"])))
    side = {"base": defaultdict(list), "new": defaultdict(list)}
    for name in side:
        for r in records[name]:
            side[name][cell_of(r["cell"], lines[name])].append(r)
    on = {name: clocks(records[name]) for name in side}
    if on["base"] != on["new"]:
        fail(f"BASE ran on {', '.join(on['base'])} and NEW on {', '.join(on['new'])}: "
             "their times are not on one scale; compare runs on one clock")
    keys = sorted(set(side["base"]) | set(side["new"]) | planned_cells(base_dir, lines["base"])
                  | planned_cells(new_dir, lines["new"]))
    sev = severity_tests(side, keys, severity)

    rows, worse, undecidable, incomparable = [], [], [], []
    for c in keys:
        b, n = side["base"][c], side["new"][c]
        new_severe = severe_kinds(n, severe) - severe_kinds(b, severe)
        if new_severe:
            verdict = f"WORSE: NEW has {', '.join(sorted(new_severe))}, BASE had not"
        elif not b or not n:
            verdict = "missing"
        elif c not in sev.p:
            verdict = "not comparable (no conclusive run on a side)"
            incomparable.append(c)
        else:
            verdict = sev.verdict(c)
            if verdict.endswith("undecidable"):
                undecidable.append(c)
        if verdict.startswith("WORSE"):
            worse.append(cell_name(c))
        cells_b = f"{worst(b, severity)} ({counts(b)})" if b else "missing"
        cells_n = f"{worst(n, severity)} ({counts(n)})" if n else "missing"
        rows.append(f"| {cell_name(c)} | {cells_b} | {cells_n} | {verdict} |")
    if undecided_only:
        return print_undecided(side, sev, undecidable)

    print(f"# Compare {base_dir} (BASE) with {new_dir} (NEW)\n")
    if lines["base"]:
        print(f"BASE ran kernel line {lines['base']}, NEW {lines['new']}: each cell is matched by its column "
              "without the @LINE suffix (lca@6.12 is lca).\n")
    print("| cell | BASE | NEW | verdict |\n|---|---|---|---|")
    print("\n".join(rows))
    print()
    missing = [c for c in keys if not side["base"][c] or not side["new"][c]]
    if missing:
        print("Missing: " + "; ".join(
            f"{cell_name(c)} ({', '.join(s.upper() for s in ('base', 'new') if not side[s][c])})"
            for c in missing) + "\n")
    if sev.pairs:
        print(f"All {sev.m} compared cells together (a stratified permutation test of the classes' severities, "
              f"{RESAMPLES} relabellings): p = {sev.pooled:.3g} that NEW is worse"
              + ("" if sev.pooled_decidable else "; undecidable at these repetitions") + ".\n")
        if sev.pooled < LEVEL and sev.m > 1:
            worse.append("the classes of all cells together")
    if undecidable:
        print(f"Undecidable: {len(undecidable)} of {sev.m} cells could not reach p < {LEVEL} after Holm even if "
              f"every NEW run were worse than every BASE run; {reps_needed(sev.m)} conclusive runs a side "
              f"would decide one cell among {sev.m}.\n")
    gaps = ([f"{len(undecidable)} cells undecidable"] if undecidable else []) \
        + (["the pooled test undecidable"] if sev.pairs and not sev.pooled_decidable else []) \
        + (["no cell compared"] if not sev.pairs else []) \
        + ([f"{len(incomparable)} cells not comparable"] if incomparable else []) \
        + ([f"{len(missing)} cells missing"] if missing else [])
    gaps += compare_stall_warnings(side, keys, worse)
    for label, field in TIMES:
        gaps += compare_times(side, keys, label, field, worse)
    return verdict_line(worse, gaps, "every cell, each time and the cells together could have shown NEW's "
                        f"runs all worse than BASE's at p < {LEVEL}")


def compare_times(side, keys, label, field, worse):
    """The log-rank table of one time; returns what it could not decide."""
    t = time_tests(side, keys, field)
    if not t.pairs:
        print(f"{label[0].upper()}{label[1:]}: no cell had one on either side.\n")
        return []
    print(f"## Time to {label} (an exact log-rank test: NEW later is worse)\n")
    return report_tests(t, label, ("later", "is later"), "a stratified log-rank permutation test", worse,
                        lambda runs: times_text(runs, field), side)


def compare_stall_warnings(side, keys, worse):
    """The runs with a stall warning, per cell with one on either side."""
    def flags(runs):
        return [stall_warned(r) for r in runs if r["outcome"] != "lab-error"]

    def warned(runs):
        f = flags(runs)
        return f"{sum(f)}/{len(f)}"

    pairs = {c: (flags(side["base"][c]), flags(side["new"][c])) for c in keys}
    t = Tests({c: (b, n) for c, (b, n) in pairs.items() if b and n and any(b + n)})
    if not t.pairs:
        print(f"Stall warnings ({', '.join(STALL_WARNINGS)}): none on either side.\n")
        return []
    print(f"## Stall warnings ({', '.join(STALL_WARNINGS)}): the runs with one "
          "(an exact test: NEW more often is worse)\n")
    return report_tests(t, "stall warnings", ("more often", "came more often"), "a stratified permutation test",
                        worse, warned, side)


def report_tests(t, label, worse_as, pooled_test, worse, text_of, side):
    """A table of one family of tests, one cell a row, and the cells
    together; WORSE_AS says what worse is, for a cell and for the pooled
    sentence. Returns what it could not decide."""
    what, what_pooled = worse_as
    print("| cell | BASE | NEW | verdict |\n|---|---|---|---|")
    undecidable = []
    for c in t.pairs:
        verdict = t.verdict(c, what)
        if verdict.startswith("WORSE"):
            worse.append(f"{label}: {cell_name(c)}")
        if verdict.endswith("undecidable"):
            undecidable.append(c)
        print(f"| {cell_name(c)} | {text_of(side['base'][c])} | {text_of(side['new'][c])} | {verdict} |")
    print(f"\nAll {t.m} cells together ({pooled_test}): p = {t.pooled:.3g} that NEW's {label} "
          f"{what_pooled}" + ("" if t.pooled_decidable else "; undecidable at these repetitions") + ".\n")
    if t.pooled < LEVEL and t.m > 1:
        worse.append(f"{label}: all cells together")
    gaps = [f"{label}: {len(undecidable)} cells undecidable"] if undecidable else []
    if not t.pooled_decidable:
        gaps.append(f"{label}: the pooled test undecidable")
    return gaps


def verdict_line(worse, gaps, power):
    if worse:
        print(f"REGRESSION: {len(worse)} worse: " + "; ".join(worse))
        return 1
    if gaps:
        print("No regression detected: " + "; ".join(gaps))
        return 0
    print(f"Power: {power}.")
    print("No regression.")
    return 0


def overhead_ratios(run):
    out = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "overhead"), run],
                         check=True, capture_output=True, text=True).stdout
    return [r for r in map(json.loads, out.splitlines()) if r["type"] == "ratio"]


def column_line(column):
    """The kernel line a column names (lca@6.12: 6.12), "" for the default."""
    head, _, line = column.rpartition("@")
    return line if head and line.replace(".", "").isdigit() else ""


def by_figure(ratios, line):
    """Ratios by figure; on LINE (a run of one other line), named without
    its columns' @LINE, as the other run's are."""
    return {r["figure"].replace(f"@{line}", "") if line else r["figure"]: r for r in ratios}


def log_half_width(r):
    """Half the width of a ratio's 95% interval on the log scale."""
    if r["ci_low"] is None or r["ci_low"] <= 0:
        return math.inf
    return (math.log(r["ci_high"]) - math.log(r["ci_low"])) / 2


def judge_ratio(b, n, tolerance):
    """NEW's ratio n against BASE's b: WORSE when it grew by more than the
    relative tolerance and the 95% interval of the growth (log scale, the
    two intervals' half-widths in quadrature) excludes 0; undecidable when
    that interval is wider than the tolerance."""
    growth, limit = math.log(n["ratio"] / b["ratio"]), math.log1p(tolerance)
    half = math.hypot(log_half_width(b), log_half_width(n))
    if growth > limit and growth - half > 0:
        return "WORSE"
    if half >= limit:
        return "undecidable: the intervals are wider than the tolerance"
    if -growth > limit and growth + half < 0:
        return "better"
    return "ok"


def overhead(base_dir, new_dir, tolerance):
    base, new = overhead_ratios(base_dir), overhead_ratios(new_dir)
    lines = [{column_line(c) for r in side for c in (r["variant"], r["base"])} for side in (base, new)]
    print(f"# Compare {base_dir} (BASE) with {new_dir} (NEW)\n")
    if all(len(ls) == 1 for ls in lines) and lines[0] != lines[1]:
        line_b, line_n = lines[0].pop(), lines[1].pop()
        named = [f"kernel line {ln}" if ln else "the default kernel line" for ln in (line_b, line_n)]
        print(f"BASE ran {named[0]}, NEW {named[1]}: each ratio is matched by its columns without the "
              "@LINE suffix (lca@6.12 is lca).\n")
        base, new = by_figure(base, line_b), by_figure(new, line_n)
    else:
        base, new = by_figure(base, ""), by_figure(new, "")
    figures = sorted(set(base) & set(new))
    if not figures:
        print("No overhead ratio is in both runs.\n")
        return verdict_line([], ["no ratio compared"], "")
    print(f"| overhead ratio | BASE (95% CI) | NEW (95% CI) | NEW/BASE | verdict (tolerance {tolerance:g}) |")
    print("|---|---|---|---|---|")
    worse, undecidable = [], []
    for f in figures:
        verdict = judge_ratio(base[f], new[f], tolerance)
        if verdict == "WORSE":
            worse.append(f)
        elif verdict.startswith("undecidable"):
            undecidable.append(f)
        print(f"| {f} | {interval(base[f])} | {interval(new[f])} | "
              f"{new[f]['ratio'] / base[f]['ratio']:.4g} | {verdict} |")
    print()
    gaps = [f"{len(undecidable)} of {len(figures)} ratios undecidable"] if undecidable else []
    return verdict_line(worse, gaps, f"every ratio's interval was narrower than the tolerance ({tolerance:g})")


def interval(r):
    if r["ci_low"] is None:
        return f"{r['ratio']:g} (no interval: {r['n']} boots)"
    return f"{r['ratio']:g} ({r['ci_low']:g}-{r['ci_high']:g})"


def run_type(side):
    types = set()
    for run in side.split("+"):
        with open(f"{run}/meta.json") as f:
            types.add(json.load(f)["matrix"]["type"])
    if len(types) > 1:
        fail(f"{side} joins survival and overhead runs")
    return types.pop()


def main(argv):
    args, tolerance = argv[1:], TOLERANCE
    undecided_only = "--undecided" in args
    if undecided_only:
        args.remove("--undecided")
    if len(args) == 6 and args[4] == "--tolerance":
        try:
            tolerance = float(args[5])
        except ValueError:
            fail(f"--tolerance {args[5]}: not a number")
        if not 0 < tolerance < 1:
            fail(f"--tolerance {args[5]}: give a relative growth between 0 and 1, e.g. 0.02")
        args = args[:4]
    if len(args) != 4:
        fail("usage: analysis/compare.py BASE NEW SEVERITY SEVERE [--tolerance T]")
    base_dir, new_dir = args[0], args[1]
    base_type, new_type = run_type(base_dir), run_type(new_dir)
    if base_type != new_type:
        fail(f"{base_dir} is a {base_type} run, {new_dir} a {new_type} run: nothing to compare")
    if base_type == "overhead":
        if undecided_only:
            fail("--undecided: an overhead ratio is decided by more repetitions of its boots "
                 "(OOMCOST_SHAPES NxR, OVERHEAD_ROUNDS), not by rerunning cells")
        return overhead(base_dir, new_dir, tolerance)
    return survival(base_dir, new_dir, json.loads(args[2]), set(json.loads(args[3])), undecided_only)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
