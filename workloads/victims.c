// SPDX-License-Identifier: GPL-2.0
/*
 * victims: the order in which the OOM killer takes a fixed population,
 * to show that vm.oom_kill_lca=0 is the stock policy (lab/test/lca.t.sh).
 *
 *   victims - solo (32 MB)
 *           \ pa (28 MB) - ch x 4 (16 MB each)
 *
 * The stock score takes solo, then pa, then a ch. The policy's score with
 * the children's share (vm.oom_kill_lca_score=1) counts an eighth of the
 * children for pa, 28 + 4 * 16 / 8 = 36 MB, and would take pa first: a
 * kernel that applies the share under rule 0 is caught here. It runs the
 * OOM killer three times with SysRq-f, each time until one more process
 * is gone, and prints {"order":[...]} with the names in the order they
 * went.
 */
#include "lcalab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum { SOLO, PA, CH1, CH2, CH3, CH4, NPROCS };

static const char *const names[NPROCS] = { "solo", "pa", "ch", "ch", "ch", "ch" };
static const long size_mb[NPROCS] = { 32, 28, 16, 16, 16, 16 };
static int report[2];

#define STEPS		3
#define STEP_TIMEOUT_S	60

/* Become process @i: take its memory, say "i pid", wait to be killed. */
static _Noreturn void become(int i)
{
	prctl(PR_SET_NAME, names[i]);
	hold_mb(size_mb[i]);
	report_member(report[1], i, getpid());
	for (;;)
		pause();
}

static void start(int i)
{
	pid_t pid = fork_or_die();

	if (pid == 0)
		become(i);
}

static int count_alive(const pid_t *pids, const int *gone)
{
	int i, n = 0;

	for (i = 0; i < NPROCS; i++)
		n += !gone[i] && pid_alive(pids[i]);
	return n;
}

int main(void)
{
	pid_t pids[NPROCS] = { 0 };
	int gone[NPROCS] = { 0 };
	int i, step, before;
	const char *sep = "";
	time_t end;

	require_lab_guest("victims");
	/* the lab's job shell is protected (-1000); the population must not be */
	write_file("/proc/self/oom_score_adj", "0");
	signal(SIGCHLD, SIG_IGN);
	if (pipe(report))
		die("pipe: %s", strerror(errno));
	start(SOLO);
	if (fork() == 0) {
		for (i = CH1; i <= CH4; i++)
			start(i);
		become(PA);
	}
	close(report[1]);
	read_members(report[0], pids, 0, NPROCS);
	/* the parent itself is small: it must never be the victim */
	write_file("/proc/self/oom_score_adj", "-1000");
	printf("{\"order\":[");
	for (step = 0; step < STEPS; step++) {
		before = count_alive(pids, gone);
		end = time(NULL) + STEP_TIMEOUT_S;
		write_file("/proc/sysrq-trigger", "f");
		while (count_alive(pids, gone) == before && time(NULL) < end)
			sleep_ms(100);
		for (i = 0; i < NPROCS; i++)
			if (!gone[i] && !pid_alive(pids[i])) {
				gone[i] = 1;
				printf("%s\"%s\"", sep, names[i]);
				sep = ",";
			}
	}
	printf("]}\n");
	return 0;
}
