// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the relay channel's life cycle
 *
 * klog_relay_create() opens the channel with the settings of the next
 * create (klog_relay.next_cfg), counters back to zero;
 * klog_relay_destroy() closes it once no oops/panic dump can still read
 * it; klog_relay_set_enabled() registers and unregisters the handler,
 * which only a channel that exists may have; klog_relay_reset() empties
 * the channel of a disabled handler. All with klog_relay.ctl_lock held:
 * the control files (klog_relay_files.c) and module exit
 * (klog_relay_main.c) call them.
 *
 * The relay callbacks that relay_open() is given are here too: each new
 * sub-buffer's header (klog_relay_subbuf_start(), klog_relay_subbuf.c),
 * the relay files cpuN, cpuN.produced and cpuN.consumed, which are
 * relay's own (relay_debugfs_create_files(),
 * relay_subbuf_file_operations), and what read(2) of cpuN returns of a
 * finished sub-buffer.
 *
 * Memory barriers (see klog_relay_write.c for the labels' scheme):
 * create:A (smp_store_release() of klog_relay.chan) and destroy:A
 * (WRITE_ONCE() of NULL, then synchronize_rcu_expedited()) pair with
 * write:A and drain_local:A, and with the dump's dump:C
 * (klog_relay_dump.c).
 *
 * Copyright (C) 2026 The klog authors
 */

#define pr_fmt(fmt) "klog-mod: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/rcupdate.h>
#include <linux/relay.h>
#include <linux/string.h>
#include "klog_relay_internal.h"

/*
 * The part of a finished sub-buffer that read(2) of cpuN returns
 * (relay_subbuf_file_operations): its records, which end where its
 * padding starts. klog_relay_finish_subbuf() stored the padding before
 * relay counted the sub-buffer produced. The header is in the mapped
 * buffer: clamp what it says to the sub-buffer. In overwrite mode the
 * writer reuses sub-buffers nobody consumed: read(2) is refused, use mmap
 * and snapshots. Partially filled sub-buffers reach readers through
 * ``flush``.
 */
static long klog_relay_subbuf_used(struct rchan_buf *buf, void *subbuf)
{
	size_t size = buf->chan->subbuf_size;
	size_t padding;

	if (klog_relay.cfg.overwrite)
		return -EOPNOTSUPP;
	padding = READ_ONCE(klog_relay_subbuf_hdr(subbuf)->padding);
	return size - min(padding, size - sizeof(struct klog_subbuf_hdr));
}

/* cpuN, cpuN.produced, cpuN.consumed (relay_debugfs_create_files()). */
static struct dentry *klog_relay_create_buf_file(const char *filename,
						 struct dentry *parent,
						 umode_t mode,
						 struct rchan_buf *buf,
						 int *is_global)
{
	*is_global = klog_relay.cfg.global;
	return relay_debugfs_create_files(filename, parent, mode, buf,
					  &relay_subbuf_file_operations);
}

static const struct rchan_callbacks klog_relay_callbacks = {
	.subbuf_start		= klog_relay_subbuf_start,
	.create_buf_file	= klog_relay_create_buf_file,
	.remove_buf_file	= relay_debugfs_remove_files,
	.subbuf_used		= klog_relay_subbuf_used,
};

/*
 * The klog core counts records refused for nesting since boot, for any
 * handler: count only those refused while this channel was offered
 * records, from just before its handler is registered to just after it
 * is unregistered.
 */
static void klog_relay_nest_mark(bool on)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, cpu);
		u64 now = klog_nest_dropped(cpu);

		if (on)
			st->nest_base = now;
		else
			st->nest += now - st->nest_base;
	}
}

int klog_relay_set_enabled(bool on)
{
	int ret;

	lockdep_assert_held(&klog_relay.ctl_lock);
	if (on == klog_relay.enabled)
		return 0;
	if (on) {
		if (!klog_relay.chan)
			return -ENODEV;
		klog_relay_nest_mark(true);
		ret = register_klog_handler(&klog_relay_handler);
		if (ret)
			return ret;
	} else {
		/* Returns when no CPU is inside klog_relay_write(). */
		unregister_klog_handler(&klog_relay_handler);
		klog_relay_nmi_sync();
		klog_relay_nest_mark(false);
		klog_relay_flush(false);
	}
	klog_relay.enabled = on;
	return 0;
}

