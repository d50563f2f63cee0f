# shellcheck shell=bash
# Records and outcome classes: analysis/record on the committed fixture
# runs (lab/test/fixtures/cells/CLASS: real runs' files, the timeline
# trimmed) and on synthetic evidence for every branch of the classifier.

# The evidence as a dying guest leaves it: a console with a NUL byte is
# still read (grep took it for binary, and a panic after it was recorded
# as clean), and a cell.json of two objects, or of one and junk, is not a
# cell (the first object was recorded).
t_unit_record_reads_damaged_evidence() {
	local d
	d=$(mktemp -d)
	cp "$TEST_FIXTURES/cells/clean/"* "$d/"
	printf '\0\n[   30.100000] Kernel panic - not syncing: Out of memory\n' >>"$d/console.log"
	"$LAB_ROOT/analysis/record" "$d" | jq -e '.outcome == "panic"' >/dev/null ||
		fail "a panic after a NUL byte on the console is not a panic"
	cat "$TEST_FIXTURES/cells/clean/cell.json" "$TEST_FIXTURES/cells/clean/cell.json" >"$d/cell.json"
	expect_exit 1 "cell.json is not JSON" "$LAB_ROOT/analysis/record" "$d"
	{ cat "$TEST_FIXTURES/cells/clean/cell.json"; echo '{'; } >"$d/cell.json"
	expect_exit 1 "cell.json is not JSON" "$LAB_ROOT/analysis/record" "$d"
	jq -c 'del(.cell.defence.acted)' "$TEST_FIXTURES/cells/clean/cell.json" >"$d/cell.json"
	expect_exit 1 "has no resolved cell" "$LAB_ROOT/analysis/record" "$d"
	rm -rf "$d"
}

