// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the records still in the buffers, printed on oops and panic
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog relay dump on oops
 *
 * Like ``ftrace_dump_on_oops``: with ``dump_on_oops`` set (module
 * parameter and control file), the first oops (die notifier, DIE_OOPS)
 * or panic (panic notifier) prints the newest records still in the
 * buffers (100 unless ``dump_on_oops`` names another number, at most
 * 100000, and for at most 10 s: the oops report must stay readable on
 * the console and in a ramoops record, which keeps only the tail; a dump
 * cut by time says so) to the console, merged by time, one line each in
 * the format of
 * ``klog -r``, between a ``klog-mod: dump on oops:`` (or ``on panic:``)
 * line and ``klog-mod: end of dump``; before that last line, the
 * buffers' ``stats`` lines and, if a klog_trigger() froze the recorder,
 * its ``trigger`` line, each prefixed with ``klog-mod:``.
 *
 * The stream is version 3: a record names its call site by id, which
 * the dump turns into ``function:line`` through the klog core's site
 * table (klog_site_func(), a lockless lookup), and a record whose task a
 * COMM record
 * named earlier in the same sub-buffer shows as ``comm-pid``, as in
 * ``klog -r``. COMM records are not records: they are not printed and
 * not counted (``newest N`` counts records only).
 *
 * It runs once: the oops that leads to a panic (``panic_on_oops``, an
 * oops in interrupt context) dumps at the oops, and the panic only says
 * so; a later oops dumps nothing until ``dump_on_oops`` is written again.
 * A crash inside the dump itself (on the dumping CPU) says so and ends
 * it, putting back what it had frozen and held.
 *
 * Crash context
 * ~~~~~~~~~~~~~
 *
 * A die notifier runs in NMI or hard-IRQ context (a fault there), or
 * with a runqueue or pi_lock held (an oops in the scheduler); a panic
 * notifier after the other CPUs were stopped. So nothing here sleeps,
 * allocates, or takes, tries or releases a sleeping lock (a
 * mutex_unlock() may wake a waiter: the scheduler's locks), on
 * PREEMPT_RT too. The dump state is static (one dump at a time); the
 * channel and the site table are read under RCU (the channel is freed
 * only a grace period after klog_relay_destroy() unpublished it, a
 * forgotten site table likewise, and a going module's sites a grace
 * period after its unload); the control files and collectors that hold
 * their locks meanwhile change nothing the dump relies on. Each buffer
 * is read only when no writer is in it:
 *
 * 1. The recorder is frozen first (klog_relay_freeze()), so records made
 *    from then on are counted as ``frozen``, not written, and the NMI
 *    staging areas are held (klog_relay_nmi_hold()): nothing moves their
 *    records into a buffer until the dump ends. After an oops the
 *    machine goes on: the hold ends, and the recorder is thawed again
 *    unless a trigger froze it meanwhile or it was frozen before.
 * 2. A per-CPU buffer is read once its CPU is outside the write path
 *    (in_write clear). At a panic the other CPUs are stopped already:
 *    one stopped inside the write path never leaves it, and its buffer
 *    is reported ``buffer N busy, not read``; at an oops they run on and
 *    are waited for, 10 ms at most. A crash inside the write path on the
 *    dumping CPU itself makes its buffer busy too. A writer that enters
 *    the write path on another CPU just as the dump starts may miss the
 *    freeze and the hold (a record costs no full barrier), and the dump
 *    may miss it here; so after reading, the dump checks again (dump:D):
 *    the writer sets in_write before any other store (write_begin:B), so
 *    a dump that read any of them sees it inside, waits for it to leave,
 *    and finds the buffer's written count moved: ``buffer N changed
 *    while read``. What is shown is exact, or said not to be.
 * 3. A global buffer is read once klog_relay.global_lock could be taken
 *    (and released at once: a writer that takes it later sees the
 *    freeze and the hold).
 * 4. The records still in a CPU's NMI staging area (made in NMI context
 *    and not yet moved into a buffer: a CPU that has kept interrupts off
 *    since, a hard lockup) are read where they are
 *    (klog_relay_nmi_read_begin()) when nothing can move them meanwhile:
 *    at a panic (the CPUs are stopped), on the dumping CPU, or when the
 *    CPU's buffer (a global buffer: the buffer) was found quiet in step
 *    2 or 3; otherwise ``cpuN staging area busy ..., not read``. They
 *    are merged by time with the buffers' records and counted in the
 *    newest N, each line ending in `` [staged]`` (it has no sequence
 *    number yet: no ``records lost`` gap is judged around it). After the
 *    stats lines, ``cpuN staged=R frozen=F big=B`` says what each
 *    non-empty staging area holds: R records, and F and B records staged
 *    as drops of those causes (counted in the stats once moved). NMIs on
 *    running CPUs may stage more during an oops's dump: they are not
 *    shown, and ``changed while read`` says so.
 *
 * The buffer memory itself is always safe to read (vmap'ed, freed only
 * by destroying the channel, a grace period after it was unpublished),
 * and a collector reading at the same moment changes nothing the dump
 * reads:
 * the dump shows every sub-buffer still in the ring, read or not. The
 * dump checks each buffer's written count again after reading, once its
 * CPU is outside the write path, and says ``buffer N changed while
 * read`` if it moved (only a writer that raced with step 1 moves it).
 *
 * Differences from ``klog -r``: a line longer than 959 bytes (printk's
 * limit is about 1 KiB) is cut and ends in `` [cut]``; records dropped
 * after a buffer's last record show in its ``stats`` line only, not as
 * a final ``records lost`` line; and the dump starts at the oldest
 * sub-buffer still in the ring, so gaps before its first record are not
 * shown.
 */

