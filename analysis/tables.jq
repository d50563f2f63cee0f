include "outcome";
include "cell";

# Tables from a run's records. Input of each def: the array of records;
# $meta is the run's meta.json (the matrix's lists, in the experiment's
# order), $plan its plan.jsonl (every cell, resolved).

# The newest record of each cell: a retried lab-error is superseded.
def latest:
  to_entries | map(.value + {_i: .key})
  | group_by(.id) | map(max_by(._i) | del(._i));

def median:
  sort | if length == 0 then null
         elif length % 2 == 1 then .[length / 2 | floor]
         else (.[length / 2 - 1] + .[length / 2]) / 2 end;

def round1: if . == null then null else (. * 10 | round) / 10 end;
def round2: if . == null then null else (. * 100 | round) / 100 end;

def defences($meta): $meta.matrix.defences;

def desktops($meta): $meta.matrix.desktops;

# The run's columns, in the experiment's order (a table per desktop and
# swap setting names those in its title).
def columns($meta):
  [desktops($meta)[] as $e | $meta.matrix.swap[] as $s | defences($meta)[] as $d | $meta.matrix.kernels[] as $k
   | {swap: $s, kernel: $k, defence: $d, desktop: $e}];

def col_label: "\(.kernel)\(if .defence == "none" then "" else "+" + .defence end)";

def header($cols; $first):
  "| \($first) | " + ($cols | map(col_label) | join(" | ")) + " |",
  "|---|" + ($cols | map("---") | join("|")) + "|";

def column_cell($w; $c): {workload: $w} + ($c | {swap, kernel, defence, desktop});
def in_cell($w; $c): column_cell($w; $c) as $k | map(select(cell_of == $k));

# A cell's outcomes as proportions of its conclusive runs, each with its
# exact 95% interval ($ci: analysis/stats ci), then the runs that say
# nothing (inconclusive, lab-error) and what is missing:
# "2/2 persists (15.8–100%); 1 inconclusive".
def outcome_counts($reps; $ci):
  length as $n
  | map(select(conclusive)) as $c | ($c | length) as $m
  | (map(select(conclusive | not)) | group_by(.outcome) | map("\(length) \(.[0].outcome)") | join(", ")) as $other
  | if $n == 0 then "missing"
    elif $m == 0 then "no conclusive run (\($other))"
    else ($c | group_by(.outcome) | map({o: .[0].outcome, k: length}) | sort_by(-.k, .o)
          | map($ci["\(.k)/\($m)"] as [$lo, $hi] | "\(.k)/\($m) \(.o) (\($lo)–\($hi)%)") | join(", "))
         + (if $other != "" then "; \($other)" else "" end)
    end
  + (if $n > 0 and $n < $reps then " (\($reps - $n) missing)" else "" end);

def ms_to_s: if . == null then null else . / 1000 end;
def seconds: if . == null then "–" else "\(round1) s" end;

# "k/n (lo–hi%)": a proportion with its exact 95% interval ($ci: analysis/stats ci).
def share_of($k; $n; $ci):
  "\($k)/\($n)" + ($ci["\($k)/\($n)"]
    | if . == null then error("no interval for \($k)/\($n): analysis/stats ci was given too small an N") else . end
    | " (\(.[0])–\(.[1])%)");

def survival_cell($reps; $ci):
  outcome_counts($reps; $ci)
  + (map(select(.gone == true and .cell.workload.kind == "bomb") | .t_gone_s) | median
     | if . == null then "" else "; gone in \(seconds) (median)" end);

# The probes lost over a cell's runs, each with the causes of its deaths
# where the records name them (probe_deaths): "browser 3/3 (oom-kill 3)".
def collateral_cell($reps; $ci):
  length as $n
  | [.[].probe_deaths[]? | {name, cause: (.cause | sub(" of [0-9]+$"; ""))}] as $deaths
  | def causes($p): $deaths | map(select(.name == $p) | .cause) | group_by(.) | map("\(.[0]) \(length)") | join(", ")
      | if . == "" then "" else " (\(.))" end;
  if $n == 0 then "missing" else
      ([.[].probes_lost[]] | group_by(.) | map("\(.[0]) \(share_of(length; $n; $ci))\(causes(.[0]))") | join(", ")
       | if . == "" then "none" else . end)
      + (map(select(.terminal_lost)) | length | if . > 0 then "; terminal \(share_of(.; $n; $ci))" else "" end)
      + "; gap \(map(.max_probe_gap_ms // empty) | median | ms_to_s | seconds)"
      + " (max \(map(.max_probe_gap_ms // empty) | max | ms_to_s | seconds))"
    end;

