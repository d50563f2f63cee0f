# shellcheck shell=bash
# shellcheck disable=SC2016 # the guest commands are single-quoted on purpose: they expand in the guest
# Real boots of the lca kernel: KUnit, the switch, a bomb's decisions.

lca_boot() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-lca-XXXX")
	boot_guest "$d" --kernel lca "$@" >&2
	[ "$(cat "$d/rc")" = 0 ] || fail "lca boot exited $(cat "$d/rc") ($d)"
	printf '%s\n' "$d"
}

# KUnit's KTAP report of the oom_lca suite, read from the ring buffer.
t_lca_kunit_passes() {
	local d ok notok
	d=$(lca_boot -- 'dmesg | sed -n "s/^\[[ 0-9.]*\] //p" | sed -n "/# Subtest: oom_lca/,/^ok .* oom_lca\|^not ok .* oom_lca/p"')
	cat "$d/channel.log"
	ok=$(grep -cE '^ +ok [0-9]+ lca_' "$d/channel.log" || true)
	notok=$(grep -cE '^ +not ok [0-9]+ ' "$d/channel.log" || true)
	[ "$notok" -eq 0 ] || fail "$notok KUnit cases failed"
	[ "$ok" -eq 12 ] || fail "$ok KUnit cases passed, expected 12"
	grep -qE '^ok [0-9]+ oom_lca$' "$d/channel.log" || fail "the oom_lca suite did not pass"
}

t_lca_switch_exists_and_is_checked() {
	local d
	d=$(lca_boot -- 'f=/proc/sys/vm/oom_kill_lca
		echo "default=$(cat $f)"
		echo 0 >$f && echo "set0=$(cat $f)"
		echo 2 >$f && echo "set2=$(cat $f)"
		if echo 3 >$f 2>/dev/null; then echo "set3=accepted"; else echo "set3=rejected"; fi
		echo "window=$(cat /proc/sys/vm/oom_kill_lca_window_ms)"')
	for want in default=1 set0=0 set2=2 set3=rejected window=10000; do
		grep -qx "$want" "$d/channel.log" || fail "expected $want"
	done
}

t_lca_stock_has_no_switch() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock -- 'test ! -e /proc/sys/vm/oom_kill_lca && echo absent'
	grep -qx absent "$d/channel.log" || fail "stock kernel has vm.oom_kill_lca"
}

# folkert in a 256 MB guest without swap, through the run driver (the
# bomb's cgroup is killed in one write at the end; a shell pkill loop could
# not keep up with a bomb that reforks under TCG): the LCA policy must make
# decisions, logged in the documented format, kill a subtree, and the
# guest (and the protected driver) survive to report.
t_lca_bomb_makes_decisions() {
	local d lines subtree
	d=$(mktemp -d "$LAB_BUILD/boots/test-lca-XXXX")
	"$LAB_ROOT/lab/run-cell" --deadline 40 lca off folkert "$d" >"$d/out.json" || fail "run-cell failed ($d)"
	jq -c '{outcome, outcome_reason, lca_decisions, lca_killed}' "$d/out.json"
	[ "$(jq -r .outcome "$d/out.json")" != hung ] || fail "the guest hung ($d)"
	lines=$(grep -c 'oom_lca: ' "$d/console.log" || true)
	grep -o 'oom_lca: .*' "$d/console.log"
	[ "$lines" -gt 0 ] || fail "no oom_lca: decision in the guest's log"
	grep -o 'oom_lca: .*' "$d/console.log" |
		grep -vqE '^oom_lca: victim=[0-9]+\(.*\) prev=[0-9]+ lca=[0-9]+\(.*\) killed=[0-9]+ anchor=[0-9]+$' &&
		fail "an oom_lca: line does not match the documented format"
	[ "$(jq '.lca_decisions | length' "$d/out.json")" -eq "$lines" ] ||
		fail "the driver parsed $(jq '.lca_decisions | length' "$d/out.json") of $lines decisions"
	subtree=$(jq '[.lca_decisions[] | select(.lca > 0 and .killed > 0)] | length' "$d/out.json")
	echo "subtree kills: $subtree"
	[ "$subtree" -gt 0 ] || fail "no decision killed a subtree"
}