/*
 * No pr_fmt(): the record lines must be exactly klog -r's, so the lines
 * about the dump carry the prefix themselves.
 */
#define KLOG_DUMP_PFX	"klog-mod: "

#include <linux/delay.h>
#include <linux/kdebug.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nmi.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_internal.h"

/* ---- the setting: off | cpu | all, and the newest N ------------------- */

enum klog_dump_mode { KLOG_DUMP_OFF, KLOG_DUMP_CPU, KLOG_DUMP_ALL };

static const char * const klog_dump_mode_names[] = { "off", "cpu", "all" };

/*
 * mode | N << 2, one word so that a crash never reads half of a change.
 * N = 0: not given, the newest KLOG_DUMP_N_DEFAULT.
 */
static unsigned long klog_dump_setting;

/* 0: armed; 1: a dump ran (or runs) since the setting was last written. */
static atomic_t klog_dump_done = ATOMIC_INIT(0);

/* The CPU that is dumping, -1 when none: a crash inside the dump. */
static int klog_dump_owner = -1;

/*
 * The oops report must stay readable on the console and in a ramoops
 * record, which keeps only the tail: a dump prints the newest 100
 * records unless told otherwise, at most 100000, and stops after
 * KLOG_DUMP_TIME_MAX_NS whatever is left (under the RCU stall timeout:
 * it runs with interrupts off).
 */
#define KLOG_DUMP_N_DEFAULT	100
#define KLOG_DUMP_N_MAX		100000
#define KLOG_DUMP_TIME_MAX_NS	(10ULL * NSEC_PER_SEC)

