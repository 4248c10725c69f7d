// SPDX-License-Identifier: GPL-2.0
/*
 * kleak.c - find kernel memory leaks by caller: the kleak collector
 *
 * DOC: overview
 *
 * Collection (the user half of the relay-apps kleak pair): kleak-mod
 * writes one struct kleak_record (kleak.h) per slab allocation and free
 * with klog_raw(), so the records travel in the klog relay channel.
 * relay_app sets the channel up in /sys/kernel/debug/klog (per-CPU
 * buffers, no-overwrite: a full buffer refuses records and counts them)
 * and runs one pinned reader per CPU, which writes its stream unchanged
 * to DIR/cpuN and decodes it as it comes (klog-stream) to check it.
 * kleak sets kleak-mod's filter first and enables it once the readers
 * run; at the end (SIGINT, SIGTERM, -t) it disables kleak-mod first -
 * that returns when no probe runs any more - and reads how many events
 * it numbered, then relay_app stops klog, flushes and drains every CPU.
 * DIR/kleak.info keeps the counters, DIR/kallsyms the kernel's text
 * symbols (read at the start and at the end, so that a module unloaded
 * meanwhile can still be named). Then the report is printed.
 *
 * Report (also `kleak -r DIR` later): the kleak records of all DIR/cpuN
 * files are merged by sequence number - each CPU's records are in order,
 * and the number is taken after an allocation returned and before a free
 * released the object - and replayed: an allocation enters a table of
 * live objects by address, a free takes its object out. What is left at
 * the end is outstanding: the leak candidates, grouped by the caller of
 * the allocator, largest first. Frees of objects not in the table
 * (allocated before the capture, or filtered out) are only counted. Other
 * klog records in the stream are skipped. The files are mmap()ed and
 * only live objects and callers are kept, so a report's memory follows
 * the number of objects live at a time, not the length of the capture.
 *
 * Loss: every event kleak-mod numbered is either in the files or missing
 * from the sequence (a gap, or fewer records than kleak.info's seq), so
 * the report knows exactly how many records were lost, and says so first:
 * with loss, a lost free makes an object look leaked and a lost
 * allocation hides one.
 *
 * Two quirks of 6.12 are handled: a kmalloc() above the largest kmalloc
 * cache fires its tracepoint twice (once in the slab code, once with the
 * real caller: the pair is merged), and kfree_bulk() (kfree_rcu()'s
 * batches) has no tracepoint (an address allocated again without a free
 * retires the old object, counted as "reused").
 *
 * Exit status: 0 success (lost records are reported, not failures), 1
 * runtime error (control file, I/O, corrupt or inconsistent stream, no
 * kleak records), 2 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/relay_app.h"
#include "../klog/klog-stream.h"
#include "kleak.h"

#define DEBUGFS			"/sys/kernel/debug"
#define KALLSYMS		"/proc/kallsyms"
#define KLEAK_SUBBUF_SIZE	1048576
#define KLEAK_N_SUBBUFS		8
#define KLEAK_TOP		20
#define KLEAK_TICK_MS		200
#define INFO_FILE		"kleak.info"
#define SYMS_FILE		"kallsyms"
#define SYM_MAX_OFFSET		(1024ULL * 1024)	/* farther: not that symbol */
#define STR_(x)			#x
#define STR(x)			STR_(x)

struct opts {
	size_t		subbuf_size;
	size_t		n_subbufs;
	enum ra_mode	mode;
	const char	*out;
	const char	*report;
	const char	*debugfs;
	const char	*filter;
	double		duration;
	char *const	*cmd;		/* COMMAND [ARGS...] to record, or NULL */
	long		top;
	bool		quiet;
	bool		replace;	/* destroy a klog channel that exists */
};

/* ---- Options --------------------------------------------------------- */

