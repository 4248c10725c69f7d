// SPDX-License-Identifier: GPL-2.0
/*
 * klog-ctf.c - export a saved collection as a CTF 1.8 trace (klog -r DIR
 * --ctf OUT), for babeltrace2, Trace Compass and other CTF readers
 *
 * OUT/metadata is the trace's description in CTF's TSDL; OUT/stream_N
 * holds the records of DIR/cpuN, in CTF packets. Every record is one
 * event: "klog:text" (klog_printk(), klog_trigger()) or "klog:raw"
 * (klog_raw()), with the record's timestamp on the clock "klog_local"
 * (local_clock() in ns; its origin is the wall-clock offset --time wall
 * uses, meta_wall(), when DIR/meta has one, else unknown), the buffer's
 * CPU as the packet context's cpu_id, and the fields cpu (where the call
 * ran: a global buffer holds every CPU's records), pid, comm (the task
 * name, "" if no COMM record gave it), ctx, flags, seq, site (the call
 * site's id, 0 in a version 1 collection), line and func (from DIR/sites;
 * 0 and "" if the site is not there) and text, or len and data for a raw
 * record; then, for each of comm, func and text, NAME_bytes_len and
 * NAME_bytes (see "Exact text" below).
 *
 * The trace's env has tracer_name "klog", tracer_major (the newest
 * stream version this klog reads, KLOG_RELAY_VERSION), domain "kernel",
 * trace_name (the name of the collection's directory, DIR's last
 * component) and, when DIR/meta gives one, the traced machine's
 * hostname: babeltrace2 names a trace by its env hostname, so a
 * collection without DIR/meta shows as "" there.
 *
 * Losses are CTF discarded-event counts: the records a stream shows as
 * lost before a record close the packet before it, and the next packet's
 * events_discarded (a running count, which starts at 0 in an empty first
 * packet) grows by them, so a reader reports "N events discarded" between
 * the two packets. Loss found at the end of a stream goes into a last,
 * empty packet. klog -r's total "lost" equals the sum of the counts.
 *
 * A CTF stream's events must be in time order. Records of one buffer are
 * nearly so: a record's timestamp is taken before it is written, so an
 * interrupt's record can land before the one it interrupted. Each
 * stream's events are therefore sorted by (timestamp, position); a loss
 * stays before the record it was found before.
 *
 * Exact text. A CTF string is declared UTF-8 (the default encoding) and
 * ends at a NUL byte; a record's text, task name or function may hold
 * any bytes. So each string field holds valid UTF-8 only: a byte
 * sequence that is not well-formed UTF-8 (utf8_next(): one U+FFFD per
 * maximal subpart, as Python's bytes.decode(errors="replace") does) and
 * a NUL byte are replaced by U+FFFD, and the field's exact bytes then go
 * into the byte sequence NAME_bytes (uint8_t NAME_bytes[NAME_bytes_len]),
 * which is empty when the string is the bytes exactly: a reader takes
 * NAME_bytes when it is not empty, else the string. (babeltrace2 2.0
 * also reads a string declared "encoding = none" or ASCII that holds
 * any byte, but passes the bytes on in strings its API says are UTF-8,
 * and CTF 1.8 defines no such string encoding: a byte sequence is the
 * one lossless form every CTF reader knows.) Strings in the metadata
 * (env) are UTF-8 with '"' and '\\' escaped, U+FFFD for bytes that are
 * not UTF-8 and for control characters.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "klog-app.h"

#define CTF_MAGIC	0xc1fc1fc1u
#define CTF_PACKET_MAX	1048576		/* event bytes before a new packet */
#define CTF_EV_TEXT	0
#define CTF_EV_RAW	1

/*
 * A CTF reader takes a time as signed 64-bit ns since the clock's origin
 * (babeltrace2 refuses a stream with one it cannot convert): every
 * timestamp plus the origin must be below INT64_MAX, and the origin's
 * seconds must leave babeltrace2 a second of room below INT64_MAX ns
 * (bt_util_get_base_offset_ns(): at most 9223372034 s).
 */
