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
 * klog_printk() records its arguments this way: see "Binary arguments"
 * in Documentation/trace/klog.rst.
 */
#ifndef _LINUX_KLOG_ARGS_H
#define _LINUX_KLOG_ARGS_H

#include <linux/build_bug.h>
#include <linux/kconfig.h>
#include <linux/stdarg.h>
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

#ifndef __CHECKER__
#define __klog_tc(x)	__builtin_classify_type(x)
#else
/* sparse has no __builtin_classify_type(); it makes no code anyway. */
#define __klog_tc(x)	(0 * sizeof(1 ? (x) : (x)) + __KLOG_TC_INT)
#endif
/* The promoted size (a bit-field or a short is an int). */
#define __klog_sz(x)	sizeof(1 ? (x) : (x))

#define __klog_arg_ok(x)						\
	(__klog_tc(x) == __KLOG_TC_PTR || __klog_tc(x) == __KLOG_TC_INT ||	\
	 __klog_tc(x) == __KLOG_TC_ENUM || __klog_tc(x) == __KLOG_TC_BOOL)

/*
 * The argument's class; a build error (naming the argument) when it is
 * neither an integer nor a pointer. The arguments are not evaluated.
 */
#define __klog_arg_cls(x)						\
	(sizeof(struct {						\
		static_assert(__klog_arg_ok(x), "klog: argument '" #x	\
			      "' is neither an integer nor a pointer: cast it"); \
		int __klog;						\
	}) * 0 +							\
	 sizeof(struct {						\
		static_assert(__klog_sz(x) <= 8, "klog: argument '" #x	\
			      "' is wider than 64 bits");		\
		int __klog;						\
	}) * 0 +							\
	 (__klog_tc(x) == __KLOG_TC_PTR ? KLOG_ACLS_PTR :		\
	  __klog_sz(x) > 4 ? KLOG_ACLS_U64 : KLOG_ACLS_U32))

/*
 * The classes of up to 16 arguments as one constant, 2 bits each, the
 * first lowest. The argument list is padded with __KLOG_NONE (class 0):
 * one before the arguments, so that a call with none has a list, and 17
 * after, so that every slot is filled and the 17th is an argument only
 * when there are too many.
 */
struct __klog_none;
#define __KLOG_NONE	((struct __klog_none *)0)
#define __klog_none_p(a)						\
	__builtin_types_compatible_p(typeof(1 ? (a) : (a)), struct __klog_none *)
/* The class checks come first: a struct argument's error names it. */
#define __klog_cls(a, i)						\
	((u32)(__klog_arg_cls(a) * !__klog_none_p(a)) << (2 * (i)))

#define __KLOG_CLASSES(...)						\
	__KLOG_CLS(__KLOG_NONE, ##__VA_ARGS__,				\
		   __KLOG_NONE, __KLOG_NONE, __KLOG_NONE, __KLOG_NONE,	\
		   __KLOG_NONE, __KLOG_NONE, __KLOG_NONE, __KLOG_NONE,	\
		   __KLOG_NONE, __KLOG_NONE, __KLOG_NONE, __KLOG_NONE,	\
		   __KLOG_NONE, __KLOG_NONE, __KLOG_NONE, __KLOG_NONE,	\
		   __KLOG_NONE)
#define __KLOG_CLS(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,	\
		   a12, a13, a14, a15, a16, a17, ...)			\
	(sizeof(struct {						\
		static_assert(__klog_none_p(a0) && __klog_none_p(a17),	\
			      "klog: more than 16 (KLOG_ARGS_MAX) arguments"); \
		int __klog;						\
	}) * 0 +							\
	 (__klog_cls(a1, 0) | __klog_cls(a2, 1) | __klog_cls(a3, 2) |	\
	  __klog_cls(a4, 3) | __klog_cls(a5, 4) | __klog_cls(a6, 5) |	\
	  __klog_cls(a7, 6) | __klog_cls(a8, 7) | __klog_cls(a9, 8) |	\
	  __klog_cls(a10, 9) | __klog_cls(a11, 10) | __klog_cls(a12, 11) | \
	  __klog_cls(a13, 12) | __klog_cls(a14, 13) | __klog_cls(a15, 14) | \
	  __klog_cls(a16, 15)))

/*
 * The arguments of a call as u64 values, for klog_args_apack(): a
 * compound literal of one u64 per argument passed (a call with none
 * passes one 0), so that a call stores no more than its arguments. Each
 * value holds the argument's bytes (at most 8: __KLOG_CLASSES() checks)
 * in its low bytes, so an integer of at most 4 bytes is in its low 32
 * bits and a pointer is its unsigned long. Each argument is evaluated
 * once. __KLOG_Vk() designates the first of the k arguments it is given
 * (of n in all) as element n - k: argument i is element i.
 */
#define __klog_val(x) ({						\
	typeof(1 ? (x) : (x)) __klog_v = (x);				\
	u64 __klog_u = 0;						\
									\
	__builtin_memcpy(&__klog_u, &__klog_v, sizeof(__klog_v));	\
	if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))				\
		__klog_u >>= 64 - 8 * sizeof(__klog_v);			\
	__klog_u;							\
})
/*
 * The number of arguments, 0 to 17 (17: too many, which __KLOG_CLASSES()
 * refuses with its own message; __KLOG_V17 exists so that it is the
 * message the build shows).
 */
