// SPDX-License-Identifier: GPL-2.0
/*
 * reserve - the user half of the relay-apps "reserve" pair
 *
 * What it teaches: reading a relay channel whose records are written in
 * place (relay_reserve(), see reserve-mod.c). A finished sub-buffer may
 * still hold a record that its writer is filling, so a reader takes a
 * sub-buffer only once the commit count in its header equals the
 * reserve count. In the relay-apps mmap style: map each cpuN, poll()
 * it, read cpuN.produced, and for each finished sub-buffer wait until
 * committed == reserved, check its records (size, CPU, checksum,
 * sequence), save it to DIR/cpuN, and give it back with cpuN.consumed.
 * One thread serves all CPUs.
 *
 * As every collector of kernel data run as root: DIR is made 0700 if it
 * does not exist, its files are new (never an existing file or a
 * symlink someone planted) and 0600; a channel that exists (another
 * reserve collecting, or one that was killed) is left as it is.
 *
 * For a collector with everything else (a reader thread per CPU,
 * read(2) and mmap modes, loss accounting, reports), see tools/klog.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reserve.h"

#define CTL_DIR	"/sys/kernel/debug/reserve"

/* What the summary shows, per CPU and in all */
enum { RECORDS, BYTES, LOST, BAD, WAITED, TASK, HARDIRQ, NCOUNT };

struct cpu {
	int fd, produced_fd, consumed_fd, out_fd;	/* fd -1: no buffer */
	const unsigned char *map;
	size_t consumed;
	unsigned long long next_seq, n[NCOUNT];
};

static size_t subbuf_size = 256 << 10, n_subbufs = 8;
static bool created;		/* the channel is ours */
static bool stopping;		/* the last drain, after the flush */
static pid_t child;		/* COMMAND, while it runs */
static sigset_t sigs;		/* that stop a collection */

static void ctl(const char *name, size_t val);

/* An error: a channel this collector made is closed. */
static void fail(const char *what)
{
	int err = errno;

	fprintf(stderr, "reserve: %s: %s%s\n", what, strerror(err),
		err == ENOENT && !strncmp(what, CTL_DIR, strlen(CTL_DIR)) ?
		" (is reserve-mod loaded?)" : err != EBUSY ? "" :
		" (a channel exists: another reserve collects, or one was killed; then: echo 0 > "
		CTL_DIR "/enabled; echo 0 > " CTL_DIR "/create)");
	if (child > 0)
		kill(child, SIGTERM);
	if (created) {
		created = false;
		ctl("enabled", 0);
		ctl("create", 0);
	}
	exit(1);
}

static void usage(FILE *f)
{
	fputs("Usage: reserve [-b SUBBUF_SIZE] [-n N_SUBBUFS] [-o DIR] [[--] COMMAND...]\n"
	      "Collect reserve-mod's records into new files DIR/cpuN (default .), taking\n"
	      "a sub-buffer only once all its records are committed, and check them.\n"
	      "Sizes take k and M (default 256k x 8). Runs COMMAND once recording and\n"
	      "stops when it exits, or at Ctrl-C. Exit status 1 if a record failed or\n"
	      "on an error, else COMMAND's.\n"
	      "\n"
	      "Example: 5000 records from task and 5000 from hard-IRQ context per CPU\n"
	      "  reserve -b 64k -n 16 -o /tmp/res -- \\\n"
	      "          sh -c 'echo 5000 > " CTL_DIR "/emit'\n", f);
}

static size_t parse_size(const char *opt, const char *s)
{
	unsigned long long v;
	int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'M')
		shift = 20, end++;
	if (!isdigit((unsigned char)*s) || *end || errno || !v || v > SIZE_MAX >> shift) {
		fprintf(stderr, "reserve: %s '%s': not a size (a number, with k or M)\n",
			opt, s);
		exit(2);
	}
	return v << shift;
}

/* Write @val to control file @name, as relay-apps does. */
static void ctl(const char *name, size_t val)
{
	char path[128], s[32];
	int fd, n = snprintf(s, sizeof(s), "%zu", val);

	snprintf(path, sizeof(path), CTL_DIR "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, n) != n)
		fail(path);
	close(fd);
}

/* Open CTL_DIR/cpuN@suffix; -1 only if it does not exist and @may_lack. */
static int open_cpu_file(int cpu, const char *suffix, int flags, bool may_lack)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), CTL_DIR "/cpu%d%s", cpu, suffix);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0 && !(may_lack && errno == ENOENT))
		fail(path);
	return fd;
}

