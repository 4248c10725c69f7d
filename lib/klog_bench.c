// SPDX-License-Identifier: GPL-2.0
/*
 * klog_bench - cost per call of klog and of what a developer would use
 * instead, measured side by side in one boot
 *
 * Write a request to /sys/kernel/debug/klog_bench/run, read the result
 * from the same file:
 *
 *   echo "case=klog_raw calls=1000000 size=32 cpus=2" > run; cat run
 *   case=klog_raw size=32 cpus=2 calls=2000000 median_ns=41 p99_ns=95 mean_ns=44
 *
 * Cases: empty (the loop alone), memcpy (of size bytes to a per-CPU
 * buffer: the floor for copying), klog_printk and trace_printk (the same
 * format and arguments), printk (pr_info(): run with loglevel=4 so that
 * it is stored, not printed on the console), klog_raw and trace_puts (size bytes),
 * relay_write (size bytes into this module's own overwrite-mode relay
 * channel: the floor for relay). Whether a klog handler is registered is
 * up to the caller: the same case measures the static-branch path with
 * no handler and the handler's cost with one.
 *
 * Each of the requested CPUs (pinned threads, started together) makes the
 * requested number of calls in batches of BENCH_BATCH, timing each batch with local_clock();
 * median and p99 are over the per-call averages of all batches, mean over
 * all calls. Timing a batch, not a call, keeps the clock's own cost out
 * of the figure, at the price of hiding outliers shorter than a batch.
 * Under emulation (QEMU TCG) absolute figures mean little: compare cases
 * measured in the same boot, as ratios.
 */

#define pr_fmt(fmt) "klog_bench: " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/klog.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/relay.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define BENCH_BATCH	64
#define BENCH_SIZE_MAX	4096
#define BENCH_FMT	"bench i=%d cpu=%u %s\n"

enum bench_case {
	B_EMPTY, B_MEMCPY, B_KLOG_PRINTK, B_TRACE_PRINTK, B_PRINTK,
	B_KLOG_RAW, B_TRACE_PUTS, B_RELAY_WRITE, B_NCASES
};

static const char * const bench_names[B_NCASES] = {
	"empty", "memcpy", "klog_printk", "trace_printk", "printk",
	"klog_raw", "trace_puts", "relay_write",
};

struct bench_req {
	enum bench_case	which;
	unsigned long	calls;		/* per CPU */
	unsigned int	size;
	unsigned int	cpus;
};

struct bench_worker {
	const struct bench_req	*req;
	u32			*samples;	/* per-call ns of each batch */
	unsigned long		nsamples;
	u64			total_ns;
	struct completion	*go;
	struct completion	done;
};

static DEFINE_MUTEX(bench_lock);
static char bench_result[256];
static struct rchan *bench_chan;
static struct dentry *bench_dir;
static DEFINE_PER_CPU(u8 [BENCH_SIZE_MAX], bench_dst);
static u8 bench_src[BENCH_SIZE_MAX + 1];

static void bench_call(enum bench_case which, int i, unsigned int cpu,
		       unsigned int size)
{
	switch (which) {
	case B_EMPTY:
		barrier();
		break;
	case B_MEMCPY:
		memcpy(this_cpu_ptr(&bench_dst), bench_src, size);
		break;
	case B_KLOG_PRINTK:
		klog_printk(BENCH_FMT, i, cpu, "abc");
		break;
	case B_TRACE_PRINTK:
		trace_printk(BENCH_FMT, i, cpu, "abc");
		break;
	case B_PRINTK:
		pr_info(BENCH_FMT, i, cpu, "abc");
		break;
	case B_KLOG_RAW:
		klog_raw(bench_src, size);
		break;
	case B_TRACE_PUTS:
		__trace_puts(_THIS_IP_, bench_src, size);
		break;
	case B_RELAY_WRITE:
		relay_write(bench_chan, bench_src, size);
		break;
	default:
		break;
	}
}

