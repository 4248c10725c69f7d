// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the NMI staging areas
 *
 * relay buffers cannot be written from NMI context: relay_switch_subbuf()
 * and the relay callbacks assume that nothing interrupts them on their
 * CPU, and a global buffer is behind a spinlock an NMI cannot take. So a
 * record made in NMI context is built, byte for byte as the write path
 * would have built it (klog_relay_build_rec() in klog_relay_record.h), into
 * a small per-CPU staging area with the comm of the task it interrupted
 * (for the COMM record that may go in front of it), and moved into the buffer later, on the
 * same CPU, in the order the NMIs made them:
 *
 * - by the irq_work the NMI raised (it runs once interrupts are enabled
 *   again on that CPU), or
 * - by the next record written on that CPU, before that record, or
 * - by a flush (``flush``, ``snapshot``, disabling), before it finishes
 *   the sub-buffer,
 *
 * whichever comes first. A staged record takes its buffer sequence number
 * when it is moved (klog_relay_offer_staged()), so a buffer's records are
 * in sequence order; its timestamp, context, CPU and pid are the NMI's.
 *
 * Only a full staging area drops a record: it is counted as ``nmi`` (per
 * calling CPU, this_cpu_inc(), as before staging existed), and in a
 * per-CPU buffer takes its sequence number with the next record
 * (klog_relay_take_seq()). A record too big for a sub-buffer, or made
 * while the recorder is frozen, is staged as a header alone that says so,
 * and counted in that cause when it is moved, in order.
 *
 * Data structure
 * --------------
 *
 * Per CPU, KLOG_RELAY_NMI_SIZE bytes (a power of two) and two positions
 * in struct klog_relay_cpu, free-running byte counts: nmi_head (bytes
 * staged, stored only by an NMI) and nmi_tail (bytes moved out, stored
 * only by the CPU's drain). An entry is a struct klog_relay_staged and
 * the built record, padded to KLOG_RELAY_STAGED_ALIGN bytes; an entry
 * never wraps: if it does not fit before the end of the area, a header
 * of size KLOG_RELAY_STAGED_WRAP fills the end and the entry starts at 0.
 * Everything is a multiple of KLOG_RELAY_STAGED_ALIGN, so there is always
 * room for that header.
 *
 * Producer and consumer run on the same CPU (an offline CPU's area is
 * drained by a flush elsewhere, when no NMI can come), and the drain runs
 * with interrupts off inside the write path, so an NMI may interrupt the
 * drain, and "NMI context" nests: on x86 a #MC, #DB or kernel #BP (every
 * kprobe handler) may interrupt an NMI, in_nmi() is true there too, and a
 * klog call there stages a record while the NMI's own staging is half
 * done. So staging is in two steps, as the ftrace ring buffer commits:
 *
 * - reserve: this_cpu_cmpxchg() moves nmi_reserved past the entry (a
 *   nested staging that took space first makes it try again), checked
 *   against nmi_tail for room; the entry is then written in its own space.
 * - publish: nmi_writers counts the stagings in progress on the CPU; only
 *   the outermost (the one that counts 1) stores nmi_head = nmi_reserved,
 *   since every staging nested in it is finished by then. If a nested one
 *   reserved after the outermost read nmi_reserved and before it counted
 *   itself out, the outermost publishes again.
 *
 * The drain and the dump read only entries between nmi_tail and
 * nmi_head, and check each one (klog_relay_nmi_entry()) before using its
 * size: a malformed entry ends the reading (the drain counts what it
 * skips as one ``nmi`` drop); nothing is copied out on its word.
 *
 * Memory barriers
 * ---------------
 *
 * Both sides are on one CPU, so program order is all that is needed once
 * the compiler keeps the accesses in it (barrier()); the positions are
 * word-sized, stored with one WRITE_ONCE() (or this_cpu_cmpxchg()) each.
 *
 * - stage:A (READ_ONCE of nmi_tail) before the stores into the space it
 *   frees: they depend on the room check against it and on the
 *   reservation (a control dependency; the compiler does not invent
 *   stores). Pairs with drain:C: the drain was done with that space
 *   before it gave it back.
 * - stage:B (barrier() after the entry, before the staging counts itself
 *   out and the outermost publishes by storing nmi_head, stage:C).
 *   Pairs with drain:A (READ_ONCE of nmi_head) and drain:B (barrier()
 *   before reading the entries): the drain reads only whole entries.
 * - stage:D (barrier()s around the nmi_writers store that counts a
 *   staging out): a nested staging that reserves before it sees the
 *   count not yet 0 and leaves the publishing to this one, which reads
 *   nmi_reserved again after it; one that comes after sees 0 and
 *   publishes itself.
 * - drain:C (barrier() after the entry is copied out, before nmi_tail is
 *   stored). Pairs with stage:A.
 * - drain:H (atomic_read of klog_relay_nmi_holds, inside the write path):
 *   while the oops/panic dump reads the staging areas, nothing moves
 *   records out of them. Pairs with dump:A (the dump's hold store, then
 *   its fully ordered freeze); a drain that raced with it and moved
 *   records is seen by the dump's reader afterwards
 *   (klog_relay_nmi_read_changed(): the tail moved, ``changed while
 *   read``); in a global buffer through klog_relay.global_lock, under
 *   which the drain runs and which the dump takes after dump:A.
 * - flush:H (atomic_read of the hold count after a flush's drains): a
 *   drain that saw a hold (drain:H) did so before its flush returned
 *   (flush:A, on_each_cpu()'s wait for a global buffer's drains, or the
 *   flushing CPU's own program order for an offline CPU), so by
 *   coherence the flush reads that count or a later one, and flushes
 *   again (klog_relay_flush()).
 *
 * The dump reads a staging area from another CPU (klog_relay_nmi_read_*()):
 * stage:C is a release for it, read with acquire (read:A); it reads only
 * entries between nmi_tail and that nmi_head, which no NMI writes while
 * nmi_tail stands still, and nmi_tail stands still while the dump holds
 * drains (drain:H) once it saw the CPU outside the write path (its last
 * drain's nmi_tail store is before write_end:A's release), or because
 * the CPU is stopped (panic), or because it is the dumping CPU itself.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "klog_relay_internal.h"

/*
 * Bytes of NMI staging area per CPU. test_klog's NMI source makes 32
 * records per NMI, 128 bytes each in a staging area for the gauntlet's
 * 48-byte payloads: a quarter of the area.
 */
#define KLOG_RELAY_NMI_SIZE	SZ_16K

struct klog_relay_nmi {
	u8		*area;		/* KLOG_RELAY_NMI_SIZE bytes */
	struct irq_work	work;		/* moves them: klog_relay_nmi_work() */
};

static DEFINE_PER_CPU(struct klog_relay_nmi, klog_relay_nmi);

/*
 * Test hook: NMI records staged while their CPU was inside the write path
 * (a record being written, or staged records being moved). The gauntlet
 * reads it to show that it made the case it tests.
 */
static atomic_t klog_relay_nmi_in_write = ATOMIC_INIT(0);
module_param_named(test_nmi_in_write, klog_relay_nmi_in_write.counter, int,
		   0400);
MODULE_PARM_DESC(test_nmi_in_write,
		 "testing: NMI records made while their CPU was inside the write path");

/*
 * Odd while the oops/panic dump reads the staging areas: drains leave the
 * staged records where they are (klog_relay_nmi_hold()). Each hold and
 * each release adds one, so a flush can tell that a hold came and went
 * while it ran (klog_relay_nmi_wait_released()).
 */
static atomic_t klog_relay_nmi_holds = ATOMIC_INIT(0);

/* The irq_work an NMI raised: hard interrupt, on the NMI's CPU. */
static void klog_relay_nmi_work(struct irq_work *work)
{
	klog_relay_drain_local();
}

/*
 * Count a staging out of this CPU's; the outermost publishes every entry
 * reserved so far, its own and those of the stagings nested in it.
 */
static __always_inline void klog_relay_nmi_publish(struct klog_relay_cpu *me)
{
	unsigned long reserved;

again:
	reserved = READ_ONCE(me->nmi_reserved);
	/*
	 * Release for the oops/panic dump, which reads the area from another
	 * CPU: pairs with read:A in klog_relay_nmi_read_begin(). A compiler
	 * barrier on x86; this CPU's drain needs only stage:B.
	 */
	if (me->nmi_writers == 1)
		smp_store_release(&me->nmi_head, reserved); /* LMM(stage:C) */
	barrier();					/* LMM(stage:D) */
	WRITE_ONCE(me->nmi_writers, me->nmi_writers - 1);
	barrier();					/* LMM(stage:D) */
	/* A nested staging reserved after the read above: publish it too. */
	if (unlikely(READ_ONCE(me->nmi_reserved) != reserved) &&
	    !me->nmi_writers) {
		WRITE_ONCE(me->nmi_writers, 1);
		barrier();
		goto again;
	}
}

/*
 * Test hook: the next test_nmi_nest NMI records make a klog record from
 * inside their staging, between the reservation and the publishing, as
 * a kprobe (#BP) or #DB inside the NMI would. The selftest checks that
 * both records arrive, in order, and nothing is counted lost.
 */
static atomic_t klog_relay_test_nmi_nest = ATOMIC_INIT(0);
module_param_named(test_nmi_nest, klog_relay_test_nmi_nest.counter, int,
		   0600);
MODULE_PARM_DESC(test_nmi_nest,
		 "testing: make N klog records from inside NMI records' staging");

/**
 * klog_relay_nmi_stage() - stage a record made in NMI context
 * @chan: the channel
 * @rec: the record
 *
 * Builds @rec into this CPU's staging area and raises the irq_work that
 * moves it into the buffer; counts it as ``nmi`` if the area has no room.
 *
 * Context: NMI, including a #MC, #DB or #BP nested inside an NMI that
 * is staging a record on this CPU. Takes no lock, does not print.
 */
void klog_relay_nmi_stage(struct rchan *chan, const struct klog_record *rec)
{
	struct klog_relay_nmi *n = this_cpu_ptr(&klog_relay_nmi);
	struct klog_relay_cpu *me = this_cpu_ptr(&klog_relay_cpu);
	unsigned long head, tail, old;
	size_t size, need, off, skip;
	struct klog_relay_staged *e;
	u32 drop = KLOG_RELAY_STAGED_OK;
	bool staged = false;

	/* The built record after the entry header: 8-byte stores. */
	BUILD_BUG_ON(sizeof(*e) % KLOG_REC_ALIGN);
	if (unlikely(READ_ONCE(me->in_write)))
		atomic_inc(&klog_relay_nmi_in_write);
	/* The causes in klog_relay_offer()'s order; offer:A's relaxed read. */
	size = klog_relay_rec_size(chan, rec);
	if (unlikely(!size))
		drop = KLOG_RELAY_STAGED_BIG;
	else if (unlikely(klog_relay_frozen()))
		drop = KLOG_RELAY_STAGED_FROZEN;
	if (drop != KLOG_RELAY_STAGED_OK)
		size = 0;
	need = ALIGN(sizeof(*e) + size, KLOG_RELAY_STAGED_ALIGN);

	/* Counted in: a staging nested in this one leaves publishing to it. */
	WRITE_ONCE(me->nmi_writers, me->nmi_writers + 1);
	barrier();
	/* Reserve: [head, head + skip + need), the wrap header first. */
	head = READ_ONCE(me->nmi_reserved);
	do {
		tail = READ_ONCE(me->nmi_tail);		/* LMM(stage:A) */
		off = head & (KLOG_RELAY_NMI_SIZE - 1);
		skip = need > KLOG_RELAY_NMI_SIZE - off ?
		       KLOG_RELAY_NMI_SIZE - off : 0;
		/* need can be anything up to a sub-buffer: compare, not add */
		if (need > KLOG_RELAY_NMI_SIZE ||
		    head - tail + skip > KLOG_RELAY_NMI_SIZE - need) {
			this_cpu_inc(klog_relay_cpu.nmi);
			goto publish;
		}
		old = head;
		head = this_cpu_cmpxchg(klog_relay_cpu.nmi_reserved, old,
					old + skip + need);
	} while (head != old);

	if (skip) {
		e = (struct klog_relay_staged *)(n->area + off);
		e->size = KLOG_RELAY_STAGED_WRAP;
		off = 0;
	}
	e = (struct klog_relay_staged *)(n->area + off);
	e->size = size;
	e->drop = drop;
	e->ts_ns = rec->ts_ns;
	if (size) {
		klog_relay_build_staged(e + 1, rec, size);
		/*
		 * The interrupted task's name now, for a COMM record when the
		 * record is moved: current->comm is an array in the task,
		 * readable in NMI context without task_lock() (a racing rename
		 * may mix both names; the COMM record ends it with a NUL).
		 */
		memcpy(e->comm, current->comm, sizeof(e->comm));
	}
	staged = true;
	/*
	 * Test hook: a record made here, as by a kprobe inside this NMI;
	 * only from the outermost staging (one nested level each).
	 */
	if (unlikely(atomic_read(&klog_relay_test_nmi_nest) > 0) &&
	    me->nmi_writers == 1 &&
	    atomic_dec_if_positive(&klog_relay_test_nmi_nest) >= 0)
		klog_printk("test_nmi_nest\n");
	/*
	 * Guarantees: the drain that sees the new nmi_head sees the whole
	 * entry (and the wrap header before it), and every entry of the
	 * stagings nested in this one, which finished before it goes on.
	 *
	 * Pairs with: drain:A and drain:B in klog_relay_nmi_drain().
	 *
	 * Relies on: the drain running on this CPU, or on another CPU only
	 * while this one is offline.
	 */
	barrier();					/* LMM(stage:B) */
publish:
	klog_relay_nmi_publish(me);
	if (staged)
		irq_work_queue(&n->work);
}

/*
 * The entry of @cpu's staging area at position @pos, checked against
 * everything a reader relies on before it uses the entry's size (nested
 * NMI contexts, or a crash after a memory corruption, must not make it
 * copy or skip past what was staged): its header inside the area and
 * before @head, a wrap header, or a staged drop without bytes, or a
 * record whose own header agrees with the entry. Its length in the area
 * in @len; NULL at anything else.
 */
static const struct klog_relay_staged *
klog_relay_nmi_check(unsigned int cpu, unsigned long pos, unsigned long head,
		     size_t *len)
{
	const u8 *area = per_cpu_ptr(&klog_relay_nmi, cpu)->area;
	size_t off = pos & (KLOG_RELAY_NMI_SIZE - 1);
	const struct klog_relay_staged *e = (const void *)(area + off);
	const struct klog_rec_hdr *h = (const void *)(e + 1);
	unsigned long room = head - pos;

	/* a wrap header is only its first word: it may end the area */
	if (!area || room > KLOG_RELAY_NMI_SIZE ||
	    off % KLOG_RELAY_STAGED_ALIGN)
		return NULL;
	if (e->size == KLOG_RELAY_STAGED_WRAP) {
		*len = KLOG_RELAY_NMI_SIZE - off;
		return *len > room ? NULL : e;
	}
	if (sizeof(*e) > KLOG_RELAY_NMI_SIZE - off ||
	    e->size > KLOG_RELAY_NMI_SIZE - off - sizeof(*e))
		return NULL;
	*len = ALIGN(sizeof(*e) + e->size, KLOG_RELAY_STAGED_ALIGN);
	if (*len > room)
		return NULL;
	if ((e->drop == KLOG_RELAY_STAGED_BIG ||
	     e->drop == KLOG_RELAY_STAGED_FROZEN) && !e->size)
		return e;
	if (e->drop != KLOG_RELAY_STAGED_OK || e->size < sizeof(*h) ||
	    h->size != e->size || sizeof(*h) + (size_t)h->len > h->size ||
	    (h->kind != KLOG_RELAY_TEXT && h->kind != KLOG_RELAY_RAW &&
	     h->kind != KLOG_RELAY_ARGS))
		return NULL;
	return e;
}

/* The entry at @r's position (klog_relay_nmi_check()); sets r->bad. */
static const struct klog_relay_staged *
klog_relay_nmi_entry(struct klog_relay_nmi_reader *r, size_t *len)
{
	const struct klog_relay_staged *e;

	e = klog_relay_nmi_check(r->cpu, r->pos, r->head, len);
	if (!e)
		r->bad = true;
	return e;
}

/**
 * klog_relay_nmi_drain() - move a CPU's staged NMI records into a buffer
 * @cpu: the CPU whose staging area is drained
 * @buf: the buffer to move them into (NULL: none; counted as full)
 * @st: its state
 *
 * Each record is offered to @buf in the order it was staged, with its
 * own timestamp and the buffer's next sequence number; records an NMI
 * stages meanwhile are moved too.
 *
 * Context: inside the write path of @cpu, on @cpu with interrupts off,
 * the buffer's writers excluded (per-CPU buffer: that is all;
 * global: klog_relay.global_lock held); or @cpu is offline, cpu hotplug
 * locked, with klog_relay.ctl_lock held.
 */
void klog_relay_nmi_drain(unsigned int cpu, struct rchan_buf *buf,
			  struct klog_relay_cpu *st)
{
	struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu, cpu);
	unsigned long tail = c->nmi_tail, head;

	/*
	 * The oops/panic dump reads the staged records where they are: leave
	 * them. Inside the write path (or under global_lock): pairs with
	 * dump:A; a drain that raced with it is told by the tail it moved.
	 */
	if (unlikely(atomic_read(&klog_relay_nmi_holds) & 1)) /* LMM(drain:H) */
		return;
	while ((head = READ_ONCE(c->nmi_head)) != tail) { /* LMM(drain:A) */
		/* Pairs with stage:B: the entries up to head are whole. */
		barrier();				/* LMM(drain:B) */
		while (tail != head) {
			const struct klog_relay_staged *e;
			size_t len;

			e = klog_relay_nmi_check(cpu, tail, head, &len);
			if (unlikely(!e)) {
				/*
				 * Never copied or skipped on a bad entry's
				 * word: the rest is dropped, counted once.
				 */
				if (cpu == smp_processor_id())
					this_cpu_inc(klog_relay_cpu.nmi);
				else
					c->nmi++;	/* offline: no NMI */
				len = head - tail;
			} else if (e->size != KLOG_RELAY_STAGED_WRAP) {
				klog_relay_offer_staged(buf, st, e);
			}
			tail += len;
			/*
			 * Guarantees: the entry was read (and copied into the
			 * buffer) before an NMI may reuse its space.
			 *
			 * Pairs with: stage:A in klog_relay_nmi_stage().
			 */
			barrier();			/* LMM(drain:C) */
			WRITE_ONCE(c->nmi_tail, tail);
		}
	}
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
		klog_relay_global_lock();
		klog_relay_nmi_drain(cpu, *per_cpu_ptr(chan->buf, 0),
				     per_cpu_ptr(&klog_relay_cpu, 0));
		klog_relay_global_unlock();
	} else {
		klog_relay_nmi_drain(cpu, *this_cpu_ptr(chan->buf), me);
	}
	klog_relay_write_end(me);
}

