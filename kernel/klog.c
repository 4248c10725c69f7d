// SPDX-License-Identifier: GPL-2.0
/*
 * klog core: call-site records dispatched to registered handlers.
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog core overview
 *
 * klog lets kernel code leave debugging calls in place. klog_printk() and
 * klog_raw() build a &struct klog_record and give it to every registered
 * &struct klog_handler. The core has no buffer of its own and no
 * dependency on relay: where records go is the handler's business (the
 * relay handler in samples/klog streams them to per-CPU relay channels).
 *
 * Data Structure
 * --------------
 *
 * ``klog_active``
 *	A static key, false while no handler is registered; every call tests
 *	it first, and klog_enabled() tests it.
 *
 * ``struct klog_site``
 *	One per call site, in the section ``__klog_sites``, with the site's
 *	own static key, on while the site is enabled. A call tests
 *	klog_active and then its site's key, so an idle klog call is one
 *	patched-out branch, a disabled one two, and their arguments are
 *	never evaluated; registering the first handler patches one key,
 *	whatever the number of sites. Each site counts its records per
 *	CPU. kernel/klog_sites.c enumerates the sites (ids, module load and
 *	unload, the ``sites`` file); kernel/klog_control.c parses queries
 *	and serves the ``control`` file.
 *
 * ``klog_handlers``
 *	An RCU-protected list of handlers. Writers walk it with preemption
 *	disabled; register and unregister change it under ``klog_mutex``.
 *
 * ``klog_cpu``
 *	Per-CPU state: a nesting depth and one buffer per nesting level
 *	(an argument block of at most KLOG_ARGS_BLOCK_MAX bytes, or a
 *	text of at most KLOG_TEXT_MAX) (KLOG_NEST_MAX levels: task, softirq,
 *	hardirq, NMI, and a #MC, #DB or #BP inside the NMI), and a count of
 *	records refused for nesting too deep.
 *
 * Implementation
 * --------------
 *
 * A writer disables preemption, takes the next nesting level on its CPU
 * with one this_cpu_inc_return() (atomic against interrupts and NMIs on
 * the same CPU, so an interrupt that arrives at any point takes the level
 * above and never shares a buffer), formats into that level's buffer,
 * stamps the record (local_clock(), CPU, pid, context), calls each handler
 * and gives the level back. The same scheme serves trace_printk().
 *
 * A handler that itself calls klog (directly or through code it calls)
 * nests one level deeper. A record that would need a sixth level is not
 * written; it is counted in the CPU's ``nest_dropped`` counter, which
 * handlers report (klog_nest_dropped()). Nothing is dropped without being
 * counted.
 *
 * klog_trigger() writes a text record flagged KLOG_REC_TRIGGER and then
 * calls each handler's optional ->trigger() with it, still at the same
 * nesting level: a flight-recorder handler freezes there.
 *
 * Unregistering removes the handler from the list and waits for an RCU
 * grace period. Writers run with preemption disabled, which RCU treats as
 * a read-side critical section, so when unregister_klog_handler() returns
 * no CPU is still inside the handler and its module may be unloaded.
 * Until then the handler cannot be registered again (-EBUSY): writers
 * may still be walking through its list node.
 *
 * Usage
 * -----
 *
 * Writer::
 *
 *	klog_printk("rx ring %d: head %u tail %u\n", ring, head, tail);
 *	klog_raw(&desc, sizeof(desc));
 *
 * Handler::
 *
 *	static void my_write(struct klog_handler *h,
 *			     const struct klog_record *rec)
 *	{
 *		// copy rec->payload somewhere; must not sleep
 *	}
 *	static struct klog_handler my_handler = {
 *		.name = "mine", .write = my_write,
 *	};
 *	ret = register_klog_handler(&my_handler);
 *	...
 *	unregister_klog_handler(&my_handler);
 *
 * Limitations
 * -----------
 *
 * - klog calls must not be placed in noinstr code or where RCU is not
 *   watching (deep idle, early entry code); a call made where RCU is not
 *   watching is refused and counted with the nesting drops.
 * - Text is limited to KLOG_TEXT_MAX - 1 bytes; longer output is cut and
 *   the record flagged KLOG_REC_TRUNCATED.
 * - %p is hashed as in printk, at the call. klog_printk() records its
 *   arguments in binary (KLOG_KIND_ARGS, kernel/klog_format.c): %s
 *   strings are copied and the %p extensions that read memory are
 *   formatted at the call; the text is made when the record is read
 *   (klog_record_format()). A site without a plan and klog_trigger()
 *   are formatted at the call.
 */

