#!/usr/bin/python3
"""The lab's cell model: the registries read once, a cell resolved, a plan.

    cells.py plan [--builds | --summary | --matrix]
    cells.py kernel COLUMN | workload NAME | defence NAME | desktop NAME

Called by lab/plan and by lab/lib.sh's kernel_column_json, workload_json,
defence_json and desktop_json, which pass lab.conf and the experiment in the
environment (cells_py in lab/lib.sh names each variable). Every JSON line
goes through one jq at the end, so a plan is the bytes jq writes, the same
as before this module (plan_sha256 identifies a resumable run); builds and
ids are plain lines. Fields split on blanks (space, tab) as bash's read
does. Bad input: one line naming the problem and its file, exit 2.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.environ["LAB_ROOT"]
PROG = os.environ.get("PROG", "cells.py")


def setting(name, default=""):
    return os.environ.get(name, default)


class UsageError(Exception):
    pass


def usage_error(*words):
    raise UsageError(" ".join(words))


def blanks_split(text, most=-1):
    """text split on runs of spaces and tabs (bash's IFS on a read line)."""
    return re.split(r"[ \t]+", text.strip(" \t"), maxsplit=most if most > 0 else 0) if text.strip(" \t") else []


def words(value):
    """A list setting: words separated by spaces, tabs or commas."""
    return blanks_split((value or "").replace(",", " ").replace("\n", " "))


def rel(path):
    return path[len(ROOT) + 1:] if path.startswith(ROOT + "/") else path


def where(path, n=None):
    return rel(path) + (f":{n}" if n else "")


# Registries: .tab files of whitespace-separated fields, the last one the
# rest of the line; blank lines and comments skipped.
def registry_rows(path):
    # lines end at \n only, and a \r stays part of its line, as for awk
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        return [(n, line.removesuffix("\n")) for n, line in enumerate(f, 1)
                if not re.match(r"[ \t\r\f\v]*(#|$)", line.removesuffix("\n"))]


def registry_names(path):
    return " ".join(blanks_split(row)[0] for _, row in registry_rows(path))


def registry_row(path, name, what):
    for n, row in registry_rows(path):
        if blanks_split(row)[0] == name:
            return where(path, n), row
    usage_error(f"unknown {what} '{name}' ({where(path)} has: {registry_names(path)})")


def fields(row, n):
    """bash's read -r with n names: n-1 words and the rest of the line."""
    parts = blanks_split(row, n - 1)
    return parts + [""] * (n - len(parts))


# Builds: lab/builds.tab's rows as lab/lib.sh checked them (BUILD_ROWS).
BUILDS = {}
for _row in setting("BUILD_ROWS").splitlines():
    _variant, _of, _, _, _role = blanks_split(_row)
    BUILDS[_variant] = {"of": _of, "role": _role}
KNOWN_VARIANTS = " ".join(BUILDS)
LINUX_SOURCE = setting("LINUX_SOURCE", "")
LINUX_LINES = setting("LINUX_LINES", "")


def known_variant(build):
    if "@" in build:
        line = build.split("@", 1)[1]
        if line == LINUX_SOURCE or line not in LINUX_LINES.split():
            return False
    return build.split("@", 1)[0] in BUILDS


def build_field(build, name):
    return BUILDS[build.split("@", 1)[0]][name]


def build_flavour(build, role):
    """The flavour of build (VARIANT[@LINE]) with role, on the same line."""
    base = build.split("@", 1)[0]
    if build_field(base, "of") != "-":
        base = build_field(base, "of")
    at = build[len(build.split("@", 1)[0]):]
    for v, b in BUILDS.items():
        if b["of"] == base and b["role"] == role:
            return v + at
    return None


def number(name, text):
    """Setting name's value text as the number jq's --argjson made of it."""
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not re.fullmatch(r"-?[0-9.]+([eE][-+]?[0-9]+)?", text):
        usage_error(f"{name} must be a number, not '{text}'")
    return int(value) if value.is_integer() else value


def kernel_column(name):
    """A column of lab/kernels.tab: its build and sysctls. COLUMN@BUILD runs
    the column's sysctls on another flavour of its build (lca-2005@lca-debug),
    COLUMN@LINE on its build of another kernel line (lca-2005@6.12), and
    COLUMN@BUILD@LINE both."""
    on = name.split("@", 1)[1] if "@" in name else ""
    kline = ""
    m = re.search(r"(^|@)([0-9]+\.[0-9]+)$", on)
    if m:
        kline = m.group(2)
        on = on[:-len(kline)].removesuffix("@")
        if not known_variant("stock@" + kline):
            usage_error(f"kernel '{name}': '{kline}' is not another kernel line (default {LINUX_SOURCE};"
                        f" LINUX_LINES: {LINUX_LINES});", "to add one, name it in LINUX_LINES"
                        f" (lab/lab.conf) and run 'make deps' (linux-source-{kline})")
    reg = f"{ROOT}/lab/kernels.tab"
    line, row = registry_row(reg, name.split("@", 1)[0], "kernel")
    column, build, sysctls = fields(row, 3)
    if not known_variant(build):
        usage_error(f"{line}: unknown build '{build}' (lab/builds.tab: {KNOWN_VARIANTS})")
    if on:
        if not known_variant(on):
            usage_error(f"kernel '{name}': unknown build '{on}' (lab/builds.tab: {KNOWN_VARIANTS})")
        if on != build and build_field(on, "of") != build:
            usage_error(f"kernel '{name}': {on} is not a flavour of {column}'s build {build}")
        if on != build:
            column = name
        build = on
    if kline:
        column, build = name, f"{build}@{kline}"
    scale = number("DEBUG_TIME_SCALE", setting("DEBUG_TIME_SCALE")) if build_field(build, "role") == "debug" else 1
    for s in blanks_split(sysctls):
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_-]+)+=\S+", s):
            usage_error(f"{line}: '{s}' is not a sysctl setting (vm.name=value)")

    # a debug build's cell scales its time limits: the deadlines (lab/run-cell)
    # and the LCA pairing window, which the slower guest would outrun
    def scaled(s):
        m = re.fullmatch(r"vm\.oom_kill_lca_window_ms=([0-9]+)", s)
        return f"vm.oom_kill_lca_window_ms={number_text(int(m.group(1)) * scale)}" if m else s
    return {"column": column, "build": build,
            "sysctls": [scaled(s) for s in sysctls.split(" ") if s != ""], "time_scale": scale}


