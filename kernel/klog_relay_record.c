// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: records of the NMI staging area, built and offered
 *
 * What the NMI staging area (klog_relay_nmi.c) takes from the write path,
 * out of line: a record's size and the record built, at the NMI, by the
 * same inline code as a record written at once (klog_relay_record.h),
 * and, when the record is moved into its buffer, the same reservation,
 * sequence number and COMM record rule (klog_relay_offer_staged()); and
 * the COMM record, built out of line for both: it is written once per
 * sub-buffer or task change, and kept out of the per-record code. The
 * write path's rules and memory barriers: klog_relay_write.c.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/sched.h>
#include <linux/string.h>
#include "klog_relay_record.h"

/**
 * klog_relay_build_comm() - build the COMM record of a record
 * @dst: where it goes: KLOG_RELAY_COMM_SIZE bytes in front of @named
 * @named: the record it names, already built
 * @comm: the task name
 *
 * The COMM record takes @named's seq (a COMM record takes no number of
 * its own), timestamp, pid, context and CPU. @comm is current->comm of
 * the klog call: read by the caller for a record built now (the core
 * calls the handler from the klog call, and rec->pid is current->pid
 * there, in IRQ context too: the interrupted task), or copied at the NMI
 * into the staging area for a staged record. current->comm is read
 * without task_lock(), which cannot be taken here: it is an array inside
 * the task, always readable, NMI included; a rename racing with the copy
 * may give a mix of both names, and strscpy_pad() still ends it with a
 * NUL. Plain stores, published with the sub-buffer (LMM(put:A)).
 */
void klog_relay_build_comm(void *dst, const struct klog_rec_hdr *named,
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

/* For the NMI staging area: any context, NMI included. */
size_t klog_relay_rec_size(const struct rchan *chan,
			   const struct klog_record *rec)
{
	return __klog_relay_rec_size(chan, rec);
}

/*
 * Build @rec into an NMI staging area entry, with sequence number 0:
 * klog_relay_offer_staged() numbers it when it moves it. Any context.
 */
void klog_relay_build_staged(void *dst, const struct klog_record *rec,
			     size_t size)
{
	klog_relay_build_rec(dst, rec, rec->len, 0, size);
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
	struct klog_rec_hdr *r;
	char *p = NULL;
	size_t comm;
	int task;

	/* a drop has no record after @e: nothing past it is read */
	if (e->drop == KLOG_RELAY_STAGED_BIG) {
		st->big++;
		return;
	}
	if (e->drop == KLOG_RELAY_STAGED_FROZEN) {
		st->frozen++;
		return;
	}
	task = klog_relay_task(staged->pid, staged->cpu);
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
