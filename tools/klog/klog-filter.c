// SPDX-License-Identifier: GPL-2.0
/*
 * klog-filter.c - what klog -r shows: record filters, time formats, and
 * the statistics of --stat
 *
 * Filters (a record must match every option given; an option given more
 * than once, or a list, matches any of its values):
 *   --cpu LIST     the CPU the call ran on, e.g. 0,2-3
 *   --pid LIST     the pid, e.g. 1,200-300
 *   --comm GLOB    the task name (fnmatch(3) pattern)
 *   --func GLOB    the function ("site#N" when DIR/sites lacks the site)
 *   --module GLOB, --file GLOB    the site's module and source file
 *   --id LIST      the site's id
 *   --ctx LIST     task, softirq, hardirq, nmi
 *   --kind LIST    text, args (binary arguments), raw
 *   --grep REGEX   the text (an argument record's formatted), a POSIX
 *                  extended regex; a raw record has none
 *   --since SEC, --until SEC   timestamps as printed, SEC.NSEC, inclusive
 * A record without the value (a task no COMM record named, a site
 * DIR/sites does not describe, a version 1 record's id) matches none.
 * --not before one of the value filters turns it around: a record
 * matching it is not shown (--not --cpu 0 --not --func 'irq_*': neither
 * on CPU 0 nor in irq_*()). filter_match() decides for every output
 * (text, --json, --ctf, --stat, the count of the summary). Losses are
 * not filtered: every loss line is shown, as any may hide matching
 * records, and the summary says so.
 *
 * --time abs|rel|delta|wall prints a line's time as recorded, relative to
 * the first line shown, as the difference to the line before (negative
 * when an interrupt's record comes before the one it interrupted), or as
 * UTC wall-clock time from DIR/meta's clock pairs (klog-meta.c).
 *
 * --stat prints, instead of the records, the records and payload bytes
 * per CPU (with the records each buffer lost: in a global buffer all are
 * cpu0's), per task (comm-pid, or the pid alone when no COMM record named
 * it; a pid whose task changed its name has a row per name) and per call
 * site (function:line, from DIR/sites; site#N when the site is not
 * there), each sorted by records, most first, then by name (--sort
 * bytes: by bytes; --sort name: by name alone), at most --top N rows a
 * table and a line saying how many more. Names come from files: they are
 * escaped as the text report escapes them. Bytes print as 1.5K
 * (size_text()), or exact with --bytes.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"
#include "../lib/klog/klog_hash.h"
#include "../lib/klog/u64map.h"

/* by KLOG_RELAY_CTX_* and KLOG_RELAY_TEXT, _RAW, _ARGS */
static const char *const kind_names[] = { "text", "raw", "args", NULL };
static const char *const time_names[] = {
	[TIME_ABS] = "abs", [TIME_REL] = "rel", [TIME_DELTA] = "delta",
	[TIME_WALL] = "wall", NULL
};

/* filter_match() keeps a bit per option */
static_assert(OPT_GREP - OPT_JSON < 64, "too many options for a u64 mask");

static int add_term(struct report_filter *f, struct filter_term t)
{
	void *v = realloc(f->terms, (f->nterms + 1) * sizeof(*f->terms));

	if (!v)
		return -1;
	f->terms = v;
	f->terms[f->nterms++] = t;
	return 0;
}

/* "0,2-5", each value or range a term of @t's option: 0 or -1. */
static int parse_list(struct report_filter *f, struct filter_term t,
		      const char *arg, unsigned long long max)
{
	const char *p = arg;

	do {
		char *end;

		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		t.lo = strtoull(p, &end, 10);
		t.hi = t.lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			t.hi = strtoull(end + 1, &end, 10);
		}
		if (errno || t.lo > t.hi || t.hi > max || add_term(f, t))
			return -1;
		p = end;
	} while (*p++ == ',');
	return p[-1] ? -1 : 0;
}

/* "task,nmi": each word one of @names (none empty), a term: 0 or -1. */
static int parse_names(struct report_filter *f, struct filter_term t,
		       const char *arg, const char *const *names)
{
	do {
		size_t n = strcspn(arg, ",");

		for (t.lo = 0; names[t.lo]; t.lo++)
			if (strlen(names[t.lo]) == n &&
			    !strncmp(arg, names[t.lo], n))
				break;
		t.hi = t.lo;
		if (!names[t.lo] || add_term(f, t))
			return -1;
		arg += n;
	} while (*arg++ == ',');
	return 0;
}

