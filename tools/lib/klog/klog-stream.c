// SPDX-License-Identifier: GPL-2.0
/*
 * klog-stream.c - decode, check and print the klog relay stream
 *
 * DOC: implementation
 *
 * Decoding an item is two steps. item_need() looks at the first bytes
 * and says how long the item is, checking that length first: a
 * sub-buffer header is known by KLOG_SUBBUF_MAGIC and is hdr_size bytes
 * (at least struct klog_subbuf_hdr, a multiple of 8); a record is its
 * first u32 bytes (at least struct klog_rec_hdr, a multiple of 8, not
 * more than a sub-buffer when that size is known). decode() then turns
 * the complete item into at most two events in s->pend: a loss event
 * and the item itself. Headers and records are copied out with memcpy(),
 * so nothing depends on the data's alignment.
 *
 * Loss accounting. A record's seq counts every record offered to the
 * CPU's buffer, so a gap of N is N records dropped just before it; a
 * header's lost counts the records dropped since the previous sub-buffer
 * started. Both count the same drops, the header later or equal, so the
 * stream has lost max(sum of gaps, sum of header counts); the difference
 * is reported once at the end (drops after the last record). A record
 * whose seq was already passed ("late": klog-mod never writes one, a
 * damaged or foreign file may) is counted in late and takes back no
 * loss: the loss was reported where the gap was, and a file repeating or
 * reordering records must not hide one. The loss is then a count too
 * high, never one too low. A header seq gap means whole sub-buffers are
 * missing; their records also show as a record seq gap.
 *
 * ks_feed() cuts chunks read anywhere into items: an incomplete item
 * waits in s->carry until the next chunk completes it; whole items are
 * decoded in place.
 *
 * The library's other parts: klog-stream-text.c (struct ks_buf and an
 * event as a line of text), klog-stream-encode.c (the encoder),
 * klog-stream-sites.c (the sites file) and klog-stream-merge.c (the
 * k-way merge by time). klog-stream.h is the interface of all of them.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_app.h"	/* __printf(), ARRAY_SIZE() */
#include "klog-stream.h"

/* Version 2 changed two fields of the record header, not its size. */
static_assert(sizeof(struct klog_rec_hdr) == 40 &&
	      sizeof(struct klog_rec_hdr_v1) == 40,
	      "record headers are 40 bytes (<linux/klog_relay.h>)");

/* ---- Decoder --------------------------------------------------------- */

void ks_init(struct ks_stream *s, int cpu, const char *name, size_t max_item)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->max_item = max_item;
}

void ks_release(struct ks_stream *s)
{
	ks_buf_free(&s->carry);
}

__printf(2, 3)
static int fail(struct ks_stream *s, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(s->error, sizeof(s->error), "%s: offset %llu: %s", s->name,
		 (unsigned long long)s->off, msg);
	s->failed = true;
	s->npend = 0;
	s->ipend = 0;
	return -1;
}

static struct ks_event *add_event(struct ks_stream *s, enum ks_kind kind,
				  __u64 ts)
{
	struct ks_event *ev = &s->pend[s->counting ? 0 : s->npend++];

	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->cpu = s->cpu;
	ev->ts = ts;
	return ev;
}

/* Bytes of a record of @parts header and payload bytes, aligned. */
static inline __u64 rec_size(__u64 parts)
{
	return (parts + KLOG_REC_ALIGN - 1) & ~(__u64)(KLOG_REC_ALIGN - 1);
}

/*
 * How long the item at @p is, from its first @avail bytes: 0 with *need
 * set (more than @avail if it is incomplete; it may grow once more bytes
 * are there), or -1 if it cannot be an item. What it reads is checked
 * first, then every size.
 */