static void print_help(FILE *f)
{
	static const char help[] =
		"Usage: kleak [-F FILTER] [-o DIR] [-t SECONDS] [-b BYTES] [-n N] [-m read|mmap] [-N TOP] [-x] [-q]\n"
		"             [[--] COMMAND [ARGS...]]\n"
		"       kleak -r DIR [-N TOP]\n"
		"\n"
		"Find kernel memory leaks by caller. Records every kmalloc(), kmem_cache_alloc(),\n"
		"kfree() and kmem_cache_free() until Ctrl-C (or -t) through kleak-mod and the\n"
		"klog relay channel (klog-mod), saves the raw per-CPU streams in DIR, then\n"
		"reports totals, allocations and frees per caller, and the allocations still\n"
		"outstanding at the end - the leak candidates - grouped by caller, largest\n"
		"first. Needs root, klog-mod and kleak-mod loaded; it uses the klog channel\n"
		"(only one of klog and kleak can run at a time). Callers are named from /proc/kallsyms,\n"
		"which shows addresses to root only while kernel.kptr_restrict < 2.\n"
		"\n"
		"Once it is recording, kleak prints \"kleak: recording ...\" on stderr (also with\n"
		"-q): allocations after that line are recorded. Given a COMMAND, kleak runs it\n"
		"at that point and stops when it exits (or at -t, Ctrl-C or SIGTERM, which it\n"
		"passes on to the COMMAND); the exit status is then the COMMAND's.\n"
		"\n"
		"  -F, --filter FILTER      record only allocations matching FILTER: \"module=NAME\"\n"
		"                           (the caller is in module NAME) and/or \"size=MIN-MAX\"\n"
		"                           (bytes requested); frees are always recorded.\n"
		"                           Default: no filter (all allocations)\n"
		"  -o, --output DIR         write DIR/cpuN, DIR/kleak.info, DIR/kallsyms (default .)\n"
		"  -t, --duration SECONDS   stop after SECONDS (default: at Ctrl-C or SIGTERM)\n"
		"  -b, --subbuf-size BYTES  klog sub-buffer size (k, M suffixes; default "
		STR(KLEAK_SUBBUF_SIZE) ")\n"
		"  -n, --n-subbufs N        klog sub-buffers per CPU (default "
		STR(KLEAK_N_SUBBUFS) ")\n"
		"  -m, --mode read|mmap     read(2) the buffers (default) or mmap(2) them\n"
		"  -r, --report DIR         report on a capture saved in DIR\n"
		"  -N, --top N              rows per table (default " STR(KLEAK_TOP) "; 0: all)\n"
		"  -x, --replace            destroy a klog channel that exists (a flight\n"
		"                           recorder, or one a killed collector left) once the\n"
		"                           new settings are accepted; without -x kleak refuses\n"
		"  -d, --debugfs DIR        where debugfs is mounted (default " DEBUGFS ")\n"
		"  -q, --quiet              no messages but the recording line; problems are\n"
		"                           still reported\n"
		"  -h, --help               this text\n"
		"\n"
		"Example: which allocations of a module are not freed while it runs? With\n"
		"kleak-test-mod, which keeps (leaks) 37 kmalloc()s of 200 bytes here:\n"
		"  kleak -F module=kleak_test_mod -o /tmp/kl -- \\\n"
		"        sh -c 'echo leak=37 size=200 balanced=50 > /sys/kernel/debug/kleak_test/run'\n"
		"  kleak -r /tmp/kl -N 0 | less          # again later, all rows\n"
		"\n"
		"Records lost (klog buffers full) are reported first: a lost free makes an\n"
		"object look leaked, so enlarge the buffers (-b, -n) and record again.\n"
		"\n"
		"Exit status: 0 success, also with lost records (the report says how many);\n"
		"1 runtime error (control file, I/O, corrupt stream, no kleak records);\n"
		"2 usage error. With a COMMAND: the COMMAND's exit status (128+N if signal N\n"
		"killed it, 127 if it was not found) unless kleak itself failed.\n";

	fputs(help, f);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "filter",		required_argument, NULL, 'F' },
		{ "output",		required_argument, NULL, 'o' },
		{ "duration",		required_argument, NULL, 't' },
		{ "subbuf-size",	required_argument, NULL, 'b' },
		{ "n-subbufs",		required_argument, NULL, 'n' },
		{ "mode",		required_argument, NULL, 'm' },
		{ "report",		required_argument, NULL, 'r' },
		{ "top",		required_argument, NULL, 'N' },
		{ "debugfs",		required_argument, NULL, 'd' },
		{ "replace",		no_argument,	   NULL, 'x' },
		{ "quiet",		no_argument,	   NULL, 'q' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char collect_opt = 0;
	int c;

	*o = (struct opts) {
		.subbuf_size	= KLEAK_SUBBUF_SIZE,
		.n_subbufs	= KLEAK_N_SUBBUFS,
		.mode		= RA_MODE_READ,
		.out		= ".",
		.debugfs	= DEBUGFS,
		.top		= KLEAK_TOP,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:F:o:t:b:n:m:r:N:d:qhx", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			o->filter = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 't':
			o->duration = parse_seconds("-t/--duration", optarg);
			break;
		case 'b':
			o->subbuf_size = parse_count("-b/--subbuf-size", optarg,
						     "kKmM", 1, LONG_MAX,
						     "a positive size in bytes, e.g. 1048576 or 1M");
			break;
		case 'n':
			o->n_subbufs = parse_count("-n/--n-subbufs", optarg,
						   NULL, 1, LONG_MAX,
						   "a positive integer");
			break;
		case 'm':
			o->mode = parse_mode(optarg, RA_MODE_READ);
			break;
		case 'r':
			o->report = optarg;
			break;
		case 'N':
			o->top = parse_count("-N/--top", optarg, NULL, 0, LONG_MAX,
					     "a number >= 0");
			break;
		case 'd':
			o->debugfs = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'x':
			o->replace = true;
			break;
		case 'h':
			print_help(stdout);
			exit(0);
		default:	/* ':' or '?' */
			usage_bad_option(c, argv);
		}
		if (strchr("Fotbnmdx", c) && !collect_opt)
			collect_opt = c;
	}
	o->cmd = ra_command_arg(argc, argv);
	if (o->cmd && o->report)
		usage_error("unexpected argument '%s' (only a recording runs a COMMAND)",
			    o->cmd[0]);
	if (o->report && collect_opt)
		usage_error("-r/--report reads a saved capture; it cannot be combined with -%c",
			    collect_opt);
}

/* ---- Hash tables ----------------------------------------------------- */

/*
 * Open addressing with linear probing, a power-of-two number of slots,
 * at most half full; key 0 marks an empty slot. Removal shifts the
 * following entries back, so there are no tombstones.
 */
static size_t hash_slot(__u64 key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (cap - 1);
}

/* A live object: allocated and not freed (yet). */
struct live {
	__u64	ptr;		/* key; 0: empty slot */
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	seq;		/* its kleak record's sequence number */
	__u32	caller;		/* index into report.callers */
	__u8	type;
};

struct live_map {
	struct live	*v;
	size_t		cap, n;
};

static struct live *live_find(struct live_map *m, __u64 ptr)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash_slot(ptr, m->cap); m->v[i].ptr; i = (i + 1) & (m->cap - 1))
		if (m->v[i].ptr == ptr)
			return &m->v[i];
	return NULL;
}

static void live_put(struct live *v, size_t cap, const struct live *l)
{
	size_t i = hash_slot(l->ptr, cap);

	while (v[i].ptr)
		i = (i + 1) & (cap - 1);
	v[i] = *l;
}

/* Insert @l (its address is not in @m). 0, or -1 if out of memory. */
static int live_insert(struct live_map *m, const struct live *l)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4096, i;
		struct live *v = calloc(cap, sizeof(*v));

		if (!v)
			return -1;
		for (i = 0; i < m->cap; i++)
			if (m->v[i].ptr)
				live_put(v, cap, &m->v[i]);
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	live_put(m->v, m->cap, l);
	m->n++;
	return 0;
}

static void live_remove(struct live_map *m, struct live *l)
{
	size_t i = l - m->v, j = i, home;

	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->v[j].ptr)
			break;
		home = hash_slot(m->v[j].ptr, m->cap);
		/* move v[j] into the hole at i unless its home is in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			m->v[i] = m->v[j];
			i = j;
		}
	}
	m->v[i].ptr = 0;
	m->n--;
}

/* Everything known about one call site, as allocator and as freer. */
struct caller {
	__u64	addr;
	__u64	allocs;		/* allocations, failed ones included */
	__u64	failed;
	__u64	freed;		/* of its allocations, freed in the capture */
	__u64	reused;		/* ... retired by a new allocation */
	__u64	bytes_req, bytes_alloc;
	__u64	frees;		/* frees called from here */
	__u64	out, out_req, out_alloc, out_min, out_max;
};