/**
 * klog_relay_nmi_hold() - keep the staged records where they are, or not
 * @hold: true while the oops/panic dump reads the staging areas
 *
 * A drain that starts once the hold is seen (klog_relay_nmi_drain():
 * drain:H) moves nothing; the records stay staged until the hold ends and
 * a write, irq_work or flush on their CPU moves them (a flush waits for
 * the end: klog_relay_nmi_wait_released()). The caller orders its reading
 * after the store (dump:A, a fully ordered atomic) and checks that no
 * drain had started (the CPU outside the write path). Holding twice, or
 * releasing twice, changes nothing the second time (one cmpxchg: a crash
 * inside the dump, or the test hook, may come at any point).
 *
 * Context: any, the oops/panic dump or the test hook; takes no lock,
 * does not print.
 */
void klog_relay_nmi_hold(bool hold)
{
	int holds = atomic_read(&klog_relay_nmi_holds);

	while ((holds & 1) != hold &&
	       !atomic_try_cmpxchg(&klog_relay_nmi_holds, &holds, holds + 1))
		;
}

/**
 * klog_relay_nmi_wait_released() - wait until no dump holds the records
 *
 * A flush moves every staged record (klog_relay_flush()). While an oops
 * dump holds them (klog_relay_nmi_hold()), drains leave them, and a
 * flush that went on would leave them behind: after a disable, the next
 * create or reset would forget them, neither written nor counted. So the
 * flush waits here first, and so does a thaw, which would let writers
 * run under the dump. An oops dump ends its hold when it ends (it stops
 * after 10 s, and waits for each busy CPU 10 ms at most); a
 * panic's dump never returns. The wait is not interrupted: a record is
 * never left behind for a signal. Only the test hook holds for longer.
 *
 * Context: process, klog_relay.ctl_lock held; sleeps.
 * Return: the hold count seen released. Read again after the drains of a
 * flush (flush:H), a count that moved says a hold began meanwhile: a
 * drain may have left records staged, and the flush is done again.
 */
