// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for klog's binary arguments: every case of
 * klog_format_cases.h is recorded with KLOG_ARGS_PACK() and turned back
 * into text with klog_args_format(); the text and its length must equal
 * the kernel's own snprintf() of the same call, byte for byte, and the
 * block must be the one the full walk of the plan packs (the fast
 * packing of kernel/klog_pack.h turned off) byte for byte. The same
 * cases reach user space through test_klog_format, where the collector
 * library's formatter must produce the same bytes.
 */
#include <kunit/test.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/byteorder.h>

#include "../kernel/klog_plans.h"

#define KFC_TEXT	1024	/* klog's KLOG_TEXT_MAX */
#define KFC_BLK		2048	/* block buffer: a text's worth and more */

struct kfc_ctx {
	struct kunit		*test;
	struct klog_args_plan	plan;
	u8			*blk;
	u8			*full;	/* the same call packed by the full walk */
	char			*exp;
	char			*got;
	int			blen, flen, elen;
	unsigned int		cases;
	unsigned int		fast;	/* cases the fast packing took */
};

static void kfc_check(struct kfc_ctx *c, unsigned int line, const char *fmt)
{
	struct kunit *test = c->test;
	int glen, n = min_t(int, c->elen, KFC_TEXT - 1) + 1;

	c->cases++;
	KUNIT_ASSERT_GT_MSG(test, c->blen, 0, "line %u: \"%s\": pack: %d",
			    line, fmt, c->blen);
	KUNIT_EXPECT_TRUE_MSG(test, c->flen == c->blen &&
			      !memcmp(c->full, c->blk, c->blen),
			      "line %u: \"%s\": the full walk packed %d bytes, the fast one %d (or other bytes)",
			      line, fmt, c->flen, c->blen);
	memset(c->got, 0x5a, KFC_TEXT);
	glen = klog_args_format(c->got, KFC_TEXT, fmt, c->blk, c->blen);
	KUNIT_EXPECT_EQ_MSG(test, glen, c->elen, "line %u: \"%s\": length",
			    line, fmt);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(c->got, c->exp, n),
			      "line %u: \"%s\": got \"%s\", want \"%s\"",
			      line, fmt, c->got, c->exp);
}

/*
 * The format reaches snprintf() through a variable the compiler cannot
 * see through: with a constant format GCC folds snprintf()'s return value
 * by ISO C's rules, which are not the kernel's (%#x of 0 is "0x0" in the
 * kernel, %.0d of 0 is "0"), while the text comes from the real call.
 * no_printk() keeps the compile-time check of the case's format.
 */
