// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the write path
 *
 * klog_relay_write() builds each record in place in the current
 * sub-buffer, with interrupts off on the local CPU (per-CPU buffers) or
 * under klog_relay.global_lock (a global buffer): switch sub-buffers if
 * the record does not fit, fill it, then advance the offset. Every record
 * offered takes the next sequence number of its buffer and is written or
 * counted in exactly one drop cause, so loss leaves a gap in the stream
 * (NMI and reentered drops get theirs from the next record:
 * klog_relay_take_seq()). Nothing here may printk, WARN, sleep or take a
 * non-raw lock; a record made on a CPU already inside this path is
 * counted (reentered).
 *
 * A record names its call site by id (stream version 2), and its task by
 * a COMM record written in front of it when the task changes within a
 * sub-buffer (the pid; for pid 0, each CPU's idle task, the CPU too) and
 * in front of every sub-buffer's first record: a pid and 16 bytes of
 * current->comm, written only when the task changes, so a sub-buffer
 * that holds one task's records pays 56 bytes once.
 * klog_relay_build_rec() and klog_relay_build_comm() build the bytes;
 * klog_relay_reserve() decides whether a COMM record goes in front and
 * reserves both at once, for a record built here (klog_relay_put()) and
 * for one an NMI staged (klog_relay_offer_staged()) alike.
 *
 * A record made in NMI context is built by the same function,
 * klog_relay_build_rec(), into the CPU's NMI staging area
 * (klog_relay_nmi.c), with the comm of the task the NMI interrupted, and
 * moved into the buffer, in order, by the irq_work the NMI raised, by the
 * next write on that CPU or by a flush, whichever comes first
 * (klog_relay_offer_staged()): it takes its sequence number when it is
 * moved and keeps the timestamp taken at the NMI; its COMM record, if it
 * needs one, is decided when it is moved and names the staged comm.
 *
 * Each new sub-buffer's header, its padding, the drops a header reports
 * and the flush are in klog_relay_subbuf.c; the flight recorder's
 * trigger and freeze in klog_relay_recorder.c.
 *
 * Memory barriers
 * ---------------
 *
 * The ordering points are labelled LMM(function:letter), the function
 * named without its klog_relay_ prefix; the sub-buffer layout they
 * protect is drawn in <uapi/linux/klog_relay.h>.
 *
 * - write_begin:A, write_begin:B (in_write = true, then smp_wmb()
 *   before anything of the write path) and write_end:A
 *   (smp_store_release() of in_write = false after it). This CPU reads
 *   in_write from an interrupt, NMI or callee of the write path, in
 *   program order. The oops dump reads it from another CPU
 *   (klog_relay_dump.c): it sets the freeze and the NMI hold (dump:A),
 *   waits for in_write clear (dump:B, acquire), reads the buffer, then
 *   (dump:D: smp_rmb(), in_write waited for again, written compared)
 *   checks that no writer was in it meanwhile. A writer that enters as
 *   the dump starts may miss the freeze (no full barrier: a record pays
 *   a plain store, not a fence), and the dump may miss it at dump:B; but
 *   if the dump read any of its stores it sees in_write set at dump:D
 *   (write_begin:B orders the flag first), waits, and finds written
 *   moved: the dump says the buffer changed while read. write_end:A
 *   pairs with dump:B and dump:D: a dump that sees in_write clear sees
 *   all the stores and the written count before it.
 * - put:A, finish_subbuf:A (the record's bytes, the header's padding:
 *   plain stores) need no barrier of their own: relay publishes the
 *   sub-buffer by incrementing subbufs_produced with smp_store_release()
 *   in relay_switch_subbuf() (relay-races patch), after both. Pair with
 *   the acquire loads of subbufs_produced by the readers (read(2) of
 *   cpuN, cpuN.produced): a reader that sees a sub-buffer produced sees
 *   all its records and its padding. buf->offset is read by no reader.
 * - subbuf_start:A..B, flush:A (klog_relay_subbuf.c) and trigger:A..B,
 *   freeze:A..B, last_trigger_info:A (klog_relay_recorder.c): see there.
 * - write:A (READ_ONCE of klog_relay.chan). Pairs with create:A and
 *   destroy:A (klog_relay.c): the handler is registered only after
 *   create:A, and list_add_tail_rcu() in register_klog_handler()
 *   publishes it with release; it is unregistered, and synchronize_rcu()
 *   has waited for every writer, before destroy:A.
 * - offer:A (atomic_read() of FROZEN) is relaxed by design: a record
 *   racing with a freeze is either written or counted as frozen.
 * - stage:A..C, drain:A..C (klog_relay_nmi.c): the NMI staging area,
 *   written by an NMI and emptied by the same CPU; see there.
 * - drain_local:A (READ_ONCE of klog_relay.chan), as write:A: the
 *   irq_works that call klog_relay_drain_local() are raised only while
 *   the handler is registered, and klog_relay_nmi_sync() has waited for
 *   them before destroy:A; a flush calls it with klog_relay.ctl_lock
 *   held, which create and destroy hold too.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_internal.h"

DEFINE_PER_CPU(struct klog_relay_cpu, klog_relay_cpu);

/*
 * The next sequence number of per-CPU buffer @st; interrupts off. NMI and
 * reentered records counted since the previous record take theirs first,
 * so the gap they leave is in front of this record and, if this record
 * starts a sub-buffer, inside the "lost" of that sub-buffer's header: at
 * every sub-buffer boundary the gap equals lost. NMIs increment nmi with
 * this_cpu_inc() and take no number themselves, so nothing an NMI does
 * can come between this and the header.
 */
static __always_inline u64 klog_relay_take_seq(struct klog_relay_cpu *st)
{
	unsigned long nmi = READ_ONCE(st->nmi);

	if (unlikely(nmi != st->nmi_folded ||
		     st->reentered != st->reentered_folded)) {
		u64 n = (unsigned long)(nmi - st->nmi_folded) +
			(unsigned long)(st->reentered - st->reentered_folded);

		st->seq += n;
		st->folded += n;
		st->nmi_folded = nmi;
		st->reentered_folded = st->reentered;
	}
	return st->seq++;
}

/* Bytes of a COMM record: its header and the task name, aligned. */
#define KLOG_RELAY_COMM_SIZE \
	ALIGN(sizeof(struct klog_rec_hdr) + KLOG_RELAY_COMM_LEN, KLOG_REC_ALIGN)

/*
 * Bytes of @rec as a record of @chan's stream; 0 if it is larger than a
 * sub-buffer can hold together with the COMM record that may have to
 * start the sub-buffer with it. The length is checked against the
 * sub-buffer before anything is added to it, so that no sum can wrap (a
 * 32-bit size_t, a len near U32_MAX).
 */
static __always_inline size_t __klog_relay_rec_size(const struct rchan *chan,
						    const struct klog_record *rec)
{
	/* subbuf_size >= KLOG_RELAY_SUBBUF_MIN: no underflow */
	size_t room = chan->subbuf_size - sizeof(struct klog_subbuf_hdr) -
		      KLOG_RELAY_COMM_SIZE - sizeof(struct klog_rec_hdr);

	if (unlikely(rec->len > room))
		return 0;
	return ALIGN(sizeof(struct klog_rec_hdr) + rec->len, KLOG_REC_ALIGN);
}

/* For the NMI staging area: any context, NMI included. */
size_t klog_relay_rec_size(const struct rchan *chan,
			   const struct klog_record *rec)
{
	return __klog_relay_rec_size(chan, rec);
}

/*
 * Build the record of @rec, numbered @seq, in the @size bytes at @dst
 * (size = __klog_relay_rec_size()): the one place that lays a record out
 * (<uapi/linux/klog_relay.h>), in a buffer or in an NMI staging area.
 * Every byte of the @size is stored. Plain stores, reads only @rec and
 * its site: any context, NMI included. Inlined: it is the whole of the
 * per-record work, and a call less counts on the hot path.
 */
static __always_inline void klog_relay_build_rec(void *dst,
						 const struct klog_record *rec,
						 u64 seq, size_t size)
{
	struct klog_rec_hdr *r = dst;

	/* The record header copies these from the core's record as they are. */
	BUILD_BUG_ON(KLOG_KIND_TEXT != KLOG_RELAY_TEXT);
	BUILD_BUG_ON(KLOG_KIND_RAW != KLOG_RELAY_RAW);
	BUILD_BUG_ON(KLOG_KIND_ARGS != KLOG_RELAY_ARGS);
	BUILD_BUG_ON(KLOG_CTX_TASK != KLOG_RELAY_CTX_TASK);
	BUILD_BUG_ON(KLOG_CTX_SOFTIRQ != KLOG_RELAY_CTX_SOFTIRQ);
	BUILD_BUG_ON(KLOG_CTX_HARDIRQ != KLOG_RELAY_CTX_HARDIRQ);
	BUILD_BUG_ON(KLOG_CTX_NMI != KLOG_RELAY_CTX_NMI);
	BUILD_BUG_ON(KLOG_REC_TRUNCATED != KLOG_RELAY_TRUNCATED);
	BUILD_BUG_ON(KLOG_REC_TRIGGER != KLOG_RELAY_TRIGGER);
	/* The size <linux/klog_relay.h> promises, aligned for the payload. */
	BUILD_BUG_ON(sizeof(struct klog_rec_hdr) != 40);
	BUILD_BUG_ON(sizeof(struct klog_rec_hdr) % KLOG_REC_ALIGN);
	BUILD_BUG_ON(sizeof(struct klog_subbuf_hdr) % KLOG_REC_ALIGN);
	BUILD_BUG_ON(sizeof_field(struct klog_rec_hdr, site_id) !=
		     sizeof_field(struct klog_site, id));

	/*
	 * Zero the padding (under 8 bytes: size is a multiple of 8) with one
	 * store that the header and payload then overwrite in part.
	 */
	BUILD_BUG_ON(sizeof(u64) != KLOG_REC_ALIGN);
	*(u64 *)((char *)r + size - sizeof(u64)) = 0;
	*r = (struct klog_rec_hdr) {
		.size		= size,
		.len		= rec->len,
		.ts_ns		= rec->ts_ns,
		.seq		= seq,
		.pid		= rec->pid,
		.site_id	= rec->site->id,
		.kind		= rec->kind,
		.ctx		= rec->ctx,
		.flags		= rec->flags & KLOG_RELAY_FLAGS,
		.cpu		= rec->cpu,
	};
	memcpy(r + 1, rec->payload, rec->len);
}

/*
 * Build @rec into an NMI staging area entry, with sequence number 0:
 * klog_relay_offer_staged() numbers it when it moves it. Any context.
 */
void klog_relay_build_staged(void *dst, const struct klog_record *rec,
			     size_t size)
{
	klog_relay_build_rec(dst, rec, 0, size);
}

/*
 * Build, in the KLOG_RELAY_COMM_SIZE bytes at @dst, the COMM record that
 * names the task of the record @named (already built), with its seq (a
 * COMM record takes no number of its own), timestamp, pid, context and
 * CPU, and @comm as the task name. @comm is current->comm of the klog
 * call: read here for a record built now (the core calls the handler
 * from the klog call, and rec->pid is current->pid there, in IRQ context
 * too: the interrupted task), or copied at the NMI into the staging area
 * for a staged record. current->comm is read without task_lock(), which
 * cannot be taken here: it is an array inside the task, always readable,
 * NMI included; a rename racing with the copy may give a mix of both
 * names, and strscpy_pad() still ends it with a NUL.
 */
static __always_inline void klog_relay_build_comm(void *dst,
						  const struct klog_rec_hdr *named,
						  const char *comm)
{
	struct klog_rec_hdr *r = dst;

	BUILD_BUG_ON(KLOG_RELAY_COMM_LEN != TASK_COMM_LEN);
	BUILD_BUG_ON((KLOG_KIND_TEXT | KLOG_KIND_RAW | KLOG_KIND_ARGS) &
		     KLOG_RELAY_COMM);
	BUILD_BUG_ON(KLOG_RELAY_COMM_SIZE !=
		     sizeof(struct klog_rec_hdr) + KLOG_RELAY_COMM_LEN);
	*r = (struct klog_rec_hdr) {
		.size		= KLOG_RELAY_COMM_SIZE,
		.len		= KLOG_RELAY_COMM_LEN,
		.ts_ns		= named->ts_ns,
		.seq		= named->seq,
		.pid		= named->pid,
		.kind		= KLOG_RELAY_COMM,
		.ctx		= named->ctx,
		.cpu		= named->cpu,
	};
	strscpy_pad((char *)(r + 1), comm, KLOG_RELAY_COMM_LEN);
}

/*
 * The task a COMM record names, as one number: the pid, or for pid 0
 * the CPU too. Every CPU's idle task has pid 0 (swapper/N): in a global
 * buffer their records meet, and each needs its own name.
 */
static __always_inline int klog_relay_task(pid_t pid, unsigned int cpu)
{
	return pid ? pid : -1 - (int)cpu;
}

/*
 * Room for a record of @size bytes, stamped @ts, made by @task
 * (klog_relay_task()), in @buf's current sub-buffer, with a COMM record
 * in front of it when @task differs from the previous record's in the
 * sub-buffer or it is the sub-buffer's first record (a new one is
 * started if they do not fit);
 * interrupts off (per-CPU) or klog_relay.global_lock held. Both are
 * reserved together: either both are written or neither. Returns where
 * the COMM record, or the record if @comm is 0, goes, with the COMM
 * record's bytes (0 or KLOG_RELAY_COMM_SIZE) in @comm; NULL if the
 * buffer is full. The caller builds the record at that place + @comm,
 * its COMM record if any, then calls klog_relay_commit().
 */
static __always_inline char *klog_relay_reserve(struct rchan_buf *buf,
						struct klog_relay_cpu *st,
						int task, size_t size,
						u64 ts, size_t *comm)
{
	/* A new task in this sub-buffer, or its first record: named. */
	*comm = KLOG_RELAY_COMM_SIZE *
		((task != st->last_task) |
		 (buf->offset == sizeof(struct klog_subbuf_hdr)));
	if (unlikely(buf->offset + *comm + size > buf->chan->subbuf_size)) {
		klog_relay_finish_subbuf(buf);
		st->next_ts = ts;
		/* the first record of the new sub-buffer: named */
		*comm = KLOG_RELAY_COMM_SIZE;
		if (!relay_switch_subbuf(buf, *comm + size))
			return NULL;
	}
	return buf->data + buf->offset;
}

/*
 * The @bytes klog_relay_reserve() gave (COMM record and record) are
 * built: advance past them. No barrier before the offset update: no
 * reader reads buf->offset (read(2) and mmap readers take finished
 * sub-buffers only, published by relay's release of subbufs_produced;
 * snapshot readers take sub-buffers before a snapshot position, finished
 * in the flush that took it).
 */
static __always_inline void klog_relay_commit(struct rchan_buf *buf,
					      struct klog_relay_cpu *st,
					      int task, size_t bytes)
{
	buf->offset += bytes;
	st->last_task = task;
}

/*
 * Put one record of @size bytes into @buf, with its COMM record if it
 * needs one (klog_relay_reserve()); interrupts off (per-CPU) or
 * klog_relay.global_lock held. Returns false if the buffer is full.
 */
static __always_inline bool klog_relay_put(struct rchan_buf *buf,
					   struct klog_relay_cpu *st,
					   const struct klog_record *rec,
					   u64 seq, size_t size)
{
	int task = klog_relay_task(rec->pid, rec->cpu);
	size_t comm;
	char *p = klog_relay_reserve(buf, st, task, size, rec->ts_ns, &comm);

	if (!p)
		return false;
	/* LMM(put:A): plain stores, published with the sub-buffer */
	klog_relay_build_rec(p + comm, rec, seq, size);
	if (comm)
		klog_relay_build_comm(p, (struct klog_rec_hdr *)(p + comm),
				      current->comm);
	klog_relay_commit(buf, st, task, comm + size);
	return true;
}

/*
 * Offer @rec, numbered @seq, to @buf (NULL: the CPU has no buffer); the
 * buffer's writers are excluded. Counts it written or in one drop cause.
 */
static __always_inline void klog_relay_offer(struct rchan *chan,
					     struct rchan_buf *buf,
					     struct klog_relay_cpu *st,
					     const struct klog_record *rec,
					     u64 seq)
{
	size_t size = __klog_relay_rec_size(chan, rec);

	if (unlikely(!size))
		st->big++;
	else if (unlikely(klog_relay_frozen()))		/* LMM(offer:A) */
		st->frozen++;
	else if (unlikely(!buf))
		st->full++;
	else if (klog_relay_put(buf, st, rec, seq, size))
		st->written++;
	else
		st->full++;
}

/**
 * klog_relay_offer_staged() - offer a record an NMI staged
 * @buf: the buffer (NULL: the CPU has no buffer)
 * @st: its state
 * @e: the staged entry, its built record after it
 *
 * Like klog_relay_offer(), for the NMI staging area's drain
 * (klog_relay_nmi_drain()): the record takes its sequence number now, so
 * that a buffer's records stay in sequence order, and keeps the timestamp
 * taken at the NMI. It goes in with a COMM record in front of it by the
 * same rule as any record (klog_relay_reserve(): a task change in the
 * sub-buffer, or its first record), naming the task the NMI interrupted
 * with the comm copied at the NMI (@e->comm). Whether it was too big or
 * the recorder frozen was decided at the NMI (@e->drop): a record made
 * before a freeze is
 * written even if it is moved after it (klog_relay_flush() moves staged
 * records before it takes snapshot positions); one made while frozen is
 * counted as frozen even if the recorder was thawed since.
 *
 * Context: the buffer's writers excluded, as for klog_relay_offer(); on
 * the CPU that staged @e, inside the write path, or that CPU is offline.
 */
void klog_relay_offer_staged(struct rchan_buf *buf, struct klog_relay_cpu *st,
			     const struct klog_relay_staged *e)
{
	u64 seq = klog_relay.cfg.global ? st->seq++ : klog_relay_take_seq(st);
	const struct klog_rec_hdr *staged = (const void *)(e + 1);
	int task = klog_relay_task(staged->pid, staged->cpu);
	struct klog_rec_hdr *r;
	char *p = NULL;
	size_t comm;

	if (e->drop == KLOG_RELAY_STAGED_BIG) {
		st->big++;
		return;
	}
	if (e->drop == KLOG_RELAY_STAGED_FROZEN) {
		st->frozen++;
		return;
	}
	if (buf)
		p = klog_relay_reserve(buf, st, task, e->size, e->ts_ns,
				       &comm);
	if (!p) {
		st->full++;
		return;
	}
	/* LMM(put:A), as for any record: published with the sub-buffer */
	r = (struct klog_rec_hdr *)(p + comm);
	memcpy(r, staged, e->size);
	r->seq = seq;
	if (comm)
		klog_relay_build_comm(p, r, e->comm);
	klog_relay_commit(buf, st, task, comm + e->size);
	st->written++;
}

static void klog_relay_write_global(struct rchan *chan,
				    const struct klog_record *rec)
{
	struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu, 0);
	struct klog_relay_cpu *me;
	unsigned long flags;

	local_irq_save(flags);
	me = this_cpu_ptr(&klog_relay_cpu);
	if (klog_relay_write_begin(me)) {
		struct rchan_buf *buf = *per_cpu_ptr(chan->buf, 0);

		raw_spin_lock(&klog_relay.global_lock);
		/* This CPU's NMI records made before this one go first. */
		if (unlikely(klog_relay_nmi_pending(me)))
			klog_relay_nmi_drain(smp_processor_id(), buf, st);
		klog_relay_offer(chan, buf, st, rec, st->seq++);
		raw_spin_unlock(&klog_relay.global_lock);
		klog_relay_write_end(me);
	}
	local_irq_restore(flags);
}

