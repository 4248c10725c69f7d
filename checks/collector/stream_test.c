// SPDX-License-Identifier: GPL-2.0
/*
 * stream_test.c - host-side fixtures and unit tests for the klog collector
 *
 * DOC: overview
 *
 * The kernel side cannot run on the build host, so this program makes
 * what it would produce and checks the decoder directly. run.sh drives it:
 *
 *   stream_test gen DIR            DIR/cpu0..2: streams as read(2) returns
 *                                  them (text and raw records, non-printable
 *                                  bytes, a truncated record, record and
 *                                  sub-buffer seq gaps, loss seen only in a
 *                                  header, an empty sub-buffer)
 *                                  and DIR/sites, in stream version 2
 *   stream_test gen2 DIR           the same streams in version 2 (before
 *                                  argument records: the same layout)
 *   stream_test gen1 DIR           the same streams in version 1 (function
 *                                  names in the records), no DIR/sites
 *   stream_test comm DIR           version 2 with COMM records (task
 *                                  names), an unknown site id
 *   stream_test global DIR         DIR/cpu0 as a global buffer: records
 *                                  of several CPUs, one with the trigger flag
 *   stream_test corrupt KIND DIR   DIR/cpu0 broken one way (KIND: size13,
 *                                  size16, fit, noheader, hold, swallow,
 *                                  lostwrap, commlen)
 *   stream_test fake MODE DIR      a fake debugfs directory (regular
 *                                  files) with the gen streams: MODE read:
 *                                  cpuN as read(2) returns it; MODE mmap:
 *                                  cpuN is the ring (4 x 4096 bytes, stale
 *                                  junk in padding and unproduced space),
 *                                  cpuN.produced says how many are done;
 *                                  control files, stats and dropped to match
 *   stream_test fake live DIR      the same with FIFOs for cpuN, fed by:
 *   stream_test live DIR SECONDS   one writer process per FIFO makes
 *                                  records (timestamps from CLOCK_MONOTONIC,
 *                                  random text, some seq gaps with the
 *                                  header's lost to match) for SECONDS and
 *                                  writes them in randomly cut chunks at
 *                                  random pauses, like a live relay read;
 *                                  DIR/expect-cpuN get the same bytes, then
 *                                  stats/dropped get the counts
 *   stream_test unit               decoder unit tests: chunked ks_feed()
 *                                  equals ks_next() for every chunk size,
 *                                  size checks, ks_subbuf_used(), the merge
 *                                  heap against a linear scan
 *
 * Streams are written with klog-stream's encoder (ks_put_record(),
 * ks_put_comm(), ks_put_record_v1()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/klog_args.h>

#include "../../tools/lib/klog/relay_app.h"	/* __printf(), __noreturn */
#include "klog-stream.h"

#define NCPU		3
#define MAXSB		4
#define FAKE_SBSIZE	4096
#define FAKE_NSB	4

/* The gen streams, one entry per sub-buffer. */
struct cpu_stream {
	struct ks_buf	sb[MAXSB];
	int		nsb;
};

static int failures;
static int rec_cpu;	/* klog_rec_hdr.cpu of the records rec() makes */

__printf(1, 2) __noreturn
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "stream_test: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(99);
}

__printf(2, 3)
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failures++;
	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* The encoder's calls; out of memory ends the test. */
#define ENC(call)	do { if (call) die("out of memory"); } while (0)
#define put(b, p, n)	ENC(ks_put(b, p, n))
#define hdr(b, ...)	ENC(ks_put_subbuf_hdr_v(b, gen_version, __VA_ARGS__))

/*
 * The stream version the fixtures are written in: 2 (sites by id, the
 * table in DIR/sites) or 1 (the function name in every record), so that
 * one set of fixtures and expected lines checks both decoders.
 */
static int gen_version = KLOG_RELAY_VERSION;

/* The sites the version 2 records name: (func, line) -> id from 101. */
#define SITE_ID0	101
static struct { const char *func; __u32 line; } gen_sites[64];
static int gen_nsites;

static __u32 site_id(const char *func, __u32 line)
{
	int i;

	for (i = 0; i < gen_nsites; i++)
		if (!strcmp(gen_sites[i].func, func) && gen_sites[i].line == line)
			return SITE_ID0 + i;
	if (gen_nsites == 64)
		die("too many sites");
	gen_sites[gen_nsites].func = func;
	gen_sites[gen_nsites].line = line;
	return SITE_ID0 + gen_nsites++;
}

static void rec(struct ks_buf *b, __u64 seq, __u64 ts, __u32 pid,
		__u32 line, __u8 kind, __u8 ctx, __u8 flags,
		const char *func, const void *payload, __u32 len)
{
	struct klog_rec_hdr r = {
		.len = len, .ts_ns = ts, .seq = seq, .pid = pid,
		.site_id = site_id(func, line),
		.kind = kind, .ctx = ctx, .flags = flags, .cpu = rec_cpu,
	};
	struct klog_rec_hdr_v1 r1 = {
		.len = len, .ts_ns = ts, .seq = seq, .pid = pid, .line = line,
		.kind = kind, .ctx = ctx, .flags = flags, .cpu = rec_cpu,
	};

	if (gen_version == 1)
		ENC(ks_put_record_v1(b, &r1, func, payload));
	else
		ENC(ks_put_record(b, &r, payload));
}

