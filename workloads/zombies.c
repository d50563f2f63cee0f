// SPDX-License-Identifier: GPL-2.0
/*
 * zombies: an OOM victim with unreaped children, the shape that hung the
 * OOM killer of the ten-patch series of December 2026 (its subtree kill, breaking tasklist_lock
 * every 1,024 visits, resumed at the first leaf of a parent whose 1,024
 * zombie children it had just visited, for ever).
 *
 *   zombies [-n N]     forks N children that exit at once and are never
 *                      reaped, then grows a page at a time until killed:
 *                      the victim, and under vm.oom_kill_lca=2 the root of
 *                      the subtree killed.
 *   zombies -t [-n N]  a tree: the root forks a keeper (its first child)
 *                      whose N children exit unreaped, then two hogs that
 *                      grow. Under vm.oom_kill_lca=1 the first hog is killed
 *                      alone (anchor: the root), the second is paired with
 *                      the root, whose subtree, the keeper and its zombies
 *                      among it, is killed.
 *
 * It prints {"zombies":N,"pid":P} once the N children are zombies.
 */
#include "lcalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define ZOMBIE_WAIT_S	60

static int is_zombie(pid_t pid)
{
	char path[64], *stat, *end;
	int z;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = read_file(path, 512);
	if (!stat)
		return 0;
	end = strrchr(stat, ')');
	z = end && end[1] == ' ' && end[2] == 'Z';
	free(stat);
	return z;
}

/* Fork @n children that exit at once; return once all are zombies. */
static void make_zombies(int n)
{
	time_t end = time(NULL) + ZOMBIE_WAIT_S;
	pid_t *pids = calloc(n, sizeof(*pids));
	int i, left;

	if (!pids)
		die("zombies: no memory");
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("zombies: fork %d of %d: %s", i + 1, n, strerror(errno));
		if (pids[i] == 0)
			_exit(0);
	}
	do {
		for (left = 0, i = 0; i < n; i++)
			left += !is_zombie(pids[i]);
		if (left)
			sleep_ms(100);
	} while (left && time(NULL) < end);
	if (left)
		die("zombies: %d of %d children are not zombies after %d s", left, n, ZOMBIE_WAIT_S);
	printf("{\"zombies\":%d,\"pid\":%d}\n", n, getpid());
	fflush(stdout);
	free(pids);
}

/* Take memory a megabyte at a time, for ever: until the OOM killer acts. */
static _Noreturn void grow(const char *name)
{
	prctl(PR_SET_NAME, name);
	grow_for_ever(1);
}

static pid_t start(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("zombies: fork: %s", strerror(errno));
	return pid;
}

/* The root's first child keeps @n zombies; then two hogs start. */
static _Noreturn void tree(int n)
{
	int ready[2];
	char c;

	if (pipe(ready))
		die("zombies: pipe: %s", strerror(errno));
	if (start() == 0) {
		prctl(PR_SET_NAME, "keeper");
		make_zombies(n);
		if (write(ready[1], "", 1) != 1)
			die("zombies: keeper cannot report");
		for (;;)
			pause();
	}
	if (read(ready[0], &c, 1) != 1)
		die("zombies: the keeper did not start");
	if (start() == 0)
		grow("hog");
	if (start() == 0)
		grow("hog");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int opt, n = 1024, as_tree = 0;

	while ((opt = getopt(argc, argv, "n:t")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			as_tree = 1;
			break;
		default:
			die("usage: zombies [-t] [-n N]");
		}
	}
	if (n < 1)
		die("zombies: -n wants a positive count, not %d", n);
	require_lab_guest("zombies");
	/* the lab's job shell is protected (-1000); the workload must not be */
	write_file("/proc/self/oom_score_adj", "0");
	if (as_tree)
		tree(n);
	make_zombies(n);
	grow("zombies");
}
