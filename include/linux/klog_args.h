/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_args.h - record a printf-style call's arguments in binary
 *
 * KLOG_ARGS_PACK() writes the arguments of a call into a block
 * (include/uapi/linux/klog_args.h) chosen by their C types at compile
 * time: integers by size, pointers as the site's argument plan says (the
 * format parsed once, by klog_args_plan_init()). Nothing parses the format
 * at the call. klog_args_format() makes the text vsnprintf() would have
 * made, when the block is read.
 *
 * Not yet used by klog_printk(): see "Binary arguments" in
 * Documentation/trace/klog.rst.
 */
#ifndef _LINUX_KLOG_ARGS_H
#define _LINUX_KLOG_ARGS_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <uapi/linux/klog_args.h>

/* An argument's class, fixed at compile time (KLOG_ARGS_PACK()). */
#define KLOG_ACLS_U32	1	/* integer of at most 4 bytes */
#define KLOG_ACLS_U64	2	/* integer of 8 bytes */
#define KLOG_ACLS_PTR	3	/* pointer (an array or function decays) */

/*
 * __builtin_classify_type() of an argument: arrays and functions decay
 * to pointers; char, short, bool and enum are integers.
 */
#define __KLOG_TC_INT		1
#define __KLOG_TC_ENUM		3
#define __KLOG_TC_BOOL		4
#define __KLOG_TC_PTR		5

#define __klog_tc(x)	__builtin_classify_type(x)
/* The promoted size (a bit-field or a short is an int). */
#define __klog_sz(x)	sizeof(1 ? (x) : 0)

#define __klog_arg_ok(x)						\
	(__klog_tc(x) == __KLOG_TC_PTR || __klog_tc(x) == __KLOG_TC_INT ||	\
	 __klog_tc(x) == __KLOG_TC_ENUM || __klog_tc(x) == __KLOG_TC_BOOL)

/*
 * The argument's class; a build error (naming the argument) when it is
 * neither an integer nor a pointer. The arguments are not evaluated.
 */
