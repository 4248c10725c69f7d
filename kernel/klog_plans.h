/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog call sites' argument plans (kernel/klog_plans.c): what the KUnit
 * test reaches. Not for use outside kernel/klog* and the klog tests.
 */
#ifndef _KERNEL_KLOG_PLANS_H
#define _KERNEL_KLOG_PLANS_H

#include <linux/klog.h>

#if IS_ENABLED(CONFIG_KUNIT)
/* Plans for @n sites, as for a coming module's; NULL without memory. */
void *klog_kunit_plans_make(struct klog_site *sites, unsigned int n);
/* Taken away again, as when the module goes; freed after a grace period. */
void klog_kunit_plans_drop(void *plans, struct klog_site *sites,
			   unsigned int n);
#endif

#endif /* _KERNEL_KLOG_PLANS_H */