/* A text record: its payload is the string @s, without the NUL. */
#define text(b, seq, ts, pid, line, ctx, flags, func, s) \
	rec(b, seq, ts, pid, line, KLOG_RELAY_TEXT, ctx, flags, func, s, strlen(s))

/*
 * Set the padding field of every sub-buffer, as if all were finished
 * (by the final flush) before they were read, so that both layouts
 * yield the same bytes. (A real read(2) reader may see 0 in a header it
 * read while the sub-buffer was still being filled.)
 */
static void set_padding(struct cpu_stream *cs)
{
	int i;

	for (i = 0; i < cs->nsb; i++) {
		struct klog_subbuf_hdr *h = (void *)cs->sb[i].p;

		h->padding = FAKE_SBSIZE - cs->sb[i].len;
	}
}

/* Start @cs's next sub-buffer (its header); rec() now writes @cpu's. */
static struct ks_buf *subbuf(struct cpu_stream *cs, int cpu, __u64 seq,
			     __u64 lost, __u64 first_ts)
{
	struct ks_buf *b = &cs->sb[cs->nsb++];

	rec_cpu = cpu;
	hdr(b, cpu, seq, lost, first_ts);
	return b;
}

/* The streams the expected text in run.sh describes. */
static void make_streams(struct cpu_stream cs[NCPU])
{
	unsigned char raw5[] = { 0x01, 0x02, 0x03, 0xab, 0xff }, raw70[70];
	struct ks_buf *b;
	int i;

	for (i = 0; i < 70; i++)
		raw70[i] = i;
	memset(cs, 0, NCPU * sizeof(*cs));

	b = subbuf(&cs[0], 0, 0, 0, 0);
	text(b, 0, 1000000100, 1, 10, KLOG_RELAY_CTX_TASK, 0, "init_fn",
	     "hello world\n");
	text(b, 1, 1000000300, 2, 20, KLOG_RELAY_CTX_SOFTIRQ, 0, "net_rx",
	     "tab\there \\ bell\a nl\nend\n");
	/* seq 2 and 3 dropped */
	rec(b, 4, 1000000500, 3, 30, KLOG_RELAY_RAW, KLOG_RELAY_CTX_HARDIRQ, 0,
	    "irq_fn", raw5, sizeof(raw5));
	b = subbuf(&cs[0], 0, 1, 2, 1000000700);
	text(b, 5, 1000000700, 4, 40, KLOG_RELAY_CTX_NMI, KLOG_RELAY_TRUNCATED,
	     "nmi_fn", "cut off");
	rec(b, 6, 2500000000ULL, 0, 50, KLOG_RELAY_RAW, KLOG_RELAY_CTX_TASK, 0,
	    "late", raw70, sizeof(raw70));

	b = subbuf(&cs[1], 1, 0, 0, 0);
	text(b, 0, 1000000200, 100, 1, KLOG_RELAY_CTX_TASK, 0, "cpu1_fn",
	     "from cpu1");
	text(b, 1, 1000000300, 101, 2, KLOG_RELAY_CTX_TASK, 0, "tie",
	     "utf8 \xc3\xa9\r");
	text(b, 2, 1000000600, 102, 3, KLOG_RELAY_CTX_SOFTIRQ, 0, "f",
	     "x\n\n");
	subbuf(&cs[1], 1, 1, 0, 0);	/* started by a flush, stays empty */
	b = subbuf(&cs[1], 1, 3, 1, 3000000000ULL);	/* sub-buffer 2 missing */
	text(b, 4, 3000000000ULL, 105, 6, KLOG_RELAY_CTX_HARDIRQ, 0, "after",
	     "after gap");

	b = subbuf(&cs[2], 2, 0, 0, 0);
	text(b, 0, 1000000400, 7, 5, KLOG_RELAY_CTX_TASK, 0, "third",
	     "third cpu");
	subbuf(&cs[2], 2, 1, 3, 0);	/* 3 dropped after the last record */

	for (i = 0; i < NCPU; i++)
		set_padding(&cs[i]);
}

static void free_streams(struct cpu_stream cs[NCPU])
{
	int i, j;

	for (i = 0; i < NCPU; i++)
		for (j = 0; j < cs[i].nsb; j++)
			free(cs[i].sb[j].p);
}

static void write_file(const char *dir, const char *name, const void *p,
		       size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || (len && fwrite(p, 1, len, f) != len) || fclose(f))
		die("%s: %s", path, strerror(errno));
}

/*
 * DIR/sites for the sites rec() has named (version 2), as the kernel
 * writes it; the gen sites are in the kernel's module "gen", file
 * "gen.c", with a format "fmt of FUNC".
 */
static void write_sites(const char *dir)
{
	struct ks_buf b = { 0 };
	char line[256];
	int i, n;

	if (gen_version == 1)
		return;
	put(&b, KS_SITES_HEADER " forgotten=0\n", strlen(KS_SITES_HEADER) + 13);
	for (i = 0; i < gen_nsites; i++) {
		n = snprintf(line, sizeof(line), "%d\tlive\ttext\tgen\tgen.c\t%u\t%s\tfmt of %s\n",
			     SITE_ID0 + i, gen_sites[i].line, gen_sites[i].func,
			     gen_sites[i].func);
		put(&b, line, n);
	}
	write_file(dir, "sites", b.p, b.len);
	free(b.p);
}

static void mkdir_p(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
}

