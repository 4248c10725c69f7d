/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_files.h - how the sample modules take a control-file write
 *
 * klog-mod and reserve-mod take their control-file writes (enabled,
 * create, subbuf_size, ...) the same way: relay_files_ctl_copy() gets the
 * string, relay_files_ctl_bool() reads "0" or "1". Their relay files
 * (cpuN, cpuN.produced, cpuN.consumed) are relay's own:
 * relay_debugfs_create_files() and relay_subbuf_file_operations in
 * kernel/relay.c.
 *
 * Copyright (C) 2026 The klog authors
 */
#ifndef RELAY_FILES_H
#define RELAY_FILES_H

#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/*
 * A write(2) to a control file, as a string in @buf (@size bytes): it
 * must start at offset 0 and be shorter than @size; trailing whitespace
 * (the newline of echo) is removed. 0, -EINVAL or -EFAULT.
 */
static inline int relay_files_ctl_copy(char *buf, size_t size,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	if (*ppos != 0 || count == 0 || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	return 0;
}

/* A control value of exactly "0" or "1", as relay-apps clients write. */
static inline int relay_files_ctl_bool(const char *s)
{
	unsigned int v;

	if (kstrtouint(s, 10, &v) || v > 1)
		return -EINVAL;
	return v;
}

#endif /* RELAY_FILES_H */
