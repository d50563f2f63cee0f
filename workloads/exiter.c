// SPDX-License-Identifier: GPL-2.0
/*
 * exiter: a process that stays exiting with its memory. The child maps
 * 1 GB it never touches (PROT_NONE: no commit, but 2005's badness()
 * counted total_vm), touches 8 MB and calls exit_group(); its tracer (this
 * program's parent, PTRACE_O_TRACEEXIT) never lets it past the exit
 * event, so it stays with SIGNAL_GROUP_EXIT set (PF_EXITING not yet) and
 * its memory held. The tracer prints "exiting=PID" once it is there, then
 * waits for ever.
 * An OOM scan under vm.oom_kill_lca=2 waits for it nine times, then passes
 * it over (until 2026-12-06 the series scored it and chose it).
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
#define TOUCHED		(8UL << 20)

static void __attribute__((noreturn)) exit_holding_memory(void)
{
	char *p;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		die("exiter: PTRACE_TRACEME: %s", strerror(errno));
	raise(SIGSTOP);
	if (mmap(NULL, UNTOUCHED, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		die("exiter: mmap: %s", strerror(errno));
	p = malloc(TOUCHED);
	if (!p)
		die("exiter: no memory for %lu bytes", TOUCHED);
	memset(p, 1, TOUCHED);
	exit(0);
}

static void wait_stop(pid_t pid, int event)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || (status >> 16) != event)
		die("exiter: the child did not stop (status %#x, want event %d)", status, event);
}

int main(void)
{
	pid_t pid;

	require_lab_guest("exiter");
	pid = fork();
	if (pid < 0)
		die("exiter: fork: %s", strerror(errno));
	if (pid == 0) {
		/* the lab's job shell is protected (-1000); the exiting child must not be */
		write_file("/proc/self/oom_score_adj", "0");
		exit_holding_memory();
	}
	wait_stop(pid, 0);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL))
		die("exiter: ptrace: %s", strerror(errno));
	wait_stop(pid, PTRACE_EVENT_EXIT);
	printf("exiting=%d\n", pid);
	fflush(stdout);
	for (;;)
		pause();
}