/* The read(2) stream of a CPU: its sub-buffers back to back. */
static struct ks_buf joined(const struct cpu_stream *cs)
{
	struct ks_buf s = { 0 };
	int i;

	for (i = 0; i < cs->nsb; i++)
		put(&s, cs->sb[i].p, cs->sb[i].len);
	return s;
}

static int cmd_gen(const char *dir)
{
	struct cpu_stream cs[NCPU];
	char name[16];
	int i;

	make_streams(cs);
	mkdir_p(dir);
	for (i = 0; i < NCPU; i++) {
		struct ks_buf s = joined(&cs[i]);

		snprintf(name, sizeof(name), "cpu%d", i);
		write_file(dir, name, s.p, s.len);
		free(s.p);
	}
	write_sites(dir);
	free_streams(cs);
	return 0;
}

static int cmd_corrupt(const char *kind, const char *dir)
{
	struct ks_buf b = { 0 };
	__u32 bad[10] = { 0 };

	mkdir_p(dir);
	if (strcmp(kind, "noheader"))
		hdr(&b, 0, 0, 0, 0);
	text(&b, 0, 1000, 1, 1, KLOG_RELAY_CTX_TASK, 0, "ok", "fine");
	if (!strcmp(kind, "size13") || !strcmp(kind, "size16") ||
	    !strcmp(kind, "fit")) {
		bad[0] = !strcmp(kind, "size13") ? 13 :
			 !strcmp(kind, "size16") ? 16 : 1024;
		put(&b, bad, sizeof(bad));
	} else if (!strcmp(kind, "hold")) {
		struct klog_rec_hdr r = {
			.size = 48, .len = 100, .seq = 1,
		};

		put(&b, &r, sizeof(r));
		put(&b, "ab\0\0\0\0\0\0", 8);
	} else if (!strcmp(kind, "commlen")) {
		/* a COMM record whose name is not KLOG_RELAY_COMM_LEN bytes */
		struct klog_rec_hdr r = {
			.size = 56, .len = 15, .seq = 1, .pid = 5,
			.kind = KLOG_RELAY_COMM,
		};

		put(&b, &r, sizeof(r));
		put(&b, "fifteen bytes..\0", 16);
	} else if (!strcmp(kind, "swallow")) {
		/* "fine" claims the header and record after it too */
		__u32 size = 48 + sizeof(struct klog_subbuf_hdr) + 48;

		hdr(&b, 0, 1, 5, 0);
		text(&b, 6, 2000, 1, 1, KLOG_RELAY_CTX_TASK, 0, "ok", "gone");
		memcpy(b.p + sizeof(struct klog_subbuf_hdr), &size, sizeof(size));
	} else if (!strcmp(kind, "lostwrap")) {
		/* header loss counts that add up past 2^64 */
		hdr(&b, 0, 1, UINT64_MAX - 1, 0);
		hdr(&b, 0, 2, 5, 0);
	} else if (strcmp(kind, "noheader")) {
		die("unknown corruption '%s'", kind);
	}
	write_file(dir, "cpu0", b.p, b.len);
	write_sites(dir);
	return 0;
}

/*
 * A snapshot directory as klog -s writes it: cpu0 holds sub-buffer 1 of
 * the gen stream (the oldest were overwritten before the snapshot),
 * cpu1 sub-buffers 1 and 3 (2 was overwritten while being copied), and
 * the DIR/snapshot marker says each one's first sub-buffer.
 */
static int cmd_snapshot(const char *dir)
{
	static const char marker[] =
		"klog snapshot: 4 x 4096-byte sub-buffers\n"
		"cpu0 first=1 pos=2 kept=1 skipped=0\n"
		"cpu1 first=1 pos=4 kept=2 skipped=1\n";
	struct cpu_stream cs[NCPU];
	struct ks_buf b = { 0 };

	make_streams(cs);
	mkdir_p(dir);
	write_file(dir, "cpu0", cs[0].sb[1].p, cs[0].sb[1].len);
	put(&b, cs[1].sb[1].p, cs[1].sb[1].len);
	put(&b, cs[1].sb[2].p, cs[1].sb[2].len);
	write_file(dir, "cpu1", b.p, b.len);
	write_file(dir, "snapshot", marker, strlen(marker));
	write_sites(dir);
	free(b.p);
	free_streams(cs);
	return 0;
}

/* A global buffer: one stream, records of several CPUs, a trigger. */
static int cmd_global(const char *dir)
{
	struct ks_buf b = { 0 };

	mkdir_p(dir);
	hdr(&b, 0, 0, 0, 0);
	rec_cpu = 2;
	text(&b, 0, 5, 10, 1, KLOG_RELAY_CTX_TASK, 0, "a", "from cpu2");
	rec_cpu = 0;
	text(&b, 1, 4, 11, 2, KLOG_RELAY_CTX_TASK, 0, "b", "from cpu0");
	rec_cpu = 3;
	text(&b, 2, 6, 12, 3, KLOG_RELAY_CTX_HARDIRQ, KLOG_RELAY_TRIGGER,
	     "check_fn", "klog_trigger: oops");
	write_file(dir, "cpu0", b.p, b.len);
	write_sites(dir);
	free(b.p);
	return 0;
}

/*
 * Task names (version 2): COMM records before a pid change and at every
 * sub-buffer's start; they take no seq. cpu0: "init" names pid 1 twice
 * over; pid 2 has a name with a space; pid 3 has none (printed as
 * today); a record names a site DIR/sites does not have (site#999);
 * sub-buffer 1 names pid 2 again, its second record is pid 1's, whose
 * name the new sub-buffer has not given (a sub-buffer is read on its
 * own), and record 6 is lost before it. cpu1: a global buffer's COMM
 * names a task of another CPU.
 */
