// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the files in /sys/kernel/debug/klog/
 *
 * The relay files (cpuN, cpuN.produced, cpuN.consumed) are relay's own
 * (relay_debugfs_create_files(), relay_subbuf_file_operations), created
 * by relay through the callbacks of klog_relay_chan.c; the control files
 * and stats are created at module init, from one table
 * (kernel/klog_relay_ctl.h). Every
 * control-file write is checked in full before anything changes: a bad
 * value is -EINVAL, a setting that only applies at channel creation is
 * -EBUSY while a channel exists, and so on (Documentation/trace/klog.rst
 * has the table).
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/relay.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "klog_relay_ctl.h"
#include "klog_relay_internal.h"

/*
 * The control files, their values and the errno of each refused write
 * are documented once, in Documentation/trace/klog.rst ("Control
 * files" of "The relay handler"): change it with them.
 */

static const char * const klog_relay_mode_names[] = {
	"no-overwrite", "overwrite"
};

/* The channel's buffer for @cpu: NULL if none, or @cpu != 0 when global. */
static struct rchan_buf *klog_relay_buf(unsigned int cpu)
{
	if (!klog_relay.chan || (klog_relay.cfg.global && cpu != 0))
		return NULL;
	return *per_cpu_ptr(klog_relay.chan->buf, cpu);
}

static void enabled_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%d\n", klog_relay.enabled);
}

static int enabled_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&klog_relay.ctl_lock);
	return klog_relay_set_enabled(on);
}

static void create_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%d\n", !!klog_relay.chan);
}

static int create_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&klog_relay.ctl_lock);
	if (klog_relay.enabled)
		return -EBUSY;
	if (on)
		return klog_relay_create();
	klog_relay_destroy();
	return 0;
}

/*
 * The settings for the next create, @cfg (a changed copy of
 * klog_relay.next_cfg, with klog_relay.ctl_lock held): -EBUSY while a
 * channel exists, -ENOMEM if the buffers would be too large.
 */
static int klog_relay_configure(const struct klog_relay_config *cfg)
{
	int ret;

	lockdep_assert_held(&klog_relay.ctl_lock);
	if (klog_relay.chan)
		return -EBUSY;
	if ((u64)cfg->subbuf_size * cfg->n_subbufs > KLOG_RELAY_BUF_MAX)
		return -ENOMEM;
	ret = relay_check_size(cfg->subbuf_size, cfg->n_subbufs,
			       cfg->global ? 1 : num_possible_cpus());
	if (ret)
		return ret;
	klog_relay.next_cfg = *cfg;
	return 0;
}

static void subbuf_size_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%zu\n", klog_relay.next_cfg.subbuf_size);
}

static int subbuf_size_store(char *s)
{
	struct klog_relay_config cfg;
	unsigned long val;

	/* Records are 8-byte aligned in the buffer, also for mmap. */
	if (kstrtoul(s, 0, &val) || val < KLOG_RELAY_SUBBUF_MIN ||
	    val > KLOG_RELAY_SUBBUF_MAX || val % KLOG_REC_ALIGN)
		return -EINVAL;
	guard(mutex)(&klog_relay.ctl_lock);
	cfg = klog_relay.next_cfg;
	cfg.subbuf_size = val;
	return klog_relay_configure(&cfg);
}

static void n_subbufs_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%zu\n", klog_relay.next_cfg.n_subbufs);
}

static int n_subbufs_store(char *s)
{
	struct klog_relay_config cfg;
	unsigned long val;

	if (kstrtoul(s, 0, &val) || val < KLOG_RELAY_NSUBBUF_MIN ||
	    val > KLOG_RELAY_NSUBBUF_MAX)
		return -EINVAL;
	guard(mutex)(&klog_relay.ctl_lock);
	cfg = klog_relay.next_cfg;
	cfg.n_subbufs = val;
	return klog_relay_configure(&cfg);
}

static void mode_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%s\n",
		   klog_relay_mode_names[klog_relay.next_cfg.overwrite]);
}

static int mode_store(char *s)
{
	int mode = sysfs_match_string(klog_relay_mode_names, s);
	struct klog_relay_config cfg;

	if (mode < 0)
		return -EINVAL;
	guard(mutex)(&klog_relay.ctl_lock);
	cfg = klog_relay.next_cfg;
	cfg.overwrite = mode;
	return klog_relay_configure(&cfg);
}

static void global_show(struct seq_file *m)
{
	guard(mutex)(&klog_relay.ctl_lock);
	seq_printf(m, "%d\n", klog_relay.next_cfg.global);
}

static int global_store(char *s)
{
	int on = ctl_bool(s);
	struct klog_relay_config cfg;

	if (on < 0)
		return on;
	guard(mutex)(&klog_relay.ctl_lock);
	cfg = klog_relay.next_cfg;
	cfg.global = on;
	return klog_relay_configure(&cfg);
}

