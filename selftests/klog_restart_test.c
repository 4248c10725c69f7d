// SPDX-License-Identifier: GPL-2.0
/*
 * The klog collector killed with SIGKILL in the middle of the traffic and
 * started again with the same -o DIR: the killed one leaves the channel
 * enabled with records in its buffers, the new one attaches to it,
 * resumes the files and collects what is left. Nothing may go missing
 * uncounted: per CPU, the records in DIR/cpuN (the killed collector's
 * and the new one's), the kernel's drops and the records the new
 * collector reports lost with the killed one (read(2) returned them, the
 * kill came before they were saved) add up to exactly what test_klog
 * emitted, and every missing record is a gap in the stream's sequence
 * numbers. In mmap mode nothing is lost with the killed collector: it
 * marks sub-buffers consumed only after saving them.
 *
 * KLOG names the collector (default: klog in PATH). SKIP without it,
 * test_klog or klog-mod.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "klog_util.h"

#define TRAFFIC	"count=1000000 size=64 kind=raw ctx=task,hardirq cpus=all gap_us=200"

static const char *klog_bin(void)
{
	return getenv("KLOG") ?: "klog";
}

/* Start "klog -m MODE -b 16384 -n 64 -o DIR -q", stdout+stderr to LOG. */
static pid_t start_collector(const char *mode, const char *dir,
			     const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execlp(klog_bin(), klog_bin(), "-m", mode, "-b", "16384",
		       "-n", "64", "-o", dir, "-q", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Wait up to 30 s for the collector to have enabled logging. */
static int wait_enabled(pid_t pid)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (klog_ctl_read("enabled") == 1)
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(100000);
	}
	return -1;
}

/*
 * Wait up to 30 s for the collector's "klog: recording" line in LOG: it
 * is printed once the collector has attached and reads (enabled stays 1
 * from the killed one, so it cannot be the sign here).
 */
static int wait_recording(pid_t pid, const char *log)
{
	char line[512];
	int i, found = 0;

	for (i = 0; i < 300 && !found; i++) {
		FILE *f = fopen(log, "r");

		while (f && !found && fgets(line, sizeof(line), f))
			found = !strncmp(line, "klog: recording ", 16);
		if (f)
			fclose(f);
		if (found)
			break;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(100000);	/* polls the condition */
	}
	return found ? 0 : -1;
}

/* Wait up to 30 s until every finished sub-buffer has been read. */
static int wait_drained(int ncpu)
{
	struct klog_stats st;
	int i, cpu;

	for (i = 0; i < 300; i++) {
		if (klog_stats_read(&st))
			return -1;
		for (cpu = 0; cpu < ncpu; cpu++)
			if (st.cpu[cpu].produced != st.cpu[cpu].consumed)
				break;
		if (cpu == ncpu)
			return 0;
		usleep(100000);
	}
	return -1;
}

/* Decode DIR/cpuN (whole records; a cut-off tail is ignored). */
static int check_file(const char *dir, int cpu, struct stream_check *check)
{
	char path[256];
	struct stat st;
	uint8_t *buf;
	int fd, ret = -1;

	stream_init(check, cpu);
	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st)) {
		buf = malloc(st.st_size + 1);
		if (buf && read(fd, buf, st.st_size) == st.st_size) {
			stream_feed(check, buf, st.st_size);
			ret = 0;
		}
		free(buf);
	}
	close(fd);
	return ret;
}

/*
 * The new collector's line for a resumed file:
 * "klog: cpuN: resumed DIR/cpuN: K records kept, B bytes of an unfinished
 * write cut, U records lost with the killed collector (...)".
 */
#define CPU_FMT \
	"cpu%d: %llu emitted, %llu delivered, %llu dropped, %llu lost with the killed collector"
#define CPU_DETAIL_FMT \
	"cpu%d: %llu emitted = %llu delivered (%llu saved before the kill, %llu kept, %llu after) + %llu dropped + %llu lost with the killed collector; %llu bytes cut"
#define FIGURE_FMT \
	"figure: restart, %s mode: %llu records emitted across a SIGKILL, %llu delivered, %llu lost with the killed collector and counted, %llu unaccounted"
#define RESUMED_FMT \
	": cpu%d: resumed %*s %llu records kept, %llu bytes of an unfinished write cut, %llu records lost"

static int parse_resumed(const char *log, unsigned long long *kept,
			 unsigned long long *cut, unsigned long long *lost,
			 int *seen, int ncpu)
{
	char line[512];
	FILE *f = fopen(log, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long k, c, l;
		const char *p = strstr(line, ": cpu");
		int cpu;

		if (!p || sscanf(p, RESUMED_FMT, &cpu, &k, &c, &l) != 4 ||
		    cpu < 0 || cpu >= ncpu)
			continue;
		kept[cpu] = k;
		cut[cpu] = c;
		lost[cpu] = l;
		seen[cpu] = 1;
		n++;
	}
	fclose(f);
	return n;
}

FIXTURE(restart) {
	int ncpu;
	char dir[64], log1[80], log2[80];
};

FIXTURE_VARIANT(restart) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(restart, read) {
	.mode = "read",
};

FIXTURE_VARIANT_ADD(restart, mmap) {
	.mode = "mmap",
};

