/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_pack.h - packing a call's arguments into a block, inlined
 *
 * The one packer of klog's binary arguments (the block is described in
 * include/uapi/linux/klog_args.h): klog_args_apack() in kernel/klog_format.c
 * expands klog_pack_block(), and klog_printk()'s __klog_printk_args() in
 * kernel/klog_pack.c its two parts, the fast packing inline and the full
 * walk out of line, so that the call klog_printk() makes runs the whole
 * of its common packing without another call for an integer or a %s
 * string: the plan (klog_fmt.h) is walked with a chain of tests (no jump
 * table), a string is measured and copied in one pass (a word at a time
 * where it can be), and only a %p (the pointer hash) or an extension
 * formatted at the call (snprintf()) leave for a function of
 * kernel/klog_pack.c. A call whose arguments have the classes the
 * format's conversions take (made once with the plan:
 * klog_pack_plan_ops()) stores each integer with no test of its class
 * or of the room left, and copies a %s without a precision with no test
 * but its address's; any other call takes the full walk, which makes
 * the same bytes. Not for use outside the core.
 */
#ifndef _KERNEL_KLOG_PACK_H
#define _KERNEL_KLOG_PACK_H

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/klog_args.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <asm/word-at-a-time.h>

#include "klog_fmt.h"

static_assert(sizeof(struct klog_fmt_plan) <=
	      sizeof(((struct klog_args_plan *)0)->p));
static_assert(KF_CLS_U32 == KLOG_ACLS_U32 && KF_CLS_U64 == KLOG_ACLS_U64 &&
	      KF_CLS_PTR == KLOG_ACLS_PTR);

/* How the fast packing records an argument (klog_args_plan.op). */
#define KLOG_PACK_OP_U32	0	/* tag and 4 bytes */
#define KLOG_PACK_OP_U64	1	/* tag and 8 bytes */
#define KLOG_PACK_OP_STR	2	/* a %s with no precision */
#define KLOG_PACK_OP_ARG	3	/* klog_pack_arg(): the rest */

static inline const struct klog_fmt_plan *
klog_plan(const struct klog_args_plan *plan)
{
	return (const struct klog_fmt_plan *)plan->p;
}

/*
 * Where the block is being written. @keep: bytes left unused by a string
 * or a formatted extension, for the fixed parts of the arguments after
 * it (at most 9 bytes each), so that only a string is ever cut, never an
 * argument refused.
 */
struct klog_pack {
	u8	*p, *end;
	u8	flags;
	size_t	keep;
};

/*
 * Out of line (kernel/klog_pack.c): the rare, heavier arguments. Their
 * callers below pass a copy of the packing state, so that the state of
 * the walk itself never leaves registers.
 */
int klog_pack_text(struct klog_pack *k, const struct klog_fmt_plan *fp,
		   const char *fmt, unsigned int i, int star0, int star1,
		   void *ptr);
int klog_pack_hash(struct klog_pack *k, const void *ptr);

static __always_inline int klog_pack_val(struct klog_pack *k, u8 tag, u64 v)
{
	unsigned int n = tag == KLOG_ARG_U32 ? 4 : 8;

	if (unlikely(k->end - k->p < 1 + n))
		return -ENOSPC;
	k->p[0] = tag;
	if (n == 4)
		put_unaligned((u32)v, (u32 *)(k->p + 1));
	else
		put_unaligned(v, (u64 *)(k->p + 1));
	k->p += 1 + n;
	return 0;
}

/*
 * Room a string or a text, argument @i of @n, leaves for the fixed parts
 * of the arguments after it.
 */
static __always_inline size_t klog_pack_keep(unsigned int n, unsigned int i)
{
	return 9 * (n - i - 1);
}

/* Room for the bytes of a string or a text after its tag and head. */
static __always_inline size_t klog_pack_room(const struct klog_pack *k)
{
	size_t room = k->end - k->p - 1 - sizeof(struct klog_args_str);

	return room > k->keep ? room - k->keep : 0;
}

