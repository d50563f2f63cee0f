#!/usr/bin/python3
"""After a mass kill, how long until the bomb is gone:
analysis/herd.py SILENT [--over S] [--runs] RUNDIR... [--against RUNDIR...]

A kill of hundreds of bomb members can leave them runnable in the page
allocator's reclaim loop, memory exhausted and no further OOM kill, for
seconds to minutes: a herd (kernel-patch/README.md, "A herd of killed
members"). For each run of a bomb with a mass kill (the last LCA decision
that killed more than MASS tasks; else, where memory.oom.group acted, the
first OOM kill, which killed the whole group): the seconds from it to the
bomb gone (or the run's class when it never went), the median of the
runnable tasks the driver sampled meanwhile, and the oom_reaper's lines.
Runs without a mass kill (an ordinary OOM kill kills one task) and runs
without evidence (SILENT: analysis/outcome.jq's classes without a
severity, lab-error and inconclusive, as JSON) are left out. Per side: the
runs that took more than S seconds or never ended, with an exact
interval, the median and the longest. With --against, the one-sided tests
that the second side has fewer such runs (Fisher's exact test; a run that
never ended counts as long) and shorter times (Mann-Whitney), and the rate
of long runs the second side could have shown.
Reads the run directories only (runs.jsonl and each cell's channel log).
"""
import gzip
import json
import math
import os
import sys
from statistics import median

from scipy.stats import binomtest, fisher_exact, mannwhitneyu

from lcastats import CONFIDENCE, LEVEL
from runs import read_records

MASS = 100
USAGE = "usage: analysis/herd [--over S] [--runs] RUNDIR... [--against RUNDIR...]"


def channel_lines(path):
    """The guest driver's JSON objects, from channel.log or channel.log.gz."""
    for name, opener in (("channel.log", open), ("channel.log.gz", gzip.open)):
        if os.path.exists(os.path.join(path, name)):
            with opener(os.path.join(path, name), "rt", errors="replace") as f:
                for line in f:
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(obj, dict):
                        yield obj
            return


def mass_kill_at(record):
    """The last LCA decision that killed more than MASS tasks, else the
    first OOM kill of a run where memory.oom.group acted; None without."""
    mass = [d["t"] for d in record.get("lca_decisions") or [] if d.get("killed", 0) > MASS]
    if mass:
        return mass[-1]
    return record.get("t_first_oom_s") if "oom-group" in (record.get("acted") or []) else None


def herd_row(run_dir, record, silent):
    """One bomb run: id, mass kill, seconds to gone (None: persists), the
    median runnable tasks meanwhile, reaps, failed reaps; None when the
    run killed nothing. The times are the record's (analysis/record's
    reading of the evidence), the samples and the reaper's lines the
    driver's."""
    kill = mass_kill_at(record)
    if kill is None or record["outcome"] in silent:
        return None
    lines = list(channel_lines(os.path.join(run_dir, record["cell_dir"])))
    result = ([x for x in lines if x.get("type") == "result"] or [{}])[-1]
    gone = record.get("t_gone_s")
    running = [s["running"] for s in lines
               if s.get("type") == "sample" and s.get("t", -1) >= kill
               and s.get("workload_tasks", 0) > 50 and "running" in s]
    return {"id": record["id"], "run": run_dir, "outcome": record["outcome"], "kill_s": kill,
            "to_gone_s": None if gone is None else round(gone - kill, 1),
            "running": median(running) if running else None,
            "reaped": result.get("oom_reaped"), "unreapable": result.get("oom_unreapable")}


def side_rows(run_dirs, silent):
    rows = []
    for run_dir in run_dirs:
        for record in read_records(run_dir):
            if record["cell"]["workload"]["kind"] == "bomb" and record.get("cell_dir"):
                row = herd_row(run_dir, record, silent)
                if row:
                    rows.append(row)
    return rows


def is_long(row, over):
    return row["to_gone_s"] is None or row["to_gone_s"] > over


def seconds(row):
    return math.inf if row["to_gone_s"] is None else row["to_gone_s"]


