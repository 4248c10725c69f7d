// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the write path
 *
 * klog_relay_write() builds each record in place in the current
 * sub-buffer, with interrupts off on the local CPU (per-CPU buffers) or
 * under klog_relay.global_lock (a global buffer): switch sub-buffers if
 * the record does not fit, fill it, then advance the offset. Every record
 * offered takes the next sequence number of its buffer and is written or
 * counted in exactly one drop cause, so loss leaves a gap in the stream
 * (NMI and reentered drops get theirs from the next record:
 * klog_relay_take_seq()). Nothing here may printk, WARN, sleep or take a
 * non-raw lock; a record made on a CPU already inside this path is
 * counted (reentered).
 *
 * A record names its call site by id (stream version 2), and its task by
 * a COMM record written in front of it when the task changes within a
 * sub-buffer (the pid; for pid 0, each CPU's idle task, the CPU too) and
 * in front of every sub-buffer's first record: a pid and 16 bytes of
 * current->comm, written only when the task changes, so a sub-buffer
 * that holds one task's records pays 56 bytes once.
 * klog_relay_build_rec() and klog_relay_build_comm() build the bytes;
 * klog_relay_reserve() decides whether a COMM record goes in front and
 * reserves both at once, for a record built here (klog_relay_put()) and
 * for one an NMI staged (klog_relay_offer_staged()) alike: those inline
 * pieces are in klog_relay_record.h, below both this file and the NMI
 * staging area, and what the staging area calls out of line in
 * klog_relay_record.c.
 *
 * A record made in NMI context is built by the same function,
 * klog_relay_build_rec(), into the CPU's NMI staging area
 * (klog_relay_nmi.c), with the comm of the task the NMI interrupted, and
 * moved into the buffer, in order, by the irq_work the NMI raised, by the
 * next write on that CPU or by a flush, whichever comes first
 * (klog_relay_offer_staged()): it takes its sequence number when it is
 * moved and keeps the timestamp taken at the NMI; its COMM record, if it
 * needs one, is decided when it is moved and names the staged comm.
 *
 * The common record (a payload of at most KLOG_RELAY_INLINE_COPY bytes,
 * no COMM record in front of it, room in the sub-buffer, no staged NMI
 * record waiting, the recorder not frozen) is written by
 * klog_relay_put_common(), inlined into klog_relay_write() with no call
 * in it: the payload copied with no loop (klog_relay_copy_payload()),
 * the COMM record built out of line (klog_relay_build_comm()), and
 * everything else offered by klog_relay_write_rest(), reached by a tail
 * call, so that the common record saves few callee-saved registers. Each
 * sub-buffer starts with last_task = KLOG_RELAY_NO_TASK, so that one
 * compare tells whether a record needs a COMM record.
 *
 * Each new sub-buffer's header, its padding, the drops a header reports
 * and the flush are in klog_relay_subbuf.c; the flight recorder's
 * trigger and freeze in klog_relay_recorder.c.
 *
 * Memory barriers
 * ---------------
 *
 * The ordering points are labelled LMM(function:letter), the function
 * named without its klog_relay_ prefix; the sub-buffer layout they
 * protect is drawn in <uapi/linux/klog_relay.h>.
 *
 * - write_begin:A, write_begin:B (in_write = true, then smp_wmb()
 *   before anything of the write path) and write_end:A
 *   (smp_store_release() of in_write = false after it). This CPU reads
 *   in_write from an interrupt, NMI or callee of the write path, in
 *   program order. The oops dump reads it from another CPU
 *   (klog_relay_dump.c): it sets the freeze and the NMI hold (dump:A),
 *   waits for in_write clear (dump:B, acquire), reads the buffer, then
 *   (dump:D: smp_rmb(), in_write waited for again, written and
 *   sub-buffers started compared) checks that no writer or flush was in
 *   it meanwhile. A writer that enters as
 *   the dump starts may miss the freeze (no full barrier: a record pays
 *   a plain store, not a fence), and the dump may miss it at dump:B; but
 *   if the dump read any of its stores it sees in_write set at dump:D
 *   (write_begin:B orders the flag first), waits, and finds written
 *   moved: the dump says the buffer changed while read. write_end:A
 *   pairs with dump:B and dump:D: a dump that sees in_write clear sees
 *   all the stores and the written count before it.
 * - put:A, finish_subbuf:A (the record's bytes, the header's padding:
 *   plain stores) need no barrier of their own: relay publishes the
 *   sub-buffer by incrementing subbufs_produced with smp_store_release()
 *   in relay_switch_subbuf() (relay-races patch), after both. Pair with
 *   the acquire loads of subbufs_produced by the readers (read(2) of
 *   cpuN, cpuN.produced): a reader that sees a sub-buffer produced sees
 *   all its records and its padding. buf->offset is read by no reader.
 * - reset:A..B (klog_relay_chan.c) and dump:R: a reset and a dump
 *   exclude each other (klog_relay_dump.c, step 5).
 * - subbuf_start:A..B, flush:A (klog_relay_subbuf.c) and trigger:A..B,
 *   freeze:A..B, last_trigger_info:A (klog_relay_recorder.c): see there.
 * - write:A (READ_ONCE of klog_relay.chan). Pairs with create:A and
 *   destroy:A (klog_relay_chan.c): the handler is registered only after
 *   create:A, and list_add_tail_rcu() in register_klog_handler()
 *   publishes it with release; it is unregistered, and an RCU grace
 *   period has waited for every writer, before destroy:A.
 * - offer:A (atomic_read() of FROZEN) is relaxed by design: a record
 *   racing with a freeze is either written or counted as frozen.
 * - stage:A..C, drain:A..C (klog_relay_nmi.c): the NMI staging area,
 *   written by an NMI and emptied by the same CPU; see there.
 * - drain_local:A (READ_ONCE of klog_relay.chan; klog_relay_nmi.c), as
 *   write:A: the irq_works that call klog_relay_drain_local() are raised
 *   only while the handler is registered, and klog_relay_nmi_sync() has
 *   waited for them before destroy:A; a flush calls it with
 *   klog_relay.ctl_lock held, which create and destroy hold too.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_record.h"

/*
 * Put one record of @size bytes into @buf, with its COMM record if it
 * needs one (klog_relay_reserve()); interrupts off (per-CPU) or
 * klog_relay.global_lock held. Returns false if the buffer is full.
 */
static __always_inline bool klog_relay_put(struct rchan_buf *buf,
					   struct klog_relay_cpu *st,
					   const struct klog_record *rec,
					   u64 seq, size_t size)
{
	int task = klog_relay_task(rec->pid, rec->cpu);
	size_t comm;
	char *p = klog_relay_reserve(buf, st, task, size, rec->ts_ns, &comm);

	if (!p)
		return false;
	/* LMM(put:A): plain stores, published with the sub-buffer */
	klog_relay_build_rec(p + comm, rec, rec->len, seq, size);
	if (unlikely(comm))
		klog_relay_build_comm(p, (struct klog_rec_hdr *)(p + comm),
				      current->comm);
	klog_relay_commit(buf, st, task, comm + size);
	return true;
}

/*
 * Offer @rec, numbered @seq, to @buf (NULL: the CPU has no buffer); the
 * buffer's writers are excluded. Counts it written or in one drop cause.
 */
static __always_inline void klog_relay_offer(struct rchan *chan,
					     struct rchan_buf *buf,
					     struct klog_relay_cpu *st,
					     const struct klog_record *rec,
					     u64 seq)
{
	size_t size = __klog_relay_rec_size(chan, rec);

	if (unlikely(!size))
		st->big++;
	else if (unlikely(klog_relay_frozen()))		/* LMM(offer:A) */
		st->frozen++;
	else if (unlikely(!buf))
		st->full++;
	else if (klog_relay_put(buf, st, rec, seq, size))
		st->written++;
	else
		st->full++;
}

/*
 * A global buffer's write, out of line: its lock call would cost the
 * per-CPU path callee-saved registers.
 */
static noinline void klog_relay_write_global(struct rchan *chan,
					     const struct klog_record *rec)
{
	struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, 0);
	struct klog_relay_cpu *me;
	unsigned long flags;

	local_irq_save(flags);
	me = this_cpu_ptr(&klog_relay_cpu);
	if (klog_relay_write_begin(me)) {
		struct rchan_buf *buf = *per_cpu_ptr(chan->buf, 0);

		klog_relay_global_lock();
		/* This CPU's NMI records made before this one go first. */
		if (unlikely(klog_relay_nmi_pending(me)))
			klog_relay_nmi_drain(smp_processor_id(), buf, st);
		klog_relay_offer(chan, buf, st, rec, st->seq++);
		klog_relay_global_unlock();
		klog_relay_write_end(me);
	}
	local_irq_restore(flags);
}

