/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-stream.h - decode, check and print the klog relay stream
 *
 * DOC: overview
 *
 * One CPU's stream (a saved DIR/cpuN file, or bytes as a reader gets them)
 * is a sequence of items, each starting on an 8-byte boundary: a
 * struct klog_subbuf_hdr (first u32 == KLOG_SUBBUF_MAGIC) or a record
 * (first u32 == its size). See <linux/klog_relay.h>. Each sub-buffer
 * header's version says how its records are laid out: versions 2 and 3
 * name the call site by id (3 adds argument records), version 1 (old
 * collections) carries the function name and line in every record. All
 * decode to the same events.
 *
 * A struct ks_stream decodes one CPU's stream into events:
 *
 * - KS_SUBBUF for each sub-buffer header (not printed),
 * - KS_RECORD for each record,
 * - KS_LOST "N records lost" before a record whose seq skips N numbers,
 *   and once at the end if the headers' @lost fields add up to more than
 *   the gaps showed (records dropped after the last record),
 * - KS_SUBBUFS_LOST "N sub-buffers lost" when a header's seq skips.
 *
 * COMM records (version 2) are no events: the decoder keeps the last one
 * and gives its name to the records of its pid that follow (ev->comm).
 * A record's site id is looked up in s->sites (a struct ks_sites the
 * caller loaded from DIR/sites, or NULL) for ev->func, ev->line and
 * ev->site; a version 1 record has its function name and line itself.
 *
 * It checks every size before using it (record size >= the header, a
 * multiple of 8, fits the bytes left and its name and payload) and stops
 * at the first inconsistency with a message naming the stream and offset.
 *
 * Two ways to drive it: ks_next() pulls one event at a time out of a
 * complete buffer (report mode); ks_feed() pushes chunks cut anywhere and
 * calls back per event (live readers), ks_finish() ends the stream.
 *
 * ks_format() prints an event as one line:
 *   [<sec>.<nsec>] cpu<N> <comm>-<pid> <ctx> <func>:<line>: <text>
 * with N the record's own cpu field (one buffer holds every CPU's
 * records when the channel is global); "<pid>" alone when no COMM record
 * named the task, "site#<id>" for <func>:<line> when the site is not in
 * the table; a loss line names the buffer.
 * ks_merge is a min-heap of sources by timestamp for the k-way merge of
 * the CPUs' streams.
 */
#ifndef KLOG_STREAM_H
#define KLOG_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/klog_relay.h>

/*
 * struct ks_buf - a growing byte buffer: text lines, an encoded stream
 */
struct ks_buf {
	char	*p;
	size_t	len, cap;
};

/* ---- Sites ----------------------------------------------------------- */

/*
 * struct ks_site - one line of a sites file (the kernel's
 * /sys/kernel/debug/klog/sites, a collection's DIR/sites): strings
 * unescaped and NUL-terminated
 */
struct ks_site {
	__u32	id;
	bool	live;		/* "live", or "gone": its module unloaded */
	char	kind[16];	/* "text", "raw", ... */
	char	*module, *file, *func, *fmt;	/* one allocation */
	__u32	line;
	size_t	func_len;
};

/*
 * struct ks_sites - sites by id. Entries are allocated one by one and
 * never freed or moved before ks_sites_free(): a pointer to one stays
 * valid while more are merged in.
 */
struct ks_sites {
	struct ks_site	**v;		/* sorted by id */
	size_t		n, cap;
	__u64		forgotten;	/* the highest forgotten= seen */
};

#define KS_FUNC_MAX		4096	/* bytes of a site's field */
#define KS_SITES_HEADER		"# klog sites 1"
#define KS_SITES_MAX_FILE	(256u << 20)	/* bytes a reader accepts */

/*
 * ks_sites_parse() - merge the sites file text @p (@len bytes) into @t
 * Lines: the header "# klog sites 1 forgotten=N" (the kernel's file adds
 * " refused=N", which is skipped), then per site the TAB
 * separated fields id state kind module file line func fmt, with C
 * escapes (\\ \t \n \" \ooo). An id already in @t keeps its
 * description; a "gone" state replaces "live" (the module went during the
 * collection). A line repeated exactly is taken once (the kernel's
 * seq_file may repeat one when the table changes between two reads); an
 * id listed twice differently is an error. Nothing is trusted: the
 * first bad line fails the parse with "NAME:LINE: reason" in @err, and
 * @t is left as it was.
 * Return: 0, or -1 (@err set).
 */
