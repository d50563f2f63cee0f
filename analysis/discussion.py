#!/usr/bin/python3
"""What each cell's outcomes rest on: analysis/discussion.py RUNDIR

Called by analysis/discussion, which checks the survival run directory.
Prints Markdown from its records alone: for each desktop, kernel column
(and defence), workload and swap setting, the outcomes of every run, the
first OOM victim, whose biological subtree an LCA decision killed, and each
probe of the desktop that was lost, with what took it.

A probe lost as the first OOM victim is set beside stock's runs of the
same cell (stock@LINE for a column of another kernel line, with the same
defence). When every probe a column lost went that way, and stock lost
each as its first victim at least as often, the loss is the desktop's
design: the first victim is chosen before any LCA decision.
"""
import sys
from collections import Counter, defaultdict

from runs import baseline, read_records

FIRST_KILL = "the first OOM kill"
CAUSES = (FIRST_KILL, "a later OOM kill", "an LCA subtree")
DESIGN = ("A loss is the desktop's design when every probe the column lost went as its first OOM victim, and "
          "stock's first OOM kill took each at least as often: the first victim is chosen before any LCA "
          "decision. Counts are of every run, inconclusive ones included.")


def first_victim(r):
    v = r.get("first_victim")
    if v is None:
        return "none"
    if v.get("bomb_member"):
        return "a bomb member"
    if v.get("probe"):
        return v["probe"]
    return "a desktop probe (which one not recorded)" if v.get("comm") == "probe" else v.get("comm") or "unknown"


def process_name(r, pid):
    """A pid of the run, named: a probe, the parent of probes, or neither."""
    probes = r.get("probe_pids") or {}
    for name, p in probes.items():
        if p == pid:
            return name
    children = sorted(name for name, ppid in (r.get("probe_ppids") or {}).items() if ppid == pid)
    if children:
        return "the parent of " + ", ".join(children)
    return "a process that is no desktop probe"


def losses(r):
    """(probe, cause) of each probe the run lost."""
    first = (r.get("first_victim") or {}).get("probe")
    for d in r.get("probe_deaths") or []:
        cause = d.get("cause") or "unknown"
        if cause == "oom-kill":
            cause = CAUSES[0] if d["name"] == first else CAUSES[1]
        elif cause.startswith("lca subtree"):
            cause = CAUSES[2]
        yield d["name"], cause


def by_count(counter):
    """The counter's items, most first, ties by name (never by the order a
    set gave them: the text is a function of the records)."""
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))


def tally(counter, n):
    return ", ".join(f"{k} {v}/{n}" for k, v in by_count(counter))


def first_kill_losses(runs):
    return Counter(p for r in runs for p, cause in set(losses(r)) if cause == FIRST_KILL)


def desktops_design(lost, n, stock, stock_n):
    """Every probe lost went as the first victim, and stock lost each so at
    least as often."""
    probes = {p for by_cause in lost.values() for p in by_cause}
    return bool(probes) and set(lost) == {FIRST_KILL} and all(
        stock[p] / stock_n >= lost[FIRST_KILL][p] / n for p in probes)


def describe(runs, base):
    n = len(runs)
    roots = Counter(name for r in runs
                    for name in {process_name(r, d["lca"]) for d in r.get("lca_decisions") or [] if d.get("killed")})
    lost = defaultdict(Counter)
    for r in runs:
        for probe, cause in set(losses(r)):
            lost[cause][probe] += 1
    text = f"{tally(Counter(r['outcome'] for r in runs), n)}; first OOM victim: " \
        f"{tally(Counter(map(first_victim, runs)), n)}"
    if roots:
        text += f"; an LCA decision killed the subtree of: {tally(roots, n)}"
    stock = first_kill_losses(base) if base else None
    for cause in sorted(lost, key=lambda c: (CAUSES.index(c) if c in CAUSES else len(CAUSES), c)):
        text += f"; lost to {cause}: {tally(lost[cause], n)}"
        if cause == FIRST_KILL and stock is not None:
            text += " (stock: " + ", ".join(f"{p} {stock[p]}/{len(base)}" for p, _ in by_count(lost[cause])) + ")"
    if stock is not None and desktops_design(lost, n, stock, len(base)):
        text += ". The desktop's design: stock's first OOM kill takes the same"
    return text


def main(run):
    cells = defaultdict(list)
    for r in read_records(run):
        c = r["cell"]
        column = (c["kernel"]["column"], c["defence"]["name"])
        cells[(c["desktop"]["name"], column, c["workload"]["name"], c["swap"])].append(r)
    for desktop in sorted({k[0] for k in cells}):
        print(f"#### {desktop}\n")
        columns = {k[1] for k in cells if k[0] == desktop}
        for column in sorted(columns, key=lambda c: (c[0] != baseline(c[0]), c)):
            kernel, defence = column
            print(f"**{kernel}{'' if defence == 'none' else ' + ' + defence}**\n")
            for (d, col, workload, swap), runs in sorted(cells.items()):
                if (d, col) != (desktop, column):
                    continue
                base = None if kernel == baseline(kernel) else cells.get((d, (baseline(kernel), defence), workload, swap))
                print(f"- {workload}, swap {swap}, {len(runs)} run{'' if len(runs) == 1 else 's'}: "
                      f"{describe(runs, base)}.")
            print()
    print(DESIGN)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: analysis/discussion.py RUNDIR\n")
        sys.exit(2)
    main(sys.argv[1])
