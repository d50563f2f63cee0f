// SPDX-License-Identifier: GPL-2.0
/*
 * probe: an innocent process that must survive a bomb ("the desktop").
 *
 *   probe DIR NAME [-m MB]
 *
 * Every 100 ms it writes a heartbeat into DIR/NAME: its pid, the number of
 * beats, the time of the last one and the longest gap between two (the
 * responsiveness a user of it would have felt). With -m it holds MB of
 * memory, all touched once and one page re-touched per beat, like a big
 * resident application.
 */
#include "lcalab.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>


#define PAGE	4096

static char *hold_memory(size_t bytes)
{
	char *p;
	size_t i;

	if (!bytes)
		return NULL;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("probe: mmap");
		exit(1);
	}
	for (i = 0; i < bytes; i += PAGE)
		p[i] = 1;
	return p;
}

int main(int argc, char **argv)
{
	struct probe_beat beat = { 0 };
	size_t bytes = 0, page = 0;
	char path[4096], *mem;
	struct timespec next;
	int fd, opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm') {
			fprintf(stderr, "usage: probe DIR NAME [-m MB]\n");
			return 2;
		}
		bytes = strtoul(optarg, NULL, 10) << 20;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: probe DIR NAME [-m MB]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[optind], argv[optind + 1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	mem = hold_memory(bytes);

	beat.pid = getpid();
	beat.last_ns = now_ns();
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		int64_t t;

		next.tv_nsec += PROBE_PERIOD_NS;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		t = now_ns();
		if (t - beat.last_ns > beat.max_gap_ns)
			beat.max_gap_ns = t - beat.last_ns;
		beat.last_ns = t;
		beat.beats++;
		if (mem) {
			mem[page] = (char)beat.beats;
			page = (page + PAGE) % bytes;
		}
		if (pwrite(fd, &beat, sizeof(beat), 0) != sizeof(beat))
			return 1;
	}
}
