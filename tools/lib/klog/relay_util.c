// SPDX-License-Identifier: GPL-2.0
/*
 * relay_util.c - relay_app's messages, option parsing, output files and
 * control files
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "relay_app_int.h"

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

/* kept in nanoseconds: anything else could not be honoured */
#define RA_SECONDS_MIN	0.000000001
#define RA_SECONDS_MAX	1e9

double parse_seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0)
		usage_error("%s: invalid value '%s' (expected seconds > 0, e.g. 10 or 0.5)",
			    opt, arg);
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

static enum ra_mode parse_mode(const char *arg)
{
	if (!strcmp(arg, "read"))
		return RA_MODE_READ;
	if (!strcmp(arg, "mmap"))
		return RA_MODE_MMAP;
	usage_error("-m/--mode: invalid value '%s' (expected read or mmap)",
		    arg);
}

static bool ra_parse_opt(int c, const char *arg, struct ra_opts *o)
{
	switch (c) {
	case 'b':
		o->subbuf_size = parse_count("-b/--subbuf-size", arg, "kKmMgG",
					     1, SIZE_MAX,
					     "a positive size in bytes, e.g. 1048576 or 1M");
		return true;
	case 'n':
		o->n_subbufs = parse_count("-n/--n-subbufs", arg, NULL,
					   1, SIZE_MAX, "a positive integer");
		return true;
	case 'm':
		o->mode = parse_mode(arg);
		return true;
	case 'o':
		o->out = arg;
		return true;
	case 't':
		o->duration = parse_seconds("-t/--duration", arg);
		return true;
	case 'd':
		o->debugfs = arg;
		return true;
	case 'q':
		o->quiet = true;
		return true;
	case 'x':
		o->replace = true;
		return true;
	}
	return false;
}

#define RA_OPTS_SHORT	"b:n:m:o:t:d:qxh"
#define RA_LONGOPTS_MAX	64

static const struct option ra_longopts[] = {
	{ "subbuf-size",	required_argument, NULL, 'b' },
	{ "n-subbufs",		required_argument, NULL, 'n' },
	{ "mode",		required_argument, NULL, 'm' },
	{ "output",		required_argument, NULL, 'o' },
	{ "duration",		required_argument, NULL, 't' },
	{ "debugfs",		required_argument, NULL, 'd' },
	{ "replace",		no_argument,	   NULL, 'x' },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "help",		no_argument,	   NULL, 'h' },
};

