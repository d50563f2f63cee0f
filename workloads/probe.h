/* SPDX-License-Identifier: GPL-2.0 */
/* The heartbeat record a probe keeps in its file, read by lcalab-run. */
#ifndef LCALAB_PROBE_H
#define LCALAB_PROBE_H

#include <stdint.h>

#define PROBE_PERIOD_NS	100000000	/* 100 ms */

struct probe_beat {
	int32_t pid;
	int32_t pad;
	uint64_t beats;
	int64_t last_ns;	/* CLOCK_MONOTONIC of the last beat */
	int64_t max_gap_ns;	/* longest time between two beats */
};

#endif
