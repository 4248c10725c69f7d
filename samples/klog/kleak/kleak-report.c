// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-report.c - the kleak report: merge, replay, outstanding callers
 *
 * See the overview in kleak.c. The live objects and the callers are
 * kept in u64map hash maps (../../../tools/lib/klog/u64map.h), keyed by address.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../../tools/lib/klog/klog-stream.h"
#include "../../../tools/lib/klog/u64map.h"
#include "kleak-app.h"

/* ---- Live objects and callers ----------------------------------------- */

/* A live object: allocated and not freed (yet). In report.live. */
struct live {
	__u64	ptr;		/* key */
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	seq;		/* its kleak record's sequence number */
	__u32	caller;		/* index into report.callers.v */
	__u8	type;
};

/* Everything known about one call site, as allocator and as freer. */
struct caller {
	__u64	addr;
	__u64	allocs;		/* allocations, failed ones included */
	__u64	failed;
	__u64	freed;		/* of its allocations, freed in the capture */
	__u64	reused;		/* ... retired by a new allocation */
	__u64	bytes_req, bytes_alloc;
	__u64	frees;		/* frees called from here */
	__u64	out, out_req, out_alloc, out_min, out_max;
};

/* A caller's index into callers.v, by its address. In callers.map. */
struct caller_slot {
	__u64	addr;		/* key */
	__u32	idx;
};

struct callers {
	struct caller	*v;		/* the callers, in order of appearance */
	size_t		n, vcap;
	struct u64map	map;		/* of struct caller_slot */
};

/* The index of the caller at @addr, added if new; -1 if out of memory. */
static long caller_get(struct callers *m, __u64 addr)
{
	struct caller_slot cs, *e;

	if (!addr)
		addr = 1;	/* 0 marks an empty slot; 1 is never code */
	e = u64map_find(&m->map, addr);
	if (e)
		return e->idx;
	if (m->n == m->vcap) {
		size_t vcap = m->vcap ? 2 * m->vcap : 1024;
		struct caller *v = realloc(m->v, vcap * sizeof(*v));

		if (!v)
			return -1;
		m->v = v;
		m->vcap = vcap;
	}
	cs = (struct caller_slot) { .addr = addr, .idx = m->n };
	if (!u64map_add(&m->map, &cs))
		return -1;
	memset(&m->v[m->n], 0, sizeof(m->v[m->n]));
	m->v[m->n].addr = addr;
	m->v[m->n].out_min = UINT64_MAX;
	return m->n++;
}

/* ---- Report ---------------------------------------------------------- */

/* One DIR/cpuN file, positioned at its next kleak record. */
struct src {
	struct ks_stream	ks;
	const unsigned char	*data;
	size_t			len;
	struct kleak_record	rec;
	struct klog_rec_hdr	hdr;
	bool			have_prev;
	__u64			prev_seq;
	/* the last allocation replayed from this CPU, if it may be merged */
	bool			have_last;
	struct kleak_record	last;
	__u32			last_caller;
};

struct totals {
	__u64	records;		/* kleak records */
	__u64	other;			/* other klog records, skipped */
	__u64	klog_lost;		/* loss markers in the streams */
	__u64	lost;			/* kleak sequence numbers missing */
	__u64	dup;			/* numbers seen twice */
	__u64	unordered;		/* records before a lower number */
	__u64	bad_type;
	__u64	events[KLEAK_NR_TYPES];
	__u64	failed;
	__u64	bytes_req, bytes_alloc;
	__u64	merged;			/* large kmalloc()s traced twice */
	__u64	reused;			/* allocated again without a free */
	__u64	matched;		/* frees of objects seen allocated */
	__u64	unknown;		/* frees of objects not seen */
	__u64	out, out_req, out_alloc;
	__u64	first_ts, last_ts;
};

struct report {
	const struct opts	*o;
	const char		*dir;
	struct src		*src;
	int			nsrc;
	struct u64map		live;		/* of struct live, by address */
	struct callers		callers;
	struct symtab		syms;
	struct info		info;
	struct totals		t;
	__u64			next_seq;
};

/*
 * Move @s to its next kleak record: 1, 0 at the end of the file, -1
 * (reported) on a corrupt stream or a record of another version.
 */
