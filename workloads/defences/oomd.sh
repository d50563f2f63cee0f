#!/bin/bash
# Defence hook: Debian's systemd-oomd (252) with its defaults: swap kill on
# the root cgroup, and memory-pressure kill (50% for 20 s) on
# user@1000.service. In a systemd guest (a desktop whose session is
# systemd) the hook starts systemd-oomd.service, as a desktop that ships
# it starts it at boot, with swap already on, lets it read memory down to
# the lab's cgroup, and the desktop is in the user's session. Under lcalab-init, /lab/bin/oomd-pid1
# answers oomd's subscription as PID 1 would, and the lab's session cgroup
# plays user@1000.service. The evidence is its "Killed CGROUP due to ..."
# log lines (one per cgroup it killed), how many of them named the
# workload's cgroup, and whether it still ran at the end (under
# lcalab-init with oomd-pid1: oomd stops monitoring, without exiting, once
# oomd-pid1 is gone).
#   oomd.sh apply|evidence
set -euo pipefail
log=$LCALAB_RUNDIR/oomd.log pid1_log=$LCALAB_RUNDIR/oomd-pid1.log
alive() { kill -0 "$(cat "$LCALAB_RUNDIR/$1.pid")" 2>/dev/null; }
under_systemd() { [ "$(cat /proc/1/comm)" = systemd ]; }

# The memory controller in each cgroup from the root down to the lab's.
enable_memory() {
	local dir=/sys/fs/cgroup part parts
	echo +memory >"$dir/cgroup.subtree_control"
	IFS=/ read -r -a parts <<<"${LCALAB_CGROUP_PARENT#/sys/fs/cgroup/}"
	for part in "${parts[@]}"; do
		dir=$dir/$part
		echo +memory >"$dir/cgroup.subtree_control"
	done
}

case $1 in
apply)
	if under_systemd; then
		enable_memory
		# the rootfs masks it (lab.conf GUEST_UNITS_OFF); unmask reloads systemd
		if ! systemctl unmask -q systemd-oomd.service systemd-oomd.socket || ! systemctl start systemd-oomd; then
			echo "oomd.sh: systemd-oomd did not start" >&2
			exit 1
		fi
		exit 0
	fi
	# oomd reads the memory.* files of every cgroup under the ones it watches
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	echo +memory >"$LCALAB_CGROUP_PARENT/cgroup.subtree_control"
	setsid /lab/bin/oomd-pid1 "${LCALAB_CGROUP_PARENT#/sys/fs/cgroup}" >"$pid1_log" 2>&1 </dev/null &
	echo $! >"$LCALAB_RUNDIR/oomd-pid1.pid"
	sleep 1
	alive oomd-pid1 || { echo "oomd.sh: oomd-pid1 did not start: $(head -c 200 "$pid1_log")" >&2; exit 1; }
	# systemd-oomd.socket makes this directory: oomd listens there for user managers
	mkdir -p /run/systemd/oom
	# as systemd-oomd.service runs it: OOMScoreAdjust=-900, its log on stderr
	SYSTEMD_LOG_TARGET=console setsid choom -n -900 -- /lib/systemd/systemd-oomd >"$log" 2>&1 </dev/null &
	echo $! >"$LCALAB_RUNDIR/oomd.pid"
	sleep 1
	alive oomd || { echo "oomd.sh: systemd-oomd did not start: $(head -c 200 "$log")" >&2; exit 1; }
	alive oomd-pid1 || { echo "oomd.sh: oomd-pid1 exited: $(head -c 200 "$pid1_log")" >&2; exit 1; }
	;;
evidence)
	under_systemd && journalctl -b -u systemd-oomd -o cat --no-pager >"$log"
	[ -f "$log" ] || { echo "oomd.sh: no $log" >&2; exit 1; }
	# its log goes to the console, which the host keeps
	sed 's/^/systemd-oomd: /' "$log" >&2
	running=false
	if under_systemd; then
		! systemctl is-active -q systemd-oomd || running=true
	elif alive oomd && alive oomd-pid1; then
		running=true
	fi
	printf '{"oomd_kills":%d,"oomd_workload_kills":%d,"oomd_running":%s}\n' \
		"$(grep -c 'Killed /[^ ]* due to ' "$log" || true)" \
		"$(grep -cF "Killed ${LCALAB_CGROUP#/sys/fs/cgroup} due to " "$log" || true)" "$running"
	;;
*) echo "oomd.sh: unknown step '$1'" >&2; exit 2 ;;
esac
