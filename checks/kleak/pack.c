// SPDX-License-Identifier: GPL-2.0
/*
 * pack.c - write a klog relay stream from a text description, with the
 * one encoder (ks_put_subbuf_hdr(), ks_put_record() of klog-stream), for
 * gen.py. Reads lines from stdin, writes the stream to stdout:
 *
 *   hdr CPU                             a sub-buffer header (seq, lost 0)
 *   rec CPU SEQ TS KIND FUNC HEX        a record: pid 1, line 10, task
 *                                       context; HEX is the payload
 *
 * Exit status 0, or 1 with a message naming the bad line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-stream.h"

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
		struct klog_rec_hdr r = { .pid = 1, .line = 10 };
		unsigned long long seq, ts;
		unsigned int cpu, kind, byte;
		size_t i, len;

		n++;
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
		if (ks_put_record(&b, &r, func, payload))
			return bad(n, "out of memory");
	}
	if (b.len && fwrite(b.p, 1, b.len, stdout) != b.len)
		return bad(n, "write error");
	return fflush(stdout) ? 1 : 0;
}
