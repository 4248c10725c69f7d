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
 * In /sys/kernel/debug/klog/, all root-only, declared as one table in
 * klog_relay_files.c, where their documentation is too (DOC: klog relay
 * control files, which klog.rst includes): ``subbuf_size``,
 * ``n_subbufs``, ``mode`` and ``global`` for the next ``create``;
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

#define pr_fmt(fmt) "klog-mod: " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/sysfs.h>
#include "klog_relay_internal.h"

struct klog_relay klog_relay = {
	.ctl_lock	= __MUTEX_INITIALIZER(klog_relay.ctl_lock),
	.next_cfg	= {
		.subbuf_size	= SZ_256K,
		.n_subbufs	= 4,
	},
	.recorder	= ATOMIC_INIT(KLOG_RECORDER_ARMED),
	.global_lock	= __RAW_SPIN_LOCK_UNLOCKED(klog_relay.global_lock),
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

/* Counters back to zero; no writer may be active. */
static void klog_relay_reset_state(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, cpu);

		memset(st, 0, sizeof(*st));
		st->nest_base = klog_nest_dropped(cpu);
	}
	klog_relay_freeze(false);
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
	 * done with it after a grace period.
	 */
	synchronize_rcu();
	relay_close(chan);
}

int klog_relay_create(void)
{
	struct rchan *chan;

	lockdep_assert_held(&klog_relay.ctl_lock);
	klog_relay_destroy();
	/* The relay callbacks read the settings from here on. */
	klog_relay.cfg = klog_relay.next_cfg;
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
	klog_relay_reset_state();
	/*
	 * relay_reset() only rewinds the positions: clear the old records
	 * too, so an mmap reader never finds them behind the new ones.
	 */
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_relay.chan->buf, cpu);

		if (buf && (!klog_relay.cfg.global || cpu == 0))
			memset(buf->start, 0, klog_relay.chan->alloc_size);
	}
	relay_reset(klog_relay.chan);
	return 0;
}

static int __init klog_relay_init(void)
{
	int ret;

	/* /sys/kernel/debug/klog/ belongs to the core (its control file). */
	klog_relay.dir = klog_debugfs_dir();
	if (IS_ERR_OR_NULL(klog_relay.dir))
		return -ENODEV;
	ret = klog_relay_nmi_init();
	if (ret)
		return ret;
	ret = klog_relay_dump_init();
	if (ret)
		goto nmi_exit;
	ret = klog_relay_files_init(klog_relay.dir);
	if (ret)
		goto dump_exit;
	return 0;

dump_exit:
	klog_relay_dump_exit();
nmi_exit:
	klog_relay_nmi_exit();
	return ret;
}

/*
 * Test hook: test_hold_ctl_lock=1 makes a kernel thread take
 * klog_relay.ctl_lock and keep it until 0 is written (the write returns
 * once it holds it), so that the crash jobs can oops while the lock is
 * held and waited for: the dump, which takes no lock, must show the same.
 * Here, beside the lock's life cycle, not in klog_relay_dump.c: nothing
 * that the die and panic notifiers reach takes a sleeping lock.
 */
static struct task_struct *klog_relay_holder;
static DECLARE_COMPLETION(klog_relay_holding);

static int klog_relay_hold_fn(void *unused)
{
	mutex_lock(&klog_relay.ctl_lock);
	complete(&klog_relay_holding);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	mutex_unlock(&klog_relay.ctl_lock);
	return 0;
}

static int klog_relay_hold_set(const char *val, const struct kernel_param *kp)
{
	bool hold;
	int ret = kstrtobool(val, &hold);

	if (ret)
		return ret;
	if (hold && !klog_relay_holder) {
		reinit_completion(&klog_relay_holding);
		klog_relay_holder = kthread_run(klog_relay_hold_fn, NULL,
						"klog_hold_ctl");
		if (IS_ERR(klog_relay_holder)) {
			ret = PTR_ERR(klog_relay_holder);
			klog_relay_holder = NULL;
			return ret;
		}
		wait_for_completion(&klog_relay_holding);
	} else if (!hold && klog_relay_holder) {
		kthread_stop(klog_relay_holder);
		klog_relay_holder = NULL;
	}
	return 0;
}

static int klog_relay_hold_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!klog_relay_holder);
}

static const struct kernel_param_ops klog_relay_hold_ops = {
	.set	= klog_relay_hold_set,
	.get	= klog_relay_hold_get,
};
module_param_cb(test_hold_ctl_lock, &klog_relay_hold_ops, NULL, 0600);
MODULE_PARM_DESC(test_hold_ctl_lock,
		 "testing: 1: a kernel thread holds the control lock until 0");

static void __exit klog_relay_exit(void)
{
	if (klog_relay_holder)
		kthread_stop(klog_relay_holder);
	/* No dump runs from here on: it reads the channel. */
	klog_relay_dump_exit();
	mutex_lock(&klog_relay.ctl_lock);
	klog_relay_set_enabled(false);
	klog_relay_destroy();
	mutex_unlock(&klog_relay.ctl_lock);
	klog_relay_files_exit(klog_relay.dir);
	klog_relay_nmi_exit();
}

module_init(klog_relay_init);
module_exit(klog_relay_exit);
MODULE_DESCRIPTION("klog handler writing records to relay buffers");
MODULE_LICENSE("GPL");
