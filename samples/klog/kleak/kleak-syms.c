// SPDX-License-Identifier: GPL-2.0
/*
 * kleak-syms.c - kernel symbols and the info file of a kleak capture
 *
 * DIR/kallsyms keeps the text symbols of /proc/kallsyms, read at the
 * start and at the end of a collection, so that a report can name the
 * callers of a module unloaded meanwhile. DIR/kleak.info keeps the
 * counters the collector knew at the end (see kleak.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../tools/lib/klog/klog-stream.h"
#include "kleak-app.h"

/* ---- Symbols --------------------------------------------------------- */

/* Text symbols (t, T, w, W) are the ones a call site can be in. */
static bool text_type(const char *type)
{
	return type[0] && !type[1] && strchr("tTwW", type[0]);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Load "ADDR TYPE NAME [MODULE]" lines (the /proc/kallsyms format; our
 * saved DIR/kallsyms holds its text symbols, twice). 0 or -1.
 */
int symtab_load(struct symtab *t, const char *path, bool missing_ok)
{
	size_t len, cap = 0, lines = 0, i, n;
	char *line, *next;

	memset(t, 0, sizeof(*t));
	snprintf(t->source, sizeof(t->source), "%s", path);
	t->text = ra_read_file(path, SYMS_MAX, &len, missing_ok);
	if (!t->text)
		return -1;
	for (line = t->text; *line; line = next) {
		char *f[4] = { NULL }, *save = NULL;
		int nf = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		for (f[0] = strtok_r(line, " \t", &save); f[nf] && nf < 3;)
			f[++nf] = strtok_r(NULL, " \t", &save);
		if (nf < 3 || !text_type(f[1]))
			continue;
		lines++;
		if (t->n == cap) {
			struct sym *v;

			cap = cap ? 2 * cap : 65536;
			v = realloc(t->v, cap * sizeof(*v));
			if (!v) {
				ra_err("%s: out of memory", path);
				return -1;
			}
			t->v = v;
		}
		t->v[t->n].addr = strtoull(f[0], NULL, 16);
		if (!t->v[t->n].addr)
			continue;
		t->v[t->n].name = f[2];
		t->v[t->n].mod = "";
		if (f[3] && f[3][0] == '[') {
			f[3][strcspn(f[3], "]")] = '\0';
			t->v[t->n].mod = f[3] + 1;
		}
		t->n++;
	}
	t->hidden = lines && !t->n;
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	/* the same symbol from both snapshots once */
	for (i = n = 0; i < t->n; i++)
		if (!n || cmp_sym(&t->v[n - 1], &t->v[i]))
			t->v[n++] = t->v[i];
	t->n = n;
	return 0;
}

void symtab_free(struct symtab *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* "name+0xoff/0xsize [module]" as %pS prints it, or the bare address. */
const char *symbolize(const struct symtab *t, __u64 addr, char *buf,
		      size_t size)
{
	char name[4 * SYM_NAME_MAX + 1], mod[4 * SYM_NAME_MAX + 1];
	size_t lo = 0, hi = t->n, i;
	const struct sym *s;
	__u64 end = 0;

	while (lo < hi) {		/* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - t->v[lo - 1].addr >= SYM_MAX_OFFSET) {
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	s = &t->v[lo - 1];
	for (i = lo; i < t->n && !end; i++)
		if (t->v[i].addr > s->addr)
			end = t->v[i].addr;
	/* names from a file: escaped for the terminal */
	ra_escape(name, sizeof(name), s->name, strnlen(s->name, SYM_NAME_MAX));
	ra_escape(mod, sizeof(mod), s->mod, strnlen(s->mod, SYM_NAME_MAX));
	if (end)
		snprintf(buf, size, "%s+0x%llx/0x%llx%s%s%s", name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)(end - s->addr),
			 *mod ? " [" : "", mod, *mod ? "]" : "");
	else
		snprintf(buf, size, "%s+0x%llx%s%s%s", name,
			 (unsigned long long)(addr - s->addr),
			 *mod ? " [" : "", mod, *mod ? "]" : "");
	return buf;
}

/* Append the text symbols of /proc/kallsyms to @path. 0 or -1. */
int save_kallsyms(const char *path, bool append, bool quiet)
{
	FILE *in = fopen(KALLSYMS, "re"), *out = NULL;
	char *line = NULL;
	size_t cap = 0, n = 0, zero = 0;
	int err = 0, fd;

	if (!in) {
		ra_err("%s: open: %s", KALLSYMS, strerror(errno));
		return -1;
	}
	/* real kernel addresses: 0600, never through a planted link */
	fd = ra_out_open(path, O_WRONLY | O_CREAT |
			 (append ? O_APPEND : O_TRUNC));
	if (fd >= 0)
		out = fdopen(fd, append ? "a" : "w");
	if (!out) {
		if (fd >= 0) {
			ra_err("%s: %s", path, strerror(errno));
			close(fd);
		}
		fclose(in);
		return -1;
	}
	while (getline(&line, &cap, in) > 0) {
		char type[4];
		unsigned long long addr;

		if (sscanf(line, "%llx %3s", &addr, type) != 2 ||
		    !text_type(type))
			continue;
		n++;
		zero += !addr;
		if (fputs(line, out) == EOF)
			break;
	}
	if (ferror(in)) {
		ra_err("%s: read: %s", KALLSYMS, strerror(errno));
		err = -1;
	}
	if (ferror(out) | fclose(out)) {
		ra_err("%s: write: %s", path, strerror(errno));
		err = -1;
	}
	fclose(in);
	free(line);
	if (!err && n && zero == n && !quiet && !append) {
		char kr[16] = "?";

		ra_ctl_read("/proc/sys/kernel", "kptr_restrict", kr, sizeof(kr));
		ra_err("%s shows no addresses (kernel.kptr_restrict=%s, or not root): callers will be shown as raw addresses",
		       KALLSYMS, kr);
	}
	return err;
}

/* ---- The info file --------------------------------------------------- */

int info_write(const char *dir, const struct info *in, size_t subbuf,
	       size_t nsubbuf)
{
	char path[PATH_MAX];
	FILE *f = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, INFO_FILE);
	fd = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd >= 0)
		f = fdopen(fd, "w");
	if (!f) {
		if (fd >= 0) {
			ra_err("%s: %s", path, strerror(errno));
			close(fd);
		}
		return -1;
	}
	fprintf(f, "kleak_version %d\ncpus %d\nduration_s %.3f\nfilter %s\n",
		KLEAK_VERSION, in->cpus, in->duration, in->filter);
	if (in->has_seq)
		fprintf(f, "seq %llu\n", (unsigned long long)in->seq);
	fprintf(f, "recursion %llu\nklog_dropped %llu\nsubbuf_size %zu\nn_subbufs %zu\n",
		(unsigned long long)in->recursion,
		(unsigned long long)in->klog_dropped, subbuf, nsubbuf);
	if (ferror(f) | fclose(f)) {
		ra_err("%s: write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A whole decimal number from a kleak.info value; false if it is not one. */
static bool info_u64(const char *val, unsigned long long *out)
{
	char *end;

	if (*val < '0' || *val > '9')
		return false;
	errno = 0;
	*out = strtoull(val, &end, 10);
	return !errno && !*end;
}

/*
 * Read DIR/kleak.info if there is one; a missing file is not an error.
 * Read with ra_read_file()'s checks: a FIFO or a link to /dev/zero
 * there is an error, never a hang. Every line must be one kleak wrote
 * (info_write()), a known key and its value, once: a damaged file is an
 * error naming its line, never a silently wrong loss count. The filter
 * is kept as it is and escaped where it is printed.
 */
int info_read(const char *dir, struct info *in)
{
	static const char *const keys[] = {
		"kleak_version", "cpus", "duration_s", "filter", "seq",
		"recursion", "klog_dropped", "subbuf_size", "n_subbufs",
	};
	char path[PATH_MAX], *text, *line, *next, *end;
	unsigned long long v = 0, seen = 0;
	unsigned int lineno = 0, k;
	const char *why = NULL;
	size_t len;

	memset(in, 0, sizeof(*in));
	snprintf(in->filter, sizeof(in->filter), "unknown");
	snprintf(path, sizeof(path), "%s/%s", dir, INFO_FILE);
	text = ra_read_file(path, INFO_MAX, &len, true);
	if (!text)
		return errno == ENOENT ? 0 : -1;
	in->valid = true;
	for (line = text; line < text + len && !why; line = next) {
		char *val;

		lineno++;
		next = memchr(line, '\n', text + len - line);
		next = next ? next + 1 : text + len;
		next[-1] = next[-1] == '\n' ? '\0' : next[-1];
		val = memchr(line, ' ', next - line);
		if (!val) {
			why = "not KEY VALUE";
			break;
		}
		*val++ = '\0';
		for (k = 0; k < ARRAY_SIZE(keys) && strcmp(line, keys[k]); k++)
			;
		if (k == ARRAY_SIZE(keys))
			why = "unknown key";
		else if (seen & 1ULL << k)
			why = "key given twice";
		else if (!strcmp(line, "filter"))
			snprintf(in->filter, sizeof(in->filter), "%s", val);
		else if (!strcmp(line, "duration_s"))
			why = (in->duration = strtod(val, &end), *end || end == val ||
			       in->duration < 0) ? "bad duration" : NULL;
		else if (!info_u64(val, &v))
			why = "not a decimal number";
		seen |= 1ULL << k;
		if (why || k == ARRAY_SIZE(keys))
			break;
		if (!strcmp(line, "seq")) {
			in->seq = v;
			in->has_seq = true;
		} else if (!strcmp(line, "klog_dropped")) {
			in->klog_dropped = v;
		} else if (!strcmp(line, "recursion")) {
			in->recursion = v;
		} else if (!strcmp(line, "cpus")) {
			in->cpus = v > INT_MAX ? -1 : (int)v;
		}
	}
	free(text);
	if (why) {
		ra_err("%s:%u: %s", path, lineno, why);
		return -1;
	}
	return 0;
}
