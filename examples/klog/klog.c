// SPDX-License-Identifier: GPL-2.0
/*
 * klog.c - collect the klog relay channel, or print a saved collection
 *
 * DOC: overview
 *
 * Collection (the user half of the relay-apps klog pair): relay_app sets
 * up the channel in /sys/kernel/debug/klog (mode=no-overwrite: a full
 * buffer refuses records and counts them; per-CPU buffers, or one global
 * buffer with -g) and runs one pinned reader per buffer (read(2) or
 * mmap(2) mode). Every byte a reader gets is written unchanged to
 * DIR/cpuN (sub-buffer headers and records, no padding: the same file in
 * both modes) and fed to that buffer's klog-stream decoder,
 * which checks it, counts records and sees loss in the stream. At the end
 * (SIGINT, SIGTERM, -t) relay_app stops logging, flushes and drains every
 * CPU; then the summary compares what the stream holds with the kernel's
 * counters (stats, dropped): every record is either in DIR/cpuN or
 * counted as dropped, and any mismatch is reported as an error.
 *
 * A collector that is killed (SIGKILL, OOM, a crash) leaves the channel
 * existing and enabled, its buffers still holding what it had not read.
 * The next collector does not recreate the channel, which would discard
 * those records uncounted: it attaches to it (relay_app's attach mode,
 * under a lock that also keeps a second collector off a running one)
 * and drains what is there, as blktrace or a trace_pipe reader would
 * expect. Given the same -o DIR it resumes the killed collector's files:
 * each DIR/cpuN is cut back to its last whole sub-buffer (an unfinished
 * write is removed), the kept part is decoded so the sequence numbers
 * run on, and the new bytes are appended; in mmap mode, sub-buffers the
 * killed collector had saved but not yet marked consumed come again and
 * are skipped by their header seq. What the kernel handed out but the
 * file never got - records read(2) returned just before the kill, the
 * cut-off sub-buffer - cannot come back; they are counted, per CPU,
 * as the kernel's records written minus the records in the file, shown
 * as a gap in the stream, and reported as lost with the killed
 * collector (mmap mode loses none: it marks sub-buffers consumed only
 * after saving them). With a new DIR the streams start where the
 * channel was, and the records before are reported as taken by an
 * earlier collector. A flight recorder (mode=overwrite) is never
 * attached to: klog refuses and says how to snapshot or stop it.
 *
 * Follow mode (-f): each reader also formats its records into lines and
 * queues them. The main thread merges the queues by timestamp every
 * 200 ms, holding a line until every CPU has handed over something later
 * (its watermark) or the line has waited ~1 s, and writes flush=1 once a
 * second so that partially filled sub-buffers arrive.
 *
 * Report (-r DIR): the saved DIR/cpuN files are decoded and merged by
 * timestamp (klog-stream's k-way merge) into text on stdout.
 *
 * A status line (records, records/s, MB/s, drops) is redrawn on stderr
 * once a second when stderr is a terminal, unless -q, or -f writes to
 * the same terminal.
 *
 * Exit status: 0 success (drops are reported, not failures), 1 runtime
 * error (control file, I/O, corrupt or inconsistent stream), 2 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/relay_app.h"
#include "klog-snapshot.h"
#include "klog-stream.h"

#define KLOG_DEBUGFS		"/sys/kernel/debug/klog"
#define KLOG_SUBBUF_SIZE	262144
#define KLOG_N_SUBBUFS		4
#define KLOG_TICK_MS		200
#define NSEC			1000000000ULL
#define FOLLOW_HOLD_NS		NSEC	/* longest a follow line waits */
#define STR_(x)			#x
#define STR(x)			STR_(x)

struct opts {
	size_t		subbuf_size;
	size_t		n_subbufs;
	enum ra_mode	mode;
	const char	*out;
	const char	*report;
	const char	*debugfs;
	double		duration;
	char *const	*cmd;		/* COMMAND [ARGS...] to record, or NULL */
	bool		follow;
	bool		global;
	bool		quiet;
	bool		recorder;	/* start a flight recorder and exit */
	bool		replace;	/* destroy a channel that exists */
	bool		snapshot;	/* snapshot the recorder into out */
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
	int		out_fd;
	char		out_path[PATH_MAX];
	__u64	records;	/* ks.records, for the status line */
	bool		follow;
	struct ks_buf	line;		/* formatting scratch */
	bool		resumed;	/* appending to a killed run's file */
	__u64	kept;		/* records kept from that file */
	__u64	cut;		/* bytes of an unfinished write removed */
	__u64	dup_subbufs;	/* mmap: sub-buffers it had already saved */

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
	bool		status;		/* live status line on stderr */
	bool		flush_failed;
	bool		stdout_closed;	/* -f: the reader of stdout went away */
	__u64	t_start, last_flush, last_status;
	__u64	flushed;	/* -f: when the last flush=1 returned */
	__u64	st_records, st_bytes;
};

/* ---- Options --------------------------------------------------------- */

