# shellcheck shell=bash
# Real boots of the built kernels under QEMU. The boot mechanics run on
# make test's first build (TEST_BUILDS), with the policy at its default.

boot_build() {
	printf '%s\n' "${TEST_BUILDS%% *}"
}

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

# The guest reports its build's linux-source version and variant, the
# configured RAM, and the configured swap (minus the one header page mkswap
# writes) or none.
check_guest_facts() {
	local dir=$1 build=$2 swap_mib=$3 mem_kb want_kb got want
	[ "$(cat "$dir/rc")" = 0 ] || fail "boot exited $(cat "$dir/rc")"
	got=$(facts "$dir" release)
	want=$(kernel_version "$(build_line "$build")")-lcalab-$(build_variant "$build")
	[ "$got" = "$want" ] || fail "guest runs '$got', expected $want"
	mem_kb=$(facts "$dir" memtotal_kb)
	want_kb=$(($(size_mib "$GUEST_MEM") * 1024))
	# a debug build's checkers take their memory first (KASAN's shadow is
	# an eighth of it): only the upper bound holds there
	((mem_kb <= want_kb)) || fail "MemTotal $mem_kb kB is over $GUEST_MEM"
	is_debug_build "$build" || ((mem_kb >= want_kb * 9 / 10)) ||
		fail "MemTotal $mem_kb kB is not within 10% of $GUEST_MEM"
	want_kb=$((swap_mib > 0 ? swap_mib * 1024 - 4 : 0))
	got=$(facts "$dir" swaptotal_kb)
	[ "$got" = "$want_kb" ] || fail "SwapTotal $got kB, expected $want_kb kB"
	[ "$(facts "$dir" cpus)" = "$GUEST_CPUS" ] || fail "guest has $(facts "$dir" cpus) CPUs"
	grep -q 'lcalab.guest=1' <<<"$(facts "$dir" cmdline)" || fail "no guest marker on the command line"
}

# The policy is off until a sysctl turns it on.
t_boot_without_swap() {
	local d b
	b=$(boot_build)
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	# shellcheck disable=SC2016 # it expands in the guest
	boot_guest "$d" --kernel "$b" -- 'touch /root/canary; echo wrote canary
		echo "policy $(cat /proc/sys/vm/oom_kill_lca)"'
	check_guest_facts "$d" "$b" 0
	grep -qx 'policy 0' "$d/channel.log" || fail "$b does not boot with vm.oom_kill_lca=0"
	jq -e '.status == "finished" and .exit == 0' "$d/boot.json" >/dev/null || fail "boot.json: $(cat "$d/boot.json")"
	# snapshot=on: what the guest wrote never reaches the image.
	debugfs -R 'stat /root/canary' "$(rootfs_image)" 2>&1 | grep -q 'File not found' ||
		fail "the guest's write reached the rootfs image"
}

t_boot_with_swap() {
	local d b
	b=$(boot_build)
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel "$b" --swap "$GUEST_SWAP" -- 'cat /proc/swaps'
	check_guest_facts "$d" "$b" "$(size_mib "$GUEST_SWAP")"
	grep -q '^/dev/vdc' "$d/channel.log" || fail "swap is not on /dev/vdc"
}

# The systemd guest (lab/boot --init systemd): systemd is PID 1, the lab's
# user is logged in (user@1000.service, lingering), and the desktop's
# limits are Debian 12's: TasksMax=33% on the user's slice, and
# systemd-oomd's drop-ins as its package ships them (swap kill on
# -.slice, memory-pressure kill at 50% on user@.service; systemctl shows
# the limit as a fraction of 2^32); the job runs to its end as
# lcalab-job.service. No defence's daemon runs unless the cell names it
# (until 2026-12-06 earlyoom, nohang and systemd-oomd all ran in every
# systemd cell, and earlyoom's SIGTERM raced oomd's kill).
t_boot_systemd_guest() {
	local d b
	b=$(boot_build)
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	# shellcheck disable=SC2016 # it expands in the guest
	boot_guest "$d" --kernel "$b" --init systemd -- 'echo "pid1=$(cat /proc/1/comm)"
		echo "job=$(cat /proc/self/cgroup)"
		for u in user@1000.service systemd-logind.service systemd-oomd.service earlyoom.service \
			nohang.service nohang-desktop.service; do
			echo "$u=$(systemctl is-active $u)"
		done
		echo "swap=$(systemctl show -P ManagedOOMSwap -- -.slice)"
		echo "pressure=$(systemctl show -P ManagedOOMMemoryPressure user@1000.service)"
		echo "limit=$(systemctl show -P ManagedOOMMemoryPressureLimit user@1000.service)"
		echo "tasksmax=$(cat /sys/fs/cgroup/user.slice/user-1000.slice/pids.max)"
		echo "threads_max=$(cat /proc/sys/kernel/threads-max)"'
	[ "$(cat "$d/rc")" = 0 ] || fail "the systemd guest's boot exited $(cat "$d/rc") ($d)"
	jq -e '.init == "systemd" and .status == "finished"' "$d/boot.json" >/dev/null || fail "boot.json: $(cat "$d/boot.json")"
	for want in pid1=systemd job=0::/system.slice/lcalab-job.service user@1000.service=active \
		systemd-logind.service=active systemd-oomd.service=inactive earlyoom.service=inactive \
		nohang.service=inactive nohang-desktop.service=inactive swap=kill pressure=kill limit=2147483648; do
		grep -qxF "$want" "$d/channel.log" || fail "not $want ($d)"
	done
	grep -qE '^tasksmax=[0-9]+$' "$d/channel.log" || fail "no TasksMax on the user's slice ($d)"
}

