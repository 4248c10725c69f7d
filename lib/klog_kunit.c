// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the klog core: handler registration rules, the record a
 * handler sees, the disabled path, truncation, nesting from handlers and
 * from hard interrupts, fan-out, synchronous unregister, and per-CPU
 * writers on every online CPU. The call-site table and its queries are
 * tested by klog_sites_kunit.c, a module of the same option.
 *
 * Records from other klog call sites (there should be none while this
 * runs) are ignored: every capturing handler keeps only records whose
 * call site is in this module (klog_kunit.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/klog.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "klog_kunit.h"

static void klog_register_rules(struct kunit *test)
{
	struct klog_handler nameless = { .write = capture_write };
	struct klog_handler writeless = { .name = "writeless" };
	struct capture *c = capture_alloc(test);

	KUNIT_EXPECT_EQ(test, register_klog_handler(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_klog_handler(&nameless), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_klog_handler(&writeless), -EINVAL);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(NULL), -EINVAL);

	c->handler.name = "twice";
	c->handler.write = capture_write;
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&c->handler), -ENOENT);
	KUNIT_ASSERT_EQ(test, register_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_EQ(test, register_klog_handler(&c->handler), -EBUSY);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&c->handler), -ENOENT);
}

static int evaluated;

/* How many of the core's keys are on: all or none, at rest. */
static unsigned int klog_active_on(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < KLOG_ACTIVE_KEYS; i++)
		n += static_key_enabled(&klog_active[i]);
	return n;
}

static int count_evaluation(void)
{
	return ++evaluated;
}

/* A klog_raw() call site on the core's key @k, whatever its counter. */
#define KT_KEY(k)							\
do {									\
	KLOG_DEFINE_SITE(__klog_site, NULL, KLOG_KIND_RAW);		\
	if (__klog_site_on_key(__klog_site, k))				\
		__klog_raw(&__klog_site, &evaluated,			\
			   (count_evaluation(), sizeof(evaluated)));	\
} while (0)

/* A call site on each of the core's keys. */
#define KT_RAW_ON_EVERY_KEY()						\
do {									\
	static_assert(KLOG_ACTIVE_KEYS == 16);				\
	KT_KEY(0); KT_KEY(1); KT_KEY(2); KT_KEY(3);			\
	KT_KEY(4); KT_KEY(5); KT_KEY(6); KT_KEY(7);			\
	KT_KEY(8); KT_KEY(9); KT_KEY(10); KT_KEY(11);			\
	KT_KEY(12); KT_KEY(13); KT_KEY(14); KT_KEY(15);			\
} while (0)

/*
 * With no handler no call evaluates its arguments, on any of the core's
 * keys; with one every call does, once; after it went none does again.
 */
static void klog_disabled_path(struct kunit *test)
{
	struct capture *c = capture_alloc(test);

	KUNIT_ASSERT_FALSE_MSG(test, klog_enabled(),
			       "a klog handler is registered before the test");
	KUNIT_ASSERT_EQ(test, klog_active_on(), 0);
	evaluated = 0;
	klog_printk("eval %d\n", count_evaluation());
	klog_raw(&evaluated, count_evaluation());
	KT_RAW_ON_EVERY_KEY();
	KUNIT_EXPECT_EQ(test, evaluated, 0);

	capture_start(test, c);
	KUNIT_EXPECT_EQ(test, klog_active_on(), KLOG_ACTIVE_KEYS);
	KUNIT_EXPECT_TRUE(test, klog_enabled());
	klog_printk("eval %d\n", count_evaluation());
	KUNIT_EXPECT_EQ(test, evaluated, 1);
	KUNIT_ASSERT_EQ(test, c->n, 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, 7);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, "eval 1\n", 7);
	KT_RAW_ON_EVERY_KEY();
	KUNIT_EXPECT_EQ(test, evaluated, 17);
	KUNIT_EXPECT_EQ(test, c->n, 17);

	KUNIT_ASSERT_EQ(test, unregister_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_EQ(test, klog_active_on(), 0);
	KUNIT_EXPECT_FALSE(test, klog_enabled());
	klog_printk("eval %d\n", count_evaluation());
	KT_RAW_ON_EVERY_KEY();
	KUNIT_EXPECT_EQ(test, evaluated, 17);
	KUNIT_EXPECT_EQ(test, c->n, 17);
}

