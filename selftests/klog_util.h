/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the klog selftests: control files, the test_klog
 * traffic module, the klog relay handler's stats, and a checker for the
 * klog relay stream (<linux/klog_relay.h>) that verifies every record
 * test_klog wrote: structure, per-CPU sequence, checksums.
 */
#ifndef KLOG_SELFTEST_UTIL_H
#define KLOG_SELFTEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/klog_relay.h>

#define TKLG_DIR	"/sys/kernel/debug/test_klog"
#define KLOG_DIR	"/sys/kernel/debug/klog"
#define NCTX		4
#define MAXCPU		64
/*
 * Per-test timeout of the kselftest harness (its default is 30 s): a
 * hang detector only. Under TCG on a loaded 2-core host a test that takes
 * 3 s on an idle one has taken over 30.
 */
#define KLOG_TEST_TIMEOUT	600

/* ---- files --------------------------------------------------------- */

/* Write @val to @path; returns 0 or the errno of the failure. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = errno;
	close(fd);
	return err;
}

static inline int klog_ctl(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), KLOG_DIR "/%s", name);
	return write_file(path, val);
}

/*
 * Set the channel sizes for the next create. Each write is checked with
 * the other size, so go through the smallest sub-buffer first.
 */
static inline int klog_set_sizes(unsigned long subbuf, unsigned long n)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%lu", subbuf);
	snprintf(b, sizeof(b), "%lu", n);
	return klog_ctl("subbuf_size", "1024") ?: klog_ctl("n_subbufs", b) ?:
	       klog_ctl("subbuf_size", a);
}

static inline long long klog_ctl_read(const char *name)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KLOG_DIR "/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 0);
}

/* ---- test_klog ------------------------------------------------------ */

struct tklg_counts {
	int ncpu;
	unsigned long long n[MAXCPU][NCTX];
};

static inline int tklg_read(struct tklg_counts *c)
{
	FILE *f = fopen(TKLG_DIR "/stats", "r");
	unsigned int cpu;

	if (!f)
		return -1;
	memset(c, 0, sizeof(*c));
	while (c->ncpu < MAXCPU &&
	       fscanf(f, " cpu%u task=%llu softirq=%llu hardirq=%llu nmi=%llu",
		      &cpu, &c->n[c->ncpu][0], &c->n[c->ncpu][1],
		      &c->n[c->ncpu][2], &c->n[c->ncpu][3]) == 5)
		c->ncpu++;
	fclose(f);
	return c->ncpu ? 0 : -1;
}

/* Returns 0, or the errno of the failed request. */
static inline int tklg_emit(const char *req)
{
	return write_file(TKLG_DIR "/emit", req);
}

static inline void ignore_signal(int sig)
{
}

/*
 * A child that makes one test_klog request; SIGINT interrupts it (the
 * request then fails with EINTR, its exit status).
 */
static inline pid_t start_writer(const char *req)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = ignore_signal };

		sigaction(SIGINT, &sa, NULL);
		_exit(tklg_emit(req));
	}
	return pid;
}

/* Interrupt the writer; returns its exit status, or -1. */
static inline int stop_writer(pid_t pid)
{
	int status;

	kill(pid, SIGINT);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static inline unsigned long long tklg_delta(const struct tklg_counts *a,
					    const struct tklg_counts *b,
					    int cpu)
{
	unsigned long long sum = 0;
	int ctx;

	for (ctx = 0; ctx < NCTX; ctx++)
		sum += b->n[cpu][ctx] - a->n[cpu][ctx];
	return sum;
}

/* ---- klog relay handler stats ---------------------------------------- */

struct klog_cpu_stats {
	unsigned long long produced, consumed, records, full, big, nmi, nest;
	unsigned long long max_backlog, frozen, reentered;
	int present;			/* the buffer has a stats line */
};

struct klog_stats {
	int ncpu;
	struct klog_cpu_stats cpu[MAXCPU];
};

static inline unsigned long long stat_field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ULL;
}

