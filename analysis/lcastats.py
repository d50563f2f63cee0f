"""Statistics shared by the analysis (Debian's numpy and scipy), and the
levels (LEVEL, CONFIDENCE) every test and interval uses.

Fisher's exact tests (the claims) and the Kaplan-Meier estimate (the
events) are scipy's and the product-limit formula. The comparisons' tests
(analysis/compare) are permutation tests of a sum of per-run scores: a
class's severity, or a run's log-rank score (its time to an event,
censored at the run's end). The exact null distribution is every
relabelling of a cell's runs while there are at most EXACT of them, else
RESAMPLES random ones.
"""
import json
import math
import os
from itertools import combinations

import numpy as np

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "levels.json")) as _f:
    _LEVELS = json.load(_f)
LEVEL = _LEVELS["alpha"]
CONFIDENCE = _LEVELS["confidence"]
RESAMPLES = 20000
EXACT = 200000
# sums of log-rank scores are fractions: equal sums differ by rounding only
EPS = 1e-9


def holm(pvalues):
    """Holm's step-down adjustment: the i-th smallest of m p-values times
    m - i, never below the one before it, at most 1."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * len(pvalues), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def fisher(rows):
    """For rows {"base": [bad, good], "new": [bad, good], "family": ...},
    each row with the one-sided Fisher exact p-values that NEW has more bad
    runs than BASE (p_worse) and fewer (p_better), and each adjusted by
    Holm's step-down over the rows of its family (p_worse_holm,
    p_better_holm; rows without one are one family; "tests": the family's
    size), three significant digits: 15 of 15 against 0 of 15 is
    p = 6.45e-09, not 0."""
    from scipy.stats import fisher_exact
    families = {}
    for row in rows:
        families.setdefault(row.get("family"), []).append(row)
    for family in families.values():
        for side, alternative in (("worse", "less"), ("better", "greater")):
            # rows BASE, NEW; columns bad, good: NEW worse is an odds ratio < 1
            p = [fisher_exact([row["base"], row["new"]], alternative=alternative).pvalue for row in family]
            for row, raw, adjusted in zip(family, p, holm(p)):
                row[f"p_{side}"] = float(f"{raw:.3g}")
                row[f"p_{side}_holm"] = float(f"{adjusted:.3g}")
                row["tests"] = len(family)
    return rows


def kaplan_meier(runs):
    """For runs [(t, came), ...] (t: when the event came, or when the run
    ended without it: censored), the product-limit estimate's steps of
    1 - S(t), [t, share of runs with the event by t], and its median, the
    first t at which it reaches one half (None: not reached)."""
    curve, surviving = [], 1.0
    for t in sorted({t for t, came in runs if came}):
        at_risk = sum(1 for u, _ in runs if u >= t)
        events = sum(1 for u, came in runs if came and u == t)
        surviving *= 1 - events / at_risk
        curve.append([t, round(1 - surviving, 4)])
    return curve, next((t for t, share in curve if share >= 0.5), None)


def _sum_of_second(x, y, axis):
    return np.sum(y, axis=axis)


def p_greater(base, new):
    """One-sided p that NEW's scores are larger: the share of relabellings
    of the pooled runs whose NEW sum is at least the observed one."""
    pooled, k, observed = list(base) + list(new), len(new), sum(new)
    if math.comb(len(pooled), k) <= EXACT:
        sums = [sum(pooled[i] for i in idx) for idx in combinations(range(len(pooled)), k)]
        return sum(s >= observed - EPS for s in sums) / len(sums)
    # scipy.stats takes half a second to load: only for the cells that need it
    from scipy.stats import permutation_test
    res = permutation_test((np.array(base), np.array(new)), _sum_of_second,
                           permutation_type="independent", alternative="greater",
                           n_resamples=RESAMPLES, random_state=0)
    return float(res.pvalue)


def smallest_p(nb, nn):
    """The smallest p a cell of nb and nn runs can give: NEW all worse."""
    return 1 / math.comb(nb + nn, nn)


def reps_needed(m):
    """Runs a side at which one test among m can get below LEVEL after Holm."""
    r = 1
    while smallest_p(r, r) >= LEVEL / m:
        r += 1
    return r


def pooled_p_greater(cells):
    """Stratified permutation test over cells [(base, new), ...]: the NEW
    scores summed over every cell, relabelled within each cell."""
    rng = np.random.default_rng(0)
    observed, null = 0.0, np.zeros(RESAMPLES)
    for base, new in cells:
        pooled = np.array(list(base) + list(new), dtype=float)
        observed += sum(new)
        perms = rng.permuted(np.tile(pooled, (RESAMPLES, 1)), axis=1)
        null += perms[:, :len(new)].sum(axis=1)
    return (1 + int(np.sum(null >= observed - EPS))) / (RESAMPLES + 1)


def pooled_smallest_p(sizes):
    """The smallest p pooled_p_greater can give for cells of (nb, nn) runs."""
    return max(math.prod(smallest_p(nb, nn) for nb, nn in sizes), 1 / (RESAMPLES + 1))


def logrank_scores(runs):
    """Each run's log-rank score in the pooled sample [(t, came), ...]: the
    Nelson-Aalen hazard accumulated up to its time, less 1 if the event
    came. Summed over one group it is that group's expected less observed
    events, the log-rank statistic: large when the group's events come late
    or not at all."""
    hazard, at_risk, cumulative = {}, len(runs), 0.0
    for t in sorted({t for t, _ in runs}):
        came = sum(1 for u, c in runs if u == t and c)
        cumulative += came / at_risk
        hazard[t] = cumulative
        at_risk -= sum(1 for u, _ in runs if u == t)
    return [hazard[t] - (1 if came else 0) for t, came in runs]