static __always_inline int item_need(struct ks_stream *s,
				     const unsigned char *p, size_t avail,
				     size_t *need)
{
	const size_t rec_min = sizeof(struct klog_rec_hdr);
	struct klog_subbuf_hdr h;
	__u32 first;

	if (avail < sizeof(first)) {
		*need = sizeof(first);
		return 0;
	}
	memcpy(&first, p, sizeof(first));
	if (first == KLOG_SUBBUF_MAGIC) {
		if (avail < sizeof(h)) {
			*need = sizeof(h);
			return 0;
		}
		memcpy(&h, p, sizeof(h));
		if (h.version < 1 || h.version > KLOG_RELAY_VERSION)
			return fail(s,
				    "sub-buffer header version %u, this klog reads versions 1 to %u",
				    h.version, KLOG_RELAY_VERSION);
		if (h.hdr_size < sizeof(h) || h.hdr_size % KLOG_REC_ALIGN ||
		    (s->max_item && h.hdr_size > s->max_item))
			return fail(s, "bad sub-buffer header size %u (expected %zu)",
				    h.hdr_size, sizeof(h));
		if (s->max_item && h.padding > s->max_item - h.hdr_size)
			return fail(s,
				    "sub-buffer padding %u larger than the %zu bytes after the header",
				    h.padding, s->max_item - h.hdr_size);
		*need = h.hdr_size;
		return 0;
	}
	if (!s->started)
		return fail(s,
			    "no sub-buffer header at the start of the stream (first word 0x%08x, expected 0x%08x)",
			    first, KLOG_SUBBUF_MAGIC);
	if (first < rec_min || first % KLOG_REC_ALIGN)
		return fail(s,
			    "bad record size %u (a record is a multiple of %d bytes and at least %zu)",
			    first, KLOG_REC_ALIGN, rec_min);
	if (s->max_item &&
	    first > s->max_item - sizeof(struct klog_subbuf_hdr))
		return fail(s, "bad record size %u (larger than a %zu-byte sub-buffer)",
			    first, s->max_item);
	*need = first;
	return 0;
}

void ks_event_site(struct ks_event *ev, const struct ks_sites *t)
{
	const struct ks_site *site;

	if (ev->kind != KS_RECORD || ev->version < 2)
		return;
	site = ks_sites_find(t, ev->rec.site_id);
	ev->site = site;
	ev->func = site ? (const unsigned char *)site->func : NULL;
	ev->func_len = site ? site->func_len : 0;
	ev->line = site ? site->line : 0;
}

/*
 * The record @r (version 2's header; a version 1 record's converted) with
 * its payload at @payload: loss accounting and the event. A version 1
 * record passes its @func and @line.
 */
static __always_inline int decode_rec(struct ks_stream *s,
				      const struct klog_rec_hdr *r,
				      const unsigned char *payload,
				      const unsigned char *func,
				      size_t func_len, __u32 line)
{
	struct ks_event *ev;

	if (s->join && !s->records)
		s->next_rec = r->seq;
	if (r->seq == UINT64_MAX)
		return fail(s, "record seq %llu: no record can follow",
			    (unsigned long long)r->seq);
	if (r->seq > s->next_rec) {
		ev = add_event(s, KS_LOST, r->ts_ns);
		ev->count = r->seq - s->next_rec;
		s->seq_lost = ks_add_sat(s->seq_lost, ev->count);
		if (s->seq_lost > KS_LOST_MAX)
			return fail(s,
				    "record seq %llu: %llu records lost before it, more than a kernel numbers",
				    (unsigned long long)r->seq,
				    (unsigned long long)s->seq_lost);
	} else if (r->seq < s->next_rec) {
		s->late++;
	}
	if (r->seq >= s->next_rec)
		s->next_rec = r->seq + 1;
	s->records++;
	if (r->ts_ns > s->last_ts)
		s->last_ts = r->ts_ns;
	if (s->counting)
		return 0;	/* no event to build: the drain's case */
	ev = add_event(s, KS_RECORD, r->ts_ns);
	ev->rec = *r;
	ev->version = s->version;
	ev->payload = payload;
	if (s->comm_known && s->comm_pid == r->pid)
		ev->comm = s->comm;
	if (s->version == 1) {
		ev->func = func_len ? func : NULL;
		ev->func_len = func_len;
		ev->line = line;
	} else {
		ks_event_site(ev, s->sites);
	}
	return 0;
}

