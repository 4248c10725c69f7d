// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-mod: log every slab allocation and free through klog
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: kleak overview
 *
 * The kernel half of the relay-apps "kleak" pair, in its "binary via
 * klog" variant: for every kmalloc(), kmem_cache_alloc(), kfree() and
 * kmem_cache_free() it writes one small binary record with klog_raw().
 * The klog relay handler (klog-mod) moves the records to user space with
 * its per-CPU buffers and exact loss accounting; the ``kleak`` collector
 * reads them from the klog channel and turns them into totals, per-caller
 * counts and the allocations still outstanding at the end - the leaks.
 *
 * Design
 * ------
 *
 * kleak-mod attaches probes to the kmem tracepoints that mm/slab_common.c
 * exports (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free); the slab
 * allocator is not patched. The probes are registered only while logging
 * is enabled, so a loaded but disabled kleak costs the allocator nothing:
 * the tracepoints stay patched out.
 *
 * A probe runs in the allocator's context: any context but NMI, possibly
 * with locks held and interrupts off. It does not sleep or allocate: it
 * fills a struct kleak_record on its stack and passes it to klog_raw(),
 * whose write path does not allocate either. Should anything below
 * klog_raw() allocate all the same, the nested event is not written
 * (counted as ``recursion``) rather than recursing.
 *
 * The record
 * ----------
 *
 * struct kleak_record (kleak.h, shared with the collector): type,
 * sequence number, call site, object address, bytes requested and
 * allocated, gfp flags, NUMA node. The klog record header adds the
 * timestamp, CPU, pid and context. The sequence number comes from one
 * atomic counter for all CPUs, taken after an allocation returned and
 * before a free released the object: sorted by it, the events of one
 * address are in the order they happened, which per-CPU timestamps do
 * not guarantee. It is taken and the record written with interrupts off,
 * so each CPU's stream is in sequence order and a k-way merge restores
 * the global order; a gap in the merged sequence is a record lost. Every
 * event that passes the filter takes a number, whether klog then
 * delivers it or not.
 *
 * Control files
 * -------------
 *
 * In /sys/kernel/debug/kleak/, all root-only, one table of
 * kernel/klog_relay_ctl.h: a write must be one write(2) at offset 0 of fewer
 * than 256 bytes (else -EINVAL, -E2BIG); writes to the read-only files
 * fail with -EPERM.
 *
 * ``enabled`` (rw)
 *	"1" zeroes the counters and the sequence and registers the probes;
 *	"0" unregisters them and returns when no probe runs any more. The
 *	records go wherever klog sends them: enable kleak after the klog
 *	channel is up, disable it before the final drain.
 * ``filter`` (rw)
 *	Which allocations to record: space-separated terms ``module=NAME``
 *	(only allocations whose call site is in the text of module NAME;
 *	"-" and "_" are the same) and ``size=MIN-MAX`` or ``size=N`` (bytes
 *	requested), or ``none`` (or nothing) for all. Frees are always
 *	recorded (see Limitations). Bad input is -EINVAL and leaves the
 *	filter as it was; reading shows the current filter in the same
 *	syntax. The filter may name a module before it is loaded: module
 *	load and unload are followed through a module notifier.
 * ``seq`` (r)
 *	Events numbered since logging was last enabled: after ``enabled``
 *	went back to 0, the number of records a complete capture holds.
 * ``stats`` (r)
 *	Per CPU, since logging was last enabled: events seen per tracepoint
 *	(before the filter), allocations filtered out, and events not
 *	written for recursion.
 *
 * Usage::
 *
 *	# klog -> relay channel up first (the kleak collector does this)
 *	echo "module=my_driver size=64-4096" > /sys/kernel/debug/kleak/filter
 *	echo 1 > /sys/kernel/debug/kleak/enabled
 *	...
 *	echo 0 > /sys/kernel/debug/kleak/enabled
 *
 * Limitations
 * -----------
 *
 * - ``module=`` selects allocations by the call site the allocator
 *   reports: the module's own kmalloc() calls (and kstrdup(),
 *   memdup_user() and other wrappers that pass their caller on), not
 *   what kernel functions it calls allocate for it. Built-in code cannot
 *   be selected.
 * - Frees are always recorded, also with a filter: the free site is
 *   usually elsewhere than the allocation's, and keeping a table of the
 *   addresses to follow would mean allocating or bounding it in the
 *   probe. The collector matches frees to allocations; frees of objects
 *   it never saw allocated (before the capture, or filtered out) are
 *   counted, not reported.
 * - kmem_cache_alloc_bulk(), kmem_cache_free_bulk() and kfree_bulk() have
 *   no tracepoint in 6.12, and kfree_rcu() frees its batches with
 *   kfree_bulk(): such objects look outstanding until their address is
 *   allocated again. krealloc() within the old size and vmalloc() are
 *   not seen at all.
 * - A kmalloc() larger than KMALLOC_MAX_CACHE_SIZE fires the kmalloc
 *   tracepoint twice in 6.12 (in __kmalloc_large_node_noprof() and in its
 *   caller); the collector merges the pair.
 * - For kmem_cache_alloc() the bytes allocated are the cache's object
 *   size: struct kmem_cache is private to mm/, so a module cannot see the
 *   slab stride and cache allocations show no slack.
 * - The records carry raw kernel addresses (the klog files are root-only,
 *   as is /sys/kernel/debug).
 * - The sequence counter is one cache line shared by all CPUs: fine for
 *   debugging, not free on a large machine.
 */

