#!/usr/bin/python3
"""The article's claims, checked against a run's records: analysis/claims.py RUNDIR

Prints one JSON object for the paper: "table", the verdict of each claim
for the stock kernel (claim 1) and each policy column on each desktop of
the run, then each claim's evidence; "rules", the claims and their rules
as a numbered list; "min_runs".

Each claim is {claim, source, rule, verdict, evidence}: verdict is
reproduced, not reproduced, partly, not shown, not measured or
inconclusive; rule says how, in words, from the thresholds below. A
verdict rests on the conclusive runs only, but for the swap claim, which
is about the desktop while swap fills (a run in which nothing acted is its
evidence); the evidence counts the others and gives each proportion its
exact 95% interval. The claims that compare rest on one-sided Fisher
exact tests, each claim's testable rows one family (Holm).
"""
import json
import sys

import checkrun
import tables
from lcastats import LEVEL, fisher
from tables import coords, jq_key, jnum, median, ms_to_s, seconds, share_of, text

# The thresholds, once. A verdict needs MIN_RUNS runs (a side, where a
# claim compares): below that an exact one-sided test cannot reach the
# level (3 + 3 runs: p = 0.05 at best) and "every run" is two or three.
# CLAIM4_STALL_S: the swap claim's own "5~6 minutes", at its lower end.
MIN_RUNS = 4
CLAIM4_STALL_S = 300

# The sources, exactly: the patch's notes on LKML and the LWN article.
NOTES = ('Coywolf Qi Hunt, "[patch] oom lca -- fork bombing killer v2.2", linux-kernel, 3 May 2005'
         " (patch notes)")
LWN = 'LWN, "Defending against fork bombs", corbet, 3 May 2005'
HARM = ("persists", "collateral", "hung", "stalled", "panic")


class Records(list):
    """The latest records of one desktop, and the classes that say nothing."""

    def __init__(self, records, silent):
        super().__init__(records)
        self.silent = silent

    def runs(self, w, s, k, conclusive=False):
        """The runs of a cell: its conclusive ones, or all but lab errors."""
        return [r for r in self if coords(r["cell"])[:3] == (w, s, k)
                and (r["outcome"] not in self.silent if conclusive else r["outcome"] != "lab-error")]


def tally(runs):
    return ", ".join(f"{k} {o}" for o, k in tables.counted(r["outcome"] for r in runs))


def cells_text(rs, w, k, swaps):
    return "; ".join(f"swap {text(s)}: {tally(rs.runs(w, s, k)) or 'no runs'}" for s in swaps)


def share(runs, test):
    """"k/n (lo–hi%)": how many of the runs pass the test, with its interval."""
    return share_of(sum(1 for r in runs if test(r)), len(runs)) if runs else "no run"


def verdict(runs, yes, no):
    if len(runs) < MIN_RUNS:
        return "not shown"
    return "reproduced" if yes else "not reproduced" if no else "partly"


def all_are(runs, classes):
    return bool(runs) and all(r["outcome"] in classes for r in runs)


def kills_per_run(runs):
    return ", ".join(jnum(r.get("oom_kills") or 0) for r in runs) or "–"


# The comparisons' counts ({base, new}: [bad, good] each): testable with
# MIN_RUNS runs a side, measured with one.
def compared(counts):
    base, new = sum(counts["base"]), sum(counts["new"])
    if not (base > 0 and new > 0):
        return "not measured"
    return None if base >= MIN_RUNS and new >= MIN_RUNS else "not shown"


def fp_bad(r):
    return r["outcome"] in ("killed", "collateral")


def fp_runs(rs):
    return [r for r in rs if r["cell"]["workload"]["kind"] == "false-positive" and r["outcome"] not in rs.silent]


def fp_counts(rs, lca):
    """The false-positive runs that went wrong (the root killed or a probe
    lost) and the others: stock as BASE, the policy column as NEW."""
    def side(k):
        runs = [r for r in fp_runs(rs) if r["cell"]["kernel"]["column"] == k]
        bad = sum(1 for r in runs if fp_bad(r))
        return [bad, len(runs) - bad]
    return {"base": side("stock"), "new": side(lca)}


