# The run record and its outcome class, from evidence only.
# Used by analysis/record; the schema is analysis/record.schema.json.

include "cell";
import "record.schema" as $record_schema;
import "channel.schema" as $channel_schema;

# The record schema's version: analysis/record.schema.json's, once.
def schema_version: $record_schema::record_schema[0].properties.schema.const;

# The newest channel the guest driver writes that this classifier reads:
# analysis/channel.schema.json's version (a channel without one is 0).
def channel_version:
  $channel_schema::channel_schema[0].oneOf[] | select(.properties.type.const == "settings") | .properties.schema.const;

# A stalled OOM killer's threshold (final_stall, below).
def stall_s: 30;

# The outcome classes, once: each one's name, how bad it is (a cell's class
# is its worst over the repetitions, and make compare calls NEW worse when
# a cell's class got worse; inconclusive and lab-error runs say nothing of
# the kernel: they have none) and its definition (the report prints it;
# the schema's enum must list the same names, a test checks).
def classes: [
  {name: "clean", severity: 0,
   what: "the bomb is gone and the desktop probes are alive (the terminal that started the bomb is its shell: it may have died with it, and is reported apart)"},
  {name: "survived", severity: 0,
   what: "a false-positive workload's root process ran on to the deadline or exited by itself, whatever its exit status (a build whose make exited 2 survived)"},
  {name: "collateral", severity: 1,
   what: "the bomb is gone (a false positive's root process lived) but a desktop probe died"},
  {name: "killed", severity: 1, what: "a false-positive workload's root process was killed"},
  {name: "persists", severity: 2,
   what: "the bomb was still there at its deadline (probes it cost are in the collateral table)"},
  {name: "hung", severity: 3, what: "no end from the guest by the host deadline"},
  {name: "stalled", severity: 4,
   what: "memory and swap exhausted for the run's last \(stall_s) guest seconds or more with no OOM kill (a stalled OOM killer)"},
  {name: "panic", severity: 5,
   what: "a kernel panic on the console (a splat the kernel lived through is listed apart)"},
  {name: "inconclusive", severity: null,
   what: "nothing acted on the workload by its deadline (no OOM kill, no LCA decision, no defence) and it did no harm: the run tested no mechanism, and verdicts leave it out"},
  {name: "lab-error", severity: null, what: "the lab failed (never an outcome of the kernel)"}];

def severity: classes | map(select(.severity != null) | {(.name): .severity}) | add;

# The classes a cell of NEW must not gain, whatever the counts (make
# compare): a lab that failed, a guest that never answered, an OOM killer
# that stalled, a kernel that died. A kernel splat is one too.
def always_regression: ["lab-error", "hung", "stalled", "panic"];

# The classes that say nothing of the kernel (no severity), and those that
# are a result about the policy.
def silent: classes | map(select(.severity == null) | .name);
def conclusive: .outcome | IN(silent[]) | not;

def of_type($t): map(select(.type == $t));

# A stalled OOM killer: at the end of the run memory and swap had been
# exhausted (MemAvailable and SwapFree under stall_kb) for stall_s guest
# seconds or more (times the cell's time_scale) with no OOM kill and no LCA
# decision in between. The threshold sits above every other final stretch
# of the committed runs (at most 16.4 s, a bomb thrashing at its
# deadline); the two above it (110.6 and 67.7 s, rule 2 on the 2026
# series, one OOM kill and then none) were OOM killers hung by the walk
# that looped over unreaped children.
def stall_kb: 4096;

