/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * reserve-format.h - the stream of reserve-mod, for the module and readers
 *
 * reserve-mod (samples/klog/reserve) writes records into a relay channel
 * with one buffer per CPU, /sys/kernel/debug/reserve/cpuN: a ring of
 * n_subbufs sub-buffers of subbuf_size bytes. Every sub-buffer starts
 * with a struct reserve_subbuf_hdr; records follow back to back, each a
 * struct reserve_rec and its payload, a multiple of RESERVE_REC_ALIGN
 * bytes in all. The rest of the sub-buffer is padding.
 *
 * Records are reserved first and written afterwards, so the bytes of a
 * finished sub-buffer are not all data yet when relay counts it produced.
 * The header says how far they are: @reserved bytes of records were
 * handed out in this sub-buffer (final once the sub-buffer is produced)
 * and @committed of them have been completely written. A reader takes a
 * produced sub-buffer only once committed == reserved, after loading
 * @committed with acquire semantics; the first hdr_size + reserved bytes
 * are then the header and whole records. A reader that does not wait
 * sees records half written, or stale ones from an earlier lap.
 *
 * Record payload, for checking: payload[i] = (__u8)(seq * 31 + i), and
 * csum is the 32-bit FNV-1a of the 24 record-header bytes before @csum
 * followed by the payload.
 *
 * Shared by kernel and user space (only <linux/types.h>); fields are in
 * the byte order of the machine that wrote them. Version 1.
 */
#ifndef RESERVE_FORMAT_H
#define RESERVE_FORMAT_H

#include <linux/types.h>

#define RESERVE_VERSION		1
#define RESERVE_SUBBUF_MAGIC	0x56534552	/* "RESV" read as LE u32 */
#define RESERVE_REC_ALIGN	8

/**
 * struct reserve_subbuf_hdr - the start of every sub-buffer
 * @magic: RESERVE_SUBBUF_MAGIC
 * @version: RESERVE_VERSION
 * @hdr_size: sizeof(struct reserve_subbuf_hdr); records start here
 * @cpu: the CPU whose buffer this is
 * @reserved: bytes of records reserved in this sub-buffer so far; written
 *	by the buffer's CPU only, final before the sub-buffer is produced
 * @committed: bytes of those records that are completely written; an
 *	atomic add by each writer after its record, from any CPU
 * @zero: zero
 * @seq: number of this sub-buffer in the buffer's stream, from 0 at
 *	channel creation: sub-buffer @seq sits at offset
 *	(@seq % n_subbufs) * subbuf_size of the mmap'ed buffer
 * @lost: records dropped on this CPU since the previous sub-buffer was
 *	started (buffer full, record too big)
 */
struct reserve_subbuf_hdr {
	__u32	magic;
	__u16	version;
	__u16	hdr_size;
	__u32	cpu;
	__u32	reserved;
	__u32	committed;
	__u32	zero;
	__u64	seq;
	__u64	lost;
};

/* reserve_rec.ctx */
#define RESERVE_CTX_TASK	0
#define RESERVE_CTX_HARDIRQ	1

/* reserve_rec.flags */
#define RESERVE_REC_DELAYED	0x1	/* writer slept between reserve and commit */
#define RESERVE_REC_NESTED	0x2	/* reserved while an earlier record of
					 * this sub-buffer was still open
					 */

/**
 * struct reserve_rec - one record
 * @size: bytes of the whole record, this header included; a multiple of
 *	RESERVE_REC_ALIGN
 * @cpu: the CPU that reserved it (always the buffer's)
 * @ctx: RESERVE_CTX_TASK or RESERVE_CTX_HARDIRQ
 * @flags: RESERVE_REC_* flags
 * @seq: number of this record among all records offered to this CPU's
 *	buffer since channel creation, written or dropped: a gap is loss
 * @ts_ns: local clock when it was reserved, in nanoseconds
 * @csum: FNV-1a (32 bit) of the bytes before it and of the payload
 * @zero: zero
 */
struct reserve_rec {
	__u32	size;
	__u16	cpu;
	__u8	ctx;
	__u8	flags;
	__u64	seq;
	__u64	ts_ns;
	__u32	csum;
	__u32	zero;
};

#endif /* RESERVE_FORMAT_H */
