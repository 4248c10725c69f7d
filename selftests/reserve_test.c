// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod (samples/klog/reserve): records written in place with
 * relay_reserve() and counted in per-sub-buffer commit counts.
 *
 * - a sub-buffer produced while a writer sleeps between reserve and
 *   commit shows reserved > committed, read(2) does not return it (and
 *   counts it incomplete) until the writer commits, then returns it whole;
 * - with no reader, on every CPU from task and hardirq context: offered
 *   == emitted, reserved + dropped == offered, and after enabled=0 every
 *   produced sub-buffer is complete and holds exactly the reserved
 *   records, intact and in sequence;
 * - bad control and emit input gets the right errno and changes nothing;
 *   every file is root-only; the module unloads with a live channel;
 * - the bench file times reserve-then-fill against relay_write() of a
 *   staged copy (the numbers are printed, not judged).
 *
 * The module is loaded from RESERVE_MOD_KO (default
 * /lib/modules/reserve-mod.ko) if it is not loaded yet.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "klog_util.h"	/* control files, stats lines, FNV-1a */
#include "../../../../samples/klog/reserve/reserve-format.h"

#define RES_DIR		"/sys/kernel/debug/reserve"
#define SUBBUF		4096
#define NSUBBUF		64

struct res_cpu {
	int present;			/* the buffer has a stats line */
	unsigned long long produced, consumed, offered, records, full, big;
	unsigned long long nested, delayed, incomplete;
};

struct res_stats {
	int ncpu;
	struct res_cpu cpu[MAXCPU];
};

/* "cpu<N> produced=<n> consumed=<n> offered=<n> records=<n> ..." */
static int res_stats_read(struct res_stats *s)
{
	static const struct stat_key keys[] = {
		STAT_KEY(struct res_cpu, produced),
		STAT_KEY(struct res_cpu, consumed),
		STAT_KEY(struct res_cpu, offered),
		STAT_KEY(struct res_cpu, records),
		STAT_KEY(struct res_cpu, full),
		STAT_KEY(struct res_cpu, big),
		STAT_KEY(struct res_cpu, nested),
		STAT_KEY(struct res_cpu, delayed),
		STAT_KEY(struct res_cpu, incomplete),
	};

	s->ncpu = stats_read(RES_DIR, keys, ARRAY_SIZE(keys), s->cpu,
			     sizeof(s->cpu[0]));
	return s->ncpu > 0 ? 0 : -1;
}

/* ---- records ---------------------------------------------------------- */

/* 0 if @r is an intact record of CPU @cpu, else -1. */
static int rec_ok(const struct reserve_rec *r, unsigned int cpu)
{
	const uint8_t *payload = (const uint8_t *)(r + 1);
	size_t i, n = r->size - sizeof(*r);

	if (r->size < sizeof(*r) || r->size % RESERVE_REC_ALIGN ||
	    r->cpu != cpu || r->zero ||
	    r->csum != klog_fnv1a(klog_fnv1a(KLOG_FNV1A_INIT, r,
						  offsetof(struct reserve_rec, csum)),
				       payload, n))
		return -1;
	for (i = 0; i < n; i++)
		if (payload[i] != (uint8_t)(r->seq * 31 + i))
			return -1;
	return 0;
}

struct buf_check {
	unsigned long long subbufs, incomplete, records, bad;
	unsigned long long next_seq, gaps;
};

/* Check the records of one complete sub-buffer. */
static void check_subbuf(struct buf_check *bc, const uint8_t *sb,
			 unsigned int cpu)
{
	const struct reserve_subbuf_hdr *h = (const void *)sb;
	uint32_t off = sizeof(*h), end = sizeof(*h) + h->reserved;

	bc->subbufs++;
	if (h->magic != RESERVE_SUBBUF_MAGIC || h->cpu != cpu ||
	    end > SUBBUF) {
		bc->bad++;
		return;
	}
	if (__atomic_load_n(&h->committed, __ATOMIC_ACQUIRE) != h->reserved) {
		bc->incomplete++;
		return;
	}
	while (off < end) {
		const struct reserve_rec *r = (const void *)(sb + off);

		if (end - off < sizeof(*r) || r->size > end - off ||
		    rec_ok(r, cpu) || r->seq < bc->next_seq) {
			bc->bad++;
			return;
		}
		bc->gaps += r->seq - bc->next_seq;
		bc->next_seq = r->seq + 1;
		bc->records++;
		off += r->size;
	}
}

/* ---- module ----------------------------------------------------------- */

