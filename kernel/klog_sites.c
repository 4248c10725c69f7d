// SPDX-License-Identifier: GPL-2.0
/*
 * klog site table: enumeration, ids, module load and unload (the sites
 * file, which lists it, is klog_sites_file.c).
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog site table
 *
 * Every klog_printk(), klog_raw() and klog_trigger() expansion defines a
 * &struct klog_site in the section ``__klog_sites``. The linker gathers
 * the kernel's sites between ``__start___klog_sites`` and
 * ``__stop___klog_sites``; the module loader finds a module's section
 * (struct module's ``klog_sites`` and ``num_klog_sites``).
 *
 * Tables
 * ------
 *
 * The core keeps one &struct klog_table per set of sites: the built-in
 * one, added at boot (early_initcall), and one per module, added by a
 * module notifier at MODULE_STATE_COMING, after the jump label notifier
 * has linked the module's keys and before the loader parses the module's
 * parameters (so ``<module>.klog=`` finds its sites). A table's sites get
 * consecutive ids from one counter that starts at 1 and never goes back,
 * so an id names one site for the whole boot. Ids are u32 and are
 * never reused: a table whose ids would pass U32_MAX is refused (see
 * klog_ids_alloc()); its module still loads, its sites stay off and
 * outside the table, and they are counted as ``refused=N`` in the
 * header of the ``sites`` file, with one message per refused table.
 *
 * At MODULE_STATE_GOING the module's table stays in the list, its sites
 * replaced by copies of their descriptions, so that a collector reading
 * ``sites`` after the unload still names the records it holds. Its keys
 * are turned off first and its record counters taken away, and the
 * counters are freed only after a grace period: a call that passed its
 * key just before counts with preemption disabled. At most KLOG_GONE_MAX
 * such descriptions are kept: beyond, whole tables are forgotten, lowest
 * ids first, and counted.
 *
 * The list changes under ``klog_mutex``, and with RCU's list primitives,
 * so that a crash dump can name a site by id without any lock
 * (klog_site_func(), klog_site_fmt()): a forgotten table is freed after a
 * grace period, and a going module's memory is freed by the module loader
 * only after one of its own.
 *
 * Site state
 * ----------
 *
 * A site's key is on iff the site is enabled (KLOG_SITE_ENABLED); keys
 * start on (STATIC_KEY_TRUE_INIT), so the usual boot patches none. A
 * call makes a record only while a handler is registered too: it tests
 * one of the core's keys first (klog_active[]), so registering the first
 * handler flips those KLOG_ACTIVE_KEYS keys (one jump label update each,
 * of the branches on it, not one update per site), and a query patches
 * only the sites whose state it changes. Flags and keys change only under
 * ``klog_mutex``: queries (kernel/klog_control.c, above this file) and
 * table changes here. Each site counts its records in a per-CPU counter
 * of its table's, allocated in chunks of a page (klog_site_records() sums
 * them), so that busy sites on several CPUs share no cache line. New
 * sites start enabled, or disabled with the boot parameter
 * ``klog.sites_default=off``; the control language then applies
 * ``klog.query=`` and ``<module>.klog=`` to the table (its own early
 * initcall and module notifier, after this file's).
 */

#define pr_fmt(fmt) "klog: " fmt

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "klog_sites.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "klog."

/* Descriptions of gone sites kept for the sites file. */
#define KLOG_GONE_MAX	65536

LIST_HEAD(klog_tables);

static struct klog_table klog_builtin_table;
static u64 klog_next_id = 1;		/* ids handed out so far + 1 */
static unsigned int klog_gone_n;	/* descriptions of gone sites kept */
unsigned long klog_forgotten;	/* gone sites no longer described */
unsigned long klog_refused;	/* sites refused: no id left */
static bool klog_default_off;

static int klog_default_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "on"))
		klog_default_off = false;
	else if (sysfs_streq(val, "off"))
		klog_default_off = true;
	else
		return -EINVAL;
	return 0;
}

static int klog_default_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", klog_default_off ? "off" : "on");
}

static const struct kernel_param_ops klog_default_ops = {
	.set = klog_default_set,
	.get = klog_default_get,
};

