/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_format.h - the one format walker of klog's binary arguments
 *
 * Compiled twice: in the kernel (kernel/klog_format.c: the per-site
 * argument plan and klog_args_format()) and in user space (the collector
 * library, tools/lib/klog/klog-format.c, built with -I on this
 * directory). Everything here is static and uses only the C library
 * subset both sides have: memcpy(), strlen() and integer arithmetic.
 *
 * It follows lib/vsprintf.c's vsnprintf() to the byte: the same
 * conversions, flags, widths and precisions (including '*', negative
 * widths meaning '-', negative precisions meaning 0), the same length
 * modifiers (hh, h, l, ll/L, z, t) and their truncation and sign
 * extension, "(null)" for a NULL %s, the padding of %p, and the same stop
 * at an invalid conversion. The test table (lib/klog_format_cases.h)
 * checks it against the kernel's own vsnprintf().
 *
 * It never parses a format at a klog call: the kernel parses a site's
 * format once into a plan (klog_fmt_plan()), and the call walks the plan.
 */
#ifndef _KLOG_FORMAT_H
#define _KLOG_FORMAT_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/math64.h>
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
 * @flags: KF_PLAN_* flags; KF_PLAN_BAD when the format has an invalid
 *	conversion before its end, more than KLOG_ARGS_MAX arguments, or
 *	an extension longer than KF_SPEC_MAX
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

		if (spec.conv == KF_INVALID) {
			plan->flags |= KF_PLAN_BAD;
			break;
		}
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

/* ---- Formatting a block when read ---------------------------------- */

/**
 * typedef klog_fmt_sym_fn - resolve a code address for %pS and friends
 * @priv: the caller's data
 * @addr: the recorded address
 * @ext: the conversion's extension ("S", "s", "B", "SR", ...)
 * @buf: where to write the text, NUL-terminated
 * @size: its size
 *
 * Writes what the kernel's sprint_symbol() (%pS, %pSR),
 * sprint_symbol_no_offset() (%ps) or sprint_backtrace() (%pB) writes.
 */
typedef void (*klog_fmt_sym_fn)(void *priv, unsigned long long addr,
				const char *ext, char *buf, size_t size);

/* Output as vsnprintf() writes it: count everything, store what fits. */
struct klog_fmt_out {
	char		*buf;
	size_t		size;	/* bytes that may be stored (no NUL) */
	size_t		pos;	/* bytes produced so far */
};

