// SPDX-License-Identifier: GPL-2.0
/*
 * test_klog - klog traffic on demand, with self-checking payloads
 *
 * Selftests and benchmarks drive this module through debugfs:
 *
 *   /sys/kernel/debug/test_klog/emit   (write) one request, e.g.
 *	"count=1000 size=64 kind=raw ctx=task,hardirq cpus=all"
 *   /sys/kernel/debug/test_klog/stats  (read) records emitted so far,
 *	one line per CPU: "cpu<N> task=<n> softirq=<n> hardirq=<n> nmi=<n>"
 *   /sys/kernel/debug/test_klog/raw_fault  (write "1") one klog_raw() of
 *	32 bytes at address 16, in the writer's context: the oops inside a
 *	handler's write path (the oops test)
 *
 * A write returns when every record of the request has been passed to
 * klog (or fails: -EINVAL for a malformed request, naming the bad key in
 * the kernel log; -EINTR if interrupted, with the stats still exact).
 * Requests are serialised; test_klog_req.h describes their keys and the
 * payloads.
 *
 * Each (CPU, context) pair has its own sequence number, starting at 0 when
 * the module loads, so within one stream records are strictly ordered.
 *
 * Hard interrupts come from pinned hrtimers (HRTIMER_MODE_REL_PINNED_HARD),
 * softirqs from pinned soft hrtimers, NMIs (x86 only) from NMI IPIs sent
 * by a CPU to itself (or by the next CPU: nmi_from=next) with a local NMI
 * handler registered. Each NMI makes one batch; the next NMI is sent once
 * the CPU has taken an interrupt after it (an irq_work the NMI raised;
 * with nmi_irqs_off, once the handler is done),
 * so NMIs come at the pace of the CPU they interrupt, never back to back
 * (an NMI latched while the last one returns would run before anything
 * else on the CPU).
 */

#define pr_fmt(fmt) "test_klog: " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/klog.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nmi.h>
#include <linux/panic.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#define TEST_KLOG_NMI 1
#endif

#include "test_klog_req.h"

/* One stream: a (CPU, context) pair of one request. */
struct tklg_stream {
	const struct tklg_req	*req;
	unsigned int		cpu;
	unsigned int		ctx;
	u64			left;
	u8			*buf;		/* payload staging, size bytes */
	char			*fill;		/* text filler */
	struct hrtimer		timer;
	struct completion	batch_done;
	struct task_struct	*task;
	int			ret;
};

static u64 __percpu *tklg_seq;			/* [NCTX] per CPU */
static DEFINE_MUTEX(tklg_lock);
static struct dentry *tklg_dir;

#ifdef TEST_KLOG_NMI
static DEFINE_PER_CPU(struct tklg_stream *, nmi_stream);	/* to do */
static DEFINE_PER_CPU(unsigned long, nmi_handled);	/* batches made */
static DEFINE_PER_CPU(unsigned long, nmi_batches);	/* batches done */

/* After an NMI's batch, once its CPU takes interrupts again. */
static void tklg_nmi_done(struct irq_work *work)
{
	/* Pairs with smp_load_acquire() in emit_nmi_batch(). */
	smp_store_release(this_cpu_ptr(&nmi_batches),
			  this_cpu_read(nmi_batches) + 1);
}

static DEFINE_PER_CPU(struct irq_work, nmi_done_work);	/* tklg_nmi_done */
#endif

static u32 fnv1a(const u8 *p, size_t n)
{
	u32 h = 0x811c9dc5;

	while (n--) {
		h ^= *p++;
		h *= 0x01000193;
	}
	return h;
}

static void emit_one(struct tklg_stream *s)
{
	const struct tklg_req *req = s->req;
	u64 *seqp = this_cpu_ptr(tklg_seq) + s->ctx;
	u64 seq = *seqp;
	size_t i, n;

	if (req->raw) {
		struct test_klog_raw *h = (struct test_klog_raw *)s->buf;
		u8 *fill = s->buf + TKLG_RAW_HDR;

		n = req->size - TKLG_RAW_HDR;
		for (i = 0; i < n; i++)
			fill[i] = (u8)(seq * 31 + i);
		h->magic = cpu_to_le32(TKLG_MAGIC);
		h->cpu = s->cpu;
		h->ctx = s->ctx;
		h->zero = 0;
		h->seq = cpu_to_le64(seq);
		h->size = cpu_to_le32(req->size);
		h->csum = cpu_to_le32(fnv1a(fill, n));
		klog_raw(s->buf, req->size);
	} else {
		u32 letter;

		n = req->size - TKLG_TEXT_HDR;
		/* 'a' + (seq + i) % 26, without a 64-bit modulo per byte */
		div_u64_rem(seq, 26, &letter);
		for (i = 0; i < n; i++) {
			s->fill[i] = 'a' + letter;
			letter = letter == 25 ? 0 : letter + 1;
		}
		klog_printk("TKLG c=%03u x=%u s=%020llu n=%07u k=%08x %.*s",
			    s->cpu, s->ctx, seq, req->size,
			    fnv1a(s->fill, n), (int)n, s->fill);
	}
	/* Only this context on this CPU uses this counter. */
	WRITE_ONCE(*seqp, seq + 1);
}