static void klog_text_record(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	static const char expect[] = "answer=42 name=klog";
	const struct klog_record *rec;
	unsigned int cpu, line;
	u64 before, after;

	capture_start(test, c);
	preempt_disable();
	cpu = smp_processor_id();
	before = local_clock();
	line = __LINE__; klog_printk("answer=%d name=%s", 42, "klog");
	after = local_clock();
	preempt_enable();

	KUNIT_ASSERT_EQ(test, c->n, 1);
	rec = &c->recs[0].rec;
	KUNIT_EXPECT_EQ(test, rec->len, sizeof(expect) - 1);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, expect, sizeof(expect) - 1);
	/* the site has an argument plan: recorded in binary */
	KUNIT_EXPECT_EQ(test, rec->kind, KLOG_KIND_ARGS);
	KUNIT_EXPECT_EQ(test, rec->ctx, KLOG_CTX_TASK);
	KUNIT_EXPECT_EQ(test, rec->flags, 0);
	KUNIT_EXPECT_EQ(test, rec->cpu, cpu);
	KUNIT_EXPECT_EQ(test, rec->pid, current->pid);
	KUNIT_EXPECT_GE(test, rec->ts_ns, before);
	KUNIT_EXPECT_LE(test, rec->ts_ns, after);
	KUNIT_EXPECT_EQ(test, rec->site->line, line);
	KUNIT_EXPECT_STREQ(test, rec->site->func, __func__);
	KUNIT_EXPECT_EQ(test, rec->site->func_len, strlen(__func__));
	KUNIT_EXPECT_STREQ(test, rec->site->fmt, "answer=%d name=%s");
	KUNIT_EXPECT_EQ(test, rec->site->kind, KLOG_KIND_TEXT);
	KUNIT_EXPECT_STREQ(test, rec->site->file, "lib/" KBUILD_BASENAME ".c");
}

/*
 * A site whose format gets no argument plan (an extension conversion
 * longer than 23 characters: vsnprintf() skips the letters after %pI4)
 * is formatted at the call, a text record; the same call with a plan is
 * recorded in binary, and both make vsnprintf()'s text.
 */
#define NOPLAN_FMT	"%pI4abcdefghijklmnopqrstuvwx"

static void klog_no_plan_formats_at_call(struct kunit *test)
{
	static const u8 ip[4] = { 192, 168, 0, 1 };
	struct capture *c = capture_alloc(test);
	char expect[32];
	int n;

	capture_start(test, c);
	klog_printk(NOPLAN_FMT, ip);
	klog_printk("%pI4", ip);
	n = snprintf(expect, sizeof(expect), NOPLAN_FMT, ip);

	KUNIT_ASSERT_EQ(test, c->n, 2);
	KUNIT_EXPECT_EQ(test, n, 11);
	KUNIT_EXPECT_NULL(test, c->recs[0].rec.site->plan);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.kind, KLOG_KIND_TEXT);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, n);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, expect, n);
	KUNIT_EXPECT_NOT_NULL(test, c->recs[1].rec.site->plan);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.kind, KLOG_KIND_ARGS);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.len, n);
	KUNIT_EXPECT_MEMEQ(test, c->recs[1].payload, expect, n);
}

static void klog_raw_record(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	u8 data[100];
	int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 7 + 3;
	capture_start(test, c);
	klog_raw(data, sizeof(data));
	klog_raw(data, 0);

	KUNIT_ASSERT_EQ(test, c->n, 2);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.kind, KLOG_KIND_RAW);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, sizeof(data));
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, data, sizeof(data));
	KUNIT_EXPECT_NULL(test, c->recs[0].rec.site->fmt);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.flags, 0);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.len, 0);
}

