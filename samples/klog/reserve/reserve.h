/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * reserve.h - what reserve-mod writes and the reserve program reads
 *
 * Every sub-buffer of /sys/kernel/debug/reserve/cpuN starts with a
 * struct reserve_subbuf_hdr; records follow back to back, each a
 * struct reserve_rec and its payload. The header counts the bytes of
 * records reserved in the sub-buffer and the bytes of them completely
 * written (committed): a reader takes a finished sub-buffer only once
 * the two are equal. Fields are in the writing machine's byte order.
 */
#ifndef RESERVE_H
#define RESERVE_H

#include <linux/types.h>

struct reserve_subbuf_hdr {
	__u32	reserved;	/* by this buffer's CPU, interrupts off */
	__u32	committed;	/* an atomic add by each writer when done */
};

#define RESERVE_CTX_TASK	0
#define RESERVE_CTX_HARDIRQ	1

struct reserve_rec {
	__u32	size;		/* with this header; a multiple of 8 */
	__u16	cpu;
	__u8	ctx;		/* RESERVE_CTX_* */
	__u8	zero;
	__u64	seq;		/* per CPU from 0: a gap is a dropped record */
	__u32	csum;		/* reserve_csum() */
	__u32	zero2;
};

/* Record seq has 8 * (seq % 8) bytes of payload, byte i = seq * 31 + i. */
static inline __u32 reserve_rec_size(__u64 seq)
{
	return sizeof(struct reserve_rec) + 8 * (seq % 8);
}

static inline __u32 reserve_fnv1a(__u32 h, const void *data, __u32 n)
{
	const unsigned char *p = data;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* FNV-1a of the header up to csum, then of the payload. */
static inline __u32 reserve_csum(const struct reserve_rec *r)
{
	__u32 h = reserve_fnv1a(2166136261u, r,
				__builtin_offsetof(struct reserve_rec, csum));

	return reserve_fnv1a(h, r + 1, r->size - sizeof(*r));
}

#endif /* RESERVE_H */
