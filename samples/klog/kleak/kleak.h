/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kleak.h - the record kleak-mod writes for each slab allocation and free
 *
 * kleak-mod (samples/klog/kleak) attaches to the kmem tracepoints and
 * hands one struct kleak_record per event to klog_raw(). The klog relay
 * handler (tools/klog) carries it unchanged as the payload of a
 * raw record, whose header (struct klog_rec_hdr in <linux/klog_relay.h>)
 * adds the timestamp, CPU, pid and context. The kleak collector reads the
 * klog channel and tells kleak's records from other klog records by
 * kind (KLOG_RELAY_RAW), length (sizeof(struct kleak_record)) and @magic.
 *
 * Shared by the module and the collector; all fields are in the byte
 * order of the machine that wrote them. Version 1.
 */
#ifndef _KLEAK_H
#define _KLEAK_H

#include <linux/types.h>

#define KLEAK_MAGIC		0x4b41454c	/* "LEAK" read as LE u32 */
#define KLEAK_VERSION		1

/* kleak_record.type: the tracepoint the event came from */
#define KLEAK_KMALLOC		1	/* kmalloc: the kmalloc() family */
#define KLEAK_CACHE_ALLOC	2	/* kmem_cache_alloc */
#define KLEAK_KFREE		3	/* kfree */
#define KLEAK_CACHE_FREE	4	/* kmem_cache_free */
#define KLEAK_NR_TYPES		5	/* types are 1 .. KLEAK_NR_TYPES - 1 */

/**
 * struct kleak_record - one allocation or free
 * @magic: KLEAK_MAGIC
 * @version: KLEAK_VERSION
 * @type: KLEAK_KMALLOC, KLEAK_CACHE_ALLOC, KLEAK_KFREE or
 *	KLEAK_CACHE_FREE
 * @reserved: zero
 * @seq: number of this event among all events kleak numbered since
 *	logging was last enabled, from 0. One counter for all CPUs, taken
 *	after an allocation returned and before a free released the object,
 *	so sorting by @seq puts the events of one address in the order they
 *	happened. Taken and written with interrupts off, so each CPU's
 *	records are in @seq order; a gap in the merged sequence is a lost
 *	record.
 * @call_site: return address into the caller of the allocator or of
 *	kfree()/kmem_cache_free() (the tracepoint's call_site)
 * @ptr: the object's address; 0 for a failed allocation (frees of NULL
 *	and ZERO_SIZE_PTR are not recorded)
 * @bytes_req: allocations: bytes asked for (for kmem_cache_alloc the
 *	cache's object size); frees: 0
 * @bytes_alloc: allocations: bytes the allocator set aside, as its
 *	tracepoint reports them (for kmalloc the slab's object stride,
 *	including any debugging metadata; for kmem_cache_alloc equal to
 *	@bytes_req, since a module cannot see the stride of a cache);
 *	frees: 0
 * @gfp_flags: allocations: the gfp_t flags; frees: 0
 * @node: allocations: the NUMA node asked for (-1: any); frees: -1
 */
struct kleak_record {
	__u32	magic;
	__u16	version;
	__u8	type;
	__u8	reserved;
	__u64	seq;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u32	gfp_flags;
	__s32	node;
};

#endif /* _KLEAK_H */
