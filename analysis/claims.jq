# The article's claims, checked against a run's records (input: the
# array of latest records of one desktop) for one policy column $lca (the
# first claim is the stock kernel's). Each claim: {claim, source, rule,
# verdict, evidence}; verdict is reproduced, not reproduced, partly, not
# shown, not measured, or inconclusive; rule says how, in words, from the
# thresholds below. A verdict rests on the conclusive runs only (outcome.jq
# conclusive), but for the swap claim, which is about the desktop while
# swap fills (a run in which nothing acted is its evidence); the evidence
# counts the others and gives each proportion its exact 95% interval ($ci:
# analysis/stats ci). $fisher: the exact tests of the claims that compare,
# {fp, swap} (analysis/stats fisher on fp_counts and swap_counts, each
# claim one family over the rows that are testable), null where untested.

include "outcome";
include "tables";
include "cell";
import "levels" as $levels;

# The runs of a cell that say something of the policy.
def of_cell($w; $s; $k): cell_of | .workload == $w and .swap == $s and .kernel == $k;
def cell($w; $s; $k): map(select(of_cell($w; $s; $k) and conclusive));
def all_runs($w; $s; $k): map(select(of_cell($w; $s; $k) and .outcome != "lab-error"));

def tally: group_by(.outcome) | map("\(length) \(.[0].outcome)") | join(", ");

def cells_text($w; $k; $swaps):
  . as $r | $swaps | map(. as $s | "swap \($s): \($r | all_runs($w; $s; $k) | tally | if . == "" then "no runs" else . end)") | join("; ");

def all_are($classes): length > 0 and all(.outcome as $o | $classes | index($o));

# The thresholds, once. A verdict needs min_runs runs (a side, where a
# claim compares): below that an exact one-sided test cannot reach the
# level (3 + 3 runs: p = 0.05 at best) and "every run" is two or three.
# claim4_stall_s: the swap claim's own "5~6 minutes", at its lower end.
def min_runs: 4;
def alpha: $levels::levels[0].alpha;
def claim4_stall_s: 300;

def verdict($yes; $no):
  if length < min_runs then "not shown"
  elif $yes then "reproduced" elif $no then "not reproduced" else "partly" end;

# A comparison's counts ({base, new}: [bad, good] each) are testable with
# min_runs runs a side; measured with one.
def testable: (.base | add) >= min_runs and (.new | add) >= min_runs;
def measured: (.base | add) > 0 and (.new | add) > 0;
def compared: if measured | not then "not measured" elif testable | not then "not shown" else null end;

# A one-sided test's p: "p = 0.0124 (Holm over the claim's 2 tests; 0.0062 alone)".
def p_text:
  if . == null then "no test (fewer than \(min_runs) runs a side)"
  elif .tests == 1 then "p = \(.p_worse) (the claim's one test)"
  else "p = \(.p_worse_holm) (Holm over the claim's \(.tests) tests; \(.p_worse) alone)" end;

# "k/n (lo–hi%)": how many runs of . pass the filter, with its interval.
def share(f; $ci): length as $n | if $n == 0 then "no run" else share_of(map(select(f)) | length; $n; $ci) end;