static void klog_truncation(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	char *s = kunit_kzalloc(test, 2 * KLOG_TEXT_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_start(test, c);

	/* KLOG_TEXT_MAX - 1 bytes fit exactly. */
	memset(s, 'a', KLOG_TEXT_MAX - 1);
	klog_printk("%s", s);
	/* One more byte, or many more, is cut and flagged. */
	memset(s, 'b', KLOG_TEXT_MAX);
	klog_printk("%s", s);
	memset(s, 'c', 2 * KLOG_TEXT_MAX - 1);
	klog_printk("%s", s);

	KUNIT_ASSERT_EQ(test, c->n, 3);
	/*
	 * Recorded in binary, the text cut when read (klog_record_format()
	 * in the capture): the record's flags cannot know it.
	 */
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.kind, KLOG_KIND_ARGS);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, KLOG_TEXT_MAX - 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.flags, 0);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.kind, KLOG_KIND_ARGS);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.len, KLOG_TEXT_MAX - 1);
	KUNIT_EXPECT_EQ(test, c->recs[1].payload[KLOG_TEXT_MAX - 2], 'b');
	KUNIT_EXPECT_EQ(test, c->recs[2].rec.kind, KLOG_KIND_ARGS);
	KUNIT_EXPECT_EQ(test, c->recs[2].rec.len, KLOG_TEXT_MAX - 1);
	KUNIT_EXPECT_MEMEQ(test, c->recs[2].payload, s, KLOG_TEXT_MAX - 1);
}

/* %p is hashed as in printk: klog must not leak kernel addresses. */
static void klog_pointer_hashed(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	char raw[24];
	int n;

	capture_start(test, c);
	klog_printk("%p", c);
	n = snprintf(raw, sizeof(raw), "%lx", (unsigned long)c);

	KUNIT_ASSERT_EQ(test, c->n, 1);
	KUNIT_EXPECT_GT(test, c->recs[0].rec.len, 0);
	KUNIT_EXPECT_FALSE(test, c->recs[0].rec.len == n &&
			   !memcmp(c->recs[0].payload, raw, n));
}

static void klog_fanout(struct kunit *test)
{
	struct capture *a = capture_alloc(test), *b = capture_alloc(test);
	int order[4], order_n = 0;

	a->order = order;
	b->order = order;
	a->order_n = &order_n;
	b->order_n = &order_n;
	a->id = 1;
	b->id = 2;
	capture_start(test, a);
	capture_start(test, b);
	klog_printk("fan %d", 1);

	KUNIT_ASSERT_EQ(test, order_n, 2);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 2);
	KUNIT_ASSERT_EQ(test, a->n, 1);
	KUNIT_ASSERT_EQ(test, b->n, 1);
	KUNIT_EXPECT_MEMEQ(test, a->recs[0].payload, "fan 1", 5);
	KUNIT_EXPECT_MEMEQ(test, b->recs[0].payload, "fan 1", 5);
}

/*
 * A handler that calls klog itself nests one level per call. Level
 * KLOG_NEST_MAX + 1 does not exist: that record is refused and counted. Each level's
 * text must survive the deeper calls made while it is being handled.
 */
static int nest_corrupted;

static void recurse_hook(struct capture *c, const struct klog_record *rec)
{
	char expect[16], text[16];
	int depth = c->n - 1;

	snprintf(expect, sizeof(expect), "depth=%d", depth);
	klog_printk("depth=%d", depth + 1);
	if (klog_record_format(rec, text, sizeof(text)) != strlen(expect) ||
	    strcmp(text, expect))
		nest_corrupted++;
}

static void klog_nesting_limit(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	unsigned int cpu;
	u64 dropped;
	int i;

	c->hook = recurse_hook;
	nest_corrupted = 0;
	capture_start(test, c);

	preempt_disable();
	cpu = smp_processor_id();
	dropped = klog_nest_dropped(cpu);
	klog_printk("depth=%d", 0);
	dropped = klog_nest_dropped(cpu) - dropped;
	preempt_enable();

	KUNIT_EXPECT_EQ(test, c->n, KLOG_NEST_MAX);
	KUNIT_EXPECT_EQ(test, dropped, 1);
	KUNIT_EXPECT_EQ(test, nest_corrupted, 0);
	for (i = 0; i < KLOG_NEST_MAX; i++)
		KUNIT_EXPECT_EQ(test, c->recs[i].rec.cpu, cpu);
}