def kills_cell($reps; $ci):
  if length == 0 then "missing" else
    "\(map(.oom_kills // empty) | median) OOM / \(map(.lca_killed) | median) LCA"
  end;

# The items of the input grouped by f, in order of first appearance.
def groups_in_order(f):
  reduce .[] as $x ([]; (map(.[0] | f) | index([$x | f])) as $i
    | if $i == null then . + [[$x]] else .[$i] += [$x] end);

# A run's columns as tables of at most max_columns: one per desktop and
# swap setting, split by defence where wider, and wider ones by then in
# pieces ({cols, by_defence}).
def max_columns: 6;
def column_tables:
  groups_in_order([.desktop, .swap])[]
  | if length <= max_columns then {cols: ., by_defence: false}
    else groups_in_order(.defence)[] | . as $d
      | range(0; length; max_columns) | {cols: $d[.:. + max_columns], by_defence: true} end;

def table_title:
  .cols[0] as $c
  | "*\($c.desktop), swap \($c.swap)"
    + (if .by_defence then ", " + (if $c.defence == "none" then "no defence" else $c.defence end) else "" end) + "*";

# A table per column_tables of the $workloads' rows. A cell the plan does
# not have (PAIRING=cyclic runs one kernel per workload and swap setting)
# is "–"; one it has without a record, "missing"; a column in which the
# plan has no cell of these workloads is left out.
def table($meta; $plan; $workloads; cell):
  . as $recs
  | ($plan | map(coords) | map(select(.workload as $w | $workloads | index([$w])))) as $planned
  | [columns($meta)[] | . as $c | select(any($planned[]; . == column_cell(.workload; $c)))]
  | [column_tables] | to_entries[] | .key as $i | .value as $t
  | (if $i > 0 then "" else empty end),
    ($t | table_title), "",
    header($t.cols; "workload"),
    ($workloads[] as $w
     | "| \($w) | " + ($t.cols | map(. as $c | column_cell($w; $c) as $k
         | if any($planned[]; . == $k) then $recs | in_cell($w; $c) | cell else "–" end) | join(" | ")) + " |");

# The matrix's workloads of a kind, as the plan resolved them.
def of_kind($meta; $plan; $kind):
  ($plan | map(select(.workload.kind == $kind) | .workload.name)) as $k
  | $meta.matrix.workloads | map(select(. as $w | $k | index($w)));
def bombs($meta; $plan): of_kind($meta; $plan; "bomb");
def false_positives($meta; $plan): of_kind($meta; $plan; "false-positive");
def workloads($meta; $plan): $meta.matrix.workloads;

def lab_errors:
  map(select(.outcome == "lab-error"))
  | if length == 0 then "None."
    else .[] | "- \(.id): \(.outcome_reason)" end;

