// SPDX-License-Identifier: GPL-2.0
/*
 * stream_fixtures.c - the collections stream_test writes to DIR (gen,
 * gen1, gen2, corrupt, snapshot, global, comm, args, hostile, text, plot),
 * for run.sh to read back with klog -r. What each holds is in the
 * overview in stream_test.c; the expected lines are in run.sh.
 */
#include "stream_test.h"

int cmd_gen(const char *dir)
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

int cmd_corrupt(const char *kind, const char *dir)
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
int cmd_snapshot(const char *dir)
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
int cmd_global(const char *dir)
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

/* A record of @kind, site @site, pid @pid, cpu0, with @len bytes of @p. */
static void text_rec(struct ks_buf *b, __u64 seq, __u64 ts, __u32 pid,
		     __u32 site, __u8 kind, const void *p, size_t len)
{
	struct klog_rec_hdr r = {
		.len = len, .ts_ns = ts, .seq = seq, .pid = pid,
		.site_id = site, .kind = kind,
	};

	ENC(ks_put_record(b, &r, p));
}

/* An argument record of pid 9, site @site with the block @blk (@len bytes). */
#define args_rec(b, seq, ts, site, blk, len) \
	text_rec(b, seq, ts, 9, site, KLOG_RELAY_ARGS, blk, len)

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
int cmd_comm(const char *dir)
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
	text_rec(&b, 4, 500, 3, 999, KLOG_RELAY_TEXT, "unknown", 7);
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


/*
 * Argument records (KLOG_RELAY_ARGS) with their sites' formats in
 * DIR/sites and a DIR/kallsyms for %pS; the expected text is in run.sh.
 */
int cmd_args(const char *dir)
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

/* The block header, for @nargs arguments. */
static void blk_hdr(struct ks_buf *b, unsigned int nargs)
{
	struct klog_args_hdr h = {
		.version = KLOG_ARGS_VERSION, .nargs = nargs, .ptr_size = 8,
	};

	b->len = 0;
	put(b, &h, sizeof(h));
}

static void blk_u32(struct ks_buf *b, __u32 v)
{
	__u8 tag = KLOG_ARG_U32;

	put(b, &tag, 1);
	put(b, &v, 4);
}

/* A %s argument of length @len of which @copied bytes of @c follow. */
static void blk_str(struct ks_buf *b, __u16 len, __u16 copied, char c)
{
	struct klog_args_str sh = { .len = len, .copied = copied };
	__u8 tag = KLOG_ARG_STR;
	char s[KLOG_ARGS_COPY_MAX];

	memset(s, c, sizeof(s));
	put(b, &tag, 1);
	put(b, &sh, sizeof(sh));
	put(b, s, copied);
}

/* A text record "t" of site 7 on cpu1, pid 1 (cmd_hostile()). */
void t_rec(struct ks_buf *b, __u64 seq, __u64 ts, __u8 ctx)
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
int cmd_hostile(const char *dir)
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
	put(&k, "", 1);
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

#define TEXT_TS0	((1ULL << 53) + 1)

/*
 * Text that is not all UTF-8, and 64-bit values past 2^53, for the
 * exports (checks/export/exact.py has the same bytes): task names, a
 * function (\351: a lead byte alone) and a file name (UTF-8) from
 * DIR/sites, texts with UTF-8 and with invalid bytes (0xff, truncated
 * sequences, an overlong, a surrogate, past U+10FFFF), a NUL, C1 and
 * line-separator characters, an argument record formatted with bytes
 * 0xff, a loss of 2^53 + 1 records, a raw record. Timestamps from
 * 2^53 + 1 ns.
 */