/*
 * A COMM record: the name of the task of the records that follow. Not a
 * record of the stream's counts, and no event; checked like one.
 */
static int decode_comm(struct ks_stream *s, const struct klog_rec_hdr *r,
		       const unsigned char *payload)
{
	if (r->len != KLOG_RELAY_COMM_LEN)
		return fail(s, "COMM record with a %u-byte payload (expected %d)",
			    r->len, KLOG_RELAY_COMM_LEN);
	memcpy(s->comm, payload, KLOG_RELAY_COMM_LEN);
	s->comm[KLOG_RELAY_COMM_LEN] = '\0';
	s->comm_pid = r->pid;
	s->comm_known = true;
	s->comms++;
	return 0;
}

/* A version 1 record: function name and line in the record. */
static int decode_v1(struct ks_stream *s, const unsigned char *p)
{
	struct klog_rec_hdr_v1 v1;
	struct klog_rec_hdr r;
	__u64 need;

	memcpy(&v1, p, sizeof(v1));
	need = rec_size((__u64)sizeof(v1) + v1.func_len + v1.len);
	if (need != v1.size)
		return fail(s,
			    "record of %u bytes for a %zu-byte header, %u-byte function name and %u-byte payload (%llu bytes aligned)",
			    v1.size, sizeof(v1), v1.func_len, v1.len,
			    (unsigned long long)need);
	if (v1.kind == KLOG_RELAY_COMM)
		return fail(s, "COMM record in a version 1 stream");
	r = (struct klog_rec_hdr) {
		.size = v1.size, .len = v1.len, .ts_ns = v1.ts_ns,
		.seq = v1.seq, .pid = v1.pid, .kind = v1.kind, .ctx = v1.ctx,
		.flags = v1.flags, .cpu = v1.cpu,
	};
	return decode_rec(s, &r, p + sizeof(v1) + v1.func_len, p + sizeof(v1),
			  v1.func_len, v1.line);
}

/* Turn the complete item at @p into events in s->pend. 0 or -1. */
static __always_inline int decode(struct ks_stream *s, const unsigned char *p)
{
	struct klog_subbuf_hdr h;
	struct klog_rec_hdr r;
	struct ks_event *ev;
	__u64 need;
	__u32 first;

	s->npend = 0;
	s->ipend = 0;
	memcpy(&first, p, sizeof(first));
	if (first == KLOG_SUBBUF_MAGIC) {
		memcpy(&h, p, sizeof(h));
		if (s->join && !s->started && !s->first_known)
			s->next_subbuf = h.seq;
		if (s->started && h.seq < s->next_subbuf)
			return fail(s, "sub-buffer seq %llu after %llu: the stream went back",
				    (unsigned long long)h.seq,
				    (unsigned long long)s->next_subbuf - 1);
		if (h.seq > s->next_subbuf) {
			ev = add_event(s, KS_SUBBUFS_LOST, s->last_ts);
			ev->count = h.seq - s->next_subbuf;
			s->subbufs_lost = ks_add_sat(s->subbufs_lost, ev->count);
		}
		if (h.seq == UINT64_MAX)
			return fail(s, "sub-buffer seq %llu: no sub-buffer can follow",
				    (unsigned long long)h.seq);
		if (h.cpu != (__u32)s->cpu)
			s->cpu_mismatch++;
		s->next_subbuf = h.seq + 1;
		s->subbufs++;
		s->version = h.version;
		/* a sub-buffer names its tasks anew (it may follow a gap) */
		s->comm_known = false;
		/* joined: the first header's drops came before our records */
		if (!s->join || s->started)
			s->hdr_lost = ks_add_sat(s->hdr_lost, h.lost);
		if (s->hdr_lost > KS_LOST_MAX)
			return fail(s,
				    "sub-buffer seq %llu: %llu records lost in all, more than a kernel numbers",
				    (unsigned long long)h.seq,
				    (unsigned long long)s->hdr_lost);
		s->started = true;
		ev = add_event(s, KS_SUBBUF, h.first_ts ? h.first_ts : s->last_ts);
		ev->sb = h;
		return 0;
	}

	if (s->version == 1)
		return decode_v1(s, p);
	memcpy(&r, p, sizeof(r));
	/*
	 * Exactly its parts, aligned: a larger size would swallow the
	 * headers and records after it.
	 */
	need = rec_size((__u64)sizeof(r) + r.len);
	if (need != r.size)
		return fail(s,
			    "record of %u bytes for a %zu-byte header and %u-byte payload (%llu bytes aligned)",
			    r.size, sizeof(r), r.len, (unsigned long long)need);
	if (r.kind == KLOG_RELAY_COMM)
		return decode_comm(s, &r, p + sizeof(r));
	return decode_rec(s, &r, p + sizeof(r), NULL, 0, 0);
}

