// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the write path and sub-buffer boundaries
 *
 * klog_write() builds each record in place in the current sub-buffer,
 * with interrupts off on the local CPU (per-CPU buffers) or under
 * klog_global_lock (a global buffer): switch sub-buffers if the record
 * does not fit, fill it, then advance the offset. Every record offered
 * takes the next sequence number of its buffer and is written or counted
 * in exactly one drop cause, so loss leaves a gap in the stream.
 *
 * klog_subbuf_start() writes each new sub-buffer's header. Before relay
 * switches sub-buffers (it counts the old one produced first), the old
 * one's padding is stored in its header: klog_finish_subbuf().
 *
 * klog_flush() finishes every buffer's current sub-buffer on the CPU
 * that writes it, and can record snapshot positions at the same time.
 * klog_relay_trigger() freezes an overwrite-mode recorder, whether or not
 * the trigger's own record could be written.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/cpu.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog-mod.h"

DEFINE_PER_CPU(struct klog_state, klog_state);
DEFINE_RAW_SPINLOCK(klog_global_lock);
bool klog_frozen;
atomic_t klog_trigger_armed = ATOMIC_INIT(1);
struct klog_trigger_info klog_last_trigger;

/*
 * Drops of every cause accounted to buffer @buf_cpu; called on its CPU
 * with interrupts off, or under klog_global_lock.
 */
u64 klog_drops(const struct klog_state *st, unsigned int buf_cpu)
{
	u64 drops = READ_ONCE(st->full) + READ_ONCE(st->big) +
		    READ_ONCE(st->frozen);
	unsigned int cpu;

	if (!klog_cfg.global)
		return drops + READ_ONCE(st->nmi);
	for_each_possible_cpu(cpu)
		drops += READ_ONCE(per_cpu_ptr(&klog_state, cpu)->nmi);
	return drops;
}

/*
 * Store the current sub-buffer's padding in its header before relay
 * counts it produced; a no-op if the buffer is full (the sub-buffer was
 * finished when it filled).
 */
static void klog_finish_subbuf(struct rchan_buf *buf)
{
	if (buf->offset > buf->chan->subbuf_size)
		return;
	subbuf_hdr(buf->data)->padding = buf->chan->subbuf_size - buf->offset;
	/*
	 * Order the padding before relay's subbufs_produced++. Pairs with
	 * the acquire in relay_files_read() and, for mmap readers, with the
	 * one in relay_files_produced_read(): they read cpuN.produced before
	 * the header.
	 */
	smp_wmb();
}

int klog_subbuf_start(struct rchan_buf *buf, void *subbuf, void *prev_subbuf,
		      size_t prev_padding)
{
	struct klog_state *st = klog_buf_state(buf->cpu);
	struct klog_subbuf_hdr *hdr = subbuf;
	size_t backlog;
	u64 drops;

	if (prev_subbuf)
		WARN_ON_ONCE(subbuf_hdr(prev_subbuf)->padding != prev_padding);

	/* the reader stores subbufs_consumed (relay_subbufs_consumed()) */
	backlog = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed);
	if (backlog > st->max_backlog)
		st->max_backlog = backlog;

	if (!klog_cfg.overwrite && relay_buf_full(buf)) {
		if (!st->was_full)
			pr_info_ratelimited("buffer %u full\n", buf->cpu);
		st->was_full = true;
		return 0;
	}
	if (st->was_full)
		pr_info_ratelimited("buffer %u no longer full\n", buf->cpu);
	st->was_full = false;

	drops = klog_drops(st, buf->cpu);
	*hdr = (struct klog_subbuf_hdr) {
		.magic		= KLOG_SUBBUF_MAGIC,
		.version	= KLOG_RELAY_VERSION,
		.hdr_size	= sizeof(*hdr),
		.cpu		= buf->cpu,
		.seq		= st->subbuf_seq++,
		.lost		= drops - st->lost_reported,
		.first_ts	= st->next_ts,
	};
	st->lost_reported = drops;
	subbuf_start_reserve(buf, sizeof(*hdr));
	/*
	 * The header (its seq above all) before any record of the new lap:
	 * a snapshot reader that finds the old seq in the header after
	 * copying a sub-buffer knows no byte of it was overwritten. Pairs
	 * with the reader's read barrier before its header re-check.
	 */
	smp_wmb();
	return 1;
}