struct caller_map {
	struct caller	*v;		/* the callers, in order of appearance */
	size_t		n, vcap;
	__u64		*keys;		/* slot -> address, 0: empty */
	__u32		*idx;		/* slot -> index into v */
	size_t		cap;
};

/* The index of the caller at @addr, added if new; -1 if out of memory. */
static long caller_get(struct caller_map *m, __u64 addr)
{
	size_t i;

	if (!addr)
		addr = 1;	/* 0 marks an empty slot; 1 is never code */
	if (m->cap) {
		for (i = hash_slot(addr, m->cap); m->keys[i];
		     i = (i + 1) & (m->cap - 1))
			if (m->keys[i] == addr)
				return m->idx[i];
	}
	if (m->n == m->vcap) {
		size_t vcap = m->vcap ? 2 * m->vcap : 1024;
		struct caller *v = realloc(m->v, vcap * sizeof(*v));

		if (!v)
			return -1;
		m->v = v;
		m->vcap = vcap;
	}
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 2048, k;
		__u64 *keys = calloc(cap, sizeof(*keys));
		__u32 *idx = calloc(cap, sizeof(*idx));

		if (!keys || !idx) {
			free(keys);
			free(idx);
			return -1;
		}
		for (k = 0; k < m->n; k++) {
			i = hash_slot(m->v[k].addr, cap);
			while (keys[i])
				i = (i + 1) & (cap - 1);
			keys[i] = m->v[k].addr;
			idx[i] = k;
		}
		free(m->keys);
		free(m->idx);
		m->keys = keys;
		m->idx = idx;
		m->cap = cap;
	}
	i = hash_slot(addr, m->cap);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = addr;
	m->idx[i] = m->n;
	memset(&m->v[m->n], 0, sizeof(m->v[m->n]));
	m->v[m->n].addr = addr;
	m->v[m->n].out_min = UINT64_MAX;
	return m->n++;
}

/* ---- Symbols --------------------------------------------------------- */

struct sym {
	__u64		addr;
	const char	*name;
	const char	*mod;		/* "" for the kernel itself */
};

struct symtab {
	struct sym	*v;
	size_t		n;
	char		*text;		/* the file; names point into it */
	bool		hidden;		/* lines, but every address was 0 */
	char		source[PATH_MAX];
};

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

