// SPDX-License-Identifier: GPL-2.0
/*
 * klog-json.c - print a saved collection as JSON lines (klog -r DIR --json)
 *
 * One JSON object per line, in the order of the text report:
 *
 *   {"type":"record","ts":NS,"cpu":N,"buffer":N,"seq":N,"pid":N,
 *    "comm":"...","ctx":"task","kind":"text",
 *    "flags":["truncated","trigger"],"site":N,"func":"...",
 *    "file":"...","line":N,"text":"..."}
 *   {"type":"record",...,"kind":"raw",...,"len":N,"data":"0a1b..."}
 *   {"type":"lost","ts":NS,"buffer":N,"count":N}
 *   {"type":"subbufs_lost","ts":NS,"buffer":N,"count":N}
 *
 * "cpu" is where the call ran, "buffer" the N of the DIR/cpuN it was
 * saved in (they differ in a global buffer). "text" is the record's whole
 * text, its bytes as a JSON string: printable ASCII as is, the JSON
 * escapes for '"', '\\' and control characters, and every other byte
 * (0x7f-0xff) as \u00XX: decoding the string and encoding each character
 * as one byte (Latin-1) gives the original bytes back, whatever they are.
 * "data" is a raw record's whole payload in hex. A record kind or context
 * the collector does not know prints as "kindN" / "ctxN". "comm" is the
 * task name a COMM record gave, null if none did. "site" is the call
 * site's id (0 in a version 1 stream); "func" and "file" come from
 * DIR/sites (a version 1 record has its "func" itself, no "file") and
 * are null when the site is not there; "line" is then 0.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"

static const char *const json_ctx[] = {
	[KLOG_RELAY_CTX_TASK]		= "task",
	[KLOG_RELAY_CTX_SOFTIRQ]	= "softirq",
	[KLOG_RELAY_CTX_HARDIRQ]	= "hardirq",
	[KLOG_RELAY_CTX_NMI]		= "nmi",
};

static void json_string(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\u%04x", c);
	}
	fputc('"', f);
}

static void json_record(FILE *f, int buffer, const struct ks_event *ev)
{
	const struct klog_rec_hdr *r = &ev->rec;
	const unsigned char *text;
	char tbuf[KS_TEXT_MAX];
	const char *sep = "";
	bool cut = false;
	int tlen;
	size_t i;

	/* an argument record with its text is shown as a text record */
	tlen = ks_event_text(ev, tbuf, &text, &cut);

	fprintf(f, "{\"type\":\"record\",\"ts\":%llu,\"cpu\":%u,",
		(unsigned long long)r->ts_ns, r->cpu);
	fprintf(f, "\"buffer\":%d,\"seq\":%llu,\"pid\":%u,\"comm\":", buffer,
		(unsigned long long)r->seq, r->pid);
	if (ev->comm)
		json_string(f, (const unsigned char *)ev->comm, strlen(ev->comm));
	else
		fputs("null", f);
	fputc(',', f);
	if (r->ctx < ARRAY_SIZE(json_ctx))
		fprintf(f, "\"ctx\":\"%s\",", json_ctx[r->ctx]);
	else
		fprintf(f, "\"ctx\":\"ctx%u\",", r->ctx);
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
	fprintf(f, "],\"site\":%u,\"func\":", r->site_id);
	if (ev->func)
		json_string(f, ev->func, ev->func_len);
	else
		fputs("null", f);
	fputs(",\"file\":", f);
	if (ev->site)
		json_string(f, (const unsigned char *)ev->site->file,
			    strlen(ev->site->file));
	else
		fputs("null", f);
	fprintf(f, ",\"line\":%u,", ev->line);
	if (tlen >= 0) {
		fputs("\"text\":", f);
		json_string(f, text, tlen);
		if (r->kind == KLOG_RELAY_ARGS)
			fputs(",\"args\":true", f);
	} else {
		fprintf(f, "\"len\":%u,\"data\":\"", r->len);
		for (i = 0; i < r->len; i++)
			fprintf(f, "%02x", ev->payload[i]);
		fputc('"', f);
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
		fprintf(f, "{\"type\":\"%s\",\"ts\":%llu,\"buffer\":%d,\"count\":%llu}\n",
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
