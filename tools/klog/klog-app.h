/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-app.h - what the klog collector's files share
 *
 * klog.c: collection; klog-options.c: the command line; klog-follow.c:
 * follow mode (-f); klog-resume.c: continuing a killed collector's files;
 * klog-summary.c: the end-of-run summary; klog-report.c: printing a saved
 * collection (-r), as JSON lines with klog-json.c (--json) or as a CTF
 * trace with klog-ctf.c (--ctf), the records it selects and the
 * statistics of --stat in klog-filter.c, the SVG plot of --plot in
 * klog-plot.c; klog-sites.c: DIR/sites, the
 * call sites the records name by id; klog-sitectl.c: the call-site table
 * (--sites, -e); klog-session.c: klog start, status and stop;
 * klog-tty.c: the pager of -r and colours. See the
 * overview in klog.c.
 */
#ifndef _KLOG_APP_H
#define _KLOG_APP_H

#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <stdbool.h>

#include "../lib/klog/relay_app.h"
#include "../lib/klog/klog-stream.h"

#define KLOG_DEBUGFS		"/sys/kernel/debug/klog"
#define KLOG_OUT_DIR		"klog.data"	/* -o and -r without DIR */
#define KLOG_SUBBUF_SIZE	262144
#define KLOG_N_SUBBUFS		4
#define KLOG_PROGRESS_S		10	/* --progress without SECONDS */
#define NSEC			1000000000ULL
#define FOLLOW_HOLD_NS		NSEC	/* longest a follow line waits */
#define FOLLOW_DRAIN_NS		NSEC	/* -f's end waits for a reader */
#define FOLLOW_PEND_MAX		(4 << 20)	/* -f's bytes a slow reader holds */
#define STR_(x)			#x
#define STR(x)			STR_(x)

#define KLOG_MAX_CPUS		4096	/* --cpu values */
#define KLOG_MAX_ENABLE		64	/* -e queries */
#define KLOG_STATE_DIR		RA_SITES_STATE_DIR	/* -e: sites.saved */

/* Long options without a letter. */
enum {
	OPT_JSON = 256, OPT_CTF, OPT_CPU, OPT_PID, OPT_FUNC, OPT_CTX,
	OPT_SINCE, OPT_UNTIL, OPT_TIME, OPT_HEX, OPT_STAT, OPT_MAX_SIZE,
	OPT_STATUS, OPT_THAW, OPT_STOP, OPT_SITES, OPT_COMM, OPT_FORCE,
	OPT_BYTES, OPT_PROGRESS, OPT_PLOT,
	OPT_MODULE, OPT_FILE, OPT_ID, OPT_KIND, OPT_GREP, OPT_NOT, OPT_TOP,
	OPT_SORT,
	OPT_COLOR, OPT_NO_PAGER, OPT_FOLLOW_OUT,	/* klog-tty.c, -f */
};

enum report_time { TIME_ABS, TIME_REL, TIME_DELTA, TIME_WALL };
enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/* DIR/meta (klog-meta.c): what a collection is. */
#define KLOG_META_FILE		"meta"
#define KLOG_META_VERSION	1

/* A local_clock() value and CLOCK_REALTIME read together in the kernel. */
struct meta_clock {
	__u64	local, real;	/* ns */
	bool	valid;
};

struct meta {
	char		kind[16];	/* "collection" or "snapshot" */
	char		release[65], machine[65], hostname[65];
	bool		global;
	int		cpus;
	__u64		subbuf_size, n_subbufs;
	char		read_mode[16];
	__u64		start, stop;	/* CLOCK_REALTIME ns; stop 0: running */
	char		stop_reason[64];
	struct meta_clock clock_start, clock_stop;
	char		trigger[256];
	struct meta_bytes {			/* "bytes": at the stop */
		int	cpu;
		__u64	bytes;
	}		*bytes;			/* freed by meta_free() */
	int		nbytes;
};

int meta_clock(const char *debugfs, struct meta_clock *c);
void meta_start(struct meta *m, const char *kind, const char *debugfs);
void meta_stop(struct meta *m, const char *debugfs, const char *reason);
int meta_write(const char *dir, const struct meta *m, const char *debugfs);
int meta_read(const char *dir, struct meta *m);
void meta_free(struct meta *m);
int meta_add_bytes(struct meta *m, int cpu, int fd, const char *path);
int meta_wall(const struct meta *m, __u64 ts, __u64 *real);

/*
 * save_file() - write @b as DIR/NAME (0600 through ra_out_open():
 * O_NOFOLLOW) by way of DIR/.NAME.tmp and ra_out_rename(), which
 * replaces a link planted at DIR/NAME, never its target, in the DIR
 * ra_out_dir() checked and holds; a reader sees the old file or the new
 * one, never a part. 0 or -1 after a message.
 */