static void klog_relay_write(struct klog_handler *h,
			     const struct klog_record *rec)
{
	/* Registered only while the channel exists (set_enabled()). */
	struct rchan *chan = READ_ONCE(klog_relay.chan); /* LMM(write:A) */
	struct klog_relay_cpu *st;
	unsigned long flags;

	/*
	 * relay buffers are not NMI-safe: an NMI record goes into this CPU's
	 * NMI staging area, to be moved into the buffer by an irq_work or
	 * the next write here (klog_relay_nmi.c).
	 */
	if (unlikely(rec->ctx == KLOG_CTX_NMI)) {
		klog_relay_nmi_stage(chan, rec);
		return;
	}
	if (klog_relay.cfg.global) {
		klog_relay_write_global(chan, rec);
		return;
	}

	/* All accounting with interrupts off: see klog_relay_take_seq(). */
	local_irq_save(flags);
	st = this_cpu_ptr(&klog_relay_cpu);
	if (klog_relay_write_begin(st)) {
		struct rchan_buf *buf = *this_cpu_ptr(chan->buf);

		/* This CPU's NMI records made before this one go first. */
		if (unlikely(klog_relay_nmi_pending(st)))
			klog_relay_nmi_drain(smp_processor_id(), buf, st);
		klog_relay_offer(chan, buf, st, rec, klog_relay_take_seq(st));
		klog_relay_write_end(st);
	}
	local_irq_restore(flags);
}