/* Read a whole file into a NUL-terminated buffer. */
static char *read_text(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			ra_err("%s: out of memory", path);
		else
			ra_err("%s: open: %s", path, strerror(errno));
		goto fail;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				ra_err("%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ra_err("%s: read: %s", path, strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/*
 * Load "ADDR TYPE NAME [MODULE]" lines (the /proc/kallsyms format; our
 * saved DIR/kallsyms holds its text symbols, twice). 0 or -1.
 */
static int symtab_load(struct symtab *t, const char *path)
{
	size_t len, cap = 0, lines = 0, i, n;
	char *line, *next;

	memset(t, 0, sizeof(*t));
	snprintf(t->source, sizeof(t->source), "%s", path);
	t->text = read_text(path, &len);
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

static void symtab_free(struct symtab *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* "name+0xoff/0xsize [module]" as %pS prints it, or the bare address. */
static const char *symbolize(const struct symtab *t, __u64 addr, char *buf,
			     size_t size)
{
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
	if (end)
		snprintf(buf, size, "%s+0x%llx/0x%llx%s%s%s", s->name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)(end - s->addr),
			 *s->mod ? " [" : "", s->mod, *s->mod ? "]" : "");
	else
		snprintf(buf, size, "%s+0x%llx%s%s%s", s->name,
			 (unsigned long long)(addr - s->addr),
			 *s->mod ? " [" : "", s->mod, *s->mod ? "]" : "");
	return buf;
}

/* Append the text symbols of /proc/kallsyms to @path. 0 or -1. */
static int save_kallsyms(const char *path, bool append, bool quiet)
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

/* What the collector knew at the end, for reports (DIR/kleak.info). */
struct info {
	bool		valid;		/* the file was read */
	bool		has_seq;
	__u64		seq;		/* events kleak-mod numbered */
	__u64		klog_dropped;	/* klog-mod: records dropped, all */
	__u64		recursion;	/* kleak-mod: events not written */
	double		duration;
	int		cpus;
	char		filter[256];
};

static int info_write(const char *dir, const struct info *in, size_t subbuf,
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

/* Read DIR/kleak.info if there is one; a missing file is not an error. */
static int info_read(const char *dir, struct info *in)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(in, 0, sizeof(*in));
	snprintf(in->filter, sizeof(in->filter), "unknown");
	snprintf(path, sizeof(path), "%s/%s", dir, INFO_FILE);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ra_err("%s: open: %s", path, strerror(errno));
		return -1;
	}
	in->valid = true;
	while (getline(&line, &cap, f) > 0) {
		char *val = strchr(line, ' ');

		if (!val)
			continue;
		*val++ = '\0';
		val[strcspn(val, "\n")] = '\0';
		if (!strcmp(line, "seq")) {
			in->seq = strtoull(val, NULL, 10);
			in->has_seq = true;
		} else if (!strcmp(line, "klog_dropped")) {
			in->klog_dropped = strtoull(val, NULL, 10);
		} else if (!strcmp(line, "recursion")) {
			in->recursion = strtoull(val, NULL, 10);
		} else if (!strcmp(line, "duration_s")) {
			in->duration = strtod(val, NULL);
		} else if (!strcmp(line, "cpus")) {
			in->cpus = atoi(val);
		} else if (!strcmp(line, "filter")) {
			snprintf(in->filter, sizeof(in->filter), "%s", val);
		}
	}
	fclose(f);
	free(line);
	return 0;
}

/* ---- Report ---------------------------------------------------------- */

/* One DIR/cpuN file, positioned at its next kleak record. */
struct src {
	struct ks_stream	ks;
	const unsigned char	*data;
	size_t			len;
	struct kleak_record	rec;
	struct klog_rec_hdr	hdr;
	bool			have_prev;
	__u64			prev_seq;
	/* the last allocation replayed from this CPU, if it may be merged */
	bool			have_last;
	struct kleak_record	last;
	__u32			last_caller;
};

struct totals {
	__u64	records;		/* kleak records */
	__u64	other;			/* other klog records, skipped */
	__u64	klog_lost;		/* loss markers in the streams */
	__u64	lost;			/* kleak sequence numbers missing */
	__u64	dup;			/* numbers seen twice */
	__u64	unordered;		/* records before a lower number */
	__u64	bad_type;
	__u64	events[KLEAK_NR_TYPES];
	__u64	failed;
	__u64	bytes_req, bytes_alloc;
	__u64	merged;			/* large kmalloc()s traced twice */
	__u64	reused;			/* allocated again without a free */
	__u64	matched;		/* frees of objects seen allocated */
	__u64	unknown;		/* frees of objects not seen */
	__u64	out, out_req, out_alloc;
	__u64	first_ts, last_ts;
};

struct report {
	const struct opts	*o;
	const char		*dir;
	struct src		*src;
	int			nsrc;
	struct live_map		live;
	struct caller_map	callers;
	struct symtab		syms;
	struct info		info;
	struct totals		t;
	__u64			next_seq;
};

/*
 * Move @s to its next kleak record: 1, 0 at the end of the file, -1
 * (reported) on a corrupt stream or a record of another version.
 */
static int src_advance(struct report *r, struct src *s)
{
	struct ks_event ev;
	int ret;

	while ((ret = ks_next(&s->ks, s->data, s->len, &ev)) > 0) {
		if (ev.kind == KS_LOST)
			r->t.klog_lost += ev.count;
		if (ev.kind != KS_RECORD)
			continue;
		if (ev.rec.kind != KLOG_RELAY_RAW ||
		    ev.rec.len != sizeof(struct kleak_record)) {
			r->t.other++;
			continue;
		}
		memcpy(&s->rec, ev.payload, sizeof(s->rec));
		if (s->rec.magic != KLEAK_MAGIC) {
			r->t.other++;
			continue;
		}
		if (s->rec.version != KLEAK_VERSION) {
			ra_err("%s: kleak record version %u; this kleak reads version %d",
			       s->ks.name, s->rec.version, KLEAK_VERSION);
			return -1;
		}
		s->hdr = ev.rec;
		if (s->have_prev && s->rec.seq <= s->prev_seq)
			r->t.unordered++;
		s->have_prev = true;
		s->prev_seq = s->rec.seq;
		return 1;
	}
	if (ret < 0)
		ra_err("%s", s->ks.error);
	return ret;
}

static int oom(void)
{
	ra_err("out of memory");
	return -1;
}

/*
 * A large kmalloc() traced twice: first in __kmalloc_large_node_noprof(),
 * then with the real caller, one after the other on one CPU (frees from
 * interrupts may come between). @k is the second if the previous
 * allocation replayed from this CPU was the first: the same kmalloc
 * address (or both failed) and sizes, and not freed since.
 */
static bool traced_twice(struct report *r, const struct src *s,
			 const struct kleak_record *k)
{
	const struct kleak_record *p = &s->last;
	const struct live *l;

	if (!s->have_last || p->type != KLEAK_KMALLOC ||
	    k->type != KLEAK_KMALLOC || p->ptr != k->ptr ||
	    p->bytes_req != k->bytes_req || p->bytes_alloc != k->bytes_alloc)
		return false;
	if (!k->ptr)
		return true;
	l = live_find(&r->live, k->ptr);
	return l && l->seq == p->seq;
}

/* Take back what replaying the allocation @p by caller @ci counted. */
static void unreplay_alloc(struct report *r, const struct kleak_record *p,
			   __u32 ci)
{
	struct caller *c = &r->callers.v[ci];
	struct totals *t = &r->t;

	c->allocs--;
	t->events[p->type]--;
	if (!p->ptr) {
		c->failed--;
		t->failed--;
		return;
	}
	c->bytes_req -= p->bytes_req;
	c->bytes_alloc -= p->bytes_alloc;
	t->bytes_req -= p->bytes_req;
	t->bytes_alloc -= p->bytes_alloc;
	live_remove(&r->live, live_find(&r->live, p->ptr));
}

static int replay_alloc(struct report *r, struct src *s,
			const struct kleak_record *k)
{
	struct totals *t = &r->t;
	struct live *l, nl;
	struct caller *c;
	long ci;

	if (traced_twice(r, s, k)) {
		unreplay_alloc(r, &s->last, s->last_caller);
		t->merged++;
		s->have_last = false;
	} else {
		s->have_last = true;
	}
	ci = caller_get(&r->callers, k->call_site);
	if (ci < 0)
		return oom();
	s->last = *k;
	s->last_caller = ci;
	c = &r->callers.v[ci];
	c->allocs++;
	if (!k->ptr) {
		c->failed++;
		t->failed++;
		return 0;
	}
	c->bytes_req += k->bytes_req;
	c->bytes_alloc += k->bytes_alloc;
	t->bytes_req += k->bytes_req;
	t->bytes_alloc += k->bytes_alloc;
	l = live_find(&r->live, k->ptr);
	if (l) {
		/* freed where no tracepoint saw it */
		r->callers.v[l->caller].reused++;
		t->reused++;
		live_remove(&r->live, l);
	}
	nl = (struct live) {
		.ptr		= k->ptr,
		.bytes_req	= k->bytes_req,
		.bytes_alloc	= k->bytes_alloc,
		.seq		= k->seq,
		.caller		= ci,
		.type		= k->type,
	};
	return live_insert(&r->live, &nl) ? oom() : 0;
}

static int replay_free(struct report *r, const struct kleak_record *k)
{
	long ci = caller_get(&r->callers, k->call_site);
	struct live *l;

	if (ci < 0)
		return oom();
	r->callers.v[ci].frees++;
	l = live_find(&r->live, k->ptr);
	if (!l) {
		r->t.unknown++;
		return 0;
	}
	r->callers.v[l->caller].freed++;
	r->t.matched++;
	live_remove(&r->live, l);
	return 0;
}

static int replay(struct report *r, struct src *s)
{
	const struct kleak_record *k = &s->rec;
	struct totals *t = &r->t;

	t->records++;
	if (k->seq > r->next_seq)
		t->lost += k->seq - r->next_seq;
	else if (k->seq < r->next_seq)
		t->dup++;
	if (k->seq >= r->next_seq)
		r->next_seq = k->seq + 1;
	if (!t->first_ts || s->hdr.ts_ns < t->first_ts)
		t->first_ts = s->hdr.ts_ns;
	if (s->hdr.ts_ns > t->last_ts)
		t->last_ts = s->hdr.ts_ns;
	if (k->type == 0 || k->type >= KLEAK_NR_TYPES) {
		t->bad_type++;
		return 0;
	}
	t->events[k->type]++;
	if (k->type == KLEAK_KMALLOC || k->type == KLEAK_CACHE_ALLOC)
		return replay_alloc(r, s, k);
	return replay_free(r, k);
}

/* Outstanding objects per caller, and in total. */
static void count_outstanding(struct report *r)
{
	size_t i;

	for (i = 0; i < r->live.cap; i++) {
		const struct live *l = &r->live.v[i];
		struct caller *c;

		if (!l->ptr)
			continue;
		c = &r->callers.v[l->caller];
		c->out++;
		c->out_req += l->bytes_req;
		c->out_alloc += l->bytes_alloc;
		if (l->bytes_req < c->out_min)
			c->out_min = l->bytes_req;
		if (l->bytes_req > c->out_max)
			c->out_max = l->bytes_req;
		r->t.out++;
		r->t.out_req += l->bytes_req;
		r->t.out_alloc += l->bytes_alloc;
	}
}

/* qsort() has no context argument: the callers being sorted. */
static const struct caller *sort_callers;

static int cmp_u64_desc(__u64 a, __u64 b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int cmp_tie(const struct caller *x, const struct caller *y)
{
	return x->addr == y->addr ? 0 : x->addr < y->addr ? -1 : 1;
}

static int cmp_allocs(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->allocs, y->allocs) ?: cmp_tie(x, y);
}

static int cmp_frees(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->frees, y->frees) ?: cmp_tie(x, y);
}

static int cmp_out(const void *a, const void *b)
{
	const struct caller *x = &sort_callers[*(const __u32 *)a];
	const struct caller *y = &sort_callers[*(const __u32 *)b];

	return cmp_u64_desc(x->out_req, y->out_req) ?:
	       cmp_u64_desc(x->out, y->out) ?: cmp_tie(x, y);
}

/*
 * The callers for which @key is non-zero, sorted by @cmp, in a
 * malloc()ed array of indices (*n of them).
 */
static __u32 *select_callers(const struct report *r, size_t key_off,
			     int (*cmp)(const void *, const void *), size_t *n)
{
	__u32 *v = malloc((r->callers.n ? r->callers.n : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < r->callers.n; i++) {
		__u64 key;

		memcpy(&key, (const char *)&r->callers.v[i] + key_off,
		       sizeof(key));
		if (key)
			v[(*n)++] = i;
	}
	sort_callers = r->callers.v;
	qsort(v, *n, sizeof(*v), cmp);
	return v;
}

static size_t shown(const struct report *r, size_t n)
{
	return r->o->top && (size_t)r->o->top < n ? (size_t)r->o->top : n;
}

static void table_title(const struct report *r, const char *what, size_t n)
{
	if (shown(r, n) < n)
		printf("\n%s (top %zu of %zu)\n", what, shown(r, n), n);
	else
		printf("\n%s (%zu)\n", what, n);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* The loss banner: first and last thing a reader of a lossy report sees. */
static void print_loss(const struct report *r, __u64 lost)
{
	fprintf(stdout,
		"*** %llu kleak records LOST (of %llu): the outstanding list may be wrong - a lost free shows as a leak, a lost allocation hides one. Record again with larger buffers (-b, -n). ***\n",
		(unsigned long long)lost,
		(unsigned long long)(r->t.records + lost));
}

static int print_report(struct report *r)
{
	const struct totals *t = &r->t;
	__u64 allocs = t->events[KLEAK_KMALLOC] + t->events[KLEAK_CACHE_ALLOC];
	__u64 frees = t->events[KLEAK_KFREE] + t->events[KLEAK_CACHE_FREE];
	__u64 lost = t->lost, tail = 0;
	double secs = r->info.duration;
	char sym[512];
	__u32 *v;
	size_t n, i;

	if (r->info.has_seq && r->info.seq > r->next_seq)
		tail = r->info.seq - r->next_seq;
	lost += tail;
	if (!secs && t->last_ts > t->first_ts)
		secs = (t->last_ts - t->first_ts) / 1e9;

	if (lost)
		print_loss(r, lost);
	printf("kleak report of %s: %d CPUs, %.1f s, filter: %s\n", r->dir,
	       r->nsrc, secs, r->info.filter);
	printf("records      %llu kleak records, %llu lost",
	       (unsigned long long)t->records, (unsigned long long)lost);
	if (!r->info.has_seq)
		printf(" (no %s: records lost after the last one cannot be seen)",
		       INFO_FILE);
	printf("; klog dropped %llu records in all; %llu other klog records skipped\n",
	       (unsigned long long)r->info.klog_dropped,
	       (unsigned long long)t->other);
	printf("allocations  %llu (kmalloc %llu, kmem_cache_alloc %llu), %llu failed\n",
	       (unsigned long long)allocs,
	       (unsigned long long)t->events[KLEAK_KMALLOC],
	       (unsigned long long)t->events[KLEAK_CACHE_ALLOC],
	       (unsigned long long)t->failed);
	fprintf(stdout,
		"frees        %llu (kfree %llu, kmem_cache_free %llu); %llu of them freed objects allocated before the capture or filtered out\n",
		(unsigned long long)frees,
		(unsigned long long)t->events[KLEAK_KFREE],
		(unsigned long long)t->events[KLEAK_CACHE_FREE],
		(unsigned long long)t->unknown);
	printf("bytes        %llu requested, %llu allocated, %llu slack (%.1f%%)\n",
	       (unsigned long long)t->bytes_req,
	       (unsigned long long)t->bytes_alloc,
	       (unsigned long long)(t->bytes_alloc - t->bytes_req),
	       pct(t->bytes_alloc - t->bytes_req, t->bytes_alloc));
	printf("outstanding  %llu objects, %llu bytes requested, %llu allocated\n",
	       (unsigned long long)t->out, (unsigned long long)t->out_req,
	       (unsigned long long)t->out_alloc);
	if (t->merged)
		printf("note         %llu large kmalloc()s traced twice, counted once\n",
		       (unsigned long long)t->merged);
	if (t->reused)
		fprintf(stdout,
			"note         %llu addresses were allocated again with no free seen: freed by kfree_bulk(), kfree_rcu() or kmem_cache_free_bulk(), which have no tracepoint (not counted outstanding)\n",
			(unsigned long long)t->reused);
	if (r->syms.hidden || !r->syms.n)
		printf("note         %s has no symbol addresses: callers are raw addresses\n",
		       r->syms.source);

	v = select_callers(r, offsetof(struct caller, allocs), cmp_allocs, &n);
	if (!v)
		return oom();
	table_title(r, "Allocations by caller", n);
	printf("%10s %10s %10s %13s %13s %11s  %s\n", "allocs", "freed",
	       "outstanding", "bytes_req", "bytes_alloc", "slack", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];

		printf("%10llu %10llu %10llu %13llu %13llu %11llu  %s\n",
		       (unsigned long long)c->allocs,
		       (unsigned long long)c->freed,
		       (unsigned long long)c->out,
		       (unsigned long long)c->bytes_req,
		       (unsigned long long)c->bytes_alloc,
		       (unsigned long long)(c->bytes_alloc - c->bytes_req),
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);

	v = select_callers(r, offsetof(struct caller, frees), cmp_frees, &n);
	if (!v)
		return oom();
	table_title(r, "Frees by caller", n);
	printf("%10s  %s\n", "frees", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];

		printf("%10llu  %s\n", (unsigned long long)c->frees,
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);

	v = select_callers(r, offsetof(struct caller, out), cmp_out, &n);
	if (!v)
		return oom();
	table_title(r, "Outstanding allocations by caller, largest first", n);
	printf("%10s %13s %13s %13s  %s\n", "objects", "bytes_req",
	       "bytes_alloc", "size", "caller");
	for (i = 0; i < shown(r, n); i++) {
		const struct caller *c = &r->callers.v[v[i]];
		char size[48];

		if (c->out_min == c->out_max)
			snprintf(size, sizeof(size), "%llu",
				 (unsigned long long)c->out_min);
		else
			snprintf(size, sizeof(size), "%llu-%llu",
				 (unsigned long long)c->out_min,
				 (unsigned long long)c->out_max);
		printf("%10llu %13llu %13llu %13s  %s\n",
		       (unsigned long long)c->out,
		       (unsigned long long)c->out_req,
		       (unsigned long long)c->out_alloc, size,
		       symbolize(&r->syms, c->addr, sym, sizeof(sym)));
	}
	free(v);
	if (lost) {
		printf("\n");
		print_loss(r, lost);
	}
	if (fflush(stdout) || ferror(stdout)) {
		ra_err("stdout: write: %s", strerror(errno));
		return -1;
	}
	if (lost)
		ra_err("*** %llu kleak records lost: the leak list may be wrong ***",
		       (unsigned long long)lost);
	return 0;
}

/* Find the symbols: DIR/kallsyms if saved, else the running kernel's. */
static int load_symbols(struct report *r)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->dir, SYMS_FILE);
	if (access(path, R_OK))
		snprintf(path, sizeof(path), "%s", KALLSYMS);
	return symtab_load(&r->syms, path);
}

static int make_report(const struct opts *o, const char *dir)
{
	struct report r = { .o = o, .dir = dir };
	struct ks_merge merge = { 0 };
	int *cpus = NULL, i, s, err = 0;
	__u64 key;

	r.nsrc = ra_list_cpus(dir, &cpus);
	if (r.nsrc < 0)
		return 1;
	if (!r.nsrc) {
		ra_err("%s: no cpuN files (kleak -o DIR writes them)", dir);
		free(cpus);
		return 1;
	}
	if (info_read(dir, &r.info) || load_symbols(&r)) {
		err = 1;
		goto out;
	}
	r.src = calloc(r.nsrc, sizeof(*r.src));
	if (!r.src || ks_merge_init(&merge, r.nsrc)) {
		oom();
		err = 1;
		goto out;
	}
	for (i = 0; i < r.nsrc; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpus[i]);
		ks_init(&r.src[i].ks, cpus[i], path, 0);
		if (ra_map_file(path, &r.src[i].data, &r.src[i].len)) {
			err = 1;
			goto out;
		}
	}
	for (i = 0; i < r.nsrc; i++) {
		int ret = src_advance(&r, &r.src[i]);

		if (ret > 0)
			ks_merge_set(&merge, i, r.src[i].rec.seq);
		else if (ret < 0)
			err = 1;
	}
	/* the merge orders by its key: here the kleak sequence number */
	while (!err && (s = ks_merge_top(&merge, &key)) >= 0) {
		int ret;

		if (replay(&r, &r.src[s])) {
			err = 1;
			break;
		}
		ret = src_advance(&r, &r.src[s]);
		if (ret > 0)
			ks_merge_set(&merge, s, r.src[s].rec.seq);
		else
			ks_merge_remove(&merge, s);
		if (ret < 0)
			err = 1;
	}
	if (err) {
		ra_err("%s: the capture is damaged (see above): no report", dir);
		goto out;
	}
	if (!r.t.records) {
		ra_err("%s: no kleak records (%llu other klog records): was kleak-mod loaded and enabled?",
		       dir, (unsigned long long)r.t.other);
		err = 1;
		goto out;
	}
	count_outstanding(&r);
	if (print_report(&r))
		err = 1;
	if (r.t.dup || r.t.unordered || r.t.bad_type) {
		ra_err("%s: %llu records with a repeated sequence number, %llu out of order, %llu of unknown type: the capture is inconsistent",
		       dir, (unsigned long long)r.t.dup,
		       (unsigned long long)r.t.unordered,
		       (unsigned long long)r.t.bad_type);
		err = 1;
	}
out:
	for (i = 0; r.src && i < r.nsrc; i++) {
		if (r.src[i].len)
			munmap((void *)r.src[i].data, r.src[i].len);
		ks_release(&r.src[i].ks);
	}
	ks_merge_free(&merge);
	free(r.src);
	free(r.live.v);
	free(r.callers.v);
	free(r.callers.keys);
	free(r.callers.idx);
	symtab_free(&r.syms);
	free(cpus);
	return err;
}

