// SPDX-License-Identifier: GPL-2.0
/*
 * test_klog_format - klog's binary argument cases for user space
 *
 * At load, every case of klog_format_cases.h is recorded with
 * KLOG_ARGS_PACK() and formatted with the kernel's own snprintf(); the
 * pairs are in /sys/kernel/debug/test_klog_format/cases (root only), for
 * the selftest klog_format_test, which must make the same text from the
 * block with the collector library's formatter (tools/lib/klog) and
 * the kernel's symbols from /proc/kallsyms.
 *
 * The file, all fields in the kernel's byte order:
 *	u32 magic "KFC1", u32 number of cases, then per case:
 *	u32 line (in klog_format_cases.h), s32 snprintf()'s return value,
 *	u16 format length, u16 block length, u16 text length (what
 *	snprintf() stored, at most 1023), u16 0, then the format, the
 *	block and the text, each without a NUL, then zeros to a multiple
 *	of 4 bytes.
 *
 * Writing to /sys/kernel/debug/test_klog_format/emit (root only) makes
 * the same calls through klog_printk(), one call site per case, in the
 * order of the cases file: the selftest klog_printk_args_test collects
 * them with the klog collector and checks that klog -r prints each
 * case's expected text. The cases whose format the compiler would warn
 * about (KFCV()) make klog_printk()'s own call of a klog_printk() site,
 * only without __printf()'s check.
 */
#define pr_fmt(fmt) "test_klog_format: " fmt

#include <linux/debugfs.h>
#include <linux/klog.h>
#include <linux/klog_args.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define KFC_TEXT	1024	/* klog's KLOG_TEXT_MAX */
#define KFC_BLK		2048
#define KFC_FILE_MAX	(1024 * 1024)
#define KFC_MAGIC	0x3143464b	/* "KFC1" read as LE u32 */

struct kfc_case_hdr {
	u32	line;
	s32	ret;
	u16	fmt_len;
	u16	blk_len;
	u16	text_len;
	u16	zero;
};

struct kfc_ctx {
	bool			emit;	/* klog_printk() the cases */
	struct klog_args_plan	plan;
	u8			*blk;
	char			*exp;
	int			blen, elen;
	int			err;
	u32			cases;
	u8			*out;
	size_t			len;
};

static void kfc_put(struct kfc_ctx *c, const void *p, size_t n)
{
	if (c->err)
		return;
	if (c->len + n > KFC_FILE_MAX) {
		c->err = -E2BIG;
		return;
	}
	memcpy(c->out + c->len, p, n);
	c->len += n;
}

