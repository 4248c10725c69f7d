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
 * ks_feed() cuts chunks into items with ks_items_feed(), the framing
 * reserve's reader uses too: an incomplete item waits in s->items until
 * the next chunk completes it; whole items are decoded in place.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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
	ks_items_free(&s->items);
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
	struct ks_event *ev = &s->pend[s->npend++];

	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->cpu = s->cpu;
	ev->ts = ts;
	return ev;
}

/* ks_need_fn: length of the item at @p (checked). 0, or -1 if invalid. */
static int item_need(const unsigned char *p, size_t avail, size_t *need,
		     void *arg)
{
	struct ks_stream *s = arg;
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
static int decode_rec(struct ks_stream *s, const struct klog_rec_hdr *r,
		      const unsigned char *payload,
		      const unsigned char *func, size_t func_len, __u32 line)
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
	need = ((__u64)sizeof(v1) + v1.func_len + v1.len + KLOG_REC_ALIGN - 1) &
	       ~(__u64)(KLOG_REC_ALIGN - 1);
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
static int decode(struct ks_stream *s, const unsigned char *p)
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
	need = ((__u64)sizeof(r) + r.len + KLOG_REC_ALIGN - 1) &
	       ~(__u64)(KLOG_REC_ALIGN - 1);
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
	size_t need, avail;

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
			end_stream(s);
			continue;
		}
		avail = len - s->off;
		if (item_need(p + s->off, avail, &need, s))
			return -1;
		if (need > avail)
			return fail_short(s, p + s->off, avail, need);
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

/* ---- Framing and feeding ---------------------------------------------- */

int ks_items_feed(struct ks_items *it, const void *data, size_t len,
		  ks_need_fn need_fn, ks_item_fn item_fn, void *arg)
{
	const unsigned char *p = data, *item;
	size_t need, have, take;
	int ret;

	for (;;) {
		/* first the item the previous chunk ended in, if any */
		item = it->carry.len ? (const unsigned char *)it->carry.p : p;
		have = it->carry.len ? it->carry.len : len;
		if (!have)
			return 0;
		if (need_fn(item, have, &need, arg))
			return -1;
		if (have < need) {	/* carry it, or add to it what fits */
			take = !it->carry.len ? len :
			       need - have < len ? need - have : len;
			if (!take)
				return 0;
			if (ks_put(&it->carry, p, take)) {
				it->nomem = true;
				return -1;
			}
			p += take;
			len -= take;
			continue;
		}
		if (it->carry.len) {
			it->carry.len = 0;
		} else {
			p += need;
			len -= need;
		}
		ret = item_fn(item, need, arg);
		if (ret)
			return ret;
	}
}

void ks_items_free(struct ks_items *it)
{
	ks_buf_free(&it->carry);
}

/* ks_item_fn of ks_feed(): decode, pass the events on. */
static int feed_item(const unsigned char *p, size_t size, void *arg)
{
	struct ks_stream *s = arg;

	if (decode(s, p))
		return -1;
	s->off += size;
	return emit(s, s->feed_fn, s->feed_arg);
}

int ks_feed(struct ks_stream *s, const void *data, size_t len,
	    ks_event_fn fn, void *arg)
{
	int ret;

	if (s->failed)
		return -1;
	s->feed_fn = fn;
	s->feed_arg = arg;
	ret = ks_items_feed(&s->items, data, len, item_need, feed_item, s);
	if (ret && s->items.nomem && !s->failed)
		return fail(s, "out of memory for an item cut by a read");
	return ret;
}

