// SPDX-License-Identifier: GPL-2.0
/*
 * gen.c - a valid version-3 klog collection with known records, for the
 * fuzz smoke of the report paths (checks/fuzz/fuzz.py)
 *
 *   gen DIR SEED
 *
 * writes DIR/cpuN (the streams as read(2) returns them, with klog-stream's
 * encoder: ks_put_subbuf_hdr(), ks_put_record(), ks_put_comm()), DIR/sites,
 * DIR/meta and DIR/kallsyms, all from SEED alone (the same SEED gives the
 * same bytes), and prints on stdout what it wrote, one item per line, for
 * the fuzzer to aim its mutations and to judge klog -r's output:
 *
 *   buf B FILE                     a buffer (B counts from 0, FILE is cpuN)
 *   subbuf B OFF SIZE SEQ          a sub-buffer header at offset OFF
 *   comm B OFF SIZE SEQ PID        a COMM record
 *   rec B OFF SIZE SEQ KIND SITE LEN TS  a record (KIND 0 text, 1 raw,
 *                                  2 args); its payload is at OFF + 40
 *   argstr B OFF                   a klog_args_str in an argument block
 *                                  (file offset of its len field)
 *   argstar B OFF                  a '*' width or precision value (u32)
 *   site ID KIND FMT               a site of DIR/sites (FMT as written there)
 *   lost B N                       records the stream shows as lost
 *   subbufs_lost B N               sub-buffers the stream shows as lost
 *   ts MIN MAX                     the records' timestamps
 *
 * The records: text (printable and not), raw, and argument records of
 * every argument tag with their sites' formats; COMM records as the
 * handler writes them (first record of each sub-buffer, pid changes);
 * gaps in the record seq with the headers' lost to match, a gap in the
 * sub-buffer seq, NMI records earlier than the record before them.
 * Strings in argument blocks use only STR_ALPHABET, so a text made of
 * other bytes did not come from the input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/klog_args.h>

#include "klog-stream.h"

#define STR_ALPHABET	"abcdefghijklmnopqrstuvwxyz0123456789_-"
#define MAXBUF		4

static unsigned long long rng_state;

/* xorshift64*: the same sequence for a seed everywhere */
static unsigned long long rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return n ? (unsigned int)((rnd() >> 33) % n) : 0;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "gen: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(99);
}

#define ENC(call)	do { if (call) die("out of memory"); } while (0)

static void write_file(const char *dir, const char *name, const void *p,
		       size_t n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd))
		die("%s: %s", path, strerror(errno));
}

/*
 * The sites. Text and raw records name sites 1 and 2; argument records
 * one of the others, whose block matches its format.
 */
enum { A_U32, A_U64, A_PTR, A_SYM, A_STR, A_TEXT, A_STAR };
static const struct gsite {
	const char *kind, *func, *fmt;	/* fmt as in DIR/sites (escaped) */
	int nargs;
	int tags[6];
} sites[] = {
	{ "text", "text_fn", "%s", 0, { 0 } },
	{ "raw", "raw_fn", "", 0, { 0 } },
	{ "text", "num_fn", "n=%d s=%s\\n", 2, { A_U32, A_STR } },
	{ "text", "cols_fn", "%5u|%-8s|%x", 3, { A_U32, A_STR, A_U32 } },
	{ "text", "ll_fn", "%llu %lld", 2, { A_U64, A_U64 } },
	{ "text", "star_fn", "w=%*d p=%.*s", 4, { A_STAR, A_U32, A_STAR, A_STR } },
	{ "text", "sym_fn", "at %pS %ps", 2, { A_SYM, A_SYM } },
	{ "text", "ptr_fn", "ptr %p", 1, { A_PTR } },
	{ "text", "chr_fn", "%c%c %hhd %hd", 4, { A_U32, A_U32, A_U32, A_U32 } },
	{ "text", "long_fn", "%08lx %zu %%", 2, { A_U64, A_U64 } },
	{ "text", "ip_fn", "ip %pI4", 1, { A_TEXT } },
	{ "text", "pad_fn", "%-10s|%10.3s|", 2, { A_STR, A_STR } },
};
#define NSITES	(int)(sizeof(sites) / sizeof(sites[0]))
#define SITE_ID(i)	(100 + (i))

static const char ksyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T core_fn\n"
	"ffffffffc0001000 t mod_fn\t[gen_mod]\n"
	"ffffffffc0001040 t mod_next\t[gen_mod]\n";

struct gbuf {
	struct ks_buf	b;
	int		cpu;
	unsigned long long seq, subseq, lost_since_hdr, seq_lost, hdr_lost;
	unsigned long long subbufs_lost;
	__u32		pid;
};

static unsigned long long ts_now = 1000000000ULL, ts_min = ~0ULL, ts_max;

