/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_app_int.h - what the files of relay_app share and its users do
 * not see: relay_util.c (messages, options, output files, control files,
 * the stats file), relay_read.c (the per-CPU reader threads) and
 * relay_app.c (the channel and the collection's lifecycle).
 */
#ifndef _RELAY_APP_INT_H
#define _RELAY_APP_INT_H

#include "relay_app.h"

#define RA_READ_BUF_MIN		(64UL << 10)
#define RA_READ_BUF_MAX		(4UL << 20)

void ra_sleep_ms(unsigned int ms);
int ra_ctl_path(char *path, size_t size, const char *dir, const char *file);
int ra_ctl_write_raw(const char *dir, const char *file, const void *val,
		     size_t len, const char *show, int quiet_errno);
int ra_ctl_write_u64(const char *dir, const char *file, __u64 val);
/* Binary size_t files (cpuN.produced, cpuN.consumed). */
int ra_ctl_read_size(const char *dir, const char *file, size_t *val);
int ra_ctl_write_size(const char *dir, const char *file, size_t val);
void *ra_reader(void *arg);

#endif /* _RELAY_APP_INT_H */
