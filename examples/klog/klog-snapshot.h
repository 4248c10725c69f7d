/* SPDX-License-Identifier: GPL-2.0 */
/* klog-snapshot.h - the flight recorder side of the klog collector */
#ifndef KLOG_SNAPSHOT_H
#define KLOG_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

/* DIR/snapshot: marks a snapshot directory, "cpuN first=S ..." lines. */
#define KLOG_SNAPSHOT_FILE	"snapshot"

int recorder_start(const char *debugfs, size_t subbuf_size, size_t n_subbufs,
		   bool global, bool replace);
int snapshot_take(const char *debugfs, const char *out, bool quiet);

#endif
