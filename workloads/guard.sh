# shellcheck shell=bash
# Sourced first thing by every shell workload: exit 2 unless this is a lab
# guest (lcalab.guest=1 on the kernel command line). It forks nothing, so
# even a broken guard on a host with RLIMIT_NPROC 1 starts no bomb.
#   . "$here/guard.sh"     (here: the script's directory, ${0%/*})
read -r lab_cmdline </proc/cmdline
if [[ " $lab_cmdline " != *" lcalab.guest=1 "* ]]; then
	echo "${0##*/}: refusing to run: not inside a lab guest (no lcalab.guest=1 on the kernel command line); boot one with lab/boot" >&2
	exit 2
fi
unset lab_cmdline