/* ---- Collection ------------------------------------------------------ */

/* The collector's per-CPU state (ra_cpu.priv). */
struct kcpu {
	struct ks_stream ks;		/* checks the stream, reader only */
	int		out_fd;
	char		out_path[PATH_MAX];
};

struct collect {
	const struct opts *o;
	char		klog_dir[PATH_MAX];
	char		kleak_dir[PATH_MAX];
	struct relay_app *ra;
	struct kcpu	*k;
	bool		enabled;	/* kleak-mod enabled by us */
};

/* ks_feed() wants a callback; nothing to do per event while recording. */
static int no_event(const struct ks_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	return 0;
}

/* Reader thread: save the bytes, check them. */
static int sink(struct ra_cpu *c, const void *data, size_t len, void *arg)
{
	struct kcpu *k = c->priv;

	(void)arg;
	if (ra_write_full(k->out_fd, data, len)) {
		ra_err("%s: write: %s", k->out_path, strerror(errno));
		return -1;
	}
	if (!k->ks.failed && ks_feed(&k->ks, data, len, no_event, NULL))
		ra_err("%s; the raw stream is still saved, but not checked any more",
		       k->ks.error);
	return 0;
}

/* mmap mode: the used part of a finished sub-buffer, by its padding. */
static long subbuf_used(struct ra_cpu *c, const void *subbuf,
			size_t subbuf_size, void *arg)
{
	char why[160];
	long used = ks_subbuf_used(subbuf, subbuf_size, why, sizeof(why));

	(void)arg;
	if (used < 0)
		ra_err("cpu%d: skipping a produced sub-buffer: %s", c->cpu, why);
	return used;
}

