// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: sub-buffer boundaries and the flush
 *
 * klog_relay_subbuf_start() writes each new sub-buffer's header. Before
 * relay switches sub-buffers (it counts the old one produced first), the
 * old one's padding is stored in its header: klog_relay_finish_subbuf().
 *
 * A header reports the records dropped since the previous sub-buffer
 * started (klog_relay_drops()), so that loss shows in the stream itself.
 *
 * klog_relay_flush() finishes every buffer's current sub-buffer on the CPU
 * that writes it, and can record snapshot positions at the same time.
 *
 * Memory barriers (see klog_relay_write.c for the labels' scheme and the
 * write path's own):
 *
 * - subbuf_start:A, subbuf_start:B (the new lap's seq, then smp_wmb()
 *   before anything else of the lap). Pair with the snapshot reader's
 *   smp_rmb() between its copy of a sub-buffer and its re-check of the
 *   header's seq (klog collector, klog-snapshot.c): a copy holding any
 *   byte of the new lap fails the re-check.
 * - flush:A (smp_call_function_single(), waiting). The flushing CPU's
 *   stores (the finished sub-buffer, snap_pos, snap_ts) are ordered
 *   before the caller returns by the call's completion (csd unlock with
 *   release, waited for with acquire). Pairs with the readers of
 *   ``snapshot``, under klog_relay.ctl_lock after klog_relay_flush().
 * - finish_subbuf:A (klog_relay_finish_subbuf(), in
 *   klog_relay_internal.h): with put:A in klog_relay_write.c.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/cpu.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include "klog_relay_internal.h"

/*
 * Test hook: the next test_reenter sub-buffer starts make a klog record
 * from inside the write path, where klog_relay_subbuf_start() once printed
 * "buffer full" (a printk that another klog user, such as a console
 * driver or kleak's probe, turns into a klog call). The selftest checks
 * that each one is counted as reentered and nothing else is disturbed.
 */
static atomic_t klog_relay_test_reenter = ATOMIC_INIT(0);
module_param_named(test_reenter, klog_relay_test_reenter.counter, int, 0600);
MODULE_PARM_DESC(test_reenter,
		 "testing: make N klog records from inside the write path");

/*
 * Drops accounted to buffer @buf_cpu that have sequence numbers: the ones
 * sub-buffer headers report. Called with the buffer's writers excluded
 * (on its CPU with interrupts off, or under klog_relay.global_lock) or for
 * stats. In per-CPU mode, NMI and reentered drops count once the next
 * record numbers them (klog_relay_take_seq()); a global buffer's NMI and
 * reentered drops (per calling CPU) take no number and count at once.
 */
u64 klog_relay_drops(unsigned int buf_cpu)
{
	const struct klog_relay_cpu *st = klog_relay_buf_state(buf_cpu);
	u64 drops = READ_ONCE(st->full) + READ_ONCE(st->big) +
		    READ_ONCE(st->frozen);
	unsigned int cpu;

	if (!klog_relay.cfg.global)
		return drops + READ_ONCE(st->folded);
	for_each_possible_cpu(cpu) {
		const struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu,
							     cpu);

		drops += READ_ONCE(c->nmi) + READ_ONCE(c->reentered);
	}
	return drops;
}

/*
 * relay's subbuf_start callback, with interrupts off on the buffer's CPU
 * (or klog_relay.global_lock held), from the write path or a flush; or
 * before the buffer is visible, from relay_open()/relay_reset(). Nothing
 * here may printk or WARN: relay has set buf->offset = 0 but not yet
 * buf->data, and a printk can deadlock (a scheduler lock held by the klog
 * caller) or make klog records. A full buffer shows in stats (full) and
 * in the next header's lost.
 */
int klog_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding)
{
	struct klog_relay_cpu *st = klog_relay_buf_state(buf->cpu);
	struct klog_subbuf_hdr *hdr = subbuf;
	size_t backlog;
	u64 drops;

	if (unlikely(atomic_read(&klog_relay_test_reenter) > 0) &&
	    atomic_dec_if_positive(&klog_relay_test_reenter) >= 0)
		klog_printk("test_reenter\n");

	/*
	 * The reader stores subbufs_consumed (relay_subbufs_consumed()):
	 * a statistic, no ordering needed.
	 */
	backlog = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed);
	if (backlog > st->max_backlog)
		st->max_backlog = backlog;

	if (!klog_relay.cfg.overwrite && relay_buf_full(buf))
		return 0;

	/* The new lap's sequence number first, then everything else of it. */
	WRITE_ONCE(hdr->seq, st->subbuf_seq++);	/* LMM(subbuf_start:A) */
	/*
	 * Guarantees: a reader that sees any later store to this slot (the
	 * header fields below, padding = 0 of the new lap included, or a
	 * record) after LMM(subbuf_start:A) sees the new seq.
	 *
	 * Pairs with: the snapshot reader's smp_rmb() between its copy of
	 * the sub-buffer and its re-check of the header's seq (klog
	 * collector, klog-snapshot.c). A copy that holds any byte of the new
	 * lap fails the re-check and is skipped, never kept with the old
	 * seq and the new padding, lost or first_ts.
	 *
	 * Relies on: nothing else of the lap being stored before it.
	 */
	smp_wmb();					/* LMM(subbuf_start:B) */
	drops = klog_relay_drops(buf->cpu);
	hdr->magic = KLOG_SUBBUF_MAGIC;
	hdr->version = KLOG_RELAY_VERSION;
	hdr->hdr_size = sizeof(*hdr);
	hdr->cpu = buf->cpu;
	hdr->padding = 0;
	hdr->lost = drops - st->lost_reported;
	hdr->first_ts = st->next_ts;
	st->lost_reported = drops;
	/* Its first record is named: klog_relay_reserve(). */
	st->last_task = KLOG_RELAY_NO_TASK;
	subbuf_start_reserve(buf, sizeof(*hdr));
	return 1;
}

