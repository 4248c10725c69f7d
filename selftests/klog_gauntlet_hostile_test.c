// SPDX-License-Identifier: GPL-2.0
/*
 * The klog gauntlet (klog_gauntlet.h), hostile input and conditions:
 *
 * - a bounded fuzzer writes random, oversized, negative, non-numeric and
 *   partial input to every control file at odd offsets, from several
 *   threads, while the channel is created, destroyed, enabled and reset
 *   and traffic runs; afterwards the handler still works exactly;
 * - allocation failures injected at channel creation (failslab,
 *   fail_page_alloc) give -ENOMEM and no channel, never a half one;
 * - CPUs go offline and online while every CPU logs;
 * - the smallest and largest sizes; reset leaves no stale byte to mmap.
 */
#include "klog_gauntlet.h"

#define FUZZ_TRAFFIC	\
	"count=1000000000 size=64 kind=text ctx=task,hardirq cpus=all gap_us=500"
#define HOTPLUG_TRAFFIC	\
	"count=1000000000 size=64 kind=raw ctx=task,hardirq cpus=all gap_us=1000"

/* The figures make check-full reports (as "figure:" lines). */
#define FAULTS_FMT \
	"figure: faults: %u injected allocation failures survived (create failed cleanly with ENOMEM), %u creates succeeded"
#define HOTPLUG_FMT \
	"figure: hotplug: %d rounds (%d CPU offline/online cycles), %llu records offered across them: %llu delivered, %llu counted as dropped (no reader until the end)"

/* ---- the control-file fuzzer -------------------------------------------- */

static const char * const fuzz_files[] = {
	"enabled", "create", "subbuf_size", "n_subbufs", "mode", "global",
	"flush", "snapshot", "frozen", "reset", "dropped", "stats", "trigger",
	"clock",
	"cpu0.consumed", "cpu0.produced", "cpu0",
};

static const char * const fuzz_values[] = {
	"0", "1", "2", "-1", "", " ", "\n", "1\n", "0x1", "01", "+1", "1 1",
	"4096", "65536", "1024", "1023", "8", "16", "64", "65537", "-4096",
	"18446744073709551615", "99999999999999999999999", "overwrite",
	"no-overwrite", "over", "yes", "on", "\xff\xfe", "1\0garbage",
};

struct fuzz_thread {
	pthread_t thread;
	unsigned int seed;
	time_t until;
	unsigned long tries, errors;
};

#define FUZZ_MIN_TRIES	50	/* per thread */

static void *fuzz(void *arg)
{
	struct fuzz_thread *t = arg;
	char path[128], buf[80];
	unsigned int i;

	/*
	 * For the time given and at least FUZZ_MIN_TRIES inputs: on a
	 * loaded machine the time alone may not be enough for any.
	 */
	while (time(NULL) < t->until || t->tries < FUZZ_MIN_TRIES) {
		const char *file = fuzz_files[rand_r(&t->seed) % ARRAY_SIZE(fuzz_files)];
		size_t len;
		off_t off;
		int fd;

		snprintf(path, sizeof(path), KLOG_DIR "/%s", file);
		switch (rand_r(&t->seed) % 4) {
		case 0:		/* random bytes */
			len = rand_r(&t->seed) % sizeof(buf);
			for (i = 0; i < len; i++)
				buf[i] = rand_r(&t->seed);
			break;
		case 1:		/* oversized */
			len = sizeof(buf);
			memset(buf, '7', len);
			break;
		default:	/* plausible values, some valid */
			i = rand_r(&t->seed) % ARRAY_SIZE(fuzz_values);
			len = strlen(fuzz_values[i]);
			memcpy(buf, fuzz_values[i], len);
		}
		off = rand_r(&t->seed) % 8 ? 0 : rand_r(&t->seed) % 16;
		fd = open(path, rand_r(&t->seed) % 5 ? O_WRONLY : O_RDONLY);
		if (fd < 0)
			continue;	/* files come and go with the channel */
		if (rand_r(&t->seed) % 5)
			t->errors += pwrite(fd, buf, len, off) < 0;
		else
			t->errors += pread(fd, buf, sizeof(buf), off) < 0;
		t->tries++;
		close(fd);
	}
	return NULL;
}