#define __KLOG_NARGS(...)						\
	__KLOG_NARGS_(_, ##__VA_ARGS__, 17, 16, 15, 14, 13, 12, 11, 10,	\
		      9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __KLOG_NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,	\
		      a12, a13, a14, a15, a16, a17, n, ...) n
#define __KLOG_V0(n)							\
	[(n)] = 0
#define __KLOG_V1(n, a)						\
	[(n) - 1] = __klog_val(a)
#define __KLOG_V2(n, a, ...)						\
	[(n) - 2] = __klog_val(a), __KLOG_V1(n, __VA_ARGS__)
#define __KLOG_V3(n, a, ...)						\
	[(n) - 3] = __klog_val(a), __KLOG_V2(n, __VA_ARGS__)
#define __KLOG_V4(n, a, ...)						\
	[(n) - 4] = __klog_val(a), __KLOG_V3(n, __VA_ARGS__)
#define __KLOG_V5(n, a, ...)						\
	[(n) - 5] = __klog_val(a), __KLOG_V4(n, __VA_ARGS__)
#define __KLOG_V6(n, a, ...)						\
	[(n) - 6] = __klog_val(a), __KLOG_V5(n, __VA_ARGS__)
#define __KLOG_V7(n, a, ...)						\
	[(n) - 7] = __klog_val(a), __KLOG_V6(n, __VA_ARGS__)
#define __KLOG_V8(n, a, ...)						\
	[(n) - 8] = __klog_val(a), __KLOG_V7(n, __VA_ARGS__)
#define __KLOG_V9(n, a, ...)						\
	[(n) - 9] = __klog_val(a), __KLOG_V8(n, __VA_ARGS__)
#define __KLOG_V10(n, a, ...)						\
	[(n) - 10] = __klog_val(a), __KLOG_V9(n, __VA_ARGS__)
#define __KLOG_V11(n, a, ...)						\
	[(n) - 11] = __klog_val(a), __KLOG_V10(n, __VA_ARGS__)
#define __KLOG_V12(n, a, ...)						\
	[(n) - 12] = __klog_val(a), __KLOG_V11(n, __VA_ARGS__)
#define __KLOG_V13(n, a, ...)						\
	[(n) - 13] = __klog_val(a), __KLOG_V12(n, __VA_ARGS__)
#define __KLOG_V14(n, a, ...)						\
	[(n) - 14] = __klog_val(a), __KLOG_V13(n, __VA_ARGS__)
#define __KLOG_V15(n, a, ...)						\
	[(n) - 15] = __klog_val(a), __KLOG_V14(n, __VA_ARGS__)
#define __KLOG_V16(n, a, ...)						\
	[(n) - 16] = __klog_val(a), __KLOG_V15(n, __VA_ARGS__)
#define __KLOG_V17(n, a, ...)						\
	[(n) - 17] = __klog_val(a), __KLOG_V16(n, __VA_ARGS__)
#define __KLOG_ARGV(...)						\
	__KLOG_ARGV_(__KLOG_NARGS(__VA_ARGS__), ##__VA_ARGS__)
#define __KLOG_ARGV_(n, ...)	__KLOG_ARGV__(n, ##__VA_ARGS__)
#define __KLOG_ARGV__(n, ...)						\
	((const u64 []){ __KLOG_V##n(n, ##__VA_ARGS__) })

/*
 * The block klog_printk() records in: the header, the fixed part of
 * every argument (at most 9 bytes) and the 1023 bytes of text a call
 * keeps (KLOG_TEXT_MAX - 1), so that the strings of a call are cut, if
 * at all, only past those 1023 bytes (klog_args_apack() keeps room for
 * the arguments after a string).
 */
#define KLOG_ARGS_BLOCK_MAX						\
	(sizeof(struct klog_args_hdr) + 9 * KLOG_ARGS_MAX + KLOG_ARGS_COPY_MAX)

/**
 * KLOG_ARGS_PACK - record a call's arguments in binary
 * @buf: where the block goes
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
 * @classes: the classes (KLOG_ACLS_*, 2 bits each, the first lowest) of
 *	the arguments the format takes, as a call checked by __printf()
 *	passes them
 * @fast: a call whose classes are @classes is packed by @op alone: every
 *	argument is an integer or a %s with no precision
 * @op: per argument, how the fast packing records it (KLOG_PACK_OP_*
 *	of kernel/klog_pack.h)
 * @p: the plan (struct klog_fmt_plan of kernel/klog_format.h)
 *
 * Opaque but for its size: fill it with klog_args_plan_init().
 */
struct klog_args_plan {
	const char	*fmt;
	u32		classes;
	u8		fast;
	u8		op[KLOG_ARGS_MAX];
	u8		p[2 + 8 * KLOG_ARGS_MAX] __aligned(2);
};

int klog_args_plan_init(struct klog_args_plan *plan, const char *fmt);
int klog_args_pack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		   u32 classes, ...);
int klog_args_vpack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		    u32 classes, va_list ap);
int klog_args_apack(u8 *buf, size_t size, const struct klog_args_plan *plan,
		    u32 classes, const u64 *args);
int klog_args_format(char *buf, size_t size, const char *fmt,
		     const void *blk, size_t len);

#endif /* _LINUX_KLOG_ARGS_H */