static int src_advance(struct report *r, struct src *s)
{
	struct ks_event ev;
	int ret;

	while ((ret = ks_next(&s->ks, s->data, s->len, &ev)) > 0) {
		if (ev.kind == KS_LOST)
			r->t.klog_lost += ev.count;
		if (ev.kind != KS_RECORD)
			continue;
		if (ev.rec.kind != KLOG_RELAY_RAW ||
		    ev.rec.len != sizeof(struct kleak_record)) {
			r->t.other++;
			continue;
		}
		memcpy(&s->rec, ev.payload, sizeof(s->rec));
		if (s->rec.magic != KLEAK_MAGIC) {
			r->t.other++;
			continue;
		}
		if (s->rec.version != KLEAK_VERSION) {
			ra_err("%s: kleak record version %u; this kleak reads version %d",
			       s->ks.name, s->rec.version, KLEAK_VERSION);
			return -1;
		}
		s->hdr = ev.rec;
		if (s->have_prev && s->rec.seq <= s->prev_seq)
			r->t.unordered++;
		s->have_prev = true;
		s->prev_seq = s->rec.seq;
		return 1;
	}
	if (ret < 0)
		ra_err("%s", s->ks.error);
	return ret;
}

/*
 * A large kmalloc() traced twice: first in __kmalloc_large_node_noprof(),
 * then with the real caller, one after the other on one CPU (frees from
 * interrupts may come between). @k is the second if the previous
 * allocation replayed from this CPU was the first: the same kmalloc
 * address (or both failed) and sizes, and not freed since.
 */
static bool traced_twice(struct report *r, const struct src *s,
			 const struct kleak_record *k)
{
	const struct kleak_record *p = &s->last;
	const struct live *l;

	if (!s->have_last || p->type != KLEAK_KMALLOC ||
	    k->type != KLEAK_KMALLOC || p->ptr != k->ptr ||
	    p->bytes_req != k->bytes_req || p->bytes_alloc != k->bytes_alloc)
		return false;
	if (!k->ptr)
		return true;
	l = u64map_find(&r->live, k->ptr);
	return l && l->seq == p->seq;
}

/* Take back what replaying the allocation @p by caller @ci counted. */
static void unreplay_alloc(struct report *r, const struct kleak_record *p,
			   __u32 ci)
{
	struct caller *c = &r->callers.v[ci];
	struct totals *t = &r->t;

	c->allocs--;
	t->events[p->type]--;
	if (!p->ptr) {
		c->failed--;
		t->failed--;
		return;
	}
	c->bytes_req -= p->bytes_req;
	c->bytes_alloc -= p->bytes_alloc;
	t->bytes_req -= p->bytes_req;
	t->bytes_alloc -= p->bytes_alloc;
	u64map_remove(&r->live, u64map_find(&r->live, p->ptr));
}

static int replay_alloc(struct report *r, struct src *s,
			const struct kleak_record *k)
{
	struct totals *t = &r->t;
	struct live *l, nl;
	struct caller *c;
	long ci;

	if (traced_twice(r, s, k)) {
		unreplay_alloc(r, &s->last, s->last_caller);
		t->merged++;
		s->have_last = false;
	} else {
		s->have_last = true;
	}
	ci = caller_get(&r->callers, k->call_site);
	if (ci < 0)
		return oom();
	s->last = *k;
	s->last_caller = ci;
	c = &r->callers.v[ci];
	c->allocs++;
	if (!k->ptr) {
		c->failed++;
		t->failed++;
		return 0;
	}
	c->bytes_req += k->bytes_req;
	c->bytes_alloc += k->bytes_alloc;
	t->bytes_req += k->bytes_req;
	t->bytes_alloc += k->bytes_alloc;
	l = u64map_find(&r->live, k->ptr);
	if (l) {
		/* freed where no tracepoint saw it */
		r->callers.v[l->caller].reused++;
		t->reused++;
		u64map_remove(&r->live, l);
	}
	nl = (struct live) {
		.ptr		= k->ptr,
		.bytes_req	= k->bytes_req,
		.bytes_alloc	= k->bytes_alloc,
		.seq		= k->seq,
		.caller		= ci,
		.type		= k->type,
	};
	return u64map_add(&r->live, &nl) ? 0 : oom();
}

static int replay_free(struct report *r, const struct kleak_record *k)
{
	long ci = caller_get(&r->callers, k->call_site);
	struct live *l;

	if (ci < 0)
		return oom();
	r->callers.v[ci].frees++;
	l = u64map_find(&r->live, k->ptr);
	if (!l) {
		r->t.unknown++;
		return 0;
	}
	r->callers.v[l->caller].freed++;
	r->t.matched++;
	u64map_remove(&r->live, l);
	return 0;
}