int ks_finish(struct ks_stream *s, ks_event_fn fn, void *arg)
{
	size_t need;

	if (s->failed)
		return -1;
	if (s->finished)
		return 0;
	if (s->items.carry.len) {
		const unsigned char *c = (const unsigned char *)s->items.carry.p;

		if (item_need(c, s->items.carry.len, &need, s))
			return -1;
		return fail_short(s, c, s->items.carry.len, need);
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

/* ---- Text ------------------------------------------------------------ */

static int buf_reserve(struct ks_buf *b, size_t more)
{
	if (b->len + more + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + more + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	return 0;
}

/* ---- Encoding --------------------------------------------------------- */

int ks_put(struct ks_buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int ks_put_subbuf_hdr_v(struct ks_buf *b, __u16 version, __u32 cpu,
			__u64 seq, __u64 lost, __u64 first_ts)
{
	struct klog_subbuf_hdr h = {
		.magic = KLOG_SUBBUF_MAGIC, .version = version,
		.hdr_size = sizeof(h), .cpu = cpu, .seq = seq, .lost = lost,
		.first_ts = first_ts,
	};

	return ks_put(b, &h, sizeof(h));
}

int ks_put_subbuf_hdr(struct ks_buf *b, __u32 cpu, __u64 seq, __u64 lost,
		      __u64 first_ts)
{
	return ks_put_subbuf_hdr_v(b, KLOG_RELAY_VERSION, cpu, seq, lost,
				   first_ts);
}

int ks_put_record(struct ks_buf *b, const struct klog_rec_hdr *hdr,
		  const void *payload)
{
	static const unsigned char zero[8];
	struct klog_rec_hdr r = *hdr;

	r.size = (sizeof(r) + r.len + 7) & ~(size_t)7;
	if (ks_put(b, &r, sizeof(r)) || ks_put(b, payload, r.len) ||
	    ks_put(b, zero, r.size - sizeof(r) - r.len))
		return -1;
	return 0;
}

int ks_put_comm(struct ks_buf *b, __u32 pid, const char *comm, __u64 seq,
		__u64 ts, __u16 cpu)
{
	struct klog_rec_hdr r = {
		.len = KLOG_RELAY_COMM_LEN, .ts_ns = ts, .seq = seq,
		.pid = pid, .kind = KLOG_RELAY_COMM, .cpu = cpu,
	};
	char name[KLOG_RELAY_COMM_LEN] = { 0 };

	memcpy(name, comm, strnlen(comm, sizeof(name) - 1));
	return ks_put_record(b, &r, name);
}

int ks_put_record_v1(struct ks_buf *b, const struct klog_rec_hdr_v1 *hdr,
		     const char *func, const void *payload)
{
	static const unsigned char zero[8];
	struct klog_rec_hdr_v1 r = *hdr;
	size_t flen = strlen(func);

	r.func_len = flen;
	r.size = (sizeof(r) + flen + r.len + 7) & ~(size_t)7;
	if (ks_put(b, &r, sizeof(r)) || ks_put(b, func, flen) ||
	    ks_put(b, payload, r.len) ||
	    ks_put(b, zero, r.size - sizeof(r) - flen - r.len))
		return -1;
	return 0;
}

__printf(2, 3)
static int buf_printf(struct ks_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, n))
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

/* Printable ASCII as is; \\ \n \t \r; anything else \xHH. */
static int buf_escape(struct ks_buf *b, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *o;
	size_t i;

	if (buf_reserve(b, 4 * n))
		return -1;
	o = b->p + b->len;
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			*o++ = '\\';
			*o++ = c == '\\' ? '\\' : c == '\n' ? 'n' :
			       c == '\t' ? 't' : 'r';
		} else if (c >= 0x20 && c < 0x7f) {
			*o++ = c;
		} else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	b->len = o - b->p;
	b->p[b->len] = '\0';
	return 0;
}

/* buf_escape(), and a space as \x20: a task name is one field. */
static int buf_escape_sp(struct ks_buf *b, const unsigned char *p, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && p[i] != ' ')
			continue;
		if (buf_escape(b, p + from, i - from) ||
		    (i < n && buf_printf(b, "\\x20")))
			return -1;
		from = i + 1;
	}
	return 0;
}

ks_args_fn ks_args_text;

