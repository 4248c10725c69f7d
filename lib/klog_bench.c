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
 * With ms=M each CPU stops after M milliseconds (or at calls, whichever
 * comes first): a run of a fixed length whatever a call costs, so that
 * a caller alternating cases in rounds gives every case the same stretch
 * of time, long enough to span several timer ticks.
 *
 * Cases: empty (the loop alone), local_clock (one timestamp, which every
 * klog record and every ftrace event takes), memcpy (of size bytes to a
 * per-CPU buffer: the floor for copying), klog_printk and trace_printk (the same
 * format and arguments), printk (pr_info(): run with loglevel=4 so that
 * it is stored, not printed on the console), klog_raw and trace_puts (size bytes),
 * relay_write (size bytes into this module's own overwrite-mode relay
 * channel: the floor for relay), klog_off (a klog_printk() site that is
 * disabled through the control file's query language when the module
 * loads: with handler=null it is a disabled site while a handler is
 * registered, to compare with klog_printk and no handler).
 * args_pack records BENCH_FMT's arguments in binary (KLOG_ARGS_PACK()
 * into a per-CPU buffer, no handler, no record) and vsnprintf formats
 * them (snprintf() into the same buffer): the two halves of what a
 * binary klog_printk() and today's would pay, next to trace_printk.
 * site_bytes (read) is the memory one call site's descriptor takes,
 * plan_bytes the argument plan the core allocates for a klog_printk() site.
 * Whether a klog handler is registered is up to the caller: the same
 * case measures the static-branch path with no handler and the
 * handler's cost with one. With handler=null this
 * module registers a handler that does nothing for the duration of the
 * run: the klog core's own cost (record, timestamp, dispatch) on its own.
 *
 * With vs=CASE (and vs_size=N, default size) each writer alternates
 * batches of the two cases, the first of a pair swapped from pair to
 * pair: a paired run. It adds vs_median_ns, the other case's median, and
 * ratio_milli, the median over the pairs of the batches' ratio (case /
 * vs, times 1000): a drift of the host's speed, which under emulation
 * moves a call's cost by tens of percent within seconds, lands on both
 * halves of a pair alike, where two runs one after the other would each
 * take a different share of it.
 *
 * With profile=1 each writer also samples, from a pinned hrtimer every
 * BENCH_PROF_PERIOD_NS, the kernel function it interrupted; the
 * profile file then lists the functions that took most samples. A
 * profile made this way is coarse (under TCG interrupts are taken only
 * between translated blocks) but shows where a call's time goes.
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
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
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
#include <asm/irq_regs.h>

#define BENCH_BATCH	64
#define BENCH_SIZE_MAX	4096
#define BENCH_FMT	"bench i=%d cpu=%u %s\n"
/* The klog_off case's site, disabled at load (see klog_bench_init()). */
#define BENCH_FMT_OFF	"bench off i=%d cpu=%u %s\n"
#define BENCH_PROF_PERIOD_NS	(20 * NSEC_PER_USEC)
#define BENCH_PROF_MAX		65536	/* samples per writer */
#define BENCH_PROF_TOP		16	/* functions listed */

enum bench_case {
	B_EMPTY, B_LOCAL_CLOCK, B_MEMCPY, B_KLOG_PRINTK, B_TRACE_PRINTK, B_PRINTK,
	B_KLOG_RAW, B_TRACE_PUTS, B_RELAY_WRITE, B_KLOG_OFF,
	B_ARGS_PACK, B_VSNPRINTF, B_NCASES
};

static const char * const bench_names[B_NCASES] = {
	"empty", "local_clock", "memcpy", "klog_printk", "trace_printk", "printk",
	"klog_raw", "trace_puts", "relay_write", "klog_off",
	"args_pack", "vsnprintf",
};

struct bench_req {
	enum bench_case	which;
	enum bench_case	vs;		/* paired with, or B_NCASES */
	unsigned long	calls;		/* per CPU and case, at most */
	unsigned int	ms;		/* per CPU, at most; 0: no limit */
	unsigned int	size;
	unsigned int	vs_size;
	unsigned int	cpus;
	bool		null_handler;
	bool		profile;
};