/* End of stream: the loss only the headers showed. */
static void end_stream(struct ks_stream *s)
{
	s->finished = true;
	s->npend = 0;
	s->ipend = 0;
	if (s->hdr_lost > s->seq_lost) {
		s->tail_lost = s->hdr_lost - s->seq_lost;
		add_event(s, KS_LOST, s->last_ts)->count = s->tail_lost;
	}
}

/* Say why the @avail bytes left cannot be the @need-byte item. */
static int fail_short(struct ks_stream *s, const unsigned char *p,
		      size_t avail, size_t need)
{
	__u32 first;

	if (avail < sizeof(first))
		return fail(s, "stream ends inside an item (%zu bytes left)",
			    avail);
	memcpy(&first, p, sizeof(first));
	if (first == KLOG_SUBBUF_MAGIC)
		return fail(s, "stream ends inside a sub-buffer header (%zu of %zu bytes)",
			    avail, need);
	return fail(s, "record of %zu bytes does not fit in the %zu bytes left",
		    need, avail);
}

int ks_next(struct ks_stream *s, const void *data, size_t len,
	    struct ks_event *ev)
{
	const unsigned char *p = data;
	size_t need = 0, avail;

	for (;;) {
		if (s->ipend < s->npend) {
			*ev = s->pend[s->ipend++];
			return 1;
		}
		if (s->failed)
			return -1;
		if (s->finished)
			return 0;
		if (s->off >= len) {
			if (s->more)
				return 0;
			end_stream(s);
			continue;
		}
		avail = len - s->off;
		if (item_need(s, p + s->off, avail, &need))
			return -1;
		if (need > avail)
			return s->more ? 0 : fail_short(s, p + s->off, avail, need);
		if (decode(s, p + s->off))
			return -1;
		s->off += need;
	}
}

