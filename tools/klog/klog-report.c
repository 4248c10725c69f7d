// SPDX-License-Identifier: GPL-2.0
/*
 * klog-report.c - print a saved collection (klog -r DIR) as text
 *
 * See "Report" in the overview of klog.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "klog-snapshot.h"
#include "klog-app.h"

/* ---- Report ---------------------------------------------------------- */

struct rsrc {
	struct ks_stream ks;		/* ks.name: the file's path */
	const unsigned char *data;
	size_t		len;
	struct ks_event	head;		/* next event to print */
	__u64		arrival;	/* -f: when @head was decoded */
	bool		waiting;	/* -f: at the end of the file so far */
};

/*
 * Each cpuN file as its collector left it at the stop, if DIR/meta says
 * (its "bytes" lines): a file cut or emptied since, even at a sub-buffer
 * boundary where the stream alone looks whole, or removed, is an error
 * naming it. 0, or -1 after the messages.
 */
static int check_bytes(const char *dir, const struct meta *m,
		       const int *cpus, const struct rsrc *src, int n)
{
	int i, j, err = 0;

	for (j = 0; j < m->nbytes; j++) {
		const struct meta_bytes *b = &m->bytes[j];

		for (i = 0; i < n && cpus[i] != b->cpu; i++)
			;
		if (i == n)
			ra_err("%s/cpu%d: missing, but DIR/meta says its collector left %llu bytes",
			       dir, b->cpu, (unsigned long long)b->bytes);
		else if (src[i].len != b->bytes)
			ra_err("%s/cpu%d: %zu bytes, but DIR/meta says its collector left %llu: the file was cut or changed since",
			       dir, b->cpu, src[i].len,
			       (unsigned long long)b->bytes);
		else
			continue;
		err = -1;
	}
	return err;
}

/*
 * -r -f: map @r's file again if it grew. 1 if it did, 0 if not, -1
 * after a message. Only between events: @r->head points into the map.
 */
static int report_remap(struct rsrc *r)
{
	const unsigned char *data = NULL;
	size_t len = 0;

	if (ra_map_file(r->ks.name, &data, &len))
		return -1;
	if (len == r->len) {
		if (len)
			munmap((void *)data, len);
		return 0;
	}
	if (len < r->len) {
		ra_err("%s: shrank from %zu to %zu bytes while it was read (the collection was resumed?)",
		       r->ks.name, r->len, len);
		if (len)
			munmap((void *)data, len);
		return -1;
	}
	if (r->len)
		munmap((void *)r->data, r->len);
	r->data = data;
	r->len = len;
	return 1;
}

/*
 * A file cut back while it is read through its mapping (a resumed
 * collector truncates an unfinished write; anyone may) faults with
 * SIGBUS at the first page past its new end: inside report_advance()'s
 * reading, that returns an error; anywhere else (a record's bytes being
 * printed), the report ends there, exit 1, saying so.
 */
static sigjmp_buf report_bus_env;
static int report_bus_armed;	/* lock-free: async-safe */
static const char *report_bus_dir;

static void report_sigbus(int sig)
{
	static char cut[] =
		": a file was cut back while it was read (the collection was resumed?)\n";
	struct iovec msg[] = {
		{ program_invocation_short_name,
		  strlen(program_invocation_short_name) },
		{ ": ", 2 },
		{ (char *)report_bus_dir, strlen(report_bus_dir) },
		{ cut, sizeof(cut) - 1 },
	};
	ssize_t ret;

	(void)sig;
	if (__atomic_load_n(&report_bus_armed, __ATOMIC_SEQ_CST))
		siglongjmp(report_bus_env, 1);
	/* async-signal-safe: writev(2) and _exit() only */
	ret = writev(STDERR_FILENO, msg, ARRAY_SIZE(msg));
	(void)ret;	/* a failed write has nowhere to be told */
	_exit(1);
}

static void report_sigbus_setup(const char *dir)
{
	struct sigaction sa = { .sa_handler = report_sigbus,
				.sa_flags = SA_NODEFER };

	report_bus_dir = dir;
	sigaction(SIGBUS, &sa, NULL);
}