static int cmd_comm(const char *dir)
{
	struct ks_buf b = { 0 };

	mkdir_p(dir);
	hdr(&b, 0, 0, 0, 0);
	ENC(ks_put_comm(&b, 1, "init", 0, 100, 0));
	text(&b, 0, 100, 1, 10, KLOG_RELAY_CTX_TASK, 0, "init_fn", "first");
	text(&b, 1, 200, 1, 10, KLOG_RELAY_CTX_TASK, 0, "init_fn", "second");
	ENC(ks_put_comm(&b, 2, "my prog", 2, 300, 0));
	text(&b, 2, 300, 2, 20, KLOG_RELAY_CTX_SOFTIRQ, 0, "prog_fn", "spaced");
	text(&b, 3, 400, 3, 30, KLOG_RELAY_CTX_HARDIRQ, 0, "irq_fn", "no name");
	{
		struct klog_rec_hdr r = {
			.len = 7, .ts_ns = 500, .seq = 4, .pid = 3,
			.site_id = 999, .kind = KLOG_RELAY_TEXT,
		};

		ENC(ks_put_record(&b, &r, "unknown"));
	}
	hdr(&b, 0, 1, 0, 600);
	ENC(ks_put_comm(&b, 2, "my prog", 5, 600, 0));
	text(&b, 5, 600, 2, 20, KLOG_RELAY_CTX_TASK, 0, "prog_fn", "again");
	text(&b, 7, 700, 1, 10, KLOG_RELAY_CTX_TASK, 0, "init_fn", "unnamed");
	write_file(dir, "cpu0", b.p, b.len);
	b.len = 0;
	rec_cpu = 3;
	hdr(&b, 1, 0, 0, 0);
	ENC(ks_put_comm(&b, 42, "kworker/3:1", 0, 150, 3));
	text(&b, 0, 150, 42, 40, KLOG_RELAY_CTX_TASK, 0, "work_fn", "on cpu3");
	write_file(dir, "cpu1", b.p, b.len);
	write_sites(dir);
	free(b.p);
	return 0;
}

/* An argument record of site @site with the block @blk (@len bytes). */
static void args_rec(struct ks_buf *b, __u64 seq, __u64 ts, __u32 site,
		     const void *blk, size_t len)
{
	struct klog_rec_hdr r = {
		.len = len, .ts_ns = ts, .seq = seq, .pid = 9,
		.site_id = site, .kind = KLOG_RELAY_ARGS,
	};

	ENC(ks_put_record(b, &r, blk));
}

/*
 * Argument records (KLOG_RELAY_ARGS) with their sites' formats in
 * DIR/sites and a DIR/kallsyms for %pS; the expected text is in run.sh.
 */
static int cmd_args(const char *dir)
{
	/* "n=%d s=%s\n": -5, "abc" */
	static const unsigned char b1[] = {
		1, 2, 8, 0, KLOG_ARG_U32, 0xfb, 0xff, 0xff, 0xff,
		KLOG_ARG_STR, 3, 0, 3, 0, 'a', 'b', 'c' };
	/* "at %pS|%ps": a module function + 0x10, twice */
	static const unsigned char b2[] = {
		1, 2, 8, 0,
		KLOG_ARG_SYM, 0x10, 0x10, 0x00, 0xc0, 0xff, 0xff, 0xff, 0xff,
		KLOG_ARG_SYM, 0x10, 0x10, 0x00, 0xc0, 0xff, 0xff, 0xff, 0xff };
	/* "%1500d": 7, cut to 1023 bytes when read */
	static const unsigned char b3[] = { 1, 1, 8, 0, KLOG_ARG_U32, 7, 0, 0, 0 };
	/* "n=%d s=%s\n" with no arguments: does not match its format */
	static const unsigned char b4[] = { 1, 0, 8, 0 };
	static const char sites[] = KS_SITES_HEADER " forgotten=0\n"
		"1\tlive\ttext\tgen\tgen.c\t11\targ_fn\tn=%d s=%s\\n\n"
		"2\tlive\ttext\tgen\tgen.c\t12\tsym_fn\tat %pS|%ps\n"
		"3\tlive\ttext\tgen\tgen.c\t13\twide_fn\t%1500d\n";
	static const char ksyms[] =
		"ffffffff81000000 T _text\n"
		"ffffffffc0001000 t mod_fn\t[gen_mod]\n"
		"ffffffffc0001040 t mod_next\t[gen_mod]\n";
	struct ks_buf b = { 0 };

	mkdir_p(dir);
	hdr(&b, 0, 0, 0, 0);
	args_rec(&b, 0, 100, 1, b1, sizeof(b1));
	args_rec(&b, 1, 200, 2, b2, sizeof(b2));
	args_rec(&b, 2, 300, 3, b3, sizeof(b3));
	args_rec(&b, 3, 400, 99, b1, sizeof(b1));	/* no such site */
	args_rec(&b, 4, 500, 1, b4, sizeof(b4));
	write_file(dir, "cpu0", b.p, b.len);
	write_file(dir, "sites", sites, strlen(sites));
	write_file(dir, "kallsyms", ksyms, strlen(ksyms));
	free(b.p);
	return 0;
}

