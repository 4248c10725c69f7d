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
 *   blkload ops=N seconds=S iops=X chunk_ns=C
 *
 * where seconds is the wall time from the first process starting to the
 * last one finishing, and chunk_ns the median, over every process's
 * chunks of BLK_CHUNK consecutive reads, of a chunk's time per read.
 * iops follows the host: under emulation on a loaded host the guest's
 * clock runs on while the emulator waits for a host CPU, and that lands
 * in the wall time. A chunk is short (well under a host time slice), so
 * most chunks run undisturbed and their median is the cost of a read
 * while the CPU runs: the figure to compare variants of a driver by.
 * Exits 1, naming what failed, if any read fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLK_CHUNK	64	/* reads timed together */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ops reads at consecutive offsets; chunk[k]: ns per read of chunk k */
static int reader(const char *dev, int cpu, long ops, long bs, double *chunk)
{
	double t = 0;
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
		if (i % BLK_CHUNK == 0) {
			double t1 = now();

			if (i)
				chunk[i / BLK_CHUNK - 1] = (t1 - t) * 1e9 / BLK_CHUNK;
			t = t1;
		}
		off_t off = ((off_t)cpu << 30) + (off_t)(i % 65536) * bs;

		if (pread(fd, buf, bs, off) != bs) {
			fprintf(stderr, "blkload: %s: read %ld at %lld: %s\n", dev,
				bs, (long long)off, strerror(errno));
			return 1;
		}
	}
	if (ops % BLK_CHUNK == 0)
		chunk[ops / BLK_CHUNK - 1] = (now() - t) * 1e9 / BLK_CHUNK;
	return 0;
}

int main(int argc, char **argv)
{
	long ops, bs = 4096, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, status, failed = 0;
	double t0, seconds, *chunk;
	long per, nchunk;

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
	per = ops / ncpu;
	nchunk = per / BLK_CHUNK;	/* whole chunks per process */
	if (!nchunk) {
		fprintf(stderr, "blkload: OPS must be at least %ld (%d per CPU)\n",
			ncpu * BLK_CHUNK, BLK_CHUNK);
		return 2;
	}
	per = nchunk * BLK_CHUNK;
	chunk = mmap(NULL, ncpu * nchunk * sizeof(*chunk), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (chunk == MAP_FAILED) {
		perror("blkload: mmap");
		return 1;
	}
	t0 = now();
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("blkload: fork");
			return 1;
		}
		if (!pid)
			_exit(reader(argv[1], cpu, per, bs, chunk + cpu * nchunk));
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (failed)
		return 1;
	seconds = now() - t0;
	ops = per * ncpu;
	qsort(chunk, ncpu * nchunk, sizeof(*chunk), cmp_double);
	printf("blkload ops=%ld seconds=%.3f iops=%.0f chunk_ns=%.0f\n", ops,
	       seconds, ops / seconds, chunk[ncpu * nchunk / 2]);
	return 0;
}
