#!/usr/bin/python3
"""Check run directories: analysis/checkrun.py PROG DIR...

analysis/lib.sh's check_run_dir, for every directory in one process: each
DIR has a meta.json of this lab's schema (analysis/record.schema.json's
version), a plan.jsonl, and a runs.jsonl whose records all follow the
schema (an overhead run's: analysis/overhead.schema.json, which holds the
overhead programs' lines) and each ran a cell of
the plan exactly as planned. The first problem is printed as
"PROG: error: PROBLEM" (schema violations above it, one line each) and the
exit status is 1; 0 when every directory passes.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "record.schema.json")
# an overhead run's records, the overhead programs' lines in them
OVERHEAD_SCHEMA = os.path.join(HERE, "overhead.schema.json")


def same(a, b):
    """JSON equality as jq has it: 1 and 1.0 are equal, true and 1 are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return a == b


def json_stream(path):
    """The JSON values of a file, whatever whitespace lies between them (jq
    --slurpfile's reading); ValueError when one is not JSON."""
    decoder, values = json.JSONDecoder(), []
    with open(path) as f:
        text = f.read()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        values.append(value)


def as_jq(value):
    """A value as jq -r prints it: a string raw, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def where(error):
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


NOT_JSON = object()


def json_lines(path):
    """Each line of PATH as (its number, its value), NOT_JSON for a line that is none."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                yield n, json.loads(line)
            except ValueError:
                yield n, NOT_JSON


def violations(schema, path):
    """Each line of PATH that is not JSON or breaks SCHEMA, as FILE:LINE: problem."""
    from jsonschema import Draft202012Validator  # half the time of a check: only where needed
    validator = Draft202012Validator(schema)
    for n, record in json_lines(path):
        if record is NOT_JSON:
            yield f"{path}:{n}: not JSON"
            continue
        for error in sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path)):
            yield f"{path}:{n}: record{where(error)}: {error.message}"


def plan_problem(run_dir):
    try:
        cells = json_stream(f"{run_dir}/plan.jsonl")
    except ValueError:
        return f"{run_dir}/plan.jsonl is not JSON Lines"
    if not cells:
        return f"{run_dir}/plan.jsonl has no cell"
    plan = {cell["id"]: cell for cell in cells if isinstance(cell, dict) and "id" in cell}
    for n, record in json_lines(f"{run_dir}/runs.jsonl"):
        rid = record.get("id") if isinstance(record, dict) else None
        if rid not in plan:
            return f"{run_dir}/runs.jsonl:{n}: record {as_jq(rid)} is not in the plan (records of another plan)"
        if not same(plan[rid], record.get("cell")):
            return f"{run_dir}/runs.jsonl:{n}: record {as_jq(rid)} ran another cell than the plan has (records of another plan)"
    return None


def problem(run_dir, schema):
    if not os.path.isfile(f"{run_dir}/meta.json"):
        return f"{run_dir}/meta.json is missing: not a run directory"
    if not os.path.isfile(f"{run_dir}/runs.jsonl"):
        return f"{run_dir}/runs.jsonl is missing: the run has no records yet"
    try:
        with open(f"{run_dir}/meta.json") as f:
            meta = json.load(f)
    except ValueError:
        return f"{run_dir}/meta.json is not JSON"
    if not isinstance(meta, dict) or not isinstance(meta.get("matrix"), dict):
        return f"{run_dir}/meta.json is not a run's meta (an object with a matrix)"
    want = schema["properties"]["schema"]["const"]
    if meta.get("schema") != want:
        return f"{run_dir} was written by schema {as_jq(meta.get('schema'))}; this lab reads {want} (lab/migrate {run_dir})"
    if not os.path.isfile(f"{run_dir}/plan.jsonl"):
        return f"{run_dir}/plan.jsonl is missing: not a run directory of this schema"
    if meta["matrix"].get("type") == "overhead":
        with open(OVERHEAD_SCHEMA) as f:
            schema = json.load(f)
    bad = list(violations(schema, f"{run_dir}/runs.jsonl"))
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return f"{run_dir}/runs.jsonl has records that do not follow the schema (above)"
    return plan_problem(run_dir)


def die(prog, message):
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(1)


def require(prog, dirs, survival=False, status=1):
    """Exit with STATUS, the problem named, unless every DIR passes; with
    SURVIVAL, unless every one is a survival run too."""
    if main(["checkrun", prog] + list(dirs)) != 0:
        sys.exit(status)
    for run_dir in dirs if survival else ():
        if read_meta(run_dir)["matrix"].get("type") != "survival":
            die(prog, f"{run_dir} is not a survival run")


def read_meta(run_dir):
    with open(f"{run_dir}/meta.json") as f:
        return json.load(f)


def read_run(run_dir):
    """A checked run directory's meta.json, plan and records, as jq reads them."""
    return read_meta(run_dir), json_stream(f"{run_dir}/plan.jsonl"), json_stream(f"{run_dir}/runs.jsonl")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: analysis/checkrun.py PROG DIR...\n")
        return 2
    with open(SCHEMA) as f:
        schema = json.load(f)
    for run_dir in argv[2:]:
        bad = problem(run_dir, schema)
        if bad:
            print(f"{argv[1]}: error: {bad}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