unsigned int klog_relay_nmi_wait_released(void)
{
	int holds;

	might_sleep();
	while ((holds = atomic_read(&klog_relay_nmi_holds)) & 1)
		schedule_timeout_uninterruptible(1);
	return holds;
}

/* Test hook: test_nmi_hold=1 holds the staged records as a dump does. */
static int klog_relay_nmi_hold_set(const char *val,
				   const struct kernel_param *kp)
{
	bool hold;
	int ret = kstrtobool(val, &hold);

	if (!ret)
		klog_relay_nmi_hold(hold);
	return ret;
}

static int klog_relay_nmi_hold_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&klog_relay_nmi_holds) & 1);
}

static const struct kernel_param_ops klog_relay_nmi_hold_ops = {
	.set	= klog_relay_nmi_hold_set,
	.get	= klog_relay_nmi_hold_get,
};
module_param_cb(test_nmi_hold, &klog_relay_nmi_hold_ops, NULL, 0600);
MODULE_PARM_DESC(test_nmi_hold,
		 "testing: 1 holds the NMI staging areas as the oops dump does, until 0");

/**
 * klog_relay_nmi_read_begin() - start reading a CPU's staged records
 * @cpu: the CPU whose staging area is read
 * @r: the reader, filled in: positions and counts
 *
 * For the oops/panic dump: the records still staged on @cpu (between
 * nmi_tail and nmi_head, read once here), counted: @r->records (records
 * with their bytes), @r->frozen and @r->big (staged as drops of that
 * cause, no bytes); @r->bad if an entry is malformed (reading stops
 * there). klog_relay_nmi_read_next() then returns the records in order.
 *
 * Context: any, no lock, no printing. The caller makes sure that no
 * drain moves records out meanwhile (klog_relay_nmi_hold(), the CPU seen
 * outside the write path, stopped, or the caller's own); NMIs may still
 * stage records, after the head read here: klog_relay_nmi_read_changed()
 * tells.
 */
