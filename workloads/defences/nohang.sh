#!/bin/bash
# Defence hook: Debian's nohang (0.2.0) as nohang-desktop.service runs it
# (the unit a desktop enables; Debian's init script passes no options, and
# nohang exits on that). It logs to stdout only (separate_log = False);
# PYTHONUNBUFFERED makes the log whole at evidence time. The evidence counts
# the signals it sent: each "OK; total response time" line follows its
# "  Sending SIG... to the victim" line, and the victim's "  cgroup_v2: "
# line before it names the cgroup (print_victim_status = True).
#   nohang.sh apply|evidence
set -euo pipefail
log=$LCALAB_RUNDIR/nohang.log
case $1 in
apply)
	PYTHONUNBUFFERED=1 setsid /usr/sbin/nohang --monitor --config /etc/nohang/nohang-desktop.conf \
		>"$log" 2>&1 </dev/null &
	echo $! >"$LCALAB_RUNDIR/nohang.pid"
	sleep 2
	kill -0 $! 2>/dev/null || { echo "nohang.sh: nohang did not start: $(head -c 200 "$log")" >&2; exit 1; }
	;;
evidence)
	[ -f "$log" ] || { echo "nohang.sh: no $log" >&2; exit 1; }
	# its log goes to the console, which the host keeps
	sed 's/^/nohang: /' "$log" >&2
	running=false
	if kill -0 "$(cat "$LCALAB_RUNDIR/nohang.pid")" 2>/dev/null; then running=true; fi
	awk -v wl="${LCALAB_CGROUP#/sys/fs/cgroup}" -v running="$running" '
		/^  cgroup_v2: / { cg = substr($0, 14) }
		/^  Sending SIG[A-Z]+ to the victim$/ { sig = $2 }
		/^OK; total response time: / {
			n++; if (sig == "SIGKILL") k++
			if (cg == wl || index(cg, wl "/") == 1) w++
		}
		END { printf "{\"nohang_actions\":%d,\"nohang_kills\":%d,\"nohang_workload_actions\":%d,\"nohang_running\":%s}\n", n, k, w, running }
	' "$log"
	;;
*) echo "nohang.sh: unknown step '$1'" >&2; exit 2 ;;
esac
