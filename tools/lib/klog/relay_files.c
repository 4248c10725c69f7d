// SPDX-License-Identifier: GPL-2.0
/*
 * relay_files.c - the files a collection writes and a report reads
 *
 * The collector runs as root on data that shows kernel addresses, often
 * in a shared directory such as /tmp. A directory it writes into is
 * checked once (ra_out_dir(): the caller's, writable by no one else) and
 * held open from then on, and so is a directory a report reads
 * (ra_in_dir()); its files are then reached through that descriptor
 * (see "Directories held open" below). No file is opened through a
 * symbolic link, and only regular files are read or written: a FIFO
 * planted as cpu0 must not hang a report, nor /dev/zero fill the memory.
 * ra_list_cpus() lists the cpuN files of the channel's directory and of
 * a collection alike.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relay_app_int.h"

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

int ra_out_claim(int fd, const char *path, const struct stat *st, int trunc)
{
	/* what is written must stay this user's: no file of another's */
	if (st->st_uid != geteuid() || st->st_nlink > 1) {
		if (st->st_nlink > 1)
			ra_err("%s: has other hard links: not written; remove it",
			       path);
		else
			ra_err("%s: owned by uid %u, not by this user: not written; remove it or write elsewhere",
			       path, (unsigned int)st->st_uid);
		errno = EPERM;
		return -1;
	}
	if ((trunc && ftruncate(fd, 0)) ||
	    ((st->st_mode & 077) && fchmod(fd, 0600))) {
		int err = errno;

		ra_err("%s: %s", path, strerror(err));
		errno = err;
		return -1;
	}
	return 0;
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
	if (ra_out_claim(fd, path, &st, flags & O_TRUNC)) {
		err = errno;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
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

int ra_write_close(int fd, const char *path, const void *data, size_t len)
{
	int ret = 0;

	if (ra_write_full(fd, data, len)) {
		ra_err("%s: write: %s", path, strerror(errno));
		ret = -1;
	}
	if (close(fd) && !ret) {
		ra_err("%s: close: %s", path, strerror(errno));
		ret = -1;
	}
	return ret;
}

/*
 * Open @path to read it whole: never through a symbolic link, never
 * waiting (O_NONBLOCK: a FIFO planted as cpu0 or kallsyms must not hang
 * a report), a regular file only (not /dev/zero). @missing_ok: a file
 * that does not exist is no error (-1, errno ENOENT, no message).
 * Return: the descriptor with *st, or -1 after a message.
 */
int ra_open_regular(const char *path, struct stat *st, bool missing_ok)
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
	int fd = ra_open_regular(path, &st, false);

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

/* All of @fd (@st from ra_open_regular()) as ra_read_file() reads it. */
char *ra_read_fd(int fd, const struct stat *st, const char *path,
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
					ra_err("%s: larger than %zu bytes (the most klog reads)",
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
	int fd = ra_open_regular(path, &st, missing_ok);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = ra_read_fd(fd, &st, path, max, len);
	close(fd);
	return buf;
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
