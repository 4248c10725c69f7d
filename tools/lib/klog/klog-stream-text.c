// SPDX-License-Identifier: GPL-2.0
/*
 * klog-stream-text.c - text into a struct ks_buf: a decoded event as a line
 *
 * struct ks_buf grows as text or bytes are appended (ks_buf_reserve(),
 * ks_buf_printf(); the encoder's ks_put() too), always NUL-terminated.
 * ks_format_hex() prints one event as the one line that klog -r, klog -f,
 * the samples and the tests all show (the format is in klog-stream.h):
 * payload text with C-like escapes, so that a line is always one line of
 * printable ASCII; an argument record formatted with its site's format
 * through ks_args_text (set by a program that links a formatter, such as
 * the collector); anything else as up to hex_max bytes of hex.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_app.h"	/* __printf(), ARRAY_SIZE() */
#include "klog-stream.h"

int ks_buf_reserve(struct ks_buf *b, size_t more)
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

__printf(2, 3)
int ks_buf_printf(struct ks_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ks_buf_reserve(b, n))
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

/* @n bytes of @p escaped (ks_escape_byte()) */
static int buf_escape(struct ks_buf *b, const unsigned char *p, size_t n)
{
	size_t i;

	if (ks_buf_reserve(b, 4 * n))
		return -1;
	for (i = 0; i < n; i++)
		b->len += ks_escape_byte(p[i], b->p + b->len);
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
		    (i < n && ks_buf_printf(b, "\\x20")))
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
		/* klog-mod writes at most 1023 bytes; a longer one is cut */
		*text = ev->payload;
		*cut = r->len > KS_TEXT_MAX - 1;
		return *cut ? KS_TEXT_MAX - 1 : (int)r->len;
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

const char *const ks_ctx_names[KS_NCTX + 1] = {
	[KLOG_RELAY_CTX_TASK]		= "task",
	[KLOG_RELAY_CTX_SOFTIRQ]	= "softirq",
	[KLOG_RELAY_CTX_HARDIRQ]	= "hardirq",
	[KLOG_RELAY_CTX_NMI]		= "nmi",
};

const char *ks_ctx_name(__u8 ctx, char buf[KS_CTX_BUF])
{
	if (ctx < KS_NCTX)
		return ks_ctx_names[ctx];
	snprintf(buf, KS_CTX_BUF, "ctx%u", ctx);
	return buf;
}

static int format_record(const struct ks_event *ev, struct ks_buf *b,
			 size_t hex_max)
{
	const struct klog_rec_hdr *r = &ev->rec;
	const unsigned char *text;
	char tbuf[KS_TEXT_MAX];
	size_t n = r->len, i;
	char ctxbuf[KS_CTX_BUF];
	bool cut = false;
	int tlen;

	if (ks_buf_printf(b, " "))
		return -1;
	/* comm-pid as trace-cmd prints it; a space in a name as \x20 */
	if (ev->comm && (buf_escape_sp(b, (const unsigned char *)ev->comm,
				       strlen(ev->comm)) ||
			 ks_buf_printf(b, "-")))
		return -1;
	if (ks_buf_printf(b, "%u %s ", r->pid, ks_ctx_name(r->ctx, ctxbuf)))
		return -1;
	if (ev->func) {
		if (buf_escape(b, ev->func, ev->func_len) ||
		    ks_buf_printf(b, ":%u: ", ev->line))
			return -1;
	} else if (ev->version >= 2 ? ks_buf_printf(b, "site#%u: ", r->site_id) :
		   ks_buf_printf(b, "?:%u: ", ev->line)) {
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
		    ks_buf_printf(b, "raw %u bytes:", r->len) :
		    r->kind == KLOG_RELAY_ARGS ?
		    ks_buf_printf(b, "args %u bytes:", r->len) :
		    ks_buf_printf(b, "kind%u %u bytes:", r->kind, r->len))
			return -1;
		for (i = 0; i < n && i < hex_max; i++)
			if (ks_buf_printf(b, " %02x", ev->payload[i]))
				return -1;
		if (n > hex_max && ks_buf_printf(b, " ..."))
			return -1;
	}
	if (((r->flags & KLOG_RELAY_TRUNCATED) || cut) &&
	    ks_buf_printf(b, " [truncated]"))
		return -1;
	if ((r->flags & KLOG_RELAY_TRIGGER) && ks_buf_printf(b, " [trigger]"))
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
	if (ks_buf_printf(b, "[%llu.%09llu] cpu%d", sec, nsec,
			  ev->kind == KS_RECORD ? (int)ev->rec.cpu : ev->cpu))
		return -1;
	switch (ev->kind) {
	case KS_RECORD:
		ret = format_record(ev, b, hex_max);
		break;
	case KS_LOST:
		ret = ks_buf_printf(b, " *** %llu records lost ***",
				    (unsigned long long)ev->count);
		break;
	default:
		ret = ks_buf_printf(b, " *** %llu sub-buffers lost ***",
				    (unsigned long long)ev->count);
		break;
	}
	if (ret || ks_buf_printf(b, "\n"))
		return -1;
	return 1;
}

void ks_buf_free(struct ks_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