int ks_event_text(const struct ks_event *ev, char *buf,
		  const unsigned char **text, bool *cut)
{
	const struct klog_rec_hdr *r = &ev->rec;
	int n;

	*cut = false;
	if (ev->kind != KS_RECORD)
		return -1;
	if (r->kind == KLOG_RELAY_TEXT) {
		*text = ev->payload;
		return r->len > INT_MAX ? INT_MAX : (int)r->len;
	}
	/*
	 * Only a text site has a format for an argument record: a record
	 * naming a raw site (or a kind this reader does not know) is not
	 * formatted with that site's empty format, it shows as bytes.
	 */
	if (r->kind != KLOG_RELAY_ARGS || !ks_args_text || !ev->site ||
	    !ev->site->fmt || strcmp(ev->site->kind, "text"))
		return -1;
	n = ks_args_text(buf, KS_TEXT_MAX, ev->site->fmt, ev->payload, r->len);
	if (n < 0)
		return -1;
	if (n > KS_TEXT_MAX - 1) {	/* cut as klog_printk() cuts text */
		n = KS_TEXT_MAX - 1;
		*cut = true;
	}
	*text = (const unsigned char *)buf;
	return n;
}

static int format_record(const struct ks_event *ev, struct ks_buf *b,
			 size_t hex_max)
{
	static const char *const ctx[] = {
		[KLOG_RELAY_CTX_TASK]		= "task",
		[KLOG_RELAY_CTX_SOFTIRQ]	= "softirq",
		[KLOG_RELAY_CTX_HARDIRQ]	= "hardirq",
		[KLOG_RELAY_CTX_NMI]		= "nmi",
	};
	const struct klog_rec_hdr *r = &ev->rec;
	const unsigned char *text;
	char tbuf[KS_TEXT_MAX];
	size_t n = r->len, i;
	char ctxbuf[8];
	bool cut = false;
	int tlen;

	if (r->ctx < ARRAY_SIZE(ctx))
		snprintf(ctxbuf, sizeof(ctxbuf), "%s", ctx[r->ctx]);
	else
		snprintf(ctxbuf, sizeof(ctxbuf), "ctx%u", r->ctx);
	if (buf_printf(b, " "))
		return -1;
	/* comm-pid as trace-cmd prints it; a space in a name as \x20 */
	if (ev->comm && (buf_escape_sp(b, (const unsigned char *)ev->comm,
				       strlen(ev->comm)) ||
			 buf_printf(b, "-")))
		return -1;
	if (buf_printf(b, "%u %s ", r->pid, ctxbuf))
		return -1;
	if (ev->func) {
		if (buf_escape(b, ev->func, ev->func_len) ||
		    buf_printf(b, ":%u: ", ev->line))
			return -1;
	} else if (ev->version >= 2 ? buf_printf(b, "site#%u: ", r->site_id) :
		   buf_printf(b, "?:%u: ", ev->line)) {
		return -1;
	}
	tlen = ks_event_text(ev, tbuf, &text, &cut);
	if (tlen >= 0) {
		n = tlen;
		if (n && text[n - 1] == '\n')
			n--;
		if (buf_escape(b, text, n))
			return -1;
	} else {
		if (r->kind == KLOG_RELAY_RAW ?
		    buf_printf(b, "raw %u bytes:", r->len) :
		    r->kind == KLOG_RELAY_ARGS ?
		    buf_printf(b, "args %u bytes:", r->len) :
		    buf_printf(b, "kind%u %u bytes:", r->kind, r->len))
			return -1;
		for (i = 0; i < n && i < hex_max; i++)
			if (buf_printf(b, " %02x", ev->payload[i]))
				return -1;
		if (n > hex_max && buf_printf(b, " ..."))
			return -1;
	}
	if (((r->flags & KLOG_RELAY_TRUNCATED) || cut) &&
	    buf_printf(b, " [truncated]"))
		return -1;
	if ((r->flags & KLOG_RELAY_TRIGGER) && buf_printf(b, " [trigger]"))
		return -1;
	return 0;
}