static void kfc_check(struct kfc_ctx *c, unsigned int line, const char *fmt)
{
	struct kfc_case_hdr h = { .line = line, .ret = c->elen };
	static const u8 zeros[4];

	if (c->blen < 0) {
		pr_err("line %u: \"%s\": pack failed: %d\n", line, fmt, c->blen);
		c->err = c->blen;
		return;
	}
	h.fmt_len = strlen(fmt);
	h.blk_len = c->blen;
	h.text_len = min(c->elen, 1023);
	kfc_put(c, &h, sizeof(h));
	kfc_put(c, fmt, h.fmt_len);
	kfc_put(c, c->blk, h.blk_len);
	kfc_put(c, c->exp, h.text_len);
	kfc_put(c, zeros, -c->len & 3);
	c->cases++;
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
	if ((c)->emit) {						\
		klog_printk(fmt, ##__VA_ARGS__);			\
		(c)->cases++;						\
	} else {							\
		KFC_PACK(c, fmt, ##__VA_ARGS__);			\
	}								\
} while (0)

/*
 * klog_printk() but for __printf(): the format of these cases draws a
 * warning (a '0' flag with %s, a NULL %s, %px), which the test wants.
 * The site is klog_printk()'s, and so is the call: with a plan, the
 * arguments in binary; without, __klog_printk() with the format through
 * a variable the compiler cannot see through, as in KFC_PACK().
 */
#define KFCV(c, fmt, ...)						\
do {									\
	if ((c)->emit) {						\
		KLOG_DEFINE_SITE(__klog_site, fmt, KLOG_KIND_TEXT);	\
		const char *__kfc_fmt = fmt;				\
									\
		OPTIMIZER_HIDE_VAR(__kfc_fmt);				\
		if (__klog_site_on(__klog_site) &&			\
		    READ_ONCE(__klog_site.plan))			\
			__klog_printk_args(&__klog_site,		\
				__KLOG_CLASSES(__VA_ARGS__),		\
				__KLOG_ARGV(__VA_ARGS__));		\
		else if (__klog_site_on(__klog_site))			\
			__klog_printk(&__klog_site, __kfc_fmt,		\
				      ##__VA_ARGS__);			\
		(c)->cases++;						\
	} else {							\
		KFC_PACK(c, fmt, ##__VA_ARGS__);			\
	}								\
} while (0)

#define KFC_PACK(c, fmt, ...)						\
do {									\
	const char *__kfc_fmt = fmt;					\
									\
	OPTIMIZER_HIDE_VAR(__kfc_fmt);					\
	if (klog_args_plan_init(&(c)->plan, __kfc_fmt))			\
		(c)->err = -EINVAL;					\
	(c)->blen = KLOG_ARGS_PACK((c)->blk, KFC_BLK, &(c)->plan,	\
				   ##__VA_ARGS__);			\
	(c)->elen = snprintf((c)->exp, KFC_TEXT, __kfc_fmt,		\
			     ##__VA_ARGS__);				\
	kfc_check(c, __LINE__, __kfc_fmt);				\
} while (0)

#include "klog_format_cases.h"

static struct dentry *kfc_dir;
static struct debugfs_blob_wrapper kfc_blob;

/* Any write: every case through klog_printk(), in the file's order. */
static ssize_t kfc_emit_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct kfc_ctx c = { .emit = true };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kfc_groups); i++)
		kfc_groups[i](&c);
	pr_info("emitted %u cases\n", c.cases);
	return count;
}

static const struct file_operations kfc_emit_fops = {
	.owner	= THIS_MODULE,
	.write	= kfc_emit_write,
	.llseek	= noop_llseek,
};

static int __init test_klog_format_init(void)
{
	struct kfc_ctx *c;
	unsigned int i;
	u32 head[2];
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->blk = kzalloc(KFC_BLK, GFP_KERNEL);
	c->exp = kzalloc(KFC_TEXT, GFP_KERNEL);
	c->out = vzalloc(KFC_FILE_MAX);
	ret = -ENOMEM;
	if (!c->blk || !c->exp || !c->out)
		goto out;
	kfc_init();
	head[0] = KFC_MAGIC;
	head[1] = 0;
	kfc_put(c, head, sizeof(head));
	for (i = 0; i < ARRAY_SIZE(kfc_groups); i++)
		kfc_groups[i](c);
	ret = c->err;
	if (ret)
		goto out;
	memcpy(c->out + 4, &c->cases, 4);
	kfc_blob.data = c->out;
	kfc_blob.size = c->len;
	kfc_dir = debugfs_create_dir("test_klog_format", NULL);
	debugfs_create_blob("cases", 0400, kfc_dir, &kfc_blob);
	debugfs_create_file("emit", 0200, kfc_dir, NULL, &kfc_emit_fops);
	c->out = NULL;
	pr_info("%u cases, %zu bytes\n", c->cases, c->len);
out:
	vfree(c->out);
	kfree(c->exp);
	kfree(c->blk);
	kfree(c);
	return ret;
}

static void __exit test_klog_format_exit(void)
{
	debugfs_remove(kfc_dir);
	vfree(kfc_blob.data);
}

module_init(test_klog_format_init);
module_exit(test_klog_format_exit);

MODULE_DESCRIPTION("klog binary argument cases for the user-space formatter test");
MODULE_LICENSE("GPL");
