"""The records of run directories and their columns' baseline, without the
statistics' numpy: shared by compare, summary and discussion."""
import json


def read_records(side):
    """The latest record of each cell repetition (a resumed run appends) of
    each run directory of a side (DIR or DIR+DIR...)."""
    records = []
    for run in side.split("+"):
        latest = {}
        with open(f"{run}/runs.jsonl") as f:
            for line in f:
                r = json.loads(line)
                if r.get("outcome") is not None:
                    latest[r["id"]] = r
        records += latest.values()
    return records


def baseline(column):
    """The stock column without a defence of a column's kernel line:
    lca@6.12+pids -> stock@6.12."""
    line = column.split("+")[0].partition("@")[2]
    return "stock" + (f"@{line}" if line else "")
