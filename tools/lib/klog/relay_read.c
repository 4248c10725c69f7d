// SPDX-License-Identifier: GPL-2.0
/*
 * relay_read.c - the reader threads, one per buffer
 *
 * Each reader loops: poll(cpuN, wake pipe, RA_TICK_MS); drain. The drain
 * runs after every poll, ready or not, because poll() reports only whole
 * sub-buffers while relay's own read() also returns the current partial
 * one (a module may return more than poll() promised, never less). If
 * poll() said "ready" and the drain found nothing, the thread naps a
 * quarter of RA_TICK_MS, so a file that is always readable (a regular
 * file in a test, a misbehaving module) cannot make it spin. Once it
 * sees ra->stopping it drains once more and exits (see relay_app.c).
 *
 * mmap mode keeps the consumed count locally (read once from
 * cpuN.consumed at start). Sub-buffer i lies at (i % n_subbufs) *
 * subbuf_size. If produced - consumed exceeds n_subbufs the oldest
 * sub-buffers were overwritten (impossible in no-overwrite mode), and
 * the writer is filling the slot of produced - n_subbufs: all but the
 * n_subbufs - 1 newest are skipped and counted, never read
 * half-overwritten. produced below consumed means the channel was
 * recreated underneath the reader: an error, not a huge backlog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "relay_app_int.h"
#include "klog-stream.h"

static void ra_fail(struct relay_app *ra)
{
	__atomic_store_n(&ra->failed, 1, __ATOMIC_RELAXED);
}

static void cpu_add(__u64 *counter, __u64 n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

static int cpu_sink(struct ra_cpu *c, const void *data, size_t len)
{
	struct relay_app *ra = c->ra;

	if (!len)
		return 0;
	if (ra->cfg.sink(c, data, len, ra->cfg.arg))
		return -1;
	cpu_add(&c->bytes, len);
	return 0;
}

static void ra_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* read(2) until nothing is left. Returns the bytes read or -1. */
static ssize_t drain_read(struct ra_cpu *c)
{
	ssize_t total = 0;

	for (;;) {
		ssize_t n = read(c->fd, c->buf, c->buf_size);

		if (n > 0) {
			if (cpu_sink(c, c->buf, n))
				return -1;
			total += n;
			continue;
		}
		if (n == 0 || errno == EAGAIN)
			return total;
		if (errno == EINTR)
			continue;
		ra_err("%s/%s: read: %s", c->ra->cfg.dir, c->name,
		       strerror(errno));
		return -1;
	}
}

/*
 * mmap mode: the bytes in use of a finished sub-buffer (header included,
 * padding excluded), or -1 after a message if its header is not valid:
 * it is then skipped and counted in c->bad_subbufs.
 */
static long subbuf_used(struct ra_cpu *c, const void *subbuf,
			size_t subbuf_size)
{
	char why[160];
	long used = ks_subbuf_used(subbuf, subbuf_size, why, sizeof(why));

	if (used < 0)
		ra_err("cpu%d: skipping a produced sub-buffer: %s", c->cpu, why);
	return used;
}

/* Process the sub-buffers produced since the last call. */
static ssize_t drain_mmap(struct ra_cpu *c)
{
	struct relay_app *ra = c->ra;
	size_t n_sb = ra->n_subbufs, sb_size = ra->subbuf_size;
	size_t produced, backlog, i, first, n;
	char file[48];
	ssize_t total = 0;

	snprintf(file, sizeof(file), "%s.produced", c->name);
	if (ra_ctl_read_size(ra->cfg.dir, file, &produced))
		return -1;
	if (produced < c->consumed) {
		/* unsigned, the backlog would be ~2^64 consumed-writes long */
		ra_err("%s/%s: %zu sub-buffers produced but %zu consumed: the channel was destroyed and created again underneath this collector",
		       ra->cfg.dir, c->name, produced, c->consumed);
		return -1;
	}
	backlog = produced - c->consumed;
	if (!backlog)
		return 0;
	if (backlog > c->max_backlog)
		__atomic_store_n(&c->max_backlog, backlog, __ATOMIC_RELAXED);
	first = c->consumed;
	if (backlog > n_sb) {
		/*
		 * Overrun: the writer wrapped (only in overwrite mode) and is
		 * now filling sub-buffer @produced, in the slot of
		 * produced - n_sb: only the n_sb - 1 after it are intact.
		 */
		ra_err("%s/%s: %zu sub-buffers overwritten before they were read (produced %zu, consumed %zu)",
		       ra->cfg.dir, c->name, backlog - n_sb + 1, produced,
		       c->consumed);
		cpu_add(&c->bad_subbufs, backlog - n_sb + 1);
		first = produced - n_sb + 1;
	}
	for (i = first; i != produced; i++) {
		const char *sb = (const char *)c->map + (i % n_sb) * sb_size;
		long used = subbuf_used(c, sb, sb_size);

		if (used < 0 || (size_t)used > sb_size) {
			cpu_add(&c->bad_subbufs, 1);
			continue;
		}
		if (cpu_sink(c, sb, used))
			return -1;
		total += used;
	}
	/* the module takes at most n_subbufs per write */
	snprintf(file, sizeof(file), "%s.consumed", c->name);
	for (; backlog; backlog -= n) {
		n = backlog < n_sb ? backlog : n_sb;
		if (ra_ctl_write_size(ra->cfg.dir, file, n))
			return -1;
	}
	c->consumed = produced;
	/* a produced, empty sub-buffer is still progress: no nap */
	return total ? total : 1;
}

static void pin_reader(struct ra_cpu *c)
{
	static int warned;
	cpu_set_t *set = CPU_ALLOC(c->cpu + 1);
	size_t size = CPU_ALLOC_SIZE(c->cpu + 1);

	if (!set)
		return;
	CPU_ZERO_S(size, set);
	CPU_SET_S(c->cpu, size, set);
	if (sched_setaffinity(0, size, set) &&
	    !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		ra_err("cannot pin the reader of %s: %s (continuing unpinned)",
		       c->name, strerror(errno));
	CPU_FREE(set);
}

void *ra_reader(void *arg)
{
	struct ra_cpu *c = arg;
	struct relay_app *ra = c->ra;

	pin_reader(c);
	for (;;) {
		int stopping = __atomic_load_n(&ra->stopping, __ATOMIC_ACQUIRE);
		struct pollfd pfd[2] = {
			{ .fd = c->fd, .events = POLLIN },
			{ .fd = ra->wake[0], .events = POLLIN },
		};
		__u64 start;
		ssize_t got;
		int ready = 0;

		if (!stopping) {
			ready = poll(pfd, 2, RA_TICK_MS);
			if (ready < 0 && errno != EINTR) {
				ra_err("%s/%s: poll: %s", ra->cfg.dir, c->name,
				       strerror(errno));
				break;
			}
		}
		start = ra_now_ns();
		if (ra->cfg.mode == RA_MODE_MMAP)
			got = drain_mmap(c);
		else
			got = drain_read(c);
		if (got < 0)
			break;
		/* after the sink's work; pairs with ra_drained_since() */
		__atomic_store_n(&c->drain_start, start, __ATOMIC_RELEASE);
		if (stopping)
			return NULL;
		if (ready > 0 && !got && !pfd[1].revents)
			ra_sleep_ms(RA_TICK_MS / 4 + 1);
	}
	ra_fail(ra);
	return NULL;
}
