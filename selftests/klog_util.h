/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the klog selftests: control files, the test_klog
 * traffic module, the klog relay handler's stats, and a checker for the
 * klog relay stream (<linux/klog_relay.h>) that verifies every record
 * test_klog wrote: structure, per-CPU sequence, checksums, a site id
 * and a task name (COMM record) on each.
 */
#ifndef KLOG_SELFTEST_UTIL_H
#define KLOG_SELFTEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/klog_relay.h>

#include "klog-stream.h"	/* tools/lib/klog: the one decoder */
#include "klog-format.h"	/* and its formatter of binary arguments */
#include "klog_hash.h"

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

/* Write @val to @dir/@name; returns 0 or the errno of the failure. */
static inline int ctl_write(const char *dir, const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return write_file(path, val);
}

static inline int klog_ctl(const char *name, const char *val)
{
	return ctl_write(KLOG_DIR, name, val);
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

/* The number in @dir/@name, or -1. */
static inline long long ctl_read_ll(const char *dir, const char *name)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
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

static inline long long klog_ctl_read(const char *name)
{
	return ctl_read_ll(KLOG_DIR, name);
}

/* A binary size_t file (cpuN.produced, cpuN.consumed); 0 or -1. */
static inline int read_size(const char *path, size_t *val)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, val, sizeof(*val), 0);
	close(fd);
	return n == sizeof(*val) ? 0 : -1;
}

/* A control write and the errno it must fail with (0: accepted). */
struct bad_write {
	const char *file, *val;
	int err;
};

/* Make the @n writes @w into @dir: each gets its errno. */
static inline void expect_writes(struct __test_metadata *_metadata,
				 const char *dir, const struct bad_write *w,
				 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct bad_write *b = &w[i];
		int err = ctl_write(dir, b->file, b->val);

		EXPECT_EQ(b->err, err) TH_LOG("%s <- '%s'", b->file, b->val);
	}
}

/*
 * Without a channel, the size checks every relay-apps module makes
 * (relay_check_size() and its own bound) with 4096-byte sub-buffers set: bad
 * values and writes that need a channel are refused, a channel too
 * large to allocate is ENOMEM. Leaves n_subbufs at 4.
 */
static inline void expect_size_checks(struct __test_metadata *_metadata,
				      const char *dir)
{
	static const struct bad_write w[] = {
		{ "subbuf_size", "0", EINVAL },
		{ "subbuf_size", "99999999999999999999999", EINVAL },
		{ "n_subbufs", "1", EINVAL },
		{ "n_subbufs", "65537", EINVAL },
		{ "n_subbufs", "4x", EINVAL },
		{ "enabled", "1", ENODEV },
		{ "flush", "1", ENODEV },
		{ "n_subbufs", "1024", 0 },		/* 4 MiB per CPU: fine */
		{ "subbuf_size", "67108864", ENOMEM },	/* 64 GiB: not */
		{ "n_subbufs", "4", 0 },
	};

	expect_writes(_metadata, dir, w, ARRAY_SIZE(w));
}

/* The settings of @dir are still these (bad writes changed nothing). */
static inline void expect_settings(struct __test_metadata *_metadata,
				   const char *dir, long long subbuf_size,
				   long long n_subbufs, long long create)
{
	EXPECT_EQ(subbuf_size, ctl_read_ll(dir, "subbuf_size"));
	EXPECT_EQ(n_subbufs, ctl_read_ll(dir, "n_subbufs"));
	EXPECT_EQ(create, ctl_read_ll(dir, "create"));
	EXPECT_EQ(0, ctl_read_ll(dir, "enabled"));
}

/*
 * cpuN.consumed of @dir takes exactly one size_t, at most @n_subbufs:
 * anything else is EINVAL.
 */