module_param_cb(sites_default, &klog_default_ops, NULL, 0444);
MODULE_PARM_DESC(sites_default,
		 "on (default): new call sites are enabled; off: disabled until a query enables them");

void klog_site_set_flags(struct klog_site *site, u32 flags)
{
	bool on = flags & KLOG_SITE_ENABLED;

	lockdep_assert_held(&klog_mutex);
	site->flags = flags;
	/*
	 * Patch only a key that changes: each patching is a round of
	 * cpus_read_lock(), jump_label_mutex and text-poke IPIs, and a
	 * control write may name the same sites thousands of times.
	 */
	if (on == static_key_enabled(&site->key))
		return;
	if (on)
		static_branch_enable(&site->key);
	else
		static_branch_disable(&site->key);
}

/**
 * klog_ids_alloc() - take @n consecutive site ids from a counter
 * @next: the counter: the next id to hand out (1 at boot)
 * @n: how many ids
 * @first: set to the first of them
 *
 * Ids are u32 and never reused within a boot, so the counter must not
 * wrap: ids past U32_MAX are refused rather than handed out again.
 * Exported for the KUnit test, which runs it on its own counter.
 *
 * Context: the caller serialises uses of @next (klog_mutex).
 * Return: 0, or -EOVERFLOW (nothing taken) if the last id would pass
 * U32_MAX.
 */
VISIBLE_IF_KUNIT int klog_ids_alloc(u64 *next, unsigned int n, u32 *first)
{
	if (!*next || *next > U32_MAX || n > U32_MAX - *next + 1)
		return -EOVERFLOW;
	*first = *next;
	*next += n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(klog_ids_alloc);

/*
 * A site's source file relative to the source tree, as dynamic debug
 * shows it. An out-of-tree build (make O=) compiles with paths such as
 * "../linux/drivers/block/null_blk/main.c": the prefix is whatever this
 * file's own __FILE__ has in front of its path in the tree. A path
 * without that prefix (an external module's, or an in-tree build's) is
 * kept whole.
 */
static const char *klog_trim_prefix(const char *path)
{
	size_t skip = strlen(__FILE__) - strlen("kernel/" KBUILD_BASENAME ".c");

	return strncmp(path, __FILE__, skip) ? path : path + skip;
}

/*
 * The sites' per-CPU record counters, in chunks of a page: one per-CPU
 * allocation holds at most PCPU_MIN_UNIT_SIZE (32 KiB: 4096 counters on
 * 64-bit), and a module may have more sites.
 */
#define KLOG_COUNTS_CHUNK	((unsigned int)(PAGE_SIZE / sizeof(unsigned long)))

struct klog_counts {
	unsigned int		n;	/* chunks */
	unsigned long __percpu	*chunk[];
};

/* Without memory for them, sites simply count nothing (NULL chunks). */
static struct klog_counts *klog_counts_alloc(unsigned int sites)
{
	unsigned int i, n = DIV_ROUND_UP(sites, KLOG_COUNTS_CHUNK);
	struct klog_counts *c;

	if (!n)
		return NULL;
	c = kzalloc(struct_size(c, chunk, n), GFP_KERNEL);
	if (!c)
		return NULL;
	c->n = n;
	for (i = 0; i < n; i++) {
		unsigned int len = min(sites - i * KLOG_COUNTS_CHUNK,
				       KLOG_COUNTS_CHUNK);

		c->chunk[i] = __alloc_percpu(len * sizeof(unsigned long),
					     sizeof(unsigned long));
	}
	return c;
}

/* Site @i's counter, or NULL. */
static unsigned long __percpu *klog_counts_of(struct klog_counts *c,
					      unsigned int i)
{
	unsigned long __percpu *chunk;

	if (!c)
		return NULL;
	chunk = c->chunk[i / KLOG_COUNTS_CHUNK];
	return chunk ? chunk + i % KLOG_COUNTS_CHUNK : NULL;
}

/*
 * Number @n sites from @sites and add them as a table; ids in order.
 * -EOVERFLOW (counted in klog_refused, reported) when no ids are left:
 * the sites keep id 0 and their keys stay off.
 */
static int klog_table_add(struct klog_table *t, struct module *mod,
			  struct klog_site *sites, unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&klog_mutex);
	if (klog_ids_alloc(&klog_next_id, n, &t->first_id)) {
		klog_refused += n;
		pr_warn("%s: %u call sites refused: site ids would pass %u (%lu refused so far)\n",
			mod ? mod->name : "built-in", n, U32_MAX, klog_refused);
		/* Keys start on: a site outside the table makes no record. */
		for (i = 0; i < n; i++)
			static_branch_disable(&sites[i].key);
		return -EOVERFLOW;
	}
	t->mod = mod;
	t->sites = sites;
	t->gone = NULL;
	t->n = n;
	t->counts = klog_counts_alloc(n);
	for (i = 0; i < n; i++) {
		sites[i].id = t->first_id + i;
		/*
		 * Published before the site's key can be enabled just below:
		 * a call that reads the pointer (READ_ONCE(), behind the key,
		 * an address dependency) counts into zeroed memory, with jump
		 * labels or without (a key is then only a counter, and its
		 * test orders nothing).
		 */
		smp_store_release(&sites[i].records,
				  klog_counts_of(t->counts, i));
		sites[i].file = klog_trim_prefix(sites[i].file);
		klog_site_set_flags(&sites[i],
				    klog_default_off ? 0 : KLOG_SITE_ENABLED);
	}
	/* Crash-context lookups walk the list under RCU (klog_site_func()). */
	list_add_tail_rcu(&t->node, &klog_tables);
	return 0;
}

