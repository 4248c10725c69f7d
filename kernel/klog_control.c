// SPDX-License-Identifier: GPL-2.0
/*
 * klog site control: the query language and /sys/kernel/debug/klog/control.
 *
 * Copyright (C) 2026 The klog authors
 */

/*
 * The query grammar and its parser are in klog_query.h, which the
 * collector compiles too; this file applies queries to the live sites of
 * the site table (kernel/klog_sites.c, below it), from every place they
 * come from: the control file, klog_query(), the boot parameter
 * ``klog.query=`` (applied to the built-in sites at boot, before any of
 * them can make a record, and to each module's sites when it loads, at
 * MODULE_STATE_COMING, so that it may name a module not loaded yet) and
 * ``<module>.klog=`` (applied after it, while the module loads, to that
 * module's sites only).
 */

#define pr_fmt(fmt) "klog: " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/klog.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>

#include "klog_query.h"
#include "klog_sites.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "klog."

/* Largest write to the control file. */
#define KLOG_CONTROL_MAX	16384

static char *klog_boot_query;
static char *klog_boot_queries;		/* a good klog.query=, for modules */

module_param_named(query, klog_boot_query, charp, 0);
MODULE_PARM_DESC(query, "queries applied to the built-in call sites at boot and to a module's when it loads");

static unsigned int klog_query_apply(const struct klog_query *q,
				     const char *scope)
{
	struct klog_table *t;
	struct klog_site *s;
	unsigned int i, matched = 0;
	u32 flags;

	lockdep_assert_held(&klog_mutex);
	list_for_each_entry(t, &klog_tables, node) {
		if (!t->sites)
			continue;
		for (i = 0; i < t->n; i++) {
			s = &t->sites[i];
			if (scope && strcmp(s->modname, scope))
				continue;
			if (!klog_query_match(q, s->modname, s->file, s->func,
					      s->fmt, s->line, s->id))
				continue;
			if (q->op == '+')
				flags = s->flags | q->flags;
			else if (q->op == '-')
				flags = s->flags & ~q->flags;
			else
				flags = q->flags;
			klog_site_set_flags(s, flags);
			matched++;
		}
	}
	return matched;
}

/*
 * Parse every query of @buf (changed in place), then, if all are good,
 * apply them in order to the live sites (of module @scope only, unless
 * NULL). @origin starts the error messages. Returns the number of site
 * matches, or -EINVAL (nothing applied) or -ENOMEM.
 */
static int klog_exec_queries(char *buf, const char *scope,
			     const char *origin)
{
	struct klog_query *qs = NULL, *grown;
	char *words[KLOG_QUERY_WORDS];
	struct klog_query_err *err;
	int n = 0, cap = 0, qn = 0, nwords, ret, i;
	unsigned int matched = 0;
	char *pos = buf;

	BUILD_BUG_ON(KLOG_QUERY_P != KLOG_SITE_ENABLED);
	err = kmalloc(sizeof(*err), GFP_KERNEL);
	if (!err)
		return -ENOMEM;
	for (;;) {
		ret = klog_query_split(&pos, words, KLOG_QUERY_WORDS, &nwords,
				       NULL, err);
		if (ret < 0)
			pr_err("%s: query %d: %s\n", origin, qn + 1, err->msg);
		if (ret <= 0)
			break;
		if (!nwords)
			continue;
		qn++;
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			grown = krealloc_array(qs, cap, sizeof(*qs), GFP_KERNEL);
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			qs = grown;
		}
		ret = klog_query_parse(&qs[n], words, nwords, true, err);
		if (ret) {
			pr_err("%s: query %d: %s\n", origin, qn, err->msg);
			break;
		}
		n++;
	}
	kfree(err);
	if (ret < 0) {
		kfree(qs);
		return ret;
	}
	mutex_lock(&klog_mutex);
	for (i = 0; i < n; i++)
		matched += klog_query_apply(&qs[i], scope);
	mutex_unlock(&klog_mutex);
	kfree(qs);
	return min_t(unsigned int, matched, INT_MAX);
}

/**
 * klog_query() - enable or disable call sites from kernel code
 * @queries: one or more queries in the control file's grammar, separated
 *	by newlines or ``;`` (see Documentation/trace/klog.rst)
 * @modname: apply only to the sites of this module (KBUILD_MODNAME);
 *	NULL for all sites
 *
 * The batch is parsed whole before anything changes: one bad query
 * (reported with pr_err()) and no site changes.
 *
 * Context: process context; sleeps.
 * Return: the number of site matches (a site matched by two queries
 * counts twice; 0 is not an error), -EINVAL if a query is bad, -ENOMEM.
 */
