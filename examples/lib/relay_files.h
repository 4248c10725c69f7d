/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_files.h - the debugfs files of a relay-apps kernel module
 *
 * Every relay-apps module (klog-mod, reserve-mod) gives each buffer of its
 * channel the same three files, created and removed by relay through the
 * create_buf_file/remove_buf_file callbacks:
 *
 *   cpuN            relay's own open/poll/mmap/release and a read() of
 *                   whole finished sub-buffers only (relay_files_read())
 *   cpuN.produced   sub-buffers produced (binary size_t, read-only)
 *   cpuN.consumed   read: sub-buffers consumed; write one size_t: that
 *                   many more consumed (relay_subbufs_consumed())
 *
 * This header holds them once, as static functions for the one file of a
 * module that creates its relay files; the module supplies only its
 * cpuN file_operations (for its read()) and, in its create_buf_file
 * callback, anything else it decides (such as *is_global):
 *
 *	static const struct file_operations my_buf_fops = {
 *		.owner		= THIS_MODULE,
 *		.open		= relay_files_open,
 *		.poll		= relay_files_poll,
 *		.mmap		= relay_files_mmap,
 *		.read		= my_buf_read,	(calls relay_files_read())
 *		.release	= relay_files_release,
 *	};
 *	.create_buf_file: return relay_files_create(filename, parent, buf,
 *						    &my_buf_fops);
 *	.remove_buf_file = relay_files_remove,
 *
 * The cpuN file is created with debugfs_create_file_unsafe(): debugfs'
 * full proxy has no ->mmap, which would make every mmap reader fail.
 *
 * relay_files_check_size() bounds the memory the next channel may take.
 *
 * Copyright (C) 2026 The klog authors
 */
#ifndef RELAY_FILES_H
#define RELAY_FILES_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/relay.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * relay_files_used_fn - bytes of data in a finished sub-buffer
 * Returns the bytes from the start of @subbuf that are data (its header
 * included, the padding not), or -EAGAIN if @subbuf is not ready to be
 * read yet: relay_files_read() then stops before it.
 */
typedef long (*relay_files_used_fn)(struct rchan_buf *buf, void *subbuf);

/*
 * read(2) of cpuN: whole finished sub-buffers only, each cut to what
 * @used_fn says, consumed as they are read. relay's own read() also returns
 * the sub-buffer being written, computing its extent from several fields
 * a writer on another CPU updates one by one (subbufs_produced, data,
 * offset, padding[]); seen mid-switch it returns bytes twice or skips
 * them. Finished sub-buffers do not change under the reader: in
 * no-overwrite mode the writer does not reuse them until they are
 * consumed, and the module stores what @used_fn needs before relay
 * counts them produced (which the acquire below pairs with).
 *
 * A read ends at a sub-buffer boundary: it takes a sub-buffer only if
 * all of its rest fits in @count, except the first one, which a buffer
 * smaller than a sub-buffer gets in pieces. So a reader that asks for
 * at least a sub-buffer's size each time leaves the file positioned
 * at a sub-buffer header whenever it stops, even if it is killed: the
 * next reader starts on a header, never inside a record. Returns the
 * bytes copied; 0 if nothing is ready.
 */
static inline ssize_t relay_files_read(struct file *filp, char __user *ubuf,
				       size_t count, relay_files_used_fn used_fn)
{
	struct rchan_buf *buf = filp->private_data;
	size_t size = buf->chan->subbuf_size;
	ssize_t done = 0;
	int ret = 0;

	inode_lock(file_inode(filp));
	while (count) {
		/*
		 * Acquire: pairs with the release of subbufs_produced in
		 * relay_switch_subbuf(). The sub-buffer's bytes and what
		 * @used_fn reads were stored before it.
		 */
		size_t produced = smp_load_acquire(&buf->subbufs_produced);
		size_t idx, used, chunk;
		void *subbuf;
		long n;

		if (buf->subbufs_consumed == produced)
			break;
		idx = buf->subbufs_consumed % buf->chan->n_subbufs;
		subbuf = buf->start + idx * size;
		n = used_fn(buf, subbuf);
		if (n < 0)
			break;
		used = n;
		if (done && used - buf->bytes_consumed > count)
			break;
		chunk = min(used - buf->bytes_consumed, count);
		if (copy_to_user(ubuf + done, subbuf + buf->bytes_consumed,
				 chunk)) {
			ret = -EFAULT;
			break;
		}
		done += chunk;
		count -= chunk;
		buf->bytes_consumed += chunk;
		if (buf->bytes_consumed == used) {
			buf->bytes_consumed = 0;
			relay_subbufs_consumed(buf->chan, buf->cpu, 1);
		}
	}
	inode_unlock(file_inode(filp));
	return done ?: ret;
}

/* relay's own methods for everything but read (they are static there). */
static inline int relay_files_open(struct inode *inode, struct file *filp)
{
	return relay_file_operations.open(inode, filp);
}

