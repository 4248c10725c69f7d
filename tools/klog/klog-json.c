// SPDX-License-Identifier: GPL-2.0
/*
 * klog-json.c - print a saved collection as JSON lines (klog -r DIR --json)
 *
 * One JSON object per line, in the order of the text report, in UTF-8:
 *
 *   {"type":"record","ts":"NS","cpu":N,"buffer":N,"seq":"N","pid":N,
 *    "comm":"...","ctx":"task","kind":"text",
 *    "flags":["truncated","trigger"],"site":N,"func":"...",
 *    "file":"...","line":N,"text":"..."}
 *   {"type":"record",...,"kind":"raw",...,"len":N,"data":"0a1b..."}
 *   {"type":"lost","ts":"NS","buffer":N,"count":"N"}
 *   {"type":"subbufs_lost","ts":"NS","buffer":N,"count":"N"}
 *
 * "cpu" is where the call ran, "buffer" the N of the DIR/cpuN it was
 * saved in (they differ in a global buffer). A record kind or context
 * the collector does not know prints as "kindN" / "ctxN". "comm" is the
 * task name a COMM record gave, null if none did. "site" is the call
 * site's id (0 in a version 1 stream); "func" and "file" come from
 * DIR/sites (a version 1 record has its "func" itself, no "file") and
 * are null when the site is not there; "line" is then 0. "data" is a
 * raw record's whole payload in hex.
 *
 * Exact values. The 64-bit fields "ts", "seq" and "count" are JSON
 * strings of decimal digits, as protobuf's JSON mapping writes 64-bit
 * integers: a reader that holds JSON numbers as doubles (JavaScript, jq
 * 1.6) would round a value above 2^53 (ns: 104 days of uptime; a file's
 * seq and counts can be anything), and a string keeps every digit
 * (Python: int(o["ts"]), JavaScript: BigInt(o.ts)). The other numbers
 * are at most 2^32 - 1 and stay numbers. (Numbers kept as numbers with
 * a string copy beside them would leave the rounded ones to be used by
 * mistake.)
 *
 * Exact text. "comm", "func", "file" and "text" hold bytes that are
 * meant as UTF-8 but may be anything (a %s of user data, a task name
 * set with prctl(), a hostile file). Each well-formed UTF-8 character
 * (shortest form, no surrogate, at most U+10FFFF) is printed as itself,
 * except '"' and '\\' (escaped by a backslash), newline, tab and
 * carriage return (as in C), and what a terminal or a JavaScript parser
 * would act on: the C0 controls, DEL, the C1 controls U+0080-U+009F,
 * U+2028 and U+2029, as \uXXXX. A byte sequence that is not well-formed
 * UTF-8 is replaced by U+FFFD, one per maximal subpart (Unicode's
 * recommended practice, what Python's bytes.decode(errors="replace")
 * and WHATWG's decoder do), and the object then has the field's exact
 * bytes in hex right after it: "text_hex" (likewise "comm_hex",
 * "func_hex", "file_hex"). So the bytes of a field are the hex field's
 * when there is one, else the string's UTF-8 encoding; the string alone
 * is what a UTF-8 reader can show. (The alternatives: one \u00XX per
 * byte, read back as Latin-1, is exact but turns every non-ASCII
 * character into mojibake; a lone surrogate per bad byte, as Python's
 * surrogateescape, is not valid for strict JSON readers; the bytes as
 * they are make the line invalid UTF-8, which JSON forbids.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"

/*
 * utf8_next() - the UTF-8 sequence at @p (@n > 0 bytes left): its length
 * (1 to 4), with *@cp its code point, if it is well-formed (shortest
 * form, no surrogate, at most U+10FFFF); otherwise minus the length of
 * its maximal subpart (1 to 3): the bytes that one U+FFFD replaces.
 */
int utf8_next(const unsigned char *p, size_t n, __u32 *cp)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	__u32 v;
	int len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		lo = c == 0xe0 ? 0xa0 : 0x80;	/* overlong */
		hi = c == 0xed ? 0x9f : 0xbf;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		lo = c == 0xf0 ? 0x90 : 0x80;	/* overlong */
		hi = c == 0xf4 ? 0x8f : 0xbf;	/* past U+10FFFF */
	} else {
		return -1;	/* a continuation byte, C0, C1, F5-FF */
	}
	for (i = 1; i < len; i++, lo = 0x80, hi = 0xbf) {
		if ((size_t)i == n || p[i] < lo || p[i] > hi)
			return -i;
		v = v << 6 | (p[i] & 0x3f);
	}
	*cp = v;
	return len;
}

