#!/usr/bin/python3
"""Compare two survival runs: analysis/compare.py BASE NEW SEVERITY SEVERE

Called by analysis/compare, which passes analysis/outcome.jq's severity
(the outcome classes on an ordered scale) and the classes that are a
regression whatever the counts (always_regression), both as JSON. Prints a
markdown report and exits 1 when NEW regresses, 0 when it does not.

A NEW regression is any of:
  - a cell whose NEW runs have a class of SEVERE (hung, stalled, panic,
    lab-error) or a kernel splat that its BASE runs did not have;
  - a cell whose conclusive runs got worse on the ordered scale: a
    one-sided exact permutation test of the classes' severities (every
    relabelling of the cell's runs; two classes make it Fisher's exact
    test), Holm-adjusted over the compared cells, at 5%;
  - a shift spread over the cells: the same statistic summed over the
    cells, its null distribution from relabelling the runs within each
    cell (20,000 random relabellings, a fixed seed), at 5%.
A comparison that could not reach 5% even if every NEW run were worse than
every BASE run is said to be undecidable, with the repetitions a side that
would decide it; "No regression." is printed only when none was.
"""
import json
import math
import sys
from collections import defaultdict

from itertools import combinations

import numpy as np
from scipy.stats import permutation_test

LEVEL = 0.05
RESAMPLES = 20000
EXACT = 200000


def read_records(run):
    """The latest record of each cell repetition (a resumed run appends)."""
    latest = {}
    with open(f"{run}/runs.jsonl") as f:
        for line in f:
            r = json.loads(line)
            if r.get("outcome") is not None:
                latest[r["id"]] = r
    return list(latest.values())


def cell_of(r):
    return (r["workload"], r["swap"], r["kernel"], r["defence"], r.get("desktop") or "flat")


def planned_cells(run):
    cells = set()
    with open(f"{run}/plan.jsonl") as f:
        for line in f:
            c = json.loads(line)
            if c.get("type", "survival") == "survival":
                cells.add((c["workload"]["name"], c["swap"], c["kernel"]["column"], c["defence"]["name"],
                           (c.get("desktop") or {}).get("name", "flat")))
    return cells


def cell_name(c):
    workload, swap, kernel, defence, desktop = c
    return (f"{workload} swap={swap} {kernel}" + ("" if defence == "none" else f"+{defence}")
            + ("" if desktop == "flat" else f" @{desktop}"))