/* "off", "cpu", "all", "cpu,N", "all,N" (N >= 1): the word, or -EINVAL. */
static int klog_dump_parse(const char *s, unsigned long *setting)
{
	char mode[8];
	const char *comma = strchr(s, ',');
	size_t len = comma ? comma - s : strcspn(s, "\n");
	unsigned long n = 0;
	int m;

	if (len >= sizeof(mode))
		return -EINVAL;
	memcpy(mode, s, len);
	mode[len] = '\0';
	m = match_string(klog_dump_mode_names,
			 ARRAY_SIZE(klog_dump_mode_names), mode);
	if (m < 0)
		return -EINVAL;
	if (comma) {
		/* kstrtoul() takes one trailing newline, nothing else */
		if (m == KLOG_DUMP_OFF || kstrtoul(comma + 1, 10, &n) ||
		    !n || n > KLOG_DUMP_N_MAX)
			return -EINVAL;
	} else if (s[len] && strcmp(s + len, "\n")) {
		return -EINVAL;
	}
	*setting = m | n << 2;
	return 0;
}

static int klog_dump_format_setting(char *s, size_t size)
{
	unsigned long v = READ_ONCE(klog_dump_setting);

	if (v >> 2)
		return scnprintf(s, size, "%s,%lu\n",
				 klog_dump_mode_names[v & 3], v >> 2);
	return scnprintf(s, size, "%s\n", klog_dump_mode_names[v & 3]);
}

static void klog_dump_set(unsigned long v)
{
	WRITE_ONCE(klog_dump_setting, v);
	/* Written again: the next crash dumps, even after an earlier one. */
	atomic_set(&klog_dump_done, 0);
}

static int klog_dump_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v;
	int ret = klog_dump_parse(val, &v);

	if (!ret)
		klog_dump_set(v);
	return ret;
}

static int klog_dump_param_get(char *buf, const struct kernel_param *kp)
{
	return klog_dump_format_setting(buf, PAGE_SIZE);
}

static const struct kernel_param_ops klog_dump_param_ops = {
	.set	= klog_dump_param_set,
	.get	= klog_dump_param_get,
};
module_param_cb(dump_on_oops, &klog_dump_param_ops, NULL, 0600);
MODULE_PARM_DESC(dump_on_oops,
		 "print the records on oops and panic: off, cpu or all[,N newest] (default N: 100)");

/* The control file ``dump_on_oops`` (klog_relay_files.c's table). */
void klog_relay_dump_show(struct seq_file *m)
{
	char s[40];

	klog_dump_format_setting(s, sizeof(s));
	seq_puts(m, s);
}

int klog_relay_dump_store(char *s)
{
	unsigned long v;
	int ret = klog_dump_parse(s, &v);

	if (!ret)
		klog_dump_set(v);
	return ret;
}

/*
 * Test hook: test_dump_crash=1 makes the next dump BUG() once it has
 * printed its records, as a fault inside the dump would: the crash
 * matrix's job oops-in-dump checks that the nested crash's notifier ends
 * the dump, says so, and that the panic after it still comes.
 */
static bool klog_dump_test_crash;
module_param_named(test_dump_crash, klog_dump_test_crash, bool, 0600);
MODULE_PARM_DESC(test_dump_crash,
		 "testing: the next dump crashes after printing its records");

/* ---- reading a buffer ---------------------------------------------------- */

/*
 * One buffer's part of the dump, static like everything the dump uses.
 * Sub-buffer numbers @first..@last are in the ring (slot k % n_subbufs);
 * the cursor is sub-buffer @k at byte @off.
 */
struct klog_dump_buf {
	bool	readable;
	u64	first, last;	/* sub-buffer numbers in the ring */
	size_t	last_used;	/* bytes of @last in use (its offset) */
	u64	written;	/* st->written when read */
	u64	bad;		/* sub-buffers cut at a malformed record */
	u64	k;		/* cursor: sub-buffer */
	size_t	off;		/* cursor: offset in it */
	size_t	used;		/* cursor: bytes of sub-buffer k in use */
	const struct klog_rec_hdr *rec;	/* the record at the cursor */
	u64	prev_seq;	/* seq of the previous record */
	bool	have_prev;
	/* the last COMM record before the cursor in sub-buffer @k */
	bool	comm_known;
	u32	comm_pid;
	char	comm[KLOG_RELAY_COMM_LEN + 1];
};