static int load_module(void)
{
	const char *ko = getenv("RESERVE_MOD_KO") ?: "/lib/modules/reserve-mod.ko";
	int fd, ret;

	if (!access(RES_DIR "/create", F_OK))
		return 0;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(__NR_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

static int online_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

FIXTURE(reserve) {
	int ncpu;
	struct res_stats stats;
};

FIXTURE_SETUP(reserve)
{
	char val[32];

	if (load_module() || access(RES_DIR "/create", F_OK))
		SKIP(return, "reserve-mod not loaded, RESERVE_MOD_KO not loadable");
	self->ncpu = online_cpus();
	ASSERT_LE(self->ncpu, MAXCPU);
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "0"));
	ASSERT_EQ(0, ctl_write(RES_DIR, "create", "0"));
	snprintf(val, sizeof(val), "%d", NSUBBUF);
	ASSERT_EQ(0, ctl_write(RES_DIR, "n_subbufs", val));
	snprintf(val, sizeof(val), "%d", SUBBUF);
	ASSERT_EQ(0, ctl_write(RES_DIR, "subbuf_size", val));
	ASSERT_EQ(0, ctl_write(RES_DIR, "create", "1"));
}

FIXTURE_TEARDOWN(reserve)
{
	ctl_write(RES_DIR, "enabled", "0");
	ctl_write(RES_DIR, "create", "0");
}

/* Run an emit request in a child; returns its pid. */
static pid_t emit_async(const char *req)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(ctl_write(RES_DIR, "emit", req));
	return pid;
}

static int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A writer sleeps 500 ms between reserve and commit; a flush meanwhile
 * finishes its sub-buffer. The sub-buffer is produced but not complete:
 * its header shows it, and read(2) does not hand it out (it counts it
 * incomplete) until the writer has committed.
 */
TEST_F_TIMEOUT(reserve, incomplete_subbuf_is_not_read, KLOG_TEST_TIMEOUT)
{
	const size_t len = (size_t)SUBBUF * NSUBBUF;
	const struct reserve_subbuf_hdr *h;
	const struct reserve_rec *r;
	uint8_t buf[SUBBUF];
	size_t produced;
	uint8_t *map;
	pid_t pid;
	int fd;

	fd = open(RES_DIR "/cpu0", O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	h = (const void *)map;
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "1"));

	pid = emit_async("count=1 size=256 ctx=task cpus=0 delay_us=500000");
	ASSERT_GT(pid, 0);
	/* until the record is reserved (its writer then sleeps) */
	for (int i = 0; i < 200 && !__atomic_load_n(&h->reserved, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	ASSERT_EQ(256, h->reserved);
	ASSERT_EQ(0, ctl_write(RES_DIR, "flush", "1"));
	ASSERT_EQ(0, read_size(RES_DIR "/cpu0.produced", &produced));
	EXPECT_EQ(1, produced);
	EXPECT_EQ(0, __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, res_stats_read(&self->stats));
	EXPECT_GE(self->stats.cpu[0].incomplete, 1);
	EXPECT_EQ(0, self->stats.cpu[0].consumed);

	/* the writer commits; then the sub-buffer is read whole */
	EXPECT_EQ(0, wait_status(pid));
	EXPECT_EQ(256, __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE));
	ASSERT_EQ(sizeof(*h) + 256, read(fd, buf, sizeof(buf)));
	r = (const void *)(buf + sizeof(*h));
	EXPECT_EQ(0, rec_ok(r, 0));
	EXPECT_EQ(0, r->seq);
	EXPECT_EQ(RESERVE_CTX_TASK, r->ctx);
	EXPECT_EQ(RESERVE_REC_DELAYED, r->flags);
	ASSERT_EQ(0, res_stats_read(&self->stats));
	EXPECT_EQ(1, self->stats.cpu[0].records);
	EXPECT_EQ(1, self->stats.cpu[0].delayed);
	EXPECT_EQ(1, self->stats.cpu[0].consumed);
	munmap(map, len);
	close(fd);
}

/*
 * No reader: buffers fill and records are dropped, all counted. After
 * enabled=0 every produced sub-buffer is complete and together they hold
 * exactly the records reserved, intact, without a gap.
 */
