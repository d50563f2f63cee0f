/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Refuse to run outside a lab guest: the bombs are only ever run inside
 * QEMU, whose kernel command line carries lcalab.guest=1.
 */
#ifndef LCALAB_GUEST_GUARD_H
#define LCALAB_GUEST_GUARD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUEST_MARKER "lcalab.guest=1"

static inline int inside_lab_guest(void)
{
	char line[4096], *word, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	int found = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		for (word = strtok_r(line, " \n", &save); word;
		     word = strtok_r(NULL, " \n", &save))
			found |= !strcmp(word, GUEST_MARKER);
	}
	fclose(f);
	return found;
}

/* Exit 2 with a clear message unless this is a lab guest. */
static inline void require_lab_guest(const char *prog)
{
	if (inside_lab_guest())
		return;
	fprintf(stderr, "%s: refusing to run: not inside a lab guest "
		"(no %s on the kernel command line); boot one with lab/boot\n",
		prog, GUEST_MARKER);
	exit(2);
}

#endif