TEST_F_TIMEOUT(gauntlet, control_file_fuzz, 600)
{
	struct fuzz_thread t[4];
	unsigned long tries = 0, errors = 0;
	struct stream_check check;
	pid_t writer;
	int i, cpu;

	writer = start_writer(FUZZ_TRAFFIC);
	ASSERT_GT(writer, 0);
	for (i = 0; i < 4; i++) {
		t[i].seed = 1234 + i;
		t[i].until = time(NULL) + (full_run() ? 60 : 5);
		t[i].tries = 0;
		t[i].errors = 0;
		ASSERT_EQ(0, pthread_create(&t[i].thread, NULL, fuzz, &t[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i].thread, NULL);
		tries += t[i].tries;
		errors += t[i].errors;
	}
	EXPECT_EQ(EINTR, stop_writer(writer));
	TH_LOG("figure: fuzzer: %lu control-file inputs tried, %lu refused",
	       tries, errors);
	EXPECT_GE(tries, 4 * FUZZ_MIN_TRIES);
	EXPECT_GT(errors, 0);

	/* The state reads back sanely, and a clean cycle is still exact. */
	EXPECT_LE(klog_ctl_read("enabled"), 1);
	EXPECT_LE(klog_ctl_read("create"), 1);
	ASSERT_EQ(0, setup_channel("no-overwrite", 65536, 16));
	ASSERT_EQ(0, tklg_read(&self->before));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=500 size=64 kind=raw cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, tklg_read(&self->after));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		stream_init(&check, cpu);
		ASSERT_EQ(0, drain(cpu, &check));
		EXPECT_EQ(0, check.bad) TH_LOG("%s", check.why);
		EXPECT_EQ(500, check.records);
		EXPECT_EQ(500, self->stats.cpu[cpu].records);
		EXPECT_EQ(0, klog_dropped(&self->stats.cpu[cpu]));
	}
}

/* ---- injected allocation failures ---------------------------------------- */

static int fault_ctl(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attr, file);
	return write_file(path, val);
}

/* Write @val to an open control file; returns 0 or errno. */
static int fd_write(int fd, const char *val)
{
	return write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : errno;
}

