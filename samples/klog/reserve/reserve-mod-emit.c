// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod: traffic on request, and the reserve-vs-copy benchmark
 *
 * /sys/kernel/debug/reserve/emit (write) runs one request, e.g.
 *	"count=1000 size=64 ctx=task,hardirq cpus=all delay_us=500 delay_every=50"
 * writing self-checking records (reserve-format.h) into the main channel
 * from one kthread per CPU and context: "task" writes from the kthread,
 * "hardirq" from a pinned hard hrtimer the kthread arms for each batch.
 * Keys: count (records per CPU and context, 1..10^9), size (record bytes,
 * header included, a multiple of 8, 32..1 MiB; larger than a sub-buffer
 * is counted as "big"), ctx, cpus (all, or a list like 0,2-3), gap_us
 * (sleep after each batch), delay_us and delay_every: every delay_every-th
 * task record (default 1) sleeps delay_us (fsleep(), up to 1 s) between
 * reserve_begin() and filling it in, with interrupts on, so that hardirq
 * records of its CPU are reserved and committed in the middle of it and
 * readers find its sub-buffer produced but not complete.
 *
 * The write returns when every record was offered (reserved, or dropped
 * and counted): 0; -ENODEV if logging is not enabled; -ECANCELED if it
 * was disabled before the end; -EINTR on a signal; -EINVAL for a bad
 * request (the bad key is named in the kernel log). Requests are
 * serialised; the per-CPU counts are in ``stats`` (offered).
 *
 * /sys/kernel/debug/reserve/bench: write "count=N size=S[,S...]" (count
 * 1..10^7, up to 8 sizes, each a multiple of 8 in 32..64 KiB); reading
 * gives one line per size, from the last run:
 *	"cpu=C size=S count=N reserve_ns=X.Y copy_ns=X.Y"
 * ns per record, measured on the writing CPU with local_clock() in a
 * private channel of its own (overwrite mode, no reader, and no files:
 * its state lives on bench_run()'s stack, which a file could outlive):
 * reserve = reserve_begin(), fill the record in place, reserve_commit();
 * copy = fill a staging record, then relay_write() it. Both fill the
 * same header and a memset() payload and take a timestamp; they run in
 * alternating batches of BENCH_BATCH (preemption off within a batch),
 * after one untimed batch each, so both see the same cache and clock
 * conditions.
 *
 * Copyright (C) 2026 The klog authors
 */

#define pr_fmt(fmt) "reserve-mod: " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/sched/signal.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "../../../tools/lib/klog/klog_hash.h"
#include "reserve-mod.h"

#define EMIT_BATCH		16	/* records per batch (per interrupt) */
#define EMIT_SIZE_MAX		SZ_1M
#define EMIT_DELAY_MAX		1000000U	/* us */
#define EMIT_NCTX		2
#define BENCH_BATCH		256
#define BENCH_SIZES		8
#define BENCH_COUNT_MAX		10000000
#define BENCH_SIZE_MAX		SZ_64K
#define BENCH_N_SUBBUFS		4

static const char * const ctx_names[EMIT_NCTX] = { "task", "hardirq" };

struct emit_req {
	u64		count;
	u32		size;
	unsigned int	ctx_mask;
	unsigned int	gap_us;
	unsigned int	delay_us;
	u32		delay_every;
	cpumask_var_t	cpus;
};

/* One stream: a (CPU, context) pair of one request. */
struct emit_stream {
	const struct emit_req	*req;
	unsigned int		cpu;
	unsigned int		ctx;
	u64			done;		/* records offered */
	struct hrtimer		timer;
	struct completion	batch_done;
	struct task_struct	*task;
	int			ret;
};

static DEFINE_MUTEX(emit_lock);
static DEFINE_MUTEX(bench_lock);
static char *bench_result;		/* under bench_lock */

/* The self-checking record of reserve-format.h. */
static void emit_fill(const struct reserve_slot *slot, u8 ctx)
{
	struct reserve_rec *r = slot->rec;
	u8 *payload = (u8 *)(r + 1);
	size_t i, n = slot->size - sizeof(*r);

	*r = (struct reserve_rec) {
		.size	= slot->size,
		.cpu	= slot->cpu,
		.ctx	= ctx,
		.flags	= slot->flags,
		.seq	= slot->seq,
		.ts_ns	= slot->ts_ns,
	};
	for (i = 0; i < n; i++)
		payload[i] = (u8)(slot->seq * 31 + i);
	r->csum = klog_fnv1a(klog_fnv1a(KLOG_FNV1A_INIT, r,
					offsetof(struct reserve_rec, csum)),
			     payload, n);
}

/*
 * One record; false when logging is off. Dropped records (buffer full,
 * too big) are counted by reserve_begin() and are still offered.
 */
static bool emit_one(struct emit_stream *s)
{
	const struct emit_req *req = s->req;
	struct reserve_slot slot;
	bool delay = false;
	u32 rem;

	/* every delay_every-th task record (div_u64_rem: 32-bit too) */
	if (s->ctx == RESERVE_CTX_TASK && req->delay_us) {
		div_u64_rem(s->done + 1, req->delay_every, &rem);
		delay = !rem;
	}

	if (!READ_ONCE(reserve_enabled))
		return false;
	s->done++;
	if (!reserve_begin(&reserve_main, req->size,
			   delay ? RESERVE_REC_DELAYED : 0, &slot))
		return true;
	/*
	 * Task context, interrupts on, nothing held: interrupt writers of
	 * this CPU reserve and commit after this record while it is open.
	 */
	if (delay)
		fsleep(req->delay_us);
	emit_fill(&slot, s->ctx);
	reserve_commit(&slot);
	return true;
}

/* A batch; false when logging went off. */
static bool emit_batch(struct emit_stream *s)
{
	unsigned int i;

	for (i = 0; i < EMIT_BATCH && s->done < s->req->count; i++)
		if (!emit_one(s))
			return false;
	return true;
}

static enum hrtimer_restart emit_timer_fn(struct hrtimer *t)
{
	struct emit_stream *s = container_of(t, struct emit_stream, timer);

	if (!emit_batch(s))
		WRITE_ONCE(s->ret, -ECANCELED);
	complete(&s->batch_done);
	return HRTIMER_NORESTART;
}

static int emit_stream_fn(void *data)
{
	struct emit_stream *s = data;
	int ret = 0;

	while (s->done < s->req->count && !ret) {
		if (s->ctx == RESERVE_CTX_TASK) {
			if (!emit_batch(s))
				ret = -ECANCELED;
		} else {
			reinit_completion(&s->batch_done);
			hrtimer_start(&s->timer, 0, HRTIMER_MODE_REL_PINNED_HARD);
			wait_for_completion(&s->batch_done);
			ret = READ_ONCE(s->ret);
		}
		if (s->req->gap_us)
			usleep_range(s->req->gap_us, s->req->gap_us + 10);
		if (!ret && (signal_pending(current) || kthread_should_stop()))
			ret = -EINTR;
		cond_resched();
	}
	WRITE_ONCE(s->ret, ret);
	/* Published for emit_run(); it stops us. */
	smp_store_release(&s->task, NULL);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Run the streams of @req; reserve_writers held for reading. */
static int emit_run(const struct emit_req *req)
{
	unsigned int cpu, ctx, n = 0, i;
	struct task_struct **tasks;
	struct emit_stream *streams;
	int ret = 0;

	streams = kcalloc(nr_cpu_ids * EMIT_NCTX, sizeof(*streams), GFP_KERNEL);
	tasks = kcalloc(nr_cpu_ids * EMIT_NCTX, sizeof(*tasks), GFP_KERNEL);
	if (!streams || !tasks) {
		ret = -ENOMEM;
		goto free;
	}

	cpus_read_lock();
	for_each_cpu_and(cpu, req->cpus, cpu_online_mask) {
		for (ctx = 0; ctx < EMIT_NCTX; ctx++) {
			struct emit_stream *s = &streams[n];

			if (!(req->ctx_mask & BIT(ctx)))
				continue;
			s->req = req;
			s->cpu = cpu;
			s->ctx = ctx;
			init_completion(&s->batch_done);
			hrtimer_init(&s->timer, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL_PINNED_HARD);
			s->timer.function = emit_timer_fn;
			tasks[n] = kthread_create_on_cpu(emit_stream_fn, s, cpu,
							 "reserve/%u");
			if (IS_ERR(tasks[n])) {
				ret = PTR_ERR(tasks[n]);
				tasks[n] = NULL;
				break;
			}
			s->task = tasks[n];
			n++;
		}
		if (ret)
			break;
	}
	cpus_read_unlock();

	for (i = 0; i < n && !ret; i++)
		wake_up_process(tasks[i]);
	for (i = 0; i < n && !ret; i++) {
		/* Pairs with smp_store_release() in emit_stream_fn(). */
		while (smp_load_acquire(&streams[i].task)) {
			if (signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			schedule_timeout_interruptible(msecs_to_jiffies(5));
		}
	}
	/* Stops the streams not finished yet (-EINTR) and waits for them. */
	for (i = 0; i < n; i++) {
		kthread_stop(tasks[i]);
		hrtimer_cancel(&streams[i].timer);
		if (streams[i].ret && !ret)
			ret = streams[i].ret;
	}
free:
	kfree(tasks);
	kfree(streams);
	return ret;
}

/* "task", "hardirq" or both, comma-separated. */
static int parse_ctx(char *val, unsigned int *mask)
{
	char *name;
	int i;

	*mask = 0;
	while ((name = strsep(&val, ",")) != NULL) {
		i = match_string(ctx_names, EMIT_NCTX, name);
		if (i < 0)
			return -EINVAL;
		*mask |= BIT(i);
	}
	return 0;
}

static int parse_cpus(const char *val, struct cpumask *cpus)
{
	if (strcmp(val, "all"))
		return cpulist_parse(val, cpus);
	cpumask_copy(cpus, cpu_online_mask);
	return 0;
}

/* "key=value" pairs separated by blanks; calls @set for each. */
static int parse_pairs(char *buf, const char *what,
		       int (*set)(const char *key, char *val, void *arg),
		       void *arg)
{
	char *tok, *val, shown[32];
	int ret;

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val) {
			pr_err("%s: '%s' is not key=value\n", what, tok);
			return -EINVAL;
		}
		*val++ = '\0';
		strscpy(shown, val, sizeof(shown));	/* @set may cut it up */
		ret = set(tok, val, arg);
		if (ret == -ENOENT) {
			pr_err("%s: unknown key '%s'\n", what, tok);
			return -EINVAL;
		}
		if (ret) {
			pr_err("%s: bad value for '%s': '%s'\n", what, tok, shown);
			return -EINVAL;
		}
	}
	return 0;
}

static int emit_set(const char *key, char *val, void *arg)
{
	struct emit_req *req = arg;

	if (!strcmp(key, "count"))
		return kstrtou64(val, 0, &req->count);
	if (!strcmp(key, "size"))
		return kstrtou32(val, 0, &req->size);
	if (!strcmp(key, "ctx"))
		return parse_ctx(val, &req->ctx_mask);
	if (!strcmp(key, "cpus"))
		return parse_cpus(val, req->cpus);
	if (!strcmp(key, "gap_us"))
		return kstrtouint(val, 0, &req->gap_us);
	if (!strcmp(key, "delay_us"))
		return kstrtouint(val, 0, &req->delay_us);
	if (!strcmp(key, "delay_every"))
		return kstrtou32(val, 0, &req->delay_every);
	return -ENOENT;
}

static int emit_parse(char *buf, struct emit_req *req)
{
	int ret;

	req->count = 1;
	req->size = 64;
	req->ctx_mask = BIT(RESERVE_CTX_TASK);
	req->gap_us = 0;
	req->delay_us = 0;
	req->delay_every = 1;
	cpumask_copy(req->cpus, cpu_online_mask);

	ret = parse_pairs(buf, "emit", emit_set, req);
	if (ret)
		return ret;
	if (!req->count || req->count > 1000000000ULL) {
		pr_err("emit: count must be 1..1000000000\n");
		return -EINVAL;
	}
	if (req->size < sizeof(struct reserve_rec) ||
	    req->size > EMIT_SIZE_MAX ||
	    !IS_ALIGNED(req->size, RESERVE_REC_ALIGN)) {
		pr_err("emit: size %u: must be a multiple of %u in %zu..%u\n",
		       req->size, RESERVE_REC_ALIGN, sizeof(struct reserve_rec),
		       EMIT_SIZE_MAX);
		return -EINVAL;
	}
	if (!req->ctx_mask) {
		pr_err("emit: empty ctx\n");
		return -EINVAL;
	}
	if (req->delay_us > EMIT_DELAY_MAX || !req->delay_every) {
		pr_err("emit: delay_us must be 0..%u, delay_every >= 1\n",
		       EMIT_DELAY_MAX);
		return -EINVAL;
	}
	if (!cpumask_intersects(req->cpus, cpu_online_mask)) {
		pr_err("emit: no online CPU in cpus=\n");
		return -EINVAL;
	}
	return 0;
}

/* A write to ``emit``: one request, run before the write returns. */
int reserve_emit_store(char *buf)
{
	struct emit_req req;
	int ret;

	if (!zalloc_cpumask_var(&req.cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = emit_parse(buf, &req);
	if (ret)
		goto out;
	ret = mutex_lock_interruptible(&emit_lock);
	if (ret)
		goto out;
	/* reserve_set_enabled(false) waits for us from here on. */
	mutex_lock(&reserve_ctl_lock);
	if (!reserve_enabled) {
		mutex_unlock(&reserve_ctl_lock);
		ret = -ENODEV;
	} else {
		down_read(&reserve_writers);
		mutex_unlock(&reserve_ctl_lock);
		ret = emit_run(&req);
		up_read(&reserve_writers);
	}
	mutex_unlock(&emit_lock);
out:
	free_cpumask_var(req.cpus);
	return ret;
}

/* ---- benchmark -------------------------------------------------------- */

struct bench_req {
	u32	count;
	u32	nsizes;
	u32	sizes[BENCH_SIZES];
};

static int bench_set(const char *key, char *val, void *arg)
{
	struct bench_req *req = arg;
	char *s;
	int ret;

	if (!strcmp(key, "count"))
		return kstrtou32(val, 0, &req->count);
	if (strcmp(key, "size"))
		return -ENOENT;
	req->nsizes = 0;
	while ((s = strsep(&val, ",")) != NULL) {
		if (req->nsizes == BENCH_SIZES)
			return -EINVAL;
		ret = kstrtou32(s, 0, &req->sizes[req->nsizes]);
		if (ret)
			return ret;
		req->nsizes++;
	}
	return 0;
}

static int bench_parse(char *buf, struct bench_req *req)
{
	u32 i;
	int ret;

	*req = (struct bench_req) { .count = 100000, .nsizes = 1, .sizes = { 64 } };
	ret = parse_pairs(buf, "bench", bench_set, req);
	if (ret)
		return ret;
	if (!req->count || req->count > BENCH_COUNT_MAX) {
		pr_err("bench: count must be 1..%u\n", BENCH_COUNT_MAX);
		return -EINVAL;
	}
	for (i = 0; i < req->nsizes; i++) {
		u32 size = req->sizes[i];

		if (size < sizeof(struct reserve_rec) || size > BENCH_SIZE_MAX ||
		    !IS_ALIGNED(size, RESERVE_REC_ALIGN)) {
			pr_err("bench: size %u: must be a multiple of %u in %zu..%u\n",
			       size, RESERVE_REC_ALIGN,
			       sizeof(struct reserve_rec), BENCH_SIZE_MAX);
			return -EINVAL;
		}
	}
	return 0;
}

/* What both ways write: the header and a payload of one repeated byte. */
static void bench_fill(struct reserve_rec *r, u32 size, u32 cpu, u64 seq,
		       u64 ts_ns)
{
	*r = (struct reserve_rec) {
		.size	= size,
		.cpu	= cpu,
		.seq	= seq,
		.ts_ns	= ts_ns,
	};
	memset(r + 1, (u8)seq, size - sizeof(*r));
}

/* @n records reserved and filled in place; returns the ns they took. */
static u64 bench_reserve(struct reserve_chan *rc, u32 size, u32 n)
{
	struct reserve_slot slot;
	u64 t0 = local_clock();

	while (n--) {
		if (!reserve_begin(rc, size, 0, &slot))
			continue;
		bench_fill(slot.rec, size, slot.cpu, slot.seq, slot.ts_ns);
		reserve_commit(&slot);
	}
	return local_clock() - t0;
}

/* @n records staged in @stage and copied by relay_write(). */
static u64 bench_copy(struct reserve_chan *rc, void *stage, u32 size, u32 n,
		      u32 cpu, u64 *seq)
{
	u64 t0 = local_clock();

	while (n--) {
		bench_fill(stage, size, cpu, (*seq)++, local_clock());
		relay_write(rc->rchan, stage, size);
	}
	return local_clock() - t0;
}

static int bench_run(const struct bench_req *req, struct seq_buf *out)
{
	struct reserve_chan rc = { };
	u64 t_reserve, t_copy, seq = 0;
	size_t subbuf = SZ_64K;
	u32 i, left, n, cpu, r_tenths, c_tenths;
	void *stage;
	int ret;

	for (i = 0; i < req->nsizes; i++)
		subbuf = max_t(size_t, subbuf, 4 * req->sizes[i]);
	stage = kmalloc(BENCH_SIZE_MAX, GFP_KERNEL);
	if (!stage)
		return -ENOMEM;
	/* No files (NULL name): nothing can reach @rc after we return. */
	ret = reserve_chan_open(&rc, NULL, NULL, subbuf, BENCH_N_SUBBUFS, true);
	if (ret)
		goto free;

	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < req->nsizes && !ret; i++) {
		u32 size = req->sizes[i];

		/* warm up: code, buffer and staging area in the caches */
		bench_reserve(&rc, size, BENCH_BATCH);
		bench_copy(&rc, stage, size, BENCH_BATCH, cpu, &seq);
		t_reserve = 0;
		t_copy = 0;
		for (left = req->count; left; left -= n) {
			n = min(left, BENCH_BATCH);
			/* no preemption inside a timed batch */
			preempt_disable();
			t_reserve += bench_reserve(&rc, size, n);
			t_copy += bench_copy(&rc, stage, size, n, cpu, &seq);
			preempt_enable();
			if (signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			cond_resched();
		}
		/* tenths of a ns per record (div_u64: 32-bit kernels too) */
		t_reserve = div_u64_rem(div_u64(t_reserve * 10, req->count),
					10, &r_tenths);
		t_copy = div_u64_rem(div_u64(t_copy * 10, req->count), 10,
				     &c_tenths);
		seq_buf_printf(out,
			       "cpu=%u size=%u count=%u reserve_ns=%llu.%u copy_ns=%llu.%u\n",
			       cpu, size, req->count, t_reserve, r_tenths,
			       t_copy, c_tenths);
	}
	migrate_enable();
	reserve_chan_close(&rc);
free:
	kfree(stage);
	return ret;
}

/* A write to ``bench``: one run, whose result a read then shows. */
int reserve_bench_store(char *buf)
{
	struct bench_req req;
	struct seq_buf out;
	char *res;
	int ret;

	ret = bench_parse(buf, &req);
	if (ret)
		return ret;
	res = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	seq_buf_init(&out, res, PAGE_SIZE);
	ret = mutex_lock_interruptible(&bench_lock);
	if (ret) {
		kfree(res);
		return ret;
	}
	ret = bench_run(&req, &out);
	if (!ret)
		swap(res, bench_result);
	mutex_unlock(&bench_lock);
	kfree(res);
	return ret;
}

void reserve_bench_show(struct seq_file *m)
{
	mutex_lock(&bench_lock);
	if (bench_result)
		seq_puts(m, bench_result);
	mutex_unlock(&bench_lock);
}

void reserve_emit_exit(void)
{
	kfree(bench_result);
}