/* A hard interrupt that logs while a task-context record is in flight. */
static atomic_t irq_ran;

static void irq_logger(struct irq_work *work)
{
	klog_printk("from irq %d", 7);
	atomic_set(&irq_ran, 1);
}

static DEFINE_IRQ_WORK(irq_log_work, irq_logger);
static int irq_timed_out;
static int outer_clobbered;

static void interrupt_hook(struct capture *c, const struct klog_record *rec)
{
	char text[16];
	u64 deadline;

	if (c->n != 1)
		return;
	atomic_set(&irq_ran, 0);
	irq_work_queue(&irq_log_work);
	deadline = local_clock() + 2 * NSEC_PER_SEC;
	while (!atomic_read(&irq_ran) && local_clock() < deadline)
		cpu_relax();
	irq_timed_out = !atomic_read(&irq_ran);
	/* The outer record's buffer, after the interrupt logged. */
	outer_clobbered = klog_record_format(rec, text, sizeof(text)) != 12 ||
			  strcmp(text, "outer record");
}

static void klog_nesting_hardirq(struct kunit *test)
{
	static const char outer[] = "outer record";
	struct capture *c = capture_alloc(test);

	c->hook = interrupt_hook;
	capture_start(test, c);
	klog_printk("outer %s", "record");
	irq_work_sync(&irq_log_work);

	KUNIT_ASSERT_FALSE_MSG(test, irq_timed_out, "irq_work did not run");
	KUNIT_ASSERT_EQ(test, c->n, 2);
	/* The interrupt's record was delivered inside the outer handler. */
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.ctx, KLOG_CTX_HARDIRQ);
	KUNIT_EXPECT_EQ(test, c->recs[1].rec.len, 10);
	KUNIT_EXPECT_MEMEQ(test, c->recs[1].payload, "from irq 7", 10);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.ctx, KLOG_CTX_TASK);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.cpu, c->recs[1].rec.cpu);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, outer, sizeof(outer) - 1);
	KUNIT_EXPECT_EQ(test, outer_clobbered, 0);
}

static int triggers_seen;
static int trigger_after_write;

static void count_trigger(struct klog_handler *h, const struct klog_record *rec)
{
	struct capture *c = container_of(h, struct capture, handler);

	triggers_seen++;
	/* The trigger record was written first, and this is the same one. */
	trigger_after_write = c->n == 1 && rec->flags == KLOG_REC_TRIGGER &&
			      rec->len == c->recs[0].rec.len;
}

static void klog_trigger_calls_handlers(struct kunit *test)
{
	static const char expect[] = "klog_trigger: lost interrupt";
	struct capture *c = capture_alloc(test);

	c->handler.trigger = count_trigger;
	triggers_seen = 0;
	capture_start(test, c);
	klog_trigger("lost interrupt");

	KUNIT_ASSERT_EQ(test, c->n, 1);
	KUNIT_EXPECT_EQ(test, triggers_seen, 1);
	KUNIT_EXPECT_EQ(test, trigger_after_write, 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.flags, KLOG_REC_TRIGGER);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, sizeof(expect) - 1);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, expect, sizeof(expect) - 1);

	/* A handler without ->trigger only gets the record. */
	c->handler.trigger = NULL;
	klog_trigger("again");
	KUNIT_EXPECT_EQ(test, c->n, 2);
	KUNIT_EXPECT_EQ(test, triggers_seen, 1);
}

/* Per-CPU writers; the handler checks each CPU's sequence. */
#define WRITER_RECORDS	20000

struct seq_check {
	struct klog_handler	handler;
	atomic_t		in_handler;
	atomic_long_t		calls;
	atomic_long_t		bad;
	long			next[NR_CPUS];
	bool			stop;
};

static void seq_write(struct klog_handler *h, const struct klog_record *rec)
{
	struct seq_check *s = container_of(h, struct seq_check, handler);
	char text[48];
	unsigned int cpu;
	long seq;

	if (!from_this_module(rec))
		return;
	atomic_inc(&s->in_handler);
	atomic_long_inc(&s->calls);
	klog_record_format(rec, text, sizeof(text));
	if (sscanf(text, "cpu=%u seq=%ld;", &cpu, &seq) != 2 ||
	    cpu != rec->cpu || seq != s->next[cpu])
		atomic_long_inc(&s->bad);
	else
		s->next[cpu] = seq + 1;
	atomic_dec(&s->in_handler);
}

