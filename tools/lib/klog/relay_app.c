// SPDX-License-Identifier: GPL-2.0
/*
 * relay_app.c - the channel: taken, created or attached, opened,
 * started, stopped, closed
 *
 * DOC: implementation
 *
 * See relay_app.h for the protocol. ra_open() takes the collectors' lock
 * (ra_lock()), decides about a channel that exists (channel_check():
 * attach, replace once every new setting is known to be valid, or
 * refuse), creates one (channel_create()) and opens every cpuN;
 * ra_start() starts the readers (relay_read.c), ra_wait() runs the
 * collection (relay_wait.c), and ra_stop() ends it:
 *
 * Stop: the main thread writes enabled=0 and flush=1, then sets
 * ra->stopping (release) and writes one byte to the wake pipe, which is
 * never read so it stays readable for every thread. A thread that loads
 * stopping (acquire) == 1 drains once more without polling and exits;
 * since the flag is set after the flush returned, that drain sees every
 * record written before the stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "relay_app_int.h"

/* read mode: each CPU's buffer, at least a sub-buffer */
#define RA_READ_BUF_MIN		(64UL << 10)
#define RA_READ_BUF_MAX		(4UL << 20)

static int open_cpu(struct relay_app *ra, struct ra_cpu *c)
{
	char path[PATH_MAX], file[48];
	size_t len = ra->subbuf_size * ra->n_subbufs;

	c->ra = ra;
	c->fd = -1;
	c->map = MAP_FAILED;
	snprintf(c->name, sizeof(c->name), "cpu%d", c->cpu);
	if (ra_ctl_path(path, sizeof(path), ra->cfg.dir, c->name))
		return -1;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		ra_err("%s: open: %s", path, strerror(errno));
		return -1;
	}
	if (ra->cfg.mode == RA_MODE_READ) {
		c->buf_size = len;
		if (c->buf_size < RA_READ_BUF_MIN)
			c->buf_size = RA_READ_BUF_MIN;
		if (c->buf_size > RA_READ_BUF_MAX)
			c->buf_size = RA_READ_BUF_MAX;
		/* whole sub-buffers: each read() ends on a boundary */
		if (c->buf_size < ra->subbuf_size)
			c->buf_size = ra->subbuf_size;
		c->buf = malloc(c->buf_size);
		if (!c->buf) {
			ra_err("%s: out of memory for a %zu-byte read buffer",
			       path, c->buf_size);
			return -1;
		}
		return 0;
	}
	c->map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		      c->fd, 0);
	if (c->map == MAP_FAILED) {
		ra_err("%s: mmap %zu bytes (%zu x %zu): %s", path, len,
		       ra->n_subbufs, ra->subbuf_size, strerror(errno));
		return -1;
	}
	snprintf(file, sizeof(file), "%s.consumed", c->name);
	return ra_ctl_read_size(ra->cfg.dir, file, &c->consumed);
}

static int read_size(const char *dir, const char *file, size_t *val)
{
	__u64 v;

	if (ra_ctl_read_u64(dir, file, &v))
		return -1;
	if (!v || v > SIZE_MAX) {
		ra_err("%s/%s: unusable value %llu", dir, file,
		       (unsigned long long)v);
		return -1;
	}
	*val = v;
	return 0;
}

/*
 * Write the sizes for the next create. The module checks each write with
 * the other, current size against its memory limits, so shrink first: if
 * n_subbufs goes down write it first, else subbuf_size; the product in
 * between is then never above both the old and the new one.
 */
static int write_sizes(const struct ra_config *cfg)
{
	const char *dir = cfg->dir;
	__u64 cur_n = 0;
	bool n_first;

	if (cfg->subbuf_size && cfg->n_subbufs &&
	    ra_ctl_read_u64(dir, "n_subbufs", &cur_n))
		return -1;
	n_first = cfg->n_subbufs && cfg->n_subbufs < cur_n;
	if (n_first && ra_ctl_write_u64(dir, "n_subbufs", cfg->n_subbufs))
		return -1;
	if (cfg->subbuf_size &&
	    ra_ctl_write_u64(dir, "subbuf_size", cfg->subbuf_size))
		return -1;
	if (!n_first && cfg->n_subbufs &&
	    ra_ctl_write_u64(dir, "n_subbufs", cfg->n_subbufs))
		return -1;
	return 0;
}