struct bench_worker {
	const struct bench_req	*req;
	u32			*samples;	/* per-call ns of each batch */
	u32			*vs_samples;	/* the same of the vs batches */
	u32			*ratios;	/* batch / vs batch, x1000 */
	unsigned long		nsamples;
	u64			total_ns;
	struct completion	*go;
	struct completion	done;
	struct hrtimer		prof_timer;
	unsigned long		*prof_ip;	/* interrupted kernel IPs */
	unsigned int		prof_n;
};

static DEFINE_MUTEX(bench_lock);
static char bench_result[256];
static char bench_profile[BENCH_PROF_TOP * 96 + 128];
static struct rchan *bench_chan;
static struct dentry *bench_dir;
static DEFINE_PER_CPU(u8 [BENCH_SIZE_MAX], bench_dst);
static u8 bench_src[BENCH_SIZE_MAX + 1];
static DEFINE_PER_CPU(u64, bench_sink);
static u32 bench_site_bytes = sizeof(struct klog_site);
static u32 bench_plan_bytes = sizeof(struct klog_args_plan);

/* handler=null: the core's cost, with a handler that keeps nothing. */
static void bench_null_write(struct klog_handler *h,
			     const struct klog_record *rec)
{
}

static struct klog_handler bench_null_handler = {
	.name	= "klog_bench_null",
	.write	= bench_null_write,
};

/* BENCH_FMT's plan, made once at load (klog_args_plan_init()). */
static struct klog_args_plan bench_plan;

/* The binary-argument cases: serialise only, or format only. */
static void bench_call_args(enum bench_case which, int i, unsigned int cpu)
{
	u8 *buf = (u8 *)this_cpu_ptr(&bench_dst);

	if (which == B_ARGS_PACK)
		KLOG_ARGS_PACK(buf, BENCH_SIZE_MAX, &bench_plan, i, cpu, "abc");
	else
		snprintf(buf, BENCH_SIZE_MAX, BENCH_FMT, i, cpu, "abc");
}

static void bench_call(enum bench_case which, int i, unsigned int cpu,
		       unsigned int size)
{
	switch (which) {
	case B_EMPTY:
		barrier();
		break;
	case B_LOCAL_CLOCK:
		this_cpu_write(bench_sink, local_clock());
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
	case B_KLOG_OFF:
		klog_printk(BENCH_FMT_OFF, i, cpu, "abc");
		break;
	case B_ARGS_PACK:
	case B_VSNPRINTF:
		bench_call_args(which, i, cpu);
		break;
	default:
		break;
	}
}

/* A timed batch of @which, calls @i on; preemption disabled. */
static u64 bench_batch(enum bench_case which, int i, unsigned int cpu,
		       unsigned int size)
{
	u64 t0 = local_clock();
	int j;

	for (j = 0; j < BENCH_BATCH; j++)
		bench_call(which, i + j, cpu, size);
	return local_clock() - t0;
}

static enum hrtimer_restart bench_prof_sample(struct hrtimer *t)
{
	struct bench_worker *w = container_of(t, struct bench_worker,
					      prof_timer);
	struct pt_regs *regs = get_irq_regs();

	if (regs && !user_mode(regs) && w->prof_n < BENCH_PROF_MAX)
		w->prof_ip[w->prof_n++] = instruction_pointer(regs);
	hrtimer_forward_now(t, ns_to_ktime(BENCH_PROF_PERIOD_NS));
	return HRTIMER_RESTART;
}

