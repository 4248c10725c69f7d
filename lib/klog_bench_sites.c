// SPDX-License-Identifier: GPL-2.0
/*
 * klog_bench_sites - 10,000 klog call sites, for make bench
 *
 * A module whose only content is KLOG_BENCH_SITES klog_raw() call sites,
 * never called: loading it adds 10,000 enabled sites to the site table.
 * make bench times registering the first handler (klog_bench's register
 * file) with this module loaded and without it: the first handler flips
 * one key, klog_active, so the two must not differ with the number of
 * sites.
 */

#include <linux/klog.h>
#include <linux/module.h>

static u8 klog_bench_byte;

#define SITE1		klog_raw(&klog_bench_byte, 1);
#define SITES10		SITE1 SITE1 SITE1 SITE1 SITE1 SITE1 SITE1 SITE1 SITE1 SITE1
#define SITES100	SITES10 SITES10 SITES10 SITES10 SITES10 \
			SITES10 SITES10 SITES10 SITES10 SITES10
#define SITES1000	SITES100 SITES100 SITES100 SITES100 SITES100 \
			SITES100 SITES100 SITES100 SITES100 SITES100
#define KLOG_BENCH_SITES	10000

static noinline void klog_bench_sites(void)
{
	SITES1000 SITES1000 SITES1000 SITES1000 SITES1000
	SITES1000 SITES1000 SITES1000 SITES1000 SITES1000
}

static int __init klog_bench_sites_init(void)
{
	/* Never true: the sites exist, the calls are never made. */
	if (READ_ONCE(klog_bench_byte))
		klog_bench_sites();
	return 0;
}

module_init(klog_bench_sites_init);
MODULE_DESCRIPTION("klog benchmark: 10,000 call sites");
MODULE_LICENSE("GPL");
