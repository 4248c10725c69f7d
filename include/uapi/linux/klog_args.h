/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * klog_args.h - klog's binary argument block
 *
 * A klog_printk() call records its arguments in binary instead of
 * formatting them at the call; the text is made when the record is read,
 * from the call site's format (the site table) and this block. This
 * header describes the block for people writing their own decoders: it
 * is the payload of a KLOG_KIND_ARGS record (KLOG_RELAY_ARGS in the
 * relay stream, <linux/klog_relay.h>); see "Binary arguments" in
 * Documentation/trace/klog.rst.
 *
 * All fields are in the byte order of the machine that wrote them, and
 * nothing is aligned: read every value with memcpy(). Version 1.
 *
 * Layout::
 *
 *   struct klog_args_hdr          4 bytes
 *   argument 0: tag (1 byte), value
 *   argument 1: tag (1 byte), value
 *   ...                           nargs arguments in the order of the call
 *
 * Values by tag:
 *
 * KLOG_ARG_U32: 4 bytes. An integer argument of at most 4 bytes, as the
 *	C default argument promotions pass it (a signed char -1 is
 *	0xffffffff). The conversion decides signedness and size (%hhd takes
 *	the low 8 bits and extends their sign, as vsnprintf() does).
 * KLOG_ARG_U64: 8 bytes. An integer argument of 8 bytes.
 * KLOG_ARG_PTR: 8 bytes. A pointer for %p or %px, printed as a number
 *	(zero-padded to 2 * ptr_size hex digits without a width). For %p
 *	it is already hashed with the kernel's pointer hash (the value %p
 *	would print); NULL and ERR_PTR() values are kept, as printk prints
 *	them unhashed. A raw address is only here for %px, which asks for
 *	one, or when the kernel runs with no_hash_pointers.
 * KLOG_ARG_SYM: 8 bytes. A code address for %pS, %ps, %pB (also with R),
 *	which the reader resolves with the kernel's symbols (the collector's
 *	root-only copy of /proc/kallsyms) as sprint_symbol() would. Only in
 *	collections made before klog formatted these at the call: klog now
 *	writes %pS and friends as KLOG_ARG_TEXT (a later lookup could name
 *	the symbol of a module loaded after the record was made at the
 *	same address). Readers still accept it; the kernel's
 *	klog_args_format() resolves it for %pS, %ps and %pB only and prints
 *	it for any other conversion as "0x" and lower-case hex digits.
 * KLOG_ARG_STR: struct klog_args_str, then @copied bytes. A %s string,
 *	copied at the call: @len is its length (strnlen() bounded by
 *	KLOG_ARGS_STR_SCAN and by the conversion's precision, which
 *	vsnprintf() does not read past either), @copied <= @len the bytes
 *	kept (no NUL; at
 *	most KLOG_ARGS_COPY_MAX, less when the block is full). The
 *	reader pads with @len, so widths are right even when the copy was
 *	cut; text past the copy is past the end of any klog text anyway.
 *	A NULL or bad pointer is recorded as the string vsnprintf() prints
 *	for it ("(null)", "(efault)").
 * KLOG_ARG_TEXT: struct klog_args_str, then @copied bytes. An extension
 *	that reads memory through the pointer (%pI4, %pM, %pU, %pe, %pV,
 *	%pd, %pK, %ph, ...: everything but the tags above), formatted at
 *	the call with its flags, width and precision; the reader copies it
 *	as it is. @len is the formatted length, saturated at
 *	KLOG_ARGS_STR_SCAN as a string's is. Also what %p prints before
 *	the kernel's pointer hash is ready (early boot): "(____ptrval____)"
 *	with 8-byte pointers, "(ptrval)" with 4-byte ones, for a %p and for
 *	a pointer passed for an integer conversion (below).
 *
 * Width and precision arguments ('*') are ordinary KLOG_ARG_U32 values.
 *
 * An argument whose C type does not fit its conversion (__printf()
 * warns at build time) is recorded by what the conversion wants:
 *
 * - A pointer passed for an integer conversion (d, i, o, u, x, X, c, or
 *   a '*') is recorded as a %p argument is: KLOG_ARG_PTR with the value
 *   %p would print, which the conversion prints as its integer type (a
 *   %d the low 32 bits of the hash). Before the hash is ready it is the
 *   KLOG_ARG_TEXT above, which a reader built on kernel/klog_format.h
 *   refuses for an integer conversion (-EINVAL: the record is not
 *   formatted).
 * - An integer passed for %s or a %p conversion is taken as a pointer:
 *   its value as an unsigned long (one of at most 4 bytes
 *   zero-extended). %p hashes it and %px keeps it (KLOG_ARG_PTR), and
 *   %s and the extensions (%pS included) read memory at it or look it
 *   up at the call, as vsnprintf() would (for %s, 0 is "(null)", a value below PAGE_SIZE or in the
 *   ERR_PTR() range "(efault)").
 */
#ifndef _UAPI_LINUX_KLOG_ARGS_H
#define _UAPI_LINUX_KLOG_ARGS_H

#include <linux/types.h>

#define KLOG_ARGS_VERSION	1

/* Most arguments one call can record. */
#define KLOG_ARGS_MAX		16

/* strnlen() bound of a %s argument: the recorded length saturates here. */
#define KLOG_ARGS_STR_SCAN	65535

/*
 * Most bytes copied of one string or formatted extension: a klog text is
 * at most 1023 bytes (KLOG_TEXT_MAX - 1), so more is never printed.
 */
#define KLOG_ARGS_COPY_MAX	1023

enum klog_arg_tag {
	KLOG_ARG_U32	= 1,
	KLOG_ARG_U64	= 2,
	KLOG_ARG_PTR	= 3,
	KLOG_ARG_SYM	= 4,
	KLOG_ARG_STR	= 5,
	KLOG_ARG_TEXT	= 6,
};

/*
 * klog_args_hdr.flags: KLOG_ARGS_F_CUT is set when any KLOG_ARG_STR or
 * KLOG_ARG_TEXT value has @copied < @len, whether its copy was cut at
 * KLOG_ARGS_COPY_MAX or to fit the block. It does not say whether the
 * text is cut: the length of the formatted text does.
 */
#define KLOG_ARGS_F_CUT		0x1

/**
 * struct klog_args_hdr - start of an argument block
 * @version: KLOG_ARGS_VERSION
 * @nargs: arguments that follow, at most KLOG_ARGS_MAX
 * @ptr_size: sizeof(void *) and sizeof(long) of the writer, 4 or 8: the
 *	size %lu, %zu, %td and %p take
 * @flags: KLOG_ARGS_F_* flags
 */
struct klog_args_hdr {
	__u8	version;
	__u8	nargs;
	__u8	ptr_size;
	__u8	flags;
};

/**
 * struct klog_args_str - head of a KLOG_ARG_STR or KLOG_ARG_TEXT value
 * @len: the full length of the string
 * @copied: bytes that follow, at most @len
 */
struct klog_args_str {
	__u16	len;
	__u16	copied;
};

#endif /* _UAPI_LINUX_KLOG_ARGS_H */
