// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod: the files in /sys/kernel/debug/reserve/
 *
 * The relay files (cpuN, cpuN.produced, cpuN.consumed) are relay's own
 * (relay_debugfs_create_files(), relay_subbuf_file_operations); cpuN's
 * read() returns complete sub-buffers only, by their commit counts
 * (reserve_subbuf_used()). The control files and stats are created at
 * module init, from one table (kernel/klog_relay_ctl.h); every control-file
 * write is checked in full before anything changes.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/relay.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "../../../kernel/klog_relay_ctl.h"
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

/* The main channel's buffer for @cpu, or NULL. */
static struct rchan_buf *reserve_buf(unsigned int cpu)
{
	return reserve_main.rchan ? *per_cpu_ptr(reserve_main.rchan->buf, cpu) :
				    NULL;
}

static void enabled_show(struct seq_file *m)
{
	guard(mutex)(&reserve_ctl_lock);
	seq_printf(m, "%d\n", reserve_enabled);
}

static int enabled_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&reserve_ctl_lock);
	return reserve_set_enabled(on);
}

static void create_show(struct seq_file *m)
{
	guard(mutex)(&reserve_ctl_lock);
	seq_printf(m, "%d\n", !!reserve_main.rchan);
}

static int create_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&reserve_ctl_lock);
	if (reserve_enabled)
		return -EBUSY;
	if (on)
		return reserve_create();
	reserve_destroy();
	return 0;
}

/*
 * New sizes for the next create, 0 for one that stays: -EBUSY while a
 * channel exists, -ENOMEM if the buffers would be too large.
 */
static int reserve_configure(size_t subbuf_size, size_t n_subbufs)
{
	struct reserve_config cfg;
	int ret;

	guard(mutex)(&reserve_ctl_lock);
	if (reserve_main.rchan)
		return -EBUSY;
	cfg = reserve_next_cfg;
	cfg.subbuf_size = subbuf_size ?: cfg.subbuf_size;
	cfg.n_subbufs = n_subbufs ?: cfg.n_subbufs;
	if ((u64)cfg.subbuf_size * cfg.n_subbufs > RESERVE_BUF_MAX)
		return -ENOMEM;
	ret = relay_check_size(cfg.subbuf_size, cfg.n_subbufs,
			       num_possible_cpus());
	if (ret)
		return ret;
	reserve_next_cfg = cfg;
	return 0;
}

static void subbuf_size_show(struct seq_file *m)
{
	guard(mutex)(&reserve_ctl_lock);
	seq_printf(m, "%zu\n", reserve_next_cfg.subbuf_size);
}

static int subbuf_size_store(char *s)
{
	unsigned long val;

	if (kstrtoul(s, 0, &val) || val < RESERVE_SUBBUF_MIN ||
	    val > RESERVE_SUBBUF_MAX || !IS_ALIGNED(val, RESERVE_REC_ALIGN))
		return -EINVAL;
	return reserve_configure(val, 0);
}

static void n_subbufs_show(struct seq_file *m)
{
	guard(mutex)(&reserve_ctl_lock);
	seq_printf(m, "%zu\n", reserve_next_cfg.n_subbufs);
}

static int n_subbufs_store(char *s)
{
	unsigned long val;

	if (kstrtoul(s, 0, &val) || val < RESERVE_NSUBBUF_MIN ||
	    val > RESERVE_NSUBBUF_MAX)
		return -EINVAL;
	return reserve_configure(0, val);
}

/* "1" only, with a channel. */
static int flush_store(char *s)
{
	if (ctl_bool(s) != 1)
		return -EINVAL;
	guard(mutex)(&reserve_ctl_lock);
	if (!reserve_main.rchan)
		return -ENODEV;
	reserve_flush(&reserve_main);
	return 0;
}

static void dropped_show(struct seq_file *m)
{
	unsigned int cpu;
	u64 dropped = 0;

	guard(mutex)(&reserve_ctl_lock);
	for_each_possible_cpu(cpu) {
		struct reserve_cpu *st;

		if (!reserve_buf(cpu))
			continue;
		st = per_cpu_ptr(reserve_main.cpu, cpu);
		dropped += READ_ONCE(st->full) + READ_ONCE(st->big);
	}
	seq_printf(m, "%llu\n", dropped);
}

static void stats_show(struct seq_file *m)
{
	unsigned int cpu;

	guard(mutex)(&reserve_ctl_lock);
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
}

static const struct ctl_file reserve_ctl_files[] = {
	{ "enabled",	 0600, enabled_show,	 enabled_store },
	{ "create",	 0600, create_show,	 create_store },
	{ "subbuf_size", 0600, subbuf_size_show, subbuf_size_store },
	{ "n_subbufs",	 0600, n_subbufs_show,	 n_subbufs_store },
	{ "flush",	 0200, NULL,		 flush_store },
	{ "dropped",	 0400, dropped_show,	 NULL },
	{ "stats",	 0400, stats_show,	 NULL },
	{ "emit",	 0200, NULL,		 reserve_emit_store },
	{ "bench",	 0600, reserve_bench_show, reserve_bench_store },
};

void reserve_files_init(struct dentry *dir)
{
	ctl_files_create(dir, reserve_ctl_files, ARRAY_SIZE(reserve_ctl_files));
}
