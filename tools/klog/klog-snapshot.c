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
 * If a klog_trigger() froze the recorder, its line from the trigger
 * control file ("cpu=N ts=NS reason=TEXT") is saved as DIR/trigger.
 *
 * recorder_status() (klog --status) prints the channel's settings and
 * state, the trigger and the kernel's counters; recorder_thaw() (klog
 * --thaw) writes frozen=0, which also arms the trigger again;
 * recorder_stop() (klog --stop) disables and destroys a flight recorder.
 * Thaw and stop hold the collectors' lock; stop refuses a channel that is
 * not a flight recorder (its unread records belong to a collection).
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

#include "../lib/klog/relay_app.h"
#include "klog-snapshot.h"
#include "klog-app.h"

int recorder_start(const char *debugfs, size_t subbuf_size, size_t n_subbufs,
		   bool global, bool replace)
{
	const char *g = global ? "1" : "0";
	int lock, err = -1;

	lock = ra_lock(debugfs);
	if (lock < 0)
		return -1;
	/*
	 * A channel exists (a recorder, maybe frozen with its trigger, or a
	 * collection): destroyed only on request, and only once the kernel
	 * has accepted every new setting.
	 */
	if (ra_channel_exists(lock)) {
		if (!replace) {
			ra_refuse_existing(debugfs);
			goto out;
		}
		if (ra_probe_u64(debugfs, "subbuf_size", subbuf_size) ||
		    ra_probe_u64(debugfs, "n_subbufs", n_subbufs))
			goto out;
	}
	/* Smallest sub-buffer first: each size is checked with the other. */
	if (ra_ctl_write(debugfs, "enabled", "0") ||
	    ra_ctl_write(debugfs, "create", "0") ||
	    ra_ctl_write(debugfs, "frozen", "0") ||
	    ra_ctl_write(debugfs, "mode", "overwrite") ||
	    ra_ctl_write(debugfs, "global", g) ||
	    ra_ctl_write(debugfs, "subbuf_size", "1024") ||
	    ra_ctl_write_u64(debugfs, "n_subbufs", n_subbufs) ||
	    ra_ctl_write_u64(debugfs, "subbuf_size", subbuf_size) ||
	    ra_ctl_write(debugfs, "create", "1") ||
	    ra_ctl_write(debugfs, "enabled", "1"))
		goto out;
	fprintf(stderr, "klog: recorder running: %zu x %zu-byte sub-buffers %s, overwrite mode\n",
		n_subbufs, subbuf_size, global ? "in one buffer" : "per CPU");
	err = 0;
out:
	close(lock);
	return err;
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

/*
 * Parse the kernel's snapshot file: "cpuN POS TS" for every buffer. 0,
 * or -1 after a message if a line is malformed or a buffer is missing.
 */
static int read_positions(const char *debugfs, struct snap_cpu *sc, int n)
{
	char path[4096], line[128];
	int i, lineno = 0, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/snapshot", debugfs);
	f = fopen(path, "re");
	if (!f) {
		ra_err("%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		sc[i].pos = SIZE_MAX;
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long pos, ts;
		int cpu, end = 0;

		lineno++;
		if (sscanf(line, "cpu%d %llu %llu%n", &cpu, &pos, &ts, &end) != 3 ||
		    (line[end] && line[end] != '\n') || pos >= SIZE_MAX) {
			ra_err("%s:%d: not \"cpuN POSITION TIMESTAMP\": %.40s",
			       path, lineno, line);
			err = -1;
			break;
		}
		for (i = 0; i < n; i++)
			if (sc[i].cpu == cpu)
				sc[i].pos = pos;
	}
	if (ferror(f)) {
		ra_err("%s: read: %s", path, strerror(errno));
		err = -1;
	}
	fclose(f);
	for (i = 0; !err && i < n; i++)
		if (sc[i].pos == SIZE_MAX) {
			ra_err("%s: no position for cpu%d: no snapshot taken",
			       path, sc[i].cpu);
			err = -1;
		}
	return err;
}

/* Remove DIR/cpuN, DIR/snapshot, DIR/trigger, DIR/meta of an earlier run. */
static int remove_stale(const char *out)
{
	static const char *const files[] = {
		KLOG_SNAPSHOT_FILE, KLOG_TRIGGER_FILE, KLOG_META_FILE,
		KLOG_SITES_FILE,
	};
	char path[4096];
	size_t i;

	if (ra_remove_stale(out, NULL, false))
		return -1;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", out, files[i]);
		if (ra_out_unlink(path) && errno != ENOENT) {
			ra_err("%s: cannot remove a file of an earlier run: %s",
			       path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * DIR/trigger: the trigger that froze the recorder, if one did, as the
 * kernel's file gave it. Its reason is the kernel's text: DIR/meta and
 * the terminal get it escaped (ra_escape()), so that it adds no line to
 * the one and no control sequence to the other.
 */
static int save_trigger(const char *debugfs, const char *out,
			struct meta *meta)
{
	char trig[256], line[sizeof(trig) + 1], path[4096];
	int fd, err;

	if (ra_ctl_read(debugfs, "trigger", trig, sizeof(trig)))
		return -1;
	if (!*trig)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", out, KLOG_TRIGGER_FILE);
	fd = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -1;
	snprintf(line, sizeof(line), "%s\n", trig);
	err = ra_write_close(fd, path, line, strlen(line));
	ra_escape(meta->trigger, sizeof(meta->trigger), trig, strlen(trig));
	fprintf(stderr, "klog: the recorder was frozen by a trigger: %s\n",
		meta->trigger);
	return err;
}

/* DIR/sites of a snapshot (klog-sites.c). 0 or -1. */
static int snapshot_sites(const char *debugfs, const char *out)
{
	struct ksites sites;
	int ret;

	sites_init(&sites, debugfs);
	ret = sites_collect(&sites, out);
	sites_free(&sites);
	return ret;
}

/* DIR/meta of a snapshot: its clock pair is the snapshot's moment. */
static int snapshot_meta(const char *debugfs, const char *out,
			 struct meta *meta, int n, size_t subbuf_size,
			 size_t n_subbufs)
{
	char global[8];

	if (ra_ctl_read(debugfs, "global", global, sizeof(global)))
		return -1;
	meta->global = !strcmp(global, "1");
	meta->cpus = n;
	meta->subbuf_size = subbuf_size;
	meta->n_subbufs = n_subbufs;
	snprintf(meta->read_mode, sizeof(meta->read_mode), "snapshot");
	meta->stop = meta->start;
	snprintf(meta->stop_reason, sizeof(meta->stop_reason), "snapshot");
	if (meta_write(out, meta, debugfs))
		return -1;
	/* the records name their sites by id: DIR/sites describes them */
	return snapshot_sites(debugfs, out);
}

int snapshot_take(const char *debugfs, const char *out, bool force,
		  bool quiet)
{
	unsigned long long kept = 0, skipped = 0;
	size_t subbuf_size, n_subbufs, len = 0;
	__u64 v1, v2;
	struct snap_cpu *sc = NULL;
	unsigned char *copy = NULL, **maps = NULL;
	int *cpus = NULL, *fds = NULL, n = 0, i, lock, mfd = -1, err = -1;
	char path[4096], mode[32];
	struct meta meta = { 0 };
	FILE *mf = NULL;

	lock = ra_lock(debugfs);
	if (lock < 0)
		return -1;
	if (!ra_channel_exists(lock) ||
	    ra_ctl_read(debugfs, "mode", mode, sizeof(mode)) ||
	    strcmp(mode, "overwrite")) {
		ra_err("%s: no flight recorder is running%s%s%s; start one with klog -R",
		       debugfs, ra_channel_exists(lock) ? " (the channel is in " : "",
		       ra_channel_exists(lock) ? mode : "",
		       ra_channel_exists(lock) ? " mode)" : "");
		goto out;
	}
	/* Settings cannot change while a channel exists: these are its. */
	if (ra_ctl_read_u64(debugfs, "subbuf_size", &v1) ||
	    ra_ctl_read_u64(debugfs, "n_subbufs", &v2))
		goto out;
	subbuf_size = v1;
	n_subbufs = v2;
	if (!subbuf_size || !n_subbufs || n_subbufs > SIZE_MAX / subbuf_size) {
		ra_err("%s: unusable sizes %zu x %zu", debugfs, n_subbufs,
		       subbuf_size);
		goto out;
	}
	n = ra_list_cpus(debugfs, &cpus);
	if (n <= 0) {
		if (!n)
			ra_err("%s: no cpuN files", debugfs);
		n = 0;
		goto out;
	}
	len = subbuf_size * n_subbufs;
	sc = calloc(n, sizeof(*sc));
	maps = calloc(n, sizeof(*maps));
	fds = malloc(n * sizeof(*fds));
	copy = malloc(subbuf_size);
	if (!sc || !maps || !fds || !copy) {
		ra_err("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		fds[i] = -1;
	/* The output first: nothing is asked of the recorder if it fails. */
	if (ra_out_dir(out) || out_dir_usable(out, force, NULL) ||
	    remove_stale(out))
		goto out;
	for (i = 0; i < n; i++) {
		sc[i].cpu = cpus[i];
		snprintf(path, sizeof(path), "%s/cpu%d", out, cpus[i]);
		fds[i] = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
		if (fds[i] < 0)
			goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", out, KLOG_SNAPSHOT_FILE);
	mfd = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (mfd < 0)
		goto out;
	/* Map first, so that the copy starts right after the snapshot. */
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/cpu%d", debugfs, cpus[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
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
	}
	meta_start(&meta, "snapshot", debugfs);
	if (ra_ctl_write(debugfs, "snapshot", "1") ||
	    read_positions(debugfs, sc, n))
		goto out;

	mf = fdopen(mfd, "w");
	if (!mf) {
		ra_err("%s/%s: %s", out, KLOG_SNAPSHOT_FILE, strerror(errno));
		goto out;
	}
	mfd = -1;
	fprintf(mf, "klog snapshot: %zu x %zu-byte sub-buffers\n", n_subbufs,
		subbuf_size);
	for (i = 0; i < n; i++) {
		size_t first = sc[i].pos >= n_subbufs ?
			       sc[i].pos - n_subbufs + 1 : 0;

		snprintf(path, sizeof(path), "%s/cpu%d", out, sc[i].cpu);
		if (copy_buffer(maps[i], subbuf_size, n_subbufs, copy, fds[i],
				&sc[i])) {
			ra_err("%s: write: %s", path, strerror(errno));
			goto out;
		}
		if (meta_add_bytes(&meta, sc[i].cpu, fds[i], path))
			goto out;
		if (close(fds[i])) {
			fds[i] = -1;
			ra_err("%s: close: %s", path, strerror(errno));
			goto out;
		}
		fds[i] = -1;
		fprintf(mf, "cpu%d first=%zu pos=%zu kept=%llu skipped=%llu\n",
			sc[i].cpu, first, sc[i].pos, sc[i].kept, sc[i].skipped);
		kept += sc[i].kept;
		skipped += sc[i].skipped;
		if (quiet)
			continue;
		fprintf(stderr, "cpu%-3d at %zu: %llu kept (%llu bytes), %llu skipped\n",
			sc[i].cpu, sc[i].pos, sc[i].kept, sc[i].bytes, sc[i].skipped);
	}
	if (ferror(mf) | fclose(mf)) {
		mf = NULL;
		ra_err("%s/%s: write: %s", out, KLOG_SNAPSHOT_FILE, strerror(errno));
		goto out;
	}
	mf = NULL;
	if (save_trigger(debugfs, out, &meta) ||
	    snapshot_meta(debugfs, out, &meta, n, subbuf_size, n_subbufs))
		goto out;
	fprintf(stderr, "klog: snapshot in %s: %llu sub-buffers kept, %llu skipped%s\n",
		out, kept, skipped,
		skipped ? " (overwritten while being copied)" : "");
	err = 0;
out:
	for (i = 0; maps && i < n; i++)
		if (maps[i])
			munmap(maps[i], len);
	for (i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (mf)
		fclose(mf);
	if (mfd >= 0)
		close(mfd);
	close(lock);
	free(fds);
	free(maps);
	free(copy);
	free(sc);
	free(cpus);
	meta_free(&meta);
	return err;
}

/*
 * --thaw, --stop: write 0 to @file (then to @file2) of a flight recorder,
 * under the collectors' lock. 0, or -1 after a message.
 */
static int recorder_write(const char *debugfs, const char *what,
			  const char *file, const char *file2, const char *done)
{
	int lock = ra_lock(debugfs), ret = -1;
	char mode[32];

	if (lock < 0)
		return -1;
	if (!ra_channel_exists(lock)) {
		ra_err("%s: no channel: nothing to %s", debugfs, what);
	} else if (!ra_ctl_read(debugfs, "mode", mode, sizeof(mode))) {
		if (strcmp(mode, "overwrite"))
			ra_err("%s: the channel is not a flight recorder (mode=%s): a collection's unread records are not thrown away; klog collects them, klog -x replaces the channel",
			       debugfs, mode);
		else if (!ra_ctl_write(debugfs, file, "0") &&
			 !(file2 && ra_ctl_write(debugfs, file2, "0")))
			ret = 0;
	}
	close(lock);
	if (!ret)
		fprintf(stderr, "klog: %s\n", done);
	return ret;
}

int recorder_thaw(const char *debugfs)
{
	return recorder_write(debugfs, "thaw", "frozen", NULL,
			      "recorder thawed; the trigger is armed again");
}

int recorder_stop(const char *debugfs)
{
	return recorder_write(debugfs, "stop", "enabled", "create",
			      "recorder stopped and its buffers freed");
}

int recorder_status(const char *debugfs)
{
	char create[8], enabled[8], mode[32], global[8], frozen[8], trig[256];
	char esc[4 * sizeof(trig)];
	__u64 tot[RA_NCAUSES] = { 0 }, records = 0, sb, nsb;
	struct ra_stats_cpu *st = NULL;
	int n, i;

	if (ra_ctl_read(debugfs, "create", create, sizeof(create)) ||
	    ra_ctl_read(debugfs, "enabled", enabled, sizeof(enabled)) ||
	    ra_ctl_read(debugfs, "mode", mode, sizeof(mode)) ||
	    ra_ctl_read(debugfs, "global", global, sizeof(global)) ||
	    ra_ctl_read(debugfs, "frozen", frozen, sizeof(frozen)) ||
	    ra_ctl_read(debugfs, "trigger", trig, sizeof(trig)) ||
	    ra_ctl_read_u64(debugfs, "subbuf_size", &sb) ||
	    ra_ctl_read_u64(debugfs, "n_subbufs", &nsb))
		return -1;
	printf("channel:   %s\n", strcmp(create, "1") ? "none" : "exists");
	printf("mode:      %s%s\n", mode,
	       strcmp(mode, "overwrite") ? "" : " (flight recorder)");
	printf("buffers:   %s, %llu x %llu-byte sub-buffers\n",
	       strcmp(global, "1") ? "per CPU" : "one global",
	       (unsigned long long)nsb, (unsigned long long)sb);
	printf("enabled:   %s\n", enabled);
	printf("frozen:    %s\n", frozen);
	ra_escape(esc, sizeof(esc), trig, strlen(trig));	/* kernel text */
	printf("trigger:   %s\n", *esc ? esc : "armed (none yet)");
	if (strcmp(create, "1"))
		return 0;
	n = ra_stats_read(debugfs, &st);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		records += ra_stat(&st[i], "records");
		ra_causes_add(tot, &st[i]);
	}
	printf("records:   %llu written since the channel was created\n",
	       (unsigned long long)records);
	printf("dropped:  ");
	for (i = 0; i < RA_NCAUSES; i++)
		printf(" %s=%llu", ra_causes[i].key, (unsigned long long)tot[i]);
	printf("\n");
	free(st);
	return 0;
}