static int seq_writer(void *data)
{
	struct seq_check *s = data;
	unsigned int cpu = smp_processor_id();
	long i;

	for (i = 0; i < WRITER_RECORDS && !READ_ONCE(s->stop); i++) {
		klog_printk("cpu=%u seq=%ld;", cpu, i);
		if (!(i & 255))
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void stop_writers(void *data)
{
	struct task_struct **tasks = data;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (tasks[cpu])
			kthread_stop(tasks[cpu]);
}

static struct task_struct **start_writers(struct kunit *test,
					  struct seq_check *s)
{
	struct task_struct **tasks;
	unsigned int cpu;

	tasks = kunit_kcalloc(test, nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		tasks[cpu] = kthread_create_on_cpu(seq_writer, s, cpu,
						   "klog_kunit/%u");
		if (IS_ERR(tasks[cpu]))
			tasks[cpu] = NULL;
	}
	cpus_read_unlock();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, stop_writers,
							tasks), 0);
	for_each_possible_cpu(cpu)
		if (tasks[cpu])
			wake_up_process(tasks[cpu]);
	return tasks;
}

static void klog_percpu_writers(struct kunit *test)
{
	struct seq_check *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct task_struct **tasks;
	unsigned int cpu, writers = 0;
	unsigned long wait;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->handler.name = "klog_kunit_seq";
	s->handler.write = seq_write;
	KUNIT_ASSERT_EQ(test, register_klog_handler(&s->handler), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_action,
							&s->handler), 0);
	tasks = start_writers(test, s);

	for_each_possible_cpu(cpu)
		writers += !!tasks[cpu];
	KUNIT_ASSERT_GT(test, writers, 0);
	for (wait = 0; wait < 60000; wait += 20) {
		if (atomic_long_read(&s->calls) == (long)writers * WRITER_RECORDS)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->calls),
			(long)writers * WRITER_RECORDS);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->bad), 0);
	for_each_possible_cpu(cpu)
		if (tasks[cpu])
			KUNIT_EXPECT_EQ(test, s->next[cpu], WRITER_RECORDS);
	kunit_info(test, "%u writer CPUs, %ld records checked\n", writers,
		   atomic_long_read(&s->calls));
}

/*
 * unregister_klog_handler() must not return while a CPU is inside the
 * handler, and no call may start after it returns.
 */
static void slow_write(struct klog_handler *h, const struct klog_record *rec)
{
	struct seq_check *s = container_of(h, struct seq_check, handler);
	u64 end = local_clock() + 20 * NSEC_PER_USEC;

	atomic_inc(&s->in_handler);
	atomic_long_inc(&s->calls);
	while (local_clock() < end)
		cpu_relax();
	atomic_dec(&s->in_handler);
}

static int hammer(void *data)
{
	while (!kthread_should_stop()) {
		klog_printk("%s %d", __func__, 1);
		cond_resched();
	}
	return 0;
}

static void klog_unregister_waits(struct kunit *test)
{
	struct seq_check *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct task_struct *t[2];
	long calls_at_return;
	int inside, i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->handler.name = "klog_kunit_slow";
	s->handler.write = slow_write;
	KUNIT_ASSERT_EQ(test, register_klog_handler(&s->handler), 0);
	for (i = 0; i < 2; i++) {
		t[i] = kthread_run(hammer, s, "klog_hammer/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
	}
	while (atomic_long_read(&s->calls) < 1000)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&s->handler), 0);
	inside = atomic_read(&s->in_handler);
	calls_at_return = atomic_long_read(&s->calls);
	msleep(50);
	for (i = 0; i < 2; i++)
		kthread_stop(t[i]);

	KUNIT_EXPECT_EQ(test, inside, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->calls), calls_at_return);
}