/* flush, snapshot, reset: "1" only, with a channel; ctl_lock held. */
static int klog_relay_ctl_action(const char *s)
{
	lockdep_assert_held(&klog_relay.ctl_lock);
	if (ctl_bool(s) != 1)
		return -EINVAL;
	return klog_relay.chan ? 0 : -ENODEV;
}

static int flush_store(char *s)
{
	int ret;

	guard(mutex)(&klog_relay.ctl_lock);
	ret = klog_relay_ctl_action(s);
	if (!ret)
		klog_relay_flush(false);
	return ret;
}

static void snapshot_show(struct seq_file *m)
{
	unsigned int cpu;

	guard(mutex)(&klog_relay.ctl_lock);
	for_each_possible_cpu(cpu)
		if (klog_relay_buf(cpu))
			seq_printf(m, "cpu%u %zu %llu\n", cpu,
				   klog_relay_buf_state(cpu)->snap_pos,
				   klog_relay_buf_state(cpu)->snap_ts);
}

static int snapshot_store(char *s)
{
	int ret;

	guard(mutex)(&klog_relay.ctl_lock);
	ret = klog_relay_ctl_action(s);
	if (!ret)
		klog_relay_flush(true);
	return ret;
}

static int reset_store(char *s)
{
	int ret;

	guard(mutex)(&klog_relay.ctl_lock);
	ret = klog_relay_ctl_action(s);
	return ret ?: klog_relay_reset();
}

static void frozen_show(struct seq_file *m)
{
	seq_printf(m, "%d\n", klog_relay_frozen());
}

static int frozen_store(char *s)
{
	int on = ctl_bool(s);

	if (on < 0)
		return on;
	guard(mutex)(&klog_relay.ctl_lock);
	klog_relay_freeze(on);
	return 0;
}

static void dropped_show(struct seq_file *m)
{
	unsigned int cpu;
	u64 dropped = 0;

	guard(mutex)(&klog_relay.ctl_lock);
	for_each_possible_cpu(cpu)
		if (klog_relay_buf(cpu))
			dropped += klog_relay_all_drops(cpu);
	seq_printf(m, "%llu\n", dropped);
}

static void stats_show(struct seq_file *m)
{
	char line[256];
	unsigned int cpu;

	guard(mutex)(&klog_relay.ctl_lock);
	for_each_possible_cpu(cpu) {
		if (!klog_relay_buf(cpu))
			continue;
		klog_relay_stats_line(cpu, klog_relay_buf(cpu), line,
				      sizeof(line));
		seq_printf(m, "%s\n", line);
	}
}

static void trigger_show(struct seq_file *m)
{
	struct klog_relay_trigger_info info;

	guard(mutex)(&klog_relay.ctl_lock);
	if (klog_relay_last_trigger_info(&info))
		seq_printf(m, "cpu=%u ts=%llu reason=%s\n", info.cpu,
			   info.ts_ns, info.reason);
}

static void clock_show(struct seq_file *m)
{
	unsigned long flags;
	u64 before, real, after;

	local_irq_save(flags);
	before = local_clock();
	real = ktime_get_real_ns();
	after = local_clock();
	local_irq_restore(flags);
	seq_printf(m, "local_clock=%llu realtime=%llu\n",
		   before + (after - before) / 2, real);
}

/* The control files (klog.rst's table documents them). */
static const struct ctl_file klog_relay_ctl_files[] = {
	{ "enabled",	 0600, enabled_show,	 enabled_store },
	{ "create",	 0600, create_show,	 create_store },
	{ "subbuf_size", 0600, subbuf_size_show, subbuf_size_store },
	{ "n_subbufs",	 0600, n_subbufs_show,	 n_subbufs_store },
	{ "mode",	 0600, mode_show,	 mode_store },
	{ "global",	 0600, global_show,	 global_store },
	{ "flush",	 0200, NULL,		 flush_store },
	{ "snapshot",	 0600, snapshot_show,	 snapshot_store },
	{ "frozen",	 0600, frozen_show,	 frozen_store },
	{ "reset",	 0200, NULL,		 reset_store },
	{ "dropped",	 0400, dropped_show,	 NULL },
	{ "stats",	 0400, stats_show,	 NULL },
	{ "trigger",	 0400, trigger_show,	 NULL },
	{ "clock",	 0400, clock_show,	 NULL },
	{ "dump_on_oops", 0600, klog_relay_dump_show, klog_relay_dump_store },
};

int klog_relay_files_init(struct dentry *dir)
{
	ctl_files_create(dir, klog_relay_ctl_files,
			 ARRAY_SIZE(klog_relay_ctl_files));
	return 0;
}

/* The directory is the core's: remove only the control files. */
void klog_relay_files_exit(struct dentry *dir)
{
	ctl_files_remove(dir, klog_relay_ctl_files,
			 ARRAY_SIZE(klog_relay_ctl_files));
}
