// SPDX-License-Identifier: GPL-2.0
/*
 * The klog relay handler (kernel/klog_relay*.c), checked record by
 * record against what test_klog emitted:
 *
 * - read(2) and mmap(2) readers, running while records are written, get
 *   every record exactly once, intact, in order, per CPU, across hundreds
 *   of sub-buffer switches, and never any padding;
 * - with no reader, delivered + dropped == emitted exactly per CPU, and
 *   the loss markers in the stream (record sequence gaps, sub-buffer
 *   header "lost") agree with the counters;
 * - records bigger than a sub-buffer are counted; bad control input is
 *   rejected with the right errno and changes nothing; only root may
 *   open the files, and map a buffer only whole, from offset 0, and
 *   read-only; the module can be removed while records are written.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>

#include "../kselftest_harness.h"
#include "klog_util.h"

#define REENTER_PARAM	"/sys/module/klog_mod/parameters/test_reenter"
#define REENTER_N	8
#define SUBBUF		4096
#define NSUBBUF		512

struct reader {
	pthread_t thread;
	int cpu;
	int mmap_mode;
	int *stop;
	struct stream_check check;
	unsigned long long bytes;
	int err;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* read(2) reader: poll with a timeout, read what is there. */
static void *read_reader(void *arg)
{
	struct reader *r = arg;
	uint8_t *buf = malloc(1 << 20);
	char path[64];
	int fd, last = 0;

	snprintf(path, sizeof(path), KLOG_DIR "/cpu%d", r->cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || !buf) {
		r->err = errno ?: ENOMEM;
		free(buf);
		return NULL;
	}
	pin(r->cpu);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		poll(&pfd, 1, 20);
		n = read(fd, buf, 1 << 20);
		if (n < 0 && errno != EAGAIN) {
			r->err = errno;
			break;
		}
		if (n > 0) {
			r->bytes += n;
			stream_feed(&r->check, buf, n);
			continue;
		}
		/* Stop only after a read found nothing once stop was set. */
		if (last)
			break;
		last = __atomic_load_n(r->stop, __ATOMIC_ACQUIRE);
	}
	if (stream_partial(&r->check))
		stream_bad(&r->check, "partial record at the end", r->bytes);
	close(fd);
	free(buf);
	return NULL;
}

/*
 * mmap(2) reader: take every produced sub-buffer, up to the header's
 * padding, then tell the kernel it is consumed.
 */
static void *mmap_reader(void *arg)
{
	struct reader *r = arg;
	size_t consumed = 0, produced, size = (size_t)SUBBUF * NSUBBUF;
	char path[64], ppath[80], cpath[80];
	uint8_t *map;
	int fd, cfd, last = 0;

	snprintf(path, sizeof(path), KLOG_DIR "/cpu%d", r->cpu);
	snprintf(ppath, sizeof(ppath), "%s.produced", path);
	snprintf(cpath, sizeof(cpath), "%s.consumed", path);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	cfd = open(cpath, O_WRONLY);
	if (fd < 0 || cfd < 0) {
		r->err = errno;
		return NULL;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r->err = errno;
		return NULL;
	}
	pin(r->cpu);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		size_t n;

		poll(&pfd, 1, 20);
		if (read_size(ppath, &produced)) {
			r->err = EIO;
			break;
		}
		if (produced - consumed > NSUBBUF)
			stream_bad(&r->check, "reader overrun", consumed);
		for (n = 0; consumed + n < produced; n++) {
			const uint8_t *sb = map + ((consumed + n) % NSUBBUF) * SUBBUF;
			struct klog_subbuf_hdr h;
			size_t used;

			memcpy(&h, sb, sizeof(h));
			used = SUBBUF - h.padding;
			if (h.magic != KLOG_SUBBUF_MAGIC || h.padding > SUBBUF) {
				stream_bad(&r->check, "bad header in mmap", consumed + n);
				continue;
			}
			stream_feed_whole(&r->check, sb, used,
					  "sub-buffer ends mid-record");
			r->bytes += used;
		}
		if (n) {
			if (write(cfd, &n, sizeof(n)) != sizeof(n))
				r->err = errno;
			consumed += n;
			continue;
		}
		if (last)
			break;
		last = __atomic_load_n(r->stop, __ATOMIC_ACQUIRE);
	}
	munmap(map, size);
	close(cfd);
	close(fd);
	return NULL;
}

static int online_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

FIXTURE(relay) {
	struct tklg_counts before, after;
	struct klog_stats stats;
	struct reader readers[MAXCPU];
	int stop;
	int ncpu;
};

