// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the files in /sys/kernel/debug/klog/
 *
 * The relay files (cpuN, cpuN.produced, cpuN.consumed) are relay's own
 * (relay_debugfs_create_files(), relay_subbuf_file_operations), created
 * by relay through the callbacks here; the control files and stats at
 * module init. Every control-file write is checked in full
 * before anything changes: a bad value is -EINVAL, a setting that only
 * applies at channel creation is -EBUSY while a channel exists, and so on
 * (see the table in klog-mod-main.c).
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
#include "klog-mod.h"

/*
 * The part of a finished sub-buffer that read(2) of cpuN returns
 * (relay_subbuf_file_operations): its records, which end where its
 * padding starts. klog_finish_subbuf() stored the padding before relay
 * counted the sub-buffer produced. The header is in the mapped buffer:
 * clamp what it says to the sub-buffer. In overwrite mode the writer
 * reuses sub-buffers nobody consumed: read(2) is refused, use mmap and
 * snapshots. Partially filled sub-buffers reach readers through flush.
 */
static long klog_subbuf_used(struct rchan_buf *buf, void *subbuf)
{
	size_t size = buf->chan->subbuf_size;
	size_t padding;

	if (klog_cfg.overwrite)
		return -EOPNOTSUPP;
	padding = READ_ONCE(subbuf_hdr(subbuf)->padding);
	return size - min(padding, size - sizeof(struct klog_subbuf_hdr));
}

/* cpuN, cpuN.produced, cpuN.consumed (relay_debugfs_create_files()). */
static struct dentry *klog_create_buf_file(const char *filename,
					   struct dentry *parent, umode_t mode,
					   struct rchan_buf *buf, int *is_global)
{
	*is_global = klog_cfg.global;
	return relay_debugfs_create_files(filename, parent, mode, buf,
					  &relay_subbuf_file_operations);
}

const struct rchan_callbacks klog_relay_callbacks = {
	.subbuf_start		= klog_subbuf_start,
	.create_buf_file	= klog_create_buf_file,
	.remove_buf_file	= relay_debugfs_remove_files,
	.subbuf_used		= klog_subbuf_used,
};

/* ---- control files ----------------------------------------------------- */

enum klog_ctl {
	CTL_ENABLED,
	CTL_CREATE,
	CTL_SUBBUF_SIZE,
	CTL_N_SUBBUFS,
	CTL_MODE,
	CTL_GLOBAL,
	CTL_FLUSH,
	CTL_SNAPSHOT,
	CTL_FROZEN,
	CTL_RESET,
	CTL_DROPPED,
};

static const char * const klog_mode_names[] = { "no-overwrite", "overwrite" };

/* The channel's buffer for @cpu: NULL if none, or @cpu != 0 when global. */
static struct rchan_buf *klog_buf(unsigned int cpu)
{
	if (!klog_chan || (klog_cfg.global && cpu != 0))
		return NULL;
	return *per_cpu_ptr(klog_chan->buf, cpu);
}

/*
 * Records the klog core refused on @cpu for nesting too deep while this
 * channel was enabled (offered records); klog_ctl_lock held.
 */
static u64 klog_nest_drops_cpu(unsigned int cpu)
{
	const struct klog_state *st = per_cpu_ptr(&klog_state, cpu);

	lockdep_assert_held(&klog_ctl_lock);
	if (!klog_relay_enabled)
		return st->nest;
	return st->nest + klog_nest_dropped(cpu) - st->nest_base;
}

static u64 klog_nest_drops(unsigned int buf_cpu)
{
	unsigned int cpu;
	u64 n = 0;

	if (!klog_cfg.global)
		return klog_nest_drops_cpu(buf_cpu);
	for_each_possible_cpu(cpu)
		n += klog_nest_drops_cpu(cpu);
	return n;
}

/* NMI drops, per calling CPU: all of them when global. */
static u64 klog_nmi_drops(unsigned int buf_cpu)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		if (klog_cfg.global || cpu == buf_cpu)
			n += READ_ONCE(per_cpu_ptr(&klog_state, cpu)->nmi);
	return n;
}

