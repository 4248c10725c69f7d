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
 * relay handler, kernel/klog_relay*.c, streams them to per-CPU relay
 * channels).
 *
 * Layers
 * ------
 *
 * Each file uses only those below it::
 *
 *	klog_control.c  (klog_query.h)     control file, queries, boot
 *	                                   and module parameters
 *	klog_sites.c    (klog_sites.h)     site table: ids, per-site keys,
 *	                                   module load and unload, sites file
 *	    | beside:  klog_plans.c        binary arguments: a plan per
 *	    |          klog_pack.[ch]      site, the packing at the call,
 *	    |          klog_format.[ch]    the text when read, and the format
 *	    |          klog_fmt.h          walker user space compiles too
 *	klog.c          (klog_internal.h)  the write path and the handlers
 *
 * klog.c, at the bottom, makes records (a text formatted at the call, raw
 * bytes, a trigger) and hands them to the handlers; what it knows of a
 * call site is the &struct klog_site the call passes. The site table
 * numbers the sites, gives each its record counter and switches its key;
 * the control language turns sites on and off through the table. The
 * binary arguments stand beside the table: they give each site with a
 * format its argument plan and make klog_printk()'s binary call with the
 * core's write path (klog_internal.h), taking the built-in sites' section
 * bounds from klog_sites.h; nothing below them calls them.
 *
 * Data Structure
 * --------------
 *
 * ``klog_active[]``
 *	KLOG_ACTIVE_KEYS static keys, false while no handler is registered;
 *	every call tests one of them first (picked at compile time by
 *	__COUNTER__), and klog_enabled() tests the first. klog_active_mutex
 *	serialises their updates, outside klog_mutex.
 *
 * ``struct klog_site``
 *	One per call site, in the section ``__klog_sites``, with the site's
 *	own static key, on while the site is enabled. A call tests
 *	its klog_active[] key and then its own, so an idle klog call is one
 *	patched-out branch, a disabled one two, and their arguments are
 *	never evaluated. Registering the first handler flips the
 *	KLOG_ACTIVE_KEYS keys, one jump label update each (patching the
 *	branches on that key in batches: it still grows with the number of
 *	sites, see BENCHMARKS.md), so that the jump label mutex a module
 *	load needs is held for one key's sites at a time. The core counts
 *	each record on the site's per-CPU counter once the site table gave
 *	it one.
 *
 * ``klog_handlers``
 *	An RCU-protected list of handlers. Writers walk it with preemption
 *	disabled; register and unregister change it under ``klog_mutex``.
 *
 * ``klog_cpu``
 *	Per-CPU state: a nesting depth and one buffer per nesting level
 *	(KLOG_PAYLOAD_MAX bytes: a text of at most KLOG_TEXT_MAX, or an
 *	argument block) (KLOG_NEST_MAX levels: task, softirq, hardirq, NMI,
 *	and a #MC, #DB or #BP inside the NMI), and a count of records
 *	refused for nesting too deep. A task that oopses inside a klog call
 *	dies with levels taken; they are given back at the oops
 *	(klog_die()).
 *
 * Implementation
 * --------------
 *
 * A writer disables preemption, takes the next nesting level on its CPU
 * with one this_cpu_inc_return() (atomic against interrupts and NMIs on
 * the same CPU, so an interrupt that arrives at any point takes the level
 * above and never shares a buffer), formats into that level's buffer,
 * stamps the record (local_clock(), CPU, pid, context), calls each handler
 * and gives the level back (klog_write_begin() and klog_write_end(), in
 * klog_internal.h). The same scheme serves trace_printk().
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
 * grace period, started before the last handler's keys are turned off so
 * that it runs while they are patched. Writers run with preemption
 * disabled, which RCU treats as a read-side critical section, so when
 * unregister_klog_handler() returns no CPU is still inside the handler
 * and its module may be unloaded.
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
 * - Text is limited to KLOG_TEXT_MAX - 1 bytes; longer output is cut: a
 *   text record is flagged KLOG_REC_TRUNCATED, an argument record's
 *   text is cut when it is formatted, unflagged (its strings keep at
 *   most that many bytes: "Binary arguments" in klog.rst).
 * - %p is hashed as in printk, at the call. klog_printk() records its
 *   arguments in binary (KLOG_KIND_ARGS, kernel/klog_pack.c): %s
 *   strings are copied and the %p extensions that read memory are
 *   formatted at the call; the text is made when the record is read
 *   (klog_record_format()). A site without a plan and klog_trigger()
 *   are formatted at the call.
 */

#define pr_fmt(fmt) "klog: " fmt

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kdebug.h>
#include <linux/klog.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/poison.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/rcupdate_wait.h>
#include <linux/sprintf.h>
#include <linux/stdarg.h>

#include "klog_internal.h"

static_assert(KLOG_PAYLOAD_MAX >= KLOG_TEXT_MAX);

DEFINE_PER_CPU(struct klog_cpu, klog_cpu);
LIST_HEAD(klog_handlers);
/* Handlers; above the core, site tables, site flags and keys. */
DEFINE_MUTEX(klog_mutex);
static struct dentry *klog_dir;

struct static_key_false klog_active[KLOG_ACTIVE_KEYS] = {
	[0 ... KLOG_ACTIVE_KEYS - 1] = STATIC_KEY_FALSE_INIT,
};
EXPORT_SYMBOL_GPL(klog_active);
/*
 * Serialises the updates of klog_active[]. Taken without klog_mutex, so
 * that a module load (whose site table needs klog_mutex) is not held up
 * by the walk.
 */
static DEFINE_MUTEX(klog_active_mutex);

/*
 * Turn the core's keys on while a handler is registered, off while none
 * is, one key (one jump label update) at a time. Called after every
 * change of the handler list: whatever order two of them run in, the one
 * that runs last reads the list as it is, so the keys end as the list
 * says. klog_active[0], which klog_enabled() tests, goes on last and off
 * first.
 */
static void klog_active_update(void)
{
	const unsigned int last = KLOG_ACTIVE_KEYS - 1;
	unsigned int i;
	bool on;

	mutex_lock(&klog_active_mutex);
	mutex_lock(&klog_mutex);
	on = !list_empty(&klog_handlers);
	mutex_unlock(&klog_mutex);
	for (i = 0; i < KLOG_ACTIVE_KEYS; i++) {
		if (on)		/* the last key first */
			static_branch_enable(&klog_active[last - i]);
		else
			static_branch_disable(&klog_active[i]);
		/* a waiter for the jump label mutex on this CPU may run */
		cond_resched();
	}
	mutex_unlock(&klog_active_mutex);
}

/*
 * Format into this CPU's buffer for the next nesting level (a
 * KLOG_KIND_TEXT record) and dispatch the record. With @trigger, also
 * call each handler's ->trigger() with it.
 */
static __printf(4, 0)
void klog_vprintk(struct klog_site *site, u32 flags, bool trigger,
		  const char *fmt, va_list args)
{
	char *buf = klog_write_begin();
	int n;

	if (!buf)
		return;
	n = vsnprintf(buf, KLOG_TEXT_MAX, fmt, args);
	if (n >= KLOG_TEXT_MAX) {
		n = KLOG_TEXT_MAX - 1;
		flags |= KLOG_REC_TRUNCATED;
	}
	klog_write_end(site, buf, n, KLOG_KIND_TEXT, flags, trigger);
}

/**
 * __klog_printk() - format a call and hand the text to the handlers
 * @site: the call site, from klog_printk()
 * @fmt: printf-style format
 * @...: arguments
 *
 * Called by klog_printk() when a handler is registered and the site has
 * no argument plan; not for direct use.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_printk(struct klog_site *site, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	klog_vprintk(site, 0, false, fmt, args);
	va_end(args);
}
EXPORT_SYMBOL_GPL(__klog_printk);

static __printf(2, 3)
void klog_trigger_printk(struct klog_site *site, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	klog_vprintk(site, KLOG_REC_TRIGGER, true, fmt, args);
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
	u32 flags = 0;

	/* The record's length is a u32: cut, and say so. */
	if (unlikely(len > U32_MAX)) {
		len = U32_MAX;
		flags = KLOG_REC_TRUNCATED;
	}
	/* A level is taken only to bound recursion through handlers. */
	if (klog_level_take() >= 0)
		klog_write_end(site, data, len, KLOG_KIND_RAW, flags, false);
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
 * registration turns the core's KLOG_ACTIVE_KEYS keys on, one jump label
 * update each (which patches the branches of the call sites on that key),
 * without klog_mutex held; the enabled sites (all of them, unless the
 * control file or klog.sites_default=off says otherwise) then make
 * records.
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
	mutex_unlock(&klog_mutex);
	/*
	 * The handler is on the list before the keys are turned on: a
	 * writer that sees its key on finds it there. The core's keys only:
	 * each site's own key says only whether it is enabled.
	 */
	klog_active_update();
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
	struct rcu_synchronize gp;

	if (!handler)
		return -EINVAL;

	mutex_lock(&klog_mutex);
	if (!klog_registered(handler)) {
		mutex_unlock(&klog_mutex);
		return -ENOENT;
	}
	list_del_rcu(&handler->node);
	/*
	 * Writers walk the list with preemption disabled; since the RCU
	 * flavours were merged, a grace period also waits for such regions,
	 * so once one that starts here has ended (the callback has run) no
	 * CPU can be inside @handler->write(). It runs while the last
	 * handler's keys are patched off, not after them: what
	 * synchronize_rcu() does, split around the patching.
	 */
	init_rcu_head_on_stack(&gp.head);
	init_completion(&gp.completion);
	call_rcu_hurry(&gp.head, wakeme_after_rcu);
	mutex_unlock(&klog_mutex);
	klog_active_update();
	wait_for_completion(&gp.completion);
	destroy_rcu_head_on_stack(&gp.head);
	mutex_lock(&klog_mutex);
	/* No writer holds the node any more: it may be registered again. */
	INIT_LIST_HEAD(&handler->node);
	mutex_unlock(&klog_mutex);
	pr_info("handler %s unregistered\n", handler->name);
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_klog_handler);

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

