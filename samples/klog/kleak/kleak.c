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
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../../tools/lib/klog/klog-stream.h"
#include "kleak-app.h"

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
		"  -t, --duration SECONDS   stop after SECONDS, 1e-9 to 1e9 (default: at\n"
		"                           Ctrl-C or SIGTERM)\n"
		"  -b, --subbuf-size BYTES  klog sub-buffer size, 1k to 64M, a multiple of 8\n"
		"                           (k, M, G suffixes; default "
		STR(KLEAK_SUBBUF_SIZE) ")\n"
		"  -n, --n-subbufs N        klog sub-buffers per CPU, 2 to 65536 (default "
		STR(KLEAK_N_SUBBUFS) ")\n"
		"  -m, --mode read|mmap     read(2) the buffers (default) or mmap(2) them\n"
		"  -r, --report DIR         report on a capture saved in DIR\n"
		"  -N, --top N              rows per table, 0 or more (default "
		STR(KLEAK_TOP) "; 0: all)\n"
		"  -x, --replace            destroy a klog channel that exists (a flight\n"
		"                           recorder, or one a killed collector left) once the\n"
		"                           new settings are accepted; without -x kleak refuses\n"
		"  -d, --debugfs DIR        klog's control directory, as for klog (default\n"
		"                           " KLOG_DEBUGFS "); kleak-mod's is beside it\n"
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
		{ "report",		required_argument, NULL, 'r' },
		{ "top",		required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	char collect_opt = 0;
	int c;

	*o = (struct opts) { .top = KLEAK_TOP };
	ra_opts_init(&o->ra, KLEAK_SUBBUF_SIZE, KLEAK_N_SUBBUFS, RA_MODE_READ,
		     KLOG_DEBUGFS, print_help);
	while ((c = ra_getopt(argc, argv, "F:r:N:", longopts, &o->ra)) != -1) {
		switch (c) {
		case 'F':
			o->filter = optarg;
			break;
		case 'r':
			o->report = optarg;
			break;
		case 'N':
			o->top = parse_count("-N/--top", optarg, NULL, 0, LONG_MAX,
					     "a number >= 0");
			break;
		default:	/* a common option: in o->ra already */
			break;
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

/* Reader thread: save the bytes, check them. */
static int sink(struct ra_cpu *c, const void *data, size_t len, void *arg)
{
	struct kcpu *k = c->priv;

	(void)arg;
	if (ra_write_full(k->out_fd, data, len)) {
		ra_err("%s: write: %s", k->out_path, strerror(errno));
		return -1;
	}
	if (!k->ks.failed && ks_feed(&k->ks, data, len, NULL, NULL))
		ra_err("%s; the raw stream is still saved, but not checked any more",
		       k->ks.error);
	return 0;
}

/* Open DIR/cpuN for every buffer; remove cpuN files of other CPUs. */
static int open_outputs(struct collect *cl)
{
	int i;

	if (ra_remove_stale(cl->o->ra.out, cl->ra, false))
		return -1;
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
	struct relay_app *ra = cl->ra;
	struct ra_stats_cpu *st = NULL;
	__u64 tot[RA_NCAUSES] = { 0 };
	char causes[RA_NCAUSES * 32] = "";
	int nst, i, err = 0;
	size_t len = 0;

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

		ra_causes_add(tot, RA_NCAUSES, s);
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
	for (i = 0; i < RA_NCAUSES && len < sizeof(causes); i++)
		len += snprintf(causes + len, sizeof(causes) - len, "%s%s %llu",
				i ? ", " : "", ra_causes[i].key,
				(unsigned long long)tot[i]);
	if (in->klog_dropped)
		ra_err("*** klog dropped %llu records (%s)%s ***",
		       (unsigned long long)in->klog_dropped, causes,
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
		.subbuf_size	= o->ra.subbuf_size,
		.n_subbufs	= o->ra.n_subbufs,
		.mode		= o->ra.mode,
		.poll_ms	= KLEAK_TICK_MS,
		.sink		= sink,
		.subbuf_used	= ra_klog_subbuf_used,
		.replace	= o->ra.replace,
	};
	enum ra_stop_why why = RA_STOP_ERROR;
	struct info in = { 0 };
	char syms[PATH_MAX];
	struct relay_app *ra = NULL;
	char until[PATH_MAX];
	__u64 t0;
	int i, err = 0, cmd_status;

	/* -d is klog's control directory; kleak-mod's sits beside it */
	snprintf(cl.klog_dir, sizeof(cl.klog_dir), "%s", o->ra.debugfs);
	snprintf(syms, sizeof(syms), "%s", o->ra.debugfs);
	snprintf(cl.kleak_dir, sizeof(cl.kleak_dir), "%s/kleak", dirname(syms));
	snprintf(syms, sizeof(syms), "%s/%s", o->ra.out, SYMS_FILE);
	if (access(cl.kleak_dir, F_OK)) {
		ra_err("%s: %s (is kleak-mod loaded? -d names klog's control directory, %s)",
		       cl.kleak_dir, strerror(errno), KLOG_DEBUGFS);
		return 1;
	}
	if (ra_out_dir(o->ra.out))
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
	    save_kallsyms(syms, false, o->ra.quiet)) {
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
		snprintf(k->out_path, sizeof(k->out_path), "%s/cpu%d", o->ra.out,
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
	ra_until_text(o->cmd, o->ra.duration, until, sizeof(until));
	if (ra_recording(ra, o->cmd,
			 "allocations on %d CPUs into %s/cpu* %s (filter: %s)",
			 ra->ncpus, o->ra.out, until, in.filter)) {
		err = ra_command_status(ra) > 0 ? ra_command_status(ra) : 1;
		goto out;
	}
	why = ra_wait(ra, o->ra.duration, KLEAK_TICK_MS, NULL, NULL);
	if (why == RA_STOP_ERROR)
		err = 1;
	in.duration = (ra_now_ns() - t0) / 1e9;
	if (kleak_stop(&cl, &in))
		err = 1;
	if (ra_stop(ra))
		err = 1;
	for (i = 0; i < ra->ncpus; i++) {
		struct kcpu *k = &cl.k[i];

		if (!k->ks.failed && ks_finish(&k->ks, NULL, NULL))
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
	if (save_kallsyms(syms, true, o->ra.quiet) ||
	    info_write(o->ra.out, &in, ra->subbuf_size, ra->n_subbufs))
		err = 1;
	if (!o->ra.quiet)
		ra_err("stopped (%s) after %.1f s; %llu events numbered by kleak-mod",
		       ra_stop_reason(why, ra->stop_signal), in.duration,
		       (unsigned long long)in.seq);
out:
	if (cl.enabled)
		ra_ctl_write(cl.kleak_dir, "enabled", "0");
	ra_halt(ra);	/* no reader may write to what is closed below */
	for (i = 0; cl.k && i < ra->ncpus; i++) {
		if (cl.k[i].out_fd >= 0)
			close(cl.k[i].out_fd);
		ks_release(&cl.k[i].ks);
	}
	cmd_status = ra_close_status(ra, err);	/* create=0 */
	free(cl.k);
	if (err)
		return err;
	err = make_report(o, o->ra.out);
	return err ? err : cmd_status;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	if (o.report)
		return make_report(&o, o.report);
	return collect(&o);
}
