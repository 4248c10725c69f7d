// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod: the files in /sys/kernel/debug/reserve/
 *
 * The relay files (cpuN, cpuN.produced, cpuN.consumed) are relay's own
 * (relay_debugfs_create_files(), relay_subbuf_file_operations); cpuN's
 * read() returns complete sub-buffers only, by their commit counts
 * (reserve_subbuf_used()). The control files and stats are created at
 * module init; every control-file write is checked in full before
 * anything changes (the table is in reserve-mod-main.c).
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "../lib/relay_files.h"
#include "reserve-mod.h"

/*
 * Bytes of data in finished sub-buffer @subbuf, or -EAGAIN while writers
 * still fill records in it: read(2) of cpuN (relay_subbuf_file_operations)
 * stops before it. relay calls this after an acquire load of
 * subbufs_produced, so the reserved count is final.
 */
static long reserve_subbuf_used(struct rchan_buf *buf, void *subbuf)
{
	struct reserve_chan *rc = buf->chan->private_data;
	struct reserve_cpu *st = per_cpu_ptr(rc->cpu, buf->cpu);
	struct reserve_subbuf_hdr *hdr = subbuf;
	u32 reserved = READ_ONCE(hdr->reserved);

	/* Pairs with the release in reserve_commit(). */
	if (atomic_read_acquire(reserve_committed(hdr)) != reserved) {
		/* each sub-buffer counted once, however often it is tried */
		if (st->incomplete_last != hdr->seq + 1) {
			st->incomplete_last = hdr->seq + 1;
			st->incomplete++;
		}
		return -EAGAIN;
	}
	/*
	 * The header is in the mapped buffer: never let what it says take
	 * the copy past the sub-buffer (mappings are read-only, but a bad
	 * count must not become a copy_to_user() of other memory).
	 */
	return sizeof(*hdr) + min_t(size_t, reserved,
				    buf->chan->subbuf_size - sizeof(*hdr));
}

static struct dentry *reserve_create_buf_file(const char *filename,
					      struct dentry *parent,
					      umode_t mode,
					      struct rchan_buf *buf,
					      int *is_global)
{
	/*
	 * A channel opened without a base name (the bench channel) has no
	 * files. relay still calls this, with no name, "only to retrieve
	 * global info", and fails the buffer if it gets NULL back; it keeps
	 * nothing of what it gets (buf->dentry stays NULL, and
	 * relay_debugfs_remove_files() is then given NULL). Any other
	 * pointer will do: the buffer's own.
	 */
	if (!filename)
		return (struct dentry *)buf;
	return relay_debugfs_create_files(filename, parent, mode, buf,
					  &relay_subbuf_file_operations);
}

const struct rchan_callbacks reserve_relay_callbacks = {
	.subbuf_start		= reserve_subbuf_start,
	.create_buf_file	= reserve_create_buf_file,
	.remove_buf_file	= relay_debugfs_remove_files,
	.subbuf_used		= reserve_subbuf_used,
};

/* ---- control files ----------------------------------------------------- */

enum reserve_ctl {
	CTL_ENABLED,
	CTL_CREATE,
	CTL_SUBBUF_SIZE,
	CTL_N_SUBBUFS,
	CTL_FLUSH,
	CTL_DROPPED,
};

/* The main channel's buffer for @cpu, or NULL. */
static struct rchan_buf *reserve_buf(unsigned int cpu)
{
	return reserve_main.rchan ? *per_cpu_ptr(reserve_main.rchan->buf, cpu) :
				    NULL;
}

static void ctl_show(struct seq_file *m, enum reserve_ctl ctl)
{
	unsigned int cpu;
	u64 dropped = 0;

	switch (ctl) {
	case CTL_ENABLED:
		seq_printf(m, "%d\n", reserve_enabled);
		break;
	case CTL_CREATE:
		seq_printf(m, "%d\n", !!reserve_main.rchan);
		break;
	case CTL_SUBBUF_SIZE:
		seq_printf(m, "%zu\n", reserve_next_cfg.subbuf_size);
		break;
	case CTL_N_SUBBUFS:
		seq_printf(m, "%zu\n", reserve_next_cfg.n_subbufs);
		break;
	case CTL_DROPPED:
		for_each_possible_cpu(cpu) {
			struct reserve_cpu *st;

			if (!reserve_buf(cpu))
				continue;
			st = per_cpu_ptr(reserve_main.cpu, cpu);
			dropped += READ_ONCE(st->full) + READ_ONCE(st->big);
		}
		seq_printf(m, "%llu\n", dropped);
		break;
	default:	/* flush: write-only */
		break;
	}
}

