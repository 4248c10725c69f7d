/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_relay_ctl.h - the debugfs control files of the klog sample modules
 *
 * klog-mod and reserve-mod each declare their control files as
 * one table of struct ctl_file and create them with ctl_files_create():
 *
 *	static const struct ctl_file my_files[] = {
 *		{ "enabled", 0600, enabled_show, enabled_store },
 *		{ "flush",   0200, NULL,         flush_store },
 *		{ "stats",   0400, stats_show,   NULL },
 *	};
 *	ctl_files_create(dir, my_files, ARRAY_SIZE(my_files));
 *
 * One file_operations serves them all. A read shows what ->show() prints
 * (nothing for a write-only file). A write must be one write(2) at offset
 * 0 (else -EINVAL) of fewer than CTL_FILE_MAX bytes (else -E2BIG); its
 * text, without leading and trailing whitespace (the newline of echo),
 * goes to ->store(), which checks it in full before it changes anything
 * and returns 0 or an errno. A read-only file refuses writes with -EPERM
 * (root may open a 0400 file for writing).
 *
 * ->show() and ->store() run in process context with no lock held; they
 * take the module's own lock. The table must outlive the files (static
 * const, removed with the module's directory, or by ctl_files_remove()).
 *
 * The functions are static, for the one file of a module that creates its
 * control files: a shared object in tools/lib/klog would be built once
 * per module directory into the same place.
 *
 * Copyright (C) 2026 The klog authors
 */
#ifndef CTL_MOD_H
#define CTL_MOD_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define CTL_FILE_MAX	256	/* a write this long or longer: -E2BIG */

/**
 * struct ctl_file - one control file of a module
 * @name: the file's name in the module's debugfs directory
 * @mode: its permissions: 0600, 0400 (no @store) or 0200 (no @show)
 * @show: prints the value for read(2); NULL for a write-only file
 * @store: takes a write(2): the trimmed text, NUL-terminated and at most
 *	CTL_FILE_MAX - 1 bytes, which it may modify; returns 0 or a negative
 *	errno, having changed nothing then. NULL for a read-only file.
 */
struct ctl_file {
	const char	*name;
	umode_t		mode;
	void		(*show)(struct seq_file *m);
	int		(*store)(char *val);
};

/**
 * ctl_bool() - a control value of exactly "0" or "1"
 * @s: the trimmed text of a write
 *
 * Return: 0 or 1; -EINVAL for anything else.
 */
static inline int ctl_bool(const char *s)
{
	/* not kstrtouint(): it takes "+1" and "01" too */
	if ((s[0] != '0' && s[0] != '1') || s[1])
		return -EINVAL;
	return s[0] - '0';
}

static int ctl_file_show(struct seq_file *m, void *v)
{
	const struct ctl_file *f = m->private;

	if (f->show)
		f->show(m);
	return 0;
}

static ssize_t ctl_file_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct ctl_file *f = file_inode(file)->i_private;
	char buf[CTL_FILE_MAX];
	int ret;

	if (!f->store)
		return -EPERM;
	if (*ppos != 0)
		return -EINVAL;
	if (count >= sizeof(buf))
		return -E2BIG;
	/* An empty write reaches ->store() as "", which it refuses or takes. */
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = f->store(strim(buf));
	return ret ?: count;
}

/* ctl_file_open() and ctl_file_fops, for seq_file reads and our write */
DEFINE_SHOW_STORE_ATTRIBUTE(ctl_file);

/**
 * ctl_files_create() - create a module's control files
 * @dir: the module's debugfs directory
 * @files: the table, static const
 * @n: its entries
 *
 * Like every debugfs_create_*(), a failure is not reported: the module
 * works without its files, and debugfs_remove_recursive() of @dir removes
 * whatever was created.
 *
 * Context: process.
 */
static inline void ctl_files_create(struct dentry *dir,
				    const struct ctl_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		debugfs_create_file(files[i].name, files[i].mode, dir,
				    (void *)&files[i], &ctl_file_fops);
}

/**
 * ctl_files_remove() - remove a module's control files from @dir
 * @dir: the directory they were created in
 * @files: the same table
 * @n: its entries
 *
 * For a module whose files live in a directory it does not own (klog-mod
 * in the klog core's); debugfs_remove() waits for readers and writers of
 * a file to leave it. A module that owns its directory removes it
 * recursively instead.
 *
 * Context: process.
 */
static inline void ctl_files_remove(struct dentry *dir,
				    const struct ctl_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		debugfs_lookup_and_remove(files[i].name, dir);
}

#endif /* CTL_MOD_H */
