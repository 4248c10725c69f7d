// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the write path and sub-buffer boundaries
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
 * klog_relay_subbuf_start() writes each new sub-buffer's header. Before
 * relay switches sub-buffers (it counts the old one produced first), the
 * old one's padding is stored in its header: klog_relay_finish_subbuf().
 *
 * klog_relay_flush() finishes every buffer's current sub-buffer on the CPU
 * that writes it, and can record snapshot positions at the same time.
 * klog_relay_trigger() freezes an overwrite-mode recorder, whether or not
 * the trigger's own record could be written.
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
 * - subbuf_start:A, subbuf_start:B (the new lap's seq, then smp_wmb()
 *   before anything else of the lap). Pair with the snapshot reader's
 *   smp_rmb() between its copy of a sub-buffer and its re-check of the
 *   header's seq (klog collector, klog-snapshot.c): a copy holding any
 *   byte of the new lap fails the re-check.
 * - write:A (READ_ONCE of klog_relay.chan). Pairs with create:A and
 *   destroy:A (klog_relay.c): the handler is registered only after
 *   create:A, and list_add_tail_rcu() in register_klog_handler()
 *   publishes it with release; it is unregistered, and synchronize_rcu()
 *   has waited for every writer, before destroy:A.
 * - trigger:A (atomic_try_cmpxchg(), fully ordered) takes the trigger,
 *   ARMED -> FROZEN|BUSY: read-modify-writes of klog_relay.recorder are
 *   totally ordered, so one trigger wins, and freeze:A/freeze:B (a thaw
 *   keeps BUSY) cannot lose its change. No other pair.
 * - trigger:B (atomic_add_return_release(), BUSY -> INFO) after the
 *   trigger's info. Pairs with last_trigger_info:A (atomic_read_acquire()
 *   that sees INFO): the reader sees the whole of last_trigger.
 * - offer:A (atomic_read() of FROZEN) is relaxed by design: a record
 *   racing with a freeze is either written or counted as frozen.
 * - stage:A..C, drain:A..C (klog_relay_nmi.c): the NMI staging area,
 *   written by an NMI and emptied by the same CPU; see there.
 * - drain_local:A (READ_ONCE of klog_relay.chan), as write:A: the
 *   irq_works that call klog_relay_drain_local() are raised only while
 *   the handler is registered, and klog_relay_nmi_sync() has waited for
 *   them before destroy:A; a flush calls it with klog_relay.ctl_lock
 *   held, which create and destroy hold too.
 * - flush:A (smp_call_function_single(), waiting). The flushing CPU's
 *   stores (the finished sub-buffer, snap_pos, snap_ts) are ordered
 *   before the caller returns by the call's completion (csd unlock with
 *   release, waited for with acquire). Pairs with the readers of
 *   ``snapshot``, under klog_relay.ctl_lock after klog_relay_flush().
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/cpu.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_internal.h"

DEFINE_PER_CPU(struct klog_relay_cpu, klog_relay_cpu);

/*
 * Test hook: the next test_reenter sub-buffer starts make a klog record
 * from inside the write path, where klog_relay_subbuf_start() once printed
 * "buffer full" (a printk that another klog user, such as a console
 * driver or kleak's probe, turns into a klog call). The selftest checks
 * that each one is counted as reentered and nothing else is disturbed.
 */
static atomic_t klog_relay_test_reenter = ATOMIC_INIT(0);
module_param_named(test_reenter, klog_relay_test_reenter.counter, int, 0600);
MODULE_PARM_DESC(test_reenter,
		 "testing: make N klog records from inside the write path");

/*
 * Enter the write path on this CPU; interrupts off. False if this CPU is
 * already inside it: the record was made by code the write path called
 * (a tracepoint, a printk turned into klog records, a test hook) and is
 * counted as reentered, never written mid-switch, never deadlocked on
 * klog_relay.global_lock. Only this CPU stores in_write; the oops dump
 * reads it from another CPU.
 */
