// SPDX-License-Identifier: GPL-2.0
/*
 * reserve.c - collect reserve-mod's channel, taking only committed bytes
 *
 * DOC: overview
 *
 * The user half of the relay-apps "reserve" pair. reserve-mod writes
 * records in place with relay_reserve() and counts, in each sub-buffer's
 * header, the bytes reserved and the bytes committed (completely
 * written); a produced sub-buffer may still have records being written
 * (reserve-format.h). relay_app sets up the channel in
 * /sys/kernel/debug/reserve and runs one pinned reader per CPU:
 *
 *  - mmap mode (default): for each produced sub-buffer the subbuf_used()
 *    callback loads the commit count (acquire) and compares it with the
 *    reserved count. While they differ it polls (sleeps 100 us, loads
 *    again); only then does it hand the header and the reserved bytes to
 *    the sink, and only then does relay_app write cpuN.consumed, so a
 *    partly committed sub-buffer is never consumed and never reused under
 *    a writer. Each wait is counted and timed, and the first ones are
 *    reported ("waited for").
 *  - read mode (-m read): the kernel does the same check in read(2) and
 *    returns nothing until the next sub-buffer is complete; it counts
 *    those waits itself (stats "incomplete").
 *
 * Every byte a reader takes goes unchanged to DIR/cpuN and through a
 * checker: each record's size, CPU, context, checksum and payload, and
 * its sequence number, which must grow (a gap is a record dropped in the
 * kernel; going back means a stale or torn record). At the end (SIGINT,
 * SIGTERM, -t) relay_app writes enabled=0, which returns once no writer
 * is between reserve and commit, flushes, and drains every CPU; the
 * summary then checks the records against the kernel's counters:
 * delivered + dropped == offered on every CPU.
 *
 * Exit status: 0 success (drops are reported, not failures), 1 runtime
 * error or a failed check (a torn record, a count mismatch), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reserve-app.h"

/* ---- Options --------------------------------------------------------- */

