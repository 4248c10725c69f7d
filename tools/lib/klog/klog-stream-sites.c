// SPDX-License-Identifier: GPL-2.0
/*
 * klog-stream-sites.c - the sites file: call sites by id
 *
 * A version 2 record names its call site by id; the kernel's
 * /sys/kernel/debug/klog/sites and a collection's DIR/sites say what the
 * ids are (the format is in klog-stream.h, at ks_sites_parse()). Parsing
 * trusts nothing: every field is unescaped and checked, the first bad
 * line fails the whole file and leaves the table as it was. The table is
 * an array sorted by id (ks_sites_find() is a binary search) of entries
 * allocated one by one, so that a pointer to an entry stays valid while
 * more files are merged in. ks_sites_format() writes the table back in
 * the same format, escaped as the kernel escapes it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_app.h"	/* __printf(), ARRAY_SIZE() */
#include "klog-stream.h"

#define KS_SITE_FIELD_MAX	KS_FUNC_MAX	/* bytes of one unescaped field */

/* Unescape the field @p..@end into @o (room for it): 0, or -1 (@why). */
static int site_unescape(const char *p, const char *end, char *o,
			 const char **why)
{
	while (p < end) {
		unsigned char c = *p++;

		if (c < 0x20 || c > 0x7e) {
			*why = "a control or non-ASCII byte (the kernel escapes them)";
			return -1;
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (p == end) {
			*why = "a field ends in a lone backslash";
			return -1;
		}
		c = *p++;
		if (c == '\\' || c == '"') {
			*o++ = c;
		} else if (c == 't') {
			*o++ = '\t';
		} else if (c == 'n') {
			*o++ = '\n';
		} else if (c >= '0' && c <= '3' && end - p >= 2 &&
			   p[0] >= '0' && p[0] <= '7' && p[1] >= '0' &&
			   p[1] <= '7') {
			c = (c - '0') << 6 | (p[0] - '0') << 3 | (p[1] - '0');
			if (!c) {
				*why = "an escaped NUL byte";
				return -1;
			}
			*o++ = c;
			p += 2;
		} else {
			*why = "an unknown escape (known: \\\\ \\t \\n \\\" \\ooo)";
			return -1;
		}
	}
	*o = '\0';
	return 0;
}

/* Index of @id in @t, or of where it would go (*found false). */
static size_t sites_index(const struct ks_sites *t, __u32 id, bool *found)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && t->v[lo]->id == id;
	return lo;
}

const struct ks_site *ks_sites_find(const struct ks_sites *t, __u32 id)
{
	bool found;
	size_t i;

	if (!t || !t->n)
		return NULL;
	i = sites_index(t, id, &found);
	return found ? t->v[i] : NULL;
}

/* A decimal u32 in @p..@end, no sign, no leading zeros but "0". */
static int site_u32(const char *p, const char *end, __u32 *v)
{
	__u64 x = 0;

	if (p == end || end - p > 10 || (*p == '0' && end - p > 1))
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		x = x * 10 + (*p - '0');
	}
	if (x > UINT32_MAX)
		return -1;
	*v = x;
	return 0;
}

/*
 * One site line (@p..@end, no newline) into a new entry. Return: the
 * entry, or NULL with *why (out of memory: *why NULL).
 */
static struct ks_site *site_line(const char *p, const char *end,
				 const char **why)
{
	const char *f[8], *fe[8];
	struct ks_site *site;
	size_t total = 0;
	char *o;
	int i;

	for (i = 0; i < 8; i++) {
		const char *tab = memchr(p, '\t', end - p);

		f[i] = p;
		fe[i] = tab && i < 7 ? tab : end;
		if (i < 7 && !tab) {
			*why = "fewer than 8 fields (id state kind module file line func fmt)";
			return NULL;
		}
		if (i == 7 && tab) {
			*why = "more than 8 fields";
			return NULL;
		}
		if (fe[i] - f[i] > KS_SITE_FIELD_MAX) {
			*why = "a field longer than 4096 bytes";
			return NULL;
		}
		total += fe[i] - f[i] + 1;
		p = fe[i] + 1;
	}
	site = calloc(1, sizeof(*site) + total);
	if (!site) {
		*why = NULL;
		return NULL;
	}
	if (site_u32(f[0], fe[0], &site->id) || !site->id) {
		*why = "the id is not a number from 1 to 4294967295";
		goto bad;
	}
	if (fe[1] - f[1] == 4 && !memcmp(f[1], "live", 4)) {
		site->live = true;
	} else if (!(fe[1] - f[1] == 4 && !memcmp(f[1], "gone", 4))) {
		*why = "the state is neither \"live\" nor \"gone\"";
		goto bad;
	}
	if (fe[2] == f[2] || fe[2] - f[2] >= (long)sizeof(site->kind)) {
		*why = "the kind is empty or too long";
		goto bad;
	}
	for (p = f[2]; p < fe[2]; p++)
		if (*p < 'a' || *p > 'z') {
			*why = "the kind is not a lower-case word";
			goto bad;
		}
	memcpy(site->kind, f[2], fe[2] - f[2]);
	if (site_u32(f[5], fe[5], &site->line)) {
		*why = "the line is not a number";
		goto bad;
	}
	o = (char *)(site + 1);
	site->module = o;
	if (site_unescape(f[3], fe[3], o, why))
		goto bad;
	site->file = o += strlen(o) + 1;
	if (site_unescape(f[4], fe[4], o, why))
		goto bad;
	site->func = o += strlen(o) + 1;
	if (site_unescape(f[6], fe[6], o, why))
		goto bad;
	site->fmt = o += strlen(o) + 1;
	if (site_unescape(f[7], fe[7], o, why))
		goto bad;
	site->func_len = strlen(site->func);
	if (!site->func_len || !*site->file) {
		*why = "the file or function is empty";
		goto bad;
	}
	return site;
bad:
	free(site);
	return NULL;
}

