// SPDX-License-Identifier: GPL-2.0
/*
 * kleak - the slab allocations a klog collection shows never freed
 *
 * What this sample teaches: reading a collection the klog tool saved
 * (klog -o DIR) with the tool's own stream decoder
 * (tools/lib/klog/klog-stream.h), picking one module's klog_raw()
 * records out of it - kleak-mod's (kleak.h) - and making a report of
 * them. kleak collects nothing itself: tools/klog does, and `klog -r` is
 * the real reader (filters, statistics, JSON and CTF export).
 *
 *   klog -o /tmp/kl -- sh -c 'insmod kleak-mod.ko && ./my_test && rmmod kleak_mod'
 *   kleak /tmp/kl
 *
 * How: each DIR/cpuN is decoded with ks_next(); raw records of the size
 * and magic of a struct kleak_record are kleak-mod's, the others are
 * counted and skipped. Sorted by number, kleak-mod's records must be
 * one sequence from 0 to its KLEAK_END record: a number missing is a
 * record lost, and the report says so first, since a lost free looks
 * like a leak and a lost allocation hides one. Sorted by address and
 * number, the last event of an address says whether its object is still
 * allocated; the objects still allocated are grouped by the caller of
 * the allocator, named from DIR/kallsyms (which klog saves), most bytes
 * first. Every kleak record is held in memory (48 bytes each).
 *
 * Nothing read is trusted: the decoder checks every size, a record of
 * another version or type, or two with one number, is an error naming
 * it, and names from DIR/kallsyms are escaped before they are printed.
 *
 * Exit status: 0 report printed, also with lost records (it says how
 * many); 1 the collection cannot be read, or DIR/kallsyms is bad (the
 * message names the file; the report, if any, shows addresses); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "klog-stream.h"	/* the one stream decoder */
#include "klog-format.h"	/* its kallsyms table */
#include "relay_app.h"		/* ra_err(), DIR and file helpers */
#include "kleak.h"

static const char help[] =
	"Usage: kleak [-r] DIR\n"
	"\n"
	"Report the slab allocations that a klog collection in DIR shows never freed,\n"
	"grouped by the caller of the allocator, most bytes first. The collection is\n"
	"made with the klog tool (tools/klog) while kleak-mod is loaded: kleak-mod\n"
	"records every kmalloc(), kmem_cache_alloc(), kfree() and kmem_cache_free()\n"
	"from its load to its unload. Callers are named from DIR/kallsyms.\n"
	"\n"
	"Records lost are reported first: a lost free looks like a leak. Load\n"
	"kleak-mod once klog records, unload it before klog stops, and give klog\n"
	"larger buffers (-b, -n) if records were lost.\n"
	"\n"
	"  -r, --report DIR   the same as DIR, as for klog -r\n"
	"  -h, --help         this text\n"
	"\n"
	"Example (kleak-test-mod keeps 37 kmalloc()s of 200 bytes):\n"
	"  klog -o /tmp/kl -- sh -c 'insmod samples/klog/kleak/kleak-mod.ko && \\\n"
	"    insmod samples/klog/kleak/kleak-test-mod.ko leak=37 size=200 && rmmod kleak_mod'\n"
	"  kleak /tmp/kl\n"
	"\n"
	"Exit status: 0 report printed, also with lost records (it says how many);\n"
	"1 the collection cannot be read or DIR/kallsyms is bad; 2 usage error.\n";

/* The objects one call site allocated and nobody freed. */
struct caller {
	__u64	site, objects, bytes_req, bytes_alloc, min, max;
};

struct kleak {
	const char		*dir;
	struct kleak_record	*v;	/* kleak-mod's records */
	size_t			n, cap;
	__u64			other;	/* other klog records */
	__u64			lost;	/* numbers missing up to the last */
	bool			end;	/* the last is KLEAK_END */
	struct klog_ksyms	*syms;	/* NULL: callers as addresses */
};

static bool is_alloc(const struct kleak_record *r)
{
	return r->type == KLEAK_KMALLOC || r->type == KLEAK_CACHE_ALLOC;
}

static int cmp_u64(__u64 a, __u64 b)
{
	return a < b ? -1 : a > b;
}

static int by_seq(const void *a, const void *b)
{
	const struct kleak_record *x = a, *y = b;

	return cmp_u64(x->seq, y->seq);
}

static int by_ptr(const void *a, const void *b)
{
	const struct kleak_record *x = a, *y = b;

	return cmp_u64(x->ptr, y->ptr) ?: cmp_u64(x->seq, y->seq);
}

static int by_site(const void *a, const void *b)
{
	const struct kleak_record *x = a, *y = b;

	return cmp_u64(x->call_site, y->call_site);
}

static int by_bytes(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;

	return cmp_u64(y->bytes_req, x->bytes_req) ?:
	       cmp_u64(y->objects, x->objects) ?: cmp_u64(x->site, y->site);
}