TEST_F_TIMEOUT(gauntlet, allocation_failures_at_create, KLOG_TEST_TIMEOUT)
{
	static const char * const attrs[] = { "failslab", "fail_page_alloc" };
	unsigned int a, space, failed = 0, made = 0;
	char val[32], path[128];
	int create, times, spacefd;

	if (access("/sys/kernel/debug/failslab", F_OK))
		SKIP(return, "no failslab (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)");
	ASSERT_EQ(0, klog_ctl("create", "0"));
	create = open(KLOG_DIR "/create", O_WRONLY);
	ASSERT_GE(create, 0);
	for (a = 0; a < ARRAY_SIZE(attrs); a++) {
		ASSERT_EQ(0, fault_ctl(attrs[a], "task-filter", "Y"));
		ASSERT_EQ(0, fault_ctl(attrs[a], "ignore-gfp-wait", "N"));
		ASSERT_EQ(0, fault_ctl(attrs[a], "verbose", "0"));
		ASSERT_EQ(0, fault_ctl(attrs[a], "probability", "100"));
		ASSERT_EQ(0, fault_ctl(attrs[a], "interval", "1"));
		ASSERT_EQ(0, fault_ctl(attrs[a], "times", "0"));
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", attrs[a]);
		times = open(path, O_WRONLY);
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/space", attrs[a]);
		spacefd = open(path, O_WRONLY);
		ASSERT_GE(times, 0);
		ASSERT_GE(spacefd, 0);
		ASSERT_EQ(0, write_file("/proc/self/make-it-fail", "1"));
		/*
		 * Only this task's allocations fail, once, after @space bytes:
		 * successive creates fail at successive allocations. Files
		 * are opened beforehand so that only the create allocates.
		 */
		for (space = 0; space < 400000; space += space < 4096 ? 256 : 16384) {
			int err;

			snprintf(val, sizeof(val), "%u", space);
			ASSERT_EQ(0, fd_write(spacefd, val));
			ASSERT_EQ(0, fd_write(times, "1"));
			err = fd_write(create, "1");
			ASSERT_EQ(0, fd_write(times, "0"));
			if (err) {
				EXPECT_EQ(ENOMEM, err) TH_LOG("%s space=%u", attrs[a], space);
				EXPECT_EQ(0, klog_ctl_read("create"));
				EXPECT_NE(0, access(KLOG_DIR "/cpu0", F_OK));
				EXPECT_NE(0, access(KLOG_DIR "/cpu0.produced", F_OK));
				failed++;
			} else {
				EXPECT_EQ(1, klog_ctl_read("create"));
				made++;
			}
			ASSERT_EQ(0, klog_ctl("create", "0"));
		}
		ASSERT_EQ(0, write_file("/proc/self/make-it-fail", "0"));
		close(times);
		close(spacefd);
		fault_ctl(attrs[a], "probability", "0");
	}
	close(create);
	TH_LOG(FAULTS_FMT, failed, made);
	EXPECT_GT(failed, 0);
	/* And creation works again. */
	ASSERT_EQ(0, klog_ctl("create", "1"));
}

/* ---- CPU hotplug ------------------------------------------------------------ */

static int set_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, on ? "1" : "0");
}

TEST_F_TIMEOUT(gauntlet, cpu_hotplug_while_logging, 600)
{
	unsigned long long delivered = 0, written = 0, dropped = 0;
	struct stream_check checks[MAXCPU];
	int round, rounds = full_run() ? 20 : 3, cycles = 0, cpu;
	pid_t writer;

	if (self->ncpu < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs 2 CPUs and CONFIG_HOTPLUG_CPU");
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	writer = start_writer(HOTPLUG_TRAFFIC);
	ASSERT_GT(writer, 0);
	for (round = 0; round < rounds; round++) {
		for (cpu = 1; cpu < self->ncpu; cpu++) {
			ASSERT_EQ(0, set_online(cpu, 0)) TH_LOG("offline cpu%d", cpu);
			usleep(20000);
			ASSERT_EQ(0, set_online(cpu, 1)) TH_LOG("online cpu%d", cpu);
			cycles++;
		}
	}
	EXPECT_EQ(EINTR, stop_writer(writer));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		stream_init(&checks[cpu], cpu);
		/* Threads migrated off a dying CPU log from another one. */
		checks[cpu].global = 1;
		checks[cpu].count_only = 1;
		ASSERT_EQ(0, drain(cpu, &checks[cpu]));
	}
	/* A last record per CPU, after the drain, reveals the last drops. */
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=1 size=64 kind=raw cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		struct stream_check check = checks[cpu];

		ASSERT_EQ(0, drain(cpu, &check));
		EXPECT_EQ(self->stats.cpu[cpu].records, check.records);
		EXPECT_EQ(klog_dropped(&self->stats.cpu[cpu]),
			  check.first_seq + check.seq_gaps);
		delivered += check.records;
		written += self->stats.cpu[cpu].records;
		dropped += klog_dropped(&self->stats.cpu[cpu]);
	}
	TH_LOG(HOTPLUG_FMT, rounds, cycles, written + dropped, delivered,
	       dropped);
	EXPECT_GT(written, 0);
}

