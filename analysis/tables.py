#!/usr/bin/python3
"""The report's tables, from a run's records (analysis/report; the
sections are analysis/sections.json's).

Records, plan lines and meta.json are the run directory's JSON. A table
section names its rows (ROWS: which workloads) and its cell function: a
function of this module taking (records, reps, classes): the records of
one workload and column, the plan's repetitions and outcome.jq's classes;
it gives the cell's text. Numbers are printed as jq prints them (jnum), as
the report did when it was jq and as the paper's jq still does.
"""
import decimal
import json
import math
import os
import re
import subprocess
import sys
from functools import lru_cache

import checkrun
from lcastats import CONFIDENCE

# a table wider than this is split by defence, then in pieces
MAX_COLUMNS = 6


def jnum(x):
    """A number as jq 1.6 prints it: a double, its shortest digits, an
    exponent only far from the point (1e-05, 3e+16), no ".0"."""
    x = float(x)
    if x == 0:
        return "-0" if str(x).startswith("-") else "0"
    sign = "-" if x < 0 else ""
    digits, exponent = decimal.Decimal(repr(abs(x))).normalize().as_tuple()[1:]
    digits = "".join(map(str, digits))
    point = len(digits) + exponent
    if point <= -4 or point > len(digits) + 15:
        rest = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{rest}e{'-' if point - 1 < 0 else '+'}{abs(point - 1):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def text(v):
    """A value as jq's string interpolation gives it."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return jnum(v)
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def jround(x):
    """C's round(), as jq has it: halves away from zero."""
    whole = math.floor(abs(x))
    return math.copysign(whole + (abs(x) - whole >= 0.5), x)


def truthy(v):
    """jq's truth: everything but null and false."""
    return v is not None and v is not False


def median(values):
    values = sorted(values)
    n = len(values)
    if n == 0:
        return None
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def round1(x):
    return None if x is None else jround(x * 10) / 10


def seconds(x):
    return "–" if x is None else f"{text(round1(x))} s"


def ms_to_s(x):
    return None if x is None else x / 1000


@lru_cache(maxsize=None)
def interval(k, n):
    """The exact (Clopper-Pearson) interval of k/n, in percent rounded to
    0.1: the beta quantiles scipy's binomtest(k, n).proportion_ci(method=
    "exact") gives (a test holds them equal)."""
    from scipy.special import betaincinv  # a third of a second to load: only where a table needs it
    tail = (1 - CONFIDENCE) / 2
    low = 0.0 if k == 0 else betaincinv(k, n - k + 1, tail)
    high = 1.0 if k == n else betaincinv(k + 1, n - k, 1 - tail)
    return round(float(low) * 100, 1), round(float(high) * 100, 1)


def interval_text(k, n):
    low, high = interval(k, n)
    return f"({jnum(low)}–{jnum(high)}%)"


def share_of(k, n):
    """"k/n (lo–hi%)": a proportion with its exact 95% interval."""
    return f"{k}/{n} {interval_text(k, n)}"


def jq_key(v):
    """A sort key that orders values as jq does: null, false, true,
    numbers, strings, arrays, objects."""
    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (2,) if v else (1,)
    if isinstance(v, (int, float)):
        return (3, v)
    if isinstance(v, str):
        return (4, v)
    if isinstance(v, list):
        return (5, tuple(map(jq_key, v)))
    return (6, tuple(sorted(v)), tuple(jq_key(v[k]) for k in sorted(v)))


def counted(items):
    """(item, count) of each distinct item, in sorted order (jq's group_by)."""
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return sorted(counts.items())


# Records and cells.

def latest(records):
    """The newest record of each cell repetition (a retried lab-error is
    superseded), by id."""
    newest = {}
    for r in records:
        newest[r["id"]] = r
    return [newest[i] for i in sorted(newest)]


def coords(cell):
    """A cell's coordinates in tables, without the repetition."""
    return (cell["workload"]["name"], cell["swap"], cell["kernel"]["column"],
            cell["defence"]["name"], cell["desktop"]["name"])


def outcome(expression):
    """A value of analysis/outcome.jq's definitions: outcome("classes")."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["jq", "-n", "-c", "-L", here, f'include "outcome"; {expression}'],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def outcome_classes():
    """analysis/outcome.jq's classes: name, severity and definition."""
    return outcome("classes")


def silent(classes):
    """The classes that say nothing of the kernel (analysis/outcome.jq's
    classes without a severity)."""
    return {c["name"] for c in classes if c["severity"] is None}


# The cells of the table sections: records of one workload and column.

def outcome_counts(records, reps, classes):
    """A cell's outcomes as proportions of its conclusive runs, then the
    runs that say nothing and what is missing:
    "2/2 persists (15.8–100%); 1 inconclusive"."""
    n = len(records)
    quiet = silent(classes)
    told = [r["outcome"] for r in records if r["outcome"] not in quiet]
    other = ", ".join(f"{k} {o}" for o, k in counted(r["outcome"] for r in records if r["outcome"] in quiet))
    if n == 0:
        return "missing"
    if not told:
        out = f"no conclusive run ({other})"
    else:
        ranked = sorted(counted(told), key=lambda ok: (-ok[1], ok[0]))
        out = ", ".join(f"{k}/{len(told)} {o} {interval_text(k, len(told))}" for o, k in ranked)
        out += f"; {other}" if other else ""
    return out + (f" ({text(reps - n)} missing)" if n < reps else "")


def survival_cell(records, reps, classes):
    gone = median([r["t_gone_s"] for r in records if r.get("gone") is True
                   and r.get("t_gone_s") is not None and r["cell"]["workload"]["kind"] == "bomb"])
    return outcome_counts(records, reps, classes) + ("" if gone is None else f"; gone in {seconds(gone)} (median)")


def collateral_cell(records, reps, classes):
    """The probes lost over a cell's runs, each with the causes of its
    deaths where the records name them: "browser 3/3 (oom-kill 3)"."""
    n = len(records)
    if n == 0:
        return "missing"
    deaths = [(d["name"], re.sub(" of [0-9]+$", "", d["cause"]))
              for r in records for d in (r.get("probe_deaths") or [])]

    def causes(probe):
        said = ", ".join(f"{c} {k}" for c, k in counted(c for p, c in deaths if p == probe))
        return f" ({said})" if said else ""

    lost = ", ".join(f"{p} {share_of(k, n)}{causes(p)}" for p, k in counted(p for r in records for p in r["probes_lost"]))
    terminal = sum(1 for r in records if truthy(r.get("terminal_lost")))
    gaps = [r["max_probe_gap_ms"] for r in records if truthy(r.get("max_probe_gap_ms"))]
    return ((lost or "none") + (f"; terminal {share_of(terminal, n)}" if terminal else "")
            + f"; gap {seconds(ms_to_s(median(gaps)))} (max {seconds(ms_to_s(max(gaps, default=None)))})")


def kills_cell(records, reps, classes):
    if not records:
        return "missing"
    oom = median([r["oom_kills"] for r in records if truthy(r.get("oom_kills"))])
    lca = median([r["lca_killed"] for r in records if r.get("lca_killed") is not None])
    return f"{text(oom)} OOM / {text(lca)} LCA"


def victim_cell(records, reps, classes):
    """The first OOM victims over a cell's runs, by name, with the median
    of their resident memory: "probe 2/3 (64 MB), none 1/3"."""
    n = len(records)
    if n == 0:
        return "missing"
    victims = {}
    for r in records:
        v = r.get("first_victim")
        if v is None:
            name = "none"
        else:
            name = (v.get("comm") or "") + (" (bomb member)" if truthy(v.get("bomb_member"))
                                else f" ({text(v['probe'])})" if v.get("probe") is not None else "")
        kb = None if v is None else v.get("anon_rss_kb")
        victims.setdefault(name, []).append(kb)
    ranked = sorted(victims.items(), key=lambda vk: (-len(vk[1]), vk[0]))
    out = []
    for name, kbs in ranked:
        mb = median([kb for kb in kbs if truthy(kb)])
        out.append(f"{name} {share_of(len(kbs), n)}" + ("" if mb is None else f", {jnum(jround(mb / 1024))} MB"))
    return "; ".join(out)


def acted_cell(records, reps, classes):
    """Who acted, over a cell's runs: "lca 3/3, oom-killer 3/3"."""
    if not records:
        return "missing"
    n = len(records)
    return ", ".join(f"{a} {share_of(k, n)}" for a, k in counted(a for r in records for a in r["acted"])) or "nobody"


# Tables: a row per workload, a column per kernel column and defence, a
# table per desktop and swap setting.

def columns(meta):
    """The run's columns (swap, kernel, defence, desktop), in the experiment's order."""
    m = meta["matrix"]
    return [(s, k, d, e) for e in m["desktops"] for s in m["swap"] for d in m["defences"] for k in m["kernels"]]


def col_label(col):
    swap, kernel, defence, desktop = col
    return kernel + ("" if defence == "none" else "+" + defence)


def groups_in_order(items, key):
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.values())


