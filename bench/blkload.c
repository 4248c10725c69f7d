// SPDX-License-Identifier: GPL-2.0
/*
 * blkload - a block load for the null_blk benchmark rows
 *
 *   blkload DEVICE OPS [BLOCK_SIZE]
 *
 * One process per online CPU, each pinned to its CPU, issues OPS / CPUs
 * O_DIRECT reads of BLOCK_SIZE bytes (default 4096) at consecutive
 * offsets, so every read is one request through the driver. Prints
 *
 *   blkload ops=N seconds=S iops=X
 *
 * where seconds is the wall time from the first process starting to the
 * last one finishing. Exits 1, naming what failed, if any read fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int reader(const char *dev, int cpu, long ops, long bs)
{
	cpu_set_t set;
	void *buf;
	long i;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "blkload: pinning to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "blkload: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, 4096, bs)) {
		fprintf(stderr, "blkload: no memory for a %ld-byte buffer\n", bs);
		return 1;
	}
	for (i = 0; i < ops; i++) {
		off_t off = ((off_t)cpu << 30) + (off_t)(i % 65536) * bs;

		if (pread(fd, buf, bs, off) != bs) {
			fprintf(stderr, "blkload: %s: read %ld at %lld: %s\n", dev,
				bs, (long long)off, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ops, bs = 4096, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, status, failed = 0;
	double t0, seconds;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: blkload DEVICE OPS [BLOCK_SIZE]\n"
			"example: blkload /dev/nullb0 200000 4096\n");
		return 2;
	}
	ops = strtol(argv[2], NULL, 0);
	if (argc == 4)
		bs = strtol(argv[3], NULL, 0);
	if (ops < ncpu || bs < 512 || bs % 512) {
		fprintf(stderr, "blkload: OPS must be at least %ld (one per CPU) and BLOCK_SIZE a multiple of 512\n",
			ncpu);
		return 2;
	}
	t0 = now();
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("blkload: fork");
			return 1;
		}
		if (!pid)
			_exit(reader(argv[1], cpu, ops / ncpu, bs));
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (failed)
		return 1;
	seconds = now() - t0;
	ops = ops / ncpu * ncpu;
	printf("blkload ops=%ld seconds=%.3f iops=%.0f\n", ops, seconds,
	       ops / seconds);
	return 0;
}
