// SPDX-License-Identifier: GPL-2.0
/*
 * klog-format.c - the text of a klog call recorded with binary arguments,
 * in user space: the kernel's format walker (kernel/klog_format.h) and a
 * kallsyms table for %pS, %ps and %pB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog_format.h"	/* kernel/klog_format.h: the one walker */
#include "klog-format.h"

struct klog_ksym {
	unsigned long long	addr;
	unsigned long long	size;	/* to the next address of its image */
	unsigned int		order;	/* line number: first alias wins */
	int			mod;	/* index in mods, -1 for vmlinux */
	char			*name;
};

/*
 * Module names by index, found by name through an open-addressing hash
 * (@slots, a power of two at least twice @nmods, each an index + 1), so
 * that a file naming many modules loads in time linear in its lines.
 */
struct klog_ksyms {
	struct klog_ksym	*syms;
	size_t			n;
	char			**mods;
	size_t			nmods;
	unsigned int		*slots;
	size_t			nslots;
};

void klog_ksyms_free(struct klog_ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++)
		free(ks->syms[i].name);
	for (i = 0; i < ks->nmods; i++)
		free(ks->mods[i]);
	free(ks->syms);
	free(ks->mods);
	free(ks->slots);
	free(ks);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct klog_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t ksyms_hash(const char *name)
{
	size_t h = 2166136261u;		/* FNV-1a */

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

/* The slot of @name in @slots: its own, or the empty one it would take. */
static unsigned int *ksyms_slot(char **mods, unsigned int *slots,
				size_t nslots, const char *name)
{
	size_t i = ksyms_hash(name) & (nslots - 1);

	while (slots[i] && strcmp(mods[slots[i] - 1], name))
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

/*
 * The index of module @name, added if new; -1 when out of memory. @mods
 * has room for nslots / 2 names: both double together.
 */
static int ksyms_mod(struct klog_ksyms *ks, const char *name)
{
	unsigned int *slot;
	size_t i;

	if (2 * (ks->nmods + 1) > ks->nslots) {
		size_t nslots = ks->nslots ? 2 * ks->nslots : 64;
		unsigned int *slots = calloc(nslots, sizeof(*slots));
		char **m = realloc(ks->mods, nslots / 2 * sizeof(*m));

		if (m)
			ks->mods = m;
		if (!slots || !m) {
			free(slots);
			return -1;
		}
		for (i = 0; i < ks->nmods; i++)
			*ksyms_slot(ks->mods, slots, nslots, ks->mods[i]) = i + 1;
		free(ks->slots);
		ks->slots = slots;
		ks->nslots = nslots;
	}
	slot = ksyms_slot(ks->mods, ks->slots, ks->nslots, name);
	if (*slot)
		return *slot - 1;
	ks->mods[ks->nmods] = strdup(name);
	if (!ks->mods[ks->nmods])
		return -1;
	*slot = ++ks->nmods;
	return ks->nmods - 1;
}

/*
 * Each symbol's size, as kallsyms_lookup() gives it: up to the next
 * higher address of the same image (0 for an image's last), found in
 * one pass down the sorted table. For each image (@next, nmods + 1
 * entries, vmlinux first): the lowest address seen so far and the next
 * higher one.
 */
struct ksyms_image {
	unsigned long long	low, above;
};

static int ksyms_sizes(struct klog_ksyms *ks)
{
	struct ksyms_image *next;
	size_t i;

	next = calloc(ks->nmods + 1, sizeof(*next));
	if (!next)
		return -1;
	for (i = ks->n; i-- > 0;) {
		struct klog_ksym *s = &ks->syms[i];
		struct ksyms_image *img = &next[s->mod + 1];

		if (!img->low || s->addr < img->low) {
			img->above = img->low;
			img->low = s->addr;
		}
		s->size = img->above ? img->above - s->addr : 0;
	}
	free(next);
	return 0;
}

/* One line "ADDRESS TYPE NAME" or "ADDRESS TYPE NAME\t[MODULE]". */
static const char *ksyms_line(char *line, unsigned long long *addr,
			      char **name, char **mod)
{
	char *p = line, *end;
	size_t n;

	n = strspn(p, "0123456789abcdefABCDEF");
	if (!n || n > 16 || p[n] != ' ')
		return "no hexadecimal address of at most 16 digits, then a space";
	*addr = strtoull(p, NULL, 16);
	p += n + 1;
	/* a letter, or '?' for a type nm does not know (__nosave_begin) */
	if (*p <= ' ' || *p > '~' || p[1] != ' ')
		return "no symbol type (one printable character) after the address";
	p += 2;
	n = strcspn(p, " \t");
	if (!n)
		return "no symbol name";
	*name = p;
	p += n;
	*mod = NULL;
	if (!*p)
		return NULL;
	*p++ = '\0';
	p += strspn(p, " \t");
	end = strchr(p, ']');
	if (*p != '[' || !end || end == p + 1 || end[1])
		return "text after the name is not a [MODULE]";
	*end = '\0';
	*mod = p + 1;
	return NULL;
}

int klog_ksyms_load(const char *path, struct klog_ksyms **out, char *err,
		    size_t err_size)
{
	struct klog_ksyms *ks;
	size_t scap = 0, nonzero = 0;
	unsigned long lineno = 0;
	const char *why = NULL;
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	ssize_t got;
	FILE *f;
	int fd, ret = 0;

	*out = NULL;
	/*
	 * Not through a link, never waiting on a FIFO, and a regular file
	 * only (/proc/kallsyms is one): a device such as /dev/zero under
	 * that name would be read until memory runs out.
	 */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_size, "%s: open: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, err_size, "%s: not a regular file", path);
		close(fd);
		return ret;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		snprintf(err, err_size, "%s: out of memory", path);
		return -ENOMEM;
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		size_t len = got;
		unsigned long long addr;
		char *name, *mod;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 4095) {
			why = "longer than 4095 bytes";
			break;
		}
		if (len != strlen(line)) {
			why = "a NUL byte";
			break;
		}
		why = ksyms_line(line, &addr, &name, &mod);
		if (why)
			break;
		if (ks->n == scap) {
			struct klog_ksym *s;

			scap = scap ? scap * 2 : 4096;
			s = realloc(ks->syms, scap * sizeof(*s));
			if (!s) {
				ret = -ENOMEM;
				break;
			}
			ks->syms = s;
		}
		ks->syms[ks->n].addr = addr;
		ks->syms[ks->n].order = ks->n;
		ks->syms[ks->n].mod = mod ? ksyms_mod(ks, mod) : -1;
		ks->syms[ks->n].name = strdup(name);
		if (!ks->syms[ks->n].name || (mod && ks->syms[ks->n].mod < 0)) {
			free(ks->syms[ks->n].name);
			ret = -ENOMEM;
			break;
		}
		nonzero += addr != 0;
		ks->n++;
	}
	if (!ret && !why && ferror(f)) {
		ret = -EIO;
		snprintf(err, err_size, "%s: read error", path);
	}
	free(line);
	fclose(f);
	if (why) {
		ret = -EINVAL;
		snprintf(err, err_size, "%s:%lu: %s", path, lineno, why);
	} else if (ret == -ENOMEM) {
		snprintf(err, err_size, "%s: out of memory", path);
	} else if (!ret && !ks->n) {
		ret = -EINVAL;
		snprintf(err, err_size, "%s: no symbols", path);
	} else if (!ret && !nonzero) {
		ret = -EPERM;
		snprintf(err, err_size,
			 "%s: every address is 0 (not read as root)", path);
	}
	if (ret) {
		klog_ksyms_free(ks);
		return ret;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
	if (ksyms_sizes(ks)) {
		snprintf(err, err_size, "%s: out of memory", path);
		klog_ksyms_free(ks);
		return -ENOMEM;
	}
	*out = ks;
	return 0;
}

/* The symbol the kernel's kallsyms_lookup() finds for @addr, or NULL. */
static const struct klog_ksym *ksyms_find(const struct klog_ksyms *ks,
					  unsigned long long addr,
					  unsigned long long *size)
{
	size_t lo = 0, hi = ks->n, i;
	const struct klog_ksym *s;

	while (lo < hi) {	/* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	while (i && ks->syms[i - 1].addr == ks->syms[i].addr)
		i--;		/* the first alias, in the file's order */
	s = &ks->syms[i];
	if (!s->addr)
		return NULL;
	*size = s->size;
	return s;
}

/* sprint_symbol(), sprint_symbol_no_offset(), sprint_backtrace() */
static void ksyms_sprint(void *priv, unsigned long long addr, const char *ext,
			 char *buf, size_t size)
{
	const struct klog_ksyms *ks = priv;
	const struct klog_ksym *s;
	unsigned long long sz = 0, look = addr;
	int back = ext[0] == 'B', n;

	buf[0] = '\0';
	if (!ks)
		return;
	if (back)
		look--;
	s = ksyms_find(ks, look, &sz);
	if (!s)
		return;
	if (ext[0] == 's')
		n = snprintf(buf, size, "%s", s->name);
	else
		n = snprintf(buf, size, "%s+0x%llx/0x%llx", s->name,
			     look - s->addr + back, sz);
	if (s->mod >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, " [%s]", ks->mods[s->mod]);
}

void klog_ksyms_sprint(const struct klog_ksyms *ks, unsigned long long addr,
		       char *buf, size_t size)
{
	ksyms_sprint((void *)ks, addr, "S", buf, size);
}

int klog_args_text(char *buf, size_t size, const char *fmt, const void *blk,
		   size_t len, const struct klog_ksyms *ks)
{
	return klog_fmt_format(buf, size, fmt, blk, len, ks ? ksyms_sprint : NULL,
			       (void *)ks);
}
