#!/usr/bin/python3
"""Why each verdict came out as it did: analysis/discussion.py RUNDIR

Called by analysis/discussion, which checks the survival run directory.
Prints Markdown from its records alone: for each desktop, kernel column,
workload and swap setting, what the runs' outcomes rest on: the first OOM
victim, the process whose biological subtree an LCA decision killed, and
every probe of the desktop that was lost, with what took it (the ordinary
OOM kill, an LCA subtree, or anything else). A probe an LCA column lost to
the ordinary OOM kill is set beside stock's losses of it in the same
desktop: a loss stock has too is the desktop's design, not the policy's.
"""
import sys
from collections import Counter, defaultdict

from lcastats import read_records

OOM_KILL = "oom-kill"


def first_victim(r):
    v = r.get("first_victim")
    if v is None:
        return "none"
    return "a bomb member" if v.get("bomb_member") else v.get("probe") or v.get("comm") or "unknown"


def subtree_roots(r):
    """The processes whose subtrees the run's LCA decisions killed, named."""
    names = {pid: name for name, pid in (r.get("probe_pids") or {}).items()}
    return [names.get(d["lca"], "a workload process") for d in r.get("lca_decisions") or [] if d.get("killed")]


def loss_cause(death):
    cause = death.get("cause") or "unknown"
    if cause == OOM_KILL:
        return "the OOM kill"
    return "an LCA subtree" if cause.startswith("lca subtree") else cause


def tally(counter, n):
    return ", ".join(f"{k} {v}/{n}" for k, v in counter.most_common())


def stock_losses(runs):
    """{probe: runs of stock that lost it to the ordinary OOM kill}."""
    lost = Counter()
    for r in runs:
        lost.update({d["name"] for d in r.get("probe_deaths") or [] if d.get("cause") == OOM_KILL})
    return lost


def desktops_design(losses, n, stock):
    """Every probe lost (the workload's own terminal aside) went to the
    ordinary OOM kill, and stock lost each at least as often."""
    lost = {p for probes in losses.values() for p in probes} - {"terminal"}
    return bool(lost) and all(
        losses["the OOM kill"][p] == sum(probes[p] for probes in losses.values())
        and stock[0][p] / stock[1] >= losses["the OOM kill"][p] / n for p in lost)


def describe(runs, stock):
    n = len(runs)
    outcomes = Counter(r["outcome"] for r in runs)
    roots = Counter(root for r in runs for root in set(subtree_roots(r)))
    losses = defaultdict(Counter)
    for r in runs:
        for d in r.get("probe_deaths") or []:
            losses[loss_cause(d)][d["name"]] += 1
    text = f"{tally(outcomes, n)}; first OOM victim: {tally(Counter(map(first_victim, runs)), n)}"
    if roots:
        text += f"; an LCA decision killed the subtree of: {tally(roots, n)}"
    for cause, probes in sorted(losses.items()):
        text += f"; lost to {cause}: {tally(probes, n)}"
        if cause == "the OOM kill" and stock is not None:
            text += " (stock: " + ", ".join(f"{p} {stock[0][p]}/{stock[1]}" for p, _ in probes.most_common()) + ")"
    if stock is not None and desktops_design(losses, n, stock):
        text += ". Its losses are the desktop's design: stock loses the same to the same kill"
    return text


def main(run):
    cells = defaultdict(list)
    for r in read_records(run):
        c = r["cell"]
        column = (c["kernel"]["column"], c["defence"]["name"])
        cells[(c["desktop"]["name"], column, c["workload"]["name"], c["swap"])].append(r)
    for desktop in sorted({k[0] for k in cells}):
        print(f"#### {desktop}\n")
        for column in sorted({k[1] for k in cells if k[0] == desktop}, key=lambda c: (c[0] != "stock", c)):
            kernel, defence = column
            print(f"**{kernel}{'' if defence == 'none' else ' + ' + defence}**\n")
            for (d, col, workload, swap), runs in sorted(cells.items()):
                if (d, col) != (desktop, column):
                    continue
                base = cells.get((desktop, ("stock", defence), workload, swap))
                stock = None if kernel == "stock" or not base else (stock_losses(base), len(base))
                print(f"- {workload}, swap {swap}, {len(runs)} run{'' if len(runs) == 1 else 's'}: {describe(runs, stock)}.")
            print()
    print("A probe lost to the OOM kill is lost to the ordinary OOM killer, which stock runs too: where stock lost it "
          "as often, the loss is the desktop's design (its largest process is the first victim), not the LCA "
          "policy's. Losses to an LCA subtree are the policy's own.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: analysis/discussion.py RUNDIR\n")
        sys.exit(2)
    main(sys.argv[1])