TEST_F_TIMEOUT(reserve, counts_exact_without_reader, KLOG_TEST_TIMEOUT)
{
	static const char fill_req[] =
		"count=3000 size=64 ctx=task,hardirq cpus=all delay_us=200 delay_every=100";
	const size_t len = (size_t)SUBBUF * NSUBBUF;
	unsigned long long dropped = 0;
	int cpu;

	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "1"));
	ASSERT_EQ(0, ctl_write(RES_DIR, "emit", fill_req));
	ASSERT_EQ(0, ctl_write(RES_DIR, "emit", "count=3 size=8192 ctx=task cpus=all"));
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "0"));
	ASSERT_EQ(0, res_stats_read(&self->stats));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		struct res_cpu *c = &self->stats.cpu[cpu];
		struct buf_check bc = { 0 };
		char name[64], pname[80];
		size_t i, produced;
		uint8_t *map;
		int fd;

		EXPECT_EQ(2 * 3000 + 3, c->offered) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(c->offered, c->records + c->full + c->big);
		EXPECT_EQ(3, c->big);
		EXPECT_GT(c->full, 0);
		dropped += c->full + c->big;

		snprintf(name, sizeof(name), RES_DIR "/cpu%d", cpu);
		snprintf(pname, sizeof(pname), "%s.produced", name);
		ASSERT_EQ(0, read_size(pname, &produced));
		EXPECT_EQ(NSUBBUF, produced);
		fd = open(name, O_RDONLY);
		ASSERT_GE(fd, 0);
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		for (i = 0; i < produced && i < NSUBBUF; i++)
			check_subbuf(&bc, map + i * SUBBUF, cpu);
		EXPECT_EQ(0, bc.incomplete) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(0, bc.bad) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(0, bc.gaps) TH_LOG("cpu%d", cpu);
		EXPECT_EQ(c->records, bc.records) TH_LOG("cpu%d", cpu);
		munmap(map, len);
		close(fd);
	}
	EXPECT_EQ(dropped, ctl_read_ll(RES_DIR, "dropped"));
}

TEST_F_TIMEOUT(reserve, bad_control_input, KLOG_TEST_TIMEOUT)
{
	static const struct bad_write with_channel[] = {
		{ "subbuf_size", "8192", EBUSY },	/* channel exists */
		{ "n_subbufs", "8", EBUSY },
		{ "subbuf_size", "abc", EINVAL },
		{ "subbuf_size", "4100", EINVAL },	/* not a multiple of 8 */
		{ "enabled", "maybe", EINVAL },
		{ "enabled", "2", EINVAL },
		{ "create", "yes please", EINVAL },
		{ "flush", "0", EINVAL },
		{ "dropped", "0", EPERM },
		{ "enabled", "", EINVAL },
		{ "enabled", "11111111111111111111111111111111111111", EINVAL },
	};
	static const struct bad_write without_channel[] = {
		{ "subbuf_size", "1016", EINVAL },	/* not a multiple of 8 */
		{ "subbuf_size", "67108872", EINVAL },
	};
	static const struct bad_write bad_emit[] = {
		{ "emit", "count=0", EINVAL },
		{ "emit", "count=1 size=36", EINVAL },	/* not a multiple of 8 */
		{ "emit", "count=1 size=16", EINVAL },	/* smaller than a record */
		{ "emit", "count=1 ctx=nmi", EINVAL },
		{ "emit", "count=1 cpus=1000", EINVAL },
		{ "emit", "count=1 delay_us=2000000", EINVAL },
		{ "emit", "count=1 delay_every=0", EINVAL },
		{ "emit", "count=1 colour=blue", EINVAL },
		{ "emit", "count", EINVAL },
		{ "bench", "count=0", EINVAL },
		{ "bench", "size=65544", EINVAL },
		{ "bench", "size=64,72,80,88,96,104,112,120,128", EINVAL },
	};
	char big[300];
	unsigned int i;

	expect_writes(_metadata, RES_DIR, with_channel, ARRAY_SIZE(with_channel));
	expect_settings(_metadata, RES_DIR, SUBBUF, NSUBBUF, 1);

	/* emit: checked before anything runs; needs logging enabled */
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "1"));
	expect_writes(_metadata, RES_DIR, bad_emit, ARRAY_SIZE(bad_emit));
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(E2BIG, ctl_write(RES_DIR, "emit", big));
	ASSERT_EQ(0, res_stats_read(&self->stats));
	for (i = 0; i < (unsigned int)self->ncpu; i++)
		EXPECT_EQ(0, self->stats.cpu[i].offered);

	expect_consumed_checked(_metadata, RES_DIR, NSUBBUF);

	/* create while enabled */
	EXPECT_EQ(EBUSY, ctl_write(RES_DIR, "create", "1"));
	EXPECT_EQ(EBUSY, ctl_write(RES_DIR, "create", "0"));
	EXPECT_EQ(1, ctl_read_ll(RES_DIR, "enabled"));
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "0"));
	EXPECT_EQ(ENODEV, ctl_write(RES_DIR, "emit", "count=1"));

	ASSERT_EQ(0, ctl_write(RES_DIR, "create", "0"));
	expect_writes(_metadata, RES_DIR, without_channel,
		      ARRAY_SIZE(without_channel));
	expect_size_checks(_metadata, RES_DIR);
	expect_settings(_metadata, RES_DIR, SUBBUF, 4, 0);
}

