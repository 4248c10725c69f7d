// SPDX-License-Identifier: GPL-2.0
/*
 * relay_wait.c - the collection runs: the recording line, the COMMAND,
 * the wait for the end
 *
 * ra_open() blocked SIGINT, SIGTERM, SIGHUP and SIGCHLD before any
 * reader thread was started (the threads inherit the mask): ra_wait()
 * takes them with sigtimedwait() between ticks, so no handler runs and
 * no signal falls between a check and a sleep. The COMMAND is started
 * with posix_spawnp(), with the signal mask of before ra_open() and
 * default dispositions, as a shell would start it. A SIGCHLD ends the
 * wait only once waitpid() says the COMMAND has ended (not stopped or
 * continued), and it is reaped here only. A stop for another reason
 * passes on to the COMMAND (the stop signal, else SIGTERM), which is
 * waited for while the readers keep draining; a second stop signal
 * meanwhile kills it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "relay_app_int.h"

__u64 ra_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void ra_until_text(char *const *cmd, double secs, char *buf, size_t size)
{
	if (cmd && secs)
		snprintf(buf, size, "until %s exits (or for %g s)", cmd[0], secs);
	else if (cmd)
		snprintf(buf, size, "until %s exits", cmd[0]);
	else if (secs)
		snprintf(buf, size, "for %g s", secs);
	else
		snprintf(buf, size, "until Ctrl-C");
}

int ra_recording(struct relay_app *ra, char *const *cmd, const char *fmt, ...)
{
	posix_spawnattr_t attr;
	sigset_t dfl;
	char msg[1024];
	va_list ap;
	pid_t pid;
	int err;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ra_err("recording %s", msg);
	if (!cmd)
		return 0;
	/* the child: the caller's signal mask, default dispositions */
	dfl = ra->sigs;
	sigaddset(&dfl, SIGPIPE);
	err = posix_spawnattr_init(&attr);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &ra->orig_mask);
	if (!err)
		err = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	fflush(NULL);
	if (!err)
		err = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
	posix_spawnattr_destroy(&attr);
	if (err) {
		ra_err("%s: cannot run it: %s", cmd[0], strerror(err));
		ra->child_status = err == ENOENT ? 127 : 126;
		return -1;
	}
	ra->child = pid;
	return 0;
}

int ra_command_status(const struct relay_app *ra)
{
	return ra ? ra->child_status : -1;
}

/* The COMMAND has ended: 1 (its status saved), or 0 if still running. */
static int reap_child(struct relay_app *ra, bool block)
{
	int st;
	pid_t p;

	if (!ra->child)
		return 1;
	do
		p = waitpid(ra->child, &st, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == 0)
		return 0;
	if (p < 0) {
		ra_err("waitpid %d: %s", (int)ra->child, strerror(errno));
		ra->child_status = 127;
	} else if (WIFEXITED(st)) {
		ra->child_status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		ra->child_status = 128 + WTERMSIG(st);
	} else {
		return 0;	/* stopped or continued: still there */
	}
	ra->child = 0;
	return 1;
}

/*
 * The collection stops before the COMMAND exited: pass the stop on (the
 * signal that stopped the collector, else SIGTERM) and wait for it,
 * SIGKILL on a second stop signal. The readers keep draining meanwhile.
 */
void ra_end_child(struct relay_app *ra, int sig)
{
	bool killed = false;

	if (!ra->child)
		return;
	kill(ra->child, sig ? sig : SIGTERM);
	while (!reap_child(ra, false)) {
		int got = sigwaitinfo(&ra->sigs, NULL);

		if (got < 0 && errno != EINTR) {
			reap_child(ra, true);
			return;
		}
		if (got > 0 && got != SIGCHLD && !killed) {
			ra_err("%s again: killing the command (pid %d)",
			       strsignal(got), (int)ra->child);
			kill(ra->child, SIGKILL);
			killed = true;
		}
	}
}

static enum ra_stop_why wait_loop(struct relay_app *ra, double seconds,
				  int (*tick)(struct relay_app *ra, void *arg),
				  void *arg)
{
	__u64 now = ra_now_ns(), deadline = 0;

	if (seconds > 0)
		deadline = now + (__u64)(seconds * 1e9);
	for (;;) {
		__u64 wait_ns = RA_TICK_MS * 1000000ULL;
		struct timespec ts;
		int sig;

		if (__atomic_load_n(&ra->failed, __ATOMIC_RELAXED))
			return RA_STOP_ERROR;
		/* SIGCHLD may have come while the collector was starting */
		if (ra->child && reap_child(ra, false))
			return RA_STOP_COMMAND;
		if (deadline) {
			now = ra_now_ns();
			if (now >= deadline)
				return RA_STOP_DURATION;
			if (deadline - now < wait_ns)
				wait_ns = deadline - now;
		}
		ts.tv_sec = wait_ns / 1000000000ULL;
		ts.tv_nsec = wait_ns % 1000000000ULL;
		sig = sigtimedwait(&ra->sigs, NULL, &ts);
		if (sig == SIGCHLD)
			continue;	/* reaped above, if it was the COMMAND */
		if (sig > 0) {
			ra->stop_signal = sig;
			return RA_STOP_SIGNAL;
		}
		if (errno != EAGAIN && errno != EINTR) {
			ra_err("sigtimedwait: %s", strerror(errno));
			return RA_STOP_ERROR;
		}
		if (tick) {
			int ret = tick(ra, arg);

			if (ret)
				return ret < 0 ? RA_STOP_ERROR : RA_STOP_TICK;
		}
	}
}

enum ra_stop_why ra_wait(struct relay_app *ra, double seconds,
			 int (*tick)(struct relay_app *ra, void *arg),
			 void *arg)
{
	enum ra_stop_why why = wait_loop(ra, seconds, tick, arg);

	if (why != RA_STOP_COMMAND)
		ra_end_child(ra, why == RA_STOP_SIGNAL ? ra->stop_signal : 0);
	return why;
}

const char *ra_stop_reason(enum ra_stop_why why, int sig)
{
	if (why == RA_STOP_DURATION)
		return "duration reached";
	if (why == RA_STOP_ERROR)
		return "error";
	if (why == RA_STOP_COMMAND)
		return "command exited";
	if (why == RA_STOP_TICK)
		return "done";
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       "SIGHUP";
}