/* Open DIR/cpuN for every buffer; remove cpuN files of other CPUs. */
static int open_outputs(struct collect *cl)
{
	const char *dir = cl->o->out;
	int *old, n, i, j;

	n = ra_list_cpus(dir, &old);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];

		for (j = 0; j < cl->ra->ncpus; j++)
			if (cl->ra->cpus[j].cpu == old[i])
				break;
		if (j < cl->ra->ncpus)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, old[i]);
		if (unlink(path) && errno != ENOENT) {
			ra_err("%s: cannot remove a file of an earlier run: %s",
			       path, strerror(errno));
			free(old);
			return -1;
		}
	}
	free(old);
	for (i = 0; i < cl->ra->ncpus; i++) {
		struct kcpu *k = &cl->k[i];

		k->out_fd = ra_out_open(k->out_path,
					O_WRONLY | O_CREAT | O_TRUNC);
		if (k->out_fd < 0)
			return -1;
	}
	return 0;
}

/* Sum of key over kleak-mod's stats lines. */
static __u64 stats_sum(const struct ra_stats_cpu *st, int n, const char *key)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += ra_stat(&st[i], key);
	return sum;
}

/*
 * After the drain: compare each CPU's stream with klog-mod's counters,
 * name the drops by cause. Returns -1 if the capture is inconsistent.
 */
