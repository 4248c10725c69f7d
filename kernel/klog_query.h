/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_query.h - the one parser of klog's call-site queries
 *
 * Compiled twice: in the kernel (kernel/klog_control.c: the control
 * file, klog.query=, <module>.klog= and klog_query()) and in user space
 * (the tool's --sites and -e, tools/klog/klog-sitectl.c, built with -I
 * on this directory),
 * so that a query means the same on both sides. Everything here is
 * static inline. Nothing here prints: a bad query is described in a
 * struct klog_query_err, which the kernel logs with pr_err() and the
 * collector reports as a usage error.
 *
 * The steps the kernel has a library function for are the kernel's
 * functions: isspace(), string_escape_mem() (what "%*pE" prints),
 * kstrtouint(), string_unescape_inplace() and match_wildcard(). User space
 * gets the same functions, with the kernel's names and semantics, from
 * tools/lib/klog/klog_compat.h, as tools/include/ serves kernel headers to
 * tools (included by its path from here, the same in the kernel tree and
 * in the klog repository); beyond them both sides have snprintf(),
 * strcmp(), strchr(), strrchr(), strlen() and strstr().
 */

/**
 * DOC: klog queries
 *
 * A query selects call sites and changes their flags, in the grammar of
 * dynamic debug::
 *
 *	query    ::= match* flags
 *	match    ::= 'module' WORD | 'file' WORD | 'func' WORD |
 *		     'line' RANGE | 'format' WORD | 'id' RANGE
 *	RANGE    ::= N | N-M | N- | -M
 *	flags    ::= ('+' | '-' | '=') ('p' | '_')+
 *
 * A WORD is a run of characters without blanks or ``;``, or a string in
 * double quotes with C escapes. ``module``, ``file`` (the path relative
 * to the source tree, or its last component) and ``func`` take the
 * wildcards ``*`` and ``?``;
 * ``format`` matches a substring of the format (raw sites have none);
 * ``id`` selects by site id (what a collector saved, to put a state
 * back exactly).
 * Every match given must hold; each keyword at most once. ``+p`` enables,
 * ``-p`` disables, ``=p`` and ``=_`` set the flags. Queries are separated
 * by newlines or ``;``; ``#`` starts a comment up to the end of the line.
 *
 * A batch (one write, one boot parameter, one call of klog_query()) is
 * parsed whole first: if any query is bad, a message names it and what
 * was wrong, and nothing is changed. Then every query is applied in
 * order, under ``klog_mutex``. A query that selects no site is not an
 * error.
 *
 * The collector's QUERY (``klog --sites QUERY``, ``klog -e QUERY``) is
 * one query without its flags, read by this same parser.
 */
#ifndef _KLOG_QUERY_H
#define _KLOG_QUERY_H

#ifdef __KERNEL__
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kstrtox.h>
#include <linux/limits.h>
#include <linux/parser.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
/* The kernel's library functions, for user space (see above). */
#include "../tools/lib/klog/klog_compat.h"
#endif

/* Words in one query: six keyword-value pairs and the flags. */
#define KLOG_QUERY_WORDS	13

/* The flag 'p' (the kernel's KLOG_SITE_ENABLED). */
#define KLOG_QUERY_P		0x1

/* How much of a word a message shows, and its room escaped (\ooo). */
#define KLOG_QUERY_SHOW		40
#define KLOG_QUERY_ESC		(4 * KLOG_QUERY_SHOW + 1)

/**
 * struct klog_query - one query, parsed
 * @module: wildcard pattern, or NULL for any module
 * @file: wildcard pattern for the path or its last component, or NULL
 * @func: wildcard pattern, or NULL
 * @format: substring of the format (escapes decoded), or NULL
 * @lines: the line RANGE as written, or NULL for any line
 * @first: first line of the range
 * @last: last line of the range (inclusive)
 * @ids: the id RANGE as written, or NULL for any id
 * @first_id: first id of the range
 * @last_id: last id of the range (inclusive)
 * @op: '+', '-' or '='; 0 for a query without flags
 * @flags: KLOG_QUERY_P or 0
 *
 * The strings point into the text the query was split from.
 */
struct klog_query {
	const char	*module;
	const char	*file;
	const char	*func;
	const char	*format;
	const char	*lines;
	unsigned int	first;
	unsigned int	last;
	const char	*ids;
	unsigned int	first_id;
	unsigned int	last_id;
	char		op;
	unsigned int	flags;
};

/**
 * struct klog_query_err - what was wrong with a query
 * @msg: the message, without where the query came from or its number
 * @esc: room for the (at most two) words the message shows, escaped
 */
struct klog_query_err {
	char	msg[2 * KLOG_QUERY_ESC + 128];
	char	esc[2][KLOG_QUERY_ESC];
};