# The final stretch of exhausted samples with no kill, in guest seconds.
def final_stall:
  def exhausted: .memavail_kb < stall_kb and (.swapfree_kb // 0) < stall_kb;
  of_type("sample") as $s
  | if ($s | length) == 0 or ($s[-1] | exhausted | not) then 0 else
      ($s[-1] | [.oom_kill, .lca_decisions]) as $k
      | ([range($s | length - 1; -1; -1)
          | select(($s[.] | exhausted | not) or ($s[.] | [.oom_kill, .lca_decisions]) != $k)]
         | first // -1) as $i
      | ($s[-1].t - $s[$i + 1].t) * 10 | round / 10
    end;

# The kernel's splats, {kind, line}: the console's (the whole boot; lab/boot)
# and the driver's (the kernel log of the run, every level), each line once.
def splats($res; $boot):
  (($boot.splats // []) + ($res.kernel_splats // [])) | unique_by(.line) | sort_by(.kind);

# outcome: [class, reason]. Order matters: a dead kernel first, then a
# guest that never answered, then a lab that failed, then the workload. A
# run in which nothing acted on the workload (no OOM kill, no LCA decision,
# no defence: $acted is empty) tested no mechanism: inconclusive, unless
# the workload was killed or the desktop lost all the same.
def classify($boot; $result; $evidence; $panic; $driver_error; $channel; $cell; $acted):
  if $panic != "" then ["panic", $panic]
  elif $boot.status == "hung" then
    ["hung", (if $boot.hung_by == "stalled"
              then "the guest stopped running at guest second \($boot.guest_seconds) (its ticker silent); QEMU killed"
              elif $boot.hung_by == "guest-deadline"
              then "no end from the guest within \($boot.timeout) guest s; QEMU killed"
              elif $boot.hung_by == "host-deadline"
              then "no end from the guest within a last-resort host deadline; QEMU killed"
              else "no end from the guest within \($boot.timeout) s; QEMU killed" end)
             + (if $cell.kernel.time_scale != 1
                then " (a debug build: deadlines x\($cell.kernel.time_scale))" else "" end)]
  elif $boot.status == "crashed" then
    ["lab-error", "the guest ended without the end marker and without a panic on the console (QEMU exit \($boot.qemu_exit))"]
  elif $channel > channel_version then
    ["lab-error", "the guest driver wrote channel schema \($channel); this lab reads up to \(channel_version)"]
  elif $result == null then
    ["lab-error", "the guest driver reported no result (guest command exit \($boot.exit))"
                  + (if $driver_error != "" then ": \($driver_error)" else "" end)]
  elif $cell.defence.hook != null and ($result | has("pids_max_refusals") | not) and $evidence == null then
    ["lab-error", "the defence hook \($cell.defence.hook) reported no evidence"]
  elif $result.stopped == true then
    ["inconclusive", "stopped at \($result.t_end_s) s by its end condition (a test of the mechanism): survival not observed"]
  elif ($result.final_stall_s // 0) >= stall_s * $cell.kernel.time_scale then
    ["stalled", "memory and swap exhausted (under \(stall_kb) kB) for the last \($result.final_stall_s * 10 | round / 10) s"
                + " with no OOM kill: a stalled OOM killer"
                + (if $cell.workload.kind == "bomb" then "; \($result.leftover_tasks) bomb tasks left" else "" end)]
  else
    # the terminal that started the workload is its own shell, reported
    # apart (terminal_lost); the desktop is every other probe
    ($result.probes | map(select(.alive | not) | .name) - ["terminal"]) as $lost
    | (if ($lost | length) > 0 then "; probes lost: \($lost | join(", "))" else "" end) as $also
    | ($acted | length == 0) as $idle
    | if $cell.workload.kind == "bomb" then
        if ($result.gone | not) and $idle then
          ["inconclusive", "nothing acted on the bomb by the \($result.t_end_s) s deadline (\($result.leftover_tasks) tasks)\($also)"]
        elif $result.gone | not then
          ["persists", "\($result.leftover_tasks) bomb tasks left at the \($result.t_end_s) s deadline\($also)"]
        elif ($lost | length) > 0 then ["collateral", "bomb gone at \($result.t_gone_s) s\($also)"]
        elif $idle then ["inconclusive", "the bomb went at \($result.t_gone_s) s with nothing acting on it"]
        else ["clean", "bomb gone at \($result.t_gone_s) s, desktop alive"]
        end
      elif ($result.workload_status // 0) >= 128
           or ($result.workload_status == null and ($result.workload_root_alive | not)) then
        ["killed", "the workload's root process was killed (status \($result.workload_status))\($also)"]
      elif ($lost | length) > 0 then ["collateral", "the workload's root process lived\($also)"]
      elif $idle then ["inconclusive", "no OOM kill and no defence: the memory pressure never reached a policy"]
      else ["survived", "the workload's root process ran on or finished by itself"]
      end
    end;

# Who acted on the workload, from a record's evidence: the kernel's OOM
# killer, LCA decisions that killed, a systemd session's TasksMax when it
# refused the workload's forks, and the defence, by its label, when its
# acted rule (workloads/defences.tab, carried in the record's cell) holds;
# the rule is the argument.
def acted(defence_acted):
  [ (if (.oom_kills // 0) > 0 then "oom-killer" else empty end),
    (if (.lca_killed // 0) > 0 then "lca" else empty end),
    (if .cell.desktop.session == "systemd" and (.fork_refusals // 0) > 0 then "TasksMax" else empty end),
    (if .defence_evidence != null and (try defence_acted catch false) == true
     then .cell.defence.label else empty end) ];

# The defence's evidence: the hook's JSON object, the driver's last line.
# Logs older than the hooks (schema 1) carried it as fields of the
# driver's settings and result.
def defence_evidence($lines; $res; $set; $defence):
  if $res == null or $defence == "none" then null
  elif $res | has("pids_max_refusals") then
    {nproc: {nproc: $set.nproc}, pids: {pids_max: $set.pids_max, pids_max_refusals: $res.pids_max_refusals},
     oomgroup: {oom_group_kills: $res.oom_group_kills}, earlyoom: {earlyoom_kills: $res.earlyoom_kills}}[$defence]
  else $lines | of_type("evidence") | last | .evidence // null
  end;

# When the workload's cgroup became empty for good, from the timeline, or
# null. A cgroup with no task left cannot grow again (forks stay in it),
# so a bomb that emptied it just before the deadline is gone too, although
# the driver's quiet period (-q) did not run out.
def emptied_at:
  of_type("sample") as $s
  | ($s | to_entries | map(select(.value.workload_tasks > 0)) | last | .key) as $i
  | if ($s | length) == 0 then null
    elif $i == null then $s[0].t
    else $s[$i + 1].t // null end;

# When the first OOM kill came, or null: the first Killed process line or
# LCA decision, in the kernel's own time (event_clock "kernel"). A driver
# before it (event_clock "sampler") stamped both when it read them: then
# the first sample whose vmstat oom_kill count moved, or the first
# decision when that was earlier (a thrashing guest can starve the 10 Hz
# sampler for seconds). The time-to-event the deadlines are set from.
def first_oom_at($res):
  ($res.lca_decisions // []) as $decisions
  | if $res.event_clock == "kernel" then [($res.oom_kill_times_s[0] // empty), ($decisions[0].t // empty)] | min
    else [first(of_type("sample")[] | select(.oom_kill > 0) | .t), ($decisions[0].t // empty)] | min end;

# The kernel's "Killed process PID (COMM) ... anon-rss:NkB" lines (the
# console's, in order: analysis/record), parsed once: {pid, comm, anon_rss_kb}.
def killed_processes($lines):
  $lines | map(capture("Killed process (?<pid>[0-9]+) \\((?<comm>[^)]*)\\)(.*anon-rss:(?<rss>[0-9]+)kB)?")
    | {pid: (.pid | tonumber), comm, anon_rss_kb: (.rss // null | if . == null then null else tonumber end)});

# The first OOM victim ($killed: killed_processes): which desktop probe it
# was (by pid, where the driver reported the probes' pids) and whether it
# was a bomb member (its comm is the workload program's name, as the kernel
# cuts it to 15 characters). Input: the record.
def first_victim($killed):
  if $killed == [] then null else
    $killed[0] as $k
    | (.cell.workload.guest_path | split("/") | last | .[0:15]) as $prog
    | $k + {probe: ((.probe_pids // {}) | to_entries | map(select(.value == $k.pid) | .key) | first // null),
            bomb_member: (.cell.workload.kind == "bomb" and $k.comm == $prog)}
  end;

# Why each lost desktop probe died, from the evidence: "oom-kill" when the
# kernel's "Killed process" lines ($killed: their pids) name it; "lca
# subtree of PID" when an LCA decision killed the subtree of it or of one
# of its ancestors (the desktop's tree: probe_ppids); "defence LABEL" when
# only the cell's defence acted; else "unknown". Input: the record.
def probe_deaths($killed):
  (.probe_ppids // {}) as $ppid | (.probe_pids // {}) as $pids
  | ($pids | to_entries | map({key: (.value | tostring), value: $ppid[.key]}) | from_entries) as $parent
  | def ancestry($p): [$p, ($parent[$p | tostring] // empty | select(. != null) | ancestry(.)[])];
  . as $r
  | [ (.probes_lost + (if .terminal_lost then ["terminal"] else [] end))[] as $name
      | ($pids[$name] // null) as $pid
      | {name: $name, cause:
          (if $pid == null then "unknown"
           elif $killed | index($pid) then "oom-kill"
           else (first($r.lca_decisions[] | .lca as $l | select($l > 0 and .killed > 0 and (ancestry($pid) | index($l))) | $l)
                 // null) as $lca
           | if $lca != null then "lca subtree of \($lca)"
             elif ($r.acted | length) > 0 and ($r.acted | all(. != "oom-killer" and . != "lca")) then "defence \($r.acted | join(", "))"
             else "unknown" end
           end)} ];

def record($job; $boot; $lines; $panic; $driver_error; defence_acted):
  $job.cell as $cell
  | $job.build as $build
  |
  ($lines | of_type("facts") | first // null) as $facts
  | ($lines | of_type("settings") | first // null) as $set
  | ($lines | of_type("result") | last // null
     | if . == null or .gone then .
       else ($lines | emptied_at) as $e
       | if $e == null then . else . + {gone: true, t_gone_s: $e} end end
     | if . == null then . else . + {final_stall_s: ($lines | final_stall)} end) as $res
  | defence_evidence($lines; $res; $set; $cell.defence.name) as $evidence
  | {
      schema: schema_version,
      id: $cell.id,
      key: $cell.key,
      cell: $cell,
      kernel_release: $build.release,
      kernel_version: $build.version,
      series_hash: $build.series_hash,
      config_hash: $build.config_hash,
      outcome: null,
      outcome_reason: null,
      qemu: $boot.qemu,
      accel: $boot.accel,
      clock: ($boot.clock // "wall"),
      deadline_clock: (if $boot.clock == "icount" and ($boot | has("guest_seconds")) then "guest" else "host" end),
      guest: {
        mem: $boot.mem, swap: $boot.swap, cpus: $boot.cpus,
        memtotal_kb: $facts.memtotal_kb, swaptotal_kb: $facts.swaptotal_kb
      },
      limits: {
        threads_max: $set.threads_max, pid_max: $set.pid_max, nproc: $set.nproc
      },
      settings: (if $set == null then null else {
        quiet_s: $set.quiet_s, oom_dump_tasks: $set.oom_dump_tasks,
        console_loglevel: $set.console_loglevel, oom_kill_lca: $set.oom_kill_lca,
        oom_kill_lca_window_ms: $set.oom_kill_lca_window_ms, browser_mb: $set.browser_mb
      } end),
      stopped_by: (if $res.stopped == true then $set.until else null end),
      gone: $res.gone,
      t_gone_s: $res.t_gone_s,
      t_end_s: $res.t_end_s,
      workload_status: $res.workload_status,
      leftover_tasks: $res.leftover_tasks,
      oom_kills: $res.oom_kills,
      t_first_oom_s: ($lines | first_oom_at($res)),
      event_clock: ($res.event_clock // "sampler"),
      sampler_late_max_s: $res.sampler_late_max_s,
      samples_late_1s: $res.samples_late_1s,
      t_first_subtree_s: (first(($res.lca_decisions // [])[] | select(.killed > 0) | .t) // null),
      lca_decisions: ($res.lca_decisions // []),
      lca_killed: ($res.lca_killed // 0),
      fork_refusals: $res.fork_refusals,
      probes_lost: (($res.probes // []) | map(select(.alive | not) | .name) - ["terminal"]),
      terminal_lost: (($res.probes // []) | any(.name == "terminal" and (.alive | not))),
      probe_max_gap_ms: (($res.probes // []) | map(select(.max_gap_ms != null) | {(.name): .max_gap_ms}) | add),
      probe_pids: (($res.probes // []) | map(select(.pid != null) | {(.name): .pid}) | add),
      probe_ppids: (($res.probes // []) | map(select(.ppid != null) | {(.name): .ppid}) | add),
      max_probe_gap_ms: (($res.probes // []) | map(.max_gap_ms // empty) | max),
      final_stall_s: $res.final_stall_s,
      peak_tasks: $res.peak_tasks,
      peak_workload_tasks: $res.peak_workload_tasks,
      min_memavail_kb: $res.min_memavail_kb,
      min_swapfree_kb: $res.min_swapfree_kb,
      kmsg_lost: $res.kmsg_lost,
      defence_evidence: $evidence,
      kernel_splats: splats($res; $boot),
      samples: $res.samples,
      started: $job.started,
      ended: $job.ended,
      wall_s: $boot.wall_seconds
    }
  | . + {acted: acted(defence_acted)}
  | classify($boot; $res; $evidence; $panic; $driver_error; $set.schema // 0; $cell; .acted) as [$class, $reason]
  | .outcome = $class | .outcome_reason = $reason;
