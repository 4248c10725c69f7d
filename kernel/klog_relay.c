// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: a klog handler that streams records through relay
 *
 * This file is the handler's bottom layer: the state every part shares
 * (klog_relay, the per-CPU counters klog_relay_cpu) and what the counters
 * add up to (klog_relay_all_drops(), the ``stats`` line, which the control
 * files and the dump on oops both print). It calls no other part; the
 * parts and their layers are listed in klog_relay_internal.h. The design
 * overview follows.
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog relay handler overview
 *
 * The kernel half of the relay-apps "klog" pair. It registers with the
 * klog core and writes every record into a relay channel, one buffer per
 * CPU (or one global buffer), in the format of <uapi/linux/klog_relay.h>.
 * The user half, the ``klog`` collector, reads the buffers and writes
 * them to disk, or takes snapshots of a flight recorder.
 *
 * Control files
 * -------------
 *
 * In /sys/kernel/debug/klog/, all root-only, declared as one table in
 * klog_relay_files.c and documented in klog.rst ("Control files"):
 * ``subbuf_size``, ``n_subbufs``, ``mode`` and ``global`` for the next
 * ``create``;
 * ``create``, ``enabled``, ``flush``, ``snapshot``, ``frozen``,
 * ``reset``; ``dropped``, ``stats``, ``trigger``; per buffer ``cpuN``,
 * ``cpuN.produced`` and ``cpuN.consumed``; ``dump_on_oops``, the
 * records printed on oops and panic (klog_relay_dump.c, DOC: klog relay
 * dump on oops).
 *
 * Nothing is lost silently
 * ------------------------
 *
 * Every record offered to a buffer takes its next sequence number and is
 * written or counted in exactly one cause: ``full`` (no-overwrite mode,
 * every sub-buffer unread, or the CPU has no buffer), ``big`` (larger
 * than a sub-buffer's payload), ``nmi`` (the CPU's NMI staging area was
 * full: klog_relay_nmi.c),
 * ``frozen``, ``reentered`` (made on a CPU already inside the write path,
 * by code it called: never written mid-switch, never a deadlock). All of
 * it is accounted with interrupts off; NMI and reentered drops take
 * their sequence numbers just before the next record. A header's lost
 * sums every drop since the previous header, wherever its gap is (drops
 * after a boundary made without a record, by a flush, are in the next
 * header's). Records the
 * klog core refused for nesting too deep while the channel was enabled
 * are reported as ``nest``. Nothing in the write path prints. Each sub-buffer
 * header carries the number of records dropped since the previous one
 * started, so a reader sees loss in the stream itself. In overwrite mode
 * the sub-buffers a reader never took are overwritten by design; their
 * absence shows as gaps in the header sequence numbers.
 *
 * Snapshots
 * ---------
 *
 * A snapshot reader mmaps a buffer, writes ``snapshot``, reads POS, and
 * copies sub-buffers POS - n_subbufs + 1 .. POS - 1, oldest first. Writers
 * keep going: sub-buffer S sits in slot S % n_subbufs, so each copy is
 * checked before and after against the header's sequence number, which a
 * writer rewrites (with a write barrier) before it puts any record into
 * a reused slot. A mismatch means the slot was reused: the copy is
 * skipped and counted, never kept torn.
 *
 * Limitations
 * -----------
 *
 * - NMI records are staged per CPU and moved into the buffer an instant
 *   later (klog_relay_nmi.c); more than the staging area holds are counted.
 * - A flush finishes partially filled sub-buffers, so they carry padding.
 * - In a global buffer, NMI and reentered drops show in the counters and
 *   in the headers' ``lost``, but do not take a record sequence number.
 * - cpuN read() is refused (-EOPNOTSUPP) in overwrite mode once a
 *   sub-buffer is finished (klog_relay_subbuf_used()).
 * - Timestamps are taken by the klog core before the record is written,
 *   so within a buffer sequence order (the order of writing) may differ
 *   slightly from timestamp order; a global buffer is in lock order.
 */

#include <linux/klog.h>
#include <linux/relay.h>
#include <linux/sizes.h>
#include <linux/sprintf.h>
#include "klog_relay_internal.h"

struct klog_relay klog_relay = {
	.ctl_lock	= __MUTEX_INITIALIZER(klog_relay.ctl_lock),
	.next_cfg	= {
		.subbuf_size	= SZ_256K,
		.n_subbufs	= 4,
	},
	.recorder	= ATOMIC_INIT(KLOG_RECORDER_ARMED),
	.global_lock	= __RAW_SPIN_LOCK_UNLOCKED(klog_relay.global_lock),
	.global_owner	= -1,
};

DEFINE_PER_CPU(struct klog_relay_cpu, klog_relay_cpu);

/*
 * Records the klog core refused on @cpu for nesting too deep while this
 * channel was enabled (offered records); klog_relay.ctl_lock held, or
 * the oops/panic dump, which reads without it (a moment apart).
 */
static u64 klog_relay_nest_drops_cpu(unsigned int cpu)
{
	const struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, cpu);

	if (!READ_ONCE(klog_relay.enabled))
		return st->nest;
	return st->nest + klog_nest_dropped(cpu) - st->nest_base;
}