static int bench_thread(void *data)
{
	struct bench_worker *w = data;
	const struct bench_req *req = w->req;
	unsigned int cpu = raw_smp_processor_id();
	unsigned long b, batches = req->calls / BENCH_BATCH;
	u64 start, limit = (u64)req->ms * NSEC_PER_MSEC;
	int i = 0;

	wait_for_completion(w->go);
	start = local_clock();
	if (w->prof_ip) {
		hrtimer_init(&w->prof_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED);
		w->prof_timer.function = bench_prof_sample;
		hrtimer_start(&w->prof_timer,
			      ns_to_ktime(BENCH_PROF_PERIOD_NS),
			      HRTIMER_MODE_REL_PINNED);
	}
	for (b = 0; b < batches; b++) {
		u64 dt, vs_dt = 0;

		preempt_disable();
		/* a pair's second half first in every other pair */
		if (req->vs != B_NCASES && (b & 1))
			vs_dt = bench_batch(req->vs, i, cpu, req->vs_size);
		dt = bench_batch(req->which, i, cpu, req->size);
		if (req->vs != B_NCASES && !(b & 1))
			vs_dt = bench_batch(req->vs, i, cpu, req->vs_size);
		preempt_enable();
		i += BENCH_BATCH;
		w->samples[b] = div_u64(dt, BENCH_BATCH);
		w->total_ns += dt;
		if (req->vs != B_NCASES) {
			w->vs_samples[b] = div_u64(vs_dt, BENCH_BATCH);
			w->ratios[b] = div64_u64(dt * 1000, max(vs_dt, 1ULL));
		}
		if (limit && local_clock() - start >= limit) {
			b++;
			break;
		}
		if (!(b & 255))
			cond_resched();
	}
	if (w->prof_ip)
		hrtimer_cancel(&w->prof_timer);
	w->nsamples = b;
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

struct bench_prof_fn {
	char		name[KSYM_NAME_LEN];
	unsigned int	n;
};

static int cmp_prof_fn(const void *a, const void *b)
{
	const struct bench_prof_fn *x = a, *y = b;

	return x->n > y->n ? -1 : x->n < y->n;
}

/* Count the writers' samples by function into bench_profile. */
static int bench_prof_report(const struct bench_req *req,
			     struct bench_worker *w, unsigned int nw)
{
	struct bench_prof_fn *fn;
	unsigned int i, j, k, nfn = 0, total = 0, max = 256;
	char name[KSYM_NAME_LEN];
	size_t len;

	fn = vcalloc(max, sizeof(*fn));
	if (!fn)
		return -ENOMEM;
	for (i = 0; i < nw; i++) {
		for (j = 0; j < w[i].prof_n; j++) {
			sprint_symbol_no_offset(name, w[i].prof_ip[j]);
			for (k = 0; k < nfn && strcmp(fn[k].name, name); k++)
				;
			if (k == nfn) {
				if (nfn == max)
					continue;	/* counted in total only */
				strscpy(fn[nfn++].name, name);
			}
			fn[k].n++;
		}
		total += w[i].prof_n;
	}
	sort(fn, nfn, sizeof(*fn), cmp_prof_fn, NULL);
	len = scnprintf(bench_profile, sizeof(bench_profile),
			"profile case=%s size=%u cpus=%u samples=%u\n",
			bench_names[req->which], req->size, req->cpus, total);
	for (k = 0; total && k < nfn && k < BENCH_PROF_TOP; k++)
		len += scnprintf(bench_profile + len,
				 sizeof(bench_profile) - len,
				 "%5u.%u%% %.80s\n",
				 fn[k].n * 100 / total,
				 fn[k].n * 1000 / total % 10, fn[k].name);
	vfree(fn);
	return 0;
}

static int bench_run(const struct bench_req *req)
{
	struct bench_worker *w;
	struct task_struct **t;
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned long per = req->calls / BENCH_BATCH, n = 0;
	unsigned int i, cpu, started = 0, arrays = req->vs != B_NCASES ? 3 : 1;
	u64 total = 0;
	u32 *all;
	int ret = 0;
	size_t len;

	w = kcalloc(req->cpus, sizeof(*w), GFP_KERNEL);
	t = kcalloc(req->cpus, sizeof(*t), GFP_KERNEL);
	/* samples, then (paired) vs_samples and ratios, per CPU each */
	all = vmalloc(array3_size(per, req->cpus * arrays, sizeof(u32)));
	if (!w || !t || !all) {
		ret = -ENOMEM;
		goto out;
	}
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < req->cpus; i++, cpu = cpumask_next(cpu, cpu_online_mask)) {
		w[i].req = req;
		w[i].go = &go;
		w[i].samples = all + i * per;
		if (arrays == 3) {
			w[i].vs_samples = all + (req->cpus + i) * per;
			w[i].ratios = all + (2 * req->cpus + i) * per;
		}
		if (req->profile) {
			w[i].prof_ip = vmalloc_array(BENCH_PROF_MAX,
						     sizeof(unsigned long));
			if (!w[i].prof_ip) {
				ret = -ENOMEM;
				break;
			}
		}
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
		/* Stopped by ms=, a writer leaves its slices part empty. */
		memmove(all + n, w[i].samples,
			w[i].nsamples * sizeof(*all));
		if (arrays == 3) {
			memmove(all + req->cpus * per + n, w[i].vs_samples,
				w[i].nsamples * sizeof(*all));
			memmove(all + 2 * req->cpus * per + n, w[i].ratios,
				w[i].nsamples * sizeof(*all));
		}
		n += w[i].nsamples;
	}
	if (ret || !n) {
		ret = ret ?: -EINVAL;
		goto out;
	}
	if (req->profile) {
		ret = bench_prof_report(req, w, started);
		if (ret)
			goto out;
	}
	sort(all, n, sizeof(u32), cmp_u32, NULL);
	len = scnprintf(bench_result, sizeof(bench_result),
			"case=%s size=%u cpus=%u calls=%lu median_ns=%u p99_ns=%u mean_ns=%llu",
			bench_names[req->which], req->size, req->cpus,
			n * BENCH_BATCH, all[n / 2], all[n * 99 / 100],
			div_u64(total, n * BENCH_BATCH));
	if (arrays == 3) {
		u32 *vs = all + req->cpus * per, *ratio = vs + req->cpus * per;

		sort(vs, n, sizeof(u32), cmp_u32, NULL);
		sort(ratio, n, sizeof(u32), cmp_u32, NULL);
		len += scnprintf(bench_result + len, sizeof(bench_result) - len,
				 " vs=%s vs_size=%u vs_median_ns=%u ratio_milli=%u",
				 bench_names[req->vs], req->vs_size, vs[n / 2],
				 ratio[n / 2]);
	}
	scnprintf(bench_result + len, sizeof(bench_result) - len, "\n");
out:
	for (i = 0; w && i < req->cpus; i++)
		vfree(w[i].prof_ip);
	vfree(all);
	kfree(t);
	kfree(w);
	return ret;
}

