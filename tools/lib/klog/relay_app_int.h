/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_app_int.h - what the files of relay_app share and its users do
 * not see. The files, one job each:
 *
 *   relay_app.c		the channel: lock, create or attach, start, stop
 *   relay_read.c		the reader threads
 *   relay_wait.c		the recording line, the COMMAND, the wait
 *   relay_ctl.c		control files
 *   relay_stats.c		the stats file and the drop causes
 *   relay_sites_state.c	klog -e's saved call-site state put back
 *   relay_files.c		output and input files, held directories
 *   relay_opts.c		messages, usage errors, options
 *
 * kleak, which only reads collections, compiles the last two.
 */
#ifndef _RELAY_APP_INT_H
#define _RELAY_APP_INT_H

#include <sys/stat.h>

#include "relay_app.h"

/* relay_ctl.c */
int ra_ctl_path(char *path, size_t size, const char *dir, const char *file);
int ra_ctl_write_raw(const char *dir, const char *file, const void *val,
		     size_t len, const char *show, int quiet_errno);
/* Binary size_t files (cpuN.produced, cpuN.consumed). */
int ra_ctl_read_size(const char *dir, const char *file, size_t *val);
int ra_ctl_write_size(const char *dir, const char *file, size_t val);

/* relay_files.c: ra_read_file() in two steps, to check *st in between */
int ra_open_regular(const char *path, struct stat *st, bool missing_ok);
char *ra_read_fd(int fd, const struct stat *st, const char *path,
		 size_t max, size_t *len);

/* relay_read.c: the thread of each ra_cpu */
void *ra_reader(void *arg);

/* relay_wait.c: end the COMMAND if it runs (@sig, or SIGTERM), reap it */
void ra_end_child(struct relay_app *ra, int sig);

#endif /* _RELAY_APP_INT_H */