static u64 klog_relay_nest_drops(unsigned int buf_cpu)
{
	unsigned int cpu;
	u64 n = 0;

	if (!klog_relay.cfg.global)
		return klog_relay_nest_drops_cpu(buf_cpu);
	for_each_possible_cpu(cpu)
		n += klog_relay_nest_drops_cpu(cpu);
	return n;
}

/*
 * Drops counted per calling CPU (NMI staging full, reentered): the field at
 * @off of each CPU's struct klog_relay_cpu, all of them when global.
 */
static u64 klog_relay_caller_drops(unsigned int buf_cpu, size_t off)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu) {
		const char *st = (const char *)per_cpu_ptr(&klog_relay_cpu, cpu);

		if (klog_relay.cfg.global || cpu == buf_cpu)
			n += READ_ONCE(*(const unsigned long *)(st + off));
	}
	return n;
}

#define klog_relay_nmi_drops(cpu) \
	klog_relay_caller_drops(cpu, offsetof(struct klog_relay_cpu, nmi))
#define klog_relay_reentered_drops(cpu) \
	klog_relay_caller_drops(cpu, offsetof(struct klog_relay_cpu, reentered))

/* Every drop accounted to buffer @buf_cpu, numbered or not yet. */
u64 klog_relay_all_drops(unsigned int buf_cpu)
{
	const struct klog_relay_cpu *st = klog_relay_buf_state(buf_cpu);

	return READ_ONCE(st->full) + READ_ONCE(st->big) +
	       READ_ONCE(st->frozen) + klog_relay_nmi_drops(buf_cpu) +
	       klog_relay_reentered_drops(buf_cpu) +
	       klog_relay_nest_drops(buf_cpu);
}

/*
 * The ``stats`` line of buffer @cpu, @buf, without the newline, into @s;
 * klog_relay.ctl_lock held, or the dump on oops, which prints these lines
 * without it (reading the channel under RCU). Nothing here sleeps or
 * locks.
 */
void klog_relay_stats_line(unsigned int cpu, struct rchan_buf *buf, char *s,
			   size_t size)
{
	struct klog_relay_cpu *st = klog_relay_buf_state(cpu);

	scnprintf(s, size,
		  "cpu%u produced=%zu consumed=%zu records=%llu full=%llu big=%llu nmi=%llu nest=%llu max_backlog=%zu frozen=%llu reentered=%llu",
		  cpu, READ_ONCE(buf->subbufs_produced),
		  READ_ONCE(buf->subbufs_consumed),
		  READ_ONCE(st->written), READ_ONCE(st->full),
		  READ_ONCE(st->big), klog_relay_nmi_drops(cpu),
		  klog_relay_nest_drops(cpu),
		  READ_ONCE(st->max_backlog), READ_ONCE(st->frozen),
		  klog_relay_reentered_drops(cpu));
}
