# shellcheck shell=bash
# The overhead experiment, seconds-long, through the runner: one round,
# few iterations, on stock and lca under -icount (the wall clock's boots
# differ only by the flag, and the OOM decision's below run on it); the
# OOM decision on a small population, the stock policy (lca-off) and lca
# on the debug build (it has the tracers; make test builds it anyway) on
# the wall clock (under -icount, one vCPU, a debug boot takes 60-80 s:
# measured).

t_stock_overhead_short_run() {
	local out f
	out=$(mktemp -d "$LAB_BUILD/boots/test-overhead-XXXX")
	EXPERIMENT=overhead OVERHEAD_KERNELS="stock lca" OVERHEAD_ROUNDS=1 OVERHEAD_ITERATIONS=50 \
		OVERHEAD_CLOCKS=icount OVERHEAD_SPAWNS=20 OVERHEAD_HYPERFINE_RUNS=2 OOMCOST_SHAPES="tree:200" \
		OOMCOST_KERNELS="lca-off@lca-debug lca@lca-debug" OOMCOST_REPS=1 \
		OOMCOST_CLOCKS=wall OOMCOST_MEM=512M RESULTS=$out RUN_ID=o "$LAB_ROOT/lab/run" || fail "the overhead run failed"
	[ "$(wc -l <"$out/o/runs.jsonl")" -eq 6 ] || fail "expected 6 records (2 pahole, 2 forkbench, 2 oomcost)"
	# a record keeps its cell's column, clock and round in the cell only
	jq -e -s 'all(.[]; (has("variant") or has("clock") or has("round")) | not)
		and all(.[] | select(.type == "oomcost") | .lines[]; (has("variant") or has("clock") or has("sysctls")) | not)' \
		"$out/o/runs.jsonl" >/dev/null || fail "a record repeats its cell outside it"
	# each cell names the build it measured (lab/run's resume checks it)
	for f in "$out"/o/cells/*/cell.json; do
		jq -e '(.cell.kernel.build // .cell.build) as $b | .build.variant == $b and (.build.series_hash | startswith($b))
			and .ended != null' "$f" >/dev/null || fail "$f does not name its build"
	done
	[ "$(find "$out/o/cells" -name cell.json | wc -l)" -eq 6 ] || fail "not a cell.json in each of the 6 cells"
	# the measurement's lines and their summaries, from the run directory alone
	f=$out/lines.jsonl
	"$LAB_ROOT/analysis/overhead" "$out/o" --all >"$f" || fail "analysis/overhead failed"
	"$LAB_ROOT/analysis/report" "$out/o" || fail "the report of the overhead run failed"
	grep -q '^| fork lca/stock (icount) | ' "$out/o/report.md" || fail "the report has no ratio table"
	check_oom_cost "$f"
	[ "$(jq -s 'map(select(.type == "boot")) | length' "$f")" -eq 2 ] || fail "expected 2 boot lines"
	jq -e -s 'map(select(.type == "boot")) | all(.bench | length == 5 and all(.median_ns > 0 and .n == 50))' "$f" >/dev/null ||
		fail "a boot lacks a benchmark mode"
	jq -e -s 'map(select(.type == "boot" and .variant == "lca")) | all(.oom_kill_lca == 1)' "$f" >/dev/null ||
		fail "lca did not run with the policy on"
	jq -e -s 'map(select(.type == "boot" and .variant == "stock")) | all(.oom_kill_lca == null)' "$f" >/dev/null ||
		fail "stock has an LCA switch"
	# the size delta is the fields' 56 bytes, rounded up to the struct's
	# 64-byte alignment (object sizes are multiples of 64)
	jq -e -s 'map(select(.type == "size")) | first
		| .consistent and .stock.objsize % 64 == 0 and .lca.objsize % 64 == 0
		  and .delta_bytes >= .fields_bytes and .delta_bytes == ((.fields_bytes + 63) / 64 | floor) * 64' "$f" >/dev/null ||
		fail "task_struct grew by $(jq -s -r 'map(select(.type == "size")) | first | .delta_bytes' "$f") bytes, not the fields' size after alignment"
	[ "$(jq -s 'map(select(.type == "ratio" and (.mode | IN("fork", "exec", "vfork", "spawn", "thread")))) | length' "$f")" -eq 5 ] ||
		fail "expected 5 forkbench ratio lines (5 modes)"
	[ "$(jq -s 'map(select(.type == "ratio" and .mode == "shell-loop")) | length' "$f")" -eq 1 ] ||
		fail "expected 1 hyperfine shell-loop ratio"
	jq -e -s 'map(select(.type == "boot")) | all(.perf | has("task-clock"))' "$f" >/dev/null || fail "no perf stat in a boot"
	jq -e -s 'map(select(.type == "ratio")) | all(.n == 1 and .ci_low == null and .distinguishable == false)' "$f" >/dev/null ||
		fail "a ratio from one sample a side claims an interval"
	jq -r 'select(.type == "ratio") | "\(.figure): \(.ratio) [\(.ci_low), \(.ci_high)]"' "$f"
}

# Two OOM kills per population: fat1, then fat2; on lca the second takes
# the root's whole subtree (all but fat1, which went first), under the
# stock policy (lca-off) only fat2. The tracer timed out_of_memory() and
# the LCA decision ran on lca alone. pahole (stock and lca, the builds
# whose fork cost is measured): the node is 56 bytes of members and
# task_struct grows by those rounded up to its 64-byte alignment, as the
# slab's object size does. The irqsoff tracer found a longest
# interrupts-off section in each population's extra repetition.
check_oom_cost() {
	local f=$1
	[ "$(jq -s 'map(select(.type == "oom")) | length' "$f")" -eq 4 ] || fail "expected 4 oom lines (2 variants x 2 kills)"
	jq -e -s 'map(select(.type == "oom")) | all(
		(.victim == (if .oom == 1 then "oomcost-fat1" else "oomcost-fat2" end))
		and .us.out_of_memory > 0 and .us.dump_header > 0 and .us.out_of_memory > .us.oom_kill_process
		and .calls.out_of_memory == 1
		and (if (.variant | startswith("lca-off@")) or .oom == 1 then .gone == 1 else true end))' "$f" >/dev/null ||
		fail "an OOM kill chose or killed the wrong process: $(jq -c 'select(.type == "oom") | {variant, shape, oom, victim, gone}' "$f" | tr '\n' ' ')"
	jq -e -s 'map(select(.type == "oom" and .variant == "lca@lca-debug" and .oom == 2)) | length == 1 and all(
		(if .shape == "tree" then .size - 1 else .size + 2 end) as $rest
		| .lca == "oomcost-root" and .lca_killed == $rest and .gone == $rest and .calls.oom_lca_decide == 1)' "$f" >/dev/null ||
		fail "lca's second kill did not take the root's subtree: $(jq -c 'select(.type == "oom" and .variant == "lca@lca-debug") | {shape, oom, lca, lca_killed, gone}' "$f" | tr '\n' ' ')"
	jq -e -s 'map(select(.type == "oom" and .variant == "lca-off@lca-debug")) | length == 2 and all(.lca == null and .calls.oom_lca_decide == 0)' "$f" >/dev/null ||
		fail "the stock policy (lca-off) ran an LCA decision"
	jq -e -s 'map(select(.type == "size")) | first | .fields_bytes as $fields | .delta_bytes as $slab | .pahole
		| .base_build == "stock" and .lca_build == "lca" and .lca.node.size == $fields and .stock.node == null
		  and .delta_members == $fields and .delta_bytes == (($fields + 63) / 64 | floor) * 64
		  and .delta_bytes == $slab' "$f" >/dev/null ||
		fail "pahole: $(jq -c -s 'map(select(.type == "size")) | first | .pahole' "$f")"
	[ "$(jq -s 'map(select(.type == "ratio" and (.mode | startswith("oom-")))) | length' "$f")" -eq 2 ] ||
		fail "expected 2 OOM-decision ratio lines (lca against the stock policy, kills 1 and 2)"
	# the irqsoff tracer's longest section, one per variant
	jq -e -s 'map(select(.type == "irqsoff_max")) | length == 2
		and all(.max_us > 0 and .started_at != "?" and .ended_at != "?")' "$f" >/dev/null ||
		fail "irqsoff: $(jq -c 'select(.type == "irqsoff_max")' "$f" | tr '\n' ' ')"
	jq -r 'select(.type == "irqsoff_max") | "irqsoff \(.variant) \(.shape):\(.size): \(.max_us) us, \(.started_at) .. \(.ended_at)"' "$f"
}

# A population's own repetitions (tree:NxR) override OOMCOST_REPS for its
# cells alone; the matrix names the population without them.
t_unit_overhead_reps_per_population() {
	local plan
	plan=$(EXPERIMENT=overhead OOMCOST_REPS=7 OOMCOST_SHAPES="tree:10 chain:5x2" "$LAB_ROOT/lab/plan") ||
		fail "lab/plan failed"
	[ "$(jq -s -c 'map(select(.type == "oomcost") | {shape, reps: .params.reps}) | unique' <<<"$plan")" = \
		'[{"shape":"chain:5","reps":2},{"shape":"tree:10","reps":7}]' ] ||
		fail "repetitions per population: $(jq -s -c 'map(select(.type == "oomcost") | [.id, .params.reps])' <<<"$plan")"
	[ "$(EXPERIMENT=overhead OOMCOST_SHAPES="tree:10 chain:5x2" "$LAB_ROOT/lab/plan" --matrix | jq -c .shapes)" = \
		'["tree:10","chain:5"]' ] || fail "the matrix names a population with its repetitions"
}

t_unit_overhead_rejects_bad_input() {
	local results run=("$LAB_ROOT/lab/run")
	results=$(mktemp -d)
	expect_exit 2 "OVERHEAD_ROUNDS must be a number, not .x." env EXPERIMENT=overhead OVERHEAD_ROUNDS=x "${run[@]}"
	expect_exit 2 "unknown clock 'sundial'" env EXPERIMENT=overhead OVERHEAD_CLOCKS="wall sundial" "${run[@]}"
	expect_exit 2 "bad population 'bush:3'" env EXPERIMENT=overhead OOMCOST_SHAPES="tree:10 bush:3" "${run[@]}"
	expect_exit 2 "bad population 'tree:10x0'" env EXPERIMENT=overhead OOMCOST_SHAPES="tree:10x0" "${run[@]}"
	expect_exit 2 "'tree:10' is named twice" env EXPERIMENT=overhead OOMCOST_SHAPES="tree:10 tree:10x4" "${run[@]}"
	expect_exit 2 "unknown kernel 'nope'" env EXPERIMENT=overhead OOMCOST_KERNELS="stock nope" "${run[@]}"
	expect_exit 2 "OOMCOST_MEM 'lots' is not a size" env EXPERIMENT=overhead OOMCOST_MEM=lots "${run[@]}"
	# make overhead refuses them before it builds anything
	expect_exit 2 "bad population 'bush:3'" make -s -C "$LAB_ROOT" overhead OOMCOST_SHAPES=bush:3 \
		LAB_BUILD="$results/build" RESULTS="$results"
	[ -z "$(ls -A "$results")" ] || fail "a refused run wrote into $results"
	expect_exit 2 "usage: oomcost" "$LAB_BUILD/guest-bin/oomcost" tree 3
	expect_exit 2 "refusing to run: not inside a lab guest" "$LAB_BUILD/guest-bin/oomcost" tree 100
	expect_exit 2 "forkbench: unknown mode 'spoon'" "$LAB_BUILD/guest-bin/forkbench" spoon
	expect_exit 2 "-n wants a number from 10" "$LAB_BUILD/guest-bin/forkbench" -n 1 fork
	expect_exit 2 "refusing to run: not inside a lab guest" "$LAB_BUILD/guest-bin/forkbench" fork
}

# The pahole cell takes kbuild's own compile of kernel/fork.c from
# kernel/.fork.o.cmd, whose line is cmd_kernel/fork.o before Linux 6.4 and
# savedcmd_kernel/fork.o since (6.12's overhead run failed on it): a
# stand-in tree with a task_struct holding the LCA node, in both forms.
t_unit_overhead_pahole_reads_both_cmd_forms() {
	local lab prefix out
	lab=$(mktemp -d)
	mkdir -p "$lab/kernels/stock" "$lab/trees/stock/kernel"
	echo '{"variant": "stock"}' >"$lab/kernels/stock/kernel.json"
	printf '%s\n' 'struct oom_lca_node { void *parent, *next, *prev; };' \
		'struct task_struct { long state; struct oom_lca_node oom_lca; int pid; };' \
		'struct task_struct init_task;' >"$lab/trees/stock/kernel/fork.c"
	for prefix in cmd_ savedcmd_; do
		printf '%s\n' "${prefix}kernel/fork.o := gcc -Wp,-MMD,kernel/.fork.o.d -O2 -c -o kernel/fork.o kernel/fork.c ; true" \
			>"$lab/trees/stock/kernel/.fork.o.cmd"
		out=$lab/out-$prefix
		LAB_BUILD=$lab "$LAB_ROOT/lab/overhead-cell" --cell \
			<(jq -n -c '{type: "pahole", id: "pahole-stock", key: "pahole stock", build: "stock"}') "$out" ||
			fail "the pahole cell failed on a ${prefix} line"
		jq -e '.size == 40 and .node == {offset: 8, size: 24}' "$out/record.json" >/dev/null ||
			fail "${prefix}: not the stand-in's layout: $(cat "$out/record.json")"
	done
}

# The task_struct size of a run on another kernel line (stock@6.12 against
# lca@6.12): results/overhead-6.12's layout cells and its first round's
# boots (one boot a side: no bootstrap). analysis/overhead named the
# columns stock and lca only and failed on it.
t_unit_overhead_size_on_another_line() {
	local run out
	run=$(mktemp -d)/overhead-6.12
	cp -r "$LAB_ROOT/results/overhead-6.12" "$run"
	jq -c 'select(.type == "pahole" or (.type == "forkbench" and .cell.round == 1))' \
		"$LAB_ROOT/results/overhead-6.12/runs.jsonl" >"$run/runs.jsonl"
	out=$("$LAB_ROOT/analysis/overhead" "$run") || fail "analysis/overhead failed on the 6.12 run"
	jq -e -s 'map(select(.type == "size")) | length == 1 and (.[0] | .consistent and .delta_bytes > 0
		and .delta_bytes == .lca.objsize - .stock.objsize
		and .pahole.base_build == "stock@6.12" and .pahole.lca_build == "lca@6.12")' <<<"$out" >/dev/null ||
		fail "no task_struct size of the 6.12 columns: $(jq -c 'select(.type == "size")' <<<"$out")"
}
