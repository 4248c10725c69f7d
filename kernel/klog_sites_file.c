// SPDX-License-Identifier: GPL-2.0
/*
 * klog: the sites file, /sys/kernel/debug/klog/sites
 *
 * Every site of the table (kernel/klog_sites.c), live or gone, one line
 * each in id order after a header line, in the format
 * Documentation/trace/klog.rst gives ("The sites file"): the fields
 * separated by TABs; in the text fields a TAB, newline, backslash or
 * double quote as a C escape and any other byte outside printable ASCII
 * as \ooo, so that a reader splits a line at its TABs.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "klog_sites.h"

/* One field of the sites file: C escapes for \ TAB LF ", \ooo for others. */
static void klog_put_field(struct seq_file *m, const char *s)
{
	const unsigned char *c;

	if (!s)
		return;
	for (c = s; *c; c++) {
		switch (*c) {
		case '\\':
			seq_puts(m, "\\\\");
			break;
		case '\t':
			seq_puts(m, "\\t");
			break;
		case '\n':
			seq_puts(m, "\\n");
			break;
		case '"':
			seq_puts(m, "\\\"");
			break;
		default:
			if (*c < 0x20 || *c > 0x7e)
				seq_printf(m, "\\%03o", *c);
			else
				seq_putc(m, *c);
		}
	}
}

static void klog_put_site(struct seq_file *m, u32 id, bool live,
			  unsigned int kind, const char *modname,
			  const char *file, unsigned int line,
			  const char *func, const char *fmt)
{
	seq_printf(m, "%u\t%s\t%s\t", id, live ? "live" : "gone",
		   kind == KLOG_KIND_RAW ? "raw" : "text");
	klog_put_field(m, modname);
	seq_putc(m, '\t');
	klog_put_field(m, file);
	seq_printf(m, "\t%u\t", line);
	klog_put_field(m, func);
	seq_putc(m, '\t');
	klog_put_field(m, fmt);
	seq_putc(m, '\n');
}

static int klog_sites_show(struct seq_file *m, void *v)
{
	struct klog_iter *it = v;
	const struct klog_table *t;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "# klog sites 1 forgotten=%lu refused=%lu\n",
			   klog_forgotten, klog_refused);
		return 0;
	}
	t = it->t;
	if (t->sites) {
		const struct klog_site *s = &t->sites[it->i];

		klog_put_site(m, s->id, true, s->kind, s->modname, s->file,
			      s->line, s->func, s->fmt);
	} else {
		const struct klog_gone_site *g = &t->gone[it->i];

		klog_put_site(m, t->first_id + it->i, false, g->kind,
			      g->modname, g->file, g->line, g->func, g->fmt);
	}
	return 0;
}

static const struct seq_operations klog_sites_sops = {
	.start	= klog_iter_start,
	.next	= klog_iter_next,
	.stop	= klog_iter_stop,
	.show	= klog_sites_show,
};

static int klog_sites_open(struct inode *inode, struct file *file)
{
	return klog_iter_open(file, &klog_sites_sops, false);
}

static const struct file_operations klog_sites_fops = {
	.owner		= THIS_MODULE,
	.open		= klog_sites_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

/* After the core made the directory (fs_initcall). */
static int __init klog_sites_file_init(void)
{
	struct dentry *dir = klog_debugfs_dir();

	if (!IS_ERR_OR_NULL(dir))
		debugfs_create_file("sites", 0400, dir, NULL, &klog_sites_fops);
	return 0;
}
fs_initcall_sync(klog_sites_file_init);