int klog_query(const char *queries, const char *modname)
{
	char *buf;
	int ret;

	if (!queries)
		return -EINVAL;
	buf = kstrdup(queries, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = klog_exec_queries(buf, modname, "klog_query");
	kfree(buf);
	return ret;
}
EXPORT_SYMBOL_GPL(klog_query);

/* ---- The control file ----------------------------------------------- */

static int klog_control_show(struct seq_file *m, void *v)
{
	const struct klog_iter *it = v;
	const struct klog_site *s;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# file:line [module]function =flags \"format\" id=N records=N\n");
		return 0;
	}
	s = &it->t->sites[it->i];
	seq_printf(m, "%s:%u [%s]%s =%s ", s->file, s->line, s->modname,
		   s->func, s->flags & KLOG_SITE_ENABLED ? "p" : "_");
	if (s->fmt) {
		seq_putc(m, '"');
		seq_escape_str(m, s->fmt, ESCAPE_SPACE, "\t\r\n\"");
		seq_putc(m, '"');
	} else {
		seq_puts(m, "raw");
	}
	seq_printf(m, " id=%u records=%lu\n", s->id,
		   klog_site_records(s));
	return 0;
}

static const struct seq_operations klog_control_sops = {
	.start	= klog_iter_start,
	.next	= klog_iter_next,
	.stop	= klog_iter_stop,
	.show	= klog_control_show,
};

static int klog_control_open(struct inode *inode, struct file *file)
{
	return klog_iter_open(file, &klog_control_sops, true);
}

static ssize_t klog_control_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (*ppos)
		return -ESPIPE;
	if (len > KLOG_CONTROL_MAX) {
		pr_err("control: write of %zu bytes, more than %d\n", len,
		       KLOG_CONTROL_MAX);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (strlen(buf) != len) {
		pr_err("control: NUL byte in the queries\n");
		ret = -EINVAL;
	} else {
		ret = klog_exec_queries(buf, NULL, "control");
	}
	kfree(buf);
	return ret < 0 ? ret : len;
}

static const struct file_operations klog_control_fops = {
	.owner		= THIS_MODULE,
	.open		= klog_control_open,
	.read		= seq_read,
	.write		= klog_control_write,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

/* ---- Boot and module parameters ------------------------------------ */

#ifdef CONFIG_MODULES
/* klog.query= on a coming module's sites, before its code runs. */
static int klog_control_module_notify(struct notifier_block *nb,
				      unsigned long val, void *data)
{
	struct module *mod = data;
	char *buf;

	if (val != MODULE_STATE_COMING || !mod->num_klog_sites ||
	    !klog_boot_queries)
		return NOTIFY_DONE;
	buf = kstrdup(klog_boot_queries, GFP_KERNEL);
	/* A bad query was refused at boot; klog_exec_queries() logs one. */
	if (!buf || klog_exec_queries(buf, mod->name, "klog.query") == -ENOMEM)
		pr_warn("%s: klog.query= not applied: out of memory\n",
			mod->name);
	kfree(buf);
	return NOTIFY_DONE;
}

/* Priority -1: after the site table's notifier (0) added the sites. */
static struct notifier_block klog_control_module_nb = {
	.notifier_call = klog_control_module_notify,
	.priority = -1,
};

/**
 * klog_module_param() - apply ``<module>.klog=QUERY`` while a module loads
 * @param: the parameter name the loader did not know
 * @val: its value
 * @modname: the module being loaded
 *
 * Called by the module loader for parameters the module does not define,
 * after MODULE_STATE_COMING (the module's sites are in the table, and
 * ``klog.query=`` was applied to them) and before its init function
 * runs. The queries apply only to the sites of @modname.
 *
 * Context: process context; sleeps.
 * Return: -ENOENT if @param is not ``klog``, 0 when the queries were
 * applied, -EINVAL (after a message naming the error) when one of them is
 * bad: the load then fails.
 */
int klog_module_param(const char *param, const char *val, const char *modname)
{
	char *buf;
	int ret;

	if (strcmp(param, "klog"))
		return -ENOENT;
	if (!val) {
		pr_err("%s.klog: no queries given\n", modname);
		return -EINVAL;
	}
	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = klog_exec_queries(buf, modname, modname);
	kfree(buf);
	return ret < 0 ? ret : 0;
}
#endif /* CONFIG_MODULES */

/*
 * klog.query= on the built-in sites. An early initcall after the site
 * table's (kernel/Makefile links klog_sites.o first): the sites are in
 * the table, and no handler can be registered yet.
 */
static int __init klog_control_init(void)
{
	char *buf;

	if (klog_boot_query) {
		buf = kstrdup(klog_boot_query, GFP_KERNEL);
		/* Kept for modules only if good: reported once, here. */
		if (buf && klog_exec_queries(buf, NULL, "klog.query") >= 0)
			klog_boot_queries = kstrdup(klog_boot_query,
						    GFP_KERNEL);
		kfree(buf);
	}
#ifdef CONFIG_MODULES
	return register_module_notifier(&klog_control_module_nb);
#else
	return 0;
#endif
}
early_initcall(klog_control_init);

/* After the core made the directory (fs_initcall). */
static int __init klog_control_file_init(void)
{
	struct dentry *dir = klog_debugfs_dir();

	if (!IS_ERR_OR_NULL(dir))
		debugfs_create_file("control", 0644, dir, NULL,
				    &klog_control_fops);
	return 0;
}
fs_initcall_sync(klog_control_file_init);
