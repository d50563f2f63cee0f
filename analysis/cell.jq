# A cell: a line of a run's plan.jsonl, and a record's .cell (lab/cells.py
# writes both; analysis/record.schema.json describes it).

# Its coordinates in tables, without the repetition: input a cell.
def coords:
  {workload: .workload.name, swap, kernel: .kernel.column, defence: .defence.name, desktop: .desktop.name};

# The coordinates of a record's cell.
def cell_of: .cell | coords;