int ks_sites_parse(struct ks_sites *t, const char *p, size_t len,
		   const char *name, char *err, size_t err_size);
/* The site with @id, or NULL. */
const struct ks_site *ks_sites_find(const struct ks_sites *t, __u32 id);
/* ks_sites_format() - @t as a sites file into @b. 0, or -1 (memory). */
struct ks_buf;
int ks_sites_format(const struct ks_sites *t, struct ks_buf *b);
/* ks_site_escape() - the kernel's escaping of one field, appended to @b. */
int ks_site_escape(struct ks_buf *b, const char *s);
void ks_sites_free(struct ks_sites *t);

enum ks_kind {
	KS_SUBBUF,		/* a sub-buffer header */
	KS_RECORD,		/* a record */
	KS_LOST,		/* @count records lost */
	KS_SUBBUFS_LOST,	/* @count sub-buffers lost */
};

/*
 * struct ks_event - one decoded item
 * @payload, @comm and a version 1 record's @func point into the decoded
 * data, the stream's carry buffer or the stream itself: valid until the
 * next ks_next()/ks_feed() call on the stream. @site and a version 2
 * record's @func point into the sites table.
 */
struct ks_event {
	enum ks_kind		kind;
	int			cpu;	/* the stream's (buffer's) CPU */
	__u64		ts;	/* ns; for losses: where detected */
	__u64		count;	/* KS_LOST, KS_SUBBUFS_LOST */
	struct klog_subbuf_hdr	sb;	/* KS_SUBBUF */
	/* KS_RECORD: the header (a version 1 record's as version 2, site 0) */
	struct klog_rec_hdr	rec;
	int			version;	/* KS_RECORD: of its sub-buffer */
	const struct ks_site	*site;	/* version 2: rec.site_id's, or NULL */
	const unsigned char	*func;	/* function name, NULL if unknown */
	size_t			func_len;
	__u32			line;	/* source line, 0 if unknown */
	const char		*comm;	/* task name (NUL-terminated) or NULL */
	const unsigned char	*payload; /* KS_RECORD: rec.len bytes */
};

/*
 * ks_args_text - the formatter of argument records (KLOG_RELAY_ARGS):
 * the text of the block @blk (@len bytes) under the site's format @fmt,
 * as the kernel's vsnprintf() would have made it, NUL-terminated and cut
 * to @size bytes like snprintf(). Returns the whole text's length, or -1
 * if the block is malformed or does not match @fmt. A program that links
 * a formatter sets it (the collector: tools/lib/klog/klog-format.c);
 * while NULL, argument records are shown as bytes.
 */
typedef int (*ks_args_fn)(char *buf, size_t size, const char *fmt,
			  const void *blk, size_t len);
extern ks_args_fn ks_args_text;

/*
 * The names of the contexts (KLOG_RELAY_CTX_*), NULL-terminated;
 * ks_ctx_name(): one of them, or "ctxN" in @buf for a value not known.
 */
#define KS_NCTX		4
#define KS_CTX_BUF	8
extern const char *const ks_ctx_names[KS_NCTX + 1];
const char *ks_ctx_name(__u8 ctx, char buf[KS_CTX_BUF]);

/* A record's text is at most KS_TEXT_MAX - 1 bytes (KLOG_TEXT_MAX). */
#define KS_TEXT_MAX	1024

/*
 * ks_event_text() - the text of a record: a text record's payload (cut
 * to KS_TEXT_MAX - 1 bytes, *cut then true: klog-mod writes no more), or an
 * argument record formatted (ks_args_text) with its site's format into
 * @buf (KS_TEXT_MAX bytes) and cut to KS_TEXT_MAX - 1 bytes, as
 * klog_printk() cuts the text it formats (*cut then true).
 * Return: the length with *text set (valid while @buf and the event
 * are), or -1 when the record has no text: raw, a kind not known, or an
 * argument record whose site, format or formatter is not known, whose
 * site is not a text site, or whose block does not match its format
 * exactly (every argument and byte taken; a string cut only past the
 * 1023 bytes a text keeps).
 */
int ks_event_text(const struct ks_event *ev, char *buf,
		  const unsigned char **text, bool *cut);

/* ks_event_site() - (re)resolve @ev's site id in @t (version 2 records). */
void ks_event_site(struct ks_event *ev, const struct ks_sites *t);