/* Append @n bytes to the block @b (a fixture's argument block). */
static void blk_put(struct ks_buf *b, const void *p, size_t n)
{
	ENC(ks_put(b, p, n));
}

/* The block header, for @nargs arguments. */
static void blk_hdr(struct ks_buf *b, unsigned int nargs)
{
	struct klog_args_hdr h = {
		.version = KLOG_ARGS_VERSION, .nargs = nargs, .ptr_size = 8,
	};

	b->len = 0;
	blk_put(b, &h, sizeof(h));
}

static void blk_u32(struct ks_buf *b, __u32 v)
{
	__u8 tag = KLOG_ARG_U32;

	blk_put(b, &tag, 1);
	blk_put(b, &v, 4);
}

/* A %s argument of length @len of which @copied bytes of @c follow. */
static void blk_str(struct ks_buf *b, __u16 len, __u16 copied, char c)
{
	struct klog_args_str sh = { .len = len, .copied = copied };
	__u8 tag = KLOG_ARG_STR;
	char s[KLOG_ARGS_COPY_MAX];

	memset(s, c, sizeof(s));
	blk_put(b, &tag, 1);
	blk_put(b, &sh, sizeof(sh));
	blk_put(b, s, copied);
}

/* A text record "t" of site 7 on cpu1, pid 1 (cmd_hostile()). */
static void t_rec(struct ks_buf *b, __u64 seq, __u64 ts, __u8 ctx)
{
	struct klog_rec_hdr r = {
		.len = 1, .ts_ns = ts, .seq = seq, .pid = 1, .site_id = 7,
		.kind = KLOG_RELAY_TEXT, .ctx = ctx, .cpu = 1,
	};

	ENC(ks_put_record(b, &r, "t"));
}

/*
 * Argument records as a hostile file has them, in DIR/cpu0 (expected
 * text in run.sh): a string cut inside the text, an extra argument,
 * trailing bytes, a record naming a raw site, a string cut exactly at
 * and just before the 1023 bytes a text keeps, and 200 records each of
 * widths of 8,388,607 from the format and from '*' arguments. DIR/cpu1
 * has seq and time going back: a duplicate seq, a late record that was
 * counted lost, a record earlier than the first one, and a timestamp
 * near 2^63. DIR/cpu2 has a sub-buffer header and no record.
 */
static int cmd_hostile(const char *dir)
{
	static const char sites[] = KS_SITES_HEADER " forgotten=0\n"
		"1\tlive\ttext\th\th.c\t1\tcut_fn\ts=%s|\n"
		"2\tlive\ttext\th\th.c\t2\tint_fn\tn=%d\n"
		"3\tlive\traw\th\th.c\t3\traw_fn\t\n"
		"4\tlive\ttext\th\th.c\t4\tedge_fn\tx%s\n"
		"5\tlive\ttext\th\th.c\t5\twide_fn\t"
		"%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d"
		"%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d%8388607d\n"
		"6\tlive\ttext\th\th.c\t6\tstar_fn\t%*d%*d%*d%*d%*d%*d%*d%*d\n"
		"7\tlive\ttext\th\th.c\t7\tt_fn\tt\n";
	struct ks_buf b = { 0 }, k = { 0 };
	__u64 seq = 0;
	int i, j;

	mkdir_p(dir);
	hdr(&b, 0, 0, 0, 0);
	blk_hdr(&k, 1);			/* "s=%s|": 10 bytes, 3 kept */
	blk_str(&k, 10, 3, 'a');
	args_rec(&b, seq++, 100, 1, k.p, k.len);
	blk_hdr(&k, 2);			/* "n=%d": two arguments */
	blk_u32(&k, 5);
	blk_u32(&k, 6);
	args_rec(&b, seq++, 200, 2, k.p, k.len);
	blk_hdr(&k, 1);			/* "n=%d": a byte after it */
	blk_u32(&k, 5);
	blk_put(&k, "", 1);
	args_rec(&b, seq++, 300, 2, k.p, k.len);
	blk_hdr(&k, 0);			/* a raw site */
	args_rec(&b, seq++, 400, 3, k.p, k.len);
	blk_hdr(&k, 1);			/* "x%s": cut at byte 1023 */
	blk_str(&k, 1500, 1022, 'a');
	args_rec(&b, seq++, 500, 4, k.p, k.len);
	blk_hdr(&k, 1);			/* "x%s": cut at byte 1022 */
	blk_str(&k, 1500, 1021, 'a');
	args_rec(&b, seq++, 600, 4, k.p, k.len);
	blk_hdr(&k, 1);
	blk_u32(&k, 7);
	args_rec(&b, seq++, 700, 2, k.p, k.len);
	for (i = 0; i < 200; i++) {
		blk_hdr(&k, 16);
		for (j = 0; j < 16; j++)
			blk_u32(&k, j);
		args_rec(&b, seq++, 1000 + i, 5, k.p, k.len);
		blk_hdr(&k, 16);
		for (j = 0; j < 8; j++) {
			blk_u32(&k, j % 2 ? 0x7fffff : -0x7fffff);
			blk_u32(&k, j);
		}
		args_rec(&b, seq++, 1000 + i, 6, k.p, k.len);
	}
	write_file(dir, "cpu0", b.p, b.len);
	b.len = 0;
	hdr(&b, 1, 0, 0, 0);
	t_rec(&b, 0, 1000, KLOG_RELAY_CTX_TASK);
	t_rec(&b, 3, 1100, KLOG_RELAY_CTX_TASK);	/* 2 lost */
	t_rec(&b, 3, 1100, KLOG_RELAY_CTX_TASK);	/* a duplicate */
	t_rec(&b, 1, 900, KLOG_RELAY_CTX_NMI);	/* late: 1 lost */
	t_rec(&b, 4, 1ULL << 63, KLOG_RELAY_CTX_TASK);
	t_rec(&b, 5, 0, KLOG_RELAY_CTX_NMI);
	write_file(dir, "cpu1", b.p, b.len);
	b.len = 0;
	hdr(&b, 2, 0, 0, 0);		/* no records */
	write_file(dir, "cpu2", b.p, b.len);
	write_file(dir, "sites", sites, strlen(sites));
	free(b.p);
	free(k.p);
	return 0;
}