/*
 * Write @rec into @buf, this CPU's buffer of @chan, if it is the common
 * record: a payload of at most KLOG_RELAY_INLINE_COPY bytes, by the task
 * of the previous record in the sub-buffer (no COMM record), that fits
 * in the sub-buffer, the recorder not frozen. Returns false, having
 * changed nothing, for any other: klog_relay_write_rest() offers it.
 * Inlined into the write path with no call in it, so that the common
 * record keeps its state in as few callee-saved registers as it can;
 * interrupts off, inside the write path.
 */
static __always_inline bool klog_relay_put_common(struct rchan *chan,
						  struct rchan_buf *buf,
						  struct klog_relay_cpu *st,
						  const struct klog_record *rec)
{
	size_t len = rec->len;	/* one register for both its widths */
	size_t size = ALIGN(sizeof(struct klog_rec_hdr) + len, KLOG_REC_ALIGN);
	int task = klog_relay_task(rec->pid, rec->cpu);

	/* No sub-buffer is too small for it: __klog_relay_rec_size(). */
	BUILD_BUG_ON(sizeof(struct klog_subbuf_hdr) + KLOG_RELAY_COMM_SIZE +
		     sizeof(struct klog_rec_hdr) + KLOG_RELAY_INLINE_COPY >
		     KLOG_RELAY_SUBBUF_MIN);
	if (len > KLOG_RELAY_INLINE_COPY || unlikely(!buf) ||
	    task != st->last_task ||
	    buf->offset + size > chan->subbuf_size ||
	    klog_relay_frozen())			/* LMM(offer:A) */
		return false;
	/* LMM(put:A): plain stores, published with the sub-buffer */
	klog_relay_build_rec(buf->data + buf->offset, rec, len,
			     klog_relay_take_seq(st), size);
	klog_relay_commit(buf, st, task, size);
	st->written++;
	return true;
}

