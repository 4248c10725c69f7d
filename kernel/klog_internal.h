/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog core internals: the mutex of the core and the layers above it, and
 * the write path in two steps, for the code that makes records: the core's
 * own calls (kernel/klog.c) and klog_printk()'s binary call
 * (kernel/klog_pack.c), which packs its arguments into the buffer the
 * first step gives. Not for use outside kernel/klog*.
 *
 * A record is made between klog_write_begin() and klog_write_end(), with
 * preemption disabled: begin takes this CPU's next nesting level and gives
 * its buffer, end stamps the record, gives it to every handler and gives
 * the level back. Both are inlined into each caller, so that a klog call
 * makes no call of its own on the way to its handlers.
 */
#ifndef _KERNEL_KLOG_INTERNAL_H
#define _KERNEL_KLOG_INTERNAL_H

#include <linux/context_tracking.h>
#include <linux/hardirq.h>
#include <linux/klog.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>

/*
 * Serialises handler registration and, in the layers above the core, the
 * site tables and every change of a site's flags or key. Lock order:
 * klog_mutex, then cpus_read_lock() and the jump label mutex (taken by
 * static_branch_enable()). The updates of the core's keys
 * (klog_active[], kernel/klog.c) take klog_mutex only to read the handler
 * list, inside their own mutex and not around the jump label updates.
 */
extern struct mutex klog_mutex;

/* The registered handlers: RCU for writers, klog_mutex for changes. */
extern struct list_head klog_handlers;

/*
 * Per-CPU state. Both counters change in any context, NMI included, with
 * this_cpu ops: Kconfig requires them NMI-safe
 * (ARCH_HAS_NMI_SAFE_THIS_CPU_OPS) where there are NMIs, and they are
 * word-sized, as only word-sized this_cpu ops are single instructions on
 * 32-bit x86.
 */
struct klog_cpu {
	int		nest;			/* levels in use on this CPU */
	unsigned long	nest_dropped;		/* records refused: nesting */
	/* one payload per nesting level */
	char		buf[KLOG_NEST_MAX][KLOG_PAYLOAD_MAX];
};

DECLARE_PER_CPU(struct klog_cpu, klog_cpu);

static __always_inline u8 klog_context(void)
{
	if (in_nmi())
		return KLOG_CTX_NMI;
	if (in_hardirq())
		return KLOG_CTX_HARDIRQ;
	if (in_serving_softirq())
		return KLOG_CTX_SOFTIRQ;
	return KLOG_CTX_TASK;
}

/*
 * Is RCU watching this CPU? Preemption disabled. On the write path of
 * every record: the inline test of the context-tracking state where
 * there is one, not rcu_is_watching()'s out-of-line call (which wraps
 * the same test in its own preempt_disable()).
 */
static __always_inline bool klog_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return rcu_is_watching_curr_cpu();
#else
	return rcu_is_watching();
#endif
}

/**
 * klog_level_take() - disable preemption and take a nesting level
 *
 * The level is this CPU's next one, taken with one this_cpu_inc_return()
 * (atomic against interrupts and NMIs on the same CPU, so an interrupt
 * that arrives at any point takes the level above and never shares a
 * buffer). None is taken, and the record is counted as dropped
 * (klog_nest_dropped()), when all KLOG_NEST_MAX levels are in use, or
 * when RCU is not watching this CPU (deep idle, early entry code: a call
 * placed there by mistake), where walking the handler list is not safe,
 * as a tracepoint checks.
 *
 * Context: any.
 * Return: the level, with preemption disabled until klog_write_end();
 * -1 (preemption enabled again) when none was taken.
 */
static __always_inline int klog_level_take(void)
{
	unsigned int level;

	preempt_disable_notrace();
	if (unlikely(!klog_rcu_watching()))
		goto drop;
	/* Unsigned: the caller's test of the level's sign folds away. */
	level = this_cpu_inc_return(klog_cpu.nest) - 1;
	if (unlikely(level >= KLOG_NEST_MAX)) {
		this_cpu_dec(klog_cpu.nest);
		goto drop;
	}
	/*
	 * The level is ours once the increment is done: an interrupt taken
	 * from here on increments past it. Keep the compiler from moving
	 * buffer accesses above the increment; only this CPU uses it, so no
	 * memory barrier is needed. Pairs with the barrier in
	 * klog_write_end().
	 */
	barrier();
	return level;
drop:
	this_cpu_inc(klog_cpu.nest_dropped);
	preempt_enable_notrace();
	return -1;
}

/**
 * klog_write_begin() - take a nesting level and its buffer
 *
 * klog_level_take(), for a record made in the level's buffer (text,
 * binary arguments); klog_raw() records the caller's bytes and takes
 * only the level.
 *
 * Context: any.
 * Return: the level's buffer, KLOG_PAYLOAD_MAX bytes, with preemption
 * disabled until klog_write_end(); NULL (preemption enabled again) when
 * no level was taken.
 */
static __always_inline char *klog_write_begin(void)
{
	int level = klog_level_take();

	return level < 0 ? NULL : this_cpu_ptr(&klog_cpu)->buf[level];
}

/**
 * klog_write_end() - make the record, hand it on, give the level back
 * @site: the call site
 * @payload: the record's payload: the level's buffer, or the caller's
 *	bytes (klog_raw())
 * @len: its length
 * @kind: enum klog_kind
 * @flags: KLOG_REC_* flags
 * @trigger: also call each handler's ->trigger() with the record, at the
 *	same nesting level (klog_trigger())
 *
 * Counts the record on @site's per-CPU counter, when the site table gave
 * the site one (a retiring table frees the counters a grace period after
 * it cleared the pointer), stamps it (local_clock(), CPU, pid, context),
 * calls each handler, gives the level of klog_write_begin() back and
 * enables preemption again.
 *
 * Context: after klog_level_take() took a level.
 */
static __always_inline void klog_write_end(struct klog_site *site,
					   const void *payload, size_t len,
					   u8 kind, u32 flags, bool trigger)
{
	unsigned long __percpu *n = READ_ONCE(site->records);
	struct klog_handler *h;
	/*
	 * Not zeroed first (CONFIG_INIT_STACK_ALL_ZERO would): every field
	 * is stored below, and handlers read fields, not the padding.
	 */
	struct klog_record rec __uninitialized;

	/*
	 * The caller's values first, into the record on the stack: they
	 * need no callee-saved register to live across the clock's call.
	 */
	rec.site = site;
	rec.payload = payload;
	rec.len = len;
	rec.kind = kind;
	rec.flags = flags;
	if (likely(n))
		this_cpu_inc(*n);
	/*
	 * local_clock() is this plus disabling preemption, which
	 * klog_write_begin() has done: one call less on every record.
	 */
	rec.ts_ns = local_clock_noinstr();
	rec.pid = current->pid;
	rec.cpu = smp_processor_id();
	rec.ctx = klog_context();
	list_for_each_entry_rcu(h, &klog_handlers, node)
		h->write(h, &rec);
	if (trigger) {
		list_for_each_entry_rcu(h, &klog_handlers, node)
			if (h->trigger)
				h->trigger(h, &rec);
	}
	/* Finish every buffer access before giving the level back. */
	barrier();
	this_cpu_dec(klog_cpu.nest);
	preempt_enable_notrace();
}

#endif /* _KERNEL_KLOG_INTERNAL_H */
