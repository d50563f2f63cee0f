#!/usr/bin/python3
"""The answer at a glance: analysis/summary.py OUTDIR CLASSES RUNDIR...

CLASSES is analysis/outcome.jq's classes (JSON: name, severity, what);
analysis/summary checks the run directories and calls this. Every workload
on every kernel column (and defence) in every desktop of the survival runs,
as one figure, OUTDIR/summary.svg and .png (a bar per cell: its runs split
by outcome class; a panel per desktop) through OUTDIR/data/summary.gp, and
on stdout Markdown: which runs it joined (or left out, and why), a
sentence per desktop and a narrow table of the bombs' and the
false-positive loads' runs by what came of them, each share with its exact
interval and each column's share (bombs ended clean, loads killed) tested
against stock's without a defence on its desktop and kernel line (Fisher,
Holm), with what the tests could have seen. Runs are joined only when they
ran the same builds on the same clock as the first one.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

from scipy.stats import binomtest, fisher_exact

from lcastats import CONFIDENCE, LEVEL, holm
from runs import baseline, read_records

# Each class's colour by what came of the run: fine, harm, the bomb won,
# the kernel failed; grey for the runs that say nothing.
COLOURS = {"clean": "#1a9850", "survived": "#1a9850", "collateral": "#fdae61", "killed": "#fdae61",
           "persists": "#d73027", "hung": "#762a83", "stalled": "#40004b", "panic": "#000000",
           "inconclusive": "#d9d9d9", "lab-error": "#969696"}


def identity(records):
    """The clocks and each build's series and configuration of a run."""
    builds = defaultdict(set)
    for r in records:
        builds[r["cell"]["kernel"]["build"]].add(f'{r["series_hash"]} {r["config_hash"]}')
    return {r["clock"] for r in records}, builds


def mismatch(anchor, other):
    """Why a run cannot join the first one; empty when it can."""
    (clocks, builds), (oclocks, obuilds) = anchor, other
    if clocks != oclocks:
        return f'another clock ({", ".join(sorted(oclocks))}, not {", ".join(sorted(clocks))})'
    return "; ".join(f'another {b} build ({", ".join(sorted(ids))}, not {", ".join(sorted(builds[b]))})'
                     for b, ids in sorted(obuilds.items()) if b in builds and ids != builds[b])


def column(cell):
    d = cell["defence"]["name"]
    return cell["kernel"]["column"] + ("" if d == "none" else "+" + d)


def ordered(lists):
    """The items of the lists in order of first appearance."""
    out = []
    for item in (x for xs in lists for x in xs):
        if item not in out:
            out.append(item)
    return out


def share(k, n):
    if n == 0:
        return "–"
    ci = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="exact")
    return f"{k}/{n} ({ci.low * 100:.1f}–{ci.high * 100:.1f}%)"


def extremes(counts):
    """The columns of the highest and of the lowest share k/n: (k, n, [columns]) each."""
    counts = [c for c in counts if c[1]]
    hi = max(counts, key=lambda c: c[0] / c[1])
    lo = min(counts, key=lambda c: c[0] / c[1])
    return [(x[0], x[1], [c[2] for c in counts if c[0] * x[1] == x[0] * c[1]]) for x in (hi, lo)]


def silent(counts, classes):
    """The runs that say nothing: the classes without a severity
    (inconclusive, lab errors)."""
    return sum(counts[c["name"]] for c in classes if c["severity"] is None)