/* getopt_long() (opterr = 0) returned ':' or '?': the usage error */
__noreturn static void usage_bad_option(int c, char **argv)
{
	if (c == ':')
		usage_error("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

/* the common options and the tool's, merged on the first ra_getopt() */
static struct option ra_allopts[RA_LONGOPTS_MAX + 1];

int ra_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, struct ra_opts *o)
{
	static char optstring[128];
	size_t n = ARRAY_SIZE(ra_longopts);
	int c;

	if (!optstring[0]) {
		memcpy(ra_allopts, ra_longopts, sizeof(ra_longopts));
		for (; longopts->name && n < RA_LONGOPTS_MAX; longopts++)
			ra_allopts[n++] = *longopts;
		snprintf(optstring, sizeof(optstring), "+:%s%s",
			 RA_OPTS_SHORT, shortopts);
		opterr = 0;
	}
	c = getopt_long(argc, argv, optstring, ra_allopts, NULL);
	if (c == ':' || c == '?')
		usage_bad_option(c, argv);
	if (c == 'h') {
		o->help(stdout);
		exit(0);
	}
	if (c != -1)
		ra_parse_opt(c, optarg, o);
	return c;
}

const char *ra_opt_name(int c)
{
	static char buf[40];
	const struct option *opt = ra_allopts;

	for (; opt->name; opt++)
		if (opt->val == c)
			break;
	snprintf(buf, sizeof(buf), "-%c/--%s", c, opt->name ? opt->name : "?");
	return buf;
}

/*
 * Directories held open (ra_out_dir(), ra_in_dir()): a file named
 * "DIR/NAME" of one of them is opened, created, renamed or removed
 * relative to the descriptor, never by resolving DIR again, so that a
 * DIR renamed or replaced by a link after its check (by whoever can
 * write to its parent) cannot redirect a write or a read. Registered
 * by the main thread before any reader starts; never freed (a
 * collector holds a handful for its lifetime).
 */
#define RA_DIRS_MAX	8

static struct {
	int	fd;
	char	path[PATH_MAX];
	size_t	len;
} ra_dirs[RA_DIRS_MAX];
static int ra_ndirs;

/* @dir without trailing slashes ("/" stays): its length. */
static size_t dir_len(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n;
}

static int dir_hold(const char *dir, int fd)
{
	size_t n = dir_len(dir);
	int i;

	if (n >= PATH_MAX) {
		ra_err("%s: path too long", dir);
		close(fd);
		return -1;
	}
	for (i = 0; i < ra_ndirs; i++)
		if (ra_dirs[i].len == n && !strncmp(ra_dirs[i].path, dir, n))
			break;
	if (i == ra_ndirs) {
		if (ra_ndirs == RA_DIRS_MAX) {
			ra_err("%s: too many directories held open", dir);
			close(fd);
			return -1;
		}
		ra_ndirs++;
	} else {
		close(ra_dirs[i].fd);	/* checked again: the new one */
	}
	ra_dirs[i].fd = fd;
	memcpy(ra_dirs[i].path, dir, n);
	ra_dirs[i].path[n] = '\0';
	ra_dirs[i].len = n;
	return 0;
}

/*
 * Where @path is: for "DIR/NAME" of a held DIR (NAME one component),
 * DIR's descriptor and *name = NAME; else AT_FDCWD and *name = @path.
 */
static int dir_at(const char *path, const char **name)
{
	int i;

	for (i = 0; i < ra_ndirs; i++) {
		const char *rest = path + ra_dirs[i].len;

		if (strncmp(path, ra_dirs[i].path, ra_dirs[i].len) ||
		    (*rest != '/' && ra_dirs[i].len > 1))
			continue;
		while (*rest == '/')
			rest++;
		if (!*rest || strchr(rest, '/') || !strcmp(rest, ".") ||
		    !strcmp(rest, ".."))
			continue;
		*name = rest;
		return ra_dirs[i].fd;
	}
	*name = path;
	return AT_FDCWD;
}

/* The held descriptor of @dir itself, or -1. */
static int dir_held(const char *dir)
{
	size_t n = dir_len(dir);
	int i;

	for (i = 0; i < ra_ndirs; i++)
		if (ra_dirs[i].len == n && !strncmp(ra_dirs[i].path, dir, n))
			return ra_dirs[i].fd;
	return -1;
}

int ra_in_dir(const char *dir)
{
	int fd;

	if (dir_held(dir) >= 0)
		return 0;	/* the output just written: as it was checked */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		ra_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	return dir_hold(dir, fd);
}

int ra_out_rename(const char *from, const char *to)
{
	const char *f, *t;
	int ffd = dir_at(from, &f), tfd = dir_at(to, &t);

	if (renameat(ffd, f, tfd, t)) {
		int err = errno;

		ra_err("%s: rename to %s: %s", from, to, strerror(err));
		errno = err;
		return -1;
	}
	return 0;
}

int ra_out_unlink(const char *path)
{
	const char *name;
	int fd = dir_at(path, &name);

	return unlinkat(fd, name, 0);
}

/*
 * Open @path to read it whole: never through a symbolic link, never
 * waiting (O_NONBLOCK: a FIFO planted as cpu0 or kallsyms must not hang
 * a report), a regular file only (not /dev/zero). @missing_ok: a file
 * that does not exist is no error (-1, errno ENOENT, no message).
 * Return: the descriptor with *st, or -1 after a message.
 */
static int open_regular(const char *path, struct stat *st, bool missing_ok)
{
	const char *name;
	int at = dir_at(path, &name);
	int fd = openat(at, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
			O_CLOEXEC);
	int err;

	if (fd < 0 || fstat(fd, st)) {
		err = errno;
		if (!(missing_ok && err == ENOENT))
			ra_err("%s: open: %s", path, err == ELOOP ?
			       "is a symbolic link (not followed)" :
			       strerror(err));
		if (fd >= 0)
			close(fd);
		errno = err;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		ra_err("%s: not a regular file (a %s)", path,
		       S_ISDIR(st->st_mode) ? "directory" :
		       S_ISFIFO(st->st_mode) ? "FIFO" : "special file");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int ra_map_file(const char *path, const unsigned char **data, size_t *len)
{
	struct stat st;
	int fd = open_regular(path, &st, false);

	if (fd < 0)
		return -1;
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

/* All of @fd (@st from open_regular()) as ra_read_file() reads it. */
static char *read_fd(int fd, const struct stat *st, const char *path,
		     size_t max, size_t *len)
{
	size_t n = 0, cap;
	char *buf, *nb;

	/* the size as a hint: /proc files say 0 */
	cap = st->st_size > 0 && (size_t)st->st_size < max ?
	      (size_t)st->st_size : 65536;
	if (cap > max)
		cap = max;
	buf = malloc(cap + 1);
	if (!buf)
		goto oom;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap == max) {
				/* one byte more says whether it ends here */
				char c;

				r = read(fd, &c, 1);
				if (r < 0 && errno == EINTR)
					continue;
				if (r > 0) {
					ra_err("%s: larger than %zu bytes: not a file this program wrote",
					       path, max);
					goto fail;
				}
				if (r < 0)
					goto read_err;
				break;
			}
			cap = cap > max / 2 ? max : 2 * cap;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto oom;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto read_err;
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
read_err:
	ra_err("%s: read: %s", path, strerror(errno));
	goto fail;
oom:
	ra_err("%s: out of memory", path);
fail:
	free(buf);
	errno = EINVAL;
	return NULL;
}

char *ra_read_file(const char *path, size_t max, size_t *len,
		   bool missing_ok)
{
	struct stat st;
	int fd = open_regular(path, &st, missing_ok);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = read_fd(fd, &st, path, max, len);
	close(fd);
	return buf;
}

char *ra_escape(char *buf, size_t size, const void *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	size_t i, o = 0;

	if (!size)
		return buf;
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		char e[5];
		size_t k = 0;

		if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			e[k++] = '\\';
			e[k++] = c == '\\' ? '\\' : c == '\n' ? 'n' :
				 c == '\t' ? 't' : 'r';
		} else if (c >= 0x20 && c < 0x7f) {
			e[k++] = c;
		} else {
			e[k++] = '\\';
			e[k++] = 'x';
			e[k++] = hex[c >> 4];
			e[k++] = hex[c & 15];
		}
		if (o + k >= size)
			break;		/* cut at a whole escape */
		memcpy(buf + o, e, k);
		o += k;
	}
	buf[o] = '\0';
	return buf;
}

int ra_out_dir(const char *dir)
{
	struct stat st;
	int fd, err;

	umask(077);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		ra_err("%s: mkdir: %s", dir, strerror(errno));
		return -1;
	}
	/* held open from here: the checks are of what is written into */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP || (err == ENOTDIR && !lstat(dir, &st) &&
				     S_ISLNK(st.st_mode)))
			ra_err("%s: is a symbolic link; give the output directory itself",
			       dir);
		else if (err == ENOTDIR)
			ra_err("%s: exists and is not a directory", dir);
		else
			ra_err("%s: %s", dir, strerror(err));
		return -1;
	}
	if (fstat(fd, &st)) {
		ra_err("%s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		ra_err("%s: owned by uid %u, not by this user: someone else could have put files there; use a new directory",
		       dir, (unsigned int)st.st_uid);
		close(fd);
		return -1;
	}
	if (st.st_mode & 0022) {
		ra_err("%s: writable by %s (mode %04o): use a directory only you can write to (chmod go-w)",
		       dir, st.st_mode & 0002 ? "others" : "its group",
		       (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	return dir_hold(dir, fd);
}

int ra_out_open(const char *path, int flags)
{
	struct stat st;
	const char *name;
	int at = dir_at(path, &name), fd, err;

	fd = openat(at, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK |
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

void ra_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- Control files --------------------------------------------------- */

int ra_ctl_path(char *path, size_t size, const char *dir, const char *file)
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
int ra_ctl_write_raw(const char *dir, const char *file, const void *val,
		     size_t len, const char *show, int quiet_errno)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err;

	if (ra_ctl_path(path, sizeof(path), dir, file))
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
	return ra_ctl_write_raw(dir, file, val, strlen(val), show, 0);
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
	return ra_ctl_write_raw(dir, file, &val, sizeof(val), show, 0);
}

/* Read up to @size bytes of dir/file; returns the count or -1. */
static ssize_t ctl_read(const char *dir, const char *file, void *buf,
			size_t size)
{
	char path[PATH_MAX];
	size_t got = 0;
	int fd, err;

	if (ra_ctl_path(path, sizeof(path), dir, file))
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

	if (dir_held(dir) >= 0) {
		int fd = dup(dir_held(dir));	/* closedir() closes it */

		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d && fd >= 0)
			close(fd);
		if (d)
			rewinddir(d);
	} else {
		d = opendir(dir);
	}
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

int ra_remove_stale(const char *dir, const struct relay_app *ra, bool say)
{
	int *old, n, i, j, err = 0;

	n = ra_list_cpus(dir, &old);
	if (n < 0)
		return -1;
	for (i = 0; i < n && !err; i++) {
		char path[PATH_MAX];
		const char *name;
		struct stat st;
		int at;

		for (j = 0; ra && j < ra->ncpus; j++)
			if (ra->cpus[j].cpu == old[i])
				break;
		if (ra && j < ra->ncpus)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, old[i]);
		at = dir_at(path, &name);
		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) ||
		    S_ISDIR(st.st_mode))
			continue;
		if (unlinkat(at, name, 0) && errno != ENOENT) {
			ra_err("%s: cannot remove a file of an earlier run: %s",
			       path, strerror(errno));
			err = -1;
		} else if (say) {
			ra_err("removed %s (from an earlier run on more CPUs)",
			       path);
		}
	}
	free(old);
	return err;
}