static inline void klog_fmt_put(struct klog_fmt_out *o, char c)
{
	if (o->pos < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

/*
 * @n copies of @c. Only what fits is stored, the rest is counted: a
 * width from a site's format or a '*' argument may be up to KF_WIDTH_MAX
 * (vsnprintf()'s own bound), and padding byte by byte past the buffer
 * would cost millions of steps per conversion for nothing.
 */
static inline void klog_fmt_fill(struct klog_fmt_out *o, char c, int n)
{
	while (n > 0 && o->pos < o->size) {
		o->buf[o->pos++] = c;
		n--;
	}
	if (n > 0)
		o->pos += n;
}

/*
 * Text of @len bytes of which @have are known, in a field as %s pads.
 *
 * A writer keeps the first @have bytes of a string and cuts the rest only
 * where the text is already past KLOG_ARGS_COPY_MAX (KLOG_TEXT_MAX - 1)
 * bytes, which no reader shows (include/linux/klog_args.h,
 * KLOG_ARGS_BLOCK_MAX): the unknown bytes are counted, not stored, and
 * nothing after them is stored either. A block cut before that point was
 * not written by klog_printk(); its unknown bytes would be in the text a
 * reader shows, so it is refused (-EINVAL) rather than printed with bytes
 * that were never in it.
 */
static inline int klog_fmt_string(struct klog_fmt_out *o, const char *s,
				  unsigned int len, unsigned int have,
				  const struct klog_fmt_spec *spec)
{
	unsigned int n = len, known, i;
	size_t at;

	if (spec->prec >= 0 && (unsigned int)spec->prec < n)
		n = spec->prec;
	if (!(spec->flags & KF_LEFT) && spec->width > (int)n)
		klog_fmt_fill(o, ' ', spec->width - n);
	known = have < n ? have : n;
	at = o->pos;
	for (i = 0; i < known && o->pos < o->size; i++)
		o->buf[o->pos++] = s[i];
	if (known < n) {
		/* Cut by the writer: fine only past any klog text. */
		if (at + known < KLOG_ARGS_COPY_MAX)
			return -EINVAL;
		if (o->size > at + known)
			o->size = at + known;
	}
	o->pos = at + n;	/* counted: what did not fit, or was cut */
	if ((spec->flags & KF_LEFT) && spec->width > (int)n)
		klog_fmt_fill(o, ' ', spec->width - n);
	return 0;
}

/* A number as vsnprintf()'s number() writes it. */
static inline void klog_fmt_number(struct klog_fmt_out *o,
				   unsigned long long num,
				   const struct klog_fmt_spec *spec)
{
	static const char digits[] = "0123456789ABCDEF";
	unsigned int flags = spec->flags;
	unsigned int base = spec->base;
	char tmp[24], sign = 0;
	char lc = flags & KF_SMALL ? 0x20 : 0;
	bool pfx = (flags & KF_SPECIAL) && base != 10;
	bool zero = num == 0;
	int width = spec->width, prec = spec->prec, i = 0;

	if (flags & KF_LEFT)
		flags &= ~KF_ZEROPAD;
	if (flags & KF_SIGN) {
		if ((long long)num < 0) {
			sign = '-';
			num = -num;
			width--;
		} else if (flags & KF_PLUS) {
			sign = '+';
			width--;
		} else if (flags & KF_SPACE) {
			sign = ' ';
			width--;
		}
	}
	if (pfx) {
		if (base == 16)
			width -= 2;
		else if (!zero)
			width--;
	}
	if (base == 10) {
		do {
#ifdef __KERNEL__
			tmp[i++] = digits[do_div(num, 10)];
#else
			tmp[i++] = digits[num % 10];
			num /= 10;
#endif
		} while (num);
	} else {
		unsigned int shift = base == 16 ? 4 : 3;

		do {
			tmp[i++] = digits[num & (base - 1)] | lc;
			num >>= shift;
		} while (num);
	}
	if (i > prec)
		prec = i;
	width -= prec;
	if (!(flags & (KF_ZEROPAD | KF_LEFT))) {
		klog_fmt_fill(o, ' ', width);
		width = 0;
	}
	if (sign)
		klog_fmt_put(o, sign);
	if (pfx) {
		if (base == 16 || !zero)
			klog_fmt_put(o, '0');
		if (base == 16)
			klog_fmt_put(o, 'X' | lc);
	}
	if (!(flags & KF_LEFT)) {
		klog_fmt_fill(o, flags & KF_ZEROPAD ? '0' : ' ', width);
		width = 0;
	}
	klog_fmt_fill(o, '0', prec - i);
	while (--i >= 0)
		klog_fmt_put(o, tmp[i]);
	klog_fmt_fill(o, ' ', width);
}

/* One argument of a block, as the reader takes it. */
struct klog_fmt_arg {
	int			tag;
	unsigned long long	val;
	const char		*str;
	unsigned int		len;
	unsigned int		copied;
};

struct klog_fmt_in {
	const unsigned char	*p, *end;
	unsigned int		left;	/* arguments not yet taken */
};

static inline int klog_fmt_next(struct klog_fmt_in *in, struct klog_fmt_arg *a)
{
	struct klog_args_str sh;
	unsigned int v32;

	memset(a, 0, sizeof(*a));
	if (!in->left || in->p >= in->end)
		return -EINVAL;
	in->left--;
	a->tag = *in->p++;
	switch (a->tag) {
	case KLOG_ARG_U32:
		if (in->end - in->p < 4)
			return -EINVAL;
		memcpy(&v32, in->p, 4);
		a->val = v32;
		in->p += 4;
		return 0;
	case KLOG_ARG_U64:
	case KLOG_ARG_PTR:
	case KLOG_ARG_SYM:
		if (in->end - in->p < 8)
			return -EINVAL;
		memcpy(&a->val, in->p, 8);
		in->p += 8;
		return 0;
	case KLOG_ARG_STR:
	case KLOG_ARG_TEXT:
		if (in->end - in->p < (long)sizeof(sh))
			return -EINVAL;
		memcpy(&sh, in->p, sizeof(sh));
		in->p += sizeof(sh);
		if (sh.copied > sh.len || in->end - in->p < sh.copied)
			return -EINVAL;
		a->str = (const char *)in->p;
		a->len = sh.len;
		a->copied = sh.copied;
		in->p += sh.copied;
		return 0;
	}
	return -EINVAL;
}

/* An integer argument as a '*' width or precision: an int. */
static inline int klog_fmt_star(struct klog_fmt_in *in, int *v)
{
	struct klog_fmt_arg a;

	if (klog_fmt_next(in, &a) || a.tag == KLOG_ARG_STR ||
	    a.tag == KLOG_ARG_TEXT)
		return -EINVAL;
	*v = (int)(unsigned int)a.val;
	return 0;
}

/* The value vsnprintf() takes with va_arg() for this length modifier. */
static inline unsigned long long klog_fmt_int(unsigned long long v,
					      const struct klog_fmt_spec *spec,
					      unsigned int ptr_size)
{
	unsigned int bits;
	bool sext = spec->flags & KF_SIGN;

	switch (spec->qual) {
	case 'H':
		bits = 8;
		break;
	case 'h':
		bits = 16;
		break;
	case 'L':
		bits = 64;
		break;
	case 't':
		sext = true;	/* va_arg(args, ptrdiff_t), even for %tu */
		fallthrough;
	case 'l':
	case 'z':
		bits = ptr_size * 8;
		break;
	default:
		bits = 32;
	}
	if (spec->conv == KF_CHAR) {
		bits = 8;
		sext = false;
	}
	if (bits < 64) {
		unsigned long long m = 1ULL << bits;

		v &= m - 1;
		if (sext && (v & (m >> 1)))
			v |= ~(m - 1);
	}
	return v;
}

/**
 * klog_fmt_format() - make the text of a recorded call
 * @buf: output; NUL-terminated when @size > 0, as by vsnprintf()
 * @size: its size
 * @fmt: the call site's format
 * @blk: the argument block (struct klog_args_hdr first)
 * @blk_len: its length
 * @sym: resolves %pS-family addresses; NULL prints them as "0x..." as
 *	the kernel does for an address it finds no symbol for
 * @priv: passed to @sym
 *
 * Return: the length of the whole text (as vsnprintf() returns it), or
 * -EINVAL if the block is malformed or does not match @fmt exactly:
 * arguments or bytes left after the format's last conversion, or a
 * string cut (copied < len) before KLOG_ARGS_COPY_MAX bytes of text,
 * which klog_printk() never writes (then @buf holds the text up to the
 * mismatch, and never a byte that was not in the block). Bytes past the
 * end of @buf, or past a cut string, are counted, not written: the time
 * a call takes is bounded by @size and the block, not by the widths.
 */
static inline int klog_fmt_format(char *buf, size_t size, const char *fmt,
				  const void *blk, size_t blk_len,
				  klog_fmt_sym_fn sym, void *priv)
{
	struct klog_fmt_out o = { buf, size ? size - 1 : 0, 0 };
	struct klog_fmt_in in;
	struct klog_args_hdr h;
	struct klog_fmt_spec spec;
	struct klog_fmt_arg a;
	const char *s = fmt;
	int ret = -EINVAL, w;
	char tmp[256];

	if (blk_len < sizeof(h))
		goto out;
	memcpy(&h, blk, sizeof(h));
	if (h.version != KLOG_ARGS_VERSION || h.nargs > KLOG_ARGS_MAX ||
	    (h.ptr_size != 4 && h.ptr_size != 8))
		goto out;
	in.p = (const unsigned char *)blk + sizeof(h);
	in.end = (const unsigned char *)blk + blk_len;
	in.left = h.nargs;

	while (klog_fmt_decode(s, &spec)) {
		if (spec.conv == KF_INVALID)
			break;
		if (spec.conv == KF_LITERAL) {
			for (w = 0; w < (int)spec.len; w++)
				klog_fmt_put(&o, s[w]);
			s += spec.len;
			continue;
		}
		if (spec.conv == KF_PERCENT) {
			klog_fmt_put(&o, '%');
			s += spec.len;
			continue;
		}
		if (spec.star_width) {
			if (klog_fmt_star(&in, &w))
				goto out;
			if (w > KF_WIDTH_MAX)
				w = KF_WIDTH_MAX;
			if (w < -KF_WIDTH_MAX)
				w = -KF_WIDTH_MAX;
			if (w < 0) {
				w = -w;
				spec.flags |= KF_LEFT;
			}
			spec.width = w;
		}
		if (spec.star_prec) {
			if (klog_fmt_star(&in, &w))
				goto out;
			spec.prec = w < 0 ? 0 : w > KF_PREC_MAX ? KF_PREC_MAX : w;
		}
		if (klog_fmt_next(&in, &a))
			goto out;
		switch (spec.conv) {
		case KF_CHAR:
			if (a.tag == KLOG_ARG_STR || a.tag == KLOG_ARG_TEXT)
				goto out;
			if (!(spec.flags & KF_LEFT))
				klog_fmt_fill(&o, ' ', spec.width - 1);
			klog_fmt_put(&o, (char)klog_fmt_int(a.val, &spec,
							    h.ptr_size));
			if (spec.flags & KF_LEFT)
				klog_fmt_fill(&o, ' ', spec.width - 1);
			break;
		case KF_INT:
			if (a.tag == KLOG_ARG_STR || a.tag == KLOG_ARG_TEXT)
				goto out;
			klog_fmt_number(&o, klog_fmt_int(a.val, &spec,
							 h.ptr_size), &spec);
			break;
		case KF_STR:
			if (a.tag != KLOG_ARG_STR ||
			    klog_fmt_string(&o, a.str, a.len, a.copied, &spec))
				goto out;
			break;
		case KF_PTR:
			switch (a.tag) {
			case KLOG_ARG_TEXT:
				/* formatted at the call, spec and all */
				spec.width = -1;
				spec.prec = -1;
				spec.flags = 0;
				if (klog_fmt_string(&o, a.str, a.len, a.copied,
						    &spec))
					goto out;
				break;
			case KLOG_ARG_PTR:
				/* vsnprintf()'s pointer_string() */
				spec.base = 16;
				spec.flags |= KF_SMALL;
				if (spec.width == -1) {
					spec.width = 2 * h.ptr_size;
					spec.flags |= KF_ZEROPAD;
				}
				if (h.ptr_size == 4)
					a.val &= 0xffffffffULL;
				klog_fmt_number(&o, a.val, &spec);
				break;
			case KLOG_ARG_SYM: {
				char ext[4] = { 0 };
				unsigned int n = 0;

				while (n < 3 && klog_fmt_isalnum(s[spec.ext + n])) {
					ext[n] = s[spec.ext + n];
					n++;
				}
				tmp[0] = 0;
				if (sym)
					sym(priv, a.val, ext, tmp, sizeof(tmp));
				if (!tmp[0]) {
					struct klog_fmt_out t = {
						tmp, sizeof(tmp) - 1, 0 };
					struct klog_fmt_spec hex = {
						.flags = KF_SMALL, .base = 16,
						.width = -1, .prec = -1 };

					klog_fmt_put(&t, '0');
					klog_fmt_put(&t, 'x');
					klog_fmt_number(&t, a.val, &hex);
					tmp[t.pos < sizeof(tmp) ? t.pos :
					    sizeof(tmp) - 1] = 0;
				}
				klog_fmt_string(&o, tmp, strlen(tmp),
						strlen(tmp), &spec);	/* whole */
				break;
			}
			default:
				goto out;
			}
			break;
		}
		s += spec.len;
	}
	/*
	 * The format took every argument and every byte: more arguments,
	 * or bytes after the last one, mean the block is not this format's
	 * (a site id reused, a foreign or corrupt file).
	 */
	if (in.left || in.p != in.end)
		goto out;
	ret = o.pos > 0x7fffffff ? 0x7fffffff : (int)o.pos;
out:
	if (size)
		buf[o.pos < o.size ? o.pos : o.size] = '\0';
	return ret;
}

#endif /* _KLOG_FORMAT_H */