/*
 * Put one record into @buf; interrupts off (per-CPU) or klog_global_lock
 * held. Returns false if the buffer is full. Inlined: it is the whole of
 * the per-record work, and a call less counts on the hot path.
 */
static __always_inline bool klog_put(struct rchan_buf *buf,
				     struct klog_state *st,
				     const struct klog_record *rec, u64 seq,
				     size_t size, size_t func_len)
{
	struct klog_rec_hdr *r;
	char *p;

	if (unlikely(buf->offset + size > buf->chan->subbuf_size)) {
		klog_finish_subbuf(buf);
		st->next_ts = rec->ts_ns;
		if (!relay_switch_subbuf(buf, size))
			return false;
	}

	r = buf->data + buf->offset;
	/*
	 * Zero the padding (under 8 bytes: size is a multiple of 8) with one
	 * store that the header, name and payload then overwrite in part.
	 */
	BUILD_BUG_ON(sizeof(u64) != KLOG_REC_ALIGN);
	*(u64 *)((char *)r + size - sizeof(u64)) = 0;
	*r = (struct klog_rec_hdr) {
		.size		= size,
		.len		= rec->len,
		.ts_ns		= rec->ts_ns,
		.seq		= seq,
		.pid		= rec->pid,
		.line		= rec->site->line,
		.kind		= rec->kind,
		.ctx		= rec->ctx,
		.flags		= (rec->flags & KLOG_REC_TRUNCATED ?
				   KLOG_RELAY_TRUNCATED : 0) |
				  (rec->flags & KLOG_REC_TRIGGER ?
				   KLOG_RELAY_TRIGGER : 0),
		.func_len	= func_len,
		.cpu		= rec->cpu,
	};
	p = (char *)(r + 1);
	memcpy(p, rec->site->func, func_len);
	memcpy(p + func_len, rec->payload, rec->len);
	/*
	 * The record before the offset that makes it readable: read(2)
	 * and mmap readers only look below offsets of finished sub-buffers,
	 * whose completion is ordered by klog_finish_subbuf().
	 */
	smp_wmb();
	buf->offset += size;
	return true;
}

static void klog_write_global(struct rchan *chan, const struct klog_record *rec,
			      size_t size, size_t func_len)
{
	struct klog_state *st = per_cpu_ptr(&klog_state, 0);
	unsigned long flags;
	u64 seq;

	raw_spin_lock_irqsave(&klog_global_lock, flags);
	seq = st->seq++;
	if (size > chan->subbuf_size - sizeof(struct klog_subbuf_hdr))
		st->big++;
	else if (READ_ONCE(klog_frozen))
		st->frozen++;
	else if (klog_put(*per_cpu_ptr(chan->buf, 0), st, rec, seq, size,
			  func_len))
		st->written++;
	else
		st->full++;
	raw_spin_unlock_irqrestore(&klog_global_lock, flags);
}

static void klog_write(struct klog_handler *h, const struct klog_record *rec)
{
	/* Registered only while the channel exists (klog_set_enabled()). */
	struct rchan *chan = READ_ONCE(klog_chan);
	size_t func_len, size;
	unsigned long flags;
	u64 seq;

	/*
	 * relay buffers are not NMI-safe: count NMI records. In per-CPU mode
	 * they take a sequence number too, so they leave a gap. A record
	 * that is written takes its number with interrupts off, so numbers
	 * grow in buffer order; an NMI in between only takes one to drop.
	 */
	if (unlikely(rec->ctx == KLOG_CTX_NMI)) {
		if (!klog_cfg.global)
			this_cpu_inc(klog_state.seq);
		this_cpu_inc(klog_state.nmi);
		return;
	}

	func_len = min_t(size_t, rec->site->func_len, U8_MAX);
	size = ALIGN(sizeof(struct klog_rec_hdr) + func_len + rec->len,
		     KLOG_REC_ALIGN);
	if (klog_cfg.global) {
		klog_write_global(chan, rec, size, func_len);
		return;
	}

	if (unlikely(size > chan->subbuf_size - sizeof(struct klog_subbuf_hdr))) {
		this_cpu_inc(klog_state.seq);
		this_cpu_inc(klog_state.big);
		return;
	}
	if (unlikely(READ_ONCE(klog_frozen))) {
		this_cpu_inc(klog_state.seq);
		this_cpu_inc(klog_state.frozen);
		return;
	}

	local_irq_save(flags);
	seq = this_cpu_inc_return(klog_state.seq) - 1;
	if (klog_put(*this_cpu_ptr(chan->buf), this_cpu_ptr(&klog_state), rec,
		     seq, size, func_len))
		this_cpu_inc(klog_state.written);
	else
		this_cpu_inc(klog_state.full);
	local_irq_restore(flags);
}