def column_tables(cols):
    """A run's columns as tables of at most MAX_COLUMNS: one per desktop
    and swap setting, split by defence where wider, those in pieces."""
    for group in groups_in_order(cols, lambda c: (c[3], c[0])):
        if len(group) <= MAX_COLUMNS:
            yield group, False
            continue
        for by_defence in groups_in_order(group, lambda c: c[2]):
            for i in range(0, len(by_defence), MAX_COLUMNS):
                yield by_defence[i:i + MAX_COLUMNS], True


def table_title(cols, by_defence):
    swap, kernel, defence, desktop = cols[0]
    said = (", " + ("no defence" if defence == "none" else defence)) if by_defence else ""
    return f"*{desktop}, swap {text(swap)}{said}*"


def table(records, meta, plan, workloads, cell, classes):
    """The lines of a table per column_tables of the workloads' rows. A cell
    the plan does not have (PAIRING=cyclic) is "–"; one it has without a
    record, "missing"; a column without a planned cell of these workloads is
    left out."""
    planned = {coords(c) for c in plan if c["workload"]["name"] in workloads}
    cols = [c for c in columns(meta) if any(p[1:] == c for p in planned)]
    by_cell = {}
    for r in records:
        by_cell.setdefault(coords(r["cell"]), []).append(r)
    lines = []
    for i, (group, by_defence) in enumerate(column_tables(cols)):
        lines += [""] * (i > 0) + [table_title(group, by_defence), ""]
        lines.append("| workload | " + " | ".join(map(col_label, group)) + " |")
        lines.append("|---|" + "|".join("---" for _ in group) + "|")
        for w in workloads:
            cells = [cell(by_cell.get((w,) + c, []), meta["matrix"]["reps"], classes) if (w,) + c in planned else "–"
                     for c in group]
            lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return lines


