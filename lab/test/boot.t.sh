# shellcheck shell=bash
# Real boots of the built kernels under QEMU.

# boot_guest DIR OPTIONS... -- COMMAND: boot with output in DIR; keeps the
# exit status in DIR/rc so a test can assert on it.
boot_guest() {
	local dir=$1 rc=0
	shift
	"$LAB_ROOT/lab/boot" --out "$dir" "$@" || rc=$?
	echo "$rc" >"$dir/rc"
	sed 's/^/console: /' "$dir/console.log" | tail -5
	sed 's/^/channel: /' "$dir/channel.log"
}

facts() {
	grep '"type":"facts"' "$1/channel.log" | jq -r ".$2"
}

# The guest reports the linux-source version, the configured RAM, and the
# configured swap (minus the one header page mkswap writes) or none.
check_guest_facts() {
	local dir=$1 variant=$2 swap_mib=$3 mem_kb want_kb got
	[ "$(cat "$dir/rc")" = 0 ] || fail "boot exited $(cat "$dir/rc")"
	got=$(facts "$dir" release)
	[ "$got" = "$(kernel_version)-lcalab-$variant" ] || fail "guest runs '$got', expected $(kernel_version)-lcalab-$variant"
	mem_kb=$(facts "$dir" memtotal_kb)
	want_kb=$(($(size_mib "$GUEST_MEM") * 1024))
	((mem_kb >= want_kb * 9 / 10 && mem_kb <= want_kb)) ||
		fail "MemTotal $mem_kb kB is not within 10% of $GUEST_MEM"
	want_kb=$((swap_mib > 0 ? swap_mib * 1024 - 4 : 0))
	got=$(facts "$dir" swaptotal_kb)
	[ "$got" = "$want_kb" ] || fail "SwapTotal $got kB, expected $want_kb kB"
	[ "$(facts "$dir" cpus)" = "$GUEST_CPUS" ] || fail "guest has $(facts "$dir" cpus) CPUs"
	grep -q 'lcalab.guest=1' <<<"$(facts "$dir" cmdline)" || fail "no guest marker on the command line"
}

t_boot_stock_without_swap() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock -- 'touch /root/canary; echo wrote canary
		test ! -e /proc/sys/vm/oom_kill_lca && echo no lca switch'
	check_guest_facts "$d" stock 0
	grep -qx 'no lca switch' "$d/channel.log" || fail "the stock kernel has vm.oom_kill_lca"
	jq -e '.status == "finished" and .exit == 0' "$d/boot.json" >/dev/null || fail "boot.json: $(cat "$d/boot.json")"
	# snapshot=on: what the guest wrote never reaches the image.
	debugfs -R 'stat /root/canary' "$(rootfs_image)" 2>&1 | grep -q 'File not found' ||
		fail "the guest's write reached the rootfs image"
}

t_boot_stock_with_swap() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock --swap "$GUEST_SWAP" -- 'cat /proc/swaps'
	check_guest_facts "$d" stock "$(size_mib "$GUEST_SWAP")"
	grep -q '^/dev/vdc' "$d/channel.log" || fail "swap is not on /dev/vdc"
}

t_boot_failing_command_is_reported() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock -- 'exit 7'
	[ "$(cat "$d/rc")" = 3 ] || fail "exit status $(cat "$d/rc"), expected 3"
	jq -e '.status == "finished" and .exit == 7' "$d/boot.json" >/dev/null || fail "boot.json: $(cat "$d/boot.json")"
}

t_boot_hung_guest_is_killed() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock --timeout 12 -- 'sleep 3600'
	[ "$(cat "$d/rc")" = 4 ] || fail "exit status $(cat "$d/rc"), expected 4 (hung)"
	jq -e '.status == "hung" and .exit == null and .wall_seconds < 40' "$d/boot.json" >/dev/null ||
		fail "boot.json: $(cat "$d/boot.json")"
	! pgrep -f "$d/console.log" >/dev/null || fail "QEMU still runs after the deadline"
}

t_boot_panic_is_detected() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel stock -- 'echo c > /proc/sysrq-trigger; sleep 60'
	[ "$(cat "$d/rc")" = 5 ] || fail "exit status $(cat "$d/rc"), expected 5 (crashed)"
	grep -q 'Kernel panic' "$d/console.log" || fail "no panic in the console log"
	jq -e '.status == "crashed" and any(.splats[]; .kind == "panic")' "$d/boot.json" >/dev/null ||
		fail "boot.json: $(cat "$d/boot.json")"
	touch "$d/splats-expected"
}

t_boot_accel_is_decided_by_trial() {
	local a
	a=$("$LAB_ROOT/lab/accel" 2>/dev/null)
	[ "$a" = kvm ] || [ "$a" = tcg ] || fail "lab/accel said '$a'"
	[ -f "$LAB_BUILD/accel" ] || fail "no cached verdict"
	echo "accelerator: $a ($(head -1 "$LAB_BUILD/accel"))"
}

# Every built variant boots and runs its own release.
t_smoke_variants() {
	local v d
	for v in $VARIANTS; do
		d=$(mktemp -d "$LAB_BUILD/boots/smoke-$v-XXXX")
		boot_guest "$d" --kernel "$v" -- 'uname -r'
		check_guest_facts "$d" "$v" 0
	done
}