/* ---- klog's saved call-site state (klog -e) -------------------------- */

const char *ra_sites_state_path(void)
{
	const char *dir = getenv("KLOG_STATE_DIR");
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sites.saved",
		 dir && *dir ? dir : RA_SITES_STATE_DIR);
	return path;
}

void ra_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f || !fgets(buf, size, f))
		snprintf(buf, size, "unknown");
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

int ra_control_write(const char *dir, const char *text, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (ra_ctl_path(path, sizeof(path), dir, "control"))
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ra_err("%s: open: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, text, len);
	if (n != (ssize_t)len) {
		ra_err("%s: write of \"%.60s%s\": %s", path, text,
		       len > 60 ? "..." : "",
		       n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	if (close(fd)) {
		ra_err("%s: close: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Put the flags of the saved sites back: "id A-B =p" or "=_" for each
 * run of consecutive saved ids with the same flag, in writes that the
 * kernel takes (under RA_CONTROL_MAX bytes). @n saved pairs in @ids,
 * @on. Returns 0 or -1 after a message.
 */
static int state_apply(const char *dir, const unsigned int *ids,
		       const bool *on, size_t n)
{
	char *buf = malloc(RA_CONTROL_MAX);
	size_t i, j, len = 0;
	int w, ret = 0;

	if (!buf) {
		ra_err("out of memory");
		return -1;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && on[j] == on[i] &&
		     ids[j] == ids[j - 1] + 1; j++)
			;
		if (len + 40 > RA_CONTROL_MAX) {
			if (ra_control_write(dir, buf, len))
				ret = -1;
			len = 0;
		}
		w = snprintf(buf + len, RA_CONTROL_MAX - len, "id %u-%u =%c\n",
			     ids[i], ids[j - 1], on[i] ? 'p' : '_');
		len += w;
	}
	if (len && ra_control_write(dir, buf, len))
		ret = -1;
	free(buf);
	return ret;
}

int ra_parse_uint(const char *s, unsigned int *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
		if (x > UINT_MAX)
			return -1;
	}
	*v = x;
	return 0;
}

/* A decimal id of the state file: 1 to UINT_MAX. 0 or -1. */
static int state_id(const char *s, unsigned int *v)
{
	return ra_parse_uint(s, v) || !*v ? -1 : 0;
}

/*
 * Whether the state file's header (after the boot id) is for the
 * control directory @dir: its "dir=" says so; a file without one (an
 * older klog's) is for any directory that has a control file.
 */
static bool state_for_dir(const char *rest, const char *dir)
{
	const char *d = strstr(rest, " dir=");
	char path[PATH_MAX];

	if (d)
		return !strcmp(d + 5, dir);
	return !ra_ctl_path(path, sizeof(path), dir, "control") &&
	       !access(path, F_OK);
}

int ra_sites_restore(const char *dir, bool killed, bool quiet)
{
	const char *path = ra_sites_state_path();
	unsigned int *ids = NULL, lineno = 1;
	char boot[64], *text = NULL, *line, *next, *tab;
	size_t n = 0, cap = 0, len;
	bool *on = NULL;
	struct stat st;
	int fd, ret = -1;
	void *grown;

	fd = open_regular(path, &st, true);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		ra_err("%s: not a file of this user writable only by it; not used: remove it",
		       path);
		close(fd);
		return -1;
	}
	text = read_fd(fd, &st, path, RA_STATE_MAX, &len);
	close(fd);
	if (!text)
		return -1;
	if (strlen(text) != len) {
		ra_err("%s: a NUL byte; not used: remove it", path);
		goto out;
	}
	ra_boot_id(boot, sizeof(boot));
	line = text;
	next = strchr(line, '\n');
	if (strncmp(line, RA_SITES_STATE_HDR, strlen(RA_SITES_STATE_HDR)) ||
	    !next) {
		ra_err("%s:1: not a klog site state file; not used: remove it",
		       path);
		goto out;
	}
	*next = '\0';
	line += strlen(RA_SITES_STATE_HDR);
	if (strncmp(line, boot, strlen(boot)) || line[strlen(boot)] != ' ') {
		ra_err("%s: saved in another boot: its site ids mean nothing now; removed unused",
		       path);
		ret = ra_out_unlink(path) ? -1 : 0;
		goto out;
	}
	if (!state_for_dir(line + strlen(boot), dir)) {
		ret = 0;	/* another channel's: not ours to put back */
		goto out;
	}
	for (line = next + 1; *line; line = next + 1) {
		lineno++;
		next = strchr(line, '\n');
		if (!next) {
			ra_err("%s:%u: the last line has no newline; not used: remove it",
			       path, lineno);
			goto out;
		}
		*next = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(ids, cap * sizeof(*ids));
			if (grown)
				ids = grown;
			grown = grown ? realloc(on, cap * sizeof(*on)) : NULL;
			if (!grown) {
				ra_err("out of memory");
				goto out;
			}
			on = grown;
		}
		if (!tab || state_id(line, &ids[n]) ||
		    (tab[1] != 'p' && tab[1] != '_') || tab[2] ||
		    (n && ids[n] <= ids[n - 1])) {
			ra_err("%s:%u: not \"ID<TAB>p\" or \"ID<TAB>_\" with ids increasing; not used: remove it",
			       path, lineno);
			goto out;
		}
		on[n++] = tab[1] == 'p';
	}
	if (state_apply(dir, ids, on, n))
		goto out;
	if (ra_out_unlink(path)) {
		ra_err("%s: unlink: %s", path, strerror(errno));
		goto out;
	}
	if (killed)
		ra_err("%s: a killed collector's saved call-site state: put back (%zu sites)",
		       path, n);
	else if (!quiet)
		ra_err("call-site state put back (%zu sites)", n);
	ret = 0;
out:
	free(text);
	free(ids);
	free(on);
	return ret;
}