#define pr_fmt(fmt) "kleak: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/irqflags.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <trace/events/kmem.h>
#include "../../../kernel/klog_relay_ctl.h"
#include "kleak.h"
#include "kleak-mod.h"

/* Per-CPU counters, changed only on their CPU by this_cpu ops. */
struct kleak_cpu {
	u64	events[KLEAK_NR_TYPES];	/* seen, per type, before the filter */
	u64	filtered;		/* allocations the filter refused */
	u64	recursion;		/* events nested in a probe */
	int	busy;			/* a probe is writing on this CPU */
};

static DEFINE_PER_CPU(struct kleak_cpu, kleak_cpu);
static atomic64_t kleak_seq;
struct kleak_filter __rcu *kleak_filter;
/* Serialises the control files, the filter and the module notifier. */
DEFINE_MUTEX(kleak_lock);
static bool kleak_enabled;
static struct dentry *kleak_dir;

/* ---- probes ------------------------------------------------------------ */

/*
 * Number the event and write its record, with interrupts off so that no
 * other record of this CPU can come between the two: each CPU's stream
 * is then in number order.
 *
 * Why the numbers order the events of one address: atomic64_fetch_inc()
 * is fully ordered, and kleak_seq has one modification order that agrees
 * with happens-before. An allocation's probe runs before the allocator
 * returns the object; a free's probe runs before the object goes back to
 * the allocator (trace_kfree() is the first thing kfree() does, and
 * kmem_cache_free() traces before slab_free()). Whatever hands the object
 * from its allocation to its free, or through the allocator from its free
 * to its next allocation, orders the two numbers as well. No barrier
 * pairs with this one.
 */
static void kleak_log(u8 type, unsigned long call_site, const void *ptr,
		      size_t bytes_req, size_t bytes_alloc, gfp_t gfp, int node)
{
	struct kleak_record rec;
	unsigned long flags;

	local_irq_save(flags);
	rec = (struct kleak_record) {
		.magic		= KLEAK_MAGIC,
		.version	= KLEAK_VERSION,
		.type		= type,
		.seq		= atomic64_fetch_inc(&kleak_seq),
		.call_site	= call_site,
		.ptr		= (unsigned long)ptr,
		.bytes_req	= bytes_req,
		.bytes_alloc	= bytes_alloc,
		.gfp_flags	= (__force u32)gfp,
		.node		= node,
	};
	if (unlikely(this_cpu_read(kleak_cpu.busy))) {
		/* Something below klog_raw() allocated: leave a gap. */
		this_cpu_inc(kleak_cpu.recursion);
	} else {
		this_cpu_write(kleak_cpu.busy, 1);
		klog_raw(&rec, sizeof(rec));
		this_cpu_write(kleak_cpu.busy, 0);
	}
	local_irq_restore(flags);
}

static bool kleak_in_ranges(const struct kleak_filter *f, unsigned long addr)
{
	int i, n = READ_ONCE(f->nranges);

	for (i = 0; i < n; i++)
		if (addr >= f->start[i] && addr < f->end[i])
			return true;
	return false;
}

/* Does the filter let this allocation through? Preemption is off. */
static bool kleak_want(unsigned long call_site, size_t bytes_req)
{
	const struct kleak_filter *f = rcu_dereference_sched(kleak_filter);

	if (!f)
		return true;
	if (f->has_size && (bytes_req < f->size_min || bytes_req > f->size_max))
		return false;
	return !f->module[0] || kleak_in_ranges(f, call_site);
}

static void kleak_alloc(u8 type, unsigned long call_site, const void *ptr,
			size_t bytes_req, size_t bytes_alloc, gfp_t gfp,
			int node)
{
	this_cpu_inc(kleak_cpu.events[type]);
	if (!kleak_want(call_site, bytes_req)) {
		this_cpu_inc(kleak_cpu.filtered);
		return;
	}
	kleak_log(type, call_site, ptr, bytes_req, bytes_alloc, gfp, node);
}

static void kleak_free(u8 type, unsigned long call_site, const void *ptr)
{
	if (ZERO_OR_NULL_PTR(ptr))
		return;
	this_cpu_inc(kleak_cpu.events[type]);
	kleak_log(type, call_site, ptr, 0, 0, 0, NUMA_NO_NODE);
}

static void kleak_probe_kmalloc(void *data, unsigned long call_site,
				const void *ptr, size_t bytes_req,
				size_t bytes_alloc, gfp_t gfp, int node)
{
	kleak_alloc(KLEAK_KMALLOC, call_site, ptr, bytes_req, bytes_alloc, gfp,
		    node);
}

