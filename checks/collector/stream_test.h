/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream_test.h - what the parts of stream_test share (stream_test.c: the
 * overview, the commands, the gen streams every part builds on)
 */
#ifndef STREAM_TEST_H
#define STREAM_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/klog_args.h>

#include "../../tools/lib/klog/relay_app.h"	/* __printf(), __noreturn */
#include "klog-stream.h"

#define NCPU		3
#define MAXSB		4
#define FAKE_SBSIZE	4096
#define FAKE_NSB	4

/* The gen streams, one entry per sub-buffer. */
struct cpu_stream {
	struct ks_buf	sb[MAXSB];
	int		nsb;
};

extern int failures;
extern int rec_cpu;	/* klog_rec_hdr.cpu of the records rec() makes */
extern int gen_version;	/* the stream version the fixtures are written in */

__printf(1, 2) __noreturn void die(const char *fmt, ...);
/* Count a failed check (@ok false) and say why on stderr. */
__printf(2, 3) void check(int ok, const char *fmt, ...);

/* The encoder's calls; out of memory ends the test. */
#define ENC(call)	do { if (call) die("out of memory"); } while (0)
#define put(b, p, n)	ENC(ks_put(b, p, n))
#define hdr(b, ...)	ENC(ks_put_subbuf_hdr_v(b, gen_version, __VA_ARGS__))

/* The id of the site (@func, @line), named now if it is new. */
__u32 site_id(const char *func, __u32 line);
void rec(struct ks_buf *b, __u64 seq, __u64 ts, __u32 pid,
	 __u32 line, __u8 kind, __u8 ctx, __u8 flags,
	 const char *func, const void *payload, __u32 len);
/* A text record: its payload is the string @s, without the NUL. */
#define text(b, seq, ts, pid, line, ctx, flags, func, s) \
	rec(b, seq, ts, pid, line, KLOG_RELAY_TEXT, ctx, flags, func, s, strlen(s))

/* The gen streams (the expected text in run.sh describes them). */
void make_streams(struct cpu_stream cs[NCPU]);
void free_streams(struct cpu_stream cs[NCPU]);
/* Files of a collection, dying on an error. */
void write_file(const char *dir, const char *name, const void *p,
		size_t len);
void write_sites(const char *dir);
void mkdir_p(const char *dir);
/* The read(2) stream of a CPU: its sub-buffers back to back. */
struct ks_buf joined(const struct cpu_stream *cs);

/* stream_fixtures.c: DIR/cpuN files */
int cmd_gen(const char *dir);
int cmd_corrupt(const char *kind, const char *dir);
int cmd_snapshot(const char *dir);
int cmd_global(const char *dir);
int cmd_comm(const char *dir);
int cmd_args(const char *dir);
int cmd_hostile(const char *dir);
int cmd_text(const char *dir);
int cmd_plot(const char *dir);
void t_rec(struct ks_buf *b, __u64 seq, __u64 ts, __u8 ctx);

/* stream_fake.c: a fake debugfs, and live writers into its FIFOs */
int cmd_fake(const char *mode, const char *dir);
int cmd_live(const char *dir, double secs);

/* stream_unit.c */
int cmd_unit(void);

#endif /* STREAM_TEST_H */