/* A failed call on CPU @cpu's @what; a short count is EIO. */
static void fail_cpu(int cpu, const char *what, ssize_t ret)
{
	char s[128];

	if (ret >= 0)
		errno = EIO;
	snprintf(s, sizeof(s), "cpu%d: %s", cpu, what);
	fail(s);
}

/* Check the records of complete sub-buffer @sb, @end bytes in use. */
static void check(struct cpu *c, int cpu, const unsigned char *sb, size_t end)
{
	size_t off = sizeof(struct reserve_subbuf_hdr);

	while (off < end) {
		const struct reserve_rec *r = (const void *)(sb + off);

		if (end - off < sizeof(*r) || r->size > end - off ||
		    r->size != reserve_rec_size(r->seq) || r->cpu != cpu ||
		    r->ctx > RESERVE_CTX_HARDIRQ || r->csum != reserve_csum(r) ||
		    r->seq < c->next_seq) {
			fprintf(stderr, "reserve: cpu%d: sub-buffer %zu: bad record at byte %zu\n",
				cpu, c->consumed, off);
			c->n[BAD]++;
			return;
		}
		c->n[LOST] += r->seq - c->next_seq;	/* dropped in the kernel */
		c->next_seq = r->seq + 1;
		c->n[RECORDS]++;
		c->n[TASK + r->ctx]++;
		off += r->size;
	}
}

/* Whether a signal that stops the collection is waiting. */
static bool stop_pending(void)
{
	sigset_t pending;

	return !sigpending(&pending) && (sigismember(&pending, SIGINT) ||
					 sigismember(&pending, SIGTERM) ||
					 sigismember(&pending, SIGHUP));
}

/* Take every finished sub-buffer of CPU @cpu, once it is complete. */
static void drain(struct cpu *c, int cpu)
{
	size_t produced, one = 1, len;
	ssize_t ret;

	ret = pread(c->produced_fd, &produced, sizeof(produced), 0);
	if (ret != sizeof(produced))
		fail_cpu(cpu, "read of cpuN.produced", ret);
	for (; c->consumed < produced; c->consumed++) {
		const unsigned char *sb = c->map + c->consumed % n_subbufs * subbuf_size;
		const struct reserve_subbuf_hdr *h = (const void *)sb;
		/* final: the kernel loaded produced with acquire for us */
		__u32 reserved = h->reserved;
		/* Acquire: pairs with each writer's release of its commit. */
		__u32 committed = __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE);
		char what[96];

		if (reserved > subbuf_size - sizeof(*h) || committed > reserved) {
			snprintf(what, sizeof(what),
				 "sub-buffer %zu: bad header (%u reserved, %u committed)",
				 c->consumed, reserved, committed);
			errno = EINVAL;
			fail_cpu(cpu, what, -1);
		}
		if (committed < reserved && stopping) {
			/* after the flush no writer is left to commit it */
			fprintf(stderr, "reserve: cpu%d: sub-buffer %zu: %s\n", cpu,
				c->consumed, "a record never committed, not taken");
			c->n[BAD]++;
			goto give_back;
		}
		if (committed < reserved)
			c->n[WAITED]++;
		while (committed < reserved) {
			/* a writer is still at it; a stop does not wait for it */
			if (stop_pending())
				return;		/* taken after the flush */
			usleep(100);
			committed = __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE);
		}
		len = sizeof(*h) + reserved;
		check(c, cpu, sb, len);
		ret = write(c->out_fd, sb, len);
		if (ret != (ssize_t)len)
			fail_cpu(cpu, "write of its output", ret);
		c->n[BYTES] += len;
give_back:	/* Only now may the writer reuse it. */
		ret = write(c->consumed_fd, &one, sizeof(one));
		if (ret != sizeof(one))
			fail_cpu(cpu, "write of cpuN.consumed", ret);
	}
}