TEST_F_TIMEOUT(reserve, root_only, KLOG_TEST_TIMEOUT)
{
	static const struct root_probe probes[] = {
		{ "cpu0", O_RDONLY }, { "enabled", O_WRONLY },
		{ "emit", O_WRONLY }, { "bench", O_RDONLY },
		{ "stats", O_RDONLY }, { NULL, 0 }
	};

	check_root_only(_metadata, RES_DIR, 9 + 3 * self->ncpu, probes);
}

/*
 * Reserve-then-fill against relay_write() of a staged copy, small and
 * large records, on one CPU. Only sanity is checked: TCG times mean
 * little on their own; the ratio is what the benchmark report uses.
 */
TEST_F_TIMEOUT(reserve, bench, KLOG_TEST_TIMEOUT)
{
	static const unsigned int sizes[] = { 32, 256, 4096 };
	unsigned int cpu, size, count, i = 0;
	double res_ns, copy_ns;
	char line[256];
	FILE *f;

	ASSERT_EQ(0, ctl_write(RES_DIR, "bench", "count=20000 size=32,256,4096"));
	f = fopen(RES_DIR "/bench", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		int got = sscanf(line, "cpu=%u size=%u count=%u reserve_ns=%lf copy_ns=%lf",
				 &cpu, &size, &count, &res_ns, &copy_ns);

		ASSERT_EQ(5, got) TH_LOG("'%s'", line);
		ASSERT_LT(i, ARRAY_SIZE(sizes));
		EXPECT_EQ(sizes[i], size);
		EXPECT_EQ(20000, count);
		EXPECT_GT(res_ns, 0);
		EXPECT_GT(copy_ns, 0);
		ksft_print_msg("bench: %s", line);
		i++;
	}
	fclose(f);
	EXPECT_EQ(ARRAY_SIZE(sizes), i);
	/* the bench channel's files are gone again */
	EXPECT_NE(0, access(RES_DIR "/bench0", F_OK));
}

/*
 * The bench channel has no files: its state is on the stack of the
 * write(2) that runs it, and a file opened during the run could be read
 * after it. Watch the directory for the whole run.
 */
TEST_F_TIMEOUT(reserve, bench_channel_has_no_files, KLOG_TEST_TIMEOUT)
{
	int status, seen = 0, looks = 0;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(ctl_write(RES_DIR, "bench", "count=200000 size=32,4096") ? 1 : 0);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		DIR *d = opendir(RES_DIR);
		struct dirent *de;

		ASSERT_NE(NULL, d);
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "bench", 5) &&
			    strcmp(de->d_name, "bench"))
				seen++;
		closedir(d);
		looks++;
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, seen) TH_LOG("bench files seen in %d of %d looks", seen, looks);
	EXPECT_GT(looks, 0);
}

/* The module goes away with a channel and writers' leftovers, and back. */
TEST_F_TIMEOUT(reserve, unload_with_channel, KLOG_TEST_TIMEOUT)
{
	const char *ko = getenv("RESERVE_MOD_KO") ?: "/lib/modules/reserve-mod.ko";

	if (access(ko, R_OK))
		SKIP(return, "no %s (set RESERVE_MOD_KO)", ko);
	ASSERT_EQ(0, ctl_write(RES_DIR, "enabled", "1"));
	ASSERT_EQ(0, ctl_write(RES_DIR, "emit", "count=500 size=128 ctx=task,hardirq cpus=all"));
	ASSERT_EQ(0, syscall(__NR_delete_module, "reserve_mod", O_NONBLOCK))
		TH_LOG("rmmod: %s", strerror(errno));
	ASSERT_NE(0, access(RES_DIR, F_OK));
	ASSERT_EQ(0, load_module()) TH_LOG("insmod: %s", strerror(errno));
	EXPECT_EQ(0, ctl_read_ll(RES_DIR, "create"));
	EXPECT_EQ(0, ctl_read_ll(RES_DIR, "enabled"));
}

TEST_HARNESS_MAIN