#define KFC(c, fmt, ...)						\
do {									\
	no_printk(fmt, ##__VA_ARGS__);					\
	KFCV(c, fmt, ##__VA_ARGS__);					\
} while (0)

/* The same without the check, for formats the compiler warns about. */
#define KFCV(c, fmt, ...)						\
do {									\
	const char *__kfc_fmt = fmt;					\
									\
	OPTIMIZER_HIDE_VAR(__kfc_fmt);					\
	KUNIT_ASSERT_EQ((c)->test,					\
			klog_args_plan_init(&(c)->plan, __kfc_fmt), 0);	\
	(c)->blen = KLOG_ARGS_PACK((c)->blk, KFC_BLK, &(c)->plan,	\
				   ##__VA_ARGS__);			\
	(c)->fast += (c)->plan.fast &&					\
		     (c)->plan.classes == __KLOG_CLASSES(__VA_ARGS__);	\
	(c)->plan.fast = 0;						\
	(c)->flen = KLOG_ARGS_PACK((c)->full, KFC_BLK, &(c)->plan,	\
				   ##__VA_ARGS__);			\
	(c)->elen = snprintf((c)->exp, KFC_TEXT, __kfc_fmt,		\
			     ##__VA_ARGS__);				\
	kfc_check(c, __LINE__, __kfc_fmt);				\
} while (0)

#include "klog_format_cases.h"

static struct kfc_ctx *kfc_alloc(struct kunit *test)
{
	struct kfc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->blk = kunit_kzalloc(test, KFC_BLK, GFP_KERNEL);
	c->full = kunit_kzalloc(test, KFC_BLK, GFP_KERNEL);
	c->exp = kunit_kzalloc(test, KFC_TEXT, GFP_KERNEL);
	c->got = kunit_kzalloc(test, KFC_TEXT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->blk);
	KUNIT_ASSERT_NOT_NULL(test, c->full);
	KUNIT_ASSERT_NOT_NULL(test, c->exp);
	KUNIT_ASSERT_NOT_NULL(test, c->got);
	kfc_init();
	return c;
}

#define KFC_GROUP_TEST(name)						\
static void kfc_test_##name(struct kunit *test)				\
{									\
	kfc_##name(kfc_alloc(test));					\
}

KFC_GROUP_TEST(ints)
KFC_GROUP_TEST(sizes)
KFC_GROUP_TEST(stars)
KFC_GROUP_TEST(chars)
KFC_GROUP_TEST(strings)
KFC_GROUP_TEST(ptrs)
KFC_GROUP_TEST(max)

/* All groups, at least 200 cases, each one checked. */
static void kfc_test_count(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kfc_groups); i++)
		kfc_groups[i](c);
	KUNIT_EXPECT_GE(test, c->cases, 200U);
	/* both packings ran, each on cases of its own */
	KUNIT_EXPECT_GT(test, c->fast, 0U);
	KUNIT_EXPECT_LT(test, c->fast, c->cases);
	kunit_info(test, "%u cases, %u packed fast\n", c->cases, c->fast);
}

/* %p is printk's hash, never the address; %px is the address. */
static void kfc_test_hash(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	struct klog_args_hdr h;
	unsigned long hash, raw = (unsigned long)&kfc_obj;
	u64 v;

	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%p"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, &kfc_obj);
	KUNIT_ASSERT_EQ(test, c->blen, (int)(sizeof(h) + 1 + 8));
	memcpy(&h, c->blk, sizeof(h));
	KUNIT_EXPECT_EQ(test, h.version, KLOG_ARGS_VERSION);
	KUNIT_EXPECT_EQ(test, h.nargs, 1);
	KUNIT_EXPECT_EQ(test, h.ptr_size, (u8)sizeof(void *));
	KUNIT_EXPECT_EQ(test, c->blk[sizeof(h)], KLOG_ARG_PTR);
	memcpy(&v, c->blk + sizeof(h) + 1, 8);
	/* The value printk's %p prints: ptr_to_hashval(), not exported. */
	snprintf(c->exp, KFC_TEXT, "%p", &kfc_obj);
	KUNIT_ASSERT_EQ(test, kstrtoul(c->exp, 16, &hash), 0);
	KUNIT_EXPECT_EQ(test, v, (u64)hash);
	if (!no_hash_pointers)
		KUNIT_EXPECT_NE(test, v, (u64)raw);

	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%px"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, &kfc_obj);
	memcpy(&v, c->blk + sizeof(h) + 1, 8);
	KUNIT_EXPECT_EQ(test, v, (u64)raw);

	/* A pointer given to an integer conversion is hashed too. */
	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%lx"), 0);
	c->blen = klog_args_pack(c->blk, KFC_BLK, &c->plan, KLOG_ACLS_PTR,
				 &kfc_obj);
	KUNIT_EXPECT_EQ(test, c->blk[sizeof(h)], KLOG_ARG_PTR);
	memcpy(&v, c->blk + sizeof(h) + 1, 8);
	KUNIT_EXPECT_EQ(test, v, (u64)hash);
}

/* Exact layout: tags, sizes, and nothing for surplus arguments. */
static void kfc_test_layout(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	static const u8 want[] = {
		KLOG_ARGS_VERSION, 3, sizeof(void *), 0,
		KLOG_ARG_U32, 0xfe, 0xff, 0xff, 0xff,
		KLOG_ARG_U64, 5, 0, 0, 0, 0, 0, 0, 0,
		KLOG_ARG_STR, 2, 0, 2, 0, 'h', 'i',
	};

	if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
		kunit_skip(test, "layout written for little-endian");
	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%hhd %lld %s"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, (s8)-2, 5LL, "hi",
				 7);
	KUNIT_ASSERT_EQ(test, c->blen, (int)sizeof(want));
	KUNIT_EXPECT_TRUE(test, !memcmp(c->blk, want, sizeof(want)));
}

/* A string is cut to what fits, flagged; too small a block is refused. */
static void kfc_test_small(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	struct klog_args_hdr h;
	struct klog_args_str sh;

	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%s"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, 16, &c->plan, "0123456789abcdef");
	KUNIT_ASSERT_EQ(test, c->blen, 16);
	memcpy(&h, c->blk, sizeof(h));
	memcpy(&sh, c->blk + sizeof(h) + 1, sizeof(sh));
	KUNIT_EXPECT_EQ(test, h.flags, KLOG_ARGS_F_CUT);
	KUNIT_EXPECT_EQ(test, sh.len, 16);
	KUNIT_EXPECT_EQ(test, sh.copied, 16 - 4 - 1 - 4);
	c->blen = KLOG_ARGS_PACK(c->blk, 8, &c->plan, "x");
	KUNIT_EXPECT_EQ(test, c->blen, -ENOSPC);
	c->blen = KLOG_ARGS_PACK(c->blk, 3, &c->plan, "x");
	KUNIT_EXPECT_EQ(test, c->blen, -ENOSPC);

	/* A block that does not match its format is refused when read. */
	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%d"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, 1);
	KUNIT_EXPECT_EQ(test, klog_args_format(c->got, KFC_TEXT, "%s", c->blk,
					       c->blen), -EINVAL);
	KUNIT_EXPECT_EQ(test, klog_args_format(c->got, KFC_TEXT, "%d %d",
					       c->blk, c->blen), -EINVAL);
	KUNIT_EXPECT_EQ(test, klog_args_format(c->got, KFC_TEXT, "%d", c->blk,
					       c->blen - 1), -EINVAL);
	c->blk[0] = KLOG_ARGS_VERSION + 1;
	KUNIT_EXPECT_EQ(test, klog_args_format(c->got, KFC_TEXT, "%d", c->blk,
					       c->blen), -EINVAL);
}

/*
 * A %s string is copied a word at a time where it can be: every length
 * around a word, ending at the last byte of a page with an unmapped page
 * after it (vmalloc()'s guard page: a word read across the end would
 * fault), whole and cut to a block that ends inside a word, whose bytes
 * past the block must stay as they were.
 */
static void kfc_page_end_one(struct kfc_ctx *c, const char *s,
			     unsigned int len, unsigned int keep, u8 fast)
{
	const size_t head = sizeof(struct klog_args_hdr) + 1 +
			    sizeof(struct klog_args_str);
	struct kunit *test = c->test;
	struct klog_args_str sh;

	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%s"), 0);
	c->plan.fast = fast;
	memset(c->blk, 0x5a, KFC_BLK);
	c->blen = KLOG_ARGS_PACK(c->blk, head + keep, &c->plan, s);
	KUNIT_ASSERT_EQ(test, c->blen, (int)(head + keep));
	memcpy(&sh, c->blk + head - sizeof(sh), sizeof(sh));
	KUNIT_EXPECT_EQ(test, sh.len, len);
	KUNIT_EXPECT_EQ(test, sh.copied, keep);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(c->blk + head, s, keep) &&
			      !memchr_inv(c->blk + head + keep, 0x5a,
					  KFC_BLK - head - keep),
			      "length %u, %u kept, fast %u", len, keep, fast);
}

KUNIT_DEFINE_ACTION_WRAPPER(kfc_vfree, vfree, const void *);

static void kfc_test_page_end(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	unsigned int len, keep, j;
	char *page, *s;

	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfc_vfree, page),
			0);
	for (len = 0; len <= 3 * sizeof(long) + 1; len++) {
		s = page + PAGE_SIZE - 1 - len;
		for (j = 0; j < len; j++)
			s[j] = 'a' + j;
		s[len] = '\0';
		for (keep = 0; keep <= len; keep++) {
			kfc_page_end_one(c, s, len, keep, 0);
			kfc_page_end_one(c, s, len, keep, 1);
		}
	}
}