/* Whether @a and @b describe a site alike. */
static bool site_same(const struct ks_site *a, const struct ks_site *b)
{
	return a->id == b->id && a->live == b->live && a->line == b->line &&
	       !strcmp(a->kind, b->kind) && !strcmp(a->module, b->module) &&
	       !strcmp(a->file, b->file) && !strcmp(a->func, b->func) &&
	       !strcmp(a->fmt, b->fmt);
}

__printf(5, 6)
static int sites_fail(char *err, size_t err_size, const char *name,
		      unsigned long lineno, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, err_size, "%s:%lu: %s", name, lineno, msg);
	return -1;
}

/*
 * The rest of the header after "forgotten=N": " key=value" words, which a
 * reader skips but for those it knows (the kernel's " refused=N", a
 * decimal). DIR/sites has forgotten= alone.
 */
static bool sites_header_tail(const char *p)
{
	while (*p) {
		size_t k, v;

		if (*p++ != ' ')
			return false;
		k = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		if (!k || p[k] != '=')
			return false;
		v = strcspn(p + k + 1, " ");
		if (!v || (k == 7 && !strncmp(p, "refused", k) &&
			   strspn(p + k + 1, "0123456789") != v))
			return false;
		p += k + 1 + v;
	}
	return true;
}

/* A parsed line and where it was, sorted by (id, line) before merging. */
struct site_at {
	struct ks_site	*site;
	unsigned long	lineno;
};

static int site_at_cmp(const void *a, const void *b)
{
	const struct site_at *x = a, *y = b;

	if (x->site->id != y->site->id)
		return x->site->id < y->site->id ? -1 : 1;
	return x->lineno < y->lineno ? -1 : x->lineno > y->lineno;
}

/*
 * The lines are collected in file order, sorted once and merged with @t
 * in one pass: n log n for n lines in any order (inserting each into a
 * sorted array moved the array for every line of a file with descending
 * ids, seconds for 200,000 lines).
 */
