"""The records of run directories, without the statistics' numpy: shared by
compare, summary and discussion."""
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