static int bench_case(const char *name, enum bench_case *which)
{
	int i = match_string(bench_names, B_NCASES, name);

	if (i < 0)
		return i;
	*which = i;
	return 0;
}

static int bench_parse(char *buf, struct bench_req *req)
{
	char *tok, *val;
	int ret = 0;

	*req = (struct bench_req){ .which = B_NCASES, .vs = B_NCASES,
				   .calls = 100000, .size = 32, .cpus = 1 };
	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "case")) {
			ret = bench_case(val, &req->which);
		} else if (!strcmp(tok, "vs")) {
			ret = bench_case(val, &req->vs);
		} else if (!strcmp(tok, "calls")) {
			ret = kstrtoul(val, 0, &req->calls);
		} else if (!strcmp(tok, "ms")) {
			ret = kstrtouint(val, 0, &req->ms);
		} else if (!strcmp(tok, "size")) {
			ret = kstrtouint(val, 0, &req->size);
		} else if (!strcmp(tok, "vs_size")) {
			ret = kstrtouint(val, 0, &req->vs_size);
		} else if (!strcmp(tok, "cpus")) {
			ret = kstrtouint(val, 0, &req->cpus);
		} else if (!strcmp(tok, "profile")) {
			ret = kstrtobool(val, &req->profile);
		} else if (!strcmp(tok, "handler")) {
			req->null_handler = !strcmp(val, "null");
			ret = req->null_handler || !strcmp(val, "none") ?
			      0 : -EINVAL;
		} else {
			ret = -EINVAL;
		}
		if (ret) {
			pr_err("bad '%s=%s'\n", tok, val);
			return -EINVAL;
		}
	}
	if (!req->vs_size)
		req->vs_size = req->size;
	if (req->which == B_NCASES || req->calls < BENCH_BATCH ||
	    req->calls > 100000000 || req->ms > 60000 || !req->size ||
	    req->size > BENCH_SIZE_MAX || req->vs_size > BENCH_SIZE_MAX ||
	    !req->cpus || req->cpus > num_online_cpus() ||
	    (req->vs != B_NCASES && req->profile))
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
	bench_profile[0] = '\0';
	if (req.null_handler)
		ret = register_klog_handler(&bench_null_handler);
	if (!ret) {
		ret = bench_run(&req);
		if (req.null_handler)
			unregister_klog_handler(&bench_null_handler);
	}
	mutex_unlock(&bench_lock);
	return ret ?: len;
}