/* "SEC[.NSEC]" exactly, no float rounding: 0 or -1. */
static int parse_ts(const char *arg, __u64 *ns)
{
	unsigned long long sec, frac = 0;
	const char *p = arg;
	int digits = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	sec = strtoull(p, (char **)&p, 10);
	if (errno || sec > 18000000000ULL)
		return -1;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p) && digits < 9; p++, digits++)
			frac = frac * 10 + (*p - '0');
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*p)
		return -1;
	*ns = sec * NSEC + frac;
	return 0;
}

const char *filter_option(struct report_filter *f, int opt, const char *arg)
{
	struct filter_term t = { .opt = opt, .not = f->not_next, .glob = arg };
	const char *name = ra_opt_name(opt), *expected = NULL;
	char why[256];
	int err, n;

	/* parse_opts() refuses --not before anything but a filter of values */
	if (t.not && (opt == OPT_SINCE || opt == OPT_UNTIL || opt == OPT_TIME))
		return name;
	f->not_next = opt == OPT_NOT;
	switch (opt) {
	case OPT_NOT:
		if (t.not)
			usage_error("--not --not: give --not once, right before a filter");
		return name;
	case OPT_CPU:
		if (parse_list(f, t, arg, KLOG_MAX_CPUS - 1))
			expected = "a CPU list such as 0,2-3, CPUs below " STR(KLOG_MAX_CPUS);
		break;
	case OPT_PID:
		if (parse_list(f, t, arg, 0x7fffffff))
			expected = "a pid list such as 1,200-300";
		break;
	case OPT_ID:
		if (parse_list(f, t, arg, 0xffffffff))
			expected = "a list of site ids such as 101,200-300";
		break;
	case OPT_CTX:
		if (parse_names(f, t, arg, ks_ctx_names))
			expected = "a list of task, softirq, hardirq, nmi";
		break;
	case OPT_KIND:
		if (parse_names(f, t, arg, kind_names))
			expected = "a list of text, args, raw";
		break;
	case OPT_COMM:
	case OPT_FUNC:
	case OPT_MODULE:
	case OPT_FILE:
		if (!*arg || add_term(f, t))
			expected = opt == OPT_COMM ? "a task name or fnmatch(3) pattern" :
				   opt == OPT_FUNC ? "a function name or fnmatch(3) pattern" :
				   opt == OPT_MODULE ? "a module name or fnmatch(3) pattern" :
				   "a source file name or fnmatch(3) pattern";
		break;
	case OPT_GREP:
		t.re = calloc(1, sizeof(*t.re));
		err = t.re ? regcomp(t.re, arg, REG_EXTENDED | REG_NOSUB) :
		      REG_ESPACE;
		if (!err && add_term(f, t)) {
			regfree(t.re);
			err = REG_ESPACE;
		}
		if (err) {
			expected = why;
			n = snprintf(why, sizeof(why),
				     "a POSIX extended regular expression: ");
			regerror(err, t.re, why + n, sizeof(why) - n);
			free(t.re);
		}
		break;
	case OPT_SINCE:
	case OPT_UNTIL:
		if (parse_ts(arg, opt == OPT_SINCE ? &f->since : &f->until))
			expected = "a timestamp as klog -r prints it, SECONDS[.NANOSECONDS]";
		else if (opt == OPT_UNTIL)
			f->until_set = true;
		break;
	case OPT_TIME:
		f->time = parse_choice(name, arg, time_names);
		break;
	}
	if (expected)
		usage_error("%s: invalid value '%s' (expected %s)", name, arg,
			    expected);
	f->any = f->nterms || f->since || f->until_set;
	return name;
}

