/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reserve-app.h - what the reserve collector's files share
 *
 * reserve.c: options, collection, summary; reserve-check.c: the reader
 * side, which waits for each sub-buffer's records to be committed and
 * checks every record. See the overview in reserve.c.
 */
#ifndef _RESERVE_APP_H
#define _RESERVE_APP_H

#include <limits.h>
#include <stdbool.h>

#include "../../../tools/lib/klog/relay_app.h"
#include "../../../tools/lib/klog/klog-stream.h"
#include "reserve-format.h"

#define RESERVE_DEBUGFS		"/sys/kernel/debug/reserve"
#define RESERVE_SUBBUF_SIZE	262144
#define RESERVE_N_SUBBUFS	8
#define RESERVE_TICK_MS		200
#define WAIT_POLL_NS		100000ULL	/* between commit-count loads */
#define WAIT_REPORT		3		/* waits reported per CPU */
#define BAD_REPORT		3		/* bad records reported per CPU */
#define NSEC			1000000000ULL
#define STR_(x)			#x
#define STR(x)			STR_(x)

struct opts {
	struct ra_opts	ra;		/* -b -n -m -o -t -d -q -x */
	double		warn_after;
	char *const	*cmd;		/* COMMAND [ARGS...] to record, or NULL */
};

/* Per CPU (ra_cpu.priv); used by that CPU's reader thread only. */
struct rcpu {
	int		cpu;
	int		out_fd;
	char		out_path[PATH_MAX];
	size_t		subbuf_size;	/* the channel's */
	struct ks_items	items;		/* framing: an item cut by read(2) */
	__u64		off;		/* stream offset of the next item */
	__u64		next_seq;	/* record seq expected next */
	__u64		next_subbuf;	/* sub-buffer seq expected next */
	__u64		records, gaps, hdr_lost, subbufs, subbuf_gaps;
	__u64		nested, delayed, bad;
	__u64		waited, wait_ns, max_wait_ns;
	bool		failed;		/* cannot parse further */
};

struct reserve {
	struct opts	o;
	struct relay_app *ra;
	struct rcpu	*r;
};

__printf(3, 4)
void rcpu_bad(struct rcpu *r, __u64 off, const char *fmt, ...);
int reserve_sink(struct ra_cpu *c, const void *data, size_t len, void *arg);
long reserve_subbuf_used(struct ra_cpu *c, const void *subbuf,
			 size_t subbuf_size, void *arg);

#endif /* _RESERVE_APP_H */