/*
 * Every record but the common one, out of line (klog_relay_put_common()):
 * this CPU's staged NMI records first, then @rec offered. Leaves the
 * write path and restores @flags.
 */
static noinline void klog_relay_write_rest(struct rchan *chan,
					   struct rchan_buf *buf,
					   struct klog_relay_cpu *st,
					   const struct klog_record *rec,
					   unsigned long flags)
{
	/* This CPU's NMI records made before this one go first. */
	if (unlikely(klog_relay_nmi_pending(st)))
		klog_relay_nmi_drain(smp_processor_id(), buf, st);
	klog_relay_offer(chan, buf, st, rec, klog_relay_take_seq(st));
	klog_relay_write_end(st);
	local_irq_restore(flags);
}

static void klog_relay_write(struct klog_handler *h,
			     const struct klog_record *rec)
{
	/* Registered only while the channel exists (set_enabled()). */
	struct rchan *chan = READ_ONCE(klog_relay.chan); /* LMM(write:A) */
	struct klog_relay_cpu *st;
	struct rchan_buf *buf;
	unsigned long flags;

	/*
	 * relay buffers are not NMI-safe: an NMI record goes into this CPU's
	 * NMI staging area, to be moved into the buffer by an irq_work or
	 * the next write here (klog_relay_nmi.c).
	 */
	if (unlikely(rec->ctx == KLOG_CTX_NMI)) {
		klog_relay_nmi_stage(chan, rec);
		return;
	}
	if (klog_relay.cfg.global) {
		klog_relay_write_global(chan, rec);
		return;
	}

	/* All accounting with interrupts off: see klog_relay_take_seq(). */
	local_irq_save(flags);
	st = this_cpu_ptr(&klog_relay_cpu);
	/*
	 * One register for the state: without this, gcc addresses some of
	 * its fields from the per-CPU offset and others through st.
	 */
	OPTIMIZER_HIDE_VAR(st);
	if (unlikely(!klog_relay_write_begin(st))) {
		local_irq_restore(flags);
		return;
	}
	buf = *this_cpu_ptr(chan->buf);
	if (unlikely(klog_relay_nmi_pending(st)) ||
	    !klog_relay_put_common(chan, buf, st, rec)) {
		klog_relay_write_rest(chan, buf, st, rec, flags);
		return;
	}
	klog_relay_write_end(st);
	local_irq_restore(flags);
}