int ks_format_hex(const struct ks_event *ev, struct ks_buf *b, size_t hex_max)
{
	unsigned long long sec = ev->ts / 1000000000ULL;
	unsigned long long nsec = ev->ts % 1000000000ULL;
	int ret;

	if (ev->kind == KS_SUBBUF)
		return 0;
	/* a record names the CPU it was written on (a global buffer mixes) */
	if (buf_printf(b, "[%llu.%09llu] cpu%d", sec, nsec,
		       ev->kind == KS_RECORD ? (int)ev->rec.cpu : ev->cpu))
		return -1;
	switch (ev->kind) {
	case KS_RECORD:
		ret = format_record(ev, b, hex_max);
		break;
	case KS_LOST:
		ret = buf_printf(b, " *** %llu records lost ***",
				 (unsigned long long)ev->count);
		break;
	default:
		ret = buf_printf(b, " *** %llu sub-buffers lost ***",
				 (unsigned long long)ev->count);
		break;
	}
	if (ret || buf_printf(b, "\n"))
		return -1;
	return 1;
}

void ks_buf_free(struct ks_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- Sites ------------------------------------------------------------ */

#define KS_SITE_FIELD_MAX	KS_FUNC_MAX	/* bytes of one unescaped field */

/* Unescape the field @p..@end into @o (room for it): 0, or -1 (@why). */
static int site_unescape(const char *p, const char *end, char *o,
			 const char **why)
{
	while (p < end) {
		unsigned char c = *p++;

		if (c < 0x20 || c > 0x7e) {
			*why = "a control or non-ASCII byte (the kernel escapes them)";
			return -1;
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (p == end) {
			*why = "a field ends in a lone backslash";
			return -1;
		}
		c = *p++;
		if (c == '\\' || c == '"') {
			*o++ = c;
		} else if (c == 't') {
			*o++ = '\t';
		} else if (c == 'n') {
			*o++ = '\n';
		} else if (c >= '0' && c <= '3' && end - p >= 2 &&
			   p[0] >= '0' && p[0] <= '7' && p[1] >= '0' &&
			   p[1] <= '7') {
			c = (c - '0') << 6 | (p[0] - '0') << 3 | (p[1] - '0');
			if (!c) {
				*why = "an escaped NUL byte";
				return -1;
			}
			*o++ = c;
			p += 2;
		} else {
			*why = "an unknown escape (known: \\\\ \\t \\n \\\" \\ooo)";
			return -1;
		}
	}
	*o = '\0';
	return 0;
}

/* Index of @id in @t, or of where it would go (*found false). */
static size_t sites_index(const struct ks_sites *t, __u32 id, bool *found)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && t->v[lo]->id == id;
	return lo;
}

const struct ks_site *ks_sites_find(const struct ks_sites *t, __u32 id)
{
	bool found;
	size_t i;

	if (!t || !t->n)
		return NULL;
	i = sites_index(t, id, &found);
	return found ? t->v[i] : NULL;
}

/* A decimal u32 in @p..@end, no sign, no leading zeros but "0". */
static int site_u32(const char *p, const char *end, __u32 *v)
{
	__u64 x = 0;

	if (p == end || end - p > 10 || (*p == '0' && end - p > 1))
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		x = x * 10 + (*p - '0');
	}
	if (x > UINT32_MAX)
		return -1;
	*v = x;
	return 0;
}

/*
 * One site line (@p..@end, no newline) into a new entry. Return: the
 * entry, or NULL with *why (out of memory: *why NULL).
 */
