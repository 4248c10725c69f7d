// SPDX-License-Identifier: GPL-2.0
/*
 * klog-filter.c - what klog -r shows: record filters, time formats, and
 * the statistics of --stat
 *
 * Filters (all given must match; a list matches any of its values):
 *   --cpu LIST     the CPU the call ran on, e.g. 0,2-3
 *   --pid LIST     the pid, e.g. 1,200-300
 *   --comm GLOB    the task name (fnmatch(3) pattern; a task no COMM
 *                  record named matches none); repeatable
 *   --func GLOB    the function (fnmatch(3) pattern); repeatable
 *   --ctx LIST     task, softirq, hardirq, nmi
 *   --since SEC, --until SEC   timestamps as printed, SEC.NSEC, inclusive
 * Loss lines are kept, as they may hide matching records, except those
 * outside the time window and, when there is more than one buffer (one
 * per CPU), those of a buffer whose CPU --cpu leaves out.
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
 * there), each sorted by records, most first, then by name. Names come
 * from files: they are escaped as the text report escapes them. Bytes
 * print as 1.5K (size_text()), or exact with --bytes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"
#include "../lib/klog/klog_hash.h"
#include "../lib/klog/u64map.h"

static const char *const ctx_names[] = { "task", "softirq", "hardirq", "nmi" };

/* "0,2-5": each value (or range) into @set; 0 or -1. */
static int parse_list(const char *arg, unsigned long long max,
		      int (*add)(struct report_filter *, unsigned long long,
				 unsigned long long),
		      struct report_filter *f)
{
	const char *p = arg;

	do {
		unsigned long long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		lo = strtoull(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			hi = strtoull(end + 1, &end, 10);
		}
		if (errno || lo > hi || hi > max || add(f, lo, hi))
			return -1;
		p = end;
	} while (*p++ == ',');
	return p[-1] ? -1 : 0;
}

static int add_cpus(struct report_filter *f, unsigned long long lo,
		    unsigned long long hi)
{
	for (; lo <= hi; lo++)
		f->cpus[lo / 64] |= 1ULL << (lo % 64);
	f->cpu_set = true;
	return 0;
}

static int add_pids(struct report_filter *f, unsigned long long lo,
		    unsigned long long hi)
{
	void *v = realloc(f->pids, (f->npids + 1) * sizeof(*f->pids));

	if (!v)
		return -1;
	f->pids = v;
	f->pids[f->npids].lo = lo;
	f->pids[f->npids].hi = hi;
	f->npids++;
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
	static const char *const names[] = {
		[OPT_CPU - OPT_CPU] = "--cpu", [OPT_PID - OPT_CPU] = "--pid",
		[OPT_FUNC - OPT_CPU] = "--func", [OPT_CTX - OPT_CPU] = "--ctx",
		[OPT_SINCE - OPT_CPU] = "--since",
		[OPT_UNTIL - OPT_CPU] = "--until",
		[OPT_TIME - OPT_CPU] = "--time",
	};
	const char *expected = NULL;
	const char *name = opt == OPT_COMM ? "--comm" : names[opt - OPT_CPU];
	int i;

	switch (opt) {
	case OPT_CPU:
		if (parse_list(arg, KLOG_MAX_CPUS - 1, add_cpus, f))
			expected = "a CPU list such as 0,2-3, CPUs below " STR(KLOG_MAX_CPUS);
		break;
	case OPT_PID:
		if (parse_list(arg, 0x7fffffff, add_pids, f))
			expected = "a pid list such as 1,200-300";
		break;
	case OPT_FUNC: {
		/* checked first: a realloc() moved would not be stored */
		void *v = *arg ? realloc(f->funcs, (f->nfuncs + 1) *
					 sizeof(*f->funcs)) : NULL;

		if (!v) {
			expected = "a function name or fnmatch(3) pattern";
			break;
		}
		f->funcs = v;
		f->funcs[f->nfuncs++] = arg;
		break;
	}
	case OPT_COMM: {
		/* checked first: a realloc() moved would not be stored */
		void *v = *arg ? realloc(f->comms, (f->ncomms + 1) *
					 sizeof(*f->comms)) : NULL;

		if (!v) {
			expected = "a task name or fnmatch(3) pattern";
			break;
		}
		f->comms = v;
		f->comms[f->ncomms++] = arg;
		break;
	}
	case OPT_CTX: {
		const char *p = arg;
		unsigned int mask = 0;

		/* "task,nmi": each word one of the names; none empty */
		do {
			size_t n = strcspn(p, ",");

			for (i = 0; i < 4; i++)
				if (strlen(ctx_names[i]) == n &&
				    !strncmp(p, ctx_names[i], n))
					break;
			if (i == 4) {
				expected = "a list of task, softirq, hardirq, nmi";
				break;
			}
			mask |= 1u << i;
			p += n;
		} while (*p++ == ',');
		f->ctx_mask |= mask;
		break;
	}
	case OPT_SINCE:
	case OPT_UNTIL:
		if (parse_ts(arg, opt == OPT_SINCE ? &f->since : &f->until))
			expected = "a timestamp as klog -r prints it, SECONDS[.NANOSECONDS]";
		else if (opt == OPT_UNTIL)
			f->until_set = true;
		break;
	case OPT_TIME:
		if (!strcmp(arg, "abs"))
			f->time = TIME_ABS;
		else if (!strcmp(arg, "rel"))
			f->time = TIME_REL;
		else if (!strcmp(arg, "delta"))
			f->time = TIME_DELTA;
		else if (!strcmp(arg, "wall"))
			f->time = TIME_WALL;
		else
			expected = "abs, rel, delta or wall";
		break;
	}
	if (expected)
		usage_error("%s: invalid value '%s' (expected %s)", name, arg,
			    expected);
	f->any = f->cpu_set || f->npids || f->nfuncs || f->ncomms ||
		 f->ctx_mask || f->since || f->until_set;
	return name;
}