/* Reentered drops, per calling CPU: all of them when global. */
static u64 klog_reentered_drops(unsigned int buf_cpu)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		if (klog_cfg.global || cpu == buf_cpu)
			n += READ_ONCE(per_cpu_ptr(&klog_state, cpu)->reentered);
	return n;
}

/* Every drop accounted to buffer @buf_cpu, numbered or not yet. */
static u64 klog_all_drops(unsigned int buf_cpu)
{
	const struct klog_state *st = klog_buf_state(buf_cpu);

	return READ_ONCE(st->full) + READ_ONCE(st->big) +
	       READ_ONCE(st->frozen) + klog_nmi_drops(buf_cpu) +
	       klog_reentered_drops(buf_cpu) + klog_nest_drops(buf_cpu);
}

static void ctl_show(struct seq_file *m, enum klog_ctl ctl)
{
	unsigned int cpu;
	u64 dropped = 0;

	switch (ctl) {
	case CTL_ENABLED:
		seq_printf(m, "%d\n", klog_relay_enabled);
		break;
	case CTL_CREATE:
		seq_printf(m, "%d\n", !!klog_chan);
		break;
	case CTL_SUBBUF_SIZE:
		seq_printf(m, "%zu\n", klog_next_cfg.subbuf_size);
		break;
	case CTL_N_SUBBUFS:
		seq_printf(m, "%zu\n", klog_next_cfg.n_subbufs);
		break;
	case CTL_MODE:
		seq_printf(m, "%s\n", klog_mode_names[klog_next_cfg.overwrite]);
		break;
	case CTL_GLOBAL:
		seq_printf(m, "%d\n", klog_next_cfg.global);
		break;
	case CTL_FROZEN:
		seq_printf(m, "%d\n", klog_is_frozen());
		break;
	case CTL_SNAPSHOT:
		for_each_possible_cpu(cpu)
			if (klog_buf(cpu))
				seq_printf(m, "cpu%u %zu %llu\n", cpu,
					   klog_buf_state(cpu)->snap_pos,
					   klog_buf_state(cpu)->snap_ts);
		break;
	case CTL_DROPPED:
		for_each_possible_cpu(cpu)
			if (klog_buf(cpu))
				dropped += klog_all_drops(cpu);
		seq_printf(m, "%llu\n", dropped);
		break;
	default:	/* flush, reset: write-only */
		break;
	}
}

static int ctl_show_locked(struct seq_file *m, void *v)
{
	mutex_lock(&klog_ctl_lock);
	ctl_show(m, (uintptr_t)m->private);
	mutex_unlock(&klog_ctl_lock);
	return 0;
}

/* Settings that take effect at the next create. */
static int ctl_write_config(enum klog_ctl ctl, const char *s)
{
	struct klog_config cfg = klog_next_cfg;
	unsigned long val = 0;
	int ret;

	switch (ctl) {
	case CTL_SUBBUF_SIZE:
		/* Records are 8-byte aligned in the buffer, also for mmap. */
		if (kstrtoul(s, 0, &val) || val < KLOG_SUBBUF_MIN ||
		    val > KLOG_SUBBUF_MAX || val % KLOG_REC_ALIGN)
			return -EINVAL;
		cfg.subbuf_size = val;
		break;
	case CTL_N_SUBBUFS:
		if (kstrtoul(s, 0, &val) || val < KLOG_NSUBBUF_MIN ||
		    val > KLOG_NSUBBUF_MAX)
			return -EINVAL;
		cfg.n_subbufs = val;
		break;
	case CTL_MODE:
		ret = sysfs_match_string(klog_mode_names, s);
		if (ret < 0)
			return -EINVAL;
		cfg.overwrite = ret;
		break;
	default:
		ret = relay_files_ctl_bool(s);
		if (ret < 0)
			return ret;
		cfg.global = ret;
	}
	if (klog_chan)
		return -EBUSY;
	if ((u64)cfg.subbuf_size * cfg.n_subbufs > KLOG_BUF_MAX)
		return -ENOMEM;
	ret = relay_check_size(cfg.subbuf_size, cfg.n_subbufs,
			       cfg.global ? 1 : num_possible_cpus());
	if (ret)
		return ret;
	klog_next_cfg = cfg;
	return 0;
}