static void print_help(FILE *f)
{
	static const char help[] =
		"Usage: klog [-b BYTES] [-n N] [-m read|mmap] [-g] [-o DIR] [-t SECONDS] [-f] [-x] [-q]\n"
		"            [[--] COMMAND [ARGS...]]\n"
		"       klog -r DIR [-q]\n"
		"       klog -R [-b BYTES] [-n N] [-g] [-x] (start a flight recorder)\n"
		"       klog -s [-o DIR] [-q]               (snapshot it)\n"
		"\n"
		"Collect the records of klog_printk()/klog_raw() from the klog relay channel\n"
		"(one buffer per CPU) into DIR/cpu0 .. DIR/cpuN-1, or print saved records\n"
		"merged by time. Needs root and the klog relay module (klog-mod). The channel\n"
		"is created in no-overwrite mode: records that find a buffer full are\n"
		"dropped and counted, and the summary says how many.\n"
		"\n"
		"Once it is recording, klog prints \"klog: recording ...\" on stderr (also with\n"
		"-q): a workload started after that line is recorded. Given a COMMAND, klog\n"
		"runs it at that point and stops when it exits (or at -t, Ctrl-C or SIGTERM,\n"
		"which it passes on to the COMMAND); klog's exit status is then the COMMAND's.\n"
		"E.g. klog -o /tmp/out -- sh -c 'insmod mymod.ko && rmmod mymod'\n"
		"\n"
		"If the channel already exists - its collector was killed, or it was set up\n"
		"by hand - klog attaches to it instead of recreating it, and collects the\n"
		"records its buffers still hold (-b, -n and -g then do not apply). With the\n"
		"killed collector's -o DIR it resumes its files: an unfinished write is cut\n"
		"off, new records are appended, and records the killed collector had taken\n"
		"from the kernel but not saved are counted and reported as lost (none in\n"
		"mmap mode). A flight recorder is never attached to nor destroyed unless -x\n"
		"is given. Only one collector (klog, klog -R, klog -s, kleak) can use the\n"
		"channel at a time.\n"
		"\n"
		"  -b, --subbuf-size BYTES  sub-buffer size (k, M, G suffixes; default "
		STR(KLOG_SUBBUF_SIZE) ")\n"
		"  -n, --n-subbufs N        sub-buffers per CPU (default "
		STR(KLOG_N_SUBBUFS) ")\n"
		"  -m, --mode read|mmap     read(2) the buffers (default) or mmap(2) them\n"
		"  -g, --global             one buffer for all CPUs (DIR/cpu0), in one order\n"
		"  -o, --output DIR         write DIR/cpuN, the raw stream of each CPU (default .)\n"
		"  -t, --duration SECONDS   stop after SECONDS (default: at Ctrl-C or SIGTERM)\n"
		"  -f, --follow             also print the records on stdout as they come,\n"
		"                           merged by time (about 1 s behind)\n"
		"  -r, --report DIR         print the records saved in DIR/cpu* merged by time\n"
		"  -R, --recorder           create an overwrite-mode channel (a flight\n"
		"                           recorder), enable it and exit; klog_trigger()\n"
		"                           in the kernel freezes it\n"
		"  -s, --snapshot           copy the recorder's buffers, as of now, to DIR/cpuN;\n"
		"                           sub-buffers overwritten while being copied are\n"
		"                           skipped and counted. E.g.: klog -R -b 64k -n 64;\n"
		"                           ...; klog -s -o /tmp/snap && klog -r /tmp/snap\n"
		"  -x, --replace            destroy a channel that exists (a flight recorder,\n"
		"                           or one a killed collector left) and create a new\n"
		"                           one, once the kernel accepted the new settings;\n"
		"                           without -x such a channel is never destroyed\n"
		"  -d, --debugfs DIR        control directory (default " KLOG_DEBUGFS ")\n"
		"  -q, --quiet              no status line and no summary table; drops and\n"
		"                           errors (and the recording line) are still shown\n"
		"  -h, --help               this text\n"
		"\n"
		"Each record prints as:\n"
		"  [SECONDS.NANOSECONDS] cpuN PID task|softirq|hardirq|nmi FUNCTION:LINE: TEXT\n"
		"and a loss as \"[...] cpuN *** N records lost ***\".\n"
		"\n"
		"Example:\n"
		"  klog -b 1048576 -n 8 -o /tmp/out -t 10    # 10 s, 8 MiB per CPU\n"
		"  klog -r /tmp/out | less\n"
		"\n"
		"Exit status: 0 success, even if records were dropped (the summary says how\n"
		"many and why); 1 runtime error (control file, I/O, corrupt or inconsistent\n"
		"stream); 2 usage error. With a COMMAND: the COMMAND's exit status (128+N if\n"
		"signal N killed it, 127 if it was not found) unless klog itself failed.\n";

	fputs(help, f);
}

