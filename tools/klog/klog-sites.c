// SPDX-License-Identifier: GPL-2.0
/*
 * klog-sites.c - DIR/sites: the call sites a collection's records name
 *
 * Stream version 2 records carry their call site's id, not its function
 * name; the kernel's /sys/kernel/debug/klog/sites maps ids to module,
 * file, line, function and format, and keeps (a bounded number of) the
 * descriptions of sites whose module was unloaded. A collection keeps its
 * own copy, DIR/sites, in the same format, so that klog -r prints it
 * anywhere, any time later:
 *
 * - sites_collect() reads the kernel's file, merges it by id into the
 *   table (an id keeps its description; "gone" wins over "live") and
 *   writes the table to DIR/sites (0600, O_NOFOLLOW, through a temporary
 *   file renamed over it): at the start of a collection and again at its
 *   stop, so the sites of a module loaded and unloaded in between are in
 *   it even if the kernel has forgotten them by then.
 * - sites_resolve() names a record's site in follow mode, re-reading the
 *   kernel's file once for an id above every id it has seen (a module
 *   loaded since the last read).
 * - sites_load() reads DIR/sites for klog -r. The file is not trusted:
 *   ks_sites_parse() checks every field and the first bad line is an
 *   error naming the file and line; the report then goes on with the
 *   sites unnamed ("site#N") and exits 1.
 *
 * A kernel without a sites file (its stream is version 1: every record
 * names its function) gives no DIR/sites; klog -r needs none then.
 *
 * DIR/kallsyms: argument records (klog_printk()'s arguments in binary,
 * formatted when read with their site's format) may hold code addresses
 * for %pS, %ps and %pB. sites_collect() saves the kernel's symbols with
 * the sites (a copy of /proc/kallsyms, module symbols included: read as
 * root, it holds real addresses, so it is 0600, O_NOFOLLOW, renamed into
 * place like DIR/sites); at the stop of a collection the symbols of that
 * moment are appended, so modules loaded during it are there too, unless
 * /proc/modules lists what it listed when they were saved (the same
 * symbols: the stop then reads no 1-2 MB of /proc/kallsyms again).
 * args_setup() loads it for klog -r and follow mode; a bad line is an
 * error naming the file and line, and %pS then prints as an address.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog-app.h"
#include "../lib/klog/klog-format.h"

/*
 * Read the kernel's file (a seq_file: its size is 0) and merge it into
 * s->t; lock held if shared. 0, 1 if there is none (a kernel without a
 * site table), or -1 after a message.
 */
static int sites_merge_kernel(struct ksites *s)
{
	char path[PATH_MAX], err[PATH_MAX + 320], *text;
	size_t len;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", s->debugfs, KLOG_SITES_FILE);
	text = ra_read_file(path, KS_SITES_MAX_FILE, &len, true);
	if (!text)
		return errno == ENOENT ? 1 : -1;
	if (ks_sites_parse(&s->t, text, len, path, err, sizeof(err))) {
		ra_err("%s", err);
		ret = -1;
	}
	if (s->t.n && s->t.v[s->t.n - 1]->id > s->tried)
		s->tried = s->t.v[s->t.n - 1]->id;
	free(text);
	return ret;
}

/* Read all of @path (a /proc file: its size is 0) onto the end of @b. */
static int read_all(const char *path, struct ks_buf *b)
{
	size_t len;
	char *text = ra_read_file(path, KS_SITES_MAX_FILE, &len, false);
	int ret = text ? ks_put(b, text, len) : -1;

	if (text && ret)
		ra_err("%s: out of memory", path);
	free(text);
	return ret;
}

int save_file(const char *dir, const char *name, const struct ks_buf *b)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	fd = ra_out_open(tmp, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -1;
	ret = ra_write_close(fd, tmp, b->p, b->len);
	if (!ret && ra_out_rename(tmp, path))
		ret = -1;
	if (ret)
		ra_out_unlink(tmp);
	return ret;
}

/*
 * Save /proc/kallsyms as DIR/kallsyms; after the first time, append it to
 * what was saved (modules loaded since). 0 or -1 after a message.
 */