void klog_relay_nmi_read_begin(unsigned int cpu,
			       struct klog_relay_nmi_reader *r)
{
	const struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu, cpu);
	const struct klog_relay_staged *e;
	size_t len;

	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->tail = READ_ONCE(c->nmi_tail);
	/* Pairs with stage:C: the entries up to head are whole. */
	r->head = smp_load_acquire(&c->nmi_head);	/* LMM(read:A) */
	if (!per_cpu_ptr(&klog_relay_nmi, cpu)->area) {
		r->bad = r->head != r->tail;
		r->head = r->tail;
	}
	for (r->pos = r->tail; r->pos != r->head; r->pos += len) {
		e = klog_relay_nmi_entry(r, &len);
		if (!e)
			break;
		if (e->size == KLOG_RELAY_STAGED_WRAP)
			continue;
		if (e->drop == KLOG_RELAY_STAGED_BIG)
			r->big++;
		else if (e->drop == KLOG_RELAY_STAGED_FROZEN)
			r->frozen++;
		else
			r->records++;
	}
	r->pos = r->tail;
}

/**
 * klog_relay_nmi_read_next() - the next staged record
 * @r: the reader (klog_relay_nmi_read_begin())
 * @hdr: set to a copy of its header (a version 2 record header, seq 0:
 *	it takes its number when it is moved), checked again as copied, so
 *	that bytes changed after klog_relay_nmi_check() move no bound
 * @comm: set to the task name copied at the NMI (TASK_COMM_LEN bytes,
 *	not always NUL-terminated)
 *
 * Context: as klog_relay_nmi_read_begin().
 * Return: its payload, @hdr->len bytes inside the staging area, or NULL
 * after the last (or at an entry that changed: @r->bad).
 */