static void print_help(FILE *f)
{
	static const char help[] =
		"Usage: reserve [-b BYTES] [-n N] [-m mmap|read] [-o DIR] [-t SECONDS] [-w SECONDS] [-x] [-q]\n"
		"               [[--] COMMAND [ARGS...]]\n"
		"\n"
		"Collect the records reserve-mod writes in place with relay_reserve() into\n"
		"DIR/cpu0 .. DIR/cpuN-1, taking a sub-buffer only once every byte reserved in\n"
		"it has been committed, and check every record. Needs root and reserve-mod.\n"
		"Traffic comes from the module on request, e.g.:\n"
		"  echo 'count=10000 size=64 ctx=task,hardirq delay_us=2000 delay_every=100' \\\n"
		"       > " RESERVE_DEBUGFS "/emit\n"
		"\n"
		"Once it is recording, reserve prints \"reserve: recording ...\" on stderr (also\n"
		"with -q): traffic after that line is collected. Given a COMMAND, reserve runs\n"
		"it at that point and stops when it exits (or at -t, Ctrl-C or SIGTERM, which it\n"
		"passes on to the COMMAND); the exit status is then the COMMAND's.\n"
		"\n"
		"  -b, --subbuf-size BYTES  sub-buffer size, 1k to 64M, a multiple of 8 (k, M,\n"
		"                           G suffixes; default " STR(RESERVE_SUBBUF_SIZE) ")\n"
		"  -n, --n-subbufs N        sub-buffers per CPU, 2 to 65536 (default "
		STR(RESERVE_N_SUBBUFS) ")\n"
		"  -m, --mode mmap|read     mmap(2) the buffers and wait for commit counts here\n"
		"                           (default), or read(2): the kernel waits\n"
		"  -o, --output DIR         write DIR/cpuN, each CPU's stream (default .)\n"
		"  -t, --duration SECONDS   stop after SECONDS, 1e-9 to 1e9 (default: at\n"
		"                           Ctrl-C or SIGTERM)\n"
		"  -w, --warn-after SECONDS say so when a sub-buffer is still not committed\n"
		"                           after SECONDS, 1e-9 to 1e9 (default 5); it keeps\n"
		"                           waiting\n"
		"  -x, --replace            destroy a channel that exists (one a killed\n"
		"                           collector left) once the new settings are accepted;\n"
		"                           without -x reserve refuses\n"
		"  -d, --debugfs DIR        control directory (default " RESERVE_DEBUGFS ")\n"
		"  -q, --quiet              no table and no wait reports; problems (and the\n"
		"                           recording line) are still shown\n"
		"  -h, --help               this text\n"
		"\n"
		"Example: collect while the module writes 5000 records of 64 bytes from each\n"
		"CPU in task and in hardirq context (they fit in 1 MiB even if the reader\n"
		"stalls):\n"
		"  reserve -b 64k -n 16 -o /tmp/res -- \\\n"
		"          sh -c \"echo 'count=5000 size=64 ctx=task,hardirq' \\\n"
		"                > " RESERVE_DEBUGFS "/emit\"\n"
		"\n"
		"Exit status: 0 success, even if records were dropped (the summary says how\n"
		"many); 1 runtime error, or a record failed its check, or the records do not\n"
		"add up with the kernel's counters; 2 usage error. With a COMMAND: the\n"
		"COMMAND's exit status (128+N if signal N killed it, 127 if it was not found)\n"
		"unless reserve itself failed.\n";

	fputs(help, f);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "warn-after",		required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*o = (struct opts) { .warn_after = 5 };
	ra_opts_init(&o->ra, RESERVE_SUBBUF_SIZE, RESERVE_N_SUBBUFS,
		     RA_MODE_MMAP, RESERVE_DEBUGFS, print_help);
	while ((c = ra_getopt(argc, argv, "w:", longopts, &o->ra)) != -1) {
		switch (c) {
		case 'w':
			o->warn_after = parse_seconds("-w/--warn-after", optarg);
			break;
		default:	/* a common option: in o->ra already */
			break;
		}
	}
	if (o->ra.subbuf_size % RESERVE_REC_ALIGN)
		usage_error("-b/--subbuf-size: %zu is not a multiple of %d",
			    o->ra.subbuf_size, RESERVE_REC_ALIGN);
	o->cmd = ra_command_arg(argc, argv);
}

/* ---- Collection ------------------------------------------------------ */

static int open_outputs(struct reserve *rs)
{
	int i;

	for (i = 0; i < rs->ra->ncpus; i++) {
		struct rcpu *r = &rs->r[i];

		r->out_fd = ra_out_open(r->out_path,
					O_WRONLY | O_CREAT | O_TRUNC);
		if (r->out_fd < 0)
			return -1;
	}
	return 0;
}

/*
 * The end-of-run report: a table unless -q, then every problem. Returns
 * -1 if a record failed its check or the counts do not add up.
 */
