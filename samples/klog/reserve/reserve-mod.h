/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reserve-mod: state shared by its parts, and the write path
 *
 *   reserve-mod-main.c   design overview, channel life cycle, sub-buffer
 *                        start, flush, module init
 *   reserve-mod-files.c  control files, stats, relay files
 *   reserve-mod-emit.c   traffic on request (emit) and the benchmark
 *   reserve-format.h     the stream format, shared with readers
 *
 * The write path is here, inline, so that the benchmark times exactly
 * what the writers run: reserve_begin() hands out space in the buffer,
 * the caller fills it in place, reserve_commit() counts it written. The
 * synchronisation is described in reserve-mod-main.c ("Reserve and
 * commit"); the LMM(...) labels name the ordering points it relies on.
 */
#ifndef RESERVE_MOD_H
#define RESERVE_MOD_H

#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/rwsem.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include "reserve-format.h"

#define RESERVE_SUBBUF_MIN	SZ_1K
#define RESERVE_SUBBUF_MAX	SZ_64M
#define RESERVE_NSUBBUF_MIN	2
#define RESERVE_NSUBBUF_MAX	SZ_64K
#define RESERVE_BUF_MAX		SZ_1G

/*
 * Per CPU and channel. Changed by that CPU with interrupts off (or from
 * its relay callbacks, which run so), except @incomplete and
 * @incomplete_last: by read(2) of the buffer, in reserve_subbuf_used(),
 * which relay calls under the buffer's read_mutex.
 */
struct reserve_cpu {
	u64	seq;		/* records offered: reserved or dropped */
	u64	records;	/* reserved */
	u64	full;		/* dropped: every sub-buffer unconsumed */
	u64	big;		/* dropped: larger than a sub-buffer */
	u64	nested;		/* reserved inside another open record */
	u64	delayed;	/* writer slept between reserve and commit */
	u64	incomplete;	/* sub-buffers read(2) had to wait for */
	u64	incomplete_last; /* 1 + seq of the last one counted */
	u64	subbuf_seq;	/* sub-buffers started */
	u64	lost_reported;	/* drops already in sub-buffer headers */
	size_t	max_backlog;
};

/* A relay channel and its per-CPU state: relay's chan->private_data. */
struct reserve_chan {
	struct rchan		*rchan;		/* NULL when there is none */
	struct reserve_cpu __percpu *cpu;
	bool			overwrite;	/* reuse unconsumed sub-buffers */
};

/* One reservation, from reserve_begin() to reserve_commit(). */
struct reserve_slot {
	struct reserve_rec	*rec;		/* where to write */
	struct reserve_subbuf_hdr *hdr;		/* of the sub-buffer holding it */
	u32			size;
	u32			cpu;
	u64			seq;
	u64			ts_ns;
	u8			flags;		/* RESERVE_REC_* */
};

/* What the next create uses. */
struct reserve_config {
	size_t	subbuf_size;
	size_t	n_subbufs;
};

extern struct mutex reserve_ctl_lock;
extern struct rw_semaphore reserve_writers;
extern struct reserve_chan reserve_main;
extern struct reserve_config reserve_next_cfg;
extern bool reserve_enabled;
extern const struct rchan_callbacks reserve_relay_callbacks;

/* reserve-mod-main.c; the first four with reserve_ctl_lock held */
int reserve_create(void);
void reserve_destroy(void);
int reserve_set_enabled(bool on);
void reserve_flush(struct reserve_chan *rc);
int reserve_chan_open(struct reserve_chan *rc, const char *name,
		      struct dentry *dir, size_t subbuf_size, size_t n_subbufs,
		      bool overwrite);
void reserve_chan_close(struct reserve_chan *rc);
int reserve_subbuf_start(struct rchan_buf *buf, void *subbuf,
			 void *prev_subbuf, size_t prev_padding);

/* reserve-mod-files.c */
void reserve_files_init(struct dentry *dir);

/* reserve-mod-emit.c: the emit and bench files, and cleanup */
int reserve_emit_store(char *buf);
int reserve_bench_store(char *buf);
void reserve_bench_show(struct seq_file *m);
void reserve_emit_exit(void);

/*
 * The header's commit count as an atomic_t: the format keeps it a plain
 * __u32 for readers; in the kernel only atomic ops touch it, except the
 * reset in reserve_subbuf_start() of a sub-buffer no writer holds.
 */
static inline atomic_t *reserve_committed(struct reserve_subbuf_hdr *hdr)
{
	BUILD_BUG_ON(sizeof(atomic_t) != sizeof(hdr->committed));
	BUILD_BUG_ON(offsetof(struct reserve_subbuf_hdr, committed) %
		     __alignof__(atomic_t));
	return (atomic_t *)&hdr->committed;
}

/**
 * reserve_begin() - reserve @size bytes for a record in this CPU's buffer
 * @rc: the channel
 * @size: record bytes, header included, a multiple of RESERVE_REC_ALIGN
 * @flags: RESERVE_REC_* flags of the caller (RESERVE_REC_DELAYED)
 * @slot: filled in on success: where to write, and the record's identity
 *
 * The record takes the CPU's next sequence number whether it is reserved
 * or dropped (and counted as full or big), so loss leaves a gap. Only
 * relay_reserve() and the accounting run with interrupts off; the
 * caller then writes slot->rec with interrupts on, from any context that
 * may run while the channel exists, and must call reserve_commit() once.
 *
 * Context: any but NMI (relay is not NMI-safe). Does not sleep.
 * Return: true if space was reserved.
 */
static inline bool reserve_begin(struct reserve_chan *rc, u32 size, u8 flags,
				 struct reserve_slot *slot)
{
	struct reserve_subbuf_hdr *hdr;
	struct reserve_cpu *st;
	struct rchan_buf *buf;
	unsigned long irqs;
	u32 before;
	void *p;

	/*
	 * Interrupts off: relay_reserve() moves buf->offset and may switch
	 * sub-buffers in several steps; an interrupt writer on this CPU in
	 * between would get the same bytes. Nothing else here needs it.
	 */
	local_irq_save(irqs);
	st = this_cpu_ptr(rc->cpu);
	slot->seq = st->seq++;
	slot->cpu = smp_processor_id();
	slot->ts_ns = local_clock();
	if (unlikely(size > rc->rchan->subbuf_size - sizeof(*hdr))) {
		st->big++;
		goto drop;
	}
	p = relay_reserve(rc->rchan, size);
	if (unlikely(!p)) {
		st->full++;
		goto drop;
	}
	buf = *this_cpu_ptr(rc->rchan->buf);
	hdr = buf->data;
	before = hdr->reserved;
	/* An earlier record of this sub-buffer is still being written. */
	if (atomic_read(reserve_committed(hdr)) != before) {
		flags |= RESERVE_REC_NESTED;
		st->nested++;
	}
	if (flags & RESERVE_REC_DELAYED)
		st->delayed++;
	st->records++;
	WRITE_ONCE(hdr->reserved, before + size);		/* LMM(begin:A) */
	/*
	 * Order the reserved count before relay's subbufs_produced++ for
	 * this sub-buffer, which a later reserve_begin() or flush on this
	 * CPU does. Pairs with the acquire loads of subbufs_produced in
	 * relay's cpuN read() and cpuN.produced (kernel/relay.c): a reader
	 * that sees the sub-buffer produced sees its final reserved count.
	 */
	smp_wmb();						/* LMM(begin:B) */
	local_irq_restore(irqs);

	slot->rec = p;
	slot->hdr = hdr;
	slot->size = size;
	slot->flags = flags;
	return true;
drop:
	local_irq_restore(irqs);
	return false;
}

/**
 * reserve_commit() - count a reserved record as written
 * @slot: what reserve_begin() returned, its record now completely written
 *
 * An atomic add to the commit count of the record's sub-buffer, which is
 * what a reader waits for; it may run on any CPU, with interrupts on.
 * The sub-buffer cannot be reused before: it is not consumed until every
 * record in it is committed.
 *
 * Context: any but NMI. Does not sleep.
 */
static inline void reserve_commit(const struct reserve_slot *slot)
{
	/*
	 * Release: the record's bytes before the count that lets a reader
	 * copy them. Pairs with the reader's acquire load of the count
	 * (reserve_subbuf_used(), and the collector's).
	 */
	atomic_add_return_release(slot->size,
				  reserve_committed(slot->hdr)); /* LMM(commit:A) */
}

#endif /* RESERVE_MOD_H */
