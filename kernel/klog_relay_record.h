/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-mod: records laid out in a buffer
 *
 * The inline pieces of the write path that build a record and reserve
 * its room (<uapi/linux/klog_relay.h>), shared by the record written at
 * once (klog_relay_put() in klog_relay_write.c) and the record an NMI
 * staged (klog_relay_record.c, klog_relay_nmi.c): sequence numbers, the
 * record's size, the record and its COMM record, the room reserved and
 * committed. Always inlined: they are the per-record work of the hot
 * path. The write path's rules and memory barriers: klog_relay_write.c.
 */
#ifndef KLOG_RELAY_RECORD_H
#define KLOG_RELAY_RECORD_H

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "klog_relay_internal.h"

/*
 * The next sequence number of per-CPU buffer @st; interrupts off. NMI and
 * reentered records counted since the previous record take theirs first,
 * so the gap they leave is in front of this record and, if this record
 * starts a sub-buffer, inside the "lost" of that sub-buffer's header
 * (which also counts the drops since the previous header, wherever
 * their gaps are). NMIs increment nmi with
 * this_cpu_inc() and take no number themselves, so nothing an NMI does
 * can come between this and the header.
 */
static __always_inline u64 klog_relay_take_seq(struct klog_relay_cpu *st)
{
	/* Word-sized sums: their difference is right across a wrap. */
	unsigned long drops = READ_ONCE(st->nmi) + st->reentered;

	if (unlikely(drops != st->drops_folded)) {
		u64 n = drops - st->drops_folded;

		st->seq += n;
		st->folded += n;
		st->drops_folded = drops;
	}
	return st->seq++;
}

/* Bytes of a COMM record: its header and the task name, aligned. */
#define KLOG_RELAY_COMM_SIZE \
	ALIGN(sizeof(struct klog_rec_hdr) + KLOG_RELAY_COMM_LEN, KLOG_REC_ALIGN)

/*
 * Bytes of @rec as a record of @chan's stream; 0 if it is larger than a
 * sub-buffer can hold together with the COMM record that may have to
 * start the sub-buffer with it. The length is checked against the
 * sub-buffer before anything is added to it, so that no sum can wrap (a
 * 32-bit size_t, a len near U32_MAX).
 */
static __always_inline size_t __klog_relay_rec_size(const struct rchan *chan,
						    const struct klog_record *rec)
{
	/* subbuf_size >= KLOG_RELAY_SUBBUF_MIN: no underflow */
	size_t room = chan->subbuf_size - sizeof(struct klog_subbuf_hdr) -
		      KLOG_RELAY_COMM_SIZE - sizeof(struct klog_rec_hdr);

	if (unlikely(rec->len > room))
		return 0;
	return ALIGN(sizeof(struct klog_rec_hdr) + rec->len, KLOG_REC_ALIGN);
}

/* Payloads up to this many bytes are copied inline, a word at a time. */
#define KLOG_RELAY_INLINE_COPY	64

/* 8 bytes from @src + @at to @dst + @at, any alignment. */
static __always_inline void klog_relay_copy_word(u8 *dst, const u8 *src,
						 long at)
{
	put_unaligned(get_unaligned((const u64 *)(src + at)),
		      (u64 *)(dst + at));
}

/*
 * Copy a payload of @len bytes from @src (any alignment) to @dst. Short
 * ones, most records, in place and with no loop: from 8 bytes on, the
 * first and the last 8, 16 or 32 bytes, which overlap when @len is not
 * 8, 16, 32 or 64 (29 bytes are bytes 0-15 and 13-28); under 8 bytes a
 * byte at a time. No call to memcpy(): its call and length dispatch
 * cost more than such a copy, and a call in the write path makes it keep
 * its state in callee-saved registers. Reads exactly the @len bytes of
 * @src, stores exactly the @len bytes of @dst.
 */
static __always_inline void klog_relay_copy_payload(void *dst,
						    const void *src, size_t len)
{
	const u8 *s = src, *se = s + len;
	u8 *d = dst, *de = d + len;

	BUILD_BUG_ON(KLOG_RELAY_INLINE_COPY != 64);
	if (len > KLOG_RELAY_INLINE_COPY) {
		memcpy(dst, src, len);
	} else if (len > 32) {
		klog_relay_copy_word(d, s, 0);
		klog_relay_copy_word(d, s, 8);
		klog_relay_copy_word(d, s, 16);
		klog_relay_copy_word(d, s, 24);
		klog_relay_copy_word(de, se, -32);
		klog_relay_copy_word(de, se, -24);
		klog_relay_copy_word(de, se, -16);
		klog_relay_copy_word(de, se, -8);
	} else if (len > 16) {
		klog_relay_copy_word(d, s, 0);
		klog_relay_copy_word(d, s, 8);
		klog_relay_copy_word(de, se, -16);
		klog_relay_copy_word(de, se, -8);
	} else if (len >= 8) {
		klog_relay_copy_word(d, s, 0);
		klog_relay_copy_word(de, se, -8);
	} else {
		while (len--)
			*d++ = *s++;
	}
}

/*
 * Build the record of @rec, numbered @seq, in the @size bytes at @dst
 * (size = __klog_relay_rec_size()), @len being rec->len as the caller
 * read it to size it (so that a check of it there holds here, across
 * the caller's stores): the one place that lays a record out
 * (<uapi/linux/klog_relay.h>), in a buffer or in an NMI staging area.
 * Every byte of the @size is stored. Plain stores, reads only @rec and
 * its site: any context, NMI included. Inlined: it is the whole of the
 * per-record work, and a call less counts on the hot path.
 */
