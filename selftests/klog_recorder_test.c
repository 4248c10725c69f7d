// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod as a flight recorder, and its other channel settings:
 *
 * - snapshots taken over and over while every CPU keeps writing in
 *   overwrite mode: every kept sub-buffer is intact, its records are in
 *   order, none is newer than the snapshot, and every sub-buffer that was
 *   overwritten during the copy is skipped and shows as a gap;
 * - klog_trigger() freezes the recorder after its own record, and writes
 *   after it are counted, not written; thawing re-arms;
 * - a global buffer holds one total order of all CPUs' records;
 * - settings cannot change under a live channel; reset empties it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "klog_util.h"

#define SUBBUF		4096
#define NSUBBUF		16
#define PACED_WRITER	\
	"count=1000000000 size=64 kind=raw ctx=task,hardirq cpus=all gap_us=10000"

struct snap {
	size_t pos[MAXCPU];
	unsigned long long ts[MAXCPU];
	int nbuf;
};

static int take_snapshot(struct snap *sn)
{
	unsigned long long ts;
	unsigned int cpu;
	size_t pos;
	FILE *f;

	if (klog_ctl("snapshot", "1"))
		return -1;
	f = fopen(KLOG_DIR "/snapshot", "r");
	if (!f)
		return -1;
	sn->nbuf = 0;
	while (fscanf(f, " cpu%u %zu %llu", &cpu, &pos, &ts) == 3 && cpu < MAXCPU) {
		sn->pos[cpu] = pos;
		sn->ts[cpu] = ts;
		sn->nbuf = cpu + 1;
	}
	fclose(f);
	return sn->nbuf ? 0 : -1;
}

static uint8_t *map_buf(int cpu, size_t size)
{
	char path[64];
	void *map;
	int fd;

	snprintf(path, sizeof(path), KLOG_DIR "/cpu%d", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

static uint64_t hdr_seq(const uint8_t *subbuf)
{
	return __atomic_load_n((const uint64_t *)(subbuf +
			offsetof(struct klog_subbuf_hdr, seq)), __ATOMIC_ACQUIRE);
}

struct copy_result {
	unsigned long long kept, skipped, lead_skipped, trail_skipped;
};

/*
 * Copy one buffer's snapshot, oldest sub-buffer first, as a collector
 * does: keep a copy only if the header still names the expected
 * sub-buffer after the copy. Kept sub-buffers go to @check.
 */
static void copy_snapshot(const uint8_t *map, size_t pos, unsigned long long ts,
			  struct stream_check *check, struct copy_result *res)
{
	static uint8_t copy[SUBBUF];
	size_t s = pos >= NSUBBUF ? pos - NSUBBUF + 1 : 0;

	check->ts_limit = ts;
	for (; s < pos; s++) {
		const uint8_t *sb = map + (s % NSUBBUF) * SUBBUF;
		struct klog_subbuf_hdr h;
		size_t used;

		if (hdr_seq(sb) != s)
			goto skip;
		memcpy(copy, sb, SUBBUF);
		/* The copy before the re-check; pairs with the writer's wmb. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (hdr_seq(sb) != s)
			goto skip;
		memcpy(&h, copy, sizeof(h));
		used = SUBBUF - h.padding;
		if (h.padding > SUBBUF - sizeof(h))
			stream_bad(check, "kept sub-buffer does not parse", s);
		else
			stream_feed_whole(check, copy, used,
					  "kept sub-buffer does not parse");
		res->kept++;
		res->trail_skipped = 0;
		continue;
skip:
		res->skipped++;
		if (!res->kept)
			res->lead_skipped++;
		else
			res->trail_skipped++;	/* reset if a later one is kept */
	}
}

FIXTURE(recorder) {
	struct tklg_counts before, after;
	struct klog_stats stats;
	int ncpu;
};

/*
 * Wait until CPUs 0 .. @ncpu - 1 have each written @records more records
 * and finished @subbufs more sub-buffers than in @base (klog-mod's stats;
 * NULL: since create): the writer is running and the ring is where the
 * test needs it. A condition, not a time: a loaded machine only makes it
 * slower. Gives up after WAIT_POLLS polls (a writer that never writes).
 * Returns 0 when the condition holds.
 */
#define WAIT_POLLS	12000	/* of 10 ms: two minutes */
static int wait_written(int ncpu, const struct klog_stats *base,
			unsigned long long records, unsigned long long subbufs)
{
	static const struct klog_stats zero;
	struct klog_stats st;
	int polls, cpu;

	if (!base)
		base = &zero;
	for (polls = 0; polls < WAIT_POLLS; polls++) {
		if (klog_stats_read(&st))
			return -1;
		for (cpu = 0; cpu < ncpu; cpu++)
			if (st.cpu[cpu].records < base->cpu[cpu].records + records ||
			    st.cpu[cpu].produced < base->cpu[cpu].produced + subbufs)
				break;
		if (cpu == ncpu)
			return 0;
		usleep(10000);	/* a poll interval, not the wait itself */
	}
	return -1;
}

FIXTURE_SETUP(recorder)
{
	if (access(KLOG_DIR "/mode", F_OK))
		SKIP(return, "klog-mod is not loaded (" KLOG_DIR ")");
	if (access(TKLG_DIR "/emit", F_OK))
		SKIP(return, "test_klog is not loaded (" TKLG_DIR ")");
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ASSERT_LE(self->ncpu, MAXCPU);
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_set_sizes(SUBBUF, NSUBBUF));
	ASSERT_EQ(0, klog_ctl("mode", "overwrite"));
	ASSERT_EQ(0, klog_ctl("global", "0"));
	ASSERT_EQ(0, klog_ctl("frozen", "0"));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, tklg_read(&self->before));
}

