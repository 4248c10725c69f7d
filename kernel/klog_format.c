// SPDX-License-Identifier: GPL-2.0
/*
 * klog binary arguments, their interface: the plan, packing for any
 * caller, the text when read
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog binary arguments
 *
 * A printf-style call can record its arguments instead of formatting
 * them (the block is described in include/uapi/linux/klog_args.h):
 *
 * - Once per format, klog_args_plan_init() parses it (kernel/klog_fmt.h,
 *   which the collector library compiles too) and notes what each
 *   argument is for: a number (or a '*' width or precision), a %s string,
 *   a %p to hash, a %px, or an extension (%pS, %pI4, %pM, %pU, %pe, %pd,
 *   ...). Every klog_printk() site gets its plan so when the kernel or
 *   its module is loaded (kernel/klog_plans.c).
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
 *   the block together (kernel/klog_format.h, compiled by both) and
 *   produce what vsnprintf() would have produced.
 *
 * klog_printk() packs its arguments this way into a KLOG_KIND_ARGS record
 * (__klog_printk_args(), kernel/klog_pack.c), and klog_record_format()
 * gives text handlers the text.
 *
 * Why not trace_printk()'s vbin_printf() and bstr_printf(): both parse
 * the format at every call, vbin_printf() to lay the arguments out and
 * bstr_printf() again to print them, and vbin_printf() walks a va_list;
 * klog parses a site's format once, and a call walks only its plan.
 * ``make bench`` measures the difference (BENCHMARKS.md in the klog
 * repository: klog_printk() against trace_printk() of the same format).
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
#include <linux/minmax.h>
#include <linux/sprintf.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "klog_format.h"
#include "klog_pack.h"

/**
 * klog_args_plan_init() - parse a format once into its argument plan
 * @plan: the plan to fill
 * @fmt: the format; must live as long as @plan is used
 *
 * A conversion vsnprintf() refuses (%n, a float, an unknown letter, a
 * '%' at the end) ends the plan: the text stops there, as vsnprintf()'s
 * does, and the call never reaches vsnprintf()'s warning.
 *
 * Context: any (no allocation, no lock).
 * Return: 0, or -EINVAL if the format cannot be recorded in binary (more
 * than KLOG_ARGS_MAX arguments, or an extension conversion longer than
 * 23 characters); the caller then formats at the call as before.
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
 * @args: the arguments as klog_printk() stores them (__KLOG_ARGV()): one
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

/*
 * %pS and friends in the kernel: the kernel's own symbol printing. Only
 * for a symbol's extensions: a block that says SYM for another one (%ph,
 * %pV, %pd: no writer makes it, a corrupt buffer may) would have
 * snprintf() dereference the address; it prints in hex instead.
 */
static void klog_args_sym(void *priv, unsigned long long addr,
			  const char *ext, char *buf, size_t size)
{
	char fmt[8] = "%p";

	if (!ext[0] || !strchr("SsB", ext[0]))
		return;
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

/**
 * klog_record_format() - the text of a record, for handlers that want text
 * @rec: a record given to the handler's ->write() or ->trigger()
 * @buf: output, NUL-terminated when @size > 0
 * @size: its size; KLOG_TEXT_MAX holds any record's text
 *
 * A text record (KLOG_KIND_TEXT) is copied; an argument record
 * (KLOG_KIND_ARGS) is formatted with its site's format by
 * klog_args_format(), into the text vsnprintf() would have made at the
 * call, cut to KLOG_TEXT_MAX - 1 bytes as a text record is. Like
 * snprintf(), the text is cut to fit @size.
 *
 * Context: any, including hardirq and NMI (no allocation, no lock;
 * kallsyms lookups for %pS); call it while @rec is valid.
 * Return: the length of the whole text (at most KLOG_TEXT_MAX - 1), or
 * -EINVAL for a raw record or a malformed argument block.
 */
int klog_record_format(const struct klog_record *rec, char *buf, size_t size)
{
	size_t n;
	int ret;

	switch (rec->kind) {
	case KLOG_KIND_TEXT:
		if (size) {
			n = min_t(size_t, rec->len, size - 1);
			memcpy(buf, rec->payload, n);
			buf[n] = '\0';
		}
		return rec->len;
	case KLOG_KIND_ARGS:
		if (!rec->site->fmt)
			break;
		ret = klog_args_format(buf, min_t(size_t, size, KLOG_TEXT_MAX),
				       rec->site->fmt, rec->payload, rec->len);
		return ret < 0 ? ret : min(ret, KLOG_TEXT_MAX - 1);
	}
	if (size)
		buf[0] = '\0';
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(klog_record_format);
