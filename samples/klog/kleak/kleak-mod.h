/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kleak-mod: state shared by its parts
 *
 *   kleak-mod-main.c    design overview, the probes, enabled, seq, stats,
 *                       module init
 *   kleak-mod-filter.c  the filter: its syntax, its module ranges and the
 *                       module notifier that keeps them current
 *   kleak.h             the record, shared with the collector
 *
 * Copyright (C) 2026 The klog authors
 */
#ifndef KLEAK_MOD_H
#define KLEAK_MOD_H

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>

#define KLEAK_RANGES		2	/* core text, init text */

/*
 * The filter. Published with RCU; the probes read it with preemption
 * disabled (tracepoints call them so). Updated under kleak_lock, by a
 * filter write or by the module notifier, always as a new copy, except
 * that @nranges may drop to 0 in place when a copy cannot be allocated.
 */
struct kleak_filter {
	char		module[MODULE_NAME_LEN];	/* "" for any caller */
	unsigned long	start[KLEAK_RANGES];	/* text of @module, */
	unsigned long	end[KLEAK_RANGES];	/* [start, end) */
	int		nranges;		/* 0 while not loaded */
	bool		has_size;
	size_t		size_min, size_max;	/* bytes requested */
	struct rcu_head	rcu;
};

/* Serialises the control files, the filter and the module notifier. */
extern struct mutex kleak_lock;
extern struct kleak_filter __rcu *kleak_filter;

/* kleak-mod-filter.c */
void kleak_filter_show(struct seq_file *m);
int kleak_filter_store(char *s);
int kleak_filter_init(void);
void kleak_filter_exit(void);

#endif /* KLEAK_MOD_H */