/* "-b/--subbuf-size" for 'b' */
static const char *opt_name(const struct option *opts, int c)
{
	static char buf[40];

	for (; opts->name; opts++)
		if (opts->val == c)
			break;
	snprintf(buf, sizeof(buf), "-%c/--%s", c, opts->name);
	return buf;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "subbuf-size",	required_argument, NULL, 'b' },
		{ "n-subbufs",		required_argument, NULL, 'n' },
		{ "mode",		required_argument, NULL, 'm' },
		{ "output",		required_argument, NULL, 'o' },
		{ "duration",		required_argument, NULL, 't' },
		{ "follow",		no_argument,	   NULL, 'f' },
		{ "global",		no_argument,	   NULL, 'g' },
		{ "report",		required_argument, NULL, 'r' },
		{ "debugfs",		required_argument, NULL, 'd' },
		{ "recorder",		no_argument,	   NULL, 'R' },
		{ "snapshot",		no_argument,	   NULL, 's' },
		{ "replace",		no_argument,	   NULL, 'x' },
		{ "quiet",		no_argument,	   NULL, 'q' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *collect_opt = NULL;
	int c;

	*o = (struct opts) {
		.subbuf_size	= KLOG_SUBBUF_SIZE,
		.n_subbufs	= KLOG_N_SUBBUFS,
		.mode		= RA_MODE_READ,
		.out		= ".",
		.debugfs	= KLOG_DEBUGFS,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:b:n:m:o:t:fgr:d:qhRsx", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			o->subbuf_size = parse_count("-b/--subbuf-size", optarg,
						     "kKmMgG", 1, SIZE_MAX,
						     "a positive size in bytes, e.g. 1048576 or 1M");
			break;
		case 'n':
			o->n_subbufs = parse_count("-n/--n-subbufs", optarg,
						   NULL, 1, SIZE_MAX,
						   "a positive integer");
			break;
		case 'm':
			o->mode = parse_mode(optarg, RA_MODE_READ);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 't':
			o->duration = parse_seconds("-t/--duration", optarg);
			break;
		case 'f':
			o->follow = true;
			break;
		case 'g':
			o->global = true;
			break;
		case 'r':
			o->report = optarg;
			break;
		case 'd':
			o->debugfs = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'R':
			o->recorder = true;
			break;
		case 's':
			o->snapshot = true;
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
		if (strchr("bnmotfgdx", c) && !collect_opt)
			collect_opt = opt_name(longopts, c);
	}
	o->cmd = ra_command_arg(argc, argv);
	if (o->cmd && (o->report || o->recorder || o->snapshot))
		usage_error("unexpected argument '%s' (only a collection runs a COMMAND)",
			    o->cmd[0]);
	if (o->report && collect_opt)
		usage_error("-r/--report prints a saved collection; it cannot be combined with %s",
			    collect_opt);
	if (o->recorder && o->snapshot)
		usage_error("-R/--recorder starts a recorder, -s/--snapshot reads one: not both");
	if ((o->recorder || o->snapshot) && (o->report || o->follow || o->duration))
		usage_error("-R/--recorder and -s/--snapshot take no -r, -f or -t");
	if (o->snapshot && o->replace)
		usage_error("-s/--snapshot reads the recorder; it takes no -x/--replace");
}

/* ---- Follow mode ----------------------------------------------------- */

static int fq_push(struct fqueue *q, const struct fline *fl)
{
	if (q->head == q->len) {
		q->head = 0;
		q->len = 0;
	}
	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		struct fline *v;

		if (q->head) {		/* reuse the popped space first */
			memmove(q->v, q->v + q->head,
				(q->len - q->head) * sizeof(*v));
			q->len -= q->head;
			q->head = 0;
			return fq_push(q, fl);
		}
		v = realloc(q->v, cap * sizeof(*v));
		if (!v)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->len++] = *fl;
	return 0;
}