static int read_sizes(struct relay_app *ra)
{
	const char *dir = ra->cfg.dir;

	if (read_size(dir, "subbuf_size", &ra->subbuf_size) ||
	    read_size(dir, "n_subbufs", &ra->n_subbufs))
		return -1;
	if (ra->n_subbufs > SIZE_MAX / ra->subbuf_size) {
		ra_err("%s: %zu x %zu bytes does not fit in memory", dir,
		       ra->n_subbufs, ra->subbuf_size);
		return -1;
	}
	return 0;
}

int ra_lock(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	if (ra_ctl_path(path, sizeof(path), dir, "create"))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ra_err("%s: open: %s%s", path, strerror(errno),
		       errno == ENOENT ? " (is the module loaded?)" : "");
		return -1;
	}
	/*
	 * Held by another collector: refuse. Any other failure means no
	 * file locking here (a kernel without CONFIG_FILE_LOCKING has no
	 * flock() at all): go on unlocked.
	 */
	if (flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		ra_err("%s: another collector is using the channel (it holds a lock on %s)",
		       dir, path);
		close(fd);
		return -1;
	}
	/* ours now: what a dead collector's klog -e turned off goes back on */
	if (ra_sites_restore(dir, true, false)) {
		close(fd);
		return -1;
	}
	return fd;
}

int ra_channel_exists(int lock_fd)
{
	char val[16];
	ssize_t n = pread(lock_fd, val, sizeof(val), 0);

	return n > 0 && val[0] == '1';
}

/*
 * Probe a setting while the channel exists: the module checks the value
 * first (-EINVAL) and only then refuses to change it (-EBUSY). 0 if the
 * value is valid, -1 after a message.
 */
static int probe_setting(const char *dir, const char *file, const char *val)
{
	char show[64];

	snprintf(show, sizeof(show), "\"%s\"", val);
	if (!ra_ctl_write_raw(dir, file, val, strlen(val), show, EBUSY) ||
	    errno == EBUSY)
		return 0;
	ra_err("%s: the existing channel is left as it is", dir);
	return -1;
}

int ra_probe_u64(const char *dir, const char *file, __u64 val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	return probe_setting(dir, file, buf);
}

static int probe_settings(const struct ra_config *cfg)
{
	const char *const *set;

	for (set = cfg->settings; set && set[0] && set[1]; set += 2)
		if (probe_setting(cfg->dir, set[0], set[1]))
			return -1;
	if (cfg->subbuf_size &&
	    ra_probe_u64(cfg->dir, "subbuf_size", cfg->subbuf_size))
		return -1;
	if (cfg->n_subbufs && ra_probe_u64(cfg->dir, "n_subbufs", cfg->n_subbufs))
		return -1;
	return 0;
}

void ra_refuse_existing(const char *dir)
{
	char mode[32] = "", path[PATH_MAX];

	/* what it is, if the directory says (a fake one may not) */
	snprintf(path, sizeof(path), "%s/mode", dir);
	if (!access(path, F_OK))
		ra_ctl_read(dir, "mode", mode, sizeof(mode));
	ra_err("%s: a channel exists%s%s%s (a flight recorder, set up by hand, or left by a killed collector); it is left as it is: stop it first (echo 0 > %s/enabled; echo 0 > %s/create), or give -x/--replace to destroy it",
	       dir, *mode ? " (mode=" : "", mode, *mode ? ")" : "", dir, dir);
}

/*
 * Lock out other collectors; a channel that exists already is taken as
 * it is (cfg->attach), replaced once the new settings are known to be
 * valid (cfg->replace), or refused. 0 (ra->attached says which), or -1
 * after a message.
 */