def kills_per_run: map(.oom_kills // 0) | if length == 0 then "–" else join(", ") end;

# The false-positive runs that went wrong (the root killed or a probe
# lost): bad and good conclusive runs, stock as BASE, the policy column
# $lca as NEW, for analysis/stats fisher.
def fp_bad: .outcome == "killed" or .outcome == "collateral";
def fp_counts($lca):
  map(select(.cell.workload.kind == "false-positive" and conclusive)) as $fp
  | def side($k): $fp | map(select(.cell.kernel.column == $k)) | [(map(select(fp_bad)) | length), (map(select(fp_bad | not)) | length)];
  {base: side("stock"), new: side($lca)};

# The swap claim's runs: folkert on $lca with swap $s, every run but lab
# errors; the window both swap settings observed (the shorter deadline);
# the runs in which the bomb was not gone / gone within it, without swap as
# BASE and with swap as NEW, for analysis/stats fisher. A setting without
# runs has no deadline (jq's null would sort below any number).
def swap_runs($s; $lca): map(select(of_cell("folkert"; $s; $lca) and .outcome != "lab-error"));
def swap_window($lca): [swap_runs("off"; $lca), swap_runs("on"; $lca)] | map(map(.cell.workload.deadline_s) | min | values) | min;
def gone_within($w): .gone == true and .t_gone_s <= $w;
def swap_counts($lca):
  swap_window($lca) as $w
  | def side($s): swap_runs($s; $lca) | [(map(select(gone_within($w) | not)) | length), (map(select(gone_within($w))) | length)];
  {base: side("off"), new: side("on")};

# The plan's columns that run an LCA rule: every column not of the stock
# build and not switched off (vm.oom_kill_lca=0); ["lca"] when none.
def policy_columns($plan):
  $plan | map(.kernel | select(.build != "stock" and (any(.sysctls[]; . == "vm.oom_kill_lca=0") | not)) | .column)
  | unique | if length == 0 then ["lca"] else . end;

# The desktops of a run's matrix.
def run_desktops($meta): $meta.matrix.desktops;

# The records of one desktop.
def on_desktop($d): map(select(.cell.desktop.name == $d));

# A run's longest probe heartbeat gap; a hung run has no probes' report,
# and its desktop was frozen at least until the host's deadline.
def stall_ms: .max_probe_gap_ms // (if .outcome == "hung" then .cell.workload.deadline_s * 1000 else null end);
def gaps_s(f): map(stall_ms // empty) | f | ms_to_s;

# A claim none of whose runs was conclusive has no verdict.
def without_evidence: if .runs == 0 then .verdict = "inconclusive" else . end | del(.runs);

# The sources, exactly: the patch's notes on LKML and the LWN article.
def notes_source: "Coywolf Qi Hunt, \"[patch] oom lca -- fork bombing killer v2.2\", linux-kernel, 3 May 2005 (patch notes)";
def lwn_source: "LWN, \"Defending against fork bombs\", corbet, 3 May 2005";

def claims($swaps; $ci; $fisher; $lca):
  . as $r | notes_source as $notes | lwn_source as $lwn
  | [
    ( [$swaps[] as $s | $r | cell("a"; $s; "stock")[]] as $c
      | {runs: ($c | length), claim: "The stock OOM killer cannot handle a.sh.",
         source: $notes,
         rule: "a.sh on stock, the swap settings together, \(min_runs) conclusive runs or more; reproduced when every one ended persists, collateral, hung, stalled or panic, not reproduced when every one was clean, partly otherwise",
         verdict: $c | verdict(all_are(["persists", "collateral", "hung", "stalled", "panic"]); all_are(["clean"])),
         evidence: "stock, a: \($r | cells_text("a"; "stock"; $swaps)); persists, collateral, hung, stalled or panic in \($c | share(.outcome | IN("persists", "collateral", "hung", "stalled", "panic"); $ci)) of the conclusive runs; OOM kills per run: \($c | kills_per_run)"}),
    ( [$swaps[] as $s | $r | cell("a"; $s; $lca)[], cell("b"; $s; $lca)[]] as $c
      | {runs: ($c | length), claim: "The LCA killer stops a.sh and b.sh without ill effects.",
         source: "\($notes) (\"my desktop survived perfectly\"); \($lwn) (\"without any ill effects beyond a temporary slowdown\")",
         rule: "a.sh and b.sh and the swap settings together, \(min_runs) conclusive runs or more; reproduced when every one was clean, not reproduced when none was, partly otherwise",
         verdict: $c | verdict(all_are(["clean"]); all(.outcome != "clean")),
         evidence: "\($lca), a: \($r | cells_text("a"; $lca; $swaps)); \($lca), b: \($r | cells_text("b"; $lca; $swaps)); clean in \($c | share(.outcome == "clean"; $ci)) of the conclusive runs; OOM kills per run: \($c | kills_per_run); desktop probes lost: \([$c[].probes_lost[]] | group_by(.) | map("\(.[0]) \(length)x") | join(", ") | if . == "" then "none" else . end)"}),
    ( [$swaps[] as $s | $r | cell("folkert"; $s; $lca)[]] as $c
      | {runs: ($c | length), claim: "The LCA killer stops folkert, with collateral damage.",
         source: "\($notes) (\"a lot of innocent processes got killed, but the system still survived\"); \($lwn) (\"with some collateral damage\")",
         rule: "folkert, the swap settings together, \(min_runs) conclusive runs or more; reproduced when in every one the bomb went and a probe was lost, not reproduced when the bomb went in none, partly otherwise (it went, in some runs without collateral)",
         verdict: $c | verdict(all(.gone == true and (.probes_lost | length) > 0); all(.gone != true)),
         evidence: "\($lca), folkert: \($r | cells_text("folkert"; $lca; $swaps)); bomb gone in \($c | share(.gone == true; $ci)) of the conclusive runs, with a probe lost in \($c | share(.gone == true and (.probes_lost | length) > 0; $ci))"}),
    ( ($r | swap_runs("on"; $lca)) as $on | ($r | swap_runs("off"; $lca)) as $off | ($r | swap_window($lca)) as $w
      | ($on | map(stall_ms // empty) | median) as $stall_ms | ($stall_ms | ms_to_s) as $stall
      | {runs: ([$on[], $off[]] | length), claim: "With swap, folkert is worse: the desktop was unusable for 5-6 minutes.",
         source: "\($notes) only (\"unusable for 5~6 minutes until all 256M swap got used up\")",
         rule: "folkert, every run but lab errors (one in which nothing acted while swap filled is evidence), \(min_runs) a side; reproduced when with swap the bomb was gone within the shorter deadline less often (one-sided Fisher exact test, Holm-adjusted over the claim's tests, p < \(alpha)) and the median run's longest probe heartbeat gap (a hung run's: its deadline) was \(claim4_stall_s) s or more, partly when one of the two holds, not reproduced when neither does",
         verdict: (($r | swap_counts($lca) | compared)
                   // ($fisher.swap.p_worse_holm < alpha) as $later | ($stall_ms != null and $stall_ms >= claim4_stall_s * 1000) as $minutes
                      | if $later and $minutes then "reproduced" elif $later or $minutes then "partly"
                        else "not reproduced" end),
         evidence: "\($lca), folkert, every run but lab errors: bomb gone within \($w | seconds) (the shorter deadline) in \($on | share(gone_within($w); $ci)) with swap, \($off | share(gone_within($w); $ci)) without; one-sided Fisher exact test that swap is worse: \($fisher.swap | p_text); with swap the median run's longest probe heartbeat gap \($stall | seconds) (longest \($on | gaps_s(max) | seconds)), without \($off | gaps_s(max) | seconds) at most; gone at all with swap in \($on | share(.gone == true; $ci)) (deadline \($on | map(.cell.workload.deadline_s) | unique | if length == 0 then "–" else "\(join(", ")) s" end))"}),
    ( ($r | map(select(.cell.workload.kind == "false-positive" and conclusive))) as $fp
      | ($fp | map(select(.cell.kernel.column == "stock"))) as $st | ($fp | map(select(.cell.kernel.column == $lca))) as $lc
      | {runs: ([$st[], $lc[]] | length), claim: "Killing a whole tree is the wrong answer to memory pressure that is not a fork bomb.",
         source: "the lab's own question: no 2005 message makes it; the one review, Andrew Morton's of the first posting (linux-kernel, 30 March 2005), objected to the exit path's cost, and LWN's one reservation is the overhead",
         rule: "the false-positive workloads and swap settings together, conclusive runs, \(min_runs) a side; reproduced when more runs went wrong (the root killed or a probe lost) on the column than on stock (one-sided Fisher exact test, Holm-adjusted over the claim's tests, p < \(alpha)), not shown otherwise",
         verdict: (($r | fp_counts($lca) | compared)
                   // if $fisher.fp.p_worse_holm < alpha then "reproduced" else "not shown" end),
         evidence: "false-positive runs with the root killed or a probe lost: \($lca) \($lc | share(fp_bad; $ci)), stock \($st | share(fp_bad; $ci)); one-sided Fisher exact test that \($lca) does worse: \($fisher.fp | p_text) (conclusive runs; \($r | map(select(.cell.workload.kind == "false-positive" and .outcome == "inconclusive" and (.cell.kernel.column | IN("stock", $lca)))) | length) inconclusive left out); tasks killed by LCA decisions: \($lc | map(.lca_killed) | add // 0)"})
  ] | map(without_evidence);