/* The head of a string or text, after its bytes are in place. */
static __always_inline void klog_pack_head(struct klog_pack *k, u8 tag,
					   size_t len, size_t copied)
{
	struct klog_args_str sh = { .len = len, .copied = copied };

	if (copied < len)
		k->flags |= KLOG_ARGS_F_CUT;
	k->p[0] = tag;
	memcpy(k->p + 1, &sh, sizeof(sh));
	k->p += 1 + sizeof(sh) + copied;
}

/* A string of @len bytes at @s, a constant of ours; copy what fits. */
static __always_inline int klog_pack_str(struct klog_pack *k, u8 tag,
					 const char *s, size_t len)
{
	size_t copied;

	if (unlikely(k->end - k->p < 1 + (long)sizeof(struct klog_args_str)))
		return -ENOSPC;
	len = min_t(size_t, len, KLOG_ARGS_STR_SCAN);
	copied = min3(len, klog_pack_room(k), (size_t)KLOG_ARGS_COPY_MAX);
	memcpy(k->p + 1 + sizeof(struct klog_args_str), s, copied);
	klog_pack_head(k, tag, len, copied);
	return 0;
}

/*
 * Copy the string at @s to @dst up to its NUL or @lim bytes; return the
 * bytes copied. Where unaligned loads are cheap, a word at a time, as
 * strscpy() does: a word is read only where all of it lies in the page
 * of its first byte, so never from a page the string does not reach
 * (read_word_at_a_time() tells KASAN of the first byte only); the bytes
 * of the last word past the NUL are stored as zeroes, and @dst is not
 * written past @lim.
 */
static __always_inline size_t klog_pack_copy_cstr(u8 *dst, const char *s,
						  size_t lim)
{
	size_t c = 0;
	char ch;

	if (IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS)) {
		const struct word_at_a_time zc = WORD_AT_A_TIME_CONSTANTS;
		unsigned long w, data;

		while (c + sizeof(w) <= lim &&
		       offset_in_page(s + c) <= PAGE_SIZE - sizeof(w)) {
			w = read_word_at_a_time(s + c);
			if (has_zero(w, &data, &zc)) {
				data = prep_zero_mask(w, data, &zc);
				data = create_zero_mask(data);
				put_unaligned(w & zero_bytemask(data),
					      (unsigned long *)(dst + c));
				return c + find_zero(data);
			}
			put_unaligned(w, (unsigned long *)(dst + c));
			c += sizeof(w);
		}
	}
	while (c < lim && (ch = s[c]) != '\0')
		dst[c++] = ch;
	return c;
}

/*
 * A %s string at @s, read as vsnprintf() reads it: up to its NUL or
 * @scan bytes. Measured and copied in one pass while it fits; a string
 * longer than the room is measured on (strnlen()) past what is kept.
 */
static __always_inline int klog_pack_cstr(struct klog_pack *k, const char *s,
					  size_t scan)
{
	u8 *dst = k->p + 1 + sizeof(struct klog_args_str);
	size_t lim, c;

	if (unlikely(k->end - k->p < 1 + (long)sizeof(struct klog_args_str)))
		return -ENOSPC;
	lim = min3(scan, klog_pack_room(k), (size_t)KLOG_ARGS_COPY_MAX);
	c = klog_pack_copy_cstr(dst, s, lim);
	klog_pack_head(k, KLOG_ARG_STR,
		       c < lim ? c : c + strnlen(s + c, scan - c), c);
	return 0;
}

static __always_inline int klog_pack_hash_copy(struct klog_pack *k,
					       const void *ptr)
{
	struct klog_pack t = *k;
	int ret = klog_pack_hash(&t, ptr);

	*k = t;
	return ret;
}

static __always_inline int klog_pack_text_copy(struct klog_pack *k,
					       const struct klog_fmt_plan *fp,
					       const char *fmt, unsigned int i,
					       const int *star, void *ptr)
{
	struct klog_pack t = *k;
	int ret = klog_pack_text(&t, fp, fmt, i, star[0], star[1], ptr);

	*k = t;
	return ret;
}

/*
 * Argument @i of @n, of class @cls, whose value the call passed as @v
 * (an integer of at most 4 bytes in its low 32 bits), as the plan says.
 * @star holds the last two integers (a '*' width and precision). The
 * common cases come first; a test each, not a switch (no jump table).
 */