/*
 * Flight recorder: in overwrite mode the first trigger freezes the
 * recorder, after its own record was written. Armed again by thawing.
 */
static void klog_relay_trigger(struct klog_handler *h,
			       const struct klog_record *rec)
{
	const char *reason = rec->payload;
	size_t len = rec->len;

	if (!klog_cfg.overwrite || !atomic_cmpxchg(&klog_trigger_armed, 1, 0))
		return;
	klog_last_trigger.ts_ns = rec->ts_ns;
	klog_last_trigger.cpu = rec->cpu;
	len = min(len, sizeof(klog_last_trigger.reason) - 1);
	memcpy(klog_last_trigger.reason, reason, len);
	klog_last_trigger.reason[len] = '\0';
	WRITE_ONCE(klog_frozen, true);
}

struct klog_handler klog_relay_handler = {
	.name		= "relay",
	.write		= klog_write,
	.trigger	= klog_relay_trigger,
};

/* Freeze (writes are counted as dropped) or thaw and re-arm the trigger. */
void klog_freeze(bool frozen)
{
	WRITE_ONCE(klog_frozen, frozen);
	if (!frozen)
		atomic_set(&klog_trigger_armed, 1);
}

/* Finish the current sub-buffer of @buf if it holds records. */
static void klog_flush_buf(struct rchan_buf *buf, struct klog_state *st,
			   bool snapshot)
{
	if (buf->offset > sizeof(struct klog_subbuf_hdr) &&
	    buf->offset <= buf->chan->subbuf_size) {
		klog_finish_subbuf(buf);
		st->next_ts = 0;
		relay_switch_subbuf(buf, 0);
	}
	if (snapshot) {
		st->snap_pos = buf->subbufs_produced;
		st->snap_ts = local_clock();
	}
}

static void klog_flush_local(void *info)
{
	const bool *snapshot = info;

	klog_flush_buf(*this_cpu_ptr(klog_chan->buf), this_cpu_ptr(&klog_state),
		       *snapshot);
}

/**
 * klog_flush() - finish every buffer's current sub-buffer
 * @snapshot: also record each buffer's position (subbufs_produced)
 *
 * Each online CPU flushes its own buffer in an IPI, with interrupts off,
 * so it cannot race with a writer there (relay_flush() would); buffers of
 * offline CPUs have no writers; a global buffer is flushed under its
 * lock. Every sub-buffer before a snapshot position was finished when its
 * CPU took the position, that is before klog_flush() returned.
 *
 * Context: process, klog_ctl_lock held, a channel exists.
 */
void klog_flush(bool snapshot)
{
	unsigned long flags;
	unsigned int cpu;

	lockdep_assert_held(&klog_ctl_lock);
	if (klog_cfg.global) {
		raw_spin_lock_irqsave(&klog_global_lock, flags);
		klog_flush_buf(*per_cpu_ptr(klog_chan->buf, 0),
			       per_cpu_ptr(&klog_state, 0), snapshot);
		raw_spin_unlock_irqrestore(&klog_global_lock, flags);
		return;
	}
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_chan->buf, cpu);

		if (!buf)
			continue;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, klog_flush_local,
						 &snapshot, 1);
		else
			klog_flush_buf(buf, per_cpu_ptr(&klog_state, cpu),
				       snapshot);
	}
	cpus_read_unlock();
}