/* report_advance()'s reading, its mappings' faults caught there. */
static int report_next(struct rsrc *r, bool ended)
{
	int ret;

	for (;;) {
		do
			ret = ks_next(&r->ks, r->data, r->len, &r->head);
		while (ret > 0 && r->head.kind == KS_SUBBUF);
		if (ret || !r->ks.more)
			break;
		ret = report_remap(r);
		if (ret < 0)
			return -1;
		if (!ret && !ended)
			return 0;
		r->ks.more = ret > 0;
	}
	if (ret < 0)
		ra_err("%s", r->ks.error);
	r->arrival = ra_now_ns();
	return ret;
}

/*
 * Next printable event of @r: 1, 0 at the end, -1 (reported) on error.
 * A file still being written (ks.more, -r -f) is read again at its end:
 * 0 there means "nothing yet"; once @ended (DIR/meta says the
 * collection stopped), what it holds is all there is.
 */
static int report_advance(struct rsrc *r, bool ended)
{
	int ret;

	if (sigsetjmp(report_bus_env, 0)) {
		__atomic_store_n(&report_bus_armed, 0, __ATOMIC_SEQ_CST);
		ra_err("%s: cut back while it was read (the collection was resumed?)",
		       r->ks.name);
		return -1;
	}
	__atomic_store_n(&report_bus_armed, 1, __ATOMIC_SEQ_CST);
	ret = report_next(r, ended);
	__atomic_store_n(&report_bus_armed, 0, __ATOMIC_SEQ_CST);
	return ret;
}

/*
 * "cpuN first=S ..." of DIR/snapshot: N below KLOG_MAX_CPUS, S a number
 * that fits; 0, or -1 if the line is not one.
 */
static int parse_marker_line(const char *line, int *cpu,
			     unsigned long long *first)
{
	char *end;

	*cpu = ra_parse_cpu(line, KLOG_MAX_CPUS, &end);
	if (*cpu < 0 || strncmp(end, " first=", 7) ||
	    !isdigit((unsigned char)end[7]))
		return -1;
	errno = 0;
	*first = strtoull(end + 7, &end, 10);
	return errno || (*end && *end != ' ') ? -1 : 0;
}

/*
 * DIR/snapshot (klog -s) marks a snapshot: "cpuN first=S ..." per CPU,
 * S the first sub-buffer it covers. Its streams start there, not at 0:
 * only sub-buffers skipped after S are lost. 0 (also without a marker),
 * or -1 after a message if the marker cannot be read or parsed.
 */
static int read_snapshot_marker(const char *dir, struct rsrc *src, int n)
{
	const unsigned char *data = NULL;
	char path[PATH_MAX], *text, *line, *save;
	struct stat st;
	size_t len = 0;
	int lineno = 0, i, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_SNAPSHOT_FILE);
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (ra_map_file(path, &data, &len))
		return -1;
	if (!len || memchr(data, '\0', len)) {
		ra_err("%s: %s: not a klog snapshot marker", path,
		       len ? "a NUL byte" : "empty");
		if (len)
			munmap((void *)data, len);
		return -1;
	}
	text = strndup((const char *)data, len);
	if (len)
		munmap((void *)data, len);
	if (!text) {
		ra_err("out of memory");
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long first;
		int cpu;

		if (++lineno == 1) {
			if (strncmp(line, "klog snapshot:", 14))
				err = -1;
			continue;
		}
		if (parse_marker_line(line, &cpu, &first)) {
			err = -1;
			break;
		}
		for (i = 0; i < n; i++)
			if (src[i].ks.cpu == cpu) {
				src[i].ks.join = true;
				src[i].ks.first_known = true;
				src[i].ks.next_subbuf = first;
			}
	}
	if (err)
		ra_err("%s:%d: not a klog snapshot marker (\"cpuN first=S ...\")",
		       path, lineno);
	free(text);
	return err;
}

/*
 * DIR/trigger (klog -s of a recorder a klog_trigger() froze): say so
 * unless @quiet, its bytes escaped (the file is not trusted), at most 512
 * of them. 0, or -1 after a message if the file cannot be read.
 */