# The first OOM victims over a cell's runs, by name, with the median of
# their resident memory: "probe 2/3 (64 MB), none 1/3"; a bomb member or a
# known desktop probe says so.
def victim_cell($reps; $ci):
  length as $n
  | if $n == 0 then "missing"
    else map(.first_victim | {v: (if . == null then "none"
               else .comm + (if .bomb_member then " (bomb member)" elif .probe != null then " (\(.probe))" else "" end) end),
             kb: (.anon_rss_kb // null)})
         | group_by(.v) | map({v: .[0].v, k: length, mb: (map(.kb // empty) | median)}) | sort_by(-.k, .v)
         | map("\(.v) \(share_of(.k; $n; $ci))" + (if .mb == null then "" else ", \(.mb / 1024 | round) MB" end)) | join("; ")
    end;

# Who acted, over a cell's runs: "lca 3/3, oom-killer 3/3".
def acted_cell($reps; $ci):
  length as $n
  | if $n == 0 then "missing"
    else [.[].acted[]] | group_by(.) | map("\(.[0]) \(share_of(length; $n; $ci))") | join(", ")
         | if . == "" then "nobody" else . end
    end;

# A run's plan in words (input: its cells), once for the report and the paper.
def plan_columns:
  map(.kernel // empty | "\(.column) = \(.build)" + (if (.sysctls | length) > 0 then " + " + (.sysctls | join(" ")) else "" end))
  | unique | join("; ");
def plan_desktops: map(.desktop | "\(.name) = \(.what)") | unique | join("; ");
# "a 120 s (swap off), 600 s (swap on); tar 30 s": one number where the swap settings share it.
def plan_deadlines:
  group_by(.workload.name)
  | map("\(.[0].workload.name) "
        + (if (map(.workload.deadline_s) | unique | length) == 1 then "\(.[0].workload.deadline_s) s"
           else group_by(.swap) | map("\(.[0].workload.deadline_s) s (swap \(.[0].swap))") | join(", ") end))
  | join("; ");

# The conditions a survival run's numbers hold under, one line (input:
# its records; $plan its plan lines, $meta its meta.json): the builds,
# desktops, repetitions, deadlines and the guest's clock.
def run_conditions($plan; $meta):
  (map(.cell.guest | "\(.clock)\(if .icount then " (\(.icount))" else "" end), \(.cpus) vCPU\(if .cpus == 1 then "" else "s" end)") | unique) as $clocks
  | "builds " + (map("\(.series_hash) (config \(.config_hash), Linux \(.kernel_version))") | unique | join(", "))
    + "; desktops " + ($plan | map(.desktop.name) | unique | join(", "))
    + "; \($meta.matrix.reps) repetition\(if $meta.matrix.reps == 1 then "" else "s" end)"
    + "; deadlines [" + ($plan | plan_deadlines) + "]"
    + "; clock " + ($clocks | join(" and ")) + " under \($meta.accel)";

# The paper's threat from the guest's clock, over a run's records: what
# its clock follows (never mixed in a run; several are named as such).
def clock_threat:
  (map(.cell.guest | {clock, icount}) | unique) as $g
  | "**The guest's clock.** "
    + if ($g | length) == 0 then "No run has a record, so none names its clock."
      elif ($g | map(.clock) | unique | length) > 1 then
        "The runs used several clocks; their times are not on one scale."
      elif $g[0].clock == "wall" then
        "It was the host's (`SURVIVAL_CLOCK=wall`):\n  a slower or busier host gives a workload fewer instructions per guest\n"
        + "  second, and its events come later (`make clock-check`)."
      else
        "It counted instructions (QEMU\n  `-icount \($g | map(.icount) | unique | join(", "))`; the conditions give its vCPUs), "
        + "so the guest's\n  compute-bound phases do not follow the host's speed or load (`make\n  clock-check`)."
        + if all($g[]; .icount // "" | contains("sleep=off")) then ""
          else "\n  While the guest is idle its time passes at the host's pace (QEMU's\n"
            + "  sleep=on), so phases that wait follow the host's I/O and load, above all\n"
            + "  a guest thrashing on swap, which mostly waits for its disk. Compare\n  swap-on times within one run only."
          end
      end;

# What an overhead run's ratios conclude, a line per clock and variant:
# the share of its process-path ratios (forkbench, the shell loop, perf's
# counts) distinguishable from 1, the range their intervals allow, and its
# OOM decisions' ratios. Input: analysis/overhead's "ratio" lines.
def overhead_conclusion:
  def pct: (. - 1) * 1000 | round / 10;
  def x: . * 100 | round / 100;
  group_by([.clock, .variant])[]
  | map(select(.mode | startswith("oom-") | not)) as $paths | map(select(.mode | startswith("oom-"))) as $oom
  | ($paths | map(select(.ci_low != null))) as $iv
  | "- \(.[0].variant) against \(.[0].base) (\(.[0].clock)): "
    + (if ($paths | length) == 0 then "no process-path figure measured"
       else "on the paths every process takes (\($paths | map(.mode) | unique | join(", "))), "
         + "\($paths | map(select(.distinguishable)) | length) of \($paths | length) ratios are distinguishable from 1; "
         + (if ($iv | length) == 0 then "none has an interval (too few boots)"
            else "their 95% intervals run from \($iv | map(.ci_low) | min | pct)% to \($iv | map(.ci_high) | max | pct)%, "
              + "so the series costs these paths at most \($iv | map(.ci_high) | max | pct)%"
              + (if ($iv | length) < ($paths | length) then " (\(($paths | length) - ($iv | length)) without an interval)" else "" end) end) end)
    + (if ($oom | length) == 0 then "."
       else "; its OOM decisions take \($oom | map(.ratio) | min | x)x to \($oom | map(.ratio) | max | x)x the base's time "
         + "(\($oom | map(select(.distinguishable)) | length) of \($oom | length) distinguishable)." end);
