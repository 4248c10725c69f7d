// SPDX-License-Identifier: GPL-2.0
/*
 * klog-example.c - klog calls in a small module
 *
 * A timer stands in for a device: it fires @ticks times, 20 ms apart,
 * and each time logs what it did as text with klog_printk() and its
 * state as bytes with klog_raw(). Loading and unloading log one line
 * each, so a collection that spans both holds 2 * ticks + 2 records.
 * Unloading waits for the ticks still to come (a signal, e.g. Ctrl-C
 * on rmmod, cuts that short), so "insmod && rmmod" logs them all.
 *
 * While no klog handler is registered every call below is one static
 * branch and its arguments are not evaluated; the calls can stay.
 * Documentation/trace/klog.rst walks through collecting them.
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/timer.h>

static unsigned int ticks = 10;
module_param(ticks, uint, 0444);
MODULE_PARM_DESC(ticks, "how many times the timer fires (default 10)");

/* What klog_raw() logs: 16 bytes, in the byte order of the machine. */
struct example_state {
	u32	tick;		/* 1 for the first tick */
	u32	left;		/* ticks still to come */
	u64	jiffies;	/* when this tick ran */
};

static struct example_state state;
static struct timer_list example_timer;
static DECLARE_COMPLETION(example_done);	/* the last tick ran */

/* Timer callback: softirq context, like any other for klog. */
static void example_tick(struct timer_list *t)
{
	state.tick++;
	state.left = ticks - state.tick;
	state.jiffies = get_jiffies_64();

	klog_printk("tick %u of %u, %u left\n", state.tick, ticks, state.left);
	klog_raw(&state, sizeof(state));

	if (state.left)
		mod_timer(&example_timer, jiffies + msecs_to_jiffies(20));
	else
		complete(&example_done);
}

static int __init example_init(void)
{
	klog_printk("loaded: %u ticks, 20 ms apart\n", ticks);
	timer_setup(&example_timer, example_tick, 0);
	if (ticks)
		mod_timer(&example_timer, jiffies + msecs_to_jiffies(20));
	else
		complete(&example_done);
	return 0;
}

static void __exit example_exit(void)
{
	/* A signal ends the wait: the ticks left are not run. */
	if (wait_for_completion_interruptible(&example_done))
		pr_info("interrupted: unloading before the last tick\n");
	timer_shutdown_sync(&example_timer);
	klog_printk("unloaded after %u of %u ticks\n", state.tick, ticks);
}

module_init(example_init);
module_exit(example_exit);
MODULE_DESCRIPTION("klog example: klog_printk() and klog_raw() from a timer");
MODULE_LICENSE("GPL");