static int replay(struct report *r, struct src *s)
{
	const struct kleak_record *k = &s->rec;
	struct totals *t = &r->t;

	t->records++;
	if (k->seq > r->next_seq)
		t->lost += k->seq - r->next_seq;
	else if (k->seq < r->next_seq)
		t->dup++;
	if (k->seq >= r->next_seq)
		r->next_seq = k->seq + 1;
	if (!t->first_ts || s->hdr.ts_ns < t->first_ts)
		t->first_ts = s->hdr.ts_ns;
	if (s->hdr.ts_ns > t->last_ts)
		t->last_ts = s->hdr.ts_ns;
	if (k->type == 0 || k->type >= KLEAK_NR_TYPES) {
		t->bad_type++;
		return 0;
	}
	t->events[k->type]++;
	if (k->type == KLEAK_KMALLOC || k->type == KLEAK_CACHE_ALLOC)
		return replay_alloc(r, s, k);
	return replay_free(r, k);
}

/* Outstanding objects per caller, and in total. */
static void count_outstanding(struct report *r)
{
	size_t i;

	for (i = 0; i < r->live.cap; i++) {
		const struct live *l = u64map_slot(&r->live, i);
		struct caller *c;

		if (!l->ptr)
			continue;
		c = &r->callers.v[l->caller];
		c->out++;
		c->out_req += l->bytes_req;
		c->out_alloc += l->bytes_alloc;
		if (l->bytes_req < c->out_min)
			c->out_min = l->bytes_req;
		if (l->bytes_req > c->out_max)
			c->out_max = l->bytes_req;
		r->t.out++;
		r->t.out_req += l->bytes_req;
		r->t.out_alloc += l->bytes_alloc;
	}
}

/* qsort() has no context argument: the callers being sorted. */
static const struct caller *sort_callers;

static int cmp_u64_desc(__u64 a, __u64 b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int cmp_tie(const struct caller *x, const struct caller *y)
{
	return x->addr == y->addr ? 0 : x->addr < y->addr ? -1 : 1;
}

static int cmp_allocs(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->allocs, y->allocs) ?: cmp_tie(x, y);
}

static int cmp_frees(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->frees, y->frees) ?: cmp_tie(x, y);
}

static int cmp_out(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->out_req, y->out_req) ?:
	       cmp_u64_desc(x->out, y->out) ?: cmp_tie(x, y);
}

/*
 * The callers for which @key is non-zero, sorted by @cmp, in a
 * malloc()ed array of indices (*n of them).
 */