/* Parse lines "cpu<N> produced=<n> consumed=<n> ... max_backlog=<n>". */
static inline int klog_stats_read(struct klog_stats *s)
{
	FILE *f = fopen(KLOG_DIR "/stats", "r");
	struct klog_cpu_stats *c;
	unsigned int cpu;
	char line[512];

	if (!f)
		return -1;
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%u ", &cpu) != 1 || cpu >= MAXCPU)
			break;
		c = &s->cpu[cpu];
		c->present = 1;
		c->produced = stat_field(line, " produced=");
		c->consumed = stat_field(line, " consumed=");
		c->records = stat_field(line, " records=");
		c->full = stat_field(line, " full=");
		c->big = stat_field(line, " big=");
		c->nmi = stat_field(line, " nmi=");
		c->nest = stat_field(line, " nest=");
		c->max_backlog = stat_field(line, " max_backlog=");
		c->frozen = stat_field(line, " frozen=");
		c->reentered = stat_field(line, " reentered=");
		if ((int)cpu + 1 > s->ncpu)
			s->ncpu = cpu + 1;
	}
	fclose(f);
	return s->ncpu ? 0 : -1;
}

static inline unsigned long long klog_dropped(const struct klog_cpu_stats *c)
{
	return c->full + c->big + c->nmi + c->nest + c->frozen + c->reentered;
}

/* ---- stream checker ---------------------------------------------------- */

struct stream_check {
	unsigned int cpu;
	unsigned long long subbufs;	/* sub-buffer headers seen */
	unsigned long long records;	/* records seen */
	unsigned long long text, raw;
	unsigned long long hdr_lost;	/* sum of klog_subbuf_hdr.lost */
	unsigned long long first_seq;	/* seq of the first record seen */
	unsigned long long seq_gaps;	/* records missing after the first */
	unsigned long long subbuf_gaps;	/* sub-buffers missing by hdr seq */
	unsigned long long bad;		/* malformed or failed self-check */
	unsigned long long triggers;	/* records flagged KLOG_RELAY_TRIGGER */
	unsigned long long tklg_next[MAXCPU][NCTX];
	unsigned long long last_ts;	/* of the last record */
	unsigned long long ts_limit;	/* if set, no record may be newer */
	long long next_seq, next_subbuf;
	int global;			/* records of every CPU (global buffer) */
	int count_only;			/* do not check test_klog payloads */
	char why[256];			/* first problem found */
};

static inline void stream_init(struct stream_check *s, unsigned int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->next_seq = -1;
	s->next_subbuf = -1;
}

static inline void stream_bad(struct stream_check *s, const char *why,
			      unsigned long long at)
{
	if (!s->bad++)
		snprintf(s->why, sizeof(s->why), "cpu%u offset %llu: %s",
			 s->cpu, at, why);
}

static inline uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 0x811c9dc5;

	while (n--) {
		h ^= *p++;
		h *= 0x01000193;
	}
	return h;
}

/* Check a raw test_klog payload; returns 0 and its (ctx, seq), or -1. */
static inline int tklg_check_raw(const uint8_t *p, size_t len,
				 unsigned int cpu, unsigned int *ctx,
				 unsigned long long *seq)
{
	uint32_t magic, size, csum;
	uint64_t s64;
	size_t i, n;

	if (len < 24)
		return -1;
	memcpy(&magic, p, 4);
	memcpy(&s64, p + 8, 8);
	memcpy(&size, p + 16, 4);
	memcpy(&csum, p + 20, 4);
	n = len - 24;
	if (magic != 0x474c4b54 || p[4] != cpu || p[5] >= NCTX ||
	    size != len || csum != fnv1a(p + 24, n))
		return -1;
	for (i = 0; i < n; i++)
		if (p[24 + i] != (uint8_t)(s64 * 31 + i))
			return -1;
	*ctx = p[5];
	*seq = s64;
	return 0;
}