/* kleak-mod's records of DIR/cpuN into @k. 0, or -1 after a message. */
static int read_cpu(struct kleak *k, int cpu)
{
	const unsigned char *data = NULL;
	struct kleak_record r;
	struct ks_stream ks;
	struct ks_event ev;
	char path[4096];
	size_t len = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/cpu%d", k->dir, cpu);
	if (ra_map_file(path, &data, &len))
		return -1;
	ks_init(&ks, cpu, path, 0);
	while ((ret = ks_next(&ks, data, len, &ev)) > 0) {
		if (ev.kind != KS_RECORD)
			continue;
		if (ev.rec.kind != KLOG_RELAY_RAW || ev.rec.len != sizeof(r)) {
			k->other++;
			continue;
		}
		memcpy(&r, ev.payload, sizeof(r));
		if (r.magic != KLEAK_MAGIC) {
			k->other++;
			continue;
		}
		if (r.version != KLEAK_VERSION) {
			ra_err("%s: a kleak record of version %u; this kleak reads version %d",
			       path, r.version, KLEAK_VERSION);
			ret = -1;
			break;
		}
		if (k->n == k->cap) {
			size_t cap = k->cap ? 2 * k->cap : 4096;
			void *v = realloc(k->v, cap * sizeof(*k->v));

			if (!v) {
				ra_err("%s: out of memory", path);
				ret = -1;
				break;
			}
			k->v = v;
			k->cap = cap;
		}
		k->v[k->n++] = r;
	}
	if (ks.failed)
		ra_err("%s", ks.error);
	ks_release(&ks);
	if (len)
		munmap((void *)data, len);
	return ret;
}

/* Beyond what kleak-mod writes: the sums of a report cannot wrap. */
#define KLEAK_SEQ_MAX		0x4000000000000000ULL	/* 2^62 */
#define KLEAK_BYTES_MAX		0x100000000ULL	/* 4 GiB: no slab object is */

/*
 * Sort by number and check the sequence: each number once, known
 * types, numbers and sizes kleak-mod writes, nothing after the end.
 * Count the numbers missing. 0 or -1.
 */
static int check_seq(struct kleak *k)
{
	const struct kleak_record *last;
	size_t i;

	qsort(k->v, k->n, sizeof(*k->v), by_seq);
	for (i = 0; i < k->n; i++) {
		const struct kleak_record *r = &k->v[i];

		if (r->type < KLEAK_KMALLOC || r->type > KLEAK_END) {
			ra_err("%s: kleak record %llu has an unknown type %u",
			       k->dir, (unsigned long long)r->seq, r->type);
			return -1;
		}
		/* a failed allocation (no object) may ask for any size */
		if (r->seq > KLEAK_SEQ_MAX ||
		    (r->ptr && (r->bytes_req > KLEAK_BYTES_MAX ||
				r->bytes_alloc > KLEAK_BYTES_MAX))) {
			ra_err("%s: kleak record %llu: a number above 2^62 or a size above 4 GiB (%llu, %llu bytes)",
			       k->dir, (unsigned long long)r->seq,
			       (unsigned long long)r->bytes_req,
			       (unsigned long long)r->bytes_alloc);
			return -1;
		}
		if (i && r->seq == r[-1].seq) {
			ra_err("%s: two kleak records numbered %llu (kleak-mod loaded twice in one collection?)",
			       k->dir, (unsigned long long)r->seq);
			return -1;
		}
		if (r->type == KLEAK_END && i != k->n - 1) {
			ra_err("%s: kleak records numbered after the end record %llu",
			       k->dir, (unsigned long long)r->seq);
			return -1;
		}
	}
	/* n different numbers, none above last's: at most last + 1 */
	last = &k->v[k->n - 1];
	k->lost = last->seq - (k->n - 1);
	k->end = last->type == KLEAK_END;
	return 0;
}

/*
 * The objects still allocated, by caller, into a malloc()ed array of
 * *n callers, most bytes first. Reorders k->v. NULL if out of memory.
 */
static struct caller *outstanding(struct kleak *k, size_t *n)
{
	struct caller *c;
	size_t i, m = 0;

	/* by address, then number: the last event of an address tells */
	qsort(k->v, k->n, sizeof(*k->v), by_ptr);
	for (i = 0; i < k->n; i++) {
		const struct kleak_record *r = &k->v[i];

		if (r->ptr && is_alloc(r) &&
		    (i + 1 == k->n || k->v[i + 1].ptr != r->ptr))
			k->v[m++] = *r;
	}
	qsort(k->v, m, sizeof(*k->v), by_site);
	c = calloc(m ? m : 1, sizeof(*c));
	if (!c)
		return NULL;
	*n = 0;
	for (i = 0; i < m; i++) {
		const struct kleak_record *r = &k->v[i];
		struct caller *p = &c[*n ? *n - 1 : 0];

		if (!*n || p->site != r->call_site) {
			p = &c[(*n)++];
			p->site = r->call_site;
			p->min = r->bytes_req;
		}
		p->objects++;
		p->bytes_req += r->bytes_req;
		p->bytes_alloc += r->bytes_alloc;
		if (r->bytes_req < p->min)
			p->min = r->bytes_req;
		if (r->bytes_req > p->max)
			p->max = r->bytes_req;
	}
	qsort(c, *n, sizeof(*c), by_bytes);
	return c;
}