int save_file(const char *dir, const char *name, const struct ks_buf *b);

/* DIR/sites (klog-sites.c): the kernel's site table, merged by id. */
#define KLOG_SITES_FILE		"sites"
#define KLOG_KALLSYMS_FILE	"kallsyms"

struct ksites {
	pthread_mutex_t	lock;		/* follow: readers resolve, reload */
	struct ks_sites	t;
	const char	*debugfs;	/* where the kernel's "sites" is */
	__u32		tried;		/* highest id looked for in it */
	bool		ksyms_saved;	/* DIR/kallsyms written once */
	struct ks_buf	modules;	/* /proc/modules when it was written */
};

void sites_init(struct ksites *s, const char *debugfs);
/* Merge the kernel's table into @s and save it as DIR/sites. 0 or -1. */
int sites_collect(struct ksites *s, const char *dir);
/* Name @ev's site (follow mode), re-reading for a new id. 0 or -1. */
int sites_resolve(struct ksites *s, struct ks_event *ev);
/* klog -r: DIR/sites into @t (none: 0). 0, or -1 after a message. */
int sites_load(const char *dir, struct ks_sites *t);
/*
 * Format argument records (KLOG_RELAY_ARGS) from now on, resolving %pS
 * and friends with DIR/kallsyms if there is one (addresses otherwise).
 * 0, or -1 after a message naming the file and line of a bad kallsyms
 * (argument records are still formatted, %pS as addresses).
 */
int args_setup(const char *dir);
void args_free(void);
void sites_free(struct ksites *s);

/*
 * One value of a report filter (klog-filter.c): a number or range of
 * a list (--cpu, --pid, --id, --ctx, --kind), a pattern (--comm,
 * --func, --module, --file) or a regex (--grep); @not after --not.
 */
struct filter_term {
	int		opt;		/* OPT_CPU ... OPT_GREP: what it tests */
	bool		not;		/* matching it hides a record */
	__u64		lo, hi;		/* a list's value or range */
	const char	*glob;		/* fnmatch(3) pattern */
	regex_t		*re;		/* --grep */
};

/* What klog -r shows (klog-filter.c); zeroed: everything. */
struct report_filter {
	bool		any;		/* a filter is set */
	bool		not_next;	/* --not: the next filter is negated */
	struct filter_term *terms;
	size_t		nterms;
	__u64		since, until;	/* ns, inclusive */
	bool		until_set;
	enum report_time time;
};

enum stat_sort { SORT_RECORDS, SORT_BYTES, SORT_NAME };

struct opts {
	struct ra_opts	ra;		/* -b -n -m -o -t -d -q -x */
	const char	*report;
	bool		report_default;	/* -r without DIR: KLOG_OUT_DIR */
	bool		force;		/* write into a non-empty -o DIR */
	bool		bytes;		/* sizes in bytes, not 1.5M */
	char *const	*cmd;		/* COMMAND [ARGS...] to record, or NULL */
	bool		follow;
	bool		global;
	bool		recorder;	/* start a flight recorder and exit */
	bool		snapshot;	/* snapshot the recorder into out */
	int		recorder_cmd;	/* OPT_STATUS, OPT_THAW, OPT_STOP or 0 */
	__u64		max_size;	/* stop saving at this many bytes; 0: no limit */
	double		progress;	/* --progress: a status line every N s */
	bool		json;		/* -r: JSON lines instead of text */
	const char	*ctf;		/* -r: write a CTF trace there */
	bool		stat;		/* -r: statistics instead of records */
	size_t		stat_top;	/* --top: rows per table; 0: all */
	enum stat_sort	stat_sort;	/* --sort */
	const char	*plot;		/* -r: an SVG plot into this file */
	bool		hex;		/* -r: a raw record's whole payload */
	struct report_filter filter;	/* -r: which records */
	bool		sites;		/* --sites [QUERY]: list call sites */
	const char	*sites_query;	/* its QUERY ("": all) */
	const char	*enable[KLOG_MAX_ENABLE];	/* -e QUERY */
	int		n_enable;
	bool		session;	/* klog start's detached collector */
	/* reading: at a terminal (klog-tty.c), following (-f, -r -f) */
	enum color_when	color;		/* --color */
	bool		color_set;	/* --color given */
	bool		no_pager;	/* --no-pager */
	const char	*follow_out;	/* --follow-output FILE */
};

