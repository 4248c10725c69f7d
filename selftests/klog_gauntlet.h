/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_gauntlet.h - what the two programs of the reliability and security
 * gauntlet for klog and its relay handler share: the fixture (a
 * no-overwrite channel of 16 sub-buffers of 64 KiB; after each test the
 * sizes are put back to the defaults and the channel destroyed) and its
 * helpers.
 *
 *   klog_gauntlet_accounting_test.c  exact accounting under stress, NMI
 *                                    records delivered
 *   klog_gauntlet_hostile_test.c     the control files fuzzed, allocation
 *                                    failures, CPU hotplug, extreme sizes
 *
 * KLOG_GAUNTLET=full (make check-full) makes each accounting test write
 * over 10 million records, the fuzzer run longer and hotplug run more
 * rounds (klog_relay_test's rmmod test then does 100 rounds); the
 * default is sized for every `make check`. Each test logs its figures
 * in a "figure:" line, which check-full collects. The console judge
 * catches any KASAN, lockdep or other report the gauntlet provokes.
 */
#ifndef KLOG_GAUNTLET_H
#define KLOG_GAUNTLET_H

#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "klog_util.h"

static int full_run(void)
{
	const char *g = getenv("KLOG_GAUNTLET");

	return g && !strcmp(g, "full");
}

static int ncpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Read every finished sub-buffer of buffer @cpu into @check. */
static int drain(int cpu, struct stream_check *check)
{
	static uint8_t buf[1 << 20];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KLOG_DIR "/cpu%d", cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		stream_feed(check, buf, n);
	close(fd);
	return stream_partial(check) ? -1 : 0;
}

static int setup_channel(const char *mode, unsigned long subbuf,
			 unsigned long n_subbufs)
{
	return klog_ctl("enabled", "0") ?: klog_ctl("create", "0") ?:
	       klog_ctl("frozen", "0") ?: klog_ctl("global", "0") ?:
	       klog_ctl("mode", mode) ?: klog_set_sizes(subbuf, n_subbufs) ?:
	       klog_ctl("create", "1");
}

#define NMI_NEST_PARAM	"/sys/module/klog_mod/parameters/test_nmi_nest"
#define NMI_NEST_N	8
#define NMI_HOLD_PARAM	"/sys/module/klog_mod/parameters/test_nmi_hold"

/*
 * Wait until task @pid's kernel stack (/proc/PID/stack) shows @fn: it is
 * blocked there. -1 if the task ended, or after two minutes of polling.
 */
static inline int wait_blocked_in(pid_t pid, const char *fn)
{
	char path[64], buf[4096];
	siginfo_t info;
	int polls, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	for (polls = 0; polls < 12000; polls++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0)
			return -1;
		buf[n] = '\0';
		if (strstr(buf, fn))
			return 0;
		info.si_pid = 0;
		if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) ||
		    info.si_pid)
			return -1;
		usleep(10000);	/* a poll interval, not the wait itself */
	}
	return -1;
}

/*
 * Write @val into the control file @name from a child while the staged
 * NMI records are held (klog_mod.test_nmi_hold=1, set by the caller): the
 * write must wait in the kernel for the hold to end. Then end the hold.
 * Returns the write's errno once it finished, -1 if it did not wait or
 * the child failed.
 */
static inline int write_while_held(const char *name, const char *val)
{
	int status, blocked;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(klog_ctl(name, val));
	blocked = wait_blocked_in(pid, "klog_relay_nmi_wait_released");
	if (write_file(NMI_HOLD_PARAM, "0") ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return blocked ? -1 : WEXITSTATUS(status);
}

FIXTURE(gauntlet) {
	struct tklg_counts before, after;
	struct klog_stats stats;
	int ncpu;
};

FIXTURE_SETUP(gauntlet)
{
	if (access(KLOG_DIR "/create", F_OK))
		SKIP(return, "klog-mod is not loaded (" KLOG_DIR ")");
	if (access(TKLG_DIR "/emit", F_OK))
		SKIP(return, "test_klog is not loaded (" TKLG_DIR ")");
	self->ncpu = ncpus();
	ASSERT_LE(self->ncpu, MAXCPU);
	ASSERT_EQ(0, setup_channel("no-overwrite", 65536, 16));
	ASSERT_EQ(0, tklg_read(&self->before));
}

FIXTURE_TEARDOWN(gauntlet)
{
	/* first: a flush waits while the staged records are held */
	if (!access(NMI_HOLD_PARAM, W_OK))
		write_file(NMI_HOLD_PARAM, "0");
	setup_channel("no-overwrite", 262144, 4);
	klog_ctl("create", "0");
	if (!access(NMI_NEST_PARAM, W_OK))
		write_file(NMI_NEST_PARAM, "0");
}

#endif /* KLOG_GAUNTLET_H */