#define CTF_NS_MAX		((__u64)INT64_MAX - 1)
#define CTF_ORIGIN_S_MAX	((__u64)INT64_MAX / NSEC - 2)

struct ctf_rec {
	__u64		ts;
	__u64		lost_before;	/* records lost just before this one */
	size_t		pos;		/* order in the buffer: sort key 2 */
	struct klog_rec_hdr rec;
	const unsigned char *func, *payload;
	char		*text;		/* an argument record's text (owned) */
	size_t		func_len;
	__u32		line;
	char		comm[KLOG_RELAY_COMM_LEN + 1];	/* "" if unknown */
};

struct ctf_stream {
	int		cpu;		/* N of DIR/cpuN */
	struct ctf_rec	*v;
	size_t		n, cap;
	__u64		pend_lost;	/* lost, not yet before a record */
	__u64		tail_lost;	/* lost after the last record */
};

struct ctf_out {
	char		dir[PATH_MAX];
	unsigned char	uuid[16];
	struct ctf_stream *s;
	int		n;
	char		*trace_name;	/* the collection's directory name */
	char		hostname[sizeof(((struct meta *)0)->hostname)];
	__u64		origin;		/* clock origin (DIR/meta), ns */
	bool		absolute;	/* ... is wall-clock time */
	/* the packet being built */
	struct ks_buf	pkt;
	__u64		pkt_seq, discarded, begin, end;
};

/*
 * The fields both event classes start with, and end with, in
 * put_event()'s order.
 */
#define KLOG_CTF_COMMON_FIELDS \
	"\t\tuint16_t cpu;\n" \
	"\t\tuint32_t pid;\n" \
	"\t\tstring comm;\n" \
	"\t\tklog_ctx_t ctx;\n" \
	"\t\tuint8_t flags;\n" \
	"\t\tuint64_t seq;\n" \
	"\t\tuint32_t site;\n" \
	"\t\tuint32_t line;\n" \
	"\t\tstring func;\n"
#define KLOG_CTF_COMMON_BYTES \
	"\t\tuint32_t comm_bytes_len;\n" \
	"\t\tuint8_t comm_bytes[comm_bytes_len];\n" \
	"\t\tuint32_t func_bytes_len;\n" \
	"\t\tuint8_t func_bytes[func_bytes_len];\n"

static const char ctf_metadata[] =
	"/* CTF 1.8 */\n"
	"/* klog collection exported by klog -r --ctf; see Documentation/trace/klog.rst */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false;\n"
	"\tmap = clock.klog_local.value; } := klog_clock_t;\n"
	"\n"
	"trace {\n"
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tuuid = \"%s\";\n"
	"\tbyte_order = %s;\n"
	"\tpacket.header := struct {\n"
	"\t\tuint32_t magic;\n"
	"\t\tuint8_t uuid[16];\n"
	"\t\tuint32_t stream_id;\n"
	"\t};\n"
	"};\n"
	"\n"
	"env {\n"
	"\ttracer_name = \"klog\";\n"
	"\ttracer_major = %d;\n"
	"\tdomain = \"kernel\";\n";