static void fq_free(struct fqueue *q)
{
	size_t i;

	for (i = q->head; i < q->len; i++)
		free(q->v[i].text);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* Reader thread (and ks_finish() after the readers): queue a line. */
static int on_event(const struct ks_event *ev, void *arg)
{
	struct kcpu *k = arg;
	struct fline fl;
	int ret;

	if (!k->follow || ev->kind == KS_SUBBUF)
		return 0;
	k->line.len = 0;
	if (ks_format(ev, &k->line) < 0)
		goto oom;
	fl.ts = ev->ts;
	fl.arrival = ra_now_ns();
	fl.text = strdup(k->line.p);
	if (!fl.text)
		goto oom;
	pthread_mutex_lock(&k->lock);
	ret = fq_push(&k->in, &fl);
	if (!ret && ev->ts > k->wm)
		k->wm = ev->ts;
	pthread_mutex_unlock(&k->lock);
	if (!ret)
		return 0;
	free(fl.text);
oom:
	ra_err("cpu%d: out of memory for follow output", k->ks.cpu);
	return -1;
}

/*
 * A write to stdout failed. A closed pipe (klog -f | head) ends the
 * collection quietly, as it ends any filter: later lines are dropped
 * and tick() stops. Return: -1 (after a message) for any other error.
 */
static int follow_write_error(struct klog *kl)
{
	if (errno == EPIPE) {
		kl->stdout_closed = true;
		return 0;
	}
	ra_err("stdout: write: %s", strerror(errno));
	return -1;
}

/*
 * Print the lines that are safe to print: the oldest line (by timestamp)
 * goes out when every CPU with nothing queued has already handed over a
 * later timestamp, or when it has waited FOLLOW_HOLD_NS and nothing
 * written before it came can still be on its way: a flush returned
 * after it came, and every reader has drained since (a reader that a
 * loaded machine holds up holds the lines too). @final prints
 * everything.
 */
static int follow_merge(struct klog *kl, bool final)
{
	__u64 now = ra_now_ns(), idle_wm = UINT64_MAX, ts;
	__u64 drained = ra_drained_since(kl->ra);
	/* lines that came before this are complete on every CPU */
	__u64 complete = kl->flush_failed ? drained :
			 drained > kl->flushed ? kl->flushed : 0;
	int i, s;

	for (i = 0; i < kl->ra->ncpus; i++) {
		struct kcpu *k = &kl->k[i];
		size_t j;
		int err = 0;

		pthread_mutex_lock(&k->lock);
		for (j = k->in.head; j < k->in.len; j++) {
			err = fq_push(&k->out, &k->in.v[j]);
			if (err)
				break;
		}
		k->in.head = j;
		k->out_wm = k->wm;
		pthread_mutex_unlock(&k->lock);
		if (err) {
			ra_err("out of memory for follow output");
			return -1;
		}
		if (k->out.head < k->out.len)
			ks_merge_set(&kl->merge, i, k->out.v[k->out.head].ts);
		else if (k->out_wm < idle_wm)
			idle_wm = k->out_wm;
	}
	while ((s = ks_merge_top(&kl->merge, &ts)) >= 0) {
		struct kcpu *k = &kl->k[s];
		struct fline *fl = &k->out.v[k->out.head];

		if (!final && ts > idle_wm &&
		    (now - fl->arrival < FOLLOW_HOLD_NS || fl->arrival >= complete))
			break;
		if (!kl->stdout_closed && fputs(fl->text, stdout) == EOF &&
		    follow_write_error(kl))
			return -1;
		free(fl->text);
		if (++k->out.head < k->out.len) {
			ks_merge_set(&kl->merge, s, k->out.v[k->out.head].ts);
			continue;
		}
		k->out.head = 0;
		k->out.len = 0;
		ks_merge_remove(&kl->merge, s);
		if (k->out_wm < idle_wm)
			idle_wm = k->out_wm;
	}
	if (!kl->stdout_closed && fflush(stdout) && follow_write_error(kl))
		return -1;
	return 0;
}

/* ---- Collection ------------------------------------------------------ */

/* Reader thread: save the bytes, decode them. */
static int sink(struct ra_cpu *c, const void *data, size_t len, void *arg)
{
	struct kcpu *k = c->priv;
	int ret;

	(void)arg;
	if (k->resumed && c->ra->cfg.mode == RA_MODE_MMAP && k->ks.started &&
	    len >= sizeof(struct klog_subbuf_hdr)) {
		struct klog_subbuf_hdr h;

		/* saved by the killed collector, not yet marked consumed */
		memcpy(&h, data, sizeof(h));
		if (h.magic == KLOG_SUBBUF_MAGIC && h.seq < k->ks.next_subbuf) {
			k->dup_subbufs++;
			return 0;
		}
	}
	if (ra_write_full(k->out_fd, data, len)) {
		ra_err("%s: write: %s", k->out_path, strerror(errno));
		return -1;
	}
	if (k->ks.failed)
		return 0;
	ret = ks_feed(&k->ks, data, len, on_event, k);
	if (ret && !k->ks.failed)
		return -1;		/* follow output failed */
	if (ret)
		ra_err("%s; the raw stream is still saved, but not decoded any more",
		       k->ks.error);
	__atomic_store_n(&k->records, k->ks.records, __ATOMIC_RELAXED);
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
		ra_err("cpu%d: skipping a produced sub-buffer: %s", c->cpu,
		       why);
	return used;
}

static void status_line(struct klog *kl, __u64 now)
{
	__u64 records = 0, bytes = 0, dropped;
	double dt = (now - kl->last_status) / 1e9;
	int i;

	for (i = 0; i < kl->ra->ncpus; i++) {
		records += __atomic_load_n(&kl->k[i].records, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&kl->ra->cpus[i].bytes,
					 __ATOMIC_RELAXED);
	}
	if (ra_ctl_read_u64(kl->o.debugfs, "dropped", &dropped)) {
		kl->status = false;
		return;
	}
	fprintf(stderr, "\r\033[K%llu records, %.0f records/s, %.2f MB/s, %llu dropped",
		(unsigned long long)records,
		(records - kl->st_records) / dt,
		(bytes - kl->st_bytes) / dt / 1e6,
		(unsigned long long)dropped);
	kl->st_records = records;
	kl->st_bytes = bytes;
	kl->last_status = now;
}

static int tick(struct relay_app *ra, void *arg)
{
	struct klog *kl = arg;
	__u64 now = ra_now_ns();

	if (kl->o.follow) {
		if (now - kl->last_flush >= NSEC && !kl->flush_failed) {
			kl->last_flush = now;
			kl->flush_failed = ra_flush(ra) != 0;
			if (!kl->flush_failed)
				kl->flushed = ra_now_ns();
		}
		if (follow_merge(kl, false))
			return -1;
		if (kl->stdout_closed)
			return 1;	/* stop: nobody reads the records */
	}
	if (kl->status && now - kl->last_status >= NSEC)
		status_line(kl, now);
	return 0;
}

static int ignore_event(const struct ks_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	return 0;
}

/*
 * Attached to a killed collector's channel: continue its DIR/cpuN. Cut
 * the file back to its last whole sub-buffer (each is subbuf_size minus
 * its padding long, in both modes), feed the rest to the decoder so the
 * sequence numbers run on, and append from there. 0 if there was nothing
 * to resume, 1 if resumed (k->out_fd open), -1 after a message.
 */
static int resume_output(struct klog *kl, struct kcpu *k)
{
	size_t sb = kl->ra->subbuf_size, off = 0, size;
	unsigned char *data = NULL;
	char why[160];
	struct stat st;
	int fd;

	if (lstat(k->out_path, &st) && errno == ENOENT)
		return 0;
	fd = ra_out_open(k->out_path, O_RDWR);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st)) {
		ra_err("%s: %s", k->out_path, strerror(errno));
		goto fail;
	}
	size = st.st_size;
	if (!size) {
		close(fd);
		return 0;
	}
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		data = NULL;
		ra_err("%s: mmap: %s", k->out_path, strerror(errno));
		goto fail;
	}
	while (size - off >= sizeof(struct klog_subbuf_hdr)) {
		long used = ks_subbuf_used(data + off, sb, why, sizeof(why));

		if (used < 0) {
			ra_err("%s: cannot resume it: offset %zu is not the header of a %zu-byte sub-buffer (%s); give another -o DIR",
			       k->out_path, off, sb, why);
			goto fail;
		}
		if ((size_t)used > size - off)
			break;		/* cut short by the kill */
		off += used;
	}
	k->ks.join = true;	/* it may itself have started mid-channel */
	if (ks_feed(&k->ks, data, off, ignore_event, NULL)) {
		ra_err("%s; cannot resume it: give another -o DIR", k->ks.error);
		goto fail;
	}
	if (k->ks.carry_len) {
		ra_err("%s: cannot resume it: a record runs past the end of a sub-buffer; give another -o DIR",
		       k->out_path);
		goto fail;
	}
	munmap(data, size);
	data = NULL;
	if (off < size && ftruncate(fd, off)) {
		ra_err("%s: truncate: %s", k->out_path, strerror(errno));
		goto fail;
	}
	if (lseek(fd, 0, SEEK_END) < 0) {
		ra_err("%s: lseek: %s", k->out_path, strerror(errno));
		goto fail;
	}
	k->out_fd = fd;
	k->resumed = true;
	k->kept = k->ks.records;
	k->cut = size - off;
	return 1;
