# shellcheck shell=bash
# shellcheck disable=SC2016 # the guest commands are single-quoted on purpose: they expand in the guest
# Real boots of the lca kernels: KUnit, the switch, a bomb's decisions;
# group lca on the default line (lca, lca-debug), group line on the other
# lines make test builds (lca@LINE in TEST_BUILDS), group stock on the
# stock build beside lca (make test-stock).

# boot_on BUILD BOOT-ARGS...: a boot that must exit 0; prints its directory.
boot_on() {
	local build=$1 d
	shift
	d=$(mktemp -d "$LAB_BUILD/boots/test-$build-XXXX")
	boot_guest "$d" --kernel "$build" "$@" >&2
	[ "$(cat "$d/rc")" = 0 ] || fail "$build boot exited $(cat "$d/rc") ($d)"
	printf '%s\n' "$d"
}

lca_boot() {
	boot_on lca "$@"
}

# on_other_lines CHECK COLUMN: CHECK COLUMN@LINE for each other line make
# test boots (each lca@LINE in TEST_BUILDS), in this shell, so that a
# failure (or no such line at all) fails the test.
on_other_lines() {
	local b n=0
	for b in $TEST_BUILDS; do
		[[ $b == lca@* ]] || continue
		"$1" "$2@${b#lca@}"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || fail "TEST_BUILDS ($TEST_BUILDS) names no lca@LINE"
}

t_lca_kunit_and_knobs() {
	check_kunit_and_knobs lca
}

t_line_kunit_and_knobs() {
	on_other_lines check_kunit_and_knobs lca
}

