// SPDX-License-Identifier: GPL-2.0
/*
 * klog-sample-mod - the kernel half of the relay-apps "klog" pair
 *
 * What it teaches: the smallest klog handler that streams records to
 * user space through relay. Its ->write() turns each record into one
 * line of text (klog_printk()'s arguments formatted by
 * klog_record_format(), klog_raw()'s bytes in hex) and relay_write()s
 * the line into this CPU's buffer of a relay channel,
 * /sys/kernel/debug/klog-sample/cpuN. What it cannot write it counts
 * in "dropped": a line that finds the buffer full, and records from
 * NMI context (relay_write() is not NMI-safe). klog-sample, beside
 * it, reads the lines with read(2).
 *
 * A handler runs in the context of the klog call, with preemption
 * disabled: it must not sleep, printk or take a lock that is not raw
 * (relay_write() only disables interrupts; see "Writing a handler" in
 * Documentation/trace/klog.rst). The line is built in a buffer of this
 * CPU, one per context: a softirq or hard interrupt that logs while a
 * line is being built on this CPU uses another one.
 *
 * Files: enabled (1 registers the handler, EBUSY if a reader already
 * did; 0 unregisters it, which waits until no CPU is in it, and flushes
 * the channel), dropped, and
 * relay's cpuN, whose read(2) returns finished sub-buffers
 * (relay_subbuf_file_operations). The parameters subbuf_size and
 * n_subbufs size the channel.
 *
 * The real thing is klog-mod (kernel/klog_relay*.c): binary records,
 * loss counted by cause and shown in the stream, NMI records, a flight
 * recorder; its collector is tools/klog.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/sizes.h>

static unsigned int subbuf_size = SZ_256K;
module_param(subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size, "sub-buffer size, 4 KiB to 1 MiB (default 256 KiB)");
static unsigned int n_subbufs = 4;
module_param(n_subbufs, uint, 0444);
MODULE_PARM_DESC(n_subbufs, "sub-buffers per CPU, 2 to 1024 (default 4)");

#define LINE_SIZE	(KLOG_TEXT_MAX + 128)

/* A line being built, per CPU, for each context but NMI. */
struct lines {
	char	ctx[KLOG_CTX_HARDIRQ + 1][LINE_SIZE];
};

static struct lines __percpu *lines;
static struct rchan *chan;
static struct dentry *dir;
static atomic_long_t dropped;
static bool enabled;
static DEFINE_MUTEX(enabled_lock);

static const char * const ctx_names[] = { "task", "softirq", "hardirq" };

/* @rec as one line of text ending in a newline; returns its length. */
static int format_line(const struct klog_record *rec, char *line)
{
	const int size = LINE_SIZE - 1;		/* room for the newline */
	u64 sec = rec->ts_ns;
	u32 nsec = do_div(sec, NSEC_PER_SEC);
	const u8 *p = rec->payload;
	int n, len;
	u32 i;

	n = scnprintf(line, size, "[%llu.%09u] cpu%u %d %s %s:%u: ", sec, nsec,
		      rec->cpu, rec->pid, ctx_names[rec->ctx], rec->site->func,
		      rec->site->line);
	if (rec->kind == KLOG_KIND_RAW) {
		n += scnprintf(line + n, size - n, "raw %u bytes:", rec->len);
		for (i = 0; i < rec->len && n + 3 < size; i++)
			n += scnprintf(line + n, size - n, " %02x", p[i]);
	} else {
		/* text, or binary arguments formatted with the site's format */
		len = klog_record_format(rec, line + n, size - n);
		if (len > 0)
			n += min(len, size - n - 1);
		if (line[n - 1] == '\n')
			n--;
	}
	line[n++] = '\n';
	return n;
}

static void sample_write(struct klog_handler *h, const struct klog_record *rec)
{
	char *line;

	if (rec->ctx > KLOG_CTX_HARDIRQ) {
		atomic_long_inc(&dropped);
		return;
	}
	line = this_cpu_ptr(lines)->ctx[rec->ctx];
	relay_write(chan, line, format_line(rec, line));
}

static struct klog_handler sample_handler = {
	.name	= "klog-sample",
	.write	= sample_write,
};

/*
 * relay calls this when a write needs a new sub-buffer (and at a flush).
 * No-overwrite mode: while the reader has not consumed any, refuse, and
 * the line is dropped. A flush is not a line: only count while enabled.
 */
static int sample_subbuf_start(struct rchan_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	if (!relay_buf_full(buf))
		return 1;
	if (READ_ONCE(enabled))
		atomic_long_inc(&dropped);
	return 0;
}

/* relay-apps boilerplate: the buffer files and their removal */
static struct dentry *sample_create_buf_file(const char *filename, struct dentry *parent,
					     umode_t mode, struct rchan_buf *buf, int *is_global)
{
	return debugfs_create_file(filename, mode, parent, buf,
				   &relay_subbuf_file_operations);
}

static int sample_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks sample_callbacks = {
	.subbuf_start		= sample_subbuf_start,
	.create_buf_file	= sample_create_buf_file,
	.remove_buf_file	= sample_remove_buf_file,
};

static int enabled_get(void *data, u64 *val)
{
	*val = READ_ONCE(enabled);
	return 0;
}

static int enabled_set(void *data, u64 val)
{
	int ret;

	if (val > 1)
		return -EINVAL;
	guard(mutex)(&enabled_lock);
	if (val == enabled)	/* two readers would each get some lines */
		return val ? -EBUSY : 0;
	if (val) {
		WRITE_ONCE(enabled, true);
		ret = register_klog_handler(&sample_handler);
		if (ret)
			WRITE_ONCE(enabled, false);
		return ret;
	}
	/* Returns once no CPU is in sample_write(): then flush. */
	unregister_klog_handler(&sample_handler);
	WRITE_ONCE(enabled, false);
	relay_flush(chan);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(enabled_fops, enabled_get, enabled_set, "%llu\n");

static int dropped_get(void *data, u64 *val)
{
	*val = atomic_long_read(&dropped);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dropped_fops, dropped_get, NULL, "%llu\n");

static int __init sample_init(void)
{
	int ret;

	if (subbuf_size < SZ_4K || subbuf_size > SZ_1M || n_subbufs < 2 ||
	    n_subbufs > 1024)
		return -EINVAL;
	ret = relay_check_size(subbuf_size, n_subbufs, num_possible_cpus());
	if (ret)
		return ret;
	lines = alloc_percpu(struct lines);
	if (!lines)
		return -ENOMEM;
	dir = debugfs_create_dir("klog-sample", NULL);
	chan = relay_open("cpu", dir, subbuf_size, n_subbufs,
			  &sample_callbacks, NULL);
	if (!chan) {
		debugfs_remove(dir);
		free_percpu(lines);
		return -ENOMEM;
	}
	debugfs_create_file_unsafe("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file_unsafe("dropped", 0400, dir, NULL, &dropped_fops);
	return 0;
}

static void __exit sample_exit(void)
{
	enabled_set(NULL, 0);
	relay_close(chan);
	debugfs_remove_recursive(dir);
	free_percpu(lines);
}

module_init(sample_init);
module_exit(sample_exit);
MODULE_DESCRIPTION("relay-apps klog: a klog handler that writes text lines into relay");
MODULE_LICENSE("GPL");