# Every fixture's record has the outcome its directory is named after,
# and follows the schema.
t_unit_record_classifies_each_fixture() {
	local d want got recs c n=0
	recs=$(mktemp)
	for d in "$TEST_FIXTURES"/cells/*/; do
		want=$(basename "$d")
		want=${want%%-[0-9]*}
		"$LAB_ROOT/analysis/record" "$d" >>"$recs"
		got=$(tail -1 "$recs" | jq -r .outcome)
		printf '%-28s %-11s %s\n' "$(basename "$d")" "$got" "$(tail -1 "$recs" | jq -r .outcome_reason)"
		[ "$got" = "$want" ] || fail "$(basename "$d"): outcome $got, expected $want"
		n=$((n + 1))
	done
	"$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$recs" || fail "a fixture record does not follow the schema"
	# each record names the classifier that made it
	c=$(cd "$LAB_ROOT" && cat analysis/record analysis/outcome.jq analysis/cell.jq analysis/record.schema.json analysis/channel.schema.json workloads/splats.tab | sha256sum | cut -c1-16)
	jq -e -s --arg c "$c" 'all(.classifier == $c)' "$recs" >/dev/null || fail "a record does not name classifier $c"
	# the first OOM victim: a bomb member in the clean run, the 64 MB browser
	# probe in the collateral one, none where nothing was killed
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/clean" | jq -e '.first_victim | .comm == "b.sh" and .bomb_member' >/dev/null ||
		fail "clean: the first victim is not the bomb member"
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/collateral" |
		jq -e '.first_victim | .comm == "probe" and (.bomb_member | not) and .anon_rss_kb == 65412' >/dev/null ||
		fail "collateral: the first victim is not the browser probe"
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/inconclusive" | jq -e '.first_victim == null' >/dev/null ||
		fail "inconclusive: a first victim without an OOM kill"
	# a splat is not a panic: the KASAN report is recorded, the run is clean
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/clean-2" |
		jq -e '.kernel_splats == [{kind: "kasan", line: "BUG: KASAN: slab-use-after-free in oom_lca_credit+0x4c/0x120"}]' >/dev/null ||
		fail "clean-2: the KASAN report is not a kasan splat"
	for want in clean collateral persists survived killed inconclusive hung stalled panic lab-error; do
		ls -d "$TEST_FIXTURES/cells/$want"* >/dev/null 2>&1 || fail "no fixture for class $want"
	done
	echo "$n fixtures"
}

t_unit_validate_names_the_bad_line() {
	local f
	f=$(mktemp)
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/persists" >"$f"
	"$LAB_ROOT/analysis/record" "$TEST_FIXTURES/cells/persists" | jq -c '.cell.rep = 0 | del(.outcome)' >>"$f"
	echo 'not json' >>"$f"
	expect_exit 1 ":2: record: 'outcome' is a required property" "$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$f"
	expect_exit 1 ':2: record.cell.rep: 0 is less than the minimum of 1' "$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$f"
	expect_exit 1 ':3: not JSON' "$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" "$f"
	"$LAB_ROOT/analysis/validate" "$RECORD_SCHEMA" <(head -1 "$f") || fail "a good record was refused"
}

# Every branch of the outcome classes, on synthetic evidence: classify's
# arguments are a boot, the driver's result, the defence's evidence, the
# console's panic line, the driver's complaint, the cell and who acted.
# The first OOM kill's time: the kernel's own (the driver's event_clock
# "kernel": the first Killed process line or decision, from its mark), or,
# from a driver before it, the first sample that saw vmstat's count move.
t_unit_first_oom_kill_in_kernel_time() {
	local got
	got=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome";
		[{type: "sample", t: 4.0, oom_kill: 0}, {type: "sample", t: 9.5, oom_kill: 2}] as $lines
		| [{event_clock: "kernel", oom_kill_times_s: [3.25, 3.9], lca_decisions: [{t: 3.91}]},
		   {event_clock: "kernel", oom_kill_times_s: [], lca_decisions: [{t: 6.5}]},
		   {event_clock: "kernel", oom_kill_times_s: [], lca_decisions: []},
		   {lca_decisions: [{t: 11.0}]},
		   {lca_decisions: [{t: 8.0}]}]
		| map(. as $res | $lines | first_oom_at($res))')
	[ "$got" = '[3.25,6.5,null,9.5,8]' ] || fail "first OOM kill times: $got, expected [3.25,6.5,null,9.5,8]"
}

# The classes are listed once (outcome.jq's classes): the schema's enum
# names the same ones, and the report defines each.
t_unit_outcome_classes_in_one_place() {
	local classes run c
	classes=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome"; classes | map(.name) | sort')
	[ "$(jq -c '.properties.outcome.enum | sort' "$RECORD_SCHEMA")" = "$classes" ] ||
		fail "the schema's outcome enum is not outcome.jq's classes ($classes)"
	run=$(small_run)
	"$LAB_ROOT/analysis/report" "$run" --no-figures >/dev/null || fail "report failed"
	for c in $(jq -r '.[]' <<<"$classes"); do
		tr '\n' ' ' <"$run/report.md" | grep -qF "$c = " || fail "the report does not define $c"
	done
}

t_unit_outcome_classes_on_synthetic_evidence() {
	local cases
	cases=$(cat <<-'CASES'
		panic         {}                                              "Oops"        bomb  ["oom-killer"]
		hung          {"status":"hung","timeout":110}                 ""            bomb  []
		lab-error     {"status":"crashed","qemu_exit":1}              ""            bomb  []
		lab-error     {"status":"finished","exit":1}                  ""            bomb  []
		inconclusive  {"status":"finished","exit":0,"r":"stays"}      ""            bomb  []
		persists      {"status":"finished","exit":0,"r":"stays"}      ""            bomb  ["oom-killer"]
		persists      {"status":"finished","exit":0,"r":"stays-lost"} ""            bomb  ["oom-killer"]
		collateral    {"status":"finished","exit":0,"r":"gone-lost"}  ""            bomb  ["lca"]
		clean         {"status":"finished","exit":0,"r":"gone"}       ""            bomb  ["lca"]
		inconclusive  {"status":"finished","exit":0,"r":"gone"}       ""            bomb  []
		killed        {"status":"finished","exit":0,"r":"status137"}  ""            fp    ["oom-killer"]
		killed        {"status":"finished","exit":0,"r":"rootdead"}   ""            fp    []
		collateral    {"status":"finished","exit":0,"r":"lost"}       ""            fp    []
		survived      {"status":"finished","exit":0,"r":"fine"}       ""            fp    ["oom-killer"]
		inconclusive  {"status":"finished","exit":0,"r":"fine"}       ""            fp    []
		inconclusive  {"status":"finished","exit":0,"r":"stopped"}    ""            bomb  ["lca"]
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            bomb  []
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            bomb  ["oom-killer"]
		persists      {"status":"finished","exit":0,"r":"stall29"}    ""            bomb  ["oom-killer"]
		stalled       {"status":"finished","exit":0,"r":"stall"}      ""            fp    []
	CASES
	)
	local want boot panic kind acted got n=0
	while read -r want boot panic kind acted; do
		panic=${panic//\"/}
		got=$(jq -n -r -L "$LAB_ROOT/analysis" --argjson boot "$boot" --arg panic "$panic" --arg kind "$kind" \
			--argjson acted "$acted" 'include "outcome";
			def probes($lost): [{name: "browser", alive: ($lost | not)}, {name: "terminal", alive: true}];
			({stays: {gone: false, leftover_tasks: 9, t_end_s: 20, probes: probes(false)},
			  "stays-lost": {gone: false, leftover_tasks: 9, t_end_s: 20, probes: probes(true)},
			  gone: {gone: true, t_gone_s: 7, probes: probes(false)},
			  "gone-lost": {gone: true, t_gone_s: 7, probes: probes(true)},
			  status137: {workload_status: 137, probes: probes(false)},
			  rootdead: {workload_status: null, workload_root_alive: false, probes: probes(false)},
			  lost: {workload_status: 0, probes: probes(true)},
			  fine: {workload_status: 0, probes: probes(false)},
			  stopped: {gone: false, stopped: true, leftover_tasks: 9, t_end_s: 12, probes: probes(true)},
			  stall: {gone: false, leftover_tasks: 9, t_end_s: 120, final_stall_s: 30, workload_status: 0, probes: probes(false)},
			  stall29: {gone: false, leftover_tasks: 9, t_end_s: 120, final_stall_s: 29.9, probes: probes(false)}}[$boot.r // ""])
			  as $result
			| {workload: {kind: (if $kind == "fp" then "false-positive" else "bomb" end)}, defence: {hook: null}, kernel: {time_scale: 1}} as $cell
			| classify($boot; $result; null; $panic; ""; 0; $cell; $acted) | .[0]')
		printf '%-13s %-60s -> %s\n' "$want" "$boot $kind $acted" "$got"
		[ "$got" = "$want" ] || fail "$boot $kind $acted: $got, expected $want"
		n=$((n + 1))
	done <<<"$cases"
	[ "$n" -eq 20 ] || fail "$n cases ran"
	# a defence hook that reported nothing makes the run a lab error
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		classify({status: "finished", exit: 0}; {gone: true, probes: []}; null; ""; ""; 0;
			{workload: {kind: "bomb"}, defence: {hook: "/lab/workloads/defences/pids.sh"}, kernel: {time_scale: 1}}; ["oom-killer"]) | .[0]')
	[ "$got" = lab-error ] || fail "no evidence from a hook: $got"
	# a channel of a newer schema than this classifier reads is a lab error;
	# the version it reads is analysis/channel.schema.json's, the driver's
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		classify({status: "finished", exit: 0}; {gone: true, probes: []}; null; ""; ""; channel_version + 1;
			{workload: {kind: "bomb"}, defence: {hook: null}, kernel: {time_scale: 1}}; ["oom-killer"]) | join(": ")')
	[ "$got" = "lab-error: the guest driver wrote channel schema 2; this lab reads up to 1" ] ||
		fail "a newer channel: $got"
	[ "$(sed -n 's/^#define CHANNEL_SCHEMA\t*\([0-9]*\)$/\1/p' "$LAB_ROOT/workloads/lcalab-run.c")" = \
		"$(jq -n -L "$LAB_ROOT/analysis" 'include "outcome"; channel_version')" ] ||
		fail "lcalab-run.c's CHANNEL_SCHEMA is not analysis/channel.schema.json's version"
	# a debug build's hung run says its deadlines were scaled
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		classify({status: "hung", timeout: 330}; null; null; ""; ""; 0;
			{workload: {kind: "bomb"}, defence: {hook: null}, kernel: {time_scale: 3}}; []) | .[1]')
	[ "$got" = "no end from the guest within 330 s; QEMU killed (a debug build: deadlines x3)" ] ||
		fail "a scaled hung run: $got"
	# under icount the deadline is in guest seconds, and a silent ticker is a hang
	got=$(jq -n -r -L "$LAB_ROOT/analysis" 'include "outcome";
		[{status: "hung", timeout: 210, hung_by: "guest-deadline", guest_seconds: 214},
		 {status: "hung", timeout: 210, hung_by: "stalled", guest_seconds: 57}][]
		| classify(.; null; null; ""; ""; 0; {workload: {kind: "bomb"}, defence: {hook: null}, kernel: {time_scale: 1}}; []) | join(": ")')
	[ "$got" = "hung: no end from the guest within 210 guest s; QEMU killed
hung: the guest stopped running at guest second 57 (its ticker silent); QEMU killed" ] || fail "icount hangs: $got"
}

# A systemd session's TasksMax acts when it refuses the workload's forks
# (fork_refusals, the workload cgroup's pids.events max): in a systemd
# desktop only, and not when nothing was refused.
t_unit_session_tasksmax_acted() {
	local got
	got=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome";
		[{s: "systemd", n: 12}, {s: "systemd", n: 0}, {s: null, n: 12}, {s: "systemd", n: null}][]
		| {cell: {desktop: {session: .s}, defence: {label: "-"}}, fork_refusals: .n, defence_evidence: null}
		| acted(false)')
	[ "$got" = '["TasksMax"]
[]
[]
[]' ] || fail "acted: $got"
}

# Each lost probe's cause, from the evidence: a kill line names it, an LCA
# decision killed its ancestor's subtree, only a defence acted, or unknown.
t_unit_probe_deaths_name_their_cause() {
	local got
	got=$(jq -n -c -L "$LAB_ROOT/analysis" 'include "outcome";
		{probe_pids: {daemon: 9, session: 10, editor: 11, browser: 12, terminal: 13},
		 probe_ppids: {daemon: 1, session: 5, editor: 5, browser: 5, terminal: 5},
		 probes_lost: ["session", "editor", "browser", "daemon"], terminal_lost: true, acted: ["oom-killer", "lca"],
		 lca_decisions: [{lca: 0, killed: 0}, {lca: 5, killed: 9}]} as $r
		| ($r | probe_deaths([12])),
		  ($r | .lca_decisions = [] | .acted = ["earlyoom"] | probe_deaths([])),
		  ($r | .probe_pids = null | probe_deaths([12]))')
	printf '%s\n' "$got"
	[ "$(sed -n 1p <<<"$got")" = '[{"name":"session","cause":"lca subtree of 5"},{"name":"editor","cause":"lca subtree of 5"},{"name":"browser","cause":"oom-kill"},{"name":"daemon","cause":"unknown"},{"name":"terminal","cause":"lca subtree of 5"}]' ] ||
		fail "kill lines and subtrees"
	[ "$(sed -n 2p <<<"$got" | jq -r 'map(.cause) | unique | join(",")')" = "defence earlyoom" ] || fail "a defence's kills"
	[ "$(sed -n 3p <<<"$got" | jq -r 'map(.cause) | unique | join(",")')" = "unknown" ] || fail "no pids, no cause"
}

# lab/migrate brings a schema 2 run (two cells of results/policies, made
# before the desktops) to schema 3: each cell names the flat desktop with
# the browser it ran, the time scale and the clock; the records keep the
# cell nested only; no outcome changes; the report reads it. A migration
# that fails half-way leaves the run as it was.
t_unit_migrate_schema_2() {
	local dir out
	dir=$(mktemp -d)/run
	cp -r "$TEST_FIXTURES/run-v2" "$dir"
	expect_exit 1 'written by schema 2; this lab reads 3 \(lab/migrate ' "$LAB_ROOT/analysis/report" "$dir" --no-figures
	cp -r "$dir" "$dir.broken"
	rm "$dir.broken/cells/1-a-off-lca/boot.json"
	cp -r "$dir.broken" "$dir.before"
	expect_exit 1 'cells/1-a-off-lca: no record' "$LAB_ROOT/lab/migrate" "$dir.broken"
	diff -r "$dir.before" "$dir.broken" || fail "a failed migration changed the run"
	out=$("$LAB_ROOT/lab/migrate" "$dir" 2>&1) || fail "lab/migrate failed: $out"
	printf '%s\n' "$out"
	grep -qF '(0 changed)' <<<"$out" || fail "the migration changed outcomes"
	jq -e -s 'length == 2 and all(.[]; .schema == 3 and ([has("kernel", "workload", "swap", "rep", "desktop")] | any | not)
		and .cell.type == "survival" and .cell.kernel.time_scale == 1 and .cell.guest.clock == "wall"
		and .cell.desktop == {name: "flat", shape: "flat", browser_mb: 64, session: "lab",
		                      what: "everything under the login shell, a 64 MB browser"})' "$dir/runs.jsonl" >/dev/null ||
		fail "the migrated records: $(head -1 "$dir/runs.jsonl")"
	"$LAB_ROOT/analysis/report" "$dir" --no-figures || fail "no report of the migrated run"
	grep -qF 'flat = everything under the login shell, a 64 MB browser' "$dir/report.md" || fail "the desktop is not named"
	expect_exit 1 'of schema 3 already' "$LAB_ROOT/lab/migrate" "$dir"
}