/* Finish the current sub-buffer of @buf if it holds records. */
static void klog_relay_flush_buf(struct rchan_buf *buf,
				 struct klog_relay_cpu *st, bool snapshot)
{
	if (buf->offset > sizeof(struct klog_subbuf_hdr) &&
	    buf->offset <= buf->chan->subbuf_size) {
		klog_relay_finish_subbuf(buf);
		st->next_ts = 0;
		relay_switch_subbuf(buf, 0);
	}
	if (snapshot) {
		st->snap_pos = buf->subbufs_produced;
		st->snap_ts = local_clock();
	}
}

static void klog_relay_flush_local(void *info)
{
	struct klog_relay_cpu *st = this_cpu_ptr(&klog_relay_cpu);
	struct rchan_buf *buf = *this_cpu_ptr(klog_relay.chan->buf);
	const bool *snapshot = info;

	/* In the write path: a record made while switching is reentered. */
	if (!klog_relay_write_begin(st))
		return;
	/* Staged NMI records first: before the snapshot position. */
	klog_relay_nmi_drain(smp_processor_id(), buf, st);
	klog_relay_flush_buf(buf, st, *snapshot);
	klog_relay_write_end(st);
}

static void klog_relay_drain_ipi(void *info)
{
	klog_relay_drain_local();
}

/* One pass of klog_relay_flush(): the drains, then the sub-buffers. */
static void klog_relay_flush_once(bool snapshot)
{
	struct klog_relay_cpu *me;
	unsigned long flags;
	unsigned int cpu;

	cpus_read_lock();
	if (klog_relay.cfg.global) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_relay.chan->buf, 0);
		struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, 0);

		/* Staged NMI records first: before the snapshot position. */
		on_each_cpu(klog_relay_drain_ipi, NULL, 1);
		local_irq_save(flags);
		me = this_cpu_ptr(&klog_relay_cpu);
		/* not nested: process context */
		klog_relay_write_begin(me);
		klog_relay_global_lock();
		/*
		 * An offline CPU's: its last irq_work, as it went down, may
		 * have left them (an oops dump held them). No NMI there.
		 */
		for_each_possible_cpu(cpu)
			if (!cpu_online(cpu))
				klog_relay_nmi_drain(cpu, buf, st);
		klog_relay_flush_buf(buf, st, snapshot);
		klog_relay_global_unlock();
		klog_relay_write_end(me);
		local_irq_restore(flags);
		cpus_read_unlock();
		return;
	}
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_relay.chan->buf, cpu);

		if (!buf)
			continue;
		/* LMM(flush:A): the IPI's stores are seen on return */
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, klog_relay_flush_local,
						 &snapshot, 1);
		} else {
			struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu,
								cpu);

			/*
			 * No NMI, no irq_work there: its staged records. Inside
			 * its write path, as its own flush would be, for an oops
			 * dump reading its buffer meanwhile (dump:D), and not
			 * preempted there. If the CPU went down inside its write
			 * path (a crash there), its buffer is left as it is.
			 */
			local_irq_save(flags);
			if (klog_relay_write_begin(st)) {
				klog_relay_nmi_drain(cpu, buf, st);
				klog_relay_flush_buf(buf, st, snapshot);
				klog_relay_write_end(st);
			}
			local_irq_restore(flags);
		}
	}
	cpus_read_unlock();
}

/**
 * klog_relay_flush() - finish every buffer's current sub-buffer
 * @snapshot: also record each buffer's position (subbufs_produced)
 *
 * Each online CPU flushes its own buffer in an IPI, with interrupts off,
 * so it cannot race with a writer there (relay_flush() would); buffers of
 * offline CPUs have no writers; a global buffer is flushed under its
 * lock. Every sub-buffer before a snapshot position was finished when its
 * CPU took the position, that is before klog_relay_flush() returned.
 * Records staged by NMIs before the flush are moved into the buffers
 * first, so they are before the snapshot positions: an online CPU moves
 * its own; an offline CPU's are moved by the flushing CPU (into their
 * CPU's buffer, or into a global buffer under its lock).
 * While an oops dump holds the staged records where they are, the flush
 * waits for it to end; if a dump held them while the flush ran, it is
 * done again.
 *
 * Context: process, klog_relay.ctl_lock held, a channel exists; sleeps.
 */
void klog_relay_flush(bool snapshot)
{
	unsigned int holds, seen;

	lockdep_assert_held(&klog_relay.ctl_lock);
	seen = klog_relay_nmi_wait_released();
	do {
		holds = seen;
		klog_relay_flush_once(snapshot);
		seen = klog_relay_nmi_wait_released();	/* LMM(flush:H) */
	} while (seen != holds);
}
