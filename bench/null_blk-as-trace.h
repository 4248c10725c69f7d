/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into a benchmark-only build of the patched null_blk
 * (scripts/initramfs.sh): its klog calls become the ftrace equivalents,
 * trace_printk() for klog_printk() (and klog_trigger(), off the measured
 * path) and trace_puts() of the same bytes for klog_raw(), so the
 * block-load rows compare the same calls at the same places. Never part
 * of the series.
 */
#include <linux/kernel.h>
#include <linux/klog.h>

#undef klog_printk
#define klog_printk(fmt, ...)	trace_printk(fmt, ##__VA_ARGS__)
#undef klog_raw
#define klog_raw(data, len)	__trace_puts(_THIS_IP_, (const char *)(data), (len))
#define klog_enabled()		true
#undef klog_trigger
#define klog_trigger(reason)	trace_printk("klog_trigger: %s\n", (reason))
#undef klog_raw_block
#define klog_raw_block(data, len, ...)	\
	do { __VA_ARGS__; klog_raw(data, len); } while (0)