static int summary(struct reserve *rs, enum ra_stop_why why, double secs)
{
	struct relay_app *ra = rs->ra;
	struct ra_stats_cpu *st = NULL;
	__u64 tot[RA_NCAUSES_RESERVE] = { 0 }, t_rec = 0, t_bytes = 0, t_lost = 0;
	__u64 t_sb = 0, t_wait = 0, t_nested = 0, t_delayed = 0, t_bad = 0;
	__u64 max_wait = 0, wait_ns = 0;
	int nst, i, err = 0;
	bool mmap_mode = rs->o.ra.mode == RA_MODE_MMAP;

	nst = ra_stats_read(rs->o.ra.debugfs, &st);
	if (nst < 0) {
		ra_err("cannot check the records against the kernel's counters");
		nst = 0;
		err = -1;
	}
	if (!rs->o.ra.quiet) {
		fprintf(stderr,
			"%s: stopped (%s) after %.1f s; %s mode, %zu x %zu-byte sub-buffers per CPU\n",
			program_invocation_short_name,
			ra_stop_reason(why, ra->stop_signal), secs,
			mmap_mode ? "mmap" : "read", ra->n_subbufs,
			ra->subbuf_size);
		fprintf(stderr, "%-6s %10s %12s %7s %7s %5s %8s %7s %9s %7s %7s %5s\n",
			"", "records", "bytes", "lost", "full", "big",
			"subbufs", "waited", "wait_max", "nested", "delayed",
			"bad");
	}
	for (i = 0; i < ra->ncpus; i++) {
		const struct ra_cpu *c = &ra->cpus[i];
		const struct rcpu *r = &rs->r[i];
		const struct ra_stats_cpu *s = ra_stats_find(st, nst, c->cpu);
		__u64 waited = mmap_mode ? r->waited : ra_stat(s, "incomplete");

		t_rec += r->records;
		t_bytes += c->bytes;
		t_lost += r->gaps;
		ra_causes_add(tot, RA_NCAUSES_RESERVE, s);
		t_sb += r->subbufs;
		t_wait += waited;
		t_nested += r->nested;
		t_delayed += r->delayed;
		t_bad += r->bad + c->bad_subbufs;
		wait_ns += r->wait_ns;
		if (r->max_wait_ns > max_wait)
			max_wait = r->max_wait_ns;
		if (!rs->o.ra.quiet)
			fprintf(stderr,
				"cpu%-3d %10llu %12llu %7llu %7llu %5llu %8llu %7llu %9.3f %7llu %7llu %5llu\n",
				c->cpu, (unsigned long long)r->records,
				(unsigned long long)c->bytes,
				(unsigned long long)r->gaps,
				(unsigned long long)ra_stat(s, "full"),
				(unsigned long long)ra_stat(s, "big"),
				(unsigned long long)r->subbufs,
				(unsigned long long)waited,
				r->max_wait_ns / 1e6,
				(unsigned long long)r->nested,
				(unsigned long long)r->delayed,
				(unsigned long long)(r->bad + c->bad_subbufs));
	}
	if (!rs->o.ra.quiet)
		fprintf(stderr,
			"%-6s %10llu %12llu %7llu %7llu %5llu %8llu %7llu %9.3f %7llu %7llu %5llu\n",
			"total", (unsigned long long)t_rec,
			(unsigned long long)t_bytes, (unsigned long long)t_lost,
			(unsigned long long)tot[0], (unsigned long long)tot[1],
			(unsigned long long)t_sb, (unsigned long long)t_wait,
			max_wait / 1e6, (unsigned long long)t_nested,
			(unsigned long long)t_delayed,
			(unsigned long long)t_bad);

	/* problems: printed even with -q */
	for (i = 0; i < ra->ncpus; i++) {
		const struct ra_cpu *c = &ra->cpus[i];
		struct rcpu *r = &rs->r[i];
		const struct ra_stats_cpu *s = ra_stats_find(st, nst, c->cpu);
		__u64 drops = ra_stat(s, "full") + ra_stat(s, "big");

		if (r->items.carry.len && !r->failed)
			rcpu_bad(r, r->off, "%zu bytes of a cut item at the end",
				 r->items.carry.len);
		if (r->bad || c->bad_subbufs) {
			ra_err("cpu%d: %llu records failed their check and %llu sub-buffers were skipped",
			       c->cpu, (unsigned long long)r->bad,
			       (unsigned long long)c->bad_subbufs);
			err = -1;
		}
		if (!s) {
			ra_err("cpu%d: no line in %s/stats", c->cpu,
			       rs->o.ra.debugfs);
			err = -1;
			continue;
		}
		if (ra_stat(s, "records") != r->records) {
			ra_err("cpu%d: the kernel reserved %llu records but %s holds %llu",
			       c->cpu, (unsigned long long)ra_stat(s, "records"),
			       r->out_path, (unsigned long long)r->records);
			err = -1;
		}
		if (r->records + drops != ra_stat(s, "offered")) {
			ra_err("cpu%d: %llu records delivered + %llu dropped != %llu offered",
			       c->cpu, (unsigned long long)r->records,
			       (unsigned long long)drops,
			       (unsigned long long)ra_stat(s, "offered"));
			err = -1;
		}
		if (r->gaps > drops || r->hdr_lost > drops) {
			ra_err("cpu%d: the stream misses %llu records (headers say %llu) but the kernel dropped %llu",
			       c->cpu, (unsigned long long)r->gaps,
			       (unsigned long long)r->hdr_lost,
			       (unsigned long long)drops);
			err = -1;
		}
		if (r->subbuf_gaps) {
			ra_err("cpu%d: %llu sub-buffers missing from the stream",
			       c->cpu, (unsigned long long)r->subbuf_gaps);
			err = -1;
		}
	}
	if (t_wait)
		ra_err("waited for %llu sub-buffers produced before all their records were committed%s",
		       (unsigned long long)t_wait,
		       mmap_mode ? "" : " (read(2) in the kernel)");
	if (mmap_mode && t_wait && !rs->o.ra.quiet)
		fprintf(stderr, "%s: waited %.3f ms at most, %.3f ms in all\n",
			program_invocation_short_name, max_wait / 1e6,
			wait_ns / 1e6);
	ra_causes_report(tot, RA_NCAUSES_RESERVE, rs->o.ra.debugfs);
	free(st);
	return err;
}