FIXTURE_SETUP(relay)
{
	if (access(KLOG_DIR "/create", F_OK))
		SKIP(return, "klog-mod is not loaded (" KLOG_DIR ")");
	if (access(TKLG_DIR "/emit", F_OK))
		SKIP(return, "test_klog is not loaded (" TKLG_DIR ")");
	self->ncpu = online_cpus();
	ASSERT_LE(self->ncpu, MAXCPU);
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("global", "0"));
	ASSERT_EQ(0, klog_set_sizes(SUBBUF, NSUBBUF));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, tklg_read(&self->before));
}

FIXTURE_TEARDOWN(relay)
{
	klog_ctl("enabled", "0");
	klog_ctl("create", "0");
	klog_ctl("global", "0");
	write_file(REENTER_PARAM, "0");
}

static void init_readers(struct reader *readers, int ncpu, int *stop,
			 int mmap_mode)
{
	int cpu;

	__atomic_store_n(stop, 0, __ATOMIC_RELEASE);
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct reader *r = &readers[cpu];

		r->cpu = cpu;
		r->mmap_mode = mmap_mode;
		r->stop = stop;
		stream_init(&r->check, cpu);
	}
}

static void start_readers(struct reader *readers, int ncpu, int *stop,
			  int mmap_mode)
{
	int cpu;

	init_readers(readers, ncpu, stop, mmap_mode);
	for (cpu = 0; cpu < ncpu; cpu++)
		pthread_create(&readers[cpu].thread, NULL,
			       mmap_mode ? mmap_reader : read_reader,
			       &readers[cpu]);
}

static void stop_readers(struct reader *readers, int ncpu, int *stop)
{
	int cpu;

	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	for (cpu = 0; cpu < ncpu; cpu++)
		pthread_join(readers[cpu].thread, NULL);
}

/* Everything emitted arrived, once, intact and in order. */
#define check_exact() do {						\
	ASSERT_EQ(0, tklg_read(&self->after));				\
	ASSERT_EQ(0, klog_stats_read(&self->stats));			\
	for (int cpu = 0; cpu < self->ncpu; cpu++)			\
		check_cpu_exact(_metadata, &self->readers[cpu],		\
				&self->stats.cpu[cpu], &self->before,	\
				&self->after);				\
} while (0)

static void check_cpu_exact(struct __test_metadata *_metadata,
			    struct reader *r, struct klog_cpu_stats *st,
			    struct tklg_counts *before,
			    struct tklg_counts *after)
{
	unsigned long long emitted = tklg_delta(before, after, r->cpu);
	int cpu = r->cpu, ctx;

	EXPECT_EQ(0, r->err) TH_LOG("cpu%d: %s", cpu, strerror(r->err));
	EXPECT_EQ(0, r->check.bad) TH_LOG("%s", r->check.why);
	EXPECT_EQ(emitted, r->check.records) TH_LOG("cpu%d", cpu);
	EXPECT_EQ(emitted, st->records);
	EXPECT_EQ(0, klog_dropped(st));
	EXPECT_EQ(0, r->check.first_seq);
	EXPECT_EQ(0, r->check.seq_gaps);
	EXPECT_EQ(0, r->check.subbuf_gaps);
	EXPECT_EQ(0, r->check.hdr_lost);
	/* Each context's last record is the last one emitted. */
	for (ctx = 0; ctx < NCTX; ctx++)
		EXPECT_EQ(after->n[cpu][ctx] == before->n[cpu][ctx] ?
			  0 : after->n[cpu][ctx], r->check.tklg_next[cpu][ctx])
			TH_LOG("cpu%d ctx%d", cpu, ctx);
	/* Hundreds of sub-buffer switches, every one accounted. */
	EXPECT_GE(r->check.subbufs, 200);
	/* Both modes read finished sub-buffers only. */
	EXPECT_EQ(st->produced, r->check.subbufs);
}

