// SPDX-License-Identifier: GPL-2.0
/*
 * folkert: the hardest of the three bombs in the 2005 LCA patch's notes.
 *
 * From the LKML thread "forkbombing Linux distributions" (28 March 2005):
 * Matthieu Castet's kha.c, while (1) { while (fork()) { malloc(1); } },
 * and Folkert van Heusden's reply the same day, which also writes to each
 * allocation so the memory is really touched:
 *
 *	while (1) { while (fork()) { char *dummy = malloc(1); *dummy = 1; } }
 *
 * Every process forks forever, and every parent allocates and touches
 * memory between forks; when fork() fails (-1 is true) it keeps allocating.
 *
 *   folkert [-s BYTES]   bytes per allocation (default 1, as in 2005);
 *                        every page of a larger one is touched
 */
#include "lcalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void touch(char *p, size_t size)
{
	size_t i;

	for (i = 0; i < size; i += 4096)
		p[i] = 1;
	p[size - 1] = 1;
}

int main(int argc, char **argv)
{
	size_t size = 1;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "s:")) != -1) {
		switch (opt) {
		case 's':
			size = strtoul(optarg, &end, 0);
			if (*end || !size) {
				fprintf(stderr, "folkert: -s wants a positive byte count, not '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: folkert [-s BYTES]\n");
			return 2;
		}
	}
	require_lab_guest("folkert");

	for (;;) {
		while (fork()) {
			char *dummy = malloc(size);

			if (dummy)
				touch(dummy, size);
		}
	}
}