static int ctl_write_locked(enum klog_ctl ctl, const char *s)
{
	int on;

	if (ctl == CTL_DROPPED)
		return -EPERM;
	if (ctl == CTL_SUBBUF_SIZE || ctl == CTL_N_SUBBUFS ||
	    ctl == CTL_MODE || ctl == CTL_GLOBAL)
		return ctl_write_config(ctl, s);

	on = relay_files_ctl_bool(s);
	if (on < 0)
		return on;
	switch (ctl) {
	case CTL_ENABLED:
		return klog_set_enabled(on);
	case CTL_CREATE:
		if (klog_relay_enabled)
			return -EBUSY;
		if (on)
			return klog_create();
		klog_destroy();
		return 0;
	case CTL_FROZEN:
		klog_freeze(on);
		return 0;
	default:	/* flush, snapshot, reset: "1" only */
		if (!on)
			return -EINVAL;
		if (!klog_chan)
			return -ENODEV;
		if (ctl == CTL_RESET)
			return klog_reset();
		klog_flush(ctl == CTL_SNAPSHOT);
		return 0;
	}
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	enum klog_ctl ctl = (uintptr_t)file_inode(file)->i_private;
	char tmp[32];
	int ret;

	ret = relay_files_ctl_copy(tmp, sizeof(tmp), ubuf, count, ppos);
	if (ret)
		return ret;

	mutex_lock(&klog_ctl_lock);
	ret = ctl_write_locked(ctl, tmp);
	mutex_unlock(&klog_ctl_lock);
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

	mutex_lock(&klog_ctl_lock);
	for_each_possible_cpu(cpu) {
		struct klog_state *st = klog_buf_state(cpu);
		struct rchan_buf *buf = klog_buf(cpu);

		if (!buf)
			continue;
		seq_printf(m, "cpu%u produced=%zu consumed=%zu records=%llu full=%llu big=%llu nmi=%llu nest=%llu max_backlog=%zu frozen=%llu reentered=%llu\n",
			   cpu, READ_ONCE(buf->subbufs_produced),
			   READ_ONCE(buf->subbufs_consumed),
			   READ_ONCE(st->written), READ_ONCE(st->full),
			   READ_ONCE(st->big), klog_nmi_drops(cpu),
			   klog_nest_drops(cpu), READ_ONCE(st->max_backlog),
			   READ_ONCE(st->frozen), klog_reentered_drops(cpu));
	}
	mutex_unlock(&klog_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int trigger_show(struct seq_file *m, void *v)
{
	struct klog_trigger_info info;

	mutex_lock(&klog_ctl_lock);
	if (klog_trigger_info(&info))
		seq_printf(m, "cpu=%u ts=%llu reason=%s\n", info.cpu,
			   info.ts_ns, info.reason);
	mutex_unlock(&klog_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trigger);

static const struct {
	const char	*name;
	umode_t		mode;
	enum klog_ctl	ctl;
} klog_ctl_files[] = {
	{ "enabled",	 0600, CTL_ENABLED },
	{ "create",	 0600, CTL_CREATE },
	{ "subbuf_size", 0600, CTL_SUBBUF_SIZE },
	{ "n_subbufs",	 0600, CTL_N_SUBBUFS },
	{ "mode",	 0600, CTL_MODE },
	{ "global",	 0600, CTL_GLOBAL },
	{ "flush",	 0200, CTL_FLUSH },
	{ "snapshot",	 0600, CTL_SNAPSHOT },
	{ "frozen",	 0600, CTL_FROZEN },
	{ "reset",	 0200, CTL_RESET },
	{ "dropped",	 0400, CTL_DROPPED },
};

int klog_files_init(struct dentry *dir)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(klog_ctl_files); i++)
		debugfs_create_file(klog_ctl_files[i].name,
				    klog_ctl_files[i].mode, dir,
				    (void *)(uintptr_t)klog_ctl_files[i].ctl,
				    &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("trigger", 0400, dir, NULL, &trigger_fops);
	return 0;
}