static DEFINE_PER_CPU(struct klog_dump_buf, klog_dump_bufs);

/*
 * One CPU's NMI staging area in the dump: its reader (klog_relay_nmi.c
 * owns the layout) and the record at its cursor, with the task name
 * copied at the NMI.
 */
struct klog_dump_staged {
	bool	readable;
	struct klog_relay_nmi_reader r;
	const struct klog_rec_hdr *rec;	/* the record at the cursor */
	char	comm[KLOG_RELAY_COMM_LEN + 1];
};

static DEFINE_PER_CPU(struct klog_dump_staged, klog_dump_staged);

static void klog_dump_staged_next(struct klog_dump_staged *s)
{
	const char *comm = NULL;

	s->rec = klog_relay_nmi_read_next(&s->r, &comm);
	if (s->rec) {
		memcpy(s->comm, comm, KLOG_RELAY_COMM_LEN);
		s->comm[KLOG_RELAY_COMM_LEN] = '\0';
	}
}

static void klog_dump_staged_rewind(struct klog_dump_staged *s)
{
	s->r.pos = s->r.tail;
	klog_dump_staged_next(s);
}

/*
 * Is there a valid item (record or COMM record) of the version 2 stream
 * at @off of a sub-buffer whose first @used bytes are in use? Checks
 * every size before use.
 */
static const struct klog_rec_hdr *klog_dump_rec_at(const void *subbuf,
						   size_t off, size_t used)
{
	const struct klog_rec_hdr *r = subbuf + off;

	if (off + sizeof(*r) > used)
		return NULL;
	if (r->size < sizeof(*r) || r->size % KLOG_REC_ALIGN ||
	    r->size > used - off ||
	    sizeof(*r) + (size_t)r->len > r->size ||
	    (r->kind == KLOG_RELAY_COMM && r->len != KLOG_RELAY_COMM_LEN))
		return NULL;
	return r;
}

static void *klog_dump_subbuf(struct rchan_buf *buf, u64 k)
{
	/* n_subbufs <= KLOG_RELAY_NSUBBUF_MAX: a u32 divisor */
	u32 slot = do_div(k, (u32)buf->chan->n_subbufs);

	return buf->start + (size_t)slot * buf->chan->subbuf_size;
}

/*
 * Move @d's cursor to the next record from sub-buffer d->k, offset d->off
 * on: d->rec, or NULL at the end of the buffer. A sub-buffer whose header
 * is not sub-buffer k (never written) is skipped; one with a malformed
 * record is counted in d->bad and left at that record. COMM records are
 * not records: the cursor passes them, keeping the task name they give
 * (a sub-buffer names its tasks anew, as klog -r reads it).
 */
static void klog_dump_seek(struct klog_dump_buf *d, struct rchan_buf *buf)
{
	size_t size = buf->chan->subbuf_size;

	for (; d->k <= d->last; d->k++, d->off = 0) {
		const struct klog_subbuf_hdr *h = klog_dump_subbuf(buf, d->k);
		const struct klog_rec_hdr *r;

		if (!d->off) {
			if (h->magic != KLOG_SUBBUF_MAGIC ||
			    h->version != KLOG_RELAY_VERSION ||
			    h->hdr_size != sizeof(*h) || h->seq != d->k)
				continue;
			d->off = sizeof(*h);
			d->comm_known = false;
			d->used = d->k == d->last ? d->last_used :
				  size - min_t(size_t, h->padding,
					       size - sizeof(*h));
		}
		while (d->off < d->used) {
			r = klog_dump_rec_at(h, d->off, d->used);
			if (!r) {
				d->bad++;
				break;
			}
			if (r->kind != KLOG_RELAY_COMM) {
				d->rec = r;
				return;
			}
			memcpy(d->comm, r + 1, KLOG_RELAY_COMM_LEN);
			d->comm[KLOG_RELAY_COMM_LEN] = '\0';
			d->comm_pid = r->pid;
			d->comm_known = true;
			d->off += r->size;
		}
	}
	d->rec = NULL;
}