/* After the env's trace_name and hostname (write_metadata()). */
static const char ctf_metadata_rest[] =
	"};\n"
	"\n"
	"clock {\n"
	"\tname = klog_local;\n"
	"\tdescription = \"local_clock() of the traced kernel, ns\";\n"
	"\tfreq = 1000000000;\n"
	"\tprecision = 1;\n"
	"\toffset_s = %llu;\n"
	"\toffset = %llu;\n"
	"\tabsolute = %s;\n"
	"};\n"
	"\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tklog_clock_t timestamp_begin;\n"
	"\t\tklog_clock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t cpu_id;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tuint32_t id;\n"
	"\t\tklog_clock_t timestamp;\n"
	"\t};\n"
	"};\n"
	"\n"
	"typealias enum : uint8_t { task = 0, softirq = 1, hardirq = 2, nmi = 3 } := klog_ctx_t;\n"
	"\n"
	"event {\n"
	"\tname = \"klog:text\";\n"
	"\tid = 0;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	KLOG_CTF_COMMON_FIELDS
	"\t\tstring text;\n"
	KLOG_CTF_COMMON_BYTES
	"\t\tuint32_t text_bytes_len;\n"
	"\t\tuint8_t text_bytes[text_bytes_len];\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"klog:raw\";\n"
	"\tid = 1;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	KLOG_CTF_COMMON_FIELDS
	"\t\tuint32_t len;\n"
	"\t\tuint8_t data[len];\n"
	KLOG_CTF_COMMON_BYTES
	"\t};\n"
	"};\n";

static int put_u8(struct ks_buf *b, __u8 v)
{
	return ks_put(b, &v, sizeof(v));
}

static int put_u16(struct ks_buf *b, __u16 v)
{
	return ks_put(b, &v, sizeof(v));
}

static int put_u32(struct ks_buf *b, __u32 v)
{
	return ks_put(b, &v, sizeof(v));
}

static int put_u64(struct ks_buf *b, __u64 v)
{
	return ks_put(b, &v, sizeof(v));
}

static const unsigned char ctf_fffd[3] = { 0xef, 0xbf, 0xbd };	/* U+FFFD */

/*
 * A CTF string of the @n bytes at @p: valid UTF-8, U+FFFD for each
 * maximal subpart that is not and for each NUL, then a NUL; *@exact
 * false if it is not the bytes.
 */
static int put_str(struct ks_buf *b, const unsigned char *p, size_t n,
		   bool *exact)
{
	size_t i;
	int len;

	*exact = true;
	for (i = 0; i < n; i += len) {
		__u32 c;

		len = utf8_next(p + i, n - i, &c);
		if (len > 0 && c) {
			if (ks_put(b, p + i, len))
				return -1;
			continue;
		}
		len = len < 0 ? -len : len;
		*exact = false;
		if (ks_put(b, ctf_fffd, sizeof(ctf_fffd)))
			return -1;
	}
	return put_u8(b, 0);
}

/* NAME_bytes_len and NAME_bytes: the @n bytes at @p, none if @exact. */
static int put_bytes(struct ks_buf *b, const unsigned char *p, size_t n,
		     bool exact)
{
	if (exact)
		return put_u32(b, 0);
	return put_u32(b, n) || ks_put(b, p, n);
}

/*
 * The running discarded count grows by @n: -1 (said) once it would reach
 * 2^64 - 1, which CTF readers take for "unknown" (babeltrace2 aborts on
 * it): no file a kernel wrote loses that many records.
 */
static int add_discarded(struct ctf_out *c, int cpu, __u64 n)
{
	c->discarded = ks_add_sat(c->discarded, n);
	if (c->discarded != UINT64_MAX)
		return 0;
	ra_err("cpu%d: more than %llu records lost: no CTF packet can count them",
	       cpu, (unsigned long long)(UINT64_MAX - 1));
	return -1;
}

/* Offsets in a packet of the packet context's fields. */
#define PKT_HDR_SIZE	24
#define PKT_CTX_BEGIN	(PKT_HDR_SIZE + 0)
#define PKT_CTX_END	(PKT_HDR_SIZE + 8)
#define PKT_CTX_CONTENT	(PKT_HDR_SIZE + 16)
#define PKT_CTX_SIZE	(PKT_HDR_SIZE + 24)

static int packet_start(struct ctf_out *c, int cpu, __u64 ts)
{
	struct ks_buf *b = &c->pkt;

	b->len = 0;
	c->begin = ts;
	c->end = ts;
	/* sizes and times are filled in when the packet ends */
	return put_u32(b, CTF_MAGIC) || ks_put(b, c->uuid, sizeof(c->uuid)) ||
	       put_u32(b, 0) ||
	       put_u64(b, 0) || put_u64(b, 0) || put_u64(b, 0) ||
	       put_u64(b, 0) || put_u64(b, c->pkt_seq) ||
	       put_u64(b, c->discarded) || put_u32(b, cpu);
}