/* Whether @ev's value of @t's option matches it; @func: scratch. */
static bool term_match(const struct filter_term *t, const struct ks_event *ev,
		       char *func)
{
	const struct klog_rec_hdr *r = &ev->rec;
	const unsigned char *text;
	char tbuf[KS_TEXT_MAX];
	regmatch_t m;
	__u64 v = 0;
	bool cut;
	int n;

	switch (t->opt) {
	case OPT_CPU:
		v = r->cpu;
		break;
	case OPT_PID:
		v = r->pid;
		break;
	case OPT_ID:		/* a version 1 record names no site id */
		if (ev->version < 2)
			return false;
		v = r->site_id;
		break;
	case OPT_CTX:
		v = r->ctx;
		break;
	case OPT_KIND:
		v = r->kind;
		break;
	case OPT_COMM:
		return ev->comm && !fnmatch(t->glob, ev->comm, 0);
	case OPT_FUNC:
		/* an unknown site matches as "site#N" ("?" in version 1) */
		if (ev->func) {
			n = ev->func_len < KS_FUNC_MAX ? ev->func_len : KS_FUNC_MAX;
			memcpy(func, ev->func, n);
			func[n] = '\0';
		} else if (ev->version >= 2) {
			snprintf(func, KS_FUNC_MAX + 1, "site#%u", r->site_id);
		} else {
			snprintf(func, KS_FUNC_MAX + 1, "?");
		}
		return !fnmatch(t->glob, func, 0);
	case OPT_MODULE:
		return ev->site && !fnmatch(t->glob, ev->site->module, 0);
	case OPT_FILE:
		return ev->site && !fnmatch(t->glob, ev->site->file, 0);
	case OPT_GREP:
		/* the text as printed, before escaping: one '\n' dropped */
		n = ks_event_text(ev, tbuf, &text, &cut);
		if (n < 0)
			return false;
		m.rm_so = 0;
		m.rm_eo = n && text[n - 1] == '\n' ? n - 1 : n;
		return !regexec(t->re, (const char *)text, 1, &m, REG_STARTEND);
	}
	return v >= t->lo && v <= t->hi;
}

bool filter_match(const struct report_filter *f, const struct ks_event *ev)
{
	unsigned long long want = 0, got = 0;
	char func[KS_FUNC_MAX + 1];
	size_t i;

	if (ev->kind == KS_SUBBUF)
		return false;
	if (ev->kind != KS_RECORD)	/* a loss: not filtered */
		return true;
	if (ev->ts < f->since || (f->until_set && ev->ts > f->until))
		return false;
	/* each option given must have a term that matches, none of --not's */
	for (i = 0; i < f->nterms; i++) {
		const struct filter_term *t = &f->terms[i];
		bool hit = term_match(t, ev, func);

		if (t->not && hit)
			return false;
		if (!t->not) {
			want |= 1ULL << (t->opt - OPT_JSON);
			got |= (unsigned long long)hit << (t->opt - OPT_JSON);
		}
	}
	return want == got;
}

void filter_free(struct report_filter *f)
{
	size_t i;

	for (i = 0; i < f->nterms; i++) {
		if (f->terms[i].re)
			regfree(f->terms[i].re);
		free(f->terms[i].re);
	}
	free(f->terms);
	f->terms = NULL;
	f->nterms = 0;
}

/* ---- --stat ---------------------------------------------------------- */

/* Bytes of a function or task name a --stat row shows (escaped). */
#define STAT_NAME_MAX	256

struct stat_row {
	char	*key;		/* "cpu3", "1234", "func:line" */
	__u64	records, bytes, lost;
};

struct stat_idx {
	__u64	hash;		/* key_hash() of the first row with it */
	size_t	row;
};

struct stat_table {
	struct stat_row	*v;
	size_t		n, cap;
	struct u64map	idx;	/* struct stat_idx */
};

struct stats {
	struct stat_table cpu, pid, site;
	__u64		records, bytes, lost;
	bool		exact;		/* --bytes */
	size_t		top;		/* --top; 0: all rows */
	enum stat_sort	sort;		/* --sort */
};

/* Never 0 (u64map's empty slot): keys are not empty. */
static __u64 key_hash(const char *key)
{
	return klog_fnv1a(KLOG_FNV1A_INIT, key, strlen(key)) |
	       (__u64)strlen(key) << 32;
}

static struct stat_row *stat_row(struct stat_table *t, const char *key)
{
	struct stat_idx *first, e = { .hash = key_hash(key), .row = t->n };
	size_t i;