def swap_window(rs, lca):
    """The window both swap settings observed: the shorter deadline (None
    when neither has runs)."""
    ends = [min(r["cell"]["workload"]["deadline_s"] for r in runs)
            for runs in (rs.runs("folkert", "off", lca), rs.runs("folkert", "on", lca)) if runs]
    return min(ends, default=None)


def gone_within(r, w):
    return r.get("gone") is True and jq_key(r.get("t_gone_s")) <= jq_key(w)


def swap_counts(rs, lca):
    """The swap claim's runs in which the bomb was not gone / gone within
    the window: without swap as BASE, with swap as NEW."""
    w = swap_window(rs, lca)

    def side(s):
        gone = sum(1 for r in rs.runs("folkert", s, lca) if gone_within(r, w))
        return [len(rs.runs("folkert", s, lca)) - gone, gone]
    return {"base": side("off"), "new": side("on")}


def stall_ms(r):
    """A run's longest probe heartbeat gap; a hung run has no probes'
    report, and its desktop was frozen at least until the host's deadline."""
    gap = r.get("max_probe_gap_ms")
    if tables.truthy(gap):
        return gap
    return r["cell"]["workload"]["deadline_s"] * 1000 if r["outcome"] == "hung" else None


def gaps(runs):
    return [g for g in map(stall_ms, runs) if g is not None]


def p_text(test):
    """A one-sided test's p: "p = 0.0124 (Holm over the claim's 2 tests; 0.0062 alone)"."""
    if test is None:
        return f"no test (fewer than {MIN_RUNS} runs a side)"
    if test["tests"] == 1:
        return f"p = {jnum(test['p_worse'])} (the claim's one test)"
    return f"p = {jnum(test['p_worse_holm'])} (Holm over the claim's {test['tests']} tests; {jnum(test['p_worse'])} alone)"


def claim_stock(rs, swaps, tests, lca):
    c = [r for s in swaps for r in rs.runs("a", s, "stock", conclusive=True)]
    return {"runs": len(c), "claim": "The stock OOM killer cannot handle a.sh.", "source": NOTES,
            "rule": f"a.sh on stock, the swap settings together, {MIN_RUNS} conclusive runs or more; reproduced when"
            " every one ended persists, collateral, hung, stalled or panic, not reproduced when every one was clean,"
            " partly otherwise",
            "verdict": verdict(c, all_are(c, HARM), all_are(c, ("clean",))),
            "evidence": f"stock, a: {cells_text(rs, 'a', 'stock', swaps)}; persists, collateral, hung, stalled or panic"
            f" in {share(c, lambda r: r['outcome'] in HARM)} of the conclusive runs; OOM kills per run: {kills_per_run(c)}"}


def claim_clean(rs, swaps, tests, lca):
    c = [r for s in swaps for w in ("a", "b") for r in rs.runs(w, s, lca, conclusive=True)]
    lost = ", ".join(f"{p} {k}x" for p, k in tables.counted(p for r in c for p in r["probes_lost"])) or "none"
    return {"runs": len(c), "claim": "The LCA killer stops a.sh and b.sh without ill effects.",
            "source": f'{NOTES} ("my desktop survived perfectly"); {LWN} ("without any ill effects beyond a temporary'
            ' slowdown")',
            "rule": f"a.sh and b.sh and the swap settings together, {MIN_RUNS} conclusive runs or more; reproduced"
            " when every one was clean, not reproduced when none was, partly otherwise",
            "verdict": verdict(c, all_are(c, ("clean",)), all(r["outcome"] != "clean" for r in c)),
            "evidence": f"{lca}, a: {cells_text(rs, 'a', lca, swaps)}; {lca}, b: {cells_text(rs, 'b', lca, swaps)};"
            f" clean in {share(c, lambda r: r['outcome'] == 'clean')} of the conclusive runs; OOM kills per run:"
            f" {kills_per_run(c)}; desktop probes lost: {lost}"}


