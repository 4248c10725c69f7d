// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: module init and exit
 *
 * The top layer: it starts the parts bottom up (the NMI staging areas,
 * the dump on oops and panic, the control files in the core's
 * /sys/kernel/debug/klog/) and stops them top down, the channel
 * disabled and destroyed (klog_relay_chan.c) before the staging areas
 * are freed. Nothing calls into this file. The test hook that holds
 * klog_relay.ctl_lock for the crash jobs is here, beside the module's
 * life cycle that stops it.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include "klog_relay_internal.h"

static int __init klog_relay_init(void)
{
	int ret;

	/* /sys/kernel/debug/klog/ belongs to the core (its control file). */
	klog_relay.dir = klog_debugfs_dir();
	if (IS_ERR_OR_NULL(klog_relay.dir))
		return -ENODEV;
	ret = klog_relay_nmi_init();
	if (ret)
		return ret;
	ret = klog_relay_dump_init();
	if (ret)
		goto nmi_exit;
	ret = klog_relay_files_init(klog_relay.dir);
	if (ret)
		goto dump_exit;
	return 0;

dump_exit:
	klog_relay_dump_exit();
nmi_exit:
	klog_relay_nmi_exit();
	return ret;
}

/*
 * Test hook: test_hold_ctl_lock=1 makes a kernel thread take
 * klog_relay.ctl_lock and keep it until 0 is written (the write returns
 * once it holds it), so that the crash jobs can oops while the lock is
 * held and waited for: the dump, which takes no lock, must show the same.
 * Here, beside the lock's life cycle, not in klog_relay_dump.c: nothing
 * that the die and panic notifiers reach takes a sleeping lock.
 */
static struct task_struct *klog_relay_holder;
static DECLARE_COMPLETION(klog_relay_holding);

static int klog_relay_hold_fn(void *unused)
{
	mutex_lock(&klog_relay.ctl_lock);
	complete(&klog_relay_holding);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	mutex_unlock(&klog_relay.ctl_lock);
	return 0;
}

static int klog_relay_hold_set(const char *val, const struct kernel_param *kp)
{
	bool hold;
	int ret = kstrtobool(val, &hold);

	if (ret)
		return ret;
	if (hold && !klog_relay_holder) {
		reinit_completion(&klog_relay_holding);
		klog_relay_holder = kthread_run(klog_relay_hold_fn, NULL,
						"klog_hold_ctl");
		if (IS_ERR(klog_relay_holder)) {
			ret = PTR_ERR(klog_relay_holder);
			klog_relay_holder = NULL;
			return ret;
		}
		wait_for_completion(&klog_relay_holding);
	} else if (!hold && klog_relay_holder) {
		kthread_stop(klog_relay_holder);
		klog_relay_holder = NULL;
	}
	return 0;
}

static int klog_relay_hold_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!klog_relay_holder);
}

static const struct kernel_param_ops klog_relay_hold_ops = {
	.set	= klog_relay_hold_set,
	.get	= klog_relay_hold_get,
};
module_param_cb(test_hold_ctl_lock, &klog_relay_hold_ops, NULL, 0600);
MODULE_PARM_DESC(test_hold_ctl_lock,
		 "testing: 1: a kernel thread holds the control lock until 0");

static void __exit klog_relay_exit(void)
{
	if (klog_relay_holder)
		kthread_stop(klog_relay_holder);
	/* No dump runs from here on: it reads the channel. */
	klog_relay_dump_exit();
	mutex_lock(&klog_relay.ctl_lock);
	klog_relay_set_enabled(false);
	klog_relay_destroy();
	mutex_unlock(&klog_relay.ctl_lock);
	klog_relay_files_exit(klog_relay.dir);
	klog_relay_nmi_exit();
}

module_init(klog_relay_init);
module_exit(klog_relay_exit);
MODULE_DESCRIPTION("klog handler writing records to relay buffers");
MODULE_LICENSE("GPL");