static void klog_table_free_rcu(struct rcu_head *head)
{
	struct klog_table *t = container_of(head, struct klog_table, rcu);

	kvfree(t->gone);
	kfree(t);
}

/* Out of the list; freed once no lockless lookup can be inside it. */
static void klog_table_del(struct klog_table *t)
{
	list_del_rcu(&t->node);
	call_rcu(&t->rcu, klog_table_free_rcu);
}

static void klog_forget_oldest(void)
{
	struct klog_table *t;

	lockdep_assert_held(&klog_mutex);
	list_for_each_entry(t, &klog_tables, node) {
		if (!t->gone)
			continue;
		klog_gone_n -= t->n;
		klog_forgotten += t->n;
		klog_table_del(t);
		return;
	}
}

static size_t klog_strsize(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* Copy @s into *@pos (when there is one) and advance it. */
static const char *klog_strcopy(char **pos, const char *s)
{
	const char *copy = *pos;
	size_t size;

	if (!s)
		return NULL;
	size = strlen(s) + 1;
	memcpy(*pos, s, size);
	*pos += size;
	return copy;
}

/* After klog_table_retire(), outside klog_mutex: may sleep. */
static void klog_counts_free(struct klog_counts *counts)
{
	unsigned int i;

	if (!counts)
		return;
	/* No call still counts (klog_table_retire()). */
	synchronize_rcu();
	for (i = 0; i < counts->n; i++)
		free_percpu(counts->chunk[i]);
	kfree(counts);
}

/*
 * Replace @t's sites by copies of their descriptions: its module goes.
 * Its keys are turned off and its sites' counters taken away first; they
 * go to *@counts, for the caller to free after a grace period
 * (klog_counts_free(): a call that passed its key before may still be
 * counting, which it does with preemption disabled, klog_internal.h). A
 * lockless lookup that still finds the live sites reads the module's
 * memory, which the module loader frees only after a grace period of its
 * own.
 */
static void klog_table_retire(struct klog_table *t,
			      struct klog_counts **counts)
{
	struct klog_gone_site *g;
	size_t size = 0;
	unsigned int i;
	char *pos;

	lockdep_assert_held(&klog_mutex);
	for (i = 0; i < t->n; i++) {
		if (static_key_enabled(&t->sites[i].key))
			static_branch_disable(&t->sites[i].key);
		WRITE_ONCE(t->sites[i].records, NULL);
	}
	*counts = t->counts;
	t->counts = NULL;
	for (i = 0; i < t->n; i++) {
		struct klog_site *s = &t->sites[i];

		size += klog_strsize(s->modname) + klog_strsize(s->file) +
			klog_strsize(s->func) + klog_strsize(s->fmt);
	}
	g = kvmalloc(size + t->n * sizeof(*g), GFP_KERNEL);
	if (!g) {
		klog_forgotten += t->n;
		klog_table_del(t);
		return;
	}
	pos = (char *)(g + t->n);
	for (i = 0; i < t->n; i++) {
		struct klog_site *s = &t->sites[i];

		g[i] = (struct klog_gone_site) {
			.modname	= klog_strcopy(&pos, s->modname),
			.file		= klog_strcopy(&pos, s->file),
			.func		= klog_strcopy(&pos, s->func),
			.fmt		= klog_strcopy(&pos, s->fmt),
			.line		= s->line,
			.kind		= s->kind,
		};
	}
	t->gone = g;
	/*
	 * Pairs with the acquire in klog_table_of(): a lookup that finds
	 * no live sites finds their descriptions.
	 */
	smp_store_release(&t->sites, NULL);
	t->mod = NULL;
	klog_gone_n += t->n;
	while (klog_gone_n > KLOG_GONE_MAX)
		klog_forget_oldest();
}

#if IS_ENABLED(CONFIG_KUNIT)
/* A table of @n sites added as a module's load adds one; 0 or -errno. */
int klog_kunit_table_add(struct klog_table *t, struct klog_site *sites,
			 unsigned int n)
{
	guard(mutex)(&klog_mutex);
	return klog_table_add(t, NULL, sites, n);
}
EXPORT_SYMBOL_IF_KUNIT(klog_kunit_table_add);

/* Retired as at its module's unload, what it used freed. */
void klog_kunit_table_retire(struct klog_table *t)
{
	struct klog_counts *counts;

	mutex_lock(&klog_mutex);
	klog_table_retire(t, &counts);
	mutex_unlock(&klog_mutex);
	klog_counts_free(counts);
}
EXPORT_SYMBOL_IF_KUNIT(klog_kunit_table_retire);

/* A retired table removed again, leaving no count behind. */
void klog_kunit_table_remove(struct klog_table *t)
{
	guard(mutex)(&klog_mutex);
	klog_gone_n -= t->n;
	klog_table_del(t);
}
EXPORT_SYMBOL_IF_KUNIT(klog_kunit_table_remove);
#endif

#ifdef CONFIG_MODULES
static struct klog_table *klog_module_table(struct module *mod)
{
	struct klog_table *t;

	list_for_each_entry(t, &klog_tables, node)
		if (t->sites && t->mod == mod)
			return t;
	return NULL;
}

static int klog_module_notify(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	struct klog_counts *counts = NULL;
	struct module *mod = data;
	struct klog_table *t;
	int ret = 0;

	if (!mod->num_klog_sites)
		return NOTIFY_DONE;
	mutex_lock(&klog_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t) {
			ret = -ENOMEM;
			break;
		}
		/* No ids left: the module loads, its sites stay off. */
		if (klog_table_add(t, mod, mod->klog_sites,
				   mod->num_klog_sites))
			kfree(t);
		break;
	case MODULE_STATE_GOING:
		t = klog_module_table(mod);
		if (t)
			klog_table_retire(t, &counts);
		break;
	}
	mutex_unlock(&klog_mutex);
	klog_counts_free(counts);
	return notifier_from_errno(ret);
}