static void json_hex(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

/*
 * "NAME":"..." for the @n bytes at @p (see the top comment), then
 * ,"NAME_hex":"..." if they are not all well-formed UTF-8; @p NULL:
 * "NAME":null.
 */
static void json_text(FILE *f, const char *name, const unsigned char *p,
		      size_t n)
{
	bool exact = true;
	size_t i;
	int len;

	fprintf(f, "\"%s\":", name);
	if (!p) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < n; i += len) {
		__u32 c;

		len = utf8_next(p + i, n - i, &c);
		if (len < 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			len = -len;
			exact = false;
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", (char)c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c < 0x20 || (c >= 0x7f && c < 0xa0) ||
			   c == 0x2028 || c == 0x2029) {
			fprintf(f, "\\u%04x", c);
		} else {
			fwrite(p + i, 1, len, f);
		}
	}
	fputc('"', f);
	if (!exact) {
		fprintf(f, ",\"%s_hex\":", name);
		json_hex(f, p, n);
	}
}

static void json_record(FILE *f, int buffer, const struct ks_event *ev)
{
	const struct klog_rec_hdr *r = &ev->rec;
	const unsigned char *text;
	char tbuf[KS_TEXT_MAX], cbuf[KS_CTX_BUF];
	const char *sep = "";
	bool cut = false;
	int tlen;

	/* an argument record with its text is shown as a text record */
	tlen = ks_event_text(ev, tbuf, &text, &cut);

	fprintf(f, "{\"type\":\"record\",\"ts\":\"%llu\",\"cpu\":%u,",
		(unsigned long long)r->ts_ns, r->cpu);
	fprintf(f, "\"buffer\":%d,\"seq\":\"%llu\",\"pid\":%u,", buffer,
		(unsigned long long)r->seq, r->pid);
	json_text(f, "comm", (const unsigned char *)ev->comm,
		  ev->comm ? strlen(ev->comm) : 0);
	fputc(',', f);
	fprintf(f, "\"ctx\":\"%s\",", ks_ctx_name(r->ctx, cbuf));
	if (tlen >= 0)
		fputs("\"kind\":\"text\",", f);
	else if (r->kind == KLOG_RELAY_RAW)
		fputs("\"kind\":\"raw\",", f);
	else if (r->kind == KLOG_RELAY_ARGS)
		fputs("\"kind\":\"args\",", f);
	else
		fprintf(f, "\"kind\":\"kind%u\",", r->kind);
	fputs("\"flags\":[", f);
	if ((r->flags & KLOG_RELAY_TRUNCATED) || cut) {
		fputs("\"truncated\"", f);
		sep = ",";
	}
	if (r->flags & KLOG_RELAY_TRIGGER)
		fprintf(f, "%s\"trigger\"", sep);
	fprintf(f, "],\"site\":%u,", r->site_id);
	json_text(f, "func", ev->func, ev->func_len);
	fputc(',', f);
	json_text(f, "file", ev->site ? (const unsigned char *)ev->site->file : NULL,
		  ev->site ? strlen(ev->site->file) : 0);
	fprintf(f, ",\"line\":%u,", ev->line);
	if (tlen >= 0) {
		json_text(f, "text", text, tlen);
		if (r->kind == KLOG_RELAY_ARGS)
			fputs(",\"args\":true", f);
	} else {
		fprintf(f, "\"len\":%u,\"data\":", r->len);
		json_hex(f, ev->payload, r->len);
	}
	fputs("}\n", f);
}

static int json_event(void *priv, int src, const struct ks_event *ev)
{
	const int *cpus = priv;
	FILE *f = stdout;

	switch (ev->kind) {
	case KS_RECORD:
		json_record(f, cpus[src], ev);
		break;
	case KS_LOST:
	case KS_SUBBUFS_LOST:
		fprintf(f, "{\"type\":\"%s\",\"ts\":\"%llu\",\"buffer\":%d,\"count\":\"%llu\"}\n",
			ev->kind == KS_LOST ? "lost" : "subbufs_lost",
			(unsigned long long)ev->ts, cpus[src],
			(unsigned long long)ev->count);
		break;
	default:
		break;
	}
	return 0;
}

void json_sink_open(struct report_sink *sink, const int *cpus)
{
	*sink = (struct report_sink) {
		.priv = (void *)cpus, .event = json_event,
	};
}
