/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_format.h - the text of a recorded call, as vsnprintf() made it
 *
 * The one formatter of klog's binary arguments: it walks a call site's
 * format (klog_fmt.h) and the argument block the call recorded together,
 * and writes what vsnprintf() would have written at the call.
 *
 * Compiled twice: in the kernel (kernel/klog_format.c: klog_args_format()
 * and klog_record_format(), for text handlers) and in user space (the
 * collector library, tools/lib/klog/klog-format.c, built with -I on
 * this directory). Everything here is static and uses only the C library
 * subset both sides have: memcpy(), strlen() and integer arithmetic.
 *
 * It follows lib/vsprintf.c's vsnprintf() to the byte: the same
 * conversions, flags, widths and precisions (including '*', negative
 * widths meaning '-', negative precisions meaning 0), the same length
 * modifiers and their truncation and sign extension, "(null)" for a NULL
 * %s, the padding of %p, and the same stop at an invalid conversion. The
 * test table (lib/klog_format_cases.h) checks it against the kernel's own
 * vsnprintf().
 */
#ifndef _KLOG_FORMAT_H
#define _KLOG_FORMAT_H

#ifdef __KERNEL__
#include <linux/math64.h>
#endif

#include "klog_fmt.h"

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
