// SPDX-License-Identifier: GPL-2.0
/*
 * A module full of klog calls, built by `make check` against a kernel
 * with CONFIG_KLOG=n (the stubs) and one with CONFIG_KLOG=y, with
 * -Werror and W=1: a driver that uses klog builds unchanged either way.
 * Variables used only by klog calls must not become "unused" when klog
 * is off, and the formats must still be checked. With BAD_FORMAT
 * defined, the build must fail on the format mismatch in both configs.
 * With BAD_ARG_STRUCT (a struct argument) or BAD_ARG_MANY (17
 * arguments) the CONFIG_KLOG=y build must fail with klog's own message
 * (klog_printk() records arguments by C type, at most KLOG_ARGS_MAX).
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
	klog_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
		    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
	klog_raw(&d, sizeof(d));
	if (klog_enabled())
		klog_raw(&d, sizeof(d));
	klog_raw_block(&e, sizeof(e), const struct { int a, b; } e = {
		.a = only_logged, .b = 2,
	});
	klog_trigger(name);
#ifdef BAD_FORMAT
	klog_printk("%d\n", name);
#endif
#ifdef BAD_ARG_STRUCT
	klog_printk("%p\n", d);
#endif
#ifdef BAD_ARG_MANY
	klog_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
		    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);
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
