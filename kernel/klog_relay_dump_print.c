// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: what the dump on oops and panic prints
 *
 * Each record one line, exactly as ``klog -r`` prints it
 * (klog_dump_format(), the one place that knows the line format, cut at
 * printk's limit); the newest N records of the merge, oldest first, in
 * two passes over the cursors (count, then print), within the dump's time
 * limit (klog_dump_records()); after the stats lines, what each CPU's NMI
 * staging area still holds (klog_dump_staged_summary()).
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/math64.h>
#include <linux/nmi.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include "klog_relay_dump.h"

/* ---- lines --------------------------------------------------------------- */

/* klog -r cuts nothing; printk does at about 1 KiB: a longer line ends so. */
#define KLOG_DUMP_CUT	" [cut]"

struct klog_dump_line {
	char	*p;
	size_t	len, size;
	bool	cut;
};

static __printf(2, 3) void klog_dump_printf(struct klog_dump_line *l,
					    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->cut)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->p + l->len, l->size - l->len, fmt, ap);
	va_end(ap);
	if (n >= l->size - l->len) {
		l->cut = true;
		l->len = l->size - 1;
	} else {
		l->len += n;
	}
}

/*
 * Printable ASCII as is; \\ \n \t \r; anything else \xHH (klog -r's);
 * with @sp a space too (\x20: a task name is one field).
 */
static void klog_dump_escape(struct klog_dump_line *l, const u8 *p, size_t n,
			     bool sp)
{
	size_t i;

	for (i = 0; i < n && !l->cut; i++) {
		u8 c = p[i];

		if (sp && c == ' ')
			klog_dump_printf(l, "\\x20");
		else if (c == '\\' || c == '\n' || c == '\t' || c == '\r')
			klog_dump_printf(l, "\\%c", c == '\\' ? '\\' :
					 c == '\n' ? 'n' : c == '\t' ? 't' :
					 'r');
		else if (c >= 0x20 && c < 0x7f)
			klog_dump_printf(l, "%c", c);
		else
			klog_dump_printf(l, "\\x%02x", c);
	}
}

/*
 * An argument record as klog -r prints it: formatted with its site's
 * format (klog_args_format()); "(binary arguments)" after the line's
 * "site#N: " when no site has its id (forgotten).
 */
static void klog_dump_args(struct klog_dump_line *l,
			   const struct klog_rec_hdr *r, const u8 *payload)
{
	static char text[KLOG_TEXT_MAX];
	const char *fmt = klog_site_fmt(r->site_id);
	int n = fmt ? klog_args_format(text, sizeof(text), fmt, payload,
				       r->len) : -EINVAL;
	bool cut;

	if (n < 0) {
		/* the site id is the line's "site#N: " */
		klog_dump_printf(l, "(binary arguments)");
		return;
	}
	cut = n > KLOG_TEXT_MAX - 1;	/* cut when read, as klog -r says */
	n = min(n, KLOG_TEXT_MAX - 1);
	if (n && text[n - 1] == '\n')
		n--;
	klog_dump_escape(l, (const u8 *)text, n, false);
	if (cut)
		klog_dump_printf(l, " [truncated]");
}

/**
 * klog_dump_format() - one record as ``klog -r`` prints it
 * @l: the line, filled from the start (no newline)
 * @r: the record header (version 2 stream)
 * @comm: the task name of @r->pid (a COMM record before it in its
 *	sub-buffer), or NULL
 * @func: the function of the site @r->site_id, or NULL if not known
 * @line: the site's source line (with @func)
 * @payload: @r->len bytes
 * @staged: @r is still in an NMI staging area (it has no seq yet)
 *
 * The one place that knows the line format: ``[SEC.NSEC] cpuN
 * [COMM-]PID CTX FUNC:LINE: TEXT`` (``site#ID:`` for FUNC:LINE when the
 * site is not known) with klog -r's escapes, raw payloads as up to 64
 * bytes of hex, and `` [truncated]``, `` [trigger]`` for the flags; a
 * staged record ends in `` [staged]`` (the line ``klog -r`` shows once it
 * is moved into a buffer, and that mark).
 */
static void klog_dump_format(struct klog_dump_line *l,
			     const struct klog_rec_hdr *r, const char *comm,
			     const char *func, unsigned int line,
			     const u8 *payload, bool staged)
{
	static const char * const ctx[] = {
		[KLOG_RELAY_CTX_TASK]		= "task",
		[KLOG_RELAY_CTX_SOFTIRQ]	= "softirq",
		[KLOG_RELAY_CTX_HARDIRQ]	= "hardirq",
		[KLOG_RELAY_CTX_NMI]		= "nmi",
	};
	u64 sec = r->ts_ns;
	u32 nsec = do_div(sec, NSEC_PER_SEC);
	size_t n = r->len, i;

	l->len = 0;
	l->cut = false;
	klog_dump_printf(l, "[%llu.%09u] cpu%u ", sec, nsec, r->cpu);
	if (comm) {
		klog_dump_escape(l, (const u8 *)comm, strlen(comm), true);
		klog_dump_printf(l, "-");
	}
	klog_dump_printf(l, "%u ", r->pid);
	if (r->ctx < ARRAY_SIZE(ctx))
		klog_dump_printf(l, "%s ", ctx[r->ctx]);
	else
		klog_dump_printf(l, "ctx%u ", r->ctx);
	if (func) {
		klog_dump_escape(l, (const u8 *)func, strlen(func), false);
		klog_dump_printf(l, ":%u: ", line);
	} else {
		klog_dump_printf(l, "site#%u: ", r->site_id);
	}
	if (r->kind == KLOG_RELAY_TEXT) {
		if (n && payload[n - 1] == '\n')
			n--;
		klog_dump_escape(l, payload, n, false);
	} else if (r->kind == KLOG_RELAY_ARGS) {
		klog_dump_args(l, r, payload);
	} else {
		if (r->kind == KLOG_RELAY_RAW)
			klog_dump_printf(l, "raw %u bytes:", r->len);
		else
			klog_dump_printf(l, "kind%u %u bytes:", r->kind, r->len);
		for (i = 0; i < n && i < 64; i++)
			klog_dump_printf(l, " %02x", payload[i]);
		if (n > 64)
			klog_dump_printf(l, " ...");
	}
	if (r->flags & KLOG_RELAY_TRUNCATED)
		klog_dump_printf(l, " [truncated]");
	if (r->flags & KLOG_RELAY_TRIGGER)
		klog_dump_printf(l, " [trigger]");
	if (staged)
		klog_dump_printf(l, " [staged]");
	if (l->cut)
		strscpy(l->p + l->size - sizeof(KLOG_DUMP_CUT), KLOG_DUMP_CUT,
			sizeof(KLOG_DUMP_CUT));
}