static int bench_thread(void *data)
{
	struct bench_worker *w = data;
	const struct bench_req *req = w->req;
	unsigned int cpu = raw_smp_processor_id();
	unsigned long b, batches = req->calls / BENCH_BATCH;
	int i = 0, j;

	wait_for_completion(w->go);
	for (b = 0; b < batches; b++) {
		u64 t0, dt;

		preempt_disable();
		t0 = local_clock();
		for (j = 0; j < BENCH_BATCH; j++, i++)
			bench_call(req->which, i, cpu, req->size);
		dt = local_clock() - t0;
		preempt_enable();
		w->samples[b] = div_u64(dt, BENCH_BATCH);
		w->total_ns += dt;
		if (!(b & 255))
			cond_resched();
	}
	w->nsamples = batches;
	complete(&w->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int bench_run(const struct bench_req *req)
{
	struct bench_worker *w;
	struct task_struct **t;
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned long per = req->calls / BENCH_BATCH, n = 0;
	unsigned int i, cpu, started = 0;
	u64 total = 0;
	u32 *all;
	int ret = 0;

	w = kcalloc(req->cpus, sizeof(*w), GFP_KERNEL);
	t = kcalloc(req->cpus, sizeof(*t), GFP_KERNEL);
	all = vmalloc(array_size(per * req->cpus, sizeof(u32)));
	if (!w || !t || !all) {
		ret = -ENOMEM;
		goto out;
	}
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < req->cpus; i++, cpu = cpumask_next(cpu, cpu_online_mask)) {
		w[i].req = req;
		w[i].go = &go;
		w[i].samples = all + i * per;
		init_completion(&w[i].done);
		t[i] = kthread_create_on_cpu(bench_thread, &w[i], cpu, "klog_bench/%u");
		if (IS_ERR(t[i])) {
			ret = PTR_ERR(t[i]);
			t[i] = NULL;
			break;
		}
		wake_up_process(t[i]);
		started++;
	}
	complete_all(&go);
	for (i = 0; i < started; i++) {
		wait_for_completion(&w[i].done);
		kthread_stop(t[i]);
		total += w[i].total_ns;
		n += w[i].nsamples;
	}
	if (ret || !n) {
		ret = ret ?: -EINVAL;
		goto out;
	}
	sort(all, n, sizeof(u32), cmp_u32, NULL);
	scnprintf(bench_result, sizeof(bench_result),
		  "case=%s size=%u cpus=%u calls=%lu median_ns=%u p99_ns=%u mean_ns=%llu\n",
		  bench_names[req->which], req->size, req->cpus,
		  n * BENCH_BATCH, all[n / 2], all[n * 99 / 100],
		  div_u64(total, n * BENCH_BATCH));
out:
	vfree(all);
	kfree(t);
	kfree(w);
	return ret;
}

static int bench_parse(char *buf, struct bench_req *req)
{
	char *tok, *val;
	int ret = 0;

	*req = (struct bench_req){ .which = B_NCASES, .calls = 100000,
				   .size = 32, .cpus = 1 };
	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "case")) {
			ret = match_string(bench_names, B_NCASES, val);
			if (ret >= 0)
				req->which = ret;
			ret = min(ret, 0);
		} else if (!strcmp(tok, "calls")) {
			ret = kstrtoul(val, 0, &req->calls);
		} else if (!strcmp(tok, "size")) {
			ret = kstrtouint(val, 0, &req->size);
		} else if (!strcmp(tok, "cpus")) {
			ret = kstrtouint(val, 0, &req->cpus);
		} else {
			ret = -EINVAL;
		}
		if (ret) {
			pr_err("bad '%s=%s'\n", tok, val);
			return -EINVAL;
		}
	}
	if (req->which == B_NCASES || req->calls < BENCH_BATCH ||
	    req->calls > 100000000 || !req->size ||
	    req->size > BENCH_SIZE_MAX || !req->cpus ||
	    req->cpus > num_online_cpus())
		return -EINVAL;
	return 0;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct bench_req req;
	char *buf;
	int ret;

	if (len > 200)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = bench_parse(buf, &req);
	kfree(buf);
	if (ret)
		return ret;
	mutex_lock(&bench_lock);
	bench_result[0] = '\0';
	ret = bench_run(&req);
	mutex_unlock(&bench_lock);
	return ret ?: len;
}

static int run_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_lock);
	seq_puts(m, bench_result);
	mutex_unlock(&bench_lock);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open(file, run_show, NULL);
}

static const struct file_operations run_fops = {
	.owner		= THIS_MODULE,
	.open		= run_open,
	.read		= seq_read,
	.write		= run_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* The relay floor: an overwrite-mode channel nobody reads. */
static int bench_subbuf_start(struct rchan_buf *buf, void *subbuf,
			      void *prev_subbuf, size_t prev_padding)
{
	return 1;
}

static struct dentry *bench_create_buf_file(const char *filename,
					    struct dentry *parent, umode_t mode,
					    struct rchan_buf *buf, int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int bench_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks bench_relay_cb = {
	.subbuf_start		= bench_subbuf_start,
	.create_buf_file	= bench_create_buf_file,
	.remove_buf_file	= bench_remove_buf_file,
};

static int __init klog_bench_init(void)
{
	memset(bench_src, 'x', BENCH_SIZE_MAX);
	bench_dir = debugfs_create_dir("klog_bench", NULL);
	bench_chan = relay_open("relay", bench_dir, SZ_64K, 4, &bench_relay_cb,
				NULL);
	if (!bench_chan) {
		debugfs_remove_recursive(bench_dir);
		return -ENOMEM;
	}
	debugfs_create_file("run", 0600, bench_dir, NULL, &run_fops);
	return 0;
}

static void __exit klog_bench_exit(void)
{
	relay_close(bench_chan);
	debugfs_remove_recursive(bench_dir);
}

module_init(klog_bench_init);
module_exit(klog_bench_exit);
MODULE_DESCRIPTION("klog benchmark: cost per call against its peers");
MODULE_LICENSE("GPL");