static void emit_batch(struct tklg_stream *s)
{
	unsigned int i;

	for (i = 0; i < TKLG_BATCH && s->left; i++, s->left--)
		emit_one(s);
}

static enum hrtimer_restart tklg_timer_fn(struct hrtimer *t)
{
	struct tklg_stream *s = container_of(t, struct tklg_stream, timer);

	emit_batch(s);
	if (!s->left && s->req->crash)
		BUG();
	complete(&s->batch_done);
	return HRTIMER_NORESTART;
}

#ifdef TEST_KLOG_NMI
static int tklg_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	/* Taken once: another NMI (or a sender that gave up) finds NULL. */
	struct tklg_stream *s = xchg(this_cpu_ptr(&nmi_stream), NULL);

	if (!s)
		return NMI_DONE;
	emit_batch(s);
	if (!s->left && s->req->crash)
		BUG();
	if (!s->left && s->req->trigger)
		klog_trigger("test_klog");
	/* Pairs with smp_load_acquire() in emit_nmi_batch(). */
	smp_store_release(this_cpu_ptr(&nmi_handled),
			  this_cpu_read(nmi_handled) + 1);
	/* The batch is done when this CPU takes interrupts again. */
	irq_work_queue(this_cpu_ptr(&nmi_done_work));
	return NMI_HANDLED;
}

/*
 * Send one NMI to s->cpu (this CPU, or another one for nmi_from=next) and
 * wait until its handler has made the batch and, if @irq, until the CPU
 * has taken an interrupt since. Preemption (or, if !@irq, interrupts)
 * disabled.
 */
static int emit_nmi_batch(struct tklg_stream *s, bool irq)
{
	struct tklg_stream **slot = per_cpu_ptr(&nmi_stream, s->cpu);
	unsigned long *done = per_cpu_ptr(irq ? &nmi_batches : &nmi_handled,
					  s->cpu);
	unsigned long before = READ_ONCE(*done);
	u64 deadline;

	/* Ordered before the IPI: the handler sees the stream. */
	smp_store_release(slot, s);
	apic->send_IPI_mask(cpumask_of(s->cpu), NMI_VECTOR);
	/*
	 * A bound, not a pace: on a loaded host a vCPU may not run for a
	 * second or more. Under the soft lockup watchdog's 20 s.
	 */
	deadline = local_clock() + 10ULL * NSEC_PER_SEC;
	/* Pairs with smp_store_release() in tklg_nmi_{handler,done}(). */
	while (smp_load_acquire(done) == before) {
		if (local_clock() > deadline) {
			/* Either the handler takes the stream or this does. */
			if (cmpxchg(slot, s, NULL) == s)
				pr_err("cpu%u: NMI IPI not delivered within 10 s\n",
				       s->cpu);
			else
				pr_err("cpu%u: no interrupt within 10 s of an NMI\n",
				       s->cpu);
			return -EIO;
		}
		cpu_relax();
	}
	return 0;
}
#endif

#ifdef TEST_KLOG_NMI
/*
 * nmi_hold: interrupts stay off (the caller's) until an oops is over on
 * another CPU, or 15 s (under the RCU stall timeout); watchdogs touched.
 */
static int tklg_nmi_hold(void)
{
	u64 deadline = local_clock() + 15ULL * NSEC_PER_SEC;

	while (!test_taint(TAINT_DIE)) {
		if (local_clock() > deadline) {
			pr_err("nmi_hold: no oops within 15 s\n");
			return -ETIMEDOUT;
		}
		touch_nmi_watchdog();
		cpu_relax();
	}
	return 0;
}
#endif

static enum hrtimer_mode tklg_timer_mode(unsigned int ctx)
{
	return ctx == 1 ? HRTIMER_MODE_REL_PINNED_SOFT :
			  HRTIMER_MODE_REL_PINNED_HARD;
}