/*
 * @len bytes of @s into slot @i of @e's room for words, as "%*pE" shows
 * them (string_escape_mem() with ESCAPE_ANY_NP: what isprint() takes is
 * itself, \n \r \t \v \f \a \e and \0 are written so, any other
 * byte as \ooo). At most KLOG_QUERY_SHOW bytes. Returns the slot.
 */
static inline const char *klog_q_esc(struct klog_query_err *e, int i,
				     const char *s, size_t len)
{
	int n = string_escape_mem(s, len, e->esc[i], KLOG_QUERY_ESC - 1,
				  ESCAPE_ANY_NP, NULL);

	e->esc[i][n < KLOG_QUERY_ESC ? n : KLOG_QUERY_ESC - 1] = '\0';
	return e->esc[i];
}

/* The first KLOG_QUERY_SHOW bytes of @word, escaped into slot @i of @e. */
static inline const char *klog_q_word(struct klog_query_err *e, int i,
				      const char *word)
{
	size_t len = strlen(word);

	return klog_q_esc(e, i, word,
			  len < KLOG_QUERY_SHOW ? len : KLOG_QUERY_SHOW);
}

/**
 * klog_query_split() - cut the next query out of a text
 * @pos: where the text goes on; advanced past the query and what ended it
 * @words: room for @max words: the query's words, cut out of the text in
 *	place (NUL-terminated, a quoted word without its quotes)
 * @max: how many words a query may have
 * @nwords: set to the number of words (0 for an empty query or a comment)
 * @end: if not NULL, set to what ended the query: '\0' (the end of the
 *	text), '\n', ';' or '#' (a comment, up to the end of its line)
 * @e: the message, when the text is malformed
 *
 * Context: any; it only writes the text.
 * Return: 1 when a query (perhaps of no words) was read, 0 at the end of
 * the text, -EINVAL with a message in @e when the text is malformed.
 */
static inline int klog_query_split(char **pos, char **words, int max,
				   int *nwords, char *end,
				   struct klog_query_err *e)
{
	char *p = *pos, *start, c, ended = '\0';
	int n = 0;

	if (!*p)
		return 0;
	for (;;) {
		/* words end at any isspace(): skip the same between them */
		while (*p != '\n' && isspace(*p))
			p++;
		if (*p == '#') {
			ended = '#';
			while (*p && *p != '\n')
				p++;
		}
		if (!*p)
			break;
		if (*p == '\n' || *p == ';') {
			if (!ended)
				ended = *p;
			p++;
			break;
		}
		if (n == max) {
			snprintf(e->msg, sizeof(e->msg), "more than %d words",
				 max);
			return -EINVAL;
		}
		if (*p == '"') {
			start = ++p;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (!*p) {
				snprintf(e->msg, sizeof(e->msg),
					 "unterminated quote: \"%s",
					 klog_q_word(e, 0, start));
				return -EINVAL;
			}
			*p++ = '\0';
			if (*p && !isspace(*p) && *p != ';') {
				snprintf(e->msg, sizeof(e->msg),
					 "text right after the closing quote of \"%s\"",
					 klog_q_word(e, 0, start));
				return -EINVAL;
			}
			words[n++] = start;
			continue;
		}
		start = p;
		while (*p && !isspace(*p) && *p != ';' && *p != '"')
			p++;
		if (*p == '"') {
			snprintf(e->msg, sizeof(e->msg),
				 "quote inside a word: %s",
				 klog_q_word(e, 0, start));
			return -EINVAL;
		}
		c = *p;
		if (c)
			*p++ = '\0';
		words[n++] = start;
		if (c == '\n' || c == ';') {
			ended = c;
			break;
		}
	}
	*pos = p;
	*nwords = n;
	if (end)
		*end = ended;
	return 1;
}

/*
 * A RANGE (of lines or ids) into *@lo..*@hi, which hold 0..UINT_MAX. Split
 * in place at its '-', put back after, so that a value of any length is
 * read (leading zeros included). kstrtouint() takes one trailing newline,
 * which a quoted value may hold: refused here.
 */
static inline int klog_q_range(const char *kw, char *val,
			       unsigned int *lo, unsigned int *hi,
			       struct klog_query_err *e)
{
	char *last = strchr(val, '-');
	bool ok;

	if (strchr(val, '\n'))
		goto bad;
	if (!last) {
		if (kstrtouint(val, 10, lo))
			goto bad;
		*hi = *lo;
		return 0;
	}
	*last = '\0';
	ok = (*val || last[1]) &&
	     (!*val || !kstrtouint(val, 10, lo)) &&
	     (!last[1] || !kstrtouint(last + 1, 10, hi)) && *lo <= *hi;
	*last = '-';
	if (ok)
		return 0;
bad:
	snprintf(e->msg, sizeof(e->msg),
		 "bad %s range \"%s\" (N, N-M, N- or -M, N <= M)", kw,
		 klog_q_word(e, 0, val));
	return -EINVAL;
}