static int check_capture(struct collect *cl, struct info *in)
{
	/* "reentered": absent from an older klog-mod's stats (reads 0) */
	static const char *const causes[] = {
		"full", "big", "nmi", "nest", "frozen", "reentered",
	};
	struct relay_app *ra = cl->ra;
	struct ra_stats_cpu *st = NULL;
	__u64 tot[ARRAY_SIZE(causes)] = { 0 };
	int nst, i, err = 0;
	size_t j;

	nst = ra_stats_read(cl->klog_dir, &st);
	if (nst < 0 ||
	    ra_ctl_read_u64(cl->klog_dir, "dropped", &in->klog_dropped)) {
		ra_err("cannot check the capture against klog's counters");
		free(st);
		return -1;
	}
	for (i = 0; i < ra->ncpus; i++) {
		const struct ks_stream *ks = &cl->k[i].ks;
		const struct ra_stats_cpu *s = ra_stats_find(st, nst,
							     ra->cpus[i].cpu);

		for (j = 0; j < ARRAY_SIZE(causes); j++)
			tot[j] += ra_stat(s, causes[j]);
		if (ks->failed) {
			ra_err("cpu%d: the stream is corrupt after offset %llu of %s",
			       ra->cpus[i].cpu, (unsigned long long)ks->off,
			       cl->k[i].out_path);
			err = -1;
		} else if (s && ra_stat(s, "records") != ks->records) {
			ra_err("cpu%d: klog wrote %llu records but %s holds %llu",
			       ra->cpus[i].cpu,
			       (unsigned long long)ra_stat(s, "records"),
			       cl->k[i].out_path,
			       (unsigned long long)ks->records);
			err = -1;
		}
		if (ra->cpus[i].bad_subbufs) {
			ra_err("cpu%d: %llu sub-buffers skipped", ra->cpus[i].cpu,
			       (unsigned long long)ra->cpus[i].bad_subbufs);
			err = -1;
		}
	}
	if (in->klog_dropped)
		ra_err("*** klog dropped %llu records (full %llu, big %llu, nmi %llu, nest %llu, frozen %llu, reentered %llu)%s ***",
		       (unsigned long long)in->klog_dropped,
		       (unsigned long long)tot[0], (unsigned long long)tot[1],
		       (unsigned long long)tot[2], (unsigned long long)tot[3],
		       (unsigned long long)tot[4], (unsigned long long)tot[5],
		       tot[0] ? ": buffers full, use larger ones (-b, -n)" : "");
	free(st);
	return err;
}