static void emit_mixed(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, tklg_emit("count=2500 size=64 kind=raw ctx=task,softirq,hardirq cpus=all"));
	ASSERT_EQ(0, tklg_emit("count=500 size=120 kind=text ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, tklg_emit("count=3 size=2000 kind=raw ctx=task cpus=all"));
	/*
	 * Payloads copied inline as two overlapping halves (16 + 16 bytes,
	 * 32 + 32); and just past the inline copy.
	 */
	ASSERT_EQ(0, tklg_emit("count=300 size=29 kind=raw ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, tklg_emit("count=300 size=45 kind=raw ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, tklg_emit("count=300 size=65 kind=raw ctx=task,hardirq cpus=all"));
}

TEST_F_TIMEOUT(relay, read_mode_exact, KLOG_TEST_TIMEOUT)
{
	start_readers(self->readers, self->ncpu, &self->stop, 0);
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	emit_mixed(_metadata);
	ASSERT_EQ(0, klog_ctl("enabled", "0"));	/* flushes */
	stop_readers(self->readers, self->ncpu, &self->stop);
	check_exact();
}

TEST_F_TIMEOUT(relay, mmap_mode_exact, KLOG_TEST_TIMEOUT)
{
	start_readers(self->readers, self->ncpu, &self->stop, 1);
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	emit_mixed(_metadata);
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	stop_readers(self->readers, self->ncpu, &self->stop);
	check_exact();
}

/*
 * No reader while records are written into 4 small sub-buffers: most
 * are refused. Then drain, and write one more record per CPU so that a
 * sub-buffer starts after the last drop and reports it.
 */
TEST_F_TIMEOUT(relay, stalled_reader_accounting, KLOG_TEST_TIMEOUT)
{
	int cpu;

	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("n_subbufs", "4"));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=1500 size=64 kind=raw ctx=task,hardirq,nmi cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	init_readers(self->readers, self->ncpu, &self->stop, 0);
	__atomic_store_n(&self->stop, 1, __ATOMIC_RELEASE);
	for (cpu = 0; cpu < self->ncpu; cpu++)
		read_reader(&self->readers[cpu]);
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=1 size=64 kind=raw ctx=task cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	for (cpu = 0; cpu < self->ncpu; cpu++)
		read_reader(&self->readers[cpu]);

	ASSERT_EQ(0, tklg_read(&self->after));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		struct stream_check *c = &self->readers[cpu].check;
		struct klog_cpu_stats *st = &self->stats.cpu[cpu];
		unsigned long long emitted = tklg_delta(&self->before, &self->after, cpu);

		EXPECT_EQ(0, c->bad) TH_LOG("%s", c->why);
		EXPECT_EQ(3 * 1500 + 1, emitted);
		EXPECT_EQ(emitted, c->records + klog_dropped(st)) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(c->records, st->records);
		/* NMI records are staged, then refused like the others */
		EXPECT_EQ(0, st->nmi);
		EXPECT_GT(st->full, 0);
		EXPECT_EQ(0, st->big);
		/* The stream tells the same story as the counters. */
		EXPECT_EQ(klog_dropped(st), c->first_seq + c->seq_gaps);
		EXPECT_EQ(klog_dropped(st), c->hdr_lost);
		EXPECT_EQ(4, st->max_backlog);
	}
}

