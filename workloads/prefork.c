// SPDX-License-Identifier: GPL-2.0
/*
 * prefork: a pre-forking server whose one worker leaks (false positive).
 *
 *   prefork [-w WORKERS] [-m MB] [-r LEAK_MB_PER_S]
 *     -w  workers [4]; worker 0 leaks, the others hold -m MB each [8]
 *     -r  the leak's rate [50]
 *
 * The master respawns any worker that dies, like Apache's prefork MPM.
 * The right answer to its OOM is to kill the leaking worker, again and
 * again; killing the master's whole tree is the wrong one, which is why
 * upstream turned down tree-killing heuristics.
 */
#include "lcalab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS	64
#define CHUNK		(1UL << 20)

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void touch_mb(long mb)
{
	while (mb-- > 0) {
		char *p = malloc(CHUNK);

		if (p)
			memset(p, 1, CHUNK);
	}
}

static void worker(int slot, long hold_mb, long leak_rate)
{
	if (slot != 0) {
		touch_mb(hold_mb);
		for (;;)
			pause();
	}
	for (;;) {
		touch_mb(1);
		pause_ms(1000 / leak_rate);
	}
}

static pid_t spawn(int slot, long hold_mb, long leak_rate)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(slot, hold_mb, leak_rate);
	return pid;
}

static long arg(const char *s, char opt, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < min) {
		fprintf(stderr, "prefork: -%c wants a whole number >= %ld, not '%s'\n", opt, min, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long workers = 4, hold_mb = 8, leak_rate = 50;
	pid_t pids[MAX_WORKERS];
	int opt, i;

	require_lab_guest("prefork");
	while ((opt = getopt(argc, argv, "w:m:r:")) != -1) {
		switch (opt) {
		case 'w':
			workers = arg(optarg, 'w', 1);
			break;
		case 'm':
			hold_mb = arg(optarg, 'm', 0);
			break;
		case 'r':
			leak_rate = arg(optarg, 'r', 1);
			break;
		default:
			fprintf(stderr, "usage: prefork [-w WORKERS] [-m MB] [-r LEAK_MB_PER_S]\n");
			return 2;
		}
	}
	if (workers > MAX_WORKERS) {
		fprintf(stderr, "prefork: at most %d workers\n", MAX_WORKERS);
		return 2;
	}
	for (i = 0; i < workers; i++)
		pids[i] = spawn(i, hold_mb, leak_rate);
	for (;;) {
		pid_t dead = wait(NULL);

		for (i = 0; i < workers; i++) {
			if (pids[i] == dead || pids[i] < 0) {
				pause_ms(100);
				pids[i] = spawn(i, hold_mb, leak_rate);
			}
		}
	}
}