/* DIR/kallsyms: 0, or -1 after a message (callers then as addresses). */
static int load_syms(struct kleak *k)
{
	char path[4096], err[4096 + 256];
	int ret;

	snprintf(path, sizeof(path), "%s/kallsyms", k->dir);
	ret = klog_ksyms_load(path, &k->syms, err, sizeof(err));
	if (ret == -ENOENT || ret == -EPERM)
		printf("note         %s: callers are shown as addresses\n",
		       ret == -ENOENT ? "no DIR/kallsyms" :
		       "DIR/kallsyms has no addresses (not read as root)");
	else if (ret)
		ra_err("%s; callers are shown as addresses", err);
	return ret && ret != -ENOENT && ret != -EPERM ? -1 : 0;
}

static void print_row(const struct kleak *k, const struct caller *c)
{
	char sym[8192], esc[4 * sizeof(sym) + 1], size[48];

	sym[0] = '\0';
	if (k->syms)
		klog_ksyms_sprint(k->syms, c->site, sym, sizeof(sym));
	if (!sym[0])
		snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)c->site);
	if (c->min == c->max)
		snprintf(size, sizeof(size), "%llu", (unsigned long long)c->min);
	else
		snprintf(size, sizeof(size), "%llu-%llu",
			 (unsigned long long)c->min, (unsigned long long)c->max);
	printf("%10llu %12llu %12llu %13s  %s\n",
	       (unsigned long long)c->objects,
	       (unsigned long long)c->bytes_req,
	       (unsigned long long)c->bytes_alloc, size,
	       ra_escape(esc, sizeof(esc), sym, strlen(sym)));
}

static int report(struct kleak *k)
{
	unsigned long long objects = 0, req = 0, alloc = 0;
	unsigned long long last = k->v[k->n - 1].seq;
	struct caller *c;
	size_t n, i;
	int err;

	if (k->lost)
		printf("*** %llu of %llu kleak records LOST: %s ***\n",
		       (unsigned long long)k->lost, last + 1,
		       "a lost free looks like a leak, a lost allocation hides one. Load kleak-mod once klog records, or give klog larger buffers (-b, -n).");
	if (!k->end)
		printf("*** no end record: %s %llu cannot be counted ***\n",
		       "kleak-mod was still loaded when the collection stopped, or its last records were lost; records lost after number",
		       last);
	err = load_syms(k);
	c = outstanding(k, &n);
	if (!c) {
		ra_err("out of memory");
		return 1;
	}
	for (i = 0; i < n; i++) {
		objects += c[i].objects;
		req += c[i].bytes_req;
		alloc += c[i].bytes_alloc;
	}
	printf("records      %zu kleak records, %llu lost; %llu other klog records skipped\n",
	       k->n, (unsigned long long)k->lost, (unsigned long long)k->other);
	printf("outstanding  %llu objects, %llu bytes requested, %llu allocated\n\n",
	       objects, req, alloc);
	printf("%10s %12s %12s %13s  %s\n", "objects", "bytes_req",
	       "bytes_alloc", "size", "caller");
	for (i = 0; i < n; i++)
		print_row(k, &c[i]);
	free(c);
	if (fflush(stdout) || ferror(stdout)) {
		ra_err("stdout: %s", strerror(errno));
		return 1;
	}
	if (k->lost)
		ra_err("%s: %llu kleak records lost: the leak list may be wrong",
		       k->dir, (unsigned long long)k->lost);
	if (!k->end)
		ra_err("%s: no end record: loss after the last record cannot be seen",
		       k->dir);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct kleak k = { 0 };
	int *cpus = NULL, ncpus, i, c, ret = 1;

	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return 0;
		}
		if (c != 'r') {		/* getopt said what was wrong */
			fputs("Try 'kleak --help' for more information.\n", stderr);
			return 2;
		}
		if (k.dir)
			usage_error("one DIR only");
		k.dir = optarg;
	}
	if (!k.dir && optind < argc)
		k.dir = argv[optind++];
	if (!k.dir)
		usage_error("no DIR given (a collection made with klog -o DIR)");
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	/* DIR's files are read relative to it, opened once */
	if (ra_in_dir(k.dir))
		return 1;
	ncpus = ra_list_cpus(k.dir, &cpus);
	if (ncpus < 0)
		return 1;
	if (!ncpus)
		ra_err("%s: no cpuN files (klog -o DIR writes them)", k.dir);
	for (i = 0; i < ncpus; i++)
		if (read_cpu(&k, cpus[i]))
			goto out;
	if (ncpus && !k.n)
		ra_err("%s: no kleak records (%llu other klog records): was kleak-mod loaded during the collection?",
		       k.dir, (unsigned long long)k.other);
	if (k.n && !check_seq(&k))
		ret = report(&k);
out:
	klog_ksyms_free(k.syms);
	free(k.v);
	free(cpus);
	return ret;
}