static int print_trigger(const char *dir, bool quiet)
{
	const unsigned char *data = NULL;
	char path[PATH_MAX], esc[4 * 512 + 1];
	struct stat st;
	size_t len = 0, n;

	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_TRIGGER_FILE);
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (ra_map_file(path, &data, &len))
		return -1;
	n = len && data[len - 1] == '\n' ? len - 1 : len;
	if (!quiet)
		fprintf(stderr, "%s: %s: the recorder was frozen by a trigger: %s%s\n",
			program_invocation_short_name, dir,
			ra_escape(esc, sizeof(esc), data, n < 512 ? n : 512),
			n > 512 ? " ..." : "");
	if (len)
		munmap((void *)data, len);
	return 0;
}

/* The text report: a line per event, its time as --time asks. */
struct text_out {
	struct ks_buf	line, colored;	/* --color: @line with colours */
	bool		color;
	const struct meta *meta;	/* TIME_WALL */
	enum report_time time;
	size_t		hex_max;
	bool		started;
	__u64		first, prev;
};

/*
 * "[+S.N" or "[-S.N": @ts - @from, either way round (an NMI's or an
 * interrupt's record can come before the line it is measured from).
 */
static void print_diff(__u64 ts, __u64 from)
{
	__u64 d = ts >= from ? ts - from : from - ts;

	printf("[%c%llu.%09llu", ts >= from ? '+' : '-',
	       (unsigned long long)(d / NSEC), (unsigned long long)(d % NSEC));
}

static int text_event(void *priv, int src, const struct ks_event *ev)
{
	struct text_out *t = priv;
	const char *rest;

	(void)src;
	t->line.len = 0;
	if (ks_format_hex(ev, &t->line, t->hex_max) < 0) {
		ra_err("out of memory");
		return -1;
	}
	if (!t->line.len)
		return 0;
	if (t->color) {
		t->colored.len = 0;
		if (color_line(&t->colored, t->line.p)) {
			ra_err("out of memory");
			return -1;
		}
	}
	if (t->time == TIME_ABS) {
		fputs(t->color ? t->colored.p : t->line.p, stdout);
		return 0;
	}
	if (!t->started) {
		t->first = ev->ts;
		t->prev = ev->ts;
	}
	t->started = true;
	/* after "[SEC.NSEC" */
	rest = strchr(t->color ? t->colored.p : t->line.p, ']');
	if (t->time == TIME_WALL) {
		struct tm tm;
		__u64 real;
		time_t sec;

		if (meta_wall(t->meta, ev->ts, &real)) {
			ra_err("cpu%d: timestamp %llu: past 2262 with DIR/meta's clock_start offset: no wall-clock time",
			       ev->cpu, (unsigned long long)ev->ts);
			return -1;
		}
		sec = real / NSEC;
		gmtime_r(&sec, &tm);
		printf("[%04d-%02d-%02d %02d:%02d:%02d.%09llu", tm.tm_year + 1900,
		       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		       tm.tm_sec, (unsigned long long)(real % NSEC));
	} else {
		print_diff(ev->ts, t->time == TIME_REL ? t->first : t->prev);
	}
	fputs(rest, stdout);
	t->prev = ev->ts;
	return 0;
}

static int open_sink(const struct opts *o, struct report_sink *sink,
		     struct text_out *text, const struct meta *meta,
		     const int *cpus, int n)
{
	__u64 origin;

	if (o->filter.time == TIME_WALL && meta_wall(meta, 0, &origin)) {
		ra_err("%s: no clock reference for --time wall (%s)", o->report,
		       !*meta->kind ? "no DIR/meta: collected by an older klog" :
		       !meta->clock_start.valid ?
		       "the kernel had no klog-mod clock file" :
		       "DIR/meta's clock_start puts local_clock 0 before 1970");
		return -1;
	}
	if (o->ctf)
		return ctf_sink_open(sink, o->ctf, o->report, cpus, n, meta);
	if (o->stat)
		return stat_sink_open(sink, o);
	if (o->plot)
		return plot_sink_open(sink, o->plot, o->report, o->force,
				      o->filter.any);
	if (o->json) {
		json_sink_open(sink, cpus);
		return 0;
	}
	text->time = o->filter.time;
	text->meta = meta;
	text->hex_max = o->hex ? SIZE_MAX : 64;
	*sink = (struct report_sink) { .priv = text, .event = text_event };
	return 0;
}

/* -r -f: SIGINT, SIGTERM or SIGHUP ends the follow (lock-free: async-safe) */
static int tail_sig;

