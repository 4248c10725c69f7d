// SPDX-License-Identifier: GPL-2.0
/*
 * relay_app.c - control files, channel setup, per-CPU readers, drain
 *
 * DOC: implementation
 *
 * See relay_app.h for the protocol. How the pieces fit:
 *
 * - Control files are opened for each access (O_TRUNC on write, as a
 *   shell redirection does) so that no file position is ever carried
 *   between accesses: cpuN.produced is read again at offset 0 each time,
 *   cpuN.consumed gets exactly one size_t per write.
 *
 * - Each reader thread loops: poll(cpuN, wake pipe, poll_ms); drain. The
 *   drain runs after every poll, ready or not, because poll() reports
 *   only whole sub-buffers while relay's own read() also returns the
 *   current partial one (a module may return more than poll() promised,
 *   never less). If poll() said "ready" and the drain found nothing, the
 *   thread naps a quarter of poll_ms, so a file that is always readable
 *   (a regular file in a test, a misbehaving module) cannot make it spin.
 *
 * - Stop: the main thread writes enabled=0 and flush=1, then sets
 *   ra->stopping (release) and writes one byte to the wake pipe, which is
 *   never read so it stays readable for every thread. A thread that loads
 *   stopping (acquire) == 1 drains once more without polling and exits;
 *   since the flag is set after the flush returned, that drain sees every
 *   record written before the stop.
 *
 * - mmap mode keeps the consumed count locally (read once from
 *   cpuN.consumed at start). Sub-buffer i lies at (i % n_subbufs) *
 *   subbuf_size. If produced - consumed exceeds n_subbufs the oldest
 *   sub-buffers were overwritten (impossible in no-overwrite mode), and
 *   the writer is filling the slot of produced - n_subbufs: all but the
 *   n_subbufs - 1 newest are skipped and counted, never read
 *   half-overwritten. produced below consumed means the channel was
 *   recreated underneath the reader: an error, not a huge backlog.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "relay_app.h"

#define RA_POLL_MS_DEFAULT	200
#define RA_READ_BUF_MIN		(64UL << 10)
#define RA_READ_BUF_MAX		(4UL << 20)

/* ---- Messages and small helpers ------------------------------------- */

void ra_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, msg);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(2);
}

double parse_seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0)
		usage_error("%s: invalid value '%s' (expected seconds > 0, e.g. 10 or 0.5)",
			    opt, arg);
	/* kept in nanoseconds: anything else could not be honoured */
	if (v < RA_SECONDS_MIN || v > RA_SECONDS_MAX)
		usage_error("%s: invalid value '%s' (expected %g to %g seconds)",
			    opt, arg, RA_SECONDS_MIN, RA_SECONDS_MAX);
	return v;
}

unsigned long long parse_count(const char *opt, const char *arg,
			       const char *suffixes, unsigned long long min,
			       unsigned long long max, const char *expected)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)arg[0]))
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno)
		goto bad;
	if (suffixes && *end && strchr(suffixes, *end)) {
		shift = tolower((unsigned char)*end) == 'k' ? 10 :
			tolower((unsigned char)*end) == 'm' ? 20 : 30;
		end++;
	}
	if (*end || v > (max >> shift) || (v << shift) < min)
		goto bad;
	return v << shift;
bad:
	usage_error("%s: invalid value '%s' (expected %s)", opt, arg, expected);
}

char *const *ra_command_arg(int argc, char **argv)
{
	return optind < argc ? argv + optind : NULL;
}

enum ra_mode parse_mode(const char *arg, enum ra_mode dflt)
{
	if (!strcmp(arg, "read"))
		return RA_MODE_READ;
	if (!strcmp(arg, "mmap"))
		return RA_MODE_MMAP;
	usage_error("-m/--mode: invalid value '%s' (expected %s)", arg,
		    dflt == RA_MODE_READ ? "read or mmap" : "mmap or read");
}

