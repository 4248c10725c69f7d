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
 * -o DIR to DIR/cpuN. On Ctrl-C or SIGTERM it disables the module, which
 * flushes the sub-buffers being filled, reads those, and prints how many
 * records the module dropped.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTL_DIR		"/sys/kernel/debug/klog-sample"
#define BUF_SIZE	(1024 * 1024)	/* a sub-buffer at most: whole lines */

static char buf[BUF_SIZE];

static void fail(const char *what)
{
	fprintf(stderr, "klog-sample: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void enable(const char *val)
{
	int fd = open(CTL_DIR "/enabled", O_WRONLY);

	if (fd < 0 || write(fd, val, 1) != 1)
		fail(CTL_DIR "/enabled (is klog-sample-mod loaded?)");
	close(fd);
}

/* Copy the finished sub-buffers of one cpuN file to @out. */
static void drain(int fd, int out)
{
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			fail("write");
	if (n < 0)
		fail("read");
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

	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (opt != 'o') {
			fputs("Usage: klog-sample [-o DIR]\n"
			      "Print the records klog-sample-mod writes, or save them to DIR/cpuN,\n"
			      "until Ctrl-C.\n", opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
		dir = optarg;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	pfd = calloc(ncpus, sizeof(*pfd));
	out = calloc(ncpus, sizeof(*out));
	if (!pfd || !out)
		fail("calloc");
	for (cpu = 0; cpu < ncpus; cpu++) {
		/* -1 for a CPU without a buffer (offline): poll() skips it */
		snprintf(path, sizeof(path), CTL_DIR "/cpu%d", cpu);
		pfd[cpu].fd = open(path, O_RDONLY);
		pfd[cpu].events = POLLIN;
		out[cpu] = STDOUT_FILENO;
		if (pfd[cpu].fd < 0 || !dir)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
		out[cpu] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out[cpu] < 0)
			fail(path);
	}

	/* Ctrl-C and SIGTERM stay pending; looked for between polls */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	enable("1");
	fprintf(stderr, "klog-sample: recording\n");
	while (sigtimedwait(&sigs, NULL, &(struct timespec){ 0 }) < 0) {
		if (poll(pfd, ncpus, 200) < 0)
			fail("poll");
		for (cpu = 0; cpu < ncpus; cpu++)
			if (pfd[cpu].fd >= 0)
				drain(pfd[cpu].fd, out[cpu]);
	}
	/* Unregisters the handler (no record is being written), flushes. */
	enable("0");
	for (cpu = 0; cpu < ncpus; cpu++)
		if (pfd[cpu].fd >= 0)
			drain(pfd[cpu].fd, out[cpu]);

	f = fopen(CTL_DIR "/dropped", "r");
	if (!f || fscanf(f, "%llu", &dropped) != 1)
		fail(CTL_DIR "/dropped");
	fprintf(stderr, "klog-sample: %llu dropped\n", dropped);
	return 0;
}
