// SPDX-License-Identifier: GPL-2.0
/*
 * klog site control: the query language and /sys/kernel/debug/klog/control.
 *
 * Copyright (C) 2026 The klog authors
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
 * double quotes with C escapes. ``module``, ``file`` (the path as built,
 * or its last component) and ``func`` take the wildcards ``*`` and ``?``;
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
 */

#define pr_fmt(fmt) "klog: " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/klog.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/parser.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>

#include "klog_internal.h"

/* Largest write to the control file. */
#define KLOG_CONTROL_MAX	16384

/* Words in one query: six keyword-value pairs and the flags. */
#define KLOG_QUERY_WORDS	13

/* How much of a word a message shows (escaped, with %*pE). */
static int klog_wlen(const char *s)
{
	return min_t(size_t, strlen(s), 40);
}

struct klog_query {
	const char	*module;
	const char	*file;
	const char	*func;
	const char	*format;
	const char	*lines;		/* as written, for messages */
	unsigned int	first;		/* line range, inclusive */
	unsigned int	last;
	const char	*ids;		/* as written, for messages */
	unsigned int	first_id;	/* id range, inclusive */
	unsigned int	last_id;
	char		op;		/* '+', '-' or '=' */
	u32		flags;
};

/*
 * Cut the next query out of *@pos into @words. Returns 1 and advances
 * *@pos when a query (perhaps with no words) was read, 0 at the end of
 * the text, -EINVAL after a message when the text is malformed.
 */
static int klog_split_query(char **pos, char **words, int *nwords,
			    const char *origin, int qn)
{
	char *p = *pos, *start;
	int n = 0;
	char c;

	if (!*p)
		return 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '#')
			while (*p && *p != '\n')
				p++;
		if (!*p)
			break;
		if (*p == '\n' || *p == ';') {
			p++;
			break;
		}
		if (n == KLOG_QUERY_WORDS) {
			pr_err("%s: query %d: more than %d words\n", origin,
			       qn, KLOG_QUERY_WORDS);
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
				pr_err("%s: query %d: unterminated quote: \"%*pE\n",
				       origin, qn, klog_wlen(start), start);
				return -EINVAL;
			}
			*p++ = '\0';
			if (*p && !isspace(*p) && *p != ';') {
				pr_err("%s: query %d: text right after the closing quote of \"%*pE\"\n",
				       origin, qn, klog_wlen(start), start);
				return -EINVAL;
			}
			words[n++] = start;
			continue;
		}
		start = p;
		while (*p && !isspace(*p) && *p != ';' && *p != '"')
			p++;
		if (*p == '"') {
			pr_err("%s: query %d: quote inside a word: %*pE\n",
			       origin, qn, klog_wlen(start), start);
			return -EINVAL;
		}
		c = *p;
		if (c)
			*p++ = '\0';
		words[n++] = start;
		if (c == '\n' || c == ';')
			break;
	}
	*pos = p;
	*nwords = n;
	return 1;
}

/* A RANGE (of lines or ids) into *@lo..*@hi, which hold 0..UINT_MAX. */
static int klog_parse_range(const char *kw, const char *val, unsigned int *lo,
			    unsigned int *hi, const char *origin, int qn)
{
	char first[16], *last;
	size_t len = strlen(val);

	if (len >= sizeof(first))
		goto bad;
	memcpy(first, val, len + 1);
	last = strchr(first, '-');
	if (!last) {
		if (kstrtouint(first, 10, lo))
			goto bad;
		*hi = *lo;
		return 0;
	}
	*last++ = '\0';
	if (!*first && !*last)
		goto bad;
	if (*first && kstrtouint(first, 10, lo))
		goto bad;
	if (*last && kstrtouint(last, 10, hi))
		goto bad;
	if (*lo > *hi)
		goto bad;
	return 0;
bad:
	pr_err("%s: query %d: bad %s range \"%*pE\" (N, N-M, N- or -M, N <= M)\n",
	       origin, qn, kw, klog_wlen(val), val);
	return -EINVAL;
}

