# shellcheck shell=bash
# The overhead measurement, seconds-long: one round, few iterations, both
# clocks, on stock, lca and lca with the switch off.

t_boot_overhead_short_run() {
	local out f
	out=$(mktemp -d "$LAB_BUILD/boots/test-overhead-XXXX")
	OVERHEAD_ROUNDS=1 OVERHEAD_ITERATIONS=50 OVERHEAD_CLOCKS="wall icount" OVERHEAD_SPAWNS=20 OVERHEAD_HYPERFINE_RUNS=2 \
		"$LAB_ROOT/lab/overhead" "$out" || fail "lab/overhead failed"
	f=$out/overhead.jsonl
	[ "$(jq -s 'map(select(.type == "boot")) | length' "$f")" -eq 6 ] || fail "expected 6 boot lines"
	jq -e -s 'map(select(.type == "boot")) | all(.bench | length == 5 and all(.median_ns > 0 and .n == 50))' "$f" >/dev/null ||
		fail "a boot lacks a benchmark mode"
	jq -e -s 'map(select(.type == "boot" and .variant == "lca-off")) | all(.oom_kill_lca == 0)' "$f" >/dev/null ||
		fail "lca-off did not run with the switch off"
	jq -e -s 'map(select(.type == "boot" and .variant == "stock")) | all(.oom_kill_lca == null)' "$f" >/dev/null ||
		fail "stock has an LCA switch"
	# the size delta is the fields' 40 bytes, rounded up to the struct's
	# 64-byte alignment (object sizes are multiples of 64)
	jq -e -s 'map(select(.type == "size")) | first
		| .consistent and .stock.objsize % 64 == 0 and .lca.objsize % 64 == 0
		  and .delta_bytes >= .fields_bytes and .delta_bytes == ((.fields_bytes + 63) / 64 | floor) * 64' "$f" >/dev/null ||
		fail "task_struct grew by $(jq -s -r 'map(select(.type == "size")) | first | .delta_bytes' "$f") bytes, not the fields' size after alignment"
	[ "$(jq -s 'map(select(.type == "ratio" and (.mode | IN("fork", "exec", "vfork", "spawn", "thread")))) | length' "$f")" -eq 20 ] ||
		fail "expected 20 forkbench ratio lines (5 modes x 2 variants x 2 clocks)"
	[ "$(jq -s 'map(select(.type == "ratio" and .mode == "shell-loop")) | length' "$f")" -eq 4 ] ||
		fail "expected 4 hyperfine shell-loop ratios"
	jq -e -s 'map(select(.type == "boot")) | all(.perf | has("task-clock"))' "$f" >/dev/null || fail "no perf stat in a boot"
	jq -e -s 'map(select(.type == "ratio")) | all(.ci_low <= .ratio and .ratio <= .ci_high and .n == 1)' "$f" >/dev/null ||
		fail "a ratio lies outside its interval"
	jq -r 'select(.type == "ratio") | "\(.figure): \(.ratio) [\(.ci_low), \(.ci_high)]"' "$f"
}

t_unit_overhead_rejects_bad_input() {
	expect_exit 2 "OVERHEAD_ROUNDS must be a positive number" env OVERHEAD_ROUNDS=0 "$LAB_ROOT/lab/overhead" /tmp/x
	expect_exit 2 "unknown clock 'sundial'" env OVERHEAD_CLOCKS="wall sundial" "$LAB_ROOT/lab/overhead" /tmp/x
	expect_exit 2 "forkbench: unknown mode 'spoon'" "$LAB_BUILD/guest-bin/forkbench" spoon
	expect_exit 2 "-n wants a number from 10" "$LAB_BUILD/guest-bin/forkbench" -n 1 fork
	expect_exit 2 "refusing to run: not inside a lab guest" "$LAB_BUILD/guest-bin/forkbench" fork
}
