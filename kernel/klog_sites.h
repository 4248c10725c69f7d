/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog site table internals, for the table itself (kernel/klog_sites.c)
 * and the control language above it (kernel/klog_control.c). Not for use
 * outside kernel/klog*.
 */
#ifndef _KERNEL_KLOG_SITES_H
#define _KERNEL_KLOG_SITES_H

#include <linux/klog.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>

#include "klog_internal.h"

struct file;
struct module;

/* The built-in call sites (include/asm-generic/vmlinux.lds.h). */
extern struct klog_site __start___klog_sites[];
extern struct klog_site __stop___klog_sites[];

/* Description of a site whose module is gone (strings copied). */
struct klog_gone_site {
	const char		*modname;
	const char		*file;
	const char		*func;
	const char		*fmt;	/* NULL for a raw site */
	unsigned int		line;
	unsigned short		kind;
};

/*
 * One table of sites: the built-in ones, or one module's. Its sites have
 * the ids first_id .. first_id + n - 1. Tables are kept in klog_tables in
 * id order; a module's table stays there when the module goes, with a
 * copy of its descriptions (@gone), until it is forgotten. The list and
 * @sites change under klog_mutex and are published for lockless readers
 * (RCU: klog_site_func()); a forgotten table is freed after a grace
 * period.
 */
struct klog_counts;

struct klog_table {
	struct list_head	node;
	struct module		*mod;	/* NULL: built-in */
	u32			first_id;
	unsigned int		n;
	struct klog_site	*sites;	/* live; NULL once gone */
	struct klog_gone_site	*gone;	/* gone; NULL while live */
	struct klog_counts	*counts;	/* the sites' record counts */
	struct rcu_head		rcu;	/* freed after lockless lookups */
};

extern struct list_head klog_tables;

#if IS_ENABLED(CONFIG_KUNIT)
/* Take @n site ids from the counter @next; -EOVERFLOW past U32_MAX. */
int klog_ids_alloc(u64 *next, unsigned int n, u32 *first);
/* Tables added, retired and removed as modules' (klog_sites.c). */
int klog_kunit_table_add(struct klog_table *t, struct klog_site *sites,
			 unsigned int n);
void klog_kunit_table_retire(struct klog_table *t);
void klog_kunit_table_remove(struct klog_table *t);
#endif

/* Sites no longer described, and refused for want of ids (sites file). */
extern unsigned long klog_forgotten, klog_refused;

/* Set @site's flags and its key (under klog_mutex). */
void klog_site_set_flags(struct klog_site *site, u32 flags);

/* @site's records so far: its per-CPU counts summed (exact at rest). */
static inline unsigned long klog_site_records(const struct klog_site *site)
{
	unsigned long __percpu *n = READ_ONCE(site->records);
	unsigned long sum = 0;
	int cpu;

	if (n)
		for_each_possible_cpu(cpu)
			sum += READ_ONCE(*per_cpu_ptr(n, cpu));
	return sum;
}

/*
 * A seq_file position over the tables: site @i of table @t. The control
 * file walks the live sites, the sites file all of them, in id order.
 * start() takes klog_mutex and stop() drops it.
 */
struct klog_iter {
	struct klog_table	*t;
	unsigned int		i;
	bool			live_only;
};

int klog_iter_open(struct file *file, const struct seq_operations *sops,
		   bool live_only);
void *klog_iter_start(struct seq_file *m, loff_t *pos);
void *klog_iter_next(struct seq_file *m, void *v, loff_t *pos);
void klog_iter_stop(struct seq_file *m, void *v);

#endif /* _KERNEL_KLOG_SITES_H */