#define pr_fmt(fmt) "klog: " fmt

#include <linux/context_tracking.h>
#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/klog.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poison.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/sprintf.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "klog_internal.h"
#include "klog_pack.h"

/*
 * Both counters change in any context, NMI included, with this_cpu ops:
 * Kconfig requires them NMI-safe (ARCH_HAS_NMI_SAFE_THIS_CPU_OPS) where
 * there are NMIs, and they are word-sized, as only word-sized this_cpu
 * ops are single instructions on 32-bit x86.
 */
struct klog_cpu {
	int		nest;			/* levels in use on this CPU */
	unsigned long	nest_dropped;		/* records refused: nesting */
	/* a text of at most KLOG_TEXT_MAX bytes, or an argument block */
	char		text[KLOG_NEST_MAX][KLOG_ARGS_BLOCK_MAX];
};

static_assert(KLOG_ARGS_BLOCK_MAX >= KLOG_TEXT_MAX);

static DEFINE_PER_CPU(struct klog_cpu, klog_cpu);
static LIST_HEAD(klog_handlers);
/* Handlers, site tables, site flags and keys (klog_internal.h). */
DEFINE_MUTEX(klog_mutex);

DEFINE_STATIC_KEY_FALSE(klog_active);
EXPORT_SYMBOL_GPL(klog_active);

static u8 klog_context(void)
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

/*
 * Take the next nesting level on this CPU. Preemption must be disabled.
 * Returns the level, or -1 (and counts the record dropped) when all
 * KLOG_NEST_MAX levels are in use, or when RCU is not watching this CPU
 * (deep idle, early entry code: a call placed there by mistake), where
 * walking the handler list is not safe, as a tracepoint checks.
 */
static int klog_nest_enter(void)
{
	int level;

	if (unlikely(!klog_rcu_watching())) {
		this_cpu_inc(klog_cpu.nest_dropped);
		return -1;
	}
	level = this_cpu_inc_return(klog_cpu.nest) - 1;

	if (unlikely(level >= KLOG_NEST_MAX)) {
		this_cpu_dec(klog_cpu.nest);
		this_cpu_inc(klog_cpu.nest_dropped);
		return -1;
	}
	/*
	 * The level is ours once the increment is done: an interrupt taken
	 * from here on increments past it. Keep the compiler from moving
	 * buffer accesses above the increment; only this CPU uses it, so no
	 * memory barrier is needed. Pairs with the barrier in
	 * klog_nest_exit().
	 */
	barrier();
	return level;
}

static void klog_nest_exit(void)
{
	/* Finish every buffer access before giving the level back. */
	barrier();
	this_cpu_dec(klog_cpu.nest);
}

/*
 * One more record of @site, on this CPU's counter (preemption disabled:
 * a retiring table frees the counters a grace period after it cleared
 * the pointer).
 */
static __always_inline void klog_count(struct klog_site *site)
{
	unsigned long __percpu *n = READ_ONCE(site->records);

	if (likely(n))
		this_cpu_inc(*n);
}

static void klog_fill(struct klog_record *rec, const struct klog_site *site,
		      const void *payload, size_t len, u8 kind, u32 flags)
{
	/*
	 * local_clock() is this plus disabling preemption, which the
	 * caller has done: one call less on every record.
	 */
	*rec = (struct klog_record) {
		.ts_ns		= local_clock_noinstr(),
		.site		= site,
		.payload	= payload,
		.len		= len,
		.pid		= current->pid,
		.cpu		= smp_processor_id(),
		.ctx		= klog_context(),
		.kind		= kind,
		.flags		= flags,
	};
}

