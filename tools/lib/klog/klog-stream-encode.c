// SPDX-License-Identifier: GPL-2.0
/*
 * klog-stream-encode.c - write klog relay stream items into a struct ks_buf
 *
 * The encoder of the tests, fixtures and fuzz generators: sub-buffer
 * headers, records and COMM records of the current version, and version
 * 1 records for old collections, laid out as <linux/klog_relay.h> draws
 * them (sizes filled in, padded to 8 bytes with zeros), so that what the
 * decoder reads back is what klog-mod writes.
 */
#include <string.h>

#include "klog-stream.h"

int ks_put(struct ks_buf *b, const void *p, size_t n)
{
	if (ks_buf_reserve(b, n))
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