/*
 * "pairs=N" to the register file: N times register_klog_handler() and
 * unregister_klog_handler() of the do-nothing handler, the first handler
 * of the system (the caller makes sure no other is registered), each
 * timed; the medians, in ns, are read back. The first registration flips
 * the core's keys (klog_active[]), which patches every call site's branch
 * on them: make bench times it with few sites and with klog_bench_sites'
 * 10,000.
 */
#define BENCH_REG_PAIRS_MAX	1000

static int run_show(struct seq_file *m, void *v);

static ssize_t registration_write(struct file *file,
				  const char __user *ubuf, size_t len,
				  loff_t *ppos)
{
	unsigned int pairs, i;
	u32 *reg, *pair;
	char buf[24];
	int ret = 0;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "pairs=%u", &pairs) != 1 || !pairs ||
	    pairs > BENCH_REG_PAIRS_MAX)
		return -EINVAL;
	reg = kcalloc(2 * pairs, sizeof(*reg), GFP_KERNEL);
	if (!reg)
		return -ENOMEM;
	pair = reg + pairs;
	mutex_lock(&bench_lock);
	for (i = 0; i < pairs && !ret; i++) {
		u64 t0 = ktime_get_ns(), t1;

		ret = register_klog_handler(&bench_null_handler);
		t1 = ktime_get_ns();
		if (!ret)
			ret = unregister_klog_handler(&bench_null_handler);
		reg[i] = min_t(u64, t1 - t0, U32_MAX);
		pair[i] = min_t(u64, ktime_get_ns() - t0, U32_MAX);
	}
	if (!ret) {
		sort(reg, pairs, sizeof(u32), cmp_u32, NULL);
		sort(pair, pairs, sizeof(u32), cmp_u32, NULL);
		snprintf(bench_result, sizeof(bench_result),
			 "register pairs=%u register_median_ns=%u pair_median_ns=%u\n",
			 pairs, reg[pairs / 2], pair[pairs / 2]);
	}
	mutex_unlock(&bench_lock);
	kfree(reg);
	return ret ?: len;
}

static int registration_show(struct seq_file *m, void *v)
{
	return run_show(m, v);
}

DEFINE_SHOW_STORE_ATTRIBUTE(registration);

static int run_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_lock);
	seq_puts(m, bench_result);
	mutex_unlock(&bench_lock);
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(run);

static int profile_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_lock);
	seq_puts(m, bench_profile);
	mutex_unlock(&bench_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(profile);

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
	if (klog_args_plan_init(&bench_plan, BENCH_FMT))
		return -EINVAL;
	bench_dir = debugfs_create_dir("klog_bench", NULL);
	bench_chan = relay_open("relay", bench_dir, SZ_64K, 4, &bench_relay_cb,
				NULL);
	if (!bench_chan) {
		debugfs_remove_recursive(bench_dir);
		return -ENOMEM;
	}
	debugfs_create_file("run", 0600, bench_dir, NULL, &run_fops);
	debugfs_create_file("profile", 0400, bench_dir, NULL, &profile_fops);
	debugfs_create_file("register", 0600, bench_dir, NULL, &registration_fops);
	debugfs_create_u32("site_bytes", 0400, bench_dir, &bench_site_bytes);
	debugfs_create_u32("plan_bytes", 0400, bench_dir, &bench_plan_bytes);
	/* klog_off's site stays disabled; the query cannot fail. */
	klog_query("format \"bench off\" =_", KBUILD_MODNAME);
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