static void klog_dispatch(const struct klog_record *rec)
{
	struct klog_handler *h;

	list_for_each_entry_rcu(h, &klog_handlers, node)
		h->write(h, rec);
}

/*
 * Record the arguments in binary (KLOG_KIND_ARGS) in this CPU's buffer
 * for the next nesting level when @site has a plan; otherwise format
 * them there (KLOG_KIND_TEXT). Dispatch the record. With @trigger, also
 * call each handler's ->trigger() with it.
 */
static __printf(5, 0)
void klog_vprintk(struct klog_site *site, u32 classes, u32 flags,
		  bool trigger, const char *fmt, va_list args)
{
	const struct klog_args_plan *plan;
	u8 kind = KLOG_KIND_TEXT;
	struct klog_record rec;
	struct klog_handler *h;
	int level, n = -1;
	char *buf;

	preempt_disable_notrace();
	level = klog_nest_enter();
	if (level < 0)
		goto out;

	buf = this_cpu_ptr(&klog_cpu)->text[level];
	/*
	 * @site->plan was published (smp_store_release()) when the core
	 * enumerated the site, before its key was first turned on; read
	 * once, with preemption disabled: when the site's module goes, the
	 * core clears it and frees the plan only after a grace period
	 * (klog_table_retire()). NULL: format the text here. A trigger
	 * passes no classes: its record is always text.
	 */
	plan = trigger ? NULL : READ_ONCE(site->plan);
	if (plan) {
		va_list copy;

		/* never fails with a plan and this size; text if it did */
		va_copy(copy, args);
		n = klog_args_vpack(buf, KLOG_ARGS_BLOCK_MAX, plan, classes,
				    copy);
		va_end(copy);
		if (n > 0)
			kind = KLOG_KIND_ARGS;
	}
	if (kind == KLOG_KIND_TEXT) {
		n = vsnprintf(buf, KLOG_TEXT_MAX, fmt, args);
		if (n >= KLOG_TEXT_MAX) {
			n = KLOG_TEXT_MAX - 1;
			flags |= KLOG_REC_TRUNCATED;
		}
	}
	klog_count(site);
	klog_fill(&rec, site, buf, n, kind, flags);
	klog_dispatch(&rec);
	if (trigger) {
		list_for_each_entry_rcu(h, &klog_handlers, node)
			if (h->trigger)
				h->trigger(h, &rec);
	}
	klog_nest_exit();
out:
	preempt_enable_notrace();
}

/**
 * __klog_printk() - record a call and hand it to the handlers
 * @site: the call site, from klog_printk()
 * @classes: the arguments' classes (KLOG_ACLS_*, 2 bits each, made at
 *	compile time by klog_printk())
 * @fmt: printf-style format
 * @...: arguments
 *
 * Called by klog_printk() when a handler is registered; not for direct use.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_printk(struct klog_site *site, u32 classes, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	klog_vprintk(site, classes, 0, false, fmt, args);
	va_end(args);
}
EXPORT_SYMBOL_GPL(__klog_printk);

/**
 * __klog_printk_args() - record a call's arguments and hand them on
 * @site: the call site, from klog_printk(); it has a plan
 * @classes: the arguments' classes (KLOG_ACLS_*, 2 bits each, made at
 *	compile time by klog_printk())
 * @args: the arguments, one u64 each (__KLOG_ARGV())
 *
 * Called by klog_printk() when a handler is registered and the site has
 * an argument plan; not for direct use. Packs the arguments into this
 * CPU's buffer for the next nesting level (klog_pack_block(), inlined
 * here: the packing is not a call of its own) and gives the
 * KLOG_KIND_ARGS record to the handlers.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_printk_args(struct klog_site *site, u32 classes, const u64 *args)
{
	const struct klog_args_plan *plan;
	struct klog_record rec;
	u32 flags = 0;
	int level, n;
	u8 kind = KLOG_KIND_ARGS;
	char *buf;

	preempt_disable_notrace();
	level = klog_nest_enter();
	if (level < 0)
		goto out;
	buf = this_cpu_ptr(&klog_cpu)->text[level];
	/*
	 * See klog_vprintk() for @site->plan. NULL only for a call that
	 * passed its key as the site's module went (klog_table_retire()).
	 */
	plan = READ_ONCE(site->plan);
	n = plan ? klog_pack_block(buf, KLOG_ARGS_BLOCK_MAX, plan, classes,
				   args) : -EINVAL;
	/*
	 * Cannot fail with a plan and this size (the fixed parts always
	 * fit); should it, or without a plan, the record still says so:
	 * empty, cut.
	 */
	if (unlikely(n < 0)) {
		n = 0;
		kind = KLOG_KIND_TEXT;
		flags = KLOG_REC_TRUNCATED;
	}
	klog_count(site);
	klog_fill(&rec, site, buf, n, kind, flags);
	klog_dispatch(&rec);
	klog_nest_exit();