/**
 * klog_relay_drain_local() - move this CPU's staged NMI records
 *
 * Into this CPU's buffer, or the global buffer: for the irq_work an NMI
 * raised and for a flush. Not inside the write path: that runs with
 * interrupts off, as this does; were it ever interrupted, the records
 * would wait for the next write here.
 *
 * Context: interrupts off; the channel exists (the handler is registered,
 * or klog_relay.ctl_lock is held).
 */
void klog_relay_drain_local(void)
{
	/* LMM(drain_local:A): pairs with create:A and destroy:A */
	struct rchan *chan = READ_ONCE(klog_relay.chan);
	struct klog_relay_cpu *me = this_cpu_ptr(&klog_relay_cpu);
	unsigned int cpu = smp_processor_id();

	if (!chan || !klog_relay_nmi_pending(me) || me->in_write)
		return;
	klog_relay_write_begin(me);
	if (klog_relay.cfg.global) {
		raw_spin_lock(&klog_relay.global_lock);
		klog_relay_nmi_drain(cpu, *per_cpu_ptr(chan->buf, 0),
				     per_cpu_ptr(&klog_relay_cpu, 0));
		raw_spin_unlock(&klog_relay.global_lock);
	} else {
		klog_relay_nmi_drain(cpu, *this_cpu_ptr(chan->buf), me);
	}
	klog_relay_write_end(me);
}

struct klog_handler klog_relay_handler = {
	.name		= "relay",
	.write		= klog_relay_write,
	.trigger	= klog_relay_trigger,
};
