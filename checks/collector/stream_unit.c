// SPDX-License-Identifier: GPL-2.0
/*
 * stream_unit.c - unit tests of the decoder (stream_test unit): chunked
 * ks_feed() gives the lines ks_next() gives for every chunk size, size
 * limits, loss and late records counted from seq gaps, ks_subbuf_used(),
 * and the merge heap against a linear scan.
 */
#include "stream_test.h"

static int collect_line(const struct ks_event *ev, void *arg)
{
	return ks_format(ev, arg) < 0 ? -1 : 0;
}

/* All lines of a whole stream through ks_next(); its counts in @ks. */
static void lines_next(const struct ks_buf *s, int cpu, struct ks_buf *out,
		       struct ks_stream *ks)
{
	struct ks_event ev;
	int ret;

	ks_init(ks, cpu, "whole", 0);
	while ((ret = ks_next(ks, s->p, s->len, &ev)) > 0)
		ks_format(&ev, out);
	check(ret == 0, "ks_next failed on a valid stream: %s", ks->error);
}

/*
 * The drain's counting (ks_feed() without a callback: count_records()
 * and the full decode) ends with the counts of the full decode, @want.
 */
static void check_counted(const struct ks_stream *got,
			  const struct ks_stream *want, const char *what,
			  size_t chunk)
{
	check(got->records == want->records && got->comms == want->comms &&
	      got->subbufs == want->subbufs &&
	      got->seq_lost == want->seq_lost &&
	      got->hdr_lost == want->hdr_lost &&
	      got->tail_lost == want->tail_lost && got->late == want->late &&
	      got->next_rec == want->next_rec &&
	      got->last_ts == want->last_ts && got->off == want->off,
	      "%s chunk %zu: counted records %llu comms %llu subbufs %llu lost %llu+%llu late %llu off %llu, decoded %llu %llu %llu %llu+%llu %llu %llu",
	      what, chunk, (unsigned long long)got->records,
	      (unsigned long long)got->comms, (unsigned long long)got->subbufs,
	      (unsigned long long)got->seq_lost,
	      (unsigned long long)got->tail_lost,
	      (unsigned long long)got->late, (unsigned long long)got->off,
	      (unsigned long long)want->records,
	      (unsigned long long)want->comms,
	      (unsigned long long)want->subbufs,
	      (unsigned long long)want->seq_lost,
	      (unsigned long long)want->tail_lost,
	      (unsigned long long)want->late, (unsigned long long)want->off);
}

/* @s fed in chunks of @chunk bytes without a callback, then finished. */
static void feed_counting(const struct ks_buf *s, int cpu, size_t chunk,
			  const struct ks_stream *want, const char *what)
{
	struct ks_stream ks;
	size_t off;
	int ret = 0;

	ks_init(&ks, cpu, what, FAKE_SBSIZE);
	for (off = 0; off < s->len && !ret; off += chunk)
		ret = ks_feed(&ks, s->p + off,
			      s->len - off < chunk ? s->len - off : chunk,
			      NULL, NULL);
	if (!ret)
		ret = ks_finish(&ks, NULL, NULL);
	check(!ret, "%s chunk %zu: %s", what, chunk, ks.error);
	check_counted(&ks, want, what, chunk);
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
		struct ks_stream whole;
		size_t chunk, off;

		lines_next(&s, i, &want, &whole);
		check(want.len > 0, "cpu%d: no lines", i);
		for (chunk = 1; chunk <= s.len; chunk++) {
			struct ks_buf got = { 0 };
			struct ks_stream ks;
			int ret = 0;

			feed_counting(&s, i, chunk, &whole, "counted");

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
		ks_release(&whole);
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
	/* the drain's counting: whole, and cut inside every record */
	feed_counting(&b, 0, b.len, &ks, what);
	feed_counting(&b, 0, 20, &ks, what);
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

int cmd_unit(void)
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
