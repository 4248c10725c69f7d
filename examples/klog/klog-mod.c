// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: a klog handler that streams records through relay
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog relay handler overview
 *
 * The kernel half of the relay-apps "klog" pair. It registers with the
 * klog core and writes every record into a relay channel with one buffer
 * per CPU, in the format of <uapi/linux/klog_relay.h>. The user half,
 * the ``klog`` collector, reads the buffers and writes them to disk.
 *
 * Control files
 * -------------
 *
 * In /sys/kernel/debug/klog/, all root-only, as in relay-apps:
 *
 * ``subbuf_size``, ``n_subbufs`` (rw)
 *	Sizes for the next ``create``. -EBUSY while a channel exists,
 *	-EINVAL outside [KLOG_SUBBUF_MIN, KLOG_SUBBUF_MAX] and
 *	[KLOG_NSUBBUF_MIN, KLOG_NSUBBUF_MAX], -ENOMEM when a per-CPU buffer
 *	would exceed KLOG_BUF_MAX or a quarter of RAM across all CPUs.
 * ``create`` (rw bool)
 *	1 (re)creates the channel with the current sizes, 0 destroys it.
 *	-EBUSY while logging is enabled. If the allocation fails the error
 *	is returned and no channel exists.
 * ``enabled`` (rw bool)
 *	1 registers the klog handler (-ENODEV without a channel); 0
 *	unregisters it, which waits until no CPU is writing, then flushes.
 * ``flush`` (w)
 *	Finish every CPU's current sub-buffer so readers see it.
 * ``dropped`` (r)
 *	Records dropped on all CPUs, all causes.
 * ``stats`` (r)
 *	Per CPU: sub-buffers produced and consumed, records written, drops
 *	by cause, the largest backlog seen (produced - consumed).
 * ``cpuN``, ``cpuN.produced``, ``cpuN.consumed``
 *	The relay file of CPU N: read (finished sub-buffers without their
 *	padding, consumed as read; see klog_buf_read()), mmap (the whole
 *	buffer) and poll (readable when a sub-buffer is finished). Then the
 *	sub-buffers produced (binary size_t), and the sub-buffers consumed
 *	(read) or newly consumed by an mmap reader (write a size_t). One
 *	reader per CPU file, in one mode.
 *
 * The write path
 * --------------
 *
 * With interrupts disabled on the local CPU, the record is built in place
 * in the current sub-buffer: switch sub-buffer if it does not fit, fill
 * header, function name and payload, then advance the buffer's offset.
 * The offset moves only after the bytes are written, so a concurrent
 * read(2) never returns a half-written record; this is relay_write()
 * without the staging copy. Interrupts on this CPU cannot interleave;
 * NMIs could, so records from NMI context are not written: they are
 * counted (``nmi``) and appear as a gap in the per-CPU record sequence.
 *
 * Nothing is lost silently. Every record offered to a CPU's buffer takes
 * the next per-CPU sequence number; it is written or counted in exactly
 * one cause: ``full`` (no-overwrite mode, all sub-buffers unread),
 * ``big`` (larger than a sub-buffer's payload), ``nmi``. Records the klog
 * core refused for nesting too deep are reported as ``nest``. Each
 * sub-buffer header carries the number of records lost since the
 * previous one.
 *
 * Sub-buffer boundaries
 * ---------------------
 *
 * subbuf_start() writes the new sub-buffer's header and reserves room
 * for it. An mmap reader needs the finished sub-buffer's padding, but
 * relay counts the sub-buffer produced before it calls subbuf_start(),
 * so the write path (and flush) store the padding in the header *before*
 * relay switches sub-buffers; subbuf_start() then only re-checks it.
 *
 * Limitations
 * -----------
 *
 * - NMI records are dropped and counted, not delivered.
 * - A flush finishes partially filled sub-buffers, so they carry padding.
 */

#define pr_fmt(fmt) "klog-mod: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/klog.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/klog_relay.h>

#define KLOG_SUBBUF_MIN		SZ_1K
#define KLOG_SUBBUF_MAX		SZ_64M
#define KLOG_NSUBBUF_MIN	2
#define KLOG_NSUBBUF_MAX	SZ_64K
#define KLOG_BUF_MAX		SZ_1G

struct klog_cpu_stats {
	u64	seq;		/* records offered to this CPU's buffer */
	u64	written;
	u64	full;		/* dropped: buffer full */
	u64	big;		/* dropped: record larger than a sub-buffer */
	u64	nmi;		/* dropped: NMI context */
	u64	nest_base;	/* klog_nest_dropped() at channel creation */
	u64	lost_reported;	/* drops accounted in sub-buffer headers */
	u64	subbuf_seq;	/* sub-buffers started */
	u64	next_ts;	/* timestamp of the record being written */
	size_t	max_backlog;
	bool	was_full;
};

static DEFINE_PER_CPU(struct klog_cpu_stats, klog_stats);

static DEFINE_MUTEX(klog_ctl_lock);	/* serialises control-file writes */
static struct rchan *klog_chan;
static bool klog_enabled;
static size_t klog_subbuf_size = SZ_256K;
static size_t klog_n_subbufs = 4;
static struct dentry *klog_dir;

static struct klog_subbuf_hdr *subbuf_hdr(void *subbuf)
{
	return subbuf;
}

/*
 * Store the current sub-buffer's padding in its header before relay
 * counts it produced. Runs on the buffer's CPU with interrupts off (or
 * with no writer left). The barrier orders the padding before relay's
 * subbufs_produced increment that follows; it pairs with the reader
 * reading cpuN.produced (a syscall) before it reads the header.
 */
static void klog_finish_subbuf(struct rchan_buf *buf)
{
	if (buf->offset > buf->chan->subbuf_size)
		return;			/* full: already finished */
	subbuf_hdr(buf->data)->padding = buf->chan->subbuf_size - buf->offset;
	/* Padding before subbufs_produced++; see the comment above. */
	smp_wmb();
}

static int klog_subbuf_start(struct rchan_buf *buf, void *subbuf,
			     void *prev_subbuf, size_t prev_padding)
{
	struct klog_cpu_stats *st = per_cpu_ptr(&klog_stats, buf->cpu);
	struct klog_subbuf_hdr *hdr = subbuf;
	size_t backlog;
	u64 drops;

	if (prev_subbuf)
		WARN_ON_ONCE(subbuf_hdr(prev_subbuf)->padding != prev_padding);

	backlog = buf->subbufs_produced - buf->subbufs_consumed;
	if (backlog > st->max_backlog)
		st->max_backlog = backlog;

	if (relay_buf_full(buf)) {
		if (!st->was_full)
			pr_info_ratelimited("cpu%u: buffer full\n", buf->cpu);
		st->was_full = true;
		return 0;
	}
	if (st->was_full)
		pr_info_ratelimited("cpu%u: buffer no longer full\n", buf->cpu);
	st->was_full = false;

	drops = READ_ONCE(st->full) + READ_ONCE(st->big) + READ_ONCE(st->nmi);
	*hdr = (struct klog_subbuf_hdr) {
		.magic		= KLOG_SUBBUF_MAGIC,
		.version	= KLOG_RELAY_VERSION,
		.hdr_size	= sizeof(*hdr),
		.cpu		= buf->cpu,
		.padding	= 0,
		.seq		= st->subbuf_seq++,
		.lost		= drops - st->lost_reported,
		.first_ts	= st->next_ts,
	};
	st->lost_reported = drops;
	subbuf_start_reserve(buf, sizeof(*hdr));
	return 1;
}

static void klog_write(struct klog_handler *h, const struct klog_record *rec)
{
	/* Registered only while the channel exists (klog_set_enabled()). */
	struct rchan *chan = READ_ONCE(klog_chan);
	struct klog_cpu_stats *st = this_cpu_ptr(&klog_stats);
	size_t func_len, size;
	struct klog_rec_hdr *r;
	struct rchan_buf *buf;
	unsigned long flags;
	u64 seq;
	char *p;

	/*
	 * Every record takes a sequence number, so a drop of any cause leaves
	 * a gap. A record that is written takes it with interrupts off, so
	 * the numbers grow in buffer order; an NMI in between can only take
	 * one for a record it drops.
	 */
	if (unlikely(rec->ctx == KLOG_CTX_NMI)) {
		this_cpu_inc(klog_stats.seq);
		this_cpu_inc(klog_stats.nmi);
		return;
	}

	func_len = min_t(size_t, strlen(rec->site->func), U8_MAX);
	size = ALIGN(sizeof(*r) + func_len + rec->len, KLOG_REC_ALIGN);
	if (unlikely(size > chan->subbuf_size - sizeof(struct klog_subbuf_hdr))) {
		this_cpu_inc(klog_stats.seq);
		this_cpu_inc(klog_stats.big);
		return;
	}

	local_irq_save(flags);
	seq = this_cpu_inc_return(klog_stats.seq) - 1;
	buf = *this_cpu_ptr(chan->buf);
	if (unlikely(buf->offset + size > chan->subbuf_size)) {
		klog_finish_subbuf(buf);
		st->next_ts = rec->ts_ns;
		if (!relay_switch_subbuf(buf, size)) {
			this_cpu_inc(klog_stats.full);
			local_irq_restore(flags);
			return;
		}
	}

	r = buf->data + buf->offset;
	*r = (struct klog_rec_hdr) {
		.size		= size,
		.len		= rec->len,
		.ts_ns		= rec->ts_ns,
		.seq		= seq,
		.pid		= rec->pid,
		.line		= rec->site->line,
		.kind		= rec->kind,
		.ctx		= rec->ctx,
		.flags		= rec->flags & KLOG_REC_TRUNCATED ?
				  KLOG_RELAY_TRUNCATED : 0,
		.func_len	= func_len,
	};
	p = (char *)(r + 1);
	memcpy(p, rec->site->func, func_len);
	memcpy(p + func_len, rec->payload, rec->len);
	memset(p + func_len + rec->len, 0,
	       size - sizeof(*r) - func_len - rec->len);
	/*
	 * Publish the record before the offset that makes it visible to
	 * read(2) on another CPU (relay_file_read() reads buf->offset, then
	 * the bytes below it).
	 */
	smp_wmb();
	buf->offset += size;
	this_cpu_inc(klog_stats.written);
	local_irq_restore(flags);
}

static struct klog_handler klog_relay_handler = {
	.name	= "relay",
	.write	= klog_write,
};

/* ---- relay files ----------------------------------------------------- */

/*
 * read(2) of cpuN: whole finished sub-buffers only, without their padding,
 * consumed as they are read. relay's own read() also returns the
 * sub-buffer being written, computing its extent from several fields a
 * writer on another CPU updates one by one (subbufs_produced, data,
 * offset, padding[]); seen mid-switch it returns bytes twice or skips
 * them. Finished sub-buffers do not change under the reader: the writer
 * does not reuse them until they are consumed (no-overwrite), and their
 * padding was stored (klog_finish_subbuf()) before relay counted them.
 * Partially filled sub-buffers reach readers through ``flush``.
 */
static ssize_t klog_buf_read(struct file *filp, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	size_t size = buf->chan->subbuf_size;
	ssize_t done = 0;
	int ret = 0;

	inode_lock(file_inode(filp));
	while (count) {
		/* Pairs with the smp_mb() after subbufs_produced++ in relay. */
		size_t produced = smp_load_acquire(&buf->subbufs_produced);
		size_t idx, used, chunk;
		void *subbuf;

		if (buf->subbufs_consumed == produced)
			break;
		idx = buf->subbufs_consumed % buf->chan->n_subbufs;
		subbuf = buf->start + idx * size;
		used = size - subbuf_hdr(subbuf)->padding;
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
static int klog_buf_open(struct inode *inode, struct file *filp)
{
	return relay_file_operations.open(inode, filp);
}

static __poll_t klog_buf_poll(struct file *filp, poll_table *wait)
{
	return relay_file_operations.poll(filp, wait);
}

static int klog_buf_mmap(struct file *filp, struct vm_area_struct *vma)
{
	return relay_file_operations.mmap(filp, vma);
}

static int klog_buf_release(struct inode *inode, struct file *filp)
{
	return relay_file_operations.release(inode, filp);
}

static const struct file_operations klog_buf_fops = {
	.owner		= THIS_MODULE,
	.open		= klog_buf_open,
	.poll		= klog_buf_poll,
	.mmap		= klog_buf_mmap,
	.read		= klog_buf_read,
	.release	= klog_buf_release,
};

static ssize_t produced_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	size_t val = READ_ONCE(buf->subbufs_produced);

	return simple_read_from_buffer(ubuf, count, ppos, &val, sizeof(val));
}

static ssize_t consumed_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	size_t val = READ_ONCE(buf->subbufs_consumed);

	return simple_read_from_buffer(ubuf, count, ppos, &val, sizeof(val));
}

static ssize_t consumed_write(struct file *file, const char __user *ubuf,
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

static const struct file_operations produced_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= produced_read,
	.llseek	= default_llseek,
};

static const struct file_operations consumed_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= consumed_read,
	.write	= consumed_write,
	.llseek	= default_llseek,
};