TEST_F_TIMEOUT(relay, too_big_counted, KLOG_TEST_TIMEOUT)
{
	struct klog_cpu_stats *st = &self->stats.cpu[0];

	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("subbuf_size", "1024"));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	/*
	 * A record must fit an empty sub-buffer after its header and the
	 * COMM record (56 bytes) that starts every sub-buffer: 40-byte
	 * record header + 889, aligned 936 > 1024 - 40 - 56: too big
	 */
	ASSERT_EQ(0, tklg_emit("count=5 size=889 kind=raw cpus=0"));
	/* 40 + 888 = 928 <= 928: fits */
	ASSERT_EQ(0, tklg_emit("count=1 size=888 kind=raw cpus=0"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(5, st->big);
	EXPECT_EQ(1, st->records);
	EXPECT_EQ(5, klog_ctl_read("dropped"));

	init_readers(self->readers, 1, &self->stop, 0);
	__atomic_store_n(&self->stop, 1, __ATOMIC_RELEASE);
	read_reader(&self->readers[0]);
	EXPECT_EQ(1, self->readers[0].check.records);
	EXPECT_EQ(5, self->readers[0].check.first_seq);
	EXPECT_EQ(0, self->readers[0].check.seq_gaps);
	EXPECT_EQ(0, self->readers[0].check.bad) TH_LOG("%s", self->readers[0].check.why);
}

/*
 * klog_mod.test_reenter=N makes the next N sub-buffer starts write a
 * klog record from inside the write path, where "buffer full" was once
 * printed. Each such record must be counted as reentered (stats, dropped,
 * the stream's lost and sequence gaps), never written in the middle of a
 * sub-buffer switch and never deadlock (a global buffer's lock).
 */
static void reentered_run(struct __test_metadata *_metadata,
			  struct reader *readers, int *stop, int ncpu,
			  struct tklg_counts *before, int global)
{
	unsigned long long emitted = 0, records = 0, reentered = 0;
	int cpu, left = -1, nbuf = global ? 1 : ncpu;
	struct tklg_counts after;
	struct klog_stats stats;
	FILE *f;

	if (access(REENTER_PARAM, W_OK))
		SKIP(return, "no " REENTER_PARAM);
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("global", global ? "1" : "0"));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, write_file(REENTER_PARAM, "8"));	/* REENTER_N */
	/* 112-byte records: about 14 sub-buffer switches per CPU */
	ASSERT_EQ(0, tklg_emit("count=500 size=64 kind=raw ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	/* Every hook fired: the count went down to 0. */
	f = fopen(REENTER_PARAM, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &left));
	fclose(f);
	ASSERT_EQ(0, left);
	/*
	 * Two more rounds of one record per CPU, each flushed: the last
	 * drop takes its number (a gap) and the sub-buffer after it reports
	 * it in its header.
	 */
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, klog_ctl("enabled", "1"));
		ASSERT_EQ(0, tklg_emit("count=1 size=64 kind=raw ctx=task cpus=all"));
		ASSERT_EQ(0, klog_ctl("enabled", "0"));
	}
	init_readers(readers, nbuf, stop, 0);
	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, tklg_read(&after));
	ASSERT_EQ(0, klog_stats_read(&stats));
	for (cpu = 0; cpu < ncpu; cpu++)
		emitted += tklg_delta(before, &after, cpu);
	for (cpu = 0; cpu < nbuf; cpu++) {
		struct stream_check *c = &readers[cpu].check;
		struct klog_cpu_stats *st = &stats.cpu[cpu];

		c->global = global;
		read_reader(&readers[cpu]);
		EXPECT_EQ(0, c->bad) TH_LOG("%s", c->why);
		EXPECT_EQ(0, readers[cpu].err);
		EXPECT_EQ(c->records, st->records) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(st->reentered, klog_dropped(st)) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(st->reentered, c->hdr_lost) TH_LOG("cpu%d", cpu);
		/* A global buffer numbers only what reached its lock. */
		EXPECT_EQ(global ? 0 : st->reentered, c->first_seq + c->seq_gaps)
			TH_LOG("cpu%d", cpu);
		/* The reentered records are the hook's: test_klog's all arrive. */
		if (!global)
			EXPECT_EQ(tklg_delta(before, &after, cpu), c->records)
				TH_LOG("cpu%d", cpu);
		records += c->records;
		reentered += st->reentered;
	}
	EXPECT_EQ(REENTER_N, reentered);
	EXPECT_EQ(emitted, records);
	EXPECT_EQ(REENTER_N, klog_ctl_read("dropped"));
	klog_ctl("create", "0");
	klog_ctl("global", "0");
}

TEST_F_TIMEOUT(relay, reentered_counted, 300)
{
	reentered_run(_metadata, self->readers, &self->stop, self->ncpu,
		      &self->before, 0);
}

TEST_F_TIMEOUT(relay, reentered_counted_global, 300)
{
	reentered_run(_metadata, self->readers, &self->stop, self->ncpu,
		      &self->before, 1);
}

/*
 * The buffer can be mapped read-only only: root may open the 0400 file
 * read-write, but a writable mapping (PROT_WRITE, or mprotect() to it)
 * would let user space rewrite headers that the module trusts. And only
 * from offset 0: relay maps the page at the faulting offset into the
 * buffer, so a mapping from further in would reach past its end.
 */
TEST_F_TIMEOUT(relay, mmap_read_only_from_offset_0, KLOG_TEST_TIMEOUT)
{
	size_t size = (size_t)SUBBUF * NSUBBUF;
	void *map;
	int fd;

	fd = open(KLOG_DIR "/cpu0", O_RDWR);
	ASSERT_GE(fd, 0) TH_LOG("open cpu0 O_RDWR: %s", strerror(errno));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EPERM, errno);
	if (map != MAP_FAILED)
		munmap(map, size);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(-1, mprotect(map, size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(map, size);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, sysconf(_SC_PAGESIZE));
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EINVAL, errno);
	if (map != MAP_FAILED)
		munmap(map, size);
	close(fd);
}

