/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_fmt.h - a printf format parsed as vsnprintf() parses it
 *
 * One conversion at a time (klog_fmt_decode()), for the formatter
 * (klog_format.h), or a whole format into its argument plan
 * (klog_fmt_plan()): what each argument is for, made once per call site
 * so that a klog call never parses its format (kernel/klog_plans.c), and
 * walked by the packing at the call (kernel/klog_pack.h).
 *
 * Compiled in the kernel and, through klog_format.h, in user space (the
 * collector library, built with -I on this directory). Everything here
 * is static and uses only the C library subset both sides have: memset()
 * and integer arithmetic.
 *
 * It follows lib/vsprintf.c's format_decode() to the byte: the same flags,
 * widths and precisions (including '*', and their bit-field limits), the
 * same length modifiers (hh, h, l, ll/L, z, t), the same %p extension
 * letters, and the same stop at an invalid conversion.
 */
#ifndef _KLOG_FMT_H
#define _KLOG_FMT_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/klog_args.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/klog_args.h>
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif
#endif

/* Spec flags, as vsnprintf()'s. */
#define KF_SIGN		0x01
#define KF_LEFT		0x02
#define KF_PLUS		0x04
#define KF_SPACE	0x08
#define KF_ZEROPAD	0x10
#define KF_SMALL	0x20
#define KF_SPECIAL	0x40

/* Same limits as vsnprintf()'s struct printf_spec bit-fields. */
#define KF_WIDTH_MAX	((1 << 23) - 1)
#define KF_PREC_MAX	((1 << 15) - 1)

/* What one step of the walk found. */
enum klog_fmt_conv {
	KF_END,		/* end of the format */
	KF_LITERAL,	/* text to copy */
	KF_PERCENT,	/* %% */
	KF_CHAR,	/* %c */
	KF_STR,		/* %s */
	KF_PTR,		/* %p and its extension */
	KF_INT,		/* d i o u x X with a length modifier */
	KF_INVALID,	/* vsnprintf() stops here */
};

/* How a %p conversion is recorded (its extension decides). */
enum klog_fmt_pkind {
	KF_P_HASH,	/* %p: hashed at the call */
	KF_P_RAW,	/* %px: the raw value */
	KF_P_TEXT,	/* any extension, %pS included: formatted now */
};

/**
 * struct klog_fmt_spec - one decoded step of a format
 * @conv: enum klog_fmt_conv
 * @star_width: the width is the next argument ('*')
 * @star_prec: the precision is the next argument ('.*')
 * @qual: length modifier: 0, 'H' (hh), 'h', 'l', 'L' (ll), 'z', 't'
 * @flags: KF_* flags
 * @base: 8, 10 or 16
 * @width: field width, -1 for none (not yet set when @star_width)
 * @prec: precision, -1 for none (not yet set when @star_prec)
 * @len: bytes of the format this step covers (literal text, or the
 *	conversion from '%' through its last character, for %p through the
 *	end of its alphanumeric extension)
 * @ext: for KF_PTR, offset in the step of the extension (after 'p')
 */
struct klog_fmt_spec {
	unsigned char	conv;
	bool		star_width;
	bool		star_prec;
	char		qual;
	unsigned int	flags;
	unsigned int	base;
	int		width;
	int		prec;
	unsigned int	len;
	unsigned int	ext;
};

