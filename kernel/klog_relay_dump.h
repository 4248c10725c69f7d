/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-mod: the parts of the dump on oops and panic (DOC: klog relay dump
 * on oops, in klog_relay_dump.c, says what it does and in what context):
 *
 *   klog_relay_dump.c        the setting (dump_on_oops), the dump's steps,
 *                            its die and panic notifiers
 *   klog_relay_dump_read.c   the buffers and the NMI staging areas read in
 *                            place, when nothing writes them, merged by time
 *   klog_relay_dump_print.c  what it prints: each record as klog -r does,
 *                            the newest N, what is still staged
 *
 * Nothing here sleeps, allocates or takes a sleeping lock, and all of it
 * is static state: one dump at a time.
 */
#ifndef KLOG_RELAY_DUMP_H
#define KLOG_RELAY_DUMP_H

#include "klog_relay_internal.h"

/*
 * No pr_fmt(): the record lines must be exactly klog -r's, so the lines
 * about the dump carry the prefix themselves.
 */
#define KLOG_DUMP_PFX	"klog-mod: "

/*
 * The oops report must stay readable on the console and in a ramoops
 * record, which keeps only the tail: a dump prints the newest 100
 * records unless told otherwise, at most 100000, and stops after
 * KLOG_DUMP_TIME_MAX_NS whatever is left (under the RCU stall timeout:
 * it runs with interrupts off).
 */
#define KLOG_DUMP_N_DEFAULT	100
#define KLOG_DUMP_N_MAX		100000
#define KLOG_DUMP_TIME_MAX_NS	(10ULL * NSEC_PER_SEC)

/* klog_dump_oldest(): the time ran out while passing over records */
#define KLOG_DUMP_LATE		(-2)

/*
 * One buffer's part of the dump, static like everything the dump uses.
 * Sub-buffer numbers @first..@last are in the ring (slot k % n_subbufs);
 * the cursor is sub-buffer @k at byte @off.
 */
struct klog_dump_buf {
	bool	readable;
	u64	first, last;	/* sub-buffer numbers in the ring */
	size_t	last_used;	/* bytes of @last in use (its offset) */
	u64	moved;		/* klog_dump_moved() when read */
	u64	bad;		/* sub-buffers cut at a malformed record */
	u64	k;		/* cursor: sub-buffer */
	size_t	off;		/* cursor: offset in it */
	size_t	used;		/* cursor: bytes of sub-buffer k in use */
	/*
	 * The record at the cursor: @rec is &@hdr, the copy of its header
	 * that was checked (writers that missed the freeze may change the
	 * buffer under the dump: nothing is read twice), or NULL; its
	 * @hdr.len bytes of payload at @payload.
	 */
	const struct klog_rec_hdr *rec;
	struct klog_rec_hdr hdr;
	const u8 *payload;
	u64	prev_seq;	/* seq of the previous record */
	bool	have_prev;
	/* the last COMM record before the cursor in sub-buffer @k */
	bool	comm_known;
	u32	comm_pid;
	char	comm[KLOG_RELAY_COMM_LEN + 1];
};

DECLARE_PER_CPU(struct klog_dump_buf, klog_dump_bufs);

/*
 * One CPU's NMI staging area in the dump: its reader (klog_relay_nmi.c
 * owns the layout) and the record at its cursor, with the task name
 * copied at the NMI.
 */
struct klog_dump_staged {
	bool	readable;
	struct klog_relay_nmi_reader r;
	/* the record at the cursor, as in struct klog_dump_buf */
	const struct klog_rec_hdr *rec;
	struct klog_rec_hdr hdr;
	const u8 *payload;
	char	comm[KLOG_RELAY_COMM_LEN + 1];
};

DECLARE_PER_CPU(struct klog_dump_staged, klog_dump_staged);

/*
 * Sources of records, numbered: CPU's buffer 2 * CPU, CPU's NMI staging
 * area 2 * CPU + KLOG_DUMP_STAGED.
 */
#define KLOG_DUMP_STAGED	1

/* The channel being dumped (klog_dump()). */
extern struct rchan *klog_dump_chan;

/* Room for one line: a record's (klog_dump_format()) or a stats line. */
extern char klog_dump_text[960];

/*
 * The dump's time: since @start, at most @max_ns; @ns when last looked
 * at; @steps records passed over.
 */
struct klog_dump_clock {
	u64	start, max_ns, ns, steps;
};

/* Records passed over (not printed) between two looks at the clock. */
#define KLOG_DUMP_STEPS	256

/* klog_relay_dump_read.c */
struct rchan_buf *klog_dump_rbuf(unsigned int cpu);
bool klog_dump_has_buf(unsigned int cpu);
void klog_dump_staged_rewind(struct klog_dump_staged *s);
void klog_dump_rewind(struct klog_dump_buf *d, struct rchan_buf *buf);
void klog_dump_locate(struct klog_dump_buf *d, struct rchan_buf *buf);
bool klog_dump_quiet(unsigned int cpu, bool panic);
int klog_dump_oldest(int only_cpu, struct klog_dump_clock *t);
void klog_dump_advance(int src);
bool klog_dump_late(struct klog_dump_clock *t, bool printing);
bool klog_dump_count(int only_cpu, struct klog_dump_clock *t, u64 *total);

/* klog_relay_dump_print.c */
void klog_dump_records(const char *why, int only_cpu, u64 newest, u64 max_ns);
void klog_dump_staged_summary(void);

#endif /* KLOG_RELAY_DUMP_H */