static int klog_parse_flags(struct klog_query *q, const char *word,
			    const char *origin, int qn)
{
	const char *c;

	if (!word[0] || !strchr("+-=", word[0])) {
		pr_err("%s: query %d: no flags at the end (+p, -p, =p or =_), found \"%*pE\"\n",
		       origin, qn, klog_wlen(word), word);
		return -EINVAL;
	}
	q->op = word[0];
	if (!word[1]) {
		pr_err("%s: query %d: no flag after '%c'\n", origin, qn, q->op);
		return -EINVAL;
	}
	for (c = word + 1; *c; c++) {
		if (*c == 'p') {
			q->flags |= KLOG_SITE_ENABLED;
		} else if (*c != '_') {
			pr_err("%s: query %d: unknown flag \"%*pE\" in \"%*pE\"\n",
			       origin, qn, 1, c, klog_wlen(word), word);
			return -EINVAL;
		}
	}
	return 0;
}

static int klog_parse_query(struct klog_query *q, char **words, int n,
			    const char *origin, int qn)
{
	const char **field;
	char *kw, *val;
	int i, ret;

	*q = (struct klog_query) { .last = UINT_MAX, .last_id = UINT_MAX };
	ret = klog_parse_flags(q, words[n - 1], origin, qn);
	if (ret)
		return ret;
	for (i = 0; i < n - 1; i += 2) {
		kw = words[i];
		if (i + 1 == n - 1) {
			pr_err("%s: query %d: keyword \"%*pE\" has no value\n",
			       origin, qn, klog_wlen(kw), kw);
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
			pr_err("%s: query %d: unknown keyword \"%*pE\" (module, file, func, line, format, id)\n",
			       origin, qn, klog_wlen(kw), kw);
			return -EINVAL;
		}
		if (*field) {
			pr_err("%s: query %d: keyword \"%s\" given twice\n",
			       origin, qn, kw);
			return -EINVAL;
		}
		if (!*val) {
			pr_err("%s: query %d: empty value for \"%s\"\n",
			       origin, qn, kw);
			return -EINVAL;
		}
		if (field == &q->lines)
			ret = klog_parse_range(kw, val, &q->first, &q->last,
					       origin, qn);
		else if (field == &q->ids)
			ret = klog_parse_range(kw, val, &q->first_id,
					       &q->last_id, origin, qn);
		if (ret)
			return ret;
		*field = val;
	}
	return 0;
}

static bool klog_query_match(const struct klog_query *q,
			     const struct klog_site *s)
{
	if (q->module && !match_wildcard(q->module, s->modname))
		return false;
	if (q->file && !match_wildcard(q->file, s->file) &&
	    !match_wildcard(q->file, kbasename(s->file)))
		return false;
	if (q->func && !match_wildcard(q->func, s->func))
		return false;
	if (q->format && (!s->fmt || !strstr(s->fmt, q->format)))
		return false;
	if (s->id < q->first_id || s->id > q->last_id)
		return false;
	return s->line >= q->first && s->line <= q->last;
}

static unsigned int klog_query_apply(const struct klog_query *q,
				     const char *scope)
{
	struct klog_table *t;
	struct klog_site *s;
	unsigned int i, matched = 0;
	u32 flags;

	lockdep_assert_held(&klog_mutex);
	list_for_each_entry(t, &klog_tables, node) {
		if (!t->sites)
			continue;
		for (i = 0; i < t->n; i++) {
			s = &t->sites[i];
			if (scope && strcmp(s->modname, scope))
				continue;
			if (!klog_query_match(q, s))
				continue;
			if (q->op == '+')
				flags = s->flags | q->flags;
			else if (q->op == '-')
				flags = s->flags & ~q->flags;
			else
				flags = q->flags;
			klog_site_set_flags(s, flags);
			matched++;
		}
	}
	return matched;
}

/*
 * Parse every query of @buf (changed in place), then, if all are good,
 * apply them in order to the live sites (of module @scope only, unless
 * NULL). @origin starts the error messages. Returns the number of site
 * matches, or -EINVAL (nothing applied) or -ENOMEM.
 */