fail:
	if (data)
		munmap(data, size);
	if (fd >= 0)
		close(fd);
	return -1;
}

static int open_outputs(struct klog *kl)
{
	const char *dir = kl->o.out;
	int *old, n, i, j;

	n = ra_list_cpus(dir, &old);
	if (n < 0)
		return -1;
	/* a stale cpuN from a run on more CPUs would join every report */
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;

		for (j = 0; j < kl->ra->ncpus; j++)
			if (kl->ra->cpus[j].cpu == old[i])
				break;
		if (j < kl->ra->ncpus)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d", dir, old[i]);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (unlink(path)) {
			ra_err("%s: cannot remove a file of an earlier run: %s",
			       path, strerror(errno));
			free(old);
			return -1;
		}
		if (!kl->o.quiet)
			ra_err("removed %s (from an earlier run on more CPUs)",
			       path);
	}
	free(old);
	for (i = 0; i < kl->ra->ncpus; i++) {
		struct kcpu *k = &kl->k[i];

		if (kl->ra->attached) {
			int ret = resume_output(kl, k);

			if (ret < 0)
				return -1;
			if (ret > 0)
				continue;
			k->ks.join = true;	/* a new file mid-channel */
		}
		k->out_fd = ra_out_open(k->out_path,
					O_WRONLY | O_CREAT | O_TRUNC);
		if (k->out_fd < 0)
			return -1;
	}
	return 0;
}

static bool stat_has(const struct ra_stats_cpu *s, const char *key)
{
	int i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->kv[i].key, key))
			return true;
	return false;
}

/*
 * The end-of-run report: a table unless -q, then every problem. Returns
 * -1 if the stream and the kernel's counters disagree or cannot be read.
 */