static inline int klog_q_flags(struct klog_query *q, const char *word,
			       struct klog_query_err *e)
{
	const char *c;

	if (!word[0] || !strchr("+-=", word[0])) {
		snprintf(e->msg, sizeof(e->msg),
			 "no flags at the end (+p, -p, =p or =_), found \"%s\"",
			 klog_q_word(e, 0, word));
		return -EINVAL;
	}
	q->op = word[0];
	if (!word[1]) {
		snprintf(e->msg, sizeof(e->msg), "no flag after '%c'", q->op);
		return -EINVAL;
	}
	for (c = word + 1; *c; c++) {
		if (*c == 'p') {
			q->flags |= KLOG_QUERY_P;
		} else if (*c != '_') {
			snprintf(e->msg, sizeof(e->msg),
				 "unknown flag \"%s\" in \"%s\"",
				 klog_q_esc(e, 0, c, 1),
				 klog_q_word(e, 1, word));
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * klog_query_parse() - the words of one query into a struct klog_query
 * @q: the query
 * @words: its words, as klog_query_split() cut them (changed: a
 *	``format`` value is unescaped in place)
 * @n: how many; at least 1 when @flags
 * @flags: the last word is the flags (a control query); false for the
 *	collector's QUERY, which only selects
 * @e: the message, when the query is bad
 *
 * Context: any.
 * Return: 0, or -EINVAL with a message in @e.
 */
static inline int klog_query_parse(struct klog_query *q, char **words,
				   int n, bool flags, struct klog_query_err *e)
{
	const char **field;
	char *kw, *val;
	int i, ret = 0;

	*q = (struct klog_query) { .last = UINT_MAX, .last_id = UINT_MAX };
	if (flags) {
		ret = klog_q_flags(q, n ? words[n - 1] : "", e);
		if (ret)
			return ret;
		n--;
	}
	for (i = 0; i < n; i += 2) {
		kw = words[i];
		if (i + 1 == n) {
			snprintf(e->msg, sizeof(e->msg),
				 "keyword \"%s\" has no value",
				 klog_q_word(e, 0, kw));
			return -EINVAL;
		}
		val = words[i + 1];
		if (!strcmp(kw, "module")) {
			field = &q->module;
		} else if (!strcmp(kw, "file")) {
			field = &q->file;
		} else if (!strcmp(kw, "func")) {
			field = &q->func;
		} else if (!strcmp(kw, "format")) {
			field = &q->format;
			string_unescape_inplace(val, UNESCAPE_SPACE |
						UNESCAPE_OCTAL |
						UNESCAPE_SPECIAL);
		} else if (!strcmp(kw, "line")) {
			field = &q->lines;
		} else if (!strcmp(kw, "id")) {
			field = &q->ids;
		} else {
			snprintf(e->msg, sizeof(e->msg),
				 "unknown keyword \"%s\" (module, file, func, line, format, id)",
				 klog_q_word(e, 0, kw));
			return -EINVAL;
		}
		if (*field) {
			snprintf(e->msg, sizeof(e->msg),
				 "keyword \"%s\" given twice", kw);
			return -EINVAL;
		}
		if (!*val) {
			snprintf(e->msg, sizeof(e->msg),
				 "empty value for \"%s\"", kw);
			return -EINVAL;
		}
		if (field == &q->lines)
			ret = klog_q_range(kw, val, &q->first, &q->last, e);
		else if (field == &q->ids)
			ret = klog_q_range(kw, val, &q->first_id, &q->last_id,
					   e);
		if (ret)
			return ret;
		*field = val;
	}
	return 0;
}

/**
 * klog_query_match() - does a query select a site?
 * @q: the query
 * @module: the site's module name
 * @file: its source file, as built
 * @func: its function
 * @fmt: its format, or NULL for a raw site
 * @line: its line
 * @id: its id
 *
 * Context: any.
 * Return: whether every selector of @q holds for the site.
 */
static inline bool klog_query_match(const struct klog_query *q,
				    const char *module, const char *file,
				    const char *func, const char *fmt,
				    unsigned int line, unsigned int id)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (q->module && !match_wildcard(q->module, module))
		return false;
	if (q->file && !match_wildcard(q->file, file) &&
	    !match_wildcard(q->file, base))
		return false;
	if (q->func && !match_wildcard(q->func, func))
		return false;
	if (q->format && (!fmt || !strstr(fmt, q->format)))
		return false;
	if (id < q->first_id || id > q->last_id)
		return false;
	return line >= q->first && line <= q->last;
}

#endif /* _KLOG_QUERY_H */