static __always_inline void klog_relay_build_rec(void *dst,
						 const struct klog_record *rec,
						 size_t len, u64 seq, size_t size)
{
	struct klog_rec_hdr *r = dst;

	/* The record header copies these from the core's record as they are. */
	BUILD_BUG_ON(KLOG_KIND_TEXT != KLOG_RELAY_TEXT);
	BUILD_BUG_ON(KLOG_KIND_RAW != KLOG_RELAY_RAW);
	BUILD_BUG_ON(KLOG_KIND_ARGS != KLOG_RELAY_ARGS);
	BUILD_BUG_ON(KLOG_CTX_TASK != KLOG_RELAY_CTX_TASK);
	BUILD_BUG_ON(KLOG_CTX_SOFTIRQ != KLOG_RELAY_CTX_SOFTIRQ);
	BUILD_BUG_ON(KLOG_CTX_HARDIRQ != KLOG_RELAY_CTX_HARDIRQ);
	BUILD_BUG_ON(KLOG_CTX_NMI != KLOG_RELAY_CTX_NMI);
	BUILD_BUG_ON(KLOG_REC_TRUNCATED != KLOG_RELAY_TRUNCATED);
	BUILD_BUG_ON(KLOG_REC_TRIGGER != KLOG_RELAY_TRIGGER);
	/* The size <linux/klog_relay.h> promises, aligned for the payload. */
	BUILD_BUG_ON(sizeof(struct klog_rec_hdr) != 40);
	BUILD_BUG_ON(sizeof(struct klog_rec_hdr) % KLOG_REC_ALIGN);
	BUILD_BUG_ON(sizeof(struct klog_subbuf_hdr) % KLOG_REC_ALIGN);
	BUILD_BUG_ON(sizeof_field(struct klog_rec_hdr, site_id) !=
		     sizeof_field(struct klog_site, id));

	/*
	 * Zero the padding (under 8 bytes: size is a multiple of 8) with one
	 * store that the header and payload then overwrite in part.
	 */
	BUILD_BUG_ON(sizeof(u64) != KLOG_REC_ALIGN);
	*(u64 *)((char *)r + size - sizeof(u64)) = 0;
	/*
	 * Field by field, each stored as it is loaded: built as a compound
	 * literal, the header was put together in registers and on the
	 * stack first.
	 */
	r->size = size;
	r->len = len;
	r->ts_ns = rec->ts_ns;
	r->seq = seq;
	r->pid = rec->pid;
	r->site_id = rec->site->id;
	r->kind = rec->kind;
	r->ctx = rec->ctx;
	r->flags = rec->flags & KLOG_RELAY_FLAGS;
	r->reserved0 = 0;
	r->cpu = rec->cpu;
	r->reserved = 0;
	klog_relay_copy_payload(r + 1, rec->payload, len);
}

void klog_relay_build_comm(void *dst, const struct klog_rec_hdr *named,
			   const char *comm);

/*
 * The task a COMM record names, as one number: the pid, or for pid 0
 * the CPU too. Every CPU's idle task has pid 0 (swapper/N): in a global
 * buffer their records meet, and each needs its own name.
 */
static __always_inline int klog_relay_task(pid_t pid, unsigned int cpu)
{
	return pid ? pid : -1 - (int)cpu;
}

/*
 * Room for a record of @size bytes, stamped @ts, made by @task
 * (klog_relay_task()), in @buf's current sub-buffer, with a COMM record
 * in front of it when @task differs from the previous record's in the
 * sub-buffer or it is the sub-buffer's first record (each new sub-buffer
 * sets st->last_task to KLOG_RELAY_NO_TASK: one compare tells both; a
 * new sub-buffer is started if they do not fit);
 * interrupts off (per-CPU) or klog_relay.global_lock held. Both are
 * reserved together: either both are written or neither. Returns where
 * the COMM record, or the record if @comm is 0, goes, with the COMM
 * record's bytes (0 or KLOG_RELAY_COMM_SIZE) in @comm; NULL if the
 * buffer is full. The caller builds the record at that place + @comm,
 * its COMM record if any, then calls klog_relay_commit().
 */
static __always_inline char *klog_relay_reserve(struct rchan_buf *buf,
						struct klog_relay_cpu *st,
						int task, size_t size,
						u64 ts, size_t *comm)
{
	/* A new task in this sub-buffer, or its first record: named. */
	*comm = task != st->last_task ? KLOG_RELAY_COMM_SIZE : 0;
	if (unlikely(buf->offset + *comm + size > buf->chan->subbuf_size)) {
		klog_relay_finish_subbuf(buf);
		st->next_ts = ts;
		/* the first record of the new sub-buffer: named */
		*comm = KLOG_RELAY_COMM_SIZE;
		if (!relay_switch_subbuf(buf, *comm + size))
			return NULL;
	}
	return buf->data + buf->offset;
}

/*
 * The @bytes klog_relay_reserve() gave (COMM record and record) are
 * built: advance past them. No barrier before the offset update: no
 * reader reads buf->offset (read(2) and mmap readers take finished
 * sub-buffers only, published by relay's release of subbufs_produced;
 * snapshot readers take sub-buffers before a snapshot position, finished
 * in the flush that took it).
 */
static __always_inline void klog_relay_commit(struct rchan_buf *buf,
					      struct klog_relay_cpu *st,
					      int task, size_t bytes)
{
	buf->offset += bytes;
	st->last_task = task;
}

#endif /* KLOG_RELAY_RECORD_H */