static int summary(struct klog *kl, enum ra_stop_why why, double secs)
{
	/* "reentered": absent from an older klog-mod's stats (reads 0) */
	static const char *const causes[] = {
		"full", "big", "nmi", "nest", "frozen", "reentered",
	};
	enum { NCAUSE = ARRAY_SIZE(causes) };
	struct relay_app *ra = kl->ra;
	__u64 tot[NCAUSE] = { 0 }, records = 0, bytes = 0, lost = 0;
	__u64 dropped = 0, unsaved = 0;
	struct ra_stats_cpu *st = NULL;
	int nst, i, j, err = 0;

	nst = ra_stats_read(kl->o.debugfs, &st);
	if (nst < 0 || ra_ctl_read_u64(kl->o.debugfs, "dropped", &dropped)) {
		ra_err("cannot check the records against the kernel's counters");
		nst = 0;
		err = -1;
	}
	for (i = 0; i < nst; i++)
		for (j = 0; j < NCAUSE; j++)
			tot[j] += ra_stat(&st[i], causes[j]);
	if (!kl->o.quiet) {
		fprintf(stderr,
			"%s: stopped (%s) after %.1f s; %s mode, %zu x %zu-byte sub-buffers %s\n",
			program_invocation_short_name,
			why == RA_STOP_TICK ? "standard output closed" :
			ra_stop_reason(why, ra->stop_signal), secs,
			kl->o.mode == RA_MODE_MMAP ? "mmap" : "read",
			ra->n_subbufs, ra->subbuf_size,
			kl->o.global ? "in one global buffer" : "per CPU");
		fprintf(stderr, "%-6s %12s %14s %8s %8s %8s %8s %8s %8s %8s %8s\n",
			"", "records", "bytes", "lost", "full", "big", "nmi",
			"nest", "frozen", "reenter", "backlog");
	}
	for (i = 0; i < ra->ncpus; i++) {
		const struct ks_stream *ks = &kl->k[i].ks;
		const struct ra_cpu *c = &ra->cpus[i];
		const struct ra_stats_cpu *s = ra_stats_find(st, nst, c->cpu);
		__u64 backlog = ra_stat(s, "max_backlog");

		if (c->max_backlog > backlog)
			backlog = c->max_backlog;
		records += ks->records;
		bytes += c->bytes;
		lost += ks_lost(ks);
		if (!kl->o.quiet)
			fprintf(stderr,
				"cpu%-3d %12llu %14llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu\n",
				c->cpu, (unsigned long long)ks->records,
				(unsigned long long)c->bytes,
				(unsigned long long)ks_lost(ks),
				(unsigned long long)ra_stat(s, "full"),
				(unsigned long long)ra_stat(s, "big"),
				(unsigned long long)ra_stat(s, "nmi"),
				(unsigned long long)ra_stat(s, "nest"),
				(unsigned long long)ra_stat(s, "frozen"),
				(unsigned long long)ra_stat(s, "reentered"),
				(unsigned long long)backlog);
	}
	if (!kl->o.quiet)
		fprintf(stderr, "%-6s %12llu %14llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu\n",
			"total", (unsigned long long)records,
			(unsigned long long)bytes, (unsigned long long)lost,
			(unsigned long long)tot[0], (unsigned long long)tot[1],
			(unsigned long long)tot[2], (unsigned long long)tot[3],
			(unsigned long long)tot[4], (unsigned long long)tot[5]);

	/* problems: printed even with -q */
	for (i = 0; i < ra->ncpus; i++) {
		const struct ks_stream *ks = &kl->k[i].ks;
		const struct ra_cpu *c = &ra->cpus[i];
		const struct ra_stats_cpu *s = ra_stats_find(st, nst, c->cpu);
		__u64 kdrop = 0;

		for (j = 0; j < NCAUSE; j++)
			kdrop += ra_stat(s, causes[j]);
		if (ks->failed) {
			ra_err("cpu%d: the stream is corrupt after offset %llu of %s; its records after that are not counted",
			       c->cpu, (unsigned long long)ks->off,
			       kl->k[i].out_path);
			err = -1;
			continue;
		}
		if (c->bad_subbufs) {
			ra_err("cpu%d: %llu sub-buffers skipped (see above)",
			       c->cpu, (unsigned long long)c->bad_subbufs);
			err = -1;
		}
		if (stat_has(s, "records") &&
		    (ra->attached ? ra_stat(s, "records") < ks->records :
		     ra_stat(s, "records") != ks->records)) {
			ra_err("cpu%d: the kernel wrote %llu records but %s holds %llu",
			       c->cpu, (unsigned long long)ra_stat(s, "records"),
			       kl->k[i].out_path,
			       (unsigned long long)ks->records);
			err = -1;
		} else if (ra->attached && stat_has(s, "records")) {
			/* what the kernel handed out that the file lacks */
			__u64 gone = ra_stat(s, "records") - ks->records;

			if (kl->k[i].resumed) {
				ra_err("cpu%d: resumed %s: %llu records kept, %llu bytes of an unfinished write cut, %llu records lost with the killed collector (read, never saved)",
				       c->cpu, kl->k[i].out_path,
				       (unsigned long long)kl->k[i].kept,
				       (unsigned long long)kl->k[i].cut,
				       (unsigned long long)gone);
				unsaved += gone;
				kdrop += gone;	/* gaps in the stream too */
				if (kl->k[i].dup_subbufs && !kl->o.quiet)
					ra_err("cpu%d: %llu sub-buffers the killed collector had saved came again; skipped",
					       c->cpu,
					       (unsigned long long)kl->k[i].dup_subbufs);
			} else if (gone) {
				ra_err("cpu%d: %llu records were read by an earlier collector before this one attached (in its files, or lost if it was killed: attach with its -o DIR to count them)",
				       c->cpu, (unsigned long long)gone);
			}
		}
		if (s && ks_lost(ks) > kdrop) {
			ra_err("cpu%d: the stream misses %llu records but the kernel counted only %llu drops",
			       c->cpu, (unsigned long long)ks_lost(ks),
			       (unsigned long long)kdrop);
			err = -1;
		}
		if (ks->cpu_mismatch)
			ra_err("cpu%d: %llu sub-buffer headers name another CPU",
			       c->cpu, (unsigned long long)ks->cpu_mismatch);
		if (ks->late)
			ra_err("cpu%d: %llu records came after a later sequence number",
			       c->cpu, (unsigned long long)ks->late);
	}
	if (unsaved)
		ra_err("*** %llu records lost with the killed collector: it had read them from the kernel but not saved them ***",
		       (unsigned long long)unsaved);
	lost = lost > unsaved ? lost - unsaved : 0;
	if (dropped || lost)
		ra_err("*** %llu records dropped by the kernel; %llu of them are marked in the stream ***",
		       (unsigned long long)dropped, (unsigned long long)lost);
	if (tot[0])
		ra_err("buffer full: %llu records dropped. Consider using a larger buffer size (-b/-n).",
		       (unsigned long long)tot[0]);
	if (tot[1])
		ra_err("record larger than a sub-buffer: %llu records dropped. Consider a larger sub-buffer size (-b).",
		       (unsigned long long)tot[1]);
	if (tot[2])
		ra_err("NMI context: %llu records dropped (relay cannot be written from NMI).",
		       (unsigned long long)tot[2]);
	if (tot[3])
		ra_err("nesting limit: %llu records dropped (klog calls nested too deeply on one CPU).",
		       (unsigned long long)tot[3]);
	if (tot[4])
		ra_err("frozen: %llu records dropped while recording was frozen (write 0 to %s/frozen to thaw).",
		       (unsigned long long)tot[4], kl->o.debugfs);
	if (tot[5])
		ra_err("re-entered: %llu records dropped (klog calls made from inside klog's own write path, e.g. by a console or a probe under a printk there).",
		       (unsigned long long)tot[5]);
	free(st);
	return err;
}