static bool cpu_in(const struct report_filter *f, unsigned int cpu)
{
	return cpu < KLOG_MAX_CPUS && (f->cpus[cpu / 64] >> (cpu % 64) & 1);
}

bool filter_match(const struct report_filter *f, const struct ks_event *ev,
		  bool global)
{
	const struct klog_rec_hdr *r = &ev->rec;
	char func[KS_FUNC_MAX + 1];
	size_t i, n;

	if (ev->kind == KS_SUBBUF)
		return false;
	if (ev->ts < f->since || (f->until_set && ev->ts > f->until))
		return false;
	if (ev->kind != KS_RECORD)	/* a loss: may hide matching records */
		return global || !f->cpu_set || cpu_in(f, ev->cpu);
	if (f->cpu_set && !cpu_in(f, r->cpu))
		return false;
	if (f->ctx_mask && (r->ctx > 3 || !(f->ctx_mask & (1u << r->ctx))))
		return false;
	if (f->npids) {
		for (i = 0; i < f->npids; i++)
			if (r->pid >= f->pids[i].lo && r->pid <= f->pids[i].hi)
				break;
		if (i == f->npids)
			return false;
	}
	if (f->nfuncs) {
		/* an unknown site matches as "site#N" ("?" in version 1) */
		if (ev->func) {
			n = ev->func_len < KS_FUNC_MAX ? ev->func_len : KS_FUNC_MAX;
			memcpy(func, ev->func, n);
			func[n] = '\0';
		} else if (ev->version >= 2) {
			snprintf(func, sizeof(func), "site#%u", r->site_id);
		} else {
			snprintf(func, sizeof(func), "?");
		}
		for (i = 0; i < f->nfuncs; i++)
			if (!fnmatch(f->funcs[i], func, 0))
				break;
		if (i == f->nfuncs)
			return false;
	}
	if (f->ncomms) {	/* a task no COMM record named matches none */
		if (!ev->comm)
			return false;
		for (i = 0; i < f->ncomms; i++)
			if (!fnmatch(f->comms[i], ev->comm, 0))
				break;
		if (i == f->ncomms)
			return false;
	}
	return true;
}

void filter_free(struct report_filter *f)
{
	free(f->pids);
	free(f->funcs);
	free(f->comms);
	f->pids = NULL;
	f->funcs = NULL;
	f->comms = NULL;
	f->npids = 0;
	f->nfuncs = 0;
	f->ncomms = 0;
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

static int row_cmp(const void *a, const void *b)
{
	const struct stat_row *x = a, *y = b;

	if (x->records != y->records)
		return x->records > y->records ? -1 : 1;
	return strverscmp(x->key, y->key);	/* cpu2 before cpu10 */
}

static void print_table(const char *title, struct stat_table *t, bool lost,
			bool exact)
{
	char sz[SIZE_TEXT_MAX];
	size_t i;

	if (t->n)	/* t->v is NULL without rows: not for qsort() */
		qsort(t->v, t->n, sizeof(*t->v), row_cmp);
	printf("%-32s %12s %14s%s\n", title, "records", "bytes",
	       lost ? "           lost" : "");
	for (i = 0; i < t->n; i++) {
		printf("  %-30s %12llu %14s", t->v[i].key,
		       (unsigned long long)t->v[i].records,
		       size_text(sz, sizeof(sz), t->v[i].bytes, exact));
		if (lost)
			printf(" %14llu", (unsigned long long)t->v[i].lost);
		printf("\n");
	}
}

static int stat_finish(void *priv)
{
	struct stats *st = priv;
	char sz[SIZE_TEXT_MAX];

	print_table("per CPU", &st->cpu, true, st->exact);
	printf("  %-30s %12llu %14s %14llu\n\n", "total",
	       (unsigned long long)st->records,
	       size_text(sz, sizeof(sz), st->bytes, st->exact),
	       (unsigned long long)st->lost);
	print_table("per pid", &st->pid, false, st->exact);
	printf("\n");
	print_table("per site (function:line)", &st->site, false, st->exact);
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

int stat_sink_open(struct report_sink *sink, bool exact)
{
	const struct u64map idx = U64MAP_INIT(struct stat_idx);
	struct stats *st = calloc(1, sizeof(*st));

	if (!st) {
		ra_err("out of memory");
		return -1;
	}
	st->exact = exact;
	st->cpu.idx = idx;
	st->pid.idx = idx;
	st->site.idx = idx;
	*sink = (struct report_sink) {
		.priv = st, .event = stat_event, .finish = stat_finish,
		.free = stat_free,
	};
	return 0;
}
