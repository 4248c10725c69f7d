// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-mod: the filter
 *
 * ``filter`` takes space-separated terms ``module=NAME`` and ``size=N`` or
 * ``size=MIN-MAX``, or ``none``; the syntax and what it selects are in the
 * overview (kleak-mod-main.c). A filter naming a module holds the ranges
 * of its text, looked up when the filter is written and kept current by a
 * module notifier as the module comes and goes. The probes read the
 * filter under RCU (kleak_want()); every change publishes a new copy.
 *
 * Copyright (C) 2026 The klog authors
 */

#define pr_fmt(fmt) "kleak: " fmt

#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kleak-mod.h"

static void kleak_add_range(struct kleak_filter *f,
			    const struct module_memory *mem)
{
	if (!mem->size || f->nranges == KLEAK_RANGES)
		return;
	f->start[f->nranges] = (unsigned long)mem->base;
	f->end[f->nranges] = (unsigned long)mem->base + mem->size;
	f->nranges++;
}

/*
 * Set @f's ranges to the text of @mod in @state: core and init text
 * while it is coming, core text once it is live (its init text is freed
 * after that), none when it goes.
 */
static void kleak_set_ranges(struct kleak_filter *f, const struct module *mod,
			     enum module_state state)
{
	f->nranges = 0;
	if (state != MODULE_STATE_COMING && state != MODULE_STATE_LIVE)
		return;
	kleak_add_range(f, &mod->mem[MOD_TEXT]);
	if (state == MODULE_STATE_COMING)
		kleak_add_range(f, &mod->mem[MOD_INIT_TEXT]);
}

/*
 * The ranges of the module named in @f if it is loaded now. Modules are
 * found by name in /sys/module (the kset our own module object is in):
 * find_module() is not exported. The kobject reference keeps the struct
 * module from being freed while it is read; kleak_lock orders this with
 * the notifier, which changes the ranges afterwards if the module is
 * coming or going.
 */
static void kleak_find_module(struct kleak_filter *f)
{
	struct kset *modules = THIS_MODULE->mkobj.kobj.kset;
	struct module_kobject *mk;
	struct kobject *kobj;

	lockdep_assert_held(&kleak_lock);
	f->nranges = 0;
	if (!modules)
		return;
	kobj = kset_find_obj(modules, f->module);
	if (!kobj)
		return;
	mk = container_of(kobj, struct module_kobject, kobj);
	if (mk->mod)	/* NULL for built-in code with parameters */
		kleak_set_ranges(f, mk->mod, READ_ONCE(mk->mod->state));
	kobject_put(kobj);
}

static void kleak_publish(struct kleak_filter *f)
{
	struct kleak_filter *old;

	old = rcu_replace_pointer(kleak_filter, f, lockdep_is_held(&kleak_lock));
	if (old)
		kfree_rcu(old, rcu);
}

static int kleak_module_notify(struct notifier_block *nb, unsigned long state,
			       void *data)
{
	struct module *mod = data;
	struct kleak_filter *f, *cur;

	mutex_lock(&kleak_lock);
	cur = rcu_dereference_protected(kleak_filter,
					lockdep_is_held(&kleak_lock));
	if (!cur || strcmp(cur->module, mod->name))
		goto out;
	f = kmemdup(cur, sizeof(*cur), GFP_KERNEL);
	if (!f) {
		/* Match nothing rather than text that may be reused. */
		WRITE_ONCE(cur->nranges, 0);
		pr_warn("filter: out of memory; %s is not followed any more\n",
			cur->module);
		goto out;
	}
	kleak_set_ranges(f, mod, state);
	kleak_publish(f);
out:
	mutex_unlock(&kleak_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kleak_module_nb = {
	.notifier_call = kleak_module_notify,
};

/* "NAME": module name characters, "-" stored as "_" as kbuild does. */
static int kleak_parse_module(struct kleak_filter *f, const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= sizeof(f->module))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-')
			return -EINVAL;
		f->module[i] = name[i] == '-' ? '_' : name[i];
	}
	f->module[len] = '\0';
	return 0;
}

/* "N" or "MIN-MAX", decimal, MIN <= MAX. */
static int kleak_parse_size(struct kleak_filter *f, char *val)
{
	char *max = strchr(val, '-');
	unsigned long lo, hi;

	if (max)
		*max++ = '\0';
	if (kstrtoul(val, 10, &lo))
		return -EINVAL;
	hi = lo;
	if (max && kstrtoul(max, 10, &hi))
		return -EINVAL;
	if (lo > hi)
		return -EINVAL;
	f->has_size = true;
	f->size_min = lo;
	f->size_max = hi;
	return 0;
}

/*
 * Parse @s (modified) into @f. Each key at most once; "none" alone or
 * nothing at all is no filter (*none set).
 */
static int kleak_parse_filter(struct kleak_filter *f, char *s, bool *none)
{
	bool seen_module = false;
	char *tok, *val;
	int ret;

	*none = false;
	s = strim(s);
	if (!*s || !strcmp(s, "none")) {
		*none = true;
		return 0;
	}
	while ((tok = strsep(&s, " \t")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "module") && !seen_module) {
			seen_module = true;
			ret = kleak_parse_module(f, val);
		} else if (!strcmp(tok, "size") && !f->has_size) {
			ret = kleak_parse_size(f, val);
		} else {
			return -EINVAL;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A write to ``filter``: the new filter replaces the old one only if all
 * of @s parses; the ranges of a module named in it are looked up now.
 */
int kleak_filter_store(char *s)
{
	struct kleak_filter *f;
	bool none;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	ret = kleak_parse_filter(f, s, &none);
	if (ret || none) {
		kfree(f);
		f = NULL;
	}
	if (ret)
		return ret;

	mutex_lock(&kleak_lock);
	if (f && f->module[0])
		kleak_find_module(f);
	kleak_publish(f);
	mutex_unlock(&kleak_lock);
	return 0;
}

/* The current filter, in the syntax a write takes. */
void kleak_filter_show(struct seq_file *m)
{
	const struct kleak_filter *f;

	mutex_lock(&kleak_lock);
	f = rcu_dereference_protected(kleak_filter,
				      lockdep_is_held(&kleak_lock));
	if (!f) {
		seq_puts(m, "none\n");
	} else {
		if (f->module[0])
			seq_printf(m, "module=%s", f->module);
		if (f->module[0] && f->has_size)
			seq_putc(m, ' ');
		if (f->has_size)
			seq_printf(m, "size=%zu-%zu", f->size_min, f->size_max);
		seq_putc(m, '\n');
	}
	mutex_unlock(&kleak_lock);
}

int kleak_filter_init(void)
{
	return register_module_notifier(&kleak_module_nb);
}

/* After the probes are gone (kleak_unregister() waited): free at once. */
void kleak_filter_exit(void)
{
	unregister_module_notifier(&kleak_module_nb);
	mutex_lock(&kleak_lock);
	kfree(rcu_replace_pointer(kleak_filter, NULL,
				  lockdep_is_held(&kleak_lock)));
	mutex_unlock(&kleak_lock);
}
