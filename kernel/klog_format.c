// SPDX-License-Identifier: GPL-2.0
/*
 * klog binary arguments: the plan, the call's packing, the text when read
 */

/**
 * DOC: klog binary arguments
 *
 * A printf-style call can record its arguments instead of formatting
 * them (the block is described in include/uapi/linux/klog_args.h):
 *
 * - Once per format, klog_args_plan_init() walks it (kernel/klog_format.h,
 *   the walker the collector library compiles too) and notes what each
 *   argument is for: a number (or a '*' width or precision), a %s string,
 *   a %p to hash, a %px, or an extension (%pS, %pI4, %pM, %pU, %pe, %pd,
 *   ...).
 * - At the call, KLOG_ARGS_PACK() (include/linux/klog_args.h) gives
 *   klog_args_pack() each argument's class, fixed at compile time by its C
 *   type, and its value. The call walks the plan, never the format:
 *   integers are copied, strings copied with their length, %p hashed with
 *   ptr_to_hashval() (printk's hash: the same value %p prints). The
 *   extensions are formatted at the call, with snprintf() of their own
 *   conversion (flags, width and precision included), because what they
 *   point to may be gone when the record is read (trace_printk()'s
 *   vbin_printf() does the same), and so is %pS: the symbols may have
 *   changed by then (a module unloaded, another loaded at its address).
 * - When read, klog_args_format() (the kernel, for text handlers) or the
 *   collector library's klog_args_text() (user space) walk the format and
 *   the block together and produce what vsnprintf() would have produced.
 *
 * klog_printk() packs its arguments this way into a KLOG_KIND_ARGS record
 * (kernel/klog.c), and klog_record_format() gives text handlers the text.
 */

#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/klog_args.h>
#include <linux/mm.h>
#include <linux/sprintf.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "klog_pack.h"

/**
 * klog_args_plan_init() - parse a format once into its argument plan
 * @plan: the plan to fill
 * @fmt: the format; must live as long as @plan is used
 *
 * Context: any (no allocation, no lock).
 * Return: 0, or -EINVAL if the format cannot be recorded in binary (an
 * invalid conversion, more than KLOG_ARGS_MAX arguments, or an extension
 * conversion longer than 23 characters); the caller then formats at the
 * call as before.
 */
int klog_args_plan_init(struct klog_args_plan *plan, const char *fmt)
{
	int ret;

	memset(plan, 0, sizeof(*plan));	/* padding too: plans compare */
	plan->fmt = fmt;
	ret = klog_fmt_plan((struct klog_fmt_plan *)plan->p, fmt);
	klog_pack_plan_ops(plan);
	return ret;
}
EXPORT_SYMBOL_GPL(klog_args_plan_init);

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
		len = snprintf(k->p + head, room, spec, star1, star0, ptr);
	else if (fp->nstar[i] == 1)
		len = snprintf(k->p + head, room, spec, star0, ptr);
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

/**
 * klog_args_vpack() - klog_args_pack() with a va_list
 * @buf: the block
 * @size: its size
 * @plan: the site's plan
 * @classes: as for klog_args_pack()
 * @ap: the arguments; consumed (va_copy() them to use them again)
 *
 * Context: any; see KLOG_ARGS_PACK().
 * Return: as klog_args_pack().
 */
int klog_args_vpack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		    u32 classes, va_list ap)
{
	u64 args[KLOG_ARGS_MAX];
	unsigned int i;
	u32 c;

	/*
	 * Into klog_printk()'s array form, as the call's default argument
	 * promotions passed them: every argument the classes say was
	 * passed, and no more.
	 */
	for (i = 0, c = classes; i < KLOG_ARGS_MAX && (c & 3); i++, c >>= 2) {
		if ((c & 3) == KLOG_ACLS_U32)
			args[i] = va_arg(ap, unsigned int);
		else if ((c & 3) == KLOG_ACLS_U64)
			args[i] = va_arg(ap, u64);
		else
			args[i] = (unsigned long)va_arg(ap, void *);
	}
	return klog_args_apack(buf, size, plan, classes, args);
}
EXPORT_SYMBOL_GPL(klog_args_vpack);

/**
 * klog_args_apack() - klog_args_pack() with the arguments in an array
 * @buf: the block
 * @size: its size; KLOG_ARGS_BLOCK_MAX holds any call's block with no
 *	string cut before the 1023 bytes of text a call keeps
 * @plan: the site's plan
 * @classes: as for klog_args_pack()
 * @args: the arguments as klog_printk() stores them (__KLOG_VALS()): one
 *	u64 each, an integer of at most 4 bytes in the low 32 bits, a
 *	pointer as an unsigned long
 *
 * klog_printk() packs with this: no va_list to walk.
 *
 * Context: any; see KLOG_ARGS_PACK().
 * Return: as klog_args_pack().
 */
int klog_args_apack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		    u32 classes, const u64 *args)
{
	return klog_pack_block(buf, size, plan, classes, args);
}
EXPORT_SYMBOL_GPL(klog_args_apack);

/**
 * klog_args_pack() - the call's half of KLOG_ARGS_PACK()
 * @buf: the block
 * @size: its size
 * @plan: the site's plan
 * @classes: KLOG_ACLS_* of each argument, 2 bits each, the first lowest
 *	(a compile-time constant made by KLOG_ARGS_PACK()); 0 ends them
 * @...: the arguments, as the call passed them
 *
 * Arguments past the ones the format consumes are not recorded
 * (vsnprintf() ignores them too). A pointer passed for an integer
 * conversion is recorded hashed, never raw.
 *
 * Context: any; see KLOG_ARGS_PACK().
 * Return: the length of the block, -ENOSPC if @size is too small for
 * its fixed parts (strings are cut to fit and flagged KLOG_ARGS_F_CUT),
 * -EINVAL for a plan that cannot be recorded.
 */
int klog_args_pack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		   u32 classes, ...)
{
	va_list ap;
	int ret;

	va_start(ap, classes);
	ret = klog_args_vpack(buf, size, plan, classes, ap);
	va_end(ap);
	return ret;
}
EXPORT_SYMBOL_GPL(klog_args_pack);

/* %pS and friends in the kernel: the kernel's own symbol printing. */
static void klog_args_sym(void *priv, unsigned long long addr,
			  const char *ext, char *buf, size_t size)
{
	char fmt[8] = "%p";

	strscpy(fmt + 2, ext, sizeof(fmt) - 2);
	snprintf(buf, size, fmt, (void *)(unsigned long)addr);
}

/**
 * klog_args_format() - the text of a recorded call, for text handlers
 * @buf: output, NUL-terminated when @size > 0
 * @size: its size
 * @fmt: the site's format
 * @blk: the argument block
 * @len: its length
 *
 * Produces what vsnprintf(@buf, @size, @fmt, ...) of the call's
 * arguments produced, resolving %pS-family addresses with kallsyms.
 *
 * Context: any (no allocation, no lock; kallsyms lookups for %pS).
 * Return: the length of the whole text (as vsnprintf() returns it), or
 * -EINVAL if @blk is malformed or does not match @fmt.
 */
int klog_args_format(char *buf, size_t size, const char *fmt,
		     const void *blk, size_t len)
{
	return klog_fmt_format(buf, size, fmt, blk, len, klog_args_sym, NULL);
}
EXPORT_SYMBOL_GPL(klog_args_format);