#define __klog_arg_cls(x)						\
	(sizeof(struct { static_assert(__klog_arg_ok(x), "klog: argument '" \
			 #x "' is neither an integer nor a pointer: cast it"); \
			 int __klog; }) * 0 +				\
	 sizeof(struct { static_assert(__klog_sz(x) <= 8, "klog: argument '" \
			 #x "' is wider than 64 bits"); int __klog; }) * 0 + \
	 (__klog_tc(x) == __KLOG_TC_PTR ? KLOG_ACLS_PTR :		\
	  __klog_sz(x) > 4 ? KLOG_ACLS_U64 : KLOG_ACLS_U32))

/* The classes of the arguments, 2 bits each, the first lowest. */
#define __KLOG_C0()		0U
#define __KLOG_C1(a)		((u32)__klog_arg_cls(a))
#define __KLOG_C2(a, ...)	(__KLOG_C1(a) | __KLOG_C1(__VA_ARGS__) << 2)
#define __KLOG_C3(a, ...)	(__KLOG_C1(a) | __KLOG_C2(__VA_ARGS__) << 2)
#define __KLOG_C4(a, ...)	(__KLOG_C1(a) | __KLOG_C3(__VA_ARGS__) << 2)
#define __KLOG_C5(a, ...)	(__KLOG_C1(a) | __KLOG_C4(__VA_ARGS__) << 2)
#define __KLOG_C6(a, ...)	(__KLOG_C1(a) | __KLOG_C5(__VA_ARGS__) << 2)
#define __KLOG_C7(a, ...)	(__KLOG_C1(a) | __KLOG_C6(__VA_ARGS__) << 2)
#define __KLOG_C8(a, ...)	(__KLOG_C1(a) | __KLOG_C7(__VA_ARGS__) << 2)
#define __KLOG_C9(a, ...)	(__KLOG_C1(a) | __KLOG_C8(__VA_ARGS__) << 2)
#define __KLOG_C10(a, ...)	(__KLOG_C1(a) | __KLOG_C9(__VA_ARGS__) << 2)
#define __KLOG_C11(a, ...)	(__KLOG_C1(a) | __KLOG_C10(__VA_ARGS__) << 2)
#define __KLOG_C12(a, ...)	(__KLOG_C1(a) | __KLOG_C11(__VA_ARGS__) << 2)
#define __KLOG_C13(a, ...)	(__KLOG_C1(a) | __KLOG_C12(__VA_ARGS__) << 2)
#define __KLOG_C14(a, ...)	(__KLOG_C1(a) | __KLOG_C13(__VA_ARGS__) << 2)
#define __KLOG_C15(a, ...)	(__KLOG_C1(a) | __KLOG_C14(__VA_ARGS__) << 2)
#define __KLOG_C16(a, ...)	(__KLOG_C1(a) | __KLOG_C15(__VA_ARGS__) << 2)
#define __KLOG_CX(...)							\
	((u32)sizeof(struct { static_assert(0,				\
		"klog: more than 16 (KLOG_ARGS_MAX) arguments"); int __klog; }))

/* Argument count, 0 to 16, or X for 17 to 48. */
#define __KLOG_NARGS(...)						\
	__KLOG_NARGS_(_, ##__VA_ARGS__,					\
		      X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,	\
		      X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,	\
		      16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,	\
		      2, 1, 0)
#define __KLOG_NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, \
		      a12, a13, a14, a15, a16, a17, a18, a19, a20, a21,	\
		      a22, a23, a24, a25, a26, a27, a28, a29, a30, a31,	\
		      a32, a33, a34, a35, a36, a37, a38, a39, a40, a41,	\
		      a42, a43, a44, a45, a46, a47, a48, n, ...) n
#define __KLOG_CAT(a, b)	__KLOG_CAT_(a, b)
#define __KLOG_CAT_(a, b)	a##b

/* The classes of all the arguments, as one constant. */
#define __KLOG_CLASSES(...)						\
	__KLOG_CAT(__KLOG_C, __KLOG_NARGS(__VA_ARGS__))(__VA_ARGS__)

struct klog_args_plan;

/**
 * KLOG_ARGS_PACK - record a call's arguments in binary
 * @buf: the block (u8 *)
 * @size: its size in bytes
 * @plan: the site's plan (klog_args_plan_init() of its format)
 * @...: the arguments, as for the format; each evaluated once
 *
 * Each argument is classified at compile time by its C type: an
 * integer (char to long long, enum, bool, bit-field) by its promoted
 * size, a pointer (or array, or function) as a pointer. The classes make
 * one constant, with which klog_args_pack() takes the arguments from its
 * variable argument list. Anything else (struct, union, floating point,
 * __int128) fails the build with a message that names the argument, and
 * so do more than KLOG_ARGS_MAX arguments.
 *
 * Context: any, including NMI, when the format has no %p extension that
 * dereferences (those are formatted at the call by snprintf(), as
 * vsnprintf() would).
 * Return: the block's length, or -ENOSPC if @size cannot hold it.
 */
#define KLOG_ARGS_PACK(buf, size, plan, ...)				\
	klog_args_pack((buf), (size), (plan),				\
		       __KLOG_CLASSES(__VA_ARGS__), ##__VA_ARGS__)

/**
 * struct klog_args_plan - a format's argument plan
 * @fmt: the format it was made from
 * @p: the plan (struct klog_fmt_plan of kernel/klog_format.h)
 *
 * Opaque but for its size: fill it with klog_args_plan_init().
 */
struct klog_args_plan {
	const char	*fmt;
	u8		p[2 + 5 * KLOG_ARGS_MAX] __aligned(2);
};

int klog_args_plan_init(struct klog_args_plan *plan, const char *fmt);
int klog_args_pack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		   u32 classes, ...);
int klog_args_format(char *buf, size_t size, const char *fmt,
		     const void *blk, size_t len);

#endif /* _LINUX_KLOG_ARGS_H */