static void kleak_probe_cache_alloc(void *data, unsigned long call_site,
				    const void *ptr, struct kmem_cache *s,
				    gfp_t gfp, int node)
{
	size_t size = kmem_cache_size(s);

	kleak_alloc(KLEAK_CACHE_ALLOC, call_site, ptr, size, size, gfp, node);
}

static void kleak_probe_kfree(void *data, unsigned long call_site,
			      const void *ptr)
{
	kleak_free(KLEAK_KFREE, call_site, ptr);
}

static void kleak_probe_cache_free(void *data, unsigned long call_site,
				   const void *ptr, const struct kmem_cache *s)
{
	kleak_free(KLEAK_CACHE_FREE, call_site, ptr);
}

static void kleak_unregister(int n)
{
	/* In reverse registration order; n probes are registered. */
	switch (n) {
	case 4:
		unregister_trace_kmem_cache_free(kleak_probe_cache_free, NULL);
		fallthrough;
	case 3:
		unregister_trace_kfree(kleak_probe_kfree, NULL);
		fallthrough;
	case 2:
		unregister_trace_kmem_cache_alloc(kleak_probe_cache_alloc, NULL);
		fallthrough;
	case 1:
		unregister_trace_kmalloc(kleak_probe_kmalloc, NULL);
		break;
	default:
		return;
	}
	/* No CPU runs a probe after this; their data may change. */
	tracepoint_synchronize_unregister();
}

static int kleak_register(void)
{
	int ret, n = 0;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		return -EOPNOTSUPP;
	ret = register_trace_kmalloc(kleak_probe_kmalloc, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kmem_cache_alloc(kleak_probe_cache_alloc, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kfree(kleak_probe_kfree, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kmem_cache_free(kleak_probe_cache_free, NULL);
	if (ret)
		goto fail;
	return 0;
fail:
	kleak_unregister(n);
	pr_err("cannot attach to the kmem tracepoints: %d\n", ret);
	return ret;
}

static int kleak_set_enabled(bool on)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&kleak_lock);
	if (on == kleak_enabled)
		return 0;
	if (!on) {
		kleak_unregister(4);
		kleak_enabled = false;
		return 0;
	}
	/* No probe is registered: nothing writes the counters. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&kleak_cpu, cpu), 0, sizeof(struct kleak_cpu));
	atomic64_set(&kleak_seq, 0);
	ret = kleak_register();
	if (ret)
		return ret;
	kleak_enabled = true;
	return 0;
}

/* ---- control files ------------------------------------------------------ */

static void enabled_show(struct seq_file *m)
{
	seq_printf(m, "%d\n", READ_ONCE(kleak_enabled));
}

static int enabled_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&kleak_lock);
	return kleak_set_enabled(on);
}

static void seq_show(struct seq_file *m)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&kleak_seq));
}

static void stats_show(struct seq_file *m)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		const struct kleak_cpu *c = per_cpu_ptr(&kleak_cpu, cpu);

		seq_printf(m, "cpu%u kmalloc=%llu kmem_cache_alloc=%llu kfree=%llu kmem_cache_free=%llu filtered=%llu recursion=%llu\n",
			   cpu, READ_ONCE(c->events[KLEAK_KMALLOC]),
			   READ_ONCE(c->events[KLEAK_CACHE_ALLOC]),
			   READ_ONCE(c->events[KLEAK_KFREE]),
			   READ_ONCE(c->events[KLEAK_CACHE_FREE]),
			   READ_ONCE(c->filtered), READ_ONCE(c->recursion));
	}
}

static const struct ctl_file kleak_ctl_files[] = {
	{ "enabled",	0600, enabled_show,	 enabled_store },
	{ "filter",	0600, kleak_filter_show, kleak_filter_store },
	{ "seq",	0400, seq_show,		 NULL },
	{ "stats",	0400, stats_show,	 NULL },
};

static int __init kleak_init(void)
{
	int ret;

	kleak_dir = debugfs_create_dir("kleak", NULL);
	if (IS_ERR(kleak_dir))
		return PTR_ERR(kleak_dir);
	ret = kleak_filter_init();
	if (ret) {
		debugfs_remove_recursive(kleak_dir);
		return ret;
	}
	ctl_files_create(kleak_dir, kleak_ctl_files,
			 ARRAY_SIZE(kleak_ctl_files));
	return 0;
}

static void __exit kleak_exit(void)
{
	/* Waits for control-file calls in progress; no new ones start. */
	debugfs_remove_recursive(kleak_dir);
	mutex_lock(&kleak_lock);
	kleak_set_enabled(false);
	mutex_unlock(&kleak_lock);
	kleak_filter_exit();
}

module_init(kleak_init);
module_exit(kleak_exit);
MODULE_DESCRIPTION("kleak: log slab allocations and frees through klog");
MODULE_LICENSE("GPL");