def of_kind(meta, plan, kind):
    """The matrix's workloads of a kind, as the plan resolved them."""
    names = {c["workload"]["name"] for c in plan if c["workload"]["kind"] == kind}
    return [w for w in meta["matrix"]["workloads"] if w in names]


ROWS = {
    "bombs": lambda meta, plan: of_kind(meta, plan, "bomb"),
    "false_positives": lambda meta, plan: of_kind(meta, plan, "false-positive"),
    "workloads": lambda meta, plan: meta["matrix"]["workloads"],
}


def lab_errors(records):
    errors = [f"- {r['id']}: {r['outcome_reason']}" for r in records if r["outcome"] == "lab-error"]
    return errors or ["None."]


# A run's plan in words.

def plan_columns(plan):
    def column(k):
        sysctls = k.get("sysctls") or []
        return f"{text(k['column'])} = {text(k['build'])}" + (" + " + " ".join(map(text, sysctls)) if sysctls else "")
    return "; ".join(sorted({column(c["kernel"]) for c in plan if truthy(c.get("kernel"))}))


def plan_desktops(plan):
    return "; ".join(sorted({f"{text(c['desktop']['name'])} = {text(c['desktop'].get('what'))}" for c in plan}))


def plan_deadlines(plan):
    """"a 120 s (swap off), 600 s (swap on); tar 30 s": one number where
    the swap settings share it."""
    out = []
    for name in sorted({c["workload"]["name"] for c in plan}):
        cells = [c for c in plan if c["workload"]["name"] == name]
        by_swap = {}
        for c in cells:
            by_swap.setdefault(c["swap"], c["workload"]["deadline_s"])
        if len({text(c["workload"]["deadline_s"]) for c in cells}) == 1:
            out.append(f"{name} {text(cells[0]['workload']['deadline_s'])} s")
        else:
            out.append(name + " " + ", ".join(f"{text(d)} s (swap {text(s)})" for s, d in sorted(by_swap.items())))
    return "; ".join(out)


def run_conditions(records, plan, meta):
    """The conditions a survival run's numbers hold under, one line: the
    builds, desktops, repetitions, deadlines and the guest's clock."""
    def clock(g):
        return (f"{g['clock']}" + (f" ({g['icount']})" if truthy(g.get("icount")) else "")
                + f", {text(g['cpus'])} vCPU{'' if g['cpus'] == 1 else 's'}")
    reps = meta["matrix"]["reps"]
    builds = sorted({f"{text(r.get('series_hash'))} (config {text(r.get('config_hash'))}, Linux"
                     f" {text(r.get('kernel_version'))})" for r in records})
    return (f"builds {', '.join(builds)}; desktops {', '.join(sorted({c['desktop']['name'] for c in plan}))}"
            f"; {text(reps)} repetition{'' if reps == 1 else 's'}; deadlines [{plan_deadlines(plan)}]"
            f"; clock {' and '.join(sorted({clock(r['cell']['guest']) for r in records}))} under {text(meta.get('accel'))}")