/*
 * relay calls this before it sets buf->cpu, so the companion files are
 * found again by name when the buffer goes.
 */
static struct dentry *klog_create_buf_file(const char *filename,
					   struct dentry *parent, umode_t mode,
					   struct rchan_buf *buf, int *is_global)
{
	char name[NAME_MAX];

	snprintf(name, sizeof(name), "%s.produced", filename);
	debugfs_create_file(name, 0400, parent, buf, &produced_fops);
	snprintf(name, sizeof(name), "%s.consumed", filename);
	debugfs_create_file(name, 0600, parent, buf, &consumed_fops);
	/*
	 * debugfs' full proxy has no ->mmap, so the relay file must use the
	 * open-only proxy; relay's own reference on @buf keeps it alive for
	 * as long as the file is open.
	 */
	return debugfs_create_file_unsafe(filename, 0400, parent, buf,
					  &klog_buf_fops);
}

static int klog_remove_buf_file(struct dentry *dentry)
{
	char name[NAME_MAX];

	/* Waits for running reads and writes of these two files. */
	snprintf(name, sizeof(name), "%pd.produced", dentry);
	debugfs_lookup_and_remove(name, dentry->d_parent);
	snprintf(name, sizeof(name), "%pd.consumed", dentry);
	debugfs_lookup_and_remove(name, dentry->d_parent);
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks klog_relay_callbacks = {
	.subbuf_start		= klog_subbuf_start,
	.create_buf_file	= klog_create_buf_file,
	.remove_buf_file	= klog_remove_buf_file,
};

/* ---- channel life cycle (klog_ctl_lock held) ------------------------- */

static void klog_flush_local(void *info)
{
	struct rchan_buf *buf = *this_cpu_ptr(klog_chan->buf);

	if (buf && buf->offset != sizeof(struct klog_subbuf_hdr)) {
		klog_finish_subbuf(buf);
		this_cpu_write(klog_stats.next_ts, 0);
		relay_switch_subbuf(buf, 0);
	}
}

/*
 * Finish the current sub-buffer of every CPU. Each online CPU does its
 * own, with interrupts off, so it cannot race with a writer there;
 * buffers of offline CPUs have no writers.
 */
static void klog_flush(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_chan->buf, cpu);

		if (!buf)
			continue;
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, klog_flush_local, NULL, 1);
		} else if (buf->offset != sizeof(struct klog_subbuf_hdr)) {
			klog_finish_subbuf(buf);
			relay_switch_subbuf(buf, 0);
		}
	}
	cpus_read_unlock();
}