/* "until Ctrl-C", "for 5 s", "until sh exits (or for 5 s)" */
static void until_text(char *const *cmd, double secs, char *buf, size_t size)
{
	if (cmd && secs)
		snprintf(buf, size, "until %s exits (or for %g s)", cmd[0], secs);
	else if (cmd)
		snprintf(buf, size, "until %s exits", cmd[0]);
	else if (secs)
		snprintf(buf, size, "for %g s", secs);
	else
		snprintf(buf, size, "until Ctrl-C");
}

/*
 * ra_open() found a channel: take its settings, or refuse a flight
 * recorder (overwrite mode has no reader to resume, and klog -s reads
 * it without stopping it). 0, or -1 after a message.
 */
static int attach_check(struct klog *kl)
{
	const char *dir = kl->o.debugfs;
	char mode[32], global[8];

	if (ra_ctl_read(dir, "mode", mode, sizeof(mode)) ||
	    ra_ctl_read(dir, "global", global, sizeof(global)))
		return -1;
	if (strcmp(mode, "no-overwrite")) {
		ra_err("%s: a flight recorder is running (mode=%s); take a snapshot (klog -s) or stop it (echo 0 > %s/enabled; echo 0 > %s/create)",
		       dir, mode, dir, dir);
		return -1;
	}
	kl->o.global = !strcmp(global, "1");
	ra_err("%s: attaching to the existing channel (%zu x %zu-byte sub-buffers %s; -b, -n and -g do not apply): its unread records are collected too",
	       dir, kl->ra->n_subbufs, kl->ra->subbuf_size,
	       kl->o.global ? "in one global buffer" : "per CPU");
	return 0;
}

static int collect(const struct opts *o)
{
	const char *const settings[] = {
		"mode", "no-overwrite",
		"global", o->global ? "1" : "0",
		NULL,
	};
	struct klog kl = { .o = *o };
	struct ra_config cfg = {
		.dir		= o->debugfs,
		.settings	= settings,
		.subbuf_size	= o->subbuf_size,
		.n_subbufs	= o->n_subbufs,
		.mode		= o->mode,
		.poll_ms	= KLOG_TICK_MS,
		.sink		= sink,
		.subbuf_used	= subbuf_used,
		.arg		= &kl,
		.attach		= !o->replace,
		.replace	= o->replace,
	};
	enum ra_stop_why why = RA_STOP_ERROR;
	struct relay_app *ra;
	char until[PATH_MAX];
	int i, err = 0, cmd_status;

	signal(SIGPIPE, SIG_IGN);	/* -f | head: a write error instead */
	if (ra_out_dir(o->out))
		return 1;
	ra = ra_open(&cfg);
	kl.ra = ra;
	if (!ra)
		return 1;
	if (ra->attached && attach_check(&kl)) {
		err = 1;
		goto out;
	}
	kl.k = calloc(ra->ncpus, sizeof(*kl.k));
	if (!kl.k || (o->follow && ks_merge_init(&kl.merge, ra->ncpus))) {
		ra_err("out of memory");
		err = 1;
		goto out;
	}
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &kl.k[i];

		k->out_fd = -1;
		snprintf(k->out_path, sizeof(k->out_path), "%s/cpu%d", o->out,
			 ra->cpus[i].cpu);
		ks_init(&k->ks, ra->cpus[i].cpu, k->out_path, ra->subbuf_size);
		k->follow = o->follow;
		pthread_mutex_init(&k->lock, NULL);
		ra->cpus[i].priv = k;
	}
	if (open_outputs(&kl)) {
		err = 1;
		goto out;
	}
	kl.status = !o->quiet && isatty(STDERR_FILENO) &&
		    !(o->follow && isatty(STDOUT_FILENO));
	kl.t_start = ra_now_ns();
	kl.last_flush = kl.t_start;
	kl.last_status = kl.t_start;
	if (ra_start(ra)) {
		err = 1;
		goto out;
	}
	until_text(o->cmd, o->duration, until, sizeof(until));
	if (o->global ?
	    ra_recording(ra, o->cmd, "all CPUs into one buffer, %s/cpu%d, %s",
			 o->out, ra->cpus[0].cpu, until) :
	    ra_recording(ra, o->cmd, "%d CPUs into %s/cpu* %s", ra->ncpus,
			 o->out, until)) {
		err = ra_command_status(ra) > 0 ? ra_command_status(ra) : 1;
		goto out;
	}
	why = ra_wait(ra, o->duration, KLOG_TICK_MS, tick, &kl);
	if (why == RA_STOP_ERROR)
		err = 1;
	if (ra_stop(ra))
		err = 1;
	if (kl.status)
		fputs("\r\033[K", stderr);
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &kl.k[i];

		if (k->ks.failed)
			continue;	/* reported by sink() */
		if (ks_finish(&k->ks, on_event, k)) {
			if (k->ks.failed)
				ra_err("%s", k->ks.error);
			err = 1;
		}
	}
	if (o->follow && follow_merge(&kl, true))
		err = 1;
	for (i = 0; i < ra->ncpus; i++) {
		if (close(kl.k[i].out_fd)) {
			ra_err("%s: close: %s", kl.k[i].out_path,
			       strerror(errno));
			err = 1;
		}
		kl.k[i].out_fd = -1;
	}
	if (summary(&kl, why, (ra_now_ns() - kl.t_start) / 1e9))
		err = 1;