/*
 * Callback for ks_feed()/ks_finish() (NULL: only decode and count); a
 * non-zero return stops the feed.
 */
typedef int (*ks_event_fn)(const struct ks_event *ev, void *arg);

/*
 * More records lost in one stream than any kernel numbers (2^56: a
 * billion a second for two years): a damaged file. Kept this far below
 * 2^64 so that the losses of 256 CPUs still add up exactly.
 */
#define KS_LOST_MAX	72057594037927936ULL	/* 2^56 */

/* struct ks_stream - decoder state of one CPU's stream */
struct ks_stream {
	int		cpu;		/* the N of cpuN; printed in lines */
	char		name[1024];	/* for messages: file or "cpuN" */
	size_t		max_item;	/* sub-buffer size if known, else 0 */

	__u64	off;		/* stream offset of the next item */
	__u64	next_subbuf;	/* expected klog_subbuf_hdr.seq */
	__u64	next_rec;	/* expected klog_rec_hdr.seq */
	int		version;	/* of the last sub-buffer header */
	const struct ks_sites *sites;	/* for site ids; NULL: none */
	__u32	comm_pid;	/* the last COMM record's pid ... */
	char		comm[KLOG_RELAY_COMM_LEN + 1];	/* ... and name */
	bool		comm_known;	/* a COMM record was seen */
	__u64	last_ts;	/* highest record timestamp seen */
	bool		join;		/* starts mid-channel: no loss before */
	bool		more;		/* ks_next(): the data may still grow */
	bool		first_known;	/* join, but next_subbuf is the first */
	bool		started;	/* a sub-buffer header was seen */
	bool		finished;	/* end of stream handled */
	bool		failed;		/* @error says why; no more events */
	char		error[1536];

	__u64	records;	/* records decoded (COMM records not counted) */
	__u64	comms;		/* COMM records decoded */
	__u64	subbufs;	/* sub-buffer headers decoded */
	__u64	seq_lost;	/* records missing by seq gaps */
	__u64	hdr_lost;	/* sum of klog_subbuf_hdr.lost */
	__u64	tail_lost;	/* hdr_lost - seq_lost at the end */
	__u64	subbufs_lost;	/* sub-buffers missing by seq gaps */
	__u64	late;		/* records with a seq already passed */
	__u64	cpu_mismatch;	/* headers naming another CPU */

	/* private: events of the last item, partial item of ks_feed() */
	bool		counting;	/* ks_feed() without a callback */
	struct ks_event	pend[2];
	int		npend, ipend;
	struct ks_buf	carry;		/* an item cut by a chunk's end */
};

/*
 * ks_init() - start decoding a stream. @max_item: sub-buffer size or 0.
 * Set s->join afterwards for a stream that starts in the middle of the
 * channel (a collector attached to a running channel): its first header
 * and first record set the expected sequence numbers instead of showing
 * what came before them as lost. A snapshot also sets s->first_known and
 * s->next_subbuf to the first sub-buffer it covers: sub-buffers skipped
 * from there on are shown as lost.
 */
void ks_init(struct ks_stream *s, int cpu, const char *name, size_t max_item);
void ks_release(struct ks_stream *s);

