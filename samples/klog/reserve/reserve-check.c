// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-check.c - the reserve collector's reader side
 *
 * Each reader thread takes a produced sub-buffer once all its records
 * are committed, saves it, and checks every record (size, checksum,
 * sequence). See the overview in reserve.c and reserve-format.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../tools/lib/klog/klog_hash.h"
#include "../../../tools/lib/klog/klog-stream.h"
#include "reserve-app.h"

/* ---- Record checks --------------------------------------------------- */

__printf(3, 4)
void rcpu_bad(struct rcpu *r, __u64 off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->bad++ >= BAD_REPORT)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ra_err("cpu%d: %s offset %llu: %s", r->cpu, r->out_path,
	       (unsigned long long)off, msg);
}

static void check_subbuf_hdr(struct rcpu *r, const struct reserve_subbuf_hdr *h)
{
	if (h->version != RESERVE_VERSION || h->hdr_size != sizeof(*h) ||
	    (int)h->cpu != r->cpu || h->committed != h->reserved)
		rcpu_bad(r, r->off,
			 "bad sub-buffer header (version %u, size %u, cpu %u, committed %u of %u)",
			 h->version, h->hdr_size, h->cpu, h->committed, h->reserved);
	if (h->seq != r->next_subbuf) {
		if (h->seq < r->next_subbuf)
			rcpu_bad(r, r->off, "sub-buffer %llu after %llu",
				 (unsigned long long)h->seq,
				 (unsigned long long)r->next_subbuf - 1);
		else
			r->subbuf_gaps += h->seq - r->next_subbuf;
	}
	r->next_subbuf = h->seq + 1;
	r->hdr_lost += h->lost;
	r->subbufs++;
}

/* One whole record at @p: a record that fails is torn or stale. */
static void check_record(struct rcpu *r, const unsigned char *p)
{
	const struct reserve_rec *rec = (const void *)p;
	const unsigned char *payload = p + sizeof(*rec);
	size_t i, n = rec->size - sizeof(*rec);
	__u32 csum;

	csum = klog_fnv1a(KLOG_FNV1A_INIT, rec,
			  offsetof(struct reserve_rec, csum));
	csum = klog_fnv1a(csum, payload, n);
	if (rec->cpu != r->cpu || rec->ctx > RESERVE_CTX_HARDIRQ ||
	    rec->zero || csum != rec->csum) {
		rcpu_bad(r, r->off,
			 "record fails its check (cpu %u, ctx %u, seq %llu, checksum %08x, computed %08x)",
			 rec->cpu, rec->ctx, (unsigned long long)rec->seq,
			 rec->csum, csum);
		return;
	}
	for (i = 0; i < n; i++) {
		if (payload[i] != (unsigned char)(rec->seq * 31 + i)) {
			rcpu_bad(r, r->off, "record seq %llu: payload byte %zu wrong",
				 (unsigned long long)rec->seq, i);
			return;
		}
	}
	if (rec->seq < r->next_seq) {
		rcpu_bad(r, r->off, "record seq %llu after %llu (stale)",
			 (unsigned long long)rec->seq,
			 (unsigned long long)r->next_seq - 1);
		return;
	}
	r->gaps += rec->seq - r->next_seq;
	r->next_seq = rec->seq + 1;
	r->records++;
	if (rec->flags & RESERVE_REC_NESTED)
		r->nested++;
	if (rec->flags & RESERVE_REC_DELAYED)
		r->delayed++;
}

/*
 * ks_need_fn for the stream: how long the item at @p is. A header is
 * known by its magic; anything else must be a record that fits in a
 * sub-buffer, or the rest of the stream is not checked (reported).
 */
static int item_need(const unsigned char *p, size_t avail, size_t *need,
		     void *arg)
{
	struct rcpu *r = arg;
	__u32 first;

	*need = sizeof(first);
	if (avail < sizeof(first))
		return 0;
	memcpy(&first, p, sizeof(first));
	if (first == RESERVE_SUBBUF_MAGIC) {
		*need = sizeof(struct reserve_subbuf_hdr);
		return 0;
	}
	if (first < sizeof(struct reserve_rec) || first % RESERVE_REC_ALIGN ||
	    first > r->subbuf_size - sizeof(struct reserve_subbuf_hdr)) {
		rcpu_bad(r, r->off,
			 "no record here (size %u); the rest of the stream is not checked",
			 first);
		r->failed = true;
		return -1;
	}
	*need = first;
	return 0;
}

