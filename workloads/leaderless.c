// SPDX-License-Identifier: GPL-2.0
/*
 * leaderless: an OOM victim whose thread-group leader has exited while
 * another thread runs on (pthread_exit() from main), with four children.
 * The leader is a zombie with PF_EXITING set, the process is not dying:
 * the ten-patch series of December 2026 took it for dying ("is exiting: no decision", every
 * time), so under vm.oom_kill_lca=2 its children were never killed.
 */
#include "lcalab.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CHILDREN	4

static void *grow(void *arg)
{
	(void)arg;
	grow_for_ever(1);
}

int main(void)
{
	pthread_t thread;
	int i, err;

	require_lab_guest("leaderless");
	/* the lab's job shell is protected (-1000); the workload must not be */
	write_file("/proc/self/oom_score_adj", "0");
	for (i = 0; i < CHILDREN; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("leaderless: fork: %s", strerror(errno));
		if (pid == 0) {
			prctl(PR_SET_NAME, "kid");
			for (;;)
				pause();
		}
	}
	err = pthread_create(&thread, NULL, grow, NULL);
	if (err)
		die("leaderless: pthread_create: %s", strerror(err));
	pthread_exit(NULL);
}