char klog_dump_text[960];

static void klog_dump_print(const struct klog_rec_hdr *r, const u8 *payload,
			    const char *comm, bool staged)
{
	struct klog_dump_line l = {
		.p = klog_dump_text, .size = sizeof(klog_dump_text),
	};
	const char *func = NULL;
	unsigned int line = 0;

	if (!klog_site_func(r->site_id, &func, &line))
		func = NULL;
	klog_dump_format(&l, r, comm, func, line, payload, staged);
	pr_emerg("%s\n", l.p);
	touch_nmi_watchdog();
}

static void klog_dump_print_rec(struct klog_dump_buf *d, unsigned int cpu)
{
	const struct klog_rec_hdr *r = d->rec;

	/* a gap in this buffer's numbers, as klog -r shows it */
	if (d->have_prev && r->seq > d->prev_seq + 1) {
		u64 sec = r->ts_ns;
		u32 nsec = do_div(sec, NSEC_PER_SEC);

		pr_emerg("[%llu.%09u] cpu%u *** %llu records lost ***\n",
			 sec, nsec, cpu, r->seq - d->prev_seq - 1);
	}
	klog_dump_print(r, d->payload, d->comm_known && d->comm_pid == r->pid ?
			d->comm : NULL, false);
}

void klog_dump_records(const char *why, int only_cpu, u64 newest, u64 max_ns)
{
	struct klog_dump_clock t = { .start = local_clock(), .max_ns = max_ns };
	u64 total = 0, skip, shown, printed = 0;
	int c;

	if (!klog_dump_count(only_cpu, &t, &total)) {
		pr_emerg(KLOG_DUMP_PFX "dump on %s stopped after %llu ms, counting the records (%llu so far): none printed\n",
			 why, div_u64(t.ns, NSEC_PER_MSEC), total);
		return;
	}
	skip = newest < total ? total - newest : 0;
	shown = total - skip;
	pr_emerg(KLOG_DUMP_PFX "dump on %s: %llu of %llu records%s, oldest first\n", why,
		 shown, total, only_cpu < 0 ? "" : " of this CPU");
	/* Pass 2: the merge by time, printing all but the first @skip. */
	while ((c = klog_dump_oldest(only_cpu, &t)) != -1) {
		struct klog_dump_staged *s;

		if (c == KLOG_DUMP_LATE || klog_dump_late(&t, !skip)) {
			pr_emerg(KLOG_DUMP_PFX "dump stopped after %llu ms: %llu of %llu records printed%s\n",
				 div_u64(t.ns, NSEC_PER_MSEC), printed, shown,
				 skip ? " (it was passing over the older ones)" : "");
			break;
		}
		s = per_cpu_ptr(&klog_dump_staged, c / 2);
		if (skip)
			skip--;
		else if (printed++, c & KLOG_DUMP_STAGED)
			klog_dump_print(s->rec, s->payload, s->comm, true);
		else
			klog_dump_print_rec(per_cpu_ptr(&klog_dump_bufs, c / 2),
					    c / 2);
		klog_dump_advance(c);
	}
}

/*
 * After the stats: what is still staged on each CPU whose staging area
 * is not empty (its records, and drops counted only once moved), or why
 * it was not read.
 */
void klog_dump_staged_summary(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);
		const struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu,
							     cpu);
		int changed;

		if (!s->readable) {
			if (READ_ONCE(c->nmi_head) != READ_ONCE(c->nmi_tail))
				pr_emerg(KLOG_DUMP_PFX "cpu%u staging area busy (its buffer is), not read\n",
					 cpu);
			continue;
		}
		if (s->r.head == s->r.tail)
			continue;
		pr_emerg(KLOG_DUMP_PFX "cpu%u staged=%u frozen=%u big=%u\n",
			 cpu, s->r.records, s->r.frozen, s->r.big);
		if (s->r.bad)
			pr_emerg(KLOG_DUMP_PFX "cpu%u staging area: a malformed entry, the rest not read\n",
				 cpu);
		changed = klog_relay_nmi_read_changed(&s->r);
		if (changed == KLOG_RELAY_NMI_MOVED)
			pr_emerg(KLOG_DUMP_PFX "cpu%u staging area changed while read: its lines may be torn\n",
				 cpu);
		else if (changed == KLOG_RELAY_NMI_ADDED)
			pr_emerg(KLOG_DUMP_PFX "cpu%u staging area changed while read: records staged since are not shown\n",
				 cpu);
	}
}