static void klog_dump_next(struct klog_dump_buf *d, struct rchan_buf *buf)
{
	d->prev_seq = d->rec->seq;
	d->have_prev = true;
	d->off += d->rec->size;
	klog_dump_seek(d, buf);
}

static void klog_dump_rewind(struct klog_dump_buf *d, struct rchan_buf *buf)
{
	d->k = d->first;
	d->off = 0;
	d->have_prev = false;
	d->bad = 0;
	klog_dump_seek(d, buf);
}

/*
 * Where buffer @buf's records are. Relay's state: the current
 * sub-buffer is number subbufs_produced in slot buf->data, filled up to
 * buf->offset; offset subbuf_size + 1 means the buffer is full
 * (no-overwrite mode) and buf->data is the last finished one.
 */
static void klog_dump_locate(struct klog_dump_buf *d, struct rchan_buf *buf)
{
	size_t size = buf->chan->subbuf_size, n = buf->chan->n_subbufs;
	size_t offset = READ_ONCE(buf->offset);
	u64 produced = READ_ONCE(buf->subbufs_produced);

	if (offset > size) {
		d->last = produced ? produced - 1 : 0;
		d->last_used = size - min_t(size_t,
			klog_relay_subbuf_hdr(buf->data)->padding,
			size - sizeof(struct klog_subbuf_hdr));
	} else {
		d->last = produced;
		d->last_used = offset;
	}
	d->first = d->last >= n - 1 ? d->last - (n - 1) : 0;
}

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

/* ---- the dump ------------------------------------------------------------ */

static char klog_dump_text[960];

/* The channel being dumped (klog_dump()). */
static struct rchan *klog_dump_chan;

static struct rchan_buf *klog_dump_rbuf(unsigned int cpu)
{
	return READ_ONCE(*per_cpu_ptr(klog_dump_chan->buf, cpu));
}

/* Does the dump read buffer @cpu: every CPU's, or only 0 when global? */
static bool klog_dump_has_buf(unsigned int cpu)
{
	return klog_dump_rbuf(cpu) && (!klog_relay.cfg.global || !cpu);
}

/*
 * May buffer @cpu be read: no writer inside it, now or later (the
 * recorder is frozen)? @panic: the other CPUs are stopped, so nothing
 * is waited for.
 */
static bool klog_dump_quiet(unsigned int cpu, bool panic)
{
	/* at an oops, up to 10 ms */
	int tries = panic ? 1 : 10000;

	if (klog_relay.cfg.global) {
		while (tries--) {
			if (raw_spin_trylock(&klog_relay.global_lock)) {
				raw_spin_unlock(&klog_relay.global_lock);
				return true;
			}
			if (tries)
				udelay(1);
		}
		return false;
	}
	if (cpu == smp_processor_id())
		return !per_cpu_ptr(&klog_relay_cpu, cpu)->in_write;
	while (tries--) {
		/*
		 * Pairs with write_end:A (klog_relay_write.c): the buffer's
		 * stores and its written count are seen. A writer not seen
		 * here that missed the freeze is caught afterwards (dump:D).
		 */
		if (!smp_load_acquire(&per_cpu_ptr(&klog_relay_cpu,
						   cpu)->in_write)) /* LMM(dump:B) */
			return true;
		if (tries)
			udelay(1);
	}
	return false;
}

/* Does the record at @d's cursor go into the dump? (mode cpu: this CPU's) */
static bool klog_dump_wanted(const struct klog_dump_buf *d, int only_cpu)
{
	return only_cpu < 0 || d->rec->cpu == only_cpu;
}

/*
 * Sources of records, numbered: CPU's buffer 2 * CPU, CPU's NMI staging
 * area 2 * CPU + KLOG_DUMP_STAGED.
 */
