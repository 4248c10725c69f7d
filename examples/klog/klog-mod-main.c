// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: a klog handler that streams records through relay
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
 * In /sys/kernel/debug/klog/, all root-only. Booleans take exactly "0" or
 * "1"; anything else is -EINVAL and changes nothing.
 *
 * ``subbuf_size``, ``n_subbufs``, ``mode``, ``global`` (rw)
 *	Settings for the next ``create``: sub-buffer size, a multiple of 8 in
 *	[KLOG_SUBBUF_MIN, KLOG_SUBBUF_MAX], and count in [KLOG_NSUBBUF_MIN,
 *	KLOG_NSUBBUF_MAX] (-EINVAL outside; -ENOMEM when one buffer would
 *	exceed KLOG_BUF_MAX or all of them a quarter of RAM); ``mode``
 *	"no-overwrite" (default: a full buffer refuses records, counted) or
 *	"overwrite" (a flight recorder: the oldest sub-buffer is reused);
 *	``global`` 1 for one buffer shared by all CPUs (one total order,
 *	writers serialised by a spinlock). -EBUSY while a channel exists.
 * ``create`` (rw)
 *	1 (re)creates the channel with the settings, 0 destroys it. -EBUSY
 *	while logging is enabled. If allocation fails: -ENOMEM, no channel.
 * ``enabled`` (rw)
 *	1 registers the klog handler (-ENODEV without a channel); 0
 *	unregisters it, which waits until no CPU is writing, then flushes.
 * ``flush`` (w)
 *	Finish every buffer's current sub-buffer so readers get it.
 * ``snapshot`` (rw)
 *	1 flushes and records each buffer's position (sub-buffers produced)
 *	and time, on the buffer's own CPU; reading gives "cpuN POS TS" lines.
 *	Sub-buffers before POS hold only records written before TS (local
 *	clock, ns), that is before the write to ``snapshot`` returned.
 * ``frozen`` (rw), ``trigger`` (r)
 *	While frozen, records are counted (``frozen``), not written. In
 *	overwrite mode klog_trigger() freezes the recorder after offering its
 *	own record (written unless dropped, e.g. from NMI), and ``trigger``
 *	shows "cpu=N ts=NS reason=TEXT" (the record's text, at most 63
 *	bytes). Writing 0 to ``frozen`` thaws and re-arms the trigger.
 * ``reset`` (w)
 *	1 empties the channel without reallocating: the buffers are zeroed
 *	and relay_reset() rewinds them. -EBUSY while enabled.
 * ``dropped``, ``stats`` (r)
 *	Records dropped, all causes and buffers; per buffer: sub-buffers
 *	produced and consumed, records written, drops by cause (full, big,
 *	nmi, nest, frozen, reentered), the largest backlog seen.
 * ``cpuN``, ``cpuN.produced``, ``cpuN.consumed``
 *	The relay file of buffer N: read (finished sub-buffers without their
 *	padding, consumed as read; no-overwrite mode only), mmap (the whole
 *	buffer) and poll (readable when a sub-buffer is finished). Then the
 *	sub-buffers produced (binary size_t), and the sub-buffers consumed
 *	(read) or newly consumed by an mmap reader (write a size_t). One
 *	reader per buffer, in one mode.
 *
 * Nothing is lost silently
 * ------------------------
 *
 * Every record offered to a buffer takes its next sequence number and is
 * written or counted in exactly one cause: ``full`` (no-overwrite mode,
 * every sub-buffer unread, or the CPU has no buffer), ``big`` (larger
 * than a sub-buffer's payload), ``nmi`` (relay is not NMI-safe),
 * ``frozen``, ``reentered`` (made on a CPU already inside the write path,
 * by code it called: never written mid-switch, never a deadlock). All of
 * it is accounted with interrupts off; NMI and reentered drops take
 * their sequence numbers just before the next record, so at every
 * sub-buffer boundary the gap equals the header's lost. Records the
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
 * - NMI records are counted, not delivered.
 * - A flush finishes partially filled sub-buffers, so they carry padding.
 * - In a global buffer, NMI and reentered drops show in the counters and
 *   in the headers' ``lost``, but do not take a record sequence number.
 * - cpuN read() is refused (-EOPNOTSUPP) in overwrite mode.
 * - Timestamps are taken by the klog core before the record is written,
 *   so within a buffer sequence order (the order of writing) may differ
 *   slightly from timestamp order; a global buffer is in lock order.
 */

#define pr_fmt(fmt) "klog-mod: " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include "klog-mod.h"

/* Serialises control-file writes and the channel's life cycle. */
DEFINE_MUTEX(klog_ctl_lock);
struct rchan *klog_chan;
struct klog_config klog_cfg;
struct klog_config klog_next_cfg = {
	.subbuf_size	= SZ_256K,
	.n_subbufs	= 4,
};

bool klog_relay_enabled;
static struct dentry *klog_dir;

/*
 * The klog core counts records refused for nesting since boot, for any
 * handler: count only those refused while this channel was offered
 * records, from just before its handler is registered to just after it
 * is unregistered.
 */
static void klog_nest_mark(bool on)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_state *st = per_cpu_ptr(&klog_state, cpu);
		u64 now = klog_nest_dropped(cpu);

		if (on)
			st->nest_base = now;
		else
			st->nest += now - st->nest_base;
	}
}

