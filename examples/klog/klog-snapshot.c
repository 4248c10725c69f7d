// SPDX-License-Identifier: GPL-2.0
/*
 * klog-snapshot.c - start a flight recorder, take consistent snapshots
 *
 * DOC: overview
 *
 * recorder_start() (klog --recorder) creates an overwrite-mode channel
 * and enables it, then returns: the recorder runs with no reader, the
 * oldest sub-buffers reused, until klog_trigger() in the kernel freezes
 * it or a snapshot is taken.
 *
 * snapshot_take() (klog --snapshot) follows the semantics of an LTTng
 * snapshot. It maps every buffer, writes "snapshot" (the kernel finishes
 * each buffer's current sub-buffer on its own CPU and records the
 * position POS: sub-buffers before it hold only records written before
 * the snapshot), then copies sub-buffers POS - n_subbufs + 1 .. POS - 1,
 * oldest first, while writers keep going. Sub-buffer S lives in slot
 * S % n_subbufs and its header names S; a writer rewrites the header
 * before it puts anything into a reused slot. So a copy is kept only if
 * the header names S both before and after copying (with a read barrier
 * between copy and re-check); otherwise the sub-buffer was overwritten
 * during the copy: it is skipped and counted, never written torn. Kept
 * sub-buffers go to DIR/cpuN (up to their padding), readable by -r.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/klog_relay.h>

#include "../lib/relay_app.h"
#include "klog-snapshot.h"

int recorder_start(const char *debugfs, size_t subbuf_size, size_t n_subbufs,
		   bool global)
{
	char val[32];

	/* Smallest sub-buffer first: each size is checked with the other. */
	if (ra_ctl_write(debugfs, "enabled", "0") ||
	    ra_ctl_write(debugfs, "create", "0") ||
	    ra_ctl_write(debugfs, "frozen", "0") ||
	    ra_ctl_write(debugfs, "mode", "overwrite") ||
	    ra_ctl_write(debugfs, "global", global ? "1" : "0") ||
	    ra_ctl_write(debugfs, "subbuf_size", "1024"))
		return -1;
	snprintf(val, sizeof(val), "%zu", n_subbufs);
	if (ra_ctl_write(debugfs, "n_subbufs", val))
		return -1;
	snprintf(val, sizeof(val), "%zu", subbuf_size);
	if (ra_ctl_write(debugfs, "subbuf_size", val) ||
	    ra_ctl_write(debugfs, "create", "1") ||
	    ra_ctl_write(debugfs, "enabled", "1"))
		return -1;
	fprintf(stderr, "klog: recorder running: %zu x %zu-byte sub-buffers %s, overwrite mode\n",
		n_subbufs, subbuf_size, global ? "in one buffer" : "per CPU");
	return 0;
}

static __u64 header_seq(const unsigned char *subbuf)
{
	return __atomic_load_n((const __u64 *)(subbuf +
			offsetof(struct klog_subbuf_hdr, seq)), __ATOMIC_ACQUIRE);
}

struct snap_cpu {
	int cpu;
	size_t pos;
	unsigned long long kept, skipped, bytes;
};

/* Copy one buffer's snapshot to @fd; counts in @sc. */
static int copy_buffer(const unsigned char *map, size_t subbuf_size,
		       size_t n_subbufs, unsigned char *copy, int fd,
		       struct snap_cpu *sc)
{
	size_t s = sc->pos >= n_subbufs ? sc->pos - n_subbufs + 1 : 0;

	for (; s < sc->pos; s++) {
		const unsigned char *sb = map + (s % n_subbufs) * subbuf_size;
		struct klog_subbuf_hdr h;
		size_t used;

		if (header_seq(sb) != s) {
			sc->skipped++;
			continue;
		}
		memcpy(copy, sb, subbuf_size);
		/* The copy before the re-check; pairs with the writer's wmb. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (header_seq(sb) != s) {
			sc->skipped++;
			continue;
		}
		memcpy(&h, copy, sizeof(h));
		if (h.magic != KLOG_SUBBUF_MAGIC || h.padding > subbuf_size - sizeof(h)) {
			sc->skipped++;
			continue;
		}
		used = subbuf_size - h.padding;
		if (ra_write_full(fd, copy, used))
			return -1;
		sc->kept++;
		sc->bytes += used;
	}
	return 0;
}

int snapshot_take(const char *debugfs, const char *out, bool quiet)
{
	unsigned long long kept = 0, skipped = 0;
	size_t subbuf_size, n_subbufs, len;
	__u64 v1, v2;
	struct snap_cpu *sc = NULL;
	unsigned char *copy = NULL, **maps = NULL;
	int *cpus = NULL, n, i, err = -1;
	char path[4096], line[128];
	FILE *f;

	/* Settings cannot change while a channel exists: these are its. */
	if (ra_ctl_read_u64(debugfs, "subbuf_size", &v1) ||
	    ra_ctl_read_u64(debugfs, "n_subbufs", &v2))
		return -1;
	subbuf_size = v1;
	n_subbufs = v2;
	n = ra_list_cpus(debugfs, &cpus);
	if (n <= 0) {
		ra_err("%s: no channel (cpuN files); start one with --recorder", debugfs);
		return -1;
	}
	len = subbuf_size * n_subbufs;
	sc = calloc(n, sizeof(*sc));
	maps = calloc(n, sizeof(*maps));
	copy = malloc(subbuf_size);
	if (!sc || !maps || !copy) {
		ra_err("out of memory");
		goto out;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		ra_err("%s: %s", out, strerror(errno));
		goto out;
	}
	/* Map first, so that the copy starts right after the snapshot. */
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/cpu%d", debugfs, cpus[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			ra_err("%s: %s", path, strerror(errno));
			goto out;
		}
		maps[i] = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (maps[i] == MAP_FAILED) {
			maps[i] = NULL;
			ra_err("%s: mmap of %zu bytes: %s", path, len, strerror(errno));
			goto out;
		}
		sc[i].cpu = cpus[i];
	}
	if (ra_ctl_write(debugfs, "snapshot", "1"))
		goto out;
	snprintf(path, sizeof(path), "%s/snapshot", debugfs);
	f = fopen(path, "r");
	if (!f) {
		ra_err("%s: %s", path, strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		int cpu;
		size_t pos;

		if (sscanf(line, "cpu%d %zu", &cpu, &pos) != 2)
			continue;
		for (i = 0; i < n; i++)
			if (sc[i].cpu == cpu)
				sc[i].pos = pos;
	}
	fclose(f);

	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/cpu%d", out, sc[i].cpu);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			ra_err("%s: %s", path, strerror(errno));
			goto out;
		}
		if (copy_buffer(maps[i], subbuf_size, n_subbufs, copy, fd, &sc[i])) {
			ra_err("%s: write: %s", path, strerror(errno));
			close(fd);
			goto out;
		}
		close(fd);
		kept += sc[i].kept;
		skipped += sc[i].skipped;
		if (quiet)
			continue;
		fprintf(stderr, "cpu%-3d at %zu: %llu kept (%llu bytes), %llu skipped\n",
			sc[i].cpu, sc[i].pos, sc[i].kept, sc[i].bytes, sc[i].skipped);
	}
	fprintf(stderr, "klog: snapshot in %s: %llu sub-buffers kept, %llu skipped%s\n",
		out, kept, skipped,
		skipped ? " (overwritten while being copied)" : "");
	err = 0;
out:
	for (i = 0; maps && i < n; i++)
		if (maps[i])
			munmap(maps[i], len);
	free(maps);
	free(copy);
	free(sc);
	free(cpus);
	return err;
}