static int emit(struct ks_stream *s, ks_event_fn fn, void *arg)
{
	int ret;

	while (s->ipend < s->npend) {
		ret = fn ? fn(&s->pend[s->ipend++], arg) : (s->ipend++, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- Feeding ----------------------------------------------------------- */

/*
 * The drain's loop (ks_feed() without a callback): from @p, the records
 * that follow each other in order (each the next seq, its size exactly
 * its parts) are counted as decode_rec() counts them, with no event and
 * no other work. It stops at the first item that is anything else (a
 * sub-buffer header, a COMM record, a gap or a late seq, a bad size, an
 * item cut by the chunk's end), which the full decode then takes, and at
 * once in a stream that has no record yet (its first one sets the
 * expected seq) or is of version 1. Returns the bytes counted.
 */
static size_t count_records(struct ks_stream *s, const unsigned char *p,
			    size_t len)
{
	const size_t max = s->max_item ?
			   s->max_item - sizeof(struct klog_subbuf_hdr) : SIZE_MAX;
	__u64 next = s->next_rec, records = s->records, last_ts = s->last_ts;
	size_t off = 0;

	if (s->version < 2 || !records)
		return 0;
	/* The fields one by one: loads, no copy of the header. */
	while (len - off >= sizeof(struct klog_rec_hdr)) {
		const unsigned char *r = p + off;
		__u32 size, plen;
		__u64 seq, ts;
		__u8 kind;

		memcpy(&size, r + offsetof(struct klog_rec_hdr, size), sizeof(size));
		memcpy(&plen, r + offsetof(struct klog_rec_hdr, len), sizeof(plen));
		memcpy(&seq, r + offsetof(struct klog_rec_hdr, seq), sizeof(seq));
		memcpy(&ts, r + offsetof(struct klog_rec_hdr, ts_ns), sizeof(ts));
		kind = r[offsetof(struct klog_rec_hdr, kind)];
		if (size > len - off || size > max ||
		    size != rec_size(sizeof(struct klog_rec_hdr) + (__u64)plen) ||
		    kind == KLOG_RELAY_COMM || seq != next || seq == UINT64_MAX)
			break;
		next = seq + 1;
		records++;
		if (ts > last_ts)
			last_ts = ts;
		off += size;
	}
	s->next_rec = next;
	s->records = records;
	s->last_ts = last_ts;
	s->off += off;
	return off;
}

int ks_feed(struct ks_stream *s, const void *data, size_t len,
	    ks_event_fn fn, void *arg)
{
	const unsigned char *p = data, *item;
	size_t need = 0, have, take;
	int ret;

	if (s->failed)
		return -1;
	s->counting = !fn;
	for (;;) {
		if (!fn && !s->carry.len) {
			size_t n = count_records(s, p, len);

			p += n;
			len -= n;
		}
		/* first the item the previous chunk ended in, if any */
		item = s->carry.len ? (const unsigned char *)s->carry.p : p;
		have = s->carry.len ? s->carry.len : len;
		if (!have)
			return 0;
		if (item_need(s, item, have, &need))
			return -1;
		if (have < need) {	/* carry it, or add to it what fits */
			take = !s->carry.len ? len :
			       need - have < len ? need - have : len;
			if (!take)
				return 0;
			if (ks_put(&s->carry, p, take))
				return fail(s, "out of memory for an item cut by a read");
			p += take;
			len -= take;
			continue;
		}
		if (s->carry.len) {
			s->carry.len = 0;
		} else {
			p += need;
			len -= need;
		}
		if (decode(s, item))
			return -1;
		s->off += need;
		ret = emit(s, fn, arg);
		if (ret)
			return ret;
	}
}

int ks_finish(struct ks_stream *s, ks_event_fn fn, void *arg)
{
	size_t need = 0;

	if (s->failed)
		return -1;
	if (s->finished)
		return 0;
	s->counting = !fn;
	if (s->carry.len) {
		const unsigned char *c = (const unsigned char *)s->carry.p;

		if (item_need(s, c, s->carry.len, &need))
			return -1;
		return fail_short(s, c, s->carry.len, need);
	}
	end_stream(s);
	return emit(s, fn, arg);
}

long ks_subbuf_used(const void *subbuf, size_t subbuf_size,
		    char *why, size_t why_size)
{
	struct klog_subbuf_hdr h;

	if (subbuf_size < sizeof(h)) {
		snprintf(why, why_size, "sub-buffer of %zu bytes is smaller than its header",
			 subbuf_size);
		return -1;
	}
	memcpy(&h, subbuf, sizeof(h));
	if (h.magic != KLOG_SUBBUF_MAGIC) {
		snprintf(why, why_size, "no header magic (0x%08x)", h.magic);
		return -1;
	}
	if (h.version != KLOG_RELAY_VERSION) {
		snprintf(why, why_size, "header version %u, expected %u",
			 h.version, KLOG_RELAY_VERSION);
		return -1;
	}
	if (h.hdr_size < sizeof(h) || h.hdr_size > subbuf_size) {
		snprintf(why, why_size, "bad header size %u", h.hdr_size);
		return -1;
	}
	if (h.padding > subbuf_size - h.hdr_size) {
		snprintf(why, why_size, "padding %u larger than the %zu bytes after the header",
			 h.padding, subbuf_size - h.hdr_size);
		return -1;
	}
	return subbuf_size - h.padding;
}