/* Formats the plan refuses: the caller formats at the call instead. */
#define KFC_16D		"%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d"
#define KFC_17D		KFC_16D "%d"
#define KFC_LONG_EXT	"%-0123456789012345678pI4"	/* 24 characters */

static void kfc_test_plan_bad(struct kunit *test)
{
	struct klog_args_plan plan;
	u8 blk[8];

	KUNIT_EXPECT_EQ(test, klog_args_plan_init(&plan, KFC_17D), -EINVAL);
	KUNIT_EXPECT_EQ(test, klog_args_plan_init(&plan, KFC_LONG_EXT), -EINVAL);
	KUNIT_EXPECT_EQ(test, klog_args_plan_init(&plan, KFC_16D), 0);
	/* No argument for it: the header only, refused when read. */
	KUNIT_EXPECT_EQ(test, klog_args_pack(blk, sizeof(blk), &plan, 0), 4);
}

/*
 * A conversion vsnprintf() refuses ends the plan, and the text stops there
 * as vsnprintf()'s does (which also WARNs: the call never reaches it).
 */
static void kfc_test_plan_stops(struct kunit *test)
{
	static const struct { const char *fmt, *text; } stops[] = {
		{ "%d %n|%d", "42 " }, { "%d|%f", "42|" },
		{ "%d|%y %d", "42|" }, { "100%", "100" },
	};
	struct kfc_ctx *c = kfc_alloc(test);
	unsigned int i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(stops); i++) {
		const char *fmt = stops[i].fmt;

		KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, fmt), 0);
		c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, 42, &n, 7);
		KUNIT_ASSERT_GT(test, c->blen, 0);
		KUNIT_EXPECT_EQ(test, klog_args_format(c->got, KFC_TEXT, fmt,
						       c->blk, c->blen),
				(int)strlen(stops[i].text));
		KUNIT_EXPECT_STREQ(test, c->got, stops[i].text);
	}
}