static struct ks_site *site_line(const char *p, const char *end,
				 const char **why)
{
	const char *f[8], *fe[8];
	struct ks_site *site;
	size_t total = 0;
	char *o;
	int i;

	for (i = 0; i < 8; i++) {
		const char *tab = memchr(p, '\t', end - p);

		f[i] = p;
		fe[i] = tab && i < 7 ? tab : end;
		if (i < 7 && !tab) {
			*why = "fewer than 8 fields (id state kind module file line func fmt)";
			return NULL;
		}
		if (i == 7 && tab) {
			*why = "more than 8 fields";
			return NULL;
		}
		if (fe[i] - f[i] > KS_SITE_FIELD_MAX) {
			*why = "a field longer than 4096 bytes";
			return NULL;
		}
		total += fe[i] - f[i] + 1;
		p = fe[i] + 1;
	}
	site = calloc(1, sizeof(*site) + total);
	if (!site) {
		*why = NULL;
		return NULL;
	}
	if (site_u32(f[0], fe[0], &site->id) || !site->id) {
		*why = "the id is not a number from 1 to 4294967295";
		goto bad;
	}
	if (fe[1] - f[1] == 4 && !memcmp(f[1], "live", 4)) {
		site->live = true;
	} else if (!(fe[1] - f[1] == 4 && !memcmp(f[1], "gone", 4))) {
		*why = "the state is neither \"live\" nor \"gone\"";
		goto bad;
	}
	if (fe[2] == f[2] || fe[2] - f[2] >= (long)sizeof(site->kind)) {
		*why = "the kind is empty or too long";
		goto bad;
	}
	for (p = f[2]; p < fe[2]; p++)
		if (*p < 'a' || *p > 'z') {
			*why = "the kind is not a lower-case word";
			goto bad;
		}
	memcpy(site->kind, f[2], fe[2] - f[2]);
	if (site_u32(f[5], fe[5], &site->line)) {
		*why = "the line is not a number";
		goto bad;
	}
	o = (char *)(site + 1);
	site->module = o;
	if (site_unescape(f[3], fe[3], o, why))
		goto bad;
	site->file = o += strlen(o) + 1;
	if (site_unescape(f[4], fe[4], o, why))
		goto bad;
	site->func = o += strlen(o) + 1;
	if (site_unescape(f[6], fe[6], o, why))
		goto bad;
	site->fmt = o += strlen(o) + 1;
	if (site_unescape(f[7], fe[7], o, why))
		goto bad;
	site->func_len = strlen(site->func);
	if (!site->func_len || !*site->file) {
		*why = "the file or function is empty";
		goto bad;
	}
	return site;
bad:
	free(site);
	return NULL;
}

/* Whether @a and @b describe a site alike. */
static bool site_same(const struct ks_site *a, const struct ks_site *b)
{
	return a->id == b->id && a->live == b->live && a->line == b->line &&
	       !strcmp(a->kind, b->kind) && !strcmp(a->module, b->module) &&
	       !strcmp(a->file, b->file) && !strcmp(a->func, b->func) &&
	       !strcmp(a->fmt, b->fmt);
}

__printf(5, 6)
static int sites_fail(char *err, size_t err_size, const char *name,
		      unsigned long lineno, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, err_size, "%s:%lu: %s", name, lineno, msg);
	return -1;
}

/* " refused=N" and nothing after it: the rest of the kernel's header. */
static bool sites_refused_tail(const char *p)
{
	static const char key[] = " refused=";
	char *end;

	if (strncmp(p, key, sizeof(key) - 1))
		return false;
	p += sizeof(key) - 1;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	strtoull(p, &end, 10);
	return !errno && *end == '\0';
}

/* A parsed line and where it was, sorted by (id, line) before merging. */
struct site_at {
	struct ks_site	*site;
	unsigned long	lineno;
};

static int site_at_cmp(const void *a, const void *b)
{
	const struct site_at *x = a, *y = b;

	if (x->site->id != y->site->id)
		return x->site->id < y->site->id ? -1 : 1;
	return x->lineno < y->lineno ? -1 : x->lineno > y->lineno;
}

/*
 * The lines are collected in file order, sorted once and merged with @t
 * in one pass: n log n for n lines in any order (inserting each into a
 * sorted array moved the array for every line of a file with descending
 * ids, seconds for 200,000 lines).
 */