/**
 * klog_debugfs_dir() - the klog debugfs directory
 *
 * ``/sys/kernel/debug/klog/``, made by the core, which holds the files of
 * the layers above it (``sites``, ``control``). Handlers create their own
 * files in it (and remove them, never the directory).
 *
 * Context: any; valid from fs_initcall on.
 * Return: the directory, or an ERR_PTR() or NULL when debugfs is not
 * available (check with IS_ERR_OR_NULL()).
 */
struct dentry *klog_debugfs_dir(void)
{
	return klog_dir;
}
EXPORT_SYMBOL_GPL(klog_debugfs_dir);

/*
 * An oops in task context inside a klog call (a handler's fault) kills
 * the task, which never gives back the nesting levels it took: give them
 * back for it, or each such oops would keep one of its CPU's
 * KLOG_NEST_MAX levels for good. Every level taken on this CPU is the
 * task's: an interrupt's is given back before it returns, and an oops
 * in interrupt or NMI context (in_interrupt()) panics. Last in the
 * chain: a notifier that stops it (a debugger) keeps the task alive.
 */
static int klog_die(struct notifier_block *nb, unsigned long val,
		    void *data)
{
	if (val == DIE_OOPS && !in_interrupt())
		this_cpu_write(klog_cpu.nest, 0);
	return NOTIFY_DONE;
}

static struct notifier_block klog_die_nb = {
	.notifier_call	= klog_die,
	.priority	= INT_MIN,
};

static int __init klog_die_init(void)
{
	return register_die_notifier(&klog_die_nb);
}
core_initcall(klog_die_init);

/* Before the layers above add their files (fs_initcall_sync). */
static int __init klog_debugfs_init(void)
{
	klog_dir = debugfs_create_dir("klog", NULL);
	return 0;	/* no debugfs: no files, klog still works */
}
fs_initcall(klog_debugfs_init);