out:
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(__klog_printk_args);

static __printf(2, 3)
void klog_trigger_printk(struct klog_site *site, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	klog_vprintk(site, 0, KLOG_REC_TRIGGER, true, fmt, args);
	va_end(args);
}

/**
 * __klog_trigger() - write a trigger record and call the handlers' triggers
 * @site: the call site, from klog_trigger()
 * @reason: the text after "klog_trigger: "
 *
 * Called by klog_trigger() when a handler is registered; not for direct
 * use.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_trigger(struct klog_site *site, const char *reason)
{
	klog_trigger_printk(site, "klog_trigger: %s", reason);
}
EXPORT_SYMBOL_GPL(__klog_trigger);

/**
 * __klog_raw() - hand a binary record to the handlers
 * @site: the call site, from klog_raw()
 * @data: the bytes
 * @len: their number
 *
 * Called by klog_raw() when a handler is registered; not for direct use.
 * The bytes are not copied by the core: handlers read them in place.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_raw(struct klog_site *site, const void *data, size_t len)
{
	struct klog_record rec;
	u32 flags = 0;

	/* The record's length is a u32: cut, and say so. */
	if (unlikely(len > U32_MAX)) {
		len = U32_MAX;
		flags = KLOG_REC_TRUNCATED;
	}
	preempt_disable_notrace();
	/* A level is taken only to bound recursion through handlers. */
	if (klog_nest_enter() >= 0) {
		klog_count(site);
		klog_fill(&rec, site, data, len, KLOG_KIND_RAW, flags);
		klog_dispatch(&rec);
		klog_nest_exit();
	}
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(__klog_raw);

static bool klog_registered(struct klog_handler *handler)
{
	struct klog_handler *h;

	lockdep_assert_held(&klog_mutex);
	list_for_each_entry(h, &klog_handlers, node)
		if (h == handler)
			return true;
	return false;
}

/**
 * register_klog_handler() - start receiving klog records
 * @handler: the handler; @handler->name and @handler->write must be set
 *
 * From the moment this returns, every klog record is passed to @handler,
 * as well as to the handlers registered before it (fan-out). The first
 * registration turns klog_active on: one key, whatever the number of
 * call sites; the enabled sites (all of them, unless the control file or
 * klog.sites_default=off says otherwise) then make records.
 *
 * Context: process context; may sleep.
 * Return: 0 on success, -EINVAL if @handler is NULL or incomplete,
 * -EBUSY if @handler is already registered, or is being unregistered
 * (unregister_klog_handler() has not returned yet).
 */
int register_klog_handler(struct klog_handler *handler)
{
	if (!handler || !handler->name || !handler->write)
		return -EINVAL;

	mutex_lock(&klog_mutex);
	/*
	 * Still being unregistered: list_del_rcu() poisoned ->prev, and
	 * writers may still be walking through the node until the grace
	 * period ends; adding it again now would send them into the list
	 * at its new place. unregister_klog_handler() clears the poison
	 * once no writer can hold the node.
	 */
	if (klog_registered(handler) || handler->node.prev == LIST_POISON2) {
		mutex_unlock(&klog_mutex);
		return -EBUSY;
	}
	list_add_tail_rcu(&handler->node, &klog_handlers);
	/*
	 * The handler is on the list before klog_active is turned on: a
	 * writer that sees the key on finds it there. One key, whatever the
	 * number of sites: each site's own key says only whether it is
	 * enabled.
	 */
	static_branch_enable(&klog_active);
	mutex_unlock(&klog_mutex);
	pr_info("handler %s registered\n", handler->name);
	return 0;
}
EXPORT_SYMBOL_GPL(register_klog_handler);