/* A call site's plan: made once, when this module's sites were enumerated. */
static void kfc_test_site_plan(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	struct klog_args_plan plan;

	KLOG_DEFINE_SITE(text_site, "site %d %-6s|%p %pI4\n", KLOG_KIND_TEXT);
	KLOG_DEFINE_SITE(raw_site, NULL, KLOG_KIND_RAW);
	KLOG_DEFINE_SITE(bad_site, KFC_LONG_EXT, KLOG_KIND_TEXT);

	KUNIT_ASSERT_NE(test, text_site.id, 0U);
	KUNIT_ASSERT_NOT_NULL(test, text_site.plan);
	KUNIT_EXPECT_NULL(test, raw_site.plan);
	KUNIT_EXPECT_NULL(test, bad_site.plan);
	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&plan, text_site.fmt), 0);
	KUNIT_EXPECT_TRUE(test, !memcmp(&plan, text_site.plan, sizeof(plan)));

	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, text_site.plan, 42, "str",
				 &kfc_obj, kfc_ip4);
	plan.fast = 0;		/* the full walk, for kfc_check() */
	c->flen = KLOG_ARGS_PACK(c->full, KFC_BLK, &plan, 42, "str",
				 &kfc_obj, kfc_ip4);
	c->elen = snprintf(c->exp, KFC_TEXT, text_site.fmt, 42, "str",
			   &kfc_obj, kfc_ip4);
	kfc_check(c, __LINE__, text_site.fmt);
}

/* The last record of this module's sites, as a handler sees it. */
struct kfc_last {
	struct klog_handler	handler;
	int			n;
	u8			kind;
	u32			len;
	u32			flags;
};

static void kfc_last_write(struct klog_handler *h,
			   const struct klog_record *rec)
{
	struct kfc_last *l = container_of(h, struct kfc_last, handler);

	if (strcmp(rec->site->modname, KBUILD_MODNAME))
		return;
	l->n++;
	l->kind = rec->kind;
	l->len = rec->len;
	l->flags = rec->flags;
}

/*
 * A module's plans taken away as it goes: the sites' pointers cleared
 * before the plans are freed, so that a call still passing its key then
 * makes a record without one (empty, cut) instead of packing with freed
 * memory.
 */
static void kfc_test_plans_dropped(struct kunit *test)
{
	static struct klog_site sites[2] = {
		KLOG_SITE("kfc dropped %d\n", KLOG_KIND_TEXT),
		KLOG_SITE(NULL, KLOG_KIND_RAW),
	};
	struct kfc_last *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	const u64 args[1] = { 5 };
	void *plans;

	KUNIT_ASSERT_NOT_NULL(test, l);
	plans = klog_kunit_plans_make(sites, 2);
	KUNIT_ASSERT_NOT_NULL(test, plans);
	KUNIT_EXPECT_NOT_NULL(test, READ_ONCE(sites[0].plan));
	KUNIT_EXPECT_NULL(test, READ_ONCE(sites[1].plan));
	l->handler.name = KBUILD_MODNAME;
	l->handler.write = kfc_last_write;
	KUNIT_ASSERT_EQ(test, register_klog_handler(&l->handler), 0);
	__klog_printk_args(&sites[0], __KLOG_CLASSES(5), args);
	KUNIT_EXPECT_EQ(test, l->n, 1);
	KUNIT_EXPECT_EQ(test, l->kind, KLOG_KIND_ARGS);

	klog_kunit_plans_drop(plans, sites, 2);
	KUNIT_EXPECT_NULL(test, READ_ONCE(sites[0].plan));
	/* A straggler that passed the key: a record, empty and cut. */
	__klog_printk_args(&sites[0], __KLOG_CLASSES(5), args);
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&l->handler), 0);
	KUNIT_EXPECT_EQ(test, l->n, 2);
	KUNIT_EXPECT_EQ(test, l->kind, KLOG_KIND_TEXT);
	KUNIT_EXPECT_EQ(test, l->len, 0);
	KUNIT_EXPECT_EQ(test, l->flags, KLOG_REC_TRUNCATED);
}