def words(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def runs_of(k, n, columns):
    return f"in {share(k, n).replace(' (', ' runs (')}{' each' if len(columns) > 1 else ''}"


def sentence(clean, killed):
    """A desktop's answer: where the bombs were ended cleanly most and least
    often, and where the false-positive loads were killed."""
    parts = []
    if any(n for _, n, _ in clean):
        (k, n, top), (lk, ln, low) = extremes(clean)
        if top == low:
            parts.append(f"the bombs were ended cleanly on {words(top)} {runs_of(k, n, top)}")
        else:
            parts.append(f"the bombs were ended cleanly most often on {words(top)}, {runs_of(k, n, top)}, "
                         f"least often on {words(low)}, {runs_of(lk, ln, low)}")
    if any(n for _, n, _ in killed):
        hit = [f"{c} {runs_of(k, n, [c])}" for k, n, c in killed if k]
        spared = [c for k, n, c in killed if n and not k]
        parts.append("the false-positive loads were killed on " + (words(hit) if hit else "no column")
                     + (f", never on {words(spared)}" if hit and spared else ""))
    return "; ".join(parts) + "."


def against_stock(rows, tested):
    """Each row's share (TESTED: clean, killed) against its baseline's on its
    desktop: Fisher's exact test, two-sided, over the row's workloads and
    swap settings pooled, Holm-adjusted over the table's comparisons. rows:
    (desktop, column, k, n). Returns a cell text per row and a sentence on
    what the tests could have seen."""
    base = {(e, c): (k, n) for e, c, k, n in rows if c == baseline(c) and n}
    pairs = {i: base[(e, baseline(c))] for i, (e, c, k, n) in enumerate(rows)
             if c != baseline(c) and n and (e, baseline(c)) in base}
    p = {i: fisher_exact([[rows[i][2], rows[i][3] - rows[i][2]], [ks, ns - ks]])[1] for i, (ks, ns) in pairs.items()}
    adjusted = dict(zip(p, holm(list(p.values()))))
    # the most each could show: all of the column's runs one way, none of stock's
    best = holm([fisher_exact([[rows[i][3], 0], [0, ns]])[1] for i, (_, ns) in pairs.items()])

    def cell(i):
        if i not in p:
            return "–"
        k, n = rows[i][2:]
        ks, ns = pairs[i]
        way = "more" if k * ns > ks * n else "less"
        return f"p = {p[i]:.2g}, Holm {adjusted[i]:.2g}" + (f" **{way} often**" if adjusted[i] < LEVEL else "")

    if not pairs:
        why = ("no other column has conclusive runs beside stock's" if base
               else "no desktop has conclusive runs of stock without a defence")
        return [cell(i) for i in range(len(rows))], f"No column against stock: {why}."
    m = len(pairs)
    able = sum(1 for h in best if h < LEVEL)
    seen = (f"{m} comparison{'s' if m > 1 else ''} with stock without a defence on the same desktop (and "
            f"kernel line), of the share {tested}: Fisher's exact test, two-sided, workloads and swap "
            f"settings pooled, Holm over the {m} of this table. Had each gone to its extreme (all of the "
            f"column's runs {tested} and none of stock's, or the reverse), {able} of {m} would have reached "
            f"p < {LEVEL} after Holm.")
    return [cell(i) for i in range(len(rows))], seen


def figure(out, cells, desktops, columns, rows, classes):
    """The gnuplot script and data; the SVG and PNG it draws."""
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    width = max(1100, 70 * len(columns) + 260)
    panel_h = 34 * max(len(rows[e]) for e in desktops) + 120
    height = panel_h * len(desktops) + 110
    # one legend entry a colour: "clean, survived", "collateral, killed"
    present = {}
    for name in (c["name"] for c in classes if any(c["name"] in v for v in cells.values())):
        present.setdefault(COLOURS[name], []).append(name)
    gp = [f'set multiplot layout {len(desktops)},1 margins 0.16,0.97,{90 / height:.3f},{1 - 100 / height:.3f} '
          f'spacing 0,{110 / height:.3f} title "Every run by what came of it: a bar per workload, kernel column '
          f'and desktop, split by outcome" font ",13"',
          "unset border", "set tics nomirror scale 0", "set style fill solid 1.0 noborder"]
    for i, e in enumerate(desktops):
        cols = [c for c in columns if any(k[0] == e and k[1] == c for k in cells)]
        data = os.path.join(out, "data", f"summary-{e}.dat")
        with open(data, "w") as f:
            for y, (w, s) in enumerate(rows[e]):
                for x, c in enumerate(cols):
                    counts = cells.get((e, c, w, s), {})
                    n, left = sum(counts.values()), x - 0.42
                    for cls in (k["name"] for k in classes):
                        if counts.get(cls):
                            right = left + 0.84 * counts[cls] / n
                            f.write(f'{(left + right) / 2} {y} {left} {right} {y - 0.35} {y + 0.35} '
                                    f'{int(COLOURS[cls][1:], 16)}\n')
                            left = right
        gp += [f'set title "desktop {e}"',
               "set xtics (" + ", ".join(f'"{c}" {x}' for x, c in enumerate(cols)) + ") rotate by 25 right",
               "set ytics (" + ", ".join(f'"{w}{", swap" if s == "on" else ""}" {y}'
                                         for y, (w, s) in enumerate(rows[e])) + ")",
               f"set xrange [-0.6:{len(cols) - 0.4}]", f"set yrange [-0.6:{len(rows[e]) - 0.4}]"]
        if i == 0:
            gp.append(f"set key at screen 0.5, screen {1 - 48 / height:.3f} center horizontal maxrows 1 "
                      'font ",10" samplen 1 width -3')
        else:
            gp.append("unset key")
        keys = ", ".join(f'NaN w boxes lc rgb "{colour}" t "{", ".join(names)}"'
                         for colour, names in present.items()) if i == 0 else ""
        gp.append(f'plot "summary-{e}.dat" u 1:2:3:4:5:6:7 w boxxyerror lc rgb variable notitle'
                  + (", " + keys if keys else ""))
    gp.append("unset multiplot")
    with open(os.path.join(out, "data", "summary.gp"), "w") as f:
        f.write("\n".join(gp) + "\n")
    for term, ext in ((f"svg size {width},{height} dynamic font 'sans,11'", "svg"),
                      (f"pngcairo size {width},{height} font 'sans,11'", "png")):
        subprocess.run(["gnuplot", "-e", f'set terminal {term}; set output "../summary.{ext}"', "summary.gp"],
                       cwd=os.path.join(out, "data"), check=True)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: analysis/summary.py OUTDIR CLASSES RUNDIR...\n")
        sys.exit(2)
    out, classes, dirs = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
    joined, left, metas, records, anchor = [], [], [], [], None
    for d in dirs:
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        recs = read_records(d)
        ident = identity(recs)
        why = "" if anchor is None else mismatch(anchor, ident)
        if why:
            left.append(f"`{d}`: {why}")
            continue
        anchor = anchor or ident
        joined.append(d)
        metas.append(meta["matrix"])
        records += recs

    kernels = ordered(m["kernels"] for m in metas)
    defences = ordered([["none"]] + [m["defences"] for m in metas])
    desktops = ordered(m["desktops"] for m in metas)
    workloads = ordered(m["workloads"] for m in metas)
    columns = [k + ("" if d == "none" else "+" + d) for d in defences for k in kernels]
    cells, kind = defaultdict(lambda: defaultdict(int)), {}
    for r in records:
        c = r["cell"]
        cells[(c["desktop"]["name"], column(c), c["workload"]["name"], c["swap"])][r["outcome"]] += 1
        kind[c["workload"]["name"]] = c["workload"]["kind"]
    rows = {e: [(w, s) for k in ("false-positive", "bomb") for w in reversed(workloads) for s in ("on", "off")
                if kind.get(w) == k and any(key[0] == e and key[2:] == (w, s) for key in cells)]
            for e in desktops}
    figure(out, cells, desktops, columns, rows, classes)

    print(f"From {', '.join(f'`{d}`' for d in joined)}: {len(records)} runs, clock "
          f"{', '.join(sorted(anchor[0]))}, builds "
          f"{', '.join(f'{b} {i}' for b, ids in sorted(anchor[1].items()) for i in sorted(ids))}."
          + (f" Left out, as runs of another build or clock: {'; '.join(left)}." if left else ""))
    print()
    bomb_rows, fp_rows, bomb_test, fp_test = [], [], [], []
    for e in desktops:
        best, killed = [], []
        for c in columns:
            runs = defaultdict(lambda: defaultdict(int))
            for (de, co, w, _), counts in cells.items():
                if de == e and co == c:
                    for o, k in counts.items():
                        runs[kind[w]][o] += k
            if not runs:
                continue
            bomb, fp = runs["bomb"], runs["false-positive"]
            nb = sum(bomb.values()) - silent(bomb, classes)
            nf = sum(fp.values()) - silent(fp, classes)
            # persists and worse: the bomb was not stopped, or the kernel failed
            worse = sum(bomb[c["name"]] for c in classes if (c["severity"] or 0) >= 2)
            best.append((bomb["clean"], nb, c))
            killed.append((fp["killed"], nf, c))
            bomb_test.append((e, c, bomb["clean"], nb))
            fp_test.append((e, c, fp["killed"], nf))
            bomb_rows.append(f"| {e} | {c} | {share(bomb['clean'], nb)} | {share(bomb['collateral'], nb)} | "
                             f"{share(worse, nb)} | {silent(bomb, classes)} |")
            fp_rows.append(f"| {e} | {c} | {share(fp['survived'], nf)} | {share(fp['collateral'], nf)} | "
                           f"{share(fp['killed'], nf)} | {silent(fp, classes)} |")
        print(f"- Desktop {e}: {sentence(best, killed)}")
    # the claims test a false positive's harm otherwise, so the table says so
    fp_note = (" Here a load is harmed when it was killed; the claims count a lost probe as harm too "
               "(killed or collateral) and test one side, that the column does worse than stock.")
    for what, head, rows_md, test, tested, note in (
            ("bombs", "clean | gone, a probe lost | persisted, hung, stalled or panic", bomb_rows, bomb_test, "clean",
             ""),
            ("false-positive loads", "survived | lived, a probe lost | killed", fp_rows, fp_test, "killed",
             fp_note)):
        cells_p, seen = against_stock(test, tested)
        print()
        print(f"The {what}' runs by what came of them, swap settings together (the conclusive runs; "
              f"{CONFIDENCE:.0%} exact intervals); {tested} against stock's on the desktop:")
        print()
        print(f"| desktop | column | {head} | runs that say nothing | {tested} against stock |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(row + f" {p} |" for row, p in zip(rows_md, cells_p)))
        print()
        print(seen + note)


if __name__ == "__main__":
    main()
