// SPDX-License-Identifier: GPL-2.0
/*
 * climb: the LCA policy's climb over three decisions, in a real boot
 * (lab/test/lca.t.sh). It builds
 *
 *   climb - a - b - fat1 (48 MB)
 *           |   \- fat2 (32 MB)
 *           \- fat3 (16 MB)
 *
 * and runs the OOM killer three times with SysRq-f (the out_of_memory() an
 * allocation failure runs), each time waiting until what it killed is
 * gone. Under vm.oom_kill_lca=1 the three decisions are: fat1 alone
 * (anchor b); fat2 with prev b, so b's subtree (anchor a); fat3 with prev
 * a, so a's subtree (anchor climb). Every process reaps its children at
 * once (SIGCHLD ignored), so no zombie holds a place in the tree.
 *
 * Output, JSON lines: {"pids":{...}} with the six pids, then one
 * {"step":N,"gone":[...]} per SysRq-f with the names that went.
 */
#include "lcalab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum { ROOT, A, B, FAT1, FAT2, FAT3, NPROCS };

static const char *const names[NPROCS] = { "climb", "a", "b", "fat1", "fat2", "fat3" };
static const long fat_mb[NPROCS] = { [FAT1] = 48, [FAT2] = 32, [FAT3] = 16 };
static int report[2];

#define STEP_TIMEOUT_S	60

/* Become process @i: take its memory, say "i pid", wait to be killed. */
static _Noreturn void become(int i)
{
	prctl(PR_SET_NAME, names[i]);
	if (fat_mb[i])
		hold_mb(fat_mb[i]);
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

/* a forks b and fat3 before becoming a; b forks fat1 and fat2. */
static void start_tree(void)
{
	pid_t pid = fork_or_die();

	if (pid)
		return;
	if (fork() == 0) {
		start(FAT1);
		start(FAT2);
		become(B);
	}
	start(FAT3);
	become(A);
}

/* One SysRq-f; then until the kill is counted and the victims are gone. */
static void step(int n, const pid_t *pids, const int *victims, int nvictims)
{
	long kills = proc_field("/proc/vmstat", "oom_kill");
	time_t end = time(NULL) + STEP_TIMEOUT_S;
	const char *sep = "";
	int i, left;

	write_file("/proc/sysrq-trigger", "f");
	do {
		sleep_ms(100);
		for (left = 0, i = 0; i < nvictims; i++)
			left += pid_alive(pids[victims[i]]);
	} while ((left || proc_field("/proc/vmstat", "oom_kill") == kills) && time(NULL) < end);
	printf("{\"step\":%d,\"gone\":[", n);
	for (i = 0; i < NPROCS; i++)
		if (i != ROOT && !pid_alive(pids[i])) {
			printf("%s\"%s\"", sep, names[i]);
			sep = ",";
		}
	printf("]}\n");
	fflush(stdout);
	if (left)
		die("step %d: %d of its victims still alive after %d s", n, left, STEP_TIMEOUT_S);
}

int main(void)
{
	static const int step1[] = { FAT1 }, step2[] = { B, FAT2 }, step3[] = { A, FAT3 };
	pid_t pids[NPROCS] = { 0 };
	int i;

	require_lab_guest("climb");
	/* the lab's job shell is protected (-1000); the tree must not be */
	write_file("/proc/self/oom_score_adj", "0");
	signal(SIGCHLD, SIG_IGN);
	if (pipe(report))
		die("pipe: %s", strerror(errno));
	pids[ROOT] = getpid();
	start_tree();
	close(report[1]);
	read_members(report[0], pids, ROOT + 1, NPROCS);
	printf("{\"pids\":{");
	for (i = 0; i < NPROCS; i++)
		printf("%s\"%s\":%d", i ? "," : "", names[i], pids[i]);
	printf("}}\n");
	fflush(stdout);
	step(1, pids, step1, 1);
	step(2, pids, step2, 2);
	step(3, pids, step3, 2);
	return 0;
}