/**
 * klog_relay_write_abandon() - give up the write path an oops ended
 *
 * An oops in task context inside this CPU's write path (a klog_raw() of a
 * bad pointer faults in the payload copy) kills the task: its write path
 * never goes on. Leave it for it, so that this CPU's records are written
 * again after the oops, not all counted reentered, and a global buffer's
 * lock, if the task holds it, is not spun on forever by every CPU. A
 * record that took its number and was neither written nor dropped was
 * being written: it counts as reentered, its number given back (in a
 * per-CPU buffer the next record's number takes it again for that drop:
 * klog_relay_take_seq()). Nothing else needs undoing: a record is built
 * in front of the buffer's offset, which moves once its payload is
 * copied; a sub-buffer it started empty says so (first_ts 0). In a
 * global buffer, whose state is the lock holder's, only if this CPU holds
 * the lock (a fault while it waited for it leaves it alone). Not at an
 * oops in interrupt or NMI context, which panics: there the write path
 * may be the interrupted code's.
 *
 * Context: the oopsing CPU's die notifier, last in the chain (no notifier
 * after it can keep the task alive), interrupts off.
 */
void klog_relay_write_abandon(void)
{
	struct klog_relay_cpu *me = this_cpu_ptr(&klog_relay_cpu);
	unsigned int cpu = smp_processor_id();
	struct klog_relay_cpu *st = klog_relay_buf_state(cpu);
	struct rchan *chan = READ_ONCE(klog_relay.chan);
	bool global = klog_relay.cfg.global;
	struct rchan_buf *buf;

	if (!me->in_write || in_interrupt() || !chan)
		return;
	if (global && READ_ONCE(klog_relay.global_owner) != cpu) {
		klog_relay_write_end(me);
		return;
	}
	/* Every number taken is a record written or dropped, or folded. */
	if (st->seq != st->written + st->full + st->big + st->frozen +
		       st->folded) {
		st->seq--;
		me->reentered++;
	}
	buf = *per_cpu_ptr(chan->buf, global ? 0 : cpu);
	if (buf && buf->offset == sizeof(struct klog_subbuf_hdr))
		klog_relay_subbuf_hdr(buf->data)->first_ts = 0;
	if (global) {
		__acquire(&klog_relay.global_lock);	/* by the dead task */
		klog_relay_global_unlock();
	}
	klog_relay_write_end(me);
}

struct klog_handler klog_relay_handler = {
	.name		= "relay",
	.write		= klog_relay_write,
	.trigger	= klog_relay_trigger,
};
