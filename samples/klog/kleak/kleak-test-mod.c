// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-test-mod: a planted leak for kleak to find
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: kleak test module
 *
 * Allocations with known call sites, sizes and counts, for the kleak
 * selftest and demo. /sys/kernel/debug/kleak_test/run (root only) takes
 * space-separated ``key=value`` terms, each optional:
 *
 * ``leak=N``
 *	kleak_test_leak() allocates N objects of ``size`` bytes with
 *	kmalloc() and keeps them (until ``free`` or module unload).
 * ``balanced=M``
 *	kleak_test_balanced() allocates M objects of ``size`` bytes and
 *	frees each one at once: allocations that must not look leaked.
 * ``cached=K``
 *	kleak_test_cache_leak() allocates K objects from the module's
 *	kmem_cache of KLEAK_TEST_CACHE_SIZE-byte objects and keeps them.
 * ``size=S``
 *	bytes per kmalloc() (default 64; at least 16, at most 64 KiB, so
 *	also kmalloc()s above the largest kmalloc cache can be planted).
 * ``free``
 *	free every object kept so far, first.
 *
 * Bad input is -EINVAL and allocates nothing; -ENOMEM if an allocation
 * fails (the objects allocated until then are kept). Reading ``run``
 * shows the objects kept: "leaked=N leaked_bytes=B cached=K". Kept
 * objects are linked through their first bytes and freed at unload.
 */

#define pr_fmt(fmt) "kleak_test: " fmt

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "../../../kernel/klog_relay_ctl.h"

#define KLEAK_TEST_CACHE_SIZE	96
#define KLEAK_TEST_MAX_COUNT	100000
#define KLEAK_TEST_MIN_SIZE	sizeof(struct list_head)
#define KLEAK_TEST_MAX_SIZE	SZ_64K

static LIST_HEAD(kleak_test_leaked);	/* kmalloc()ed objects kept */
static LIST_HEAD(kleak_test_cached);	/* kleak_test_cache objects kept */
static unsigned int kleak_test_nleaked, kleak_test_ncached;
static size_t kleak_test_leaked_bytes;
static DEFINE_MUTEX(kleak_test_lock);	/* protects all of the above */
static struct kmem_cache *kleak_test_cache;
static struct dentry *kleak_test_dir;

struct kleak_test_req {
	unsigned int	leak, balanced, cached;
	size_t		size;
	bool		free;
};

/* The planted leak: @n objects of @size bytes, all kept. */
static noinline int kleak_test_leak(unsigned int n, size_t size)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct list_head *obj = kmalloc(size, GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		list_add_tail(obj, &kleak_test_leaked);
		kleak_test_nleaked++;
		kleak_test_leaked_bytes += size;
	}
	return 0;
}

/* Allocations that are freed at once: none of them is a leak. */
static noinline int kleak_test_balanced(unsigned int n, size_t size)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *obj = kmalloc(size, GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		/* A real use, so that the pair cannot be optimised away. */
		OPTIMIZER_HIDE_VAR(obj);
		kfree(obj);
	}
	return 0;
}

/* A leak from a kmem_cache: @n objects, all kept. */
static noinline int kleak_test_cache_leak(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct list_head *obj = kmem_cache_alloc(kleak_test_cache,
							 GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		list_add_tail(obj, &kleak_test_cached);
		kleak_test_ncached++;
	}
	return 0;
}

static void kleak_test_free(void)
{
	struct list_head *obj, *next;

	lockdep_assert_held(&kleak_test_lock);
	list_for_each_safe(obj, next, &kleak_test_leaked)
		kfree(obj);
	INIT_LIST_HEAD(&kleak_test_leaked);
	list_for_each_safe(obj, next, &kleak_test_cached)
		kmem_cache_free(kleak_test_cache, obj);
	INIT_LIST_HEAD(&kleak_test_cached);
	kleak_test_nleaked = 0;
	kleak_test_ncached = 0;
	kleak_test_leaked_bytes = 0;
}

static int kleak_test_parse_count(const char *val, unsigned int *n)
{
	if (kstrtouint(val, 10, n) || *n > KLEAK_TEST_MAX_COUNT)
		return -EINVAL;
	return 0;
}

static int kleak_test_parse_size(const char *val, size_t *size)
{
	unsigned long v;

	if (kstrtoul(val, 10, &v) || v < KLEAK_TEST_MIN_SIZE ||
	    v > KLEAK_TEST_MAX_SIZE)
		return -EINVAL;
	*size = v;
	return 0;
}

static int kleak_test_parse(char *s, struct kleak_test_req *req)
{
	char *tok, *val;
	int ret = 0;

	*req = (struct kleak_test_req) { .size = 64 };
	s = strim(s);
	while (!ret && (tok = strsep(&s, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (!strcmp(tok, "free")) {
			req->free = true;
			continue;
		}
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "leak"))
			ret = kleak_test_parse_count(val, &req->leak);
		else if (!strcmp(tok, "balanced"))
			ret = kleak_test_parse_count(val, &req->balanced);
		else if (!strcmp(tok, "cached"))
			ret = kleak_test_parse_count(val, &req->cached);
		else if (!strcmp(tok, "size"))
			ret = kleak_test_parse_size(val, &req->size);
		else
			ret = -EINVAL;
	}
	return ret;
}

static int run_store(char *s)
{
	struct kleak_test_req req;
	int ret;

	ret = kleak_test_parse(s, &req);
	if (ret)
		return ret;

	mutex_lock(&kleak_test_lock);
	if (req.free)
		kleak_test_free();
	ret = kleak_test_leak(req.leak, req.size);
	if (!ret)
		ret = kleak_test_balanced(req.balanced, req.size);
	if (!ret)
		ret = kleak_test_cache_leak(req.cached);
	mutex_unlock(&kleak_test_lock);
	return ret;
}

static void run_show(struct seq_file *m)
{
	mutex_lock(&kleak_test_lock);
	seq_printf(m, "leaked=%u leaked_bytes=%zu cached=%u\n",
		   kleak_test_nleaked, kleak_test_leaked_bytes,
		   kleak_test_ncached);
	mutex_unlock(&kleak_test_lock);
}

static const struct ctl_file kleak_test_files[] = {
	{ "run", 0600, run_show, run_store },
};

static int __init kleak_test_init(void)
{
	kleak_test_cache = kmem_cache_create("kleak_test",
					     KLEAK_TEST_CACHE_SIZE, 0,
					     SLAB_NO_MERGE, NULL);
	if (!kleak_test_cache)
		return -ENOMEM;
	kleak_test_dir = debugfs_create_dir("kleak_test", NULL);
	if (IS_ERR(kleak_test_dir)) {
		kmem_cache_destroy(kleak_test_cache);
		return PTR_ERR(kleak_test_dir);
	}
	ctl_files_create(kleak_test_dir, kleak_test_files,
			 ARRAY_SIZE(kleak_test_files));
	return 0;
}

static void __exit kleak_test_exit(void)
{
	debugfs_remove_recursive(kleak_test_dir);
	mutex_lock(&kleak_test_lock);
	kleak_test_free();
	mutex_unlock(&kleak_test_lock);
	kmem_cache_destroy(kleak_test_cache);
}

module_init(kleak_test_init);
module_exit(kleak_test_exit);
MODULE_DESCRIPTION("kleak test: plants a known leak");
MODULE_LICENSE("GPL");
