// SPDX-License-Identifier: GPL-2.0
/*
 * stream_fake.c - a fake /sys/kernel/debug/klog for the collector: the
 * control files, stats and dropped, and cpuN as read(2) returns it, as
 * the ring that mmap(2) maps (stale junk where nothing was produced), or
 * as FIFOs that live writers feed: one process per CPU makes records for
 * a while and writes them in randomly cut chunks at random pauses, like
 * a live relay read, keeping a copy (DIR/expect-cpuN) to compare with.
 */
#include "stream_test.h"

/*
 * Name every site the fixtures use, in one order, so that the fake
 * debugfs (its "sites" file) and the live writers give them the same ids.
 */
static void register_sites(void)
{
	struct cpu_stream cs[NCPU];
	int i;

	make_streams(cs);
	free_streams(cs);
	for (i = 0; i < 20; i++)
		site_id("live_fn", i);
}

int cmd_fake(const char *mode, const char *dir)
{
	static const char *const stats =
		"cpu0 produced=2 consumed=2 records=5 full=2 big=0 nmi=0 nest=0 max_backlog=1\n"
		"cpu1 produced=3 consumed=3 records=4 full=0 big=1 nmi=0 nest=0 max_backlog=2\n"
		"cpu2 produced=2 consumed=2 records=1 full=0 big=0 nmi=3 nest=0 max_backlog=1\n";
	struct cpu_stream cs[NCPU];
	char name[32];
	int i, j;

	register_sites();
	make_streams(cs);
	mkdir_p(dir);
	write_sites(dir);
	write_file(dir, "enabled", "0", 1);
	write_file(dir, "create", "0", 1);
	write_file(dir, "subbuf_size", "262144", 6);
	write_file(dir, "n_subbufs", "4", 1);
	write_file(dir, "mode", "overwrite", 9);
	write_file(dir, "global", "1", 1);
	write_file(dir, "flush", "", 0);
	write_file(dir, "dropped", "6\n", 2);
	write_file(dir, "stats", stats, strlen(stats));
	for (i = 0; i < NCPU; i++) {
		unsigned char ring[FAKE_NSB * FAKE_SBSIZE];
		struct ks_buf s = joined(&cs[i]);
		size_t produced = cs[i].nsb, zero = 0;

		/* stale memory everywhere, then the produced sub-buffers */
		memset(ring, 0xab, sizeof(ring));
		for (j = 0; j < cs[i].nsb; j++)
			memcpy(ring + j * FAKE_SBSIZE, cs[i].sb[j].p,
			       cs[i].sb[j].len);
		snprintf(name, sizeof(name), "cpu%d", i);
		if (!strcmp(mode, "live")) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, name);
			unlink(path);
			if (mkfifo(path, 0600))
				die("%s: mkfifo: %s", path, strerror(errno));
		} else if (!strcmp(mode, "mmap")) {
			write_file(dir, name, ring, sizeof(ring));
		} else {
			write_file(dir, name, s.p, s.len);
		}
		snprintf(name, sizeof(name), "cpu%d.produced", i);
		write_file(dir, name, &produced, sizeof(produced));
		snprintf(name, sizeof(name), "cpu%d.consumed", i);
		write_file(dir, name, &zero, sizeof(zero));
	}
	return 0;
}

/* ---- live ------------------------------------------------------------ */

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Write the first @n bytes of @b to @fd and drop them from @b. */
static void send_part(int fd, struct ks_buf *b, size_t n, const char *what)
{
	size_t off = 0;

	while (off < n) {
		ssize_t w = write(fd, b->p + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("%s: write: %s", what, strerror(errno));
		off += w;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* One CPU's writer: records for @secs, cut into random chunks. */
static void live_cpu(const char *dir, int cpu, double secs)
{
	__u64 seq = 0, sbseq = 0, written = 0, dropped = 0, sb_dropped = 0;
	__u64 end = now_ns() + (__u64)(secs * 1e9);
	unsigned int seed = cpu * 7919 + 1;
	struct ks_buf pend = { 0 }, all = { 0 };
	size_t sb_used = 0;
	char path[4096], name[32], line[128], text[400];
	int fd;

	register_sites();
	rec_cpu = cpu;
	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	fd = open(path, O_WRONLY);	/* waits for the collector */
	if (fd < 0)
		die("%s: open: %s", path, strerror(errno));
	while (now_ns() < end) {
		int nrec = rand_r(&seed) % 20, i;

		for (i = 0; i < nrec; i++) {
			size_t tlen = rand_r(&seed) % 300, size, j;
			__u64 ts = now_ns();
			struct ks_buf r = { 0 };

			if (rand_r(&seed) % 50 == 0) {
				int gap = 1 + rand_r(&seed) % 3;

				seq += gap;
				dropped += gap;
				sb_dropped += gap;
			}
			for (j = 0; j < tlen; j++)
				text[j] = 1 + rand_r(&seed) % 255;
			rec(&r, seq++, ts, 1000 + cpu, i, KLOG_RELAY_TEXT,
			    rand_r(&seed) % 4, 0, "live_fn", text, tlen);
			size = r.len;
			/* a sub-buffer starts with its task's name */
			if (!sb_used || sb_used + size > FAKE_SBSIZE) {
				struct ks_buf h = { 0 };

				hdr(&h, cpu, sbseq++, sb_dropped, ts);
				if (gen_version >= 2)
					ENC(ks_put_comm(&h, 1000 + cpu, "live writer",
							seq - 1, ts, cpu));
				put(&pend, h.p, h.len);
				put(&all, h.p, h.len);
				free(h.p);
				sb_used = h.len;
				sb_dropped = 0;
			}
			put(&pend, r.p, r.len);
			put(&all, r.p, r.len);
			free(r.p);
			sb_used += size;
			written++;
		}
		if (pend.len)
			send_part(fd, &pend, rand_r(&seed) % (pend.len + 1),
				  path);
		usleep(rand_r(&seed) % 3000);	/* paces the writer only */
	}
	send_part(fd, &pend, pend.len, path);
	close(fd);
	snprintf(name, sizeof(name), "expect-cpu%d", cpu);
	write_file(dir, name, all.p, all.len);
	snprintf(line, sizeof(line),
		 "cpu%d produced=0 consumed=0 records=%llu full=%llu big=0 nmi=0 nest=0 max_backlog=0 frozen=0\n",
		 cpu, (unsigned long long)written, (unsigned long long)dropped);
	snprintf(name, sizeof(name), "stats-cpu%d", cpu);
	write_file(dir, name, line, strlen(line));
	exit(0);
}

int cmd_live(const char *dir, double secs)
{
	struct ks_buf stats = { 0 };
	unsigned long long dropped = 0, full;
	char path[4096], line[256];
	int i, st, bad = 0;

	for (i = 0; i < NCPU; i++)
		if (fork() == 0)
			live_cpu(dir, i, secs);
	for (i = 0; i < NCPU; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	if (bad)
		die("a writer failed");
	for (i = 0; i < NCPU; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/stats-cpu%d", dir, i);
		f = fopen(path, "r");
		if (!f || !fgets(line, sizeof(line), f))
			die("%s: %s", path, strerror(errno));
		fclose(f);
		if (!strstr(line, "full=") ||
		    sscanf(strstr(line, "full="), "full=%llu", &full) != 1)
			die("%s: no full=", path);
		dropped += full;
		put(&stats, line, strlen(line));
	}
	write_file(dir, "stats", stats.p, stats.len);
	snprintf(line, sizeof(line), "%llu\n", dropped);
	write_file(dir, "dropped", line, strlen(line));
	return 0;
}