static __u32 *select_callers(const struct report *r, size_t key_off,
			     int (*cmp)(const void *, const void *), size_t *n)
{
	__u32 *v = malloc((r->callers.n ? r->callers.n : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < r->callers.n; i++) {
		__u64 key;

		memcpy(&key, (const char *)&r->callers.v[i] + key_off,
		       sizeof(key));
		if (key)
			v[(*n)++] = i;
	}
	sort_callers = r->callers.v;
	qsort(v, *n, sizeof(*v), cmp);
	return v;
}

static size_t shown(const struct report *r, size_t n)
{
	return r->o->top && (size_t)r->o->top < n ? (size_t)r->o->top : n;
}

static void table_title(const struct report *r, const char *what, size_t n)
{
	if (shown(r, n) < n)
		printf("\n%s (top %zu of %zu)\n", what, shown(r, n), n);
	else
		printf("\n%s (%zu)\n", what, n);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* The loss banner: first and last thing a reader of a lossy report sees. */
static void print_loss(const struct report *r, __u64 lost)
{
	fprintf(stdout,
		"*** %llu kleak records LOST (of %llu): the outstanding list may be wrong - a lost free shows as a leak, a lost allocation hides one. Record again with larger buffers (-b, -n). ***\n",
		(unsigned long long)lost,
		(unsigned long long)(r->t.records + lost));
}

static int print_report(struct report *r)
{
	const struct totals *t = &r->t;
	__u64 allocs = t->events[KLEAK_KMALLOC] + t->events[KLEAK_CACHE_ALLOC];
	__u64 frees = t->events[KLEAK_KFREE] + t->events[KLEAK_CACHE_FREE];
	__u64 lost = t->lost, tail = 0;
	double secs = r->info.duration;
	/* escaped: up to 4 bytes for each byte of a name */
	char sym[8 * SYM_NAME_MAX + 64], filter[4 * sizeof(r->info.filter)];
	__u32 *v;
	size_t n, i;

	if (r->info.has_seq && r->info.seq > r->next_seq)
		tail = r->info.seq - r->next_seq;
	lost += tail;
	if (!secs && t->last_ts > t->first_ts)
		secs = (t->last_ts - t->first_ts) / 1e9;

	if (lost)
		print_loss(r, lost);
	printf("kleak report of %s: %d CPUs, %.1f s, filter: %s\n", r->dir,
	       r->nsrc, secs,
	       ra_escape(filter, sizeof(filter), r->info.filter,
			 strlen(r->info.filter)));
	printf("records      %llu kleak records, %llu lost",
	       (unsigned long long)t->records, (unsigned long long)lost);
	if (!r->info.has_seq)
		printf(" (no %s: records lost after the last one cannot be seen)",
		       INFO_FILE);
	printf("; klog dropped %llu records in all; %llu other klog records skipped\n",
	       (unsigned long long)r->info.klog_dropped,
	       (unsigned long long)t->other);
	printf("allocations  %llu (kmalloc %llu, kmem_cache_alloc %llu), %llu failed\n",
	       (unsigned long long)allocs,
	       (unsigned long long)t->events[KLEAK_KMALLOC],
	       (unsigned long long)t->events[KLEAK_CACHE_ALLOC],
	       (unsigned long long)t->failed);
	fprintf(stdout,
		"frees        %llu (kfree %llu, kmem_cache_free %llu); %llu of them freed objects allocated before the capture or filtered out\n",
		(unsigned long long)frees,
		(unsigned long long)t->events[KLEAK_KFREE],
		(unsigned long long)t->events[KLEAK_CACHE_FREE],
		(unsigned long long)t->unknown);
	printf("bytes        %llu requested, %llu allocated, %llu slack (%.1f%%)\n",
	       (unsigned long long)t->bytes_req,
	       (unsigned long long)t->bytes_alloc,
	       (unsigned long long)(t->bytes_alloc - t->bytes_req),
	       pct(t->bytes_alloc - t->bytes_req, t->bytes_alloc));
	printf("outstanding  %llu objects, %llu bytes requested, %llu allocated\n",
	       (unsigned long long)t->out, (unsigned long long)t->out_req,
	       (unsigned long long)t->out_alloc);
	if (t->merged)
		printf("note         %llu large kmalloc()s traced twice, counted once\n",
		       (unsigned long long)t->merged);
	if (t->reused)
		fprintf(stdout,
			"note         %llu addresses were allocated again with no free seen: freed by kfree_bulk(), kfree_rcu() or kmem_cache_free_bulk(), which have no tracepoint (not counted outstanding)\n",
			(unsigned long long)t->reused);
	if (r->syms.hidden || !r->syms.n)
		printf("note         %s has no symbol addresses: callers are raw addresses\n",
		       r->syms.source);

	v = select_callers(r, offsetof(struct caller, allocs), cmp_allocs, &n);
	if (!v)
		return oom();
	table_title(r, "Allocations by caller", n);
	printf("%10s %10s %10s %13s %13s %11s  %s\n", "allocs", "freed",
	       "outstanding", "bytes_req", "bytes_alloc", "slack", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];

		printf("%10llu %10llu %10llu %13llu %13llu %11llu  %s\n",
		       (unsigned long long)c->allocs,
		       (unsigned long long)c->freed,
		       (unsigned long long)c->out,
		       (unsigned long long)c->bytes_req,
		       (unsigned long long)c->bytes_alloc,
		       (unsigned long long)(c->bytes_alloc - c->bytes_req),
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);

	v = select_callers(r, offsetof(struct caller, frees), cmp_frees, &n);
	if (!v)
		return oom();
	table_title(r, "Frees by caller", n);
	printf("%10s  %s\n", "frees", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];

		printf("%10llu  %s\n", (unsigned long long)c->frees,
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);

	v = select_callers(r, offsetof(struct caller, out), cmp_out, &n);
	if (!v)
		return oom();
	table_title(r, "Outstanding allocations by caller, largest first", n);
	printf("%10s %13s %13s %13s  %s\n", "objects", "bytes_req",
	       "bytes_alloc", "size", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];
		char size[48];

		if (c->out_min == c->out_max)
			snprintf(size, sizeof(size), "%llu",
				 (unsigned long long)c->out_min);
		else
			snprintf(size, sizeof(size), "%llu-%llu",
				 (unsigned long long)c->out_min,
				 (unsigned long long)c->out_max);
		printf("%10llu %13llu %13llu %13s  %s\n",
		       (unsigned long long)c->out,
		       (unsigned long long)c->out_req,
		       (unsigned long long)c->out_alloc, size,
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);
	if (lost) {
		printf("\n");
		print_loss(r, lost);
	}
	if (fflush(stdout) || ferror(stdout)) {
		ra_err("stdout: write: %s", strerror(errno));
		return -1;
	}
	if (lost)
		ra_err("*** %llu kleak records lost: the leak list may be wrong ***",
		       (unsigned long long)lost);
	return 0;
}

/* Find the symbols: DIR/kallsyms if saved, else the running kernel's. */
static int load_symbols(struct report *r)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->dir, SYMS_FILE);
	if (!symtab_load(&r->syms, path, true))
		return 0;
	if (errno != ENOENT)
		return -1;
	symtab_free(&r->syms);
	return symtab_load(&r->syms, KALLSYMS, false);
}