#define KLOG_DUMP_STAGED	1

/*
 * The source whose next wanted record is the oldest (ties: the lower
 * CPU, as klog -r merges, and a CPU's buffer before its staging area,
 * whose records are moved after the buffer's), its cursor moved past
 * unwanted records; or -1 when all are done.
 */
static int klog_dump_oldest(int only_cpu)
{
	unsigned int cpu;
	int best = -1;
	u64 ts = 0;

	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);

		if (klog_dump_has_buf(cpu) && d->readable) {
			while (d->rec && !klog_dump_wanted(d, only_cpu))
				klog_dump_next(d, klog_dump_rbuf(cpu));
			if (d->rec && (best < 0 || d->rec->ts_ns < ts)) {
				best = 2 * cpu;
				ts = d->rec->ts_ns;
			}
		}
		if (!s->readable)
			continue;
		while (s->rec && only_cpu >= 0 && s->rec->cpu != only_cpu)
			klog_dump_staged_next(s);
		if (s->rec && (best < 0 || s->rec->ts_ns < ts)) {
			best = 2 * cpu + KLOG_DUMP_STAGED;
			ts = s->rec->ts_ns;
		}
	}
	return best;
}

/* Past the record of source @src (klog_dump_oldest()). */
static void klog_dump_advance(int src)
{
	unsigned int cpu = src / 2;

	if (src & KLOG_DUMP_STAGED)
		klog_dump_staged_next(per_cpu_ptr(&klog_dump_staged, cpu));
	else
		klog_dump_next(per_cpu_ptr(&klog_dump_bufs, cpu),
			       klog_dump_rbuf(cpu));
}

static void klog_dump_print(const struct klog_rec_hdr *r, const char *comm,
			    bool staged)
{
	struct klog_dump_line l = {
		.p = klog_dump_text, .size = sizeof(klog_dump_text),
	};
	const char *func = NULL;
	unsigned int line = 0;

	if (!klog_site_func(r->site_id, &func, &line))
		func = NULL;
	klog_dump_format(&l, r, comm, func, line, (const u8 *)(r + 1), staged);
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
	klog_dump_print(r, d->comm_known && d->comm_pid == r->pid ? d->comm :
			NULL, false);
}

static void klog_dump_records(const char *why, int only_cpu, u64 newest)
{
	u64 total = 0, skip, printed = 0, start = local_clock();
	unsigned int cpu;
	int c;

	/*
	 * Pass 1: how many records there are, staged ones included, to
	 * print the newest.
	 */
	while ((c = klog_dump_oldest(only_cpu)) >= 0) {
		total++;
		klog_dump_advance(c);
	}
	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);

		if (klog_dump_has_buf(cpu) && d->readable)
			klog_dump_rewind(d, klog_dump_rbuf(cpu));
		if (s->readable)
			klog_dump_staged_rewind(s);
	}
	skip = newest < total ? total - newest : 0;
	pr_emerg(KLOG_DUMP_PFX "dump on %s: %llu of %llu records%s, oldest first\n", why,
		 total - skip, total, only_cpu < 0 ? "" : " of this CPU");
	/* Pass 2: the same merge, printing all but the first @skip. */
	while ((c = klog_dump_oldest(only_cpu)) >= 0) {
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 c / 2);

		if (!skip && local_clock() - start > KLOG_DUMP_TIME_MAX_NS) {
			pr_emerg(KLOG_DUMP_PFX "dump stopped after %u s: %llu of %llu records printed\n",
				 (unsigned int)(KLOG_DUMP_TIME_MAX_NS /
						NSEC_PER_SEC), printed,
				 total - skip);
			break;
		}
		if (skip)
			skip--;
		else if (printed++, c & KLOG_DUMP_STAGED)
			klog_dump_print(s->rec, s->comm, true);
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
static void klog_dump_staged_summary(void)
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