/*
 * %pS, %ps and %pB are named at the call, as text (KLOG_ARG_TEXT): the
 * block carries the symbol of that moment, never the address, so a
 * reader after this module is unloaded (and another loaded at its
 * address) still prints this module's function.
 */
static void kfc_test_symbol_at_call(struct kunit *test)
{
	static const char *const fmts[] = { "%pS", "%ps", "%pB", "%pSR" };
	struct kfc_ctx *c = kfc_alloc(test);
	const size_t hdr = sizeof(struct klog_args_hdr);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, fmts[i]),
				0);
		c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, kfc_func);
		KUNIT_ASSERT_GT(test, c->blen, (int)hdr);
		KUNIT_EXPECT_EQ_MSG(test, c->blk[hdr], KLOG_ARG_TEXT, "%s",
				    fmts[i]);
		c->elen = snprintf(c->exp, KFC_TEXT, fmts[i], kfc_func);
		KUNIT_EXPECT_TRUE_MSG(test, c->blen - hdr - 1 -
				      sizeof(struct klog_args_str) ==
				      (size_t)c->elen &&
				      !memcmp(c->blk + c->blen - c->elen,
					      c->exp, c->elen),
				      "%s: the block does not hold \"%s\"",
				      fmts[i], c->exp);
	}
}

/*
 * A block that says SYM for an extension that dereferences (no writer
 * makes one; a corrupt buffer may) prints the address in hex: what it
 * points to is never read. A '*' width for an extension formatted at the
 * call, out of vsnprintf()'s range, is clamped as vsnprintf() clamps it,
 * without its WARN_ONCE() (the console check fails on one).
 */
static void kfc_test_ext_hostile(struct kunit *test)
{
	struct kfc_ctx *c = kfc_alloc(test);
	const size_t hdr = sizeof(struct klog_args_hdr);
	u8 blk[sizeof(struct klog_args_hdr) + 9] = {
		KLOG_ARGS_VERSION, 1, sizeof(void *), 0, KLOG_ARG_SYM };
	u64 addr = (unsigned long)c->exp;
	struct klog_args_str sh;
	char want[24];
	__be32 ip = cpu_to_be32(0x7f000001);

	memcpy(c->exp, "\x01\x02\x03\x04", 4);
	memcpy(blk + hdr + 1, &addr, sizeof(addr));
	snprintf(want, sizeof(want), "0x%llx", addr);
	klog_args_format(c->got, KFC_TEXT, "%4ph", blk, sizeof(blk));
	KUNIT_EXPECT_STREQ(test, c->got, want);

	KUNIT_ASSERT_EQ(test, klog_args_plan_init(&c->plan, "%*pI4"), 0);
	c->blen = KLOG_ARGS_PACK(c->blk, KFC_BLK, &c->plan, 1 << 24, &ip);
	KUNIT_ASSERT_GT(test, c->blen, (int)(hdr + 5 + 1 + sizeof(sh)));
	KUNIT_EXPECT_EQ(test, c->blk[hdr + 5], KLOG_ARG_TEXT);
	memcpy(&sh, c->blk + hdr + 6, sizeof(sh));
	KUNIT_EXPECT_EQ(test, sh.len, KLOG_ARGS_STR_SCAN);
}

static struct kunit_case klog_format_test_cases[] = {
	KUNIT_CASE(kfc_test_ints),
	KUNIT_CASE(kfc_test_sizes),
	KUNIT_CASE(kfc_test_stars),
	KUNIT_CASE(kfc_test_chars),
	KUNIT_CASE(kfc_test_strings),
	KUNIT_CASE(kfc_test_ptrs),
	KUNIT_CASE(kfc_test_max),
	KUNIT_CASE(kfc_test_count),
	KUNIT_CASE(kfc_test_hash),
	KUNIT_CASE(kfc_test_layout),
	KUNIT_CASE(kfc_test_small),
	KUNIT_CASE(kfc_test_page_end),
	KUNIT_CASE(kfc_test_plan_bad),
	KUNIT_CASE(kfc_test_plan_stops),
	KUNIT_CASE(kfc_test_site_plan),
	KUNIT_CASE(kfc_test_plans_dropped),
	KUNIT_CASE(kfc_test_symbol_at_call),
	KUNIT_CASE(kfc_test_ext_hostile),
	{}
};

static struct kunit_suite klog_format_test_suite = {
	.name = "klog-format",
	.test_cases = klog_format_test_cases,
};

kunit_test_suite(klog_format_test_suite);

MODULE_DESCRIPTION("KUnit tests for klog's binary arguments and formatter");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