static int channel_check(struct relay_app *ra)
{
	const struct ra_config *cfg = &ra->cfg;

	ra->lock_fd = ra_lock(cfg->dir);
	if (ra->lock_fd < 0)
		return -1;
	if (!ra_channel_exists(ra->lock_fd))
		return 0;	/* none: create one */
	if (cfg->replace)
		return probe_settings(cfg);
	if (cfg->attach) {
		ra->attached = true;
		return read_sizes(ra);
	}
	ra_refuse_existing(cfg->dir);
	return -1;
}

static int channel_create(struct relay_app *ra)
{
	const struct ra_config *cfg = &ra->cfg;
	const char *const *set;
	const char *dir = cfg->dir;

	/* a previous run may have died with logging on; no channel: ENODEV */
	if (ra_ctl_write_raw(dir, "enabled", "0", 1, "\"0\"", ENODEV) &&
	    errno != ENODEV)
		return -1;
	if (ra_ctl_write(dir, "create", "0"))
		return -1;
	for (set = cfg->settings; set && set[0] && set[1]; set += 2)
		if (ra_ctl_write(dir, set[0], set[1]))
			return -1;
	if (write_sizes(cfg))
		return -1;
	if (ra_ctl_write(dir, "create", "1"))
		return -1;
	ra->channel = true;
	return read_sizes(ra);
}

/* Taken by ra_wait() (blocked everywhere else), default in the child. */
static const int ra_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

struct relay_app *ra_open(const struct ra_config *cfg)
{
	struct relay_app *ra;
	int *cpus = NULL;
	int i, n;

	ra = calloc(1, sizeof(*ra));
	if (!ra) {
		ra_err("out of memory");
		return NULL;
	}
	ra->cfg = *cfg;
	ra->wake[0] = -1;
	ra->wake[1] = -1;
	ra->lock_fd = -1;
	ra->child_status = -1;
	sigemptyset(&ra->sigs);
	for (i = 0; i < (int)ARRAY_SIZE(ra_signals); i++) {
		/*
		 * A background job of a non-interactive shell starts with
		 * SIGINT ignored; SIGCHLD ignored would reap the COMMAND
		 * before waitpid(). Take the documented defaults.
		 */
		signal(ra_signals[i], SIG_DFL);
		sigaddset(&ra->sigs, ra_signals[i]);
	}
	pthread_sigmask(SIG_BLOCK, &ra->sigs, &ra->orig_mask);