/*
 * A handler cannot be registered again while it is being unregistered:
 * a writer still inside it holds its list node until the grace period
 * ends. A writer is held inside ->write(); while unregister waits for it,
 * register must refuse with -EBUSY, and succeed once unregister returned.
 */
struct held_handler {
	struct klog_handler	handler;
	atomic_t		hold;		/* 1: the next call waits */
	atomic_t		inside;		/* a call is waiting */
	atomic_t		release;
	atomic_long_t		calls;
	atomic_t		unregistered;
};

static void held_write(struct klog_handler *h, const struct klog_record *rec)
{
	struct held_handler *hh = container_of(h, struct held_handler, handler);

	if (!from_this_module(rec))
		return;
	atomic_long_inc(&hh->calls);
	if (atomic_cmpxchg(&hh->hold, 1, 0) != 1)
		return;
	atomic_set(&hh->inside, 1);
	while (!atomic_read(&hh->release))
		cpu_relax();
}

static int held_writer(void *data)
{
	klog_printk("held writer %d", 1);
	return 0;
}

static int held_unregister(void *data)
{
	struct held_handler *hh = data;

	atomic_set(&hh->unregistered, unregister_klog_handler(&hh->handler) ?: 1);
	return 0;
}

static void klog_reregister_while_unregistering(struct kunit *test)
{
	struct held_handler *hh = kunit_kzalloc(test, sizeof(*hh), GFP_KERNEL);
	struct task_struct *w, *u;
	long calls;

	KUNIT_ASSERT_NOT_NULL(test, hh);
	hh->handler.name = "klog_kunit_held";
	hh->handler.write = held_write;
	atomic_set(&hh->hold, 1);
	KUNIT_ASSERT_EQ(test, register_klog_handler(&hh->handler), 0);
	w = kthread_run(held_writer, hh, "klog_held_writer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	while (!atomic_read(&hh->inside))
		usleep_range(100, 200);

	u = kthread_run(held_unregister, hh, "klog_held_unreg");
	if (IS_ERR(u)) {
		atomic_set(&hh->release, 1);
		KUNIT_FAIL(test, "no unregister thread");
		return;
	}
	/* Wait until the handler is off the list: records stop reaching it. */
	do {
		calls = atomic_long_read(&hh->calls);
		klog_printk("probe %ld", calls);
	} while (atomic_long_read(&hh->calls) != calls &&
		 !atomic_read(&hh->unregistered));

	/* The writer is still inside: unregister cannot have returned. */
	KUNIT_EXPECT_EQ(test, atomic_read(&hh->unregistered), 0);
	KUNIT_EXPECT_EQ(test, register_klog_handler(&hh->handler), -EBUSY);

	atomic_set(&hh->release, 1);
	while (!atomic_read(&hh->unregistered))
		usleep_range(100, 200);
	KUNIT_EXPECT_EQ(test, atomic_read(&hh->unregistered), 1);
	/* Unregister returned: registering again is fine. */
	KUNIT_EXPECT_EQ(test, register_klog_handler(&hh->handler), 0);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&hh->handler), 0);
}

static struct kunit_case klog_test_cases[] = {
	KUNIT_CASE(klog_register_rules),
	KUNIT_CASE(klog_disabled_path),
	KUNIT_CASE(klog_text_record),
	KUNIT_CASE(klog_no_plan_formats_at_call),
	KUNIT_CASE(klog_raw_record),
	KUNIT_CASE(klog_truncation),
	KUNIT_CASE(klog_pointer_hashed),
	KUNIT_CASE(klog_fanout),
	KUNIT_CASE(klog_nesting_limit),
	KUNIT_CASE(klog_nesting_hardirq),
	KUNIT_CASE(klog_trigger_calls_handlers),
	KUNIT_CASE_SLOW(klog_percpu_writers),
	KUNIT_CASE(klog_unregister_waits),
	KUNIT_CASE(klog_reregister_while_unregistering),
	{}
};

static struct kunit_suite klog_test_suite = {
	.name = "klog",
	.test_cases = klog_test_cases,
};

kunit_test_suite(klog_test_suite);

MODULE_DESCRIPTION("KUnit tests for the klog core");
MODULE_LICENSE("GPL");
