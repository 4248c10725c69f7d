/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_kfc.h - what the two selftests of klog_printk()'s binary arguments
 * (klog_format_test, klog_printk_args_test) share: the layout of
 * lib/test_klog_format.c's debugfs file "cases", and reading it whole.
 */
#ifndef KLOG_SELFTEST_KFC_H
#define KLOG_SELFTEST_KFC_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * lib/test_klog_format.c's debugfs file "cases": a __u32 magic, a __u32
 * count, then per case this header, the format, the argument block and
 * the kernel's text (vsnprintf()'s).
 */
#define KFC_MAGIC	0x3143464b
struct kfc_case_hdr {
	uint32_t	line;
	int32_t		ret;
	uint16_t	fmt_len;
	uint16_t	blk_len;
	uint16_t	text_len;
	uint16_t	zero;
};

/* The whole file at @path, malloc()ed (debugfs blobs are read in pieces). */
static inline unsigned char *read_whole_file(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		if (n == cap) {
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += r;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

#endif /* KLOG_SELFTEST_KFC_H */