static void tail_catch(int sig)
{
	__atomic_store_n(&tail_sig, sig, __ATOMIC_RELAXED);
}

static bool tail_signal(void)
{
	return __atomic_load_n(&tail_sig, __ATOMIC_RELAXED);
}

static void tail_signals(void)
{
	struct sigaction sa = { .sa_handler = tail_catch };	/* no SA_RESTART */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * -r -f: wait a moment (100 ms, or a signal), then see whether DIR/meta
 * says the collection stopped (*@ended: the collector closed the files
 * before), and read on the files of the sources that were waiting.
 * 0; 1 after a message about a file (the others are followed on); -1
 * after one about DIR/meta (the end cannot be known: following stops).
 */
static int tail_wait(const struct opts *o, struct rsrc *src, int n,
		     struct ks_merge *merge, struct ks_sites *sites,
		     bool *ended)
{
	const struct timespec tick = { 0, 100000000 };
	struct meta m;
	int i, ret, err = 0;

	if (!tail_signal())
		nanosleep(&tick, NULL);
	if (tail_signal())
		return 0;
	if (meta_read(o->report, &m) < 0)
		return -1;
	/* a collection writes the stop lines last; a snapshot is complete */
	*ended = m.stop || (*m.kind && strcmp(m.kind, "collection"));
	meta_free(&m);
	/* sites of modules loaded during the collection, saved at its stop */
	if (*ended && sites_load(o->report, sites))
		err = 1;
	for (i = 0; i < n; i++) {
		if (!src[i].waiting)
			continue;
		ret = report_advance(&src[i], *ended);
		src[i].waiting = !ret && src[i].ks.more;
		if (ret > 0)
			ks_merge_set(merge, i, src[i].head.ts);
		else if (ret < 0)
			err = 1;
	}
	return err;
}

int report_saved(const struct opts *o)
{
	__u64 records = 0, lost = 0, ts, now, idle_wm;
	struct report_sink sink = { 0 };
	struct ks_merge merge = { 0 };
	struct text_out text = { 0 };
	struct ks_sites sites = { 0 };
	struct meta meta = { 0 };
	struct rsrc *src = NULL;
	__u64 shown = 0;
	int *cpus = NULL, n, i, s, err = 0;
	bool tail, ended = false, gone = false;

	report_sigbus_setup(o->report);
	n = ra_list_cpus(o->report, &cpus);
	if (n < 0)
		return 1;
	if (!n) {
		ra_err("%s: no cpuN files (klog -o DIR writes them)", o->report);
		free(cpus);
		return 1;
	}
	/*
	 * DIR/meta before the files: a collection it says has stopped has
	 * its files complete (read after a stop seen later, they could be
	 * cut, or empty); one still running is followed by -f.
	 */
	if (meta_read(o->report, &meta) < 0)
		goto fail;
	/* the files are made before DIR/meta (klog.c, klog-snapshot.c) */
	if (n < meta.cpus) {
		ra_err("%s: DIR/meta says %d buffers were read, but %d cpuN files are here: the report lacks the others",
		       o->report, meta.cpus, n);
		err = 1;
	}
	src = calloc(n, sizeof(*src));
	if (!src || ks_merge_init(&merge, n)) {
		ra_err("out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu%d", o->report, cpus[i]);
		ks_init(&src[i].ks, cpus[i], path, 0);
		if (ra_map_file(path, &src[i].data, &src[i].len))
			goto fail;
	}
	/* the records still print: the report says it is incomplete */
	if (check_bytes(o->report, &meta, cpus, src, n))
		err = 1;
	/* a bad DIR/sites is reported; the records still print (site#N) */
	if (sites_load(o->report, &sites))
		err = 1;
	/* argument records: formatted, %pS with DIR/kallsyms (or addresses) */
	if (args_setup(o->report))
		err = 1;
	for (i = 0; i < n; i++)
		src[i].ks.sites = &sites;
	if (read_snapshot_marker(o->report, src, n) ||
	    open_sink(o, &sink, &text, &meta, cpus, n))
		goto fail;
	/* -f: follow a collection that has not stopped (or has no meta) */
	tail = o->follow && !meta.stop &&
	       (!*meta.kind || !strcmp(meta.kind, "collection"));
	if (tail)
		tail_signals();
	else if (!o->no_pager && !o->ctf && isatty(STDOUT_FILENO) &&
		 pager_start())
		goto fail;
	text.color = color_on(o->color, STDOUT_FILENO);
	for (i = 0; i < n; i++) {
		int ret;

		src[i].ks.more = tail;
		ret = report_advance(&src[i], false);
		src[i].waiting = !ret && tail;
		if (ret > 0)
			ks_merge_set(&merge, i, src[i].head.ts);
		else if (ret < 0)
			err = 1;
	}
	for (;;) {
		/*
		 * Following, a line waits until every file at its end so far
		 * has a later record, or FOLLOW_HOLD_NS (as -f's lines do).
		 */
		now = ra_now_ns();
		idle_wm = UINT64_MAX;
		for (i = 0; i < n; i++)
			if (src[i].waiting && src[i].ks.last_ts < idle_wm)
				idle_wm = src[i].ks.last_ts;
		while (!tail_signal() && (s = ks_merge_top(&merge, &ts)) >= 0 &&
		       !ferror(stdout)) {
			int ret;

			if (tail && !ended && ts > idle_wm &&
			    src[s].arrival + FOLLOW_HOLD_NS > now)
				break;
			if (!o->filter.any ||
			    filter_match(&o->filter, &src[s].head)) {
				shown += src[s].head.kind == KS_RECORD;
				if (sink.event(sink.priv, s, &src[s].head))
					goto fail;
			}
			ret = report_advance(&src[s], ended);
			if (ret > 0) {
				ks_merge_set(&merge, s, src[s].head.ts);
				continue;
			}
			ks_merge_remove(&merge, s);
			if (ret < 0)
				err = 1;
			src[s].waiting = !ret && src[s].ks.more;
			if (src[s].waiting && src[s].ks.last_ts < idle_wm)
				idle_wm = src[s].ks.last_ts;
		}
		if (!tail || ended || tail_signal() || ferror(stdout))
			break;
		fflush(stdout);
		s = tail_wait(o, src, n, &merge, &sites, &ended);
		if (s)
			err = 1;
		if (s < 0)
			break;
	}
	if (sink.finish && sink.finish(sink.priv))
		err = 1;
	if (fflush(stdout) || ferror(stdout)) {
		gone = pager_gone();	/* q in the pager: a quiet end */
		if (!gone) {
			ra_err("stdout: write: %s", strerror(errno));
			err = 1;
		}
	}
	if (gone)
		goto out;
	for (i = 0; i < n; i++) {
		records += src[i].ks.records;
		lost = ks_add_sat(lost, ks_lost(&src[i].ks));
	}
	if (print_trigger(o->report, o->ra.quiet))
		err = 1;
	if (o->filter.any && (!o->ra.quiet || lost))
		ra_err("%llu of %llu records from %d CPUs shown, %llu lost%s%s%s",
		       (unsigned long long)shown, (unsigned long long)records,
		       n, (unsigned long long)lost, tail && !ended ?
		       " so far (the collection had not stopped)" : "",
		       lost ? " (losses are not filtered)" : "",
		       err ? "; the report is incomplete (see above)" : "");
	else if (!o->ra.quiet || lost)
		ra_err("%llu records from %d CPUs, %llu lost%s%s",
		       (unsigned long long)records, n,
		       (unsigned long long)lost, tail && !ended ?
		       " so far (the collection had not stopped)" : "",
		       err ? "; the report is incomplete (see above)" : "");
	if (err && !tail && *meta.kind && !strcmp(meta.kind, "collection") &&
	    !meta.stop)
		ra_err("%s: DIR/meta has no stop line: its collection is still being written (klog -r -f follows it), or its collector was killed",
		       o->report);
	goto out;
fail:
	err = 1;
out:
	if (sink.free)
		sink.free(sink.priv);
	for (i = 0; src && i < n; i++) {
		if (src[i].len)
			munmap((void *)src[i].data, src[i].len);
		ks_release(&src[i].ks);
	}
	ks_merge_free(&merge);
	ks_sites_free(&sites);
	args_free();
	ks_buf_free(&text.line);
	ks_buf_free(&text.colored);
	free(src);
	free(cpus);
	meta_free(&meta);
	if (pager_end() && !err)
		err = 1;
	return err;
}