def clock_threat(records):
    """The paper's threat from the guest's clock: what the records' clock
    follows (never mixed in a run; several are named as such)."""
    clocks = sorted({(r["cell"]["guest"]["clock"], r["cell"]["guest"].get("icount")) for r in records},
                    key=lambda g: tuple(map(jq_key, g)))
    out = "**The guest's clock.** "
    if not clocks:
        return out + "No run has a record, so none names its clock."
    if len({c for c, _ in clocks}) > 1:
        return out + "The runs used several clocks; their times are not on one scale."
    if clocks[0][0] == "wall":
        return out + ("It was the host's (`SURVIVAL_CLOCK=wall`):\n  a slower or busier host gives a workload"
                      " fewer instructions per guest\n  second, and its events come later (`make clock-check`).")
    icounts = ", ".join(sorted({i for _, i in clocks if i is not None}))
    out += (f"It counted instructions (QEMU\n  `-icount {icounts}`; the conditions give its vCPUs), so the guest's"
            "\n  compute-bound phases do not follow the host's speed or load (`make\n  clock-check`).")
    if all("sleep=off" in (i or "") for _, i in clocks):
        return out
    return out + ("\n  While the guest is idle its time passes at the host's pace (QEMU's\n  sleep=on), so phases"
                  " that wait follow the host's I/O and load, above all\n  a guest thrashing on swap, which mostly"
                  " waits for its disk. Compare\n  swap-on times within one run only.")


def defence_rules(plan):
    """The plan's defences and their acted rules: " (pids.max: RULE; ...)", or nothing."""
    rules = sorted({f"{text(c['defence'].get('label'))}: `{text(c['defence'].get('acted'))}`" for c in plan
                    if c["defence"]["name"] != "none"})
    return f" ({'; '.join(rules)})" if rules else ""


# An overhead run's tables, from analysis/overhead's lines.

def overhead_conclusion(ratios):
    """What an overhead run's ratios conclude, a line per clock and variant:
    the share of its process-path ratios distinguishable from 1, the range
    their intervals allow, and its OOM decisions' ratios."""
    def pct(v):
        return jnum(jround((v - 1) * 1000) / 10)

    def x(v):
        return jnum(jround(v * 100) / 100)

    groups = {}
    for r in ratios:
        groups.setdefault((r["clock"], r["variant"]), []).append(r)
    for key in sorted(groups):
        g = groups[key]
        paths = [r for r in g if not r["mode"].startswith("oom-")]
        oom = [r for r in g if r["mode"].startswith("oom-")]
        iv = [r for r in paths if r["ci_low"] is not None]
        line = f"- {g[0]['variant']} against {g[0]['base']} ({g[0]['clock']}): "
        if not paths:
            line += "no process-path figure measured"
        else:
            line += (f"on the paths every process takes ({', '.join(sorted({r['mode'] for r in paths}))}), "
                     f"{sum(1 for r in paths if truthy(r['distinguishable']))} of {len(paths)} ratios are distinguishable from 1; ")
            if not iv:
                line += "none has an interval (too few boots)"
            else:
                high = pct(max(r["ci_high"] for r in iv))
                line += (f"their 95% intervals run from {pct(min(r['ci_low'] for r in iv))}% to {high}%, "
                         f"so the series costs these paths at most {high}%")
                line += f" ({len(paths) - len(iv)} without an interval)" if len(iv) < len(paths) else ""
        if not oom:
            line += "."
        else:
            line += (f"; its OOM decisions take {x(min(r['ratio'] for r in oom))}x to {x(max(r['ratio'] for r in oom))}x"
                     f" the base's time ({sum(1 for r in oom if truthy(r['distinguishable']))} of {len(oom)} distinguishable).")
        yield line


def facts(run_dir):
    """A run's plan and conditions in words, for the paper."""
    checkrun.require("tables", [run_dir])
    meta, plan, records = checkrun.read_run(run_dir)
    out = {"columns": plan_columns(plan)}
    if meta["matrix"].get("type", "survival") == "survival":
        records = latest(records)
        out.update(desktops=plan_desktops(plan), deadlines=plan_deadlines(plan),
                   conditions=run_conditions(records, plan, meta), clock_threat=clock_threat(records))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "facts":
        sys.stderr.write("tables: usage: analysis/tables.py facts RUNDIR\n")
        sys.exit(2)
    print(json.dumps(facts(sys.argv[2]), ensure_ascii=False))
