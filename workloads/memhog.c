// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: allocate and touch memory at a rate, then hold it.
 *
 *   memhog -m MB [-r MB_PER_S] [-s SECONDS]
 *     -m MB   how much; 0 = without end (a leak, until the OOM killer)
 *     -r      allocation rate [100]
 *     -s      how long to hold it before exiting; 0 = forever [0]
 *
 * Used by the false-positive scenarios (a memory-hungry build job, a
 * leaking process); not a bomb: it never forks.
 */
#include "lcalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(1UL << 20)

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static long arg(const char *s, char opt)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "memhog: -%c wants a whole number >= 0, not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long mb = -1, rate = 100, hold = 0, done;
	int opt;

	require_lab_guest("memhog");
	while ((opt = getopt(argc, argv, "m:r:s:")) != -1) {
		switch (opt) {
		case 'm':
			mb = arg(optarg, 'm');
			break;
		case 'r':
			rate = arg(optarg, 'r');
			break;
		case 's':
			hold = arg(optarg, 's');
			break;
		default:
			mb = -2;
		}
	}
	if (mb < 0 || rate == 0) {
		fprintf(stderr, "usage: memhog -m MB [-r MB_PER_S] [-s SECONDS]\n");
		return 2;
	}
	for (done = 0; mb == 0 || done < mb; done++) {
		char *p = malloc(CHUNK);

		if (p)
			memset(p, 1, CHUNK);
		pause_ms(1000 / rate);
	}
	if (!hold)
		for (;;)
			pause();
	sleep(hold);
	return 0;
}
