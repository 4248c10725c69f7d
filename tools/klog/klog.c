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
 * second so that partially filled sub-buffers arrive. It never waits for
 * the reader of the lines: they go to stdout through a non-blocking
 * file description of its own (or to --follow-output FILE), what the
 * reader does not take waits in a bounded buffer, and lines beyond it
 * are dropped and counted ("N lines not shown"), never records.
 *
 * Output: DIR is -o's, klog.data (KLOG_OUT_DIR) by default, created
 * 0700 or taken only if it is the caller's and no one else can write to
 * it (ra_out_dir()). A collection or snapshot goes into an empty DIR:
 * one that holds anything is refused before the channel is touched,
 * unless --force, or unless it is a killed collector's (DIR/meta without
 * its stop lines) and its channel is still there to resume
 * (out_dir_usable()).
 *
 * Report (-r DIR, klog.data without DIR): the saved DIR/cpuN files are
 * decoded and merged by timestamp (klog-stream's k-way merge) into text
 * on stdout, through a pager on a terminal (klog-tty.c). With -f, a
 * collection still being written is followed: at the end of a file (also
 * inside a record) the report waits and reads on, a line held as -f
 * holds it, until DIR/meta has its stop lines.
 *
 * Call sites (klog-sitectl.c): --sites lists them; -e QUERY makes a
 * collection enable only the sites its queries select and puts every
 * site's state back at the end, or at the next collection after a kill.
 *
 * A status line (time, records, bytes saved, their rates, the share of
 * --max-size, drops) is redrawn on stderr once a second when stderr is a
 * terminal, unless -q, or -f writes to the same terminal; --progress
 * prints it as a line every SECONDS instead, wherever stderr goes.
 *
 * Exit status: as --help states it (print_help(), klog-options.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog-snapshot.h"
#include "klog-app.h"

/* ---- Collection ------------------------------------------------------ */

/*
 * --max-size: whether @len more bytes of @k may be saved. Readers add
 * what they save to one total; the first to cross the limit saves
 * nothing and stops saving everywhere (each file then ends on a
 * sub-buffer boundary), and tick() stops the collection. What is read
 * after that is still decoded, counted and reported as not saved.
 */
static bool save_within_limit(struct klog *kl, struct kcpu *k, size_t len)
{
	if (!kl->o.max_size)
		return true;
	if (!__atomic_load_n(&kl->size_reached, __ATOMIC_RELAXED) &&
	    __atomic_add_fetch(&kl->saved, len, __ATOMIC_RELAXED) <=
	    kl->o.max_size)
		return true;
	__atomic_store_n(&kl->size_reached, true, __ATOMIC_RELAXED);
	if (!k->unsaved) {
		k->unsaved = true;
		k->unsaved_from = k->ks.records;
	}
	return false;
}

/* Reader thread: save the bytes, decode them. */
static int sink(struct ra_cpu *c, const void *data, size_t len, void *arg)
{
	struct kcpu *k = c->priv;
	struct klog *kl = arg;
	int ret;

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
	if (!save_within_limit(kl, k, len)) {
		k->unsaved_bytes += len;
	} else {
		if (ra_write_full(k->out_fd, data, len)) {
			ra_err("%s: write: %s", k->out_path, strerror(errno));
			return -1;
		}
		__atomic_add_fetch(&kl->written, len, __ATOMIC_RELAXED);
	}
	if (k->ks.failed)
		return 0;
	/* records counted, no event built, unless they are followed */
	ret = ks_feed(&k->ks, data, len, k->follow ? follow_event : NULL, k);
	if (ret && !k->ks.failed)
		return -1;		/* follow output failed */
	if (ret)
		ra_err("%s; the raw stream is still saved, but not decoded any more",
		       k->ks.error);
	__atomic_store_n(&k->records, k->ks.records, __ATOMIC_RELAXED);
	return 0;
}

static int tick(struct relay_app *ra, void *arg)
{
	struct klog *kl = arg;
	__u64 now = ra_now_ns();

	if (kl->o.session)
		session_tick(kl, now);
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
	if (kl->status && now - kl->last_status >= kl->status_ns)
		status_show(kl, now);
	if (__atomic_load_n(&kl->size_reached, __ATOMIC_RELAXED))
		return 1;	/* stop: --max-size reached */
	return 0;
}

static int open_outputs(struct klog *kl)
{
	int i;

	if (ra_remove_stale(kl->o.ra.out, kl->ra, !kl->o.ra.quiet))
		return -1;
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

/*
 * ra_open() found a channel: take its settings, or refuse a flight
 * recorder (overwrite mode has no reader to resume, and klog -s reads
 * it without stopping it). 0, or -1 after a message.
 */
static int attach_check(struct klog *kl)
{
	const char *dir = kl->o.ra.debugfs;
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

/* The recording line's end for a session (klog start). */
static void session_until(char *buf, size_t size, double secs)
{
	if (secs)
		snprintf(buf, size, "until klog stop (or for %g s)", secs);
	else
		snprintf(buf, size, "until klog stop");
}

static int collect(const struct opts *o)
{
	const char *const settings[] = {
		"mode", "no-overwrite",
		"global", o->global ? "1" : "0",
		NULL,
	};
	struct klog kl = { .o = *o, .fout = -1 };
	struct ra_config cfg = {
		.dir		= o->ra.debugfs,
		.settings	= settings,
		.subbuf_size	= o->ra.subbuf_size,
		.n_subbufs	= o->ra.n_subbufs,
		.mode		= o->ra.mode,
		.sink		= sink,
		.arg		= &kl,
		.attach		= !o->ra.replace,
		.replace	= o->ra.replace,
	};
	enum ra_stop_why why = RA_STOP_ERROR;
	struct relay_app *ra;
	char until[PATH_MAX];
	bool sites_begun = false, cmd_ended = false, unfinished;
	int i, err = 0;

	signal(SIGPIPE, SIG_IGN);	/* -f | head: a write error instead */
	sites_init(&kl.sites, o->ra.debugfs);
	if (ra_out_dir(o->ra.out) ||
	    out_dir_usable(o->ra.out, o->force, &unfinished) ||
	    (o->follow && follow_out_open(&kl)))
		return 1;
	ra = ra_open(&cfg);
	kl.ra = ra;
	if (!ra) {
		if (kl.fout >= 0)
			follow_out_end(&kl);
		return 1;
	}
	if (unfinished && !ra->attached) {
		ra_err("%s: holds a collection that never stopped (its collector was killed?) and no channel is left to resume it into: klog -r %s reads it; give -o a new or empty directory, or --force to write into this one",
		       o->ra.out, o->ra.out);
		goto fail;
	}
	/* Under the collectors' lock: the saved call-site state is ours. */
	sites_begun = true;
	if (sitectl_begin(o->ra.debugfs, o->enable, o->n_enable,
			  o->ra.quiet))
		goto fail;
	if (ra->attached && attach_check(&kl))
		goto fail;
	kl.k = calloc(ra->ncpus, sizeof(*kl.k));
	if (!kl.k || (o->follow && ks_merge_init(&kl.merge, ra->ncpus))) {
		ra_err("out of memory");
		goto fail;
	}
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &kl.k[i];

		k->out_fd = -1;
		snprintf(k->out_path, sizeof(k->out_path), "%s/cpu%d", o->ra.out,
			 ra->cpus[i].cpu);
		ks_init(&k->ks, ra->cpus[i].cpu, k->out_path, ra->subbuf_size);
		k->follow = o->follow;
		k->sites = &kl.sites;
		pthread_mutex_init(&k->lock, NULL);
		ra->cpus[i].priv = k;
	}
	if (open_outputs(&kl))
		goto fail;
	meta_start(&kl.meta, "collection", o->ra.debugfs);
	kl.meta.global = o->global;
	kl.meta.cpus = ra->ncpus;
	kl.meta.subbuf_size = ra->subbuf_size;
	kl.meta.n_subbufs = ra->n_subbufs;
	snprintf(kl.meta.read_mode, sizeof(kl.meta.read_mode), "%s",
		 o->ra.mode == RA_MODE_MMAP ? "mmap" : "read");
	if (meta_write(o->ra.out, &kl.meta, NULL) ||
	    sites_collect(&kl.sites, o->ra.out))
		goto fail;
	/* follow mode prints argument records with the symbols just saved */
	if (args_setup(o->ra.out))
		err = 1;
	/* --progress: lines; else redrawn on a terminal -f does not use */
	kl.status_lines = o->progress > 0;
	kl.status = kl.status_lines ||
		    (!o->ra.quiet && isatty(STDERR_FILENO) &&
		     !(o->follow && isatty(kl.fout)));
	kl.status_ns = kl.status_lines ? (__u64)(o->progress * 1e9) : NSEC;
	kl.t_start = ra_now_ns();
	kl.last_flush = kl.t_start;
	kl.last_status = kl.t_start;
	if (ra_start(ra))
		goto fail;
	if (o->session)
		session_until(until, sizeof(until), o->ra.duration);
	else
		ra_until_text(o->cmd, o->ra.duration, until, sizeof(until));
	if (o->global ?
	    ra_recording(ra, o->cmd, "all CPUs into one buffer, %s/cpu%d, %s",
			 o->ra.out, ra->cpus[0].cpu, until) :
	    ra_recording(ra, o->cmd, "%d CPUs into %s/cpu* %s", ra->ncpus,
			 o->ra.out, until)) {
		err = ra_command_status(ra) > 0 ? ra_command_status(ra) : 1;
		goto out;
	}
	if (o->session && session_detach(&kl))
		goto fail;
	why = ra_wait(ra, o->ra.duration, tick, &kl);
	if (why == RA_STOP_ERROR)
		err = 1;
	/* -t, --max-size or -f's closed stdout ended a COMMAND: as asked */
	cmd_ended = o->cmd && (why == RA_STOP_DURATION || why == RA_STOP_TICK);
	if (ra_stop(ra))
		err = 1;
	if (kl.status && !kl.status_lines)
		fputs("\r\033[K", stderr);
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &kl.k[i];

		if (k->ks.failed)
			continue;	/* reported by sink() */
		if (ks_finish(&k->ks, follow_event, k)) {
			if (k->ks.failed)
				ra_err("%s", k->ks.error);
			err = 1;
		}
	}
	if (o->follow && follow_merge(&kl, true))
		err = 1;
	for (i = 0; i < ra->ncpus; i++) {
		/* DIR/meta's "bytes": the size the report checks against */
		if (kl.k[i].out_fd >= 0 &&
		    meta_add_bytes(&kl.meta, kl.k[i].ks.cpu, kl.k[i].out_fd,
				   kl.k[i].out_path))
			err = 1;
		if (close(kl.k[i].out_fd)) {
			ra_err("%s: close: %s", kl.k[i].out_path,
			       strerror(errno));
			err = 1;
		}
		kl.k[i].out_fd = -1;
	}
	meta_stop(&kl.meta, o->ra.debugfs,
		  why == RA_STOP_TICK ? (kl.size_reached ? "--max-size reached" :
					 "standard output closed") :
		  ra_stop_reason(why, ra->stop_signal));
	if (meta_write(o->ra.out, &kl.meta, o->ra.debugfs))
		err = 1;
	meta_free(&kl.meta);
	/* again: sites of modules loaded during the collection */
	if (sites_collect(&kl.sites, o->ra.out))
		err = 1;
	/* the files are complete: now a slow reader of -f may hold us a bit */
	if (o->follow && follow_out_end(&kl))
		err = 1;
	if (summary(&kl, why, (ra_now_ns() - kl.t_start) / 1e9))
		err = 1;
	if (cmd_ended && !err && !o->ra.quiet)
		ra_err("%s was still running at the stop and was ended (its exit status %d); klog's is 0: %s ended the collection",
		       o->cmd[0], ra_command_status(ra),
		       why == RA_STOP_DURATION ? "-t" :
		       kl.size_reached ? "--max-size" : "the closed standard output");
	goto out;
fail:
	err = 1;
out:
	if (kl.fout >= 0)
		follow_out_end(&kl);
	ra_halt(ra);	/* no reader may write to what is closed below */
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
	/* After ra_stop(): no record of a site turned back on is collected. */
	if (sites_begun && sitectl_end(o->ra.debugfs, o->ra.quiet))
		err = 1;
	/* create=0; the exit status: klog's error, else the COMMAND's */
	if (cmd_ended)
		ra_close(ra);	/* klog ended it: its status is not a failure */
	else
		err = ra_close_status(ra, err);
	free(kl.k);
	ks_merge_free(&kl.merge);
	sites_free(&kl.sites);
	args_free();
	return err;
}

int main(int argc, char **argv)
{
	static struct opts o;	/* what it points to stays reachable */
	bool record = argc > 1 && !strcmp(argv[1], "record");
	bool start = argc > 1 && !strcmp(argv[1], "start");

	/* klog start [OPTIONS], klog status, klog stop: klog-session.c */
	if (argc > 1 && (!strcmp(argv[1], "status") || !strcmp(argv[1], "stop")))
		return session_cmd(argc - 1, argv + 1);
	/* "klog record [OPTIONS] [--] COMMAND", as trace-cmd record */
	if (record || start) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	parse_opts(argc, argv, &o);
	if (record && (o.report || o.recorder || o.snapshot))
		usage_error("'record' collects: it takes no -r, -R or -s");
	if (start)
		return session_start(&o, collect);
	if (o.sites) {
		int st = sites_list(o.ra.debugfs, o.sites_query);

		free((char *)o.sites_query);
		return st;
	}
	if (o.report) {
		struct stat st_dir;
		int st;

		if (o.report_default && lstat(o.report, &st_dir) &&
		    errno == ENOENT) {
			ra_err("%s: no such directory: -r without DIR reads %s, which a collection without -o writes; give -r DIR",
			       o.report, o.report);
			return 1;
		}
		/* DIR's files are read relative to it, opened once */
		st = ra_in_dir(o.report) ? 1 : report_saved(&o);

		filter_free(&o.filter);
		return st;
	}
	if (o.recorder)
		return recorder_start(o.ra.debugfs, o.ra.subbuf_size, o.ra.n_subbufs,
				      o.global, o.ra.replace) ? 1 : 0;
	if (o.snapshot)
		return snapshot_take(o.ra.debugfs, o.ra.out, o.force,
				     o.ra.quiet) ? 1 : 0;
	if (o.recorder_cmd == OPT_STATUS)
		return recorder_status(o.ra.debugfs) ? 1 : 0;
	if (o.recorder_cmd == OPT_THAW)
		return recorder_thaw(o.ra.debugfs) ? 1 : 0;
	if (o.recorder_cmd == OPT_STOP)
		return recorder_stop(o.ra.debugfs) ? 1 : 0;
	return collect(&o);
}