FIXTURE_TEARDOWN(recorder)
{
	klog_ctl("enabled", "0");
	klog_ctl("create", "0");
	klog_ctl("mode", "no-overwrite");
	klog_ctl("global", "0");
	klog_ctl("frozen", "0");
}

/*
 * Take @n snapshots while a writer runs and check every kept sub-buffer;
 * returns the sub-buffers kept.
 */
static unsigned long long snapshot_rounds(struct __test_metadata *_metadata,
					  uint8_t **maps, int ncpu, int n,
					  const char *phase)
{
	struct copy_result total = { 0 };
	unsigned long long records = 0;
	struct snap sn;
	int cpu, i;

	for (i = 0; i < n; i++) {
		if (take_snapshot(&sn) || sn.nbuf != ncpu) {
			EXPECT_EQ(ncpu, sn.nbuf);
			break;
		}
		for (cpu = 0; cpu < ncpu; cpu++) {
			struct copy_result res = { 0 };
			struct stream_check check;

			stream_init(&check, cpu);
			copy_snapshot(maps[cpu], sn.pos[cpu], sn.ts[cpu], &check, &res);
			EXPECT_EQ(0, check.bad) TH_LOG("%s %d: %s", phase, i, check.why);
			/*
			 * Each skipped sub-buffer between kept ones is a gap (the
			 * writers may also lap the ring during a slow copy and
			 * overwrite the newest ones: those leave no gap)...
			 */
			EXPECT_EQ(res.skipped - res.lead_skipped - res.trail_skipped,
				  check.subbuf_gaps);
			/* ... and consecutive kept sub-buffers miss no record. */
			if (!check.subbuf_gaps)
				EXPECT_EQ(0, check.seq_gaps);
			total.kept += res.kept;
			total.skipped += res.skipped;
			records += check.records;
		}
	}
	TH_LOG("%s: %d snapshots, %llu sub-buffers kept, %llu skipped", phase,
	       n, total.kept, total.skipped);
	TH_LOG("%s: %llu records checked", phase, records);
	return total.kept;
}