def fmt(x):
    return "never" if x is None or x == math.inf else f"{x:g} s"


def to_gone(row):
    return fmt(row["to_gone_s"]) if row["to_gone_s"] is not None else f"never ({row['outcome']})"


def side_line(name, rows, over):
    n, k = len(rows), sum(is_long(r, over) for r in rows)
    if n == 0:
        return f"- {name}: no run of a bomb with a kill."
    ci = binomtest(k, n).proportion_ci(CONFIDENCE, method="exact")
    times = [seconds(r) for r in rows]
    slow = [r for r in rows if is_long(r, over)]
    running = [r["running"] for r in slow if r["running"] is not None]
    return (f"- {name}: {k} of {n} runs took more than {over:g} s from the mass kill to the bomb gone "
            f"or never ended ({100 * ci.low:.1f}–{100 * ci.high:.1f}%); median {fmt(median(times))}, "
            f"longest {fmt(max(times))}"
            + (f"; the median of the runnable tasks meanwhile, in the {len(running)} of them sampled: "
               f"{min(running):g} to {max(running):g}" if running else "")
            + ".")


def compare_lines(base, new, over):
    kb, nb = sum(is_long(r, over) for r in base), len(base)
    kn, nn = sum(is_long(r, over) for r in new), len(new)
    fisher = fisher_exact([[kb, nb - kb], [kn, nn - kn]], alternative="greater")[1]
    mw = mannwhitneyu([seconds(r) for r in base], [seconds(r) for r in new], alternative="greater").pvalue
    verdict = "fewer" if fisher < LEVEL else f"not fewer at p < {LEVEL:g}"
    out = [f"- Against the first: the second side's long runs are {verdict} "
           f"(p = {fisher:.2g}, one-sided Fisher, {kb} of {nb} against {kn} of {nn}); its times shorter, "
           f"p = {mw:.2g} (one-sided Mann-Whitney, a run that never ended the longest)."]
    if kn == 0:
        rate = 1 - LEVEL ** (1 / nn)
        one_in = f" (1 run in {math.floor(1 / rate)})" if rate <= 0.5 else ""
        out.append(f"- With 0 of {nn}, a rate of {100 * rate:.1f}%{one_in} or more would have shown "
                   f"with {100 * (1 - LEVEL):g}% probability (one-sided).")
    return out


def usage_error(message):
    print(f"herd: {message}", file=sys.stderr)
    sys.exit(2)


def main(silent, argv):
    over, show_runs, sides = 4.0, False, [[]]
    args = iter(argv)
    for a in args:
        if a == "--over":
            try:
                over = float(next(args))
            except (StopIteration, ValueError):
                over = -1.0
            if not 0 <= over < math.inf:
                usage_error(f"--over takes seconds, 0 or more; {USAGE}")
        elif a == "--runs":
            show_runs = True
        elif a == "--against":
            sides.append([])
        elif a.startswith("-"):
            usage_error(f"unknown option {a}; {USAGE}")
        else:
            sides[-1].append(a)
    if not sides[0] or len(sides) > 2 or (len(sides) == 2 and not sides[1]):
        usage_error(USAGE)
    rows = [side_rows(s, silent) for s in sides]
    for name, dirs, side in zip(("First", "Second"), sides, rows):
        print(side_line(f"{name} ({', '.join(dirs)})", side, over))
    if len(rows) == 2 and rows[0] and rows[1]:
        print("\n".join(compare_lines(rows[0], rows[1], over)))
    if show_runs:
        print("\n| run | cell | mass kill | to gone | runnable (median) | reaped | unable to reap |")
        print("|---|---|---|---|---|---|---|")
        for side in rows:
            for r in side:
                print(f"| {r['run']} | {r['id']} | {r['kill_s']:g} s | {to_gone(r)} | "
                      f"{r['running'] if r['running'] is not None else '-'} | "
                      f"{r['reaped'] if r['reaped'] is not None else '-'} | "
                      f"{r['unreapable'] if r['unreapable'] is not None else '-'} |")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), sys.argv[2:])