static inline __poll_t relay_files_poll(struct file *filp, poll_table *wait)
{
	return relay_file_operations.poll(filp, wait);
}

/*
 * Read-only mappings only. relay maps the buffer with whatever protection
 * is asked for, and root can open the 0400 file read-write: a writable
 * mapping would let user space rewrite the headers the module and its
 * read() trust. -EPERM for PROT_WRITE, and no mprotect() to it later.
 */
static inline int relay_files_mmap(struct file *filp,
				   struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE);
	return relay_file_operations.mmap(filp, vma);
}

static inline int relay_files_release(struct inode *inode, struct file *filp)
{
	return relay_file_operations.release(inode, filp);
}

static inline ssize_t relay_files_produced_read(struct file *file,
						char __user *ubuf,
						size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	/*
	 * Acquire: pairs with the release of subbufs_produced in
	 * relay_switch_subbuf(). A reader that sees sub-buffer N produced
	 * then sees what the module stored in it before relay counted it
	 * (its own loads after this read(2) are ordered after this load).
	 */
	size_t val = smp_load_acquire(&buf->subbufs_produced);

	return simple_read_from_buffer(ubuf, count, ppos, &val, sizeof(val));
}

static inline ssize_t relay_files_consumed_read(struct file *file,
						char __user *ubuf,
						size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	size_t val = READ_ONCE(buf->subbufs_consumed);

	return simple_read_from_buffer(ubuf, count, ppos, &val, sizeof(val));
}

static inline ssize_t relay_files_consumed_write(struct file *file,
						 const char __user *ubuf,
						 size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	size_t n;

	if (count != sizeof(n))
		return -EINVAL;
	if (copy_from_user(&n, ubuf, sizeof(n)))
		return -EFAULT;
	if (n > buf->chan->n_subbufs)
		return -EINVAL;
	relay_subbufs_consumed(buf->chan, buf->cpu, n);
	return count;
}

static const struct file_operations relay_files_produced_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= relay_files_produced_read,
	.llseek	= default_llseek,
};

static const struct file_operations relay_files_consumed_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= relay_files_consumed_read,
	.write	= relay_files_consumed_write,
	.llseek	= default_llseek,
};

/*
 * For the create_buf_file callback: cpuN.produced, cpuN.consumed and the
 * relay file cpuN itself, root-only. The companion files are found again
 * by name (relay_files_remove() gets only cpuN's dentry), not through
 * @buf. relay's own reference on @buf keeps it alive for as long as cpuN
 * is open, which is why the open-only proxy is enough.
 */
static inline struct dentry *relay_files_create(const char *filename,
						struct dentry *parent,
						struct rchan_buf *buf,
						const struct file_operations *fops)
{
	struct dentry *produced, *consumed, *file;
	char name[NAME_MAX];

	snprintf(name, sizeof(name), "%s.produced", filename);
	produced = debugfs_create_file(name, 0400, parent, buf,
				       &relay_files_produced_fops);
	snprintf(name, sizeof(name), "%s.consumed", filename);
	consumed = debugfs_create_file(name, 0600, parent, buf,
				       &relay_files_consumed_fops);
	file = debugfs_create_file_unsafe(filename, 0400, parent, buf, fops);
	if (IS_ERR(produced) || IS_ERR(consumed) || IS_ERR(file)) {
		/* relay fails the channel; leave nothing pointing at @buf. */
		debugfs_remove(produced);
		debugfs_remove(consumed);
		debugfs_remove(file);
		return NULL;
	}
	return file;
}

/* The remove_buf_file callback for files made by relay_files_create(). */
static inline int relay_files_remove(struct dentry *dentry)
{
	char name[NAME_MAX];

	/* A channel opened without a base name has no files. */
	if (!dentry)
		return 0;
	/* Waits for running reads and writes of these two files. */
	snprintf(name, sizeof(name), "%pd.produced", dentry);
	debugfs_lookup_and_remove(name, dentry->d_parent);
	snprintf(name, sizeof(name), "%pd.consumed", dentry);
	debugfs_lookup_and_remove(name, dentry->d_parent);
	debugfs_remove(dentry);
	return 0;
}

/*
 * May a channel of @nbufs buffers of @n_subbufs x @subbuf_size bytes be
 * created? -ENOMEM if one buffer would be larger than @buf_max, or all
 * of them together larger than a quarter of RAM; else 0.
 */
static inline int relay_files_check_size(size_t subbuf_size,
					 size_t n_subbufs, unsigned int nbufs,
					 u64 buf_max)
{
	u64 per_buf = (u64)subbuf_size * n_subbufs;

	if (per_buf > buf_max ||
	    per_buf * nbufs > ((u64)totalram_pages() << PAGE_SHIFT) / 4)
		return -ENOMEM;
	return 0;
}

#endif /* RELAY_FILES_H */