def claim_collateral(rs, swaps, tests, lca):
    c = [r for s in swaps for r in rs.runs("folkert", s, lca, conclusive=True)]

    def gone(r):
        return r.get("gone") is True

    def gone_with_loss(r):
        return gone(r) and len(r["probes_lost"]) > 0
    return {"runs": len(c), "claim": "The LCA killer stops folkert, with collateral damage.",
            "source": f'{NOTES} ("a lot of innocent processes got killed, but the system still survived"); {LWN}'
            ' ("with some collateral damage")',
            "rule": f"folkert, the swap settings together, {MIN_RUNS} conclusive runs or more; reproduced when in every"
            " one the bomb went and a probe was lost, not reproduced when the bomb went in none, partly otherwise (it"
            " went, in some runs without collateral)",
            "verdict": verdict(c, all(map(gone_with_loss, c)), not any(map(gone, c))),
            "evidence": f"{lca}, folkert: {cells_text(rs, 'folkert', lca, swaps)}; bomb gone in {share(c, gone)} of the"
            f" conclusive runs, with a probe lost in {share(c, gone_with_loss)}"}


def claim_swap(rs, swaps, tests, lca):
    on, off, w = rs.runs("folkert", "on", lca), rs.runs("folkert", "off", lca), swap_window(rs, lca)
    stall = median(gaps(on))
    said = compared(swap_counts(rs, lca))
    if said is None:
        later = tests["swap"]["p_worse_holm"] < LEVEL
        minutes = stall is not None and stall >= CLAIM4_STALL_S * 1000
        said = "reproduced" if later and minutes else "partly" if later or minutes else "not reproduced"
    deadlines = sorted({r["cell"]["workload"]["deadline_s"] for r in on})
    return {"runs": len(on) + len(off),
            "claim": "With swap, folkert is worse: the desktop was unusable for 5-6 minutes.",
            "source": f'{NOTES} only ("unusable for 5~6 minutes until all 256M swap got used up")',
            "rule": f"folkert, every run but lab errors (one in which nothing acted while swap filled is evidence),"
            f" {MIN_RUNS} a side; reproduced when with swap the bomb was gone within the shorter deadline less often"
            f" (one-sided Fisher exact test, Holm-adjusted over the claim's tests, p < {jnum(LEVEL)}) and the median"
            f" run's longest probe heartbeat gap (a hung run's: its deadline) was {CLAIM4_STALL_S} s or more, partly"
            " when one of the two holds, not reproduced when neither does",
            "verdict": said,
            "evidence": f"{lca}, folkert, every run but lab errors: bomb gone within {seconds(w)} (the shorter deadline)"
            f" in {share(on, lambda r: gone_within(r, w))} with swap, {share(off, lambda r: gone_within(r, w))}"
            f" without; one-sided Fisher exact test that swap is worse: {p_text(tests.get('swap'))}; with swap the"
            f" median run's longest probe heartbeat gap {seconds(ms_to_s(stall))} (longest"
            f" {seconds(ms_to_s(max(gaps(on), default=None)))}), without"
            f" {seconds(ms_to_s(max(gaps(off), default=None)))} at most; gone at all with swap in"
            f" {share(on, lambda r: r.get('gone') is True)} (deadline"
            f" {', '.join(map(jnum, deadlines)) + ' s' if deadlines else '–'})"}


def claim_false_positive(rs, swaps, tests, lca):
    fp = fp_runs(rs)
    st = [r for r in fp if r["cell"]["kernel"]["column"] == "stock"]
    lc = [r for r in fp if r["cell"]["kernel"]["column"] == lca]
    said = compared(fp_counts(rs, lca))
    if said is None:
        said = "reproduced" if tests["fp"]["p_worse_holm"] < LEVEL else "not shown"
    left_out = sum(1 for r in rs if r["cell"]["workload"]["kind"] == "false-positive"
                   and r["outcome"] == "inconclusive" and r["cell"]["kernel"]["column"] in ("stock", lca))
    return {"runs": len(st) + len(lc),
            "claim": "Killing a whole tree is the wrong answer to memory pressure that is not a fork bomb.",
            "source": "the lab's own question: no 2005 message makes it; the one review, Andrew Morton's of the first"
            " posting (linux-kernel, 30 March 2005), objected to the exit path's cost, and LWN's one reservation is"
            " the overhead",
            "rule": f"the false-positive workloads and swap settings together, conclusive runs, {MIN_RUNS} a side;"
            " reproduced when more runs went wrong (the root killed or a probe lost) on the column than on stock"
            f" (one-sided Fisher exact test, Holm-adjusted over the claim's tests, p < {jnum(LEVEL)}), not shown"
            " otherwise",
            "verdict": said,
            "evidence": f"false-positive runs with the root killed or a probe lost: {lca} {share(lc, fp_bad)}, stock"
            f" {share(st, fp_bad)}; one-sided Fisher exact test that {lca} does worse: {p_text(tests.get('fp'))}"
            f" (conclusive runs; {left_out} inconclusive left out); tasks killed by LCA decisions:"
            f" {jnum(sum(r['lca_killed'] for r in lc))}"}