/* ks_item_fn: check one whole item (8-byte aligned in stream and map). */
static int item_check(const unsigned char *p, size_t size, void *arg)
{
	struct rcpu *r = arg;

	if (*(const __u32 *)p == RESERVE_SUBBUF_MAGIC)
		check_subbuf_hdr(r, (const void *)p);
	else
		check_record(r, p);
	r->off += size;
	return 0;
}

/* Reader thread: save the bytes, check them. */
int reserve_sink(struct ra_cpu *c, const void *data, size_t len, void *arg)
{
	struct rcpu *r = c->priv;

	(void)arg;
	if (ra_write_full(r->out_fd, data, len)) {
		ra_err("%s: write: %s", r->out_path, strerror(errno));
		return -1;
	}
	if (r->failed)
		return 0;
	if (ks_items_feed(&r->items, data, len, item_need, item_check, r) &&
	    r->items.nomem) {
		ra_err("cpu%d: out of memory", r->cpu);
		return -1;
	}
	return 0;
}

static __u32 load_acquire_u32(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC, ns % NSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * mmap mode: the bytes of finished sub-buffer @subbuf to take, once all
 * of them are committed. relay_app read cpuN.produced before (the kernel
 * loads it with acquire), so the reserved count is final; the commit
 * count is loaded with acquire, pairing with the writers' release. Until
 * they are equal a writer is still filling a record: wait, however long
 * it takes (enabled=0 at the stop waits for every writer too).
 */
long reserve_subbuf_used(struct ra_cpu *c, const void *subbuf,
			 size_t subbuf_size, void *arg)
{
	const struct reserve_subbuf_hdr *h = subbuf;
	struct reserve *rs = arg;
	struct rcpu *r = c->priv;
	__u32 reserved = __atomic_load_n(&h->reserved, __ATOMIC_RELAXED);
	__u32 committed = load_acquire_u32(&h->committed);
	__u64 t0, waited, warn_ns = (__u64)(rs->o.warn_after * 1e9);
	int warned = 0;

	if (h->magic != RESERVE_SUBBUF_MAGIC || h->hdr_size != sizeof(*h) ||
	    (int)h->cpu != c->cpu || reserved > subbuf_size - sizeof(*h)) {
		ra_err("cpu%d: skipping a produced sub-buffer with a bad header (magic %08x, size %u, cpu %u, reserved %u)",
		       c->cpu, h->magic, h->hdr_size, h->cpu, reserved);
		return -1;
	}
	if (committed == reserved)
		return sizeof(*h) + reserved;

	t0 = ra_now_ns();
	if (!rs->o.ra.quiet && r->waited < WAIT_REPORT)
		ra_err("cpu%d: sub-buffer %llu is produced with %u of %u record bytes committed: waiting",
		       c->cpu, (unsigned long long)h->seq, committed, reserved);
	while ((committed = load_acquire_u32(&h->committed)) != reserved) {
		if (committed > reserved) {
			ra_err("cpu%d: sub-buffer %llu: %u bytes committed but only %u reserved",
			       c->cpu, (unsigned long long)h->seq, committed,
			       reserved);
			return -1;
		}
		if (ra_now_ns() - t0 >= (warned + 1) * warn_ns) {
			warned++;
			ra_err("cpu%d: sub-buffer %llu: still %u of %u bytes committed after %.1f s; waiting",
			       c->cpu, (unsigned long long)h->seq, committed,
			       reserved, warned * rs->o.warn_after);
		}
		sleep_ns(WAIT_POLL_NS);
	}
	waited = ra_now_ns() - t0;
	r->waited++;
	r->wait_ns += waited;
	if (waited > r->max_wait_ns)
		r->max_wait_ns = waited;
	if (!rs->o.ra.quiet && r->waited <= WAIT_REPORT)
		ra_err("cpu%d: sub-buffer %llu complete after %.3f ms",
		       c->cpu, (unsigned long long)h->seq, waited / 1e6);
	return sizeof(*h) + reserved;
}