def number_text(x):
    """A number as jq writes it in a string (below 2^53, where jq's doubles
    are exact)."""
    return str(int(x)) if float(x).is_integer() else repr(x)


def header_value(key, path):
    """The value of a "lcalab-KEY: value" comment in file path."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        for text in f:
            m = re.match(rf"^.*lcalab-{key}:[ \t\r\f\v]*([^ \t\r\f\v\n]*)", text)
            if m:
                return m.group(1)
    return ""


def deadline_of(name, seconds):
    """A workload's deadline: DEADLINES (name=S,...) overrides seconds."""
    for pair in words(setting("DEADLINES")):
        if pair.split("=", 1)[0] == name:
            return pair.split("=", 1)[1]
    return seconds


def check_guard(src, line):
    """Exit 2 unless workload source src refuses to run outside a lab guest."""
    with open(src, encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        text = f.read()
    if src.endswith(".c") and "require_lab_guest(" in text:
        return
    blank, word = r"[ \t\r\f\v]", r"[^ \t\r\f\v\n]"
    if src.endswith(".sh") and re.search(rf"^{blank}*(\.|source){blank}+{word}*guard\.sh", text, re.M):
        return
    usage_error(f"{line}: {rel(src)} has no guest guard (a C workload calls require_lab_guest() from"
                " workloads/lcalab.h first thing, a shell one sources workloads/guard.sh): refused")


def workload(arg):
    """A workload: a name in workloads/workloads.tab, or a file of one's own
    (path/to/mybomb.c or .sh; its one deadline serves both swap settings)."""
    if "/" in arg or arg.endswith(".c") or arg.endswith(".sh"):
        try:
            src = os.path.realpath(arg, strict=True)
        except OSError:
            usage_error(f"no workload file '{arg}'")
        if not (src.endswith(".c") or src.endswith(".sh")):
            usage_error(f"{arg}: a workload file is a .c or a .sh")
        name = os.path.basename(src).rsplit(".", 1)[0]
        kind = setting("WORKLOAD_KIND") or header_value("kind", src)
        deadline = setting("WORKLOAD_DEADLINE") or header_value("deadline", src)
        if not kind:
            usage_error(f"{arg}: no kind: give WORKLOAD_KIND=bomb|false-positive or a 'lcalab-kind: bomb' comment")
        if not deadline:
            usage_error(f"{arg}: no deadline: give WORKLOAD_DEADLINE=S or a 'lcalab-deadline: S' comment")
        swap_deadline, line, program, args = deadline, "WORKLOADS", src, ""
        guest = "/lab/files/" + os.path.basename(src).removesuffix(".c")
    else:
        reg = f"{ROOT}/workloads/workloads.tab"
        line, row = registry_row(reg, arg, "workload")
        name, kind, deadline, swap_deadline, program, args = fields(row, 6)
        if not program:
            usage_error(f"{line}: a workload line wants name, kind, two deadlines (off, on) and program")
        src = f"{ROOT}/{program}"
        if not os.path.isfile(src):
            usage_error(f"{line}: no file {program}")
        if program.endswith(".c"):
            guest = "/lab/bin/" + os.path.basename(program).removesuffix(".c")
        elif program.endswith(".sh"):
            guest = "/lab/workloads/" + program.removeprefix("workloads/")
        else:
            usage_error(f"{line}: {program} is not a .c or a .sh")
    if kind not in ("bomb", "false-positive"):
        usage_error(f"{line}: unknown kind '{kind}' (bomb, false-positive)")
    if not re.fullmatch(r"[1-9][0-9]*", deadline):
        usage_error(f"{line}: the deadline wants whole seconds, not '{deadline}'")
    if not re.fullmatch(r"[1-9][0-9]*", swap_deadline):
        usage_error(f"{line}: the swap deadline wants whole seconds, not '{swap_deadline}'")
    check_guard(src, line)
    with open(src, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()[:16]
    return {"name": name, "kind": kind, "deadline_s": int(deadline_of(name, deadline)),
            "swap_deadline_s": int(deadline_of(name, swap_deadline)),
            "program": program.removeprefix(ROOT + "/"), "sha256": sha, "guest_path": guest,
            "args": [a for a in args.split(" ") if a != ""], "own": program.startswith("/")}


def jq_holds(program):
    """Whether jq -n -e program compiles and its last output is true."""
    return subprocess.run(["jq", "-n", "-e", program], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def defence(arg):
    """A defence of workloads/defences.tab: hook, parameter, acted rule."""
    reg = f"{ROOT}/workloads/defences.tab"
    line, row = registry_row(reg, arg, "defence")
    name, label, hook, param, acted = fields(row, 5)
    if not acted:
        usage_error(f"{line}: a defence line wants name, label, hook, param and an acted rule")
    if hook != "-" and not os.path.isfile(f"{ROOT}/workloads/defences/{hook}"):
        usage_error(f"{line}: no hook workloads/defences/{hook}")
    if not jq_holds(f"def acted: {acted}; true"):
        usage_error(f"{line}: the acted rule is not a jq expression: {acted}")
    return {"name": name, "label": label, "hook": None if hook == "-" else f"/lab/workloads/defences/{hook}",
            "param": None if param == "-" else param, "acted": acted}


def desktop(arg):
    """A desktop of workloads/desktops.tab, as a cell's JSON."""
    reg = f"{ROOT}/workloads/desktops.tab"
    line, row = registry_row(reg, arg, "desktop")
    name, shape, browser, session, what = fields(row, 5)
    if not what:
        usage_error(f"{line}: a desktop line wants name, shape, browser MB, session and what it is")
    if shape not in ("flat", "article"):
        usage_error(f"{line}: unknown shape '{shape}' (flat, article)")
    if not re.fullmatch(r"[0-9]+", browser):
        usage_error(f"{line}: the browser wants whole MB, not '{browser}'")
    if session not in ("lab", "systemd"):
        usage_error(f"{line}: unknown session '{session}' (lab, systemd)")
    return {"name": name, "shape": shape, "browser_mb": int(browser), "session": session, "what": what}


def check_clocks(setting, value):
    for clock in blanks_split(value):
        if clock not in ("wall", "icount"):
            usage_error(f"unknown clock '{clock}' in {setting} (wall, icount)")


def duplicates(names):
    return " ".join(sorted({n for n in names if names.count(n) > 1}))


def is_size(text):
    return subprocess.run(["numfmt", "--from=iec", text], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def positive(name):
    value = setting(name, "")
    if not re.fullmatch(r"[1-9][0-9]*", value):
        usage_error(f"{name} must be a positive number, not '{value}'")
    return int(value)


def overhead_plan(mode):
    """An overhead experiment (lab/experiments/overhead.conf): pahole,
    forkbench and oomcost cells."""
    rounds_text = setting("OVERHEAD_ROUNDS", "")
    if not re.fullmatch(r"0|[1-9][0-9]*", rounds_text):
        usage_error(f"OVERHEAD_ROUNDS must be a number, not '{rounds_text}'")
    rounds = int(rounds_text)
    n = {v: positive(v) for v in (
        "OOMCOST_REPS", "LCA_FIELDS_BYTES", "BOOTSTRAP_RESAMPLES", "OVERHEAD_MIN_BOOTS", "OOMCOST_TARGET_US",
        "OVERHEAD_SPAWNS", "OVERHEAD_HYPERFINE_RUNS", "OVERHEAD_BOOT_TIMEOUT", "OOMCOST_BOOT_TIMEOUT")}
    iterations = setting("OVERHEAD_ITERATIONS", "")
    if not re.fullmatch(r"[1-9][0-9]+", iterations):
        usage_error(f"OVERHEAD_ITERATIONS must be at least 10, not '{iterations}'")
    clocks, oom_clocks = setting("OVERHEAD_CLOCKS", ""), setting("OOMCOST_CLOCKS", "")
    check_clocks("OVERHEAD_CLOCKS", clocks)
    check_clocks("OOMCOST_CLOCKS", oom_clocks)
    shapes = blanks_split(setting("OOMCOST_SHAPES"))
    for shape in shapes:
        if not re.fullmatch(r"(tree|chain):[1-9][0-9]*(x[1-9][0-9]*)?", shape):
            usage_error(f"bad population '{shape}' in OOMCOST_SHAPES (tree:N or chain:D, then xREPS or nothing)")
    for v in ("OVERHEAD_KERNELS", "OVERHEAD_CLOCKS", "OOMCOST_KERNELS", "OOMCOST_SHAPES", "OOMCOST_CLOCKS"):
        dup = duplicates([re.sub(r"x[0-9]*$", "", w) for w in words(setting(v))])
        if dup:
            usage_error(f"'{dup}' is named twice in {v}")
    mem = setting("OOMCOST_MEM", "")
    if not is_size(mem):
        usage_error(f"OOMCOST_MEM '{mem}' is not a size (e.g. 8G)")
    kernels = words(setting("OVERHEAD_KERNELS"))
    col = {k: kernel_column(k) for k in kernels}
    # the OOM decision is timed on the trace flavour (lab/builds.tab) of each
    # column's build (lca, lca@6.12), or on the flavour the column names
    # (lca@lca-debug)
    oom_kernels = words(setting("OOMCOST_KERNELS"))
    oom_col = {}
    for k in oom_kernels:
        c = kernel_column(k)
        trace = c["build"]
        flavour = k.split("@", 1)[1] if "@" in k else ""
        if re.fullmatch(r"([0-9]+\.[0-9]+)?", flavour):
            trace = build_flavour(trace, "trace")
            if trace is None:
                usage_error(f"OOMCOST_KERNELS: column '{k}' has no trace flavour (lab/builds.tab: {KNOWN_VARIANTS})")
        oom_col[k] = dict(c, build=trace)

    def cells():
        # the layout of each build whose fork cost is measured (none at 0 rounds)
        if rounds:
            for b in sorted({col[k]["build"] for k in kernels}):
                yield {"type": "pahole", "id": f"pahole-{b}", "key": f"pahole {b}", "build": b}
        for rnd in range(1, rounds + 1):
            for clock in blanks_split(clocks):
                # rotate the order each round: ABC, BCA, CAB
                for j in range(len(kernels)):
                    k = col[kernels[(j + rnd) % len(kernels)]]
                    yield {"type": "forkbench", "id": f"{rnd}-{clock}-{k['column']}",
                           "key": f"forkbench {clock} {k['column']}", "round": rnd, "clock": clock,
                           "kernel": k, "timeout_s": n["OVERHEAD_BOOT_TIMEOUT"],
                           "params": {"iterations": int(iterations), "spawns": n["OVERHEAD_SPAWNS"],
                                      "hyperfine_runs": n["OVERHEAD_HYPERFINE_RUNS"]}}
        i = 0
        for shape in shapes:
            reps = n["OOMCOST_REPS"]
            if "x" in shape:
                shape, reps = shape.split("x")[0], int(shape.split("x")[1])
            for clock in blanks_split(oom_clocks):
                # rotate the columns' order from one population to the next
                for j in range(len(oom_kernels)):
                    k = oom_col[oom_kernels[(j + i // len(oom_kernels)) % len(oom_kernels)]]
                    i += 1
                    yield {"type": "oomcost", "id": f"oom-{shape.replace(':', '-', 1)}-{clock}-{k['column']}",
                           "key": f"oomcost {shape} {clock} {k['column']}", "shape": shape, "clock": clock,
                           "kernel": k, "timeout_s": n["OOMCOST_BOOT_TIMEOUT"],
                           "params": {"reps": reps, "mem": mem}}

    if mode == "summary":
        print_lines(c["id"] for c in cells())
    elif mode == "builds":
        print_lines(sorted({c["kernel"]["build"] if "kernel" in c else c["build"] for c in cells()}))
    elif mode == "matrix":
        emit([{"type": "overhead", "kernels": kernels, "clocks": blanks_split(clocks), "rounds": rounds,
               "oomcost_kernels": oom_kernels, "oomcost_clocks": blanks_split(oom_clocks),
               "shapes": [re.sub(r"x[0-9]+$", "", s) for s in shapes], "oomcost_reps": n["OOMCOST_REPS"],
               "lca_fields_bytes": n["LCA_FIELDS_BYTES"], "bootstrap_resamples": n["BOOTSTRAP_RESAMPLES"],
               "min_boots": n["OVERHEAD_MIN_BOOTS"], "oomcost_target_us": n["OOMCOST_TARGET_US"]}])
    else:
        emit(cells())


def shuffled(items, seed):
    """items in GNU shuf's order with the random source lab/plan has always
    given it (the plan's order is part of a run's identity): shuf's
    permutation depends on the number of lines alone."""
    out = subprocess.run(["bash", "-c", 'shuf --random-source=<(yes "$1")', "shuf", seed],
                         input="".join(f"{i}\n" for i in range(len(items))), capture_output=True, text=True,
                         check=True)
    return [items[int(i)] for i in out.stdout.split()]


def survival_plan(mode, experiment):
    """A survival experiment: every (rep, workload, swap, kernel column,
    defence, desktop) cell resolved, in run order."""
    kernels, swaps, workloads = words(setting("KERNELS")), words(setting("SWAP")), words(setting("WORKLOADS"))
    defences, desktops = words(setting("DEFENCES")), words(setting("DESKTOPS") or "flat")
    if not (kernels and swaps and workloads and defences and desktops):
        usage_error("empty matrix: KERNELS, SWAP, WORKLOADS, DEFENCES and DESKTOPS need a value each")
    reps_text, seed_text, pairing = setting("REPS", ""), setting("RUN_SEED", ""), setting("PAIRING", "")
    if not re.fullmatch(r"[1-9][0-9]*", reps_text):
        usage_error(f"REPS must be a positive number, not '{reps_text}'")
    if not re.fullmatch(r"[0-9]+", seed_text):
        usage_error(f"RUN_SEED must be a number, not '{seed_text}'")
    if pairing not in ("cross", "cyclic"):
        usage_error(f"unknown PAIRING '{pairing}' (cross, cyclic)")
    cells_where = setting("CELLS_WHERE", "")
    if cells_where and not jq_holds(f'{{swap: "off", kernel: {{}}, workload: {{}}, defence: {{}}, desktop: {{}}}}'
                                    f' | ({cells_where}) | type == "boolean"'):
        usage_error(f"CELLS_WHERE is not a jq condition on a cell: '{cells_where}'")
    for s in swaps:
        if s not in ("off", "on"):
            usage_error(f"unknown swap setting '{s}' (off, on)")
    for name, names in (("KERNELS", kernels), ("SWAP", swaps), ("DEFENCES", defences), ("DESKTOPS", desktops)):
        dup = duplicates(names)
        if dup:
            usage_error(f"'{dup}' is named twice in {name}")
    deadlines = words(setting("DEADLINES"))
    for pair in deadlines:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+=[1-9][0-9]*", pair):
            usage_error(f"DEADLINES wants name=seconds, not '{pair}'")

    kernel_of = {k: kernel_column(k) for k in kernels}
    defence_of = {d: defence(d) for d in defences}
    desktop_of = {d: desktop(d) for d in desktops}
    workload_of, names = {}, []
    for w in workloads:
        resolved = workload(w)
        if resolved["name"] in workload_of:
            usage_error(f"two workloads are called '{resolved['name']}'")
        workload_of[resolved["name"]] = resolved
        names.append(resolved["name"])
    for pair in deadlines:
        if pair.split("=", 1)[0] not in workload_of:
            usage_error(f"DEADLINES names '{pair.split('=', 1)[0]}', which is not in WORKLOADS")

    clock = setting("SURVIVAL_CLOCK", "")
    check_clocks("SURVIVAL_CLOCK", clock)
    if len(blanks_split(clock)) != 1:
        usage_error(f"SURVIVAL_CLOCK is one clock (wall, icount), not '{clock}'")
    # under icount one vCPU (lab/boot --icount)
    guest = {"mem": setting("GUEST_MEM"), "swap_size": setting("GUEST_SWAP"), "clock": clock}
    for key, name in (("cpus", "GUEST_CPUS"), ("threads_max", "RUN_THREADS_MAX"), ("nproc", "RUN_NPROC"),
                      ("quiet_s", "QUIET_S"), ("margin_s", "RUN_MARGIN_S")):
        guest[key] = number(name, setting(name))
    if clock == "icount":
        guest.update(icount=setting("SURVIVAL_ICOUNT"), cpus=1)

    if mode == "builds":
        print_lines(sorted({kernel_of[k]["build"] for k in kernels}))
        return
    if mode == "matrix":
        matrix = {"type": "survival", "kernels": kernels, "swap": swaps, "workloads": names,
                  "defences": defences, "desktops": desktops, "reps": int(reps_text), "seed": int(seed_text)}
        if pairing != "cross":
            matrix["pairing"] = pairing
        if cells_where:
            matrix["cells_where"] = cells_where
        emit([matrix])
        return

    # The blocks of a repetition, (workload, swap, defence, desktop, K: the
    # kernel's index under PAIRING=cyclic), in the experiment's order.
    blocks = [(w, s, d, e, (wi + si) % len(kernels))
              for wi, w in enumerate(names) for si, s in enumerate(swaps) for d in defences for e in desktops]
    # Run order: in each repetition the blocks come in a seeded shuffle and
    # the kernels of a block alternate direction (ABBA), so host drift
    # favours no side. PAIRING=cyclic runs one kernel per block instead:
    # the Nth workload with the Mth swap setting gets kernel (N + M) mod K,
    # so with as many kernels as workloads each kernel and each workload
    # run once per swap setting.
    cells, i = [], 0
    for rep in range(1, int(reps_text) + 1):
        for w, s, d, e, k in shuffled(blocks, f"{seed_text}.{rep}"):
            columns = kernels if pairing == "cross" else [kernels[k]]
            for k in columns[::-1] if i % 2 else columns:
                wl = dict(workload_of[w])
                swap_deadline = wl.pop("swap_deadline_s")
                if s == "on":
                    wl["deadline_s"] = swap_deadline
                cell = {"type": "survival", "experiment": experiment, "rep": rep, "seed": int(seed_text), "workload": wl,
                        "swap": s, "kernel": kernel_of[k], "defence": defence_of[d], "desktop": desktop_of[e],
                        "guest": guest}
                cells.append(with_identity(cell))
            i += 1
    emit(cells, cells_where or "true", summary=(mode == "summary"))


def with_identity(cell):
    """A cell's key (its label in tables) and id (its directory)."""
    desk = "" if cell["desktop"]["name"] == "flat" else " " + cell["desktop"]["name"]
    w, k, d = cell["workload"]["name"], cell["kernel"]["column"], cell["defence"]["name"]
    cell["key"] = f"{w} {cell['swap']} {k} {d}{desk}"
    cell["id"] = (f"{cell['rep']}-{w}-{cell['swap']}-{k}" + ("" if d == "none" else f"-{d}")
                  + desk.replace(" ", "-", 1))
    return cell


def print_lines(lines):
    for line in lines:
        print(line)


def emit(objects, where="true", summary=False):
    """Write objects as jq -c does, those that meet jq condition where (a
    summary: "rep key" of each)."""
    program = f"select({where})" + (' | "\\(.rep) \\(.key)"' if summary else "")
    data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)
    sys.stdout.flush()
    done = subprocess.run(["jq", "-r" if summary else "-c", program], input=data, text=True)
    if done.returncode:
        sys.exit(done.returncode)


def plan(mode):
    experiment = setting("EXPERIMENT_FILE")
    if setting("TYPE") == "overhead":
        overhead_plan(mode)
    elif setting("TYPE") == "survival":
        name = os.path.basename(experiment)
        survival_plan(mode, name.removesuffix(".conf") if name != ".conf" else name)
    else:
        usage_error(f"{experiment}: unknown TYPE '{setting('TYPE')}' (survival, overhead)")


def main(argv):
    what = argv[1] if len(argv) > 1 else ""
    try:
        if what == "plan":
            mode = {None: "plan", "": "plan", "--builds": "builds", "--summary": "summary", "--matrix": "matrix"}
            arg = argv[2] if len(argv) > 2 else None
            if arg not in mode:
                usage_error("usage: lab/plan [--builds | --summary | --matrix]")
            plan(mode[arg])
            return 0
        resolve = {"kernel": kernel_column, "workload": workload, "defence": defence, "desktop": desktop}
        if what not in resolve or len(argv) != 3:
            usage_error("usage: cells.py plan [MODE] | kernel|workload|defence|desktop NAME")
        emit([resolve[what](argv[2])])
        return 0
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