static int packet_end(struct ctf_out *c, int fd, const char *path)
{
	struct ks_buf *b = &c->pkt;
	__u64 bits = (__u64)b->len * 8;

	memcpy(b->p + PKT_CTX_BEGIN, &c->begin, 8);
	memcpy(b->p + PKT_CTX_END, &c->end, 8);
	memcpy(b->p + PKT_CTX_CONTENT, &bits, 8);
	memcpy(b->p + PKT_CTX_SIZE, &bits, 8);
	c->pkt_seq++;
	if (ra_write_full(fd, b->p, b->len)) {
		ra_err("%s: write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int put_event(struct ctf_out *c, const struct ctf_rec *r)
{
	const struct klog_rec_hdr *h = &r->rec;
	const unsigned char *comm = (const unsigned char *)r->comm;
	size_t comm_len = strlen(r->comm);
	struct ks_buf *b = &c->pkt;
	bool text = h->kind == KLOG_RELAY_TEXT;
	bool comm_exact, func_exact, text_exact;

	if (put_u32(b, text ? CTF_EV_TEXT : CTF_EV_RAW) || put_u64(b, r->ts) ||
	    put_u16(b, h->cpu) || put_u32(b, h->pid) ||
	    put_str(b, comm, comm_len, &comm_exact) ||
	    put_u8(b, h->ctx) || put_u8(b, h->flags) || put_u64(b, h->seq) ||
	    put_u32(b, h->site_id) || put_u32(b, r->line) ||
	    put_str(b, r->func, r->func_len, &func_exact))
		return -1;
	if (text ? put_str(b, r->payload, h->len, &text_exact) :
		   put_u32(b, h->len) || ks_put(b, r->payload, h->len))
		return -1;
	if (put_bytes(b, comm, comm_len, comm_exact) ||
	    put_bytes(b, r->func, r->func_len, func_exact) ||
	    (text && put_bytes(b, r->payload, h->len, text_exact)))
		return -1;
	c->end = r->ts;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct ctf_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int write_stream(struct ctf_out *c, struct ctf_stream *s)
{
	char path[PATH_MAX + 32];
	__u64 first = s->n ? s->v[0].ts : 0;
	size_t i;
	int fd, err = -1;

	snprintf(path, sizeof(path), "%s/stream_%d", c->dir, s->cpu);
	fd = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -1;
	if (s->n) {	/* qsort() takes no NULL, even for 0 elements */
		qsort(s->v, s->n, sizeof(*s->v), rec_cmp);
		first = s->v[0].ts;
	}
	c->pkt_seq = 0;
	c->discarded = 0;
	if (packet_start(c, s->cpu, first))
		goto oom;
	for (i = 0; i < s->n; i++) {
		const struct ctf_rec *r = &s->v[i];

		if (r->lost_before || c->pkt.len >= CTF_PACKET_MAX) {
			if (packet_end(c, fd, path) ||
			    add_discarded(c, s->cpu, r->lost_before))
				goto out;
			if (packet_start(c, s->cpu, r->ts))
				goto oom;
		}
		if (put_event(c, r))
			goto oom;
	}
	if (s->tail_lost) {
		__u64 end = c->end;

		if (packet_end(c, fd, path) ||
		    add_discarded(c, s->cpu, s->tail_lost))
			goto out;
		if (packet_start(c, s->cpu, end))
			goto oom;
	}
	if (packet_end(c, fd, path))
		goto out;
	err = 0;
	goto out;
oom:
	ra_err("out of memory");
out:
	if (close(fd) && !err) {
		ra_err("%s: close: %s", path, strerror(errno));
		err = -1;
	}
	return err;
}

/*
 * An env entry KEY = "VALUE";: @s as valid UTF-8, '"' and '\\' escaped,
 * U+FFFD for bytes that are not UTF-8 and for control characters (a
 * viewer prints the trace's name to a terminal).
 */
static void env_string(FILE *f, const char *key, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n = strlen(s);
	int len;

	fprintf(f, "\t%s = \"", key);
	for (i = 0; i < n; i += len) {
		__u32 c;

		len = utf8_next(p + i, n - i, &c);
		if (len < 0 || c < 0x20 || (c >= 0x7f && c < 0xa0)) {
			fwrite(ctf_fffd, 1, sizeof(ctf_fffd), f);
			len = len < 0 ? -len : len;
			continue;
		}
		if (c == '"' || c == '\\')
			fputc('\\', f);
		fwrite(p + i, 1, len, f);
	}
	fputs("\";\n", f);
}

static int write_metadata(struct ctf_out *c)
{
	char path[PATH_MAX + 32], uuid[37];
	union { __u16 v; __u8 b[2]; } order = { .v = 1 };
	const unsigned char *u = c->uuid;
	FILE *f;
	int fd;

	snprintf(uuid, sizeof(uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	snprintf(path, sizeof(path), "%s/metadata", c->dir);
	fd = ra_out_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		ra_err("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	fprintf(f, ctf_metadata, uuid, order.b[0] ? "le" : "be",
		KLOG_RELAY_VERSION);
	env_string(f, "trace_name", c->trace_name);
	if (*c->hostname)
		env_string(f, "hostname", c->hostname);
	fprintf(f, ctf_metadata_rest, (unsigned long long)(c->origin / NSEC),
		(unsigned long long)(c->origin % NSEC),
		c->absolute ? "true" : "false");
	if (fclose(f)) {
		ra_err("%s: write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int ctf_event(void *priv, int src, const struct ks_event *ev)
{
	struct ctf_out *c = priv;
	struct ctf_stream *s = &c->s[src];
	struct ctf_rec *r;

	switch (ev->kind) {
	case KS_LOST:
		s->pend_lost = ks_add_sat(s->pend_lost, ev->count);
		return 0;
	case KS_RECORD:
		break;
	default:	/* sub-buffer headers; lost sub-buffers show as KS_LOST */
		return 0;
	}
	/* refused rather than written into a trace no one can read */
	if (ev->rec.ts_ns > CTF_NS_MAX - c->origin) {
		ra_err("cpu%d: record seq %llu: timestamp %llu ns%s is past what a CTF clock holds (2^63 - 2 ns)",
		       s->cpu, (unsigned long long)ev->rec.seq,
		       (unsigned long long)ev->rec.ts_ns,
		       c->absolute ? " plus DIR/meta's clock_start offset" : "");
		return -1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v) {
			ra_err("out of memory");
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	r = &s->v[s->n];
	*r = (struct ctf_rec) {
		.ts = ev->rec.ts_ns, .lost_before = s->pend_lost, .pos = s->n,
		.rec = ev->rec, .func = ev->func, .payload = ev->payload,
		.func_len = ev->func ? ev->func_len : 0, .line = ev->line,
	};
	if (ev->comm)
		snprintf(r->comm, sizeof(r->comm), "%s", ev->comm);
	if (ev->rec.kind == KLOG_RELAY_ARGS) {
		/* formatted now: written as the text record it stands for */
		const unsigned char *text;
		char tbuf[KS_TEXT_MAX];
		bool cut;
		int n = ks_event_text(ev, tbuf, &text, &cut);

		if (n >= 0) {
			r->text = malloc(n + 1);
			if (!r->text) {
				ra_err("out of memory");
				return -1;
			}
			memcpy(r->text, text, n);
			r->text[n] = '\0';
			r->payload = (const unsigned char *)r->text;
			r->rec.len = n;
			r->rec.kind = KLOG_RELAY_TEXT;
			if (cut)
				r->rec.flags |= KLOG_RELAY_TRUNCATED;
		}
	}
	s->n++;
	s->pend_lost = 0;
	return 0;
}

static int ctf_finish(void *priv)
{
	struct ctf_out *c = priv;
	int i, err = 0;

	err = write_metadata(c);
	for (i = 0; i < c->n && !err; i++) {
		c->s[i].tail_lost = c->s[i].pend_lost;
		err = write_stream(c, &c->s[i]);
	}
	return err;
}

static void ctf_free(void *priv)
{
	struct ctf_out *c = priv;
	size_t j;
	int i;

	for (i = 0; i < c->n; i++) {
		for (j = 0; j < c->s[i].n; j++)
			free(c->s[i].v[j].text);
		free(c->s[i].v);
	}
	free(c->s);
	free(c->trace_name);
	ks_buf_free(&c->pkt);
	free(c);
}

/* A trace directory holds one trace: no stale stream_N of another export. */
static int out_dir_empty(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int err = 0;

	if (!dp) {
		ra_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			ra_err("%s: not empty (holds %s): give a new directory for the trace",
			       dir, d->d_name);
			err = -1;
			break;
		}
	closedir(dp);
	return err;
}

/*
 * The name of the collection @coll: its directory's last component
 * (of the absolute path, so that "." and "DIR/" have one too). Allocated.
 */
static char *coll_name(const char *coll)
{
	char *abs = realpath(coll, NULL), *name, *slash;

	if (!abs)
		abs = strdup(coll);
	if (!abs)
		return NULL;
	while ((slash = strrchr(abs, '/')) && !slash[1] && slash != abs)
		*slash = '\0';		/* not realpath()'s: trailing slashes */
	name = strdup(slash && slash[1] ? slash + 1 : abs);
	free(abs);
	return name;
}

int ctf_sink_open(struct report_sink *sink, const char *dir,
		  const char *coll, const int *cpus, int n,
		  const struct meta *meta)
{
	struct ctf_out *c = calloc(1, sizeof(*c));
	int i;

	if (c) {
		c->s = calloc(n ? n : 1, sizeof(*c->s));
		c->trace_name = coll_name(coll);
	}
	if (!c || !c->s || !c->trace_name) {
		if (c) {
			free(c->s);
			free(c->trace_name);
		}
		free(c);
		ra_err("out of memory");
		return -1;
	}
	c->n = n;
	snprintf(c->hostname, sizeof(c->hostname), "%s", meta->hostname);
	/* wall-clock origin: what --time wall adds (meta_wall()), if any */
	c->absolute = !meta_wall(meta, 0, &c->origin);
	if (c->absolute && c->origin / NSEC > CTF_ORIGIN_S_MAX) {
		ra_err("%s: DIR/meta's clock_start offset %llu.%09llu s is past what a CTF clock's origin holds (%llu s)",
		       dir, (unsigned long long)(c->origin / NSEC),
		       (unsigned long long)(c->origin % NSEC),
		       (unsigned long long)CTF_ORIGIN_S_MAX);
		goto fail;
	}
	for (i = 0; i < n; i++)
		c->s[i].cpu = cpus[i];
	if (snprintf(c->dir, sizeof(c->dir), "%s", dir) >= (int)sizeof(c->dir)) {
		ra_err("%s: path too long", dir);
		goto fail;
	}
	if (getrandom(c->uuid, sizeof(c->uuid), 0) != sizeof(c->uuid)) {
		ra_err("getrandom: %s", strerror(errno));
		goto fail;
	}
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x40;	/* version 4 */
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;	/* RFC 4122 */
	if (ra_out_dir(dir) || out_dir_empty(dir))
		goto fail;
	*sink = (struct report_sink) {
		.priv = c, .event = ctf_event, .finish = ctf_finish,
		.free = ctf_free,
	};
	return 0;
fail:
	ctf_free(c);
	return -1;
}
