// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the dump on oops and panic reads the buffers and the NMI
 * staging areas where they are
 *
 * A buffer is read through a cursor (struct klog_dump_buf): the
 * sub-buffers still in the ring (klog_dump_locate(), from relay's
 * positions), oldest first, each checked against its header's sequence
 * number, every record's size checked before it is used, a malformed
 * record ending its sub-buffer; COMM records are passed, keeping the
 * task name they give. A CPU's NMI staging area is read through
 * klog_relay_nmi.c's reader. klog_dump_quiet() says when a buffer may be
 * read (steps 2 and 3 of DOC: klog relay dump on oops), and
 * klog_dump_oldest() merges all the cursors by time, as klog -r does.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/delay.h>
#include <linux/nmi.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_dump.h"

DEFINE_PER_CPU(struct klog_dump_buf, klog_dump_bufs);
DEFINE_PER_CPU(struct klog_dump_staged, klog_dump_staged);

struct rchan *klog_dump_chan;

struct rchan_buf *klog_dump_rbuf(unsigned int cpu)
{
	return READ_ONCE(*per_cpu_ptr(klog_dump_chan->buf, cpu));
}

/* Does the dump read buffer @cpu: every CPU's, or only 0 when global? */
bool klog_dump_has_buf(unsigned int cpu)
{
	return klog_dump_rbuf(cpu) && (!klog_relay.cfg.global || !cpu);
}

static void klog_dump_staged_next(struct klog_dump_staged *s)
{
	const char *comm = NULL;

	s->payload = klog_relay_nmi_read_next(&s->r, &s->hdr, &comm);
	s->rec = s->payload ? &s->hdr : NULL;
	if (s->rec) {
		memcpy(s->comm, comm, KLOG_RELAY_COMM_LEN);
		s->comm[KLOG_RELAY_COMM_LEN] = '\0';
	}
}

void klog_dump_staged_rewind(struct klog_dump_staged *s)
{
	s->r.pos = s->r.tail;
	klog_dump_staged_next(s);
}

/*
 * Is there a valid item (record or COMM record) of the version 2 stream
 * at @off of a sub-buffer whose first @used bytes are in use? Its header
 * is copied to @r and the copy checked, every size before use, so that
 * a writer changing the bytes after the check moves no bound.
 */
static bool klog_dump_rec_at(const void *subbuf, size_t off, size_t used,
			     struct klog_rec_hdr *r)
{
	if (off + sizeof(*r) > used)
		return false;
	memcpy(r, subbuf + off, sizeof(*r));
	return r->size >= sizeof(*r) && !(r->size % KLOG_REC_ALIGN) &&
	       r->size <= used - off &&
	       sizeof(*r) + (size_t)r->len <= r->size &&
	       (r->kind != KLOG_RELAY_COMM || r->len == KLOG_RELAY_COMM_LEN);
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
		const struct klog_rec_hdr *r = &d->hdr;

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
			const void *p = (const void *)h + d->off + sizeof(*r);

