/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kleak-app.h - what the kleak collector's files share: options, the
 * symbol table, the info file, the report
 *
 * kleak.c: options and collection; kleak-syms.c: kernel symbols and
 * DIR/kleak.info; kleak-report.c: the replay and the report. kleak.h is
 * the record format, shared with kleak-mod.
 */
#ifndef _KLEAK_APP_H
#define _KLEAK_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../../tools/lib/klog/relay_app.h"
#include "kleak.h"

#define KLOG_DEBUGFS		"/sys/kernel/debug/klog"
#define KALLSYMS		"/proc/kallsyms"
#define KLEAK_SUBBUF_SIZE	1048576
#define KLEAK_N_SUBBUFS		8
#define KLEAK_TOP		20
#define KLEAK_TICK_MS		200
#define INFO_FILE		"kleak.info"
#define SYMS_FILE		"kallsyms"
#define SYM_MAX_OFFSET		(1024ULL * 1024)	/* farther: not that symbol */
/* Bounds on what a report reads (larger: not a file kleak wrote). */
#define SYMS_MAX		(512UL << 20)	/* kallsyms: ~200k lines, twice */
#define INFO_MAX		(64UL << 10)	/* kleak.info */
#define SYM_NAME_MAX		512		/* a symbol's shown bytes */
#define STR_(x)			#x
#define STR(x)			STR_(x)

struct opts {
	struct ra_opts	ra;		/* -b -n -m -o -t -d -q -x */
	const char	*report;
	const char	*filter;
	char *const	*cmd;		/* COMMAND [ARGS...] to record, or NULL */
	long		top;
};

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

/*
 * symtab_load() - the text symbols of @path (DIR/kallsyms or
 * /proc/kallsyms), read with ra_read_file()'s checks; @missing_ok: no
 * such file gives -1 with errno ENOENT and no message. 0 or -1.
 */
int symtab_load(struct symtab *t, const char *path, bool missing_ok);
void symtab_free(struct symtab *t);
const char *symbolize(const struct symtab *t, __u64 addr, char *buf,
		      size_t size);
int save_kallsyms(const char *path, bool append, bool quiet);

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

int info_write(const char *dir, const struct info *in, size_t subbuf,
	       size_t nsubbuf);
int info_read(const char *dir, struct info *in);

int make_report(const struct opts *o, const char *dir);

static inline int oom(void)
{
	ra_err("out of memory");
	return -1;
}

#endif /* _KLEAK_APP_H */