TEST_F_TIMEOUT(relay, bad_control_input, KLOG_TEST_TIMEOUT)
{
	static const struct bad_write with_channel[] = {
		{ "subbuf_size", "8192", EBUSY },	/* channel exists */
		{ "n_subbufs", "8", EBUSY },
		{ "subbuf_size", "abc", EINVAL },
		{ "subbuf_size", "0", EINVAL },
		{ "subbuf_size", "-4096", EINVAL },
		{ "enabled", "maybe", EINVAL },
		{ "enabled", "2", EINVAL },
		{ "enabled", "+1", EINVAL },
		{ "enabled", "01", EINVAL },
		{ "frozen", "00", EINVAL },
		{ "flush", "+1", EINVAL },
		{ "create", "yes please", EINVAL },
		{ "flush", "0", EINVAL },
		{ "flush", "x", EINVAL },
		{ "enabled", "", EINVAL },
		{ "enabled", "11111111111111111111111111111111111111", EINVAL },
		{ "dump_on_oops", "sometimes", EINVAL },
		{ "dump_on_oops", "off,3", EINVAL },
		{ "dump_on_oops", "all,", EINVAL },
		{ "dump_on_oops", "all,x", EINVAL },
		{ "dump_on_oops", "all,-1", EINVAL },
		{ "dump_on_oops", "all,0", EINVAL },
		{ "dump_on_oops", "cpu,100001", EINVAL },
		{ "dump_on_oops", "cpu,5x", EINVAL },
		{ "dump_on_oops", "all,007", EINVAL },
		{ "dump_on_oops", "all,+5", EINVAL },
	};
	static const struct bad_write without_channel[] = {
		{ "subbuf_size", "abc", EINVAL },
		{ "subbuf_size", "1023", EINVAL },
		{ "subbuf_size", "67108865", EINVAL },
	};

	expect_writes(_metadata, KLOG_DIR, with_channel, ARRAY_SIZE(with_channel));
	expect_settings(_metadata, KLOG_DIR, SUBBUF, NSUBBUF, 1);
	expect_consumed_checked(_metadata, KLOG_DIR, NSUBBUF);

	/* create while enabled */
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	EXPECT_EQ(EBUSY, klog_ctl("create", "1"));
	EXPECT_EQ(EBUSY, klog_ctl("create", "0"));
	EXPECT_EQ(1, klog_ctl_read("enabled"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));

	ASSERT_EQ(0, klog_ctl("create", "0"));
	expect_writes(_metadata, KLOG_DIR, without_channel,
		      ARRAY_SIZE(without_channel));
	expect_size_checks(_metadata, KLOG_DIR);
	expect_settings(_metadata, KLOG_DIR, SUBBUF, 4, 0);
}

TEST_F_TIMEOUT(relay, root_only, KLOG_TEST_TIMEOUT)
{
	static const struct root_probe probes[] = {
		{ "cpu0", O_RDONLY }, { "enabled", O_WRONLY },
		{ "stats", O_RDONLY }, { NULL, 0 }
	};

	check_root_only(_metadata, KLOG_DIR, 15 + 3 * self->ncpu, probes);
}

/*
 * Remove and reload the handler module while every CPU writes records
 * from task and hardirq context; KASAN and lockdep watch the console.
 */
TEST_F_TIMEOUT(relay, rmmod_under_load, 1800)
{
	const char *ko = getenv("KLOG_MOD_KO") ?: "/lib/modules/klog-mod.ko";
	int i, fd, rounds;
	pid_t pid;

	if (access(ko, R_OK))
		SKIP(return, "no %s (set KLOG_MOD_KO)", ko);
	pid = start_writer("count=100000000 size=64 kind=raw ctx=task,hardirq cpus=all");
	ASSERT_GT(pid, 0);

	/*
	 * 10 rounds; 100 in the full gauntlet (make check-full), which needs
	 * far more than the harness's default 30 s under KCSAN.
	 */
	rounds = getenv("KLOG_GAUNTLET") && !strcmp(getenv("KLOG_GAUNTLET"), "full") ?
		 100 : 10;
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, klog_ctl("enabled", "1"));
		usleep(50000);
		ASSERT_EQ(0, syscall(__NR_delete_module, "klog_mod", O_NONBLOCK))
			TH_LOG("rmmod %d: %s", i, strerror(errno));
		fd = open(ko, O_RDONLY);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, syscall(__NR_finit_module, fd, "", 0))
			TH_LOG("insmod %d: %s", i, strerror(errno));
		close(fd);
		ASSERT_EQ(0, klog_ctl("create", "1"));
	}
	EXPECT_EQ(EINTR, stop_writer(pid));
	TH_LOG("figure: rmmod: %d handler rmmod/insmod rounds under load", i);
}

TEST_HARNESS_MAIN