			if (!klog_dump_rec_at(h, d->off, d->used, &d->hdr)) {
				d->bad++;
				break;
			}
			if (r->kind != KLOG_RELAY_COMM) {
				d->rec = r;
				d->payload = p;
				return;
			}
			memcpy(d->comm, p, KLOG_RELAY_COMM_LEN);
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

void klog_dump_rewind(struct klog_dump_buf *d, struct rchan_buf *buf)
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
void klog_dump_locate(struct klog_dump_buf *d, struct rchan_buf *buf)
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

/*
 * May buffer @cpu be read: no writer inside it, now or later (the
 * recorder is frozen)? @panic: the other CPUs are stopped, so nothing
 * is waited for.
 */
bool klog_dump_quiet(unsigned int cpu, bool panic)
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
 * Whether a source can hold records of @only_cpu (-1: every CPU's): a
 * per-CPU buffer and a staging area hold only their own CPU's records,
 * a global buffer everyone's. A walk never enters the others.
 */
static bool klog_dump_buf_source(unsigned int cpu, int only_cpu)
{
	return only_cpu < 0 || cpu == only_cpu || klog_relay.cfg.global;
}

static bool klog_dump_staged_source(unsigned int cpu, int only_cpu)
{
	return only_cpu < 0 || cpu == only_cpu;
}

/*
 * Whether the dump's time is up. Passing over the records that are not
 * printed (counting them, skipping the older or other CPUs' ones) is
 * checked every KLOG_DUMP_STEPS records, printing at every line; each
 * check lets the NMI watchdog know that this CPU, interrupts off, is not
 * stuck. Once it is up, it stays up, and @t->ns says after how long.
 */
bool klog_dump_late(struct klog_dump_clock *t, bool printing)
{
	if (t->ns >= t->max_ns)
		return true;
	if (!printing && t->steps++ % KLOG_DUMP_STEPS)
		return false;
	touch_nmi_watchdog();
	t->ns = local_clock() - t->start;
	return t->ns >= t->max_ns;
}

/*
 * The source whose next wanted record is the oldest (ties: the lower
 * CPU, as klog -r merges, and a CPU's buffer before its staging area,
 * whose records are moved after the buffer's), its cursor moved past
 * unwanted records; -1 when all are done, KLOG_DUMP_LATE if the time
 * ran out while passing over unwanted records.
 */
int klog_dump_oldest(int only_cpu, struct klog_dump_clock *t)
{
	unsigned int cpu;
	int best = -1;
	u64 ts = 0;

	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);

		if (klog_dump_has_buf(cpu) && d->readable &&
		    klog_dump_buf_source(cpu, only_cpu)) {
			while (d->rec && !klog_dump_wanted(d, only_cpu)) {
				if (klog_dump_late(t, false))
					return KLOG_DUMP_LATE;
				klog_dump_next(d, klog_dump_rbuf(cpu));
			}
			if (d->rec && (best < 0 || d->rec->ts_ns < ts)) {
				best = 2 * cpu;
				ts = d->rec->ts_ns;
			}
		}
		if (!s->readable || !klog_dump_staged_source(cpu, only_cpu))
			continue;
		while (s->rec && only_cpu >= 0 && s->rec->cpu != only_cpu) {
			if (klog_dump_late(t, false))
				return KLOG_DUMP_LATE;
			klog_dump_staged_next(s);
		}
		if (s->rec && (best < 0 || s->rec->ts_ns < ts)) {
			best = 2 * cpu + KLOG_DUMP_STAGED;
			ts = s->rec->ts_ns;
		}
	}
	return best;
}

/*
 * Pass 1: how many records there are, staged ones included, source by
 * source (no merge: each step costs one record, not one per CPU), then
 * back to each source's oldest. Return: false if the time ran out (the
 * cursors then stay where the count stopped).
 */
bool klog_dump_count(int only_cpu, struct klog_dump_clock *t, u64 *total)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);
		struct rchan_buf *buf = klog_dump_rbuf(cpu);

		if (klog_dump_has_buf(cpu) && d->readable &&
		    klog_dump_buf_source(cpu, only_cpu)) {
			for (; d->rec; klog_dump_next(d, buf)) {
				*total += klog_dump_wanted(d, only_cpu);
				if (klog_dump_late(t, false))
					return false;
			}
			klog_dump_rewind(d, buf);
		}
		if (s->readable && klog_dump_staged_source(cpu, only_cpu)) {
			for (; s->rec; klog_dump_staged_next(s)) {
				*total += only_cpu < 0 ||
					  s->rec->cpu == only_cpu;
				if (klog_dump_late(t, false))
					return false;
			}
			klog_dump_staged_rewind(s);
		}
	}
	return true;
}

/* Past the record of source @src (klog_dump_oldest()). */
void klog_dump_advance(int src)
{
	unsigned int cpu = src / 2;

	if (src & KLOG_DUMP_STAGED)
		klog_dump_staged_next(per_cpu_ptr(&klog_dump_staged, cpu));
	else
		klog_dump_next(per_cpu_ptr(&klog_dump_bufs, cpu),
			       klog_dump_rbuf(cpu));
}