int ks_sites_parse(struct ks_sites *t, const char *p, size_t len,
		   const char *name, char *err, size_t err_size)
{
	const char *end = p + len, *nl;
	struct site_at *add = NULL;
	struct ks_site **v = NULL;
	size_t nadd = 0, cap = 0, i, j, k, nv;
	__u32 prev = 0;
	unsigned long lineno = 0, bad = 0;
	unsigned long long forgotten = 0;
	__u32 bad_id = 0;
	const char *why = NULL;
	int ret = -1;

	if (len > KS_SITES_MAX_FILE)
		return sites_fail(err, err_size, name, 0,
				  "larger than %u bytes", KS_SITES_MAX_FILE);
	for (; p < end; p = nl + 1) {
		struct ks_site *site;
		int n = -1;

		lineno++;
		nl = memchr(p, '\n', end - p);
		if (!nl) {
			sites_fail(err, err_size, name, lineno,
				   "the last line has no newline (a cut file?)");
			goto out;
		}
		if (lineno == 1) {
			/* two 20-digit numbers fit */
			char head[96];

			if (nl - p >= (long)sizeof(head) ||
			    strncmp(p, KS_SITES_HEADER " ", sizeof(KS_SITES_HEADER))) {
				sites_fail(err, err_size, name, lineno,
					   "not a klog sites file (expected \"%s forgotten=N\")",
					   KS_SITES_HEADER);
				goto out;
			}
			memcpy(head, p, nl - p);
			head[nl - p] = '\0';
			/*
			 * The kernel adds " refused=N" (ids it refused to
			 * hand out); DIR/sites has forgotten= alone.
			 */
			if (sscanf(head, KS_SITES_HEADER " forgotten=%llu%n",
				   &forgotten, &n) != 1 ||
			    (n != nl - p && !sites_refused_tail(head + n))) {
				sites_fail(err, err_size, name, lineno,
					   "bad header (expected \"%s forgotten=N\")",
					   KS_SITES_HEADER);
				goto out;
			}
			continue;
		}
		if (nadd == cap) {
			struct site_at *a;

			cap = cap ? 2 * cap : 256;
			a = realloc(add, cap * sizeof(*a));
			if (!a) {
				sites_fail(err, err_size, name, lineno,
					   "out of memory");
				goto out;
			}
			add = a;
		}
		site = site_line(p, nl, &why);
		if (!site) {
			/* a duplicate on an earlier line is reported first */
			bad = lineno;
			why = why ? why : "out of memory";
			break;
		}
		add[nadd].site = site;
		add[nadd++].lineno = lineno;
	}
	if (!lineno) {
		sites_fail(err, err_size, name, 0, "empty: no \"%s\" header",
			   KS_SITES_HEADER);
		goto out;
	}
	if (nadd)
		qsort(add, nadd, sizeof(*add), site_at_cmp);
	/*
	 * A line repeated exactly is taken once: the kernel's seq_file can
	 * repeat one when the table changes between two reads. An id listed
	 * again differently is an error, on the line that lists it again;
	 * the first bad line of the file is the one reported.
	 */
	for (i = 1, j = 0; i < nadd; i++) {
		if (add[i].site->id != add[j].site->id) {
			j = i;
			continue;
		}
		if (!site_same(add[j].site, add[i].site) &&
		    (!bad || add[i].lineno < bad)) {
			bad = add[i].lineno;
			bad_id = add[i].site->id;
			why = NULL;
		}
	}
	if (bad) {
		if (why)
			sites_fail(err, err_size, name, bad, "%s", why);
		else
			sites_fail(err, err_size, name, bad,
				   "site %u listed twice, differently", bad_id);
		goto out;
	}
	/*
	 * All good: merge by id into a new array (nothing can fail but
	 * memory); an id already in @t keeps its description, "gone" wins.
	 */
	v = malloc((t->n + nadd ? t->n + nadd : 1) * sizeof(*v));
	if (!v) {
		sites_fail(err, err_size, name, lineno, "out of memory");
		goto out;
	}
	for (i = 0, k = 0, nv = 0; i < nadd; i++) {
		struct ks_site *site = add[i].site;

		if (i && site->id == prev)
			continue;	/* repeated exactly: freed below */
		prev = site->id;
		while (k < t->n && t->v[k]->id < site->id)
			v[nv++] = t->v[k++];
		if (k < t->n && t->v[k]->id == site->id) {
			if (!site->live)
				t->v[k]->live = false;
			continue;	/* freed below */
		}
		v[nv++] = site;
		add[i].site = NULL;
	}
	while (k < t->n)
		v[nv++] = t->v[k++];
	free(t->v);
	t->v = v;
	t->n = nv;
	t->cap = t->n + nadd ? t->n + nadd : 1;
	if (forgotten > t->forgotten)
		t->forgotten = forgotten;
	ret = 0;
out:
	for (j = 0; j < nadd; j++)
		free(add[j].site);
	free(add);
	return ret;
}

