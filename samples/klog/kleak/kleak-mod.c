// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-mod: log every slab allocation and free through klog
 *
 * What this sample teaches: a module that hooks existing tracepoints and
 * turns each event into one small binary klog_raw() record (kleak.h),
 * numbered so that user space can put the events of all CPUs back in
 * order and see exactly which ones were lost. Collecting the records is
 * the klog tool's job (tools/klog: klog -o DIR); samples/klog/kleak/kleak
 * reads the collection and reports what was allocated and never freed.
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: kleak overview
 *
 * kleak-mod is the kernel half of the relay-apps "kleak" pair, in its
 * "binary via klog" variant. It attaches probes to the kmalloc,
 * kmem_cache_alloc, kfree and kmem_cache_free tracepoints that
 * mm/slab_common.c exports (the allocator is not patched) and records
 * from load to unload: loading it starts recording, unloading it ends
 * it. Its records go wherever klog sends them; with klog-mod and a
 * collection running (``klog -o DIR -- COMMAND``) they are saved in
 * DIR/cpuN.
 *
 * A probe runs in the allocator's context: any context but NMI,
 * preemption off, possibly with locks held and interrupts off. It fills
 * a struct kleak_record on its stack and passes it to klog_raw(), which
 * neither sleeps nor allocates.
 *
 * Order and loss. Per-CPU timestamps cannot order an allocation on one
 * CPU against the free of the same address on another, so every event
 * also takes a number from one atomic counter, after the allocation
 * returned and before the free released the object. atomic64_fetch_inc()
 * is fully ordered and whatever hands an object from its allocation to
 * its free (or through the allocator to its next allocation) orders the
 * two numbers as well: sorted by number, the events of one address are
 * in the order they happened. No barrier pairs with it. At unload, once
 * no probe runs any more, a KLEAK_END record takes the last number, so a
 * reader knows exactly how many records there were; a number missing
 * from the collection is a record lost (buffers full, kleak-mod loaded
 * before the collection started, its call site switched off).
 *
 * Usage::
 *
 *	klog -o /tmp/kl -- sh -c 'insmod kleak-mod.ko && ./my_test && rmmod kleak_mod'
 *	kleak /tmp/kl
 *
 * Limitations: records go to every klog handler, and every allocation of
 * the system is recorded (a reader picks its module's callers by name);
 * kmem_cache_free_bulk() and kfree_bulk() (kfree_rcu()'s batches) have no
 * tracepoint in 6.12, so such objects look outstanding until their
 * address is allocated again; a kmalloc() larger than
 * KMALLOC_MAX_CACHE_SIZE fires the kmalloc tracepoint twice (inside the
 * slab code, then with the real caller); kmem_cache_alloc() reports the
 * cache's object size as allocated (its slab stride is private to mm/);
 * the records carry raw kernel addresses (root-only, as debugfs is); the
 * counter is one cache line shared by all CPUs.
 */

#include <linux/atomic.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <trace/events/kmem.h>
#include "kleak.h"

static atomic64_t kleak_seq;

static void kleak_log(u8 type, unsigned long call_site, const void *ptr,
		      size_t bytes_req, size_t bytes_alloc)
{
	struct kleak_record rec = {
		.magic		= KLEAK_MAGIC,
		.version	= KLEAK_VERSION,
		.type		= type,
		.seq		= atomic64_fetch_inc(&kleak_seq),
		.call_site	= call_site,
		.ptr		= (unsigned long)ptr,
		.bytes_req	= bytes_req,
		.bytes_alloc	= bytes_alloc,
	};

	klog_raw(&rec, sizeof(rec));
}

static void kleak_kmalloc(void *data, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp, int node)
{
	kleak_log(KLEAK_KMALLOC, call_site, ptr, bytes_req, bytes_alloc);
}

static void kleak_cache_alloc(void *data, unsigned long call_site,
			      const void *ptr, struct kmem_cache *s,
			      gfp_t gfp, int node)
{
	size_t size = kmem_cache_size(s);

	kleak_log(KLEAK_CACHE_ALLOC, call_site, ptr, size, size);
}

static void kleak_kfree(void *data, unsigned long call_site, const void *ptr)
{
	if (!ZERO_OR_NULL_PTR(ptr))
		kleak_log(KLEAK_KFREE, call_site, ptr, 0, 0);
}

static void kleak_cache_free(void *data, unsigned long call_site,
			     const void *ptr, const struct kmem_cache *s)
{
	if (!ZERO_OR_NULL_PTR(ptr))
		kleak_log(KLEAK_CACHE_FREE, call_site, ptr, 0, 0);
}

/* Detach the first @n probes, in the order kleak_init() attached them. */
static void kleak_detach(int n)
{
	if (n > 3)
		unregister_trace_kmem_cache_free(kleak_cache_free, NULL);
	if (n > 2)
		unregister_trace_kfree(kleak_kfree, NULL);
	if (n > 1)
		unregister_trace_kmem_cache_alloc(kleak_cache_alloc, NULL);
	if (n > 0)
		unregister_trace_kmalloc(kleak_kmalloc, NULL);
	/* No CPU runs a probe after this. */
	tracepoint_synchronize_unregister();
}

static int __init kleak_init(void)
{
	int n = 0, ret;

	ret = register_trace_kmalloc(kleak_kmalloc, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kmem_cache_alloc(kleak_cache_alloc, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kfree(kleak_kfree, NULL);
	if (ret)
		goto fail;
	n++;
	ret = register_trace_kmem_cache_free(kleak_cache_free, NULL);
	if (ret)
		goto fail;
	return 0;
fail:
	kleak_detach(n);
	pr_err("kleak: cannot attach to the kmem tracepoints: %d\n", ret);
	return ret;
}

static void __exit kleak_exit(void)
{
	kleak_detach(4);
	/* Every event numbered so far is logged: the end takes the last number. */
	kleak_log(KLEAK_END, 0, NULL, 0, 0);
}

module_init(kleak_init);
module_exit(kleak_exit);
MODULE_DESCRIPTION("kleak: log slab allocations and frees through klog");
MODULE_LICENSE("GPL");