t_boot_failing_command_is_reported() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel "$(boot_build)" -- 'exit 7'
	[ "$(cat "$d/rc")" = 3 ] || fail "exit status $(cat "$d/rc"), expected 3"
	jq -e '.status == "finished" and .exit == 7' "$d/boot.json" >/dev/null || fail "boot.json: $(cat "$d/boot.json")"
}

t_boot_hung_guest_is_killed() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel "$(boot_build)" --timeout 12 -- 'sleep 3600'
	[ "$(cat "$d/rc")" = 4 ] || fail "exit status $(cat "$d/rc"), expected 4 (hung)"
	jq -e '.status == "hung" and .exit == null and .wall_seconds < 40' "$d/boot.json" >/dev/null ||
		fail "boot.json: $(cat "$d/boot.json")"
	! pgrep -f "$d/console.log" >/dev/null || fail "QEMU still runs after the deadline"
}

t_boot_panic_is_detected() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel "$(boot_build)" -- 'echo c > /proc/sysrq-trigger; sleep 60'
	[ "$(cat "$d/rc")" = 5 ] || fail "exit status $(cat "$d/rc"), expected 5 (crashed)"
	grep -q 'Kernel panic' "$d/console.log" || fail "no panic in the console log"
	jq -e '.status == "crashed" and any(.splats[]; .kind == "panic")' "$d/boot.json" >/dev/null ||
		fail "boot.json: $(cat "$d/boot.json")"
	touch "$d/splats-expected"
}

# KVM is decided by a trial boot where /dev/kvm can be opened (the verdict
# cached); without it, TCG with no trial, even before any kernel is built.
t_boot_accel_is_decided_by_trial() {
	local a
	a=$("$LAB_ROOT/lab/accel" 2>/dev/null)
	if [ ! -w /dev/kvm ]; then
		[ "$a" = tcg ] || fail "no /dev/kvm, yet lab/accel said '$a'"
		a=$(LAB_BUILD=$(mktemp -d) "$LAB_ROOT/lab/accel" 2>/dev/null) || fail "lab/accel wants a kernel without /dev/kvm"
		[ "$a" = tcg ] || fail "no /dev/kvm and no kernel, yet lab/accel said '$a'"
		return 0
	fi
	[ "$a" = kvm ] || [ "$a" = tcg ] || fail "lab/accel said '$a'"
	[ -f "$LAB_BUILD/accel" ] || fail "no cached verdict"
	echo "accelerator: $a ($(head -1 "$LAB_BUILD/accel"))"
}

# Every build of make test boots and runs its own release.
t_smoke_builds() {
	local b d
	for b in $TEST_BUILDS; do
		d=$(mktemp -d "$LAB_BUILD/boots/smoke-$b-XXXX")
		boot_guest "$d" --kernel "$b" -- 'uname -r'
		check_guest_facts "$d" "$b" 0
	done
}

# A survival cell on the instruction-counting clock: one vCPU, QEMU's
# -icount, and the record says so (compare refuses to set it beside a
# wall-clock run).
# Under the instruction-counting clock the deadline is in guest seconds
# (the guest's ticker, ttyS2): a guest idle in 'sleep' under sleep=off
# (idle time skipped) passes 30 guest seconds in a few host seconds and is
# hung by the guest deadline (until 2026-12-06 the deadline was 30 host
# seconds).
t_boot_icount_deadline_is_guest_time() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	boot_guest "$d" --kernel "$(boot_build)" --icount shift=2,sleep=off --timeout 30 -- 'sleep 3600'
	jq -c '{status, hung_by, wall_seconds, guest_seconds}' "$d/boot.json"
	[ "$(cat "$d/rc")" = 4 ] || fail "exit status $(cat "$d/rc"), expected 4 (hung)"
	jq -e '.hung_by == "guest-deadline" and .guest_seconds >= 30 and .wall_seconds < 30' "$d/boot.json" >/dev/null ||
		fail "not ended by the guest deadline before 30 host seconds: $(cat "$d/boot.json")"
}