const u8 *klog_relay_nmi_read_next(struct klog_relay_nmi_reader *r,
				   struct klog_rec_hdr *hdr, const char **comm)
{
	const struct klog_relay_staged *e;
	size_t len;

	while (r->pos != r->head) {
		e = klog_relay_nmi_entry(r, &len);
		if (!e)
			return NULL;
		r->pos += len;
		if (e->size == KLOG_RELAY_STAGED_WRAP ||
		    e->drop != KLOG_RELAY_STAGED_OK)
			continue;
		memcpy(hdr, e + 1, sizeof(*hdr));
		if (sizeof(*e) + sizeof(*hdr) + (size_t)hdr->len > len) {
			r->bad = true;
			return NULL;
		}
		*comm = e->comm;
		return (const u8 *)(e + 1) + sizeof(*hdr);
	}
	return NULL;
}

/**
 * klog_relay_nmi_read_changed() - did the staging area change since read?
 * @r: the reader (klog_relay_nmi_read_begin())
 *
 * Context: as klog_relay_nmi_read_begin().
 * Return: 0 if not; KLOG_RELAY_NMI_MOVED if records were moved out (what
 * was read may be torn); KLOG_RELAY_NMI_ADDED if NMIs staged records
 * since (not read; what was read is whole).
 */