/*
 * struct report_sink - where klog -r puts the merged events: text on
 * stdout (klog-report.c), JSON lines (klog-json.c), a CTF trace
 * (klog-ctf.c). @event gets every event with its source, the index of
 * the DIR/cpuN it came from; @finish (optional) runs after the last one,
 * while the events' data is still mapped; @free (optional) last. Each
 * returns 0, or -1 after a message.
 */
struct report_sink {
	void	*priv;
	int	(*event)(void *priv, int src, const struct ks_event *ev);
	int	(*finish)(void *priv);
	void	(*free)(void *priv);
};

/* A follow-mode line waiting to be merged. */
struct fline {
	__u64	ts;		/* record timestamp */
	__u64	arrival;	/* ra_now_ns() when decoded */
	char		*text;		/* "...\n" */
};

struct fqueue {
	struct fline	*v;		/* lines v[head..len) */
	size_t		head, len, cap;
};

/* The collector's per-CPU state (ra_cpu.priv). */
struct kcpu {
	struct ks_stream ks;		/* decoder, reader thread only */
	struct ksites	*sites;		/* follow: names of the site ids */
	int		out_fd;
	char		out_path[PATH_MAX];
	__u64	records;	/* ks.records, for the status line */
	bool		follow;
	struct ks_buf	line;		/* formatting scratch */
	bool		resumed;	/* appending to a killed run's file */
	__u64	kept;		/* records kept from that file */
	__u64	cut;		/* bytes of an unfinished write removed */
	__u64	dup_subbufs;	/* mmap: sub-buffers it had already saved */
	__u64	unsaved_from;	/* ks.records when --max-size stopped saving */
	__u64	unsaved_bytes;	/* read but not saved (--max-size) */
	bool		unsaved;	/* unsaved_from is set */

	pthread_mutex_t	lock;		/* protects @in and @wm */
	struct fqueue	in;		/* reader -> main thread */
	__u64	wm;		/* highest timestamp queued */

	struct fqueue	out;		/* main thread: waiting to merge */
	__u64	out_wm;		/* @wm as last taken over */
};

struct klog {
	struct opts	o;
	struct relay_app *ra;
	struct kcpu	*k;
	struct ks_merge	merge;
	bool		status;		/* a status line on stderr */
	bool		status_lines;	/* --progress: lines, not redrawn */
	__u64	status_ns;	/* how often */
	bool		flush_failed;
	bool		stdout_closed;	/* -f: the reader of stdout went away */
	/* -f's output (klog-follow.c), written without waiting */
	int		fout;		/* stdout reopened, or --follow-output */
	int		fout_flags;	/* stdout's flags to put back, or -1 */
	bool		fout_color;	/* --color */
	struct ks_buf	fpend;		/* lines the reader has not taken */
	size_t		fpend_off;	/* bytes of @fpend written */
	__u64		fdropped;	/* lines dropped: @fpend was full */
	__u64	saved;		/* bytes given to the files (--max-size) */
	__u64	written;	/* bytes written to the files */
	struct meta	meta;		/* DIR/meta */
	struct ksites	sites;		/* DIR/sites */
	bool		size_reached;	/* --max-size: nothing more is saved */
	__u64	t_start, last_flush, last_status;
	__u64	flushed;	/* -f: when the last flush=1 returned */
	__u64	st_records, st_bytes;
};

void fq_free(struct fqueue *q);
int follow_event(const struct ks_event *ev, void *arg);
int follow_merge(struct klog *kl, bool final);
/*
 * follow_out_open() - where -f's lines go, before the channel is
 * touched: --follow-output FILE, or stdout through a file description
 * of its own (/proc/self/fd/1) set non-blocking, so that a reader that
 * takes nothing (klog -f | less, paused) never holds up the collection:
 * its lines wait in a bounded buffer and are dropped beyond it.
 * follow_out_end(): wait for a slow reader at most FOLLOW_DRAIN_NS
 * without progress, then say how many lines were not shown.
 * 0, or -1 after a message.
 */
int follow_out_open(struct klog *kl);
int follow_out_end(struct klog *kl);

/* klog-tty.c: the pager of klog -r, colours of text lines */
bool color_on(enum color_when when, int fd);
/* color_line() - append ks_format()'s @line to @b in colour. 0 or -1. */
int color_line(struct ks_buf *b, const char *line);
/*
 * pager_start() - pipe stdout (and stderr if a terminal) into $PAGER
 * (nothing to do if PAGER is "" or "cat"); pager_end() closes the pipe
 * and waits for it (also at exit). 0, or -1 after a message.
 */