/*
 * Counters back to zero; no writer may be active. The caller thawed
 * first (klog_relay_freeze(false)), which waits while an oops dump reads
 * the buffers and the staging areas, outside the CPU hotplug lock.
 */
static void klog_relay_reset_state(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, cpu);

		memset(st, 0, sizeof(*st));
		st->nest_base = klog_nest_dropped(cpu);
	}
}

void klog_relay_destroy(void)
{
	struct rchan *chan = klog_relay.chan;

	lockdep_assert_held(&klog_relay.ctl_lock);
	if (!chan)
		return;
	WRITE_ONCE(klog_relay.chan, NULL);		/* LMM(destroy:A) */
	/*
	 * The oops/panic dump reads the channel without a lock, under RCU
	 * (klog_relay_dump.c): one that found it before the store above is
	 * done with it after a grace period. An expedited one: a channel is
	 * closed rarely (a control-file write, the module's unload), and
	 * its closer, a collector at its end, waits for it. Under QEMU a
	 * normal grace period made the close take 33 ms, this one 19 ms.
	 */
	synchronize_rcu_expedited();
	relay_close(chan);
}

int klog_relay_create(void)
{
	struct rchan *chan;

	lockdep_assert_held(&klog_relay.ctl_lock);
	klog_relay_destroy();
	/* The relay callbacks read the settings from here on. */
	klog_relay.cfg = klog_relay.next_cfg;
	klog_relay_freeze(false);
	klog_relay_reset_state();
	chan = relay_open("cpu", klog_relay.dir, klog_relay.cfg.subbuf_size,
			  klog_relay.cfg.n_subbufs, &klog_relay_callbacks,
			  NULL);
	if (!chan) {
		pr_err("cannot allocate %zu x %zu byte sub-buffers\n",
		       klog_relay.cfg.n_subbufs, klog_relay.cfg.subbuf_size);
		return -ENOMEM;
	}
	/*
	 * Before the handler is registered: pairs with LMM(write:A). A
	 * release for the oops/panic dump, which reads the channel and then
	 * klog_relay.cfg without a lock: pairs with dump:C.
	 */
	smp_store_release(&klog_relay.chan, chan);	/* LMM(create:A) */
	return 0;
}

int klog_relay_reset(void)
{
	unsigned int cpu;

	lockdep_assert_held(&klog_relay.ctl_lock);
	if (klog_relay.enabled)
		return -EBUSY;
	/*
	 * An oops dump that starts from here on leaves the buffers alone:
	 * its hold and freeze (dump:A), then its load of @resetting (dump:R),
	 * against this store, then the thaw's load of the hold count
	 * (klog_relay_nmi_wait_released()). Either the dump sees the reset,
	 * or the thaw sees its hold and waits for its end.
	 */
	WRITE_ONCE(klog_relay.resetting, true);
	smp_mb();					/* LMM(reset:A) */
	klog_relay_freeze(false);
	/*
	 * No CPU comes online meanwhile: its buffer's first sub-buffer
	 * would take a sequence number between the zeroing of the state and
	 * relay_reset(), and every later one would be off by one.
	 */
	cpus_read_lock();
	klog_relay_reset_state();
	/*
	 * relay_reset() rewinds the positions first: a read(2) that was
	 * copying an old sub-buffer sees the new read generation and
	 * discards its copy, and none starts once nothing is produced.
	 * Then the old records are cleared, behind each buffer's first
	 * header, so an mmap reader never finds them behind the new ones.
	 */
	relay_reset(klog_relay.chan);
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_relay.chan->buf, cpu);

		if (buf && (!klog_relay.cfg.global || cpu == 0))
			memset(buf->start + buf->offset, 0,
			       klog_relay.chan->alloc_size - buf->offset);
	}
	cpus_read_unlock();
	/* A dump that sees the reset done sees the buffers cleared. */
	smp_store_release(&klog_relay.resetting, false);	/* LMM(reset:B) */
	return 0;
}