/**
 * unregister_klog_handler() - stop receiving klog records
 * @handler: a handler given to register_klog_handler()
 *
 * Removes @handler and waits until no CPU is still running its ->write().
 * When the last handler goes, the call sites are turned off again. Until
 * this returns, register_klog_handler(@handler) fails with -EBUSY.
 *
 * Context: process context; sleeps (waits for an RCU grace period).
 * Return: 0 on success, -EINVAL if @handler is NULL, -ENOENT if it is not
 * registered.
 */
int unregister_klog_handler(struct klog_handler *handler)
{
	if (!handler)
		return -EINVAL;

	mutex_lock(&klog_mutex);
	if (!klog_registered(handler)) {
		mutex_unlock(&klog_mutex);
		return -ENOENT;
	}
	list_del_rcu(&handler->node);
	if (list_empty(&klog_handlers))
		static_branch_disable(&klog_active);
	mutex_unlock(&klog_mutex);

	/*
	 * Writers walk the list with preemption disabled; since the RCU
	 * flavours were merged, synchronize_rcu() also waits for such
	 * regions, so after it no CPU can be inside @handler->write().
	 */
	synchronize_rcu();
	mutex_lock(&klog_mutex);
	/* No writer holds the node any more: it may be registered again. */
	INIT_LIST_HEAD(&handler->node);
	mutex_unlock(&klog_mutex);
	pr_info("handler %s unregistered\n", handler->name);
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_klog_handler);

/**
 * klog_record_format() - the text of a record, for handlers that want text
 * @rec: a record given to the handler's ->write() or ->trigger()
 * @buf: output, NUL-terminated when @size > 0
 * @size: its size; KLOG_TEXT_MAX holds any record's text
 *
 * A text record (KLOG_KIND_TEXT) is copied; an argument record
 * (KLOG_KIND_ARGS) is formatted with its site's format by
 * klog_args_format(), into the text vsnprintf() would have made at the
 * call, cut to KLOG_TEXT_MAX - 1 bytes as a text record is. Like
 * snprintf(), the text is cut to fit @size.
 *
 * Context: any, including hardirq and NMI (no allocation, no lock;
 * kallsyms lookups for %pS); call it while @rec is valid.
 * Return: the length of the whole text (at most KLOG_TEXT_MAX - 1), or
 * -EINVAL for a raw record or a malformed argument block.
 */
int klog_record_format(const struct klog_record *rec, char *buf, size_t size)
{
	size_t n;
	int ret;

	switch (rec->kind) {
	case KLOG_KIND_TEXT:
		if (size) {
			n = min_t(size_t, rec->len, size - 1);
			memcpy(buf, rec->payload, n);
			buf[n] = '\0';
		}
		return rec->len;
	case KLOG_KIND_ARGS:
		if (!rec->site->fmt)
			break;
		ret = klog_args_format(buf, min_t(size_t, size, KLOG_TEXT_MAX),
				       rec->site->fmt, rec->payload, rec->len);
		return ret < 0 ? ret : min(ret, KLOG_TEXT_MAX - 1);
	}
	if (size)
		buf[0] = '\0';
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(klog_record_format);

/**
 * klog_nest_dropped() - records refused on a CPU for nesting too deep
 * @cpu: a possible CPU
 *
 * A record is refused when KLOG_NEST_MAX klog calls are already running on
 * its CPU (a handler calling klog recursively, or more interrupt levels
 * than expected), or when it is made where RCU is not watching the CPU.
 * Handlers report this count with their own drop counts.
 *
 * Context: any.
 * Return: the number of records refused on @cpu since boot.
 */
u64 klog_nest_dropped(unsigned int cpu)
{
	return READ_ONCE(per_cpu(klog_cpu.nest_dropped, cpu));
}
EXPORT_SYMBOL_GPL(klog_nest_dropped);