/* The kernel's escaping of one field. */
static int site_escape(struct ks_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;
		int ret;

		if (c == '\\' || c == '"')
			ret = buf_printf(b, "\\%c", c);
		else if (c == '\t')
			ret = buf_printf(b, "\\t");
		else if (c == '\n')
			ret = buf_printf(b, "\\n");
		else if (c < 0x20 || c > 0x7e)
			ret = buf_printf(b, "\\%03o", c);
		else
			ret = buf_printf(b, "%c", c);
		if (ret)
			return -1;
	}
	return 0;
}

int ks_sites_format(const struct ks_sites *t, struct ks_buf *b)
{
	size_t i;

	if (buf_printf(b, KS_SITES_HEADER " forgotten=%llu\n",
		       (unsigned long long)t->forgotten))
		return -1;
	for (i = 0; i < t->n; i++) {
		const struct ks_site *s = t->v[i];

		if (buf_printf(b, "%u\t%s\t%s\t", s->id,
			       s->live ? "live" : "gone", s->kind) ||
		    site_escape(b, s->module) || buf_printf(b, "\t") ||
		    site_escape(b, s->file) ||
		    buf_printf(b, "\t%u\t", s->line) ||
		    site_escape(b, s->func) || buf_printf(b, "\t") ||
		    site_escape(b, s->fmt) || buf_printf(b, "\n"))
			return -1;
	}
	return 0;
}

void ks_sites_free(struct ks_sites *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- k-way merge ----------------------------------------------------- */

int ks_merge_init(struct ks_merge *m, int nsrc)
{
	int i;

	m->n = 0;
	m->heap = calloc(nsrc ? nsrc : 1, sizeof(*m->heap));
	m->pos = calloc(nsrc ? nsrc : 1, sizeof(*m->pos));
	m->key = calloc(nsrc ? nsrc : 1, sizeof(*m->key));
	if (!m->heap || !m->pos || !m->key) {
		ks_merge_free(m);
		return -1;
	}
	for (i = 0; i < nsrc; i++)
		m->pos[i] = -1;
	return 0;
}

void ks_merge_free(struct ks_merge *m)
{
	free(m->heap);
	free(m->pos);
	free(m->key);
	memset(m, 0, sizeof(*m));
}

static bool merge_less(const struct ks_merge *m, int a, int b)
{
	return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && a < b);
}

static void merge_swap(struct ks_merge *m, int i, int j)
{
	int t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->pos[m->heap[i]] = i;
	m->pos[m->heap[j]] = j;
}

static void merge_fix(struct ks_merge *m, int i)
{
	while (i > 0 && merge_less(m, m->heap[i], m->heap[(i - 1) / 2])) {
		merge_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->n && merge_less(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->n && merge_less(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		merge_swap(m, i, min);
		i = min;
	}
}

void ks_merge_set(struct ks_merge *m, int src, __u64 ts)
{
	m->key[src] = ts;
	if (m->pos[src] < 0) {
		m->heap[m->n] = src;
		m->pos[src] = m->n++;
	}
	merge_fix(m, m->pos[src]);
}

void ks_merge_remove(struct ks_merge *m, int src)
{
	int i = m->pos[src];

	if (i < 0)
		return;
	merge_swap(m, i, --m->n);
	m->pos[src] = -1;
	if (i < m->n)
		merge_fix(m, i);
}

int ks_merge_top(const struct ks_merge *m, __u64 *ts)
{
	if (!m->n)
		return -1;
	if (ts)
		*ts = m->key[m->heap[0]];
	return m->heap[0];
}