/*
 * crash=1 with no record left to make (count=0): BUG() in the stream's
 * context all the same, from one more timer or NMI with an empty batch
 * (tklg_timer_fn(), tklg_nmi_handler()). Returns only if it could not.
 */
static int tklg_crash(struct tklg_stream *s)
{
	switch (s->ctx) {
	case 0:
		BUG();
	case 1:
	case 2:
		reinit_completion(&s->batch_done);
		hrtimer_start(&s->timer, 0, tklg_timer_mode(s->ctx));
		wait_for_completion(&s->batch_done);
		return -EIO;
#ifdef TEST_KLOG_NMI
	case 3: {
		int ret;

		preempt_disable();
		ret = emit_nmi_batch(s, true);
		preempt_enable();
		return ret ?: -EIO;
	}
#endif
	}
	return -EOPNOTSUPP;
}

static int tklg_stream_fn(void *data)
{
	struct tklg_stream *s = data;
	int ret = 0;

	while (s->left && !ret) {
		switch (s->ctx) {
		case 0:
			emit_batch(s);
			break;
		case 1:
		case 2:
			reinit_completion(&s->batch_done);
			hrtimer_start(&s->timer, 0, tklg_timer_mode(s->ctx));
			wait_for_completion(&s->batch_done);
			break;
#ifdef TEST_KLOG_NMI
		case 3:
			if (s->req->nmi_irqs_off) {
				/* Nothing moves the records until the end. */
				local_irq_disable();
				while (s->left && !ret)
					ret = emit_nmi_batch(s, false);
				if (!ret && s->req->nmi_hold)
					ret = tklg_nmi_hold();
				local_irq_enable();
				break;
			}
			preempt_disable();
			ret = emit_nmi_batch(s, true);
			preempt_enable();
			break;
#endif
		default:
			ret = -EOPNOTSUPP;
		}
		if (s->req->gap_us)
			usleep_range(s->req->gap_us, s->req->gap_us + 10);
		/*
		 * Stopped before the stream is done. A stream whose last
		 * batch an interrupt or NMI made (s->left is 0 from then
		 * on) may be stopped by tklg_run() before this thread
		 * returns from waiting for it: that is no interruption.
		 */
		if (s->left && (signal_pending(current) ||
				kthread_should_stop()))
			ret = ret ?: -EINTR;
		cond_resched();
	}
	/* A task stream's last record, or no record at all: crash now. */
	if (!ret && s->req->crash && (!s->req->count || !s->ctx))
		ret = tklg_crash(s);
	/* An NMI stream triggered from its last NMI (tklg_nmi_handler()). */
	if (!ret && s->req->trigger && s->ctx != 3)
		klog_trigger("test_klog");
	s->ret = ret;
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* The next online CPU after @cpu, wrapping; @cpu itself if alone. */
static unsigned int tklg_next_cpu(unsigned int cpu)
{
	unsigned int next = cpumask_next(cpu, cpu_online_mask);

	return next < nr_cpu_ids ? next : cpumask_first(cpu_online_mask);
}

static int tklg_run(const struct tklg_req *req)
{
	unsigned int cpu, ctx, n = 0, i;
	struct tklg_stream *streams;
	int ret = 0;

	streams = kcalloc(nr_cpu_ids * NCTX, sizeof(*streams), GFP_KERNEL);
	if (!streams)
		return -ENOMEM;

	cpus_read_lock();
	for_each_cpu_and(cpu, req->cpus, cpu_online_mask) {
		for (ctx = 0; ctx < NCTX; ctx++) {
			struct tklg_stream *s = &streams[n];

			if (!(req->ctx_mask & BIT(ctx)))
				continue;
			s->req = req;
			s->cpu = cpu;
			s->ctx = ctx;
			s->left = req->count;
			init_completion(&s->batch_done);
			hrtimer_init(&s->timer, CLOCK_MONOTONIC,
				     tklg_timer_mode(ctx));
			s->timer.function = tklg_timer_fn;
			s->buf = kvzalloc(req->size, GFP_KERNEL);
			s->fill = kvzalloc(req->size, GFP_KERNEL);
			if (!s->buf || !s->fill) {
				ret = -ENOMEM;
				goto stop;
			}
			/* nmi_from=next: the NMIs come from the next CPU */
			s->task = kthread_create_on_cpu(tklg_stream_fn, s,
							ctx == 3 && req->nmi_next ?
							tklg_next_cpu(cpu) : cpu,
							"test_klog/%u");
			if (IS_ERR(s->task)) {
				ret = PTR_ERR(s->task);
				s->task = NULL;
				goto stop;
			}
			n++;
		}
	}
stop:
	cpus_read_unlock();
	for (i = 0; i < n && !ret; i++)
		wake_up_process(streams[i].task);
	for (i = 0; i < n; i++) {
		struct tklg_stream *s = &streams[i];

		/*
		 * Wait for the stream to finish (or stop it on a signal); a
		 * crash=1 stream until it crashed (or says why it could not).
		 */
		while (!ret && (READ_ONCE(s->left) || req->crash) &&
		       !READ_ONCE(s->ret) && !signal_pending(current))
			schedule_timeout_interruptible(msecs_to_jiffies(5));
		if (signal_pending(current) && !ret)
			ret = -EINTR;
	}
	for (i = 0; i < n; i++) {
		struct tklg_stream *s = &streams[i];

		kthread_stop(s->task);
		hrtimer_cancel(&s->timer);
		if (s->ret && !ret)
			ret = s->ret;
	}
	for (i = 0; i < nr_cpu_ids * NCTX; i++) {
		kvfree(streams[i].buf);
		kvfree(streams[i].fill);
	}
	kfree(streams);
	return ret;
}

static ssize_t emit_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct tklg_req req;
	char *buf;
	int ret;

	if (len > 256)
		return -E2BIG;
	if (!zalloc_cpumask_var(&req.cpus, GFP_KERNEL))
		return -ENOMEM;
	buf = memdup_user_nul(ubuf, len);
	ret = IS_ERR(buf) ? PTR_ERR(buf) : parse_req(buf, &req);
	if (!ret) {
		ret = mutex_lock_interruptible(&tklg_lock);
		if (!ret) {
			ret = tklg_run(&req);
			mutex_unlock(&tklg_lock);
		}
	}
	free_cpumask_var(req.cpus);
	if (!IS_ERR(buf))
		kfree(buf);
	return ret ?: len;
}