static int collect(const struct opts *o)
{
	struct reserve rs = { .o = *o };
	struct ra_config cfg = {
		.dir		= o->ra.debugfs,
		.subbuf_size	= o->ra.subbuf_size,
		.n_subbufs	= o->ra.n_subbufs,
		.mode		= o->ra.mode,
		.poll_ms	= RESERVE_TICK_MS,
		.sink		= reserve_sink,
		.subbuf_used	= reserve_subbuf_used,
		.arg		= &rs,
		.replace	= o->ra.replace,
	};
	enum ra_stop_why why;
	struct relay_app *ra;
	char until[PATH_MAX];
	__u64 t_start;
	int i, err = 0;

	if (ra_out_dir(o->ra.out))
		return 1;
	ra = ra_open(&cfg);
	rs.ra = ra;
	if (!ra)
		return 1;
	rs.r = calloc(ra->ncpus, sizeof(*rs.r));
	if (!rs.r) {
		ra_err("out of memory");
		err = 1;
		goto out;
	}
	for (i = 0; i < ra->ncpus; i++) {
		struct rcpu *r = &rs.r[i];

		r->cpu = ra->cpus[i].cpu;
		r->subbuf_size = ra->subbuf_size;
		r->out_fd = -1;
		snprintf(r->out_path, sizeof(r->out_path), "%s/cpu%d", o->ra.out,
			 r->cpu);
		ra->cpus[i].priv = r;
	}
	if (open_outputs(&rs)) {
		err = 1;
		goto out;
	}
	t_start = ra_now_ns();
	if (ra_start(ra)) {
		err = 1;
		goto out;
	}
	ra_until_text(o->cmd, o->ra.duration, until, sizeof(until));
	if (ra_recording(ra, o->cmd, "%d CPUs into %s/cpu* %s", ra->ncpus,
			 o->ra.out, until)) {
		err = ra_command_status(ra) > 0 ? ra_command_status(ra) : 1;
		goto out;
	}
	why = ra_wait(ra, o->ra.duration, RESERVE_TICK_MS, NULL, NULL);
	if (why == RA_STOP_ERROR)
		err = 1;
	if (ra_stop(ra))
		err = 1;
	for (i = 0; i < ra->ncpus; i++) {
		if (close(rs.r[i].out_fd)) {
			ra_err("%s: close: %s", rs.r[i].out_path,
			       strerror(errno));
			err = 1;
		}
		rs.r[i].out_fd = -1;
	}
	if (summary(&rs, why, (ra_now_ns() - t_start) / 1e9))
		err = 1;
out:
	ra_halt(ra);	/* no reader may write to what is closed below */
	for (i = 0; rs.r && i < ra->ncpus; i++) {
		if (rs.r[i].out_fd >= 0)
			close(rs.r[i].out_fd);
		ks_items_free(&rs.r[i].items);
	}
	err = ra_close_status(ra, err);		/* create=0 */
	free(rs.r);
	return err;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	return collect(&o);
}
