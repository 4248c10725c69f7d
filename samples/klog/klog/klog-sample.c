// SPDX-License-Identifier: GPL-2.0
/*
 * klog-sample - the user half of the relay-apps "klog" pair
 *
 * What it teaches: the simplest relay reader, relay-apps' read(2)
 * variant. klog-sample-mod writes every klog record as a line of text
 * into /sys/kernel/debug/klog-sample/cpuN. This program enables it,
 * poll()s all cpuN files with a short timeout and read()s each: the
 * kernel returns whole finished sub-buffers without their padding and
 * counts them consumed, so no other file is needed. Lines go to
 * standard output, a sub-buffer at a time (not merged by time), or with
 * -o DIR to DIR/cpuN. On Ctrl-C, SIGTERM or SIGHUP, or an error once
 * enabled, it disables the module, which flushes the sub-buffers being
 * filled, reads those, and prints how many records the module dropped.
 *
 * As every collector of kernel data run as root: DIR is made 0700 if it
 * does not exist, its files are new (never an existing file or a
 * symlink someone planted) and 0600; a module another reader has enabled
 * is left to it (the write of 1 fails with EBUSY).
 *
 * For the real collector (binary records merged by time, loss by
 * cause, mmap readers, a flight recorder, reports), see tools/klog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CTL_DIR		"/sys/kernel/debug/klog-sample"
#define BUF_SIZE	(1024 * 1024)	/* a sub-buffer at most: whole lines */

static char buf[BUF_SIZE];
static bool enabled;

static int enable(const char *val)
{
	int fd = open(CTL_DIR "/enabled", O_WRONLY);
	int ret = fd < 0 || write(fd, val, 1) != 1 ? -1 : 0;

	if (fd >= 0)
		close(fd);
	if (!ret)
		enabled = *val == '1';
	return ret;
}

/* An error: the module is not left enabled. */
static void fail(const char *what)
{
	int err = errno;

	fprintf(stderr, "klog-sample: %s: %s%s\n", what, strerror(err),
		err == EBUSY ?
		" (another reader has it enabled; if none runs: echo 0 > " CTL_DIR "/enabled)" :
		err == ENOENT && !strncmp(what, CTL_DIR, strlen(CTL_DIR)) ?
		" (is klog-sample-mod loaded?)" : "");
	if (enabled)
		enable("0");
	exit(1);
}

/*
 * Copy up to @max (-1: all) finished sub-buffers of CPU @cpu's file to
 * @out: a CPU that fills them as fast as they are copied does not keep
 * the others, or Ctrl-C, waiting.
 */
static void drain(int fd, int out, int cpu, int max)
{
	ssize_t n = 0, w;
	char what[64];

	while ((max < 0 || max-- > 0) && (n = read(fd, buf, sizeof(buf))) > 0) {
		w = write(out, buf, n);
		if (w != n) {
			if (w >= 0)
				errno = EIO;	/* a short write */
			snprintf(what, sizeof(what), "output of cpu%d", cpu);
			fail(what);
		}
	}
	if (n < 0) {
		snprintf(what, sizeof(what), CTL_DIR "/cpu%d", cpu);
		fail(what);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	unsigned long long dropped;
	const char *dir = NULL;
	int ncpus, cpu, opt, *out;
	struct pollfd *pfd;
	char path[4096];
	sigset_t sigs;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1 ||
	       optind < argc) {
		if (opt != 'o') {
			fputs("Usage: klog-sample [-o DIR]\n"
			      "Print the records klog-sample-mod writes, or save them to DIR/cpuN,\n"
			      "until Ctrl-C.\n", opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
		dir = optarg;
	}
	/* a pollfd and an output per CPU */
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	pfd = calloc(ncpus, sizeof(*pfd));
	out = calloc(ncpus, sizeof(*out));
	if (!pfd || !out)
		fail("calloc");
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), CTL_DIR "/cpu%d", cpu);
		pfd[cpu].fd = open(path, O_RDONLY | O_CLOEXEC);
		pfd[cpu].events = POLLIN;
		out[cpu] = STDOUT_FILENO;
		/* -1 for a CPU without a buffer (offline): poll() skips it */
		if (pfd[cpu].fd < 0 && errno != ENOENT)
			fail(path);
	}

	/* Ctrl-C, SIGTERM and SIGHUP stay pending; looked for between polls */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed output is an error: EPIPE */
	/* Enabled first: a second reader leaves no files behind. */
	if (enable("1"))
		fail(CTL_DIR "/enabled");
	if (dir && mkdir(dir, 0700) && errno != EEXIST)
		fail(dir);
	for (cpu = 0; cpu < ncpus && dir; cpu++) {
		if (pfd[cpu].fd < 0)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
		out[cpu] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC, 0600);
		if (out[cpu] < 0)
			fail(path);
	}
	fprintf(stderr, "klog-sample: recording\n");
	while (sigtimedwait(&sigs, NULL, &(struct timespec){ 0 }) < 0) {
		if (poll(pfd, ncpus, 200) < 0)
			fail("poll");
		for (cpu = 0; cpu < ncpus; cpu++)
			if (pfd[cpu].fd >= 0)
				drain(pfd[cpu].fd, out[cpu], cpu, 16);
	}
	/* Unregisters the handler (no record is being written), flushes. */
	if (enable("0"))
		fail(CTL_DIR "/enabled");
	for (cpu = 0; cpu < ncpus; cpu++)
		if (pfd[cpu].fd >= 0)
			drain(pfd[cpu].fd, out[cpu], cpu, -1);

	errno = EINVAL;			/* if it is not a number */
	f = fopen(CTL_DIR "/dropped", "r");
	if (!f || fscanf(f, "%llu", &dropped) != 1)
		fail(CTL_DIR "/dropped");
	fprintf(stderr, "klog-sample: %llu dropped\n", dropped);
	return 0;
}
