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
	((__klog_tc(x) == __KLOG_TC_PTR ||				\
	  __klog_tc(x) == __KLOG_TC_INT ||				\
	  __klog_tc(x) == __KLOG_TC_ENUM ||				\
	  __klog_tc(x) == __KLOG_TC_BOOL) && __klog_sz(x) <= 8)

#define __klog_arg_cls(x)						\
	(__klog_tc(x) == __KLOG_TC_PTR ? KLOG_ACLS_PTR :		\
	 __klog_sz(x) > 4 ? KLOG_ACLS_U64 : KLOG_ACLS_U32)

/* The value: a pointer through unsigned long, an integer as it is. */
#define __klog_arg_val(x)						\
	((u64)__builtin_choose_expr(__klog_tc(x) == __KLOG_TC_PTR,	\
				    (unsigned long)(x), (x)))

#define __klog_arg_check(x)						\
	static_assert(__klog_arg_ok(x), "klog: argument '" #x		\
		      "' is neither an integer nor a pointer: cast it")

/* Apply m to each argument; s() separates the results. */
#define __KLOG_SEP_COMMA()	,
#define __KLOG_SEP_SEMI()	;
#define __KLOG_M0(m, s)
#define __KLOG_M1(m, s, a)	m(a)
#define __KLOG_M2(m, s, a, ...)	m(a) s() __KLOG_M1(m, s, __VA_ARGS__)
#define __KLOG_M3(m, s, a, ...)	m(a) s() __KLOG_M2(m, s, __VA_ARGS__)
#define __KLOG_M4(m, s, a, ...)	m(a) s() __KLOG_M3(m, s, __VA_ARGS__)
#define __KLOG_M5(m, s, a, ...)	m(a) s() __KLOG_M4(m, s, __VA_ARGS__)
#define __KLOG_M6(m, s, a, ...)	m(a) s() __KLOG_M5(m, s, __VA_ARGS__)
#define __KLOG_M7(m, s, a, ...)	m(a) s() __KLOG_M6(m, s, __VA_ARGS__)
#define __KLOG_M8(m, s, a, ...)	m(a) s() __KLOG_M7(m, s, __VA_ARGS__)
#define __KLOG_M9(m, s, a, ...)	m(a) s() __KLOG_M8(m, s, __VA_ARGS__)
#define __KLOG_M10(m, s, a, ...) m(a) s() __KLOG_M9(m, s, __VA_ARGS__)
#define __KLOG_M11(m, s, a, ...) m(a) s() __KLOG_M10(m, s, __VA_ARGS__)
#define __KLOG_M12(m, s, a, ...) m(a) s() __KLOG_M11(m, s, __VA_ARGS__)
#define __KLOG_M13(m, s, a, ...) m(a) s() __KLOG_M12(m, s, __VA_ARGS__)
#define __KLOG_M14(m, s, a, ...) m(a) s() __KLOG_M13(m, s, __VA_ARGS__)
#define __KLOG_M15(m, s, a, ...) m(a) s() __KLOG_M14(m, s, __VA_ARGS__)
#define __KLOG_M16(m, s, a, ...) m(a) s() __KLOG_M15(m, s, __VA_ARGS__)
#define __KLOG_MX(m, s, ...)						\
	static_assert(0, "klog: more than 16 (KLOG_ARGS_MAX) arguments")

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
#define __KLOG_MAP(m, s, ...)						\
	__KLOG_CAT(__KLOG_M, __KLOG_NARGS(__VA_ARGS__))(m, s, ##__VA_ARGS__)

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
 * size, a pointer (or array, or function) as a pointer. Anything else
 * (struct, union, floating point, __int128) and more than KLOG_ARGS_MAX
 * arguments fail the build with a message that names the argument.
 *
 * Context: any, including NMI, when the plan has no KF_A_TEXT argument
 * (those call snprintf() for their conversion, as vsnprintf() would).
 * Return: the block's length, or -ENOSPC if @size cannot hold it.
 */
#define KLOG_ARGS_PACK(buf, size, plan, ...)				\
({									\
	__KLOG_MAP(__klog_arg_check, __KLOG_SEP_SEMI, ##__VA_ARGS__);	\
	static const u8 __klog_cls[] = {				\
		__KLOG_MAP(__klog_arg_cls, __KLOG_SEP_COMMA, ##__VA_ARGS__) \
	};								\
	const u64 __klog_vals[] = {					\
		__KLOG_MAP(__klog_arg_val, __KLOG_SEP_COMMA, ##__VA_ARGS__) \
	};								\
	klog_args_pack((buf), (size), (plan), __klog_cls, __klog_vals,	\
		       ARRAY_SIZE(__klog_vals));			\
})

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
		   const u8 *cls, const u64 *vals, unsigned int n);
int klog_args_format(char *buf, size_t size, const char *fmt,
		     const void *blk, size_t len);

#endif /* _LINUX_KLOG_ARGS_H */