TEST_F_TIMEOUT(recorder, snapshots_consistent_under_writers, KLOG_TEST_TIMEOUT)
{
	uint8_t *maps[MAXCPU];
	unsigned long long kept;
	pid_t writer;
	int cpu;

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		maps[cpu] = map_buf(cpu, (size_t)SUBBUF * NSUBBUF);
		ASSERT_NE(NULL, maps[cpu]);
	}
	ASSERT_EQ(0, klog_ctl("enabled", "1"));

	/* A flood: most sub-buffers are overwritten while being copied. */
	writer = start_writer("count=1000000000 size=64 kind=raw ctx=task,hardirq cpus=all");
	ASSERT_GT(writer, 0);
	/* Every CPU's ring has wrapped once. */
	ASSERT_EQ(0, wait_written(self->ncpu, NULL, 1, NSUBBUF));
	snapshot_rounds(_metadata, maps, self->ncpu, 15, "flood");
	EXPECT_EQ(EINTR, stop_writer(writer));

	/* A paced writer: snapshots keep most of the ring. */
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	writer = start_writer(PACED_WRITER);
	ASSERT_GT(writer, 0);
	/* The paced writer is writing on every CPU. */
	ASSERT_EQ(0, wait_written(self->ncpu, &self->stats, 10, 0));
	kept = snapshot_rounds(_metadata, maps, self->ncpu, 15, "paced");
	EXPECT_EQ(EINTR, stop_writer(writer));
	EXPECT_GE(kept, 15 * self->ncpu);

	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	/* The writers really wrapped the ring; overwrite mode never refuses. */
	EXPECT_GT(self->stats.cpu[0].produced, NSUBBUF * 4);
	EXPECT_EQ(0, self->stats.cpu[0].full);
	for (cpu = 0; cpu < self->ncpu; cpu++)
		munmap(maps[cpu], (size_t)SUBBUF * NSUBBUF);
}