static void put_str(struct ks_buf *b, struct gbuf *g, size_t maxlen)
{
	struct klog_args_str sh;
	char s[256];
	size_t i, n = below(maxlen + 1);

	for (i = 0; i < n; i++)
		s[i] = STR_ALPHABET[below(sizeof(STR_ALPHABET) - 1)];
	sh.len = n;
	sh.copied = n;
	printf("argstr %d %zu\n", g->cpu, g->b.len + 40 + b->len);
	ENC(ks_put(b, &sh, sizeof(sh)));
	ENC(ks_put(b, s, n));
}

static void put_tag(struct ks_buf *b, __u8 tag, const void *v, size_t n)
{
	ENC(ks_put(b, &tag, 1));
	ENC(ks_put(b, v, n));
}

/* The argument block of a record of site @si into @blk. */
static void args_block(struct ks_buf *blk, struct gbuf *g, int si)
{
	const struct gsite *s = &sites[si];
	struct klog_args_hdr h = { KLOG_ARGS_VERSION, s->nargs, 8, 0 };
	int i;

	ENC(ks_put(blk, &h, sizeof(h)));
	for (i = 0; i < s->nargs; i++) {
		__u32 v32 = (__u32)rnd();
		__u64 v64 = rnd();
		__u8 tag;

		switch (s->tags[i]) {
		case A_STAR:
			v32 = below(20);
			printf("argstar %d %zu\n", g->cpu, g->b.len + 40 + blk->len + 1);
			/* fallthrough */
		case A_U32:
			put_tag(blk, KLOG_ARG_U32, &v32, 4);
			break;
		case A_U64:
			put_tag(blk, KLOG_ARG_U64, &v64, 8);
			break;
		case A_PTR:
			put_tag(blk, KLOG_ARG_PTR, &v64, 8);
			break;
		case A_SYM:
			v64 = below(2) ? 0xffffffffc0001000ULL + below(0x80) :
				0xffffffff81000100ULL + below(0x40);
			put_tag(blk, KLOG_ARG_SYM, &v64, 8);
			break;
		case A_STR:
			tag = KLOG_ARG_STR;
			ENC(ks_put(blk, &tag, 1));
			put_str(blk, g, 40);
			break;
		case A_TEXT: {
			char ip[16];
			struct klog_args_str sh;

			sh.len = snprintf(ip, sizeof(ip), "%u.%u.%u.%u", below(256),
					  below(256), below(256), below(256));
			sh.copied = sh.len;
			tag = KLOG_ARG_TEXT;
			ENC(ks_put(blk, &tag, 1));
			ENC(ks_put(blk, &sh, sizeof(sh)));
			ENC(ks_put(blk, ip, sh.len));
			break;
		}
		}
	}
}

/* records dropped: a gap in the seq, counted in the next header */
static void gap(struct gbuf *g)
{
	unsigned int n = 1 + below(3);

	g->seq += n;
	g->seq_lost += n;
	g->lost_since_hdr += n;
}

static void record(struct gbuf *g, bool first_in_subbuf)
{
	static const char textchars[] =
		"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:=-\\\t\n\x07\x1b\x7f\xc3\xa9\xff";
	struct klog_rec_hdr r = { 0 };
	struct ks_buf payload = { 0 };
	unsigned int k = below(100), i, n;
	__u32 pid = g->pid;
	size_t off;
	int si;

	if (below(8) == 0)
		pid = 1 + below(5);
	if (!first_in_subbuf && below(20) == 0)
		gap(g);
	ts_now += 1 + below(5000);
	r.ts_ns = ts_now;
	r.ctx = below(4);
	if (r.ctx == KLOG_RELAY_CTX_NMI)	/* made earlier, moved later */
		r.ts_ns -= below(3000);
	r.seq = g->seq;
	r.pid = pid;
	r.cpu = g->cpu;
	if (first_in_subbuf || pid != g->pid) {
		off = g->b.len;
		ENC(ks_put_comm(&g->b, pid, pid == 1 ? "init" : "task x", r.seq,
				r.ts_ns, g->cpu));
		printf("comm %d %zu %zu %llu %u\n", g->cpu, off, g->b.len - off,
		       (unsigned long long)r.seq, pid);
	}
	g->pid = pid;
	if (k < 35) {
		si = 0;
		r.kind = KLOG_RELAY_TEXT;
		n = below(60);
		for (i = 0; i < n; i++) {
			char c = textchars[below(sizeof(textchars) - 1)];

			ENC(ks_put(&payload, &c, 1));
		}
		if (below(10) == 0)
			r.flags |= KLOG_RELAY_TRUNCATED;
	} else if (k < 50) {
		si = 1;
		r.kind = KLOG_RELAY_RAW;
		n = below(100);
		for (i = 0; i < n; i++) {
			unsigned char c = rnd();

			ENC(ks_put(&payload, &c, 1));
		}
	} else {
		si = 2 + below(NSITES - 2);
		r.kind = KLOG_RELAY_ARGS;
		args_block(&payload, g, si);	/* prints offsets in the file */
	}
	if (below(50) == 0)
		r.flags |= KLOG_RELAY_TRIGGER;
	r.site_id = SITE_ID(si);
	r.len = payload.len;
	off = g->b.len;
	ENC(ks_put_record(&g->b, &r, payload.p));
	printf("rec %d %zu %zu %llu %u %u %u %llu\n", g->cpu, off,
	       g->b.len - off, (unsigned long long)r.seq, r.kind, r.site_id,
	       r.len, (unsigned long long)r.ts_ns);
	if (r.ts_ns < ts_min)
		ts_min = r.ts_ns;
	if (r.ts_ns > ts_max)
		ts_max = r.ts_ns;
	g->seq++;
	ks_buf_free(&payload);
}

