/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kleak.h - the record kleak-mod writes for each slab allocation and free
 *
 * Shared by kleak-mod (kernel) and kleak (user space). kleak-mod hands
 * one struct kleak_record per event to klog_raw(); the klog relay
 * handler (tools/klog) carries it unchanged as the payload of a raw
 * record, whose own header adds the timestamp, CPU, pid and context.
 * kleak tells these records from other klog_raw() records by length and
 * @magic. Fields are in the byte order of the machine that wrote them.
 */
#ifndef _KLEAK_H
#define _KLEAK_H

#include <linux/types.h>

#define KLEAK_MAGIC		0x4b41454c	/* "LEAK" as a little-endian u32 */
#define KLEAK_VERSION		2

/* kleak_record.type */
#define KLEAK_KMALLOC		1	/* the kmalloc tracepoint */
#define KLEAK_CACHE_ALLOC	2	/* kmem_cache_alloc */
#define KLEAK_KFREE		3	/* kfree */
#define KLEAK_CACHE_FREE	4	/* kmem_cache_free */
#define KLEAK_END		5	/* kleak-mod unloaded: no events after it */

/**
 * struct kleak_record - one allocation or free, or the end
 * @magic: KLEAK_MAGIC
 * @version: KLEAK_VERSION
 * @type: KLEAK_KMALLOC .. KLEAK_END
 * @reserved: zero
 * @seq: number of this event among all kleak-mod numbered since it was
 *	loaded, from 0, one counter for all CPUs. Taken after an allocation
 *	returned and before a free released the object, so sorted by @seq
 *	the events of one address are in the order they happened. The
 *	KLEAK_END record takes the last number: a complete collection holds
 *	every number from 0 to its @seq, and a missing one is a lost record.
 * @call_site: return address into the caller of the allocator or of
 *	kfree()/kmem_cache_free()
 * @ptr: the object; 0 for a failed allocation
 * @bytes_req: allocations: bytes asked for (kmem_cache_alloc: the
 *	cache's object size); else 0
 * @bytes_alloc: allocations: bytes the allocator set aside, as its
 *	tracepoint reports them; else 0
 */
struct kleak_record {
	__u32	magic;
	__u8	version;
	__u8	type;
	__u16	reserved;
	__u64	seq;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
};

#endif /* _KLEAK_H */