static __always_inline bool klog_relay_write_begin(struct klog_relay_cpu *me)
{
	if (unlikely(me->in_write)) {
		me->reentered++;
		return false;
	}
	WRITE_ONCE(me->in_write, true);			/* LMM(write_begin:A) */
	/*
	 * Guarantees: an oops dump that reads any store of this write path
	 * (a record's bytes, relay's positions, a staging area's tail) also
	 * reads in_write set, or later clear with the buffer's written count
	 * moved: it then says the buffer changed while it was read. No full
	 * barrier: a writer that enters as a dump starts may miss the freeze
	 * and the NMI hold (offer:A and drain:H may pass this store), and the
	 * dump may miss it at first; the dump's check afterwards (dump:D)
	 * catches it. Every record pays only this store and a write barrier
	 * (a compiler barrier on x86), not a full fence.
	 *
	 * Pairs with: dump:D (smp_rmb() after the dump read the buffer,
	 * before it reads in_write and written again) in klog_relay_dump.c.
	 *
	 * Relies on: every store into a buffer or out of a staging area
	 * coming after this one in program order.
	 */
	smp_wmb();					/* LMM(write_begin:B) */
	return true;
}

static __always_inline void klog_relay_write_end(struct klog_relay_cpu *me)
{
	/* Pairs with dump:B: the write path's stores are seen with it. */
	smp_store_release(&me->in_write, false);	/* LMM(write_end:A) */
}

/*
 * Drops accounted to buffer @buf_cpu that have sequence numbers: the ones
 * sub-buffer headers report. Called with the buffer's writers excluded
 * (on its CPU with interrupts off, or under klog_relay.global_lock) or for
 * stats. In per-CPU mode, NMI and reentered drops count once the next
 * record numbers them (klog_relay_take_seq()); a global buffer's NMI and
 * reentered drops (per calling CPU) take no number and count at once.
 */
u64 klog_relay_drops(unsigned int buf_cpu)
{
	const struct klog_relay_cpu *st = klog_relay_buf_state(buf_cpu);
	u64 drops = READ_ONCE(st->full) + READ_ONCE(st->big) +
		    READ_ONCE(st->frozen);
	unsigned int cpu;

	if (!klog_relay.cfg.global)
		return drops + READ_ONCE(st->folded);
	for_each_possible_cpu(cpu) {
		const struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu,
							     cpu);

		drops += READ_ONCE(c->nmi) + READ_ONCE(c->reentered);
	}
	return drops;
}

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

/*
 * Store the current sub-buffer's padding in its header before relay
 * counts it produced; a no-op if the buffer is full (the sub-buffer was
 * finished when it filled). No barrier here: relay publishes
 * subbufs_produced with smp_store_release() (relay-races patch), which
 * orders this store and every record before it (see Memory barriers).
 */
static void klog_relay_finish_subbuf(struct rchan_buf *buf)
{
	size_t size = buf->chan->subbuf_size;

	if (buf->offset > size)
		return;
	klog_relay_subbuf_hdr(buf->data)->padding =
		size - buf->offset;		/* LMM(finish_subbuf:A) */
}

/*
 * relay's subbuf_start callback, with interrupts off on the buffer's CPU
 * (or klog_relay.global_lock held), from the write path or a flush; or
 * before the buffer is visible, from relay_open()/relay_reset(). Nothing
 * here may printk or WARN: relay has set buf->offset = 0 but not yet
 * buf->data, and a printk can deadlock (a scheduler lock held by the klog
 * caller) or make klog records. A full buffer shows in stats (full) and
 * in the next header's lost.
 */