CLAIMS = (claim_stock, claim_clean, claim_collateral, claim_swap, claim_false_positive)


def claims(rs, swaps, tests, lca):
    """Every claim for the policy column LCA (the first is the stock
    kernel's); tests: the exact tests {fp, swap} of this column and
    desktop, None where untested. A claim none of whose runs was conclusive
    has no verdict."""
    out = []
    for claim in CLAIMS:
        c = claim(rs, swaps, tests, lca)
        if c.pop("runs") == 0:
            c["verdict"] = "inconclusive"
        out.append(c)
    return out


def policy_columns(plan):
    """The plan's columns that run an LCA rule: every column not of the
    stock build and not switched off (vm.oom_kill_lca=0); ["lca"] when none."""
    cols = sorted({c["kernel"]["column"] for c in plan if c["kernel"]["build"] != "stock"
                   and "vm.oom_kill_lca=0" not in c["kernel"]["sysctls"]})
    return cols or ["lca"]


def verdicts(records, meta, plan, silent):
    """Each claim's row for each desktop and column: the stock kernel's
    claim 1, then each policy column's other claims."""
    columns, swaps = policy_columns(plan), meta["matrix"]["swap"]
    on = {d: Records([r for r in records if r["cell"]["desktop"]["name"] == d], silent)
          for d in meta["matrix"]["desktops"]}
    rows = [dict(counts(rs, c), key=f"{kind} {c} {d}", family=kind)
            for d, rs in on.items() for c in columns for kind, counts in (("fp", fp_counts), ("swap", swap_counts))]
    tests = {row["key"]: row for row in fisher([r for r in rows if compared(r) is None])}
    out = []
    for d, rs in on.items():
        for i, c in enumerate(columns):
            found = claims(rs, swaps, {k: tests.get(f"{k} {c} {d}") for k in ("fp", "swap")}, c)
            out += [dict(claim, n=n + 1, column="stock" if n == 0 else c, desktop=d)
                    for n, claim in enumerate(found) if i == 0 or n > 0]
    return out


def table(rows):
    """The verdicts at a glance, then each claim's evidence."""
    by_claim = [[r for r in rows if r["n"] == n] for n in sorted({r["n"] for r in rows})]
    places = list(dict.fromkeys((r["column"], r["desktop"]) for r in rows))
    lines = ["Each claim's verdict for each kernel column and desktop (–: the claim is not about that column;"
             " the rules are in the method):", "",
             "| column | desktop | " + " | ".join(f"claim {c[0]['n']}" for c in by_claim) + " |",
             "|---|---|" + "|".join("---" for _ in by_claim) + "|"]
    for col, desk in places:
        said = [next((f"**{r['verdict']}**" for r in c if (r["column"], r["desktop"]) == (col, desk)), "–")
                for c in by_claim]
        lines.append(f"| {col} | {desk} | " + " | ".join(said) + " |")
    for c in by_claim:
        lines += ["", f"### {c[0]['n']}. {c[0]['claim']}", "", f"Source: {c[0]['source']}.", "",
                  "| column | desktop | verdict | evidence |", "|---|---|---|---|"]
        lines += [f"| {r['column']} | {r['desktop']} | **{r['verdict']}** | {r['evidence']} |" for r in c]
    return lines


def rules():
    return [f"  {n}. {c['claim']} {c['rule']}." for n, c in
            enumerate(claims(Records([], set()), [], {"fp": None, "swap": None}, "lca"), 1)]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("claims: usage: analysis/claims.py RUNDIR\n")
        return 2
    checkrun.require("claims", argv[1:], survival=True)
    meta, plan, records = checkrun.read_run(argv[1])
    found = verdicts(tables.latest(records), meta, plan, tables.silent(tables.outcome_classes()))
    print(json.dumps({"table": "\n".join(table(found)), "rules": "\n".join(rules()), "min_runs": MIN_RUNS},
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