static int klog_set_enabled(bool on)
{
	int ret;

	if (on == klog_enabled)
		return 0;
	if (on) {
		if (!klog_chan)
			return -ENODEV;
		ret = register_klog_handler(&klog_relay_handler);
		if (ret)
			return ret;
	} else {
		/* Returns when no CPU is inside klog_write(). */
		unregister_klog_handler(&klog_relay_handler);
		klog_flush();
	}
	klog_enabled = on;
	return 0;
}

static void klog_destroy(void)
{
	if (!klog_chan)
		return;
	relay_close(klog_chan);
	WRITE_ONCE(klog_chan, NULL);
}

static int klog_create(void)
{
	struct rchan *chan;
	unsigned int cpu;

	klog_destroy();
	for_each_possible_cpu(cpu) {
		struct klog_cpu_stats *st = per_cpu_ptr(&klog_stats, cpu);

		memset(st, 0, sizeof(*st));
		st->nest_base = klog_nest_dropped(cpu);
	}
	chan = relay_open("cpu", klog_dir, klog_subbuf_size, klog_n_subbufs,
			  &klog_relay_callbacks, NULL);
	if (!chan) {
		pr_err("cannot allocate %zu x %zu byte sub-buffers per CPU\n",
		       klog_n_subbufs, klog_subbuf_size);
		return -ENOMEM;
	}
	WRITE_ONCE(klog_chan, chan);
	return 0;
}