FIXTURE_SETUP(restart)
{
	char cmd[128];

	if (access(KLOG_DIR "/create", F_OK))
		SKIP(return, "klog-mod is not loaded (" KLOG_DIR ")");
	if (access(TKLG_DIR "/emit", F_OK))
		SKIP(return, "test_klog is not loaded (" TKLG_DIR ")");
	snprintf(cmd, sizeof(cmd), "command -v %s > /dev/null", klog_bin());
	if (system(cmd))
		SKIP(return, "no collector %s (set KLOG)", klog_bin());
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ASSERT_LE(self->ncpu, MAXCPU);
	snprintf(self->dir, sizeof(self->dir), "/tmp/klog-restart-%s",
		 variant->mode);
	snprintf(self->log1, sizeof(self->log1), "%s.killed.log", self->dir);
	snprintf(self->log2, sizeof(self->log2), "%s.restarted.log", self->dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	ASSERT_EQ(0, klog_ctl("enabled", "0"));
	ASSERT_EQ(0, klog_ctl("create", "0"));
	ASSERT_EQ(0, klog_ctl("frozen", "0"));
}

FIXTURE_TEARDOWN(restart)
{
	klog_ctl("enabled", "0");
	klog_ctl("create", "0");
}

/* About 5 s of traffic, then decoding: more than 30 s on a KCSAN kernel. */
TEST_F_TIMEOUT(restart, sigkill_mid_stream, 300)
{
	unsigned long long kept[MAXCPU] = { 0 }, cut[MAXCPU] = { 0 };
	unsigned long long lost[MAXCPU] = { 0 }, first[MAXCPU] = { 0 };
	unsigned long long emitted_all = 0, delivered_all = 0, lost_all = 0;
	unsigned long long unaccounted = 0;
	struct tklg_counts before, after;
	struct stream_check check;
	struct klog_stats stats;
	int seen[MAXCPU] = { 0 };
	pid_t klog1, klog2, writer;
	int status, cpu;

	ASSERT_EQ(0, tklg_read(&before));
	klog1 = start_collector(variant->mode, self->dir, self->log1);
	ASSERT_GT(klog1, 0);
	ASSERT_EQ(0, wait_enabled(klog1)) TH_LOG("the first collector did not start");
	writer = start_writer(TRAFFIC);
	ASSERT_GT(writer, 0);
	sleep(2);	/* paces the load: 2 s of traffic before the kill */

	/* Kill it mid-stream: the channel stays, enabled, unread. */
	ASSERT_EQ(0, kill(klog1, SIGKILL));
	ASSERT_EQ(klog1, waitpid(klog1, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(1, klog_ctl_read("enabled"));
	ASSERT_EQ(0, waitpid(writer, NULL, WNOHANG))
		TH_LOG("the traffic ended before the kill");
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		ASSERT_EQ(0, check_file(self->dir, cpu, &check));
		first[cpu] = check.records;
	}
	usleep(300000);	/* paces the load: traffic with no collector */

	/* Start it again on the same directory, under the same traffic. */
	klog2 = start_collector(variant->mode, self->dir, self->log2);
	ASSERT_GT(klog2, 0);
	ASSERT_EQ(0, wait_recording(klog2, self->log2))
		TH_LOG("the restarted collector did not start (log %s)", self->log2);
	sleep(2);	/* paces the load: 2 s of traffic into the new one */
	EXPECT_EQ(EINTR, stop_writer(writer));
	/* A last record per CPU: any record missing before it is a gap. */
	ASSERT_EQ(0, wait_drained(self->ncpu));
	ASSERT_EQ(0, tklg_emit("count=1 size=64 kind=raw cpus=all"));
	ASSERT_EQ(0, tklg_read(&after));
	ASSERT_EQ(0, klog_stats_read(&stats));
	ASSERT_EQ(0, kill(klog2, SIGINT));
	ASSERT_EQ(klog2, waitpid(klog2, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the restarted collector: status 0x%x (log %s)", status,
		       self->log2);
	EXPECT_EQ(self->ncpu, parse_resumed(self->log2, kept, cut, lost, seen,
					    self->ncpu));

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		unsigned long long emitted = tklg_delta(&before, &after, cpu);
		unsigned long long dropped = klog_dropped(&stats.cpu[cpu]);

		EXPECT_TRUE(seen[cpu]) TH_LOG("cpu%d: no 'resumed' line", cpu);
		ASSERT_EQ(0, check_file(self->dir, cpu, &check));
		EXPECT_EQ(0, check.bad) TH_LOG("%s", check.why);
		EXPECT_EQ(emitted, check.records + dropped + lost[cpu])
			TH_LOG(CPU_FMT, cpu, emitted, check.records,
			       dropped, lost[cpu]);
		EXPECT_EQ(dropped + lost[cpu], check.first_seq + check.seq_gaps);
		EXPECT_LE(kept[cpu], first[cpu]);
		if (!strcmp(variant->mode, "mmap"))
			EXPECT_EQ(0, lost[cpu]);
		TH_LOG(CPU_DETAIL_FMT, cpu, emitted, check.records,
		       first[cpu], kept[cpu], check.records - kept[cpu],
		       dropped, lost[cpu], cut[cpu]);
		emitted_all += emitted;
		delivered_all += check.records;
		unaccounted += llabs((long long)(emitted - check.records -
						 dropped - lost[cpu]));
		lost_all += lost[cpu];
	}
	TH_LOG(FIGURE_FMT, variant->mode, emitted_all, delivered_all,
	       lost_all, unaccounted);
	EXPECT_GT(delivered_all, 0);
}

TEST_HARNESS_MAIN