int cmd_text(const char *dir)
{
	static const char sites[] = KS_SITES_HEADER " forgotten=0\n"
		"1\tlive\ttext\tgen\tf\\303\\251.c\t10\tutf_fn\tfmt\n"
		"2\tlive\ttext\tgen\tgen.c\t20\tbad\\351\tfmt\n"
		"3\tlive\ttext\tgen\tgen.c\t30\targ_fn\ts=%s\n"
		"4\tlive\traw\tgen\tgen.c\t40\traw_fn\t\n";
	static const char t4[] = "nul \0 c1 \xc2\x9b ls \xe2\x80\xa8 q\" bs\\ "
		"del\x7f fffd \xef\xbf\xbd";
	static const char *const texts[] = {
		"h\xc3\xa9llo \xe2\x82\xac\n",
		"bad \xff end",
		"trunc \xe2\x82 mid, at the end \xe2\x82",
		"overlong \xc0\xaf surrogate \xed\xa0\x80 big \xf4\x90\x80\x80 "
		"4 \xf0\x9f\x98\x80",
	};
	struct ks_buf b = { 0 }, k = { 0 };
	__u64 ts = TEXT_TS0, seq = 0;

	mkdir_p(dir);
	hdr(&b, 0, 0, 0, ts);
	ENC(ks_put_comm(&b, 10, "na\xc3\xafve", seq, ts, 0));
	text_rec(&b, seq++, ts++, 10, 1, KLOG_RELAY_TEXT, texts[0], strlen(texts[0]));
	ENC(ks_put_comm(&b, 11, "\xff" "comm\x80", seq, ts, 0));
	text_rec(&b, seq++, ts++, 11, 1, KLOG_RELAY_TEXT, texts[1], strlen(texts[1]));
	text_rec(&b, seq++, ts++, 11, 2, KLOG_RELAY_TEXT, texts[2], strlen(texts[2]));
	text_rec(&b, seq++, ts++, 11, 1, KLOG_RELAY_TEXT, texts[3], strlen(texts[3]));
	text_rec(&b, seq++, ts++, 11, 1, KLOG_RELAY_TEXT, t4, sizeof(t4) - 1);
	blk_hdr(&k, 1);			/* "s=%s": two bytes 0xff */
	blk_str(&k, 2, 2, '\xff');
	text_rec(&b, seq++, ts++, 11, 3, KLOG_RELAY_ARGS, k.p, k.len);
	seq += (1ULL << 53) + 1;	/* lost */
	text_rec(&b, seq, 1ULL << 62, 11, 4, KLOG_RELAY_RAW, "\xff\0\x01", 3);
	write_file(dir, "cpu0", b.p, b.len);
	write_file(dir, "sites", sites, strlen(sites));
	free(b.p);
	free(k.p);
	return 0;
}

/*
 * A collection that looks real, for klog --plot: 4 CPUs recording for
 * 10 s from 100 s, at rates that rise and fall (a triangle of 4 s a CPU,
 * with bursts on cpu2 and cpu3), gaps jittered by a fixed pseudo-random
 * sequence, 7 sites of different weights, sub-buffers of 2000 records,
 * and two losses: 56 records on cpu3 at 2.5 s, 1234 on cpu1 at 6.2 s
 * (a sub-buffer header's lost and the seq gap). The last record is
 * cpu0's at exactly 110 s.
 */
int cmd_plot(const char *dir)
{
	static const struct { const char *func; __u32 line, weight; } sites[] = {
		{ "blk_mq_start_request", 1290, 30 }, { "nvme_queue_rq", 880, 20 },
		{ "nvme_complete_rq", 640, 15 }, { "tcp_sendmsg_locked", 1410, 12 },
		{ "ext4_writepages_with_a_long_name", 2710, 10 },
		{ "kworker_fn", 52, 8 }, { "rare_fn", 7, 5 },
	};
	static const __u64 base[] = { 1500, 1000, 600, 200 };
	const __u64 t0 = 100 * 1000000000ULL, end = 10 * 1000000000ULL;
	__u64 x = 42;
	int cpu;

	mkdir_p(dir);
	for (cpu = 0; cpu < 4; cpu++) {
		__u64 t = 0, seq = 0, sb = 0, n = 0, lost = 0, ms, ph, r;
		bool lost_set = false;
		struct ks_buf b = { 0 };
		char name[8];

		rec_cpu = cpu;
		hdr(&b, cpu, sb++, 0, t0);
		while (t < end) {
			__u32 w = 0, i, pick;

			if ((cpu == 1 && t >= 6200000000ULL) ||
			    (cpu == 3 && t >= 2500000000ULL))
				lost = lost_set ? 0 : cpu == 1 ? 1234 : 56;
			if (++n % 2000 == 0 || lost) {
				seq += lost;
				hdr(&b, cpu, sb++, lost, t0 + t);
				lost_set |= !!lost;
				lost = 0;
			}
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			for (i = 0; i < 7; i++)
				w += sites[i].weight;
			pick = (x >> 40) % w;
			for (i = 0; pick >= sites[i].weight; i++)
				pick -= sites[i].weight;
			text(&b, seq++, t0 + t, 1000 + 10 * cpu + i, sites[i].line,
			     KLOG_RELAY_CTX_TASK, 0, sites[i].func, "req done");
			ms = t / 1000000 + 700 * cpu;
			ph = ms % 4000;
			r = base[cpu] + base[cpu] * (ph < 2000 ? ph : 4000 - ph) / 2000;
			if (cpu == 2 && t / 1000000 >= 3000 && t / 1000000 < 4000)
				r += 5000;
			if (cpu == 3 && t / 1000000 % 2500 < 200)
				r += 3000;
			t += 1000000000ULL / r * (500 + (x >> 20) % 1000) / 1000;
		}
		if (!cpu)
			text(&b, seq++, t0 + end, 1000, sites[0].line,
			     KLOG_RELAY_CTX_TASK, 0, sites[0].func, "last");
		snprintf(name, sizeof(name), "cpu%d", cpu);
		write_file(dir, name, b.p, b.len);
		free(b.p);
	}
	write_sites(dir);
	return 0;
}