static void print_row(const char *name, const unsigned long long *v)
{
	fprintf(stderr, "%-6s %10llu %12llu %6llu %6llu %7llu %10llu %10llu\n",
		name, v[RECORDS], v[BYTES], v[LOST], v[BAD], v[WAITED], v[TASK],
		v[HARDIRQ]);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	unsigned long long dropped = 0, tot[NCOUNT] = { 0 };
	int ncpus, cpu, i, opt, status = 0, nbuf = 0;
	const char *out = ".";
	struct pollfd *pfd;
	struct cpu *cpus;
	char path[4096];
	FILE *f;

	while ((opt = getopt_long(argc, argv, "+b:n:o:h", longopts, NULL)) != -1) {
		if (opt == 'b')
			subbuf_size = parse_size("-b", optarg);
		else if (opt == 'n')
			n_subbufs = parse_size("-n", optarg);
		else if (opt == 'o')
			out = optarg;
		else
			usage(opt == 'h' ? stdout : stderr), exit(opt == 'h' ? 0 : 2);
	}

	signal(SIGPIPE, SIG_IGN);	/* a closed stderr is an error: EPIPE */
	/* Ctrl-C, SIGTERM and SIGHUP stay pending; looked for between polls */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	/* Each fails with EBUSY while a channel exists: it is not ours. */
	ctl("subbuf_size", subbuf_size);
	ctl("n_subbufs", n_subbufs);
	ctl("create", 1);
	created = true;
	if (mkdir(out, 0700) && errno != EEXIST)
		fail(out);
	cpus = calloc(ncpus, sizeof(*cpus));
	pfd = calloc(ncpus, sizeof(*pfd));
	if (!cpus || !pfd)
		fail("calloc");
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct cpu *c = &cpus[cpu];

		/* relay has a buffer for each online CPU */
		c->fd = open_cpu_file(cpu, "", O_RDONLY | O_NONBLOCK, true);
		pfd[cpu].fd = c->fd;
		pfd[cpu].events = POLLIN;
		if (c->fd < 0)
			continue;
		c->map = mmap(NULL, subbuf_size * n_subbufs, PROT_READ, MAP_SHARED,
			      c->fd, 0);
		if (c->map == MAP_FAILED)
			fail_cpu(cpu, "mmap of cpuN", -1);
		c->produced_fd = open_cpu_file(cpu, ".produced", O_RDONLY, false);
		c->consumed_fd = open_cpu_file(cpu, ".consumed", O_WRONLY, false);
		snprintf(path, sizeof(path), "%s/cpu%d", out, cpu);
		c->out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				 O_CLOEXEC, 0600);
		if (c->out_fd < 0)
			fail(path);
		nbuf++;
	}

	ctl("enabled", 1);
	fprintf(stderr, "reserve: recording %d CPUs into %s/cpu*\n", nbuf, out);
	if (optind < argc) {
		child = fork();
		if (child < 0)
			fail("fork");
		if (!child) {
			sigprocmask(SIG_UNBLOCK, &sigs, NULL);
			signal(SIGPIPE, SIG_DFL);
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
	}

	while (sigtimedwait(&sigs, NULL, &(struct timespec){ 0 }) < 0) {
		poll(pfd, ncpus, 200);
		for (cpu = 0; cpu < ncpus; cpu++)
			if (cpus[cpu].fd >= 0)
				drain(&cpus[cpu], cpu);
		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
	}
	if (child) {		/* stopped by a signal: stop the COMMAND */
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	/* The kernel waits for its writers, then finishes every sub-buffer. */
	ctl("enabled", 0);
	stopping = true;
	for (cpu = 0; cpu < ncpus; cpu++)
		if (cpus[cpu].fd >= 0)
			drain(&cpus[cpu], cpu);		/* what the flush finished */

	fprintf(stderr, "%-6s %10s %12s %6s %6s %7s %10s %10s\n", "", "records",
		"bytes", "lost", "bad", "waited", "task", "hardirq");
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cpus[cpu].fd < 0)
			continue;
		snprintf(path, sizeof(path), "cpu%d", cpu);
		print_row(path, cpus[cpu].n);
		for (i = 0; i < NCOUNT; i++)
			tot[i] += cpus[cpu].n[i];
	}
	print_row("total", tot);
	errno = EINVAL;			/* if it is not a number */
	f = fopen(CTL_DIR "/dropped", "r");
	if (!f || fscanf(f, "%llu", &dropped) != 1)
		fail(CTL_DIR "/dropped");
	fprintf(stderr, "reserve: %llu dropped%s\n", dropped,
		dropped ? " (buffer full: use a larger -b or -n)" : "");
	created = false;
	ctl("create", 0);
	/* every record lost in the stream was counted dropped */
	if (tot[BAD] || tot[LOST] > dropped) {
		fprintf(stderr, "reserve: records failed their check\n");
		return 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
