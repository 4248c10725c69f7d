// SPDX-License-Identifier: GPL-2.0
/*
 * pack.c - write a klog relay stream from a text description, with the
 * one encoder (ks_put_subbuf_hdr(), ks_put_record() of klog-stream) and
 * kleak's record (kleak.h), for gen.py. Reads lines from stdin, writes
 * the stream to stdout:
 *
 *   hdr CPU                             a sub-buffer header (seq, lost 0)
 *   rec CPU SEQ TS KIND FUNC HEX        a record: pid 1, site id 10, task
 *                                       context; HEX is the payload (FUNC
 *                                       is read and not written: stream
 *                                       version 2 names sites by id)
 *   kleak CPU SEQ TS VERSION TYPE KSEQ SITE PTR REQ ALLOC
 *                                       a raw record from kleak_log()
 *                                       holding a struct kleak_record
 *
 * Exit status 0, or 1 with a message naming the bad line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-stream.h"
#include "kleak.h"

static int bad(unsigned long n, const char *why)
{
	fprintf(stderr, "pack: line %lu: %s\n", n, why);
	return 1;
}

int main(void)
{
	struct ks_buf b = { 0 };
	char line[65536], func[256], hex[32768];
	unsigned char payload[16384];
	unsigned long n = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct klog_rec_hdr r = { .pid = 1, .site_id = 10 };
		unsigned long long seq, ts;
		unsigned int cpu, kind, byte;
		size_t i, len;

		n++;
		if (!strncmp(line, "kleak ", 6)) {
			struct kleak_record k = { .magic = KLEAK_MAGIC };
			unsigned long long v[6];
			unsigned int ver, type;

			if (sscanf(line, "kleak %u %llu %llu %u %u %llu %llu %llu %llu %llu",
				   &cpu, &seq, &ts, &ver, &type, &v[0], &v[1],
				   &v[2], &v[3], &v[4]) != 10)
				return bad(n, "expected 'kleak CPU SEQ TS VERSION TYPE KSEQ SITE PTR REQ ALLOC'");
			k.version = ver;
			k.type = type;
			k.seq = v[0];
			k.call_site = v[1];
			k.ptr = v[2];
			k.bytes_req = v[3];
			k.bytes_alloc = v[4];
			r.cpu = cpu;
			r.seq = seq;
			r.ts_ns = ts;
			r.kind = KLOG_RELAY_RAW;
			r.len = sizeof(k);
			if (ks_put_record(&b, &r, &k))
				return bad(n, "out of memory");
			continue;
		}
		if (sscanf(line, "hdr %u", &cpu) == 1) {
			if (ks_put_subbuf_hdr(&b, cpu, 0, 0, 0))
				return bad(n, "out of memory");
			continue;
		}
		hex[0] = '\0';
		if (sscanf(line, "rec %u %llu %llu %u %255s %32767s", &cpu, &seq,
			   &ts, &kind, func, hex) < 5)
			return bad(n, "neither 'hdr CPU' nor 'rec CPU SEQ TS KIND FUNC HEX'");
		len = strlen(hex) / 2;
		for (i = 0; i < len; i++) {
			if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
				return bad(n, "payload is not hex");
			payload[i] = byte;
		}
		r.cpu = cpu;
		r.seq = seq;
		r.ts_ns = ts;
		r.kind = kind;
		r.len = len;
		if (ks_put_record(&b, &r, payload))
			return bad(n, "out of memory");
	}
	if (b.len && fwrite(b.p, 1, b.len, stdout) != b.len)
		return bad(n, "write error");
	ks_buf_free(&b);	/* no leak for LeakSanitizer to report */
	return fflush(stdout) ? 1 : 0;
}