static inline void expect_consumed_checked(struct __test_metadata *_metadata,
					   const char *dir, size_t n_subbufs)
{
	char path[256];
	size_t bad = 3;
	int fd;

	snprintf(path, sizeof(path), "%s/cpu0.consumed", dir);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, &bad, 3));
	EXPECT_EQ(EINVAL, errno);
	bad = n_subbufs + 1;
	EXPECT_EQ(-1, write(fd, &bad, sizeof(bad)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/* A file to open as user nobody, and how (check_root_only()). */
struct root_probe {
	const char *name;
	int flags;
};

/*
 * Every file of @dir is root's and private to it, there are @nfiles of
 * them, and a process of user nobody can open none of @probes (ending in
 * a zero entry): EACCES. The klog core's own files in klog's directory,
 * control and sites, are not counted: klog_control_test.sh checks them.
 */
static inline void check_root_only(struct __test_metadata *_metadata,
				   const char *dir, int nfiles,
				   const struct root_probe *probes)
{
	struct dirent *de;
	int status, files = 0;
	pid_t pid;
	DIR *d;

	d = opendir(dir);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		char path[300];
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "control") ||
		    !strcmp(de->d_name, "sites"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0, st.st_mode & 077) TH_LOG("%s mode %o", path, st.st_mode);
		EXPECT_EQ(0, st.st_uid);
		files++;
	}
	closedir(d);
	EXPECT_EQ(nfiles, files);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char path[300];

		if (setgid(65534) || setuid(65534))
			_exit(2);
		for (; probes->name; probes++) {
			snprintf(path, sizeof(path), "%s/%s", dir, probes->name);
			if (open(path, probes->flags) >= 0)
				_exit(3);
		}
		_exit(errno == EACCES ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
	int present;			/* the buffer has a stats line */
	unsigned long long produced, consumed, records, full, big, nmi, nest;
	unsigned long long max_backlog, frozen, reentered;
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

/* A key of the stats lines and its unsigned long long in a per-CPU struct. */
struct stat_key {
	const char *key;	/* " name=" */
	size_t off;
};

#define STAT_KEY(type, name)	{ " " #name "=", offsetof(type, name) }

/*
 * Parse @dir/stats, a line "cpu<N> key=value ..." per buffer: the values
 * of the @n @keys (~0 if missing) into struct N (@size bytes) of @cpus,
 * whose first member is an int set to 1 for each CPU with a line.
 * Returns the number of CPUs (highest N + 1), 0 if none, or -1.
 */
static inline int stats_read(const char *dir, const struct stat_key *keys,
			     size_t n, void *cpus, size_t size)
{
	char path[256], line[512];
	int ncpu = 0;
	unsigned int cpu;
	size_t k;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(cpus, 0, MAXCPU * size);
	while (fgets(line, sizeof(line), f)) {
		char *c;

		if (sscanf(line, "cpu%u ", &cpu) != 1 || cpu >= MAXCPU)
			break;
		c = (char *)cpus + cpu * size;
		*(int *)c = 1;
		for (k = 0; k < n; k++)
			*(unsigned long long *)(c + keys[k].off) =
				stat_field(line, keys[k].key);
		if ((int)cpu + 1 > ncpu)
			ncpu = cpu + 1;
	}
	fclose(f);
	return ncpu;
}

/* Lines "cpu<N> produced=<n> consumed=<n> ... reentered=<n>". */
static inline int klog_stats_read(struct klog_stats *s)
{
	static const struct stat_key keys[] = {
		STAT_KEY(struct klog_cpu_stats, produced),
		STAT_KEY(struct klog_cpu_stats, consumed),
		STAT_KEY(struct klog_cpu_stats, records),
		STAT_KEY(struct klog_cpu_stats, full),
		STAT_KEY(struct klog_cpu_stats, big),
		STAT_KEY(struct klog_cpu_stats, nmi),
		STAT_KEY(struct klog_cpu_stats, nest),
		STAT_KEY(struct klog_cpu_stats, max_backlog),
		STAT_KEY(struct klog_cpu_stats, frozen),
		STAT_KEY(struct klog_cpu_stats, reentered),
	};

	s->ncpu = stats_read(KLOG_DIR, keys, ARRAY_SIZE(keys), s->cpu,
			     sizeof(s->cpu[0]));
	return s->ncpu > 0 ? 0 : -1;
}

static inline unsigned long long klog_dropped(const struct klog_cpu_stats *c)
{
	return c->full + c->big + c->nmi + c->nest + c->frozen + c->reentered;
}

/* ---- stream checker ---------------------------------------------------- */

/*
 * The stream is decoded by the collectors' decoder (klog-stream.c of
 * tools/lib/klog, built in by the Makefile): framing, sizes, sequence
 * numbers and losses. On top, every test_klog record's payload is
 * checked: structure, per-CPU sequence, checksum.
 */
struct stream_check {
	struct ks_stream ks;
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
	int global;			/* records of every CPU (global buffer) */
	int count_only;			/* do not check test_klog payloads */
	/* text and argument records not test_klog's: counted in others */
	int others_ok;
	unsigned long long others;
	char why[2048];			/* first problem found */
};

static inline void stream_init(struct stream_check *s, unsigned int cpu)
{
	char name[16];

	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	snprintf(name, sizeof(name), "cpu%u", cpu);
	ks_init(&s->ks, cpu, name, 0);
	s->ks.join = 1;	/* the first header and record set the sequence */
}

static inline void stream_bad(struct stream_check *s, const char *why,
			      unsigned long long at)
{
	if (!s->bad++)
		snprintf(s->why, sizeof(s->why), "cpu%u offset %llu: %s",
			 s->cpu, at, why);
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
	    size != len || csum != klog_fnv1a(KLOG_FNV1A_INIT, p + 24, n))
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
	if (k != klog_fnv1a(KLOG_FNV1A_INIT, p + 59, n))
		return -1;
	for (i = 0; i < n; i++)
		if (p[59 + i] != 'a' + (s64 + i) % 26)
			return -1;
	*ctx = x;
	*seq = s64;
	return 0;
}

/*
 * The name of CPU @cpu's idle task (pid 0), which a pid 0 record must
 * carry: every CPU's idle task has pid 0, so in a global buffer the
 * handler names each by its CPU.
 */
static inline bool idle_comm_ok(const char *comm, unsigned int cpu)
{
	char want[32];

	snprintf(want, sizeof(want), "swapper/%u", cpu);
	return !strcmp(comm, want);
}

/*
 * test_klog's text record, the format of its one klog_printk() site
 * (lib/test_klog.c emit_one()): its records carry their arguments in
 * binary (KLOG_RELAY_ARGS), or the text when they did not fit a block.
 */
#define TKLG_TEXT_FMT	"TKLG c=%03u x=%u s=%020llu n=%07u k=%08x %.*s"

/*
 * A test_klog text or argument record's text (*text, *len; an argument
 * record's formatted into @buf, 1024 bytes). Return: 1, or 0 if it
 * does not format.
 */
static inline int tklg_text(const struct ks_event *ev, char *buf,
			    const uint8_t **text, size_t *len)
{
	int n;

	*text = ev->payload;
	*len = ev->rec.len;
	if (ev->rec.kind != KLOG_RELAY_ARGS)
		return 1;
	n = klog_args_text(buf, 1024, TKLG_TEXT_FMT, ev->payload,
			   ev->rec.len, NULL);
	if (n < 0 || n > 1023)
		return 0;
	*text = (const uint8_t *)buf;
	*len = n;
	return 1;
}

/* One decoded event (ks_event_fn): count it, check a record's payload. */
static inline int stream_event(const struct ks_event *ev, void *arg)
{
	struct stream_check *s = arg;
	const struct klog_rec_hdr *r = &ev->rec;
	unsigned long long tseq, at = s->ks.off;
	const uint8_t *text = NULL;
	unsigned int ctx;
	char tbuf[1024];
	size_t tlen = 0;

	switch (ev->kind) {
	case KS_SUBBUF:
		if (ev->sb.hdr_size != sizeof(ev->sb) || ev->sb.cpu != s->cpu)
			stream_bad(s, "bad sub-buffer header", at);
		s->hdr_lost += ev->sb.lost;
		s->subbufs++;
		return 0;
	case KS_SUBBUFS_LOST:
		s->subbuf_gaps += ev->count;
		return 0;
	case KS_LOST:
		s->seq_gaps += ev->count;
		return 0;
	case KS_RECORD:
		break;
	}
	if (!s->records)
		s->first_seq = r->seq;
	if (r->cpu >= MAXCPU || (!s->global && r->cpu != s->cpu))
		stream_bad(s, "record from another CPU", at);
	else if (ev->version != KLOG_RELAY_VERSION || !r->site_id)
		stream_bad(s, "record without a site id", at);
	/* a COMM record starts every sub-buffer and every change of pid */
	else if (!ev->comm)
		stream_bad(s, "record without a task name", at);
	else if (!r->pid && !idle_comm_ok(ev->comm, r->cpu))
		stream_bad(s, "idle task named after another CPU's", at);
	else if (s->ts_limit && r->ts_ns > s->ts_limit)
		stream_bad(s, "record newer than the limit", at);
	else if (r->flags & KLOG_RELAY_TRIGGER)
		s->triggers++;
	else if (s->count_only)
		;
	else if (s->others_ok && r->kind != KLOG_RELAY_RAW &&
		 (!tklg_text(ev, tbuf, &text, &tlen) ||
		  tklg_check_text(text, tlen, r->cpu, &ctx, &tseq)))
		s->others++;
	else if (r->kind != KLOG_RELAY_RAW &&
		 !tklg_text(ev, tbuf, &text, &tlen))
		stream_bad(s, "argument record that does not format", at);
	else if (r->kind == KLOG_RELAY_RAW ?
		 tklg_check_raw(ev->payload, r->len, r->cpu, &ctx, &tseq) :
		 tklg_check_text(text, tlen, r->cpu, &ctx, &tseq))
		stream_bad(s, "payload self-check failed", at);
	else if (tseq < s->tklg_next[r->cpu][ctx])
		stream_bad(s, "test_klog seq went back", at);
	else if (ctx != r->ctx)
		stream_bad(s, "context mismatch", at);
	else
		s->tklg_next[r->cpu][ctx] = tseq + 1;
	s->last_ts = r->ts_ns;
	if (r->kind == KLOG_RELAY_RAW)
		s->raw++;
	else
		s->text++;
	s->records++;
	return 0;
}

/*
 * Feed @len bytes of one CPU's stream, as read(2) returns it: sub-buffer
 * headers and records, no padding, cut anywhere (a cut item waits for
 * the next call, stream_partial() says how much of it there is). The
 * first format error stops the decoding and counts as bad.
 */
static inline void stream_feed(struct stream_check *s, const void *p,
			       size_t len)
{
	if (s->ks.failed)
		return;
	if (ks_feed(&s->ks, p, len, stream_event, s) && s->ks.failed)
		stream_bad(s, s->ks.error, s->ks.off);
	if (s->ks.late)
		stream_bad(s, "record seq went back", s->ks.off);
}

/* Bytes of an item cut at the end of what was fed. */
static inline size_t stream_partial(const struct stream_check *s)
{
	return s->ks.carry.len;
}

/*
 * Feed what must be whole items (a sub-buffer, a file): a cut item at
 * the end is bad (@why) and dropped, so the next part starts afresh.
 */
static inline void stream_feed_whole(struct stream_check *s, const void *p,
				     size_t len, const char *why)
{
	stream_feed(s, p, len);
	if (stream_partial(s)) {
		stream_bad(s, why, s->ks.off);
		s->ks.carry.len = 0;
	}
}

#endif /* KLOG_SELFTEST_UTIL_H */