static __always_inline int klog_pack_arg(struct klog_pack *k,
					 const struct klog_fmt_plan *fp,
					 const char *fmt, unsigned int i,
					 unsigned int n, unsigned int cls,
					 u64 v, int *star)
{
	unsigned int action = fp->action[i];
	void *ptr = (void *)(unsigned long)v;
	int prec;

	if (likely(action == KF_A_INT)) {
		star[1] = star[0];
		star[0] = (int)(u32)v;
		if (likely(cls == KLOG_ACLS_U32))
			return klog_pack_val(k, KLOG_ARG_U32, v);
		if (cls == KLOG_ACLS_U64)
			return klog_pack_val(k, KLOG_ARG_U64, v);
	}
	k->keep = klog_pack_keep(n, i);
	if (action == KF_A_INT)		/* a pointer for a number */
		return klog_pack_hash_copy(k, ptr);
	if (likely(action == KF_A_STR)) {
		if (unlikely(!ptr))
			return klog_pack_str(k, KLOG_ARG_STR, "(null)", 6);
		if (unlikely((unsigned long)ptr < PAGE_SIZE ||
			     IS_ERR_VALUE(ptr)))
			return klog_pack_str(k, KLOG_ARG_STR, "(efault)", 8);
		/* vsnprintf() reads no more than the precision */
		prec = fp->prec[i] == KF_PREC_STAR ?
		       clamp(star[0], 0, KF_PREC_MAX) : fp->prec[i];
		return klog_pack_cstr(k, ptr, prec >= 0 &&
				      prec < KLOG_ARGS_STR_SCAN ?
				      prec : KLOG_ARGS_STR_SCAN);
	}
	if (action == KF_A_HASH)
		return klog_pack_hash_copy(k, ptr);
	if (action == KF_A_RAW)
		return klog_pack_val(k, KLOG_ARG_PTR, (unsigned long)ptr);
	return klog_pack_text_copy(k, fp, fmt, i, star, ptr);
}

/*
 * The fast packing of @plan, made once with the plan: the classes a call
 * checked by __printf() passes, and an op per argument. Only a format
 * whose every argument is an integer or a %s with no precision is fast:
 * any other argument (a %p, a %s with a precision, an extension) takes
 * the full walk from the start, so that no call packs its first
 * arguments twice.
 */
static inline void klog_pack_plan_ops(struct klog_args_plan *plan)
{
	const struct klog_fmt_plan *fp = klog_plan(plan);
	unsigned int i;

	plan->classes = 0;
	plan->fast = !(fp->flags & KF_PLAN_BAD);
	for (i = 0; i < fp->nargs; i++) {
		plan->classes |= (u32)fp->cls[i] << (2 * i);
		if (fp->action[i] == KF_A_STR && fp->prec[i] == KF_PREC_NONE)
			plan->op[i] = KLOG_PACK_OP_STR;
		else if (fp->action[i] != KF_A_INT)
			plan->op[i] = KLOG_PACK_OP_ARG;
		else if (fp->cls[i] == KF_CLS_U64)
			plan->op[i] = KLOG_PACK_OP_U64;
		else
			plan->op[i] = KLOG_PACK_OP_U32;
		if (plan->op[i] == KLOG_PACK_OP_ARG)
			plan->fast = 0;
	}
}

/* The block's header, after its arguments: one store, not four. */
static __always_inline int klog_pack_end(u8 *buf, const struct klog_pack *k,
					 unsigned int nargs)
{
	struct klog_args_hdr hdr = {
		.version	= KLOG_ARGS_VERSION,
		.nargs		= nargs,
		.ptr_size	= sizeof(void *),
		.flags		= k->flags,
	};

	memcpy(buf, &hdr, sizeof(hdr));
	return k->p - buf;
}

/*
 * Whether a call may take klog_pack_fast(): its classes are the plan's
 * and every fixed part fits in @size (a string leaves room for the
 * arguments after it). The plan is not bad (plan->fast says so).
 */