/*
 * Priority 0: after the jump label notifier (1), which must have linked
 * the module's keys at COMING before klog_site_set_flags() turns them on;
 * before the control language's (-1), which applies klog.query= to the
 * module's sites once they are in the table.
 */
static struct notifier_block klog_module_nb = {
	.notifier_call = klog_module_notify,
	.priority = 0,
};

#endif /* CONFIG_MODULES */

/* ---- Iteration over the tables ------------------------------------- */

/*
 * Point @it at the first site of id @id or above (live ones only with
 * @it->live_only). Returns @it, or NULL past the end. Under klog_mutex.
 * The position of a line is its site's id (plus one: 0 is the header),
 * not its number, so that a table that drops out of the walk between two
 * read(2) calls (a module unloaded, a table forgotten) moves no line of
 * another: ids grow along the list.
 */
static void *klog_iter_seek(struct klog_iter *it, u64 id)
{
	struct klog_table *t;

	lockdep_assert_held(&klog_mutex);
	list_for_each_entry(t, &klog_tables, node) {
		if (it->live_only && !t->sites)
			continue;
		if (t->n && id < (u64)t->first_id + t->n) {
			it->t = t;
			it->i = id > t->first_id ? id - t->first_id : 0;
			return it;
		}
	}
	return NULL;
}