def holm(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def sum_statistic(x, y, axis):
    return np.sum(y, axis=axis)


def p_worse(base, new):
    """One-sided p that NEW's severities are larger: the share of the
    relabellings of the cell's runs whose NEW sum is at least the observed
    one, every relabelling up to EXACT of them, else RESAMPLES random ones."""
    pooled, k, observed = base + new, len(new), sum(new)
    if math.comb(len(pooled), k) <= EXACT:
        sums = [sum(pooled[i] for i in idx) for idx in combinations(range(len(pooled)), k)]
        return sum(s >= observed for s in sums) / len(sums)
    res = permutation_test((np.array(base), np.array(new)), sum_statistic, permutation_type="independent",
                           alternative="greater", n_resamples=RESAMPLES, random_state=0)
    return float(res.pvalue)


def smallest_p(nb, nn):
    """The smallest p a cell of nb and nn runs can give: NEW all worse."""
    return 1 / math.comb(nb + nn, nn)


def reps_needed(m):
    """Repetitions a side at which one cell among m can reach LEVEL after Holm."""
    r = 1
    while smallest_p(r, r) > LEVEL / m:
        r += 1
    return r


def pooled_p(cells):
    """Stratified permutation test of the summed NEW severities."""
    rng = np.random.default_rng(0)
    observed, null = 0.0, np.zeros(RESAMPLES)
    for base, new in cells:
        pooled = np.array(base + new, dtype=float)
        observed += sum(new)
        perms = rng.permuted(np.tile(pooled, (RESAMPLES, 1)), axis=1)
        null += perms[:, :len(new)].sum(axis=1)
    return (1 + int(np.sum(null >= observed - 1e-9))) / (RESAMPLES + 1)


def worst(runs, severity):
    runs = [r for r in runs if r["outcome"] != "lab-error"]
    conclusive = [r for r in runs if r["outcome"] != "inconclusive"]
    if not runs:
        return "missing"
    if not conclusive:
        return "inconclusive"
    return max(conclusive, key=lambda r: severity.get(r["outcome"], 99))["outcome"]


def severe_kinds(runs, severe):
    kinds = {r["outcome"] for r in runs if r["outcome"] in severe}
    if any(r.get("kernel_splats") for r in runs):
        kinds.add("kernel splat")
    return kinds


def counts(runs):
    by = defaultdict(int)
    for r in runs:
        by[r["outcome"]] += 1
    return ", ".join(f"{n} {o}" for o, n in sorted(by.items())) or "none"


def main(base_dir, new_dir, severity, severe):
    side = {"base": defaultdict(list), "new": defaultdict(list)}
    for name, run in (("base", base_dir), ("new", new_dir)):
        for r in read_records(run):
            side[name][cell_of(r)].append(r)
    keys = sorted(set(side["base"]) | set(side["new"]) | planned_cells(base_dir) | planned_cells(new_dir))

    def scores(runs):
        return [severity[r["outcome"]] for r in runs if r["outcome"] in severity]

    sc = {c: (scores(side["base"][c]), scores(side["new"][c])) for c in keys}
    tested = [c for c in keys if sc[c][0] and sc[c][1]]
    p = {c: p_worse(*sc[c]) for c in tested}
    p_better = {c: p_worse(sc[c][1], sc[c][0]) for c in tested}
    adjusted = dict(zip(tested, holm([p[c] for c in tested])))
    adjusted_better = dict(zip(tested, holm([p_better[c] for c in tested])))
    m = len(tested)

    rows, worse, undecidable = [], [], []
    for c in keys:
        b, n = side["base"][c], side["new"][c]
        new_severe = severe_kinds(n, severe) - severe_kinds(b, severe)
        if new_severe:
            verdict = f"WORSE: NEW has {', '.join(sorted(new_severe))}, BASE had not"
        elif not b or not n:
            verdict = "missing"
        elif c not in p:
            verdict = "not comparable (no conclusive run on a side)"
        elif adjusted[c] < LEVEL:
            verdict = f"WORSE (p = {p[c]:.3g}, {adjusted[c]:.3g} after Holm)"
        elif adjusted_better[c] < LEVEL:
            verdict = f"better (p = {p_better[c]:.3g}, {adjusted_better[c]:.3g} after Holm)"
        else:
            verdict = (f"no supported difference (p = {p[c]:.3g} worse, {p_better[c]:.3g} better; "
                       f"after Holm {adjusted[c]:.3g}, {adjusted_better[c]:.3g})")
            if smallest_p(len(sc[c][0]), len(sc[c][1])) > LEVEL / m:
                verdict += "; undecidable"
                undecidable.append(c)
        if verdict.startswith("WORSE"):
            worse.append(c)
        cells_b = f"{worst(b, severity)} ({counts(b)})" if b else "missing"
        cells_n = f"{worst(n, severity)} ({counts(n)})" if n else "missing"
        rows.append(f"| {cell_name(c)} | {cells_b} | {cells_n} | {verdict} |")

    print(f"# Compare {base_dir} (BASE) with {new_dir} (NEW)\n")
    print("| cell | BASE | NEW | verdict |\n|---|---|---|---|")
    print("\n".join(rows))
    print()
    missing = [c for c in keys if not side["base"][c] or not side["new"][c]]
    if missing:
        print("Missing: " + "; ".join(
            f"{cell_name(c)} ({', '.join(s.upper() for s in ('base', 'new') if not side[s][c])})"
            for c in missing) + "\n")
    pooled, pooled_decidable = None, False
    if tested:
        pooled = pooled_p([sc[c] for c in tested])
        smallest = math.prod(smallest_p(len(sc[c][0]), len(sc[c][1])) for c in tested)
        pooled_decidable = max(smallest, 1 / (RESAMPLES + 1)) <= LEVEL
        print(f"All {m} compared cells together (a stratified permutation test of the classes' severities, "
              f"{RESAMPLES} relabellings): p = {pooled:.3g} that NEW is worse"
              + ("" if pooled_decidable else "; undecidable at these repetitions") + ".\n")
        if pooled < LEVEL:
            worse.append("pooled")
    if undecidable:
        print(f"Undecidable: {len(undecidable)} of {m} cells could not reach p < {LEVEL} after Holm even if every "
              f"NEW run were worse than every BASE run; {reps_needed(m)} conclusive runs a side would decide "
              f"one cell among {m}.\n")
    if worse:
        print(f"REGRESSION: {len(worse)} worse")
        return 1
    if undecidable or not pooled_decidable or missing:
        print("No regression detected: " + "; ".join(
            s for s in (f"{len(undecidable)} cells undecidable" if undecidable else "",
                        "the pooled test undecidable" if tested and not pooled_decidable else "",
                        "no cell compared" if not tested else "",
                        f"{len(missing)} cells missing" if missing else "") if s))
        return 0
    print(f"Power: every cell and the {m} together could have shown NEW's runs all worse than BASE's at p < {LEVEL}.")
    print("No regression.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: analysis/compare.py BASE NEW SEVERITY SEVERE")
    sys.exit(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), set(json.loads(sys.argv[4]))))