/* Check a text test_klog payload; returns 0 and its (ctx, seq), or -1. */
static inline int tklg_check_text(const uint8_t *p, size_t len,
				  unsigned int cpu, unsigned int *ctx,
				  unsigned long long *seq)
{
	unsigned int c, x, sz, k;
	unsigned long long s64;
	size_t i, n;
	char hdr[60];

	if (len < 59)
		return -1;
	memcpy(hdr, p, 59);
	hdr[59] = '\0';
	if (sscanf(hdr, "TKLG c=%u x=%u s=%llu n=%u k=%x ", &c, &x, &s64,
		   &sz, &k) != 5 || c != cpu || x >= NCTX || sz != len)
		return -1;
	n = len - 59;
	if (k != fnv1a(p + 59, n))
		return -1;
	for (i = 0; i < n; i++)
		if (p[59 + i] != 'a' + (s64 + i) % 26)
			return -1;
	*ctx = x;
	*seq = s64;
	return 0;
}

/*
 * Feed @len bytes of one CPU's stream, as read(2) returns it: sub-buffer
 * headers and records, no padding. Must be given whole records (callers
 * keep any partial tail for the next call); returns bytes consumed.
 */
static inline size_t stream_feed(struct stream_check *s, const uint8_t *p,
				 size_t len, unsigned long long base)
{
	size_t off = 0;

	while (len - off >= 4) {
		uint32_t first;

		memcpy(&first, p + off, 4);
		if (first == KLOG_SUBBUF_MAGIC) {
			struct klog_subbuf_hdr h;

			if (len - off < sizeof(h))
				break;
			memcpy(&h, p + off, sizeof(h));
			if (h.version != KLOG_RELAY_VERSION ||
			    h.hdr_size != sizeof(h) || h.cpu != s->cpu)
				stream_bad(s, "bad sub-buffer header", base + off);
			if (s->next_subbuf >= 0 && (long long)h.seq != s->next_subbuf) {
				if ((long long)h.seq < s->next_subbuf)
					stream_bad(s, "sub-buffer seq went back", base + off);
				else
					s->subbuf_gaps += h.seq - s->next_subbuf;
			}
			s->next_subbuf = h.seq + 1;
			s->hdr_lost += h.lost;
			s->subbufs++;
			off += sizeof(h);
		} else {
			struct klog_rec_hdr r;
			unsigned long long tseq;
			unsigned int ctx;
			const uint8_t *payload;

			if (len - off < sizeof(r))
				break;
			memcpy(&r, p + off, sizeof(r));
			if (r.size < sizeof(r) || r.size % KLOG_REC_ALIGN ||
			    r.size < sizeof(r) + r.func_len + r.len ||
			    r.size > (1u << 26)) {
				char why[64];

				snprintf(why, sizeof(why), "bad record size %u", r.size);
				stream_bad(s, why, base + off);
				return len;	/* cannot resync */
			}
			if (len - off < r.size)
				break;
			if (s->next_seq < 0)
				s->first_seq = r.seq;
			else if ((long long)r.seq < s->next_seq)
				stream_bad(s, "record seq went back", base + off);
			else
				s->seq_gaps += r.seq - s->next_seq;
			s->next_seq = r.seq + 1;
			payload = p + off + sizeof(r) + r.func_len;
			if (r.cpu >= MAXCPU || (!s->global && r.cpu != s->cpu))
				stream_bad(s, "record from another CPU", base + off);
			else if (s->ts_limit && r.ts_ns > s->ts_limit)
				stream_bad(s, "record newer than the limit", base + off);
			else if (r.flags & KLOG_RELAY_TRIGGER)
				s->triggers++;
			else if (s->count_only)
				;
			else if ((r.kind == KLOG_RELAY_RAW ?
				  tklg_check_raw : tklg_check_text)(payload, r.len,
								    r.cpu, &ctx,
								    &tseq))
				stream_bad(s, "payload self-check failed", base + off);
			else if (tseq < s->tklg_next[r.cpu][ctx])
				stream_bad(s, "test_klog seq went back", base + off);
			else if (ctx != r.ctx)
				stream_bad(s, "context mismatch", base + off);
			else
				s->tklg_next[r.cpu][ctx] = tseq + 1;
			s->last_ts = r.ts_ns;
			if (r.kind == KLOG_RELAY_RAW)
				s->raw++;
			else
				s->text++;
			s->records++;
			off += r.size;
		}
	}
	return off;
}

#endif /* KLOG_SELFTEST_UTIL_H */
