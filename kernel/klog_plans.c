// SPDX-License-Identifier: GPL-2.0
/*
 * klog call sites' argument plans: made when the kernel or a module is
 * loaded, taken away when the module goes
 *
 * Copyright (C) 2026 The klog authors
 */

/*
 * Every klog_printk() site with a format gets its argument plan
 * (klog_args_plan_init(), kernel/klog_format.c) once, here, so that a
 * call never parses its format: the built-in sites at boot (an early
 * initcall), a module's at MODULE_STATE_COMING, before its code runs. A
 * format that cannot be recorded in binary, or a module whose plans find
 * no memory, gets none: its calls format at the call (__klog_printk()).
 *
 * A plan is published with smp_store_release() on the site's pointer,
 * which a call reads once (READ_ONCE(), an address dependency), so the
 * call sees the whole plan with jump labels or without. At
 * MODULE_STATE_GOING the pointers are cleared and the plans freed after
 * a grace period: a call that read a pointer just before packs with
 * preemption disabled (kernel/klog_pack.c), and one that reads it after
 * makes an empty record flagged cut.
 *
 * The plans are kept apart from the site table (kernel/klog_sites.c),
 * which knows nothing of formats: a site needs no id to have a plan.
 */

#include <linux/init.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "klog_plans.h"
#include "klog_sites.h"	/* the built-in sites' section */

/* The plans of one set of sites: the built-in ones, or one module's. */
struct klog_plans {
	struct list_head	node;	/* in klog_plans_list (modules) */
	struct module		*mod;
	struct rcu_head		rcu;
	struct klog_args_plan	plan[];	/* one per site, in their order */
};

static LIST_HEAD(klog_plans_list);
static DEFINE_MUTEX(klog_plans_lock);

/* Plans for the @n sites at @sites; NULL (no plans) without memory. */
static struct klog_plans *klog_plans_make(struct klog_site *sites,
					  unsigned int n)
{
	struct klog_plans *p;
	unsigned int i;

	p = kvzalloc(struct_size(p, plan, n), GFP_KERNEL);
	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		if (sites[i].kind == KLOG_KIND_TEXT && sites[i].fmt &&
		    !klog_args_plan_init(&p->plan[i], sites[i].fmt))
			/* Pairs with the call's READ_ONCE() of the pointer. */
			smp_store_release(&sites[i].plan, &p->plan[i]);
	return p;
}

/* Take @p's plans away from its sites; freed after a grace period. */
static void klog_plans_drop(struct klog_plans *p, struct klog_site *sites,
			    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		WRITE_ONCE(sites[i].plan, NULL);
	kvfree_rcu(p, rcu);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Plans made and dropped as for a module's sites, for the KUnit test. */
void *klog_kunit_plans_make(struct klog_site *sites, unsigned int n)
{
	return klog_plans_make(sites, n);
}
EXPORT_SYMBOL_IF_KUNIT(klog_kunit_plans_make);

void klog_kunit_plans_drop(void *plans, struct klog_site *sites,
			   unsigned int n)
{
	klog_plans_drop(plans, sites, n);
}
EXPORT_SYMBOL_IF_KUNIT(klog_kunit_plans_drop);
#endif

#ifdef CONFIG_MODULES
static int klog_plans_module_notify(struct notifier_block *nb,
				    unsigned long val, void *data)
{
	struct module *mod = data;
	struct klog_plans *p;

	if (!mod->num_klog_sites)
		return NOTIFY_DONE;
	guard(mutex)(&klog_plans_lock);
	switch (val) {
	case MODULE_STATE_COMING:
		p = klog_plans_make(mod->klog_sites, mod->num_klog_sites);
		if (p) {
			p->mod = mod;
			list_add(&p->node, &klog_plans_list);
		}
		break;
	case MODULE_STATE_GOING:
		list_for_each_entry(p, &klog_plans_list, node) {
			if (p->mod != mod)
				continue;
			list_del(&p->node);
			klog_plans_drop(p, mod->klog_sites,
					mod->num_klog_sites);
			break;
		}
		break;
	}
	return NOTIFY_DONE;
}

/* No order with the site table's notifier: a plan needs no id. */
static struct notifier_block klog_plans_module_nb = {
	.notifier_call = klog_plans_module_notify,
};
#endif

static int __init klog_plans_init(void)
{
	/* The built-in sites' plans are never taken away. */
	klog_plans_make(__start___klog_sites,
			__stop___klog_sites - __start___klog_sites);
#ifdef CONFIG_MODULES
	return register_module_notifier(&klog_plans_module_nb);
#else
	return 0;
#endif
}
early_initcall(klog_plans_init);