/*
 * relay_open() against CPU hotplug: channels are created and destroyed
 * while CPUs go offline and online and every CPU logs. A CPU that comes
 * online while relay_open() runs must get its buffer (relay-hotplug
 * patch): after each round every online CPU has a buffer, and nothing
 * was dropped for want of one (counted as full; these buffers never
 * fill).
 */
#define CHURN_TRAFFIC	\
	"count=1000000000 size=64 kind=raw ctx=task cpus=all gap_us=5000"

struct hotplugger {
	pthread_t thread;
	int ncpu, stop, cycles, err;
};

static void *hotplug_loop(void *arg)
{
	struct hotplugger *h = arg;
	int cpu;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		for (cpu = 1; cpu < h->ncpu; cpu++) {
			if (set_online(cpu, 0) || set_online(cpu, 1)) {
				h->err = errno ?: EIO;
				return NULL;
			}
			h->cycles++;
		}
	}
	return NULL;
}

static int cpu_online_now(int cpu)
{
	char path[64];
	int fd, on = 1;
	char c;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;	/* cpu0: always online */
	if (read(fd, &c, 1) == 1)
		on = c == '1';
	close(fd);
	return on;
}

TEST_F_TIMEOUT(gauntlet, create_destroy_while_hotplug, 900)
{
	int round, rounds = full_run() ? 60 : 12, cpu, missing = 0;
	unsigned long long full = 0, records = 0;
	struct hotplugger h = { .ncpu = self->ncpu };
	int online[MAXCPU];
	pid_t writer;

	if (self->ncpu < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs 2 CPUs and CONFIG_HOTPLUG_CPU");
	ASSERT_EQ(0, klog_ctl("create", "0"));
	writer = start_writer(CHURN_TRAFFIC);
	ASSERT_GT(writer, 0);
	ASSERT_EQ(0, pthread_create(&h.thread, NULL, hotplug_loop, &h));
	for (round = 0; round < rounds; round++) {
		ASSERT_EQ(0, klog_ctl("create", "1"));
		ASSERT_EQ(0, klog_ctl("enabled", "1"));
		ASSERT_EQ(0, klog_ctl("flush", "1"));
		ASSERT_EQ(0, klog_ctl("enabled", "0"));
		/*
		 * Online before the stats are read: a buffer, whenever the
		 * CPU came up (a buffer stays until the channel goes).
		 */
		for (cpu = 0; cpu < self->ncpu; cpu++)
			online[cpu] = cpu_online_now(cpu);
		ASSERT_EQ(0, klog_stats_read(&self->stats));
		for (cpu = 0; cpu < self->ncpu; cpu++) {
			struct klog_cpu_stats *st = &self->stats.cpu[cpu];

			if (online[cpu] && !st->present) {
				missing++;
				TH_LOG("round %d: cpu%d online without a buffer", round, cpu);
				continue;
			}
			full += st->full;
			records += st->records;
		}
		ASSERT_EQ(0, klog_ctl("create", "0"));
	}
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELEASE);
	pthread_join(h.thread, NULL);
	for (cpu = 1; cpu < self->ncpu; cpu++)
		set_online(cpu, 1);
	EXPECT_EQ(EINTR, stop_writer(writer));
	EXPECT_EQ(0, h.err) TH_LOG("hotplug: %s", strerror(h.err));
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, full);
	EXPECT_GT(h.cycles, 0);
	TH_LOG("figure: churn: %d create/destroy rounds during %d CPU %s, %llu records written",
	       rounds, h.cycles, "offline/online cycles", records);
}

/*
 * One buffer for all CPUs, NMI records staged on cpu1 and held there
 * (klog_mod.test_nmi_hold=1, as an oops dump holds them), cpu1 taken
 * offline meanwhile: its last irq_work leaves them. The disable waits
 * for the hold to end, then moves them from the offline CPU's staging
 * area too: all 32 are delivered, none counted lost.
 */
