// SPDX-License-Identifier: GPL-2.0
/*
 * klog binary arguments at the call: klog_printk()'s binary call, and the
 * packing's out-of-line parts
 *
 * A klog_printk() call whose site has an argument plan passes its
 * arguments as an array of u64 and their classes to __klog_printk_args(),
 * which takes the core's write path (kernel/klog_internal.h: a nesting
 * level and its buffer) and packs the arguments straight into that
 * buffer with klog_pack_fast() (kernel/klog_pack.h), inlined here: no
 * format parsed, no va_list walked, no call for an integer or a %s
 * string; a call the fast packing leaves takes the full walk out of
 * line. The two kinds of arguments that leave the inlined walk are
 * here: a %p (the pointer hash) and a %p extension formatted at the call.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
#include <linux/mm.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "klog_internal.h"
#include "klog_pack.h"

/* The core's buffer for a record holds any call's block. */
static_assert(KLOG_PAYLOAD_MAX >= KLOG_ARGS_BLOCK_MAX);

/*
 * A '*' width (@prec false) or precision as vsnprintf() stores it, but
 * without the WARN_ONCE() of its set_field_width() or set_precision()
 * for one out of range: nothing on the write path prints.
 */
static int klog_pack_star(int v, bool prec)
{
	if (prec)
		return v < S16_MIN || v > KF_PREC_MAX ?
		       clamp(v, 0, KF_PREC_MAX) : v;
	return v < -KF_WIDTH_MAX - 1 || v > KF_WIDTH_MAX ?
	       clamp(v, -KF_WIDTH_MAX, KF_WIDTH_MAX) : v;
}

/* An extension that dereferences: its own conversion, formatted now. */
int klog_pack_text(struct klog_pack *k, const struct klog_fmt_plan *fp,
		   const char *fmt, unsigned int i, int star0, int star1,
		   void *ptr)
{
	const size_t head = 1 + sizeof(struct klog_args_str);
	char spec[KF_SPEC_MAX + 1];
	size_t room;
	int len;

	if (k->end - k->p < (long)head + 1)
		return -ENOSPC;
	room = k->end - k->p - head;
	room = room > k->keep + 1 ? room - k->keep : 1;
	room = min_t(size_t, room, KLOG_ARGS_COPY_MAX + 1);
	memcpy(spec, fmt + fp->spec_off[i], fp->spec_len[i]);
	spec[fp->spec_len[i]] = '\0';
	/*
	 * The conversion is one "%...p<ext>" the plan cut out of the site's
	 * format, which __printf() checked; its '*'s take the width and
	 * precision the call passed just before the pointer (@star0 is the
	 * argument right before it, @star1 the one before that).
	 */
	if (fp->nstar[i] == 2)
		len = snprintf(k->p + head, room, spec,
			       klog_pack_star(star1, false),
			       klog_pack_star(star0, true), ptr);
	else if (fp->nstar[i] == 1)
		len = snprintf(k->p + head, room, spec,
			       klog_pack_star(star0, !!strstr(spec, ".*")), ptr);
	else
		len = snprintf(k->p + head, room, spec, ptr);
	len = min_t(int, len, KLOG_ARGS_STR_SCAN);
	klog_pack_head(k, KLOG_ARG_TEXT, len, min_t(size_t, len, room - 1));
	return 0;
}

/* %p: the value printk's %p prints (hashed unless NULL/ERR_PTR). */
int klog_pack_hash(struct klog_pack *k, const void *ptr)
{
	unsigned long h;

	if (IS_ERR_OR_NULL(ptr) || unlikely(no_hash_pointers))
		return klog_pack_val(k, KLOG_ARG_PTR, (unsigned long)ptr);
	if (ptr_to_hashval(ptr, &h) == 0)
		return klog_pack_val(k, KLOG_ARG_PTR, h);
	/* No hash key yet (early boot): what %p prints then. */
	return klog_pack_str(k, KLOG_ARG_TEXT, sizeof(ptr) == 8 ?
			     "(____ptrval____)" : "(ptrval)",
			     sizeof(ptr) == 8 ? 16 : 8);
}

/*
 * The full walk (kernel/klog_pack.h) for a call the fast packing leaves,
 * out of line: its state (the packing state, the '*' integers) then needs
 * no register or stack slot of the common call's.
 */
static noinline int klog_pack_walk_slow(u8 *buf,
					const struct klog_args_plan *plan,
					u32 classes, const u64 *args)
{
	return klog_pack_walk(buf, KLOG_ARGS_BLOCK_MAX, plan, classes, args);
}

/**
 * __klog_printk_args() - record a call's arguments and hand them on
 * @site: the call site, from klog_printk(); it has a plan
 * @classes: the arguments' classes (KLOG_ACLS_*, 2 bits each, made at
 *	compile time by klog_printk())
 * @args: the arguments, one u64 each (__KLOG_ARGV())
 *
 * Called by klog_printk() when a handler is registered and the site has
 * an argument plan; not for direct use. Packs the arguments into this
 * CPU's buffer for the next nesting level (klog_pack_fast(), inlined
 * here: the common packing is not a call of its own; any other call
 * takes the full walk, klog_pack_walk(), out of line) and gives the
 * KLOG_KIND_ARGS record to the handlers.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
void __klog_printk_args(struct klog_site *site, u32 classes, const u64 *args)
{
	const struct klog_args_plan *plan;
	u8 kind = KLOG_KIND_ARGS;
	char *buf = klog_write_begin();
	u32 flags = 0;
	int n;

	if (!buf)
		return;
	/*
	 * @site->plan was published (smp_store_release()) when its plan was
	 * made (kernel/klog_plans.c); read once, with preemption disabled:
	 * when the site's module goes, the pointer is cleared and the plan
	 * freed only after a grace period. NULL only for a call that passed
	 * its key as the site's module went.
	 */
	plan = READ_ONCE(site->plan);
	n = -EINVAL;
	if (likely(plan)) {
		n = -EAGAIN;
		if (likely(klog_pack_fast_ok(plan, classes,
					     KLOG_ARGS_BLOCK_MAX)))
			n = klog_pack_fast(buf, KLOG_ARGS_BLOCK_MAX, plan,
					   args);
		/* what it leaves, packed again from the start */
		if (unlikely(n == -EAGAIN))
			n = klog_pack_walk_slow(buf, plan, classes, args);
	}
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
	klog_write_end(site, buf, n, kind, flags, false);
}
EXPORT_SYMBOL_GPL(__klog_printk_args);