/* a + b, at most U64_MAX: counts from a file must not wrap to small */
static inline __u64 ks_add_sat(__u64 a, __u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Records lost as the stream shows them (seq gaps and header counts). */
static inline __u64 ks_lost(const struct ks_stream *s)
{
	return s->seq_lost + s->tail_lost;
}

/*
 * ks_next() - the next event of a complete stream in @data
 * The stream position is s->off, so pass the same buffer every time (or
 * a longer one with the same bytes first: a file that grew). With
 * s->more set (a file still being written), the end of @data, also
 * inside an item, is not the end of the stream: 0 without the end's
 * loss event or error; clear it at the real end.
 * Return: 1 and *ev, 0 at the end, -1 on a format error (s->error).
 */
int ks_next(struct ks_stream *s, const void *data, size_t len,
	    struct ks_event *ev);

/*
 * ks_feed() - decode the next @len bytes of a stream, cut anywhere
 * With @fn NULL the records are checked and counted, no event is built:
 * the collector's drain, whose per-record work is the report's.
 * Return: 0, -1 on a format error (s->failed, s->error), or the
 * callback's non-zero value.
 */
int ks_feed(struct ks_stream *s, const void *data, size_t len,
	    ks_event_fn fn, void *arg);

/* ks_finish() - end of a fed stream: trailing loss; error if mid-item. */
int ks_finish(struct ks_stream *s, ks_event_fn fn, void *arg);

/*
 * ks_subbuf_used() - bytes in use of a whole finished sub-buffer
 * (mmap readers): subbuf_size - padding, or -1 with a reason in @why
 * if the header is not valid.
 */
long ks_subbuf_used(const void *subbuf, size_t subbuf_size,
		    char *why, size_t why_size);

/* ---- Text ------------------------------------------------------------ */

/*
 * ks_format() - append the event's line (with '\n') to @b; ks_format_hex()
 * shows up to @hex_max bytes of a raw payload instead of KS_HEX_MAX
 * Return: 1 if a line was added, 0 for events that print nothing
 * (KS_SUBBUF), -1 if out of memory.
 */
int ks_format_hex(const struct ks_event *ev, struct ks_buf *b, size_t hex_max);

#define KS_HEX_MAX	64	/* raw bytes ks_format() shows in hex */

static inline int ks_format(const struct ks_event *ev, struct ks_buf *b)
{
	return ks_format_hex(ev, b, KS_HEX_MAX);
}

/*
 * ks_escape_byte() - byte @c as a line shows text: itself if printable
 * ASCII, \\ \n \t \r, else \xHH (ra_escape() too). Into @e: its length.
 */
static inline size_t ks_escape_byte(unsigned char c, char e[4])
{
	static const char hex[] = "0123456789abcdef";

	if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
		e[0] = '\\';
		e[1] = c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = c;
		return 1;
	}
	e[0] = '\\';
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

void ks_buf_free(struct ks_buf *b);
/* ks_buf_reserve() - room for @more bytes and a NUL in @b. 0, or -1. */
int ks_buf_reserve(struct ks_buf *b, size_t more);
/* ks_buf_printf() - append printf text to @b. 0, or -1 if out of memory. */
int ks_buf_printf(struct ks_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- Encoding (tests, tools that write a stream) ---------------------- */

/* ks_put() - append @n bytes to @b. 0, or -1 if out of memory. */
int ks_put(struct ks_buf *b, const void *p, size_t n);
/* ks_put_subbuf_hdr() - append a sub-buffer header of KLOG_RELAY_VERSION (padding 0). */
int ks_put_subbuf_hdr(struct ks_buf *b, __u32 cpu, __u64 seq, __u64 lost,
		      __u64 first_ts);
/* ks_put_subbuf_hdr_v() - the same, of stream version @version */
int ks_put_subbuf_hdr_v(struct ks_buf *b, __u16 version, __u32 cpu,
			__u64 seq, __u64 lost, __u64 first_ts);
/*
 * ks_put_record() - append a record (versions 2 and 3): @hdr with its size set,
 * @hdr->len payload bytes, padded to 8
 */
int ks_put_record(struct ks_buf *b, const struct klog_rec_hdr *hdr,
		  const void *payload);
/* ks_put_comm() - append a COMM record naming @pid @comm, numbered @seq */
int ks_put_comm(struct ks_buf *b, __u32 pid, const char *comm, __u64 seq,
		__u64 ts, __u16 cpu);
/*
 * ks_put_record_v1() - append a version 1 record: @hdr with its size
 * and func_len set from @func (a string), then the payload, padded to 8
 */
int ks_put_record_v1(struct ks_buf *b, const struct klog_rec_hdr_v1 *hdr,
		     const char *func, const void *payload);

/* ---- k-way merge ----------------------------------------------------- */

/*
 * struct ks_merge - sources 0..n-1 ordered by (timestamp, source)
 * Each source is in the heap at most once, keyed by its next event.
 */
struct ks_merge {
	int		n;		/* sources in the heap */
	int		*heap;		/* source ids, heap-ordered */
	int		*pos;		/* source -> index in heap, -1 if out */
	__u64	*key;		/* source -> timestamp */
};

int ks_merge_init(struct ks_merge *m, int nsrc);
void ks_merge_free(struct ks_merge *m);
/* Insert @src or change its timestamp. */
void ks_merge_set(struct ks_merge *m, int src, __u64 ts);
void ks_merge_remove(struct ks_merge *m, int src);
/* The source with the lowest timestamp (and *ts), or -1 if empty. */
int ks_merge_top(const struct ks_merge *m, __u64 *ts);

#endif /* KLOG_STREAM_H */