/*
 * Name every site the fixtures use, in one order, so that the fake
 * debugfs (its "sites" file) and the live writers give them the same ids.
 */
static void register_sites(void)
{
	struct cpu_stream cs[NCPU];
	int i;

	make_streams(cs);
	free_streams(cs);
	for (i = 0; i < 20; i++)
		site_id("live_fn", i);
}

static int cmd_fake(const char *mode, const char *dir)
{
	static const char *const stats =
		"cpu0 produced=2 consumed=2 records=5 full=2 big=0 nmi=0 nest=0 max_backlog=1\n"
		"cpu1 produced=3 consumed=3 records=4 full=0 big=1 nmi=0 nest=0 max_backlog=2\n"
		"cpu2 produced=2 consumed=2 records=1 full=0 big=0 nmi=3 nest=0 max_backlog=1\n";
	struct cpu_stream cs[NCPU];
	char name[32];
	int i, j;

	register_sites();
	make_streams(cs);
	mkdir_p(dir);
	write_sites(dir);
	write_file(dir, "enabled", "0", 1);
	write_file(dir, "create", "0", 1);
	write_file(dir, "subbuf_size", "262144", 6);
	write_file(dir, "n_subbufs", "4", 1);
	write_file(dir, "mode", "overwrite", 9);
	write_file(dir, "global", "1", 1);
	write_file(dir, "flush", "", 0);
	write_file(dir, "dropped", "6\n", 2);
	write_file(dir, "stats", stats, strlen(stats));
	for (i = 0; i < NCPU; i++) {
		unsigned char ring[FAKE_NSB * FAKE_SBSIZE];
		struct ks_buf s = joined(&cs[i]);
		size_t produced = cs[i].nsb, zero = 0;

		/* stale memory everywhere, then the produced sub-buffers */
		memset(ring, 0xab, sizeof(ring));
		for (j = 0; j < cs[i].nsb; j++)
			memcpy(ring + j * FAKE_SBSIZE, cs[i].sb[j].p,
			       cs[i].sb[j].len);
		snprintf(name, sizeof(name), "cpu%d", i);
		if (!strcmp(mode, "live")) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, name);
			unlink(path);
			if (mkfifo(path, 0600))
				die("%s: mkfifo: %s", path, strerror(errno));
		} else if (!strcmp(mode, "mmap")) {
			write_file(dir, name, ring, sizeof(ring));
		} else {
			write_file(dir, name, s.p, s.len);
		}
		snprintf(name, sizeof(name), "cpu%d.produced", i);
		write_file(dir, name, &produced, sizeof(produced));
		snprintf(name, sizeof(name), "cpu%d.consumed", i);
		write_file(dir, name, &zero, sizeof(zero));
	}
	return 0;
}

