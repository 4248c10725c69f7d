/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_compat.h - the kernel library functions klog's shared headers use,
 * for user space
 *
 * kernel/klog_query.h, the one parser of klog's call-site queries, is
 * compiled in the kernel and in the collector. In the kernel it calls the
 * kernel's own library functions; in user space it includes this header,
 * which has the same functions with the kernel's names and semantics, as
 * tools/include/ serves kernel headers to tools:
 *
 *	isspace()		lib/ctype.c: the kernel's Latin-1 table
 *				(0xa0 is a blank, and a char is read as an
 *				unsigned char), in place of the C library's
 *	string_escape_mem()	lib/string_helpers.c (what "%*pE" prints)
 *	string_unescape()	lib/string_helpers.c, and its
 *	string_unescape_inplace()	<linux/string_helpers.h> wrapper
 *	kstrtouint()		lib/kstrtox.c
 *	match_wildcard()	lib/parser.c
 *
 * Each follows its kernel function step by step, so that a query reads
 * the same on both sides; the KUnit suite klog_sites checks the parser's
 * results in the kernel, the collector's host checks in user space.
 * Include it after the C library's headers: its isspace() replaces
 * <ctype.h>'s for the rest of the file.
 */
#ifndef _KLOG_COMPAT_H
#define _KLOG_COMPAT_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- lib/ctype.c ------------------------------------------------------ */