# On the survival clock an idle guest's time passes at the host's pace
# (SURVIVAL_ICOUNT's sleep=on): 10 s of 'sleep' take 10 s of the host's
# time, which the guest reads from its RTC (QEMU drives it from the host's
# clock). Under sleep=off (until 2026-12-06) they took 2 host seconds, and
# a guest waiting for a loaded host's disk ran up to 47 guest seconds per
# host second (session 21's note).
t_boot_icount_idle_guest_keeps_host_pace() {
	local d host_s
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	# shellcheck disable=SC2016 # it expands in the guest
	boot_guest "$d" --kernel "$(boot_build)" --icount "$SURVIVAL_ICOUNT" --timeout 60 -- \
		'rtc() { cat /sys/class/rtc/rtc0/since_epoch; }; a=$(rtc); sleep 10; echo "host_s=$(($(rtc) - a))"'
	[ "$(cat "$d/rc")" = 0 ] || fail "the boot exited $(cat "$d/rc") ($d)"
	host_s=$(sed -n 's/^host_s=//p' "$d/channel.log")
	echo "10 guest seconds of sleep took $host_s host seconds"
	[ "${host_s:-0}" -ge 9 ] || fail "10 s of an idle guest took ${host_s:-no} host seconds ($d)"
}

# The deadline is not in host seconds: under the overhead cells' clock
# (OVERHEAD_ICOUNT, a guest nanosecond per instruction) TCG runs the guest
# slower than real time, so a job of about 5 guest seconds (150,000 shell
# iterations) under a 10-guest-second deadline takes more than 10 host
# seconds, and ends (until 2026-12-06 it was hung at 10 host seconds; a
# busy host did the same to the survival clock's cells).
t_boot_icount_deadline_is_not_host_time() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	# shellcheck disable=SC2016 # it expands in the guest
	boot_guest "$d" --kernel "$(boot_build)" --icount "$OVERHEAD_ICOUNT" --timeout 10 -- \
		'i=0; while [ $i -lt 150000 ]; do i=$((i + 1)); done; echo "job ended at $(cut -d" " -f1 /proc/uptime) guest s"'
	jq -c '{status, hung_by, wall_seconds, guest_seconds}' "$d/boot.json"
	[ "$(cat "$d/rc")" = 0 ] || fail "the job did not end: $(jq -c '{status, hung_by, wall_seconds}' "$d/boot.json") ($d)"
	jq -e '.wall_seconds > 10' "$d/boot.json" >/dev/null ||
		fail "the job took $(jq .wall_seconds "$d/boot.json") host s: too few to show a host deadline would cut it"
}

# A guest that stops running (its QEMU stopped) is hung once its ticker
# has been silent TICK_STALL_S host seconds, long before its deadline.
# The silence counts from QEMU's start until the first tick: 40 s, since on
# a loaded host (load average 7) the boot alone took more than 15 s.
t_boot_icount_stalled_guest_is_hung() {
	local d qemu _
	d=$(mktemp -d "$LAB_BUILD/boots/test-XXXX")
	TICK_STALL_S=40 "$LAB_ROOT/lab/boot" --out "$d" --kernel "$(boot_build)" --icount "$SURVIVAL_ICOUNT" \
		--timeout 600 -- 'while :; do :; done' >"$d/boot.out" 2>&1 &
	for _ in $(seq 120); do
		[ -s "$d/ticks.log" ] && break
		sleep 0.5
	done
	qemu=$(pgrep -f "$d/console.log") || fail "no QEMU for $d"
	kill -STOP "$qemu"
	wait $! || true
	jq -c '{status, hung_by, wall_seconds, guest_seconds}' "$d/boot.json"
	jq -e '.status == "hung" and .hung_by == "stalled" and .wall_seconds < 120' "$d/boot.json" >/dev/null ||
		fail "not hung by its silent ticker: $(cat "$d/boot.json")"
}

t_boot_survival_icount_clock() {
	local d
	d=$(mktemp -d "$LAB_BUILD/boots/test-icount-XXXX")
	SURVIVAL_CLOCK=icount "$LAB_ROOT/lab/run-cell" --until oom_kills=1 --deadline 60 lca-off off folkert "$d" \
		>"$d/out.json" || fail "run-cell failed ($d)"
	jq -c '{outcome, clock, guest, t_first_oom_s, wall_s}' "$d/out.json"
	jq -e --arg o "$SURVIVAL_ICOUNT" '.icount == $o and .clock == "icount" and .cpus == 1' "$d/boot.json" >/dev/null ||
		fail "boot.json: $(jq -c '{icount, clock, cpus}' "$d/boot.json")"
	jq -e '.clock == "icount" and .guest.cpus == 1 and .oom_kills >= 1' "$d/out.json" >/dev/null ||
		fail "the record: $(jq -c '{clock, guest, oom_kills}' "$d/out.json")"
}