/* ---- live ------------------------------------------------------------ */

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Write the first @n bytes of @b to @fd and drop them from @b. */
static void send_part(int fd, struct ks_buf *b, size_t n, const char *what)
{
	size_t off = 0;

	while (off < n) {
		ssize_t w = write(fd, b->p + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("%s: write: %s", what, strerror(errno));
		off += w;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* One CPU's writer: records for @secs, cut into random chunks. */
static void live_cpu(const char *dir, int cpu, double secs)
{
	__u64 seq = 0, sbseq = 0, written = 0, dropped = 0, sb_dropped = 0;
	__u64 end = now_ns() + (__u64)(secs * 1e9);
	unsigned int seed = cpu * 7919 + 1;
	struct ks_buf pend = { 0 }, all = { 0 };
	size_t sb_used = 0;
	char path[4096], name[32], line[128], text[400];
	int fd;

	register_sites();
	rec_cpu = cpu;
	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	fd = open(path, O_WRONLY);	/* waits for the collector */
	if (fd < 0)
		die("%s: open: %s", path, strerror(errno));
	while (now_ns() < end) {
		int nrec = rand_r(&seed) % 20, i;

		for (i = 0; i < nrec; i++) {
			size_t tlen = rand_r(&seed) % 300, size, j;
			__u64 ts = now_ns();
			struct ks_buf r = { 0 };

			if (rand_r(&seed) % 50 == 0) {
				int gap = 1 + rand_r(&seed) % 3;

				seq += gap;
				dropped += gap;
				sb_dropped += gap;
			}
			for (j = 0; j < tlen; j++)
				text[j] = 1 + rand_r(&seed) % 255;
			rec(&r, seq++, ts, 1000 + cpu, i, KLOG_RELAY_TEXT,
			    rand_r(&seed) % 4, 0, "live_fn", text, tlen);
			size = r.len;
			/* a sub-buffer starts with its task's name */
			if (!sb_used || sb_used + size > FAKE_SBSIZE) {
				struct ks_buf h = { 0 };

				hdr(&h, cpu, sbseq++, sb_dropped, ts);
				if (gen_version >= 2)
					ENC(ks_put_comm(&h, 1000 + cpu, "live writer",
							seq - 1, ts, cpu));
				put(&pend, h.p, h.len);
				put(&all, h.p, h.len);
				free(h.p);
				sb_used = h.len;
				sb_dropped = 0;
			}
			put(&pend, r.p, r.len);
			put(&all, r.p, r.len);
			free(r.p);
			sb_used += size;
			written++;
		}
		if (pend.len)
			send_part(fd, &pend, rand_r(&seed) % (pend.len + 1),
				  path);
		usleep(rand_r(&seed) % 3000);	/* paces the writer only */
	}
	send_part(fd, &pend, pend.len, path);
	close(fd);
	snprintf(name, sizeof(name), "expect-cpu%d", cpu);
	write_file(dir, name, all.p, all.len);
	snprintf(line, sizeof(line),
		 "cpu%d produced=0 consumed=0 records=%llu full=%llu big=0 nmi=0 nest=0 max_backlog=0 frozen=0\n",
		 cpu, (unsigned long long)written, (unsigned long long)dropped);
	snprintf(name, sizeof(name), "stats-cpu%d", cpu);
	write_file(dir, name, line, strlen(line));
	exit(0);
}

static int cmd_live(const char *dir, double secs)
{
	struct ks_buf stats = { 0 };
	unsigned long long dropped = 0, full;
	char path[4096], line[256];
	int i, st, bad = 0;

	for (i = 0; i < NCPU; i++)
		if (fork() == 0)
			live_cpu(dir, i, secs);
	for (i = 0; i < NCPU; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	if (bad)
		die("a writer failed");
	for (i = 0; i < NCPU; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/stats-cpu%d", dir, i);
		f = fopen(path, "r");
		if (!f || !fgets(line, sizeof(line), f))
			die("%s: %s", path, strerror(errno));
		fclose(f);
		if (!strstr(line, "full=") ||
		    sscanf(strstr(line, "full="), "full=%llu", &full) != 1)
			die("%s: no full=", path);
		dropped += full;
		put(&stats, line, strlen(line));
	}
	write_file(dir, "stats", stats.p, stats.len);
	snprintf(line, sizeof(line), "%llu\n", dropped);
	write_file(dir, "dropped", line, strlen(line));
	return 0;
}

/* ---- unit ------------------------------------------------------------ */

static int collect_line(const struct ks_event *ev, void *arg)
{
	return ks_format(ev, arg) < 0 ? -1 : 0;
}

/* All lines of a whole stream through ks_next(). */
static void lines_next(const struct ks_buf *s, int cpu, struct ks_buf *out)
{
	struct ks_stream ks;
	struct ks_event ev;
	int ret;

	ks_init(&ks, cpu, "whole", 0);
	while ((ret = ks_next(&ks, s->p, s->len, &ev)) > 0)
		ks_format(&ev, out);
	check(ret == 0, "ks_next failed on a valid stream: %s", ks.error);
	ks_release(&ks);
}

static void test_chunks(void)
{
	struct cpu_stream cs[NCPU];
	int i;

	make_streams(cs);
	for (i = 0; i < NCPU; i++) {
		struct ks_buf s = joined(&cs[i]);
		struct ks_buf want = { 0 };
		size_t chunk, off;

		lines_next(&s, i, &want);
		check(want.len > 0, "cpu%d: no lines", i);
		for (chunk = 1; chunk <= s.len; chunk++) {
			struct ks_buf got = { 0 };
			struct ks_stream ks;
			int ret = 0;

			ks_init(&ks, i, "chunked", FAKE_SBSIZE);
			for (off = 0; off < s.len && !ret; off += chunk) {
				size_t n = s.len - off < chunk ? s.len - off :
								 chunk;

				ret = ks_feed(&ks, s.p + off, n, collect_line,
					      &got);
			}
			if (!ret)
				ret = ks_finish(&ks, collect_line, &got);
			check(!ret, "cpu%d chunk %zu: %s", i, chunk, ks.error);
			check(got.len == want.len &&
			      !memcmp(got.p, want.p, got.len),
			      "cpu%d chunk %zu: lines differ:\n%.*s---\n%.*s",
			      i, chunk, (int)got.len, got.p, (int)want.len,
			      want.p);
			ks_release(&ks);
			ks_buf_free(&got);
			if (failures)
				break;
		}
		ks_buf_free(&want);
		free(s.p);
	}
	free_streams(cs);
}

static void test_limits(void)
{
	struct ks_buf b = { 0 };
	struct ks_stream ks;
	char big[200];

	/* a record larger than a sub-buffer is refused before it is buffered */
	memset(big, 'x', sizeof(big));
	hdr(&b, 0, 0, 0, 0);
	rec(&b, 0, 1, 1, 1, KLOG_RELAY_TEXT, 0, 0, "f", big, sizeof(big));
	ks_init(&ks, 0, "small", 128);
	check(ks_feed(&ks, b.p, 48, collect_line, &(struct ks_buf){ 0 }) < 0 &&
	      strstr(ks.error, "larger than a 128-byte sub-buffer"),
	      "oversized record accepted: '%s'", ks.error);
	ks_release(&ks);

	/* ending inside a record */
	ks_init(&ks, 0, "cut", 0);
	check(!ks_feed(&ks, b.p, b.len - 8, collect_line, &(struct ks_buf){ 0 }),
	      "feed of a partial record failed: %s", ks.error);
	check(ks_finish(&ks, collect_line, &(struct ks_buf){ 0 }) < 0 &&
	      strstr(ks.error, "does not fit"),
	      "partial record at the end not reported: '%s'", ks.error);
	ks_release(&ks);
	free(b.p);
}

/* Losses of the seqs @seqs (@n of them, after 0) as the decoder counts. */
static void seq_case(const __u64 *seqs, int n, __u64 lost, __u64 late,
		     const char *what)
{
	struct ks_buf b = { 0 };
	struct ks_stream ks;
	struct ks_event ev;
	int i;

	hdr(&b, 0, 0, 0, 0);
	t_rec(&b, 0, 1, KLOG_RELAY_CTX_TASK);
	for (i = 0; i < n; i++)
		t_rec(&b, seqs[i], 2 + i, KLOG_RELAY_CTX_TASK);
	ks_init(&ks, 0, what, 0);
	while (ks_next(&ks, b.p, b.len, &ev) > 0)
		;
	check(ks_lost(&ks) == lost && ks.late == late,
	      "%s: lost %llu late %llu, want %llu %llu", what,
	      (unsigned long long)ks_lost(&ks), (unsigned long long)ks.late,
	      (unsigned long long)lost, (unsigned long long)late);
	ks_release(&ks);
	free(b.p);
}

/*
 * A late record (a seq already passed) takes back no loss: the loss was
 * reported at its gap, and a file that repeats or reorders records must
 * not hide one. Each is counted late.
 */
static void test_seq_gaps(void)
{
	static const __u64 split[] = { 5, 2, 2, 1, 3, 4, 0 };
	static const __u64 dup[] = { 1, 1, 1 };
	static const __u64 edges[] = { 9, 1, 8, 1, 8 };

	seq_case(split, 7, 4, 6, "split gap");
	seq_case(dup, 3, 0, 2, "duplicates");
	seq_case(edges, 5, 8, 4, "gap edges");
}

static void test_subbuf_used(void)
{
	unsigned char sb[FAKE_SBSIZE];
	struct klog_subbuf_hdr *h = (void *)sb;
	char why[160];

	memset(sb, 0, sizeof(sb));
	h->magic = KLOG_SUBBUF_MAGIC;
	h->version = KLOG_RELAY_VERSION;
	h->hdr_size = sizeof(*h);
	h->padding = 1000;
	check(ks_subbuf_used(sb, sizeof(sb), why, sizeof(why)) ==
	      FAKE_SBSIZE - 1000, "used != size - padding");
	h->padding = FAKE_SBSIZE - sizeof(*h) + 8;
	check(ks_subbuf_used(sb, sizeof(sb), why, sizeof(why)) < 0 &&
	      strstr(why, "padding"), "oversized padding accepted");
	h->padding = 0;
	h->magic = 0xabababab;
	check(ks_subbuf_used(sb, sizeof(sb), why, sizeof(why)) < 0 &&
	      strstr(why, "magic"), "bad magic accepted");
}

static void test_merge(void)
{
	enum { N = 17 };
	__u64 key[N];
	bool in[N] = { false };
	struct ks_merge m;
	unsigned int seed = 1;
	int i, step;

	check(!ks_merge_init(&m, N), "ks_merge_init");
	for (step = 0; step < 20000; step++) {
		int src = rand_r(&seed) % N, best = -1, top;
		__u64 ts;

		if (rand_r(&seed) % 4 == 0) {
			ks_merge_remove(&m, src);
			in[src] = false;
		} else {
			key[src] = rand_r(&seed) % 50;
			ks_merge_set(&m, src, key[src]);
			in[src] = true;
		}
		for (i = 0; i < N; i++)
			if (in[i] && (best < 0 || key[i] < key[best]))
				best = i;
		top = ks_merge_top(&m, &ts);
		if (top != best || (best >= 0 && ts != key[best])) {
			check(0, "merge step %d: top %d, expected %d", step,
			      top, best);
			break;
		}
	}
	ks_merge_free(&m);
}

static int cmd_unit(void)
{
	test_chunks();
	test_limits();
	test_seq_gaps();
	test_subbuf_used();
	test_merge();
	if (failures)
		fprintf(stderr, "%d unit checks failed\n", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "gen"))
		return cmd_gen(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "gen1")) {
		gen_version = 1;
		return cmd_gen(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "gen2")) {
		gen_version = 2;
		return cmd_gen(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "comm"))
		return cmd_comm(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "args"))
		return cmd_args(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "hostile"))
		return cmd_hostile(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "snapshot"))
		return cmd_snapshot(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "global"))
		return cmd_global(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "corrupt"))
		return cmd_corrupt(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "fake"))
		return cmd_fake(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "live"))
		return cmd_live(argv[2], atof(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "unit"))
		return cmd_unit();
	fprintf(stderr,
		"usage: stream_test gen DIR | gen1 DIR | gen2 DIR | comm DIR | args DIR | hostile DIR | global DIR | snapshot DIR | corrupt KIND DIR | fake read|mmap|live DIR | live DIR SECONDS | unit\n");
	return 2;
}