void *klog_iter_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&klog_mutex);
	if (!*pos)
		return SEQ_START_TOKEN;
	return klog_iter_seek(m->private, *pos - 1);
}
EXPORT_SYMBOL_IF_KUNIT(klog_iter_start);

void *klog_iter_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct klog_iter *it = m->private;

	*pos = v == SEQ_START_TOKEN ? 1 : (loff_t)it->t->first_id + it->i + 2;
	return klog_iter_seek(it, *pos - 1);
}
EXPORT_SYMBOL_IF_KUNIT(klog_iter_next);

void klog_iter_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&klog_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(klog_iter_stop);

int klog_iter_open(struct file *file, const struct seq_operations *sops,
		   bool live_only)
{
	struct klog_iter *it = __seq_open_private(file, sops, sizeof(*it));

	if (!it)
		return -ENOMEM;
	it->live_only = live_only;
	return 0;
}

/* ---- Lookup by id in crash context -------------------------------- */

/*
 * The site @id (live: *@live, or the description of a gone one: *@gone);
 * false if no table holds it. Walks the tables under RCU: allocates,
 * prints and locks nothing, so the oops/panic dump may call it.
 */
static bool klog_table_of(u32 id, const struct klog_site **live,
			  const struct klog_gone_site **gone)
{
	const struct klog_table *t;
	const struct klog_site *sites;
	unsigned int i;

	list_for_each_entry_rcu(t, &klog_tables, node,
				lockdep_is_held(&klog_mutex)) {
		i = id - t->first_id;
		if (id < t->first_id || i >= t->n)
			continue;
		/* Pairs with the release in klog_table_retire(). */
		sites = smp_load_acquire(&t->sites);
		*live = sites ? &sites[i] : NULL;
		*gone = sites ? NULL : &t->gone[i];
		return true;
	}
	return false;
}

/**
 * klog_site_func() - the function and line of the site with an id
 * @id: a site id (struct klog_site.id)
 * @func: set to the site's function name
 * @line: set to the site's source line
 *
 * For handlers that name sites where they may not wait for anything (an
 * oops or panic notifier). Live sites and the kept descriptions of gone
 * ones are found alike; the tables are walked under RCU, without
 * allocating, printing or taking a lock.
 *
 * Context: any in which RCU is watching, inside an RCU read-side critical
 * section (rcu_read_lock(); die and panic notifiers run in one), which
 * keeps *@func valid until it ends.
 * Return: true if a site has @id; false if none has (never handed out,
 * forgotten, or 0).
 */
bool klog_site_func(u32 id, const char **func, unsigned int *line)
{
	const struct klog_gone_site *gone;
	const struct klog_site *live;

	if (!klog_table_of(id, &live, &gone))
		return false;
	*func = live ? live->func : gone->func;
	*line = live ? live->line : gone->line;
	return true;
}
EXPORT_SYMBOL_GPL(klog_site_func);

/**
 * klog_site_fmt() - the format of the site with an id
 * @id: a site id (struct klog_site.id)
 *
 * For a crash dump that formats argument records (klog_args_format())
 * by site id: as klog_site_func().
 *
 * Context: as klog_site_func(); the format is valid until the RCU
 * read-side critical section ends.
 * Return: the format, or NULL if no site has @id or the site has none
 * (klog_raw()).
 */
const char *klog_site_fmt(u32 id)
{
	const struct klog_gone_site *gone;
	const struct klog_site *live;

	if (!klog_table_of(id, &live, &gone))
		return NULL;
	return live ? live->fmt : gone->fmt;
}
EXPORT_SYMBOL_GPL(klog_site_fmt);

static int __init klog_sites_init(void)
{
	mutex_lock(&klog_mutex);
	klog_table_add(&klog_builtin_table, NULL, __start___klog_sites,
		       __stop___klog_sites - __start___klog_sites);
	mutex_unlock(&klog_mutex);
#ifdef CONFIG_MODULES
	return register_module_notifier(&klog_module_nb);
#else
	return 0;
#endif
}
early_initcall(klog_sites_init);
