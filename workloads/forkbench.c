// SPDX-License-Identifier: GPL-2.0
/*
 * forkbench: the hot paths the LCA patch touches, one at a time, timed per
 * iteration: fork+exit+wait, fork+exec+wait, vfork+exec+wait, posix_spawn
 * +wait, and pthread create+join.
 *
 *   forkbench [-n ITERATIONS] [-w WARMUP] MODE...
 *     modes: fork vfork exec spawn thread   [-n 2000, -w 200]
 *     (exec, vfork and spawn run /lab/bin/nop, a static empty program)
 *
 * Prints one JSON line per mode: the median, mean, 10th and 90th
 * percentile of the per-iteration times in nanoseconds of CLOCK_MONOTONIC
 * (under QEMU -icount that clock counts guest instructions).
 */
#include "lcalab.h"

#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define EXEC_PATH "/lab/bin/nop"

extern char **environ;

static void reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		perror("forkbench: child");
		exit(1);
	}
}

static void do_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	reap(pid);
}

static void do_exec(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(EXEC_PATH, "true", (char *)NULL);
		_exit(127);
	}
	reap(pid);
}

static void do_vfork(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execl(EXEC_PATH, "true", (char *)NULL);
		_exit(127);
	}
	reap(pid);
}

static void do_spawn(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	if (posix_spawn(&pid, EXEC_PATH, NULL, NULL, argv, environ)) {
		perror("forkbench: posix_spawn");
		exit(1);
	}
	reap(pid);
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void do_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL)) {
		perror("forkbench: pthread");
		exit(1);
	}
}

struct mode {
	const char *name;
	void (*run)(void);
};

static const struct mode modes[] = {
	{ "fork", do_fork }, { "exec", do_exec }, { "vfork", do_vfork },
	{ "spawn", do_spawn }, { "thread", do_thread },
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void bench(const struct mode *m, int n, int warmup, int64_t *t)
{
	int64_t sum = 0, t0;
	int i;

	for (i = 0; i < warmup; i++)
		m->run();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		m->run();
		t[i] = now_ns() - t0;
		sum += t[i];
	}
	qsort(t, n, sizeof(*t), cmp_i64);
	printf("{\"type\":\"bench\",\"mode\":\"%s\",\"n\":%d,\"warmup\":%d,\"median_ns\":%lld,"
	       "\"mean_ns\":%lld,\"p10_ns\":%lld,\"p90_ns\":%lld}\n", m->name, n, warmup,
	       (long long)t[n / 2], (long long)(sum / n), (long long)t[n / 10],
	       (long long)t[n * 9 / 10]);
	fflush(stdout);
}

static const struct mode *find_mode(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, name))
			return &modes[i];
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: forkbench [-n N] [-w N] fork|exec|vfork|spawn|thread...\n");
	exit(2);
}

static int count(const char *s, char opt)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 10 || v > 10000000) {
		fprintf(stderr, "forkbench: -%c wants a number from 10 to 10000000, not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int n = 2000, warmup = 200, opt, i;
	int64_t *t;

	while ((opt = getopt(argc, argv, "n:w:")) != -1) {
		switch (opt) {
		case 'n':
			n = count(optarg, 'n');
			break;
		case 'w':
			warmup = count(optarg, 'w');
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	for (i = optind; i < argc; i++) {
		if (!find_mode(argv[i])) {
			fprintf(stderr, "forkbench: unknown mode '%s' (fork exec vfork spawn thread)\n", argv[i]);
			return 2;
		}
	}
	require_lab_guest("forkbench");
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;
	for (i = optind; i < argc; i++)
		bench(find_mode(argv[i]), n, warmup, t);
	return 0;
}