int ks_sites_parse(struct ks_sites *t, const char *p, size_t len,
		   const char *name, char *err, size_t err_size)
{
	const char *end = p + len, *nl;
	struct site_at *add = NULL;
	struct ks_site **v = NULL;
	size_t nadd = 0, cap = 0, i, j, k, nv;
	__u32 prev = 0;
	unsigned long lineno = 0, bad = 0;
	unsigned long long forgotten = 0;
	__u32 bad_id = 0;
	const char *why = NULL;
	int ret = -1;

	if (len > KS_SITES_MAX_FILE)
		return sites_fail(err, err_size, name, 0,
				  "larger than %u bytes", KS_SITES_MAX_FILE);
	for (; p < end; p = nl + 1) {
		struct ks_site *site;
		int n = -1;

		lineno++;
		nl = memchr(p, '\n', end - p);
		if (!nl) {
			sites_fail(err, err_size, name, lineno,
				   "the last line has no newline (a cut file?)");
			goto out;
		}
		if (lineno == 1) {
			/* the header: its words at most 511 bytes */
			char head[512];

			if (nl - p >= (long)sizeof(head) ||
			    strncmp(p, KS_SITES_HEADER " ", sizeof(KS_SITES_HEADER))) {
				sites_fail(err, err_size, name, lineno,
					   "not a klog sites file (expected \"%s forgotten=N\")",
					   KS_SITES_HEADER);
				goto out;
			}
			memcpy(head, p, nl - p);
			head[nl - p] = '\0';
			if (sscanf(head, KS_SITES_HEADER " forgotten=%llu%n",
				   &forgotten, &n) != 1 ||
			    !sites_header_tail(head + n)) {
				sites_fail(err, err_size, name, lineno,
					   "bad header (expected \"%s forgotten=N\")",
					   KS_SITES_HEADER);
				goto out;
			}
			continue;
		}
		if (nadd == cap) {
			struct site_at *a;

			cap = cap ? 2 * cap : 256;
			a = realloc(add, cap * sizeof(*a));
			if (!a) {
				sites_fail(err, err_size, name, lineno,
					   "out of memory");
				goto out;
			}
			add = a;
		}
		site = site_line(p, nl, &why);
		if (!site) {
			/* a duplicate on an earlier line is reported first */
			bad = lineno;
			why = why ? why : "out of memory";
			break;
		}
		add[nadd].site = site;
		add[nadd++].lineno = lineno;
	}
	if (!lineno) {
		sites_fail(err, err_size, name, 0, "empty: no \"%s\" header",
			   KS_SITES_HEADER);
		goto out;
	}
	if (nadd)
		qsort(add, nadd, sizeof(*add), site_at_cmp);
	/*
	 * A line repeated exactly is taken once: the kernel's seq_file can
	 * repeat one when the table changes between two reads. An id listed
	 * again differently is an error, on the line that lists it again;
	 * the first bad line of the file is the one reported.
	 */
	for (i = 1, j = 0; i < nadd; i++) {
		if (add[i].site->id != add[j].site->id) {
			j = i;
			continue;
		}
		if (!site_same(add[j].site, add[i].site) &&
		    (!bad || add[i].lineno < bad)) {
			bad = add[i].lineno;
			bad_id = add[i].site->id;
			why = NULL;
		}
	}
	if (bad) {
		if (why)
			sites_fail(err, err_size, name, bad, "%s", why);
		else
			sites_fail(err, err_size, name, bad,
				   "site %u listed twice, differently", bad_id);
		goto out;
	}
	/*
	 * All good: merge by id into a new array (nothing can fail but
	 * memory); an id already in @t keeps its description, "gone" wins.
	 */
	v = malloc((t->n + nadd ? t->n + nadd : 1) * sizeof(*v));
	if (!v) {
		sites_fail(err, err_size, name, lineno, "out of memory");
		goto out;
	}
	for (i = 0, k = 0, nv = 0; i < nadd; i++) {
		struct ks_site *site = add[i].site;

		if (i && site->id == prev)
			continue;	/* repeated exactly: freed below */
		prev = site->id;
		while (k < t->n && t->v[k]->id < site->id)
			v[nv++] = t->v[k++];
		if (k < t->n && t->v[k]->id == site->id) {
			if (!site->live)
				t->v[k]->live = false;
			continue;	/* freed below */
		}
		v[nv++] = site;
		add[i].site = NULL;
	}
	while (k < t->n)
		v[nv++] = t->v[k++];
	free(t->v);
	t->v = v;
	t->n = nv;
	t->cap = t->n + nadd ? t->n + nadd : 1;
	if (forgotten > t->forgotten)
		t->forgotten = forgotten;
	ret = 0;
out:
	for (j = 0; j < nadd; j++)
		free(add[j].site);
	free(add);
	return ret;
}

int ks_site_escape(struct ks_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;
		int ret;

		if (c == '\\' || c == '"')
			ret = ks_buf_printf(b, "\\%c", c);
		else if (c == '\t')
			ret = ks_buf_printf(b, "\\t");
		else if (c == '\n')
			ret = ks_buf_printf(b, "\\n");
		else if (c < 0x20 || c > 0x7e)
			ret = ks_buf_printf(b, "\\%03o", c);
		else
			ret = ks_buf_printf(b, "%c", c);
		if (ret)
			return -1;
	}
	return 0;
}

int ks_sites_format(const struct ks_sites *t, struct ks_buf *b)
{
	size_t i;

	if (ks_buf_printf(b, KS_SITES_HEADER " forgotten=%llu\n",
			  (unsigned long long)t->forgotten))
		return -1;
	for (i = 0; i < t->n; i++) {
		const struct ks_site *s = t->v[i];

		if (ks_buf_printf(b, "%u\t%s\t%s\t", s->id,
				  s->live ? "live" : "gone", s->kind) ||
		    ks_site_escape(b, s->module) || ks_buf_printf(b, "\t") ||
		    ks_site_escape(b, s->file) ||
		    ks_buf_printf(b, "\t%u\t", s->line) ||
		    ks_site_escape(b, s->func) || ks_buf_printf(b, "\t") ||
		    ks_site_escape(b, s->fmt) || ks_buf_printf(b, "\n"))
			return -1;
	}
	return 0;
}

void ks_sites_free(struct ks_sites *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