/* Stop kleak-mod (returns when no probe runs), read its counters. */
static int kleak_stop(struct collect *cl, struct info *in)
{
	struct ra_stats_cpu *st = NULL;
	int n;

	if (!cl->enabled)
		return 0;
	if (ra_ctl_write(cl->kleak_dir, "enabled", "0"))
		return -1;
	cl->enabled = false;
	if (ra_ctl_read_u64(cl->kleak_dir, "seq", &in->seq))
		return -1;
	in->has_seq = true;
	n = ra_stats_read(cl->kleak_dir, &st);
	if (n < 0)
		return -1;
	in->recursion = stats_sum(st, n, "recursion");
	if (in->recursion)
		ra_err("*** %llu events were not recorded: an allocation inside the klog write path (recursion) ***",
		       (unsigned long long)in->recursion);
	free(st);
	return 0;
}

static int collect(const struct opts *o)
{
	const char *const settings[] = {
		"mode", "no-overwrite",
		"global", "0",		/* kleak's order needs per-CPU buffers */
		NULL,
	};
	struct collect cl = { .o = o };
	struct ra_config cfg = {
		.dir		= cl.klog_dir,
		.settings	= settings,
		.subbuf_size	= o->subbuf_size,
		.n_subbufs	= o->n_subbufs,
		.mode		= o->mode,
		.poll_ms	= KLEAK_TICK_MS,
		.sink		= sink,
		.subbuf_used	= subbuf_used,
		.replace	= o->replace,
	};
	enum ra_stop_why why = RA_STOP_ERROR;
	struct info in = { 0 };
	char syms[PATH_MAX];
	struct relay_app *ra = NULL;
	char until[PATH_MAX] = "until Ctrl-C";
	__u64 t0;
	int i, err = 0, cmd_status;

	snprintf(cl.klog_dir, sizeof(cl.klog_dir), "%s/klog", o->debugfs);
	snprintf(cl.kleak_dir, sizeof(cl.kleak_dir), "%s/kleak", o->debugfs);
	snprintf(syms, sizeof(syms), "%s/%s", o->out, SYMS_FILE);
	if (access(cl.kleak_dir, F_OK)) {
		ra_err("%s: %s (is kleak-mod loaded?)", cl.kleak_dir,
		       strerror(errno));
		return 1;
	}
	if (ra_out_dir(o->out))
		return 1;
	/*
	 * The klog channel first: its lock keeps another kleak or klog off
	 * kleak-mod's settings too. Nothing is recorded before ra_start().
	 */
	ra = ra_open(&cfg);
	cl.ra = ra;
	if (!ra)
		return 1;
	/* a previous run may have died with kleak on */
	if (ra_ctl_write(cl.kleak_dir, "enabled", "0")) {
		err = 1;
		goto out;
	}
	if (ra_ctl_write(cl.kleak_dir, "filter", o->filter ? o->filter : "none")) {
		if (errno == EINVAL) {
			ra_close(ra);
			usage_error("-F/--filter: invalid filter '%s' (%s)",
				    o->filter,
				    "expected module=NAME, size=MIN-MAX or size=N, or both");
		}
		err = 1;
		goto out;
	}
	if (ra_ctl_read(cl.kleak_dir, "filter", in.filter, sizeof(in.filter)) ||
	    save_kallsyms(syms, false, o->quiet)) {
		err = 1;
		goto out;
	}
	cl.k = calloc(ra->ncpus, sizeof(*cl.k));
	if (!cl.k) {
		oom();
		err = 1;
		goto out;
	}
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &cl.k[i];

		k->out_fd = -1;
		snprintf(k->out_path, sizeof(k->out_path), "%s/cpu%d", o->out,
			 ra->cpus[i].cpu);
		ks_init(&k->ks, ra->cpus[i].cpu, k->out_path, ra->subbuf_size);
		ra->cpus[i].priv = k;
	}
	if (open_outputs(&cl) || ra_start(ra)) {
		err = 1;
		goto out;
	}
	t0 = ra_now_ns();
	if (ra_ctl_write(cl.kleak_dir, "enabled", "1")) {
		err = 1;
		goto out;
	}
	cl.enabled = true;
	if (o->cmd && o->duration)
		snprintf(until, sizeof(until), "until %s exits (or for %g s)",
			 o->cmd[0], o->duration);
	else if (o->cmd)
		snprintf(until, sizeof(until), "until %s exits", o->cmd[0]);
	else if (o->duration)
		snprintf(until, sizeof(until), "for %g s", o->duration);
	if (ra_recording(ra, o->cmd,
			 "allocations on %d CPUs into %s/cpu* %s (filter: %s)",
			 ra->ncpus, o->out, until, in.filter)) {
		err = ra_command_status(ra) > 0 ? ra_command_status(ra) : 1;
		goto out;
	}
	why = ra_wait(ra, o->duration, KLEAK_TICK_MS, NULL, NULL);
	if (why == RA_STOP_ERROR)
		err = 1;
	in.duration = (ra_now_ns() - t0) / 1e9;
	if (kleak_stop(&cl, &in))
		err = 1;
	if (ra_stop(ra))
		err = 1;
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &cl.k[i];

		if (!k->ks.failed && ks_finish(&k->ks, no_event, NULL))
			ra_err("%s", k->ks.error);
		if (close(k->out_fd)) {
			ra_err("%s: close: %s", k->out_path, strerror(errno));
			err = 1;
		}
		k->out_fd = -1;
	}
	in.cpus = ra->ncpus;
	if (check_capture(&cl, &in))
		err = 1;
	if (save_kallsyms(syms, true, o->quiet) ||
	    info_write(o->out, &in, ra->subbuf_size, ra->n_subbufs))
		err = 1;
	if (!o->quiet)
		ra_err("stopped (%s) after %.1f s; %llu events numbered by kleak-mod",
		       ra_stop_reason(why, ra->stop_signal), in.duration,
		       (unsigned long long)in.seq);
out:
	if (cl.enabled)
		ra_ctl_write(cl.kleak_dir, "enabled", "0");
	for (i = 0; cl.k && i < ra->ncpus; i++) {
		if (cl.k[i].out_fd >= 0)
			close(cl.k[i].out_fd);
		ks_release(&cl.k[i].ks);
	}
	cmd_status = ra_command_status(ra);
	ra_close(ra);		/* create=0 */
	free(cl.k);
	if (err)
		return err;
	err = make_report(o, o->out);
	return err || cmd_status < 0 ? err : cmd_status;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	if (o.report)
		return make_report(&o, o.report);
	return collect(&o);
}
