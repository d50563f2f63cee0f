#!/bin/bash
# Defence hook: Debian's earlyoom daemon with its defaults; the evidence is
# the number of kills it logged ("sending SIG" lines).
#   earlyoom.sh apply|evidence
set -euo pipefail
log=$LCALAB_RUNDIR/earlyoom.log
case $1 in
apply)
	setsid earlyoom >"$log" 2>&1 </dev/null &
	sleep 1
	kill -0 $! 2>/dev/null || { echo "earlyoom.sh: earlyoom did not start: $(head -c 200 "$log")" >&2; exit 1; }
	;;
evidence)
	[ -f "$log" ] || { echo "earlyoom.sh: no $log" >&2; exit 1; }
	printf '{"earlyoom_kills":%d}\n' "$(grep -c 'sending SIG' "$log" || true)"
	;;
*) echo "earlyoom.sh: unknown step '$1'" >&2; exit 2 ;;
esac
