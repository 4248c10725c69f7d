// SPDX-License-Identifier: GPL-2.0
/*
 * A module full of klog calls, built by `make check` against a kernel
 * with CONFIG_KLOG=n (the stubs) and one with CONFIG_KLOG=y, with
 * -Werror and W=1: a driver that uses klog builds unchanged either way.
 * Variables used only by klog calls must not become "unused" when klog
 * is off, and the formats must still be checked. With BAD_FORMAT
 * defined, the build must fail on the format mismatch in both configs.
 */
#include <linux/klog.h>
#include <linux/module.h>

struct desc {
	u32 addr;
	u16 len;
	u16 flags;
};

static int klog_stubs_init(void)
{
	struct desc d = { .addr = 0x1000, .len = 64, .flags = 1 };
	int only_logged = 42;
	const char *name = "stubs";
	int ret;

	klog_printk("%s: only_logged=%d\n", name, only_logged);
	klog_printk("no arguments\n");
	klog_raw(&d, sizeof(d));
	if (klog_enabled())
		klog_raw(&d, sizeof(d));
	klog_trigger(name);
#ifdef BAD_FORMAT
	klog_printk("%d\n", name);
#endif
	ret = register_klog_handler(NULL);
	return ret == -EINVAL || ret == -EOPNOTSUPP ? 0 : ret;
}

static void klog_stubs_exit(void)
{
}

module_init(klog_stubs_init);
module_exit(klog_stubs_exit);
MODULE_DESCRIPTION("klog call sites, built with CONFIG_KLOG=y and =n");
MODULE_LICENSE("GPL");