/* ---- control files ---------------------------------------------------- */

enum klog_ctl {
	CTL_ENABLED,
	CTL_CREATE,
	CTL_SUBBUF_SIZE,
	CTL_N_SUBBUFS,
	CTL_FLUSH,
	CTL_DROPPED,
};

static u64 klog_cpu_dropped(unsigned int cpu)
{
	struct klog_cpu_stats *st = per_cpu_ptr(&klog_stats, cpu);

	return READ_ONCE(st->full) + READ_ONCE(st->big) + READ_ONCE(st->nmi) +
	       klog_nest_dropped(cpu) - st->nest_base;
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	enum klog_ctl ctl = (uintptr_t)file->private_data;
	unsigned int cpu;
	char tmp[32];
	u64 val = 0;
	int len;

	switch (ctl) {
	case CTL_ENABLED:
		val = READ_ONCE(klog_enabled);
		break;
	case CTL_CREATE:
		val = !!READ_ONCE(klog_chan);
		break;
	case CTL_SUBBUF_SIZE:
		val = READ_ONCE(klog_subbuf_size);
		break;
	case CTL_N_SUBBUFS:
		val = READ_ONCE(klog_n_subbufs);
		break;
	case CTL_DROPPED:
		for_each_possible_cpu(cpu)
			val += klog_cpu_dropped(cpu);
		break;
	default:
		return -EINVAL;
	}
	len = scnprintf(tmp, sizeof(tmp), "%llu\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, tmp, len);
}

/* A per-CPU buffer may use at most a quarter of RAM over all CPUs. */
static int klog_check_sizes(size_t subbuf_size, size_t n_subbufs)
{
	u64 per_cpu = (u64)subbuf_size * n_subbufs;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	if (per_cpu > KLOG_BUF_MAX || per_cpu * num_possible_cpus() > ram / 4)
		return -ENOMEM;
	return 0;
}

static int ctl_write_locked(enum klog_ctl ctl, const char *s)
{
	unsigned int on;
	size_t val;
	int ret;

	switch (ctl) {
	case CTL_ENABLED:
	case CTL_CREATE:
	case CTL_FLUSH:
		/* Exactly "0" or "1", as relay-apps clients write. */
		if (kstrtouint(s, 10, &on) || on > 1)
			return -EINVAL;
		if (ctl == CTL_ENABLED)
			return klog_set_enabled(on);
		if (ctl == CTL_FLUSH) {
			if (!on)
				return -EINVAL;
			if (!klog_chan)
				return -ENODEV;
			klog_flush();
			return 0;
		}
		if (klog_enabled)
			return -EBUSY;
		if (on)
			return klog_create();
		klog_destroy();
		return 0;
	case CTL_SUBBUF_SIZE:
	case CTL_N_SUBBUFS:
		if (kstrtoul(s, 0, &val))
			return -EINVAL;
		if (ctl == CTL_SUBBUF_SIZE &&
		    (val < KLOG_SUBBUF_MIN || val > KLOG_SUBBUF_MAX))
			return -EINVAL;
		if (ctl == CTL_N_SUBBUFS &&
		    (val < KLOG_NSUBBUF_MIN || val > KLOG_NSUBBUF_MAX))
			return -EINVAL;
		if (klog_chan)
			return -EBUSY;
		if (ctl == CTL_SUBBUF_SIZE) {
			ret = klog_check_sizes(val, klog_n_subbufs);
			if (!ret)
				klog_subbuf_size = val;
		} else {
			ret = klog_check_sizes(klog_subbuf_size, val);
			if (!ret)
				klog_n_subbufs = val;
		}
		return ret;
	default:
		return -EINVAL;
	}
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	enum klog_ctl ctl = (uintptr_t)file->private_data;
	char tmp[32];
	int ret;

	if (*ppos != 0)
		return -EINVAL;
	if (count == 0 || count >= sizeof(tmp))
		return -EINVAL;
	if (copy_from_user(tmp, ubuf, count))
		return -EFAULT;
	tmp[count] = '\0';
	strim(tmp);

	mutex_lock(&klog_ctl_lock);
	ret = ctl_write_locked(ctl, tmp);
	mutex_unlock(&klog_ctl_lock);
	return ret ?: count;
}

static const struct file_operations ctl_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= ctl_read,
	.write	= ctl_write,
	.llseek	= default_llseek,
};