static inline bool klog_fmt_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool klog_fmt_isalnum(char c)
{
	return klog_fmt_isdigit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* Digits as vsnprintf()'s skip_atoi() reads them (int overflow wraps). */
static inline int klog_fmt_atoi(const char **s)
{
	unsigned int v = 0;

	while (klog_fmt_isdigit(**s))
		v = v * 10 + (unsigned int)(*((*s)++) - '0');
	return (int)v;
}

/* Store into a signed bit-field of @bits bits, as vsnprintf() does. */
static inline int klog_fmt_sbits(int v, int bits)
{
	unsigned int m = 1u << (bits - 1);
	unsigned int u = (unsigned int)v & ((m << 1) - 1);

	return (int)(u ^ m) - (int)m;
}

/**
 * klog_fmt_decode() - decode the next step of a format
 * @fmt: where the walk is; must not be at its end for a useful step
 * @spec: the step, filled in
 *
 * Return: @spec->len (0 at the end of the format).
 */
static inline unsigned int klog_fmt_decode(const char *fmt,
					   struct klog_fmt_spec *spec)
{
	const char *s = fmt;
	char q;

	memset(spec, 0, sizeof(*spec));
	spec->width = -1;
	spec->prec = -1;
	spec->base = 10;
	if (!*s) {
		spec->conv = KF_END;
		return 0;
	}
	if (*s != '%') {
		while (*s && *s != '%')
			s++;
		spec->conv = KF_LITERAL;
		spec->len = s - fmt;
		return spec->len;
	}
	for (;;) {
		switch (*++s) {
		case '-':
			spec->flags |= KF_LEFT;
			continue;
		case '+':
			spec->flags |= KF_PLUS;
			continue;
		case ' ':
			spec->flags |= KF_SPACE;
			continue;
		case '#':
			spec->flags |= KF_SPECIAL;
			continue;
		case '0':
			spec->flags |= KF_ZEROPAD;
			continue;
		}
		break;
	}
	if (klog_fmt_isdigit(*s)) {
		spec->width = klog_fmt_sbits(klog_fmt_atoi(&s), 24);
	} else if (*s == '*') {
		spec->star_width = true;
		s++;
	}
	if (*s == '.') {
		s++;
		if (klog_fmt_isdigit(*s)) {
			spec->prec = klog_fmt_sbits(klog_fmt_atoi(&s), 16);
			if (spec->prec < 0)
				spec->prec = 0;
		} else if (*s == '*') {
			spec->star_prec = true;
			s++;
		}
	}
	q = 0;
	if (*s == 'h' || *s == 'l' || *s == 'L' || *s == 'z' || *s == 't') {
		q = *s++;
		if (q == 'l' && *s == 'l') {
			q = 'L';
			s++;
		} else if (q == 'h' && *s == 'h') {
			q = 'H';
			s++;
		}
	}
	spec->qual = q;
	switch (*s) {
	case 'c':
		spec->conv = KF_CHAR;
		break;
	case 's':
		spec->conv = KF_STR;
		break;
	case '%':
		spec->conv = KF_PERCENT;
		break;
	case 'p':
		spec->conv = KF_PTR;
		spec->ext = s + 1 - fmt;
		while (klog_fmt_isalnum(s[1]))
			s++;
		break;
	case 'o':
		spec->conv = KF_INT;
		spec->base = 8;
		break;
	case 'x':
		spec->flags |= KF_SMALL;
		fallthrough;
	case 'X':
		spec->conv = KF_INT;
		spec->base = 16;
		break;
	case 'd':
	case 'i':
		spec->flags |= KF_SIGN;
		fallthrough;
	case 'u':
		spec->conv = KF_INT;
		break;
	default:
		/* %n, a float, an unknown letter or the end: stop there */
		spec->conv = KF_INVALID;
		spec->len = s - fmt;
		return spec->len;
	}
	spec->len = s + 1 - fmt;
	return spec->len;
}

/**
 * klog_fmt_pkind() - how a %p conversion's argument is recorded
 * @ext: the format after the 'p'
 *
 * Return: enum klog_fmt_pkind. %px is raw; a bare %p is hashed; every
 * extension is formatted at the call: those that read memory through the
 * pointer because it may be gone when the record is read, and %pS, %ps
 * and %pB because the symbol may be: a module unloaded and another
 * loaded at its address would make a later lookup name the wrong one.
 */
static inline int klog_fmt_pkind(const char *ext)
{
	if (!klog_fmt_isalnum(ext[0]))
		return KF_P_HASH;
	return ext[0] == 'x' ? KF_P_RAW : KF_P_TEXT;
}

/* ---- The argument plan (parsed once per format) ------------------- */

/* What the call does with argument i (klog_fmt_plan.action[i]). */
enum klog_fmt_action {
	KF_A_INT,	/* an integer, width or precision: by its C type */
	KF_A_STR,	/* %s: copy the string */
	KF_A_HASH,	/* %p: hash it */
	KF_A_RAW,	/* %px: the value */
	KF_A_TEXT,	/* %p extensions: format now */
};

/* klog_fmt_plan.flags */
#define KF_PLAN_BAD	0x1	/* cannot be recorded in binary */

/* Longest conversion a KF_A_TEXT argument may have, with its '%'. */
#define KF_SPEC_MAX	23

/**
 * struct klog_fmt_plan - what a format needs from each argument
 * @nargs: arguments the format consumes (widths and precisions too)
 * @flags: KF_PLAN_* flags; KF_PLAN_BAD when the format has more than
 *	KLOG_ARGS_MAX arguments or an extension longer than KF_SPEC_MAX (an
 *	invalid conversion ends the plan, as it ends vsnprintf()'s text)
 * @action: enum klog_fmt_action per argument
 * @nstar: for a KF_A_TEXT argument, how many of the arguments just
 *	before it are its '*' width and precision (0 to 2)
 * @spec_len: for KF_A_TEXT, the length of its conversion in the format
 * @spec_off: for KF_A_TEXT, the offset of its '%' in the format
 * @prec: for KF_A_STR, the precision: at most that many bytes of the
 *	string are read, as vsnprintf() reads them (it need not end in a
 *	NUL); KF_PREC_NONE, or KF_PREC_STAR when it is the argument just
 *	before the string
 * @cls: KF_CLS_* of the argument the conversion takes (its length
 *	modifier, with sizeof(long) of the machine that made the plan):
 *	the class a call checked by __printf() passes, which the kernel
 *	packs without testing it argument by argument
 */
struct klog_fmt_plan {
	unsigned char	nargs;
	unsigned char	flags;
	unsigned char	action[KLOG_ARGS_MAX];
	unsigned char	cls[KLOG_ARGS_MAX];
	unsigned char	nstar[KLOG_ARGS_MAX];
	unsigned char	spec_len[KLOG_ARGS_MAX];
	unsigned short	spec_off[KLOG_ARGS_MAX];
	short		prec[KLOG_ARGS_MAX];
};

#define KF_PREC_NONE	(-1)
#define KF_PREC_STAR	(-2)

/* An argument's class, as KLOG_ACLS_* of <linux/klog_args.h>. */
#define KF_CLS_U32	1	/* an integer of at most 4 bytes */
#define KF_CLS_U64	2	/* an integer of 8 bytes */
#define KF_CLS_PTR	3	/* a pointer */

static inline int klog_fmt_plan_arg(struct klog_fmt_plan *plan, int action,
				    int cls)
{
	if (plan->nargs >= KLOG_ARGS_MAX) {
		plan->flags |= KF_PLAN_BAD;
		return -1;
	}
	plan->action[plan->nargs] = action;
	plan->cls[plan->nargs] = cls;
	return plan->nargs++;
}

/* The class an integer conversion with length modifier @qual takes. */
static inline int klog_fmt_int_cls(char qual)
{
	if (qual == 'L')
		return KF_CLS_U64;
	if (qual == 'l' || qual == 'z' || qual == 't')
		return sizeof(long) == 8 ? KF_CLS_U64 : KF_CLS_U32;
	return KF_CLS_U32;
}

/**
 * klog_fmt_plan() - parse a format into its argument plan
 * @plan: the plan, filled in
 * @fmt: the format
 *
 * Return: 0, or -EINVAL when the plan is KF_PLAN_BAD.
 */
static inline int klog_fmt_plan(struct klog_fmt_plan *plan, const char *fmt)
{
	const char *s = fmt;
	struct klog_fmt_spec spec;
	int i;

	memset(plan, 0, sizeof(*plan));
	while (klog_fmt_decode(s, &spec) || spec.conv == KF_INVALID) {
		int nstar = spec.star_width + spec.star_prec;

		if (spec.conv == KF_INVALID)	/* the text stops there */
			break;
		if (spec.conv == KF_LITERAL || spec.conv == KF_PERCENT) {
			s += spec.len;
			continue;
		}
		while (nstar--)
			klog_fmt_plan_arg(plan, KF_A_INT, KF_CLS_U32);
		switch (spec.conv) {
		case KF_STR:
			i = klog_fmt_plan_arg(plan, KF_A_STR, KF_CLS_PTR);
			if (i >= 0)
				plan->prec[i] = spec.star_prec ? KF_PREC_STAR :
						spec.prec;
			break;
		case KF_PTR:
			switch (klog_fmt_pkind(s + spec.ext)) {
			case KF_P_HASH:
				klog_fmt_plan_arg(plan, KF_A_HASH, KF_CLS_PTR);
				break;
			case KF_P_RAW:
				klog_fmt_plan_arg(plan, KF_A_RAW, KF_CLS_PTR);
				break;
			default:
				i = klog_fmt_plan_arg(plan, KF_A_TEXT,
						      KF_CLS_PTR);
				if (i < 0)
					break;
				if (spec.len > KF_SPEC_MAX || s - fmt > 0xffff)
					plan->flags |= KF_PLAN_BAD;
				plan->nstar[i] = spec.star_width + spec.star_prec;
				plan->spec_len[i] = spec.len;
				plan->spec_off[i] = s - fmt;
			}
			break;
		default:	/* KF_CHAR, KF_INT */
			klog_fmt_plan_arg(plan, KF_A_INT, spec.conv == KF_INT ?
					  klog_fmt_int_cls(spec.qual) :
					  KF_CLS_U32);
		}
		s += spec.len;
	}
	return plan->flags & KF_PLAN_BAD ? -EINVAL : 0;
}

#endif /* _KLOG_FMT_H */