int make_report(const struct opts *o, const char *dir)
{
	struct report r = {
		.o = o, .dir = dir, .live = U64MAP_INIT(struct live),
		.callers.map = U64MAP_INIT(struct caller_slot),
	};
	struct ks_merge merge = { 0 };
	int *cpus = NULL, i, s, err = 0;
	__u64 key;

	/* DIR's files are read relative to it, opened once */
	if (ra_in_dir(dir))
		return 1;
	r.nsrc = ra_list_cpus(dir, &cpus);
	if (r.nsrc < 0)
		return 1;
	if (!r.nsrc) {
		ra_err("%s: no cpuN files (kleak -o DIR writes them)", dir);
		free(cpus);
		return 1;
	}
	if (info_read(dir, &r.info) || load_symbols(&r)) {
		err = 1;
		goto out;
	}
	r.src = calloc(r.nsrc, sizeof(*r.src));
	if (!r.src || ks_merge_init(&merge, r.nsrc)) {
		oom();
		err = 1;
		goto out;
	}
	for (i = 0; i < r.nsrc; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpus[i]);
		ks_init(&r.src[i].ks, cpus[i], path, 0);
		if (ra_map_file(path, &r.src[i].data, &r.src[i].len)) {
			err = 1;
			goto out;
		}
	}
	for (i = 0; i < r.nsrc; i++) {
		int ret = src_advance(&r, &r.src[i]);

		if (ret > 0)
			ks_merge_set(&merge, i, r.src[i].rec.seq);
		else if (ret < 0)
			err = 1;
	}
	/* the merge orders by its key: here the kleak sequence number */
	while (!err && (s = ks_merge_top(&merge, &key)) >= 0) {
		int ret;

		if (replay(&r, &r.src[s])) {
			err = 1;
			break;
		}
		ret = src_advance(&r, &r.src[s]);
		if (ret > 0)
			ks_merge_set(&merge, s, r.src[s].rec.seq);
		else
			ks_merge_remove(&merge, s);
		if (ret < 0)
			err = 1;
	}
	if (err) {
		ra_err("%s: the capture is damaged (see above): no report", dir);
		goto out;
	}
	if (!r.t.records) {
		ra_err("%s: no kleak records (%llu other klog records): was kleak-mod loaded and enabled?",
		       dir, (unsigned long long)r.t.other);
		err = 1;
		goto out;
	}
	/* kleak-mod's count when the capture stopped: no record is past it */
	if (r.info.has_seq && r.info.seq < r.next_seq) {
		ra_err("%s/%s: seq %llu, but the records go to seq %llu: not this capture's file",
		       dir, INFO_FILE, (unsigned long long)r.info.seq,
		       (unsigned long long)(r.next_seq - 1));
		err = 1;
		goto out;
	}
	count_outstanding(&r);
	if (print_report(&r))
		err = 1;
	if (r.t.dup || r.t.unordered || r.t.bad_type) {
		ra_err("%s: %llu records with a repeated sequence number, %llu out of order, %llu of unknown type: the capture is inconsistent",
		       dir, (unsigned long long)r.t.dup,
		       (unsigned long long)r.t.unordered,
		       (unsigned long long)r.t.bad_type);
		err = 1;
	}
out:
	for (i = 0; r.src && i < r.nsrc; i++) {
		if (r.src[i].len)
			munmap((void *)r.src[i].data, r.src[i].len);
		ks_release(&r.src[i].ks);
	}
	ks_merge_free(&merge);
	free(r.src);
	u64map_free(&r.live);
	free(r.callers.v);
	u64map_free(&r.callers.map);
	symtab_free(&r.syms);
	free(cpus);
	return err;
}