int klog_set_enabled(bool on)
{
	int ret;

	lockdep_assert_held(&klog_ctl_lock);
	if (on == klog_relay_enabled)
		return 0;
	if (on) {
		if (!klog_chan)
			return -ENODEV;
		klog_nest_mark(true);
		ret = register_klog_handler(&klog_relay_handler);
		if (ret)
			return ret;
	} else {
		/* Returns when no CPU is inside klog_write(). */
		unregister_klog_handler(&klog_relay_handler);
		klog_nest_mark(false);
		klog_flush(false);
	}
	klog_relay_enabled = on;
	return 0;
}

/* Counters back to zero; no writer may be active. */
static void klog_reset_state(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_state *st = per_cpu_ptr(&klog_state, cpu);

		memset(st, 0, sizeof(*st));
		st->nest_base = klog_nest_dropped(cpu);
	}
	klog_freeze(false);
}

void klog_destroy(void)
{
	lockdep_assert_held(&klog_ctl_lock);
	if (!klog_chan)
		return;
	relay_close(klog_chan);
	WRITE_ONCE(klog_chan, NULL);
}

int klog_create(void)
{
	struct rchan *chan;

	lockdep_assert_held(&klog_ctl_lock);
	klog_destroy();
	/* The relay callbacks read the settings from here on. */
	klog_cfg = klog_next_cfg;
	klog_reset_state();
	chan = relay_open("cpu", klog_dir, klog_cfg.subbuf_size,
			  klog_cfg.n_subbufs, &klog_relay_callbacks, NULL);
	if (!chan) {
		pr_err("cannot allocate %zu x %zu byte sub-buffers\n",
		       klog_cfg.n_subbufs, klog_cfg.subbuf_size);
		return -ENOMEM;
	}
	WRITE_ONCE(klog_chan, chan);
	return 0;
}

int klog_reset(void)
{
	unsigned int cpu;

	lockdep_assert_held(&klog_ctl_lock);
	if (klog_relay_enabled)
		return -EBUSY;
	klog_reset_state();
	/*
	 * relay_reset() only rewinds the positions: clear the old records
	 * too, so an mmap reader never finds them behind the new ones.
	 */
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_chan->buf, cpu);

		if (buf && (!klog_cfg.global || cpu == 0))
			memset(buf->start, 0, klog_chan->alloc_size);
	}
	relay_reset(klog_chan);
	return 0;
}

/*
 * The files klog_files_init() creates: they live in the core's directory,
 * so they are removed one by one at unload (keep in step with it).
 */
static const char *const klog_mod_files[] = {
	"enabled", "create", "subbuf_size", "n_subbufs", "mode", "global",
	"flush", "snapshot", "frozen", "reset", "dropped", "stats", "trigger",
};

static void klog_mod_remove_files(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(klog_mod_files); i++)
		debugfs_lookup_and_remove(klog_mod_files[i], klog_dir);
}

static int __init klog_mod_init(void)
{
	/* /sys/kernel/debug/klog/ belongs to the core (its control file). */
	klog_dir = klog_debugfs_dir();
	if (IS_ERR_OR_NULL(klog_dir))
		return -ENODEV;
	return klog_files_init(klog_dir);
}

static void __exit klog_mod_exit(void)
{
	mutex_lock(&klog_ctl_lock);
	klog_set_enabled(false);
	klog_destroy();
	mutex_unlock(&klog_ctl_lock);
	klog_mod_remove_files();
}

module_init(klog_mod_init);
module_exit(klog_mod_exit);
MODULE_DESCRIPTION("klog handler writing records to relay buffers");
MODULE_LICENSE("GPL");
