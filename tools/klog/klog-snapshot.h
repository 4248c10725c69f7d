/* SPDX-License-Identifier: GPL-2.0 */
/* klog-snapshot.h - the flight recorder side of the klog collector */
#ifndef KLOG_SNAPSHOT_H
#define KLOG_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

/* DIR/snapshot: marks a snapshot directory, "cpuN first=S ..." lines. */
#define KLOG_SNAPSHOT_FILE	"snapshot"
/* DIR/trigger: "cpu=N ts=NS reason=TEXT", the trigger that froze it. */
#define KLOG_TRIGGER_FILE	"trigger"

int recorder_start(const char *debugfs, size_t subbuf_size, size_t n_subbufs,
		   bool global, bool replace);
int snapshot_take(const char *debugfs, const char *out, bool force,
		  bool quiet);
int recorder_status(const char *debugfs);
int recorder_thaw(const char *debugfs);
int recorder_stop(const char *debugfs);

#endif