int klog_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding)
{
	struct klog_relay_cpu *st = klog_relay_buf_state(buf->cpu);
	struct klog_subbuf_hdr *hdr = subbuf;
	size_t backlog;
	u64 drops;

	if (unlikely(atomic_read(&klog_relay_test_reenter) > 0) &&
	    atomic_dec_if_positive(&klog_relay_test_reenter) >= 0)
		klog_printk("test_reenter\n");

	/*
	 * The reader stores subbufs_consumed (relay_subbufs_consumed()):
	 * a statistic, no ordering needed.
	 */
	backlog = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed);
	if (backlog > st->max_backlog)
		st->max_backlog = backlog;

	if (!klog_relay.cfg.overwrite && relay_buf_full(buf))
		return 0;

	/* The new lap's sequence number first, then everything else of it. */
	WRITE_ONCE(hdr->seq, st->subbuf_seq++);	/* LMM(subbuf_start:A) */
	/*
	 * Guarantees: a reader that sees any later store to this slot (the
	 * header fields below, padding = 0 of the new lap included, or a
	 * record) after LMM(subbuf_start:A) sees the new seq.
	 *
	 * Pairs with: the snapshot reader's smp_rmb() between its copy of
	 * the sub-buffer and its re-check of the header's seq (klog
	 * collector, klog-snapshot.c). A copy that holds any byte of the new
	 * lap fails the re-check and is skipped, never kept with the old
	 * seq and the new padding, lost or first_ts.
	 *
	 * Relies on: nothing else of the lap being stored before it.
	 */
	smp_wmb();					/* LMM(subbuf_start:B) */
	drops = klog_relay_drops(buf->cpu);
	hdr->magic = KLOG_SUBBUF_MAGIC;
	hdr->version = KLOG_RELAY_VERSION;
	hdr->hdr_size = sizeof(*hdr);
	hdr->cpu = buf->cpu;
	hdr->padding = 0;
	hdr->lost = drops - st->lost_reported;
	hdr->first_ts = st->next_ts;
	st->lost_reported = drops;
	subbuf_start_reserve(buf, sizeof(*hdr));
	return 1;
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

/*
 * Flight recorder: in overwrite mode the first trigger freezes the
 * recorder, after its own record was offered. Armed again by thawing.
 * Any context: one cmpxchg takes the trigger (ARMED -> FROZEN|BUSY), so
 * only one writer fills klog_relay.last_trigger; then BUSY becomes INFO.
 */
static void klog_relay_trigger(struct klog_handler *h,
			       const struct klog_record *rec)
{
	const char *reason = rec->payload;
	size_t len = rec->len;
	int old;

	if (!klog_relay.cfg.overwrite)
		return;
	old = atomic_read(&klog_relay.recorder);
	do {
		if ((old & (KLOG_RECORDER_ARMED | KLOG_RECORDER_BUSY)) !=
		    KLOG_RECORDER_ARMED)
			return;
	} while (!atomic_try_cmpxchg(&klog_relay.recorder, &old,
				     KLOG_RECORDER_FROZEN |
				     KLOG_RECORDER_BUSY)); /* LMM(trigger:A) */
	klog_relay.last_trigger.ts_ns = rec->ts_ns;
	klog_relay.last_trigger.cpu = rec->cpu;
	len = min(len, sizeof(klog_relay.last_trigger.reason) - 1);
	memcpy(klog_relay.last_trigger.reason, reason, len);
	klog_relay.last_trigger.reason[len] = '\0';
	/*
	 * BUSY (0x4) becomes INFO (0x8): BUSY is set and INFO clear here,
	 * and nobody else changes either, so the add carries into INFO only.
	 * Release: klog_relay_last_trigger_info()'s acquire that sees INFO
	 * (LMM(last_trigger_info:A)) sees the whole of last_trigger.
	 */
	BUILD_BUG_ON(KLOG_RECORDER_INFO != 2 * KLOG_RECORDER_BUSY);
	atomic_add_return_release(KLOG_RECORDER_BUSY,
				  &klog_relay.recorder); /* LMM(trigger:B) */
}

struct klog_handler klog_relay_handler = {
	.name		= "relay",
	.write		= klog_relay_write,
	.trigger	= klog_relay_trigger,
};

/**
 * klog_relay_last_trigger_info() - the trigger that froze the recorder
 * @info: filled in if there is one
 *
 * Context: process, klog_relay.ctl_lock held (no thaw can run); or the
 * oops/panic dump, without it: a thaw and a new trigger on another CPU
 * while it copies may mix two triggers' fields.
 * Return: true if the recorder was frozen by a trigger and not thawed
 * since; false while armed, or while the trigger's record is still being
 * stored.
 */
bool klog_relay_last_trigger_info(struct klog_relay_trigger_info *info)
{
	/* LMM(last_trigger_info:A): pairs with trigger:B */
	int st = atomic_read_acquire(&klog_relay.recorder);

	if ((st & (KLOG_RECORDER_ARMED | KLOG_RECORDER_INFO)) !=
	    KLOG_RECORDER_INFO)
		return false;
	*info = klog_relay.last_trigger;
	return true;
}

