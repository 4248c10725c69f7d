// SPDX-License-Identifier: GPL-2.0
/*
 * The test_klog traffic module's contract, which every other klog test
 * builds on: a request emits exactly count records per CPU and context
 * (its stats say so), bad requests fail with EINVAL and emit nothing, and
 * only root may use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "klog_util.h"

FIXTURE(emit) {
	struct tklg_counts before;
	int online;
};

FIXTURE_SETUP(emit)
{
	if (access(TKLG_DIR "/emit", F_OK))
		SKIP(return, "test_klog is not loaded (" TKLG_DIR ")");
	ASSERT_EQ(0, tklg_read(&self->before));
	self->online = sysconf(_SC_NPROCESSORS_ONLN);
}

FIXTURE_TEARDOWN(emit)
{
}

TEST_F_TIMEOUT(emit, counts_exact_every_context, KLOG_TEST_TIMEOUT)
{
	struct tklg_counts after;
	int cpu, ctx;

	ASSERT_EQ(0, tklg_emit("count=100 size=64 kind=raw ctx=task,softirq,hardirq,nmi cpus=all"));
	ASSERT_EQ(0, tklg_emit("count=7 size=200 kind=text ctx=hardirq cpus=0"));
	ASSERT_EQ(0, tklg_read(&after));
	ASSERT_GE(after.ncpu, self->online);
	for (cpu = 0; cpu < self->online; cpu++)
		for (ctx = 0; ctx < NCTX; ctx++)
			EXPECT_EQ(100 + (cpu == 0 && ctx == 2 ? 7 : 0),
				  after.n[cpu][ctx] - self->before.n[cpu][ctx])
				TH_LOG("cpu%d ctx%d", cpu, ctx);
}

TEST_F_TIMEOUT(emit, bad_requests_rejected, KLOG_TEST_TIMEOUT)
{
	static const char * const bad[] = {
		"count=0", "count=abc", "count=-1", "count=1000000001",
		"size=23 kind=raw", "size=58 kind=text", "size=2000000",
		"kind=binary", "ctx=irq", "ctx=", "cpus=9999", "cpus=x",
		"bogus", "colour=red", "count=1 =", "gap_us=-5",
	};
	struct tklg_counts after;
	unsigned int i;
	char big[300];

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *req = bad[i];

		EXPECT_EQ(EINVAL, tklg_emit(req)) TH_LOG("request '%s'", req);
	}
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(E2BIG, tklg_emit(big));
	ASSERT_EQ(0, tklg_read(&after));
	EXPECT_EQ(0, memcmp(&after, &self->before, sizeof(after)));
}

TEST_F_TIMEOUT(emit, root_only, KLOG_TEST_TIMEOUT)
{
	int status;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (open(TKLG_DIR "/emit", O_WRONLY) >= 0)
			_exit(3);
		if (open(TKLG_DIR "/stats", O_RDONLY) >= 0)
			_exit(4);
		_exit(errno == EACCES ? 0 : 5);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