static __always_inline bool klog_pack_fast_ok(const struct klog_args_plan *plan,
					      u32 classes, size_t size)
{
	return plan->fast && classes == plan->classes &&
	       size >= sizeof(struct klog_args_hdr) +
		       9 * klog_plan(plan)->nargs;
}

/*
 * The fast packing, when klog_pack_fast_ok(): an integer is two stores,
 * with no test of its class or of the room, and a %s with a readable
 * address goes straight to its copy. Any other argument is left to the
 * full walk (klog_pack_walk()): -EAGAIN, the block's bytes then being
 * garbage that the walk writes again. A fast plan has no other argument,
 * so that is only a %s whose address is NULL or an error.
 */
static __always_inline int klog_pack_fast(u8 *buf, size_t size,
					  const struct klog_args_plan *plan,
					  const u64 *args)
{
	struct klog_pack k = { buf + sizeof(struct klog_args_hdr), buf + size };
	unsigned int i, n = klog_plan(plan)->nargs;
	u8 *p = k.p;

	for (i = 0; i < n; i++) {
		u64 v = args[i];
		unsigned int op = plan->op[i];

		if (likely(op == KLOG_PACK_OP_U32)) {
			p[0] = KLOG_ARG_U32;
			put_unaligned((u32)v, (u32 *)(p + 1));
			p += 5;
		} else if (op == KLOG_PACK_OP_U64) {
			p[0] = KLOG_ARG_U64;
			put_unaligned(v, (u64 *)(p + 1));
			p += 9;
		} else if (op == KLOG_PACK_OP_STR &&
			   (unsigned long)v >= PAGE_SIZE &&
			   !IS_ERR_VALUE((unsigned long)v)) {
			k.p = p;
			k.keep = klog_pack_keep(n, i);
			klog_pack_cstr(&k, (const char *)(unsigned long)v,
				       KLOG_ARGS_STR_SCAN);
			p = k.p;
		} else {
			return -EAGAIN;
		}
	}
	k.p = p;
	return klog_pack_end(buf, &k, n);
}

/*
 * Every argument by its class and action: any call, any plan. Return: as
 * klog_args_apack().
 */
static __always_inline int klog_pack_walk(u8 *buf, size_t size,
					  const struct klog_args_plan *plan,
					  u32 classes, const u64 *args)
{
	const struct klog_fmt_plan *fp = klog_plan(plan);
	struct klog_pack k = { buf + sizeof(struct klog_args_hdr), buf + size };
	unsigned int i, n = fp->nargs;
	int star[2] = { 0, 0 };
	int ret = 0;

	if (unlikely(fp->flags & KF_PLAN_BAD))
		return -EINVAL;
	if (unlikely(size < sizeof(struct klog_args_hdr)))
		return -ENOSPC;
	for (i = 0; i < n && classes && !ret; i++, classes >>= 2)
		ret = klog_pack_arg(&k, fp, plan->fmt, i, n, classes & 3,
				    args[i], star);
	if (unlikely(ret))
		return ret;
	return klog_pack_end(buf, &k, i);
}

/**
 * klog_pack_block() - pack a call's arguments, the body of klog_args_apack()
 * @buf: the block
 * @size: its size
 * @plan: the site's plan
 * @classes: KLOG_ACLS_* of each argument, 2 bits each, the first lowest
 * @args: one u64 per argument (__KLOG_ARGV())
 *
 * The fast packing where it applies, else (or for an argument it leaves)
 * the full walk; both make the same bytes. A call klog_pack_fast_ok()
 * lets through has a plan that is not bad and room for the header, the
 * walk's first two refusals.
 *
 * Return: as klog_args_apack().
 */
static __always_inline int klog_pack_block(u8 *buf, size_t size,
					   const struct klog_args_plan *plan,
					   u32 classes, const u64 *args)
{
	int ret;

	if (likely(klog_pack_fast_ok(plan, classes, size))) {
		ret = klog_pack_fast(buf, size, plan, args);
		if (likely(ret != -EAGAIN))
			return ret;
	}
	return klog_pack_walk(buf, size, plan, classes, args);
}

#endif /* _KERNEL_KLOG_PACK_H */