static int ksyms_collect(struct ksites *s, const char *dir)
{
	char path[PATH_MAX];
	struct ks_buf b = { 0 }, mods = { 0 };
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_KALLSYMS_FILE);
	if (access("/proc/kallsyms", F_OK) && errno == ENOENT)
		return 0;	/* a kernel without kallsyms */
	/* the same modules as when saved: the same symbols */
	if (access("/proc/modules", F_OK) || !read_all("/proc/modules", &mods)) {
		if (s->ksyms_saved && mods.len == s->modules.len &&
		    (!mods.len || !memcmp(mods.p, s->modules.p, mods.len))) {
			ks_buf_free(&mods);
			return 0;
		}
	}
	ret = s->ksyms_saved ? read_all(path, &b) : 0;
	if (!ret)
		ret = read_all("/proc/kallsyms", &b);
	if (!ret)
		ret = save_file(dir, KLOG_KALLSYMS_FILE, &b);
	if (!ret) {
		s->ksyms_saved = true;
		ks_buf_free(&s->modules);
		s->modules = mods;
		mods = (struct ks_buf) { 0 };
	}
	ks_buf_free(&mods);
	ks_buf_free(&b);
	return ret;
}

static struct klog_ksyms *args_ksyms;

static int args_text(char *buf, size_t size, const char *fmt,
		     const void *blk, size_t len)
{
	int n = klog_args_text(buf, size, fmt, blk, len, args_ksyms);

	return n < 0 ? -1 : n;
}

int args_setup(const char *dir)
{
	char path[PATH_MAX], err[PATH_MAX + 320];
	struct stat st;

	ks_args_text = args_text;
	args_free();
	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_KALLSYMS_FILE);
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (klog_ksyms_load(path, &args_ksyms, err, sizeof(err))) {
		ra_err("%s; %%pS, %%ps and %%pB print as addresses", err);
		return -1;
	}
	return 0;
}

void args_free(void)
{
	klog_ksyms_free(args_ksyms);
	args_ksyms = NULL;
}

int sites_collect(struct ksites *s, const char *dir)
{
	struct ks_buf b = { 0 };
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = sites_merge_kernel(s);
	if (ret > 0 && !s->t.n) {	/* no site table: nothing to save */
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	if (ret < 0 || ks_sites_format(&s->t, &b)) {
		pthread_mutex_unlock(&s->lock);
		if (!ret)
			ra_err("out of memory for %s/%s", dir, KLOG_SITES_FILE);
		ks_buf_free(&b);
		return -1;
	}
	pthread_mutex_unlock(&s->lock);
	ret = save_file(dir, KLOG_SITES_FILE, &b);
	ks_buf_free(&b);
	return ret ? ret : ksyms_collect(s, dir);
}

int sites_resolve(struct ksites *s, struct ks_event *ev)
{
	int ret = 0;

	if (ev->kind != KS_RECORD || ev->version < 2)
		return 0;
	pthread_mutex_lock(&s->lock);
	ks_event_site(ev, &s->t);
	if (!ev->site && ev->rec.site_id > s->tried) {
		/* a site newer than the table: a module loaded since */
		s->tried = ev->rec.site_id;
		if (sites_merge_kernel(s) < 0)
			ret = -1;
		ks_event_site(ev, &s->t);
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int sites_load(const char *dir, struct ks_sites *t)
{
	const unsigned char *data = NULL;
	char path[PATH_MAX], err[PATH_MAX + 320];
	struct stat st;
	size_t len = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_SITES_FILE);
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (ra_map_file(path, &data, &len))
		return -1;
	if (ks_sites_parse(t, (const char *)data, len, path, err,
			   sizeof(err))) {
		ra_err("%s; its records print as site#N", err);
		ret = -1;
	}
	if (len)
		munmap((void *)data, len);
	return ret;
}

void sites_init(struct ksites *s, const char *debugfs)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->debugfs = debugfs;
}

void sites_free(struct ksites *s)
{
	ks_sites_free(&s->t);
	ks_buf_free(&s->modules);
	pthread_mutex_destroy(&s->lock);
}