/* _ctype[c] & _S: \t \n \v \f \r, ' ' and the Latin-1 no-break space. */
static inline int klog_compat_isspace(int c)
{
	unsigned char u = c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/* _ctype[c] & (_P|_U|_L|_D|_SP): ' ' to '~' and Latin-1's 0xa0 to 0xff. */
static inline bool klog_compat_isprint(unsigned char c)
{
	return (c >= ' ' && c <= '~') || c >= 0xa0;
}

#undef isspace
#define isspace(c)	klog_compat_isspace(c)

/* ---- lib/string_helpers.c: string_escape_mem() ----------------------- */

#define ESCAPE_SPACE		0x01
#define ESCAPE_SPECIAL		0x02
#define ESCAPE_NULL		0x04
#define ESCAPE_OCTAL		0x08
#define ESCAPE_ANY		\
	(ESCAPE_SPACE | ESCAPE_OCTAL | ESCAPE_SPECIAL | ESCAPE_NULL)
#define ESCAPE_NP		0x10
#define ESCAPE_ANY_NP		(ESCAPE_ANY | ESCAPE_NP)
#define ESCAPE_HEX		0x20
#define ESCAPE_NA		0x40
#define ESCAPE_NAP		0x80
#define ESCAPE_APPEND		0x100

/* Store @n bytes of @s at *@dst while they are before @end; count all. */
static inline void klog_compat_put(char **dst, char *end, const char *s,
				   int n)
{
	int i;

	for (i = 0; i < n; i++, (*dst)++)
		if (*dst < end)
			**dst = s[i];
}

/*
 * string_escape_mem() - escape @isz bytes of @src into @dst
 * @src: the bytes
 * @isz: their number
 * @dst: the output, @osz bytes; not NUL-terminated
 * @osz: its size
 * @flags: ESCAPE_* flags
 * @only: if not NULL or empty, escape only these bytes (see the kernel's)
 *
 * Return: the length of the whole output, which may exceed @osz.
 */
static inline int string_escape_mem(const char *src, size_t isz, char *dst,
				    size_t osz, unsigned int flags,
				    const char *only)
{
	static const char space_from[] = "\n\r\t\v\f", space_to[] = "nrtvf";
	static const char special_from[] = "\\\a\033\"";
	static const char special_to[] = "\\ae\"";
	static const char hex[] = "0123456789abcdef";
	bool is_dict = only && *only;
	bool is_append = flags & ESCAPE_APPEND;
	char *p = dst, *end = dst + osz;
	const char *at;
	char esc[4];

	while (isz--) {
		unsigned char c = *src++;
		bool in_dict = is_dict && strchr(only, c);
		bool pass = false;

		if (!(is_append || in_dict) && is_dict)
			pass = true;
		else if (!(is_append && in_dict) && c <= 0x7f &&
			 klog_compat_isprint(c) && (flags & ESCAPE_NAP))
			pass = true;
		else if (!(is_append && in_dict) && klog_compat_isprint(c) &&
			 (flags & ESCAPE_NP))
			pass = true;
		else if (!(is_append && in_dict) && c <= 0x7f &&
			 (flags & ESCAPE_NA))
			pass = true;
		if (pass) {
			klog_compat_put(&p, end, (const char *)&c, 1);
			continue;
		}
		esc[0] = '\\';
		at = c ? strchr(space_from, c) : NULL;
		if ((flags & ESCAPE_SPACE) && at) {
			esc[1] = space_to[at - space_from];
			klog_compat_put(&p, end, esc, 2);
			continue;
		}
		at = c ? strchr(special_from, c) : NULL;
		if ((flags & ESCAPE_SPECIAL) && at) {
			esc[1] = special_to[at - special_from];
			klog_compat_put(&p, end, esc, 2);
			continue;
		}
		if ((flags & ESCAPE_NULL) && !c) {
			esc[1] = '0';
			klog_compat_put(&p, end, esc, 2);
			continue;
		}
		if (flags & ESCAPE_OCTAL) {
			esc[1] = '0' + ((c >> 6) & 7);
			esc[2] = '0' + ((c >> 3) & 7);
			esc[3] = '0' + (c & 7);
			klog_compat_put(&p, end, esc, 4);
			continue;
		}
		if (flags & ESCAPE_HEX) {
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			klog_compat_put(&p, end, esc, 4);
			continue;
		}
		klog_compat_put(&p, end, (const char *)&c, 1);
	}
	return p - dst;
}

/* ---- lib/string_helpers.c: string_unescape() ------------------------- */

#define UNESCAPE_SPACE		0x01
#define UNESCAPE_OCTAL		0x02
#define UNESCAPE_HEX		0x04
#define UNESCAPE_SPECIAL	0x08
#define UNESCAPE_ANY		\
	(UNESCAPE_SPACE | UNESCAPE_OCTAL | UNESCAPE_HEX | UNESCAPE_SPECIAL)

/* hex_to_bin(): the value of a hex digit, or -1. */
static inline int klog_compat_hex(char ch)
{
	unsigned char c = ch | 0x20;

	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The escape at *@src (after its backslash) into *@dst, if @flags take it. */
static inline bool klog_compat_unescape_one(char **src, char **dst,
					    unsigned int flags)
{
	static const char space_from[] = "nrtvf", space_to[] = "\n\r\t\v\f";
	static const char special_from[] = "\"\\ae";
	static const char special_to[] = "\"\\\a\033";
	char *q = *src;
	const char *at = *q ? strchr(space_from, *q) : NULL;
	unsigned char num;
	int digit;

	if ((flags & UNESCAPE_SPACE) && at) {
		*(*dst)++ = space_to[at - space_from];
		*src = q + 1;
		return true;
	}
	if ((flags & UNESCAPE_OCTAL) && *q >= '0' && *q <= '7') {
		num = *q++ & 7;
		while (num < 32 && *q >= '0' && *q <= '7' && q - *src < 3)
			num = (num << 3) + (*q++ & 7);
		*(*dst)++ = num;
		*src = q;
		return true;
	}
	if ((flags & UNESCAPE_HEX) && *q == 'x' &&
	    klog_compat_hex(q[1]) >= 0) {
		num = klog_compat_hex(q[1]);
		q += 2;
		digit = klog_compat_hex(*q);
		if (digit >= 0) {
			num = (num << 4) | digit;
			q++;
		}
		*(*dst)++ = num;
		*src = q;
		return true;
	}
	at = *q ? strchr(special_from, *q) : NULL;
	if ((flags & UNESCAPE_SPECIAL) && at) {
		*(*dst)++ = special_to[at - special_from];
		*src = q + 1;
		return true;
	}
	return false;
}

/*
 * string_unescape() - decode the escapes of @src into @dst
 * @src: the text, NUL-terminated
 * @dst: the output, NUL-terminated; may be @src
 * @size: its size, 0 for no limit
 * @flags: UNESCAPE_* flags; an escape they do not take stays as it is
 *
 * Return: the length of the output.
 */
static inline int string_unescape(char *src, char *dst, size_t size,
				  unsigned int flags)
{
	char *out = dst;

	if (!size)
		size = SIZE_MAX;
	while (*src && --size) {
		if (src[0] == '\\' && src[1] != '\0' && size > 1) {
			src++;
			size--;
			if (klog_compat_unescape_one(&src, &out, flags))
				continue;
			*out++ = '\\';
		}
		*out++ = *src++;
	}
	*out = '\0';
	return out - dst;
}

static inline int string_unescape_inplace(char *buf, unsigned int flags)
{
	return string_unescape(buf, buf, 0, flags);
}

/* ---- lib/kstrtox.c: kstrtouint() ------------------------------------- */

/*
 * kstrtouint() - a whole string as an unsigned int
 * @s: the string: an optional '+', the digits of @base (0: "0x" is
 *	hexadecimal, a leading '0' octal, else decimal; 16 may have "0x"),
 *	an optional newline, nothing else
 * @base: 0, or 2 to 16
 * @res: the value, set only on success
 *
 * Return: 0, -ERANGE when the value is larger than UINT_MAX, -EINVAL when
 * @s is not such a string.
 */
static inline int kstrtouint(const char *s, unsigned int base,
			     unsigned int *res)
{
	unsigned long long v = 0;
	bool overflow = false;
	unsigned int val;
	int n = 0, d;

	if (*s == '+')
		s++;
	if (!base) {
		if (s[0] == '0' && (s[1] | 0x20) == 'x' &&
		    klog_compat_hex(s[2]) >= 0)
			base = 16;
		else
			base = s[0] == '0' ? 8 : 10;
	}
	if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (; (d = klog_compat_hex(*s)) >= 0 && (unsigned int)d < base;
	     s++, n++) {
		val = d;
		if ((v & (~0ULL << 60)) && v > (~0ULL - val) / base)
			overflow = true;
		v = v * base + val;
	}
	if (overflow)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

/* ---- lib/parser.c: match_wildcard() ---------------------------------- */

/*
 * match_wildcard() - does @str match @pattern, where '*' is any run and
 * '?' any one character?
 */
static inline bool match_wildcard(const char *pattern, const char *str)
{
	const char *s = str;
	const char *p = pattern;
	bool star = false;

	while (*s) {
		switch (*p) {
		case '?':
			s++;
			p++;
			break;
		case '*':
			star = true;
			str = s;
			if (!*++p)
				return true;
			pattern = p;
			break;
		default:
			if (*s == *p) {
				s++;
				p++;
			} else {
				if (!star)
					return false;
				str++;
				s = str;
				p = pattern;
			}
			break;
		}
	}
	if (*p == '*')
		++p;
	return !*p;
}

#endif /* _KLOG_COMPAT_H */