static void subbuf(struct gbuf *g)
{
	size_t off = g->b.len;

	/*
	 * Records dropped before this sub-buffer's first record are in its
	 * header's lost: the headers so far account for every gap before it.
	 */
	if (below(6) == 0)
		gap(g);

	if (g->subseq && below(12) == 0) {	/* sub-buffers overwritten */
		g->subseq++;
		g->subbufs_lost++;
	}
	ENC(ks_put_subbuf_hdr(&g->b, g->cpu, g->subseq, g->lost_since_hdr,
			      g->subseq ? ts_now : 0));
	printf("subbuf %d %zu %zu %llu\n", g->cpu, off, g->b.len - off,
	       (unsigned long long)g->subseq);
	g->hdr_lost += g->lost_since_hdr;
	g->lost_since_hdr = 0;
	g->subseq++;
}

int main(int argc, char **argv)
{
	struct gbuf g[MAXBUF] = { 0 };
	struct ks_buf t = { 0 };
	const char *dir;
	char name[32], line[512];
	int nbuf, i, j, s;

	if (argc != 3)
		die("usage: gen DIR SEED");
	dir = argv[1];
	rng_state = strtoull(argv[2], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	if (mkdir(dir, 0700) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	nbuf = 2 + below(MAXBUF - 1);
	for (i = 0; i < nbuf; i++) {
		int nsb = 1 + below(3);

		g[i].cpu = i;
		g[i].pid = 1;
		printf("buf %d cpu%d\n", i, i);
		for (s = 0; s < nsb; s++) {
			int nrec = 3 + below(25);

			subbuf(&g[i]);
			for (j = 0; j < nrec; j++)
				record(&g[i], j == 0);
		}
		if (below(4) == 0) {	/* dropped after the last record: */
			g[i].lost_since_hdr += 1 + below(4);
			subbuf(&g[i]);	/* no gap shows them, a header does */
		}
		snprintf(name, sizeof(name), "cpu%d", i);
		write_file(dir, name, g[i].b.p, g[i].b.len);
		/* what klog's decoder shows: the larger of gaps and headers */
		printf("lost %d %llu\n", i, (unsigned long long)
		       (g[i].hdr_lost > g[i].seq_lost ? g[i].hdr_lost : g[i].seq_lost));
		printf("subbufs_lost %d %llu\n", i, g[i].subbufs_lost);
		ks_buf_free(&g[i].b);
	}
	snprintf(line, sizeof(line), KS_SITES_HEADER " forgotten=0\n");
	ENC(ks_put(&t, line, strlen(line)));
	for (i = 0; i < NSITES; i++) {
		snprintf(line, sizeof(line), "%d\tlive\t%s\tgen_mod\tgen.c\t%d\t%s\t%s\n",
			 SITE_ID(i), sites[i].kind, 10 + i, sites[i].func,
			 sites[i].fmt);
		ENC(ks_put(&t, line, strlen(line)));
		printf("site %d %s %s\n", SITE_ID(i), sites[i].kind, sites[i].fmt);
	}
	write_file(dir, "sites", t.p, t.len);
	write_file(dir, "kallsyms", ksyms, strlen(ksyms));
	t.len = 0;
	snprintf(line, sizeof(line),
		 "klog-meta 1\nkind collection\nrelease 6.12.0\nmachine x86_64\n"
		 "hostname fuzz\nbuffers per-cpu\ncpus %d\nsubbuf_size 4096\n"
		 "n_subbufs 4\nread_mode read\nstart 1764545000.000000000\n"
		 "stop 1764545010.000000000\nstop_reason duration reached\n"
		 "clock_start %llu 1764545000.000000000\n"
		 "clock_stop %llu 1764545010.000000000\n", nbuf,
		 ts_min - 1000, ts_min - 1000 + 10000000000ULL);
	ENC(ks_put(&t, line, strlen(line)));
	for (i = 0; i < nbuf; i++) {
		snprintf(line, sizeof(line),
			 "dropped cpu%d full=0 big=0 nmi=0 nest=0 frozen=0 reentered=0\n", i);
		ENC(ks_put(&t, line, strlen(line)));
	}
	write_file(dir, "meta", t.p, t.len);
	ks_buf_free(&t);
	printf("ts %llu %llu\n", ts_min, ts_max);
	return fflush(stdout) ? 1 : 0;
}