int klog_exec_queries(char *buf, const char *scope, const char *origin)
{
	struct klog_query *qs = NULL, *grown;
	char *words[KLOG_QUERY_WORDS];
	int n = 0, cap = 0, qn = 0, nwords, ret, i;
	unsigned int matched = 0;
	char *pos = buf;

	for (;;) {
		ret = klog_split_query(&pos, words, &nwords, origin, qn + 1);
		if (ret <= 0)
			break;
		if (!nwords)
			continue;
		qn++;
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			grown = krealloc_array(qs, cap, sizeof(*qs), GFP_KERNEL);
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			qs = grown;
		}
		ret = klog_parse_query(&qs[n], words, nwords, origin, qn);
		if (ret)
			break;
		n++;
	}
	if (ret < 0) {
		kfree(qs);
		return ret;
	}
	mutex_lock(&klog_mutex);
	for (i = 0; i < n; i++)
		matched += klog_query_apply(&qs[i], scope);
	mutex_unlock(&klog_mutex);
	kfree(qs);
	return min_t(unsigned int, matched, INT_MAX);
}

/**
 * klog_query() - enable or disable call sites from kernel code
 * @queries: one or more queries in the control file's grammar, separated
 *	by newlines or ``;`` (see Documentation/trace/klog.rst)
 * @modname: apply only to the sites of this module (KBUILD_MODNAME);
 *	NULL for all sites
 *
 * The batch is parsed whole before anything changes: one bad query
 * (reported with pr_err()) and no site changes.
 *
 * Context: process context; sleeps.
 * Return: the number of site matches (a site matched by two queries
 * counts twice; 0 is not an error), -EINVAL if a query is bad, -ENOMEM.
 */
int klog_query(const char *queries, const char *modname)
{
	char *buf;
	int ret;

	if (!queries)
		return -EINVAL;
	buf = kstrdup(queries, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = klog_exec_queries(buf, modname, "klog_query");
	kfree(buf);
	return ret;
}
EXPORT_SYMBOL_GPL(klog_query);

/* ---- The control file ----------------------------------------------- */

static int klog_control_show(struct seq_file *m, void *v)
{
	const struct klog_iter *it = v;
	const struct klog_site *s;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# file:line [module]function =flags \"format\" id=N records=N\n");
		return 0;
	}
	s = &it->t->sites[it->i];
	seq_printf(m, "%s:%u [%s]%s =%s ", s->file, s->line, s->modname,
		   s->func, s->flags & KLOG_SITE_ENABLED ? "p" : "_");
	if (s->fmt) {
		seq_putc(m, '"');
		seq_escape_str(m, s->fmt, ESCAPE_SPACE, "\t\r\n\"");
		seq_putc(m, '"');
	} else {
		seq_puts(m, "raw");
	}
	seq_printf(m, " id=%u records=%lu\n", s->id,
		   (unsigned long)atomic_long_read(&s->records));
	return 0;
}

static const struct seq_operations klog_control_sops = {
	.start	= klog_iter_start,
	.next	= klog_iter_next,
	.stop	= klog_iter_stop,
	.show	= klog_control_show,
};

static int klog_control_open(struct inode *inode, struct file *file)
{
	return klog_iter_open(file, &klog_control_sops, true);
}

static ssize_t klog_control_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (*ppos)
		return -ESPIPE;
	if (len > KLOG_CONTROL_MAX) {
		pr_err("control: write of %zu bytes, more than %d\n", len,
		       KLOG_CONTROL_MAX);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (strlen(buf) != len) {
		pr_err("control: NUL byte in the queries\n");
		ret = -EINVAL;
	} else {
		ret = klog_exec_queries(buf, NULL, "control");
	}
	kfree(buf);
	return ret < 0 ? ret : len;
}

static const struct file_operations klog_control_fops = {
	.owner		= THIS_MODULE,
	.open		= klog_control_open,
	.read		= seq_read,
	.write		= klog_control_write,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

int klog_control_init(struct dentry *dir)
{
	debugfs_create_file("control", 0644, dir, NULL, &klog_control_fops);
	return 0;
}