static int stats_show(struct seq_file *m, void *v)
{
	struct rchan *chan;
	unsigned int cpu;

	mutex_lock(&klog_ctl_lock);
	chan = klog_chan;
	for_each_possible_cpu(cpu) {
		struct klog_cpu_stats *st = per_cpu_ptr(&klog_stats, cpu);
		struct rchan_buf *buf = chan ? *per_cpu_ptr(chan->buf, cpu) : NULL;

		if (!buf)
			continue;
		seq_printf(m, "cpu%u produced=%zu consumed=%zu records=%llu full=%llu big=%llu nmi=%llu nest=%llu max_backlog=%zu\n",
			   cpu, READ_ONCE(buf->subbufs_produced),
			   READ_ONCE(buf->subbufs_consumed),
			   READ_ONCE(st->written), READ_ONCE(st->full),
			   READ_ONCE(st->big), READ_ONCE(st->nmi),
			   klog_nest_dropped(cpu) - st->nest_base,
			   READ_ONCE(st->max_backlog));
	}
	mutex_unlock(&klog_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static const struct {
	const char	*name;
	umode_t		mode;
	enum klog_ctl	ctl;
} klog_ctl_files[] = {
	{ "enabled",	 0600, CTL_ENABLED },
	{ "create",	 0600, CTL_CREATE },
	{ "subbuf_size", 0600, CTL_SUBBUF_SIZE },
	{ "n_subbufs",	 0600, CTL_N_SUBBUFS },
	{ "flush",	 0200, CTL_FLUSH },
	{ "dropped",	 0400, CTL_DROPPED },
};

static int __init klog_mod_init(void)
{
	int i;

	klog_dir = debugfs_create_dir("klog", NULL);
	if (IS_ERR(klog_dir))
		return PTR_ERR(klog_dir);
	for (i = 0; i < ARRAY_SIZE(klog_ctl_files); i++)
		debugfs_create_file(klog_ctl_files[i].name,
				    klog_ctl_files[i].mode, klog_dir,
				    (void *)(uintptr_t)klog_ctl_files[i].ctl,
				    &ctl_fops);
	debugfs_create_file("stats", 0400, klog_dir, NULL, &stats_fops);
	return 0;
}

static void __exit klog_mod_exit(void)
{
	mutex_lock(&klog_ctl_lock);
	klog_set_enabled(false);
	klog_destroy();
	mutex_unlock(&klog_ctl_lock);
	debugfs_remove_recursive(klog_dir);
}

module_init(klog_mod_init);
module_exit(klog_mod_exit);
MODULE_DESCRIPTION("klog handler writing records to per-CPU relay buffers");
MODULE_LICENSE("GPL");