void usage_bad_option(int c, char **argv)
{
	if (c == ':')
		usage_error("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

int ra_map_file(const char *path, const unsigned char **data, size_t *len)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted as cpu0 must not hang the report */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		ra_err("%s: open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ra_err("%s: not a regular file (a %s)", path,
		       S_ISDIR(st.st_mode) ? "directory" :
		       S_ISFIFO(st.st_mode) ? "FIFO" : "special file");
		close(fd);
		return -1;
	}
	*len = st.st_size;
	if (*len) {
		void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			ra_err("%s: mmap: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		*data = p;
	}
	close(fd);
	return 0;
}

int ra_out_dir(const char *dir)
{
	struct stat st;

	umask(077);
	if (!mkdir(dir, 0700))
		return 0;
	if (errno != EEXIST) {
		ra_err("%s: mkdir: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st)) {
		ra_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		ra_err("%s: is a symbolic link; give the output directory itself",
		       dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		ra_err("%s: exists and is not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		ra_err("%s: owned by uid %u, not by this user: someone else could have put files there; use a new directory",
		       dir, (unsigned int)st.st_uid);
		return -1;
	}
	if (st.st_mode & 0022) {
		ra_err("%s: writable by %s (mode %04o): use a directory only you can write to (chmod go-w)",
		       dir, st.st_mode & 0002 ? "others" : "its group",
		       (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int ra_out_open(const char *path, int flags)
{
	struct stat st;
	int fd, err;

	fd = open(path, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK |
		  O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errno;
		if (err == ENXIO || err == EISDIR)	/* FIFO, socket, dir */
			ra_err("%s: not a regular file; remove it", path);
		else
			ra_err("%s: open: %s", path, err == ELOOP ?
			       "is a symbolic link (not followed)" :
			       strerror(err));
		errno = err;
		return -1;
	}
	if (fstat(fd, &st)) {
		err = errno;
		ra_err("%s: %s", path, strerror(err));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = EINVAL;
		ra_err("%s: not a regular file; remove it", path);
		goto fail;
	}
	if (((flags & O_TRUNC) && ftruncate(fd, 0)) ||
	    ((st.st_mode & 077) && fchmod(fd, 0600)) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = errno;
		ra_err("%s: %s", path, strerror(err));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = err;
	return -1;
}

int ra_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

__u64 ra_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void ra_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- Control files --------------------------------------------------- */

static int ctl_path(char *path, size_t size, const char *dir, const char *file)
{
	int n = snprintf(path, size, "%s/%s", dir, file);

	if (n < 0 || (size_t)n >= size) {
		ra_err("%s/%s: path too long", dir, file);
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Write @len bytes of @val to dir/file. @show is the value as it appears
 * in messages. Errors with errno == @quiet_errno are not reported.
 */
static int ctl_write(const char *dir, const char *file, const void *val,
		     size_t len, const char *show, int quiet_errno)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err;

	if (ctl_path(path, sizeof(path), dir, file))
		return -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto fail;
	}
	n = write(fd, val, len);
	err = n < 0 ? errno : 0;
	close(fd);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0) {
		ra_err("%s: write %s: short write (%zd of %zu bytes)",
		       path, show, n, len);
		errno = EIO;
		return -1;
	}
fail:
	if (err != quiet_errno)
		ra_err("%s: write %s: %s", path, show, strerror(err));
	errno = err;
	return -1;
}

int ra_ctl_write(const char *dir, const char *file, const char *val)
{
	char show[64];

	snprintf(show, sizeof(show), "\"%s\"", val);
	return ctl_write(dir, file, val, strlen(val), show, 0);
}

int ra_ctl_write_u64(const char *dir, const char *file, __u64 val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	return ra_ctl_write(dir, file, buf);
}

int ra_ctl_write_size(const char *dir, const char *file, size_t val)
{
	char show[48];

	snprintf(show, sizeof(show), "%zu (binary size_t)", val);
	return ctl_write(dir, file, &val, sizeof(val), show, 0);
}

/* Read up to @size bytes of dir/file; returns the count or -1. */
static ssize_t ctl_read(const char *dir, const char *file, void *buf,
			size_t size)
{
	char path[PATH_MAX];
	size_t got = 0;
	int fd, err;

	if (ctl_path(path, sizeof(path), dir, file))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	while (got < size) {
		ssize_t n = read(fd, (char *)buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			errno = err;
			goto fail;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	return got;
fail:
	err = errno;
	ra_err("%s: read: %s", path, strerror(err));
	errno = err;
	return -1;
}

int ra_ctl_read(const char *dir, const char *file, char *buf, size_t size)
{
	ssize_t n = ctl_read(dir, file, buf, size - 1);

	if (n < 0)
		return -1;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

int ra_ctl_read_u64(const char *dir, const char *file, __u64 *val)
{
	unsigned long long v;
	char buf[64], *end;

	if (ra_ctl_read(dir, file, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (!isdigit((unsigned char)buf[0]) || *end || errno) {
		ra_err("%s/%s: not a decimal number: \"%s\"", dir, file, buf);
		return -1;
	}
	*val = v;
	return 0;
}

int ra_ctl_read_size(const char *dir, const char *file, size_t *val)
{
	ssize_t n = ctl_read(dir, file, val, sizeof(*val));

	if (n < 0)
		return -1;
	if (n != sizeof(*val)) {
		ra_err("%s/%s: read %zd bytes, expected a %zu-byte size_t",
		       dir, file, n, sizeof(*val));
		return -1;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int ra_list_cpus(const char *dir, int **cpus)
{
	int n = 0, cap = 0, *v = NULL;
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		ra_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		char *end;
		long cpu;

		if (strncmp(s, "cpu", 3) || !isdigit((unsigned char)s[3]))
			continue;
		errno = 0;
		cpu = strtol(s + 3, &end, 10);
		if (*end)
			continue;	/* cpuN.produced, cpuN.consumed, ... */
		/* cpu01 beside cpu1 would be read twice: refuse, not guess */
		if ((s[3] == '0' && s[4]) || errno || cpu > INT_MAX / 2) {
			ra_err("%s/%s: not a cpuN name klog writes (N without leading zeros): remove or rename it",
			       dir, s);
			free(v);
			closedir(d);
			return -1;
		}
		if (n == cap) {
			int *nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ra_err("%s: out of memory", dir);
				free(v);
				closedir(d);
				return -1;
			}
			v = nv;
		}
		v[n++] = cpu;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_int);
	*cpus = v;
	return n;
}

/* ---- Reader threads -------------------------------------------------- */

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
		cpu_add(&c->errors, 1);
		return -1;
	}
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
	if (ra_ctl_read_size(ra->cfg.dir, file, &produced)) {
		cpu_add(&c->errors, 1);
		return -1;
	}
	if (produced < c->consumed) {
		/* unsigned, the backlog would be ~2^64 consumed-writes long */
		ra_err("%s/%s: %zu sub-buffers produced but %zu consumed: the channel was destroyed and created again underneath this collector",
		       ra->cfg.dir, c->name, produced, c->consumed);
		cpu_add(&c->errors, 1);
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
		long used = ra->cfg.subbuf_used(c, sb, sb_size, ra->cfg.arg);

		if (used < 0 || (size_t)used > sb_size) {
			cpu_add(&c->bad_subbufs, 1);
			continue;
		}
		if (cpu_sink(c, sb, used))
			return -1;
		cpu_add(&c->subbufs, 1);
		total += used;
	}
	/* the module takes at most n_subbufs per write */
	snprintf(file, sizeof(file), "%s.consumed", c->name);
	for (; backlog; backlog -= n) {
		n = backlog < n_sb ? backlog : n_sb;
		if (ra_ctl_write_size(ra->cfg.dir, file, n)) {
			cpu_add(&c->errors, 1);
			return -1;
		}
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
	c->pinned = !sched_setaffinity(0, size, set);
	if (!c->pinned && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		ra_err("cannot pin the reader of %s: %s (continuing unpinned)",
		       c->name, strerror(errno));
	CPU_FREE(set);
}

static void *reader(void *arg)
{
	struct ra_cpu *c = arg;
	struct relay_app *ra = c->ra;
	unsigned int poll_ms = ra->cfg.poll_ms;

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
			ready = poll(pfd, 2, poll_ms);
			if (ready < 0 && errno != EINTR) {
				ra_err("%s/%s: poll: %s", ra->cfg.dir, c->name,
				       strerror(errno));
				cpu_add(&c->errors, 1);
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
			ra_sleep_ms(poll_ms / 4 + 1);
	}
	ra_fail(ra);
	return NULL;
}

/* ---- Channel --------------------------------------------------------- */

static int open_cpu(struct relay_app *ra, struct ra_cpu *c)
{
	char path[PATH_MAX], file[48];
	size_t len = ra->subbuf_size * ra->n_subbufs;

	c->ra = ra;
	c->fd = -1;
	c->map = MAP_FAILED;
	snprintf(c->name, sizeof(c->name), "cpu%d", c->cpu);
	if (ctl_path(path, sizeof(path), ra->cfg.dir, c->name))
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

	if (ctl_path(path, sizeof(path), dir, "create"))
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
	if (!ctl_write(dir, file, val, strlen(val), show, EBUSY) ||
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
	char mode[32] = "";

	/* klog-mod says what it is; reserve-mod has no mode file */
	if (!access(dir, F_OK)) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/mode", dir);
		if (!access(path, F_OK))
			ra_ctl_read(dir, "mode", mode, sizeof(mode));
	}
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
	if (ctl_write(dir, "enabled", "0", 1, "\"0\"", ENODEV) &&
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
	if (!ra->cfg.poll_ms)
		ra->cfg.poll_ms = RA_POLL_MS_DEFAULT;
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
	if (cfg->mode == RA_MODE_MMAP && !cfg->subbuf_used) {
		ra_err("mmap mode needs a subbuf_used callback");
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
		err = pthread_create(&ra->cpus[i].thread, NULL, reader,
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

/* The COMMAND has ended: 1 (its status saved), or 0 if still running. */
static int reap_child(struct relay_app *ra, bool block)
{
	int st;
	pid_t p;

	if (!ra->child)
		return 1;
	do
		p = waitpid(ra->child, &st, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == 0)
		return 0;
	if (p < 0) {
		ra_err("waitpid %d: %s", (int)ra->child, strerror(errno));
		ra->child_status = 127;
	} else if (WIFEXITED(st)) {
		ra->child_status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		ra->child_status = 128 + WTERMSIG(st);
	} else {
		return 0;	/* stopped or continued: still there */
	}
	ra->child = 0;
	return 1;
}

/*
 * The collection stops before the COMMAND exited: pass the stop on (the
 * signal that stopped the collector, else SIGTERM) and wait for it,
 * SIGKILL on a second stop signal. The readers keep draining meanwhile.
 */
static void end_child(struct relay_app *ra, int sig)
{
	bool killed = false;

	if (!ra->child)
		return;
	kill(ra->child, sig ? sig : SIGTERM);
	while (!reap_child(ra, false)) {
		int got = sigwaitinfo(&ra->sigs, NULL);

		if (got < 0 && errno != EINTR) {
			reap_child(ra, true);
			return;
		}
		if (got > 0 && got != SIGCHLD && !killed) {
			ra_err("%s again: killing the command (pid %d)",
			       strsignal(got), (int)ra->child);
			kill(ra->child, SIGKILL);
			killed = true;
		}
	}
}

static enum ra_stop_why wait_loop(struct relay_app *ra, double seconds,
				  unsigned int tick_ms,
				  int (*tick)(struct relay_app *ra, void *arg),
				  void *arg)
{
	__u64 now = ra_now_ns(), deadline = 0;

	if (!tick_ms)
		tick_ms = RA_POLL_MS_DEFAULT;
	if (seconds > 0)
		deadline = now + (__u64)(seconds * 1e9);
	for (;;) {
		__u64 wait_ns = tick_ms * 1000000ULL;
		struct timespec ts;
		int sig;

		if (__atomic_load_n(&ra->failed, __ATOMIC_RELAXED))
			return RA_STOP_ERROR;
		/* SIGCHLD may have come while the collector was starting */
		if (ra->child && reap_child(ra, false))
			return RA_STOP_COMMAND;
		if (deadline) {
			now = ra_now_ns();
			if (now >= deadline)
				return RA_STOP_DURATION;
			if (deadline - now < wait_ns)
				wait_ns = deadline - now;
		}
		ts.tv_sec = wait_ns / 1000000000ULL;
		ts.tv_nsec = wait_ns % 1000000000ULL;
		sig = sigtimedwait(&ra->sigs, NULL, &ts);
		if (sig == SIGCHLD)
			continue;	/* reaped above, if it was the COMMAND */
		if (sig > 0) {
			ra->stop_signal = sig;
			return RA_STOP_SIGNAL;
		}
		if (errno != EAGAIN && errno != EINTR) {
			ra_err("sigtimedwait: %s", strerror(errno));
			return RA_STOP_ERROR;
		}
		if (tick) {
			int ret = tick(ra, arg);

			if (ret)
				return ret < 0 ? RA_STOP_ERROR : RA_STOP_TICK;
		}
	}
}

enum ra_stop_why ra_wait(struct relay_app *ra, double seconds,
			 unsigned int tick_ms,
			 int (*tick)(struct relay_app *ra, void *arg),
			 void *arg)
{
	enum ra_stop_why why = wait_loop(ra, seconds, tick_ms, tick, arg);

	if (why != RA_STOP_COMMAND)
		end_child(ra, why == RA_STOP_SIGNAL ? ra->stop_signal : 0);
	return why;
}

int ra_recording(struct relay_app *ra, char *const *cmd, const char *fmt, ...)
{
	posix_spawnattr_t attr;
	sigset_t dfl;
	char msg[1024];
	va_list ap;
	pid_t pid;
	int err;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ra_err("recording %s", msg);
	if (!cmd)
		return 0;
	/* the child: the caller's signal mask, default dispositions */
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGPIPE);
	err = posix_spawnattr_init(&attr);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &ra->orig_mask);
	if (!err)
		err = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	fflush(NULL);
	if (!err)
		err = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
	posix_spawnattr_destroy(&attr);
	if (err) {
		ra_err("%s: cannot run it: %s", cmd[0], strerror(err));
		ra->child_status = err == ENOENT ? 127 : 126;
		return -1;
	}
	ra->child = pid;
	return 0;
}

int ra_command_status(const struct relay_app *ra)
{
	return ra ? ra->child_status : -1;
}

__u64 ra_drained_since(struct relay_app *ra)
{
	__u64 min = UINT64_MAX;
	int i;

	for (i = 0; i < ra->ncpus; i++) {
		/* pairs with the release in reader() */
		__u64 t = __atomic_load_n(&ra->cpus[i].drain_start,
					  __ATOMIC_ACQUIRE);

		if (t < min)
			min = t;
	}
	return ra->ncpus ? min : 0;
}

const char *ra_stop_reason(enum ra_stop_why why, int sig)
{
	if (why == RA_STOP_DURATION)
		return "duration reached";
	if (why == RA_STOP_ERROR)
		return "error";
	if (why == RA_STOP_COMMAND)
		return "command exited";
	if (why == RA_STOP_TICK)
		return "done";
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       "SIGHUP";
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
	pthread_sigmask(SIG_UNBLOCK, &ra->sigs, NULL);
	if (ra->channel && ra_flush(ra))
		ret = -1;
	stop_threads(ra);
	if (__atomic_load_n(&ra->failed, __ATOMIC_RELAXED))
		ret = -1;
	return ret;
}

void ra_close(struct relay_app *ra)
{
	size_t len;
	int i;

	if (!ra)
		return;
	end_child(ra, 0);
	if (ra->nthreads)
		ra_stop(ra);
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
	free(ra);
}

/* ---- The stats file -------------------------------------------------- */

/* Parse "cpu<N> key=value ..."; 0, or -1 if the line is not one. */
static int parse_stats_line(char *line, struct ra_stats_cpu *s)
{
	char *save, *tok, *end;

	memset(s, 0, sizeof(*s));
	tok = strtok_r(line, " \t\n", &save);
	if (!tok || strncmp(tok, "cpu", 3) || !isdigit((unsigned char)tok[3]))
		return -1;
	s->cpu = strtol(tok + 3, &end, 10);
	if (*end)
		return -1;
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof(s->kv[0].key))
			return -1;
		if (!isdigit((unsigned char)eq[1]))
			return -1;
		if (s->n == RA_STAT_MAX)
			continue;
		memcpy(s->kv[s->n].key, tok, eq - tok);
		s->kv[s->n].val = strtoull(eq + 1, &end, 10);
		if (*end)
			return -1;
		s->n++;
	}
	return 0;
}

int ra_stats_read(const char *dir, struct ra_stats_cpu **out)
{
	struct ra_stats_cpu *v = NULL;
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0, vcap = 0, lineno = 0;
	FILE *f;

	if (ctl_path(path, sizeof(path), dir, "stats"))
		return -1;
	f = fopen(path, "re");
	if (!f) {
		ra_err("%s: read: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		if (n == vcap) {
			struct ra_stats_cpu *nv;

			vcap = vcap ? 2 * vcap : 16;
			nv = realloc(v, vcap * sizeof(*v));
			if (!nv) {
				ra_err("%s: out of memory", path);
				goto fail;
			}
			v = nv;
		}
		if (parse_stats_line(line, &v[n])) {
			ra_err("%s:%d: not \"cpu<N> key=value ...\"", path,
			       lineno);
			goto fail;
		}
		n++;
	}
	if (ferror(f)) {
		ra_err("%s: read: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	free(line);
	*out = v;
	return n;
fail:
	fclose(f);
	free(line);
	free(v);
	return -1;
}

__u64 ra_stat(const struct ra_stats_cpu *s, const char *key)
{
	int i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->kv[i].key, key))
			return s->kv[i].val;
	return 0;
}

const struct ra_stats_cpu *ra_stats_find(const struct ra_stats_cpu *v, int n,
					 int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].cpu == cpu)
			return &v[i];
	return NULL;
}