TEST_F_TIMEOUT(gauntlet, nmi_held_offline_global, KLOG_TEST_TIMEOUT)
{
	struct stream_check check;
	int ret;

	if (self->ncpu < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs 2 CPUs and CONFIG_HOTPLUG_CPU");
	if (access(NMI_HOLD_PARAM, W_OK))
		SKIP(return, "no " NMI_HOLD_PARAM);
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("global", "1"));
	ASSERT_EQ(0, klog_ctl("create", "1"));
	ASSERT_EQ(0, tklg_read(&self->before));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, write_file(NMI_HOLD_PARAM, "1"));
	ASSERT_EQ(0, tklg_emit("count=32 size=48 kind=raw ctx=nmi cpus=1"));
	ret = set_online(1, 0);
	EXPECT_EQ(0, write_while_held("enabled", "0"));
	set_online(1, 1);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tklg_read(&self->after));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(32, tklg_delta(&self->before, &self->after, 1));
	stream_init(&check, 0);
	check.global = 1;
	ASSERT_EQ(0, drain(0, &check));
	EXPECT_EQ(0, check.bad) TH_LOG("%s", check.why);
	EXPECT_EQ(32, check.records);
	EXPECT_EQ(32, self->stats.cpu[0].records);
	EXPECT_EQ(0, klog_dropped(&self->stats.cpu[0]));
}

/* ---- sizes and stale bytes ----------------------------------------------------- */

TEST_F_TIMEOUT(gauntlet, smallest_and_largest_sizes, KLOG_TEST_TIMEOUT)
{
	struct stream_check check;

	/* Two 1 KiB sub-buffers: small records fit, big ones are counted. */
	ASSERT_EQ(0, setup_channel("no-overwrite", 1024, 2));
	ASSERT_EQ(0, tklg_read(&self->before));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=3 size=64 kind=raw cpus=0"));
	ASSERT_EQ(0, tklg_emit("count=2 size=2000 kind=raw cpus=0"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(3, self->stats.cpu[0].records);
	EXPECT_EQ(2, self->stats.cpu[0].big);
	stream_init(&check, 0);
	ASSERT_EQ(0, drain(0, &check));
	EXPECT_EQ(3, check.records);

	/* The most sub-buffers, and the largest sub-buffer, allowed here. */
	ASSERT_EQ(0, setup_channel("overwrite", 1024, 65536));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=2000 size=64 kind=raw cpus=all"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, setup_channel("no-overwrite", 33554432, 2));
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=2000 size=4000 kind=raw cpus=0"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_stats_read(&self->stats));
	EXPECT_EQ(2000, self->stats.cpu[0].records);
	EXPECT_EQ(0, klog_dropped(&self->stats.cpu[0]));
}

static size_t nonzero_after(const uint8_t *p, size_t from, size_t size)
{
	size_t i, n = 0;

	for (i = from; i < size; i++)
		n += p[i] != 0;
	return n;
}

TEST_F_TIMEOUT(gauntlet, no_stale_bytes_to_mmap, KLOG_TEST_TIMEOUT)
{
	size_t size = 65536 * 16;
	uint8_t *map;
	int fd;

	/* A fresh channel: only the first sub-buffer header is set. */
	fd = open(KLOG_DIR "/cpu0", O_RDONLY);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0, nonzero_after(map, sizeof(struct klog_subbuf_hdr), size));

	/* Fill it, then reset: the old records are gone from the mapping. */
	ASSERT_EQ(0, klog_ctl("enabled", "1"));
	ASSERT_EQ(0, tklg_emit("count=3000 size=200 kind=raw cpus=0"));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	EXPECT_GT(nonzero_after(map, sizeof(struct klog_subbuf_hdr), size), 0);
	ASSERT_EQ(0, klog_ctl("reset", "1"));
	EXPECT_EQ(0, nonzero_after(map, sizeof(struct klog_subbuf_hdr), size));
	munmap(map, size);
	close(fd);
}

TEST_HARNESS_MAIN