	if (access(cfg->dir, F_OK)) {
		int err = errno;

		ra_err("%s: %s (%s)", cfg->dir, strerror(err),
		       err == EACCES || err == EPERM ? "debugfs is for root" :
		       "is debugfs mounted and the module loaded?");
		goto fail;
	}
	if (channel_check(ra))
		goto fail;
	if (!ra->attached && channel_create(ra))
		goto fail;
	n = ra_list_cpus(cfg->dir, &cpus);
	if (n < 0)
		goto fail;
	if (!n) {
		ra_err("%s: no cpuN files after create=1", cfg->dir);
		goto fail;
	}
	ra->cpus = calloc(n, sizeof(*ra->cpus));
	if (!ra->cpus) {
		ra_err("out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		ra->cpus[i].cpu = cpus[i];
		ra->ncpus++;
		if (open_cpu(ra, &ra->cpus[i]))
			goto fail;
	}
	free(cpus);
	cpus = NULL;
	if (pipe2(ra->wake, O_CLOEXEC | O_NONBLOCK)) {
		ra_err("pipe: %s", strerror(errno));
		goto fail;
	}
	return ra;
fail:
	free(cpus);
	ra_close(ra);
	return NULL;
}

/* Tell the readers to drain once more and exit; wait for them. */
static void stop_threads(struct relay_app *ra)
{
	int i;

	__atomic_store_n(&ra->stopping, 1, __ATOMIC_RELEASE);
	if (ra->wake[1] >= 0 && write(ra->wake[1], "x", 1) < 0 &&
	    errno != EAGAIN)
		ra_err("wake pipe: %s", strerror(errno));
	for (i = 0; i < ra->nthreads; i++)
		pthread_join(ra->cpus[i].thread, NULL);
	ra->nthreads = 0;
}

int ra_start(struct relay_app *ra)
{
	int i, err;

	for (i = 0; i < ra->ncpus; i++) {
		err = pthread_create(&ra->cpus[i].thread, NULL, ra_reader,
				     &ra->cpus[i]);
		if (err) {
			ra_err("cannot start the reader of %s: %s",
			       ra->cpus[i].name, strerror(err));
			stop_threads(ra);
			return -1;
		}
		ra->nthreads++;
	}
	if (ra_ctl_write(ra->cfg.dir, "enabled", "1")) {
		stop_threads(ra);
		return -1;
	}
	ra->enabled = true;
	ra->channel = true;	/* attached: ours to destroy from now on */
	return 0;
}

__u64 ra_drained_since(struct relay_app *ra)
{
	__u64 min = UINT64_MAX;
	int i;

	for (i = 0; i < ra->ncpus; i++) {
		/* pairs with the release in ra_reader() */
		__u64 t = __atomic_load_n(&ra->cpus[i].drain_start,
					  __ATOMIC_ACQUIRE);

		if (t < min)
			min = t;
	}
	return ra->ncpus ? min : 0;
}

int ra_flush(struct relay_app *ra)
{
	return ra_ctl_write(ra->cfg.dir, "flush", "1");
}

int ra_stop(struct relay_app *ra)
{
	int ret = 0;

	if (ra->enabled) {
		/* returns when no writer is active any more */
		if (ra_ctl_write(ra->cfg.dir, "enabled", "0"))
			ret = -1;
		else
			ra->enabled = false;
	}
	/*
	 * SIGINT, SIGTERM and SIGHUP stay blocked: a second Ctrl-C now
	 * (within the drain, the summary, the restore of klog -e's saved
	 * sites) must not cut the collector's end short. SIGKILL does;
	 * the next ra_lock() then puts the saved state back.
	 */
	if (ra->channel && ra_flush(ra))
		ret = -1;
	stop_threads(ra);
	if (__atomic_load_n(&ra->failed, __ATOMIC_RELAXED))
		ret = -1;
	return ret;
}

void ra_halt(struct relay_app *ra)
{
	if (!ra)
		return;
	ra_end_child(ra, 0);
	if (ra->nthreads)
		ra_stop(ra);
}

void ra_close(struct relay_app *ra)
{
	size_t len;
	int i;

	if (!ra)
		return;
	ra_halt(ra);
	if (ra->enabled)
		ra_ctl_write(ra->cfg.dir, "enabled", "0");
	len = ra->subbuf_size * ra->n_subbufs;
	for (i = 0; i < ra->ncpus; i++) {
		struct ra_cpu *c = &ra->cpus[i];

		if (c->map != MAP_FAILED)
			munmap(c->map, len);
		if (c->fd >= 0)
			close(c->fd);
		free(c->buf);
	}
	if (ra->channel)
		ra_ctl_write(ra->cfg.dir, "create", "0");
	if (ra->lock_fd >= 0)
		close(ra->lock_fd);
	if (ra->wake[0] >= 0) {
		close(ra->wake[0]);
		close(ra->wake[1]);
	}
	free(ra->cpus);
	/*
	 * The collection is over: a stop signal that came during the stop
	 * was part of the same request and is taken here; later ones
	 * act as they did before ra_open().
	 */
	while (sigtimedwait(&ra->sigs, NULL, &(struct timespec){ 0 }) > 0)
		;
	pthread_sigmask(SIG_SETMASK, &ra->orig_mask, NULL);
	free(ra);
}

int ra_close_status(struct relay_app *ra, int err)
{
	int status = ra_command_status(ra);

	ra_close(ra);
	if (err)
		return err;
	return status < 0 ? 0 : status;
}
