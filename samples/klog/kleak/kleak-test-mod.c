// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-test-mod: a planted leak for kleak to find
 *
 * What this teaches: nothing about klog. When loaded, it makes
 * allocations whose callers, sizes and counts are known, for kleak to
 * find in a collection that tools/klog made (klog.rst's walk-through,
 * the selftest). Each parameter is optional:
 *
 *   insmod kleak-test-mod.ko leak=37 size=200 balanced=50 cached=5
 *
 * leak=N      kleak_test_leak() kmalloc()s N objects of size bytes and
 *             keeps them
 * balanced=M  kleak_test_balanced() kmalloc()s M objects of size bytes
 *             and frees each one at once: none of them is a leak
 * cached=K    kleak_test_cache_leak() takes K objects of 96 bytes from
 *             the module's kmem_cache and keeps them
 * size=S      bytes per kmalloc(), 16 to 65536 (default 64), so that
 *             kmalloc()s above the largest kmalloc cache can be planted
 *
 * Counts are at most 100000. Bad values fail the load with -EINVAL. The
 * objects kept are linked through their first bytes and freed at unload.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#define KLEAK_TEST_CACHE_SIZE	96
#define KLEAK_TEST_MAX_COUNT	100000
#define KLEAK_TEST_MIN_SIZE	16	/* holds the list_head linking it */

static unsigned int leak, balanced, cached, size = 64;
module_param(leak, uint, 0400);
MODULE_PARM_DESC(leak, "kmalloc()s kept by kleak_test_leak()");
module_param(balanced, uint, 0400);
MODULE_PARM_DESC(balanced, "kmalloc()s freed at once by kleak_test_balanced()");
module_param(cached, uint, 0400);
MODULE_PARM_DESC(cached, "kmem_cache objects kept by kleak_test_cache_leak()");
module_param(size, uint, 0400);
MODULE_PARM_DESC(size, "bytes per kmalloc(), 16 to 65536 (default 64)");

static LIST_HEAD(kleak_test_kept);	/* kmalloc()ed objects */
static LIST_HEAD(kleak_test_cached);	/* kleak_test_cache objects */
static struct kmem_cache *kleak_test_cache;

/* The planted leak: @n objects of @bytes bytes, all kept. */
static noinline int kleak_test_leak(unsigned int n, size_t bytes)
{
	while (n--) {
		struct list_head *obj = kmalloc(bytes, GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		list_add_tail(obj, &kleak_test_kept);
	}
	return 0;
}

/* Allocations freed at once: none of them is a leak. */
static noinline int kleak_test_balanced(unsigned int n, size_t bytes)
{
	while (n--) {
		void *obj = kmalloc(bytes, GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		/* A use, so that the pair is not optimised away. */
		OPTIMIZER_HIDE_VAR(obj);
		kfree(obj);
	}
	return 0;
}

/* A leak from a kmem_cache: @n objects, all kept. */
static noinline int kleak_test_cache_leak(unsigned int n)
{
	while (n--) {
		struct list_head *obj = kmem_cache_alloc(kleak_test_cache,
							 GFP_KERNEL);

		if (!obj)
			return -ENOMEM;
		list_add_tail(obj, &kleak_test_cached);
	}
	return 0;
}

static void kleak_test_free(void)
{
	struct list_head *obj, *next;

	list_for_each_safe(obj, next, &kleak_test_kept)
		kfree(obj);
	list_for_each_safe(obj, next, &kleak_test_cached)
		kmem_cache_free(kleak_test_cache, obj);
	kmem_cache_destroy(kleak_test_cache);
}

static int __init kleak_test_init(void)
{
	int ret;

	if (leak > KLEAK_TEST_MAX_COUNT || balanced > KLEAK_TEST_MAX_COUNT ||
	    cached > KLEAK_TEST_MAX_COUNT ||
	    size < KLEAK_TEST_MIN_SIZE || size > SZ_64K)
		return -EINVAL;
	kleak_test_cache = kmem_cache_create("kleak_test",
					     KLEAK_TEST_CACHE_SIZE, 0,
					     SLAB_NO_MERGE, NULL);
	if (!kleak_test_cache)
		return -ENOMEM;
	ret = kleak_test_leak(leak, size);
	if (!ret)
		ret = kleak_test_balanced(balanced, size);
	if (!ret)
		ret = kleak_test_cache_leak(cached);
	if (ret)
		kleak_test_free();
	return ret;
}

static void __exit kleak_test_exit(void)
{
	kleak_test_free();
}

module_init(kleak_test_init);
module_exit(kleak_test_exit);
MODULE_DESCRIPTION("kleak test: plants a known leak");
MODULE_LICENSE("GPL");
