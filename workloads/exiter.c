// SPDX-License-Identifier: GPL-2.0
/*
 * exiter: a process that stays exiting with its memory.
 *
 *   exiter [MB]    MB: how much the child touches [8]
 *
 * The child maps 1 GB it never touches (PROT_NONE: no commit, but 2005's
 * badness() counted total_vm), touches MB and calls exit_group(); its tracer (this
 * program's parent, PTRACE_O_TRACEEXIT) never lets it past the exit
 * event, so it stays with SIGNAL_GROUP_EXIT set (PF_EXITING not yet) and
 * its memory held. The tracer prints "exiting=PID" once it is there, then
 * waits for ever.
 * An OOM scan under vm.oom_kill_lca=2 waits for it nine times, then passes
 * it over (until 2026-12-06 the series scored it and chose it); if it then
 * finds nothing else to kill, it scores it after all (until 2026-12-07 it
 * chose nothing, and the kernel panicked).
 */
#include "lcalab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNTOUCHED	(1UL << 30)

static void __attribute__((noreturn)) exit_holding_memory(long mb)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		die("PTRACE_TRACEME: %s", strerror(errno));
	raise(SIGSTOP);
	if (mmap(NULL, UNTOUCHED, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	hold_mb(mb);
	exit(0);
}

static void wait_stop(pid_t pid, int event)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || (status >> 16) != event)
		die("the child did not stop (status %#x, want event %d)", status, event);
}

int main(int argc, char **argv)
{
	long mb = 8;
	char *end = "";
	pid_t pid;

	require_lab_guest("exiter");
	if (argc > 1)
		mb = strtol(argv[1], &end, 10);
	if (argc > 2 || *end || mb <= 0)
		die("usage: exiter [MB], MB a whole number > 0");
	pid = fork_or_die();
	if (pid == 0) {
		/* the lab's job shell is protected (-1000); the exiting child must not be */
		write_file("/proc/self/oom_score_adj", "0");
		exit_holding_memory(mb);
	}
	wait_stop(pid, 0);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL))
		die("ptrace: %s", strerror(errno));
	wait_stop(pid, PTRACE_EVENT_EXIT);
	printf("exiting=%d\n", pid);
	fflush(stdout);
	for (;;)
		pause();
}