TEST_F_TIMEOUT(recorder, trigger_freezes_recorder, KLOG_TEST_TIMEOUT)
{
	struct stream_check check;
	struct copy_result res = { 0 };
	char line[256] = "";
	uint8_t *map;
	struct snap sn;
	int cpu, fd;
	ssize_t n;

	map = map_buf(0, (size_t)SUBBUF * NSUBBUF);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=300 size=64 kind=raw cpus=0 trigger=1"));
	EXPECT_EQ(1, klog_ctl_read("frozen"));
	fd = open(KLOG_DIR "/trigger", O_RDONLY);
	ASSERT_GE(fd, 0);
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	EXPECT_EQ(0, strncmp(line, "cpu=0 ts=", 9)) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, " reason=klog_trigger: test_klog\n")) TH_LOG("%s", line);

	/* After the trigger, every record is counted, none written. */
	ASSERT_EQ(0, tklg_emit("count=50 size=64 kind=raw cpus=all"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		EXPECT_EQ(50, self->stats.cpu[cpu].frozen);
		EXPECT_EQ(cpu ? 0 : 301, self->stats.cpu[cpu].records);
	}

	/* The snapshot holds the moments before the trigger, ending with it. */
	ASSERT_EQ(0, take_snapshot(&sn));
	stream_init(&check, 0);
	copy_snapshot(map, sn.pos[0], sn.ts[0], &check, &res);
	EXPECT_EQ(0, check.bad) TH_LOG("%s", check.why);
	EXPECT_EQ(0, res.skipped);
	EXPECT_EQ(301, check.records);
	EXPECT_EQ(1, check.triggers);
	EXPECT_EQ(self->before.n[0][0] + 300, check.tklg_next[0][0]);

	/* Thawed: writes go on, the trigger file is empty again. */
	ASSERT_EQ(0, klog_ctl("frozen", "0"));
	ASSERT_EQ(0, tklg_emit("count=10 size=64 kind=raw cpus=0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(311, self->stats.cpu[0].records);
	EXPECT_EQ(50, self->stats.cpu[0].frozen);
	fd = open(KLOG_DIR "/trigger", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read(fd, line, sizeof(line)));
	close(fd);
	munmap(map, (size_t)SUBBUF * NSUBBUF);
}

TEST_F_TIMEOUT(recorder, global_buffer_total_order, KLOG_TEST_TIMEOUT)
{
	struct stream_check check;
	uint8_t *buf = malloc(8 << 20);
	unsigned long long emitted = 0;
	ssize_t n, have = 0;
	int cpu, ctx, fd;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("mode", "no-overwrite"));
	ASSERT_EQ(0, klog_ctl("global", "1"));
	ASSERT_EQ(0, klog_set_sizes(16384, 512));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	EXPECT_EQ(-1, access(KLOG_DIR "/cpu1", F_OK));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=2000 size=64 kind=raw ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));

	fd = open(KLOG_DIR "/cpu0", O_RDONLY);
	ASSERT_GE(fd, 0);
	while ((n = read(fd, buf + have, (8 << 20) - have)) > 0)
		have += n;
	close(fd);
	stream_init(&check, 0);
	check.global = 1;
	stream_feed(&check, buf, have);
	EXPECT_EQ(0, stream_partial(&check));
	free(buf);

	ASSERT_EQ(0, tklg_read(&self->after));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(1, self->stats.ncpu);
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		emitted += tklg_delta(&self->before, &self->after, cpu);
		for (ctx = 0; ctx < 3; ctx += 2)
			EXPECT_EQ(self->after.n[cpu][ctx], check.tklg_next[cpu][ctx]);
	}
	EXPECT_EQ(0, check.bad) TH_LOG("%s", check.why);
	/* One sequence over all CPUs: 0 .. emitted - 1, no gap. */
	EXPECT_EQ(emitted, check.records);
	EXPECT_EQ(0, check.first_seq);
	EXPECT_EQ(0, check.seq_gaps);
	EXPECT_EQ(emitted, self->stats.cpu[0].records);
	EXPECT_EQ(0, klog_ctl_read("dropped"));
}

TEST_F_TIMEOUT(recorder, settings_locked_while_running, KLOG_TEST_TIMEOUT)
{
	pid_t writer;

	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	writer = start_writer("count=1000000000 size=64 kind=raw ctx=task,hardirq cpus=all");
	ASSERT_GT(writer, 0);
	ASSERT_EQ(0, wait_written(1, NULL, 1, 0));
	EXPECT_EQ(EBUSY, klog_ctl("mode", "no-overwrite"));
	EXPECT_EQ(EBUSY, klog_ctl("global", "1"));
	EXPECT_EQ(EBUSY, klog_ctl("subbuf_size", "8192"));
	EXPECT_EQ(EINVAL, klog_ctl("mode", "sometimes"));
	EXPECT_EQ(EBUSY, klog_ctl("reset", "1"));
	EXPECT_EQ(EBUSY, klog_ctl("create", "1"));
	EXPECT_EQ(EINVAL, klog_ctl("reset", "0"));
	EXPECT_EQ(EPERM, klog_ctl("dropped", "0"));
	EXPECT_EQ(0, klog_ctl("snapshot", "1"));
	EXPECT_EQ(0, klog_ctl("flush", "1"));

	/* Disabled: reset empties the channel in place. */
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_ctl("reset", "1"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(0, self->stats.cpu[0].produced);
	EXPECT_EQ(0, self->stats.cpu[0].records);
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	/* Records again after the reset: CPU 0 writes. */
	EXPECT_EQ(0, wait_written(1, NULL, 1, 0));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	EXPECT_EQ(EINTR, stop_writer(writer));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_GT(self->stats.cpu[0].records, 0);
	EXPECT_EQ(0, klog_ctl("create", "0"));
	EXPECT_EQ(ENODEV, klog_ctl("reset", "1"));
}

TEST_HARNESS_MAIN
