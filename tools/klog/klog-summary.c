// SPDX-License-Identifier: GPL-2.0
/*
 * klog-summary.c - the end-of-run summary of a klog collection, the
 * status line while it runs, and sizes as they print (size_text(): 1.5M,
 * or bytes with --bytes)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "klog-app.h"

char *size_text(char *buf, size_t size, __u64 bytes, bool exact)
{
	static const char units[] = "KMGTPE";
	__u64 unit = 1024;
	double v;
	int u = 0;

	if (exact || bytes < 1024) {
		snprintf(buf, size, "%llu%s", (unsigned long long)bytes,
			 exact ? "" : "B");
		return buf;
	}
	while (u < 5 && bytes / unit >= 1024) {
		unit <<= 10;
		u++;
	}
	if (!(bytes % unit)) {
		snprintf(buf, size, "%llu%c", (unsigned long long)(bytes / unit),
			 units[u]);
		return buf;
	}
	v = (double)bytes / unit;
	if (v >= 1023.95 && u < 5) {	/* would print as 1024.0 */
		unit <<= 10;
		u++;
		v = (double)bytes / unit;
	}
	snprintf(buf, size, "%.1f%c", v, units[u]);
	return buf;
}

/* "12.3 s", or from a minute on "1:02:03" */
static void elapsed_text(char *buf, size_t size, __u64 ns)
{
	unsigned long long s = ns / NSEC;

	if (s < 60)
		snprintf(buf, size, "%.1f s", ns / 1e9);
	else
		snprintf(buf, size, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60,
			 s % 60);
}

void status_text(char *buf, size_t size, const struct status_nums *s,
		 bool exact)
{
	char el[32], max[80] = "", sz[SIZE_TEXT_MAX], rate[SIZE_TEXT_MAX];
	char lim[SIZE_TEXT_MAX];
	const char *unit = exact ? " bytes" : "";

	elapsed_text(el, sizeof(el), s->ns);
	if (s->max_size)
		snprintf(max, sizeof(max), ", %llu%% of --max-size %s",
			 (unsigned long long)(s->saved >= s->max_size ? 100 :
					      s->saved * 100 / s->max_size),
			 size_text(lim, sizeof(lim), s->max_size, exact));
	snprintf(buf, size,
		 "%s: %llu records (%.0f/s), %s%s saved (%s%s/s%s), %llu dropped",
		 el, (unsigned long long)s->records, s->records_rate,
		 size_text(sz, sizeof(sz), s->saved, exact), unit,
		 size_text(rate, sizeof(rate), (__u64)(s->saved_rate + 0.5),
			   exact), unit, max,
		 (unsigned long long)s->dropped);
}