/*
 * The end of a dump, or of one that a crash inside it abandoned: after
 * an oops the machine goes on, so the staged records move again and the
 * recorder is thawed, unless a trigger froze it meanwhile or it was
 * frozen before the dump (@old). At a panic nothing runs after.
 */
static void klog_dump_end(bool panic, int old)
{
	if (!panic && !(old & KLOG_RECORDER_FROZEN))
		atomic_cmpxchg(&klog_relay.recorder,
			       old | KLOG_RECORDER_FROZEN, old);
	if (!panic)
		klog_relay_nmi_hold(false);
	WRITE_ONCE(klog_dump_owner, -1);
}

/* The recorder's state before the dump froze it, for klog_dump_end(). */
static int klog_dump_old;

static void klog_dump(const char *why, bool panic)
{
	unsigned long setting = READ_ONCE(klog_dump_setting);
	struct klog_relay_trigger_info info;
	int only_cpu = -1, me = raw_smp_processor_id();
	u64 newest = setting >> 2 ?: KLOG_DUMP_N_DEFAULT;
	bool global_quiet;
	unsigned int cpu;

	if ((setting & 3) == KLOG_DUMP_OFF)
		return;
	if (atomic_xchg(&klog_dump_done, 1)) {
		if (READ_ONCE(klog_dump_owner) == me) {
			/* This CPU crashed inside its own dump. */
			pr_emerg(KLOG_DUMP_PFX "dump on %s: a crash inside the dump: it ends here\n",
				 why);
			klog_dump_end(panic, klog_dump_old);
			return;
		}
		pr_emerg(KLOG_DUMP_PFX "dump on %s: the records were dumped once already, at an earlier oops\n",
			 why);
		return;
	}
	WRITE_ONCE(klog_dump_owner, me);
	klog_dump_old = atomic_read(&klog_relay.recorder);
	/*
	 * No lock is taken, tried or released here: a die notifier may run
	 * in NMI or hard-IRQ context, or with the scheduler's locks held,
	 * where even a mutex_trylock() that succeeds must not be undone
	 * (mutex_unlock() may wake a waiter). The channel and the site table
	 * are read under RCU instead: destroying the channel waits for a
	 * grace period before it frees the buffers (klog_relay_destroy()),
	 * and a forgotten site table is freed after one. Die and panic
	 * notifiers already run inside an RCU read-side critical section.
	 */
	rcu_read_lock();
	/* Pairs with create:A: the settings it was made with are seen. */
	klog_dump_chan = smp_load_acquire(&klog_relay.chan); /* LMM(dump:C) */
	if (!klog_dump_chan) {
		pr_emerg(KLOG_DUMP_PFX "dump on %s: no channel\n", why);
		goto out;
	}
	if ((setting & 3) == KLOG_DUMP_CPU)
		only_cpu = me;

	/*
	 * Step 1 of DOC: writers from now on count their records frozen,
	 * and leave staged NMI records staged. Guarantees: a writer that
	 * enters the write path once this is visible (drain:H and offer:A
	 * are its loads) writes nothing and moves nothing; one that raced
	 * with it is caught by the check after reading (dump:D). In a
	 * global buffer the lock (step 3) orders them as well.
	 */
	klog_relay_nmi_hold(true);
	klog_dump_old = atomic_fetch_or(KLOG_RECORDER_FROZEN,
					&klog_relay.recorder);	/* LMM(dump:A) */
	/* Step 3 of DOC, once: a global buffer's lock (CPU 0's buffer). */
	global_quiet = klog_relay.cfg.global && klog_dump_quiet(0, panic);
	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);
		struct rchan_buf *buf = klog_dump_rbuf(cpu);
		bool quiet;

		memset(d, 0, sizeof(*d));
		memset(s, 0, sizeof(*s));
		/* Steps 2 and 3 of DOC: read after the freeze (dump:A). */
		quiet = klog_relay.cfg.global ? global_quiet :
			klog_dump_quiet(cpu, panic);
		if (klog_dump_has_buf(cpu) && !quiet) {
			pr_emerg(KLOG_DUMP_PFX "buffer %u busy, not read\n", cpu);
		} else if (klog_dump_has_buf(cpu)) {
			d->readable = true;
			d->written = READ_ONCE(klog_relay_buf_state(cpu)->written);
			klog_dump_locate(d, buf);
			klog_dump_rewind(d, buf);
		}
		/*
		 * Step 4 of DOC: the CPU's staged NMI records, read where
		 * they are once nothing can move them out: its drains run in
		 * the write path, seen quiet (and held from now on); at a
		 * panic the CPU is stopped; the dumping CPU's own drain, if
		 * the crash interrupted one, does not go on.
		 */
		if (panic || quiet || cpu == me) {
			s->readable = true;
			klog_relay_nmi_read_begin(cpu, &s->r);
			klog_dump_staged_rewind(s);
		}
	}
	klog_dump_records(why, only_cpu, newest);
	if (unlikely(READ_ONCE(klog_dump_test_crash))) {
		WRITE_ONCE(klog_dump_test_crash, false);
		BUG();
	}

	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		char *line = klog_dump_text;

		if (!klog_dump_has_buf(cpu))
			continue;
		if (d->readable && d->bad)
			pr_emerg(KLOG_DUMP_PFX "buffer %u: %llu sub-buffers cut at a malformed record\n",
				 cpu, d->bad);
		/*
		 * Step 2 of DOC, the check afterwards: a writer whose stores
		 * the dump read is seen inside (write_begin:B), waited for,
		 * and its written count seen (write_end:A, acquired by
		 * dump:B in klog_dump_quiet()).
		 */
		smp_rmb();					/* LMM(dump:D) */
		if (d->readable &&
		    (!klog_dump_quiet(cpu, panic) ||
		     READ_ONCE(klog_relay_buf_state(cpu)->written) != d->written))
			pr_emerg(KLOG_DUMP_PFX "buffer %u changed while read: its lines may be torn\n",
				 cpu);
		klog_relay_stats_line(cpu, klog_dump_rbuf(cpu), line,
				      sizeof(klog_dump_text));
		pr_emerg(KLOG_DUMP_PFX "%s\n", line);
	}
	klog_dump_staged_summary();
	if (klog_relay_last_trigger_info(&info))
		pr_emerg(KLOG_DUMP_PFX "trigger: cpu=%u ts=%llu reason=%s\n", info.cpu,
			 info.ts_ns, info.reason);
	klog_dump_end(panic, klog_dump_old);
out:
	rcu_read_unlock();
	WRITE_ONCE(klog_dump_owner, -1);
	pr_emerg(KLOG_DUMP_PFX "end of dump\n");
}

static int klog_dump_die(struct notifier_block *nb, unsigned long val,
			 void *data)
{
	if (val == DIE_OOPS)
		klog_dump("oops", false);
	return NOTIFY_DONE;
}

static int klog_dump_panic(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	klog_dump("panic", true);
	return NOTIFY_DONE;
}

static struct notifier_block klog_dump_die_nb = {
	.notifier_call	= klog_dump_die,
};

static struct notifier_block klog_dump_panic_nb = {
	.notifier_call	= klog_dump_panic,
};

int klog_relay_dump_init(void)
{
	int ret = register_die_notifier(&klog_dump_die_nb);

	if (ret)
		return ret;
	atomic_notifier_chain_register(&panic_notifier_list,
				       &klog_dump_panic_nb);
	return 0;
}

/* Returns when no dump runs (both unregisters wait for RCU readers). */
void klog_relay_dump_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list,
					 &klog_dump_panic_nb);
	unregister_die_notifier(&klog_dump_die_nb);
}