	/* the map finds the first row of a hash; equal hashes are rare */
	first = u64map_find(&t->idx, e.hash);
	if (first)
		for (i = first->row; i < t->n; i++)
			if (!strcmp(t->v[i].key, key))
				return &t->v[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		void *v = realloc(t->v, cap * sizeof(*t->v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct stat_row) { .key = strdup(key) };
	if (!t->v[t->n].key)
		return NULL;
	if (!first && !u64map_add(&t->idx, &e))
		return NULL;
	return &t->v[t->n++];
}

static int stat_event(void *priv, int src, const struct ks_event *ev)
{
	const struct klog_rec_hdr *r = &ev->rec;
	struct stats *st = priv;
	struct stat_row *c, *p, *s;
	char key[4 * STAT_NAME_MAX + 32], name[4 * STAT_NAME_MAX + 1];
	size_t n;

	(void)src;
	if (ev->kind == KS_LOST) {
		snprintf(key, sizeof(key), "cpu%d", ev->cpu);
		c = stat_row(&st->cpu, key);
		if (!c)
			goto oom;
		c->lost += ev->count;
		st->lost += ev->count;
		return 0;
	}
	if (ev->kind != KS_RECORD)
		return 0;
	snprintf(key, sizeof(key), "cpu%u", r->cpu);
	c = stat_row(&st->cpu, key);
	if (ev->comm) {		/* names are from a file: escaped */
		n = strnlen(ev->comm, STAT_NAME_MAX);
		snprintf(key, sizeof(key), "%s-%u",
			 ra_escape(name, sizeof(name), ev->comm, n), r->pid);
	} else {
		snprintf(key, sizeof(key), "%u", r->pid);
	}
	p = stat_row(&st->pid, key);
	n = ev->func ? ev->func_len : 0;
	if (n)
		snprintf(key, sizeof(key), "%s:%u",
			 ra_escape(name, sizeof(name), ev->func,
				   n > STAT_NAME_MAX ? STAT_NAME_MAX : n),
			 ev->line);
	else if (ev->version >= 2)
		snprintf(key, sizeof(key), "site#%u", r->site_id);
	else
		snprintf(key, sizeof(key), "?:%u", ev->line);
	s = stat_row(&st->site, key);
	if (!c || !p || !s)
		goto oom;
	c->records++;
	p->records++;
	s->records++;
	c->bytes += r->len;
	p->bytes += r->len;
	s->bytes += r->len;
	st->records++;
	st->bytes += r->len;
	return 0;
oom:
	ra_err("out of memory");
	return -1;
}

static int row_cmp(const void *a, const void *b, void *sort)
{
	const struct stat_row *x = a, *y = b;

	if (*(enum stat_sort *)sort == SORT_BYTES && x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (*(enum stat_sort *)sort != SORT_NAME && x->records != y->records)
		return x->records > y->records ? -1 : 1;
	return strverscmp(x->key, y->key);	/* cpu2 before cpu10 */
}

static void print_table(const char *title, struct stat_table *t, bool lost,
			struct stats *st)
{
	size_t i, n = st->top && st->top < t->n ? st->top : t->n;
	char sz[SIZE_TEXT_MAX];

	if (t->n)	/* t->v is NULL without rows: not for qsort() */
		qsort_r(t->v, t->n, sizeof(*t->v), row_cmp, &st->sort);
	printf("%-32s %12s %14s%s\n", title, "records", "bytes",
	       lost ? "           lost" : "");
	for (i = 0; i < n; i++) {
		printf("  %-30s %12llu %14s", t->v[i].key,
		       (unsigned long long)t->v[i].records,
		       size_text(sz, sizeof(sz), t->v[i].bytes, st->exact));
		if (lost)
			printf(" %14llu", (unsigned long long)t->v[i].lost);
		printf("\n");
	}
	if (n < t->n)
		printf("  ... %zu more (--top %zu)\n", t->n - n, n);
}

static int stat_finish(void *priv)
{
	struct stats *st = priv;
	char sz[SIZE_TEXT_MAX];

	print_table("per CPU", &st->cpu, true, st);
	printf("  %-30s %12llu %14s %14llu\n\n", "total",
	       (unsigned long long)st->records,
	       size_text(sz, sizeof(sz), st->bytes, st->exact),
	       (unsigned long long)st->lost);
	print_table("per pid", &st->pid, false, st);
	printf("\n");
	print_table("per site (function:line)", &st->site, false, st);
	return 0;
}

static void table_free(struct stat_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].key);
	free(t->v);
	u64map_free(&t->idx);
}

static void stat_free(void *priv)
{
	struct stats *st = priv;

	table_free(&st->cpu);
	table_free(&st->pid);
	table_free(&st->site);
	free(st);
}

int stat_sink_open(struct report_sink *sink, const struct opts *o)
{
	const struct u64map idx = U64MAP_INIT(struct stat_idx);
	struct stats *st = calloc(1, sizeof(*st));

	if (!st) {
		ra_err("out of memory");
		return -1;
	}
	st->exact = o->bytes;
	st->top = o->stat_top;
	st->sort = o->stat_sort;
	st->cpu.idx = idx;
	st->pid.idx = idx;
	st->site.idx = idx;
	*sink = (struct report_sink) {
		.priv = st, .event = stat_event, .finish = stat_finish,
		.free = stat_free,
	};
	return 0;
}