void status_show(struct klog *kl, __u64 now)
{
	struct status_nums s = { .ns = now - kl->t_start,
				 .max_size = kl->o.max_size };
	double dt = (now - kl->last_status) / 1e9;
	struct winsize ws;
	char body[256];
	int i, w = sizeof(body);

	for (i = 0; i < kl->ra->ncpus; i++)
		s.records += __atomic_load_n(&kl->k[i].records,
					     __ATOMIC_RELAXED);
	s.saved = __atomic_load_n(&kl->written, __ATOMIC_RELAXED);
	if (ra_ctl_read_u64(kl->o.ra.debugfs, "dropped", &s.dropped)) {
		kl->status = false;
		return;
	}
	s.records_rate = (s.records - kl->st_records) / dt;
	s.saved_rate = (s.saved - kl->st_bytes) / dt;
	status_text(body, sizeof(body), &s, kl->o.bytes);
	if (kl->status_lines) {
		fprintf(stderr, "%s: %s\n", program_invocation_short_name,
			body);
	} else {
		/* one row: a line that wraps is not redrawn in place */
		if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1)
			w = ws.ws_col - 1;
		fprintf(stderr, "\r\033[K%.*s", w, body);
	}
	kl->st_records = s.records;
	kl->st_bytes = s.saved;
	kl->last_status = now;
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
int summary(struct klog *kl, enum ra_stop_why why, double secs)
{
	struct relay_app *ra = kl->ra;
	__u64 tot[RA_NCAUSES] = { 0 }, records = 0, bytes = 0, lost = 0;
	__u64 dropped = 0, unsaved = 0;
	struct ra_stats_cpu *st = NULL;
	bool exact = kl->o.bytes;
	char sz[SIZE_TEXT_MAX];
	int nst, i, j, err = 0;

	nst = ra_stats_read(kl->o.ra.debugfs, &st);
	if (nst < 0 || ra_ctl_read_u64(kl->o.ra.debugfs, "dropped", &dropped)) {
		ra_err("cannot check the records against the kernel's counters");
		nst = 0;
		err = -1;
	}
	for (i = 0; i < nst; i++)
		ra_causes_add(tot, &st[i]);
	if (!kl->o.ra.quiet) {
		fprintf(stderr,
			"%s: stopped (%s) after %.1f s; %s mode, %zu x %s%s sub-buffers %s\n",
			program_invocation_short_name,
			why == RA_STOP_TICK ? (kl->size_reached ?
					       "--max-size reached" :
					       "standard output closed") :
			ra_stop_reason(why, ra->stop_signal), secs,
			kl->o.ra.mode == RA_MODE_MMAP ? "mmap" : "read",
			ra->n_subbufs,
			size_text(sz, sizeof(sz), ra->subbuf_size, exact),
			exact ? "-byte" : "",
			kl->o.global ? "in one global buffer" : "per CPU");
		fprintf(stderr, "%-6s %12s %14s %8s", "", "records", "bytes",
			"lost");
		for (j = 0; j < RA_NCAUSES; j++)
			fprintf(stderr, " %8s", ra_causes[j].column);
		fprintf(stderr, " %8s\n", "backlog");
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
		if (kl->o.ra.quiet)
			continue;
		fprintf(stderr, "cpu%-3d %12llu %14s %8llu", c->cpu,
			(unsigned long long)ks->records,
			size_text(sz, sizeof(sz), c->bytes, exact),
			(unsigned long long)ks_lost(ks));
		for (j = 0; j < RA_NCAUSES; j++)
			fprintf(stderr, " %8llu",
				(unsigned long long)ra_stat(s, ra_causes[j].key));
		fprintf(stderr, " %8llu\n", (unsigned long long)backlog);
	}
	if (!kl->o.ra.quiet) {
		fprintf(stderr, "%-6s %12llu %14s %8llu", "total",
			(unsigned long long)records,
			size_text(sz, sizeof(sz), bytes, exact),
			(unsigned long long)lost);
		for (j = 0; j < RA_NCAUSES; j++)
			fprintf(stderr, " %8llu", (unsigned long long)tot[j]);
		fprintf(stderr, "\n");
	}

	/* problems: printed even with -q */
	for (i = 0; i < ra->ncpus; i++) {
		const struct ks_stream *ks = &kl->k[i].ks;
		const struct ra_cpu *c = &ra->cpus[i];
		const struct ra_stats_cpu *s = ra_stats_find(st, nst, c->cpu);
		__u64 kdrop = 0;

		for (j = 0; j < RA_NCAUSES; j++)
			kdrop += ra_stat(s, ra_causes[j].key);
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
				if (kl->k[i].dup_subbufs && !kl->o.ra.quiet)
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
		if (kl->k[i].unsaved)
			ra_err("cpu%d: %llu records (%llu bytes) read after the collection reached --max-size %llu were not saved",
			       c->cpu,
			       (unsigned long long)(ks->records - kl->k[i].unsaved_from),
			       (unsigned long long)kl->k[i].unsaved_bytes,
			       (unsigned long long)kl->o.max_size);
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
	ra_causes_report(tot, kl->o.ra.debugfs);
	free(st);
	return err;
}
