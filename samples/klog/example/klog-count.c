// SPDX-License-Identifier: GPL-2.0
/* klog-count: count klog records by context */
#include <asm/local.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/percpu.h>

static const char * const ctx_names[] = {
	[KLOG_CTX_TASK]		= "task",
	[KLOG_CTX_SOFTIRQ]	= "softirq",
	[KLOG_CTX_HARDIRQ]	= "hardirq",
	[KLOG_CTX_NMI]		= "nmi",
};

struct count {
	local_t records[ARRAY_SIZE(ctx_names)];
	local_t bytes;
};

static DEFINE_PER_CPU(struct count, counts);

/*
 * Runs in the context of each klog call, NMI included, with preemption
 * disabled: no locks, no sleeping. local_t operations are safe against
 * interrupts and NMIs on the same CPU.
 */
static void count_write(struct klog_handler *h, const struct klog_record *rec)
{
	struct count *c = this_cpu_ptr(&counts);
	int len = rec->len;

	/*
	 * klog_printk() may record its arguments in binary: the length of
	 * their text is what klog_record_format() makes of them (with no
	 * buffer, it only counts).
	 */
	if (rec->kind != KLOG_KIND_RAW)
		len = klog_record_format(rec, NULL, 0);
	local_inc(&c->records[rec->ctx]);
	if (len > 0)
		local_add(len, &c->bytes);
}

static struct klog_handler count_handler = {
	.name	= "count",
	.write	= count_write,
};

static int __init count_init(void)
{
	return register_klog_handler(&count_handler);
}

static void __exit count_exit(void)
{
	unsigned long records[ARRAY_SIZE(ctx_names)] = { }, bytes = 0;
	u64 nest = 0;
	unsigned int cpu;
	int i;

	/* Returns when no CPU is inside count_write() any more. */
	unregister_klog_handler(&count_handler);

	for_each_possible_cpu(cpu) {
		struct count *c = per_cpu_ptr(&counts, cpu);

		for (i = 0; i < ARRAY_SIZE(ctx_names); i++)
			records[i] += local_read(&c->records[i]);
		bytes += local_read(&c->bytes);
		nest += klog_nest_dropped(cpu);
	}
	for (i = 0; i < ARRAY_SIZE(ctx_names); i++)
		pr_info("%s: %lu records\n", ctx_names[i], records[i]);
	pr_info("%lu bytes of text and data; %llu records refused since boot (nesting)\n",
		bytes, nest);
}

module_init(count_init);
module_exit(count_exit);
MODULE_DESCRIPTION("Count klog records by context");
MODULE_LICENSE("GPL");