/*
 * Freeze (writes are counted as dropped), or thaw and re-arm the trigger
 * in one atomic step: a trigger is either before it (and thawed by it) or
 * after it (and freezes), never missed in between. A trigger still
 * storing its record keeps BUSY, so no second one can start storing.
 */
void klog_relay_freeze(bool frozen)
{
	int old = atomic_read(&klog_relay.recorder);

	if (frozen) {
		/* LMM(freeze:A) */
		atomic_or(KLOG_RECORDER_FROZEN, &klog_relay.recorder);
		return;
	}
	while (!atomic_try_cmpxchg(&klog_relay.recorder, &old,
				   (old & KLOG_RECORDER_BUSY) |
				   KLOG_RECORDER_ARMED)) /* LMM(freeze:B) */
		;
}

/* Finish the current sub-buffer of @buf if it holds records. */
static void klog_relay_flush_buf(struct rchan_buf *buf,
				 struct klog_relay_cpu *st, bool snapshot)
{
	if (buf->offset > sizeof(struct klog_subbuf_hdr) &&
	    buf->offset <= buf->chan->subbuf_size) {
		klog_relay_finish_subbuf(buf);
		st->next_ts = 0;
		relay_switch_subbuf(buf, 0);
	}
	if (snapshot) {
		st->snap_pos = buf->subbufs_produced;
		st->snap_ts = local_clock();
	}
}

static void klog_relay_flush_local(void *info)
{
	struct klog_relay_cpu *st = this_cpu_ptr(&klog_relay_cpu);
	struct rchan_buf *buf = *this_cpu_ptr(klog_relay.chan->buf);
	const bool *snapshot = info;

	/* In the write path: a record made while switching is reentered. */
	if (!klog_relay_write_begin(st))
		return;
	/* Staged NMI records first: before the snapshot position. */
	klog_relay_nmi_drain(smp_processor_id(), buf, st);
	klog_relay_flush_buf(buf, st, *snapshot);
	klog_relay_write_end(st);
}

static void klog_relay_drain_ipi(void *info)
{
	klog_relay_drain_local();
}

/**
 * klog_relay_flush() - finish every buffer's current sub-buffer
 * @snapshot: also record each buffer's position (subbufs_produced)
 *
 * Each online CPU flushes its own buffer in an IPI, with interrupts off,
 * so it cannot race with a writer there (relay_flush() would); buffers of
 * offline CPUs have no writers; a global buffer is flushed under its
 * lock. Every sub-buffer before a snapshot position was finished when its
 * CPU took the position, that is before klog_relay_flush() returned.
 * Records staged by NMIs before the flush are moved into the buffers
 * first (each CPU its own), so they are before the snapshot positions.
 *
 * Context: process, klog_relay.ctl_lock held, a channel exists.
 */
void klog_relay_flush(bool snapshot)
{
	struct klog_relay_cpu *me;
	unsigned long flags;
	unsigned int cpu;

	lockdep_assert_held(&klog_relay.ctl_lock);
	if (klog_relay.cfg.global) {
		/* Staged NMI records first: before the snapshot position. */
		on_each_cpu(klog_relay_drain_ipi, NULL, 1);
		local_irq_save(flags);
		me = this_cpu_ptr(&klog_relay_cpu);
		/* not nested: process context */
		klog_relay_write_begin(me);
		raw_spin_lock(&klog_relay.global_lock);
		klog_relay_flush_buf(*per_cpu_ptr(klog_relay.chan->buf, 0),
				     per_cpu_ptr(&klog_relay_cpu, 0), snapshot);
		raw_spin_unlock(&klog_relay.global_lock);
		klog_relay_write_end(me);
		local_irq_restore(flags);
		return;
	}
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(klog_relay.chan->buf, cpu);

		if (!buf)
			continue;
		/* LMM(flush:A): the IPI's stores are seen on return */
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, klog_relay_flush_local,
						 &snapshot, 1);
		} else {
			struct klog_relay_cpu *st = per_cpu_ptr(&klog_relay_cpu,
								cpu);

			/* no NMI, no irq_work there: its staged records */
			klog_relay_nmi_drain(cpu, buf, st);
			klog_relay_flush_buf(buf, st, snapshot);
		}
	}
	cpus_read_unlock();
}