static const struct file_operations emit_fops = {
	.owner	= THIS_MODULE,
	.write	= emit_write,
	.llseek	= noop_llseek,
};

static ssize_t raw_fault_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	const void *bad = (const void *)16;
	bool go;
	int ret = kstrtobool_from_user(ubuf, len, &go);

	if (ret || !go)
		return ret ?: -EINVAL;
	OPTIMIZER_HIDE_VAR(bad);
	klog_raw(bad, 32);
	return -EIO;	/* a handler that read the bytes oopsed */
}

static const struct file_operations raw_fault_fops = {
	.owner	= THIS_MODULE,
	.write	= raw_fault_write,
	.llseek	= noop_llseek,
};

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int cpu, ctx;

	for_each_possible_cpu(cpu) {
		u64 *seq = per_cpu_ptr(tklg_seq, cpu);

		seq_printf(m, "cpu%u", cpu);
		for (ctx = 0; ctx < NCTX; ctx++)
			seq_printf(m, " %s=%llu", ctx_names[ctx],
				   READ_ONCE(seq[ctx]));
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init test_klog_init(void)
{
	unsigned int __maybe_unused cpu;

	tklg_seq = __alloc_percpu(NCTX * sizeof(u64), sizeof(u64));
	if (!tklg_seq)
		return -ENOMEM;
#ifdef TEST_KLOG_NMI
	for_each_possible_cpu(cpu) {
		struct irq_work *w = per_cpu_ptr(&nmi_done_work, cpu);

		*w = IRQ_WORK_INIT_HARD(tklg_nmi_done);
	}
	if (register_nmi_handler(NMI_LOCAL, tklg_nmi_handler, 0, "test_klog")) {
		free_percpu(tklg_seq);
		return -ENOMEM;
	}
#endif
	tklg_dir = debugfs_create_dir("test_klog", NULL);
	debugfs_create_file("emit", 0200, tklg_dir, NULL, &emit_fops);
	debugfs_create_file("stats", 0400, tklg_dir, NULL, &stats_fops);
	debugfs_create_file("raw_fault", 0200, tklg_dir, NULL, &raw_fault_fops);
	return 0;
}

static void __exit test_klog_exit(void)
{
	unsigned int __maybe_unused cpu;

	debugfs_remove_recursive(tklg_dir);
#ifdef TEST_KLOG_NMI
	unregister_nmi_handler(NMI_LOCAL, "test_klog");
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&nmi_done_work, cpu));
#endif
	free_percpu(tklg_seq);
}

module_init(test_klog_init);
module_exit(test_klog_exit);
MODULE_DESCRIPTION("klog traffic generator with self-checking payloads");
MODULE_LICENSE("GPL");