static int ctl_show_locked(struct seq_file *m, void *v)
{
	mutex_lock(&reserve_ctl_lock);
	ctl_show(m, (uintptr_t)m->private);
	mutex_unlock(&reserve_ctl_lock);
	return 0;
}

/* Sizes for the next create. */
static int ctl_write_size(enum reserve_ctl ctl, const char *s)
{
	struct reserve_config cfg = reserve_next_cfg;
	unsigned long val;
	int ret;

	if (kstrtoul(s, 0, &val))
		return -EINVAL;
	if (ctl == CTL_SUBBUF_SIZE) {
		if (val < RESERVE_SUBBUF_MIN || val > RESERVE_SUBBUF_MAX ||
		    !IS_ALIGNED(val, RESERVE_REC_ALIGN))
			return -EINVAL;
		cfg.subbuf_size = val;
	} else {
		if (val < RESERVE_NSUBBUF_MIN || val > RESERVE_NSUBBUF_MAX)
			return -EINVAL;
		cfg.n_subbufs = val;
	}
	if (reserve_main.rchan)
		return -EBUSY;
	if ((u64)cfg.subbuf_size * cfg.n_subbufs > RESERVE_BUF_MAX)
		return -ENOMEM;
	ret = relay_check_size(cfg.subbuf_size, cfg.n_subbufs,
			       num_possible_cpus());
	if (ret)
		return ret;
	reserve_next_cfg = cfg;
	return 0;
}

static int ctl_write_locked(enum reserve_ctl ctl, const char *s)
{
	int on;

	if (ctl == CTL_DROPPED)
		return -EPERM;
	if (ctl == CTL_SUBBUF_SIZE || ctl == CTL_N_SUBBUFS)
		return ctl_write_size(ctl, s);

	on = relay_files_ctl_bool(s);
	if (on < 0)
		return on;
	switch (ctl) {
	case CTL_ENABLED:
		return reserve_set_enabled(on);
	case CTL_CREATE:
		if (reserve_enabled)
			return -EBUSY;
		if (on)
			return reserve_create();
		reserve_destroy();
		return 0;
	default:	/* flush: "1" only */
		if (!on)
			return -EINVAL;
		if (!reserve_main.rchan)
			return -ENODEV;
		reserve_flush(&reserve_main);
		return 0;
	}
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	enum reserve_ctl ctl = (uintptr_t)file_inode(file)->i_private;
	char tmp[32];
	int ret;

	ret = relay_files_ctl_copy(tmp, sizeof(tmp), ubuf, count, ppos);
	if (ret)
		return ret;

	mutex_lock(&reserve_ctl_lock);
	ret = ctl_write_locked(ctl, tmp);
	mutex_unlock(&reserve_ctl_lock);
	return ret ?: count;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, ctl_show_locked, inode->i_private);
}

static const struct file_operations ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= ctl_open,
	.read		= seq_read,
	.write		= ctl_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	mutex_lock(&reserve_ctl_lock);
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = reserve_buf(cpu);
		struct reserve_cpu *st;

		if (!buf)
			continue;
		st = per_cpu_ptr(reserve_main.cpu, cpu);
		seq_printf(m, "cpu%u produced=%zu consumed=%zu offered=%llu records=%llu full=%llu big=%llu nested=%llu delayed=%llu incomplete=%llu max_backlog=%zu\n",
			   cpu, READ_ONCE(buf->subbufs_produced),
			   READ_ONCE(buf->subbufs_consumed),
			   READ_ONCE(st->seq), READ_ONCE(st->records),
			   READ_ONCE(st->full), READ_ONCE(st->big),
			   READ_ONCE(st->nested), READ_ONCE(st->delayed),
			   READ_ONCE(st->incomplete),
			   READ_ONCE(st->max_backlog));
	}
	mutex_unlock(&reserve_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static const struct {
	const char	*name;
	umode_t		mode;
	enum reserve_ctl ctl;
} reserve_ctl_files[] = {
	{ "enabled",	 0600, CTL_ENABLED },
	{ "create",	 0600, CTL_CREATE },
	{ "subbuf_size", 0600, CTL_SUBBUF_SIZE },
	{ "n_subbufs",	 0600, CTL_N_SUBBUFS },
	{ "flush",	 0200, CTL_FLUSH },
	{ "dropped",	 0400, CTL_DROPPED },
};

void reserve_files_init(struct dentry *dir)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(reserve_ctl_files); i++)
		debugfs_create_file(reserve_ctl_files[i].name,
				    reserve_ctl_files[i].mode, dir,
				    (void *)(uintptr_t)reserve_ctl_files[i].ctl,
				    &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
}
