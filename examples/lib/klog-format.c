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
#include <unistd.h>

#include "klog_format.h"	/* kernel/klog_format.h: the one walker */
#include "klog-format.h"

struct klog_ksym {
	unsigned long long	addr;
	unsigned int		order;	/* line number: first alias wins */
	int			mod;	/* index in mods, -1 for vmlinux */
	char			*name;
};

struct klog_ksyms {
	struct klog_ksym	*syms;
	size_t			n;
	char			**mods;
	size_t			nmods;
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
	free(ks);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct klog_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int ksyms_mod(struct klog_ksyms *ks, const char *name)
{
	char **m;
	size_t i;

	for (i = 0; i < ks->nmods; i++)
		if (!strcmp(ks->mods[i], name))
			return i;
	m = realloc(ks->mods, (ks->nmods + 1) * sizeof(*m));
	if (!m)
		return -1;
	ks->mods = m;
	m[ks->nmods] = strdup(name);
	if (!m[ks->nmods])
		return -1;
	return ks->nmods++;
}

int klog_ksyms_load(const char *path, struct klog_ksyms **out)
{
	struct klog_ksyms *ks;
	size_t cap = 0, nonzero = 0;
	char line[1024];
	FILE *f;
	int fd, ret = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[600], mod[600] = "";
		unsigned long long addr;
		char type;
		int n = sscanf(line, "%llx %c %599s [%599[^]]]", &addr, &type,
			       name, mod);

		if (n < 3)
			continue;
		if (ks->n == cap) {
			struct klog_ksym *s;

			cap = cap ? cap * 2 : 4096;
			s = realloc(ks->syms, cap * sizeof(*s));
			if (!s) {
				ret = -ENOMEM;
				break;
			}
			ks->syms = s;
		}
		ks->syms[ks->n].addr = addr;
		ks->syms[ks->n].order = ks->n;
		ks->syms[ks->n].mod = n == 4 ? ksyms_mod(ks, mod) : -1;
		ks->syms[ks->n].name = strdup(name);
		if (!ks->syms[ks->n].name || (n == 4 && ks->syms[ks->n].mod < 0)) {
			free(ks->syms[ks->n].name);
			ret = -ENOMEM;
			break;
		}
		nonzero += addr != 0;
		ks->n++;
	}
	fclose(f);
	if (!ret && !ks->n)
		ret = -EINVAL;
	if (!ret && !nonzero)
		ret = -EPERM;
	if (ret) {
		klog_ksyms_free(ks);
		return ret;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
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
	/* Its size: up to the next higher address of the same image. */
	*size = 0;
	for (i = lo; i < ks->n; i++) {
		if (ks->syms[i].mod == s->mod && ks->syms[i].addr > s->addr) {
			*size = ks->syms[i].addr - s->addr;
			break;
		}
	}
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

int klog_args_text(char *buf, size_t size, const char *fmt, const void *blk,
		   size_t len, const struct klog_ksyms *ks)
{
	return klog_fmt_format(buf, size, fmt, blk, len, ks ? ksyms_sprint : NULL,
			       (void *)ks);
}
