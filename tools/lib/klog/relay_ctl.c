// SPDX-License-Identifier: GPL-2.0
/*
 * relay_ctl.c - the channel's control files, DIR/FILE in debugfs
 *
 * A control file is opened for each access (O_TRUNC on write, as a
 * shell redirection does) so that no file position is ever carried
 * between accesses: cpuN.produced is read again at offset 0 each time,
 * cpuN.consumed gets exactly one size_t per write. A failure is reported
 * as "PROG: DIR/FILE: write "1": REASON" and returned as -1, except for
 * the one errno a caller expects (ra_ctl_write_raw()'s @quiet_errno:
 * EBUSY when a setting is probed, ENODEV when a channel that may not
 * exist is disabled). ra_control_write() writes a batch of call-site
 * queries to ``control`` in one write(2), which the kernel applies
 * whole or not at all.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "relay_app_int.h"

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
