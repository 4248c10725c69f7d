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
 *   stream_test text DIR           DIR/cpu0: task names, functions and
 *                                  texts that are UTF-8 and that are not,
 *                                  a NUL, 64-bit values past 2^53 (for
 *                                  the exports' exact text and numbers)
 *   stream_test global DIR         DIR/cpu0 as a global buffer: records
 *                                  of several CPUs, one with the trigger flag
 *   stream_test plot DIR           DIR/cpu0..3 that look real (10 s, rates
 *                                  that change, 7 sites, two losses)
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
 *
 * Its parts: stream_test.c (this overview, the gen streams the others
 * build on), stream_fixtures.c (the collections written to DIR),
 * stream_fake.c (the fake debugfs, live writers), stream_unit.c (the
 * decoder's unit tests); stream_test.h is what they share.
 */
#include "stream_test.h"

int failures;
int rec_cpu;

__printf(1, 2) __noreturn
void die(const char *fmt, ...)
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
void check(int ok, const char *fmt, ...)
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

/*
 * The stream version the fixtures are written in: 2 (sites by id, the
 * table in DIR/sites) or 1 (the function name in every record), so that
 * one set of fixtures and expected lines checks both decoders.
 */
int gen_version = KLOG_RELAY_VERSION;

/* The sites the version 2 records name: (func, line) -> id from 101. */
#define SITE_ID0	101
static struct { const char *func; __u32 line; } gen_sites[64];
static int gen_nsites;

__u32 site_id(const char *func, __u32 line)
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

void rec(struct ks_buf *b, __u64 seq, __u64 ts, __u32 pid,
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
void make_streams(struct cpu_stream cs[NCPU])
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

void free_streams(struct cpu_stream cs[NCPU])
{
	int i, j;

	for (i = 0; i < NCPU; i++)
		for (j = 0; j < cs[i].nsb; j++)
			free(cs[i].sb[j].p);
}

void write_file(const char *dir, const char *name, const void *p,
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
void write_sites(const char *dir)
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

void mkdir_p(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
}

/* The read(2) stream of a CPU: its sub-buffers back to back. */
struct ks_buf joined(const struct cpu_stream *cs)
{
	struct ks_buf s = { 0 };
	int i;

	for (i = 0; i < cs->nsb; i++)
		put(&s, cs->sb[i].p, cs->sb[i].len);
	return s;
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
	if (argc == 3 && !strcmp(argv[1], "text"))
		return cmd_text(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "snapshot"))
		return cmd_snapshot(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "global"))
		return cmd_global(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "plot"))
		return cmd_plot(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "corrupt"))
		return cmd_corrupt(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "fake"))
		return cmd_fake(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "live"))
		return cmd_live(argv[2], atof(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "unit"))
		return cmd_unit();
	fprintf(stderr,
		"usage: stream_test gen DIR | gen1 DIR | gen2 DIR | comm DIR | args DIR | hostile DIR | text DIR | global DIR | plot DIR | snapshot DIR | corrupt KIND DIR | fake read|mmap|live DIR | live DIR SECONDS | unit\n");
	return 2;
}