int pager_start(void);
int pager_end(void);
bool pager_running(void);
/* pager_gone() - the pager has quit: stdout's writes fail quietly. */
bool pager_gone(void);
/* klog -r's --color, --no-pager, --follow-output: @o, or a usage error */
void tty_option(struct opts *o, int opt, const char *arg);
void tty_check(const struct opts *o);
int report_saved(const struct opts *o);
/* @dir: the trace's directory; @coll: the collection's (trace_name) */
int ctf_sink_open(struct report_sink *sink, const char *dir,
		  const char *coll, const int *cpus, int n,
		  const struct meta *meta);
void json_sink_open(struct report_sink *sink, const int *cpus);
/* klog-json.c, also used by klog-ctf.c */
int utf8_next(const unsigned char *p, size_t n, __u32 *cp);
/* --stat, as @o's --bytes, --top and --sort ask */
int stat_sink_open(struct report_sink *sink, const struct opts *o);
/*
 * --plot @path (klog-plot.c): records per second of @dir as an SVG file;
 * @force: replace a file that exists; @filtered: say so in it
 */
int plot_sink_open(struct report_sink *sink, const char *path,
		   const char *dir, bool force, bool filtered);
/*
 * filter_option() - take report option @opt (a filter, --not or
 * --time) and its @arg into @f; a bad value is a usage error.
 * Return: the option's name ("--cpu").
 */
const char *filter_option(struct report_filter *f, int opt, const char *arg);
/*
 * filter_match() - whether every output of klog -r shows @ev: a record
 * that passes the filters, and every loss (losses are not filtered)
 */
bool filter_match(const struct report_filter *f, const struct ks_event *ev);
void filter_free(struct report_filter *f);
int resume_output(struct klog *kl, struct kcpu *k);
/*
 * out_dir_usable() - may a collection or snapshot write into @dir (held
 * by ra_out_dir())? Yes if it is empty or @force is set; with
 * @unfinished (a collection), also if it holds a collection that never
 * stopped (DIR/meta without its stop lines: a killed collector's, to
 * resume), which sets *@unfinished. Else -1 after a message naming what
 * it holds and the way out (another -o DIR, --force).
 */
int out_dir_usable(const char *dir, bool force, bool *unfinished);
/* klog-sitectl.c: a bad QUERY of option @opt is a usage error. */
void sitectl_check_query(const char *opt, const char *query);
/* klog --sites [QUERY]: the sites of control dir @dir; exit status. */
int sites_list(const char *dir, const char *query);
/*
 * Under the collectors' lock: put back a killed collector's saved
 * call-site state, then for -e save the state and enable only what the
 * @n @queries select (sitectl_begin); put it back (sitectl_end; nothing
 * to do without -e). 0, or -1 after a message.
 */
int sitectl_begin(const char *dir, const char *const *queries, int n,
		  bool quiet);
int sitectl_end(const char *dir, bool quiet);
int summary(struct klog *kl, enum ra_stop_why why, double secs);
/*
 * size_text() - @bytes for a person, one word: "118B", "4K", "1.5M"
 * (K, M, G, T, P, E: 2^10 to 2^60, the suffixes the options take; one
 * decimal unless exact), or with @exact (--bytes) the number of bytes.
 * Return: @buf.
 */
#define SIZE_TEXT_MAX	24
char *size_text(char *buf, size_t size, __u64 bytes, bool exact);
/* status_text() - the status line of @s (status_show(), klog status) */
struct status_nums {
	__u64	ns;			/* since recording started */
	__u64	records, saved;		/* records read, bytes saved */
	double	records_rate, saved_rate;	/* per second */
	__u64	max_size, dropped;
};

void status_text(char *buf, size_t size, const struct status_nums *s,
		 bool exact);
/*
 * status_show() - the status of a running collection on stderr: time,
 * records, bytes saved, their rates since the last one, --max-size's
 * share, drops; redrawn on a terminal, or a line (--progress)
 */
void status_show(struct klog *kl, __u64 now);
void parse_opts(int argc, char **argv, struct opts *o);
/* klog-sitectl.c: /run/klog (or $KLOG_STATE_DIR) made and held. 0 or -1. */
int state_dir(void);
/*
 * klog-session.c: session_start() - klog start: run @collect detached,
 * return once it records (0) or failed (its status); session_cmd() -
 * klog status | stop [OPTIONS] (@argv[0]: which); its exit status.
 * The detached collector's hooks: session_detach() - once recording:
 * the session file, stdio to DIR/log, klog start told (0, or -1 after
 * a message); session_tick() - the session file rewritten.
 */
int session_start(struct opts *o, int (*collect)(const struct opts *o));
int session_cmd(int argc, char **argv);
int session_detach(struct klog *kl);
void session_tick(struct klog *kl, __u64 now);

#endif /* _KLOG_APP_H */