out:
	for (i = 0; kl.k && i < ra->ncpus; i++) {
		struct kcpu *k = &kl.k[i];

		if (k->out_fd >= 0)
			close(k->out_fd);
		ks_release(&k->ks);
		ks_buf_free(&k->line);
		fq_free(&k->in);
		fq_free(&k->out);
		pthread_mutex_destroy(&k->lock);
	}
	cmd_status = ra_command_status(ra);
	ra_close(ra);		/* create=0 */
	free(kl.k);
	ks_merge_free(&kl.merge);
	if (err)
		return err;
	return cmd_status < 0 ? 0 : cmd_status;
}

/* ---- Report ---------------------------------------------------------- */

struct rsrc {
	struct ks_stream ks;
	const unsigned char *data;
	size_t		len;
	struct ks_event	head;		/* next event to print */
};

/* Next printable event of @r: 1, 0 at the end, -1 (reported) on error. */
static int report_advance(struct rsrc *r)
{
	int ret;

	do
		ret = ks_next(&r->ks, r->data, r->len, &r->head);
	while (ret > 0 && r->head.kind == KS_SUBBUF);
	if (ret < 0)
		ra_err("%s", r->ks.error);
	return ret;
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
		int cpu, end = -1;

		if (++lineno == 1) {
			if (strncmp(line, "klog snapshot:", 14))
				err = -1;
			continue;
		}
		if (sscanf(line, "cpu%d first=%llu %n", &cpu, &first, &end) != 2 ||
		    end < 0) {
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

static int report_saved(const struct opts *o)
{
	__u64 records = 0, lost = 0, ts;
	struct ks_merge merge = { 0 };
	struct ks_buf line = { 0 };
	struct rsrc *src = NULL;
	int *cpus = NULL, n, i, s, err = 0;

	n = ra_list_cpus(o->report, &cpus);
	if (n < 0)
		return 1;
	if (!n) {
		ra_err("%s: no cpuN files (klog -o DIR writes them)", o->report);
		free(cpus);
		return 1;
	}
	src = calloc(n, sizeof(*src));
	if (!src || ks_merge_init(&merge, n)) {
		ra_err("out of memory");
		err = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu%d", o->report, cpus[i]);
		ks_init(&src[i].ks, cpus[i], path, 0);
		if (ra_map_file(path, &src[i].data, &src[i].len)) {
			err = 1;
			goto out;
		}
	}
	if (read_snapshot_marker(o->report, src, n)) {
		err = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		int ret = report_advance(&src[i]);

		if (ret > 0)
			ks_merge_set(&merge, i, src[i].head.ts);
		else if (ret < 0)
			err = 1;
	}
	while ((s = ks_merge_top(&merge, &ts)) >= 0) {
		int ret;

		line.len = 0;
		if (ks_format(&src[s].head, &line) < 0) {
			ra_err("out of memory");
			err = 1;
			goto out;
		}
		fwrite(line.p, 1, line.len, stdout);
		ret = report_advance(&src[s]);
		if (ret > 0)
			ks_merge_set(&merge, s, src[s].head.ts);
		else
			ks_merge_remove(&merge, s);
		if (ret < 0)
			err = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		ra_err("stdout: write: %s", strerror(errno));
		err = 1;
	}
	for (i = 0; i < n; i++) {
		records += src[i].ks.records;
		lost += ks_lost(&src[i].ks);
	}
	if (!o->quiet || lost)
		ra_err("%llu records from %d CPUs, %llu lost%s",
		       (unsigned long long)records, n,
		       (unsigned long long)lost,
		       err ? "; the report is incomplete (see above)" : "");
out:
	for (i = 0; src && i < n; i++) {
		if (src[i].len)
			munmap((void *)src[i].data, src[i].len);
		ks_release(&src[i].ks);
	}
	ks_merge_free(&merge);
	ks_buf_free(&line);
	free(src);
	free(cpus);
	return err;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	if (o.report)
		return report_saved(&o);
	if (o.recorder)
		return recorder_start(o.debugfs, o.subbuf_size, o.n_subbufs,
				      o.global, o.replace) ? 1 : 0;
	if (o.snapshot)
		return snapshot_take(o.debugfs, o.out, o.quiet) ? 1 : 0;
	return collect(&o);
}