int klog_relay_nmi_read_changed(const struct klog_relay_nmi_reader *r)
{
	const struct klog_relay_cpu *c = per_cpu_ptr(&klog_relay_cpu, r->cpu);

	if (READ_ONCE(c->nmi_tail) != r->tail)
		return KLOG_RELAY_NMI_MOVED;
	if (READ_ONCE(c->nmi_head) != r->head)
		return KLOG_RELAY_NMI_ADDED;
	return 0;
}

/**
 * klog_relay_nmi_sync() - wait for the irq_works NMIs raised
 *
 * After the handler was unregistered (no NMI can stage any more): every
 * irq_work has run, so none is left to touch the channel. Records it did
 * not move, if any, are moved by the flush that follows.
 *
 * Context: process, klog_relay.ctl_lock held.
 */
void klog_relay_nmi_sync(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&klog_relay_nmi, cpu)->work);
}

/**
 * klog_relay_nmi_init() - allocate the staging areas
 *
 * One per possible CPU, for the module's life.
 *
 * Context: process, module init.
 * Return: 0 or -ENOMEM.
 */
int klog_relay_nmi_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_relay_nmi *n = per_cpu_ptr(&klog_relay_nmi, cpu);

		n->work = IRQ_WORK_INIT_HARD(klog_relay_nmi_work);
		n->area = kzalloc_node(KLOG_RELAY_NMI_SIZE, GFP_KERNEL,
				       cpu_to_node(cpu));
		if (!n->area) {
			klog_relay_nmi_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * klog_relay_nmi_exit() - free the staging areas
 *
 * Context: process, the handler unregistered and klog_relay_nmi_sync()
 * done, or never registered.
 */
void klog_relay_nmi_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct klog_relay_nmi *n = per_cpu_ptr(&klog_relay_nmi, cpu);

		kfree(n->area);
		n->area = NULL;
	}
}