# One boot of BUILD: KUnit's KTAP report of the oom_lca suite, read from
# the ring buffer, and the policy's knobs: defaults, accepted values,
# refusals.
check_kunit_and_knobs() {
	local d ok notok want build=$1
	d=$(boot_on "$build" -- 'dmesg | sed -n "s/^\[[ 0-9.]*\] //p" | sed -n "/# Subtest: oom_lca/,/^ok .* oom_lca\|^not ok .* oom_lca/p"
		cd /proc/sys/vm
		for f in oom_kill_lca oom_kill_lca_score oom_kill_lca_window_ms; do echo "$f=$(cat $f)"; done
		try() { if echo "$2" >"$1" 2>/dev/null; then echo "$1:$2=accepted"; else echo "$1:$2=refused"; fi; }
		try oom_kill_lca 0; try oom_kill_lca 2; try oom_kill_lca 3; try oom_kill_lca -1
		try oom_kill_lca_score 2; try oom_kill_lca_score 3
		try oom_kill_lca_window_ms 0; try oom_kill_lca_window_ms 999
		try oom_kill_lca_window_ms 1000; try oom_kill_lca_window_ms 3600001')
	cat "$d/channel.log"
	ok=$(grep -cE '^ +ok [0-9]+ lca_' "$d/channel.log" || true)
	notok=$(grep -cE '^ +not ok [0-9]+ ' "$d/channel.log" || true)
	[ "$notok" -eq 0 ] || fail "$build: $notok KUnit cases failed"
	[ "$ok" -eq 27 ] || fail "$build: $ok KUnit cases passed, expected 27"
	grep -qE '^ok [0-9]+ oom_lca$' "$d/channel.log" || fail "$build: the oom_lca suite did not pass"
	for want in oom_kill_lca=0 oom_kill_lca_score=1 oom_kill_lca_window_ms=10000 \
		oom_kill_lca:0=accepted oom_kill_lca:2=accepted oom_kill_lca:3=refused oom_kill_lca:-1=refused \
		oom_kill_lca_score:2=accepted oom_kill_lca_score:3=refused \
		oom_kill_lca_window_ms:0=refused oom_kill_lca_window_ms:999=refused \
		oom_kill_lca_window_ms:1000=accepted oom_kill_lca_window_ms:3600001=refused; do
		grep -qx "$want" "$d/channel.log" || fail "$build: expected $want"
	done
}

# folkert, a page per allocation (lab/test/fixtures/own/pagebomb.sh: at
# the OOM killer in seconds), in a 256 MB guest without swap, through the run driver (the
# bomb's cgroup is killed in one write at the end; a shell pkill loop could
# not keep up with a bomb that reforks under TCG), on kernel column
# COLUMN, until the driver saw UNTIL (KEY=N: the events the test is about;
# then the run stops, inconclusive about survival, and says so). The guest
# (and the protected driver) must survive to report, and every oom_lca:
# line must be a decision in the documented format or a documented "is
# exiting: no decision". Sets $record to the run's record.
lca_bomb() {
	local column=$1 until=$2 d lines decisions bomb=$LAB_ROOT/lab/test/fixtures/own/pagebomb.sh
	d=$(mktemp -d "$LAB_BUILD/boots/test-$column-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 40 --until "$until" --desktop article-nobig "$column" off "$bomb" "$d" \
		>"$d/out.json" || fail "run-cell $column failed ($d)"
	jq -c '{outcome, outcome_reason, stopped_by, oom_kills, lca_decisions}' "$d/out.json"
	[ "$(jq -r .outcome "$d/out.json")" != hung ] || fail "the guest hung ($d)"
	jq -e --arg u "$until" '.stopped_by == $u and .outcome == "inconclusive"' "$d/out.json" >/dev/null ||
		fail "the run did not stop at $until as an inconclusive record ($d)"
	grep -o 'oom_lca: .*' "$d/console.log" || true
	grep -o 'oom_lca: .*' "$d/console.log" | grep -vE "$decision_re|$exiting_re" &&
		fail "an oom_lca: line does not match the documented format"
	lines=$(grep -cE "$decision_re" "$d/console.log" || true)
	decisions=$(jq '.lca_decisions | length' "$d/out.json")
	[ "$decisions" -eq "$lines" ] || fail "the driver parsed $decisions of $lines decisions"
	# the sampler is runnable as it reads: every sample counts it
	jq -R -e -n '[inputs | fromjson? | select(.type == "sample") | .running]
		| length > 0 and all(. >= 1)' "$d/channel.log" >/dev/null ||
		fail "a sample lacks the runnable tasks ($d/channel.log)"
	jq -R -e -n '[inputs | fromjson? | select(.type == "result")][0]
		| (.oom_reaped | type) == "number" and (.oom_unreapable | type) == "number"' \
		"$d/channel.log" >/dev/null || fail "the result lacks the oom_reaper's counts"
	record=$d/out.json
}

decision_re='oom_lca: victim=[0-9]+\(.*\) prev=[0-9]+ lca=[0-9]+\(.*\) killed=[0-9]+ anchor=[0-9]+$'
exiting_re='oom_lca: victim=[0-9]+\(.*\) is exiting: no decision$'

# Rule 1, the intended climb, on the debug build (make test's one bomb
# there): the first decision has no anchor and kills the victim alone; a
# subtree is killed only from an anchor, and counts the victim; the bomb
# must meet at least one subtree kill. The cell's deadlines were scaled,
# the console carried warnings, and no checker fired. On the wall clock:
# on the counted one, where the debug build's checkers add instructions and
# so guest time to every memory access, this bomb met no OOM kill in its
# 120 guest s (stalled, twice; 2026-12-07); on the wall clock with one vCPU,
# as under icount, the second LCA kill came at 61.6 s.
t_lca_rule_intended() {
	local record f
	SURVIVAL_CLOCK=wall lca_bomb lca@lca-debug lca_killed=2
	f=$record
	jq -e --argjson s "$DEBUG_TIME_SCALE" '.cell.kernel | .time_scale == $s and .column == "lca@lca-debug"' "$f" >/dev/null ||
		fail "the record does not say the cell was scaled"
	grep -qF -- "$DEBUG_CMDLINE_APPEND" <(jq -r .cmdline "$(dirname "$f")/boot.json") ||
		fail "the debug boot did not get $DEBUG_CMDLINE_APPEND"
	check_rule_intended "$f"
}

# The record $1 of a bomb under rule 1: no splat; the first decision kills
# the victim alone, a subtree only from an anchor, and one did.
check_rule_intended() {
	local f=$1
	jq -e '.kernel_splats == []' "$f" >/dev/null || fail "kernel splats: $(jq -c .kernel_splats "$f")"
	jq -e '.lca_decisions | length > 0' "$f" >/dev/null || fail "no decision"
	jq -e '.lca_decisions[0] | .prev == 0 and .lca == 0 and .killed == 0' "$f" >/dev/null ||
		fail "the first decision was not the victim alone"
	jq -e 'all(.lca_decisions[]; if .lca > 0 then .prev > 0 and .killed >= 1 else .killed == 0 end)' "$f" \
		>/dev/null || fail "a decision broke rule 1"
	jq -e 'any(.lca_decisions[]; .lca > 0 and .killed > 1)' "$f" >/dev/null || fail "no subtree kill"
}

# Rule 2, the 2005 code as shipped: every decision kills the victim's own
# subtree (the as-shipped search names the victim or nothing).
t_lca_rule_2005() {
	check_rule_2005 lca-2005
}

check_rule_2005() {
	lca_bomb "$1" lca_decisions=1
	jq -e '.lca_decisions | length > 0' "$record" >/dev/null || fail "$1: no decision"
	jq -e 'all(.lca_decisions[]; .lca == .victim and .killed >= 1)' "$record" >/dev/null ||
		fail "$1: a decision did not kill the victim's subtree"
}

# Rule 0 on the lca build is the stock policy: OOM kills, no decision.
t_lca_rule_stock() {
	check_rule_stock lca-off
}

check_rule_stock() {
	lca_bomb "$1" oom_kills=2
	jq -e '.oom_kills > 0 and (.lca_decisions | length) == 0' "$record" >/dev/null ||
		fail "$1: rule 0 must kill without decisions"
}

# One bomb per rule on each other line: rule 0 kills without decisions,
# rule 1 climbs to a subtree kill, rule 2 kills victims' subtrees.
t_line_rule_stock() {
	on_other_lines check_rule_stock lca-off
}

t_line_rule_intended() {
	on_other_lines bomb_rule_intended lca
}

bomb_rule_intended() {
	lca_bomb "$1" lca_killed=2
	check_rule_intended "$record"
}

t_line_rule_2005() {
	on_other_lines check_rule_2005 lca-2005
}

# The intended rule climbs over three decisions (workloads/climb: a tree
# root - a - b - {fat1, fat2}, a - fat3 and three SysRq-f): fat1 alone,
# anchor b; then b's subtree, anchor a; then a's subtree, anchor root.
t_lca_climb_three_decisions() {
	local d
	d=$(lca_boot -- 'echo 1 >/proc/sys/vm/oom_kill_lca
		echo 60000 >/proc/sys/vm/oom_kill_lca_window_ms
		/lab/bin/climb
		dmesg | grep -o "oom_lca: .*"')
	cat "$d/channel.log"
	pid() { jq -r --arg n "$1" 'select(.pids) | .pids[$n]' "$d/channel.log" 2>/dev/null; }
	jq -R 'fromjson? | select(.step == 3) | .gone == ["a", "b", "fat1", "fat2", "fat3"]' "$d/channel.log" |
		grep -qx true || fail "the three steps did not kill the whole tree below the root"
	for want in \
		"victim=$(pid fat1)(fat1) prev=0 lca=0(-) killed=0 anchor=$(pid b)" \
		"victim=$(pid fat2)(fat2) prev=$(pid b) lca=$(pid b)(b) killed=2 anchor=$(pid a)" \
		"victim=$(pid fat3)(fat3) prev=$(pid a) lca=$(pid a)(a) killed=2 anchor=$(pid climb)"; do
		grep -qxF "oom_lca: $want" "$d/channel.log" || fail "no decision 'oom_lca: $want'"
	done
}

# Members of a killed subtree are OOM victims, as the victim is (2005 gave
# each TIF_MEMDIE): the same climb on the debug build, whose tracer
# records each mark_victim. The three victims and the two members (b, then
# a) must each be marked once; until 2026-12-06 only the victims were, and
# a bomb's killed members thrashed without the reserves or the oom_reaper
# (an `a` cell on lca-2005 stalled with 930 of them unexited).
t_lca_subtree_members_are_victims() {
	local d marked
	d=$(boot_on lca-debug -- 'mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
		echo 1 >/sys/kernel/tracing/events/oom/mark_victim/enable
		echo 1 >/proc/sys/vm/oom_kill_lca
		echo 60000 >/proc/sys/vm/oom_kill_lca_window_ms
		/lab/bin/climb
		sed -n "s/.*mark_victim: pid=[0-9]* comm=\([^ ]*\) .*/marked=\1/p" /sys/kernel/tracing/trace')
	grep -E '^marked=|"step":3' "$d/channel.log" || true
	marked=$(sed -n 's/^marked=//p' "$d/channel.log" | sort | xargs)
	[ "$marked" = "a b fat1 fat2 fat3" ] || fail "marked OOM victims: '$marked', expected 'a b fat1 fat2 fat3' ($d)"
}

# Rule 0 is the stock policy, whatever the score knob says: workloads/victims
# (solo 32 MB; pa 28 MB with four 16 MB children) and three SysRq-f take
# solo, pa, then a child on stock (t_stock_victims_order), and the same on
# the lca build with vm.oom_kill_lca=0 and vm.oom_kill_lca_score=1, whose
# share of the children would make pa first (the ten-patch series of
# December 2026 did: rule 0 scored with the share).
victims_order='{"order":["solo","pa","ch"]}'

t_lca_rule_off_is_stock() {
	local d
	d=$(lca_boot -- 'echo 0 >/proc/sys/vm/oom_kill_lca; echo 1 >/proc/sys/vm/oom_kill_lca_score
		/lab/bin/victims; dmesg | grep -c "oom_lca: victim" || true')
	cat "$d/channel.log"
	grep -qxF "$victims_order" "$d/channel.log" || fail "lca, rule 0: not the stock order ($d)"
	grep -qx 0 "$d/channel.log" || fail "rule 0 printed oom_lca: decision lines"
}

t_stock_victims_order() {
	local d
	d=$(boot_on stock -- /lab/bin/victims)
	grep -qxF "$victims_order" "$d/channel.log" || fail "stock: $(grep order "$d/channel.log") ($d)"
}

# A victim with 1,024 unreaped children, the walk's root under rule 2
# (lab/test/fixtures/own/zombies.sh): the ten-patch series of December 2026 looped for ever in
# its subtree kill, holding oom_lock (the run stalled, "inconclusive"). The
# run must end clean: the workload gone by the OOM killer, the guest alive.
t_lca_zombies_rule_2005() {
	lca_own_run lca-2005 zombies.sh
	jq -e 'any(.lca_decisions[]; .lca == .victim and .killed >= 1)' "$record" >/dev/null ||
		fail "no subtree kill of the victim"
}

# The same zombies inside rule 1's subtree kill, on the debug build: the
# second decision pairs the second hog with the root, whose subtree holds
# the keeper and its 1,024 zombies (lab/test/fixtures/own/zombietree.sh).
t_lca_zombies_rule_intended() {
	lca_own_run lca@lca-debug zombietree.sh
	jq -e 'any(.lca_decisions[]; .lca > 0 and .killed >= 3)' "$record" >/dev/null ||
		fail "no subtree kill of the root, the keeper and a hog"
	jq -e '.kernel_splats == []' "$record" >/dev/null || fail "kernel splats: $(jq -c .kernel_splats "$record")"
}

# A victim whose leader thread exited while another runs on, with four
# children (lab/test/fixtures/own/leaderless.sh): not dying, so under rule
# 2 its children go with it (the ten-patch series of December 2026 saw a dying victim, "no
# decision", and the children stayed).
t_lca_leaderless_rule_2005() {
	lca_own_run lca-2005 leaderless.sh
	jq -e 'any(.lca_decisions[]; .lca == .victim and .killed == 5)' "$record" >/dev/null ||
		fail "no decision that killed the victim and its four children"
}

# Rule 2's wait, 2005's: a scan that meets a process exiting with its
# memory waits for it, nine times in a row, and then passes it over until
# five seconds after the last wait. workloads/exiter's child stays exiting
# (its group exit begun) with its memory, held at its exit by its tracer,
# and its 1 GB of total_vm out-scores a leaking hog under 2005's badness():
# the child must never be a victim, the hog must (until 2026-12-06 the
# series scored the child after the ninth wait and chose it:
# "victim=PID(exiter) is exiting: no decision", and the oom_reaper took
# its memory). kernel-patch/README.md says where "exiting" differs from
# 2005's.
t_lca_wait_2005_passes_over() {
	check_wait_2005_passes_over lca
}

t_line_wait_2005_passes_over() {
	on_other_lines check_wait_2005_passes_over lca
}

check_wait_2005_passes_over() {
	local d
	d=$(boot_on "$1" -- 'echo 2 >/proc/sys/vm/oom_kill_lca; echo 2 >/proc/sys/vm/oom_kill_lca_score
		/lab/bin/exiter >/tmp/exiter &
		for i in $(seq 100); do grep -q "^exiting=" /tmp/exiter && break; sleep 0.1; done
		pid=$(sed -n "s/^exiting=//p" /tmp/exiter)
		echo "before=$(cut -d" " -f3 /proc/$pid/stat)"
		sh -c "echo 0 >/proc/self/oom_score_adj; exec /lab/bin/memhog -m 0" || true
		echo "after=$(cut -d" " -f3 /proc/$pid/stat)"
		dmesg | grep -o "oom_lca: .*"
		kill %1')
	cat "$d/channel.log"
	grep -qx 'before=t' "$d/channel.log" || fail "$1: the child was not held at its exit before the OOM ($d)"
	grep -qE '^oom_lca: victim=[0-9]+\(memhog\) prev=[0-9]+ lca=[0-9]+\(memhog\) killed=' "$d/channel.log" ||
		fail "$1: the hog was not the victim ($d)"
	grep -qx 'after=t' "$d/channel.log" || fail "$1: the child left its exit during the OOM ($d)"
	! grep -E '^oom_lca: victim=[0-9]+\(exiter\)' "$d/channel.log" || fail "$1: the exiting child was a victim ($d)"
}

# Rule 2 when the only process it could kill is exiting: the exiter's
# child (128 MB touched) and a hog at -1000 that needs 128 MB, then exits.
# 2005 passed the child over after nine waits, found nothing to kill and
# panicked; so did the series until 2026-12-07 ("System is deadlocked on
# memory"). The scan is now made again without the wait, as on stock: the
# child is the victim (an exiting one: no "Killed process" line, no
# decision), the oom_reaper frees its memory, the hog ends, and
# the child stays at its exit stop, as on stock (rule 0, and the stock
# build in the stock group).
t_lca_wait_2005_scans_again() {
	check_wait_2005_scans_again lca 2
	check_wait_2005_scans_again lca 0
}

t_line_wait_2005_scans_again() {
	on_other_lines check_wait_2005_scans_again lca
}

t_stock_exiter_is_reaped() {
	check_wait_2005_scans_again stock
}

# check_wait_2005_scans_again BUILD [RULE]: RULE [2] is the rule and the
# score (a stock build has neither).
check_wait_2005_scans_again() {
	local d
	d=$(boot_on "$1" -- 'for f in oom_kill_lca oom_kill_lca_score; do
			[ ! -e /proc/sys/vm/$f ] || echo '"${2:-2}"' >/proc/sys/vm/$f
		done
		/lab/bin/exiter 128 >/tmp/exiter &
		for i in $(seq 100); do grep -q "^exiting=" /tmp/exiter && break; sleep 0.1; done
		pid=$(sed -n "s/^exiting=//p" /tmp/exiter)
		/lab/bin/memhog -m 128 -s 1 && echo hog=done
		echo "after=$(cut -d" " -f3 /proc/$pid/stat)"
		echo "reaped=$(dmesg | sed -n "s/.*oom_reaper: reaped process [0-9]* (\(.*\)).*/\1/p" | xargs)"
		kill %1')
	grep -E '^(hog|after|reaped)=|Kernel panic|deadlocked|oom_lca:' "$d/console.log" "$d/channel.log" || true
	! grep -q 'Kernel panic' "$d/console.log" || fail "$1 ${2-}: the kernel panicked ($d)"
	grep -qx 'hog=done' "$d/channel.log" || fail "$1 ${2-}: the hog did not end ($d)"
	grep -qx 'after=t' "$d/channel.log" || fail "$1 ${2-}: the child left its exit stop ($d)"
	grep -qx 'reaped=exiter' "$d/channel.log" || fail "$1 ${2-}: the oom_reaper did not free the child's memory ($d)"
}

# Run COLUMN on the workload fixture FILE to its end, which must be
# clean (the workload gone, the guest alive); sets $record.
lca_own_run() {
	local column=$1 file=$LAB_ROOT/lab/test/fixtures/own/$2 d
	d=$(mktemp -d "$LAB_BUILD/boots/test-own-XXXX")
	"$LAB_ROOT/lab/run-cell" --desktop article-nobig "$column" off "$file" "$d" >"$d/out.json" ||
		fail "run-cell $column failed ($d)"
	jq -c '{outcome, outcome_reason, oom_kills, lca_decisions}' "$d/out.json"
	grep -o 'oom_lca: .*' "$d/console.log" | head -5 || true
	jq -e '.outcome == "clean"' "$d/out.json" >/dev/null ||
		fail "$column: the run ended $(jq -r '.outcome + ": " + .outcome_reason' "$d/out.json") ($d)"
	record=$d/out.json
}

# What a subtree kill may reach (workloads/scope, rule 2 with one SysRq-f):
# owner's own user's processes, inside a container (a pid namespace and a
# cgroup of its own) too, but not another user's process nor its child,
# nor the container's init (the ten-patch series of December 2026 killed the other user's two).
t_lca_scope() {
	local d
	d=$(lca_boot -- 'echo 2 >/proc/sys/vm/oom_kill_lca; echo 2 >/proc/sys/vm/oom_kill_lca_score
		/lab/bin/scope; dmesg | grep -o "oom_lca: .*"')
	cat "$d/channel.log"
	jq -R 'fromjson? | select(.gone) | .gone == ["owner", "member", "ns", "ns_member"]
		and .alive == ["other", "other_child", "ns_init"]' "$d/channel.log" | grep -qx true ||
		fail "the subtree kill did not stop at the other user and the container's init"
	grep -qE 'oom_lca: victim=[0-9]+\(owner\) prev=[0-9]+ lca=[0-9]+\(owner\) killed=4 ' "$d/channel.log" ||
		fail "no decision that killed owner and its three members"
}

# A memory cgroup's OOM is the stock one whatever the rule (vm.rst): under
# rule 2, which kills the victim's whole subtree, a hog over its cgroup's
# limit goes alone and its two children stay, with no decision line.
t_lca_memcg_oom_is_stock() {
	local d
	d=$(lca_boot -- 'echo 2 >/proc/sys/vm/oom_kill_lca; echo 2 >/proc/sys/vm/oom_kill_lca_score
		cg=/sys/fs/cgroup/lcalab-memcg
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control; mkdir $cg; echo 32M >$cg/memory.max
		sh -c "echo \$\$ >$cg/cgroup.procs; echo 0 >/proc/self/oom_score_adj
			sleep 600 & sleep 600 & exec /lab/bin/memhog -m 64" || true
		echo "memcg_oom_kills=$(awk "/^oom_kill /{print \$2}" $cg/memory.events)"
		echo "left=$(wc -l <$cg/cgroup.procs) decisions=$(dmesg | grep -c "oom_lca: victim=")"')
	grep -q 'Memory cgroup out of memory' "$d/console.log" || fail "no memory cgroup OOM ($d)"
	grep -qx 'memcg_oom_kills=1' "$d/channel.log" || fail "not one OOM kill in the cgroup ($d)"
	grep -qx 'left=2 decisions=0' "$d/channel.log" ||
		fail "the policy acted on a memory cgroup's OOM: $(grep '^left=' "$d/channel.log") ($d)"
}

# The debug build (lca-debug: lockdep, KASAN, the list, sleep, lockup and
# object checkers) under the lineage stress, briefly: every kind of event
# happened, OOM kills both global and constrained, LCA decisions while the
# policy switched modes, and the console showed no splat.
t_lca_debug_lineage_stress() {
	local d seconds=60
	d=$(mktemp -d "$LAB_BUILD/boots/test-stress-XXXX")
	"$LAB_ROOT/lab/stress" --seconds $seconds "$d" || true
	jq . "$d/stress.json"
	jq -e '.outcome == "clean"' "$d/stress.json" >/dev/null ||
		fail "the stress ended $(jq -r .outcome "$d/stress.json"): $(jq -c .splats "$d/stress.json") ($d)"
	jq -e --argjson s "$DEBUG_TIME_SCALE" --argjson c "$STRESS_CPUS" '.time_scale == $s and .cpus == $c' \
		"$d/stress.json" >/dev/null || fail "not scaled by DEBUG_TIME_SCALE or not on STRESS_CPUS vCPUs"
	# a global OOM round (one hog per CPU) can outlast 60 s: the global OOM
	# kills are checked below from the kernel's counts instead
	jq -e '.stress.counts | del(.restarts, .oom_global) | to_entries | all(.value > 0)' "$d/stress.json" >/dev/null ||
		fail "an event never happened: $(jq -c .stress.counts "$d/stress.json")"
	jq -e '.stress | .memcg_oom_kills > 0 and .oom_kills > .memcg_oom_kills and .lca_decisions > 0' \
		"$d/stress.json" >/dev/null || fail "no global OOM, no constrained OOM or no LCA decision"
}

