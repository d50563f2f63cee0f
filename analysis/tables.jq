# Helpers of the jq that reads records (the paper); the
# report's tables are analysis/tables.py.

# The newest record of each cell: a retried lab-error is superseded.
def latest:
  to_entries | map(.value + {_i: .key})
  | group_by(.id) | map(max_by(._i) | del(._i));

def round2: if . == null then null else (. * 100 | round) / 100 end;
